/* t-milnor-p.c — TAP tests of the mod p Milnor basis and product (algebra/milnor_p.c), p odd.
 * Against tests/milnor_p_ref.py (the product dual to the coproduct of A_*, the basis by brute
 * force sorted by a key; run with python3 from the repository root, as make test does): the
 * order of every degree and every product X·Y with |X| + |Y| <= N, for p = 3, 5, 7. Without it:
 * dimensions against the generating function, the index round trip, Q_{k+1} = [P(p^k), Q_k],
 * and associativity on random triples. Sub-Hopf-algebras by profile (milnor_p_sub, p = 3, 5):
 * B's dims against B's own generating function, its elements in A's order, products staying
 * in B for sseq's profiles (C3's, y1_3's, t1's) and leaving it for one that is not a
 * sub-Hopf-algebra. The flat basis (milnor_p_flat_*) read back, and the iterative search
 * the GPU runs (milnor_p_search.h, whole and cut in parts, read from the flat buffer) against
 * milnor_p_mul_into on every pair of a range and on random pairs up to the basis's degree; the
 * batch (milnor_p_mul_batch) against products one by one. Env: SEED (random triples; default time). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor_p.h"
#include "algebra/milnor_p_search.h"
#include "tests/rng.h"
#include "tests/tap.h"

static const struct { uint32_t p; deg_t ref_n, basis_n, assoc_n; } CASES[] = {
    { 3, 80, 400, 240 },
    { 5, 160, 800, 480 },
    { 7, 150, 1200, 700 },
};

/* "E:r1,r2,..." at *s into X; advances *s past it. */
static void parse_elt(uint32_t p, char **s, milnor_p_elt *X)
{
    uint32_t r[MILNOR_P_MAX_LEN + 4] = { 0 };
    int n = 0;
    char *e;
    uint32_t E = (uint32_t)strtoul(*s, &e, 10);
    if (*e == ':') ++e;
    while (*e >= '0' && *e <= '9' && n < MILNOR_P_MAX_LEN + 4) {
        r[n++] = (uint32_t)strtoul(e, &e, 10);
        if (*e == ',') ++e;
    }
    milnor_p_elt_set(X, p, E, r, n);
    *s = e;
}

static int elt_eq(const milnor_p_elt *a, const milnor_p_elt *b)
{
    return a->q == b->q && a->len == b->len && a->degree == b->degree &&
           memcmp(a->r, b->r, a->len * sizeof *a->r) == 0;
}

