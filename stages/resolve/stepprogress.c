/* stepprogress.c — a resolution's steps on the progress line (see stepprogress.h). */
#include "stages/resolve/stepprogress.h"
#include "algebra/clock.h"
#include <stdio.h>
#include <stdlib.h>

static uint8_t *finished;       /* per (s, t) of the resolution being counted, set when its step reports */
static FILE *step_log;          /* EXTFLOW_STEP_LOG: every step's finish (stepprogress.h) */
static double log_start;

double progress_estimate(const resolution *res, int s, deg_t t)
{
    double rows = (double)freemod_dim(&res->F[s], t, t);
    double cols = s ? (double)freemod_dim(&res->F[s - 1], t, t) : 1;
    return rows * cols + 1;     /* + 1: an empty step still costs its tasks */
}

/* The line's left(ctx): the estimated work of the pending steps (under the line's lock). */
static double work_left(void *ctx)
{
    const resolution *res = ctx;
    double left = 0;
    for (deg_t t = 0; finished && t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) {
            size_t cell = (size_t)s * (res->max_t + 1) + t;
            if (res_in_region(res, s, t) && !res_is_done(res, s, t) && !finished[cell])
                left += progress_estimate(res, s, t);
        }
    return left;
}

static void end(void *ctx)
{
    (void)ctx;
    free(finished);
    finished = NULL;
    if (step_log) fclose(step_log);
    step_log = NULL;
}

/* EXTFLOW_STEP_LOG=FILE: the algebra's dims, the loaded and the pending bidegrees, then one
 * line per finished step (stepprogress.h gives the format). */
static void log_begin(const resolution *res)
{
    const char *path = getenv("EXTFLOW_STEP_LOG");
    if (!path || !*path || !(step_log = fopen(path, "w"))) return;
    log_start = clock_now();
    fprintf(step_log, "# extflow step log: max_s %d, max_t %d\n", res->max_s, (int)res->max_t);
    for (deg_t k = 0; k <= res->max_t; k++) fprintf(step_log, "A %d %u\n", (int)k, res->F[0].dim[k]);
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++)
            if (res_in_region(res, s, t))
                fprintf(step_log, res_is_done(res, s, t) ? "L %d %d %u\n" : "P %d %d\n", s, (int)t, res_ngens(res, s, t));
}

void progress_start(resolution *res, int show_line)
{
    long total = 0, loaded = 0;
    double loaded_work = 0;
    uint8_t *f = calloc((size_t)(res->max_s + 1) * (res->max_t + 1), 1);
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) {
            if (!res_in_region(res, s, t)) continue;
            if (!*res_done(res, s, t)) total++;
            else loaded++, loaded_work += progress_estimate(res, s, t);
        }
    /* without the bytes (out of memory) the line is not drawn: it is optional, the run is not */
    progress_start_counted(total, loaded, loaded_work, "bidegrees", work_left, end, res, show_line && f);   /* ends a line before */
    finished = f;
    log_begin(res);
}

typedef struct step_at { int s; deg_t t; } step_at;

/* The line's mark(ctx, arg): the step's exact work, now that F_s below t is known. */
static double mark(void *ctx, const void *arg)
{
    const resolution *res = ctx;
    const step_at *a = arg;
    if (finished) finished[(size_t)a->s * (res->max_t + 1) + a->t] = 1;
    if (step_log) fprintf(step_log, "S %.4f %d %d %u\n", clock_now() - log_start, a->s, (int)a->t, res_ngens(res, a->s, a->t));
    return progress_estimate(res, a->s, a->t);
}

void progress_step_done(int s, deg_t t)
{
    step_at a = { s, t };
    progress_counted(mark, &a);
}
