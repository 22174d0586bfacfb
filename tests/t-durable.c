/* t-durable.c — the durable write (stages/store/durable.h): content, replacement of an old file,
 * no temporary left behind, errors reported with the file's name, a batch over two folders;
 * the syncs each write makes (one syncfs for a large batch), and the cache mode's none. */
#include "stages/store/durable.h"
#include "tests/tap.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Counted syncs: these stand in for libc's in this binary, so durable.c's calls reach them.
 * syncfs_refuse: syncfs fails with that errno instead (ENOSYS: as a kernel without it). */
static int fdatasyncs, fsyncs, syncfses, syncfs_refuse;
int syncfs(int fd)
{
    syncfses++;
    if (syncfs_refuse) {
        errno = syncfs_refuse;
        return -1;
    }
    return (int)syscall(SYS_syncfs, fd);
}
int fdatasync(int fd)
{
    fdatasyncs++;
    return (int)syscall(SYS_fdatasync, fd);
}
int fsync(int fd)
{
    fsyncs++;
    return (int)syscall(SYS_fsync, fd);
}

static char dir[] = "/tmp/extflow-t-durable.XXXXXX";

static int has_content(const char *path, const char *want)
{
    char got[256] = "";
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    return n == strlen(want) && !memcmp(got, want, n);
}

/* Number of "*.tmp.*" names in d. */
/* Renderings for durable_write_rendered: a few lines, or a failure after some of them. */
static int render_lines(FILE *out, void *ctx)
{
    for (int i = 0; i < *(const int *)ctx; i++) fprintf(out, "line %d\n", i);
    return 0;
}
static int render_fails(FILE *out, void *ctx)
{
    (void)ctx;
    fputs("half", out);
    errno = ENOSPC;
    return -1;
}

static int temporaries(const char *d)
{
    DIR *h = opendir(d);
    int n = 0;
    for (struct dirent *e; h && (e = readdir(h)) != NULL;) n += strstr(e->d_name, ".tmp.") != NULL;
    if (h) closedir(h);
    return n;
}

