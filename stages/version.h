/* version.h — extflow's version: the one place it is written. `extflow --version` prints it,
 * DIR/run.json records it (stages/out/manifest.c), the man page (scripts/man-from-help) takes it
 * from there.
 *
 * And the commit the binary was built from, extflow_commit: `git describe --always --dirty`
 * when it was built ("085ca58", "085ca58-dirty"; "unknown" outside a git checkout). It is
 * defined in $(B)/gen/commit.c, which scripts/commit-id writes afresh whenever that text
 * changes and the Makefile links into bin/extflow (and bin-starpu/extflow); a program that links
 * the library without it (a unit test) gets the weak "unknown" of stages/out/manifest.c.
 * `--version` prints it after the version and run.json records it (program_commit), so that a
 * log or an output directory names the exact code that made it. */
#ifndef EXTFLOW_VERSION_H
#define EXTFLOW_VERSION_H
#define EXTFLOW_VERSION "0.3.0"
extern const char extflow_commit[];
#endif
