/* fpmodule.c — finitely presented modules, truncated to finite ones (see fpmodule.h). */
#include "algebra/fpmodule.h"
#include "algebra/fdmodule_base.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/f2mat.h"

typedef struct fp_presentation {
    int ngens;
    char **names;               /* by degree, then name */
    deg_t *deg;
    int nrels;
    deg_t *rel_deg;
    uint64_t **rel;             /* over V_{rel_deg}: generator blocks of A_{rel_deg - |g|} */
} fp_presentation;

#define fail fdm_errorf

void fpm_free(fp_presentation *fp)
{
    if (!fp) return;
    for (int g = 0; g < fp->ngens; g++) free(fp->names[g]);
    for (int j = 0; j < fp->nrels; j++) free(fp->rel[j]);
    free(fp->names);
    free(fp->deg);
    free(fp->rel_deg);
    free(fp->rel);
    free(fp);
}

void fpm_shift(fp_presentation *fp, deg_t k)
{
    for (int g = 0; g < fp->ngens; g++) fp->deg[g] += k;
    for (int j = 0; j < fp->nrels; j++) fp->rel_deg[j] += k;
}

/* Offset of generator g's block in V_t (blocks of generators of degree <= t, in order). */
static uint64_t block_offset(const fp_presentation *fp, const milnor_basis *A, deg_t t, int g)
{
    uint64_t off = 0;
    for (int h = 0; h < g; h++)
        if (fp->deg[h] <= t) off += A->dim[t - fp->deg[h]];
    return off;
}

static uint64_t v_dim(const fp_presentation *fp, const milnor_basis *A, deg_t t)
{
    return block_offset(fp, A, t, fp->ngens);
}

