#include "config.h"
#include "analysis/launch.h"
#include "analysis/overlap.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The index of the nearest-rank percentile p of n sorted values. */
static size_t
percentile_at(size_t n, int p)
{
	size_t k = (n * (size_t)p + 99) / 100; /* ceil(p n / 100), >= 1 for n, p > 0 */
	return k > 0 ? k - 1 : 0;
}

int64_t
launch_percentile(const int64_t *v, size_t n, int p)
{
	return v[percentile_at(n, p)];
}

/* The step of launch l (its index), or nsteps: outside every step. *lo: steps_index_near's
 * place, the launches coming mostly by host start. */
static size_t
launch_bucket(const tl_rank *r, const tl_launch *l, size_t *lo)
{
	if (r->nsteps == 1)
		return 0;
	size_t k = steps_index_near(r->steps, r->nsteps, l->host_start, lo);
	return k < r->nsteps ? k : r->nsteps;
}

/* The row of one bucket's m delays: in d64, or in d32 when they fit 32 bits. */
static tl_launch_step
bucket_row(int64_t step_id, int64_t *d64, int32_t *d32, size_t m)
{
	size_t i50 = percentile_at(m, 50), i90 = percentile_at(m, 90);
	tl_launch_step row = {.step_id = step_id, .launches = m};
	/* the two percentiles selected, not the delays sorted (a radix sort's scratch is 8
	 * bytes a launch of the step: 1 M launches, 2.7 MB beside the rank's) */
	if (d32 != NULL) {
		int32_t max = d32[0], p50, p90;
		for (size_t i = 1; i < m; i++)
			max = d32[i] > max ? d32[i] : max;
		select2_i32(d32, m, i50, i90, &p50, &p90);
		row.p50 = p50;
		row.p90 = p90;
		row.max = max;
	} else {
		int64_t max = d64[0];
		for (size_t i = 1; i < m; i++)
			max = d64[i] > max ? d64[i] : max;
		select2_i64(d64, m, i50, i90, &row.p50, &row.p90);
		row.max = max;
	}
	return row;
}

size_t
launch_steps(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step **out)
{
	*out = NULL;
	if (n == 0)
		return 0;
	/* a bucket per step and one for launches outside every step (last), then each bucket's
	 * delays sorted: millions of launches, a handful of steps (each launch's bucket is found
	 * twice, a search over the steps, rather than kept: 8 bytes a launch). The delays in 32
	 * bits when every one fits (a DB's launches: up to 2.1 s), the scratch then 4 bytes a
	 * launch, not 8: 4 MB less at the top of a rank's gather of 1 M launches */
	size_t nb = r->nsteps + 1;
	size_t *at = xcalloc(nb + 1, sizeof *at), lo = 0;
	int narrow = 1;
	for (size_t i = 0; i < n; i++) {
		at[launch_bucket(r, &v[i], &lo) + 1]++;
		int64_t x = v[i].dev_start - v[i].host_start;
		narrow &= x >= INT32_MIN && x <= INT32_MAX;
	}
	for (size_t k = 0; k < nb; k++)
		at[k + 1] += at[k];
	int64_t *d64 = narrow ? NULL : xreallocarray(NULL, n, sizeof *d64);
	int32_t *d32 = narrow ? xreallocarray(NULL, n, sizeof *d32) : NULL;
	size_t *fill = xreallocarray(NULL, nb, sizeof *fill);
	memcpy(fill, at, nb * sizeof *fill);
	for (size_t i = 0; i < n; i++) {
		size_t k = fill[launch_bucket(r, &v[i], &lo)]++;
		int64_t x = v[i].dev_start - v[i].host_start;
		if (narrow)
			d32[k] = (int32_t)x;
		else
			d64[k] = x;
	}
	tl_launch_step *o = NULL;
	size_t no = 0, cap = 0;
	for (size_t k = 0; k < nb; k++) {
		size_t m = at[k + 1] - at[k];
		if (m == 0)
			continue;
		tl_launch_step row =
		    bucket_row(k == r->nsteps ? -1 : r->steps[k].id, narrow ? NULL : d64 + at[k],
		               narrow ? d32 + at[k] : NULL, m);
		VEC_PUSH(o, no, cap, row);
	}
	free(fill);
	free(d64);
	free(d32);
	free(at);
	*out = o;
	return no;
}

