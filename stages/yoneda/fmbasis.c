/* fmbasis.c — basis elements of a resolution's free modules (see fmbasis.h). */
#include "stages/yoneda/fmbasis.h"
#include "algebra/f2mat.h"

/* Walks the generators of degree <= T in order, each with its Milnor block. */
int fmb_locate(const freemod *F, deg_t T, uint64_t bit, deg_t *u, uint32_t *g, uint32_t *r)
{
    uint64_t off = 0;
    for (deg_t v = 0; v <= T && v <= F->max_t; v++) {
        uint64_t n = F->ngens[v];
        if (!n) continue;   /* (the algebra's table may stop short of T - v there) */
        uint64_t block = F->dim[T - v];
        if (bit < off + n * block) {
            *u = v;
            *g = (uint32_t)((bit - off) / block);
            *r = (uint32_t)((bit - off) % block);
            return 0;
        }
        off += n * block;
    }
    return -1;
}

void fmb_act(const resolution *res, int k, deg_t T, uint64_t p, const milnor_elt *R, uint64_t *out)
{
    const freemod *F = &res->F[k];
    deg_t u;
    uint32_t g, r;
    if (fmb_locate(F, T, p, &u, &g, &r) != 0) return;
    milnor_mul_into(&res->A, R, &res->A.elts[T - u][r], out, freemod_offset(F, T + R->degree, u, g));
}

void fmb_d(const resolution *res, int k, deg_t T, uint64_t p, uint64_t *out)
{
    const freemod *F = &res->F[k], *G = &res->F[k - 1];
    deg_t u;
    uint32_t g, r;
    if (fmb_locate(F, T, p, &u, &g, &r) != 0) return;
    const milnor_elt *Q = &res->A.elts[T - u][r];
    const fm_gen *gen = &F->gens[u][g];
    /* d(g)'s bits run over G's generators w in order, each with its block in degree u; their
     * products land in the same generators' blocks in degree T: both offsets walk along */
    uint64_t src = 0, dst = freemod_dim(G, T, freemod_first(G, u));
    for (deg_t w = freemod_first(G, u); w < u && src < gen->bits; w++) {
        uint32_t bu = G->dim[u - w], bt = G->dim[T - w];
        for (uint32_t h = 0; h < G->ngens[w]; h++, src += bu, dst += bt)
            for (uint32_t q = 0; q < bu && src + q < gen->bits; q++)
                if (f2vec_get(gen->img, src + q)) milnor_mul_into(&res->A, Q, &res->A.elts[u - w][q], out, dst);
    }
}

uint32_t fmb_dim(const resolution *res, int k, deg_t T)
{
    return T < 0 || T > res->max_t ? 0 : (uint32_t)freemod_dim(&res->F[k], T, T + 1);
}
