/* massey.c — Massey products by null-homotopies (see massey.h), at every prime: the matrices are
 * fieldmats, and only the homotopy's extra term has a form per prime (bits at p = 2, bytes at odd p). */
#include "stages/products/massey.h"
#include <stdlib.h>
#include <string.h>

/* A class c whose bracket is to be computed: (stem, s) and its coordinates (malloc'd). */
typedef struct massey_pending { int n, s; uint32_t len; uint8_t *c; } massey_pending;
/* Is (s, n) resolved in res? */
static int massey_done(const resolution *res, int s, int n);
/* Runs a lift set: 0; MASSEY_STOPPED at the time limit; -1 with err set. */
static int massey_run_set(lift_set *set, const chain_runner *runner, char *err, size_t errlen);
/* a·b (a lifted as map ma of set1, into the unit set1->tgt) where it is resolved: 0 zero or
 * outside the region, 1 not zero (err says so), -1 out of memory. */
static int massey_ab_check(const lift_set *set1, int ma, const product_class *a, const product_class *b, char *err,
                           size_t errlen);
/* Appends c (len coordinates; NULL: zeros) to cs[0..*ncs). 0, or -1 out of memory. */
static int massey_pending_push(massey_pending **cs, size_t *ncs, int n, int s, uint32_t len, const uint8_t *c);
/* The homotopy of f_b f_c (f_c = map mc of set2) as a map of set3 with a zero bottom at
 * (sb + sc - 1, tb + tc), its context *ctx (extra_ctx; the caller sets extra and
 * max_i). Its index, or -1 out of memory. */
static int massey_add_homotopy(lift_set *set3, lift_set *set1, lift_set *set2, int mb, int mc, const product_class *b,
                               const massey_pending *c, massey_homotopy *ctx);
/* The cell of f_c (map mc of set2) that h's extra term reads for the generator k of the
 * homotopy's source at (s0 + i, t + t0): f_c's level sb - 1 + i in degree *tcdeg = t + tb. 1 with
 * *tcdeg and *cell set; 0 when F there is zero (no term); -1 after lift_fail when f_c lacks it. */
static int massey_fc_cell(const massey_homotopy *h, int i, deg_t t, uint32_t k, deg_t *tcdeg, size_t *cell);
/* The lifts of one computation of brackets, at either prime: set1 (f_a, f_b: the caller's),
 * set2 (every c's f_c), set3 (every homotopy), the c's, and for c = cs[k] its maps mcs[k] of
 * set2 and mhs[k] of set3 and its homotopy's context hctx[k]. massey_work_clear frees it all. */
typedef struct massey_work {
    lift_set set1, set2, set3;
    int have2, have3;
    massey_pending *cs;
    size_t ncs;
    int *mcs, *mhs;
    massey_homotopy *hctx;
} massey_work;
/* Every c's f_c from res into set1's target through level sa + sb - 1 (set2), then the homotopy
 * of f_b f_c (f_b map mb of set1) through level sa (set3), whose extra term is
 * massey_homotopy_extra; no stage files; the sets share set1's preimages where it has them. Under
 * share a rank lifts its own c's only (k mod nranks), the others' maps wait (max_i = -1). Adds
 * the f_c to *lifts. As massey_run_set (-1 with err set, out of memory too). */
static int massey_lift_cs(massey_work *w, const resolution *res, int mb, const product_class *b, int sa,
                          const massey_share *share, const chain_runner *runner, long *lifts, char *err, size_t errlen);
/* err = "out of memory computing Massey products"; returns -1. */
static int massey_oom(char *err, size_t errlen);
/* Frees w (set1 too) and clears out unless rc is 0; returns rc. */
static int massey_work_clear(massey_work *w, int rc, massey_table *out);
/* br for c's bracket at (ts, tt): bidegrees (in the module's stems), c's vector (taken from c),
 * rep zeroed over the generators there. 0, or -1 out of memory. */
static int massey_bracket_start(massey_bracket *br, const resolution *res, massey_pending *c, int ts, deg_t tt);


/* y += f_b(f_c(z)) for the generator z = k of source F_{s0+i} in degree t + t0 of the homotopy
 * (s0 = sb + sc - 1, t0 = tb + tc), at every prime (y a row over the field: words at p = 2,
 * bytes at odd p): f_c(z) sits in f_c's cell at target (s0 + i - sc, T - tc), and f_b maps it to
 * F_{i-1} in degree t. Its units (generators of degree t) must vanish, since y is a boundary in
 * a minimal resolution: checked. The lift step makes the homotopy's y = f_b f_c(z) − h(d z)
 * (at p = 2 no sign), so that d h + h d = f_b f_c. */
