/* Rollout load balance as dp_analysis measures it: each rank's decode steps, paired with the
 * stats its step_process marks carry, cut into rollouts (the stages of tlq_imbalances). */
#include "config.h"
#include "query/session.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* dp_analysis' instrumentation: range_start("step", stream, domain="step_process") around
 * EngineCore.step and, inside it, a mark in the same domain whose message is the step's JSON */
#define DP_DOMAIN "step_process"

struct tl_dp_cache {
	tl_dp_step **all; /* per rank: every decode step, with its mark's stats */
	size_t *nall, nranks;
	tl_dp *v; /* DP's entries */
	size_t n;
	tl_dp_step **win; /* the windows' own steps (the rows borrow them, or all's) */
	size_t nwin, wcap;
	tl_imbalance whole; /* DP_WHOLE's entry (whole.n == 0: there is none) */
};

/* DP_STEPS, DP and DP_WHOLE keep their tables in the one cache (freed with DP_STEPS's). */
static void
dp_part_free(struct tlq_state *st)
{
	struct tl_dp_cache *c = st->dp;
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].ranks);
	for (size_t i = 0; i < c->nwin; i++)
		free(c->win[i]);
	for (size_t i = 0; c->all && i < c->nranks; i++)
		free(c->all[i]);
	free(c->all);
	free(c->nall);
	free(c->v);
	free(c->win);
	free(c->whole.ranks);
	free(c);
}

static int
cmp_slice_start(const void *a, const void *b)
{
	const tl_item *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* The first step of v[0..n) (by start) that starts at s and ends at e, or SIZE_MAX. */
static size_t
step_find(const tl_dp_step *v, size_t n, int64_t s, int64_t e)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].start < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && v[lo].start == s; lo++)
		if (v[lo].end == e)
			return lo;
	return SIZE_MAX;
}

/* All decode steps of rank ri, by start, with the stats of their marks. */
static size_t
rank_steps(const tl_query *q, size_t ri, tl_dp_step **out)
{
	const tl_rank *r = q->tr->ranks[ri];
	tl_span *sp;
	size_t n = stages_decode_spans(q->rules, r, 1, 0, &sp);
	tl_dp_step *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i].start = sp[i].start;
		v[i].end = sp[i].end;
	}
	free(sp);
	/* the step_process ranges and marks, each in time order */
	tl_item *rg = NULL, *mk = NULL; /* copies: their times and names */
	size_t nrg = 0, rcap = 0, nmk = 0, mcap = 0;
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		if (t->kind != TL_LANE_MSTX ||
		    strcmp(strpool_get(r->pool, t->label), DP_DOMAIN) != 0)
			continue;
		for (size_t k = 0; k < t->n; k++) {
			tl_item s = {t->v[k].start, track_end(t, k), t->v[k].name, track_arg(t, k)};
			if (s.end > s.start)
				VEC_PUSH(rg, nrg, rcap, s);
			else
				VEC_PUSH(mk, nmk, mcap, s);
		}
	}
	if (nrg > 1)
		qsort(rg, nrg, sizeof *rg, cmp_slice_start);
	if (nmk > 1)
		qsort(mk, nmk, sizeof *mk, cmp_slice_start);
	if (nrg != nmk && nrg + nmk > 0) {
		msg_warn(NULL,
		         "rank %d: %zu %s step ranges but %zu marks: the steps count, without "
		         "their stats",
		         r->rank, nrg, DP_DOMAIN, nmk);
	} else {
		size_t bad = 0;
		for (size_t i = 0; i < nrg; i++) {
			size_t k = step_find(v, n, rg[i].start, rg[i].end);
			if (k == SIZE_MAX)
				continue; /* a rule that does not count it: not a step */
			if (!dp_mark_parse(strpool_get(r->pool, mk[i].name),
			                   strpool_len(r->pool, mk[i].name), &v[k]))
				bad++;
		}
		if (bad > 0)
			msg_warn(NULL,
			         "rank %d: %zu of %zu %s marks are not JSON with running_reqs, "
			         "waiting_reqs, gpu_cache_usage and out_tokens: those steps count, "
			         "without their stats",
			         r->rank, bad, nmk, DP_DOMAIN);
	}
	free(rg);
	free(mk);
	*out = v;
	return n;
}

/* The steps of all[0..n) wholly inside [t0, t1] (host) appended to *w. */
static void
window_add(const tl_dp_step *all, size_t n, int64_t t0, int64_t t1, tl_dp_step **w, size_t *nw,
           size_t *cap)
{
	for (size_t k = 0; k < n; k++)
		if (all[k].start >= t0 && all[k].end <= t1)
			VEC_PUSH(*w, *nw, *cap, all[k]);
}

static void
cache_window(struct tl_dp_cache *c, tl_dp_rank *x, tl_dp_step *w, size_t nw)
{
	x->steps = w;
	x->nsteps = nw;
	if (w != NULL)
		VEC_PUSH(c->win, c->nwin, c->wcap, w);
}

/* DP_STEPS: every rank's decode steps. */
static void
dp_steps_part_compute(const tl_query *q)
{
	struct tl_dp_cache *c = xcalloc(1, sizeof *c);
	size_t nr = q->tr->nranks;
	c->nranks = nr;
	c->all = xcalloc(nr ? nr : 1, sizeof *c->all);
	c->nall = xcalloc(nr ? nr : 1, sizeof *c->nall);
	for (size_t i = 0; i < nr; i++)
		c->nall[i] = rank_steps(q, i, &c->all[i]);
	q->st->dp = c;
}

