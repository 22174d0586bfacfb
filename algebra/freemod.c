/* freemod.c — free modules: generator tables and basis offsets (see freemod.h). */
#include "algebra/freemod.h"
#include "algebra/memacct.h"
#include <stdlib.h>
#include <string.h>

int freemod_init(freemod *F, const milnor_basis *A, deg_t max_t)
{
    F->max_t = max_t;
    F->A = A;
    F->dim = A->dim;
    F->top = milnor_profile_top_degree(&A->profile);
    F->bytewise = 0;
    F->ex = NULL;
    F->ngens = calloc((size_t)max_t + 1, sizeof *F->ngens);
    F->gens = calloc((size_t)max_t + 1, sizeof *F->gens);
    if (!F->ngens || !F->gens) {
        freemod_clear(F);
        return -1;
    }
    return 0;
}

/* Bytes of the n generators' images and their table (as allocated: words + one spare). */
static int64_t gens_bytes(const freemod *F, uint32_t n, const fm_gen *gens)
{
    int64_t b = (int64_t)(n ? n : 1) * (int64_t)sizeof *gens;
    for (uint32_t i = 0; i < n; i++)
        b += F->bytewise ? (int64_t)gens[i].bits + 8 : (int64_t)(((size_t)gens[i].bits + 63) / 64 + 1) * 8;
    return b;
}

void freemod_clear(freemod *F)
{
    if (F->gens)
        for (deg_t t = 0; t <= F->max_t; t++) {
            if (F->gens[t]) memacct_add(MEM_DIFFERENTIALS, -gens_bytes(F, F->ngens ? F->ngens[t] : 0, F->gens[t]));
            for (uint32_t i = 0; F->ngens && i < F->ngens[t]; i++)
                free(F->gens[t][i].img);
            free(F->gens[t]);
        }
    free(F->gens);
    free(F->ngens);
    F->gens = NULL;
    F->ngens = NULL;
}

void freemod_set_gens(freemod *F, deg_t t, uint32_t n, fm_gen *gens)
{
    memacct_add(MEM_DIFFERENTIALS, gens_bytes(F, n, gens));
    F->gens[t] = gens;
    F->ngens[t] = n;
}

void freemod_use_dims(freemod *F, const uint32_t *dim)
{
    F->dim = dim;
    F->top = -1;
    F->bytewise = 1;
}

/* The dimension below `below` in degree t, blocks over the whole algebra (wide) or as F has them. */
static uint64_t dim_below(const freemod *F, deg_t t, deg_t below, int wide)
{
    uint64_t dim = 0;
    if (below > t + 1) below = t + 1;
    if (below > F->max_t + 1) below = F->max_t + 1;
    for (deg_t u = freemod_first(F, t); u < below; u++)   /* A->dim[t - u] read only where there are generators */
        if (F->ngens[u]) dim += (uint64_t)F->ngens[u] * (wide ? F->dim[t - u] : freemod_block(F, t - u, u));
    return dim;
}

uint64_t freemod_dim(const freemod *F, deg_t t, deg_t below) { return dim_below(F, t, below, 0); }
uint64_t freemod_dim_wide(const freemod *F, deg_t t, deg_t below) { return dim_below(F, t, below, 1); }

/* to[w], w < wcols: the narrow column of wide column w of F's basis in degree t, generators below
 * `below`, UINT32_MAX for those dropped; *ncols the narrow count. NULL out of memory. */
static uint32_t *narrow_map(const freemod *F, deg_t t, deg_t below, uint32_t wcols)
{
    uint32_t *to = malloc(sizeof *to * ((size_t)wcols + 1)), nc = 0;
    if (!to) return NULL;
    memset(to, 0xff, sizeof *to * ((size_t)wcols + 1));   /* columns past the generators' blocks: dropped, never read unset */
    uint64_t wbase = 0;
    if (below > t + 1) below = t + 1;
    for (deg_t v = freemod_first(F, t); v < below && v <= F->max_t; v++)
        for (uint32_t k = 0; k < F->ngens[v]; k++) {
            uint32_t nb = freemod_block(F, t - v, v);
            for (uint32_t j = 0; j < F->dim[t - v] && wbase + j < wcols; j++) {
                uint32_t p = excess_rank(F->ex, t - v, j);
                to[wbase + j] = p < nb ? nc + p : UINT32_MAX;
            }
            nc += nb;
            wbase += F->dim[t - v];
        }
    return to;
}

int freemod_narrow(const freemod *F, deg_t t, deg_t below, f2mat *D)
{
    if (!F->ex) return 0;
    uint32_t ncols = (uint32_t)freemod_dim(F, t, below), wcols = D->cols;
    uint32_t *to = narrow_map(F, t, below, wcols);
    f2mat N = { 0 };
    if (!to || f2mat_init(&N, D->rows, ncols) != 0) {
        free(to);
        return -1;
    }
    /* by the set bits of each row: D is sparse, and most of its bits are kept */
    size_t words = f2vec_words(wcols);
    for (uint32_t r = 0; r < N.rows; r++) {
        const uint64_t *src = f2mat_row(D, r);
        uint64_t *dst = f2mat_row(&N, r);
        for (size_t w = 0; w < words; w++)
            for (uint64_t bits = src[w]; bits; bits &= bits - 1) {
                uint64_t c = w * 64 + (uint64_t)__builtin_ctzll(bits);
                uint32_t col = c < wcols ? to[c] : UINT32_MAX;
                if (col != UINT32_MAX) f2vec_flip(dst, col);
            }
    }
    free(to);
    f2mat_clear(D);
    *D = N;
    return 0;
}

int freemod_narrow_p(const freemod *F, deg_t t, deg_t below, fpmat *D)
{
    if (!F->ex) return 0;
    uint32_t ncols = (uint32_t)freemod_dim(F, t, below), wcols = D->cols;
    uint32_t *to = narrow_map(F, t, below, wcols), *from = malloc(sizeof *from * ((size_t)ncols + 1));
    fpmat N = { 0 };
    if (!to || !from || fpmat_init(&N, D->p, D->rows, ncols) != 0) {
        free(to);
        free(from);
        return -1;
    }
    /* a gather by the kept columns (from[k]: the wide column of narrow column k): a row costs
     * its narrow width, not its wide one (a byte an entry: no set bits to jump between) */
    for (uint32_t c = 0; c < wcols; c++)
        if (to[c] != UINT32_MAX) from[to[c]] = c;
    for (uint32_t r = 0; r < N.rows; r++) {
        const uint8_t *src = fpmat_row(D, r);
        uint8_t *dst = fpmat_row(&N, r);
        for (uint32_t k = 0; k < ncols; k++) dst[k] = src[from[k]];
    }
    free(to);
    free(from);
    fpmat_clear(D);
    *D = N;
    return 0;
}

uint8_t *freemod_kept(const freemod *F, deg_t t, deg_t below)
{
    if (!F->ex) return NULL;
    uint32_t wcols = (uint32_t)freemod_dim_wide(F, t, below);
    uint32_t *to = narrow_map(F, t, below, wcols);
    uint8_t *kept = to ? malloc((size_t)wcols + 1) : NULL;
    for (uint32_t c = 0; kept && c < wcols; c++) kept[c] = to[c] != UINT32_MAX;
    free(to);
    return kept;
}
