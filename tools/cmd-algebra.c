/* extflow algebra: the dimensions of A_p by degree (--max-degree N), or the Steenrod calculator
 * (--eval EXPR: a product or sum in A_p written in the Milnor or the admissible basis;
 * algebra/stexpr.h has the grammar, algebra/admissible.h the change of basis). */
#include <stdlib.h>
#include <string.h>
#include "algebra/admissible.h"
#include "algebra/milnor.h"
#include "algebra/milnor_p.h"
#include "algebra/stexpr.h"
#include "tools/cli.h"

enum { MAX_DEGREE, EVAL, BASIS, PRIME, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [MAX_DEGREE] = { "max-degree", "N", "print degree,dim for degrees 0 to N (the basis's dims: --basis adem counts the admissible monomials)", NULL, NULL },
    [EVAL] = { "eval", "EXPR",
               "evaluate EXPR, sums (+, -) of products (*, or side by side) of integers (mod p), parentheses and "
               "generators: Sq(r1,r2,...) (Milnor), Sq^a or Sq4 at p = 2; P(r1,...), P^s or P3, Q_i, b (the Bockstein) "
               "at odd p; Q_i at p = 2 is Sq(0,...,0,1). Prints one line: the terms by degree, in the basis's order "
               "(docs/algorithms.md §12), e.g. --eval 'Sq(1,2)*Sq(4)' or --eval 'P^1 P^1' --prime 3 --basis adem. "
               "Degrees go to 160 at p = 2, 400 at p = 3, 1000 at larger p", NULL, NULL },
    [BASIS] = { "basis", "milnor|adem", "the basis to write in (default milnor): the Milnor basis, or the admissible "
                "monomials Sq^a Sq^b ... (a >= 2b) at p = 2, b P^s b P^t ... at odd p", NULL, NULL },
    [PRIME] = { "prime", "P", "the prime: 2 (default) or an odd prime up to 127", NULL, NULL },
};

/* Degree limits of --eval: the top degree's Milnor basis, and its admissible table when asked
 * for, stay within a few seconds and a few hundred MB (docs/algorithms.md §12.4). */
static deg_t eval_limit(uint32_t p) { return p == 2 ? 160 : p == 3 ? 400 : 1000; }

static int print_dims(uint32_t p, long maxd, int adem)
{
    if (maxd > (p == 2 ? MILNOR_MAX_DEGREE : MILNOR_P_MAX_DEGREE))
        return cli_usage_error("algebra: --max-degree at p = %u goes to %d", p, p == 2 ? MILNOR_MAX_DEGREE : MILNOR_P_MAX_DEGREE);
    /* the dims by counting recurrences: no element table (degree 1000 alone would need ~300 GiB
     * of elements at p = 2), so every accepted degree completes at once */
    uint32_t *dim = malloc(((size_t)maxd + 1) * sizeof *dim);
    uint64_t *dim64 = malloc(((size_t)maxd + 1) * sizeof *dim64);
    int rc = !dim || !dim64;
    if (!rc) {
        if (adem) rc = adm_count_dims(p, (deg_t)maxd, dim64);
        else if (p == 2) rc = milnor_count_dims((deg_t)maxd, NULL, dim);
        else rc = milnor_p_count_dims(p, (deg_t)maxd, dim);
    }
    if (rc) {
        free(dim), free(dim64);
        fprintf(stderr, "extflow: out of memory\n");
        return 1;
    }
    printf("degree,dim\n");
    for (deg_t d = 0; d <= maxd; d++) printf("%d,%llu\n", d, adem ? (unsigned long long)dim64[d] : (unsigned long long)dim[d]);
    free(dim), free(dim64);
    return 0;
}

static int eval(uint32_t p, const char *text, int adem)
{
    stexpr_error err;
    deg_t top = 0;
    int rc = stexpr_check(text, p, eval_limit(p), &top, &err);
    if (rc == STEXPR_BAD) {
        /* one line whatever the input holds: the column and what is wrong */
        return cli_usage_error("algebra: --eval: column %zu: %s", err.pos + 1, err.msg);
    }
    adm_alg A;
    stexpr_val v = { 0, NULL };
    char *out = NULL;
    if (rc != 0 || adm_alg_init(&A, p, top) != 0) {
        fprintf(stderr, "extflow: algebra: --eval: out of memory\n");
        return 1;
    }
    rc = stexpr_eval(text, &A, &v, &err);
    if (rc == 0) out = stexpr_format(&A, &v, adem ? STEXPR_ADMISSIBLE : STEXPR_MILNOR);
    if (rc == STEXPR_BAD) rc = cli_usage_error("algebra: --eval: column %zu: %s", err.pos + 1, err.msg);
    else if (!out) {
        fprintf(stderr, "extflow: algebra: --eval: out of memory\n");
        rc = 1;
    } else {
        printf("%s\n", out);
        rc = 0;
    }
    free(out);
    stexpr_val_clear(&v);
    adm_alg_clear(&A);
    return rc;
}

static int run(const char **operands, int n)
{
    (void)operands, (void)n;
    long maxd = -1, prime = 2;
    int rc = cli_opt_count(&opts[MAX_DEGREE], MILNOR_P_MAX_DEGREE, &maxd);
    if (rc) return rc;
    if ((rc = cli_opt_count(&opts[PRIME], 1000, &prime))) return rc;
    if (!adm_prime_ok((uint32_t)prime)) return cli_usage_error("algebra: --prime wants 2 or an odd prime up to 127, not %ld", prime);
    const char *basis = opts[BASIS].arg;
    int adem = 0;
    if (basis) {
        if (!strcmp(basis, "adem")) adem = 1;
        else if (strcmp(basis, "milnor")) return cli_usage_error("algebra: --basis wants milnor or adem, not '%s'", basis);
    }
    if (maxd >= 0 && opts[EVAL].arg) return cli_usage_error("algebra: --max-degree and --eval go separately");
    if (opts[EVAL].arg) return eval((uint32_t)prime, opts[EVAL].arg, adem);
    if (maxd < 0) return cli_usage_error("algebra: --max-degree N or --eval EXPR is required");
    return print_dims((uint32_t)prime, maxd, adem);
}

const cli_command cmd_algebra = {
    "algebra",
    "print degree,dim of the Steenrod algebra A_p as CSV, degrees 0 to N; or evaluate an expression in A_p and "
    "print it in the Milnor or the admissible basis",
    opts, 0, CLI_LOCAL, run,
};
