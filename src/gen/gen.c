/* The profile generator: torch_npu's on-disk layout and msprof's current DDL
 * (the exact CREATE TABLE statements of real files), with a GRPO-like timeline
 * whose overlap numbers, stage ranges and idle gaps are known by construction.
 *
 * How the truth is known without measuring the rows afterwards:
 *  - plan_build() lays every rank's device timeline out as a list of blocks, in time order, with
 *    a cursor per rank. A block is either a run of kernels (back to back on one compute stream,
 *    with known gaps between them) or a collective. The same function (kdraw_next) gives a
 *    kernel's duration to the planner and to the writer, so the writer reproduces the plan.
 *  - Compute kernels never overlap each other; collectives never overlap each other; the only
 *    compute that runs during a collective is the "overlap" kernels an actor_update allreduce
 *    carries, which lie wholly inside the op. So per rank and step:
 *      computing     = sum of kernel durations
 *      communication = sum of (op end - op start)
 *      overlapped    = sum of the overlap kernels' durations
 *      free          = sum of the idle stretches between the first and the last busy block
 *    and free is checked against (span - (computing + communication - overlapped)).
 *  - Collectives synchronise ranks: each rank's op starts when that rank gets there and every
 *    rank's op ends at (latest arrival + transfer time). The slow rank computes every kernel 30%
 *    slower (others 0-3%) and decodes the most tokens, and every rank spends the same time in
 *    "bubble + pad kernel", so the slow rank always arrives last and has the shortest op.
 *  - Host rows (CANN_API launches, MSTX ranges, STEP_TIME) are placed around the device times
 *    with fixed offsets, so every launch is inside its step and its stage range.
 *  - Pipeline-parallel profiles (gen_opts.pp) mark each forward/backward block with an MSTX range,
 *    or, with gen_opts.pp_op_pairs, only with torch operators (PYTORCH_API) whose forward and
 *    backward rows share a CONNECTION_IDS link; the operators span exactly the block, so the
 *    block truth is the same either way. With gen_opts.pp_device_ranges the ranges carry a
 *    stream: the host runs PP_HOST_AHEAD ahead of the device, the range's MSTX_EVENTS row is the
 *    host call around the block's launches (microseconds), and its MsTx TASK row -- one per
 *    range, the begin and end markers paired as msprof pairs them -- spans the block. */
#include "config.h"
#include "gen/gen.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const gen_stage_canon[GEN_NSTAGES] = {"rollout", "ref_logprob", "actor_logprob",
                                                  "reward", "actor_update"};
/* verl worker-method MSTX ranges (verl's worker methods), in the order they run here */
const char *const gen_stage_range[GEN_NSTAGES] = {"generate_sequences", "compute_ref_log_prob",
                                                  "compute_log_prob", "compute_rm_score",
                                                  "update_actor"};

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
#define MSTX_RANGE 2 /* ENUM_MSTX_EVENT_TYPE start/end */
#define MSTX_MARK_EX 3       /* ENUM_MSTX_EVENT_TYPE marker_ex: what torch_npu's mstx.mark writes */
#define DP_MARK_OFF (2 * US) /* the step_process mark: this long before the range's end */
#define HCCL_BF16 11 /* ENUM_HCCL_DATA_TYPE */
#define HCCL_INT32 2
#define HCCL_NA 65534
#define LINK_HCCS 1 /* ENUM_HCCL_LINK_TYPE */
#define LINK_ON_CHIP 0
#define TRANSPORT_SDMA 0 /* ENUM_HCCL_TRANSPORT_TYPE */
#define TRANSPORT_LOCAL 2
#define RDMA_INVALID 65535

#define GROUP_NAME "10.0.0.1%eth0_60000_0_1736414082311975"

/* ---- strings -------------------------------------------------------------------------------
 * STRING_IDS: the fixed strings get ids 0..S__COUNT-1 in this order, in every DB; the name of
 * collective number n (the same collective on every rank) gets id S__COUNT + n. */
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
	X(S_DP_STEP, "step")

#define GEN_STR_ENUM(id, text) id,
#define GEN_STR_TEXT(id, text) text,
enum gen_str { GEN_STRINGS(GEN_STR_ENUM) S__COUNT };
static const char *const str_text[S__COUNT] = {GEN_STRINGS(GEN_STR_TEXT)};

/* ---- kernels ------------------------------------------------------------------------------- */
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

/* The shortest kernel: 4.5 us nominal, x0.9 kernel jitter, x0.8 run jitter = 3.24 us. */
static const gen_kernel kernels[K__COUNT] = {
    [K_MATMUL] = {S_KN_MATMUL, S_OT_MATMUL, S_AI_CORE, S_KERNEL_AICORE, 90 * US, 24, 0, S_ND2,
                  S_BF16_2, S_SH_MM_IN, S_ND, S_BF16, S_SH_MM_OUT},
    [K_ADD] = {S_KN_ADD, S_OT_ADD, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 6 * US, 48, 0, S_ND2, S_BF16_2,
               S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_MUL] = {S_KN_MUL, S_OT_MUL, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 5500, 48, 0, S_ND2, S_BF16_2,
               S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_RMSNORM] = {S_KN_RMSNORM, S_OT_RMSNORM, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 14 * US, 48, 0,
                   S_ND2, S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_ROPE] = {S_KN_ROPE, S_OT_ROPE, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 11 * US, 48, 0, S_ND2,
                S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_SWIGLU] = {S_KN_SWIGLU, S_OT_SWIGLU, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 21 * US, 48, 0, S_ND,
                  S_BF16, S_SH_ACT, S_ND, S_BF16, S_SH_ACT},
    [K_FA] = {S_KN_FA, S_OT_FA, S_MIX_AIC, S_KERNEL_MIX_AIC, 160 * US, 24, 48, S_ND3, S_BF16_3,
              S_SH_ATT_IN, S_ND, S_BF16, S_SH_ATT_OUT},
    [K_FAG] = {S_KN_FAG, S_OT_FAG, S_MIX_AIC, S_KERNEL_MIX_AIC, 310 * US, 24, 48, S_ND3, S_BF16_3,
               S_SH_ATT_IN, S_ND3, S_BF16_3, S_SH_ATT_IN},
    [K_IFA] = {S_KN_IFA, S_OT_IFA, S_MIX_AIC, S_KERNEL_MIX_AIC, 35 * US, 24, 48, S_ND3, S_BF16_3,
               S_SH_KV_IN, S_ND, S_BF16, S_SH_DEC},
    [K_CAST] = {S_KN_CAST, S_OT_CAST, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 4500, 48, 0, S_ND, S_BF16,
                S_SH_ACT, S_ND, S_FLOAT, S_SH_ACT},
    [K_LOGSM] = {S_KN_LOGSM, S_OT_LOGSM, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 40 * US, 48, 0, S_ND,
                 S_FLOAT, S_SH_LOGITS, S_ND, S_FLOAT, S_SH_LOGITS},
    [K_GATHER] = {S_KN_GATHER, S_OT_GATHER, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 16 * US, 48, 0, S_ND2,
                  S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_COPY] = {S_KN_COPY, S_OT_COPY, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 7 * US, 48, 0, S_ND2,
                S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_ADAMW] = {S_KN_ADAMW, S_OT_ADAMW, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 45 * US, 48, 0, S_ND4,
                 S_FLOAT4, S_SH_PARAM4, S_ND, S_FLOAT, S_SH_PARAM},
    [K_ARGMAX] = {S_KN_ARGMAX, S_OT_ARGMAX, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 9 * US, 48, 0, S_ND,
                  S_BF16, S_SH_DEC, S_ND, S_INT64, S_SH_TOKENS},
};

/* Which kernels a run draws from (uniformly, repeats weight a kernel). */
enum { MIX_WLOAD, MIX_FWD, MIX_LOGP, MIX_DECODE, MIX_UPDATE, MIX_OVERLAP, MIX__COUNT };
static const uint8_t mix_wload[] = {K_COPY, K_CAST, K_COPY, K_ADD, K_COPY};
static const uint8_t mix_fwd[] = {K_RMSNORM, K_MATMUL, K_ROPE,   K_FA,  K_MATMUL, K_ADD, K_RMSNORM,
                                  K_MATMUL,  K_SWIGLU, K_MATMUL, K_ADD, K_MUL,    K_CAST};
static const uint8_t mix_logp[] = {K_RMSNORM, K_MATMUL,  K_ROPE,   K_FA,     K_MATMUL,
                                   K_ADD,     K_RMSNORM, K_MATMUL, K_SWIGLU, K_MATMUL,
                                   K_ADD,     K_MUL,     K_CAST,   K_LOGSM,  K_GATHER};
static const uint8_t mix_decode[] = {K_RMSNORM, K_MATMUL,  K_ROPE,   K_IFA,    K_MATMUL,
                                     K_ADD,     K_RMSNORM, K_MATMUL, K_SWIGLU, K_MATMUL,
                                     K_ADD,     K_ARGMAX,  K_CAST};
static const uint8_t mix_update[] = {K_FA,  K_FAG,    K_MATMUL, K_MATMUL, K_MATMUL, K_RMSNORM,
                                     K_ADD, K_SWIGLU, K_MUL,    K_CAST,   K_ADAMW,  K_ADD};
static const uint8_t mix_overlap[] = {K_MATMUL, K_FAG};
static const struct {
	const uint8_t *k;
	unsigned n;
} mixes[MIX__COUNT] = {
    [MIX_WLOAD] = {mix_wload, sizeof mix_wload},
    [MIX_FWD] = {mix_fwd, sizeof mix_fwd},
    [MIX_LOGP] = {mix_logp, sizeof mix_logp},
    [MIX_DECODE] = {mix_decode, sizeof mix_decode},
    [MIX_UPDATE] = {mix_update, sizeof mix_update},
    [MIX_OVERLAP] = {mix_overlap, sizeof mix_overlap},
};

/* ---- deterministic randomness ------------------------------------------------------------- */
static uint64_t
mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull; /* splitmix64 */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t
rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	uint64_t z = *s;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t
seed_of(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return mix64(seed ^ mix64(a ^ mix64(b ^ mix64(c))));
}

/* Kernel draws of one run. The kernel sequence and the run's jitter depend on the run's seed
 * only, so every rank draws the same kernels; `f` (per mille) makes a rank slower. */
typedef struct kdraw {
	uint64_t rng;
	const uint8_t *mix;
	unsigned nmix;
	int64_t jit, f; /* per mille */
} kdraw;

static void
kdraw_init(kdraw *g, uint64_t seed, int mix, int64_t f)
{
	g->rng = seed;
	g->mix = mixes[mix].k;
	g->nmix = mixes[mix].n;
	g->jit = 800 + (int64_t)(rng_next(&g->rng) % 401);
	g->f = f;
}

static int64_t
kdraw_next(kdraw *g, int *kind)
{
	uint64_t x = rng_next(&g->rng);
	int k = g->mix[x % g->nmix];
	int64_t w = kernels[k].ns * (int64_t)(900 + (x >> 32) % 201) / 1000;
	*kind = k;
	return w * g->jit / 1000 * g->f / 1000;
}

/* Gap i follows kernel i of a run of nk. Every AUX_EVERY-th gap and the middle one are wide and
 * hold a memcpy/event task. Gaps 0 and 1 never are (FFTS_SLOT needs narrow gaps around it). */
static int
gap_is_aux(uint32_t i, uint32_t nk)
{
	return (i + 1) % AUX_EVERY == 0 || (nk >= 4 && i == nk / 2);
}

/* ---- the plan ------------------------------------------------------------------------------ */
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
	int64_t f; /* per mille: kernel durations are scaled by f/1000 */
	const gen_opts *o; /* the plan's options (stage_f) */
	gen_blk *blk;
	size_t nblk, cap;
	/* planning state */
	int64_t t; /* device cursor */
	int64_t range_start[GEN_NSTAGES], range_end[GEN_NSTAGES];
	int64_t first_busy, last_end, comp, comm, ovl, idle; /* this step so far */
	int64_t ov_busy, ov_span;                            /* scratch of plan_coll */
	int64_t busy0; /* comp + comm - ovl when the current stage began */
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
	unsigned group_hash3; /* the 3 digits in opName */
	gen_sizes sz;
	gen_rank *rk;
	uint32_t nops, seq[2];
	gen_truth tr;
	size_t stage_cap, overlap_cap, bubble_cap, step_cap, comm_cap, op_cap;
	int pp_dp, pp_mb;                       /* PP profiles: DP replicas, micro-batches */
	size_t ppb_cap, pps_cap, p2p_cap, dp_cap;
} gen_plan;

/* The kernel length factor (per mille) of rank rk's work in a stage: its own speed, times the
 * pair option's slowdown where it applies. */
static int64_t
stage_f(const gen_opts *o, const gen_rank *rk, int stage)
{
	if (o->slow_stage >= 0 && stage == o->slow_stage && rk->rank < 64 &&
	    (o->slow_ranks_mask >> rk->rank) & 1)
		return rk->f * o->slow_factor / 1000;
	return rk->f;
}

static int64_t
bubble_len(const gen_plan *P, int k, int r, int stage)
{
	return BUB_BASE + (((int64_t)k * P->nranks + r) * GEN_NSTAGES + stage) * BUB_STEP;
}

/* Pad kernel beyond PAD_MIN: every rank spends bubble + pad = the stage's largest bubble, so
 * the bubbles do not change who arrives last at the next collective. */
static int64_t
pad_len(const gen_plan *P, int k, int r, int stage)
{
	return bubble_len(P, k, P->nranks - 1, stage) - bubble_len(P, k, r, stage);
}

