/* t-stagefile.c — stage files: round trips, corruption is detected cleanly, atomic writes,
 * text print/parse; odd-prime files (format version 2): round trips at p = 3, 5, 127, each
 * reader refuses the other kind, and crafted headers and payloads are refused. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "stages/store/stagefile.h"
#include "tests/rng.h"
#include "tests/tap.h"

static char dir[64];
static char err[512];

/* Random matrix; density: 0 = zero, 1 = sparse, 2 = uniform. */
static void random_matrix(f2mat *m, uint32_t rows, uint32_t cols, int density)
{
    if (f2mat_init(m, rows, cols) != 0) bail("f2mat_init failed");
    for (uint32_t i = 0; i < rows; i++)
        for (uint32_t c = 0; c < cols; c++)
            if (density == 2 ? (rng_next() & 1) : density == 1 ? (rng_next() % 53 == 0) : 0)
                f2mat_flip(m, i, c);
}

static int same_matrix(const f2mat *a, const f2mat *b)
{
    if (a->rows != b->rows || a->cols != b->cols) return 0;
    size_t words = f2vec_words(a->cols);
    for (uint32_t i = 0; i < a->rows && words; i++)
        if (memcmp(f2mat_row(a, i), f2mat_row(b, i), words * 8)) return 0;
    return 1;
}

static int same_header(const stage_header *a, const stage_header *b)
{
    return a->version == b->version && a->kind == b->kind && a->prime == b->prime && a->s == b->s
        && a->t == b->t && a->rows == b->rows && a->cols == b->cols && a->aux == b->aux
        && a->algorithm == b->algorithm && a->module_id == b->module_id;
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(len ? (size_t)len : 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

static void spit(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) bail("cannot write test file");
    fclose(f);
}

/* Count files whose name contains ".tmp" under d (recursively). */
static int count_tmp(const char *d)
{
    DIR *dp = opendir(d);
    struct dirent *e;
    int n = 0;
    char sub[512];
    if (!dp) return 0;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (strstr(e->d_name, ".tmp")) n++;
        snprintf(sub, sizeof sub, "%s/%s", d, e->d_name);
        struct stat st;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) n += count_tmp(sub);
    }
    closedir(dp);
    return n;
}

static void rm_rf(const char *d)
{
    DIR *dp = opendir(d);
    struct dirent *e;
    char sub[512];
    if (!dp) return;
    while ((e = readdir(dp))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(sub, sizeof sub, "%s/%s", d, e->d_name);
        struct stat st;
        if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) rm_rf(sub);
        else unlink(sub);
    }
    closedir(dp);
    rmdir(d);
}

/* One zstd frame of hdr (64 bytes) + payload, with or without checksum / content size. */
static void craft(const char *path, const unsigned char *hdr, const void *payload, size_t plen,
                  int checksum, int content_size)
{
    size_t n = 64 + plen;
    unsigned char *src = malloc(n), *dst = malloc(ZSTD_compressBound(n));
    memcpy(src, hdr, 64);
    if (plen) memcpy(src + 64, payload, plen);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, content_size);
    size_t z;
    if (content_size) z = ZSTD_compress2(cc, dst, ZSTD_compressBound(n), src, n);
    else {   /* streaming without a pledged size leaves the content size out */
        ZSTD_inBuffer in = { src, n, 0 };
        ZSTD_outBuffer out = { dst, ZSTD_compressBound(n), 0 };
        z = ZSTD_compressStream2(cc, &out, &in, ZSTD_e_end);
        if (z == 0) z = out.pos; else z = (size_t)-1;
    }
    if (ZSTD_isError(z)) bail("craft: compression failed");
    spit(path, dst, z);
    ZSTD_freeCCtx(cc);
    free(src);
    free(dst);
}