static int homotopy_add(massey_homotopy *h, int i, deg_t t, uint32_t k, void *y)
{
    const resolution *res = h->home->tgt;
    uint32_t p = res->prime;
    deg_t tcdeg;
    size_t cell;
    int got = massey_fc_cell(h, i, t, k, &tcdeg, &cell);
    if (got <= 0) return got;
    const fieldmat *v = &h->set2->maps[h->mc].val[cell];
    fieldmat V, Y;
    uint32_t below = (uint32_t)freemod_dim(&res->F[i - 1], t, t), all = (uint32_t)freemod_dim(&res->F[i - 1], t, t + 1);
    if (fieldmat_init(&V, p, 1, fieldmat_cols(v)) != 0 || fieldmat_init(&Y, p, 1, all) != 0) {
        fieldmat_clear(&V);
        lift_fail(h->home, "out of memory in a Massey homotopy at (%d, %d)", i, (int)t);
        return -1;
    }
    memcpy(fieldmat_row(&V, 0), fieldmat_row(v, k), fieldvec_bytes(p, fieldmat_cols(v)));
    int rc = lift_apply(h->set1, &h->set1->maps[h->mb], i - 1, tcdeg, &V, &Y);
    if (rc != 0) lift_fail(h->home, "%s", h->set1->fail.msg);
    for (uint32_t c = below; c < all && !rc; c++)
        if (fieldmat_get(&Y, 0, c)) {
            lift_fail(h->home, "internal error: f_b f_c(z) at (%d, %d) has a unit component", i, (int)t);
            rc = -1;
        }
    if (!rc) fieldvec_addmul(p, y, fieldmat_row(&Y, 0), 1, below);   /* entries past `below`: zero, checked */
    fieldmat_clear(&V);
    fieldmat_clear(&Y);
    return rc;
}

int massey_homotopy_extra(void *vctx, int i, deg_t t, uint32_t k, void *y) { return homotopy_add(vctx, i, t, k, y); }

/* The span of rows's rows in RREF, into *space (initialised here). 0, or -1 out of memory. */
static int rref_rows(fieldmat *space, const fieldmat *rows)
{
    uint32_t p = rows->p, nr = fieldmat_rows(rows), nc = fieldmat_cols(rows);
    if (fieldmat_init(space, p, nr, nc) != 0) return -1;
    for (uint32_t r = 0; r < nr; r++) memcpy(fieldmat_row(space, r), fieldmat_row(rows, r), fieldvec_bytes(p, nc));
    int rank = fieldmat_rref(space, NULL);
    if (rank < 0) return -1;
    if (p == 2) space->f2.rows = (uint32_t)rank;
    else space->fp.rows = (uint32_t)rank;
    return 0;
}

static int massey_done(const resolution *res, int s, int n) { return s >= 0 && n >= 0 && res_is_done(res, s, n + s); }

/* Row r of out += mult times row j of the products of map m: <x·y_j, z> for the source
 * generators z at (s0 + i, t + t0). */
static void product_row(const lift_set *set, int m, int i, deg_t t, uint32_t j, uint32_t mult, uint32_t nz,
                        fieldmat *out, uint32_t r)
{
    for (uint32_t z = 0; z < nz; z++) {
        uint32_t c = lift_product_coef(set, m, i, t, j, z);
        if (c) fieldmat_set(out, r, z, fieldmat_get(out, r, z) + c * mult);   /* mod p */
    }
}

/* The products x·y_j (x = a or b, lifted as map mx of set1) for the generators y_j of the
 * source at (s, t), as rows r0.. of out over the source generators at the product's bidegree.
 * Over S_2 they are read off f_x; over a module M, off the lifts of M's basis classes (basis,
 * first map of (s, t) at first[s][t - s]), one map per y_j: x·y_j = x ∘ f_{y_j}. */
typedef struct factor_src {
    const lift_set *set1;
    const lift_set *basis;      /* NULL over S_2 */
    const int *first;           /* basis: per source cell (lift_cell of the source), or -1 */
    size_t stride;              /* source max_n + 1 */
} factor_src;

static void factor_rows(const factor_src *fs, int mx, const product_class *x, int s, deg_t t, uint32_t ny,
                        uint32_t nz, fieldmat *out, uint32_t r0)
{
    if (!fs->basis) {
        for (uint32_t j = 0; j < ny; j++) product_row(fs->set1, mx, s, t, j, 1, nz, out, r0 + j);
        return;
    }
    int m0 = fs->first[(size_t)s * fs->stride + (size_t)(t - s)];
    for (uint32_t j = 0; j < ny && m0 >= 0; j++)
        for (uint32_t l = 0; l < x->len; l++)
            if (x->coords[l]) product_row(fs->basis, m0 + (int)j, x->s, x->n + x->s, l, x->coords[l], nz, out, r0 + j);
}

