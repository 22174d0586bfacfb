/* libFuzzer harness: arbitrary bytes as a module file (`extflow resolve --module FILE`).
 * fdm_parse must accept or refuse with a reason, never crash; an accepted module (a finitely
 * presented one truncated 12 degrees above its bottom, as a resolution would) must answer for
 * the unit on every class of a degree its action table covers (at odd p: fdm_act_p); a small
 * finite module over A must have a dual whose dual is accepted again, and a tensor square that
 * is accepted (algebra/modops.h). Seeds: the shipped modules (modules/: finite, with profiles,
 * finitely presented, odd primes). */
#include <stdio.h>
#include "algebra/fdmodule.h"
#include "algebra/modops.h"

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
    if (modops_finite_over_A(&m) && m.max_deg - m.min_deg <= 16) {
        fd_module d, dd, sq;
        if (modops_dual(&m, &d, err, sizeof err) != 0) __builtin_trap();
        if (modops_dual(&d, &dd, err, sizeof err) != 0) __builtin_trap();
        fdm_clear(&d), fdm_clear(&dd);
        if (m.max_deg - m.min_deg <= 6 && modops_tensor(&m, &m, &sq, err, sizeof err) == 0) fdm_clear(&sq);
    }
    fdm_clear(&m);
    return 0;
}
