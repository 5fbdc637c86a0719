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
#include <sys/mman.h>

const char *
tlq_cp_kind_name(int kind)
{
	return kind >= 0 && kind < CP__COUNT ? cp_kind_name[kind] : "?";
}

size_t
tlq_cp_longest(const cp_step *s, size_t n, cp_long *out)
{
	return critpath_longest(s, n, out);
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
	size_t *lo, *hi; /* per track: its first task's slice and its last's + 1 (0, 0: none) */
	size_t last1;    /* cp_rank's */
} rank_tasks;

#define CUT(s) ((s)->start > t0 ? (s)->start : t0)
#define TASK(rt, i) (&(rt)->lanes[(rt)->lane[i]].v[(rt)->idx[i]])

/* merge_runs's heap: a run and its next task's start. */
typedef struct run_head {
	int64_t at; /* the next task's start, cut */
	size_t k;   /* the run */
} run_head;

#define RUN_LESS(a, b) ((a).at != (b).at ? (a).at < (b).at : (a).k < (b).k)

/* Task i's 32 bits (cp_rank's task): its track's slices cut in chunks of 2^sh from lo[k], two
 * lanes a chunk from base[k] (pack_tasks's). */
static inline uint32_t
task_code(const rank_tasks *rt, const size_t *base, unsigned sh, size_t i)
{
	size_t k = rt->lane[i] / 2, o = rt->idx[i] - rt->lo[k];
	size_t l = base[k] + 2 * (o >> sh) + (rt->lane[i] & 1);
	return (uint32_t)(l << sh | (o & (((size_t)1 << sh) - 1)));
}

/* The runs of tasks [run[k] .. run[k + 1]), each by start (as cut at t0), merged into one by
 * start (ties: the earlier run first, as a stable sort by start would give) into out, each task
 * as task_code's: a min-heap of the runs by their next task's start, held beside each (read
 * once a task). */
static void
merge_runs(const rank_tasks *rt, const size_t *run, size_t nrun, int64_t t0, const size_t *base,
           unsigned sh, uint32_t *out)
{
	size_t *head = xcalloc(nrun ? nrun : 1, sizeof *head);
	run_head *h = xcalloc(nrun ? nrun : 1, sizeof *h);
	size_t nh = 0;
	for (size_t k = 0; k < nrun; k++) {
		head[k] = run[k];
		if (head[k] == run[k + 1])
			continue;
		run_head x = {CUT(TASK(rt, head[k])), k};
		size_t i = nh++;
		for (; i > 0 && RUN_LESS(x, h[(i - 1) / 2]); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = x;
	}
	for (size_t o = 0; nh > 0; o++) {
		size_t k = h[0].k;
		out[o] = task_code(rt, base, sh, head[k]++);
		run_head x; /* the top's next, or the last's: sifted down from the top */
		if (head[k] == run[k + 1])
			x = h[--nh];
		else
			x = (run_head){CUT(TASK(rt, head[k])), k};
		size_t i = 0;
		for (;;) {
			size_t l = 2 * i + 1, m = l;
			if (l >= nh)
				break;
			if (l + 1 < nh && RUN_LESS(h[l + 1], h[l]))
				m = l + 1;
			if (!RUN_LESS(h[m], x))
				break;
			h[i] = h[m];
			i = m;
		}
		if (nh > 0)
			h[i] = x;
	}
	free(h);
	free(head);
}
#undef RUN_LESS

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
 * waits); shift the largest that leaves bits enough for the lanes. The tasks' runs (nrun > 1:
 * each by start, merged as they are packed) or the tasks by start already. */
static void
pack_tasks(rank_tasks *rt, size_t ntracks, const size_t *run, size_t nrun, int64_t t0)
{
	size_t nt = ntracks ? ntracks : 1, *lo = rt->lo, *hi = rt->hi;
	size_t *base = xcalloc(nt, sizeof *base);
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
			const tl_track *t = rt->lanes[2 * k].t;
			lanes[b] = (cp_lane){t, v, rt->lanes[2 * k].kind, rt->lanes[2 * k].group};
			lanes[b + 1] = (cp_lane){t, v, CP_WAITING, NULL};
		}
	}
	rt->task = xreallocarray(NULL, rt->n ? rt->n : 1, sizeof *rt->task);
	if (nrun > 1) {
		merge_runs(rt, run, nrun, t0, base, sh, rt->task);
	} else {
		for (size_t i = 0; i < rt->n; i++)
			rt->task[i] = task_code(rt, base, sh, i);
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
	rt->lo = rt->hi = NULL;
}

