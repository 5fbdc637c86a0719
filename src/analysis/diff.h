/* Comparing two profiles (or two ranks of one): pure functions over two lists of measurements.
 * A measurement is one number keyed by (kind, name, rank, step), where step is an aligned step
 * key (the n-th profiled step), never an absolute time: two runs start at different times. */
#ifndef TL_ANALYSIS_DIFF_H
#define TL_ANALYSIS_DIFF_H
#include <stddef.h>
#include <stdint.h>

#include "util/satint.h"

typedef enum tl_diff_kind {
	TL_DIFF_STAGE,    /* the summed duration of a stage's instances in a step */
	TL_DIFF_OVERLAP,  /* an overlap category of a step */
	TL_DIFF_OPERATOR, /* total device time of an op type or op name over the capture */
	TL_DIFF_COMM,     /* elapse or wait of a communication op type in a step */
	TL_DIFF_BUBBLE,   /* the longest idle gap of a rank */
	TL_DIFF_NKINDS
} tl_diff_kind;

/* "stage", "overlap", "operator", "communication", "bubble" */
const char *diff_kind_name(tl_diff_kind);

typedef struct tl_diff_meas {
	tl_diff_kind kind;
	const char *name; /* borrowed from the caller */
	int rank;         /* rank number */
	int64_t step;     /* aligned step key, -1: the whole capture */
	int64_t ns;
	uint64_t count; /* instances summed (ops, stage instances); 0 when not counted */
} tl_diff_meas;

/* One compared quantity. rank -1 is the row over all ranks: a and b are the means over the
 * ranks present on each side (truncated to the ns), max_a and max_b the largest rank's value,
 * top_rank the rank whose own delta is largest in magnitude. */
typedef struct tl_diff_change {
	tl_diff_kind kind;
	const char *name;
	int rank;
	int64_t step;
	int has_a, has_b; /* present on that side (for rank -1: on at least one rank) */
	int64_t a, b;     /* 0 on a side where it is absent */
	int64_t max_a, max_b;
	uint64_t count_a, count_b;
	int top_rank;      /* rank -1 rows: the rank that changed most, -1 when none changed */
	int64_t top_delta; /* its delta */
	size_t nranks_a, nranks_b;
	int sole; /* a per-rank row that is the only rank of its quantity: it repeats the
	             all-ranks row, and lists of changes leave it out */
	/* Set by diff_rank_changes: */
	int64_t step_delta;   /* the change per step: delta, except a whole-capture total (an
	                         operator's) whose delta is b / B's steps - a / A's steps */
	size_t ranks_changed; /* rank -1 rows: its per-rank rows that changed (not sole) */
} tl_diff_change;

static inline int64_t
diff_delta(const tl_diff_change *c)
{
	return sat_sub(c->b, c->a);
}
/* delta / a as a percentage; returns 0 when a is 0 (the caller prints "new" or "-"). */
int diff_pct(const tl_diff_change *c, double *pct);

/* Joins a[0 .. na) and b[0 .. nb) (both reordered here) on (kind, name, rank, step); equal keys
 * on one side are summed. Writes every per-rank row and, per (kind, name, step), the row over
 * all ranks. Rows in key order, each key's all-ranks row first. Returns the count; *out
 * malloc'ed. */
size_t diff_join(tl_diff_meas *a, size_t na, tl_diff_meas *b, size_t nb, tl_diff_change **out);

/* Ranks v (as diff_join wrote it) like with like, per step: each row's step_delta is its change
 * per step (a whole-capture operator total over steps_a and steps_b steps, 0 counting as 1; every
 * other kind is already per step or one event). A quantity (kind, name, step) is placed by its
 * all-ranks row's |step_delta| (ties: the largest of its ranks', then kind, name, step); its
 * all-ranks row comes first and its per-rank rows follow it, largest |step_delta| first (then
 * rank). */
void diff_rank_changes(tl_diff_change *v, size_t n, size_t steps_a, size_t steps_b);
/* A whole-capture total divided over its steps: the kinds whose step_delta is not delta. */
int diff_kind_is_total(tl_diff_kind);

#endif
