/* rt.c — StarPU glue: initialisation, tags, submission of the resolution DAG (see rt.h). */
#include "runtime/rt.h"
#include "algebra/clock.h"
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "algebra/memacct.h"
#include "codelets/cl_profile.h"
#include "codelets/codelets.h"
#include "runtime/rt_chain.h"
#include "runtime/rt_mpi.h"
#include "stages/resolve/nassau_p.h"
#include "stages/resolve/step.h"
#ifdef STARPU_USE_CUDA
#include "algebra/milnor_cuda.h"
#endif


/* rt_init, with StarPU-MPI (mpi) or without, with CUDA workers where there are GPUs (cuda). */
static int rt_start(int verbose, int mpi, int cuda, char *err, size_t errlen)
{
    struct starpu_conf conf;
    starpu_conf_init(&conf);
    conf.nopencl = 0;
    int gpus = 0;
#ifdef STARPU_USE_CUDA
    const char *nc = getenv("STARPU_NCUDA");
    gpus = !cuda || (nc && atoi(nc) == 0) ? 0 : milnor_cuda_device_count();
    if (!cuda) conf.ncuda = 0;
#else
    (void)cuda;
    conf.ncuda = 0;
#endif
    /* With CUDA workers: eager (lws/ws/prio of StarPU 1.3 can stall on CUDA workers; dmda kept
     * the GPU under 6% of the pairs and was the slowest, docs/perf.md), 4 chunks in flight per
     * CUDA worker and two CUDA workers per GPU (two streams: one chunk's copies and set-up
     * overlap another's kernel; stem 130 18.5 -> 15.3 s, stem 150 91.2 -> 72.8 s on one H200,
     * docs/perf.md) unless the user chose otherwise. */
    if (gpus > 0 && !getenv("STARPU_SCHED")) conf.sched_policy_name = "eager";
    if (gpus > 0) setenv("STARPU_CUDA_PIPELINE", "4", 0);
    if (gpus > 0) setenv("STARPU_NWORKER_PER_CUDA", "2", 0);
    /* (under StarPU-MPI each rank's CPUs are its binding's, rt_mpi.c: left to it) */
    int ncpus = mpi ? -1 : rt_default_ncpus(cuda, getenv("STARPU_NCPU"), rt_usable_cpus());
    if (ncpus > 0) conf.ncpus = ncpus;     /* else what starpu_conf_init read (STARPU_NCPU) */
    /* SIGINT is ours (tools/extflow.c). StarPU's catcher saves the handler it finds and puts it
     * back only when the signal comes: a command that starts StarPU twice in one process
     * (mahowald's inner runs) found StarPU's own catcher the second time, and a Ctrl-C then
     * re-raised itself for ever (100% CPU, no line). */
    if (!getenv("STARPU_CATCH_SIGNALS")) conf.catch_signals = 0;
    int ret = mpi ? rt_mpi_starpu_init(&conf) : starpu_init(&conf);
    if (ret != 0) {
        snprintf(err, errlen, "StarPU failed to start: %s", strerror(-ret));
        return -1;
    }
    unsigned ncuda = starpu_cuda_worker_get_count();
    if (verbose)
        fprintf(stderr, "extflow: %u CPU workers, %u CUDA workers, scheduler %s%s\n", starpu_cpu_worker_get_count(),
                ncuda, getenv("STARPU_SCHED") ? getenv("STARPU_SCHED") : conf.sched_policy_name ? conf.sched_policy_name : "lws",
                conf.sched_policy_name ? " (chosen because CUDA workers exist; set STARPU_SCHED to override)" : "");
    return 0;
}

/* Without CUDA workers (a run over a profile's B): one core left to the submitting thread and
 * at most RT_SMALL_TASK_CPUS CPU workers, unless STARPU_NCPU says otherwise. Such a run's tasks
 * last microseconds: idle workers' polling beyond that many, or on the submitter's core, costs
 * more than they add (docs/perf.md). */
int rt_default_ncpus(int cuda, const char *starpu_ncpu, long cores)
{
    if (cuda || starpu_ncpu || cores < 2) return -1;
    return cores - 1 < RT_SMALL_TASK_CPUS ? (int)(cores - 1) : RT_SMALL_TASK_CPUS;
}

