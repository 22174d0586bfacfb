/* eta.c — the time a run has left (see eta.h). */
#include "stages/eta.h"
#include <stdlib.h>

void eta_init(eta *e) { *e = (eta){ 0 }; }

void eta_clear(eta *e)
{
    free(e->t);
    free(e->w);
    eta_init(e);
}

int eta_step(eta *e, double t, double w)
{
    if (e->cap == (size_t)-1) return -1;
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 256;
        double *nt = realloc(e->t, cap * sizeof *nt);
        if (nt) e->t = nt;
        double *nw = nt ? realloc(e->w, cap * sizeof *nw) : NULL;
        if (!nw) {              /* unknown from now on */
            eta_clear(e);
            e->cap = (size_t)-1;
            return -1;
        }
        e->w = nw;
        e->cap = cap;
    }
    e->t[e->n] = t;
    e->w[e->n] = (e->n ? e->w[e->n - 1] : 0) + w;
    e->n++;
    return 0;
}

/* The work finished by time x: the last sample at or before x (binary search). */
static double work_by(const eta *e, double x)
{
    size_t lo = 0, hi = e->n;   /* samples [0, lo) are at or before x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->t[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo ? e->w[lo - 1] : 0;
}

double eta_seconds(eta *e, double now, double work_left)
{
    if (e->cap == (size_t)-1 || e->n < ETA_MIN_STEPS || now < ETA_MIN_SECONDS) return -1;
    if (work_left <= 0) return 0;
    double all = e->w[e->n - 1], r_all = all / now, r_half = (all - work_by(e, now / 2)) / (now / 2);
    if (r_all <= 0 || r_half <= 0) return -1;
    double lo = r_all < r_half ? r_all : r_half, hi = r_all < r_half ? r_half : r_all;
    if (hi > (e->shown ? ETA_KEEP : ETA_AGREE) * lo) return -1;
    e->shown = 1;
    return work_left / lo;
}
