/* resolution.c — the resolution's core: state, publish, stage files (queue, flush, load), d∘d check (see resolution.h). */
#include "stages/resolve/resolution.h"
#include "algebra/fieldmat.h"
#include "algebra/memacct.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/resolution_p.h"
#include "stages/store/stagefile.h"

/* Hash of the module's definition: stage files of another module are refused. */
static uint64_t module_id_of(const char *definition)
{
    return stage_hash64(definition, strlen(definition));
}

/* The region's shape. Steps run only at t >= s (res_in_region), so F_s has generators in
 * degrees >= s only. Every Milnor element a step, the reports or res_check_dd touch is a block
 * of some generator g' in degree t, of degree t - |g'|: a row Sq(R)·g of F_s, a product
 * Sq(R)·Sq(S) landing in the block of g' in F_{s-1}, or Nassau's columns in F_{s-2}. So the
 * tables need degree t - (s - 2) at most, the largest stem touched plus 2, not the largest t:
 * stem region, (s, t <= stem + s) reads F_{s-2} and the edge job (s, stem + s + 1) F_{s-1},
 * both at most stem + 2; a rectangle t <= T reaches F_0's generator of degree 0: T. */
static void region_shape(int region, int stem, int max_s, deg_t rect_t, deg_t *max_t, deg_t *max_n,
                         deg_t *milnor_degree)
{
    if (region == REGION_STEM) {
        *max_t = stem + max_s + 1;      /* stem edge: kernels at (s, stem + s + 1) */
        *max_n = stem + 1;
        *milnor_degree = stem + 2 < *max_t ? stem + 2 : *max_t;
    } else {
        *max_t = rect_t;
        *max_n = rect_t;
        *milnor_degree = rect_t;
    }
}

/* The mod 2 tables a resolution of m (NULL: S_2) is over: A, or the profile's B (NULL: all of
 * A); at an odd prime A_p comes with the module, and the mod 2 tables stop at degree 0. */
static const milnor_profile *mod2_profile(const fd_module *m, deg_t *degree)
{
    if (m && fdm_prime(m) != 2) *degree = 0;
    return m && fdm_prime(m) == 2 && m->has_profile ? &m->A.profile : NULL;
}

uint64_t res_setup_bytes(int region, int stem, int max_s, deg_t rect_t, const fd_module *m)
{
    deg_t max_t, max_n, md;
    region_shape(region, stem, max_s, rect_t, &max_t, &max_n, &md);
    const milnor_profile *profile = mod2_profile(m, &md);
    uint64_t milnor = milnor_basis_bytes(md, profile);
    if (milnor == UINT64_MAX) return UINT64_MAX;
    milnor *= 2;        /* the runtime hands StarPU a flat copy of the basis (milnor_flat_write) */
    uint64_t cells = (uint64_t)(max_s + 1) * ((uint64_t)max_n + 1);
    uint64_t per_s = sizeof(freemod) + ((uint64_t)max_t + 1) * (sizeof(uint32_t) + sizeof(fm_gen *));
    return milnor + cells * (2 + sizeof(f2mat *)) + (uint64_t)(max_s + 1) * per_s;
}

int res_init(resolution *res, int region, int stem, int max_s, deg_t rect_t,
             const char *outdir, int write_stages, int algorithm)
{
    return res_init_module(res, region, stem, max_s, rect_t, outdir, write_stages, algorithm, NULL);
}

int res_init_module(resolution *res, int region, int stem, int max_s, deg_t rect_t,
                    const char *outdir, int write_stages, int algorithm, const fd_module *m)
{
    memset(res, 0, sizeof *res);
    res->algorithm = algorithm;
    res->finish_split = RES_FINISH_SPLIT;
    res->load_action = "recomputing";
    res->region = region;
    res->stem = stem;
    res->max_s = max_s;
    res->rect_t = rect_t;
    deg_t milnor_degree;
    region_shape(region, stem, max_s, rect_t, &res->max_t, &res->max_n, &milnor_degree);
    res->milnor_degree = milnor_degree;
    const milnor_profile *profile = mod2_profile(m, &milnor_degree);    /* B's basis only, never A's */
    res->write_stages = write_stages;
    res->module_id = module_id_of(RES_MODULE_S2);
    res->prime = 2;
    snprintf(res->module_name, sizeof res->module_name, "S_2");
    snprintf(res->outdir, sizeof res->outdir, "%s", outdir ? outdir : "");
    pthread_mutex_init(&res->lock, NULL);
    if (write_stages && !(res->committer = stage_committer_start(1.0, 256))) return -1;
    int mrc = milnor_basis_init(&res->A, milnor_degree, profile);   /* MILNOR_STOPPED passes through */
    if (mrc != 0) return mrc;
    memacct_add(MEM_MILNOR, (int64_t)milnor_basis_bytes(milnor_degree, profile));
    size_t cells = (size_t)(max_s + 1) * ((size_t)res->max_n + 1);
    res->F = calloc((size_t)max_s + 1, sizeof *res->F);
    res->done = calloc(cells, 1);
    res->kernel = calloc(cells, sizeof *res->kernel);
    res->pre = calloc(cells, sizeof *res->pre);
    if (!res->F || !res->done || !res->kernel || !res->pre) return -1;
    for (int s = 0; s <= max_s; s++)
        if (freemod_init(&res->F[s], &res->A, res->max_t) != 0) return -1;
    return 0;
}