/* Test-side FNV-1a 32 re-seal of a hand-edited header (independent of the library). */
static void reseal(unsigned char *hb)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 60; i++) h = (h ^ hb[i]) * 16777619u;
    for (int i = 0; i < 4; i++) hb[60 + i] = (unsigned char)(h >> 8 * i);
}

static int read_status(const char *path, f2mat *m)
{
    stage_header h;
    err[0] = 0;
    return stage_read(path, &h, m, err, sizeof err);
}

static void test_roundtrip(void)
{
    static const uint32_t shapes[][2] = {
        { 0, 0 }, { 0, 5 }, { 5, 0 }, { 1, 1 }, { 1, 63 }, { 63, 64 }, { 64, 65 }, { 65, 1 },
        { 3, 129 }, { 7, 512 }, { 1000, 3000 },
    };
    char path[256];
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        for (int dens = 0; dens < 3; dens++) {
            f2mat a, b = { 0 };
            stage_header h = { .kind = (uint16_t)(1 + (k + (size_t)dens) % 3),
                               .s = (int32_t)(rng_next() % 50), .t = -(int32_t)(rng_next() % 7),
                               .aux = (uint32_t)rng_next(), .algorithm = (uint16_t)(dens % 3),
                               .module_id = rng_next() },
                         g;
            random_matrix(&a, shapes[k][0], shapes[k][1], dens);
            snprintf(path, sizeof path, "%s/rt_%zu_%d.zst", dir, k, dens);
            int w = stage_write(path, &h, &a, err, sizeof err);
            int r = w ? -1 : stage_read(path, &g, &b, err, sizeof err);
            h.version = 1, h.prime = 2, h.rows = a.rows, h.cols = a.cols;
            ok(w == STAGE_OK && r == STAGE_OK && same_header(&h, &g) && same_matrix(&a, &b),
               "round trip %ux%u density %d (%s)", shapes[k][0], shapes[k][1], dens,
               w || r ? err : "ok");
            size_t n;
            unsigned char *f = slurp(path, &n);
            ok(f && ZSTD_getFrameContentSize(f, n) == 64 + (unsigned long long)a.rows
                   * f2vec_words(a.cols) * 8 && (f[4] & 4), "  one frame, content size and checksum flag");
            free(f);
            f2mat_clear(&a);
            f2mat_clear(&b);
        }
    ok(count_tmp(dir) == 0, "no .tmp files left after writes");
}

/* Every prefix of the file is rejected cleanly; m stays untouched. */
static void test_truncation(int dens, uint32_t rows, uint32_t cols)
{
    char path[256], cut[256];
    f2mat a, b = { 0 };
    stage_header h = { .kind = STAGE_MATRIX, .s = 2, .t = 9 };
    random_matrix(&a, rows, cols, dens);
    snprintf(path, sizeof path, "%s/trunc.zst", dir);
    snprintf(cut, sizeof cut, "%s/cut.zst", dir);
    if (stage_write(path, &h, &a, err, sizeof err)) bail(err);
    size_t n;
    unsigned char *f = slurp(path, &n);
    int bad = 0, wrongcode = 0;
    size_t step = n > 4000 ? n / 997 : 1;
    for (size_t len = 0; len < n; len += step) {
        spit(cut, f, len);
        int r = read_status(cut, &b);
        if (r == STAGE_OK || b.data) bad++;
        if (r != STAGE_ECORRUPT) wrongcode++;
        if (r == STAGE_OK) f2mat_clear(&b);
    }
    ok(bad == 0 && wrongcode == 0, "every truncation of a %ux%u (density %d, %zu bytes) file is "
       "STAGE_ECORRUPT (%d accepted, %d other codes)", rows, cols, dens, n, bad, wrongcode);
    free(f);
    f2mat_clear(&a);
}

