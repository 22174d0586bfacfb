/* extflow products DIR --class C ...: lifts the classes over DIR's resolution to chain maps
 * and reads off their products (stages/products/lift.h, stages/products/products.h). */
#include <stdlib.h>
#include <string.h>
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "runtime/rt_mpi.h"
#include "runtime/runpolicy.h"
#include "stages/resolve/report.h"
#include "stages/store/stagefile.h"
#include "tools/resolved.h"

static product_class classes[RESOLVED_MAX_CLASSES];    /* a map's entry holds only its name */
static const char *names[RESOLVED_MAX_CLASSES], *values[RESOLVED_MAX_CLASSES];
static int nvalues, nclasses;
static products_module_map pmaps[RESOLVED_MAX_CLASSES];
static const char *map_files[RESOLVED_MAX_CLASSES];
static int nmap;

/* A name not yet taken by a map of this run (classes are checked when parsed). */
static int name_unused(const char *name)
{
    for (int k = 0; k < nclasses; k++)
        if (!strcmp(classes[k].name, name)) return cli_usage_error("products: two classes named '%s'", name);
    return 0;
}

/* --class C, in the order given: kept, and parsed once DIR's prime is known (parse_classes). */
static int add_class(const char *value)
{
    if (nvalues == RESOLVED_MAX_CLASSES)
        return cli_usage_error("products: at most %d classes at once", RESOLVED_MAX_CLASSES);
    values[nvalues++] = value;
    return 0;
}

/* The --class values parsed at DIR's prime (coordinates and bare names depend on it), names
 * distinct: 0, or 2 after a usage error. */
static int parse_classes(const char *dir)
{
    uint32_t prime = manifest_prime(dir);
    for (int k = 0; k < nvalues; k++) {
        int rc = resolved_add_class("products", values[k], prime, classes, names, &nclasses);
        if (rc) return rc;
    }
    return 0;
}

/* --map NAME=FILE, in the order given: the name as a class's, the file read once DIR is open. */
static int add_map(const char *value)
{
    char err[600];
    if (nclasses == RESOLVED_MAX_CLASSES)
        return cli_usage_error("products: at most %d classes or maps at once", RESOLVED_MAX_CLASSES);
    const char *eq = strchr(value, '=');
    if (!eq || !eq[1]) return cli_usage_error("products: --map '%.80s': expected NAME=FILE", value);
    if (products_check_name(value, (size_t)(eq - value), "map", err, sizeof err) != 0)
        return cli_usage_error("products: %s", err);
    product_class *c = &classes[nclasses];
    memset(c, 0, sizeof *c);
    memcpy(c->name, value, (size_t)(eq - value));
    int rc = name_unused(c->name);
    if (rc) return rc;
    map_files[nmap++] = eq + 1;
    names[nclasses++] = c->name;
    return 0;
}

