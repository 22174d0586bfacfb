/* progress.h — the progress line of `extflow resolve` (and of verify's checks) and its closing summary.
 *
 * The ETA comes from estimated work, not from counts: late bidegrees cost far more than
 * early ones (at stem 100 the last tenth of the bidegrees takes most of the time). The work
 * of a step at (s, t) is taken to be the size of its matrix, rows x cols = dim F_{s,t} x
 * dim F_{s-1,t} (generators of degree < t). A finished step's size is known exactly; a
 * pending step's is estimated from the generators found so far, sum_u ngens(s, u) *
 * dim A_{t-u}, which the cheap low degrees fix early in a run. ETA = elapsed x (estimated
 * work left) / (work done). Calibration and measured error: docs/perf.md.
 *
 * The line is at most 79 columns (clipped, never wrapped) and is redrawn with '\r' at most
 * four times a second, only when stderr is a terminal. Thread-safe: steps finish on StarPU's
 * workers. One run at a time (module-level state).
 */
#ifndef EXTFLOW_PROGRESS_H
#define EXTFLOW_PROGRESS_H
#include "stages/resolve/resolution.h"

/* Starts the clock and records the pending steps (in the region, not done); draws the line
 * only if show_line. */
void progress_start(resolution *res, int show_line);
/* A step (s, t) of the region has finished (called by the runtime). */
void progress_step_done(int s, deg_t t);
/* The estimated work of the steps finished in this run and of those still pending (the
 * ETA's two terms; call before progress_finish). */
void progress_work(double *done, double *left);
/* The same line for work that is not a resolution's steps (verify's checks): total items of
 * the given estimated work in all, named by noun ("bidegrees checked"); progress_item_done
 * counts one of them. Same clock, clipping, rate and terminal rule; progress_finish ends it. */
void progress_start_items(long total, double work, const char *noun, int show_line);
void progress_item_done(double work);
/* Clears the line; returns the seconds since progress_start. */
double progress_finish(void);
/* A stop asked by a signal (SIGINT, SIGTERM: tools/extflow.c's handler). progress_stop records
 * it: while a runner runs (admission_active, runtime/admission.h) no step starts any more, as at
 * --time-limit, those running finish and their files are flushed, and the line says so at once
 * and on every redraw. progress_clear_line erases a line on screen, for a handler that exits
 * at once. All three are async-signal-safe. */
void progress_stop(int sig);
int progress_stop_signal(void);         /* the signal, or 0 */
void progress_clear_line(void);

/* Estimated work of (s, t) from the generators published so far (racy reads are benign:
 * a generator count is written once, before anything that depends on it runs). */
double progress_estimate(const resolution *res, int s, deg_t t);

#endif