static int massey_run_set(lift_set *set, const chain_runner *runner, char *err, size_t errlen)
{
    int rc = lift_run(set, runner);
    if (rc < 0) snprintf(err, errlen, "%s", set->fail.msg);
    if (rc == 1) snprintf(err, errlen, "stopped at the time limit");
    return rc < 0 ? -1 : rc == 1 ? MASSEY_STOPPED : 0;
}

/* ---- sharing among ranks (massey_share) ---------------------------------------------------- */

/* What the other ranks read of a set: up to two target cells (i, t) of every map, map m being
 * lifted by rank m mod nranks. */
typedef struct shared_cells {
    lift_set *set;
    int ncells;
    int i[2];
    deg_t t[2];
} shared_cells;

typedef struct bytes { unsigned char *p; size_t len, cap; int oom; } bytes;

static void put(bytes *b, const void *v, size_t len)
{
    if (b->oom) return;
    if (b->len + len > b->cap) {
        size_t cap = (b->len + len) * 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->len, v, len);
    b->len += len;
}

static void put_u32(bytes *b, uint32_t v) { put(b, &v, sizeof v); }

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static int mine(const massey_share *sh, int m) { return !sh || m % sh->nranks == sh->rank; }

/* Cell (i, t) of map m lies in the target's range. */
static int cell_ok(const lift_set *set, int i, deg_t t)
{
    return i >= 0 && i <= set->tgt->max_s && t >= i && t - i <= set->tgt->max_n;
}

/* One exchange: this rank's status rc (0, 1, MASSEY_STOPPED, or -1 with err set) and, when 0,
 * the cells its maps of sh[0..n) have, to every rank, which takes those of the other ranks'
 * maps into its sets. A block per rank: its length, status, message, then per cell (set, map,
 * cell, rows, cols, the rows' words). Returns the status all ranks agree on: a failure (the
 * lowest failing rank's message in err, "rank R: " in front), else the largest. */
static int exchange(const massey_share *share, int rc, const shared_cells *sh, int n, char *err, size_t errlen)
{
    bytes b = { 0 };
    uint32_t msglen = rc ? (uint32_t)strlen(err) : 0;
    put_u32(&b, 0);                                 /* the block's length, set below */
    put_u32(&b, (uint32_t)rc);
    put_u32(&b, msglen);
    put(&b, err, msglen);
    for (int q = 0; q < n && !rc; q++)
        for (int m = 0; m < sh[q].set->nmaps; m++)
            for (int c = 0; c < sh[q].ncells && mine(share, m); c++) {
                if (!cell_ok(sh[q].set, sh[q].i[c], sh[q].t[c])) continue;
                size_t cell = lift_cell(sh[q].set, sh[q].i[c], sh[q].t[c]);
                const lift_map *f = &sh[q].set->maps[m];
                if (f->have[cell] != 1) continue;
                const fieldmat *v = &f->val[cell];
                uint32_t rows = fieldmat_rows(v), cols = fieldmat_cols(v);
                uint32_t rec[5] = { (uint32_t)q, (uint32_t)m, (uint32_t)cell, rows, cols };
                put(&b, rec, sizeof rec);
                for (uint32_t r = 0; r < rows; r++) put(&b, fieldmat_row(v, r), fieldvec_bytes(v->p, cols));
            }
    static const char oom[] = "out of memory sharing the lifts among the ranks";
    uint32_t small[3 + sizeof oom / 4 + 1] = { sizeof small, (uint32_t)-1, sizeof oom - 1 };   /* b's failure */
    memcpy(small + 3, oom, sizeof oom - 1);
    if (!b.oom) memcpy(b.p, &(uint32_t){ (uint32_t)b.len }, 4);
    const void *block = b.oom ? (const void *)small : b.p;
    size_t len = b.oom ? sizeof small : b.len;
    void *all = NULL;
    size_t alllen = 0;
    int got = share->allgather(block, len, &all, &alllen);
    free(b.p);
    if (got != 0) {
        snprintf(err, errlen, "%s", oom);
        return -1;
    }
    /* the agreed status: failure first, then a stop, then a refusal */
    int agreed = 0, from = -1, r = 0;
    for (size_t off = 0; off + 12 <= alllen; off += get_u32((unsigned char *)all + off), r++) {
        int st = (int)get_u32((unsigned char *)all + off + 4);
        int worse = (st < 0) > (agreed < 0) || ((st < 0) == (agreed < 0) && st > agreed);
        if (worse) agreed = st, from = r;
    }
    if (agreed && from != share->rank) {
        const unsigned char *blk = all;
        for (r = 0; r < from; r++) blk += get_u32(blk);
        int ml = (int)get_u32(blk + 8);
        if (agreed < 0) snprintf(err, errlen, "rank %d: %.*s", from, ml, (const char *)blk + 12);
        else snprintf(err, errlen, "%.*s", ml, (const char *)blk + 12);
    }
    r = 0;
    for (size_t off = 0; off < alllen && !agreed; off += get_u32((unsigned char *)all + off), r++) {
        const unsigned char *p = (unsigned char *)all + off, *end = p + get_u32(p);
        p += 12 + get_u32(p + 8);
        while (r != share->rank && p < end) {   /* the cells of the other ranks' maps */
            uint32_t rec[5];
            memcpy(rec, p, sizeof rec);
            p += sizeof rec;
            lift_map *f = &sh[rec[0]].set->maps[rec[1]];
            fieldmat *v = &f->val[rec[2]];
            uint32_t prime = sh[rec[0]].set->tgt->prime;
            size_t rowbytes = fieldvec_bytes(prime, rec[4]);
            fieldmat_clear(v);
            if (fieldmat_init(v, prime, rec[3], rec[4]) != 0) {
                snprintf(err, errlen, "%s", oom);
                agreed = -1;
                break;
            }
            for (uint32_t k = 0; k < rec[3]; k++, p += rowbytes) memcpy(fieldmat_row(v, k), p, rowbytes);
            f->have[rec[2]] = 1;
        }
    }
    free(all);
    return agreed;
}

