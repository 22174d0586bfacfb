/* fpmat_m4rm.c — RREF over F_p by a table of combinations of pivot rows (the method of the
 * four Russians carried from F2 to F_p; fpmat.h, docs/algorithms.md §10).
 *
 * The elimination goes in panels of at most k pivots. A panel's pivots are found as in
 * Gauss-Jordan, but only the panel's own pivot rows are kept reduced against each other: a
 * candidate row's entry at a column, as it would be after reduction by the panel's pivot rows
 * P_0 .. P_{j-1} (1 at their pivot column pc_i, 0 at the others'), is
 * x[c] - sum_i x[pc_i] P_i[c], a scalar read without touching the row. When a pivot is found,
 * its row alone is reduced, normalised, and cleared out of the earlier P_i. Then the table
 * T[a] = sum_i a_i P_i for every a in F_p^j (index sum_i a_i p^i, p^j rows) is built, and every
 * other row x becomes x + T[a] with a_i = -x[pc_i]: one row addition per row and panel, where
 * Gauss-Jordan does up to j. A table costs p^j row additions; a panel whose rows to clear are
 * few (sparse matrices, early on) is cleared pivot by pivot instead, whichever adds fewer bytes:
 * pivot by pivot, each addition of a multiple of P_q runs over P_q's own non-zero blocks, not
 * the whole panel's (in the sparse [D | 0 | I] the panel's rows are non-zero in different
 * places, and most panels are cleared this way).
 *
 * Rows at or below the rank are zero left of the panel's first column, so every addition runs
 * from that column's 32-byte block on, and only over the runs of 32-byte blocks where one of
 * the panel's pivot rows is non-zero (adding zeros changes nothing): in the sparse [D | 0 | I]
 * of a resolution most blocks of the identity's part are zero in a panel's rows. A row's
 * index is read in one byte multiply-add where the panel's columns lie within 16 bytes.
 *
 * Rows without a pivot wait in lists by their lead (first non-zero column), so a panel reads
 * only the rows with an entry in its columns, the rows of the lists it passes: in the sparse
 * staircase [D | 0 | I] a panel of 4 pivots has some 60-90 such rows among 2000, which a scan
 * of every row (leads, pivot search, indices) cost more than the additions. A lead is found
 * again, by one scan, after each addition to its row. Rows do not move during the elimination:
 * the q-th pivot row is remembered, and the rows are put in the contract's order once at the
 * end (pivot rows by pivot column, then the zero rows). Among a column's candidates the pivot
 * is the row that panels have added to the fewest times, the first in the input among those:
 * any choice gives the same RREF, but a row added to often has filled in, and as a pivot it
 * spreads that fill to every row it clears (taking the candidates in their lists' order cost
 * 2.4 times the additions of the first in the input on S_3's [D | 0 | I]; the fewest
 * additions, 4-6% fewer instructions than the first in the input).
 *
 * The RREF is unique, so the bytes and pivots are fpmat_rref_naive's.
 *
 * fpmat_rref_split does less where less is read: a resolution's step wants from [D | 0 | I]
 * D's pivot columns and the kernel, the rows whose D part vanishes, in RREF. Left of split
 * (the identity's first column) a panel clears only the rows below it, which leaves the rows
 * with a pivot in D in echelon form: the same pivot columns, as a row operation never moves
 * one. From split on it clears only the rows from the first without a pivot in D: those are
 * the kernel's basis, and among themselves they end in RREF, which is unique, so the kernel is
 * the full RREF's byte for byte. What is skipped, clearing the rows above each pivot, makes
 * the rows with a pivot in D reduced and their I part the quasi-inverse, read by no step. */
#include "algebra/fpmat.h"

#include <stdlib.h>
#include <string.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif

#define M4RM_MAX_K 8
#define M4RM_MAX_TABLE 4096           /* rows of a table: p^k at most this */

