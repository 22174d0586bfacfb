/* t-f2mat.c — f2mat RREF / kernel / quasi-inverse against an independent byte-per-entry
 * Gauss-Jordan written here. SEED=n in the environment reproduces a run. */
#include "algebra/f2mat.h"
#include "algebra/memacct.h"
#include "tests/tap.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;
/* splitmix64: xorshift alone is F2-linear, which caps the rank of the matrices it makes */
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
/* 1 with probability num/1024 */
static int coin(unsigned num) { return (rnd() >> 54) < num; }

/* ---- reference: unpacked bytes ---- */
typedef struct { uint32_t r, c; uint8_t *e; } bmat;
static bmat bm_new(uint32_t r, uint32_t c)
{
    bmat b = { r, c, calloc((size_t)r * c + 1, 1) };
    if (!b.e) bail("oom");
    return b;
}
#define BM(b, i, j) ((b).e[(size_t)(i) * (b).c + (j)])
static bmat bm_from(const f2mat *m)
{
    bmat b = bm_new(m->rows, m->cols);
    for (uint32_t i = 0; i < m->rows; i++)
        for (uint32_t j = 0; j < m->cols; j++) BM(b, i, j) = (uint8_t)f2mat_get(m, i, j);
    return b;
}
/* Textbook Gauss-Jordan by column; returns rank, piv[c] = row or -1. */
static int bm_rref(bmat b, int32_t *piv)
{
    uint32_t rank = 0;
    for (uint32_t c = 0; c < b.c; c++) {
        piv[c] = -1;
        uint32_t p = rank;
        while (p < b.r && !BM(b, p, c)) p++;
        if (p == b.r) continue;
        for (uint32_t j = 0; j < b.c; j++) {
            uint8_t t = BM(b, p, j); BM(b, p, j) = BM(b, rank, j); BM(b, rank, j) = t;
        }
        for (uint32_t i = 0; i < b.r; i++)
            if (i != rank && BM(b, i, c))
                for (uint32_t j = 0; j < b.c; j++) BM(b, i, j) ^= BM(b, rank, j);
        piv[c] = (int32_t)rank++;
    }
    return (int)rank;
}
static int same_as(const f2mat *m, bmat b)
{
    if (m->rows != b.r || m->cols != b.c) return 0;
    for (uint32_t i = 0; i < b.r; i++) {
        for (uint32_t j = 0; j < b.c; j++)
            if (f2mat_get(m, i, j) != BM(b, i, j)) return 0;
        /* excess bits stay zero */
        const uint64_t *row = f2mat_row(m, i);
        for (uint32_t w = 0; w < m->stride; w++) {
            uint64_t allowed = w < b.c / 64 ? ~0ULL
                             : w == b.c / 64 ? ((1ULL << (b.c % 64)) - 1) : 0;
            if (row[w] & ~allowed) return 0;
        }
    }
    return 1;
}

/* ---- random matrices ---- */
static void must(int rc) { if (rc) bail("f2mat_init failed"); }
static void fill_random(f2mat *m, unsigned dens)
{
    for (uint32_t i = 0; i < m->rows; i++)
        for (uint32_t j = 0; j < m->cols; j++)
            if (coin(dens)) f2mat_flip(m, i, j);
}
/* y (cols bits) ^= x · A */
static void vec_mul(const f2mat *a, const uint64_t *x, uint64_t *y)
{
    for (uint32_t i = 0; i < a->rows; i++)
        if (x[i >> 6] >> (i & 63) & 1) f2vec_xor(y, f2mat_row(a, i), f2vec_words(a->cols));
}
/* rows x cols of rank <= k: (rows x k)(k x cols) */
static void fill_product(f2mat *m, uint32_t k, unsigned dens)
{
    f2mat l, r;
    must(f2mat_init(&l, m->rows, k));
    must(f2mat_init(&r, k, m->cols));
    fill_random(&l, 512);
    fill_random(&r, dens);
    for (uint32_t i = 0; i < m->rows; i++) vec_mul(&r, f2mat_row(&l, i), f2mat_row(m, i));
    f2mat_clear(&l);
    f2mat_clear(&r);
}

