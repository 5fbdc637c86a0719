#include "config.h"
#include "analysis/lanes.h"
#include "analysis/overlap.h"
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

/* a minus b, both sorted and disjoint */
static void
ivl_subtract(const ivl_vec *a, const ivl_vec *b, ivl_vec *out)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;
		while (j < b->n && b->v[j].e <= s)
			j++;
		for (size_t k = j; k < b->n && b->v[k].s < e && s < e; k++) {
			if (b->v[k].s > s) {
				ivl x = {s, b->v[k].s};
				VEC_PUSH(out->v, out->n, out->cap, x);
			}
			if (b->v[k].e > s)
				s = b->v[k].e;
		}
		if (s < e) {
			ivl x = {s, e};
			VEC_PUSH(out->v, out->n, out->cap, x);
		}
	}
}

/* gaps of a ∪ b between the first and the last busy instant */
static void
ivl_gaps(const ivl_vec *a, const ivl_vec *b, ivl_vec *out)
{
	size_t i = 0, j = 0;
	int64_t reach = INT64_MIN;
	while (i < a->n || j < b->n) {
		const ivl *x;
		if (j >= b->n || (i < a->n && a->v[i].s <= b->v[j].s))
			x = &a->v[i++];
		else
			x = &b->v[j++];
		if (reach != INT64_MIN && x->s > reach) {
			ivl g = {reach, x->s};
			VEC_PUSH(out->v, out->n, out->cap, g);
		}
		if (x->e > reach)
			reach = x->e;
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

static void
add_track(tl_rank *r, int key, const ivl_vec *iv)
{
	if (iv->n == 0)
		return;
	const char *name = overlap_names[key];
	tl_track *t = rank_track(r, TL_LANE_OVERLAP, key, name);
	uint32_t nm = t->label;
	t->v = xreallocarray(t->v, iv->n, sizeof *t->v);
	t->cap = iv->n;
	t->n = 0;
	for (size_t i = 0; i < iv->n; i++)
		track_push(t, iv->v[i].s, iv->v[i].e, nm, (uint32_t)i);
}

void
lanes_build_rank(tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_OVERLAP)
			return;
	ivl_vec comp = {0}, comm = {0}, exposed = {0}, gaps = {0};
	union_collect(r, TL_LANE_COMPUTE, &comp);
	union_collect(r, TL_LANE_COMM, &comm);
	ivl_subtract(&comm, &comp, &exposed);
	ivl_gaps(&comp, &comm, &gaps);
	add_track(r, TL_OVL_COMPUTING, &comp);
	add_track(r, TL_OVL_COMMUNICATION, &comm);
	add_track(r, TL_OVL_COMM_EXPOSED, &exposed);
	add_track(r, TL_OVL_FREE, &gaps);
	free(comp.v);
	free(comm.v);
	free(exposed.v);
	free(gaps.v);
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
