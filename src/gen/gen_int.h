/* Inside the generator: the plan and the writers its files share (gen_plan.c: names, kernels,
 * randomness and the plan; gen_pp.c: the pipeline-parallel plan and its rows; gen_db.c: the
 * DB writer; gen_host.c: launches and memory records; gen.c: the file layout and the entry
 * points). Nothing outside src/gen/ includes it. */
#ifndef TL_GEN_INT_H
#define TL_GEN_INT_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gen/gen.h"

enum { ST_ROLLOUT, ST_REF, ST_ACTOR_LP, ST_REWARD, ST_UPDATE };

#define GEN_T0_DEFAULT 1736407067000000000LL
#define INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */
#define US 1000LL
#define MS 1000000LL

/* Device layout, ns. Incidental gaps stay well below BUB_BASE so the deliberate bubbles are the
 * largest idle stretches inside a stage. */
#define KGAP (2 * US)     /* between consecutive kernels of a run */
#define AUXGAP (30 * US)  /* an aux gap (gap_is_aux) is this wide and holds one memcpy/event */
#define AUX_OFF (10 * US) /* the aux task starts this far into its gap */
#define AUX_EVERY 40
#define DEC_GAP (80 * US)   /* host work between two decode steps */
#define PAD_MIN (20 * US)   /* pad kernel = PAD_MIN + (largest bubble of the stage - own bubble) */
#define BUB_BASE (500 * US) /* bubble = BUB_BASE + index * BUB_STEP, distinct everywhere */
#define BUB_STEP (10 * US)
#define OVL_DELAY (10 * US) /* overlap kernels start this long after their allreduce */
#define OVL_TAIL (5 * US)   /* ...and end at least this long before it */
#define OVL_NK 2            /* overlap kernels per actor_update allreduce */
#define NOTIFY_NS (2 * US)  /* Notify_Wait lasts until the last rank arrived, plus this */
#define FFTS_PRE 500        /* FFTS+ container starts this long before its first child */
#define FFTS_POST 300
#define FFTS_SLOT                                                                                  \
	1 /* which kernel of the run becomes the FFTS+ container (needs KGAP both sides) */

/* Host layout, ns. A launch takes at most 2.2 us; launched device tasks start >= 3.2 us apart,
 * so the launches on the one dequeue thread never overlap. */
#define LEAD (50 * US)     /* CANN launch start before its device task */
#define MSTX_PRE (5 * US)  /* stage range start before its first launch */
#define MSTX_POST (8 * US) /* stage range end after its last device end (the host synchronises) */
#define DEC_PRE (3 * US)
#define DEC_POST (3 * US)
#define HOST_GAP (20 * US) /* between two stage ranges */
#define STEP_PRE (1 * MS)  /* STEP_TIME start to the rollout range */
#define STEP_POST (500 * US)

#define STREAM_A 2    /* main compute stream */
#define STREAM_B 3    /* second compute stream */
#define STREAM_COMM 4 /* comm sub-task streams 4..9: one per sub-task of an op */
#define NSTREAMS 16

#define API_NODE 10000 /* ENUM_API_TYPE ids (written below) */
#define API_ACL 20000
#define MSTX_RANGE 2         /* ENUM_MSTX_EVENT_TYPE start/end */
#define MSTX_MARK_EX 3       /* ENUM_MSTX_EVENT_TYPE marker_ex: what torch_npu's mstx.mark writes */
#define DP_MARK_OFF (2 * US) /* the step_process mark: this long before the range's end */
#define HCCL_BF16 11         /* ENUM_HCCL_DATA_TYPE */
#define HCCL_INT32 2
#define HCCL_NA 65534
#define LINK_HCCS 1 /* ENUM_HCCL_LINK_TYPE */
#define LINK_ON_CHIP 0
#define TRANSPORT_SDMA 0 /* ENUM_HCCL_TRANSPORT_TYPE */
#define TRANSPORT_LOCAL 2
#define RDMA_INVALID 65535