/* Shared over S_2 with stage files: rank 0 lifts f_a and rank 1 f_b (b = a: rank 0 alone) into
 * their files, which every rank's set of both then loads. 0, MASSEY_STOPPED or -1. */
static int lift_ab_apart(const resolution *unit, const product_class *a, const product_class *b, const char *lift_dir,
                         const chain_runner *runner, int rank, char *err, size_t errlen)
{
    int same = a->s == b->s && a->n == b->n && a->len == b->len && !memcmp(a->coords, b->coords, a->len), rc = 0;
    const product_class *x = rank == 0 ? a : rank == 1 && !same ? b : NULL;
    lift_set set;
    lift_set_init(&set, unit, unit, lift_dir);
    set.any_preimage = 1;
    if (x && lift_add_class(&set, x->s, x->n + x->s, x->coords, x->len) < 0) {
        snprintf(err, errlen, "out of memory (or cannot create the lift folders) setting up the lift of %s", x->name);
        rc = -1;
    } else if (x) rc = massey_run_set(&set, runner, err, errlen);
    lift_set_clear(&set);
    return rc;
}

static int massey_ab_check(const lift_set *set1, int ma, const product_class *a, const product_class *b, char *err,
                           size_t errlen)
{
    const resolution *unit = set1->tgt;
    if (!massey_done(unit, a->s + b->s, a->n + b->n)) return 0;
    uint32_t dim = res_ngens(unit, a->s + b->s, a->n + a->s + b->n + b->s);
    uint8_t *ab = calloc(dim + 1, 1);
    if (!ab) return -1;
    products_multiply(set1, ma, b->n, b->s, b->coords, b->len, ab, dim);
    int nonzero = 0;
    for (uint32_t k = 0; k < dim; k++) nonzero |= ab[k];
    free(ab);
    if (nonzero) snprintf(err, errlen, "%s·%s is not zero: <%s, %s, c> is not defined", a->name, b->name, a->name, b->name);
    return nonzero;
}

static int massey_pending_push(massey_pending **cs, size_t *ncs, int n, int s, uint32_t len, const uint8_t *c)
{
    massey_pending *np = realloc(*cs, (*ncs + 1) * sizeof *np);
    if (!np) return -1;
    *cs = np;
    np[*ncs] = (massey_pending){ n, s, len, calloc(len + 1, 1) };
    if (!np[*ncs].c) return -1;
    if (c) memcpy(np[*ncs].c, c, len);
    ++*ncs;
    return 0;
}

static int massey_fc_cell(const massey_homotopy *h, int i, deg_t t, uint32_t k, deg_t *tcdeg, size_t *cell)
{
    int ic = h->sb - 1 + i;                     /* f_c's level: F_{s0+i} -> F_{ic} */
    *tcdeg = t + h->tb;
    if (*tcdeg < ic) return 0;                  /* F_{ic} is zero there */
    const lift_map *fc = &h->set2->maps[h->mc];
    *cell = lift_cell(h->set2, ic, *tcdeg);
    uint32_t rows = fc->have[*cell] != 1 ? 0 : fieldmat_rows(&fc->val[*cell]);
    if (k >= rows) {
        lift_fail(h->home, "internal error: Massey homotopy at (%d, %d) needs f_c at (%d, %d) first", i, (int)t, ic,
                  (int)*tcdeg);
        return -1;
    }
    return 1;
}

