/* Steps across the ranks of a trace: the ids there are, where a step runs, the step at a time.
 * A step is ProfilerStep#N (STEP_TIME): each rank has its own host range of it. */
#include "config.h"
#include "query/query.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

size_t
tlq_step_ids(const tl_query *q, int64_t **ids)
{
	const tl_trace *tr = tlq_trace(q);
	size_t n = 0;
	for (size_t i = 0; i < tr->nranks; i++)
		n += tr->ranks[i]->nsteps;
	*ids = xmalloc((n ? n : 1) * sizeof **ids);
	size_t k = 0;
	for (size_t i = 0; i < tr->nranks; i++)
		for (size_t j = 0; j < tr->ranks[i]->nsteps; j++)
			(*ids)[k++] = tr->ranks[i]->steps[j].id;
	if (k > 1)
		qsort(*ids, k, sizeof **ids, cmp_i64);
	size_t w = 0;
	for (size_t i = 0; i < k; i++)
		if (w == 0 || (*ids)[w - 1] != (*ids)[i])
			(*ids)[w++] = (*ids)[i];
	return w;
}

int
tlq_step_span(const tl_query *q, int64_t id, int64_t *t0, int64_t *t1)
{
	const tl_trace *tr = tlq_trace(q);
	int found = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		for (size_t j = 0; j < r->nsteps; j++) {
			if (r->steps[j].id != id)
				continue;
			if (!found || r->steps[j].start < *t0)
				*t0 = r->steps[j].start;
			if (!found || r->steps[j].end > *t1)
				*t1 = r->steps[j].end;
			found = 1;
		}
	}
	return found ? 0 : -1;
}

int
tlq_step_at(const tl_rank *r, int64_t t, int64_t *id)
{
	size_t i = steps_index_at(r->steps, r->nsteps, t);
	if (i == SIZE_MAX)
		return -1;
	*id = r->steps[i].id;
	return 0;
}
