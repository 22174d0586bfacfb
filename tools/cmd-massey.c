/* extflow massey DIR --a A --b B: <A, B, c> for every c in the kernel of B (stages/products/massey.h). */
#include "algebra/clock.h"
#include "runtime/rt.h"
#include "runtime/rt_mpi.h"
#include "runtime/runpolicy.h"
#include "stages/products/massey.h"
#include "stages/d2/secondary_massey.h"
#include "tools/resolved.h"
#include <string.h>

enum { A, B, SECONDARY, UNIT, SSEQ, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [A] = { "a", "A", "the class a (NAME=n,s[,vector] or h0..h7, as for products; with --secondary a class of "
            "Mod_{Cλ²}: EXT, EXT+λLAM or λLAM, LAM a class one filtration above EXT, e.g. h2+λh_0h_2=3,2)", NULL, NULL },
    [B] = { "b", "B", "the class b, with a·b = 0", NULL, NULL },
    [SECONDARY] = { "secondary", NULL, "(S_2, one process) the secondary Massey products <A, B, -> in Mod_{Cλ²} with "
                    "their λ parts, as sseq's secondary_massey example prints them, into "
                    "DIR/secondary_massey-A-B.txt, A and B the classes' names without their coordinates (the Ext parts of A and B "
                    "must survive d2, A·B = 0 in Mod_{Cλ²})",
                    NULL, NULL },
    [UNIT] = { "unit", "UNITDIR", "as for products: required for a module's DIR", NULL, NULL },
    [SSEQ] = { "sseq-formats", NULL, "also write DIR/massey-A-B.txt, as sseq's massey example prints it (not with --secondary, "
             "whose text is always written)", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for products", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "as for products", NULL, NULL },
    [QUIET] = { "quiet", NULL, "as for products", NULL, NULL },
};

struct massey_out {
    const massey_table *t;
    const char *a, *b;
};
static int write_massey_csv(FILE *f, void *ctx)
{
    struct massey_out *o = ctx;
    return massey_write_csv(f, o->t, o->a, o->b);
}
static int write_massey_sseq(FILE *f, void *ctx)
{
    struct massey_out *o = ctx;
    return massey_write_sseq(f, o->t);
}

/* The brackets over the ranks (each lifts its share of the c's, massey_share): 0, 1, 2 or 3;
 * rank 0 says what went wrong, for all of them (they agree on it). */
static int compute(opened_dir *d, const opened_dir *ud, const product_class *a, const product_class *b,
                   const char *dir, const chain_policy *limits, massey_table *table)
{
    char err[800];
    int rank = rt_mpi_rank(), rc = runpolicy_start_all("massey");
    if (rc) return rc;
    massey_share share = { rank, rt_mpi_size(), rt_mpi_allgather };
    chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg != NULL || rank != 0, "lift steps");
    int mr = massey_compute(&d->res, &ud->res, a, b, dir, &runner, &share, table, err, sizeof err);
    if (mr == 1) rc = cli_usage_error("massey: %s", err);
    else if (mr == MASSEY_STOPPED) rc = rank ? 3 : runpolicy_stopped("massey", dir, limits, -1);
    else if (mr) {
        if (!rank) fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n", err);
        rc = 1;
    }
    rt_shutdown();
    return rc;
}

/* A class of Mod_{Cλ²}: EXT, EXT+λLAM or λLAM (LAM at EXT's bidegree + (0, 1)), into *c with
 * sseq's name; parts[0], parts[1] the parsed Ext and λ parts. 0, or 2 after a usage error. */
