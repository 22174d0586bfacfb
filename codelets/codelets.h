/* codelets.h — StarPU codelets of extflow: thin wrappers that unpack buffers and call plain
 * kernels (algebra/, stages/), which know nothing of StarPU.
 *
 *   cl_milnor_mul  rows of a packed F2 matrix = batched Milnor products (milnor_mul_batch).
 *                  Buffers: the flat Milnor basis (R, vector of uint32, milnor_flat_write;
 *                  registered once per run), jobs (R, vector of milnor_row_job), terms (R,
 *                  vector of milnor_term), rows (W, vector of uint64 words, nrows x stride;
 *                  or one row of stride words, the XOR of all the chunk's njobs products: a
 *                  row_build's grouped row). cl_arg: struct cl_milnor_mul_args (scalars only). CPU and, where StarPU
 *                  has CUDA, CUDA implementations (algebra/milnor_cuda.h), same bits.
 *   cl_milnor_mul_p the same at an odd prime p (a standard step's rows over A_p): the
 *                  flat A_p (R, milnor_p_flat_write), jobs (R, milnor_row_job), terms (R,
 *                  milnor_p_term), rows (W, bytes, nrows x stride: fpmat rows, entries mod
 *                  p); cl_arg: struct cl_milnor_mul_args (stride in bytes, njobs 0).
 *                  milnor_p_mul_batch on a CPU, the CUDA kernel (algebra/milnor_p_cuda.h)
 *                  on a GPU, same bytes.
 *   cl_chain_plan  a chain's plan (stages/chain.h: a resolution's step, a lift's target step,
 *                  d2's composites at a cell); its continuation submits the rest of the chain,
 *                  or the task runs the rest itself (small rows); cl_arg: the chain.
 *   cl_chain_part  one of a chain's parallel parts (chain_kind.part), beside its multiply, or
 *                  of its finish (chain_kind.finish_part), after it; buffers: for a finish
 *                  part the row chunks (R) that the multiply filled (and the void handles of
 *                  the parts beside it), then a void handle (W) that the next piece reads;
 *                  cl_arg: {chain, k, n, finish, rows}.
 *   cl_chain_reduce a chain's reduce (RREF of [D | I] for a step). Buffers: the row chunks (R).
 *   cl_chain_finish a chain's finish (publication, stage files, the lift's solve); buffers: the
 *                  row chunks (R); its tag marks the chain done.
 *   cl_chain_prepare a chain's prepare (chain_kind.prepare: work that needs none of its deps,
 *                  a lift step's quasi-inverse), submitted with the chain, no buffers;
 *                  cl_arg: struct cl_chain_prep.
 *   cl_chain_member a member of a team (algebra/team.h) that a piece formed for one large row
 *                  reduction: team_join, then team_release; no buffers; cl_arg: the team.
 *   cl_pair_mul    the mod-4 products of a chunk of a bidegree's composites (d2's, a secondary
 *                  product's): pair_mul_mod4_batch, or its CUDA kernel (algebra/pair_cuda.h).
 *                  Buffers: the flat basis (R), the batch's jobs (R) and terms (R), the chunk's
 *                  row (RW: ones planes, then twos planes; the products are added into it).
 *                  cl_arg: struct cl_pair_mul_args (scalars only).
 *   cl_publish     (distributed runs) a finished bidegree packed into its blob (W,
 *                  codelets/blob.h) on the rank that owns it (stages/resolve/exchange.h).
 *   cl_receive     (distributed runs) the blob (R) unpacked on a rank that reads it.
 * Every codelet but cl_publish and cl_receive has a history-based perfmodel (files under
 * $STARPU_HOME/.starpu/sampling), and each is declared with CL_CODELET below (those two with
 * CL_CPU alone).
 */
#ifndef EXTFLOW_CODELETS_H
#define EXTFLOW_CODELETS_H
#include <starpu.h>
#include "algebra/f2mat.h"
#include "algebra/milnor.h"

/* CL_CODELET(cl, cpu_fn, name, (model fields), codelet fields...): the codelet `cl` running
 * cpu_fn on CPU workers, with its history-based perfmodel `cl_model` (the parenthesised
 * fields: .symbol, the file name StarPU keeps its history under, and where the task's size is
 * not its buffers' .size_base and .footprint) and the codelet's other fields (.nbuffers,
 * .modes, CL_CUDA(fn) for a CUDA implementation). */