/* Busy (kernel) and idle (gap) time of a run, as the writer will lay it out. */
static void
run_measure(uint64_t seed, int mix, int64_t f, uint32_t nk, int flags, int64_t pad, int64_t *busy,
            int64_t *idle)
{
	kdraw g;
	int k;
	int64_t b = 0, gaps = 0;
	kdraw_init(&g, seed, mix, f);
	for (uint32_t i = 0; i < nk; i++) {
		b += kdraw_next(&g, &k);
		if (i + 1 < nk)
			gaps += gap_is_aux(i, nk) ? AUXGAP : KGAP;
	}
	if (flags & BF_PAD) {
		gaps += KGAP;
		b += PAD_MIN + pad;
	}
	*busy = b;
	*idle = gaps;
}

static gen_blk *
rank_push(gen_rank *rk)
{
	VEC_RESERVE(rk->blk, rk->cap, rk->nblk + 1);
	gen_blk *b = &rk->blk[rk->nblk++];
	memset(b, 0, sizeof *b);
	return b;
}

/* Accounts a busy block [start, end): the time since the previous busy block is idle (free) once
 * the step has seen its first busy block; idle_inside is idle time within the block. */
static void
rank_place(gen_rank *rk, int64_t start, int64_t end, int64_t idle_inside)
{
	if (rk->first_busy < 0)
		rk->first_busy = start;
	else
		rk->idle += start - rk->last_end;
	rk->idle += idle_inside;
	rk->last_end = end;
}

static void
rank_run(gen_rank *rk, int k, int stage, uint64_t seed, int mix, uint32_t nk, int stream, int flags,
         int64_t pad)
{
	int64_t busy, idle;
	run_measure(seed, mix, stage_f(rk->o, rk, stage), nk, flags, pad, &busy, &idle);
	gen_blk *b = rank_push(rk);
	b->kind = BLK_RUN;
	b->start = rk->t;
	b->end = rk->t + busy + idle;
	b->seed = seed;
	b->nk = nk;
	b->pad = pad;
	b->step = (uint16_t)k;
	b->stage = (uint8_t)stage;
	b->mix = (uint8_t)mix;
	b->stream = (uint8_t)stream;
	b->flags = (uint8_t)flags;
	rank_place(rk, b->start, b->end, idle);
	rk->comp += busy;
	rk->t = b->end;
}

/* The same run on every rank, at each rank's cursor. */
static void
plan_run(gen_plan *P, int k, int stage, uint64_t seed, int mix, uint32_t nk, int stream, int flags)
{
	for (int r = 0; r < P->nranks; r++)
		rank_run(&P->rk[r], k, stage, seed, mix, nk, stream, flags,
		         (flags & BF_PAD) ? pad_len(P, k, r, stage) : 0);
}

static void
plan_bubble(gen_plan *P, gen_rank *rk, int k, int stage)
{
	gen_bubble_truth bt = {.rank = rk->rank, .step = k + 1, .stage = stage};
	bt.start_ns = rk->t;
	bt.end_ns = rk->t + bubble_len(P, k, rk->rank, stage);
	VEC_PUSH(P->tr.bubbles, P->tr.nbubbles, P->bubble_cap, bt);
	rk->t = bt.end_ns;
}

/* A collective: every rank's op starts at its own cursor and ends when the last rank's transfer
 * ends. With `overlap`, OVL_NK kernels run on the compute stream inside the op. */
static void
plan_coll(gen_plan *P, int k, int stage, int optype, int overlap)
{
	uint32_t op = P->nops++;
	uint32_t seq = P->seq[optype]++;
	uint64_t h = seed_of(P->o.seed, 0xC011, op, 0);
	uint64_t ovseed = seed_of(P->o.seed, 0x0F1A, op, 0);
	int64_t xfer = 60 * US + (int64_t)(h % (140 * US));
	int64_t amax = INT64_MIN, ovmax = 0;
	if ((int64_t)op == P->o.delay_coll && P->o.delay_ns > 0) {
		/* the pair option: the last rank to arrive comes delay_ns later (host idle) */
		int late = 0;
		for (int r = 1; r < P->nranks; r++)
			if (P->rk[r].t > P->rk[late].t)
				late = r;
		P->rk[late].t += P->o.delay_ns;
	}
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		int64_t idle;
		if (rk->t > amax)
			amax = rk->t;
		rk->ov_busy = rk->ov_span = 0;
		if (overlap) {
			run_measure(ovseed, MIX_OVERLAP, stage_f(&P->o, rk, stage), OVL_NK, 0, 0,
			            &rk->ov_busy, &idle);
			rk->ov_span = rk->ov_busy + idle;
			if (rk->ov_span > ovmax)
				ovmax = rk->ov_span;
		}
	}
	if (overlap)
		xfer += OVL_DELAY + ovmax + OVL_TAIL;
	int64_t end = amax + xfer;
	int last = 0;
	for (int r = 0; r < P->nranks; r++)
		if (P->rk[r].t == amax) {
			last = r; /* the first rank to have arrived last */
			break;
		}
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		/* what w_coll writes: plane 0 waits (Notify_Wait) from the rank's arrival until
		 * NOTIFY_NS after the last arrival, then transfers until the op ends */
		gen_comm_truth ct = {.rank = r, .step = k + 1, .op = op, .start_ns = rk->t,
		    .end_ns = end, .last_arrival_ns = amax, .last_rank = last,
		    .wait_ns = amax + NOTIFY_NS - rk->t, .transit_ns = end - (amax + NOTIFY_NS)};
		ct.sync_ns = ct.wait_ns;
		VEC_PUSH(P->tr.comm, P->tr.ncomm, P->comm_cap, ct);
		gen_blk *b = rank_push(rk);
		b->kind = BLK_COLL;
		b->start = rk->t;
		b->end = end;
		b->wait_end = amax;
		b->seed = ovseed;
		b->nk = overlap ? OVL_NK : 0;
		b->op = op;
		b->seq = seq;
		b->step = (uint16_t)k;
		b->stage = (uint8_t)stage;
		b->nsub = (uint8_t)(2 + (h >> 24) % 5); /* 2..6 sub-tasks */
		b->optype = (uint8_t)optype;
		rank_place(rk, b->start, end, 0);
		rk->comm += end - b->start;
		rk->comp += rk->ov_busy;
		rk->ovl += rk->ov_busy; /* the overlap kernels lie wholly inside the op */
		rk->t = end;
	}
}

static void
stage_begin(gen_plan *P, int stage, const int64_t *range_start)
{
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		rk->range_start[stage] = range_start[r];
		rk->t = rk->range_start[stage] + MSTX_PRE + LEAD;
		rk->busy0 = rk->comp + rk->comm - rk->ovl;
	}
}

/* The stage's device work lies wholly inside its range, and the work of one stage never
 * overlaps another's, so its busy time is the growth of comp + comm - ovl over the stage. */
static void
stage_end(gen_plan *P, int k, int stage, const int *decode_steps)
{
	int64_t latest = INT64_MIN;
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		rk->range_end[stage] = rk->t + MSTX_POST;
		if (rk->range_end[stage] > latest)
			latest = rk->range_end[stage];
	}
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		gen_stage_truth st = {.rank = r, .step = k + 1, .stage = stage};
		st.start_ns = rk->range_start[stage];
		st.end_ns = rk->range_end[stage];
		st.decode_steps = decode_steps ? decode_steps[r] : 0;
		if (P->o.no_stage_ranges || P->o.decode_marks == GEN_DECODE_NONE)
			st.decode_steps = -1; /* no range records them */
		st.busy_ns = rk->comp + rk->comm - rk->ovl - rk->busy0;
		st.wait_ns = latest - st.end_ns;
		VEC_PUSH(P->tr.stages, P->tr.nstages, P->stage_cap, st);
	}
}

static void
plan_sizes(gen_plan *P)
{
	/* Shares of one step's kernels, per cent: prefill 6, decode 30, the other stages
	 * 14/14/6/24; the memcpy/event and comm sub-tasks make up the rest. A segment is a run
	 * and a collective, ~200 kernels. */
	static const unsigned share[GEN_NSTAGES] = {0, 14, 14, 6, 24};
	uint64_t n = P->o.tasks_per_rank / (uint64_t)P->nsteps;
	gen_sizes *s = &P->sz;
	s->wload = 16;
	s->prefill = (uint32_t)(n * 6 / 100 > 8 ? n * 6 / 100 : 8);
	s->dec_kernels = 24;
	s->dec_base = (uint32_t)(n * 30 / 100 / s->dec_kernels);
	if (s->dec_base < 3)
		s->dec_base = 3;
	s->dec_spread = s->dec_base / 4 > 1 ? s->dec_base / 4 : 1;
	for (int st = 1; st < GEN_NSTAGES; st++) {
		uint64_t tasks = n * share[st] / 100;
		uint64_t nseg = tasks / 200 > 2 ? tasks / 200 : 2;
		uint64_t per = tasks / nseg > 14 ? tasks / nseg - 6 : 8;
		s->nseg[st] = (uint32_t)nseg;
		s->seg_kernels[st] = (uint32_t)per;
	}
}

static int
decode_count(const gen_plan *P, int k, int r)
{
	const gen_sizes *s = &P->sz;
	if (r == P->o.slow_rank) /* the slow rank also decodes the longest sequences */
		return (int)(s->dec_base + s->dec_spread);
	return (int)(s->dec_base +
	             seed_of(P->o.seed, 0xDEC0, (uint64_t)k, (uint64_t)r) % s->dec_spread);
}

static int
plan_step_check(gen_plan *P, int k, int64_t step_start)
{
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		gen_overlap_truth ot = {.rank = r, .step = k + 1};
		ot.computing = rk->comp;
		ot.communication = rk->comm;
		ot.overlapped = rk->ovl;
		ot.comm_not_overlapped = rk->comm - rk->ovl;
		ot.free = rk->idle;
		ot.preparing = rk->first_busy - step_start;
		/* the definition, from the sums: span - |compute U comm| */
		int64_t span = rk->last_end - rk->first_busy;
		if (rk->idle != span - (rk->comp + rk->comm - rk->ovl)) {
			msg_error("gen: internal error: rank %d step %d: free %" PRId64
			          " != span - busy %" PRId64,
			          r, k + 1, rk->idle, span - (rk->comp + rk->comm - rk->ovl));
			return -1;
		}
		VEC_PUSH(P->tr.overlap, P->tr.noverlap, P->overlap_cap, ot);
	}
	return 0;
}

/* Every rank's timeline, step by step, stage by stage. Ranks move in lockstep because the
 * collectives synchronise them. */
/* The numbers of engine step d of n on rank r in step k (0-based) as its mark reports them: the
 * requests drain as the rollout goes on (the last steps run the longest answers alone), a few
 * wait early on, and the KV cache empties with them. */
static void
dp_stats(int r, int k, int d, int n, gen_dp_step_truth *t)
{
	t->running = n - d;
	t->waiting = d < 3 ? 3 - d + (r + k) % 2 : 0;
	t->out_tokens = t->running - (d % 3 == 2); /* a request can finish without an output */
	t->cache_usage = (double)(n - d) / (double)(n + 4);
}

/* dp_bad_marks: whether the mark of step d on rank r reads as stats (rank 2's marks are all
 * paired wrong once its last one is missing). */
static int
dp_has_stats(const gen_plan *P, int r, int d)
{
	if (!P->o.dp_bad_marks)
		return 1;
	return !(r == 1 && d == 1) && r != 2;
}

static void
plan_dp_step(gen_plan *P, int r, int k, int d, int n, const gen_blk *b)
{
	gen_dp_step_truth t = {.rank = r,
	                       .step = k + 1,
	                       .index = d,
	                       .start_ns = b->start - LEAD - DEC_PRE,
	                       .end_ns = b->end + DEC_POST,
	                       .has_stats = dp_has_stats(P, r, d)};
	dp_stats(r, k, d, n, &t);
	VEC_PUSH(P->tr.dp_steps, P->tr.ndp_steps, P->dp_cap, t);
}

