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

/* The busy intervals (compute, then communication: each list by start, disjoint) of step in
 * [t0, t1], merged into one list by start (malloc'd, *n of them). */
static ival *
busy_in(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, size_t *n)
{
	ival *v[2] = {NULL, NULL};
	size_t nv[2] = {0, 0}, cap[2] = {0, 0};
	static const tl_lane_kind kinds[] = {TL_LANE_COMPUTE, TL_LANE_COMM};
	for (int k = 0; k < 2; k++) {
		tl_union_iter it;
		int64_t s, e;
		union_iter_init(&it, r, kinds[k], step, t0, t1);
		while (union_iter_next(&it, &s, &e)) {
			ival x = {s, e};
			VEC_PUSH(v[k], nv[k], cap[k], x);
		}
		union_iter_done(&it);
	}
	ival *b = xreallocarray(NULL, nv[0] + nv[1] + 1, sizeof *b);
	size_t i = 0, j = 0, o = 0;
	while (i < nv[0] || j < nv[1])
		b[o++] =
		    j >= nv[1] || (i < nv[0] && v[0][i].s <= v[1][j].s) ? v[0][i++] : v[1][j++];
	free(v[0]);
	free(v[1]);
	*n = o;
	return b;
}

/* The time of the disjoint intervals m[0 .. nm) (by start) that b[0 .. nb) (by start, may
 * overlap each other) does not cover. */
static int64_t
minus(const ival *m, size_t nm, const ival *b, size_t nb)
{
	int64_t out = 0;
	size_t j = 0;
	for (size_t i = 0; i < nm; i++) {
		int64_t p = m[i].s, end = m[i].e;
		while (j < nb && b[j].e <= p)
			j++;
		for (size_t q = j; q < nb && b[q].s < end && p < end; q++) {
			if (b[q].s > p)
				out += b[q].s - p;
			if (b[q].e > p)
				p = b[q].e;
		}
		if (p < end)
			out += end - p;
	}
	return out;
}

/* The time of [s, e) no busy slice of step covers. */
static int64_t
uncovered(const tl_rank *r, uint16_t step, int64_t s, int64_t e)
{
	size_t nb;
	ival *b = busy_in(r, step, s, e, &nb);
	ival m = {s, e};
	int64_t out = minus(&m, 1, b, nb);
	free(b);
	return out;
}

/* The same of every m[0 .. nm), in one sweep over the busy slices from the first to the
 * last. */
static int64_t
uncovered_sweep(const tl_rank *r, uint16_t step, const ival *m, size_t nm)
{
	size_t nb;
	ival *b = busy_in(r, step, m[0].s, m[nm - 1].e, &nb);
	int64_t out = minus(m, nm, b, nb);
	free(b);
	return out;
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
	/* the memcpys' union, merged in place */
	size_t nu = 0;
	for (size_t i = 0; i < nm; i++) {
		if (nu > 0 && m[i].s <= m[nu - 1].e) {
			if (m[i].e > m[nu - 1].e)
				m[nu - 1].e = m[i].e;
		} else {
			m[nu++] = m[i];
		}
	}
	/* what compute or communication of the step covers of it: inside each memcpy interval
	 * alone when they are few against the busy slices between the first and the last (a
	 * union per interval: a binary search per lane), else one sweep over all of them */
	size_t nbusy = 0, nlanes = 0;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_COMPUTE && t->kind != TL_LANE_COMM)
			continue;
		nlanes++;
		size_t a = track_first_ending_after(t, m[0].s),
		       z = track_first_starting_at(t, m[nu - 1].e);
		nbusy += z > a ? z - a : 0;
	}
	if (nu * (nlanes + 1) * 16 < nbusy) {
		for (size_t i = 0; i < nu; i++)
			*not_overlapped += uncovered(r, step, m[i].s, m[i].e);
	} else {
		*not_overlapped = uncovered_sweep(r, step, m, nu);
	}
	free(m);
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
