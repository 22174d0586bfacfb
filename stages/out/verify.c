/* verify.c — check a resolution directory against its manifest (see verify.h). */
#include "stages/out/verify.h"
#include "stages/resolve/resolution_p.h"
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/keepstages.h"
#include "stages/out/manifest.h"
#include "stages/store/stagefile.h"

enum { F_NONE = 0, F_VALID = 1, F_BAD = 2 };

/* What verify lists, in the order reported: the differentials, then the kept matrices and
 * kernels (--keep-stages; stages/resolve/keepstages.c). */
static const int kinds[] = { STAGE_DIFFERENTIAL, STAGE_MATRIX, STAGE_KERNEL };
enum { NKINDS = sizeof kinds / sizeof *kinds };

/* An entry of DIR/stages/KIND, in the folder's order: a name that is no stage file's, or a
 * stage file and what its check found (on the process that owns its row). */
typedef struct entry {
    char *name;
    int stage, s, t;            /* stage: the name is a stage file's, of (s, t) */
    int checked;                /* its check ran (here, or on its owner and was gathered) */
    int rc;                     /* differential: STAGE_OK or why not; kept: keep_stages_check's */
    int compared, disagree;     /* kept: the files compared, and those that disagreed */
    char *msg;                  /* what rc or disagree means (else NULL) */
} entry;

typedef struct verifier {
    FILE *out;                  /* NULL on every process but process 0 */
    const char *dir;
    const verify_share *share;
    long problems, followon, ntmp, nfiles, loaded, jbad, keep_checked, keep_bad;
    int max_s, max_t, max_n;    /* max_n: largest stem t - s, which sizes the Milnor tables */
    uint64_t module;
    int alg, hm;                /* hm: manifest_read's */
    run_manifest m;
    run_region region;
    char where[64];
    fd_module fdm;
    int have_module, have_res;
    entry *list[NKINDS];
    long nlist[NKINDS];
    uint8_t *file, *record;     /* per cell: F_* of its stage file; journal record present */
    uint8_t *broken;            /* per cell: missing or bad (what depends on it is follow-on) */
    int8_t *dd;                 /* per cell: the d∘d check's result (check_all_dd) */
    char error[4400];           /* a failure (out of memory, ...): no verdict, this one line */
} verifier;

static void problem(verifier *v, const char *fmt, ...)
{
    if (++v->problems > VERIFY_MAX_LINES || !v->out) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(v->out, fmt, ap);
    va_end(ap);
    fputc('\n', v->out);
}

/* Records the failure (the first one); -1. */
static int fail(verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(verifier *v, const char *fmt, ...)
{
    if (v->error[0]) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->error, sizeof v->error, fmt, ap);
    va_end(ap);
    return -1;
}

static int fail_oom(verifier *v) { return fail(v, "out of memory verifying %s", v->dir); }

static size_t cell(const verifier *v, int s, int t) { return (size_t)s * (v->max_t + 1) + t; }

/* Does this process check the bidegrees of row s? */
static int owns(const verifier *v, int s)
{
    const verify_share *sh = v->share;
    return sh->size <= 1 || sh->owner(s, sh->size, v->max_s) == sh->rank;
}

/* "s_t.zst" with 0 <= s <= t <= MILNOR_MAX_DEGREE, s <= 1000; 1 if name is one. */
static int stage_name(const char *name, int *s, int *t)
{
    int len = 0;
    return sscanf(name, "%d_%d.zst%n", s, t, &len) == 2 && !name[len] && *s >= 0 && *t >= *s &&
           *t <= MILNOR_MAX_DEGREE && *s <= 1000;
}

/* Lists DIR/stages/KIND (kinds[k]), counts the temporaries of killed runs (never read) and
 * widens the extents to the bidegrees of its files. An unreadable folder of differentials is
 * a problem; a missing one, or a kept folder that cannot be read, lists nothing. 0, or -1. */
