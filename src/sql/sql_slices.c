/* The slices table: every slice of every lane the loaders made, straight from the model's
 * tracks (nothing is copied: a query over 100 M slices walks them in place). The derived lanes
 * (the overlap lanes, the stage lane) are left out: a warm open has them and a cold one not, and
 * their numbers are the steps and stages tables'. Pushed down: the rank, the kind, a step, and a
 * window of time (each track's slices are sorted by start and do not overlap, so their ends are
 * sorted too and both bounds are binary searches). */
#include "config.h"
#include "query/host.h"
#include "query/memory.h"
#include "sql/sql_int.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void slice_kind(sql_cur *, sqlite3_context *);
static void slice_step(sql_cur *, sqlite3_context *);
static void slice_stage(sql_cur *, sqlite3_context *);
static void slice_end_ns(sql_cur *, sqlite3_context *);
static void slice_dur_ns(sql_cur *, sqlite3_context *);

/* row[0]: the slice, row[1]: its track, pool: the rank's, idx: the slice's index. The end and
 * the duration are the track's to read (trace.h's accessors), not a field of the slice. */
#define SL(how, f) how(0, tl_slice, f)
#define TR(how, f) how(1, tl_track, f)
const sql_col sql_slice_cols[SQL_SLICE_NCOLS] = {
    {"rank", "INTEGER", "the rank number", .get = SQL_RANK},
    {"lane", "TEXT", "the lane's label: \"Stream 3\", a group name, an MSTX domain, a thread",
     TR(SQL_POOL_OF, label)},
    {"kind", "TEXT",
     "compute, comm (communication ops), comm.task (their sub-tasks), memcpy, mstx, "
     "mstx.device, step, other, host",
     .fn = slice_kind},
    {"name", "TEXT", "the slice's name", SL(SQL_POOL_OF, name)},
    {"start_ns", "INTEGER", "start, ns on the profile's clock", SL(SQL_I64_OF, start)},
    {"end_ns", "INTEGER", "end, ns", .fn = slice_end_ns},
    {"dur_ns", "INTEGER", "end_ns - start_ns", .fn = slice_dur_ns},
    {"depth", "INTEGER", "nesting level of the lane, 0 outermost", TR(SQL_U16_OF, depth)},
    {"step", "INTEGER",
     "the step (ProfilerStep id) the loader gave the slice by its launch, else the step whose "
     "range holds its start; NULL for none",
     .fn = slice_step},
    {"stage", "TEXT",
     "the RL stage whose host range holds the slice's start (the innermost), NULL for none",
     .fn = slice_stage},
};

/* A rank's stages over time: from t on (to the next entry's t), the stage tlq_stage_at names. */
typedef struct sql_stage_seg {
	int64_t t;
	const char *stage;
} sql_stage_seg;

void
sql_slices_prepare(sql_ctx *x)
{
	if (x->have_seg == NULL) {
		size_t n = tlq_trace(x->q)->nranks;
		x->have_seg = xcalloc(n + 1, 1);
		x->seg = xcalloc(n + 1, sizeof *x->seg);
		x->nseg = xcalloc(n + 1, sizeof *x->nseg);
	}
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The stage at every time where the set of stages holding it changes: the host starts and the
 * instants after the host ends (tlq_stage_at's ranges are closed). Between two of them the
 * answer cannot change, so one tlq_stage_at per boundary answers every slice exactly. */
static void
stage_segments(sql_ctx *x, size_t ri)
{
	const tl_stage_row *rows;
	size_t n = tlq_stages(x->q, &rows), nb = 0;
	int64_t *b = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].rank != ri)
			continue;
		VEC_PUSH(b, nb, cap, rows[i].host_start);
		VEC_PUSH(b, nb, cap,
		         rows[i].host_end < INT64_MAX ? rows[i].host_end + 1 : INT64_MAX);
	}
	if (nb > 1)
		qsort(b, nb, sizeof *b, cmp_i64);
	sql_stage_seg *seg = xcalloc(nb ? nb : 1, sizeof *seg);
	size_t ns = 0;
	for (size_t i = 0; i < nb; i++) {
		if (ns > 0 && seg[ns - 1].t == b[i])
			continue;
		seg[ns].t = b[i];
		seg[ns].stage = tlq_stage_at(x->q, ri, b[i]);
		ns++;
	}
	free(b);
	x->seg[ri] = seg;
	x->nseg[ri] = ns;
	x->have_seg[ri] = 1;
}

