/* extflow resolve: a minimal resolution of a module over a region, into an output directory
 * (stages/resolve/resolution.h; under mpirun one resolution over the ranks, runtime/rt_mpi.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/clock.h"
#include "algebra/memacct.h"
#include "runtime/admission.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "runtime/rt_mpi.h"
#include "runtime/runpolicy.h"
#include "stages/out/chart.h"
#include "stages/out/manifest.h"
#include "stages/resolve/keepstages.h"
#include "stages/out/outdir.h"
#include "stages/resolve/stepprogress.h"
#include "stages/resolve/step.h"
#include "stages/resolve/report.h"
#include "stages/resolve/nassau_p.h"
#include "stages/resolve/resolution_p.h"
#include "stages/store/stagefile.h"
#include "tools/modulearg.h"
#include "tools/resolved.h"

#define MAX_STEM 1000

enum { MODULE, STEM, MAX_S, MAX_T, ALGORITHM, UNSTABLE, OUT, SSEQ, SSEQ_NAME, QUIET, VERBOSE, FORCE, KEEP, MEMORY, TIME_LIMIT,
       STRICT, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [MODULE] = { "module", "NAME|FILE",
                 "module to resolve: S_2 (default, the sphere), a module of the modules/ folder (C2, Ceta, Cnu, "
                 "C2_eta, Joker, RP4, ko, tmf2, A-mod-Sq1-Sq2, ...) or a module file (JSON, docs/modules.md); "
                 "NAME[k] moves it up k degrees (C2[-2]); M*N is the tensor product of two finite modules (C2*Ceta: "
                 "out/C2_sm_Ceta), D(M) the dual of a finite module (D(Joker): out/D_Joker). At an odd prime "
                 "(\"p\": 3, ...: S_3, C3, S_5, S_7, Calpha, X3, C3v1, C5v1, C9, C3v1b1, l, t1, y1_3, y2_3): Ext "
                 "over A_p, standard algorithm, one process; products and massey work there; d2 refuses it so far",
                 NULL, NULL },
    [STEM] = { "stem", "N", "every bidegree with stem n = t - s <= N (default 40)", NULL, NULL },
    [MAX_S] = { "max-s", "S", "and s <= S (default (N - c)/2 + 2, c the module's bottom degree)", NULL, NULL },
    [MAX_T] = { "max-t", "T", "instead: every bidegree with t <= T (and s <= S)", NULL, NULL },
    [ALGORITHM] = { "algorithm", "NAME", "nassau (Nassau's algorithm: the default for S_2 and finite modules "
                    "without a profile at p = 2; at odd p for modules over A_p, when asked) or standard "
                    "(the default for the others)", NULL, NULL },
    [UNSTABLE] = { "unstable", NULL, "Ext over the unstable Steenrod algebra: resolve an unstable module (S_2[n] is "
                   "the sphere S^n; a finite module with Sq^i x = 0 for i > |x|, else refused; RP_n^inf for n >= 0) "
                   "by free unstable modules, the standard algorithm (docs/unstable.md); at an odd prime (S_3[n] is "
                   "S^n at p = 3) a finite module with b^e P^i x = 0 for 2i + e > |x|; default DIR "
                   "out/NAME-unstable. products --map between two such resolutions (p = 2) gives the suspension maps",
                   NULL, NULL },
    [OUT] = { "out", "DIR", "output directory (default out/NAME); an existing one must be empty or hold an "
              "extflow resolution", NULL, NULL },
    [SSEQ] = { "sseq-formats", NULL, "also write differentials.txt, num_gens.txt, resolution_size.txt and, with "
               "--unstable, resolve_unstable.txt (sseq's resolve_unstable chart, from the module's bottom stem) and "
               "unstable_chart.txt (this module's TikZ figure of sseq's unstable_chart); a later run without it rewrites those that are there, so they stay current)", NULL, NULL },
    [SSEQ_NAME] = { "sseq-name", "TEMPLATE", "(with --unstable --sseq-formats) unstable_chart.txt's label, % replaced "
                    "by k for a module NAME[k] (0 without [k]), as sseq's unstable_chart takes it; default $S^{%}$ for a "
                    "sphere, the module's name otherwise; not kept in DIR: a later run that rewrites the file without it "
                    "writes the default label", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line and no closing summary", NULL, NULL },
    [VERBOSE] = { "verbose", NULL, "also show StarPU's own messages (calibration, warnings), which workers and "
                  "scheduler it started, and at the end the memory account (MB by kind: docs/perf.md)", NULL, NULL },
    [FORCE] = { "force", NULL, "DIR holds another module's or algorithm's resolution: delete it (stage files, "
                "tables, run.json) and start afresh", NULL, NULL },
    [KEEP] = { "keep-stages", "LIST", "also save each step's matrix and/or kernel (LIST: matrix,kernel) under "
               "DIR/stages/matrix/ and DIR/stages/kernel/ (inspect, verify): those of the steps this run computes, "
               "so refused where DIR is complete over the region already", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "memory the run keeps to (bytes, or with K, M, G, T); bidegrees start only while "
                 "their predicted matrices fit, one at a time if need be (default: 80% of the available memory or "
                 "cgroup limit; less than the region's tables and one bidegree is refused, and so is more than the "
                 "machine, its cgroup limit or ulimit -v gives; more than is available now is said in one line)",
                 NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "SEC seconds after the start (the start-up counts, and stops there too) "
                     "start no more bidegrees: those running finish, the stage files are flushed, and the exit "
                     "status is 3 (rerun to resume)", NULL, NULL },
    [STRICT] = { "strict", NULL, "a stem region to stem 70 or more predicts its cost once stems 30-50 are done (the "
                 "growth of their work and of the largest step's memory); where that is more than --time-limit or "
                 "the machine's memory, one line says so and the run goes on; with --strict it stops there instead "
                 "(running steps finish, finished bidegrees are kept, exit 2)", NULL, NULL },
};

/* What a run resolves and how, once the options are read. */
typedef struct resolve_args {
    fd_module *fdm;             /* NULL: S_2 */
    const char *module_name, *out;
    int alg, region, stem, max_s, max_t, quiet, verbose, unstable;
    unsigned keep;
    chain_policy limits;
} resolve_args;

