/* t-modops.c — tensor products and module maps (algebra/modops.h), against independent code:
 *   - M ⊗ N's action table (solved by fdm_parse from the Cartan formula on the Sq(2^k)) equals
 *     the coproduct formula Sq(R)(x ⊗ y) = Σ_{R'+R''=R} Sq(R') x ⊗ Sq(R'') y for every Milnor
 *     basis element Sq(R) and every pair, over pairs of shipped finite modules;
 *   - F2 ⊗ M is M (names aside), and the swap x*y -> y*x and the regrouping of (M ⊗ N) ⊗ P
 *     onto M ⊗ (N ⊗ P) (same names) are A-linear: modops_map_check accepts them;
 *   - modops_map_check agrees with a naive check through the generators Sq(2^k) only, on
 *     random linear maps between shipped modules (most of them not A-linear);
 *   - D(D(N)) = N and D(M ⊗ N) = DM ⊗ DN for the dual (modops_dual, through the antipode), D(C2)
 *     = C2[-1] and D(Joker) = the Joker with Sq4 x0 = x4, moved down 4;
 *   - bad map files: unknown keys and classes, wrong degree, malformed sums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/modops.h"
#include "tests/tap.h"

static int load(const char *name, fd_module *m)
{
    char path[256], err[600];
    snprintf(path, sizeof path, "modules/%s.json", name);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    if (fdm_parse(buf, len, m, err, sizeof err) != 0) {
        diag("%s: %s", name, err);
        return -1;
    }
    return 0;
}

/* Index of the class named name in degree t of m, or -1. */
static int idx(const fd_module *m, deg_t t, const char *name)
{
    for (uint32_t i = 0; i < fdm_dim(m, t); i++)
        if (!strcmp(m->names[t - m->min_deg][i], name)) return (int)i;
    return -1;
}

/* Sq(R) x as a vector (bit per class of degree u + |R|) into v; 0 when R is past m's table. */
static void act(const fd_module *m, deg_t u, uint32_t k, const milnor_elt *R, uint64_t *v, size_t words)
{
    memset(v, 0, words * 8);
    if (R->degree == 0) {
        v[k >> 6] |= 1ull << (k & 63);
        return;
    }
    if (R->degree > m->max_deg - m->min_deg) return;
    const uint64_t *y = fdm_act(m, u, k, R->degree, milnor_index(&m->A, R));
    if (y) memcpy(v, y, f2vec_words(fdm_dim(m, u + R->degree)) * 8);
}

