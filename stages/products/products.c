/* products.c — products read off lifted chain maps, and class arguments (see products.h). */
#include "stages/products/products.h"
#include "stages/resolve/report.h"
#include "stages/resolve/resolution_p.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A decimal int in [0, max] at *p, advancing past it; -1 if there is none. */
static int parse_int(const char **p, int max)
{
    const char *q = *p;
    long v = 0;
    if (!isdigit((unsigned char)*q)) return -1;
    for (; isdigit((unsigned char)*q); q++) {
        v = v * 10 + (*q - '0');
        if (v > max) return -1;
    }
    *p = q;
    return (int)v;
}

int products_check_name(const char *arg, size_t nlen, const char *what, char *err, size_t errlen)
{
    if (nlen == 0 || nlen > PRODUCT_NAME_MAX) {
        snprintf(err, errlen, "%s '%.80s': the name must have 1 to %d characters", what, arg, PRODUCT_NAME_MAX);
        return -1;
    }
    for (size_t k = 0; k < nlen; k++)
        if (!isalnum((unsigned char)arg[k]) && !strchr("_.^+-", arg[k])) {
            snprintf(err, errlen, "%s '%.80s': the name may hold only letters, digits and _ . ^ + -", what, arg);
            return -1;
        }
    return 0;
}

int products_parse_class(const char *arg, product_class *c, char *err, size_t errlen)
{
    return products_parse_class_p(arg, 2, c, err, errlen);
}

int products_parse_class_p(const char *arg, uint32_t prime, product_class *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *eq = strchr(arg, '=');
    size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!eq) {   /* a bare h_j (or a0 at an odd prime) */
        int h = nlen == 2 && arg[0] == 'h' && arg[1] >= '0' && arg[1] <= '7', a0 = prime != 2 && !strcmp(arg, "a0");
        if (h || a0) {
            snprintf(c->name, sizeof c->name, "%s", arg);
            long n = 0, pj = 1;                     /* |h_j| = 2^j (p = 2), q p^j (odd p) */
            for (int j = 0; h && j < arg[1] - '0'; j++) pj *= prime;
            if (h) n = prime == 2 ? pj - 1 : 2 * (long)(prime - 1) * pj - 1;
            if (n > 100000) {
                snprintf(err, errlen, "class '%.80s': its stem %ld is out of range", arg, n);
                return -1;
            }
            c->n = (int)n;
            c->s = 1;
            c->len = 1;
            c->coords[0] = 1;
            return 0;
        }
        snprintf(err, errlen, "class '%.80s': expected NAME=n,s[,vector] or one of %sh0..h7", arg,
                 prime != 2 ? "a0, " : "");
        return -1;
    }
    if (products_check_name(arg, nlen, "class", err, errlen) != 0) return -1;
    memcpy(c->name, arg, nlen);
    const char *p = eq + 1;
    int neg = *p == '-';   /* a module's classes may sit at negative stems */
    p += neg;
    if ((c->n = parse_int(&p, 100000)) < 0 || *p++ != ',' || (c->s = parse_int(&p, 100000)) < 0) {
        snprintf(err, errlen, "class '%.80s': expected NAME=n,s[,vector] with n an integer and s >= 0", arg);
        return -1;
    }
    if (neg) c->n = -c->n;
    if (!*p) {
        c->len = 1;
        c->coords[0] = 1;
        return 0;
    }
    if (*p++ != ',') {
        snprintf(err, errlen, "class '%.80s': expected ',' after s", arg);
        return -1;
    }
    int bracket = *p == '[';
    p += bracket;
    while (*p && *p != ']') {
        if (*p == ',' || *p == ' ') {
            if (!bracket) break;
            p++;
            continue;
        }
        if (*p < '0' || (unsigned)(*p - '0') >= prime || c->len == PRODUCT_VECTOR_MAX) break;
        c->coords[c->len++] = (uint8_t)(*p++ - '0');
    }
    if (bracket && *p == ']') p++;
    else if (bracket) p = "?";
    if (*p || c->len == 0) {
        if (prime == 2) snprintf(err, errlen, "class '%.80s': the vector must be 0s and 1s, as [1,0,1] or 101", arg);
        else snprintf(err, errlen, "class '%.80s': the vector must be digits 0..%u, as [1,0,2] or 102", arg, prime - 1);
        return -1;
    }
    return 0;
}