/* The first task (packed, by start) ending at late among those starting at late_s (as cut at
 * t0), the earliest start of the tasks ending at late, the latest end: the first task in order
 * with the latest end (SIZE_MAX: none found). */
static size_t
latest_task(const rank_tasks *rt, int64_t t0, int64_t late, int64_t late_s)
{
#define LANE_OF(i) cp_task_lane(rt->lanes, rt->task, rt->shift, i)
#define SLICE_OF(i) cp_task_slice(LANE_OF(i), rt->task, rt->shift, i)
	size_t lo = 0, hi = rt->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (CUT(SLICE_OF(mid)) < late_s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < rt->n && CUT(SLICE_OF(lo)) == late_s; lo++)
		if (slice_end(LANE_OF(lo)->t, SLICE_OF(lo)) == late)
			return lo;
	return SIZE_MAX; /* (none: the graph looks) */
#undef SLICE_OF
#undef LANE_OF
}

/* Whether names are of an event wait, for the last few names seen (by id, in the rank's
 * pool): a stream of other work repeats a few names. */
typedef struct wait_cache {
	uint32_t name[64];
	unsigned char ok[64], wait[64]; /* ok: the entry is one */
} wait_cache;

static int
is_wait(wait_cache *c, const tl_strpool *pool, uint32_t name)
{
	size_t h = name % 64;
	if (!c->ok[h] || c->name[h] != name) {
		c->name[h] = name;
		c->ok[h] = 1;
		c->wait[h] = strcasestr(strpool_get(pool, name), "wait") != NULL;
	}
	return c->wait[h];
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
	rt->lo = xcalloc(r->ntracks + 1, sizeof *rt->lo);
	rt->hi = xcalloc(r->ntracks + 1, sizeof *rt->hi);
	int64_t prev = INT64_MIN;                     /* the last task's start, cut */
	int64_t late = INT64_MIN, late_s = INT64_MAX; /* the latest end, its earliest start */
	wait_cache wc;
	memset(wc.ok, 0, sizeof wc.ok);
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
		rt->lanes[2 * k] =
		    (cp_lane){t, t->v, (uint8_t)kind,
		              kind == CP_COMM ? strpool_get(r->pool, t->label) : NULL};
		rt->lanes[2 * k + 1] = (cp_lane){t, t->v, CP_WAITING, NULL};
		int tagged = track_has_steps(t) && si != SIZE_MAX;
		tl_step_cursor sc;
		step_cursor_init(&sc, t);
		size_t n0 = rt->n;
		/* the step's work runs after its launch, so after the step's start; a tagged
		 * track's later steps follow, so the scan ends past the step's host end at the
		 * first task of a later step */
		size_t i = track_first_ending_after(t, t0);
		for (; i < t->n; i++) {
			const tl_slice *sl = &t->v[i];
			if (tagged) {
				uint16_t st = step_cursor_at(&sc, i);
				if (st != si) {
					if (sl->start >= t1 && st != TL_NO_STEP && st > si)
						break;
					continue;
				}
			} else if (sl->start >= t1) {
				break;
			}
			int64_t s = CUT(sl), e = slice_end(t, sl);
			if (e <= s)
				continue;
			uint32_t lane = (uint32_t)(2 * k);
			/* a stream waiting for an event (EVENT_WAIT, Notify Wait outside an op) */
			if (t->kind == TL_LANE_OTHER && is_wait(&wc, r->pool, sl->name))
				lane++;
			if (rt->n > n0 && s < prev)
				runs_sorted = 0;
			prev = s;
			if (rt->n == rt->cap) {
				rt->cap = rt->cap ? 2 * rt->cap : 1024;
				rt->idx = xreallocarray(rt->idx, rt->cap, sizeof *rt->idx);
				rt->lane = xreallocarray(rt->lane, rt->cap, sizeof *rt->lane);
			}
			rt->idx[rt->n] = (uint32_t)i;
			rt->lane[rt->n++] = lane;
			if (e > *end)
				*end = e;
			if (e > late || (e == late && s < late_s)) {
				late = e;
				late_s = s;
			}
		}
		if (rt->n > n0) {
			run[nrun++] = n0;
			rt->lo[k] = rt->idx[n0];
			rt->hi[k] = rt->idx[rt->n - 1] + (size_t)1;
		}
	}
	run[nrun] = rt->n;
	if (rt->n > 1 && !runs_sorted)
		sort_tasks(rt, t0);
	/* each track's by start: merged as they are packed */
	pack_tasks(rt, r->ntracks, run, rt->n > 1 && runs_sorted ? nrun : 1, t0);
	rt->last1 = rt->n > 0 ? latest_task(rt, t0, late, late_s) + 1 : 0; /* (SIZE_MAX + 1: 0) */
	free(run);
}
#undef TASK
#undef CUT

