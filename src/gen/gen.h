/* The profile generator shared by `tl demo`, the tests and the benchmarks. It writes profiles in
 * the real torch_npu layout and schema (real files' CREATE TABLE statements) and records the
 * ground truth it built them from, so tests can assert numbers against values known by
 * construction. */
#ifndef TL_GEN_H
#define TL_GEN_H
#include <stddef.h>
#include <stdint.h>

typedef struct gen_opts {
	int nranks;              /* default 8 */
	int nsteps;              /* GRPO steps, one STEP_TIME row each; default 2 */
	uint64_t tasks_per_rank; /* approximate device TASK rows per rank; default 20000 */
	int slow_rank;           /* rank that computes slower (others wait in collectives); -1 none;
	                          * default 3 */
	uint64_t seed;           /* deterministic output for a given seed */
	int64_t t0_ns;           /* epoch ns of the first step; 0 = a fixed default */
	int json;                /* also write ASCEND_PROFILER_OUTPUT/trace_view.json */
	int threads;             /* ranks written in parallel; 0 = number of cores */
	int no_stage_ranges;     /* GRPO: write no stage or decode-step ranges (a verl/MindSpeed-RL
	                          * discrete-mode capture: the role directory names the stage) */
	int stage_device_ranges; /* GRPO: the stage ranges carry a stream: the device part (a MsTx
	                          * TASK row) spans the truth's stage, the host part (MSTX_EVENTS)
	                          * ends with the stage's last launch, before the device work does
	                          */
	int decode_marks;        /* GRPO: what marks each decode step of the rollout
	                          * (GEN_DECODE_*) */
	int dp_bad_marks;        /* with GEN_DECODE_DP: malformed and missing marks (above) */
	int dp_only;             /* no stage ranges, the decode steps' kept: an inference capture
	                          * as dp_analysis profiles it (the truth keeps its stages) */
	/* Pipeline-parallel training instead of the GRPO timeline. nranks = pp x dp; rank
	 * r is PP stage r / dp (Megatron's order: PP outermost). Each step runs pp_microbatches
	 * micro-batches as pp_chart-style MSTX ranges "{'name': 'forward_step'}" /
	 * "{'name': 'backward_step'}" around their kernels, with hcom_send/hcom_receive ops between
	 * neighbouring stages (one two-rank group per pair). */
	int pp;               /* PP stages; 0 = the GRPO profile */
	int pp_microbatches;  /* default (0) 8 */
	int pp_schedule;      /* GEN_PP_1F1B or GEN_PP_GPIPE */
	int pp_no_meta;       /* no distributed_args in META_DATA / profiler_metadata.json */
	int pp_no_p2p;        /* no send/receive ops */
	int pp_op_pairs;      /* no forward/backward ranges: the blocks are marked only by the
	                       * torch operators autograd links (PYTORCH_API rows sharing a
	                       * CONNECTION_IDS connectionId), as a capture without pp_chart's
	                       * patch has them */
	int pp_device_ranges; /* the forward/backward ranges carry a stream, as pp_chart's patch
	                       * writes them (range_start(msg, current_stream())): each is an
	                       * MSTX_EVENTS row for the host call -- a few us long and early, the
	                       * host running ahead of the device -- and a MsTx TASK row with the
	                       * same connectionId spanning the block on the device; messages carry
	                       * 'current_microbatch'. The truth's blocks are the device ranges. */
	int launch_jitter;    /* launches start a varying 0..40 us earlier than LEAD before their
	                       * device work (never overlapping the previous launch), so launch
	                       * delays vary; the truth lists each one */
	int host_ops;         /* a PyTorch operator (PYTORCH_API, main thread) before each launch
	                       * of compute or communication work, linked to it through
	                       * CONNECTION_IDS, as torch_npu links an operator to its launches */
	int with_stack;       /* with host_ops: each operator has a Python call stack, one of
	                       * GEN_NSTACKS (PYTORCH_CALLCHAINS; trace_view.json's "Call stack"
	                       * arg, as torch_npu's with_stack writes them); the truth names it */
	int memory_records;   /* MEMORY_RECORD rows (components PTA and GE) with one allocated
	                       * peak per rank inside one stage range; the truth has it; with
	                       * them OP_MEMORY lifetimes (the largest live at the peak), NPU_MEM
	                       * and AICORE_FREQ (a dip at the peak) */
	/* The B of a pair with known changes (GRPO profiles): the kernels of stage slow_stage
	 * (index into gen_stage_canon; -1 none) run slow_factor per mille of their length on the
	 * ranks in slow_ranks_mask (bit r: rank r), and the last rank to arrive at collective
	 * delay_coll (its index over the profile; -1 none) arrives delay_ns later, so every other
	 * rank waits that much longer in it. Shift B's clock with t0_ns. */
	int slow_stage;
	int slow_factor; /* per mille, e.g. 1500 */
	uint64_t slow_ranks_mask;
	int64_t delay_coll;
	int64_t delay_ns;
	int unmarked_stage; /* 1 + index of a stage whose ranges are not written (its work is; the
	                     * truth still lists it): a profile that lacks that stage; 0 none */
	/* Instead of the GRPO timeline, a model whose nn.Module calls are MSTX ranges of domain
	 * "Module" (msprof-analyze module_statistic's instrumentation), nested, trained nsteps
	 * steps: forward operators in the modules, backward operators that autograd links to
	 * them, kernels under both (gen_module.c). The truth has every module path's device
	 * time. */
	int modules;
	/* The hosts the ranks run on, as HOST_INFO names them: 0, ranks 8k .. 8k+7 on host
	 * "gen-node{k}"; N > 0, the ranks in N blocks of consecutive ranks (rank r on host
	 * r * N / nranks). Whose clock a host keeps is tlgen's --host-clock. */
	int hosts;
	int aicpu; /* GRPO: the decode's ArgMaxV2 kernels run on the AI CPU (task type
	            * KERNEL_AICPU, COMPUTE_TASK_INFO AI_CPU); the same times, the truth's ops say
	            * so */
	/* Findings (tl triage) with their truth: stall_ns more idle in rank stall_rank's rollout
	 * bubble of the first step (-1: none), a stall that also makes it late at the next
	 * collective; clean: no deliberate problem (every rank decodes as many steps, every
	 * collective moves 128 MB, so no transfer is a small packet; with slow_rank -1) */
	int stall_rank;
	int64_t stall_ns;
	int clean;
	int slow_link; /* rank whose first plane (to the next rank) moves a quarter of the bytes in
	                  the same time: a link at a quarter of the others' bandwidth; -1 none */
	int64_t between_ns; /* idle time between one step's end and the next one's start (data
	                       loading, a checkpoint), on every rank; default 0 */
	int64_t aicpu_ns;   /* with aicpu: the AI CPU argmax's nominal length (real AI CPU ops
	                       run tens of us and more); 0: the AI vector kernel's 9 us */
	/* host-bound: rank host_late_rank's host begins the launch of each kernel run's first
	 * kernel host_late_ns later than the others (LEAD - host_late_ns before it, < LEAD), so
	 * the device waits for the host in each gap before a run; the device's times stay the
	 * same. The truth's idle_host_launching counts it. -1: none */
	int host_late_rank;
	int64_t host_late_ns;
	int rl_pp; /* GRPO: actor_update also trains through a pipeline of rl_pp stages (rank r is
	            * stage r / (nranks / rl_pp), as with pp): after its first segment each
	            * pipeline runs the 1F1B schedule of GEN_RL_PP_MB micro-batches, forward and
	            * backward blocks marked as pp does ("{'name': 'forward_step'}" ranges, in
	            * the truth's pp_blocks), a block waiting for its neighbour's (no P2P op
	            * written); distributed_args name the PP size; 0 none */
	int host_late_stage; /* only the runs of this stage (GEN_NSTAGES order) are late; -1: all */
} gen_opts;

