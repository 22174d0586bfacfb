/* fdmodule.c — finite dimensional A-modules from module files (see fdmodule.h). */
#include "algebra/fdmodule.h"
#include "algebra/fdmodule_base.h"
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/f2mat.h"
#include "algebra/fpmat.h"
#include "algebra/fieldmat.h"
#include "algebra/fdmodule_p.h"
#include "algebra/fpmodule.h"

#define fail fdm_errorf

typedef struct cls {
    const char *name;
    deg_t deg;
} cls;

/* A given action Sq(2^k) x = sum of classes, while parsing. */
typedef struct given {
    int k;
    int src;                    /* class index (sorted order) */
    uint64_t *img;              /* over M_{|x| + 2^k} */
} given;

static int cls_cmp(const void *a, const void *b)
{
    const cls *x = a, *y = b;
    if (x->deg != y->deg) return x->deg < y->deg ? -1 : 1;
    return strcmp(x->name, y->name);
}

static size_t span_of(const fd_module *m) { return (size_t)(m->max_deg - m->min_deg); }

const uint64_t *fdm_act(const fd_module *m, deg_t u, uint32_t i, deg_t d, uint32_t r)
{
    if (!m->act || u < m->min_deg || d < 0 || u + d > m->max_deg || i >= fdm_dim(m, u)) return NULL;
    const uint64_t *blk = m->act[(size_t)(u - m->min_deg) * (span_of(m) + 1) + (size_t)d];
    if (!blk) return NULL;      /* a presented module: not tabulated off the generators' degrees */
    size_t words = f2vec_words(fdm_dim(m, u + d));
    if (!words) words = 1;
    return blk + ((size_t)i * m->A.dim[d] + r) * words;
}

static uint64_t *act_mut(fd_module *m, deg_t u, uint32_t i, deg_t d, uint32_t r)
{
    return (uint64_t *)fdm_act(m, u, i, d, r);
}

int fdm_is_sphere(const fd_module *m)
{
    return fdm_prime(m) == 2 && !m->has_profile && !m->fp && !m->rp_open && !m->has_cofiber && m->min_deg == 0 && m->max_deg == 0 && m->dim[0] == 1;
}

void fdm_clear(fd_module *m)
{
    if (m->act) {
        size_t n = (span_of(m) + 1) * (span_of(m) + 1);
        for (size_t k = 0; k < n; k++) free(m->act[k]);
    }
    if (m->names && m->dim)
        for (deg_t t = m->min_deg; t <= m->max_deg; t++) {
            for (uint32_t i = 0; i < m->dim[t - m->min_deg]; i++) free(m->names[t - m->min_deg][i]);
            free(m->names[t - m->min_deg]);
        }
    free(m->names);
    free(m->act);
    free(m->dim);
    for (uint32_t k = 0; m->cofiber_rows && k < m->cofiber_nrows; k++) fieldmat_clear(&m->cofiber_rows[k]);
    free(m->cofiber_rows);
    fdm_p_clear(m);
    free(m->canonical);
    free(m->source);
    fpm_free(m->fp);
    if (m->A.dim) milnor_basis_clear(&m->A);
    memset(m, 0, sizeof *m);
}

/* Index of class `name` among the sorted classes, or -1. */
static int find_cls(const cls *c, int n, const char *name, size_t len)
{
    for (int k = 0; k < n; k++)
        if (strlen(c[k].name) == len && !strncmp(c[k].name, name, len)) return k;
    return -1;
}

/* Position of class k within its degree. */
static uint32_t pos_in_degree(const cls *c, int k)
{
    uint32_t p = 0;
    for (int j = k - 1; j >= 0 && c[j].deg == c[k].deg; j--) p++;
    return p;
}

/* The sum after the '=' of action a (at p): "y + 2 z" or "0", classes of degree tdeg with
 * integer coefficients taken mod prime, into coef (one entry per class of that degree, by
 * position). lhs names the left side in messages ("Sq2 x0"). */
static int parse_sum(const char *a, const char *p, const cls *c, int n, deg_t tdeg, const char *lhs, uint32_t prime,
                     uint8_t *coef, char *err, size_t es)
{
    int terms = 0;
    char *end;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        unsigned long k = 1;
        if (isdigit((unsigned char)*p)) {
            k = strtoul(p, &end, 10);
            p = end;
            while (isspace((unsigned char)*p)) p++;
            if (!*p || *p == '+') {         /* a bare number: only 0 means anything */
                if (k != 0) return fail(err, es, "action '%s': a number is not a class", a);
                terms++;
                if (*p == '+') p++;
                continue;
            }
        }
        const char *y0 = p;
        while (*p && !isspace((unsigned char)*p) && *p != '+') p++;
        int dst = find_cls(c, n, y0, (size_t)(p - y0));
        if (dst < 0) return fail(err, es, "action '%s': unknown class '%.*s'", a, (int)(p - y0), y0);
        if (c[dst].deg != tdeg)
            return fail(err, es, "action '%s': class '%s' has degree %d, %s has degree %d", a, c[dst].name,
                        c[dst].deg, lhs, tdeg);
        uint32_t at = pos_in_degree(c, dst);
        coef[at] = (uint8_t)((coef[at] + k % prime) % prime);
        terms++;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '+') p++;
        else if (*p) return fail(err, es, "action '%s': '+' expected", a);
    }
    if (!terms) return fail(err, es, "action '%s': nothing after '='", a);
    return 0;
}

/* "OP x = sum": the operation's name at *op (its length in *oplen), the class x (its index in
 * c), and the position of the sum; 0, or -1 with a reason. */
