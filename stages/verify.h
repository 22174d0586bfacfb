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

/* The d∘d checks (one chain per bidegree loaded: res_dd_begin ...) run with runner (stages/chain.h:
 * its policy gives the progress line); the output is the same for any runner and worker count. */
int verify_dir(const char *dir, FILE *out, const chain_runner *runner);
/* A module's directory: the module from DIR/module.json, which must be the one the stage
 * files were computed for (module: their module id). 0, or -1 with a reason in err. */
int verify_load_module(const char *dir, uint64_t module, fd_module *fdm, char *err, size_t es);

#endif
