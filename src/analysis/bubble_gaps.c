/* A rank's idle gaps longest first, one at a time (bubbles.h: bubble_gaps_iter). With the Free
 * lane's level of detail (model/lod.h: the longest slice of any run of slices in O(LOD_B log
 * n)) the next gap is the best of a heap of runs: taking a run's longest slice splits the run
 * in two, each with its own longest. k gaps cost O(k LOD_B log n) and read no slice beyond
 * them, so the viewer's largest-bubble list, which wants the first 10,000 of every rank merged,
 * no longer walks every Free slice of every rank on its first key. */
#include "config.h"
#include "analysis/bubbles.h"
#include "analysis/lanes.h"
#include "model/lod.h"
#include "util/heap.h"
#include "util/xalloc.h"

#include <stdlib.h>

/* run a before run b: its longest slice is longer, or as long and earlier (lod_longest gives
 * the first of equals, and the slices are sorted by start) */
static int
run_before(const void *va, const void *vb, void *ctx)
{
	const bubble_run *a = va, *b = vb;
	(void)ctx;
	if (a->dur != b->dur)
		return a->dur > b->dur;
	return a->idx < b->idx;
}

static void
run_push(bubble_gaps_iter *it, size_t a, size_t b)
{
	if (a >= b)
		return;
	bubble_run x = {a, b, 0, 0};
	x.idx = lod_longest(it->free->lod, it->free, a, b, &x.dur);
	VEC_PUSH(it->h, it->n, it->cap, x);
	heap_up(it->h, sizeof *it->h, it->n - 1, run_before, NULL);
}

static bubble_run
run_pop(bubble_gaps_iter *it)
{
	bubble_run top = it->h[0];
	it->h[0] = it->h[--it->n];
	heap_down(it->h, it->n, sizeof *it->h, 0, run_before, NULL);
	return top;
}

/* r's Free lane when it has a level of detail to walk lazily, else NULL */
static const tl_track *
lazy_free(const tl_rank *r)
{
	const tl_track *f = r->host_only ? NULL : lanes_overlap_track(r, TL_OVL_FREE);
	return f != NULL && f->lod != NULL && f->lod->n == f->n ? f : NULL;
}

int
bubble_gaps_iter_lazy(const tl_rank *r)
{
	return lazy_free(r) != NULL;
}

void
bubble_gaps_iter_init(bubble_gaps_iter *it, const tl_rank *r, size_t max)
{
	const tl_track *f = lazy_free(r);
	if (f != NULL) {
		*it = (bubble_gaps_iter){0};
		it->max = max ? max : 1;
		it->free = f;
		run_push(it, 0, f->n);
		return;
	}
	tl_gap *list;
	size_t n = bubble_gaps_of_rank(r, max ? max : 1, &list);
	bubble_gaps_iter_init_list(it, list, n, max);
}

void
bubble_gaps_iter_init_list(bubble_gaps_iter *it, tl_gap *list, size_t n, size_t max)
{
	*it = (bubble_gaps_iter){0};
	it->max = max ? max : 1;
	it->list = list;
	it->nlist = n;
}

int
bubble_gaps_iter_next(bubble_gaps_iter *it, tl_gap *out)
{
	if (it->given >= it->max)
		return 0;
	if (it->free == NULL) {
		if (it->given >= it->nlist)
			return 0;
		*out = it->list[it->given++];
		return 1;
	}
	if (it->n == 0)
		return 0;
	bubble_run x = run_pop(it);
	out->start = it->free->v[x.idx].start;
	out->end = track_end(it->free, x.idx);
	run_push(it, x.a, x.idx);
	run_push(it, x.idx + 1, x.b);
	it->given++;
	return 1;
}

void
bubble_gaps_iter_free(bubble_gaps_iter *it)
{
	free(it->h);
	free(it->list);
	*it = (bubble_gaps_iter){0};
}
