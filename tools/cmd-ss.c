/* extflow ss DIR --history FILE: the Adams spectral sequence above DIR's E2 (ss/model.h):
 * the history replayed, d2 from DIR/d2.csv as computed, the product types lifted by the
 * products command (their rows in DIR/products.csv), Leibniz to a fixed point, and the pages
 * written to DIR/ss/ (docs/ss.md, schema/ss-csv.md). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "stages/manifest.h"
#include "ss/history.h"
#include "ss/model.h"
#include "tools/resolved.h"

enum { HISTORY, DEDUCE, PRODUCTS, MEMORY, TIME_LIMIT, QUIET, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [HISTORY] = { "history", "FILE", "the actions to replay, one JSON object a line: sseq's editor save files "
                  "(Construct, Resolve, AddDifferential, AddPermanentClass, AddProductType, AddProductDifferential) "
                  "or extflow's own (DIR/ss/history.jsonl, version 1); an unknown action is refused by name. "
                  "Without it, only the computed d2 and the default products", NULL, NULL },
    [DEDUCE] = { "deduce", NULL, "also use every class of DIR/products.csv alone in its bidegree as a product "
                 "type (once it is known permanent), and write DIR/ss/deduce.txt: per bidegree what is settled "
                 "and what is open, and each propagated fact with the facts it came from", NULL, NULL },
    [PRODUCTS] = { "products", "LIST", "the product types every run has, comma-separated bare classes (default "
                   "h0,h1,h2 at p = 2, a0,h0 at odd p, on a DIR that is its own unit; 'none' for none)", NULL, NULL },
    [MEMORY] = { "memory", "SIZE", "as for products (the lifts of the product types)", NULL, NULL },
    [TIME_LIMIT] = { "time-limit", "SEC", "as for products: exit 3 with nothing written; a rerun resumes the lifts",
                     NULL, NULL },
    [QUIET] = { "quiet", NULL, "no progress line and no closing summary", NULL, NULL },
};

typedef struct ss_type_arg {    /* a product type to lift: its name in products.csv, class and flags */
    char csv_name[64];
    ss_class_arg c;
    int line, bare;
} ss_type_arg;

static ss_action *actions;
static int nactions;
static ss_type_arg types[RESOLVED_MAX_CLASSES];
static int ntypes;

/* products.csv's names: [A-Za-z0-9_.^+-]; others become '.' ("h_1^2 d_0" -> "h_1^2.d_0"). */
static void csv_name(const char *name, char *out, size_t size)
{
    size_t o = 0;
    for (const char *c = name; *c && o + 1 < size; c++)
        out[o++] = (strchr("_.^+-", *c) || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))
                       ? *c : '.';
    out[o] = 0;
}

/* The type named name (its class), appended once: its index, or -1 (two classes, one name). */
static int add_type(const ss_class_arg *c, int line, int bare)
{
    char cn[64];
    csv_name(c->name, cn, sizeof cn);
    for (int t = 0; t < ntypes; t++)
        if (!strcmp(types[t].csv_name, cn)) {
            if (bare || types[t].bare) return t;
            if (types[t].c.n != c->n || types[t].c.s != c->s || types[t].c.k != c->k || memcmp(types[t].c.v, c->v, (size_t)c->k))
                return cli_usage_error("ss: line %d: the product type '%s' was given another class on line %d", line,
                                       c->name, types[t].line), -1;
            types[t].c.permanent |= c->permanent;
            return t;
        }
    if (ntypes == RESOLVED_MAX_CLASSES)
        return cli_usage_error("ss: at most %d product types", RESOLVED_MAX_CLASSES), -1;
    ss_type_arg *t = &types[ntypes];
    memset(t, 0, sizeof *t);
    snprintf(t->csv_name, sizeof t->csv_name, "%s", cn);
    t->c = *c;
    t->line = line;
    t->bare = bare;
    return ntypes++;
}

/* The bare classes of --products (h0..h7, a0): bidegree and vector from the products
 * command's own parser. */
