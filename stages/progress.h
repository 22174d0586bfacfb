/* progress.h — the progress line of a run and its closing summary, for whatever counts its
 * work: a resolution's steps (stages/resolve/stepprogress.h), verify's checks, a set of lift
 * steps (the runner's chain_policy.progress_noun).
 *
 * The line is "extflow: DONE/TOTAL NOUN, P% of the work, S s, ETA": DONE items of TOTAL (a
 * resumed run's loaded items counted as done), P the share of the estimated work done (work
 * done / (work done + work left)), ETA the time left from the rate of the items done since the
 * start (stages/eta.h: "ETA unknown" until it can be said honestly). Work left is either the
 * total given at the start less what was done, or what the counter's left(ctx) says at each
 * redraw (a resolution re-estimates its pending steps as generators are found). At most 79 columns (clipped, never wrapped), redrawn
 * with '\r' at most four times a second, only when asked (stderr a terminal). Thread-safe:
 * items finish on StarPU's workers. One line at a time (module-level state).
 */
#ifndef EXTFLOW_PROGRESS_LINE_H
#define EXTFLOW_PROGRESS_LINE_H
#include <stddef.h>

/* Starts the clock and the line over total items of the given estimated work in all, named
 * by noun ("bidegrees checked"); progress_item_done counts one of them. */
void progress_start_items(long total, double work, const char *noun, int show_line);
void progress_item_done(double work);
/* The same over total items whose work left is left(ctx), asked under the line's lock at each
 * redraw, beside `before` items done before (of work work_before: in the count and the share,
 * not in the rate); progress_counted(mark, arg) counts one item, of the work mark(ctx, arg)
 * returns (also under the lock, so that mark may record it for left); end(ctx) runs when the
 * line ends or another starts. */
void progress_start_counted(long total, long before, double work_before, const char *noun,
                            double (*left)(void *ctx), void (*end)(void *ctx), void *ctx, int show_line);
void progress_counted(double (*mark)(void *ctx, const void *arg), const void *arg);
/* The work done and the work left of a counted line (0 and 0 for none; call before
 * progress_finish). */
void progress_work(double *done, double *left);
/* Clears the line; returns the seconds since it started. */
double progress_finish(void);
/* A stop asked by a signal (SIGINT, SIGTERM: tools/extflow.c's handler). progress_stop records
 * it: while a runner runs (admission_active, runtime/admission.h) no step starts any more, as at
 * --time-limit, those running finish and their files are flushed, and the line says so at once
 * and on every redraw. progress_clear_line erases a line on screen, for a handler that exits
 * at once. All three are async-signal-safe. */
void progress_stop(int sig);
int progress_stop_signal(void);         /* the signal, or 0 */
/* The run refuses to go on (resolve --strict, stages/resolve/forecast.h): from now on no step
 * starts, as at a stop asked by a signal; the command then exits 2. */
void progress_refuse(void);
int progress_refused(void);
/* One line of text on stderr, the progress line erased first (it comes back at the next
 * redraw); for a counter's mark(ctx, arg), which runs with the line's lock held. */
void progress_say_locked(const char *text);
/* The rate of the items done since the start in work a second, once the ETA can be said
 * (stages/eta.h), else -1; with the line's lock held, like progress_say_locked. */
double progress_rate_locked(void);
void progress_clear_line(void);

#endif
