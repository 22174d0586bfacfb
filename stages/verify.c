/* verify.c — check a resolution directory against its manifest (see verify.h). */
#include "stages/verify.h"
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "stages/keepstages.h"
#include "stages/manifest.h"
#include "stages/stagefile.h"

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

/* The d∘d checks, run as chains (stages/chain.h) before anything is reported: one per bidegree
 * loaded (s >= 2, or s = 1 over a module), plan (the rows of d_{s-1} that the generators' images
 * select, in chunks: res_dd_begin) → multiply (the multiply codelet, CPU or GPU) → reduce (add
 * them into the sums d(d(g)), plan the next chunk: res_dd_next) → ... → finish, each into its
 * own cell of dd, so that the report, made afterwards in the order of the cells, is the same
 * for any number of workers. */
enum { DD_NONE = 2 };           /* dd[c]: not checked; else res_check_dd_batch's 1, 0 or -1 */
typedef struct dd_checks {
    const resolution *res;
    const verifier *v;
    int8_t *dd;
    int failed;                 /* a runner failure (the checks' own failures are their cells') */
    char error[300];
} dd_checks;
typedef struct dd_ctx {
    chain ch;
    res_dd d;
} dd_ctx;

static int dd_plan(chain *c)
{
    dd_checks *k = c->owner;
    dd_ctx *x = (dd_ctx *)c;
    if (c->s >= 2 && res_dd_begin(k->res, c->s, c->t, &x->d) != 0) k->dd[cell(k->v, c->s, c->t)] = -1;
    c->build = x->d.b.nrows ? &x->d.b : NULL;
    return 0;
}
static void dd_multiply(chain *c)
{
    dd_checks *k = c->owner;
    rb_multiply(c->build, &k->res->A, 0, c->build->nrows);
}
static int dd_reduce(chain *c)
{
    dd_checks *k = c->owner;
    dd_ctx *x = (dd_ctx *)c;
    if (c->s < 2 || k->dd[cell(k->v, c->s, c->t)] == -1) return CHAIN_FINISH;
    int r = res_dd_next(k->res, c->s, c->t, &x->d);
    if (r < 0) k->dd[cell(k->v, c->s, c->t)] = -1;
    c->build = r == 1 ? &x->d.b : NULL;
    return r == 1 ? CHAIN_REDUCE_AGAIN : CHAIN_FINISH;
}
static int dd_finish(chain *c)
{
    dd_checks *k = c->owner;
    int8_t *out = &k->dd[cell(k->v, c->s, c->t)];
    if (*out != -1) *out = (int8_t)(c->s < 2 ? res_check_dd(k->res, c->s, c->t) : res_dd_result(&((dd_ctx *)c)->d));
    return 0;
}
static void dd_clear(chain *c) { res_dd_clear(&((dd_ctx *)c)->d); }
static void dd_deps(void *owner, int s, deg_t t, chain_deps *out) { (void)owner, (void)s, (void)t, out->n = 0; }
/* The rows a generator's image can select, each a product per term of d of F_{s-1}'s generator:
 * the sums and one chunk of rows, about. */
static uint64_t dd_footprint(void *owner, int s, deg_t t)
{
    const resolution *res = ((dd_checks *)owner)->res;
    if (s < 2) return 4096;
    uint64_t width = freemod_dim(&res->F[s - 2], t, t), rows = freemod_dim(&res->F[s - 1], t, t);
    uint64_t words = (width + 63) / 64, chunk = (32ull << 20) / (8 * words + 8);
    if (chunk < RES_DD_CHUNK) chunk = RES_DD_CHUNK;
    return 4096 + 8 * words * (res_ngens(res, s, t) + (rows < chunk ? rows : chunk));
}
static const chain_kind dd_kind = { "dd_check", CHAIN_CHECK, sizeof(dd_ctx), dd_plan, dd_reduce, dd_finish, dd_clear,
                                    dd_deps, dd_footprint, dd_multiply, 0, NULL, NULL, NULL };

static chain_at dd_at(void *owner, int s, deg_t t, int layer)
{
    dd_checks *k = owner;
    (void)layer;
    return (chain_at){ res_is_done(k->res, s, t) && (s >= 2 || (s == 1 && k->res->module)) ? &dd_kind : NULL, k };
}
static void dd_fail(void *owner, const char *msg)
{
    dd_checks *k = owner;
    if (!k->failed) snprintf(k->error, sizeof k->error, "%s", msg);
    k->failed = 1;
}
static int dd_failed(void *owner) { return ((dd_checks *)owner)->failed; }

/* Fills dd (cells, DD_NONE where nothing is checked) with runner; 0, or -1 when the run failed
 * (said on stderr). */
static int check_all_dd(const verifier *v, const resolution *res, int8_t *dd, const chain_runner *runner)
{
    size_t cells = (size_t)(v->max_s + 1) * (v->max_t + 1);
    memset(dd, DD_NONE, cells);
    dd_checks k = { .res = res, .v = v, .dd = dd };
    chain_set set = { .owner = &k, .A = &res->A, .max_s = v->max_s, .max_t = v->max_t, .at = dd_at, .fail = dd_fail,
                      .failed = dd_failed };
    if (chain_run(runner, &set) == 0 && !k.failed) return 0;
    fprintf(stderr, "extflow: verify: %s\n", k.failed ? k.error : "the checks stopped before the end");
    return -1;
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

int verify_dir(const char *dir, FILE *out, const chain_runner *runner)
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
    if (!(dd = malloc(cells))) {
        fprintf(stderr, "extflow: out of memory verifying %s\n", dir);
        goto oom;
    }
    if (check_all_dd(&v, &res, dd, runner) != 0) goto oom;
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
