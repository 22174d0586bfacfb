/* products.c — products read off lifted chain maps, and class arguments (see products.h). */
#include "stages/products.h"
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

int products_parse_class(const char *arg, product_class *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    const char *eq = strchr(arg, '=');
    size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!eq) {   /* a bare h_j */
        if (nlen == 2 && arg[0] == 'h' && arg[1] >= '0' && arg[1] <= '7') {
            snprintf(c->name, sizeof c->name, "%s", arg);
            c->n = (1 << (arg[1] - '0')) - 1;
            c->s = 1;
            c->len = 1;
            c->coords[0] = 1;
            return 0;
        }
        snprintf(err, errlen, "class '%.80s': expected NAME=n,s[,vector] or one of h0..h7", arg);
        return -1;
    }
    if (nlen == 0 || nlen > PRODUCT_NAME_MAX) {
        snprintf(err, errlen, "class '%.80s': the name must have 1 to %d characters", arg, PRODUCT_NAME_MAX);
        return -1;
    }
    for (size_t k = 0; k < nlen; k++)
        if (!isalnum((unsigned char)arg[k]) && !strchr("_.^+-", arg[k])) {
            snprintf(err, errlen, "class '%.80s': the name may hold only letters, digits and _ . ^ + -", arg);
            return -1;
        }
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
        if ((*p != '0' && *p != '1') || c->len == PRODUCT_VECTOR_MAX) break;
        c->coords[c->len++] = (uint8_t)(*p++ - '0');
    }
    if (bracket && *p == ']') p++;
    else if (bracket) p = "?";
    if (*p || c->len == 0) {
        snprintf(err, errlen, "class '%.80s': the vector must be 0s and 1s, as [1,0,1] or 101", arg);
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
            if (!lift_map_in_region(set, m, s, t)) continue;
            uint32_t nz = res_ngens(set->src, f->s0 + s, t + f->t0);
            for (uint32_t j = 0; j < res_ngens(tgt, s, t); j++) fn(out, set, m, name, n, s, j, nz);
        }
}

static void lift_hom_row(FILE *out, const lift_set *set, int m, const char *name, int n, int s, uint32_t j, uint32_t nz)
{
    fprintf(out, "%s x_(%d, %d, %u) = [", name, n, s, j);
    for (uint32_t k = 0; k < nz; k++) fprintf(out, "%s%d", k ? ", " : "", lift_product_bit(set, m, s, n + s, j, k));
    fputs("]\n", out);
}

static void csv_rows(FILE *out, const lift_set *set, int m, const char *name, int n, int s, uint32_t j, uint32_t nz)
{
    const lift_map *f = &set->maps[m];
    for (uint32_t k = 0; k < nz; k++)
        if (lift_product_bit(set, m, s, n + s, j, k))
            fprintf(out, "%s,%d,%d,%d,%d,%u,%u\n", name, (int)(f->t0 - f->s0 + set->src->shift), f->s0, n, s, j, k);
}

int products_write_lift_hom(FILE *out, const lift_set *set, int m, const char *name)
{
    each_row(out, set, m, name, lift_hom_row);
    return ferror(out) ? -1 : 0;
}

int products_write_csv(FILE *out, const lift_set *set, const char *const *names, const char *kept, size_t keptlen)
{
    fputs(PRODUCTS_CSV_HEADER "\n", out);
    if (keptlen) fwrite(kept, 1, keptlen, out);
    for (int m = 0; m < set->nmaps; m++) each_row(out, set, m, names[m], csv_rows);
    return ferror(out) ? -1 : 0;
}

/* Is line (without its newline) a row NAME,a,b,c,d,e,f of a products table, NAME as a class
 * name (products.h) and a..f decimal integers (a sign on any, at most 9 digits)? On success
 * *namelen is NAME's length. */
static int is_row(const char *line, size_t *namelen)
{
    size_t k = 0;
    while (line[k] && line[k] != ',') {
        if (!isalnum((unsigned char)line[k]) && !strchr("_.^+-", line[k])) return 0;
        k++;
    }
    if (k == 0 || k > PRODUCT_NAME_MAX) return 0;
    *namelen = k;
    const char *p = line + k;
    for (int f = 0; f < 6; f++) {
        if (*p++ != ',') return 0;
        p += *p == '-';
        int digits = 0;
        for (; isdigit((unsigned char)*p); p++)
            if (++digits > 9) return 0;
        if (!digits) return 0;
    }
    return *p == 0;
}

int products_read_kept(const char *path, const char *const *names, int nnames, char **kept, size_t *keptlen,
                       char *err, size_t errlen)
{
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
            snprintf(err, errlen, "%s, line %ld: not a row %s", path, lineno, PRODUCTS_CSV_HEADER);
            rc = -2;
        } else if (lineno == 1) {
            if (strcmp(line, PRODUCTS_CSV_HEADER) != 0) {
                snprintf(err, errlen, "%s does not start with the header %s", path, PRODUCTS_CSV_HEADER);
                rc = -2;
            }
        } else {
            size_t nl;
            if (!is_row(line, &nl)) {
                snprintf(err, errlen, "%s, line %ld: not a row %s", path, lineno, PRODUCTS_CSV_HEADER);
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
        snprintf(err, errlen, "%s is empty: it has no header %s", path, PRODUCTS_CSV_HEADER);
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
            for (uint32_t k = 0; k < dim; k++) prod[k] ^= (uint8_t)lift_product_bit(set, m, s, n + s, j, k);
}