#define GROUP_NAME "10.0.0.1%eth0_60000_0_1736414082311975"

#define GEN_STRINGS(X)                                                                             \
	X(S_LAUNCH, "launch")                                                                      \
	X(S_MEMCPY_API, "aclrtMemcpyAsync")                                                        \
	X(S_RECORD_API, "aclrtRecordEvent")                                                        \
	X(S_WAIT_API, "aclrtStreamWaitEvent")                                                      \
	X(S_KERNEL_AICORE, "KERNEL_AICORE")                                                        \
	X(S_KERNEL_AIVEC, "KERNEL_AIVEC")                                                          \
	X(S_KERNEL_MIX_AIC, "KERNEL_MIX_AIC")                                                      \
	X(S_MIX_AIC, "MIX_AIC")                                                                    \
	X(S_MIX_AIV, "MIX_AIV")                                                                    \
	X(S_MEMCPY_ASYNC, "MEMCPY_ASYNC")                                                          \
	X(S_EVENT_RECORD, "EVENT_RECORD")                                                          \
	X(S_EVENT_WAIT, "EVENT_WAIT")                                                              \
	X(S_NOTIFY_WAIT_SQE, "Notify Wait")                                                        \
	X(S_SDMA, "SDMA")                                                                          \
	X(S_AI_CORE, "AI_CORE")                                                                    \
	X(S_AI_VECTOR_CORE, "AI_VECTOR_CORE")                                                      \
	X(S_HCCL_NOTIFY_WAIT, "Notify_Wait")                                                       \
	X(S_HCCL_MEMCPY, "Memcpy")                                                                 \
	X(S_HCCL_REDUCE_INLINE, "Reduce_Inline")                                                   \
	X(S_GROUP, GROUP_NAME)                                                                     \
	X(S_ALLREDUCE, "hcom_allReduce_")                                                          \
	X(S_ALLGATHER, "hcom_allGather_")                                                          \
	X(S_MESH_RING, "MESH-RING")                                                                \
	X(S_MESH, "MESH")                                                                          \
	X(S_NA, "N/A")                                                                             \
	X(S_ND, "ND")                                                                              \
	X(S_ND2, "ND;ND")                                                                          \
	X(S_ND3, "ND;ND;ND")                                                                       \
	X(S_BF16, "BF16")                                                                          \
	X(S_BF16_2, "BF16;BF16")                                                                   \
	X(S_BF16_3, "BF16;BF16;BF16")                                                              \
	X(S_FLOAT, "FLOAT")                                                                        \
	X(S_INT64, "INT64")                                                                        \
	X(S_DYNAMIC, "dynamic")                                                                    \
	X(S_NO, "NO")                                                                              \
	X(S_SH_ACT, "\"8,1024,4096\"")                                                             \
	X(S_SH_ACT2, "\"8,1024,4096\";\"8,1024,4096\"")                                            \
	X(S_SH_MM_IN, "\"8192,4096\";\"4096,11008\"")                                              \
	X(S_SH_MM_OUT, "\"8192,11008\"")                                                           \
	X(S_SH_ATT_IN, "\"8,32,1024,128\";\"8,32,1024,128\";\"8,32,1024,128\"")                    \
	X(S_SH_ATT_OUT, "\"8,32,1024,128\"")                                                       \
	X(S_SH_DEC, "\"64,1,4096\"")                                                               \
	X(S_SH_DEC2, "\"64,1,4096\";\"64,1,4096\"")                                                \
	X(S_SH_KV_IN, "\"64,1,32,128\";\"2048,128,8,128\";\"2048,128,8,128\"")                     \
	X(S_SH_LOGITS, "\"8192,151936\"")                                                          \
	X(S_SH_TOKENS, "\"64\"")                                                                   \
	X(S_SH_PARAM4, "\"4096,11008\";\"4096,11008\";\"4096,11008\";\"4096,11008\"")              \
	X(S_ND4, "ND;ND;ND;ND")                                                                    \
	X(S_FLOAT4, "FLOAT;FLOAT;FLOAT;FLOAT")                                                     \
	X(S_SH_PARAM, "\"4096,11008\"")                                                            \
	X(S_KN_MATMUL, "aclnnMatmul_MatMulV3_MatMul")                                              \
	X(S_OT_MATMUL, "MatMulV3")                                                                 \
	X(S_KN_ADD, "aclnnAdd_AddAiCore_Add")                                                      \
	X(S_OT_ADD, "Add")                                                                         \
	X(S_KN_MUL, "aclnnMul_MulAiCore_Mul")                                                      \
	X(S_OT_MUL, "Mul")                                                                         \
	X(S_KN_RMSNORM, "aclnnRmsNorm_RmsNorm_RmsNorm")                                            \
	X(S_OT_RMSNORM, "RmsNorm")                                                                 \
	X(S_KN_ROPE, "aclnnApplyRotaryPosEmb_ApplyRotaryPosEmb_ApplyRotaryPosEmb")                 \
	X(S_OT_ROPE, "ApplyRotaryPosEmb")                                                          \
	X(S_KN_SWIGLU, "aclnnSwiGlu_SwiGlu_SwiGlu")                                                \
	X(S_OT_SWIGLU, "SwiGlu")                                                                   \
	X(S_KN_FA, "FlashAttentionScore")                                                          \
	X(S_OT_FA, "FlashAttentionScore")                                                          \
	X(S_KN_FAG, "FlashAttentionScoreGrad")                                                     \
	X(S_OT_FAG, "FlashAttentionScoreGrad")                                                     \
	X(S_KN_IFA, "aclnnIncreFlashAttentionV4_IncreFlashAttention_IncreFlashAttention")          \
	X(S_OT_IFA, "IncreFlashAttention")                                                         \
	X(S_KN_CAST, "aclnnCast_CastAiCore_Cast")                                                  \
	X(S_OT_CAST, "Cast")                                                                       \
	X(S_KN_LOGSM, "aclnnLogSoftmax_LogSoftmaxV2AiCore_LogSoftmaxV2")                           \
	X(S_OT_LOGSM, "LogSoftmaxV2")                                                              \
	X(S_KN_GATHER, "aclnnEmbedding_GatherV2AiCore_GatherV2")                                   \
	X(S_OT_GATHER, "GatherV2")                                                                 \
	X(S_KN_COPY, "aclnnInplaceCopy_TensorMove_TensorMove")                                     \
	X(S_OT_COPY, "TensorMove")                                                                 \
	X(S_KN_ADAMW, "aclnnApplyAdamWV2_ApplyAdamWV2_ApplyAdamWV2")                               \
	X(S_OT_ADAMW, "ApplyAdamWV2")                                                              \
	X(S_KN_ARGMAX, "aclnnArgMax_ArgMaxV2_ArgMaxV2")                                            \
	X(S_OT_ARGMAX, "ArgMaxV2")                                                                 \
	X(S_DEFAULT, "default")                                                                    \
	X(S_R_ROLLOUT, "generate_sequences")                                                       \
	X(S_R_REF, "compute_ref_log_prob")                                                         \
	X(S_R_ACTOR_LP, "compute_log_prob")                                                        \
	X(S_R_REWARD, "compute_rm_score")                                                          \
	X(S_R_UPDATE, "update_actor")                                                              \
	X(S_DECODE, "decode_step")                                                                 \
	X(S_VLLM_STEP, "vllm_one_step")                                                            \
	X(S_DP_DOMAIN, "step_process")                                                             \
	X(S_DP_STEP, "step")                                                                       \
	X(S_KERNEL_AICPU, "KERNEL_AICPU")                                                          \
	X(S_AI_CPU, "AI_CPU")

