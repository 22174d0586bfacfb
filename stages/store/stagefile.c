/* stagefile.c — stage files (see stagefile.h and schema/stage-files.md). */
#include "stages/store/stagefile.h"
#include "stages/store/durable.h"
#include "algebra/fpmat.h"
#include "algebra/milnor_p.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

static const unsigned char stage_magic[8] = { 'E', 'X', 'T', 'F', 'L', 'O', 'W', 0 };
#define ZSTD_MAGIC 0xFD2FB528u
#define CHUNK      ((size_t)1 << 20)

/* ---- errors ---------------------------------------------------------------------------- */

static void set_err(char *err, size_t errlen, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    if (getenv("EXTFLOW_DEBUG")) fprintf(stderr, "stages/store/stagefile.c:%d: %s\n", line, msg);
}

/* FAIL: set rc and the message, jump to the function's cleanup label `out`. */
#define FAIL(code, ...) do { rc = (code); set_err(err, errlen, __LINE__, __VA_ARGS__); goto out; } while (0)
#define FAIL_IF(cond, code, ...) do { if (cond) FAIL(code, __VA_ARGS__); } while (0)
#define FORWARD_IF_ERROR(expr) do { rc = (expr); if (rc != STAGE_OK) goto out; } while (0)

const char *stage_strerror(int status)
{
    switch (status) {
    case STAGE_OK: return "success";
    case STAGE_ENOENT: return "no such file";
    case STAGE_EIO: return "I/O error";
    case STAGE_ECORRUPT: return "corrupt stage file";
    case STAGE_EMISMATCH: return "stage file does not match the expected one";
    case STAGE_ENOMEM: return "out of memory";
    case STAGE_EINVAL: return "invalid argument";
    default: return "unknown stage status";
    }
}

const char *stage_kind_name(int kind)
{
    switch (kind) {
    case STAGE_DIFFERENTIAL: return "differential";
    case STAGE_KERNEL: return "kernel";
    case STAGE_MATRIX: return "matrix";
    case STAGE_LIFT: return "lift";
    default: return NULL;
    }
}

const char *stage_algorithm_name(int algorithm)
{
    switch (algorithm) {
    case STAGE_ALG_NONE: return "none";
    case STAGE_ALG_STANDARD: return "standard";
    case STAGE_ALG_NASSAU: return "nassau";
    default: return NULL;
    }
}

/* ---- little-endian helpers, hashes ----------------------------------------------------- */

static void put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> 8 * i); }
static void put64(unsigned char *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> 8 * i); }
static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const unsigned char *p)
{ uint32_t v = 0; for (int i = 3; i >= 0; i--) v = v << 8 | p[i]; return v; }
static uint64_t get64(const unsigned char *p)
{ uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }

/* Host words <-> little-endian words, in place. */
static void words_le(uint64_t *w, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t i = 0; i < n; i++) w[i] = __builtin_bswap64(w[i]);
#else
    (void)w; (void)n;
#endif
}

static uint32_t fnv1a32(const unsigned char *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

uint64_t stage_hash64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(14695981039346656037);
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h;
}

/* ---- header ---------------------------------------------------------------------------- */

void stage_header_pack(const stage_header *h, unsigned char buf[STAGE_HEADER_SIZE])
{
    memset(buf, 0, STAGE_HEADER_SIZE);
    memcpy(buf, stage_magic, 8);
    put16(buf + 8, h->version);
    put16(buf + 10, h->kind);
    put32(buf + 12, h->prime);
    put32(buf + 16, (uint32_t)h->s);
    put32(buf + 20, (uint32_t)h->t);
    put32(buf + 24, h->rows);
    put32(buf + 28, h->cols);
    put32(buf + 32, h->aux);
    put16(buf + 36, h->algorithm);
    put64(buf + 40, h->module_id);
    put32(buf + 60, fnv1a32(buf, 60));
}

/* Payload bytes of a rows x cols matrix (no overflow: both are capped first): packed bits at
 * p = 2 (version 1), a byte per entry at odd p (version 2). */
static uint64_t payload_bytes_p(uint32_t prime, uint32_t rows, uint32_t cols)
{
    return prime == 2 ? (uint64_t)rows * f2vec_words(cols) * 8 : (uint64_t)rows * cols;
}

/* Memory f2mat_init (fpmat_init) will take: rows of ceil(cols/64) words rounded up to 8 (of
 * cols bytes rounded up to 64). */
static uint64_t memory_bytes_p(uint32_t prime, uint32_t rows, uint32_t cols)
{
    if (prime != 2) return (uint64_t)rows * fpmat_segment_start(cols);
    return (uint64_t)rows * ((f2vec_words(cols) + 7) & ~(size_t)7) * 8;
}
static uint64_t memory_bytes(uint32_t rows, uint32_t cols) { return memory_bytes_p(2, rows, cols); }

/* The format version of a file of this prime (1 at p = 2, 2 at odd p). */
static uint16_t version_for(uint32_t prime) { return prime == 2 ? STAGE_FORMAT_VERSION : STAGE_FORMAT_VERSION_P; }

