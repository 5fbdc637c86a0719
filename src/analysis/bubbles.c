#include "config.h"
#include "analysis/bubbles.h"
#include "analysis/lanes.h"
#include "analysis/overlap.h"
#include "model/lod.h"
#include "util/heap.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SCAN_MAX 4096 /* device tasks looked at per track and gap: the evidence, not a census */

const char *
bubble_reason_name(tl_bubble_reason r)
{
	switch (r) {
	case TL_BUBBLE_COLLECTIVE_WAIT:
		return "collective_wait";
	case TL_BUBBLE_LAUNCH_GAP:
		return "host_launch_gap";
	case TL_BUBBLE_NOTHING:
		return "nothing_scheduled";
	}
	return "?";
}

typedef struct ivl {
	int64_t s, e;
} ivl;

static int
cmp_ivl(const void *a, const void *b)
{
	const ivl *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

static int
is_wait_name(const char *s)
{
	return strcasestr(s, "wait") != NULL || strcasestr(s, "notify") != NULL;
}

/* name into buf (size n), cut to fit with "..." where it is longer; a cut never leaves a "("
 * of the name open ("Memcpy HtoD (Pageable -> Device)" cut inside its parenthesis becomes
 * "Memcpy HtoD..."), since the evidence puts the name in parentheses of its own. */
static const char *
name_cut(const char *name, char *buf, size_t n)
{
	size_t l = strlen(name);
	if (l < n) {
		memcpy(buf, name, l + 1);
		return buf;
	}
	size_t k = n - 4, open = SIZE_MAX, depth = 0;
	for (size_t i = 0; i < k; i++) {
		if (name[i] == '(' && depth++ == 0)
			open = i;
		else if (name[i] == ')' && depth > 0 && --depth == 0)
			open = SIZE_MAX;
	}
	if (open != SIZE_MAX)
		k = open;
	while (k > 0 && name[k - 1] == ' ')
		k--;
	memcpy(buf, name, k);
	memcpy(buf + k, "...", 4);
	return buf;
}

/* Whether communication meets [s, e] (its ends included): an op on a communication lane, or a
 * sub-task of one on the device. A task named as a wait is a collective's wait only then; a
 * host thread's wait (Python's threading.py wait) or a stream's wait on an event of its own
 * rank's compute is none. */
static int
comm_near(const tl_rank *r, int64_t s, int64_t e)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_COMM && t->kind != TL_LANE_COMM_TASK)
			continue;
		size_t k = track_first_ending_after(t, s - 1);
		if (k < t->n && t->v[k].start <= e)
			return 1;
	}
	return 0;
}

static tl_bubble_reason
bubble_reason(const tl_rank *r, int64_t s, int64_t e, char *detail, size_t len)
{
	/* 1. device tasks inside the gap that are no compute and no communication op */
	ivl *w = NULL;
	size_t nw = 0, wcap = 0, others = 0;
	const char *wait_name = NULL, *other_name = NULL;
	int64_t wait_longest = -1;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		/* (device MSTX slices are markers of ranges, not work: step 2 reads them) */
		if (t->kind != TL_LANE_OTHER && t->kind != TL_LANE_COMM_TASK &&
		    t->kind != TL_LANE_MEMCPY)
			continue;
		size_t k = track_first_ending_after(t, s), seen = 0;
		for (; k < t->n && t->v[k].start < e && seen < SCAN_MAX; k++, seen++) {
			int64_t a = t->v[k].start > s ? t->v[k].start : s;
			int64_t ke = track_end(t, k), b = ke < e ? ke : e;
			const char *nm = strpool_get(r->pool, t->v[k].name);
			if (t->kind == TL_LANE_COMM_TASK ||
			    (t->kind != TL_LANE_MEMCPY && is_wait_name(nm))) {
				if (b > a) {
					ivl x = {a, b};
					VEC_PUSH(w, nw, wcap, x);
					if (b - a > wait_longest) {
						wait_longest = b - a;
						wait_name = nm;
					}
				}
			} else {
				others++;
				if (other_name == NULL)
					other_name = nm;
			}
		}
	}
	int64_t covered = 0, reach = INT64_MIN;
	if (nw > 1)
		qsort(w, nw, sizeof *w, cmp_ivl);
	for (size_t i = 0; i < nw; i++) {
		int64_t a = w[i].s > reach ? w[i].s : reach;
		if (w[i].e > a)
			covered += w[i].e - a;
		if (w[i].e > reach)
			reach = w[i].e;
	}
	free(w);
	int64_t gap = e - s;
	if (gap > 0 && covered * 2 >= gap && comm_near(r, s, e)) {
		snprintf(detail, len, "%s tasks fill %d%% of it", wait_name,
		         (int)(covered * 100 / gap));
		return TL_BUBBLE_COLLECTIVE_WAIT;
	}
	char extra[112] = "", on[48];
	if (others > 0)
		snprintf(extra, sizeof extra, "; %zu other device task%s ran (%s)", others,
		         others == 1 ? "" : "s", name_cut(other_name, on, sizeof on));

	/* 2. the innermost range that spans the whole gap: a host range, or the device part of
	 * one that carried a stream (its host part, a launch of microseconds, is not read) */
	const char *host = NULL;
	int64_t hlen = INT64_MAX;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_MSTX &&
		    t->kind !=
		        TL_LANE_MSTX_DEV) /* host API lanes exist for JSON inputs only: the
		                             same profile must get the same answer from a DB */
			continue;
		size_t k =
		    track_first_starting_at(t, s + 1); /* the last slice starting at or before s */
		if (k == 0)
			continue;
		const tl_slice *sl = &t->v[k - 1];
		if (t->dev != NULL && t->dev[k - 1].end >= t->dev[k - 1].start)
			continue; /* on the device lane */
		int64_t se = slice_end(t, sl);
		if (se >= e && se > sl->start && se - sl->start < hlen) {
			hlen = se - sl->start;
			host = strpool_get(r->pool, sl->name);
		}
	}
	if (host != NULL) {
		char hn[52];
		snprintf(detail, len, "inside %s, no compute or communication launched%s",
		         name_cut(host, hn, sizeof hn), extra);
		return TL_BUBBLE_LAUNCH_GAP;
	}
	snprintf(detail, len, "no host range open%s", extra);
	return TL_BUBBLE_NOTHING;
}

