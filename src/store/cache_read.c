/* The model cache's reader: a file's bytes checked against the key, the checksum and every
 * length before anything is believed (the layout is at the top of cache_write.c). */
#include "config.h"
#include "store/cache_int.h"
#include "analysis/lanes.h"
#include "load/load.h"
#include "model/comm.h"
#include "model/lod.h"
#include "model/ops.h"
#include "util/msg.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading: a cursor that checks every length against the end ---------------------------- */

typedef struct rd {
	const uint8_t *p;
	size_t n, off;
	const char *bad; /* the first problem */
	int borrow;      /* lanes' arrays point into p (which the rank will own), not copies */
	int trusted;     /* a stamp vouches for the values (cache_decode_stamped) */
	unsigned keep;   /* TL_TABLE_* read; of a trusted file the others are stepped over */
} rd;

static uint64_t
get_u64(rd *r)
{
	uint64_t v = 0;
	if (r->bad != NULL)
		return 0;
	if (r->n - r->off < 8) {
		r->bad = "ends early";
		return 0;
	}
	memcpy(&v, r->p + r->off, 8);
	r->off += 8;
	return v;
}

/* count items of size bytes; NULL (and r->bad set) when they do not fit */
static const uint8_t *
get_bytes(rd *r, uint64_t count, size_t size)
{
	if (r->bad != NULL)
		return NULL;
	if (size != 0 && count > (r->n - r->off) / size) {
		r->bad = "a count runs past the end";
		return NULL;
	}
	size_t len = (size_t)count * size, pad = (8 - len % 8) % 8;
	if (pad > r->n - r->off - len) {
		r->bad = "a count runs past the end";
		return NULL;
	}
	const uint8_t *p = r->p + r->off;
	r->off += len + pad;
	return p;
}

/* A count of items that take at least item_bytes each in the file: more than max, or more than
 * the bytes left could hold, is a bad file (why). 0 once r is bad. */
static uint64_t
get_count(rd *r, size_t item_bytes, uint64_t max, const char *why)
{
	uint64_t n = get_u64(r);
	if (r->bad == NULL && (n > max || (item_bytes != 0 && n > (r->n - r->off) / item_bytes)))
		r->bad = why;
	return r->bad == NULL ? n : 0;
}

/* A copy of n items of size bytes (xmalloc'd; NULL when none, or r is bad). */
static void *
copy_items(rd *r, uint64_t n, size_t size)
{
	const uint8_t *p = get_bytes(r, n, size);
	if (p == NULL || n == 0)
		return NULL;
	void *v = xreallocarray(NULL, (size_t)n, size);
	memcpy(v, p, (size_t)n * size);
	return v;
}

/* n items in place when r borrows, else a copy. */
static void *
lane_items(rd *r, uint64_t n, size_t size)
{
	if (!r->borrow)
		return copy_items(r, n, size);
	const uint8_t *p = get_bytes(r, n, size);
	return n > 0 ? (void *)(uintptr_t)p : NULL;
}

/* A counted array of at most max items, copied (NULL when empty). */
static void *
get_arr(rd *r, size_t size, uint64_t max, size_t *count)
{
	uint64_t n = get_count(r, size, max, "a count is out of range");
	void *v = copy_items(r, n, size);
	*count = v != NULL ? (size_t)n : 0;
	return v;
}

/* a string, NUL-terminated copy; *none = 1 for NO_STR */
static char *
get_str(rd *r, int *none)
{
	uint64_t n = get_u64(r);
	if (none != NULL)
		*none = n == NO_STR && r->bad == NULL;
	if (n == NO_STR && none != NULL)
		return NULL;
	const uint8_t *p = get_bytes(r, n, 1);
	return p != NULL ? xstrndup((const char *)p, (size_t)n) : NULL;
}

static int
times_ok(int64_t a, int64_t b)
{
	return tl_time_ok(a) && tl_time_ok(b) && b >= a;
}

static void *get_lane_arr(rd *r, size_t size, uint64_t max, size_t *count);

/* A track's step runs (TRACK_STEP_RUNS), checked as the accessors rely on them: at least one, the
 * first at slice 0, increasing, below step_cover (at most the slice count), each a step of the
 * rank's or TL_NO_STEP, and different from the run before. */
