/* extflow — command-line front end: resolve, algebra, inspect, verify, export, products, pack.
 * Exit status: 0 success, 1 runtime failure, 2 usage error, 3 stopped at --time-limit. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <fnmatch.h>
#include <ftw.h>
#include <starpu.h>
#include "algebra/clock.h"
#include "algebra/fdmodule.h"
#include "algebra/memacct.h"
#include "runtime/admission.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "stages/secondary_product.h"
#include "runtime/rt_mpi.h"
#include "stages/chart.h"
#include "stages/cofiber.h"
#include "stages/durable.h"
#include "stages/keepstages.h"
#include "stages/manifest.h"
#include "stages/massey.h"
#include "stages/secondary.h"
#include "stages/products.h"
#include "stages/sqlexport.h"
#include "stages/progress.h"
#include "stages/report.h"
#include "stages/stagefile.h"
#include "stages/verify.h"
#include "stages/version.h"

#define MAX_STEM 1000

static const char *usage_text =
    "usage: extflow <command> [options]\n"
    "       extflow --version\n"
    "\n"
    "Computes Ext_A^{s,t}(M, F2) over the mod 2 Steenrod algebra by resolving M.\n"
    "\n"
    "commands:\n"
    "  resolve    resolve a module; writes DIR/ext.csv, DIR/chart.txt, DIR/chart.svg,\n"
    "             DIR/chart.html (the chart to explore in a browser), per-bidegree\n"
    "             stage files under DIR/stages/ (a rerun resumes from them) and\n"
    "             DIR/run.json (which resolution DIR holds, how far it is complete)\n"
    "      --module NAME|FILE module to resolve: S_2 (default, the sphere), a module\n"
    "                         of the modules/ folder (C2, Ceta, Cnu, C2_eta, Joker,\n"
    "                         RP4, ko, tmf2, A-mod-Sq1-Sq2, ...) or a module file\n"
    "                         (JSON, docs/modules.md); NAME[k] moves it up k degrees\n"
    "                         (C2[-2]). At an odd prime (\"p\": 3, ...: S_3, C3,\n"
    "                         S_5): Ext over A_p, standard algorithm, one process;\n"
    "                         verify, products, massey and d2 refuse it so far\n"
    "      --stem N           every bidegree with stem n = t - s <= N (default 40)\n"
    "      --max-s S          and s <= S (default (N - c)/2 + 2, c the module's\n"
    "                         bottom degree)\n"
    "      --max-t T          instead: every bidegree with t <= T (and s <= S)\n"
    "      --algorithm NAME   nassau (Nassau's algorithm: the default for S_2 and\n"
    "                         finite modules without a profile) or standard (the\n"
    "                         default for the others)\n"
    "      --out DIR          output directory (default out/NAME); an existing one\n"
    "                         must be empty or hold an extflow resolution\n"
    "      --sseq-formats     also write differentials.txt, num_gens.txt,\n"
    "                         resolution_size.txt\n"
    "      --quiet            no progress line and no closing summary\n"
    "      --verbose          also show StarPU's own messages (calibration,\n"
    "                         warnings), which workers and scheduler it started,\n"
    "                         and at the end the memory account (MB by kind:\n"
    "                         docs/perf.md)\n"
    "      --force            DIR holds another module's or algorithm's resolution:\n"
    "                         delete it (stage files, tables, run.json) and start\n"
    "                         afresh\n"
    "      --keep-stages LIST also save each step's matrix and/or kernel (LIST:\n"
    "                         matrix,kernel) under DIR/stages/matrix/ and\n"
    "                         DIR/stages/kernel/ (inspect, verify)\n"
    "      --memory SIZE      memory the run keeps to (bytes, or with K, M, G, T);\n"
    "                         bidegrees start only while their predicted matrices\n"
    "                         fit, one at a time if need be (default: 80% of the\n"
    "                         available memory or cgroup limit; less than the\n"
    "                         region's tables and one bidegree is refused)\n"
    "      --time-limit SEC   SEC seconds after the start (the start-up counts, and\n"
    "                         stops there too) start no more bidegrees: those\n"
    "                         running finish, the stage files are flushed, and the\n"
    "                         exit status is 3 (rerun to resume)\n"
    "  algebra    --max-degree N: print degree,dim of the Milnor basis of A as CSV\n"
    "  inspect    FILE [--summary]: print a stage file's header and matrix (with\n"
    "             --summary: shape, rank, density), or the records of a journal of\n"
    "             empty bidegrees (DIR/stages/empty.log; with --summary: their\n"
    "             counts); the kind of file is read from its first bytes, not from\n"
    "             its name\n"
    "  verify     DIR: check every stage file of a resolution (checksums, headers,\n"
    "             that it loads, d∘d = 0), that DIR/run.json's complete region is\n"
    "             all there, and DIR/ext.csv against them; recomputes kept matrices\n"
    "             and kernels (--keep-stages); names each missing or bad bidegree\n"
    "             once. The d∘d checks run as StarPU tasks (their products on\n"
    "             CPU or CUDA workers), with a progress line on a terminal; the\n"
    "             report is the same for any number of workers, and of ranks\n"
    "             (mpirun: several machines below). While another run holds\n"
    "             DIR: one line, exit 2\n"
    "      --memory SIZE      as for resolve: the checks wait to stay under it\n"
    "      --time-limit SEC   after SEC seconds no check starts; exit 3, one line,\n"
    "                         no report (a rerun checks everything again)\n"
    "      --quiet            no progress line\n"
    "  export     DIR --json [--out FILE]: write the chart's JSON document\n"
    "             (classes, h0, h1, h2 products, DIR/products.csv and DIR/d2.csv\n"
    "             when present; the one chart.html embeds; schema/chart-json.md)\n"
    "             to stdout, or to FILE\n"
    "             DIR --sqlite FILE: write one SQLite database instead: the Ext\n"
    "             basis with the chart's names, the h0, h1, h2 products, run.json\n"
    "             as keys and values, and the tables DIR/products.csv,\n"
    "             module-products.csv, massey-*.csv and d2.csv where present, a\n"
    "             row per line (schema/sqlite.md). FILE is replaced only once the\n"
    "             whole database is written; FILE's directory must exist\n"
    "  products   DIR --class C [--class C ...]: products with the classes C over\n"
    "             the resolution of the sphere in DIR (from resolve, either\n"
    "             algorithm), by lifting each class to a chain map; writes\n"
    "             DIR/products.csv (name,name_n,name_s,n,s,i,k: the coefficient of\n"
    "             x_(n+name_n, s+name_s, k) in name · x_(n,s,i) is 1; the chart\n"
    "             draws it) and the lifts' stage files under DIR/stages/lift/ (a\n"
    "             rerun resumes from them). Over a module M the classes are of\n"
    "             Ext(M, F2), lifted into a resolution of the unit F2: the table\n"
    "             is DIR/module-products.csv (x_(n,s,i) of the unit times name, in\n"
    "             M's Ext). F2 over a profile's algebra (ko, tmf2) is its own\n"
    "             unit, as S_2 is. A table from an earlier run keeps its rows of\n"
    "             other classes, first and in their order; this run's classes\n"
    "             replace their rows, after them. A table whose first line is\n"
    "             not that header, or with a line that is no such row, is\n"
    "             refused (exit 2) before anything is lifted\n"
    "      --unit UNITDIR     (a module's DIR only, required there) a resolution of\n"
    "                         F2 over DIR's algebra covering DIR's region: S_2\n"
    "                         over A, ko over A(1), tmf2 over A(2); a unit over\n"
    "                         another algebra is refused\n"
    "      --class C          NAME=n,s[,vector]: the class of Ext^{s,n+s} with these\n"
    "                         coordinates over the generators there, as [1,0] or\n"
    "                         10 (default [1]); or a bare h0..h7. NAME: letters,\n"
    "                         digits, _ . ^ + - (at most 63); up to 64 classes\n"
    "      --sseq-formats     also write DIR/lift_hom-NAME.txt per class: sseq's\n"
    "                         lift_hom output\n"
    "      --chart-products L the product lines DIR/chart.svg draws (rewritten,\n"
    "                         with chart.html): h0, h1, h2 and classes of this\n"
    "                         run, comma-separated (default h0,h1,h2); chart.html\n"
    "                         has every layer, and names a class c0, Ph1, ...\n"
    "                         where a lifted class's bidegree holds only it\n"
    "      --memory SIZE      as for resolve: steps start only while their\n"
    "                         predicted memory fits (default: 80% of the\n"
    "                         available memory)\n"
    "      --time-limit SEC   as for resolve: after SEC seconds no step starts;\n"
    "                         exit 3 with no table written; a rerun resumes from\n"
    "                         the steps' stage files\n"
    "      --quiet            no progress line and no closing summary\n"
    "  massey     DIR --a A --b B: the Massey products <A, B, c> for every class c\n"
    "             of DIR's resolved region with B·c = 0 (A·B must be 0), with their\n"
    "             indeterminacy, into DIR/massey-A-B.csv (A, B the classes' names);\n"
    "             a class is NAME=n,s[,vector] or h0..h7, as for products; over a\n"
    "             module M, c runs over Ext(M, F2) and a, b are classes of the unit\n"
    "             (S_2, or F2 over M's profile algebra)\n"
    "      --unit UNITDIR     as for products: required for a module's DIR\n"
    "      --sseq-formats     also write DIR/massey-A-B.txt, as sseq's massey\n"
    "                         example prints it\n"
    "      --memory, --time-limit, --quiet  as for products\n"
    "  d2         DIR: the Adams d2 of every class of DIR's resolved region whose\n"
    "             target is resolved, from the secondary Steenrod algebra, into\n"
    "             DIR/d2.csv; chart.svg and chart.html are redrawn with d2 as\n"
    "             arrows. The homotopy's stage files go under DIR/stages/lift/d2/\n"
    "             (a rerun resumes from them). Not for a profile's module or a\n"
    "             cofiber (module key 'cofiber')\n"
    "      --sseq-formats     also write DIR/secondary.txt, as sseq's secondary\n"
    "                         example prints it\n"
    "      --product C        (S_2 only) also the products of the class C\n"
    "                         (NAME=n,s[,vector] or h0..h7; it must survive d2) in\n"
    "                         Mod_{Cλ²}: DIR/secondary_product-NAME.txt, as sseq's\n"
    "                         secondary_product example prints them (h_j for a\n"
    "                         bare hj)\n"
    "      --memory, --time-limit, --quiet  as for products\n"
    "  pack       TEXT FILE: write the matrix of an inspect-style text file as a\n"
    "             stage file\n"
    "  help       this text (as does --help after any command)\n"
    "\n"
    "options:\n"
    "  --opt VALUE and --opt=VALUE are the same; an option may be given once. A\n"
    "  usage error is one line on stderr, then \"try 'extflow help'\", and exit\n"
    "  status 2.\n"
    "\n"
    "environment:\n"
    "  STARPU_SCHED   StarPU's scheduling policy: lws (default; eager when CUDA\n"
    "                 workers exist), eager, ws, prio, dmda, dmdas...\n"
    "  STARPU_NCPU    number of CPU workers; STARPU_NCUDA: number of CUDA workers\n"
    "                 (1 CPU worker or more; these change the order of work\n"
    "                 only, never a result)\n"
    "  STARPU_CALIBRATE  1: StarPU calibrates its performance models again;\n"
    "                 2: it also drops the history it had (0 to 2)\n"
    "  STARPU_HOME    where StarPU keeps its performance models (default\n"
    "                 $HOME/.starpu)\n"
    "  STARPU_SILENT  resolve sets it to 1 unless --verbose is given or it is\n"
    "                 already set; STARPU_SILENT=0 shows StarPU's messages as\n"
    "                 --verbose does\n"
    "  EXTFLOW_MMAP_THRESHOLD  allocations of this many bytes or more come from\n"
    "                 mmap and go back to the system when freed (default: 4194304\n"
    "                 with --memory, else glibc's own rule; 0: glibc's rule)\n"
    "  EXTFLOW_STATS  set: at the end, resolve prints the share of multiply work\n"
    "                 each kind of worker (CPU, CUDA) did, the task time of each\n"
    "                 piece of a step and the critical path (on several ranks:\n"
    "                 each rank's worker CPUs, exchange latency and the bytes it\n"
    "                 sent to the others); products prints the lifts' CPU seconds\n"
    "                 in products f(d z), solves and stage files, and the share of\n"
    "                 their Milnor products done inline, on CPU and on CUDA\n"
    "                 workers; d2 on several ranks, each rank's composite cells,\n"
    "                 their time and the bytes it sent to rank 0\n"
    "  EXTFLOW_GPU_STEP_PAIRS  with CUDA workers: steps of at least this many\n"
    "                 (job x term) pairs multiply on the GPUs, smaller ones on the\n"
    "                 CPUs (default 262144; off: any worker takes any chunk);\n"
    "                 EXTFLOW_GPU_CHUNK_PAIRS: chunk size there;\n"
    "                 EXTFLOW_GPU_CPU_SHARE=f (0..0.9, default 0): the last f of\n"
    "                 such a step's pairs go to the CPU workers in small chunks\n"
    "  EXTFLOW_GPU_PAIR_STEP_PAIRS  the same rule for d2's composites: bidegrees\n"
    "                 with at least this many mod-4 products multiply on the\n"
    "                 GPUs (default 4096; off: any worker takes any chunk)\n"
    "  EXTFLOW_GPU_KERNEL  the GPU multiply's kernel: atomic (default: one global\n"
    "                 atomic XOR per term) or shared (jobs binned by estimated\n"
    "                 cost, rows accumulated in shared memory)\n"
    "  EXTFLOW_GPU_VERIFY  1: every GPU chunk is computed again on the CPU, and\n"
    "                 the first difference fails the run (exit 1, one line); 0: off\n"
    "  EXTFLOW_D2_Y   where d2's composites multiply their Y terms: cpu (default:\n"
    "                 batched mod-2 products in the finish) or batch (as mod-4\n"
    "                 products beside the others, on the GPU where there is one;\n"
    "                 same results, not faster so far: docs/perf.md)\n"
    "  EXTFLOW_D2_INTERMEDIATE  where d2's homotopy multiplies its intermediate\n"
    "                 terms: multiply (default: planned as rows of the step's\n"
    "                 multiply tasks, on the GPU where large) or cpu (batched in\n"
    "                 the step's own tasks; same results)\n"
    "  EXTFLOW_RREF_THREADS  threads one large row reduction may use (default 1:\n"
    "                 each in its task's thread; more were slower so far)\n"
    "  EXTFLOW_LIFT_INLINE_PAIRS  a lift step (products, massey, d2) with fewer\n"
    "                 (job x term) pairs multiplies in its own task, others in\n"
    "                 multiply tasks (default: one CPU chunk, 12288, that no GPU\n"
    "                 would take; 0: every step in multiply tasks)\n"
    "  EXTFLOW_MPI_OWNER  several ranks: which rank computes row s: pairs\n"
    "                 (default, floor(s/2) mod N), rows (s mod N) or blocks (N\n"
    "                 bands of rows)\n"
    "  EXTFLOW_MPI_BIND  several ranks on one host: no leaves the CPUs to StarPU\n"
    "                 (default: the ranks split the host's CPUs, or keep the\n"
    "                 launcher's split)\n"
    "  STARPU_MPI_IDLE_SLEEP_US  several ranks, with extflow's StarPU build:\n"
    "                 microseconds StarPU-MPI's thread waits after a poll that\n"
    "                 found nothing (0 to 10000; default 100: no core kept for it,\n"
    "                 a worker on every core; 0: StarPU's polling, a core kept)\n"
    "  Every command that starts StarPU (resolve, products, massey, d2) checks these,\n"
    "  and each variable StarPU reads as a number (STARPU_SILENT, STARPU_PREFETCH,\n"
    "  STARPU_LIMIT_*_MEM, STARPU_SCHED_ALPHA, ...) or a CPU list, before it creates\n"
    "  anything: a bad value is a usage error. A resolve whose StarPU does not start\n"
    "  leaves DIR as it found it.\n"
    "\n"
    "several machines:\n"
    "  mpirun -np N extflow resolve ... (or srun) runs one resolution on N ranks,\n"
    "  each computing whole rows into the same (shared) DIR; rank 0 prints and\n"
    "  writes the tables. Same files as one process; a stopped run resumes with\n"
    "  any N. docs/cluster.md. mpirun -np N extflow products ... shares the\n"
    "  classes among the ranks (each lifts its own into DIR's stage files, rank 0\n"
    "  reads them all and writes the tables); massey ... shares the classes c\n"
    "  (each rank lifts its f_c and homotopies, rank 0 gathers the brackets and\n"
    "  writes the tables); d2 ... shares d2's composites (rank 0 gathers them,\n"
    "  runs the homotopy and --product alone and writes the tables); verify DIR\n"
    "  shares the rows (each rank checks its own, rank 0 prints one process's\n"
    "  report and exit status). Always the files of one process. export runs on\n"
    "  one process.\n"
    "\n"
    "exit status:\n"
    "  0 done, 1 runtime failure (finished bidegrees are kept: rerun to resume),\n"
    "  2 usage error or refusal (DIR holds another resolution, or is not empty and\n"
    "  holds none, or holds a region neither containing nor inside the one asked\n"
    "  for), 3 stopped at --time-limit, not finished (finished bidegrees are kept:\n"
    "  rerun to resume)\n";

/* A usage error: one line, then the hint; exit status 2. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
    if (rt_mpi_rank() != 0) return 2;   /* under MPI every rank sees the same error: rank 0 says it */
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "extflow: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'extflow help'\n");
    return 2;
}