int main(void)
{
    char a[256], b[256], sub[128], c[256], bad[256], err[4096];
    int r;
    if (!mkdtemp(dir)) bail("mkdtemp");
    plan(19);
    snprintf(a, sizeof a, "%s/a.txt", dir);
    ok(durable_write_file(a, "first", 5, err, sizeof err) == 0 && has_content(a, "first"),
       "a file is written with its content");
    ok(durable_write_file(a, "second!", 7, err, sizeof err) == 0 && has_content(a, "second!"),
       "a second write replaces it");
    ok(temporaries(dir) == 0, "no temporary left");
    fdatasyncs = fsyncs = 0;
    r = durable_write_file(a, "synced", 6, err, sizeof err);
    ok(r == 0 && fdatasyncs == 1 && fsyncs == 1, "a durable write syncs the file and its directory "
       "(%d fdatasync, %d fsync)", fdatasyncs, fsyncs);

    /* the cache mode: the same temporary and rename, no sync */
    fdatasyncs = fsyncs = 0;
    r = durable_write_cache(a, "cached", 6, err, sizeof err);
    ok(r == 0 && has_content(a, "cached") && temporaries(dir) == 0 && fdatasyncs == 0 && fsyncs == 0,
       "the cache mode replaces the file, leaves no temporary and syncs nothing (%d, %d)", fdatasyncs, fsyncs);
    ok(durable_write_file(a, "", 0, err, sizeof err) == 0 && has_content(a, ""), "an empty file");

    /* a folder that cannot hold files: a path under a regular file (fails even for root) */
    snprintf(bad, sizeof bad, "%s/a.txt/x", dir);
    errno = 0;
    r = durable_write_file(bad, "x", 1, err, sizeof err);
    ok(r == -1 && errno == ENOTDIR && strstr(err, "a.txt/x") != NULL,
       "an unwritable folder: -1, errno kept, message names the file (%s)", err);
    snprintf(bad, sizeof bad, "%s/missing/x", dir);
    ok(durable_write_file(bad, "x", 1, err, sizeof err) == -1 && errno == ENOENT,
       "a missing folder: -1 with ENOENT");
    errno = 0;
    ok(durable_write_cache(bad, "x", 1, err, sizeof err) == -1 && errno == ENOENT && strstr(err, "missing/x") != NULL,
       "the cache mode too: -1 with ENOENT, the message names the file (%s)", err);

    /* a batch over two folders */
    snprintf(sub, sizeof sub, "%s/sub", dir);
    if (mkdir(sub, 0755) != 0) bail("mkdir");
    snprintf(b, sizeof b, "%s/b.txt", dir);
    snprintf(c, sizeof c, "%s/c.txt", sub);
    durable_item items[] = { { b, "bee", 3 }, { c, "sea", 3 }, { a, "ay", 2 } };
    ok(durable_write_batch(items, 3, err, sizeof err) == 0 && has_content(b, "bee") &&
       has_content(c, "sea") && has_content(a, "ay") && temporaries(dir) == 0 && temporaries(sub) == 0,
       "a batch of three files in two folders");
    /* a batch with one impossible file: nothing renamed, no temporary anywhere */
    durable_item mixed[] = { { b, "new", 3 }, { bad, "x", 1 } };
    ok(durable_write_batch(mixed, 2, err, sizeof err) == -1 && has_content(b, "bee") && temporaries(dir) == 0,
       "a failing batch renames nothing and leaves no temporary (%s)", err);
    ok(durable_write_batch(NULL, 0, err, sizeof err) == 0, "an empty batch");
    /* a rendered file: what the rendering wrote, durably; a failed rendering writes nothing */
    int nlines = 3;
    fdatasyncs = fsyncs = 0;
    ok(durable_write_rendered(b, render_lines, &nlines, err, sizeof err) == 0 &&
       has_content(b, "line 0\nline 1\nline 2\n") && fdatasyncs == 1 && fsyncs == 1 && temporaries(dir) == 0,
       "a rendered file has the rendering's bytes, synced with its directory");
    r = durable_write_rendered(b, render_fails, NULL, err, sizeof err);
    ok(r == -1 && errno == ENOSPC && has_content(b, "line 0\nline 1\nline 2\n") && temporaries(dir) == 0 &&
       strstr(err, "b.txt") != NULL, "a failed rendering writes nothing and keeps its errno (%s)", err);

    /* a large batch: one syncfs instead of a data sync per file; below the threshold, one each;
     * a refused syncfs (ENOSYS) falls back to one each; any other syncfs error fails the batch */
    enum { NBIG = DURABLE_SYNCFS_MIN };
    char big[NBIG][160];
    durable_item many[NBIG];
    for (int i = 0; i < NBIG; i++) {
        snprintf(big[i], sizeof big[i], "%s/f%02d", sub, i);
        many[i] = (durable_item){ big[i], big[i], strlen(big[i]) };
    }
    fdatasyncs = fsyncs = syncfses = 0;
    r = durable_write_batch(many, NBIG, err, sizeof err);
    int all = 1;
    for (int i = 0; i < NBIG; i++) all &= has_content(big[i], big[i]);
    ok(r == 0 && all && syncfses == 1 && fdatasyncs == 0 && fsyncs == 1 && temporaries(sub) == 0,
       "a batch of %d files: one syncfs, no fdatasync, one directory fsync (%d, %d, %d)", NBIG, syncfses,
       fdatasyncs, fsyncs);
    fdatasyncs = fsyncs = syncfses = 0;
    r = durable_write_batch(many, NBIG - 1, err, sizeof err);
    ok(r == 0 && syncfses == 0 && fdatasyncs == NBIG - 1 &&
       fsyncs == 1, "a batch of %d files: a data sync each, no syncfs (%d, %d)", NBIG - 1, fdatasyncs, syncfses);
    fdatasyncs = fsyncs = syncfses = 0;
    syncfs_refuse = ENOSYS;
    r = durable_write_batch(many, NBIG, err, sizeof err);
    ok(r == 0 && syncfses == 1 && fdatasyncs == NBIG && fsyncs == 1,
       "syncfs refused (ENOSYS): a data sync each instead (%d)", fdatasyncs);
    syncfs_refuse = EIO;
    many[3].buf = "changed";
    many[3].len = 7;
    r = durable_write_batch(many, NBIG, err, sizeof err);
    ok(r == -1 && errno == EIO && has_content(big[3], big[3]) && temporaries(sub) == 0 && strstr(err, "syncfs") != NULL,
       "syncfs failing (EIO): nothing renamed, no temporary, errno kept (%s)", err);
    syncfs_refuse = 0;

    /* a large batch over two file systems (this one and /dev/shm's tmpfs): a syncfs each, as
     * one writes back its own file system alone */
    char shm[] = "/dev/shm/extflow-t-durable.XXXXXX", other[NBIG][160];
    struct stat st1, st2;
    if (stat(dir, &st1) == 0 && mkdtemp(shm) && stat(shm, &st2) == 0 && st1.st_dev != st2.st_dev) {
        for (int i = NBIG / 2; i < NBIG; i++) {
            snprintf(other[i], sizeof other[i], "%s/f%02d", shm, i);
            many[i] = (durable_item){ other[i], other[i], strlen(other[i]) };
        }
        fdatasyncs = fsyncs = syncfses = 0;
        r = durable_write_batch(many, NBIG, err, sizeof err);
        all = 1;
        for (int i = NBIG / 2; i < NBIG; i++) all &= has_content(other[i], other[i]);
        ok(r == 0 && all && syncfses == 2 && fdatasyncs == 0 && fsyncs == 2,
           "a batch of %d files on two file systems: a syncfs each (%d), no fdatasync (%d), two directory fsyncs",
           NBIG, syncfses, fdatasyncs);
        for (int i = NBIG / 2; i < NBIG; i++) unlink(other[i]);
    } else {
        ok(1, "a batch on two file systems # SKIP no /dev/shm on another file system than %s", dir);
    }
    if (shm[sizeof shm - 2] != 'X') rmdir(shm);

    for (int i = 0; i < NBIG; i++) unlink(big[i]);
    unlink(a); unlink(b); unlink(c); rmdir(sub); rmdir(dir);
    return done_testing();
}