/* --keep-stages LIST: comma-separated kind names (matrix, kernel) → bits 1 << kind. */
static int parse_keep_stages(const char *list, unsigned *kinds)
{
    char buf[64];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf || !buf[0]) return -1;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (!strcmp(w, "matrix")) *kinds |= 1u << STAGE_MATRIX;
        else if (!strcmp(w, "kernel")) *kinds |= 1u << STAGE_KERNEL;
        else return -1;
    }
    return *kinds ? 0 : -1;
}

/* Loads the finished bidegrees of res's directory: rank 0 first (it may rewrite a damaged
 * journal), then the others, which must find the same ones (a directory that is not shared
 * fails the run here). Returns how many, or -1 with res's error set on every rank. */
static long load_everywhere(resolution *res, int rank, int nranks)
{
    long loaded = 0;
    if (rank == 0) loaded = res_load_stages(res);
    if (nranks > 1) {
        rt_mpi_barrier();
        if (rank != 0) {
            res->load_action = NULL;        /* rank 0 has said it */
            loaded = res_load_stages(res);
        }
        size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
        uint8_t *first = malloc(cells);
        int differ = !first;
        if (first) {
            memcpy(first, res->done, cells);
            rt_mpi_bcast(first, cells);
            differ = memcmp(first, res->done, cells) != 0;
            free(first);
        }
        if (rt_mpi_max(differ || res_failed(res))) {
            if (!res_failed(res)) res_fail(res, "the ranks do not find the same finished bidegrees in %s "
                                           "(it must be one directory that every rank sees)", res->outdir);
            return -1;
        }
    }
    return res_failed(res) ? -1 : loaded;
}

