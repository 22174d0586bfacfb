/* t-fuzz-regress.c — replays the fuzzers' inputs that once crashed (tests/fuzz/crashers/) and
 * the seed corpora through the stage-file decoder, the text-matrix parser, the module loader
 * and the calculator's expressions (first byte the prime, as tests/fuzz/fuzz_stexpr.c): each
 * must end in a status code, an accepted stage file must survive a re-encode round trip, an
 * expression must be refused at a position inside it or evaluate, and every shipped module
 * (modules/) must load. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "algebra/fdmodule.h"
#include "algebra/stexpr.h"
#include "stages/store/stagefile.h"
#include "tests/tap.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? 2 * cap : 4096;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) break;
            buf = nb;
        }
        size_t n = fread(buf + *len, 1, cap - *len, f);
        if (n == 0) break;
        *len += n;
    }
    fclose(f);
    return buf;
}

/* The module loader on buf: accepted (1) or refused with a reason (0). */
static int module_loads(const unsigned char *buf, size_t len, char *err, size_t es)
{
    fd_module fm;
    err[0] = 0;
    if (fdm_parse((const char *)buf, len, &fm, err, es) != 0) return 0;
    int rc = fdm_truncate(&fm, fm.min_deg + 12, err, es) == 0;
    fdm_clear(&fm);
    return rc;
}

/* buf as fuzz_stexpr reads it: refused at a position inside the text, or evaluated (degrees
 * below 40). 1 when so. */
static int expr_ok(const unsigned char *buf, size_t len)
{
    static const uint32_t primes[3] = { 2, 3, 5 };
    static adm_alg algs[3];
    static int built[3];
    if (len == 0) return 1;
    int w = buf[0] % 3;
    char *text = calloc(len, 1);
    if (!text) return 0;
    memcpy(text, buf + 1, len - 1);
    stexpr_error err;
    stexpr_val v;
    deg_t top;
    int rc = stexpr_check(text, primes[w], 40, &top, &err), good = 0;
    if (rc == STEXPR_BAD) good = err.pos <= strlen(text);
    else if (rc == 0 && (built[w] || adm_alg_init(&algs[w], primes[w], 40) == 0)) {
        built[w] = 1;
        good = stexpr_eval(text, &algs[w], &v, &err) == 0;
        if (good) stexpr_val_clear(&v);
    }
    free(text);
    return good;
}

static void replay(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char path[1024], err[512];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        unsigned char *buf = slurp(path, &len);
        if (!buf) continue;
        stage_header h;
        f2mat m;
        int rc = stage_decode(path, buf, len, &h, &m, err, sizeof err);
        int round_trip = 1;
        if (rc == STAGE_OK) {
            void *enc;
            size_t elen;
            stage_header h2;
            f2mat m2;
            round_trip = stage_encode(&h, &m, &enc, &elen, err, sizeof err) == STAGE_OK &&
                         stage_decode("re-encoded", enc, elen, &h2, &m2, err, sizeof err) == STAGE_OK &&
                         f2mat_equal(&m, &m2);
            if (round_trip) {
                f2mat_clear(&m2);
                free(enc);
            }
            f2mat_clear(&m);
        }
        ok(rc >= STAGE_OK && rc <= STAGE_EINVAL && round_trip, "stage decoder on %s: status %d", path, rc);
        FILE *in = fmemopen(buf, len ? len : 1, "r");
        stage_header ht = { .kind = STAGE_MATRIX };
        int trc = in ? stage_parse_matrix_text(in, &ht, &m, err, sizeof err) : -1;
        if (trc == STAGE_OK) f2mat_clear(&m);
        if (in) fclose(in);
        ok(trc >= STAGE_OK && trc <= STAGE_EINVAL, "text parser on %s: status %d", path, trc);
        int loaded = module_loads(buf, len, err, sizeof err);
        ok(loaded || err[0], "module loader on %s: %s", path, loaded ? "loaded" : err);
        ok(expr_ok(buf, len), "expression parser on %s", path);
        free(buf);
    }
    closedir(d);
}

int main(void)
{
    plan_lazy();
    replay("tests/fuzz/crashers");
    replay("tests/fuzz/seeds-stage");
    replay("tests/fuzz/seeds-text");
    replay("tests/fuzz/seeds-stexpr");
    DIR *d = opendir("modules");
    char path[1024], err[600];
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "modules/%s", e->d_name);
        size_t len;
        unsigned char *buf = slurp(path, &len);
        ok(buf && module_loads(buf, len, err, sizeof err), "shipped module %s loads%s%s", path,
           buf && err[0] ? ": " : "", buf ? err : "");
        free(buf);
    }
    if (d) closedir(d);
    return done_testing();
}
