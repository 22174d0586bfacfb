/* t-ss-model.c — the spectral sequence's model (ss/model.h) and histories (ss/history.h).
 *
 * 1. Random spectral sequences over F_2 and F_3 on a small grid, built page by page by brute
 *    force (subspaces as sets of all their vectors, d_r chosen on a complement of B_r in Z_r,
 *    sources and targets of one page kept apart so that d_r d_r = 0), some bidegrees' d_r left
 *    unsaid: the model's page dimensions equal the brute force's on every page.
 * 2. Every kind of contradiction added to such a sequence is refused, naming the added fact.
 * 3. Leibniz along a product type, and d_r d_r = 0, on hand-made grids.
 * 4. History lines: both spellings, every refusal, and the round trip through the writer. */
#include <stdlib.h>
#include <string.h>
#include "ss/history.h"
#include "ss/model.h"
#include "tests/tap.h"

#define NMAX 7
#define SMAX 6
#define KMAX 3
#define VMAX 27         /* 3^3 vectors */

typedef struct set { int n; uint8_t v[VMAX][KMAX]; } set;     /* a subspace: all its vectors */

static uint32_t P;
static int dims[SMAX + 1][NMAX + 1];

static int vec_index(const uint8_t *v, int k) { int x = 0; for (int i = 0; i < k; i++) x = x * (int)P + v[i]; return x; }
static int set_has(const set *s, const uint8_t *v, int k)
{
    for (int i = 0; i < s->n; i++) if (!memcmp(s->v[i], v, (size_t)k)) return 1;
    return 0;
}
/* The span of s and v (closure under addition and scaling, by brute force). */
static void set_widen(set *s, const uint8_t *v, int k)
{
    if (set_has(s, v, k)) return;
    set old = *s;
    for (int i = 0; i < old.n; i++)
        for (uint32_t c = 1; c < P; c++) {
            uint8_t w[KMAX];
            for (int j = 0; j < k; j++) w[j] = (uint8_t)((old.v[i][j] + c * v[j]) % P);
            if (!set_has(s, w, k)) memcpy(s->v[s->n++], w, (size_t)k);
        }
}
static int set_dim(const set *s) { int d = 0, n = 1; while (n < s->n) { n *= (int)P; d++; } return d; }
static void set_zero(set *s, int k) { s->n = 1; memset(s->v[0], 0, (size_t)k); }

static set Z[SMAX + 3][SMAX + 1][NMAX + 1], B[SMAX + 3][SMAX + 1][NMAX + 1];
/* d_r at (n, s) on page r: images of every vector of F_p^k (valid on Z_r). */
static uint8_t D[SMAX + 1][NMAX + 1][VMAX][KMAX];

static int in_grid(int n, int s) { return n >= 0 && n <= NMAX && s >= 0 && s <= SMAX; }

/* A random sequence with the model fed page by page; pages[r][s][n] its brute-force dims. */
static int brute_dims[SMAX + 3][SMAX + 1][NMAX + 1];
static int nonzero_facts[4096], nnonzero;