/* The region's shape in the resolution's degrees (a.region, stem or max_t, max_s), from the
 * options: 0, or 2 after a usage error. */
static int resolve_region(resolve_args *a, long stem, long max_s, long max_t, deg_t shift)
{
    if (stem >= 0 && max_t >= 0) return cli_usage_error("give --stem or --max-t, not both");
    a->region = max_t >= 0 ? REGION_RECT : REGION_STEM;
    if (a->region == REGION_STEM && stem < 0) stem = 40;
    /* The region is given in the module's degrees; inside, degrees start at its bottom class
     * when that is negative (res_module_shift). The default max s follows the connectivity c
     * (the bottom degree): (N - c) / 2 + 2, above the vanishing line of slope 1/2 from there. */
    deg_t conn = a->fdm && !fdm_is_sphere(a->fdm) ? a->fdm->min_deg : 0;
    if (max_s < 0) {
        long span = (a->region == REGION_STEM ? stem : max_t) - conn;
        max_s = (span > 0 ? span : 0) / 2 + 2;
    }
    if (a->region == REGION_STEM) stem -= shift;
    else max_t -= shift;
    if (a->region == REGION_RECT && max_s > max_t) max_s = max_t;
    if ((a->region == REGION_STEM ? stem + max_s + 1 : max_t) > MILNOR_MAX_DEGREE)
        return cli_usage_error("region too large: t would exceed %d", MILNOR_MAX_DEGREE);
    a->stem = (int)stem, a->max_s = (int)max_s, a->max_t = (int)max_t;
    return 0;
}

/* The tables of a finished run (rank 0), ext.csv last (its presence means the run is complete)
 * and run.json after it; 0, or 1 after a line. */
static int write_tables(const resolution *res, const char *out, int sseq_formats)
{
    static const struct { const char *name; int (*write)(FILE *, const resolution *); int sseq; } files[] = {
        { "chart.txt", report_chart_txt, 0 },
        { "chart.svg", chart_write_svg, 0 },
        { "chart.html", chart_write_html, 0 },
        { "differentials.txt", report_differentials, 1 },
        { "num_gens.txt", report_num_gens, 1 },
        { "resolution_size.txt", report_resolution_size, 1 },
        { "resolve_unstable.txt", report_resolve_unstable, 1 },     /* --unstable only */
        { "unstable_chart.txt", report_unstable_chart, 1 },         /* --unstable only */
        { "ext.csv", report_ext_csv, 0 },
    };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        /* sseq's texts where asked or left by an earlier run (rewritten: a stale one would
         * contradict ext.csv); the differentials text at p = 2 only */
        if (res->prime != 2 && files[i].write == report_differentials) {
            outdir_remove(out, files[i].name);
            continue;
        }
        if ((files[i].write == report_resolve_unstable || files[i].write == report_unstable_chart) && !res->unstable)
            continue;
        if (files[i].sseq && !sseq_formats && !resolved_has(out, files[i].name)) continue;
        if (report_write_file(out, files[i].name, res, files[i].write) != 0) {
            fprintf(stderr, "extflow: cannot write %s/%s: %s\n", out, files[i].name, strerror(errno));
            return 1;
        }
    }
    if (manifest_write(out, res) != 0) {
        fprintf(stderr, "extflow: cannot write %s/%s: %s\n", out, MANIFEST_NAME, strerror(errno));
        return 1;
    }
    return 0;
}

/* The derived tables (DIR/tables.json) that cover less than the region just written, named in
 * one line: the charts and export mark them partial until their commands run again. */
typedef struct partial_list { char text[1024]; size_t len; const resolution *res; } partial_list;

static void partial_add(void *ctx, const char *table, const run_region *r)
{
    partial_list *l = ctx;
    char where[64];
    region_describe(where, sizeof where, r, l->res->shift);
    if (l->len < sizeof l->text)
        l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%s%s (%s)", l->len ? ", " : "", table,
                                   where);
}

