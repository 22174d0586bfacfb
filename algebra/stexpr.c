/* stexpr.c — parsing, evaluating and writing Steenrod algebra expressions (stexpr.h). One
 * recursive descent serves both passes: without an algebra (A NULL) values carry only their
 * top degree. */
#include "algebra/stexpr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 32               /* entries of one Sq(...) / P(...) */
#define BIG ((uint64_t)1 << 40)      /* an exponent beyond every degree limit */

typedef struct parser {
    const char *s;
    size_t pos;
    uint32_t p;
    deg_t limit;
    adm_alg *A;                      /* NULL: the first pass */
    int depth;
    int status;                      /* 0, STEXPR_BAD or -1 */
    stexpr_error *err;
} parser;

static int fail(parser *P, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(parser *P, size_t pos, const char *fmt, ...)
{
    if (P->status) return P->status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->err->msg, sizeof P->err->msg, fmt, ap);
    va_end(ap);
    P->err->pos = pos;
    return P->status = STEXPR_BAD;
}
static int oom(parser *P) { if (!P->status) P->status = -1; return -1; }

static void skip_space(parser *P)
{
    while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t') P->pos++;
}
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* What the character at pos is, for a message. */
static const char *what(const parser *P, size_t pos, char *buf, size_t size)
{
    unsigned char c = (unsigned char)P->s[pos];
    if (!c) snprintf(buf, size, "the end");
    else if (c >= 0x21 && c < 0x7f) snprintf(buf, size, "'%c'", c);
    else if (c == ' ') snprintf(buf, size, "a space");
    else snprintf(buf, size, "byte 0x%02x", c);
    return buf;
}

/* ---------------------------------------------------------------- values */

static void val_free(stexpr_val *x)
{
    if (x->v)
        for (deg_t d = 0; d <= x->top; ++d) free(x->v[d]);
    free(x->v);
    x->v = NULL;
    x->top = 0;
}
void stexpr_val_clear(stexpr_val *v) { val_free(v); }

/* x with room for degrees 0..top (zero there), in the second pass. */
static int val_make(parser *P, stexpr_val *x, deg_t top)
{
    x->top = top;
    x->v = NULL;
    if (!P->A) return 0;
    x->v = calloc((size_t)top + 1, sizeof *x->v);
    return x->v ? 0 : oom(P);
}
static uint8_t *val_deg(parser *P, stexpr_val *x, deg_t d)
{
    if (!x->v[d] && !(x->v[d] = calloc(P->A->dim[d] + 1, 1))) oom(P);
    return x->v[d];
}

/* x += sign y (sign 1 or p - 1); y freed. */
static int val_add(parser *P, stexpr_val *x, stexpr_val *y, uint32_t sign)
{
    if (y->top > x->top) {
        if (P->A) {
            uint8_t **v = realloc(x->v, ((size_t)y->top + 1) * sizeof *v);
            if (!v) { val_free(y); return oom(P); }
            for (deg_t d = x->top + 1; d <= y->top; ++d) v[d] = NULL;
            x->v = v;
        }
        x->top = y->top;
    }
    if (P->A)
        for (deg_t d = 0; d <= y->top; ++d) {
            if (!y->v[d]) continue;
            uint8_t *o = val_deg(P, x, d);
            if (!o) break;
            for (uint32_t i = 0; i < P->A->dim[d]; ++i) o[i] = (uint8_t)((o[i] + sign * y->v[d][i]) % P->p);
        }
    val_free(y);
    return P->status;
}

static void val_scale(parser *P, stexpr_val *x, uint32_t c)
{
    if (P->A)
        for (deg_t d = 0; d <= x->top; ++d)
            if (x->v[d])
                for (uint32_t i = 0; i < P->A->dim[d]; ++i) x->v[d][i] = (uint8_t)(x->v[d][i] * c % P->p);
}

/* x = x · y; y freed. pos: where y starts (for a degree past the limit). */
static int val_mul(parser *P, stexpr_val *x, stexpr_val *y, size_t pos)
{
    if ((int64_t)x->top + y->top > P->limit) {
        int rc = fail(P, pos, "this product reaches degree %lld, beyond the limit %d at p = %u",
                      (long long)x->top + y->top, P->limit, P->p);
        val_free(y);
        return rc;
    }
    stexpr_val z;
    if (val_make(P, &z, x->top + y->top) != 0) { val_free(y); return -1; }
    if (P->A)
        for (deg_t dx = 0; dx <= x->top && !P->status; ++dx) {
            if (!x->v[dx]) continue;
            for (deg_t dy = 0; dy <= y->top && !P->status; ++dy) {
                if (!y->v[dy]) continue;
                uint8_t *o = val_deg(P, &z, dx + dy);
                if (!o) break;
                for (uint32_t i = 0; i < P->A->dim[dx]; ++i)
                    if (x->v[dx][i])
                        for (uint32_t j = 0; j < P->A->dim[dy]; ++j)
                            if (y->v[dy][j])
                                adm_milnor_mul(P->A, dx, i, dy, j, x->v[dx][i] * y->v[dy][j] % P->p, o);
            }
        }
    val_free(x);
    val_free(y);
    *x = z;
    return P->status;
}