int stage_header_unpack(const unsigned char buf[STAGE_HEADER_SIZE], stage_header *h,
                        const char *path, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    stage_header x;
    if (!path) path = "(header)";
    FAIL_IF(memcmp(buf, stage_magic, 8) != 0, STAGE_ECORRUPT,
            "%s: not an extflow stage file (bad magic)", path);
    x.version = get16(buf + 8);
    FAIL_IF(x.version != STAGE_FORMAT_VERSION && x.version != STAGE_FORMAT_VERSION_P, STAGE_EMISMATCH,
            "%s: stage file format version %u, this build reads versions %d and %d",
            path, x.version, STAGE_FORMAT_VERSION, STAGE_FORMAT_VERSION_P);
    FAIL_IF(x.version == STAGE_FORMAT_VERSION_P && get32(buf + 12) == 2, STAGE_EMISMATCH,
            "%s: format version %d holds odd primes only, this file says prime 2", path, STAGE_FORMAT_VERSION_P);
    FAIL_IF(get32(buf + 60) != fnv1a32(buf, 60), STAGE_ECORRUPT,
            "%s: header checksum mismatch", path);
    x.kind = get16(buf + 10);
    x.prime = get32(buf + 12);
    x.s = (int32_t)get32(buf + 16);
    x.t = (int32_t)get32(buf + 20);
    x.rows = get32(buf + 24);
    x.cols = get32(buf + 28);
    x.aux = get32(buf + 32);
    x.algorithm = get16(buf + 36);
    x.module_id = get64(buf + 40);
    FAIL_IF(!stage_kind_name(x.kind), STAGE_ECORRUPT, "%s: unknown kind %u", path, x.kind);
    FAIL_IF(x.version == STAGE_FORMAT_VERSION && x.prime != 2, STAGE_ECORRUPT,
            "%s: prime %" PRIu32 " in a version-1 file (prime 2 only)", path, x.prime);
    FAIL_IF(x.version == STAGE_FORMAT_VERSION_P && (x.prime > STAGE_MAX_PRIME || !milnor_p_prime_ok(x.prime)),
            STAGE_ECORRUPT, "%s: prime %" PRIu32 ", not an odd prime below %d", path, x.prime, STAGE_MAX_PRIME + 1);
    FAIL_IF(!stage_algorithm_name(x.algorithm), STAGE_ECORRUPT, "%s: unknown algorithm %u",
            path, x.algorithm);
    for (int i = 38; i < 40; i++)
        FAIL_IF(buf[i], STAGE_ECORRUPT, "%s: reserved header byte %d is not zero", path, i);
    for (int i = 48; i < 60; i++)
        FAIL_IF(buf[i], STAGE_ECORRUPT, "%s: reserved header byte %d is not zero", path, i);
    FAIL_IF(x.rows > STAGE_MAX_DIM || x.cols > STAGE_MAX_DIM, STAGE_ECORRUPT,
            "%s: shape %" PRIu32 " x %" PRIu32 " exceeds the cap 2^28", path, x.rows, x.cols);
    FAIL_IF(memory_bytes_p(x.prime, x.rows, x.cols) > STAGE_MAX_BYTES, STAGE_ECORRUPT,
            "%s: shape %" PRIu32 " x %" PRIu32 " exceeds the 8 GiB cap", path, x.rows, x.cols);
    *h = x;
out:
    return rc;
}

/* ---- writing --------------------------------------------------------------------------- */

/* Encode in memory (stage_encode), then write it durably (durable.h: temporary, sync,
 * rename, directory sync). On any error the temporary is unlinked. */
int stage_write(const char *path, const stage_header *h, const f2mat *m,
                char *err, size_t errlen)
{
    int rc = STAGE_OK;
    void *buf = NULL;
    size_t len = 0;
    if (!path) path = "(null)";
    FAIL_IF(!h || !m, STAGE_EINVAL, "%s: stage_write: NULL header or matrix", path);
    char why[4096];
    rc = stage_encode(h, m, &buf, &len, why, sizeof why);
    FAIL_IF(rc != STAGE_OK, rc, "%s: %s", path, why);
    if (durable_write_file(path, buf, len, why, sizeof why) != 0)
        FAIL(errno == ENOENT ? STAGE_ENOENT : errno == ENOMEM ? STAGE_ENOMEM : STAGE_EIO, "%s", why);
out:
    free(buf);
    return rc;
}


/* ---- reading --------------------------------------------------------------------------- */

/* Whole file into memory; the size is capped by the largest file a writer can produce. */
static int slurp(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen)
{
    int rc = STAGE_OK, fd = -1;
    struct stat st;
    unsigned char *p = NULL;
    size_t cap = ZSTD_compressBound((size_t)(STAGE_HEADER_SIZE + STAGE_MAX_BYTES));

    fd = open(path, O_RDONLY | O_CLOEXEC);
    FAIL_IF(fd < 0, errno == ENOENT ? STAGE_ENOENT : STAGE_EIO, "%s: cannot open: %s",
            path, strerror(errno));
    FAIL_IF(fstat(fd, &st) < 0, STAGE_EIO, "%s: fstat: %s", path, strerror(errno));
    FAIL_IF(!S_ISREG(st.st_mode), STAGE_EIO, "%s: not a regular file", path);
    FAIL_IF(st.st_size == 0, STAGE_ECORRUPT, "%s: empty file", path);
    FAIL_IF((uint64_t)st.st_size > cap, STAGE_ECORRUPT, "%s: file of %lld bytes exceeds the cap",
            path, (long long)st.st_size);
    size_t n = (size_t)st.st_size, got = 0;
    FAIL_IF(!(p = malloc(n)), STAGE_ENOMEM, "%s: out of memory (%zu bytes)", path, n);
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        FAIL_IF(k < 0, STAGE_EIO, "%s: read: %s", path, strerror(errno));
        FAIL_IF(k == 0, STAGE_ECORRUPT, "%s: file shrank while reading", path);
        got += (size_t)k;
    }
    *buf = p;
    *len = n;
    p = NULL;
out:
    if (fd >= 0) close(fd);
    free(p);
    return rc;
}

int stage_read(const char *path, stage_header *h, f2mat *m, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    unsigned char *file = NULL;
    size_t flen = 0;
    if (!path) path = "(null)";
    FAIL_IF(!h || !m, STAGE_EINVAL, "%s: stage_read: NULL header or matrix", path);
    FORWARD_IF_ERROR(slurp(path, &file, &flen, err, errlen));
    rc = stage_decode(path, file, flen, h, m, err, errlen);
out:
    free(file);
    return rc;
}

/* stage_decode into an F2 matrix (m, version 1) or an F_p one (mp, version 2): the one the
 * file's header names must be given. */