/* Every Sq(R) and pair: the table of T = M ⊗ N against Σ Sq(R') x ⊗ Sq(R'') y. */
static int check_coproduct(const fd_module *M, const fd_module *N, const fd_module *T, long *checked)
{
    uint64_t a[8], b[8], want[64];
    char name[256];
    for (deg_t d = 1; d <= T->max_deg - T->min_deg; d++)
        for (uint32_t r = 0; r < T->A.dim[d]; r++) {
            const milnor_elt *R = &T->A.elts[d][r];
            for (deg_t u = M->min_deg; u <= M->max_deg; u++)
                for (deg_t v = N->min_deg; v <= N->max_deg; v++)
                    for (uint32_t x = 0; x < fdm_dim(M, u); x++)
                        for (uint32_t y = 0; y < fdm_dim(N, v); y++) {
                            deg_t w = u + v + d;
                            memset(want, 0, sizeof want);
                            /* R' over every entrywise split of R */
                            uint32_t c[MILNOR_MAX_LEN] = { 0 };
                            for (;;) {
                                milnor_elt R1, R2;
                                uint32_t c2[MILNOR_MAX_LEN];
                                for (uint32_t i = 0; i < R->len; i++) c2[i] = R->r[i] - c[i];
                                milnor_elt_set(&R1, c, (int)R->len);
                                milnor_elt_set(&R2, c2, (int)R->len);
                                act(M, u, x, &R1, a, 8);
                                act(N, v, y, &R2, b, 8);
                                for (uint32_t p = 0; p < fdm_dim(M, u + R1.degree); p++)
                                    for (uint32_t q = 0; q < fdm_dim(N, v + R2.degree) && (a[p >> 6] >> (p & 63) & 1); q++)
                                        if (b[q >> 6] >> (q & 63) & 1) {
                                            snprintf(name, sizeof name, "%s*%s", M->names[u + R1.degree - M->min_deg][p],
                                                     N->names[v + R2.degree - N->min_deg][q]);
                                            int j = idx(T, w, name);
                                            if (j < 0) return 0;
                                            want[j >> 6] ^= 1ull << (j & 63);
                                        }
                                uint32_t i = 0;
                                while (i < R->len && c[i] == R->r[i]) c[i++] = 0;
                                if (i == R->len) break;
                                c[i]++;
                            }
                            snprintf(name, sizeof name, "%s*%s", M->names[u - M->min_deg][x], N->names[v - N->min_deg][y]);
                            uint64_t got[64];
                            act(T, u + v, (uint32_t)idx(T, u + v, name), R, got, 64);
                            if (memcmp(got, want, f2vec_words(fdm_dim(T, w)) * 8 + 8 * (fdm_dim(T, w) == 0)) &&
                                fdm_dim(T, w)) {
                                char rn[64];
                                diag("%s at %s: table and coproduct differ", milnor_elt_format(R, rn, sizeof rn), name);
                                return 0;
                            }
                            (*checked)++;
                        }
        }
    return 1;
}

/* A map file sending every class of M to the class of N named by rename(name) (same degree). */
static char *identity_file(const fd_module *M, void (*rename)(const char *, char *, size_t))
{
    static char buf[1 << 16];
    size_t len = (size_t)snprintf(buf, sizeof buf, "{\"degree\": 0, \"images\": {");
    for (deg_t t = M->min_deg; t <= M->max_deg; t++)
        for (uint32_t i = 0; i < fdm_dim(M, t); i++) {
            char to[256];
            rename(M->names[t - M->min_deg][i], to, sizeof to);
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s\"%s\": \"%s\"", len > 30 ? ", " : "",
                                    M->names[t - M->min_deg][i], to);
        }
    snprintf(buf + len, sizeof buf - len, "}}");
    return buf;
}
static void same_name(const char *a, char *b, size_t n) { snprintf(b, n, "%s", a); }
static void swap_name(const char *a, char *b, size_t n)
{
    const char *star = strchr(a, '*');
    snprintf(b, n, "%s*%.*s", star + 1, (int)(star - a), a);
}
static void drop_unit(const char *a, char *b, size_t n) { snprintf(b, n, "%.*s", (int)(strchr(a, '*') - a), a); }

static int map_ok(const char *text, const fd_module *M, const fd_module *N, char *err, size_t es)
{
    module_map f;
    if (modops_map_parse(text, strlen(text), M, N, &f, err, es) != 0) return -2;
    int rc = modops_map_check(&f, M, N, err, es);
    modops_map_clear(&f);
    return rc;
}

/* The naive check: f(Sq^{2^k} x) = Sq^{2^k} f(x) for the generators of A only. */
static int naive_linear(const module_map *f, const fd_module *M, const fd_module *N)
{
    uint64_t sx[8], fx[8], l[8], r[8];
    for (deg_t n = 1; n <= 64; n <<= 1)
        for (deg_t u = M->min_deg; u <= M->max_deg; u++)
            for (uint32_t k = 0; k < fdm_dim(M, u); k++) {
                uint32_t one = (uint32_t)n;
                milnor_elt G;
                milnor_elt_set(&G, &one, 1);
                memset(l, 0, sizeof l), memset(r, 0, sizeof r), memset(fx, 0, sizeof fx);
                act(M, u, k, &G, sx, 8);
                if (fdm_dim(M, u + n)) modops_map_apply(f, M, u + n, sx, l);
                uint64_t e[8] = { 0 };
                e[k >> 6] |= 1ull << (k & 63);
                modops_map_apply(f, M, u, e, fx);
                deg_t v = u + f->degree;
                for (uint32_t b = 0; b < fdm_dim(N, v); b++)
                    if (fx[b >> 6] >> (b & 63) & 1) {
                        act(N, v, b, &G, sx, 8);
                        for (int w = 0; w < 8; w++) r[w] ^= sx[w];
                    }
                if (memcmp(l, r, sizeof l)) return 0;
            }
    return 1;
}

