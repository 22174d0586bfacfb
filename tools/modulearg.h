/* modulearg.h — a module named on the command line (resolve's --module; ext's --coefficients):
 *
 *   NAME        a module file of the modules/ folder (C2, Joker, ko, ...), looked up beside the
 *               binary, then in the source tree's modules/ (EXTFLOW_MODULES_DIR)
 *   FILE        a module file by its path (JSON, docs/modules.md)
 *   NAME[k]     either of those moved up k degrees (Σ^k)
 *   D(X)        the dual of a finite module X given as one of those (algebra/modops.h)
 *   M*N*...     the tensor product of finite modules (each one of those), left to right
 *
 * The module is read, checked and prepared (a cofiber's presentation) into an fd_module the
 * caller clears; its short name (the file's base name without .json; a product's factors
 * joined by "_sm_", as sseq names C2_sm_Ceta; D_NAME for a dual) names the default output
 * directory. */
#ifndef EXTFLOW_MODULEARG_H
#define EXTFLOW_MODULEARG_H
#include <stddef.h>
#include "algebra/fdmodule.h"

/* arg read into *m and its short name into name: 0, or 2 after one line on stderr. */
int modulearg_load(const char *arg, fd_module *m, char *name, size_t nsize);

#endif
