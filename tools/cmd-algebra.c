/* extflow algebra --max-degree N: the dimensions of the Milnor basis of A by degree. */
#include <stdlib.h>
#include "algebra/milnor.h"
#include "tools/cli.h"

enum { MAX_DEGREE, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [MAX_DEGREE] = { "max-degree", "N", "(required) the largest degree", NULL, NULL },
};

static int run(const char **operands, int n)
{
    (void)operands, (void)n;
    long maxd = -1;
    int rc = cli_opt_count(&opts[MAX_DEGREE], MILNOR_MAX_DEGREE, &maxd);
    if (rc) return rc;
    if (maxd < 0) return cli_usage_error("algebra: --max-degree N is required");
    /* the dims by the counting recurrence: no element table (degree 1000 alone would need
     * ~300 GiB of elements), so every accepted degree completes at once */
    uint32_t *dim = malloc(((size_t)maxd + 1) * sizeof *dim);
    if (!dim || milnor_count_dims((deg_t)maxd, NULL, dim) != 0) {
        free(dim);
        fprintf(stderr, "extflow: out of memory\n");
        return 1;
    }
    printf("degree,dim\n");
    for (deg_t d = 0; d <= maxd; d++) printf("%d,%u\n", d, dim[d]);
    free(dim);
    return 0;
}

const cli_command cmd_algebra = {
    "algebra", "print degree,dim of the Milnor basis of A as CSV, degrees 0 to N", opts, 0, CLI_LOCAL, run,
};
