#include "config.h"
#include "analysis/lanes.h"
#include "analysis/overlap.h"
#include "model/lod.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <stdlib.h>

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
		busy = lod_busy(t->lod, t->v, a, b);
	} else {
		busy = 0;
		for (size_t i = a; i < b; i++)
			busy += t->v[i].end - t->v[i].start;
	}
	if (t->v[a].start < t0)
		busy -= t0 - t->v[a].start;
	if (t->v[b - 1].end > t1)
		busy -= t->v[b - 1].end - t1;
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
	int64_t e = t->v[b - 1].end > t1 ? t1 : t->v[b - 1].end;
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
	if (first <= last) {
		o->free = (last - first) - (comp + exposed);
		o->preparing = prep_from != INT64_MIN ? first - prep_from : 0;
	} else {
		o->free = 0;
		o->preparing = 0;
	}
	return 0;
}

typedef struct ivl {
	int64_t s, e;
} ivl;

typedef struct ivl_vec {
	ivl *v;
	size_t n, cap;
} ivl_vec;

static void
union_collect(const tl_rank *r, tl_lane_kind kind, ivl_vec *out)
{
	tl_union_iter it;
	union_iter_init(&it, r, kind, TL_NO_STEP, INT64_MIN, INT64_MAX);
	ivl x;
	while (union_iter_next(&it, &x.s, &x.e))
		VEC_PUSH(out->v, out->n, out->cap, x);
	union_iter_done(&it);
}

/* The start and end of item i of an array of intervals (ivl or tl_slice: both begin with the
 * two times) of stride bytes. */
#define IV_S(p, stride, i)                                                                         \
	(((const int64_t *)(const void *)((const char *)(p) + (i) * (stride)))[0])
#define IV_E(p, stride, i)                                                                         \
	(((const int64_t *)(const void *)((const char *)(p) + (i) * (stride)))[1])

/* a minus b, both sorted and disjoint (na, nb items of strides sa, sb) */
static void
ivl_subtract(const void *a, size_t na, size_t sa, const void *b, size_t nb, size_t sb, ivl_vec *out)
{
	size_t j = 0;
	for (size_t i = 0; i < na; i++) {
		int64_t s = IV_S(a, sa, i), e = IV_E(a, sa, i);
		while (j < nb && IV_E(b, sb, j) <= s)
			j++;
		for (size_t k = j; k < nb && IV_S(b, sb, k) < e && s < e; k++) {
			if (IV_S(b, sb, k) > s) {
				ivl x = {s, IV_S(b, sb, k)};
				VEC_PUSH(out->v, out->n, out->cap, x);
			}
			if (IV_E(b, sb, k) > s)
				s = IV_E(b, sb, k);
		}
		if (s < e) {
			ivl x = {s, e};
			VEC_PUSH(out->v, out->n, out->cap, x);
		}
	}
}

/* gaps of a ∪ b between the first and the last busy instant */
static void
ivl_gaps(const void *a, size_t na, size_t sa, const void *b, size_t nb, size_t sb, ivl_vec *out)
{
	size_t i = 0, j = 0;
	int64_t reach = INT64_MIN;
	while (i < na || j < nb) {
		int64_t xs, xe;
		if (j >= nb || (i < na && IV_S(a, sa, i) <= IV_S(b, sb, j))) {
			xs = IV_S(a, sa, i);
			xe = IV_E(a, sa, i);
			i++;
		} else {
			xs = IV_S(b, sb, j);
			xe = IV_E(b, sb, j);
			j++;
		}
		if (reach != INT64_MIN && xs > reach) {
			ivl g = {reach, xs};
			VEC_PUSH(out->v, out->n, out->cap, g);
		}
		if (xe > reach)
			reach = xe;
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

/* Adds the lane of iv's intervals and frees them. */
static const tl_track *
add_track(tl_rank *r, int key, ivl_vec *iv)
{
	tl_track *t = NULL;
	if (iv->n > 0) {
		const char *name = overlap_names[key];
		t = rank_track(r, TL_LANE_OVERLAP, key, name);
		uint32_t nm = t->label;
		t->v = xreallocarray(t->v, iv->n, sizeof *t->v);
		t->cap = iv->n;
		t->n = 0;
		for (size_t i = 0; i < iv->n; i++)
			track_push(t, iv->v[i].s, iv->v[i].e, nm, (uint32_t)i);
	}
	free(iv->v);
	*iv = (ivl_vec){0};
	return t;
}

void
lanes_build_rank(tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_OVERLAP)
			return;
	/* one list of intervals at a time next to the lanes made of them: the exposed and free
	 * intervals are computed from the Computing and Communication lanes themselves */
	ivl_vec iv = {0};
	union_collect(r, TL_LANE_COMPUTE, &iv);
	const tl_track *comp = add_track(r, TL_OVL_COMPUTING, &iv);
	union_collect(r, TL_LANE_COMM, &iv);
	const tl_track *comm = add_track(r, TL_OVL_COMMUNICATION, &iv);
	const tl_slice *cv = comp ? comp->v : NULL, *mv = comm ? comm->v : NULL;
	size_t nc = comp ? comp->n : 0, nm = comm ? comm->n : 0, st = sizeof(tl_slice);
	ivl_subtract(mv, nm, st, cv, nc, st, &iv);
	add_track(r, TL_OVL_COMM_EXPOSED, &iv);
	/* (adding a lane may move the rank's track array, never a track's slices) */
	ivl_gaps(cv, nc, st, mv, nm, st, &iv);
	add_track(r, TL_OVL_FREE, &iv);
	if (r->ntracks > 1) /* (qsort of a NULL array is undefined, even of none) */
		qsort(r->tracks, r->ntracks, sizeof *r->tracks, cmp_track);
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