/* heap order: a is "less" (a worse bubble) than b when shorter, or as long and later */
static int
gap_less(const tl_gap *a, const tl_gap *b)
{
	int64_t la = a->end - a->start, lb = b->end - b->start;
	if (la != lb)
		return la < lb;
	return a->start > b->start;
}

static int
gap_before(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return gap_less(a, b);
}

/* a bounded min-heap of the longest gaps seen (grown as needed up to max) */
typedef struct gap_heap {
	tl_gap *h;
	size_t n, cap, max;
} gap_heap;

static inline void
gap_offer(gap_heap *g, int64_t s, int64_t e)
{
	tl_gap b = {s, e};
	if (g->n < g->max) {
		if (g->n == g->cap) {
			g->cap = g->cap * 2 < g->max ? g->cap * 2 : g->max;
			g->h = xreallocarray(g->h, g->cap, sizeof *g->h);
		}
		g->h[g->n] = b;
		heap_up(g->h, sizeof *g->h, g->n++, gap_before, NULL);
	} else if (gap_less(&g->h[0], &b)) {
		g->h[0] = b;
		heap_down(g->h, g->n, sizeof *g->h, 0, gap_before, NULL);
	}
}

static int
cmp_gap(const void *a, const void *b)
{
	const tl_gap *x = a, *y = b;
	if (gap_less(x, y))
		return 1;
	if (gap_less(y, x))
		return -1;
	return 0;
}

/* Offers f's slices under node i of level k of its level of detail (level 0: slice i), the
 * nodes whose longest slice is no longer than the shortest gap of a full heap passed over: none
 * of their slices could enter it (the heap's least only grows, and the walk goes by start: a
 * gap as long as the least and later loses the tie). Most of a Free lane's million intervals
 * are a kernel's launch apart; the few long ones are what the heap keeps. */
static void
offer_node(gap_heap *g, const tl_track *f, const tl_lod *l, int k, size_t i)
{
	if (k == 0) {
		const tl_slice *x = &f->v[i];
		int64_t xe = slice_end(f, x);
		if (g->n < g->max || xe - x->start > g->h[0].end - g->h[0].start)
			gap_offer(g, x->start, xe);
		return;
	}
	if (g->n == g->max && l->node[l->off[k - 1] + i].dur <= g->h[0].end - g->h[0].start)
		return;
	size_t below = k == 1 ? f->n : l->size[k - 2];
	for (size_t c = i * LOD_B; c < below && c < (i + 1) * LOD_B; c++)
		offer_node(g, f, l, k - 1, c);
}

/* The Free lane's intervals into g: through its level of detail when it has one (a cache
 * file's, or one the viewer built), else one by one. */
static void
offer_free(gap_heap *g, const tl_track *f)
{
	const tl_lod *l = f->lod;
	if (l != NULL && l->n == f->n && l->nlevel > 0) {
		for (size_t i = 0; i < l->size[l->nlevel - 1]; i++)
			offer_node(g, f, l, l->nlevel, i);
		return;
	}
	for (size_t i = 0; i < f->n; i++) {
		const tl_slice *x = &f->v[i];
		int64_t xe = slice_end(f, x);
		if (g->n == g->max && xe - x->start < g->h[0].end - g->h[0].start)
			continue; /* the common case, without a call */
		gap_offer(g, x->start, xe);
	}
}

static int
has_overlap_lanes(const tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_OVERLAP)
			return 1;
	return 0;
}

