/* keepstages.h — `resolve --keep-stages matrix,kernel`: each step also saves the matrix it
 * reduces and that matrix's kernel, so a person can open them with `extflow inspect`, and
 * `extflow verify` recomputes them from the differentials and compares.
 *
 * What is saved at (s, t) (schema/stage-files.md, "Kinds"; docs/algorithms.md §8):
 *   standard step (and rows s = 0, 1 under Nassau): matrix = D, the matrix of d_s in degree
 *     t (rows: basis of F_{s,t} on generators of degree < t; columns: basis of F_{s-1,t} on
 *     generators of degree <= t-2); kernel = ker D in RREF.
 *   Nassau step (s >= 2): matrix = Z, the zero-signature block of d_{s-1} in degree t (rows:
 *     zero-signature basis elements of F_{s-1,t}, generators < t; columns: those of
 *     F_{s-2,t}, generators < t-1; both in basis order); kernel = ker Z in RREF.
 * Only steps this run computes save them; a stem-edge kernel job saves nothing.
 *
 * The steps never call this file: they hand each matrix to the core (res_keep_stage,
 * stages/resolve/resolution.h), which passes it to the hook installed here in res->keep. So this file
 * sits above the steps (verify's check runs one through stages/resolve/step.h) and nothing below
 * calls back into it.
 */
#ifndef EXTFLOW_KEEPSTAGES_H
#define EXTFLOW_KEEPSTAGES_H
#include "stages/resolve/resolution.h"

/* resolve: every step res computes also saves the kinds in kinds (1 << STAGE_MATRIX,
 * 1 << STAGE_KERNEL; 0: none) as stage files, queued to the committer. */
void keep_stages_save(resolution *res, unsigned kinds);
/* verify: recomputes the step at (s, t) from the loaded differentials and compares its kept
 * file of this kind, if there is one (res->keep_checked, keep_bad and keep_error count and
 * name disagreements); 0, or -1 when the step cannot run (keep_error says why). Keeps nothing
 * else: res keeps no kind afterwards. */
int keep_stages_check(resolution *res, int kind, int s, deg_t t);

#endif
