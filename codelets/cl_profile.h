/* cl_profile.h — where a run's task time goes, per piece of a step (EXTFLOW_STATS=1).
 *
 * Each codelet adds the wall time of its body (CLOCK_MONOTONIC, on the worker that ran it) to
 * its piece's counters: tasks, total, largest (with that task's bidegree). A CUDA multiply is
 * asynchronous: its counter holds the launch time on the driving core, not the GPU's time
 * (its work shows as pairs in cl_milnor_mul_stats). Counters are atomics, off unless
 * cl_profile_enable(1) was called, so a normal run pays one load per task.
 */
#ifndef EXTFLOW_CL_PROFILE_H
#define EXTFLOW_CL_PROFILE_H
#include <stdint.h>
#include <stdio.h>

enum cl_piece { PIECE_PLAN, PIECE_MUL_CPU, PIECE_MUL_CUDA, PIECE_REDUCE, PIECE_FINISH, PIECE_PART, PIECE_FINISH_PART,
                PIECE_PREPARE, PIECE_COUNT };

void cl_profile_enable(int on);
/* Start of a codelet body: a timestamp (0 when profiling is off). */
uint64_t cl_profile_start(void);
/* A bidegree's times are kept per layer: 0 for its chain, 1 for a second chain there that
 * runs on its own (the standard step's early reduction, CHAIN_PRE: it waits for other
 * chains than the step, so the critical path needs its span apart from the step's). */
#define CL_PROFILE_LAYERS 2
/* End of a codelet body started at t0, for the chain at (s, t) of that layer (s = -1: not
 * known). */
void cl_profile_stop(enum cl_piece piece, uint64_t t0, int s, int t, int layer);
/* Per-bidegree times as well, for the cells (s, t) with s <= max_s, t - s <= max_n (the
 * resolution's arrays); call before any task runs, and cl_profile_cells(-1, -1) to free them. */
void cl_profile_cells(int max_s, int max_n);
/* The times so far of (s, t)'s chain of that layer: its tasks' sum (work); the plan, reduce
 * and finish tasks' sum plus its
 * longest multiply chunk, its longest part and its longest finish part (span: the chain's time
 * with a worker always free); of the span, its finish and longest finish part (finish); 0 if
 * none ran. */
void cl_profile_cell(int s, int t, int layer, uint64_t *work_ns, uint64_t *span_ns, uint64_t *finish_ns);
/* One table: piece, tasks, seconds, share of (wall x workers), mean and largest ms. */
void cl_profile_report(FILE *out, double wall_seconds, unsigned workers);

#endif