static int list_kind(verifier *v, int k)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/stages/%s", v->dir, stage_kind_name(kinds[k]));
    DIR *d = opendir(path);
    if (!d) {
        if (kinds[k] == STAGE_DIFFERENTIAL && errno != ENOENT) problem(v, "bad: %s: %s", path, strerror(errno));
        return 0;
    }
    long cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (strstr(e->d_name, ".tmp.")) {
            v->ntmp++;
            continue;
        }
        if (v->nlist[k] == cap) {
            cap = cap ? 2 * cap : 256;
            entry *nl = realloc(v->list[k], (size_t)cap * sizeof *nl);
            if (!nl) {
                rc = fail_oom(v);
                break;
            }
            v->list[k] = nl;
        }
        entry *x = &v->list[k][v->nlist[k]];
        *x = (entry){ .name = strdup(e->d_name) };
        if (!x->name) {
            rc = fail_oom(v);
            break;
        }
        v->nlist[k]++;
        if (!(x->stage = stage_name(e->d_name, &x->s, &x->t))) continue;
        v->nfiles += kinds[k] == STAGE_DIFFERENTIAL;
        if (x->s > v->max_s) v->max_s = x->s;
        if (x->t > v->max_t) v->max_t = x->t;
        if (x->t - x->s > v->max_n) v->max_n = x->t - x->s;
    }
    closedir(d);
    return rc;
}

/* Checks the file of x (of kinds[k]): a differential is read and its header compared with its
 * name, the manifest's module and algorithm; a kept matrix or kernel is recomputed from the
 * loaded differentials and compared. 0, or -1 (out of memory: it says nothing of the file). */
static int check_entry(verifier *v, resolution *res, int k, entry *x)
{
    char path[4200], err[5000];
    snprintf(path, sizeof path, "%s/stages/%s/%s", v->dir, stage_kind_name(kinds[k]), x->name);
    x->checked = 1;
    if (kinds[k] == STAGE_DIFFERENTIAL) {
        stage_header h;
        f2mat m = { 0 };
        fpmat mp = { 0 };       /* at an odd prime the files are over F_p (format version 2) */
        int odd = res->prime != 2;
        x->rc = stage_read_any(path, &h, odd ? NULL : &m, odd ? &mp : NULL, err, sizeof err);
        if (x->rc == STAGE_ENOMEM) return fail(v, "%s", err);
        if (x->rc == STAGE_OK) {
            f2mat_clear(&m);
            fpmat_clear(&mp);
            char why[400];
            if (stage_expect(&h, STAGE_DIFFERENTIAL, x->s, x->t, v->module, v->alg, why, sizeof why) != STAGE_OK) {
                snprintf(err, sizeof err, "%.4000s: %s", path, why);
                x->rc = STAGE_EMISMATCH;
            } else if (odd && h.prime != res->prime) {
                snprintf(err, sizeof err, "%.4000s: prime %u, the resolution's is %u", path, h.prime, res->prime);
                x->rc = STAGE_EMISMATCH;
            }
        }
        if (x->rc != STAGE_OK && !(x->msg = strdup(err))) return fail_oom(v);
        return 0;
    }
    long compared = res->keep_checked, disagree = res->keep_bad;
    x->rc = keep_stages_check(res, kinds[k], x->s, x->t);
    x->compared = (int)(res->keep_checked - compared);
    x->disagree = (int)(res->keep_bad - disagree);
    if ((x->rc != 0 || x->disagree) && !(x->msg = strdup(res->keep_error))) return fail_oom(v);
    return 0;
}

/* Checks the files listed and not yet checked: with mine, those of this process's rows; else
 * all of them (process 0: those that no process checked). 0, or -1. */
