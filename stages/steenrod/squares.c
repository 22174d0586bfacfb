/* squares.c — every Sq^k of some classes as chains: cup-i products on E (x) E (steenrod.h).
 *
 * Maths. A-linear maps Delta_i : F_k -> (E (x) E)_{k+i} are lifted on generators:
 * Delta_0(iota) = e0 (x) e0 and d Delta_i(z) = Delta_i(d z) + Delta_{i-1}(z) + tau Delta_{i-1}(z),
 * the right side a cycle of the exact square, so Delta_i(z) is its image under the quasi-inverse
 * of d (tensor.h). Sq^{s-i} x on a generator z of F_{2s-i} in degree 2t is the coefficient of
 * the single class of E_s (x) E_s in Delta_i(z).
 *
 * Layout. One sq_job per class: E, X = E (x) E and delta_at(j, k, T), an f2mat with a row per
 * generator of F_k in degree T over (E (x) E)_{j+k} in degree T. The classes' blocks lie side by
 * side along t in one chain set (base: a block's first degree); the chain at (0, 0) of a block
 * builds E and X, the chain at (m, T) the quasi-inverse on (m, T) and every Delta_j(k, T) with
 * j + k = m, after (m - 1, T) and (m, T - 1).
 */
#include "stages/steenrod/steenrod.h"
#include <stdlib.h>
#include <string.h>
#include "algebra/f2mat.h"
#include "stages/steenrod/tensor.h"
#include "stages/yoneda/fmbasis.h"
#include "stages/yoneda/yoneda.h"

/* One class: E and E (x) E, built by the chain at (0, 0) of its block, and the maps Delta_j(k, T)
 * (j <= imax, k + j <= 2s, T <= 2t), each filled by the chain at (k + j, T). */
typedef struct sq_job {
    struct sq_set *set;
    steenrod_result *r;
    int s;
    deg_t t;
    int want[64], imax;         /* Sq^{s-i} for want[i]; imax the largest such i, -1: no chain */
    deg_t base;                 /* the block's first degree in the chain set: (m, T) is (m, base + T) */
    yoneda E;
    tensor X;
    f2mat *delta;               /* delta_at(j, k, T) */
    size_t words;               /* of the longest vector over a space of E (x) E, + 1 */
    _Atomic int built;          /* E, X and delta exist */
} sq_job;

typedef struct sq_set {
    const resolution *res;
    sq_job *jobs;
    int n;
    fail_latch fail;            /* the first failure */
    _Atomic int oom;            /* it was memory */
} sq_set;

static f2mat *delta_at(const sq_job *J, int j, int k, deg_t T)
{
    return &J->delta[((size_t)j * (2 * (size_t)J->s + 1) + (size_t)k) * (2 * (size_t)J->t + 1) + (size_t)T];
}

static int sq_oom(sq_job *J)
{
    atomic_store(&J->set->oom, 1);
    latch_set(&J->set->fail, "out of memory computing the Steenrod squares of the class at (n=%d, s=%d)",
              (int)J->t - J->s, J->s);
    return -1;
}

/* The chain at (0, 0): E, E (x) E, the Yoneda line's dimensions, room for delta. 0 or -1. */
static int sq_build(sq_job *J)
{
    const resolution *res = J->set->res;
    int s = J->s;
    deg_t t = J->t;
    if (yoneda_build(&J->E, res, J->r->adem, J->r->n, s, J->r->coords, J->r->len) != 0 || tensor_init(&J->X, &J->E) != 0)
        return sq_oom(J);
    for (int k = 0; k <= s; k++) J->r->edim[k] = yoneda_total(&J->E, k);
    uint64_t maxdim = 0;
    for (int m = 0; m <= J->X.ms; m++)
        for (deg_t T = 0; T <= J->X.mt; T++) maxdim = tsp(&J->X, m, T)->dim > maxdim ? tsp(&J->X, m, T)->dim : maxdim;
    J->words = f2vec_words((uint32_t)maxdim) + 1;
    J->delta = calloc((size_t)(J->imax + 1) * (2 * (size_t)s + 1) * (2 * (size_t)t + 1), sizeof *J->delta);
    if (!J->delta) return sq_oom(J);
    atomic_store(&J->built, 1);
    return 0;
}

