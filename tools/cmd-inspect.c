/* extflow inspect FILE [--summary]: a stage file or the journal of empty bidegrees, told apart
 * by their first bytes (stages/store/stagefile.h). */
#include "stages/store/stagefile.h"
#include "tools/cli.h"

enum { SUMMARY, NOPTS };
static cli_option opts[NOPTS + 1] = {
    [SUMMARY] = { "summary", NULL, "a matrix's shape, rank and density; a journal's counts", NULL, NULL },
};

static int run(const char **operands, int n)
{
    if (n != 1) return cli_usage_error("inspect: FILE is required");
    const char *file = operands[0];
    char err[600];
    int journal = 0, summary = opts[SUMMARY].arg != NULL;
    int rc = stage_sniff(file, &journal, err, sizeof err);
    if (rc == STAGE_OK)
        rc = journal ? stage_journal_print(stdout, file, summary, err, sizeof err)
                     : stage_print(stdout, file, summary, err, sizeof err);
    if (rc != STAGE_OK) {
        fprintf(stderr, "extflow: %s\n", err);
        return 1;
    }
    return 0;
}

const cli_command cmd_inspect = {
    "inspect",
    "FILE: print a stage file's header and matrix, or the records of a journal of empty bidegrees "
    "(DIR/stages/empty.log); the kind of file is read from its first bytes, not from its name",
    opts, 1, CLI_LOCAL, run,
};