#define GEN_STR_ENUM(id, text) id,
#define GEN_STR_TEXT(id, text) text,
enum gen_str { GEN_STRINGS(GEN_STR_ENUM) S__COUNT };

enum {
	K_MATMUL,
	K_ADD,
	K_MUL,
	K_RMSNORM,
	K_ROPE,
	K_SWIGLU,
	K_FA,
	K_FAG,
	K_IFA,
	K_CAST,
	K_LOGSM,
	K_GATHER,
	K_COPY,
	K_ADAMW,
	K_ARGMAX,
	K__COUNT
};

typedef struct gen_kernel {
	uint16_t name, optype, cti_type, task_type; /* string ids */
	int64_t ns;                                 /* nominal duration */
	int block_num, mix_block_num;
	uint16_t in_fmt, in_dt, in_shape, out_fmt, out_dt, out_shape;
} gen_kernel;

/* Which kernels a run draws from (uniformly, repeats weight a kernel). */
enum { MIX_WLOAD, MIX_FWD, MIX_LOGP, MIX_DECODE, MIX_UPDATE, MIX_OVERLAP, MIX__COUNT };

/* Kernel draws of one run. The kernel sequence and the run's jitter depend on the run's seed
 * only, so every rank draws the same kernels; `f` (per mille) makes a rank slower. */
