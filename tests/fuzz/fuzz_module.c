/* libFuzzer harness: arbitrary bytes as a module file (`extflow resolve --module FILE`).
 * fdm_parse must accept or refuse with a reason, never crash; an accepted module (a finitely
 * presented one truncated 12 degrees above its bottom, as a resolution would) must answer for
 * the unit on every class of a degree its action table covers (at odd p: fdm_act_p). Seeds:
 * the shipped modules (modules/: finite, with profiles, finitely presented, odd primes). */
#include <stdio.h>
#include "algebra/fdmodule.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    fd_module m;
    char err[600];
    if (fdm_parse((const char *)data, size, &m, err, sizeof err) != 0) return 0;
    if (fdm_truncate(&m, m.min_deg + 12, err, sizeof err) != 0) {
        fdm_clear(&m);
        return 0;
    }
    for (deg_t t = m.min_deg; t <= m.max_deg; t++)
        for (uint32_t i = 0; i < fdm_dim(&m, t); i++) {
            if (fdm_prime(&m) != 2) {           /* odd p: the unit's row of the table is e_i */
                const uint8_t *u = fdm_act_p(&m, t, i, 0, 0);
                if (!u || u[i] != 1) __builtin_trap();
            } else if (!fdm_act(&m, t, i, 0, 0) && (!m.fp || t == m.min_deg))
                __builtin_trap();
        }
    fdm_clear(&m);
    return 0;
}
