#include "config.h"
#include "analysis/timesplit.h"
#include "analysis/overlap.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct ival {
	int64_t s, e;
} ival;

static int
cmp_ival(const void *a, const void *b)
{
	const ival *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

void
timesplit_memory(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, int64_t *memory,
                 int64_t *not_overlapped)
{
	*memory = *not_overlapped = 0;
	uint32_t memcpy_name = strpool_find(r->pool, "MEMCPY_ASYNC", 12);
	if (memcpy_name == UINT32_MAX)
		return;
	ival *m = NULL;
	size_t nm = 0, cap = 0;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_MEMCPY)
			continue;
		for (size_t i = track_first_starting_at(t, t0); i < t->n && t->v[i].start <= t1;
		     i++)
			if (t->v[i].name == memcpy_name) {
				*memory += t->v[i].end - t->v[i].start;
				ival x = {t->v[i].start, t->v[i].end};
				VEC_PUSH(m, nm, cap, x);
			}
	}
	if (nm == 0)
		return;
	qsort(m, nm, sizeof *m, cmp_ival);
	int64_t lo = m[0].s, hi = m[0].e;
	for (size_t i = 1; i < nm; i++)
		hi = m[i].e > hi ? m[i].e : hi;
	/* the covered time near the memcpys: compute and communication of the step, merged */
	ival *b = NULL;
	size_t nb = 0, bcap = 0;
	static const tl_lane_kind kinds[] = {TL_LANE_COMPUTE, TL_LANE_COMM};
	for (int k = 0; k < 2; k++) {
		tl_union_iter it;
		int64_t s, e;
		union_iter_init(&it, r, kinds[k], step, lo, hi);
		while (union_iter_next(&it, &s, &e)) {
			ival x = {s, e};
			VEC_PUSH(b, nb, bcap, x);
		}
		union_iter_done(&it);
	}
	if (nb > 1)
		qsort(b, nb, sizeof *b, cmp_ival);
	/* sweep the memcpy union against the busy union */
	size_t j = 0;
	int64_t cur_s = m[0].s, cur_e = m[0].e;
	for (size_t i = 1; i <= nm; i++) {
		if (i < nm && m[i].s <= cur_e) {
			if (m[i].e > cur_e)
				cur_e = m[i].e;
			continue;
		}
		/* [cur_s, cur_e) minus the busy intervals */
		int64_t p = cur_s;
		while (j < nb && b[j].e <= p)
			j++;
		for (size_t q = j; q < nb && b[q].s < cur_e && p < cur_e; q++) {
			if (b[q].s > p)
				*not_overlapped += b[q].s - p;
			if (b[q].e > p)
				p = b[q].e;
		}
		if (p < cur_e)
			*not_overlapped += cur_e - p;
		if (i < nm) {
			cur_s = m[i].s;
			cur_e = m[i].e;
		}
	}
	free(m);
	free(b);
}

int
timesplit_collective(const tl_coll *c, int rank, int64_t *transmit, int64_t *wait)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->ranks[i].rank == rank) {
			*transmit = c->min_elapse;
			*wait = c->ranks[i].end - c->ranks[i].arrive - c->min_elapse;
			return 0;
		}
	return -1;
}