static void
get_step_runs(rd *r, const tl_rank *rk, tl_track *t)
{
	uint64_t nr =
	    get_count(r, sizeof *t->step_runs, t->n, "a lane's step runs are out of range");
	uint64_t cover = get_u64(r);
	if (r->bad == NULL && (nr == 0 || cover > t->n))
		r->bad = "a lane's step runs are out of range";
	tl_step_run *v = lane_items(r, nr, sizeof *v);
	if (r->bad != NULL || v == NULL) {
		if (!r->borrow)
			free(v);
		return;
	}
	t->step_runs = v;
	t->nstep_runs = (size_t)nr;
	t->step_cover = (size_t)cover;
	for (size_t j = 0; j < t->nstep_runs && r->bad == NULL; j++)
		if ((j == 0 ? v[j].at != 0
		            : v[j].at <= v[j - 1].at || v[j].step == v[j - 1].step) ||
		    v[j].at >= cover || (v[j].step != TL_NO_STEP && v[j].step >= rk->nsteps))
			r->bad = "a lane's step runs are out of order or range";
}

/* Reads a track and checks what the analyses rely on: names and labels in the pool, slices
 * sorted by start and not overlapping, times in range, step tags naming steps. */
static tl_track *
get_track(rd *r, const tl_rank *rk, uint32_t npool, size_t nsrc)
{
	tl_track *t = xcalloc(1, sizeof *t);
	uint64_t kind = get_u64(r), label = get_u64(r), key = get_u64(r), depth = get_u64(r);
	uint64_t source = get_u64(r), user = get_u64(r), flags = get_u64(r);
	if (r->bad == NULL && (kind >= TL_LANE__COUNT || label >= npool || depth > UINT16_MAX ||
	                       source >= (nsrc > 0 ? nsrc : 1) || user > 1 ||
	                       flags > (TRACK_STEP | TRACK_DEV | TRACK_LOD | TRACK_STEP_RUNS |
	                                TRACK_ARG | TRACK_LEND) ||
	                       (flags & TRACK_STEP && flags & TRACK_STEP_RUNS)))
		r->bad = "a lane's fields are out of range";
	t->kind = (tl_lane_kind)kind;
	t->label = (uint32_t)label;
	t->key = (int64_t)key;
	t->depth = (uint16_t)depth;
	t->source = (uint16_t)source;
	t->user_ranges = (int)user;
	uint64_t ns =
	    get_count(r, sizeof *t->v, UINT32_MAX, "a lane's slice count is out of range");
	t->v = lane_items(r, ns, sizeof *t->v);
	t->n = t->cap = t->v != NULL ? (size_t)ns : 0;
	t->borrowed = r->borrow;
	if (r->bad == NULL && t->n == 0)
		r->bad = "a lane is empty";
	if (flags & TRACK_LEND) {
		t->lend = get_lane_arr(r, sizeof *t->lend, TL_DUR_LONG, &t->nlend);
		t->lendcap = t->nlend;
	}
	if (flags & TRACK_ARG)
		t->arg = lane_items(r, t->n, sizeof *t->arg);
	if (flags & TRACK_STEP)
		t->step = lane_items(r, t->n, sizeof *t->step);
	else if (flags & TRACK_STEP_RUNS)
		get_step_runs(r, rk, t);
	if (flags & TRACK_DEV)
		t->dev = lane_items(r, t->n, sizeof *t->dev);
	if (flags & TRACK_LOD) {
		/* kept aside, unchecked: the viewer's session checks it against the slices
		 * (track_lod_build) before any query reads it; a summary never does */
		size_t nb = lod_nbusy(t->n), nn = lod_nnodes(t->n);
		const int64_t *busy = lane_items(r, nb, sizeof *busy);
		const tl_lod_node *node = nn ? lane_items(r, nn, sizeof *node) : NULL;
		if (busy != NULL && (nn == 0 || node != NULL)) {
			tl_lod *l = lod_wrap(t->n, busy, node);
			l->borrowed = r->borrow; /* copies belong to it */
			l->checked = r->trusted;
			if (r->trusted)
				t->lod = l;
			else
				t->lod_file = l;
		} else if (!r->borrow) {
			free((void *)busy);
			free((void *)node);
		}
	}
	/* the one loop over every slice: a stamped file's slices passed it when it was stamped */
	int64_t prev_end = INT64_MIN;
	for (size_t k = 0; k < t->n && r->bad == NULL && !r->trusted; k++) {
		const tl_slice *s = &t->v[k];
		/* the end only of a start in range (start + dur must not overflow) and of a long
		 * end's index in the table: else out of range */
		int64_t end = !tl_time_ok(s->start) || ((s->dur & TL_DUR_LONG) &&
		                                        (s->dur & ~TL_DUR_LONG) >= t->nlend)
		                  ? INT64_MIN
		                  : slice_end(t, s);
		if (!times_ok(s->start, end) || s->name >= npool || s->start < prev_end)
			r->bad = "a lane's slices are out of order or range";
		else if (t->kind == TL_LANE_STEP && track_arg(t, k) >= rk->nsteps)
			r->bad = "a step slice names no step";
		else if (t->step && t->step[k] != TL_NO_STEP && t->step[k] >= rk->nsteps)
			r->bad = "a slice's step is out of range";
		else if (t->dev && t->dev[k].end >= t->dev[k].start &&
		         !times_ok(t->dev[k].start, t->dev[k].end))
			r->bad = "a range's device times are out of range";
		prev_end = end;
	}
	return t;
}