/* ---- device idle time the host was still launching ---- */

static int
cmp_dev(const void *a, const void *b)
{
	const tl_launch *x = a, *y = b;
	if (x->dev_start != y->dev_start)
		return x->dev_start < y->dev_start ? -1 : 1;
	return (x->host_start > y->host_start) - (x->host_start < y->host_start);
}

void
launch_sort_dev(tl_launch *v, size_t n)
{
	/* a DB's launches come by connectionId, which is launch order, and device work mostly
	 * starts in that order too: often sorted already, which qsort would not notice */
	size_t i = 1;
	while (i < n && cmp_dev(&v[i - 1], &v[i]) <= 0)
		i++;
	if (i < n)
		qsort(v, n, sizeof *v, cmp_dev);
}

/* The host start of the launch of the first device work at or after t (v by device start,
 * equal device starts by host start), or INT64_MIN when none follows. *at is a cursor: the
 * search gallops on from it (a rank's gaps come in time order, a million of them at 1 M tasks,
 * where a search from the start each time was most of the gather's CPU) and leaves it at the
 * answer; a t before the cursor's starts again from 0. */
static int64_t
next_launch(const tl_launch *v, size_t n, int64_t t, size_t *at)
{
	size_t lo = *at <= n ? *at : n;
	if (lo > 0 && v[lo - 1].dev_start >= t)
		lo = 0;
	size_t hi = lo, step = 1;
	while (hi < n && v[hi].dev_start < t) {
		lo = hi + 1;
		hi = step < n - hi ? hi + step : n;
		step *= 2;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].dev_start < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return lo < n ? v[lo].host_start : INT64_MIN;
}

/* Busy blocks of compute ∪ communication, in order: the two unions merged. */
typedef struct busy_iter {
	tl_union_iter c, m;
	int hc, hm;
	int64_t cs, ce, ms, me;
} busy_iter;

static void
busy_init(busy_iter *b, const tl_rank *r, uint16_t step, int64_t t0, int64_t t1)
{
	union_iter_init(&b->c, r, TL_LANE_COMPUTE, step, t0, t1);
	union_iter_init(&b->m, r, TL_LANE_COMM, step, t0, t1);
	b->hc = union_iter_next(&b->c, &b->cs, &b->ce);
	b->hm = union_iter_next(&b->m, &b->ms, &b->me);
}

/* The next interval of either union by start (not yet merged with its neighbours). */
static int
busy_next(busy_iter *b, int64_t *s, int64_t *e)
{
	if (b->hc && (!b->hm || b->cs <= b->ms)) {
		*s = b->cs;
		*e = b->ce;
		b->hc = union_iter_next(&b->c, &b->cs, &b->ce);
		return 1;
	}
	if (b->hm) {
		*s = b->ms;
		*e = b->me;
		b->hm = union_iter_next(&b->m, &b->ms, &b->me);
		return 1;
	}
	return 0;
}

void
launch_idle_gaps(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, const tl_launch *v,
                 size_t n, launch_gap_fn fn, void *ctx)
{
	busy_iter b;
	busy_init(&b, r, step, t0, t1);
	int64_t s, e, end = INT64_MIN;
	int have = 0;
	size_t at = 0;
	while (busy_next(&b, &s, &e)) {
		if (have && s > end) { /* a gap [end, s) */
			int64_t l = next_launch(v, n, s, &at), host = 0;
			if (l != INT64_MIN && l > end)
				host = (l < s ? l : s) - end;
			fn(ctx, end, s, host);
		}
		if (!have || e > end)
			end = e;
		have = 1;
	}
	union_iter_done(&b.c);
	union_iter_done(&b.m);
}

static void
idle_add(void *ctx, int64_t s, int64_t e, int64_t host)
{
	tl_host_idle *out = ctx;
	out->idle += e - s;
	out->idle_host += host;
}

void
launch_idle(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, const tl_launch *v, size_t n,
            tl_host_idle *out)
{
	out->idle = out->idle_host = 0;
	launch_idle_gaps(r, step, t0, t1, v, n, idle_add, out);
}

/* Each step's work envelope [lo[k], hi[k]] (lo > hi: no work), so that each step scans its own
 * window (work is tagged with its launch's step; a rank with fewer than two steps may have no
 * tags: its one step, or the whole capture, has all work; a Kineto trace's work launched before
 * the capture is tagged with no step even then). Returns the count (one without steps). */
