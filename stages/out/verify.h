/* verify.h — `extflow verify DIR`: checks a resolution directory against its manifest.
 *
 * Every differential stage file is read and checked (checksums, header, bidegree, module,
 * algorithm), the resolution is rebuilt from them, d∘d = 0 is checked at every bidegree
 * loaded, and ext.csv is compared with the generator counts. With DIR/run.json (manifest.h)
 * every bidegree of its complete region must be present (a stage file or an empty.log
 * record), and ext.csv must cover that region exactly; files beyond it (an extension that was
 * interrupted) are checked but not required. Without a manifest (an interrupted first run,
 * or a directory made before manifests) a bidegree is required when a later one of its row
 * is present. Matrices and kernels saved by `resolve --keep-stages` (stages/matrix/,
 * stages/kernel/) are recomputed from the loaded differentials and compared; one that differs
 * or cannot be read is a bad bidegree, one whose inputs are missing or bad a follow-on.
 *
 * Output (out): each missing or bad bidegree named once ("missing: (s,t) ..." / "bad: (s,t)
 * FILE: reason"), at most VERIFY_MAX_LINES of them, then "... and N more"; bidegrees that
 * only fail because what they were computed from is missing or bad are counted on one line,
 * not listed; with kept files, "N kept matrix/kernel files recomputed from the differentials,
 * M disagree"; a last summary line ending in "ok" or "NOT OK". Returns 0 (ok) or 1.
 */
#ifndef EXTFLOW_VERIFY_H
#define EXTFLOW_VERIFY_H
#include <stdint.h>
#include <stdio.h>
#include "algebra/fdmodule.h"
#include "stages/chain.h"

#define VERIFY_MAX_LINES 18

/* How verify_dir shares its checks among processes that all see DIR (tools/extflow.c: MPI's
 * ranks). Each loads DIR and checks the stage files and d∘d of its rows (owner(s, size, max_s)
 * == rank); process 0 gathers the results (gather: every process's len bytes into *all on
 * process 0, rank r's from (*at)[r] to (*at)[r + 1], both malloc'ed, NULL elsewhere; 0, or -1
 * on every process: runtime/rt_mpi.h's rt_mpi_gatherv), alone writes the report, and max (the
 * largest v over the processes) gives each process its exit status. */
typedef struct verify_share {
    int rank, size;
    int (*owner)(int s, int size, int max_s);
    int (*gather)(const void *mine, size_t len, void **all, size_t **at);
    int (*max)(int v);
} verify_share;

/* The d∘d checks (one chain per bidegree loaded: res_dd_begin ...) run with runner (stages/chain.h:
 * its policy gives the progress line); the output is the same for any runner and worker count,
 * and for any number of processes sharing the checks (share; NULL: one process). A failure
 * (out of memory, a process that failed, or that found other files) is one line on process
 * 0's stderr, no report; the return is 1 then, on every process. */
int verify_dir(const char *dir, FILE *out, const chain_runner *runner, const verify_share *share);
/* verify_dir's return when its runner stopped at the time limit (--time-limit; on any process)
 * before the checks ended: no report, nothing on stderr (the caller says it), on every process. */
#define VERIFY_STOPPED 3
/* A module's directory: the module from DIR/module.json, which must be the one the stage
 * files were computed for (module: their module id). 0, or -1 with a reason in err. */
int verify_load_module(const char *dir, uint64_t module, int unstable, fd_module *fdm, char *err, size_t es);

#endif
