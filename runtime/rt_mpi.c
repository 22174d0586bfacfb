/* rt_mpi.c — the resolution over several MPI ranks with StarPU-MPI (see rt_mpi.h). */
#include "runtime/rt_mpi.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>
#include "runtime/rt_tags.h"

/* pairs (the default): floor(s/2) mod N; rows: s mod N; blocks: N bands of consecutive rows
 * (docs/design.md, "Ownership", and docs/perf.md for the measurements behind the choice) */
int rt_mpi_owner(int rule, int s, int ranks, int max_s)
{
    switch (rule) {
    case OWNER_ROWS: return s % ranks;
    case OWNER_BLOCKS: return (int)((int64_t)s * ranks / (max_s + 1));
    default: return s / 2 % ranks;
    }
}

/* rt_mpi_gatherv on one rank: a copy. */
static int gather_copy(const void *buf, size_t len, void **all, size_t **at)
{
    *all = malloc(len ? len : 1);
    *at = malloc(2 * sizeof **at);
    if (!*all || !*at) {
        free(*all), free(*at);
        *all = NULL, *at = NULL;
        return -1;
    }
    if (len) memcpy(*all, buf, len);
    (*at)[0] = 0, (*at)[1] = len;
    return 0;
}

#ifdef EXTFLOW_MPI
#include <hwloc.h>
#include <mpi.h>
#include <starpu_mpi.h>
#include "codelets/blob.h"
#include "codelets/codelets.h"

static int mpi_started, mpi_rank, mpi_size = 1;

static char placement[600];       /* what place_local_ranks did, for the EXTFLOW_STATS line */

/* The CPUs the ranks on this node may use, split between them (docs/design.md, "CPUs of the
 * ranks on one node"). StarPU 1.3 binds worker i to the machine's CPU i and ignores the
 * launcher's binding (STARPU_WORKERS_GETBIND defaults to 0), so without this every rank of a
 * node put its workers on the same first CPUs: 2 ranks x 8 workers on 16 cores ran 16 workers
 * on cores 0-7 (docs/perf.md). Where the launcher gave each rank its own CPUs (disjoint, at
 * least 2 each: --map-by slot:PE=k, srun --cpus-per-task), StarPU is told to keep them; else
 * (Open MPI's default of one core per rank, --bind-to none) local rank i of n is bound to the
 * i-th of n equal blocks of the CPUs the node allows (several ranks share a CPU when n exceeds
 * them) and StarPU keeps that (with STARPU_WORKERS_NOBIND=1 the workers float inside it).
 * STARPU_WORKERS_{GETBIND,CPUID,COREID} set by the user, or EXTFLOW_MPI_BIND=no, leave
 * everything as it was. Called once, after MPI_Init. */