/* Every line of the reference: B (the order of a degree) and M (one product). */
static void check_reference(const milnor_p_basis *A, deg_t N)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "python3 tests/milnor_p_ref.py %u %d", A->p, (int)N);
    FILE *f = popen(cmd, "r");
    char *line = NULL;
    size_t cap = 0;
    long nb = 0, nb_bad = 0, nm = 0, nm_bad = 0, nterms = 0;
    uint32_t maxdim = 0;
    for (deg_t d = 0; d <= N; ++d) maxdim = A->dim[d] > maxdim ? A->dim[d] : maxdim;
    uint8_t *mine = malloc(maxdim + 1), *theirs = malloc(maxdim + 1);
    while (f && getline(&line, &cap, f) > 0) {
        char *s = line + 2;
        if (line[0] == 'B') {
            deg_t d = (deg_t)strtol(s, &s, 10);
            uint32_t k = 0;
            int bad = d > N;
            while (!bad && *s == ' ' && s[1] != '\n' && s[1]) {
                ++s;
                milnor_p_elt X;
                parse_elt(A->p, &s, &X);
                if (k >= A->dim[d] || !elt_eq(&X, &A->elts[d][k])) bad = 1;
                ++k;
            }
            if (!bad && k != A->dim[d]) bad = 1;
            if (bad && nb_bad++ < 3) diag("p=%u: degree %d differs from the reference's order", A->p, (int)d);
            ++nb;
        } else if (line[0] == 'M') {
            milnor_p_elt X, Y, Z;
            parse_elt(A->p, &s, &X);
            ++s;
            parse_elt(A->p, &s, &Y);
            deg_t d = X.degree + Y.degree;
            memset(mine, 0, A->dim[d]);
            memset(theirs, 0, A->dim[d]);
            milnor_p_mul_into(A, &X, &Y, 1, mine);
            int bad = 0;
            while (*s == ' ' && s[1] != '\n' && s[1]) {
                ++s;
                uint32_t c = (uint32_t)strtoul(s, &s, 10);
                if (*s == '@') ++s;
                parse_elt(A->p, &s, &Z);
                if (Z.degree != d) { bad = 1; break; }
                uint32_t j = milnor_p_index(A, &Z);
                theirs[j] = (uint8_t)((theirs[j] + c) % A->p);
                ++nterms;
            }
            if (bad || memcmp(mine, theirs, A->dim[d]) != 0) {
                char bx[128], by[128];
                if (nm_bad++ < 5)
                    diag("p=%u: %s · %s differs from the reference", A->p,
                         milnor_p_elt_format(&X, bx, sizeof bx), milnor_p_elt_format(&Y, by, sizeof by));
            }
            ++nm;
        }
    }
    int rc = f ? pclose(f) : -1;
    free(line);
    free(mine);
    free(theirs);
    ok(rc == 0 && nb == N + 1 && nb_bad == 0,
       "p=%u: the basis of degrees 0..%d in the reference's order (%ld degrees, exit %d)", A->p, (int)N, nb, rc);
    ok(rc == 0 && nm > 0 && nm_bad == 0,
       "p=%u: all %ld products of total degree <= %d equal the dual-coproduct reference (%ld terms, %ld differ)",
       A->p, nm, (int)N, nterms, nm_bad);
}

/* dim A_d from prod_{i>=1} 1/(1 - x^{2(p^i - 1)}) · prod_{k>=0} (1 + x^{2p^k - 1}), as a power series
 * product computed here term by term. */
static void check_dims(const milnor_p_basis *A)
{
    size_t n = (size_t)A->max_degree + 1;
    uint64_t *s = calloc(n, sizeof *s), *t = calloc(n, sizeof *t);
    s[0] = 1;
    for (uint64_t pk = A->p; 2 * (pk - 1) < n; pk *= A->p) {       /* geometric series in x^{2(p^i-1)} */
        size_t x = 2 * (pk - 1);
        memset(t, 0, n * sizeof *t);
        for (size_t a = 0; a < n; ++a)
            for (size_t b = 0; a + b < n; b += x) t[a + b] += s[a];
        memcpy(s, t, n * sizeof *t);
    }
    for (uint64_t pk = 1; 2 * pk - 1 < n; pk *= A->p) {
        size_t x = 2 * pk - 1;
        memcpy(t, s, n * sizeof *t);
        for (size_t a = 0; a + x < n; ++a) t[a + x] += s[a];
        memcpy(s, t, n * sizeof *t);
    }
    uint32_t *dims = calloc(n, sizeof *dims);
    int count_ok = milnor_p_count_dims(A->p, A->max_degree, dims) == 0;
    size_t bad = 0, bad_count = 0;
    for (size_t d = 0; d < n; ++d) {
        if (A->dim[d] != s[d]) ++bad;
        if (dims[d] != s[d]) ++bad_count;
    }
    ok(bad == 0, "p=%u: dim of each degree 0..%d from the generating function (dim %u at the top)",
       A->p, (int)A->max_degree, A->dim[n - 1]);
    ok(count_ok && bad_count == 0, "p=%u: milnor_p_count_dims agrees", A->p);
    free(s);
    free(t);
    free(dims);
}

