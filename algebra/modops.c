/* modops.c — tensor products of finite modules and module maps (see modops.h). */
#include "algebra/modops.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/fpmodule.h"

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
    json_t *root = json_object(), *gens = json_object(), *acts = json_array();
    char *name = NULL, *line = NULL;
    size_t namecap = 0, linecap = 0;
    uint64_t *acc = NULL, *ua = NULL, *ub = NULL;
    int rc = -2;
    if (!root || !gens || !acts) goto out;
    json_object_set_new(root, "p", json_integer(2));
    json_object_set_new(root, "type", json_string("finite dimensional module"));
    json_object_set_new(root, "gens", gens);
    json_object_set_new(root, "actions", acts);
    uint32_t maxdim = 0;
    for (deg_t D = lo; D <= hi; D++) {
        uint32_t dim = 0;
        for (deg_t a = M->min_deg; a <= M->max_deg; a++) dim += fdm_dim(M, a) * fdm_dim(N, D - a);
        if (dim > maxdim) maxdim = dim;
        for (deg_t a = M->min_deg; a <= M->max_deg; a++)
            for (uint32_t p = 0; p < fdm_dim(M, a); p++)
                for (uint32_t q = 0; q < fdm_dim(N, D - a); q++) {
                    const char *x = M->names[a - M->min_deg][p], *y = N->names[D - a - N->min_deg][q];
                    size_t need = strlen(x) + strlen(y) + 2;
                    if (need > namecap) {
                        char *nn = realloc(name, need);
                        if (!nn) goto out;
                        name = nn, namecap = need;
                    }
                    snprintf(name, namecap, "%s*%s", x, y);
                    if (json_object_get(gens, name)) {
                        rc = fail(err, es, "two classes of the tensor product are both named '%s'", name);
                        goto out;
                    }
                    if (json_object_set_new(gens, name, json_integer(D)) != 0) goto out;
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
                        int any = 0;
                        for (deg_t i = 0; i <= n; i++) {
                            const uint64_t *x = sq_of(M, a, p, i, ua), *y = sq_of(N, b, q, n - i, ub);
                            if (!x || !y || !fdm_dim(M, a + i) || !fdm_dim(N, b + n - i)) continue;
                            for (uint32_t p2 = 0; p2 < fdm_dim(M, a + i); p2++)
                                for (uint32_t q2 = 0; f2vec_get(x, p2) && q2 < fdm_dim(N, b + n - i); q2++)
                                    if (f2vec_get(y, q2)) {
                                        f2vec_flip(acc, pair_pos(M, N, D, a + i, p2, q2));
                                        any = 1;
                                    }
                        }
                        if (!any) continue;
                        size_t len = 0;
                        for (deg_t a2 = M->min_deg; a2 <= M->max_deg; a2++)
                            for (uint32_t p2 = 0; p2 < fdm_dim(M, a2); p2++)
                                for (uint32_t q2 = 0; q2 < fdm_dim(N, D - a2); q2++) {
                                    if (!f2vec_get(acc, pair_pos(M, N, D, a2, p2, q2))) continue;
                                    const char *x = M->names[a2 - M->min_deg][p2], *y = N->names[D - a2 - N->min_deg][q2];
                                    size_t need = len + strlen(x) + strlen(y) + 64 + strlen(M->names[a - M->min_deg][p]) +
                                                  strlen(N->names[b - N->min_deg][q]);
                                    if (need > linecap) {
                                        char *nl = realloc(line, need * 2);
                                        if (!nl) goto out;
                                        line = nl, linecap = need * 2;
                                    }
                                    if (!len)
                                        len = (size_t)snprintf(line, linecap, "Sq%d %s*%s =", n, M->names[a - M->min_deg][p],
                                                               N->names[b - N->min_deg][q]);
                                    len += (size_t)snprintf(line + len, linecap - len, "%s %s*%s",
                                                            line[len - 1] == '=' ? "" : " +", x, y);
                                }
                        if (len && json_array_append_new(acts, json_string(line)) != 0) goto out;
                    }
    char *text = json_dumps(root, JSON_INDENT(4) | JSON_PRESERVE_ORDER);
    if (!text) goto out;
    rc = fdm_parse(text, strlen(text), out, err, es);
    free(text);
out:
    if (rc == -2) fail(err, es, "out of memory building a tensor product");
    json_decref(root);
    free(name), free(line), free(acc), free(ua), free(ub);
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
