/* standard.c — the standard step (S_2 or a finite module) in pieces: plan, reduce, finish
 * (see standard.h). */
#include "stages/resolve/standard.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>
#include "stages/store/stagefile.h"
#include "stages/resolve/resolution_p.h"
#include "stages/resolve/standard_p.h"

int res_lookahead_at(const resolution *res, int s, deg_t t)
{
    int j = res->lookahead;
    if (j < 2 || s < 1 || res->prime != 2 || t - s < RES_LOOKAHEAD_MIN_STEM || t - j < s) return 0;
    if (res->unstable) return 0;                /* the multiply's columns are narrowed after it */
    if (!res_algebra_is_whole(res)) return 0;   /* over a profile's B the matrices stay small: tmf2 lost */
    if (res->keep_stages & 1u << STAGE_MATRIX) return 0;   /* the kept matrix is the whole D */
    return res_in_region(res, s, t - j) ? j : 0;
}

/* Rows of F_{s,t} from generators below `below`, columns of F_{s-1,t}'s below `cbelow`. */
static int plan_rows(step_ctx *c, deg_t below, deg_t cbelow, const uint32_t *sel, uint32_t nsel)
{
    resolution *res = c->res;
    int rc = below < c->ch.t ? rb_append_below(&c->build, &res->F[c->ch.s], &res->F[c->ch.s - 1], &res->A, c->ch.t, below)
                             : rb_append(&c->build, &res->F[c->ch.s], &res->F[c->ch.s - 1], &res->A, c->ch.t, sel, nsel);
    if (rc != 0 || rb_alloc(&c->build, (uint32_t)freemod_dim(&res->F[c->ch.s - 1], c->ch.t, cbelow)) != 0) {
        res_fail(res, "out of memory planning step (%d,%d)", c->ch.s, c->ch.t);
        return -1;
    }
    return 0;
}

int res_pre_plan(step_ctx *c)
{
    deg_t t = c->ch.t, j = res_lookahead_at(c->res, c->ch.s, t);
    return plan_rows(c, t - j + 1, t - j, NULL, 0);
}