static int add_default_types(uint32_t prime)
{
    const char *list = opts[PRODUCTS].arg ? opts[PRODUCTS].arg : prime == 2 ? "h0,h1,h2" : "a0,h0";
    if (!strcmp(list, "none")) return 0;
    char buf[256];
    if (strlen(list) >= sizeof buf) return cli_usage_error("ss: --products: list too long");
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *nm = strtok_r(buf, ",", &save); nm; nm = strtok_r(NULL, ",", &save)) {
        product_class pc;
        char err[300];
        if (products_parse_class_p(nm, prime, &pc, err, sizeof err) || strchr(nm, '='))
            return cli_usage_error("ss: --products: '%s' is no bare class (h0..h7%s)", nm, prime == 2 ? "" : ", a0");
        ss_class_arg c;
        memset(&c, 0, sizeof c);
        snprintf(c.name, sizeof c.name, "%s", nm);
        c.n = pc.n;
        c.s = pc.s;
        c.k = (int)pc.len;
        for (uint32_t i = 0; i < pc.len && i < SS_HISTORY_MAXDIM; i++) c.v[i] = (uint8_t)pc.coords[i];
        c.permanent = 1;        /* h0, h1, h2 (and a0, h0 at odd p) are permanent: they are 2, η, ν (p, α1) */
        if (add_type(&c, 0, 1) < 0) return 2;
    }
    return 0;
}

/* The products command run in this process for the types (their lifts resume from DIR's
 * stage files): its exit status. */
static int lift_types(const char *dir)
{
    if (!ntypes) return 0;
    char *argv[2 * RESOLVED_MAX_CLASSES + 12];
    static char values[RESOLVED_MAX_CLASSES][SS_HISTORY_MAXDIM + 100];
    int argc = 0;
    argv[argc++] = "products";
    argv[argc++] = (char *)dir;
    for (int t = 0; t < ntypes; t++) {
        const ss_type_arg *ty = &types[t];
        if (ty->bare) snprintf(values[t], sizeof values[t], "%.63s", ty->csv_name);
        else {
            int o = snprintf(values[t], sizeof values[t], "%.63s=%d,%d,", ty->csv_name, ty->c.n, ty->c.s);
            for (int i = 0; i < ty->c.k && o < (int)sizeof values[t] - 2; i++) values[t][o++] = (char)('0' + ty->c.v[i]);
            values[t][o] = 0;
        }
        argv[argc++] = "--class";
        argv[argc++] = values[t];
    }
    static char mem[64], lim[64];
    if (opts[MEMORY].arg) {
        snprintf(mem, sizeof mem, "--memory=%s", opts[MEMORY].arg);
        argv[argc++] = mem;
    }
    if (opts[TIME_LIMIT].arg) {
        snprintf(lim, sizeof lim, "--time-limit=%s", opts[TIME_LIMIT].arg);
        argv[argc++] = lim;
    }
    if (opts[QUIET].arg) argv[argc++] = "--quiet";
    argv[argc] = NULL;
    const char *operands[2];
    int nops, rc = cli_parse(&cmd_products, argc, argv, operands, &nops);
    return rc < 0 ? cmd_products.run(operands, nops) : rc;
}

/* ---- DIR's tables into the model ---- */

/* The E2 dimensions of DIR's complete region, stems in the module's degrees. */
static int model_from_dir(ss_model *m, const opened_dir *d)
{
    const resolution *res = &d->res;
    const run_region *reg = &d->man.complete;
    int nmin = INT_MAX, nmax = INT_MIN, smax = reg->max_s;
    for (int s = 0; s <= smax; s++)
        for (deg_t t = s; t <= res->max_t; t++)
            if (region_has(reg, s, t)) {
                int n = (int)(t - s + res->shift);
                if (n < nmin) nmin = n;
                if (n > nmax) nmax = n;
            }
    if (nmin > nmax) return -1;
    if (ss_init(m, res->prime, nmin, nmax, smax)) return -1;
    for (int s = 0; s <= smax; s++)
        for (deg_t t = s; t <= res->max_t; t++)
            if (region_has(reg, s, t)) m->dim[ss_cell_index(m, (int)(t - s + res->shift), s)] = (int)res_ngens(res, s, t);
    return 0;
}

/* DIR/d2.csv's rows as computed facts (every class whose d2 lands in the region). 0, or 2
 * after a line naming the file. */