/* c times the unit. */
static int val_num(parser *P, stexpr_val *x, uint32_t c)
{
    if (val_make(P, x, 0) != 0) return -1;
    if (P->A) {
        uint8_t *o = val_deg(P, x, 0);
        if (!o) return -1;
        o[0] = (uint8_t)(c % P->p);
    }
    return 0;
}

/* The Milnor element Q(E)P(R) (Sq(R) at p = 2), written at pos..P->pos. */
static int val_milnor(parser *P, stexpr_val *x, uint32_t qmask, const uint64_t *r, int n, size_t pos)
{
    uint32_t r32[MAX_ENTRIES] = { 0 };
    int big = 0;
    for (int i = 0; i < n; ++i) {              /* an entry above the limit: its degree is too */
        if (r[i] > (uint64_t)P->limit) big = 1;
        else r32[i] = (uint32_t)r[i];
    }
    uint64_t deg = big ? BIG : adm_milnor_degree(P->p, qmask, r32, n);
    if (deg > (uint64_t)P->limit) {
        int len = (int)(P->pos - pos);
        if (deg >= BIG) return fail(P, pos, "%.*s: its degree is beyond the limit %d at p = %u", len, P->s + pos, P->limit, P->p);
        return fail(P, pos, "%.*s has degree %llu, beyond the limit %d at p = %u", len, P->s + pos,
                    (unsigned long long)deg, P->limit, P->p);
    }
    if (val_make(P, x, (deg_t)deg) != 0) return -1;
    if (P->A) {
        deg_t d;
        uint32_t idx;
        if (adm_milnor_find(P->A, qmask, r32, n, &d, &idx) != 0)
            return fail(P, pos, "%.*s lies beyond the algebra's tables", (int)(P->pos - pos), P->s + pos);
        uint8_t *o = val_deg(P, x, d);
        if (!o) return -1;
        o[idx] = 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- grammar */

/* A decimal integer at P->pos: its value saturated at BIG, and mod p. */
static int read_int(parser *P, uint64_t *value, uint32_t *modp, const char *after)
{
    char b[24];
    if (!is_digit(P->s[P->pos])) return fail(P, P->pos, "expected a number %s, found %s", after, what(P, P->pos, b, sizeof b));
    uint64_t v = 0;
    uint32_t m = 0;
    while (is_digit(P->s[P->pos])) {
        uint32_t dgt = (uint32_t)(P->s[P->pos++] - '0');
        v = v >= BIG ? BIG : v * 10 + dgt;
        m = (m * 10 + dgt) % P->p;
    }
    if (value) *value = v;
    if (modp) *modp = m;
    return 0;
}

static int expect(parser *P, char c, const char *context)
{
    char b[24];
    skip_space(P);
    if (P->s[P->pos] != c) return fail(P, P->pos, "expected '%c' %s, found %s", c, context, what(P, P->pos, b, sizeof b));
    P->pos++;
    return 0;
}

/* "(r1, r2, ...)" after Sq or P. */
static int read_tuple(parser *P, uint64_t *r, int *n, const char *name)
{
    char ctx[40];
    snprintf(ctx, sizeof ctx, "after %s(", name);
    *n = 0;
    if (expect(P, '(', "")) return P->status;
    skip_space(P);
    if (P->s[P->pos] == ')') { P->pos++; return 0; }
    for (;;) {
        skip_space(P);
        if (*n == MAX_ENTRIES) return fail(P, P->pos, "more than %d entries in %s(...)", MAX_ENTRIES, name);
        if (read_int(P, &r[*n], NULL, ctx)) return P->status;
        (*n)++;
        skip_space(P);
        if (P->s[P->pos] == ')') { P->pos++; return 0; }
        snprintf(ctx, sizeof ctx, "or ')' in %s(...)", name);
        if (expect(P, ',', ctx)) return P->status;
        snprintf(ctx, sizeof ctx, "after ',' in %s(...)", name);
    }
}

/* The exponent after Sq or P: "^a" (spaces allowed around ^) or digits right after the name. */
static int read_exponent(parser *P, uint64_t *a, const char *name)
{
    char b[24], ctx[40];
    if (P->s[P->pos] == '^') {
        P->pos++;
        skip_space(P);
        snprintf(ctx, sizeof ctx, "after %s^", name);
        return read_int(P, a, NULL, ctx);
    }
    if (is_digit(P->s[P->pos])) return read_int(P, a, NULL, "");
    return fail(P, P->pos, "expected '(', '^' or a digit after %s, found %s", name, what(P, P->pos, b, sizeof b));
}

static int starts(const parser *P, const char *w) { return strncmp(P->s + P->pos, w, strlen(w)) == 0; }

static int parse_expr(parser *P, stexpr_val *x);

static int parse_gen(parser *P, stexpr_val *x)
{
    size_t pos = P->pos;
    uint64_t r[MAX_ENTRIES] = { 0 };
    int n = 0;
    int odd = P->p != 2;
    if (starts(P, "Sq") || starts(P, "P")) {
        const char *name = starts(P, "Sq") ? "Sq" : "P";
        size_t len = strlen(name);
        if (odd && len == 2) return fail(P, pos, "Sq is the p = 2 notation; at p = %u write P(...), P^s, Q_i or b", P->p);
        if (!odd && len == 1) return fail(P, pos, "P is the odd-prime notation; at p = 2 write Sq(...) or Sq^a (or give --prime)");
        P->pos += len;
        skip_space(P);
        if (P->s[P->pos] == '(') {
            if (read_tuple(P, r, &n, name)) return P->status;
        } else {
            P->pos = pos + len;
            if (read_exponent(P, &r[0], name)) return P->status;
            n = 1;
        }
        return val_milnor(P, x, 0, r, n, pos);
    }
    if (starts(P, "Q")) {
        uint64_t i;
        P->pos += 1;
        if (P->s[P->pos] == '_') {
            P->pos++;
            if (read_int(P, &i, NULL, "after Q_")) return P->status;
        } else if (P->s[P->pos] == '(') {
            P->pos++;
            skip_space(P);
            if (read_int(P, &i, NULL, "after Q(")) return P->status;
            if (expect(P, ')', "after Q(i")) return P->status;
        } else {
            char b[24];
            if (!is_digit(P->s[P->pos]))
                return fail(P, P->pos, "expected '_', '(' or a digit after Q, found %s", what(P, P->pos, b, sizeof b));
            read_int(P, &i, NULL, "");
        }
        if (i >= 24) return fail(P, pos, "%.*s: its degree is beyond the limit %d at p = %u", (int)(P->pos - pos), P->s + pos, P->limit, P->p);
        if (odd) return val_milnor(P, x, 1u << i, r, 0, pos);
        r[i] = 1;                                   /* Q_i = Sq(0, ..., 0, 1) at p = 2 */
        return val_milnor(P, x, 0, r, (int)i + 1, pos);
    }
    if (starts(P, "beta") || starts(P, "b")) {
        if (!odd) return fail(P, pos, "b (beta) is the odd-prime notation; at p = 2 write Sq^1");
        P->pos += starts(P, "beta") ? 4 : 1;
        return val_milnor(P, x, 1, r, 0, pos);
    }
    size_t end = pos;
    while (is_letter(P->s[end])) end++;
    return fail(P, pos, "unknown name '%.*s' (the generators are %s)", (int)(end - pos), P->s + pos,
                odd ? "P(...), P^s, Q_i, b" : "Sq(...), Sq^a, Q_i");
}

static int parse_primary(parser *P, stexpr_val *x)
{
    char b[24];
    skip_space(P);
    char c = P->s[P->pos];
    if (is_digit(c)) {
        uint32_t m;
        read_int(P, NULL, &m, "");
        return val_num(P, x, m);
    }
    if (is_letter(c)) return parse_gen(P, x);
    if (c == '(') {
        size_t open = P->pos++;
        if (++P->depth > STEXPR_MAX_DEPTH) return fail(P, open, "parentheses nested more than %d deep", STEXPR_MAX_DEPTH);
        if (parse_expr(P, x)) return P->status;
        P->depth--;
        skip_space(P);
        if (P->s[P->pos] != ')') {
            int rc = fail(P, P->pos, "expected ')' (for the '(' at column %zu) or an operator, found %s", open + 1,
                          what(P, P->pos, b, sizeof b));
            val_free(x);
            return rc;
        }
        P->pos++;
        return 0;
    }
    return fail(P, P->pos, "expected a number, a generator or '(', found %s", what(P, P->pos, b, sizeof b));
}

static int parse_factor(parser *P, stexpr_val *x)
{
    uint32_t sign = 1;
    for (;;) {
        skip_space(P);
        if (P->s[P->pos] == '-') sign = P->p - sign;
        else if (P->s[P->pos] != '+') break;
        P->pos++;
    }
    if (parse_primary(P, x)) return P->status;
    if (sign != 1) val_scale(P, x, sign);
    return 0;
}

static int parse_term(parser *P, stexpr_val *x)
{
    if (parse_factor(P, x)) return P->status;
    for (;;) {
        skip_space(P);
        char c = P->s[P->pos];
        if (c == '*') P->pos++;
        else if (!(is_digit(c) || is_letter(c) || c == '(')) return 0;
        skip_space(P);
        size_t pos = P->pos;
        stexpr_val y = { 0, NULL };
        if (parse_factor(P, &y) || val_mul(P, x, &y, pos)) { val_free(x); return P->status; }
    }
}

static int parse_expr(parser *P, stexpr_val *x)
{
    if (parse_term(P, x)) return P->status;
    for (;;) {
        skip_space(P);
        char c = P->s[P->pos];
        if (c != '+' && c != '-') return 0;
        P->pos++;
        stexpr_val y = { 0, NULL };
        if (parse_term(P, &y) || val_add(P, x, &y, c == '+' ? 1 : P->p - 1)) { val_free(x); return P->status; }
    }
}

static int parse_all(parser *P, stexpr_val *x)
{
    char b[24];
    x->top = 0, x->v = NULL;
    skip_space(P);
    if (!P->s[P->pos]) return fail(P, 0, "the expression is empty");
    if (parse_expr(P, x)) return P->status;
    skip_space(P);
    if (P->s[P->pos]) {
        int rc = fail(P, P->pos, "unexpected %s%s", what(P, P->pos, b, sizeof b),
                      P->s[P->pos] == ')' ? " (no '(' open)" : " after a complete term");
        val_free(x);
        return rc;
    }
    return 0;
}

int stexpr_check(const char *text, uint32_t p, deg_t limit, deg_t *top, stexpr_error *err)
{
    parser P = { text, 0, p, limit, NULL, 0, 0, err };
    stexpr_val x;
    int rc = parse_all(&P, &x);
    if (rc == 0) *top = x.top;
    return rc;
}

int stexpr_eval(const char *text, adm_alg *A, stexpr_val *out, stexpr_error *err)
{
    parser P = { text, 0, A->p, A->max_degree, A, 0, 0, err };
    int rc = parse_all(&P, out);
    if (rc) val_free(out);
    return rc;
}

/* ---------------------------------------------------------------- output */

typedef struct sbuf { char *s; size_t n, cap; int oom; } sbuf;
static void put(sbuf *b, const char *t)
{
    size_t k = strlen(t);
    if (b->oom) return;
    if (b->n + k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + k + 1) cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) { b->oom = 1; return; }
        b->s = s, b->cap = cap;
    }
    memcpy(b->s + b->n, t, k + 1);
    b->n += k;
}