/* Each element's degree, its Q part and P part valid, its index the position, none twice. */
static void check_index(const milnor_p_basis *A)
{
    size_t bad = 0, total = 0;
    for (deg_t d = 0; d <= A->max_degree; ++d)
        for (uint32_t i = 0; i < A->dim[d]; ++i) {
            const milnor_p_elt *X = &A->elts[d][i];
            milnor_p_elt Y;
            milnor_p_elt_set(&Y, A->p, X->q, X->r, (int)X->len);
            if (!elt_eq(X, &Y) || X->degree != d || milnor_p_index(A, X) != i) ++bad;
            if (i > 0 && A->elts[d][i - 1].q > X->q) ++bad;           /* Q parts increasing */
            ++total;
        }
    ok(bad == 0, "p=%u: %zu elements through degree %d: degree, form and index round trip",
       A->p, total, (int)A->max_degree);
}

/* Q_{k+1} = P(p^k) Q_k - Q_k P(p^k), Q_k Q_k = 0, Q_j Q_k = -Q_k Q_j, wherever defined. */
static void check_q_relations(const milnor_p_basis *A)
{
    int bad = 0, n = 0;
    uint8_t v[64], w[64];
    for (uint32_t k = 0; k + 1 < 8; ++k) {
        milnor_p_elt Qk, Qk1, Pk;
        uint32_t pk = A->ppow[k];
        milnor_p_elt_set(&Qk, A->p, 1u << k, NULL, 0);
        milnor_p_elt_set(&Qk1, A->p, 1u << (k + 1), NULL, 0);
        milnor_p_elt_set(&Pk, A->p, 0, &pk, 1);
        if (Qk1.degree > A->max_degree || A->dim[Qk1.degree] > sizeof v) break;
        memset(v, 0, sizeof v);
        milnor_p_mul_into(A, &Pk, &Qk, 1, v);
        milnor_p_mul_into(A, &Qk, &Pk, A->p - 1, v);
        memset(w, 0, sizeof w);
        w[milnor_p_index(A, &Qk1)] = 1;
        bad += memcmp(v, w, A->dim[Qk1.degree]) != 0;
        ++n;
    }
    for (uint32_t j = 0; j < 8; ++j)
        for (uint32_t k = 0; k < 8; ++k) {
            milnor_p_elt Qj, Qk;
            milnor_p_elt_set(&Qj, A->p, 1u << j, NULL, 0);
            milnor_p_elt_set(&Qk, A->p, 1u << k, NULL, 0);
            deg_t d = Qj.degree + Qk.degree;
            if (d > A->max_degree || A->dim[d] > sizeof v) continue;
            memset(v, 0, sizeof v);
            milnor_p_mul_into(A, &Qj, &Qk, 1, v);
            milnor_p_mul_into(A, &Qk, &Qj, 1, v);
            memset(w, 0, sizeof w);
            bad += memcmp(v, w, A->dim[d]) != 0;
            ++n;
        }
    ok(bad == 0 && n > 3, "p=%u: Q_{k+1} = [P(p^k), Q_k] and Q_j Q_k = -Q_k Q_j (%d identities)", A->p, n);
}

/* (XY)Z = X(YZ) for random basis elements with |X| + |Y| + |Z| <= N, until `trials` triples
 * with a non-zero product have been seen (most random triples multiply to zero). */
