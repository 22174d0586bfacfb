/* outdir.c — an output directory's lock, preparation, undo, loading and tables
 * (stages/out/outdir.h). */
#include "stages/out/outdir.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stages/store/durable.h"
#include "stages/resolve/report.h"
#include "stages/store/stagefile.h"
#include "stages/out/verify.h"

void outdir_init(outdir *d, const char *dir)
{
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", dir);
    d->lockfd = -1;
}

/* The line of a directory another run holds. */
static int busy(const char *dir, const char *holder, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s is in use by another extflow run (pid %s)", dir, holder);
    return OUTDIR_BUSY;
}

int outdir_lock(outdir *d, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.lock", d->path);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return 1;
    }
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    if (fcntl(fd, F_SETLK, &fl) != 0) {
        /* the kernel names the holder (F_GETLK); the file's pid only if it has let go since */
        struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
        char holder[32] = "?";
        if (fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK && who.l_pid > 0) {
            snprintf(holder, sizeof holder, "%ld", (long)who.l_pid);
        } else {
            ssize_t n = pread(fd, holder, sizeof holder - 1, 0);
            holder[n > 0 ? n : 1] = 0;
            holder[strcspn(holder, "\n")] = 0;
        }
        close(fd);
        return busy(d->path, holder, err, errlen);
    }
    char pid[32];
    int len = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)len, 0) != len) { /* informative only */ }
    d->lockfd = fd;
    return 0;
}

void outdir_release(outdir *d)
{
    if (d->lockfd >= 0) close(d->lockfd);
    d->lockfd = -1;
}

long outdir_holder(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/.lock", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
    long pid = fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK ? (fl.l_pid > 0 ? fl.l_pid : -1) : 0;
    close(fd);
    return pid;
}


int outdir_check_free(const char *dir, char *err, size_t errlen)
{
    long pid = outdir_holder(dir);
    if (!pid) return 0;
    char holder[32] = "?";
    if (pid > 0) snprintf(holder, sizeof holder, "%ld", pid);
    return busy(dir, holder, err, errlen);
}

/* Creates dir and the folders above it that are missing; made gets the first folder this call
 * created, or "" when dir was there. */
static int ensure_dir(const char *dir, char *made, size_t made_size)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", dir);
    *made = 0;
    for (char *p = buf + 1;; p++)
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) == 0) {
                if (!*made) snprintf(made, made_size, "%s", buf);
            } else if (errno != EEXIST) return -1;
            *p = c;
            if (!c) break;
        }
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

