/* extflow pack TEXT FILE: an inspect-style text matrix written as a stage file. */
#include <errno.h>
#include <string.h>
#include "stages/store/stagefile.h"
#include "tools/cli.h"

static cli_option opts[] = { { NULL, NULL, NULL, NULL, NULL } };

static int run(const char **pos, int n)
{
    if (n != 2) return cli_usage_error("pack: TEXT FILE expected");
    FILE *in = strcmp(pos[0], "-") ? fopen(pos[0], "r") : stdin;
    if (!in) {
        fprintf(stderr, "extflow: cannot open %s: %s\n", pos[0], strerror(errno));
        return 1;
    }
    stage_header h = { .kind = STAGE_MATRIX };
    f2mat m;
    char err[600];
    int rc = stage_parse_matrix_text(in, &h, &m, err, sizeof err);
    if (in != stdin) fclose(in);
    if (rc == STAGE_OK) {
        rc = stage_write(pos[1], &h, &m, err, sizeof err);
        f2mat_clear(&m);
    }
    if (rc != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    return 0;
}

const cli_command cmd_pack = {
    "pack", "TEXT FILE: write the matrix of an inspect-style text file as a stage file", opts, 2, CLI_LOCAL, run,
};
