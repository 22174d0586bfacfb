/* durable.c — temporary, sync, rename, directory sync; without the syncs for caches (see durable.h). */
#include "stages/store/durable.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int durable_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Length of the directory part of path (0: the current directory). */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return 0;
    return slash == path ? 1 : (size_t)(slash - path);
}

int durable_fsync_dir(const char *path)
{
    size_t n = dir_len(path);
    char *dir = n ? strndup(path, n) : strdup(".");
    if (!dir) return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0) return -1;
    int r = fsync(fd), e = errno;
    close(fd);
    errno = e;
    return r;
}

static void say(char *err, size_t errlen, const char *path, const char *what, int e)
{
    if (err && errlen && !err[0]) snprintf(err, errlen, "%.3900s: %s: %s", path, what, strerror(e));
}

/* One syncfs for each file system that holds one of fds[0..n) (a batch may span several: a
 * syncfs writes back its own alone). 1: all synced; 0: refused (ENOSYS, EINVAL) or a file
 * system unknown, so the caller fdatasyncs each file; -1: a syncfs failed (*e, err set). */
static int sync_filesystems(const int *fds, char *const *tmp, size_t n, int *e, char *err, size_t errlen)
{
    dev_t *devs = malloc(n * sizeof *devs);
    size_t nd = 0;
    int rc = devs ? 1 : 0;
    for (size_t i = 0; i < n && rc == 1; i++) {
        struct stat st;
        if (fstat(fds[i], &st) != 0) {
            rc = 0;
            break;
        }
        size_t j = 0;
        while (j < nd && devs[j] != st.st_dev) j++;
        if (j < nd) continue;
        devs[nd++] = st.st_dev;
        if (syncfs(fds[i]) == 0) continue;
        if (errno == ENOSYS || errno == EINVAL) {
            rc = 0;
        } else {
            *e = errno;
            say(err, errlen, tmp[i], "syncfs failed", *e);
            rc = -1;
        }
    }
    free(devs);
    return rc;
}

/* The batch of durable.h; sync = 0: the cache mode, no sync_file_range, fdatasync, syncfs or fsync. */
static int write_batch(const durable_item *items, size_t n, int sync, char *err, size_t errlen)
{
    static atomic_ulong seq;
    if (err && errlen) err[0] = 0;
    if (n == 0) return 0;
    int *fds = malloc(n * sizeof *fds);
    char **tmp = calloc(n, sizeof *tmp);
    int failed = 0, e = 0;
    size_t renamed = 0;
    if (!fds || !tmp) {
        e = ENOMEM;
        say(err, errlen, items[0].path, "out of memory", e);
        free(fds);
        free(tmp);
        errno = e;
        return -1;
    }
    for (size_t i = 0; i < n; i++) fds[i] = -1;
    const int one_syncfs = sync && n >= DURABLE_SYNCFS_MIN;
    /* 1. every temporary written, its write-back started (a syncfs starts them all itself) */
    for (size_t i = 0; i < n && !failed; i++) {
        size_t tl = strlen(items[i].path) + 48;
        if (!(tmp[i] = malloc(tl))) {
            e = ENOMEM;
            say(err, errlen, items[i].path, "out of memory", e);
            failed = 1;
            break;
        }
        snprintf(tmp[i], tl, "%s.tmp.%ld.%lu", items[i].path, (long)getpid(), atomic_fetch_add(&seq, 1ul));
        fds[i] = open(tmp[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fds[i] < 0 || durable_write_all(fds[i], items[i].buf, items[i].len) != 0) {
            e = errno;
            say(err, errlen, tmp[i], fds[i] < 0 ? "cannot create" : "cannot write", e);
            failed = 1;
        } else if (sync && !one_syncfs)
            sync_file_range(fds[i], 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    /* 2. each on disk: a syncfs per file system for a large batch (fdatasync each where it is refused) */
    int synced = 0;
    if (!failed && one_syncfs) {
        synced = sync_filesystems(fds, tmp, n, &e, err, errlen);
        failed = synced < 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (fds[i] < 0) continue;
        if (!failed && sync && !synced && fdatasync(fds[i]) != 0) {
            e = errno;
            say(err, errlen, tmp[i], "sync failed", e);
            failed = 1;
        }
        if (close(fds[i]) != 0 && !failed) {
            e = errno;
            say(err, errlen, tmp[i], "close", e);
            failed = 1;
        }
    }
    /* 3. renamed into place */
    for (size_t i = 0; i < n && !failed; i++, renamed++)
        if (rename(tmp[i], items[i].path) != 0) {
            e = errno;
            say(err, errlen, items[i].path, "rename from its temporary", e);
            failed = 1;
            break;
        }
    /* 4. one fsync per distinct directory (a batch usually has one) */
    for (size_t i = 0; i < n && !failed && sync; i++) {
        size_t len = dir_len(items[i].path), j = 0;
        while (j < i && !(dir_len(items[j].path) == len && !strncmp(items[j].path, items[i].path, len))) j++;
        if (j == i && durable_fsync_dir(items[i].path) != 0) {
            e = errno;
            say(err, errlen, items[i].path, "fsync of the directory", e);
            failed = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (tmp[i] && i >= renamed) unlink(tmp[i]);
        free(tmp[i]);
    }
    free(tmp);
    free(fds);
    errno = e;
    return failed ? -1 : 0;
}

int durable_write_batch(const durable_item *items, size_t n, char *err, size_t errlen)
{
    return write_batch(items, n, 1, err, errlen);
}

int durable_write_rendered(const char *path, int (*render)(FILE *out, void *ctx), void *ctx, char *err,
                           size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    errno = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = !f || render(f, ctx) != 0 ? -1 : 0;
    if (f && fclose(f) != 0) rc = -1;
    if (rc != 0) {
        int e = errno ? errno : EIO;
        if (err) snprintf(err, errlen, "cannot render %s: %s", path, strerror(e));
        free(buf);
        errno = e;
        return -1;
    }
    rc = durable_write_file(path, buf, len, err, errlen);
    int e = errno;
    free(buf);
    errno = e;
    return rc;
}

int durable_write_file(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
    durable_item it = { path, buf, len };
    return write_batch(&it, 1, 1, err, errlen);
}

int durable_write_cache(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
    durable_item it = { path, buf, len };
    return write_batch(&it, 1, 0, err, errlen);
}
