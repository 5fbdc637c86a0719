/* Queries over one track or one rank in a window of time: busy time, the slices in view, the
 * screen columns of a lane, slice navigation and the overlap breakdown. */
#include "config.h"
#include "analysis/lanes.h"
#include "model/lod.h"
#include "query/query.h"
#include "util/satint.h"
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

/* The busy time in [t0, t1) of the slices [a, b) that tlq_window gave for it. */
static int64_t
busy_window(const tl_track *t, int64_t t0, int64_t t1, size_t a, size_t b)
{
	if (a >= b)
		return 0;
	int64_t busy = 0;
	if (t->lod != NULL) {
		busy = lod_busy(t->lod, t, a, b);
	} else { /* a track no session prepared (see query.h) */
		for (size_t i = a; i < b; i++)
			busy = sat_add(busy, track_dur(t, i));
	}
	/* clip the first and last slice to the window */
	if (t->v[a].start < t0)
		busy -= t0 - t->v[a].start;
	int64_t last = track_end(t, b - 1);
	if (last > t1)
		busy -= last - (t->v[b - 1].start > t1 ? t->v[b - 1].start : t1);
	return busy;
}

int64_t
tlq_busy(const tl_track *t, int64_t t0, int64_t t1)
{
	if (t->n == 0 || t1 <= t0)
		return 0;
	size_t a, b;
	tlq_window(t, t0, t1, &a, &b);
	return busy_window(t, t0, t1, a, b);
}

/* ---- a frame's columns: one search per edge --------------------------------------------- */

/* A frame's columns share their edges, and on a lane whose slices are sorted by start and do
 * not overlap, tlq_window's first slice at x follows from the search of its last one at x (j,
 * the first slice starting at or after x): every slice before j - 1 ends by the start of j - 1,
 * before x; so it is j - 1 when that one ends after x, else j, or past the zero-length slices
 * at x that follow. A frame then makes one search per edge, not two per column (or four:
 * tlq_busy's window, then tlq_window's again), and each edge's search starts from the last
 * one's answer (see starting_at): on a warm open the lane is a mapped cache file, and every
 * probe of a page not read yet is a page fault, every probe of one not in the cache a miss. */
static size_t
ending_after_from(const tl_track *t, int64_t x, size_t j)
{
	if (j > 0 && track_end(t, j - 1) > x)
		return j - 1;
	if (j < t->n && track_end(t, j) <= x) /* zero-length slices at x: (rare) the whole search */
		return track_first_ending_after(t, x);
	return j;
}

/* track_first_starting_at(t, x) by interpolation: a lane's slices are spread over its time
 * about evenly at the scale of a column, so the slice at x is looked for where x falls between
 * two known starts, and a probe GUARD slices further on brackets it; where that fails, a probe
 * halfway keeps the search within O(log n) probes (three per halving at most). The same answer
 * as the binary search's, in a few probes of one or two pages instead of one page per level. */
#define GUARD 32

/* The answer in (il, ih], where v[il].start < x <= v[ih].start. */
static size_t
interp_between(const tl_track *t, int64_t x, size_t il, size_t ih)
{
	int64_t al = t->v[il].start, ah = t->v[ih].start;
	while (ih - il > 1) {
		size_t span = ih - il;
		/* al < x <= ah: 0 < f <= 1, and f * span is a valid index offset */
		double f = (double)(x - al) / (double)(ah - al);
		size_t p = il + (size_t)(f * (double)span);
		if (p <= il)
			p = il + 1;
		if (p >= ih)
			p = ih - 1;
		for (int k = 0; k < 3 && ih - il > 1; k++) {
			if (k == 1) { /* the guard, beyond the probe on its side */
				if (p == il)
					p = il + GUARD < ih ? il + GUARD : ih - 1;
				else
					p = ih > il + GUARD ? ih - GUARD : il + 1;
			} else if (k == 2) { /* not halved: halfway */
				if (ih - il > span / 2)
					p = il + (ih - il) / 2;
				else
					break;
			}
			if (t->v[p].start < x)
				il = p, al = t->v[p].start;
			else
				ih = p, ah = t->v[p].start;
		}
	}
	return ih;
}

static size_t
interp_starting_at(const tl_track *t, int64_t x)
{
	size_t n = t->n;
	if (n == 0 || t->v[0].start >= x)
		return 0;
	if (t->v[n - 1].start < x)
		return n;
	return interp_between(t, x, 0, n - 1);
}