/* rt.h: the affinity mask's CPUs, which rt_default_ncpus compares with its cap. */
long rt_usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);      /* more CPUs than a cpu_set_t holds */
}

int rt_init(int verbose, char *err, size_t errlen) { return rt_start(verbose, rt_mpi_size() > 1, 1, err, errlen); }
int rt_init_cpu(int verbose, char *err, size_t errlen) { return rt_start(verbose, rt_mpi_size() > 1, 0, err, errlen); }
int rt_init_local(int verbose, char *err, size_t errlen) { return rt_start(verbose, 0, 1, err, errlen); }
void rt_shutdown_local(void) { starpu_shutdown(); }

void rt_shutdown(void)
{
    if (rt_mpi_size() > 1) rt_mpi_starpu_shutdown();
    else starpu_shutdown();
}

/* EXTFLOW_STATS, one process: the critical path of the DAG this run executed, each job at its
 * span (cl_profile_cell: as if a worker were always free), and how its steps and the work
 * would fall on 2 and 4 ranks under the ownership rules of runtime/rt_mpi.c. A job's
 * prerequisites are its algorithm's (the rows read from other ranks add none in one process).
 * The jobs are the steps (layer 0 of a cell) and the steps' early reductions under the
 * lookahead (layer 1: a job of its own, which waits for (s, t-j), not for the step before). */
typedef struct dag_walk {
    const resolution *res;
    size_t cells;                   /* per layer */
    double *L;                      /* the longest path ending with each job, s */
    long *pred;                     /* the job before it on that path (-1: none) */
    uint8_t *seen;
} dag_walk;

static long job_of(const dag_walk *w, int s, deg_t t, int layer)
{
    return (long)((size_t)layer * w->cells + res_cell(w->res, s, t));
}

static double job_span(const dag_walk *w, long job)
{
    long k = job % (long)w->cells, n = w->res->max_n + 1;
    uint64_t work, span, fin;
    cl_profile_cell((int)(k / n), (int)(k / n + k % n), (int)(job / (long)w->cells), &work, &span, &fin);
    return 1e-9 * (double)span;
}

static double path_to(dag_walk *w, int s, deg_t t, int layer, int edge)
{
    const resolution *res = w->res;
    long k = job_of(w, s, t, layer);
    if (w->seen[k]) return w->L[k];
    const chain_kind *algo = layer ? &step_standard_pre : edge ? &step_edge_kernel : step_algo_for(res, s, t);
    chain_deps need;
    algo->deps((resolution *)res, s, t, &need);
    double span = job_span(w, k), best = 0;
    long from = -1;
    for (int i = 0; i < need.n; i++) {
        const chain_dep *d = &need.d[i];
        if (d->s < 0 || d->s > res->max_s || d->t < d->s || d->t - d->s > res->max_n) continue;
        int dl = d->family == CHAIN_PRE;
        double l = path_to(w, d->s, d->t, dl, d->family == CHAIN_EDGE);
        if (l > best || from < 0) best = l, from = job_of(w, d->s, d->t, dl);
    }
    w->seen[k] = 1;
    w->pred[k] = from;
    return w->L[k] = best + span;
}

