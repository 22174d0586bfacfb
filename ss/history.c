/* history.c — reading and writing a spectral sequence's history (ss/history.h). */
#include "ss/history.h"
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_names[] = {
    "Construct", "Resolve", "AddDifferential", "AddPermanentClass", "AddProductType", "AddProductDifferential",
};

const char *ss_action_name(int type) { return action_names[type]; }

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* Every key of o among the allowed ones (NULL-ended). */
static int keys_known(json_t *o, const char *const *allowed, const char *what, char *err, size_t errlen)
{
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        int ok = 0;
        for (const char *const *k = allowed; *k && !ok; k++) ok = !strcmp(*k, key);
        if (!ok) FAIL("%s: unknown key '%.40s'", what, key);
    }
    return 0;
}

static int get_int(json_t *o, const char *key, int lo, int hi, int *out, const char *what, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    if (!v) FAIL("%s: '%s' is missing", what, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        FAIL("%s: '%s' must be an integer from %d to %d", what, key, lo, hi);
    *out = (int)json_integer_value(v);
    return 0;
}

/* {"coords": [n, s]} */
static int get_bidegree(json_t *o, const char *key, ss_class_arg *c, const char *what, char *err, size_t errlen)
{
    json_t *b = json_object_get(o, key), *xy;
    static const char *const allowed[] = { "coords", NULL };
    if (!json_is_object(b)) FAIL("%s: '%s' must be an object {\"coords\": [n, s]}", what, key);
    if (keys_known(b, allowed, what, err, errlen)) return -1;
    xy = json_object_get(b, "coords");
    if (!json_is_array(xy) || json_array_size(xy) != 2 || !json_is_integer(json_array_get(xy, 0)) ||
        !json_is_integer(json_array_get(xy, 1)))
        FAIL("%s: '%s' must hold \"coords\": [n, s], two integers", what, key);
    json_int_t n = json_integer_value(json_array_get(xy, 0)), s = json_integer_value(json_array_get(xy, 1));
    if (n < -100000 || n > 100000 || s < 0 || s > 100000) FAIL("%s: bidegree (%lld, %lld) out of range", what,
                                                              (long long)n, (long long)s);
    c->n = (int)n;
    c->s = (int)s;
    return 0;
}

static int get_vector(json_t *o, const char *key, uint8_t *v, int *k, const char *what, char *err, size_t errlen)
{
    json_t *a = json_object_get(o, key);
    if (!json_is_array(a)) FAIL("%s: '%s' must be an array of coefficients", what, key);
    if (json_array_size(a) > SS_HISTORY_MAXDIM) FAIL("%s: '%s' has more than %d coefficients", what, key,
                                                     SS_HISTORY_MAXDIM);
    *k = (int)json_array_size(a);
    for (int i = 0; i < *k; i++) {
        json_t *c = json_array_get(a, (size_t)i);
        if (!json_is_integer(c) || json_integer_value(c) < 0 || json_integer_value(c) > 255)
            FAIL("%s: '%s'[%d] must be a coefficient 0..p-1", what, key, i);
        v[i] = (uint8_t)json_integer_value(c);
    }
    return 0;
}

static int get_string(json_t *o, const char *key, char *out, size_t size, const char *what, char *err, size_t errlen)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v)) FAIL("%s: '%s' must be a string", what, key);
    if (strlen(json_string_value(v)) >= size || !*json_string_value(v))
        FAIL("%s: '%s' must have 1 to %zu characters", what, key, size - 1);
    strcpy(out, json_string_value(v));
    return 0;
}

/* {permanent, b, class, name}: a product type (name required when named). */
static int get_named(json_t *o, ss_class_arg *c, const char *what, char *err, size_t errlen)
{
    static const char *const allowed[] = { "permanent", "b", "class", "name", NULL };
    if (!json_is_object(o)) FAIL("%s: a class must be an object", what);
    if (keys_known(o, allowed, what, err, errlen) || get_bidegree(o, "b", c, what, err, errlen) ||
        get_vector(o, "class", c->v, &c->k, what, err, errlen) ||
        get_string(o, "name", c->name, sizeof c->name, what, err, errlen))
        return -1;
    json_t *p = json_object_get(o, "permanent");
    if (p && !json_is_boolean(p)) FAIL("%s: 'permanent' must be true or false", what);
    c->permanent = p && json_is_true(p);
    return 0;
}