/* Every row of map m's products: for each target bidegree (n, s) of its region in stem order,
 * then s, and each generator j there, fn(out, set, m, n, s, j, nz) with nz the generators at
 * the product's bidegree. Shared by the lift_hom and products.csv writers. */
typedef void (*row_fn)(FILE *out, const lift_set *set, int m, const char *name, int n, int s, uint32_t j, uint32_t nz);
static void each_row(FILE *out, const lift_set *set, int m, const char *name, row_fn fn)
{
    const resolution *tgt = set->tgt;
    const lift_map *f = &set->maps[m];
    for (int n = 0; n <= tgt->max_n; n++)
        for (int s = 0; s <= tgt->max_s; s++) {
            deg_t t = n + s;
            /* a map of modules raising degrees: a source bidegree below the source's stems has
             * no classes, and its rows are printed empty, as sseq's lift_hom does */
            int below = f->bottom && res_is_done(tgt, s, t) && f->s0 + s <= set->src->max_s && t + f->t0 < f->s0 + s;
            if (!below && !lift_map_in_region(set, m, s, t)) continue;
            uint32_t nz = res_ngens(set->src, f->s0 + s, t + f->t0);
            for (uint32_t j = 0; j < res_ngens(tgt, s, t); j++) fn(out, set, m, name, n, s, j, nz);
        }
}

static void lift_hom_row(FILE *out, const lift_set *set, int m, const char *name, int n, int s, uint32_t j, uint32_t nz)
{
    fprintf(out, "%s x_(%d, %d, %u) = [", name, n + (int)set->tgt->shift, s, j);
    for (uint32_t k = 0; k < nz; k++) fprintf(out, "%s%u", k ? ", " : "", lift_product_coef(set, m, s, n + s, j, k));
    fputs("]\n", out);
}

static void csv_rows(FILE *out, const lift_set *set, int m, const char *name, int n, int s, uint32_t j, uint32_t nz)
{
    const lift_map *f = &set->maps[m];
    for (uint32_t k = 0; k < nz; k++) {
        uint32_t c = lift_product_coef(set, m, s, n + s, j, k);
        if (!c) continue;
        fprintf(out, "%s,%d,%d,%d,%d,%u,%u", name, (int)(f->t0 - f->s0 + set->src->shift - set->tgt->shift), f->s0,
                n + (int)set->tgt->shift, s, j, k);
        if (set->prime != 2) fprintf(out, ",%u", c);
        fputc('\n', out);
    }
}

int products_write_lift_hom(FILE *out, const lift_set *set, int m, const char *name)
{
    each_row(out, set, m, name, lift_hom_row);
    return ferror(out) ? -1 : 0;
}

/* The bottom degree of a resolution's module (the sphere's 0). */
static int bottom_degree(const resolution *res)
{
    return res->module ? (int)res->module->min_deg : 0;
}

/* dim Ext^s of res in absolute stem n (0 outside its region). */
static uint32_t dim_at(const resolution *res, int n, int s)
{
    int ni = n - (int)res->shift;
    if (s > res->max_s || ni < 0 || ni > report_row_last_stem(res, s)) return 0;
    return res_ngens(res, s, ni + s);
}

