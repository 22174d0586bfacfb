/* extflow mahowald --max-k K --out DIR: algebraic Mahowald invariants (stages/mahowald/mahowald.h,
 * docs/mahowald.md). The work is other commands' run inside this process (cli_run): resolve
 * S_2 and each RP_{-k}^∞, k = 1..K, then products over RP_{-k}^∞ with S_2 as unit lifting the
 * classes of its (-1)-cell and bottom cell (chain maps as StarPU tasks, stage files, resume);
 * then the invariants read off the two induced maps. --memory goes to each inner run, and
 * --time-limit as what is left of it. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "algebra/clock.h"
#include "stages/mahowald/mahowald.h"
#include "stages/out/manifest.h"
#include "stages/progress.h"
#include "runtime/runpolicy.h"
#include "stages/store/stagefile.h"
#include "tools/resolved.h"

enum { MAX_K, STEM, OUT, SPHERE, SSEQ, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [MAX_K] = { "max-k", "K", "(required) try RP_{-k}^inf for k = 1..K (1 to 64): the classes of stems n <= K - 1 "
                "whose invariant is detected by k <= K, the resolutions of S_2 through stem 2K - 2 and of each "
                "RP_{-k}^inf through stem k - 2, both for s <= k/2 + 1 (s <= K/2 + 1 for S_2)", NULL, NULL },
    [STEM] = { "stem", "N", "only the classes of stems n <= N (default and at most K - 1): S_2 through stem N + K - 1 "
               "and each RP_{-k}^inf through stem min(k - 2, N - 1) suffice", NULL, NULL },
    [OUT] = { "out", "DIR", "(required) where the resolutions go (DIR/RP_-k_inf/, DIR/S_2/ unless --sphere) and the "
              "table DIR/mahowald.csv: n,s,i,k,mn,ms,invariant,indeterminacy (M(x_(n,s,i)) detected at k is the sum "
              "of the classes x_(mn,ms,j) listed in invariant, modulo the span of the ';'-separated vectors of "
              "indeterminacy); a rerun resumes", NULL, NULL },
    [SPHERE] = { "sphere", "S2DIR", "a resolution of S_2 to use, by either algorithm (made, or extended by resolve "
                 "when it is smaller than needed), instead of DIR/S_2 (new ones are standard: sseq's bases)", NULL,
                 NULL },
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/mahowald_invariant.txt, what sseq's mahowald_invariant example "
               "prints for Max k = K", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for resolve, given to each inner resolve and products run", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "after SEC seconds in all no further step starts; exit 3 with no table "
                     "written; a rerun resumes from the stage files", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress lines and no closing summary", NULL, NULL },
};

static chain_policy limits;     /* --memory, --time-limit (from the start of the command) */
static long max_stem;           /* --stem N (K - 1 by default) */
static int inner_said;          /* the last inner run stopped and said so, our note in its line */
static char stop_note[4400];    /* runpolicy_stop_note's: what mahowald was doing, no table written */

/* cmd over the argument list (NULL-terminated), in this process, with --memory as given and
 * --time-limit as what is left of ours: its status (3 when no time is left). A stopped inner
 * run's one line ends with stop_note (runpolicy_stop_note): one line says both. */
static int sub(const cli_command *cmd, const char **args)
{
    inner_said = 0;
    char *argv[28], left[48], mem[80];
    int argc = 0;
    argv[argc++] = (char *)cmd->name;
    while (*args && argc < 23) argv[argc++] = (char *)*args++;
    if (opts[MEMORY].arg) {
        snprintf(mem, sizeof mem, "--memory=%.60s", opts[MEMORY].arg);
        argv[argc++] = mem;
    }
    if (limits.time_limit > 0) {
        double rest = limits.time_limit - (clock_now() - limits.start);
        if (rest <= 0) return CLI_STOPPED;
        snprintf(left, sizeof left, "--time-limit=%ld", (long)rest + 1);      /* whole seconds, >= 1 */
        argv[argc++] = left;
    }
    argv[argc] = NULL;
    runpolicy_stop_note(stop_note);
    int rc = cli_run(cmd, argc, argv);
    runpolicy_stop_note(NULL);
    inner_said = rc == CLI_STOPPED;
    return rc;
}

struct outputs { FILE *csv, *txt; };
static int found(void *ctx, const mahowald_result *r)
{
    struct outputs *o = ctx;
    if (mahowald_write_csv_row(o->csv, r)) return -1;
    return o->txt ? mahowald_write_sseq_line(o->txt, r) : 0;
}

/* P_k resolved and its two cells lifted into S_2; then its invariants into o. The count, or -1
 * after a line (*rc the status). */
