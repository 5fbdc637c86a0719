/* The measurements `tl diff` compares, gathered from the queries `tl summary` prints (stages,
 * per-step overlap, operator statistics, communication time, bubbles): nothing recomputed. */
#ifndef TL_QUERY_DIFF_H
#define TL_QUERY_DIFF_H
#include "analysis/diff.h"
#include "query/query.h"
#include "model/trace.h"
#include "util/strpool.h"

typedef struct tl_diff_side_opts {
	int only_rank;      /* gather this rank number only; -1: every loaded rank */
	int as_rank;        /* with only_rank: file its numbers under this rank (--vs) */
	int64_t step_first; /* the STEP_TIME id that pairs with the other side's; -1: the n-th
	                       profiled step pairs with the n-th */
} tl_diff_side_opts;

typedef struct tl_diff_side {
	tl_diff_meas *v;
	size_t n, cap;
	tl_strpool *names; /* owns the measurements' names */
	int *ranks;        /* rank numbers gathered, ascending */
	size_t nranks;
	int64_t *steps; /* distinct STEP_TIME ids seen, ascending */
	size_t nsteps;
	int64_t step_first;
	size_t steps_skipped; /* steps before step_first: nothing to pair them with */
	const char **stages;  /* stage names present (borrowed from names), sorted */
	size_t nstages;
	int have_stages;
	struct tl_diff_finding *fv; /* tlq_diff_gather_findings: by place */
	size_t nf;
	int have_findings;
} tl_diff_side;

/* The rank a side's only rank is filed under when its number is not known (a single trace
 * without a rank): two such sides pair, and the reports print it as "?". */
#define TL_DIFF_RANK_SINGLE 0x7ffffffe

/* The measurements of the session's trace (the ranks o selects). */
void tlq_diff_gather(const tl_query *, const tl_diff_side_opts *, tl_diff_side *out);
/* Two sides of one rank each, one of them without a rank number (TL_DIFF_RANK_SINGLE): the
 * unnumbered one is filed under the other's number, so that the two traces pair. */
void tlq_diff_pair_single(tl_diff_side *a, tl_diff_side *b);
void tlq_diff_side_free(tl_diff_side *);
/* The STEP_TIME id of an aligned step key on this side, or -1 when it has none. */
int64_t tlq_diff_step_id(const tl_diff_side *, int64_t key);
/* The aligned step key of a STEP_TIME id on this side: -1 for none, -2 for a step before
 * step_first (not compared). */
int64_t tlq_diff_step_key(const tl_diff_side *, int64_t id);

/* Every compared quantity of a against b (per rank, and over all ranks), ranked per step,
 * largest first, each quantity's all-ranks row followed by its per-rank rows (diff_join,
 * diff_rank_changes). Returns the count; *out malloc'd. */
size_t tlq_diff_changes(const tl_diff_side *a, const tl_diff_side *b, tl_diff_change **out);
/* A row the lists of changes show: changed, and not the repeat of an all-ranks row. */
int tlq_diff_changed(const tl_diff_change *);
/* The one-line headline of ranked changes v: "ref_logprob +42% (+3.9 ms per step), mostly
 * aclnnMatmul_ref_logprob +61%", or "no changes". */
void tlq_diff_verdict(const tl_diff_change *v, size_t n, char *out, size_t len);
/* A change in percent: "+42.1%", "new", "gone" or "-". */
const char *tlq_diff_pct_text(const tl_diff_change *, char *buf, size_t len);
/* A change as a percentage of its A value: 0 when A is 0 (new, or nothing to compare). */
int tlq_diff_pct(const tl_diff_change *, double *pct);
/* A kind whose rows are whole-capture totals, ranked by their change per step (operators). */
int tlq_diff_kind_is_total(tl_diff_kind);
/* The kind's name as `tl diff` prints it ("stage", "overlap", ...). */
const char *tlq_diff_kind_name(tl_diff_kind);

/* ---- findings (diff_findings.c) ----
 * tl triage's findings of each side, matched by kind and place: the rank (or several), the RL
 * stage, the operator, the link (source, destination, transport), the PP stage; never by
 * their index. Several findings of one place (a rank's stalls in one stage) are one, their
 * recoverable times summed. */
typedef struct tl_diff_finding {
	int kind;       /* tl_find_kind */
	int rank;       /* the rank number it names (TL_DIFF_RANK_SINGLE, see above); -1 none */
	char ranks[64]; /* several: "0-2,5" (shown, not matched: rank is -1 for any several) */
	char stage[64]; /* the RL stage's name, "" */
	char op[96];
	int src_rank, dst_rank; /* a link's; -1 */
	const char *transport;  /* static; NULL */
	int pp_stage;           /* -1 */
	int64_t ns;             /* recoverable_ns, summed over the side's findings of the place */
	int count;              /* how many */
} tl_diff_finding;

/* One place's finding in A and B (NULL where absent) and the change B - A of its time. */
typedef struct tl_diff_fchange {
	const tl_diff_finding *a, *b;
	int64_t delta;
} tl_diff_fchange;

/* The session's findings (tl triage's, default thresholds) into s, by place; not for --vs
 * (a side of one rank filed under another). */
void tlq_diff_gather_findings(const tl_query *, const tl_diff_side_opts *, tl_diff_side *s);
/* Every place found in a or b, by |delta| largest first (ties: the larger time, the kind,
 * the place). Returns the count; *out malloc'd. */
size_t tlq_diff_findings(const tl_diff_side *a, const tl_diff_side *b, tl_diff_fchange **out);
/* The place as text: "rank 3, rollout", "link 2 -> 3 (HCCS)", "ArgMaxV2 on ranks 0-3". */
char *tlq_diff_finding_place(const tl_diff_finding *, char *buf, size_t len);

#endif