enum { UNIT, MAP, TARGET, CLASS, FILTRATION_ONE, SSEQ, CHART, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [UNIT] = { "unit", "UNITDIR", "(a module's DIR only, required there) a resolution of F2 over DIR's algebra "
               "covering DIR's region: S_2 over A, ko over A(1), tmf2 over A(2); a unit over another algebra is "
               "refused", NULL, NULL },
    [MAP] = { "map", "NAME=FILE", "instead of classes: the map of modules M -> N of the map file FILE "
              "({\"degree\": d, \"images\": {...}}, docs/modules.md), M DIR's module, N TARGETDIR's, lifted to a "
              "chain map: the induced map Ext(N, F_p) -> Ext(M, F_p) into DIR/maps.csv (as products.csv, name_n = -d). "
              "At an odd prime the images are sums of classes (coefficients 1). A map that is not A-linear (A_p-linear) "
              "or not of degree d is refused (exit 2); repeatable", add_map, NULL },
    [TARGET] = { "target", "TARGETDIR", "(with --map) a resolution of N over DIR's algebra at DIR's prime (default "
                 "DIR); over the unstable algebra when DIR's is (resolve --unstable: the suspension S^n -> S^(n+1) is "
                 "the map of degree -1 from S_p[n+1] to S_p[n], docs/unstable.md)", NULL, NULL },
    [CLASS] = { "class", "C", "NAME=n,s[,vector]: the class of Ext^{s,n+s} with these coordinates over the "
                "generators there, as [1,0] or 10 (default [1]); or a bare h0..h7. NAME: letters, digits, _ . ^ + - "
                "(at most 63); up to 64 classes", add_class, NULL },
    [FILTRATION_ONE] = { "filtration-one", NULL, "instead of classes: every class of Ext^1 in DIR's region (the h_j, "
                         "and a0 at an odd prime), each lifted, so that products.csv holds every h_j product of every "
                         "class (a class x_(n,1,i) that has no such name is called x_n_1_i), for a DIR that is its own "
                         "unit (S_2, ko, tmf2, S_3, ...); over a module's DIR (p = 2, no --unit) the h_j products on "
                         "Ext(M) read off DIR's differentials, nothing lifted", NULL, NULL },
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/lift_hom-NAME.txt per class: sseq's lift_hom output; with "
               "--map from S^k to S^(k-1) (unstable, degree -1) also DIR/unstable_suspension.txt: sseq's "
               "unstable_suspension lines for shift k (S^1's with S^0's block first; S^1's, S^2's, ... in turn are "
               "its whole output); with --filtration-one at p = 2 also DIR/filtration_one.txt: sseq's filtration_one output", NULL, NULL },
    [CHART] = { "chart-products", "L", "the product lines DIR/chart.svg draws (rewritten, with chart.html): h0, h1, "
                "h2 and classes of this run, comma-separated (default h0,h1,h2); chart.html has every layer, and "
                "names a class c0, Ph1, ... where a lifted class's bidegree holds only it", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for resolve: steps start only while their predicted memory fits (default: "
                 "80% of the available memory)", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "as for resolve: after SEC seconds no step starts; exit 3 with no table "
                     "written; a rerun resumes from the steps' stage files", NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line and no closing summary", NULL, NULL },
};

struct products_out {
    const lift_set *set;
    int m;
    const char *kept;       /* earlier runs' rows of other classes (products_read_kept) */
    size_t keptlen;
};
static int write_csv(FILE *f, void *ctx)
{
    struct products_out *o = ctx;
    return products_write_csv(f, o->set, names, o->kept, o->keptlen);
}
/* --filtration-one --sseq-formats at p = 2 over an own unit: the h_j read off their lifts. */
struct lifted_hj { const lift_set *set; int hmap[32]; };
static uint32_t lifted_dim(void *ctx, int j, int n, int s)
{
    const struct lifted_hj *h = ctx;
    int m = h->hmap[j];
    if (m < 0 || !lift_map_in_region(h->set, m, s, n + s)) return 0;
    const lift_map *f = &h->set->maps[m];
    return res_ngens(h->set->src, f->s0 + s, n + s + f->t0);
}
static uint32_t lifted_coef(void *ctx, int j, int n, int s, uint32_t i, uint32_t k)
{
    const struct lifted_hj *h = ctx;
    return lift_product_coef(h->set, h->hmap[j], s, n + s, i, k);
}
static int write_filtration_one(FILE *f, void *ctx)
{
    struct products_out *o = ctx;
    struct lifted_hj h = { o->set, { 0 } };
    int nh = 0;
    for (int k = 0; k < nclasses; k++) {
        int j;
        char end;
        if (sscanf(classes[k].name, "h%d%c", &j, &end) == 1 && j >= 0 && j < 32) {
            while (nh <= j) h.hmap[nh++] = -1;
            h.hmap[j] = k;
        }
    }
    products_hj hj = { &h, lifted_dim, lifted_coef };
    return products_write_filtration_one(f, o->set->tgt, nh, &hj);
}

static int write_lift_hom(FILE *f, void *ctx)
{
    struct products_out *o = ctx;
    return products_write_lift_hom(f, o->set, o->m, names[o->m]);
}

/* A map S^k -> S^(k-1) between unstable resolutions of spheres at p = 2, of degree -1 (the
 * suspension of docs/unstable.md): sseq's unstable_suspension block is written for it. */
static int suspension_pair(const lift_set *set)
{
    const resolution *a = set->src, *b = set->tgt;
    int ka = a->module ? (int)a->module->min_deg : 0, kb = b->module ? (int)b->module->min_deg : 0;
    return a->unstable && b->unstable && a->prime == 2 && !strncmp(a->module_name, "S_2", 3) &&
           !strncmp(b->module_name, "S_2", 3) && ka == kb + 1 && set->maps[0].s0 == 0 &&
           set->maps[0].t0 == (deg_t)(1 + b->shift - a->shift);
}

static int write_suspension(FILE *f, void *ctx)
{
    struct products_out *o = ctx;
    return products_write_unstable_suspension(f, o->set, 0);
}

/* --chart-products: h0, h1, h2 or classes of this run, comma-separated, into chart. */
static int chart_list(char *chart, size_t size)
{
    const char *arg = opts[CHART].arg;
    if (!arg) return 0;
    if (strlen(arg) >= size) return cli_usage_error("products: --chart-products: list too long");
    snprintf(chart, size, "%s", arg);
    char list[sizeof ((resolution *)0)->chart_products];
    snprintf(list, sizeof list, "%s", chart);
    for (char *save = NULL, *nm = strtok_r(list, ",", &save); nm; nm = strtok_r(NULL, ",", &save)) {
        int known = !strcmp(nm, "h0") || !strcmp(nm, "h1") || !strcmp(nm, "h2");
        for (int k = 0; k < nclasses && !known; k++) known = !strcmp(nm, classes[k].name);
        if (!known) return cli_usage_error("products: --chart-products: '%s' is neither h0, h1, h2 nor a --class of "
                                           "this run", nm);
    }
    return 0;
}

/* The lifts of every class (pass 1; under N ranks first pass 0, where rank r lifts the classes
 * k = r mod N into their stage files, then rank 0 lifts them all, which loads what the ranks
 * computed): 0, 1 or 3; *set holds rank 0's lifts when have_set. */
static int lift_all(lift_set *set, int *have_set, resolution *res, resolution *unit, const char *dir,
                    const chain_policy *limits, int rc)
{
    int rank = rt_mpi_rank(), nranks = rt_mpi_size();
    for (int pass = nranks > 1 ? 0 : 1; pass < 2; pass++) {
        if (pass == 1 && nranks > 1) {
            int mine = rc;
            rc = rt_mpi_max(rc);
            if (rank == 0 && rc && !mine)
                fprintf(stderr, "extflow: products: another rank %s (the finished lift bidegrees are kept; rerun to "
                        "resume)\n", rc == 3 ? "stopped" : "failed");
            if (rank != 0) break;
        }
        if (rc) break;
        *have_set = 1;
        int setup = lift_set_init(set, res, unit, dir) != 0;
        set->timing = getenv("EXTFLOW_STATS") != NULL;
        set->any_preimage = 1;                    /* products do not depend on the preimages */
        for (int k = 0; k < nclasses && !setup; k++)
            if ((pass == 1 || k % nranks == rank) && nmap)
                setup = products_add_module_map(set, &pmaps[k]) < 0;
            else if (pass == 1 || k % nranks == rank)
                setup = lift_add_class(set, classes[k].s, classes[k].n + classes[k].s, classes[k].coords,
                                       classes[k].len) < 0;
        if (setup) {
            fprintf(stderr, "extflow: out of memory (or cannot create %s/stages/lift) setting up the lifts\n", dir);
            rc = 1;
        } else {
            uint64_t cuda0, cuda1, mod4;
            rt_chain_cuda_pairs(&cuda0, &mod4);
            chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg || pass == 0, "lift steps");
            int lr = lift_run(set, &runner);
            rt_chain_cuda_pairs(&cuda1, &mod4);
            set->pairs_cuda = cuda1 - cuda0;
            if (lr < 0) fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n", set->fail.msg);
            rc = lr == 1 ? runpolicy_stopped("products", dir, limits, set->computed) : lr != 0;
        }
        if (pass == 0) {
            lift_set_clear(set);
            *have_set = 0;
        }
    }
    return rc;
}