static int massey_lift_cs(massey_work *w, const resolution *res, int mb, const product_class *b, int sa,
                          const massey_share *share, const chain_runner *runner, long *lifts, char *err, size_t errlen)
{
    const resolution *unit = w->set1.tgt;
    int rc;
    w->have2 = 1;
    if (lift_set_init(&w->set2, res, unit, "") != 0) return massey_oom(err, errlen);
    lift_set_share_preimages(&w->set2, &w->set1);   /* the same target: one preimage cache (p = 2) */
    w->set2.any_preimage = 1;
    w->mcs = calloc(w->ncs + 1, sizeof *w->mcs);
    w->mhs = calloc(w->ncs + 1, sizeof *w->mhs);
    w->hctx = calloc(w->ncs + 1, sizeof *w->hctx);
    if (!w->mcs || !w->mhs || !w->hctx) return massey_oom(err, errlen);
    for (size_t k = 0; k < w->ncs; k++) {
        const massey_pending *c = &w->cs[k];
        if ((w->mcs[k] = lift_add_class(&w->set2, c->s, c->n + c->s, c->c, c->len)) < 0) return massey_oom(err, errlen);
        w->set2.maps[w->mcs[k]].max_i = mine(share, w->mcs[k]) ? sa + b->s - 1 : -1;
    }
    *lifts += (long)w->ncs;
    if (w->ncs && (rc = massey_run_set(&w->set2, runner, err, errlen)) != 0) return rc;
    w->have3 = 1;
    if (lift_set_init(&w->set3, res, unit, "") != 0) return massey_oom(err, errlen);
    lift_set_share_preimages(&w->set3, &w->set1);
    w->set3.any_preimage = 1;
    for (size_t k = 0; k < w->ncs; k++) {
        w->mhs[k] = massey_add_homotopy(&w->set3, &w->set1, &w->set2, mb, w->mcs[k], b, &w->cs[k], &w->hctx[k]);
        if (w->mhs[k] < 0) return massey_oom(err, errlen);
        lift_map *h = &w->set3.maps[w->mhs[k]];
        h->max_i = mine(share, w->mhs[k]) ? sa : -1;   /* on f_c's rank (mhs[k] = mcs[k] = k) */
        h->extra = massey_homotopy_extra;
    }
    return w->ncs ? massey_run_set(&w->set3, runner, err, errlen) : 0;
}

static int massey_work_clear(massey_work *w, int rc, massey_table *out)
{
    for (size_t k = 0; k < w->ncs; k++) free(w->cs[k].c);
    free(w->cs);
    free(w->mcs);
    free(w->mhs);
    if (w->have3) lift_set_clear(&w->set3);
    if (w->have2) lift_set_clear(&w->set2);
    lift_set_clear(&w->set1);
    free(w->hctx);
    if (rc) massey_table_clear(out);
    return rc;
}

static int massey_oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory computing Massey products");
    return -1;
}

static int massey_add_homotopy(lift_set *set3, lift_set *set1, lift_set *set2, int mb, int mc, const product_class *b,
                               const massey_pending *c, massey_homotopy *ctx)
{
    int s0 = b->s + c->s - 1;
    deg_t t0 = b->n + b->s + c->n + c->s;
    uint32_t n0 = res_ngens(set3->src, s0, t0);
    uint8_t *zero = calloc(n0 + 1, 1);
    if (!zero) return -1;
    int m = lift_add_class(set3, s0, t0, zero, n0);
    free(zero);
    if (m < 0) return -1;
    *ctx = (massey_homotopy){ set3, set1, set2, mb, mc, b->s, c->s, b->n + b->s, c->n + c->s };
    set3->maps[m].extra_ctx = ctx;
    return m;
}

static int massey_bracket_start(massey_bracket *br, const resolution *res, massey_pending *c, int ts, deg_t tt)
{
    /* stems in the module's degrees (internal + shift), as its ext.csv prints them */
    *br = (massey_bracket){ .cn = c->n + (int)res->shift, .cs = c->s, .clen = c->len, .c = c->c,
                            .n = (int)(tt - ts + res->shift), .s = ts };
    c->c = NULL;
    br->dim = res_ngens(res, ts, tt);
    br->rep = calloc(br->dim + 1, 1);
    return br->rep ? 0 : -1;
}

/* Over a module M: every basis class of Ext(M) lifted into the unit's resolution through level
 * max(sa, sb) (for b·y, the kernel, and a·y, the indeterminacy), into basis, the first map of
 * each source cell into *first, both handed to fs; under share, each rank's lifts' products
 * with a and b to every rank (one exchange, counted off *exchanges). The runs' and the
 * exchange's status (0 done), or -1 with *oom set when out of memory (err not set). */