void outdir_remove(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* A folder and all below it; 0, or -1 with errno (an absent one is no error). */
static int remove_tree(const char *path)
{
    return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT ? -1 : 0;
}

/* --force: the directory's resolution (stage files, tables, manifest) is deleted. */
static int clear_outdir(const char *dir, char *err, size_t errlen)
{
    /* products tables too: a products run merges into them (their x_(n,s,i) are this resolution's) */
    static const char *outputs[] = { MANIFEST_NAME, MODULE_COPY_NAME, "ext.csv", "chart.txt", "chart.svg", "chart.html",
                                     "differentials.txt", "num_gens.txt", "resolution_size.txt", "products.csv",
                                     "module-products.csv", TABLES_NAME };
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) outdir_remove(dir, outputs[i]);
    char path[4200];
    snprintf(path, sizeof path, "%s/stages", dir);
    if (remove_tree(path) != 0) {
        snprintf(err, errlen, "--force: cannot remove %s: %s", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* The directory's resolution against this run's (module id, algorithm alg, region *want):
 * outdir.h's rules, naming the smallest region containing both when two of one kind clash.
 * 0 to go on, 1 or 2. */
static int check_manifest(const char *out, uint64_t module_id, const char *name, int alg, int unstable, int force,
                          FILE *note, unsigned keep, run_region *want, deg_t shift, char *err, size_t errlen)
{
    char merr[4300], have_r[64], want_r[64];
    run_manifest m;
    uint64_t module = 0;
    int hm = manifest_read(out, &m, merr, sizeof merr), have_alg = 0;
    if (hm < 0) {
        snprintf(err, errlen, "%s (remove it to resume from the stage files)", merr);
        return 1;
    }
    if (hm == 0) module = m.module_id, have_alg = m.algorithm;
    else if (!manifest_sniff(out, &module, &have_alg)) return 0;    /* nothing here yet */
    if (module != module_id || have_alg != alg) {
        if (force) {
            if (note) fprintf(note, "extflow: --force: deleting the %s resolution in %s\n",
                              stage_algorithm_name(have_alg), out);
            return clear_outdir(out, err, errlen);
        }
        if (hm == 0 && m.unstable != unstable) {
            snprintf(err, errlen, "%s holds %s resolution of %s; this run asks for %s one (use --force to replace it, "
                     "or another --out)", out, m.unstable ? "an unstable" : "a stable", m.module,
                     unstable ? "an unstable" : "a stable");
            return 2;
        }
        snprintf(err, errlen, "%s holds a %s resolution of %s; this run asks for a %s resolution of %s (use --force "
                 "to replace it, or another --out)", out, stage_algorithm_name(have_alg),
                 module == module_id ? name : hm == 0 && strcmp(m.module, name) ? m.module : "another module",
                 stage_algorithm_name(alg), name);
        return 2;
    }
    if (keep && hm == 0 && region_contains(&m.complete, want)) {
        /* matrices and kernels are kept by the steps a run computes: here none would run */
        region_describe(have_r, sizeof have_r, &m.complete, shift);
        snprintf(err, errlen, "--keep-stages: %s is complete over %s already, so no step runs and nothing would be "
                 "kept (ask for a larger region, whose new bidegrees are kept, or use another --out)", out, have_r);
        return 2;
    }
    if (hm != 0 || region_contains(want, &m.complete)) return 0;
    if (region_contains(&m.complete, want)) {
        *want = m.complete;
        return 0;
    }
    region_describe(have_r, sizeof have_r, &m.complete, shift);
    region_describe(want_r, sizeof want_r, want, shift);
    char both[96] = "";
    if (want->kind == m.complete.kind) {
        run_region u = *want;
#define MAX(a, b) ((a) > (b) ? (a) : (b))
        u.stem = MAX(want->stem, m.complete.stem);
        u.max_t = MAX(want->max_t, m.complete.max_t);
        u.max_s = MAX(want->max_s, m.complete.max_s);
#undef MAX
        if (u.kind == REGION_STEM) snprintf(both, sizeof both, ": --stem %d --max-s %d", u.stem + shift, u.max_s);
        else snprintf(both, sizeof both, ": --max-t %d --max-s %d", u.max_t + shift, u.max_s);
    }
    snprintf(err, errlen, "%s holds %s complete; this run asks for %s and neither contains the other (ask for a region "
             "containing both%s, or use another --out)", out, have_r, want_r, both);
    return 2;
}

/* A directory with entries but neither run.json nor stages/ holds no extflow resolution (a
 * .lock alone is a run killed at once): refused before anything is written there, so that no
 * file of someone else's (an ext.csv) is overwritten. The tables resolve reads as chart layers
 * (products.csv, d2.csv: README) may be put there first. 0 or 2. */
static int refuse_foreign_dir(const char *dir, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) return 0;       /* absent (made next), or not a directory (ensure_dir says so) */
    int foreign = 0, ours = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *n = e->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".lock") || !strcmp(n, "products.csv") ||
            !strcmp(n, "d2.csv"))
            continue;
        if (!strcmp(n, MANIFEST_NAME) || !strcmp(n, "stages")) ours = 1;
        else foreign = 1;
    }
    closedir(d);
    if (!foreign || ours) return 0;
    snprintf(err, errlen, "%s is not empty and holds no extflow resolution (no %s, no stages/): refused, nothing "
             "written there (give a new or empty --out)", dir, MANIFEST_NAME);
    return 2;
}

/* Whether DIR/name is absent (so that this run is the one to create it). */
static int absent(const char *dir, const char *name)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) != 0;
}