/* The closing lines (stderr): what was lifted, and under EXTFLOW_STATS where the time went. */
static void report(const lift_set *set, const resolution *res, const char *dir, const char *table, double seconds)
{
    if (!opts[QUIET].arg && rt_mpi_size() > 1)
        fprintf(stderr, "extflow: the %s were lifted by %d ranks, each into its stage files; rank 0 loaded "
                "them:\n", nmap ? "maps" : "classes", rt_mpi_size());
    if (!opts[QUIET].arg)
        fprintf(stderr, "extflow: %d %s lifted over %s (%s): %ld bidegrees computed, %ld loaded, %ld solves of d "
                "in %.1f s; %.1f s in all; table %s/%s\n", nclasses,
                nmap ? nclasses > 1 ? "maps" : "map" : nclasses > 1 ? "classes" : "class", dir,
                stage_algorithm_name(res->algorithm), set->computed, set->loaded, set->qis, set->qi_seconds,
                seconds, dir, table);
    if (!set->timing) return;
    fprintf(stderr, "extflow: lift CPU s: products f(d z) %.2f, solves %.2f (%ld of %ld by signature blocks), "
            "stage files %.2f\n", set->cpu_products, set->cpu_solves, set->qis_by_signature, set->qis, set->cpu_files);
    double all = set->pairs ? (double)set->pairs : 1;
    fprintf(stderr, "extflow: lift Milnor products: %llu (job x term) pairs, %.1f%% inline in the lift's own "
            "tasks, %.1f%% on CPU workers' and %.1f%% on CUDA workers' multiply tasks\n",
            (unsigned long long)set->pairs, 100.0 * (double)set->pairs_inline / all,
            100.0 * (double)(set->pairs - set->pairs_inline - set->pairs_cuda) / all,
            100.0 * (double)set->pairs_cuda / all);
}