static void place_local_ranks(void)
{
    const char *mine = getenv("EXTFLOW_MPI_BIND");
    static const char *const user[] = { "STARPU_WORKERS_GETBIND", "STARPU_WORKERS_CPUID", "STARPU_WORKERS_COREID" };
    for (size_t i = 0; i < sizeof user / sizeof *user; i++)
        if (getenv(user[i])) {
            snprintf(placement, sizeof placement, "left to StarPU (%s is set)", user[i]);
            return;
        }
    if (mine && !strcmp(mine, "no")) {
        snprintf(placement, sizeof placement, "left to StarPU (EXTFLOW_MPI_BIND=no)");
        return;
    }
    MPI_Comm local;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) != MPI_SUCCESS) return;
    int lr, ln;
    MPI_Comm_rank(local, &lr);
    MPI_Comm_size(local, &ln);
    hwloc_topology_t topo;
    int inited = hwloc_topology_init(&topo) == 0, topo_ok = inited && hwloc_topology_load(topo) == 0;
    hwloc_bitmap_t have = hwloc_bitmap_alloc(), set = hwloc_bitmap_alloc();
    char mask[1024] = "", all[1024];
    /* a rank that cannot read its binding still takes part below (an empty mask: no split) */
    int ok = topo_ok && have && set && hwloc_get_cpubind(topo, have, HWLOC_CPUBIND_PROCESS) == 0;
    if (ok) hwloc_bitmap_list_snprintf(mask, sizeof mask, have);
    /* every local rank's binding, to see whether the launcher already split the node */
    char *masks = calloc((size_t)ln, sizeof mask);
    MPI_Allgather(mask, (int)sizeof mask, MPI_CHAR, masks ? masks : all, masks ? (int)sizeof mask : 0, MPI_CHAR, local);
    int split = masks && ln > 1;    /* the same answer on every local rank: all pairs looked at */
    hwloc_bitmap_t other = hwloc_bitmap_alloc();
    for (int i = 0; split && i < ln; i++) {
        if (!other || hwloc_bitmap_list_sscanf(set, masks + (size_t)i * sizeof mask) != 0 || hwloc_bitmap_weight(set) < 2)
            split = 0;
        for (int j = i + 1; split && j < ln; j++)
            if (hwloc_bitmap_list_sscanf(other, masks + (size_t)j * sizeof mask) != 0 || hwloc_bitmap_intersects(set, other))
                split = 0;
    }
    hwloc_bitmap_free(other);
    if (ln > 1) {
        /* StarPU keys its bus calibration and perfmodels by host name and checks the CPU count
         * the files were made with: ranks that see a part of the host would each redo the
         * calibration, all at once, into the same files (one rank then aborted reading another's
         * half-written vm.affinity, seen on this VM) and undo that of one process. A name per
         * local rank keeps each its own; the user's STARPU_HOSTNAME wins. */
        char host[200] = "host", name[256];
        gethostname(host, sizeof host - 1);
        snprintf(name, sizeof name, "%s-rank%dof%d", host, lr, ln);
        setenv("STARPU_HOSTNAME", name, 0);
    }
    if (ln <= 1) {
        snprintf(placement, sizeof placement, "alone on its node: left to StarPU");
    } else if (split) {
        setenv("STARPU_WORKERS_GETBIND", "1", 1);
        snprintf(placement, sizeof placement, "the launcher's CPUs %.200s kept (local rank %d of %d)", mask, lr, ln);
    } else if (!ok) {
        snprintf(placement, sizeof placement, "its binding could not be read: left to StarPU");
    } else {
        hwloc_const_bitmap_t allowed = hwloc_topology_get_allowed_cpuset(topo);
        int npu = hwloc_bitmap_weight(allowed), first = (int)((long)lr * npu / ln),
            last = (int)((long)(lr + 1) * npu / ln) - 1, k = 0, id;
        if (last < first) last = first;
        hwloc_bitmap_zero(set);
        hwloc_bitmap_foreach_begin(id, allowed)
            if (k >= first && k <= last) hwloc_bitmap_set(set, (unsigned)id);
            k++;
        hwloc_bitmap_foreach_end();
        hwloc_bitmap_list_snprintf(all, sizeof all, set);
        if (npu > 0 && hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            setenv("STARPU_WORKERS_GETBIND", "1", 1);
            /* one CPU: StarPU-MPI would keep it for its thread and start no worker at all */
            if (hwloc_bitmap_weight(set) < 2) setenv("STARPU_NCPU", "1", 0);
            snprintf(placement, sizeof placement, "bound to CPUs %.200s (local rank %d of %d; the launcher's: %.200s)", all,
                     lr, ln, mask);
        } else {
            snprintf(placement, sizeof placement, "binding to CPUs %.200s failed: left to StarPU", all);
        }
    }
    free(masks);
    hwloc_bitmap_free(have);
    hwloc_bitmap_free(set);
    if (inited) hwloc_topology_destroy(topo);
    MPI_Comm_free(&local);
}

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
    /* Our StarPU build (scripts/starpu-1.3.10-mpi-idle-sleep.patch) lets that thread sleep up
     * to this many microseconds when a poll found nothing, and then keeps no core for it: each
     * rank runs a worker on every core it has (docs/perf.md, "StarPU-MPI's thread sleeping when
     * idle"). Debian's StarPU ignores the variable and keeps the core. The user's setting wins. */
    setenv("STARPU_MPI_IDLE_SLEEP_US", "100", 0);
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
    place_local_ranks();
    return 0;
}

