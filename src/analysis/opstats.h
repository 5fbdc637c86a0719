/* Duration statistics of a set of tasks or ops, as msprof-analyze's describe_duration gives them
 * for compute_op_sum and hccl_sum: count, sum, mean, min, max and the quartiles (pandas'
 * default linear interpolation between order statistics). */
#ifndef TL_OPSTATS_H
#define TL_OPSTATS_H
#include <stddef.h>
#include <stdint.h>

typedef struct tl_opstat {
	uint64_t count;
	int64_t total, min, max;     /* ns */
	double mean, q1, median, q3; /* ns */
} tl_opstat;

/* Statistics of v[0 .. n) (sorted here, ascending). All zero when n is 0. */
void opstats_describe(int64_t *v, size_t n, tl_opstat *out);
/* The same of v already ascending (not written: v may be shared). */
void opstats_describe_sorted(const int64_t *v, size_t n, tl_opstat *out);

#endif
