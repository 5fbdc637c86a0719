/* Slow ranks as msprof-analyze's slow_rank recipe finds them.
 * Ops of the same name in the same communication group are one collective instance; it ends at
 * about the same time everywhere, so the rank that arrived last has the abnormally *shortest*
 * op: that rank gets a vote. P2P ops are left out, and so is a whole group whose op names do
 * not all occur equally often (not aligned across ranks). */
#ifndef TL_SLOWRANK_H
#define TL_SLOWRANK_H
#include <stddef.h>
#include <stdint.h>

#include "analysis/collectives.h"
#include "model/trace.h"

/* The outliers of one instance's durations t[0..n) (in rank order): for n <= 100 a one-sided
 * Dixon test at 99.5% on the minimum (none for n <= 2 or <= 3 distinct values), else every
 * t < mean - 3 sigma plus the minimum when max > mean + 3 sigma. Writes indexes into t to out
 * (room for n) and returns their count. */
size_t slowrank_judge(const double *t, size_t n, size_t *out);

typedef struct tl_slow_vote {
	size_t rank;    /* index into the trace's ranks */
	unsigned votes; /* collective instances in which it was the outlier */
} tl_slow_vote;

typedef struct tl_slow_op {       /* one flagged instance (msprof-analyze's SlowOpStats) */
	const char *op, *group;   /* borrowed from the trace */
	size_t rank;              /* the (first) outlier */
	int64_t start;            /* ns: the outlier's op start */
	size_t count;             /* ranks in the instance */
	int64_t min, median, max; /* ns: durations */
} tl_slow_op;

typedef struct tl_slow_result {
	tl_slow_vote *v; /* ranks with votes, most votes first (ties: lower rank first) */
	size_t n;
	tl_slow_op *ops; /* flagged instances, by start */
	size_t nops;
	size_t instances;      /* collective instances examined */
	size_t groups_dropped; /* groups left out as not aligned */
	char **keys;           /* the per-call op names made up (below), owned */
	size_t nkeys;
} tl_slow_result;

void slowrank_votes(const tl_trace *, tl_slow_result *out);
/* The same over communication ops given as entries (e[k].ri: the rank's index in the trace),
 * with their group and normalised type from the profile where it has them. An op name that
 * occurs more than once in a group on a rank (NCCL's ncclDevKernel_Generic: one kernel name for
 * every call) is no call of its own: its k-th occurrence of a type is, named "TYPE #k NAME". */
void slowrank_votes_entries(const tl_trace *, const tl_coll_entry *e, size_t n,
                            tl_slow_result *out);
void slowrank_free(tl_slow_result *);

#endif