/* Every single-bit flip is detected. */
static void test_bitflips(int dens, uint32_t rows, uint32_t cols)
{
    char path[256], flip[256];
    f2mat a, b = { 0 };
    stage_header h = { .kind = STAGE_KERNEL, .s = 4, .t = 17, .module_id = 42, .algorithm = 1 };
    random_matrix(&a, rows, cols, dens);
    snprintf(path, sizeof path, "%s/flip.zst", dir);
    snprintf(flip, sizeof flip, "%s/flipped.zst", dir);
    if (stage_write(path, &h, &a, err, sizeof err)) bail(err);
    size_t n;
    unsigned char *f = slurp(path, &n);
    int wrong = 0, neutral = 0;
    for (size_t i = 0; i < n; i++)
        for (int bit = 0; bit < 8; bit++) {
            f[i] ^= (unsigned char)(1u << bit);
            spit(flip, f, n);
            f[i] ^= (unsigned char)(1u << bit);
            stage_header g;
            if (stage_read(flip, &g, &b, err, sizeof err) == STAGE_OK) {
                /* bits zstd never interprets (reserved mode bits, padding): harmless only if
                 * the content is bit-identical */
                h.version = 1, h.prime = 2, h.rows = rows, h.cols = cols;
                if (same_header(&g, &h) && same_matrix(&a, &b)) neutral++;
                else {
                    wrong++;
                    diag("flip of byte %zu bit %d gave different data", i, bit);
                }
                f2mat_clear(&b);
                memset(&b, 0, sizeof b);
            }
        }
    ok(wrong == 0, "all %zu single-bit flips of a %ux%u (density %d) file rejected or "
       "content-neutral (%d neutral)", 8 * n, rows, cols, dens, neutral);
    free(f);
    f2mat_clear(&a);
}

static void test_crafted(void)
{
    char path[256];
    unsigned char hb[64], hb2[64];
    uint64_t pay[4] = { 0x5, 0x3, 0x1, 0x0 };    /* rows of 1 word each */
    stage_header h = { .version = 1, .kind = STAGE_MATRIX, .prime = 2, .s = 1, .t = 2,
                       .rows = 2, .cols = 3, .algorithm = 0 };
    f2mat b = { 0 };
    snprintf(path, sizeof path, "%s/craft.zst", dir);

    stage_header_pack(&h, hb);
    craft(path, hb, pay, 16, 1, 1);
    int r = read_status(path, &b);
    ok(r == STAGE_OK && b.rows == 2 && b.cols == 3 && f2mat_get(&b, 0, 0) && !f2mat_get(&b, 0, 1)
       && f2mat_get(&b, 0, 2) && f2mat_get(&b, 1, 1), "hand-built file reads back (%s)", err);
    f2mat_clear(&b);
    memset(&b, 0, sizeof b);

#define EXPECT(code, what) do { int r_ = read_status(path, &b); \
        ok(r_ == (code) && !b.data && err[0], "%s -> %s (%s)", what, stage_strerror(code), err); \
        if (r_ == STAGE_OK) { f2mat_clear(&b); memset(&b, 0, sizeof b); } } while (0)

    memcpy(hb2, hb, 64); hb2[0] = 'X'; reseal(hb2);
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "wrong magic");

    h.version = 2; stage_header_pack(&h, hb2); h.version = 1;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_EMISMATCH, "format version 2");

    memcpy(hb2, hb, 64); hb2[17] ^= 1;     /* s changed, checksum not resealed */
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "header checksum mismatch");

    memcpy(hb2, hb, 64); hb2[50] = 7; reseal(hb2);
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "reserved byte not zero");

    h.prime = 3; stage_header_pack(&h, hb2); h.prime = 2;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "prime 3");

    h.kind = 9; stage_header_pack(&h, hb2); h.kind = STAGE_MATRIX;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "unknown kind");

    h.algorithm = 5; stage_header_pack(&h, hb2); h.algorithm = 0;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "unknown algorithm");

    h.rows = 3; stage_header_pack(&h, hb2); h.rows = 2;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "header rows 3, payload holds 2");

    craft(path, hb, pay, 24, 1, 1);
    EXPECT(STAGE_ECORRUPT, "payload longer than the header says");

    h.cols = 65; stage_header_pack(&h, hb2); h.cols = 3;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "header cols 65 (2 words per row), payload 1 word per row");

    uint64_t excess[2] = { 0x9, 0x0 };     /* bit 3 set in a 3-column row */
    craft(path, hb, excess, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "excess bits set");

    h.rows = 1u << 29; stage_header_pack(&h, hb2); h.rows = 2;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "rows 2^29 refused before allocating");

    h.rows = 1u << 28; h.cols = 1u << 28; stage_header_pack(&h, hb2); h.rows = 2; h.cols = 3;
    craft(path, hb2, pay, 16, 1, 1);
    EXPECT(STAGE_ECORRUPT, "2^28 x 2^28 refused (8 GiB cap)");

    craft(path, hb, pay, 16, 0, 1);
    EXPECT(STAGE_ECORRUPT, "frame without content checksum");

    craft(path, hb, pay, 16, 1, 0);
    EXPECT(STAGE_ECORRUPT, "frame without content size");

    craft(path, hb, pay, 8, 1, 1);
    EXPECT(STAGE_ECORRUPT, "content shorter than header + payload");

    craft(path, hb, NULL, 0, 1, 1);
    {
        size_t n;
        unsigned char *f = slurp(path, &n);
        unsigned char *two = malloc(2 * n);
        memcpy(two, f, n);
        memcpy(two + n, f, n);
        spit(path, two, 2 * n);
        EXPECT(STAGE_ECORRUPT, "two frames concatenated");
        memcpy(two + n, "junk", 4);
        spit(path, two, n + 4);
        EXPECT(STAGE_ECORRUPT, "trailing junk after the frame");
        free(f);
        free(two);
    }
    spit(path, "", 0);
    EXPECT(STAGE_ECORRUPT, "empty file");
    spit(path, "hello, this is not zstd at all", 30);
    EXPECT(STAGE_ECORRUPT, "not a zstd file");
    snprintf(path, sizeof path, "%s/does-not-exist.zst", dir);
    EXPECT(STAGE_ENOENT, "missing file");
    snprintf(path, sizeof path, "%s", dir);
    EXPECT(STAGE_EIO, "a directory");
