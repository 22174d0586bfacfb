/* modops.c — tensor products of finite modules and module maps (see modops.h). */
#include "algebra/modops.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/fdmodule_base.h"

#define fail fdm_errorf

const char modops_sphere_text[] = "{\"p\": 2, \"type\": \"finite dimensional module\", \"gens\": {\"x0\": 0}, "
                                  "\"actions\": []}";

static deg_t span_of(const fd_module *m) { return m->max_deg - m->min_deg; }

/* Index of Sq(d) (one entry) in m's basis of A, or UINT32_MAX when d is past it. */
static uint32_t sq_index(const fd_module *m, deg_t d)
{
    if (d > m->A.max_degree) return UINT32_MAX;
    milnor_elt G;
    uint32_t r1 = (uint32_t)d;
    milnor_elt_set(&G, &r1, 1);
    return milnor_index(&m->A, &G);
}

/* Sq^i x for x = class k of M_u into *v (a pointer into M's table, or the unit vector unit
 * when i = 0); 0 when it vanishes (past M's top or past its table). */
static const uint64_t *sq_of(const fd_module *m, deg_t u, uint32_t k, deg_t i, uint64_t *unit)
{
    if (i == 0) {
        memset(unit, 0, (f2vec_words(fdm_dim(m, u)) + 1) * 8);
        f2vec_flip(unit, k);
        return unit;
    }
    uint32_t r = sq_index(m, i);
    return r == UINT32_MAX ? NULL : fdm_act(m, u, k, i, r);
}

int modops_finite_over_A(const fd_module *m)
{
    return fdm_prime(m) == 2 && !m->has_profile && !m->fp && !m->rp_open && !m->has_cofiber;
}

/* A module file being written: its gens and its actions ("SqN x = y + z", one per (N, x)). */
typedef struct module_text {
    json_t *root, *gens, *acts;
    char *line;                 /* the action being written; len 0: none */
    size_t len, cap;
} module_text;

static int mt_init(module_text *t)
{
    memset(t, 0, sizeof *t);
    t->root = json_object(), t->gens = json_object(), t->acts = json_array();
    if (!t->root || !t->gens || !t->acts) {
        json_decref(t->root), json_decref(t->gens), json_decref(t->acts);
        return -1;
    }
    json_object_set_new(t->root, "p", json_integer(2));
    json_object_set_new(t->root, "type", json_string("finite dimensional module"));
    json_object_set_new(t->root, "gens", t->gens);
    json_object_set_new(t->root, "actions", t->acts);
    return 0;
}

/* One term y of Sq^n x (the action's head written on its first term). 0, or -1 out of memory. */
static int mt_term(module_text *t, deg_t n, const char *x, const char *y)
{
    size_t need = t->len + strlen(x) + strlen(y) + 32;
    if (need > t->cap) {
        char *nl = realloc(t->line, need * 2);
        if (!nl) return -1;
        t->line = nl, t->cap = need * 2;
    }
    if (!t->len) t->len = (size_t)snprintf(t->line, t->cap, "Sq%d %s =", n, x);
    t->len += (size_t)snprintf(t->line + t->len, t->cap - t->len, "%s %s", t->line[t->len - 1] == '=' ? "" : " +", y);
    return 0;
}

/* Ends the action being written (nothing when it has no term). 0, or -1 out of memory. */
static int mt_end(module_text *t)
{
    int rc = t->len && json_array_append_new(t->acts, json_string(t->line)) != 0 ? -1 : 0;
    t->len = 0;
    return rc;
}