#define TOP_FINISHES 5
#define TOP_ON_PATH 6
static void report_dag(const resolution *res)
{
    struct top_finish {
        uint64_t ns;
        int s;
        deg_t t;
    } top[TOP_FINISHES] = { { 0 } };
    struct top_job {
        double sec;
        long job;
    } big[TOP_ON_PATH] = { { 0 } };
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1), jobs = CL_PROFILE_LAYERS * cells;
    double own[3][4] = { { 0 } }, total = 0, *row = calloc((size_t)res->max_s + 1, sizeof *row);
    dag_walk w = { res, cells, calloc(jobs, sizeof *w.L), calloc(jobs, sizeof *w.pred), calloc(jobs, 1) };
    long end = -1, n = res->max_n + 1;
    if (!w.L || !w.pred || !w.seen) goto out;
    /* every cell's work, the stem edge's kernel jobs (outside the region) included; the path
     * ends at a step of the region */
    for (deg_t stem = 0; stem <= res->max_n; stem++)
        for (int s = 0; s <= res->max_s; s++) {
            const deg_t t = stem + s;
            if (res_in_region(res, s, t) && path_to(&w, s, t, 0, 0) > (end < 0 ? -1 : w.L[end]))
                end = job_of(&w, s, t, 0);
            for (int layer = 0; layer < CL_PROFILE_LAYERS; layer++) {
                uint64_t work, span, fin;
                cl_profile_cell(s, (int)t, layer, &work, &span, &fin);
                double sec = 1e-9 * (double)work;
                total += sec;
                for (int i = 0; i < TOP_FINISHES && layer == 0; i++)     /* the largest finishes, largest first */
                    if (fin > top[i].ns) {
                        memmove(top + i + 1, top + i, (TOP_FINISHES - 1 - i) * sizeof *top);
                        top[i] = (struct top_finish){ fin, s, t };
                        break;
                    }
                if (row) row[s] += sec;
                own[0][rt_mpi_owner(OWNER_PAIRS, s, 2, res->max_s)] += sec;
                own[1][rt_mpi_owner(OWNER_ROWS, s, 2, res->max_s)] += sec;
                own[2][rt_mpi_owner(OWNER_PAIRS, s, 4, res->max_s)] += sec;
            }
        }
    if (end < 0) goto out;
    int steps = 0, early = 0, hops_pairs = 0, hops_rows = 0, s_end = (int)(end % (long)cells / n), s_start = s_end,
        prev = -1;
    double low = 0, fin_path = 0;   /* of the path's time, in rows 0 and 1; in finishes */
    for (long k = end; k >= 0; k = w.pred[k], steps++) {
        long cell = k % (long)cells;
        int s = (int)(cell / n), layer = (int)(k / (long)cells);
        uint64_t work, span, fin;
        cl_profile_cell(s, s + (int)(cell % n), layer, &work, &span, &fin);
        fin_path += 1e-9 * (double)fin;
        early += layer;
        double sec = w.L[k] - (w.pred[k] >= 0 ? w.L[w.pred[k]] : 0);
        if (s <= 1) low += sec;
        for (int i = 0; i < TOP_ON_PATH; i++)       /* the path's largest jobs, largest first */
            if (sec > big[i].sec) {
                memmove(big + i + 1, big + i, (TOP_ON_PATH - 1 - i) * sizeof *big);
                big[i] = (struct top_job){ sec, k };
                break;
            }
        if (prev >= 0 && rt_mpi_owner(OWNER_PAIRS, s, 2, res->max_s) != rt_mpi_owner(OWNER_PAIRS, prev, 2, res->max_s))
            hops_pairs++;
        if (prev >= 0 && rt_mpi_owner(OWNER_ROWS, s, 2, res->max_s) != rt_mpi_owner(OWNER_ROWS, prev, 2, res->max_s))
            hops_rows++;
        prev = s_start = s;
    }
    fprintf(stderr, "extflow: critical path (each job at its span: plan + reduce + finish + its longest multiply chunk and parts): "
            "%.2f s over %d jobs (%.2f s of it in rows 0 and 1), row %d to row %d (at (%d,%d)); rank changes along it with "
            "2 ranks: %d (pairs), %d (rows)\n", w.L[end], steps, low, s_start, s_end, s_end,
            s_end + (int)(end % n), hops_pairs, hops_rows);
    if (res->lookahead)
        fprintf(stderr, "extflow: (lookahead %d: %d of those jobs are early reductions, each a job of its own after "
                "(s, t-%d))\n", res->lookahead, early, res->lookahead);
    fprintf(stderr, "extflow: largest jobs on the path:");
    for (int i = 0; i < TOP_ON_PATH && big[i].sec > 0; i++) {
        long cell = big[i].job % (long)cells;
        fprintf(stderr, " (%d,%d)%s %.2f s", (int)(cell / n), (int)(cell / n + cell % n),
                big[i].job >= (long)cells ? " early" : "", big[i].sec);
    }
    fprintf(stderr, "\n");
    fprintf(stderr, "extflow: of that path, in finishes (each its finish task and its longest finish part): "
            "%.2f s; largest finishes:", fin_path);
    for (int i = 0; i < TOP_FINISHES && top[i].ns; i++)
        fprintf(stderr, " (%d,%d) %.1f ms", top[i].s, (int)top[i].t, 1e-6 * (double)top[i].ns);
    fprintf(stderr, "\n");
    fprintf(stderr, "extflow: work %.2f s; by owner with 2 ranks: pairs %.1f / %.1f s, rows %.1f / %.1f s; "
            "4 ranks, pairs: %.1f / %.1f / %.1f / %.1f s\n", total, own[0][0], own[0][1], own[1][0], own[1][1],
            own[2][0], own[2][1], own[2][2], own[2][3]);
    fprintf(stderr, "extflow: work by row s = 0, 1, ... (s):");
    for (int s = 0; row && s <= res->max_s; s++) fprintf(stderr, " %.2f", row[s]);
    fprintf(stderr, "\n");