/* ---- the tables a load gathered -------------------------------------------------------------- */

/* A string pool written by put_pool, into a new pool (NULL and r->bad set when it is not one). */
static tl_strpool *
get_pool(rd *r)
{
	uint64_t np = get_u64(r);
	if (r->bad == NULL && (np == 0 || np > UINT32_MAX || np - 1 > (r->n - r->off) / 8))
		r->bad = "a table's string count is out of range";
	if (r->bad != NULL)
		return NULL;
	tl_strpool *p = strpool_new();
	for (uint64_t i = 1; i < np && r->bad == NULL; i++) {
		uint64_t sl = get_u64(r);
		const uint8_t *s = get_bytes(r, sl, 1);
		if (s != NULL && strpool_intern(p, (const char *)s, (size_t)sl) != i)
			r->bad = "a table's strings repeat";
	}
	return p;
}

/* A counted array of at most max items, in place when r borrows (as lane_items). */
static void *
get_lane_arr(rd *r, size_t size, uint64_t max, size_t *count)
{
	uint64_t n = get_count(r, size, max, "a count is out of range");
	void *v = lane_items(r, n, size);
	*count = v != NULL ? (size_t)n : 0;
	return v;
}

/* The compute operators: groups of distinct keys, names in the pool, durations ascending (the
 * queries read them as sorted, without copying), each task's start beside its duration. */
static void
get_ops(rd *r, tl_rank *rk)
{
	tl_op_data *d = xmalloc(sizeof *d);
	op_data_init(d);
	rk->ops = d;
	tl_strpool *p = get_pool(r);
	if (p == NULL)
		return;
	strpool_free(d->pool);
	d->pool = p;
	d->borrowed = r->borrow; /* the tasks stay in the mapping (get_lane_arr) */
	uint32_t np = strpool_count(p);
	/* a group takes at least 56 bytes: four keys, the sum, two counts */
	uint64_t ng = get_count(r, 56, UINT64_MAX, "its operator count is out of range");
	for (uint64_t i = 0; i < ng && r->bad == NULL; i++) {
		uint64_t k[4];
		for (int x = 0; x < 4; x++)
			k[x] = get_u64(r);
		if (r->bad == NULL && (k[0] >= np || k[1] >= np || k[2] >= np || k[3] >= np)) {
			r->bad = "an operator's strings are out of range";
			break;
		}
		if (r->bad == NULL && op_data_group(d, (uint32_t)k[0], (uint32_t)k[1],
		                                    (uint32_t)k[2], (uint32_t)k[3]) != i) {
			r->bad = "its operators repeat";
			break;
		}
		tl_op_group *g = &d->g[i];
		g->sum = (int64_t)get_u64(r);
		g->dur = get_lane_arr(r, sizeof *g->dur, SIZE_MAX / sizeof *g->dur, &g->n);
		g->cap = g->n;
		if (r->bad == NULL && g->n == 0)
			r->bad = "an operator has no tasks";
		size_t ns = 0;
		g->start = get_lane_arr(r, sizeof *g->start, SIZE_MAX / sizeof *g->start, &ns);
		if (r->bad == NULL && ns != g->n)
			r->bad = "an operator's starts are not one per task";
		int64_t sum = 0;
		for (size_t t = 0; t < g->n && r->bad == NULL && !r->trusted; t++)
			if (g->dur[t] < 0 || (t > 0 && g->dur[t] < g->dur[t - 1]))
				r->bad = "an operator's durations are out of order or range";
			else if (!tl_time_ok(g->start[t]) || g->dur[t] > TL_TIME_MAX - g->start[t])
				r->bad = "an operator's task times are out of range";
			else
				sum = sat_add(sum, g->dur[t]);
		if (r->bad == NULL && !r->trusted && sum != g->sum)
			r->bad = "an operator sum is not the sum of its durations";
		if (r->bad == NULL && g->sum < 0)
			r->bad = "an operator sum is out of range";
	}
}