#undef EXPECT
}

static void test_write_errors(void)
{
    char path[256];
    f2mat a;
    stage_header h = { .kind = STAGE_DIFFERENTIAL };
    random_matrix(&a, 3, 70, 2);
    snprintf(path, sizeof path, "%s/no/such/dir/x.zst", dir);
    int r = stage_write(path, &h, &a, err, sizeof err);
    ok(r != STAGE_OK && strstr(err, "x.zst"), "write into a missing directory fails, names the "
       "file (%s)", err);
    snprintf(path, sizeof path, "%s/bad.zst", dir);
    f2mat_flip(&a, 1, 69 + 1);   /* set an excess bit: invariant broken */
    r = stage_write(path, &h, &a, err, sizeof err);
    ok(r == STAGE_EINVAL && access(path, F_OK) != 0, "matrix with excess bits refused, no file (%s)",
       err);
    f2mat_flip(&a, 1, 70);
    h.kind = 7;
    ok(stage_write(path, &h, &a, err, sizeof err) == STAGE_EINVAL, "unknown kind refused");
    h.kind = STAGE_KERNEL;
    /* overwrite keeps the final name valid */
    f2mat b = { 0 }, c;
    stage_header g;
    random_matrix(&c, 2, 5, 2);
    r = stage_write(path, &h, &a, err, sizeof err) || stage_write(path, &h, &c, err, sizeof err)
        || stage_read(path, &g, &b, err, sizeof err);
    ok(r == 0 && same_matrix(&b, &c), "overwriting a stage file replaces it");
    ok(count_tmp(dir) == 0, "no .tmp files left after failed and repeated writes");
    f2mat_clear(&a);
    f2mat_clear(&b);
    f2mat_clear(&c);
}