static int lift_module_basis(const resolution *res, massey_work *wk, lift_set *basis, int **first, factor_src *fs,
                             const product_class *a, const product_class *b, const massey_share *share,
                             const chain_runner *runner, int *exchanges, long *lifts, int *oom, char *err,
                             size_t errlen)
{
    int sa = a->s, sb = b->s, rc = 0;
    *oom = 1;
    deg_t ta = a->n + sa, tb = b->n + sb;
    lift_set_share_preimages(basis, &wk->set1);   /* the same target: one preimage cache */
    basis->any_preimage = 1;
    *first = malloc(((size_t)res->max_s + 1) * fs->stride * sizeof **first);
    if (!*first) return -1;
    for (int s = 0; s <= res->max_s; s++)
        for (int n = 0; n <= res->max_n; n++) {
            size_t cell = (size_t)s * fs->stride + (size_t)n;
            (*first)[cell] = -1;
            uint32_t nc = massey_done(res, s, n) ? res_ngens(res, s, n + s) : 0;
            uint8_t *e = calloc(nc + 1, 1);
            if (!e) return -1;
            for (uint32_t j = 0; j < nc; j++) {
                memset(e, 0, nc);
                e[j] = 1;
                char key[64];
                snprintf(key, sizeof key, "basis_%d_%d_%u", n, s, j);
                int m = lift_add_map(basis, s, n + s, e, nc, key, NULL, NULL);
                if (m < 0) {
                    free(e);
                    return -1;
                }
                basis->maps[m].max_i = !mine(share, m) ? -1 : sa > sb ? sa : sb;   /* -1: another rank's */
                if (!j) (*first)[cell] = m;
            }
            free(e);
        }
    *oom = 0;
    *lifts += basis->nmaps;
    if (basis->nmaps) rc = massey_run_set(basis, runner, err, errlen);
    if (share) {   /* each rank's basis lifts' products with a and b to every rank */
        shared_cells products = { basis, 2, { sa, sb }, { ta, tb } };
        --*exchanges;
        rc = exchange(share, rc, &products, 1, err, errlen);
    }
    if (rc) return rc;
    fs->basis = basis;
    fs->first = *first;
    return 0;
}

/* The c's: a basis of the kernel of multiplication by b (map mb of fs) at every bidegree where
 * b·c and the bracket are resolved, appended to wk->cs. 0, or -1 out of memory. */
static int kernel_of_b(const resolution *res, const factor_src *fs, int mb, const product_class *a,
                       const product_class *b, massey_work *wk)
{
    uint32_t p = res->prime;
    fieldmat M = { 0 }, aug = { 0 }, ker = { 0 };
    int32_t *piv = NULL;
    int rc = 0;
    for (int n = 0; n <= res->max_n && !rc; n++)
        for (int s = 0; s <= res->max_s && !rc; s++) {
            uint32_t nc = massey_done(res, s, n) ? res_ngens(res, s, n + s) : 0;
            if (!nc || !massey_done(res, s + b->s, n + b->n)) continue;
            uint32_t w = res_ngens(res, s + b->s, n + b->n + s + b->s);
            rc = -1;
            if (fieldmat_init(&M, p, nc, w) != 0) break;
            factor_rows(fs, mb, b, s, n + s, nc, w, &M, 0);
            if (fieldmat_augment_identity(&aug, &M) != 0 || !(piv = malloc(((size_t)fieldmat_cols(&aug) + 1) * sizeof *piv)))
                break;
            int rank = fieldmat_rref(&aug, piv);
            if (rank < 0 || fieldmat_kernel_from_rref(&aug, w, (uint32_t)rank, piv, &ker) != 0) break;
            rc = 0;
            for (uint32_t r = 0; r < fieldmat_rows(&ker) && !rc; r++) {
                if (!massey_done(res, s + a->s + b->s - 1, n + a->n + b->n + 1)) continue;
                if (massey_pending_push(&wk->cs, &wk->ncs, n, s, nc, NULL) != 0) rc = -1;
                for (uint32_t k = 0; k < nc && !rc; k++) wk->cs[wk->ncs - 1].c[k] = (uint8_t)fieldmat_get(&ker, r, k);
            }
            fieldmat_clear(&M), fieldmat_clear(&aug), fieldmat_clear(&ker);
            free(piv);
            piv = NULL;
        }
    fieldmat_clear(&M), fieldmat_clear(&aug), fieldmat_clear(&ker);
    free(piv);
    return rc;
}