/* dst = a + b mod p over n bytes, n a multiple of 32, all three 32-byte aligned (dst may be a). */
static inline void add3(uint8_t *dst, const uint8_t *a, const uint8_t *b, size_t n, uint32_t p)
{
    size_t k = 0;
#ifdef __AVX2__
    const __m256i pv = _mm256_set1_epi8((char)p);
    for (; k < n; k += 32) {
        __m256i t = _mm256_add_epi8(_mm256_load_si256((const __m256i *)(a + k)),
                                    _mm256_load_si256((const __m256i *)(b + k)));
        _mm256_store_si256((__m256i *)(dst + k), _mm256_min_epu8(t, _mm256_sub_epi8(t, pv)));
    }
#endif
    for (; k < n; ++k) {
        uint32_t t = (uint32_t)a[k] + b[k];
        dst[k] = (uint8_t)(t >= p ? t - p : t);
    }
}

/* dst = c·src mod p over n bytes (c < p; n a multiple of 32; dst may be src): below 16 a
 * byte shuffle reads c·y from a 16-entry table, else one product at a time. */
static void mulvec(uint8_t *dst, const uint8_t *src, uint32_t c, size_t n, uint32_t p)
{
    size_t k = 0;
#ifdef __AVX2__
    if (p <= 16) {
        uint8_t t[16] = { 0 };
        for (uint32_t y = 0; y < p; ++y) t[y] = (uint8_t)(c * y % p);
        const __m256i tv = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
        for (; k < n; k += 32)
            _mm256_store_si256((__m256i *)(dst + k),
                               _mm256_shuffle_epi8(tv, _mm256_load_si256((const __m256i *)(src + k))));
    }
#endif
    for (; k < n; ++k) dst[k] = (uint8_t)(src[k] * c % p);
}

/* dst += c·src mod p over n bytes (c < p), through tmp. */
static void addmul(uint8_t *dst, const uint8_t *src, uint32_t c, size_t n, uint32_t p, uint8_t *tmp)
{
    if (c == 0) return;
    if (c == 1) { add3(dst, dst, src, n, p); return; }
    mulvec(tmp, src, c, n, p);
    add3(dst, dst, tmp, n, p);
}

/* A run of 32-byte blocks, [start, end) as byte offsets in a row. */
struct run { size_t start, end; };

/* dst = a + b mod p on the runs (dst may be a). */
static void add_runs(uint8_t *dst, const uint8_t *a, const uint8_t *b, const struct run *runs, uint32_t nruns,
                     uint32_t p)
{
    for (uint32_t u = 0; u < nruns; ++u)
        add3(dst + runs[u].start, a + runs[u].start, b + runs[u].start, runs[u].end - runs[u].start, p);
}

/* A row's lead, its first non-zero column (cols for a zero row): read from column `from` on
 * (the row is zero left of it) in 32-byte blocks; the bytes from cols on are zero. */
static inline uint32_t scan_lead(const uint8_t *row, uint32_t from, size_t stride, uint32_t cols)
{
    for (size_t b = from & ~(size_t)31; b < stride; b += 32) {
#ifdef __AVX2__
        __m256i v = _mm256_load_si256((const __m256i *)(row + b));
        uint32_t nz = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
        if (nz) return (uint32_t)b + (uint32_t)__builtin_ctz(nz);
#else
        for (size_t e = 0; e < 32; ++e)
            if (row[b + e]) return (uint32_t)(b + e);
#endif
    }
    return cols;
}

/* The default k: the panel width that makes table plus rows the fewest additions per pivot,
 * k·n / (p^k + n) largest, for n rows to clear. n is a quarter of the rows: about as many as
 * a panel touches in a resolution's [D | 0 | I] (docs/perf-log.md, "F_p row reduction by
 * tables"), where k = 4 at p = 3 took the fewest instructions. */
static int default_k(uint32_t p, uint32_t rows)
{
    int best = 1;
    double best_gain = 0;
    uint32_t pk = 1;
    for (int k = 1; k <= M4RM_MAX_K; ++k) {
        if ((uint64_t)pk * p > M4RM_MAX_TABLE) break;
        pk *= p;
        double gain = (double)k * rows / ((double)pk + rows);
        if (gain > best_gain) { best_gain = gain; best = k; }
    }
    return best;
}

