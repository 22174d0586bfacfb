/* extflow d2 DIR: the Adams d2 over DIR's resolved region from the secondary Steenrod algebra
 * (stages/d2/secondary.h), and --product C: C's products in Mod_{Cλ²} (stages/d2/secondary_product.h). */
#include <stdlib.h>
#include <string.h>
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/rt_chain.h"
#include "runtime/rt_mpi.h"
#include "runtime/runpolicy.h"
#include "stages/d2/secondary.h"
#include "stages/d2/secondary_product.h"
#include "tools/resolved.h"

enum { SSEQ, PRODUCT, UNIT, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/secondary.txt, as sseq's secondary example prints it", NULL, NULL },
    [PRODUCT] = { "product", "C", "also the products of the class C of DIR's Ext (NAME=n,s[,vector] or h0..h7; "
                  "it must survive d2) with the classes of Ext(S_2) that survive d2, in Mod_{Cλ²}: "
                  "DIR/secondary_product-NAME.txt, as sseq's secondary_product example prints them (h_j for a bare "
                  "hj). Over a module's DIR it needs --unit", NULL, NULL },
    [UNIT] = { "unit", "UNITDIR", "with --product over a module's DIR (required there): a resolution of S_2 covering "
               "DIR's region, whose classes multiply C; its own d2 homotopy is computed, or resumed, under "
               "UNITDIR/stages/lift/d2/", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for products", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "as for products", NULL, NULL },
    [QUIET] = { "quiet", NULL, "as for products", NULL, NULL },
};

static int write_d2_csv(FILE *f, void *ctx) { return secondary_write_csv(f, ctx); }
static int write_d2_sseq(FILE *f, void *ctx) { return secondary_write_sseq(f, ctx); }

struct sp_out {
    const sec_product *p;
    const char *name;
};
static int write_sp(FILE *f, void *ctx)
{
    const struct sp_out *o = ctx;
    return sec_product_write(f, o->p, o->name);
}

/* d2 --product: the class's products in Mod_{Cλ²} (with the classes of unit's resolution, sec's
 * own for S_2) into DIR/secondary_product-NAME.txt; 0, 1 on a
 * failure, 2 after a usage error (a class that supports a d2), 3 stopped at the time limit. */
static sec_product p;           /* the product (set up by product_first, or by d2_product) */
static int p_set;

/* Over S_2 in one process: the product's f before d2 (f reads nothing of it), so that d2's
 * composites keep the planes their readers see, d z over d2's steps and f z over H's
 * (sec->planes_all), and not a degree bound. 0, or the exit status after one line. */
static int product_first(secondary *sec, const product_class *c, const char *dir, const chain_policy *limits)
{
    char err[300];
    resolved_d2_ways(sec);              /* (the product's lifts take them at their set-up) */
    p_set = 1;
    if (sec_product_init(&p, sec, sec, c->s, c->n + c->s, c->coords, c->len, dir, err, sizeof err) != 0 ||
        rt_init_local(0, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg != NULL, "secondary product steps");
    int pr = sec_product_run_prim(&p, &runner);
    rt_shutdown_local();
    if (pr == 1) return runpolicy_stopped("d2 --product", dir, limits, p.prim.computed);
    if (pr) {
        fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n", p.prim.fail.msg);
        return 1;
    }
    sec_planes_free(sec->planes_all, sec->res);
    if (!(sec->planes_all = sec_planes_of_d(sec->res, secondary_step_reads, sec))) {
        fprintf(stderr, "extflow: out of memory setting up d2's composites\n");
        return 1;
    }
    sec_product_planes_of_f(&p, sec->planes_all);
    return 0;
}

static int d2_product(const char *dir, secondary *sec, secondary *unit, const product_class *c,
                      const chain_runner *runner)
{
    char err[300];
    int rc = 0;
    if (!p_set && sec_product_init(&p, sec, unit, c->s, c->n + c->s, c->coords, c->len, dir, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        sec_product_clear(&p);
        return 1;
    }
    if (!sec_product_survives(&p)) rc = cli_usage_error("d2: --product: %s supports a non-zero d2 (see d2.csv)", c->name);
    else if (rt_init_local(0, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        rc = 1;
    } else {
        int pr = sec_product_run(&p, runner);
        rt_shutdown_local();
        resolved_lift_report("d2's homotopy", &sec->set);
        resolved_lift_report("f", &p.prim);
        resolved_lift_report("H", &p.hom);
        resolved_qi_report(sec);
        rc = pr == 1 ? runpolicy_stopped("d2 --product", dir, &runner->policy, p.prim.computed + p.hom.computed) : pr != 0;
        if (pr < 0)
            fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n",
                    p.fail.set ? p.fail.msg : p.prim.fail.set ? p.prim.fail.msg : p.hom.fail.msg);
    }
    char name[80], file[128];
    if (c->name[0] == 'h' && c->name[1] >= '0' && c->name[1] <= '9' && !c->name[2])   /* sseq's h_j */
        snprintf(name, sizeof name, "h_%c", c->name[1]);
    else snprintf(name, sizeof name, "%s", c->name);
    snprintf(file, sizeof file, "secondary_product-%s.txt", c->name);
    struct sp_out out = { &p, name };
    if (!rc) rc = resolved_write(dir, file, write_sp, &out);
    sec_product_clear(&p);
    return rc;
}

/* What each rank of d2 under mpirun sends rank 0 before its composites (or its error). */
typedef struct d2_share {
    int status;                 /* 0; 1 failed (the message follows); 3 stopped at the time limit */
    long cells, gens;           /* composite cells and generators it computed */
    uint64_t pairs, cuda;       /* their mod-4 products, those on CUDA workers */
    double seconds;
} d2_share;

/* d2 under N > 1 ranks (docs/cluster.md): the composite cells of the run (rank 0's
 * secondary_needed) shared among the ranks, cell (s, T) to rank rt_mpi_owner(OWNER_PAIRS, s,
 * N, max_s); each computes its own as a chain set of the composite layer, and the others send
 * theirs to rank 0 as bytes (secondary_pack_composites), a d2_share in front, where they count
 * as done for the homotopy, which runs there alone. Every rank returns the same: 0, or the exit
 * status after one line from rank 0. */
static int d2_share_composites(secondary *sec, const char *dir, const chain_policy *limits, int quiet)
{
    const resolution *res = sec->res;
    int rank = rt_mpi_rank(), nranks = rt_mpi_size();
    size_t ncells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    uint8_t *cells = calloc(ncells, 1);
    char err[700] = "out of memory sharing the composites", *buf = NULL;
    size_t len = 0;
    d2_share me = { 0 };
    double t0 = clock_now();
    if (rt_mpi_max(!cells)) {
        me.status = 1;
    } else {
        if (rank == 0) secondary_needed(sec, cells);
        rt_mpi_bcast(cells, ncells);
        for (int s = 2; s <= res->max_s; s++)
            for (deg_t T = s; T - s <= res->max_n; T++) {
                uint8_t *c = &cells[res_cell(res, s, T)];
                *c = *c && rt_mpi_owner(OWNER_PAIRS, s, nranks, res->max_s) == rank;
                me.cells += *c, me.gens += *c ? res_ngens(res, s, T) : 0;
            }
        uint64_t cuda0, cuda1, mod2;
        rt_chain_cuda_pairs(&mod2, &cuda0);
        if (rt_init_local(0, err, sizeof err) != 0) {
            me.status = 1;
        } else {
            chain_runner runner = runpolicy_runner(limits, quiet || rank != 0, "composite cells");
            int r = secondary_run_composites(sec, cells, &runner);
            rt_shutdown_local();
            me.status = r == 1 ? 3 : r != 0;
            if (r < 0) snprintf(err, sizeof err, "%s", sec->fail.msg);
        }
        rt_chain_cuda_pairs(&mod2, &cuda1);
        me.pairs = sec->mod4_pairs, me.cuda = cuda1 - cuda0;
    }
    me.seconds = clock_now() - t0;
    FILE *f = open_memstream(&buf, &len);
    int bad = !f || fwrite(&me, sizeof me, 1, f) != 1 ||
              (me.status == 1 ? fputs(err, f) < 0 : !me.status && rank && secondary_pack_composites(sec, cells, f));
    if (f && fclose(f) != 0) bad = 1;
    if (bad) {          /* the head alone, failed (rank 0 reads "out of memory") */
        me.status = 1;
        free(buf);
        buf = malloc(sizeof me);
        len = buf ? sizeof me : 0;
        if (buf) memcpy(buf, &me, sizeof me);
    }
    free(cells);
    void *all;
    size_t *at;
    int rc = rt_mpi_gatherv(buf, len, &all, &at) != 0;
    free(buf);
    if (rank == 0 && rc) fprintf(stderr, "extflow: d2: the composites could not be gathered on rank 0 (out of memory, "
                                 "or 2 GiB or more)\n");
    for (int r = 0; r < nranks && all; r++) {
        const char *p = (const char *)all + at[r];
        size_t n = at[r + 1] - at[r];
        d2_share h = { .status = 1 };
        if (n >= sizeof h) memcpy(&h, p, sizeof h);
        if (getenv("EXTFLOW_STATS"))
            fprintf(stderr, "extflow: rank %d computed %ld composite cells (%ld generators, %.1fM mod-4 products) in "
                    "%.2f s; %.3f MB to rank 0\n", r, h.cells, h.gens, 1e-6 * (double)h.pairs, h.seconds,
                    1e-6 * (double)n);
        if (r) sec->mod4_pairs += h.pairs;
        sec->mod4_pairs_cuda += h.cuda;
        if (h.status == 1 && rc != 1)
            fprintf(stderr, "extflow: rank %d: %.*s (finished homotopy bidegrees are kept; rerun to resume)\n", r,
                    n > sizeof h ? (int)(n - sizeof h) : 13, n > sizeof h ? p + sizeof h : "out of memory");
        rc = h.status == 1 || rc == 1 ? 1 : h.status == 3 ? 3 : rc;
        if (rc || !r || n <= sizeof h) continue;
        FILE *in = fmemopen((void *)(p + sizeof h), n - sizeof h, "r");
        if (!in || secondary_unpack_composites(sec, in) != 0) {
            fprintf(stderr, "extflow: %s\n", in ? sec->fail.msg : "out of memory reading the composites");
            rc = 1;
        }
        if (in) fclose(in);
    }
    if (rank == 0 && rc == 3) runpolicy_stopped("d2", dir, limits, -1);
    free(all);
    free(at);
    rt_mpi_bcast(&rc, sizeof rc);
    return rc;
}


/* The homotopy (secondary_run) on this process: 0, 1, 2 (a module whose first homotopy cannot
 * be zero) or 3, after one line. */
static int homotopy(secondary *sec, const opened_dir *d, const char *dir, const chain_policy *limits)
{
    char err[700];
    if (rt_init_local(0, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    resolved_d2_ways(sec);
    uint64_t cuda0, cuda1, mod2;
    rt_chain_cuda_pairs(&mod2, &cuda0);
    chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg != NULL, "d2 steps");
    int sr = secondary_run(sec, &runner);
    rt_chain_cuda_pairs(&mod2, &cuda1);
    sec->mod4_pairs_cuda += cuda1 - cuda0;
    rt_shutdown_local();
    if (sr == 1) return runpolicy_stopped("d2", dir, limits, sec->set.computed);
    if (!sr) return 0;
    if (d->res.module && !sec->fail.set && strstr(sec->set.fail.msg, "is not in the image of d_1 "))
        return cli_usage_error("d2: %s holds %s, for which the first homotopy cannot be zero (its lift fails at s = 3); "
                               "d2 of such modules is not supported", dir, d->man.module);
    fprintf(stderr, "extflow: %s (finished homotopy bidegrees are kept; rerun to resume)\n",
            sec->fail.set ? sec->fail.msg : sec->set.fail.msg);
    return 1;
}

/* The closing line: how many classes, how many d2 non-zero, the composites and the time. */
static void report(const secondary *sec, const char *dir, double seconds)
{
    const resolution *res = sec->res;
    if (rt_mpi_size() > 1)
        fprintf(stderr, "extflow: the composites were shared among %d ranks and gathered on rank 0, which ran the "
                "homotopy:\n", rt_mpi_size());
    long classes = 0, nonzero = 0;
    for (int n = 0; n <= res->max_n; n++)
        for (int s = 1; s + 2 <= res->max_s; s++)
            if (secondary_in_range(sec, s, n + s))
                for (uint32_t i = 0; i < res_ngens(res, s, n + s); i++) {
                    classes++;
                    for (uint32_t k = 0; k < res_ngens(res, s + 2, n + s + 1); k++)
                        if (secondary_d2_bit(sec, s, n + s, i, k)) {
                            nonzero++;
                            break;
                        }
                }
    uint64_t held, hits, misses;
    size_t bytes;
    pair_m4_memo_stats(sec->m4memo, &held, &hits, &misses, &bytes);
    fprintf(stderr, "extflow: d2 of %ld classes over %s (%ld non-zero): %ld composites (%.1fM mod-4 products, "
            "%.0f%% on CUDA workers, %.0f%% recalled from a %.0f MB memo), %ld homotopy bidegrees computed and %ld "
            "loaded; %.1f s in all; table %s/d2.csv\n", classes, dir, nonzero, sec->composites,
            1e-6 * (double)sec->mod4_pairs,
            sec->mod4_pairs ? 100.0 * (double)sec->mod4_pairs_cuda / (double)sec->mod4_pairs : 0.0,
            sec->mod4_pairs ? 100.0 * (double)hits / (double)sec->mod4_pairs : 0.0, 1e-6 * (double)bytes,
            sec->set.computed, sec->set.loaded, seconds, dir);
}

static int run(const char **operands, int n)
{
    double began = clock_now();
    if (n != 1) return cli_usage_error("d2: DIR expected");
    const char *dir = operands[0];
    static chain_policy limits;
    int prc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits);
    if (prc) return prc;
    char err[700];
    static product_class pc;
    const char *product = opts[PRODUCT].arg;
    if (product && products_parse_class(product, &pc, err, sizeof err) != 0)
        return cli_usage_error("d2: --product: %s", err);
    if (product && pc.s < 1) return cli_usage_error("d2: --product: the class must have s >= 1");
    if (opts[UNIT].arg && !product) return cli_usage_error("d2: --unit goes with --product");
    static opened_dir d, u;
    if ((prc = resolved_open("d2", dir, &d, 0)) != 0) return prc;
    resolution *res = &d.res;
    /* a module's class multiplies the classes of the unit's resolution (UNITDIR) */
    int have_unit = 0;
    if (product && (prc = resolved_open_unit("d2 --product", dir, &d, opts[UNIT].arg, &u, &have_unit)) != 0) {
        resolved_close(&d);
        return prc;
    }
    if (product && (prc = resolved_check_class("d2", &pc, res, &d.man, dir)) != 0) {
        resolved_close_both(&d, &u, have_unit);
        return prc;
    }
    double t0 = clock_now();
    static secondary sec, usec;
    /* several ranks: the others only compute composites (d2_share_composites), no stage file */
    int rank = rt_mpi_rank(), nranks = rt_mpi_size(), sr = secondary_init(&sec, res, rank ? NULL : dir, err, sizeof err);
    if (!sr) sr = resolved_d2_memo(&sec, &limits, err, sizeof err);
    if (rt_mpi_max(sr == -1) && !sr) sr = -1, snprintf(err, sizeof err, "another rank ran out of memory setting up d2");
    int rc = 0, have_usec = 0;
    if (sr == -2) rc = cli_usage_error("d2: %s holds %s: %s", dir, d.man.module, err);
    else if (sr) {
        if (rank == 0) fprintf(stderr, "extflow: %s\n", err);
        rc = 1;
    } else {
        /* the product reads every composite of the unit's resolution, none of a module's */
        sec.all_composites = product && !have_unit;
        /* read by d, the class's f and the product's own terms: under mpirun bounded by stems
         * >= 0 (secondary.h); in one process product_first sets them from f's terms */
        /* every rank agrees before d2_share_composites' collectives (one rank out of memory
         * alone would leave the others waiting there) */
        int bounded = sec.all_composites && nranks > 1 ? secondary_bound_composites(&sec) : 0;
        if (rt_mpi_max(bounded != 0)) {
            if (rank == 0) fprintf(stderr, "extflow: out of memory setting up d2's composites%s\n",
                                   bounded ? "" : " (on another rank)");
            rc = 1;
        }
        if (!rc && nranks > 1) rc = d2_share_composites(&sec, dir, &limits, opts[QUIET].arg != NULL);
        /* d2 read off a homotopy does not depend on which one (two differ by a null-homotopic
         * chain map, whose values have no unit coefficient in a minimal resolution:
         * docs/secondary.md), so any preimage will do; a secondary product reads the homotopy
         * itself, and matches sseq's only over sseq's preimages */
        if (product && !have_unit) secondary_sseq_preimages(&sec, resolved_qi_budget(&limits));   /* the product's lifts solve its d_i again */
        else sec.set.any_preimage = !product;
        if (!rc && sec.all_composites && nranks == 1) rc = product_first(&sec, &pc, dir, &limits);
        if (!rc && rank == 0) rc = homotopy(&sec, &d, dir, &limits);
    }
    if (!rc && rank == 0 && have_unit) {    /* the unit's d2, on this process alone */
        const char *udir = opts[UNIT].arg;
        sr = secondary_init(&usec, &u.res, udir, err, sizeof err);
        if (!sr) sr = resolved_d2_memo(&usec, &limits, err, sizeof err);
        have_usec = 1;
        if (sr) fprintf(stderr, "extflow: %s\n", err), rc = 1;
        else {
            usec.all_composites = 1;
            secondary_sseq_preimages(&usec, resolved_qi_budget(&limits));   /* the product's lifts solve its d_i again */
            rc = homotopy(&usec, &u, udir, &limits);
        }
    }
    if (!rc && rank == 0 && product) {   /* (its composites were all computed: all_composites) */
        chain_runner runner = runpolicy_runner(&limits, opts[QUIET].arg != NULL, "secondary product steps");
        rc = d2_product(dir, &sec, have_unit ? &usec : &sec, &pc, &runner);
    }
    if (!rc && rank == 0) {
        rc = resolved_write_table(dir, "d2.csv", &d, 0, write_d2_csv, &sec);
        if (!rc) rc = resolved_write_sseq(dir, "secondary.txt", opts[SSEQ].arg != NULL, write_d2_sseq, &sec);
        if (!rc) rc = resolved_write_charts(dir, res);    /* they draw d2.csv */
        if (!rc && !opts[QUIET].arg) report(&sec, dir, clock_now() - t0);
        if (!rc && !product) resolved_lift_report("d2's homotopy", &sec.set);   /* (--product: with its own) */
    }
    if (p.sec) sec_product_clear(&p);      /* (product_first's, when d2_product did not run) */
    if (have_usec) secondary_clear(&usec);
    secondary_clear(&sec);
    resolved_close_both(&d, &u, have_unit);
    return rc;
}

const cli_command cmd_d2 = {
    "d2",
    "DIR: the Adams d2 of every class of DIR's resolved region whose target is resolved, from the secondary "
    "Steenrod algebra, into DIR/d2.csv; chart.svg and chart.html are redrawn with d2 as arrows. The homotopy's "
    "stage files go under DIR/stages/lift/d2/ (a rerun resumes from them). Not for a profile's module or a cofiber "
    "(module key 'cofiber')",
    opts, 1, CLI_SHARED, run,
};
