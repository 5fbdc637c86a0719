#include "config.h"
#include "model/trace.h"
#include "model/comm.h"
#include "model/lod.h"
#include "model/ops.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const lane_names[TL_LANE__COUNT] = {
    [TL_LANE_STAGE] = "stage",   [TL_LANE_STEP] = "step",
    [TL_LANE_MSTX] = "mstx",     [TL_LANE_COMPUTE] = "compute",
    [TL_LANE_COMM] = "comm",     [TL_LANE_COMM_TASK] = "comm.task",
    [TL_LANE_MEMCPY] = "memcpy", [TL_LANE_MSTX_DEV] = "mstx.device",
    [TL_LANE_OTHER] = "other",   [TL_LANE_OVERLAP] = "overlap",
    [TL_LANE_HOST] = "host",
};

const char *
lane_kind_name(tl_lane_kind k)
{
	return (unsigned)k < TL_LANE__COUNT ? lane_names[k] : "?";
}

tl_rank *
rank_new(int rank)
{
	tl_rank *r = xcalloc(1, sizeof *r);
	r->rank = rank;
	r->pool = strpool_new();
	r->t_min = INT64_MAX;
	r->t_max = INT64_MIN;
	r->args_keep = ~0u;
	return r;
}

/* ---- a lane's per-slice arrays (v, arg, step, dev: cap elements each) ---- */

/* A huge lane's array of 2 MiB or more is a mapping of whole huge pages (tl_track.huge): the
 * few lanes of a JSON trace reach millions of slices, and their first touches were a fifth of
 * its load's page faults, 4 KiB each. */
#define ARR_HUGE ((size_t)2 << 20)

static int
arr_huge(const tl_track *t, size_t cap, size_t sz)
{
	return t->huge && cap >= ARR_HUGE / sz;
}

static void
arr_free(const tl_track *t, void *p, size_t cap, size_t sz)
{
	if (arr_huge(t, cap, sz))
		xhuge_free(p, cap * sz);
	else
		free(p);
}

/* p, of cap elements of sz with the first n in use (NULL: none), resized to ncap. */
static void *
arr_resize(const tl_track *t, void *p, size_t n, size_t cap, size_t ncap, size_t sz)
{
	int was = p != NULL && arr_huge(t, cap, sz), will = arr_huge(t, ncap, sz);
	if (!was && !will)
		return xreallocarray(p, ncap, sz);
	if (ncap > SIZE_MAX / sz)
		xalloc_fail(SIZE_MAX);
	if (was && will)
		return xhuge_resize(p, cap * sz, ncap * sz);
	void *q = will ? xhuge_resize(NULL, 0, ncap * sz) : xreallocarray(NULL, ncap, sz);
	if (p != NULL)
		memcpy(q, p, (n < ncap ? n : ncap) * sz);
	arr_free(t, p, cap, sz);
	return q;
}

/* t's per-slice arrays that it has (v, arg, step, dev) resized to room for ncap slices. */
static void
track_resize(tl_track *t, size_t ncap)
{
	size_t n = t->n, cap = t->cap;
	t->v = arr_resize(t, t->v, n, cap, ncap, sizeof *t->v);
	if (t->arg)
		t->arg = arr_resize(t, t->arg, n, cap, ncap, sizeof *t->arg);
	if (t->step)
		t->step = arr_resize(t, t->step, n, cap, ncap, sizeof *t->step);
	if (t->dev)
		t->dev = arr_resize(t, t->dev, n, cap, ncap, sizeof *t->dev);
	t->cap = ncap;
}

void
track_fit(tl_track *t)
{
	if (t->borrowed || t->cap == t->n)
		return;
	track_resize(t, t->n);
}

static void
track_free(tl_track *t)
{
	if (!t->borrowed) {
		arr_free(t, t->v, t->cap, sizeof *t->v);
		arr_free(t, t->arg, t->cap, sizeof *t->arg);
		free(t->lend);
		arr_free(t, t->step, t->cap, sizeof *t->step);
		free(t->step_runs);
		arr_free(t, t->dev, t->cap, sizeof *t->dev);
	}
	lod_free(t->lod);
	lod_free(t->lod_file);
	free(t);
}

static void *
copy_of(const void *p, size_t n, size_t size)
{
	if (p == NULL || n == 0)
		return NULL;
	void *c = xreallocarray(NULL, n, size);
	memcpy(c, p, n * size);
	return c;
}