static void say_partial_tables(const resolution *res, const char *out)
{
    partial_list l = { .res = res };
    run_region r = region_of(res);
    char where[64];
    if (!manifest_partial_tables(out, &r, partial_add, &l)) return;
    region_describe(where, sizeof where, &r, res->shift);
    fprintf(stderr, "extflow: %s cover less than %s: rerun the commands that wrote them to extend them (the charts and "
            "export mark them partial)\n", l.text, where);
}

/* A step's predicted bytes, as the budget admits it (for the forecast). */
static uint64_t step_footprint(const resolution *res, int s, deg_t t)
{
    return step_algo_for(res, s, t)->footprint((void *)res, s, t);
}

/* The stop at the time limit: how many bidegrees are done, through which stem, and the time
 * left at this run's rate. */
static void resolve_stopped(const resolution *res, const chain_policy *limits, long loaded, long computed,
                            double seconds, double work_done, double work_left)
{
    long left = 0;
    int through = -1;   /* every bidegree of stem <= through is done */
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) left += res_in_region(res, s, t) && !res_is_done(res, s, t);
    for (int n = 0, full = 1; full && n <= res->max_n; n++) {
        for (int s = 0; s <= res->max_s && full; s++) full = !res_in_region(res, s, s + n) || res_is_done(res, s, s + n);
        if (full) through = n;
    }
    /* nothing complete or nothing computed yet: say so, never a stem -1 or -1 s */
    char stems[64], rate[160];
    if (through >= 0) snprintf(stems, sizeof stems, "complete through stem %d", through + (int)res->shift);
    else snprintf(stems, sizeof stems, "no stem complete yet");
    if (progress_refused() && !progress_stop_signal())   /* --strict: the forecast line said what is left */
        snprintf(rate, sizeof rate, "the line above has the forecast; rerun without --strict to resume");
    else if (work_done > 0)
        snprintf(rate, sizeof rate, "about %.0f s more at this run's rate (estimated work left %.3g, done %.3g; "
                 "rerun to resume)", seconds * work_left / work_done, work_left, work_done);
    else snprintf(rate, sizeof rate, "no estimate of the time left, as this run computed nothing (start-up "
                  "%.1f s; rerun to resume%s)", clock_now() - limits->start - seconds,
                  progress_stop_signal() ? "" : ", with a larger --time-limit");
    if (rt_mpi_rank() == 0) fprintf(stderr, "extflow: stopped %s after %.1f s: %ld of %ld bidegrees "
            "done, %s; %s%s\n", runpolicy_stop_cause(), clock_now() - limits->start, loaded + computed - left,
            loaded + computed, stems, rate, runpolicy_stop_suffix());
}

/* resolve's outcome, agreed over the ranks: 0 done, 1 failed (res's error, one line from rank 0,
 * finished bidegrees kept), 3 stopped at the time limit (one line from rank 0 with where the
 * run stands and an estimate of the time left). rc is res_run's; loaded and computed count
 * the bidegrees loaded and left to compute at the start, seconds the run's time, work_done and
 * work_left the progress line's estimate (progress_work). */
static int resolve_outcome(resolution *res, int rc, const chain_policy *limits, long loaded, long computed,
                              double seconds, double work_done, double work_left)
{
    /* a failure on any rank, else a stop on any rank (ranks count their time limits apart; one
     * may have finished its last step in time) */
    char agreed[sizeof res->error];
    snprintf(agreed, sizeof agreed, "%s", res->error);
    int failed = rt_mpi_agree_failure(res_failed(res), agreed, sizeof agreed);
    if (failed) {       /* the same failure on every rank */
        res_fail(res, "%s", agreed);
        snprintf(res->error, sizeof res->error, "%s", agreed);
    }
    if (!failed && rt_mpi_max(rc == 1)) {
        resolve_stopped(res, limits, loaded, computed, seconds, work_done, work_left);
        return progress_refused() && !progress_stop_signal() ? 2 : 3;
    }
    if (failed || rc != 0) {
        if (rt_mpi_rank() == 0) fprintf(stderr, "extflow: %s (finished bidegrees are kept; rerun to resume)\n", res->error);
        return 1;
    }
    return 0;
}