/* Replaces res->A by the basis through degree of the profile (NULL: A). */
static int res_use_basis(resolution *res, deg_t degree, const milnor_profile *profile)
{
    memacct_add(MEM_MILNOR, -(int64_t)milnor_basis_bytes(res->A.max_degree, &res->A.profile));
    milnor_basis_clear(&res->A);
    int rc = milnor_basis_init(&res->A, degree, profile);
    if (rc != 0) return rc;
    memacct_add(MEM_MILNOR, (int64_t)milnor_basis_bytes(degree, profile));
    return 0;
}

deg_t res_module_shift(const fd_module *m)
{
    return m && !fdm_is_sphere(m) && m->min_deg < 0 ? m->min_deg : 0;
}

int res_set_unstable(resolution *res)
{
    res->unstable = 1;
    if (!res->F) return 0;
    return res_use_excess(res, &res->A, NULL);      /* odd p: again from res_odd_init, over A_p */
}

int res_use_excess(resolution *res, const milnor_basis *A, const milnor_p_basis *Ap)
{
    memacct_add(MEM_MILNOR, -(int64_t)res->ex.bytes);   /* (none yet at p = 2; at odd p those of */
    excess_clear(&res->ex);                             /* res_set_unstable's degree-0 mod 2 A) */
    if ((Ap ? excess_init_p(&res->ex, Ap) : excess_init(&res->ex, A)) != 0) return -1;
    memacct_add(MEM_MILNOR, (int64_t)res->ex.bytes);
    for (int s = 0; s <= res->max_s; s++) res->F[s].ex = &res->ex;
    return 0;
}

int res_module_is_unstable(const fd_module *m, char *why, size_t size)
{
    if (!m || fdm_is_sphere(m)) return 1;
    if (m->fp || m->rp_open || m->has_profile || m->has_cofiber) return 1;   /* refused apart */
    if (fdm_prime(m) != 2 && !milnor_p_profile_is_full(&m->pprofile)) return 1;
    for (deg_t u = m->min_deg; u <= m->max_deg; u++)
        for (uint32_t i = 0; i < fdm_dim(m, u); i++) {
            if (u < 0) {        /* Sq^0 x = x (P^0 at odd p) */
                snprintf(why, size, "class %s has degree %d < 0", m->names[u - m->min_deg][i], (int)u);
                return 0;
            }
            if (fdm_prime(m) != 2) {    /* β^e P^k x for 2k + e > |x|: Q_0^e P(k) in the Milnor basis */
                uint32_t p = m->p, q = 2 * (p - 1);
                for (uint32_t e = 0; e <= 1; e++)
                    for (uint32_t k = 0; u + (deg_t)(e + q * k) <= m->max_deg; k++) {
                        if (2 * k + e <= (uint32_t)u) continue;
                        milnor_p_elt X;
                        milnor_p_elt_set(&X, p, e, &k, 1);
                        deg_t d = X.degree;
                        const uint8_t *y = fdm_act_p(m, u, i, d, milnor_p_index(m->pA, &X));
                        for (uint32_t j = 0; y && j < fdm_dim(m, u + d); j++)
                            if (y[j]) {
                                char op[24];
                                snprintf(op, sizeof op, "%s%s%.0u", e ? "b" : "", k ? "P" : "", k);
                                snprintf(why, size, "%s %s != 0 though 2i + e = %u > |%s| = %d", op,
                                         m->names[u - m->min_deg][i], 2 * k + e, m->names[u - m->min_deg][i], (int)u);
                                return 0;
                            }
                    }
                continue;
            }
            for (deg_t k = u + 1; u + k <= m->max_deg; k++) {
                uint32_t sq[1] = { (uint32_t)k };
                milnor_elt R;
                milnor_elt_set(&R, sq, 1);
                const uint64_t *y = fdm_act(m, u, i, k, milnor_index(&m->A, &R));
                if (y && f2vec_first_bit(y, fdm_dim(m, u + k)) >= 0) {
                    snprintf(why, size, "Sq%d %s != 0 though %d > |%s| = %d", (int)k, m->names[u - m->min_deg][i],
                             (int)k, m->names[u - m->min_deg][i], (int)u);
                    return 0;
                }
            }
        }
    return 1;
}