static int split_action(const char *a, const cls *c, int n, const char **op, size_t *oplen, int *src,
                        const char **sum, char *err, size_t es)
{
    const char *p = a;
    while (isspace((unsigned char)*p)) p++;
    *op = p;
    while (*p && !isspace((unsigned char)*p) && *p != '=') p++;
    *oplen = (size_t)(p - *op);
    while (isspace((unsigned char)*p)) p++;
    const char *x0 = p;
    while (*p && !isspace((unsigned char)*p) && *p != '=') p++;
    if (p == x0) return fail(err, es, "action '%s': no class after %.*s", a, (int)*oplen, *op);
    *src = find_cls(c, n, x0, (size_t)(p - x0));
    if (*src < 0) return fail(err, es, "action '%s': unknown class '%.*s'", a, (int)(p - x0), x0);
    while (isspace((unsigned char)*p)) p++;
    if (*p != '=') return fail(err, es, "action '%s': '=' expected", a);
    *sum = p + 1;
    return 0;
}

/* "SqN x = y + z" (or "= 0"; terms may carry an integer coefficient, taken mod 2). */
static int parse_action(const char *a, const cls *c, int n, const fd_module *m, given *g, char *err,
                        size_t es)
{
    const char *op, *sum;
    size_t oplen;
    int src;
    if (strncmp(a + strspn(a, " \t\n"), "Sq", 2) != 0 || !isdigit((unsigned char)a[strspn(a, " \t\n") + 2]))
        return fail(err, es, "action '%s': expected 'SqN class = ...'", a);
    if (split_action(a, c, n, &op, &oplen, &src, &sum, err, es) != 0) return -1;
    char *end;
    unsigned long N = strtoul(op + 2, &end, 10);
    if (end != op + oplen || N == 0 || (N & (N - 1)) || N > 1024)
        return fail(err, es, "action '%s': only Sq1, Sq2, Sq4, Sq8, ... (the algebra generators) may be given", a);
    int k = 0;
    while ((1ul << k) < N) k++;
    if (N > milnor_profile_slot_max(&m->A.profile, 0))
        return fail(err, es, "action '%s': Sq%lu is not in the sub-Hopf-algebra of key 'profile'", a, N);
    deg_t tdeg = c[src].deg + (deg_t)N;
    uint32_t tdim = fdm_dim(m, tdeg);
    char lhs[160];
    snprintf(lhs, sizeof lhs, "Sq%lu %s", N, c[src].name);
    uint8_t *coef = calloc((size_t)tdim + 1, 1);
    g->k = k;
    g->src = src;
    g->img = calloc(f2vec_words(tdim) + 1, 8);
    if (!g->img || !coef) {
        free(coef);
        return fail(err, es, "out of memory");
    }
    int rc = parse_sum(a, sum, c, n, tdeg, lhs, 2, coef, err, es);
    for (uint32_t b = 0; b < tdim; b++)
        if (coef[b]) f2vec_flip(g->img, b);
    free(coef);
    return rc;
}

/* At an odd p: "b x = ..." (β) or "PN x = ..." (N = p^k), written into m's table; given[]
 * (FDM_P_MAX_GENS x n flags: generator k, class) refuses an action given twice. */
static int parse_action_p(const char *a, const cls *c, int n, fd_module *m, uint8_t *given, char *err, size_t es)
{
    const char *op, *sum;
    size_t oplen;
    int src;
    if (split_action(a, c, n, &op, &oplen, &src, &sum, err, es) != 0) return -1;
    deg_t gdeg;
    uint32_t g;
    int k = fdm_p_generator(m, op, oplen, &gdeg, &g), rc;
    if (k == -1)
        return fail(err, es, "action '%s': only b (the Bockstein, Q_0) and P1, P%u, P%u, ... (the P^(p^k)) may be "
                    "given at p = %u", a, m->p, m->p * m->p, m->p);
    if (k == -2) return fail(err, es, "action '%s': %.*s is not in the sub-Hopf-algebra of key 'profile'", a,
                              (int)oplen, op);
    deg_t tdeg = c[src].deg + gdeg;
    uint32_t tdim = fdm_dim(m, tdeg);
    char lhs[160];
    snprintf(lhs, sizeof lhs, "%.*s %s", (int)oplen, op, c[src].name);
    uint8_t *coef = calloc((size_t)tdim + 1, 1);
    if (!coef) return fail(err, es, "out of memory");
    rc = parse_sum(a, sum, c, n, tdeg, lhs, m->p, coef, err, es);
    size_t flag = (size_t)k * (size_t)n + (size_t)src;
    if (rc == 0 && given[flag]) rc = fail(err, es, "action '%s': %s is given twice", a, lhs);
    if (rc == 0 && tdim) memcpy(fdm_p_act_mut(m, c[src].deg, pos_in_degree(c, src), gdeg, g), coef, tdim);
    given[flag] = 1;
    free(coef);
    return rc;
}

/* Products Sq(2^k)·Sq(S) in one degree, and the solver that writes Sq(R) as their sum. */
struct emit_ctx { const milnor_basis *A; uint64_t *v; };
static void emit_flip(const milnor_elt *T, void *ctx)
{
    struct emit_ctx *e = ctx;
    f2vec_flip(e->v, milnor_index(e->A, T));
}

typedef struct item { int k; uint32_t s; int is_gen; } item;

/* Is Sq(2^k) in the algebra acting (the profile's sub-Hopf-algebra, or A)? */
static int has_sq(const fd_module *m, int k) { return (1u << k) <= milnor_profile_slot_max(&m->A.profile, 0); }