static int parse_action(json_t *act, ss_action *a, char *err, size_t errlen)
{
    if (!json_is_object(act) || json_object_size(act) != 1) FAIL("'action' must be an object with one action");
    const char *name = json_object_iter_key(json_object_iter(act));
    json_t *body = json_object_iter_value(json_object_iter(act));
    int type = -1;
    for (int t = 0; t < (int)(sizeof action_names / sizeof *action_names); t++)
        if (!strcmp(name, action_names[t])) type = t;
    if (type < 0) FAIL("unknown action '%.60s' (known: Construct, Resolve, AddDifferential, AddPermanentClass, "
                       "AddProductType, AddProductDifferential)", name);
    if (!json_is_object(body)) FAIL("%s: its value must be an object", name);
    a->type = type;
    switch (type) {
    case SS_CONSTRUCT: {
        static const char *const allowed[] = { "algebra_name", "module_name", NULL };
        return keys_known(body, allowed, name, err, errlen) ||
               get_string(body, "algebra_name", a->algebra, sizeof a->algebra, name, err, errlen) ||
               get_string(body, "module_name", a->module, sizeof a->module, name, err, errlen) ? -1 : 0;
    }
    case SS_RESOLVE: {
        static const char *const allowed[] = { "max_degree", NULL };
        return keys_known(body, allowed, name, err, errlen) ||
               get_int(body, "max_degree", 0, 100000, &a->max_degree, name, err, errlen) ? -1 : 0;
    }
    case SS_ADD_DIFFERENTIAL: {
        static const char *const allowed[] = { "r", "b", "source", "target", NULL };
        if (keys_known(body, allowed, name, err, errlen) || get_int(body, "r", 2, 100000, &a->r, name, err, errlen) ||
            get_bidegree(body, "b", &a->a, name, err, errlen) ||
            get_vector(body, "source", a->a.v, &a->a.k, name, err, errlen) ||
            get_vector(body, "target", a->b.v, &a->b.k, name, err, errlen))
            return -1;
        a->b.n = a->a.n - 1;
        a->b.s = a->a.s + a->r;
        return 0;
    }
    case SS_ADD_PERMANENT: {
        static const char *const allowed[] = { "b", "class", NULL };
        return keys_known(body, allowed, name, err, errlen) || get_bidegree(body, "b", &a->a, name, err, errlen) ||
               get_vector(body, "class", a->a.v, &a->a.k, name, err, errlen) ? -1 : 0;
    }
    case SS_ADD_PRODUCT_TYPE:
        return get_named(body, &a->a, name, err, errlen);
    default: {
        static const char *const allowed[] = { "source", "target", NULL };
        if (keys_known(body, allowed, name, err, errlen) ||
            get_named(json_object_get(body, "source"), &a->a, "AddProductDifferential's source", err, errlen) ||
            get_named(json_object_get(body, "target"), &a->b, "AddProductDifferential's target", err, errlen))
            return -1;
        if (a->b.n != a->a.n - 1 || a->b.s < a->a.s + 2)
            FAIL("AddProductDifferential: from (%d,%d) to (%d,%d) is no d_r (it must go to (n - 1, s + r), r >= 2)",
                 a->a.n, a->a.s, a->b.n, a->b.s);
        a->r = a->b.s - a->a.s;
        return 0;
    }
    }
}

int ss_history_parse(const char *text, int line, ss_action *a, char *err, size_t errlen)
{
    memset(a, 0, sizeof *a);
    a->line = line;
    const char *c = text;
    while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') c++;
    if (!*c) return 1;
    json_error_t je;
    json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!o) FAIL("not JSON: %.80s (column %d)", je.text, je.column);
    int rc = -1;
    static const char *const allowed[] = { "recipients", "sseq", "action", "version", NULL };
    json_t *version = json_object_get(o, "version"), *sseq = json_object_get(o, "sseq");
    if (!json_is_object(o)) snprintf(err, errlen, "a line must be a JSON object");
    else if (keys_known(o, allowed, "the line", err, errlen)) ;
    else if (version && (!json_is_integer(version) || json_integer_value(version) != 1))
        snprintf(err, errlen, "version %.20s: this extflow reads version 1", json_is_integer(version) ? "!= 1" : "not an integer");
    else if (sseq && (!json_is_string(sseq) || strcmp(json_string_value(sseq), "Main")))
        snprintf(err, errlen, "'sseq' must be \"Main\" (the unit's spectral sequence is not modelled)");
    else if (!json_object_get(o, "action")) snprintf(err, errlen, "'action' is missing");
    else rc = parse_action(json_object_get(o, "action"), a, err, errlen);
    json_decref(o);
    return rc;
}