static int check_files(verifier *v, resolution *res, int mine)
{
    for (int k = 0; k < NKINDS; k++)
        for (long i = 0; i < v->nlist[k]; i++) {
            entry *x = &v->list[k][i];
            if (x->stage && !x->checked && (!mine || owns(v, x->s)) && check_entry(v, res, k, x) != 0) return -1;
        }
    return 0;
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

/* The problems of the entries of kinds[k], in the folder's order; a differential's status
 * goes to its cell. A kept file whose step cannot run because its inputs are missing or bad is
 * a follow-on. */
static void report_entries(verifier *v, int k)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/stages/%s", v->dir, stage_kind_name(kinds[k]));
    for (long i = 0; i < v->nlist[k]; i++) {
        const entry *x = &v->list[k][i];
        int s = x->s, t = x->t;
        if (!x->stage) {
            problem(v, "bad: %s/%s: not a stage file name", path, x->name);
        } else if (kinds[k] == STAGE_DIFFERENTIAL) {
            if (x->rc != STAGE_OK) problem(v, "bad: (%d,%d) %s", s, t, x->msg);
            v->file[cell(v, s, t)] = x->rc == STAGE_OK ? F_VALID : F_BAD;
        } else {
            v->keep_checked += x->compared;
            v->keep_bad += x->disagree;
            int in_broken = (t - 1 >= s && v->broken[cell(v, s, t - 1)]) ||
                            (s >= 1 && t - 1 >= s - 1 && v->broken[cell(v, s - 1, t - 1)]);
            if (x->rc != 0 && in_broken) v->followon++;
            else if (x->rc != 0) problem(v, "bad: (%d,%d) %s/%s: cannot be checked: %s", s, t, path, x->name, x->msg);
            else if (x->disagree) problem(v, "bad: (%d,%d) %s", s, t, x->msg);
        }
    }
}

/* The d∘d checks, run as chains (stages/chain.h) before anything is reported: one per bidegree
 * loaded (s >= 2, or s = 1 over a module) of this process's rows, plan (the rows of d_{s-1} that the generators' images
 * select, in chunks: res_dd_begin) → multiply (the multiply codelet, CPU or GPU) → reduce (add
 * them into the sums d(d(g)), plan the next chunk: res_dd_next) → ... → finish, each into its
 * own cell of dd, so that the report, made afterwards in the order of the cells, is the same
 * for any number of workers and processes. At an odd prime a chain is its finish alone:
 * res_check_dd_p's one-by-one Milnor products mod p (stages/resolve/resolution_p.h), on the worker. */
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
    if (c->s >= 2 && k->res->prime == 2 && res_dd_begin(k->res, c->s, c->t, &x->d) != 0)
        k->dd[cell(k->v, c->s, c->t)] = -1;
    c->rows = x->d.b.nrows ? chain_rows_f2(&x->d.b) : CHAIN_NO_ROWS;
    return 0;
}
static void dd_multiply(chain *c)
{
    dd_checks *k = c->owner;
    rb_multiply(c->rows.f2, &k->res->A, 0, c->rows.f2->nrows);
}
static int dd_reduce(chain *c)
{
    dd_checks *k = c->owner;
    dd_ctx *x = (dd_ctx *)c;
    if (c->s < 2 || k->res->prime != 2 || k->dd[cell(k->v, c->s, c->t)] == -1) return CHAIN_FINISH;
    int r = res_dd_next(k->res, c->s, c->t, &x->d);
    if (r < 0) k->dd[cell(k->v, c->s, c->t)] = -1;
    c->rows = r == 1 ? chain_rows_f2(&x->d.b) : CHAIN_NO_ROWS;
    return r == 1 ? CHAIN_REDUCE_AGAIN : CHAIN_FINISH;
}
static int dd_finish(chain *c)
{
    dd_checks *k = c->owner;
    int8_t *out = &k->dd[cell(k->v, c->s, c->t)];
    if (*out != -1)     /* s = 1 (a module), or odd p: one-by-one products (res_check_dd) */
        *out = (int8_t)(k->res->prime != 2 ? res_check_dd_p(k->res, c->s, c->t)
                        : c->s < 2        ? res_check_dd(k->res, c->s, c->t)
                                          : res_dd_result(&((dd_ctx *)c)->d));
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
                                    dd_deps, dd_footprint, dd_multiply, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };

