/* bruner.c — Bruner's Diff.s files (see bruner.h). */
#include "stages/out/bruner.h"
#include "stages/resolve/report.h"

/* The degrees row s has complete: 0 .. its last stem + s. */
static deg_t row_top(const resolution *res, int s) { return (deg_t)report_row_last_stem(res, s) + s; }

int bruner_write_diff(FILE *f, const resolution *res, int s)
{
    deg_t top = row_top(res, s);
    uint64_t ngens = 0;
    for (deg_t t = 0; t <= top; t++) ngens += res_is_done(res, s, t) ? res_ngens(res, s, t) : 0;
    fprintf(f, "s=%d  n=%llu\n\n", s, (unsigned long long)ngens);
    uint64_t g = 0;
    for (deg_t t = 0; t <= top; t++) {
        if (!res_is_done(res, s, t)) continue;
        for (uint32_t i = 0; i < res_ngens(res, s, t); i++, g++) {
            fprintf(f, "%llu : %d\n\n", (unsigned long long)g, (int)t);
            if (s == 0) {
                fprintf(f, "1\n0 0 1 i(0).\n\n\n\n");
                continue;
            }
            /* one line per generator h of row s - 1 below t whose coefficient is not zero */
            const fm_gen *z = &res->F[s].gens[t][i];
            const freemod *G = &res->F[s - 1];
            uint32_t lines = 0, h = 0;
            for (int pass = 0; pass < 2; pass++, h = 0) {
                if (pass) fprintf(f, "%u\n", lines);
                for (deg_t u = 0; u < t; u++)
                    for (uint32_t k = 0; k < G->ngens[u]; k++, h++) {
                        uint64_t off = freemod_offset(G, t, u, k);
                        uint32_t dim = res->A.dim[t - u], any = 0;
                        for (uint32_t r = 0; r < dim; r++) {
                            if (off + r >= z->bits || !f2vec_get(z->img, off + r)) continue;
                            if (pass && !any) fprintf(f, "%u %d %u i", h, (int)(t - u), dim);
                            any = 1;
                            if (!pass) break;
                            const milnor_elt *R = &res->A.elts[t - u][r];
                            fputc('(', f);
                            for (uint32_t j = 0; j < R->len; j++) fprintf(f, j ? ",%u" : "%u", R->r[j]);
                            fputc(')', f);
                        }
                        if (!any) continue;
                        if (pass) fprintf(f, ".\n");
                        else lines++;
                    }
            }
            fprintf(f, "\n\n");
        }
    }
    return ferror(f) ? -1 : 0;
}