/* Strict non-negative integer: digits only, no trailing garbage, <= max. */
static int parse_count(const char *s, long max, long *out)
{
    if (!s || !*s) return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9') return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno || v > max) return -1;
    *out = v;
    return 0;
}

/* A size: digits, then optionally K, M, G or T (powers of 1024); > 0. */
static int parse_size(const char *s, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    default: break;
    }
    if (errno || *end || v == 0 || v > (UINT64_MAX >> shift)) return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* One option of a command, in a table ended by { NULL }: a flag, or one that takes a value
 * (--name VALUE or --name=VALUE). parse_args sets arg (the value; the name for a flag). */
typedef struct cli_opt {
    const char *name;
    int takes_value;
    const char *arg;
} cli_opt;

/* Every command's arguments: the options in opts (each at most once), --help, "--" (the rest
 * are operands) and at most maxpos operands into pos. Returns -1 to go on, else the exit
 * status: 0 after printing the help, 2 after a usage error. */
static int parse_args(const char *cmd, int argc, char **argv, cli_opt *opts, const char **pos, int maxpos,
                      int *npos)
{
    int operands_only = 0;
    *npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (operands_only || a[0] != '-' || !a[1]) {
            if (*npos == maxpos) return usage_error("%s: unexpected argument '%s'", cmd, a);
            pos[(*npos)++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            operands_only = 1;
            continue;
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return 0;
        }
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        cli_opt *o = opts;
        while (o->name && (strlen(o->name) != len || strncmp(o->name, a, len) != 0)) o++;
        if (!o->name) return usage_error("%s: unknown option '%.*s'", cmd, (int)len, a);
        if (o->arg) return usage_error("%s: %s given twice", cmd, o->name);
        if (!o->takes_value && eq) return usage_error("%s: %s takes no value", cmd, o->name);
        if (o->takes_value && !eq && i + 1 == argc) return usage_error("%s: %s needs a value", cmd, o->name);
        o->arg = !o->takes_value ? o->name : eq ? eq + 1 : argv[++i];
    }
    return -1;
}

/* The value of a counting option, if given, into *out; 0, or 2 after a usage error. */
static int opt_count(const cli_opt *o, long max, long *out)
{
    if (!o->arg || parse_count(o->arg, max, out) == 0) return 0;
    return usage_error("%s wants an integer from 0 to %ld, not '%s'", o->name, max, o->arg);
}

static int cmd_algebra(int argc, char **argv)
{
    cli_opt o[] = { { "--max-degree", 1, NULL }, { NULL, 0, NULL } };
    const char *pos[1];
    int npos, rc = parse_args("algebra", argc, argv, o, pos, 0, &npos);
    if (rc >= 0) return rc;
    long maxd = -1;
    if ((rc = opt_count(&o[0], MILNOR_MAX_DEGREE, &maxd)) != 0) return rc;
    if (maxd < 0) return usage_error("algebra: --max-degree N is required");
    /* the dims by the counting recurrence: no element table (degree 1000 alone would need
     * ~300 GiB of elements), so every accepted degree completes at once */
    uint32_t *dim = malloc(((size_t)maxd + 1) * sizeof *dim);
    if (!dim || milnor_count_dims((deg_t)maxd, NULL, dim) != 0) {
        free(dim);
        fprintf(stderr, "extflow: out of memory\n");
        return 1;
    }
    printf("degree,dim\n");
    for (deg_t d = 0; d <= maxd; d++) printf("%d,%u\n", d, dim[d]);
    free(dim);
    return 0;
}

/* Memory this process may still take: MemAvailable (else physical RAM), and under a
 * `ulimit -v` the room left below it. */
static uint64_t memory_available(void)
{
    uint64_t avail = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    unsigned long long kb;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) avail = (uint64_t)kb * 1024;
    if (f) fclose(f);
    struct rlimit rl;
    unsigned long long pages = 0;
    f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%llu", &pages) != 1) pages = 0;
    if (f) fclose(f);
    unsigned long long limit, usage;     /* a cgroup v2 memory limit: the room left below it */
    f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f && fscanf(f, "%llu", &limit) == 1) {
        FILE *g = fopen("/sys/fs/cgroup/memory.current", "r");
        if (g && fscanf(g, "%llu", &usage) == 1 && limit - (usage < limit ? usage : limit) < avail)
            avail = limit - (usage < limit ? usage : limit);
        if (g) fclose(g);
    }
    if (f) fclose(f);
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        uint64_t used = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);
        uint64_t room = rl.rlim_cur > used ? rl.rlim_cur - used : 0;
        if (room < avail) avail = room;
    }
    return avail;
}

/* Refuses (exit 2, one line) a region whose fixed tables alone exceed the memory left. */
static int refuse_if_too_big(uint64_t need, const char *what)
{
    uint64_t avail = memory_available();
    if (need <= avail) return 0;
    if (rt_mpi_rank() == 0) fprintf(stderr, "extflow: %s needs %.1f GiB for its Milnor tables and bookkeeping alone, "
            "more than the %.1f GiB available\n", what, need / 1073741824.0, avail / 1073741824.0);
    return 2;
}

/* --memory and --time-limit (resolve, products, massey, d2): the run's limits, counting from
 * began. 0, or a usage error's exit status. */
static int parse_limits(const char *memory, const char *time_limit, double began, chain_policy *p)
{
    *p = (chain_policy){ .start = began };
    long seconds = 0;
    if (memory && parse_size(memory, &p->memory_budget) != 0)
        return usage_error("--memory wants a size such as 2G, 512M or 1000000 (bytes), not '%s'", memory);
    if (time_limit && (parse_count(time_limit, 100000000, &seconds) != 0 || seconds == 0))
        return usage_error("--time-limit wants a number of seconds from 1 to 100000000, not '%s'", time_limit);
    p->time_limit = (double)seconds;
    return 0;
}

/* The runner of products, massey and d2: their limits (the memory budget defaults to 80% of the
 * memory available, as resolve's), and the progress line over their steps unless quiet. */
static chain_runner lift_runner(const chain_policy *limits, int quiet, const char *noun)
{
    chain_policy p = *limits;
    if (!p.memory_budget) p.memory_budget = memory_available() / 10 * 8;
    p.progress_noun = quiet ? NULL : noun;
    p.progress_line = isatty(2);
    return rt_chain_runner_with(p);
}

/* A command that stopped at --time-limit after finishing `done` steps (-1: not counted): one
 * line, exit 3; its outputs are not written. */
static int stopped_at_limit(const char *cmd, const char *dir, const chain_policy *limits, long done)
{
    if (done != 0)
        fprintf(stderr, "extflow: %s stopped at the time limit after %.1f s; its finished steps%s are kept under "
                "%s/stages/lift (rerun to resume); no table was written\n", cmd, clock_now() - limits->start,
                done > 0 ? "" : " (of its stored lifts)", dir);
    else
        fprintf(stderr, "extflow: %s stopped at the time limit after %.1f s with no step finished (reading DIR and "
                "the start-up took the time: give a larger --time-limit); no table was written\n", cmd,
                clock_now() - limits->start);
    return 3;
}

