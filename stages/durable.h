/* durable.h — the one way extflow makes a file durable: write a temporary next to it, sync
 * it, rename it over the final name, sync the directory.
 *
 * Invariant kept for every file this writes: a file under its final name was complete and on
 * disk before it got that name. A crash leaves either the old file or the new one, plus at
 * worst a temporary "<path>.tmp.<pid>.<seq>" that is never read (stage_remove_temporaries
 * deletes them at the next run).
 *
 * The batch form is the group commit of stagecommit.c: all temporaries are written first
 * (their write-back started at once), then each is fdatasync'ed, then all are renamed, then
 * each distinct directory is fsync'ed once. N files cost N data syncs and one directory sync
 * instead of 2N syncs in series. A single file is a batch of one.
 *
 * Errors: -1 with errno kept from the failing call, and (err != NULL) a message naming the
 * file and the step that failed; every temporary of a failed batch is unlinked, and files
 * already renamed stay (they are complete).
 */
#ifndef EXTFLOW_DURABLE_H
#define EXTFLOW_DURABLE_H
#include <stddef.h>

typedef struct durable_item {
    const char *path;           /* final name */
    const void *buf;            /* its whole content */
    size_t len;
} durable_item;

/* write(2) until len bytes are written (EINTR retried); 0 or -1 with errno. */
int durable_write_all(int fd, const void *buf, size_t len);
/* fsync the directory that holds path ("." when path has no slash); 0 or -1 with errno. */
int durable_fsync_dir(const char *path);
/* The files items[0..n) in one group commit (above). */
int durable_write_batch(const durable_item *items, size_t n, char *err, size_t errlen);
/* One file: durable_write_batch of one item. */
int durable_write_file(const char *path, const void *buf, size_t len, char *err, size_t errlen);

#endif
