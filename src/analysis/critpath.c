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

/* The step's graph: every rank's tasks under one index g = off[r] + i. */
typedef struct graph {
	const cp_rank *ranks;
	size_t nranks, n;
	size_t *off;        /* nranks + 1 */
	size_t *rank_of;    /* per task: rank index */
	const cp_item **it; /* per task */
	ptrdiff_t *pred;    /* the task that finished last before it started, -1 */
	ptrdiff_t *coll;    /* its collective instance (index into cstart), -1 */
	ptrdiff_t *send;    /* a receive's send, -1 */
	ptrdiff_t *on;      /* an event wait's task: the one that ended last before it did, -1 */
	int *pm;            /* per mille its duration is scaled by */
	int64_t *ns, *ne;   /* the times in the graph, scaled */
	unsigned char *started;
	/* collective instances: members m[cstart[c] .. cstart[c + 1]), last arrival as it ran */
	size_t *cstart, *cm, nc;
	int64_t *clast;
} graph;

static int64_t
scale(int64_t d, int pm)
{
	if (pm == 1000)
		return d;
	return d / 1000 * pm + d % 1000 * pm / 1000;
}

/* The task of rank r starting at start (a communication op named name when name is not NULL). */
static ptrdiff_t
find_item(const graph *g, size_t r, int64_t start, const char *name)
{
	const cp_rank *R = &g->ranks[r];
	size_t lo = 0, hi = R->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (R->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < R->n && R->v[i].start == start; i++)
		if (R->v[i].kind == CP_COMM && (name == NULL || strcmp(R->v[i].name, name) == 0))
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
		size_t o = g->off[r], n = g->off[r + 1] - o;
		for (size_t i = 0; i < n; i++) {
			const cp_item *w = g->it[o + i];
			if (w->kind != CP_WAITING)
				continue;
			size_t lo = i, hi = n; /* first starting at or after the wait's end */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (g->it[o + mid]->start < w->end)
					lo = mid + 1;
				else
					hi = mid;
			}
			ptrdiff_t best = -1;
			for (size_t k = lo, tries = 0; k > 0 && tries < 256; k--, tries++) {
				const cp_item *y = g->it[o + k - 1];
				if (k - 1 == i || y->kind == CP_WAITING || y->end > w->end ||
				    y->end <= w->start)
					continue;
				if (best < 0 || y->end > g->it[best]->end)
					best = (ptrdiff_t)(o + k - 1);
			}
			g->on[o + i] = best;
		}
	}
}

static void
link_collectives(graph *g)
{
	tl_coll_entry *e = NULL;
	size_t ne = 0, cap = 0;
	for (size_t x = 0; x < g->n; x++) {
		const cp_item *it = g->it[x];
		if (it->kind != CP_COMM || it->group == NULL || coll_p2p_kind(it->name) != 0)
			continue;
		tl_coll_entry en = {.rank = (int)g->rank_of[x],
		                    .group = it->group,
		                    .name = it->name,
		                    .step = 0,
		                    .start = it->start,
		                    .end = it->end};
		VEC_PUSH(e, ne, cap, en);
	}
	tl_coll *c;
	size_t nc = coll_match(e, ne, &c);
	g->cstart = xcalloc(nc + 1, sizeof *g->cstart);
	g->clast = xcalloc(nc ? nc : 1, sizeof *g->clast);
	size_t nm = 0;
	for (size_t i = 0; i < nc; i++)
		nm += c[i].n;
	g->cm = xcalloc(nm ? nm : 1, sizeof *g->cm);
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
			                        c[i].name);
			/* an op that ended before the last member arrived (clocks not aligned, or
			 * not one call): no instance, its members stay plain tasks */
			if (x < 0 || g->coll[x] >= 0 || g->it[x]->end < last)
				ok = 0;
			else
				g->cm[m++] = (size_t)x;
		}
		if (!ok)
			continue;
		for (size_t k = m0; k < m; k++)
			g->coll[g->cm[k]] = (ptrdiff_t)w;
		g->clast[w] = last;
		g->cstart[++w] = m;
	}
	g->nc = w;
	coll_free(c, nc);
	free(e);
}