/* A stage file or the journal of empty bidegrees, told apart by their first bytes. */
static int cmd_inspect(int argc, char **argv)
{
    cli_opt o[] = { { "--summary", 0, NULL }, { NULL, 0, NULL } };
    const char *file;
    int npos, rc = parse_args("inspect", argc, argv, o, &file, 1, &npos);
    if (rc >= 0) return rc;
    if (npos != 1) return usage_error("inspect: FILE is required");
    char err[600];
    int journal = 0, summary = o[0].arg != NULL;
    rc = stage_sniff(file, &journal, err, sizeof err);
    if (rc == STAGE_OK)
        rc = journal ? stage_journal_print(stdout, file, summary, err, sizeof err)
                     : stage_print(stdout, file, summary, err, sizeof err);
    if (rc != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    return 0;
}

static int cmd_pack(int argc, char **argv)
{
    cli_opt o[] = { { NULL, 0, NULL } };
    const char *pos[2];
    int npos, prc = parse_args("pack", argc, argv, o, pos, 2, &npos);
    if (prc >= 0) return prc;
    if (npos != 2) return usage_error("pack: TEXT FILE expected");
    FILE *in = strcmp(pos[0], "-") ? fopen(pos[0], "r") : stdin;
    if (!in) {
        fprintf(stderr, "extflow: cannot open %s: %s\n", pos[0], strerror(errno));
        return 1;
    }
    stage_header h = { .kind = STAGE_MATRIX };
    f2mat m;
    char err[600];
    int rc = stage_parse_matrix_text(in, &h, &m, err, sizeof err);
    if (in != stdin) fclose(in);
    if (rc != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    rc = stage_write(pos[1], &h, &m, err, sizeof err);
    f2mat_clear(&m);
    if (rc != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    return 0;
}

/* The environment, checked in one place before a command starts StarPU or creates anything:
 * every variable extflow reads or documents, and every one StarPU 1.3.10 parses as a number
 * (starpu_get_env_number and starpu_get_env_float_default abort on trailing characters or a
 * negative value; found by running extflow with each STARPU_ name in libstarpu with a
 * non-numeric value, docs/design.md "The environment"). A bad value is a usage error; an unset
 * variable is never one. A name with '*' matches every variable of that pattern (fnmatch). */
enum env_kind {
    ENV_ANY,      /* any value (a path, a flag that is on when set) */
    ENV_INT,      /* decimal digits, lo..hi; or one of words */
    ENV_REAL,     /* a finite decimal number, lo..hi */
    ENV_SIZE,     /* bytes, or with K, M, G, T; lo..hi */
    ENV_WORD,     /* one of words ("a|b|c") */
    ENV_CPUS,     /* StarPU's list of CPU or device numbers: N, N-M or N-, by spaces or commas */
    ENV_CPU,      /* a CPU number below the number of CPUs the system has */
    ENV_SCHED,    /* one of StarPU's policies that extflow can run (empty: StarPU's default) */
    ENV_SPLIT,    /* EXTFLOW_GPU_SPLIT: T,P with T dividing 256 and 1 <= P <= 1024 */
};
typedef struct env_var {
    const char *name;
    enum env_kind kind;
    double lo, hi;
    const char *words;
    const char *allowed;   /* what the refusal says is allowed */
} env_var;

#define STARPU_INT(name) { name, ENV_INT, 0, INT_MAX, NULL, "an integer, 0 or more (StarPU aborts on any other value)" }
#define STARPU_REAL(name) { name, ENV_REAL, -1e300, 1e300, NULL, "a number (StarPU aborts on any other value)" }
#define COUNT(name, lo, what) { name, ENV_INT, lo, 18446744073709551615.0, NULL, what }
static const env_var env_table[] = {
    /* extflow's own (help, README, docs/design.md) */
    { "EXTFLOW_MMAP_THRESHOLD", ENV_SIZE, 0, 1e15, NULL, "bytes (K, M, G, T allowed), 0 for glibc's rule" },
    { "EXTFLOW_STATS", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_DEBUG", ENV_ANY, 0, 0, NULL, NULL },
    { "EXTFLOW_CAPTURE_MUL", ENV_ANY, 0, 0, NULL, NULL },
    COUNT("EXTFLOW_CAPTURE_EVERY", 1, "an integer, 1 or more"),
    COUNT("EXTFLOW_CHUNK_PAIRS", 1, "a number of (job x term) pairs, 1 or more"),
    { "EXTFLOW_GPU_STEP_PAIRS", ENV_INT, 0, 1e15, "off", "off or a number of (job x term) pairs, 0 or more" },
    COUNT("EXTFLOW_GPU_CHUNK_PAIRS", 1, "a number of (job x term) pairs, 1 or more"),
    { "EXTFLOW_GPU_PAIR_STEP_PAIRS", ENV_INT, 0, 1e15, "off", "off or a number of (job x term) pairs, 0 or more" },
    { "EXTFLOW_GPU_CPU_HELP", ENV_WORD, 0, 0, "0|1", "0 or 1" },
    { "EXTFLOW_GPU_CPU_SHARE", ENV_REAL, 0, 0.9, NULL, "a share of a step's pairs, 0 to 0.9" },
    { "EXTFLOW_GPU_VERIFY", ENV_WORD, 0, 0, "0|1", "0 or 1" },
    { "EXTFLOW_GPU_SPLIT", ENV_SPLIT, 0, 0, NULL, "T,P: T threads per job dividing 256, P parts, 1 to 1024" },
    { "EXTFLOW_GPU_KERNEL", ENV_WORD, 0, 0, "atomic|shared", "atomic or shared" },
    { "EXTFLOW_D2_Y", ENV_WORD, 0, 0, "batch|cpu", "batch or cpu" },
    { "EXTFLOW_D2_INTERMEDIATE", ENV_WORD, 0, 0, "multiply|cpu", "multiply or cpu" },
    COUNT("EXTFLOW_RREF_THREADS", 1, "a number of threads, 1 or more"),
    COUNT("EXTFLOW_LIFT_INLINE_PAIRS", 0, "a number of (job x term) pairs, 0 or more"),
    { "EXTFLOW_MPI_OWNER", ENV_WORD, 0, 0, "pairs|rows|blocks", "pairs, rows or blocks" },
    { "EXTFLOW_MPI_BIND", ENV_WORD, 0, 0, "yes|no", "yes (the default) or no" },
    /* StarPU's, with extflow's own limits */
    { "STARPU_SCHED", ENV_SCHED, 0, 0, NULL, NULL },
    { "STARPU_NCPU", ENV_INT, 1, INT_MAX, NULL, "a number of CPU workers, 1 or more (every task can run on a CPU)" },
    { "STARPU_NCPUS", ENV_INT, 1, INT_MAX, NULL, "a number of CPU workers, 1 or more (every task can run on a CPU)" },
    { "STARPU_NCUDA", ENV_INT, 0, INT_MAX, NULL, "a number of CUDA workers, 0 or more" },
    { "STARPU_NWORKER_PER_CUDA", ENV_INT, 1, INT_MAX, NULL, "a number of workers per GPU, 1 or more" },
    { "STARPU_CALIBRATE", ENV_INT, 0, 2, NULL, "0, 1 (calibrate) or 2 (drop the models and calibrate)" },
    { "STARPU_MPI_IDLE_SLEEP_US", ENV_INT, 0, 10000, NULL, "microseconds, 0 to 10000" },   /* our StarPU-MPI's */
    { "STARPU_HOME", ENV_ANY, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_CPUID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_COREID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_CUDAID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_WORKERS_OPENCLID", ENV_CPUS, 0, 0, NULL, NULL },
    { "STARPU_MAIN_THREAD_CPUID", ENV_CPU, 0, 0, NULL, NULL },
    { "STARPU_MAIN_THREAD_COREID", ENV_CPU, 0, 0, NULL, NULL },
    { "STARPU_MPI_THREAD_CPUID", ENV_CPU, 0, 0, NULL, NULL },
    { "STARPU_MPI_THREAD_COREID", ENV_CPU, 0, 0, NULL, NULL },
    /* StarPU's numbers: any other value aborts StarPU, at start or in a scheduler */
    STARPU_INT("STARPU_SILENT"), STARPU_INT("STARPU_NOPENCL"), STARPU_INT("STARPU_NMIC"),
    STARPU_INT("STARPU_NMPI_MS"), STARPU_INT("STARPU_RESERVE_NCPU"), STARPU_INT("STARPU_NTHREADS_PER_CORE"),
    STARPU_INT("STARPU_WORKERS_NOBIND"), STARPU_INT("STARPU_WORKERS_GETBIND"), STARPU_INT("STARPU_MAIN_THREAD_BIND"),
    STARPU_INT("STARPU_PREFETCH"), STARPU_INT("STARPU_BUS_CALIBRATE"), STARPU_INT("STARPU_CALIBRATE_MINIMUM"),
    STARPU_INT("STARPU_CATCH_SIGNALS"), STARPU_INT("STARPU_DIDUSE_BARRIER"), STARPU_INT("STARPU_DISABLE_KERNELS"),
    STARPU_INT("STARPU_DISABLE_ASYNCHRONOUS_*COPY"), STARPU_INT("STARPU_DISABLE_PINNING"),
    STARPU_INT("STARPU_DISPLAY_BINDINGS"), STARPU_INT("STARPU_GLOBAL_ARBITER"), STARPU_INT("STARPU_HISTORY_MAX_ERROR"),
    STARPU_INT("STARPU_LIMIT_BANDWIDTH"), STARPU_INT("STARPU_LIMIT_*_MEM"), STARPU_INT("STARPU_LIMIT_*_SUBMITTED_TASKS"),
    STARPU_INT("STARPU_MAX_MEMORY_USE"), STARPU_INT("STARPU_MAX_PRIO"), STARPU_INT("STARPU_MIN_PRIO"),
    STARPU_INT("STARPU_MEMORY_STATS"), STARPU_INT("STARPU_MINIMUM_AVAILABLE_MEM"),
    STARPU_INT("STARPU_MINIMUM_CLEAN_BUFFERS"), STARPU_INT("STARPU_TARGET_AVAILABLE_MEM"),
    STARPU_INT("STARPU_TARGET_CLEAN_BUFFERS"), STARPU_INT("STARPU_PERF_MODEL_HOMOGENEOUS_*"),
    STARPU_INT("STARPU_OPENCL_ON_CPUS"), STARPU_INT("STARPU_OPENCL_ONLY_ON_CPUS"), STARPU_INT("STARPU_SIMGRID"),
    STARPU_INT("STARPU_SINGLE_COMBINED_WORKER"), STARPU_INT("STARPU_STATS"), STARPU_INT("STARPU_TASK_BREAK_ON_*"),
    STARPU_INT("STARPU_TASK_PROGRESS"), STARPU_INT("STARPU_TRACE_BUFFER_SIZE"), STARPU_INT("STARPU_USE_NUMA"),
    STARPU_INT("STARPU_WATCHDOG_CRASH"), STARPU_INT("STARPU_WATCHDOG_DELAY"), STARPU_INT("STARPU_WATCHDOG_TIMEOUT"),
    STARPU_INT("STARPU_WORKER_TREE"), STARPU_INT("STARPU_BACKOFF_MIN"), STARPU_INT("STARPU_BACKOFF_MAX"),
    STARPU_INT("STARPU_MIN_WORKERSIZE"), STARPU_INT("STARPU_MAX_WORKERSIZE"),
    STARPU_INT("STARPU_SYNTHESIZE_ARITY_COMBINED_WORKER"), STARPU_INT("STARPU_NTASKS_THRESHOLD"),
    STARPU_INT("STARPU_SCHED_READY"), STARPU_INT("STARPU_SCHED_SORTED_ABOVE"), STARPU_INT("STARPU_SCHED_SORTED_BELOW"),
    STARPU_INT("STARPU_SCHED_GRAPH_TEST_DESCENDANTS"), STARPU_INT("STARPU_CUDA_PIPELINE"),
    STARPU_INT("STARPU_OPENCL_PIPELINE"), STARPU_INT("STARPU_CUDA_THREAD_PER_WORKER"),
    STARPU_INT("STARPU_CUDA_THREAD_PER_DEV"), STARPU_INT("STARPU_ENABLE_CUDA_GPU_GPU_DIRECT"),
    STARPU_INT("STARPU_MPI_CACHE"), STARPU_INT("STARPU_MPI_CACHE_STATS"), STARPU_INT("STARPU_MPI_COMM"),
    STARPU_INT("STARPU_MPI_COOP_SENDS"), STARPU_INT("STARPU_MPI_DEBUG_LEVEL_MIN"),
    STARPU_INT("STARPU_MPI_DEBUG_LEVEL_MAX"), STARPU_INT("STARPU_MPI_DRIVER_CALL_FREQUENCY"),
    STARPU_INT("STARPU_MPI_DRIVER_TASK_FREQUENCY"), STARPU_INT("STARPU_MPI_NDETACHED_SEND"),
    STARPU_INT("STARPU_MPI_NOBIND"), STARPU_INT("STARPU_MPI_NREADY_PROCESS"), STARPU_INT("STARPU_MPI_PRIORITIES"),
    STARPU_INT("STARPU_COMM_STATS"),
    STARPU_REAL("STARPU_SCHED_ALPHA"), STARPU_REAL("STARPU_SCHED_BETA"), STARPU_REAL("STARPU_SCHED_GAMMA"),
    STARPU_REAL("STARPU_IDLE_POWER"), STARPU_REAL("STARPU_WINDOW_TIME_SIZE"), STARPU_REAL("STARPU_EXP_LEN_THRESHOLD"),
};

/* StarPU's policies that cannot run extflow: heteroprio aborts without the application's
 * callback that sets its priorities up; modular-heteroprio-heft hangs on extflow's tasks. */
static const char *const unusable_policies[] = { "heteroprio", "modular-heteroprio-heft" };

/* Whether v is one of the words of list ("a|b|c"). */
static int env_is_word(const char *v, const char *list)
{
    size_t n = strlen(v);
    for (const char *p = list; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, v, n)) return 1;
        p = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* Decimal digits only, at most 15 of them. */
static int env_digits(const char *s, const char **end, double *out)
{
    const char *p = s;
    while (*p >= '0' && *p <= '9') p++;
    if (p == s || p - s > 20) return -1;
    *out = strtod(s, NULL);
    *end = p;
    return 0;
}

/* 0 when v is a value e allows, else -1 with the allowed values in allowed. */
static int env_value_ok(const env_var *e, const char *v, char *allowed, size_t size)
{
    const char *end;
    double x;
    snprintf(allowed, size, "%s", e->allowed ? e->allowed : "");
    switch (e->kind) {
    case ENV_ANY:
        return 0;
    case ENV_INT:
        if (e->words && env_is_word(v, e->words)) return 0;
        return env_digits(v, &end, &x) == 0 && !*end && x >= e->lo && x <= e->hi ? 0 : -1;
    case ENV_REAL: {
        char *rend;
        errno = 0;
        x = strtod(v, &rend);
        /* decimal notation only: no hex, inf or nan, which strtod would also take */
        return *v && !*rend && !errno && strspn(v, "+-.0123456789eE") == strlen(v) && x >= e->lo && x <= e->hi ? 0 : -1;
    }
    case ENV_SIZE: {
        uint64_t b;
        if (!strcmp(v, "0")) return e->lo <= 0 ? 0 : -1;
        return parse_size(v, &b) == 0 && (double)b >= e->lo && (double)b <= e->hi ? 0 : -1;
    }
    case ENV_WORD:
        return env_is_word(v, e->words) ? 0 : -1;
    case ENV_CPUS:
        snprintf(allowed, size, "numbers N, ranges N-M or N-, separated by spaces or commas");
        for (const char *p = v;;) {
            if (env_digits(p, &p, &x) != 0) return -1;
            if (*p == '-') {
                p++;
                if (*p >= '0' && *p <= '9' && (env_digits(p, &p, &x) != 0)) return -1;
            }
            if (!*p) return 0;
            if (*p != ' ' && *p != ',') return -1;
            while (*p == ' ' || *p == ',') p++;
            if (!*p) return 0;
        }
    case ENV_CPU: {
        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
        if (ncpu < 1) ncpu = 1;
        snprintf(allowed, size, "a CPU number, 0 to %ld", ncpu - 1);
        return env_digits(v, &end, &x) == 0 && !*end && x < (double)ncpu ? 0 : -1;
    }
    case ENV_SCHED: {
        if (!*v) return 0;   /* StarPU takes an empty value as its default policy */
        size_t len = (size_t)snprintf(allowed, size, "not a policy of StarPU's that extflow can run; policies:");
        int found = 0;
        for (struct starpu_sched_policy **p = starpu_sched_get_predefined_policies(); *p; p++) {
            int unusable = 0;
            for (size_t i = 0; i < sizeof unusable_policies / sizeof *unusable_policies; i++)
                unusable |= !strcmp((*p)->policy_name, unusable_policies[i]);
            if (unusable) continue;
            found |= !strcmp((*p)->policy_name, v);
            if (len < size) len += (size_t)snprintf(allowed + len, size - len, " %s", (*p)->policy_name);
        }
        return found ? 0 : -1;
    }
    case ENV_SPLIT: {
        double t, p;
        if (env_digits(v, &end, &t) != 0 || *end != ',' || env_digits(end + 1, &end, &p) != 0 || *end) return -1;
        return t >= 1 && t <= 256 && 256 % (long)t == 0 && p >= 1 && p <= 1024 ? 0 : -1;
    }
    }
    return -1;
}

/* Every variable of env_table that is set, before anything is created or StarPU starts: a bad
 * value is a usage error (two lines, exit 2). Then StarPU's own messages (bus calibration,
 * dmda's "not calibrated" warnings) are silenced unless --verbose asks for them or the user
 * set STARPU_SILENT. Returns 0, or 2 after a usage error. */
static int check_env(int verbose)
{
    extern char **environ;
    char allowed[2048];
    for (size_t i = 0; i < sizeof env_table / sizeof *env_table; i++) {
        const env_var *e = &env_table[i];
        for (char **ep = environ; ep && *ep; ep++) {
            const char *eq = strchr(*ep, '=');
            char name[256];
            if (!eq || (size_t)(eq - *ep) >= sizeof name) continue;
            memcpy(name, *ep, (size_t)(eq - *ep));
            name[eq - *ep] = 0;
            if (strchr(e->name, '*') ? fnmatch(e->name, name, 0) != 0 : strcmp(e->name, name) != 0) continue;
            if (env_value_ok(e, eq + 1, allowed, sizeof allowed) != 0)
                return usage_error("%s=%s: %s%s", name, eq + 1, e->kind == ENV_SCHED ? "" : "expected ", allowed);
        }
    }
    if (verbose) setenv("STARPU_SILENT", "0", 1);
    else setenv("STARPU_SILENT", "1", 0);
    return 0;
}

/* One writer per output directory: an fcntl lock on DIR/.lock, which holds the pid. */
static int lock_outdir(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "extflow: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        char holder[32] = "?";
        ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
        holder[n > 0 ? n : 1] = 0;
        holder[strcspn(holder, "\n")] = 0;
        fprintf(stderr, "extflow: %s is in use by another extflow run (pid %s)\n", dir, holder);
        close(fd);
        return -1;
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) { /* informative only */ }
    return fd;
}

/* Creates dir and the folders above it that are missing; *made (when not NULL) gets the first
 * folder this call created, or "" when dir was there. */
static int ensure_dir(const char *dir, char *made, size_t made_size)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    if (made) *made = 0;
    for (char *p = buf + 1;; p++)
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) == 0) {
                if (made && !*made) snprintf(made, made_size, "%s", buf);
            } else if (errno != EEXIST) return -1;
            *p = c;
            if (!c) break;
        }
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Unlinks DIR/name if present (a stale output); errors other than "absent" are ignored:
 * the run's own outputs are what matters. */
static void remove_output(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* --force: the directory's resolution (stage files, tables, manifest) is deleted. */
static int clear_outdir(const char *dir)
{
    /* products tables too: a products run merges into them (their x_(n,s,i) are this resolution's) */
    static const char *outputs[] = { MANIFEST_NAME, MODULE_COPY_NAME, "ext.csv", "chart.txt", "chart.svg", "chart.html",
                                     "differentials.txt", "num_gens.txt", "resolution_size.txt", "products.csv",
                                     "module-products.csv" };
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) remove_output(dir, outputs[i]);
    char path[4200];
    snprintf(path, sizeof path, "%s/stages", dir);
    if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT) {
        fprintf(stderr, "extflow: --force: cannot remove %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The directory's resolution against this run's (module S_2, algorithm alg, region *want):
 * another module or algorithm is refused (2) unless force, which clears the directory; a
 * region the manifest's contains is widened to it (everything is loaded, ext.csv covers all
 * that is complete); two regions neither of which contains the other are refused, of one
 * kind or two (the one rule help states), naming the smallest region containing both when
 * they are of one kind. Returns 0 to go on, 1 or 2. */
static int check_manifest(const char *out, uint64_t s2, const char *name, int alg, int force, int quiet,
                          run_region *want, deg_t shift)
{
    char err[4300], have_r[64], want_r[64];
    run_manifest m;
    uint64_t module = 0;
    int hm = manifest_read(out, &m, err, sizeof err), have_alg = 0;
    if (hm < 0) {
        fprintf(stderr, "extflow: %s (remove it to resume from the stage files)\n", err);
        return 1;
    }
    if (hm == 0) module = m.module_id, have_alg = m.algorithm;
    else if (!manifest_sniff(out, &module, &have_alg)) return 0;    /* nothing here yet */
    if (module != s2 || have_alg != alg) {
        if (force) {
            if (!quiet) fprintf(stderr, "extflow: --force: deleting the %s resolution in %s\n",
                                stage_algorithm_name(have_alg), out);
            return clear_outdir(out) ? 1 : 0;
        }
        fprintf(stderr, "extflow: %s holds a %s resolution of %s; this run asks for a %s resolution of %s (use --force "
                "to replace it, or another --out)\n", out, stage_algorithm_name(have_alg),
                module == s2 ? name : hm == 0 && strcmp(m.module, name) ? m.module : "another module",
                stage_algorithm_name(alg), name);
        return 2;
    }
    if (hm != 0 || region_contains(want, &m.complete)) return 0;
    if (region_contains(&m.complete, want)) {
        *want = m.complete;
        return 0;
    }
    region_describe(have_r, sizeof have_r, &m.complete, shift);
    region_describe(want_r, sizeof want_r, want, shift);
    char both[96] = "";
    if (want->kind == m.complete.kind) {
        run_region u = *want;
#define MAX(a, b) ((a) > (b) ? (a) : (b))
        u.stem = MAX(want->stem, m.complete.stem);
        u.max_t = MAX(want->max_t, m.complete.max_t);
        u.max_s = MAX(want->max_s, m.complete.max_s);
#undef MAX
        if (u.kind == REGION_STEM) snprintf(both, sizeof both, ": --stem %d --max-s %d", u.stem + shift, u.max_s);
        else snprintf(both, sizeof both, ": --max-t %d --max-s %d", u.max_t + shift, u.max_s);
    }
    fprintf(stderr, "extflow: %s holds %s complete; this run asks for %s and neither contains the "
            "other (ask for a region containing both%s, or use another --out)\n", out, have_r, want_r, both);
    return 2;
}

/* The closing line of a run (stderr, terminal or not). */
static void print_summary(const resolution *res, const char *out, long bidegrees, long computed, double seconds)
{
    char where[64];
    run_region r = region_of(res);
    region_describe(where, sizeof where, &r, res->shift);
    char loaded[48] = "";
    if (bidegrees > computed) snprintf(loaded, sizeof loaded, " (%ld loaded)", bidegrees - computed);
    fprintf(stderr, "extflow: %s to %s, %s: %ld bidegrees%s in %.1f s; table %s/ext.csv\n", res->module_name, where,
            stage_algorithm_name(res->algorithm), bidegrees, loaded, seconds, out);
}

/* The folders searched for --module NAME: beside the binary ($ORIGIN/../modules in the source
 * tree, $ORIGIN/../share/extflow/modules once installed), then the source tree's modules/ as
 * the build saw it (EXTFLOW_MODULES_DIR: other build folders, such as build-san/bin). */
static int find_module_file(const char *name, char *path, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0 && !strchr(name, '/')) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        static const char *dirs[] = { "../modules", "../share/extflow/modules" };
        for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
            snprintf(path, size, "%s/%s/%s.json", exe, dirs[i], name);
            if (access(path, R_OK) == 0) return 0;
        }
    }
