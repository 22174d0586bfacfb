/* forecast.c — a resolution's cost extrapolated from its first stems (see forecast.h). */
#include "stages/resolve/forecast.h"
#include <math.h>

/* Least squares of log y on sqrt(n) over n = lo..hi: y ~ exp(*a + *b sqrt(n)). */
static int fit(const double *y, int lo, int hi, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = hi - lo + 1;
    if (k < 3) return -1;
    for (int n = lo; n <= hi; n++) {
        if (!(y[n] > 0)) return -1;
        double x = sqrt((double)n), v = log(y[n]);
        sx += x, sy += v, sxx += x * x, sxy += x * v;
    }
    double den = k * sxx - sx * sx;
    if (!(den > 0)) return -1;
    *b = (k * sxy - sx * sy) / den;
    *a = (sy - *b * sx) / k;
    return 0;
}

int forecast_fit(const double *W, const double *M, int lo, int hi, int n_top, forecast *out)
{
    double aw, bw, am, bm;
    if (n_top <= hi || fit(W, lo, hi, &aw, &bw) || fit(M, lo, hi, &am, &bm)) return -1;
    out->work_after = 0;
    for (int n = hi + 1; n <= n_top; n++) out->work_after += exp(aw + bw * sqrt((double)n));
    out->largest = exp(am + bm * sqrt((double)n_top));
    out->growth10 = exp(bw * (sqrt((double)hi + 10) - sqrt((double)hi)));
    return 0;
}
