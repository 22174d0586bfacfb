/* manifest.c — DIR/run.json (see manifest.h, schema/run-json.md). */
#include "stages/out/manifest.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/memacct.h"
#include "stages/resolve/report.h"
#include "stages/store/durable.h"
#include "stages/store/stagefile.h"
#include "algebra/milnor_p.h"
#include "stages/version.h"

/* The commit of a program linked without $(B)/gen/commit.c (stages/version.h): the binary's
 * own definition takes the place of this weak one. */
__attribute__((weak)) const char extflow_commit[] = "unknown";

int region_last_stem(const run_region *r, int s)
{
    if (s < 0 || s > r->max_s) return -1;
    return r->kind == REGION_STEM ? r->stem : r->max_t - s;
}

int region_contains(const run_region *outer, const run_region *inner)
{
    if (inner->max_s > outer->max_s) return 0;
    for (int s = 0; s <= inner->max_s; s++)
        if (region_last_stem(inner, s) > region_last_stem(outer, s)) return 0;
    return 1;
}

int region_has(const run_region *r, int s, int t)
{
    return s >= 0 && t >= s && t - s <= region_last_stem(r, s);
}

void region_describe(char *buf, size_t size, const run_region *r, deg_t shift)
{
    if (r->kind == REGION_STEM) snprintf(buf, size, "stem %d (s <= %d)", r->stem + shift, r->max_s);
    else snprintf(buf, size, "t <= %d (s <= %d)", r->max_t + shift, r->max_s);
}

run_region region_of(const resolution *res)
{
    return (run_region){ res->region, res->stem, res->rect_t, res->max_s };
}

static int write_json(FILE *f, const resolution *res)
{
    run_region r = region_of(res);
    fprintf(f, "{\n  \"format\": \"extflow-run\",\n  \"format_version\": 1,\n");
    fprintf(f, "  \"program_version\": \"%s\",\n  \"program_commit\": \"%s\",\n", EXTFLOW_VERSION, extflow_commit);
    fprintf(f, "  \"module\": \"%s\",\n  \"module_id\": \"0x%016llx\",\n", res->module_name,
            (unsigned long long)res->module_id);
    fprintf(f, "  \"algorithm\": \"%s\",\n  \"prime\": %u,\n", stage_algorithm_name(res->algorithm), res->prime);
    if (res->unstable) fprintf(f, "  \"unstable\": true,\n");     /* absent: stable */
    fprintf(f, "  \"memory\": { \"peak_rss_bytes\": %lld, \"accounted_peak_bytes\": %lld",
            (long long)memacct_peak_rss(), (long long)memacct_total_peak());
    for (int k = 0; k < MEM_NKINDS; k++)
        fprintf(f, ", \"%s_peak_bytes\": %lld", memacct_name((enum mem_kind)k),
                (long long)memacct_peak((enum mem_kind)k));
    fprintf(f, " },\n");
    if (r.kind == REGION_STEM)
        fprintf(f, "  \"complete\": { \"kind\": \"stem\", \"stem\": %d, \"max_s\": %d }\n}\n", r.stem, r.max_s);
    else
        fprintf(f, "  \"complete\": { \"kind\": \"rect\", \"max_t\": %d, \"max_s\": %d }\n}\n", r.max_t, r.max_s);
    return ferror(f) ? -1 : 0;
}

int manifest_write(const char *dir, const resolution *res)
{
    return report_write_file(dir, MANIFEST_NAME, res, write_json);
}

/* The value after "key": in text — a string (no escapes) into str, or an integer into *num.
 * Keys are unique in the document, so nesting needs no tracking. 0, or -1 if absent/malformed. */
static int json_field(const char *text, const char *key, char *str, size_t size, long *num)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = text;
    for (;;) {      /* the key is the occurrence followed by ':' (a value may spell it too) */
        if (!(p = strstr(p, pat))) return -1;
        p += strlen(pat);
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (*p == ':') break;
    }
    p++;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (str) {
        const char *q = *p == '"' ? strchr(p + 1, '"') : NULL;
        if (!q || (size_t)(q - p - 1) >= size) return -1;
        memcpy(str, p + 1, (size_t)(q - p - 1));
        str[q - p - 1] = 0;
        return 0;
    }
    char *end;
    errno = 0;
    *num = strtol(p, &end, 0);
    return end == p || errno || *num < 0 || *num > 100000 ? -1 : 0;
}

