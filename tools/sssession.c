/* sssession.c — the spectral sequence over a finished resolution, shared by ss and serve
 * (tools/sssession.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "stages/out/chart.h"
#include "stages/out/manifest.h"
#include "stages/resolve/report.h"
#include "tools/sssession.h"

/* A refusal: err set, 2 (CLI_USAGE). */
static int usage(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int usage(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CLI_USAGE;
}

/* products.csv's names: [A-Za-z0-9_.^+-]; others become '.' ("h_1^2 d_0" -> "h_1^2.d_0"). */
static void csv_name(const char *name, char *out, size_t size)
{
    size_t o = 0;
    for (const char *c = name; *c && o + 1 < size; c++)
        out[o++] = (strchr("_.^+-", *c) || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))
                       ? *c : '.';
    out[o] = 0;
}

/* The type named c->name (its class), appended once: its index; -1 after err (one name, two
 * classes; too many). */
static int add_type(ss_session *S, const ss_class_arg *c, int line, int bare, char *err, size_t errlen)
{
    char cn[64];
    csv_name(c->name, cn, sizeof cn);
    for (int t = 0; t < S->ntypes; t++)
        if (!strcmp(S->types[t].csv_name, cn)) {
            ss_type_arg *ty = &S->types[t];
            if (bare || ty->bare) return t;
            if (ty->c.n != c->n || ty->c.s != c->s || ty->c.k != c->k || memcmp(ty->c.v, c->v, (size_t)c->k))
                return usage(err, errlen, "line %d: the product type '%s' was given another class on line %d", line,
                             c->name, ty->line), -1;
            ty->c.permanent |= c->permanent;
            return t;
        }
    if (S->ntypes == RESOLVED_MAX_CLASSES) return usage(err, errlen, "at most %d product types", RESOLVED_MAX_CLASSES), -1;
    ss_type_arg *t = &S->types[S->ntypes];
    memset(t, 0, sizeof *t);
    snprintf(t->csv_name, sizeof t->csv_name, "%s", cn);
    t->c = *c;
    t->line = line;
    t->bare = bare;
    return S->ntypes++;
}

/* The bare classes of --products (h0..h7, a0), bidegree and vector from the products
 * command's own parser: 0, or 2 with err. */
static int add_default_types(ss_session *S, uint32_t prime, char *err, size_t errlen)
{
    const char *list = S->o.products ? S->o.products : prime == 2 ? "h0,h1,h2" : "a0,h0";
    if (!strcmp(list, "none")) return 0;
    char buf[256];
    if (strlen(list) >= sizeof buf) return usage(err, errlen, "--products: list too long");
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *nm = strtok_r(buf, ",", &save); nm; nm = strtok_r(NULL, ",", &save)) {
        product_class pc;
        char why[300];
        if (products_parse_class_p(nm, prime, &pc, why, sizeof why) || strchr(nm, '='))
            return usage(err, errlen, "--products: '%s' is no bare class (h0..h7%s)", nm, prime == 2 ? "" : ", a0");
        ss_class_arg c;
        memset(&c, 0, sizeof c);
        snprintf(c.name, sizeof c.name, "%s", nm);
        c.n = pc.n;
        c.s = pc.s;
        c.k = (int)pc.len;
        for (uint32_t i = 0; i < pc.len && i < SS_HISTORY_MAXDIM; i++) c.v[i] = (uint8_t)pc.coords[i];
        c.permanent = 1;        /* h0, h1, h2 (a0, h0 at odd p) are permanent: 2, η, ν (p, α1) */
        if (add_type(S, &c, 0, 1, err, errlen) < 0) return CLI_USAGE;
    }
    return 0;
}

/* The product types an action names: 0, or 2 with err. */
static int action_types(ss_session *S, const ss_action *a, char *err, size_t errlen)
{
    if (a->type != SS_ADD_PRODUCT_TYPE && a->type != SS_ADD_PRODUCT_DIFFERENTIAL) return 0;
    if (!S->unit)
        return usage(err, errlen, "%s line %d: product types need a DIR whose module is its own unit (S_2, ko, tmf2, "
                     "S_3, ...)", S->o.file, a->line);
    if (add_type(S, &a->a, a->line, 0, err, errlen) < 0) return CLI_USAGE;
    if (a->type == SS_ADD_PRODUCT_DIFFERENTIAL && add_type(S, &a->b, a->line, 0, err, errlen) < 0) return CLI_USAGE;
    return 0;
}