/* The elimination of every entry point: columns left of split are cleared out of the rows
 * below each panel only (an echelon form), those from split on out of every row whose pivot
 * lies at or right of split (the rows above, with their pivots left of split, keep whatever
 * they hold there). split = 0 is the RREF. */
static int m4rm(fpmat *m, int32_t *pivots, int k, uint32_t split, int sort);

int fpmat_rref_m4rm(fpmat *m, int32_t *pivots) { return m4rm(m, pivots, 0, 0, 1); }
int fpmat_rref_m4rm_tuned(fpmat *m, int32_t *pivots, int k) { return m4rm(m, pivots, k, 0, 1); }
int fpmat_rref_split(fpmat *m, uint32_t split, int32_t *pivots)
{
    return m4rm(m, pivots, 0, split < m->cols ? split : m->cols, 1);
}
int fpmat_rref_split_unsorted(fpmat *m, uint32_t split, int32_t *pivot_rows)
{
    return m4rm(m, pivot_rows, 0, split < m->cols ? split : m->cols, 0);
}

/* Row i's index in the panel's table: b = sum_q x[pc_q] p^q (the table's index is -b's). */
static inline uint32_t panel_digits(const uint8_t *row, const uint32_t *pc, const uint32_t *pw, int j)
{
    uint32_t b = 0;
    for (int q = 0; q < j; ++q) b += row[pc[q]] * pw[q];
    return b;
}

/* Puts the rows in their final order: row i of the input goes to dest[i] (a permutation), by
 * its cycles through one spare row. */
static void permute_rows(fpmat *m, uint32_t *dest, uint8_t *spare)
{
    const size_t stride = m->stride;
    for (uint32_t i = 0; i < m->rows; ++i) {
        if (dest[i] == i) continue;
        /* the cycle through i: carry row i's bytes along it until they come back to i */
        memcpy(spare, fpmat_row(m, i), stride);
        uint32_t at = i;
        while (dest[at] != i) {
            /* the row that goes to `at`: the one whose dest is at; walk the cycle backwards by
             * carrying forwards instead: swap spare with the row at dest[at] */
            uint32_t to = dest[at];
            uint8_t *r = fpmat_row(m, to);
            for (size_t b = 0; b < stride; b += 32) {
                uint8_t t[32];
                memcpy(t, r + b, 32);
                memcpy(r + b, spare + b, 32);
                memcpy(spare + b, t, 32);
            }
            dest[at] = at;
            at = to;
        }
        memcpy(fpmat_row(m, i), spare, stride);
        dest[at] = at;
    }
}

/* The elimination's state: the matrix, the buffers (one allocation, freed by m4rm_free)
 * and the tables of F_p read per entry. */
struct m4rm {
    fpmat *m;
    uint32_t p, rows, cols, split, pk;
    size_t stride, tstride, maxruns;
    int k;
    uint8_t *table, *tmp;
    uint32_t *idx, *lead, *prow, *cand;
    uint32_t *touch;            /* the panels that added to each row */
    int32_t *next, *head;
    struct run *runs;           /* the union's, then each row's */
    uint16_t *negidx;
    uint8_t *dmask;
    uint8_t inv[FPMAT_MAX_PRIME + 1], neg[FPMAT_MAX_PRIME + 1];
    uint32_t pw[M4RM_MAX_K + 1];
};

/* One panel: its pivots (columns pc, rows pr), the candidates it read, and the columns its
 * rows can change: the runs of 32-byte blocks from c0 on where one of them is non-zero (the
 * table's: runs, nruns, ulen bytes) and each row's own (runq[q], nrq[q], lenq[q] bytes). */
struct panel {
    size_t c0;
    int j;
    uint32_t pc[M4RM_MAX_K], ncand, nruns, nrq[M4RM_MAX_K];
    uint8_t *pr[M4RM_MAX_K];
    uint64_t ulen, lenq[M4RM_MAX_K], masklen[1u << M4RM_MAX_K];
    struct run *runq[M4RM_MAX_K];
};

/* The buffers are one allocation, the table first (m4rm_init). */
static void m4rm_free(struct m4rm *w) { free(w->table); }