static const char *method_name[] = { "auto", "naive", "m4ri", "pluq", "echelonize", "own" };

/* RREF by every method vs the reference; kernel and quasi-inverse of A. */
static void check_matrix(const f2mat *a, const char *what)
{
    bmat ref = bm_from(a);
    int32_t *rpiv = malloc(((size_t)a->cols + 1) * sizeof *rpiv);
    int32_t *piv = malloc(((size_t)a->cols + 1) * sizeof *piv);
    int rank = bm_rref(ref, rpiv);
    int good = 1;
    for (int meth = F2_RREF_AUTO; meth <= F2_RREF_OWN; meth++) {
        f2mat m;
        must(f2mat_copy(&m, a));
        memset(piv, 0x55, ((size_t)a->cols + 1) * sizeof *piv);
        int r = f2mat_rref_with(&m, piv, (enum f2_rref_method)meth);
        int ok_ = r == rank && same_as(&m, ref) && !memcmp(piv, rpiv, a->cols * sizeof *piv);
        if (!ok_) diag("%s: method %s rank %d vs %d", what, method_name[meth], r, rank);
        good &= ok_;
        f2mat_clear(&m);
    }

    /* kernel and quasi-inverse from [A | 0 | I] (f2mat_rref_augmented) */
    f2mat aug, ker;
    f2qi qi;
    uint32_t seg = f2mat_segment_start(a->cols);
    int32_t *apiv;
    int arank = f2mat_rref_augmented(a, &aug, &apiv);
    if (arank != (int)a->rows) { diag("%s: aug rank %d", what, arank); good = 0; }
    must(f2mat_kernel_from_rref(&aug, a->cols, (uint32_t)arank, apiv, &ker));
    must(f2mat_quasi_inverse_from_rref(&aug, a->cols, (uint32_t)arank, apiv, &qi));
    if (ker.rows != a->rows - (uint32_t)rank || ker.cols != a->rows) {
        diag("%s: kernel %ux%u, want nullity %u", what, ker.rows, ker.cols, a->rows - rank);
        good = 0;
    }
    size_t tw = f2vec_words(a->cols), sw = f2vec_words(a->rows);
    uint64_t *y = calloc(tw + 1, 8), *y2 = calloc(tw + 1, 8), *x = calloc(sw + 1, 8);
    for (uint32_t i = 0; i < ker.rows && good; i++) {
        memset(y, 0, (tw + 1) * 8);
        vec_mul(a, f2mat_row(&ker, i), y);
        if (!f2vec_is_zero(y, tw)) { diag("%s: kernel row %u not in kernel", what, i); good = 0; }
    }
    bmat kb = bm_from(&ker);
    int32_t *kpiv = malloc(((size_t)ker.cols + 1) * sizeof *kpiv);
    if (bm_rref(kb, kpiv) != (int)ker.rows) { diag("%s: kernel rows dependent", what); good = 0; }
    if (good && !same_as(&ker, kb)) { diag("%s: kernel not in RREF", what); good = 0; }
    if (qi.src_dim != a->rows || qi.tgt_dim != a->cols || qi.preimage.rows != (uint32_t)rank) {
        diag("%s: qi dims", what);
        good = 0;
    }
    for (int t = 0; t < 8 && good; t++) {
        memset(x, 0, (sw + 1) * 8);
        memset(y, 0, (tw + 1) * 8);
        for (uint32_t i = 0; i < a->rows; i++)
            if (coin(t & 1 ? 512 : 40)) x[i >> 6] |= 1ULL << (i & 63);
        vec_mul(a, x, y);
        memset(x, 0, (sw + 1) * 8);
        f2qi_apply(&qi, y, x);
        memset(y2, 0, (tw + 1) * 8);
        vec_mul(a, x, y2);
        if (memcmp(y, y2, tw * 8)) { diag("%s: QI(y)·A != y", what); good = 0; }
        /* the gathered form: y's bits scattered to odd positions of a larger vector whose
         * even positions are noise; the same x must come back */
        uint64_t *big = calloc(2 * tw + 2, 8), *xg = calloc(sw + 1, 8);
        uint32_t *map = malloc(((size_t)a->cols + 1) * sizeof *map);
        if (!big || !xg || !map) bail("oom");
        for (uint32_t c = 0; c < 2 * a->cols + 1; c++) if (coin(512)) f2vec_flip(big, c);
        for (uint32_t c = 0; c < a->cols; c++) {
            map[c] = 2 * c + 1;
            if (f2vec_get(big, map[c]) != f2vec_get(y, c)) f2vec_flip(big, map[c]);
        }
        f2qi_apply_gather(&qi, big, map, xg);
        if (memcmp(x, xg, sw * 8)) { diag("%s: f2qi_apply_gather != f2qi_apply", what); good = 0; }
        free(big); free(xg); free(map);
    }
    ok(good, "%s rank %d (seg %u)", what, rank, seg);
    free(ref.e); free(kb.e); free(rpiv); free(piv); free(apiv); free(kpiv);
    free(x); free(y); free(y2);
    f2mat_clear(&aug); f2mat_clear(&ker); f2qi_clear(&qi);
}