/* Delta_j(k, T) for every j + k = m (each reads Delta_{j-1}(k, T) and Delta_j(k - 1, u), u <= T:
 * chains at m - 1), through the quasi-inverse of d on (E (x) E)_m in degree T. 0 or -1. */
static int sq_cell(sq_job *J, int m, deg_t T)
{
    const resolution *res = J->set->res;
    tensor *X = &J->X;
    int s = J->s;
    deg_t t = J->t;
    uint64_t *rhs = NULL, *chk = NULL;
    int rc = 0;
    for (int j = 0; j <= J->imax && j <= m && rc == 0; j++) {
        int k = m - j, need = 0;   /* some wanted i >= j reads Delta_j here */
        for (int i = j; i <= J->imax && !need; i++)
            need = J->want[i] && k <= 2 * s - i && T >= k && T - k <= 2 * t - 2 * s + i;
        uint32_t ng = res_ngens(res, k, T);
        if (!need || !ng) continue;
        tspace *S = tsp(X, m, T);
        f2mat *Dl = delta_at(J, j, k, T);
        if (f2mat_init(Dl, ng, (uint32_t)S->dim) != 0) return sq_oom(J);
        if (m == 0) {   /* Delta_0(iota) = e0 (x) e0 */
            if (S->dim) f2mat_set(Dl, 0, 0, 1);
            continue;
        }
        const tspace *S1 = tsp(X, m - 1, T);
        size_t w1 = f2vec_words((uint32_t)S1->dim) + 1;
        if (!rhs && (!(rhs = malloc(J->words * sizeof *rhs)) || !(chk = malloc(J->words * sizeof *chk)))) {
            rc = sq_oom(J);
            break;
        }
        if (S->dim && tensor_qi(X, m, T) != 0) {
            rc = sq_oom(J);
            break;
        }
        for (uint32_t g = 0; g < ng && rc == 0; g++) {
            memset(rhs, 0, w1 * sizeof *rhs);
            if (j >= 1) {   /* Delta_{j-1}(z) + tau Delta_{j-1}(z) */
                const uint64_t *prev = f2mat_row(delta_at(J, j - 1, k, T), g);
                f2vec_xor(rhs, prev, f2vec_words((uint32_t)S1->dim));
                tensor_swap(X, m - 1, T, prev, rhs);
            }
            if (k >= 1) {   /* Delta_j(d z) */
                const fm_gen *z = &res->F[k].gens[T][g];
                for (uint32_t b = 0; b < z->bits; b++) {
                    deg_t u;
                    uint32_t gi, ri;
                    if (!f2vec_get(z->img, b) || fmb_locate(&res->F[k - 1], T, b, &u, &gi, &ri) != 0) continue;
                    const f2mat *P = delta_at(J, j, k - 1, u);
                    if (!P->rows) continue;
                    tensor_act(X, m - 1, u, f2mat_row(P, gi), &res->A.elts[T - u][ri], rhs);
                }
            }
            if (!S->dim) {
                if (!f2vec_is_zero(rhs, w1)) {
                    latch_set(&J->set->fail, "steenrod: Delta_%d at (s=%d, t=%d): a cycle of E(x)E where there is "
                              "nothing", j, k, (int)T);
                    rc = -1;
                }
                continue;
            }
            uint64_t *x = f2mat_row(Dl, g);
            f2qi_apply(&S->qi, rhs, x);
            memset(chk, 0, w1 * sizeof *chk);   /* d x must give back the right side */
            for (uint64_t p = 0; p < S->dim; p++)
                if (f2vec_get(x, p)) f2vec_xor(chk, f2mat_row(&S->D, (uint32_t)p), f2vec_words((uint32_t)S1->dim));
            if (memcmp(chk, rhs, f2vec_words((uint32_t)S1->dim) * sizeof *chk)) {
                latch_set(&J->set->fail, "steenrod: Delta_%d at (s=%d, t=%d): the right side is not a boundary of "
                          "E(x)E", j, k, (int)T);
                rc = -1;
            }
        }
    }
    free(rhs);
    free(chk);
    return rc;
}