/* k (at most M4RM_MAX_K, p^k at most M4RM_MAX_TABLE), the buffers, the tables, and every
 * non-zero row in the list of its lead: 0, or -1 out of memory (nothing left allocated). The
 * buffers share one 64-byte aligned allocation (a reduction is called some ten thousand times
 * per run on small blocks, where twelve allocations and frees cost a quarter of its time). */
static int m4rm_init(struct m4rm *w, fpmat *m, int k, uint32_t split)
{
    const uint32_t p = m->p, rows = m->rows, cols = m->cols;
    const size_t stride = m->stride;
    if (k <= 0) k = default_k(p, rows / 4 + 1);
    if (k > M4RM_MAX_K) k = M4RM_MAX_K;
    uint32_t pk = 1;
    for (int i = 0; i < k; ++i) {
        if ((uint64_t)pk * p > M4RM_MAX_TABLE) { k = i; break; }
        pk *= p;
    }
    if (k < 1) k = 1;
    *w = (struct m4rm){ .m = m, .p = p, .rows = rows, .cols = cols, .split = split, .pk = pk,
                        .stride = stride, .tstride = stride ? stride : 64, .k = k };
    w->maxruns = w->tstride / 32 + 1;
    const size_t nr = (size_t)rows + 1;
    /* byte sizes, in the order of the pieces below; each piece starts on 64 bytes */
    const size_t size[] = { (size_t)pk * w->tstride, w->tstride, nr * sizeof *w->idx, nr * sizeof *w->lead,
                            nr * sizeof *w->prow, nr * sizeof *w->cand, nr * sizeof *w->touch,
                            nr * sizeof *w->next, ((size_t)cols + 1) * sizeof *w->head,
                            (size_t)(k + 1) * w->maxruns * sizeof *w->runs, pk * sizeof *w->negidx, pk };
    enum { NPIECES = sizeof size / sizeof *size };
    size_t at[NPIECES], total = 0;
    for (int i = 0; i < NPIECES; ++i) {
        at[i] = total;
        total += (size[i] + 63) & ~(size_t)63;
    }
    uint8_t *base = aligned_alloc(64, total ? total : 64);
    if (!base) return -1;
    w->table = base;
    w->tmp = base + at[1];
    w->idx = (uint32_t *)(base + at[2]);
    w->lead = (uint32_t *)(base + at[3]);
    w->prow = (uint32_t *)(base + at[4]);
    w->cand = (uint32_t *)(base + at[5]);
    w->touch = (uint32_t *)(base + at[6]);
    w->next = (int32_t *)(base + at[7]);
    w->head = (int32_t *)(base + at[8]);
    w->runs = (struct run *)(base + at[9]);
    w->negidx = (uint16_t *)(base + at[10]);
    w->dmask = base + at[11];
    memset(w->touch, 0, size[6]);
    for (uint32_t a = 1; a < p; ++a) w->inv[a] = (uint8_t)fp_inverse(a, p);
    for (uint32_t a = 0; a < p; ++a) w->neg[a] = (uint8_t)(a ? p - a : 0);
    w->pw[0] = 1;
    for (int i = 1; i <= k; ++i) w->pw[i] = w->pw[i - 1] * p;
    /* for b = sum_q b_q p^q < p^k: negidx[b] = sum_q (-b_q mod p) p^q, dmask[b] = the set of q
     * with b_q non-zero (bit q) */
    for (uint32_t b = 0; b < pk; ++b) {
        uint32_t a = 0, mask = 0;
        for (int q = 0; q < k; ++q) {
            uint32_t d = b / w->pw[q] % p;
            a += w->neg[d] * w->pw[q];
            mask |= (uint32_t)(d != 0) << q;
        }
        w->negidx[b] = (uint16_t)a;
        w->dmask[b] = (uint8_t)mask;
    }
    /* Rows stay where they are until the end. prow[q] is the row of the q-th pivot; every other
     * non-zero row waits in the list of its lead column (head[c], linked by next), so a panel
     * reads only the rows with an entry in its columns: rows whose lead lies right of the
     * panel are zero there. */
    for (uint32_t c = 0; c <= cols; ++c) w->head[c] = -1;
    for (uint32_t i = rows; i-- > 0;) {
        w->lead[i] = scan_lead(fpmat_row(m, i), 0, stride, cols);
        if (w->lead[i] < cols) {
            w->next[i] = w->head[w->lead[i]];
            w->head[w->lead[i]] = (int32_t)i;
        }
    }
    return 0;
}

