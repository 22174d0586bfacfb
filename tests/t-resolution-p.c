/* t-resolution-p.c — the resolution at an odd prime (stages/resolve/standard_p.h) against sseq's
 * tables: S_3 and C3 (over the profile that leaves Q_0 out) at p = 3, S_5 at p = 5, the module
 * files sseq ships (tests/ref/module-files/), every dim Ext^{s,t} of the region equal to the
 * `n,s,dim` lines of sseq's num_gens (tests/ref/oddprimes/num_gens-M-N-S, made by sseq's
 * standard algorithm, tests/ref/oddprimes/README.md). The region is smaller than the tables'
 * here (stem 40 at p = 3) so that the test stays short; tests/t-oddprimes.sh runs the CLI
 * through the tables' full regions. C3 also as the module {x0, x1: b x0 = x1} (an action,
 * algebra/fdmodule_p.h) and as the cofiber of a_0 (key "cofiber", stages/resolve/cofiber.h): both
 * equal sseq's C3 table. Then, on these resolutions and on every other odd-prime module file
 * (actions, cofibers, profiles): d∘d = 0 at every bidegree by one-by-one Milnor products mod p
 * (independent of the plan's rows), d_0 ∘ d_1 into M included, and the check catches changed
 * entries; no generator has d = 0 (minimality); the serial runner and the StarPU runner give
 * the same generators byte for byte. Last, the modules' actions against the Adem relations at
 * odd p (an independent description of A_p) and against the actions the files give, and
 * files that break a relation or cannot be read refused with their reason. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/fpmat.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/resolve/cofiber.h"
#include "stages/resolve/resolution_p.h"
#include "stages/resolve/step.h"
#include "tests/tap.h"

/* A module from a file, or (text starting with '{') from the JSON itself; its cofiber prepared. */
static int load(const char *src, fd_module *m, char *err, size_t es)
{
    char buf[1 << 14];
    size_t n = 0;
    if (src[0] == '{') memcpy(buf, src, n = strlen(src));
    else {
        FILE *f = fopen(src, "rb");
        n = f ? fread(buf, 1, sizeof buf, f) : 0;
        if (f) fclose(f);
    }
    if (!n) {
        snprintf(err, es, "cannot read");
        return -1;
    }
    if (fdm_parse(buf, n, m, err, es) != 0) return -1;
    if (cofiber_prepare(m, err, es) != 0) {
        fdm_clear(m);
        return -1;
    }
    return 0;
}

/* The reference's dims, ref[s * (N + 1) + n], for n <= N, s <= S; -1 where it has no line. */
static int *read_ref(const char *path, int N, int S)
{
    FILE *f = fopen(path, "r");
    int *ref = malloc(sizeof *ref * (size_t)(N + 1) * (size_t)(S + 1));
    char line[256];
    if (!f || !ref) bail("cannot read the reference table");
    for (int k = 0; k < (N + 1) * (S + 1); k++) ref[k] = -1;
    while (fgets(line, sizeof line, f)) {
        int n, s, d;
        if (sscanf(line, "%d,%d,%d", &n, &s, &d) == 3 && n <= N && s <= S) ref[s * (N + 1) + n] = d;
    }
    fclose(f);
    return ref;
}

static int resolve(resolution *res, fd_module *m, int stem, int max_s, int starpu)
{
    if (res_init(res, REGION_STEM, stem, max_s, 0, "", 0, ALG_STANDARD) != 0 || res_set_module(res, m, "M") != 0)
        bail("res_init");
    if (!starpu) {
        chain_set set = step_chain_set(res);
        return chain_run(&chain_serial, &set);
    }
    char err[256];
    if (rt_init(0, err, sizeof err) != 0) bail(err);
    int rc = res_run(res, &rt_chain_runner);
    rt_shutdown();
    return rc;
}

