/* mahowald.c — the invariants from the two induced maps of each P_k (mahowald.h). */
#include "stages/mahowald/mahowald.h"
#include <stdlib.h>
#include <string.h>

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -1)

int mahowald_read_ext(const char *path, mahowald_ext *x, char *err, size_t errlen)
{
    memset(x, 0, sizeof *x);
    FILE *f = fopen(path, "r");
    if (!f) return ERR("mahowald: cannot read %s", path);
    char line[256];
    int s, n, first = 1, rc = 0;
    unsigned d;
    size_t cap = 0, len = 0;
    int *rows = NULL;
    if (!fgets(line, sizeof line, f) || strcmp(line, "s,n,dim\n") != 0) rc = ERR("mahowald: %s is not an ext.csv table", path);
    while (!rc && fgets(line, sizeof line, f)) {
        char end;
        if (sscanf(line, "%d,%d,%u%c", &s, &n, &d, &end) != 4 || end != '\n' || s < 0 || s > 100000 || n < -100000 ||
            n > 100000) {
            rc = ERR("mahowald: %s: not a row s,n,dim: %.40s", path, line);
            break;
        }
        if (len + 3 > cap) {
            cap = cap ? 2 * cap : 192;
            int *r = realloc(rows, cap * sizeof *r);
            if (!r) { rc = ERR("mahowald: out of memory"); break; }
            rows = r;
        }
        rows[len++] = s, rows[len++] = n, rows[len++] = (int)d;
        if (first || n < x->min_n) x->min_n = n;
        if (first || n > x->max_n) x->max_n = n;
        if (s > x->max_s) x->max_s = s;
        first = 0;
    }
    fclose(f);
    if (!rc && first) x->max_s = -1;        /* empty: every dimension 0 */
    if (!rc && !first) {
        size_t w = (size_t)(x->max_n - x->min_n + 1);
        x->dim = calloc((size_t)(x->max_s + 1) * w, sizeof *x->dim);
        if (!x->dim) rc = ERR("mahowald: out of memory");
        for (size_t r = 0; !rc && r < len; r += 3)
            x->dim[(size_t)rows[r] * w + (size_t)(rows[r + 1] - x->min_n)] = (uint32_t)rows[r + 2];
    }
    free(rows);
    return rc;
}

uint32_t mahowald_ext_dim(const mahowald_ext *x, int n, int s)
{
    if (!x->dim || s < 0 || s > x->max_s || n < x->min_n || n > x->max_n) return 0;
    return x->dim[(size_t)s * (size_t)(x->max_n - x->min_n + 1) + (size_t)(n - x->min_n)];
}

void mahowald_ext_clear(mahowald_ext *x)
{
    free(x->dim);
    memset(x, 0, sizeof *x);
}

int mahowald_read_map(const char *path, const char *name, mahowald_map *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) return ERR("mahowald: cannot read %s", path);
    char line[256], nm[80];
    int rc = 0, have_shift = 0;
    if (!fgets(line, sizeof line, f) || strcmp(line, "name,name_n,name_s,n,s,i,k\n") != 0)
        rc = ERR("mahowald: %s is not a module-products.csv table", path);
    while (!rc && fgets(line, sizeof line, f)) {
        int name_n, name_s, n, s;
        unsigned i, j;
        char end;
        if (sscanf(line, "%79[^,],%d,%d,%d,%d,%u,%u%c", nm, &name_n, &name_s, &n, &s, &i, &j, &end) != 8 ||
            end != '\n') {
            rc = ERR("mahowald: %s: not a row: %.60s", path, line);
            break;
        }
        if (strcmp(nm, name) != 0) continue;
        if (name_s != 0 || (have_shift && name_n != m->shift)) {
            rc = ERR("mahowald: %s: the rows of %s are not of one class of Ext^0", path, name);
            break;
        }
        m->shift = name_n, have_shift = 1;
        if (m->len == m->cap) {
            size_t cap = m->cap ? 2 * m->cap : 64;
            mahowald_entry *e = realloc(m->e, cap * sizeof *e);
            if (!e) { rc = ERR("mahowald: out of memory"); break; }
            m->e = e, m->cap = cap;
        }
        m->e[m->len++] = (mahowald_entry){ n, s, i, j };
    }
    fclose(f);
    if (rc) mahowald_map_clear(m);
    return rc;
}