typedef struct gen_sort { const char *name; deg_t deg; } gen_sort;
static int gen_cmp(const void *a, const void *b)
{
    const gen_sort *x = a, *y = b;
    if (x->deg != y->deg) return x->deg < y->deg ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* One operation "SqN" or "P(r1, r2, ...)" at *p: the Milnor element. 0, or -1. */
static int parse_op(const char **pp, milnor_elt *op)
{
    const char *p = *pp;
    uint32_t r[MILNOR_MAX_LEN] = { 0 };
    int n = 0;
    char *end;
    if (p[0] == 'S' && p[1] == 'q' && isdigit((unsigned char)p[2])) {
        unsigned long v = strtoul(p + 2, &end, 10);
        if (v > FPM_MAX_REL_DEGREE) return -1;
        r[n++] = (uint32_t)v;
        p = end;
    } else if (p[0] == 'P' && p[1] == '(') {
        p += 2;
        for (;;) {
            while (isspace((unsigned char)*p)) p++;
            if (*p == ')' && n == 0) { p++; break; }
            if (!isdigit((unsigned char)*p) || n == MILNOR_MAX_LEN) return -1;
            unsigned long v = strtoul(p, &end, 10);
            if (v > FPM_MAX_REL_DEGREE) return -1;
            r[n++] = (uint32_t)v;
            p = end;
            while (isspace((unsigned char)*p)) p++;
            if (*p == ',') { p++; continue; }
            if (*p != ')') return -1;
            p++;
            break;
        }
    } else
        return -1;
    milnor_elt_set(op, r, n);
    if (op->degree > FPM_MAX_REL_DEGREE) return -1;
    *pp = p;
    return 0;
}

/* Sum of Milnor elements of degree d as a packed vector over A_d, times op on the left. */
static int mul_left(const milnor_basis *A, const milnor_elt *op, uint64_t **vec, deg_t *d)
{
    deg_t nd = *d + op->degree;
    if (nd > A->max_degree) return -1;
    uint64_t *out = calloc(f2vec_words(A->dim[nd]) + 1, 8);
    if (!out) return -1;
    for (uint32_t s = 0; s < A->dim[*d]; s++)
        if (f2vec_get(*vec, s)) milnor_mul_into(A, op, &A->elts[*d][s], out, 0);
    free(*vec);
    *vec = out;
    *d = nd;
    return 0;
}

/* "[c] op op ... gen + ..." into fp->rel[j]; the relation's degree is that of its first term. */
static int parse_relation(const char *text, fp_presentation *fp, int j, const milnor_basis *A, char *err,
                          size_t es)
{
    const char *p = text;
    deg_t rdeg = -1;
    uint64_t **blocks = calloc((size_t)fp->ngens, sizeof *blocks);   /* per generator, over A_{rdeg-|g|} */
    int rc = -1, terms = 0;
    if (!blocks) return fail(err, es, "out of memory");
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        unsigned long coef = 1;
        char *end;
        if (isdigit((unsigned char)*p)) {
            coef = strtoul(p, &end, 10);
            p = end;
            while (isspace((unsigned char)*p)) p++;
        }
        milnor_elt ops[32];
        int nops = 0;
        while ((p[0] == 'S' && p[1] == 'q' && isdigit((unsigned char)p[2])) || (p[0] == 'P' && p[1] == '(')) {
            if (nops == 32 || parse_op(&p, &ops[nops]) != 0) {
                fail(err, es, "relation '%s': an operation is not SqN or P(r1, r2, ...) of degree <= %d", text,
                     FPM_MAX_REL_DEGREE);
                goto out;
            }
            nops++;
            while (isspace((unsigned char)*p)) p++;
        }
        const char *g0 = p;
        while (*p && !isspace((unsigned char)*p) && *p != '+') p++;
        int g = -1;
        for (int h = 0; h < fp->ngens; h++)
            if (strlen(fp->names[h]) == (size_t)(p - g0) && !strncmp(fp->names[h], g0, (size_t)(p - g0))) g = h;
        if (p == g0) { fail(err, es, "relation '%s': a term without a generator", text); goto out; }
        if (g < 0) { fail(err, es, "relation '%s': unknown generator '%.*s'", text, (int)(p - g0), g0); goto out; }
        deg_t d = 0;
        uint64_t *v = calloc(2, 8);
        if (!v) { fail(err, es, "out of memory"); goto out; }
        f2vec_flip(v, 0);               /* the unit */
        for (int k = nops - 1; k >= 0; k--)
            if (mul_left(A, &ops[k], &v, &d) != 0) {
                free(v);
                fail(err, es, "relation '%s': degree too large (at most %d)", text, FPM_MAX_REL_DEGREE);
                goto out;
            }
        deg_t tdeg = d + fp->deg[g];
        if (rdeg < 0) rdeg = tdeg;
        if (tdeg != rdeg) {
            free(v);
            fail(err, es, "relation '%s': terms of degrees %d and %d", text, rdeg, tdeg);
            goto out;
        }
        if (rdeg - fp->deg[g] > A->max_degree) { free(v); fail(err, es, "relation '%s': degree too large", text); goto out; }
        if (!blocks[g]) blocks[g] = calloc(f2vec_words(A->dim[d]) + 1, 8);
        if (!blocks[g]) { free(v); fail(err, es, "out of memory"); goto out; }
        if (coef & 1) f2vec_xor(blocks[g], v, f2vec_words(A->dim[d]));
        free(v);
        terms++;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '+') p++;
        else if (*p) { fail(err, es, "relation '%s': '+' expected", text); goto out; }
    }
    if (!terms) { fail(err, es, "relation '%s': empty", text); goto out; }
    if (rdeg - fp->deg[0] > FPM_MAX_REL_DEGREE) {
        fail(err, es, "relation '%s': degree %d is more than %d above the lowest generator", text, rdeg,
             FPM_MAX_REL_DEGREE);
        goto out;
    }
    fp->rel_deg[j] = rdeg;
    uint64_t vd = v_dim(fp, A, rdeg);
    if (!(fp->rel[j] = calloc(f2vec_words(vd) + 1, 8))) { fail(err, es, "out of memory"); goto out; }
    for (int g = 0; g < fp->ngens; g++) {
        if (!blocks[g]) continue;
        uint64_t off = block_offset(fp, A, rdeg, g);
        for (uint32_t s = 0; s < A->dim[rdeg - fp->deg[g]]; s++)
            if (f2vec_get(blocks[g], s)) f2vec_flip(fp->rel[j], off + s);
    }
    rc = 0;
out:
    for (int g = 0; g < fp->ngens; g++) free(blocks[g]);
    free(blocks);
    return rc;
}