static int read_d2(ss_model *m, const char *dir)
{
    char path[4400], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/d2.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ln = 0, rc = 0;
    while (getline(&line, &cap, f) >= 0 && !rc) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (ln == 1) {
            if (strcmp(line, "n,s,i,target_n,target_s,value")) {
                fprintf(stderr, "extflow: ss: %s: the header is not n,s,i,target_n,target_s,value (rerun extflow d2)\n", path);
                rc = 2;
            }
            continue;
        }
        int n, s, i, tn, ts, used = 0;
        if (sscanf(line, "%d,%d,%d,%d,%d,%n", &n, &s, &i, &tn, &ts, &used) != 5 || !used || tn != n - 1 || ts != s + 2) {
            fprintf(stderr, "extflow: ss: %s line %d: not a row of d2.csv\n", path, ln);
            rc = 2;
            break;
        }
        int k = ss_dim(m, n, s), kt = ss_dim(m, tn, ts);
        const char *v = line + used;
        if (k <= 0 || i >= k || kt < 0) continue;          /* outside the region ss models */
        if ((int)strlen(v) != kt || strspn(v, "01") != strlen(v)) {
            fprintf(stderr, "extflow: ss: %s line %d: the value does not fit E2 at (%d,%d) (rerun extflow d2)\n", path, ln, tn, ts);
            rc = 2;
            break;
        }
        uint8_t x[k], y[kt > 0 ? kt : 1];
        memset(x, 0, (size_t)k);
        x[i] = 1;
        for (int j = 0; j < kt; j++) y[j] = (uint8_t)(v[j] - '0');
        ss_fact fa = { SS_DIFF, SS_COMPUTED, 2, n, s, x, y, 0, -1, -1, -1 };
        if (ss_add_fact(m, &fa) < 0) {
            fprintf(stderr, "extflow: ss: %s line %d: %s\n", path, ln, m->err);
            rc = 1;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* The rows of DIR/products.csv of the product types (by their csv names) into the model. */
static int read_products(ss_model *m, const char *dir, const int *type_of, int count)
{
    char path[4400], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/products.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!count) return 0;
        fprintf(stderr, "extflow: ss: cannot read %s: %s\n", path, strerror(errno));
        return 1;
    }
    int ln = 0, rc = 0;
    while (getline(&line, &cap, f) >= 0 && !rc) {
        if (++ln == 1) continue;
        char name[64];
        int nn, ns, n, s, i, k, c = 1;
        int got = sscanf(line, "%63[^,],%d,%d,%d,%d,%d,%d,%d", name, &nn, &ns, &n, &s, &i, &k, &c);
        if (got < 7) continue;
        for (int t = 0; t < count; t++) {
            ss_product *pt = &m->products[type_of[t]];
            char cn[64];
            csv_name(pt->name, cn, sizeof cn);
            if (strcmp(cn, name) || nn != pt->n || ns != pt->s) continue;
            int kt = ss_dim(m, n + nn, s + ns);
            if (kt <= 0 || k >= kt || ss_dim(m, n, s) <= i) continue;
            uint8_t row[kt];
            memset(row, 0, (size_t)kt);
            row[k] = (uint8_t)c;
            if (ss_product_row(m, type_of[t], n, s, i, row)) rc = 1;
        }
    }
    free(line);
    fclose(f);
    for (int t = 0; t < count && !rc; t++)
        if (ss_product_close(m, type_of[t])) rc = 1;
    if (rc) fprintf(stderr, "extflow: ss: out of memory reading %s\n", path);
    return rc;
}

