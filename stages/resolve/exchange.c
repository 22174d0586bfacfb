/* exchange.c — one bidegree's generators (and kernel) as bytes between ranks (see exchange.h). */
#include "stages/resolve/exchange.h"
#include <stdlib.h>
#include <string.h>
#include "stages/resolve/stepprogress.h"

#define EXCHANGE_MAGIC 0x31465845u   /* "EXF1" */
enum { H_MAGIC, H_S, H_T, H_FLAGS, H_N, H_WIDTH, H_KROWS, H_KCOLS, H_WORDS };

int exchange_pack(resolution *res, int s, deg_t t, int kernel, void **out, size_t *len)
{
    uint32_t h[H_WORDS] = { EXCHANGE_MAGIC, (uint32_t)s, (uint32_t)t, 0, 0, 0, 0, 0 };
    f2mat *k = kernel == EXCHANGE_KERNEL_KEEP ? NULL : *res_kernel_slot(res, s, t);
    if (k && kernel == EXCHANGE_KERNEL_DROP) {
        *res_kernel_slot(res, s, t) = NULL;
        f2mat_clear(k);
        free(k);
        k = NULL;
    }
    if (res_check_writes(res)) h[H_FLAGS] = EXCHANGE_FAILED;
    else if (!*res_done(res, s, t)) h[H_FLAGS] = EXCHANGE_CANCELLED;  /* its step never ran */
    else {
        h[H_N] = res->F[s].ngens[t];
        h[H_WIDTH] = h[H_N] ? res->F[s].gens[t][0].bits : 0;
        if (k) {
            h[H_FLAGS] = EXCHANGE_KERNEL;
            h[H_KROWS] = k->rows;
            h[H_KCOLS] = k->cols;
        }
    }
    size_t gw = f2vec_words(h[H_WIDTH]), kw = f2vec_words(h[H_KCOLS]);
    *len = sizeof h + 8 * ((size_t)h[H_N] * gw + (size_t)h[H_KROWS] * kw);
    unsigned char *b = malloc(*len);
    if (!b) {
        res_fail(res, "out of memory packing (%d,%d) for the other ranks", s, t);
        return -1;
    }
    memcpy(b, h, sizeof h);
    uint64_t *w = (uint64_t *)(b + sizeof h);
    for (uint32_t i = 0; i < h[H_N]; i++, w += gw) memcpy(w, res->F[s].gens[t][i].img, gw * 8);
    for (uint32_t i = 0; i < h[H_KROWS]; i++, w += kw) memcpy(w, f2mat_row(k, i), kw * 8);
    if (k) {    /* handed over: the owner of row s + 1 is another rank */
        *res_kernel_slot(res, s, t) = NULL;
        f2mat_clear(k);
        free(k);
    }
    *out = b;
    return 0;
}

int exchange_unpack(resolution *res, int s, deg_t t, int take_kernel, const void *buf, size_t len)
{
    uint32_t h[H_WORDS];
    if (len < sizeof h) goto bad;
    memcpy(h, buf, sizeof h);
    if (h[H_MAGIC] != EXCHANGE_MAGIC || h[H_S] != (uint32_t)s || h[H_T] != (uint32_t)t) goto bad;
    if (h[H_FLAGS] & EXCHANGE_FAILED) {
        res_fail(res, "another rank failed before publishing (%d,%d)", s, t);
        return -1;
    }
    if (h[H_FLAGS] & EXCHANGE_CANCELLED) {  /* not done: the steps that read it are cancelled */
        if (len != sizeof h) goto bad;
        res->stopped_elsewhere = 1;
        return 0;
    }
    size_t gw = f2vec_words(h[H_WIDTH]), kw = f2vec_words(h[H_KCOLS]);
    if (len != sizeof h + 8 * ((size_t)h[H_N] * gw + (size_t)h[H_KROWS] * kw)) goto bad;
    const uint64_t *w = (const uint64_t *)((const unsigned char *)buf + sizeof h);
    fm_gen *gens = calloc(h[H_N] ? h[H_N] : 1, sizeof *gens);
    if (!gens) goto oom;
    for (uint32_t i = 0; i < h[H_N]; i++, w += gw) {
        gens[i].bits = h[H_WIDTH];
        if (!(gens[i].img = malloc(gw * 8 + 8))) {
            for (uint32_t j = 0; j < i; j++) free(gens[j].img);
            free(gens);
            goto oom;
        }
        memcpy(gens[i].img, w, gw * 8);
    }
    if (take_kernel && (h[H_FLAGS] & EXCHANGE_KERNEL)) {
        f2mat *k = calloc(1, sizeof *k);
        if (!k || f2mat_init(k, h[H_KROWS], h[H_KCOLS]) != 0) {
            free(k);
            for (uint32_t j = 0; j < h[H_N]; j++) free(gens[j].img);
            free(gens);
            goto oom;
        }
        for (uint32_t i = 0; i < h[H_KROWS]; i++, w += kw) memcpy(f2mat_row(k, i), w, kw * 8);
        *res_kernel_slot(res, s, t) = k;
    }
    freemod_set_gens(&res->F[s], t, h[H_N], gens);
    *res_done(res, s, t) = 1;
    return 0;
bad:
    res_fail(res, "internal error: the bytes received for (%d,%d) are not its generators", s, t);
    return -1;
oom:
    res_fail(res, "out of memory receiving (%d,%d) from another rank", s, t);
    return -1;
}

static int kernel_wanted(void *owner, int s, deg_t t) { return res_kernel_wanted(owner, s, t); }
static int pack(void *owner, int s, deg_t t, int kernel, void **out, size_t *len)
{
    return exchange_pack(owner, s, t, kernel, out, len);
}
static int unpack(void *owner, int s, deg_t t, int take_kernel, const void *buf, size_t len)
{
    return exchange_unpack(owner, s, t, take_kernel, buf, len);
}
static void received(void *owner, int s, deg_t t)
{
    (void)owner;
    progress_step_done(s, t);
}
const chain_exchange res_exchange = { kernel_wanted, pack, unpack, received };