static void
get_launch_steps(rd *r, tl_rank *rk)
{
	uint64_t n =
	    get_count(r, 64, (uint64_t)rk->nsteps + 1, "its launch rows are more than its steps");
	if (r->bad != NULL)
		return;
	rk->have_launch_steps = 1;
	rk->launch_steps = n ? xcalloc((size_t)n, sizeof *rk->launch_steps) : NULL;
	for (uint64_t i = 0; i < n && r->bad == NULL; i++) {
		tl_launch_step *x = &rk->launch_steps[i];
		x->step_id = (int64_t)get_u64(r);
		x->launches = (size_t)get_u64(r);
		x->p50 = (int64_t)get_u64(r);
		x->p90 = (int64_t)get_u64(r);
		x->max = (int64_t)get_u64(r);
		uint64_t have_idle = get_u64(r);
		x->have_idle = have_idle == 1;
		x->idle = (int64_t)get_u64(r);
		x->idle_host = (int64_t)get_u64(r);
		rk->nlaunch_steps = (size_t)i + 1;
		if (r->bad == NULL && (x->launches == 0 || x->p50 > x->p90 || x->p90 > x->max))
			r->bad = "a launch row is inconsistent";
		if (r->bad == NULL && (have_idle > 1 || x->idle < 0 || x->idle_host < 0 ||
		                       x->idle_host > x->idle || (!have_idle && x->idle != 0)))
			r->bad = "a launch row's idle time is inconsistent";
	}
	uint64_t ng = get_count(r, 32, UINT64_MAX / 64, "its launch gaps are too many");
	if (r->bad != NULL)
		return;
	rk->launch_gaps = ng ? xcalloc((size_t)ng, sizeof *rk->launch_gaps) : NULL;
	for (uint64_t i = 0; i < ng && r->bad == NULL; i++) {
		tl_launch_gap *x = &rk->launch_gaps[i];
		x->step = (int64_t)get_u64(r);
		x->start = (int64_t)get_u64(r);
		x->end = (int64_t)get_u64(r);
		x->host = (int64_t)get_u64(r);
		rk->nlaunch_gaps = (size_t)i + 1;
		if (r->bad == NULL &&
		    (x->host < 0 || (x->host == 0 && (x->start != 0 || x->end != 0)) ||
		     (x->host > 0 && (i == 0 || !tl_time_ok(x->start) || !tl_time_ok(x->end) ||
		                      x->end <= x->start || x->host > x->end - x->start ||
		                      x->step != rk->launch_gaps[i - 1].step))))
			r->bad = "a launch gap is inconsistent";
	}
}

/* Whether the file's communication tasks (seven u64 each: start, end, size, src, dst, plane,
 * kind | xport << 8, in the host's byte order) are tl_comm_task's own layout here: on a
 * little-endian host with the usual padding, so that a mapped file's tasks are read in place. */
static int
tasks_in_place(void)
{
	const uint16_t one = 1;
	uint8_t low;
	memcpy(&low, &one, 1);
	return low == 1 && sizeof(tl_comm_task) == 56 && offsetof(tl_comm_task, kind) == 48 &&
	       offsetof(tl_comm_task, xport) == 49;
}

/* The communication ops and their sub-tasks: strings in the pool, each op's tasks inside the
 * task array and by start, ops by start, every time in range. */
