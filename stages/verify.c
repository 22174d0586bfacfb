/* verify.c — check a resolution directory against its manifest (see verify.h). */
#include "stages/verify.h"
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "stages/keepstages.h"
#include "stages/manifest.h"
#include "stages/progress.h"
#include "stages/stagefile.h"
#include <pthread.h>
#include <stdatomic.h>

enum { F_NONE = 0, F_VALID = 1, F_BAD = 2 };

typedef struct verifier {
    FILE *out;
    const char *dir;
    long problems, followon;
    int max_s, max_t, max_n;    /* max_n: largest stem t - s, which sizes the Milnor tables */
    int oom;                    /* out of memory reading a file: the run fails, no verdict */
    uint8_t *file, *record;     /* per cell: F_* of its stage file; journal record present */
    uint8_t *broken;            /* per cell: missing or bad (what depends on it is follow-on) */
} verifier;

static void problem(verifier *v, const char *fmt, ...)
{
    if (++v->problems > VERIFY_MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(v->out, fmt, ap);
    va_end(ap);
    fputc('\n', v->out);
}

static size_t cell(const verifier *v, int s, int t) { return (size_t)s * (v->max_t + 1) + t; }

/* "s_t.zst" with 0 <= s <= t <= MILNOR_MAX_DEGREE, s <= 1000; 1 if name is one. */
static int stage_name(const char *name, int *s, int *t)
{
    int len = 0;
    return sscanf(name, "%d_%d.zst%n", s, t, &len) == 2 && !name[len] && *s >= 0 && *t >= *s &&
           *t <= MILNOR_MAX_DEGREE && *s <= 1000;
}

struct found { int s, t, status; };

/* Reads every file of stages/differential; bad ones are reported here. */
static struct found *scan_files(verifier *v, uint64_t module, int alg, long *nfound, long *ntmp)
{
    char path[4200], err[5000];
    snprintf(path, sizeof path, "%s/stages/differential", v->dir);
    struct found *list = NULL;
    long n = 0, cap = 0;
    *ntmp = 0;
    DIR *d = opendir(path);
    if (!d) {
        if (errno != ENOENT) problem(v, "bad: %s: %s", path, strerror(errno));
        *nfound = 0;
        return NULL;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int s, t;
        if (e->d_name[0] == '.') continue;
        if (strstr(e->d_name, ".tmp.")) {   /* a killed run's temporary: never read */
            ++*ntmp;
            continue;
        }
        if (!stage_name(e->d_name, &s, &t)) {
            problem(v, "bad: %s/%s: not a stage file name", path, e->d_name);
            continue;
        }
        char file[4500];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        stage_header h;
        f2mat m;
        int rc = stage_read(file, &h, &m, err, sizeof err);
        if (rc == STAGE_ENOMEM) {   /* says nothing about the file */
            fprintf(stderr, "extflow: %s\n", err);
            v->oom = 1;
            break;
        }
        if (rc == STAGE_OK) {
            f2mat_clear(&m);
            char why[400];
            if (stage_expect(&h, STAGE_DIFFERENTIAL, s, t, module, alg, why, sizeof why) != STAGE_OK) {
                snprintf(err, sizeof err, "%.4000s: %s", file, why);
                rc = STAGE_EMISMATCH;
            }
        }
        if (rc != STAGE_OK) problem(v, "bad: (%d,%d) %s", s, t, err);
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            struct found *nl = realloc(list, (size_t)cap * sizeof *nl);
            if (!nl) break;
            list = nl;
        }
        list[n++] = (struct found){ s, t, rc == STAGE_OK ? F_VALID : F_BAD };
        if (s > v->max_s) v->max_s = s;
        if (t > v->max_t) v->max_t = t;
        if (t - s > v->max_n) v->max_n = t - s;
    }
    closedir(d);
    *nfound = n;
    return list;
}

/* The stems of the journal's records count too (row 0 has nothing but records). */
static void widen_to_record(int s, int t, void *ctx)
{
    verifier *v = ctx;
    if (s <= v->max_s && t <= v->max_t && t - s > v->max_n) v->max_n = t - s;
}