void
track_own(tl_track *t)
{
	if (!t->borrowed)
		return;
	t->v = copy_of(t->v, t->n, sizeof *t->v);
	t->arg = copy_of(t->arg, t->n, sizeof *t->arg);
	t->lend = copy_of(t->lend, t->nlend, sizeof *t->lend);
	t->lendcap = t->nlend;
	t->step = copy_of(t->step, t->n, sizeof *t->step);
	t->step_runs = copy_of(t->step_runs, t->nstep_runs, sizeof *t->step_runs);
	t->dev = copy_of(t->dev, t->n, sizeof *t->dev);
	t->cap = t->n;
	t->borrowed = 0;
	t->huge = 0; /* the copies are malloc's */
}

void
rank_drop_pages(const tl_rank *r)
{
	if (r != NULL && r->backing != NULL && r->backing_drop != NULL)
		r->backing_drop(r->backing);
}

void
rank_free(tl_rank *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->ntracks; i++)
		track_free(r->tracks[i]);
	free(r->tracks);
	free(r->steps);
	free(r->sources);
	free(r->src_t0);
	free(r->src_t1);
	free(r->role);
	free(r->host);
	free(r->fwdbwd);
	for (size_t i = 0; i < r->ncounters; i++) {
		free(r->counters[i]->t);
		free(r->counters[i]->v);
		free(r->counters[i]);
	}
	free(r->counters);
	for (size_t i = 0; i < r->nsrc_state; i++)
		if (r->src_state[i].free != NULL)
			r->src_state[i].free(r->src_state[i].p);
	free(r->src_state);
	rank_drop_tables(r, 0);
	strpool_free(r->pool);
	if (r->backing_free != NULL)
		r->backing_free(r->backing); /* after the tracks that borrowed from it */
	free(r);
}

/* ---- the optional tables ---------------------------------------------------------------------
 */

void
rank_ops_free(tl_rank *r)
{
	if (r->ops != NULL)
		op_data_free(r->ops);
	free(r->ops);
	r->ops = NULL;
}

void
rank_launches_free(tl_rank *r)
{
	free(r->launch_steps);
	r->launch_steps = NULL;
	r->nlaunch_steps = 0;
	free(r->launch_gaps);
	r->launch_gaps = NULL;
	r->nlaunch_gaps = 0;
	r->have_launch_steps = 0;
	free(r->launch_dev);
	r->launch_dev = NULL;
	r->nlaunch_dev = 0;
}

void
rank_comm_free(tl_rank *r)
{
	if (r->comm != NULL)
		comm_data_free(r->comm);
	free(r->comm);
	r->comm = NULL;
}

static void (*const table_free[TL_RANK_NTABLES])(tl_rank *) = {
#define TL_RANK_TABLE_FREE(name, free_fn) [TL_RANK_TABLE_##name] = free_fn,
    TL_RANK_TABLES(TL_RANK_TABLE_FREE)
#undef TL_RANK_TABLE_FREE
};

void
rank_drop_tables(tl_rank *r, unsigned keep)
{
	for (size_t i = 0; i < TL_RANK_NTABLES; i++)
		if (!(keep & (1u << i)))
			table_free[i](r);
}

static tl_track *
track_new(tl_rank *r, tl_lane_kind kind, int64_t key, uint32_t label, uint16_t depth)
{
	tl_track *t = xcalloc(1, sizeof *t);
	t->kind = kind;
	t->key = key;
	t->label = label;
	t->depth = depth;
	t->source = r->nsources ? (uint16_t)(r->nsources - 1) : 0;
	t->no_args = !(r->args_keep & 1u << kind);
	t->huge = r->huge_lanes;
	VEC_PUSH(r->tracks, r->ntracks, r->tcap, t);
	return t;
}

tl_track *
rank_track(tl_rank *r, tl_lane_kind kind, int64_t key, const char *label)
{
	for (size_t i = r->ntracks; i-- > 0;) {
		tl_track *t = r->tracks[i];
		if (t->kind == kind && t->key == key && t->depth == 0)
			return t;
	}
	return track_new(r, kind, key, strpool_intern_cstr(r->pool, label), 0);
}

/* The dur field of a slice of t from start to end: the duration when it fits, else the index
 * of its end in t->lend (old's slot when old, the field it replaces, had one). */
static uint32_t
track_dur_field(tl_track *t, int64_t start, int64_t end, uint32_t old)
{
	uint64_t d = (uint64_t)end - (uint64_t)start; /* wraps to a long one when end < start */
	if (d < TL_DUR_LONG)
		return (uint32_t)d;
	if (old & TL_DUR_LONG) {
		t->lend[old & ~TL_DUR_LONG] = end;
		return old;
	}
	if (t->nlend >= TL_DUR_LONG)
		xalloc_fail(t->nlend * sizeof *t->lend);
	VEC_PUSH(t->lend, t->nlend, t->lendcap, end);
	return TL_DUR_LONG | (uint32_t)(t->nlend - 1);
}