/* Fills the action of every Milnor element of degree d (those of lower degree are done).
 * Returns 0, -1 out of memory, -2 when some Sq(R) of degree d is no sum of products
 * Sq(2^k)·Sq(S) of the algebra (a profile whose algebra the Sq(2^k) in it do not generate). */
static int fill_degree(fd_module *m, deg_t d, const given *gv, int ngiven, const cls *c, int ncls)
{
    const milnor_basis *A = &m->A;
    uint32_t n = A->dim[d];
    int gen_k = -1;
    if ((d & (d - 1)) == 0) for (gen_k = 0; (1 << gen_k) < d; gen_k++) {}
    if (gen_k >= 0 && !has_sq(m, gen_k)) gen_k = -1;
    uint32_t gen_r = UINT32_MAX;
    if (gen_k >= 0) {
        milnor_elt G;
        uint32_t r1 = (uint32_t)d;
        milnor_elt_set(&G, &r1, 1);
        gen_r = milnor_index(A, &G);
        for (int j = 0; j < ngiven; j++) {
            if (gv[j].k != gen_k) continue;
            uint64_t *dst = act_mut(m, c[gv[j].src].deg, pos_in_degree(c, gv[j].src), d, gen_r);
            if (dst) memcpy(dst, gv[j].img, f2vec_words(fdm_dim(m, c[gv[j].src].deg + d)) * 8);
        }
    }
    if (!fdm_degree_acts(m, d)) return 0;
    /* items: Sq(2^k)·Sq(S), 2^k < d, and the generator itself */
    size_t nitems = 0;
    for (int k = 0; (1 << k) < d && has_sq(m, k); k++) nitems += A->dim[d - (1 << k)];
    nitems += gen_k >= 0;
    size_t vw = f2vec_words(n), cw = f2vec_words((uint32_t)nitems);
    item *it = calloc(nitems, sizeof *it);
    uint64_t *vec = calloc(nitems * vw + 1, 8), *comb = calloc(nitems * cw + 1, 8);
    uint64_t *tv = calloc(vw + 1, 8), *tc = calloc(cw + 1, 8);
    int32_t *piv = malloc((nitems + 1) * sizeof *piv);
    int rc = -1;
    if (!it || !vec || !comb || !tv || !tc || !piv) goto out;
    size_t j = 0;
    for (int k = 0; (1 << k) < d && has_sq(m, k); k++) {
        milnor_elt G;
        uint32_t r1 = 1u << k;
        milnor_elt_set(&G, &r1, 1);
        for (uint32_t s = 0; s < A->dim[d - (1 << k)]; s++, j++) {
            it[j] = (item){ k, s, 0 };
            struct emit_ctx e = { A, vec + j * vw };
            milnor_mul_each(&G, &A->elts[d - (1 << k)][s], emit_flip, &e);
            f2vec_flip(comb + j * cw, j);
        }
    }
    if (gen_k >= 0) {
        it[j] = (item){ gen_k, gen_r, 1 };
        f2vec_flip(vec + j * vw, gen_r);
        f2vec_flip(comb + j * cw, j);
        j++;
    }
    /* echelon form of the items (pivot = first set bit) */
    size_t rank = 0;
    for (size_t a = 0; a < nitems; a++) {
        int64_t p = f2vec_first_bit(vec + a * vw, n);
        piv[a] = (int32_t)p;
        if (p < 0) continue;
        for (size_t b = a + 1; b < nitems; b++)
            if (f2vec_get(vec + b * vw, (uint64_t)p)) {
                f2vec_xor(vec + b * vw, vec + a * vw, vw);
                f2vec_xor(comb + b * cw, comb + a * cw, cw);
            }
        rank++;
    }
    for (uint32_t r = 0; r < n; r++) {
        if (r == gen_r) continue;
        memset(tv, 0, vw * 8);
        memset(tc, 0, cw * 8);
        f2vec_flip(tv, r);
        for (size_t a = 0; a < nitems; a++)
            if (piv[a] >= 0 && f2vec_get(tv, (uint64_t)piv[a])) {
                f2vec_xor(tv, vec + a * vw, vw);
                f2vec_xor(tc, comb + a * cw, cw);
            }
        if (!f2vec_is_zero(tv, vw)) {   /* A is generated by the Sq(2^k); a profile's algebra may not be */
            rc = -2;
            goto out;
        }
        for (deg_t u = m->min_deg; u + d <= m->max_deg; u++)
            for (uint32_t i = 0; i < fdm_dim(m, u); i++) {
                uint64_t *dst = act_mut(m, u, i, d, r);
                for (size_t q = 0; q < nitems; q++) {
                    if (!f2vec_get(tc, q)) continue;
                    if (it[q].is_gen) {
                        f2vec_xor(dst, fdm_act(m, u, i, d, gen_r), f2vec_words(fdm_dim(m, u + d)));
                        continue;
                    }
                    deg_t e = d - (1 << it[q].k);
                    const uint64_t *y = fdm_act(m, u, i, e, it[q].s);
                    for (uint32_t b = 0; b < fdm_dim(m, u + e); b++)
                        if (f2vec_get(y, b)) {
                            milnor_elt G;
                            uint32_t r1 = 1u << it[q].k;
                            milnor_elt_set(&G, &r1, 1);
                            const uint64_t *z = fdm_act(m, u + e, b, 1 << it[q].k, milnor_index(A, &G));
                            f2vec_xor(dst, z, f2vec_words(fdm_dim(m, u + d)));
                        }
                }
            }
    }
    (void)ncls;
    rc = 0;
out:
    free(it); free(vec); free(comb); free(tv); free(tc); free(piv);
    return rc;
}

