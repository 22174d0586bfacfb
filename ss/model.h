/* model.h — the Adams spectral sequence above E2 (docs/spectral-sequence.md).
 *
 * The mathematics. Fix a bidegree b = (n, s) (stem n, filtration s) whose E2 group has the
 * basis x_(n,s,0..k-1) over F_p. Every later page is a subquotient of it,
 *     0 = B_2 ⊆ B_3 ⊆ … ⊆ B_r ⊆ Z_r ⊆ … ⊆ Z_2 = E2(b),   E_r(b) = Z_r / B_r,
 * with Z_{r+1}(b) = { x ∈ Z_r(b) : d_r(x) ∈ B_r(b') } for b' = (n − 1, s + r), and
 * B_{r+1}(b') = B_r(b') + d_r(Z_r(b)). A differential is known on part of Z_r only: what was
 * entered (d_r(x) = y, "given"), what `extflow d2` computed ("computed", every class), what
 * the Leibniz rule forced ("propagated"), the boundaries B_r (mapped to zero) and the
 * permanent classes (d_r = 0 for every r). On the rest of Z_r the model assumes d_r = 0 to
 * draw the pages, and says so: a page is "settled" at b when nothing it depends on was
 * assumed (ss_page.exact).
 *
 * Leibniz (p = 2; at odd p with the sign (−1)^{n_m}, n_m the stem of m): for a product type m
 * (a named class whose products m·x are known, products.csv) that is permanent,
 * d_r(m·x) = m·d_r(x), and m·x is permanent when x is; when d_r(m) = q is known (an entered
 * "product differential", q another product type), d_r(m·x) = q·x + m·d_r(x). Propagation
 * applies these to every known fact until nothing new comes (a fixed point); each new fact
 * records the fact and the product it came from.
 *
 * Consistency: every fact is checked against the pages the earlier-page facts define: its
 * source alive on E_r (in Z_r), its target alive there (in Z_r(b')), no second value for the
 * same class, no non-zero d_r of a permanent class. A failure names the facts involved.
 *
 * The data. A grid of bidegrees (stems nmin..nmax, filtrations 0..smax), each with its E2
 * dimension (-1 outside the resolved region). Vectors are arrays of k bytes, coefficients
 * 0..p-1, over the basis x_(n,s,i) in the generators' order. Facts live in one array (their
 * index is their id); product types in another, each with its matrices m·x_(n,s,i) per
 * bidegree. Pages are computed anew from all facts (ss_compute), page by page, and kept:
 * for each page r and bidegree the subspaces Z_r, B_r (row echelon bases) and the known part
 * of d_r (an echelon basis of its domain with the images and the facts behind each row).
 * Nothing here knows StarPU, files or the command line. */
#ifndef EXTFLOW_SS_MODEL_H
#define EXTFLOW_SS_MODEL_H
#include <stddef.h>
#include <stdint.h>

enum ss_kind { SS_DIFF, SS_PERM };
enum ss_origin { SS_GIVEN, SS_COMPUTED, SS_PROPAGATED };

typedef struct ss_fact {
    int kind;                   /* SS_DIFF: d_r(x) = y; SS_PERM: x permanent (r unused) */
    int origin;                 /* enum ss_origin */
    int r, n, s;                /* the page, the source's bidegree */
    uint8_t *x, *y;             /* source over E2(n, s); target over E2(n - 1, s + r) (NULL for SS_PERM) */
    int line;                   /* the history's line (given), 0 otherwise */
    int parent;                 /* propagated: the fact it came from (-1 when none) */
    int via;                    /* propagated: the product type it was multiplied by (-1 when none) */
} ss_fact;

typedef struct ss_product {
    char name[64];
    int n, s;                   /* its bidegree */
    uint8_t *v;                 /* its vector over E2(n, s) */
    int permanent;              /* declared permanent (AddProductType's flag) */
    int diff_r, diff_to;        /* d_{diff_r}(this) = product type diff_to (diff_to -1: none) */
    int line;
    uint8_t **mat;              /* per grid cell of b: the k_b x k_{b+|m|} matrix (row i: m·x_(b,i)); NULL: unknown */
} ss_product;

typedef struct ss_space {       /* a subspace of F_p^k: rows in row echelon form */
    int k, n;
    uint8_t *rows;              /* n rows of k bytes (capacity k rows) */
    int *piv;                   /* the pivot column of each row */
} ss_space;