/* "p=2;finitely presented;gens=x0:0,...;relations=<degree>:<bits of V_degree>;...": the
 * presentation as read (relations in file order), hashed into the module id; it does not
 * depend on any truncation, so a directory resumes at any stem. */
static int make_canonical(const fp_presentation *fp, const milnor_basis *A, char **out)
{
    size_t cap = 256, len = 0;
    char *buf = malloc(cap);
    if (!buf) return -1;
    buf[0] = 0;
#define PUT(...) do { \
        int n_ = snprintf(buf + len, cap - len, __VA_ARGS__); \
        if (n_ < 0) { free(buf); return -1; } \
        if ((size_t)n_ >= cap - len) { \
            cap = 2 * cap + (size_t)n_; \
            char *nb_ = realloc(buf, cap); \
            if (!nb_) { free(buf); return -1; } \
            buf = nb_; \
            n_ = snprintf(buf + len, cap - len, __VA_ARGS__); \
        } \
        len += (size_t)n_; \
    } while (0)
    PUT("p=2;finitely presented;gens=");
    for (int g = 0; g < fp->ngens; g++) PUT("%s:%d,", fp->names[g], fp->deg[g]);
    PUT(";relations=");
    for (int j = 0; j < fp->nrels; j++) {
        uint64_t vd = v_dim(fp, A, fp->rel_deg[j]);
        PUT("%d:", fp->rel_deg[j]);
        for (uint64_t c = 0; c < vd; c++)
            if (f2vec_get(fp->rel[j], c)) PUT("%llu,", (unsigned long long)c);
        PUT(";");
    }
#undef PUT
    *out = buf;
    return 0;
}

/* A file with both milnor_relations (read) and adem_relations: the second list must name the
 * same relations in the same order, or the file means two modules and is refused. */
static int check_same_relations(json_t *adem, fp_presentation *fp, const milnor_basis *A, char *err, size_t es)
{
    if (!json_is_array(adem)) return fail(err, es, "key 'adem_relations': not a list");
    if (json_array_size(adem) != (size_t)fp->nrels)
        return fail(err, es, "keys 'milnor_relations' and 'adem_relations': %d and %zu relations (they must be "
                    "the same relations)", fp->nrels, json_array_size(adem));
    uint64_t **mrel = fp->rel;
    deg_t *mdeg = fp->rel_deg;
    int rc = 0;
    fp->rel = calloc((size_t)fp->nrels + 1, sizeof *fp->rel);
    fp->rel_deg = calloc((size_t)fp->nrels + 1, sizeof *fp->rel_deg);
    if (!fp->rel || !fp->rel_deg) rc = fail(err, es, "out of memory");
    for (int j = 0; rc == 0 && j < fp->nrels; j++) {
        json_t *r = json_array_get(adem, (size_t)j);
        if (!json_is_string(r)) rc = fail(err, es, "key 'adem_relations': entry %d is not a string", j);
        else if (parse_relation(json_string_value(r), fp, j, A, err, es) != 0) rc = -1;
        else if (fp->rel_deg[j] != mdeg[j] ||
                 memcmp(fp->rel[j], mrel[j], f2vec_words(v_dim(fp, A, mdeg[j])) * 8) != 0)
            rc = fail(err, es, "keys 'milnor_relations' and 'adem_relations' differ at entry %d ('%s'): they must "
                      "be the same relations", j, json_string_value(r));
    }
    for (int j = 0; fp->rel && j < fp->nrels; j++) free(fp->rel[j]);
    free(fp->rel);
    free(fp->rel_deg);
    fp->rel = mrel;
    fp->rel_deg = mdeg;
    return rc;
}

