/* The RL triage queries: one context per trace computes each analysis on first use and keeps
 * it, so a panel redraw or a second report costs nothing. */
#include "config.h"
#include "analysis/lanes.h"
#include "load/load.h"
#include "query/query_int.h"
#include "util/xalloc.h"

#include <cJSON.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tl_rl {
	const tl_trace *tr;
	tl_rl_opts o;
	tl_stage_rules *rules;
	/* stage instances per rank (stages_of_rank), the stage table built from them */
	int have_inst;
	tl_stage_inst **inst;
	size_t *ninst;
	int have_stages;
	tl_stage_row *rows;
	size_t nrows;
	int have_imb;
	tl_imbalance *imb;
	size_t nimb;
	int have_pp;
	tl_pipeline pp;
	int have_slow;
	tl_slow_result slow;
	int have_bubbles;
	tl_rl_bubble *bubbles;
	size_t nbubbles;
	/* the viewer's list of the longest bubbles over all ranks, attributed on demand */
	int have_largest;
	tl_rl_bubble *largest;
	unsigned char *largest_done; /* per entry: attributed yet */
	size_t nlargest;
	struct tl_dp_cache *dp; /* query_dp.c's */
};

const tl_trace *
rl_trace(const tl_rl *rl)
{
	return rl->tr;
}

const tl_stage_rules *
rl_rules(const tl_rl *rl)
{
	return rl->rules;
}

struct tl_dp_cache **
rl_dp_slot(tl_rl *rl)
{
	return &rl->dp;
}

static tl_rl_opts rl_defaults; /* set once by the command line, before any thread */

void
tlq_rl_set_defaults(const tl_rl_opts *o)
{
	rl_defaults = *o;
}

tl_rl *
tlq_rl_open(const tl_trace *tr, const tl_rl_opts *o)
{
	tl_rl *rl = xcalloc(1, sizeof *rl);
	rl->tr = tr;
	rl->o = o ? *o : rl_defaults;
	if (rl->o.bubbles_per_rank == 0)
		rl->o.bubbles_per_rank = 10;
	rl->rules = stage_rules_load(rl->o.rules_path);
	return rl;
}

void
tlq_rl_close(tl_rl *rl)
{
	if (rl == NULL)
		return;
	for (size_t i = 0; rl->inst && i < rl->tr->nranks; i++)
		free(rl->inst[i]);
	free(rl->inst);
	free(rl->ninst);
	free(rl->rows);
	for (size_t i = 0; i < rl->nimb; i++)
		free(rl->imb[i].ranks);
	free(rl->imb);
	pipeline_free(&rl->pp);
	slowrank_free(&rl->slow);
	free(rl->bubbles);
	free(rl->largest);
	free(rl->largest_done);
	dp_cache_free(rl->dp);
	stage_rules_free(rl->rules);
	free(rl);
}

const char *
tlq_rl_stage_name(const tl_rl *rl, int stage)
{
	return stage >= 0 && (size_t)stage < stage_rules_count(rl->rules)
	           ? stage_rules_name(rl->rules, stage)
	           : NULL;
}

size_t
tlq_rl_stage_count(const tl_rl *rl)
{
	return stage_rules_count(rl->rules);
}

/* ---- per-rank work in parallel -------------------------------------------------------------- */

typedef struct par_ctx {
	tl_rl *rl;
	void (*fn)(tl_rl *, size_t rank, void *arg);
	void *arg;
	size_t next;
	pthread_mutex_t lock;
} par_ctx;

static void *
par_worker(void *p)
{
	par_ctx *c = p;
	for (;;) {
		pthread_mutex_lock(&c->lock);
		size_t i = c->next++;
		pthread_mutex_unlock(&c->lock);
		if (i >= c->rl->tr->nranks)
			return NULL;
		c->fn(c->rl, i, c->arg);
	}
}