static size_t
step_envelopes(const tl_rank *r, int64_t **lo_out, int64_t **hi_out)
{
	size_t ns = r->nsteps ? r->nsteps : 1;
	int64_t *lo = xmalloc(ns * sizeof *lo), *hi = xmalloc(ns * sizeof *hi);
	for (size_t k = 0; k < ns; k++) {
		lo[k] = INT64_MAX;
		hi[k] = INT64_MIN;
	}
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_COMPUTE && t->kind != TL_LANE_COMM)
			continue;
		tl_step_cursor sc;
		step_cursor_init(&sc, t);
		for (size_t k = 0; k < t->n; k++) {
			size_t st = r->nsteps == 0       ? 0
			            : track_has_steps(t) ? step_cursor_at(&sc, k)
			            : r->nsteps < 2      ? 0
			                                 : TL_NO_STEP;
			if (st >= ns)
				continue;
			if (t->v[k].start < lo[st])
				lo[st] = t->v[k].start;
			if (track_end(t, k) > hi[st])
				hi[st] = track_end(t, k);
		}
	}
	*lo_out = lo;
	*hi_out = hi;
	return ns;
}

/* launch_idle's sums of the gaps it passes on to fn (when there is one). */
typedef struct idle_fwd {
	tl_host_idle sum;
	launch_gap_fn fn;
	void *ctx;
} idle_fwd;

static void
idle_fwd_add(void *arg, int64_t s, int64_t e, int64_t host)
{
	idle_fwd *f = arg;
	f->sum.idle += e - s;
	f->sum.idle_host += host;
	if (f->fn != NULL)
		f->fn(f->ctx, s, e, host);
}

/* For each step of r with work (step_envelopes: *lo, *hi, the count returned): step(ctx, id),
 * then its gaps through fn (either may be NULL), and their sums into (*idle)[k]. */
static size_t
steps_gaps(const tl_rank *r, const tl_launch *v, size_t n, launch_step_fn step, launch_gap_fn fn,
           void *ctx, int64_t **lo, int64_t **hi, tl_host_idle **idle)
{
	size_t ns = step_envelopes(r, lo, hi);
	*idle = xcalloc(ns, sizeof **idle);
	for (size_t k = 0; k < ns; k++) {
		if ((*lo)[k] > (*hi)[k])
			continue;
		if (step != NULL)
			step(ctx, r->nsteps == 0 ? -1 : r->steps[k].id);
		idle_fwd f = {{0, 0}, fn, ctx};
		launch_idle_gaps(r, r->nsteps == 0 ? TL_NO_STEP : (uint16_t)k, (*lo)[k],
		                 (*hi)[k] + 1, v, n, idle_fwd_add, &f);
		(*idle)[k] = f.sum;
	}
	return ns;
}

void
launch_step_gaps(const tl_rank *r, const tl_launch *v, size_t n, launch_step_fn step,
                 launch_gap_fn fn, void *ctx)
{
	int64_t *lo, *hi;
	tl_host_idle *idle;
	steps_gaps(r, v, n, step, fn, ctx, &lo, &hi, &idle);
	free(idle);
	free(lo);
	free(hi);
}

void
launch_steps_idle_gaps(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step *rows, size_t nrows,
                       launch_step_fn step, launch_gap_fn fn, void *ctx)
{
	launch_sort_dev(v, n);
	int64_t *lo, *hi;
	tl_host_idle *idle;
	steps_gaps(r, v, n, step, fn, ctx, &lo, &hi, &idle);
	for (size_t i = 0; i < nrows; i++) {
		tl_launch_step *row = &rows[i];
		row->have_idle = 0;
		row->idle = row->idle_host = 0;
		size_t k;
		if (r->nsteps == 0 && row->step_id < 0)
			k = 0;
		else {
			for (k = 0; k < r->nsteps && r->steps[k].id != row->step_id; k++)
				;
			if (k == r->nsteps || row->step_id < 0)
				continue;
		}
		if (lo[k] > hi[k])
			continue;
		row->have_idle = 1;
		row->idle = idle[k].idle;
		row->idle_host = idle[k].idle_host;
	}
	free(idle);
	free(lo);
	free(hi);
}

void
launch_steps_idle(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step *rows, size_t nrows)
{
	launch_steps_idle_gaps(r, v, n, rows, nrows, NULL, NULL, NULL);
}