static int
plan_build(gen_plan *P)
{
	const gen_sizes *s = &P->sz;
	int R = P->nranks;
	int64_t step_start = P->t0;
	int64_t *rs = xcalloc((size_t)R, sizeof *rs);
	int *dec = xcalloc((size_t)R, sizeof *dec);
	int rc = 0;
	uint64_t seed = P->o.seed;

	for (int k = 0; k < P->nsteps && rc == 0; k++) {
		for (int r = 0; r < R; r++) {
			gen_rank *rk = &P->rk[r];
			rk->first_busy = -1;
			rk->last_end = rk->comp = rk->comm = rk->ovl = rk->idle = 0;
			rs[r] = step_start + STEP_PRE;
			dec[r] = decode_count(P, k, r);
		}

		/* rollout: load weights, gather them, prefill, bubble, decode steps */
		stage_begin(P, ST_ROLLOUT, rs);
		plan_run(P, k, ST_ROLLOUT, seed_of(seed, (uint64_t)k, ST_ROLLOUT, 0), MIX_WLOAD,
		         s->wload, STREAM_A, 0);
		plan_coll(P, k, ST_ROLLOUT, OP_ALLGATHER, 0);
		plan_run(P, k, ST_ROLLOUT, seed_of(seed, (uint64_t)k, ST_ROLLOUT, 1), MIX_FWD,
		         s->prefill, STREAM_A, BF_PAD);
		for (int r = 0; r < R; r++) {
			gen_rank *rk = &P->rk[r];
			plan_bubble(P, rk, k, ST_ROLLOUT);
			for (int d = 0; d < dec[r]; d++) {
				if (d > 0)
					rk->t += DEC_GAP;
				rank_run(rk, k, ST_ROLLOUT,
				         seed_of(seed, (uint64_t)k, 100 + (uint64_t)d, 7),
				         MIX_DECODE, s->dec_kernels, STREAM_A, BF_DECODE, 0);
				if (P->o.decode_marks == GEN_DECODE_DP && !P->o.no_stage_ranges)
					plan_dp_step(P, r, k, d, dec[r], &rk->blk[rk->nblk - 1]);
			}
		}
		stage_end(P, k, ST_ROLLOUT, dec);

		/* the other stages: segments of a run and a collective; the first segment's run is
		 * split by the stage's bubble */
		for (int st = ST_REF; st < GEN_NSTAGES; st++) {
			int mix = st == ST_UPDATE   ? MIX_UPDATE
			          : st == ST_REWARD ? MIX_FWD
			                            : MIX_LOGP;
			uint32_t nk = s->seg_kernels[st];
			for (int r = 0; r < R; r++)
				rs[r] = P->rk[r].range_end[st - 1] + HOST_GAP;
			stage_begin(P, st, rs);
			for (uint32_t g = 0; g < s->nseg[st]; g++) {
				int stream = st == ST_REWARD ||
				                     ((st == ST_REF || st == ST_ACTOR_LP) && g % 2)
				                 ? STREAM_B
				                 : STREAM_A;
				uint64_t sd =
				    seed_of(seed, (uint64_t)k, (uint64_t)st, 2 * (uint64_t)g);
				if (g == 0) {
					uint32_t n1 = nk / 2;
					plan_run(P, k, st, sd, mix, n1, stream,
					         st == ST_UPDATE ? BF_FFTS : 0);
					for (int r = 0; r < R; r++)
						plan_bubble(P, &P->rk[r], k, st);
					plan_run(P, k, st, sd + 1, mix, nk - n1, stream, BF_PAD);
				} else {
					plan_run(P, k, st, sd, mix, nk, stream, 0);
				}
				plan_coll(P, k, st, OP_ALLREDUCE, st == ST_UPDATE);
			}
			stage_end(P, k, st, NULL);
		}

		int64_t step_end = P->rk[0].range_end[GEN_NSTAGES - 1] + STEP_POST;
		rc = plan_step_check(P, k, step_start);
		gen_step_truth sp = {.step = k + 1, .start_ns = step_start, .end_ns = step_end};
		VEC_PUSH(P->tr.steps, P->tr.nsteps, P->step_cap, sp);
		step_start = step_end;
	}
	P->session_start = (P->t0 - MS) / US * US;
	P->session_end = (step_start + MS + US - 1) / US * US;
	free(rs);
	free(dec);
	return rc;
}

/* ---- pipeline parallelism (gen_opts.pp) ----------------------------------------------------
 * Each PP stage runs its schedule (1F1B or GPipe) over the step's micro-batches. A block that
 * needs data from a neighbour (F(s,m) needs F(s-1,m); B(s,m) needs B(s+1,m)) waits for a
 * rendezvous: the sender posts hcom_send PP_SEND_OFF after its block, the receiver posts
 * hcom_receive PP_RECV_OFF after its previous block, both end a transfer time after the later of
 * the two, and the block starts PP_AFTER_RECV later. Blocks without a P2P dependency start
 * PP_GAP after the previous one. Sends are asynchronous: the sender does not wait for them. The
 * DP replicas of a stage run the same timeline. All offsets keep the launches of one rank at
 * least 5 us apart (a launch lasts at most 2.2 us). */
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

static int64_t
pp_dur(const gen_plan *P, int k, int s, int m, char kind)
{
	int64_t f = PP_F_BASE + s * PP_F_STAGE +
	            (int64_t)(seed_of(P->o.seed, 0xB10C, (uint64_t)(k * 1000 + s),
	                              (uint64_t)(m * 2 + (kind == 'B'))) %
	                      (uint64_t)PP_JITTER);
	return kind == 'F' ? f : 2 * f;
}

/* The order of blocks on stage s: GPipe runs every forward, then every backward; 1F1B
 * (PipeDream-flush, Megatron's non-interleaved schedule) runs P-s-1 warm-up forwards, then
 * alternates one forward and one backward, then drains the backwards. */
static void
pp_order(int sched, int P, int s, int M, char *kind, int *mb)
{
	int n = 0;
	if (sched == GEN_PP_GPIPE) {
		for (int m = 0; m < M; m++)
			kind[n] = 'F', mb[n++] = m;
		for (int m = 0; m < M; m++)
			kind[n] = 'B', mb[n++] = m;
		return;
	}
	int warm = P - s - 1 < M ? P - s - 1 : M;
	for (int m = 0; m < warm; m++)
		kind[n] = 'F', mb[n++] = m;
	for (int i = 0; i < M - warm; i++) {
		kind[n] = 'F', mb[n++] = warm + i;
		kind[n] = 'B', mb[n++] = i;
	}
	for (int m = M - warm; m < M; m++)
		kind[n] = 'B', mb[n++] = m;
}

static void
pp_push(gen_plan *P, int s, pp_item it)
{
	for (int d = 0; d < P->pp_dp; d++) {
		gen_rank *rk = &P->rk[s * P->pp_dp + d];
		pp_item x = it;
		if (x.what != PPI_BLOCK) {
			x.peer = x.peer * P->pp_dp + d;
			x.group = x.group * P->pp_dp + d;
		}
		VEC_PUSH(rk->pp, rk->npp, rk->ppcap, x);
	}
}

/* When the item's first CANN launch happens: its device start (the first kernel's for a block)
 * minus LEAD. The writer emits a rank's items in this order (launches never overlap). */
static int64_t
pp_launch_at(const pp_item *x)
{
	return x->start + (x->what == PPI_BLOCK ? PP_KOFF : 0) - LEAD;
}

static int
cmp_pp_item(const void *a, const void *b)
{
	int64_t x = pp_launch_at(a), y = pp_launch_at(b);
	return (x > y) - (x < y);
}

static int
cmp_pp_block_truth(const void *a, const void *b)
{
	const gen_pp_block_truth *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int
plan_pp(gen_plan *P)
{
	int S = P->o.pp, M = P->pp_mb, n = 2 * M, rc = 0;
	char *kind = xcalloc((size_t)(S * n), 1);
	int *mb = xcalloc((size_t)(S * n), sizeof *mb);
	int *pos = xcalloc((size_t)S, sizeof *pos);
	int64_t *free_at = xcalloc((size_t)S, sizeof *free_at);
	int64_t *fend = xcalloc((size_t)(S * M), sizeof *fend), *bend = xcalloc((size_t)(S * M), sizeof *bend);
	int64_t *busy = xcalloc((size_t)S, sizeof *busy);
	uint32_t *seq = xcalloc((size_t)S, sizeof *seq);
	int64_t step_start = P->t0;
	for (int s = 0; s < S; s++)
		pp_order(P->o.pp_schedule, S, s, M, kind + s * n, mb + s * n);
	for (int k = 0; k < P->nsteps && rc == 0; k++) {
		int64_t first = INT64_MAX, last = INT64_MIN;
		for (int s = 0; s < S; s++) {
			pos[s] = 0;
			free_at[s] = step_start + STEP_PRE - PP_GAP;
			busy[s] = 0;
		}
		for (int i = 0; i < S * M; i++)
			fend[i] = bend[i] = -1;
		for (int left = S * n; left > 0 && rc == 0;) {
			int progress = 0;
			for (int s = 0; s < S; s++) {
				while (pos[s] < n) {
					char kd = kind[s * n + pos[s]];
					int m = mb[s * n + pos[s]];
					int src = kd == 'F' ? s - 1 : s + 1; /* the stage it needs data from */
					int64_t dep = -1, start;
					if (src >= 0 && src < S) {
						dep = kd == 'F' ? fend[src * M + m] : bend[src * M + m];
						if (dep < 0)
							break; /* not there yet */
					}
					if (dep >= 0 && !P->o.pp_no_p2p) {
						int64_t ss = dep + PP_SEND_OFF, rs = free_at[s] + PP_RECV_OFF;
						int64_t x = (ss > rs ? ss : rs) + PP_XFER +
						            (int64_t)(seed_of(P->o.seed, 0x9292, (uint64_t)k,
						                              (uint64_t)(s * 2 * M + 2 * m + (kd == 'B'))) %
						                      (20 * US));
						int g = s < src ? s : src;
						uint32_t q = seq[g]++;
						pp_push(P, src, (pp_item){.start = ss, .end = x, .what = PPI_SEND,
						                          .peer = s, .group = g, .seq = q});
						pp_push(P, s, (pp_item){.start = rs, .end = x, .what = PPI_RECV,
						                        .peer = src, .group = g, .seq = q});
						for (int d = 0; d < P->pp_dp; d++) {
							gen_p2p_truth pt = {.step = k + 1,
							                    .src_rank = src * P->pp_dp + d,
							                    .dst_rank = s * P->pp_dp + d,
							                    .send_start_ns = ss, .send_end_ns = x,
							                    .recv_start_ns = rs, .recv_end_ns = x};
							VEC_PUSH(P->tr.p2p, P->tr.np2p, P->p2p_cap, pt);
						}
						start = x + PP_AFTER_RECV;
					} else {
						start = free_at[s] + PP_GAP;
						if (dep >= 0 && dep + PP_GAP > start) /* no P2P: data still flows */
							start = dep + PP_GAP;
					}
					int64_t end = start + pp_dur(P, k, s, m, kd);
					pp_push(P, s, (pp_item){.start = start, .end = end, .what = PPI_BLOCK,
					                        .kind = kd, .mb = m, .step = k});
					for (int d = 0; d < P->pp_dp; d++) {
						gen_pp_block_truth bt = {.rank = s * P->pp_dp + d, .pp_stage = s,
						                         .step = k + 1, .kind = kd, .microbatch = m,
						                         .start_ns = start, .end_ns = end};
						VEC_PUSH(P->tr.pp_blocks, P->tr.npp_blocks, P->ppb_cap, bt);
					}
					(kd == 'F' ? fend : bend)[s * M + m] = end;
					busy[s] += end - start;
					free_at[s] = end;
					if (start < first)
						first = start;
					if (end > last)
						last = end;
					pos[s]++;
					left--;
					progress = 1;
				}
			}
			if (!progress) {
				msg_error("gen: internal error: the PP schedule deadlocks");
				rc = -1;
			}
		}
		for (int s = 0; s < S; s++) {
			gen_pp_stage_truth st = {.step = k + 1, .pp_stage = s, .span_ns = last - first,
			                         .idle_ns = last - first - busy[s]};
			VEC_PUSH(P->tr.pp_stages, P->tr.npp_stages, P->pps_cap, st);
		}
		int64_t step_end = last + STEP_POST;
		gen_step_truth sp = {.step = k + 1, .start_ns = step_start, .end_ns = step_end};
		VEC_PUSH(P->tr.steps, P->tr.nsteps, P->step_cap, sp);
		step_start = step_end;
	}
	/* the truth lists blocks per rank in time order; the writer writes each rank's items in the
	 * order their launches happen */
	qsort(P->tr.pp_blocks, P->tr.npp_blocks, sizeof *P->tr.pp_blocks, cmp_pp_block_truth);
	for (int r = 0; r < P->nranks; r++)
		qsort(P->rk[r].pp, P->rk[r].npp, sizeof *P->rk[r].pp, cmp_pp_item);
	P->session_start = (P->t0 - MS) / US * US;
	P->session_end = (step_start + MS + US - 1) / US * US;
	free(kind);
	free(mb);
	free(pos);
	free(free_at);
	free(fend);
	free(bend);
	free(busy);
	free(seq);
	return rc;
}


/* ---- a growing string -------------------------------------------------------------------- */
typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void sbuf_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
sbuf_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		int m = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (m < 0)
			return;
		if ((size_t)m < room) {
			b->n += (size_t)m;
			return;
		}
		b->cap = b->cap * 2 + (size_t)m + 64;
		b->s = xrealloc(b->s, b->cap);
	}
}

/* ---- the writer ----------------------------------------------------------------------------- */
enum { Q_TASK, Q_CTI, Q_API, Q_OP, Q_CTASK, Q_MSTX, Q_STR, Q_PAIR_TEXT, Q_TORCH, Q_CONN_IDS,
       Q__COUNT };
/* The three big tables are written BATCH rows per INSERT: per-statement overhead dominates. */
#define NBATCHED 3 /* Q_TASK, Q_CTI, Q_API */
#define BATCH 64
static const int q_ncol[NBATCHED] = {11, 17, 6};
static const char *const q_table[NBATCHED] = {"TASK", "COMPUTE_TASK_INFO", "CANN_API"};

/* Exact DDL: msprof's current CREATE TABLE statements (msprof creates these first, so its
 * DDL wins for the tables torch_npu shares) and torch_npu's for STEP_TIME,
 * PYTORCH_API and CONNECTION_IDS. */