/* Sq(R)(Sq(S) x) = (Sq(R)Sq(S)) x for all R, S of positive degree and all x. */
static int check_module(const fd_module *m, char *err, size_t es)
{
    const milnor_basis *A = &m->A;
    deg_t span = m->max_deg - m->min_deg;
    uint64_t *prod = calloc(64, 8), *lhs = NULL, *rhs = NULL;
    size_t mw = 1;
    for (deg_t t = m->min_deg; t <= m->max_deg; t++)
        if (f2vec_words(fdm_dim(m, t)) > mw) mw = f2vec_words(fdm_dim(m, t));
    lhs = calloc(mw + 1, 8);
    rhs = calloc(mw + 1, 8);
    int rc = -1;
    if (!prod || !lhs || !rhs) { fail(err, es, "out of memory"); goto out; }
    for (deg_t d1 = 1; d1 < span; d1++)
        for (deg_t d2 = 1; d1 + d2 <= span; d2++) {
            if (!fdm_degree_acts(m, d1 + d2)) continue;     /* both sides land in zero */
            size_t pw = f2vec_words(A->dim[d1 + d2]);
            uint64_t *np = realloc(prod, (pw + 1) * 8);
            if (!np) { fail(err, es, "out of memory"); goto out; }
            prod = np;
            for (uint32_t r1 = 0; r1 < A->dim[d1]; r1++)
                for (uint32_t r2 = 0; r2 < A->dim[d2]; r2++) {
                    memset(prod, 0, pw * 8);
                    struct emit_ctx e = { A, prod };
                    milnor_mul_each(&A->elts[d1][r1], &A->elts[d2][r2], emit_flip, &e);
                    for (deg_t u = m->min_deg; u + d1 + d2 <= m->max_deg; u++)
                        for (uint32_t i = 0; i < fdm_dim(m, u); i++) {
                            uint32_t tdim = fdm_dim(m, u + d1 + d2);
                            size_t w = f2vec_words(tdim);
                            memset(lhs, 0, mw * 8);
                            memset(rhs, 0, mw * 8);
                            const uint64_t *y = fdm_act(m, u, i, d2, r2);
                            for (uint32_t b = 0; b < fdm_dim(m, u + d2); b++)
                                if (f2vec_get(y, b)) f2vec_xor(lhs, fdm_act(m, u + d2, b, d1, r1), w);
                            for (uint32_t q = 0; q < A->dim[d1 + d2]; q++)
                                if (f2vec_get(prod, q)) f2vec_xor(rhs, fdm_act(m, u, i, d1 + d2, q), w);
                            if (memcmp(lhs, rhs, w * 8) != 0) {
                                char b1[64], b2[64];
                                fail(err, es, "not a module: %s·(%s·%s) differs from (%s·%s)·%s "
                                     "(the actions break an Adem relation)",
                                     milnor_elt_format(&A->elts[d1][r1], b1, sizeof b1),
                                     milnor_elt_format(&A->elts[d2][r2], b2, sizeof b2),
                                     m->names[u - m->min_deg][i], b1, b2, m->names[u - m->min_deg][i]);
                                goto out;
                            }
                        }
                }
        }
    rc = 0;
out:
    free(prod); free(lhs); free(rhs);
    return rc;
}

/* "p=2;gens=x0:0,x1:1;actions=Sq1 x0=x1;..." with classes and actions in basis order. */
static int make_canonical(fd_module *m)
{
    char *buf = NULL, tmp[512];
    size_t len = 0, cap = 0;
    int bad = fdm_append(&buf, &len, &cap, "p=2;gens=");
    for (deg_t t = m->min_deg; t <= m->max_deg; t++)
        for (uint32_t i = 0; i < fdm_dim(m, t); i++) {
            snprintf(tmp, sizeof tmp, "%s:%d,", m->names[t - m->min_deg][i], t);
            bad |= fdm_append(&buf, &len, &cap, tmp);
        }
    if (m->has_profile) {   /* modules without a profile keep the ids they had before profiles */
        const milnor_profile *pr = &m->A.profile;
        snprintf(tmp, sizeof tmp, ";profile=%s:", pr->truncated ? "truncated" : "infinite");
        bad |= fdm_append(&buf, &len, &cap, tmp);
        for (int i = 0; i < pr->len; i++) {
            snprintf(tmp, sizeof tmp, "%s%d", i ? "," : "", pr->h[i]);
            bad |= fdm_append(&buf, &len, &cap, tmp);
        }
    }
    bad |= fdm_append(&buf, &len, &cap, ";actions=");
    for (deg_t d = 1; d <= m->max_deg - m->min_deg && (uint32_t)d <= milnor_profile_slot_max(&m->A.profile, 0); d <<= 1) {
        milnor_elt G;
        uint32_t r1 = (uint32_t)d;
        milnor_elt_set(&G, &r1, 1);
        uint32_t g = milnor_index(&m->A, &G);
        for (deg_t u = m->min_deg; u + d <= m->max_deg; u++)
            for (uint32_t i = 0; i < fdm_dim(m, u); i++) {
                const uint64_t *y = fdm_act(m, u, i, d, g);
                if (f2vec_is_zero(y, f2vec_words(fdm_dim(m, u + d)))) continue;
                snprintf(tmp, sizeof tmp, "Sq%d %s=", d, m->names[u - m->min_deg][i]);
                bad |= fdm_append(&buf, &len, &cap, tmp);
                for (uint32_t b = 0; b < fdm_dim(m, u + d); b++)
                    if (f2vec_get(y, b)) {
                        snprintf(tmp, sizeof tmp, "%s+", m->names[u + d - m->min_deg][b]);
                        bad |= fdm_append(&buf, &len, &cap, tmp);
                    }
                bad |= fdm_append(&buf, &len, &cap, ";");
            }
    }
    if (bad) { free(buf); return -1; }
    m->canonical = buf;
    return 0;
}

