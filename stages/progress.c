/* progress.c — the progress line with a work-weighted ETA (see progress.h). */
#include "stages/progress.h"
#include "algebra/clock.h"
#include "stages/eta.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_COLS 79            /* fits an 80-column terminal without wrapping */

static struct {
    int on;                     /* a line was started and not finished */
    int show;
    int counted;                /* progress_start_counted: work left from left(ctx) */
    double (*left)(void *ctx);
    void (*end)(void *ctx);
    void *ctx;
    double work_total;          /* progress_start_items */
    char noun[40];
    long total, done;
    long before;                /* items done before the line started (a resumed run's loaded ones) */
    double work_before;         /* and their work: counted as done, never in the rate */
    double work_done, start, last_draw;
    eta eta;                    /* the time left (stages/eta.h), from the items done since the start */
    pthread_mutex_t lock;
} P = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* set from a signal handler: the signal that asked for a stop, and whether a line is on screen */
static volatile sig_atomic_t stop_signal, line_shown;

/* Clips to LINE_COLS and pads with spaces, so a shorter line erases a longer one. */
static void draw(const char *text)
{
    fprintf(stderr, "\r%-*.*s", LINE_COLS, LINE_COLS, text);
    fflush(stderr);
    line_shown = *text != 0;
}

/* The line while a stop asked by signal sig is under way, into buf (size > 1): its length.
 * Plain copies, no stdio: a signal handler calls it. */
static size_t stop_text(char *buf, size_t size, int sig)
{
    const char *parts[] = { "extflow: ", sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "signal",
                            ": finishing the running steps (again: stop at once)" };
    size_t n = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        for (const char *c = parts[i]; *c && n + 1 < size; c++) buf[n++] = *c;
    buf[n] = 0;
    return n;
}

void progress_stop(int sig)
{
    stop_signal = sig;
    if (!line_shown) return;
    char line[LINE_COLS + 2] = "\r";
    size_t n = 1 + stop_text(line + 1, sizeof line - 1, sig);
    while (n < LINE_COLS + 1) line[n++] = ' ';       /* erases the longer line under it */
    if (write(2, line, n) < 0) { /* the line is informative only */ }
}

int progress_stop_signal(void) { return stop_signal; }

static volatile sig_atomic_t refused;
void progress_refuse(void) { refused = 1; }
int progress_refused(void) { return refused; }

double progress_rate_locked(void)
{
    double per = eta_seconds(&P.eta, clock_now() - P.start, 1);
    return per > 0 ? 1 / per : -1;
}

void progress_say_locked(const char *text)
{
    if (P.show && line_shown) draw("");
    fprintf(stderr, "%s%s\n", P.show && line_shown ? "\r" : "", text);
    fflush(stderr);
    line_shown = 0;
    P.last_draw = 0;            /* the line comes back at the next item */
}

void progress_clear_line(void)
{
    char buf[LINE_COLS + 2];
    if (!line_shown) return;
    memset(buf, ' ', sizeof buf);
    buf[0] = buf[LINE_COLS + 1] = '\r';
    if (write(2, buf, sizeof buf) < 0) { /* informative only */ }
    line_shown = 0;
}

/* Ends the counted line's owner's part (P.lock held). */
static void end_counted(void)
{
    if (P.counted && P.end) P.end(P.ctx);
    P.counted = 0;
    P.left = NULL;
    P.end = NULL;
    P.ctx = NULL;
}

static void start(long total, const char *noun, int show_line)
{
    P.on = 1;
    P.show = show_line;
    P.total = total;
    P.done = 0;
    P.before = 0;
    P.work_before = 0;
    P.work_done = 0;
    eta_clear(&P.eta);
    snprintf(P.noun, sizeof P.noun, "%s", noun);
    P.start = P.last_draw = clock_now();
    if (P.show) {
        char line[96];
        snprintf(line, sizeof line, "extflow: 0/%ld %s, ETA unknown", P.total, P.noun);
        draw(line);
    }
}

void progress_start_counted(long total, long before, double work_before, const char *noun,
                            double (*left)(void *ctx), void (*end)(void *ctx), void *ctx, int show_line)
{
    pthread_mutex_lock(&P.lock);
    end_counted();
    P.counted = 1;
    P.left = left;
    P.end = end;
    P.ctx = ctx;
    start(total, noun, 0);
    P.before = before;
    P.work_before = work_before;
    P.show = show_line;
    if (P.show) {
        char line[96];
        snprintf(line, sizeof line, "extflow: %ld/%ld %s, ETA unknown", P.before, P.before + P.total, P.noun);
        draw(line);
    }
    pthread_mutex_unlock(&P.lock);
}

void progress_start_items(long total, double work, const char *noun, int show_line)
{
    pthread_mutex_lock(&P.lock);
    end_counted();
    P.work_total = work;
    start(total, noun, show_line);
    pthread_mutex_unlock(&P.lock);
}

static double work_left(void)
{
    if (P.counted) return P.left(P.ctx);
    return P.work_total > P.work_done ? P.work_total - P.work_done : 0;
}

/* Redraws the line (P.lock held), at most four times a second. */
static void redraw(void)
{
    double tnow = clock_now();
    if (!P.show || tnow - P.last_draw < 0.25) return;
    P.last_draw = tnow;
    double el = tnow - P.start, left = work_left(), done = P.work_before + P.work_done;
    double frac = done / (done + left), rem = eta_seconds(&P.eta, el, left);
    char line[160], eta[48] = "ETA unknown";
    if (rem >= 0 && rem < 90) snprintf(eta, sizeof eta, "about %.0f s left", rem);
    else if (rem >= 0 && rem < 5400) snprintf(eta, sizeof eta, "about %.0f min left", rem / 60);
    else if (rem >= 0) snprintf(eta, sizeof eta, "about %.1f h left", rem / 3600);
    if (stop_signal) stop_text(line, sizeof line, stop_signal);
    else snprintf(line, sizeof line, "extflow: %ld/%ld %s, %.0f%% of the work, %.0f s, %s", P.before + P.done,
                  P.before + P.total, P.noun, 100 * frac, el, eta);
    draw(line);
}

void progress_counted(double (*mark)(void *ctx, const void *arg), const void *arg)
{
    pthread_mutex_lock(&P.lock);
    if (P.counted) {
        double w = mark(P.ctx, arg);
        P.done++;
        P.work_done += w;
        eta_step(&P.eta, clock_now() - P.start, w);
        redraw();
    }
    pthread_mutex_unlock(&P.lock);
}

void progress_item_done(double work)
{
    pthread_mutex_lock(&P.lock);
    if (P.on && !P.counted) {
        P.done++;
        P.work_done += work;
        eta_step(&P.eta, clock_now() - P.start, work);
        redraw();
    }
    pthread_mutex_unlock(&P.lock);
}

void progress_work(double *done, double *left)
{
    pthread_mutex_lock(&P.lock);
    *done = P.counted ? P.work_done : 0;
    *left = P.counted ? work_left() : 0;
    pthread_mutex_unlock(&P.lock);
}

double progress_finish(void)
{
    pthread_mutex_lock(&P.lock);
    if (P.show) {
        draw("");
        fputc('\r', stderr);
    }
    double el = clock_now() - P.start;
    end_counted();
    eta_clear(&P.eta);
    P.on = 0;
    P.show = 0;
    pthread_mutex_unlock(&P.lock);
    return el;
}
