/* stepprogress.c — a resolution's steps on the progress line (see stepprogress.h). */
#include "stages/resolve/stepprogress.h"
#include "algebra/clock.h"
#include "stages/resolve/forecast.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

static uint8_t *finished;       /* per (s, t) of the resolution being counted, set when its step reports */
static FILE *step_log;          /* EXTFLOW_STEP_LOG: every step's finish (stepprogress.h) */
static double log_start;
static double loaded_work;      /* the exact work of the bidegrees loaded at the start */

/* The forecast (forecast.h): armed by progress_forecast_arm, said once. */
static struct {
    int armed, strict, through;     /* every stem <= through has its lower part done */
    int hi;                         /* the fit's last stem: FORECAST_AT, or a resumed run's last loaded one */
    int fitted;                     /* f holds the fit */
    forecast f;
    double low, done, fitted_at;    /* the work of stems <= FORECAST_AT; of the steps computed */
    int left[FORECAST_AT + 1];      /* bidegrees of each stem's lower part not done yet */
    double time_limit, cmd_start, start;
    uint64_t machine;
    uint64_t (*footprint)(const resolution *res, int s, deg_t t);
} fc;

static int lower(int s, deg_t n) { return s <= n / 2 + 3; }

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
    if (!path || !*path) return;
    if (!(step_log = fopen(path, "w"))) {     /* the run goes on; the log asked for is not there */
        fprintf(stderr, "extflow: EXTFLOW_STEP_LOG: cannot write %s: %s (no step log)\n", path, strerror(errno));
        return;
    }
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
    double lw = 0;
    uint8_t *f = calloc((size_t)(res->max_s + 1) * (res->max_t + 1), 1);
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) {
            if (!res_in_region(res, s, t)) continue;
            if (!*res_done(res, s, t)) total++;
            else loaded++, lw += progress_estimate(res, s, t);
        }
    /* without the bytes (out of memory) the line is not drawn: it is optional, the run is not */
    progress_start_counted(total, loaded, lw, "bidegrees", work_left, end, res, show_line && f);   /* ends a line before */
    loaded_work = lw;
    fc.armed = 0;
    finished = f;
    log_begin(res);
}

typedef struct step_at { int s; deg_t t; } step_at;

/* Fits the forecast over stems fc.hi - (FORECAST_AT - FORECAST_FROM) .. fc.hi once their
 * lower parts are done (one pass over the region). */
static void forecast_fit_run(const resolution *res)
{
    int hi = fc.hi, lo = hi - (FORECAST_AT - FORECAST_FROM);
    double *W = calloc((size_t)hi + 1, sizeof *W), *M = calloc((size_t)hi + 1, sizeof *M);
    fc.low = 0;
    for (deg_t t = 0; W && M && t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) {
            deg_t n = t - s;
            if (n > hi || !res_in_region(res, s, t)) continue;
            double w = progress_estimate(res, s, t);
            fc.low += w;
            if (n < lo || !lower(s, n)) continue;
            W[n] += w;
            double m = (double)fc.footprint(res, s, t);
            if (m > M[n]) M[n] = m;
        }
    /* (out of memory: no forecast, which is optional) */
    fc.fitted = W && M && forecast_fit(W, M, lo, hi, res->stem, &fc.f) == 0;
    free(W), free(M);
    if (!fc.fitted) fc.armed = 0;
    fc.fitted_at = clock_now();
}

/* Says the forecast when it is more than the run has, once the line's rate is honest (or
 * FORECAST_WAIT seconds after the fit without one: then with no time). */