static int64_t
start_of(const graph *g, size_t x)
{
	return g->started[x] ? g->ns[x] : g->it[x]->start;
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

/* A task's end in the graph's times, computed once, when every start it depends on is known
 * (the forward pass asks for it only once past its end as it ran). */
static int64_t
end_of(graph *g, size_t x)
{
	if (g->ne[x] != INT64_MIN)
		return g->ne[x];
	const cp_item *it = g->it[x];
	int64_t s = start_of(g, x), e;
	if (g->coll[x] >= 0) {
		size_t c = (size_t)g->coll[x], who;
		int64_t last = coll_last(g, c, &who);
		e = (s > last ? s : last) + scale(it->end - g->clast[c], g->pm[x]);
	} else if (g->on[x] >= 0) {
		int64_t oe = g->it[g->on[x]]->end, from = it->start > oe ? it->start : oe;
		int64_t on = end_of(g, (size_t)g->on[x]); /* not a wait: no deeper */
		e = (s > on ? s : on) + scale(it->end - from, g->pm[x]);
	} else if (g->send[x] >= 0) {
		int64_t ss = g->it[g->send[x]]->start, from = it->start > ss ? it->start : ss;
		int64_t sn = start_of(g, (size_t)g->send[x]);
		e = (s > sn ? s : sn) + scale(it->end - from, g->pm[x]);
	} else {
		e = s + scale(it->end - it->start, g->pm[x]);
	}
	return g->ne[x] = e;
}

/* A binary min-heap of indexes by key(ctx, index), ties by index. */
typedef struct minheap {
	size_t *v, n;
} minheap;

static int
heap_less(const graph *g, int by_end, size_t a, size_t b, const size_t *head)
{
	int64_t ka = by_end ? g->it[a]->end : g->it[head[a]]->start;
	int64_t kb = by_end ? g->it[b]->end : g->it[head[b]]->start;
	return ka != kb ? ka < kb : a < b;
}

static void
heap_push(minheap *h, const graph *g, int by_end, const size_t *head, size_t x)
{
	size_t i = h->n++;
	h->v[i] = x;
	while (i > 0 && heap_less(g, by_end, h->v[i], h->v[(i - 1) / 2], head)) {
		size_t p = (i - 1) / 2, t = h->v[p];
		h->v[p] = h->v[i];
		h->v[i] = t;
		i = p;
	}
}

static size_t
heap_pop(minheap *h, const graph *g, int by_end, const size_t *head)
{
	size_t top = h->v[0], i = 0;
	h->v[0] = h->v[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < h->n && heap_less(g, by_end, h->v[l], h->v[m], head))
			m = l;
		if (l + 1 < h->n && heap_less(g, by_end, h->v[l + 1], h->v[m], head))
			m = l + 1;
		if (m == i)
			break;
		size_t t = h->v[m];
		h->v[m] = h->v[i];
		h->v[i] = t;
		i = m;
	}
	return top;
}

/* One pass over every task in the order of the starts as they ran (the ranks merged): each
 * task's predecessor is the task of its rank that finished last before it started (from a heap
 * of the rank's running tasks by end), and its start in the graph's times follows that task's
 * end by the gap there was. Then every end. */
static void
compute_times(graph *g)
{
	size_t *head = xcalloc(g->nranks ? g->nranks : 1, sizeof *head);
	ptrdiff_t *best = xcalloc(g->nranks ? g->nranks : 1, sizeof *best);
	minheap *run = xcalloc(g->nranks ? g->nranks : 1, sizeof *run);
	size_t *runv = xreallocarray(NULL, g->n ? g->n : 1, sizeof *runv);
	minheap rk = {xreallocarray(NULL, g->nranks ? g->nranks : 1, sizeof *rk.v), 0};
	for (size_t r = 0; r < g->nranks; r++) {
		head[r] = g->off[r];
		best[r] = -1;
		run[r].v = runv + g->off[r];
		if (head[r] < g->off[r + 1])
			heap_push(&rk, g, 0, head, r);
	}
	while (rk.n > 0) {
		size_t r = heap_pop(&rk, g, 0, head), x = head[r]++;
		const cp_item *it = g->it[x];
		while (run[r].n > 0 && g->it[run[r].v[0]]->end <= it->start) {
			size_t y = heap_pop(&run[r], g, 1, head);
			if (best[r] < 0 || g->it[y]->end > g->it[best[r]]->end ||
			    (g->it[y]->end == g->it[best[r]]->end &&
			     g->it[y]->start >= g->it[best[r]]->start))
				best[r] = (ptrdiff_t)y;
		}
		ptrdiff_t p = g->pred[x] = best[r];
		g->ns[x] = p >= 0 ? end_of(g, (size_t)p) + (it->start - g->it[p]->end) : it->start;
		g->started[x] = 1;
		heap_push(&run[r], g, 1, head, x);
		if (head[r] < g->off[r + 1])
			heap_push(&rk, g, 0, head, r);
	}
	for (size_t x = 0; x < g->n; x++)
		end_of(g, x);
	free(rk.v);
	free(runv);
	free(run);
	free(best);
	free(head);
}

typedef struct segv {
	cp_seg *v;
	size_t *ri; /* rank index per segment */
	size_t n, cap;
} segv;