int manifest_read(const char *dir, run_manifest *m, char *err, size_t errlen)
{
    char path[4200], text[4096], kind[16], alg[16], id[32];
    snprintf(path, sizeof path, "%s/%s", dir, MANIFEST_NAME);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) return 1;
        snprintf(err, errlen, "%.4000s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    int rerr = ferror(f), big = n == sizeof text - 1;
    fclose(f);
    text[n] = 0;
    memset(m, 0, sizeof *m);
    long prime = 0, fv = 0, stem = 0, max_t = 0, max_s = 0;
    const char *why = rerr ? "read error" : big ? "too large" : NULL;
    if (!why && (json_field(text, "format_version", NULL, 0, &fv) || fv != 1)) why = "not format version 1";
    if (!why && (json_field(text, "module", m->module, sizeof m->module, NULL) ||
                 json_field(text, "module_id", id, sizeof id, NULL) ||
                 json_field(text, "algorithm", alg, sizeof alg, NULL) ||
                 json_field(text, "prime", NULL, 0, &prime) ||
                 json_field(text, "kind", kind, sizeof kind, NULL) ||
                 json_field(text, "max_s", NULL, 0, &max_s)))
        why = "a field is missing or malformed";
    if (!why) {
        char *end;
        m->module_id = strtoull(id, &end, 16);
        m->algorithm = !strcmp(alg, "standard") ? ALG_STANDARD : !strcmp(alg, "nassau") ? ALG_NASSAU : 0;
        m->prime = (int)prime;
        m->unstable = strstr(text, "\"unstable\": true") != NULL;
        m->complete.kind = !strcmp(kind, "stem") ? REGION_STEM : !strcmp(kind, "rect") ? REGION_RECT : -1;
        m->complete.max_s = (int)max_s;
        if (strncmp(id, "0x", 2) || *end || end - id != 18) why = "bad module_id";
        else if (!m->algorithm) why = "unknown algorithm";
        else if (prime != 2 && (prime > STAGE_MAX_PRIME || !milnor_p_prime_ok((uint32_t)prime))) why = "prime is not 2 or an odd prime below 128";
        else if (m->complete.kind < 0) why = "unknown region kind";
        else if (m->complete.kind == REGION_STEM && json_field(text, "stem", NULL, 0, &stem)) why = "no stem";
        else if (m->complete.kind == REGION_RECT && json_field(text, "max_t", NULL, 0, &max_t)) why = "no max_t";
        m->complete.stem = (int)stem;
        m->complete.max_t = (int)max_t;
    }
    if (!why && json_field(text, "program_version", m->version, sizeof m->version, NULL)) why = "no program_version";
    if (why) {
        snprintf(err, errlen, "%.4000s: %s", path, why);
        return -1;
    }
    return 0;
}

static int sniff_file(const char *path, uint64_t *module_id, int *algorithm, uint32_t *prime)
{
    stage_header h;
    f2mat m = { 0 };
    fpmat mp = { 0 };
    if (stage_read_any(path, &h, &m, &mp, NULL, 0) != STAGE_OK) return 0;
    f2mat_clear(&m);
    fpmat_clear(&mp);
    if (h.kind != STAGE_DIFFERENTIAL) return 0;
    *module_id = h.module_id;
    *algorithm = h.algorithm;
    *prime = h.prime;
    return 1;
}

/* The first valid differential file's module, algorithm and prime (0_0 first: small, always there). */
static int sniff(const char *dir, uint64_t *module_id, int *algorithm, uint32_t *prime)
{
    char path[4200];
    stage_path(path, sizeof path, dir, STAGE_DIFFERENTIAL, 0, 0);   /* small, always there */
    if (sniff_file(path, module_id, algorithm, prime)) return 1;
    snprintf(path, sizeof path, "%s/stages/differential", dir);
    DIR *d = opendir(path);
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp.")) continue;
        char file[4500];
        snprintf(file, sizeof file, "%s/%s", path, e->d_name);
        found = sniff_file(file, module_id, algorithm, prime);
    }
    if (d) closedir(d);
    return found;
}