static void check_assoc(const milnor_p_basis *A, deg_t N, int trials)
{
    uint32_t maxdim = 0;
    for (deg_t d = 0; d <= N; ++d) maxdim = A->dim[d] > maxdim ? A->dim[d] : maxdim;
    uint8_t *xy = malloc(maxdim), *yz = malloc(maxdim), *l = malloc(maxdim), *r = malloc(maxdim);
    int bad = 0, nonzero = 0, tries = 0;
    while (nonzero < trials && tries < 50 * trials) {
        deg_t total = (deg_t)(rng_next() % (uint64_t)(N + 1));
        deg_t a = (deg_t)(rng_next() % (uint64_t)(total + 1));
        deg_t b = (deg_t)(rng_next() % (uint64_t)(total - a + 1)), c = total - a - b;
        if (!A->dim[a] || !A->dim[b] || !A->dim[c]) continue;
        ++tries;
        const milnor_p_elt *X = &A->elts[a][rng_next() % A->dim[a]];
        const milnor_p_elt *Y = &A->elts[b][rng_next() % A->dim[b]];
        const milnor_p_elt *Z = &A->elts[c][rng_next() % A->dim[c]];
        memset(xy, 0, A->dim[a + b]);
        memset(yz, 0, A->dim[b + c]);
        memset(l, 0, A->dim[total]);
        memset(r, 0, A->dim[total]);
        milnor_p_mul_into(A, X, Y, 1, xy);
        milnor_p_mul_into(A, Y, Z, 1, yz);
        for (uint32_t i = 0; i < A->dim[a + b]; ++i)
            if (xy[i]) milnor_p_mul_into(A, &A->elts[a + b][i], Z, xy[i], l);
        for (uint32_t i = 0; i < A->dim[b + c]; ++i)
            if (yz[i]) milnor_p_mul_into(A, X, &A->elts[b + c][i], yz[i], r);
        if (memcmp(l, r, A->dim[total]) != 0) {
            char bx[128], by[128], bz[128];
            if (bad++ < 3)
                diag("p=%u: (XY)Z != X(YZ) for %s, %s, %s", A->p, milnor_p_elt_format(X, bx, sizeof bx),
                     milnor_p_elt_format(Y, by, sizeof by), milnor_p_elt_format(Z, bz, sizeof bz));
        }
        int nz = 0;
        for (uint32_t i = 0; i < A->dim[total]; ++i) nz |= l[i] | r[i];
        nonzero += nz != 0;
    }
    ok(bad == 0 && nonzero == trials,
       "p=%u: associativity on %d random triples of total degree <= %d, %d of them with a non-zero product",
       A->p, tries, (int)N, nonzero);
    free(xy);
    free(yz);
    free(l);
    free(r);
}

static void check_format(void)
{
    milnor_p_elt X;
    uint32_t r[3] = { 1, 0, 2 };
    char b[64];
    milnor_p_elt_set(&X, 3, 5, r, 3);
    int good = strcmp(milnor_p_elt_format(&X, b, sizeof b), "Q_0 Q_2 P(1, 0, 2)") == 0;
    milnor_p_elt_set(&X, 3, 0, NULL, 0);
    good &= strcmp(milnor_p_elt_format(&X, b, sizeof b), "1") == 0;
    /* |Q_0 Q_2 P(1,0,2)| at p = 3: 1 + 17 + 4·1 + 4·13·2 = 126 */
    milnor_p_elt_set(&X, 3, 5, r, 3);
    good &= X.degree == 1 + 17 + 4 + 104;
    ok(good, "names as sseq prints them, and degrees");
    milnor_p_basis B;
    ok(milnor_p_basis_init(&B, 2, 10) == -1 && milnor_p_basis_init(&B, 9, 10) == -1 &&
       milnor_p_basis_init(&B, 3, MILNOR_P_MAX_DEGREE + 1) == -1 && milnor_p_basis_init(&B, 3, -1) == -1,
       "p = 2, 9, and degrees out of range are refused");
    milnor_p_basis_clear(&B);
}

/* Dims of the sub-Hopf-algebra B of a profile from its own generating function: prod over the
 * slots i of (1 - x^{q w_i p^{h_i}})/(1 - x^{q w_i}) (a truncated polynomial when bounded) times
 * prod over the Q_k in B of (1 + x^{|Q_k|}); every element of B in the profile; B's order is A's. */