/* Gives t a row id array (UINT32_MAX for the slices it has) when it has none. */
static void
track_want_args(tl_track *t)
{
	if (t->arg != NULL)
		return;
	t->arg = arr_resize(t, NULL, 0, 0, t->cap ? t->cap : 1, sizeof *t->arg);
	memset(t->arg, 0xff, t->n * sizeof *t->arg);
}

void
track_push(tl_track *t, int64_t start, int64_t end, uint32_t name, uint32_t arg)
{
	track_own(t);
	if (t->n == t->cap)
		track_resize(t, t->cap ? t->cap * 2 : 256);
	if (t->dev)
		t->dev[t->n] = (tl_span){0, -1};
	if (arg != UINT32_MAX && !t->no_args)
		track_want_args(t);
	if (t->arg)
		t->arg[t->n] = arg;
	tl_slice *s = &t->v[t->n++];
	s->start = start;
	s->dur = track_dur_field(t, start, end, 0);
	s->name = name;
}

/* ---- the step tags: one per slice while loading, runs once finished ---- */

size_t
track_step_run_of(const tl_track *t, size_t k)
{
	size_t lo = 0, hi = t->nstep_runs;
	while (hi - lo > 1) { /* the last run with at <= k; the first's at is 0 */
		size_t mid = lo + (hi - lo) / 2;
		if (t->step_runs[mid].at <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static size_t
step_run_end(const tl_track *t, size_t j)
{
	return j + 1 < t->nstep_runs ? t->step_runs[j + 1].at : t->step_cover;
}

void
step_cursor_seek(tl_step_cursor *c, size_t k)
{
	const tl_track *t = c->t;
	if (k >= t->step_cover) { /* untagged: no runs, or slices pushed after them */
		c->lo = t->step_cover;
		c->hi = SIZE_MAX;
		c->cur = TL_NO_STEP;
		return;
	}
	size_t j = c->run + 1;
	if (j >= t->nstep_runs || k < t->step_runs[j].at || k >= step_run_end(t, j))
		j = track_step_run_of(t, k); /* not the next run: search */
	c->run = j;
	c->lo = t->step_runs[j].at;
	c->hi = step_run_end(t, j);
	c->cur = t->step_runs[j].step;
}

size_t
track_step_run_end(const tl_track *t, size_t k)
{
	if (t->step != NULL) {
		size_t e = k + 1;
		while (e < t->n && t->step[e] == t->step[k])
			e++;
		return e;
	}
	if (k >= t->step_cover)
		return t->n;
	size_t j = track_step_run_of(t, k), e = step_run_end(t, j);
	/* adjacent runs differ; past step_cover the slices are untagged */
	return e == t->step_cover && t->step_runs[j].step == TL_NO_STEP ? t->n : e;
}

size_t
step_cursor_skip(tl_step_cursor *c, size_t p, uint16_t step, int64_t t1)
{
	const tl_track *t = c->t;
	while (p < t->n && t->v[p].start < t1) {
		if (step_cursor_at(c, p) == step)
			return p;
		size_t e = t->step != NULL ? p + 1 : c->hi < t->n ? c->hi : t->n;
		if (t->v[e - 1].start >= t1) { /* the first start at or after t1 in (p, e) */
			size_t lo = p + 1, hi = e - 1;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (t->v[mid].start >= t1)
					hi = mid;
				else
					lo = mid + 1;
			}
			return lo;
		}
		p = e;
	}
	return p;
}

size_t
track_step_run_start(const tl_track *t, size_t k)
{
	if (t->step != NULL) {
		while (k > 0 && t->step[k - 1] == t->step[k])
			k--;
		return k;
	}
	if (k >= t->step_cover) /* untagged from step_cover, and before it if its run is */
		return t->nstep_runs > 0 && t->step_runs[t->nstep_runs - 1].step == TL_NO_STEP
		           ? t->step_runs[t->nstep_runs - 1].at
		           : t->step_cover;
	return t->step_runs[track_step_run_of(t, k)].at;
}

/* Runs back to one tag per slice, for pushing or reordering slices of a finished track. */
static void
track_steps_flat(tl_track *t)
{
	if (t->nstep_runs == 0)
		return;
	track_own(t);
	uint16_t *v = arr_resize(t, NULL, 0, 0, t->cap, sizeof *v); /* owned: cap >= n */
	tl_step_cursor c;
	step_cursor_init(&c, t);
	for (size_t k = 0; k < t->n; k++)
		v[k] = step_cursor_at(&c, k);
	free(t->step_runs);
	t->step_runs = NULL;
	t->nstep_runs = t->step_cover = 0;
	t->step = v;
}

/* One tag per slice into runs, unless the runs would take more (or a slice index outgrows
 * their 32 bits). */
static void
track_steps_to_runs(tl_track *t)
{
	if (t->step == NULL || t->borrowed)
		return;
	size_t nr = t->n > 0;
	for (size_t k = 1; k < t->n; k++)
		nr += t->step[k] != t->step[k - 1];
	if (t->n > UINT32_MAX || nr * sizeof *t->step_runs >= t->n * sizeof *t->step)
		return;
	tl_step_run *v = xreallocarray(NULL, nr, sizeof *v);
	size_t j = 0;
	for (size_t k = 0; k < t->n; k++)
		if (k == 0 || t->step[k] != t->step[k - 1])
			v[j++] = (tl_step_run){(uint32_t)k, t->step[k], 0};
	arr_free(t, t->step, t->cap, sizeof *t->step);
	t->step = NULL;
	t->step_runs = v;
	t->nstep_runs = nr;
	t->step_cover = t->n;
}

void
track_push_step(tl_track *t, int64_t start, int64_t end, uint32_t name, uint32_t arg, uint16_t step)
{
	track_steps_flat(t);
	int fresh = t->step == NULL;
	track_push(t, start, end, name, arg); /* (grows step with the others once it is there) */
	if (fresh) {                          /* slices pushed before had no step */
		t->step = arr_resize(t, NULL, 0, 0, t->cap, sizeof *t->step);
		for (size_t i = 0; i + 1 < t->n; i++)
			t->step[i] = TL_NO_STEP;
	}
	t->step[t->n - 1] = step;
}

void
track_set_dev(tl_track *t, size_t k, int64_t start, int64_t end)
{
	if (k >= t->n)
		return;
	track_own(t);
	if (t->dev == NULL) {
		t->dev = arr_resize(t, NULL, 0, 0, t->cap, sizeof *t->dev);
		for (size_t i = 0; i < t->n; i++)
			t->dev[i] = (tl_span){0, -1};
	}
	t->dev[k] = (tl_span){start, end};
}

void
track_set_times(tl_track *t, size_t k, int64_t start, int64_t end)
{
	if (k >= t->n)
		return;
	track_own(t);
	t->v[k].start = start;
	t->v[k].dur = track_dur_field(t, start, end, t->v[k].dur);
}

void
track_set_arg(tl_track *t, size_t k, uint32_t arg)
{
	if (k >= t->n)
		return;
	track_own(t);
	if ((arg == UINT32_MAX && t->arg == NULL) || t->no_args)
		return;
	track_want_args(t);
	t->arg[k] = arg;
}

void
rank_drop_args(tl_rank *r, unsigned keep)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		tl_track *t = r->tracks[i];
		if (t->arg == NULL || (keep & 1u << t->kind) || t->borrowed)
			continue;
		arr_free(t, t->arg, t->cap, sizeof *t->arg);
		t->arg = NULL;
	}
}

