#include "config.h"
#include "analysis/lanes.h"
#include "analysis/overlap.h"
#include "model/lod.h"
#include "util/parallel.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const overlap_names[TL_OVL__COUNT] = {
    "Computing",
    "Communication",
    "Communication(Not Overlapped)",
    "Free",
};

const char *
lanes_overlap_name(int key)
{
	return key >= 0 && key < TL_OVL__COUNT ? overlap_names[key] : "?";
}

tl_track *
lanes_overlap_track(const tl_rank *r, int key)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_OVERLAP && r->tracks[i]->key == key &&
		    r->tracks[i]->depth == 0)
			return r->tracks[i];
	return NULL;
}

/* The busy time of lane t (sorted, disjoint intervals) inside [t0, t1). */
static int64_t
lane_busy(const tl_track *t, int64_t t0, int64_t t1)
{
	if (t == NULL || t1 <= t0)
		return 0;
	size_t a = track_first_ending_after(t, t0), b = track_first_starting_at(t, t1);
	if (a >= b)
		return 0;
	int64_t busy;
	if (t->lod != NULL) {
		busy = lod_busy(t->lod, t, a, b);
	} else {
		busy = 0;
		for (size_t i = a; i < b; i++)
			busy = sat_add(busy, track_dur(t, i));
	}
	if (t->v[a].start < t0)
		busy -= t0 - t->v[a].start;
	int64_t last = track_end(t, b - 1);
	if (last > t1)
		busy -= last - t1;
	return busy;
}

/* The first and the last instant of lane t inside [t0, t1), clipped to it. */
static void
lane_envelope(const tl_track *t, int64_t t0, int64_t t1, int64_t *first, int64_t *last)
{
	if (t == NULL || t1 <= t0)
		return;
	size_t a = track_first_ending_after(t, t0), b = track_first_starting_at(t, t1);
	if (a >= b)
		return;
	int64_t s = t->v[a].start < t0 ? t0 : t->v[a].start;
	int64_t le = track_end(t, b - 1);
	int64_t e = le > t1 ? t1 : le;
	if (s < *first)
		*first = s;
	if (e > *last)
		*last = e;
}

int
lanes_overlap(const tl_rank *r, int64_t t0, int64_t t1, int64_t prep_from, tl_overlap *o)
{
	const tl_track *l[TL_OVL__COUNT] = {NULL};
	int built = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind == TL_LANE_OVERLAP && t->depth == 0 && t->key >= 0 &&
		    t->key < TL_OVL__COUNT) {
			l[t->key] = t;
			built = 1;
		}
	}
	if (!built)
		return -1;
	/* compute and communication are disjoint from communication not overlapped: the union
	 * of both is computing + exposed, and what they share is communication - exposed */
	int64_t comp = lane_busy(l[TL_OVL_COMPUTING], t0, t1);
	int64_t comm = lane_busy(l[TL_OVL_COMMUNICATION], t0, t1);
	int64_t exposed = lane_busy(l[TL_OVL_COMM_EXPOSED], t0, t1);
	int64_t first = INT64_MAX, last = INT64_MIN;
	lane_envelope(l[TL_OVL_COMPUTING], t0, t1, &first, &last);
	lane_envelope(l[TL_OVL_COMMUNICATION], t0, t1, &first, &last);
	o->computing = comp;
	o->communication = comm;
	o->overlapped = comm - exposed;
	o->comm_not_overlapped = exposed;
	o->first_busy = first;
	o->last_busy = last;
	if (r->own_overlap) {
		/* the profile's own Free: it spans the device's tasks, not only the busy time */
		o->free = lane_busy(l[TL_OVL_FREE], t0, t1);
		o->preparing = first <= last && prep_from != INT64_MIN ? first - prep_from : 0;
	} else if (first <= last) {
		o->free = (last - first) - (comp + exposed);
		o->preparing = prep_from != INT64_MIN ? first - prep_from : 0;
	} else {
		o->free = 0;
		o->preparing = 0;
	}
	return 0;
}