static const char *const ddl_tables[] = {
    "CREATE TABLE IF NOT EXISTS STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);",
    "CREATE TABLE IF NOT EXISTS SESSION_TIME_INFO (startTimeNs INTEGER,endTimeNs INTEGER);",
    "CREATE TABLE IF NOT EXISTS NPU_INFO (id INTEGER,name TEXT);",
    "CREATE TABLE IF NOT EXISTS RANK_DEVICE_MAP (rankId INTEGER,deviceId INTEGER);",
    "CREATE TABLE IF NOT EXISTS HOST_INFO (hostUid TEXT,hostName TEXT);",
    "CREATE TABLE IF NOT EXISTS TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,"
    "connectionId INTEGER,globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,"
    "contextId INTEGER,streamId INTEGER,taskId INTEGER,modelId INTEGER);",
    "CREATE TABLE IF NOT EXISTS COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,"
    "blockNum INTEGER,mixBlockNum INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,"
    "inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,"
    "outputShapes INTEGER,attrInfo INTEGER,opState INTEGER,hf32Eligible INTEGER,gridDim INTEGER,"
    "blockDim INTEGER);",
    "CREATE TABLE IF NOT EXISTS COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,"
    "taskType INTEGER,planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,"
    "srcRank INTEGER,dstRank INTEGER,transportType INTEGER,size INTEGER,dataType INTEGER,"
    "linkType INTEGER,opId INTEGER,isMaster INTEGER,bandwidth NUMERIC);",
    "CREATE TABLE IF NOT EXISTS COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,"
    "connectionId INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,"
    "retry INTEGER,dataType INTEGER,algType INTEGER,count NUMERIC,opType INTEGER,"
    "deviceId INTEGER,rankSize INTEGER);",
    "CREATE TABLE IF NOT EXISTS CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,"
    "globalTid INTEGER,connectionId INTEGER PRIMARY KEY,name INTEGER);",
    "CREATE TABLE IF NOT EXISTS META_DATA (name TEXT,value TEXT);",
    "CREATE TABLE IF NOT EXISTS MSTX_EVENTS (startNs INTEGER,endNs INTEGER,eventType INTEGER,"
    "rangeId INTEGER,category INTEGER,message INTEGER,globalTid INTEGER,endGlobalTid INTEGER,"
    "domainId INTEGER,connectionId INTEGER);",
    "CREATE TABLE IF NOT EXISTS ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_DATA_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_LINK_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_TRANSPORT_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_RDMA_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_MSTX_EVENT_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)",
    "CREATE TABLE IF NOT EXISTS PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, "
    "connectionId INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, "
    "inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);",
    "CREATE TABLE IF NOT EXISTS CONNECTION_IDS (id INTEGER, connectionId INTEGER);",
};
static const char *const ddl_indexes[] = {
    "CREATE INDEX IF NOT EXISTS TaskIndex ON TASK (startNs,globalTaskId);",
    "CREATE INDEX IF NOT EXISTS CommunicationTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId);",
};

static const char *const q_sql[Q__COUNT] = {
    [Q_TASK] = "INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [Q_CTI] = "INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_API] = "INSERT INTO CANN_API VALUES (?,?,?,?,?,?)",
    [Q_OP] = "INSERT INTO COMMUNICATION_OP VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_CTASK] = "INSERT INTO COMMUNICATION_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_MSTX] = "INSERT INTO MSTX_EVENTS VALUES (?,?,?,?,?,?,?,?,?,?)",
    [Q_STR] = "INSERT INTO STRING_IDS VALUES (?,?)",
    [Q_PAIR_TEXT] = "INSERT INTO META_DATA VALUES (?,?)",
    [Q_TORCH] = "INSERT INTO PYTORCH_API VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [Q_CONN_IDS] = "INSERT INTO CONNECTION_IDS VALUES (?,?)",
};

typedef struct gen_enum {
	int id;
	const char *name;
} gen_enum;

/* ENUM_* rows as msprof's current code writes them; torch_npu adds the
 * 5000x API types. */
static const gen_enum enum_api[] = {{5000, "runtime"}, {5500, "communication"}, {10000, "node"},
                                    {15000, "model"},  {20000, "acl"},          {50001, "op"},
                                    {50002, "queue"},  {50003, "trace"},        {50004, "mstx"}};
static const gen_enum enum_mstx[] = {
    {0, "marker"}, {1, "push/pop"}, {2, "start/end"}, {3, "marker_ex"}};
static const gen_enum enum_dtype[] = {
    {0, "INT8"},     {1, "INT16"},    {2, "INT32"},      {3, "FP16"},    {4, "FP32"},
    {5, "INT64"},    {6, "UINT64"},   {7, "UINT8"},      {8, "UINT16"},  {9, "UINT32"},
    {10, "FP64"},    {11, "BFP16"},   {12, "INT128"},    {14, "HIF8"},   {15, "FP8E4M3"},
    {16, "FP8E5M2"}, {17, "FP8E8M0"}, {255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}};
static const gen_enum enum_link[] = {{0, "ON_CHIP"},       {1, "HCCS"},    {2, "PCIE"},
                                     {3, "ROCE"},          {4, "SIO"},     {5, "HCCS_SW"},
                                     {6, "STANDARD_ROCE"}, {7, "UB"},      {8, "UBoE"},
                                     {255, "RESERVED"},    {65534, "N/A"}, {65535, "INVALID_TYPE"}};
static const gen_enum enum_transport[] = {
    {0, "SDMA"}, {1, "RDMA"},       {2, "LOCAL"},   {3, "UB"},
    {4, "ROCE"}, {255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}};
static const gen_enum enum_rdma[] = {{0, "RDMA_SEND_NOTIFY"},
                                     {1, "RDMA_SEND_PAYLOAD"},
                                     {255, "RESERVED"},
                                     {65534, "N/A"},
                                     {65535, "INVALID_TYPE"}};

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
	int64_t next_ppname; /* PP profiles: STRING_IDS id of the next P2P op name */
	int64_t next_oplink; /* PP operator pairs: the next PYTORCH_API.connectionId */
	int64_t ahead;       /* PP device ranges: the host launches this much earlier */
	int64_t next_mark;   /* mstx mark id of the next range carrying a stream */
	int64_t next_dpmsg;  /* GEN_DECODE_DP: the next mark message's STRING_IDS offset */
	int dp_step, dp_i;   /* GEN_DECODE_DP: the step of the last engine step, its index */
	int64_t last_launch; /* start of the last CANN_API row written */
	gen_launch_truth *lt; /* launches of compute / communication work (w_launch_truth) */
	size_t nlt, ltcap;
	int64_t *lt_conn; /* per lt entry: its connectionId */
	size_t nltc, ltccap;
	int *conn_tasks; /* per launch (connectionId - CONN_BASE): its TASK rows */
	size_t nconn, conncap;
	int err;
} gen_writer;

static void
w_fail(gen_writer *w, const char *what)
{
	if (!w->err)
		msg_error("gen: %s: %s: %s", w->path, what, w->db ? sqlite3_errmsg(w->db) : "");
	w->err = 1;
}

static void
w_exec(gen_writer *w, const char *sql)
{
	char *e = NULL;
	if (w->err)
		return;
	if (sqlite3_exec(w->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		if (!w->err)
			msg_error("gen: %s: %s: %s", w->path, sql, e ? e : "?");
		w->err = 1;
	}
	sqlite3_free(e);
}

static void
w_step(gen_writer *w, sqlite3_stmt *st, const int64_t *v, int n)
{
	if (w->err)
		return;
	for (int i = 0; i < n; i++)
		sqlite3_bind_int64(st, i + 1, v[i]);
	if (sqlite3_step(st) != SQLITE_DONE)
		w_fail(w, "insert");
	sqlite3_reset(st);
}

static void
w_row(gen_writer *w, int q, const int64_t *v, int n)
{
	if (q >= NBATCHED) {
		w_step(w, w->q[q], v, n);
		return;
	}
	memcpy(w->pend[q] + (size_t)w->npend[q] * (size_t)n, v, (size_t)n * sizeof *v);
	if (++w->npend[q] == BATCH) {
		w_step(w, w->many[q], w->pend[q], BATCH * n);
		w->npend[q] = 0;
	}
}

/* Writes the rows that did not fill a batch, one by one. */
static void
w_flush(gen_writer *w)
{
	for (int q = 0; q < NBATCHED; q++) {
		for (int i = 0; i < w->npend[q]; i++)
			w_step(w, w->q[q], w->pend[q] + (size_t)i * (size_t)q_ncol[q], q_ncol[q]);
		w->npend[q] = 0;
	}
}

static void
w_prepare(gen_writer *w)
{
	for (int q = 0; q < Q__COUNT && !w->err; q++)
		if (sqlite3_prepare_v2(w->db, q_sql[q], -1, &w->q[q], NULL) != SQLITE_OK)
			w_fail(w, q_sql[q]);
	for (int q = 0; q < NBATCHED && !w->err; q++) {
		sbuf b = {0};
		sbuf_printf(&b, "INSERT INTO %s VALUES ", q_table[q]);
		for (int r = 0; r < BATCH; r++) {
			sbuf_printf(&b, "%s(", r ? "," : "");
			for (int c = 0; c < q_ncol[q]; c++)
				sbuf_printf(&b, "%s?", c ? "," : "");
			sbuf_printf(&b, ")");
		}
		if (sqlite3_prepare_v2(w->db, b.s, -1, &w->many[q], NULL) != SQLITE_OK)
			w_fail(w, "prepare a batch insert");
		free(b.s);
		w->pend[q] = xmalloc((size_t)BATCH * (size_t)q_ncol[q] * sizeof(int64_t));
	}
}

static void
w_pair(gen_writer *w, sqlite3_stmt *st, int64_t id, const char *key, const char *value)
{
	if (w->err)
		return;
	if (key)
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		w_fail(w, "insert");
	sqlite3_reset(st);
}

static void
w_enum(gen_writer *w, const char *table, const gen_enum *e, size_t n)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	if (w->err)
		return;
	snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?,?)", table);
	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) {
		w_fail(w, sql);
		return;
	}
	for (size_t i = 0; i < n; i++)
		w_pair(w, st, e[i].id, NULL, e[i].name);
	sqlite3_finalize(st);
}

static int64_t
w_taskid(gen_writer *w, int stream)
{
	uint32_t id = w->taskid[stream];
	w->taskid[stream] = (id + 1) & 0xffff; /* a 16-bit per-stream counter that wraps */
	return id;
}

/* ---- launch delays (gen_opts.launch_jitter, gen_truth.launches) ---- */
#define JITTER_MAX (40 * US)
#define CONN_BASE 1000    /* the first CANN_API connectionId of a rank */
#define HOST_OP_LEAD 1000 /* host_ops: an operator starts this long before its launch... */
#define HOST_OP_TAIL 200  /* ... and ends this long before it (launches are >= 1500 apart) */

/* With launch_jitter, how much earlier than LEAD the launch of work starting at dev_start
 * starts: 0..JITTER_MAX from the seed, less where it would reach into the previous launch. */
static int64_t
launch_jitter(gen_writer *w, int64_t dev_start)
{
	if (!w->P->o.launch_jitter)
		return 0;
	int64_t j =
	    (int64_t)(seed_of(w->P->o.seed, 0x1A0C, (uint64_t)w->rank, (uint64_t)w->next_conn) %
	              (JITTER_MAX / US + 1)) *
	    US;
	int64_t room = dev_start - LEAD - w->ahead - w->host_end;
	return j < room ? j : room > 0 ? room : 0;
}

/* The truth of the launch just written (w->last_launch), whose first compute or communication
 * task starts at dev_start. */
static void w_torch_op(gen_writer *w, int64_t start, int64_t end, int64_t gtid, int name,
                       int64_t seq, int64_t fwd_tid, int64_t link);

static void
w_launch_truth(gen_writer *w, int64_t dev_start, int name)
{
	const gen_truth *T = &w->P->tr;
	int64_t step = -1;
	if (T->nsteps == 1)
		step = T->steps[0].step;
	for (size_t i = 0; T->nsteps > 1 && i < T->nsteps; i++)
		if (w->last_launch >= T->steps[i].start_ns && w->last_launch <= T->steps[i].end_ns)
			step = T->steps[i].step;
	gen_launch_truth x = {w->rank, step, dev_start - w->last_launch, w->last_launch, 0, 0};
	if (w->P->o.host_ops) {
		x.op_start_ns = w->last_launch - HOST_OP_LEAD;
		w_torch_op(w, x.op_start_ns, w->last_launch - HOST_OP_TAIL, w->gtid_main, name, -1,
		           0, w->next_conn - 1);
	}
	VEC_PUSH(w->lt, w->nlt, w->ltcap, x);
	int64_t conn = w->next_conn - 1;
	VEC_PUSH(w->lt_conn, w->nltc, w->ltccap, conn);
}

/* One CANN_API row at host time start; returns its connectionId. */
static int64_t
w_launch_at(gen_writer *w, int type, int name, int64_t start)
{
	int64_t conn = w->next_conn++;
	int64_t end = start + 1500 + (conn % 8) * 100;
	if (start < w->host_end && !w->err) {
		msg_error("gen: internal error: rank %d: launch at %" PRId64
		          " overlaps the previous",
		          w->rank, start);
		w->err = 1;
	}
	w->host_end = end;
	w->last_launch = start;
	int zero = 0;
	if (conn - CONN_BASE == (int64_t)w->nconn)
		VEC_PUSH(w->conn_tasks, w->nconn, w->conncap, zero);
	int64_t v[6] = {start, end, type, w->gtid_dq, conn, name};
	w_row(w, Q_API, v, 6);
	return conn;
}

/* One CANN_API row, LEAD (plus the host's lead, if it runs ahead) before the device task it
 * launches; returns its connectionId. */
static int64_t
w_launch(gen_writer *w, int type, int name, int64_t dev_start)
{
	return w_launch_at(w, type, name,
	                   dev_start - LEAD - w->ahead - launch_jitter(w, dev_start));
}

static int64_t
w_task(gen_writer *w, int64_t start, int64_t end, int64_t conn, int type, int64_t ctx, int stream,
       int64_t taskid)
{
	int64_t g = w->next_gtask++;
	int64_t v[11] = {start, end, w->dev, conn,   g,          w->pid,
	                 type,  ctx, stream, taskid, INVALID_U32};
	w_row(w, Q_TASK, v, 11);
	w->tasks++;
	if (conn >= CONN_BASE && conn - CONN_BASE < (int64_t)w->nconn)
		w->conn_tasks[conn - CONN_BASE]++;
	return g;
}

/* A COMPUTE_TASK_INFO row for the task gtask of duration d, counted in the operator truth. */
static void
w_cti(gen_writer *w, int64_t gtask, int k, int cti_type, int64_t d)
{
	const gen_kernel *kn = &kernels[k];
	const char *ot = str_text[kn->optype], *tt = str_text[cti_type];
	size_t i = 0;
	while (i < w->nops && (w->ops[i].op_type != ot || w->ops[i].task_type != tt))
		i++; /* the strings are str_text's own: equal strings are the same pointer */
	if (i == w->nops) {
		gen_op_truth o = {.rank = w->rank, .op_type = ot, .task_type = tt};
		VEC_PUSH(w->ops, w->nops, w->opcap, o);
	}
	w->ops[i].count++;
	w->ops[i].total_ns += d;
	int64_t v[17] = {kn->name,   gtask,         kn->block_num, kn->mix_block_num, cti_type,
	                 kn->optype, kn->in_fmt,    kn->in_dt,     kn->in_shape,      kn->out_fmt,
	                 kn->out_dt, kn->out_shape, S_NA,          S_DYNAMIC,         S_NO,
	                 S_NA,       S_NA};
	w_row(w, Q_CTI, v, 17);
}