/* ---- finishing ------------------------------------------------------------------------- */

/* A slice's place in the order by start, longer first at one start (so that a parent precedes
 * its children), then as pushed. */
typedef struct {
	int64_t start, end;
	size_t i;
} sort_key;

static int
cmp_key(const void *a, const void *b)
{
	const sort_key *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Puts the n items of size bytes at a in key's order, through tmp (n * size bytes). */
static void
permute(void *a, size_t size, const sort_key *key, size_t n, void *tmp)
{
	if (a == NULL)
		return;
	uint8_t *src = a, *dst = tmp;
	for (size_t i = 0; i < n; i++)
		memcpy(dst + i * size, src + key[i].i * size, size);
	memcpy(a, tmp, n * size);
}

static void
track_sort(tl_track *t)
{
	int sorted = 1;
	for (size_t i = 1; i < t->n && sorted; i++)
		if (t->v[i - 1].start > t->v[i].start ||
		    (t->v[i - 1].start == t->v[i].start && track_end(t, i - 1) < track_end(t, i)))
			sorted = 0;
	if (sorted)
		return;
	track_own(t);
	sort_key *key = xreallocarray(NULL, t->n, sizeof *key);
	for (size_t i = 0; i < t->n; i++)
		key[i] = (sort_key){t->v[i].start, track_end(t, i), i};
	qsort(key, t->n, sizeof *key, cmp_key);
	void *tmp = xreallocarray(NULL, t->n, sizeof(tl_span)); /* the widest of the arrays */
	permute(t->v, sizeof *t->v, key, t->n, tmp);
	permute(t->arg, sizeof *t->arg, key, t->n, tmp);
	permute(t->step, sizeof *t->step, key, t->n, tmp);
	permute(t->dev, sizeof *t->dev, key, t->n, tmp);
	free(tmp);
	free(key);
}

/* Splits overlapping slices of t into depth levels: each slice goes to the lowest level whose
 * last slice ended at or before its start. Properly nested ranges land at their nesting depth;
 * partly overlapping ones (torch isend ranges) still get a level. Nothing is dropped. */
static void
track_split_levels(tl_rank *r, tl_track *t)
{
	size_t i;
	int64_t last_end = INT64_MIN;
	for (i = 0; i < t->n; i++) {
		if (t->v[i].start < last_end)
			break;
		last_end = track_end(t, i);
	}
	if (i == t->n)
		return;
	track_own(t);
	tl_track **lv = NULL;
	int64_t *lend = NULL;
	size_t nlv = 0, lvcap = 0, nlend = 0, lendcap = 0;
	VEC_PUSH(lv, nlv, lvcap, t); /* level 0 is t itself, compacted in place */
	VEC_PUSH(lend, nlend, lendcap, last_end);
	size_t w = i;
	for (; i < t->n; i++) {
		tl_slice s = t->v[i]; /* its long end's index stays t's: compacted in t below */
		int64_t end = slice_end(t, &s);
		uint32_t arg = track_arg(t, i);
		uint16_t st = t->step ? t->step[i] : TL_NO_STEP;
		tl_span dv = t->dev ? t->dev[i] : (tl_span){0, -1};
		size_t L = 0;
		while (L < nlv && lend[L] > s.start)
			L++;
		if (L == 0) {
			t->v[w] = s;
			if (t->arg)
				t->arg[w] = arg;
			if (t->step)
				t->step[w] = st;
			if (t->dev)
				t->dev[w] = dv;
			w++;
		} else {
			if (L == nlv) {
				tl_track *nt = track_new(r, t->kind, t->key, t->label, (uint16_t)L);
				nt->source = t->source;
				nt->user_ranges = t->user_ranges;
				nt->huge = t->huge; /* no arrays yet */
				VEC_PUSH(lv, nlv, lvcap, nt);
				VEC_PUSH(lend, nlend, lendcap, INT64_MIN);
			}
			if (t->step)
				track_push_step(lv[L], s.start, end, s.name, arg, st);
			else
				track_push(lv[L], s.start, end, s.name, arg);
			if (dv.end >= dv.start)
				track_set_dev(lv[L], lv[L]->n - 1, dv.start, dv.end);
		}
		if (end > lend[L])
			lend[L] = end;
	}
	t->n = w;
	free(lv);
	free(lend);
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

/* Steps may come from several captures; sort them and renumber the slices' step tags. */
static void
rank_sort_steps(tl_rank *r)
{
	int sorted = 1;
	for (size_t i = 1; i < r->nsteps && sorted; i++)
		if (r->steps[i - 1].start > r->steps[i].start)
			sorted = 0;
	if (sorted)
		return;
	size_t *ord = xreallocarray(NULL, r->nsteps, sizeof *ord);
	for (size_t i = 0; i < r->nsteps; i++)
		ord[i] = i;
	/* insertion sort by start: step counts are small */
	for (size_t i = 1; i < r->nsteps; i++)
		for (size_t k = i; k > 0 && r->steps[ord[k - 1]].start > r->steps[ord[k]].start;
		     k--) {
			size_t tmp = ord[k];
			ord[k] = ord[k - 1];
			ord[k - 1] = tmp;
		}
	uint16_t *remap = xreallocarray(NULL, r->nsteps, sizeof *remap);
	tl_step *ns = xreallocarray(NULL, r->nsteps, sizeof *ns);
	for (size_t i = 0; i < r->nsteps; i++) {
		remap[ord[i]] = (uint16_t)i;
		ns[i] = r->steps[ord[i]];
	}
	memcpy(r->steps, ns, r->nsteps * sizeof *ns);
	for (size_t i = 0; i < r->ntracks; i++) {
		tl_track *t = r->tracks[i];
		if (t->kind == TL_LANE_STEP || track_has_steps(t))
			track_own(t);
		if (t->kind == TL_LANE_STEP)
			for (size_t k = 0; t->arg && k < t->n; k++)
				if (t->arg[k] < r->nsteps)
					t->arg[k] = remap[t->arg[k]];
		for (size_t k = 0; t->step && k < t->n; k++)
			if (t->step[k] != TL_NO_STEP)
				t->step[k] = remap[t->step[k]];
		for (size_t k = 0; k < t->nstep_runs; k++)
			if (t->step_runs[k].step != TL_NO_STEP)
				t->step_runs[k].step = remap[t->step_runs[k].step];
	}
	free(ns);
	free(remap);
	free(ord);
}

static int
cmp_fwdbwd(const void *a, const void *b)
{
	const tl_fwdbwd *x = a, *y = b;
	if (x->fwd_start != y->fwd_start)
		return x->fwd_start < y->fwd_start ? -1 : 1;
	return (x->bwd_start > y->bwd_start) - (x->bwd_start < y->bwd_start);
}

void
rank_add_fwdbwd(tl_rank *r, int64_t fs, int64_t fe, int64_t bs, int64_t be)
{
	tl_fwdbwd x = {fs, fe, bs, be};
	VEC_PUSH(r->fwdbwd, r->nfwdbwd, r->fbcap, x);
}

void
rank_set_source_state(tl_rank *r, size_t src, void *state, void (*free_fn)(void *))
{
	if (src >= r->nsrc_state) {
		r->src_state = xreallocarray(r->src_state, src + 1, sizeof *r->src_state);
		memset(r->src_state + r->nsrc_state, 0,
		       (src + 1 - r->nsrc_state) * sizeof *r->src_state);
		r->nsrc_state = src + 1;
	}
	if (r->src_state[src].free != NULL)
		r->src_state[src].free(r->src_state[src].p);
	r->src_state[src] = (tl_srcstate){state, free_fn};
}

void *
rank_source_state(const tl_rank *r, size_t src)
{
	return src < r->nsrc_state ? r->src_state[src].p : NULL;
}

void
rank_sort_fwdbwd(tl_rank *r)
{
	if (r->nfwdbwd > 1)
		qsort(r->fwdbwd, r->nfwdbwd, sizeof *r->fwdbwd, cmp_fwdbwd);
}

void
rank_finish(tl_rank *r)
{
	rank_sort_steps(r);
	rank_sort_fwdbwd(r);
	size_t n0 = r->ntracks; /* tracks added by splitting are already final */
	for (size_t i = 0; i < n0; i++) {
		tl_track *t = r->tracks[i];
		track_sort(t);
		track_split_levels(r, t);
	}
	size_t w = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		tl_track *t = r->tracks[i];
		if (t->n == 0) {
			track_free(t);
			continue;
		}
		/* give back the slack of the growth doubling */
		if (t->cap > t->n + t->n / 8)
			track_fit(t);
		for (size_t k = 0; k < t->n; k++) {
			if (t->v[k].start < r->t_min)
				r->t_min = t->v[k].start;
			if (track_end(t, k) > r->t_max)
				r->t_max = track_end(t, k);
		}
		r->tracks[w++] = t;
	}
	r->ntracks = w;
	if (r->ntracks > 1) /* tracks is NULL for a rank without any: qsort(NULL, 0) is undefined */
		qsort(r->tracks, r->ntracks, sizeof *r->tracks, cmp_track);
	for (size_t i = 0; i < r->ntracks; i++) /* sorted and split: the tags into runs */
		track_steps_to_runs(r->tracks[i]);
}

void
rank_finish_grown(tl_rank *r, const size_t *before, size_t nbefore)
{
	size_t n0 = r->ntracks; /* tracks added by splitting are already final */
	for (size_t i = 0; i < n0; i++) {
		tl_track *t = r->tracks[i];
		if (i < nbefore && t->n == before[i])
			continue;
		lod_free(t->lod); /* the summary no longer holds */
		t->lod = NULL;
		lod_free(t->lod_file);
		t->lod_file = NULL;
		track_steps_flat(t); /* slices may move: a tag per slice again */
		track_sort(t);
		track_split_levels(r, t);
	}
	size_t w = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		tl_track *t = r->tracks[i];
		if (t->n == 0) {
			track_free(t);
			continue;
		}
		if (i >= nbefore || t->n != before[i])
			for (size_t k = 0; k < t->n; k++) {
				if (t->v[k].start < r->t_min)
					r->t_min = t->v[k].start;
				if (track_end(t, k) > r->t_max)
					r->t_max = track_end(t, k);
			}
		r->tracks[w++] = t;
	}
	r->ntracks = w;
	if (r->ntracks > 1)
		qsort(r->tracks, r->ntracks, sizeof *r->tracks, cmp_track);
	for (size_t i = 0; i < r->ntracks; i++)
		track_steps_to_runs(r->tracks[i]);
}