/* The lanes are built in two passes over their inputs, the first counting the intervals and the
 * second writing them into an array of exactly that many slices: a growing list (and a copy of
 * it into the lane) would briefly hold up to three times the lane. The lanes are most of the
 * viewer's slices (a Free interval between every two kernels), and while a rank's cache file is
 * written they are its largest part. */

/* Where one pass puts its intervals: out == NULL counts them; with want set, it compares them
 * with want's slices instead (lanes_check_rank), clearing same at the first difference. */
typedef struct sink {
	tl_track *out; /* pushed onto */
	size_t n;
	uint32_t name;
	const tl_track *want;
	int same;
} sink;

static void
sink_put(sink *k, int64_t s, int64_t e)
{
	if (k->want != NULL) {
		const tl_track *w = k->want;
		if (k->n >= w->n || w->v[k->n].start != s || track_end(w, k->n) != e ||
		    w->v[k->n].name != w->label || track_arg(w, k->n) != UINT32_MAX)
			k->same = 0;
	} else if (k->out != NULL) { /* no row id: the interval is no row of a source */
		track_push(k->out, s, e, k->name, UINT32_MAX);
	}
	k->n++;
}

static void
union_collect(const tl_rank *r, tl_lane_kind kind, sink *k)
{
	tl_union_iter it;
	union_iter_init(&it, r, kind, TL_NO_STEP, INT64_MIN, INT64_MAX);
	int64_t s, e;
	while (union_iter_next(&it, &s, &e))
		sink_put(k, s, e);
	union_iter_done(&it);
}

/* The slices of track t (NULL: none). */
static const tl_slice *
ivl_of(const tl_track *t, size_t *n)
{
	*n = t != NULL ? t->n : 0;
	return t != NULL ? t->v : NULL;
}

/* ta minus tb (NULL: empty), both sorted and disjoint */
static void
ivl_subtract(const tl_track *ta, const tl_track *tb, sink *k)
{
	size_t na, nb, j = 0;
	const tl_slice *a = ivl_of(ta, &na), *b = ivl_of(tb, &nb);
	for (size_t i = 0; i < na; i++) {
		int64_t s = a[i].start, e = slice_end(ta, &a[i]);
		while (j < nb && slice_end(tb, &b[j]) <= s)
			j++;
		for (size_t x = j; x < nb && b[x].start < e && s < e; x++) {
			if (b[x].start > s)
				sink_put(k, s, b[x].start);
			int64_t be = slice_end(tb, &b[x]);
			if (be > s)
				s = be;
		}
		if (s < e)
			sink_put(k, s, e);
	}
}

/* gaps of ta ∪ tb (NULL: empty) between the first and the last busy instant */
static void
ivl_gaps(const tl_track *ta, const tl_track *tb, sink *k)
{
	size_t na, nb, i = 0, j = 0;
	const tl_slice *a = ivl_of(ta, &na), *b = ivl_of(tb, &nb);
	int64_t reach = INT64_MIN;
	while (i < na || j < nb) {
		int from_a = j >= nb || (i < na && a[i].start <= b[j].start);
		const tl_track *t = from_a ? ta : tb;
		const tl_slice *x = from_a ? &a[i++] : &b[j++];
		if (reach != INT64_MIN && x->start > reach)
			sink_put(k, reach, x->start);
		int64_t e = slice_end(t, x);
		if (e > reach)
			reach = e;
	}
}

