/* forecast.h — what the rest of a resolution through stem N will cost, said once, early, when
 * it is more than the run has (issue 43 item 5: a time limit, the machine's memory).
 *
 * Maths. Per stem n, W(n) is the work of the bidegrees (s, s + n) of the region with
 * s <= n/2 + 3 (a step's work as on the progress line, rows x cols of its matrix; above that
 * line the sphere's Ext is the h0 tower alone and the matrices are small), and M(n) the largest
 * predicted footprint of one of those steps (the memory model the budget admits steps by,
 * stages/chain.h). Both grow like exp(a + b sqrt(n)) in the stem: over the sphere's stems 20 to
 * 110, log W(n) - 1.9 sqrt(n) stays within a few percent of a constant (docs/perf-log.md), the
 * growth of the number of Milnor basis elements. Once every stem up to FORECAST_AT is done (the
 * run's lowest degrees come first, so a few seconds into a large run), a and b are fitted by
 * least squares of log W and of log M on sqrt(n) over stems FORECAST_FROM..FORECAST_AT, and
 * extrapolated: the work of stems FORECAST_AT + 1..N and the largest step at stem N. A resumed
 * run whose lower parts are loaded through a stem L > FORECAST_AT fits the 21 stems L - 20..L
 * at its start instead, and extrapolates from L: fitted on stems 30-50 again, its prediction
 * of every later stem, loaded ones included, kept the fit's excess (x1.8), which grew against
 * what was left as the run went on (stem 100 stopped and resumed three times: 85, 76, then 90 s
 * more, when 8 s were left). The time
 * left is that work less what is done, over the progress line's rate once it is honest
 * (stages/eta.h; without one FORECAST_WAIT seconds after the fit, no time is said). The fit
 * runs high: from stems 30-50 it predicts 1.8 times the real work of the sphere's stems <= 110
 * (from 20-40, 1.7-2.4 times at stems 90 and 110: b falls slowly with n), and the early rate
 * is low, so what it says is an upper estimate.
 *
 * forecast_fit is the arithmetic on the per-stem arrays, testable alone; stepprogress.c feeds
 * it the run's stems and prints the line (stepprogress.h).
 */
#ifndef EXTFLOW_FORECAST_H
#define EXTFLOW_FORECAST_H

#define FORECAST_FROM 30
#define FORECAST_AT 50          /* forecast when stems <= this are done, for regions to stem >= 70 */
#define FORECAST_WAIT 30.0      /* seconds the forecast waits after its fit for an honest rate */

typedef struct forecast {
    double work_after;          /* predicted work of stems hi + 1 .. n_top */
    double largest;             /* predicted M(n_top) */
    double growth10;            /* W(hi + 10) / W(hi) by the fit: the growth per 10 stems at hi */
} forecast;

/* W[n], M[n] for n = lo..hi (all > 0) fitted and extrapolated to n_top > hi: 0, or -1 when the
 * data cannot be fitted (fewer than 3 stems, or a non-positive value). */
int forecast_fit(const double *W, const double *M, int lo, int hi, int n_top, forecast *out);

#endif
