/* libFuzzer harness: arbitrary bytes as an `extflow algebra --eval` expression (algebra/stexpr.h).
 * The first byte picks the prime (2, 3 or 5), the rest is the text (cut at a NUL). The parser
 * must refuse it at a position inside it, or evaluate it; an evaluated value written in either
 * basis must read back as itself. Degrees stay below 40 so that each input is quick. */
#include <stdlib.h>
#include <string.h>
#include "algebra/stexpr.h"

#define LIMIT 40

static adm_alg algs[3];
static int built[3];

static char *eval_format(adm_alg *A, const char *text, enum stexpr_basis basis)
{
    stexpr_val v;
    stexpr_error err;
    if (stexpr_eval(text, A, &v, &err) != 0) return NULL;
    char *s = stexpr_format(A, &v, basis);
    stexpr_val_clear(&v);
    return s;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    static const uint32_t primes[3] = { 2, 3, 5 };
    if (size == 0 || size > 4096) return 0;
    int w = data[0] % 3;
    uint32_t p = primes[w];
    char *text = malloc(size);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = 0;
    stexpr_error err;
    deg_t top;
    int rc = stexpr_check(text, p, LIMIT, &top, &err);
    if (rc == STEXPR_BAD) {
        if (err.pos > strlen(text) || !err.msg[0]) abort();
    } else if (rc == 0) {
        if (top < 0 || top > LIMIT) abort();
        if (!built[w]) {
            if (adm_alg_init(&algs[w], p, LIMIT) != 0) abort();
            built[w] = 1;
        }
        char *m = eval_format(&algs[w], text, STEXPR_MILNOR);
        char *a = eval_format(&algs[w], text, STEXPR_ADMISSIBLE);
        if (!m || !a) abort();
        char *m2 = eval_format(&algs[w], m, STEXPR_MILNOR);   /* read back */
        char *m3 = eval_format(&algs[w], a, STEXPR_MILNOR);
        if (!m2 || !m3 || strcmp(m, m2) || strcmp(m, m3)) abort();
        free(m), free(a), free(m2), free(m3);
    } else {
        abort();                                          /* out of memory on a tiny input */
    }
    free(text);
    return 0;
}
