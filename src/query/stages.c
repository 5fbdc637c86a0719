/* The RL stage table and what is built from it: DP imbalance, the pipeline, slow-rank votes.
 * Each is an optional part of the session (session.h: TLQ_PARTS), built on first use. */
#include "config.h"
#include "analysis/lanes.h"
#include "load/load.h"
#include "query/session.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- stages --------------------------------------------------------------------------------- */

typedef struct stage_job {
	size_t *first; /* per rank: its first row */
} stage_job;

static void
stage_busy(const tl_query *q, size_t ri, void *arg)
{
	const stage_job *j = arg;
	const tl_rank *r = q->tr->ranks[ri];
	int has_decode = stages_rank_has_decode(q->rules, r);
	for (size_t k = 0; k < q->ninst[ri]; k++) {
		tl_stage_row *row = &q->st->rows[j->first[ri] + k];
		tl_overlap o;
		if (lanes_overlap(r, row->start, row->end, INT64_MIN, &o) != 0)
			overlap_compute(r, TL_NO_STEP, row->start, row->end, INT64_MIN, &o);
		/* the union's length: in this order no partial sum passes it */
		row->busy = o.computing + (o.communication - o.overlapped);
		row->decode_steps = stages_decode_count(q->rules, r, has_decode, row->stage,
		                                        row->host_start, row->host_end);
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
stages_part_compute(const tl_query *q)
{
	struct tlq_state *st = q->st;
	size_t n = q->tr->nranks, total = 0;
	size_t *first = xcalloc(n ? n : 1, sizeof *first);
	for (size_t i = 0; i < n; i++) {
		first[i] = total;
		total += q->ninst[i];
	}
	st->rows = xcalloc(total ? total : 1, sizeof *st->rows);
	st->nrows = total;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < q->ninst[i]; k++) {
			const tl_stage_inst *in = &q->inst[i][k];
			tl_stage_row *row = &st->rows[first[i] + k];
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
	tl_stage_row **o = xreallocarray(NULL, total ? total : 1, sizeof *o);
	for (size_t i = 0; i < total; i++)
		o[i] = &st->rows[i];
	for (size_t i = 0; i < n; i++) {
		tl_stage_row **a = o + first[i];
		size_t m = q->ninst[i];
		if (m > 1)
			qsort(a, m, sizeof *a, cmp_row_start);
		for (size_t k = 1; k < m; k++)
			if (a[k]->stage == a[k - 1]->stage && a[k]->step == a[k - 1]->step)
				a[k]->occurrence = a[k - 1]->occurrence + 1;
	}
	free(o);
	stage_job j = {first};
	tlq_per_rank(q, stage_busy, &j);
	/* lag: end - earliest end of the same (stage, step, occurrence) over the ranks */
	tl_stage_row **p = xreallocarray(NULL, total ? total : 1, sizeof *p);
	for (size_t i = 0; i < total; i++)
		p[i] = &st->rows[i];
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
}

static void
stages_part_free(struct tlq_state *st)
{
	free(st->rows);
}

TLQ_PART_DEFINE(STAGES, stages, stages_part_compute, stages_part_free);

size_t
tlq_stages(const tl_query *q, const tl_stage_row **rows)
{
	tlq_need(q, &tlq_part_stages);
	*rows = q->st->rows;
	return q->st->nrows;
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
imbalance_part_compute(const tl_query *q)
{
	struct tlq_state *st = q->st;
	tlq_need_locked(q, &tlq_part_stages);
	size_t n = st->nrows, cap = 0;
	tl_stage_row **p = xreallocarray(NULL, n ? n : 1, sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = &st->rows[i];
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
			x->duration = sat_add(x->duration, s->end - s->start);
			x->busy = sat_add(x->busy, s->busy);
			if (s->decode_steps >= 0) /* unknown (-1) only while no instance knows */
				x->decode_steps =
				    (x->decode_steps > 0 ? x->decode_steps : 0) + s->decode_steps;
		}
		if (nv >= 2) {
			tl_imbalance im = {
			    .stage = p[a]->stage, .step = p[a]->step, .ranks = v, .n = nv};
			imbalance_compute(v, nv, &im.st);
			VEC_PUSH(st->imb, st->nimb, cap, im);
		} else {
			free(v);
		}
		a = b;
	}
	free(p);
}

static void
imbalance_part_free(struct tlq_state *st)
{
	for (size_t i = 0; i < st->nimb; i++)
		free(st->imb[i].ranks);
	free(st->imb);
}

TLQ_PART_DEFINE(IMBALANCE, imbalance, imbalance_part_compute, imbalance_part_free);

size_t
tlq_imbalances(const tl_query *q, const tl_imbalance **out)
{
	tlq_need(q, &tlq_part_imbalance);
	*out = q->st->imb;
	return q->st->nimb;
}

const tl_imbalance *
tlq_imbalance(const tl_query *q, int stage, int64_t step)
{
	const tl_imbalance *imb;
	size_t n = tlq_imbalances(q, &imb);
	for (size_t i = 0; i < n; i++)
		if (imb[i].stage == stage && imb[i].step == step)
			return &imb[i];
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

/* distributed_args from the capture's profiler_metadata.json, else META_DATA of its DB. */
static int
meta_stage_of(const tl_rank *r)
{
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_source *src = r->sources[i];
		char *text = load_capture_metadata(src);
		int st = text ? pp_stage_from_args(text, r->rank) : -1;
		free(text);
		if (st >= 0)
			return st;
		text = load_source_meta(r, i, "distributed_args");
		st = text ? pp_stage_from_args(text, r->rank) : -1;
		free(text);
		if (st >= 0)
			return st;
	}
	return -1;
}

static void
meta_job(const tl_query *q, size_t i, void *arg)
{
	((int *)arg)[i] = meta_stage_of(q->tr->ranks[i]);
}

static void
fwdbwd_job(const tl_query *q, size_t i, void *arg)
{
	(void)arg;
	if (q->st->pp.rank_blocks[i] == TL_PP_BLOCKS_NONE)
		load_fwdbwd(q->tr->ranks[i]);
}

/* Ranges named forward/backward make the pipeline; without them, the forward/backward operator
 * pairs do, but only where something says the job is pipeline-parallel (--pp, send/receive
 * ops, a PP stage above 0 in distributed_args): every training job has such pairs. DB sources
 * read theirs here, on first need (a scan of the operator tables), ranks in parallel. */
static void
pipeline_part_compute(const tl_query *q)
{
	const tl_trace *tr = q->tr;
	tl_pipeline *pp = &q->st->pp;
	size_t n = tr->nranks;
	pipeline_build(tr, q->rules, NULL, q->o.pp, 0, pp);
	int pp_said = q->o.pp > 0 || pp->p2p_ops > 0;
	if (pp->ranks_with_blocks > 0 || pp_said) {
		/* the metadata of every rank is read only when it can matter */
		int *meta = xreallocarray(NULL, n ? n : 1, sizeof *meta);
		tlq_per_rank(q, meta_job, meta);
		for (size_t i = 0; i < n; i++)
			pp_said |= meta[i] > 0;
		if (pp_said)
			tlq_per_rank(q, fwdbwd_job, NULL);
		pipeline_free(pp);
		pipeline_build(tr, q->rules, meta, q->o.pp, pp_said, pp);
		free(meta);
	}
}

static void
pipeline_part_free(struct tlq_state *st)
{
	pipeline_free(&st->pp);
}

TLQ_PART_DEFINE(PIPELINE, pipeline, pipeline_part_compute, pipeline_part_free);

/* The forward/backward pairs a DB source reads here (load_fwdbwd) go to the rank's fwdbwd list,
 * which only the pipeline reads, so a view drawing the rank's tracks meanwhile is not
 * disturbed. */
const tl_pipeline *
tlq_pipeline(const tl_query *q)
{
	tlq_need(q, &tlq_part_pipeline);
	return &q->st->pp;
}

const char *
tlq_pipeline_source_name(tl_pp_source s)
{
	return pipeline_source_name(s);
}

const char *
tlq_pipeline_absence(const tl_query *q, const tl_pipeline *p, char *buf, size_t n)
{
	return pipeline_absence(q->tr, p, buf, n);
}

/* ---- slow ranks ----------------------------------------------------------------------------- */

static void
slow_part_compute(const tl_query *q)
{
	tl_coll_entry *v;
	void *keep;
	size_t n = tlq_coll_entries(q->tr, &v, &keep);
	slowrank_votes_entries(q->tr, v, n, &q->st->slow);
	/* the result borrows groups and names from the ranks, not from the entries */
	tlq_coll_entries_free(q->tr, v, keep);
}

static void
slow_part_free(struct tlq_state *st)
{
	slowrank_free(&st->slow);
}

TLQ_PART_DEFINE(SLOW, slow, slow_part_compute, slow_part_free);

const tl_slow_result *
tlq_slow_ranks(const tl_query *q)
{
	tlq_need(q, &tlq_part_slow);
	return &q->st->slow;
}