/* [D | 0 | I] of an N x m matrix D of density dens/1024, optionally with some rows made
 * sums of others (rank-deficient D). */
static void make_resolution_like(f2mat *aug, uint32_t n, uint32_t mcols, unsigned dens, int deficient)
{
    f2mat d;
    must(f2mat_init(&d, n, mcols));
    fill_random(&d, dens);
    if (deficient)
        for (uint32_t i = 0; i < n; i += 3) {   /* every third row a sum of two others */
            memset(f2mat_row(&d, i), 0, d.stride * sizeof(uint64_t));
            f2vec_xor(f2mat_row(&d, i), f2mat_row(&d, (i + 1) % n), d.stride);
            f2vec_xor(f2mat_row(&d, i), f2mat_row(&d, (i + 7) % n), d.stride);
        }
    must(f2mat_augment_identity(aug, &d));
    f2mat_clear(&d);
}

/* RREF of a (by `method` and by the packed naive routine) vs the byte reference. */
static int rref_matches_reference(const f2mat *a, enum f2_rref_method method, const char *what)
{
    bmat ref = bm_from(a);
    int32_t *rpiv = malloc(((size_t)a->cols + 1) * sizeof *rpiv);
    int32_t *piv = malloc(((size_t)a->cols + 1) * sizeof *piv);
    if (!ref.e || !rpiv || !piv) bail("oom");
    int rank = bm_rref(ref, rpiv);
    f2mat m;
    must(f2mat_copy(&m, a));
    int r = f2mat_rref_with(&m, piv, method);
    int good = r == rank && same_as(&m, ref) && !memcmp(piv, rpiv, a->cols * sizeof *piv);
    if (!good) diag("%s: method %s rank %d vs %d", what, method_name[method], r, rank);
    f2mat_clear(&m);
    free(ref.e); free(rpiv); free(piv);
    return good;
}

/* Threads reducing different matrices at once through f2mat_rref (AUTO) and the own
 * routine, each checked against f2mat_rref_naive on a copy (computed in the thread too). */
typedef struct { uint64_t seed; int iters; int good; } thr_arg;
static void *thr_main(void *p)
{
    thr_arg *a = p;
    uint64_t s = a->seed;
    a->good = 1;
    for (int it = 0; it < a->iters; it++) {
        /* local splitmix64: the test's rng is not thread-safe */
        uint64_t z;
#define TRND() (z = (s += 0x9E3779B97F4A7C15ULL), z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL, \
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL, z ^ (z >> 31))
        uint32_t n = 200 + (uint32_t)(TRND() % 500), mc = 100 + (uint32_t)(TRND() % 700);
        f2mat d, aug, ref;
        if (f2mat_init(&d, n, mc)) { a->good = 0; break; }
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j < mc; j++)
                if ((TRND() >> 54) < 200) f2mat_flip(&d, i, j);
        if (it & 1)   /* rank-deficient */
            for (uint32_t i = 0; i + 1 < n; i += 4)
                memcpy(f2mat_row(&d, i), f2mat_row(&d, i + 1), d.stride * sizeof(uint64_t));
