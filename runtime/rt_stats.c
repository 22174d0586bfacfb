/* rt_stats.c — EXTFLOW_STATS's report of a run (see rt_stats.h). */
#include "runtime/rt_stats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "codelets/cl_profile.h"
#include "codelets/codelets.h"
#include "runtime/rt_mpi.h"

/* One process: the critical path of the DAG this run executed, each job at its span
 * (cl_profile_cell: as if a worker were always free), and how its chains and the work would
 * fall on 2 and 4 ranks under the ownership rules of runtime/rt_mpi.c. A job's prerequisites
 * are its kind's deps (the rows read from other ranks add none in one process). The jobs are
 * the set's chains (layer 0 of a cell: a resolution's steps), the chains the runner makes for
 * them (chain_dep.make: the stem edge's kernel jobs) and those of family CHAIN_PRE (layer 1:
 * a standard step's early reduction under the lookahead, a job of its own, which waits for
 * (s, t-j), not for the step before). A chain finished before the run is no job. */
/* The set's chains before the run (a chain's kind and owner per layer and (s, t - s); kind
 * NULL: none, or finished before): the run finishes them all, after which the set names none.
 * A set of two layers (d2: composites, then the homotopy's steps) has its second layer's
 * chains as jobs of layer 1, as cl_chain_layer keeps their times. */
static chain_at *before;
static int before_layers;

static chain_at chain_before(const chain_set *set, int s, deg_t t, int layer)
{
    size_t n = (size_t)set->max_t + 1, cells = (size_t)(set->max_s + 1) * n;
    return before && layer < before_layers ? before[(size_t)layer * cells + (size_t)s * n + (size_t)(t - s)]
                                           : (chain_at){ NULL, NULL };
}

/* The layer of the set's chain of that family at (s, t) before the run; -1: none. */
static int layer_of(const chain_set *set, int family, int s, deg_t t)
{
    for (int l = 0; l < before_layers; l++) {
        chain_at a = chain_before(set, s, t, l);
        if (a.kind && a.kind->family == family) return l;
    }
    return -1;
}

typedef struct dag_walk {
    const chain_set *set;
    long n;                         /* cells per row s: t - s = 0..max_t */
    size_t cells;                   /* per layer */
    double *L;                      /* the longest path ending with each job, s */
    long *pred;                     /* the job before it on that path (-1: none) */
    uint8_t *seen;
} dag_walk;

static long job_of(const dag_walk *w, int s, deg_t t, int layer)
{
    return (long)((size_t)layer * w->cells + (size_t)s * (size_t)w->n + (size_t)(t - s));
}

static double job_span(const dag_walk *w, long job)
{
    long k = job % (long)w->cells, n = w->n;
    uint64_t work, span, fin;
    cl_profile_cell((int)(k / n), (int)(k / n + k % n), (int)(job / (long)w->cells), &work, &span, &fin);
    return 1e-9 * (double)span;
}

static double path_to(dag_walk *w, const chain_kind *kind, void *owner, int s, deg_t t, int layer)
{
    const chain_set *set = w->set;
    long k = job_of(w, s, t, layer);
    if (w->seen[k]) return w->L[k];
    chain_deps need;
    kind->deps(owner, s, t, &need);
    double span = job_span(w, k), best = 0;
    long from = -1;
    for (int i = 0; i < need.n; i++) {
        const chain_dep *d = &need.d[i];
        if (d->s < 0 || d->s > set->max_s || d->t < d->s || d->t > set->max_t) continue;
        int pre = d->family == CHAIN_PRE;   /* a job of layer 1 (made, or the step's own) */
        int dl = d->make || pre || before_layers == 1 ? pre : layer_of(set, d->family, d->s, d->t);
        if (dl < 0) continue;       /* finished before the run */
        chain_at a = d->make ? (chain_at){ d->make, owner } : chain_before(set, d->s, d->t, pre ? 0 : dl);
        if (!a.kind) continue;      /* finished before the run */
        double l = path_to(w, a.kind, a.owner, d->s, d->t, dl);
        if (l > best || from < 0) best = l, from = job_of(w, d->s, d->t, dl);
    }
    w->seen[k] = 1;
    w->pred[k] = from;
    return w->L[k] = best + span;
}