static long one_k(const char *out, const char *s2dir, const mahowald_ext *s2, int k, struct outputs *o, int *rc)
{
    char dir[4200], file[4300], stem[16], maxs[16], bot[32], path[4400], err[600];
    snprintf(dir, sizeof dir, "%s/RP_-%d_inf", out, k);
    snprintf(stop_note, sizeof stop_note, "mahowald: stopped at k = %d, no table written (rerun to resume from the "
             "stage files)", k);
    snprintf(file, sizeof file, "%s/RP_-%d_inf.json", out, k);
    FILE *f = fopen(file, "w");
    if (!f || fprintf(f, "{ \"p\": 2, \"type\": \"real projective space\", \"min\": %d }\n", -k) < 0 || fclose(f)) {
        fprintf(stderr, "extflow: mahowald: cannot write %s: %s\n", file, strerror(errno));
        *rc = 1;
        return -1;
    }
    int top = k - 2 < max_stem - 1 ? k - 2 : (int)max_stem - 1;
    snprintf(stem, sizeof stem, "%d", top > 0 ? top : 0);     /* --stem counts from 0 */
    snprintf(maxs, sizeof maxs, "%d", k / 2 + 1);
    snprintf(bot, sizeof bot, "b=%d,0", -k);
    const char *res_args[] = { "--module", file, "--stem", stem, "--max-s", maxs, "--out", dir, "--quiet", NULL };
    if ((*rc = sub(&cmd_resolve, res_args)) != 0) return -1;
    /* at k = 1 the bottom cell is the (-1)-cell: one class */
    const char *lift_args[] = { dir, "--unit", s2dir, "--class", "m=-1,0", "--quiet", k > 1 ? "--class" : NULL, bot,
                                NULL };
    if ((*rc = sub(&cmd_products, lift_args)) != 0) return -1;
    mahowald_ext pk;
    mahowald_map phi, psi;
    snprintf(path, sizeof path, "%s/ext.csv", dir);
    if (mahowald_read_ext(path, &pk, err, sizeof err)) {
        fprintf(stderr, "extflow: %s\n", err);
        *rc = 1;
        return -1;
    }
    snprintf(path, sizeof path, "%s/module-products.csv", dir);
    long count = -1;
    if (mahowald_read_map(path, "m", &phi, err, sizeof err) == 0) {
        if (mahowald_read_map(path, k > 1 ? "b" : "m", &psi, err, sizeof err) == 0) {
            long early = 0;
            int max_n = k - 1 < max_stem ? k - 1 : (int)max_stem;
            count = mahowald_detect(k, max_n, k / 2 + 1, s2, &pk, &phi, &psi, found, o, &early, err, sizeof err);
            if (early)
                fprintf(stderr, "extflow: mahowald: warning: at k = %d, %ld class%s of the region's edge map%s to a "
                        "non-zero class not from the bottom cell: detected at a smaller k than the region covers, "
                        "not reported\n", k, early, early == 1 ? "" : "es", early == 1 ? "s" : "");
            mahowald_map_clear(&psi);
        }
        mahowald_map_clear(&phi);
    }
    mahowald_ext_clear(&pk);
    if (count < 0) {
        fprintf(stderr, "extflow: %s\n", err);
        *rc = 1;
    }
    return count;
}

/* What stopped an inner run (status 3): a signal (tools/extflow.c) or the time limit. */
static const char *stopped_by(void)
{
    int sig = progress_stop_signal();
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "--time-limit";
}

