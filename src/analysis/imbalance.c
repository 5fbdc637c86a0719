#include "config.h"
#include "analysis/imbalance.h"

#include <math.h>

void
imbalance_compute(tl_imb_rank *v, size_t n, tl_imb_stats *st)
{
	st->max_over_mean = 0;
	st->cv = 0;
	st->slowest = 0;
	st->longest = 0;
	st->skew = 0;
	if (n == 0)
		return;
	int64_t latest = INT64_MIN, earliest = INT64_MAX, longest = INT64_MIN;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].end > latest || (v[i].end == latest && v[i].start > v[st->slowest].start))
			st->slowest = i;
		if (v[i].end > latest)
			latest = v[i].end;
		if (v[i].end < earliest)
			earliest = v[i].end;
		if (v[i].duration > longest) {
			longest = v[i].duration;
			st->longest = i;
		}
		sum += (double)v[i].duration;
	}
	double mean = sum / (double)n, var = 0;
	for (size_t i = 0; i < n; i++) {
		v[i].wait = latest - v[i].end;
		v[i].idle_fraction =
		    v[i].duration > 0 ? 1.0 - (double)v[i].busy / (double)v[i].duration : 0.0;
		double d = (double)v[i].duration - mean;
		var += d * d;
	}
	var /= (double)n; /* population variance, as numpy's std() */
	if (mean > 0) {
		st->max_over_mean = (double)longest / mean;
		st->cv = sqrt(var) / mean;
	}
	st->skew = latest - earliest;
}