static const char LAMBDA[] = "λ";
static int parse_mclass(const char *arg, sec_mclass *c, product_class parts[2])
{
    char buf[300], err[400];
    memset(c, 0, sizeof *c);
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf) return cli_usage_error("massey: class '%.80s' is too long", arg);
    char *lam = !strncmp(buf, LAMBDA, strlen(LAMBDA)) ? buf : strstr(buf, "+λ");
    const char *ext = lam == buf ? NULL : buf;
    if (lam && lam != buf) *lam++ = 0;
    if (lam) lam += strlen(LAMBDA);
    if ((ext && products_parse_class(ext, &parts[0], err, sizeof err) != 0) ||
        (lam && products_parse_class(lam, &parts[1], err, sizeof err) != 0))
        return cli_usage_error("massey: --secondary: %s", err);
    if (ext && lam && (parts[1].n != parts[0].n || parts[1].s != parts[0].s + 1))
        return cli_usage_error("massey: --secondary: class '%.80s': the λ part must sit at (%d, %d), one filtration above "
                               "the Ext part", arg, parts[0].n, parts[0].s + 1);
    c->has_ext = ext != NULL, c->has_lam = lam != NULL;
    c->n = ext ? parts[0].n : parts[1].n;
    c->s = ext ? parts[0].s : parts[1].s - 1;
    if (c->s < 1) return cli_usage_error("massey: --secondary: class '%.80s' must have s >= 1", arg);
    c->next = ext ? parts[0].len : 0, c->nlam = lam ? parts[1].len : 0;
    memcpy(c->ext, parts[0].coords, c->next);
    memcpy(c->lam, parts[1].coords, c->nlam);
    char en[80], ln[80];    /* sseq's h_j for a bare hj */
    for (int k = 0; k < 2; k++) {
        char *o = k ? ln : en;
        const char *nm = parts[k].name;
        if (nm[0] == 'h' && nm[1] >= '0' && nm[1] <= '9' && !nm[2]) snprintf(o, 80, "h_%c", nm[1]);
        else snprintf(o, 80, "%s", nm);
    }
    if (ext && lam) snprintf(c->name, sizeof c->name, "[%s] + λ%s", en, ln);
    else if (ext) snprintf(c->name, sizeof c->name, "[%s]", en);
    else snprintf(c->name, sizeof c->name, "λ%s", ln);
    return 0;
}

/* A class of Mod_{Cλ²} as a file name takes: its parts' names as given, without their
 * coordinates (h2+λh_0h_2 for h2+λh_0h_2=3,2). */
static const char *mclass_file_name(char *buf, size_t size, const sec_mclass *c, const product_class parts[2])
{
    snprintf(buf, size, "%s%s%s%s", c->has_ext ? parts[0].name : "", c->has_ext && c->has_lam ? "+" : "",
             c->has_lam ? LAMBDA : "", c->has_lam ? parts[1].name : "");
    return buf;
}

struct sm_out { sec_massey *m; };
static int write_sm(FILE *f, void *ctx) { return sec_massey_write(f, ((struct sm_out *)ctx)->m); }