typedef struct kdraw {
	uint64_t rng;
	const uint8_t *mix;
	unsigned nmix;
	int64_t jit, f;    /* per mille */
	int64_t argmax_ns; /* gen_opts.aicpu_ns with aicpu: the argmax's nominal length; 0 */
} kdraw;

enum { BLK_RUN, BLK_COLL };
enum { BF_DECODE = 1, BF_PAD = 2, BF_FFTS = 4 };
enum { OP_ALLREDUCE, OP_ALLGATHER };

typedef struct gen_blk {
	int64_t start, end; /* device ns: run = first kernel start .. last kernel end; coll = op */
	int64_t wait_end;   /* coll: when the last rank arrived (end - transfer time) */
	int64_t pad;        /* run with BF_PAD: pad kernel length beyond PAD_MIN */
	uint64_t seed;      /* run / overlap kernels: kdraw seed, the same on every rank */
	uint32_t nk;        /* run: kernels (pad excluded); coll: overlap kernels */
	uint32_t op, seq;   /* coll: index over the profile, index among ops of its type */
	uint16_t step;      /* 0-based */
	uint8_t kind, stage, mix, stream, flags, nsub, optype;
} gen_blk;

typedef struct gen_rank {
	int rank;
	int64_t f;         /* per mille: kernel durations are scaled by f/1000 */
	const gen_opts *o; /* the plan's options (gen_stage_f) */
	gen_blk *blk;
	size_t nblk, cap;
	/* planning state */
	int64_t t; /* device cursor */
	int64_t range_start[GEN_NSTAGES], range_end[GEN_NSTAGES];
	int64_t first_busy, last_end, comp, comm, ovl, idle; /* this step so far */
	int64_t idle_host; /* this step so far: idle time before the launch of the work after it */
	int64_t hb[GEN_NSTAGES + 1]; /* this step so far, of gaps under 1 ms, by stage + 1 (0: the
	                                gaps between stages): host_bound's truth */
	int last_stage;              /* the stage of the work that ended at last_end */
	int64_t ov_busy, ov_span;    /* scratch of plan_coll */
	int64_t busy0;               /* comp + comm - ovl when the current stage began */
	/* pipeline-parallel profiles: the rank's blocks and P2P ops, in time order */
	struct pp_item *pp;
	size_t npp, ppcap;
	/* written by the writer thread */
	uint64_t tasks;
	gen_launch_truth *launches;
	size_t nlaunches;
	gen_memory_truth memory[2]; /* gen_opts.memory_records: PTA, GE */
	int nmemory;
	int failed;
	gen_op_truth *ops; /* per (op type, task type) of the COMPUTE_TASK_INFO rows written */
	size_t nops, opcap;
	gen_module_truth *modules; /* gen_opts.modules: per module path */
	size_t nmodules, modcap;
} gen_rank;

