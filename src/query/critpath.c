/* The critical path of every step (analysis/critpath.h), its tasks taken from the model's
 * device lanes, its collectives matched from their communication lanes, its P2P pairs those of
 * the pipeline analysis, and the host side of each gap from the launches. */
#include "config.h"
#include "analysis/launch.h"
#include "query/query.h"
#include "query/session.h"
#include "util/parallel.h"
#include "util/satint.h"
#include "util/msg.h"
#include "util/sort.h"
#include "util/strpool.h"
#include "util/timefmt.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
tlq_cp_kind_name(int kind)
{
	return kind >= 0 && kind < CP__COUNT ? cp_kind_name[kind] : "?";
}

int
tlq_cp_parse_scale(char *s, cp_scale *out, char *err, size_t errlen)
{
	return critpath_parse_scale(s, out, err, errlen);
}

static int
item_kind(tl_lane_kind k)
{
	switch (k) {
	case TL_LANE_COMPUTE:
	case TL_LANE_OTHER:
		return CP_COMPUTE;
	case TL_LANE_COMM:
		return CP_COMM;
	case TL_LANE_MEMCPY:
		return CP_MEMORY;
	default:
		return -1;
	}
}

/* A rank's tasks in a step: the slices, borrowed, and each one's entry in the lanes (two a
 * track: its kind, and a wait for an event on a track of other work). */
typedef struct rank_tasks {
	uint32_t *lane, *idx; /* while they are gathered */
	size_t n, cap;
	cp_lane *lanes;
	uint32_t *task; /* then packed (cp_rank) */
	unsigned shift;
} rank_tasks;

#define CUT(s) ((s)->start > t0 ? (s)->start : t0)
#define TASK(rt, i) (&(rt)->lanes[(rt)->lane[i]].v[(rt)->idx[i]])

/* The runs of tasks [run[k] .. run[k + 1]), each by start (as cut at t0), merged into one by
 * start (ties: the earlier run first, as a stable sort by start would give). */
static void
merge_runs(rank_tasks *rt, const size_t *run, size_t nrun, int64_t t0)
{
	size_t n = rt->n;
	uint32_t *w = xreallocarray(NULL, n ? n : 1, sizeof *w);
	uint32_t *lw = xreallocarray(NULL, n ? n : 1, sizeof *lw);
	size_t *head = xcalloc(nrun ? nrun : 1, sizeof *head);
	size_t *h = xcalloc(nrun ? nrun : 1, sizeof *h), nh = 0; /* a min-heap of runs */
#define RUN_LESS(a, b)                                                                             \
	(CUT(TASK(rt, head[a])) != CUT(TASK(rt, head[b]))                                          \
	     ? CUT(TASK(rt, head[a])) < CUT(TASK(rt, head[b]))                                     \
	     : (a) < (b))
	for (size_t k = 0; k < nrun; k++) {
		head[k] = run[k];
		if (head[k] == run[k + 1])
			continue;
		size_t i = nh++;
		h[i] = k;
		while (i > 0 && RUN_LESS(h[i], h[(i - 1) / 2])) {
			size_t p = (i - 1) / 2, t = h[p];
			h[p] = h[i];
			h[i] = t;
			i = p;
		}
	}
	for (size_t o = 0; nh > 0; o++) {
		size_t k = h[0];
		lw[o] = rt->lane[head[k]];
		w[o] = rt->idx[head[k]++];
		if (head[k] == run[k + 1])
			h[0] = h[--nh];
		for (size_t i = 0;;) { /* sift the top down */
			size_t l = 2 * i + 1, m = i;
			if (l < nh && RUN_LESS(h[l], h[m]))
				m = l;
			if (l + 1 < nh && RUN_LESS(h[l + 1], h[m]))
				m = l + 1;
			if (m == i)
				break;
			size_t t = h[m];
			h[m] = h[i];
			h[i] = t;
			i = m;
		}
	}
#undef RUN_LESS
	free(h);
	free(head);
	free(rt->idx);
	free(rt->lane);
	rt->idx = w;
	rt->lane = lw;
	rt->cap = n;
}

/* The tasks in order of their starts (as cut at t0) when the tracks' runs are not: a radix
 * sort of the starts, the tasks after them. */
static void
sort_tasks(rank_tasks *rt, int64_t t0)
{
	size_t n = rt->n;
	int64_t *key = xreallocarray(NULL, n, sizeof *key);
	int64_t *val = xreallocarray(NULL, n, sizeof *val);
	for (size_t i = 0; i < n; i++) {
		key[i] = CUT(TASK(rt, i));
		val[i] = (int64_t)i;
	}
	if (!sorted_i64(key, n)) {
		sort_i64_pairs(key, val, n);
		uint32_t *w = xreallocarray(NULL, n, sizeof *w);
		uint32_t *lw = xreallocarray(NULL, n, sizeof *lw);
		for (size_t i = 0; i < n; i++) {
			w[i] = rt->idx[val[i]];
			lw[i] = rt->lane[val[i]];
		}
		free(rt->idx);
		free(rt->lane);
		rt->idx = w;
		rt->lane = lw;
	}
	free(key);
	free(val);
}