typedef struct ss_known {       /* the known part of d_r at one bidegree on one page */
    int k, kt, n;
    uint8_t *dom, *img;         /* n rows: dom (k bytes) in row echelon form, img (kt bytes) */
    int *piv;
    int **why, *nwhy;           /* the facts behind each row (empty: a boundary or assumed zero) */
    int nknown;                 /* the first nknown rows are known (boundaries, permanence, facts) */
    int assumed;                /* rows after them, "assumed zero" to span Z_r, where the target
                                 * is not known to be zero */
} ss_known;

typedef struct ss_cell {        /* one bidegree on one page */
    ss_space Z, B;
    ss_known d;                 /* d_r out of it */
    int zexact, bexact;         /* Z_r, B_r free of assumptions */
} ss_cell;

typedef struct ss_model {
    uint32_t p;
    int nmin, nmax, smax;       /* the grid */
    int *dim;                   /* (smax + 1) x (nmax - nmin + 1): E2 dimension, -1 outside the region */
    ss_fact *facts;
    int nfacts, capfacts;
    ss_product *products;
    int nproducts, capproducts;
    int line_limit;             /* product types of later history lines are left out (INT_MAX: none) */
    int rmax;                   /* pages 2..rmax computed (rmax = smax + 2: past it nothing changes) */
    ss_cell *pages;             /* (rmax - 1) pages of cells: page r at index r - 2 */
    void *arena;                /* the pages' subspaces: one bump allocator, reset by each ss_compute */
    int *idx_first, *idx_next;  /* facts by grid cell, in id order (ids < idx_n) */
    int idx_n;
    char err[512];              /* the last refusal, naming the facts */
    int conflict[2];            /* the facts of the last refusal (-1 when fewer) */
} ss_model;

/* The grid, every dimension -1 (outside). 0, or -1 out of memory. */
int ss_init(ss_model *m, uint32_t p, int nmin, int nmax, int smax);
void ss_clear(ss_model *m);
static inline int ss_cell_index(const ss_model *m, int n, int s)
{ return (n < m->nmin || n > m->nmax || s < 0 || s > m->smax) ? -1 : s * (m->nmax - m->nmin + 1) + (n - m->nmin); }
/* E2 dimension at (n, s); -1 outside the grid or the region. */
static inline int ss_dim(const ss_model *m, int n, int s)
{ int c = ss_cell_index(m, n, s); return c < 0 ? -1 : m->dim[c]; }
static inline ss_cell *ss_page(const ss_model *m, int r, int n, int s)
{ int c = ss_cell_index(m, n, s); return c < 0 || r < 2 || r > m->rmax ? NULL : &m->pages[(size_t)(r - 2) * (size_t)((m->smax + 1) * (m->nmax - m->nmin + 1)) + (size_t)c]; }

/* A fact appended (vectors copied; y NULL for SS_PERM): its id, or -1 with m->err set (a
 * bidegree outside the region, a vector of the wrong length or a coefficient >= p). */
int ss_add_fact(ss_model *m, const ss_fact *f);
/* A product type appended (vector copied, no matrices yet): its index, or -1 with m->err. */
int ss_add_product(ss_model *m, const char *name, int n, int s, const uint8_t *v, int permanent, int line);
/* Product type t's row m·x_(n,s,i) (kt coefficients) recorded: 0, or -1 (out of memory, or
 * outside the region: m->err). Every bidegree whose product lands in the region and gets no
 * row has the zero product once ss_product_close(t) is called. */
int ss_product_row(ss_model *m, int t, int n, int s, int i, const uint8_t *row);
/* Zero matrices where no row came, for every b with b and b + |t| in the region. 0 or -1. */
int ss_product_close(ss_model *m, int t);

/* All pages from all facts, then Leibniz to a fixed point. 0 when consistent; 1 when two
 * facts contradict each other (m->err says which; m->conflict their ids); -1 out of memory. */
int ss_compute(ss_model *m, int propagate);
/* Drops every fact with id >= n (a refused entry's, and what was propagated after it). */
void ss_truncate(ss_model *m, int n);

/* E_r(n, s)'s dimension (r = 2..rmax), or -1 outside the region. */
int ss_page_dim(const ss_model *m, int r, int n, int s);
/* Is E∞(n, s) settled (every d_r out of and into it known, no assumption), and its dimension. */
int ss_einf(const ss_model *m, int n, int s, int *dim);
/* The largest r of a non-zero differential among the facts, at least 2 (the tables show
 * pages 2 .. this + 1: at least E2 and E3). */
int ss_last_page(const ss_model *m);
/* A fact as a line of text ("d_3 x_(15,2)[1] -> x_(14,5)[1] (history line 4)"). */
void ss_describe(const ss_model *m, int id, char *buf, size_t size);
/* Coefficients as a digit string (p <= 10) into buf. */
void ss_vec_string(const uint8_t *v, int k, char *buf, size_t size);

#endif
