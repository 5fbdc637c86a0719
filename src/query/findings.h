/* Findings: what is wrong with a job, where, and how much time each problem costs, ranked.
 * Every rule is one row of one table (findings.c: its kind, its definition in words, its
 * threshold setting with the default, its compute function) and computes over what the other
 * queries already answer (stage imbalance, bubbles, collectives, the communication and operator
 * analyses, the overlap split, the pipeline, launches, counters): nothing is measured twice.
 * One cause is one finding: where one finding explains another (a stall that makes its rank
 * late at the next collective), its time is counted in the first and the other's evidence says
 * so. `tl triage` prints them; `man tl` (FINDINGS) lists the rules. */
#ifndef TL_QUERY_FINDINGS_H
#define TL_QUERY_FINDINGS_H
#include <stddef.h>
#include <stdint.h>

#include "query/query.h"

typedef enum tl_find_kind {
	TL_FIND_STAGE_IMBALANCE,
	TL_FIND_STALL,
	TL_FIND_STRAGGLER,
	TL_FIND_SLOW_LINK,
	TL_FIND_AICPU_OP,
	TL_FIND_EXPOSED_COMM,
	TL_FIND_BETWEEN_STEPS,
	TL_FIND_PIPELINE_BUBBLE,
	TL_FIND_SMALL_PACKETS,
	TL_FIND_HOST_BOUND,
	TL_FIND_FREQUENCY_DROP,
	TL_FIND_MEMORY_PEAK,
	TL_FIND__COUNT
} tl_find_kind;

/* One rule: its kind's name ("stage_imbalance"), its definition (a sentence, the man page's),
 * its threshold setting's name, default and unit. */
typedef struct tl_find_rule {
	const char *kind;
	const char *definition;
	const char *setting;
	double threshold;
	const char *unit; /* "ms", "fraction", "us", ... */
} tl_find_rule;
/* The table, TL_FIND__COUNT rows in tl_find_kind order. */
const tl_find_rule *tlq_find_rules(void);
/* The index of the rule whose setting is named name, or -1. */
int tlq_find_setting(const char *name);

typedef struct tl_finding {
	int kind; /* tl_find_kind */
	int64_t recoverable_ns;
	double share;   /* recoverable / the summed step time of the ranks it concerns (the mean
	                   rank's for several) */
	int rank;       /* the rank (number) it names; -1 when several or none */
	char ranks[64]; /* several: "0-2,5"; "" otherwise */
	size_t rank_ix; /* index into the trace's ranks of rank (or of the first), SIZE_MAX */
	int64_t step;   /* STEP_TIME id; -1: all steps */
	int nsteps;     /* steps it covers */
	int stage;      /* TL_STAGE_NONE when none */
	int64_t start_ns, end_ns; /* the place to look */
	int src_rank, dst_rank;   /* a link's; -1 */
	const char *transport;    /* a link's or packets' transport name; NULL */
	char op[96];              /* an operator's name; "" */
	int pp_stage;             /* pipeline_bubble's PP stage; -1 */
	char evidence[512];       /* one sentence with the numbers (names sanitized) */
	int on_critical_path;     /* its span [start_ns, end_ns) meets the critical path on its
	                             rank (several or none: on any): 1, 0; -1 unknown (no path
	                             given, no span) */
} tl_finding;

typedef struct tl_find_opts {
	double threshold[TL_FIND__COUNT]; /* 0: the rule's default */
	int no_files;                     /* only what the loaded model holds: no reads of the
	                                     communication, operator, launch or counter tables */
	/* what the caller has already asked for (tl summary), borrowed; NULL: asked here */
	const tl_coll_result *cr;
	const tl_comm_result *cm;
	/* (rs's overlap rows are the rules' tlq_step_overlaps: not asked again) */
	const tl_rank_steps *rs;
	const tl_cp_result *cp; /* the critical path (tlq_critical, no what-if); NULL: the
	                           findings do not say whether they are on it (opts NULL:
	                           computed here, they do) */
	/* or the path still being computed (tlq_critical_start): cp_wait(cp_ctx) waits for it
	 * and returns it, called once the rules have run */
	const tl_cp_result *(*cp_wait)(void *cp_ctx);
	void *cp_ctx;
} tl_find_opts;

/* The findings of the session's trace, by recoverable_ns, largest first (ties: the rule order,
 * then the rank). Returns the count; *out is the caller's (free). opts NULL: the defaults. */
size_t tlq_findings(const tl_query *, const tl_find_opts *, tl_finding **out);
/* Says of each of findings v[0 .. n), found without a path (opts' cp and cp_wait NULL),
 * whether it is on cp, as tlq_findings given cp would have (its evidence's last clause): for a
 * caller that lets the findings' inputs go before it waits for a path computed beside them. */
void tlq_findings_on_path(tl_finding *v, size_t n, const tl_cp_result *cp);
/* The wall time tlq_findings has taken in this process, ns, and in *cpu (not NULL) the process'
 * CPU time meanwhile (TL_STATS: the engine's share of a summary, for `make bench`). */
int64_t tlq_findings_ns(int64_t *cpu);
/* A finding's title as one line: "rollout imbalance: rank 7, +23.7 ms over 2 steps (9.4%)". */
char *tlq_finding_title(const tl_query *, const tl_finding *, char *buf, size_t len);

#endif
