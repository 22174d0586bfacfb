/* products.h — products in Ext read off lifted chain maps (stages/products/lift.h), and the class
 * arguments of `extflow products`.
 *
 * A class is NAME=n,s[,vector]: stem n, homological degree s, and its coordinates over the
 * generators of F_s in degree t = n + s (that is the basis of Ext^{s,t}), written [1,0,1] or
 * 101 (default [1]); or a bare h0 .. h7 (h_j = the generator at (2^j - 1, 1)). NAME is 1..63
 * characters from [A-Za-z0-9_.^+-] (it names files and is a products.csv column).
 * At an odd prime p the coordinates are 0..p-1 ([1,2] or 12), and the bare names are sseq's
 * filtration-one classes there: a0 at (0, 1) (dual to Q_0 = the Bockstein) and h_j at
 * (q p^j - 1, 1), q = 2(p - 1) (dual to P(p^j)): h0 at (2p - 3, 1), at p = 3 h0 (3, 1), h1 (11, 1).
 *
 * Outputs. products.csv (schema/products-csv.md; the columns the chart reads,
 * name,name_n,name_s,n,s,i,k): for each lifted class `name` at (name_n, name_s) and each class
 * x_(n,s,i) of the target in the lift's region, one row per k with coefficient 1 of
 * x_(n+name_n, s+name_s, k) in name · x_(n,s,i) (over a module M, set->src is M's resolution:
 * name and the product are classes of Ext(M), x_(n,s,i) one of S_2's; the command writes this
 * table as module-products.csv). lift_hom text: what sseq's lift_hom example
 * prints for the same class and region (docs/products.md of the reference, §2.8).
 *
 * Maps of modules (`products DIR --map NAME=FILE --target DIR_N`): φ : M -> N from a map file
 * (algebra/modops.h), lifted from M's resolution (DIR) to N's (lift_add_module_map); the rows
 * are then the induced map Ext(N, F2) -> Ext(M, F2), x_(n,s,i) a class of Ext(N) and k one of
 * Ext(M) at (n + name_n, s), name_n = -(degree of φ), name_s = 0: the table maps.csv, and
 * lift_hom text as sseq's lift_hom with two modules. Every target bidegree whose source
 * bidegree lies below the source's stems (a map raising degrees) is printed, empty, as sseq does.
 */
#ifndef EXTFLOW_PRODUCTS_H
#define EXTFLOW_PRODUCTS_H
#include <stdio.h>
#include "algebra/modops.h"
#include "stages/products/lift.h"

#define PRODUCT_NAME_MAX 63
#define PRODUCT_VECTOR_MAX 4096

typedef struct product_class {
    char name[PRODUCT_NAME_MAX + 1];
    int n, s;
    uint32_t len;               /* coordinates given (1 for the default [1]) */
    uint8_t coords[PRODUCT_VECTOR_MAX];
} product_class;

/* Is arg[0..nlen) a class name (1..63 characters of [A-Za-z0-9_.^+-])? 0, or -1 with a one-line
 * message in err about the `what` arg (the whole argument). */
int products_check_name(const char *arg, size_t nlen, const char *what, char *err, size_t errlen);
/* Parses one class argument (p = 2); 0, or -1 with a one-line message in err. */
int products_parse_class(const char *arg, product_class *c, char *err, size_t errlen);
/* The same at the prime p (2, or odd: coordinates below p, the bare names a0, h0 .. h7 of p). */
int products_parse_class_p(const char *arg, uint32_t p, product_class *c, char *err, size_t errlen);

/* products.csv's header: at p = 2 a row says the coefficient is 1; at an odd prime a last
 * column c (1..p-1) gives it (schema/products-csv.md). */
#define PRODUCTS_CSV_HEADER "name,name_n,name_s,n,s,i,k"
#define PRODUCTS_CSV_HEADER_P "name,name_n,name_s,n,s,i,k,c"

/* products.csv for the maps of set, named names[m] (the header of set's prime): the header line, then kept[0..keptlen)
 * (earlier rows to keep, whole lines: products_read_kept), then the maps' rows; 0 or -1. */
int products_write_csv(FILE *out, const lift_set *set, const char *const *names, const char *kept, size_t keptlen);
/* An existing table at path (products.csv or module-products.csv) read for a merge: its rows
 * whose name is none of names[0..nnames), in their order, as lines into *kept (malloc'd,
 * *keptlen bytes; NULL and 0 when there are none). 0 (an absent file keeps nothing); -1
 * when it cannot be read; -2 when it is not such a table: its first line is not exactly
 * PRODUCTS_CSV_HEADER (at p = 2; PRODUCTS_CSV_HEADER_P at an odd prime), or a later line is
 * not NAME and six integers (seven). err gets one line. */