/* The panel's pivots, from column *c (a lead) up to end, k at most: the rows of the lists it
 * passes become its candidates; each pivot row is reduced by the earlier ones, normalised, and
 * cleared out of them. Returns the number of pivots j (0: none left of end); *c ends past the
 * panel's last column. */
static int select_panel(struct m4rm *w, struct panel *P, uint32_t *cp, uint32_t end, uint32_t rank)
{
    const uint32_t p = w->p, rows = w->rows;
    const size_t stride = w->stride;
    uint32_t *const cand = w->cand, *const touch = w->touch;
    const uint8_t *const neg = w->neg;
    uint32_t c = *cp, ncand = 0;
    const size_t c0 = c & ~(size_t)31;      /* the panel's first block */
    int j = 0;
    for (; c < end && j < w->k && rank + (uint32_t)j < rows; ++c) {
        for (int32_t i = w->head[c]; i >= 0; i = w->next[i]) cand[ncand++] = (uint32_t)i;
        w->head[c] = -1;
        if (!ncand) continue;
        /* column c, the panel's pivots so far: pcol[i] = P_i[c]; a candidate's entry as it
         * would be after reduction by them, x[c] - sum_i x[pc_i] P_i[c] */
        uint8_t pcol[M4RM_MAX_K];
        int any = 0;
        for (int i = 0; i < j; ++i) any |= pcol[i] = P->pr[i][c];
        uint32_t u = ncand;
        for (uint32_t v = 0; v < ncand; ++v) {
            if (u < ncand && (touch[cand[v]] > touch[cand[u]] ||
                              (touch[cand[v]] == touch[cand[u]] && cand[v] > cand[u])))
                continue;
            const uint8_t *row = fpmat_row(w->m, cand[v]);
            uint32_t x = row[c];
            if (any) {
                for (int i = 0; i < j; ++i) x += (uint32_t)neg[row[P->pc[i]]] * pcol[i];
                x %= p;
            }
            if (x) u = v;
        }
        if (u == ncand) continue;
        const uint32_t r = cand[u];
        cand[u] = cand[--ncand];
        uint8_t *x = fpmat_row(w->m, r);
        size_t len = stride - c0;
        for (int i = 0; i < j; ++i) addmul(x + c0, P->pr[i] + c0, neg[x[P->pc[i]]], len, p, w->tmp);
        if (x[c] != 1) mulvec(x + c0, x + c0, w->inv[x[c]], len, p);
        for (int i = 0; i < j; ++i) addmul(P->pr[i] + c0, x + c0, neg[P->pr[i][c]], len, p, w->tmp);
        P->pc[j] = c;
        P->pr[j] = x;
        w->prow[rank + (uint32_t)j] = r;
        ++j;
    }
    *cp = c;
    P->c0 = c0;
    P->j = j;
    P->ncand = ncand;
    return j;
}

/* The columns the panel's rows can change (struct panel), and masklen[S] = the bytes of the
 * rows q in S. */
static void panel_runs(const struct m4rm *w, struct panel *P)
{
    const int j = P->j;
    const size_t stride = w->stride, maxruns = w->maxruns;
    struct run *const runs = w->runs;
    uint32_t nruns = 0;
    uint64_t ulen = 0;
    for (int q = 0; q < j; ++q) {
        P->runq[q] = runs + (size_t)(q + 1) * maxruns;
        P->nrq[q] = 0;
        P->lenq[q] = 0;
    }
    for (size_t b = P->c0; b < stride; b += 32) {
        int nz = 0;
        for (int q = 0; q < j; ++q) {
            const uint64_t *x = (const uint64_t *)(P->pr[q] + b);
            if (!(x[0] | x[1] | x[2] | x[3])) continue;
            nz = 1;
            P->lenq[q] += 32;
            if (P->nrq[q] && P->runq[q][P->nrq[q] - 1].end == b) P->runq[q][P->nrq[q] - 1].end = b + 32;
            else P->runq[q][P->nrq[q]++] = (struct run){ b, b + 32 };
        }
        if (!nz) continue;
        ulen += 32;
        if (nruns && runs[nruns - 1].end == b) runs[nruns - 1].end = b + 32;
        else runs[nruns++] = (struct run){ b, b + 32 };
    }
    P->nruns = nruns;
    P->ulen = ulen;
    P->masklen[0] = 0;
    for (uint32_t S = 1; S < 1u << j; ++S)
        P->masklen[S] = P->masklen[S & (S - 1)] + P->lenq[__builtin_ctz(S)];
}