void mahowald_map_clear(mahowald_map *m)
{
    free(m->e);
    memset(m, 0, sizeof *m);
}

void mahowald_map_image(const mahowald_map *m, int n, int s, uint32_t i, uint8_t *v, uint32_t dim)
{
    memset(v, 0, dim);
    for (size_t r = 0; r < m->len; r++)
        if (m->e[r].n == n && m->e[r].s == s && m->e[r].i == i && m->e[r].j < dim) v[m->e[r].j] ^= 1;
}

/* The reduced echelon form of the rows x cols matrix a (row-major bytes), in place; returns the
 * rank, piv[r] the pivot column of row r < rank. */
static uint32_t rref(uint8_t *a, uint32_t rows, uint32_t cols, uint32_t *piv)
{
    uint32_t rank = 0;
    for (uint32_t c = 0; c < cols && rank < rows; c++) {
        uint32_t p = rank;
        while (p < rows && !a[(size_t)p * cols + c]) p++;
        if (p == rows) continue;
        if (p != rank)
            for (uint32_t k = 0; k < cols; k++) {
                uint8_t tmp = a[(size_t)p * cols + k];
                a[(size_t)p * cols + k] = a[(size_t)rank * cols + k];
                a[(size_t)rank * cols + k] = tmp;
            }
        for (uint32_t r = 0; r < rows; r++)
            if (r != rank && a[(size_t)r * cols + c])
                for (uint32_t k = c; k < cols; k++) a[(size_t)r * cols + k] ^= a[(size_t)rank * cols + k];
        piv[rank++] = c;
    }
    return rank;
}

long mahowald_detect(int k, int max_n, int max_s, const mahowald_ext *s2, const mahowald_ext *pk,
                     const mahowald_map *phi, const mahowald_map *psi,
                     int (*found)(void *ctx, const mahowald_result *r), void *ctx, long *early, char *err,
                     size_t errlen)
{
    long count = 0;
    uint8_t *a = NULL;
    uint32_t piv[MAHOWALD_MAX_DIM], pos[MAHOWALD_MAX_DIM];
    uint8_t v[MAHOWALD_MAX_DIM];
    mahowald_result r;
    for (int n = 0; n <= max_n; n++)
        for (int s = 0; s <= max_s; s++) {
            uint32_t nb = mahowald_ext_dim(s2, n + k - 1, s), nx = mahowald_ext_dim(s2, n, s);
            uint32_t np = mahowald_ext_dim(pk, n - 1, s);
            if (!nx || !np) continue;
            if (nb > MAHOWALD_MAX_DIM || nx > MAHOWALD_MAX_DIM || np > MAHOWALD_MAX_DIM) {
                free(a);
                return ERR("mahowald: more than %d classes at a bidegree near (%d, %d)", MAHOWALD_MAX_DIM, n, s);
            }
            uint32_t cols = np + nb, rank = 0, image = 0;  /* [ψ | I]: row j = ψ*(x_(n+k-1, s, j)), then e_j */
            if (nb) {
                uint8_t *na = realloc(a, (size_t)nb * cols);
                if (!na) {
                    free(a);
                    return ERR("mahowald: out of memory");
                }
                a = na;
                memset(a, 0, (size_t)nb * cols);
                for (uint32_t j = 0; j < nb; j++) {
                    mahowald_map_image(psi, n + k - 1, s, j, a + (size_t)j * cols, np);
                    a[(size_t)j * cols + np + j] = 1;
                }
                rank = rref(a, nb, cols, piv);
                while (image < rank && piv[image] < np) image++;     /* rows whose pivot is in ψ's part */
            }
            for (uint32_t c = 0; c < np; c++) pos[c] = UINT32_MAX;
            for (uint32_t q = 0; q < image; q++) pos[piv[q]] = q;
            /* the first k whose region holds x: n <= k - 1 and s <= k/2 + 1 */
            int first = n + 1 > 2 * s - 2 ? n + 1 : 2 * s - 2;
            for (uint32_t i = 0; i < nx; i++) {
                mahowald_map_image(phi, n, s, i, v, np);
                int nonzero = 0, inside = 1;
                uint8_t w[MAHOWALD_MAX_DIM];
                memcpy(w, v, np);
                memset(&r, 0, sizeof r);
                for (uint32_t c = 0; c < np; c++) {         /* w -= the pivot rows at w's pivots */
                    if (!w[c]) continue;
                    nonzero = 1;
                    if (pos[c] == UINT32_MAX) { inside = 0; break; }
                    const uint8_t *row = a + (size_t)pos[c] * cols;
                    for (uint32_t q = c; q < np; q++) w[q] ^= row[q];
                    for (uint32_t q = 0; q < nb; q++) r.inv[q] ^= row[np + q];
                }
                if (nonzero && !inside && k <= (first > 1 ? first : 1) && early) (*early)++;
                if (!nonzero || !inside) continue;
                r.n = n, r.s = s, r.k = k, r.i = i, r.dim = nb, r.nker = nb - image;
                r.ker = r.nker ? malloc((size_t)r.nker * nb) : NULL;
                if (r.nker && !r.ker) {
                    free(a);
                    return ERR("mahowald: out of memory");
                }
                for (uint32_t q = 0; q < r.nker; q++) memcpy(r.ker + (size_t)q * nb, a + (size_t)(image + q) * cols + np, nb);
                int frc = found(ctx, &r);
                free(r.ker);
                if (frc) {
                    free(a);
                    return ERR("mahowald: cannot write the invariants");
                }
                count++;
            }
        }
    free(a);
    return count;
}

