#include "config.h"
#include "analysis/critpath.h"
#include "analysis/collectives.h"
#include "util/satint.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cp_kind_name[CP__COUNT] = {"compute",     "communication", "memory",
                                             "host_launch", "idle",          "waiting"};

/* The step's graph: every rank's tasks under one index x = off[r] + i, below 2^31. Without a
 * what-if the graph's times are the tasks' own (each task follows its predecessors by the gaps
 * and the transfers there were), so only a what-if holds times of its own. */
typedef struct graph {
	const cp_rank *ranks;
	size_t nranks, n;
	size_t *off;              /* nranks + 1 */
	int64_t t0;               /* a task starting before it starts there */
	int32_t *pred;            /* the task that finished last before it started, -1 */
	unsigned char *have_pred; /* per rank: pred is filled */
	uint64_t *lat;            /* per rank: its launch function's cursor */
	/* the links of the communication ops and event waits, few of the tasks: lx their
	 * indexes, ascending; lv[k] of lx[k]: a collective's member, its instance (index into
	 * cstart, >= 0); a receive, -2 - its send; an event wait, the task it waited for (the one
	 * that ended last before it did); -1 none */
	uint32_t *lx;
	int32_t *lv;
	size_t nl;
	/* the what-if's: its scales, the times in the graph (INT64_MIN: not yet); NULL: none */
	const cp_scale *sc;
	size_t nsc;
	int64_t *ns, *ne;
	/* collective instances: members m[cstart[c] .. cstart[c + 1]), last arrival as it ran */
	uint32_t *cstart, *cm;
	size_t nc;
	int64_t *clast;
} graph;

/* Task i of rank R. */
#define LANE(R, i) cp_task_lane((R)->lanes, (R)->task, (R)->shift, i)
#define SL(R, i) cp_task_slice(LANE(R, i), (R)->task, (R)->shift, i)
/* Its end (the track's to read). */
#define SL_END(R, i) slice_end(LANE(R, i)->t, SL(R, i))

static int64_t
scale(int64_t d, int pm)
{
	if (pm == 1000)
		return d;
	return d / 1000 * pm + d % 1000 * pm / 1000;
}

