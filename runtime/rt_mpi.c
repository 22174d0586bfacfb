/* rt_mpi.c — the resolution over several MPI ranks with StarPU-MPI (see rt_mpi.h). */
#include "runtime/rt_mpi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runtime/rt_tags.h"
#include "stages/exchange.h"
#include "stages/progress.h"
#include "stages/step.h"

#ifdef EXTFLOW_MPI
#include <mpi.h>
#include <starpu_mpi.h>
#include "codelets/blob.h"
#include "codelets/codelets.h"

static int mpi_started, mpi_rank, mpi_size = 1;

/* Started by a launcher: Open MPI's mpirun and PMIx-based srun set these. */
static int launched_by_mpi(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE");
}

int rt_mpi_start(int *argc, char ***argv)
{
    if (!launched_by_mpi()) return 0;
    /* StarPU-MPI's thread polls while any receive is pending (every run, from the start);
     * letting Open MPI yield when idle gives the core back to the workers when ranks share
     * cores (docs/perf.md: a 2-rank run on 2 cores went from 1.8x to 1.0x one process's
     * time). The user's setting wins. */
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
    int provided;
    /* MULTIPLE: the few plain MPI calls of rt_mpi_* may come while StarPU-MPI's thread runs */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "extflow: MPI failed to start\n");
        return -1;
    }
    mpi_started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
    if (provided < MPI_THREAD_MULTIPLE && mpi_size > 1) {
        if (mpi_rank == 0) fprintf(stderr, "extflow: this MPI library does not provide MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        mpi_started = 0;
        return -1;
    }
    return 0;
}

void rt_mpi_finish(void)
{
    if (mpi_started) MPI_Finalize();
    mpi_started = 0;
}

int rt_mpi_rank(void) { return mpi_rank; }
int rt_mpi_size(void) { return mpi_size; }

void rt_mpi_bcast(void *buf, size_t len)
{
    if (mpi_size > 1) MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
}

void rt_mpi_barrier(void)
{
    if (mpi_size > 1) MPI_Barrier(MPI_COMM_WORLD);
}

int rt_mpi_max(int v)
{
    int m = v;
    if (mpi_size > 1) MPI_Allreduce(&v, &m, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int rt_mpi_agree_failure(resolution *res)
{
    if (mpi_size <= 1) return res_failed(res);
    /* first-hand failures rank before those caused by another rank's (exchange.c's message) */
    int failed = res_failed(res), secondary = failed && strstr(res->error, "another rank failed") != NULL;
    int mine = !failed ? 2 * mpi_size : secondary ? mpi_size + mpi_rank : mpi_rank, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == 2 * mpi_size) return 0;
    int from = first % mpi_size;
    char msg[sizeof res->error];
    if (mpi_rank == from) snprintf(msg, sizeof msg, "rank %d: %.480s", from, res->error);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, from, MPI_COMM_WORLD);
    res_fail(res, "%s", msg);
    snprintf(res->error, sizeof res->error, "%s", msg);
    return 1;
}

void rt_mpi_gather_bytes(unsigned long long mine, unsigned long long *per_rank)
{
    if (mpi_size <= 1) {
        per_rank[0] = mine;
        return;
    }
    MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, per_rank, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
}

int rt_mpi_starpu_init(struct starpu_conf *conf)
{
    return starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
}

void rt_mpi_starpu_shutdown(void) { starpu_mpi_shutdown(); }

struct rt_dist {
    resolution *res;
    int rank, size, rule;           /* enum owner_rule */
    unsigned long long bytes_sent;  /* blob bytes times the readers on other ranks, this rank */
    uint8_t *done;                  /* res->done before anything ran: the same on every rank */
};

enum owner_rule { OWNER_ROWS, OWNER_PAIRS, OWNER_BLOCKS };

/* pairs (the default): floor(s/2) mod N; rows: s mod N; blocks: N bands of consecutive rows
 * (docs/design.md, "Ownership", and docs/perf.md for the measurements behind the choice) */
static int owner_of(const rt_dist *d, int s)
{
    switch (d->rule) {
    case OWNER_ROWS: return s % d->size;
    case OWNER_BLOCKS: return (int)((int64_t)s * d->size / (d->res->max_s + 1));
    default: return s / 2 % d->size;
    }
}

