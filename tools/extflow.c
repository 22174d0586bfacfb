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
#include "runtime/rt.h"
#include "stages/report.h"
#include "stages/stagefile.h"

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
    "      --quiet            no progress line\n"
    "  algebra    --max-degree N: print degree,dim of the Milnor basis of A as CSV\n"
    "  inspect    FILE [--summary]: print a stage file's header and matrix (or shape, rank,\n"
    "             density); DIR/stages/empty.log: the bidegrees that had no generator\n"
    "  verify     DIR: check every stage file of a resolution (checksums, headers, that it\n"
    "             loads, d∘d = 0) and DIR/ext.csv against them; one line per problem\n"
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

static int cmd_resolve(int argc, char **argv)
{
    const char *module = "S_2", *algorithm = "nassau", *out = "out/S_2";
    long stem = -1, max_s = -1, max_t = -1;
    int quiet = 0, sseq_formats = 0;
    for (int i = 0; i < argc; i++) {
        const char *o = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(o, "--quiet")) quiet = 1;
        else if (!strcmp(o, "--sseq-formats")) sseq_formats = 1;
        else if (!strcmp(o, "--help")) { fputs(usage_text, stdout); return 0; }
        else if (!strcmp(o, "--module") && has) module = argv[++i];
        else if (!strcmp(o, "--algorithm") && has) algorithm = argv[++i];
        else if (!strcmp(o, "--out") && has) out = argv[++i];
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
    char err[600];
    stage_remove_temporaries(out);
    if (stage_mkdirs(out, err, sizeof err) != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    resolution res;
    if (res_init(&res, region, (int)stem, (int)max_s, (deg_t)max_t, out, 1, alg) != 0) {
        fprintf(stderr, "extflow: out of memory setting up the resolution\n");
        return 1;
    }
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
    rt_progress progress = { .enabled = !quiet && isatty(2), .total = total,
                             .verbose = getenv("EXTFLOW_STATS") != NULL };
    int rc = rt_resolve(&res, &progress);
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
        if (files[i].sseq && !sseq_formats) continue;
        if ((wrc = report_write_file(out, files[i].name, &res, files[i].write)) != 0)
            fprintf(stderr, "extflow: cannot write %s/%s: %s\n", out, files[i].name, strerror(errno));
    }
    res_clear(&res);
    close(lockfd);
    return wrc ? 1 : 0;
}

/* extflow verify DIR: every differential stage file is read and checked, the resolution is
 * rebuilt from them, d∘d = 0 is checked at every loaded bidegree, and ext.csv is compared
 * with the generator counts. Exit 0 when all is well, 1 otherwise. */
static int cmd_verify(int argc, char **argv)
{
    if (argc != 1 || argv[0][0] == '-') return usage_error("verify: DIR expected%s", "");
    const char *dir = argv[0];
    char path[4200], err[600];
    snprintf(path, sizeof path, "%s/stages/differential", dir);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "extflow: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    int max_s = -1, max_t = -1, alg = 0, bad = 0;
    long files = 0;
    uint64_t module = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int s, t, n = 0;
        if (sscanf(e->d_name, "%d_%d.zst%n", &s, &t, &n) != 2 || e->d_name[n] || s < 0 || t < s ||
            t > MILNOR_MAX_DEGREE || s > MAX_STEM) {
            if (e->d_name[0] != '.') {
                printf("BAD %s/%s: not a stage file name\n", path, e->d_name);
                bad++;
            }
            continue;
        }
        files++;
        stage_header h;
        f2mat m;
        snprintf(path + strlen(path), sizeof path - strlen(path), "/%s", e->d_name);
        int rc = stage_read(path, &h, &m, err, sizeof err);
        *strrchr(path, '/') = 0;
        if (rc == STAGE_OK) {
            char why[400];
            rc = stage_expect(&h, STAGE_DIFFERENTIAL, s, t, h.module_id, STAGE_ALG_NONE, why, sizeof why);
            if (rc != STAGE_OK) snprintf(err, sizeof err, "%.150s/%.40s: %s", path, e->d_name, why);
        }
        if (rc == STAGE_OK && alg && (h.algorithm != alg || h.module_id != module)) {
            snprintf(err, sizeof err, "%s/%s: written by another run (algorithm or module differs)", path, e->d_name);
            rc = STAGE_EMISMATCH;
        }
        if (rc != STAGE_OK) {
            printf("BAD %s\n", err);
            bad++;
            continue;
        }
        f2mat_clear(&m);
        alg = h.algorithm;
        module = h.module_id;
        if (s > max_s) max_s = s;
        if (t > max_t) max_t = t;
    }
    closedir(d);
    if (max_s < 0) {
        printf("BAD %s: no valid stage file\n", dir);
        return 1;
    }
    resolution res;
    if (res_init(&res, REGION_RECT, 0, max_s, max_t, dir, 0, alg) != 0) {
        fprintf(stderr, "extflow: out of memory\n");
        return 1;
    }
    res.load_action = "cannot use";
    long loaded = res_load_stages(&res), dd_bad = 0, jbad = 0;
    stage_journal_read(dir, module, alg, NULL, NULL, &jbad);
    if (jbad) {
        printf("BAD %s/stages/empty.log: %ld invalid records\n", dir, jbad);
        bad++;
    }
    for (int s = 2; s <= max_s; s++)
        for (deg_t t = s; t <= max_t; t++)
            if (*res_done(&res, s, t) && !res_check_dd(&res, s, t)) {
                printf("BAD %s/stages/differential/%d_%d.zst: d∘d != 0\n", dir, s, t);
                dd_bad++;
            }
    /* ext.csv: every row must match a loaded bidegree, every loaded non-zero one must appear */
    snprintf(path, sizeof path, "%s/ext.csv", dir);
    FILE *f = fopen(path, "r");
    long rows = 0, csv_bad = 0;
    if (!f) {
        printf("BAD %s: missing (the run did not finish)\n", path);
        csv_bad++;
    } else {
        char line[256];
        int s, n;
        unsigned dim;
        if (!fgets(line, sizeof line, f) || strcmp(line, "s,n,dim\n") != 0) {
            printf("BAD %s: bad header\n", path);
            csv_bad++;
        }
        while (fgets(line, sizeof line, f)) {
            rows++;
            if (sscanf(line, "%d,%d,%u", &s, &n, &dim) != 3 || s < 0 || n < 0 || s > max_s || n + s > max_t ||
                !*res_done(&res, s, n + s) || res_ngens(&res, s, n + s) != dim) {
                printf("BAD %s: row %ld (%.*s) disagrees with the stage files\n", path, rows,
                       (int)strcspn(line, "\n"), line);
                csv_bad++;
            }
        }
        fclose(f);
        long nonzero = 0;
        for (int s = 0; s <= max_s; s++)
            for (deg_t t = s; t <= max_t; t++) nonzero += *res_done(&res, s, t) && res_ngens(&res, s, t);
        if (nonzero != rows) {
            printf("BAD %s: %ld rows, but %ld non-zero bidegrees in the stage files\n", path, rows, nonzero);
            csv_bad++;
        }
    }
    printf("%ld stage files, %ld loaded, %ld bad files, %ld d∘d failures, %ld ext.csv problems: %s\n",
           files, loaded, (long)bad, dd_bad, csv_bad, bad + dd_bad + csv_bad ? "NOT OK" : "ok");
    res_clear(&res);
    return bad + dd_bad + csv_bad ? 1 : 0;
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