static void check_sub(const milnor_p_basis *A, const milnor_p_profile *pr, const char *name, int closed)
{
    milnor_p_sub B;
    if (milnor_p_sub_init(&B, A, pr) != 0) bail("milnor_p_sub_init failed");
    size_t n = (size_t)A->max_degree + 1;
    int64_t *want = calloc(n, sizeof *want);
    if (!want) bail("out of memory");
    want[0] = 1;
    for (int i = 0; i < MILNOR_P_MAX_LEN; ++i) {
        uint64_t x = (uint64_t)A->qdeg * A->w[i], bound = UINT64_MAX;   /* r_i < bound */
        if (i < pr->len) { bound = 1; for (int k = 0; k < pr->h[i]; ++k) bound *= A->p; }
        else if (pr->truncated) bound = 1;
        for (size_t d = x; x < n && d < n; ++d) want[d] += want[d - x];          /* 1/(1 - x^a) */
        if (bound != UINT64_MAX && x * bound < n)
            for (size_t d = n - 1; d >= x * bound; --d) want[d] -= want[d - x * bound];   /* (1 - x^{a b}) */
    }
    for (int k = 0; k < MILNOR_P_MAX_LEN; ++k)
        if (pr->qmask >> k & 1 && A->tau[k] < n)
            for (size_t d = n - 1; d >= A->tau[k]; --d) want[d] += want[d - A->tau[k]];
    int bad = 0, order = 0;
    for (size_t d = 0; d < n; ++d) {
        bad += want[d] != (int64_t)B.dim[d];
        for (uint32_t i = 0; i < B.dim[d]; ++i) {
            const milnor_p_elt *X = milnor_p_sub_elt(&B, (deg_t)d, i);
            order += !milnor_p_profile_has(pr, A->p, X) ||
                     (i > 0 && milnor_p_index(A, X) <= milnor_p_index(A, milnor_p_sub_elt(&B, (deg_t)d, i - 1)));
        }
    }
    ok(bad == 0 && order == 0, "p = %u, %s: dims of B through degree %d from its generating function, its elements "
       "in A's order", A->p, name, A->max_degree);
    deg_t cd = A->p == 3 ? 60 : 100;
    ok(milnor_p_sub_closed(&B, cd) == closed, "p = %u, %s: products through degree %d %s", A->p, name, cd,
       closed ? "stay in B" : "leave B (not a sub-Hopf-algebra)");
    free(want);
    milnor_p_sub_clear(&B);
}

/* out[j] += c·(X·Y)_j by the iterative search, parts 0..nparts-1 of it. */
static void search_into(const mps_tables *T, const milnor_p_elt *X, const milnor_p_elt *Y, uint32_t c, uint32_t nparts,
                        uint8_t *out)
{
    for (uint32_t part = 0; part < nparts; ++part) {
        mps_search s;
        mps_term t;
        mps_start(&s, T, X, Y, part, nparts);
        while (mps_next(&s, &t)) out[t.index] = (uint8_t)((out[t.index] + t.c * c) % T->p);
    }
}

/* The flat buffer's view is A; the search (1 and 3 parts, its tables read from the buffer)
 * equals milnor_p_mul_into on every pair with |X| + |Y| <= N and on random pairs up to the
 * basis's degree; milnor_p_mul_batch equals products one by one. */
