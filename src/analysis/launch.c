#include "config.h"
#include "analysis/launch.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

int64_t
launch_percentile(const int64_t *v, size_t n, int p)
{
	size_t k = (n * (size_t)p + 99) / 100; /* ceil(p n / 100), >= 1 for n, p > 0 */
	return v[k > 0 ? k - 1 : 0];
}

size_t
launch_steps(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step **out)
{
	*out = NULL;
	if (n == 0)
		return 0;
	/* a bucket per step and one for launches outside every step (last), then each bucket's
	 * delays sorted: millions of launches, a handful of steps */
	size_t nb = r->nsteps + 1;
	size_t *at = xcalloc(nb + 1, sizeof *at);
	size_t *b = xreallocarray(NULL, n, sizeof *b);
	for (size_t i = 0; i < n; i++) {
		size_t k =
		    r->nsteps == 1 ? 0 : steps_index_at(r->steps, r->nsteps, v[i].host_start);
		b[i] = k < r->nsteps ? k : r->nsteps;
		at[b[i] + 1]++;
	}
	for (size_t k = 0; k < nb; k++)
		at[k + 1] += at[k];
	int64_t *d = xreallocarray(NULL, n, sizeof *d);
	size_t *fill = xreallocarray(NULL, nb, sizeof *fill);
	memcpy(fill, at, nb * sizeof *fill);
	for (size_t i = 0; i < n; i++)
		d[fill[b[i]]++] = v[i].dev_start - v[i].host_start;
	tl_launch_step *o = NULL;
	size_t no = 0, cap = 0;
	for (size_t k = 0; k < nb; k++) {
		size_t m = at[k + 1] - at[k];
		if (m == 0)
			continue;
		int64_t *x = d + at[k];
		sort_i64(x, m);
		tl_launch_step row = {
		    .step_id = k == r->nsteps ? -1 : r->steps[k].id,
		    .launches = m,
		    .p50 = launch_percentile(x, m, 50),
		    .p90 = launch_percentile(x, m, 90),
		    .max = x[m - 1],
		};
		VEC_PUSH(o, no, cap, row);
	}
	free(fill);
	free(d);
	free(b);
	free(at);
	*out = o;
	return no;
}
