/* keepstages.c — `resolve --keep-stages matrix,kernel`: each step also saves the matrix it
 * reduces and that matrix's kernel, so a person can open them with `extflow inspect`, and
 * `extflow verify` recomputes them from the differentials and compares.
 *
 * What is saved at (s, t) (schema/stage-files.md, "Kinds"; docs/algorithms.md §8):
 *   standard step (and rows s = 0, 1 under Nassau): matrix = D, the matrix of d_s in degree
 *     t (rows: basis of F_{s,t} on generators of degree < t; columns: basis of F_{s-1,t} on
 *     generators of degree <= t-2); kernel = ker D in RREF.
 *   Nassau step (s >= 2): matrix = Z, the zero-signature block of d_{s-1} in degree t (rows:
 *     zero-signature basis elements of F_{s-1,t}, generators < t; columns: those of
 *     F_{s-2,t}, generators < t-1; both in basis order); kernel = ker Z in RREF.
 * Only steps this run computes save them; a stem-edge kernel job saves nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include "stages/stagefile.h"
#include "stages/step.h"

/* verify: compares m with the file at path (a missing file is not checked: keeping is
 * optional, and a resumed run keeps only what it computed). */
static void check_against_file(resolution *res, const char *path, int kind, int s, deg_t t,
                               const f2mat *m)
{
    stage_header h;
    f2mat f;
    char err[1100];
    int rc = stage_read(path, &h, &f, err, sizeof err);
    if (rc == STAGE_ENOENT) return;
    res->keep_checked++;
    if (rc == STAGE_OK) {
        char why[400];
        rc = stage_expect(&h, kind, s, t, res->module_id, res->algorithm, why, sizeof why);
        if (rc != STAGE_OK) snprintf(err, sizeof err, "%.400s: %s", path, why);
        else if (!f2mat_equal(&f, m)) {
            rc = STAGE_EMISMATCH;
            snprintf(err, sizeof err, "%.400s: differs from the %s recomputed from the differentials "
                     "(%u x %u, file %u x %u)", path, stage_kind_name(kind), m->rows, m->cols, f.rows, f.cols);
        }
        f2mat_clear(&f);
    }
    if (rc != STAGE_OK) {
        res->keep_bad++;
        snprintf(res->keep_error, sizeof res->keep_error, "%s", err);
    }
}

int res_queue_stage(resolution *res, int kind, int s, deg_t t, uint32_t aux, const f2mat *m)
{
    char path[4200], err[600];
    stage_header h = { .kind = (uint16_t)kind, .s = s, .t = t, .aux = aux, .algorithm = (uint16_t)res->algorithm,
                       .module_id = res->module_id };
    void *buf = NULL;
    size_t len = 0;
    int rc = stage_path(path, sizeof path, res->outdir, kind, s, t);
    if (rc != STAGE_OK) snprintf(err, sizeof err, "%.500s: output path too long", res->outdir);
    if (rc == STAGE_OK) rc = stage_encode(&h, m, &buf, &len, err, sizeof err);
    if (rc == STAGE_OK && stage_committer_add(res->committer, path, buf, len) != 0) {
        snprintf(err, sizeof err, "%.500s: out of memory queueing the file", path);
        rc = STAGE_ENOMEM;
    }
    if (rc != STAGE_OK) {
        res_fail(res, "%s", err);
        return -1;
    }
    return 0;
}

int res_keep_stage(resolution *res, int kind, int s, deg_t t, const f2mat *m)
{
    if (!(res->keep_stages & 1u << kind)) return 0;
    if (!res->keep_check) return res_queue_stage(res, kind, s, t, 0, m);
    char path[4200];
    if (stage_path(path, sizeof path, res->outdir, kind, s, t) == STAGE_OK) check_against_file(res, path, kind, s, t, m);
    return 0;
}

int res_check_kept(resolution *res, int s, deg_t t)
{
    if ((t - 1 >= s && !res_is_done(res, s, t - 1)) ||
        (s >= 1 && t - 1 >= s - 1 && !res_is_done(res, s - 1, t - 1))) {
        snprintf(res->keep_error, sizeof res->keep_error, "the differentials step (%d,%d) is computed "
                 "from are missing or bad", s, t);
        return -1;
    }
    const step_algo *algo = step_algo_for(res, s);
    step_ctx c = { .res = res, .s = s, .t = t, .algo = algo };
    int rc = algo->plan(&c);
    if (rc == 0) {
        rb_multiply(&c.build, &res->A, 0, c.build.nrows);
        rc = algo->reduce(&c) < 0 ? -1 : 0;    /* reduce keeps the matrix and its kernel */
    }
    f2mat **slot = res_kernel_slot(res, s, t);     /* handed over for (s+1, t): not needed here */
    if (*slot) {
        f2mat_clear(*slot);
        free(*slot);
        *slot = NULL;
    }
    step_free(&c);
    if (rc != 0) snprintf(res->keep_error, sizeof res->keep_error, "%s", res->error);
    return rc;
}