static void
get_comm(rd *r, tl_rank *rk, size_t nsrc)
{
	tl_comm_data *d = xmalloc(sizeof *d);
	comm_data_init(d);
	rk->comm = d;
	tl_strpool *p = get_pool(r);
	if (p == NULL)
		return;
	strpool_free(d->pool);
	d->pool = p;
	uint32_t np = strpool_count(p);
	uint64_t no = get_count(r, 72, UINT64_MAX, "its communication op count is out of range");
	if (r->bad == NULL && no > 0) {
		d->ops = xcalloc((size_t)no, sizeof *d->ops);
		d->opcap = (size_t)no;
	}
	for (uint64_t i = 0; i < no && r->bad == NULL; i++) {
		tl_comm_op *o = &d->ops[i];
		o->id = (int64_t)get_u64(r);
		o->start = (int64_t)get_u64(r);
		o->end = (int64_t)get_u64(r);
		uint64_t name = get_u64(r), type = get_u64(r), group = get_u64(r);
		uint64_t task0 = get_u64(r), ntasks = get_u64(r), source = get_u64(r);
		d->nops = (size_t)i + 1;
		if (r->bad == NULL &&
		    (name >= np || type >= np || group >= np || source >= nsrc ||
		     !times_ok(o->start, o->end) || (i > 0 && o->start < d->ops[i - 1].start)))
			r->bad = "a communication op is out of range or order";
		o->name = (uint32_t)name;
		o->type = (uint32_t)type;
		o->group = (uint32_t)group;
		o->task0 = (size_t)task0;
		o->ntasks = (size_t)ntasks;
		o->source = (uint16_t)source;
	}
	uint64_t nt = get_count(r, 56, UINT64_MAX, "its communication task count is out of range");
	const uint8_t *raw = get_bytes(r, nt, 56);
	if (raw != NULL && nt > 0) {
		d->ntasks = d->taskcap = (size_t)nt;
		if (r->borrow && tasks_in_place()) { /* as a lane's slices: in the mapping */
			d->tasks = (tl_comm_task *)(uintptr_t)raw;
			d->borrowed = 1;
		} else {
			d->tasks = xcalloc((size_t)nt, sizeof *d->tasks);
			for (size_t i = 0; i < d->ntasks; i++) {
				uint64_t f[7];
				memcpy(f, raw + i * 56, sizeof f);
				tl_comm_task *t = &d->tasks[i];
				t->start = (int64_t)f[0];
				t->end = (int64_t)f[1];
				t->size = f[2];
				t->src = (int64_t)f[3];
				t->dst = (int64_t)f[4];
				t->plane = (int64_t)f[5];
				t->kind = (uint8_t)(f[6] & 0xff);
				t->xport = (uint8_t)(f[6] >> 8);
			}
		}
	}
	/* the loops over every task: a stamped file's tasks passed them when it was stamped */
	for (size_t i = 0; i < d->ntasks && r->bad == NULL && !r->trusted; i++) {
		uint64_t f[7];
		memcpy(f, raw + i * 56, sizeof f);
		uint64_t kx = f[6];
		if (!times_ok((int64_t)f[0], (int64_t)f[1]) || kx >> 16 != 0 ||
		    (kx & 0xff) > TL_CTASK_WAIT || (kx >> 8) >= TL_XPORT__COUNT)
			r->bad = "a communication task is out of range";
	}
	for (size_t i = 0; i < d->nops && r->bad == NULL; i++) {
		const tl_comm_op *o = &d->ops[i];
		if (o->task0 > d->ntasks || o->ntasks > d->ntasks - o->task0) {
			r->bad = "a communication op's tasks are out of range";
			break;
		}
		for (size_t k = 1; k < o->ntasks && !r->trusted; k++)
			if (d->tasks[o->task0 + k].start < d->tasks[o->task0 + k - 1].start) {
				r->bad = "a communication op's tasks are out of order";
				break;
			}
	}
}

