/* Saturating int64 arithmetic for sums of times. The model's times fit +-2^62 ns, so one
 * difference fits an int64, but a sum of many durations or waits over crafted input can pass its
 * range: these hold the result at the end instead (undefined behaviour otherwise). */
#ifndef TL_SATINT_H
#define TL_SATINT_H
#include <stdint.h>

static inline int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t s;
	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return s;
}

static inline int64_t
sat_sub(int64_t a, int64_t b)
{
	int64_t s;
	if (__builtin_sub_overflow(a, b, &s))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return s;
}

/* |a|, INT64_MAX for INT64_MIN */
static inline int64_t
sat_abs(int64_t a)
{
	return a >= 0 ? a : a == INT64_MIN ? INT64_MAX : -a;
}

#endif
