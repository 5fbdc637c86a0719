#include "config.h"
#include "analysis/overlap.h"
#include "util/xalloc.h"

#include <stdlib.h>

void
union_iter_init(tl_union_iter *it, const tl_rank *r, tl_lane_kind kind, uint16_t step, int64_t t0,
                int64_t t1)
{
	it->ntracks = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind)
			it->ntracks++;
	it->tracks = xcalloc(it->ntracks ? it->ntracks : 1, sizeof *it->tracks);
	it->pos = xcalloc(it->ntracks ? it->ntracks : 1, sizeof *it->pos);
	it->sc = xcalloc(it->ntracks ? it->ntracks : 1, sizeof *it->sc);
	it->ok = xcalloc(it->ntracks ? it->ntracks : 1, sizeof *it->ok);
	size_t k = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind) {
			it->tracks[k] = r->tracks[i];
			it->pos[k] = track_first_ending_after(r->tracks[i], t0);
			step_cursor_init(&it->sc[k], r->tracks[i]);
			/* no filter: every slice passes */
			it->ok[k] =
			    step == TL_NO_STEP || !track_has_steps(r->tracks[i]) ? SIZE_MAX : 0;
			k++;
		}
	it->step = step;
	it->t0 = t0;
	it->t1 = t1;
	it->have_cur = 0;
	it->done = 0;
	it->run = SIZE_MAX;
}

void
union_iter_done(tl_union_iter *it)
{
	free(it->tracks);
	free(it->pos);
	free(it->sc);
	free(it->ok);
	it->tracks = NULL;
	it->pos = NULL;
	it->sc = NULL;
	it->ok = NULL;
}

/* Track k's position past the slices of other steps than the filter's, once p is past the run of
 * the step found last (next_slice compares p with it->ok[k] first). */
static size_t
filtered_pos(tl_union_iter *it, size_t k)
{
	size_t p = step_cursor_next(&it->sc[k], it->pos[k], it->step, it->t1);
	it->ok[k] = step_cursor_run_end(&it->sc[k], p, it->step);
	it->pos[k] = p;
	return p;
}

/* The next slice (by start) over all tracks that passes the step filter, clipped. */
static int
next_slice(tl_union_iter *it, int64_t *s, int64_t *e)
{
	for (;;) {
		size_t best = SIZE_MAX;
		int64_t bs = INT64_MAX;
		if (it->run < it->ntracks) {
			/* the track of the last slice goes on while its slices start before every
			 * other track's next one: no scan of all tracks per slice (equal starts go
			 * through the scan; their order does not change the union) */
			const tl_track *t = it->tracks[it->run];
			size_t p = it->pos[it->run];
			if (p >= it->ok[it->run])
				p = filtered_pos(it, it->run);
			if (p < t->n && t->v[p].start < it->run_lim && t->v[p].start < it->t1)
				best = it->run;
		}
		if (best == SIZE_MAX) {
			int64_t second = INT64_MAX;
			for (size_t i = 0; i < it->ntracks; i++) {
				const tl_track *t = it->tracks[i];
				size_t p = it->pos[i];
				if (p >= it->ok[i])
					p = filtered_pos(it, i);
				if (p < t->n && t->v[p].start < it->t1) {
					if (t->v[p].start < bs) {
						second = bs;
						bs = t->v[p].start;
						best = i;
					} else if (t->v[p].start < second) {
						second = t->v[p].start;
					}
				}
			}
			it->run = best;
			it->run_lim = second;
		}
		if (best == SIZE_MAX)
			return 0;
		const tl_track *bt = it->tracks[best];
		const tl_slice *sl = &bt->v[it->pos[best]++];
		int64_t a = sl->start < it->t0 ? it->t0 : sl->start, se = slice_end(bt, sl);
		int64_t b = se > it->t1 ? it->t1 : se;
		if (b <= a)
			continue; /* zero-length (or clipped away): adds no time */
		*s = a;
		*e = b;
		return 1;
	}
}

int
union_iter_next(tl_union_iter *it, int64_t *s, int64_t *e)
{
	if (it->done)
		return 0;
	int64_t a, b;
	for (;;) {
		if (!next_slice(it, &a, &b)) {
			it->done = 1;
			if (!it->have_cur)
				return 0;
			*s = it->cur_s;
			*e = it->cur_e;
			it->have_cur = 0;
			return 1;
		}
		if (!it->have_cur) {
			it->cur_s = a;
			it->cur_e = b;
			it->have_cur = 1;
		} else if (a <= it->cur_e) { /* touching or overlapping: merge */
			if (b > it->cur_e)
				it->cur_e = b;
		} else {
			*s = it->cur_s;
			*e = it->cur_e;
			it->cur_s = a;
			it->cur_e = b;
			return 1;
		}
	}
}

void
overlap_compute(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, int64_t prep_from,
                tl_overlap *o)
{
	tl_union_iter ci, mi;
	union_iter_init(&ci, r, TL_LANE_COMPUTE, step, t0, t1);
	union_iter_init(&mi, r, TL_LANE_COMM, step, t0, t1);
	int64_t cs = 0, ce = 0, ms = 0, me = 0;
	int hc = union_iter_next(&ci, &cs, &ce);
	int hm = union_iter_next(&mi, &ms, &me);
	int64_t comp = 0, comm = 0, inter = 0;
	int64_t first = INT64_MAX, last = INT64_MIN;
	if (hc)
		first = cs;
	if (hm && ms < first)
		first = ms;
	/* two-pointer sweep over the two sorted disjoint unions */
	int64_t comp_done_to = INT64_MIN, comm_done_to = INT64_MIN;
	while (hc || hm) {
		if (hc && cs >= comp_done_to) {
			comp += ce - cs;
			comp_done_to = ce;
			if (ce > last)
				last = ce;
		}
		if (hm && ms >= comm_done_to) {
			comm += me - ms;
			comm_done_to = me;
			if (me > last)
				last = me;
		}
		if (hc && hm) {
			int64_t a = cs > ms ? cs : ms, b = ce < me ? ce : me;
			if (b > a)
				inter += b - a;
			if (ce < me)
				hc = union_iter_next(&ci, &cs, &ce);
			else
				hm = union_iter_next(&mi, &ms, &me);
		} else if (hc) {
			hc = union_iter_next(&ci, &cs, &ce);
		} else {
			hm = union_iter_next(&mi, &ms, &me);
		}
	}
	union_iter_done(&ci);
	union_iter_done(&mi);
	o->computing = comp;
	o->communication = comm;
	o->overlapped = inter;
	o->comm_not_overlapped = comm - inter;
	o->first_busy = first;
	o->last_busy = last;
	if (first <= last) {
		/* |C u M| = comp + (comm - inter), which fits: it lies within [first, last]
		 * (comp + comm alone may not, for times far apart) */
		o->free = (last - first) - (comp + (comm - inter));
		o->preparing = prep_from != INT64_MIN ? first - prep_from : 0;
	} else {
		o->free = 0;
		o->preparing = 0;
	}
}