static chain_at dd_at(void *owner, int s, deg_t t, int layer)
{
    dd_checks *k = owner;
    (void)layer;
    return (chain_at){ res_is_done(k->res, s, t) && (s >= 2 || (s == 1 && k->res->module)) && owns(k->v, s)
                       ? &dd_kind : NULL, k };
}
static void dd_fail(void *owner, const char *msg)
{
    dd_checks *k = owner;
    if (!k->failed) snprintf(k->error, sizeof k->error, "%s", msg);
    k->failed = 1;
}
static int dd_failed(void *owner) { return ((dd_checks *)owner)->failed; }

/* Fills v->dd (DD_NONE where nothing is checked) at the bidegrees of this process's rows with
 * runner; 0, VERIFY_STOPPED (the runner stopped at its time limit), or -1 when the run failed or
 * a check ran out of memory. */
static int check_all_dd(verifier *v, const resolution *res, const chain_runner *runner)
{
    memset(v->dd, DD_NONE, (size_t)(v->max_s + 1) * (v->max_t + 1));
    dd_checks k = { .res = res, .v = v, .dd = v->dd };
    chain_set set = { .owner = &k, .A = &res->A, .max_s = v->max_s, .max_t = v->max_t, .at = dd_at, .fail = dd_fail,
                      .failed = dd_failed };
    int rc = chain_run(runner, &set);
    if (rc == 1 && !k.failed) return VERIFY_STOPPED;
    if (rc != 0 || k.failed) return fail(v, "verify: %s", k.failed ? k.error : "the checks stopped before the end");
    for (int s = 0; s <= v->max_s; s++)
        for (int t = s; t <= v->max_t; t++)
            if (v->dd[cell(v, s, t)] == -1) return fail(v, "out of memory checking d∘d at (%d,%d)", s, t);
    return 0;
}

int verify_load_module(const char *dir, uint64_t module, int unstable, fd_module *fdm, char *err, size_t es)
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
    if (res_module_id(fdm, unstable) != module) {
        fdm_clear(fdm);
        snprintf(err, es, "%s: not the module the stage files were computed for", path);
        return -1;
    }
    return 0;
}

/* A verdict before anything can be loaded: process 0 says "bad: WHY" and NOT OK; on the others
 * it is a failure, which process 0 reports where it saw otherwise. 1. */
static int verdict_now(verifier *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int verdict_now(verifier *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->error, sizeof v->error, fmt, ap);
    va_end(ap);
    if (v->out) fprintf(v->out, "bad: %s\nNOT OK\n", v->error);
    return 1;
}

/* Loads DIR as every process does and runs the checks of this process's rows. 0; 1 after a
 * verdict (verdict_now); VERIFY_STOPPED at the runner's time limit; -1 on a failure (v->error). */
static int load_and_check(verifier *v, resolution *res, const chain_runner *runner)
{
    char err[4300];
    v->hm = manifest_read(v->dir, &v->m, err, sizeof err);
    if (v->hm < 0) problem(v, "bad: %s", err);
    if (v->hm == 0) {
        const run_region *c = &v->m.complete;
        v->module = v->m.module_id;
        v->alg = v->m.algorithm;
        v->max_s = c->max_s;
        v->max_t = c->kind == REGION_STEM ? c->stem + c->max_s : c->max_t;
        v->max_n = c->kind == REGION_STEM ? c->stem : c->max_t;
    } else if (!manifest_sniff(v->dir, &v->module, &v->alg)) {
        return verdict_now(v, "%s: no run.json and no valid stage file", v->dir);
    }
    int unstable = v->hm == 0 && v->m.unstable;     /* without run.json: taken for stable */
    if (v->module != res_module_id(NULL, unstable)) {
        if (verify_load_module(v->dir, v->module, unstable, &v->fdm, err, sizeof err) != 0)
            return verdict_now(v, "%s", err);
        v->have_module = 1;
    }
    if (v->hm == 0)
        region_describe(v->where, sizeof v->where, &v->m.complete, res_module_shift(v->have_module ? &v->fdm : NULL));
    v->region = v->hm == 0 ? v->m.complete : (run_region){ REGION_RECT, 0, -1, -1 };
    for (int k = 0; k < NKINDS; k++)
        if (list_kind(v, k) != 0) return -1;
    /* rebuilt over the stems the files, the journal and the manifest reach: the Milnor tables
     * follow the largest stem, not the largest t (a tall tower stays small) */
    long jbad0;
    stage_journal_read(v->dir, v->module, v->alg, widen_to_record, v, &jbad0);
    size_t cells = (size_t)(v->max_s + 1) * (v->max_t + 1);
    if (res_init_module(res, REGION_STEM, v->max_n, v->max_s, 0, v->dir, 0, v->alg, v->have_module ? &v->fdm : NULL) != 0)
        return fail_oom(v);
    v->have_res = 1;
    res->load_action = NULL;     /* problems are reported here, once */
    if (!(v->file = calloc(cells, 1)) || !(v->record = calloc(cells, 1)) || !(v->broken = calloc(cells, 1)) ||
        !(v->dd = malloc(cells)) || (unstable && res_set_unstable(res) != 0) ||
        (v->have_module && res_set_module(res, &v->fdm, v->hm == 0 ? v->m.module : "a module") != 0))
        return fail_oom(v);
    v->loaded = res_load_stages(res);
    if (res_failed(res)) return fail(v, "%s", res->error);
    stage_journal_read(v->dir, v->module, v->alg, mark_record, v, &v->jbad);
    int rc = check_all_dd(v, res, runner);
    return rc != 0 ? rc : check_files(v, res, 1) != 0 ? -1 : 0;
}