/* The brackets off the lifts: <a, b, c> = a ∘ h_c for every c (wk's homotopies), each with its
 * indeterminacy a·Ext + Ext·c in RREF and the representative reduced by it, into out. 0, or -1
 * out of memory. */
static int read_brackets(const resolution *res, const resolution *unit, const factor_src *fs, int ma,
                         const product_class *a, const product_class *b, massey_work *wk, massey_table *out)
{
    int sa = a->s, sb = b->s;
    deg_t ta = a->n + sa, tb = b->n + sb;
    uint32_t p = res->prime;
    fieldmat M = { 0 }, ker = { 0 };
    int rc = -1;
    out->b = calloc(wk->ncs + 1, sizeof *out->b);
    if (!out->b) return -1;
    for (size_t k = 0; k < wk->ncs; k++) {
        massey_bracket *br = &out->b[out->n++];
        int sc = wk->cs[k].s;
        deg_t tc = wk->cs[k].n + sc;
        int ts = sa + sb + sc - 1;
        deg_t tt = ta + tb + tc;
        if (massey_bracket_start(br, res, &wk->cs[k], ts, tt) != 0) goto out;
        for (uint32_t z = 0; z < br->dim; z++) {   /* no further sign at odd p (massey.h) */
            uint32_t v = 0;
            for (uint32_t j = 0; j < a->len; j++) v += a->coords[j] * lift_product_coef(&wk->set3, wk->mhs[k], sa, ta, j, z);
            br->rep[z] = (uint8_t)(v % p);
        }
        /* indeterminacy: a·Ext at (ts - sa, tt - ta) and c·Ext at (ts - sc, tt - tc) */
        uint32_t ny = res_ngens(res, ts - sa, tt - ta), nx = res_ngens(unit, ts - sc, tt - tc);
        if (fieldmat_init(&M, p, ny + nx, br->dim) != 0) goto out;
        factor_rows(fs, ma, a, ts - sa, tt - ta, ny, br->dim, &M, 0);
        for (uint32_t j = 0; j < nx; j++)
            product_row(&wk->set2, wk->mcs[k], ts - sc, tt - tc, j, 1, br->dim, &M, ny + j);
        if (rref_rows(&ker, &M) != 0) goto out;
        fieldmat_clear(&M);
        br->nindet = fieldmat_rows(&ker);
        br->indet = calloc((size_t)br->nindet * br->dim + 1, 1);
        if (!br->indet) goto out;
        for (uint32_t r = 0; r < br->nindet; r++) {   /* RREF: the pivot entry is 1 */
            uint32_t pc = 0;
            while (pc < br->dim && !fieldmat_get(&ker, r, pc)) pc++;
            uint32_t f = pc < br->dim ? br->rep[pc] : 0;
            for (uint32_t z = 0; z < br->dim; z++) {
                uint32_t e = fieldmat_get(&ker, r, z);
                br->indet[(size_t)r * br->dim + z] = (uint8_t)e;
                if (f) br->rep[z] = (uint8_t)((br->rep[z] + (p - f) * e) % p);
            }
        }
        fieldmat_clear(&ker);
    }
    rc = 0;
out:
    fieldmat_clear(&M), fieldmat_clear(&ker);
    return rc;
}