void rt_mpi_finish(void)
{
    if (mpi_started) MPI_Finalize();
    mpi_started = 0;
}

int rt_mpi_launched(void) { return launched_by_mpi(); }
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

int rt_mpi_agree_failure(int failed, char *error, size_t size)
{
    if (mpi_size <= 1) return failed;
    /* first-hand failures rank before those caused by another rank's (exchange.c's message) */
    int secondary = failed && strstr(error, "another rank failed") != NULL;
    int mine = !failed ? 2 * mpi_size : secondary ? mpi_size + mpi_rank : mpi_rank, first;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == 2 * mpi_size) return 0;
    int from = first % mpi_size;
    char msg[RT_MPI_ERROR_BYTES];
    if (mpi_rank == from) snprintf(msg, sizeof msg, "rank %d: %.480s", from, error);
    MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, from, MPI_COMM_WORLD);
    snprintf(error, size, "%s", msg);
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

/* Every rank's bytes to rank 0 (to_all: to every rank), as rt_mpi_gatherv says. */
static int gather_bytes(const void *buf, size_t len, void **all, size_t **at, int to_all)
{
    *all = NULL, *at = NULL;
    if (mpi_size <= 1) return gather_copy(buf, len, all, at);
    int receives = to_all || mpi_rank == 0;
    unsigned long long mine = len, *lens = calloc((size_t)mpi_size, sizeof *lens), total = 0;
    int *counts = calloc((size_t)mpi_size, sizeof *counts), *displs = calloc((size_t)mpi_size, sizeof *displs);
    int ok = !rt_mpi_max(!lens || !counts || !displs);
    if (ok) MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, lens, 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < mpi_size && ok; r++) {     /* the same on every rank */
        counts[r] = (int)lens[r], displs[r] = (int)total;
        total += lens[r];
        ok = total < INT_MAX;
    }
    if (ok && receives) {
        *all = malloc(total ? total : 1);
        *at = malloc(((size_t)mpi_size + 1) * sizeof **at);
    }
    if (ok) ok = !rt_mpi_max(receives && (!*all || !*at));
    if (ok && to_all)
        MPI_Allgatherv(buf, (int)len, MPI_BYTE, *all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    else if (ok)
        MPI_Gatherv(buf, (int)len, MPI_BYTE, *all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    for (int r = 0; r <= mpi_size && ok && *at; r++) (*at)[r] = r < mpi_size ? (size_t)displs[r] : total;
    free(lens);
    free(counts);
    free(displs);
    if (!ok) {
        free(*all), free(*at);
        *all = NULL, *at = NULL;
    }
    return ok ? 0 : -1;
}

int rt_mpi_gatherv(const void *buf, size_t len, void **all, size_t **at) { return gather_bytes(buf, len, all, at, 0); }

int rt_mpi_starpu_init(struct starpu_conf *conf)
{
    return starpu_mpi_init_conf(NULL, NULL, 0, MPI_COMM_WORLD, conf);
}

void rt_mpi_starpu_shutdown(void) { starpu_mpi_shutdown(); }

struct rt_dist {
    chain_set set;                  /* the run's (a copy): its owner, box, kinds, exchange */
    const chain_kind **pending;     /* the kind of each chain at (s, t - s) before anything ran
                                     * (NULL: none; the same on every rank) */
    int rank, size, rule;           /* enum owner_rule */
    unsigned long long bytes_sent;  /* blob bytes times the readers on other ranks, this rank */
    uint8_t *reader;                /* (max_s + 1) x size: 1 when rank k reads row s (find_readers) */
    struct cl_exchange_lat lat;     /* this rank's receives (EXTFLOW_STATS) */
    double submit_s;                /* time rt_dist_submit_exchanges took */
    unsigned inserted;              /* starpu_mpi_task_insert calls it made */
};

static int owner_of(const rt_dist *d, int s) { return rt_mpi_owner(d->rule, s, d->size, d->set.max_s); }

static void rt_dist_finish_free(rt_dist *d)
{
    free(d->pending);
    free(d->reader);
    free(d->lat.us);
    free(d);
}

static void find_readers(rt_dist *d);

static size_t cell_of(const rt_dist *d, int s, deg_t t) { return (size_t)s * ((size_t)d->set.max_t + 1) + (size_t)(t - s); }

rt_dist *rt_dist_new(const chain_set *set)
{
    if (mpi_size <= 1) return NULL;
    rt_dist *d = calloc(1, sizeof *d);
    if (!d) {
        set->fail(set->owner, "out of memory starting the run");
        return NULL;
    }
    const char *o = getenv("EXTFLOW_MPI_OWNER");
    d->set = *set;
    size_t cells = (size_t)(set->max_s + 1) * ((size_t)set->max_t + 1), pending = 0;
    if (!(d->pending = calloc(cells, sizeof *d->pending))) {
        free(d);
        set->fail(set->owner, "out of memory starting the run");
        return NULL;
    }
    for (int s = 0; s <= set->max_s; s++)
        for (deg_t t = s; t <= set->max_t; t++)
            pending += (d->pending[cell_of(d, s, t)] = set->at(set->owner, s, t, 0).kind) != NULL;
    d->lat.cap = (unsigned)(pending < 1u << 24 ? pending : 1u << 24);  /* at most one receive per chain */
    d->lat.us = malloc((d->lat.cap ? d->lat.cap : 1) * sizeof *d->lat.us);
    if (!d->lat.us) d->lat.cap = 0;
    d->rank = mpi_rank;
    d->size = mpi_size;
    d->rule = !o ? OWNER_PAIRS : !strcmp(o, "rows") ? OWNER_ROWS : !strcmp(o, "blocks") ? OWNER_BLOCKS : OWNER_PAIRS;
    if (!set->exchange || !(d->reader = calloc((size_t)(set->max_s + 1) * (size_t)d->size, 1))) {
        rt_dist_finish_free(d);
        set->fail(set->owner, set->exchange ? "out of memory starting the run" : "this run cannot be distributed over ranks");
        return NULL;
    }
    find_readers(d);
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
    return s >= 0 && s <= d->set.max_s && t >= s && t <= d->set.max_t && d->pending[cell_of(d, s, t)];
}

int rt_dist_read_deps(const rt_dist *d, const chain_reads *reads, starpu_tag_t *deps, int n)
{
    int n0 = n;
    for (int k = 0; k < reads->n; k++) {
        const chain_read *r = &reads->r[k];
        if (r->family != CHAIN_STEP) continue;
        /* a row arrives in order of degree: its last pending bidegree up to r->t is enough */
        deg_t u = r->t;
        while (u >= r->s && !pending(d, r->s, u)) u--;
        if (u < r->s) continue;
        starpu_tag_t tag = rt_dist_ready_tag(d, r->s, u);
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = deps[j] == tag;
        if (!seen) deps[n++] = tag;
    }
    return n - n0;
}

/* Marks the rows the chain (kind, s, t) of rank `rank` reads (its reads and deps, and those of
 * the jobs it makes). */
static void mark_reads(rt_dist *d, const chain_kind *kind, int s, deg_t t, int rank)
{
    chain_reads reads = { 0 };
    chain_deps deps = { 0 };
    if (kind->reads) kind->reads(d->set.owner, s, t, &reads);
    kind->deps(d->set.owner, s, t, &deps);
    for (int k = 0; k < reads.n; k++)
        if (reads.r[k].family == CHAIN_STEP) d->reader[(size_t)reads.r[k].s * d->size + rank] = 1;
    for (int k = 0; k < deps.n; k++) {
        const chain_dep *e = &deps.d[k];
        if (e->make) mark_reads(d, e->make, e->s, e->t, rank);
        else if (e->family == CHAIN_STEP && e->s >= 0) d->reader[(size_t)e->s * d->size + rank] = 1;
    }
}

/* Which ranks read which rows: derived from what every pending step of the region reads
 * (chain_kind.reads and deps), the same on every rank; rank 0 reads every row (it writes the
 * reports). */
static void find_readers(rt_dist *d)
{
    for (int s = 0; s <= d->set.max_s; s++) {
        d->reader[(size_t)s * d->size] = 1;
        for (deg_t t = s; t <= d->set.max_t; t++)
            if (pending(d, s, t)) mark_reads(d, d->pending[cell_of(d, s, t)], s, t, owner_of(d, s));
    }
}

/* The ranks other than row s's owner that read (s, t), ascending; returns how many. */
static int readers_of(const rt_dist *d, int s, int *r)
{
    int n = 0, own = owner_of(d, s);
    for (int k = 0; k < d->size; k++)
        if (k != own && d->reader[(size_t)s * d->size + k]) r[n++] = k;
    return n;
}

static void submit_failed(const chain_set *set, int ret, const char *what)
{
    char msg[160];
    snprintf(msg, sizeof msg, "StarPU-MPI refused a %s task: %s", what, strerror(-ret));
    if (ret != 0) set->fail(set->owner, msg);
}

/* (s, t)'s blob: publish on the owner, receive on each reader; the same calls on every rank. */
static void submit_exchange(rt_dist *d, int s, deg_t t)
{
    const chain_set *set = &d->set;
    int readers[d->size], nr = readers_of(d, s, readers), own = owner_of(d, s);
    if (nr == 0) return;
    /* the kernel goes with it when the standard step of row s+1 is elsewhere, except at row 0:
     * d_0 has no Milnor products, so the reader recomputes that kernel on the spot
     * (res_compute_kernel) for less than sending it (dim A_t squared bits; docs/perf.md) */
    int kernel = !set->exchange->kernel_wanted(set->owner, s, t) || owner_of(d, s + 1) == own ? CHAIN_EXCHANGE_KEEP
                 : s >= 1 ? CHAIN_EXCHANGE_SEND : CHAIN_EXCHANGE_DROP;
    starpu_data_handle_t blob;
    blob_register_empty(&blob);
    starpu_mpi_data_register(blob, (starpu_mpi_tag_t)tag_of(TAG_BLOB, s, t), own);
    struct cl_exchange_args a = { set, s, t, kernel, &d->bytes_sent, nr, &d->lat };
    starpu_tag_t done = tag_of(TAG_DONE, s, t), pub = tag_of(TAG_PUBLISH, s, t);
    if (own == d->rank) starpu_tag_declare_deps(pub, 1, done);
    d->inserted += 1 + (unsigned)nr;
    submit_failed(set, starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_publish, STARPU_W, blob, STARPU_TAG, pub,
                                              STARPU_VALUE, &a, sizeof a, STARPU_PRIORITY, STARPU_MAX_PRIO,
                                              STARPU_NAME, "publish", 0),
                  "publish");
    for (int k = 0; k < nr; k++) {
        int r = readers[k];
        a.kernel = kernel == CHAIN_EXCHANGE_SEND && r == owner_of(d, s + 1);
        starpu_tag_t got = tag_of(TAG_RECEIVED, s, t);
        if (r == d->rank && pending(d, s, t - 1)) {   /* a row arrives in order of degree */
            starpu_tag_t prev = tag_of(TAG_RECEIVED, s, t - 1);
            starpu_tag_declare_deps(got, 1, prev);
        }
        submit_failed(set, starpu_mpi_task_insert(MPI_COMM_WORLD, &cl_receive, STARPU_R, blob,
                                                  STARPU_EXECUTE_ON_NODE, r, STARPU_TAG, got,
                                                  STARPU_VALUE, &a, sizeof a, STARPU_PRIORITY, STARPU_MAX_PRIO,
                                                  STARPU_NAME, "receive", 0),
                      "receive");
    }
    starpu_data_unregister_submit(blob);
}