/* The row to clear number v: the pivot rows prow[first ..] (nabove of them), then the
 * candidates. */
static inline uint8_t *clear_row(const struct m4rm *w, uint32_t first, uint32_t nabove, uint32_t v)
{
    return fpmat_row(w->m, v < nabove ? w->prow[first + v] : w->cand[v - nabove]);
}

/* Each row to clear's table index idx[v] (a_q = -x[pc_q]), read in one multiply-add of 16
 * bytes where the panel's columns lie within 16 and its weights p^q fit a signed byte, else
 * entry by entry; *direct = the bytes clearing pivot by pivot would add, *touched = the rows
 * with a non-zero index. */
static void panel_indices(const struct m4rm *w, const struct panel *P, uint32_t first, uint32_t nabove,
                          uint64_t *direct_out, uint64_t *touched_out)
{
    const int j = P->j;
    const uint32_t *const pc = P->pc, *const pw = w->pw;
    uint32_t *const idx = w->idx;
    uint64_t direct = 0, touched = 0;
    int wide = pc[j - 1] - pc[0] >= 16 || pc[0] + 16 > w->stride || pw[j - 1] > 127;
#ifdef __AVX2__
    int8_t wt[16] = { 0 };
    for (int q = 0; q < j && !wide; ++q) wt[pc[q] - pc[0]] = (int8_t)pw[q];
    const __m128i wv = _mm_loadu_si128((const __m128i *)wt), ones = _mm_set1_epi16(1);
#endif
    for (uint32_t v = 0; v < nabove + P->ncand; ++v) {
        const uint8_t *row = clear_row(w, first, nabove, v);
        uint32_t b;
#ifdef __AVX2__
        if (!wide) {
            __m128i s = _mm_madd_epi16(_mm_maddubs_epi16(_mm_loadu_si128((const __m128i *)(row + pc[0])), wv), ones);
            s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
            s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
            b = (uint32_t)_mm_cvtsi128_si32(s);
        } else
#endif
            b = panel_digits(row, pc, pw, j);
        idx[v] = w->negidx[b];
        direct += P->masklen[w->dmask[b]];
        touched += b != 0;
    }
    *direct_out = direct;
    *touched_out = touched;
}

/* The table T[a] for a < p^(q+1) from T[a - p^q] + P_q, T[0] = 0, over the table's runs (full),
 * or only the multiples T[a p^q] = a P_q over each row's own runs. */
static void build_table(const struct m4rm *w, const struct panel *P, int full)
{
    const size_t tstride = w->tstride;
    uint8_t *const table = w->table;
    const uint32_t *const pw = w->pw;
    for (uint32_t u = 0; u < P->nruns; ++u)
        memset(table + w->runs[u].start, 0, w->runs[u].end - w->runs[u].start);
    for (int q = 0; q < P->j; ++q)
        for (uint32_t a = pw[q]; a < pw[q + 1]; a += full ? 1 : pw[q])
            add_runs(table + (size_t)a * tstride, table + (size_t)(a - pw[q]) * tstride, P->pr[q],
                     full ? w->runs : P->runq[q], full ? P->nruns : P->nrq[q], w->p);
}

/* Every row to clear x becomes x + T[idx]: one addition over the table's runs (full), or one
 * per non-zero digit, over that pivot row's runs. */