size_t
steps_index_near(const tl_step *v, size_t n, int64_t t, size_t *near)
{
	size_t c = *near;
	if (c > n || (c > 0 && v[c - 1].start > t) || (c < n && v[c].start <= t)) {
		size_t lo = 0, hi = n;
		while (lo < hi) { /* the steps with start <= t */
			size_t mid = (lo + hi) / 2;
			if (v[mid].start <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
		c = *near = lo;
	}
	return c > 0 && t <= v[c - 1].end ? c - 1 : SIZE_MAX;
}

size_t
steps_index_at(const tl_step *v, size_t n, int64_t t)
{
	size_t near = 0;
	return steps_index_near(v, n, t, &near);
}

uint16_t
rank_step_at(const tl_rank *r, int64_t t)
{
	size_t i = steps_index_at(r->steps, r->nsteps, t);
	return i == SIZE_MAX ? TL_NO_STEP : (uint16_t)i;
}

static int
cmp_step_start(const void *a, const void *b)
{
	const tl_step *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

int
rank_add_steps(tl_rank *r, tl_step *v, size_t n, size_t *base)
{
	*base = r->nsteps;
	if (n > (size_t)TL_NO_STEP - 1 - r->nsteps)
		return -1;
	if (n == 0)
		return 0; /* (and no qsort of a NULL array: undefined even for none) */
	qsort(v, n, sizeof *v, cmp_step_start);
	for (size_t i = 0; i < n; i++)
		VEC_PUSH(r->steps, r->nsteps, r->scap, v[i]);
	tl_track *t = rank_track(r, TL_LANE_STEP, 0, "Step");
	for (size_t i = 0; i < n; i++) {
		char nm[48];
		snprintf(nm, sizeof nm, "ProfilerStep#%" PRId64, v[i].id);
		track_push(t, v[i].start, v[i].end, strpool_intern_cstr(r->pool, nm),
		           (uint32_t)(*base + i));
	}
	return 0;
}

void
track_lod_build(tl_track *t)
{
	if (t->lod != NULL)
		return;
	if (t->lod_file != NULL && t->lod_file->n == t->n &&
	    (t->lod_file->checked || lod_check(t, t->lod_file->busy, t->lod_file->node) == 0)) {
		t->lod = t->lod_file;
		t->lod_file = NULL;
		return;
	}
	lod_free(t->lod_file); /* one that does not match its slices is never used */
	t->lod_file = NULL;
	t->lod = lod_build(t);
}

/* The first of v[lo .. hi) ending after x (hi: none), the slices by end there. */
static size_t
first_ending_after_in(const tl_track *t, size_t lo, size_t hi, int64_t x)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (track_end(t, mid) <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t
track_first_ending_after(const tl_track *t, int64_t x)
{
	return first_ending_after_in(t, 0, t->n, x);
}

size_t
track_first_ending_after_from(const tl_track *t, int64_t x, size_t from)
{
	size_t n = t->n, lo, hi, step = 1;
	if (from > n)
		from = n;
	if (from < n && track_end(t, from) <= x) { /* the answer is past from */
		for (lo = from + 1;; step *= 2) {
			size_t probe = lo - 1 + step;
			if (probe >= n) {
				hi = n;
				break;
			}
			if (track_end(t, probe) > x) {
				hi = probe;
				break;
			}
			lo = probe + 1;
		}
	} else { /* at from or before it */
		for (hi = from, lo = 0; hi > 0; step *= 2) {
			size_t probe = hi > step ? hi - step : 0;
			if (track_end(t, probe) <= x) {
				lo = probe + 1;
				break;
			}
			hi = probe;
		}
	}
	return first_ending_after_in(t, lo, hi, x);
}

size_t
track_first_starting_at(const tl_track *t, int64_t x)
{
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->v[mid].start < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void
trace_init(tl_trace *tr)
{
	memset(tr, 0, sizeof *tr);
	tr->t_min = INT64_MAX;
	tr->t_max = INT64_MIN;
}

void
trace_init_rank(tl_trace *tr, tl_rank *r)
{
	trace_init(tr);
	tr->ranks = xcalloc(1, sizeof *tr->ranks);
	tr->ranks[0] = r;
	tr->nranks = 1;
	tr->t_min = r->t_min;
	tr->t_max = r->t_max;
}

size_t
trace_rank_index(const tl_trace *tr, int rank)
{
	for (size_t i = 0; i < tr->nranks; i++)
		if (tr->ranks[i]->rank == rank)
			return i;
	return SIZE_MAX;
}

void
trace_drop_pages(const tl_trace *tr)
{
	for (size_t i = 0; i < tr->nranks; i++)
		rank_drop_pages(tr->ranks[i]);
}

void
trace_free(tl_trace *tr)
{
	for (size_t i = 0; i < tr->nranks; i++)
		rank_free(tr->ranks[i]);
	free(tr->ranks);
	sourcelist_free(&tr->sources);
	for (size_t i = 0; i < tr->nhosts; i++) {
		free(tr->hosts[i].name);
		free(tr->hosts[i].ranks);
	}
	free(tr->hosts);
	trace_init(tr);
}

size_t
trace_slice_bytes(const tl_trace *tr, size_t *nslices)
{
	size_t bytes = 0, n = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		for (size_t k = 0; k < r->ntracks; k++) {
			const tl_track *t = r->tracks[k];
			if (t->kind != TL_LANE_OVERLAP) /* derived lanes are not slices loaded */
				n += t->n;
			bytes += lod_bytes(t->lod);
			if (t->borrowed) /* the mapped cache file's */
				continue;
			bytes += t->cap * sizeof *t->v + t->lendcap * sizeof *t->lend;
			if (t->arg)
				bytes += t->cap * sizeof *t->arg;
			if (t->step)
				bytes += t->cap * sizeof *t->step;
			bytes += t->nstep_runs * sizeof *t->step_runs;
			if (t->dev)
				bytes += t->cap * sizeof *t->dev;
		}
	}
	if (nslices)
		*nslices = n;
	return bytes;
}

/* ---- counters ---- */

tl_counter *
rank_counter(tl_rank *r, tl_counter_kind kind, const char *group, uint16_t source)
{
	uint32_t g = strpool_intern_cstr(r->pool, group);
	for (size_t i = r->ncounters; i-- > 0;) {
		tl_counter *c = r->counters[i];
		if (c->kind == kind && c->group == g && c->source == source)
			return c;
	}
	tl_counter *c = xcalloc(1, sizeof *c);
	c->kind = kind;
	c->group = g;
	c->source = source;
	VEC_PUSH(r->counters, r->ncounters, r->ctrcap, c);
	return c;
}

void
counter_push(tl_counter *c, int64_t t, int64_t v)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->t = xreallocarray(c->t, c->cap, sizeof *c->t);
		c->v = xreallocarray(c->v, c->cap, sizeof *c->v);
	}
	c->t[c->n] = t;
	c->v[c->n] = v;
	c->n++;
}

typedef struct ctr_sample {
	int64_t t, v;
	size_t i;
} ctr_sample;

static int
cmp_ctr_sample(const void *a, const void *b)
{
	const ctr_sample *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

size_t
counter_sort(tl_counter *c)
{
	size_t back = 0;
	for (size_t i = 1; i < c->n; i++)
		back += c->t[i] < c->t[i - 1];
	if (back == 0)
		return 0;
	ctr_sample *s = xreallocarray(NULL, c->n, sizeof *s);
	for (size_t i = 0; i < c->n; i++)
		s[i] = (ctr_sample){c->t[i], c->v[i], i};
	qsort(s, c->n, sizeof *s, cmp_ctr_sample);
	for (size_t i = 0; i < c->n; i++) {
		c->t[i] = s[i].t;
		c->v[i] = s[i].v;
	}
	free(s);
	return back;
}

typedef struct ctr_key { /* a counter and its group's name, to sort by (ranks sort in parallel) */
	tl_counter *c;
	const char *group;
} ctr_key;

static int
cmp_counter(const void *a, const void *b)
{
	const ctr_key *x = a, *y = b;
	if (x->c->kind != y->c->kind)
		return x->c->kind < y->c->kind ? -1 : 1;
	int c = strcmp(x->group, y->group);
	if (c != 0)
		return c;
	return (x->c->source > y->c->source) - (x->c->source < y->c->source);
}

void
rank_sort_counters(tl_rank *r)
{
	if (r->ncounters < 2)
		return;
	ctr_key *k = xreallocarray(NULL, r->ncounters, sizeof *k);
	for (size_t i = 0; i < r->ncounters; i++)
		k[i] = (ctr_key){r->counters[i], strpool_get(r->pool, r->counters[i]->group)};
	qsort(k, r->ncounters, sizeof *k, cmp_counter);
	for (size_t i = 0; i < r->ncounters; i++)
		r->counters[i] = k[i].c;
	free(k);
}
