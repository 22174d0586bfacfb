/* extflow — the command line's front end: finds the command, starts MPI where the command runs
 * under mpirun, parses its options from its table (tools/cli.h) and runs it. One file per
 * command: tools/cmd-NAME.c (git's builtin/ is the model).
 * Exit status: enum cli_exit (tools/cli.h), or 128 + the signal for a run stopped by SIGINT or
 * SIGTERM. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/admission.h"
#include "runtime/rt_mpi.h"
#include "stages/progress.h"
#include "stages/version.h"
#include "tools/cli.h"

/* SIGINT, SIGTERM. While a runner runs, the first one stops it as --time-limit does: no step
 * starts, those running finish and their files are flushed (no temporary is left), the
 * progress line says so, and the command ends with its one line and status 128 + the signal.
 * Otherwise, or the second time: the line erased, one line, and the signal's default action
 * now (a rerun removes what a write cut short left). */
static int launched;    /* by mpirun or srun: their SIGTERM ends a rank (below) */
static void on_stop_signal(int sig)
{
    if (sig == SIGTERM && launched) {   /* the launcher ending the ranks (another one failed, or the job
                                         * ends): its own message says why; none from each rank */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    if (!progress_stop_signal() && admission_active()) {
        progress_stop(sig);
        return;
    }
    static const char intr[] = "extflow: interrupted by SIGINT: stopped at once (rerun to resume)\n",
                      term[] = "extflow: interrupted by SIGTERM: stopped at once (rerun to resume)\n";
    progress_clear_line();
    if (rt_mpi_rank() == 0 && write(2, sig == SIGINT ? intr : term, sig == SIGINT ? sizeof intr - 1 : sizeof term - 1) < 0) {
        /* nothing more to say */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A command stopped by a signal (its status 3: the stop --time-limit makes) ends 128 + it. */
static int stop_status(int rc)
{
    int sig = progress_stop_signal();
    return rc == CLI_STOPPED && sig ? 128 + sig : rc;
}

int main(int argc, char **argv)
{
    signal(SIGXFSZ, SIG_IGN);   /* a file-size limit becomes EFBIG, reported like a full disk */
    launched = rt_mpi_launched();
    struct sigaction stop = { .sa_handler = on_stop_signal };
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, NULL);
    sigaction(SIGTERM, &stop, NULL);
    if (argc < 2) return cli_usage_error("a command is required");
    const char *name = argv[1];
    if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
        const char *topic = argc > 2 && strcmp(argv[2], "--help") && strcmp(argv[2], "-h") ? argv[2] : NULL;
        if (argc > 3) return cli_usage_error("help: one command at most");
        for (const cli_command *const *k = cli_commands; topic && *k; k++)
            if (!strcmp(topic, (*k)->name)) {
                cli_print_command_help(stdout, *k);
                return 0;
            }
        if (topic) return cli_usage_error("help: unknown command '%s'", topic);
        cli_print_help(stdout);
        return 0;
    }
    if (!strcmp(name, "--version")) {
        printf("extflow %s (commit %s)\n", EXTFLOW_VERSION, extflow_commit);
        return 0;
    }
    const cli_command *c = NULL;
    for (const cli_command *const *k = cli_commands; *k && !c; k++)
        if (!strcmp(name, (*k)->name)) c = *k;
    if (!c) return cli_usage_error("unknown command '%s'", name);
    if (c->mpi == CLI_LOCAL) return stop_status(cli_run(c, argc - 1, argv + 1));
    /* under mpirun or srun: one rank of a distributed run (resolve's rows, products' classes,
     * massey's c's, d2's composites, verify's rows shared among the ranks) */
    if (rt_mpi_start(&argc, &argv) != 0) return 1;
    int rc = c->mpi == CLI_ONE_PROCESS && rt_mpi_size() > 1
                 ? cli_usage_error("%s runs on one process (mpirun is for resolve, products, massey, d2 and verify)",
                                   c->name)
                 : cli_run(c, argc - 1, argv + 1);
    rt_mpi_finish();
    return stop_status(rc);
}
