/* resolved.c — a finished resolution opened for products, massey, d2, export, steenrod and sq0
 * (tools/resolved.h). */
#include "tools/resolved.h"
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include "runtime/rt_mpi.h"
#include "runtime/runpolicy.h"
#include "stages/d2/secondary.h"
#include "stages/out/chart.h"
#include "stages/resolve/report.h"
#include "stages/store/stagefile.h"

_Static_assert(OUTDIR_BUSY == CLI_BUSY, "one exit status for a held directory");

int resolved_limits(const cli_option *memory, const cli_option *time_limit, double began, chain_policy *limits)
{
    char err[300];
    if (runpolicy_limits(memory->arg, time_limit->arg, began, limits, err, sizeof err) != 0)
        return cli_usage_error("%s", err);
    /* a budget the machine cannot give is a mistake (100G for 10G); one above what is free now
     * may still be meant (memory that others will give back): said, not refused */
    uint64_t want = limits->memory_budget, total = runpolicy_memory_total(), avail = runpolicy_memory_available();
    if (want > total)
        return cli_usage_error("--memory %s is more than this machine gives this process (%.1f GiB: its memory, "
                               "cgroup limit or ulimit -v)", memory->arg, total / 1073741824.0);
    if (want > avail && rt_mpi_rank() == 0)
        fprintf(stderr, "extflow: --memory %s is more than the %.1f GiB available now: the run may run out of memory "
                "before it reaches its budget\n", memory->arg, avail / 1073741824.0);
    return 0;
}

int resolved_d2_memo(secondary *sec, const chain_policy *limits, char *error, size_t errlen)
{
    const char *mw = getenv("EXTFLOW_D2_MEMO");
    uint64_t bytes = SECONDARY_MEMO_BYTES;
    if (mw && strcmp(mw, "0") && runpolicy_parse_size(mw, &bytes) != 0) return 0;
    if (mw && !strcmp(mw, "0")) bytes = 0;
    else if (!mw && limits->memory_budget && limits->memory_budget / 4 < bytes) bytes = limits->memory_budget / 4;
    if (secondary_set_memo(sec, (size_t)bytes) == 0) return 0;
    snprintf(error, errlen, "out of memory setting up the memo of mod-4 products");
    return -1;
}

void resolved_d2_ways(secondary *sec)
{
    const char *yw = getenv("EXTFLOW_D2_Y"), *iw = getenv("EXTFLOW_D2_INTERMEDIATE");
    sec->y_in_batch = yw && !strcmp(yw, "batch");
    sec->intermediates_cpu = iw && !strcmp(iw, "cpu");
}

uint64_t resolved_qi_budget(const chain_policy *limits)
{
    const char *qw = getenv("EXTFLOW_D2_QI");   /* checked by cli_check_env */
    uint64_t bytes = SECONDARY_QI_BYTES;
    if (qw && !strcmp(qw, "0")) return 0;     /* runpolicy_parse_size takes no 0 */
    if (qw && runpolicy_parse_size(qw, &bytes) == 0) return bytes;
    if (limits->memory_budget) return limits->memory_budget / 4 < bytes ? limits->memory_budget / 4 : bytes;
    /* no --memory: a quarter of the run's own budget (80% of the memory available), at least
     * SECONDARY_QI_BYTES (at stem 100 of S_2 they take ~5 GB in all; each not kept is solved
     * again by every lift that needs it) */
    uint64_t quarter = runpolicy_memory_available() / 10 * 8 / 4;
    return quarter > bytes ? quarter : bytes;
}

void resolved_qi_report(secondary *sec)
{
    if (!getenv("EXTFLOW_STATS") || !sec->set.preimage_cache) return;
    preimage_qi_stats q = preimage_cache_qi_stats(sec->set.preimage_cache);
    fprintf(stderr, "extflow: quasi-inverses of d_i kept for the lifts: %llu built (%.1f MB of a %.1f MB budget), "
            "applied by %llu steps; past the budget %llu built for one step, %llu steps solved without one\n",
            (unsigned long long)q.built, 1e-6 * (double)q.bytes, 1e-6 * (double)q.budget, (unsigned long long)q.used,
            (unsigned long long)q.over, (unsigned long long)q.missed);
}