/* resolve's closing line (stderr): the region, the algorithm, how many bidegrees (loaded) and
 * how long; the table. */
static void resolve_report(const resolution *res, const char *out, long bidegrees, long computed, double seconds)
{
    char where[64];
    run_region r = region_of(res);
    region_describe(where, sizeof where, &r, res->shift);
    char loaded[48] = "";
    if (bidegrees > computed) snprintf(loaded, sizeof loaded, " (%ld loaded)", bidegrees - computed);
    fprintf(stderr, "extflow: %s to %s, %s: %ld bidegrees%s in %.1f s; table %s/ext.csv\n", res->module_name, where,
            stage_algorithm_name(res->algorithm), bidegrees, loaded, seconds, out);
}

/* The standard step's lookahead (stages/resolve/standard.h): EXTFLOW_LOOKAHEAD (0 or 2..64,
 * tools/env.c refuses the rest), else 4 where many CPU workers wait on the chain of reductions
 * along t (one process: ranks must agree on the DAG). */
static int lookahead_of(int distributed)
{
    const char *e = getenv("EXTFLOW_LOOKAHEAD");
    if (e && *e) return atoi(e) >= 2 ? atoi(e) : 0;
    return !distributed && rt_cpu_workers() >= 8 ? 4 : 0;
}

/* Nassau's finish in parts (stages/resolve/nassau.h): EXTFLOW_FINISH_SPLIT block entries a
 * part, else res_init's RES_FINISH_SPLIT. */
static uint64_t finish_split_of(void)
{
    const char *e = getenv("EXTFLOW_FINISH_SPLIT");
    return e && *e ? strtoull(e, NULL, 10) : RES_FINISH_SPLIT;
}

/* The budget of the odd-p products Nassau's steps keep (stages/resolve/nassau_p.h): EXTFLOW_P_PRODUCTS
 * bytes (0: none kept); else a quarter of a --memory budget (limits: the user's, 0 without
 * --memory), or a sixteenth of the machine's memory, at least NASSAU_P_PRODUCTS_BYTES: the table
 * grows only as far as the run asks. */
static uint64_t products_budget_of(const chain_policy *limits)
{
    const char *e = getenv("EXTFLOW_P_PRODUCTS");   /* checked by cli_check_env */
    uint64_t bytes;
    if (e && !strcmp(e, "0")) return 1;     /* res_odd's 0 is the default; one byte holds not even a table */
    if (e && runpolicy_parse_size(e, &bytes) == 0) return bytes;
    if (limits->memory_budget) return limits->memory_budget / 4;
    bytes = runpolicy_memory_total() / 16;
    return bytes > NASSAU_P_PRODUCTS_BYTES ? bytes : NASSAU_P_PRODUCTS_BYTES;
}

/* The run on a set-up resolution: load what is done, start StarPU, resolve, agree on the
 * outcome, write the tables. */
