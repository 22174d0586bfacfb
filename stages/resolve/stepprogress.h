/* stepprogress.h — a resolution's steps on the progress line (stages/progress.h) of `extflow
 * resolve`.
 *
 * The ETA comes from estimated work, not from counts: late bidegrees cost far more than
 * early ones (at stem 100 the last tenth of the bidegrees takes most of the time). The work
 * of a step at (s, t) is taken to be the size of its matrix, rows x cols = dim F_{s,t} x
 * dim F_{s-1,t} (generators of degree < t). A finished step's size is known exactly; a
 * pending step's is estimated from the generators found so far, sum_u ngens(s, u) *
 * dim A_{t-u}, which the cheap low degrees fix early in a run. The ETA is the work left over
 * the rate of the steps computed in this run (stages/eta.h); a resumed run's loaded steps count
 * as done in the line's count and share of the work, at their exact size, never in the rate.
 * Calibration and measured error: docs/perf-log.md, "How good the ETA is"; tests/t-eta.c.
 *
 * EXTFLOW_STEP_LOG=FILE writes what the ETA sees, to record a run for tests/t-eta.c: a comment
 * line, "A k dim" for the algebra's dimension in each degree k <= max t, "L s t gens" for each
 * bidegree of the region loaded at the start, "P s t" for each one pending, then "S sec s t
 * gens" as each step finishes (seconds from the line's start).
 *
 * Layout: one byte per (s, t) of the region, s * (max_t + 1) + t, set when the step reports
 * (the pending steps are those in the region, not done before the run and not reported).
 */
#ifndef EXTFLOW_STEPPROGRESS_H
#define EXTFLOW_STEPPROGRESS_H
#include "stages/progress.h"
#include "stages/resolve/resolution.h"

/* Starts the clock and the line over the pending steps (in the region, not done), "bidegrees";
 * draws the line only if show_line. progress_finish ends it, progress_work gives its two
 * terms. */
void progress_start(resolution *res, int show_line);
/* After progress_start: once the run's stems <= FORECAST_AT are done, predict the rest
 * (stages/resolve/forecast.h) and, when it is more than the time limit (seconds from
 * cmd_start; 0: none) or the machine's memory (bytes) allow, say so in one line; strict: then
 * stop the run (progress_refuse). footprint: a step's predicted bytes (its kind's, from the
 * caller: the steps report here, so this file does not call them). Only for stem regions
 * reaching FORECAST_AT + 20. */
void progress_forecast_arm(const resolution *res, double time_limit, double cmd_start, uint64_t machine, int strict,
                           uint64_t (*footprint)(const resolution *res, int s, deg_t t));
/* A step (s, t) of the region has finished (called by the runtime). */
void progress_step_done(int s, deg_t t);
/* Estimated work of (s, t) from the generators published so far (racy reads are benign:
 * a generator count is written once, before anything that depends on it runs). */
double progress_estimate(const resolution *res, int s, deg_t t);

#endif