static void check_flat_search(const milnor_p_basis *A, deg_t N, int trials)
{
    size_t words = milnor_p_flat_words(A);
    uint32_t *flat = malloc(words * sizeof *flat);
    static milnor_p_elt *vel[MILNOR_P_MAX_DEGREE + 1];
    static uint32_t vdim[MILNOR_P_MAX_DEGREE + 1];
    milnor_p_basis V;
    if (!flat) bail("out of memory");
    ok(milnor_p_flat_write(A, flat, words) == 0 && milnor_p_flat_write(A, flat, words - 1) < 0,
       "p=%u: flatten through degree %d (%zu words), a wrong size refused", A->p, (int)A->max_degree, words);
    int same = milnor_p_flat_view(flat, words, &V, vel, vdim) == 0 && V.max_degree == A->max_degree && V.nq == A->nq;
    for (deg_t d = 0; same && d <= A->max_degree; ++d)
        same = V.dim[d] == A->dim[d] && !memcmp(V.elts[d], A->elts[d], A->dim[d] * sizeof *A->elts[d]) &&
               !memcmp(V.qoff + (size_t)d * A->nq, A->qoff + (size_t)d * A->nq, A->nq * sizeof *A->qoff);
    same = same && !memcmp(V.pseq_g, A->pseq_g, ((size_t)A->max_pdeg + 1) * MILNOR_P_MAX_LEN * 4) &&
           !memcmp(V.binom, A->binom, (size_t)A->p * A->p);
    ok(same, "p=%u: the flat view has the basis's dims, elements and tables", A->p);
    flat[5] ^= 1;
    ok(milnor_p_flat_view(flat, words, &V, vel, vdim) < 0, "p=%u: a damaged header is refused", A->p);
    flat[5] ^= 1;
    mps_tables T;
    mps_tables_of_flat(&T, flat);
    uint32_t maxdim = 1;
    for (deg_t d = 0; d <= A->max_degree; ++d) maxdim = A->dim[d] > maxdim ? A->dim[d] : maxdim;
    uint8_t *ref = malloc(maxdim), *got = malloc(maxdim), *got3 = malloc(maxdim);
    if (!ref || !got || !got3) bail("out of memory");
    uint64_t pairs = 0, bad = 0, nonzero = 0;
    for (int k = 0; k < trials + 1; ++k) {      /* k = trials: every pair of the range */
        for (deg_t a = 0; a <= N; ++a)
            for (deg_t b = 0; a + b <= N; ++b)
                for (uint32_t i = 0; i < A->dim[a]; ++i)
                    for (uint32_t j = 0; j < A->dim[b]; ++j) {
                        const milnor_p_elt *X = &A->elts[a][i], *Y = &A->elts[b][j];
                        if (k < trials) {       /* one random pair of the whole range */
                            deg_t total = (deg_t)(rng_next() % (uint64_t)(A->max_degree + 1));
                            deg_t da = (deg_t)(rng_next() % (uint64_t)(total + 1));
                            if (!A->dim[da] || !A->dim[total - da]) goto next;
                            X = &A->elts[da][rng_next() % A->dim[da]];
                            Y = &A->elts[total - da][rng_next() % A->dim[total - da]];
                        }
                        uint32_t c = 1 + (uint32_t)(rng_next() % (A->p - 1)), dim = A->dim[X->degree + Y->degree];
                        memset(ref, 0, dim);
                        memset(got, 0, dim);
                        memset(got3, 0, dim);
                        milnor_p_mul_into(A, X, Y, c, ref);
                        search_into(&T, X, Y, c, 1, got);
                        search_into(&T, X, Y, c, 3, got3);
                        ++pairs;
                        for (uint32_t e = 0; e < dim; ++e) nonzero += ref[e] != 0;
                        if (memcmp(ref, got, dim) || memcmp(ref, got3, dim)) {
                            char bx[128], by[128];
                            if (bad++ < 3)
                                diag("p=%u: search != milnor_p_mul_into for %s * %s", A->p,
                                     milnor_p_elt_format(X, bx, sizeof bx), milnor_p_elt_format(Y, by, sizeof by));
                        }
                        if (k < trials) goto next;
                    }
    next:;
    }
    ok(bad == 0 && nonzero > 0, "p=%u: the iterative search (1 and 3 parts) = milnor_p_mul_into on %llu pairs "
       "(all with |X|+|Y| <= %d, random ones to %d; %llu nonzero entries)", A->p, (unsigned long long)pairs, (int)N,
       (int)A->max_degree, (unsigned long long)nonzero);
    /* the batch: rows of random jobs over random terms, against products one by one */
    enum { NJ = 40, NT = 30 };
    milnor_row_job jobs[NJ];
    milnor_p_term terms[NT];
    deg_t dr = 1 + (deg_t)(rng_next() % (uint64_t)(N / 2)), ds = (deg_t)(rng_next() % (uint64_t)(N / 2));
    while (!A->dim[dr]) ++dr;
    while (!A->dim[ds]) ++ds;
    uint32_t cols = 0, width = A->dim[dr + ds];
    for (int k = 0; k < NT; ++k) {
        terms[k] = (milnor_p_term){ (uint32_t)ds, (uint32_t)(rng_next() % A->dim[ds]), cols,
                                    1 + (uint32_t)(rng_next() % (A->p - 1)) };
        cols += (uint32_t)(rng_next() % 2) * width;        /* some terms share a block */
    }
    size_t stride = ((cols + width) + 63) & ~(size_t)63;
    uint8_t *rows = calloc((size_t)NJ * stride, 1), *one = calloc((size_t)NJ * stride, 1);
    if (!rows || !one) bail("out of memory");
    for (int i = 0; i < NJ; ++i) {
        uint32_t f = (uint32_t)(rng_next() % NT);
        jobs[i] = (milnor_row_job){ (uint32_t)dr, (uint32_t)(rng_next() % A->dim[dr]), f, (uint32_t)(rng_next() % (NT - f + 1)) };
        for (uint32_t k = 0; k < jobs[i].n_terms; ++k)
            milnor_p_mul_into(A, &A->elts[dr][jobs[i].r_idx], &A->elts[ds][terms[f + k].s_idx], terms[f + k].coef,
                              one + i * stride + terms[f + k].col_offset);
    }
    milnor_p_mul_batch(&V, jobs, NJ, terms, rows, stride);
    ok(!memcmp(rows, one, (size_t)NJ * stride), "p=%u: milnor_p_mul_batch through the flat view = products one by "
       "one (%d rows, degrees %d x %d)", A->p, NJ, (int)dr, (int)ds);
    free(rows);
    free(one);
    free(ref);
    free(got);
    free(got3);
    free(flat);
}

