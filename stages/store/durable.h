/* durable.h — the one way extflow makes a file durable: write a temporary next to it, sync
 * it, rename it over the final name, sync the directory.
 *
 * Invariant kept for every file written durably (all but the cache mode below): a file under
 * its final name was complete and on disk before it got that name. A crash leaves either the
 * old file or the new one, plus at worst a temporary "<path>.tmp.<pid>.<seq>" that is never
 * read (stage_remove_temporaries deletes them at the next run).
 *
 * The batch form is the group commit of stagecommit.c: all temporaries are written first
 * (their write-back started at once), then each is fdatasync'ed, then all are renamed, then
 * each distinct directory is fsync'ed once. N files cost N data syncs and one directory sync
 * instead of 2N syncs in series. A batch of at least DURABLE_SYNCFS_MIN files replaces its N
 * data syncs by one syncfs(2) of each file system they lie on (usually one; a syncfs writes
 * back and waits for every dirty file there, these included; per-file fdatasync where syncfs
 * is refused with ENOSYS or EINVAL). The price: such a batch also waits for other processes'
 * unwritten data on that file system (a heavy writer beside a small run slows its commits,
 * never its workers); and before Linux 5.8 syncfs does not report a write-back error, which
 * fdatasync would have (the batch then succeeds on such an error).
 * A single file is a batch of one.
 *
 * The cache mode (durable_write_cache) is the same temporary and rename with no sync at all,
 * for files whose reader detects damage and recomputes them (lift stage files: checksummed,
 * a damaged one is named and recomputed). A killed process still leaves the old file or the
 * whole new one; only a crash of the machine can leave a file under its final name empty or
 * torn, which the reader then treats as damaged. It is not for anything a run cannot
 * recompute (the resolution's stage files, the tables, run.json).
 *
 * Errors: -1 with errno kept from the failing call, and (err != NULL) a message naming the
 * file and the step that failed; every temporary of a failed batch is unlinked, and files
 * already renamed stay (they are complete).
 */
#ifndef EXTFLOW_DURABLE_H
#define EXTFLOW_DURABLE_H
#include <stddef.h>
#include <stdio.h>

typedef struct durable_item {
    const char *path;           /* final name */
    const void *buf;            /* its whole content */
    size_t len;
} durable_item;

/* Batches of at least this many files are synced with a syncfs per file system (above). */
#define DURABLE_SYNCFS_MIN 16

/* write(2) until len bytes are written (EINTR retried); 0 or -1 with errno. */
int durable_write_all(int fd, const void *buf, size_t len);
/* fsync the directory that holds path ("." when path has no slash); 0 or -1 with errno. */
int durable_fsync_dir(const char *path);
/* The files items[0..n) in one group commit (above). */
int durable_write_batch(const durable_item *items, size_t n, char *err, size_t errlen);
/* One file: durable_write_batch of one item. */
int durable_write_file(const char *path, const void *buf, size_t len, char *err, size_t errlen);
/* One file in the cache mode (above): temporary, rename, no sync. */
int durable_write_cache(const char *path, const void *buf, size_t len, char *err, size_t errlen);
/* One file rendered in memory by render(out, ctx) (0 when it wrote everything), then written as
 * durable_write_file does; a failed rendering writes nothing (-1, errno as the rendering left
 * it, or EIO). The one way tables and charts reach their files. */
int durable_write_rendered(const char *path, int (*render)(FILE *out, void *ctx), void *ctx, char *err,
                           size_t errlen);

#endif