#define CL_FIELDS(...) __VA_ARGS__
#define CL_CODELET(cl, cpu_fn, cl_name, model_fields, ...)                                           \
    static struct starpu_perfmodel cl##_model = { .type = STARPU_HISTORY_BASED, CL_FIELDS model_fields }; \
    struct starpu_codelet cl = { CL_CPU(cpu_fn) .model = &cl##_model, .name = cl_name, __VA_ARGS__ }
/* The CPU implementation of a codelet, by pointer and by name (cpu_funcs_name). */
#define CL_CPU(fn) .cpu_funcs = { fn }, .cpu_funcs_name = { #fn },
/* The CUDA implementation of a CL_CODELET (asynchronous on the worker's stream), where StarPU
 * has CUDA; nothing otherwise. */
#ifdef STARPU_USE_CUDA
#define CL_CUDA(fn) .cuda_funcs = { fn }, .cuda_flags = { STARPU_CUDA_ASYNC },
#else
#define CL_CUDA(fn)
#endif

struct cl_milnor_mul_args {
    uint32_t row0;              /* first job of this chunk in the jobs buffer */
    uint32_t stride;            /* words per output row (cl_milnor_mul_p: bytes) */
    uint64_t pairs;             /* (job x term) pairs of the chunk: the perfmodel's size */
    int verify;                 /* EXTFLOW_GPU_VERIFY: recheck a CUDA result on the CPU */
    int s, t;                   /* the step's bidegree (cl_profile's per-bidegree times) */
    int layer;                  /* and cl_profile's layer of the chain there */
    uint32_t njobs;             /* 0: a row per job; else njobs jobs from row0 on, all into the one row */
};

extern struct starpu_codelet cl_milnor_mul, cl_milnor_mul_p;
/* The first multiply task's failure (a CUDA launch error, a GPU result that differs under
 * EXTFLOW_GPU_VERIFY), or NULL: the steps that read the rows check it before using them. */
const char *cl_milnor_mul_failed(void);
/* Pairs multiplied so far by the CPU and by the CUDA implementation (since the program began). */
void cl_milnor_mul_stats(uint64_t *cpu_pairs, uint64_t *cuda_pairs);
struct cl_pair_mul_args {
    uint32_t job0;              /* the chunk's first job in the jobs buffer */
    uint32_t njobs;
    uint64_t twos_at;           /* words from the row's ones planes to its twos planes */
    uint64_t pairs;             /* (job x term) pairs: the perfmodel's size */
    struct pair_m4_memo *memo;  /* the batch's memo of products (CPU only), or NULL */
};
extern struct starpu_codelet cl_pair_mul;
/* Mod-4 pairs multiplied so far by the CPU and by the CUDA implementation of cl_pair_mul. */
void cl_pair_mul_stats(uint64_t *cpu_pairs, uint64_t *cuda_pairs);
extern struct starpu_codelet cl_chain_plan;
extern struct starpu_codelet cl_chain_reduce;
extern struct starpu_codelet cl_chain_finish;

/* NULL when the task's first n buffers (vector handles) are consecutive row slices tiling b's D
 * exactly, less its empty grouped rows (no jobs: rt_mul_submit gives them no chunk, they stay
 * zero), else what is wrong with them (for an "internal error" line): what StarPU handed a task
 * that reads multiply chunks is what it works on. */
struct row_build;
const char *cl_rows_check(void *buffers[], unsigned n, const struct row_build *b);
struct chain;
struct chain_set;
/* cl_profile's layer of a chain's times (its pieces' and its multiply's): 1 for the standard
 * step's early reduction (CHAIN_PRE), kept apart from the step's, and for a chain of a set's
 * second layer (d2's homotopy beside its composites); 0 for every other. */
int cl_chain_layer(const struct chain *c);
/* A part of a chain (stages/chain.h, chain_kind.part), beside its multiply. */
struct cl_chain_part_args {
    struct chain *c;
    uint32_t k, n;
    int finish;                 /* a part of the finish (chain_kind.finish_part) */
    uint32_t rows;              /* its first buffers: the multiply's chunks (of c->rows) */
};
extern struct starpu_codelet cl_chain_part;
extern struct starpu_codelet cl_chain_member;
struct cl_chain_prep {          /* cl_chain_prepare's cl_arg (malloc'd; freed with the task) */
    const struct chain_kind *kind;
    void *owner;
    int s, t;
};
extern struct starpu_codelet cl_chain_prepare;
/* CPU workers busy with a chain's piece or recruited as a team's members (running or queued),
 * so that a runner recruits only idle ones. cl_chain_recruited(n): n members submitted (each
 * counts until its task ends; -1 for one whose submission failed). */
int cl_chain_busy(void);
void cl_chain_recruited(int n);
/* Members that ran so far, those that ran at least one item, and the items they ran. */
void cl_chain_team_stats(uint64_t *recruited, uint64_t *helped, uint64_t *items);
struct cl_exchange_args {
    const struct chain_set *set;    /* its exchange (chain_exchange) and owner */
    int s;
    deg_t t;
    int kernel;                 /* publish: EXCHANGE_KERNEL_*; receive: 1 to take the kernel */
    unsigned long long *sent;   /* publish: adds the blob's bytes times copies (statistics) */
    int copies;                 /* the ranks the blob goes to */
    struct cl_exchange_lat *lat;    /* receive: where its latency goes (statistics) */
};
/* Latencies of the receives of one rank: from the end of publish on the owner (its clock,
 * CLOCK_REALTIME, travels in the blob's first 8 bytes) to the start of receive here; only
 * meaningful between ranks of one host. us[0..n) in order of arrival; n counts past cap too. */
struct cl_exchange_lat {
    uint32_t *us;
    unsigned cap, n;
};
extern struct starpu_codelet cl_publish;
extern struct starpu_codelet cl_receive;

#endif