int fpm_parse(json_t *root, fd_module *m, char *err, size_t es)
{
    json_t *gens = json_object_get(root, "gens");
    json_t *rels = json_object_get(root, "milnor_relations");
    if (!rels) rels = json_object_get(root, "adem_relations");
    if (!json_is_object(gens) || json_object_size(gens) == 0)
        return fail(err, es, "key 'gens': missing, empty or not an object");
    if (rels && !json_is_array(rels)) return fail(err, es, "key 'milnor_relations'/'adem_relations': not a list");
    fp_presentation *fp = calloc(1, sizeof *fp);
    gen_sort *gs = calloc(json_object_size(gens), sizeof *gs);
    milnor_basis A = { 0 };
    int rc = -1;
    if (!fp || !gs) { free(gs); free(fp); return fail(err, es, "out of memory"); }
    m->fp = fp;                 /* fdm_clear frees it, whatever happens below */
    const char *key;
    json_t *val;
    int n = 0;
    json_object_foreach(gens, key, val) {
        if (!json_is_integer(val)) { fail(err, es, "generator '%s': degree is not an integer", key); goto out; }
        json_int_t d = json_integer_value(val);
        if (d < -FPM_MAX_REL_DEGREE || d > FPM_MAX_REL_DEGREE) {
            fail(err, es, "generator '%s': degree %lld is out of range", key, (long long)d);
            goto out;
        }
        if (!key[0] || strpbrk(key, " \t\n+=()")) {
            fail(err, es, "generator '%s': a name may not be empty or hold spaces, '+', '=' or parentheses", key);
            goto out;
        }
        gs[n++] = (gen_sort){ key, (deg_t)d };
    }
    qsort(gs, (size_t)n, sizeof *gs, gen_cmp);
    fp->names = calloc((size_t)n, sizeof *fp->names);
    fp->deg = calloc((size_t)n, sizeof *fp->deg);
    if (!fp->names || !fp->deg) { fail(err, es, "out of memory"); goto out; }
    for (int g = 0; g < n; g++) {
        if (!(fp->names[g] = strdup(gs[g].name))) { fail(err, es, "out of memory"); goto out; }
        fp->deg[g] = gs[g].deg;
        fp->ngens++;
    }
    if (gs[n - 1].deg - gs[0].deg > FPM_MAX_REL_DEGREE) {
        fail(err, es, "key 'gens': generators spread over more than %d degrees", FPM_MAX_REL_DEGREE);
        goto out;
    }
    size_t nr = rels ? json_array_size(rels) : 0;
    fp->rel = calloc(nr + 1, sizeof *fp->rel);
    fp->rel_deg = calloc(nr + 1, sizeof *fp->rel_deg);
    if (!fp->rel || !fp->rel_deg) { fail(err, es, "out of memory"); goto out; }
    if (milnor_basis_init(&A, FPM_MAX_REL_DEGREE, NULL) != 0) { fail(err, es, "out of memory"); goto out; }
    for (size_t j = 0; j < nr; j++) {
        json_t *r = json_array_get(rels, j);
        if (!json_is_string(r)) { fail(err, es, "key 'milnor_relations': entry %zu is not a string", j); goto out; }
        if (parse_relation(json_string_value(r), fp, (int)j, &A, err, es) != 0) goto out;
        fp->nrels++;
    }
    json_t *adem = json_object_get(root, "adem_relations");
    if (adem && rels != adem && check_same_relations(adem, fp, &A, err, es) != 0) goto out;
    if (make_canonical(fp, &A, &m->canonical) != 0) { fail(err, es, "out of memory"); goto out; }
    m->min_deg = fp->deg[0];
    m->max_deg = m->min_deg - 1;    /* nothing until fpm_truncate */
    rc = 0;
out:
    milnor_basis_clear(&A);
    free(gs);
    return rc;
}

/* One degree of the truncation: the RREF of R_t, its pivots, and the classes (free columns). */
typedef struct fp_degree {
    f2mat E;                    /* rank rows */
    int32_t *pivot_row;         /* per column of V_t: row of E with that pivot, or -1 */
    int32_t *cls;               /* per column of V_t: class index in M_t, or -1 (a pivot) */
    uint64_t vdim;
} fp_degree;

