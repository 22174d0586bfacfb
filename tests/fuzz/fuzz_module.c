/* libFuzzer harness: arbitrary bytes as a module file (`extflow resolve --module FILE`).
 * fdm_parse must accept or refuse with a reason, never crash; an accepted module's action
 * table must answer for every class. Seeds: the shipped modules (modules/). */
#include <stdio.h>
#include "algebra/fdmodule.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    fd_module m;
    char err[600];
    if (fdm_parse((const char *)data, size, &m, err, sizeof err) != 0) return 0;
    for (deg_t t = m.min_deg; t <= m.max_deg; t++)
        for (uint32_t i = 0; i < fdm_dim(&m, t); i++)
            if (!fdm_act(&m, t, i, 0, 0)) __builtin_trap();
    fdm_clear(&m);
    return 0;
}
