/* extflow verify DIR: stages/out/verify.h. Exit 0 when all is well, 1 otherwise, 4 (CLI_BUSY) when
 * another run holds DIR (its files may be half written: nothing is checked), 3 stopped at the
 * time limit. Under several ranks each checks the rows it owns and rank 0 alone prints: the same
 * report and status as one process. */
#include <sys/stat.h>
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/rt_mpi.h"
#include "runtime/runpolicy.h"
#include "stages/out/verify.h"
#include "tools/resolved.h"

enum { MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [MEMORY] = { "memory", "SIZE", "as for resolve: the checks wait to stay under it", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "after SEC seconds no check starts; exit 3, one line, no report (a rerun "
                     "checks everything again)", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line", NULL, NULL },
};

static int verify_owner(int s, int ranks, int max_s) { return rt_mpi_owner(OWNER_PAIRS, s, ranks, max_s); }

static int run(const char **operands, int n)
{
    double began = clock_now();      /* --time-limit counts from here */
    if (n != 1) return cli_usage_error("verify: DIR expected");
    const char *dir = operands[0];
    chain_policy limits;
    int rc = cli_check_env(0);
    if (rc || (rc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits)) != 0) return rc;
    int rank = rt_mpi_rank();
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_usage_error("verify: %s is not a directory", dir);
    struct { int busy; uint32_t prime; } seen = { 0, 2 };   /* rank 0 looks for all */
    char err[4400];
    if (rank == 0 && !(seen.busy = outdir_check_free(dir, err, sizeof err))) seen.prime = manifest_prime(dir);
    rt_mpi_bcast(&seen, sizeof seen);
    if (seen.busy) {
        if (rank == 0) fprintf(stderr, "extflow: %s: verify it when that run has ended\n", err);
        return seen.busy;
    }
    if (seen.prime != 2 && rt_mpi_size() > 1) {
        if (rank == 0) fprintf(stderr, "extflow: %s holds a resolution at p = %u: verify checks it in one process "
                               "(not under mpirun) so far\n", dir, seen.prime);
        return 2;
    }
    if (runpolicy_start_all("verify")) return 1;
    chain_runner runner = runpolicy_runner(&limits, rank != 0 || opts[QUIET].arg, "bidegrees checked");
    verify_share share = { rank, rt_mpi_size(), verify_owner, rt_mpi_gatherv, rt_mpi_max };
    rc = verify_dir(dir, stdout, &runner, &share);
    rt_shutdown();
    if (rc == VERIFY_STOPPED && rank == 0)
        fprintf(stderr, "extflow: verify stopped %s after %.1f s, before its checks ended; no report "
                "(verify keeps nothing: a rerun checks everything again)\n", runpolicy_stop_cause(),
                clock_now() - limits.start);
    return rc;
}

const cli_command cmd_verify = {
    "verify",
    "DIR: check every stage file of a resolution (checksums, headers, that it loads, d∘d = 0), that "
    "DIR/run.json's complete region is all there, and DIR/ext.csv against them; recomputes kept matrices and "
    "kernels (--keep-stages); names each missing or bad bidegree once. The d∘d checks run as StarPU tasks (their "
    "products on CPU or CUDA workers), with a progress line on a terminal; the report is the same for any number "
    "of workers, and of ranks (mpirun: several machines below). While another run holds DIR: one line, exit 4",
    opts, 1, CLI_SHARED, run,
};
