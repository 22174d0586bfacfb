/* rt_mpi.h — a resolution over several MPI ranks (StarPU-MPI), and the few plain MPI calls
 * around it. In a build without MPI (no starpumpi-1.3 or mpi at build time) every rank count
 * is 1 and these are no-ops.
 *
 * Distribution (docs/design.md "Distributed runs"). Row s of the resolution belongs to rank
 * owner(s) (EXTFLOW_MPI_OWNER: pairs, floor(s/2) mod N, the default; rows, s mod N; blocks,
 * N bands of consecutive rows), which runs
 * every task of the bidegrees of that row (the chains of its set, unchanged and rank-local) and
 * writes their stage files. Each bidegree (s, t) that another rank reads gets one StarPU-MPI
 * handle, a blob (codelets/blob.h), registered on every rank with the same data tag and owner:
 * a publish task on the owner (after DONE(s, t)) packs the new generators (and the kernel the
 * standard step of row s+1 takes) into it; a receive task on each reader (the owners of the
 * steps that read row s, derived from chain_kind.reads and deps: rows s+1 and s+2; and rank 0,
 * which writes the reports) unpacks it into that rank's resolution
 * and fires RECEIVED(s, t). StarPU-MPI moves the blob. These exchange tasks are the same on
 * every rank and known before anything runs, so every rank submits them in the same order
 * (t, then s); only the rank-local chains grow while running.
 *
 * Readiness on a rank: a job reads rows below some degree (chain_kind.reads); on this rank row r is
 * available up to degree u when DONE(r, u) (own row) or RECEIVED(r, u) fired, and RECEIVED
 * tasks of one row are chained by degree, so one tag per row read suffices.
 */
#ifndef EXTFLOW_RT_MPI_H
#define EXTFLOW_RT_MPI_H
#include <stddef.h>
#include <starpu.h>
#include "stages/chain.h"

/* Initialises MPI when the process was started by an MPI launcher (mpirun, srun); call
 * before anything else. 0, or -1 with a message on stderr. */
int rt_mpi_start(int *argc, char ***argv);
/* Finalises MPI if rt_mpi_start initialised it. */
void rt_mpi_finish(void);
/* Was this process started by an MPI launcher (mpirun, srun)? Read from its environment at any
 * time, before rt_mpi_start too. */
int rt_mpi_launched(void);
int rt_mpi_rank(void);
int rt_mpi_size(void);
/* Plain MPI between ranks, outside StarPU-MPI's lifetime or while nothing of it runs. */
void rt_mpi_bcast(void *buf, size_t len);        /* from rank 0 */
void rt_mpi_barrier(void);
int rt_mpi_max(int v);                           /* the largest v over all ranks */
/* Every rank's len bytes at mine to every rank: *all (malloc'd, *alllen bytes) holds the ranks'
 * buffers in rank order. 0, or -1 on every rank (one is out of memory, or over 2 GiB in all). */
int rt_mpi_allgather(const void *mine, size_t len, void **all, size_t *alllen);
/* After a run: every rank gets in error (size bytes) the failure of the lowest rank that
 * failed first-hand (its error; failed: this rank's run failed), else of the lowest that failed
 * because another did ("another rank failed" in its error), with "rank R: " in front; 1 if any
 * failed (error unchanged when none did, or with one rank). */
#define RT_MPI_ERROR_BYTES 512
int rt_mpi_agree_failure(int failed, char *error, size_t size);
/* Every rank's len bytes at buf, gathered on rank 0 (MPI_Gatherv; every rank calls it): there
 * *all (malloc'd) holds rank r's bytes from (*at)[r] to (*at)[r + 1] (*at: size + 1 offsets,
 * malloc'd); elsewhere both NULL. One rank: a copy. The same answer on every rank: 0, or -1
 * (out of memory on rank 0, or INT_MAX bytes or more in all). */
int rt_mpi_gatherv(const void *buf, size_t len, void **all, size_t **at);
/* Sum over ranks of the bytes each published to other ranks, gathered on rank 0 (stats). */
void rt_mpi_gather_bytes(unsigned long long mine, unsigned long long *per_rank);

/* The rank that owns row s among `ranks` under an ownership rule (EXTFLOW_MPI_OWNER; rows
 * 0..max_s): the one rule, which the distributed runs and the report of one process's DAG
 * (what 2 and 4 ranks would do) both use. */
enum owner_rule { OWNER_ROWS, OWNER_PAIRS, OWNER_BLOCKS };
int rt_mpi_owner(int rule, int s, int ranks, int max_s);

/* Runtime hooks (rt.c, rt_chain.c; the caller makes the rt_dist). NULL / no-ops for one rank. */
typedef struct rt_dist rt_dist;
int rt_mpi_starpu_init(struct starpu_conf *conf);   /* starpu_mpi_init_conf */
void rt_mpi_starpu_shutdown(void);
/* The run of set over the ranks (its chains at (s, t) by row s's owner; its exchange moves
 * what rows other ranks read): NULL when one rank, or after set->fail (out of memory, or a set
 * without an exchange). Call before any task: it takes the chains pending then, the same on
 * every rank. */
rt_dist *rt_dist_new(const chain_set *set);
int rt_dist_owns(const rt_dist *d, int s, deg_t t);
/* The tag that says (s, t) is available on this rank (DONE here, RECEIVED from its owner). */
starpu_tag_t rt_dist_ready_tag(const rt_dist *d, int s, deg_t t);
/* The tags a chain must wait for on this rank besides its deps: for each row it reads
 * (chain_kind.reads), the readiness of the row's last bidegree in the run up to the degree
 * read (one process orders those reads through the deps transitively). Appends them to
 * deps[0..n) where not there yet; returns how many. */
int rt_dist_read_deps(const rt_dist *d, const chain_reads *reads, starpu_tag_t *deps, int n);
/* Submits every publish and receive task of the region (the same calls on every rank). */
void rt_dist_submit_exchanges(rt_dist *d);
/* Waits for every task and transfer of every rank; then frees d. */
void rt_dist_finish(rt_dist *d, int verbose);

#endif