/* Every key of the object o (the value of key `what`) is one of names (NULL-ended): 0, or -1
 * with err naming the first other one. */
static int only_entries(json_t *o, const char *what, const char *const *names, char *err, size_t es)
{
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        int k = 0;
        while (names[k] && strcmp(key, names[k])) k++;
        if (names[k]) continue;
        char list[128] = "";
        for (k = 0; names[k]; k++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "", names[k]);
        return fail(err, es, "key '%s': unknown entry '%s' (%s)", what, key, list);
    }
    return 0;
}

/* The entries a "profile" may have, at every prime: truncated (*truncated), p_part (h[0..*len),
 * at most maxlen entries 0..30) and q_part (*qmask; NULL where it is ignored, p = 2). */
static int parse_profile_entries(json_t *pj, int *truncated, uint8_t *h, int maxlen, int *len, uint32_t *qmask,
                                 char *err, size_t es)
{
    if (!json_is_object(pj)) return fail(err, es, "key 'profile': not an object");
    static const char *const entries[] = { "truncated", "p_part", "q_part", NULL };
    if (only_entries(pj, "profile", entries, err, es) != 0) return -1;
    json_t *tr = json_object_get(pj, "truncated"), *pp = json_object_get(pj, "p_part"),
           *qp = json_object_get(pj, "q_part");
    if (tr && !json_is_boolean(tr)) return fail(err, es, "key 'profile': 'truncated' is not true or false");
    *truncated = tr && json_is_true(tr);
    if (qmask && qp && (!json_is_integer(qp) || json_integer_value(qp) < 0 || json_integer_value(qp) > (json_int_t)UINT32_MAX))
        return fail(err, es, "key 'profile': 'q_part' is not an integer 0..2^32-1");
    if (qmask && qp) *qmask = (uint32_t)json_integer_value(qp);
    if (pp && !json_is_array(pp)) return fail(err, es, "key 'profile': 'p_part' is not a list");
    if (json_array_size(pp) > (size_t)maxlen)
        return fail(err, es, "key 'profile': 'p_part' has more than %d entries", maxlen);
    size_t i;
    json_t *v;
    json_array_foreach(pp, i, v) {
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 30)
            return fail(err, es, "key 'profile': p_part entry %zu is not an integer 0..30", i);
        h[i] = (uint8_t)json_integer_value(v);
    }
    *len = (int)json_array_size(pp);
    return 0;
}

/* "profile": {"truncated": bool, "p_part": [h1, h2, ...]} (q_part: odd primes only, ignored):
 * the sub-Hopf-algebra of Sq(R) with r_i < 2^{h_i}; absent, or [] not truncated: A itself. */
static int parse_profile(json_t *pj, milnor_profile *out, char *err, size_t es)
{
    *out = milnor_profile_full();
    if (!pj) return 0;
    if (parse_profile_entries(pj, &out->truncated, out->h, MILNOR_MAX_LEN, &out->len, NULL, err, es) != 0) return -1;
    while (out->truncated && out->len > 0 && out->h[out->len - 1] == 0) out->len--;
    if (!milnor_profile_is_valid(out))
        return fail(err, es, "key 'profile': p_part is not the profile of a sub-Hopf-algebra (for i, j >= 1: "
                    "h_i <= j + h_{i+j} or h_j <= h_{i+j})");
    return 0;
}

/* Odd p: "profile": {"truncated": bool, "q_part": mask, "p_part": [h1, h2, ...]}, the
 * sub-Hopf-algebra of Q(E)P(R) with E in q_part (default: every Q_k) and r_i < p^{h_i}. */
static int parse_profile_p(json_t *pj, milnor_p_profile *out, char *err, size_t es)
{
    *out = milnor_p_profile_full();
    if (!pj) return 0;
    return parse_profile_entries(pj, &out->truncated, out->h, MILNOR_P_MAX_LEN, &out->len, &out->qmask, err, es);
}

/* Moves every degree up by k (M becomes Σ^k M); the canonical text says so. */
static int apply_shift(fd_module *m, deg_t k)
{
    if (!k) return 0;
    m->min_deg += k;
    m->max_deg += k;
    if (m->fp) fpm_shift(m->fp, k);
    m->rp_offset += k;
    char tail[32];
    snprintf(tail, sizeof tail, ";shift=%d", k);
    char *c = realloc(m->canonical, strlen(m->canonical) + strlen(tail) + 1);
    if (!c) return -1;
    strcat(c, tail);
    m->canonical = c;
    return 0;
}

int fdm_shift(fd_module *m, deg_t k, char *err, size_t es)
{
    if (!k) return 0;
    json_error_t je;
    json_t *root = json_loadb(m->source, m->source_len, 0, &je);
    if (!root) return fail(err, es, "out of memory");
    json_t *old = json_object_get(root, "shift");
    json_int_t total = (old ? json_integer_value(old) : 0) + k;
    if (total < -FDM_MAX_SHIFT || total > FDM_MAX_SHIFT) {
        json_decref(root);
        return fail(err, es, "shift %lld: out of range -%d..%d", (long long)total, FDM_MAX_SHIFT, FDM_MAX_SHIFT);
    }
    char *text = NULL;
    if (json_object_set_new(root, "shift", json_integer(total)) == 0) text = json_dumps(root, JSON_INDENT(4));
    json_decref(root);
    if (!text) return fail(err, es, "out of memory");
    fd_module shifted;      /* parsed again from the text that DIR/module.json will hold */
    int rc = fdm_parse(text, strlen(text), &shifted, err, es);
    free(text);
    if (rc != 0) return -1;
    fdm_clear(m);
    *m = shifted;
    return 0;
}

