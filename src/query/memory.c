#include "config.h"
#include "query/session.h"
#include "query/memory.h"
#include "load/load.h"
#include "query/host.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
counters_one(const tl_rank *r, size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	load_counters((tl_rank *)r); /* fills a cache of the rank: its counters and their names */
}

void
tlq_counters(const tl_query *cq)
{
	tl_query *q = tlq_mut(cq);
	pthread_mutex_lock(&q->lock);
	if (!q->have_counters) {
		tlq_for_ranks(q->tr, 0, counters_one, NULL);
		q->have_counters = 1;
	}
	pthread_mutex_unlock(&q->lock);
}

size_t
tlq_memory_peaks(const tl_query *q, size_t ri, tl_mem_peak **out)
{
	tlq_counters(q);
	return memory_peaks(tlq_trace(q)->ranks[ri], out);
}

size_t
tlq_npu_memory_peaks(const tl_query *q, size_t ri, tl_npu_mem_peak **out)
{
	tlq_counters(q);
	return npu_memory_peaks(tlq_trace(q)->ranks[ri], out);
}

const char *
tlq_stage_at(const tl_query *rl, size_t ri, int64_t t)
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
	return best ? tlq_stage_name(rl, best->stage) : NULL;
}

static int
cmp_alloc(const void *a, const void *b)
{
	const tlq_alloc *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->alloc_ns > y->alloc_ns) - (x->alloc_ns < y->alloc_ns);
}

ptrdiff_t
tlq_live_allocations(const tl_rank *r, int64_t t, size_t max, tlq_alloc **out)
{
	ptrdiff_t n = load_live_allocations(r, t, max, out);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof **out, cmp_alloc);
	if (n > (ptrdiff_t)max)
		n = (ptrdiff_t)max;
	return n;
}