#define GEN_RL_PP_MB 4

enum { GEN_PP_1F1B, GEN_PP_GPIPE };

/* Decode-step marks: a "decode_step" range in the default domain; vLLM's per-step range as its
 * users add it, range_start("vllm_one_step", domain="vllm_one_step"); or none at all (a rollout
 * whose steps nothing records: the truth then says -1, unknown). */
enum { GEN_DECODE_RANGES, GEN_DECODE_VLLM, GEN_DECODE_NONE, GEN_DECODE_DP };
/* GEN_DECODE_DP: dp_analysis' instrumentation of EngineCore.step: a "step" range in domain
 * "step_process" given a stream (an MSTX_EVENTS row for the host call and a MsTx TASK row with
 * its connectionId spanning the step's kernels), and inside it a mark in the same domain, also
 * given the stream (eventType marker_ex, as torch_npu's mstx.mark writes, its own connectionId
 * and a zero-length MsTx task), whose message is the step's JSON: {"running_reqs": N,
 * "waiting_reqs": N, "gpu_cache_usage": X, "out_tokens": N}. With gen_opts.dp_bad_marks, rank
 * 1's second mark of each step is not JSON and rank 2 lacks its very last mark (the truth's
 * steps then have no stats: rank 1 those, rank 2 all). */