static void test_expect(void)
{
    stage_header h = { .version = 1, .kind = STAGE_DIFFERENTIAL, .prime = 2, .s = 3, .t = 12,
                       .algorithm = STAGE_ALG_NASSAU, .module_id = 0xabcdef };
    ok(stage_expect(&h, STAGE_DIFFERENTIAL, 3, 12, 0xabcdef, STAGE_ALG_NASSAU, err, sizeof err)
       == STAGE_OK, "stage_expect: match");
    ok(stage_expect(&h, STAGE_DIFFERENTIAL, 3, 12, 0xabcdef, STAGE_ALG_NONE, err, sizeof err)
       == STAGE_OK, "stage_expect: algorithm none matches any");
    err[0] = 0;
    ok(stage_expect(&h, STAGE_KERNEL, 3, 12, 0xabcdef, 0, err, sizeof err) == STAGE_EMISMATCH
       && err[0], "kind mismatch (%s)", err);
    ok(stage_expect(&h, STAGE_DIFFERENTIAL, 4, 12, 0xabcdef, 0, err, sizeof err)
       == STAGE_EMISMATCH, "s mismatch (%s)", err);
    ok(stage_expect(&h, STAGE_DIFFERENTIAL, 3, 13, 0xabcdef, 0, err, sizeof err)
       == STAGE_EMISMATCH, "t mismatch (%s)", err);
    ok(stage_expect(&h, STAGE_DIFFERENTIAL, 3, 12, 0xabcdee, 0, err, sizeof err)
       == STAGE_EMISMATCH, "module mismatch (%s)", err);
    ok(stage_expect(&h, STAGE_DIFFERENTIAL, 3, 12, 0xabcdef, STAGE_ALG_STANDARD, err, sizeof err)
       == STAGE_EMISMATCH, "algorithm mismatch (%s)", err);
    ok(stage_hash64("S_2", 3) != stage_hash64("C2", 2) && stage_hash64("", 0)
       == UINT64_C(14695981039346656037), "stage_hash64 is FNV-1a 64");
}

static void test_paths(void)
{
    char buf[512], small[8];
    ok(stage_path(buf, sizeof buf, "/out/S_2", STAGE_KERNEL, 3, 17) == STAGE_OK
       && !strcmp(buf, "/out/S_2/stages/kernel/3_17.zst"), "stage_path: %s", buf);
    ok(stage_path(buf, sizeof buf, "o", STAGE_DIFFERENTIAL, 0, -1) == STAGE_OK
       && !strcmp(buf, "o/stages/differential/0_-1.zst"), "stage_path: %s", buf);
    ok(stage_path(small, sizeof small, "o", STAGE_MATRIX, 1, 1) == STAGE_EINVAL,
       "stage_path: buffer too small");
    ok(stage_path(buf, sizeof buf, "o", 0, 1, 1) == STAGE_EINVAL, "stage_path: unknown kind");
    char out[256];
    snprintf(out, sizeof out, "%s/run/a", dir);
    int r = stage_mkdirs(out, 1u << STAGE_DIFFERENTIAL, err, sizeof err);
    struct stat st;
    int all = 1;
    for (int k = 1; k <= 3; k++) {
        snprintf(buf, sizeof buf, "%s/stages/%s", out, stage_kind_name(k));
        all &= (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) == (k == STAGE_DIFFERENTIAL);
    }
    ok(r == STAGE_OK && all, "stage_mkdirs creates only the kind directories asked for");
    r = stage_mkdirs(out, 1u << STAGE_DIFFERENTIAL | 1u << STAGE_KERNEL | 1u << STAGE_MATRIX, err, sizeof err);
    for (int k = 1; k <= 3; k++) {
        snprintf(buf, sizeof buf, "%s/stages/%s", out, stage_kind_name(k));
        all &= stat(buf, &st) == 0 && S_ISDIR(st.st_mode);
    }
    ok(r == STAGE_OK && all && stage_mkdirs(out, 1u << STAGE_MATRIX, err, sizeof err) == STAGE_OK,
       "stage_mkdirs creates the three kind directories, idempotent");
    /* and a write through stage_path lands there */
    f2mat a, b = { 0 };
    stage_header h = { .kind = STAGE_DIFFERENTIAL, .s = 2, .t = 5 }, g;
    random_matrix(&a, 4, 9, 2);
    stage_path(buf, sizeof buf, out, STAGE_DIFFERENTIAL, 2, 5);
    r = stage_write(buf, &h, &a, err, sizeof err) || stage_read(buf, &g, &b, err, sizeof err)
        || stage_expect(&g, STAGE_DIFFERENTIAL, 2, 5, 0, 0, err, sizeof err);
    ok(r == 0 && same_matrix(&a, &b), "write/read/expect through stage_path");
    f2mat_clear(&a);
    f2mat_clear(&b);
    int distinct = 1;
    for (int i = 0; i <= 6; i++)
        for (int j = 0; j < i; j++) distinct &= strcmp(stage_strerror(i), stage_strerror(j)) != 0;
    ok(distinct && stage_strerror(99) && STAGE_OK == 0 && STAGE_ENOENT == 1 && STAGE_EIO == 2
       && STAGE_ECORRUPT == 3 && STAGE_EMISMATCH == 4 && STAGE_ENOMEM == 5 && STAGE_EINVAL == 6,
       "status codes pinned, messages distinct");
}