static void
push(segv *s, const graph *g, size_t ri, int64_t a, int64_t b, int kind, const char *name)
{
	if (b <= a)
		return;
	if (s->n > 0) { /* walking backwards: the previous one follows this one */
		cp_seg *p = &s->v[s->n - 1];
		if (s->ri[s->n - 1] == ri && p->kind == kind && p->start == b &&
		    strcmp(p->name, name) == 0) {
			p->start = a;
			return;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
		s->ri = xreallocarray(s->ri, s->cap, sizeof *s->ri);
	}
	s->ri[s->n] = ri;
	s->v[s->n++] = (cp_seg){.rank = ri < g->nranks ? g->ranks[ri].rank : -1,
	                        .start = a,
	                        .end = b,
	                        .kind = (uint8_t)kind,
	                        .name = name,
	                        .stage = -1};
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

static void
walk(graph *g, int64_t t0, int64_t t1, cp_step *out)
{
	segv s = {0};
	/* the step's end: after every rank's last task, the time from the latest of them to the
	 * step's end (the host's) kept */
	ptrdiff_t x = -1;
	int64_t end = t0, last_end = INT64_MIN;
	for (size_t k = 0; k < g->n; k++) {
		if (g->it[k]->end > last_end)
			last_end = g->it[k]->end;
		if (x < 0 || g->ne[k] > g->ne[x])
			x = (ptrdiff_t)k;
	}
	if (x >= 0)
		end = g->ne[x] + (t1 > last_end ? t1 - last_end : 0);
	if (x < 0) {
		end = t1;
		push(&s, g, g->nranks > 0 ? 0 : SIZE_MAX, t0, t1, CP_WAITING, "");
	} else {
		push(&s, g, g->rank_of[x], g->ne[x], end, CP_WAITING, "");
	}
	unsigned char *seen = xcalloc(g->n ? g->n : 1, 1);
	while (x >= 0) {
		seen[x] = 1;
		const cp_item *it = g->it[x];
		size_t ri = g->rank_of[x];
		if (g->coll[x] >= 0 || g->send[x] >= 0) {
			size_t who = (size_t)x;
			int64_t last;
			if (g->coll[x] >= 0)
				last = coll_last(g, (size_t)g->coll[x], &who);
			else
				last = g->ns[who = (size_t)g->send[x]];
			int64_t from = g->ns[x] > last ? g->ns[x] : last;
			push(&s, g, ri, from, g->ne[x], CP_COMM, it->name);
			if (last > g->ns[x] && who != (size_t)x && !seen[who]) {
				x = (ptrdiff_t)who; /* through the rank that arrived last */
				seen[x] = 1;
				out->jumps++;
				it = g->it[x];
				ri = g->rank_of[x];
			} else if (last > g->ns[x]) { /* the last arrival is on the path already */
				push(&s, g, ri, g->ns[x], last, CP_WAITING, "");
			}
		} else if (g->on[x] >= 0) {
			size_t y = (size_t)g->on[x];
			int64_t from = g->ns[x] > g->ne[y] ? g->ns[x] : g->ne[y];
			push(&s, g, ri, from, g->ne[x], CP_WAITING, it->name);
			if (g->ne[y] > g->ns[x] && !seen[y]) {
				x = (ptrdiff_t)y; /* the task the stream waited for, whole */
				continue;
			}
			push(&s, g, ri, g->ns[x], from, CP_WAITING, it->name);
		} else {
			push(&s, g, ri, g->ns[x], g->ne[x], it->kind, it->name);
		}
		int64_t t = g->ns[x];
		ptrdiff_t p = g->pred[x];
		if (p < 0 || seen[p]) {
			push(&s, g, ri, t0, t, CP_WAITING, "");
			break;
		}
		int64_t gap0 = g->ne[p];
		if (t > gap0) {
			int64_t hl = 0; /* the part of the gap before the host launched this task */
			const cp_rank *R = &g->ranks[ri];
			int64_t L = it->host_launch;
			if (L == INT64_MIN && R->launch != NULL)
				L = R->launch(R->ctx, it->start);
			if (L != INT64_MIN && L > g->it[p]->end)
				hl = (L < it->start ? L : it->start) - g->it[p]->end;
			push(&s, g, ri, gap0 + hl, t, CP_IDLE, "");
			push(&s, g, ri, gap0, gap0 + hl, CP_HOST_LAUNCH, "");
		}
		x = p;
	}
	free(seen);
	/* by start */
	for (size_t i = 0, j = s.n ? s.n - 1 : 0; i < j; i++, j--) {
		cp_seg tv = s.v[i];
		s.v[i] = s.v[j];
		s.v[j] = tv;
		size_t tr = s.ri[i];
		s.ri[i] = s.ri[j];
		s.ri[j] = tr;
	}
	out->start = t0;
	out->end = end;
	out->seg = s.v;
	out->nseg = s.n;
	/* blame by rank and kind */
	size_t nb = (g->nranks + 1) * CP__COUNT;
	int64_t *b = xcalloc(nb, sizeof *b);
	size_t nops = 0;
	for (size_t i = 0; i < s.n; i++) {
		size_t ri = s.ri[i] < g->nranks ? s.ri[i] : g->nranks;
		b[ri * CP__COUNT + s.v[i].kind] =
		    sat_add(b[ri * CP__COUNT + s.v[i].kind], s.v[i].end - s.v[i].start);
		nops += s.v[i].kind == CP_COMPUTE;
	}
	out->blame = xcalloc(nb, sizeof *out->blame);
	for (size_t ri = 0; ri <= g->nranks; ri++)
		for (int k = 0; k < CP__COUNT; k++)
			if (b[ri * CP__COUNT + k] != 0)
				out->blame[out->nblame++] =
				    (cp_blame){ri < g->nranks ? g->ranks[ri].rank : -1, (uint8_t)k,
				               b[ri * CP__COUNT + k]};
	free(b);
	/* compute time by name: summed by the name's address first (the names are pooled per
	 * rank, so few), then by the name */
	cp_name_ns *o = xcalloc(nops ? nops : 1, sizeof *o);
	size_t no = 0;
	tl_u64map by;
	u64map_init(&by);
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].kind != CP_COMPUTE)
			continue;
		uint32_t k;
		int64_t d = s.v[i].end - s.v[i].start;
		if (u64map_get(&by, (uint64_t)(uintptr_t)s.v[i].name, &k)) {
			o[k].ns = sat_add(o[k].ns, d);
		} else {
			u64map_put(&by, (uint64_t)(uintptr_t)s.v[i].name, (uint32_t)no);
			o[no++] = (cp_name_ns){s.v[i].name, d};
		}
	}
	u64map_free(&by);
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
	free(s.ri);
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
	int64_t step = out->step;
	memset(out, 0, sizeof *out);
	out->step = step;
	graph g = {.ranks = ranks, .nranks = nranks};
	g.off = xcalloc(nranks + 1, sizeof *g.off);
	for (size_t r = 0; r < nranks; r++)
		g.off[r + 1] = g.off[r] + ranks[r].n;
	g.n = g.off[nranks];
	size_t n1 = g.n ? g.n : 1;
	g.rank_of = xcalloc(n1, sizeof *g.rank_of);
	g.it = xcalloc(n1, sizeof *g.it);
	g.pred = xcalloc(n1, sizeof *g.pred);
	g.coll = xcalloc(n1, sizeof *g.coll);
	g.send = xcalloc(n1, sizeof *g.send);
	g.on = xcalloc(n1, sizeof *g.on);
	g.pm = xcalloc(n1, sizeof *g.pm);
	g.ns = xcalloc(n1, sizeof *g.ns);
	g.ne = xcalloc(n1, sizeof *g.ne);
	g.started = xcalloc(n1, 1);
	for (size_t r = 0; r < nranks; r++)
		for (size_t i = 0; i < ranks[r].n; i++) {
			size_t x = g.off[r] + i;
			g.rank_of[x] = r;
			g.it[x] = &ranks[r].v[i];
			g.coll[x] = g.send[x] = g.on[x] = -1;
			g.ne[x] = INT64_MIN;
			g.pm[x] = nsc ? scale_of(sc, nsc, ranks[r].rank, ranks[r].v[i].name) : 1000;
		}
	link_collectives(&g);
	out->collectives = g.nc;
	for (size_t i = 0; i < np2p; i++) {
		if (p2p[i].send_rank >= nranks || p2p[i].recv_rank >= nranks)
			continue;
		ptrdiff_t rv = find_item(&g, p2p[i].recv_rank, p2p[i].recv_start, NULL);
		ptrdiff_t sd = find_item(&g, p2p[i].send_rank, p2p[i].send_start, NULL);
		/* a pair whose receive ended before its send started is not one (clocks) */
		if (rv < 0 || sd < 0 || g.coll[rv] >= 0 || g.it[rv]->end < g.it[sd]->start)
			continue;
		g.send[rv] = sd;
	}
	link_waits(&g);
	compute_times(&g);
	walk(&g, t0, t1, out);
	free(g.off);
	free(g.rank_of);
	free(g.it);
	free(g.pred);
	free(g.coll);
	free(g.send);
	free(g.on);
	free(g.pm);
	free(g.ns);
	free(g.ne);
	free(g.started);
	free(g.cstart);
	free(g.cm);
	free(g.clast);
}

void
critpath_step_free(cp_step *s)
{
	free(s->seg);
	free(s->blame);
	free(s->ops);
	memset(s, 0, sizeof *s);
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