static void build_random(ss_model *m, unsigned seed)
{
    srand(seed);
    for (int s = 0; s <= SMAX; s++)
        for (int n = 0; n <= NMAX; n++) {
            dims[s][n] = rand() % (KMAX + 1);
            m->dim[ss_cell_index(m, n, s)] = dims[s][n];
            int k = dims[s][n];
            set_zero(&Z[2][s][n], k);
            for (int i = 0; i < k; i++) {
                uint8_t e[KMAX] = { 0 };
                e[i] = 1;
                set_widen(&Z[2][s][n], e, k);
            }
            set_zero(&B[2][s][n], k);
        }
    nnonzero = 0;
    for (int r = 2; r <= m->rmax; r++) {
        int role[SMAX + 1][NMAX + 1];           /* 1 source, 2 target, 0 neither, on this page */
        for (int s = 0; s <= SMAX; s++) for (int n = 0; n <= NMAX; n++) role[s][n] = 0;
        for (int s = 0; s <= SMAX; s++)
            for (int n = 0; n <= NMAX; n++)
                if (in_grid(n - 1, s + r) && !role[s][n] && !role[s + r][n - 1] && rand() % 2) {
                    role[s][n] = 1;
                    role[s + r][n - 1] = 2;
                }
        for (int s = 0; s <= SMAX; s++)
            for (int n = 0; n <= NMAX; n++) {
                int k = dims[s][n], kt = in_grid(n - 1, s + r) ? dims[s + r][n - 1] : 0;
                memset(D[s][n], 0, sizeof D[s][n]);
                if (role[s][n] != 1 || !kt) continue;
                /* a complement of B_r in Z_r, each vector sent to a random class of Z_r(target) */
                set span = B[r][s][n];
                int said = rand() % 4 != 0;     /* leave a quarter of the d_r unsaid (taken as zero) */
                for (int i = 0; i < Z[r][s][n].n; i++) {
                    const uint8_t *c = Z[r][s][n].v[i];
                    if (set_has(&span, c, k)) continue;
                    const set *zt = &Z[r][s + r][n - 1];
                    const uint8_t *y = said ? zt->v[rand() % zt->n] : zt->v[0];
                    /* extend d linearly: every vector of span + c·F_p gets its image */
                    set before = span;
                    set_widen(&span, c, k);
                    for (int a = 0; a < before.n; a++)
                        for (uint32_t q = 1; q < P; q++) {
                            uint8_t w[KMAX], img[KMAX];
                            for (int j = 0; j < k; j++) w[j] = (uint8_t)((before.v[a][j] + q * c[j]) % P);
                            const uint8_t *da = D[s][n][vec_index(before.v[a], k)];
                            for (int j = 0; j < kt; j++) img[j] = (uint8_t)((da[j] + q * y[j]) % P);
                            memcpy(D[s][n][vec_index(w, k)], img, (size_t)kt);
                        }
                    if (said) {
                        ss_fact f = { SS_DIFF, SS_GIVEN, r, n, s, (uint8_t *)c, (uint8_t *)y, 1, -1, -1 };
                        int id = ss_add_fact(m, &f);
                        int nz = 0;
                        for (int j = 0; j < kt; j++) nz |= y[j];
                        if (id >= 0 && nz && !set_has(&B[r][s + r][n - 1], y, kt) && nnonzero < 4096) nonzero_facts[nnonzero++] = id;
                    }
                }
            }
        /* page r + 1 by brute force */
        for (int s = 0; s <= SMAX; s++)
            for (int n = 0; n <= NMAX; n++) {
                int k = dims[s][n];
                brute_dims[r][s][n] = set_dim(&Z[r][s][n]) - set_dim(&B[r][s][n]);
                if (r == m->rmax) continue;
                set_zero(&Z[r + 1][s][n], k);
                B[r + 1][s][n] = B[r][s][n];
            }
        if (r == m->rmax) break;
        for (int s = 0; s <= SMAX; s++)
            for (int n = 0; n <= NMAX; n++) {
                int k = dims[s][n], tin = in_grid(n - 1, s + r), kt = tin ? dims[s + r][n - 1] : 0;
                for (int i = 0; i < Z[r][s][n].n; i++) {
                    const uint8_t *x = Z[r][s][n].v[i], *y = D[s][n][vec_index(x, k)];
                    if (!tin || !kt || set_has(&B[r][s + r][n - 1], y, kt)) set_widen(&Z[r + 1][s][n], x, k);
                    if (tin && kt) set_widen(&B[r + 1][s + r][n - 1], y, kt);
                }
            }
    }
}