/* A rank's launches, read at the first gap of the path on it (the session's table would read
 * every rank's), kept in 8 bytes each (launch_pack). */
typedef struct launches {
	const tl_rank *r;
	tl_launch_pack p;     /* the rank's, read at the path's first gap there */
	int read;             /* p is (an atomic load: set once, under lock) */
	pthread_mutex_t lock; /* steps run in parallel */
} launches;

/* The host start of the launch whose device start is the first at or after dev_start (the rule
 * of launch_idle), or INT64_MIN. */
static int64_t
launch_of(void *ctx, int64_t dev_start, uint64_t *at)
{
	launches *l = ctx;
	if (__atomic_load_n(&l->read, __ATOMIC_ACQUIRE)) /* read: no lock a gap */
		return launch_pack_next_at(&l->p, dev_start, at);
	pthread_mutex_lock(&l->lock);
	if (!l->read && l->r->launch_dev != NULL && !l->r->clock.on) {
		/* the gather's, kept by device start (a JSON trace's would be found again) */
		launch_pack(&l->p, l->r->launch_dev, l->r->nlaunch_dev);
		__atomic_store_n(&l->read, 1, __ATOMIC_RELEASE);
	} else if (!l->read) {
		/* 12 bytes a call at the read's top (a delay past 2^31 ns: 16, from the same
		 * read; a rank of several sources or with its clock moved: 16, load_launches) */
		tl_launch_rec *rec;
		tl_launch *own;
		size_t n;
		int got = load_launch_recs(l->r, &rec, &n, &own);
		if (got == 0) {
			launch_pack_take_recs(&l->p, rec, n); /* rec's memory is the pack's */
		} else {
			if (got < 0)
				n = load_launches(l->r, &own);
			launch_sort_dev(own, n);
			launch_pack_take(&l->p, own, n); /* own's memory is the pack's */
		}
		__atomic_store_n(&l->read, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&l->lock);
	return launch_pack_next_at(&l->p, dev_start, at);
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

/* Each segment's stage: the innermost stage instance of its rank around its start (the first
 * of the deepest), looked up in the rank's stage map; the segment's who entry becomes its rank
 * and stage's (one entry a pair, appended: fewer than the segments, so fewer than
 * CP_WHO_MAX). */
static void
fill_stages(const tl_query *q, stage_map *sm, cp_step *s)
{
	const tl_trace *tr = tlq_trace(q);
	size_t nr = tr->nranks, ri = 0, cap = s->nwho, with = 0;
	for (size_t r = 0; r < nr; r++)
		with += q->ninst[r] > 0;
	if (with == 0) /* no rank has stage instances: no segment has a stage */
		return;
	tl_u64map pair; /* (the segment's who, the stage) -> the new who */
	u64map_init(&pair);
	uint64_t last = UINT64_MAX;
	uint32_t last_who = 0;
	for (size_t k = 0; k < s->nseg; k++) {
		cp_seg *g = &s->seg[k];
		int rank = cp_seg_rank(s, g);
		if (ri >= nr || tr->ranks[ri]->rank != rank) /* the first rank so numbered */
			for (ri = 0; ri < nr && tr->ranks[ri]->rank != rank; ri++)
				;
		if (ri == nr || q->ninst[ri] == 0)
			continue;
		if (!sm[ri].built)
			stage_map_build(&sm[ri], q->inst[ri], q->ninst[ri]);
		int st = stage_map_at(&sm[ri], g->start);
		if (st == INT_MIN)
			continue;
		uint64_t key = (uint64_t)g->who << 32 | (uint32_t)st;
		uint32_t w;
		if (key == last) {
			w = last_who;
		} else if (!u64map_get(&pair, key, &w)) {
			if (s->nwho >= CP_WHO_MAX) { /* one a segment at most: 8 GB of them */
				fprintf(stderr,
				        "tl: more ranks and stages than the critical path takes\n");
				abort();
			}
			w = (uint32_t)s->nwho;
			VEC_PUSH(s->who, s->nwho, cap, ((cp_who){rank, st}));
			u64map_put(&pair, key, w);
		}
		last = key;
		last_who = w;
		g->who = w;
	}
	u64map_free(&pair);
}

/* The path of step id (-1: the whole trace, no steps) into out, scaled by sc. */
static void
one_step(const tl_query *q, int64_t id, const cp_p2p *p2p, size_t np2p, const cp_scale *sc,
         size_t nsc, launches *lv, cp_seg *mem, size_t cap, cp_step *out, cp_step *whatif)
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
		                  .last1 = rt[ri].last1,
		                  .pool = tr->ranks[ri]->pool,
		                  .launch = launch_of,
		                  .ctx = &lv[ri]};
	}
	if (t0 >= t1)
		t0 = t1 = t0 == INT64_MAX ? 0 : t0;
	out->step = id;
	critpath_step_into(R, nr, p2p, np2p, t0, end, NULL, 0, mem, cap, out);
	if (whatif != NULL) {
		whatif->step = id;
		critpath_step(R, nr, p2p, np2p, t0, end, sc, nsc, whatif);
	}
	/* each segment's stage: the innermost stage instance of its rank around its start (the
	 * first of the deepest), looked up in the rank's stage map */
	stage_map *sm = xcalloc(nr ? nr : 1, sizeof *sm);
	for (int pass = 0; pass < 2; pass++)
		if (pass == 0 || whatif != NULL)
			fill_stages(q, sm, pass == 0 ? out : whatif);
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
	int lean;
	size_t nlong;
	tl_cp_result *out;
	cp_seg *spare; /* lean: the step before's segments' memory (steps one at a time) */
	size_t spare_cap;
} step_job;