TLQ_PART_DEFINE(DP_STEPS, dp_steps, dp_steps_part_compute, dp_part_free);

void
tlq_dp_prepare(const tl_query *q)
{
	tlq_need(q, &tlq_part_dp_steps);
}

/* DP: the rollout entries, one per imbalance entry (stage, step) with decode steps in it, from
 * the session's stage rows. */
static void
dp_part_compute(const tl_query *q)
{
	struct tlq_state *st = q->st;
	tlq_need_locked(q, &tlq_part_stages);
	tlq_need_locked(q, &tlq_part_imbalance);
	tlq_need_locked(q, &tlq_part_dp_steps);
	const tl_stage_row *rows = st->rows;
	size_t nrows = st->nrows;
	const tl_imbalance *im = st->imb;
	size_t nim = st->nimb;
	struct tl_dp_cache *c = st->dp;
	size_t nr = c->nranks, cap = 0;
	tl_dp_step **all = c->all;
	const size_t *nall = c->nall;
	for (size_t e = 0; e < nim; e++) {
		tl_dp d = {.stage = im[e].stage, .step = im[e].step, .n = im[e].n};
		d.ranks = xcalloc(d.n, sizeof *d.ranks);
		size_t total = 0;
		for (size_t j = 0; j < d.n; j++) {
			size_t ri = im[e].ranks[j].rank;
			tl_dp_step *w = NULL;
			size_t nw = 0, wcap = 0;
			for (size_t k = 0; k < nrows;
			     k++) /* its instances of the stage in the step */
				if (rows[k].rank == ri && rows[k].stage == d.stage &&
				    rows[k].step == d.step)
					window_add(all[ri], nall[ri], rows[k].host_start,
					           rows[k].host_end, &w, &nw, &wcap);
			d.ranks[j].rank = ri;
			cache_window(c, &d.ranks[j], w, nw);
			total += nw;
		}
		if (total == 0) {
			free(d.ranks);
			continue;
		}
		dp_compute(d.ranks, d.n);
		VEC_PUSH(c->v, c->n, cap, d);
	}
	if (nrows == 0) { /* no stage: the whole capture, as dp_analysis takes it */
		tl_dp d = {.stage = TL_STAGE_NONE, .step = -1};
		d.ranks = xcalloc(nr ? nr : 1, sizeof *d.ranks);
		for (size_t i = 0; i < nr; i++) {
			if (nall[i] == 0)
				continue;
			d.ranks[d.n].rank = i;
			d.ranks[d.n].steps = all[i]; /* borrowed from the cache */
			d.ranks[d.n++].nsteps = nall[i];
		}
		if (d.n > 0) {
			dp_compute(d.ranks, d.n);
			VEC_PUSH(c->v, c->n, cap, d);
		} else {
			free(d.ranks);
		}
	}
}

TLQ_PART_DEFINE(DP, dp, dp_part_compute, NULL);

static const tl_dp *
entry_of(const struct tl_dp_cache *c, int stage, int64_t step)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].stage == stage && c->v[i].step == step)
			return &c->v[i];
	return NULL;
}

size_t
tlq_dp(const tl_query *q, const tl_dp **out)
{
	tlq_need(q, &tlq_part_dp);
	*out = q->st->dp->v;
	return q->st->dp->n;
}

const tl_dp *
tlq_dp_of(const tl_query *q, int stage, int64_t step)
{
	tlq_need(q, &tlq_part_dp);
	return entry_of(q->st->dp, stage, step);
}

/* DP_WHOLE: the whole capture's entry as an imbalance (whole.n 0: there is none). */
static void
dp_whole_part_compute(const tl_query *q)
{
	tlq_need_locked(q, &tlq_part_dp);
	struct tl_dp_cache *c = q->st->dp;
	const tl_dp *d = entry_of(c, TL_STAGE_NONE, -1);
	if (d != NULL && d->n > 0) {
		tl_imb_rank *v = xcalloc(d->n, sizeof *v);
		for (size_t i = 0; i < d->n; i++) {
			const tl_dp_rank *x = &d->ranks[i];
			v[i].rank = x->rank;
			v[i].decode_steps = (int)x->nsteps;
			v[i].start = x->steps[0].start;
			v[i].end = x->steps[x->nsteps - 1].end;
			v[i].duration = v[i].end - v[i].start;
		}
		c->whole =
		    (tl_imbalance){.stage = TL_STAGE_NONE, .step = -1, .ranks = v, .n = d->n};
		imbalance_compute(v, d->n, &c->whole.st);
	}
}

TLQ_PART_DEFINE(DP_WHOLE, dp_whole, dp_whole_part_compute, NULL);

const tl_imbalance *
tlq_dp_whole(const tl_query *q)
{
	tlq_need(q, &tlq_part_dp_whole);
	const struct tl_dp_cache *c = q->st->dp;
	return c->whole.n > 0 ? &c->whole : NULL;
}

const char *
tlq_dp_metric_name(int metric)
{
	return dp_metric_name(metric);
}

double
tlq_dp_step_value(const tl_dp_step *s, int metric)
{
	return dp_step_value(s, metric);
}

double
tlq_dp_metric_max(const tl_dp_rank *v, size_t n, int metric)
{
	return dp_metric_max(v, n, metric);
}

void
tlq_dp_end_steps(const tl_dp_rank *v, size_t n, int *earliest, int *latest)
{
	dp_end_steps(v, n, earliest, latest);
}
