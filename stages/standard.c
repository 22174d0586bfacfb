/* standard.c — the standard step (S_2 or a finite module) in pieces: plan, reduce, finish
 * (see standard.h). */
#include "stages/standard.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>
#include "stages/stagefile.h"

int res_step_plan(step_ctx *c)
{
    resolution *res = c->res;
    uint32_t ncols;
    if (c->ch.s == 0) {    /* d_0: F_{0,t} (generators below t) → M_t; for S_2, D = 0 */
        c->build.nrows = (uint32_t)freemod_dim(&res->F[0], c->ch.t, c->ch.t);
        ncols = res_module_dim(res, c->ch.t);
    } else {
        if (rb_append(&c->build, res, c->ch.s, c->ch.t, NULL, 0) != 0) goto oom;
        ncols = (uint32_t)freemod_dim(&res->F[c->ch.s - 1], c->ch.t, c->ch.t - 1);
    }
    if (rb_alloc(&c->build, ncols) != 0) goto oom;
    if (c->ch.s == 0 && res->module) res_module_rows(res, c->ch.t, &c->build.D);    /* no products */
    return 0;
oom:
    res_fail(res, "out of memory planning step (%d,%d)", c->ch.s, c->ch.t);
    return -1;
}

/* Does the step at (s, t) extract the kernel of d_s (for step (s+1, t), or --keep-stages
 * kernel)? If not, res_step_reduce reduces D alone. */
static int reduces_for_kernel(const resolution *res, int s, deg_t t, int kernel_only)
{
    return kernel_only || res_kernel_wanted(res, s, t) || (res->keep_stages & 1u << STAGE_KERNEL);
}

uint64_t res_step_footprint(const resolution *res, int s, deg_t t)
{
    uint64_t rows = freemod_dim(&res->F[s], t, t);
    uint64_t cols = s == 0 ? res_module_dim(res, t) : freemod_dim(&res->F[s - 1], t, t - 1);
    uint64_t seg = (cols + 63) & ~(uint64_t)63;
    uint64_t jobs = rows * sizeof(milnor_row_job);
    if (!reduces_for_kernel(res, s, t, 0)) return f2mat_bytes_for(rows, cols) + jobs;   /* D alone */
    return f2mat_bytes_for(rows, cols) + f2mat_bytes_for(rows, seg + rows) + f2mat_bytes_for(rows, rows) + jobs;
}

int res_step_reduce(step_ctx *c)
{
    resolution *res = c->res;
    int want_kernel = c->kernel_only || res_kernel_wanted(res, c->ch.s, c->ch.t);
    int keep_kernel = !c->kernel_only && (res->keep_stages & 1u << STAGE_KERNEL);
    f2mat aug = { 0 };
    int32_t *pivots = NULL;
    f2mat *kernel = NULL;
    if (!c->kernel_only && res_keep_stage(res, STAGE_MATRIX, c->ch.s, c->ch.t, &c->build.D) != 0) return -1;
    c->is_image_pivot = calloc(c->build.ncols ? c->build.ncols : 1, 1);
    if (!c->is_image_pivot) goto oom;
    if (c->build.nrows == 0) {
        if ((want_kernel || keep_kernel) && !(kernel = calloc(1, sizeof *kernel))) goto oom;
        if (kernel && f2mat_init(kernel, 0, 0) != 0) goto oom;
    } else if (!reduces_for_kernel(res, c->ch.s, c->ch.t, c->kernel_only)) {
        /* Only the image pivots: the pivot columns of RREF [D | 0 | I] within D are those of
         * RREF D, so D is reduced alone, without the identity (rows of d_1 under Nassau: at
         * stem 180 about 54k rows over 10.6k columns, a sixth of the augmented width). */
        pivots = malloc(sizeof *pivots * ((size_t)c->build.ncols + 1));
        if (!pivots) goto oom;
        if (f2mat_rref(&c->build.D, pivots) < 0) goto oom;
        for (uint32_t col = 0; col < c->build.ncols; col++)
            c->is_image_pivot[col] = pivots[col] >= 0;
    } else {
        if (f2mat_augment_identity(&aug, &c->build.D) != 0) goto oom;
        pivots = malloc(sizeof *pivots * aug.cols);
        if (!pivots) goto oom;
        int rank = f2mat_rref(&aug, pivots);
        if (rank < 0) goto oom;
        for (uint32_t col = 0; col < c->build.ncols; col++)
            c->is_image_pivot[col] = pivots[col] >= 0;
        kernel = calloc(1, sizeof *kernel);
        if (!kernel || f2mat_kernel_from_rref(&aug, c->build.ncols, (uint32_t)rank, pivots, kernel) != 0)
            goto oom;
    }
    f2mat_clear(&c->build.D);    /* the shape stays: finish reads build.ncols */
    f2mat_clear(&aug);
    free(pivots);
    int krc = keep_kernel ? res_keep_stage(res, STAGE_KERNEL, c->ch.s, c->ch.t, kernel) : 0;
    if (kernel && want_kernel && krc == 0) {
        memacct_move(MEM_INFLIGHT, MEM_KERNELS, (int64_t)f2mat_bytes(kernel));
        *res_kernel_slot(res, c->ch.s, c->ch.t) = kernel;
    }
    else if (kernel) { f2mat_clear(kernel); free(kernel); }
    return krc;
oom:
    f2mat_clear(&aug);
    free(pivots);
    if (kernel) { f2mat_clear(kernel); free(kernel); }
    res_fail(res, "out of memory reducing step (%d,%d)", c->ch.s, c->ch.t);
    return -1;
}