/* The text, parsed and checked by fdm_parse into out: 0, -1 (err says why) or -2 out of memory. */
static int mt_parse(module_text *t, fd_module *out, char *err, size_t es)
{
    char *text = json_dumps(t->root, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
    if (!text) return -2;
    int rc = fdm_parse(text, strlen(text), out, err, es);
    free(text);
    return rc;
}

static void mt_clear(module_text *t)
{
    json_decref(t->root);
    free(t->line);
}

/* Position of the pair (class p of M_a, class q of N_{D-a}) in the listing of the pairs of
 * degree D: a ascending, then p, then q. */
static uint32_t pair_pos(const fd_module *M, const fd_module *N, deg_t D, deg_t a, uint32_t p, uint32_t q)
{
    uint32_t pos = 0;
    for (deg_t b = M->min_deg; b < a; b++) pos += fdm_dim(M, b) * fdm_dim(N, D - b);
    return pos + p * fdm_dim(N, D - a) + q;
}

int modops_tensor(const fd_module *M, const fd_module *N, fd_module *out, char *err, size_t es)
{
    memset(out, 0, sizeof *out);
    if (!modops_finite_over_A(M) || !modops_finite_over_A(N))
        return fail(err, es, "a tensor product takes finite modules over A at p = 2 (no profile, presentation, "
                    "projective space RP_n^inf or cofiber)");
    deg_t lo = M->min_deg + N->min_deg, hi = M->max_deg + N->max_deg;
    if (hi - lo > FDM_MAX_SPAN)
        return fail(err, es, "the tensor product spans degrees %d..%d, more than %d", lo, hi, FDM_MAX_SPAN);
    module_text t;
    if (mt_init(&t) != 0) return fail(err, es, "out of memory building a tensor product");
    char *name = NULL, *name2 = NULL;
    size_t namecap = 0;
    uint64_t *acc = NULL, *ua = NULL, *ub = NULL;
    int rc = -2;
    uint32_t maxdim = 0, maxname = 0;
    for (deg_t u = M->min_deg; u <= M->max_deg; u++)
        for (uint32_t i = 0; i < fdm_dim(M, u); i++)
            for (deg_t v = N->min_deg; v <= N->max_deg; v++)
                for (uint32_t j = 0; j < fdm_dim(N, v); j++) {
                    uint32_t len = (uint32_t)(strlen(M->names[u - M->min_deg][i]) + strlen(N->names[v - N->min_deg][j]));
                    if (len > maxname) maxname = len;
                }
    namecap = maxname + 2;
    if (!(name = malloc(namecap)) || !(name2 = malloc(namecap))) goto out;
    for (deg_t D = lo; D <= hi; D++) {
        uint32_t dim = 0;
        for (deg_t a = M->min_deg; a <= M->max_deg; a++) dim += fdm_dim(M, a) * fdm_dim(N, D - a);
        if (dim > maxdim) maxdim = dim;
        for (deg_t a = M->min_deg; a <= M->max_deg; a++)
            for (uint32_t p = 0; p < fdm_dim(M, a); p++)
                for (uint32_t q = 0; q < fdm_dim(N, D - a); q++) {
                    snprintf(name, namecap, "%s*%s", M->names[a - M->min_deg][p], N->names[D - a - N->min_deg][q]);
                    if (json_object_get(t.gens, name)) {
                        rc = fail(err, es, "two classes of the tensor product are both named '%s'", name);
                        goto out;
                    }
                    if (json_object_set_new(t.gens, name, json_integer(D)) != 0) goto out;
                }
    }
    acc = calloc(f2vec_words(maxdim) + 1, 8);
    ua = calloc(f2vec_words(maxdim) + 1, 8);
    ub = calloc(f2vec_words(maxdim) + 1, 8);
    if (!acc || !ua || !ub) goto out;
    /* Sq(2^k)(x ⊗ y) = Σ_{i+j=2^k} Sq^i x ⊗ Sq^j y, for each pair and each 2^k within the span */
    for (deg_t n = 1; n <= hi - lo; n <<= 1)
        for (deg_t a = M->min_deg; a <= M->max_deg; a++)
            for (deg_t b = N->min_deg; b <= N->max_deg; b++)
                for (uint32_t p = 0; p < fdm_dim(M, a); p++)
                    for (uint32_t q = 0; q < fdm_dim(N, b); q++) {
                        deg_t D = a + b + n;
                        memset(acc, 0, (f2vec_words(maxdim) + 1) * 8);
                        for (deg_t i = 0; i <= n; i++) {
                            const uint64_t *x = sq_of(M, a, p, i, ua), *y = sq_of(N, b, q, n - i, ub);
                            if (!x || !y || !fdm_dim(M, a + i) || !fdm_dim(N, b + n - i)) continue;
                            for (uint32_t p2 = 0; p2 < fdm_dim(M, a + i); p2++)
                                for (uint32_t q2 = 0; f2vec_get(x, p2) && q2 < fdm_dim(N, b + n - i); q2++)
                                    if (f2vec_get(y, q2)) f2vec_flip(acc, pair_pos(M, N, D, a + i, p2, q2));
                        }
                        snprintf(name, namecap, "%s*%s", M->names[a - M->min_deg][p], N->names[b - N->min_deg][q]);
                        for (deg_t a2 = M->min_deg; a2 <= M->max_deg; a2++)
                            for (uint32_t p2 = 0; p2 < fdm_dim(M, a2); p2++)
                                for (uint32_t q2 = 0; q2 < fdm_dim(N, D - a2); q2++) {
                                    if (!f2vec_get(acc, pair_pos(M, N, D, a2, p2, q2))) continue;
                                    snprintf(name2, namecap, "%s*%s", M->names[a2 - M->min_deg][p2],
                                             N->names[D - a2 - N->min_deg][q2]);
                                    if (mt_term(&t, n, name, name2) != 0) goto out;
                                }
                        if (mt_end(&t) != 0) goto out;
                    }
    rc = mt_parse(&t, out, err, es);
out:
    if (rc == -2) fail(err, es, "out of memory building a tensor product");
    mt_clear(&t);
    free(name), free(name2), free(acc), free(ua), free(ub);
    return rc ? -1 : 0;
}

/* ---- the dual ------------------------------------------------------------------------------- */

/* χ(Sq^n) on N: chi[n][u - min] is dim N_u packed rows (one per class of N_u) over N_{u+n}. */
typedef struct chi_table {
    deg_t span, min;
    size_t words;               /* per row: the largest N_u's */
    uint64_t **op;              /* op[n * (span + 1) + (u - min)] */
} chi_table;

static uint64_t *chi_row(const chi_table *c, deg_t n, deg_t u, uint32_t k)
{
    return c->op[(size_t)n * (size_t)(c->span + 1) + (size_t)(u - c->min)] + (size_t)k * c->words;
}

static void chi_clear(chi_table *c)
{
    for (size_t k = 0; c->op && k < (size_t)(c->span + 1) * (size_t)(c->span + 1); k++) free(c->op[k]);
    free(c->op);
}

/* χ(Sq^n) for n = 0 .. span: X_0 = 1, X_n x = Σ_{i=1..n} Sq^i (X_{n-i} x). 0, or -1 out of memory. */
static int chi_build(const fd_module *N, chi_table *c)
{
    c->span = span_of(N);
    c->min = N->min_deg;
    uint32_t big = 1;
    for (deg_t u = N->min_deg; u <= N->max_deg; u++)
        if (fdm_dim(N, u) > big) big = fdm_dim(N, u);
    c->words = f2vec_words(big) + 1;
    size_t n_ops = (size_t)(c->span + 1) * (size_t)(c->span + 1);
    if (!(c->op = calloc(n_ops, sizeof *c->op))) return -1;
    for (size_t k = 0; k < n_ops; k++)
        if (!(c->op[k] = calloc((size_t)big * c->words, 8))) return -1;
    uint64_t unit[2];
    for (deg_t n = 0; n <= c->span; n++)
        for (deg_t u = N->min_deg; u + n <= N->max_deg; u++)
            for (uint32_t k = 0; k < fdm_dim(N, u); k++) {
                uint64_t *row = chi_row(c, n, u, k);
                if (n == 0) {
                    f2vec_flip(row, k);
                    continue;
                }
                for (deg_t i = 1; i <= n; i++) {
                    const uint64_t *prev = chi_row(c, n - i, u, k);   /* X_{n-i} x in N_{u+n-i} */
                    for (uint32_t b = 0; b < fdm_dim(N, u + n - i); b++) {
                        if (!f2vec_get(prev, b)) continue;
                        const uint64_t *y = sq_of(N, u + n - i, b, i, unit);
                        if (y) f2vec_xor(row, y, f2vec_words(fdm_dim(N, u + n)));
                    }
                }
            }
    return 0;
}

int modops_dual(const fd_module *N, fd_module *out, char *err, size_t es)
{
    memset(out, 0, sizeof *out);
    if (!modops_finite_over_A(N))
        return fail(err, es, "a dual takes a finite module over A at p = 2 (no profile, presentation, projective "
                    "space RP_n^inf or cofiber)");
    chi_table chi = { 0 };
    module_text t;
    if (mt_init(&t) != 0) return fail(err, es, "out of memory building a dual module");
    int rc = -2;
    if (chi_build(N, &chi) != 0) goto out;
    for (deg_t u = N->min_deg; u <= N->max_deg; u++)
        for (uint32_t k = 0; k < fdm_dim(N, u); k++)
            if (json_object_set_new(t.gens, N->names[u - N->min_deg][k], json_integer(-u)) != 0) goto out;
    /* Sq^n on the dual of x' in N_u: Σ over x in N_{u-n} with x' in χ(Sq^n) x of the dual of x */
    for (deg_t n = 1; n <= chi.span; n <<= 1)
        for (deg_t u = N->min_deg + n; u <= N->max_deg; u++)
            for (uint32_t k = 0; k < fdm_dim(N, u); k++) {
                for (uint32_t j = 0; j < fdm_dim(N, u - n); j++)
                    if (f2vec_get(chi_row(&chi, n, u - n, j), k) &&
                        mt_term(&t, n, N->names[u - N->min_deg][k], N->names[u - n - N->min_deg][j]) != 0)
                        goto out;
                if (mt_end(&t) != 0) goto out;
            }
    rc = mt_parse(&t, out, err, es);
out:
    if (rc == -2) fail(err, es, "out of memory building a dual module");
    chi_clear(&chi);
    mt_clear(&t);
    return rc ? -1 : 0;
}

/* ---- module maps ----------------------------------------------------------------------------- */

void modops_map_clear(module_map *f)
{
    for (deg_t u = f->min_deg; f->rows && u <= f->max_deg; u++) f2mat_clear(&f->rows[u - f->min_deg]);
    free(f->rows);
    memset(f, 0, sizeof *f);
}

/* Class `name` (len bytes) of m: its degree and position, or -1. */
static int find_class(const fd_module *m, const char *name, size_t len, deg_t *deg, uint32_t *pos)
{
    for (deg_t t = m->min_deg; t <= m->max_deg; t++)
        for (uint32_t i = 0; i < fdm_dim(m, t); i++)
            if (strlen(m->names[t - m->min_deg][i]) == len && !strncmp(m->names[t - m->min_deg][i], name, len)) {
                *deg = t, *pos = i;
                return 0;
            }
    return -1;
}

/* "y + z" (or "0") into row over N_want; 0, or -1 with a reason. */
static int parse_sum(const char *x, const char *s, const fd_module *N, deg_t want, uint64_t *row, char *err, size_t es)
{
    const char *p = s;
    int terms = 0;
    for (;;) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *q = p;
        while (*q && *q != ' ' && *q != '+') q++;
        deg_t d;
        uint32_t pos;
        if (q - p == 1 && *p == '0') {
            terms++;
        } else if (find_class(N, p, (size_t)(q - p), &d, &pos) != 0) {
            return fail(err, es, "the image of %s names '%.*s', not a class of the target module", x, (int)(q - p), p);
        } else if (d != want) {
            return fail(err, es, "the map has the wrong degree: the image of %s names %.*s of degree %d, but %s + "
                        "degree = %d", x, (int)(q - p), p, d, x, want);
        } else {
            f2vec_flip(row, pos);
            terms++;
        }
        p = q;
        while (*p == ' ') p++;
        if (*p == '+') p++;
        else if (*p) return fail(err, es, "the image of %s: '+' expected in '%s'", x, s);
    }
    return terms ? 0 : fail(err, es, "the image of %s is empty (write \"0\")", x);
}