/* The tasks packed in 32 bits each (cp_rank's task): each track's slices of the step cut in
 * chunks of 2^shift from the first there, two lanes a chunk (the track's kind, and its event
 * waits); shift the largest that leaves bits enough for the lanes. */
static void
pack_tasks(rank_tasks *rt, size_t ntracks)
{
	size_t nt = ntracks ? ntracks : 1;
	size_t *lo = xreallocarray(NULL, nt, sizeof *lo), *hi = xcalloc(nt, sizeof *hi);
	size_t *base = xcalloc(nt, sizeof *base);
	for (size_t k = 0; k < ntracks; k++)
		lo[k] = SIZE_MAX;
	for (size_t i = 0; i < rt->n; i++) {
		size_t k = rt->lane[i] / 2;
		lo[k] = rt->idx[i] < lo[k] ? rt->idx[i] : lo[k];
		hi[k] = rt->idx[i] + 1 > hi[k] ? rt->idx[i] + 1 : hi[k];
	}
	unsigned sh = 31;
	size_t nl = 0;
	for (;; sh--) { /* a step of fewer than 2^31 tasks fits at 16 bits at the latest */
		nl = 0;
		for (size_t k = 0; k < ntracks; k++)
			if (hi[k] > 0)
				nl += 2 * (((hi[k] - lo[k] - 1) >> sh) + 1);
		if (nl <= (size_t)1 << (32 - sh) || sh == 1)
			break;
	}
	if (nl > (size_t)1 << (32 - sh)) {
		fprintf(stderr, "tl: %zu tasks are more than the critical path takes\n", rt->n);
		abort();
	}
	cp_lane *lanes = xcalloc(nl ? nl : 1, sizeof *lanes);
	for (size_t k = 0, b = 0; k < ntracks; k++) {
		if (hi[k] == 0)
			continue;
		base[k] = b;
		for (size_t c = 0; c <= (hi[k] - lo[k] - 1) >> sh; c++, b += 2) {
			const tl_slice *v = rt->lanes[2 * k].v + lo[k] + (c << sh);
			lanes[b] = (cp_lane){v, rt->lanes[2 * k].kind, rt->lanes[2 * k].group};
			lanes[b + 1] = (cp_lane){v, CP_WAITING, NULL};
		}
	}
	rt->task = xreallocarray(NULL, rt->n ? rt->n : 1, sizeof *rt->task);
	for (size_t i = 0; i < rt->n; i++) {
		size_t k = rt->lane[i] / 2, o = rt->idx[i] - lo[k];
		size_t l = base[k] + 2 * (o >> sh) + (rt->lane[i] & 1);
		rt->task[i] = (uint32_t)(l << sh | (o & (((size_t)1 << sh) - 1)));
	}
	rt->shift = sh;
	free(rt->lanes);
	free(rt->lane);
	free(rt->idx);
	rt->lanes = lanes;
	rt->lane = rt->idx = NULL;
	free(base);
	free(hi);
	free(lo);
}

/* Rank ri's tasks of its step si (index into its steps; SIZE_MAX: a rank without steps, all of
 * them) into *rt, by start; the latest end into *end. */