int outdir_prepare(outdir *d, const fd_module *fdm, const char *module_name, int alg, int unstable, int force,
                   FILE *note, unsigned keep, run_region *want, deg_t shift, char *err, size_t errlen)
{
    const char *out = d->path;
    if (refuse_foreign_dir(out, err, errlen)) return 2;
    if (ensure_dir(out, d->top, sizeof d->top) != 0) {
        snprintf(err, errlen, "cannot use output directory %s: %s", out, strerror(errno));
        return 1;
    }
    d->made_lock = absent(out, ".lock");
    d->made_stages = absent(out, "stages");
    d->made_module_copy = absent(out, MODULE_COPY_NAME);
    int lrc = outdir_lock(d, err, errlen);
    if (lrc != 0) return lrc;
    resolution probe = { .unstable = unstable };      /* the module id the stage files carry */
    res_set_module(&probe, (fd_module *)fdm, module_name);
    int mrc = check_manifest(out, probe.module_id, module_name, alg, unstable, force, note, keep, want, shift, err,
                             errlen);
    if (mrc != 0) return mrc;
    stage_remove_temporaries(out);
    if (stage_mkdirs(out, 1u << STAGE_DIFFERENTIAL | keep, err, errlen) != STAGE_OK) return 1;
    if (probe.module) {         /* the module beside its stage files, for verify */
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", out, MODULE_COPY_NAME);
        if (durable_write_file(path, fdm->source, fdm->source_len, err, errlen) != 0) return 1;
    }
    return 0;
}

void outdir_undo(outdir *d)
{
    char path[4200];
    if (*d->top) {          /* all of it is this run's */
        remove_tree(d->top);
    } else {
        if (d->made_stages) {
            snprintf(path, sizeof path, "%s/stages", d->path);
            remove_tree(path);
        }
        if (d->made_module_copy) outdir_remove(d->path, MODULE_COPY_NAME);
        if (d->made_lock) outdir_remove(d->path, ".lock");
    }
    outdir_release(d);
}

int outdir_load(const char *dir, resolution *res, run_manifest *m, fd_module *fdm, int odd_ok, char *err,
                size_t errlen)
{
    int hm = manifest_read(dir, m, err, errlen);
    if (hm != 0) {
        if (hm > 0) snprintf(err, errlen, "%s has no run.json: not a finished resolution (run resolve)", dir);
        return hm > 0 ? 2 : 1;
    }
    if (m->prime != 2 && !odd_ok) {
        snprintf(err, errlen, "%s holds a resolution at p = %d: d2, steenrod and sq0 work at p = 2 only", dir,
                 m->prime);
        return 2;
    }
    int have_module = m->module_id != res_module_id(NULL, m->unstable);
    if (have_module && verify_load_module(dir, m->module_id, m->unstable, fdm, err, errlen) != 0) return 1;
    const run_region *r = &m->complete;
    if (res_init_module(res, r->kind, r->stem, r->max_s, r->kind == REGION_RECT ? r->max_t : 0, dir, 0, m->algorithm,
                        have_module ? fdm : NULL) != 0) {
        snprintf(err, errlen, "out of memory loading %s", dir);
        return 1;
    }
    res->load_action = NULL;
    if ((m->unstable && res_set_unstable(res) != 0) || res_set_module(res, have_module ? fdm : NULL, m->module) != 0) {
        snprintf(err, errlen, "out of memory loading %s", dir);
        res_clear(res);
        return 1;
    }
    res_load_stages(res);
    if (res_failed(res)) {
        snprintf(err, errlen, "%s", res->error);
        res_clear(res);
        return 1;
    }
    for (int s = 0; s <= res->max_s; s++)
        for (deg_t t = s; t - s <= report_row_last_stem(res, s); t++)
            if (!res_is_done(res, s, t)) {
                snprintf(err, errlen, "%s: bidegree (s=%d, t=%d) is missing (extflow verify %s says more)", dir, s,
                         (int)t, dir);
                res_clear(res);
                return 1;
            }
    return 0;
}

int outdir_write(const char *dir, const char *name, int (*write_fn)(FILE *, void *), void *ctx, char *err,
                 size_t errlen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (durable_write_rendered(path, write_fn, ctx, NULL, 0) == 0) return 0;
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return 1;
}