/* Launch i (device start dev, host start host) into p's word i and, when it starts a block or
 * is wide, its tables; memcpy, so that the word's stores and the launches' loads in the same
 * memory are not taken apart. */
static void
pack_one(tl_launch_pack *p, size_t i, int64_t dev, int64_t host, size_t *cap, size_t *wcap)
{
	const struct tl_launch_block *b = p->nblk ? &p->blk[p->nblk - 1] : NULL;
	if (b == NULL || i - b->first == 256 || (uint64_t)(dev - b->dev0) > UINT32_MAX)
		VEC_PUSH(p->blk, p->nblk, *cap,
		         ((struct tl_launch_block){dev, (uint32_t)i, (uint32_t)p->nwide}));
	struct tl_launch_word o = {(uint32_t)(dev - p->blk[p->nblk - 1].dev0), 0};
	int64_t d = host - dev; /* model times: no overflow */
	if (d > INT32_MIN && d <= INT32_MAX) {
		o.host = (int32_t)d;
	} else {
		o.host = INT32_MIN;
		VEC_PUSH(p->wide, p->nwide, *wcap, ((struct tl_launch_wide){i, host}));
	}
	memcpy(&p->w[i], &o, sizeof o);
}

/* The pack of v[0 .. n) into p, its words into w (n of them): w may be v's own memory, each
 * word written over launches already read (8 i + 8 <= 16 i past the first, which is read
 * before it is written). */
static void
pack_into(tl_launch_pack *p, const tl_launch *v, size_t n, struct tl_launch_word *w)
{
	size_t cap = 0, wcap = 0;
	memset(p, 0, sizeof *p);
	p->n = n;
	p->w = w;
	for (size_t i = 0; i < n; i++) {
		tl_launch x;
		memcpy(&x, &v[i], sizeof x);
		pack_one(p, i, x.dev_start, x.host_start, &cap, &wcap);
	}
}

void
launch_pack(tl_launch_pack *p, const tl_launch *v, size_t n)
{
	pack_into(p, v, n, xreallocarray(NULL, n ? n : 1, sizeof *p->w));
}

void
launch_pack_take(tl_launch_pack *p, tl_launch *v, size_t n)
{
	if (v == NULL || n == 0) {
		free(v);
		launch_pack(p, NULL, 0);
		return;
	}
	_Static_assert(sizeof(struct tl_launch_word) * 2 == sizeof(tl_launch), "a word in place");
	pack_into(p, v, n, (struct tl_launch_word *)(void *)v);
	p->w = xreallocarray(v, n, sizeof *p->w); /* the second half given back */
}

/* ---- the 12-byte records (load_launch_recs) ---- */

static int64_t
rec_dev(const tl_launch_rec *x)
{
	return launch_rec_host(x) + x->delay;
}

/* cmp_dev's order */
static int
cmp_rec(const tl_launch_rec *x, const tl_launch_rec *y)
{
	int64_t a = rec_dev(x), b = rec_dev(y);
	if (a != b)
		return a < b ? -1 : 1;
	int64_t h = launch_rec_host(x), k = launch_rec_host(y);
	return (h > k) - (h < k);
}

static void
rec_sift(tl_launch_rec *v, size_t i, size_t n)
{
	tl_launch_rec x = v[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && cmp_rec(&v[c], &v[c + 1]) < 0)
			c++;
		if (cmp_rec(&x, &v[c]) >= 0)
			break;
		v[i] = v[c];
		i = c;
	}
	v[i] = x;
}

/* By cmp_rec, in place: launch_sort_dev's check for an order already there, else a heap sort
 * (qsort's merge sort would take n records of scratch, the 12 bytes a launch again). Records
 * equal by cmp_rec are equal in every field, so the sort's instability shows nowhere. */
static void
sort_recs(tl_launch_rec *v, size_t n)
{
	size_t i = 1;
	while (i < n && cmp_rec(&v[i - 1], &v[i]) <= 0)
		i++;
	if (i >= n)
		return;
	for (size_t k = n / 2; k-- > 0;)
		rec_sift(v, k, n);
	for (size_t e = n; e-- > 1;) {
		tl_launch_rec t = v[0];
		v[0] = v[e];
		v[e] = t;
		rec_sift(v, 0, e);
	}
}