uint64_t res_module_id(const fd_module *m, int unstable)
{
    uint64_t id = module_id_of(m && !fdm_is_sphere(m) ? m->canonical : RES_MODULE_S2);
    return unstable ? stage_hash64(&id, sizeof id) : id;     /* unstable: another id */
}

int res_set_module(resolution *res, fd_module *m, const char *name)
{
    res->module = m && !fdm_is_sphere(m) ? m : NULL;
    res->module_id = res_module_id(m, res->unstable);
    snprintf(res->module_name, sizeof res->module_name, "%s", name ? name : "S_2");
    res->shift = res_module_shift(res->module);
    if (!res->F || !res->module) return 0;
    char err[256];
    if (fdm_truncate(m, res->max_n + res->shift, err, sizeof err) != 0) return -1;  /* presented: M_{<=max_n} */
    if (fdm_prime(m) != 2) {    /* A_p or its profile's B (resolution_p.h) through the same degree */
        int rc = res_odd_init(res, m);
        if (rc == 0 && res->unstable) rc = res_use_excess(res, NULL, &res->odd->A);    /* free unstable A_p-modules */
        if (rc != 0 || res->A.max_degree == 0) return rc;
        return res_use_basis(res, 0, NULL);     /* the mod 2 tables shrink to degree 0 (the runner's handle) */
    }
    /* over B the free modules' blocks are B's basis (res_init_module built it, res_init A's) */
    if (!m->has_profile || milnor_profile_equal(&res->A.profile, &m->A.profile)) return 0;
    int rc = res_use_basis(res, res->A.max_degree, &m->A.profile);
    for (int s = 0; rc == 0 && s <= res->max_s; s++) {
        res->F[s].dim = res->A.dim;
        res->F[s].top = milnor_profile_top_degree(&res->A.profile);
    }
    return rc;
}

deg_t res_module_top(const resolution *res)
{
    return res->module ? res->module->max_deg - res->shift : 0;
}

int res_nassau_applies(const fd_module *m)
{
    return !m || fdm_is_sphere(m) || (fdm_prime(m) == 2 && !m->has_profile && !m->fp && !m->rp_open && !m->has_cofiber);
}

int res_nassau_p_applies(const fd_module *m)
{
    return m && fdm_prime(m) != 2 && !m->has_profile && milnor_p_profile_is_full(&m->pprofile) && !m->fp && !m->rp_open &&
           !m->has_cofiber;
}

int res_algebra_is_whole(const resolution *res)
{
    return res->odd ? res->odd->B.full : res->A.seq_g != NULL;
}

int res_cofiber_row(const resolution *res, int s, deg_t t)
{
    const fd_module *m = res->module;
    deg_t k = m && m->has_cofiber && s == m->cofiber_s ? t - (m->cofiber_t - res->shift) : -1;
    return k >= 0 && (uint32_t)k < m->cofiber_nrows ? (int)k : -1;
}

void res_module_rows(const resolution *res, deg_t t, f2mat *D)
{
    const fd_module *m = res->module;
    const freemod *F = &res->F[0];
    uint32_t row = 0, words = (uint32_t)f2vec_words(D->cols);
    for (deg_t u = 0; u < t; u++)
        for (uint32_t i = 0; i < F->ngens[u]; i++) {
            deg_t d = t - u;
            const fm_gen *g = &F->gens[u][i];
            for (uint32_t r = 0; r < freemod_block(F, d, u); r++, row++) {
                if (!m || D->cols == 0 || d > m->max_deg - m->min_deg) continue;
                uint32_t j = F->ex ? excess_index(F->ex, d, r) : r;     /* unstable: the excess order */
                uint32_t mr = milnor_index(&m->A, &res->A.elts[d][j]);
                uint64_t *dst = f2mat_row(D, row);
                for (uint32_t b = 0; b < g->bits; b++)
                    if (f2vec_get(g->img, b)) {
                        const uint64_t *y = fdm_act(m, u + res->shift, b, d, mr);
                        if (y) f2vec_xor(dst, y, words);
                    }
            }
        }
}

int res_flush_stages(resolution *res)
{
    char err[512];
    if (res->committer && stage_committer_flush(res->committer, err, sizeof err) != 0) {
        res_fail(res, "%s", err);
        return -1;
    }
    return 0;
}

void res_prereduced_free(res_prereduced *p)
{
    if (!p) return;
    f2mat_clear(&p->m);
    free(p);
}

res_prereduced *res_prereduced_take(resolution *res, int s, deg_t t)
{
    if (!res->pre) return NULL;
    res_prereduced **slot = &res->pre[res_cell(res, s, t)], *p = *slot;
    *slot = NULL;
    if (p) memacct_move(MEM_KERNELS, MEM_INFLIGHT, (int64_t)f2mat_bytes(&p->m));
    return p;
}