int massey_compute(const resolution *res, const resolution *unit, const product_class *a, const product_class *b,
                   const char *lift_dir, const chain_runner *runner, const massey_share *share, massey_table *out,
                   char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int sa = a->s, sb = b->s;
    deg_t ta = a->n + sa, tb = b->n + sb;
    massey_work wk = { 0 };
    lift_set basis;
    int have_basis = 0, rc = -1;
    int *first = NULL;
    int module = res->module_id != unit->module_id;
    if (share && share->nranks < 2) share = NULL;
    /* the exchanges among the ranks still to make: the same number on every rank */
    int exchanges = share ? 1 + (module || lift_dir[0]) : 0;
    lift_set_init(&wk.set1, unit, unit, module ? "" : lift_dir);
    wk.set1.any_preimage = 1;                  /* brackets do not depend on the preimages */
    if (share && !module && lift_dir[0]) {
        rc = lift_ab_apart(unit, a, b, lift_dir, runner, share->rank, err, errlen);
        exchanges--;
        if ((rc = exchange(share, rc, NULL, 0, err, errlen)) != 0) goto out;
    }
    int ma = lift_add_class(&wk.set1, sa, ta, a->coords, a->len);
    int mb = lift_add_class(&wk.set1, sb, tb, b->coords, b->len);
    if (ma < 0 || mb < 0) {
        snprintf(err, errlen, "out of memory (or cannot create the lift folders) setting up the lifts of a and b");
        rc = -1;
        goto out;
    }
    if (module) {   /* a·y and b·y come from the basis lifts: f_a is read at level sb (a·b), f_b below sa */
        wk.set1.maps[ma].max_i = sb;
        wk.set1.maps[mb].max_i = sa - 1;
    }
    out->lifts = 2;
    if ((rc = massey_run_set(&wk.set1, runner, err, errlen)) != 0) goto out;
    if ((rc = massey_ab_check(&wk.set1, ma, a, b, err, errlen)) != 0) {
        if (rc < 0) goto oom;
        goto out;
    }
    factor_src fs = { &wk.set1, NULL, NULL, (size_t)res->max_n + 1 };
    if (module) {
        lift_set_init(&basis, res, unit, "");
        have_basis = 1;
        int no_memory;
        rc = lift_module_basis(res, &wk, &basis, &first, &fs, a, b, share, runner, &exchanges, &out->lifts,
                               &no_memory, err, errlen);
        if (no_memory) goto oom;
        if (rc) goto out;
    }
    if (kernel_of_b(res, &fs, mb, a, b, &wk) != 0) goto oom;
    /* every f_c, through level sa + sb - 1, then every homotopy, through level sa (no stage
     * files: hundreds of partial maps, cheaper to recompute than to keep as thousands of small
     * files; the homotopies are cheap and keyed by two maps) */
    if ((rc = massey_lift_cs(&wk, res, mb, b, sa, share, runner, &out->lifts, err, errlen)) != 0)
        goto out;
    if (share) {   /* what rank 0 reads of each c's maps: f_c's products and the bracket */
        shared_cells brackets[2] = { { &wk.set2, 1, { sa + sb - 1 }, { ta + tb } }, { &wk.set3, 1, { sa }, { ta } } };
        exchanges--;
        if ((rc = exchange(share, 0, brackets, 2, err, errlen)) != 0 || share->rank != 0) goto out;
    }
    if (read_brackets(res, unit, &fs, ma, a, b, &wk, out) != 0) goto oom;
    rc = 0;
    goto out;
oom:
    rc = massey_oom(err, errlen);
out:
    while (exchanges-- > 0) rc = exchange(share, rc, NULL, 0, err, errlen);   /* rc != 0: the others stop too */
    if (have_basis) lift_set_clear(&basis);
    free(first);
    return massey_work_clear(&wk, rc, out);
}

void massey_table_clear(massey_table *t)
{
    for (size_t k = 0; k < t->n; k++) {
        free(t->b[k].c);
        free(t->b[k].rep);
        free(t->b[k].indet);
    }
    free(t->b);
    memset(t, 0, sizeof *t);
}

/* "[1, 0, 1]" */
static void put_list(FILE *out, const uint8_t *v, uint32_t n)
{
    fputc('[', out);
    for (uint32_t k = 0; k < n; k++) fprintf(out, k ? ", %d" : "%d", v[k]);
    fputc(']', out);
}

static int nonzero(const uint8_t *v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (v[k]) return 1;
    return 0;
}

int massey_write_sseq(FILE *out, const massey_table *t)
{
    for (size_t k = 0; k < t->n; k++) {
        const massey_bracket *b = &t->b[k];
        if (!nonzero(b->rep, b->dim)) continue;
        fprintf(out, "<a, b, x_(%d, %d, ", b->cn, b->cs);
        put_list(out, b->c, b->clen);
        fputs(")> = ", out);
        put_list(out, b->rep, b->dim);
        fputs(" + {", out);
        for (uint32_t r = 0; r < b->nindet; r++) {
            if (r) fputs(", ", out);
            put_list(out, b->indet + (size_t)r * b->dim, b->dim);
        }
        fputs("}\n", out);
    }
    return ferror(out) ? -1 : 0;
}

static void put_bits(FILE *out, const uint8_t *v, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++) fputc('0' + v[k], out);
}

int massey_write_csv(FILE *out, const massey_table *t, const char *aname, const char *bname)
{
    fputs("a,b,c_n,c_s,c,n,s,value,indeterminacy,contains_zero\n", out);
    for (size_t k = 0; k < t->n; k++) {
        const massey_bracket *b = &t->b[k];
        fprintf(out, "%s,%s,%d,%d,", aname, bname, b->cn, b->cs);
        put_bits(out, b->c, b->clen);
        fprintf(out, ",%d,%d,", b->n, b->s);
        put_bits(out, b->rep, b->dim);
        fputc(',', out);
        for (uint32_t r = 0; r < b->nindet; r++) {
            if (r) fputc(' ', out);
            put_bits(out, b->indet + (size_t)r * b->dim, b->dim);
        }
        fprintf(out, ",%d\n", !nonzero(b->rep, b->dim));
    }
    return ferror(out) ? -1 : 0;
}