int res_step_plan(step_ctx *c)
{
    resolution *res = c->res;
    uint32_t ncols;
    if (c->ch.s == 0) {    /* d_0: F_{0,t} (generators below t) → M_t; for S_2, D = 0 */
        c->build.nrows = (uint32_t)freemod_dim(&res->F[0], c->ch.t, c->ch.t);
        ncols = res_module_dim(res, c->ch.t);
    } else if ((c->pre = res_prereduced_take(res, c->ch.s, c->ch.t))) {
        /* the rows after the early reduction's: generators of degree > t-j */
        uint32_t all = (uint32_t)freemod_dim(&res->F[c->ch.s], c->ch.t, c->ch.t), n = all - c->pre->rows;
        uint32_t *sel = malloc(sizeof *sel * ((size_t)n + 1));
        if (!sel) goto oom;
        for (uint32_t k = 0; k < n; k++) sel[k] = c->pre->rows + k;
        int rc = plan_rows(c, c->ch.t, c->ch.t - 1, sel, n);
        free(sel);
        return rc;
    } else {
        if (rb_append(&c->build, &res->F[c->ch.s], &res->F[c->ch.s - 1], &res->A, c->ch.t, NULL, 0) != 0) goto oom;
        /* unstable: the products land in the blocks over all of A (res_narrow_columns) */
        ncols = (uint32_t)(res->unstable ? freemod_dim_wide : freemod_dim)(&res->F[c->ch.s - 1], c->ch.t, c->ch.t - 1);
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

/* D, the reduced matrix, the kernel and the jobs of a step of rows x cols, augmented (with the
 * identity) or D reduced alone. (D is widened into the reduced matrix in its own block,
 * f2mat_augment_in_place, so the two are not held at once: D's bytes are a margin the
 * prediction keeps.) */
static uint64_t footprint_of(int augmented, uint64_t rows, uint64_t cols)
{
    uint64_t seg = (cols + 63) & ~(uint64_t)63;
    uint64_t jobs = rows * sizeof(milnor_row_job);
    if (!augmented) return f2mat_bytes_for(rows, cols) + jobs;   /* D alone */
    return f2mat_bytes_for(rows, cols) + f2mat_bytes_for(rows, seg + rows) + f2mat_bytes_for(rows, rows) + jobs;
}

uint64_t res_step_footprint(const resolution *res, int s, deg_t t)
{
    uint64_t rows = freemod_dim(&res->F[s], t, t);
    uint64_t cols = s == 0 ? res_module_dim(res, t) : freemod_dim(&res->F[s - 1], t, t - 1);
    uint64_t wide = res->unstable && s > 0 ? f2mat_bytes_for(rows, freemod_dim_wide(&res->F[s - 1], t, t - 1)) : 0;
    return footprint_of(reduces_for_kernel(res, s, t, 0), rows, cols) + wide;
}

/* Unstable (docs/unstable.md): D as the multiply filled it has the columns of F_{s-1,t}'s blocks
 * over all of A (freemod_dim_wide); keeps those of excess <= the generator's degree
 * (freemod_narrow). 0, or -1 out of memory. */
static int narrow_columns(step_ctx *c)
{
    if (freemod_narrow(&c->res->F[c->ch.s - 1], c->ch.t, c->ch.t - 1, &c->build.D) != 0) return -1;
    c->build.ncols = c->build.D.cols;
    return 0;
}

/* Does the early reduction at (s, t) keep the identity: the step's (reduces_for_kernel), or,
 * outside the region, the stem-edge kernel job's, which is all kernel? */
static int pre_augmented(const resolution *res, int s, deg_t t)
{
    return reduces_for_kernel(res, s, t, !res_in_region(res, s, t));
}

uint64_t res_pre_footprint(const resolution *res, int s, deg_t t)
{
    deg_t j = res_lookahead_at(res, s, t);
    return footprint_of(pre_augmented(res, s, t), freemod_dim(&res->F[s], t, t - j + 1),
                        freemod_dim(&res->F[s - 1], t, t - j));
}

int res_pre_reduce(step_ctx *c)
{
    resolution *res = c->res;
    res_prereduced *p = calloc(1, sizeof *p);
    if (!p) goto oom;
    p->rows = c->build.nrows;
    p->cols = c->build.ncols;
    p->augmented = pre_augmented(res, c->ch.s, c->ch.t);
    p->m = c->build.D;          /* reduced in place, [D' | 0 | I] in D's own block */
    c->build.D = (f2mat){ 0 };
    if (p->augmented && f2mat_augment_in_place(&p->m) != 0) goto oom;
    int rank = res_rref(c, &p->m, NULL);
    if (rank < 0) goto oom;
    p->rank = (uint32_t)rank;
    memacct_move(MEM_INFLIGHT, MEM_KERNELS, (int64_t)f2mat_bytes(&p->m));
    c->res->pre[res_cell(res, c->ch.s, c->ch.t)] = p;
    return 0;
oom:
    res_prereduced_free(p);
    res_fail(res, "out of memory reducing the early rows of step (%d,%d)", c->ch.s, c->ch.t);
    return -1;
}

/* The RREF of the step's whole matrix from the early reduction c->pre and the rows planned
 * after it (c->build.D): the early RREF widened in place into m (f2mat_widen: D's columns
 * [0, cols) with the identity moved from its early segment start to the step's, its rows from
 * rank on zero where it has no identity), the new rows written below it, and the early rows'
 * RREF extended by them (f2mat_rref_extend; RREF is unique, so m is what reducing all at once
 * gives). Widening in place, not into a copy, keeps the step's peak at the one matrix. The
 * same layout as [D | 0 | I] (augmented) or D's nonzero rows; c->pre is freed. Returns the
 * rank, or -1 out of memory. */
static int reduce_extended(step_ctx *c, f2mat *m, int32_t **pivots)
{
    res_prereduced *p = c->pre;
    const f2mat *D = &c->build.D;
    uint32_t nnew = c->build.nrows, cols = c->build.ncols, seg = f2mat_segment_start(cols);
    uint32_t top = p->augmented ? p->rows : p->rank, rows = top + nnew;
    uint32_t pseg = f2mat_segment_start(p->cols);
    c->pre = NULL;
    *m = p->m;              /* m owns the early matrix now (in flight: res_prereduced_take) */
    p->m = (f2mat){ 0 };
    int augmented = p->augmented;
    res_prereduced_free(p);
    if (augmented ? f2mat_widen(m, rows, seg + rows, pseg, seg) : f2mat_widen(m, rows, cols, m->cols, m->cols))
        return -1;          /* m, as it is, freed by the caller */
    size_t nw = f2vec_words(cols);
    for (uint32_t k = 0; k < nnew; k++) {
        uint64_t *dst = f2mat_row(m, top + k);
        memcpy(dst, f2mat_row(D, k), nw * 8);
        if (m->cols > cols) f2vec_flip(dst, (uint64_t)seg + top + k);
    }
    f2mat_clear(&c->build.D);
    *pivots = malloc(sizeof **pivots * ((size_t)m->cols + 1));
    if (!*pivots) return -1;
    return f2mat_rref_extend(m, top, *pivots);
}

int res_step_reduce(step_ctx *c)
{
    resolution *res = c->res;
    int want_kernel = c->kernel_only || res_kernel_wanted(res, c->ch.s, c->ch.t);
    int keep_kernel = !c->kernel_only && (res->keep_stages & 1u << STAGE_KERNEL);
    f2mat aug = { 0 };
    int32_t *pivots = NULL;
    f2mat *kernel = NULL;
    if (res->unstable && c->ch.s > 0 && narrow_columns(c) != 0) goto oom;
    if (!c->kernel_only && res_keep_stage(res, STAGE_MATRIX, c->ch.s, c->ch.t, &c->build.D) != 0) return -1;
    c->is_image_pivot = calloc(c->build.ncols ? c->build.ncols : 1, 1);
    if (!c->is_image_pivot) goto oom;
    if (c->pre) {           /* the lookahead: the early rows are reduced already */
        if (c->pre->augmented != reduces_for_kernel(res, c->ch.s, c->ch.t, c->kernel_only)) {
            res_fail(res, "internal error: the early reduction at (%d,%d) has the wrong shape", c->ch.s, c->ch.t);
            return -1;
        }
        int rank = reduce_extended(c, &aug, &pivots);
        if (rank < 0) goto oom;
        for (uint32_t col = 0; col < c->build.ncols; col++)
            c->is_image_pivot[col] = pivots[col] >= 0;
        kernel = aug.cols > c->build.ncols ? calloc(1, sizeof *kernel) : NULL;
        if (aug.cols > c->build.ncols &&
            (!kernel || f2mat_kernel_from_rref(&aug, c->build.ncols, (uint32_t)rank, pivots, kernel) != 0))
            goto oom;
    } else if (c->build.nrows == 0) {
        if ((want_kernel || keep_kernel) && !(kernel = calloc(1, sizeof *kernel))) goto oom;
        if (kernel && f2mat_init(kernel, 0, 0) != 0) goto oom;
    } else if (!reduces_for_kernel(res, c->ch.s, c->ch.t, c->kernel_only)) {
        /* Only the image pivots: the pivot columns of RREF [D | 0 | I] within D are those of
         * RREF D, so D is reduced alone, without the identity (rows of d_1 under Nassau: at
         * stem 180 about 54k rows over 10.6k columns, a sixth of the augmented width). */
        pivots = malloc(sizeof *pivots * ((size_t)c->build.ncols + 1));
        if (!pivots) goto oom;
        if (res_rref(c, &c->build.D, pivots) < 0) goto oom;
        for (uint32_t col = 0; col < c->build.ncols; col++)
            c->is_image_pivot[col] = pivots[col] >= 0;
    } else {
        aug = c->build.D;       /* [D | 0 | I] in D's own block: D is not read after */
        c->build.D = (f2mat){ 0 };
        if (f2mat_augment_in_place(&aug) != 0) goto oom;
        pivots = malloc(sizeof *pivots * aug.cols);
        if (!pivots) goto oom;
        int rank = res_rref(c, &aug, pivots);
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

/* The kernel of d_{s-1} at (s-1, t), handed over in memory or computed now (res_compute_kernel),
 * moved into *K (the caller clears it). The slots keep the kernels per prime, an f2mat at p = 2
 * and an fpmat at odd p, each with its own memory account (res_kernel_slot, res_kernel_slot_p):
 * the branch here is on that storage only. 0, or -1 after res_fail. */
static int take_kernel(resolution *res, int s, deg_t t, fieldmat *K)
{
    memset(K, 0, sizeof *K);
    K->p = res->prime;
    if (res->odd) {
        fpmat **slot = res_kernel_slot_p(res, s, t);
        if (!*slot && res_compute_kernel(res, s, t) != 0) return -1;
        K->fp = **slot;
        memacct_add(MEM_KERNELS, -(int64_t)fpmat_bytes(&K->fp));   /* fpmat_init counts nothing itself */
        free(*slot);
        *slot = NULL;
    } else {
        f2mat **slot = res_kernel_slot(res, s, t);
        if (!*slot && res_compute_kernel(res, s, t) != 0) return -1;
        K->f2 = **slot;
        memacct_move(MEM_KERNELS, MEM_INFLIGHT, (int64_t)f2mat_bytes(&K->f2));
        free(*slot);
        *slot = NULL;
    }
    return 0;
}

/* A generator's image of n entries over F_p (freemod.h: 64 to a word at p = 2, a byte each at
 * odd p), zeroed, with a spare word past them. */
static uint64_t *new_image(uint32_t p, uint32_t n) { return calloc(fieldvec_bytes(p, n) / 8 + 2, 8); }

int res_step_finish(step_ctx *c)
{
    resolution *res = c->res;
    int s = c->ch.s;
    uint32_t p = res->prime;
    deg_t t = c->ch.t;
    fm_gen *gens = NULL;
    fieldmat K = { 0 };
    uint32_t n = 0, width;
    if (s == 0) {       /* extend d_0 to a surjection onto M_t: one generator per basis vector
                         * of M_t that is not an image pivot (for S_2: the unit at t = 0) */
        width = res_module_dim(res, t);
        if (!(gens = calloc(width ? width : 1, sizeof *gens))) goto oom;
        for (uint32_t j = 0; j < width; j++) {
            if (c->is_image_pivot[j]) continue;
            if (!(gens[n].img = new_image(p, width))) goto oom;
            gens[n].bits = width;
            fieldvec_set(p, gens[n].img, j, 1);
            n++;
        }
        return res_publish(res, s, t, n, gens, width);
    }
    /* the kernel vectors of d_{s-1} (RREF) whose pivot is no image pivot; a cofiber
     * (stages/resolve/cofiber.h): in degrees t0 .. t0 + top of M, row s0 hits a given subspace of the
     * kernel, not all of it */
    if (take_kernel(res, s - 1, t, &K) != 0) return -1;
    width = fieldmat_cols(&K);
    int k = res_cofiber_row(res, s, t);
    const fieldmat *src = k < 0 ? &K : &res->module->cofiber_rows[k];
    uint32_t rows = fieldmat_rows(src);
    if (fieldmat_cols(src) != width) {
        res_fail(res, "internal error: the cofiber's subspace at (%d,%d) has %u columns, the kernel %u", s, t,
                 fieldmat_cols(src), width);
        goto fail;
    }
    if (!(gens = calloc((size_t)rows + 1, sizeof *gens))) goto oom;
    for (uint32_t r = 0; r < rows; r++) {
        const void *row = fieldmat_row(src, r);
        int64_t pv = fieldvec_first(p, row, width);
        if (pv < 0 || ((uint64_t)pv < c->build.ncols && c->is_image_pivot[pv])) continue;
        if (!(gens[n].img = new_image(p, width))) goto oom;
        memcpy(gens[n].img, row, fieldvec_bytes(p, width));
        gens[n].bits = width;
        n++;
    }
    fieldmat_clear(&K);
    if (n < rows) {     /* the table stays as long as the run: no room for the kernel's other rows */
        fm_gen *fit = realloc(gens, (size_t)(n ? n : 1) * sizeof *gens);
        if (fit) gens = fit;
    }
    return res_publish(res, s, t, n, gens, width);
oom:
    res_fail(res, "out of memory finishing step (%d,%d)", s, t);
fail:
    for (uint32_t j = 0; gens && j < n; j++) free(gens[j].img);
    free(gens);
    fieldmat_clear(&K);
    return -1;
}

void res_step_free(step_ctx *c)
{
    res_step_free_p(c);     /* odd p's matrix and jobs (zeroed at p = 2) */
    res_prereduced_free(c->pre);
    rb_clear(&c->build);
    free(c->is_image_pivot);
    for (uint32_t k = 0; k < c->n_new; k++) free(c->new_gens ? c->new_gens[k].img : NULL);
    free(c->new_gens);
    memset(c, 0, sizeof *c);
}

int res_step_here(step_ctx *c, fieldmat *D)
{
    resolution *res = c->res;
    int odd = res->prime != 2;
    int rc = odd ? res_step_plan_p(c) : res_step_plan(c);
    if (rc != 0) return rc;
    if (odd) res_step_multiply_p(c);    /* the rows the plan left as jobs (none over a profile) */
    else rb_multiply(&c->build, &res->A, 0, c->build.nrows);
    if (D) {
        fieldmat built = { .p = res->prime };
        if (odd) built.fp = c->Dp;
        else built.f2 = c->build.D;
        if (fieldmat_copy(D, &built) != 0) return -1;
    }
    return odd ? res_step_reduce_p(c) : res_step_reduce(c);
}

int res_compute_kernel(resolution *res, int s, deg_t t)
{
    step_ctx c = { .ch = { .s = s, .t = t }, .res = res, .kernel_only = 1 };
    int rc = res_step_here(&c, NULL);
    res_step_free(&c);
    return rc;
}
