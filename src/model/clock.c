/* Moving a rank's times onto the reference clock (model/clock.h). */
#include "config.h"
#include "model/clock.h"

#include "model/lod.h"
#include "util/xalloc.h"

#include <math.h>
#include <string.h>

static int64_t
clamp_time(int64_t t)
{
	return t < TL_TIME_MIN ? TL_TIME_MIN : t > TL_TIME_MAX ? TL_TIME_MAX : t;
}

/* llround's rounding (half away from zero) for |x| < 2^63, without the call: a - k is exact */
static inline int64_t
round_i64(double x)
{
	double a = x < 0 ? -x : x;
	int64_t k = (int64_t)a;
	k += a - (double)k >= 0.5;
	return x < 0 ? -k : k;
}

/* round(drift * (t - t0)): small (50 ppm of a day is 4.3 s), so a double holds it to the ns */
static int64_t
drift_term(const tl_clock *c, int64_t t)
{
	if (c->drift == 0)
		return 0;
	return round_i64(c->drift * (double)(t - c->t0));
}

/* clock_map of an applied correction (c->on) */
static inline int64_t
map1(const tl_clock *c, int64_t t)
{
	return clamp_time(t - c->off - drift_term(c, t));
}

int64_t
clock_map(const tl_clock *c, int64_t t)
{
	if (c == NULL || !c->on)
		return t;
	return map1(c, t);
}

int64_t
clock_unmap(const tl_clock *c, int64_t t)
{
	if (c == NULL || !c->on)
		return t;
	/* u = t + off + drift (u - t0): u = (t + off + drift (... )) solved by two fixed-point
	 * steps (the drift term moves by drift x its argument's error, far below a ns) and then
	 * the exact one whose map is t */
	int64_t u = t + c->off;
	for (int i = 0; i < 3; i++)
		u = t + c->off + drift_term(c, u);
	for (int i = 0; i < 4 && clock_map(c, u) < t; i++)
		u++;
	for (int i = 0; i < 4 && clock_map(c, u) > t; i++)
		u--;
	return clamp_time(u);
}

/* in_place: t's borrowed arrays are writable memory of the rank's own (a private mapping made
 * writable): moved where they lie, not copied first */
static void
map_track(const tl_clock *c, tl_track *t, size_t from, int in_place)
{
	if (from >= t->n)
		return;
	if (!in_place)
		track_own(t);
	if (c->drift != 0) { /* durations change: a level of detail made of them no longer holds */
		lod_free(t->lod);
		lod_free(t->lod_file);
		t->lod = t->lod_file = NULL;
	}
	if (!c->on)
		return;
	/* through the setter (the slice's layout is the model's); in place, the borrowed arrays
	 * are written where they lie: the setter must not copy them first */
	int borrowed = t->borrowed;
	/* a slice the correction makes 2^31 ns long or longer needs a new entry in the track's
	 * table of long ends, which a mapping cannot grow: the track then owns its arrays */
	for (size_t i = from; in_place && borrowed && i < t->n; i++)
		if (!(t->v[i].dur & TL_DUR_LONG) &&
		    (uint64_t)(map1(c, track_end(t, i)) - map1(c, t->v[i].start)) >= TL_DUR_LONG) {
			track_own(t);
			borrowed = 0;
		}
	if (in_place)
		t->borrowed = 0;
	for (size_t i = from; i < t->n; i++)
		track_set_times(t, i, map1(c, t->v[i].start), map1(c, track_end(t, i)));
	t->borrowed = borrowed;
	for (size_t i = from; t->dev != NULL && i < t->n; i++) {
		if (t->dev[i].end >= t->dev[i].start) {
			t->dev[i].start = map1(c, t->dev[i].start);
			t->dev[i].end = map1(c, t->dev[i].end);
		}
	}
}

void
clock_map_track_from(const tl_clock *c, tl_track *t, size_t from)
{
	map_track(c, t, from, 0);
}

void
clock_map_counter(const tl_clock *c, tl_counter *k)
{
	for (size_t i = 0; i < k->n; i++)
		k->t[i] = clock_map(c, k->t[i]);
}

static void
map_comm(const tl_clock *c, tl_comm_data *d, int in_place)
{
	if (d->borrowed && d->ntasks > 0 && !in_place) {
		tl_comm_task *v = xreallocarray(NULL, d->ntasks, sizeof *v);
		memcpy(v, d->tasks, d->ntasks * sizeof *v);
		d->tasks = v;
		d->taskcap = d->ntasks;
		d->borrowed = 0;
	}
	for (size_t i = 0; i < d->nops; i++) {
		d->ops[i].start = clock_map(c, d->ops[i].start);
		d->ops[i].end = clock_map(c, d->ops[i].end);
	}
	for (size_t i = 0; i < d->ntasks; i++) {
		d->tasks[i].start = clock_map(c, d->tasks[i].start);
		d->tasks[i].end = clock_map(c, d->tasks[i].end);
	}
}