#undef TRND
        if (f2mat_augment_identity(&aug, &d) || f2mat_copy(&ref, &aug)) { a->good = 0; break; }
        int32_t *p1 = malloc(aug.cols * sizeof *p1), *p2 = malloc(aug.cols * sizeof *p2);
        int r1 = it % 3 == 2 ? f2mat_rref_m4rm(&aug, p1) : f2mat_rref(&aug, p1);
        int r2 = f2mat_rref_naive(&ref, p2);
        if (r1 != r2 || !f2mat_equal(&aug, &ref) || memcmp(p1, p2, aug.cols * sizeof *p1)) a->good = 0;
        free(p1); free(p2);
        f2mat_clear(&d); f2mat_clear(&aug); f2mat_clear(&ref);
    }
    return NULL;
}

int main(void)
{
    const char *s = getenv("SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
    diag("SEED=%llu", (unsigned long long)seed);
    rng_state = seed;
    plan_lazy();

    /* basics */
    {
        f2mat z, c;
        int good = !f2mat_init(&z, 0, 0) && z.data && z.stride == 0;
        good &= !f2mat_init(&c, 3, 0) && c.stride == 0;
        f2mat_clear(&c);
        good &= !f2mat_init(&c, 2, 65) && c.stride == 8 && ((uintptr_t)c.data & 63) == 0;
        f2mat_set(&c, 1, 64, 1);
        f2mat_set(&c, 1, 3, 1);
        f2mat_set(&c, 1, 3, 1);
        good &= f2mat_popcount_row(&c, 1) == 2 && f2mat_popcount_row(&c, 0) == 0;
        good &= f2vec_is_zero(f2mat_row(&c, 0), 2) && !f2vec_is_zero(f2mat_row(&c, 1), 2);
        f2mat d;
        good &= !f2mat_copy(&d, &c) && f2mat_equal(&c, &d);
        f2mat_flip(&d, 0, 0);
        good &= !f2mat_equal(&c, &d) && !f2mat_equal(&c, &z);
        f2mat_clear(&d);
        good &= !f2mat_init(&d, 1000, 513) && d.stride == 16;
        f2mat_clear(&c); f2mat_clear(&d); f2mat_clear(&z);
        f2mat_clear(&z);   /* idempotent */
        ok(good, "init/copy/equal/popcount/is_zero basics");
    }

    static const uint32_t sz[] = { 0, 1, 63, 64, 65, 127, 128, 129 };
    const int nsz = (int)(sizeof sz / sizeof sz[0]);
    char what[96];
    for (int i = 0; i < nsz; i++)
        for (int j = 0; j < nsz; j++) {
            uint32_t r = sz[i], c = sz[j];
            f2mat a;
            unsigned dens = (unsigned[]){ 512, 60, 8 }[(i + j) % 3];
            for (int d = 0; d < 3; d++) {
                unsigned dd = (unsigned[]){ 512, 60, 8 }[d];
                must(f2mat_init(&a, r, c));
                fill_random(&a, dd);
                snprintf(what, sizeof what, "random %ux%u dens %u/1024", r, c, dd);
                check_matrix(&a, what);
                f2mat_clear(&a);
            }

            uint32_t mn = r < c ? r : c;
            uint32_t k = mn ? (uint32_t)(rnd() % mn) : 0;
            must(f2mat_init(&a, r, c));
            fill_product(&a, k, dens);
            snprintf(what, sizeof what, "product %ux%u inner %u", r, c, k);
            check_matrix(&a, what);
            f2mat_clear(&a);
        }

    /* larger / flat shapes, incl. one with structured zero columns */
    static const uint32_t big[][3] = { { 300, 517, 512 }, { 517, 300, 100 }, { 40, 5000, 512 },
                                       { 130, 3000, 30 }, { 200, 200, 0 } };
    for (size_t t = 0; t < sizeof big / sizeof big[0]; t++) {
        f2mat a;
        must(f2mat_init(&a, big[t][0], big[t][1]));
        if (big[t][2]) fill_random(&a, big[t][2]);
        else fill_product(&a, 150, 512);
        for (uint32_t i = 0; i < a.rows; i++)   /* zero a band of columns */
            for (uint32_t cc = 64; cc < 160 && cc < a.cols; cc++) f2mat_set(&a, i, cc, 0);
        snprintf(what, sizeof what, "large %ux%u", a.rows, a.cols);
        check_matrix(&a, what);
        f2mat_clear(&a);
    }
    /* the own M4RM routine on larger, resolution-like shapes (bit for bit vs the reference) */
    {
        static const uint32_t res[][4] = { { 700, 1500, 200, 1 }, { 700, 400, 300, 0 },
                                           { 513, 700, 100, 1 }, { 1000, 800, 250, 1 } };
        for (size_t t = 0; t < sizeof res / sizeof res[0]; t++) {
            f2mat a;
            make_resolution_like(&a, res[t][0], res[t][1], res[t][2], (int)res[t][3]);
            snprintf(what, sizeof what, "[D|0|I] D %ux%u dens %u/1024%s", res[t][0], res[t][1],
                     res[t][2], res[t][3] ? " rank-deficient" : "");
            int good = rref_matches_reference(&a, F2_RREF_OWN, what);
            good &= rref_matches_reference(&a, F2_RREF_AUTO, what);
            ok(good, "own/auto RREF of %s", what);
            f2mat_clear(&a);
        }
        /* every parameter choice gives the canonical RREF */
        f2mat a, ref;
        make_resolution_like(&a, 300, 450, 300, 1);
        must(f2mat_copy(&ref, &a));
        int32_t *rp = malloc(a.cols * sizeof *rp), *pp = malloc(a.cols * sizeof *pp);
        int rr = f2mat_rref_naive(&ref, rp), good = 1;
        for (int k = 1; k <= 8; k++)
            for (int g = 1; g <= 8; g += (g < 2 ? 1 : 3))
                for (int tile = 4; tile <= 64; tile *= 4) {
                    f2mat m;
                    must(f2mat_copy(&m, &a));
                    int r = f2mat_rref_m4rm_tuned(&m, pp, k, g, tile, tile == 4 ? 7 : 0);
                    if (r != rr || !f2mat_equal(&m, &ref) || memcmp(pp, rp, a.cols * sizeof *pp)) {
                        diag("m4rm k=%d groups=%d tile=%d differs", k, g, tile);
                        good = 0;
                    }
                    f2mat_clear(&m);
                }
        ok(good, "own M4RM: all k / groups / tile parameters agree with naive");
        free(rp); free(pp);
        f2mat_clear(&a); f2mat_clear(&ref);
    }

    /* column gather (PEXT path) against the bit-by-bit reference: increasing selections of
     * every density, limits inside and outside words, source rows of exactly the words below
     * limit (so a read past them shows under SAN=1) with bits set beyond limit, and
     * non-increasing selections (the fallback) */
    {
        int good = 1, cases = 0;
        static const uint32_t widths[] = { 1, 63, 64, 65, 127, 128, 200, 1000, 4097 };
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
            for (int trial = 0; trial < 12; trial++) {
                uint32_t width = widths[wi];
                uint32_t limit = trial % 4 == 0 ? width : (uint32_t)(rnd() % (width + 1));
                unsigned dens = (unsigned[]){ 1024, 512, 60, 4 }[trial % 4];
                uint32_t *cols = malloc(sizeof *cols * (width + 1)), ncols = 0;
                for (uint32_t c = 0; c < width; c++)
                    if (coin(dens)) cols[ncols++] = c;
                int shuffle = trial % 6 == 5 && ncols > 1;
                if (shuffle) {          /* a non-increasing selection */
                    uint32_t a = (uint32_t)(rnd() % ncols), b = (uint32_t)(rnd() % ncols);
                    uint32_t tmp = cols[a]; cols[a] = cols[b]; cols[b] = tmp;
                }
                uint32_t nrows = (uint32_t)(rnd() % 40);
                size_t words = f2vec_words(width), keep = f2vec_words(limit);
                uint64_t **rows = malloc(sizeof *rows * (nrows + 1));
                for (uint32_t k = 0; k < nrows; k++) {
                    /* only the words a gather may read are allocated when limit < width */
                    size_t have = limit < width ? (keep ? keep : 1) : words;
                    rows[k] = malloc(8 * have);
                    for (size_t w = 0; w < have; w++) rows[k][w] = rnd() & (trial & 1 ? rnd() : ~0ULL);
                }
                f2mat a, b;
                must(f2mat_init(&a, nrows, ncols));
                must(f2mat_init(&b, nrows, ncols));
                good &= f2mat_gather(&a, (const uint64_t *const *)rows, nrows, cols, ncols, limit) == 0;
                f2mat_gather_naive(&b, (const uint64_t *const *)rows, nrows, cols, ncols, limit);
                if (!f2mat_equal(&a, &b)) {
                    diag("gather differs: width %u limit %u ncols %u rows %u%s", width, limit, ncols, nrows,
                         shuffle ? " (non-increasing)" : "");
                    good = 0;
                }
                /* and the reference itself, bit by bit */
                for (uint32_t k = 0; k < nrows; k++)
                    for (uint32_t j = 0; j < ncols; j++)
                        good &= f2mat_get(&b, k, j) == (cols[j] < limit && f2vec_get(rows[k], cols[j]));
                cases++;
                f2mat_clear(&a); f2mat_clear(&b);
                for (uint32_t k = 0; k < nrows; k++) free(rows[k]);
                free(rows); free(cols);
            }
        ok(good, "column gather equals the bit-by-bit reference on %d selections", cases);
    }

    /* concurrency: 4 threads reducing different matrices at once */
    {
        enum { NT = 4 };
        pthread_t th[NT];
        thr_arg args[NT];
        int good = 1;
        for (int t = 0; t < NT; t++) {
            args[t] = (thr_arg){ .seed = rnd(), .iters = 6, .good = 0 };
            if (pthread_create(&th[t], NULL, thr_main, &args[t])) bail("pthread_create");
        }
        for (int t = 0; t < NT; t++) {
            pthread_join(th[t], NULL);
            good &= args[t].good;
        }
        ok(good, "%d threads x %d concurrent f2mat_rref / own M4RM reductions match naive", NT, 6);
    }
    /* f2mat_rref_extend: an RREF'd top and new rows below give f2mat_rref's result */
    {
        static const uint32_t shapes[][3] = { { 1, 1, 0 }, { 40, 70, 37 }, { 130, 200, 127 }, { 300, 129, 297 },
                                              { 200, 700, 150 }, { 64, 64, 0 }, { 90, 300, 90 }, { 500, 1100, 493 } };
        int good = 1;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int d = 0; d < 3; d++) {
                uint32_t r = shapes[k][0], c = shapes[k][1], r0 = shapes[k][2];
                f2mat a, ref, m;
                must(f2mat_init(&a, r, c));
                fill_random(&a, (unsigned[]){ 512, 30, 4 }[d]);
                if (d == 2 && r > 4) /* new rows in the old span, and repeated */
                    for (uint32_t i = r0; i < r; i++) memcpy(f2mat_row(&a, i), f2mat_row(&a, (i - r0) % (r0 ? r0 : 1)), a.stride * 8);
                must(f2mat_copy(&ref, &a));
                must(f2mat_copy(&m, &a));
                int32_t *p1 = malloc(sizeof *p1 * (c + 1)), *p2 = malloc(sizeof *p2 * (c + 1));
                int rank = f2mat_rref(&ref, p1);
                f2mat top = { r0, c, m.stride, m.data };
                int rank0 = f2mat_rref(&top, NULL);
                int rank2 = f2mat_rref_extend(&m, (uint32_t)rank0, p2);
                int same = rank == rank2 && f2mat_equal(&ref, &m) && !memcmp(p1, p2, sizeof *p1 * c);
                if (!same) diag("extend %ux%u top %u dens %d: rank %d against %d", r, c, r0, d, rank2, rank);
                good &= same;
                free(p1);
                free(p2);
                f2mat_clear(&a);
                f2mat_clear(&ref);
                f2mat_clear(&m);
            }
        ok(good, "f2mat_rref_extend equals f2mat_rref on 24 matrices (new rows random, in the old span, repeated)");
    }

    /* f2mat_widen: rows kept or added, a column block moved right, the rest zero, against the
     * entries expected; 64-byte aligned after; the memory account follows f2mat_bytes */
    {
        /* rows, cols, new rows, new cols, from, to (the last ones past glibc's mmap threshold) */
        static const uint32_t shapes[][6] = {
            { 5, 70, 9, 200, 64, 128 }, { 40, 100, 40, 100, 100, 100 }, { 40, 100, 60, 333, 100, 100 },
            { 40, 130, 12, 400, 128, 256 }, { 0, 64, 3, 128, 64, 64 }, { 7, 1, 0, 65, 1, 1 },
            { 3, 192, 5, 256, 0, 64 }, { 2000, 2100, 2100, 2300, 2048, 2112 }, { 3000, 1000, 1200, 5000, 1000, 1000 },
        };
        int good = 1;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            const uint32_t *sh = shapes[k];
            f2mat m;
            must(f2mat_init(&m, sh[0], sh[1]));
            fill_random(&m, 300);
            bmat before = bm_from(&m), want = bm_new(sh[2], sh[3]);
            for (uint32_t i = 0; i < sh[0] && i < sh[2]; i++)
                for (uint32_t j = 0; j < sh[1]; j++) BM(want, i, j < sh[4] ? j : j - sh[4] + sh[5]) = BM(before, i, j);
            int64_t acct = memacct_current(MEM_INFLIGHT) - (int64_t)f2mat_bytes(&m);
            int rc = f2mat_widen(&m, sh[2], sh[3], sh[4], sh[5]);
            int same = rc == 0 && same_as(&m, want) && (uintptr_t)m.data % 64 == 0 &&
                       memacct_current(MEM_INFLIGHT) - (int64_t)f2mat_bytes(&m) == acct;
            if (!same) diag("widen %ux%u to %ux%u, %u -> %u: rc %d", sh[0], sh[1], sh[2], sh[3], sh[4], sh[5], rc);
            good &= same;
            f2mat_clear(&m);
            free(before.e);
            free(want.e);
        }
        f2mat m;
        must(f2mat_init(&m, 4, 130));
        good &= f2mat_widen(&m, 4, 129, 129, 129) == -1 && f2mat_widen(&m, 4, 300, 100, 164) == -1 &&
                f2mat_widen(&m, 4, 200, 64, 192) == -1 && m.cols == 130;   /* narrower, unaligned, no room */
        f2mat_clear(&m);
        ok(good, "f2mat_widen keeps, moves and zeroes the entries of 9 shapes, and refuses 3 bad ones");
    }
    /* f2mat_augment_in_place: the matrix f2mat_augment_identity makes, in the same block's place */
    {
        static const uint32_t shapes[][2] = { { 0, 10 }, { 1, 1 }, { 70, 64 }, { 130, 65 }, { 3000, 700 } };
        int good = 1;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            f2mat a, ref;
            must(f2mat_init(&a, shapes[k][0], shapes[k][1]));
            fill_random(&a, 500);
            must(f2mat_augment_identity(&ref, &a));
            good &= f2mat_augment_in_place(&a) == 0 && f2mat_equal(&a, &ref) && a.stride == ref.stride;
            f2mat_clear(&a);
            f2mat_clear(&ref);
        }
        ok(good, "f2mat_augment_in_place equals f2mat_augment_identity on 5 shapes");
    }

    /* f2mat_transpose_into: bit (r, c) of src lands at (c, col0 + r), every other bit kept */
    {
        static const uint32_t shapes[][3] = { { 1, 1, 0 }, { 64, 64, 0 }, { 65, 63, 64 }, { 200, 130, 128 },
                                              { 37, 300, 0 }, { 300, 37, 192 }, { 1000, 777, 64 } };
        int good = 1;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            uint32_t r = shapes[k][0], c = shapes[k][1], col0 = shapes[k][2];
            f2mat a, t, before;
            must(f2mat_init(&a, r, c));
            must(f2mat_init(&t, c, col0 + r + 64));
            fill_random(&a, 500);
            fill_random(&t, 300);
            for (uint32_t i = 0; i < c; i++)       /* the words the transpose writes: zero first */
                for (uint32_t j = col0; j < f2mat_segment_start(col0 + r); j++) f2mat_set(&t, i, j, 0);
            must(f2mat_copy(&before, &t));
            f2mat_transpose_into(&a, &t, col0);
            for (uint32_t i = 0; i < c; i++)
                for (uint32_t j = 0; j < t.cols; j++)
                    good &= f2mat_get(&t, i, j) ==
                            (j >= col0 && j < col0 + r ? f2mat_get(&a, j - col0, i) : f2mat_get(&before, i, j));
            f2mat_clear(&a), f2mat_clear(&t), f2mat_clear(&before);
        }
        ok(good, "f2mat_transpose_into equals the bit-by-bit transpose on 7 shapes");
    }
    /* f2mat_rref_prefix / f2mat_echelon_prefix on [A | I]: the left part is A's RREF (its pivots
     * the same) / a row echelon form of A with those pivots whose own RREF is A's, the rows below
     * the rank zero there, and the right part M the row operations: M A = the left part */
    for (int ech = 0; ech < 2; ech++) {
        static const uint32_t shapes[][3] = { { 1, 1, 500 }, { 40, 70, 500 }, { 130, 100, 30 }, { 300, 129, 500 },
                                              { 200, 700, 100 }, { 700, 200, 500 }, { 1500, 900, 20 } };
        int good = 1;
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
            uint32_t r = shapes[k][0], c = shapes[k][1], seg = f2mat_segment_start(c);
            f2mat a, aug, left;
            must(f2mat_init(&a, r, c));
            if (k == 6) fill_product(&a, 300, shapes[k][2]);
            else fill_random(&a, shapes[k][2]);
            must(f2mat_init(&aug, r, seg + r));
            for (uint32_t i = 0; i < r; i++) {
                memcpy(f2mat_row(&aug, i), f2mat_row(&a, i), f2vec_words(c) * 8);
                f2mat_flip(&aug, i, seg + i);
            }
            bmat b = bm_from(&a);
            int32_t *pr = malloc((c + 1) * sizeof *pr), *po = malloc((c + 1) * sizeof *po);
            if (!pr || !po) bail("oom");
            int rr = bm_rref(b, pr), ro = ech ? f2mat_echelon_prefix(&aug, c, po) : f2mat_rref_prefix(&aug, c, po);
            good &= rr == ro && !memcmp(pr, po, c * sizeof *pr);
            must(f2mat_init(&left, r, c));             /* the left part, RREF'd: A's RREF */
            for (uint32_t i = 0; i < r; i++) memcpy(f2mat_row(&left, i), f2mat_row(&aug, i), f2vec_words(c) * 8);
            for (uint32_t i = 0; i < r && rr == ro; i++)   /* an echelon form: zero before the pivot and at the others before it */
                for (uint32_t j = 0; j < c; j++)
                    if (i < (uint32_t)rr && j <= (uint32_t)f2vec_first_bit(f2mat_row(&left, i), c))
                        good &= f2mat_get(&left, i, j) == (pr[j] == (int32_t)i);
            if (f2mat_rref(&left, NULL) != rr) good = 0;
            for (uint32_t i = 0; i < r; i++) {
                uint64_t *acc = calloc(f2vec_words(c) + 1, 8);
                if (!acc) bail("oom");
                for (uint32_t j = 0; j < r; j++)
                    if (f2mat_get(&aug, i, seg + j)) f2vec_xor(acc, f2mat_row(&a, j), f2vec_words(c));
                for (uint32_t j = 0; j < c; j++) {
                    good &= f2vec_get(acc, j) == f2mat_get(&aug, i, j);
                    good &= f2mat_get(&left, i, j) == (i < (uint32_t)rr ? BM(b, i, j) : 0);
                    if (i >= (uint32_t)rr) good &= !f2mat_get(&aug, i, j);
                }
                free(acc);
            }
            free(b.e), free(pr), free(po);
            f2mat_clear(&a), f2mat_clear(&aug), f2mat_clear(&left);
        }
        ok(good, "%s of [A | I] on 7 shapes: %s, zero rows below, M A = the left part",
           ech ? "f2mat_echelon_prefix" : "f2mat_rref_prefix",
           ech ? "a row echelon form with A's pivots, its RREF A's" : "A's RREF and pivots");
    }

    return done_testing();
}