int main(void)
{
    plan(17);
    static const char *names[] = { "S_2", "C2", "Ceta", "Cnu", "Joker", "RP4", "C2_eta", "RP_-4_4" };
    enum { NM = sizeof names / sizeof *names };
    fd_module mods[NM];
    int loaded = 1;
    for (int k = 0; k < NM; k++) loaded &= load(names[k], &mods[k]) == 0;
    if (!ok(loaded, "the shipped modules load")) return 1;
    char err[600];
    long checked = 0;
    int good = 1, pairs = 0;
    for (int a = 0; a < NM && good; a++)
        for (int b = 0; b < NM && good; b++) {
            if (mods[a].max_deg - mods[a].min_deg + mods[b].max_deg - mods[b].min_deg > 12) continue;
            fd_module T;
            if (modops_tensor(&mods[a], &mods[b], &T, err, sizeof err) != 0) {
                diag("%s*%s: %s", names[a], names[b], err);
                good = 0;
                break;
            }
            good = check_coproduct(&mods[a], &mods[b], &T, &checked);
            if (!good) diag("%s*%s", names[a], names[b]);
            pairs++;
            fdm_clear(&T);
        }
    ok(good && pairs >= 40, "M ⊗ N's table equals the coproduct formula for every Sq(R) (%d pairs, %ld values)", pairs,
       checked);

    /* F2 ⊗ M = M, swap, regrouping */
    int unit = 1, swap = 1, assoc = 1;
    for (int k = 1; k < NM; k++) {
        fd_module T, U, V, W, X;
        modops_tensor(&mods[0], &mods[k], &T, err, sizeof err);
        modops_tensor(&mods[k], &mods[0], &U, err, sizeof err);
        unit &= map_ok(identity_file(&U, drop_unit), &U, &mods[k], err, sizeof err) == 0;
        unit &= map_ok(identity_file(&U, swap_name), &U, &T, err, sizeof err) == 0;
        int j = k % (NM - 1) + 1;
        modops_tensor(&mods[k], &mods[j], &V, err, sizeof err);
        modops_tensor(&mods[j], &mods[k], &W, err, sizeof err);
        swap &= map_ok(identity_file(&V, swap_name), &V, &W, err, sizeof err) == 0;
        fdm_clear(&T), fdm_clear(&U), fdm_clear(&W);
        if (mods[k].max_deg - mods[k].min_deg + mods[j].max_deg - mods[j].min_deg <= 8) {
            fd_module P, Q, R;   /* (k ⊗ j) ⊗ C2 against k ⊗ (j ⊗ C2): the names agree */
            modops_tensor(&V, &mods[1], &P, err, sizeof err);
            modops_tensor(&mods[j], &mods[1], &Q, err, sizeof err);
            modops_tensor(&mods[k], &Q, &R, err, sizeof err);
            assoc &= map_ok(identity_file(&P, same_name), &P, &R, err, sizeof err) == 0;
            fdm_clear(&P), fdm_clear(&Q), fdm_clear(&R);
        }
        fdm_clear(&V);
        (void)X;
    }
    ok(unit, "F2 ⊗ M -> M and M ⊗ F2 -> F2 ⊗ M (by names) are A-linear");
    ok(swap, "the swap M ⊗ N -> N ⊗ M is A-linear");
    ok(assoc, "(M ⊗ N) ⊗ C2 -> M ⊗ (N ⊗ C2) is A-linear");

    /* duals: D(D(N)) = N, D(M ⊗ N) = DM ⊗ DN (identity by names), D(C2) = C2[-1], and the
     * Joker's dual is the Joker with Sq4 x0 = x4 (not the shipped Joker, whose Sq4 is 0) */
    int dd = 1, dtensor = 1;
    for (int k = 0; k < NM; k++) {
        fd_module D1, D2, T, DT, DD;
        dd &= modops_dual(&mods[k], &D1, err, sizeof err) == 0 && modops_dual(&D1, &D2, err, sizeof err) == 0 &&
              map_ok(identity_file(&mods[k], same_name), &mods[k], &D2, err, sizeof err) == 0 &&
              map_ok(identity_file(&D2, same_name), &D2, &mods[k], err, sizeof err) == 0;
        int j = (k + 3) % NM;
        if (mods[k].max_deg - mods[k].min_deg + mods[j].max_deg - mods[j].min_deg <= 12) {
            fd_module Dj;
            dtensor &= modops_tensor(&mods[k], &mods[j], &T, err, sizeof err) == 0 &&
                       modops_dual(&T, &DT, err, sizeof err) == 0 && modops_dual(&mods[j], &Dj, err, sizeof err) == 0 &&
                       modops_tensor(&D1, &Dj, &DD, err, sizeof err) == 0 &&
                       map_ok(identity_file(&DT, same_name), &DT, &DD, err, sizeof err) == 0;
            fdm_clear(&T), fdm_clear(&DT), fdm_clear(&Dj), fdm_clear(&DD);
        }
        fdm_clear(&D1), fdm_clear(&D2);
    }
    ok(dd, "D(D(N)) = N for every shipped finite module N");
    ok(dtensor, "D(M ⊗ N) = DM ⊗ DN (by names)");
    fd_module DC2, C2m1, DJ, J1;
    static const char joker1[] = "{\"p\": 2, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0, \"x1\": 1, "
        "\"x2\": 2, \"x3\": 3, \"x4\": 4}, \"actions\": [\"Sq1 x0 = x1\", \"Sq2 x0 = x2\", \"Sq2 x1 = x3\", "
        "\"Sq2 x2 = x4\", \"Sq1 x3 = x4\", \"Sq4 x0 = x4\"]}";
    int base = modops_dual(&mods[1], &DC2, err, sizeof err) == 0 && load("C2", &C2m1) == 0 &&
               fdm_shift(&C2m1, -1, err, sizeof err) == 0 && modops_dual(&mods[4], &DJ, err, sizeof err) == 0 &&
               fdm_parse(joker1, strlen(joker1), &J1, err, sizeof err) == 0 && fdm_shift(&J1, -4, err, sizeof err) == 0;
    const char *flip2 = "{\"degree\": 0, \"images\": {\"x0\": \"x1\", \"x1\": \"x0\"}}";
    const char *flip5 = "{\"degree\": 0, \"images\": {\"x0\": \"x4\", \"x1\": \"x3\", \"x2\": \"x2\", \"x3\": \"x1\", "
                        "\"x4\": \"x0\"}}";
    ok(base && map_ok(flip2, &DC2, &C2m1, err, sizeof err) == 0 && map_ok(flip5, &DJ, &J1, err, sizeof err) == 0,
       "D(C2) = C2[-1] and D(Joker) = Joker'[-4] (Sq4 x0 = x4), classes x_k <-> x_(top-k)");
    fd_module Jm4;
    ok(load("Joker", &Jm4) == 0 && fdm_shift(&Jm4, -4, err, sizeof err) == 0 &&
       map_ok(flip5, &DJ, &Jm4, err, sizeof err) == -1 && strstr(err, "Sq(4)"),
       "but D(Joker) is not the shipped Joker[-4] (%s)", err);
    fdm_clear(&DC2), fdm_clear(&C2m1), fdm_clear(&DJ), fdm_clear(&J1), fdm_clear(&Jm4);

    /* random maps: the full check against the naive one through the Sq(2^k) */
    srand(7);
    int agree = 1, linear = 0, tried = 0;
    for (int trial = 0; trial < 3000; trial++) {
        int a = rand() % NM, b = rand() % NM;
        deg_t deg = (deg_t)(rand() % 9) - 4;
        module_map f = { deg, mods[a].min_deg, mods[a].max_deg, NULL };
        f.rows = calloc((size_t)(mods[a].max_deg - mods[a].min_deg + 1), sizeof *f.rows);
        for (deg_t u = f.min_deg; u <= f.max_deg; u++) {
            f2mat *R = &f.rows[u - f.min_deg];
            f2mat_init(R, fdm_dim(&mods[a], u), fdm_dim(&mods[b], u + deg));
            for (uint32_t i = 0; i < R->rows; i++)
                for (uint32_t j = 0; j < R->cols; j++)
                    if (rand() % 3 == 0) f2mat_flip(R, i, j);
        }
        int full = modops_map_check(&f, &mods[a], &mods[b], err, sizeof err) == 0;
        agree &= full == naive_linear(&f, &mods[a], &mods[b]);
        linear += full;
        tried++;
        modops_map_clear(&f);
    }
    ok(agree && linear > 50 && linear < tried - 50, "on %d random maps the check agrees with the Sq(2^k) one "
       "(%d A-linear)", tried, linear);

    /* the maps of the lift_hom references, and bad files */
    const fd_module *F2 = &mods[0], *Cnu = &mods[3];
    ok(map_ok("{\"degree\": 4, \"images\": {\"x0\": \"x4\"}}", F2, Cnu, err, sizeof err) == 0 &&
       map_ok("{\"degree\": 0, \"images\": {\"x0\": \"x0\"}}", Cnu, F2, err, sizeof err) == 0,
       "F2 -> Cnu (x0 -> x4, degree 4) and Cnu -> F2 (x0 -> x0) are A-linear");
    int r = map_ok("{\"degree\": 0, \"images\": {\"x0\": \"x0\"}}", F2, Cnu, err, sizeof err);
    ok(r == -1 && strstr(err, "not A-linear: f(Sq(4) x0) = 0 but Sq(4) f(x0) = x4"),
       "F2 -> Cnu, x0 -> x0: not A-linear (%s)", err);
    r = map_ok("{\"degree\": 0, \"images\": {\"x0\": \"x4\"}}", F2, Cnu, err, sizeof err);
    ok(r == -2 && strstr(err, "wrong degree"), "an image of the wrong degree is refused (%s)", err);
    r = map_ok("{\"degree\": 4, \"images\": {\"x1\": \"x4\"}}", F2, Cnu, err, sizeof err);
    ok(r == -2 && strstr(err, "'x1' is not a class of the source"), "an unknown source class (%s)", err);
    r = map_ok("{\"degree\": 4, \"images\": {\"x0\": \"x5\"}}", F2, Cnu, err, sizeof err);
    ok(r == -2 && strstr(err, "not a class of the target"), "an unknown target class (%s)", err);
    r = map_ok("{\"degree\": 4, \"images\": {}, \"shift\": 1}", F2, Cnu, err, sizeof err);
    ok(r == -2 && strstr(err, "key 'shift'"), "an unknown key (%s)", err);
    r = map_ok("{\"images\": {}}", F2, Cnu, err, sizeof err) == -2 &&
        map_ok("{\"degree\": 4, \"images\": {\"x0\": \"x4 x4\"}}", F2, Cnu, err, sizeof err) == -2 &&
        map_ok("{\"degree\": 4, \"images\": {\"x0\": 4}}", F2, Cnu, err, sizeof err) == -2 &&
        map_ok("[1", F2, Cnu, err, sizeof err) == -2;
    ok(r, "no degree, a malformed sum, a number, broken JSON: refused");
    for (int k = 0; k < NM; k++) fdm_clear(&mods[k]);
    return 0;
}