rt_dist *rt_dist_new(resolution *res)
{
    if (mpi_size <= 1) return NULL;
    rt_dist *d = calloc(1, sizeof *d);
    if (!d) {
        res_fail(res, "out of memory starting the run");
        return NULL;
    }
    const char *o = getenv("EXTFLOW_MPI_OWNER");
    size_t cells = (size_t)(res->max_s + 1) * ((size_t)res->max_n + 1);
    if (!(d->done = malloc(cells))) {
        free(d);
        res_fail(res, "out of memory starting the run");
        return NULL;
    }
    memcpy(d->done, res->done, cells);
    d->res = res;
    d->rank = mpi_rank;
    d->size = mpi_size;
    d->rule = !o ? OWNER_PAIRS : !strcmp(o, "rows") ? OWNER_ROWS : !strcmp(o, "blocks") ? OWNER_BLOCKS : OWNER_PAIRS;
    return d;
}

int rt_dist_owns(const rt_dist *d, int s, deg_t t)
{
    (void)t;
    return owner_of(d, s) == d->rank;
}

starpu_tag_t rt_dist_ready_tag(const rt_dist *d, int s, deg_t t)
{
    return tag_of(owner_of(d, s) == d->rank ? TAG_DONE : TAG_RECEIVED, s, t);
}

/* (s, t) has a task that fires its ready tag in this run. */
static int pending(const rt_dist *d, int s, deg_t t)
{
    return s >= 0 && res_in_region(d->res, s, t) && !d->done[res_cell(d->res, s, t)];
}

int rt_dist_extra_deps(const rt_dist *d, int s, deg_t t, starpu_tag_t *deps)
{
    int n = 0;
    /* row s-1 up to degree t-1 (Nassau; the stem edge: up to t-2), row s-2 up to t-2 */
    if (pending(d, s - 1, t - 1)) deps[n++] = rt_dist_ready_tag(d, s - 1, t - 1);
    else if (pending(d, s - 1, t - 2)) deps[n++] = rt_dist_ready_tag(d, s - 1, t - 2);
    if (pending(d, s - 2, t - 2)) deps[n++] = rt_dist_ready_tag(d, s - 2, t - 2);
    return n;
}

/* The ranks other than row s's owner that read (s, t), ascending; returns how many. */
static int readers_of(const rt_dist *d, int s, int *r)
{
    int n = 0, own = owner_of(d, s);
    int cand[3] = { 0, s + 1 <= d->res->max_s ? owner_of(d, s + 1) : own,
                    s + 2 <= d->res->max_s ? owner_of(d, s + 2) : own };
    for (int k = 0; k < d->size; k++)
        for (int c = 0; c < 3; c++)
            if (cand[c] == k && k != own) {
                r[n++] = k;
                break;
            }
    return n;
}

static void received(void *arg)
{
    uint64_t st = (uint64_t)(uintptr_t)arg;
    progress_step_done((int)(st >> 32), (deg_t)(uint32_t)st);
}

static void submit_failed(resolution *res, int ret, const char *what)
{
    if (ret != 0) res_fail(res, "StarPU-MPI refused a %s task: %s", what, strerror(-ret));
}