void res_clear(resolution *res)
{
    stage_committer_stop(res->committer, NULL, 0);
    res_odd_clear(res);
    if (res->kernel) {
        size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
        for (size_t i = 0; i < cells; i++)
            if (res->kernel[i]) {
                memacct_move(MEM_KERNELS, MEM_INFLIGHT, (int64_t)f2mat_bytes(res->kernel[i]));
                f2mat_clear(res->kernel[i]);
                free(res->kernel[i]);
            }
        for (size_t i = 0; res->pre && i < cells; i++)     /* a stopped run's */
            if (res->pre[i]) {
                memacct_move(MEM_KERNELS, MEM_INFLIGHT, (int64_t)f2mat_bytes(&res->pre[i]->m));
                res_prereduced_free(res->pre[i]);
            }
    }
    if (res->F)
        for (int s = 0; s <= res->max_s; s++) freemod_clear(&res->F[s]);
    free(res->F);
    free(res->done);
    free(res->empty_done);
    free(res->kernel);
    free(res->pre);
    memacct_add(MEM_MILNOR, -(int64_t)res->ex.bytes);
    excess_clear(&res->ex);
    if (res->A.dim) memacct_add(MEM_MILNOR, -(int64_t)milnor_basis_bytes(res->A.max_degree, &res->A.profile));
    milnor_basis_clear(&res->A);
    pthread_mutex_destroy(&res->lock);
    memset(res, 0, sizeof *res);
}

int res_in_region(const resolution *res, int s, deg_t t)
{
    if (s < 0 || s > res->max_s || t < s) return 0;
    return res->region == REGION_STEM ? t - s <= res->stem : t <= res->rect_t;
}

void res_fail(resolution *res, const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&res->lock);
    if (!res->failed) {
        res->failed = 1;
        va_start(ap, fmt);
        vsnprintf(res->error, sizeof res->error, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&res->lock);
}

int res_failed(resolution *res)
{
    pthread_mutex_lock(&res->lock);
    int f = res->failed;
    pthread_mutex_unlock(&res->lock);
    return f;
}

int res_check_writes(resolution *res)
{
    if (stage_committer_failed(res->committer) && !res_failed(res)) res_flush_stages(res);
    return res_failed(res);
}

int res_kernel_wanted(const resolution *res, int s, deg_t t)
{
    if (res->odd && res_p_nassau_row(res, s + 1, t)) return 0;     /* Nassau's step there reads none */
    if (!res->odd && res->algorithm == ALG_NASSAU && s >= 1) return 0;   /* rows >= 2 need no kernel */
    return s + 1 <= res->max_s && t >= s + 1 && res_in_region(res, s + 1, t);
}

/* res_queue_stage of a matrix over the resolution's field (format version 2, a byte an entry,
 * at odd p: stagefile.h). */
static int queue_stage(resolution *res, int kind, int s, deg_t t, uint32_t aux, const fieldmat *m)
{
    char path[4200], err[600];
    stage_header h = { .kind = (uint16_t)kind, .s = s, .t = t, .aux = aux, .algorithm = (uint16_t)res->algorithm,
                       .module_id = res->module_id };
    void *buf = NULL;
    size_t len = 0;
    int rc = stage_path(path, sizeof path, res->outdir, kind, s, t);
    if (rc != STAGE_OK) snprintf(err, sizeof err, "%.500s: output path too long", res->outdir);
    if (rc == STAGE_OK) rc = m->p == 2 ? stage_encode(&h, &m->f2, &buf, &len, err, sizeof err)
                                       : stage_encode_p(&h, &m->fp, &buf, &len, err, sizeof err);
    if (rc == STAGE_OK && stage_committer_add(res->committer, path, buf, len) != 0) {
        snprintf(err, sizeof err, "%.500s: out of memory queueing the file", path);
        rc = STAGE_ENOMEM;
    }
    if (rc != STAGE_OK) {
        res_fail(res, "%s", err);
        return -1;
    }
    return 0;
}

int res_queue_stage(resolution *res, int kind, int s, deg_t t, uint32_t aux, const f2mat *m)
{
    fieldmat v = { .p = 2, .f2 = *m };     /* a view: m stays the caller's */
    return queue_stage(res, kind, s, t, aux, &v);
}

int res_keep_stage(resolution *res, int kind, int s, deg_t t, const f2mat *m)
{
    if (!(res->keep_stages & 1u << kind) || !res->keep) return 0;
    return res->keep(res, kind, s, t, m);
}