/* The products command run in this process for every type (the lifts resume from DIR's stage
 * files; it takes DIR's lock itself): its exit status. */
static int lift_types(ss_session *S)
{
    if (!S->ntypes) return 0;
    char *argv[2 * RESOLVED_MAX_CLASSES + 12];
    static char values[RESOLVED_MAX_CLASSES][SS_HISTORY_MAXDIM + 100], mem[64], lim[64];
    int argc = 0;
    argv[argc++] = "products";
    argv[argc++] = (char *)S->dir;
    for (int t = 0; t < S->ntypes; t++) {
        const ss_type_arg *ty = &S->types[t];
        if (ty->bare) snprintf(values[t], sizeof values[t], "%.63s", ty->csv_name);
        else {
            int o = snprintf(values[t], sizeof values[t], "%.63s=%d,%d,", ty->csv_name, ty->c.n, ty->c.s);
            for (int i = 0; i < ty->c.k && o < (int)sizeof values[t] - 2; i++) values[t][o++] = (char)('0' + ty->c.v[i]);
            values[t][o] = 0;
        }
        argv[argc++] = "--class";
        argv[argc++] = values[t];
    }
    if (S->o.memory) {
        snprintf(mem, sizeof mem, "--memory=%s", S->o.memory);
        argv[argc++] = mem;
    }
    if (S->o.time_limit) {
        snprintf(lim, sizeof lim, "--time-limit=%s", S->o.time_limit);
        argv[argc++] = lim;
    }
    if (S->o.quiet) argv[argc++] = "--quiet";
    argv[argc] = NULL;
    return cli_run(&cmd_products, argc, argv);
}

