#include "config.h"
#include "analysis/timesplit.h"
#include "util/satint.h"
#include "util/sort.h"
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

/* A busy lane (compute or communication) as the exposure walk reads it: p only moves forward. */
typedef struct busy_lane {
	const tl_track *t;
	size_t p;
	tl_step_cursor sc; /* its step tags at p */
} busy_lane;

/* The first slice of t at p or after that ends after x. A track's slices do not overlap, so
 * their ends are sorted: doubling steps from p, then halving, cost the log of the distance
 * moved, and a walk over many points of one step stays near the slices it needs. */
static size_t
first_ending_after_from(const tl_track *t, size_t p, int64_t x)
{
	if (p >= t->n || track_end(t, p) > x)
		return p;
	size_t lo = p, step = 1; /* v[lo] ends at or before x */
	while (step < t->n - lo && track_end(t, lo + step) <= x) {
		lo += step;
		step *= 2;
	}
	size_t hi = step < t->n - lo ? lo + step : t->n; /* hi = n, or v[hi] ends after x */
	lo++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track_end(t, mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The time of [s, e) that no slice of step (TL_NO_STEP: any) on the lanes covers. Starting at
 * s, the point x jumps to the furthest end of the slices that cover it, or, when none does, to
 * the next start (that stretch is exposed): a step per slice inside [s, e), nothing outside
 * it. The lanes' positions must not be past [s, e) (calls go by start). */
static int64_t
exposed_in(busy_lane *l, size_t nl, uint16_t step, int64_t s, int64_t e)
{
	int64_t x = s, out = 0;
	while (x < e) {
		int64_t reach = x, next = e;
		for (size_t k = 0; k < nl; k++) {
			const tl_track *t = l[k].t;
			size_t p = first_ending_after_from(t, l[k].p, x);
			if (step != TL_NO_STEP && track_has_steps(t))
				p = step_cursor_next(&l[k].sc, p, step, e);
			l[k].p = p;
			if (p >= t->n || t->v[p].start >= e)
				continue;
			if (t->v[p].start <= x) {
				int64_t pe = track_end(t, p);
				if (pe > reach)
					reach = pe;
			} else if (t->v[p].start < next) {
				next = t->v[p].start;
			}
		}
		if (reach > x) {
			x = reach;
		} else {
			out += next - x;
			x = next;
		}
	}
	return out;
}

/* The time of the disjoint intervals m[0 .. nm) (by start) no compute or communication slice
 * of step covers. The walk touches only the slices that meet the intervals (and, between two
 * intervals, a search per lane), not every busy slice from the first interval to the last. */
static int64_t
exposed(const tl_rank *r, uint16_t step, const ival *m, size_t nm)
{
	size_t nl = 0;
	for (size_t k = 0; k < r->ntracks; k++)
		nl += r->tracks[k]->kind == TL_LANE_COMPUTE || r->tracks[k]->kind == TL_LANE_COMM;
	busy_lane *l = xcalloc(nl ? nl : 1, sizeof *l);
	nl = 0;
	for (size_t k = 0; k < r->ntracks; k++)
		if (r->tracks[k]->kind == TL_LANE_COMPUTE || r->tracks[k]->kind == TL_LANE_COMM) {
			l[nl] = (busy_lane){r->tracks[k], 0, {0}};
			step_cursor_init(&l[nl++].sc, r->tracks[k]);
		}
	int64_t out = 0;
	for (size_t i = 0; i < nm; i++)
		out += exposed_in(l, nl, step, m[i].s, m[i].e);
	free(l);
	return out;
}

/* Merges the intervals m[0 .. nm) into their union, in place; returns its count. */
static size_t
merge(ival *m, size_t nm)
{
	sort_unless_sorted(m, nm, sizeof *m, cmp_ival);
	size_t nu = 0;
	for (size_t i = 0; i < nm; i++) {
		if (nu > 0 && m[i].s <= m[nu - 1].e) {
			if (m[i].e > m[nu - 1].e)
				m[nu - 1].e = m[i].e;
		} else {
			m[nu++] = m[i];
		}
	}
	return nu;
}

/* Memory lanes whose slices carry the step of their launch (a Kineto trace's gpu_memcpy and
 * gpu_memset): HolisticTraceAnalysis' memory category, the union of the step's copies and
 * sets, and the part of it its compute and communication leave uncovered. Returns 0 when the
 * rank has no such lane. */
static int
memory_by_launch(const tl_rank *r, uint16_t step, int64_t *memory, int64_t *not_overlapped)
{
	int tagged = 0;
	ival *m = NULL;
	size_t nm = 0, cap = 0;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_MEMCPY || !track_has_steps(t))
			continue;
		tagged = 1;
		tl_step_cursor sc;
		step_cursor_init(&sc, t);
		for (size_t i = 0; i < t->n;) {
			size_t e = t->n; /* the run of the step's slices from i (the other steps'
			                    runs skipped whole, not read a slice at a time) */
			if (step != TL_NO_STEP) {
				i = step_cursor_next(&sc, i, step, INT64_MAX);
				if (i >= t->n)
					break;
				e = step_cursor_run_end(&sc, i, step);
			}
			for (; i < e; i++)
				if (track_end(t, i) > t->v[i].start) {
					ival x = {t->v[i].start, track_end(t, i)};
					VEC_PUSH(m, nm, cap, x);
				}
		}
	}
	if (nm > 0) {
		size_t nu = merge(m, nm);
		for (size_t i = 0; i < nu; i++)
			*memory = sat_add(*memory, m[i].e - m[i].s);
		*not_overlapped = exposed(r, step, m, nu);
	}
	free(m);
	return tagged;
}

void
timesplit_memory(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, int64_t *memory,
                 int64_t *not_overlapped)
{
	*memory = *not_overlapped = 0;
	if (memory_by_launch(r, step, memory, not_overlapped))
		return;
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
				*memory = sat_add(*memory, track_dur(t, i));
				ival x = {t->v[i].start, track_end(t, i)};
				VEC_PUSH(m, nm, cap, x);
			}
	}
	if (nm == 0)
		return;
	size_t nu = merge(m, nm); /* the memcpys' union */
	*not_overlapped = exposed(r, step, m, nu);
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