/* (s, t)'s blob: publish on the owner, receive on each reader; the same calls on every rank. */
static void submit_exchange(rt_dist *d, int s, deg_t t)
{
    resolution *res = d->res;
    int readers[3], nr = readers_of(d, s, readers), own = owner_of(d, s);
    if (nr == 0) return;
    /* the kernel goes with it when the standard step of row s+1 is elsewhere, except at row 0:
     * d_0 has no Milnor products, so the reader recomputes that kernel on the spot
     * (res_compute_kernel) for less than sending it (dim A_t squared bits; docs/perf.md) */
    int kernel = !res_kernel_wanted(res, s, t) || owner_of(d, s + 1) == own ? EXCHANGE_KERNEL_KEEP
                 : s >= 1 ? EXCHANGE_KERNEL_SEND : EXCHANGE_KERNEL_DROP;
    starpu_data_handle_t blob;
    blob_register_empty(&blob);
    starpu_mpi_data_register(blob, (starpu_mpi_tag_t)tag_of(TAG_BLOB, s, t), own);
    struct cl_exchange_args a = { res, s, t, kernel, &d->bytes_sent, nr };
    starpu_tag_t done = tag_of(TAG_DONE, s, t), pub = tag_of(TAG_PUBLISH, s, t);
    if (own == d->rank) starpu_tag_declare_deps(pub, 1, done);
    submit_failed(res, starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_publish, STARPU_W, blob, STARPU_TAG, pub,
                                              STARPU_VALUE, &a, sizeof a, STARPU_PRIORITY, STARPU_MAX_PRIO,
                                              STARPU_NAME, "publish", 0),
                  "publish");
    for (int k = 0; k < nr; k++) {
        int r = readers[k];
        a.kernel = kernel == EXCHANGE_KERNEL_SEND && r == owner_of(d, s + 1);
        starpu_tag_t got = tag_of(TAG_RECEIVED, s, t);
        if (r == d->rank && pending(d, s, t - 1)) {   /* a row arrives in order of degree */
            starpu_tag_t prev = tag_of(TAG_RECEIVED, s, t - 1);
            starpu_tag_declare_deps(got, 1, prev);
        }
        submit_failed(res, starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_receive, STARPU_R, blob,
                                                  STARPU_EXECUTE_ON_NODE, r, STARPU_TAG, got,
                                                  STARPU_VALUE, &a, sizeof a, STARPU_PRIORITY, STARPU_MAX_PRIO,
                                                  STARPU_CALLBACK_WITH_ARG_NFREE, received,
                                                  (void *)(uintptr_t)((uint64_t)(uint32_t)s << 32 | (uint32_t)t),
                                                  STARPU_NAME, "receive", 0),
                      "receive");
    }
    starpu_data_unregister_submit(blob);
}

void rt_dist_submit_exchanges(rt_dist *d)
{
    resolution *res = d->res;
    d->bytes_sent = 0;
    for (deg_t t = 0; t <= res->max_t; t++)
        for (int s = 0; s <= res->max_s && s <= t; s++)
            if (pending(d, s, t)) submit_exchange(d, s, t);
}

void rt_dist_finish(rt_dist *d, int verbose)
{
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
    unsigned long long per_rank[4096] = { 0 };
    if (verbose && d->size <= 4096) {
        rt_mpi_gather_bytes(d->bytes_sent, per_rank);
        for (int r = 0; r < d->size && d->rank == 0; r++)
            fprintf(stderr, "extflow: rank %d sent %.3f MB of generators to other ranks\n", r, per_rank[r] / 1e6);
    }
    free(d->done);
    free(d);
}

#else   /* a build without MPI: one rank */

int rt_mpi_start(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
void rt_mpi_finish(void) {}
int rt_mpi_rank(void) { return 0; }
int rt_mpi_size(void) { return 1; }
void rt_mpi_bcast(void *buf, size_t len) { (void)buf; (void)len; }
void rt_mpi_barrier(void) {}
int rt_mpi_max(int v) { return v; }
int rt_mpi_agree_failure(resolution *res) { return res_failed(res); }
void rt_mpi_gather_bytes(unsigned long long mine, unsigned long long *per_rank) { per_rank[0] = mine; }
int rt_mpi_starpu_init(struct starpu_conf *conf) { return starpu_init(conf); }
void rt_mpi_starpu_shutdown(void) { starpu_shutdown(); }
rt_dist *rt_dist_new(resolution *res) { (void)res; return NULL; }
int rt_dist_owns(const rt_dist *d, int s, deg_t t) { (void)d; (void)s; (void)t; return 1; }
starpu_tag_t rt_dist_ready_tag(const rt_dist *d, int s, deg_t t) { (void)d; return tag_of(TAG_DONE, s, t); }
int rt_dist_extra_deps(const rt_dist *d, int s, deg_t t, starpu_tag_t *deps)
{ (void)d; (void)s; (void)t; (void)deps; return 0; }
void rt_dist_submit_exchanges(rt_dist *d) { (void)d; }
void rt_dist_finish(rt_dist *d, int verbose) { (void)d; (void)verbose; }

#endif
