/* t-milnor-packed.c — the packed search (algebra/milnor_packed.h, meant for GPU registers) on
 * the CPU against milnor_search.h's mm_step: for every pair of elements of degree <= 36 and
 * for random pairs up to degree 300, the same verdict (zero, or beyond the packed limits), the
 * same steps, and at each leaf the same T and seqno index, over 1 and 3 parts; and the
 * products it gives, XORed, equal milnor_mul_into's; made-up factors of length up to 9 with
 * entries up to and beyond 2^16 (T compared, and the verdict "beyond the limits" against one
 * worked out from mm_setup). Runs without a GPU. Env: SEED. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/milnor.h"
#include "algebra/milnor_packed.h"
#include "tests/batch.h"
#include "tests/tap.h"

#define MAXDEG 300

typedef struct tally {
    uint64_t pairs, too_big, leaves, steps, bad;
} tally;

/* One product, part `part` of np, both ways; counts and the first disagreement. */
static void compare(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S, uint32_t part, uint32_t np,
                    tally *y)
{
    y->pairs++;
    if (R->len == 0 || S->len == 0) return;         /* unit factors never reach a search */
    mm_search m;
    pk_search p;
    const int mo = mm_setup(&m, R, S), po = pk_setup(&p, R, S);
    if (po == PK_TOO_BIG) {
        y->too_big++;
        return;
    }
    if ((mo != 0) != (po == PK_READY)) {
        if (!y->bad++) diag("setup differs: mm %d, packed %d", mo, po);
        return;
    }
    if (!mo) return;
    mm_split(&m, part, np);
    pk_split(&p, part, np);
    const deg_t d = R->degree + S->degree;
    for (;;) {
        uint32_t t[2 * MM_SIDE];
        const int a = mm_step(&m, t), b = pk_step(&p);
        y->steps++;
        int same = a == b;
        if (same && a >= 0) {
            for (int n = 1; n <= a; ++n) same = same && t[n - 1] == pk_mask(&p, (uint32_t)n);
            same = same && milnor_seqno_index(A->seq_g, d, t, (uint32_t)a) == pk_seqno_index(&p, A->seq_g, d, a);
            y->leaves++;
        }
        if (!same) {
            if (!y->bad++) diag("step %llu differs: mm %d, packed %d", (unsigned long long)y->steps, a, b);
            return;
        }
        if (a == -1) return;
    }
}

/* Sq(R)·Sq(S) from the packed search, as a row (the caller zeroed it). */
static void packed_product(const milnor_basis *A, const milnor_elt *R, const milnor_elt *S, uint64_t *row)
{
    pk_search p;
    if (pk_setup(&p, R, S) != PK_READY) return;
    const deg_t d = R->degree + S->degree;
    for (int len; (len = pk_step(&p)) != -1;)
        if (len != MM_STEP_ON) {
            const uint32_t b = pk_seqno_index(&p, A->seq_g, d, len);
            row[b >> 6] ^= 1ull << (b & 63);
        }
}

/* A made-up factor: length 1..maxlen, entries near the 16-bit edge, powers of 2 or small. */
static milnor_elt made_up(uint32_t maxlen)
{
    milnor_elt e = { .len = 1 + rnd(maxlen), .degree = 0 };
    for (uint32_t i = 0; i < e.len; ++i) {
        switch (rnd(5)) {
        case 0: e.r[i] = 0xffffu - rnd(8); break;
        case 1: e.r[i] = 0x8000u | rnd(16); break;
        case 2: e.r[i] = 1u << rnd(17); break;          /* 2^16 is beyond the limits */
        case 3: e.r[i] = rnd(0x10000); break;
        default: e.r[i] = rnd(40); break;
        }
    }
    if (!e.r[e.len - 1]) e.r[e.len - 1] = 1;
    return e;
}

/* The packed limits worked out from mm_setup (when it finds the product non-zero): lengths
 * at most 8, entries below 2^16, at most PK_CELLS cells. -1: mm_setup found it zero. */
static int beyond_limits(const milnor_elt *R, const milnor_elt *S)
{
    if (R->len > 8 || S->len > 8) return 1;
    for (uint32_t i = 0; i < R->len; ++i) if (R->r[i] >> 16) return 1;
    for (uint32_t j = 0; j < S->len; ++j) if (S->r[j] >> 16) return 1;
    mm_search m;
    if (!mm_setup(&m, R, S)) return -1;
    return m.ncells > PK_CELLS;
}