void
launch_pack_take_recs(tl_launch_pack *p, tl_launch_rec *v, size_t n)
{
	if (v == NULL || n == 0) {
		free(v);
		launch_pack(p, NULL, 0);
		return;
	}
	sort_recs(v, n);
	size_t cap = 0, wcap = 0;
	memset(p, 0, sizeof *p);
	p->n = n;
	p->w = (struct tl_launch_word *)(void *)v;
	_Static_assert(sizeof(struct tl_launch_word) <= sizeof(tl_launch_rec), "a word in place");
	for (size_t i = 0; i < n; i++) { /* word i at 8 i, record j > i at 12 j: not yet over it */
		tl_launch_rec x;
		memcpy(&x, (const char *)v + i * sizeof x, sizeof x);
		int64_t h = launch_rec_host(&x);
		pack_one(p, i, h + x.delay, h, &cap, &wcap);
	}
	p->w = xreallocarray(v, n, sizeof *p->w); /* the last third given back */
}

static int64_t
pack_dev(const tl_launch_pack *p, size_t b, size_t i)
{
	return p->blk[b].dev0 + (int64_t)p->w[i].dev;
}

static int64_t
pack_host(const tl_launch_pack *p, size_t b, size_t i)
{
	if (p->w[i].host != INT32_MIN)
		return pack_dev(p, b, i) + p->w[i].host;
	/* among its block's wide ones: a search over 256 at most, not the whole table; at
	 * once where all before it in the block are wide (the usual case: a delay past 2^31 ns
	 * lasts a while) */
	size_t lo = p->blk[b].wide, hi = b + 1 < p->nblk ? p->blk[b + 1].wide : p->nwide;
	size_t guess = lo + (i - p->blk[b].first);
	if (guess < hi && p->wide[guess].i == i)
		return p->wide[guess].host_start;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->wide[mid].i < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return p->wide[lo].host_start;
}

/* The first launch whose device start is at or after t: its block *b and index *i (*i == n:
 * none follows, *b the last block). p has a launch. */
static void
pack_find(const tl_launch_pack *p, int64_t t, size_t *b, size_t *i)
{
	size_t lo = 0, hi = p->nblk; /* the first block starting at or after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->blk[mid].dev0 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) { /* every launch at or after t */
		*b = *i = 0;
		return;
	}
	/* the answer is in the block before, or the first of the next */
	size_t k = lo - 1, j = p->blk[k].first, end = lo < p->nblk ? p->blk[lo].first : p->n;
	for (size_t h = end; j < h;) {
		size_t mid = j + (h - j) / 2;
		if (pack_dev(p, k, mid) < t)
			j = mid + 1;
		else
			h = mid;
	}
	*b = j < end || lo == p->nblk ? k : lo;
	*i = j;
}

int64_t
launch_pack_next(const tl_launch_pack *p, int64_t t)
{
	uint64_t at = 0;
	return launch_pack_next_at(p, t, &at);
}

/* The cursor's few steps to the answer: a walk's gaps on one rank come back in time, mostly
 * a few launches apart, where a search over the blocks and within one misses the cache. */
int64_t
launch_pack_next_at(const tl_launch_pack *p, int64_t t, uint64_t *at)
{
	size_t b, i;
	if (p->n == 0)
		return INT64_MIN;
	int found = 0;
	if (*at != 0 && p->n <= UINT32_MAX) {
		b = (size_t)(*at >> 32) - 1;
		i = (size_t)(uint32_t)*at;
		for (int k = 0; k < 16 && !found; k++) {
			if (i < p->n && pack_dev(p, b, i) < t) { /* forward */
				i++;
				b += b + 1 < p->nblk && i == p->blk[b + 1].first;
			} else if (i > 0 &&
			           pack_dev(p, i == p->blk[b].first ? b - 1 : b, i - 1) >= t) {
				b -= i == p->blk[b].first; /* back */
				i--;
			} else {
				found = 1;
			}
		}
	}
	if (!found)
		pack_find(p, t, &b, &i);
	*at = p->n <= UINT32_MAX ? (uint64_t)(b + 1) << 32 | (uint32_t)i : 0;
	return i < p->n ? pack_host(p, b, i) : INT64_MIN;
}

void
launch_pack_free(tl_launch_pack *p)
{
	free(p->blk);
	free(p->w);
	free(p->wide);
	memset(p, 0, sizeof *p);
}