static int save_differential(resolution *res, int s, deg_t t, uint32_t n, const fm_gen *gens,
                             uint32_t width)
{
    if (!res->write_stages) return 0;
    if (n == 0) {       /* no generator: a journal record instead of an empty file */
        char path[4200];
        unsigned char rec[STAGE_JOURNAL_RECORD];
        stage_journal_path(path, sizeof path, res->outdir);
        stage_journal_record(rec, s, t, res->module_id, res->algorithm);
        if (stage_committer_add_record(res->committer, path, rec, sizeof rec) != 0) {
            res_fail(res, "out of memory queueing a journal record");
            return -1;
        }
        return 0;
    }
    fieldmat m;     /* the images as rows, in their own storage (freemod.h) */
    if (fieldmat_init(&m, res->prime, n, width) != 0) {
        res_fail(res, "out of memory encoding the stage file of (%d,%d)", s, t);
        return -1;
    }
    for (uint32_t k = 0; k < n; k++)
        memcpy(fieldmat_row(&m, k), gens[k].img, fieldvec_bytes(res->prime, width));
    int rc = queue_stage(res, STAGE_DIFFERENTIAL, s, t, width, &m);
    fieldmat_clear(&m);
    return rc;
}

int res_publish(resolution *res, int s, deg_t t, uint32_t n, fm_gen *gens, uint32_t width)
{
    if (save_differential(res, s, t, n, gens, width) != 0) {
        for (uint32_t k = 0; k < n; k++) free(gens[k].img);
        free(gens);
        return -1;
    }
    freemod_set_gens(&res->F[s], t, n, gens);
    *res_done(res, s, t) = 1;
    return 0;
}

/* Resume: (s, t) is loaded when its file is valid and what it was computed from is loaded:
 * F_s below t (from (s, t-1)) and F_{s-1} below t (from (s-1, t-1)). */
/* Reports a stage file that cannot be used; the first few by name, then a count. */
static void load_problem(resolution *res, long *problems, const char *msg, int s, deg_t t)
{
    if (++*problems <= 10 && res->load_action) fprintf(stderr, "extflow: %s; %s (%d,%d)\n", msg, res->load_action, s, t);
}

/* Out of memory while loading (s, t): the run fails (exit 1); nothing of (s, t) is published,
 * and no later bidegree is loaded. */
static int load_oom(resolution *res, int s, deg_t t, fieldmat *m)
{
    if (m) fieldmat_clear(m);
    res_fail(res, "out of memory loading the stage file of (%d,%d)", s, t);
    return 0;
}

/* Loads (s, t) if its file is valid and consistent (publish = 1), or only checks the file
 * (publish = 0: what it depends on is not loaded, so it will be recomputed anyway). */
static int load_one(resolution *res, int s, deg_t t, int publish, long *problems)
{
    char path[4200], err[600], msg[4900];
    stage_header h;
    uint32_t p = res->prime;
    fieldmat m = { .p = p };    /* read into the field's own matrix (format version 2 at odd p) */
    stage_path(path, sizeof path, res->outdir, STAGE_DIFFERENTIAL, s, t);
    int rc = p == 2 ? stage_read(path, &h, &m.f2, err, sizeof err) : stage_read_p(path, &h, &m.fp, err, sizeof err);
    if (rc == STAGE_ENOENT) {   /* no file: done if the journal says it had no generator */
        if (!publish || !res->empty_done[res_cell(res, s, t)]) return 0;
        fm_gen *none = calloc(1, sizeof *none);
        if (!none) return load_oom(res, s, t, NULL);
        freemod_set_gens(&res->F[s], t, 0, none);
        *res_done(res, s, t) = 1;
        return 1;
    }
    if (rc == STAGE_ENOMEM) return load_oom(res, s, t, NULL);  /* not a bad file */
    if (rc != STAGE_OK) {
        load_problem(res, problems, err, s, t);
        return 0;
    }
    rc = stage_expect(&h, STAGE_DIFFERENTIAL, s, t, res->module_id, res->algorithm, err, sizeof err);
    if (rc == STAGE_OK && p != 2 && h.prime != p) {
        snprintf(err, sizeof err, "prime %u, this resolution's is %u", h.prime, p);
        rc = STAGE_EMISMATCH;
    }
    uint32_t width = s == 0 ? res_module_dim(res, t) : (uint32_t)freemod_dim(&res->F[s - 1], t, t);
    if (rc == STAGE_OK && publish && fieldmat_cols(&m) != width) {
        snprintf(err, sizeof err, "width %u disagrees with the resolution (%u)", fieldmat_cols(&m), width);
        rc = STAGE_EMISMATCH;
    }
    if (rc != STAGE_OK || !publish) {
        snprintf(msg, sizeof msg, "%s: %s", path, err);
        if (rc != STAGE_OK) load_problem(res, problems, msg, s, t);
        fieldmat_clear(&m);
        return 0;
    }
    uint32_t rows = fieldmat_rows(&m);
    size_t bytes = fieldvec_bytes(p, width);
    fm_gen *gens = calloc(rows ? rows : 1, sizeof *gens);
    if (!gens) return load_oom(res, s, t, &m);
    for (uint32_t k = 0; k < rows; k++) {
        gens[k].bits = width;
        gens[k].img = malloc(bytes + 8);
        if (!gens[k].img) {     /* nothing of (s, t) is published */
            for (uint32_t j = 0; j < k; j++) free(gens[j].img);
            free(gens);
            return load_oom(res, s, t, &m);
        }
        memcpy(gens[k].img, fieldmat_row(&m, k), bytes);
    }
    freemod_set_gens(&res->F[s], t, rows, gens);
    *res_done(res, s, t) = 1;
    fieldmat_clear(&m);
    return 1;
}