static void
w_kernel(gen_writer *w, int k, int stream, int64_t start, int64_t d)
{
	int64_t conn = w_launch(w, API_NODE, S_LAUNCH, start);
	int64_t g = w_task(w, start, start + d, conn, kernels[k].task_type, INVALID_U32, stream,
	                   w_taskid(w, stream));
	w_cti(w, g, k, kernels[k].cti_type, d);
	w_launch_truth(w, start, kernels[k].name);
}

/* An FFTS+ kernel: a container row (contextId INVALID, not in COMPUTE_TASK_INFO) a little wider
 * than its two children (contextId 0, 1; same stream and taskId), which tile [start, start+d). */
static void
w_ffts(gen_writer *w, int stream, int64_t start, int64_t d)
{
	int64_t c0 = d * 6 / 10;
	int64_t conn = w_launch(w, API_NODE, S_LAUNCH, start - FFTS_PRE);
	int64_t tid = w_taskid(w, stream);
	w_task(w, start - FFTS_PRE, start + d + FFTS_POST, conn, S_KERNEL_MIX_AIC, INVALID_U32,
	       stream, tid);
	int64_t g0 = w_task(w, start, start + c0, conn, S_MIX_AIC, 0, stream, tid);
	w_cti(w, g0, K_FAG, S_MIX_AIC, c0);
	int64_t g1 = w_task(w, start + c0, start + d, conn, S_MIX_AIV, 1, stream, tid);
	w_cti(w, g1, K_FAG, S_MIX_AIV, d - c0);
	w_launch_truth(w, start, kernels[K_FAG].name); /* the container is neither compute nor
	                                                   communication */
}

/* A memcpy or event task inside an aux gap (never inside a bubble); the kinds take turns. */
static void
w_aux(gen_writer *w, int stream, int64_t start)
{
	static const struct {
		int api, type;
		int64_t ns;
	} aux[4] = {
	    {S_MEMCPY_API, S_MEMCPY_ASYNC, 8 * US},
	    {S_RECORD_API, S_EVENT_RECORD, 0},
	    {S_MEMCPY_API, S_MEMCPY_ASYNC, 6 * US},
	    {S_WAIT_API, S_EVENT_WAIT, 1200},
	};
	int i = (int)(w->naux++ % 4);
	int64_t conn = w_launch(w, API_ACL, aux[i].api, start);
	w_task(w, start, start + aux[i].ns, conn, aux[i].type, INVALID_U32, stream,
	       w_taskid(w, stream));
}

static void
w_mstx(gen_writer *w, int64_t start, int64_t end, int message)
{
	int64_t v[10] = {start,   end,          MSTX_RANGE,   INVALID_U32, INVALID_U32,
	                 message, w->gtid_main, w->gtid_main, S_DEFAULT,   INVALID_U32};
	w_row(w, Q_MSTX, v, 10);
}

static void w_dp_step(gen_writer *w, const gen_blk *b, int64_t hs, int64_t he);

/* The range around one decode step, as gen_opts.decode_marks says (GEN_DECODE_NONE: none). */
static void
w_decode_mark(gen_writer *w, const gen_blk *b, int64_t start, int64_t end)
{
	if (w->P->o.decode_marks == GEN_DECODE_DP) {
		w_dp_step(w, b, start, end);
	} else if (w->P->o.decode_marks == GEN_DECODE_RANGES) {
		w_mstx(w, start, end, S_DECODE);
	} else if (w->P->o.decode_marks == GEN_DECODE_VLLM) {
		/* range_start("vllm_one_step", domain="vllm_one_step"): no stream, host only */
		int64_t v[10] = {start,       end,          MSTX_RANGE,   INVALID_U32, INVALID_U32,
		                 S_VLLM_STEP, w->gtid_main, w->gtid_main, S_VLLM_STEP, INVALID_U32};
		w_row(w, Q_MSTX, v, 10);
	}
}

static void
w_run(gen_writer *w, const gen_blk *b)
{
	kdraw g;
	int k;
	int64_t t = b->start;
	kdraw_init(&g, b->seed, b->mix, stage_f(&w->P->o, w->rk, b->stage));
	for (uint32_t i = 0; i < b->nk; i++) {
		int64_t d = kdraw_next(&g, &k);
		if ((b->flags & BF_FFTS) && i == FFTS_SLOT)
			w_ffts(w, b->stream, t, d);
		else
			w_kernel(w, k, b->stream, t, d);
		t += d;
		if (i + 1 < b->nk) {
			if (gap_is_aux(i, b->nk)) {
				w_aux(w, b->stream, t + AUX_OFF);
				t += AUXGAP;
			} else {
				t += KGAP;
			}
		}
	}
	if (b->flags & BF_PAD) {
		t += KGAP;
		w_kernel(w, K_COPY, b->stream, t, PAD_MIN + b->pad);
		t += PAD_MIN + b->pad;
	}
	if (t != b->end && !w->err) {
		msg_error("gen: internal error: rank %d: run ends at %" PRId64 ", planned %" PRId64,
		          w->rank, t, b->end);
		w->err = 1;
	}
	if ((b->flags & BF_DECODE) && !w->P->o.no_stage_ranges)
		w_decode_mark(w, b, b->start - LEAD - DEC_PRE, b->end + DEC_POST);
}

/* A COMMUNICATION_TASK_INFO row: 15 integer columns, then bandwidth (NUMERIC). */
static void
w_ctask(gen_writer *w, const int64_t *v, double bandwidth)
{
	sqlite3_stmt *st = w->q[Q_CTASK];
	if (w->err)
		return;
	for (int i = 0; i < 15; i++)
		sqlite3_bind_int64(st, i + 1, v[i]);
	sqlite3_bind_double(st, 16, bandwidth);
	if (sqlite3_step(st) != SQLITE_DONE)
		w_fail(w, "insert");
	sqlite3_reset(st);
}

static void
w_coll(gen_writer *w, const gen_blk *b)
{
	const gen_plan *P = w->P;
	int R = P->nranks, r = w->rank;
	int allreduce = b->optype == OP_ALLREDUCE;
	char name[64];
	int64_t name_id = S__COUNT + (int64_t)b->op;
	snprintf(name, sizeof name, "%s_%03u_%u_1",
	         allreduce ? "hcom_allReduce_" : "hcom_allGather_", P->group_hash3, b->seq);
	if (!w->err) {
		sqlite3_bind_text(w->q[Q_STR], 2, name, -1, SQLITE_TRANSIENT);
		int64_t v[1] = {name_id};
		w_row(w, Q_STR, v, 1);
	}

	uint64_t h = seed_of(P->o.seed, 0xC0DE, b->op, 1);
	int64_t count = (int64_t)1 << (20 + h % 6); /* elements */
	int64_t conn = w_launch(w, API_NODE, S_LAUNCH, b->start);
	w_launch_truth(w, b->start, (int)name_id); /* its first sub-task, the notify wait, starts
	                                             the op */
	int64_t opid = w->next_opid++;
	int64_t ov[14] = {name_id,   b->start,
	                  b->end,    conn,
	                  S_GROUP,   opid,
	                  0,         0,
	                  HCCL_BF16, allreduce ? S_MESH_RING : S_MESH,
	                  count,     allreduce ? S_ALLREDUCE : S_ALLGATHER,
	                  w->dev,    R};
	w_row(w, Q_OP, ov, 14);

	/* sub-tasks, one stream each: the wait for the last rank, then one transfer per plane */
	int64_t nw_end = b->wait_end + NOTIFY_NS;
	int64_t g = w_task(w, b->start, nw_end, conn, S_NOTIFY_WAIT_SQE, INVALID_U32, STREAM_COMM,
	                   w_taskid(w, STREAM_COMM));
	int64_t cw[15] = {name_id,
	                  g,
	                  S_HCCL_NOTIFY_WAIT,
	                  0,
	                  S_GROUP,
	                  (int64_t)b->op << 8,
	                  RDMA_INVALID,
	                  (r + R - 1) % R,
	                  r,
	                  TRANSPORT_LOCAL,
	                  4,
	                  HCCL_INT32,
	                  LINK_ON_CHIP,
	                  opid,
	                  1};
	w_ctask(w, cw, 0.0);
	int nplanes = b->nsub - 1;
	int64_t size = count * 2 / nplanes; /* BF16 */
	for (int p = 0; p < nplanes; p++) {
		int stream = STREAM_COMM + 1 + p;
		int64_t ps = nw_end + p * 500, pe = b->end - p * 700;
		int htype = !allreduce || p % 2 == 0 ? S_HCCL_MEMCPY : S_HCCL_REDUCE_INLINE;
		g = w_task(w, ps, pe, conn, S_SDMA, INVALID_U32, stream, w_taskid(w, stream));
		int64_t cv[15] = {name_id,
		                  g,
		                  htype,
		                  p,
		                  S_GROUP,
		                  -1,
		                  RDMA_INVALID,
		                  r,
		                  (r + p + 1) % R,
		                  TRANSPORT_SDMA,
		                  size,
		                  HCCL_BF16,
		                  LINK_HCCS,
		                  opid,
		                  p == 0};
		w_ctask(w, cv, (double)size * 1e9 / (double)(pe - ps)); /* bytes/s */
	}

	/* overlap kernels on the main compute stream, wholly inside the op */
	if (b->nk > 0) {
		kdraw kg;
		int k;
		int64_t t = b->start + OVL_DELAY;
		kdraw_init(&kg, b->seed, MIX_OVERLAP, stage_f(&w->P->o, w->rk, b->stage));
		for (uint32_t i = 0; i < b->nk; i++) {
			int64_t d = kdraw_next(&kg, &k);
			w_kernel(w, k, STREAM_A, t, d);
			t += d + (i + 1 < b->nk ? KGAP : 0);
		}
		if (t > b->end - OVL_TAIL && !w->err) {
			msg_error("gen: internal error: rank %d: overlap kernels leave their op",
			          r);
			w->err = 1;
		}
	}
}

/* ---- pipeline-parallel rows ------------------------------------------------------------------
 * Strings of PP profiles only, with ids far above the GRPO ones (whose ids stay as they are). */
#define PPS_FWD 1000000 /* pp_chart's message: str({"name": "forward_step"}) */
#define PPS_BWD 1000001
#define PPS_SEND_TYPE 1000002
#define PPS_RECV_TYPE 1000003
#define PPS_LINEAR 1000004 /* operator names (gen_opts.pp_op_pairs) */
#define PPS_GELU 1000005
#define PPS_T 1000006
#define PPS_ADDMM_BWD 1000007
#define PPS_GELU_BWD 1000008
#define PPS_MSTX_TYPE 1000009 /* TASK.taskType of a device mstx marker */
#define PPS_MSTX_START_OP 1000010 /* the queued torch ops of mstx calls with a stream */
#define PPS_MSTX_END_OP 1000011
#define PPS_MSTX_MARK_OP 1000012
#define PPS_GROUP 1000100 /* + pair group index */
#define PPS_OP 2000000    /* + per-DB counter: op names */
#define PPS_MB 3000000    /* + (backward) * 1000 + micro-batch: device-range messages */
#define PP_GROUP_FMT "10.0.0.1%%eth0_%d_0_1736414082311975"

static char *
pp_group_name(int g)
{
	return xasprintf(PP_GROUP_FMT, 60100 + g);
}

static unsigned
group_hash3(const char *name)
{
	uint32_t h0 = 0, h1 = 0; /* msprof-analyze's double_hash */
	for (const char *c = name; *c; c++) {
		h0 = h0 * 29 + (unsigned char)*c;
		h1 = h1 * 131 + (unsigned char)*c;
	}
	return (unsigned)((((uint64_t)h0 << 32) | h1) % 1000);
}

/* META_DATA['distributed_args'] as MindSpeed-LLM writes it. */
static char *
pp_distributed_args(const gen_plan *P, int rank)
{
	return xasprintf("{\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": %d, "
	                 "\"data_parallel_size\": %d, \"context_parallel_size\": 1, "
	                 "\"expert_model_parallel_size\": 1, \"sequence_parallel\": false, "
	                 "\"rank\": %d, \"world_size\": %d}",
	                 P->o.pp, P->pp_dp, rank, P->nranks);
}

/* The strings of ranges that carry a stream: the marker's task type and the queued ops that
 * carry the calls to the task-queue thread. */
static void
w_mstx_strings(gen_writer *w)
{
	w_pair(w, w->q[Q_STR], PPS_MSTX_TYPE, NULL, "MsTx");
	w_pair(w, w->q[Q_STR], PPS_MSTX_START_OP, NULL, "mstx_range_start_op");
	w_pair(w, w->q[Q_STR], PPS_MSTX_END_OP, NULL, "mstx_range_end_op");
	w_pair(w, w->q[Q_STR], PPS_MSTX_MARK_OP, NULL, "mstx_mark_op");
}