/* Runs fn for every rank, ranks in parallel (one thread per core at most). fn must touch only
 * its rank's results. */
static void
per_rank(tl_rl *rl, void (*fn)(tl_rl *, size_t, void *), void *arg)
{
	size_t n = rl->tr->nranks;
	if (n == 0)
		return;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nth = ncpu > 0 ? (size_t)ncpu : 1;
	if (nth > n)
		nth = n;
	par_ctx c = {.rl = rl, .fn = fn, .arg = arg};
	pthread_mutex_init(&c.lock, NULL);
	pthread_t *th = xcalloc(nth, sizeof *th);
	unsigned char *ok = xcalloc(nth, 1);
	for (size_t i = 1; i < nth; i++)
		ok[i] = pthread_create(&th[i], NULL, par_worker, &c) == 0;
	par_worker(&c);
	for (size_t i = 1; i < nth; i++)
		if (ok[i])
			pthread_join(th[i], NULL);
	free(th);
	free(ok);
	pthread_mutex_destroy(&c.lock);
}

/* ---- stages --------------------------------------------------------------------------------- */

static void
need_inst(tl_rl *rl)
{
	if (rl->have_inst)
		return;
	size_t n = rl->tr->nranks;
	rl->inst = xcalloc(n ? n : 1, sizeof *rl->inst);
	rl->ninst = xcalloc(n ? n : 1, sizeof *rl->ninst);
	/* one thread: a role directory may add an other:NAME stage to the rules */
	for (size_t i = 0; i < n; i++)
		rl->ninst[i] = stages_of_rank(rl->rules, rl->tr->ranks[i], &rl->inst[i]);
	rl->have_inst = 1;
}

typedef struct stage_job {
	size_t *first; /* per rank: its first row */
} stage_job;

static void
stage_busy(tl_rl *rl, size_t ri, void *arg)
{
	const stage_job *j = arg;
	const tl_rank *r = rl->tr->ranks[ri];
	int has_decode = stages_rank_has_decode(rl->rules, r);
	for (size_t k = 0; k < rl->ninst[ri]; k++) {
		tl_stage_row *row = &rl->rows[j->first[ri] + k];
		tl_overlap o;
		overlap_compute(r, TL_NO_STEP, row->start, row->end, INT64_MIN, &o);
		row->busy = o.computing + o.communication - o.overlapped;
		row->decode_steps =
		    stages_decode_count(rl->rules, r, has_decode, row->stage, row->host_start,
		                        row->host_end);
	}
}

static int
cmp_key(const tl_stage_row *x, const tl_stage_row *y)
{
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->occurrence > y->occurrence) - (x->occurrence < y->occurrence);
}

static int
cmp_row_ptr(const void *a, const void *b)
{
	return cmp_key(*(tl_stage_row *const *)a, *(tl_stage_row *const *)b);
}

/* stage, step, then start: the order the occurrence numbers */
static int
cmp_row_start(const void *a, const void *b)
{
	const tl_stage_row *x = *(tl_stage_row *const *)a, *y = *(tl_stage_row *const *)b;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x > y) - (x < y);
}