/* Which bidegrees res holds, with the extents: what every process must have loaded alike. */
static uint64_t fingerprint(const verifier *v, const resolution *res)
{
    int64_t ext[3] = { v->max_s, v->max_t, v->max_n };
    return stage_hash64(res->done, (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1)) ^ stage_hash64(ext, sizeof ext);
}

/* What a process other than 0 hands it: its rc (load_and_check's), the failure or verdict,
 * the fingerprint of what it loaded and, after its checks, its d∘d cells and the checks of its
 * files (kind, rc, compared, disagree, name, message). malloc'ed; NULL when out of memory. */
static char *pack_checks(const verifier *v, const resolution *res, int rc, size_t *len)
{
    char *buf = NULL;
    FILE *w = open_memstream(&buf, len);
    if (!w) return NULL;
    uint64_t fp = rc == 0 ? fingerprint(v, res) : 0;
    fwrite(&rc, sizeof rc, 1, w);
    fwrite(&fp, sizeof fp, 1, w);
    fwrite(v->error, strlen(v->error) + 1, 1, w);
    if (rc == 0) fwrite(v->dd, (size_t)(v->max_s + 1) * (v->max_t + 1), 1, w);
    for (int k = 0; rc == 0 && k < NKINDS; k++)
        for (long i = 0; i < v->nlist[k]; i++) {
            const entry *x = &v->list[k][i];
            if (!x->checked) continue;
            int32_t f[4] = { k, x->rc, x->compared, x->disagree };
            fwrite(f, sizeof f, 1, w);
            fwrite(x->name, strlen(x->name) + 1, 1, w);
            fwrite(x->msg ? x->msg : "", strlen(x->msg ? x->msg : "") + 1, 1, w);
        }
    int bad = ferror(w);
    if (fclose(w) != 0 || bad) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int by_name(const void *a, const void *b)
{
    return strcmp((*(entry *const *)a)->name, (*(entry *const *)b)->name);
}

/* Process 0 takes process r's bytes (pack_checks) into its own results; 0, or -1 (v->error). */
static int take_checks(verifier *v, const resolution *res, entry **byname[NKINDS], int r, char *buf, size_t len)
{
    FILE *f = len ? fmemopen(buf, len, "rb") : NULL;
    char *msg = NULL, *name = NULL;
    size_t cap = 0, ncap = 0, cells = (size_t)(v->max_s + 1) * (v->max_t + 1);
    int rc = 0, theirs;
    uint64_t fp;
    if (!f || fread(&theirs, sizeof theirs, 1, f) != 1 || fread(&fp, sizeof fp, 1, f) != 1 ||
        getdelim(&msg, &cap, '\0', f) < 0)
        rc = fail(v, "rank %d: out of memory verifying %s", r, v->dir);
    else if (theirs == VERIFY_STOPPED)
        rc = VERIFY_STOPPED;
    else if (theirs != 0)
        rc = fail(v, "rank %d: %s", r, msg);
    else if (fp != fingerprint(v, res))
        rc = fail(v, "the ranks do not find the same finished bidegrees in %s (it must be one directory that "
                  "every rank sees)", v->dir);
    int8_t *dd = rc == 0 ? malloc(cells) : NULL;
    if (rc == 0 && (!dd || fread(dd, cells, 1, f) != 1)) rc = fail_oom(v);
    for (size_t c = 0; rc == 0 && c < cells; c++)
        if (dd[c] != DD_NONE) v->dd[c] = dd[c];
    int32_t g[4];
    while (rc == 0 && fread(g, sizeof g, 1, f) == 1) {
        if (g[0] < 0 || g[0] >= NKINDS || getdelim(&name, &ncap, '\0', f) < 0 || getdelim(&msg, &cap, '\0', f) < 0) {
            rc = fail_oom(v);
            break;
        }
        entry key = { .name = name }, *kp = &key, **hit = bsearch(&kp, byname[g[0]], (size_t)v->nlist[g[0]],
                                                                 sizeof *byname[g[0]], by_name);
        if (!hit || (*hit)->checked) continue;      /* one this process did not list */
        entry *x = *hit;
        x->checked = 1;
        x->rc = g[1];
        x->compared = g[2];
        x->disagree = g[3];
        if (*msg && !(x->msg = strdup(msg))) rc = fail_oom(v);
    }
    if (f) fclose(f);
    free(dd);
    free(msg);
    free(name);
    return rc;
}

/* Several processes: each hands its results to process 0, which takes them into its own and
 * checks what no other process did (none, when every one lists the same files). Returns
 * process 0's rc for the report (a failure elsewhere is its failure: the lowest process's),
 * each other process its own. */
static int combine(verifier *v, resolution *res, int rc)
{
    const verify_share *sh = v->share;
    char *mine = NULL;
    void *all = NULL;
    size_t len = 0, *at = NULL;
    if (sh->rank != 0 && !(mine = pack_checks(v, res, rc, &len))) len = 0;     /* process 0 says so */
    int gathered = sh->gather(mine, len, &all, &at);
    free(mine);
    if (sh->rank != 0) return rc;
    entry **byname[NKINDS] = { NULL };
    if (rc == 0 && gathered != 0) rc = fail(v, "out of memory gathering the checks of the other ranks");
    for (int k = 0; rc == 0 && k < NKINDS; k++) {
        if (!(byname[k] = malloc((size_t)(v->nlist[k] + 1) * sizeof *byname[k]))) rc = fail_oom(v);
        for (long i = 0; rc == 0 && i < v->nlist[k]; i++) byname[k][i] = &v->list[k][i];
        if (rc == 0) qsort(byname[k], (size_t)v->nlist[k], sizeof *byname[k], by_name);
    }
    for (int r = 1; rc == 0 && r < sh->size; r++)
        rc = take_checks(v, res, byname, r, (char *)all + at[r], at[r + 1] - at[r]);
    for (int k = 0; k < NKINDS; k++) free(byname[k]);
    free(all);
    free(at);
    return rc == 0 && check_files(v, res, 0) != 0 ? -1 : rc;
}

/* Process 0's report, in the order of one process's (verify.h). 0 (ok) or 1. */
static int report(verifier *v, resolution *res)
{
    const char *dir = v->dir;
    long beyond = 0;
    report_entries(v, 0);
    if (v->jbad) problem(v, "bad: %s/stages/empty.log: %ld invalid records", dir, v->jbad);
    for (int s = 0; s <= v->max_s; s++) {
        int last = -1;      /* without a manifest: the last bidegree of the row present */
        for (int t = s; t <= v->max_t; t++)
            if (v->file[cell(v, s, t)] || v->record[cell(v, s, t)]) last = t;
        for (int t = s; t <= v->max_t; t++) {
            size_t c = cell(v, s, t);
            int required = v->hm == 0 ? region_has(&v->region, s, t) : t < last;
            int inputs_ok = (t - 1 < s || res_is_done(res, s, t - 1)) &&
                            (s == 0 || t - 1 < s - 1 || res_is_done(res, s - 1, t - 1));
            char path[4200];
            stage_path(path, sizeof path, dir, STAGE_DIFFERENTIAL, s, t);
            if (res_is_done(res, s, t)) {
                beyond += !required;
                if (!v->dd[c]) {
                    problem(v, "bad: (%d,%d) %s: d∘d != 0", s, t, path);
                    v->broken[c] = 1;
                }
            } else if (v->file[c] == F_BAD) {
                v->broken[c] = 1;        /* reported with its entry */
            } else if (v->file[c] == F_VALID || v->record[c]) {
                if (inputs_ok) {
                    problem(v, "bad: (%d,%d) %s: does not fit the bidegrees it was computed from", s, t,
                            v->file[c] ? path : "its empty.log record");
                    v->broken[c] = 1;
                } else if (required) v->followon++;
            } else if (required) {
                problem(v, "missing: (%d,%d) %s (nor an empty.log record)", s, t, path);
                v->broken[c] = 1;
            }
        }
    }
    for (int k = 1; k < NKINDS; k++) report_entries(v, k);
    check_csv(v, res, &v->region, v->hm == 0);
    FILE *out = v->out;
    if (v->problems > VERIFY_MAX_LINES) fprintf(out, "... and %ld more\n", v->problems - VERIFY_MAX_LINES);
    if (v->followon)
        fprintf(out, "%ld bidegrees and ext.csv rows not checked: they rest on the missing or bad ones "
                "above (resolve recomputes them)\n", v->followon);
    if (v->keep_checked)
        fprintf(out, "%ld kept matrix/kernel files recomputed from the differentials, %ld disagree\n",
                v->keep_checked, v->keep_bad);
    if (v->ntmp) fprintf(out, "note: %ld temporaries of an interrupted run (the next resolve removes them)\n", v->ntmp);
    fprintf(out, "%s: %s%s resolution of %s, complete: %s; %ld stage files, %ld bidegrees loaded (%ld beyond "
            "the complete region); %ld problems: %s\n", dir, res->unstable ? "unstable " : "",
            stage_algorithm_name(v->alg), res->module_name, v->where,
            v->nfiles, v->loaded, v->hm == 0 ? beyond : 0, v->problems, v->problems ? "NOT OK" : "ok");
    return v->problems ? 1 : 0;
}

int verify_dir(const char *dir, FILE *out, const chain_runner *runner, const verify_share *share)
{
    static const verify_share alone = { 0, 1, NULL, NULL, NULL };
    if (!share || share->size <= 1) share = &alone;
    verifier v = { .out = share->rank == 0 ? out : NULL, .dir = dir, .share = share, .max_s = -1, .max_t = -1,
                   .max_n = -1, .where = "no run.json" };
    resolution res;
    int rc = load_and_check(&v, &res, runner);
    if (share->size > 1) rc = combine(&v, &res, rc);
    if (share->rank == 0 && rc == 0) rc = report(&v, &res);
    else if (share->rank == 0 && rc < 0) fprintf(stderr, "extflow: %s\n", v.error);
    rc = rc == VERIFY_STOPPED ? VERIFY_STOPPED : rc != 0;
    if (share->size > 1) rc = share->max(share->rank == 0 ? rc : 0);     /* process 0's verdict */
    if (v.have_res) res_clear(&res);
    for (int k = 0; k < NKINDS; k++) {
        for (long i = 0; i < v.nlist[k]; i++) {
            free(v.list[k][i].name);
            free(v.list[k][i].msg);
        }
        free(v.list[k]);
    }
    free(v.dd);
    free(v.file);
    free(v.record);
    free(v.broken);
    fdm_clear(&v.fdm);
    return rc;
}