int manifest_sniff(const char *dir, uint64_t *module_id, int *algorithm)
{
    uint32_t prime;
    return sniff(dir, module_id, algorithm, &prime);
}

uint32_t manifest_prime(const char *dir)
{
    run_manifest m;
    char err[64];
    uint64_t id;
    int alg;
    uint32_t prime = 2;
    if (manifest_read(dir, &m, err, sizeof err) == 0) return (uint32_t)m.prime;
    return sniff(dir, &id, &alg, &prime) ? prime : 2;
}

/* DIR/tables.json as an object (a new one when absent or unreadable). */
static json_t *tables_load(const char *dir)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, TABLES_NAME);
    json_t *t = json_load_file(path, 0, NULL);
    if (t && !json_is_object(json_object_get(t, "tables"))) {
        json_decref(t);
        t = NULL;
    }
    if (!t) t = json_pack("{s:s, s:i, s:{}}", "format", "extflow-tables", "format_version", 1, "tables");
    return t;
}

static int region_from_json(const json_t *e, run_region *r)
{
    const char *kind = json_string_value(json_object_get(e, "kind"));
    json_t *ms = json_object_get(e, "max_s"), *v = json_object_get(e, kind && !strcmp(kind, "rect") ? "max_t" : "stem");
    if (!kind || (strcmp(kind, "stem") && strcmp(kind, "rect")) || !json_is_integer(ms) || !json_is_integer(v))
        return 0;
    *r = (run_region){ strcmp(kind, "rect") ? REGION_STEM : REGION_RECT, 0, 0, (int)json_integer_value(ms) };
    if (r->kind == REGION_STEM) r->stem = (int)json_integer_value(v);
    else r->max_t = (int)json_integer_value(v);
    return r->max_s >= 0 && r->stem >= 0 && r->max_t >= 0;
}

int manifest_table_note(const char *dir, const char *table, const run_region *r, char *err, size_t errlen)
{
    json_t *t = tables_load(dir), *tables = t ? json_object_get(t, "tables") : NULL;
    char path[4400], *text = NULL;
    int rc = -1;
    if (tables) {
        if (!r) json_object_del(tables, table);
        else json_object_set_new(tables, table, r->kind == REGION_STEM
                                 ? json_pack("{s:s, s:i, s:i}", "kind", "stem", "stem", r->stem, "max_s", r->max_s)
                                 : json_pack("{s:s, s:i, s:i}", "kind", "rect", "max_t", r->max_t, "max_s", r->max_s));
        text = json_dumps(t, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    }
    snprintf(path, sizeof path, "%s/%s", dir, TABLES_NAME);
    if (!text) snprintf(err, errlen, "out of memory writing %s", path);
    else {
        size_t len = strlen(text);
        text[len] = '\n';      /* json_dumps ends without one; its terminator makes room */
        rc = durable_write_file(path, text, len + 1, err, errlen);
    }
    free(text);
    json_decref(t);
    return rc;
}

int manifest_table_region(const char *dir, const char *table, run_region *r)
{
    json_t *t = tables_load(dir);
    int found = t && region_from_json(json_object_get(json_object_get(t, "tables"), table), r);
    json_decref(t);
    return found;
}

int manifest_partial_tables(const char *dir, const run_region *complete,
                            void (*fn)(void *ctx, const char *table, const run_region *r), void *ctx)
{
    json_t *t = tables_load(dir), *e;
    const char *name;
    int n = 0;
    run_region r;
    json_object_foreach(t ? json_object_get(t, "tables") : NULL, name, e)
        if (region_from_json(e, &r) && !region_contains(&r, complete)) {
            fn(ctx, name, &r);
            n++;
        }
    json_decref(t);
    return n;
}