static void mark_empty(int s, int t, void *ctx)
{
    resolution *res = ctx;
    if (s >= 0 && s <= res->max_s && t >= s && t - s <= res->max_n) res->empty_done[res_cell(res, s, t)] = 1;
}

long res_load_stages(resolution *res)
{
    long loaded = 0, problems = 0, bad_records = 0;
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    res->empty_done = calloc(cells, 1);
    if (!res->empty_done) {
        res_fail(res, "out of memory reading %s/stages", res->outdir);
        return 0;
    }
    stage_journal_read(res->outdir, res->module_id, res->algorithm, mark_empty, res, &bad_records);
    if (bad_records && res->load_action) {
        char err[600];
        fprintf(stderr, "extflow: %s/stages/empty.log: %ld records skipped (torn by a kill, damaged, or "
                "of another run); those bidegrees are recomputed\n", res->outdir, bad_records);
        if (res->write_stages && stage_journal_rewrite(res->outdir, res->module_id, res->algorithm, err,
                                                       sizeof err) != STAGE_OK)
            fprintf(stderr, "extflow: %s\n", err);
    }
    /* a fresh directory (no stage file, no journal record) has nothing to load: no open per bidegree */
    int any = stage_dir_has_files(res->outdir, STAGE_DIFFERENTIAL) || memchr(res->empty_done, 1, cells);
    for (deg_t t = 0; any && t <= res->max_t && !res->failed; t++)
        for (int s = 0; s <= res->max_s && s <= t && !res->failed; s++) {
            if (!res_in_region(res, s, t)) continue;
            int left = t - 1 < s || *res_done(res, s, t - 1);
            int below = s == 0 || t - 1 < s - 1 || *res_done(res, s - 1, t - 1) ||
                        !res_in_region(res, s - 1, t - 1);
            loaded += load_one(res, s, t, left && below, &problems);
        }
    if (problems > 10 && res->load_action)
        fprintf(stderr, "extflow: ... and %ld more stage files that cannot be used\n", problems - 10);
    return loaded;
}

/* Calls term(u, h, R, ctx) for each term Sq(R)·h of d(g), g at degree t: one per set bit of
 * g's image, h the generator of F (the target module) of degree u whose block holds it. */
typedef void term_fn(deg_t u, const fm_gen *h, const milnor_elt *R, void *ctx);
static void each_term(const resolution *res, const freemod *F, const fm_gen *g, deg_t t, term_fn *term, void *ctx)
{
    uint64_t off = 0;
    for (deg_t u = 0; u < t && off < g->bits; u++)
        for (uint32_t k = 0; k < F->ngens[u] && off < g->bits; k++)
            for (uint32_t r = 0; r < freemod_block(F, t - u, u); r++, off++)
                if (off < g->bits && f2vec_get(g->img, off))
                    term(u, &F->gens[u][k], &res->A.elts[t - u][F->ex ? excess_index(F->ex, t - u, r) : r], ctx);
}

/* Unstable: the wide columns of F in degree t (freemod_dim_wide, generators below t) that the
 * narrowing keeps, as a mask (the d∘d sums are made over the wide columns: a sum vanishes in F
 * when it has no bit there); NULL for a stable F, or out of memory (*oom set). */
static uint64_t *keep_mask(const freemod *F, deg_t t, int *oom)
{
    *oom = 0;
    if (!F->ex) return NULL;
    uint64_t *mask = calloc(f2vec_words((uint32_t)freemod_dim_wide(F, t, t)) + 1, 8), base = 0;
    if (!mask) {
        *oom = 1;
        return NULL;
    }
    for (deg_t v = freemod_first(F, t); v < t; v++)
        for (uint32_t k = 0; k < F->ngens[v]; k++, base += F->dim[t - v])
            for (uint32_t p = 0; p < freemod_block(F, t - v, v); p++)
                f2vec_flip(mask, base + excess_index(F->ex, t - v, p));
    return mask;
}

/* Is v (words words) zero on the kept columns (mask NULL: everywhere)? */
static int kept_zero(const uint64_t *v, const uint64_t *mask, size_t words)
{
    if (!mask) return f2vec_is_zero(v, words);
    for (size_t w = 0; w < words; w++)
        if (v[w] & mask[w]) return 0;
    return 1;
}

typedef struct dd_acc {
    const resolution *res;
    int s;
    deg_t t;
    uint64_t *acc;
} dd_acc;