static int
cmp_track(const void *a, const void *b)
{
	const tl_track *x = *(tl_track *const *)a, *y = *(tl_track *const *)b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

typedef enum { FROM_COMPUTE, FROM_COMM, COMM_MINUS_COMP, GAPS } lane_from;

/* One pass of lane `from` into k: comp and comm are the Computing and Communication lanes (or
 * NULL when empty) for the two made from them. */
static void
lane_pass(const tl_rank *r, lane_from from, const tl_track *comp, const tl_track *comm, sink *k)
{
	switch (from) {
	case FROM_COMPUTE:
		union_collect(r, TL_LANE_COMPUTE, k);
		break;
	case FROM_COMM:
		union_collect(r, TL_LANE_COMM, k);
		break;
	case COMM_MINUS_COMP:
		ivl_subtract(comm, comp, k);
		break;
	case GAPS:
		ivl_gaps(comp, comm, k);
		break;
	}
}

/* Adds the overlap lane `key` made by `from` (none when it has no interval). */
static const tl_track *
add_track(tl_rank *r, int key, lane_from from, const tl_track *comp, const tl_track *comm)
{
	sink k = {0};
	lane_pass(r, from, comp, comm, &k);
	if (k.n == 0)
		return NULL;
	size_t n = k.n;
	tl_track *t = rank_track(r, TL_LANE_OVERLAP, key, overlap_names[key]);
	t->v = xreallocarray(t->v, n, sizeof *t->v); /* a new track: room for them, no more */
	t->cap = n;
	k = (sink){.out = t, .name = t->label};
	lane_pass(r, from, comp, comm, &k);
	return t;
}

void
lanes_build_rank(tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_OVERLAP)
			return;
	/* the exposed and free intervals are computed from the Computing and Communication lanes
	 * themselves (adding a lane may move the rank's track array, never a track's slices) */
	const tl_track *comp = add_track(r, TL_OVL_COMPUTING, FROM_COMPUTE, NULL, NULL);
	const tl_track *comm = add_track(r, TL_OVL_COMMUNICATION, FROM_COMM, NULL, NULL);
	add_track(r, TL_OVL_COMM_EXPOSED, COMM_MINUS_COMP, comp, comm);
	add_track(r, TL_OVL_FREE, GAPS, comp, comm);
	if (r->ntracks > 1) /* (qsort of a NULL array is undefined, even of none) */
		qsort(r->tracks, r->ntracks, sizeof *r->tracks, cmp_track);
}

/* Whether lane `key` of r (NULL: none) holds exactly what `from` makes (no lane: nothing). */
static int
lane_same(const tl_rank *r, int key, lane_from from, const tl_track *comp, const tl_track *comm)
{
	const tl_track *t = lanes_overlap_track(r, key);
	if (t != NULL && t->label >= strpool_count(r->pool))
		return 0;
	if (t != NULL && strcmp(strpool_get(r->pool, t->label), overlap_names[key]) != 0)
		return 0;
	sink k = {.want = t, .same = 1};
	lane_pass(r, from, comp, comm, &k);
	return k.same && k.n == (t != NULL ? t->n : 0);
}

int
lanes_check_rank(const tl_rank *r)
{
	int any = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_OVERLAP)
			continue;
		if (t->key < 0 || t->key >= TL_OVL__COUNT || t->depth != 0 ||
		    lanes_overlap_track(r, (int)t->key) != t)
			return -1; /* an unknown key, or a key twice */
		any = 1;
	}
	if (!any || r->own_overlap)
		return 0; /* none stored: they are built when wanted; or the profile's own */
	/* the exposed and free intervals from the stored Computing and Communication lanes,
	 * once those are known to be what the slices make */
	const tl_track *comp = lanes_overlap_track(r, TL_OVL_COMPUTING);
	const tl_track *comm = lanes_overlap_track(r, TL_OVL_COMMUNICATION);
	return lane_same(r, TL_OVL_COMPUTING, FROM_COMPUTE, NULL, NULL) &&
	               lane_same(r, TL_OVL_COMMUNICATION, FROM_COMM, NULL, NULL) &&
	               lane_same(r, TL_OVL_COMM_EXPOSED, COMM_MINUS_COMP, comp, comm) &&
	               lane_same(r, TL_OVL_FREE, GAPS, comp, comm)
	           ? 0
	           : -1;
}

static void
build_item(void *arg, size_t i)
{
	lanes_build_rank(((tl_trace *)arg)->ranks[i]);
}

void
lanes_build(tl_trace *tr, int threads)
{
	parallel_for(tr->nranks, threads, build_item, tr);
}
