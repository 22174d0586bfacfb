/* freemod.h — free A-modules F_s of a resolution and their differentials' images.
 *
 * Maths. F_s is free on generators g added degree by degree; its basis in degree t is the
 * concatenation, over generators in order of addition (increasing degree, then index), of
 * the block {Sq(R)·g : R in the Milnor basis of degree t - |g|} (docs/algorithms.md §4.1).
 * The differential d_s is A-linear, so it is stored as the image d(g) of each generator: a
 * vector of F_{s-1} in degree |g|, over the generators of F_{s-1} of degree < |g| (a minimal
 * resolution never hits a generator of the same degree with the unit), so its length is
 * freemod_dim(F_{s-1}, |g|, |g|). For F_0, d(g) is a vector of the module M in degree |g|.
 *
 * At an odd prime p (stages/resolve/standard_p.h) the blocks are those of the basis of A_p (or of its
 * sub-Hopf-algebra B), whose dims freemod_use_dims installs, and an image holds `bits` entries
 * of one byte each (0..p-1) in the same order instead of bits: fm_gen's img_p, where p = 2
 * reads img (one storage, the field's layout, algebra/f2mat.h and algebra/fpmat.h).
 *
 * Unstable (resolve --unstable, docs/unstable.md): with ex set, F_s is a sum of free unstable
 * modules, and the block of g in degree t holds only the Sq(R) of excess <= |g|, listed in the
 * excess order (algebra/excess.h: the prefix of length excess_block(ex, t - |g|, |g|)). Images
 * are vectors over those blocks; freemod_dim_wide gives the offsets the blocks would have over
 * the whole of A, where the batched multiply writes its products (stages/rowbuild.h).
 *
 * Concurrency. Generators of degree t are published once, by the step at (s, t); readers
 * only look at degrees whose step they depend on (the task DAG orders them). Nothing is
 * reallocated after publication.
 */
#ifndef EXTFLOW_FREEMOD_H
#define EXTFLOW_FREEMOD_H
#include <stdint.h>
#include "algebra/excess.h"
#include "algebra/f2mat.h"
#include "algebra/fpmat.h"
#include "algebra/milnor.h"

/* A generator's image d(g): `bits` entries over the resolution's field, stored as that
 * field's vectors are (the freemod's `bytewise` says which member is live; whoever allocates
 * leaves a spare word past the entries). */
typedef struct fm_gen {
    uint32_t bits;          /* entries of d(g) */
    union {
        uint64_t *img;      /* p = 2: packed bits, ceil(bits/64) words (algebra/f2vec.h) */
        uint8_t *img_p;     /* odd p: a byte an entry, 0..p-1 (algebra/fpmat.h's rows) */
    };
} fm_gen;

typedef struct freemod {
    deg_t max_t;            /* degrees 0..max_t can hold generators */
    uint32_t *ngens;        /* ngens[t]: generators of degree t (0 until published) */
    fm_gen **gens;          /* gens[t][i] */
    const milnor_basis *A;
    const uint32_t *dim;    /* dim[d] of the algebra's basis in degree d (A->dim at p = 2) */
    deg_t top;              /* dim[d] = 0 for d > top (a profile's finite B), -1: no such bound */
    int bytewise;           /* odd p: images are byte vectors (memory account) */
    const milnor_excess *ex;    /* unstable: blocks truncated by excess (NULL: free over A) */
} freemod;

int freemod_init(freemod *F, const milnor_basis *A, deg_t max_t);
void freemod_clear(freemod *F);
/* Odd p, before any generator is published: the blocks are dim[d]-dimensional (dim kept by the
 * caller), images byte vectors. */
void freemod_use_dims(freemod *F, const uint32_t *dim);
/* Publishes n generators of degree t with the given images (ownership of img passes). */
void freemod_set_gens(freemod *F, deg_t t, uint32_t n, fm_gen *gens);
/* dim of F in degree t counting only generators of degree < below (those of degree < t - top
 * add nothing: the loop starts at t - top). */
uint64_t freemod_dim(const freemod *F, deg_t t, deg_t below);
/* The same over the whole algebra's blocks (dim[t - u] each), unstable or not. */
uint64_t freemod_dim_wide(const freemod *F, deg_t t, deg_t below);
/* Unstable: D's columns are F's basis in degree t over the whole algebra's blocks, generators
 * below `below` (freemod_dim_wide(F, t, below) of them, as the batched multiply writes them);
 * replaces D by its columns of excess <= their generator's degree, in the excess order of the
 * blocks (freemod_dim(F, t, below) columns): the products' terms of larger excess are zero in a
 * free unstable module. Nothing to do for a stable F. 0, or -1 out of memory (D unchanged). */
int freemod_narrow(const freemod *F, deg_t t, deg_t below, f2mat *D);
/* The same at an odd prime (D's entries bytes, fpmat.h). */
int freemod_narrow_p(const freemod *F, deg_t t, deg_t below, fpmat *D);
/* Unstable: kept[w] = 1 for the wide columns freemod_narrow keeps, 0 for the others
 * (freemod_dim_wide(F, t, below) bytes, malloc'ed). NULL for a stable F, or out of memory. */
uint8_t *freemod_kept(const freemod *F, deg_t t, deg_t below);
/* Length of the block of a generator of degree u in degree u + d. */
static inline uint32_t freemod_block(const freemod *F, deg_t d, deg_t u)
{ return F->ex ? excess_block(F->ex, d, u) : F->dim[d]; }
/* The lowest degree of a generator whose block in degree t may be non-empty: t - top, or 0. */
static inline deg_t freemod_first(const freemod *F, deg_t t)
{ return F->top >= 0 && t > F->top ? t - F->top : 0; }
/* Offset of generator (u, i) in the degree-t basis. */
static inline uint64_t freemod_offset(const freemod *F, deg_t t, deg_t u, uint32_t i)
{ return freemod_dim(F, t, u) + (uint64_t)i * freemod_block(F, t - u, u); }

#endif