/* DIR given back, the opened directory forgotten (a second close does nothing). */
static void close_dir(ss_session *S)
{
    resolved_close(&S->d);
    memset(&S->d, 0, sizeof S->d);
    S->d.dir.lockfd = -1;
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
 * (1 out of memory) with err naming the file. */
static int read_d2(ss_model *m, const char *dir, char *err, size_t errlen)
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
                snprintf(err, errlen, "%s: the header is not n,s,i,target_n,target_s,value (rerun extflow d2)", path);
                rc = 2;
            }
            continue;
        }
        int n, s, i, tn, ts, used = 0;
        if (sscanf(line, "%d,%d,%d,%d,%d,%n", &n, &s, &i, &tn, &ts, &used) != 5 || !used || tn != n - 1 || ts != s + 2) {
            snprintf(err, errlen, "%s line %d: not a row of d2.csv\n", path, ln);
            rc = 2;
            break;
        }
        int k = ss_dim(m, n, s), kt = ss_dim(m, tn, ts);
        const char *v = line + used;
        if (k <= 0 || i >= k || kt < 0) continue;          /* outside the region ss models */
        if ((int)strlen(v) != kt || strspn(v, "01") != strlen(v)) {
            snprintf(err, errlen, "%s line %d: the value does not fit E2 at (%d,%d) (rerun extflow d2)", path, ln, tn, ts);
            rc = 2;
            break;
        }
        uint8_t x[k], y[kt > 0 ? kt : 1];
        memset(x, 0, (size_t)k);
        x[i] = 1;
        for (int j = 0; j < kt; j++) y[j] = (uint8_t)(v[j] - '0');
        ss_fact fa = { SS_DIFF, SS_COMPUTED, 2, n, s, x, y, 0, -1, -1 };
        if (ss_add_fact(m, &fa) < 0) {
            snprintf(err, errlen, "%s line %d: %s", path, ln, m->err);
            rc = 1;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* The rows of DIR/products.csv of the product types (by their csv names) into the model. */
static int read_products(ss_model *m, const char *dir, const int *type_of, int count, char *err, size_t errlen)
{
    char path[4400], *line = NULL;
    size_t cap = 0;
    snprintf(path, sizeof path, "%s/products.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (!count) return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
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
    if (rc) snprintf(err, errlen, "out of memory reading %s", path);
    return rc;
}

/* --deduce: every class of products.csv alone in its bidegree (vector [1]) not yet a type. */
static int deduce_types(ss_model *m, const char *dir, char *err, size_t errlen)
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
        if (read_products(m, dir, &tt, 1, err, errlen)) {
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
static int add_action(ss_model *m, const ss_action *a, const char *file, const run_manifest *man, char *err, size_t errlen)
{
    ss_fact f = { SS_PERM, SS_GIVEN, 0, a->a.n, a->a.s, (uint8_t *)a->a.v, NULL, a->line, -1, -1 };
    int k = ss_dim(m, a->a.n, a->a.s);
    const char *name = ss_action_name(a->type);
    switch (a->type) {
    case SS_CONSTRUCT:
        if (strcmp(a->module, man->module))
            return usage(err, errlen, "%s line %d: Construct: the history is over %s, DIR holds %s", file, a->line,
                                   a->module, man->module);
        if (strcmp(a->algebra, "milnor") && strcmp(a->algebra, "adem"))
            return usage(err, errlen, "%s line %d: Construct: algebra '%s' (milnor or adem)", file, a->line, a->algebra);
        return 0;
    case SS_RESOLVE:
        if (a->max_degree > m->nmax)
            fprintf(stderr, "extflow: ss: %s line %d: the history went to stem %d, DIR is complete to stem %d: facts "
                    "beyond it are refused (extflow resolve --stem %d extends DIR)\n", file, a->line, a->max_degree,
                    m->nmax, a->max_degree);     /* a note, not a refusal */
        return 0;
    default:
        break;
    }
    if (k >= 0 && a->a.k != k)
        return usage(err, errlen, "%s line %d: %s: the class at (%d,%d) has %d coordinates, E2 there has dimension %d",
                               file, a->line, name, a->a.n, a->a.s, a->a.k, k);
    if (a->type == SS_ADD_DIFFERENTIAL || a->type == SS_ADD_PRODUCT_DIFFERENTIAL) {
        int kt = ss_dim(m, a->b.n, a->b.s);
        if (kt >= 0 && a->b.k != kt)
            return usage(err, errlen, "%s line %d: %s: the target at (%d,%d) has %d coordinates, E2 there has "
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
    if (ss_add_fact(m, &f) < 0) return usage(err, errlen, "%s line %d: %s: %s", file, a->line, name, m->err);
    return 0;
}

/* ---- outputs ---- */

typedef struct ss_out {
    ss_model *m;
    int last;
    const ss_session *S;
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
    const ss_session *S = ((ss_out *)ctx)->S;
    for (int i = 0; i < S->nactions; i++)
        if (ss_history_write(f, &S->actions[i])) return -1;
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

/* The model anew from the open DIR: its E2, d2.csv, the product types and their products. */
static int build_model(ss_session *S, char *err, size_t errlen)
{
    if (S->have_model) ss_clear(&S->m);
    S->have_model = 0;
    if (model_from_dir(&S->m, &S->d)) {
        snprintf(err, errlen, "out of memory (or an empty region) modelling %s", S->dir);
        return CLI_FAILED;
    }
    S->have_model = 1;
    int rc = read_d2(&S->m, S->dir, err, errlen), type_of[RESOLVED_MAX_CLASSES];
    for (int t = 0; t < S->ntypes && !rc; t++) {
        const ss_type_arg *ty = &S->types[t];
        type_of[t] = ss_add_product(&S->m, ty->c.name, ty->c.n, ty->c.s, ty->c.v, ty->c.permanent, ty->line);
        if (type_of[t] < 0) rc = usage(err, errlen, "%s", S->m.err);
    }
    if (!rc) rc = read_products(&S->m, S->dir, type_of, S->ntypes, err, errlen);
    if (!rc && S->o.deduce) rc = deduce_types(&S->m, S->dir, err, errlen);
    S->nbase = S->m.nfacts;
    S->lifted = S->ntypes;
    return rc;
}

/* The facts of d2.csv and of actions[0..upto] (the product types of later lines left out),
 * then the pages: ss_compute's result, or 2 with err (add_action's refusal). */
static int replay(ss_session *S, int upto, char *err, size_t errlen)
{
    ss_model *m = &S->m;
    ss_truncate(m, S->nbase);
    for (int t = 0; t < m->nproducts; t++) m->products[t].diff_to = -1;
    m->line_limit = upto < 0 ? 0 : S->actions[upto].line;
    for (int i = 0; i <= upto; i++) {
        ss_action *a = &S->actions[i];
        int rc = 0;
        if (a->type == SS_ADD_PRODUCT_TYPE && a->a.permanent) {     /* a permanent type: its class is permanent */
            ss_action p = *a;
            p.type = SS_ADD_PERMANENT;
            rc = add_action(m, &p, S->o.file, &S->d.man, err, errlen);
        } else if (a->type != SS_ADD_PRODUCT_TYPE) rc = add_action(m, a, S->o.file, &S->d.man, err, errlen);
        if (rc) return rc;
    }
    return ss_compute(m, 1);
}

/* All actions replayed; on a contradiction, the first line that causes it found by bisection
 * and named in err (2). */
static int replay_all(ss_session *S, char *err, size_t errlen)
{
    int rc = replay(S, S->nactions - 1, err, errlen);
    if (rc == 1) {
        int lo = -1, hi = S->nactions - 1;      /* actions[0..lo] consistent (none: -1), [0..hi] not */
        if (replay(S, -1, err, errlen) == 1) hi = -1;
        else
            while (hi - lo > 1) {
                int mid = (lo + hi) / 2;
                if (replay(S, mid, err, errlen) == 1) hi = mid;
                else lo = mid;
            }
        replay(S, hi, err, errlen);
        if (hi < 0) snprintf(err, errlen, "%s/d2.csv and the product types contradict each other: %s", S->dir, S->m.err);
        else snprintf(err, errlen, "%s line %d (%s) refused: %s", S->o.file, S->actions[hi].line,
                      ss_action_name(S->actions[hi].type), S->m.err);
        return CLI_USAGE;
    }
    if (rc == 2) return CLI_USAGE;
    if (rc) snprintf(err, errlen, "out of memory");
    return rc ? CLI_FAILED : 0;
}

static int push_action(ss_session *S, const ss_action *a)
{
    if (S->nactions == S->capactions) {
        int cap = S->capactions ? 2 * S->capactions : 64;
        ss_action *na = realloc(S->actions, sizeof *na * (size_t)cap);
        if (!na) return -1;
        S->actions = na;
        S->capactions = cap;
    }
    S->actions[S->nactions++] = *a;
    return 0;
}

/* DIR given back, the types lifted, DIR taken again and the model rebuilt. When the lift
 * fails, the types past keep are dropped and the model rebuilt without them (the lift's exit
 * status returned); when DIR cannot be taken again the session is closed (S->dir NULL). */
static int relift(ss_session *S, int keep, char *err, size_t errlen)
{
    close_dir(S);
    int rc = lift_types(S);
    if (rc) {
        snprintf(err, errlen, "lifting the product types failed (exit %d; its line is above)", rc);
        S->ntypes = keep;
    }
    int orc = resolved_open("ss", S->dir, &S->d, 1);
    if (orc) {
        snprintf(err, errlen, "cannot open %s again after lifting (exit %d)", S->dir, orc);
        if (S->have_model) ss_clear(&S->m);
        S->have_model = 0;
        S->dir = NULL;
        return orc;
    }
    int brc = build_model(S, rc ? err + strlen(err) : err, rc ? 0 : errlen);
    return rc ? rc : brc;
}

int ss_session_open(ss_session *S, const char *dir, const ss_action *actions, int n, const ss_session_opts *o,
                    char *err, size_t errlen)
{
    memset(S, 0, sizeof *S);
    S->dir = dir;
    S->o = *o;
    if (!S->o.file) S->o.file = "the history";
    int rc = resolved_open("ss", dir, &S->d, 1);
    if (rc) {
        snprintf(err, errlen, "cannot open %s (exit %d; its line is above)", dir, rc);
        return rc;
    }
    S->unit = resolved_is_unit(&S->d);
    if (!S->unit && o->products && strcmp(o->products, "none"))
        rc = usage(err, errlen, "--products: DIR's module is not its own unit (products over a module are not modelled)");
    if (!rc && S->unit) rc = add_default_types(S, manifest_prime(dir), err, errlen);
    for (int i = 0; i < n && !rc; i++) {
        rc = action_types(S, &actions[i], err, errlen);
        if (!rc && push_action(S, &actions[i])) {
            snprintf(err, errlen, "out of memory");
            rc = CLI_FAILED;
        }
    }
    if (!rc) rc = S->ntypes ? relift(S, 0, err, errlen) : build_model(S, err, errlen);
    if (!rc) rc = replay_all(S, err, errlen);
    if (rc) ss_session_close(S);
    return rc;
}

int ss_session_add(ss_session *S, const ss_action *a, char *err, size_t errlen)
{
    int ntypes = S->ntypes, rc = action_types(S, a, err, errlen);
    if (rc) {
        S->ntypes = ntypes;
        return rc;
    }
    if (push_action(S, a)) {
        snprintf(err, errlen, "out of memory");
        return CLI_FAILED;
    }
    if (S->ntypes > S->lifted && (rc = relift(S, ntypes, err, errlen)) != 0) {
        S->nactions--;
        if (S->dir) replay(S, S->nactions - 1, err + strlen(err), 0);
        return S->dir ? rc : CLI_FAILED;
    }
    rc = replay(S, S->nactions - 1, err, errlen);
    if (rc == 0) return 0;
    if (rc == 1) snprintf(err, errlen, "%s", S->m.err);
    S->nactions--;                              /* refused: the session as it was */
    S->ntypes = ntypes;
    int back = replay(S, S->nactions - 1, err + strlen(err), 0);
    return back ? CLI_FAILED : rc == 1 || rc == 2 ? CLI_USAGE : CLI_FAILED;
}

int ss_session_drop_last(ss_session *S, char *err, size_t errlen)
{
    if (!S->nactions) {
        snprintf(err, errlen, "nothing to undo");
        return CLI_FAILED;
    }
    S->nactions--;
    return replay(S, S->nactions - 1, err, errlen) ? (snprintf(err, errlen, "%s", S->m.err), CLI_FAILED) : 0;
}

void ss_session_suspend(ss_session *S) { close_dir(S); }

int ss_session_reopen(ss_session *S, char *err, size_t errlen)
{
    int rc = S->ntypes ? lift_types(S) : 0;
    if (rc) snprintf(err, errlen, "lifting the product types failed (exit %d; its line is above)", rc);
    else if ((rc = resolved_open("ss", S->dir, &S->d, 1)) != 0)
        snprintf(err, errlen, "cannot open %s again (exit %d)", S->dir, rc);
    if (!rc) rc = build_model(S, err, errlen);
    if (!rc) rc = replay_all(S, err, errlen);
    if (rc) {
        if (S->have_model) ss_clear(&S->m);
        S->have_model = 0;
        close_dir(S);
        S->dir = NULL;
    }
    return rc;
}

int ss_session_write(ss_session *S, char *err, size_t errlen)
{
    char sub[4400];
    snprintf(sub, sizeof sub, "%s/ss", S->dir);
    if (mkdir(sub, 0777) && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", sub, strerror(errno));
        return CLI_FAILED;
    }
    ss_out o = { &S->m, ss_last_page(&S->m), S };
    static const struct { const char *name; int (*fn)(FILE *, void *); } files[] = {
        { "ss/pages.csv", write_pages }, { "ss/differentials.csv", write_differentials },
        { "ss/permanent.csv", write_permanent }, { "ss/history.jsonl", write_history },
    };
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        if (outdir_write(S->dir, files[k].name, files[k].fn, &o, err, errlen)) return CLI_FAILED;
    if (S->o.deduce) {
        if (outdir_write(S->dir, "ss/deduce.txt", write_deduce, &o, err, errlen)) return CLI_FAILED;
    } else outdir_remove(S->dir, "ss/deduce.txt");
    if (report_write_file(S->dir, "chart.html", &S->d.res, chart_write_html)) {    /* its page selector */
        snprintf(err, errlen, "cannot write %s/chart.html: %s", S->dir, strerror(errno));
        return CLI_FAILED;
    }
    return 0;
}

void ss_session_counts(const ss_session *S, int c[6])
{
    const ss_model *m = &S->m;
    memset(c, 0, 6 * sizeof *c);
    for (int id = 0; id < m->nfacts; id++) {
        const ss_fact *f = &m->facts[id];
        c[3] += f->kind == SS_PERM;
        c[f->origin == SS_GIVEN ? 0 : f->origin == SS_PROPAGATED ? 1 : 2]++;
    }
    for (int n = m->nmin; n <= m->nmax; n++)
        for (int s = 0; s <= m->smax; s++) {
            int dim;
            if (ss_dim(m, n, s) > 0) {
                c[5]++;
                c[4] += ss_einf(m, n, s, &dim);
            }
        }
}

void ss_session_close(ss_session *S)
{
    if (S->have_model) ss_clear(&S->m);
    close_dir(S);
    free(S->actions);
    memset(S, 0, sizeof *S);
}