int ss_history_read(const char *path, ss_action **actions, int *n, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    *actions = NULL;
    *n = 0;
    if (!f) FAIL("%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    int line = 0, capa = 0, rc = 0;
    char why[400];
    while (getline(&buf, &cap, f) >= 0) {
        line++;
        if (strlen(buf) > 1u << 20) {
            snprintf(err, errlen, "%s line %d: longer than 1 MiB", path, line);
            rc = -1;
            break;
        }
        ss_action a;
        int prc = ss_history_parse(buf, line, &a, why, sizeof why);
        if (prc == 1) continue;
        if (prc < 0) {
            snprintf(err, errlen, "%s line %d: %s", path, line, why);
            rc = -1;
            break;
        }
        if (*n == capa) {
            capa = capa ? 2 * capa : 64;
            ss_action *na = realloc(*actions, sizeof *na * (size_t)capa);
            if (!na) {
                snprintf(err, errlen, "out of memory reading %s", path);
                rc = -1;
                break;
            }
            *actions = na;
        }
        (*actions)[(*n)++] = a;
    }
    if (!rc && ferror(f)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    free(buf);
    fclose(f);
    if (rc) {
        free(*actions);
        *actions = NULL;
        *n = 0;
    }
    return rc;
}

static void put_vector(FILE *f, const uint8_t *v, int k)
{
    fputc('[', f);
    for (int i = 0; i < k; i++) fprintf(f, "%s%d", i ? "," : "", v[i]);
    fputc(']', f);
}

static void put_named(FILE *f, const ss_class_arg *c)
{
    json_t *name = json_string(c->name);
    char *quoted = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
    fprintf(f, "{\"permanent\":%s,\"b\":{\"coords\":[%d,%d]},\"class\":", c->permanent ? "true" : "false", c->n, c->s);
    put_vector(f, c->v, c->k);
    fprintf(f, ",\"name\":%s}", quoted ? quoted : "\"?\"");
    free(quoted);
    json_decref(name);
}

int ss_history_write(FILE *f, const ss_action *a)
{
    fprintf(f, "{\"version\":1,\"action\":{\"%s\":", ss_action_name(a->type));
    switch (a->type) {
    case SS_CONSTRUCT: {
        json_t *o = json_pack("{s:s,s:s}", "algebra_name", a->algebra, "module_name", a->module);
        char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        fputs(s ? s : "{}", f);
        free(s);
        json_decref(o);
        break;
    }
    case SS_RESOLVE:
        fprintf(f, "{\"max_degree\":%d}", a->max_degree);
        break;
    case SS_ADD_DIFFERENTIAL:
        fprintf(f, "{\"r\":%d,\"b\":{\"coords\":[%d,%d]},\"source\":", a->r, a->a.n, a->a.s);
        put_vector(f, a->a.v, a->a.k);
        fputs(",\"target\":", f);
        put_vector(f, a->b.v, a->b.k);
        fputc('}', f);
        break;
    case SS_ADD_PERMANENT:
        fprintf(f, "{\"b\":{\"coords\":[%d,%d]},\"class\":", a->a.n, a->a.s);
        put_vector(f, a->a.v, a->a.k);
        fputc('}', f);
        break;
    case SS_ADD_PRODUCT_TYPE:
        put_named(f, &a->a);
        break;
    default:
        fputs("{\"source\":", f);
        put_named(f, &a->a);
        fputs(",\"target\":", f);
        put_named(f, &a->b);
        fputc('}', f);
    }
    fputs("}}\n", f);
    return ferror(f) ? -1 : 0;
}