static void mark_record(int s, int t, void *ctx)
{
    verifier *v = ctx;
    if (s <= v->max_s && t <= v->max_t) v->record[cell(v, s, t)] = 1;
}

/* Checks ext.csv against the loaded resolution; rows of broken bidegrees are follow-on. */
static void check_csv(verifier *v, resolution *res, const run_region *region, int required)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/ext.csv", v->dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (required) problem(v, "bad: %s: missing, but run.json says the region is complete", path);
        else fprintf(v->out, "note: no ext.csv and no run.json: no run has finished here yet\n");
        return;
    }
    uint8_t *seen = calloc((size_t)(v->max_s + 1) * (v->max_t + 1), 1);
    if (!fgets(line, sizeof line, f) || strcmp(line, "s,n,dim\n") != 0) problem(v, "bad: %s: bad header", path);
    for (long row = 1; seen && fgets(line, sizeof line, f); row++) {
        int s, n;
        unsigned dim;
        int ok = sscanf(line, "%d,%d,%u", &s, &n, &dim) == 3 && s >= 0;
        n -= res->shift;            /* ext.csv has the module's stems; the stage files internal ones */
        ok = ok && n >= 0;
        if (ok && s <= v->max_s && n + s <= v->max_t) {
            size_t c = cell(v, s, n + s);
            seen[c] = 1;
            if (v->broken[c] || (!res_is_done(res, s, n + s) && region_has(region, s, n + s))) {
                v->followon++;
                continue;
            }
            if (res_is_done(res, s, n + s) && res_ngens(res, s, n + s) == dim) continue;
        }
        problem(v, "bad: %s: row %ld (%.*s) disagrees with the stage files", path, row,
                (int)strcspn(line, "\n"), line);
    }
    fclose(f);
    for (int s = 0; seen && s <= v->max_s; s++)
        for (int t = s; t <= v->max_t; t++)
            if (!seen[cell(v, s, t)] && res_is_done(res, s, t) && res_ngens(res, s, t) &&
                (region_has(region, s, t) || !required))
                problem(v, "bad: %s: no row for (s=%d, n=%d, dim %u)", path, s, t - s + res->shift,
                        res_ngens(res, s, t));
    free(seen);
}

/* Kept matrices and kernels (--keep-stages; stages/keepstages.c), in the order reported. */
static const int kept_kinds[] = { STAGE_MATRIX, STAGE_KERNEL };

/* Widens max_s, max_t, max_n to the kept files' bidegrees (a kept kernel may lie past the last
 * differential file, at a bidegree with no generator). */
static void kept_extent(verifier *v)
{
    char path[4200];
    for (size_t k = 0; k < sizeof kept_kinds / sizeof *kept_kinds; k++) {
        snprintf(path, sizeof path, "%s/stages/%s", v->dir, stage_kind_name(kept_kinds[k]));
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            int s, t;
            if (!stage_name(e->d_name, &s, &t)) continue;
            if (s > v->max_s) v->max_s = s;
            if (t > v->max_t) v->max_t = t;
            if (t - s > v->max_n) v->max_n = t - s;
        }
        if (d) closedir(d);
    }
}

/* Each kept matrix or kernel is recomputed from the loaded differentials and compared
 * (keep_stages_check); one whose inputs are missing or bad is a follow-on. */