static void update_rows(const struct m4rm *w, const struct panel *P, uint32_t first, uint32_t nabove, int full)
{
    const uint32_t p = w->p, *const pw = w->pw, *const idx = w->idx;
    const size_t tstride = w->tstride;
    for (uint32_t v = 0; v < nabove + P->ncand; ++v) {
        if (!idx[v]) continue;
        uint8_t *row = clear_row(w, first, nabove, v);
        if (full) {
            add_runs(row, row, w->table + (size_t)idx[v] * tstride, w->runs, P->nruns, p);
            continue;
        }
        for (int q = 0; q < P->j; ++q) {
            uint32_t a = idx[v] / pw[q] % p;
            if (a) add_runs(row, row, w->table + (size_t)a * pw[q] * tstride, P->runq[q], P->nrq[q], p);
        }
    }
}

/* The candidates, cleared, wait in the list of their new lead (zero rows in none). */
static void requeue(struct m4rm *w, const struct panel *P, uint32_t nabove)
{
    for (uint32_t u = 0; u < P->ncand; ++u) {
        const uint32_t i = w->cand[u], a = w->idx[nabove + u];
        w->touch[i] += a != 0;
        uint32_t l = a ? scan_lead(fpmat_row(w->m, i), P->pc[0], w->stride, w->cols) : w->lead[i];
        w->lead[i] = l;
        if (l < w->cols) {
            w->next[i] = w->head[l];
            w->head[l] = (int32_t)i;
        }
    }
}

static int m4rm(fpmat *m, int32_t *pivots, int k, uint32_t split, int sort)
{
    struct m4rm w;
    if (m4rm_init(&w, m, k, split) < 0) return -1;
    const uint32_t p = w.p, rows = w.rows, cols = w.cols;
    if (pivots)
        for (uint32_t c = 0; c < cols; ++c) pivots[c] = -1;
    uint32_t rank = 0, c = 0, top = 0;  /* from split on, the pivot rows from top on are cleared */
    int past = 0;
    struct panel P;
    while (c < cols && rank < rows) {
        const uint32_t end = c < split ? split : cols;  /* a panel lies on one side of split */
        if (c >= split && !past) {
            past = 1;
            top = rank;
        }
        while (c < end && w.head[c] < 0) ++c;          /* no row has its lead here */
        if (c >= end) continue;
        const int j = select_panel(&w, &P, &c, end, rank);
        if (j == 0) continue;          /* no pivot left of end: c = end, go on past split */
        panel_runs(&w, &P);
        /* the rows to clear: the candidates (every row with an entry in the panel's columns),
         * and from split on the pivot rows from top on */
        const uint32_t first = P.pc[0] < split ? rank : top, nabove = rank - first;
        uint64_t direct, touched;
        panel_indices(&w, &P, first, nabove, &direct, &touched);
        if (P.nruns && touched) {
            /* the table then one addition per row, or pivot by pivot: whichever adds fewer
             * bytes */
            uint64_t multiples = 0;
            for (int q = 0; q < j; ++q) multiples += (uint64_t)(p - 1) * P.lenq[q];
            int full = (touched + w.pw[j]) * P.ulen < direct + multiples;
            build_table(&w, &P, full);
            update_rows(&w, &P, first, nabove, full);
        }
        requeue(&w, &P, nabove);
        if (pivots)
            for (int q = 0; q < j; ++q)
                pivots[P.pc[q]] = (int32_t)(sort ? rank + (uint32_t)q : w.prow[rank + (uint32_t)q]);
        rank += (uint32_t)j;
    }
    if (sort && rows) {
        /* the pivot rows first, in the order of their pivots, then the others (zero) as they were */
        uint32_t *dest = w.idx;
        for (uint32_t i = 0; i < rows; ++i) dest[i] = UINT32_MAX;
        for (uint32_t q = 0; q < rank; ++q) dest[w.prow[q]] = q;
        for (uint32_t i = 0, q = rank; i < rows; ++i)
            if (dest[i] == UINT32_MAX) dest[i] = q++;
        permute_rows(m, dest, w.tmp);
    }
    m4rm_free(&w);
    return (int)rank;
}
