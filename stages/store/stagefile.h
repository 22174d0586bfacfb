/* stagefile.h — stage files: one F2 matrix per resolution step, saved so a run can resume.
 *
 * What is stored. A resolution step at bidegree (s,t) saves matrices over F2:
 *   differential (kind 1): rows = the new generators of F_s in degree t; row k = d(g_k) as a
 *                          vector of F_{s-1} in degree t (cols = dim F_{s-1,t});
 *   kernel (kind 2):       rows = a basis of ker(d_s : F_{s,t} -> F_{s-1,t}), in RREF
 *                          (cols = dim F_{s,t});
 *   matrix (kind 3):       a generic matrix (tests, `extflow pack`/`inspect` round trips);
 *   lift (kind 4):         one bidegree of a chain map lifting a class (stages/products/lift.h), under
 *                          stages/lift/<class>/; rows = generators of the source F_s in degree
 *                          t, row k = their image in the target (cols = its dim there).
 *
 * Layout (byte-by-byte spec and version log: schema/stage-files.md). A file is ONE zstd
 * frame, with content size and content checksum, whose content is
 *     [64-byte little-endian header][rows x ceil(cols/64) uint64 LE words]
 * each row packed as in f2mat (bit c%64 of word c/64 is column c, excess bits zero) but
 * without f2mat's stride padding. Header: "EXTFLOW\0", version, kind, prime, s, t, rows,
 * cols, aux, algorithm, module_id, zero reserved bytes, FNV-1a-32 of bytes 0..59 at 60.
 *
 * Writes (stage_write, the committer of stagecommit.h) go through stages/store/durable.h: to
 * "<path>.tmp.<pid>.<seq>", fdatasync'ed, renamed over <path>, the directory fsync'ed: a crash
 * never leaves a partial file under a final name. Lift files (kind 4) are the exception, a
 * cache: durable.h's cache mode, renamed whole but never synced (lift.c's write_cell), so a
 * machine crash can leave one damaged, and its reader names and recomputes it. Reads treat the file
 * as untrusted: every size is checked before it is used, every failure is a status code plus
 * a message naming the file, never a crash.
 *
 * Odd primes (format version 2, written by a resolution at p = 3, 5, ...): the same container
 * and header, prime = p, and a payload of rows x cols bytes, each entry 0..p-1 (fpmat's rows
 * without their padding). F2 files stay version 1, byte for byte as before; the *_p functions
 * read and write fpmat, the others f2mat, and each refuses (STAGE_EMISMATCH) the other's files.
 *
 * All functions return a stage_status; err (may be NULL) receives a message on failure.
 */
#ifndef EXTFLOW_STAGEFILE_H
#define EXTFLOW_STAGEFILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "algebra/f2mat.h"
#include "algebra/fpmat.h"

#define STAGE_FORMAT_VERSION 1                          /* F2: packed bits (every p = 2 file) */
#define STAGE_FORMAT_VERSION_P 2                        /* odd p: a byte per entry */
#define STAGE_MAX_PRIME      127                        /* = FPMAT_MAX_PRIME */
#define STAGE_HEADER_SIZE    64
#define STAGE_MAX_DIM        (UINT32_C(1) << 28)         /* cap on rows and on cols */
#define STAGE_MAX_BYTES      (UINT64_C(8) << 30)          /* cap on payload and on memory */
#define STAGE_ZSTD_LEVEL     3

/* Status codes. Pinned: values appear in logs, never renumber; append new ones at the end. */
enum stage_status {
    STAGE_OK        = 0,
    STAGE_ENOENT    = 1,   /* file (or directory) does not exist */
    STAGE_EIO       = 2,   /* I/O error: open/read/write/fsync/rename failed, not a file */
    STAGE_ECORRUPT  = 3,   /* not a valid stage file (truncated, bit flips, bad sizes) */
    STAGE_EMISMATCH = 4,   /* valid file, but another version/bidegree/module/kind */
    STAGE_ENOMEM    = 5,   /* out of memory */
    STAGE_EINVAL    = 6,   /* caller error: bad argument, buffer too small */
};
const char *stage_strerror(int status);

enum stage_kind { STAGE_DIFFERENTIAL = 1, STAGE_KERNEL = 2, STAGE_MATRIX = 3, STAGE_LIFT = 4 };
enum stage_algorithm { STAGE_ALG_NONE = 0, STAGE_ALG_STANDARD = 1, STAGE_ALG_NASSAU = 2 };

typedef struct stage_header {
    uint16_t version;      /* STAGE_FORMAT_VERSION */
    uint16_t kind;         /* enum stage_kind */
    uint32_t prime;        /* 2 */
    int32_t s, t;          /* bidegree */
    uint32_t rows, cols;   /* matrix shape */
    uint32_t aux;          /* kind-specific: cols (differential), 0 (kernel, matrix), key hash (lift) */
    uint16_t algorithm;    /* enum stage_algorithm */
    uint64_t module_id;    /* stage_hash64 of the module definition */
} stage_header;

/* Names: "differential"/"kernel"/"matrix"/"lift", "none"/"standard"/"nassau"; NULL if unknown. */
const char *stage_kind_name(int kind);
const char *stage_algorithm_name(int algorithm);

/* FNV-1a 64 of a byte string, for module_id. */
uint64_t stage_hash64(const void *data, size_t len);

/* Encode h exactly as given (magic and header checksum added) / decode and check a header
 * (magic, version, checksum, kind, prime, algorithm, reserved bytes, size caps). Exposed for
 * tests and tools; stage_write/stage_read use them. */
void stage_header_pack(const stage_header *h, unsigned char buf[STAGE_HEADER_SIZE]);
int stage_header_unpack(const unsigned char buf[STAGE_HEADER_SIZE], stage_header *h,
                        const char *path, char *err, size_t errlen);