/* d∘d = 0 everywhere, one-entry changes caught, no d(g) = 0, the StarPU runner's generators the
 * same: 3 tests on a resolution res of m. */
static void identities(const char *name, fd_module *m, resolution *res, int stem, int max_s)
{
    /* does M's action show in d_0 (else d_0 ∘ d_1 = 0 whatever d_1 is)? */
    int acts = 0;
    for (deg_t u = m->min_deg; u <= m->max_deg; u++)
        for (deg_t d = 1; u + d <= m->max_deg; d++)
            for (uint32_t i = 0; i < fdm_dim(m, u); i++)
                for (uint32_t r = 0; r < m->pB->dim[d]; r++)
                    for (uint32_t j = 0; j < fdm_dim(m, u + d); j++) acts |= fdm_act_p(m, u, i, d, r)[j] != 0;
    long ddbad = 0, flipped = 0, caught = 0, zero = 0;
    for (int s = 1; s <= max_s; s++)
        for (deg_t t = s; t - s <= stem; t++) {
            ddbad += res_check_dd_p(res, s, t) != 1;
            for (uint32_t i = 0; i < res_ngens(res, s, t); i++) {
                fm_gen *g = &res->F[s].gens[t][i];
                uint8_t *img = g->img_p;
                uint32_t nz = 0;
                for (uint32_t k = 0; k < g->bits; k++) nz += img[k] != 0;
                zero += nz == 0;
                if (!g->bits || (s == 1 && !acts)) continue;
                for (uint32_t at = 0; at < g->bits; at++) {     /* every entry in turn */
                    img[at] = (uint8_t)((img[at] + 1) % m->p);
                    caught += res_check_dd_p(res, s, t) == 0;
                    img[at] = (uint8_t)((img[at] + m->p - 1) % m->p);
                    flipped++;
                }
            }
        }
    ok(ddbad == 0 && zero == 0, "%s: d∘d = 0 at every bidegree (d_0∘d_1 into M included), and no generator has "
       "d = 0", name);
    /* a changed entry adds e·x·h to d(g), still a cycle when x·d(h) = 0 (often at odd p) */
    ok(caught > 0 || flipped == 0, "%s: the d∘d check sees %ld of %ld one-entry changes%s", name, caught, flipped,
       flipped ? "" : " (no d(g) in range that d∘d can see)");
    resolution rt;
    int rc = resolve(&rt, m, stem, max_s, 1);
    long differ = rc != 0;
    for (int s = 0; s <= max_s && !differ; s++)
        for (deg_t t = s; t - s <= stem && !differ; t++) {
            uint32_t n = res_ngens(res, s, t);
            differ |= n != res_ngens(&rt, s, t);
            for (uint32_t i = 0; i < n && !differ; i++)
                differ |= res->F[s].gens[t][i].bits != rt.F[s].gens[t][i].bits ||
                          memcmp(res->F[s].gens[t][i].img_p, rt.F[s].gens[t][i].img_p, res->F[s].gens[t][i].bits) != 0;
        }
    ok(!differ, "%s: the StarPU runner gives the same generators, byte for byte", name);
    res_clear(&rt);
}

/* 5 tests: the module (a file of tests/ref/module-files, or JSON) against sseq's table, and the
 * identities. */
static void check(const char *label, const char *src, const char *table, int N, int S, int stem, int max_s)
{
    char path[256], err[256];
    fd_module m;
    if (src[0] != '{') snprintf(path, sizeof path, "tests/ref/module-files/%s.json", src);
    if (load(src[0] == '{' ? src : path, &m, err, sizeof err) != 0) bail(err);
    resolution res;
    int rc = resolve(&res, &m, stem, max_s, 0);
    ok(rc == 0 && res.prime == m.p, "%s: resolved at p = %u through stem %d, s <= %d (serial runner)%s%s", label, m.p,
       stem, max_s, rc ? ": " : "", rc ? res.error : "");
    int *ref = read_ref(table, N, S);
    long cells = 0, gens = 0, bad = 0;
    for (int s = 0; s <= max_s; s++)
        for (int n = 0; n <= stem; n++) {
            int want = ref[s * (N + 1) + n], have = (int)res_ngens(&res, s, n + s);
            cells++;
            gens += have;
            if (want != have && bad++ < 5) diag("%s: (n, s) = (%d, %d): %d generators, sseq has %d", label, n, s, have, want);
        }
    ok(bad == 0, "%s: dim Ext^{s,t} equals sseq's table at all %ld bidegrees (%ld classes)", label, cells, gens);
    identities(label, &m, &res, stem, max_s);
    free(ref);
    res_clear(&res);
    fdm_clear(&m);
}