static void
need_stages(tl_rl *rl)
{
	if (rl->have_stages)
		return;
	need_inst(rl);
	size_t n = rl->tr->nranks, total = 0;
	size_t *first = xcalloc(n ? n : 1, sizeof *first);
	for (size_t i = 0; i < n; i++) {
		first[i] = total;
		total += rl->ninst[i];
	}
	rl->rows = xcalloc(total ? total : 1, sizeof *rl->rows);
	rl->nrows = total;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < rl->ninst[i]; k++) {
			const tl_stage_inst *in = &rl->inst[i][k];
			tl_stage_row *row = &rl->rows[first[i] + k];
			row->rank = i;
			row->stage = in->stage;
			row->step = in->step;
			row->start = in->start;
			row->end = in->end;
			row->host_start = in->host_start;
			row->host_end = in->host_end;
			row->device = in->device;
			row->range = in->origin;
			row->from_role = in->from_role;
			row->level = in->level;
		}
	}
	/* occurrence: the instance's order among the rank's instances of the same stage and step
	 * (each rank's rows sorted by stage, step, start) */
	tl_stage_row **q = xreallocarray(NULL, total ? total : 1, sizeof *q);
	for (size_t i = 0; i < total; i++)
		q[i] = &rl->rows[i];
	for (size_t i = 0; i < n; i++) {
		tl_stage_row **a = q + first[i];
		size_t m = rl->ninst[i];
		if (m > 1)
			qsort(a, m, sizeof *a, cmp_row_start);
		for (size_t k = 1; k < m; k++)
			if (a[k]->stage == a[k - 1]->stage && a[k]->step == a[k - 1]->step)
				a[k]->occurrence = a[k - 1]->occurrence + 1;
	}
	free(q);
	stage_job j = {first};
	per_rank(rl, stage_busy, &j);
	/* lag: end - earliest end of the same (stage, step, occurrence) over the ranks */
	tl_stage_row **p = xreallocarray(NULL, total ? total : 1, sizeof *p);
	for (size_t i = 0; i < total; i++)
		p[i] = &rl->rows[i];
	if (total > 1)
		qsort(p, total, sizeof *p, cmp_row_ptr);
	for (size_t a = 0; a < total;) {
		size_t b = a + 1;
		int64_t earliest = p[a]->end;
		while (b < total && cmp_key(p[a], p[b]) == 0) {
			if (p[b]->end < earliest)
				earliest = p[b]->end;
			b++;
		}
		for (size_t i = a; i < b; i++)
			p[i]->lag = p[i]->end - earliest;
		a = b;
	}
	free(p);
	free(first);
	rl->have_stages = 1;
}

size_t
tlq_stages(tl_rl *rl, const tl_stage_row **rows)
{
	need_stages(rl);
	*rows = rl->rows;
	return rl->nrows;
}

void
tlq_rl_add_lanes(tl_rl *rl, tl_trace *tr)
{
	need_inst(rl);
	for (size_t i = 0; i < tr->nranks && i < rl->tr->nranks; i++)
		stages_add_lanes(tr->ranks[i], rl->rules, rl->inst[i], rl->ninst[i]);
}

/* ---- DP imbalance -----------------------------------------------------------------------------
 */