static int decode_any(const char *path, const unsigned char *file, size_t flen, stage_header *h, f2mat *m,
                      fpmat *mp, char *err, size_t errlen)
{
    int rc = STAGE_OK, done = 0, have_m = 0;
    unsigned char *chunk = NULL, hb[STAGE_HEADER_SIZE];
    ZSTD_DCtx *dc = NULL;
    stage_header x;
    f2mat mm = { 0 };
    fpmat pm = { 0 };
    int odd = 0;

    if (!path) path = "(memory)";
    FAIL_IF(!h || (!m && !mp) || (!file && flen), STAGE_EINVAL, "%s: stage_decode: NULL argument", path);
    /* The zstd frame: magic, content checksum flag, known content size, nothing after it. */
    FAIL_IF(flen < 6 || get32(file) != ZSTD_MAGIC, STAGE_ECORRUPT,
            "%s: not a zstd frame (bad magic)", path);
    FAIL_IF(!(file[4] & 0x04), STAGE_ECORRUPT, "%s: zstd frame has no content checksum", path);
    FAIL_IF(file[4] & 0x1B, STAGE_ECORRUPT, "%s: zstd frame descriptor has unused, reserved or "
            "dictionary bits set (0x%02x)", path, file[4]);
    unsigned long long csize = ZSTD_getFrameContentSize(file, flen);
    FAIL_IF(csize == ZSTD_CONTENTSIZE_ERROR, STAGE_ECORRUPT, "%s: bad zstd frame header", path);
    FAIL_IF(csize == ZSTD_CONTENTSIZE_UNKNOWN, STAGE_ECORRUPT,
            "%s: zstd frame header has no content size", path);
    size_t fsize = ZSTD_findFrameCompressedSize(file, flen);
    FAIL_IF(ZSTD_isError(fsize), STAGE_ECORRUPT, "%s: truncated or corrupt zstd frame: %s",
            path, ZSTD_getErrorName(fsize));
    FAIL_IF(fsize != flen, STAGE_ECORRUPT, "%s: %zu bytes of trailing data after the zstd frame",
            path, flen - fsize);
    FAIL_IF(csize < STAGE_HEADER_SIZE || csize > STAGE_HEADER_SIZE + STAGE_MAX_BYTES,
            STAGE_ECORRUPT, "%s: content size %llu out of range", path, csize);

    /* Decompress the header alone and check it before allocating the matrix. */
    FAIL_IF(!(dc = ZSTD_createDCtx()), STAGE_ENOMEM, "%s: out of memory", path);
    ZSTD_inBuffer in = { file, flen, 0 };
    ZSTD_outBuffer ho = { hb, sizeof hb, 0 };
    while (ho.pos < ho.size && !done) {
        size_t in0 = in.pos, out0 = ho.pos;
        size_t r = ZSTD_decompressStream(dc, &ho, &in);
        FAIL_IF(ZSTD_isError(r), STAGE_ECORRUPT, "%s: zstd: %s", path, ZSTD_getErrorName(r));
        done = r == 0;
        FAIL_IF(!done && in.pos == in0 && ho.pos == out0, STAGE_ECORRUPT, "%s: truncated", path);
    }
    FAIL_IF(ho.pos < ho.size, STAGE_ECORRUPT, "%s: content shorter than the header", path);
    FORWARD_IF_ERROR(stage_header_unpack(hb, &x, path, err, errlen));
    odd = x.prime != 2;
    FAIL_IF(odd && !mp, STAGE_EMISMATCH, "%s: a matrix over F_%" PRIu32 " (format version %u); F2 was expected",
            path, x.prime, x.version);
    FAIL_IF(!odd && !m, STAGE_EMISMATCH, "%s: a matrix over F2; one over an odd prime was expected", path);
    uint64_t total = payload_bytes_p(x.prime, x.rows, x.cols);
    FAIL_IF(csize != STAGE_HEADER_SIZE + total, STAGE_ECORRUPT,
            "%s: header says %" PRIu32 " x %" PRIu32 " (%" PRIu64 " payload bytes) but the "
            "frame holds %llu", path, x.rows, x.cols, total, csize - STAGE_HEADER_SIZE);

    FAIL_IF(odd ? fpmat_init(&pm, x.prime, x.rows, x.cols) != 0 : f2mat_init(&mm, x.rows, x.cols) != 0,
            STAGE_ENOMEM, "%s: out of memory for a %" PRIu32 " x %" PRIu32 " matrix", path, x.rows, x.cols);
    have_m = 1;
    size_t rowbytes = odd ? x.cols : f2vec_words(x.cols) * 8;
    uint64_t pos = 0;
    FAIL_IF(!(chunk = malloc(CHUNK)), STAGE_ENOMEM, "%s: out of memory", path);
    while (!done) {
        ZSTD_outBuffer o = { chunk, CHUNK, 0 };
        size_t in0 = in.pos;
        size_t r = ZSTD_decompressStream(dc, &o, &in);
        FAIL_IF(ZSTD_isError(r), STAGE_ECORRUPT, "%s: zstd: %s", path, ZSTD_getErrorName(r));
        done = r == 0;
        FAIL_IF(o.pos > total - pos, STAGE_ECORRUPT, "%s: more content than declared", path);
        for (size_t k = 0; k < o.pos;) {   /* scatter into the padded rows */
            uint64_t rix = pos / rowbytes;
            size_t off = (size_t)(pos % rowbytes), n = rowbytes - off;
            if (n > o.pos - k) n = o.pos - k;
            unsigned char *dst = odd ? fpmat_row(&pm, (uint32_t)rix) : (unsigned char *)f2mat_row(&mm, (uint32_t)rix);
            memcpy(dst + off, chunk + k, n);
            k += n;
            pos += n;
        }
        FAIL_IF(!done && in.pos == in0 && o.pos == 0, STAGE_ECORRUPT, "%s: truncated", path);
    }
    FAIL_IF(pos != total, STAGE_ECORRUPT, "%s: content %" PRIu64 " bytes short", path, total - pos);
    FAIL_IF(in.pos != in.size, STAGE_ECORRUPT, "%s: trailing data", path);

    for (uint32_t i = 0; odd && i < x.rows; i++) {
        const uint8_t *rw = fpmat_row(&pm, i);
        for (uint32_t col = 0; col < x.cols; col++)
            FAIL_IF(rw[col] >= x.prime, STAGE_ECORRUPT, "%s: row %" PRIu32 " has entry %u >= p = %" PRIu32 " at "
                    "column %" PRIu32, path, i, rw[col], x.prime, col);
    }
    size_t words = odd ? 0 : rowbytes / 8;
    uint64_t mask = x.cols & 63 ? ((uint64_t)1 << (x.cols & 63)) - 1 : ~(uint64_t)0;
    for (uint32_t i = 0; i < x.rows && words; i++) {
        uint64_t *rw = f2mat_row(&mm, i);
        words_le(rw, words);
        FAIL_IF(rw[words - 1] & ~mask, STAGE_ECORRUPT,
                "%s: row %" PRIu32 " has bits set beyond column %" PRIu32, path, i, x.cols);
    }
    *h = x;
    if (odd) *mp = pm;
    else *m = mm;
    have_m = 0;
out:
    if (have_m) {
        f2mat_clear(&mm);
        fpmat_clear(&pm);
    }
    ZSTD_freeDCtx(dc);
    free(chunk);
    return rc;
}