static int run(const char **operands, int n)
{
    (void)operands;
    double began = clock_now();
    long K;
    if (n) return cli_usage_error("mahowald: no operands (the directory is --out DIR)");
    if (!opts[MAX_K].arg) return cli_usage_error("mahowald: --max-k K is required");
    if (cli_parse_count(opts[MAX_K].arg, 64, &K) || K < 1)
        return cli_usage_error("mahowald: --max-k wants an integer from 1 to 64, not '%s'", opts[MAX_K].arg);
    max_stem = K - 1;
    if (opts[STEM].arg && cli_parse_count(opts[STEM].arg, K - 1, &max_stem))
        return cli_usage_error("mahowald: --stem wants an integer from 0 to K - 1 = %ld, not '%s'", K - 1,
                               opts[STEM].arg);
    if (!opts[OUT].arg || !*opts[OUT].arg) return cli_usage_error("mahowald: --out DIR is required");
    const char *out = opts[OUT].arg;
    if (strlen(out) > 4000) return cli_usage_error("mahowald: --out: path too long");
    if (opts[SPHERE].arg && strlen(opts[SPHERE].arg) > 4000) return cli_usage_error("mahowald: --sphere: path too long");
    int quiet = opts[QUIET].arg != NULL, want_txt = opts[SSEQ].arg != NULL;
    int lrc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits);
    if (lrc) return lrc;
    if (cli_check_env(0)) return CLI_USAGE;
    char s2dir[4200], stem[24], maxs[24], path[4400], err[600];
    if (opts[SPHERE].arg) snprintf(s2dir, sizeof s2dir, "%s", opts[SPHERE].arg);
    else snprintf(s2dir, sizeof s2dir, "%s/S_2", out);
    /* S_2 through stem N + K - 1 (and 1: P_1 is resolved through stem 0, its bottom cell reaching 1) */
    snprintf(stem, sizeof stem, "%ld", max_stem + K - 1 > 1 ? max_stem + K - 1 : 1);
    snprintf(maxs, sizeof maxs, "%ld", K / 2 + 1);
    /* an existing S_2 directory keeps its algorithm (resolve refuses to change it); a new one is
     * standard, whose bases are sseq's (Nassau's can differ where a bidegree has several classes) */
    run_manifest man;
    const char *alg = "standard";
    int mr = manifest_read(s2dir, &man, err, sizeof err);
    if (mr < 0) {
        fprintf(stderr, "extflow: mahowald: %s\n", err);
        return CLI_USAGE;
    }
    if (mr == 0 && (strcmp(man.module, "S_2") != 0 || man.unstable))
        return cli_usage_error("mahowald: %s holds %s%s, not S_2", s2dir, man.module, man.unstable ? " (unstable)" : "");
    if (mr == 0) alg = stage_algorithm_name(man.algorithm);
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "extflow: mahowald: cannot create %s: %s\n", out, strerror(errno));
        return CLI_FAILED;
    }
    const char *s2_args[] = { "--stem", stem, "--max-s", maxs, "--algorithm", alg, "--out", s2dir, "--quiet", NULL };
    snprintf(stop_note, sizeof stop_note, "mahowald: stopped resolving %s, no table written", s2dir);
    int rc = sub(&cmd_resolve, s2_args);
    if (rc == CLI_STOPPED && !inner_said)
        fprintf(stderr, "extflow: mahowald: stopped at %s resolving %s; no table written (rerun to resume)\n",
                stopped_by(), s2dir);
    if (rc) return rc;
    mahowald_ext s2;
    snprintf(path, sizeof path, "%s/ext.csv", s2dir);
    if (mahowald_read_ext(path, &s2, err, sizeof err)) {
        fprintf(stderr, "extflow: %s\n", err);
        return CLI_FAILED;
    }
    snprintf(path, sizeof path, "%s/mahowald.csv", out);
    /* the tables are made in memory and written at the end (durably, resolved_write): a stop
     * or a kill before leaves no temporary behind */
    char *csv_buf = NULL, *txt_buf = NULL;
    size_t csv_len = 0, txt_len = 0;
    struct outputs o = { open_memstream(&csv_buf, &csv_len), want_txt ? open_memstream(&txt_buf, &txt_len) : NULL };
    if (!o.csv || (want_txt && !o.txt)) {
        fprintf(stderr, "extflow: mahowald: out of memory\n");
        rc = CLI_FAILED;
    }
    if (!rc && (fprintf(o.csv, "%s\n", MAHOWALD_CSV_HEADER) < 0 ||
                (o.txt && fputs("M({basis element}) = {mahowald_invariant}[ mod {indeterminacy}]\n", o.txt) < 0)))
        rc = CLI_FAILED;
    long total = 0;
    int k_done = 0;
    for (int k = 1; k <= K && !rc; k++) {
        double t0 = clock_now();
        long c = one_k(out, s2dir, &s2, k, &o, &rc);
        if (c < 0) break;
        total += c, k_done = k;
        if (!quiet)
            fprintf(stderr, "extflow: mahowald: k = %d: %ld invariant%s detected (%.1f s)\n", k, c, c == 1 ? "" : "s",
                    clock_now() - t0);
    }
    if (o.csv && fclose(o.csv) && !rc) rc = CLI_FAILED;
    if (o.txt && fclose(o.txt) && !rc) rc = CLI_FAILED;
    if (!rc && (resolved_write_bytes(out, "mahowald.csv", csv_buf, csv_len) ||
                (want_txt && resolved_write_bytes(out, "mahowald_invariant.txt", txt_buf, txt_len))))
        rc = CLI_FAILED;
    free(csv_buf), free(txt_buf);
    if (rc == CLI_STOPPED && !inner_said)
        fprintf(stderr, "extflow: mahowald: stopped at %s before k = %d was done; no table written (rerun to "
                "resume from the stage files)\n", stopped_by(), k_done + 1);
    mahowald_ext_clear(&s2);
    if (!rc && !quiet)
        fprintf(stderr, "extflow: mahowald: %ld invariants through k = %ld in %.1f s; table %s\n", total, K,
                clock_now() - began, path);
    return rc;
}

const cli_command cmd_mahowald = {
    "mahowald",
    "--max-k K --out DIR: the algebraic Mahowald invariant M(x) of every class x_(n,s,i) of Ext_A(F2, F2) that "
    "the stunted projective spaces RP_{-k}^inf, k <= K, detect: the smallest k where the image of x under the "
    "(-1)-cell S^{-1} -> RP_{-k}^inf is non-zero, and there the classes of stem n + k - 1 whose image under the "
    "bottom cell S^{-k} -> RP_{-k}^inf is that one, a coset (docs/mahowald.md). Resolves S_2 and each "
    "RP_{-k}^inf and lifts the two cells as products over a module would (StarPU tasks, stage files: a rerun "
    "resumes); writes DIR/mahowald.csv",
    opts, 0, CLI_ONE_PROCESS, run,
};
