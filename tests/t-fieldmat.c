/* t-fieldmat.c — TAP tests of the field seam (algebra/fieldmat.h) at p = 2, 3, 5 and 127, on
 * random matrices of several shapes and densities: each call gives what f2mat.h or fpmat.h
 * gives on the same entries (the RREF and its pivots, the kernel and the quasi-inverse of
 * [A | 0 | I], entries, equality), the row helpers agree with entry-wise arithmetic mod p, and
 * the quasi-inverse really inverts: QI(x·A)·A = x·A, K·A = 0; a copy, an entry set and the
 * first non-zero entry of a row agree with entry-wise reads. Env: SEED (default time). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/fieldmat.h"
#include "tests/rng.h"
#include "tests/tap.h"

/* A random rows x cols matrix over F_p, each entry non-zero with chance 1/dens, as a fieldmat
 * and, entry for entry, as the packed matrix of its own header (f2 or fp). */
static void random_pair(uint32_t p, uint32_t rows, uint32_t cols, uint32_t dens, fieldmat *m, f2mat *f2, fpmat *fp)
{
    fieldmat_init(m, p, rows, cols);
    if (p == 2) f2mat_init(f2, rows, cols);
    else fpmat_init(fp, p, rows, cols);
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t c = 0; c < cols; c++) {
            uint32_t v = rng_next() % dens ? 0 : 1 + (uint32_t)(rng_next() % (p - 1));
            fieldmat_set(m, i, c, v);
            if (p == 2) f2mat_set(f2, i, c, (int)v);
            else fpmat_set(fp, i, c, v);
        }
}

/* m's entries are those of f2 or fp. */
static int same(const fieldmat *m, const f2mat *f2, const fpmat *fp)
{
    if (m->p == 2) return f2mat_equal(&m->f2, f2);
    return fpmat_equal(&m->fp, fp);
}

/* out = x·A over F_p (x: A's rows entries, out: A's cols entries), entry by entry. */
static void times(const fieldmat *A, const void *x, void *out)
{
    uint32_t p = A->p, rows = fieldmat_rows(A), cols = fieldmat_cols(A);
    memset(out, 0, fieldvec_bytes(p, cols));
    for (uint32_t c = 0; c < cols; c++) {
        uint32_t s = 0;
        for (uint32_t i = 0; i < rows; i++) s += fieldvec_get(p, x, i) * fieldmat_get(A, i, c);
        if (p == 2) {
            if (s & 1) f2vec_flip(out, c);
        } else
            ((uint8_t *)out)[c] = (uint8_t)(s % p);
    }
}

