/* bruner.h — a resolution of the sphere in R. R. Bruner's file format: one text file Diff.s per
 * homological degree s, the format his programs (and sseq's save_bruner example) write and read
 * (schema/bruner-diff.md).
 *
 * Maths. Row s of a minimal resolution is free on generators g, each with d(g) = sum over the
 * generators h of row s - 1 of a_h h, a_h in A of degree |g| - |h|; a_h is written as a sum of
 * Milnor basis elements Sq(r_1, ..., r_k).
 *
 * Layout of Diff.s (every line ends in "\n"; "_" below is one space):
 *     s=S__n=N                       the row and its number of generators, then an empty line
 *     G_:_T                          generator G (0, 1, ... in the order of the row: by degree T,
 *                                    then index), then an empty line
 *     L                              how many h have a_h != 0
 *     H_D_M_i(r1,r2)(r1)...(...).    one line per such h, by H: its number in Diff.(s-1), the
 *                                    degree D = T - |h| of a_h, M = dim A_D, and a_h's Milnor
 *                                    elements in the Milnor basis's order, each "(r1,...,rk)"
 *     then two empty lines after the block.
 * Diff.0 has the one generator of degree 0 with the block "1", "0 0 1 i(0).". Generators are
 * those of DIR's complete region, row by row.
 */
#ifndef EXTFLOW_BRUNER_H
#define EXTFLOW_BRUNER_H
#include <stdio.h>
#include "stages/resolve/resolution.h"

/* Diff.s of res (S_2, p = 2) to f: 0, or -1 on a write error. */
int bruner_write_diff(FILE *f, const resolution *res, int s);

#endif