int modops_map_parse(const char *buf, size_t len, const fd_module *M, const fd_module *N, module_map *f, char *err,
                     size_t es)
{
    memset(f, 0, sizeof *f);
    json_error_t je;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) return fail(err, es, "not JSON (line %d: %s)", je.line, je.text);
    int rc = -1;
    const char *key;
    json_t *val, *deg = json_object_get(root, "degree"), *img = json_object_get(root, "images");
    if (!json_is_object(root)) {
        fail(err, es, "not a JSON object {\"degree\": ..., \"images\": {...}}");
        goto out;
    }
    json_object_foreach(root, key, val)
        if (strcmp(key, "degree") && strcmp(key, "images")) {
            fail(err, es, "key '%s': not known in a map file (degree, images)", key);
            goto out;
        }
    if (!json_is_integer(deg) || json_integer_value(deg) < -4 * FDM_MAX_SHIFT ||
        json_integer_value(deg) > 4 * FDM_MAX_SHIFT) {
        fail(err, es, "key 'degree': missing or not an integer -%d..%d", 4 * FDM_MAX_SHIFT, 4 * FDM_MAX_SHIFT);
        goto out;
    }
    if (!json_is_object(img)) {
        fail(err, es, "key 'images': missing or not an object {\"class\": \"image\", ...}");
        goto out;
    }
    f->degree = (deg_t)json_integer_value(deg);
    f->min_deg = M->min_deg;
    f->max_deg = M->max_deg;
    rc = -2;
    if (!(f->rows = calloc((size_t)(span_of(M) + 1), sizeof *f->rows))) goto out;
    for (deg_t u = M->min_deg; u <= M->max_deg; u++)
        if (f2mat_init(&f->rows[u - M->min_deg], fdm_dim(M, u), fdm_dim(N, u + f->degree)) != 0) goto out;
    rc = -1;
    json_object_foreach(img, key, val) {
        deg_t u;
        uint32_t pos;
        if (find_class(M, key, strlen(key), &u, &pos) != 0) {
            fail(err, es, "key 'images': '%s' is not a class of the source module", key);
            goto out;
        }
        if (!json_is_string(val)) {
            fail(err, es, "the image of %s is not a string such as \"y + z\" or \"0\"", key);
            goto out;
        }
        f2mat *R = &f->rows[u - M->min_deg];
        if (parse_sum(key, json_string_value(val), N, u + f->degree, f2mat_row(R, pos), err, es) != 0) goto out;
    }
    rc = 0;