/* --filtration-one: each generator of F_1 in the region (a basis of Ext^1) as a class, named as
 * the bare classes are (h_j at t = 2^j, or q p^j at an odd prime; a0 at t = 1) where it is the
 * only one of its degree, else x_n_1_i. 0, or 2 after a usage error. */
static int filtration_one_classes(const resolution *res, const char *dir)
{
    int last = report_row_last_stem(res, 1);
    uint32_t q = res->prime == 2 ? 1 : 2 * (res->prime - 1);
    for (int n = 0; n <= last; n++) {
        deg_t t = n + 1;
        uint32_t dim = res_ngens(res, 1, t);
        int j = -1;
        for (uint64_t pj = 1, k = 0; q * pj <= (uint64_t)t; pj *= res->prime, k++)
            if (q * pj == (uint64_t)t) j = (int)k;
        for (uint32_t i = 0; i < dim; i++) {
            if (nclasses == RESOLVED_MAX_CLASSES)
                return cli_usage_error("products: --filtration-one: %s has more than %d classes in Ext^1", dir,
                                       RESOLVED_MAX_CLASSES);
            product_class *c = &classes[nclasses];
            memset(c, 0, sizeof *c);
            if (dim == 1 && res->prime != 2 && t == 1) snprintf(c->name, sizeof c->name, "a0");
            else if (dim == 1 && j >= 0) snprintf(c->name, sizeof c->name, "h%d", j);
            else snprintf(c->name, sizeof c->name, "x_%d_1_%u", n + (int)res->shift, i);
            c->n = n, c->s = 1, c->len = dim, c->coords[i] = 1;
            names[nclasses++] = c->name;
        }
    }
    if (!nclasses) return cli_usage_error("products: --filtration-one: Ext^1 is zero in %s's region", dir);
    return 0;
}

struct hj_out { const resolution *res; int nh; const char *kept; size_t keptlen; };
static int write_hj_csv(FILE *f, void *ctx)
{
    struct hj_out *o = ctx;
    return products_write_hj_csv(f, o->res, o->nh, o->kept, o->keptlen);
}
static int write_hj_text(FILE *f, void *ctx)
{
    struct hj_out *o = ctx;
    products_hj hj = products_hj_differentials(o->res);
    return products_write_filtration_one(f, o->res, o->nh, &hj);
}

/* --filtration-one over a module's DIR (p = 2): h_j acting on Ext(M), read off DIR's own
 * differentials (nothing lifted, no unit): products.csv (earlier rows of other names kept), with
 * --sseq-formats filtration_one.txt, and the charts. Closes d. */