/* The counters: kind, group (in the rank's pool), source, samples by time. */
static void
get_counters(rd *r, tl_rank *rk, uint32_t npool, size_t nsrc)
{
	uint64_t n = get_count(r, 32, UINT64_MAX, "its counter count is out of range");
	rk->counters_read = 1;
	for (uint64_t i = 0; i < n && r->bad == NULL; i++) {
		uint64_t kind = get_u64(r), group = get_u64(r), source = get_u64(r);
		if (r->bad == NULL && (kind >= TL_CTR__COUNT || group >= npool || source >= nsrc)) {
			r->bad = "a counter's fields are out of range";
			break;
		}
		tl_counter *c = xcalloc(1, sizeof *c);
		VEC_PUSH(rk->counters, rk->ncounters, rk->ctrcap, c);
		c->kind = (tl_counter_kind)kind;
		c->group = (uint32_t)group;
		c->source = (uint16_t)source;
		c->t = get_arr(r, sizeof *c->t, SIZE_MAX / sizeof *c->t, &c->n);
		c->cap = c->n;
		c->v = copy_items(r, c->n, sizeof *c->v);
		if (c->v == NULL)
			c->n = 0; /* none, or r->bad is set */
		for (size_t k = 0; k < c->n && r->bad == NULL; k++)
			if (!tl_time_ok(c->t[k]) || (k > 0 && c->t[k] < c->t[k - 1]))
				r->bad = "a counter's samples are out of order or range";
	}
}

/* ---- tables stepped over: the lengths read and checked, nothing kept ---------------------- */

static void
skip_pool(rd *r)
{
	uint64_t np = get_u64(r);
	if (r->bad == NULL && (np == 0 || np > UINT32_MAX || np - 1 > (r->n - r->off) / 8))
		r->bad = "a table's string count is out of range";
	for (uint64_t i = 1; i < np && r->bad == NULL; i++)
		get_bytes(r, get_u64(r), 1);
}

/* as get_ops reads them */
static void
skip_ops(rd *r)
{
	skip_pool(r);
	uint64_t ng = get_count(r, 56, UINT64_MAX, "its operator count is out of range");
	for (uint64_t i = 0; i < ng && r->bad == NULL; i++) {
		for (int x = 0; x < 5; x++) /* the keys, the sum */
			get_u64(r);
		for (int a = 0; a < 2; a++) /* the durations, the starts */
			get_bytes(r, get_count(r, 8, SIZE_MAX / 8, "a count is out of range"), 8);
	}
}

/* as get_comm reads them */
static void
skip_comm(rd *r)
{
	skip_pool(r);
	get_bytes(r, get_count(r, 72, UINT64_MAX, "its communication op count is out of range"),
	          72);
	get_bytes(r, get_count(r, 56, UINT64_MAX, "its communication task count is out of range"),
	          56);
}

static void
get_tables(rd *r, tl_rank *rk, uint32_t npool, size_t nsrc)
{
	uint64_t flags = get_u64(r);
	if (r->bad == NULL && flags > (TABLE_OPS | TABLE_LAUNCHES | TABLE_COMM | TABLE_COUNTERS))
		r->bad = "its table flags are out of range";
	if (r->bad == NULL && (flags & TABLE_OPS) && r->trusted && !(r->keep & TL_TABLE_OPS))
		skip_ops(r);
	else if (r->bad == NULL && (flags & TABLE_OPS))
		get_ops(r, rk);
	if (r->bad == NULL && (flags & TABLE_LAUNCHES))
		get_launch_steps(r, rk);
	if (r->bad == NULL && (flags & TABLE_COMM) && r->trusted && !(r->keep & TL_TABLE_COMM))
		skip_comm(r);
	else if (r->bad == NULL && (flags & TABLE_COMM))
		get_comm(r, rk, nsrc);
	if (r->bad == NULL && (flags & TABLE_COUNTERS))
		get_counters(r, rk, npool, nsrc);
}

const char *
cache_header_check(const uint8_t *b, size_t len, size_t header, const char *magic, uint32_t version,
                   uint64_t *sum, uint64_t *keylen)
{
	uint32_t ver, bom;
	uint64_t size;
	if (len < header)
		return "shorter than its header";
	if (memcmp(b, magic, 8) != 0)
		return memcmp(magic, CACHE_MAGIC, 8) == 0 ? "not a tl cache file"
		                                          : "not a tl result file";
	memcpy(&ver, b + 8, 4);
	memcpy(&bom, b + 12, 4);
	memcpy(&size, b + 16, 8);
	memcpy(sum, b + 24, 8);
	memcpy(keylen, b + 32, 8);
	if (bom != BYTE_ORDER_MARK)
		return "written on a host of the other byte order";
	if (ver != version)
		return "written by another version of tl";
	if (size != len)
		return "truncated or extended since it was written";
	return NULL;
}