/* R_t in RREF. */
static int build_degree(const fp_presentation *fp, const milnor_basis *A, deg_t t, fp_degree *D)
{
    D->vdim = v_dim(fp, A, t);
    uint64_t nrows = 0;
    for (int j = 0; j < fp->nrels; j++)
        if (fp->rel_deg[j] <= t) nrows += A->dim[t - fp->rel_deg[j]];
    if (D->vdim > UINT32_MAX / 2 || nrows > UINT32_MAX / 2) return -1;
    if (f2mat_init(&D->E, (uint32_t)nrows, (uint32_t)D->vdim) != 0) return -1;
    D->pivot_row = malloc((D->vdim + 1) * sizeof *D->pivot_row);
    D->cls = malloc((D->vdim + 1) * sizeof *D->cls);
    if (!D->pivot_row || !D->cls) return -1;
    uint32_t row = 0;
    for (int j = 0; j < fp->nrels; j++) {
        deg_t rd = fp->rel_deg[j];
        if (rd > t) continue;
        for (uint32_t r = 0; r < A->dim[t - rd]; r++, row++)
            for (int g = 0; g < fp->ngens; g++) {
                if (fp->deg[g] > rd) continue;
                uint64_t off_r = block_offset(fp, A, rd, g), off_t = block_offset(fp, A, t, g);
                for (uint32_t s = 0; s < A->dim[rd - fp->deg[g]]; s++)
                    if (f2vec_get(fp->rel[j], off_r + s))
                        milnor_mul_into(A, &A->elts[t - rd][r], &A->elts[rd - fp->deg[g]][s], f2mat_row(&D->E, row),
                                        off_t);
            }
    }
    int rank = nrows ? f2mat_rref(&D->E, D->pivot_row) : 0;
    if (rank < 0) return -1;
    if (!nrows)
        for (uint64_t c = 0; c < D->vdim; c++) D->pivot_row[c] = -1;
    D->E.rows = (uint32_t)rank;         /* the zero rows below are not needed */
    int32_t k = 0;
    for (uint64_t c = 0; c < D->vdim; c++) D->cls[c] = D->pivot_row[c] >= 0 ? -1 : k++;
    return k;
}

/* out (over M_t) = the class of v (over V_t, destroyed). */
static void reduce(const fp_degree *D, uint64_t *v, uint64_t *out, size_t out_words)
{
    size_t w = f2vec_words((uint32_t)D->vdim);
    memset(out, 0, out_words * 8);
    for (size_t i = 0; i < w; i++)
        for (uint64_t x = v[i]; x; x &= x - 1) {
            uint64_t c = i * 64 + (uint64_t)__builtin_ctzll(x);
            if (D->pivot_row[c] >= 0) f2vec_xor(v, f2mat_row(&D->E, (uint32_t)D->pivot_row[c]), w);
        }
    for (size_t i = 0; i < w; i++)  /* only free columns are left */
        for (uint64_t x = v[i]; x; x &= x - 1) {
            uint64_t c = i * 64 + (uint64_t)__builtin_ctzll(x);
            f2vec_flip(out, (uint64_t)D->cls[c]);
        }
}

static void free_truncation(fd_module *m)
{
    deg_t span = m->max_deg - m->min_deg;
    if (m->act)
        for (size_t k = 0; k < ((size_t)span + 1) * ((size_t)span + 1); k++) free(m->act[k]);
    if (m->names && m->dim)
        for (deg_t t = 0; t <= span; t++) {
            for (uint32_t i = 0; m->names[t] && i < m->dim[t]; i++) free(m->names[t][i]);
            free(m->names[t]);
        }
    free(m->act);
    free(m->names);
    free(m->dim);
    if (m->A.dim) milnor_basis_clear(&m->A);
    m->act = NULL;
    m->names = NULL;
    m->dim = NULL;
    m->max_deg = m->min_deg - 1;
}