static void test_text(void)
{
    static const uint32_t shapes[][2] = { { 0, 0 }, { 0, 4 }, { 5, 0 }, { 1, 1 }, { 9, 64 }, { 13, 130 } };
    char path[256];
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        f2mat a, b = { 0 };
        stage_header h = { .kind = STAGE_KERNEL, .s = 3, .t = -2, .aux = 77,
                           .algorithm = STAGE_ALG_STANDARD, .module_id = 0xfedcba9876543210u },
                     g = { 0 };
        random_matrix(&a, shapes[k][0], shapes[k][1], 2);
        snprintf(path, sizeof path, "%s/text.zst", dir);
        if (stage_write(path, &h, &a, err, sizeof err)) bail(err);
        FILE *f = tmpfile();
        int r = stage_print(f, path, 0, err, sizeof err);
        rewind(f);
        int p = r ? -1 : stage_parse_matrix_text(f, &g, &b, err, sizeof err);
        fclose(f);
        h.version = 1, h.prime = 2, h.rows = a.rows, h.cols = a.cols;
        ok(r == 0 && p == 0 && same_header(&h, &g) && same_matrix(&a, &b),
           "print/parse round trip %ux%u (%s)", shapes[k][0], shapes[k][1], r || p ? err : "ok");
        f2mat_clear(&a);
        f2mat_clear(&b);
    }

    /* summary: rows 100, 010, 110, 001 -> rank 3, density 5/12 */
    f2mat a, b = { 0 };
    stage_header h = { .kind = STAGE_MATRIX };
    f2mat_init(&a, 4, 3);
    f2mat_set(&a, 0, 0, 1); f2mat_set(&a, 1, 1, 1); f2mat_set(&a, 2, 0, 1);
    f2mat_set(&a, 2, 1, 1); f2mat_set(&a, 3, 2, 1);
    snprintf(path, sizeof path, "%s/summary.zst", dir);
    stage_write(path, &h, &a, err, sizeof err);
    char *txt = NULL;
    size_t tn = 0;
    FILE *f = open_memstream(&txt, &tn);
    int r = stage_print(f, path, 1, err, sizeof err);
    fclose(f);
    ok(r == 0 && strstr(txt, "kind: matrix\n") && strstr(txt, "rows: 4\n")
       && strstr(txt, "shape: 4 x 3\n") && strstr(txt, "rank: 3\n")
       && strstr(txt, "density: 0.416667 (5 of 12 entries)\n") && !strstr(txt, "\n110\n"),
       "summary: shape, rank 3, density");
    free(txt);
    txt = NULL;
    f = open_memstream(&txt, &tn);
    r = stage_print(f, path, 0, err, sizeof err);
    fclose(f);
    ok(r == 0 && strstr(txt, "\n100\n010\n110\n001\n"), "full listing: one row per line");
    free(txt);
    f2mat_clear(&a);

    /* bare text, comments, errors */
    static const struct { const char *text; int ok; uint32_t rows, cols; } cases[] = {
        { "101\n011\n", 1, 2, 3 },
        { "# comment\n\n101\r\n011  \n\n", 1, 2, 3 },
        { "kind: kernel\ns: 2\nt: 7\n1\n0\n", 1, 2, 1 },
        { "", 1, 0, 0 },
        { "rows: 3\ncols: 0\n", 1, 3, 0 },
        { "101\n01\n", 0, 0, 0 },
        { "10a\n", 0, 0, 0 },
        { "rows: 3\n101\n", 0, 0, 0 },
        { "cols: 4\n101\n", 0, 0, 0 },
        { "101\nkind: kernel\n", 0, 0, 0 },
        { "kind: bogus\n1\n", 0, 0, 0 },
        { "prime: 3\n1\n", 0, 0, 0 },
        { "s: 99999999999\n1\n", 0, 0, 0 },
        { "rows: 300000000\ncols: 1\n", 0, 0, 0 },
        { "rows: 0\ncols: 0\n1\n", 0, 0, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        FILE *in = tmpfile();
        fputs(cases[k].text, in);
        rewind(in);
        memset(&b, 0, sizeof b);
        err[0] = 0;
        r = stage_parse_matrix_text(in, NULL, &b, err, sizeof err);
        fclose(in);
        if (cases[k].ok)
            ok(r == 0 && b.rows == cases[k].rows && b.cols == cases[k].cols,
               "parse case %zu: %ux%u (%s)", k, b.rows, b.cols, err);
        else
            ok(r != 0 && !b.data && err[0], "parse case %zu rejected: %s", k, err);
        if (r == 0) f2mat_clear(&b);
    }
}