void gen_opts_default(gen_opts *);

/* Canonical RL stage names, as `tl summary` prints them. */
#define GEN_NSTAGES 5
extern const char *const gen_stage_canon[GEN_NSTAGES]; /* rollout, ref_logprob, ... */
extern const char *const gen_stage_range[GEN_NSTAGES]; /* verl range: generate_sequences, ... */

typedef struct gen_stage_truth {
	int rank;
	int64_t step; /* STEP_TIME id */
	int stage;    /* index into gen_stage_canon */
	int64_t start_ns, end_ns;
	int decode_steps; /* nested decode-step ranges inside (rollout only, else 0); -1 on
	                     every stage when the profile records no decode step
	                     (GEN_DECODE_NONE, no_stage_ranges) */
	int64_t busy_ns;  /* device busy (compute U communication) inside the range */
	int64_t wait_ns;  /* wait-for-slowest: latest end of this stage and step - own end */
} gen_stage_truth;

typedef struct gen_overlap_truth { /* as torch_npu's StepTraceTime defines them, ns */
	int rank;
	int64_t step;
	int64_t computing, communication, overlapped, comm_not_overlapped, free, preparing;
	int64_t idle_host_launching; /* of free: the time before the host had started the launch of
	                              * the work that ended each idle gap; -1 where launches vary
	                              * (launch_jitter, pp) */
} gen_overlap_truth;

/* host_bound's truth: per rank, step and stage, the device idle of the gaps under 1 ms before
 * the host had begun the launch of the work that ended the gap, from the plan. A gap is the
 * stage's when the work before it and the work after it are both that stage's (the stage's
 * range holds the gap); the gaps between two stages are stage -1. */
typedef struct gen_host_truth {
	int rank;
	int64_t step;
	int stage; /* GEN_NSTAGES order, -1: none */
	int64_t ns;
} gen_host_truth;

typedef struct gen_bubble_truth { /* a deliberate device idle gap (no compute, no comm) */
	int rank;
	int64_t step;
	int stage; /* index into gen_stage_canon */
	int64_t start_ns, end_ns;
} gen_bubble_truth;

typedef struct gen_step_truth { /* one STEP_TIME row; the same on every rank */
	int64_t step;           /* STEP_TIME id: 1, 2, ... */
	int64_t start_ns, end_ns;
} gen_step_truth;

typedef struct gen_pp_block_truth { /* one forward or backward step range */
	int rank, pp_stage;
	int64_t step;   /* STEP_TIME id */
	char kind;      /* 'F' or 'B' */
	int microbatch; /* 0-based, as Megatron's current_microbatch */
	int64_t start_ns, end_ns;
} gen_pp_block_truth;

typedef struct gen_pp_stage_truth { /* the same on every rank of the PP stage */
	int64_t step;
	int pp_stage;
	int64_t span_ns; /* first block start to last block end over all PP stages of the step */
	int64_t idle_ns; /* span - the stage's block time: bubble ratio = idle / span */
} gen_pp_stage_truth;

typedef struct gen_p2p_truth { /* a send and the receive it pairs with */
	int64_t step;
	int src_rank, dst_rank;
	int64_t send_start_ns, send_end_ns, recv_start_ns, recv_end_ns;
} gen_p2p_truth;

typedef struct gen_dp_step_truth { /* one engine step of GEN_DECODE_DP, by rank then time */
	int rank;
	int64_t step;             /* STEP_TIME id of the rollout */
	int index;                /* 0-based among the rank's steps in this rollout */
	int64_t start_ns, end_ns; /* host: the range's MSTX_EVENTS row */
	int has_stats;            /* its mark gives them (see dp_bad_marks) */
	int running, waiting, out_tokens;
	double cache_usage;
} gen_dp_step_truth;