static const char *
check_header(const uint8_t *b, size_t len, uint64_t *keylen, int trusted)
{
	uint64_t sum, kl;
	const char *why =
	    cache_header_check(b, len, TL_CACHE_HEADER, CACHE_MAGIC, TL_CACHE_VERSION, &sum, &kl);
	if (why != NULL)
		return why;
	if ((len - TL_CACHE_HEADER) % 8 != 0 || kl > len - TL_CACHE_HEADER)
		return "its sizes are inconsistent";
	if (!trusted && cache_checksum(b + TL_CACHE_HEADER, len - TL_CACHE_HEADER) != sum)
		return "its checksum does not match (corrupt)";
	*keylen = kl;
	return NULL;
}

static tl_rank *
decode(const void *buf, size_t len, const tl_source *src, size_t n, int borrow, int replay,
       int trusted, unsigned keep, char *err, size_t errlen)
{
	const uint8_t *b = buf;
	uint64_t keylen = 0;
	const char *why = check_header(b, len, &keylen, trusted);
	if (why != NULL) {
		snprintf(err, errlen, "%s", why);
		return NULL;
	}
	size_t klen;
	uint8_t *key = cache_key(src, n, &klen);
	int same = klen == keylen && memcmp(key, b + TL_CACHE_HEADER, klen) == 0;
	free(key);
	if (!same) {
		snprintf(err, errlen, "made from other input files");
		return NULL;
	}
	rd r = {.p = b + TL_CACHE_HEADER,
	        .n = len - TL_CACHE_HEADER,
	        .off = klen,
	        .borrow = borrow,
	        .trusted = trusted,
	        .keep = keep};
	int64_t rank = (int64_t)get_u64(&r);
	uint64_t flags = get_u64(&r);
	tl_rank *rk = rank_new((int)rank);
	if (r.bad == NULL && (rank != (int64_t)src[0].rank || flags > 7))
		r.bad = "its rank fields are inconsistent";
	rk->loaded = (flags & RANK_LOADED) != 0;
	rk->host_only = (flags & RANK_HOST_ONLY) != 0;
	rk->own_overlap = (flags & RANK_OWN_OVERLAP) != 0;
	rk->rows = get_u64(&r);
	int none = 0;
	rk->role = get_str(&r, &none);
	rk->host = get_str(&r, &none);
	uint64_t np = get_u64(&r);
	if (r.bad == NULL && (np == 0 || np > UINT32_MAX))
		r.bad = "its string count is out of range";
	for (uint64_t i = 1; i < np && r.bad == NULL; i++) {
		uint64_t sl = get_u64(&r);
		const uint8_t *p = get_bytes(&r, sl, 1);
		/* ids are given in order: a duplicate would shift every later one */
		if (p != NULL && strpool_intern(rk->pool, (const char *)p, (size_t)sl) != i)
			r.bad = "its strings repeat";
	}
	uint32_t npool = (uint32_t)(r.bad == NULL ? np : 1);
	size_t n0, n1;
	rk->src_t0 = get_arr(&r, sizeof *rk->src_t0, n, &n0);
	rk->src_t1 = get_arr(&r, sizeof *rk->src_t1, n, &n1);
	if (r.bad == NULL && (n0 != n || n1 != n))
		r.bad = "its source count does not match";
	rk->sources = xreallocarray(NULL, n, sizeof *rk->sources);
	for (size_t i = 0; i < n; i++)
		rk->sources[i] = &src[i];
	rk->nsources = n;
	rk->steps = get_arr(&r, sizeof *rk->steps, TL_NO_STEP - 1, &rk->nsteps);
	rk->scap = rk->nsteps;
	for (size_t i = 0; i < rk->nsteps && r.bad == NULL; i++)
		if (!times_ok(rk->steps[i].start, rk->steps[i].end) ||
		    (i > 0 && rk->steps[i].start < rk->steps[i - 1].start))
			r.bad = "its steps are out of order or range";
	rk->fwdbwd = get_arr(&r, sizeof *rk->fwdbwd, SIZE_MAX, &rk->nfwdbwd);
	rk->fbcap = rk->nfwdbwd;
	for (size_t i = 0; i < rk->nfwdbwd && r.bad == NULL; i++) {
		const tl_fwdbwd *f = &rk->fwdbwd[i];
		if (!times_ok(f->fwd_start, f->fwd_end) || !times_ok(f->bwd_start, f->bwd_end) ||
		    (i > 0 && f->fwd_start < rk->fwdbwd[i - 1].fwd_start))
			r.bad = "its operator pairs are out of order or range";
	}
	uint64_t nst = get_u64(&r);
	if (r.bad == NULL && nst != n)
		r.bad = "its loader states do not match its sources";
	for (size_t i = 0; i < n && r.bad == NULL; i++) {
		uint64_t stlen = get_u64(&r);
		const uint8_t *p = get_bytes(&r, stlen, 1);
		if (p == NULL || stlen == 0)
			continue;
		const tl_loader *ld = loader_for(src[i].kind);
		if (ld == NULL || ld->state_restore == NULL ||
		    ld->state_restore(rk, i, p, (size_t)stlen) != 0)
			r.bad = "a source's loader state is not one its loader wrote";
	}
	uint64_t nt = get_count(&r, 64, UINT64_MAX, "its lane count is out of range");
	if (r.bad == NULL && nt > 0) {
		rk->tracks = xcalloc((size_t)nt, sizeof *rk->tracks);
		rk->tcap = (size_t)nt;
	}
	for (uint64_t i = 0; i < nt && r.bad == NULL; i++) {
		tl_track *t = get_track(&r, rk, npool, n);
		rk->tracks[rk->ntracks++] = t;
		/* get_track checked each slice to start at or after the one before it ends, so
		 * starts and ends both ascend: the first start and the last end are the extremes */
		if (r.bad == NULL && t->n > 0) {
			if (t->v[0].start < rk->t_min)
				rk->t_min = t->v[0].start;
			if (track_end(t, t->n - 1) > rk->t_max)
				rk->t_max = track_end(t, t->n - 1);
		}
	}
	if (r.bad == NULL)
		get_tables(&r, rk, npool, n);
	uint64_t nw = get_count(&r, 16, UINT64_MAX, "its warning count is out of range");
	char **warn = NULL;
	size_t nwarn = 0;
	if (r.bad == NULL && nw > 0)
		warn = xcalloc((size_t)nw * 2, sizeof *warn);
	for (uint64_t i = 0; i < nw && r.bad == NULL; i++) {
		warn[2 * i] = get_str(&r, &none);
		warn[2 * i + 1] = get_str(&r, NULL);
		nwarn = (size_t)i + 1;
	}
	if (get_u64(&r) != END_MARK || r.off != r.n) {
		if (r.bad == NULL)
			r.bad = "its end is not where its sizes say";
	}
	if (r.bad == NULL && !rk->loaded)
		r.bad = "it holds a rank that did not load";
	/* the overlap lanes answer the summary's figures in place of the slices: they must be
	 * the slices' (one pass over them, like the per-slice checks a stamp skips) */
	if (r.bad == NULL && !r.trusted && lanes_check_rank(rk) != 0)
		r.bad = "its overlap lanes are not those its slices make";
	for (size_t i = 0; i < nwarn && r.bad == NULL && replay; i++) {
		if (warn[2 * i] != NULL)
			msg_warn(warn[2 * i], "%s", warn[2 * i + 1]);
		else
			msg_warn(NULL, "%s", warn[2 * i + 1]);
	}
	for (size_t i = 0; i < 2 * nwarn; i++)
		free(warn[i]);
	free(warn);
	if (r.bad != NULL) {
		snprintf(err, errlen, "%s", r.bad);
		rank_free(rk);
		return NULL;
	}
	return rk;
}

tl_rank *
cache_decode(const void *buf, size_t len, const tl_source *src, size_t n, char *err, size_t errlen)
{
	return decode(buf, len, src, n, 0, 1, 0, TL_TABLE_ALL, err, errlen);
}

tl_rank *
cache_decode_mapped(const void *buf, size_t len, const tl_source *src, size_t n, int replay,
                    char *err, size_t errlen)
{
	return decode(buf, len, src, n, 1, replay, 0, TL_TABLE_ALL, err, errlen);
}

tl_rank *
cache_decode_stamped(const void *buf, size_t len, const tl_source *src, size_t n, int replay,
                     int trusted, unsigned keep, char *err, size_t errlen)
{
	return decode(buf, len, src, n, 1, replay, trusted, keep, err, errlen);
}