out:
    free(row);
    free(w.L);
    free(w.pred);
    free(w.seen);
}

/* The standard step's lookahead (stages/resolve/standard.h): EXTFLOW_LOOKAHEAD (0 or 2..64, tools/env.c
 * refuses the rest), else 4 where many CPU workers wait on the chain of reductions along t (one
 * process: ranks must agree on the DAG). */
static int lookahead_of(const rt_dist *dist)
{
    const char *e = getenv("EXTFLOW_LOOKAHEAD");
    if (e && *e) return atoi(e) >= 2 ? atoi(e) : 0;
    return !dist && starpu_cpu_worker_get_count() >= 8 ? 4 : 0;
}

/* Nassau's finish in parts (stages/resolve/nassau.h): EXTFLOW_FINISH_SPLIT block entries a part, else
 * RT_FINISH_SPLIT (docs/perf.md, "The tail"). */
#define RT_FINISH_SPLIT (1u << 22)
static uint64_t finish_split_of(void)
{
    const char *e = getenv("EXTFLOW_FINISH_SPLIT");
    return e && *e ? strtoull(e, NULL, 10) : RT_FINISH_SPLIT;
}

int rt_resolve(resolution *res, const chain_policy *progress)
{
    cl_profile_enable(progress->verbose);
    if (progress->verbose) cl_profile_cells(res->max_s, res->max_n);
    double began = clock_now();
    rt_dist *dist = rt_dist_new(res);   /* before any task: it takes the done set all ranks share */
    res->lookahead = lookahead_of(dist);
    res->finish_split = finish_split_of();
    chain_set set = step_chain_set(res);
    int rc = rt_chains(&set, progress, NULL, dist);
    double ended = clock_now();
    res_flush_stages(res);      /* what finished is kept, even after a failure */
    if (progress->verbose) {
        uint64_t cpu, cuda;
        cl_milnor_mul_stats(&cpu, &cuda);
        fprintf(stderr, "extflow: Milnor products: %llu (job x term) pairs, %.1f%% on CUDA workers\n",
                (unsigned long long)(cpu + cuda), cpu + cuda ? 100.0 * (double)cuda / (double)(cpu + cuda) : 0.0);
        uint64_t nsteps, ncorrected, ndim;
        res_nassau_p_stats(&nsteps, &ncorrected, &ndim);
        if (nsteps)
            fprintf(stderr, "extflow: Nassau steps at odd p: %llu (%llu corrected), subalgebras up to dimension %llu\n",
                    (unsigned long long)nsteps, (unsigned long long)ncorrected, (unsigned long long)ndim);
        cl_profile_report(stderr, ended - began,
                          starpu_worker_get_count());
        uint64_t members, helped, items;
        cl_chain_team_stats(&members, &helped, &items);
        if (members)
            fprintf(stderr, "extflow: row reductions shared (EXTFLOW_TEAM): %llu idle workers recruited, %llu joined "
                    "in time and ran %llu row blocks\n", (unsigned long long)members, (unsigned long long)helped,
                    (unsigned long long)items);
        if (!dist) report_dag(res);
        cl_profile_cells(-1, -1);
    }
    return res_failed(res) ? -1 : rc;
}