static void test_random(uint32_t p, unsigned seed)
{
    P = p;
    ss_model m;
    ss_init(&m, p, 0, NMAX, SMAX);
    build_random(&m, seed);
    int rc = ss_compute(&m, 0), bad = 0;
    ok(rc == 0, "p=%u seed %u: %d facts of a random spectral sequence are consistent%s%s", p, seed, m.nfacts,
       rc ? ": " : "", rc ? m.err : "");
    for (int r = 2; r <= m.rmax && !rc; r++)
        for (int s = 0; s <= SMAX; s++)
            for (int n = 0; n <= NMAX; n++)
                if (ss_page_dim(&m, r, n, s) != brute_dims[r][s][n]) {
                    if (bad++ < 3) diag("E_%d(%d,%d): model %d, brute force %d", r, n, s, ss_page_dim(&m, r, n, s),
                                        brute_dims[r][s][n]);
                }
    ok(!rc && !bad, "p=%u seed %u: every page's dimensions equal the brute force's (%d differ)", p, seed, bad);
    /* contradictions: each kind added to the consistent facts is refused, naming the new fact */
    int base = m.nfacts, tried = 0, refused = 0;
    for (int q = 0; q < nnonzero && tried < 12; q++) {
        ss_fact f = m.facts[nonzero_facts[q]];
        int k = dims[f.s][f.n], kt = dims[f.s + f.r][f.n - 1];
        uint8_t y2[KMAX];
        for (int kind = 0; kind < 3; kind++) {
            ss_fact g = f;
            g.origin = SS_GIVEN;
            g.line = 99;
            if (kind == 0) {                /* a second value: the target doubled (p = 3) or dropped */
                for (int j = 0; j < kt; j++) y2[j] = (uint8_t)(p == 2 ? 0 : (2 * f.y[j]) % p);
                g.y = y2;
            } else if (kind == 1) {         /* a permanent class that supports d_r */
                g.kind = SS_PERM;
                g.y = NULL;
            } else {                        /* a longer differential on a class that died */
                if (f.s + f.r + 1 > SMAX || dims[f.s + f.r + 1][f.n - 1] == 0) continue;
                g.r = f.r + 1;
                memset(y2, 0, sizeof y2);
                y2[0] = 1;
                g.y = y2;
            }
            (void)k;
            tried++;
            int id = ss_add_fact(&m, &g);
            int r2 = id >= 0 ? ss_compute(&m, 0) : -9;
            if (r2 == 1 && (m.conflict[0] == id || m.conflict[1] == id)) refused++;
            else diag("kind %d on fact %d not refused (rc %d): %s", kind, nonzero_facts[q], r2, m.err);
            ss_truncate(&m, base);
        }
    }
    ok(tried > 0 && refused == tried, "p=%u seed %u: %d of %d contradictions refused, naming the new fact", p, seed,
       refused, tried);
    ss_clear(&m);
}

/* A grid with one class at each of the given bidegrees. */
static void grid_ones(ss_model *m, const int (*cells)[2], int n)
{
    ss_init(m, 2, 0, 8, 8);
    for (int i = 0; i < n; i++) m->dim[ss_cell_index(m, cells[i][0], cells[i][1])] = 1;
}

