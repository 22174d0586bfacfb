/* cl_profile.c — per-piece task time (see cl_profile.h). */
#include "codelets/cl_profile.h"
#include "algebra/clock.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

static _Atomic int enabled;
static _Atomic uint64_t tasks[PIECE_COUNT], total_ns[PIECE_COUNT], max_ns[PIECE_COUNT];
static _Atomic uint64_t max_at[PIECE_COUNT];    /* (s << 32) | t of the largest task */
static const char *const piece_name[PIECE_COUNT] = { "plan", "multiply (CPU)", "multiply (CUDA launch)", "reduce",
                                                     "finish", "part", "finish part", "prepare" };

/* per bidegree: work (all its tasks), serial (plan, reduce, finish), longest multiply chunk,
 * longest part, finish, longest finish part */
enum { CELL_WORK, CELL_SERIAL, CELL_MUL, CELL_PART, CELL_FINISH, CELL_FPART, CELL_KINDS };
static int cells_s = -1, cells_n = -1;
static _Atomic uint64_t *cell[CELL_KINDS];     /* CL_PROFILE_LAYERS blocks of (s, t) cells */

void cl_profile_enable(int on) { enabled = on; }

void cl_profile_cells(int max_s, int max_n)
{
    for (int i = 0; i < CELL_KINDS; i++) {
        free(cell[i]);
        cell[i] = NULL;
    }
    cells_s = cells_n = -1;
    if (max_s < 0 || max_n < 0) return;
    size_t n = (size_t)CL_PROFILE_LAYERS * (size_t)(max_s + 1) * (size_t)(max_n + 1);
    int ok = 1;
    for (int i = 0; i < CELL_KINDS; i++) ok &= (cell[i] = calloc(n, sizeof *cell[i])) != NULL;
    if (ok) {
        cells_s = max_s;
        cells_n = max_n;
    } else
        cl_profile_cells(-1, -1);
}

static long cell_of(int s, int t, int layer)
{
    if (s < 0 || s > cells_s || t < s || t - s > cells_n || layer < 0 || layer >= CL_PROFILE_LAYERS) return -1;
    return ((long)layer * (cells_s + 1) + s) * (cells_n + 1) + (t - s);
}

void cl_profile_cell(int s, int t, int layer, uint64_t *work_ns, uint64_t *span_ns, uint64_t *finish_ns)
{
    long k = cell_of(s, t, layer);
    *work_ns = k < 0 ? 0 : cell[CELL_WORK][k];
    *span_ns = k < 0 ? 0 : cell[CELL_SERIAL][k] + cell[CELL_MUL][k] + cell[CELL_PART][k] + cell[CELL_FPART][k];
    *finish_ns = k < 0 ? 0 : cell[CELL_FINISH][k] + cell[CELL_FPART][k];
}

static void raise_to(_Atomic uint64_t *at, uint64_t ns)
{
    uint64_t seen = *at;
    while (ns > seen && !atomic_compare_exchange_weak(at, &seen, ns)) {}
}

static uint64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

uint64_t cl_profile_start(void) { return enabled ? now_ns() : 0; }

void cl_profile_stop(enum cl_piece piece, uint64_t t0, int s, int t, int layer)
{
    if (!t0) return;
    uint64_t ns = now_ns() - t0;
    tasks[piece]++;
    total_ns[piece] += ns;
    uint64_t seen = max_ns[piece];
    while (ns > seen && !atomic_compare_exchange_weak(&max_ns[piece], &seen, ns)) {}
    if (ns > seen) max_at[piece] = ((uint64_t)(uint32_t)s << 32) | (uint32_t)t;   /* racy pairing: a hint */
    long k = cell_of(s, t, layer);
    if (k < 0) return;
    cell[CELL_WORK][k] += ns;
    switch (piece) {
    case PIECE_MUL_CPU:
    case PIECE_MUL_CUDA: raise_to(&cell[CELL_MUL][k], ns); break;
    case PIECE_PART: raise_to(&cell[CELL_PART][k], ns); break;
    case PIECE_FINISH_PART: raise_to(&cell[CELL_FPART][k], ns); break;
    case PIECE_PREPARE: break;          /* needs nothing of the chain: off its path */
    case PIECE_FINISH: cell[CELL_FINISH][k] += ns; /* fall through */
    default: cell[CELL_SERIAL][k] += ns;
    }
}

void cl_profile_report(FILE *out, double wall, unsigned workers)
{
    fprintf(out, "extflow: task time by piece (wall %.2f s, %u workers)\n", wall, workers);
    fprintf(out, "  %-24s %10s %10s %7s %10s %10s  %s\n", "piece", "tasks", "seconds", "share", "mean ms",
            "max ms", "largest at (s,t)");
    for (int p = 0; p < PIECE_COUNT; p++) {
        if (!tasks[p]) continue;
        double sec = (double)total_ns[p] * 1e-9;
        uint64_t at = max_at[p];
        char where[32] = "-";
        if ((int)(at >> 32) >= 0) snprintf(where, sizeof where, "(%d,%d)", (int)(at >> 32), (int)(uint32_t)at);
        fprintf(out, "  %-24s %10llu %10.2f %6.1f%% %10.3f %10.1f  %s\n", piece_name[p], (unsigned long long)tasks[p],
                sec, wall > 0 && workers ? 100.0 * sec / (wall * workers) : 0.0, 1e3 * sec / (double)tasks[p],
                (double)max_ns[p] * 1e-6, where);
    }
}