/* The rank index of task x. */
static size_t
rank_of(const graph *g, size_t x)
{
	size_t lo = 0, hi = g->nranks; /* the last rank whose first index is at or before x */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->off[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	while (lo + 1 < g->nranks && g->off[lo + 1] <= x) /* ranks without tasks */
		lo++;
	return lo;
}

static const tl_slice *
sl_of(const graph *g, size_t x)
{
	size_t r = rank_of(g, x);
	return SL(&g->ranks[r], x - g->off[r]);
}

static int
kind_of(const graph *g, size_t x)
{
	const cp_rank *R = &g->ranks[rank_of(g, x)];
	return LANE(R, x - g->off[R - g->ranks])->kind;
}

static const char *
name_of(const graph *g, size_t x)
{
	const cp_rank *R = &g->ranks[rank_of(g, x)];
	return strpool_get(R->pool, SL(R, x - g->off[R - g->ranks])->name);
}

/* Task x as the walk reads it: its rank index, the rank, its lane and slice. The walk stays on
 * a rank for long: the last answer's rank is tried first. */
typedef struct tk {
	size_t ri; /* nranks: none yet */
	const cp_rank *R;
	const cp_lane *l;
	const tl_slice *s;
} tk;

static void
tk_at(const graph *g, size_t x, tk *k)
{
	size_t ri = k->ri;
	if (ri >= g->nranks || x < g->off[ri] || x >= g->off[ri + 1])
		ri = rank_of(g, x);
	const cp_rank *R = &g->ranks[ri];
	size_t i = x - g->off[ri];
	k->ri = ri;
	k->R = R;
	k->l = LANE(R, i);
	k->s = cp_task_slice(k->l, R->task, R->shift, i);
}

/* A task's start as it ran, cut at the step's start. */
static int64_t
st(const graph *g, const tl_slice *s)
{
	return s->start > g->t0 ? s->start : g->t0;
}

static int64_t
run_start(const graph *g, size_t x)
{
	return st(g, sl_of(g, x));
}

static int64_t
run_end(const graph *g, size_t x)
{
	size_t r = rank_of(g, x);
	return SL_END(&g->ranks[r], x - g->off[r]);
}

/* The link of x, a communication op or an event wait. */
static int32_t *
link_of(const graph *g, size_t x)
{
	size_t lo = 0, hi = g->nl;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->lx[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &g->lv[lo];
}

/* A task's links: its collective instance and its send (a communication op: a receive's send),
 * or the task it waited for (an event wait); -1 each where none. */
typedef struct xlinks {
	ptrdiff_t coll, send, on;
} xlinks;

/* From the task's lane kind and, for an op or a wait, its link (link_of). */
static xlinks
links_from(int kind, int32_t l)
{
	xlinks x = {-1, -1, -1};
	if (kind == CP_COMM && l >= 0)
		x.coll = l;
	else if (kind == CP_COMM && l <= -2)
		x.send = -2 - (ptrdiff_t)l;
	else if (kind == CP_WAITING && l >= 0)
		x.on = l;
	return x;
}

static xlinks
links_of(const graph *g, size_t x)
{
	int kind = kind_of(g, x);
	return links_from(kind, kind == CP_COMM || kind == CP_WAITING ? *link_of(g, x) : -1);
}

/* The task of rank r starting at start (a communication op named name when name is not NULL).
 * *at (NULL: none) is the rank's cursor, the place of the answer before: the search gallops
 * from it (a collective's members come mostly in time order, each search from the whole rank
 * missed the cache at every probe). */
static ptrdiff_t
find_item(const graph *g, size_t r, int64_t start, const char *name, size_t *at)
{
	const cp_rank *R = &g->ranks[r];
	size_t n = R->n, c = at != NULL && *at <= n ? *at : n / 2, lo, hi;
	if (c < n && st(g, SL(R, c)) < start) { /* after c: those up to lo start before */
		lo = hi = c + 1;
		for (size_t step = 1; hi < n && st(g, SL(R, hi)) < start; step *= 2) {
			lo = hi + 1;
			hi = lo + step < n ? lo + step : n;
		}
	} else { /* at c or before: hi starts at or after start (or is n) */
		lo = hi = c;
		for (size_t step = 1; lo > 0 && st(g, SL(R, lo - 1)) >= start; step *= 2) {
			hi = lo - 1;
			lo = hi > step ? hi - step : 0;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (st(g, SL(R, mid)) < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at != NULL)
		*at = lo;
	for (size_t i = lo; i < R->n && st(g, SL(R, i)) == start; i++)
		if (LANE(R, i)->kind == CP_COMM &&
		    (name == NULL || strcmp(strpool_get(R->pool, SL(R, i)->name), name) == 0))
			return (ptrdiff_t)(g->off[r] + i);
	return -1;
}

/* Each event wait's task: the rank's task, not a wait, that ended last at or before the wait
 * did and after it began (the one it waited for), among the 256 tasks that started last before
 * the wait's end. */
static void
link_waits(graph *g)
{
	for (size_t r = 0; r < g->nranks; r++) {
		const cp_rank *R = &g->ranks[r];
		size_t o = g->off[r], n = R->n, plo = 0;
		int64_t pwe = INT64_MAX; /* the wait before: its end, and the answer */
		for (size_t i = 0; i < n; i++) {
			if (LANE(R, i)->kind != CP_WAITING)
				continue;
			int64_t ws = st(g, SL(R, i)), we = SL_END(R, i);
			/* the first starting at or after the wait's end: galloping from the one
			 * before's answer when its end was no later (those before start before
			 * it), else from the wait */
			size_t lo = pwe <= we && plo > i ? plo : i, hi = lo;
			for (size_t step = 1; hi < n && st(g, SL(R, hi)) < we; step *= 2) {
				lo = hi + 1;
				hi = lo + step < n ? lo + step : n;
			}
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (st(g, SL(R, mid)) < we)
					lo = mid + 1;
				else
					hi = mid;
			}
			ptrdiff_t best = -1;
			for (size_t k = lo, tries = 0; k > 0 && tries < 256; k--, tries++) {
				if (k - 1 == i || LANE(R, k - 1)->kind == CP_WAITING)
					continue;
				int64_t ye = SL_END(R, k - 1);
				if (ye > we || ye <= ws)
					continue;
				if (best < 0 || ye > SL_END(R, best))
					best = (ptrdiff_t)(k - 1);
			}
			*link_of(g, o + i) = best < 0 ? -1 : (int32_t)(o + (size_t)best);
			pwe = we;
			plo = lo;
		}
	}
}

static void
link_collectives(graph *g)
{
	tl_coll_entry *e = NULL;
	size_t ne = 0, cap = 0;
	for (size_t r = 0; r < g->nranks; r++) {
		const cp_rank *R = &g->ranks[r];
		for (size_t i = 0; i < R->n; i++) {
			const cp_lane *l = LANE(R, i);
			if (l->kind != CP_COMM || l->group == NULL)
				continue;
			const char *nm = strpool_get(R->pool, SL(R, i)->name);
			if (coll_p2p_kind(nm) != 0)
				continue;
			tl_coll_entry en = {.rank = (int)r,
			                    .group = l->group,
			                    .name = nm,
			                    .step = 0,
			                    .start = st(g, SL(R, i)),
			                    .end = SL_END(R, i)};
			VEC_PUSH(e, ne, cap, en);
		}
	}
	tl_coll *c;
	size_t nc = coll_match(e, ne, &c);
	free(e); /* the instances borrow the names only, the rank's */
	g->cstart = xcalloc(nc + 1, sizeof *g->cstart);
	g->clast = xcalloc(nc ? nc : 1, sizeof *g->clast);
	size_t nm = 0;
	for (size_t i = 0; i < nc; i++)
		nm += c[i].n;
	g->cm = xcalloc(nm ? nm : 1, sizeof *g->cm);
	size_t *at = xcalloc(g->nranks ? g->nranks : 1, sizeof *at); /* find_item's cursors */
	size_t w = 0;
	for (size_t i = 0; i < nc; i++) {
		if (c[i].n < 2)
			continue;
		size_t m0 = g->cstart[w], m = m0;
		int64_t last = INT64_MIN;
		for (size_t k = 0; k < c[i].n; k++)
			last = c[i].ranks[k].arrive > last ? c[i].ranks[k].arrive : last;
		int ok = 1;
		for (size_t k = 0; k < c[i].n && ok; k++) {
			ptrdiff_t x = find_item(g, (size_t)c[i].ranks[k].rank, c[i].ranks[k].arrive,
			                        c[i].name, &at[c[i].ranks[k].rank]);
			/* an op that ended before the last member arrived (clocks not aligned, or
			 * not one call): no instance, its members stay plain tasks */
			if (x < 0 || *link_of(g, (size_t)x) >= 0 || run_end(g, (size_t)x) < last)
				ok = 0;
			else
				g->cm[m++] = (uint32_t)x;
		}
		if (!ok)
			continue;
		for (size_t k = m0; k < m; k++)
			*link_of(g, g->cm[k]) = (int32_t)w;
		g->clast[w] = last;
		g->cstart[++w] = (uint32_t)m;
	}
	g->nc = w;
	free(at);
	coll_free(c, nc);
}

static int64_t
start_of(const graph *g, size_t x)
{
	return g->ns != NULL && g->ns[x] != INT64_MIN ? g->ns[x] : run_start(g, x);
}

/* A task's times in the graph: its own without a what-if. */
static int64_t
gstart(const graph *g, size_t x)
{
	return g->ns != NULL ? g->ns[x] : run_start(g, x);
}

static int64_t
gend(const graph *g, size_t x)
{
	return g->ne != NULL ? g->ne[x] : run_end(g, x);
}

/* The latest arrival of collective c in the graph's times, and who (the lowest index on a tie). */
static int64_t
coll_last(const graph *g, size_t c, size_t *who)
{
	int64_t last = INT64_MIN;
	for (size_t k = g->cstart[c]; k < g->cstart[c + 1]; k++) {
		int64_t s = start_of(g, g->cm[k]);
		if (s > last) {
			last = s;
			*who = g->cm[k];
		}
	}
	return last;
}

static int scale_of(const cp_scale *sc, size_t nsc, int rank, const char *name);

/* A task's end in the what-if's times, computed once, when every start it depends on is known
 * (the forward pass asks for it only once past its end as it ran). */
static int64_t
end_of(graph *g, size_t x)
{
	if (g->ne[x] != INT64_MIN)
		return g->ne[x];
	const tl_slice *it = sl_of(g, x);
	int pm = scale_of(g->sc, g->nsc, g->ranks[rank_of(g, x)].rank, name_of(g, x));
	int64_t s = start_of(g, x), e, is = st(g, it), ie = run_end(g, x);
	xlinks lx = links_of(g, x);
	ptrdiff_t c = lx.coll, on = lx.on, sd = lx.send;
	if (c >= 0) {
		size_t who;
		int64_t last = coll_last(g, (size_t)c, &who);
		e = (s > last ? s : last) + scale(ie - g->clast[c], pm);
	} else if (on >= 0) {
		int64_t oe = run_end(g, (size_t)on), from = is > oe ? is : oe;
		int64_t one = end_of(g, (size_t)on); /* not a wait: no deeper */
		e = (s > one ? s : one) + scale(ie - from, pm);
	} else if (sd >= 0) {
		int64_t ss = run_start(g, (size_t)sd), from = is > ss ? is : ss;
		int64_t sn = start_of(g, (size_t)sd);
		e = (s > sn ? s : sn) + scale(ie - from, pm);
	} else {
		e = s + scale(ie - is, pm);
	}
	return g->ne[x] = e;
}

/* Per rank, a binary min-heap of its running tasks (local indexes) by end, ties by index; each
 * with its end, read once. */
typedef struct runent {
	int64_t end;
	uint32_t i;
} runent;

typedef struct runheap {
	runent *v;
	size_t n, cap;
} runheap;

static int
run_less(runent a, runent b)
{
	return a.end != b.end ? a.end < b.end : a.i < b.i;
}

static void
run_push(runheap *h, runent x)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->v = xreallocarray(h->v, h->cap, sizeof *h->v);
	}
	size_t i = h->n++;
	while (i > 0 && run_less(x, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static runent
run_pop(runheap *h)
{
	runent top = h->v[0], x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, m = l;
		if (l >= h->n)
			break;
		if (l + 1 < h->n && run_less(h->v[l + 1], h->v[l]))
			m = l + 1;
		if (!run_less(h->v[m], x))
			break;
		h->v[i] = h->v[m];
		i = m;
	}
	if (h->n > 0)
		h->v[i] = x;
	return top;
}

/* A rank's task that ended last (the latest end; on a tie, the later start) among those that
 * ended before the task now taken started: its local index (-1: none yet) and end. */
typedef struct runbest {
	ptrdiff_t i;
	int64_t end;
} runbest;

/* Task i of rank r, in start order on its rank: its predecessor is the task of the rank that
 * finished last before it started (from the heap of the rank's running tasks by end), and in a
 * what-if its start follows that task's end by the gap there was. */
static void
take(graph *g, size_t r, size_t i, runheap *run, runbest *best)
{
	const cp_rank *R = &g->ranks[r];
	const cp_lane *l = LANE(R, i);
	const tl_slice *sl = cp_task_slice(l, R->task, R->shift, i);
	int64_t s = st(g, sl);
	while (run->n > 0 && run->v[0].end <= s) {
		runent y = run_pop(run);
		if (best->i < 0 || y.end > best->end ||
		    (y.end == best->end && st(g, SL(R, y.i)) >= st(g, SL(R, best->i))))
			*best = (runbest){y.i, y.end};
	}
	size_t x = g->off[r] + i;
	ptrdiff_t p = best->i < 0 ? -1 : (ptrdiff_t)g->off[r] + best->i;
	g->pred[x] = (int32_t)p;
	if (g->ns != NULL)
		g->ns[x] = p >= 0 ? end_of(g, (size_t)p) + (s - best->end) : s;
	run_push(run, (runent){slice_end(l->t, sl), (uint32_t)i});
}

/* The predecessors of rank r's tasks, without a what-if: asked by the walk for the ranks it
 * crosses (the array's pages of the others are never touched). */
static void
rank_preds(graph *g, size_t r)
{
	runheap run = {0};
	runbest best = {-1, 0};
	for (size_t i = 0; i < g->ranks[r].n; i++)
		take(g, r, i, &run, &best);
	free(run.v);
	g->have_pred[r] = 1;
}

/* In a what-if, one pass over every task, the ranks merged by start (an end is computed once
 * every start it depends on is), then every end. */
static void
compute_times(graph *g)
{
	size_t nr1 = g->nranks ? g->nranks : 1;
	if (g->ns == NULL) /* the predecessors only, a rank's own: when the walk gets there */
		return;
	size_t *head = xcalloc(nr1, sizeof *head);
	runbest *best = xcalloc(nr1, sizeof *best);
	runheap *rr = xcalloc(nr1, sizeof *rr);
	size_t *rk = xreallocarray(NULL, nr1, sizeof *rk), nrk = 0; /* ranks by next start */
#define RK_LESS(a, b)                                                                              \
	(st(g, SL(&g->ranks[a], head[a])) != st(g, SL(&g->ranks[b], head[b]))                      \
	     ? st(g, SL(&g->ranks[a], head[a])) < st(g, SL(&g->ranks[b], head[b]))                 \
	     : (a) < (b))
	for (size_t r = 0; r < g->nranks; r++) {
		best[r] = (runbest){-1, 0};
		if (g->ranks[r].n == 0)
			continue;
		size_t i = nrk++;
		rk[i] = r;
		while (i > 0 && RK_LESS(rk[i], rk[(i - 1) / 2])) {
			size_t p = (i - 1) / 2, t = rk[p];
			rk[p] = rk[i];
			rk[i] = t;
			i = p;
		}
	}
	while (nrk > 0) {
		size_t r = rk[0];
		take(g, r, head[r]++, &rr[r], &best[r]);
		if (head[r] == g->ranks[r].n)
			rk[0] = rk[--nrk];
		for (size_t i = 0;;) { /* sift the top down */
			size_t l = 2 * i + 1, m = i;
			if (l < nrk && RK_LESS(rk[l], rk[m]))
				m = l;
			if (l + 1 < nrk && RK_LESS(rk[l + 1], rk[m]))
				m = l + 1;
			if (m == i)
				break;
			size_t t = rk[m];
			rk[m] = rk[i];
			rk[i] = t;
			i = m;
		}
	}
#undef RK_LESS
	for (size_t x = 0; x < g->n; x++)
		end_of(g, x);
	for (size_t r = 0; r < g->nranks; r++)
		free(rr[r].v);
	free(rk);
	free(rr);
	free(best);
	free(head);
}

typedef struct segv {
	cp_seg *v;
	size_t n, cap;
	size_t ri;  /* the rank index of the last one (nranks: none) */
	int64_t *b; /* the time by rank index (nranks: none) and kind, summed as they come */
	const char **names; /* the names, distinct by address */
	size_t nnames, ncap;
	tl_u64map by; /* a name's address -> its index */
	const char *last;
	uint32_t last_ix;
	const char *near[64]; /* a few names' indexes + 1 (0: none), by their address */
	uint32_t near_ix[64];
	uint32_t *who; /* by rank index (nranks: none): its who entry, UINT32_MAX none yet */
	cp_who *whov;
	size_t nwho;
} segv;

static uint32_t
seg_name(segv *s, const char *name)
{
	if (name == s->last && s->nnames > 0)
		return s->last_ix;
	uint32_t k;
	size_t h = ((uintptr_t)name ^ (uintptr_t)name >> 7) % 64;
	if (s->near_ix[h] != 0 && s->near[h] == name) {
		k = s->near_ix[h] - 1;
	} else {
		if (!u64map_get(&s->by, (uint64_t)(uintptr_t)name, &k)) {
			k = (uint32_t)s->nnames; /* fewer than a step's tasks, + 1 */
			VEC_PUSH(s->names, s->nnames, s->ncap, name);
			u64map_put(&s->by, (uint64_t)(uintptr_t)name, k);
		}
		s->near[h] = name;
		s->near_ix[h] = k + 1;
	}
	s->last = name;
	s->last_ix = k;
	return k;
}

static void
push(segv *s, const graph *g, size_t ri, int64_t a, int64_t b, int kind, const char *name)
{
	if (b <= a)
		return;
	ri = ri < g->nranks ? ri : g->nranks;
	if (s->n > 0) { /* walking backwards: the previous one follows this one */
		cp_seg *p = &s->v[s->n - 1];
		if (s->ri == ri && p->kind == (unsigned)kind && p->start == b &&
		    (s->names[p->name] == name || strcmp(s->names[p->name], name) == 0)) {
			p->start = a;
			s->b[ri * CP__COUNT + (size_t)kind] += b - a;
			return;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->ri = ri;
	s->b[ri * CP__COUNT + (size_t)kind] += b - a; /* a step is shorter than 2^63 ns */
	if (s->who[ri] == UINT32_MAX) {               /* at most nranks + 1 of them */
		s->who[ri] = (uint32_t)s->nwho;
		s->whov[s->nwho++] = (cp_who){ri < g->nranks ? g->ranks[ri].rank : -1, -1};
	}
	s->v[s->n++] = (cp_seg){
	    .start = a, .name = seg_name(s, name), .who = s->who[ri], .kind = (unsigned)kind};
}

static int
cmp_name_ns(const void *a, const void *b)
{
	const cp_name_ns *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static int
cmp_ns_desc(const void *a, const void *b)
{
	const cp_name_ns *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The step's compute time on the path by name: summed by the name's index first (the names
 * are distinct by address, pooled per rank, so few), then by the name. */
static void
step_ops(cp_step *out)
{
	size_t nops = 0;
	for (size_t i = 0; i < out->nseg; i++)
		nops += out->seg[i].kind == CP_COMPUTE;
	cp_name_ns *o = xcalloc(nops ? nops : 1, sizeof *o);
	size_t no = 0, nn = out->nnames ? out->nnames : 1;
	uint32_t *by = xmalloc(nn * sizeof *by); /* a name's entry in o, or none */
	memset(by, 0xff, nn * sizeof *by);
	for (size_t i = 0; i < out->nseg; i++) {
		const cp_seg *g = &out->seg[i];
		if (g->kind != CP_COMPUTE)
			continue;
		int64_t d = cp_seg_end(out, i) - g->start;
		uint32_t *k = &by[g->name];
		if (*k != UINT32_MAX) {
			o[*k].ns = sat_add(o[*k].ns, d);
		} else {
			*k = (uint32_t)no;
			o[no++] = (cp_name_ns){cp_seg_name(out, g), d};
		}
	}
	free(by);
	if (no > 1)
		qsort(o, no, sizeof *o, cmp_name_ns);
	size_t w = 0;
	for (size_t i = 0; i < no; i++) {
		if (w > 0 && strcmp(o[w - 1].name, o[i].name) == 0)
			o[w - 1].ns = sat_add(o[w - 1].ns, o[i].ns);
		else
			o[w++] = o[i];
	}
	if (w > 1)
		qsort(o, w, sizeof *o, cmp_ns_desc);
	out->ops = o;
	out->nops = w;
}

static void
walk(graph *g, int64_t t0, int64_t t1, cp_seg *mem, size_t cap, cp_step *out)
{
	segv s = {.v = mem,
	          .cap = mem != NULL ? cap : 0,
	          .b = xcalloc((g->nranks + 1) * CP__COUNT, sizeof *s.b),
	          .who = xmalloc((g->nranks + 1) * sizeof *s.who),
	          .whov = xcalloc(g->nranks + 1, sizeof *s.whov)};
	memset(s.who, 0xff, (g->nranks + 1) * sizeof *s.who);
	u64map_init(&s.by);
	/* the step's end: after every rank's last task, the time from the latest of them to the
	 * step's end (the host's) kept */
	ptrdiff_t x = -1;
	int64_t end = t0, last_end = INT64_MIN, xe = INT64_MIN;
	int given = g->ne == NULL; /* each rank's latest ending task given: the times its own */
	for (size_t r = 0; r < g->nranks && given; r++)
		given = g->ranks[r].n == 0 || g->ranks[r].last1 - 1 < g->ranks[r].n;
	for (size_t r = 0; r < g->nranks && given; r++) {
		if (g->ranks[r].n == 0)
			continue;
		size_t i = g->ranks[r].last1 - 1;
		int64_t e = SL_END(&g->ranks[r], i);
		if (x < 0 || e > xe) {
			x = (ptrdiff_t)(g->off[r] + i);
			xe = last_end = e;
		}
	}
	for (size_t r = 0; r < g->nranks && !given; r++)
		for (size_t i = 0; i < g->ranks[r].n; i++) {
			size_t k = g->off[r] + i;
			int64_t e = SL_END(&g->ranks[r], i), ke = g->ne != NULL ? g->ne[k] : e;
			if (e > last_end)
				last_end = e;
			if (x < 0 || ke > xe) {
				x = (ptrdiff_t)k;
				xe = ke;
			}
		}
	if (x >= 0)
		end = xe + (t1 > last_end ? t1 - last_end : 0);
	if (x < 0) {
		end = t1;
		push(&s, g, g->nranks > 0 ? 0 : SIZE_MAX, t0, t1, CP_WAITING, "");
	} else {
		push(&s, g, rank_of(g, (size_t)x), xe, end, CP_WAITING, "");
	}
	uint64_t *seen = xcalloc(g->n / 64 + 1, sizeof *seen); /* a bit a task */
#define SEEN(x) (seen[(size_t)(x) / 64] >> ((size_t)(x) % 64) & 1)
#define SEE(x) (seen[(size_t)(x) / 64] |= UINT64_C(1) << ((size_t)(x) % 64))
	tk tx = {.ri = g->nranks};
	while (x >= 0) {
		SEE(x);
		tk_at(g, (size_t)x, &tx);
		size_t ri = tx.ri;
		const char *name = strpool_get(tx.R->pool, tx.s->name);
		int kind = tx.l->kind;
		/* links_of's, from the lane the walk has in hand */
		xlinks lx = links_from(
		    kind, kind == CP_COMM || kind == CP_WAITING ? *link_of(g, (size_t)x) : -1);
		ptrdiff_t c = lx.coll, sd = lx.send, on = lx.on;
		int64_t xs = g->ns != NULL ? g->ns[x] : st(g, tx.s);
		int64_t xn = g->ne != NULL ? g->ne[x] : slice_end(tx.l->t, tx.s);
		if (c >= 0 || sd >= 0) {
			size_t who = (size_t)x;
			int64_t last;
			if (c >= 0)
				last = coll_last(g, (size_t)c, &who);
			else
				last = gstart(g, who = (size_t)sd);
			int64_t from = xs > last ? xs : last;
			push(&s, g, ri, from, xn, CP_COMM, name);
			if (last > xs && who != (size_t)x && !SEEN(who)) {
				x = (ptrdiff_t)who; /* through the rank that arrived last */
				SEE(x);
				out->jumps++;
				tk_at(g, (size_t)x, &tx);
				ri = tx.ri;
				xs = g->ns != NULL ? g->ns[x] : st(g, tx.s);
			} else if (last > xs) { /* the last arrival is on the path already */
				push(&s, g, ri, xs, last, CP_WAITING, "");
			}
		} else if (on >= 0) {
			size_t y = (size_t)on;
			int64_t ye = gend(g, y);
			int64_t from = xs > ye ? xs : ye;
			push(&s, g, ri, from, xn, CP_WAITING, name);
			if (ye > xs && !SEEN(y)) {
				x = (ptrdiff_t)y; /* the task the stream waited for, whole */
				continue;
			}
			push(&s, g, ri, xs, from, CP_WAITING, name);
		} else {
			push(&s, g, ri, xs, xn, kind, name);
		}
		int64_t t = xs;
		if (!g->have_pred[ri])
			rank_preds(g, ri);
		ptrdiff_t p = g->pred[x];
		if (p < 0 || SEEN(p)) {
			push(&s, g, ri, t0, t, CP_WAITING, "");
			break;
		}
		const cp_rank *R = tx.R; /* p is of x's rank */
		int64_t pe = SL_END(R, (size_t)p - g->off[ri]);
		int64_t gap0 = g->ne != NULL ? g->ne[p] : pe;
		if (t > gap0) {
			int64_t hl = 0; /* the part of the gap before the host launched this task */
			int64_t L = INT64_MIN, rs = st(g, tx.s);
			if (R->launch != NULL)
				L = R->launch(R->ctx, rs, &g->lat[ri]);
			if (L != INT64_MIN && L > pe)
				hl = (L < rs ? L : rs) - pe;
			push(&s, g, ri, gap0 + hl, t, CP_IDLE, "");
			push(&s, g, ri, gap0, gap0 + hl, CP_HOST_LAUNCH, "");
		}
		x = p;
	}
#undef SEE
#undef SEEN
	free(seen);
	/* by start */
	for (size_t i = 0, j = s.n ? s.n - 1 : 0; i < j; i++, j--) {
		cp_seg tv = s.v[i];
		s.v[i] = s.v[j];
		s.v[j] = tv;
	}
	out->start = t0;
	out->end = end;
	out->seg = s.v;
	out->nseg = s.n;
	out->names = s.names;
	out->nnames = s.nnames;
	out->who = s.whov;
	out->nwho = s.nwho;
	u64map_free(&s.by);
	free(s.who);
	/* blame by rank and kind: summed as the segments came */
	size_t nb = (g->nranks + 1) * CP__COUNT;
	int64_t *b = s.b;
	out->blame = xcalloc(nb, sizeof *out->blame);
	for (size_t ri = 0; ri <= g->nranks; ri++)
		for (int k = 0; k < CP__COUNT; k++)
			if (b[ri * CP__COUNT + k] != 0)
				out->blame[out->nblame++] =
				    (cp_blame){ri < g->nranks ? g->ranks[ri].rank : -1, (uint8_t)k,
				               b[ri * CP__COUNT + k]};
	free(b);
	step_ops(out);
}

static int
scale_of(const cp_scale *sc, size_t nsc, int rank, const char *name)
{
	int64_t pm = 1000;
	for (size_t i = 0; i < nsc; i++)
		if ((sc[i].rank < 0 || sc[i].rank == rank) &&
		    (sc[i].pattern == NULL || fnmatch(sc[i].pattern, name, 0) == 0))
			pm = pm * sc[i].permille / 1000;
	return (int)(pm > 1000000 ? 1000000 : pm);
}

void
critpath_step(const cp_rank *ranks, size_t nranks, const cp_p2p *p2p, size_t np2p, int64_t t0,
              int64_t t1, const cp_scale *sc, size_t nsc, cp_step *out)
{
	critpath_step_into(ranks, nranks, p2p, np2p, t0, t1, sc, nsc, NULL, 0, out);
}

void
critpath_step_into(const cp_rank *ranks, size_t nranks, const cp_p2p *p2p, size_t np2p, int64_t t0,
                   int64_t t1, const cp_scale *sc, size_t nsc, cp_seg *mem, size_t cap,
                   cp_step *out)
{
	int64_t step = out->step;
	memset(out, 0, sizeof *out);
	out->step = step;
	graph g = {.ranks = ranks, .nranks = nranks, .t0 = t0, .sc = sc, .nsc = nsc};
	g.off = xcalloc(nranks + 1, sizeof *g.off);
	for (size_t r = 0; r < nranks; r++)
		g.off[r + 1] = g.off[r] + ranks[r].n;
	g.n = g.off[nranks];
	if (g.n >= (size_t)INT32_MAX) { /* 2^31 tasks would take 45 GB: none gets here */
		fprintf(stderr, "tl: a step of %zu tasks is more than the critical path takes\n",
		        g.n);
		abort();
	}
	if (nranks >= CP_WHO_MAX) { /* 2^29 ranks: 32 GB of cp_rank alone */
		fprintf(stderr, "tl: %zu ranks are more than the critical path takes\n", nranks);
		abort();
	}
	size_t n1 = g.n ? g.n : 1;
	g.pred = xreallocarray(NULL, n1, sizeof *g.pred);
	g.have_pred = xcalloc(nranks ? nranks : 1, 1);
	g.lat = xcalloc(nranks ? nranks : 1, sizeof *g.lat);
	if (nsc > 0)
		memset(g.have_pred, 1, nranks);
	for (int pass = 0; pass < 2; pass++) { /* count, then fill */
		g.nl = 0;
		for (size_t r = 0; r < nranks; r++)
			for (size_t i = 0; i < ranks[r].n; i++) {
				int k = LANE(&ranks[r], i)->kind;
				if (k != CP_COMM && k != CP_WAITING)
					continue;
				if (pass == 1) {
					g.lx[g.nl] = (uint32_t)(g.off[r] + i);
					g.lv[g.nl] = -1;
				}
				g.nl++;
			}
		if (pass == 0) {
			g.lx = xreallocarray(NULL, g.nl ? g.nl : 1, sizeof *g.lx);
			g.lv = xreallocarray(NULL, g.nl ? g.nl : 1, sizeof *g.lv);
		}
	}
	if (nsc > 0) {
		g.ns = xreallocarray(NULL, n1, sizeof *g.ns);
		g.ne = xreallocarray(NULL, n1, sizeof *g.ne);
		for (size_t x = 0; x < g.n; x++)
			g.ns[x] = g.ne[x] = INT64_MIN;
	}
	link_collectives(&g);
	out->collectives = g.nc;
	for (size_t i = 0; i < np2p; i++) {
		if (p2p[i].send_rank >= nranks || p2p[i].recv_rank >= nranks)
			continue;
		ptrdiff_t rv = find_item(&g, p2p[i].recv_rank, p2p[i].recv_start, NULL, NULL);
		ptrdiff_t sd = find_item(&g, p2p[i].send_rank, p2p[i].send_start, NULL, NULL);
		/* a pair whose receive ended before its send started is not one (clocks) */
		if (rv < 0 || sd < 0 || *link_of(&g, (size_t)rv) >= 0 ||
		    run_end(&g, (size_t)rv) < run_start(&g, (size_t)sd))
			continue;
		*link_of(&g, (size_t)rv) = (int32_t)(-2 - sd);
	}
	link_waits(&g);
	compute_times(&g);
	walk(&g, t0, t1, mem, cap, out);
	free(g.off);
	free(g.pred);
	free(g.have_pred);
	free(g.lat);
	free(g.lx);
	free(g.lv);
	free(g.ns);
	free(g.ne);
	free(g.cstart);
	free(g.cm);
	free(g.clast);
}

void
critpath_step_free(cp_step *s)
{
	free(s->longest);
	free(s->runs);
	free(s->seg);
	free(s->names);
	free(s->who);
	free(s->blame);
	free(s->ops);
	memset(s, 0, sizeof *s);
}

static int
cmp_long(const cp_long *x, const cp_long *y)
{
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return (x->g.start > y->g.start) - (x->g.start < y->g.start);
}

size_t
critpath_longest(const cp_step *s, size_t n, cp_long *out)
{
	size_t top = n < s->nseg ? n : s->nseg, nv = 0;
	for (size_t k = 0; k < s->nseg && top > 0; k++) { /* kept in order as they pass */
		cp_long g = {s->seg[k], cp_seg_end(s, k) - s->seg[k].start};
		if (nv == top && cmp_long(&g, &out[nv - 1]) >= 0)
			continue;
		size_t j = nv < top ? nv++ : nv - 1;
		for (; j > 0 && cmp_long(&g, &out[j - 1]) < 0; j--)
			out[j] = out[j - 1];
		out[j] = g;
	}
	return nv;
}

void
critpath_lean(cp_step *s, size_t n)
{
	size_t cap;
	free(critpath_lean_take(s, n, &cap));
}

cp_seg *
critpath_lean_take(cp_step *s, size_t n, size_t *room)
{
	*room = 0;
	if (s->seg == NULL)
		return NULL;
	s->longest = xcalloc(n ? n : 1, sizeof *s->longest);
	s->nlong = critpath_longest(s, n, s->longest);
	size_t cap = 0;
	for (size_t k = 0; k < s->nseg; k++) {
		int rank = cp_seg_rank(s, &s->seg[k]);
		if (s->nruns > 0 && s->runs[s->nruns - 1].rank == rank)
			s->runs[s->nruns - 1].end = cp_seg_end(s, k);
		else
			VEC_PUSH(s->runs, s->nruns, cap,
			         ((cp_run){s->seg[k].start, cp_seg_end(s, k), rank}));
	}
	cp_seg *mem = s->seg;
	*room = s->nseg;
	s->seg = NULL;
	return mem;
}

int
critpath_meets(const cp_step *s, int rank, int64_t t0, int64_t t1)
{
	if (s->seg == NULL) { /* lean: its runs, which tile the step as the segments did */
		for (size_t k = 0; k < s->nruns && s->runs[k].start < t1; k++)
			if (s->runs[k].end > t0 && (rank < 0 || s->runs[k].rank == rank))
				return 1;
		return 0;
	}
	size_t lo = 0, hi = s->nseg; /* the first segment ending after t0 */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cp_seg_end(s, mid) <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < s->nseg && s->seg[k].start < t1; k++)
		if (rank < 0 || cp_seg_rank(s, &s->seg[k]) == rank)
			return 1;
	return 0;
}

int
critpath_parse_scale(char *s, cp_scale *out, char *err, size_t errlen)
{
	*out = (cp_scale){.pattern = NULL, .rank = -1, .permille = 1000};
	char *eq = strrchr(s, '=');
	if (eq == NULL || eq == s) {
		snprintf(err, errlen,
		         "'%s': expected PATTERN=-N%%, rank:R=-N%% or rank:R:PATTERN=-N%%", s);
		return -1;
	}
	*eq = '\0';
	const char *v = eq + 1;
	int neg = *v == '-';
	if (*v == '-' || *v == '+')
		v++;
	long whole = 0, tenths = 0;
	int digits = 0;
	while (isdigit((unsigned char)*v) && whole < 100000) {
		whole = whole * 10 + (*v++ - '0');
		digits++;
	}
	if (*v == '.' && isdigit((unsigned char)v[1])) {
		tenths = v[1] - '0';
		v += 2;
		while (isdigit((unsigned char)*v))
			v++;
	}
	if (digits == 0 || strcmp(v, "%") != 0) {
		snprintf(err, errlen, "'%s': the change must be a percentage such as -20%%",
		         eq + 1);
		return -1;
	}
	long d = whole * 10 + tenths; /* per mille */
	if (neg && d > 1000) {
		snprintf(err, errlen, "'%s': cannot shorten by more than 100%%", eq + 1);
		return -1;
	}
	out->permille = (int)(neg ? 1000 - d : 1000 + d);
	if (strncmp(s, "rank:", 5) == 0) {
		char *end;
		long r = strtol(s + 5, &end, 10);
		if (end == s + 5 || r < 0 || r > 1000000 || (*end != '\0' && *end != ':')) {
			snprintf(err, errlen, "'%s': rank:R needs a rank number", s);
			return -1;
		}
		out->rank = (int)r;
		if (*end == ':' && end[1] != '\0')
			out->pattern = end + 1;
	} else {
		out->pattern = s;
	}
	return 0;
}