static int
cmp_stage_step(const void *a, const void *b)
{
	const tl_stage_row *x = *(tl_stage_row *const *)a, *y = *(tl_stage_row *const *)b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static void
need_imbalance(tl_rl *rl)
{
	if (rl->have_imb)
		return;
	need_stages(rl);
	size_t n = rl->nrows, cap = 0;
	tl_stage_row **p = xreallocarray(NULL, n ? n : 1, sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = &rl->rows[i];
	if (n > 1)
		qsort(p, n, sizeof *p, cmp_stage_step);
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		while (b < n && p[b]->stage == p[a]->stage && p[b]->step == p[a]->step)
			b++;
		/* one row per rank: its instances of the stage in the step together */
		tl_imb_rank *v = NULL;
		size_t nv = 0, vcap = 0;
		for (size_t i = a; i < b; i++) {
			const tl_stage_row *s = p[i];
			if (nv == 0 || v[nv - 1].rank != s->rank) {
				tl_imb_rank x = {.rank = s->rank,
				                 .start = s->start,
				                 .end = s->end,
				                 .decode_steps = -1};
				VEC_PUSH(v, nv, vcap, x);
			}
			tl_imb_rank *x = &v[nv - 1];
			if (s->end > x->end)
				x->end = s->end;
			x->duration += s->end - s->start;
			x->busy += s->busy;
			if (s->decode_steps >= 0) /* unknown (-1) only while no instance knows */
				x->decode_steps =
				    (x->decode_steps > 0 ? x->decode_steps : 0) + s->decode_steps;
		}
		if (nv >= 2) {
			tl_imbalance im = {
			    .stage = p[a]->stage, .step = p[a]->step, .ranks = v, .n = nv};
			imbalance_compute(v, nv, &im.st);
			VEC_PUSH(rl->imb, rl->nimb, cap, im);
		} else {
			free(v);
		}
		a = b;
	}
	free(p);
	rl->have_imb = 1;
}

size_t
tlq_imbalances(tl_rl *rl, const tl_imbalance **out)
{
	need_imbalance(rl);
	*out = rl->imb;
	return rl->nimb;
}

const tl_imbalance *
tlq_imbalance(tl_rl *rl, int stage, int64_t step)
{
	need_imbalance(rl);
	for (size_t i = 0; i < rl->nimb; i++)
		if (rl->imb[i].stage == stage && rl->imb[i].step == step)
			return &rl->imb[i];
	return NULL;
}

/* ---- pipeline ---------------------------------------------------------------------------------
 */

/* The PP stage that distributed_args gives the rank (Megatron orders ranks with PP outermost:
 * stage = rank / (world / pp)), or -1. */
static int
pp_stage_from_args(const char *json, int rank)
{
	cJSON *o = cJSON_Parse(json);
	if (o == NULL)
		return -1;
	cJSON *a =
	    cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "distributed_args") : NULL;
	if (a == NULL || !cJSON_IsObject(a)) /* the META_DATA value is the args object itself */
		a = o;
	static const char *const sizes[] = {"tensor_model_parallel_size", "context_parallel_size",
	                                    "data_parallel_size"};
	const cJSON *pp = cJSON_GetObjectItemCaseSensitive(a, "pipeline_model_parallel_size");
	const cJSON *ws = cJSON_GetObjectItemCaseSensitive(a, "world_size");
	int stage = -1;
	if (cJSON_IsNumber(pp) && pp->valueint >= 1 && rank >= 0) {
		long world = cJSON_IsNumber(ws) && ws->valueint > 0 ? ws->valueint : 0;
		if (world == 0) {
			world = pp->valueint;
			for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
				const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, sizes[i]);
				if (cJSON_IsNumber(x) && x->valueint > 0)
					world *= x->valueint;
			}
		}
		long per = world % pp->valueint == 0 ? world / pp->valueint : 0;
		if (per > 0 && rank < world)
			stage = (int)(rank / per);
	}
	cJSON_Delete(o);
	return stage;
}

static char *
slurp_small(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	char chunk[4096];
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && n < (4u << 20)) {
		VEC_RESERVE(buf, cap, n + got + 1);
		memcpy(buf + n, chunk, got);
		n += got;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

/* distributed_args from the capture's profiler_metadata.json, else META_DATA of its DB. */
static int
meta_stage_of(const tl_rank *r)
{
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_source *src = r->sources[i];
		char *path = xasprintf("%s/profiler_metadata.json", src->dir);
		char *text = slurp_small(path);
		free(path);
		int st = text ? pp_stage_from_args(text, r->rank) : -1;
		free(text);
		if (st >= 0)
			return st;
		if (src->kind != TL_SRC_TORCH_DB && src->kind != TL_SRC_MSPROF_DB &&
		    src->kind != TL_SRC_MINDSPORE_DB)
			continue;
		text = ascend_db_meta(src->path, "distributed_args");
		st = text ? pp_stage_from_args(text, r->rank) : -1;
		free(text);
		if (st >= 0)
			return st;
	}
	return -1;
}

static void
meta_job(tl_rl *rl, size_t i, void *arg)
{
	((int *)arg)[i] = meta_stage_of(rl->tr->ranks[i]);
}

static void
fwdbwd_job(tl_rl *rl, size_t i, void *arg)
{
	(void)arg;
	if (rl->pp.rank_blocks[i] == TL_PP_BLOCKS_NONE)
		load_fwdbwd(rl->tr->ranks[i]);
}