static void
step_run(void *arg, size_t i)
{
	step_job *j = arg;
	one_step(j->q, j->ids[i], j->p2p, j->np2p, j->sc, j->nsc, j->lv, j->spare, j->spare_cap,
	         &j->out->steps[i], j->out->whatif ? &j->out->whatif[i] : NULL);
	j->spare = NULL;
	if (j->lean) /* before the next step's graph is made beside it; its memory the next
	              * step's segments' */
		j->spare = critpath_lean_take(&j->out->steps[i], j->nlong, &j->spare_cap);
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

/* tlq_critical's; lean (no what-if): tlq_critical_start's. */
static void
critical_run(const tl_query *q, const cp_scale *sc, size_t nsc, int lean, size_t nlong,
             tl_cp_result *out)
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
	step_job job = {q, ids, p2p, nl, sc, nsc, lv, lean && nsc == 0, nlong, out, NULL, 0};
	parallel_for(n, 1, step_run, &job); /* one step at a time: a graph is ~30 bytes a task */
	free(job.spare);
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
tlq_critical(const tl_query *q, const cp_scale *sc, size_t nsc, tl_cp_result *out)
{
	critical_run(q, sc, nsc, 0, 0, out);
}

void
tlq_critical_free(tl_cp_result *r)
{
	if (r->segs != NULL) {
		for (size_t i = 0; i < r->n; i++)
			r->steps[i].seg = NULL; /* (the block's) */
		munmap(r->segs, r->nsegs * sizeof *r->segs);
	}
	if (r->namev != NULL || r->who != NULL)
		for (size_t i = 0; i < r->n; i++) {
			r->steps[i].names = NULL; /* (the result's) */
			r->steps[i].who = NULL;
		}
	free(r->namev);
	free(r->who);
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
	int lean;
	size_t nlong;
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
	/* its steps one at a time: a graph is ~30 B a task */
	critical_run(q, NULL, 0, j->lean, j->nlong, &j->res);
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
tlq_critical_start(const tl_query *q, int lean, size_t nlong)
{
	tlq_cp_job *j = xcalloc(1, sizeof *j);
	j->lean = lean;
	j->nlong = nlong;
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

/* ---- the result in binary form, kept with the stored results --------------------------------
 * Fixed-width little-endian records, read with memcpy (no alignment), never printed:
 *   header (CPB_HEAD bytes): "tlcp" | u32 form (CPB_FORM) | u64 names, name bytes, steps,
 *     segments, blame rows, step operators, operators, ranks, who entries
 *   the names: each NUL-terminated, in order of first appearance
 *   per step (CPB_STEP): i64 step, start, end | u64 segments, blame rows, operators,
 *     collectives, jumps
 *   every step's segments (CPB_SEG), in step order: i64 length | u32 name | u32 who (low 29
 *     bits) and kind (high 3): cp_seg's; each starts where the one before ended, the first at
 *     the step's start, the last ends at its end
 *   every step's blame rows (CPB_BLAME): i32 rank | u32 kind | i64 ns
 *   every step's operators, then the operators over all steps (CPB_OP): u32 name | i64 ns
 *   the ranks over all steps (CPB_RANK): i32 rank | i64 ns
 *   the who entries of every step's segments (CPB_WHO), distinct: i32 rank | i32 stage
 * The file's size is the header's counts' exactly. A name is an index into the names, a who
 * into the who entries; the decoded steps share both tables. */

#define CPB_FORM 3u
#define CPB_HEAD 80
#define CPB_STEP 64
#define CPB_SEG 16
#define CPB_BLAME 16
#define CPB_OP 12
#define CPB_RANK 12
#define CPB_WHO 8

static inline uint32_t
le32(uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

static inline uint64_t
le64(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

static inline uint8_t *
w32(uint8_t *p, uint32_t v)
{
	v = le32(v);
	memcpy(p, &v, 4);
	return p + 4;
}

static inline uint8_t *
w64(uint8_t *p, uint64_t v)
{
	v = le64(v);
	memcpy(p, &v, 8);
	return p + 8;
}

static inline uint32_t
r32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return le32(v);
}

static inline uint64_t
r64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return le64(v);
}

typedef struct names_ix {
	tl_u64map map; /* a name's address -> its index (the trace's names are pooled) */
	const char **v;
	size_t n, cap, bytes;
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
	x->bytes += strlen(s) + 1;
	u64map_put(&x->map, (uint64_t)(uintptr_t)s, v);
	return v;
}

static uint32_t
name_of(const names_ix *x, const char *s)
{
	uint32_t ix = 0;
	u64map_get(&x->map, (uint64_t)(uintptr_t)(s ? s : ""), &ix);
	return ix;
}

/* The result's who entries, distinct over its steps: wx[i][j] is step i's entry j's index. */
static cp_who *
who_ix(const tl_cp_result *r, uint32_t **wx, size_t *n)
{
	tl_u64map map; /* (rank, stage) -> index */
	u64map_init(&map);
	cp_who *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t i = 0; i < r->n; i++) {
		const cp_step *s = &r->steps[i];
		wx[i] = xmalloc((s->nwho ? s->nwho : 1) * sizeof *wx[i]);
		for (size_t j = 0; j < s->nwho; j++) {
			uint64_t key =
			    (uint64_t)(uint32_t)s->who[j].rank << 32 | (uint32_t)s->who[j].stage;
			uint32_t w;
			if (!u64map_get(&map, key, &w)) { /* distinct pairs: as few as a step's */
				w = (uint32_t)*n;
				VEC_PUSH(v, *n, cap, s->who[j]);
				u64map_put(&map, key, w);
			}
			wx[i][j] = w;
		}
	}
	u64map_free(&map);
	return v;
}

uint8_t *
tlq_critical_encode(const tl_cp_result *r, size_t *len)
{
	names_ix nx = {0};
	u64map_init(&nx.map);
	size_t nseg = 0, nblame = 0, nsops = 0, nwho = 0;
	uint32_t **sx = xcalloc(r->n ? r->n : 1, sizeof *sx); /* step i's name j's index */
	uint32_t **wx = xcalloc(r->n ? r->n : 1, sizeof *wx);
	for (size_t i = 0; i < r->n; i++) { /* the names first, in order of appearance */
		const cp_step *s = &r->steps[i];
		sx[i] = xmalloc((s->nnames ? s->nnames : 1) * sizeof *sx[i]);
		for (size_t j = 0; j < s->nnames; j++)
			sx[i][j] = UINT32_MAX;
		for (size_t k = 0; k < s->nseg; k++)
			if (sx[i][s->seg[k].name] == UINT32_MAX)
				sx[i][s->seg[k].name] = name_ix(&nx, cp_seg_name(s, &s->seg[k]));
		for (size_t k = 0; k < s->nops; k++)
			name_ix(&nx, s->ops[k].name);
		nseg += s->nseg;
		nblame += s->nblame;
		nsops += s->nops;
	}
	for (size_t k = 0; k < r->nops; k++)
		name_ix(&nx, r->ops[k].name);
	cp_who *who = who_ix(r, wx, &nwho);
	size_t n = CPB_HEAD + nx.bytes + r->n * CPB_STEP + nseg * CPB_SEG + nblame * CPB_BLAME +
	           (nsops + r->nops) * CPB_OP + r->nranks * CPB_RANK + nwho * CPB_WHO;
	/* (a who index is 29 bits: more pairs than that, of 2^29 ranks or stages, are not kept) */
	uint8_t *buf = nwho <= CP_WHO_MAX ? malloc(n) : NULL, *p = buf;
	if (buf == NULL)
		goto out;
	memcpy(p, "tlcp", 4);
	p = w32(p + 4, CPB_FORM);
	const uint64_t head[9] = {nx.n,  nx.bytes, r->n,      nseg, nblame,
	                          nsops, r->nops,  r->nranks, nwho};
	for (size_t k = 0; k < 9; k++)
		p = w64(p, head[k]);
	for (size_t k = 0; k < nx.n; k++) {
		size_t l = strlen(nx.v[k]) + 1;
		memcpy(p, nx.v[k], l);
		p += l;
	}
	for (size_t i = 0; i < r->n; i++) {
		const cp_step *s = &r->steps[i];
		const uint64_t v[8] = {
		    (uint64_t)s->step, (uint64_t)s->start, (uint64_t)s->end, s->nseg, s->nblame,
		    s->nops,           s->collectives,     s->jumps};
		for (size_t k = 0; k < 8; k++)
			p = w64(p, v[k]);
	}
	for (size_t i = 0; i < r->n; i++) {
		const cp_step *s = &r->steps[i];
		for (size_t k = 0; k < s->nseg; k++) {
			const cp_seg *g = &s->seg[k];
			p = w64(p, (uint64_t)(cp_seg_end(s, k) - g->start));
			p = w32(p, sx[i][g->name]);
			p = w32(p, wx[i][g->who] | (uint32_t)g->kind << 29);
		}
	}
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->steps[i].nblame; k++) {
			const cp_blame *b = &r->steps[i].blame[k];
			p = w32(p, (uint32_t)b->rank);
			p = w32(p, b->kind);
			p = w64(p, (uint64_t)b->ns);
		}
	for (size_t i = 0; i < r->n; i++)
		for (size_t k = 0; k < r->steps[i].nops; k++) {
			p = w32(p, name_of(&nx, r->steps[i].ops[k].name));
			p = w64(p, (uint64_t)r->steps[i].ops[k].ns);
		}
	for (size_t k = 0; k < r->nops; k++) {
		p = w32(p, name_of(&nx, r->ops[k].name));
		p = w64(p, (uint64_t)r->ops[k].ns);
	}
	for (size_t k = 0; k < r->nranks; k++) {
		p = w32(p, (uint32_t)r->ranks[k].rank);
		p = w64(p, (uint64_t)r->ranks[k].ns);
	}
	for (size_t k = 0; k < nwho; k++) {
		p = w32(p, (uint32_t)who[k].rank);
		p = w32(p, (uint32_t)who[k].stage);
	}
	*len = n;
out:
	for (size_t i = 0; i < r->n; i++) {
		free(sx[i]);
		free(wx[i]);
	}
	free(sx);
	free(wx);
	free(who);
	u64map_free(&nx.map);
	free(nx.v);
	return buf;
}

/* The decoder's place in the bytes: the next record of each section. */
typedef struct cpb_rd {
	const uint8_t *seg, *blame, *sop, *op, *rank, *who;
	cp_seg *segs; /* the next step's segments in the block */
	const char **name;
	uint64_t nnames, nwho;
} cpb_rd;

/* Whether count items of size bytes each fit in the room left (*room, decreased): no product
 * or sum can wrap. */
static int
cpb_take(uint64_t count, size_t size, uint64_t *room)
{
	if (count > *room / size)
		return 0;
	*room -= count * size;
	return 1;
}

/* The names of the part: each NUL-terminated, exactly nnames of them in nbytes. */
static const char *
cpb_names(const uint8_t *b, uint64_t nbytes, cpb_rd *rd, tl_cp_result *out)
{
	out->names = xmalloc(nbytes ? (size_t)nbytes : 1);
	if (nbytes > 0)
		memcpy(out->names, b, (size_t)nbytes);
	rd->name = xcalloc(rd->nnames ? (size_t)rd->nnames : 1, sizeof *rd->name);
	size_t off = 0;
	for (uint64_t k = 0; k < rd->nnames; k++) {
		const char *z = off < nbytes ? memchr(out->names + off, '\0', nbytes - off) : NULL;
		if (z == NULL)
			return "a name runs past the names";
		rd->name[k] = out->names + off;
		off = (size_t)(z - out->names) + 1;
	}
	return off == nbytes ? NULL : "bytes after the last name";
}

/* The who entries: a rank, and a stage of -1 or more. */
static const char *
cpb_who(cpb_rd *rd, tl_cp_result *out)
{
	out->who = xmalloc((rd->nwho ? (size_t)rd->nwho : 1) * sizeof *out->who);
	for (size_t k = 0; k < rd->nwho; k++, rd->who += CPB_WHO) {
		int32_t stage = (int32_t)r32(rd->who + 4);
		if (stage < -1)
			return "a segment's stage is out of range";
		out->who[k] = (cp_who){(int32_t)r32(rd->who), stage};
		out->nwho++;
	}
	return NULL;
}

/* Step s's segments, blame rows and operators from rd's sections (each record checked). */
static const char *
cpb_step(cpb_rd *rd, cp_step *s, uint64_t nseg, uint64_t nblame, uint64_t nop)
{
	s->seg = nseg > 0 ? rd->segs : NULL;
	if (nseg > 0)
		rd->segs += nseg;
	uint64_t t = (uint64_t)s->start, end = (uint64_t)s->end; /* end - t: no overflow */
	for (size_t k = 0; k < nseg; k++, rd->seg += CPB_SEG) {
		uint64_t l = r64(rd->seg);
		uint32_t name = r32(rd->seg + 8), wk = r32(rd->seg + 12);
		if (l == 0 || l > end - t || (l >> 63) != 0)
			return "a segment runs past its step, or is empty";
		if (name >= rd->nnames || (wk & CP_WHO_MAX) >= rd->nwho || (wk >> 29) >= CP__COUNT)
			return "a segment's name, rank or kind is out of range";
		s->seg[k] = (cp_seg){
		    .start = (int64_t)t, .name = name, .who = wk & CP_WHO_MAX, .kind = wk >> 29};
		t += l;
		s->nseg++;
	}
	if (t != end)
		return "a step's segments do not tile it";
	s->blame = xmalloc((nblame ? (size_t)nblame : 1) * sizeof *s->blame);
	uint64_t blamed = 0; /* the rows sum to the step (so that no sum of them overflows) */
	for (size_t k = 0; k < nblame; k++, rd->blame += CPB_BLAME) {
		uint32_t kind = r32(rd->blame + 4);
		uint64_t ns = r64(rd->blame + 8);
		if (kind >= CP__COUNT || ns > end - (uint64_t)s->start - blamed)
			return "a blame row's kind or time is out of range";
		blamed += ns;
		s->blame[k] = (cp_blame){(int32_t)r32(rd->blame), (uint8_t)kind, (int64_t)ns};
		s->nblame++;
	}
	if (blamed != end - (uint64_t)s->start)
		return "a step's blame does not sum to it";
	s->ops = xmalloc((nop ? (size_t)nop : 1) * sizeof *s->ops);
	for (size_t k = 0; k < nop; k++, rd->sop += CPB_OP) {
		uint32_t name = r32(rd->sop);
		int64_t ns = (int64_t)r64(rd->sop + 4);
		if (name >= rd->nnames || ns < 0)
			return "an operator's name or time is out of range";
		s->ops[k] = (cp_name_ns){rd->name[name], ns};
		s->nops++;
	}
	return NULL;
}

/* The steps and the totals over them, from the sections rd points to (sizes checked). */
static const char *
cpb_body(const uint8_t *steps, const uint64_t *c, cpb_rd *rd, tl_cp_result *out)
{
	out->steps = xcalloc(c[2] ? (size_t)c[2] : 1, sizeof *out->steps);
	out->n = (size_t)c[2];
	/* every step's segments in one block, its pages filled in at once: 2M segments (8 x 1M)
	 * are 49 MB, 12,000 page faults one at a time */
	if (c[3] > 0) {
		size_t bytes = (size_t)c[3] * sizeof *out->segs;
		void *m =
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return "no memory for its segments";
#ifdef MADV_HUGEPAGE
		madvise(m, bytes, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
		madvise(m, bytes, MADV_POPULATE_WRITE);
#endif
		out->segs = m;
		out->nsegs = (size_t)c[3];
	}
	rd->segs = out->segs;
	uint64_t left[3] = {c[3], c[4], c[5]}; /* segments, blame rows, operators not yet used */
	for (size_t i = 0; i < out->n; i++, steps += CPB_STEP) {
		cp_step *s = &out->steps[i];
		s->step = (int64_t)r64(steps);
		s->start = (int64_t)r64(steps + 8);
		s->end = (int64_t)r64(steps + 16);
		uint64_t nseg = r64(steps + 24), nblame = r64(steps + 32), nop = r64(steps + 40);
		s->collectives = (size_t)r64(steps + 48);
		s->jumps = (size_t)r64(steps + 56);
		if (s->step < -1 || s->end < s->start)
			return "a step's id or times are out of range";
		if (nseg > left[0] || nblame > left[1] || nop > left[2])
			return "the steps hold more rows than the header says";
		s->names = out->namev;
		s->nnames = (size_t)rd->nnames;
		s->who = out->who;
		s->nwho = out->nwho;
		left[0] -= nseg, left[1] -= nblame, left[2] -= nop;
		const char *why = cpb_step(rd, s, nseg, nblame, nop);
		if (why != NULL)
			return why;
	}
	if (left[0] | left[1] | left[2])
		return "the steps hold fewer rows than the header says";
	out->ops = xmalloc((c[6] ? (size_t)c[6] : 1) * sizeof *out->ops);
	for (size_t k = 0; k < c[6]; k++, rd->op += CPB_OP) {
		uint32_t name = r32(rd->op);
		int64_t ns = (int64_t)r64(rd->op + 4);
		if (name >= rd->nnames || ns < 0)
			return "an operator's name or time is out of range";
		out->ops[k] = (cp_name_ns){rd->name[name], ns};
		out->nops++;
	}
	out->ranks = xmalloc((c[7] ? (size_t)c[7] : 1) * sizeof *out->ranks);
	for (size_t k = 0; k < c[7]; k++, rd->rank += CPB_RANK) {
		int64_t ns = (int64_t)r64(rd->rank + 4);
		if (ns < 0)
			return "a rank's time is out of range";
		out->ranks[k] = (cp_blame){(int32_t)r32(rd->rank), CP__COUNT, ns};
		out->nranks++;
	}
	return NULL;
}

const char *
tlq_critical_decode(const uint8_t *b, size_t len, tl_cp_result *out)
{
	memset(out, 0, sizeof *out);
	if (len < CPB_HEAD || memcmp(b, "tlcp", 4) != 0)
		return "not a critical path";
	if (r32(b + 4) != CPB_FORM)
		return "a critical path of another form";
	/* names, name bytes, steps, segments, blame rows, step operators, operators, ranks, who
	 * entries */
	uint64_t c[9], room = len - CPB_HEAD;
	for (size_t k = 0; k < 9; k++)
		c[k] = r64(b + 8 + 8 * k);
	static const size_t size[9] = {1,      1,      CPB_STEP, CPB_SEG, CPB_BLAME,
	                               CPB_OP, CPB_OP, CPB_RANK, CPB_WHO};
	int fits = 1;
	for (size_t k = 1; k < 9; k++) /* (every name takes a byte of the names) */
		fits &= cpb_take(c[k], size[k], &room);
	if (!fits || room != 0 || c[0] > c[1] || c[0] > UINT32_MAX || c[8] > CP_WHO_MAX)
		return "its counts do not match its size";
	const uint8_t *p = b + CPB_HEAD;
	cpb_rd rd = {.nnames = c[0], .nwho = c[8]};
	const char *why = cpb_names(p, c[1], &rd, out);
	p += c[1];
	const uint8_t *steps = p;
	rd.seg = steps + c[2] * CPB_STEP;
	rd.blame = rd.seg + c[3] * CPB_SEG;
	rd.sop = rd.blame + c[4] * CPB_BLAME;
	rd.op = rd.sop + c[5] * CPB_OP;
	rd.rank = rd.op + c[6] * CPB_OP;
	rd.who = rd.rank + c[7] * CPB_RANK;
	out->namev = rd.name; /* (the steps' names) */
	if (why == NULL)
		why = cpb_who(&rd, out);
	if (why == NULL)
		why = cpb_body(steps, c, &rd, out);
	if (why != NULL)
		tlq_critical_free(out);
	return why;
}