int fpm_truncate(fd_module *m, deg_t top, char *err, size_t es)
{
    const fp_presentation *fp = m->fp;
    free_truncation(m);
    if (top < m->min_deg) top = m->min_deg;
    deg_t span = top - m->min_deg;
    if (span > MILNOR_MAX_DEGREE) return fail(err, es, "the module would be truncated at degree %d: too large", top);
    fp_degree *D = calloc((size_t)span + 1, sizeof *D);
    uint64_t *v = NULL;
    int rc = -1;
    m->max_deg = top;
    m->dim = calloc((size_t)span + 1, sizeof *m->dim);
    m->names = calloc((size_t)span + 1, sizeof *m->names);
    m->act = calloc(((size_t)span + 1) * ((size_t)span + 1), sizeof *m->act);
    if (!D || !m->dim || !m->names || !m->act || milnor_basis_init(&m->A, span, NULL) != 0) goto oom;
    const milnor_basis *A = &m->A;
    uint64_t vmax = 1;
    for (deg_t t = m->min_deg; t <= top; t++) {
        fp_degree *Dt = &D[t - m->min_deg];
        int k = build_degree(fp, A, t, Dt);
        if (k < 0) goto oom;
        m->dim[t - m->min_deg] = (uint32_t)k;
        if (Dt->vdim > vmax) vmax = Dt->vdim;
        if (!(m->names[t - m->min_deg] = calloc((size_t)k + 1, sizeof **m->names))) goto oom;
        for (int g = 0; g < fp->ngens; g++) {       /* names: "Sq(S)*g" for the free columns */
            if (fp->deg[g] > t) continue;
            uint64_t off = block_offset(fp, A, t, g);
            for (uint32_t s = 0; s < A->dim[t - fp->deg[g]]; s++) {
                int32_t c = Dt->cls[off + s];
                char buf[160], name[320];
                if (c < 0) continue;
                if (t == fp->deg[g]) snprintf(name, sizeof name, "%s", fp->names[g]);
                else snprintf(name, sizeof name, "%s*%s", milnor_elt_format(&A->elts[t - fp->deg[g]][s], buf, sizeof buf),
                              fp->names[g]);
                if (!(m->names[t - m->min_deg][c] = strdup(name))) goto oom;
            }
        }
    }
    if (!(v = calloc(f2vec_words((uint32_t)vmax) + 1, 8))) goto oom;
    /* the action on the classes of the generators' degrees u: Sq(R)·(Sq(S) g) = (Sq(R)Sq(S)) g */
    for (deg_t u = m->min_deg; u <= top; u++) {
        int is_gen_degree = 0;
        for (int g = 0; g < fp->ngens; g++) is_gen_degree |= fp->deg[g] == u;
        if (!is_gen_degree) continue;
        const fp_degree *Du = &D[u - m->min_deg];
        for (deg_t d = 0; u + d <= top; d++) {
            const fp_degree *Dt = &D[u + d - m->min_deg];
            size_t words = f2vec_words(fdm_dim(m, u + d));
            if (!words) words = 1;
            uint64_t *blk = calloc((size_t)fdm_dim(m, u) * A->dim[d] * words + 1, 8);
            if (!blk) goto oom;
            m->act[(size_t)(u - m->min_deg) * ((size_t)span + 1) + (size_t)d] = blk;
            for (int g = 0; g < fp->ngens; g++) {
                if (fp->deg[g] > u) continue;
                uint64_t off_u = block_offset(fp, A, u, g), off_t = block_offset(fp, A, u + d, g);
                for (uint32_t s = 0; s < A->dim[u - fp->deg[g]]; s++) {
                    int32_t i = Du->cls[off_u + s];
                    if (i < 0) continue;
                    for (uint32_t r = 0; r < A->dim[d]; r++) {
                        memset(v, 0, (f2vec_words((uint32_t)Dt->vdim) + 1) * 8);
                        milnor_mul_into(A, &A->elts[d][r], &A->elts[u - fp->deg[g]][s], v, off_t);
                        reduce(Dt, v, blk + ((size_t)i * A->dim[d] + r) * words, words);
                    }
                }
            }
        }
    }
    rc = 0;
    goto out;
oom:
    fail(err, es, "out of memory truncating the module at degree %d", top);
out:
    for (deg_t k = 0; D && k <= span; k++) {
        f2mat_clear(&D[k].E);
        free(D[k].pivot_row);
        free(D[k].cls);
    }
    free(D);
    free(v);
    if (rc != 0) free_truncation(m);
    return rc;
}

/* ---------------------------------------------------------------- stunted projective spaces */

/* binomial(e, m) mod 2 for any integer e (e < 0: the coefficient of y^m in (1+y)^e, which is
 * ±binomial(m - e - 1, m)); Lucas: odd iff m's bits lie in the top argument's. */
static int binom_odd(int64_t e, int64_t m)
{
    if (m < 0) return 0;
    int64_t a = e >= 0 ? e : m - e - 1;
    return m <= a && (m & ~a) == 0;
}

/* Sq(R) x^e = multinomial(e; e - |r|, r_1, r_2, ...) x^{e + |R|} with |r| = sum r_i: the
 * coaction x -> sum_i x^{2^i} ⊗ ξ_i raised to the power e. Mod 2 it is binomial(e, |r|) times
 * the multinomial of the r_i, which is odd iff the r_i have no binary digit in common. */