int stage_decode(const char *path, const unsigned char *file, size_t flen, stage_header *h,
                 f2mat *m, char *err, size_t errlen)
{
    if (!m && h) return decode_any(path, file, flen, NULL, NULL, NULL, err, errlen);   /* EINVAL */
    return decode_any(path, file, flen, h, m, NULL, err, errlen);
}

int stage_decode_p(const char *path, const unsigned char *file, size_t flen, stage_header *h, fpmat *m,
                   char *err, size_t errlen)
{
    if (!m && h) return decode_any(path, file, flen, NULL, NULL, NULL, err, errlen);
    return decode_any(path, file, flen, h, NULL, m, err, errlen);
}

int stage_read_any(const char *path, stage_header *h, f2mat *m, fpmat *mp, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    unsigned char *file = NULL;
    size_t flen = 0;
    if (!path) path = "(null)";
    FAIL_IF(!h || (!m && !mp), STAGE_EINVAL, "%s: stage_read: NULL header or matrix", path);
    FORWARD_IF_ERROR(slurp(path, &file, &flen, err, errlen));
    rc = decode_any(path, file, flen, h, m, mp, err, errlen);
out:
    free(file);
    return rc;
}

int stage_read_p(const char *path, stage_header *h, fpmat *m, char *err, size_t errlen)
{
    return stage_read_any(path, h, NULL, m, err, errlen);
}

int stage_expect(const stage_header *h, int kind, int s, int t, uint64_t module_id,
                 int algorithm, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    const char *fk = stage_kind_name(h->kind), *ek = stage_kind_name(kind);
    const char *fa = stage_algorithm_name(h->algorithm), *ea = stage_algorithm_name(algorithm);
    if (!fk) fk = "?";
    if (!ek) ek = "?";
    if (!fa) fa = "?";
    if (!ea) ea = "?";
    FAIL_IF(h->kind != kind || h->s != s || h->t != t, STAGE_EMISMATCH,
            "stage file is %s (s,t)=(%d,%d), expected %s (%d,%d)", fk,
            (int)h->s, (int)h->t, ek, s, t);
    FAIL_IF(h->module_id != module_id, STAGE_EMISMATCH,
            "stage file %s (%d,%d) is for module %016" PRIx64 ", expected %016" PRIx64
            " (another module or module definition)", fk, s, t, h->module_id, module_id);
    FAIL_IF(algorithm != STAGE_ALG_NONE && h->algorithm != algorithm, STAGE_EMISMATCH,
            "stage file %s (%d,%d) was written by algorithm %s, expected %s", fk, s, t, fa, ea);
out:
    return rc;
}

/* ---- paths ----------------------------------------------------------------------------- */

int stage_path(char *buf, size_t size, const char *outdir, int kind, int s, int t)
{
    const char *name = stage_kind_name(kind);
    if (!buf || !outdir || !name) return STAGE_EINVAL;
    int n = snprintf(buf, size, "%s/stages/%s/%d_%d.zst", outdir, name, s, t);
    return n < 0 || (size_t)n >= size ? STAGE_EINVAL : STAGE_OK;
}

static int mkdir_p(const char *dir, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    char *p = strdup(dir);
    struct stat st;
    FAIL_IF(!p, STAGE_ENOMEM, "%s: out of memory", dir);
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q) continue;
        char c = *q;
        *q = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            FAIL(errno == ENOENT ? STAGE_ENOENT : STAGE_EIO, "%s: mkdir: %s", p, strerror(errno));
        *q = c;
        if (!c) break;
    }
    FAIL_IF(stat(dir, &st) < 0 || !S_ISDIR(st.st_mode), STAGE_EIO, "%s: not a directory", dir);
out:
    free(p);
    return rc;
}

int stage_mkdirs(const char *outdir, unsigned kinds, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    char buf[PATH_MAX];
    FAIL_IF(!outdir || !*outdir, STAGE_EINVAL, "stage_mkdirs: empty output directory");
    for (int k = STAGE_DIFFERENTIAL; k <= STAGE_MATRIX; k++) {
        if (!(kinds & 1u << k)) continue;
        int n = snprintf(buf, sizeof buf, "%s/stages/%s", outdir, stage_kind_name(k));
        FAIL_IF(n < 0 || (size_t)n >= sizeof buf, STAGE_EINVAL, "%s: path too long", outdir);
        FORWARD_IF_ERROR(mkdir_p(buf, err, errlen));
    }
out:
    return rc;
}

/* ---- text ------------------------------------------------------------------------------ */

/* Rank by row reduction of a copy. */
static int64_t rank_of(const f2mat *m)
{
    f2mat copy;
    if (f2mat_copy(&copy, m) != 0) return -1;
    int64_t r = f2mat_rref(&copy, NULL);
    f2mat_clear(&copy);
    return r;
}