int fdm_truncate(fd_module *m, deg_t top, char *err, size_t es)
{
    return m->fp ? fpm_truncate(m, top, err, es) : m->rp_open ? rpm_truncate(m, top, err, es) : 0;
}

/* The keys a module file may have: those of every type, those of its type, and keys that
 * carry no mathematics (names and sseq's chart annotations). Any other key is refused: a key
 * we do not read could change the module, and ignoring it would give a wrong table. */
static int check_keys(json_t *root, const char *type, char *err, size_t es)
{
    static const char *const common[] = { "p", "type", "shift", "profile", "algebra", "cofiber",
                                          "name", "self_maps", "products", NULL };
    static const char *const fd[] = { "gens", "actions", NULL };
    static const char *const fp[] = { "gens", "milnor_relations", "adem_relations", NULL };
    static const char *const rp[] = { "min", "max", "clear_bottom", NULL };
    const char *const *own = !strcmp(type, "finite dimensional module") ? fd
                           : !strcmp(type, "finitely presented module") ? fp : rp;
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        int known = 0;
        for (int k = 0; common[k] && !known; k++) known = !strcmp(key, common[k]);
        for (int k = 0; own[k] && !known; k++) known = !strcmp(key, own[k]);
        if (known) continue;
        if (strstr(key, "actions"))
            return fail(err, es, "key '%s': not read by extflow (a %s gives its action in 'actions', "
                        "as \"SqN x = y + z\")", key, type);
        return fail(err, es, "key '%s': not known for a %s (refused rather than ignored)", key, type);
    }
    return 0;
}

/* Key "cofiber": {"s": s, "t": t, "idx": i}, the class i of Ext^{s,t}(M); t in the file's
 * degrees (before its shift). */
static int parse_cofiber(json_t *cj, fd_module *m, char *err, size_t es)
{
    if (!cj) return 0;
    if (!json_is_object(cj)) return fail(err, es, "key 'cofiber': not an object {\"s\", \"t\", \"idx\"}");
    static const char *const entries[] = { "s", "t", "idx", NULL };
    if (only_entries(cj, "cofiber", entries, err, es) != 0) return -1;
    json_t *s = json_object_get(cj, "s"), *t = json_object_get(cj, "t"), *i = json_object_get(cj, "idx");
    if (!json_is_integer(s) || json_integer_value(s) < 1 || json_integer_value(s) > 256)
        return fail(err, es, "key 'cofiber': 's' missing or not an integer 1..256");
    if (!json_is_integer(t) || json_integer_value(t) < -1024 || json_integer_value(t) > 1024)
        return fail(err, es, "key 'cofiber': 't' missing or not an integer -1024..1024");
    if (!json_is_integer(i) || json_integer_value(i) < 0 || json_integer_value(i) > 1000000)
        return fail(err, es, "key 'cofiber': 'idx' missing or not an integer 0..1000000");
    m->has_cofiber = 1;
    m->cofiber_s = (int)json_integer_value(s);
    m->cofiber_t = (deg_t)json_integer_value(t);
    m->cofiber_idx = (uint32_t)json_integer_value(i);
    return 0;
}

/* The cofiber's part of the canonical text, after the shift: ";cofiber=s,t,idx". */
static int append_cofiber(fd_module *m)
{
    if (!m->has_cofiber) return 0;
    char tail[80];
    snprintf(tail, sizeof tail, ";cofiber=%d,%d,%u", m->cofiber_s, m->cofiber_t, m->cofiber_idx);
    char *c = realloc(m->canonical, strlen(m->canonical) + strlen(tail) + 1);
    if (!c) return -1;
    strcat(c, tail);
    m->canonical = c;
    return 0;
}

/* The keys every module file has, checked: p, type (into *type), the optional algebra, cofiber,
 * shift (into *shift, or NULL) and profile (at p = 2 into *profile, at odd p into m). 0, or -1
 * with err set. */
static int parse_header(json_t *root, fd_module *m, const char **type, json_t **shift, milnor_profile *profile,
                        char *err, size_t es)
{
    if (!json_is_object(root)) return fail(err, es, "bad JSON: the module is not an object");
    json_t *p = json_object_get(root, "p");
    if (!json_is_integer(p)) return fail(err, es, "key 'p': missing or not an integer");
    json_int_t pv = json_integer_value(p);
    if (pv != 2 && (pv < 3 || pv > FPMAT_MAX_PRIME || !milnor_p_prime_ok((uint32_t)pv)))
        return fail(err, es, "key 'p': p = %lld, not 2 or an odd prime below %d", (long long)pv, FPMAT_MAX_PRIME + 1);
    m->p = (uint32_t)pv;
    json_t *tj = json_object_get(root, "type");
    if (!json_is_string(tj)) return fail(err, es, "key 'type': missing or not a string");
    *type = json_string_value(tj);
    if (strcmp(*type, "finite dimensional module") && strcmp(*type, "finitely presented module") &&
        strcmp(*type, "real projective space"))
        return fail(err, es, "key 'type': '%s' modules are not supported (finite dimensional, finitely presented "
                    "modules and real projective spaces only)", *type);
    if (check_keys(root, *type, err, es) != 0) return -1;
    if (m->p != 2 && strcmp(*type, "finite dimensional module"))
        return fail(err, es, "key 'type': at p = %u only finite dimensional modules are supported", m->p);
    json_t *alg = json_object_get(root, "algebra");
    if (alg) {
        size_t k;
        json_t *v;
        if (!json_is_array(alg)) return fail(err, es, "key 'algebra': not a list");
        json_array_foreach(alg, k, v)
            if (!json_is_string(v) || (strcmp(json_string_value(v), "milnor") && strcmp(json_string_value(v), "adem")))
                return fail(err, es, "key 'algebra': entries must be \"milnor\" or \"adem\"");
    }
    if (parse_cofiber(json_object_get(root, "cofiber"), m, err, es) != 0) return -1;
    *shift = json_object_get(root, "shift");
    if (*shift && (!json_is_integer(*shift) || json_integer_value(*shift) < -FDM_MAX_SHIFT ||
                   json_integer_value(*shift) > FDM_MAX_SHIFT))
        return fail(err, es, "key 'shift': not an integer in -%d..%d", FDM_MAX_SHIFT, FDM_MAX_SHIFT);
    *profile = milnor_profile_full();
    if (m->p != 2 ? parse_profile_p(json_object_get(root, "profile"), &m->pprofile, err, es) != 0
                  : parse_profile(json_object_get(root, "profile"), profile, err, es) != 0)
        return -1;
    m->has_profile = profile->truncated || profile->len > 0;
    return 0;
}