static void test_leibniz(void)
{
    /* m at (1,1) permanent; x (3,1) -> y (2,3); m·x = X (4,2), m·y = Y (3,4) */
    static const int cells[][2] = { { 1, 1 }, { 3, 1 }, { 2, 3 }, { 4, 2 }, { 3, 4 }, { 0, 0 } };
    ss_model m;
    grid_ones(&m, cells, 6);
    uint8_t one = 1, zero = 0;
    int t = ss_add_product(&m, "m", 1, 1, &one, 1, 0);
    ss_product_row(&m, t, 3, 1, 0, &one);
    ss_product_row(&m, t, 2, 3, 0, &one);
    ss_product_row(&m, t, 0, 0, 0, &one);
    ss_product_close(&m, t);
    ss_fact f = { SS_DIFF, SS_GIVEN, 2, 3, 1, &one, &one, 1, -1, -1 };
    ss_add_fact(&m, &f);
    ss_fact perm = { SS_PERM, SS_GIVEN, 0, 0, 0, &one, NULL, 2, -1, -1 };
    ss_add_fact(&m, &perm);
    int rc = ss_compute(&m, 1), found = 0, fperm = 0;
    for (int id = 0; id < m.nfacts; id++) {
        const ss_fact *g = &m.facts[id];
        if (g->origin == SS_PROPAGATED && g->kind == SS_DIFF && g->n == 4 && g->s == 2 && g->y[0] == 1 && g->via == t &&
            g->parent == 0) found = 1;
        if (g->origin == SS_PROPAGATED && g->kind == SS_PERM && g->n == 1 && g->s == 1 && g->parent == 1) fperm = 1;
    }
    ok(rc == 0 && found, "Leibniz: d2(x) = y gives d2(m·x) = m·y, recording the fact and the product");
    ok(fperm, "Leibniz: 1 permanent gives m·1 permanent");
    ok(ss_page_dim(&m, 3, 4, 2) == 0 && ss_page_dim(&m, 3, 3, 4) == 0, "E3 at m·x and m·y is zero");
    ss_fact g = { SS_DIFF, SS_GIVEN, 2, 4, 2, &one, &zero, 3, -1, -1 };
    int id = ss_add_fact(&m, &g);
    rc = ss_compute(&m, 1);
    ok(rc == 1 && (m.conflict[0] == id || m.conflict[1] == id) && strstr(m.err, "propagated by m"),
       "d2(m·x) = 0 contradicts the propagated fact, naming it: %s", m.err);
    ss_clear(&m);
}

static void test_dd(void)
{
    static const int cells[][2] = { { 5, 0 }, { 4, 2 }, { 3, 4 } };
    ss_model m;
    grid_ones(&m, cells, 3);
    uint8_t one = 1;
    ss_fact a = { SS_DIFF, SS_GIVEN, 2, 5, 0, &one, &one, 1, -1, -1 };
    ss_fact b = { SS_DIFF, SS_GIVEN, 2, 4, 2, &one, &one, 2, -1, -1 };
    ss_add_fact(&m, &a);
    ss_add_fact(&m, &b);
    int rc = ss_compute(&m, 1);
    ok(rc == 1 && strstr(m.err, "d_r d_r"), "d2 of a d2's target is refused (d_r d_r = 0): %s", m.err);
    ss_truncate(&m, 1);
    ss_fact c = { SS_DIFF, SS_GIVEN, 3, 4, 2, &one, NULL, 2, -1, -1 };
    ok(ss_add_fact(&m, &c) < 0 && strstr(m.err, "(3,5)"), "a differential that leaves the region is refused: %s", m.err);
    ss_fact e = { SS_PERM, SS_GIVEN, 0, 6, 6, &one, NULL, 2, -1, -1 };
    ok(ss_add_fact(&m, &e) < 0, "a class outside the region is refused: %s", m.err);
    ok(ss_compute(&m, 1) == 0 && ss_page_dim(&m, 3, 5, 0) == 0 && ss_page_dim(&m, 3, 4, 2) == 0 &&
       ss_page_dim(&m, 3, 3, 4) == 1, "d2 (5,0) -> (4,2) alone: E3 is the class at (3,4)");
    ss_clear(&m);
}

