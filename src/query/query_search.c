/* What a search found, per rank: how many slices match, their total and mean duration. */
#include "config.h"
#include "query/query.h"

void
tlq_search_rank_stats(const tl_search *s, const tl_trace *tr, size_t ri, size_t *count,
                      int64_t *total)
{
	*count = 0;
	*total = 0;
	if (ri >= s->nranks || ri >= tr->nranks)
		return;
	const tl_rank *r = tr->ranks[ri];
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track_matches *m = tlq_search_track(s, ri, ti);
		if (m == NULL)
			continue;
		const tl_track *t = r->tracks[ti];
		for (size_t k = 0; k < m->n; k++)
			*total += t->v[m->idx[k]].end - t->v[m->idx[k]].start;
		*count += m->n;
	}
}