#ifdef EXTFLOW_MODULES_DIR
    if (!strchr(name, '/')) {
        snprintf(path, size, "%s/%s.json", EXTFLOW_MODULES_DIR, name);
        if (access(path, R_OK) == 0) return 0;
    }
#endif
    snprintf(path, size, "%s", name);
    return access(path, R_OK) == 0 ? 0 : -1;
}

/* --module NAME|FILE: reads and checks the module (exit 2 with one line when it cannot be
 * used); *name gets its short name (the file's base name without .json). */
static int load_module(const char *arg, fd_module *m, char *name, size_t nsize)
{
    char path[PATH_MAX + 1100], err[600], file[1024];
    long shift = 0;
    const char *open_br = strrchr(arg, '[');
    size_t alen = strlen(arg);
    snprintf(file, sizeof file, "%s", arg);
    if (open_br && alen > 0 && arg[alen - 1] == ']') {     /* NAME[k]: Σ^k of the module NAME */
        char *end;
        shift = strtol(open_br + 1, &end, 10);
        if (end == open_br + 1 || *end != ']' || shift < -FDM_MAX_SHIFT || shift > FDM_MAX_SHIFT)
            return usage_error("--module '%s': the shift in NAME[k] must be an integer in -%d..%d", arg,
                               FDM_MAX_SHIFT, FDM_MAX_SHIFT);
        file[open_br - arg] = 0;
    }
    if (find_module_file(file, path, sizeof path) != 0)
        return usage_error("unknown module '%s' (not in the modules folder, and no such file)", file);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (f) {
        for (;;) {
            if (len + 4096 > cap) {
                char *nb = realloc(buf, cap = cap * 2 + 4096);
                if (!nb) break;
                buf = nb;
            }
            size_t got = fread(buf + len, 1, cap - len, f);
            len += got;
            if (got == 0 || len > (1u << 24)) break;
        }
    }
    if (!f || ferror(f) || !buf) {
        fprintf(stderr, "extflow: %s: cannot read: %s\n", path, strerror(errno));
        if (f) fclose(f);
        free(buf);
        return 2;
    }
    fclose(f);
    int rc = fdm_parse(buf, len, m, err, sizeof err);
    free(buf);
    if (rc == 0 && fdm_shift(m, (deg_t)shift, err, sizeof err) != 0) rc = -1;    /* m is cleared then */
    if (rc == 0 && cofiber_prepare(m, err, sizeof err) != 0) {
        fdm_clear(m);
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "extflow: %s: %s\n", path, err);
        return 2;
    }
    const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
    size_t k = 0;
    for (; base[k] && k + 1 < nsize && k < 31; k++)
        name[k] = isalnum((unsigned char)base[k]) || strchr("_-.[]", base[k]) ? base[k] : '_';
    name[k] = 0;
    if (k > 5 && !strcmp(name + k - 5, ".json")) name[k - 5] = 0;
    char *dot = strstr(name, ".json[");     /* FILE.json[k]: keep the [k] */
    if (dot) memmove(dot, dot + 5, strlen(dot + 5) + 1);
    if (!name[0]) snprintf(name, nsize, "module");
    return 0;
}

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

static int cmd_resolve_with(fd_module *fdm, const char *module_name, int alg, const char *out,
                            const cli_opt *o, long stem, long max_s, long max_t, int quiet, int sseq_formats,
                            int force, int verbose, unsigned keep, const chain_policy *limits);

static int cmd_resolve(int argc, char **argv)
{
    enum { MODULE, STEM, MAX_S, MAX_T, ALGORITHM, OUT, SSEQ, QUIET, VERBOSE, FORCE, KEEP, MEMORY, TIME_LIMIT, NOPTS };
    cli_opt o[NOPTS + 1] = {
        [MODULE] = { "--module", 1, NULL },      [STEM] = { "--stem", 1, NULL },
        [MAX_S] = { "--max-s", 1, NULL },        [MAX_T] = { "--max-t", 1, NULL },
        [ALGORITHM] = { "--algorithm", 1, NULL }, [OUT] = { "--out", 1, NULL },
        [SSEQ] = { "--sseq-formats", 0, NULL },  [QUIET] = { "--quiet", 0, NULL },
        [VERBOSE] = { "--verbose", 0, NULL },    [FORCE] = { "--force", 0, NULL },
        [KEEP] = { "--keep-stages", 1, NULL },   [MEMORY] = { "--memory", 1, NULL },
        [TIME_LIMIT] = { "--time-limit", 1, NULL }, [NOPTS] = { NULL, 0, NULL },
    };
    double began = clock_now();      /* --time-limit counts from here */
    const char *pos[1];
    int npos, prc = parse_args("resolve", argc, argv, o, pos, 0, &npos);
    if (prc >= 0) return prc;
    const char *module = o[MODULE].arg ? o[MODULE].arg : "S_2";
    const char *algorithm = o[ALGORITHM].arg;
    const char *out = o[OUT].arg;
    long stem = -1, max_s = -1, max_t = -1;
    int quiet = o[QUIET].arg != NULL, sseq_formats = o[SSEQ].arg != NULL, force = o[FORCE].arg != NULL;
    int verbose = o[VERBOSE].arg != NULL;
    unsigned keep = 0;
    if ((prc = opt_count(&o[STEM], MAX_STEM, &stem)) || (prc = opt_count(&o[MAX_S], MAX_STEM, &max_s)) ||
        (prc = opt_count(&o[MAX_T], MAX_STEM, &max_t)))
        return prc;
    chain_policy limits;
    if ((prc = parse_limits(o[MEMORY].arg, o[TIME_LIMIT].arg, began, &limits)) != 0) return prc;
    if (o[KEEP].arg && parse_keep_stages(o[KEEP].arg, &keep) != 0)
        return usage_error("--keep-stages wants matrix, kernel or matrix,kernel, not '%s'", o[KEEP].arg);
    int alg = !algorithm ? 0 : !strcmp(algorithm, "standard") ? ALG_STANDARD : !strcmp(algorithm, "nassau") ? ALG_NASSAU : -1;
    if (alg < 0) return usage_error("unknown algorithm '%s' (choose standard or nassau)", algorithm);
    fd_module fdm;
    int have_module = 0;
    char module_name[64] = "S_2", default_out[96];
    if (strcmp(module, "S_2") != 0) {
        if ((prc = load_module(module, &fdm, module_name, sizeof module_name)) != 0) return prc;
        have_module = 1;
        if (fdm_is_sphere(&fdm)) {          /* the sphere from a file: the built-in S_2 */
            fdm_clear(&fdm);
            have_module = 0;
        } else if (alg == ALG_NASSAU && !res_nassau_applies(&fdm)) {
            fdm_clear(&fdm);
            fprintf(stderr, "extflow: --algorithm nassau resolves S_2 and finite modules without a profile or a "
                    "cofiber, at p = 2, not %s (use --algorithm standard, its default)\n", module);
            return 2;
        } else if (fdm_prime(&fdm) != 2 && keep) {
            unsigned p = fdm_prime(&fdm);
            fdm_clear(&fdm);
            return usage_error("--keep-stages: not at p = %u yet (%s)", p, module);
        }
    }
    if (!alg) alg = !have_module || res_nassau_applies(&fdm) ? ALG_NASSAU : ALG_STANDARD;
    snprintf(default_out, sizeof default_out, "out/%s", module_name);
    if (!out) out = default_out;
    prc = cmd_resolve_with(have_module ? &fdm : NULL, module_name, alg, out, &o[0], stem, max_s, max_t, quiet,
                           sseq_formats, force, verbose, keep, &limits);
    if (have_module) fdm_clear(&fdm);
    return prc;
}

/* What prepare_outdir created in (or above) DIR, so that a run that fails before its first
 * bidegree (StarPU does not start) leaves DIR as it found it. */
typedef struct outdir_made {
    char out[4096];
    char top[4096];         /* the first folder it created ("" when DIR was there) */
    int lock, stages, module_copy;   /* DIR/.lock, DIR/stages/, the module's copy were not there */
} outdir_made;

static void undo_outdir(const outdir_made *m)
{
    char path[4200];
    if (*m->top) {          /* all of it is this run's */
        nftw(m->top, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        return;
    }
    if (m->stages) {
        snprintf(path, sizeof path, "%s/stages", m->out);
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
    if (m->module_copy) remove_output(m->out, MODULE_COPY_NAME);
    if (m->lock) remove_output(m->out, ".lock");
}

/* A directory with entries but neither run.json nor stages/ holds no extflow resolution (a
 * .lock alone is a run killed at once): refused, exit 2 and one line, before anything is
 * written there, so that no file of someone else's (an ext.csv) is overwritten. The tables
 * resolve reads as chart layers (products.csv, d2.csv: README) may be put there first. 0 or 2. */
static int refuse_foreign_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;       /* absent (made next), or not a directory (ensure_dir says so) */
    int foreign = 0, ours = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".lock") || !strcmp(n, "products.csv") ||
            !strcmp(n, "d2.csv"))
            continue;
        if (!strcmp(n, MANIFEST_NAME) || !strcmp(n, "stages")) ours = 1;
        else foreign = 1;
    }
    closedir(d);
    if (!foreign || ours) return 0;
    fprintf(stderr, "extflow: %s is not empty and holds no extflow resolution (no %s, no stages/): refused, "
            "nothing written there (give a new or empty --out)\n", dir, MANIFEST_NAME);
    return 2;
}

/* Makes DIR ready for a run: the folders, the lock (*lockfd), the manifest's verdict (which may
 * widen *want), no temporaries of a killed run, the module's copy. 0, or the exit status after
 * one line on stderr. */