size_t
bubble_gaps_of_rank(const tl_rank *r, size_t max, tl_gap **out)
{
	if (r->host_only) { /* a CPU-only trace: no device, so no device idle time */
		*out = NULL;
		return 0;
	}
	if (max == 0)
		max = 1;
	size_t cap = max < 1024 ? max : 1024;
	gap_heap g = {xreallocarray(NULL, cap, sizeof *g.h), 0, cap, max};
	if (has_overlap_lanes(r)) {
		/* the Free lane holds these very intervals (lanes.c); no Free lane: no gap */
		const tl_track *f = lanes_overlap_track(r, TL_OVL_FREE);
		if (f != NULL)
			offer_free(&g, f);
	} else {
		/* Free = the gaps of compute U communication between the first and the last busy
		 * instant (lanes.h): two sorted disjoint unions merged by start */
		tl_union_iter ci, mi;
		union_iter_init(&ci, r, TL_LANE_COMPUTE, TL_NO_STEP, INT64_MIN, INT64_MAX);
		union_iter_init(&mi, r, TL_LANE_COMM, TL_NO_STEP, INT64_MIN, INT64_MAX);
		int64_t cs = 0, ce = 0, ms = 0, me = 0, reach = INT64_MIN;
		int hc = union_iter_next(&ci, &cs, &ce), hm = union_iter_next(&mi, &ms, &me);
		while (hc || hm) {
			int64_t s, e;
			if (hc && (!hm || cs <= ms)) {
				s = cs;
				e = ce;
				hc = union_iter_next(&ci, &cs, &ce);
			} else {
				s = ms;
				e = me;
				hm = union_iter_next(&mi, &ms, &me);
			}
			if (reach != INT64_MIN && s > reach)
				gap_offer(&g, reach, s);
			if (e > reach)
				reach = e;
		}
		union_iter_done(&ci);
		union_iter_done(&mi);
	}
	if (g.n > 1)
		qsort(g.h, g.n, sizeof *g.h, cmp_gap);
	*out = g.h;
	return g.n;
}

char *
bubble_step_text(const tl_rl_bubble *b, const char *none_text, char *buf, size_t len)
{
	if (b->step >= 0)
		snprintf(buf, len, "%" PRId64, b->step);
	else
		snprintf(buf, len, "%s", b->between_steps ? "between steps" : none_text);
	return buf;
}

void
bubble_attribute_step(const tl_rank *r, tl_rl_bubble *b)
{
	uint16_t si = rank_step_at(r, b->start);
	/* a gap that runs past the end of its step (into the next, as the idle tail of one
	 * step and the head of the next usually do) belongs to neither */
	if (si != TL_NO_STEP && b->end > r->steps[si].end)
		si = TL_NO_STEP;
	b->step = si != TL_NO_STEP ? r->steps[si].id : -1;
	b->between_steps = si == TL_NO_STEP && r->nsteps > 0;
}

void
bubble_attribute(const tl_rank *r, const tl_stage_inst *inst, size_t ninst, tl_rl_bubble *b)
{
	bubble_attribute_step(r, b);
	b->stage = TL_STAGE_NONE;
	int lvl = -1;
	const tl_stage_inst *before = NULL, *after = NULL;
	for (size_t k = 0; k < ninst; k++) {
		const tl_stage_inst *x = &inst[k];
		if (x->start <= b->start && b->end <= x->end && x->level > lvl) {
			lvl = x->level; /* the innermost stage that encloses the whole gap */
			b->stage = x->stage;
		}
		if (x->end <= b->end && x->start < b->start && (!before || x->end > before->end))
			before = x;
		if (x->start >= b->start && x->end > b->end && (!after || x->start < after->start))
			after = x;
	}
	b->reason = bubble_reason(r, b->start, b->end, b->detail, sizeof b->detail);
	if (b->stage == TL_STAGE_NONE && (before || after)) { /* between stages: which */
		size_t l = strlen(b->detail);
		snprintf(b->detail + l, sizeof b->detail - l, "; after %.32s, before %.32s",
		         before ? before->origin : "-", after ? after->origin : "-");
	}
}

size_t
bubbles_of_rank(const tl_rank *r, size_t ri, const tl_stage_inst *inst, size_t ninst, size_t max,
                tl_rl_bubble **out)
{
	tl_gap *g;
	size_t n = bubble_gaps_of_rank(r, max, &g);
	bubbles_of_gaps(r, ri, inst, ninst, g, n, out);
	free(g);
	return n;
}

void
bubbles_of_gaps(const tl_rank *r, size_t ri, const tl_stage_inst *inst, size_t ninst,
                const tl_gap *g, size_t n, tl_rl_bubble **out)
{
	tl_rl_bubble *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i].rank = ri;
		v[i].start = g[i].start;
		v[i].end = g[i].end;
		bubble_attribute(r, inst, ninst, &v[i]);
	}
	*out = v;
}