typedef struct gen_sizes {
	uint32_t wload, prefill, dec_kernels, dec_base, dec_spread;
	uint32_t nseg[GEN_NSTAGES], seg_kernels[GEN_NSTAGES];
} gen_sizes;

typedef struct gen_plan {
	gen_opts o;
	const char *outdir;
	int nranks, nsteps;
	int64_t t0, session_start, session_end;
	unsigned gen_group_hash3; /* the 3 digits in opName */
	gen_sizes sz;
	gen_rank *rk;
	uint32_t nops, seq[2];
	gen_truth tr;
	size_t host_cap, stage_cap, overlap_cap, bubble_cap, step_cap, comm_cap, op_cap;
	int pp_dp, pp_mb; /* PP profiles: DP replicas, micro-batches */
	size_t ppb_cap, pps_cap, p2p_cap, dp_cap;
} gen_plan;

#define PP_F_BASE (1000 * US)
#define PP_F_STAGE (30 * US) /* later stages are a little slower: distinct bubble ratios */
#define PP_JITTER (50 * US)
#define PP_XFER (60 * US)
#define PP_GAP (30 * US)
#define PP_SEND_OFF (10 * US)
#define PP_RECV_OFF (15 * US)
#define PP_AFTER_RECV (20 * US)
#define PP_KOFF (10 * US) /* kernels fill [block start + PP_KOFF, block end - PP_KOFF] */
#define PP_NK 4           /* kernels per block */
/* gen_opts.pp_device_ranges: the host launches everything this long before the device runs it
 * (less than STEP_PRE, so every host call stays inside its step) */
#define PP_HOST_AHEAD (600 * US)

enum { PPI_BLOCK, PPI_SEND, PPI_RECV };

typedef struct pp_item {
	int64_t start, end;
	uint8_t what; /* PPI_* */
	char kind;    /* block: 'F' or 'B' */
	int mb;       /* block: micro-batch */
	int step;     /* block: 0-based step (names its operators' autograd links) */
	int peer;     /* send/recv: the other rank */
	int group;    /* send/recv: pair group (PP stage g and g+1, replica d): g * dp + d */
	uint32_t seq; /* send/recv: transfer number in its group (names the op) */
} pp_item;

typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

enum {
	Q_TASK,
	Q_CTI,
	Q_API,
	Q_OP,
	Q_CTASK,
	Q_MSTX,
	Q_STR,
	Q_PAIR_TEXT,
	Q_TORCH,
	Q_CONN_IDS,
	Q__COUNT
};
/* The three big tables are written BATCH rows per INSERT: per-statement overhead dominates. */
#define NBATCHED 3 /* Q_TASK, Q_CTI, Q_API */
#define BATCH 64

typedef struct gen_enum {
	int id;
	const char *name;
} gen_enum;

typedef struct gen_writer {
	const gen_plan *P;
	const gen_rank *rk;
	int rank, dev;
	char *path; /* the DB file */
	sqlite3 *db;
	sqlite3_stmt *q[Q__COUNT];
	sqlite3_stmt *many[NBATCHED]; /* BATCH rows at once */
	int64_t *pend[NBATCHED];      /* rows waiting for a batch */
	int npend[NBATCHED];
	int64_t pid, gtid_main, gtid_dq;
	int64_t gtid_autograd; /* the thread autograd runs backward operators on */
	int64_t next_gtask, next_conn, next_opid;
	uint32_t taskid[NSTREAMS];
	int64_t host_end; /* end of the last launch: launches on the dequeue thread never overlap */
	uint64_t tasks, naux;
	gen_op_truth *ops; /* moves to the rank when it is written */
	size_t nops, opcap;
	int64_t next_ppname;  /* PP profiles: STRING_IDS id of the next P2P op name */
	int64_t callchain;    /* with_stack: PYTORCH_API.callchainId of the next operator, 0 none */
	int64_t next_oplink;  /* PP operator pairs: the next PYTORCH_API.connectionId */
	int64_t ahead;        /* PP device ranges: the host launches this much earlier */
	int64_t next_dpmsg;   /* GEN_DECODE_DP: the next mark message's STRING_IDS offset */
	int dp_step, dp_i;    /* GEN_DECODE_DP: the step of the last engine step, its index */
	int64_t next_mark;    /* mstx mark id of the next range carrying a stream */
	int64_t last_launch;  /* start of the last CANN_API row written */
	int64_t late_once;    /* the next launch starts this much later (gen_host_late) */
	gen_launch_truth *lt; /* launches of compute / communication work (w_launch_truth) */
	size_t nlt, ltcap;
	int64_t *lt_conn; /* per lt entry: its connectionId */
	size_t nltc, ltccap;
	int *conn_tasks; /* per launch (connectionId - CONN_BASE): its TASK rows */
	size_t nconn, conncap;
	int err;
} gen_writer;