void
clock_map_comm(const tl_clock *c, tl_comm_data *d)
{
	map_comm(c, d, 0);
}

static void
map_ops(const tl_clock *c, tl_op_data *d, int in_place)
{
	if (!in_place)
		op_data_own(d);
	if (!c->on)
		return;
	for (size_t i = 0; i < d->n; i++) {
		tl_op_group *g = &d->g[i];
		/* a load that kept no starts was of one host: a clock without drift, which moves
		 * no duration (load_setup) */
		if (g->start == NULL)
			continue;
		if (c->drift == 0) { /* durations stay */
			for (size_t k = 0; k < g->n; k++)
				g->start[k] = map1(c, g->start[k]);
			continue;
		}
		g->sum = -1; /* the durations move */
		for (size_t k = 0; k < g->n; k++) {
			int64_t s = map1(c, g->start[k]);
			g->dur[k] = map1(c, g->start[k] + g->dur[k]) - s;
			g->start[k] = s;
		}
	}
}

void
clock_map_ops(const tl_clock *c, tl_op_data *d)
{
	map_ops(c, d, 0);
}

void
clock_map_modules(const tl_clock *c, tl_module_data *d)
{
	for (size_t i = 0; i < d->nranges; i++) {
		d->ranges[i].start = clock_map(c, d->ranges[i].start);
		d->ranges[i].end = clock_map(c, d->ranges[i].end);
	}
	for (size_t i = 0; i < d->nops; i++) {
		d->ops[i].start = clock_map(c, d->ops[i].start);
		d->ops[i].end = clock_map(c, d->ops[i].end);
	}
	for (size_t i = 0; i < d->nk; i++) {
		d->k[i].start = clock_map(c, d->k[i].start);
		d->k[i].end = clock_map(c, d->k[i].end);
	}
	for (size_t i = 0; i < d->nlinks; i++) {
		tl_mod_link *l = &d->links[i];
		l->fwd_start = clock_map(c, l->fwd_start);
		l->fwd_end = clock_map(c, l->fwd_end);
		l->bwd_start = clock_map(c, l->bwd_start);
		l->bwd_end = clock_map(c, l->bwd_end);
	}
}

void
clock_map_launches(const tl_clock *c, tl_launch *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		v[i].host_start = clock_map(c, v[i].host_start);
		v[i].dev_start = clock_map(c, v[i].dev_start);
	}
}

void
rank_clock_apply(tl_rank *r, const tl_clock *c, int in_place)
{
	if (c == NULL || !c->on || r->clock.on)
		return;
	r->clock = *c;
	for (size_t i = 0; i < r->ntracks; i++)
		map_track(c, r->tracks[i], 0, in_place);
	for (size_t i = 0; i < r->nsteps; i++) {
		r->steps[i].start = clock_map(c, r->steps[i].start);
		r->steps[i].end = clock_map(c, r->steps[i].end);
	}
	for (size_t i = 0; i < r->nfwdbwd; i++) {
		tl_fwdbwd *f = &r->fwdbwd[i];
		f->fwd_start = clock_map(c, f->fwd_start);
		f->fwd_end = clock_map(c, f->fwd_end);
		f->bwd_start = clock_map(c, f->bwd_start);
		f->bwd_end = clock_map(c, f->bwd_end);
	}
	for (size_t i = 0; i < r->ncounters; i++)
		clock_map_counter(c, r->counters[i]);
	if (r->comm != NULL)
		map_comm(c, r->comm, in_place);
	if (r->ops != NULL)
		map_ops(c, r->ops, in_place);
	for (size_t i = 0; i < r->nlaunch_gaps; i++) { /* the gaps host_bound puts in stages */
		tl_launch_gap *g = &r->launch_gaps[i];
		if (g->host <= 0)
			continue; /* a step's mark */
		g->start = clock_map(c, g->start);
		g->end = clock_map(c, g->end);
		if (g->host > g->end - g->start)
			g->host = g->end - g->start;
	}
	for (size_t i = 0; r->src_t0 != NULL && i < r->nsources; i++) {
		if (r->src_t0[i] <= r->src_t1[i]) {
			r->src_t0[i] = clock_map(c, r->src_t0[i]);
			r->src_t1[i] = clock_map(c, r->src_t1[i]);
		}
	}
	if (r->t_min <= r->t_max) {
		r->t_min = clock_map(c, r->t_min);
		r->t_max = clock_map(c, r->t_max);
	}
}