/* track_first_starting_at(t, x) when every slice before lo starts before x (lo > 0), the
 * answer guessed at guess: a probe there, then probes GUARD, 2 GUARD, 4 GUARD ... slices
 * away on the side the answer lies until one passes it, then the search between. A guess
 * near the answer touches one or two pages of the lane. */
static size_t
seek_near(const tl_track *t, int64_t x, size_t lo, size_t guess)
{
	size_t n = t->n;
	if (lo >= n)
		return n;
	if (t->v[lo].start >= x)
		return lo;
	if (t->v[n - 1].start < x)
		return n;
	/* v[lo].start < x <= v[n - 1].start */
	size_t il = lo, ih = n - 1;
	size_t p = guess <= il ? il + 1 : guess >= ih ? ih - 1 : guess;
	if (p <= il || p >= ih)
		return interp_between(t, x, il, ih);
	size_t step = GUARD;
	if (t->v[p].start < x) { /* up from the guess */
		il = p;
		while (ih - il > step) {
			size_t q = il + step;
			if (t->v[q].start >= x) {
				ih = q;
				break;
			}
			il = q;
			step *= 2;
		}
	} else { /* down from it */
		ih = p;
		while (ih - il > step) {
			size_t q = ih - step;
			if (t->v[q].start < x) {
				il = q;
				break;
			}
			ih = q;
			step *= 2;
		}
	}
	return interp_between(t, x, il, ih);
}

/* track_first_starting_at(t, x), remembered for the next edge: the last two searches' x and
 * answer j. Edges ascend, so the next answer is at or after the last, and is guessed at the
 * rate (slices per ns) between the last two: a lane's density changes little from one column
 * to the next, so the guess is near (at 16 ranks x 8 M slices zoomed out, where a column holds
 * tens of thousands of slices, about a third of the guesses were exact and most within a
 * thousand slices) and the search reads a few pages where one from the lane's ends read a page
 * per probe (a frame's searches went from 10 ms to 2 ms). An edge behind the last one (they
 * may repeat or, clamped, go back) searches the whole lane. */
typedef struct edge_seek {
	int have;
	int64_t x, px;
	size_t j, pj;
} edge_seek;

static size_t
starting_at(edge_seek *s, const tl_track *t, int64_t x)
{
	if (s->have && s->x == x)
		return s->j;
	size_t j;
	if (s->have && x > s->x && s->j > 0) {
		size_t guess = s->j;
		if (s->have > 1 && s->x > s->px && s->j >= s->pj) {
			double g = (double)(s->j - s->pj) * ((double)x - (double)s->x) /
			           ((double)s->x - (double)s->px);
			guess = g < (double)(t->n - s->j) ? s->j + (size_t)g : t->n;
		}
		j = seek_near(t, x, s->j - 1, guess);
	} else {
		j = interp_starting_at(t, x);
	}
	s->px = s->x, s->pj = s->j;
	s->x = x, s->j = j;
	s->have = s->have < 2 ? s->have + 1 : 2;
	return j;
}

/* The clipped length of slice i of t in [c0, c1). */
static int64_t
visible(const tl_track *t, size_t i, int64_t c0, int64_t c1)
{
	int64_t s = t->v[i].start, se = track_end(t, i);
	int64_t a = s > c0 ? s : c0, e = se < c1 ? se : c1;
	return e - a;
}

size_t
tlq_dominant(const tl_track *t, int64_t c0, int64_t c1, size_t a, size_t b)
{
	if (a >= b)
		return SIZE_MAX;
	/* Slices strictly between the first and the last lie whole inside [c0, c1) (they are
	 * sorted and do not overlap): the longest of them is the level of detail's answer; the
	 * first and the last are clipped by hand. The first of equals wins, as in a scan. */
	size_t best = a;
	int64_t bestv = visible(t, a, c0, c1);
	if (b - a > 2) {
		int64_t d = -1;
		size_t i = SIZE_MAX;
		if (t->lod != NULL) {
			i = lod_longest(t->lod, t, a + 1, b - 1, &d);
		} else { /* a track no session prepared (see query.h) */
			for (size_t k = a + 1; k < b - 1; k++)
				if (track_dur(t, k) > d)
					d = track_dur(t, k), i = k;
		}
		if (d > bestv)
			bestv = d, best = i;
	}
	if (b - a > 1 && visible(t, b - 1, c0, c1) > bestv)
		best = b - 1;
	return best;
}