static const char *
stage_of(sql_ctx *x, size_t ri, int64_t t)
{
	if (!x->have_seg[ri])
		stage_segments(x, ri);
	const sql_stage_seg *s = x->seg[ri];
	size_t lo = 0, hi = x->nseg[ri]; /* the last entry at or before t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? NULL : s[lo - 1].stage;
}

void
sql_slices_free(sql_ctx *x)
{
	if (x->seg != NULL) {
		size_t n = tlq_trace(x->q)->nranks;
		for (size_t i = 0; i < n; i++)
			free(x->seg[i]);
	}
	free(x->seg);
	free(x->nseg);
	free(x->have_seg);
}

static int
track_listed(const tl_track *t)
{
	return t->kind != TL_LANE_OVERLAP && t->kind != TL_LANE_STAGE;
}

void
sql_step_window(sql_cur *c)
{
	if (c->step_ri == c->ri)
		return;
	c->step_ri = c->ri;
	c->step_found = 0;
	const tl_rank *r = tlq_trace(c->x->q)->ranks[c->ri];
	for (size_t j = 0; j < r->nsteps; j++) { /* ids may repeat: every range of the id */
		if (r->steps[j].id != c->step_id)
			continue;
		if (!c->step_found || r->steps[j].start < c->step_t0)
			c->step_t0 = r->steps[j].start;
		if (!c->step_found || r->steps[j].end > c->step_t1)
			c->step_t1 = r->steps[j].end;
		c->step_found = 1;
	}
}

/* Narrows [*lo, *hi) of track t to the slices whose step may be the one asked for (the step
 * column's rule): on a lane whose loader tagged each slice with its launch's step, from the first
 * to the last slice so tagged (the tags are read, a launch may run in a later step); on the
 * others the slices starting inside the step's host ranges. */
static void
step_window(sql_cur *c, const tl_track *t, size_t *lo, size_t *hi)
{
	const tl_rank *r = tlq_trace(c->x->q)->ranks[c->ri];
	sql_step_window(c);
	if (!c->step_found) {
		*hi = *lo;
		return;
	}
	if (track_has_steps(t)) {
		size_t a = *lo, b = *hi;
#define TAGGED(k) (track_step(t, k) < r->nsteps && r->steps[track_step(t, k)].id == c->step_id)
		while (a < b && !TAGGED(a)) /* a run at a time */
			a = track_step_run_end(t, a);
		while (b > a && !TAGGED(b - 1))
			b = track_step_run_start(t, b - 1);
#undef TAGGED
		if (a > b)
			a = b;
		*lo = a;
		*hi = b;
		return;
	}
	size_t a = track_first_starting_at(t, c->step_t0);
	size_t b = c->step_t1 < INT64_MAX ? track_first_starting_at(t, c->step_t1 + 1) : t->n;
	if (a > *lo)
		*lo = a;
	if (b < *hi)
		*hi = b;
}

/* Sets the window of track c->ti of rank c->ri; returns 0 when it is empty. */
static int
track_window(sql_cur *c)
{
	const tl_track *t = tlq_trace(c->x->q)->ranks[c->ri]->tracks[c->ti];
	c->track = t;
	if (!track_listed(t) || t->n == 0 || (c->kind >= 0 && (int)t->kind != c->kind))
		return 0;
	size_t lo = 0, hi = t->n;
	if (c->end_lo != INT64_MIN) /* ends are sorted: the first that ends at or after end_lo */
		lo = track_first_ending_after(t, c->end_lo - 1);
	if (c->start_lo != INT64_MIN) {
		size_t a = track_first_starting_at(t, c->start_lo);
		if (a > lo)
			lo = a;
	}
	if (c->start_hi != INT64_MAX)
		hi = track_first_starting_at(t, c->start_hi + 1);
	if (c->has_step && lo < hi)
		step_window(c, t, &lo, &hi);
	c->lo = lo;
	c->hi = hi;
	return lo < hi;
}