static void print_header(FILE *out, const char *path, const stage_header *h)
{
    fprintf(out, "file: %s\nversion: %u\nkind: %s\nprime: %" PRIu32 "\ns: %" PRId32 "\nt: %" PRId32
            "\nrows: %" PRIu32 "\ncols: %" PRIu32 "\naux: %" PRIu32 "\nalgorithm: %s\n"
            "module_id: 0x%016" PRIx64 "\n", path, h->version, stage_kind_name(h->kind), h->prime,
            h->s, h->t, h->rows, h->cols, h->aux, stage_algorithm_name(h->algorithm), h->module_id);
}

int stage_print(FILE *out, const char *path, int summary, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    stage_header h;
    f2mat m = { 0 };
    fpmat mp = { 0 };
    char *line = NULL;
    FORWARD_IF_ERROR(stage_read_any(path, &h, &m, &mp, err, errlen));
    print_header(out, path, &h);
    if (summary) {
        uint64_t nonzero = 0, cells = (uint64_t)h.rows * h.cols;
        int64_t rank;
        if (h.prime != 2) {     /* the rank by fpmat_rref on a copy */
            for (uint32_t i = 0; i < h.rows; i++)
                for (uint32_t c = 0; c < h.cols; c++) nonzero += fpmat_get(&mp, i, c) != 0;
            fpmat copy;
            FAIL_IF(fpmat_copy(&copy, &mp) != 0, STAGE_ENOMEM, "%s: out of memory computing the rank", path);
            rank = fpmat_rref(&copy, NULL);
            fpmat_clear(&copy);
        } else {
            for (uint32_t i = 0; i < h.rows; i++)
                for (size_t k = 0; k < f2vec_words(h.cols); k++)
                    nonzero += (uint64_t)__builtin_popcountll(f2mat_row(&m, i)[k]);
            rank = rank_of(&m);
        }
        FAIL_IF(rank < 0, STAGE_ENOMEM, "%s: out of memory computing the rank", path);
        fprintf(out, "shape: %" PRIu32 " x %" PRIu32 "\nrank: %" PRId64 "\n"
                "density: %.6f (%" PRIu64 " of %" PRIu64 " entries)\n", h.rows, h.cols, rank,
                cells ? (double)nonzero / (double)cells : 0.0, nonzero, cells);
    } else if (h.cols) {        /* a line of digits 0..p-1 a row */
        FAIL_IF(!(line = malloc((size_t)h.cols + 2)), STAGE_ENOMEM, "%s: out of memory", path);
        for (uint32_t i = 0; i < h.rows; i++) {
            for (uint32_t c = 0; c < h.cols; c++)
                line[c] = (char)('0' + (h.prime != 2 ? fpmat_get(&mp, i, c) : (uint32_t)f2mat_get(&m, i, c)));
            line[h.cols] = '\n';
            fwrite(line, 1, (size_t)h.cols + 1, out);
        }
    }
    FAIL_IF(ferror(out) || fflush(out) != 0, STAGE_EIO, "%s: error writing the listing", path);
out:
    free(line);
    f2mat_clear(&m);
    fpmat_clear(&mp);
    return rc;
}

static char *trim(char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n' || p[n - 1] == '\r')) p[--n] = 0;
    return p;
}

static int parse_u64(const char *v, uint64_t max, uint64_t *out)
{
    char *end;
    if (!*v || *v == '-' || *v == '+') return -1;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 0);
    if (errno || *end || x > max) return -1;
    *out = x;
    return 0;
}

static int parse_i32(const char *v, int32_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!*v || errno || *end || x < INT32_MIN || x > INT32_MAX) return -1;
    *out = (int32_t)x;
    return 0;
}

static int parse_name(const char *v, const char *(*name)(int), int lo, int hi)
{
    for (int k = lo; k <= hi; k++)
        if (!strcmp(v, name(k))) return k;
    uint64_t x;
    return parse_u64(v, (uint64_t)hi, &x) == 0 && x >= (uint64_t)lo ? (int)x : -1;
}

