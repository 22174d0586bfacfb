/* t-fuzz-regress.c — replays the fuzzers' inputs that once crashed (tests/fuzz/crashers/) and
 * the seed corpora through the stage-file decoder and the text-matrix parser: each must end
 * in a status code, and an accepted stage file must survive a re-encode round trip. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stages/stagefile.h"
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
    return done_testing();
}