/* From the cursor's track (c->ti, window not yet set) on: the first track with a slice. */
static void
settle(sql_cur *c)
{
	const tl_trace *tr = tlq_trace(c->x->q);
	while (c->ri < c->ri_end) {
		/* a rank without the step asked for has none of its slices */
		if (c->has_step && c->ti == 0) {
			sql_step_window(c);
			if (!c->step_found) {
				c->ri++;
				continue;
			}
		}
		/* the host lanes of DB profiles are read on demand: a rank's when a scan that may
		 * want them (not `kind = 'compute'`) comes to it */
		if (c->ti == 0 && (c->kind < 0 || c->kind == TL_LANE_HOST))
			tlq_host_lanes_rank(c->x->q, c->ri);
		const tl_rank *r = tr->ranks[c->ri];
		while (c->ti < r->ntracks) {
			if (track_window(c))
				return;
			c->ti++;
		}
		c->ri++;
		c->ti = 0;
	}
	c->eof = 1;
}

void
sql_slices_first(sql_cur *c)
{
	c->ti = 0;
	settle(c);
}

void
sql_slices_next(sql_cur *c)
{
	if (++c->lo < c->hi)
		return;
	/* another cursor's scan may have read the host lanes since, which puts the rank's tracks
	 * in a new order: this one goes on after its track, wherever that is now */
	const tl_rank *r = tlq_trace(c->x->q)->ranks[c->ri];
	if (c->ti >= r->ntracks || r->tracks[c->ti] != c->track)
		for (size_t i = 0; i < r->ntracks; i++)
			if (r->tracks[i] == c->track)
				c->ti = i;
	c->ti++;
	settle(c);
}

int
sql_slices_locate(sql_cur *c)
{
	const tl_rank *r = tlq_trace(c->x->q)->ranks[c->ri];
	const tl_track *t = r->tracks[c->ti];
	c->row[0] = &t->v[c->lo];
	c->row[1] = t;
	c->pool = r->pool;
	c->idx = c->lo;
	return 1;
}

static void
slice_kind(sql_cur *c, sqlite3_context *ctx)
{
	sqlite3_result_text(ctx, lane_kind_name(((const tl_track *)c->row[1])->kind), -1,
	                    SQLITE_STATIC);
}

static void
slice_end_ns(sql_cur *c, sqlite3_context *ctx)
{
	sqlite3_result_int64(ctx, track_end(c->row[1], c->idx));
}

static void
slice_dur_ns(sql_cur *c, sqlite3_context *ctx)
{
	sqlite3_result_int64(ctx, track_dur(c->row[1], c->idx));
}

static void
slice_step(sql_cur *c, sqlite3_context *ctx)
{
	const tl_rank *r = tlq_trace(c->x->q)->ranks[c->ri];
	const tl_track *t = c->row[1];
	int64_t id;
	if (track_has_steps(t)) {
		uint16_t st = track_step(t, c->idx);
		if (st != TL_NO_STEP && st < r->nsteps)
			sqlite3_result_int64(ctx, r->steps[st].id);
	} else if (tlq_step_at(r, ((const tl_slice *)c->row[0])->start, &id) == 0) {
		sqlite3_result_int64(ctx, id);
	}
}

static void
slice_stage(sql_cur *c, sqlite3_context *ctx)
{
	const char *st = stage_of(c->x, c->ri, ((const tl_slice *)c->row[0])->start);
	if (st != NULL)
		sqlite3_result_text(ctx, st, -1, SQLITE_STATIC);
}