/* "x_(s, T, j) + ..." for the non-zero entries of v (0 when there are none). */
static int write_sum(FILE *out, const uint8_t *v, uint32_t dim, int s, int T)
{
    int first = 1;
    for (uint32_t j = 0; j < dim; j++)
        if (v[j]) {
            if (fprintf(out, "%sx_(%d, %d, %u)", first ? "" : " + ", s, T, j) < 0) return -1;
            first = 0;
        }
    return first ? (fputs("0", out) < 0 ? -1 : 0) : 0;
}

int mahowald_write_sseq_line(FILE *out, const mahowald_result *r)
{
    int t = r->n + r->s, T = t + r->k - 1;
    if (fprintf(out, "M(x_(%d, %d, %u)) = ", r->s, t, r->i) < 0 || write_sum(out, r->inv, r->dim, r->s, T)) return -1;
    if (r->nker) {
        if (fputs(" mod <", out) < 0) return -1;
        for (uint32_t q = 0; q < r->nker; q++)
            if ((q && fputs(", ", out) < 0) || write_sum(out, r->ker + (size_t)q * r->dim, r->dim, r->s, T)) return -1;
        if (fputs(">", out) < 0) return -1;
    }
    return fputs("\n", out) < 0 ? -1 : 0;
}

/* The indices of v's non-zero entries, space-separated. */
static int write_indices(FILE *out, const uint8_t *v, uint32_t dim)
{
    int first = 1;
    for (uint32_t j = 0; j < dim; j++)
        if (v[j]) {
            if (fprintf(out, "%s%u", first ? "" : " ", j) < 0) return -1;
            first = 0;
        }
    return 0;
}

int mahowald_write_csv_row(FILE *out, const mahowald_result *r)
{
    if (fprintf(out, "%d,%d,%u,%d,%d,%d,", r->n, r->s, r->i, r->k, r->n + r->k - 1, r->s) < 0 ||
        write_indices(out, r->inv, r->dim) || fputc(',', out) == EOF)
        return -1;
    for (uint32_t q = 0; q < r->nker; q++)
        if ((q && fputc(';', out) == EOF) || write_indices(out, r->ker + (size_t)q * r->dim, r->dim)) return -1;
    return fputc('\n', out) == EOF ? -1 : 0;
}