int main(void)
{
    rng_seed_from_env();
    static const uint32_t primes[] = { 2, 3, 5, 127 };
    static const uint32_t shapes[][3] = { { 0, 5, 1 }, { 4, 0, 1 }, { 1, 1, 1 }, { 7, 9, 2 }, { 40, 30, 3 },
                                          { 65, 130, 4 }, { 130, 64, 2 }, { 200, 300, 10 }, { 300, 200, 40 } };
    plan_lazy();
    for (size_t pi = 0; pi < sizeof primes / sizeof *primes; pi++)
        for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
            uint32_t p = primes[pi], rows = shapes[si][0], cols = shapes[si][1], dens = shapes[si][2];
            fieldmat A, aug, K, M;
            f2mat a2 = { 0 }, aug2 = { 0 }, k2 = { 0 };
            fpmat ap = { 0 }, augp = { 0 }, kp = { 0 };
            random_pair(p, rows, cols, dens, &A, &a2, &ap);
            int good = A.p == p && fieldmat_rows(&A) == rows && fieldmat_cols(&A) == cols && same(&A, &a2, &ap);

            /* the RREF of a copy, against the packed header's */
            fieldmat_init(&M, p, rows, cols);
            for (uint32_t i = 0; i < rows; i++) memcpy(fieldmat_row(&M, i), fieldmat_row(&A, i), fieldvec_bytes(p, cols));
            good = good && fieldmat_equal(&M, &A);
            int32_t *pv = malloc(sizeof *pv * (cols + 1)), *pw = malloc(sizeof *pw * (cols + 1));
            f2mat c2 = { 0 };
            fpmat cp = { 0 };
            if (p == 2) f2mat_copy(&c2, &a2);
            else fpmat_copy(&cp, &ap);
            int r1 = fieldmat_rref(&M, pv), r2 = p == 2 ? f2mat_rref(&c2, pw) : fpmat_rref(&cp, pw);
            good = good && r1 == r2 && same(&M, &c2, &cp) && !memcmp(pv, pw, sizeof *pv * cols);
            ok(good, "p = %u, %u x %u: entries and RREF (rank %d) as %s's, pivots too", p, rows, cols, r1,
               p == 2 ? "f2mat" : "fpmat");

            /* [A | 0 | I]: kernel and quasi-inverse, against the header's and by their maths */
            int32_t *pa = NULL, *pb = NULL;
            int g = fieldmat_augment_identity(&aug, &A) == 0;
            g = g && (p == 2 ? f2mat_augment_identity(&aug2, &a2) : fpmat_augment_identity(&augp, &ap)) == 0;
            g = g && same(&aug, &aug2, &augp);
            uint32_t acols = fieldmat_cols(&aug);
            pa = malloc(sizeof *pa * (acols + 1));
            pb = malloc(sizeof *pb * (acols + 1));
            int rank = fieldmat_rref(&aug, pa);
            int rankb = p == 2 ? f2mat_rref(&aug2, pb) : fpmat_rref(&augp, pb);
            g = g && rank == rankb && same(&aug, &aug2, &augp);
            uint32_t arank = 0;
            for (uint32_t c = 0; c < cols; c++) arank += pa[c] >= 0;
            g = g && fieldmat_kernel_from_rref(&aug, cols, (uint32_t)rank, pa, &K) == 0;
            g = g && (p == 2 ? f2mat_kernel_from_rref(&aug2, cols, (uint32_t)rank, pb, &k2)
                             : fpmat_kernel_from_rref(&augp, cols, (uint32_t)rank, pb, &kp)) == 0;
            g = g && same(&K, &k2, &kp) && fieldmat_rows(&K) + arank == rows;
            uint8_t *prod = calloc(fieldvec_bytes(p, cols) + 8, 1);
            for (uint32_t k = 0; g && k < fieldmat_rows(&K); k++) {
                times(&A, fieldmat_row(&K, k), prod);
                g = fieldvec_is_zero(p, prod, cols);
            }
            ok(g, "p = %u, %u x %u: [A | 0 | I] as the header's, kernel (%u rows) as the header's, K·A = 0", p, rows,
               cols, fieldmat_rows(&K));

            fieldqi qi;
            g = fieldmat_quasi_inverse_from_rref(&aug, cols, (uint32_t)rank, pa, &qi) == 0;
            uint8_t *x = calloc(fieldvec_bytes(p, rows) + 8, 1), *y = calloc(fieldvec_bytes(p, cols) + 8, 1),
                    *z = calloc(fieldvec_bytes(p, rows) + 8, 1), *w = calloc(fieldvec_bytes(p, cols) + 8, 1),
                    *u = calloc(fieldvec_bytes(p, rows) + 8, 1);
            for (int trial = 0; g && trial < 5; trial++) {
                memset(x, 0, fieldvec_bytes(p, rows));
                for (uint32_t i = 0; i < rows; i++) {
                    uint32_t v = (uint32_t)(rng_next() % p);
                    if (p == 2) {
                        if (v) f2vec_flip((uint64_t *)x, i);
                    } else
                        x[i] = (uint8_t)v;
                }
                times(&A, x, y);
                memset(z, 0, fieldvec_bytes(p, rows));
                fieldqi_apply(&qi, y, z);
                times(&A, z, w);
                g = !memcmp(w, y, fieldvec_bytes(p, cols));
                memset(u, 0, fieldvec_bytes(p, rows));      /* the header's own apply: the same x */
                if (p == 2) {
                    f2qi q2;
                    f2mat_quasi_inverse_from_rref(&aug2, cols, (uint32_t)rank, pb, &q2);
                    f2qi_apply(&q2, (const uint64_t *)y, (uint64_t *)u);
                    f2qi_clear(&q2);
                } else {
                    fpqi qp;
                    fpmat_quasi_inverse_from_rref(&augp, cols, (uint32_t)rank, pb, &qp);
                    fpqi_apply(&qp, y, u);
                    fpqi_clear(&qp);
                }
                g = g && !memcmp(u, z, fieldvec_bytes(p, rows));
            }
            ok(g, "p = %u, %u x %u: QI(x·A)·A = x·A, and QI as the header's", p, rows, cols);

            /* row helpers: dst += c·src against entry-wise arithmetic */
            g = 1;
            for (uint32_t i = 0; g && i + 1 < rows; i++) {
                uint32_t c = (uint32_t)(rng_next() % p);
                memcpy(w, fieldmat_row(&A, i), fieldvec_bytes(p, cols));
                fieldvec_addmul(p, w, fieldmat_row(&A, i + 1), c, cols);
                for (uint32_t k = 0; g && k < cols; k++)
                    g = fieldvec_get(p, w, k) == (fieldmat_get(&A, i, k) + c * fieldmat_get(&A, i + 1, k)) % p;
                int zero = 1;
                for (uint32_t k = 0; k < cols; k++) zero = zero && !fieldvec_get(p, w, k);
                g = g && fieldvec_is_zero(p, w, cols) == zero;
            }
            ok(g, "p = %u, %u x %u: row + c·row and the zero test, entry by entry", p, rows, cols);

            /* a copy, an entry set, the first non-zero entry of each row against a scan */
            fieldmat C;
            g = fieldmat_copy(&C, &A) == 0 && fieldmat_equal(&C, &A);
            for (uint32_t i = 0; g && i < rows; i++) {
                int64_t first = -1;
                for (uint32_t k = 0; first < 0 && k < cols; k++)
                    if (fieldmat_get(&A, i, k)) first = k;
                g = fieldvec_first(p, fieldmat_row(&A, i), cols) == first;
                if (cols) {
                    uint32_t k = (uint32_t)(rng_next() % cols), v = (uint32_t)(rng_next() % (2 * p));
                    fieldvec_set(p, fieldmat_row(&C, i), k, v);
                    for (uint32_t j = 0; g && j < cols; j++)
                        g = fieldmat_get(&C, i, j) == (j == k ? v % p : fieldmat_get(&A, i, j));
                }
            }
            ok(g, "p = %u, %u x %u: copy, entry set and first non-zero entry, entry by entry", p, rows, cols);
            fieldmat_clear(&C);

            free(prod), free(x), free(y), free(z), free(w), free(u), free(pv), free(pw), free(pa), free(pb);
            fieldqi_clear(&qi);
            fieldmat_clear(&A), fieldmat_clear(&aug), fieldmat_clear(&K), fieldmat_clear(&M);
            f2mat_clear(&a2), f2mat_clear(&aug2), f2mat_clear(&k2), f2mat_clear(&c2);
            fpmat_clear(&ap), fpmat_clear(&augp), fpmat_clear(&kp), fpmat_clear(&cp);
        }
    fieldmat z = { 0 };
    fieldmat_clear(&z);
    ok(fieldmat_rows(&z) == 0 && fieldmat_init(&z, 4, 2, 2) != 0 && z.p == 0,
       "a zeroed fieldmat clears, has no rows, and p = 4 is refused");
    return done_testing();
}