static int resolve_compute(resolve_args *a, outdir *dir, resolution *res)
{
    int rank = rt_mpi_rank(), nranks = rt_mpi_size();
    char err[600];
    long loaded = load_everywhere(res, rank, nranks), total = 0;
    if (loaded < 0) {
        if (rank == 0) fprintf(stderr, "extflow: %s\n", res->error);
        return 1;
    }
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++) total += res_in_region(res, s, t) && !res_is_done(res, s, t);
    if (!a->quiet && loaded) fprintf(stderr, "extflow: resumed %ld bidegrees from %s/stages\n", loaded, a->out);
    /* over a profile's B every multiply task is CPU-only: no CUDA context (time, memory) */
    int cuda = res_algebra_is_whole(res);
    if ((cuda ? rt_init : rt_init_cpu)(a->verbose, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        outdir_undo(dir);      /* nothing was computed: DIR as it was found */
        return 1;
    }
    chain_policy policy = runpolicy_resolve(&a->limits, a->verbose);
    /* under mpirun a rank's stderr is a pipe, but its stdout is a terminal when mpirun's is */
    progress_start(res, !a->quiet && (isatty(2) || (nranks > 1 && isatty(1))));
    if (rank == 0)
        progress_forecast_arm(res, a->limits.time_limit, a->limits.start, runpolicy_memory_total(), opts[STRICT].arg != NULL,
                              step_footprint);
    chain_set steps = step_chain_set(res);
    rt_dist *dist = rt_dist_new(&steps);    /* before any task: it takes the pending set all ranks share */
    res->lookahead = lookahead_of(dist != NULL);
    res->finish_split = finish_split_of();
    /* the user's limits, not policy: policy's budget is never 0 (80% of the memory available) */
    if (res->odd) res->odd->products_bytes = products_budget_of(&a->limits);
    chain_runner runner = rt_chain_runner_dist(policy, dist);
    int rc = res_run(res, &runner);
    double work_done, work_left;
    progress_work(&work_done, &work_left);
    double seconds = progress_finish();
    rt_shutdown();
    if (a->verbose && rank == 0) memacct_print(stderr);
    /* every rank's stage files are durable (res_run flushed them) before this returns */
    rc = resolve_outcome(res, rc, &a->limits, loaded, total, seconds, work_done, work_left);
    if (rc == 0 && rank == 0) {        /* rank 0 writes the reports: it received every bidegree */
        rc = write_tables(res, a->out, opts[SSEQ].arg != NULL);
        if (!rc && !a->quiet) resolve_report(res, a->out, loaded + total, total, seconds);
        if (!rc && !a->quiet) say_partial_tables(res, a->out);
    }
    return rc;
}

/* The run itself, once DIR is ready (rank 0) and every rank knows the region: the resolution
 * set up (the Milnor tables, the module), resolve_compute, the resolution cleared. */
static int resolve_run(resolve_args *a, outdir *dir)
{
    resolution res;
    /* --time-limit counts from the command's start; one process checks it during the start-up
     * too (the Milnor tables and their flat copy: seconds at stem 400), ranks from their steps */
    if (a->limits.time_limit > 0 && rt_mpi_size() == 1) milnor_set_deadline(a->limits.start + a->limits.time_limit);
    int rc = res_init_module(&res, a->region, a->stem, a->max_s, (deg_t)a->max_t, a->out, 1, a->alg, a->fdm);
    if (rc == 0) keep_stages_save(&res, a->keep);
    if (rc == 0 && a->unstable) rc = res_set_unstable(&res);
    if (rc == 0) rc = res_set_module(&res, a->fdm, a->module_name);
    if (rc == MILNOR_STOPPED)
        fprintf(stderr, "extflow: stopped at the time limit after %.1f s, still building the Milnor tables: no "
                "bidegree computed (the start-up alone takes longer: give a larger --time-limit)%s\n",
                clock_now() - a->limits.start, runpolicy_stop_suffix());
    else if (rc != 0) fprintf(stderr, "extflow: out of memory setting up the resolution\n");
    rc = rc == MILNOR_STOPPED ? 3 : rc != 0 ? 1 : resolve_compute(a, dir, &res);
    res_clear(&res);
    return rc;
}

/* The run's checks (environment, memory), DIR made ready by rank 0 (the others learn the
 * outcome and the region, perhaps widened to DIR's), then resolve_run. */