int products_write_unstable_suspension(FILE *out, const lift_set *set, int m)
{
    const resolution *src = set->src, *tgt = set->tgt;
    int k = bottom_degree(src), maxs = src->max_s;
    int maxn = report_max_stem(src) + (int)src->shift - k;     /* the stems above the bottom class */
    if (k == 1)                 /* sseq's first block: S^0's dimensions */
        for (int n = 0; n <= maxn; n++)
            for (int s = 0; s <= maxs; s++) fprintf(out, "%d %d 0: %u\n", n, s, dim_at(tgt, n, s));
    for (int n = 2 * (k - 1) > k ? 2 * (k - 1) - k : 0; n <= maxn; n++)
        for (int s = 0; s <= maxs; s++) {
            /* S^k's stem n + k and S^(k-1)'s stem n + k - 1, t internal to the target */
            deg_t t = n + k - 1 - (int)tgt->shift + s;
            uint32_t nsrc = dim_at(src, n + k, s), ntgt = dim_at(tgt, n + k - 1, s);
            fprintf(out, "%d %d %d: %u", n, s, k, nsrc);
            int ident = nsrc == ntgt;
            for (uint32_t j = 0; j < ntgt && ident; j++)
                for (uint32_t i = 0; i < nsrc && ident; i++)
                    ident = lift_product_coef(set, m, s, t, j, i) == (i == j);
            if (nsrc && ntgt && !ident) {
                fputs(" - [", out);
                for (uint32_t j = 0; j < ntgt; j++) {
                    fputs(j ? ", [" : "[", out);
                    for (uint32_t i = 0; i < nsrc; i++)
                        fprintf(out, "%s%u", i ? ", " : "", lift_product_coef(set, m, s, t, j, i));
                    fputc(']', out);
                }
                fputc(']', out);
            }
            fputc('\n', out);
        }
    return ferror(out) ? -1 : 0;
}

int products_write_filtration_one(FILE *out, const resolution *res, int nh, const products_hj *hj)
{
    for (int n = 0; n <= res->max_n; n++)
        for (int s = 0; s <= res->max_s; s++)
            for (int j = 0; j < nh; j++) {
                uint32_t nz = hj->dim(hj->ctx, j, n, s);
                for (uint32_t y = 0; nz && y < res_ngens(res, s, n + s); y++) {
                    fprintf(out, "h_%d x_(%d, %d, %u) = [", j, n + (int)res->shift, s, y);
                    for (uint32_t k = 0; k < nz; k++) fprintf(out, "%s%u", k ? ", " : "", hj->coef(hj->ctx, j, n, s, y, k));
                    fputs("]\n", out);
                }
            }
    return ferror(out) ? -1 : 0;
}

/* h_j read off a minimal resolution's differentials (report_hj): the product's bidegree must lie
 * in the region. */
static uint32_t diff_dim(void *ctx, int j, int n, int s)
{
    const resolution *res = ctx;
    if (s + 1 > res->max_s || n > report_row_last_stem(res, s) || n + (1 << j) - 1 > report_row_last_stem(res, s + 1))
        return 0;
    return res_ngens(res, s + 1, n + s + (1 << j));
}
static uint32_t diff_coef(void *ctx, int j, int n, int s, uint32_t i, uint32_t k)
{
    return (uint32_t)report_hj(ctx, j, s, n + s, i, k);
}
products_hj products_hj_differentials(const resolution *res)
{
    return (products_hj){ (void *)res, diff_dim, diff_coef };
}

int products_hj_count(const resolution *res)
{
    int nh = 0;
    if (res->prime != 2) return 0;
    while (nh < 16 && (1 << nh) - 1 <= report_max_stem(res) &&
           (1u << nh) <= milnor_profile_slot_max(&res->A.profile, 0))
        nh++;
    return nh;
}

int products_write_hj_csv(FILE *out, const resolution *res, int nh, const char *kept, size_t keptlen)
{
    fputs(PRODUCTS_CSV_HEADER "\n", out);
    if (keptlen) fwrite(kept, 1, keptlen, out);
    for (int j = 0; j < nh; j++)
        for (int n = 0; n <= res->max_n; n++)
            for (int s = 0; s <= res->max_s; s++) {
                uint32_t nz = diff_dim((void *)res, j, n, s);
                for (uint32_t i = 0; nz && i < res_ngens(res, s, n + s); i++)
                    for (uint32_t k = 0; k < nz; k++)
                        if (report_hj(res, j, s, n + s, i, k))
                            fprintf(out, "h%d,%d,1,%d,%d,%u,%u\n", j, (1 << j) - 1, n + (int)res->shift, s, i, k);
            }
    return ferror(out) ? -1 : 0;
}

int products_write_csv(FILE *out, const lift_set *set, const char *const *names, const char *kept, size_t keptlen)
{
    fputs(set->prime == 2 ? PRODUCTS_CSV_HEADER "\n" : PRODUCTS_CSV_HEADER_P "\n", out);
    if (keptlen) fwrite(kept, 1, keptlen, out);
    for (int m = 0; m < set->nmaps; m++) each_row(out, set, m, names[m], csv_rows);
    return ferror(out) ? -1 : 0;
}