#define JITTER_MAX (40 * US)
#define CONN_BASE 1000    /* the first CANN_API connectionId of a rank */
#define HOST_OP_LEAD 1000 /* host_ops: an operator starts this long before its launch... */
#define HOST_OP_TAIL 200  /* ... and ends this long before it (launches are >= 1500 apart) */

#define PPS_FWD 1000000 /* pp_chart's message: str({"name": "forward_step"}) */
#define PPS_BWD 1000001
#define PPS_SEND_TYPE 1000002
#define PPS_RECV_TYPE 1000003
#define PPS_LINEAR 1000004 /* operator names (gen_opts.pp_op_pairs) */
#define PPS_GELU 1000005
#define PPS_T 1000006
#define PPS_ADDMM_BWD 1000007
#define PPS_GELU_BWD 1000008
#define PPS_MSTX_TYPE 1000009     /* TASK.taskType of a device mstx marker */
#define PPS_MSTX_START_OP 1000010 /* the queued torch ops of mstx calls with a stream */
#define PPS_MSTX_END_OP 1000011
#define PPS_MSTX_MARK_OP 1000012
#define PPS_GROUP 1000100 /* + pair group index */
#define PPS_OP 2000000    /* + per-DB counter: op names */
#define PPS_MB 3000000    /* + (backward) * 1000 + micro-batch: device-range messages */
#define PP_GROUP_FMT "10.0.0.1%%eth0_%d_0_1736414082311975"

/* Operator pairs (gen_opts.pp_op_pairs): a block is PP_NOPS layers' operators, forward ones on
 * the main thread, backward ones on autograd's thread in reverse layer order. Both operators of
 * a layer carry the same autograd sequence number and point at CONNECTION_IDS rows with one
 * shared link, the sequence number + 5<<28 as current torch_npu offsets its framework flows
 * (5 << 28 = 1342177280). Sequence numbers grow with (step, micro-batch, layer), and every rank
 * runs its forward blocks in that order, so they grow in time as autograd's do. */
#define PP_NOPS 3
#define PP_OPGAP (2 * US) /* host time between two operators of a block */
#define PP_SEQ0 100       /* the model's setup created autograd nodes before the first step */
#define TORCH_OP 50001    /* ENUM_API_TYPE "op" */
#define TORCH_FLOW_BASE 1342177280LL

/* A range that carries a stream, as torch_npu writes it: the
 * Python thread's queued ops mstx_range_start_op / mstx_range_end_op (PYTORCH_API, linked
 * through CONNECTION_IDS to the range's connectionId) just before the task-queue thread runs
 * them, that thread's MSTX_EVENTS row from the start call to the end call, [hs, he],
 * connectionId = mark id + 4000000001, and the device marker pair as msprof stores it: one MsTx
 * TASK row on the stream from the begin marker to the end marker, [ds, de]. */
#define MSTX_CONN_BASE 4000000001LL