int stage_parse_matrix_text(FILE *in, stage_header *h, f2mat *m, char *err, size_t errlen)
{
    int rc = STAGE_OK, in_rows = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0;
    uint64_t *buf = NULL, hrows = UINT64_MAX, hcols = UINT64_MAX, v;
    size_t nrows = 0, bufcap = 0, words = 0, width = 0;
    stage_header x = { .version = STAGE_FORMAT_VERSION, .kind = STAGE_MATRIX, .prime = 2 };
    f2mat mm = { 0 };

    FAIL_IF(!in || !m, STAGE_EINVAL, "stage_parse_matrix_text: NULL argument");
    while ((len = getline(&line, &cap, in)) >= 0) {
        lineno++;
        FAIL_IF(strlen(line) != (size_t)len, STAGE_ECORRUPT, "line %ld: NUL byte", lineno);
        char *p = trim(line), *colon = strchr(p, ':');
        if (!*p || *p == '#') continue;
        if (colon) {
            FAIL_IF(in_rows, STAGE_ECORRUPT, "line %ld: 'key: value' after the matrix rows", lineno);
            *colon = 0;
            char *key = trim(p), *val = trim(colon + 1);
            int bad = 0, k;
            if (!strcmp(key, "version")) bad = parse_u64(val, 0xffff, &v) || v != STAGE_FORMAT_VERSION;
            else if (!strcmp(key, "kind")) { k = parse_name(val, stage_kind_name, 1, STAGE_LIFT); bad = k < 0; x.kind = (uint16_t)k; }
            else if (!strcmp(key, "algorithm")) { k = parse_name(val, stage_algorithm_name, 0, 2); bad = k < 0; x.algorithm = (uint16_t)k; }
            else if (!strcmp(key, "prime")) bad = parse_u64(val, UINT32_MAX, &v) || v != 2;
            else if (!strcmp(key, "s")) bad = parse_i32(val, &x.s);
            else if (!strcmp(key, "t")) bad = parse_i32(val, &x.t);
            else if (!strcmp(key, "aux")) { bad = parse_u64(val, UINT32_MAX, &v); x.aux = (uint32_t)v; }
            else if (!strcmp(key, "module_id")) bad = parse_u64(val, UINT64_MAX, &x.module_id);
            else if (!strcmp(key, "rows")) bad = parse_u64(val, STAGE_MAX_DIM, &hrows);
            else if (!strcmp(key, "cols")) bad = parse_u64(val, STAGE_MAX_DIM, &hcols);
            /* other keys (file, shape, rank, density, ...) are informational */
            FAIL_IF(bad, STAGE_ECORRUPT, "line %ld: bad value '%s' for %s", lineno, val, key);
            continue;
        }
        size_t n = strlen(p);
        FAIL_IF(strspn(p, "01") != n, STAGE_ECORRUPT,
                "line %ld: a matrix row may only hold '0' and '1'", lineno);
        if (!in_rows) {
            in_rows = 1;
            width = n;
            words = f2vec_words((uint32_t)(n > STAGE_MAX_DIM ? STAGE_MAX_DIM : n));
            FAIL_IF(n > STAGE_MAX_DIM, STAGE_ECORRUPT, "line %ld: row longer than 2^28", lineno);
            FAIL_IF(hcols != UINT64_MAX && hcols != n, STAGE_ECORRUPT,
                    "line %ld: row of %zu columns, header says cols: %" PRIu64, lineno, n, hcols);
        }
        FAIL_IF(n != width, STAGE_ECORRUPT, "line %ld: row of %zu columns, expected %zu",
                lineno, n, width);
        FAIL_IF(nrows >= STAGE_MAX_DIM || (hrows != UINT64_MAX && nrows >= hrows), STAGE_ECORRUPT,
                "line %ld: too many rows", lineno);
        FAIL_IF(memory_bytes((uint32_t)nrows + 1, (uint32_t)width) > STAGE_MAX_BYTES, STAGE_ECORRUPT,
                "line %ld: matrix exceeds the 8 GiB cap", lineno);
        if ((nrows + 1) * words > bufcap) {
            size_t nc = bufcap ? 2 * bufcap : 64 * words;
            uint64_t *nb = realloc(buf, nc * 8);
            FAIL_IF(!nb, STAGE_ENOMEM, "line %ld: out of memory", lineno);
            buf = nb;
            bufcap = nc;
        }
        uint64_t *r = buf + nrows * words;
        memset(r, 0, words * 8);
        for (size_t c = 0; c < n; c++)
            if (p[c] == '1') r[c >> 6] |= (uint64_t)1 << (c & 63);
        nrows++;
    }
    FAIL_IF(ferror(in), STAGE_EIO, "error reading the matrix text");
    if (hcols == UINT64_MAX) hcols = width;
    if (hrows == UINT64_MAX) hrows = nrows;
    FAIL_IF(hcols == 0 ? nrows != 0 : nrows != hrows, STAGE_ECORRUPT,
            "header says rows: %" PRIu64 ", found %zu rows", hrows, nrows);
    FAIL_IF(memory_bytes((uint32_t)hrows, (uint32_t)hcols) > STAGE_MAX_BYTES, STAGE_ECORRUPT,
            "matrix exceeds the 8 GiB cap");
    FAIL_IF(f2mat_init(&mm, (uint32_t)hrows, (uint32_t)hcols) != 0, STAGE_ENOMEM, "out of memory");
    for (size_t i = 0; i < nrows; i++) memcpy(f2mat_row(&mm, (uint32_t)i), buf + i * words, words * 8);
    x.rows = (uint32_t)hrows;
    x.cols = (uint32_t)hcols;
    if (h) *h = x;
    *m = mm;
out:
    free(line);
    free(buf);
    return rc;
}

static int remove_temporaries_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int removed = 0;
    char path[4352];
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".tmp.")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            removed += unlink(path) == 0;
        }
    closedir(d);
    return removed;
}

int stage_dir_has_files(const char *outdir, int kind)
{
    char dir[4200];
    const char *name = stage_kind_name(kind);
    if (!outdir || !name) return 1;
    snprintf(dir, sizeof dir, "%s/stages/%s", outdir, name);
    DIR *d = opendir(dir);
    if (!d) return errno != ENOENT;
    int any = 0;
    for (struct dirent *e; !any && (e = readdir(d)) != NULL;) any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return any;
}

int stage_remove_temporaries(const char *outdir)
{
    char dir[4200];
    int removed = remove_temporaries_in(outdir);
    snprintf(dir, sizeof dir, "%s/stages", outdir);
    removed += remove_temporaries_in(dir);
    for (int kind = STAGE_DIFFERENTIAL; kind <= STAGE_MATRIX; kind++) {
        snprintf(dir, sizeof dir, "%s/stages/%s", outdir, stage_kind_name(kind));
        removed += remove_temporaries_in(dir);
    }
    return removed;
}

/* The payload of an F2 matrix (version 1: its rows' words, little-endian, no padding) or of an
 * F_p one (version 2: its rows' bytes). */
static void fill_f2(unsigned char *payload, const void *mat)
{
    const f2mat *m = mat;
    size_t words = f2vec_words(m->cols);
    for (uint32_t i = 0; i < m->rows && words; i++) {
        uint64_t *dst = (uint64_t *)(void *)payload + (size_t)i * words;
        memcpy(dst, f2mat_row(m, i), words * 8);
        words_le(dst, words);
    }
}

static void fill_fp(unsigned char *payload, const void *mat)
{
    const fpmat *m = mat;
    for (uint32_t i = 0; i < m->rows && m->cols; i++) memcpy(payload + (size_t)i * m->cols, fpmat_row(m, i), m->cols);
}

/* Small frames (most stage files hold a few rows) reuse one compression context per thread:
 * making and clearing a fresh one cost more than the compression (tmf2 at stem 200: libzstd
 * 8% of the samples, 1.3% with a reused context). Large frames get a fresh context, so that no
 * thread keeps a large workspace. The bytes are the same either way (zstd starts each frame
 * afresh: ZSTD_compress2 resets the session). */
