#include "config.h"
#include "analysis/launch.h"
#include "util/xalloc.h"

#include <stdlib.h>

int64_t
launch_percentile(const int64_t *v, size_t n, int p)
{
	size_t k = (n * (size_t)p + 99) / 100; /* ceil(p n / 100), >= 1 for n, p > 0 */
	return v[k > 0 ? k - 1 : 0];
}

typedef struct keyed {
	size_t step; /* step index; SIZE_MAX: outside */
	int64_t delay;
} keyed;

static int
cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->delay > y->delay) - (x->delay < y->delay);
}

size_t
launch_steps(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step **out)
{
	*out = NULL;
	if (n == 0)
		return 0;
	keyed *k = xreallocarray(NULL, n, sizeof *k);
	for (size_t i = 0; i < n; i++) {
		k[i].step =
		    r->nsteps == 1 ? 0 : steps_index_at(r->steps, r->nsteps, v[i].host_start);
		k[i].delay = v[i].dev_start - v[i].host_start;
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	tl_launch_step *o = NULL;
	size_t no = 0, cap = 0;
	int64_t *d = xreallocarray(NULL, n, sizeof *d);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && k[j].step == k[i].step) {
			d[j - i] = k[j].delay;
			j++;
		}
		size_t m = j - i;
		tl_launch_step x = {
		    .step_id = k[i].step == SIZE_MAX ? -1 : r->steps[k[i].step].id,
		    .launches = m,
		    .p50 = launch_percentile(d, m, 50),
		    .p90 = launch_percentile(d, m, 90),
		    .max = d[m - 1],
		};
		VEC_PUSH(o, no, cap, x);
		i = j;
	}
	free(d);
	free(k);
	*out = o;
	return no;
}