/* The kernel of d_{s-1} at (s-1, t): handed over in memory, or computed now. */
static f2mat *take_kernel(resolution *res, int s, deg_t t)
{
    f2mat **slot = res_kernel_slot(res, s, t);
    if (!*slot && res_compute_kernel(res, s, t) != 0) return NULL;
    f2mat *k = *slot;
    *slot = NULL;
    memacct_move(MEM_KERNELS, MEM_INFLIGHT, (int64_t)f2mat_bytes(k));
    return k;
}

int res_step_finish(step_ctx *c)
{
    resolution *res = c->res;
    int s = c->ch.s;
    deg_t t = c->ch.t;
    fm_gen *gens = NULL;
    f2mat *K = NULL;
    uint32_t n = 0, width;
    if (s == 0) {       /* extend d_0 to a surjection onto M_t: one generator per basis vector
                         * of M_t that is not an image pivot (for S_2: the unit at t = 0) */
        width = res_module_dim(res, t);
        gens = calloc(width ? width : 1, sizeof *gens);
        if (!gens) goto oom;
        for (uint32_t j = 0; j < width; j++) {
            if (c->is_image_pivot[j]) continue;
            if (!(gens[n].img = calloc(f2vec_words(width) + 1, 8))) goto oom;
            gens[n].bits = width;
            f2vec_flip(gens[n].img, j);
            n++;
        }
    } else {
        K = take_kernel(res, s - 1, t);
        if (!K) return -1;
        width = K->cols;
        gens = calloc(K->rows + 1, sizeof *gens);   /* a cofiber's subspace is inside the kernel */
        if (!gens) goto oom;
        /* a cofiber (stages/cofiber.h): in degrees t0 .. t0 + top of M, row s0 hits a given
         * subspace of the kernel, not all of it */
        int k = res_cofiber_row(res, s, t);
        const f2mat *src = k >= 0 ? &res->module->cofiber_rows[k] : K;
        if (src->cols != K->cols) {
            f2mat_clear(K);
            free(K);
            free(gens);
            res_fail(res, "internal error: the cofiber's subspace at (%d,%d) has %u columns, the kernel %u", s, t,
                     src->cols, width);
            return -1;
        }
        for (uint32_t r = 0; r < src->rows; r++) {
            int p = (int)f2vec_first_bit(f2mat_row(src, r), src->cols);
            if (p < 0 || ((uint32_t)p < c->build.ncols && c->is_image_pivot[p])) continue;
            size_t words = f2vec_words(src->cols);
            gens[n].bits = src->cols;
            gens[n].img = malloc(words * 8 + 8);
            if (!gens[n].img) goto oom;
            memcpy(gens[n].img, f2mat_row(src, r), words * 8);
            n++;
        }
        f2mat_clear(K);
        free(K);
        K = NULL;
    }
    return res_publish(res, s, t, n, gens, width);
oom:
    for (uint32_t k = 0; gens && k < n; k++) free(gens[k].img);
    free(gens);
    if (K) {
        f2mat_clear(K);
        free(K);
    }
    res_fail(res, "out of memory finishing step (%d,%d)", s, t);
    return -1;
}

void res_step_free(step_ctx *c)
{
    rb_clear(&c->build);
    free(c->is_image_pivot);
    for (uint32_t k = 0; k < c->n_new; k++) free(c->new_gens ? c->new_gens[k].img : NULL);
    free(c->new_gens);
    memset(c, 0, sizeof *c);
}

int res_compute_kernel(resolution *res, int s, deg_t t)
{
    step_ctx c = { .ch = { .s = s, .t = t }, .res = res, .kernel_only = 1 };
    int rc = res_step_plan(&c);
    if (rc == 0) {
        rb_multiply(&c.build, &res->A, 0, c.build.nrows);
        rc = res_step_reduce(&c);
    }
    res_step_free(&c);
    return rc;
}