/* With a module, s = 1: d_0(Sq(R) h) = Sq(R)·d_0(h) in M_t, read off the action table. */
static void add_d0_term(deg_t u, const fm_gen *h, const milnor_elt *R, void *ctx)
{
    dd_acc *a = ctx;
    const fd_module *m = a->res->module;
    if (a->t - u > m->max_deg - m->min_deg) return;
    uint32_t mr = milnor_index(&m->A, R), words = (uint32_t)f2vec_words(res_module_dim(a->res, a->t));
    for (uint32_t b = 0; b < h->bits; b++) {
        const uint64_t *y = f2vec_get(h->img, b) ? fdm_act(m, u + a->res->shift, b, a->t - u, mr) : NULL;
        if (y) f2vec_xor(a->acc, y, words);
    }
}

/* s >= 2: Sq(R)·d(h), d(h) = sum Sq(S) g'' over F_{s-2} in degree u, by single products. */
static void add_d_term(deg_t u, const fm_gen *h, const milnor_elt *R, void *ctx)
{
    dd_acc *a = ctx;
    const resolution *res = a->res;
    const freemod *F2 = &res->F[a->s - 2];
    uint64_t hoff = 0;
    for (deg_t v = 0; v < u && hoff < h->bits; v++)
        for (uint32_t q = 0; q < F2->ngens[v] && hoff < h->bits; q++) {
            /* unstable: the product over the wide block (the caller tests the kept columns) */
            uint64_t col = F2->ex ? freemod_dim_wide(F2, a->t, v) + (uint64_t)q * F2->dim[a->t - v]
                                  : freemod_offset(F2, a->t, v, q);
            for (uint32_t j = 0; j < freemod_block(F2, u - v, v); j++, hoff++)
                if (hoff < h->bits && f2vec_get(h->img, hoff))
                    milnor_mul_into(&res->A, R, &res->A.elts[u - v][F2->ex ? excess_index(F2->ex, u - v, j) : j],
                                    a->acc, col);
        }
}

/* d(d(g)) for g at (s, t): expand d(g) = sum Sq(R) g' over F_{s-1}, apply d to each term
 * (with a module at s = 1: d_0 into M), and check the sum vanishes. */
int res_check_dd(const resolution *res, int s, deg_t t)
{
    if (res->prime != 2) return -1;     /* odd p: res_check_dd_p (stages/resolve/resolution_p.h) */
    int module0 = s == 1 && res->module;
    if (s < 2 && !module0) return 1;
    uint32_t width = module0 ? res_module_dim(res, t) : (uint32_t)freemod_dim_wide(&res->F[s - 2], t, t);
    size_t words = f2vec_words(width) + 1;
    int oom;
    uint64_t *mask = module0 ? NULL : keep_mask(&res->F[s - 2], t, &oom);
    dd_acc a = { res, s, t, calloc(words, 8) };
    if (!a.acc || (!module0 && oom)) {
        free(a.acc);
        free(mask);
        return -1;
    }
    int zero = 1;
    for (uint32_t i = 0; i < res->F[s].ngens[t]; i++) {
        memset(a.acc, 0, words * 8);
        each_term(res, &res->F[s - 1], &res->F[s].gens[t][i], t, module0 ? add_d0_term : add_d_term, &a);
        if (!kept_zero(a.acc, mask, f2vec_words(width))) zero = 0;
    }
    free(a.acc);
    free(mask);
    return zero;
}

/* The next chunk of rows sel[next..) of d_{s-1} at degree t (rb_append), zeroed, into d->b. */
static int dd_plan_chunk(const resolution *res, int s, deg_t t, res_dd *d)
{
    uint32_t n = d->nsel - d->next < d->chunk ? d->nsel - d->next : d->chunk;
    rb_clear(&d->b);
    if (rb_append(&d->b, &res->F[s - 1], &res->F[s - 2], &res->A, t, d->sel + d->next, n) != 0 || d->b.nrows != n || rb_alloc(&d->b, d->width) != 0)
        return -1;
    return 0;
}