/* massey --secondary: 0, or the exit status after one line. */
static int run_secondary(const char *dir, const chain_policy *limits)
{
    static sec_mclass a, b;
    static product_class pa[2], pb[2];
    int rc = parse_mclass(opts[A].arg, &a, pa);
    if (!rc) rc = parse_mclass(opts[B].arg, &b, pb);
    if (rc) return rc;
    if (opts[UNIT].arg) return cli_usage_error("massey: --secondary is for a resolution of S_2 (no --unit)");
    if (rt_mpi_size() > 1) return cli_usage_error("massey: --secondary runs in one process");
    static opened_dir d;
    if ((rc = resolved_require_sphere("massey", "--secondary", dir, &d)) != 0) return rc;
    for (int k = 0; k < 4 && !rc; k++) {
        const sec_mclass *c = k < 2 ? &a : &b;
        const product_class *p = k < 2 ? &pa[k] : &pb[k - 2];
        if (k % 2 ? c->has_lam : c->has_ext) rc = resolved_check_class("massey", p, &d.res, &d.man, dir);
    }
    double t0 = clock_now();
    static secondary sec;
    static sec_massey m;
    char err[800];
    int sr = rc ? 0 : secondary_init(&sec, &d.res, dir, err, sizeof err);
    if (!rc && !sr) sr = resolved_d2_memo(&sec, limits, err, sizeof err);
    if (!rc && sr) rc = sr == -2 ? cli_usage_error("massey: %s", err) : (fprintf(stderr, "extflow: %s\n", err), 1);
    if (!rc && rt_init_local(0, err, sizeof err) != 0) {
        fprintf(stderr, "extflow: %s\n", err);
        rc = 1;
    } else if (!rc) {
        sec.all_composites = 1;             /* the products read composites besides d2's steps */
        resolved_d2_ways(&sec);
        /* and the homotopy itself: sseq's preimages, d_i's quasi-inverses kept for every lift */
        secondary_sseq_preimages(&sec, resolved_qi_budget(limits));
        chain_runner runner = runpolicy_runner(limits, opts[QUIET].arg != NULL, "secondary Massey steps");
        /* f_a, f_b (and h) first: their terms say which planes of d2's composites are read */
        int r = sec_massey_init(&m, &sec, &a, &b, dir, err, sizeof err);
        const char *hw = getenv("EXTFLOW_MASSEY_H");    /* checked by cli_check_env */
        m.h_wait = hw && !strcmp(hw, "late");
        if (!r) r = sec_massey_plan_d2(&m, &runner, err, sizeof err);
        if (!r && (r = secondary_run(&sec, &runner)) < 0)
            snprintf(err, sizeof err, "%s", sec.fail.set ? sec.fail.msg : sec.set.fail.msg);
        if (!r) r = sec_massey_run(&m, &runner, err, sizeof err);
        rt_shutdown_local();
        const char *names[] = { "d2's homotopy", "f of a", "H of a", "f of b", "H of b", "of the λ parts", "h", "H" };
        const lift_set *sets[] = { &sec.set, &m.pa.prim, &m.pa.hom, &m.pb.prim, &m.pb.hom, &m.lam, &m.hs, &m.Hs };
        for (int k = 0; k < 8 && m.sec; k++) resolved_lift_report(names[k], sets[k]);
        resolved_qi_report(&sec);
        if (r == 2) rc = cli_usage_error("massey: %s", m.why);
        else if (r == 1) rc = runpolicy_stopped("massey --secondary", dir, limits, -1);
        else if (r) {
            fprintf(stderr, "extflow: %s (finished lift bidegrees are kept; rerun to resume)\n", err);
            rc = 1;
        }
    }
    if (!rc) {
        char file[400], an[160], bn[160];
        snprintf(file, sizeof file, "secondary_massey-%s-%s.txt", mclass_file_name(an, sizeof an, &a, pa),
                 mclass_file_name(bn, sizeof bn, &b, pb));
        struct sm_out out = { &m };
        rc = resolved_write(dir, file, write_sm, &out);
        if (!rc && !opts[QUIET].arg)
            fprintf(stderr, "extflow: <%s, %s, -> in Mod_{Cλ²} over %s in %.1f s; %s/%s\n", a.name, b.name, dir,
                    clock_now() - t0, dir, file);
    }
    sec_massey_clear(&m);
    if (sec.res) secondary_clear(&sec);
    resolved_close(&d);
    return rc;
}