static int prepare_outdir(fd_module *fdm, const char *module_name, int alg, const char *out, int force,
                          int quiet, unsigned keep, run_region *want, deg_t shift, int *lockfd, outdir_made *made)
{
    char err[600], path[4200];
    memset(made, 0, sizeof *made);
    snprintf(made->out, sizeof made->out, "%s", out);
    if (refuse_foreign_dir(out)) return 2;
    if (ensure_dir(out, made->top, sizeof made->top) != 0) {
        fprintf(stderr, "extflow: cannot use output directory %s: %s\n", out, strerror(errno));
        return 1;
    }
    struct stat st;
    snprintf(path, sizeof path, "%s/.lock", out);
    made->lock = lstat(path, &st) != 0;
    snprintf(path, sizeof path, "%s/stages", out);
    made->stages = lstat(path, &st) != 0;
    snprintf(path, sizeof path, "%s/%s", out, MODULE_COPY_NAME);
    made->module_copy = lstat(path, &st) != 0;
    if ((*lockfd = lock_outdir(out)) < 0) return 1;
    resolution probe = { 0 };      /* the module id the stage files carry */
    res_set_module(&probe, fdm, module_name);
    int mrc = check_manifest(out, probe.module_id, module_name, alg, force, quiet, want, shift);
    if (mrc != 0) return mrc;
    stage_remove_temporaries(out);
    if (stage_mkdirs(out, 1u << STAGE_DIFFERENTIAL | keep, err, sizeof err) != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    if (probe.module) {         /* the module beside its stage files, for verify */
        snprintf(path, sizeof path, "%s/%s", out, MODULE_COPY_NAME);
        if (durable_write_file(path, fdm->source, fdm->source_len, err, sizeof err) != 0) {
            fprintf(stderr, "extflow: %s\n", err);
            return 1;
        }
    }
    return 0;
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

static int cmd_resolve_with(fd_module *fdm, const char *module_name, int alg, const char *out,
                            const cli_opt *o, long stem, long max_s, long max_t, int quiet, int sseq_formats,
                            int force, int verbose, unsigned keep, const chain_policy *limits)
{
    (void)o;
    int prc;
    if (stem >= 0 && max_t >= 0) return usage_error("give --stem or --max-t, not both");
    int region = max_t >= 0 ? REGION_RECT : REGION_STEM;
    if (region == REGION_STEM && stem < 0) stem = 40;
    /* The region is given in the module's degrees; inside, degrees start at its bottom class
     * when that is negative (res_module_shift). The default max s follows the connectivity c
     * (the bottom degree): (N - c) / 2 + 2, above the vanishing line of slope 1/2 from there. */
    deg_t shift = res_module_shift(fdm), conn = fdm && !fdm_is_sphere(fdm) ? fdm->min_deg : 0;
    if (max_s < 0) {
        long span = (region == REGION_STEM ? stem : max_t) - conn;
        max_s = (span > 0 ? span : 0) / 2 + 2;
    }
    if (region == REGION_STEM) stem -= shift;
    else max_t -= shift;
    if (region == REGION_RECT && max_s > max_t) max_s = max_t;
    if ((region == REGION_STEM ? stem + max_s + 1 : max_t) > MILNOR_MAX_DEGREE)
        return usage_error("region too large: t would exceed %d", MILNOR_MAX_DEGREE);
    if ((prc = check_env(verbose)) != 0) return prc;
    uint64_t setup_bytes = res_setup_bytes(region, (int)stem, (int)max_s, (deg_t)max_t);
    if (limits->memory_budget && limits->memory_budget < admission_min_budget(setup_bytes))
        return usage_error("--memory: %llu bytes are less than this region needs for its tables and one "
                           "bidegree (at least %lluM)", (unsigned long long)limits->memory_budget,
                           (unsigned long long)((admission_min_budget(setup_bytes) + (1u << 20) - 1) >> 20));
    if (refuse_if_too_big(setup_bytes, "this region")) return 2;

    /* Under MPI, rank 0 alone prepares the directory (lock, manifest, temporaries, folders)
     * and tells the others the outcome and the region; only rank 0 prints. */
    int rank = rt_mpi_rank(), nranks = rt_mpi_size();
    if (nranks > 1 && fdm && fdm_prime(fdm) != 2)     /* the exchanges carry F2 rows */
        return usage_error("a resolution at p = %u runs in one process so far (not under mpirun)", fdm_prime(fdm));
    if (rank != 0) quiet = 1;
    struct { int status; run_region want; } setup = { 0, { region, (int)stem, (int)max_t, (int)max_s } };
    int lockfd = -1;
    outdir_made made;
    if (rank == 0)
        setup.status = prepare_outdir(fdm, module_name, alg, out, force, quiet, keep, &setup.want, shift, &lockfd,
                                      &made);
    rt_mpi_bcast(&setup, sizeof setup);
    if (setup.status != 0) {
        if (lockfd >= 0) close(lockfd);
        return setup.status;
    }
    region = setup.want.kind, stem = setup.want.stem, max_t = setup.want.max_t, max_s = setup.want.max_s;
    char err[600];
    resolution res;
    /* --time-limit counts from the command's start; one process checks it during the start-up
     * too (the Milnor tables and their flat copy: seconds at stem 400), ranks from their steps */
    if (limits->time_limit > 0 && nranks == 1) milnor_set_deadline(limits->start + limits->time_limit);
    int irc = res_init(&res, region, (int)stem, (int)max_s, (deg_t)max_t, out, 1, alg);
    if (irc == 0) keep_stages_save(&res, keep);
    if (irc == 0) irc = res_set_module(&res, fdm, module_name);
    if (irc != 0) {
        if (irc == MILNOR_STOPPED)
            fprintf(stderr, "extflow: stopped at the time limit after %.1f s, still building the Milnor tables: "
                    "no bidegree computed (the start-up alone takes longer: give a larger --time-limit)\n",
                    clock_now() - limits->start);
        else fprintf(stderr, "extflow: out of memory setting up the resolution\n");
        res_clear(&res);
        if (lockfd >= 0) close(lockfd);
        return irc == MILNOR_STOPPED ? 3 : 1;
    }
    long loaded = load_everywhere(&res, rank, nranks), total = 0;
    if (loaded < 0) {
        if (rank == 0) fprintf(stderr, "extflow: %s\n", res.error);
        res_clear(&res);
        if (lockfd >= 0) close(lockfd);
        return 1;
    }
    for (deg_t t = 0; t <= res.max_t; t++)
        for (int s = 0; s <= res.max_s && s <= t; s++)
            total += res_in_region(&res, s, t) && !*res_done(&res, s, t);
    if (!quiet && loaded) fprintf(stderr, "extflow: resumed %ld bidegrees from %s/stages\n", loaded, out);
    if (rt_init(verbose, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        res_clear(&res);
        if (rank == 0) undo_outdir(&made);     /* nothing was computed: DIR as it was found */
        if (lockfd >= 0) close(lockfd);
        return 1;
    }
    /* EXTFLOW_MMAP_THRESHOLD=BYTES: allocations of that size and more straight from mmap, so
     * that what a step frees goes back to the system at once (less memory, more page faults:
     * docs/perf.md "Where the memory goes"); 0: glibc's own dynamic rule. Unset: 4 MB under
     * an explicit --memory (memory first), glibc's rule otherwise (speed first). */
    const char *mt = getenv("EXTFLOW_MMAP_THRESHOLD");     /* checked by check_env: 0 or a size */
    uint64_t mmap_threshold = limits->memory_budget ? 4u << 20 : 0;
    if (mt && parse_size(mt, &mmap_threshold) != 0) mmap_threshold = 0;
    if (mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, (int)(mmap_threshold < INT_MAX ? mmap_threshold : INT_MAX));
    chain_policy progress = *limits;
    progress.verbose = getenv("EXTFLOW_STATS") != NULL;
    progress.admission_report = verbose;
    if (!progress.memory_budget) progress.memory_budget = memory_available() / 10 * 8;
    if (verbose && rank == 0)
        fprintf(stderr, "extflow: memory budget %.0f MB%s\n", (double)progress.memory_budget / 1048576.0,
                limits->memory_budget ? "" : " (80% of the memory available)");
    /* under mpirun a rank's stderr is a pipe, but its stdout is a terminal when mpirun's is */
    progress_start(&res, !quiet && (isatty(2) || (nranks > 1 && isatty(1))));
    int rc = rt_resolve(&res, &progress);
    double work_done, work_left;
    progress_work(&work_done, &work_left);
    double seconds = progress_finish();
    rt_shutdown();
    if (verbose && rank == 0) memacct_print(stderr);
    /* every rank takes the same branch below: a failure on any rank, else a stop on any rank
     * (ranks count their time limits apart; one may have finished its last step in time) */
    int failed = rt_mpi_agree_failure(&res);
    if (!failed && rt_mpi_max(rc == 1)) {     /* stopped at --time-limit: where it stands, for bench/long-run */
        long left = 0;
        int through = -1;   /* every bidegree of stem <= through is done */
        for (deg_t t = 0; t <= res.max_t; t++)
            for (int s = 0; s <= res.max_s && s <= t; s++) left += res_in_region(&res, s, t) && !*res_done(&res, s, t);
        for (int n = 0, full = 1; full && n <= res.max_n; n++) {
            for (int s = 0; s <= res.max_s && full; s++) full = !res_in_region(&res, s, s + n) || *res_done(&res, s, s + n);
            if (full) through = n;
        }
        /* nothing complete or nothing computed yet: say so, never a stem -1 or -1 s */
        char stems[64], rate[160];
        if (through >= 0) snprintf(stems, sizeof stems, "complete through stem %d", through + (int)res.shift);
        else snprintf(stems, sizeof stems, "no stem complete yet");
        if (work_done > 0)
            snprintf(rate, sizeof rate, "about %.0f s more at this run's rate (estimated work left %.3g, done %.3g; "
                     "rerun to resume)", seconds * work_left / work_done, work_left, work_done);
        else snprintf(rate, sizeof rate, "no estimate of the time left, as this run computed nothing (start-up "
                      "%.1f s; rerun to resume, with a larger --time-limit)", clock_now() - limits->start - seconds);
        if (rank == 0) fprintf(stderr, "extflow: stopped at the time limit after %.1f s: %ld of %ld bidegrees done, "
                "%s; %s\n", clock_now() - limits->start, loaded + total - left, loaded + total, stems, rate);
        res_clear(&res);
        if (lockfd >= 0) close(lockfd);
        return 3;
    }
    /* every rank's stage files are durable (rt_resolve flushed them) before this returns */
    if (failed || rc != 0) {
        if (rank == 0) fprintf(stderr, "extflow: %s (finished bidegrees are kept; rerun to resume)\n", res.error);
        res_clear(&res);
        if (lockfd >= 0) close(lockfd);
        return 1;
    }
    if (rank != 0) {            /* rank 0 writes the reports: it received every bidegree */
        res_clear(&res);
        return 0;
    }
    static const struct { const char *name; int (*write)(FILE *, const resolution *); int sseq; } files[] = {
        { "chart.txt", report_chart_txt, 0 },
        { "chart.svg", chart_write_svg, 0 },
        { "chart.html", chart_write_html, 0 },
        { "differentials.txt", report_differentials, 1 },
        { "num_gens.txt", report_num_gens, 1 },
        { "resolution_size.txt", report_resolution_size, 1 },
        { "ext.csv", report_ext_csv, 0 },      /* last: its presence means the run is complete */
    };
    int wrc = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files && !wrc; i++) {
        /* a stale one would contradict ext.csv; sseq's differentials text is written at p = 2 only */
        if ((files[i].sseq && !sseq_formats) || (res.prime != 2 && files[i].write == report_differentials)) {
            remove_output(out, files[i].name);
            continue;
        }
        if ((wrc = report_write_file(out, files[i].name, &res, files[i].write)) != 0)
            fprintf(stderr, "extflow: cannot write %s/%s: %s\n", out, files[i].name, strerror(errno));
    }
    if (!wrc && (wrc = manifest_write(out, &res)) != 0)   /* after ext.csv: what is complete */
        fprintf(stderr, "extflow: cannot write %s/%s: %s\n", out, MANIFEST_NAME, strerror(errno));
    if (!wrc && !quiet) print_summary(&res, out, loaded + total, total, seconds);
    res_clear(&res);
    close(lockfd);
    return wrc ? 1 : 0;
}

/* The pid of the process holding DIR/.lock (lock_outdir), or 0 when none does: read-only, so
 * that looking neither creates the file nor keeps a run from starting. */
static long outdir_holder(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    long pid = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (fl.l_pid > 0 ? fl.l_pid : -1) : 0;
    close(fd);
    return pid;
}

static int verify_owner(int s, int ranks, int max_s) { return rt_mpi_owner(OWNER_PAIRS, s, ranks, max_s); }

/* extflow verify DIR: stages/verify.h. Exit 0 when all is well, 1 otherwise, 2 when another
 * run holds DIR (its files may be half written: nothing is checked). Under several ranks each
 * checks the rows it owns and rank 0 alone prints: the same report and status as one process. */
static int cmd_verify(int argc, char **argv)
{
    enum { MEMORY, TIME_LIMIT, QUIET, NOPTS };
    cli_opt o[] = { [MEMORY] = { "--memory", 1, NULL }, [TIME_LIMIT] = { "--time-limit", 1, NULL },
                    [QUIET] = { "--quiet", 0, NULL }, [NOPTS] = { NULL, 0, NULL } };
    double began = clock_now();      /* --time-limit counts from here */
    const char *dir;
    chain_policy limits;
    int npos, prc = parse_args("verify", argc, argv, o, &dir, 1, &npos);
    if (prc >= 0) return prc;
    if (npos != 1) return usage_error("verify: DIR expected");
    if ((prc = check_env(0)) != 0) return prc;
    if ((prc = parse_limits(o[MEMORY].arg, o[TIME_LIMIT].arg, began, &limits)) != 0) return prc;
    int rank = rt_mpi_rank();
    struct { long holder; uint32_t prime; } seen = { 0, 2 };   /* rank 0 looks for all */
    if (rank == 0 && !(seen.holder = outdir_holder(dir))) seen.prime = manifest_prime(dir);
    rt_mpi_bcast(&seen, sizeof seen);
    if (seen.holder) {
        char pid[32] = "?";
        if (seen.holder > 0) snprintf(pid, sizeof pid, "%ld", seen.holder);
        if (rank == 0) fprintf(stderr, "extflow: %s is in use by another extflow run (pid %s): verify it when that "
                               "run has ended\n", dir, pid);
        return 2;
    }
    if (seen.prime != 2) {
        if (rank == 0) fprintf(stderr, "extflow: %s holds a resolution at p = %u: verify checks p = 2 only so far\n",
                               dir, seen.prime);
        return 2;
    }
    char err[300];
    int started = rt_init(0, err, sizeof err) == 0;
    if (rt_mpi_max(!started)) {
        if (rank == 0)
            fprintf(stderr, "extflow: %s\n", started ? "verify: StarPU failed to start on another rank" : err);
        if (started) rt_shutdown();
        return 1;
    }
    chain_runner runner = lift_runner(&limits, rank != 0 || o[QUIET].arg, "bidegrees checked");
    verify_share share = { rank, rt_mpi_size(), verify_owner, rt_mpi_gatherv, rt_mpi_max };
    int rc = verify_dir(dir, stdout, &runner, &share);
    rt_shutdown();
    if (rc == VERIFY_STOPPED && rank == 0)
        fprintf(stderr, "extflow: verify stopped at the time limit after %.1f s, before its checks ended; no report "
                "(verify keeps nothing: a rerun checks everything again)\n", clock_now() - limits.start);
    return rc;
}

/* extflow export DIR --json [--out FILE] | --sqlite FILE: the chart's JSON document
 * (stages/chart.h) or one SQLite database (stages/sqlexport.h) of the region DIR/run.json
 * says is complete, from the stage files. */
static int load_resolved_dir(const char *dir, resolution *res, run_manifest *m, fd_module *fdm, int odd_ok);
static int cmd_export(int argc, char **argv)
{
    enum { JSON, OUT, SQLITE, NOPTS };
    cli_opt o[NOPTS + 1] = { [JSON] = { "--json", 0, NULL }, [OUT] = { "--out", 1, NULL },
                             [SQLITE] = { "--sqlite", 1, NULL }, [NOPTS] = { NULL, 0, NULL } };
    const char *dir;
    int npos, prc = parse_args("export", argc, argv, o, &dir, 1, &npos);
    if (prc >= 0) return prc;
    if (npos != 1) return usage_error("export: DIR expected");
    if (!o[JSON].arg == !o[SQLITE].arg) return usage_error("export: one of --json and --sqlite FILE is required");
    if (o[OUT].arg && !o[JSON].arg) return usage_error("export: --out goes with --json (--sqlite names its FILE)");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return usage_error("export: %s is not a directory", dir);
    const char *file = o[SQLITE].arg ? o[SQLITE].arg : o[OUT].arg;
    if (file) {     /* FILE's directory must exist, and FILE must not be one */
        char *slash = strrchr(file, '/');
        char parent[4200];
        snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash == file ? 1 : slash - file) : 1,
                 slash ? file : ".");
        if (!*file || (slash && !slash[1])) return usage_error("export: '%s' is not a file name", file);
        if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode))
            return usage_error("export: %s: no directory %s to write it in", file, parent);
        if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) return usage_error("export: %s is a directory", file);
    }
    run_manifest m;
    fd_module fdm = { 0 };
    resolution res;
    int rc = load_resolved_dir(dir, &res, &m, &fdm, 1);
    if (rc) {
        fdm_clear(&fdm);
        return rc;
    }
    char *buf = NULL, err[4400];
    size_t len = 0;
    if (o[SQLITE].arg) {
        if (sqlexport_write(&res, file, err, sizeof err) != 0) {
            fprintf(stderr, "extflow: cannot export %s to %s: %s\n", dir, file, err);
            rc = 1;
        }
    } else {
        FILE *f = open_memstream(&buf, &len);
        int bad = !f || chart_write_json(f, &res) != 0, e = errno;
        if (f && fclose(f) != 0 && !bad) bad = 1, e = errno;
        if (bad) {
            fprintf(stderr, "extflow: cannot write the chart of %s: %s\n", dir, strerror(e));
            rc = 1;
        } else if (file && durable_write_file(file, buf, len, NULL, 0) != 0) {
            fprintf(stderr, "extflow: cannot write %s: %s\n", file, strerror(errno));
            rc = 1;
        } else if (!file && (fwrite(buf, 1, len, stdout) != len || fflush(stdout) != 0)) {
            fprintf(stderr, "extflow: cannot write to stdout: %s\n", strerror(errno));
            rc = 1;
        }
    }
    free(buf);
    res_clear(&res);
    fdm_clear(&fdm);
    return rc;
}

