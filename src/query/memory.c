#include "config.h"
#include "query/memory.h"
#include "load/load.h"
#include "query/host.h"

static void
counters_one(const tl_rank *r, size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	load_counters((tl_rank *)r); /* fills a cache of the rank: its counters and their names */
}

void
tlq_counters(const tl_trace *tr)
{
	tlq_for_ranks(tr, 0, counters_one, NULL);
}

const char *
tlq_stage_at(tl_rl *rl, size_t ri, int64_t t)
{
	const tl_stage_row *rows;
	size_t n = tlq_stages(rl, &rows);
	const tl_stage_row *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const tl_stage_row *s = &rows[i];
		if (s->rank != ri || t < s->host_start || t > s->host_end)
			continue;
		if (best == NULL || s->level > best->level)
			best = s;
	}
	return best ? tlq_rl_stage_name(rl, best->stage) : NULL;
}

int
tlq_counter_at(const tl_counter *c, int64_t t, int64_t *v)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) { /* first sample after t */
		size_t mid = (lo + hi) / 2;
		if (c->t[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	*v = c->v[lo - 1];
	return 1;
}