/* 4 tests: a module file with no sseq table here: resolved, and the identities. */
static void check_file(const char *name, int stem, int max_s)
{
    char path[256], err[256];
    fd_module m;
    snprintf(path, sizeof path, "tests/ref/module-files/%s.json", name);
    if (load(path, &m, err, sizeof err) != 0) bail(err);
    resolution res;
    int rc = resolve(&res, &m, stem, max_s, 0);
    long gens = 0;
    for (int s = 0; s <= max_s; s++)
        for (int n = 0; n <= stem; n++) gens += res_ngens(&res, s, n + s);
    ok(rc == 0 && res.prime == m.p, "%s: resolved at p = %u through stem %d, s <= %d, %ld classes%s%s", name, m.p,
       stem, max_s, gens, rc ? ": " : "", rc ? res.error : "");
    identities(name, &m, &res, stem, max_s);
    res_clear(&res);
    fdm_clear(&m);
}

/* 1 test: two modules with the same Ext through (stem, max_s). */
static void same_ext(const char *what, const char *a, const char *b, int stem, int max_s)
{
    fd_module ma, mb;
    char err[256];
    if (load(a, &ma, err, sizeof err) != 0 || load(b, &mb, err, sizeof err) != 0) bail(err);
    resolution ra, rb;
    int rc = resolve(&ra, &ma, stem, max_s, 0) | resolve(&rb, &mb, stem, max_s, 0);
    long differ = 0, gens = 0;
    for (int s = 0; s <= max_s; s++)
        for (deg_t t = s; t - s <= stem; t++) {
            differ += res_ngens(&ra, s, t) != res_ngens(&rb, s, t);
            gens += res_ngens(&ra, s, t);
        }
    ok(rc == 0 && differ == 0, "%s: the same Ext through stem %d, s <= %d (%ld classes)", what, stem, max_s, gens);
    res_clear(&ra);
    res_clear(&rb);
    fdm_clear(&ma);
    fdm_clear(&mb);
}

/* ---------------------------------------------------------------- the action against Adem */

static uint32_t binom_mod(long n, long k, uint32_t p)
{
    if (k < 0 || n < 0 || k > n) return 0;
    uint64_t c = 1;             /* small arguments: exact, then mod p */
    for (long i = 1; i <= k; i++) c = c * (uint64_t)(n - k + i) / (uint64_t)i;
    return (uint32_t)(c % p);
}

/* v (over M_u) := op·v, op = P^n (n >= 0) or β (n < 0), through the module's table; the result
 * is over M_{u + |op|} (zero past the top). Returns the new degree. */
static deg_t apply(const fd_module *m, long n, deg_t u, uint8_t *v)
{
    milnor_p_elt X;
    uint32_t r = (uint32_t)(n < 0 ? 0 : n);
    milnor_p_elt_set(&X, m->p, n < 0 ? 1u : 0u, &r, n < 0 ? 0 : 1);
    deg_t t = u + X.degree;
    uint8_t out[64] = { 0 };
    if (t <= m->max_deg) {
        uint32_t j = milnor_p_index(m->pA, &X);
        for (uint32_t i = 0; i < fdm_dim(m, u); i++)
            if (v[i]) fpvec_addmul(out, fdm_act_p(m, u, i, X.degree, j), v[i], fdm_dim(m, t), m->p);
    }
    memcpy(v, out, sizeof out);
    return t;
}