static int run(const char **operands, int n)
{
    double began = clock_now();
    if (n != 1) return cli_usage_error("massey: DIR expected");
    const char *dir = operands[0];
    if (!opts[A].arg || !opts[B].arg) return cli_usage_error("massey: give --a CLASS and --b CLASS");
    if (opts[SECONDARY].arg) {
        if (opts[SSEQ].arg)
            return cli_usage_error("massey: --sseq-formats is not for --secondary (its only output, "
                                   "secondary_massey-A-B.txt, is sseq's text already)");
        chain_policy limits;
        int prc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits);
        return prc ? prc : run_secondary(dir, &limits);
    }
    chain_policy limits;
    int prc = resolved_limits(&opts[MEMORY], &opts[TIME_LIMIT], began, &limits);
    if (prc) return prc;
    static product_class a, b;
    char err[800];
    uint32_t prime = manifest_prime(dir);               /* coordinates and bare names depend on it */
    if (products_parse_class_p(opts[A].arg, prime, &a, err, sizeof err) != 0 ||
        products_parse_class_p(opts[B].arg, prime, &b, err, sizeof err) != 0)
        return cli_usage_error("massey: %s", err);
    if (a.s < 1 || b.s < 1) return cli_usage_error("massey: the classes a and b must have s >= 1");
    if (prime > 9)
        return cli_usage_error("massey: at p = %u not yet (its tables write a digit per coefficient)", prime);
    static opened_dir d, u;
    int have_unit;
    if ((prc = resolved_open("massey", dir, &d, 1)) != 0) return prc;
    prc = resolved_open_unit("massey", dir, &d, opts[UNIT].arg, &u, &have_unit);
    const opened_dir *ud = have_unit ? &u : &d;          /* a and b are classes of S_2 */
    const char *udir = have_unit ? opts[UNIT].arg : dir;
    if (!prc && !(prc = resolved_check_class("massey", &a, &ud->res, &ud->man, udir)))
        prc = resolved_check_class("massey", &b, &ud->res, &ud->man, udir);
    double t0 = clock_now();
    massey_table table = { 0 };
    int rc = prc ? prc : compute(&d, ud, &a, &b, dir, &limits, &table);
    if (!prc && rt_mpi_rank() == 0) {   /* rank 0 has the brackets */
        char csv[200], txt[200];
        snprintf(csv, sizeof csv, "massey-%s-%s.csv", a.name, b.name);
        snprintf(txt, sizeof txt, "massey-%s-%s.txt", a.name, b.name);
        struct massey_out out = { &table, a.name, b.name };
        if (!rc) rc = resolved_write_table(dir, csv, &d, 0, write_massey_csv, &out);
        if (!rc) rc = resolved_write_sseq(dir, txt, opts[SSEQ].arg != NULL, write_massey_sseq, &out);
        if (!rc && !opts[QUIET].arg && rt_mpi_size() > 1)
            fprintf(stderr, "extflow: the classes c were shared among %d ranks, each lifting its f_c and homotopies; "
                    "rank 0 gathered the brackets:\n", rt_mpi_size());
        if (!rc && !opts[QUIET].arg) {
            size_t nonzero = 0;
            for (size_t k = 0; k < table.n; k++)
                for (uint32_t z = 0; z < table.b[k].dim; z++)
                    if (table.b[k].rep[z]) {
                        nonzero++;
                        break;
                    }
            fprintf(stderr, "extflow: <%s, %s, c> for %zu classes c over %s (%zu not containing 0; %ld chain maps) in "
                    "%.1f s; table %s/%s\n", a.name, b.name, table.n, dir, nonzero, table.lifts, clock_now() - t0, dir,
                    csv);
        }
    }
    massey_table_clear(&table);
    resolved_close_both(&d, &u, have_unit);
    return rc;
}

const cli_command cmd_massey = {
    "massey",
    "DIR --a A --b B: the Massey products <A, B, c> for every class c of DIR's resolved region with B·c = 0 (A·B "
    "must be 0), with their indeterminacy, into DIR/massey-A-B.csv (A, B the classes' names); a class is "
    "NAME=n,s[,vector] or h0..h7, as for products; over a module M, c runs over Ext(M, F2) and a, b are classes of "
    "the unit (S_2, or F2 over M's profile algebra). With --secondary (S_2): the secondary Massey products <A, B, c> "
    "in Mod_{Cλ²} for every class c = c_x + λ c_y with B·c = 0 there, Ext and λ parts, into "
    "DIR/secondary_massey-A-B.txt in sseq's words. At an odd prime p < 10 (S_3, S_5, and modules "
    "with --unit; under mpirun too) the same over F_p: vectors are digits 0..p-1; a0 and h_j as for products",
    opts, 1, CLI_SHARED, run,
};