static int resolve_with(resolve_args *a, long stem, long max_s, long max_t)
{
    int prc;
    deg_t shift = res_module_shift(a->fdm);
    if ((prc = resolve_region(a, stem, max_s, max_t, shift)) != 0) return prc;
    if ((prc = cli_check_env(a->verbose)) != 0) return prc;
    uint64_t setup_bytes = res_setup_bytes(a->region, a->stem, a->max_s, (deg_t)a->max_t, a->fdm);
    uint64_t least = admission_min_budget(setup_bytes);
    if (a->limits.memory_budget && a->limits.memory_budget < least)
        return cli_usage_error("--memory: %llu bytes are less than this region needs for its tables and one "
                               "bidegree (at least %lluM)", (unsigned long long)a->limits.memory_budget,
                               (unsigned long long)((least + (1u << 20) - 1) >> 20));
    if (runpolicy_refuse_if_too_big(setup_bytes, "this region")) return 2;
    int rank = rt_mpi_rank(), nranks = rt_mpi_size();
    if (nranks > 1 && a->fdm && fdm_prime(a->fdm) != 2)     /* the exchanges carry F2 rows */
        return cli_usage_error("a resolution at p = %u runs in one process so far (not under mpirun)",
                               fdm_prime(a->fdm));
    if (nranks > 1 && a->unstable) return cli_usage_error("--unstable runs in one process so far (not under mpirun)");
    if (rank != 0) a->quiet = 1;
    struct { int status; run_region want; } setup = { 0, { a->region, a->stem, a->max_t, a->max_s } };
    outdir dir;
    outdir_init(&dir, a->out);
    if (rank == 0) {
        char err[4400];
        setup.status = outdir_prepare(&dir, a->fdm, a->module_name, a->alg, a->unstable, opts[FORCE].arg != NULL,
                                      a->quiet ? NULL : stderr, a->keep, &setup.want, shift, err, sizeof err);
        if (setup.status) fprintf(stderr, "extflow: %s\n", err);
    }
    rt_mpi_bcast(&setup, sizeof setup);
    if (setup.status == 0) {
        a->region = setup.want.kind, a->stem = setup.want.stem, a->max_t = setup.want.max_t;
        a->max_s = setup.want.max_s;
        setup.status = resolve_run(a, &dir);
    }
    outdir_release(&dir);
    return setup.status;
}

/* --unstable with the module m (named `module` on the command line): 0, or 2 after the one line
 * that says why it is refused (an odd prime, a profile, an infinite or cofiber module, or a
 * class x with Sq^i x != 0 for some i > |x|). */
static int unstable_refusal(const fd_module *m, const char *module)
{
    char why[256];
    if (m->has_profile || m->fp || m->has_cofiber || (fdm_prime(m) != 2 && !milnor_p_profile_is_full(&m->pprofile)))
        return cli_usage_error("--unstable: finite modules and projective spaces over A (A_p at odd p) only so far, "
                               "not %s (a profile, a presentation or a cofiber)", module);
    /* RP_n^inf moved up k: Sq^i x^e = binom(e, i) x^(e+i), 0 for i > e >= 0; but Sq^e x^e = x^2e != 0
     * though e > e + k when k < 0, and a negative e has Sq^i x^e != 0 for some i > |x^e| */
    if (m->rp_open && (m->rp_min < 0 || m->rp_offset < 0))
        return cli_usage_error("--unstable: %s is not an unstable module: a projective space RP_n^inf is one for n >= 0 "
                               "and no downward shift", module);
    if (!m->rp_open && !res_module_is_unstable(m, why, sizeof why))
        return cli_usage_error("--unstable: %s is not an unstable module: %s", module, why);
    return 0;
}