/* acc += c · ops[k-1] ··· ops[0] · x (x = class i of M_u; ops: P^n, or β for -1). */
static void add_word(const fd_module *m, const long *ops, int k, deg_t u, uint32_t i, uint32_t c, uint8_t *acc)
{
    uint8_t v[64] = { 0 };
    v[i] = 1;
    deg_t t = u;
    for (int j = 0; j < k; j++) t = apply(m, ops[j], t, v);
    if (t <= m->max_deg) fpvec_addmul(acc, v, c % m->p, fdm_dim(m, t), m->p);
}

/* Every Adem relation with both sides inside M, on every class: P^a P^b (a < pb), P^a β P^b
 * (a <= pb), ββ = 0, and Q_1 = P^1 β - β P^1 (Milnor's). Returns how many were checked; *bad
 * gets the failures. */
static long adem_check(const fd_module *m, long *bad)
{
    long p = m->p, q = 2 * (p - 1), checked = 0;
    uint8_t lhs[64], rhs[64];
    for (deg_t u = m->min_deg; u <= m->max_deg; u++)
        for (uint32_t i = 0; i < fdm_dim(m, u); i++) {
            for (long a = 1; u + q * (a + 1) <= m->max_deg; a++)
                for (long b = 1; u + q * (a + b) <= m->max_deg; b++)
                    for (int beta = 0; beta <= 1; beta++) {
                        if (u + q * (a + b) + beta > m->max_deg || (beta ? a > p * b : a >= p * b)) continue;
                        memset(lhs, 0, sizeof lhs);
                        memset(rhs, 0, sizeof rhs);
                        long w[3] = { b, -1, a };
                        if (beta) add_word(m, w, 3, u, i, 1, lhs);
                        else {
                            long w2[2] = { b, a };
                            add_word(m, w2, 2, u, i, 1, lhs);
                        }
                        for (long j = 0; p * j <= a; j++) {
                            long sgn = (a + j) % 2 ? p - 1 : 1;
                            if (!beta) {
                                long w3[2] = { j, a + b - j };
                                add_word(m, w3, 2, u, i, (uint32_t)(sgn * binom_mod((p - 1) * (b - j) - 1, a - p * j, (uint32_t)p)), rhs);
                                continue;
                            }
                            long w4[3] = { j, a + b - j, -1 };          /* β P^{a+b-j} P^j */
                            add_word(m, w4, 3, u, i, (uint32_t)(sgn * binom_mod((p - 1) * (b - j), a - p * j, (uint32_t)p)), rhs);
                            long w5[3] = { j, -1, a + b - j };          /* P^{a+b-j} β P^j, sign flipped */
                            add_word(m, w5, 3, u, i,
                                     (uint32_t)((p - sgn) * binom_mod((p - 1) * (b - j) - 1, a - p * j - 1, (uint32_t)p)), rhs);
                        }
                        checked++;
                        *bad += memcmp(lhs, rhs, sizeof lhs) != 0;
                    }
            if (u + 2 <= m->max_deg) {                  /* ββ = 0 */
                memset(lhs, 0, sizeof lhs);
                long w[2] = { -1, -1 };
                add_word(m, w, 2, u, i, 1, lhs);
                checked++;
                for (size_t k = 0; k < sizeof lhs; k++) *bad += lhs[k] != 0;
            }
            if (u + (deg_t)q + 1 <= m->max_deg) {       /* Q_1 x = P^1 β x - β P^1 x */
                milnor_p_elt Q1;
                milnor_p_elt_set(&Q1, m->p, 2u, NULL, 0);
                memset(lhs, 0, sizeof lhs);
                memset(rhs, 0, sizeof rhs);
                memcpy(lhs, fdm_act_p(m, u, i, Q1.degree, milnor_p_index(m->pA, &Q1)), fdm_dim(m, u + Q1.degree));
                long w1[2] = { -1, 1 }, w2[2] = { 1, -1 };
                add_word(m, w1, 2, u, i, 1, rhs);
                add_word(m, w2, 2, u, i, (uint32_t)(p - 1), rhs);
                checked++;
                *bad += memcmp(lhs, rhs, sizeof lhs) != 0;
            }
        }
    return checked;
}