/* Atomically write m under path. h gives kind, s, t, aux, algorithm, module_id; version,
 * prime, rows and cols are set here. m must keep the excess-bits-zero invariant. */
int stage_write(const char *path, const stage_header *h, const f2mat *m,
                char *err, size_t errlen);

/* The file's bytes in memory (one zstd frame), for a writer that does the I/O elsewhere
 * (stagecommit.h). *buf is malloc'ed. */
int stage_encode(const stage_header *h, const f2mat *m, void **buf, size_t *len, char *err,
                 size_t errlen);

/* Read and fully check a stage file. On success *h is filled and m is initialised
 * (f2mat_init; the caller f2mat_clear's it); on failure m is left untouched. */
int stage_read(const char *path, stage_header *h, f2mat *m, char *err, size_t errlen);

/* The same checks on a file's bytes already in memory (name is used in messages only);
 * what stage_read does after reading the file, and what the fuzzer drives. */
int stage_decode(const char *name, const unsigned char *file, size_t flen, stage_header *h,
                 f2mat *m, char *err, size_t errlen);

/* Odd p (version 2): the same over fpmat; m->p is the header's prime. stage_read_any fills m
 * for an F2 file, mp for an F_p one (either may be NULL: that kind is then a STAGE_EMISMATCH). */
int stage_encode_p(const stage_header *h, const fpmat *m, void **buf, size_t *len, char *err, size_t errlen);
int stage_read_p(const char *path, stage_header *h, fpmat *m, char *err, size_t errlen);
int stage_decode_p(const char *name, const unsigned char *file, size_t flen, stage_header *h, fpmat *m,
                   char *err, size_t errlen);
int stage_read_any(const char *path, stage_header *h, f2mat *m, fpmat *mp, char *err, size_t errlen);

/* STAGE_EMISMATCH unless h is for this kind, (s,t), module and algorithm
 * (algorithm STAGE_ALG_NONE = any). */
int stage_expect(const stage_header *h, int kind, int s, int t, uint64_t module_id,
                 int algorithm, char *err, size_t errlen);

/* "<outdir>/stages/<kindname>/<s>_<t>.zst"; STAGE_EINVAL if kind is unknown or buf small. */
int stage_path(char *buf, size_t size, const char *outdir, int kind, int s, int t);
/* Does outdir/stages/<kindname>/ hold any entry (1 also when it cannot be read, 0 when it is
 * missing or empty)? A fresh run's load skips its one open per bidegree when it holds none. */
int stage_dir_has_files(const char *outdir, int kind);
/* Removes temporaries ("*.tmp.*") a killed writer left in outdir and outdir/stages/<kind>/;
 * call it only while holding the directory's lock. Returns how many were removed. */
int stage_remove_temporaries(const char *outdir);
/* mkdir -p outdir/stages/<kindname> for each kind k with bit (1 << k) set in kinds (a run
 * creates differential/ always, kernel/ and matrix/ only when --keep-stages asks). */
int stage_mkdirs(const char *outdir, unsigned kinds, char *err, size_t errlen);

/* `extflow inspect FILE [--summary]`: header fields one per line ("key: value"), then either
 * the matrix (one row per line of '0'/'1') or, with summary, shape, rank and density. */
int stage_print(FILE *out, const char *path, int summary, char *err, size_t errlen);

/* Read the text stage_print writes (or bare lines of '0'/'1') back. Lines "key: value" before
 * the first row set the header (h may be NULL; rows:/cols:, when given, fix the shape), blank
 * lines and '#' comments are skipped. m is initialised on success only. */
int stage_parse_matrix_text(FILE *in, stage_header *h, f2mat *m, char *err, size_t errlen);

/* Journal of bidegrees that finished with no new generator: instead of one empty stage file
 * each (80% of all bidegrees), a record of 32 bytes in OUT/stages/empty.log, appended and
 * synced by the committer (schema/stage-files.md). Layout, little-endian: magic u32
 * "EXFJ", version u16, algorithm u16, s i32, t i32, module_id u64, reserved u32 = 0,
 * FNV-1a-32 of bytes 0..27. Invalid records (a torn append, damage) are skipped and counted. */
#define STAGE_JOURNAL_RECORD 32
#define STAGE_JOURNAL_MAGIC  UINT32_C(0x4A465845)   /* "EXFJ" */
void stage_journal_record(unsigned char rec[STAGE_JOURNAL_RECORD], int s, int t, uint64_t module_id,
                          int algorithm);
int stage_journal_path(char *buf, size_t size, const char *outdir);
/* Calls found(s, t) (if not NULL) for every valid record of this module and algorithm; returns how many;
 * *bad counts the records skipped. A missing journal is empty. */
long stage_journal_read(const char *outdir, uint64_t module_id, int algorithm,
                        void (*found)(int s, int t, void *ctx), void *ctx, long *bad);
/* `extflow inspect .../empty.log`: one line per record (s,t,algorithm,module_id,valid), or
 * with summary the record counts and the range of the valid records' s and t. */
int stage_journal_print(FILE *out, const char *path, int summary, char *err, size_t errlen);
/* What a file is, from its first bytes (never its name): *journal = 0 for a stage file (a zstd
 * frame), 1 for a journal (its first record's magic, or an empty file: a journal with no
 * record). STAGE_ECORRUPT for anything else. */
int stage_sniff(const char *path, int *journal, char *err, size_t errlen);
/* Rewrites the journal with its valid records of this module and algorithm only (atomic:
 * temporary, fsync, rename); call it while holding the directory's lock. */
int stage_journal_rewrite(const char *outdir, uint64_t module_id, int algorithm, char *err,
                          size_t errlen);

#endif
