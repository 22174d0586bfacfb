/* extflow — command-line front end: resolve, algebra, inspect.
 * Exit status: 0 success, 1 runtime failure, 2 usage error. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ftw.h>
#include "runtime/rt.h"
#include "stages/manifest.h"
#include "stages/progress.h"
#include "stages/report.h"
#include "stages/stagefile.h"
#include "stages/verify.h"

#define MAX_STEM 1000

static const char *usage_text =
    "usage: extflow <command> [options]\n"
    "\n"
    "Computes Ext_A^{s,t}(M, F2) over the mod 2 Steenrod algebra A by a minimal resolution.\n"
    "\n"
    "commands:\n"
    "  resolve    resolve a module; writes DIR/ext.csv, DIR/chart.txt, DIR/chart.svg and\n"
    "             per-bidegree stage files under DIR/stages/ (a rerun resumes from them)\n"
    "      --module NAME      module to resolve (default S_2, the sphere; the only one so far)\n"
    "      --stem N           every bidegree with stem n = t - s <= N (default 40)\n"
    "      --max-s S          and s <= S (default N/2 + 2, above the vanishing line)\n"
    "      --max-t T          instead: every bidegree with t <= T (and s <= S)\n"
    "      --algorithm NAME   nassau (default: Nassau's algorithm) or standard\n"
    "      --out DIR          output directory (default out/S_2)\n"
    "      --sseq-formats     also write differentials.txt, num_gens.txt, resolution_size.txt\n"
    "      --quiet            no progress line and no closing summary\n"
    "      --force            DIR holds another module's or algorithm's resolution: delete it\n"
    "                         (stage files, tables, run.json) and start afresh\n"
    "      --keep-stages LIST also save each step's matrix and/or kernel (LIST: matrix,kernel)\n"
    "                         under DIR/stages/matrix/ and DIR/stages/kernel/ (inspect, verify)\n"
    "  algebra    --max-degree N: print degree,dim of the Milnor basis of A as CSV\n"
    "  inspect    FILE [--summary]: print a stage file's header and matrix (or shape, rank,\n"
    "             density); DIR/stages/empty.log: the bidegrees that had no generator\n"
    "  verify     DIR: check every stage file of a resolution (checksums, headers, that it\n"
    "             loads, d∘d = 0), that DIR/run.json's complete region is all there, and\n"
    "             DIR/ext.csv against them; names each missing or bad bidegree once\n"
    "  pack       TEXT FILE: write the matrix of an inspect-style text file as a stage file\n"
    "  help       this text\n"
    "\n"
    "environment: STARPU_SCHED (lws, eager, ws, prio, dmda, dmdas, ...) and STARPU_NCPU change\n"
    "the order of work only, never a result; STARPU_HOME holds StarPU's performance models.\n";

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "extflow: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'extflow help'.\n");
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

static int cmd_algebra(int argc, char **argv)
{
    long maxd = -1;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--max-degree") && i + 1 < argc) {
            if (parse_count(argv[++i], MILNOR_MAX_DEGREE, &maxd) != 0)
                return usage_error("--max-degree wants an integer from 0 to 2046, not '%s'", argv[i]);
        } else if (!strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else
            return usage_error("algebra: unknown or incomplete option '%s'", argv[i]);
    }
    if (maxd < 0) return usage_error("algebra: --max-degree N is required%s", "");
    milnor_basis A;
    if (milnor_basis_init(&A, (deg_t)maxd, NULL) != 0) {
        fprintf(stderr, "extflow: out of memory\n");
        return 1;
    }
    printf("degree,dim\n");
    for (deg_t d = 0; d <= maxd; d++) printf("%d,%u\n", d, A.dim[d]);
    milnor_basis_clear(&A);
    return 0;
}

static int cmd_inspect(int argc, char **argv)
{
    const char *file = NULL;
    int summary = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--summary")) summary = 1;
        else if (argv[i][0] == '-' && argv[i][1]) return usage_error("inspect: unknown option '%s'", argv[i]);
        else if (!file) file = argv[i];
        else return usage_error("inspect: one file at a time ('%s')", argv[i]);
    }
    if (!file) return usage_error("inspect: FILE is required%s", "");
    char err[600];
    size_t len = strlen(file);
    int journal = len >= 9 && !strcmp(file + len - 9, "empty.log");
    if ((journal ? stage_journal_print(stdout, file, err, sizeof err)
                 : stage_print(stdout, file, summary, err, sizeof err)) != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    return 0;
}

static int cmd_pack(int argc, char **argv)
{
    if (argc != 2) return usage_error("pack: TEXT FILE expected%s", "");
    FILE *in = strcmp(argv[0], "-") ? fopen(argv[0], "r") : stdin;
    if (!in) {
        fprintf(stderr, "extflow: cannot open %s: %s\n", argv[0], strerror(errno));
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
    rc = stage_write(argv[1], &h, &m, err, sizeof err);
    f2mat_clear(&m);
    if (rc != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
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

static int ensure_dir(const char *dir)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
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
    static const char *outputs[] = { MANIFEST_NAME, "ext.csv", "chart.txt", "chart.svg",
                                     "differentials.txt", "num_gens.txt", "resolution_size.txt" };
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
 * that is complete); two regions of one kind neither of which contains the other are widened
 * to the smallest containing both; of two kinds, refused. Returns 0 to go on, 1 or 2. */
