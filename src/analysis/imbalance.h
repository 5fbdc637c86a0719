/* DP load imbalance of one stage and step across ranks (msprof-analyze's dp_analysis measures
 * it in decode steps; here it is time, per rank). */
#ifndef TL_IMBALANCE_H
#define TL_IMBALANCE_H
#include <stddef.h>
#include <stdint.h>

typedef struct tl_imb_rank {
	size_t rank;        /* index into the trace's ranks */
	int64_t start, end; /* ns: first start and last end of the rank's instances of the stage */
	int64_t duration;   /* ns: sum of the instances' durations */
	int64_t busy;       /* ns: device busy (compute U communication) inside them */
	int decode_steps;   /* decode steps inside them (stages_decode_count), summed over the
	                       instances that know theirs; -1 when none does */
	int64_t wait;       /* ns: wait-for-slowest = latest end over the ranks - own end */
	double idle_fraction; /* 1 - busy / duration (0 for an empty duration) */
} tl_imb_rank;

typedef struct tl_imb_stats {
	double max_over_mean; /* longest duration / mean duration */
	double cv;            /* coefficient of variation of the durations: population std / mean */
	size_t slowest;       /* row of the rank that finished last: the latest end (the one every
	                         other rank waits for); on a tie (a stage that ends in a collective)
	                         the latest start, the rank that arrived last; then the earlier row */
	size_t longest;       /* row of the longest-running rank: the longest duration (the earlier
	                         row on a tie); often the same rank, not always (a rank that started
	                         late finishes last after a short run) */
	int64_t skew;         /* ns: latest end - earliest end (the largest wait) */
} tl_imb_stats;

/* Fills wait and idle_fraction of the n >= 1 rows and computes the statistics. */
void imbalance_compute(tl_imb_rank *v, size_t n, tl_imb_stats *st);

#endif
