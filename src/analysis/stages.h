/* RL stages: rules map range names (MSTX ranges of
 * any domain, record_function / user_annotation ranges) and verl / MindSpeed-RL discrete-mode
 * role directories to canonical stages. The rules are data in the user's own syntax:
 * src/analysis/stages.default is compiled in, $XDG_CONFIG_HOME/tl/stages is tried first. */
#ifndef TL_STAGES_H
#define TL_STAGES_H
#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

/* The canonical stages, in the order of a GRPO/PPO step; user stages (other:NAME) follow. */
enum {
	TL_STAGE_ROLLOUT,
	TL_STAGE_REF_LOGPROB,
	TL_STAGE_ACTOR_LOGPROB,
	TL_STAGE_REWARD,
	TL_STAGE_VALUES,
	TL_STAGE_ADVANTAGE,
	TL_STAGE_ACTOR_UPDATE,
	TL_STAGE_CRITIC_UPDATE,
	TL_STAGE_WEIGHT_SYNC,
	TL_STAGE__CANON
};

#define TL_STAGE_IGNORED (-2) /* an `ignore` rule matched: never a stage */
#define TL_STAGE_NONE (-1)

typedef struct tl_stage_rules tl_stage_rules;

/* The text of src/analysis/stages.default (generated into stages_builtin.c at build time). */
extern const char stages_default_text[];

/* The built-in rules, after the user's file: path, or when path is NULL
 * $XDG_CONFIG_HOME/tl/stages (~/.config/tl/stages) when it exists. Bad lines of either are
 * reported with msg_warn (file:line: problem) and skipped. Never NULL. */
tl_stage_rules *stage_rules_load(const char *path);
/* Rules from text alone (tests); origin names it in messages. */
tl_stage_rules *stage_rules_from_text(const char *text, const char *origin);
void stage_rules_free(tl_stage_rules *);
/* Lines that were skipped as bad while reading. */
unsigned stage_rules_errors(const tl_stage_rules *);

/* Stage names: 0 .. TL_STAGE__CANON-1 are the canonical ones ("rollout", ...), then
 * "other:NAME" stages in the order they were first seen. */
size_t stage_rules_count(const tl_stage_rules *);
const char *stage_rules_name(const tl_stage_rules *, int stage);
/* Index of a stage name, or TL_STAGE_NONE. */
int stage_rules_find(const tl_stage_rules *, const char *name);

/* What the rules say a name is. classify: a stage index, TL_STAGE_IGNORED or TL_STAGE_NONE.
 * pp: 'F', 'B' or 0. */
int stage_rules_classify(const tl_stage_rules *, const char *name, size_t len);
int stage_rules_is_decode(const tl_stage_rules *, const char *name, size_t len);
int stage_rules_pp(const tl_stage_rules *, const char *name, size_t len);

/* One stage instance of a rank. */
typedef struct tl_stage_inst {
	int stage;
	int64_t start, end; /* ns; a range's device part where it carried a stream, else its
	                       host times; or a capture's envelope */
	int64_t host_start, host_end; /* the host call (= start, end without a device part) */
	int device;                   /* start, end are the range's device part */
	const char *origin; /* the range name or role directory; borrowed from the trace */
	int from_role;      /* the whole capture, named by its role directory */
	int64_t step;       /* STEP_TIME id containing the start, else the role directory's step
	                       number, else -1 */
	int level;          /* nesting on the stage lane: 0 = not inside another stage */
} tl_stage_inst;

/* The stage instances of r, by start (longer first on ties). Sources whose captures hold no
 * stage range and sit in a role directory contribute their whole envelope. Returns the count;
 * *out is the caller's to free. */
size_t stages_of_rank(tl_stage_rules *, const tl_rank *r, tl_stage_inst **out);

/* Whether r has decode ranges: MSTX ranges whose name, or whose domain, a decode rule matches
 * (vLLM's per-step range and dp_analysis' "step" live in domains of their own). */
int stages_rank_has_decode(const tl_stage_rules *, const tl_rank *r);

/* Decode steps of a stage instance on r, [t0, t1] in host times (the instance's host_start and
 * host_end: a decode range counts when its host call lies inside the stage's host call);
 * has_decode is stages_rank_has_decode(r). Where the rank has decode ranges, the ones wholly
 * inside: a true count, 0 included. Where it has none, on a rollout stage, the ProfilerStep ranges
 * wholly inside it (vLLM-Ascend steps its profiler once per decode iteration), when there is at
 * least one. Otherwise -1: nothing says how many decode steps ran, and 0 would be a claim. */
int stages_decode_count(const tl_stage_rules *, const tl_rank *r, int has_decode, int stage,
                        int64_t t0, int64_t t1);

/* The decode ranges that stages_decode_count counts, [t0, t1] as there (all of the rank's when
 * t0 > t1): their host spans by start into *out (the caller's to free; NULL when none). */
size_t stages_decode_spans(const tl_stage_rules *, const tl_rank *r, int64_t t0, int64_t t1,
                           tl_span **out);

/* Adds the stage lane of r: a TL_LANE_STAGE track per nesting level (key and depth = level;
 * slice names are the stage names, arg the instance index), in front of the rank's other
 * tracks. Does nothing when r already has stage tracks. */
void stages_add_lanes(tl_rank *r, const tl_stage_rules *, const tl_stage_inst *v, size_t n);

#endif