int products_read_kept(const char *path, uint32_t prime, const char *const *names, int nnames, char **kept,
                       size_t *keptlen, char *err, size_t errlen);
/* sseq's lift_hom output (without its command line) for map m named name; 0 or -1. */
int products_write_lift_hom(FILE *out, const lift_set *set, int m, const char *name);
/* products --map --sseq-formats from S^k to S^(k-1) (both unstable spheres, map m of degree
 * -1): the block of sseq's unstable_suspension output for shift k, lines "n s k: dim - matrix"
 * for the stems n + k of S^k from max(2(k-1), k) to its top, each s <= S (n the stem above the
 * bottom class, dim that of Ext^s of S^k there, the matrix's row j the image of the j-th class
 * of S^(k-1) in stem n + k - 1, over S^k's classes; left out when either side is 0 or it is the
 * identity); preceded by the shift-0 block ("n s 0: dim" of S^0, every n and s) when k = 1.
 * The files of S^1, S^2, ... in turn are sseq's whole output. 0, or -1. */
int products_write_unstable_suspension(FILE *out, const lift_set *set, int m);
/* h_j-multiplication on the classes of a region, h_j at (2^j - 1, 1), however it is known: dim
 * gives the generators at the product's bidegree of x_(n,s,*) (0 when that bidegree is outside
 * the region or zero), coef the coefficient of its generator k in h_j x_(n,s,i). */
typedef struct products_hj {
    void *ctx;
    uint32_t (*dim)(void *ctx, int j, int n, int s);
    uint32_t (*coef)(void *ctx, int j, int n, int s, uint32_t i, uint32_t k);
} products_hj;
/* sseq's filtration_one output (without its command line) over res's region, h_0 .. h_{nh-1}:
 * for every class x_(n,s,i), stem by stem (internal n), then s, j and i, the line
 * "h_j x_(n, s, i) = [v]" (n in the module's stems) wherever hj->dim is not 0, v the product's
 * coordinates. 0 or -1. */
int products_write_filtration_one(FILE *out, const resolution *res, int nh, const products_hj *hj);
/* A minimal resolution's own h_j (p = 2): the coefficient of Sq(2^j) g_i in d(g_k), the product
 * of report_hj, for products in the region. */
products_hj products_hj_differentials(const resolution *res);
/* How many h_j (j = 0, 1, ...) res's region and algebra hold: 2^j - 1 at most the region's last
 * stem, Sq(2^j) in the algebra; 0 at an odd prime. */
int products_hj_count(const resolution *res);
/* products.csv (p = 2) with the rows of h_0 .. h_{nh-1} read off res's differentials, after the
 * header and kept[0..keptlen) (products_read_kept): name h<j>, name_n 2^j - 1, name_s 1, in
 * the order of products_write_csv. 0 or -1. */
int products_write_hj_csv(FILE *out, const resolution *res, int nh, const char *kept, size_t keptlen);

/* A map of modules for a lift set: φ and the two modules, F2's (modops_sphere_text) for S_2. */
typedef struct products_module_map {
    module_map map;
    fd_module sphere[2];        /* F2 where the source or the target is S_2 (else empty) */
    const fd_module *M, *N;
    const resolution *src, *tgt;
    deg_t t0;                   /* the lift's internal degree: tgt->shift - src->shift - degree */
    char key[64];               /* the lift's stage-file directory: "map-<hash of φ>" */
} products_module_map;
/* Reads the map file at path for src -> tgt (their modules, or F2), refusing one that is not a
 * map of A-modules of the degree it states; the modules must be finite, over A, at p = 2.
 * 0; -1 with a one-line reason in err (a refusal, an unreadable file included: exit 2); -2 out
 * of memory. products_map_clear frees it either way. */
int products_map_load(const char *path, const resolution *src, const fd_module *src_module, const resolution *tgt,
                      const fd_module *tgt_module, products_module_map *pm, char *err, size_t errlen);
void products_map_clear(products_module_map *pm);
/* Adds the chain map lifting pm (kept by the caller while the set lives); its index, or -1. */
int products_add_module_map(lift_set *set, products_module_map *pm);

/* The vector of x·y for map m (class x) and the target class y (n, s, coords ycoords[0..ny)),
 * into prod[0..dim) (dim = generators at the product's bidegree; coefficients mod the set's
 * prime); requires the steps of the target bidegree (s, n + s) to have run. */
void products_multiply(const lift_set *set, int m, int n, int s, const uint8_t *ycoords, uint32_t ny,
                       uint8_t *prod, uint32_t dim);

#endif
