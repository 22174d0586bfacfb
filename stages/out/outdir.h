/* outdir.h — an output directory's life, for every command that writes into one:
 *
 *   lock     one writer at a time: an fcntl write lock on DIR/.lock, which holds the
 *            writer's pid (informative); outdir_holder looks without taking it.
 *   prepare  (resolve) DIR and the folders above it made, DIR locked, checked against
 *            DIR/run.json (the manifest, stages/out/manifest.h): another module's or algorithm's
 *            resolution is refused unless --force, which clears it; a region the manifest's
 *            contains is widened to it; two regions neither containing the other are refused.
 *            A directory with entries but neither run.json nor stages/ is someone else's and
 *            refused before anything is written. Then the temporaries of a killed run go, the
 *            stage folders are made and the module's copy written (verify reads it).
 *   undo     what prepare created is removed again (a run whose StarPU did not start leaves
 *            DIR as it found it).
 *   load     (products, massey, d2, export) the region run.json says is complete, read-only.
 *   write    a table rendered in memory, then written durably (stages/store/durable.h).
 *
 * Errors: the functions return 0, or an exit status (1 runtime failure, 2 refusal, OUTDIR_BUSY)
 * with one line in err; the caller prints it. */
#ifndef EXTFLOW_OUTDIR_H
#define EXTFLOW_OUTDIR_H
#include <stdio.h>
#include "algebra/fdmodule.h"
#include "stages/out/manifest.h"
#include "stages/resolve/resolution.h"

typedef struct outdir {
    char path[4096];
    int lockfd;                 /* DIR/.lock while held, else -1 */
    /* what outdir_prepare created, for outdir_undo */
    char top[4096];             /* the first folder it created ("" when DIR was there) */
    int made_lock, made_stages, made_module_copy;
} outdir;

/* d for dir, holding nothing. */
void outdir_init(outdir *d, const char *dir);
/* The status of a directory another run holds: tools/cli.h's CLI_BUSY. */
#define OUTDIR_BUSY 4
/* Takes DIR/.lock: 0, or OUTDIR_BUSY with "DIR is in use by another extflow run (pid P)", or 1
 * with why the lock file cannot be made, in err. */
int outdir_lock(outdir *d, char *err, size_t errlen);
/* Gives the lock back (nothing when not held). */
void outdir_release(outdir *d);
/* The pid of the process holding DIR/.lock, -1 when it cannot be told, 0 when none holds it:
 * read-only, so that looking neither creates the file nor keeps a run from starting. */
long outdir_holder(const char *dir);
/* For readers that take no lock (verify, export): OUTDIR_BUSY with "DIR is in use by another
 * extflow run (pid P)" in err while another run holds DIR, else 0. */
int outdir_check_free(const char *dir, char *err, size_t errlen);

/* resolve's preparation (above) for the resolution of module_name (fdm NULL: S_2) by alg
 * (unstable: by free unstable modules, another module id) over *want (widened to the manifest's region when that contains it); keep: the --keep-stages
 * kinds' bits. Under force, a line saying what is deleted goes to note (when not NULL). On
 * return d holds the lock when it was taken, whatever the status. */
int outdir_prepare(outdir *d, const fd_module *fdm, const char *module_name, int alg, int unstable, int force,
                   FILE *note, unsigned keep, run_region *want, deg_t shift, char *err, size_t errlen);
/* Removes what outdir_prepare created (the whole of it when it made DIR), then releases. */
void outdir_undo(outdir *d);

/* Loads the complete region of DIR (run.json) into res, read-only, a module's definition into
 * *fdm (kept by the caller while res lives). 0, or 1, or 2 for a directory that is no finished
 * resolution or (unless odd_ok) one at an odd prime, with the message in err. */
int outdir_load(const char *dir, resolution *res, run_manifest *m, fd_module *fdm, int odd_ok, char *err,
                size_t errlen);

/* DIR/name written durably from write_fn(FILE *, ctx): 0, or 1 with "cannot write PATH: why"
 * in err. */
int outdir_write(const char *dir, const char *name, int (*write_fn)(FILE *, void *), void *ctx, char *err,
                 size_t errlen);
/* Unlinks DIR/name if present (a stale output of an earlier run); errors are ignored. */
void outdir_remove(const char *dir, const char *name);

#endif