/* The classes of key gens into *c (sorted by degree, then name; *ncls of them), and m's degrees,
 * dimensions and names. 0, or -1 with err set. */
static int parse_classes(json_t *gens, fd_module *m, cls **c, int *ncls, char *err, size_t es)
{
    if (!json_is_object(gens) || json_object_size(gens) == 0)
        return fail(err, es, "key 'gens': missing, empty or not an object");
    if (!(*c = calloc(json_object_size(gens), sizeof **c))) return fail(err, es, "out of memory");
    const char *key;
    json_t *val;
    json_object_foreach(gens, key, val) {
        if (!json_is_integer(val)) return fail(err, es, "class '%s': degree is not an integer", key);
        json_int_t d = json_integer_value(val);
        if (d < -512 || d > 512) return fail(err, es, "class '%s': degree %lld is out of range", key, (long long)d);
        if (!key[0] || strpbrk(key, " \t\n+="))
            return fail(err, es, "class '%s': a name may not be empty or hold spaces, '+' or '='", key);
        (*c)[(*ncls)++] = (cls){ key, (deg_t)d };
    }
    qsort(*c, (size_t)*ncls, sizeof **c, cls_cmp);
    m->min_deg = (*c)[0].deg;
    m->max_deg = (*c)[*ncls - 1].deg;
    deg_t span = m->max_deg - m->min_deg;
    if (span > FDM_MAX_SPAN)
        return fail(err, es, "key 'gens': classes from degree %d to %d: a module spread over more than %d degrees is "
                    "not supported yet", m->min_deg, m->max_deg, FDM_MAX_SPAN);
    m->dim = calloc((size_t)span + 1, sizeof *m->dim);
    m->names = calloc((size_t)span + 1, sizeof *m->names);
    if (!m->dim || !m->names) return fail(err, es, "out of memory");
    for (int k = 0; k < *ncls; k++) m->dim[(*c)[k].deg - m->min_deg]++;
    for (deg_t t = 0; t <= span; t++)
        if (!(m->names[t] = calloc(m->dim[t] + 1, sizeof **m->names))) return fail(err, es, "out of memory");
    for (int k = 0; k < *ncls; k++)
        if (!(m->names[(*c)[k].deg - m->min_deg][pos_in_degree(*c, k)] = strdup((*c)[k].name)))
            return fail(err, es, "out of memory");
    return 0;
}

/* Odd p: the action of A_p or of B (fdmodule_p.h) from the given actions, completed and
 * checked, and the canonical text. 0, or -1 with err set. */
static int actions_p(json_t *acts, const cls *c, int ncls, fd_module *m, char *err, size_t es)
{
    uint8_t *given = calloc(FDM_P_MAX_GENS * (size_t)ncls + 1, 1);
    int bad = !given || fdm_p_tables(m) != 0;
    if (bad) fail(err, es, "out of memory");
    size_t ai;
    json_t *a;
    json_array_foreach(acts, ai, a) {
        if (bad) break;
        if (!json_is_string(a)) bad = fail(err, es, "key 'actions': entry %zu is not a string", ai);
        else bad = parse_action_p(json_string_value(a), c, ncls, m, given, err, es);
    }
    free(given);
    if (bad || fdm_p_complete(m, json_array_size(acts) > 0, err, es) != 0) return -1;
    if (fdm_p_canonical(m) != 0) return fail(err, es, "out of memory");
    return 0;
}

/* p = 2: the given actions Sq(2^k) x into gv (*ngiven of them, each at most once), then the
 * action of every Milnor element of the profile's algebra, checked, and the canonical text. 0,
 * or -1 with err set. */