void resolved_lift_report(const char *name, const lift_set *set)
{

    if (getenv("EXTFLOW_STATS"))
        fprintf(stderr, "extflow: lift %s: %ld bidegrees computed, %ld loaded, %ld solves of d in %.2f s (%ld by "
                "signature blocks)\n", name, set->computed, set->loaded, set->qis, set->qi_seconds, set->qis_by_signature);
    if (getenv("EXTFLOW_STATS") && set->extra_read)
        fprintf(stderr, "extflow: lift %s: extra terms' products %llu (job x term) pairs planned, %llu without "
                "sharing jobs between a step's generators (x%.2f)\n", name, (unsigned long long)set->extra_kept,
                (unsigned long long)set->extra_read, (double)set->extra_read / (double)(set->extra_kept ? set->extra_kept : 1));
}

int resolved_open(const char *cmd, const char *dir, opened_dir *d, int flags)
{
    int odd_ok = flags & RESOLVED_ODD_OK;
    memset(d, 0, sizeof *d);
    outdir_init(&d->dir, dir);
    int rc = cli_check_env(0);
    if (rc) return rc;
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_usage_error("%s: %s is not a directory", cmd, dir);
    /* several ranks: rank 0 holds the lock for all, and they all stop if it cannot */
    char err[4400];
    int lrc = rt_mpi_rank() == 0 ? outdir_lock(&d->dir, err, sizeof err) : 0;
    if (lrc) fprintf(stderr, "extflow: %s\n", err);
    if ((lrc = rt_mpi_max(lrc)) != 0) return lrc;
    if ((rc = outdir_load(dir, &d->res, &d->man, &d->fdm, odd_ok, err, sizeof err)) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        outdir_release(&d->dir);
        fdm_clear(&d->fdm);
    } else if (d->res.unstable && !(flags & RESOLVED_UNSTABLE_OK)) {   /* lifts by classes, Massey, d2, Sq^i */
        resolved_close(d);
        return cli_usage_error("%s: %s holds an unstable resolution: only resolve, export, verify and products --map "
                               "read one so far", cmd, dir);
    }
    return rc;
}

void resolved_close(opened_dir *d)
{
    res_clear(&d->res);
    fdm_clear(&d->fdm);
    outdir_release(&d->dir);
}

void resolved_close_both(opened_dir *d, opened_dir *u, int have_unit)
{
    if (have_unit) resolved_close(u);
    resolved_close(d);
}

int resolved_is_sphere(const opened_dir *d)
{
    return d->man.module_id == stage_hash64(RES_MODULE_S2, strlen(RES_MODULE_S2));
}

int resolved_require_sphere(const char *cmd, const char *what, const char *dir, opened_dir *d)
{
    int rc = resolved_open(cmd, dir, d, 0);
    if (rc || resolved_is_sphere(d)) return rc;
    rc = cli_usage_error("%s: %s holds %s: %s is for S_2 only", cmd, dir, d->man.module, what);
    resolved_close(d);
    return rc;
}

int resolved_is_unit(const opened_dir *d)
{
    if (resolved_is_sphere(d)) return 1;
    const fd_module *m = &d->fdm;
    return m->dim && !m->fp && !m->rp_open && m->min_deg == 0 && m->max_deg == 0 && m->dim[0] == 1;
}

/* The algebra a resolution's free modules are free over: "A", "A(n)", or "the subalgebra of
 * profile [h1,h2,...]" (", ..." where it is not truncated: the later h_i are unbounded). */
