/* tap.h — a tiny Test Anything Protocol emitter for extflow's C tests.
 *
 * Usage: plan(n) (or plan_lazy() and done_testing()), then ok(cond, fmt, ...);
 * diag() writes "# ..." comments; skip() passes one test that cannot run here, with its reason;
 * skip_all() for tests whose prerequisites are missing.
 * The exit status is non-zero when any test failed, so `prove` and make agree. */
#ifndef EXTFLOW_TAP_H
#define EXTFLOW_TAP_H
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count, tap_failed, tap_planned = -1;

static inline void plan(int n) { tap_planned = n; printf("1..%d\n", n); fflush(stdout); }
static inline void plan_lazy(void) { tap_planned = -2; }

static inline int ok(int cond, const char *fmt, ...)
{
    va_list ap;
    ++tap_count;
    if (!cond) ++tap_failed;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return cond;
}

static inline void diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

static inline void skip(const char *why)
{
    printf("ok %d # SKIP %s\n", ++tap_count, why);
    fflush(stdout);
}

static inline void skip_all(const char *why)
{
    printf("1..0 # SKIP %s\n", why);
    exit(0);
}

static inline void bail(const char *why)
{
    printf("Bail out! %s\n", why);
    exit(255);
}

/* Ends the run: prints the plan if it was lazy and returns the exit status. */
static inline int done_testing(void)
{
    if (tap_planned == -2) printf("1..%d\n", tap_count);
    else if (tap_planned >= 0 && tap_planned != tap_count) {
        printf("# planned %d tests but ran %d\n", tap_planned, tap_count);
        return 1;
    }
    return tap_failed ? 1 : 0;
}
#endif