/* The actions "OP x = y" of the file (one class on the right, as in sseq's files): the table's
 * entry is that class. Returns how many, or -1 at the first that differs. */
static int given_agree(const fd_module *m, const char *path)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je), *acts = json_object_get(root, "actions"), *a;
    size_t k;
    int seen = 0;
    json_array_foreach(acts, k, a) {
        char op[16], x[32], y[32];
        if (sscanf(json_string_value(a), "%15s %31s = %31s", op, x, y) != 3) seen = -1;
        long n = op[0] == 'b' ? -1 : atol(op + 1);
        for (deg_t u = m->min_deg; seen >= 0 && u <= m->max_deg; u++)
            for (uint32_t i = 0; seen >= 0 && i < fdm_dim(m, u); i++) {
                if (strcmp(m->names[u - m->min_deg][i], x)) continue;
                uint8_t v[64] = { 0 };
                v[i] = 1;
                deg_t t = apply(m, n, u, v);
                for (uint32_t j = 0; j < fdm_dim(m, t); j++)
                    if (v[j] != !strcmp(m->names[t - m->min_deg][j], y)) seen = -1;
                if (seen >= 0) seen++;
            }
    }
    json_decref(root);
    return seen;
}

static void check_action(const char *name)
{
    char path[256], err[256];
    fd_module m;
    snprintf(path, sizeof path, "tests/ref/module-files/%s.json", name);
    if (load(path, &m, err, sizeof err) != 0) bail(err);
    long bad = 0, n = adem_check(&m, &bad);
    int given = given_agree(&m, path);
    ok(n > 0 && bad == 0 && given > 0, "%s: the action satisfies all %ld Adem relations (P^a P^b, P^a b P^b, bb, "
       "Q_1 = [P^1, b]) on its classes, %ld failing; the %d actions the file gives are the table's", name, n, bad,
       given);
    fdm_clear(&m);
}

/* A module file refused, its reason containing want. */
static void refused(const char *what, const char *json, const char *want)
{
    fd_module m;
    char err[256] = "";
    int rc = load(json, &m, err, sizeof err);
    if (rc == 0) fdm_clear(&m);
    ok(rc != 0 && strstr(err, want) != NULL, "refused: %s (%s)", what, err);
}