static int filtration_one_module(const char *dir, opened_dir *d, const char *chart, double began)
{
    resolution *res = &d->res;
    int nh = products_hj_count(res), rc = 0;
    char hn[16][12], tpath[4400], err[600];
    const char *hnames[16];
    char *kept = NULL;
    size_t keptlen = 0;
    if (opts[UNIT].arg)
        rc = cli_usage_error("products: --filtration-one over a module reads the module's own differentials: no --unit");
    else if (res->prime != 2)
        rc = cli_usage_error("products: --filtration-one: %s holds %s at p = %u; over a module only at p = 2", dir,
                             d->man.module, res->prime);
    else if (nh == 0)
        rc = cli_usage_error("products: --filtration-one: no h_j acts in %s's region", dir);
    for (int j = 0; j < nh; j++) snprintf(hn[j], sizeof hn[j], "h%d", j), hnames[j] = hn[j];
    snprintf(tpath, sizeof tpath, "%s/products.csv", dir);
    if (!rc) {
        int krc = products_read_kept(tpath, 2, hnames, nh, &kept, &keptlen, err, sizeof err);
        if (krc == -2) fprintf(stderr, "extflow: products: %s: refused, nothing computed (move the file away)\n", err);
        else if (krc) fprintf(stderr, "extflow: %s\n", err);
        rc = krc == -2 ? 2 : krc ? 1 : 0;
    }
    struct hj_out out = { res, nh, kept, keptlen };
    if (!rc) rc = resolved_write_table(dir, "products.csv", d, keptlen > 0, write_hj_csv, &out);
    if (!rc) rc = resolved_write_sseq(dir, "filtration_one.txt", opts[SSEQ].arg != NULL, write_hj_text, &out);
    snprintf(res->chart_products, sizeof res->chart_products, "%s", chart);
    if (!rc) rc = resolved_write_charts(dir, res);
    if (!rc && !opts[QUIET].arg)
        fprintf(stderr, "extflow: h0..h%d on Ext(%s) read off %s's differentials in %.1f s; table %s/products.csv\n",
                nh - 1, d->man.module, dir, clock_now() - began, dir);
    free(kept);
    resolved_close(d);
    return rc;
}

