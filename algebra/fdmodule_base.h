/* fdmodule_base.h — what the readers of module files share (fdmodule.c, fdmodule_p.c,
 * fpmodule.c, modops.c), below all of them so that they call one another one way only:
 * the loaders' error line, a growing string (a module's canonical text), and which degrees of
 * A act on a finite module m (fd_module, fdmodule.h: classes in degrees min_deg .. max_deg).
 */
#ifndef EXTFLOW_FDMODULE_BASE_H
#define EXTFLOW_FDMODULE_BASE_H
#include <stddef.h>
#include "algebra/fdmodule.h"

/* Formats into err (size bytes) and returns -1. */
int fdm_errorf(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends s to the string buf (len characters, cap bytes), grown as needed: 0, or -1 out of
 * memory (buf unchanged). */
int fdm_append(char **buf, size_t *len, size_t *cap, const char *s);
/* Does some element of degree d act between two non-zero degrees of m? */
int fdm_degree_acts(const fd_module *m, deg_t d);

#endif