/* A forward or backward range given a stream: the host calls around the block's launches,
 * the markers right before its first kernel and right after its last -- the block. */
#define PP_LAUNCH_GAP (3 * US) /* between the block's launches when the host runs ahead */

#define MEM_STR_BASE 536870912 /* torch_npu's memory strings start at 2 << 28 */
#define MEM_BASE ((int64_t)1 << 30)
#define MEM_PEAK ((int64_t)6 << 30)

/* gen_plan.c */
extern const char *const gen_str_text[S__COUNT];
extern const gen_kernel gen_kernels[K__COUNT];
uint64_t gen_seed_of(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
/* The bytes collective op moves per rank (2^20 .. 2^25 BF16 elements), split evenly over its
 * transfer planes. */
int64_t gen_coll_bytes(const gen_opts *o, uint32_t op);
void gen_kdraw_init(kdraw *g, const gen_opts *o, uint64_t seed, int mix, int64_t f);
int64_t gen_kdraw_next(kdraw *g, int *kind);
/* Gap i follows kernel i of a run of nk. Every AUX_EVERY-th gap and the middle one are wide and
 * hold a memcpy/event task. Gaps 0 and 1 never are (FFTS_SLOT needs narrow gaps around it). */
int gen_gap_is_aux(uint32_t i, uint32_t nk);
void gen_plan_sizes(gen_plan *P);
/* Every rank's timeline, step by step, stage by stage. Ranks move in lockstep because the
 * collectives synchronise them. */
int gen_plan_build(gen_plan *P);
/* The kernel length factor (per mille) of rank rk's work in a stage: its own speed, times the
 * pair option's slowdown where it applies. */
int64_t gen_stage_f(const gen_opts *o, const gen_rank *rk, int stage);
/* gen_opts.host_late_ns for the runs of stage `stage` of the rank that launches late, 0 for the
 * others (and PP profiles); stage -1: whether the rank launches late in any stage. */
int64_t gen_host_late(const gen_opts *o, int rank, int stage);
/* Decode steps of rank r in step k. */
int gen_decode_count(const gen_plan *P, int k, int r);
/* The numbers of engine step d of n on rank r in step k as its step_process mark reports them. */
void gen_dp_stats(int r, int k, int d, int n, gen_dp_step_truth *t);

/* gen_pp.c */
int gen_plan_pp(gen_plan *P);
/* The order of the 2M blocks of PP stage s of P (sched GEN_PP_*): kind[i] 'F' or 'B', mb[i]
 * its micro-batch. */
void gen_pp_order(int sched, int P, int s, int M, char *kind, int *mb);

/* gen_module.c: module profiles (gen_opts.modules) */
int gen_plan_modules(gen_plan *P);
void gen_w_modules(gen_writer *w);

/* gen_db.c */
void gen_sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern const char *const gen_ddl_tables[21];
/* gen_ddl_tables' first entries, STRING_IDS .. COMMUNICATION_OP: the tables msprof's own export
 * holds (gen_msprof.c) */
#define GEN_DDL_MSPROF_TABLES 9
extern const char *const gen_ddl_indexes[2];
extern const gen_enum gen_enum_api[9];
extern const gen_enum gen_enum_mstx[4];
extern const gen_enum gen_enum_dtype[20];
extern const gen_enum gen_enum_link[12];
extern const gen_enum gen_enum_transport[8];
extern const gen_enum gen_enum_rdma[5];
void gen_w_fail(gen_writer *w, const char *what);
void gen_w_exec(gen_writer *w, const char *sql);
void gen_w_row(gen_writer *w, int q, const int64_t *v, int n);
/* Writes the rows that did not fill a batch, one by one. */
void gen_w_flush(gen_writer *w);
void gen_w_prepare(gen_writer *w);
void gen_w_pair(gen_writer *w, sqlite3_stmt *st, int64_t id, const char *key, const char *value);
void gen_w_enum(gen_writer *w, const char *table, const gen_enum *e, size_t n);
int64_t gen_w_taskid(gen_writer *w, int stream);

/* gen_host.c */
void gen_w_launch_truth(gen_writer *w, int64_t dev_start, int name);
/* One CANN_API row at host time start; returns its connectionId. */
int64_t gen_w_launch_at(gen_writer *w, int type, int name, int64_t start);
/* One CANN_API row, LEAD (plus the host's lead, if it runs ahead) before the device task it
 * launches; returns its connectionId. */
int64_t gen_w_launch(gen_writer *w, int type, int name, int64_t dev_start);
int64_t gen_w_task(gen_writer *w, int64_t start, int64_t end, int64_t conn, int type, int64_t ctx,
                   int stream, int64_t taskid);
/* A COMPUTE_TASK_INFO row for the task gtask of duration d, counted in the operator truth. */
void gen_w_cti(gen_writer *w, int64_t gtask, int k, int cti_type, int64_t d);
void gen_w_kernel(gen_writer *w, int k, int stream, int64_t start, int64_t d);
void gen_w_mstx(gen_writer *w, int64_t start, int64_t end, int message);
void gen_w_run(gen_writer *w, const gen_blk *b);
/* A COMMUNICATION_TASK_INFO row: 15 integer columns, then bandwidth (NUMERIC). */
void gen_w_ctask(gen_writer *w, const int64_t *v, double bandwidth);
void gen_w_coll(gen_writer *w, const gen_blk *b);

/* gen_pp.c */
char *gen_pp_group_name(int g);
unsigned gen_group_hash3(const char *name);
/* META_DATA['distributed_args'] as MindSpeed-LLM writes it. */
char *gen_pp_distributed_args(const gen_plan *P, int rank);
/* The strings of ranges that carry a stream: the marker's task type and the queued ops that
 * carry the calls to the task-queue thread. */
void gen_w_mstx_strings(gen_writer *w);
void gen_w_pp_strings(gen_writer *w);
/* gen_opts.stage_device_ranges: when the host made a stage range's end call. The host does
 * not wait for the device inside a stage, so that is right after its last launch (each
 * launch of a block is at most LEAD before the block's end and lasts under 3 us); rollout's
 * decode steps do wait (their ranges end DEC_POST after their device work), so its range
 * ends just before the device part does. */
int64_t gen_stage_host_end(const gen_plan *P, int rank, const gen_stage_truth *st);
/* A forward or backward step: PP_NK kernels filling the block, and the host range around them
 * (or the block's operators). */
void gen_w_pp_block(gen_writer *w, const pp_item *it);
/* hcom_send / hcom_receive: the op and its one transfer sub-task (a Memcpy between the two
 * ranks of the pair group; local ranks 0 = lower PP stage, 1 = upper). Sends and receives use
 * different streams: a pending send may overlap a receive. */
void gen_w_pp_p2p(gen_writer *w, const pp_item *it);
/* Every PP block and transfer of the writer's rank. */
void gen_w_pp(gen_writer *w);

/* gen_host.c */
void gen_w_memory(gen_writer *w, gen_rank *rk);
/* with_stack: the frames' strings and PYTORCH_CALLCHAINS (callchainId s + 1: stack s). */
void gen_w_stacks(gen_writer *w);
/* One PYTORCH_API row; times are TEXT in every torch_npu version, so they are bound
 * as text. link < 0: no CONNECTION_IDS rows (connectionId NULL). */
void gen_w_torch_op(gen_writer *w, int64_t start, int64_t end, int64_t gtid, int name, int64_t seq,
                    int64_t fwd_tid, int64_t link);
void gen_w_mstx_device(gen_writer *w, int64_t hs, int64_t he, int64_t ds, int64_t de, int msg,
                       int domain);
/* dp_analysis' step range around decode block b, [hs, he] on the host, with its mark. */
void gen_w_dp_step(gen_writer *w, const gen_blk *b, int64_t hs, int64_t he);

#endif