static void
columns_edges(const tl_track *t, const int64_t *edges, int ncols, tl_cell *out, int longest)
{
	edge_seek e = {0};
	for (int c = 0; c < ncols; c++) {
		int64_t c0 = edges[c], c1 = edges[c + 1];
		if (c1 <= c0)
			c1 = c0 + 1;
		/* tlq_window's */
		size_t z = starting_at(&e, t, c0), a = ending_after_from(t, c0, z);
		size_t b = starting_at(&e, t, c1);
		if (b < a)
			b = a;
		out[c].busy = t->n == 0 ? 0 : busy_window(t, c0, c1, a, b);
		out[c].dominant = SIZE_MAX;
		out[c].count = 0;
		if (a == b) { /* a zero-length slice (a mark) at c0 */
			if (z < t->n && t->v[z].start < c1)
				a = z, b = z + 1;
		}
		if (a >= b)
			continue;
		out[c].count = b - a > UINT32_MAX ? UINT32_MAX : (uint32_t)(b - a);
		out[c].dominant = longest || b - a < 2 ? tlq_dominant(t, c0, c1, a, b) : a;
	}
}

void
tlq_columns_edges(const tl_track *t, const int64_t *edges, int ncols, tl_cell *out)
{
	columns_edges(t, edges, ncols, out, 1);
}

void
tlq_columns_draw(const tl_track *t, const int64_t *edges, int ncols, tl_cell *out)
{
	columns_edges(t, edges, ncols, out, 0);
}

void
tlq_columns(const tl_track *t, int64_t t0, int64_t t1, int ncols, tl_cell *out)
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
tlq_busy_columns(const tl_track *t, const int64_t *edges, int ncols, int64_t *out)
{
	edge_seek e = {0};
	for (int c = 0; c < ncols; c++) {
		int64_t c0 = edges[c], c1 = edges[c + 1];
		out[c] = 0;
		if (t == NULL || t->n == 0 || c1 <= c0)
			continue;
		/* tlq_busy's */
		size_t a = ending_after_from(t, c0, starting_at(&e, t, c0));
		size_t b = starting_at(&e, t, c1);
		out[c] = busy_window(t, c0, c1, a, b < a ? a : b);
	}
}

size_t
tlq_slice_at(const tl_track *t, int64_t x)
{
	size_t i = track_first_ending_after(t, x);
	if (i < t->n && t->v[i].start <= x)
		return i;
	/* zero-length slices end at their start: look for one exactly at x */
	size_t z = track_first_starting_at(t, x);
	if (z < t->n && t->v[z].start == x && track_end(t, z) == x)
		return z;
	return SIZE_MAX;
}

size_t
tlq_slice_next(const tl_track *t, int64_t x, int dir)
{
	if (dir > 0) {
		size_t i = x == INT64_MAX ? t->n : track_first_starting_at(t, x + 1);
		return i < t->n ? i : SIZE_MAX;
	}
	size_t i = track_first_starting_at(t, x);
	return i > 0 ? i - 1 : SIZE_MAX;
}

const tl_slice *
tlq_enclosing(const tl_rank *r, tl_lane_kind kind, int64_t x)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != kind || t->depth != 0)
			continue;
		size_t k = tlq_slice_at(t, x);
		if (k != SIZE_MAX)
			return &t->v[k];
	}
	return NULL;
}

int
tlq_mstx_other_part(const tl_rank *r, const tl_track *t, size_t idx, tl_span *out)
{
	if (idx >= t->n)
		return 0;
	if (t->kind == TL_LANE_MSTX) {
		if (t->dev == NULL || t->dev[idx].end < t->dev[idx].start)
			return 0;
		*out = t->dev[idx];
		return 1;
	}
	if (t->kind != TL_LANE_MSTX_DEV)
		return 0;
	const tl_slice *d = &t->v[idx];
	for (size_t i = 0; i < r->ntracks; i++) { /* one look-up, for the detail pane */
		const tl_track *m = r->tracks[i];
		if (m->kind != TL_LANE_MSTX || m->dev == NULL)
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (m->dev[k].start == d->start && m->dev[k].end == slice_end(t, d)) {
				*out = (tl_span){m->v[k].start, track_end(m, k)};
				return 1;
			}
	}
	return 0;
}

const tl_track *
tlq_overlap_lane(const tl_rank *r, int key)
{
	return lanes_overlap_track(r, key);
}