/* Ranges named forward/backward make the pipeline; without them, the forward/backward operator
 * pairs do, but only where something says the job is pipeline-parallel (--pp, send/receive
 * ops, a PP stage above 0 in distributed_args): every training job has such pairs. DB sources
 * read theirs here, on first need (a scan of the operator tables), ranks in parallel. */
const tl_pipeline *
tlq_pipeline(tl_rl *rl)
{
	if (rl->have_pp)
		return &rl->pp;
	const tl_trace *tr = rl->tr;
	size_t n = tr->nranks;
	pipeline_build(tr, rl->rules, NULL, rl->o.pp, 0, &rl->pp);
	int pp_said = rl->o.pp > 0 || rl->pp.p2p_ops > 0;
	if (rl->pp.ranks_with_blocks > 0 || pp_said) {
		/* the metadata of every rank is read only when it can matter */
		int *meta = xreallocarray(NULL, n ? n : 1, sizeof *meta);
		per_rank(rl, meta_job, meta);
		for (size_t i = 0; i < n; i++)
			pp_said |= meta[i] > 0;
		if (pp_said)
			per_rank(rl, fwdbwd_job, NULL);
		pipeline_free(&rl->pp);
		pipeline_build(tr, rl->rules, meta, rl->o.pp, pp_said, &rl->pp);
		free(meta);
	}
	rl->have_pp = 1;
	return &rl->pp;
}

/* ---- slow ranks, bubbles ----------------------------------------------------------------------
 */

const tl_slow_result *
tlq_slow_ranks(tl_rl *rl)
{
	if (!rl->have_slow) {
		slowrank_votes(rl->tr, &rl->slow);
		rl->have_slow = 1;
	}
	return &rl->slow;
}

typedef struct bubble_job {
	tl_rl_bubble **v;
	size_t *n;
} bubble_job;

static void
rank_bubbles(tl_rl *rl, size_t ri, void *arg)
{
	bubble_job *j = arg;
	j->n[ri] = bubbles_of_rank(rl->tr->ranks[ri], ri, rl->inst[ri], rl->ninst[ri],
	                           rl->o.bubbles_per_rank, &j->v[ri]);
}

size_t
tlq_rl_bubbles(tl_rl *rl, const tl_rl_bubble **out)
{
	if (!rl->have_bubbles) {
		need_inst(rl);
		size_t n = rl->tr->nranks;
		bubble_job j = {xcalloc(n ? n : 1, sizeof *j.v), xcalloc(n ? n : 1, sizeof *j.n)};
		per_rank(rl, rank_bubbles, &j);
		size_t total = 0, k = 0;
		for (size_t i = 0; i < n; i++)
			total += j.n[i];
		rl->bubbles = xcalloc(total ? total : 1, sizeof *rl->bubbles);
		for (size_t i = 0; i < n; i++) {
			memcpy(rl->bubbles + k, j.v[i], j.n[i] * sizeof *rl->bubbles);
			k += j.n[i];
			free(j.v[i]);
		}
		rl->nbubbles = total;
		free(j.v);
		free(j.n);
		rl->have_bubbles = 1;
	}
	*out = rl->bubbles;
	return rl->nbubbles;
}

/* ---- the viewer's bubble walks -------------------------------------------------------------- */

void
tlq_rl_bubble_at(tl_rl *rl, size_t ri, int64_t start, int64_t end, tl_rl_bubble *out)
{
	need_inst(rl);
	memset(out, 0, sizeof *out);
	out->rank = ri;
	out->start = start;
	out->end = end;
	bubble_attribute(rl->tr->ranks[ri], rl->inst[ri], rl->ninst[ri], out);
}