/* Is line (without its newline) a row NAME,a,b,c,d,e,f of a products table (nints integers
 * after NAME: 6, or 7 at an odd prime), NAME as a class name (products.h) and a..f decimal
 * integers (a sign on any, at most 9 digits)? On success *namelen is NAME's length. */
static int is_row(const char *line, int nints, size_t *namelen)
{
    size_t k = 0;
    while (line[k] && line[k] != ',') {
        if (!isalnum((unsigned char)line[k]) && !strchr("_.^+-", line[k])) return 0;
        k++;
    }
    if (k == 0 || k > PRODUCT_NAME_MAX) return 0;
    *namelen = k;
    const char *p = line + k;
    for (int f = 0; f < nints; f++) {
        if (*p++ != ',') return 0;
        p += *p == '-';
        int digits = 0;
        for (; isdigit((unsigned char)*p); p++)
            if (++digits > 9) return 0;
        if (!digits) return 0;
    }
    return *p == 0;
}

int products_read_kept(const char *path, uint32_t prime, const char *const *names, int nnames, char **kept,
                       size_t *keptlen, char *err, size_t errlen)
{
    const char *header = prime == 2 ? PRODUCTS_CSV_HEADER : PRODUCTS_CSV_HEADER_P;
    *kept = NULL;
    *keptlen = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    FILE *out = open_memstream(kept, keptlen);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0;
    int rc = out ? 0 : -1;
    if (!out) snprintf(err, errlen, "out of memory reading %s", path);
    while (!rc && (got = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (got > 0 && line[got - 1] == '\n') line[--got] = 0;
        if ((size_t)got != strlen(line)) {   /* a NUL byte: not a text table */
            snprintf(err, errlen, "%s, line %ld: not a row %s", path, lineno, header);
            rc = -2;
        } else if (lineno == 1) {
            if (strcmp(line, header) != 0) {
                snprintf(err, errlen, "%s does not start with the header %s", path, header);
                rc = -2;
            }
        } else {
            size_t nl;
            if (!is_row(line, prime == 2 ? 6 : 7, &nl)) {
                snprintf(err, errlen, "%s, line %ld: not a row %s", path, lineno, header);
                rc = -2;
                break;
            }
            int ours = 0;
            for (int m = 0; m < nnames && !ours; m++) ours = strlen(names[m]) == nl && !strncmp(names[m], line, nl);
            if (!ours) fprintf(out, "%s\n", line);
        }
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        rc = -1;
    }
    if (!rc && lineno == 0) {
        snprintf(err, errlen, "%s is empty: it has no header %s", path, header);
        rc = -2;
    }
    free(line);
    fclose(f);
    if (out && fclose(out) != 0 && !rc) {
        snprintf(err, errlen, "out of memory reading %s", path);
        rc = -1;
    }
    if (rc) {
        free(*kept);
        *kept = NULL;
        *keptlen = 0;
    }
    return rc;
}

void products_multiply(const lift_set *set, int m, int n, int s, const uint8_t *ycoords, uint32_t ny,
                       uint8_t *prod, uint32_t dim)
{
    memset(prod, 0, dim);
    for (uint32_t j = 0; j < ny; j++)
        if (ycoords[j])
            for (uint32_t k = 0; k < dim; k++)
                prod[k] = (uint8_t)((prod[k] + ycoords[j] * lift_product_coef(set, m, s, n + s, j, k)) % set->prime);
}

/* ---- maps of modules ------------------------------------------------------------------------- */

/* The bottom of the lift of pm (lift_map.bottom): φ ε(z_k) for the k-th generator z_k of M's F_0
 * in degree t + t0, ε(z_k) a class of M (the generator's image), into row k of Y over the
 * resolutions' field (at an odd prime ε(z_k) has an entry 0..p-1 a class, and φ's matrix 0s
 * and 1s). */
static int map_bottom(void *ctx, deg_t t, uint32_t k, fieldmat *Y)
{
    const products_module_map *pm = ctx;
    deg_t T = t + pm->t0, u = T + pm->src->shift;
    if (T < 0 || T > pm->src->max_t || k >= res_ngens(pm->src, 0, T)) return -1;
    const fm_gen *z = &pm->src->F[0].gens[T][k];
    if (Y->p == 2) {
        modops_map_apply(&pm->map, pm->M, u, z->img, f2mat_row(&Y->f2, k));
        return 0;
    }
    if (u < pm->map.min_deg || u > pm->map.max_deg) return 0;
    const f2mat *R = &pm->map.rows[u - pm->map.min_deg];
    const uint8_t *v = z->img_p;
    uint8_t *y = fpmat_row(&Y->fp, k);
    for (uint32_t r = 0; r < R->rows && r < z->bits; r++)
        for (uint32_t c = 0; v[r] && c < R->cols && c < Y->fp.cols; c++)
            if (f2mat_get(R, r, c)) y[c] = (uint8_t)((y[c] + v[r]) % Y->p);
    return 0;
}

/* "2 x + y" (or "0"): v over N's classes in degree w, n entries. */
static void format_vec_p(const fd_module *N, deg_t w, const uint8_t *v, uint32_t n, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    for (uint32_t k = 0; k < n && len + 1 < size; k++)
        if (v[k])
            len += (size_t)snprintf(buf + len, size - len, "%s%.0u%s%s", len ? " + " : "", v[k] > 1 ? v[k] : 0,
                                    v[k] > 1 ? " " : "", N->names[w - N->min_deg][k]);
    if (!len) snprintf(buf, size, "0");
}

/* At an odd prime: is φ A_p-linear, φ(a·x) = a·φ(x) for every class x of M and every element a
 * of the algebra's basis in positive degrees (fdm_act_p, B's elements; the modules are small)?
 * 0, or -1 with the first failure. */
static int map_check_p(const products_module_map *pm, const milnor_p_sub *B, char *err, size_t errlen)
{
    const fd_module *M = pm->M, *N = pm->N;
    const module_map *f = &pm->map;
    uint32_t p = fdm_prime(M);
    for (deg_t u = M->min_deg; u <= M->max_deg; u++)
        for (uint32_t x = 0; x < fdm_dim(M, u); x++)
            for (deg_t d = 1; u + d <= M->max_deg || u + d + f->degree <= N->max_deg; d++)
                for (uint32_t r = 0; d <= B->max_degree && r < B->dim[d]; r++) {
                    deg_t v = u + d, w = v + f->degree;
                    uint32_t nw = w >= N->min_deg && w <= N->max_deg ? fdm_dim(N, w) : 0;
                    uint8_t lhs[256] = { 0 }, rhs[256] = { 0 };
                    if (nw > sizeof lhs) {
                        snprintf(err, errlen, "the target has over %zu classes in degree %d", sizeof lhs, (int)w);
                        return -1;
                    }
                    const uint8_t *ax = v <= M->max_deg ? fdm_act_p(M, u, x, d, r) : NULL;   /* φ(a x) */
                    const f2mat *Rv = v >= f->min_deg && v <= f->max_deg ? &f->rows[v - f->min_deg] : NULL;
                    for (uint32_t j = 0; ax && Rv && j < Rv->rows; j++)
                        for (uint32_t c = 0; ax[j] && c < nw; c++)
                            if (f2mat_get(Rv, j, c)) lhs[c] = (uint8_t)((lhs[c] + ax[j]) % p);
                    const f2mat *Ru = u >= f->min_deg && u <= f->max_deg ? &f->rows[u - f->min_deg] : NULL;
                    for (uint32_t c = 0; Ru && nw && c < Ru->cols; c++) {   /* a φ(x) */
                        const uint8_t *ay = f2mat_get(Ru, x, c) ? fdm_act_p(N, u + f->degree, c, d, r) : NULL;
                        for (uint32_t j = 0; ay && j < nw; j++) rhs[j] = (uint8_t)((rhs[j] + ay[j]) % p);
                    }
                    if (memcmp(lhs, rhs, nw) != 0) {
                        char a[160], l[400], rr[400];
                        milnor_p_elt_format(milnor_p_sub_elt(B, d, r), a, sizeof a);
                        format_vec_p(N, w, lhs, nw, l, sizeof l);
                        format_vec_p(N, w, rhs, nw, rr, sizeof rr);
                        snprintf(err, errlen, "the map is not A-linear: f(%.40s %.40s) = %.150s but %.40s f(%.40s) = %.150s", a,
                                 M->names[u - M->min_deg][x], l, a, M->names[u - M->min_deg][x], rr);
                        return -1;
                    }
                }
    return 0;
}

/* The module a resolution resolves, as the map file names its classes: module, or F2 for S_2
 * (parsed into *sphere). 0, or -1 with a reason. */
static int map_module(const resolution *res, const fd_module *module, fd_module *sphere, const fd_module **out,
                      char *err, size_t errlen)
{
    if (!res->module) {
        if (fdm_parse(modops_sphere_text, strlen(modops_sphere_text), sphere, err, errlen) != 0) return -1;
        *out = sphere;
        return 0;
    }
    if (res->prime != 2 ? module->has_profile || module->fp || module->rp_open || module->has_cofiber
                        : !modops_finite_over_A(module)) {
        snprintf(err, errlen, "%s: maps are between finite modules over A or A_p (no profile, presentation, "
                 "RP_n^inf or cofiber)", res->module_name);
        return -1;
    }
    *out = module;
    return 0;
}

int products_map_load(const char *path, const resolution *src, const fd_module *src_module, const resolution *tgt,
                      const fd_module *tgt_module, products_module_map *pm, char *err, size_t errlen)
{
    memset(pm, 0, sizeof *pm);
    pm->src = src;
    pm->tgt = tgt;
    if (map_module(src, src_module, &pm->sphere[0], &pm->M, err, errlen) != 0 ||
        map_module(tgt, tgt_module, &pm->sphere[1], &pm->N, err, errlen) != 0)
        return -1;
    FILE *f = fopen(path, "rb");
    int open_errno = errno;
    char *buf = NULL;
    size_t len = 0;
    if (f) {
        buf = malloc(1 << 20);
        if (buf) len = fread(buf, 1, 1 << 20, f);
    }
    int bad = !f || !buf || ferror(f) || len == 1 << 20;
    if (bad && f && !buf) snprintf(err, errlen, "%s: out of memory reading it", path);
    else if (bad && !f) snprintf(err, errlen, "%s: cannot read it: %s", path, strerror(open_errno));
    else if (bad) snprintf(err, errlen, "%s: cannot read it%s", path, !ferror(f) ? " (over 1 MB)" : "");
    if (f) fclose(f);
    char why[600];
    int rc = bad ? (f && !buf ? -2 : -1) : modops_map_parse(buf, len, pm->M, pm->N, &pm->map, why, sizeof why);
    if (!bad && !rc)
        rc = src->prime != 2 ? map_check_p(pm, &src->odd->B, why, sizeof why) : modops_map_check(&pm->map, pm->M, pm->N, why, sizeof why);
    if (!bad && rc) snprintf(err, errlen, "%s: %s", path, why);
    free(buf);
    if (rc) return rc;
    pm->t0 = tgt->shift - src->shift - pm->map.degree;
    uint64_t h = 14695981039346656037ull;   /* FNV-1a 64 over the degree and the matrices */
    char head[32];
    snprintf(head, sizeof head, "%d;", (int)pm->map.degree);
    for (const char *c = head; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (deg_t u = pm->map.min_deg; u <= pm->map.max_deg; u++) {
        const f2mat *R = &pm->map.rows[u - pm->map.min_deg];
        for (uint32_t r = 0; r < R->rows; r++)
            for (uint32_t c = 0; c < R->cols; c++) h = (h ^ (uint64_t)(f2mat_get(R, r, c) + 2 * (c == 0))) * 1099511628211ull;
        h = (h ^ 7u) * 1099511628211ull;
    }
    snprintf(pm->key, sizeof pm->key, "map-%016llx", (unsigned long long)h);
    return 0;
}

void products_map_clear(products_module_map *pm)
{
    modops_map_clear(&pm->map);
    fdm_clear(&pm->sphere[0]);
    fdm_clear(&pm->sphere[1]);
    memset(pm, 0, sizeof *pm);
}

int products_add_module_map(lift_set *set, products_module_map *pm)
{
    return lift_add_module_map(set, pm->t0, pm->key, map_bottom, pm);
}