static void verify_kept(verifier *v, resolution *res, long *ntmp)
{
    char path[4200];
    for (size_t k = 0; k < sizeof kept_kinds / sizeof *kept_kinds; k++) {
        snprintf(path, sizeof path, "%s/stages/%s", v->dir, stage_kind_name(kept_kinds[k]));
        DIR *d = opendir(path);
        if (!d) continue;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            int s, t;
            if (e->d_name[0] == '.') continue;
            if (strstr(e->d_name, ".tmp.")) {
                ++*ntmp;
                continue;
            }
            if (!stage_name(e->d_name, &s, &t)) {
                problem(v, "bad: %s/%s: not a stage file name", path, e->d_name);
                continue;
            }
            int in_broken = (t - 1 >= s && v->broken[cell(v, s, t - 1)]) ||
                            (s >= 1 && t - 1 >= s - 1 && v->broken[cell(v, s - 1, t - 1)]);
            long before = res->keep_bad;
            if (keep_stages_check(res, kept_kinds[k], s, t) != 0) {
                if (in_broken) v->followon++;
                else problem(v, "bad: (%d,%d) %s/%s: cannot be checked: %s", s, t, path, e->d_name, res->keep_error);
            } else if (res->keep_bad > before)
                problem(v, "bad: (%d,%d) %s", s, t, res->keep_error);
        }
        closedir(d);
    }
}

/* The d∘d checks, run by the workers before anything is reported: one per bidegree loaded
 * (s >= 2, or s = 1 over a module), each into its own cell of dd, so that the report, made
 * afterwards in the order of the cells, is the same for any number of workers. */
enum { DD_NONE = 2 };           /* dd[c]: not checked; else res_check_dd_batch's 1, 0 or -1 */
typedef struct dd_job { int s, t; double work; } dd_job;
typedef struct dd_pool {
    const resolution *res;
    const verifier *v;
    dd_job *jobs;               /* largest work first, so that no worker is left with a big one */
    long n;
    atomic_long next;
    int8_t *dd;
} dd_pool;

static void *dd_worker(void *arg)
{
    dd_pool *p = arg;
    for (long i; (i = atomic_fetch_add(&p->next, 1)) < p->n;) {
        const dd_job *j = &p->jobs[i];
        p->dd[cell(p->v, j->s, j->t)] = (int8_t)res_check_dd_batch(p->res, j->s, j->t);
        progress_item_done(j->work);
    }
    return NULL;
}

static int by_work(const void *a, const void *b)
{
    const dd_job *x = a, *y = b;
    if (x->work != y->work) return x->work > y->work ? -1 : 1;
    return x->s != y->s ? x->s - y->s : x->t - y->t;
}

/* Fills dd (cells, DD_NONE where nothing is checked) on `workers` threads (this one among
 * them); 0, or -1 out of memory before any check ran. */
static int check_all_dd(const verifier *v, const resolution *res, int8_t *dd, int workers, int show)
{
    size_t cells = (size_t)(v->max_s + 1) * (v->max_t + 1);
    memset(dd, DD_NONE, cells);
    dd_pool p = { .res = res, .v = v, .dd = dd };
    long cap = 0;
    double work = 0;
    for (int s = 1; s <= v->max_s; s++)
        for (int t = s; t <= v->max_t; t++)
            cap += res_is_done(res, s, t) && (s >= 2 || res->module);
    p.jobs = malloc(((size_t)cap + 1) * sizeof *p.jobs);
    if (!p.jobs) return -1;
    for (int s = 1; s <= v->max_s; s++)
        for (int t = s; t <= v->max_t; t++)
            if (res_is_done(res, s, t) && (s >= 2 || res->module)) {
                /* the rows d(g) can select, each a product per term of d of F_{s-1}'s generator */
                double w = (double)res_ngens(res, s, t) * (double)freemod_dim(&res->F[s - 1], t, t) + 1;
                p.jobs[p.n++] = (dd_job){ s, t, w };
                work += w;
            }
    qsort(p.jobs, (size_t)p.n, sizeof *p.jobs, by_work);
    atomic_init(&p.next, 0);
    progress_start_items(p.n, work, "bidegrees checked", show);
    if (workers > p.n) workers = p.n > 0 ? (int)p.n : 1;
    pthread_t *th = workers > 1 ? malloc((size_t)(workers - 1) * sizeof *th) : NULL;
    int started = 0;
    for (; th && started < workers - 1; started++)
        if (pthread_create(&th[started], NULL, dd_worker, &p) != 0) break;   /* fewer workers, same result */
    dd_worker(&p);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    progress_finish();
    free(th);
    free(p.jobs);
    return 0;
}

