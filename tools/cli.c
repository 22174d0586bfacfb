/* cli.c — options through getopt_long from a command's table, its help from the same table,
 * usage errors (tools/cli.h). */
#include "tools/cli.h"
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/rt_mpi.h"

#define HELP_WIDTH 80
#define CMD_COL 13      /* a command's description starts here */
#define OPT_COL 25      /* an option's help starts here */
#define OPT_VAL 256     /* getopt_long's val of option i is OPT_VAL + i */

int cli_usage_error(const char *fmt, ...)
{
    if (rt_mpi_rank() != 0) return 2;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "extflow: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\ntry 'extflow help'\n");
    return 2;
}

int cli_parse_count(const char *s, long max, long *out)
{
    if (!s || !*s) return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9') return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno || v > max) return -1;
    *out = v;
    return 0;
}

int cli_opt_count(const cli_option *o, long max, long *out)
{
    if (!o->arg || cli_parse_count(o->arg, max, out) == 0) return 0;
    return cli_usage_error("--%s wants an integer from 0 to %ld, not '%s'", o->name, max, o->arg);
}

/* The argv element an option came from, as its user wrote it up to any '='. */
static int element_len(const char *a)
{
    const char *eq = strchr(a, '=');
    return eq ? (int)(eq - a) : (int)strlen(a);
}

int cli_parse(const cli_command *c, int argc, char **argv, const char **operands, int *noperands)
{
    cli_option *o = c->options;
    int n = 0;
    while (o[n].name) n++;
    struct option *lo = calloc((size_t)n + 1, sizeof *lo);
    int *seen = calloc((size_t)n + 1, sizeof *seen), rc = -1;
    if (!lo || !seen) {
        free(lo);
        free(seen);
        fprintf(stderr, "extflow: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        lo[i] = (struct option){ o[i].name, o[i].metavar ? required_argument : no_argument, NULL, OPT_VAL + i };
        o[i].arg = NULL;
    }
    lo[n] = (struct option){ "help", no_argument, NULL, 'h' };
    /* "-": operands come back in order, as option 1; ":": a missing value is ':' */
    *noperands = 0;
    opterr = 0;
    optind = 1;
    for (int ch; rc < 0 && (ch = getopt_long(argc, argv, "-:h", lo, NULL)) != -1;) {
        if (ch == 1) {
            if (*noperands == c->max_operands) rc = cli_usage_error("%s: unexpected argument '%s'", c->name, optarg);
            else operands[(*noperands)++] = optarg;
            continue;
        }
        if (ch == 'h' && (!strcmp(argv[optind - 1], "-h") || !strcmp(argv[optind - 1], "--help"))) {
            cli_print_command_help(stdout, c);
            rc = 0;
            continue;
        }
        if (ch == 'h' || (ch == '?' && optopt < OPT_VAL)) {   /* unknown or ambiguous (never abbreviated) */
            const char *a = argv[optind - 1];
            if (ch == '?' && optopt && optopt != 'h') rc = cli_usage_error("%s: unknown option '-%c'", c->name, optopt);
            else rc = cli_usage_error("%s: unknown option '%.*s'", c->name, element_len(a), a);
            continue;
        }
        int i = (ch == ':' || ch == '?' ? optopt : ch) - OPT_VAL;
        if (ch == ':') {
            rc = cli_usage_error("%s: --%s needs a value", c->name, o[i].name);
            continue;
        }
        if (ch == '?') {
            rc = cli_usage_error("%s: --%s takes no value", c->name, o[i].name);
            continue;
        }
        /* getopt_long takes a unique prefix (--st for --stem): refused, as before getopt */
        const char *a = argv[optind - (o[i].metavar && optarg == argv[optind - 1] ? 2 : 1)];
        if (element_len(a) != 2 + (int)strlen(o[i].name)) {
            rc = cli_usage_error("%s: unknown option '%.*s'", c->name, element_len(a), a);
            continue;
        }
        if (seen[i]++ && !o[i].each) {
            rc = cli_usage_error("%s: --%s given twice", c->name, o[i].name);
            continue;
        }
        o[i].arg = o[i].metavar ? optarg : "";
        if (o[i].each) {
            int erc = o[i].each(optarg);
            if (erc) rc = erc;
        }
    }
    for (int i = optind; rc < 0 && i < argc; i++) {    /* after "--" */
        if (*noperands == c->max_operands) rc = cli_usage_error("%s: unexpected argument '%s'", c->name, argv[i]);
        else operands[(*noperands)++] = argv[i];
    }
    free(lo);
    free(seen);
    return rc;
}

/* Columns taken by text[0..len): UTF-8 continuation bytes take none. */
static int columns(const char *text, long len)
{
    int n = 0;
    for (long i = 0; i < len; i++) n += ((unsigned char)text[i] & 0xC0) != 0x80;
    return n;
}

void cli_wrap(FILE *out, int col, int indent, const char *text)
{
    const char *p = text;
    while (*p) {
        /* the longest run of whole words that fits from col, up to a '\n' */
        const char *end = p, *fit = NULL;
        while (*end && *end != '\n') {
            const char *w = end;
            while (*w == ' ') w++;
            while (*w && *w != ' ' && *w != '\n') w++;
            if (fit && col + columns(p, w - p) > HELP_WIDTH) break;
            fit = end = w;
        }
        fprintf(out, "%.*s\n", (int)(end - p), p);
        p = end;
        while (*p == ' ') p++;
        if (*p == '\n') p++;
        if (*p) fprintf(out, "%*s", col = indent, "");
    }
    if (!*text) fputc('\n', out);
}

void cli_print_command_help(FILE *out, const cli_command *c)
{
    fprintf(out, "usage: extflow %s [%soptions below]\n\n", c->name, c->max_operands ? "operands and " : "");
    cli_help(out, c);
    fputs("\n"
          "--opt VALUE and --opt=VALUE are the same; an option may be given once. 'extflow\n"
          "help' lists every command, the environment and the exit statuses (0 done, 1\n"
          "failure, 2 usage or refusal, 3 time limit, 4 DIR in use, 130/143 a signal).\n", out);
}

void cli_help(FILE *out, const cli_command *c)
{
    int col = fprintf(out, "  %-*s", CMD_COL - 3, c->name);
    col += fprintf(out, " ");
    cli_wrap(out, col, CMD_COL, c->help);
    for (const cli_option *o = c->options; o->name; o++) {
        char head[64];
        snprintf(head, sizeof head, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        int w = (int)strlen(head);
        col = fprintf(out, "      %-*s", OPT_COL - 7, head) + fprintf(out, w <= OPT_COL - 7 ? " " : "  ");
        cli_wrap(out, col, OPT_COL, o->help);
    }
}

int cli_run(const cli_command *c, int argc, char **argv)
{
    const char **operands = malloc(((size_t)c->max_operands + 1) * sizeof *operands);
    if (!operands) {
        fprintf(stderr, "extflow: out of memory\n");
        return CLI_FAILED;
    }
    int n, rc = cli_parse(c, argc, argv, operands, &n);
    if (rc < 0) rc = c->run(operands, n);
    free(operands);
    return rc;
}
