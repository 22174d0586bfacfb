/* eta.h — the time a run has left, said only when it can be said honestly.
 *
 * Maths. A run's steps finish one by one; each has an estimated work w (for a resolution the
 * size of its matrix, stages/resolve/stepprogress.h). The run's throughput is measured twice
 * from the steps computed in this run (a loaded step costs nothing): over the whole run so far,
 * R_all = W(now) / now, and over its recent half, R_half = (W(now) - W(now / 2)) / (now / 2),
 * W(x) the work of the steps finished by time x. Early in a run the cheap first steps are
 * dominated by fixed costs and the first large ones are still in flight (at the start of a
 * resumed run every step is large), so the two disagree; later, when matrices outgrow the
 * caches, the rate falls, and R_half sees it first. The ETA is (work left) / min(R_all, R_half)
 * once both exist and agree within ETA_AGREE (within ETA_KEEP once an ETA has been given: a
 * machine whose load comes and goes should not blink between a number and none), at least
 * ETA_MIN_STEPS steps were computed and ETA_MIN_SECONDS passed; otherwise it is unknown and the
 * line says so. Taking the smaller rate
 * errs long rather than short: the work left is estimated from the generators known so far,
 * which falls short early (docs/perf-log.md, "How good the ETA is").
 *
 * Layout: the finish times (seconds from the start) and the cumulative work after each finish,
 * two growing arrays in finishing order (times never decrease).
 */
#ifndef EXTFLOW_ETA_H
#define EXTFLOW_ETA_H
#include <stddef.h>

#define ETA_AGREE 1.3           /* the two rates within this factor of each other, */
#define ETA_KEEP 2.0            /* or this one once an ETA has been given */
#define ETA_MIN_STEPS 8
#define ETA_MIN_SECONDS 1.0

typedef struct eta {
    double *t, *w;              /* finish time, work of the steps finished by then */
    size_t n, cap;
    int shown;                  /* an ETA was given: ETA_KEEP applies from now on */
} eta;

void eta_init(eta *e);          /* empty */
void eta_clear(eta *e);         /* frees; eta_init again to reuse */
/* A step computed in this run finished at time t (seconds from the start; t at least the
 * previous one's) with estimated work w. 0, or -1 out of memory (the estimate is then unknown). */
int eta_step(eta *e, double t, double w);
/* Seconds left at time now with the given estimated work left, or -1 when unknown (above). */
double eta_seconds(eta *e, double now, double work_left);

#endif