static int check_manifest(const char *out, int alg, int force, int quiet, run_region *want)
{
    char err[4300], have_r[64], want_r[64];
    run_manifest m;
    uint64_t s2 = 0, module = 0;
    int hm = manifest_read(out, &m, err, sizeof err), have_alg = 0;
    if (hm < 0) {
        fprintf(stderr, "extflow: %s (remove it to resume from the stage files)\n", err);
        return 1;
    }
    s2 = stage_hash64(RES_MODULE_S2, strlen(RES_MODULE_S2));   /* as the stage files carry it */
    if (hm == 0) module = m.module_id, have_alg = m.algorithm;
    else if (!manifest_sniff(out, &module, &have_alg)) return 0;    /* nothing here yet */
    if (module != s2 || have_alg != alg) {
        if (force) {
            if (!quiet) fprintf(stderr, "extflow: --force: deleting the %s resolution in %s\n",
                                stage_algorithm_name(have_alg), out);
            return clear_outdir(out) ? 1 : 0;
        }
        fprintf(stderr, "extflow: %s holds a %s resolution of %s; this run asks for a %s resolution of S_2 (use --force "
                "to replace it, or another --out)\n", out, stage_algorithm_name(have_alg),
                module == s2 ? "S_2" : "another module", stage_algorithm_name(alg));
        return 2;
    }
    if (hm != 0 || region_contains(want, &m.complete)) return 0;
    if (region_contains(&m.complete, want)) {
        *want = m.complete;
        return 0;
    }
    region_describe(have_r, sizeof have_r, &m.complete);
    region_describe(want_r, sizeof want_r, want);
    if (want->kind != m.complete.kind) {
        fprintf(stderr, "extflow: %s holds %s complete; this run asks for %s and neither contains the "
                "other (ask for a region containing both, or use another --out)\n", out, have_r, want_r);
        return 2;
    }
#define MAX(a, b) ((a) > (b) ? (a) : (b))
    want->stem = MAX(want->stem, m.complete.stem);
    want->max_t = MAX(want->max_t, m.complete.max_t);
    want->max_s = MAX(want->max_s, m.complete.max_s);
#undef MAX
    region_describe(want_r, sizeof want_r, want);
    if (!quiet) fprintf(stderr, "extflow: %s holds %s; resolving %s so that it covers both\n", out, have_r, want_r);
    return 0;
}