static void
w_pp_strings(gen_writer *w)
{
	const gen_plan *P = w->P;
	if (P->o.pp_op_pairs) { /* no pp_chart patch: no range messages either */
		w_pair(w, w->q[Q_STR], PPS_LINEAR, NULL, "aten::linear");
		w_pair(w, w->q[Q_STR], PPS_GELU, NULL, "aten::gelu");
		w_pair(w, w->q[Q_STR], PPS_T, NULL, "aten::t");
		w_pair(w, w->q[Q_STR], PPS_ADDMM_BWD, NULL, "AddmmBackward0");
		w_pair(w, w->q[Q_STR], PPS_GELU_BWD, NULL, "GeluBackward0");
	} else if (P->o.pp_device_ranges) {
		/* str({'name': ..., 'current_microbatch': m}) per block; the marker's task type and
		 * the queued ops that carry the calls to the task-queue thread */
		for (int b = 0; b < 2; b++)
			for (int m = 0; m < P->pp_mb; m++) {
				char *msg = xasprintf("{'name': '%s', 'current_microbatch': %d}",
				                      b ? "backward_step" : "forward_step", m);
				w_pair(w, w->q[Q_STR], PPS_MB + b * 1000 + m, NULL, msg);
				free(msg);
			}
		w_mstx_strings(w);
	} else {
		w_pair(w, w->q[Q_STR], PPS_FWD, NULL, "{'name': 'forward_step'}");
		w_pair(w, w->q[Q_STR], PPS_BWD, NULL, "{'name': 'backward_step'}");
	}
	w_pair(w, w->q[Q_STR], PPS_SEND_TYPE, NULL, "hcom_send_");
	w_pair(w, w->q[Q_STR], PPS_RECV_TYPE, NULL, "hcom_receive_");
	for (int g = 0; g < (P->o.pp - 1) * P->pp_dp; g++) {
		char *name = pp_group_name(g);
		w_pair(w, w->q[Q_STR], PPS_GROUP + g, NULL, name);
		free(name);
	}
	if (!P->o.pp_no_meta) {
		char *da = pp_distributed_args(P, w->rank);
		w_pair(w, w->q[Q_PAIR_TEXT], 0, "distributed_args", da);
		free(da);
	}
}

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

/* One PYTORCH_API row; times are TEXT in every torch_npu version, so they are bound
 * as text. link < 0: no CONNECTION_IDS rows (connectionId NULL). */
static void
w_torch_op(gen_writer *w, int64_t start, int64_t end, int64_t gtid, int name, int64_t seq,
           int64_t fwd_tid, int64_t link)
{
	sqlite3_stmt *st = w->q[Q_TORCH];
	char s[24], e[24];
	if (w->err)
		return;
	snprintf(s, sizeof s, "%" PRId64, start);
	snprintf(e, sizeof e, "%" PRId64, end);
	sqlite3_bind_text(st, 1, s, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, e, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, gtid);
	if (link >= 0) {
		int64_t id = w->next_oplink++;
		int64_t v[2] = {id, link};
		sqlite3_bind_int64(st, 4, id);
		w_row(w, Q_CONN_IDS, v, 2);
	} else {
		sqlite3_bind_null(st, 4);
	}
	sqlite3_bind_int64(st, 5, name);
	sqlite3_bind_int64(st, 6, seq);
	sqlite3_bind_int64(st, 7, fwd_tid);
	for (int c = 8; c <= 10; c++) /* no record_shapes, no with_stack */
		sqlite3_bind_null(st, c);
	sqlite3_bind_int64(st, 11, TORCH_OP);
	if (sqlite3_step(st) != SQLITE_DONE)
		w_fail(w, "insert");
	sqlite3_reset(st);
}

/* The block's operators: slot p of PP_NOPS tiles [start, end) with a gap after it, except that
 * the first starts at the block start and the last ends at the block end, so the operators span
 * exactly the block (what a range would have said). */
static void
w_pp_ops(gen_writer *w, const pp_item *it)
{
	static const int fwd_name[PP_NOPS] = {PPS_LINEAR, PPS_GELU, PPS_LINEAR};
	static const int bwd_name[PP_NOPS] = {PPS_ADDMM_BWD, PPS_GELU_BWD, PPS_ADDMM_BWD};
	int fwd = it->kind == 'F';
	int64_t len = it->end - it->start;
	int64_t seq0 = PP_SEQ0 + ((int64_t)it->step * w->P->pp_mb + it->mb) * PP_NOPS;
	for (int p = 0; p < PP_NOPS; p++) {
		int layer = fwd ? p : PP_NOPS - 1 - p;
		int64_t s = it->start + len * p / PP_NOPS;
		int64_t e = p == PP_NOPS - 1 ? it->end : it->start + len * (p + 1) / PP_NOPS - PP_OPGAP;
		int64_t seq = seq0 + layer;
		if (fwd)
			w_torch_op(w, s, e, w->gtid_main, fwd_name[layer], seq, 0,
			           TORCH_FLOW_BASE + seq);
		else
			w_torch_op(w, s, e, w->gtid_autograd, bwd_name[layer], seq, 1,
			           TORCH_FLOW_BASE + seq);
		/* a nested operator with no backward link: pairs are not "every operator" */
		if (fwd && p == 0)
			w_torch_op(w, s + PP_OPGAP, s + 2 * PP_OPGAP, w->gtid_main, PPS_T, -1, 0, -1);
	}
}

/* A range that carries a stream, as torch_npu writes it (spec ascend-format §3.2-3.3): the
 * Python thread's queued ops mstx_range_start_op / mstx_range_end_op (PYTORCH_API, linked
 * through CONNECTION_IDS to the range's connectionId) just before the task-queue thread runs
 * them, that thread's MSTX_EVENTS row from the start call to the end call, [hs, he],
 * connectionId = mark id + 4000000001, and the device marker pair as msprof stores it: one MsTx
 * TASK row on the stream from the begin marker to the end marker, [ds, de]. */
#define MSTX_CONN_BASE 4000000001LL
static void
w_mstx_device(gen_writer *w, int64_t hs, int64_t he, int64_t ds, int64_t de, int msg, int domain)
{
	int64_t conn = w->next_mark++ + MSTX_CONN_BASE;
	w_torch_op(w, hs - 6 * US, hs - 5 * US, w->gtid_main, PPS_MSTX_START_OP, -1, 0, conn);
	w_torch_op(w, he - 4 * US, he - 3 * US, w->gtid_main, PPS_MSTX_END_OP, -1, 0, conn);
	int64_t v[10] = {hs,  he,         MSTX_RANGE, INVALID_U32, INVALID_U32,
	                 msg, w->gtid_dq, w->gtid_dq, domain,      conn};
	w_row(w, Q_MSTX, v, 10);
	w_task(w, ds, de, conn, PPS_MSTX_TYPE, INVALID_U32, STREAM_A, w_taskid(w, STREAM_A));
}

/* dp_analysis' step range given a stream, [hs, he] on the host and the step's kernels [ds, de]
 * on the device, and the mark with the step's JSON before its end (also given the stream: a
 * MsTx marker task after the kernels). */
#define DPS_MSG 6000000 /* + per-DB counter: the marks' messages */
static void
w_dp_step(gen_writer *w, const gen_blk *b, int64_t hs, int64_t he)
{
	if (b->step != w->dp_step) {
		w->dp_step = b->step;
		w->dp_i = 0;
	}
	int d = w->dp_i++, n = decode_count(w->P, b->step, w->rank);
	w_mstx_device(w, hs, he, b->start, b->end, S_DP_STEP, S_DP_DOMAIN);
	if (w->P->o.dp_bad_marks && w->rank == 2 && b->step + 1 == w->P->o.nsteps && d == n - 1)
		return; /* the missing mark */
	gen_dp_step_truth t;
	dp_stats(w->rank, b->step, d, n, &t);
	char msg[160];
	if (!w->P->o.dp_bad_marks || !(w->rank == 1 && d == 1))
		snprintf(msg, sizeof msg,
		         "{\"running_reqs\": %d, \"waiting_reqs\": %d, \"gpu_cache_usage\": %.17g, "
		         "\"out_tokens\": %d}",
		         t.running, t.waiting, t.cache_usage, t.out_tokens);
	else /* cut short, as a message over the profiler's length limit would be */
		snprintf(msg, sizeof msg, "{\"running_reqs\": %d, \"waiting_re", t.running);
	int64_t id = DPS_MSG + w->next_dpmsg++;
	w_pair(w, w->q[Q_STR], id, NULL, msg);
	/* given a stream too: the queued mstx_mark_op, the dequeue thread's row (endNs = startNs),
	 * and a zero-length MsTx marker task where the step's kernels end */
	int64_t conn = w->next_mark++ + MSTX_CONN_BASE, ms = he - DP_MARK_OFF;
	w_torch_op(w, ms - 6 * US, ms - 5 * US, w->gtid_main, PPS_MSTX_MARK_OP, -1, 0, conn);
	int64_t v[10] = {ms, ms,         MSTX_MARK_EX, INVALID_U32, INVALID_U32,
	                 id, w->gtid_dq, w->gtid_dq,   S_DP_DOMAIN, conn};
	w_row(w, Q_MSTX, v, 10);
	w_task(w, b->end, b->end, conn, PPS_MSTX_TYPE, INVALID_U32, STREAM_A, w_taskid(w, STREAM_A));
}

/* A forward or backward range given a stream: the host calls around the block's launches,
 * the markers right before its first kernel and right after its last -- the block. */
#define PP_LAUNCH_GAP (3 * US) /* between the block's launches when the host runs ahead */
static void
w_pp_device_range(gen_writer *w, const pp_item *it, int64_t first_launch)
{
	w_mstx_device(w, first_launch - 2 * US, first_launch + (PP_NK - 1) * PP_LAUNCH_GAP + 3 * US,
	              it->start, it->end, PPS_MB + (it->kind == 'B') * 1000 + it->mb, S_DEFAULT);
}

/* gen_opts.stage_device_ranges: when the host made a stage range's end call. The host does
 * not wait for the device inside a stage, so that is right after its last launch (each
 * launch of a block is at most LEAD before the block's end and lasts under 3 us); rollout's
 * decode steps do wait (their ranges end DEC_POST after their device work), so its range
 * ends just before the device part does. */
static int64_t
stage_host_end(const gen_plan *P, int rank, const gen_stage_truth *st)
{
	if (st->stage == ST_ROLLOUT)
		return st->end_ns - 2 * US;
	const gen_rank *rk = &P->rk[rank];
	int64_t he = st->start_ns + 3 * US;
	for (size_t i = 0; i < rk->nblk; i++) {
		const gen_blk *b = &rk->blk[i];
		if (b->step + 1 == st->step && b->stage == st->stage && b->end - LEAD + 3 * US > he)
			he = b->end - LEAD + 3 * US;
	}
	return he < st->end_ns ? he : st->end_ns;
}

/* A forward or backward step: PP_NK kernels filling the block, and the host range around them
 * (or the block's operators). */
static void
w_pp_block(gen_writer *w, const pp_item *it)
{
	int64_t t = it->start + PP_KOFF, room = it->end - it->start - 2 * PP_KOFF - (PP_NK - 1) * KGAP;
	int dev = w->P->o.pp_device_ranges && !w->P->o.pp_op_pairs;
	int64_t first_launch = t - LEAD - w->ahead;
	for (int i = 0; i < PP_NK; i++) {
		int64_t d = room / PP_NK + (i == PP_NK - 1 ? room % PP_NK : 0);
		int k = it->kind == 'F' ? (i % 2 ? K_FA : K_MATMUL) : (i % 2 ? K_MATMUL : K_FAG);
		if (dev) { /* the host launches the whole block at once, well ahead */
			int64_t conn = w_launch_at(w, API_NODE, S_LAUNCH, first_launch + i * PP_LAUNCH_GAP);
			int64_t g = w_task(w, t, t + d, conn, kernels[k].task_type, INVALID_U32,
			                   STREAM_A, w_taskid(w, STREAM_A));
			w_cti(w, g, k, kernels[k].cti_type, d);
			w_launch_truth(w, t, kernels[k].name);
		} else {
			w_kernel(w, k, STREAM_A, t, d);
		}
		t += d + KGAP;
	}
	if (dev) {
		w_pp_device_range(w, it, first_launch);
		return;
	}
	if (w->P->o.pp_op_pairs)
		w_pp_ops(w, it);
	else
		w_mstx(w, it->start, it->end, it->kind == 'F' ? PPS_FWD : PPS_BWD);
}

/* hcom_send / hcom_receive: the op and its one transfer sub-task (a Memcpy between the two
 * ranks of the pair group; local ranks 0 = lower PP stage, 1 = upper). Sends and receives use
 * different streams: a pending send may overlap a receive. */
static void
w_pp_p2p(gen_writer *w, const pp_item *it)
{
	const gen_plan *P = w->P;
	int send = it->what == PPI_SEND;
	char *gname = pp_group_name(it->group);
	char name[96];
	snprintf(name, sizeof name, "%s_%03u_%u_1", send ? "hcom_send_" : "hcom_receive_",
	         group_hash3(gname), it->seq);
	free(gname);
	int64_t name_id = PPS_OP + w->next_ppname++;
	if (!w->err) {
		sqlite3_bind_text(w->q[Q_STR], 2, name, -1, SQLITE_TRANSIENT);
		int64_t v[1] = {name_id};
		w_row(w, Q_STR, v, 1);
	}
	int64_t conn = w_launch(w, API_NODE, S_LAUNCH, it->start);
	w_launch_truth(w, it->start, (int)name_id);
	int64_t opid = w->next_opid++;
	int64_t count = 1 << 22; /* activations or gradients of one micro-batch, BF16 elements */
	int64_t ov[14] = {name_id,   it->start, it->end, conn,
	                  PPS_GROUP + it->group, opid, 0, 0,
	                  HCCL_BF16, S_NA,      count,   send ? PPS_SEND_TYPE : PPS_RECV_TYPE,
	                  w->dev,    2};
	w_row(w, Q_OP, ov, 14);
	int stream = STREAM_COMM + (send ? 0 : 1);
	int64_t g = w_task(w, it->start, it->end, conn, S_SDMA, INVALID_U32, stream,
	                   w_taskid(w, stream));
	int lo = w->rank < it->peer ? 0 : 1; /* this rank's local rank in the pair */
	int64_t cv[15] = {name_id, g,  S_HCCL_MEMCPY, 0,  PPS_GROUP + it->group, -1,
	                  RDMA_INVALID, send ? lo : 1 - lo, send ? 1 - lo : lo, TRANSPORT_SDMA,
	                  count * 2, HCCL_BF16, LINK_HCCS, opid, 1};
	w_ctask(w, cv, (double)count * 2 * 1e9 / (double)(it->end > it->start ? it->end - it->start : 1));
	(void)P;
}