#define STAGE_CCTX_REUSE_BYTES (64u << 10)
static pthread_key_t cctx_key;
static pthread_once_t cctx_once = PTHREAD_ONCE_INIT;
static int cctx_key_ok;
static void cctx_free(void *cc) { ZSTD_freeCCtx(cc); }
static void cctx_key_make(void) { cctx_key_ok = pthread_key_create(&cctx_key, cctx_free) == 0; }

/* A context for raw_len bytes; *fresh: the caller frees it. */
static ZSTD_CCtx *cctx_for(size_t raw_len, int *fresh)
{
    *fresh = 1;
    if (raw_len > STAGE_CCTX_REUSE_BYTES || pthread_once(&cctx_once, cctx_key_make) != 0 || !cctx_key_ok)
        return ZSTD_createCCtx();
    ZSTD_CCtx *cc = pthread_getspecific(cctx_key);
    if (!cc && (cc = ZSTD_createCCtx()) && pthread_setspecific(cctx_key, cc) != 0) return cc;    /* fresh */
    *fresh = 0;
    return cc;
}

/* One zstd frame of [h with version, prime and shape set | payload filled by fill]. */
static int encode_content(const stage_header *h, uint32_t prime, uint32_t rows, uint32_t cols,
                          void (*fill)(unsigned char *, const void *), const void *m, void **buf, size_t *len,
                          char *err, size_t errlen)
{
    size_t raw_len = STAGE_HEADER_SIZE + (size_t)payload_bytes_p(prime, rows, cols);
    unsigned char *raw = malloc(raw_len);
    stage_header x = *h;
    x.version = version_for(prime);
    x.prime = prime;
    x.rows = rows;
    x.cols = cols;
    size_t cap = ZSTD_compressBound(raw_len);
    void *out = malloc(cap);
    int fresh;
    ZSTD_CCtx *cc = cctx_for(raw_len, &fresh);
    int rc = STAGE_ENOMEM;
    if (!raw || !out || !cc) {
        if (err) snprintf(err, errlen, "out of memory encoding a stage file (%u x %u)", rows, cols);
        goto done;
    }
    stage_header_pack(&x, raw);
    fill(raw + STAGE_HEADER_SIZE, m);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, STAGE_ZSTD_LEVEL);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    size_t n = ZSTD_compress2(cc, out, cap, raw, raw_len);
    if (ZSTD_isError(n)) {
        rc = STAGE_EIO;
        if (err) snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(n));
        goto done;
    }
    *buf = out;
    *len = n;
    out = NULL;
    rc = STAGE_OK;
done:
    if (fresh) ZSTD_freeCCtx(cc);
    free(raw);
    free(out);
    return rc;
}

int stage_encode(const stage_header *h, const f2mat *m, void **buf, size_t *len, char *err,
                 size_t errlen)
{
    *buf = NULL;
    *len = 0;
    size_t words = f2vec_words(m->cols);
    if (!stage_kind_name(h->kind) || !stage_algorithm_name(h->algorithm)) {
        if (err) snprintf(err, errlen, "stage_write: unknown kind %u or algorithm %u", h->kind, h->algorithm);
        return STAGE_EINVAL;
    }
    if (m->rows > STAGE_MAX_DIM || m->cols > STAGE_MAX_DIM || memory_bytes(m->rows, m->cols) > STAGE_MAX_BYTES) {
        if (err) snprintf(err, errlen, "stage_write: matrix %u x %u exceeds the caps", m->rows, m->cols);
        return STAGE_EINVAL;
    }
    uint64_t mask = m->cols & 63 ? ((uint64_t)1 << (m->cols & 63)) - 1 : ~(uint64_t)0;
    for (uint32_t i = 0; i < m->rows && words; i++)
        if (f2mat_row(m, i)[words - 1] & ~mask) {
            if (err) snprintf(err, errlen, "stage_write: row %u has bits beyond column %u (f2mat invariant broken)", i, m->cols);
            return STAGE_EINVAL;
        }
    return encode_content(h, 2, m->rows, m->cols, fill_f2, m, buf, len, err, errlen);
}

int stage_encode_p(const stage_header *h, const fpmat *m, void **buf, size_t *len, char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    if (!stage_kind_name(h->kind) || !stage_algorithm_name(h->algorithm)) {
        if (err) snprintf(err, errlen, "stage_write: unknown kind %u or algorithm %u", h->kind, h->algorithm);
        return STAGE_EINVAL;
    }
    if (m->p > STAGE_MAX_PRIME || !milnor_p_prime_ok(m->p) || m->rows > STAGE_MAX_DIM || m->cols > STAGE_MAX_DIM ||
        memory_bytes_p(m->p, m->rows, m->cols) > STAGE_MAX_BYTES) {
        if (err) snprintf(err, errlen, "stage_write: matrix %u x %u over F_%u exceeds the caps", m->rows, m->cols, m->p);
        return STAGE_EINVAL;
    }
    return encode_content(h, m->p, m->rows, m->cols, fill_fp, m, buf, len, err, errlen);
}

/* ---- journal of bidegrees with no new generator --------------------------------------- */

void stage_journal_record(unsigned char rec[STAGE_JOURNAL_RECORD], int s, int t, uint64_t module_id,
                          int algorithm)
{
    memset(rec, 0, STAGE_JOURNAL_RECORD);
    put32(rec, STAGE_JOURNAL_MAGIC);
    put16(rec + 4, STAGE_FORMAT_VERSION);
    put16(rec + 6, (uint16_t)algorithm);
    put32(rec + 8, (uint32_t)s);
    put32(rec + 12, (uint32_t)t);
    put64(rec + 16, module_id);
    put32(rec + 28, fnv1a32(rec, 28));
}

