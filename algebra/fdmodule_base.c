/* fdmodule_base.c — what the readers of module files share (see fdmodule_base.h). */
#include "algebra/fdmodule_base.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fdm_errorf(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
    return -1;
}

int fdm_append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 256) + n;
        char *nb = realloc(*buf, nc);
        if (!nb) return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

int fdm_degree_acts(const fd_module *m, deg_t d)
{
    for (deg_t u = m->min_deg; u + d <= m->max_deg; u++)
        if (fdm_dim(m, u) && fdm_dim(m, u + d)) return 1;
    return 0;
}