static int run_products(const char **operands, int n)
{
    double began = clock_now();
    if (n != 1) return cli_usage_error("products: DIR expected");
    int filt = opts[FILTRATION_ONE].arg != NULL;
    if (filt && (nvalues || nmap)) return cli_usage_error("products: --filtration-one lifts its own classes: no --%s with it", nmap ? "map" : "class");
    if (!nvalues && !nmap && !filt) return cli_usage_error("products: give at least one --class (or --map, or --filtration-one)");
    if (nmap && nvalues) return cli_usage_error("products: --class and --map: one kind at a time");
    if (nmap && (opts[UNIT].arg || opts[CHART].arg))
        return cli_usage_error("products: --map takes --target, not %s", opts[UNIT].arg ? "--unit" : "--chart-products");
    if (!nmap && opts[TARGET].arg) return cli_usage_error("products: --target is for --map");
    const char *dir = operands[0];
    chain_policy limits;
    char chart[sizeof ((resolution *)0)->chart_products] = "h0,h1,h2", err[600];
    int prc;
    if ((prc = parse_classes(dir)) || (prc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits)) || (prc = chart_list(chart, sizeof chart)))
        return prc;
    static opened_dir d, u;
    int have_unit;
    if ((prc = resolved_open("products", dir, &d, RESOLVED_ODD_OK | (nmap ? RESOLVED_UNSTABLE_OK : 0))) != 0) return prc;
    if (filt && !resolved_is_unit(&d)) return filtration_one_module(dir, &d, chart, began);
    resolution *res = &d.res;
    if (nmap) prc = resolved_open_map_target(dir, &d, opts[TARGET].arg, &u, &have_unit, pmaps, map_files, nmap);
    else prc = resolved_open_unit("products", dir, &d, opts[UNIT].arg, &u, &have_unit);
    for (int k = 0; k < nclasses && !prc && !nmap; k++) {   /* stems as the module's degrees give them -> internal */
        classes[k].n -= res->shift;
        prc = resolved_check_class("products", &classes[k], res, &d.man, dir);
    }
    if (!prc && have_unit && opts[CHART].arg) prc = cli_usage_error("products: --chart-products: not for a module's DIR");
    if (!prc && filt) prc = filtration_one_classes(res, dir);
    /* over a module the rows multiply M's classes by S_2's: not the chart's lines, another file;
     * a map's rows are its induced map */
    const char *table = nmap ? "maps.csv" : have_unit ? "module-products.csv" : "products.csv";
    char *kept = NULL, tpath[4400];
    size_t keptlen = 0;
    snprintf(tpath, sizeof tpath, "%s/%s", dir, table);
    if (!prc) {   /* an earlier run's table: its other classes' rows are kept (schema/products-csv.md) */
        int krc = products_read_kept(tpath, res->prime, names, nclasses, &kept, &keptlen, err, sizeof err);
        if (krc == -2) fprintf(stderr, "extflow: products: %s: refused, nothing computed (move the file away)\n", err);
        else if (krc) fprintf(stderr, "extflow: %s\n", err);
        prc = krc == -2 ? 2 : krc ? 1 : 0;
    }
    if (prc) {
        resolved_close_maps(pmaps, nmap);
        resolved_close_both(&d, &u, have_unit);
        return prc;
    }
    double t0 = clock_now();
    lift_set set;
    memset(&set, 0, sizeof set);
    int rc = 0, have_set = 0, started = rt_init(0, err, sizeof err) == 0;
    if (!started) {
        fprintf(stderr, "extflow: %s\n", err);
        rc = 1;
    }
    rc = lift_all(&set, &have_set, res, have_unit ? &u.res : res, dir, &limits, rc);
    if (started) rt_shutdown();
    if (rt_mpi_rank() == 0 && have_set) {       /* rank 0 writes the tables, from the lifts of all classes */
        struct products_out out = { &set, 0, kept, keptlen };
        if (!rc) rc = resolved_write_table(dir, table, &d, keptlen > 0, write_csv, &out);
        snprintf(res->chart_products, sizeof res->chart_products, "%s", chart);
        if (!rc && !have_unit && !nmap) rc = resolved_write_charts(dir, res);    /* they draw products.csv */
        for (int k = 0; k < nclasses && !rc; k++) {
            char name[128];
            snprintf(name, sizeof name, "lift_hom-%.63s.txt", classes[k].name);
            out.m = k;
            rc = resolved_write_sseq(dir, name, opts[SSEQ].arg != NULL, write_lift_hom, &out);
        }
        if (!rc && nmap == 1 && suspension_pair(&set))
            rc = resolved_write_sseq(dir, "unstable_suspension.txt", opts[SSEQ].arg != NULL, write_suspension, &out);
        if (!rc && opts[FILTRATION_ONE].arg && res->prime == 2)
            rc = resolved_write_sseq(dir, "filtration_one.txt", opts[SSEQ].arg != NULL, write_filtration_one, &out);
        if (!rc) report(&set, res, dir, table, clock_now() - t0);
    }
    if (have_set) lift_set_clear(&set);
    free(kept);
    resolved_close_maps(pmaps, nmap);
    resolved_close_both(&d, &u, have_unit);
    return rc;
}

/* The run, then the classes and maps of its options forgotten: a process may run products
 * again (extflow serve lifts each new product type so). */
static int run(const char **operands, int n)
{
    int rc = run_products(operands, n);
    nvalues = nclasses = nmap = 0;
    return rc;
}

const cli_command cmd_products = {
    "products",
    "DIR --class C [--class C ...]: products with the classes C over the resolution of the sphere in DIR (from "
    "resolve, either algorithm), by lifting each class to a chain map; writes DIR/products.csv "
    "(name,name_n,name_s,n,s,i,k: the coefficient of x_(n+name_n, s+name_s, k) in name · x_(n,s,i) is 1; the chart "
    "draws it) and the lifts' stage files under DIR/stages/lift/ (a rerun resumes from them). Over a module M the "
    "classes are of Ext(M, F2), lifted into a resolution of the unit F2: the table is DIR/module-products.csv "
    "(x_(n,s,i) of the unit times name, in M's Ext). F2 over a profile's algebra (ko, tmf2) is its own unit, as S_2 "
    "is. A table from an earlier run keeps its rows of other classes, first and in their order; this run's classes "
    "replace their rows, after them. A table whose first line is not that header, or with a line that is no such "
    "row, is refused (exit 2) before anything is lifted. At an odd prime p the coordinates are 0..p-1, the bare "
    "classes a0 (0,1) and h_j (2(p-1)p^j - 1, 1), and the tables have a last column c: the coefficient 1..p-1 "
    "(header name,name_n,name_s,n,s,i,k,c)",
    opts, 1, CLI_SHARED, run,
};