static int actions_2(json_t *acts, const cls *c, int ncls, const milnor_profile *profile, fd_module *m,
                     given **gv, int *ngiven, char *err, size_t es)
{
    deg_t span = m->max_deg - m->min_deg;
    if (milnor_basis_init(&m->A, span, profile) != 0) return fail(err, es, "out of memory");
    if (!(*gv = calloc(json_array_size(acts) + 1, sizeof **gv))) return fail(err, es, "out of memory");
    given *g = *gv;
    size_t ai;
    json_t *a;
    json_array_foreach(acts, ai, a) {
        if (!json_is_string(a)) return fail(err, es, "key 'actions': entry %zu is not a string", ai);
        if (parse_action(json_string_value(a), c, ncls, m, &g[*ngiven], err, es) != 0) {
            free(g[*ngiven].img);
            return -1;
        }
        (*ngiven)++;
        for (int j = 0; j < *ngiven - 1; j++)
            if (g[j].k == g[*ngiven - 1].k && g[j].src == g[*ngiven - 1].src)
                return fail(err, es, "action '%s': Sq%d %s is given twice", json_string_value(a), 1 << g[j].k,
                            c[g[j].src].name);
    }
    m->act = calloc(((size_t)span + 1) * ((size_t)span + 1), sizeof *m->act);
    if (!m->act) return fail(err, es, "out of memory");
    for (deg_t u = m->min_deg; u <= m->max_deg; u++)
        for (deg_t d = 0; u + d <= m->max_deg; d++) {
            size_t words = f2vec_words(fdm_dim(m, u + d));
            if (!words) words = 1;
            size_t n = (size_t)fdm_dim(m, u) * m->A.dim[d] * words;
            if (!(m->act[(size_t)(u - m->min_deg) * ((size_t)span + 1) + (size_t)d] = calloc(n + 1, 8)))
                return fail(err, es, "out of memory");
        }
    for (deg_t u = m->min_deg; u <= m->max_deg; u++)     /* Sq(0) = 1 */
        for (uint32_t i = 0; i < fdm_dim(m, u); i++) f2vec_flip(act_mut(m, u, i, 0, 0), i);
    for (deg_t d = 1; d <= span; d++) {
        int frc = fill_degree(m, d, g, *ngiven, c, ncls);
        if (frc == -2)
            return fail(err, es, "key 'profile': its algebra is not generated by the Sq(2^k) it contains (not supported)");
        if (frc != 0) return fail(err, es, "out of memory");
    }
    if (check_module(m, err, es) != 0) return -1;
    if (make_canonical(m) != 0) return fail(err, es, "out of memory");
    return 0;
}

/* What every kind of module file ends with: the source kept, the shift applied, the cofiber's
 * class appended. 0, or -1 with err set. */
static int finish_module(fd_module *m, const char *text, size_t textlen, json_t *shift, char *err, size_t es)
{
    if (!(m->source = malloc(textlen + 1))) return fail(err, es, "out of memory");
    memcpy(m->source, text, textlen);
    m->source[textlen] = 0;
    m->source_len = textlen;
    if (shift && apply_shift(m, (deg_t)json_integer_value(shift)) != 0) return fail(err, es, "out of memory");
    if (!m->has_cofiber) return 0;
    /* the class becomes a self-map of M through M's bottom class (stages/resolve/cofiber.h): a
     * finite module, cyclic on a bottom class of its own (checked by cofiber_prepare) */
    if (m->fp || m->rp_open) return fail(err, es, "key 'cofiber': supported for finite dimensional modules only");
    if (m->dim[0] != 1)
        return fail(err, es, "key 'cofiber': the module's bottom degree %d holds %u classes (the class is read as a "
                    "self-map of M through its one bottom class)", m->min_deg, m->dim[0]);
    if (shift) m->cofiber_t += (deg_t)json_integer_value(shift);
    /* Ext^{s,t}(M) is zero below M's bottom stem: no class to take the cofiber of */
    if (m->cofiber_t - m->cofiber_s < m->min_deg)
        return fail(err, es, "key 'cofiber': Ext^{%d,%d} is zero (stem %d is below the module's bottom degree %d)",
                    m->cofiber_s, m->cofiber_t, m->cofiber_t - m->cofiber_s, m->min_deg);
    if (append_cofiber(m) != 0) return fail(err, es, "out of memory");
    return 0;
}

int fdm_parse(const char *text, size_t textlen, fd_module *m, char *err, size_t es)
{
    memset(m, 0, sizeof *m);
    json_error_t je;
    json_t *root = json_loadb(text, textlen, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        fail(err, es, "bad JSON at line %d: %s", je.line, je.text);
        return -1;
    }
    cls *c = NULL;
    given *gv = NULL;
    int ncls = 0, ngiven = 0, rc = -1;
    const char *type = NULL;
    json_t *shift = NULL;
    milnor_profile profile = milnor_profile_full();
    if (parse_header(root, m, &type, &shift, &profile, err, es) != 0) goto out;
    if (!strcmp(type, "finitely presented module")) {
        if (m->has_profile) {
            fail(err, es, "key 'profile': a finitely presented module over a profile's algebra is not supported");
            goto out;
        }
        if (fpm_parse(root, m, err, es) != 0) goto out;
    } else if (!strcmp(type, "real projective space")) {
        m->rp_profile = profile;    /* over B: Sq(R) x^e for the Sq(R) of B (fpmodule.h) */
        if (rpm_parse(root, m, err, es) != 0) goto out;
        if (!m->rp_open && make_canonical(m) != 0) { fail(err, es, "out of memory"); goto out; }
    } else {
        if (parse_classes(json_object_get(root, "gens"), m, &c, &ncls, err, es) != 0) goto out;
        json_t *acts = json_object_get(root, "actions");
        if (acts && !json_is_array(acts)) { fail(err, es, "key 'actions': not a list"); goto out; }
        if (m->p != 2 ? actions_p(acts, c, ncls, m, err, es) != 0
                      : actions_2(acts, c, ncls, &profile, m, &gv, &ngiven, err, es) != 0)
            goto out;
    }
    rc = finish_module(m, text, textlen, shift, err, es);
out:
    for (int j = 0; gv && j < ngiven; j++) free(gv[j].img);
    free(gv);
    free(c);            /* names point into root: copied above */
    json_decref(root);
    if (rc != 0) fdm_clear(m);
    return rc;
}