void rt_dist_submit_exchanges(rt_dist *d)
{
    d->bytes_sent = 0;
    double t0 = MPI_Wtime();
    for (deg_t t = 0; t <= d->set.max_t; t++)
        for (int s = 0; s <= d->set.max_s && s <= t; s++)
            if (pending(d, s, t)) submit_exchange(d, s, t);
    d->submit_s = MPI_Wtime() - t0;
}

/* CPU seconds (user + system) of this process's thread named NAME ("MPI": StarPU-MPI's
 * progress thread), from /proc; -1 where there is no such thread or no /proc. */
static double thread_cpu_seconds(const char *name)
{
    DIR *dir = opendir("/proc/self/task");
    if (!dir) return -1;
    double secs = -1;
    long tick = sysconf(_SC_CLK_TCK);
    struct dirent *e;
    while ((e = readdir(dir)) && secs < 0) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[64] = "", stat[1024];
        snprintf(path, sizeof path, "/proc/self/task/%.32s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int got = fgets(comm, sizeof comm, f) != NULL;
        fclose(f);
        comm[strcspn(comm, "\n")] = 0;
        if (!got || strcmp(comm, name)) continue;
        snprintf(path, sizeof path, "/proc/self/task/%.32s/stat", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = 0;
        /* fields after the ")" closing the name: state is field 3, utime 14, stime 15 */
        const char *p = strrchr(stat, ')');
        unsigned long long ut, st;
        if (p && tick > 0 && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
            secs = (double)(ut + st) / (double)tick;
    }
    closedir(dir);
    return secs;
}

/* "N CPU workers on CPUs LIST; PLACEMENT" for this rank (the OS's numbers of the CPUs: those
 * StarPU bound the workers to, or with STARPU_WORKERS_NOBIND those the process may use). */
static void describe_workers(char *buf, size_t len)
{
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    const char *nb = getenv("STARPU_WORKERS_NOBIND");
    int unbound = nb && atoi(nb) != 0;
    unsigned n = 0;
    for (unsigned w = 0; cpus && w < starpu_worker_get_count(); w++) {
        if (starpu_worker_get_type((int)w) != STARPU_CPU_WORKER) continue;
        n++;
        int b = starpu_worker_get_bindid((int)w), os = b >= 0 ? starpu_get_pu_os_index((unsigned)b) : -1;
        if (os >= 0 && !unbound) hwloc_bitmap_set(cpus, (unsigned)os);
    }
    if (cpus && unbound) hwloc_get_cpubind(starpu_get_hwloc_topology(), cpus, HWLOC_CPUBIND_PROCESS);
    char list[256] = "?";
    if (cpus) hwloc_bitmap_list_snprintf(list, sizeof list, cpus);
    double mpi_cpu = thread_cpu_seconds("MPI");
    char thread[96] = "";
    if (mpi_cpu >= 0) snprintf(thread, sizeof thread, "; StarPU-MPI's thread %.1f CPU s", mpi_cpu);
    snprintf(buf, len, "%u CPU workers on CPUs %s%s; %s%s", n, list, unbound ? " (unbound inside them)" : "", placement,
             thread);
    hwloc_bitmap_free(cpus);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void rt_dist_finish(rt_dist *d, int verbose)
{
    starpu_mpi_wait_for_all(MPI_COMM_WORLD);
    unsigned long long per_rank[4096] = { 0 };
    if (verbose && d->size <= 4096) {
        char line[1024], *lines = d->rank == 0 ? calloc((size_t)d->size, sizeof line) : NULL;
        describe_workers(line, sizeof line);
        MPI_Gather(line, (int)sizeof line, MPI_CHAR, lines, (int)sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
        for (int r = 0; r < d->size && lines; r++)
            fprintf(stderr, "extflow: rank %d: %s\n", r, lines + (size_t)r * sizeof line);
        free(lines);
        /* latency of one exchange: its receives on this rank, median, 90th percentile, max */
        unsigned n = d->lat.n < d->lat.cap ? d->lat.n : d->lat.cap;
        qsort(d->lat.us, n, sizeof *d->lat.us, cmp_u32);
        double mine[6] = { n, n ? d->lat.us[n / 2] / 1e3 : 0, n ? d->lat.us[n * 9 / 10] / 1e3 : 0,
                           n ? d->lat.us[n - 1] / 1e3 : 0, d->inserted, d->submit_s * 1e3 };
        double *all = d->rank == 0 ? calloc((size_t)d->size * 6, sizeof *all) : NULL;
        MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (double *a = all; a && a < all + 6 * d->size; a += 6)
            fprintf(stderr, "extflow: rank %d received %.0f bidegrees, publish to receive: median %.2f ms, "
                    "90%% %.2f ms, max %.1f ms; %.0f exchange tasks inserted in %.1f ms\n", (int)(a - all) / 6, a[0],
                    a[1], a[2], a[3], a[4], a[5]);
        free(all);
        rt_mpi_gather_bytes(d->bytes_sent, per_rank);
        for (int r = 0; r < d->size && d->rank == 0; r++)
            fprintf(stderr, "extflow: rank %d sent %.3f MB of generators to other ranks\n", r, per_rank[r] / 1e6);
    }
    rt_dist_finish_free(d);
}

#else   /* a build without MPI: one rank */

int rt_mpi_start(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
void rt_mpi_finish(void) {}
int rt_mpi_launched(void) { return 0; }
int rt_mpi_rank(void) { return 0; }
int rt_mpi_size(void) { return 1; }
void rt_mpi_bcast(void *buf, size_t len) { (void)buf; (void)len; }
void rt_mpi_barrier(void) {}
int rt_mpi_max(int v) { return v; }
int rt_mpi_agree_failure(int failed, char *error, size_t size) { (void)error, (void)size; return failed; }
void rt_mpi_gather_bytes(unsigned long long mine, unsigned long long *per_rank) { per_rank[0] = mine; }
int rt_mpi_gatherv(const void *buf, size_t len, void **all, size_t **at) { return gather_copy(buf, len, all, at); }
static int gather_bytes(const void *buf, size_t len, void **all, size_t **at, int to_all)
{
    (void)to_all;
    return gather_copy(buf, len, all, at);
}
int rt_mpi_starpu_init(struct starpu_conf *conf) { return starpu_init(conf); }
void rt_mpi_starpu_shutdown(void) { starpu_shutdown(); }
rt_dist *rt_dist_new(const chain_set *set) { (void)set; return NULL; }
int rt_dist_owns(const rt_dist *d, int s, deg_t t) { (void)d; (void)s; (void)t; return 1; }
starpu_tag_t rt_dist_ready_tag(const rt_dist *d, int s, deg_t t) { (void)d; return tag_of(TAG_DONE, s, t); }
int rt_dist_read_deps(const rt_dist *d, const chain_reads *reads, starpu_tag_t *deps, int n)
{ (void)d; (void)reads; (void)deps; (void)n; return 0; }
void rt_dist_submit_exchanges(rt_dist *d) { (void)d; }
void rt_dist_finish(rt_dist *d, int verbose) { (void)d; (void)verbose; }

#endif

int rt_mpi_allgather(const void *mine, size_t len, void **all, size_t *alllen)
{
    size_t *at;
    int rc = gather_bytes(mine, len, all, &at, 1);
    *alllen = rc == 0 ? at[rt_mpi_size()] : 0;
    free(at);
    return rc;
}