int verify_load_module(const char *dir, uint64_t module, fd_module *fdm, char *err, size_t es)
{
    char path[4200], why[600];
    snprintf(path, sizeof path, "%s/%s", dir, MODULE_COPY_NAME);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && len < (1L << 24) && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)len + 1)) && fread(buf, 1, (size_t)len, f) != (size_t)len) len = -1;
    if (f) fclose(f);
    if (!buf || len < 0) {
        free(buf);
        snprintf(err, es, "%s: cannot read it (the stage files are of a module other than S_2)", path);
        return -1;
    }
    int rc = fdm_parse(buf, (size_t)len, fdm, why, sizeof why);
    free(buf);
    if (rc != 0) {
        snprintf(err, es, "%.3500s: %.600s", path, why);
        return -1;
    }
    if (stage_hash64(fdm->canonical, strlen(fdm->canonical)) != module) {
        fdm_clear(fdm);
        snprintf(err, es, "%s: not the module the stage files were computed for", path);
        return -1;
    }
    return 0;
}

int verify_dir(const char *dir, FILE *out, int workers, int show_progress)
{
    verifier v = { .out = out, .dir = dir, .max_s = -1, .max_t = -1, .max_n = -1 };
    char err[4300], where[64] = "no run.json";
    run_manifest m;
    int hm = manifest_read(dir, &m, err, sizeof err);
    uint64_t module = 0;
    int alg = 0;
    if (hm < 0) problem(&v, "bad: %s", err);
    if (hm == 0) {
        module = m.module_id;
        alg = m.algorithm;
        v.max_s = m.complete.max_s;
        v.max_t = m.complete.kind == REGION_STEM ? m.complete.stem + m.complete.max_s : m.complete.max_t;
        v.max_n = m.complete.kind == REGION_STEM ? m.complete.stem : m.complete.max_t;
    } else if (!manifest_sniff(dir, &module, &alg)) {
        fprintf(out, "bad: %s: no run.json and no valid stage file\nNOT OK\n", dir);
        return 1;
    }
    fd_module fdm = { 0 };
    int have_module = 0;
    if (module != stage_hash64(RES_MODULE_S2, strlen(RES_MODULE_S2))) {
        if (verify_load_module(dir, module, &fdm, err, sizeof err) != 0) {
            fprintf(out, "bad: %s\nNOT OK\n", err);
            return 1;
        }
        have_module = 1;
    }
    if (hm == 0) region_describe(where, sizeof where, &m.complete, res_module_shift(have_module ? &fdm : NULL));
    run_region region = hm == 0 ? m.complete : (run_region){ REGION_RECT, 0, -1, -1 };
    long nfiles = 0, ntmp = 0;
    struct found *files = scan_files(&v, module, alg, &nfiles, &ntmp);
    kept_extent(&v);
    if (v.oom) {
        free(files);
        fdm_clear(&fdm);
        return 1;
    }
    /* rebuilt over the stems the files, the journal and the manifest reach: the Milnor tables
     * follow the largest stem, not the largest t (a tall tower stays small) */
    long jbad0;
    stage_journal_read(dir, module, alg, widen_to_record, &v, &jbad0);
    resolution res;
    int8_t *dd = NULL;          /* per cell: the d∘d check's result (check_all_dd) */
    size_t cells = (size_t)(v.max_s + 1) * (v.max_t + 1);
    if (res_init(&res, REGION_STEM, v.max_n, v.max_s, 0, dir, 0, alg) != 0 ||
        !(v.file = calloc(cells, 1)) || !(v.record = calloc(cells, 1)) || !(v.broken = calloc(cells, 1))) {
        fprintf(stderr, "extflow: out of memory verifying %s\n", dir);
        free(v.file);
        free(v.record);
        fdm_clear(&fdm);
        return 1;
    }
    res.load_action = NULL;     /* problems are reported here, once */
    if (have_module && res_set_module(&res, &fdm, hm == 0 ? m.module : "a module") != 0) {
        fprintf(stderr, "extflow: out of memory verifying %s\n", dir);
        free(files);
        goto oom;
    }
    for (long i = 0; i < nfiles; i++) v.file[cell(&v, files[i].s, files[i].t)] = (uint8_t)files[i].status;
    free(files);
    long loaded = res_load_stages(&res), jbad = 0, beyond = 0;
    if (res_failed(&res)) {
        fprintf(stderr, "extflow: %s\n", res.error);
        goto oom;
    }
    stage_journal_read(dir, module, alg, mark_record, &v, &jbad);
    if (!(dd = malloc(cells)) || check_all_dd(&v, &res, dd, workers, show_progress) != 0) {
        fprintf(stderr, "extflow: out of memory verifying %s\n", dir);
        goto oom;
    }
    if (jbad) problem(&v, "bad: %s/stages/empty.log: %ld invalid records", dir, jbad);
    for (int s = 0; s <= v.max_s; s++) {
        int last = -1;      /* without a manifest: the last bidegree of the row present */
        for (int t = s; t <= v.max_t; t++)
            if (v.file[cell(&v, s, t)] || v.record[cell(&v, s, t)]) last = t;
        for (int t = s; t <= v.max_t; t++) {
            size_t c = cell(&v, s, t);
            int required = hm == 0 ? region_has(&region, s, t) : t < last;
            int inputs_ok = (t - 1 < s || res_is_done(&res, s, t - 1)) &&
                            (s == 0 || t - 1 < s - 1 || res_is_done(&res, s - 1, t - 1));
            char path[4200];
            stage_path(path, sizeof path, dir, STAGE_DIFFERENTIAL, s, t);
            if (res_is_done(&res, s, t)) {
                beyond += !required;
                if (dd[c] < 0) {
                    fprintf(stderr, "extflow: out of memory checking d∘d at (%d,%d)\n", s, t);
                    goto oom;
                }
                if (!dd[c]) {
                    problem(&v, "bad: (%d,%d) %s: d∘d != 0", s, t, path);
                    v.broken[c] = 1;
                }
            } else if (v.file[c] == F_BAD) {
                v.broken[c] = 1;        /* reported by scan_files */
            } else if (v.file[c] == F_VALID || v.record[c]) {
                if (inputs_ok) {
                    problem(&v, "bad: (%d,%d) %s: does not fit the bidegrees it was computed from", s, t,
                            v.file[c] ? path : "its empty.log record");
                    v.broken[c] = 1;
                } else if (required) v.followon++;
            } else if (required) {
                problem(&v, "missing: (%d,%d) %s (nor an empty.log record)", s, t, path);
                v.broken[c] = 1;
            }
        }
    }
    verify_kept(&v, &res, &ntmp);
    check_csv(&v, &res, &region, hm == 0);
    if (v.problems > VERIFY_MAX_LINES) fprintf(out, "... and %ld more\n", v.problems - VERIFY_MAX_LINES);
    if (v.followon)
        fprintf(out, "%ld bidegrees and ext.csv rows not checked: they rest on the missing or bad ones "
                "above (resolve recomputes them)\n", v.followon);
    if (res.keep_checked)
        fprintf(out, "%ld kept matrix/kernel files recomputed from the differentials, %ld disagree\n",
                res.keep_checked, res.keep_bad);
    if (ntmp) fprintf(out, "note: %ld temporaries of an interrupted run (the next resolve removes them)\n", ntmp);
    fprintf(out, "%s: %s resolution of %s, complete: %s; %ld stage files, %ld bidegrees loaded (%ld beyond "
            "the complete region); %ld problems: %s\n", dir, stage_algorithm_name(alg), res.module_name, where, nfiles, loaded,
            hm == 0 ? beyond : 0, v.problems, v.problems ? "NOT OK" : "ok");
    res_clear(&res);
    free(dd);
    free(v.file);
    free(v.record);
    free(v.broken);
    fdm_clear(&fdm);
    return v.problems ? 1 : 0;
oom:
    res_clear(&res);
    free(dd);
    free(v.file);
    free(v.record);
    free(v.broken);
    fdm_clear(&fdm);
    return 1;
}