static void algebra_describe(char *buf, size_t size, const milnor_profile *p)
{
    milnor_profile full = milnor_profile_full();
    if (milnor_profile_equal(p, &full)) {
        snprintf(buf, size, "A");
        return;
    }
    for (int n = 0; n < MILNOR_MAX_LEN; n++) {
        milnor_profile an = milnor_profile_an(n);
        if (milnor_profile_equal(p, &an)) {
            snprintf(buf, size, "A(%d)", n);
            return;
        }
    }
    size_t k = (size_t)snprintf(buf, size, "the subalgebra of profile [");
    for (int i = 0; i < p->len && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%d", i ? "," : "", p->h[i]);
    if (k < size) snprintf(buf + k, size - k, "%s]", p->truncated ? "" : ",...");
}

static int same_directory(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Why UNITDIR (opened in u) cannot serve DIR: a usage error, or 0 when it can. */
static int unit_mismatch(const char *cmd, const char *dir, const opened_dir *d, const char *unitdir,
                         const opened_dir *u, const char *alg, int own)
{
    char ualg[96];
    uint32_t up = u->res.prime;
    if (up != d->res.prime || !fdm_same_odd_algebra(&u->fdm, &d->fdm))
        return cli_usage_error("%s: --unit %s is a resolution at p = %u%s, %s one at p = %u: the unit must be F_p over "
                               "the same algebra", cmd, unitdir, up, up == d->res.prime ? " over another profile" : "",
                               dir, d->res.prime);
    algebra_describe(ualg, sizeof ualg, &u->res.A.profile);
    if (!resolved_is_unit(u))
        return cli_usage_error("%s: --unit %s holds a resolution of %s, not of the unit F2 over %s%s", cmd, unitdir,
                               u->man.module, alg, strcmp(alg, "A") ? "" : " (S_2)");
    if (!milnor_profile_equal(&u->res.A.profile, &d->res.A.profile))
        return cli_usage_error("%s: --unit %s resolves %s over %s, but %s (%s) is resolved over %s: the unit must be "
                               "F2 over the same algebra%s", cmd, unitdir, u->man.module, ualg, dir, d->man.module,
                               alg, own ? ", and DIR is its own (drop --unit)" : "");
    if (own)
        return cli_usage_error("%s: --unit is for a module's DIR; %s holds %s over %s, its own unit (drop --unit)", cmd,
                               dir, d->man.module, alg);
    for (int s = 0; s <= d->res.max_s; s++) {
        int need = report_row_last_stem(&d->res, s);
        int have = s <= u->res.max_s ? report_row_last_stem(&u->res, s) : -1;
        if (need >= 0 && have < need)
            return cli_usage_error("%s: --unit %s resolves %s at s=%d only through stem %d; %s needs stem %d there "
                                   "(resolve the unit further)", cmd, unitdir, u->man.module, s, have, dir, need);
    }
    return 0;
}

int resolved_open_unit(const char *cmd, const char *dir, const opened_dir *d, const char *unitdir, opened_dir *u,
                       int *have_unit)
{
    char alg[96];
    algebra_describe(alg, sizeof alg, &d->res.A.profile);
    int own = resolved_is_unit(d);
    *have_unit = 0;
    if (unitdir && same_directory(dir, unitdir)) {
        if (own) return 0;
        return cli_usage_error("%s: --unit %s is DIR itself, a resolution of %s: the unit is F2 over %s", cmd, unitdir,
                               d->man.module, alg);
    }
    if (!unitdir) {
        if (own) return 0;
        return cli_usage_error("%s: %s holds a resolution of %s over %s: give --unit UNITDIR, a resolution of F2 over "
                               "%s%s over the same range", cmd, dir, d->man.module, alg, alg,
                               strcmp(alg, "A") ? "" : " (S_2)");
    }
    int rc = resolved_open(cmd, unitdir, u, d->res.prime != 2);
    if (rc) return rc;
    if ((rc = unit_mismatch(cmd, dir, d, unitdir, u, alg, own)) != 0) {
        resolved_close(u);
        return rc;
    }
    *have_unit = 1;
    return 0;
}

int resolved_add_class(const char *cmd, const char *value, uint32_t p, product_class *classes, const char **names,
                       int *n)
{
    char err[600];
    if (*n == RESOLVED_MAX_CLASSES) return cli_usage_error("%s: at most %d classes at once", cmd, RESOLVED_MAX_CLASSES);
    product_class *c = &classes[*n];
    if (products_parse_class_p(value, p, c, err, sizeof err) != 0) return cli_usage_error("%s: %s", cmd, err);
    for (int k = 0; k < *n; k++)
        if (!strcmp(classes[k].name, c->name)) return cli_usage_error("%s: two classes named '%s'", cmd, c->name);
    names[(*n)++] = c->name;
    return 0;
}

void resolved_close_maps(products_module_map *pmaps, int nmap)
{
    for (int k = 0; k < nmap; k++) products_map_clear(&pmaps[k]);
}

int resolved_open_map_target(const char *dir, opened_dir *d, const char *target, opened_dir *u, int *have_unit,
                             products_module_map *pmaps, const char *const *files, int nmap)
{
    *have_unit = 0;
    if (target && !same_directory(dir, target)) {
        /* (opened either way, so that a stable source with an unstable target is told what is
         * wrong, not that products reads no unstable directory) */
        int rc = resolved_open("products", target, u, RESOLVED_UNSTABLE_OK | (d->res.prime != 2 ? RESOLVED_ODD_OK : 0));
        if (rc) return rc;
        *have_unit = 1;
        if (u->res.prime != d->res.prime || !fdm_same_odd_algebra(&u->fdm, &d->fdm)) {
            uint32_t up = u->res.prime;
            resolved_close(u);
            *have_unit = 0;
            return cli_usage_error("products: --map: %s is at p = %u%s and %s at p = %u: both over the same algebra",
                                   target, up, up == d->res.prime ? " over another profile" : "", dir, d->res.prime);
        }
        if (u->res.unstable != d->res.unstable) {
            resolved_close(u);
            *have_unit = 0;
            return cli_usage_error("products: --map: %s is %s and %s is not: both or neither",
                                   d->res.unstable ? dir : target, "unstable", d->res.unstable ? target : dir);
        }
    }
    const opened_dir *t = *have_unit ? u : d;
    char err[4700];
    for (int k = 0; k < nmap; k++) {
        int rc = products_map_load(files[k], &d->res, &d->fdm, &t->res, &t->fdm, &pmaps[k], err, sizeof err);
        if (rc) {
            resolved_close_maps(pmaps, k + 1);
            if (*have_unit) resolved_close(u);
            *have_unit = 0;
            if (rt_mpi_rank() == 0) fprintf(stderr, "extflow: products: --map %s\n", err);
            return rc == -1 ? 2 : 1;     /* a refusal (one line), or the file unreadable */
        }
    }
    return 0;
}

int resolved_check_class(const char *cmd, const product_class *c, const resolution *res, const run_manifest *man,
                         const char *dir)
{
    char where[64];
    region_describe(where, sizeof where, &man->complete, res->shift);
    int n = c->n + (int)res->shift;   /* c->n is internal; messages in the module's stems */
    if (c->n < 0 || c->s > res->max_s || c->n > report_row_last_stem(res, c->s))
        return cli_usage_error("%s: class %s at (n=%d, s=%d) lies outside %s's resolved region (%s)", cmd, c->name, n,
                               c->s, dir, where);
    uint32_t dim = res_ngens(res, c->s, c->n + c->s);
    if (dim == 0) return cli_usage_error("%s: class %s: Ext at (n=%d, s=%d) is zero", cmd, c->name, n, c->s);
    if (c->len != dim)
        return cli_usage_error("%s: class %s: %u coordinates given, but Ext at (n=%d, s=%d) has dimension %u", cmd,
                               c->name, c->len, n, c->s, dim);
    return 0;
}

int resolved_write(const char *dir, const char *name, int (*write_fn)(FILE *, void *), void *ctx)
{
    char err[4600];
    if (outdir_write(dir, name, write_fn, ctx, err, sizeof err) == 0) return 0;
    fprintf(stderr, "extflow: %s\n", err);
    return 1;
}

struct bytes { const char *p; size_t len; };
static int write_bytes(FILE *f, void *ctx)
{
    const struct bytes *b = ctx;
    return fwrite(b->p, 1, b->len, f) == b->len ? 0 : -1;
}
int resolved_write_bytes(const char *dir, const char *name, const char *p, size_t len)
{
    struct bytes b = { p, len };
    return resolved_write(dir, name, write_bytes, &b);
}

int resolved_write_table(const char *dir, const char *name, const opened_dir *d, int merged,
                         int (*write_fn)(FILE *, void *), void *ctx)
{
    char err[4600];
    int rc = resolved_write(dir, name, write_fn, ctx);
    if (rc || merged) return rc;
    if (manifest_table_note(dir, name, &d->man.complete, err, sizeof err) == 0) return 0;
    fprintf(stderr, "extflow: %s\n", err);
    return 1;
}

int resolved_has(const char *dir, const char *name)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

int resolved_write_sseq(const char *dir, const char *name, int asked, int (*write_fn)(FILE *, void *), void *ctx)
{
    return asked || resolved_has(dir, name) ? resolved_write(dir, name, write_fn, ctx) : 0;
}

/* charts[first..2) written again. */
static int write_charts(const char *dir, const resolution *res, int first)
{
    static const char *charts[] = { "chart.svg", "chart.html" };
    for (int k = first; k < 2; k++)
        if (report_write_file(dir, charts[k], res, k ? chart_write_html : chart_write_svg) != 0) {
            fprintf(stderr, "extflow: cannot write %s/%s: %s\n", dir, charts[k], strerror(errno));
            return 1;
        }
    return 0;
}

int resolved_write_charts(const char *dir, const resolution *res) { return write_charts(dir, res, 0); }
int resolved_write_html(const char *dir, const resolution *res) { return write_charts(dir, res, 1); }
