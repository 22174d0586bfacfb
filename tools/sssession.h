/* sssession.h — the spectral sequence over a finished resolution, as `ss` and `serve` share
 * it (docs/ss.md): DIR opened and locked, its product types lifted by the products command
 * (their rows in DIR/products.csv), the model (ss/model.h) built from DIR's E2, d2.csv and
 * products.csv, and a history replayed into it action by action. An action that contradicts
 * the others is refused and leaves the session as it was. Each function prints nothing but
 * the products command's own lines; errors come back in err, one line, with the exit status
 * (enum cli_exit). */
#ifndef EXTFLOW_SSSESSION_H
#define EXTFLOW_SSSESSION_H
#include "ss/history.h"
#include "ss/model.h"
#include "tools/resolved.h"

typedef struct ss_type_arg {    /* a product type to lift: its name in products.csv, class and flags */
    char csv_name[64];
    ss_class_arg c;
    int line, bare;
} ss_type_arg;

typedef struct ss_session_opts {
    const char *products;       /* --products: the default product types ("h0,h1,h2"; "none"); NULL: default */
    const char *memory, *time_limit;    /* passed to the products command */
    int quiet, deduce;
    const char *file;           /* the history's name in messages */
} ss_session_opts;

typedef struct ss_session {
    const char *dir;
    ss_session_opts o;
    opened_dir d;               /* open (DIR locked) between calls */
    int unit;                   /* DIR's module is its own unit: product types allowed */
    ss_model m;
    int have_model, nbase;      /* facts before the history's (d2.csv) */
    ss_action *actions;         /* the history so far (owned) */
    int nactions, capactions;
    ss_type_arg types[RESOLVED_MAX_CLASSES];
    int ntypes, lifted;         /* types[0..lifted) are lifted and in the model */
} ss_session;

/* DIR opened, its product types (defaults and the actions') lifted, the actions replayed. On
 * a contradiction, err names the first line that causes it and both facts. 0, or the exit
 * status (the session is closed then). */
int ss_session_open(ss_session *S, const char *dir, const ss_action *actions, int n, const ss_session_opts *o,
                    char *err, size_t errlen);
/* One more action (a new product type is lifted first: DIR is given back and taken again
 * meanwhile). 0 when it was consistent and is kept; 2 (err: why) when refused, the session as
 * it was; 1 on a runtime failure. */
int ss_session_add(ss_session *S, const ss_action *a, char *err, size_t errlen);
/* The last action dropped and the pages recomputed (undo): 0, or 1 with err. */
int ss_session_drop_last(ss_session *S, char *err, size_t errlen);
/* DIR given back (to resolve it further in this process); nothing else may be called but
 * ss_session_reopen and ss_session_close. */
void ss_session_suspend(ss_session *S);
/* DIR taken again after ss_session_suspend (its region may have grown): the product types
 * lifted over it, the model rebuilt, the history replayed. 0, or the exit status with err (the
 * session is then closed: S->dir NULL). */
int ss_session_reopen(ss_session *S, char *err, size_t errlen);
/* DIR/ss/'s tables and DIR/chart.html written from the session: 0, or 1 with err. */
int ss_session_write(ss_session *S, char *err, size_t errlen);
/* The facts' counts for a closing line: given, propagated, computed, permanent, E∞ settled
 * and bidegrees with classes. */
void ss_session_counts(const ss_session *S, int counts[6]);
void ss_session_close(ss_session *S);

#endif