/* The closing line of a run (stderr, terminal or not). */
static void print_summary(const resolution *res, const char *out, long bidegrees, long computed, double seconds)
{
    char where[64];
    run_region r = region_of(res);
    region_describe(where, sizeof where, &r);
    char loaded[48] = "";
    if (bidegrees > computed) snprintf(loaded, sizeof loaded, " (%ld loaded)", bidegrees - computed);
    fprintf(stderr, "extflow: S_2 to %s, %s: %ld bidegrees%s in %.1f s; table %s/ext.csv\n", where,
            stage_algorithm_name(res->algorithm), bidegrees, loaded, seconds, out);
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

static int cmd_resolve(int argc, char **argv)
{
    const char *module = "S_2", *algorithm = "nassau", *out = "out/S_2";
    long stem = -1, max_s = -1, max_t = -1;
    int quiet = 0, sseq_formats = 0, force = 0;
    unsigned keep = 0;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(o, "--quiet")) quiet = 1;
        else if (!strcmp(o, "--sseq-formats")) sseq_formats = 1;
        else if (!strcmp(o, "--force")) force = 1;
        else if (!strcmp(o, "--help")) { fputs(usage_text, stdout); return 0; }
        else if (!strcmp(o, "--module") && has) module = argv[++i];
        else if (!strcmp(o, "--algorithm") && has) algorithm = argv[++i];
        else if (!strcmp(o, "--out") && has) out = argv[++i];
        else if (!strcmp(o, "--keep-stages") && has) {
            if (parse_keep_stages(argv[++i], &keep) != 0)
                return usage_error("--keep-stages wants matrix, kernel or matrix,kernel, not '%s'", argv[i]);
        }
        else if (!strcmp(o, "--stem") && has) {
            if (parse_count(argv[++i], MAX_STEM, &stem) != 0)
                return usage_error("--stem wants an integer from 0 to 1000, not '%s'", argv[i]);
        } else if (!strcmp(o, "--max-s") && has) {
            if (parse_count(argv[++i], MAX_STEM, &max_s) != 0)
                return usage_error("--max-s wants an integer from 0 to 1000, not '%s'", argv[i]);
        } else if (!strcmp(o, "--max-t") && has) {
            if (parse_count(argv[++i], MAX_STEM, &max_t) != 0)
                return usage_error("--max-t wants an integer from 0 to 1000, not '%s'", argv[i]);
        } else
            return usage_error("resolve: unknown or incomplete option '%s'", o);
    }
    if (strcmp(module, "S_2") != 0)
        return usage_error("unknown module '%s' (this version resolves S_2 only)", module);
    int alg = !strcmp(algorithm, "standard") ? ALG_STANDARD : !strcmp(algorithm, "nassau") ? ALG_NASSAU : 0;
    if (!alg) return usage_error("unknown algorithm '%s' (choose standard or nassau)", algorithm);
    if (stem >= 0 && max_t >= 0) return usage_error("give --stem or --max-t, not both%s", "");
    int region = max_t >= 0 ? REGION_RECT : REGION_STEM;
    if (region == REGION_STEM && stem < 0) stem = 40;
    if (max_s < 0) max_s = region == REGION_STEM ? stem / 2 + 2 : max_t / 2 + 2;
    if (region == REGION_RECT && max_s > max_t) max_s = max_t;
    if ((region == REGION_STEM ? stem + max_s + 1 : max_t) > MILNOR_MAX_DEGREE)
        return usage_error("region too large: t would exceed %s", "2046");

    if (ensure_dir(out) != 0) {
        fprintf(stderr, "extflow: cannot use output directory %s: %s\n", out, strerror(errno));
        return 1;
    }
    int lockfd = lock_outdir(out);
    if (lockfd < 0) return 1;
    run_region want = { region, (int)stem, (int)max_t, (int)max_s };
    int mrc = check_manifest(out, alg, force, quiet, &want);
    if (mrc != 0) {
        close(lockfd);
        return mrc;
    }
    region = want.kind, stem = want.stem, max_t = want.max_t, max_s = want.max_s;
    char err[600];
    stage_remove_temporaries(out);
    if (stage_mkdirs(out, 1u << STAGE_DIFFERENTIAL | keep, err, sizeof err) != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    resolution res;
    if (res_init(&res, region, (int)stem, (int)max_s, (deg_t)max_t, out, 1, alg) != 0) {
        fprintf(stderr, "extflow: out of memory setting up the resolution\n");
        return 1;
    }
    res.keep_stages = keep;
    long loaded = res_load_stages(&res), total = 0;
    for (deg_t t = 0; t <= res.max_t; t++)
        for (int s = 0; s <= res.max_s && s <= t; s++)
            total += res_in_region(&res, s, t) && !*res_done(&res, s, t);
    if (!quiet && loaded) fprintf(stderr, "extflow: resumed %ld bidegrees from %s/stages\n", loaded, out);
    if (rt_init(0, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        res_clear(&res);
        return 1;
    }
    rt_progress progress = { .verbose = getenv("EXTFLOW_STATS") != NULL };
    progress_start(&res, !quiet && isatty(2));
    int rc = rt_resolve(&res, &progress);
    double seconds = progress_finish();
    rt_shutdown();
    if (rc != 0) {
        fprintf(stderr, "extflow: %s\nextflow: finished bidegrees are kept; rerun to resume\n", res.error);
        res_clear(&res);
        return 1;
    }
    static const struct { const char *name; int (*write)(FILE *, const resolution *); int sseq; } files[] = {
        { "chart.txt", report_chart_txt, 0 },
        { "chart.svg", report_chart_svg, 0 },
        { "differentials.txt", report_differentials, 1 },
        { "num_gens.txt", report_num_gens, 1 },
        { "resolution_size.txt", report_resolution_size, 1 },
        { "ext.csv", report_ext_csv, 0 },      /* last: its presence means the run is complete */
    };
    int wrc = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files && !wrc; i++) {
        if (files[i].sseq && !sseq_formats) {   /* a stale one would contradict ext.csv */
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

/* extflow verify DIR: stages/verify.h. Exit 0 when all is well, 1 otherwise. */
static int cmd_verify(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-') return usage_error("verify: DIR expected%s", "");
    return verify_dir(argv[0], stdout);
}

int main(int argc, char **argv)
{
    signal(SIGXFSZ, SIG_IGN);   /* a file-size limit becomes EFBIG, reported like a full disk */
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "resolve")) return cmd_resolve(argc - 2, argv + 2);
    if (!strcmp(cmd, "algebra")) return cmd_algebra(argc - 2, argv + 2);
    if (!strcmp(cmd, "inspect")) return cmd_inspect(argc - 2, argv + 2);
    if (!strcmp(cmd, "pack")) return cmd_pack(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc - 2, argv + 2);
    return usage_error("unknown command '%s'", cmd);
}