static void test_history(void)
{
    static const struct { const char *line; const char *want; } bad[] = {
        { "{\"version\":1,\"action\":{\"Frobnicate\":{}}}", "unknown action 'Frobnicate'" },
        { "{\"version\":2,\"action\":{\"Resolve\":{\"max_degree\":3}}}", "version" },
        { "{\"sseq\":\"Unit\",\"action\":{\"Resolve\":{\"max_degree\":3}}}", "Main" },
        { "{\"action\":{\"Resolve\":{\"max_degree\":3,\"x\":1}}}", "unknown key 'x'" },
        { "{\"action\":{\"AddDifferential\":{\"r\":1,\"b\":{\"coords\":[1,1]},\"source\":[1],\"target\":[1]}}}", "'r'" },
        { "{\"action\":{\"AddPermanentClass\":{\"b\":{\"coords\":[1]},\"class\":[1]}}}", "coords" },
        { "{\"action\":{\"AddPermanentClass\":{\"b\":{\"coords\":[1,1]},\"class\":[-1]}}}", "coefficient" },
        { "{\"action\":", "not JSON" },
        { "[1,2]", "object" },
        { "{\"action\":{\"AddProductDifferential\":{\"source\":{\"b\":{\"coords\":[17,4]},\"class\":[1],\"name\":\"e\"},"
          "\"target\":{\"b\":{\"coords\":[17,6]},\"class\":[1],\"name\":\"t\"}}}}", "no d_r" },
    };
    char err[400];
    ss_action a;
    int nbad = (int)(sizeof bad / sizeof *bad), refused = 0;
    for (int i = 0; i < nbad; i++) {
        int rc = ss_history_parse(bad[i].line, 1, &a, err, sizeof err);
        if (rc == -1 && strstr(err, bad[i].want)) refused++;
        else diag("line %d: rc %d, '%s' (wanted '%s')", i, rc, err, bad[i].want);
    }
    ok(refused == nbad, "%d of %d bad history lines refused with their reason", refused, nbad);
    static const char *good[] = {
        "{\"recipients\":[\"Resolver\"],\"sseq\":\"Main\",\"action\":{\"Construct\":{\"algebra_name\":\"milnor\",\"module_name\":\"S_2\"}}}",
        "{\"recipients\":[\"Resolver\"],\"sseq\":\"Main\",\"action\":{\"Resolve\":{\"max_degree\":36}}}",
        "{\"recipients\":[\"Sseq\"],\"action\":{\"AddDifferential\":{\"r\":2,\"b\":{\"coords\":[18,4]},\"source\":[0,1],\"target\":[1]}},\"sseq\":\"Main\"}",
        "{\"version\":1,\"action\":{\"AddPermanentClass\":{\"b\":{\"coords\":[8,3]},\"class\":[1]}}}",
        "{\"action\":{\"AddProductType\":{\"permanent\":true,\"b\":{\"coords\":[9,5]},\"class\":[1],\"name\":\"Ph_1\"}}}",
        "{\"action\":{\"AddProductDifferential\":{\"source\":{\"permanent\":false,\"b\":{\"coords\":[17,4]},\"class\":[1],"
        "\"name\":\"e_0\"},\"target\":{\"permanent\":false,\"b\":{\"coords\":[16,6]},\"class\":[1],\"name\":\"h_1^2 d_0\"}}}}",
    };
    int ngood = (int)(sizeof good / sizeof *good), same = 0;
    for (int i = 0; i < ngood; i++) {
        ss_action b;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        int rc = ss_history_parse(good[i], i + 1, &a, err, sizeof err);
        ss_history_write(f, &a);
        fclose(f);
        int rc2 = ss_history_parse(buf, i + 1, &b, err, sizeof err);
        if (!rc && !rc2 && strstr(buf, "\"version\":1") && !memcmp(&a, &b, sizeof a)) same++;
        else diag("line %d: rc %d/%d %s -> %s", i, rc, rc2, err, buf);
        free(buf);
    }
    ok(same == ngood, "%d of %d actions of both spellings read, written as version 1 and read back the same", same, ngood);
    ok(ss_history_parse(" \n", 1, &a, err, sizeof err) == 1, "a blank line is skipped");
}

int main(void)
{
    plan_lazy();
    const char *env = getenv("SEED");
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : 20261207u;
    diag("SEED=%u", seed);
    for (unsigned k = 0; k < 4; k++) {
        test_random(2, seed + k);
        test_random(3, seed + 100 + k);
    }
    test_leibniz();
    test_dd();
    test_history();
    done_testing();
}