typedef struct gen_comm_truth { /* one rank's part of one collective (GRPO profiles) */
	int rank;
	int64_t step; /* STEP_TIME id */
	uint32_t op;  /* the collective's index over the profile (the same on every rank) */
	int64_t start_ns, end_ns; /* the rank's COMMUNICATION_OP row: start = its arrival */
	int64_t last_arrival_ns;  /* when the last rank of the group arrived */
	int last_rank;            /* that rank (the lowest one on a tie) */
	/* the time breakdown by construction: the rank waits on a Notify_Wait from its arrival
	 * until shortly after the last arrival, then transfers until the end; no idle */
	int64_t transit_ns, wait_ns, sync_ns;
	/* its transfers: plane p (0 <= p < planes) moves plane_bytes from the rank to rank
	 * (rank + p + 1) % nranks in transit_ns - 1200 p ns (the planes start 500 ns apart and
	 * end 700 ns apart) */
	int planes;
	int64_t plane_bytes;
} gen_comm_truth;
typedef struct gen_op_truth { /* the compute operators of one rank by op type and task type */
	int rank;
	const char *op_type, *task_type; /* static strings, as written to STRING_IDS */
	uint64_t count;                  /* COMPUTE_TASK_INFO rows */
	int64_t total_ns;                /* their TASK durations, summed */
} gen_op_truth;
typedef struct gen_launch_truth { /* a CANN launch of compute or communication tasks */
	int rank;
	int64_t step;          /* STEP_TIME id of the step holding the launch's start (the only step
	                        * when there is one); -1: none */
	int64_t delay_ns;      /* start of its first compute / communication task - launch start */
	int64_t host_start_ns; /* the CANN_API call's start */
	int64_t op_start_ns;   /* with host_ops: the operator's start (it ends before the call) */
	int tasks;             /* TASK rows carrying its connectionId */
	int stack; /* with_stack: the operator's call stack (gen_stack_frame), else -1 */
} gen_launch_truth;

/* with_stack: the call stacks the operators have, frame `depth` of stack s (0 the innermost,
 * "file.py(line): function"), NULL past the outermost. */
#define GEN_NSTACKS 3
const char *gen_stack_frame(int s, int depth);

typedef struct gen_memory_truth { /* per rank and MEMORY_RECORD component */
	int rank;
	const char *component;  /* "PTA", "GE" */
	int64_t peak_allocated; /* bytes */
	int64_t peak_allocated_ns;
	int64_t peak_reserved, peak_active; /* bytes */
	int64_t step;                       /* STEP_TIME id holding the allocated peak */
	int stage; /* index into gen_stage_canon of the stage range holding it */
	/* PTA's row only (GE's: 0, NULL): the largest OP_MEMORY allocation live at the allocated
	 * peak; NPU_MEM's highest app HBM and its first time; AICORE_FREQ's dip (throttling) */
	int64_t live_size;
	const char *live_op;
	int64_t npu_app_hbm, npu_app_hbm_ns;
	int64_t freq_min, freq_min_ns;
} gen_memory_truth;

typedef struct gen_module_truth { /* one module path of one rank (gen_opts.modules) */
	int rank;
	char path[96];     /* as module_statistic names it: "Model/Layer/Attention",
	                      "Model/Layer/[Backward]Attention", "Model/Norm_1", "[Backward]Model" */
	int64_t device_ns; /* its operators' kernels, summed */
	uint64_t kernels;  /* those kernels */
	uint64_t ops;      /* its operators that launched kernels */
} gen_module_truth;

typedef struct gen_truth {
	int nranks, slow_rank;
	uint64_t tasks; /* TASK rows written over all ranks */
	gen_stage_truth *stages;
	size_t nstages;
	gen_overlap_truth *overlap;
	size_t noverlap;
	gen_host_truth *host; /* per rank, step and stage (index + 1): all, zeros included */
	size_t nhost;
	gen_bubble_truth *bubbles; /* one per rank x step x stage; the only device-idle gaps
	                            * inside a stage range longer than 100 us */
	size_t nbubbles;
	gen_step_truth *steps;
	size_t nsteps;
	uint64_t collectives; /* COMMUNICATION_OP rows per rank (the same ops on every rank) */
	/* pipeline-parallel profiles (gen_opts.pp) */
	int pp, pp_dp, pp_microbatches;
	gen_pp_block_truth *pp_blocks; /* per rank, in time order */
	size_t npp_blocks;
	gen_pp_stage_truth *pp_stages; /* per step x PP stage */
	size_t npp_stages;
	gen_p2p_truth *p2p; /* per transfer, in time order of the sends */
	size_t np2p;
	gen_dp_step_truth *dp_steps; /* GEN_DECODE_DP */
	size_t ndp_steps;
	gen_comm_truth *comm; /* per collective and rank, collectives in time order */
	size_t ncomm;
	gen_op_truth *ops; /* per rank, op type and task type */
	size_t nops;
	gen_launch_truth *launches; /* per rank, in launch order */
	size_t nlaunches;
	gen_memory_truth *memory; /* per rank and component (gen_opts.memory_records) */
	size_t nmemory;
	gen_module_truth *modules; /* per rank and module path (gen_opts.modules) */
	size_t nmodules;
} gen_truth;

