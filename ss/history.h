/* history.h — a spectral sequence's history: one action per line, as JSON (docs/ss.md).
 *
 * Two spellings of the same actions are read. sseq's editor save files: a line is
 * {"recipients": [...], "sseq": "Main", "action": {NAME: {...}}}; extflow's own:
 * {"version": 1, "action": {NAME: {...}}}, which ss_history_write prints. The actions:
 *   Construct {algebra_name, module_name}       the module (checked against DIR's)
 *   Resolve {max_degree}                         the stem range the history was made over
 *   AddDifferential {r, b: {coords: [n, s]}, source: [..], target: [..]}
 *   AddPermanentClass {b, class}
 *   AddProductType {permanent, b, class, name}
 *   AddProductDifferential {source: {b, class, name, permanent}, target: {...}}
 * Vectors are coefficients over x_(n,s,0..k-1). Any other action, key or version is refused
 * by name. Nothing here knows the model: actions are plain data. */
#ifndef EXTFLOW_SS_HISTORY_H
#define EXTFLOW_SS_HISTORY_H
#include <stdint.h>
#include <stdio.h>

enum ss_action_type {
    SS_CONSTRUCT, SS_RESOLVE, SS_ADD_DIFFERENTIAL, SS_ADD_PERMANENT, SS_ADD_PRODUCT_TYPE, SS_ADD_PRODUCT_DIFFERENTIAL
};

#define SS_HISTORY_MAXDIM 256
typedef struct ss_class_arg {   /* a class of E2: its bidegree and vector, and a product type's name */
    int n, s, k;
    uint8_t v[SS_HISTORY_MAXDIM];
    char name[64];
    int permanent;
} ss_class_arg;

typedef struct ss_action {
    int type;                   /* enum ss_action_type */
    int line;                   /* its line in the file (1-based) */
    char module[64], algebra[32];
    int max_degree;
    int r;                      /* AddDifferential */
    ss_class_arg a, b;          /* the source (or the class) and the target */
} ss_action;

/* One line parsed into *a: 0, 1 for a blank line, -1 with err ("unknown action 'X'", ...). */
int ss_history_parse(const char *text, int line, ss_action *a, char *err, size_t errlen);
/* A whole file: *actions (malloc'd, *n of them), 0; -1 with err naming the line. */
int ss_history_read(const char *path, ss_action **actions, int *n, char *err, size_t errlen);
/* One action as a line of extflow's own spelling (version 1). 0, or -1 on a write error. */
int ss_history_write(FILE *f, const ss_action *a);
/* The action's name as the files spell it. */
const char *ss_action_name(int type);

#endif