int stage_journal_path(char *buf, size_t size, const char *outdir)
{
    int n = snprintf(buf, size, "%s/stages/empty.log", outdir);
    return n < 0 || (size_t)n >= size ? STAGE_EINVAL : STAGE_OK;
}

long stage_journal_read(const char *outdir, uint64_t module_id, int algorithm,
                        void (*found)(int s, int t, void *ctx), void *ctx, long *bad)
{
    char path[4200];
    unsigned char rec[STAGE_JOURNAL_RECORD];
    long good = 0;
    *bad = 0;
    if (stage_journal_path(path, sizeof path, outdir) != STAGE_OK) return 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n;
    while ((n = fread(rec, 1, sizeof rec, f)) > 0) {
        int32_t s = (int32_t)get32(rec + 8), t = (int32_t)get32(rec + 12);
        int valid = n == sizeof rec && get32(rec) == STAGE_JOURNAL_MAGIC &&
                    get16(rec + 4) == STAGE_FORMAT_VERSION && get32(rec + 28) == fnv1a32(rec, 28) &&
                    get32(rec + 24) == 0 && s >= 0 && t >= s && t <= (int32_t)STAGE_MAX_DIM;
        if (!valid) {
            ++*bad;             /* a torn last record after a kill, or damage: recomputed */
            continue;
        }
        if (get64(rec + 16) != module_id || get16(rec + 6) != algorithm) {
            ++*bad;
            continue;
        }
        if (found) found(s, t, ctx);
        good++;
    }
    fclose(f);
    return good;
}

struct journal_keep {
    unsigned char *buf;
    size_t n, cap;
    uint64_t module_id;
    int algorithm;
};

static void keep_record(int s, int t, void *ctx)
{
    struct journal_keep *k = ctx;
    if (!k->buf) return;
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 256;
        unsigned char *nb = realloc(k->buf, cap * STAGE_JOURNAL_RECORD);
        if (!nb) {
            free(k->buf);
            k->buf = NULL;
            return;
        }
        k->buf = nb;
        k->cap = cap;
    }
    stage_journal_record(k->buf + k->n++ * STAGE_JOURNAL_RECORD, s, t, k->module_id, k->algorithm);
}

int stage_journal_rewrite(const char *outdir, uint64_t module_id, int algorithm, char *err,
                          size_t errlen)
{
    char path[4200];
    struct journal_keep k = { malloc(STAGE_JOURNAL_RECORD), 0, 1, module_id, algorithm };
    long bad;
    int rc = STAGE_OK;
    FAIL_IF(stage_journal_path(path, sizeof path, outdir) != STAGE_OK, STAGE_EINVAL, "%s: path too long", outdir);
    stage_journal_read(outdir, module_id, algorithm, keep_record, &k, &bad);
    FAIL_IF(!k.buf, STAGE_ENOMEM, "%s: out of memory", path);
    char why[4096];
    FAIL_IF(durable_write_file(path, k.buf, k.n * STAGE_JOURNAL_RECORD, why, sizeof why) != 0, STAGE_EIO,
            "cannot rewrite the journal: %s", why);
out:
    free(k.buf);
    return rc;
}

int stage_journal_print(FILE *out, const char *path, int summary, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    unsigned char rec[STAGE_JOURNAL_RECORD];
    FILE *f = fopen(path, "rb");
    FAIL_IF(!f, errno == ENOENT ? STAGE_ENOENT : STAGE_EIO, "%s: cannot open: %s", path, strerror(errno));
    fprintf(out, "# journal of bidegrees with no new generator\n");
    if (!summary) fprintf(out, "# s,t,algorithm,module_id,valid\n");
    size_t n;
    long bad = 0, good = 0;
    int32_t lo_s = INT32_MAX, hi_s = INT32_MIN, lo_t = INT32_MAX, hi_t = INT32_MIN;
    while ((n = fread(rec, 1, sizeof rec, f)) > 0) {
        int valid = n == sizeof rec && get32(rec) == STAGE_JOURNAL_MAGIC && get32(rec + 28) == fnv1a32(rec, 28);
        int32_t s = (int32_t)get32(rec + 8), t = (int32_t)get32(rec + 12);
        bad += !valid;
        good += valid;
        if (valid) {
            lo_s = s < lo_s ? s : lo_s, hi_s = s > hi_s ? s : hi_s;
            lo_t = t < lo_t ? t : lo_t, hi_t = t > hi_t ? t : hi_t;
        }
        if (!summary)
            fprintf(out, "%d,%d,%s,%016" PRIx64 ",%s\n", s, t,
                    stage_algorithm_name(get16(rec + 6)) ? stage_algorithm_name(get16(rec + 6)) : "?",
                    n == sizeof rec ? get64(rec + 16) : 0, valid ? "yes" : "NO");
    }
    fclose(f);
    if (summary) {
        fprintf(out, "kind: journal\nrecords: %ld\nvalid: %ld\ninvalid: %ld\n", good + bad, good, bad);
        if (good) fprintf(out, "s: %d..%d\nt: %d..%d\n", lo_s, hi_s, lo_t, hi_t);
    }
    FAIL_IF(bad, STAGE_ECORRUPT, "%s: %ld invalid records", path, bad);
out:
    return rc;
}

int stage_sniff(const char *path, int *journal, char *err, size_t errlen)
{
    int rc = STAGE_OK;
    unsigned char head[4];
    FILE *f = fopen(path, "rb");
    FAIL_IF(!f, errno == ENOENT ? STAGE_ENOENT : STAGE_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t n = fread(head, 1, sizeof head, f);
    int rerr = ferror(f);
    fclose(f);
    FAIL_IF(rerr, STAGE_EIO, "%s: cannot read: %s", path, strerror(errno));
    *journal = n == 0 || (n == sizeof head && get32(head) == STAGE_JOURNAL_MAGIC);
    FAIL_IF(!*journal && (n < sizeof head || get32(head) != ZSTD_MAGIC), STAGE_ECORRUPT,
            "%s: neither a stage file nor a journal of empty bidegrees (unknown first bytes)", path);
out:
    return rc;
}