int main(void)
{
    setenv("STARPU_SILENT", "1", 0);
    plan(3 * 5 + 2 * 5 + 11 * 4 + 2 + 5 + 8);
    check("S_3", "S_3", "tests/ref/oddprimes/num_gens-S_3-60-20", 60, 20, 40, 20);
    check("C3", "C3", "tests/ref/oddprimes/num_gens-C3-60-20", 60, 20, 40, 20);
    check("S_5", "S_5", "tests/ref/oddprimes/num_gens-S_5-100-15", 100, 15, 60, 15);
    check("C3 as the module b x0 = x1", "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0, "
          "\"x1\": 1}, \"actions\": [\"b x0 = x1\"]}", "tests/ref/oddprimes/num_gens-C3-60-20", 60, 20, 30, 12);
    check("C3 as the cofiber of a_0", "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0}, "
          "\"actions\": [], \"cofiber\": {\"s\": 1, \"t\": 1, \"idx\": 0}}", "tests/ref/oddprimes/num_gens-C3-60-20",
          60, 20, 30, 12);
    static const char *const files[] = { "C3v1", "C3v1b1", "C9", "Calpha", "X3", "y1_3", "y2_3" };
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) check_file(files[k], 30, 12);
    check_file("C5v1", 60, 10);
    check_file("S_7", 80, 8);
    check_file("l", 80, 8);
    check_file("t1", 80, 8);
    same_ext("C3v1 (V(1)) and the cofiber of v_1 on C3 = {x0, x1: b x0 = x1}", "tests/ref/module-files/C3v1.json",
             "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0, \"x1\": 1}, \"actions\": "
             "[\"b x0 = x1\"], \"cofiber\": {\"s\": 1, \"t\": 5, \"idx\": 0}}", 40, 20);
    same_ext("Calpha and the cofiber of h_0 in Ext^{1,4}(F_3)", "tests/ref/module-files/Calpha.json",
             "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0}, \"actions\": [], "
             "\"cofiber\": {\"s\": 1, \"t\": 4, \"idx\": 0}}", 40, 20);
    static const char *const acting[] = { "C3v1", "C5v1", "Calpha", "X3" };
    for (size_t k = 0; k < sizeof acting / sizeof *acting; k++) check_action(acting[k]);
    {   /* a coefficient other than 1, read mod p */
        fd_module m;
        char err[256];
        int rc = load("{\"p\": 5, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0, \"x8\": 8}, "
                      "\"actions\": [\"P1 x0 = 7 x8\"]}", &m, err, sizeof err);
        milnor_p_elt P1;
        uint32_t one = 1;
        milnor_p_elt_set(&P1, 5, 0, &one, 1);
        ok(rc == 0 && fdm_act_p(&m, 0, 0, 8, milnor_p_index(m.pA, &P1))[0] == 2, "P1 x0 = 7 x8 at p = 5: the table "
           "says 2 x8");
        if (rc == 0) fdm_clear(&m);
    }
#define FD3(gens, acts) "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": " gens ", \"actions\": " acts "}"
    refused("bb = 0 broken", FD3("{\"x0\": 0, \"x1\": 1, \"x2\": 2}", "[\"b x0 = x1\", \"b x1 = x2\"]"),
            "not a module");
    refused("(P^1)^3 = 0 broken (P^1 P^1 = 2 P^2, P^1 P^2 = 3 P^3)",
            FD3("{\"x0\": 0, \"x4\": 4, \"x8\": 8, \"x12\": 12}", "[\"P1 x0 = x4\", \"P1 x4 = x8\", \"P1 x8 = x12\"]"),
            "not a module");
    refused("P2 is no generator at p = 3", FD3("{\"x0\": 0, \"x8\": 8}", "[\"P2 x0 = x8\"]"), "only b");
    refused("Sq1 at p = 3", FD3("{\"x0\": 0, \"x1\": 1}", "[\"Sq1 x0 = x1\"]"), "only b");
    refused("an action given twice", FD3("{\"x0\": 0, \"x1\": 1}", "[\"b x0 = x1\", \"b x0 = 2 x1\"]"),
            "given twice");
    refused("b over the profile without Q_0", "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": "
            "{\"x0\": 0, \"x1\": 1}, \"actions\": [\"b x0 = x1\"], \"profile\": {\"q_part\": 4294967294}}",
            "not in the sub-Hopf-algebra");
    refused("an action over a profile its P^(p^k) do not generate (Q_1 acts, degree 5)",
            "{\"p\": 3, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0, \"x4\": 4, \"x5\": 5}, "
            "\"actions\": [\"P1 x0 = x4\"], \"profile\": {\"q_part\": 4294967294}}", "not generated");
    refused("a cofiber of a class that is not a cocycle (Calpha's class at (1, 5))",
            FD3("{\"x0\": 0, \"x4\": 4}", "[\"P1 x0 = x4\"], \"cofiber\": {\"s\": 1, \"t\": 5, \"idx\": 0}"),
            "not a cocycle");
    return done_testing();
}