#define TOP_FINISHES 5
#define TOP_ON_PATH 6
static void report_dag(const chain_set *set)
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
    const int max_s = set->max_s;
    long end = -1, n = (long)set->max_t + 1;
    size_t cells = (size_t)(max_s + 1) * (size_t)n, jobs = CL_PROFILE_LAYERS * cells;
    double own[3][4] = { { 0 } }, total = 0, *row = calloc((size_t)max_s + 1, sizeof *row);
    dag_walk w = { set, n, cells, calloc(jobs, sizeof *w.L), calloc(jobs, sizeof *w.pred), calloc(jobs, 1) };
    int early_jobs = 0;             /* of layer 1 anywhere (the lookahead is on) */
    if (!w.L || !w.pred || !w.seen) goto out;
    /* every cell's work, the stem edge's kernel jobs (outside the region) included; the path
     * ends at a chain of the set */
    for (deg_t stem = 0; stem <= set->max_t; stem++)
        for (int s = 0; s <= max_s && stem + s <= set->max_t; s++) {
            const deg_t t = stem + s;
            for (int l = 0; l < before_layers; l++) {
                chain_at a = chain_before(set, s, t, l);
                if (a.kind && path_to(&w, a.kind, a.owner, s, t, l) > (end < 0 ? -1 : w.L[end]))
                    end = job_of(&w, s, t, l);
            }
            for (int layer = 0; layer < CL_PROFILE_LAYERS; layer++) {
                uint64_t work, span, fin;
                cl_profile_cell(s, (int)t, layer, &work, &span, &fin);
                double sec = 1e-9 * (double)work;
                total += sec;
                for (int i = 0; i < TOP_FINISHES && (layer == 0 || before_layers > 1); i++)   /* the largest finishes */
                    if (fin > top[i].ns) {
                        memmove(top + i + 1, top + i, (TOP_FINISHES - 1 - i) * sizeof *top);
                        top[i] = (struct top_finish){ fin, s, t };
                        break;
                    }
                if (row) row[s] += sec;
                early_jobs += layer && work;
                own[0][rt_mpi_owner(OWNER_PAIRS, s, 2, max_s)] += sec;
                own[1][rt_mpi_owner(OWNER_ROWS, s, 2, max_s)] += sec;
                own[2][rt_mpi_owner(OWNER_PAIRS, s, 4, max_s)] += sec;
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
        if (prev >= 0 && rt_mpi_owner(OWNER_PAIRS, s, 2, max_s) != rt_mpi_owner(OWNER_PAIRS, prev, 2, max_s))
            hops_pairs++;
        if (prev >= 0 && rt_mpi_owner(OWNER_ROWS, s, 2, max_s) != rt_mpi_owner(OWNER_ROWS, prev, 2, max_s))
            hops_rows++;
        prev = s_start = s;
    }
    fprintf(stderr, "extflow: critical path (each job at its span: plan + reduce + finish + its longest multiply chunk and parts): "
            "%.2f s over %d jobs (%.2f s of it in rows 0 and 1), row %d to row %d (at (%d,%d)); rank changes along it with "
            "2 ranks: %d (pairs), %d (rows)\n", w.L[end], steps, low, s_start, s_end, s_end,
            s_end + (int)(end % n), hops_pairs, hops_rows);
    if (before_layers > 1)
        fprintf(stderr, "extflow: (two layers of chains: %d of those jobs are the second layer's, %d the first's)\n",
                early, steps - early);
    else if (early_jobs)
        fprintf(stderr, "extflow: (lookahead: %d of those jobs are early reductions, each a job of its own after "
                "(s, t-j))\n", early);
    fprintf(stderr, "extflow: largest jobs on the path:");
    for (int i = 0; i < TOP_ON_PATH && big[i].sec > 0; i++) {
        long cell = big[i].job % (long)cells;
        fprintf(stderr, " (%d,%d)%s %.2f s", (int)(cell / n), (int)(cell / n + cell % n),
                big[i].job < (long)cells ? "" : before_layers > 1 ? " layer 1" : " early", big[i].sec);
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
    for (int s = 0; row && s <= max_s; s++) fprintf(stderr, " %.2f", row[s]);
    fprintf(stderr, "\n");
out:
    free(row);
    free(w.L);
    free(w.pred);
    free(w.seen);
}

void rt_stats_begin(const chain_set *set, const chain_policy *policy)
{
    cl_profile_enable(policy->verbose);
    if (!policy->verbose) return;
    cl_profile_cells(set->max_s, (int)set->max_t);
    size_t n = (size_t)set->max_t + 1;
    free(before);
    size_t cells = (size_t)(set->max_s + 1) * n;
    before_layers = set->layers > 1 ? (set->layers < CL_PROFILE_LAYERS ? set->layers : CL_PROFILE_LAYERS) : 1;
    if (!(before = calloc((size_t)before_layers * cells, sizeof *before))) return;     /* no path, then */
    for (int l = 0; l < before_layers; l++)
        for (int s = 0; s <= set->max_s; s++)
            for (deg_t t = s; t <= set->max_t; t++)
                before[(size_t)l * cells + (size_t)s * n + (size_t)(t - s)] = set->at(set->owner, s, t, l);
}

void rt_stats_end(const chain_set *set, const chain_policy *policy, double seconds, int distributed)
{
    if (!policy->verbose) return;
    uint64_t cpu, cuda;
    cl_milnor_mul_stats(&cpu, &cuda);
    fprintf(stderr, "extflow: Milnor products: %llu (job x term) pairs, %.1f%% on CUDA workers\n",
            (unsigned long long)(cpu + cuda), cpu + cuda ? 100.0 * (double)cuda / (double)(cpu + cuda) : 0.0);
    if (set->stats) set->stats(set->owner, stderr);
    cl_profile_report(stderr, seconds, starpu_worker_get_count());
    uint64_t members, helped, items;
    cl_chain_team_stats(&members, &helped, &items);
    if (members)
        fprintf(stderr, "extflow: row reductions shared (EXTFLOW_TEAM): %llu idle workers recruited, %llu joined "
                "in time and ran %llu row blocks\n", (unsigned long long)members, (unsigned long long)helped,
                (unsigned long long)items);
    if (!distributed) report_dag(set);
    cl_profile_cells(-1, -1);
    free(before);
    before = NULL;
}