static void forecast_say(const resolution *res)
{
    double rate = progress_rate_locked();
    if (rate <= 0 && clock_now() - fc.fitted_at < FORECAST_WAIT) return;
    fc.armed = 0;
    double left = fc.low + fc.f.work_after - (loaded_work + fc.done), secs = rate > 0 && left > 0 ? left / rate : -1;
    int over_time = fc.time_limit > 0 && secs >= 0 && clock_now() - fc.cmd_start + secs > fc.time_limit;
    int over_memory = fc.f.largest > (double)fc.machine;
    if (!over_time && !over_memory) return;
    char when[48] = "", line[400];
    if (secs < 0) snprintf(when, sizeof when, "no time estimate yet");
    else if (secs < 5400) snprintf(when, sizeof when, "about %.0f s more", secs);
    else if (secs < 3 * 86400) snprintf(when, sizeof when, "about %.1f h more", secs / 3600);
    else if (secs < 3 * 365.25 * 86400) snprintf(when, sizeof when, "about %.0f days more", secs / 86400);
    else snprintf(when, sizeof when, "about %.2g years more", secs / (365.25 * 86400));
    snprintf(line, sizeof line, "extflow: stem %d predicted from stems %d-%d (x%.1f per 10 stems there; it errs high): %s, "
             "%.3g GB for its largest step: more than %s%s%s; %s", res->stem + (int)res->shift,
             fc.hi - (FORECAST_AT - FORECAST_FROM) + (int)res->shift, fc.hi + (int)res->shift, fc.f.growth10, when,
             fc.f.largest / 1e9,
             over_time ? "the time limit" : "", over_time && over_memory ? " and " : "",
             over_memory ? "this machine's memory" : "",
             fc.strict ? "stopping (--strict): running steps finish, finished bidegrees are kept"
                       : "going on (--strict stops here)");
    progress_say_locked(line);
    if (fc.strict) progress_refuse();
}

/* A step (s, t) of work w finished: count it for the forecast, fit once the stems are done,
 * then say it when it can. */
static void forecast_count(const resolution *res, int s, deg_t t, double w)
{
    deg_t n = t - s;
    fc.done += w;
    if (n <= FORECAST_AT && lower(s, n)) fc.left[n]--;
    while (fc.through < FORECAST_AT && fc.left[fc.through + 1] <= 0) fc.through++;
    if (fc.through >= FORECAST_AT && !fc.fitted) forecast_fit_run(res);
    if (fc.armed && fc.fitted) forecast_say(res);
}

void progress_forecast_arm(const resolution *res, double time_limit, double cmd_start, uint64_t machine, int strict,
                           uint64_t (*footprint)(const resolution *res, int s, deg_t t))
{
    fc.footprint = footprint;
    fc.armed = 0;
    if (res->region != REGION_STEM || res->stem < FORECAST_AT + 20 || !finished) return;
    fc.strict = strict, fc.time_limit = time_limit, fc.cmd_start = cmd_start, fc.machine = machine;
    fc.start = clock_now();
    fc.through = -1;
    fc.fitted = 0;
    fc.done = 0;
    for (int n = 0; n <= FORECAST_AT; n++) {
        fc.left[n] = 0;
        for (int s = 0; s <= res->max_s; s++)
            fc.left[n] += lower(s, n) && res_in_region(res, s, s + n) && !res_is_done(res, s, s + n);
    }
    fc.armed = 1;
    /* a resumed run whose lower parts are loaded beyond FORECAST_AT fits its last loaded stems
     * now: those data are the run's own, and the nearer the fit to the top stem the less its
     * error (from stems 30-50, the work of every later stem counted about x1.8, loaded or not,
     * so the time left of a run resumed at stem 60 of 100 came out above a fresh run's) */
    int loaded = -1;
    for (int n = 0, full = 1; full && n < res->stem; n++) {
        for (int s = 0; s <= res->max_s && full; s++)
            full = !lower(s, n) || !res_in_region(res, s, s + n) || res_is_done(res, s, s + n);
        if (full) loaded = n;
    }
    fc.hi = loaded > FORECAST_AT ? loaded : FORECAST_AT;
    if (loaded > FORECAST_AT) {
        fc.through = FORECAST_AT;
        forecast_fit_run(res);
    }
}

/* The line's mark(ctx, arg): the step's exact work, now that F_s below t is known. */
static double mark(void *ctx, const void *arg)
{
    const resolution *res = ctx;
    const step_at *a = arg;
    if (finished) finished[(size_t)a->s * (res->max_t + 1) + a->t] = 1;
    if (step_log) fprintf(step_log, "S %.4f %d %d %u\n", clock_now() - log_start, a->s, (int)a->t, res_ngens(res, a->s, a->t));
    double w = progress_estimate(res, a->s, a->t);
    if (fc.armed) forecast_count(res, a->s, a->t, w);
    return w;
}

void progress_step_done(int s, deg_t t)
{
    step_at a = { s, t };
    progress_counted(mark, &a);
}
