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
    deg_t u, w;
    uint32_t g, r, h, q;
    if (fmb_locate(F, T, p, &u, &g, &r) != 0) return;
    const milnor_elt *Q = &res->A.elts[T - u][r];
    const fm_gen *gen = &F->gens[u][g];
    for (uint32_t b = 0; b < gen->bits; b++)
        if (f2vec_get(gen->img, b) && fmb_locate(G, u, b, &w, &h, &q) == 0)
            milnor_mul_into(&res->A, Q, &res->A.elts[u - w][q], out, freemod_offset(G, T, w, h));
}

uint32_t fmb_dim(const resolution *res, int k, deg_t T)
{
    return T < 0 || T > res->max_t ? 0 : (uint32_t)freemod_dim(&res->F[k], T, T + 1);
}