out:
    if (rc == -2) fail(err, es, "out of memory reading the map");
    if (rc) modops_map_clear(f);
    json_decref(root);
    return rc;
}

void modops_map_apply(const module_map *f, const fd_module *M, deg_t u, const uint64_t *v, uint64_t *out)
{
    if (u < f->min_deg || u > f->max_deg) return;
    const f2mat *R = &f->rows[u - f->min_deg];
    for (uint32_t k = 0; k < fdm_dim(M, u); k++)
        if (f2vec_get(v, k) && R->cols) f2vec_xor(out, f2mat_row(R, k), f2vec_words(R->cols));
}

/* "y + z" (or "0") of the set bits of v over m's degree t, into buf. */
static void format_vec(const fd_module *m, deg_t t, const uint64_t *v, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < fdm_dim(m, t) && len + 1 < size; k++)
        if (f2vec_get(v, k))
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " + " : "", m->names[t - m->min_deg][k]);
    if (!len) snprintf(buf, size, "0");
}

int modops_map_check(const module_map *f, const fd_module *M, const fd_module *N, char *err, size_t es)
{
    deg_t top = span_of(M) > span_of(N) ? span_of(M) : span_of(N);
    const milnor_basis *B = span_of(M) >= span_of(N) ? &M->A : &N->A;   /* the larger of the two */
    uint32_t big = 1;
    for (deg_t t = N->min_deg; t <= N->max_deg; t++)
        if (fdm_dim(N, t) > big) big = fdm_dim(N, t);
    for (deg_t t = M->min_deg; t <= M->max_deg; t++)
        if (fdm_dim(M, t) > big) big = fdm_dim(M, t);
    size_t words = f2vec_words(big) + 1;
    uint64_t *x = calloc(words, 8), *fx = calloc(words, 8), *lhs = calloc(words, 8), *rhs = calloc(words, 8);
    int rc = -1;
    if (!x || !fx || !lhs || !rhs) {
        fail(err, es, "out of memory checking the map");
        goto out;
    }
    for (deg_t d = 1; d <= top; d++)
        for (uint32_t r = 0; r < B->dim[d]; r++) {
            const milnor_elt *R = &B->elts[d][r];
            for (deg_t u = M->min_deg; u <= M->max_deg; u++) {
                deg_t v = u + f->degree, w = v + d;     /* f(x) in N_v; both sides in N_w */
                if (!fdm_dim(N, w)) continue;
                for (uint32_t k = 0; k < fdm_dim(M, u); k++) {
                    memset(x, 0, words * 8), memset(fx, 0, words * 8);
                    memset(lhs, 0, words * 8), memset(rhs, 0, words * 8);
                    const uint64_t *sx = d <= span_of(M) ? fdm_act(M, u, k, d, milnor_index(&M->A, R)) : NULL;
                    if (sx) modops_map_apply(f, M, u + d, sx, lhs);          /* f(Sq(R) x) */
                    f2vec_flip(x, k);
                    modops_map_apply(f, M, u, x, fx);                        /* f(x) */
                    for (uint32_t b = 0; b < fdm_dim(N, v) && d <= span_of(N); b++)
                        if (f2vec_get(fx, b)) {                              /* Sq(R) f(x) */
                            const uint64_t *y = fdm_act(N, v, b, d, milnor_index(&N->A, R));
                            if (y) f2vec_xor(rhs, y, f2vec_words(fdm_dim(N, w)));
                        }
                    if (memcmp(lhs, rhs, f2vec_words(fdm_dim(N, w)) * 8) != 0) {
                        char rn[96], a[200], b2[200];
                        milnor_elt_format(R, rn, sizeof rn);
                        format_vec(N, w, lhs, a, sizeof a);
                        format_vec(N, w, rhs, b2, sizeof b2);
                        const char *xn = M->names[u - M->min_deg][k];
                        fail(err, es, "the map is not A-linear: f(%s %s) = %s but %s f(%s) = %s", rn, xn, a, rn, xn, b2);
                        goto out;
                    }
                }
            }
        }
    rc = 0;
out:
    free(x), free(fx), free(lhs), free(rhs);
    return rc;
}