int main(void)
{
    rng_seed_from_env();
    plan_lazy();
    check_format();
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; ++c) {
        milnor_p_basis A;
        if (milnor_p_basis_init(&A, CASES[c].p, CASES[c].basis_n) != 0) bail("milnor_p_basis_init failed");
        check_dims(&A);
        check_index(&A);
        check_q_relations(&A);
        check_reference(&A, CASES[c].ref_n);
        check_assoc(&A, CASES[c].assoc_n, 300);
        check_flat_search(&A, CASES[c].ref_n, 20000);
        if (A.p <= 5) {     /* sseq's profiles: C3 (no Q_0), y1_3 / t1 (r_1 = 0), and one that is not closed */
            milnor_p_profile pr = milnor_p_profile_full();
            check_sub(&A, &pr, "the whole algebra", 1);
            pr.qmask = ~1u;
            check_sub(&A, &pr, "without Q_0", 1);
            pr.len = 1;
            pr.h[0] = 0;
            check_sub(&A, &pr, "without Q_0 and P(r_1 > 0)", 1);
            pr.qmask = ~0u;
            check_sub(&A, &pr, "without P(r_1 > 0)", 1);
            pr = milnor_p_profile_full();
            pr.truncated = 1;
            pr.len = 1;
            pr.h[0] = 1;
            pr.qmask = 3;
            check_sub(&A, &pr, "A(1) (Q_0, Q_1, P(r_1 < p))", 1);
            pr.qmask = 2;
            check_sub(&A, &pr, "E(Q_1) and P(r_1 < p) (Q_1 commutes with them)", 1);
            pr = milnor_p_profile_full();
            pr.qmask = 2;
            check_sub(&A, &pr, "Q_1 and every P(R), no Q_2 (P(p) Q_1 = Q_1 P(p) + Q_2)", 0);
        }
        milnor_p_basis_clear(&A);
    }
    return done_testing();
}
