/* Pipeline-parallel flow (as MindStudio Insight's pp chart draws it): forward and backward
 * blocks per PP stage and micro-batch, from ranges the stage rules call `forward` / `backward`
 * (pp_chart's "{'name': 'forward_step'}", the plain names, DualPipeV's, Megatron's), else from
 * the rank's forward/backward operator pairs (tl_rank.fwdbwd, Insight's fwdbwd fallback); the
 * PP stage of each rank; P2P sends paired with their receives; per stage the bubble ratio. */
#ifndef TL_PIPELINE_H
#define TL_PIPELINE_H
#include <stddef.h>
#include <stdint.h>

#include "analysis/stages.h"
#include "model/trace.h"

typedef struct tl_pp_block {
	char kind;          /* 'F' or 'B' */
	int microbatch;     /* from the range's message ('current_microbatch': k), else the 0-based
	                       order of the rank's F (or B) blocks in the step; for operator pairs
	                       the order of the micro-batch's forward in the step */
	int64_t start, end; /* ns: the range's device part where it carried a stream, else its
	                       host times; or the span of the operators */
} tl_pp_block;

typedef struct tl_pp_link {        /* a send and the receive it pairs with */
	size_t from_rank, to_rank; /* indexes into the trace's ranks */
	int64_t send_start, send_end, recv_start, recv_end;
} tl_pp_link;

typedef struct tl_pp_stage {
	int pp_stage;
	size_t *ranks; /* the ranks of this PP stage (trace indexes, ascending) */
	size_t nranks;
	size_t shown; /* the rank whose blocks these are: the lowest with blocks in the step */
	tl_pp_block *blocks; /* by start */
	size_t nblocks;
	int64_t busy;        /* ns: length of the union of the blocks */
	double bubble_ratio; /* (span - busy) / span, span of the step's pipeline below */
} tl_pp_stage;

typedef struct tl_pp_step {
	int64_t step;        /* STEP_TIME id containing the blocks' starts, or -1 */
	int64_t start, end;  /* ns: first block start to last block end over the shown ranks */
	tl_pp_stage *stages; /* one per PP stage, by pp_stage */
	size_t nstages;
	tl_pp_link *links; /* by send start; every pair found in the step, of any ranks */
	size_t nlinks;
} tl_pp_step;

/* How the PP stage of each rank was found. */
typedef enum tl_pp_source {
	TL_PP_FROM_META,     /* distributed_args (profiler metadata / META_DATA) */
	TL_PP_FROM_PARTNERS, /* the chain of send/receive partners */
	TL_PP_FROM_OPTION,   /* rank order with --pp N */
	TL_PP_FROM_GUESS,    /* nothing told: one rank per stage, in rank order */
} tl_pp_source;

/* Where a rank's blocks come from. */
enum { TL_PP_BLOCKS_NONE, TL_PP_BLOCKS_RANGES, TL_PP_BLOCKS_OPS };

typedef struct tl_pipeline {
	tl_pp_step *steps;
	size_t nsteps;
	int npp; /* PP stages */
	tl_pp_source source;
	int *rank_stage;            /* per trace rank: its PP stage, -1 unknown */
	unsigned char *rank_blocks; /* per trace rank: TL_PP_BLOCKS_* */
	size_t ranks_with_blocks;
	size_t ranks_from_ops; /* of those, ranks whose blocks come from forward/backward operator
	                          pairs (no forward/backward ranges) */
	size_t p2p_ops;        /* send and receive ops found in the profile */
	int used_ops;          /* operator pairs were allowed (pipeline_build's use_ops) */
} tl_pipeline;

/* meta_stage: per trace rank the PP stage from distributed_args, -1 when unknown (NULL: none).
 * opt_pp: --pp N, 0 when not given. use_ops: ranks without forward/backward ranges take their
 * blocks from their operator pairs (pass it only when something says the job is pipeline-
 * parallel: every training job has such pairs). A profile without blocks, or with blocks on
 * fewer than two PP stages, gives nsteps == 0. */
void pipeline_build(const tl_trace *, const tl_stage_rules *, const int *meta_stage, int opt_pp,
                    int use_ops, tl_pipeline *out);
/* The plain sentence a panel shows when there is no pipeline to show (nsteps == 0). */
const char *pipeline_absence(const tl_trace *, const tl_pipeline *, char *buf, size_t n);
void pipeline_free(tl_pipeline *);
/* Every send of the trace paired with its receive, as pipeline_build pairs them (groups named
 * by the profile, or by the op names' group hash where a JSON lane is only "Group N"), by send
 * start; *out malloc'ed. */
size_t pipeline_p2p_pairs(const tl_trace *, tl_pp_link **out);
const char *pipeline_source_name(tl_pp_source);

/* The micro-batch number a range message carries ('current_microbatch': 3, "microbatch": 3),
 * or -1. */
int pipeline_parse_microbatch(const char *msg);

#endif