/* Odd p (version 2): a byte per entry; stage_read_p round trip; F2 and F_p readers refuse each
 * other's files; an entry >= p, a prime that is not one, and a short payload are refused. */
static void test_odd_prime(void)
{
    char path[256];
    snprintf(path, sizeof path, "%s/odd.zst", dir);
    static const uint32_t primes[] = { 3, 5, 127 };
    for (size_t k = 0; k < sizeof primes / sizeof *primes; k++) {
        uint32_t p = primes[k], rows = 5 + (uint32_t)k, cols = 70 + 3 * (uint32_t)k;
        fpmat a, b = { 0 };
        if (fpmat_init(&a, p, rows, cols) != 0) bail("fpmat_init failed");
        for (uint32_t i = 0; i < rows; i++)
            for (uint32_t c = 0; c < cols; c++) fpmat_set(&a, i, c, (uint32_t)(rng_next() % p));
        stage_header h = { .kind = STAGE_DIFFERENTIAL, .s = 3, .t = 17, .aux = cols, .algorithm = STAGE_ALG_STANDARD,
                           .module_id = 0x1234 }, g;
        void *buf = NULL;
        size_t len = 0;
        err[0] = 0;
        int rc = stage_encode_p(&h, &a, &buf, &len, err, sizeof err);
        if (rc == STAGE_OK) spit(path, buf, len);
        free(buf);
        rc = rc == STAGE_OK ? stage_read_p(path, &g, &b, err, sizeof err) : rc;
        ok(rc == STAGE_OK && g.version == STAGE_FORMAT_VERSION_P && g.prime == p && g.rows == rows && g.cols == cols &&
           g.s == 3 && g.t == 17 && g.module_id == 0x1234 && fpmat_equal(&a, &b),
           "p = %u: a %u x %u matrix round-trips (version %u, prime %u) %s", p, rows, cols, g.version, g.prime, err);
        fpmat_clear(&b);
        f2mat m2 = { 0 };
        ok(stage_read(path, &g, &m2, err, sizeof err) == STAGE_EMISMATCH && !m2.data,
           "p = %u: the F2 reader refuses it (%s)", p, err);
        fpmat_clear(&a);
    }
    f2mat m;
    fpmat mp = { 0 };
    random_matrix(&m, 3, 9, 2);
    stage_header h = { .kind = STAGE_MATRIX };
    if (stage_write(path, &h, &m, err, sizeof err) != STAGE_OK) bail(err);
    ok(stage_read_p(path, &h, &mp, err, sizeof err) == STAGE_EMISMATCH && !mp.data,
       "an F2 file is refused by the F_p reader (%s)", err);
    f2mat_clear(&m);
    /* crafted: 2 x 3 over F_3 */
    unsigned char hb[64], pay[6] = { 0, 1, 2, 2, 1, 0 };
    stage_header x = { .version = STAGE_FORMAT_VERSION_P, .kind = STAGE_MATRIX, .prime = 3, .rows = 2, .cols = 3 };
    stage_header_pack(&x, hb);
    craft(path, hb, pay, 6, 1, 1);
    int rc = stage_read_p(path, &h, &mp, err, sizeof err);
    ok(rc == STAGE_OK && fpmat_get(&mp, 0, 2) == 2 && fpmat_get(&mp, 1, 0) == 2, "a hand-built F_3 file reads back");
    fpmat_clear(&mp);
    pay[4] = 3;
    craft(path, hb, pay, 6, 1, 1);
    ok(stage_read_p(path, &h, &mp, err, sizeof err) == STAGE_ECORRUPT && !mp.data, "an entry 3 at p = 3: %s", err);
    pay[4] = 1;
    craft(path, hb, pay, 5, 1, 1);
    ok(stage_read_p(path, &h, &mp, err, sizeof err) == STAGE_ECORRUPT && !mp.data, "a short payload: %s", err);
    x.prime = 9;
    stage_header_pack(&x, hb);
    craft(path, hb, pay, 6, 1, 1);
    ok(stage_read_p(path, &h, &mp, err, sizeof err) == STAGE_ECORRUPT && !mp.data, "prime 9: %s", err);
    x.prime = 2;
    stage_header_pack(&x, hb);
    craft(path, hb, pay, 6, 1, 1);
    ok(stage_read_p(path, &h, &mp, err, sizeof err) == STAGE_EMISMATCH && !mp.data, "version 2 with prime 2: %s", err);
    x.version = 3;
    x.prime = 3;
    stage_header_pack(&x, hb);
    craft(path, hb, pay, 6, 1, 1);
    ok(stage_read_p(path, &h, &mp, err, sizeof err) == STAGE_EMISMATCH && !mp.data, "version 3: %s", err);
}

int main(void)
{
    rng = 0x9E3779B97F4A7C15u;     /* fixed: the same files on every run */
    plan_lazy();
    snprintf(dir, sizeof dir, "/tmp/t-stagefile.XXXXXX");
    if (!mkdtemp(dir)) bail("mkdtemp failed");
    test_roundtrip();
    test_truncation(2, 7, 100);
    test_truncation(1, 300, 700);
    test_bitflips(2, 3, 70);
    test_bitflips(1, 40, 200);
    test_bitflips(0, 2, 5);
    test_crafted();
    test_write_errors();
    test_expect();
    test_paths();
    test_text();
    test_odd_prime();
    ok(count_tmp(dir) == 0, "no .tmp files left at the end");
    rm_rf(dir);
    return done_testing();
}