int res_dd_begin(const resolution *res, int s, deg_t t, res_dd *d)
{
    memset(d, 0, sizeof *d);
    d->n = res->F[s].ngens[t];
    if (s < 2 || !d->n) return 0;
    uint32_t rows = (uint32_t)freemod_dim(&res->F[s - 1], t, t);
    d->width = (uint32_t)freemod_dim_wide(&res->F[s - 2], t, t);     /* the products' columns */
    d->words = f2vec_words(d->width);
    int oom;
    d->keep = keep_mask(&res->F[s - 2], t, &oom);
    if (oom) return -1;
    /* about 32 MB of rows a chunk, and at least RES_DD_CHUNK rows */
    uint64_t fit = (32ull << 20) / (8 * (uint64_t)d->words + 8);
    d->chunk = fit > RES_DD_CHUNK ? (fit < UINT32_MAX ? (uint32_t)fit : UINT32_MAX) : RES_DD_CHUNK;
    d->sel = malloc(((size_t)rows + 1) * sizeof *d->sel);
    d->acc = calloc((size_t)d->n * d->words + 1, 8);
    uint64_t *mask = calloc(f2vec_words(rows) + 1, 8);
    if (!d->sel || !d->acc || !mask) {
        free(mask);
        return -1;
    }
    for (uint32_t i = 0; i < d->n; i++) {       /* the bits some d(g) has */
        const fm_gen *g = &res->F[s].gens[t][i];
        for (size_t w = 0; w < f2vec_words(g->bits < rows ? g->bits : rows); w++) mask[w] |= g->img[w];
    }
    for (uint32_t j = 0; j < rows; j++)
        if (f2vec_get(mask, j)) d->sel[d->nsel++] = j;
    free(mask);
    return d->nsel ? dd_plan_chunk(res, s, t, d) : 0;
}

int res_dd_next(const resolution *res, int s, deg_t t, res_dd *d)
{
    const uint32_t *sel = d->sel + d->next;
    for (uint32_t i = 0; i < d->n && d->b.nrows; i++) {   /* acc[i] ^= the rows of the bits of d(g_i) */
        const fm_gen *g = &res->F[s].gens[t][i];
        for (uint32_t k = 0; k < d->b.nrows; k++)
            if (sel[k] < g->bits && f2vec_get(g->img, sel[k]))
                f2vec_xor(d->acc + (size_t)i * d->words, f2mat_row(&d->b.D, k), d->words);
    }
    d->next += d->b.nrows;
    rb_clear(&d->b);
    if (d->next >= d->nsel) return 0;
    return dd_plan_chunk(res, s, t, d) == 0 ? 1 : -1;
}

int res_dd_result(res_dd *d)
{
    int zero = 1;
    for (uint32_t i = 0; i < d->n && d->acc; i++)
        if (!kept_zero(d->acc + (size_t)i * d->words, d->keep, d->words)) zero = 0;
    return zero;
}

void res_dd_clear(res_dd *d)
{
    rb_clear(&d->b);
    free(d->sel);
    free(d->acc);
    free(d->keep);
    memset(d, 0, sizeof *d);
}

int res_check_dd_batch(const resolution *res, int s, deg_t t)
{
    if (s < 2 || res->prime != 2) return res_check_dd(res, s, t);    /* odd p: -1 */
    res_dd d;
    int rc = res_dd_begin(res, s, t, &d);
    while (rc == 0 && d.b.nrows) {
        rb_multiply(&d.b, &res->A, 0, d.b.nrows);
        rc = res_dd_next(res, s, t, &d) < 0 ? -1 : 0;
    }
    rc = rc ? -1 : res_dd_result(&d);
    res_dd_clear(&d);
    return rc;
}

/* A team for a rows x cols matrix's reduction by c's running piece (res_rref), or NULL. */
static team *rref_team(step_ctx *c, uint64_t rows, uint64_t cols)
{
    return c->ch.next && c->ch.next->team ? c->ch.next->team(&c->ch, f2mat_bytes_for(rows, cols)) : NULL;
}

int res_rref(step_ctx *c, f2mat *m, int32_t *pivots)
{
    team *tm = rref_team(c, m->rows, m->cols);
    int rank = f2mat_rref_team(m, pivots, tm);
    team_end(tm);
    return rank;
}

int res_rref_augmented(step_ctx *c, const f2mat *a, f2mat *aug, int32_t **pivots)
{
    team *tm = rref_team(c, a->rows, (uint64_t)f2mat_segment_start(a->cols) + a->rows);
    int rank = f2mat_rref_augmented_team(a, aug, pivots, tm);
    team_end(tm);
    return rank;
}

uint32_t res_cut_runs(uint32_t first, uint32_t end, uint64_t (*weight)(const void *ctx, uint32_t i), const void *ctx,
                      uint64_t per, uint32_t most, uint32_t **bounds)
{
    uint64_t total = 0, n, sum = 0;
    uint32_t items = 0, k = 0;
    *bounds = NULL;
    if (per == 0) return 0;
    for (uint32_t i = first; i < end; i++)
        if (weight(ctx, i)) total += weight(ctx, i), items++;
    n = total / per;
    if (n > items) n = items;
    if (n > most) n = most;
    if (n < 2 || !(*bounds = malloc((n + 1) * sizeof **bounds))) return 0;
    (*bounds)[0] = first;
    for (uint32_t i = first; i < end && k + 1 < n; i++) {
        sum += weight(ctx, i);
        if (sum * n >= (k + 1) * total) (*bounds)[++k] = i + 1;
    }
    while (k < n) (*bounds)[++k] = end;
    return (uint32_t)n;
}
