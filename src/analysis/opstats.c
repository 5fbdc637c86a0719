#include "config.h"
#include "analysis/opstats.h"
#include "util/satint.h"
#include "util/sort.h"

#include <stdlib.h>
#include <string.h>

/* The p-quantile (0 <= p <= 1) of sorted v[0 .. n), n > 0: v[h] + (h - floor h)(v[h+1] - v[h])
 * with h = (n - 1) p. */
static double
opstats_quantile(const int64_t *v, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)h;
	if (lo + 1 >= n)
		return (double)v[n - 1];
	return (double)v[lo] + (h - (double)lo) * (double)(v[lo + 1] - v[lo]);
}

void
opstats_describe(int64_t *v, size_t n, tl_opstat *out)
{
	sort_i64(v, n);
	opstats_describe_sorted(v, n, out);
}

void
opstats_describe_sorted(const int64_t *v, size_t n, tl_opstat *out)
{
	memset(out, 0, sizeof *out);
	if (n == 0)
		return;
	out->count = n;
	for (size_t i = 0; i < n; i++)
		out->total = sat_add(out->total, v[i]);
	out->min = v[0];
	out->max = v[n - 1];
	out->mean = (double)out->total / (double)n;
	out->q1 = opstats_quantile(v, n, 0.25);
	out->median = opstats_quantile(v, n, 0.5);
	out->q3 = opstats_quantile(v, n, 0.75);
}