/* Loads the complete region of DIR (run.json) into res, read-only, a module's definition into
 * *fdm (kept by the caller while res lives); 0, or 1 after a message, 2 for a directory
 * products cannot use (an odd prime's unless odd_ok: export reads those). */
static int load_resolved_dir(const char *dir, resolution *res, run_manifest *m, fd_module *fdm, int odd_ok)
{
    char err[4300];
    int hm = manifest_read(dir, m, err, sizeof err);
    if (hm != 0) {
        fprintf(stderr, "extflow: %s\n", hm > 0 ? "no run.json: not a finished resolution (run resolve)" : err);
        return hm > 0 ? 2 : 1;
    }
    if (m->prime != 2 && !odd_ok) {
        fprintf(stderr, "extflow: %s holds a resolution at p = %d: products, massey and d2 work at p = 2 only\n", dir,
                m->prime);
        return 2;
    }
    int have_module = m->module_id != stage_hash64(RES_MODULE_S2, strlen(RES_MODULE_S2));
    if (have_module && verify_load_module(dir, m->module_id, fdm, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    const run_region *r = &m->complete;
    if (res_init(res, r->kind, r->stem, r->max_s, r->kind == REGION_RECT ? r->max_t : 0, dir, 0, m->algorithm) != 0) {
        fprintf(stderr, "extflow: out of memory loading %s\n", dir);
        return 1;
    }
    res->load_action = NULL;
    if (have_module && res_set_module(res, fdm, m->module) != 0) {
        fprintf(stderr, "extflow: out of memory loading %s\n", dir);
        res_clear(res);
        return 1;
    }
    res_load_stages(res);
    if (res_failed(res)) {
        fprintf(stderr, "extflow: %s\n", res->error);
        res_clear(res);
        return 1;
    }
    for (int s = 0; s <= res->max_s; s++)
        for (deg_t t = s; t - s <= report_row_last_stem(res, s); t++)
            if (!res_is_done(res, s, t)) {
                fprintf(stderr, "extflow: %s: bidegree (s=%d, t=%d) is missing (extflow verify %s says more)\n", dir, s,
                        (int)t, dir);
                res_clear(res);
                return 1;
            }
    return 0;
}

/* Writes DIR/name from write_fn(FILE *, ctx) durably; 0, or 1 after a message. */
static int write_output(const char *dir, const char *name, int (*write_fn)(FILE *, void *), void *ctx)
{
    char path[4400], *buf = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = open_memstream(&buf, &len);
    int rc = !f || write_fn(f, ctx) != 0;
    if (f && fclose(f) != 0) rc = 1;
    if (!rc && durable_write_file(path, buf, len, NULL, 0) != 0) rc = 1;
    if (rc) fprintf(stderr, "extflow: cannot write %s: %s\n", path, strerror(errno));
    free(buf);
    return rc;
}

struct products_out {
    const lift_set *set;
    const char *const *names;
    int m;
    const char *kept;       /* earlier runs' rows of other classes (products_read_kept) */
    size_t keptlen;
};
static int write_csv(FILE *f, void *ctx)
{
    struct products_out *o = ctx;
    return products_write_csv(f, o->set, o->names, o->kept, o->keptlen);
}
static int write_lift_hom(FILE *f, void *ctx)
{
    struct products_out *o = ctx;
    return products_write_lift_hom(f, o->set, o->m, o->names[o->m]);
}

#define MAX_CLASSES 64

/* A finished resolution opened for products: DIR locked, its region loaded, and its module. */
typedef struct opened_dir {
    int lockfd;
    resolution res;
    run_manifest man;
    fd_module fdm;
} opened_dir;

/* For a command that reads a finished resolution: StarPU's environment checked, DIR locked
 * and its complete region loaded into d. 0, or the exit status after a message. */
static int open_resolved_dir(const char *cmd, const char *dir, opened_dir *d)
{
    memset(d, 0, sizeof *d);
    int rc = check_env(0);
    if (rc) return rc;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return usage_error("%s: %s is not a directory", cmd, dir);
    /* several ranks (products): rank 0 holds the lock for all, and they all stop if it cannot */
    d->lockfd = rt_mpi_rank() == 0 ? lock_outdir(dir) : -1;
    if (rt_mpi_max(rt_mpi_rank() == 0 && d->lockfd < 0)) return 1;
    if ((rc = load_resolved_dir(dir, &d->res, &d->man, &d->fdm, 0)) != 0) {
        if (d->lockfd >= 0) close(d->lockfd);
        fdm_clear(&d->fdm);
    }
    return rc;
}

static void close_resolved_dir(opened_dir *d)
{
    res_clear(&d->res);
    fdm_clear(&d->fdm);
    if (d->lockfd >= 0) close(d->lockfd);
}

/* close_resolved_dir of DIR's and, when it was opened, the unit's. */
static void close_dir_and_unit(opened_dir *d, opened_dir *u, int have_unit)
{
    if (have_unit) close_resolved_dir(u);
    close_resolved_dir(d);
}

/* Is d's module the unit of the algebra it is resolved over: S_2, or F2 (one class, in degree
 * 0) over a profile's sub-Hopf-algebra B (ko, tmf2)? Such a directory is its own unit. */
static int dir_is_unit(const opened_dir *d)
{
    if (d->man.module_id == stage_hash64(RES_MODULE_S2, strlen(RES_MODULE_S2))) return 1;
    const fd_module *m = &d->fdm;
    return m->dim && !m->fp && !m->rp_open && m->min_deg == 0 && m->max_deg == 0 && m->dim[0] == 1;
}

/* The algebra a resolution's free modules are free over: "A", "A(n)", or "the subalgebra of
 * profile [h1,h2,...]" (", ..." where it is not truncated: the later h_i are unbounded). */
static void algebra_describe(char *buf, size_t size, const milnor_profile *p)
{
    milnor_profile full = milnor_profile_full();
    if (milnor_profile_equal(p, &full)) {
        snprintf(buf, size, "A");
        return;
    }
    for (int n = 0; n < MILNOR_MAX_LEN; n++) {
        milnor_profile an = milnor_profile_an(n);
        if (milnor_profile_equal(p, &an)) {
            snprintf(buf, size, "A(%d)", n);
            return;
        }
    }
    size_t k = (size_t)snprintf(buf, size, "the subalgebra of profile [");
    for (int i = 0; i < p->len && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", i ? "," : "", p->h[i]);
    if (k < size) snprintf(buf + k, size - k, "%s]", p->truncated ? "" : ",...");
}

static int same_directory(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The resolution products over DIR's module act through: the unit F2 resolved over the same
 * algebra as DIR (A for S_2 and modules over A; B for a module over a profile's B: a lift is a
 * chain map of B-modules, so both resolutions must be free over the same algebra, and
 * Ext_B(F2, F2) is what acts on Ext_B(M, F2); docs/products.md "Modules"). A DIR whose module
 * is that unit (S_2, ko, tmf2) is its own (*have_unit = 0; --unit absent or naming DIR itself);
 * else UNITDIR's, opened into *u, which must hold F2 over DIR's algebra and cover DIR's region
 * row by row. 0, or the exit status after a message (nothing left open). */
static int open_unit(const char *cmd, const char *dir, const opened_dir *d, const char *unitdir, opened_dir *u,
                     int *have_unit)
{
    char alg[96], ualg[96];
    algebra_describe(alg, sizeof alg, &d->res.A.profile);
    int own = dir_is_unit(d);
    *have_unit = 0;
    if (unitdir && same_directory(dir, unitdir)) {
        if (own) return 0;
        return usage_error("%s: --unit %s is DIR itself, a resolution of %s: the unit is F2 over %s", cmd, unitdir,
                           d->man.module, alg);
    }
    if (!unitdir) {
        if (own) return 0;
        return usage_error("%s: %s holds a resolution of %s over %s: give --unit UNITDIR, a resolution of F2 over "
                           "%s%s over the same range", cmd, dir, d->man.module, alg, alg,
                           strcmp(alg, "A") ? "" : " (S_2)");
    }
    int rc = open_resolved_dir(cmd, unitdir, u);
    if (rc) return rc;
    algebra_describe(ualg, sizeof ualg, &u->res.A.profile);
    if (!dir_is_unit(u)) {
        close_resolved_dir(u);
        return usage_error("%s: --unit %s holds a resolution of %s, not of the unit F2 over %s%s", cmd, unitdir,
                           u->man.module, alg, strcmp(alg, "A") ? "" : " (S_2)");
    }
    if (!milnor_profile_equal(&u->res.A.profile, &d->res.A.profile)) {
        close_resolved_dir(u);
        return usage_error("%s: --unit %s resolves %s over %s, but %s (%s) is resolved over %s: the unit must be F2 "
                           "over the same algebra%s", cmd, unitdir, u->man.module, ualg, dir, d->man.module, alg,
                           own ? ", and DIR is its own (drop --unit)" : "");
    }
    if (own) {
        close_resolved_dir(u);
        return usage_error("%s: --unit is for a module's DIR; %s holds %s over %s, its own unit (drop --unit)", cmd,
                           dir, d->man.module, alg);
    }
    for (int s = 0; s <= d->res.max_s; s++) {
        int need = report_row_last_stem(&d->res, s);
        int have = s <= u->res.max_s ? report_row_last_stem(&u->res, s) : -1;
        if (need >= 0 && have < need) {
            close_resolved_dir(u);
            return usage_error("%s: --unit %s resolves %s at s=%d only through stem %d; %s needs stem %d there "
                               "(resolve the unit further)", cmd, unitdir, u->man.module, s, have, dir, need);
        }
    }
    *have_unit = 1;
    return 0;
}

/* A class argument must lie in DIR's complete region, with as many coordinates as there are
 * generators there: 0, or 2 after a usage error. */
static int check_class(const char *cmd, const product_class *c, const resolution *res, const run_manifest *man,
                       const char *dir)
{
    char where[64];
    region_describe(where, sizeof where, &man->complete, res->shift);
    int n = c->n + (int)res->shift;   /* c->n is internal; messages in the module's stems */
    if (c->n < 0 || c->s > res->max_s || c->n > report_row_last_stem(res, c->s))
        return usage_error("%s: class %s at (n=%d, s=%d) lies outside %s's resolved region (%s)", cmd, c->name, n,
                           c->s, dir, where);
    uint32_t dim = res_ngens(res, c->s, c->n + c->s);
    if (dim == 0) return usage_error("%s: class %s: Ext at (n=%d, s=%d) is zero", cmd, c->name, n, c->s);
    if (c->len != dim)
        return usage_error("%s: class %s: %u coordinates given, but Ext at (n=%d, s=%d) has dimension %u", cmd, c->name,
                           c->len, n, c->s, dim);
    return 0;
}

/* extflow products DIR --class C ...: lifts the classes over DIR's resolution (stages/lift.h). */
static int cmd_products(int argc, char **argv)
{
    enum { SSEQ, QUIET, CHART, UNIT, MEMORY, TIME_LIMIT, NOPTS };
    cli_opt o[NOPTS + 1] = { [SSEQ] = { "--sseq-formats", 0, NULL }, [QUIET] = { "--quiet", 0, NULL },
                             [CHART] = { "--chart-products", 1, NULL }, [UNIT] = { "--unit", 1, NULL },
                             [MEMORY] = { "--memory", 1, NULL }, [TIME_LIMIT] = { "--time-limit", 1, NULL },
                             [NOPTS] = { NULL, 0, NULL } };
    double began = clock_now();
    /* --class repeats: take them out before the common parser */
    static product_class classes[MAX_CLASSES];
    const char *names[MAX_CLASSES];
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    int nrest = 0, ncl = 0;
    char err[600];
    if (!rest) return 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        if (!strcmp(a, "--")) {
            while (i < argc) rest[nrest++] = argv[i++];
            break;
        }
        if (!strcmp(a, "--class")) {
            if (i + 1 == argc) {
                free(rest);
                return usage_error("products: --class needs a value");
            }
            val = argv[++i];
        } else if (!strncmp(a, "--class=", 8))
            val = a + 8;
        if (!val) {
            rest[nrest++] = argv[i];
            continue;
        }
        if (ncl == MAX_CLASSES) {
            free(rest);
            return usage_error("products: at most %d classes at once", MAX_CLASSES);
        }
        if (products_parse_class(val, &classes[ncl], err, sizeof err) != 0) {
            free(rest);
            return usage_error("products: %s", err);
        }
        for (int k = 0; k < ncl; k++)
            if (!strcmp(classes[k].name, classes[ncl].name)) {
                free(rest);
                return usage_error("products: two classes named '%s'", classes[ncl].name);
            }
        names[ncl] = classes[ncl].name;
        ncl++;
    }
    const char *dir;
    int npos, prc = parse_args("products", nrest, rest, o, &dir, 1, &npos);
    free(rest);
    if (prc >= 0) return prc;
    if (npos != 1) return usage_error("products: DIR expected");
    if (!ncl) return usage_error("products: give at least one --class");
    chain_policy limits;
    if ((prc = parse_limits(o[MEMORY].arg, o[TIME_LIMIT].arg, began, &limits)) != 0) return prc;
    char chart[sizeof ((resolution *)0)->chart_products] = "h0,h1,h2";
    if (o[CHART].arg) {   /* h0, h1, h2 or classes of this run, comma-separated */
        if (strlen(o[CHART].arg) >= sizeof chart) return usage_error("products: --chart-products: list too long");
        snprintf(chart, sizeof chart, "%s", o[CHART].arg);
        char list[sizeof chart];
        snprintf(list, sizeof list, "%s", chart);
        for (char *save = NULL, *nm = strtok_r(list, ",", &save); nm; nm = strtok_r(NULL, ",", &save)) {
            int known = !strcmp(nm, "h0") || !strcmp(nm, "h1") || !strcmp(nm, "h2");
            for (int k = 0; k < ncl && !known; k++) known = !strcmp(nm, classes[k].name);
            if (!known)
                return usage_error("products: --chart-products: '%s' is neither h0, h1, h2 nor a --class of this run", nm);
        }
    }
    int quiet = o[QUIET].arg != NULL;
    static opened_dir d, u;
    int have_unit;
    if ((prc = open_resolved_dir("products", dir, &d)) != 0) return prc;
    resolution *res = &d.res;
    prc = open_unit("products", dir, &d, o[UNIT].arg, &u, &have_unit);
    for (int k = 0; k < ncl && !prc; k++) {   /* stems as the module's degrees give them -> internal */
        classes[k].n -= res->shift;
        prc = check_class("products", &classes[k], res, &d.man, dir);
    }
    if (!prc && have_unit && o[CHART].arg) prc = usage_error("products: --chart-products: not for a module's DIR");
    /* over a module the rows multiply M's classes by S_2's: not the chart's lines, another file */
    const char *table = have_unit ? "module-products.csv" : "products.csv";
    char *kept = NULL, tpath[4400];
    size_t keptlen = 0;
    snprintf(tpath, sizeof tpath, "%s/%s", dir, table);
    if (!prc) {   /* an earlier run's table: its other classes' rows are kept (schema/products-csv.md) */
        int krc = products_read_kept(tpath, names, ncl, &kept, &keptlen, err, sizeof err);
        if (krc == -2) fprintf(stderr, "extflow: products: %s: refused, nothing computed (move the file away)\n", err);
        else if (krc) fprintf(stderr, "extflow: %s\n", err);
        prc = krc == -2 ? 2 : krc ? 1 : 0;
    }
    if (prc) {
        close_dir_and_unit(&d, &u, have_unit);
        return prc;
    }
    double t0 = clock_now(), t1;
    lift_set set;
    memset(&set, 0, sizeof set);
    int rc = 0, rank = rt_mpi_rank(), nranks = rt_mpi_size(), started = rt_init(0, err, sizeof err) == 0, have_set = 0;
    if (!started) {
        fprintf(stderr, "extflow: %s\n", err);
        rc = 1;
    }
    /* several ranks: rank r lifts the classes k = r mod N into their stage files, then rank 0
     * lifts them all, which loads what the ranks computed, and writes the tables: the same
     * files as one process */
    for (int pass = nranks > 1 ? 0 : 1; pass < 2; pass++) {
        if (pass == 1 && nranks > 1) {
            int mine = rc;
            rc = rt_mpi_max(rc);
            if (rank == 0 && rc && !mine)
                fprintf(stderr, "extflow: products: another rank %s (the finished lift bidegrees are kept; rerun to "
                        "resume)\n", rc == 3 ? "stopped at the time limit" : "failed");
            if (rank != 0) break;
        }
        if (rc) break;
        have_set = 1;
        int setup = lift_set_init(&set, res, have_unit ? &u.res : res, dir) != 0;
        set.timing = getenv("EXTFLOW_STATS") != NULL;
        set.any_preimage = 1;                    /* products do not depend on the preimages */
        for (int k = 0; k < ncl && !setup; k++)
            if (pass == 1 || k % nranks == rank)
                setup = lift_add_class(&set, classes[k].s, classes[k].n + classes[k].s, classes[k].coords,
                                       classes[k].len) < 0;
        if (setup) {
            fprintf(stderr, "extflow: out of memory (or cannot create %s/stages/lift) setting up the lifts\n", dir);
            rc = 1;
        } else {
            uint64_t cuda0, cuda1, mod4;
            rt_chain_cuda_pairs(&cuda0, &mod4);
            chain_runner runner = lift_runner(&limits, quiet || pass == 0, "lift steps");
            int lr = lift_run(&set, &runner);
            rt_chain_cuda_pairs(&cuda1, &mod4);
            set.pairs_cuda = cuda1 - cuda0;
            if (lr < 0) fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n", set.fail.msg);
            rc = lr == 1 ? stopped_at_limit("products", dir, &limits, set.computed) : lr != 0;
        }
        if (pass == 0) {
            lift_set_clear(&set);
            have_set = 0;
        }
    }
    if (started) rt_shutdown();
    if (rank != 0 || !have_set) {       /* rank 0 writes the tables, from the lifts of all classes */
        if (have_set) lift_set_clear(&set);
        free(kept);
        close_dir_and_unit(&d, &u, have_unit);
        return rc;
    }
    struct products_out out = { &set, names, 0, kept, keptlen };
    if (!rc) rc = write_output(dir, table, write_csv, &out);
    snprintf(res->chart_products, sizeof res->chart_products, "%s", chart);
    static const char *charts[] = { "chart.svg", "chart.html" };   /* they draw products.csv */
    for (int k = 0; k < 2 && !rc && !have_unit; k++)
        if ((rc = report_write_file(dir, charts[k], res, k ? chart_write_html : chart_write_svg)) != 0)
            fprintf(stderr, "extflow: cannot write %s/%s: %s\n", dir, charts[k], strerror(errno));
    for (int k = 0; k < ncl && !rc; k++) {
        char name[128];
        snprintf(name, sizeof name, "lift_hom-%.63s.txt", classes[k].name);
        out.m = k;
        if (o[SSEQ].arg) rc = write_output(dir, name, write_lift_hom, &out);
        else remove_output(dir, name);
    }
    t1 = clock_now();
    if (!rc && !quiet && nranks > 1)
        fprintf(stderr, "extflow: the classes were lifted by %d ranks, each into its stage files; rank 0 loaded "
                "them:\n", nranks);
    if (!rc && !quiet)
        fprintf(stderr, "extflow: %d class%s lifted over %s (%s): %ld bidegrees computed, %ld loaded, %ld solves of d "
                "in %.1f s; %.1f s in all; table %s/%s\n", ncl, ncl > 1 ? "es" : "", dir,
                stage_algorithm_name(res->algorithm), set.computed, set.loaded, set.qis, set.qi_seconds,
                t1 - t0, dir, table);
    if (!rc && set.timing)
        fprintf(stderr, "extflow: lift CPU s: products f(d z) %.2f, solves %.2f (%ld of %ld by signature blocks), "
                "stage files %.2f\n", set.cpu_products, set.cpu_solves, set.qis_by_signature, set.qis, set.cpu_files);
    if (!rc && set.timing) {
        double all = set.pairs ? (double)set.pairs : 1;
        fprintf(stderr, "extflow: lift Milnor products: %llu (job x term) pairs, %.1f%% inline in the lift's own "
                "tasks, %.1f%% on CPU workers' and %.1f%% on CUDA workers' multiply tasks\n",
                (unsigned long long)set.pairs, 100.0 * (double)set.pairs_inline / all,
                100.0 * (double)(set.pairs - set.pairs_inline - set.pairs_cuda) / all, 100.0 * (double)set.pairs_cuda / all);
    }
    lift_set_clear(&set);
    free(kept);
    close_dir_and_unit(&d, &u, have_unit);
    return rc;
}

struct massey_out {
    const massey_table *t;
    const char *a, *b;
};
static int write_massey_csv(FILE *f, void *ctx)
{
    struct massey_out *o = ctx;
    return massey_write_csv(f, o->t, o->a, o->b);
}
static int write_massey_sseq(FILE *f, void *ctx)
{
    struct massey_out *o = ctx;
    return massey_write_sseq(f, o->t);
}

/* extflow massey DIR --a A --b B: <A, B, c> for every c in the kernel of B (stages/massey.h). */
static int cmd_massey(int argc, char **argv)
{
    enum { A, B, SSEQ, QUIET, UNIT, MEMORY, TIME_LIMIT, NOPTS };
    cli_opt o[NOPTS + 1] = { [A] = { "--a", 1, NULL }, [B] = { "--b", 1, NULL }, [SSEQ] = { "--sseq-formats", 0, NULL },
                             [QUIET] = { "--quiet", 0, NULL }, [UNIT] = { "--unit", 1, NULL },
                             [MEMORY] = { "--memory", 1, NULL }, [TIME_LIMIT] = { "--time-limit", 1, NULL },
                             [NOPTS] = { NULL, 0, NULL } };
    double began = clock_now();
    const char *dir;
    int npos, prc = parse_args("massey", argc, argv, o, &dir, 1, &npos);
    if (prc >= 0) return prc;
    if (npos != 1) return usage_error("massey: DIR expected");
    if (!o[A].arg || !o[B].arg) return usage_error("massey: give --a CLASS and --b CLASS");
    chain_policy limits;
    if ((prc = parse_limits(o[MEMORY].arg, o[TIME_LIMIT].arg, began, &limits)) != 0) return prc;
    static product_class a, b;
    char err[800];
    if (products_parse_class(o[A].arg, &a, err, sizeof err) != 0 || products_parse_class(o[B].arg, &b, err, sizeof err) != 0)
        return usage_error("massey: %s", err);
    if (a.s < 1 || b.s < 1) return usage_error("massey: the classes a and b must have s >= 1");
    static opened_dir d, u;
    int have_unit;
    if ((prc = open_resolved_dir("massey", dir, &d)) != 0) return prc;
    prc = open_unit("massey", dir, &d, o[UNIT].arg, &u, &have_unit);
    const opened_dir *ud = have_unit ? &u : &d;          /* a and b are classes of S_2 */
    const char *udir = have_unit ? o[UNIT].arg : dir;
    if (!prc && !(prc = check_class("massey", &a, &ud->res, &ud->man, udir)))
        prc = check_class("massey", &b, &ud->res, &ud->man, udir);
    if (prc) {
        close_dir_and_unit(&d, &u, have_unit);
        return prc;
    }
    double t0 = clock_now(), t1;
    massey_table table = { 0 };
    /* several ranks: each lifts its share of the c's (massey_share), rank 0 writes the tables
     * and says what went wrong, for all of them (they agree on it) */
    int rank = rt_mpi_rank(), nranks = rt_mpi_size(), started = rt_init(0, err, sizeof err) == 0;
    if (!started) fprintf(stderr, "extflow: %s\n", err);
    int rc = rt_mpi_max(!started);
    if (!rc) {
        massey_share share = { rank, nranks, rt_mpi_allgather };
        chain_runner runner = lift_runner(&limits, o[QUIET].arg != NULL || rank != 0, "lift steps");
        int mr = massey_compute(&d.res, &ud->res, &a, &b, dir, &runner, &share, &table, err, sizeof err);
        if (mr == 1) rc = usage_error("massey: %s", err);
        else if (mr == MASSEY_STOPPED) rc = rank ? 3 : stopped_at_limit("massey", dir, &limits, -1);
        else if (mr) {
            if (!rank) fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n", err);
            rc = 1;
        }
    }
    if (started) rt_shutdown();
    if (rank != 0) {   /* rank 0 has the brackets */
        close_dir_and_unit(&d, &u, have_unit);
        return rc;
    }
    char csv[200], txt[200];
    snprintf(csv, sizeof csv, "massey-%s-%s.csv", a.name, b.name);
    snprintf(txt, sizeof txt, "massey-%s-%s.txt", a.name, b.name);
    struct massey_out out = { &table, a.name, b.name };
    if (!rc) rc = write_output(dir, csv, write_massey_csv, &out);
    if (!rc && o[SSEQ].arg) rc = write_output(dir, txt, write_massey_sseq, &out);
    else if (!rc) remove_output(dir, txt);
    t1 = clock_now();
    if (!rc && !o[QUIET].arg && nranks > 1)
        fprintf(stderr, "extflow: the classes c were shared among %d ranks, each lifting its f_c and homotopies; "
                "rank 0 gathered the brackets:\n", nranks);
    if (!rc && !o[QUIET].arg) {
        size_t nonzero = 0;
        for (size_t k = 0; k < table.n; k++)
            for (uint32_t z = 0; z < table.b[k].dim; z++)
                if (table.b[k].rep[z]) {
                    nonzero++;
                    break;
                }
        fprintf(stderr, "extflow: <%s, %s, c> for %zu classes c over %s (%zu not containing 0; %ld chain maps) in "
                "%.1f s; table %s/%s\n", a.name, b.name, table.n, dir, nonzero, table.lifts,
                t1 - t0, dir, csv);
    }
    massey_table_clear(&table);
    close_dir_and_unit(&d, &u, have_unit);
    return rc;
}

static int write_d2_csv(FILE *f, void *ctx) { return secondary_write_csv(f, ctx); }
static int write_d2_sseq(FILE *f, void *ctx) { return secondary_write_sseq(f, ctx); }

struct sp_out {
    const sec_product *p;
    const char *name;
};
static int write_sp(FILE *f, void *ctx)
{
    const struct sp_out *o = ctx;
    return sec_product_write(f, o->p, o->name);
}

/* d2 --product: the class's products in Mod_{Cλ²} into DIR/secondary_product-NAME.txt; 0, 1 on a
 * failure, 2 after a usage error (a class that supports a d2), 3 stopped at the time limit. */
static int d2_product(const char *dir, secondary *sec, const product_class *c, const chain_runner *runner)
{
    static sec_product p;
    char err[300];
    int rc = 0;
    if (sec_product_init(&p, sec, c->s, c->n + c->s, c->coords, c->len, dir, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        sec_product_clear(&p);
        return 1;
    }
    if (!sec_product_survives(&p)) rc = usage_error("d2: --product: %s supports a non-zero d2 (see d2.csv)", c->name);
    else if (rt_init_local(0, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        rc = 1;
    } else {
        int pr = sec_product_run(&p, runner);
        rt_shutdown_local();
        rc = pr == 1 ? stopped_at_limit("d2 --product", dir, &runner->policy, p.prim.computed + p.hom.computed) : pr != 0;
        if (pr < 0)
            fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n",
                    p.fail.set ? p.fail.msg : p.prim.fail.set ? p.prim.fail.msg : p.hom.fail.msg);
    }
    char name[80], file[128];
    if (c->name[0] == 'h' && c->name[1] >= '0' && c->name[1] <= '9' && !c->name[2])   /* sseq's h_j */
        snprintf(name, sizeof name, "h_%c", c->name[1]);
    else snprintf(name, sizeof name, "%s", c->name);
    snprintf(file, sizeof file, "secondary_product-%s.txt", c->name);
    struct sp_out out = { &p, name };
    if (!rc) rc = write_output(dir, file, write_sp, &out);
    sec_product_clear(&p);
    return rc;
}

/* What each rank of d2 under mpirun sends rank 0 before its composites (or its error). */
typedef struct d2_share {
    int status;                 /* 0; 1 failed (the message follows); 3 stopped at the time limit */
    long cells, gens;           /* composite cells and generators it computed */
    uint64_t pairs, cuda;       /* their mod-4 products, those on CUDA workers */
    double seconds;
} d2_share;

/* d2 under N > 1 ranks (docs/cluster.md): the composite cells of the run (rank 0's
 * secondary_needed) shared among the ranks, cell (s, T) to rank rt_mpi_owner(OWNER_PAIRS, s,
 * N, max_s); each computes its own as a chain set of the composite layer, and the others send
 * theirs to rank 0 as bytes (secondary_pack_composites), a d2_share in front, where they count
 * as done for the homotopy, which runs there alone. Every rank returns the same: 0, or the exit
 * status after one line from rank 0. */
static int d2_share_composites(secondary *sec, const char *dir, const chain_policy *limits, int quiet)
{
    const resolution *res = sec->res;
    int rank = rt_mpi_rank(), nranks = rt_mpi_size();
    size_t ncells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    uint8_t *cells = calloc(ncells, 1);
    char err[700] = "out of memory sharing the composites", *buf = NULL;
    size_t len = 0;
    d2_share me = { 0 };
    double t0 = clock_now();
    if (rt_mpi_max(!cells)) {
        me.status = 1;
    } else {
        if (rank == 0) secondary_needed(sec, cells);
        rt_mpi_bcast(cells, ncells);
        for (int s = 2; s <= res->max_s; s++)
            for (deg_t T = s; T - s <= res->max_n; T++) {
                uint8_t *c = &cells[res_cell(res, s, T)];
                *c = *c && rt_mpi_owner(OWNER_PAIRS, s, nranks, res->max_s) == rank;
                me.cells += *c, me.gens += *c ? res_ngens(res, s, T) : 0;
            }
        uint64_t cuda0, cuda1, mod2;
        rt_chain_cuda_pairs(&mod2, &cuda0);
        if (rt_init_local(0, err, sizeof err) != 0) {
            me.status = 1;
        } else {
            chain_runner runner = lift_runner(limits, quiet || rank != 0, "composite cells");
            int r = secondary_run_composites(sec, cells, &runner);
            rt_shutdown_local();
            me.status = r == 1 ? 3 : r != 0;
            if (r < 0) snprintf(err, sizeof err, "%s", sec->fail.msg);
        }
        rt_chain_cuda_pairs(&mod2, &cuda1);
        me.pairs = sec->mod4_pairs, me.cuda = cuda1 - cuda0;
    }
    me.seconds = clock_now() - t0;
    FILE *f = open_memstream(&buf, &len);
    int bad = !f || fwrite(&me, sizeof me, 1, f) != 1 ||
              (me.status == 1 ? fputs(err, f) < 0 : !me.status && rank && secondary_pack_composites(sec, cells, f));
    if (f && fclose(f) != 0) bad = 1;
    if (bad) {          /* the head alone, failed (rank 0 reads "out of memory") */
        me.status = 1;
        free(buf);
        buf = malloc(sizeof me);
        len = buf ? sizeof me : 0;
        if (buf) memcpy(buf, &me, sizeof me);
    }
    free(cells);
    void *all;
    size_t *at;
    int rc = rt_mpi_gatherv(buf, len, &all, &at) != 0;
    free(buf);
    if (rank == 0 && rc) fprintf(stderr, "extflow: d2: the composites could not be gathered on rank 0 (out of memory, "
                                 "or 2 GiB or more)\n");
    for (int r = 0; r < nranks && all; r++) {
        const char *p = (const char *)all + at[r];
        size_t n = at[r + 1] - at[r];
        d2_share h = { .status = 1 };
        if (n >= sizeof h) memcpy(&h, p, sizeof h);
        if (getenv("EXTFLOW_STATS"))
            fprintf(stderr, "extflow: rank %d computed %ld composite cells (%ld generators, %.1fM mod-4 products) in "
                    "%.2f s; %.3f MB to rank 0\n", r, h.cells, h.gens, 1e-6 * (double)h.pairs, h.seconds,
                    1e-6 * (double)n);
        if (r) sec->mod4_pairs += h.pairs;
        sec->mod4_pairs_cuda += h.cuda;
        if (h.status == 1 && rc != 1)
            fprintf(stderr, "extflow: rank %d: %.*s (finished homotopy bidegrees are kept; rerun to resume)\n", r,
                    n > sizeof h ? (int)(n - sizeof h) : 13, n > sizeof h ? p + sizeof h : "out of memory");
        rc = h.status == 1 || rc == 1 ? 1 : h.status == 3 ? 3 : rc;
        if (rc || !r || n <= sizeof h) continue;
        FILE *in = fmemopen((void *)(p + sizeof h), n - sizeof h, "r");
        if (!in || secondary_unpack_composites(sec, in) != 0) {
            fprintf(stderr, "extflow: %s\n", in ? sec->fail.msg : "out of memory reading the composites");
            rc = 1;
        }
        if (in) fclose(in);
    }
    if (rank == 0 && rc == 3) stopped_at_limit("d2", dir, limits, -1);
    free(all);
    free(at);
    rt_mpi_bcast(&rc, sizeof rc);
    return rc;
}

/* extflow d2 DIR: Adams d2 over DIR's resolved region (stages/secondary.h). */
static int cmd_d2(int argc, char **argv)
{
    enum { SSEQ, QUIET, PRODUCT, MEMORY, TIME_LIMIT, NOPTS };
    cli_opt o[NOPTS + 1] = { [SSEQ] = { "--sseq-formats", 0, NULL }, [QUIET] = { "--quiet", 0, NULL },
                             [PRODUCT] = { "--product", 1, NULL }, [MEMORY] = { "--memory", 1, NULL },
                             [TIME_LIMIT] = { "--time-limit", 1, NULL }, [NOPTS] = { NULL, 0, NULL } };
    double began = clock_now();
    const char *dir;
    int npos, prc = parse_args("d2", argc, argv, o, &dir, 1, &npos);
    if (prc >= 0) return prc;
    if (npos != 1) return usage_error("d2: DIR expected");
    static chain_policy limits;
    if ((prc = parse_limits(o[MEMORY].arg, o[TIME_LIMIT].arg, began, &limits)) != 0) return prc;
    char err[700];
    static product_class pc;
    if (o[PRODUCT].arg && products_parse_class(o[PRODUCT].arg, &pc, err, sizeof err) != 0)
        return usage_error("d2: --product: %s", err);
    if (o[PRODUCT].arg && pc.s < 1) return usage_error("d2: --product: the class must have s >= 1");
    static opened_dir d;
    if ((prc = open_resolved_dir("d2", dir, &d)) != 0) return prc;
    resolution *res = &d.res;
    if (o[PRODUCT].arg) {
        prc = res->module ? usage_error("d2: --product is for a resolution of S_2; %s holds %s", dir, d.man.module)
                          : check_class("d2", &pc, res, &d.man, dir);
        if (prc) {
            close_resolved_dir(&d);
            return prc;
        }
    }
    double t0 = clock_now(), t1;
    static secondary sec;
    /* several ranks: the others only compute composites (d2_share_composites), no stage file */
    int rank = rt_mpi_rank(), nranks = rt_mpi_size(), sr = secondary_init(&sec, res, rank ? NULL : dir, err, sizeof err);
    if (rt_mpi_max(sr == -1) && !sr) sr = -1, snprintf(err, sizeof err, "another rank ran out of memory setting up d2");
    if (sr != 0) {
        secondary_clear(&sec);
        close_resolved_dir(&d);
        if (sr == -2) return usage_error("d2: %s holds %s: %s", dir, d.man.module, err);
        if (rank == 0) fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    sec.all_composites = o[PRODUCT].arg != NULL;
    if (nranks > 1 && ((prc = d2_share_composites(&sec, dir, &limits, o[QUIET].arg != NULL)) != 0 || rank != 0)) {
        secondary_clear(&sec);
        close_resolved_dir(&d);
        return prc;
    }
    const char *yw = getenv("EXTFLOW_D2_Y");             /* checked by check_env */
    /* d2 read off a homotopy does not depend on which one (two differ by a null-homotopic chain
     * map, whose values have no unit coefficient in a minimal resolution: docs/secondary.md), so
     * any preimage will do; a secondary product reads the homotopy itself, and matches sseq's
     * only over sseq's preimages */
    sec.set.any_preimage = !o[PRODUCT].arg;
    int rc = rt_init_local(0, err, sizeof err) != 0;
    if (rc) fprintf(stderr, "extflow: %s\n", err);
    else {
        sec.y_in_batch = yw && !strcmp(yw, "batch");
        const char *iw = getenv("EXTFLOW_D2_INTERMEDIATE");    /* checked by check_env */
        sec.intermediates_cpu = iw && !strcmp(iw, "cpu");
        uint64_t cuda0, cuda1, mod2;
        rt_chain_cuda_pairs(&mod2, &cuda0);
        chain_runner runner = lift_runner(&limits, o[QUIET].arg != NULL, "d2 steps");
        int sr2 = secondary_run(&sec, &runner);
        rt_chain_cuda_pairs(&mod2, &cuda1);
        sec.mod4_pairs_cuda += cuda1 - cuda0;
        rt_shutdown_local();
        rc = sr2 != 0;
        if (sr2 == 1) rc = stopped_at_limit("d2", dir, &limits, sec.set.computed);
        else if (rc && res->module && !sec.fail.set && strstr(sec.set.fail.msg, "is not in the image of d_1 "))
            rc = usage_error("d2: %s holds %s, for which the first homotopy cannot be zero (its lift fails at s = 3); "
                             "d2 of such modules is not supported", dir, d.man.module);
        else if (rc) fprintf(stderr, "extflow: %s (finished homotopy bidegrees are kept; rerun to resume)\n",
                             sec.fail.set ? sec.fail.msg : sec.set.fail.msg);
    }
    if (!rc && o[PRODUCT].arg) {   /* (its composites were all computed: sec.all_composites) */
        chain_runner runner = lift_runner(&limits, o[QUIET].arg != NULL, "secondary product steps");
        rc = d2_product(dir, &sec, &pc, &runner);
    }
    if (!rc) rc = write_output(dir, "d2.csv", write_d2_csv, &sec);
    if (!rc && o[SSEQ].arg) rc = write_output(dir, "secondary.txt", write_d2_sseq, &sec);
    else if (!rc) remove_output(dir, "secondary.txt");
    static const char *charts[] = { "chart.svg", "chart.html" };   /* they draw d2.csv */
    for (int k = 0; k < 2 && !rc; k++)
        if ((rc = report_write_file(dir, charts[k], res, k ? chart_write_html : chart_write_svg)) != 0)
            fprintf(stderr, "extflow: cannot write %s/%s: %s\n", dir, charts[k], strerror(errno));
    t1 = clock_now();
    if (!rc && !o[QUIET].arg && nranks > 1)
        fprintf(stderr, "extflow: the composites were shared among %d ranks and gathered on rank 0, which ran the "
                "homotopy:\n", nranks);
    if (!rc && !o[QUIET].arg) {
        long classes = 0, nonzero = 0;
        for (int n = 0; n <= res->max_n; n++)
            for (int s = 1; s + 2 <= res->max_s; s++)
                if (secondary_in_range(&sec, s, n + s))
                    for (uint32_t i = 0; i < res_ngens(res, s, n + s); i++) {
                        classes++;
                        for (uint32_t k = 0; k < res_ngens(res, s + 2, n + s + 1); k++)
                            if (secondary_d2_bit(&sec, s, n + s, i, k)) {
                                nonzero++;
                                break;
                            }
                    }
        fprintf(stderr, "extflow: d2 of %ld classes over %s (%ld non-zero): %ld composites (%.1fM mod-4 products, "
                "%.0f%% on CUDA workers), %ld homotopy bidegrees computed and %ld loaded; %.1f s in all; table "
                "%s/d2.csv\n", classes, dir, nonzero, sec.composites, 1e-6 * (double)sec.mod4_pairs,
                sec.mod4_pairs ? 100.0 * (double)sec.mod4_pairs_cuda / (double)sec.mod4_pairs : 0.0, sec.set.computed,
                sec.set.loaded, t1 - t0, dir);
    }
    secondary_clear(&sec);
    close_resolved_dir(&d);
    return rc;
}

int main(int argc, char **argv)
{
    signal(SIGXFSZ, SIG_IGN);   /* a file-size limit becomes EFBIG, reported like a full disk */
    if (argc < 2) return usage_error("a command is required");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("extflow %s\n", EXTFLOW_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "resolve")) {     /* under mpirun or srun: one rank of a distributed run */
        if (rt_mpi_start(&argc, &argv) != 0) return 1;
        int rc = cmd_resolve(argc - 2, argv + 2);
        rt_mpi_finish();
        return rc;
    }
    if (!strcmp(cmd, "algebra")) return cmd_algebra(argc - 2, argv + 2);
    if (!strcmp(cmd, "inspect")) return cmd_inspect(argc - 2, argv + 2);
    if (!strcmp(cmd, "pack")) return cmd_pack(argc - 2, argv + 2);
    if (!strcmp(cmd, "export")) {   /* one process: under mpirun -np N > 1, one line and exit 2 */
        if (rt_mpi_start(&argc, &argv) != 0) return 1;
        int rc = rt_mpi_size() > 1 ? usage_error("export runs on one process (mpirun is for resolve, products, massey, "
                                                 "d2 and verify)") : cmd_export(argc - 2, argv + 2);
        rt_mpi_finish();
        return rc;
    }
    /* under mpirun: products' classes, massey's c's, d2's composites, verify's rows shared among the ranks */
    int (*shared)(int, char **) = !strcmp(cmd, "products") ? cmd_products : !strcmp(cmd, "massey") ? cmd_massey
                                : !strcmp(cmd, "d2") ? cmd_d2 : !strcmp(cmd, "verify") ? cmd_verify : NULL;
    if (shared) {
        if (rt_mpi_start(&argc, &argv) != 0) return 1;
        int rc = shared(argc - 2, argv + 2);
        rt_mpi_finish();
        return rc;
    }
    return usage_error("unknown command '%s'", cmd);
}