static int rp_coefficient(int64_t e, const milnor_elt *R)
{
    uint32_t seen = 0;
    int64_t total = 0;
    for (uint32_t i = 0; i < R->len; i++) {
        if (seen & R->r[i]) return 0;
        seen |= R->r[i];
        total += R->r[i];
    }
    return binom_odd(e, total);
}

int rpm_truncate(fd_module *m, deg_t top, char *err, size_t es)
{
    deg_t lo = m->rp_min + m->rp_offset;                  /* degree of the bottom class */
    free_truncation(m);
    m->min_deg = lo;
    if (top < lo) top = lo;
    deg_t span = top - lo;
    if (span > MILNOR_MAX_DEGREE) return fail(err, es, "the module would be truncated at degree %d: too large", top);
    m->max_deg = top;
    m->dim = calloc((size_t)span + 1, sizeof *m->dim);
    m->names = calloc((size_t)span + 1, sizeof *m->names);
    m->act = calloc(((size_t)span + 1) * ((size_t)span + 1), sizeof *m->act);
    if (!m->dim || !m->names || !m->act ||
        milnor_basis_init(&m->A, span, m->has_profile ? &m->rp_profile : NULL) != 0)
        goto oom;
    for (deg_t u = 0; u <= span; u++) {
        int64_t e = (int64_t)m->rp_min + u;
        char name[32];
        snprintf(name, sizeof name, e < 0 ? "xm%lld" : "x%lld", (long long)(e < 0 ? -e : e));
        m->dim[u] = 1;
        if (!(m->names[u] = calloc(2, sizeof **m->names)) || !(m->names[u][0] = strdup(name))) goto oom;
    }
    for (deg_t u = 0; u <= span; u++)
        for (deg_t d = 0; u + d <= span; d++) {     /* one class each way: one word per Sq(R) */
            uint64_t *blk = calloc((size_t)m->A.dim[d] + 1, 8);
            if (!blk) goto oom;
            m->act[(size_t)u * ((size_t)span + 1) + (size_t)d] = blk;
            for (uint32_t r = 0; r < m->A.dim[d]; r++)
                blk[r] = (uint64_t)rp_coefficient((int64_t)m->rp_min + u, &m->A.elts[d][r]);
        }
    return 0;
oom:
    free_truncation(m);
    return fail(err, es, "out of memory building the projective space to degree %d", top);
}

int rpm_parse(json_t *root, fd_module *m, char *err, size_t es)
{
    json_t *mn = json_object_get(root, "min"), *mx = json_object_get(root, "max"),
           *cb = json_object_get(root, "clear_bottom");
    if (!json_is_integer(mn) || json_integer_value(mn) < -512 || json_integer_value(mn) > 512)
        return fail(err, es, "key 'min': missing, or not an integer in -512..512");
    if (mx && (!json_is_integer(mx) || json_integer_value(mx) < json_integer_value(mn) ||
               json_integer_value(mx) - json_integer_value(mn) > 512))
        return fail(err, es, "key 'max': not an integer from 'min' to 'min' + 512");
    if (cb && !json_is_false(cb)) return fail(err, es, "key 'clear_bottom': not supported (it needs A(2) modules)");
    m->rp_min = (int)json_integer_value(mn);
    m->rp_offset = 0;
    m->rp_open = !mx;
    if (mx) return rpm_truncate(m, (deg_t)json_integer_value(mx), err, es);    /* finite: once */
    char buf[200];
    int n = snprintf(buf, sizeof buf, "p=2;real projective space;min=%d", m->rp_min);
    if (m->has_profile) {   /* as make_canonical writes a profile */
        const milnor_profile *pr = &m->rp_profile;
        n += snprintf(buf + n, sizeof buf - (size_t)n, ";profile=%s:", pr->truncated ? "truncated" : "infinite");
        for (int i = 0; i < pr->len && n < (int)sizeof buf; i++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%d", i ? "," : "", pr->h[i]);
    }
    if (!(m->canonical = strdup(buf))) return fail(err, es, "out of memory");
    m->min_deg = m->rp_min;
    m->max_deg = m->min_deg - 1;    /* nothing until rpm_truncate */
    return 0;
}