static int run(const char **operands, int n)
{
    (void)operands, (void)n;
    double began = clock_now();      /* --time-limit counts from here */
    const char *module = opts[MODULE].arg ? opts[MODULE].arg : "S_2", *algorithm = opts[ALGORITHM].arg;
    long stem = -1, max_s = -1, max_t = -1;
    resolve_args a = { .quiet = opts[QUIET].arg != NULL, .verbose = opts[VERBOSE].arg != NULL,
                       .unstable = opts[UNSTABLE].arg != NULL };
    int prc;
    if (opts[SSEQ_NAME].arg && (!opts[UNSTABLE].arg || !opts[SSEQ].arg))
        return cli_usage_error("resolve: --sseq-name is the label of unstable_chart.txt: give it with --unstable "
                               "--sseq-formats");
    if (opts[SSEQ_NAME].arg && report_set_chart_name(opts[SSEQ_NAME].arg) != 0)
        return cli_usage_error("resolve: --sseq-name: at most 200 characters");
    if ((prc = cli_opt_count(&opts[STEM], MAX_STEM, &stem)) || (prc = cli_opt_count(&opts[MAX_S], MAX_STEM, &max_s)) ||
        (prc = cli_opt_count(&opts[MAX_T], MAX_STEM, &max_t)) ||
        (prc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &a.limits)))
        return prc;
    if (opts[OUT].arg && !*opts[OUT].arg) return cli_usage_error("--out wants a directory name, not ''");
    if (opts[KEEP].arg && parse_keep_stages(opts[KEEP].arg, &a.keep) != 0)
        return cli_usage_error("--keep-stages wants matrix, kernel or matrix,kernel, not '%s'", opts[KEEP].arg);
    a.alg = !algorithm ? 0 : !strcmp(algorithm, "standard") ? ALG_STANDARD : !strcmp(algorithm, "nassau") ? ALG_NASSAU : -1;
    if (a.alg < 0) return cli_usage_error("unknown algorithm '%s' (choose standard or nassau)", algorithm);
    if (a.unstable && a.alg == ALG_NASSAU)
        return cli_usage_error("--unstable: Nassau's algorithm resolves over A only (use --algorithm standard, the "
                               "default with --unstable)");
    fd_module fdm;
    char module_name[64] = "S_2", default_out[96];
    if (strcmp(module, "S_2") != 0) {
        if ((prc = modulearg_load(module, &fdm, module_name, sizeof module_name)) != 0) return prc;
        a.fdm = &fdm;
        if (fdm_is_sphere(&fdm)) {          /* the sphere from a file: the built-in S_2 */
            a.fdm = NULL;
        } else if (a.alg == ALG_NASSAU && !res_nassau_applies(&fdm) && !res_nassau_p_applies(&fdm)) {
            prc = cli_usage_error("--algorithm nassau resolves S_2 and finite modules without a profile or a "
                                  "cofiber, not %s (use --algorithm standard, its default)", module);
        } else if (fdm_prime(&fdm) != 2 && a.keep) {
            prc = cli_usage_error("--keep-stages: not at p = %u yet (%s)", fdm_prime(&fdm), module);
        } else if (a.unstable) {
            prc = unstable_refusal(&fdm, module);
        }
        if (!a.fdm || prc) fdm_clear(&fdm);
        if (prc) return prc;
    }
    if (!a.alg) a.alg = !a.unstable && (!a.fdm || res_nassau_applies(a.fdm)) ? ALG_NASSAU : ALG_STANDARD;
    snprintf(default_out, sizeof default_out, "out/%s%s", module_name, a.unstable ? "-unstable" : "");
    a.module_name = module_name;
    a.out = opts[OUT].arg ? opts[OUT].arg : default_out;
    prc = resolve_with(&a, stem, max_s, max_t);
    if (a.fdm) fdm_clear(a.fdm);
    return prc;
}

const cli_command cmd_resolve = {
    "resolve",
    "resolve a module; writes DIR/ext.csv, DIR/chart.txt, DIR/chart.svg, DIR/chart.html (the chart to explore in "
    "a browser), per-bidegree stage files under DIR/stages/ (a rerun resumes from them) and DIR/run.json (which "
    "resolution DIR holds, how far it is complete)",
    opts, 0, CLI_SHARED, run,
};
