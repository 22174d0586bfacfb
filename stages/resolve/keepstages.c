/* keepstages.c — `resolve --keep-stages` and verify's check of what it kept (see keepstages.h). */
#include <stdio.h>
#include <stdlib.h>
#include "stages/resolve/keepstages.h"
#include "stages/store/stagefile.h"
#include "stages/resolve/step.h"

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

/* The hook of a resolve (res->keep): the file of that kind at (s, t), queued to the committer. */
static int save_kept(resolution *res, int kind, int s, deg_t t, const f2mat *m)
{
    return res_queue_stage(res, kind, s, t, 0, m);
}

/* The hook of verify: compares m with the file already there. */
static int compare_kept(resolution *res, int kind, int s, deg_t t, const f2mat *m)
{
    char path[4200];
    if (stage_path(path, sizeof path, res->outdir, kind, s, t) == STAGE_OK) check_against_file(res, path, kind, s, t, m);
    return 0;
}

void keep_stages_save(resolution *res, unsigned kinds)
{
    res->keep_stages = kinds;
    res->keep = kinds ? save_kept : NULL;
}

/* Is every bidegree of the rows the step (algo, s, t) reads (chain_kind.reads) loaded? */
static int reads_loaded(resolution *res, const chain_kind *algo, int s, deg_t t)
{
    chain_reads reads;
    algo->reads(res, s, t, &reads);
    for (int k = 0; k < reads.n; k++)
        for (deg_t u = reads.r[k].s; u <= reads.r[k].t; u++)
            if (res_in_region(res, reads.r[k].s, u) && !res_is_done(res, reads.r[k].s, u)) return 0;
    return 1;
}

int keep_stages_check(resolution *res, int kind, int s, deg_t t)
{
    const chain_kind *algo = step_algo_for(res, s, t);
    if (!reads_loaded(res, algo, s, t)) {
        snprintf(res->keep_error, sizeof res->keep_error, "the differentials step (%d,%d) is computed "
                 "from are missing or bad", s, t);
        return -1;
    }
    res->keep_stages = 1u << kind;
    res->keep = compare_kept;
    step_ctx c = { 0 };
    step_init(&c, res, algo, s, t);
    int rc = algo->plan(&c.ch);
    if (rc == 0) {
        rb_multiply(&c.build, &res->A, 0, c.build.nrows);
        rc = algo->reduce(&c.ch) < 0 ? -1 : 0;    /* reduce keeps the matrix and its kernel */
    }
    f2mat **slot = res_kernel_slot(res, s, t);     /* handed over for (s+1, t): not needed here */
    if (*slot) {
        f2mat_clear(*slot);
        free(*slot);
        *slot = NULL;
    }
    step_free(&c);
    res->keep_stages = 0;
    res->keep = NULL;
    if (rc != 0) snprintf(res->keep_error, sizeof res->keep_error, "%s", res->error);
    return rc;
}