/* Writes a profile under outdir (created; must not exist or be empty): one
 * `gen-r{r}_{pid}_{ts}_ascend_pt/` per rank with profiler_info_{r}.json and
 * ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{r}.db. truth may be NULL. Returns 0, or -1
 * with a message on stderr. */
int gen_profile(const gen_opts *, const char *outdir, gen_truth *truth);
/* gen_older.c: the older Ascend layouts. msprof's per-iteration export of CANN 6.x-7.0: two
 * PROF_ directories (devices 6 and 7, ranks 0 and 1 in their info.json), each
 * device_{N}/timeline/ holding models 0 (2 iterations) and 2 (10 iterations) as
 * msprof_{N}_{model}_{iter}.json with its Overlap Analysis and Step Trace, and the
 * task_time_*, hccl_* and step_trace_* files repeating parts of it. MindSpore 1.x: ranks 0 and
 * 1's ascend_timeline_display_{r}.json (no process names, streams as tids, args.type) with
 * step_trace_raw_{r}_detail_time.csv (4 steps, 10 ns ticks). 0, or -1 after a message. */
int gen_msprof_iter_export(const char *outdir, uint64_t seed);
int gen_ms_timeline(const char *outdir, uint64_t seed);
void gen_truth_free(gen_truth *);

/* Converts a torch_npu unified DB (a generated one, or a real one) into the trace_view.json that
 * torch_npu's text export writes for the same capture: the
 * same profile in both formats. Opens the DB immutable (nothing is written beside it). Returns
 * 0, or -1 with a message. */
int gen_json_from_db(const char *db_path, const char *json_path);
/* The same in the layout of a given torch_npu version: GEN_JSON_2025 (what gen_json_from_db
 * writes) or GEN_JSON_2024 (the older pids, "Stream Id", AI Core kernels typed "Other" or
 * untyped; see gen_json.c). */
enum { GEN_JSON_2025, GEN_JSON_2024 };
int gen_json_from_db_version(const char *db_path, const char *json_path, int version);

/* One device's timeline as msprof exports it (gen_msprof.c): msprof_{ts}.db as msprof itself
 * writes it (its DDL, no META_DATA, no framework tables, no steps), optionally with the
 * OVERLAP_ANALYSIS table MindStudio Insight adds to a DB it opens (its algorithm: Free spans
 * the device's first to last non-kernel task); or CANN 7.0's report_{device}.db (TASK's times
 * TEXT in float notation after TARGET_INFO_SESSION_TIME.baseTimeNs, correlationId keys, API,
 * TARGET_INFO_*, no COMMUNICATION_OP). Kernels with gaps, communication ops of three sub-tasks
 * that kernels partly overlap, memcpys, and idle time before and after. The answers are the
 * file's own tables (plain SQL over them). */
typedef struct gen_msprof_opts {
	uint64_t seed;
	int kernels;          /* compute kernels; 0: 40 */
	int compute_permille; /* kernel lengths scaled by this per mille; 0: 1000 */
	int device;           /* deviceId */
	int cann7;            /* a CANN 7.0 report DB */
	int steps;            /* with torch_npu's STEP_TIME of this many steps (not with cann7) */
	int overlap_table;    /* with OVERLAP_ANALYSIS (not with cann7): 1 Insight's variant,
	                         2 msprof's (2026) with ENUM_OVERLAY_ANALYSIS_TYPE */
} gen_msprof_opts;
/* Writes the DB at path (replaced). Returns 0, or -1 with a message. */
int gen_msprof_db(const char *path, const gen_msprof_opts *);

#endif