int
tlq_rl_bubble_next(tl_rl *rl, size_t ri, int64_t t, int dir, tl_rl_bubble *out, size_t *index,
                   size_t *count)
{
	const tl_track *f =
	    ri < rl->tr->nranks ? lanes_overlap_track(rl->tr->ranks[ri], TL_OVL_FREE) : NULL;
	*count = f ? f->n : 0;
	size_t k = f && f->n ? tlq_slice_next(f, t, dir) : SIZE_MAX;
	if (k == SIZE_MAX)
		return -1;
	*index = k;
	tlq_rl_bubble_at(rl, ri, f->v[k].start, f->v[k].end, out);
	return 0;
}

typedef struct gaps_job {
	size_t max;
	tl_gap **v;
	size_t *n;
} gaps_job;

static void
rank_gaps(tl_rl *rl, size_t ri, void *arg)
{
	gaps_job *j = arg;
	j->n[ri] = bubble_gaps_of_rank(rl->tr->ranks[ri], j->max, &j->v[ri]);
}

/* merge order of the heads of two ranks' lists: longer, then earlier, then the lower rank */
static int
head_before(const gaps_job *j, const size_t *pos, size_t a, size_t b)
{
	const tl_gap *x = &j->v[a][pos[a]], *y = &j->v[b][pos[b]];
	int64_t lx = x->end - x->start, ly = y->end - y->start;
	if (lx != ly)
		return lx > ly;
	if (x->start != y->start)
		return x->start < y->start;
	return a < b;
}

static void
head_down(const gaps_job *j, const size_t *pos, size_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && head_before(j, pos, h[l], h[m]))
			m = l;
		if (r < n && head_before(j, pos, h[r], h[m]))
			m = r;
		if (m == i)
			return;
		size_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void
need_largest(tl_rl *rl, size_t max)
{
	if (rl->have_largest)
		return;
	need_inst(rl);
	if (max == 0)
		max = 1;
	size_t n = rl->tr->nranks;
	gaps_job j = {max, xcalloc(n ? n : 1, sizeof *j.v), xcalloc(n ? n : 1, sizeof *j.n)};
	per_rank(rl, rank_gaps, &j);
	/* each rank's list is longest first: a k-way merge of their heads */
	size_t *pos = xcalloc(n ? n : 1, sizeof *pos), *h = xcalloc(n ? n : 1, sizeof *h), nh = 0;
	size_t total = 0;
	for (size_t i = 0; i < n; i++) {
		total += j.n[i];
		if (j.n[i] > 0)
			h[nh++] = i;
	}
	if (total < max)
		max = total;
	for (size_t i = nh / 2; i-- > 0;)
		head_down(&j, pos, h, nh, i);
	rl->largest = xcalloc(max ? max : 1, sizeof *rl->largest);
	size_t k = 0;
	while (nh > 0 && k < max) {
		size_t ri = h[0];
		tl_rl_bubble *b = &rl->largest[k++];
		b->rank = ri;
		b->start = j.v[ri][pos[ri]].start;
		b->end = j.v[ri][pos[ri]].end;
		if (++pos[ri] >= j.n[ri])
			h[0] = h[--nh];
		head_down(&j, pos, h, nh, 0);
	}
	for (size_t i = 0; i < n; i++)
		free(j.v[i]);
	free(j.v);
	free(j.n);
	free(pos);
	free(h);
	rl->nlargest = k;
	rl->largest_done = xcalloc(k ? k : 1, 1);
	rl->have_largest = 1;
}

size_t
tlq_rl_bubble_largest(tl_rl *rl, size_t max, size_t i, tl_rl_bubble *out)
{
	need_largest(rl, max);
	if (out != NULL && i < rl->nlargest) {
		tl_rl_bubble *b = &rl->largest[i];
		if (!rl->largest_done[i]) {
			bubble_attribute(rl->tr->ranks[b->rank], rl->inst[b->rank],
			                 rl->ninst[b->rank], b);
			rl->largest_done[i] = 1;
		}
		*out = *b;
	}
	return rl->nlargest;
}