static void
rank_items(const tl_query *q, size_t ri, size_t si, int64_t t0, int64_t t1, rank_tasks *rt,
           int64_t *end)
{
	const tl_rank *r = tlq_trace(q)->ranks[ri];
	size_t *run = xcalloc(r->ntracks + 1, sizeof *run), nrun = 0;
	int runs_sorted = 1;
	memset(rt, 0, sizeof *rt);
	rt->lanes = xcalloc(2 * r->ntracks + 1, sizeof *rt->lanes);
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		int kind = item_kind(t->kind);
		if (kind < 0 || t->n == 0)
			continue;
		if (t->n > UINT32_MAX || k >= UINT32_MAX / 2) { /* 100 GB of slices: none */
			fprintf(stderr,
			        "tl: a lane of %zu slices is more than the critical path takes\n",
			        t->n);
			abort();
		}
		rt->lanes[2 * k] = (cp_lane){
		    t->v, (uint8_t)kind, kind == CP_COMM ? strpool_get(r->pool, t->label) : NULL};
		rt->lanes[2 * k + 1] = (cp_lane){t->v, CP_WAITING, NULL};
		int tagged = t->step != NULL && si != SIZE_MAX;
		size_t n0 = rt->n;
		/* the step's work runs after its launch, so after the step's start; a tagged
		 * track's later steps follow, so the scan ends past the step's host end at the
		 * first task of a later step */
		size_t i = track_first_ending_after(t, t0);
		for (; i < t->n; i++) {
			const tl_slice *sl = &t->v[i];
			if (tagged) {
				if (t->step[i] != si) {
					if (sl->start >= t1 && t->step[i] != TL_NO_STEP &&
					    t->step[i] > si)
						break;
					continue;
				}
			} else if (sl->start >= t1) {
				break;
			}
			int64_t s = CUT(sl);
			if (sl->end <= s)
				continue;
			uint32_t lane = (uint32_t)(2 * k);
			/* a stream waiting for an event (EVENT_WAIT, Notify Wait outside an op) */
			if (t->kind == TL_LANE_OTHER &&
			    strcasestr(strpool_get(r->pool, sl->name), "wait") != NULL)
				lane++;
			if (rt->n > n0 && s < CUT(TASK(rt, rt->n - 1)))
				runs_sorted = 0;
			if (rt->n == rt->cap) {
				rt->cap = rt->cap ? 2 * rt->cap : 1024;
				rt->idx = xreallocarray(rt->idx, rt->cap, sizeof *rt->idx);
				rt->lane = xreallocarray(rt->lane, rt->cap, sizeof *rt->lane);
			}
			rt->idx[rt->n] = (uint32_t)i;
			rt->lane[rt->n++] = lane;
			if (sl->end > *end)
				*end = sl->end;
		}
		if (rt->n > n0)
			run[nrun++] = n0;
	}
	run[nrun] = rt->n;
	if (rt->n > 1 && nrun > 1 && runs_sorted) /* each track's by start: merged */
		merge_runs(rt, run, nrun, t0);
	else if (rt->n > 1 && !runs_sorted)
		sort_tasks(rt, t0);
	pack_tasks(rt, r->ntracks);
	free(run);
}
#undef TASK
#undef CUT

/* A rank's launches, read at the first gap of the path on it (the session's table would read
 * every rank's), kept in 8 bytes each (launch_pack). */
typedef struct launches {
	const tl_rank *r;
	tl_launch_pack p; /* the rank's, read at the path's first gap there */
	int read;
	pthread_mutex_t lock; /* steps run in parallel */
} launches;

/* The host start of the launch whose device start is the first at or after dev_start (the rule
 * of launch_idle), or INT64_MIN. */
static int64_t
launch_of(void *ctx, int64_t dev_start)
{
	launches *l = ctx;
	pthread_mutex_lock(&l->lock);
	if (!l->read) {
		tl_launch *own;
		size_t n = load_launches(l->r, &own);
		launch_sort_dev(own, n);
		launch_pack(&l->p, own, n);
		free(own);
		l->read = 1;
	}
	pthread_mutex_unlock(&l->lock);
	return launch_pack_next(&l->p, dev_start);
}

/* A rank's stage instances as a map of time: between two consecutive instance boundaries at[j]
 * and at[j + 1] the innermost instance (the first of the deepest) is the same, stage[j]
 * (INT_MIN: none). */
typedef struct stage_map {
	int64_t *at;
	int *stage;
	size_t n; /* boundaries */
	int built;
} stage_map;

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void
stage_map_build(stage_map *m, const tl_stage_inst *in, size_t n)
{
	m->built = 1;
	m->at = xcalloc(2 * n + 1, sizeof *m->at);
	m->stage = xcalloc(2 * n + 1, sizeof *m->stage);
	size_t k = 0;
	for (size_t j = 0; j < n; j++) {
		m->at[k++] = in[j].start;
		m->at[k++] = in[j].end;
	}
	if (k > 1)
		qsort(m->at, k, sizeof *m->at, cmp_i64);
	size_t w = 0;
	for (size_t j = 0; j < k; j++)
		if (w == 0 || m->at[w - 1] != m->at[j])
			m->at[w++] = m->at[j];
	m->n = w;
	for (size_t b = 0; b < w; b++) { /* the rule of each point at[b] .. at[b + 1] */
		int level = -1, st = INT_MIN;
		for (size_t j = 0; j < n; j++)
			if (in[j].start <= m->at[b] && m->at[b] < in[j].end &&
			    in[j].level > level) {
				level = in[j].level;
				st = in[j].stage;
			}
		m->stage[b] = st;
	}
}