static int sq_plan(chain *c)
{
    sq_job *J = c->owner;
    c->rows = CHAIN_NO_ROWS;
    if (latch_is_set(&J->set->fail)) return -1;
    deg_t T = c->t - J->base;
    if (c->s == 0 && T == 0 && sq_build(J) != 0) return -1;
    return sq_cell(J, c->s, T);
}
static int sq_finish(chain *c) { (void)c; return 0; }
/* (m, T) after (m - 1, T) and (m, T - 1) where they are chains (m <= T: below, (E (x) E)_m is
 * zero in degree T and Delta_j(k, T) has no column): through them, after every chain (m', T')
 * <= (m, T), (0, 0) (the build) included. */
static void sq_deps(void *owner, int m, deg_t tt, chain_deps *out)
{
    const sq_job *J = owner;
    out->n = 0;
    if (m >= 1) out->d[out->n++] = (chain_dep){ .family = CHAIN_LIFT, .s = m - 1, .t = tt };
    if (m <= tt - 1 - J->base) out->d[out->n++] = (chain_dep){ .family = CHAIN_LIFT, .s = m, .t = tt - 1 };
}
/* The build: E's subspaces, at most F's dimensions squared. A cell: the matrix of d on
 * (E (x) E)_m(T), its RREF and quasi-inverse, and two vectors. */
static uint64_t sq_footprint(void *owner, int m, deg_t tt)
{
    sq_job *J = owner;
    deg_t T = tt - J->base;
    if (!atomic_load(&J->built)) {
        uint64_t b = 4096;
        if (m == 0 && T == 0)
            for (int k = 0; k <= J->s; k++)
                for (deg_t u = 0; u <= J->t; u++) b += 2 * f2mat_bytes_for(fmb_dim(J->set->res, k, u), fmb_dim(J->set->res, k, u));
        return b;
    }
    uint64_t d = tsp(&J->X, m, T)->dim, d1 = m ? tsp(&J->X, m - 1, T)->dim : 0;
    return 4096 + 3 * f2mat_bytes_for(d + 64, d + d1 + 64) + 16 * J->words;
}
static const chain_kind sq_step_kind = { "steenrod", CHAIN_LIFT, sizeof(chain), sq_plan, NULL, sq_finish, NULL,
                                         sq_deps, sq_footprint, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };

/* The class whose block holds degree tt (the last with base <= tt: bases grow with the class),
 * when it has a chain at (m, tt - base): m <= 2s, m <= T <= 2t. */
static chain_at sq_at(void *owner, int m, deg_t tt, int layer)
{
    (void)layer;
    sq_set *S = owner;
    int lo = 0, hi = S->n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (S->jobs[mid].base <= tt) lo = mid;
        else hi = mid;
    }
    sq_job *J = &S->jobs[lo];
    deg_t T = tt - J->base;
    if (J->imax < 0 || T < m || T > 2 * J->t || m > 2 * J->s) return (chain_at){ NULL, NULL };
    return (chain_at){ &sq_step_kind, J };
}
static void sq_fail(void *owner, const char *msg) { latch_set(&((sq_set *)owner)->fail, "%s", msg); }
static int sq_failed(void *owner) { return latch_is_set(&((sq_set *)owner)->fail); }