/* ---- MEMORY_RECORD (gen_opts.memory_records) ----
 * torch_npu records the allocator's totals at each allocation and free, per component (PTA: the
 * PyTorch caching allocator, GE: graph engine workspace). Here: a sample at the start, middle and
 * end of every stage range of the rank, growing through a stage and falling back after it, and
 * one highest allocated total at the middle of one stage per rank (the stage of index rank %
 * stages, in its last step): the peak is known, and so is the stage and step it falls in. */
#define MEM_STR_BASE 536870912 /* torch_npu's memory strings start at 2 << 28 */
#define MEM_BASE ((int64_t)1 << 30)
#define MEM_PEAK ((int64_t)6 << 30)

static void
w_memory(gen_writer *w, gen_rank *rk)
{
	static const char *const comp[2] = {"PTA", "GE"};
	w_exec(w, "CREATE TABLE IF NOT EXISTS MEMORY_RECORD (component INTEGER, timestamp INTEGER, "
	          "totalAllocated INTEGER, totalReserved INTEGER, totalActive INTEGER, streamPtr "
	          "INTEGER, deviceId INTEGER);");
	sqlite3_stmt *st = NULL;
	if (w->err || sqlite3_prepare_v2(w->db, "INSERT INTO MEMORY_RECORD VALUES (?,?,?,?,?,?,?)",
	                                 -1, &st, NULL) != SQLITE_OK) {
		w_fail(w, "prepare MEMORY_RECORD");
		return;
	}
	for (int c = 0; c < 2 && !w->err; c++) {
		sqlite3_bind_text(w->q[Q_STR], 2, comp[c], -1, SQLITE_STATIC);
		int64_t v[1] = {MEM_STR_BASE + c};
		w_row(w, Q_STR, v, 1);
	}
	const gen_truth *T = &w->P->tr;
	/* the stages of this rank, in time order (the truth lists them so); the peak's stage */
	size_t nst = 0, peak = SIZE_MAX;
	for (size_t i = 0; i < T->nstages; i++)
		if (T->stages[i].rank == w->rank)
			nst++;
	size_t want = nst ? (size_t)w->rank % nst : 0, k = 0;
	for (size_t i = 0; i < T->nstages; i++)
		if (T->stages[i].rank == w->rank && k++ == want)
			peak = i;
	for (int c = 0; c < 2; c++)
		rk->memory[c] =
		    (gen_memory_truth){.rank = w->rank, .component = comp[c], .stage = -1};
	int64_t stream = 0x7f3a00000000 + w->rank;
	size_t si = 0;
	for (size_t i = 0; i < T->nstages && !w->err; i++) {
		const gen_stage_truth *g = &T->stages[i];
		if (g->rank != w->rank)
			continue;
		int64_t mid = g->start_ns + (g->end_ns - g->start_ns) / 2;
		int64_t at[3] = {g->start_ns + US, mid, g->end_ns - US};
		for (int j = 0; j < 3; j++)
			for (int c = 0; c < 2; c++) {
				int64_t scale = c == 0 ? 1 : 16; /* GE holds a sixteenth of PTA */
				int64_t alloc = MEM_BASE + (int64_t)(si % 7) * (64 << 20) +
				                (j == 1 ? (int64_t)512 << 20 : 0);
				if (i == peak && j == 1)
					alloc = MEM_PEAK + (int64_t)w->rank * 4096;
				alloc /= scale;
				int64_t reserved = alloc + ((int64_t)256 << 20) / scale;
				int64_t active = alloc - (alloc / 8);
				sqlite3_bind_int64(st, 1, MEM_STR_BASE + c);
				sqlite3_bind_int64(st, 2, at[j]);
				sqlite3_bind_int64(st, 3, alloc);
				sqlite3_bind_int64(st, 4, reserved);
				sqlite3_bind_int64(st, 5, active);
				sqlite3_bind_int64(st, 6, stream);
				sqlite3_bind_int64(st, 7, w->dev);
				if (sqlite3_step(st) != SQLITE_DONE)
					w_fail(w, "insert MEMORY_RECORD");
				sqlite3_reset(st);
				gen_memory_truth *m = &rk->memory[c];
				if (alloc > m->peak_allocated) {
					m->peak_allocated = alloc;
					m->peak_allocated_ns = at[j];
					m->step = g->step;
					m->stage = g->stage;
				}
				if (reserved > m->peak_reserved)
					m->peak_reserved = reserved;
				if (active > m->peak_active)
					m->peak_active = active;
			}
		si++;
	}
	sqlite3_finalize(st);
	rk->nmemory = 2;
}

static void
w_pp(gen_writer *w)
{
	for (size_t i = 0; i < w->rk->npp && !w->err; i++) {
		if (w->rk->pp[i].what == PPI_BLOCK)
			w_pp_block(w, &w->rk->pp[i]);
		else
			w_pp_p2p(w, &w->rk->pp[i]);
	}
}


/* ---- files ------------------------------------------------------------------------------- */
/* torch_npu's directory timestamp: YYYYmmddHHMMSSmmm (UTC here, so it does not depend on TZ). */
static void
stamp_format(int64_t ns, char *buf, size_t n)
{
	int64_t ms = ns / MS, sec = ms / 1000, days = sec / 86400, sod = sec % 86400;
	int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097; /* civil_from_days */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = yoe + era * 400 + (m <= 2);
	snprintf(buf, n, "%04d%02d%02d%02d%02d%02d%03d", (int)y, (int)m, (int)d, (int)(sod / 3600),
	         (int)(sod / 60 % 60), (int)(sod % 60), (int)(ms % 1000));
}