static int
stage_map_at(const stage_map *m, int64_t t)
{
	size_t lo = 0, hi = m->n; /* the last boundary at or before t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->at[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? INT_MIN : m->stage[lo - 1];
}

/* The path of step id (-1: the whole trace, no steps) into out, scaled by sc. */
static void
one_step(const tl_query *q, int64_t id, const cp_p2p *p2p, size_t np2p, const cp_scale *sc,
         size_t nsc, launches *lv, cp_step *out, cp_step *whatif)
{
	const tl_trace *tr = tlq_trace(q);
	size_t nr = tr->nranks;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	size_t *si = xcalloc(nr ? nr : 1, sizeof *si);
	for (size_t ri = 0; ri < nr; ri++) {
		const tl_rank *r = tr->ranks[ri];
		si[ri] = SIZE_MAX - 1; /* not in the step */
		if (id < 0) {
			si[ri] = SIZE_MAX;
			if (r->t_min < t0)
				t0 = r->t_min;
			if (r->t_max > t1)
				t1 = r->t_max;
			continue;
		}
		for (size_t j = 0; j < r->nsteps; j++)
			if (r->steps[j].id == id) {
				si[ri] = r->nsteps == 1 ? SIZE_MAX : j;
				t0 = r->steps[j].start < t0 ? r->steps[j].start : t0;
				t1 = r->steps[j].end > t1 ? r->steps[j].end : t1;
				break;
			}
	}
	cp_rank *R = xcalloc(nr ? nr : 1, sizeof *R);
	rank_tasks *rt = xcalloc(nr ? nr : 1, sizeof *rt);
	int64_t end = t1;
	for (size_t ri = 0; ri < nr; ri++) {
		if (si[ri] != SIZE_MAX - 1 && t0 < t1)
			rank_items(q, ri, si[ri], t0, t1, &rt[ri], &end);
		R[ri] = (cp_rank){.rank = tr->ranks[ri]->rank,
		                  .task = rt[ri].task,
		                  .shift = rt[ri].shift,
		                  .n = rt[ri].n,
		                  .lanes = rt[ri].lanes,
		                  .pool = tr->ranks[ri]->pool,
		                  .launch = launch_of,
		                  .ctx = &lv[ri]};
	}
	if (t0 >= t1)
		t0 = t1 = t0 == INT64_MAX ? 0 : t0;
	out->step = id;
	critpath_step(R, nr, p2p, np2p, t0, end, NULL, 0, out);
	if (whatif != NULL) {
		whatif->step = id;
		critpath_step(R, nr, p2p, np2p, t0, end, sc, nsc, whatif);
	}
	/* each segment's stage: the innermost stage instance of its rank around its start (the
	 * first of the deepest), looked up in the rank's stage map */
	stage_map *sm = xcalloc(nr ? nr : 1, sizeof *sm);
	for (int pass = 0; pass < 2; pass++) {
		cp_step *s = pass == 0 ? out : whatif;
		size_t ri = 0;
		for (size_t k = 0; s != NULL && k < s->nseg; k++) {
			cp_seg *g = &s->seg[k];
			if (ri >= nr ||
			    tr->ranks[ri]->rank != g->rank) /* the first rank so numbered */
				for (ri = 0; ri < nr && tr->ranks[ri]->rank != g->rank; ri++)
					;
			if (ri == nr)
				continue;
			if (!sm[ri].built)
				stage_map_build(&sm[ri], q->inst[ri], q->ninst[ri]);
			int st = stage_map_at(&sm[ri], g->start);
			if (st != INT_MIN)
				g->stage = st;
		}
	}
	for (size_t ri = 0; ri < nr; ri++) {
		free(sm[ri].at);
		free(sm[ri].stage);
	}
	free(sm);
	/* the names are the trace's: the tasks can go */
	for (size_t ri = 0; ri < nr; ri++) {
		free(rt[ri].task);
		free(rt[ri].lanes);
	}
	free(rt);
	free(R);
	free(si);
}

/* The steps in parallel: each writes its own results only. */
typedef struct step_job {
	const tl_query *q;
	const int64_t *ids;
	const cp_p2p *p2p;
	size_t np2p;
	const cp_scale *sc;
	size_t nsc;
	launches *lv;
	tl_cp_result *out;
} step_job;

static void
step_run(void *arg, size_t i)
{
	step_job *j = arg;
	one_step(j->q, j->ids[i], j->p2p, j->np2p, j->sc, j->nsc, j->lv, &j->out->steps[i],
	         j->out->whatif ? &j->out->whatif[i] : NULL);
	tlq_release_pages(j->q); /* a step reads every rank's slices of its time: the next
	                          * step's lie further on */
}

static int
cmp_name(const void *a, const void *b)
{
	const cp_name_ns *x = a, *y = b;
	return strcmp(x->name, y->name);
}

static int
cmp_ns(const void *a, const void *b)
{
	const cp_name_ns *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
cmp_blame_ns(const void *a, const void *b)
{
	const cp_blame *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->rank - y->rank;
}

void
tlq_critical(const tl_query *q, const cp_scale *sc, size_t nsc, tl_cp_result *out)
{
	const tl_trace *tr = tlq_trace(q);
	memset(out, 0, sizeof *out);
	int64_t *ids;
	size_t n = tlq_step_ids(q, &ids);
	if (n == 0) {
		ids[0] = -1;
		n = tr->nranks > 0;
	}
	tl_pp_link *l;
	size_t nl = pipeline_p2p_pairs(tr, &l);
	cp_p2p *p2p = xcalloc(nl ? nl : 1, sizeof *p2p);
	for (size_t i = 0; i < nl; i++)
		p2p[i] = (cp_p2p){l[i].from_rank, l[i].to_rank, l[i].send_start, l[i].recv_start};
	free(l);
	out->steps = xcalloc(n ? n : 1, sizeof *out->steps);
	if (nsc > 0)
		out->whatif = xcalloc(n ? n : 1, sizeof *out->whatif);
	out->n = n;
	launches *lv = xcalloc(tr->nranks ? tr->nranks : 1, sizeof *lv);
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		lv[ri].r = tr->ranks[ri];
		pthread_mutex_init(&lv[ri].lock, NULL);
	}
	step_job job = {q, ids, p2p, nl, sc, nsc, lv, out};
	parallel_for(n, 1, step_run, &job); /* one step at a time: a graph is ~30 bytes a task */
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		launch_pack_free(&lv[ri].p);
		pthread_mutex_destroy(&lv[ri].lock);
	}
	free(lv);
	free(p2p);
	free(ids);
	/* over all steps: compute time on the path by name, and path time by rank */
	size_t no = 0, cap = 0;
	cp_blame *rk = NULL;
	size_t nrk = 0, rcap = 0;
	for (size_t i = 0; i < n; i++) {
		const cp_step *s = &out->steps[i];
		for (size_t k = 0; k < s->nops; k++)
			VEC_PUSH(out->ops, no, cap, s->ops[k]);
		for (size_t k = 0; k < s->nblame; k++) {
			size_t j = 0;
			while (j < nrk && rk[j].rank != s->blame[k].rank)
				j++;
			if (j == nrk)
				VEC_PUSH(rk, nrk, rcap,
				         ((cp_blame){s->blame[k].rank, CP__COUNT, 0}));
			rk[j].ns = sat_add(rk[j].ns, s->blame[k].ns);
		}
	}
	if (no > 1)
		qsort(out->ops, no, sizeof *out->ops, cmp_name);
	size_t w = 0;
	for (size_t i = 0; i < no; i++) {
		if (w > 0 && strcmp(out->ops[w - 1].name, out->ops[i].name) == 0)
			out->ops[w - 1].ns = sat_add(out->ops[w - 1].ns, out->ops[i].ns);
		else
			out->ops[w++] = out->ops[i];
	}
	if (w > 1)
		qsort(out->ops, w, sizeof *out->ops, cmp_ns);
	out->nops = w;
	if (nrk > 1)
		qsort(rk, nrk, sizeof *rk, cmp_blame_ns);
	out->ranks = rk;
	out->nranks = nrk;
}