int steenrod_compute(const resolution *res, steenrod_result *r, int nr, const chain_runner *runner, char *err,
                     size_t errlen)
{
    sq_set S = { .res = res, .n = nr, .jobs = calloc((size_t)nr + 1, sizeof *S.jobs) };
    if (!S.jobs) return -1;
    latch_init(&S.fail);
    int max_m = 0;
    deg_t next = 0;
    for (int c = 0; c < nr; c++) {
        sq_job *J = &S.jobs[c];
        int nonzero = 0;
        for (uint32_t j = 0; j < r[c].len; j++) nonzero |= r[c].coords[j];
        *J = (sq_job){ .set = &S, .r = &r[c], .s = r[c].s, .t = r[c].n + r[c].s, .imax = -1, .base = next };
        for (int i = 0; i <= J->s && i < 64; i++)
            if (r[c].known[J->s - i]) J->want[i] = 1, J->imax = i;
        if (!nonzero) J->imax = -1;     /* a zero class: zero squares */
        if (J->imax < 0) continue;
        next += 2 * J->t + 1;
        max_m = 2 * J->s > max_m ? 2 * J->s : max_m;
    }
    int rc = 0;
    if (next > 0) {
        chain_set set = { .owner = &S, .A = &res->A, .max_s = max_m, .max_t = next - 1, .at = sq_at,
                          .fail = sq_fail, .failed = sq_failed };
        rc = chain_run(runner, &set);
    }
    if (latch_is_set(&S.fail)) {
        snprintf(err, errlen, "%s", S.fail.msg);
        rc = atomic_load(&S.oom) ? -1 : -2;
    }
    for (int c = 0; c < nr; c++) {
        sq_job *J = &S.jobs[c];
        if (J->imax < 0) continue;
        for (int i = 0; rc == 0 && i <= J->imax; i++) {
            if (!J->want[i]) continue;
            const f2mat *P = delta_at(J, i, 2 * J->s - i, 2 * J->t);
            for (uint32_t g = 0; g < r[c].dim[J->s - i]; g++)
                r[c].val[J->s - i][g] = P->cols ? (uint8_t)f2mat_get(P, g, 0) : 0;
        }
        if (J->delta) {
            size_t ncell = (size_t)(J->imax + 1) * (2 * (size_t)J->s + 1) * (2 * (size_t)J->t + 1);
            for (size_t k = 0; k < ncell; k++) f2mat_clear(&J->delta[k]);
        }
        free(J->delta);
        tensor_clear(&J->X);
        yoneda_clear(&J->E);
    }
    free(S.jobs);
    latch_destroy(&S.fail);
    return rc;
}

int steenrod_class(const resolution *res, int n, int s, const uint8_t *coords, uint32_t len, steenrod_result *r,
                   char *err, size_t errlen)
{
    if (steenrod_result_init(r, res, n, s, coords, len) != 0) return -1;
    return steenrod_compute(res, r, 1, &chain_serial, err, errlen);
}

/* x_(n, s, i) + ... for the class's non-zero coordinates (sseq's basis string). */
static void print_class(FILE *f, const steenrod_result *r)
{
    int first = 1;
    for (uint32_t j = 0; j < r->len; j++)
        if (r->coords[j]) {
            fprintf(f, "%sx_(%d, %d, %u)", first ? "" : " + ", r->n, r->s, j);
            first = 0;
        }
}

int steenrod_write_sseq(FILE *f, const steenrod_result *r)
{
    fprintf(f, "Dimensions of Yoneda representative: 1");
    for (int k = 0; k <= r->s; k++) fprintf(f, " %llu", (unsigned long long)r->edim[k]);
    fputc('\n', f);
    for (int k = r->s; k >= 0; k--) {
        if (!r->known[k]) continue;
        fprintf(f, "Sq^%d ", k);
        print_class(f, r);
        fprintf(f, " = ");
        steenrod_print_vector(f, r->val[k], r->dim[k]);
        if (fputc('\n', f) == EOF) return -1;
    }
    return 0;
}

int steenrod_write_csv_rows(FILE *f, const steenrod_result *r, const char *name)
{
    for (int k = 0; k <= r->s; k++)
        for (uint32_t j = 0; r->known[k] && j < r->dim[k]; j++)
            if (r->val[k][j] &&
                fprintf(f, "%s,%d,%d,%d,%d,%d,%u\n", name, r->n, r->s, k, 2 * r->n + r->s - k, r->s + k, j) < 0)
                return -1;
    return 0;
}