const char *
tlq_overlap_lane_name(int key)
{
	return lanes_overlap_name(key);
}

void
tlq_overlap(const tl_rank *r, int64_t t0, int64_t t1, tl_overlap *out)
{
	if (r->own_overlap && lanes_overlap(r, t0, t1, INT64_MIN, out) == 0)
		return; /* the profile's own analysis (its Free spans the tasks) */
	overlap_compute(r, TL_NO_STEP, t0, t1, INT64_MIN, out);
}

int64_t
tlq_kind_busy(const tl_rank *r, tl_lane_kind kind, int64_t t0, int64_t t1)
{
	int64_t sum = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind) {
			int64_t b = tlq_busy(r->tracks[i], t0, t1);
			sum = sat_add(sum, b);
		}
	return sum;
}

/* The end of the run of tag s in [j, n) of the cursor's track: a run of the track's at a time, or
 * where it keeps a tag per slice, four tags a word while all four are s (a step's run is its
 * thousands of slices), then one at a time. The cursor goes forward. */
static size_t
run_end(tl_step_cursor *sc, size_t j, size_t n, uint16_t s)
{
	const uint16_t *tag = sc->t->step;
	if (tag == NULL) {
		while (j < n && step_cursor_at(sc, j) == s)
			j = sc->hi < n ? sc->hi : n;
		return j;
	}
	const uint64_t four = s * UINT64_C(0x0001000100010001);
	for (uint64_t w; j + 4 <= n; j += 4) {
		memcpy(&w, tag + j, sizeof w);
		if (w != four)
			break;
	}
	while (j < n && tag[j] == s)
		j++;
	return j;
}

/* Whether every compute and communication slice that meets [t0, t1) belongs to step (or to no
 * step's filter: lanes without step tags count in every step), so that the work of the step
 * there is all the work there, and the overlap lanes answer for it. Zero-length slices add no
 * time to either. A read of the step tags only (the runs of step four to a word), no union. */
static int
step_alone(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if ((t->kind != TL_LANE_COMPUTE && t->kind != TL_LANE_COMM) || !track_has_steps(t))
			continue;
		size_t a = track_first_ending_after(t, t0), b = track_first_starting_at(t, t1);
		tl_step_cursor sc;
		step_cursor_init(&sc, t);
		for (size_t k = run_end(&sc, a, b, step); k < b; k = run_end(&sc, k + 1, b, step))
			if (track_end(t, k) > t->v[k].start)
				return 0;
	}
	return 1;
}

size_t
tlq_step_overlaps(const tl_rank *r, tl_step_overlap **out)
{
	if (r->nsteps == 0) {
		*out = xcalloc(1, sizeof **out);
		(*out)[0].step_id = -1;
		if (lanes_overlap(r, INT64_MIN, INT64_MAX, INT64_MIN, &(*out)[0].o) != 0)
			overlap_compute(r, TL_NO_STEP, INT64_MIN, INT64_MAX, INT64_MIN,
			                &(*out)[0].o);
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
		if ((t->kind != TL_LANE_COMPUTE && t->kind != TL_LANE_COMM) || !track_has_steps(t))
			continue;
		/* a track's slices do not overlap: in a run of slices of one step the first starts
		 * first and the last ends last, so only the tags are read through */
		tl_step_cursor sc;
		step_cursor_init(&sc, t);
		for (size_t k = 0; k < t->n;) {
			uint16_t s = step_cursor_at(&sc, k);
			size_t j = run_end(&sc, k + 1, t->n, s);
			if (s != TL_NO_STEP && s < r->nsteps) {
				if (t->v[k].start < lo[s])
					lo[s] = t->v[k].start;
				if (track_end(t, j - 1) > hi[s])
					hi[s] = track_end(t, j - 1);
			}
			k = j;
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
		/* (the profile's own lanes, own_overlap, count Free inside the window: the
		 * nanosecond past the work that lets a zero-length slice at its end in would be
		 * free; their lanes have no zero-length interval) */
		if (step_alone(r, (uint16_t)k, lo[k], hi[k] + 1) &&
		    lanes_overlap(r, lo[k], r->own_overlap ? hi[k] : hi[k] + 1, r->steps[k].start,
		                  &so->o) == 0)
			continue;
		overlap_compute(r, (uint16_t)k, lo[k], hi[k] + 1, r->steps[k].start, &so->o);
	}
	free(lo);
	free(hi);
	return r->nsteps;
}