void
tlq_critical_free(tl_cp_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		critpath_step_free(&r->steps[i]);
		if (r->whatif != NULL)
			critpath_step_free(&r->whatif[i]);
	}
	free(r->steps);
	free(r->whatif);
	free(r->ops);
	free(r->ranks);
	free(r->names);
	memset(r, 0, sizeof *r);
}

/* ---- the path beside the rest (tl summary) -------------------------------------------------
 * The job works on a snapshot of the session taken by tlq_critical_start on the caller's
 * thread: the trace and each rank copied shallowly (the tracks, slices, steps and stage
 * instances are the session's, read only), each rank's name pool replaced by a frozen view of
 * it (strpool_view), so that a query of the caller that adds names to a rank's pool meanwhile
 * (the counters' reader) moves nothing the job reads. The rest of a rank the job reads is what
 * the load made and tlq_open prepared: no optional part changes it but the host lanes (new
 * tracks) and tlq_poll, which the caller does not ask for until tlq_critical_join. The job's
 * warnings (a crossed rank's launches read from its files) are held and said at the join,
 * before what the caller's threads said meanwhile (msg_defer_begin): in the order of a path
 * computed first. */
struct tlq_cp_job {
	struct tl_query q; /* the session, its trace the snapshot */
	tl_trace tr;
	tl_rank **ranks; /* the shallow copies */
	tl_cp_result res;
	msg_list warns;
	pthread_t th;
	int threaded;
	int64_t wall_ns, cpu_ns;
};

