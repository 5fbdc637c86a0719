#include "config.h"
#include "query/query.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void
tlq_window(const tl_track *t, int64_t t0, int64_t t1, size_t *first, size_t *last)
{
	*first = track_first_ending_after(t, t0);
	*last = track_first_starting_at(t, t1);
	if (*last < *first)
		*last = *first;
}

int64_t
tlq_busy(tl_track *t, int64_t t0, int64_t t1)
{
	if (t->n == 0 || t1 <= t0)
		return 0;
	const int64_t *pre = track_prefix(t);
	size_t a, b;
	tlq_window(t, t0, t1, &a, &b);
	if (a >= b)
		return 0;
	int64_t busy = pre[b] - pre[a];
	/* clip the first and last slice to the window */
	if (t->v[a].start < t0)
		busy -= t0 - t->v[a].start;
	if (t->v[b - 1].end > t1)
		busy -= t->v[b - 1].end - (t->v[b - 1].start > t1 ? t->v[b - 1].start : t1);
	return busy;
}

void
tlq_columns_edges(tl_track *t, const int64_t *edges, int ncols, tl_cell *out)
{
	for (int c = 0; c < ncols; c++) {
		int64_t c0 = edges[c], c1 = edges[c + 1];
		if (c1 <= c0)
			c1 = c0 + 1;
		out[c].busy = tlq_busy(t, c0, c1);
		out[c].dominant = SIZE_MAX;
		out[c].count = 0;
		size_t a, b;
		tlq_window(t, c0, c1, &a, &b);
		if (a == b) { /* a zero-length slice (a mark) at c0 */
			size_t z = track_first_starting_at(t, c0);
			if (z < t->n && t->v[z].start < c1)
				a = z, b = z + 1;
		}
		if (a >= b)
			continue;
		out[c].count = b - a > UINT32_MAX ? UINT32_MAX : (uint32_t)(b - a);
		/* dominant: the longest visible part among a bounded sample (first, last and up to
		 * 64 in between) so that a column stays O(log n) */
		size_t step = (b - a) > 64 ? (b - a) / 64 : 1, best = a;
		int64_t bestv = -1;
		for (size_t i = a; i < b; i += step) {
			int64_t s = t->v[i].start > c0 ? t->v[i].start : c0;
			int64_t e = t->v[i].end < c1 ? t->v[i].end : c1;
			if (e - s > bestv) {
				bestv = e - s;
				best = i;
			}
		}
		{
			size_t i = b - 1;
			int64_t s = t->v[i].start > c0 ? t->v[i].start : c0;
			int64_t e = t->v[i].end < c1 ? t->v[i].end : c1;
			if (e - s > bestv)
				best = i;
		}
		out[c].dominant = best;
	}
}

void
tlq_columns(tl_track *t, int64_t t0, int64_t t1, int ncols, tl_cell *out)
{
	if (ncols <= 0)
		return;
	int64_t *edges = xmalloc(((size_t)ncols + 1) * sizeof *edges);
	double w = (double)(t1 - t0) / ncols;
	for (int c = 0; c < ncols; c++)
		edges[c] = t0 + (int64_t)(w * c);
	edges[ncols] = t1;
	tlq_columns_edges(t, edges, ncols, out);
	free(edges);
}

void
tlq_overlap(const tl_rank *r, int64_t t0, int64_t t1, tl_overlap *out)
{
	overlap_compute(r, TL_NO_STEP, t0, t1, INT64_MIN, out);
}

int64_t
tlq_kind_busy(const tl_rank *r, tl_lane_kind kind, int64_t t0, int64_t t1)
{
	int64_t sum = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind) {
			int64_t b = tlq_busy(r->tracks[i], t0, t1);
			sum = b > INT64_MAX - sum ? INT64_MAX : sum + b; /* saturates: crafted times */
		}
	return sum;
}

size_t
tlq_step_overlaps(const tl_rank *r, tl_step_overlap **out)
{
	if (r->nsteps == 0) {
		*out = xcalloc(1, sizeof **out);
		(*out)[0].step_id = -1;
		overlap_compute(r, TL_NO_STEP, INT64_MIN, INT64_MAX, INT64_MIN, &(*out)[0].o);
		return 1;
	}
	/* envelope of the work of each step, so each step scans only its own window */
	int64_t *lo = xmalloc(r->nsteps * sizeof *lo), *hi = xmalloc(r->nsteps * sizeof *hi);
	for (size_t k = 0; k < r->nsteps; k++) {
		lo[k] = INT64_MAX;
		hi[k] = INT64_MIN;
	}
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_COMPUTE && t->kind != TL_LANE_COMM)
			continue;
		for (size_t k = 0; k < t->n; k++) {
			uint16_t s = t->step ? t->step[k] : TL_NO_STEP;
			if (s == TL_NO_STEP || s >= r->nsteps)
				continue;
			if (t->v[k].start < lo[s])
				lo[s] = t->v[k].start;
			if (t->v[k].end > hi[s])
				hi[s] = t->v[k].end;
		}
	}
	*out = xcalloc(r->nsteps, sizeof **out);
	for (size_t k = 0; k < r->nsteps; k++) {
		tl_step_overlap *so = &(*out)[k];
		so->step_id = r->steps[k].id;
		so->step_start = r->steps[k].start;
		so->step_end = r->steps[k].end;
		if (lo[k] > hi[k]) {
			memset(&so->o, 0, sizeof so->o);
			so->o.first_busy = INT64_MAX;
			so->o.last_busy = INT64_MIN;
			continue;
		}
		overlap_compute(r, (uint16_t)k, lo[k], hi[k] + 1, r->steps[k].start, &so->o);
	}
	free(lo);
	free(hi);
	return r->nsteps;
}