static int
write_file(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		msg_error("gen: cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	size_t put = fwrite(text, 1, n, f);
	if (fclose(f) != 0 || put != n) {
		msg_error("gen: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static const char env_json[] =
    "{\"ASCEND_GLOBAL_LOG_LEVEL\": \"\", \"HCCL_RDMA_TC\": \"\", \"HCCL_RDMA_SL\": \"\", "
    "\"ACLNN_CACHE_LIMIT\": \"\", \"HOST_CACHE_CAPACITY\": \"\", \"ASCEND_ENHANCE_ENABLE\": \"\", "
    "\"PYTORCH_NPU_ALLOC_CONF\": \"\", \"ASCEND_LAUNCH_BLOCKING\": \"\"}";

/* META_DATA['parallel_group_info'] as json.dumps writes it. */
static char *
group_info_json(const gen_plan *P, int rank)
{
	sbuf b = {0};
	if (P->o.pp > 0) { /* PP profiles: the rank's pair groups */
		int s = rank / P->pp_dp, d = rank % P->pp_dp, n = 0;
		sbuf_printf(&b, "{");
		for (int g = s - 1; g <= s; g++) {
			if (g < 0 || g >= P->o.pp - 1)
				continue;
			char *name = pp_group_name(g * P->pp_dp + d);
			sbuf_printf(&b,
			            "%s\"%s\": {\"group_name\": \"pp\", \"group_rank\": %d, "
			            "\"global_ranks\": [%d, %d]}",
			            n++ ? ", " : "", name, g == s ? 0 : 1, g * P->pp_dp + d,
			            (g + 1) * P->pp_dp + d);
			free(name);
		}
		sbuf_printf(&b, "}");
		return b.s;
	}
	sbuf_printf(&b,
	            "{\"%s\": {\"group_name\": \"default_group\", \"group_rank\": %d, "
	            "\"global_ranks\": [",
	            GROUP_NAME, rank);
	for (int r = 0; r < P->nranks; r++)
		sbuf_printf(&b, "%s%d", r ? ", " : "", r);
	sbuf_printf(&b, "]}}");
	return b.s;
}

static int
write_profiler_info(const gen_plan *P, const char *dir, int rank, int64_t pid)
{
	const int64_t mono0 = 177399527862390LL; /* a fake CLOCK_MONOTONIC_RAW at t0 */
	sbuf b = {0};
	sbuf_printf(&b,
	            "{\n"
	            "    \"config\": {\n"
	            "        \"common_config\": {\n"
	            "            \"activities\": [\n"
	            "                \"ProfilerActivity.CPU\",\n"
	            "                \"ProfilerActivity.NPU\"\n"
	            "            ],\n"
	            "            \"schedule\": {\n"
	            "                \"wait\": 0,\n"
	            "                \"active\": %d,\n"
	            "                \"warmup\": 0,\n"
	            "                \"repeat\": 1,\n"
	            "                \"skip_first\": 0\n"
	            "            },\n"
	            "            \"record_shapes\": false,\n"
	            "            \"profile_memory\": false,\n"
	            "            \"with_stack\": false,\n"
	            "            \"with_flops\": false,\n"
	            "            \"with_modules\": false\n"
	            "        },\n"
	            "        \"experimental_config\": {\n"
	            "            \"_profiler_level\": \"Level1\",\n"
	            "            \"_aic_metrics\": \"ACL_AICORE_NONE\",\n"
	            "            \"_l2_cache\": false,\n"
	            "            \"_msprof_tx\": true,\n"
	            "            \"_mstx\": true,\n"
	            "            \"_data_simplification\": true,\n"
	            "            \"record_op_args\": false,\n"
	            "            \"_export_type\": [\n"
	            "                \"db\"\n"
	            "            ],\n"
	            "            \"_op_attr\": false,\n"
	            "            \"_gc_detect_threshold\": null,\n"
	            "            \"_mstx_domain_include\": [],\n"
	            "            \"_mstx_domain_exclude\": [\n"
	            "                \"communication\"\n"
	            "            ],\n"
	            "            \"_sys_io\": false,\n"
	            "            \"_sys_interconnection\": false,\n"
	            "            \"_host_sys\": []\n"
	            "        }\n"
	            "    },\n"
	            "    \"start_info\": {\n"
	            "        \"syscnt_enable\": true,\n"
	            "        \"freq\": 100,\n"
	            "        \"start_cnt\": %" PRId64 ",\n"
	            "        \"start_monotonic\": %" PRId64 "\n"
	            "    },\n"
	            "    \"end_info\": {\n"
	            "        \"collectionTimeEnd\": %" PRId64 ",\n"
	            "        \"MonotonicTimeEnd\": %" PRId64 "\n"
	            "    },\n"
	            "    \"torch_npu_version\": \"2.6.0\",\n"
	            "    \"cann_version\": \"8.2.RC1\",\n"
	            "    \"rank_id\": %d\n"
	            "}",
	            P->nsteps, (int64_t)17761792231585LL + pid, mono0 - (P->t0 - P->session_start),
	            P->session_end, mono0 + (P->session_end - P->t0), rank);
	char *path = xasprintf("%s/profiler_info_%d.json", dir, rank);
	int rc = write_file(path, b.s, b.n);
	free(path);
	free(b.s);
	if (rc != 0)
		return -1;

	char *gi = group_info_json(P, rank);
	sbuf m = {0};
	if (P->o.pp > 0 && !P->o.pp_no_meta) {
		char *da = pp_distributed_args(P, rank);
		sbuf_printf(&m,
		            "{\"ENV_VARIABLES\": %s, \"parallel_group_info\": %s, "
		            "\"distributed_args\": %s}",
		            env_json, gi, da);
		free(da);
	} else {
		sbuf_printf(&m, "{\"ENV_VARIABLES\": %s, \"parallel_group_info\": %s}", env_json, gi);
	}
	path = xasprintf("%s/profiler_metadata.json", dir);
	rc = write_file(path, m.s, m.n);
	free(path);
	free(m.s);
	free(gi);
	return rc;
}

static int
make_dir(const char *path)
{
	if (mkdir(path, 0755) != 0) {
		msg_error("gen: cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* outdir is created; if it exists it must be an empty directory. */
static int
outdir_prepare(const char *outdir)
{
	if (mkdir(outdir, 0755) == 0)
		return 0;
	if (errno != EEXIST) {
		msg_error("gen: cannot create %s: %s", outdir, strerror(errno));
		return -1;
	}
	DIR *d = opendir(outdir);
	if (d == NULL) {
		msg_error("gen: %s: %s", outdir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int empty = 1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	if (!empty) {
		msg_error("gen: %s exists and is not empty", outdir);
		return -1;
	}
	return 0;
}

static void
w_header_rows(gen_writer *w)
{
	const gen_plan *P = w->P;
	for (int i = 0; i < S__COUNT; i++)
		w_pair(w, w->q[Q_STR], i, NULL, str_text[i]);

	char *gi = group_info_json(P, w->rank);
	static const char *const meta[][2] = {{"SCHEMA_VERSION_MICRO", "0"},
	                                      {"SCHEMA_VERSION_MINOR", "2"},
	                                      {"SCHEMA_VERSION_MAJOR", "1"},
	                                      {"SCHEMA_VERSION", "1.2.0"},
	                                      {"ENV_VARIABLES", env_json}};
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++)
		w_pair(w, w->q[Q_PAIR_TEXT], 0, meta[i][0], meta[i][1]);
	w_pair(w, w->q[Q_PAIR_TEXT], 0, "parallel_group_info", gi);
	free(gi);
	if (P->o.pp > 0)
		w_pp_strings(w);
	else if ((P->o.stage_device_ranges || P->o.decode_marks == GEN_DECODE_DP) &&
	         !P->o.no_stage_ranges)
		w_mstx_strings(w);

	char *sql = xasprintf("INSERT INTO RANK_DEVICE_MAP VALUES (%d,%d);"
	                      "INSERT INTO NPU_INFO VALUES (%d,'Ascend910B');"
	                      "INSERT INTO HOST_INFO VALUES ('%" PRIu64 "','gen-node%d');"
	                      "INSERT INTO SESSION_TIME_INFO VALUES (%" PRId64 ",%" PRId64 ");",
	                      w->rank, w->dev, w->dev,
	                      seed_of(P->o.seed, 0x4057, (uint64_t)(w->rank / 8), 0) >> 1,
	                      w->rank / 8, P->session_start, P->session_end);
	w_exec(w, sql);
	free(sql);
	w_enum(w, "ENUM_API_TYPE", enum_api, sizeof enum_api / sizeof enum_api[0]);
	w_enum(w, "ENUM_MSTX_EVENT_TYPE", enum_mstx, sizeof enum_mstx / sizeof enum_mstx[0]);
	w_enum(w, "ENUM_HCCL_DATA_TYPE", enum_dtype, sizeof enum_dtype / sizeof enum_dtype[0]);
	w_enum(w, "ENUM_HCCL_LINK_TYPE", enum_link, sizeof enum_link / sizeof enum_link[0]);
	w_enum(w, "ENUM_HCCL_TRANSPORT_TYPE", enum_transport,
	       sizeof enum_transport / sizeof enum_transport[0]);
	w_enum(w, "ENUM_HCCL_RDMA_TYPE", enum_rdma, sizeof enum_rdma / sizeof enum_rdma[0]);
	for (size_t i = 0; i < P->tr.nsteps; i++) {
		sql =
		    xasprintf("INSERT INTO STEP_TIME VALUES (%" PRId64 ",%" PRId64 ",%" PRId64 ");",
		              P->tr.steps[i].step, P->tr.steps[i].start_ns, P->tr.steps[i].end_ns);
		w_exec(w, sql);
		free(sql);
	}
}

static int64_t
rank_pid(const gen_plan *P, int rank)
{
	return 100000 + (int64_t)(seed_of(P->o.seed, 0x91D, (uint64_t)rank, 0) % 3000000);
}

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static int
rank_write(gen_plan *P, int rank)
{
	gen_rank *rk = &P->rk[rank];
	gen_writer w = {.P = P, .rk = rk, .rank = rank, .dev = rank % 8};
	char stamp[32];
	int rc = -1;
	w.pid = rank_pid(P, rank);
	w.gtid_main = w.pid << 32 | w.pid;
	w.gtid_dq = w.pid << 32 | (w.pid + 41); /* torch_npu's task-queue worker thread */
	w.gtid_autograd = w.pid << 32 | (w.pid + 17);
	w.next_conn = CONN_BASE;
	w.next_oplink = 1;
	w.next_opid = 1;
	w.next_mark = 1;
	if (P->o.pp > 0 && P->o.pp_device_ranges && !P->o.pp_op_pairs)
		w.ahead = PP_HOST_AHEAD;
	for (int s = 0; s < NSTREAMS; s++)
		w.taskid[s] = 100 * (uint32_t)s;
	stamp_format(P->session_end + (int64_t)rank * 7 * MS, stamp, sizeof stamp);
	char *dir = xasprintf("%s/gen-r%d_%" PRId64 "_%s_ascend_pt", P->outdir, rank, w.pid, stamp);
	char *out = xasprintf("%s/ASCEND_PROFILER_OUTPUT", dir);
	w.path = xasprintf("%s/ascend_pytorch_profiler_%d.db", out, rank);
	if (make_dir(dir) != 0 || make_dir(out) != 0 ||
	    write_profiler_info(P, dir, rank, w.pid) != 0)
		goto done;

	/* libsqlite3 sets a static lazily while opening (helgrind sees two opens race on it);
	 * one open per rank, so serialising them costs nothing */
	pthread_mutex_lock(&open_lock);
	int orc = sqlite3_open_v2(
	    w.path, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	pthread_mutex_unlock(&open_lock);
	if (orc != SQLITE_OK) {
		w_fail(&w, "open");
		goto done;
	}
	w_exec(&w, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
	           "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY; BEGIN;");
	for (size_t i = 0; i < sizeof ddl_tables / sizeof ddl_tables[0]; i++)
		w_exec(&w, ddl_tables[i]);
	w_prepare(&w);
	w_header_rows(&w);

	for (size_t i = 0; i < rk->nblk && !w.err; i++) {
		if (rk->blk[i].kind == BLK_RUN)
			w_run(&w, &rk->blk[i]);
		else
			w_coll(&w, &rk->blk[i]);
	}
	w_pp(&w);
	for (size_t i = 0; i < P->tr.nstages; i++) {
		const gen_stage_truth *st = &P->tr.stages[i];
		if (st->rank != rank || P->o.no_stage_ranges || P->o.dp_only ||
		    st->stage + 1 == P->o.unmarked_stage)
			continue;
		if (P->o.stage_device_ranges)
			w_mstx_device(&w, st->start_ns, stage_host_end(P, rank, st), st->start_ns,
			              st->end_ns, S_R_ROLLOUT + st->stage, S_DEFAULT);
		else
			w_mstx(&w, st->start_ns, st->end_ns, S_R_ROLLOUT + st->stage);
	}
	if (P->o.memory_records)
		w_memory(&w, rk);
	w_flush(&w);
	for (size_t i = 0; i < sizeof ddl_indexes / sizeof ddl_indexes[0]; i++)
		w_exec(&w, ddl_indexes[i]);
	w_exec(&w, "COMMIT;");
	rc = w.err ? -1 : 0;
done:
	for (int q = 0; q < Q__COUNT; q++)
		sqlite3_finalize(w.q[q]);
	for (int q = 0; q < NBATCHED; q++) {
		sqlite3_finalize(w.many[q]);
		free(w.pend[q]);
	}
	if (w.db != NULL && sqlite3_close(w.db) != SQLITE_OK && rc == 0) {
		msg_error("gen: %s: close: %s", w.path, sqlite3_errmsg(w.db));
		rc = -1;
	}
	if (rc == 0 && P->o.json) { /* the same capture as torch_npu's text export (gen_json.c) */
		char *tv = xasprintf("%s/trace_view.json", out);
		rc = gen_json_from_db(w.path, tv);
		free(tv);
	}
	rk->tasks = w.tasks;
	rk->ops = w.ops;
	rk->nops = w.nops;
	w.ops = NULL;
	for (size_t i = 0; i < w.nlt; i++) /* the launch's tasks are all written now */
		if (w.lt_conn[i] - CONN_BASE < (int64_t)w.nconn)
			w.lt[i].tasks = w.conn_tasks[w.lt_conn[i] - CONN_BASE];
	rk->launches = w.lt;
	rk->nlaunches = w.nlt;
	free(w.lt_conn);
	free(w.conn_tasks);
	free(w.path);
	free(out);
	free(dir);
	return rc;
}

typedef struct gen_job {
	gen_plan *P;
	int first, stride;
} gen_job;

static void *
gen_thread(void *arg)
{
	gen_job *j = arg;
	for (int r = j->first; r < j->P->nranks; r += j->stride)
		if (rank_write(j->P, r) != 0)
			j->P->rk[r].failed = 1;
	return NULL;
}

/* ---- entry points ------------------------------------------------------------------------- */
void
gen_opts_default(gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nranks = 8;
	o->nsteps = 2;
	o->tasks_per_rank = 20000;
	o->slow_rank = 3;
	o->seed = 1;
	o->t0_ns = 0;
	o->json = 0;
	o->threads = 0;
	o->slow_stage = -1;
	o->slow_factor = 1000;
	o->delay_coll = -1;
}

void
gen_truth_free(gen_truth *t)
{
	if (t == NULL)
		return;
	free(t->stages);
	free(t->overlap);
	free(t->bubbles);
	free(t->steps);
	free(t->pp_blocks);
	free(t->pp_stages);
	free(t->p2p);
	free(t->dp_steps);
	free(t->comm);
	free(t->ops);
	free(t->launches);
	free(t->memory);
	memset(t, 0, sizeof *t);
}

static int
opts_check(const gen_opts *o)
{
	if (o->nranks < 1 || o->nranks > 4096) {
		msg_error("gen: %d ranks: expected 1 to 4096", o->nranks);
		return -1;
	}
	if (o->nsteps < 1 || o->nsteps > 10000) {
		msg_error("gen: %d steps: expected 1 to 10000", o->nsteps);
		return -1;
	}
	if (o->tasks_per_rank < 1 || o->tasks_per_rank > 200000000) {
		msg_error("gen: %" PRIu64 " tasks per rank: expected 1 to 200000000",
		          o->tasks_per_rank);
		return -1;
	}
	if (o->slow_rank < -1 || o->slow_rank >= o->nranks) {
		msg_error("gen: slow rank %d is not one of the %d ranks (-1 = none)", o->slow_rank,
		          o->nranks);
		return -1;
	}
	if (o->t0_ns < 0) {
		msg_error("gen: negative start time");
		return -1;
	}
	if (o->pp < 0 || o->pp > 64 || (o->pp > 0 && o->nranks % o->pp != 0)) {
		msg_error("gen: %d PP stages for %d ranks: expected 0 (no PP) or 1 to 64 dividing the "
		          "ranks",
		          o->pp, o->nranks);
		return -1;
	}
	if (o->pp_microbatches < 0 || o->pp_microbatches > 1000 ||
	    (o->pp_schedule != GEN_PP_1F1B && o->pp_schedule != GEN_PP_GPIPE)) {
		msg_error("gen: PP schedule %d with %d micro-batches: expected 1F1B or GPipe, 1 to 1000",
		          o->pp_schedule, o->pp_microbatches);
		return -1;
	}
	return 0;
}

int
gen_profile(const gen_opts *opts, const char *outdir, gen_truth *truth)
{
	gen_plan P;
	int rc = 0;
	if (truth != NULL)
		memset(truth, 0, sizeof *truth);
	if (opts_check(opts) != 0)
		return -1;
	memset(&P, 0, sizeof P);
	P.o = *opts;
	P.outdir = outdir;
	P.nranks = opts->nranks;
	P.nsteps = opts->nsteps;
	P.t0 = opts->t0_ns ? opts->t0_ns : GEN_T0_DEFAULT;
	P.group_hash3 = group_hash3(GROUP_NAME);
	plan_sizes(&P);
	P.rk = xcalloc((size_t)P.nranks, sizeof *P.rk);
	for (int r = 0; r < P.nranks; r++) {
		P.rk[r].rank = r;
		P.rk[r].f = r == opts->slow_rank ? 1300 : 1000 + 10 * (r % 4);
		P.rk[r].o = &P.o;
	}
	P.pp_dp = opts->pp > 0 ? opts->nranks / opts->pp : 0;
	P.pp_mb = opts->pp_microbatches > 0 ? opts->pp_microbatches : 8;
	if ((opts->pp > 0 ? plan_pp(&P) : plan_build(&P)) != 0 || outdir_prepare(outdir) != 0) {
		rc = -1;
		goto done;
	}

	/* once, before the threads: sqlite's lazy initialisation is not meant to race */
	if (sqlite3_initialize() != SQLITE_OK) {
		msg_error("gen: cannot initialise sqlite3");
		rc = -1;
		goto done;
	}
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int nth = opts->threads > 0 ? opts->threads : ncpu > 0 ? (int)ncpu : 1;
	if (nth > P.nranks)
		nth = P.nranks;
	pthread_t *th = xcalloc((size_t)nth, sizeof *th);
	int *started = xcalloc((size_t)nth, sizeof *started);
	gen_job *jobs = xcalloc((size_t)nth, sizeof *jobs);
	for (int i = 0; i < nth; i++) {
		jobs[i] = (gen_job){.P = &P, .first = i, .stride = nth};
		if (i > 0)
			started[i] = pthread_create(&th[i], NULL, gen_thread, &jobs[i]) == 0;
	}
	gen_thread(&jobs[0]);
	for (int i = 1; i < nth; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			gen_thread(&jobs[i]); /* no thread: do its ranks here */
	}
	free(th);
	free(started);
	free(jobs);

	for (int r = 0; r < P.nranks; r++) {
		P.tr.tasks += P.rk[r].tasks;
		for (size_t i = 0; i < P.rk[r].nops; i++)
			VEC_PUSH(P.tr.ops, P.tr.nops, P.op_cap, P.rk[r].ops[i]);
		for (int m = 0; m < P.rk[r].nmemory; m++) {
			P.tr.memory =
			    xreallocarray(P.tr.memory, P.tr.nmemory + 1, sizeof *P.tr.memory);
			P.tr.memory[P.tr.nmemory++] = P.rk[r].memory[m];
		}
		size_t nl = P.rk[r].nlaunches;
		if (nl > 0) {
			P.tr.launches = xreallocarray(P.tr.launches, P.tr.nlaunches + nl,
			                              sizeof *P.tr.launches);
			memcpy(P.tr.launches + P.tr.nlaunches, P.rk[r].launches,
			       nl * sizeof *P.tr.launches);
			P.tr.nlaunches += nl;
		}
		if (P.rk[r].failed)
			rc = -1;
	}
	P.tr.nranks = P.nranks;
	P.tr.slow_rank = opts->slow_rank;
	P.tr.collectives = P.nops;
	P.tr.pp = opts->pp;
	P.tr.pp_dp = P.pp_dp;
	P.tr.pp_microbatches = opts->pp > 0 ? P.pp_mb : 0;
	if (rc == 0 && truth != NULL) {
		*truth = P.tr;
		memset(&P.tr, 0, sizeof P.tr);
	}
done:
	gen_truth_free(&P.tr);
	for (int r = 0; r < P.nranks; r++) {
		free(P.rk[r].blk);
		free(P.rk[r].pp);
		free(P.rk[r].ops);
		free(P.rk[r].launches);
	}
	free(P.rk);
	return rc;
}