/* The CPU time path jobs have taken so far: the finished ones' and the running one's clock
 * (tlq_critical_jobs_cpu_ns). */
static pthread_mutex_t jobs_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t jobs_done_ns;
static clockid_t job_clock;
static int job_running;

int64_t
tlq_critical_jobs_cpu_ns(void)
{
	pthread_mutex_lock(&jobs_lock);
	int64_t ns = jobs_done_ns;
	struct timespec t;
	if (job_running && clock_gettime(job_clock, &t) == 0)
		ns += (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
	pthread_mutex_unlock(&jobs_lock);
	return ns;
}

static int64_t
thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void
job_run(tlq_cp_job *j, const tl_query *q)
{
	int64_t t0 = timefmt_mono_ns(), c0 = thread_cpu_ns();
	tlq_critical(q, NULL, 0, &j->res); /* its steps one at a time: a graph is ~30 B a task */
	j->wall_ns = timefmt_mono_ns() - t0;
	j->cpu_ns = thread_cpu_ns() - c0;
}

static void *
job_thread(void *arg)
{
	tlq_cp_job *j = arg;
	msg_hold(1);
	msg_capture(msg_keep, &j->warns);
	job_run(j, &j->q);
	msg_capture(NULL, NULL);
	msg_hold(0);
	return NULL;
}

tlq_cp_job *
tlq_critical_start(const tl_query *q)
{
	tlq_cp_job *j = xcalloc(1, sizeof *j);
	const tl_trace *tr = tlq_trace(q);
	if (parallel_threads(0) < 2 || tr->nranks == 0) { /* one core: nothing to gain */
		job_run(j, q);
		return j;
	}
	j->ranks = xcalloc(tr->nranks, sizeof *j->ranks);
	for (size_t i = 0; i < tr->nranks; i++) {
		j->ranks[i] = xmalloc(sizeof *j->ranks[i]);
		*j->ranks[i] = *tr->ranks[i];
		j->ranks[i]->pool = strpool_view(tr->ranks[i]->pool);
	}
	j->tr = *tr;
	j->tr.ranks = j->ranks;
	j->q = *q;
	j->q.tr = &j->tr;
	msg_defer_begin();
	pthread_mutex_lock(&jobs_lock); /* (one job at a time: tl summary's) */
	j->threaded = pthread_create(&j->th, NULL, job_thread, j) == 0;
	job_running = j->threaded && pthread_getcpuclockid(j->th, &job_clock) == 0;
	pthread_mutex_unlock(&jobs_lock);
	if (!j->threaded) { /* no thread: here, its lines said as they come */
		msg_defer_end(NULL);
		job_run(j, &j->q);
	}
	return j;
}

void
tlq_critical_join(tlq_cp_job *j, tl_cp_result *out, int64_t *wall_ns, int64_t *cpu_ns)
{
	if (j->threaded) {
		pthread_join(j->th, NULL);
		pthread_mutex_lock(&jobs_lock);
		jobs_done_ns += j->cpu_ns;
		job_running = 0;
		pthread_mutex_unlock(&jobs_lock);
		msg_defer_end(&j->warns);
	}
	for (size_t i = 0; j->ranks != NULL && i < j->tr.nranks; i++) {
		strpool_free(j->ranks[i]->pool); /* the view: the names stay the session's */
		free(j->ranks[i]);
	}
	free(j->ranks);
	*out = j->res;
	if (wall_ns != NULL)
		*wall_ns = j->wall_ns;
	if (cpu_ns != NULL)
		*cpu_ns = j->cpu_ns;
	free(j);
}

/* ---- the result as text, kept with the stored results -------------------------------------
 * "tlcp 1" NAMES STEPS NOPS NRANKS, then each name in hex; per step: STEP START END NSEG NBLAME
 * NOPS COLLECTIVES JUMPS, its segments RANK LENGTH KIND STAGE NAME (each starts where the one
 * before ended, the first at the step's start), its blame RANK KIND NS, its operators NAME NS;
 * then the operators NAME NS and ranks RANK NS over all steps. NAME: an index into the names.
 * Numbers in decimal, separated by blanks and newlines. */

typedef struct names_ix {
	tl_u64map map; /* a name's address -> its index (the trace's names are pooled) */
	const char **v;
	size_t n, cap;
} names_ix;

static uint32_t
name_ix(names_ix *x, const char *s)
{
	if (s == NULL)
		s = "";
	uint32_t v;
	if (u64map_get(&x->map, (uint64_t)(uintptr_t)s, &v))
		return v;
	v = (uint32_t)x->n;
	VEC_PUSH(x->v, x->n, x->cap, s);
	u64map_put(&x->map, (uint64_t)(uintptr_t)s, v);
	return v;
}

char *
tlq_critical_encode(const tl_cp_result *r, size_t *len)
{
	names_ix nx = {0};
	u64map_init(&nx.map);
	for (size_t i = 0; i < r->n; i++) { /* the names first, in order of appearance */
		const cp_step *s = &r->steps[i];
		for (size_t k = 0; k < s->nseg; k++)
			name_ix(&nx, s->seg[k].name);
		for (size_t k = 0; k < s->nops; k++)
			name_ix(&nx, s->ops[k].name);
	}
	for (size_t k = 0; k < r->nops; k++)
		name_ix(&nx, r->ops[k].name);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (f == NULL) {
		u64map_free(&nx.map);
		free(nx.v);
		return NULL;
	}
	fprintf(f, "tlcp 1 %zu %zu %zu %zu\n", nx.n, r->n, r->nops, r->nranks);
	for (size_t k = 0; k < nx.n; k++) {
		for (const unsigned char *p = (const unsigned char *)nx.v[k]; *p; p++)
			fprintf(f, "%02x", *p);
		fputs(" .\n", f); /* an empty name is a line of its own too */
	}
	for (size_t i = 0; i < r->n; i++) {
		const cp_step *s = &r->steps[i];
		fprintf(f, "%" PRId64 " %" PRId64 " %" PRId64 " %zu %zu %zu %zu %zu\n", s->step,
		        s->start, s->end, s->nseg, s->nblame, s->nops, s->collectives, s->jumps);
		for (size_t k = 0; k < s->nseg; k++) {
			const cp_seg *g = &s->seg[k];
			uint32_t ix = 0;
			u64map_get(&nx.map, (uint64_t)(uintptr_t)(g->name ? g->name : ""), &ix);
			fprintf(f, "%d %" PRId64 " %d %d %" PRIu32 "\n", g->rank,
			        cp_seg_end(s, k) - g->start, g->kind, g->stage, ix);
		}
		for (size_t k = 0; k < s->nblame; k++)
			fprintf(f, "%d %d %" PRId64 "\n", s->blame[k].rank, s->blame[k].kind,
			        s->blame[k].ns);
		for (size_t k = 0; k < s->nops; k++) {
			uint32_t ix = 0;
			u64map_get(&nx.map, (uint64_t)(uintptr_t)s->ops[k].name, &ix);
			fprintf(f, "%" PRIu32 " %" PRId64 "\n", ix, s->ops[k].ns);
		}
	}
	for (size_t k = 0; k < r->nops; k++) {
		uint32_t ix = 0;
		u64map_get(&nx.map, (uint64_t)(uintptr_t)r->ops[k].name, &ix);
		fprintf(f, "%" PRIu32 " %" PRId64 "\n", ix, r->ops[k].ns);
	}
	for (size_t k = 0; k < r->nranks; k++)
		fprintf(f, "%d %" PRId64 "\n", r->ranks[k].rank, r->ranks[k].ns);
	int bad = fclose(f) != 0;
	u64map_free(&nx.map);
	free(nx.v);
	if (bad) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

typedef struct rdtext {
	const char *p, *end;
	int bad;
} rdtext;

/* The next number, in [lo, hi]; marks the reader bad otherwise. */
static int64_t
rd_num(rdtext *r, int64_t lo, int64_t hi)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\n'))
		r->p++;
	int neg = r->p < r->end && *r->p == '-';
	const char *q = r->p + neg;
	uint64_t v = 0;
	size_t digits = 0;
	for (; q < r->end && *q >= '0' && *q <= '9' && digits < 20; q++, digits++)
		v = v * 10 + (uint64_t)(*q - '0');
	if (digits == 0 || digits >= 20 || (q < r->end && *q != ' ' && *q != '\n')) {
		r->bad = 1;
		return lo;
	}
	r->p = q;
	int64_t x = neg ? -(int64_t)v : (int64_t)v;
	if (x < lo || x > hi) {
		r->bad = 1;
		return lo;
	}
	return x;
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int
tlq_critical_decode(const char *text, size_t len, tl_cp_result *out)
{
	memset(out, 0, sizeof *out);
	rdtext r = {text, text + len, 0};
	if (len < 7 || memcmp(text, "tlcp 1 ", 7) != 0)
		return -1;
	r.p += 7;
	/* counts are bounded by the text's length: every item takes at least two bytes */
	int64_t cap = (int64_t)len;
	size_t nnames = (size_t)rd_num(&r, 0, cap), n = (size_t)rd_num(&r, 0, cap),
	       nops = (size_t)rd_num(&r, 0, cap), nranks = (size_t)rd_num(&r, 0, cap);
	if (r.bad)
		return -1;
	const char **name = xcalloc(nnames ? nnames : 1, sizeof *name);
	size_t *off = xcalloc(nnames ? nnames : 1, sizeof *off);
	out->names = xmalloc(len + 1); /* the names' bytes are fewer than the text's */
	size_t w = 0;
	for (size_t k = 0; k < nnames && !r.bad; k++) {
		if (r.p < r.end && *r.p == '\n')
			r.p++;
		off[k] = w;
		while (r.p + 1 < r.end && *r.p != ' ') {
			int a = hexval(r.p[0]), b = hexval(r.p[1]);
			if (a < 0 || b < 0 || (a | b) == 0) { /* a NUL is no name's byte */
				r.bad = 1;
				break;
			}
			out->names[w++] = (char)(a << 4 | b);
			r.p += 2;
		}
		if (r.end - r.p < 2 || r.p[0] != ' ' || r.p[1] != '.')
			r.bad = 1;
		else
			r.p += 2;
		out->names[w++] = '\0';
	}
	for (size_t k = 0; k < nnames; k++)
		name[k] = out->names + off[k];
	free(off);
	int64_t nmax = nnames ? (int64_t)nnames - 1 : -1;
	out->steps = xcalloc(n ? n : 1, sizeof *out->steps);
	out->n = n;
	for (size_t i = 0; i < n && !r.bad; i++) {
		cp_step *s = &out->steps[i];
		s->step = rd_num(&r, -1, INT64_MAX);
		s->start = rd_num(&r, INT64_MIN, INT64_MAX);
		s->end = rd_num(&r, s->start, INT64_MAX);
		size_t nseg = (size_t)rd_num(&r, 0, cap), nblame = (size_t)rd_num(&r, 0, cap),
		       nop = (size_t)rd_num(&r, 0, cap);
		s->collectives = (size_t)rd_num(&r, 0, INT64_MAX);
		s->jumps = (size_t)rd_num(&r, 0, INT64_MAX);
		if (r.bad)
			break;
		s->seg = xcalloc(nseg ? nseg : 1, sizeof *s->seg);
		int64_t t = s->start;
		for (size_t k = 0; k < nseg && !r.bad; k++, s->nseg++) {
			cp_seg *g = &s->seg[k];
			g->rank = (int)rd_num(&r, INT32_MIN, INT32_MAX);
			g->start = t;
			t = t + rd_num(&r, 1, s->end - t);
			g->kind = (uint8_t)rd_num(&r, 0, CP__COUNT - 1);
			g->stage = (int)rd_num(&r, -1, INT32_MAX);
			int64_t ix = rd_num(&r, 0, nmax);
			g->name = r.bad ? "" : name[ix];
		}
		if (t != s->end)
			r.bad = 1;
		s->blame = xcalloc(nblame ? nblame : 1, sizeof *s->blame);
		for (size_t k = 0; k < nblame && !r.bad; k++, s->nblame++) {
			s->blame[k].rank = (int)rd_num(&r, INT32_MIN, INT32_MAX);
			s->blame[k].kind = (uint8_t)rd_num(&r, 0, CP__COUNT - 1);
			s->blame[k].ns = rd_num(&r, 0, INT64_MAX);
		}
		s->ops = xcalloc(nop ? nop : 1, sizeof *s->ops);
		for (size_t k = 0; k < nop && !r.bad; k++, s->nops++) {
			int64_t ix = rd_num(&r, 0, nmax);
			s->ops[k].name = r.bad ? "" : name[ix];
			s->ops[k].ns = rd_num(&r, 0, INT64_MAX);
		}
	}
	out->ops = xcalloc(nops ? nops : 1, sizeof *out->ops);
	for (size_t k = 0; k < nops && !r.bad; k++, out->nops++) {
		int64_t ix = rd_num(&r, 0, nmax);
		out->ops[k].name = r.bad ? "" : name[ix];
		out->ops[k].ns = rd_num(&r, 0, INT64_MAX);
	}
	out->ranks = xcalloc(nranks ? nranks : 1, sizeof *out->ranks);
	for (size_t k = 0; k < nranks && !r.bad; k++, out->nranks++) {
		out->ranks[k].rank = (int)rd_num(&r, INT32_MIN, INT32_MAX);
		out->ranks[k].kind = CP__COUNT;
		out->ranks[k].ns = rd_num(&r, 0, INT64_MAX);
	}
	while (r.p < r.end && *r.p == '\n')
		r.p++;
	free(name);
	if (r.bad || r.p != r.end) {
		tlq_critical_free(out);
		return -1;
	}
	return 0;
}