int main(void)
{
    seed_from_env();
    milnor_basis A;
    if (milnor_basis_init(&A, MAXDEG, NULL) < 0) bail("cannot build the basis");

    tally all = { 0 };
    for (deg_t dr = 1; dr <= 36; ++dr)
        for (deg_t ds = 1; dr + ds <= 36; ++ds)
            for (uint32_t i = 0; i < A.dim[dr]; ++i)
                for (uint32_t k = 0; k < A.dim[ds]; ++k)
                    compare(&A, &A.elts[dr][i], &A.elts[ds][k], 0, 1, &all);
    ok(all.bad == 0 && all.leaves > 0, "every pair of degree <= 36: packed = mm_step, step by step (%llu pairs, %llu "
       "steps, %llu leaves, %llu beyond the limits)", (unsigned long long)all.pairs, (unsigned long long)all.steps,
       (unsigned long long)all.leaves, (unsigned long long)all.too_big);

    for (uint32_t np = 1; np <= 3; np += 2) {
        tally r = { 0 };
        for (int n = 0; n < 20000; ++n) {
            const deg_t dr = 1 + (deg_t)rnd(MAXDEG - 1), ds = 1 + (deg_t)rnd((uint32_t)(MAXDEG - dr));
            const milnor_elt *R = &A.elts[dr][rnd(A.dim[dr])], *S = &A.elts[ds][rnd(A.dim[ds])];
            for (uint32_t part = 0; part < np; ++part) compare(&A, R, S, part, np, &r);
        }
        ok(r.bad == 0 && r.leaves > 0, "random pairs of degree <= %d, %u part%s: packed = mm_step (%llu searches, %llu "
           "steps, %llu leaves, %llu beyond the limits)", MAXDEG, np, np > 1 ? "s" : "", (unsigned long long)r.pairs,
           (unsigned long long)r.steps, (unsigned long long)r.leaves, (unsigned long long)r.too_big);
    }

    /* the products themselves, against milnor_mul_into (independent of the step order) */
    uint64_t words = 0, bad = 0, packed = 0;
    uint64_t *x = calloc(1024, 8), *y = calloc(1024, 8);
    if (!x || !y) bail("out of memory");
    for (int n = 0; n < 3000; ++n) {
        const deg_t dr = (deg_t)rnd(120), ds = (deg_t)rnd(120);   /* degree 0: the unit */
        const milnor_elt *R = &A.elts[dr][rnd(A.dim[dr])], *S = &A.elts[ds][rnd(A.dim[ds])];
        pk_search p;
        if (pk_setup(&p, R, S) == PK_TOO_BIG) continue;
        const size_t w = (A.dim[dr + ds] + 63) / 64;
        if (w > 1024) continue;
        memset(x, 0, w * 8);
        memset(y, 0, w * 8);
        milnor_mul_into(&A, R, S, x, 0);
        packed_product(&A, R, S, y);
        bad += memcmp(x, y, w * 8) != 0;
        words += w;
        packed++;
    }
    ok(bad == 0 && packed > 1000, "%llu random products of degree <= 240 (units too) by the packed search = "
       "milnor_mul_into",
       (unsigned long long)packed);
    (void)words;

    /* made-up factors at the 16-bit edge: T at every leaf, and the limits' verdict */
    {
        uint64_t searches = 0, leaves = 0, beyond = 0, verdicts = 0, bad = 0;
        for (int n = 0; n < 6000 && !bad; ++n) {
            const milnor_elt R = made_up(n % 2 ? 9 : 3), S = made_up(n % 3 ? 3 : 9);
            const uint32_t np = 1 + rnd(3), part = rnd(np);
            pk_search p;
            const int po = pk_setup(&p, &R, &S), want = beyond_limits(&R, &S);
            if (want >= 0) {
                verdicts++;
                bad += (po == PK_TOO_BIG) != want;
            }
            if (po == PK_TOO_BIG) {
                beyond++;
                continue;
            }
            mm_search m;
            if ((mm_setup(&m, &R, &S) != 0) != (po == PK_READY)) {
                bad++;
                break;
            }
            if (po != PK_READY) continue;
            mm_split(&m, part, np);
            pk_split(&p, part, np);
            searches++;
            for (int steps = 0; steps < 200000; ++steps) {
                uint32_t t[2 * MM_SIDE];
                const int a = mm_step(&m, t), b = pk_step(&p);
                if (a != b) { bad++; break; }
                if (a >= 0) {
                    leaves++;
                    for (int k = 1; k <= a; ++k) bad += t[k - 1] != pk_mask(&p, (uint32_t)k);
                }
                if (a == -1 || bad) break;
            }
        }
        ok(bad == 0 && searches > 500 && beyond > 100 && verdicts > 1000,
           "made-up factors of length <= 9, entries at the 16-bit edge: packed = mm_step (%llu searches, %llu leaves), "
           "and 'beyond the limits' exactly when lengths, entries or cells exceed them (%llu verdicts, %llu beyond)",
           (unsigned long long)searches, (unsigned long long)leaves, (unsigned long long)verdicts,
           (unsigned long long)beyond);
    }

    /* the limits: a length-9 factor is refused, not mishandled */
    {
        milnor_elt R = { .len = 9, .degree = 0 }, S = { .len = 1, .degree = 1 };
        for (int i = 0; i < 9; ++i) R.r[i] = 1, R.degree += (deg_t)mm_xi_degree(i);
        S.r[0] = 1;
        pk_search p;
        ok(pk_setup(&p, &R, &S) == PK_TOO_BIG, "a factor of length 9 is beyond the packed limits");
    }
    free(x);
    free(y);
    milnor_basis_clear(&A);
    return done_testing();
}
