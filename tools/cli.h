/* cli.h — the command line's one mechanism: a command is a table of options (cli_option) and
 * a function (cli_command.run); cli_parse reads argv through getopt_long from that table, and
 * cli_help writes the command's part of `extflow help` from the same table, so that an option
 * that parses is an option the help (and the man page made from it) describes.
 *
 * Parsing: `--opt VALUE` and `--opt=VALUE` alike; each option at most once unless it has an
 * `each` callback (it may repeat: --class); names must be given in full (getopt_long's
 * abbreviations are refused, as unknown options); `--help` or `-h` prints the command's own
 * help (cli_print_command_help, exit 0); `--` ends the options. Operands and options may come in any order. Every error is
 * a usage error (cli_usage_error: two lines, exit 2), reported in the order of argv.
 *
 * Help layout (80 columns): "  NAME       DESCRIPTION" with the description wrapped at column
 * 13, then one line per option "      --NAME METAVAR     HELP" wrapped at column 25. A '\n' in
 * a text starts a new line at the same indent.
 *
 * Adding a command: a tools/cmd-NAME.c with its option table (an enum of indices, a cli_option
 * array ended by { NULL }), its run function and one `const cli_command cmd_NAME`, declared
 * below and listed in cli_commands (tools/help.c). Adding an option: one row in the table;
 * run reads `opts[INDEX].arg`. */
#ifndef EXTFLOW_CLI_H
#define EXTFLOW_CLI_H
#include <stdint.h>
#include <stdio.h>

typedef struct cli_option {
    const char *name;        /* without the leading "--"; NULL ends a table */
    const char *metavar;     /* the value's name in the help; NULL: a flag (no value) */
    const char *help;        /* what it does (wrapped by cli_help) */
    /* set for an option that may repeat: called with each value, in order; 0 to go on, else
     * the exit status (after cli_usage_error) */
    int (*each)(const char *value);
    const char *arg;         /* set by cli_parse: the value (the last one), or "" for a flag;
                              * NULL when the option was not given */
} cli_option;

/* The exit statuses, one table for every command (docs/reliability.md, "Exit status"; the
 * help's "exit status" section says the same). A command's run returns one of them. */
enum cli_exit {
    CLI_DONE = 0,       /* done */
    CLI_FAILED = 1,     /* runtime failure: one line naming what failed; finished work is kept */
    CLI_USAGE = 2,      /* usage error (two lines) or refusal (one line): nothing was written */
    CLI_STOPPED = 3,    /* stopped at --time-limit: rerun to resume */
    CLI_BUSY = 4,       /* DIR is held by another extflow run (DIR/.lock): nothing was done */
};

/* How a command runs under mpirun (tools/extflow.c starts MPI for it accordingly). */
enum cli_mpi { CLI_LOCAL, CLI_SHARED, CLI_ONE_PROCESS };

typedef struct cli_command {
    const char *name;
    const char *help;        /* operands and what the command does */
    cli_option *options;     /* the table: parsed into, read by run */
    int max_operands;        /* more is a usage error */
    enum cli_mpi mpi;
    /* the command itself, once its options are parsed: operands in argv order; returns the
     * exit status (enum cli_exit) */
    int (*run)(const char **operands, int noperands);
} cli_command;

/* The commands, one file each (tools/cmd-NAME.c), and their list (tools/help.c: the order of
 * the help), ended by NULL. */
extern const cli_command cmd_resolve, cmd_algebra, cmd_inspect, cmd_verify, cmd_export, cmd_products,
    cmd_ext, cmd_massey, cmd_d2, cmd_steenrod, cmd_sq0, cmd_yoneda, cmd_bruner, cmd_mahowald, cmd_pack, cmd_ss,
    cmd_serve;
extern const cli_command *const cli_commands[];

/* Parses argv[1..argc) (argv[0] is the command's name) into c->options and *operands (at most
 * c->max_operands of them). Returns -1 to go on, else the exit status: 0 after printing the
 * help, 2 after a usage error. */
int cli_parse(const cli_command *c, int argc, char **argv, const char **operands, int *noperands);

/* The command c over argv (argv[0] its name), parsed and run in this process: its exit status
 * (main's way, and how ss, serve and resolve further run products, resolve and d2 inside). */
int cli_run(const cli_command *c, int argc, char **argv);

/* The whole help text (`extflow help`, or --help after any command) on out. */
void cli_print_help(FILE *out);
/* One command's part of it. */
void cli_help(FILE *out, const cli_command *c);
/* `extflow CMD --help` and `extflow help CMD`: a usage line, that part, and a pointer to the
 * whole help (tools/help.c). */
void cli_print_command_help(FILE *out, const cli_command *c);
/* text wrapped at 80 columns: the first line after `first` (already printed, `col` columns
 * wide), the next ones indented by `indent`. */
void cli_wrap(FILE *out, int col, int indent, const char *text);

/* A usage error: "extflow: <message>" and "try 'extflow help'" on stderr (rank 0 only under
 * MPI: every rank sees the same error); returns 2. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Strict non-negative integer: digits only, <= max. 0, or -1. */
int cli_parse_count(const char *s, long max, long *out);
/* An option's value as a count (when given) into *out: 0, or 2 after a usage error. */
int cli_opt_count(const cli_option *o, long max, long *out);

/* The environment, checked before a command creates anything or starts StarPU (tools/env.c):
 * a bad value is a usage error. Then STARPU_SILENT=1 unless verbose or the user set it.
 * Returns 0, or 2 after a usage error. */
int cli_check_env(int verbose);

#endif
