/* The query session: tlq_open prepares what every query reads (stage rules and instances, and
 * for the viewer the overlap and stage lanes and every track's level of detail); the tables only
 * some commands need are built on first use under the session's lock (session.h). */
#include "config.h"
#include "analysis/lanes.h"
#include "query/session.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct per_rank_ctx {
	tl_query *q;
	void (*fn)(tl_query *, size_t, void *);
	void *arg;
} per_rank_ctx;

static void
per_rank_item(void *p, size_t i)
{
	per_rank_ctx *c = p;
	c->fn(c->q, i, c->arg);
}

void
tlq_per_rank(tl_query *q, void (*fn)(tl_query *, size_t, void *), void *arg)
{
	per_rank_ctx c = {q, fn, arg};
	parallel_for(q->tr->nranks, 0, per_rank_item, &c);
}

/* ---- open, close ---------------------------------------------------------------------------- */

static void
lod_job(tl_query *q, size_t ri, void *arg)
{
	(void)arg;
	const tl_rank *r = q->tr->ranks[ri];
	for (size_t i = 0; i < r->ntracks; i++)
		track_lod_build(r->tracks[i]);
}

void
tlq_lod_build(tl_query *q)
{
	tlq_per_rank(q, lod_job, NULL);
}

void
tlq_prepare_rank(tl_query *q, size_t ri)
{
	tl_rank *r = q->tr->ranks[ri];
	lanes_build_rank(r);
	stages_add_lanes(r, q->rules, q->inst[ri], q->ninst[ri]);
	lod_job(q, ri, NULL);
}

tl_query *
tlq_open(tl_trace *tr, const tl_query_opts *o)
{
	tl_query *q = xcalloc(1, sizeof *q);
	q->tr = tr;
	if (o != NULL)
		q->o = *o;
	if (q->o.bubbles_per_rank == 0)
		q->o.bubbles_per_rank = 10;
	q->rules = stage_rules_load(q->o.rules_path);
	size_t n = tr->nranks;
	q->inst = xcalloc(n ? n : 1, sizeof *q->inst);
	q->ninst = xcalloc(n ? n : 1, sizeof *q->ninst);
	/* one thread: a role directory may add an other:NAME stage to the rules */
	for (size_t i = 0; i < n; i++)
		q->ninst[i] = stages_of_rank(q->rules, tr->ranks[i], &q->inst[i]);
	if (q->o.lanes) {
		lanes_build(tr, 0);
		for (size_t i = 0; i < n; i++)
			stages_add_lanes(tr->ranks[i], q->rules, q->inst[i], q->ninst[i]);
		tlq_lod_build(q);
	}
	pthread_mutex_init(&q->lock, NULL);
	return q;
}

void
tlq_close(tl_query *q)
{
	if (q == NULL)
		return;
	for (size_t i = 0; i < q->tr->nranks; i++)
		free(q->inst[i]);
	free(q->inst);
	free(q->ninst);
	free(q->rows);
	for (size_t i = 0; i < q->nimb; i++)
		free(q->imb[i].ranks);
	free(q->imb);
	pipeline_free(&q->pp);
	slowrank_free(&q->slow);
	free(q->bubbles);
	free(q->largest);
	free(q->largest_done);
	if (q->dp != NULL)
		q->dp_free(q->dp);
	for (size_t i = 0; q->launches != NULL && i < q->tr->nranks; i++)
		free(q->launches[i]);
	free(q->launches);
	free(q->nlaunches);
	stage_rules_free(q->rules);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

const tl_trace *
tlq_trace(const tl_query *q)
{
	return q->tr;
}

const char *
tlq_stage_name(const tl_query *q, int stage)
{
	return stage >= 0 && (size_t)stage < stage_rules_count(q->rules)
	           ? stage_rules_name(q->rules, stage)
	           : NULL;
}