char *stexpr_format(adm_alg *A, const stexpr_val *v, enum stexpr_basis basis)
{
    sbuf b = { 0 };
    char name[256], coef[16];
    uint8_t *a = NULL;
    for (deg_t d = 0; d <= v->top && !b.oom; ++d) {
        if (!v->v || !v->v[d]) continue;
        const uint8_t *c = v->v[d];
        const adm_degree *D = NULL;
        if (basis == STEXPR_ADMISSIBLE) {
            free(a);
            if (!(a = malloc(A->dim[d] + 1)) || adm_from_milnor(A, d, v->v[d], a) != 0) { b.oom = 1; break; }
            c = a;
            D = adm_degree_get(A, d);
        }
        for (uint32_t i = 0; i < A->dim[d]; ++i) {
            if (!c[i]) continue;
            if (b.n) put(&b, " + ");
            if (c[i] != 1) {
                snprintf(coef, sizeof coef, "%u ", c[i]);
                put(&b, coef);
            }
            if (D) adm_mono_format(A->p, &D->mono[i], name, sizeof name);
            else adm_milnor_format(A, d, i, name, sizeof name);
            put(&b, name);
        }
    }
    free(a);
    if (!b.oom && !b.n) put(&b, "0");
    if (b.oom) { free(b.s); return NULL; }
    return b.s;
}