/* --deduce: every class of products.csv alone in its bidegree (vector [1]) not yet a type. */
static int deduce_types(ss_model *m, const char *dir)
{
    char path[4400], *line = NULL, seen[64][64];
    size_t cap = 0;
    int nseen = 0;
    snprintf(path, sizeof path, "%s/products.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    while (getline(&line, &cap, f) >= 0) {
        char name[64];
        int nn, ns;
        if (sscanf(line, "%63[^,],%d,%d,", name, &nn, &ns) != 3) continue;
        int known = 0;
        for (int q = 0; q < nseen && !known; q++) known = !strcmp(seen[q], name);
        for (int t = 0; t < m->nproducts && !known; t++) {
            char cn[64];
            csv_name(m->products[t].name, cn, sizeof cn);
            known = !strcmp(cn, name);
        }
        if (known || nseen == 64) continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", name);
        if (ss_dim(m, nn, ns) != 1) continue;
        uint8_t one = 1;
        int t = ss_add_product(m, name, nn, ns, &one, 0, 0);
        if (t < 0) continue;
        int tt = t;
        if (read_products(m, dir, &tt, 1)) {
            free(line);
            fclose(f);
            return 1;
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* ---- the history into the model ---- */

static int type_index(const ss_model *m, const char *name)
{
    for (int t = 0; t < m->nproducts; t++)
        if (!strcmp(m->products[t].name, name)) return t;
    return -1;
}

/* The facts of action a (line a->line): 0, or 2 after a line. */
static int add_action(ss_model *m, const ss_action *a, const char *file, const run_manifest *man)
{
    ss_fact f = { SS_PERM, SS_GIVEN, 0, a->a.n, a->a.s, (uint8_t *)a->a.v, NULL, a->line, -1, -1, -1 };
    int k = ss_dim(m, a->a.n, a->a.s);
    const char *name = ss_action_name(a->type);
    switch (a->type) {
    case SS_CONSTRUCT:
        if (strcmp(a->module, man->module))
            return cli_usage_error("ss: %s line %d: Construct: the history is over %s, DIR holds %s", file, a->line,
                                   a->module, man->module);
        if (strcmp(a->algebra, "milnor") && strcmp(a->algebra, "adem"))
            return cli_usage_error("ss: %s line %d: Construct: algebra '%s' (milnor or adem)", file, a->line, a->algebra);
        return 0;
    case SS_RESOLVE:
        if (a->max_degree > m->nmax)
            fprintf(stderr, "extflow: ss: %s line %d: the history went to stem %d, DIR is complete to stem %d: facts "
                    "beyond it are refused (extflow resolve --stem %d extends DIR)\n", file, a->line, a->max_degree,
                    m->nmax, a->max_degree);
        return 0;
    default:
        break;
    }
    if (k >= 0 && a->a.k != k)
        return cli_usage_error("ss: %s line %d: %s: the class at (%d,%d) has %d coordinates, E2 there has dimension %d",
                               file, a->line, name, a->a.n, a->a.s, a->a.k, k);
    if (a->type == SS_ADD_DIFFERENTIAL || a->type == SS_ADD_PRODUCT_DIFFERENTIAL) {
        int kt = ss_dim(m, a->b.n, a->b.s);
        if (kt >= 0 && a->b.k != kt)
            return cli_usage_error("ss: %s line %d: %s: the target at (%d,%d) has %d coordinates, E2 there has "
                                   "dimension %d", file, a->line, name, a->b.n, a->b.s, a->b.k, kt);
        f.kind = SS_DIFF;
        f.r = a->r;
        f.y = (uint8_t *)a->b.v;
    }
    if (a->type == SS_ADD_PRODUCT_DIFFERENTIAL) {
        int src = type_index(m, a->a.name), dst = type_index(m, a->b.name);
        if (src >= 0 && dst >= 0) {
            m->products[src].diff_r = a->r;
            m->products[src].diff_to = dst;
        }
    }
    if (ss_add_fact(m, &f) < 0) return cli_usage_error("ss: %s line %d: %s: %s", file, a->line, name, m->err);
    return 0;
}

/* The facts of the computed tables and of actions[0..upto] (the product types of later lines
 * left out), then the pages: ss_compute's result, or 2 after a line (add_action's). */
static int replay_prefix(ss_model *m, int nbase, int upto, const char *file, const run_manifest *man)
{
    ss_truncate(m, nbase);
    for (int t = 0; t < m->nproducts; t++) m->products[t].diff_to = -1;
    m->line_limit = upto < 0 ? 0 : actions[upto].line;
    for (int i = 0; i <= upto; i++) {
        ss_action *a = &actions[i];
        int rc = 0;
        if (a->type == SS_ADD_PRODUCT_TYPE && a->a.permanent) {     /* a permanent type: its class is permanent */
            ss_action p = *a;
            p.type = SS_ADD_PERMANENT;
            rc = add_action(m, &p, file, man);
        } else if (a->type != SS_ADD_PRODUCT_TYPE) rc = add_action(m, a, file, man);
        if (rc) return rc;
    }
    return ss_compute(m, 1);
}

/* ---- outputs ---- */

typedef struct ss_out {
    ss_model *m;
    int last;
} ss_out;

static int write_pages(FILE *f, void *ctx)
{
    ss_out *o = ctx;
    ss_model *m = o->m;
    fputs("r,n,s,dim\n", f);
    for (int r = 2; r <= o->last + 1 && r <= m->rmax; r++)
        for (int n = m->nmin; n <= m->nmax; n++)
            for (int s = 0; s <= m->smax; s++)
                if (ss_dim(m, n, s) > 0) fprintf(f, "%d,%d,%d,%d\n", r, n, s, ss_page_dim(m, r, n, s));
    for (int n = m->nmin; n <= m->nmax; n++)
        for (int s = 0; s <= m->smax; s++) {
            int dim;
            if (ss_dim(m, n, s) > 0 && ss_einf(m, n, s, &dim)) fprintf(f, "inf,%d,%d,%d\n", n, s, dim);
        }
    return ferror(f) ? -1 : 0;
}

static const char *origin_name(int o) { return o == SS_GIVEN ? "given" : o == SS_COMPUTED ? "computed" : "propagated"; }

static void fact_why(const ss_model *m, const ss_fact *f, char *buf, size_t size)
{
    if (f->origin == SS_GIVEN) snprintf(buf, size, "line %d", f->line);
    else if (f->origin == SS_COMPUTED) snprintf(buf, size, "d2.csv");
    else snprintf(buf, size, "%s * fact %d", f->via >= 0 ? m->products[f->via].name : "?", f->parent + 1);
}

static int write_differentials(FILE *f, void *ctx)
{
    ss_model *m = ((ss_out *)ctx)->m;
    fputs("fact,r,n,s,source,target_n,target_s,target,origin,why\n", f);
    for (int id = 0; id < m->nfacts; id++) {
        const ss_fact *fa = &m->facts[id];
        if (fa->kind != SS_DIFF) continue;
        int k = ss_dim(m, fa->n, fa->s), kt = ss_dim(m, fa->n - 1, fa->s + fa->r);
        char xs[SS_HISTORY_MAXDIM + 1], ys[SS_HISTORY_MAXDIM + 1], why[200];
        ss_vec_string(fa->x, k, xs, sizeof xs);
        ss_vec_string(fa->y, kt > 0 ? kt : 0, ys, sizeof ys);
        if (fa->origin == SS_COMPUTED && strspn(ys, "0") == strlen(ys)) continue;  /* d2.csv has the zeros */
        fact_why(m, fa, why, sizeof why);
        fprintf(f, "%d,%d,%d,%d,%s,%d,%d,%s,%s,%s\n", id + 1, fa->r, fa->n, fa->s, xs, fa->n - 1, fa->s + fa->r, ys,
                origin_name(fa->origin), why);
    }
    return ferror(f) ? -1 : 0;
}

static int write_permanent(FILE *f, void *ctx)
{
    ss_model *m = ((ss_out *)ctx)->m;
    fputs("fact,n,s,class,origin,why\n", f);
    for (int id = 0; id < m->nfacts; id++) {
        const ss_fact *fa = &m->facts[id];
        if (fa->kind != SS_PERM) continue;
        char xs[SS_HISTORY_MAXDIM + 1], why[200];
        ss_vec_string(fa->x, ss_dim(m, fa->n, fa->s), xs, sizeof xs);
        fact_why(m, fa, why, sizeof why);
        fprintf(f, "%d,%d,%d,%s,%s,%s\n", id + 1, fa->n, fa->s, xs, origin_name(fa->origin), why);
    }
    return ferror(f) ? -1 : 0;
}

static int write_history(FILE *f, void *ctx)
{
    (void)ctx;
    for (int i = 0; i < nactions; i++)
        if (ss_history_write(f, &actions[i])) return -1;
    return 0;
}

static int write_deduce(FILE *f, void *ctx)
{
    ss_model *m = ((ss_out *)ctx)->m;
    int settled = 0, open = 0;
    fprintf(f, "# extflow ss --deduce: each bidegree with classes, settled (E_inf known) or open.\n");
    for (int n = m->nmin; n <= m->nmax; n++)
        for (int s = 0; s <= m->smax; s++) {
            int k = ss_dim(m, n, s), dim;
            if (k <= 0) continue;
            if (ss_einf(m, n, s, &dim)) {
                settled++;
                fprintf(f, "(%d,%d) E2 %d: settled, E_inf %d\n", n, s, k, dim);
                continue;
            }
            open++;
            fprintf(f, "(%d,%d) E2 %d: open;", n, s, k);
            for (int r = 2; r <= m->rmax; r++) {
                const ss_cell *c = ss_page(m, r, n, s);
                if (c->d.assumed) {
                    fprintf(f, " d_%d unknown on %d of E_%d's %d classes;", r, c->d.assumed, r, c->Z.n - c->B.n);
                    break;
                }
                if (!c->bexact && r < m->rmax && !ss_page(m, r + 1, n, s)->bexact) {
                    fprintf(f, " the d_%d into it unknown;", r);
                    break;
                }
            }
            fputc('\n', f);
        }
    fprintf(f, "# %d settled, %d open\n# propagated facts, each from the fact (and product) it came from:\n", settled,
            open);
    for (int id = 0; id < m->nfacts; id++) {
        if (m->facts[id].origin != SS_PROPAGATED) continue;
        char d[700];
        ss_describe(m, id, d, sizeof d);
        fprintf(f, "fact %d: %s\n", id + 1, d);
    }
    return ferror(f) ? -1 : 0;
}

static int write_outputs(const char *dir, ss_model *m)
{
    char sub[4400];
    snprintf(sub, sizeof sub, "%s/ss", dir);
    if (mkdir(sub, 0777) && errno != EEXIST) {
        fprintf(stderr, "extflow: cannot create %s: %s\n", sub, strerror(errno));
        return 1;
    }
    ss_out o = { m, ss_last_page(m) };
    int rc = resolved_write(dir, "ss/pages.csv", write_pages, &o);
    if (!rc) rc = resolved_write(dir, "ss/differentials.csv", write_differentials, &o);
    if (!rc) rc = resolved_write(dir, "ss/permanent.csv", write_permanent, &o);
    if (!rc) rc = resolved_write(dir, "ss/history.jsonl", write_history, &o);
    if (!rc && opts[DEDUCE].arg) rc = resolved_write(dir, "ss/deduce.txt", write_deduce, &o);
    else if (!rc) outdir_remove(dir, "ss/deduce.txt");
    return rc;
}

static int run(const char **operands, int nops)
{
    if (nops != 1) return cli_usage_error("ss: DIR expected");
    const char *dir = operands[0], *file = opts[HISTORY].arg;
    char err[4600];
    if (file && ss_history_read(file, &actions, &nactions, err, sizeof err))
        return cli_usage_error("ss: %s", err);
    static opened_dir d;
    int rc = resolved_open("ss", dir, &d, 1);
    if (rc) return rc;
    int unit = resolved_is_unit(&d);
    resolved_close(&d);
    /* the product types: the defaults, then the history's, by name */
    if (unit && (rc = add_default_types(manifest_prime(dir)))) return rc;
    for (int i = 0; i < nactions; i++) {
        const ss_action *a = &actions[i];
        if (a->type == SS_ADD_PRODUCT_TYPE && add_type(&a->a, a->line, 0) < 0) return 2;
        if (a->type == SS_ADD_PRODUCT_DIFFERENTIAL && (add_type(&a->a, a->line, 0) < 0 || add_type(&a->b, a->line, 0) < 0))
            return 2;
    }
    if (ntypes && !unit && opts[PRODUCTS].arg && strcmp(opts[PRODUCTS].arg, "none"))
        return cli_usage_error("ss: --products: DIR's module is not its own unit (products over a module are not modelled)");
    for (int i = 0; i < nactions && !unit; i++)
        if (actions[i].type == SS_ADD_PRODUCT_TYPE || actions[i].type == SS_ADD_PRODUCT_DIFFERENTIAL)
            return cli_usage_error("ss: %s line %d: product types need a DIR whose module is its own unit (S_2, ko, "
                                   "tmf2, S_3, ...)", file, actions[i].line);
    if ((rc = lift_types(dir))) return rc;
    if ((rc = resolved_open("ss", dir, &d, 1))) return rc;
    ss_model m;
    if (model_from_dir(&m, &d)) {
        resolved_close(&d);
        fprintf(stderr, "extflow: ss: out of memory (or an empty region) modelling %s\n", dir);
        return 1;
    }
    int type_of[RESOLVED_MAX_CLASSES];
    rc = read_d2(&m, dir);
    for (int t = 0; t < ntypes && !rc; t++) {
        int ti = ss_add_product(&m, types[t].c.name, types[t].c.n, types[t].c.s, types[t].c.v, types[t].c.permanent,
                                types[t].line);
        if (ti < 0) rc = cli_usage_error("ss: %s", m.err);
        type_of[t] = ti;
    }
    if (!rc) rc = read_products(&m, dir, type_of, ntypes);
    if (!rc && opts[DEDUCE].arg) rc = deduce_types(&m, dir);
    int nbase = m.nfacts;
    if (!rc) {
        int crc = replay_prefix(&m, nbase, nactions - 1, file, &d.man);
        if (crc == 1) {         /* the first line whose facts contradict the earlier ones */
            int lo = -1, hi = nactions - 1;     /* actions[0..lo] consistent (none: -1), [0..hi] not */
            if (replay_prefix(&m, nbase, -1, file, &d.man) == 1) hi = -1;
            else
                while (hi - lo > 1) {
                    int mid = (lo + hi) / 2;
                    if (replay_prefix(&m, nbase, mid, file, &d.man) == 1) hi = mid;
                    else lo = mid;
                }
            replay_prefix(&m, nbase, hi, file, &d.man);
            if (hi < 0) fprintf(stderr, "extflow: ss: %s/d2.csv and the product types contradict each other: %s\n", dir, m.err);
            else fprintf(stderr, "extflow: ss: %s line %d (%s) refused: %s\n", file, actions[hi].line,
                         ss_action_name(actions[hi].type), m.err);
            rc = 2;
        } else if (crc == 2) rc = 2;
        else if (crc) {
            fprintf(stderr, "extflow: ss: out of memory\n");
            rc = 1;
        }
    }
    if (!rc) rc = write_outputs(dir, &m);
    if (!rc) rc = resolved_write_html(dir, &d.res);     /* its page selector and d_r arrows */
    if (!rc && !opts[QUIET].arg) {
        int given = 0, prop = 0, comp = 0, perm = 0, settled = 0, cells = 0;
        for (int id = 0; id < m.nfacts; id++) {
            const ss_fact *f = &m.facts[id];
            if (f->kind == SS_PERM) perm++;
            if (f->origin == SS_GIVEN) given++;
            else if (f->origin == SS_PROPAGATED) prop++;
            else comp++;
        }
        for (int n = m.nmin; n <= m.nmax; n++)
            for (int s = 0; s <= m.smax; s++) {
                int dim;
                if (ss_dim(&m, n, s) > 0) {
                    cells++;
                    settled += ss_einf(&m, n, s, &dim);
                }
            }
        fprintf(stderr, "extflow: ss over %s: %d facts given, %d propagated, %d computed (%d permanent classes); "
                "pages E2..E%d; E_inf settled in %d of %d bidegrees; tables in %s/ss/\n", dir, given, prop, comp, perm,
                ss_last_page(&m) + 1, settled, cells, dir);
    }
    ss_clear(&m);
    resolved_close(&d);
    free(actions);
    return rc;
}

const cli_command cmd_ss = {
    "ss",
    "DIR [--history FILE]: the Adams spectral sequence above DIR's E2 (docs/ss.md). Replays the history (sseq's "
    "editor save files or extflow's own), takes d2 from DIR/d2.csv as computed, lifts the product types with the "
    "products command (their rows join DIR/products.csv), applies the Leibniz rule to a fixed point and checks "
    "every fact against the pages the others define: a contradiction refuses the first line that causes it, "
    "naming both facts (exit 2, nothing written). Writes DIR/ss/pages.csv (r,n,s,dim: E_r as far as known, "
    "unknown differentials taken as zero; rows 'inf' only where E_inf is settled), differentials.csv, "
    "permanent.csv and history.jsonl (the history in extflow's spelling; schema/ss-csv.md)",
    opts, 1, CLI_ONE_PROCESS, run,
};
