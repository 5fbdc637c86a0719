/* The query session: tlq_open prepares what every query reads (stage rules and instances, and
 * for the viewer the overlap and stage lanes and every track's level of detail); the tables only
 * some commands need are the optional parts, built on first use under the session's lock by
 * tlq_need from the table of parts (session.h). */
#include "config.h"
#include "analysis/lanes.h"
#include "loading/loading.h"
#include "query/links.h"
#include "query/session.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct per_rank_ctx {
	const tl_query *q;
	void (*fn)(const tl_query *, size_t, void *);
	void *arg;
} per_rank_ctx;

static void
per_rank_item(void *p, size_t i)
{
	per_rank_ctx *c = p;
	c->fn(c->q, i, c->arg);
	if (c->q->o.release_pages)
		rank_drop_pages(c->q->tr->ranks[i]);
}

void
tlq_release_pages(const tl_query *q)
{
	if (q->o.release_pages)
		trace_drop_pages(q->tr);
}

void
tlq_release_rank(const tl_query *q, size_t ri)
{
	if (q->o.release_pages && ri < q->tr->nranks)
		rank_drop_pages(q->tr->ranks[ri]);
}

void
tlq_per_rank(const tl_query *q, void (*fn)(const tl_query *, size_t, void *), void *arg)
{
	per_rank_ctx c = {q, fn, arg};
	parallel_for(q->tr->nranks, 0, per_rank_item, &c);
}

/* ---- the optional parts -------------------------------------------------------------------- */

void
tlq_need_locked(const tl_query *q, const tlq_part *p)
{
	if (q->st->done[p->id] != NULL)
		return;
	p->compute(q);
	q->st->done[p->id] = p;
}

void
tlq_need(const tl_query *q, const tlq_part *p)
{
	pthread_mutex_lock(&q->st->lock);
	tlq_need_locked(q, p);
	pthread_mutex_unlock(&q->st->lock);
}

int
tlq_done_locked(const tl_query *q, const tlq_part *p)
{
	return q->st->done[p->id] != NULL;
}

/* LINKS: the array of every rank's link index, each made on first use by tlq_link_index. Here,
 * where tlq_close frees it, rather than in links.c: host.c's links read it, and links.c needs
 * host.c's lanes. */
static void
links_part_compute(const tl_query *q)
{
	q->st->nlink_ix = q->tr->nranks;
	q->st->link_ix = xcalloc(q->st->nlink_ix ? q->st->nlink_ix : 1, sizeof *q->st->link_ix);
}

static void
links_part_free(struct tlq_state *st)
{
	for (size_t i = 0; st->link_ix != NULL && i < st->nlink_ix; i++)
		load_link_index_free(st->link_ix[i]);
	free(st->link_ix);
}

TLQ_PART_DEFINE(LINKS, links, links_part_compute, links_part_free);

/* The link index of rank ri (query/links.h). */
const tl_link_index *
tlq_link_index(const tl_query *q, size_t ri)
{
	if (ri >= q->tr->nranks || tlq_slot(q, ri) != TLQ_SLOT_FULL)
		return NULL; /* (a rank still loading has no files to link into yet) */
	struct tlq_state *st = q->st;
	pthread_mutex_lock(&st->lock);
	tlq_need_locked(q, &tlq_part_links);
	const tl_link_index *x = NULL;
	if (ri < st->nlink_ix) {
		if (st->link_ix[ri] == NULL)
			st->link_ix[ri] = load_link_index(q->tr->ranks[ri]);
		x = st->link_ix[ri];
	}
	pthread_mutex_unlock(&st->lock);
	return x;
}

/* ---- open, close ---------------------------------------------------------------------------- */

/* The level of detail of every track of r that has none. */
static void
rank_lod(const tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		track_lod_build(r->tracks[i]);
}

static void
lod_job(const tl_query *q, size_t ri, void *arg)
{
	(void)arg;
	rank_lod(q->tr->ranks[ri]);
}

void
tlq_prepare_rank(tl_rank *r)
{
	lanes_build_rank(r);
	rank_lod(r);
}

static void
prepare_job(const tl_query *q, size_t ri, void *arg)
{
	(void)arg;
	tlq_prepare_rank(q->tr->ranks[ri]);
}

void
tlq_lod_build(const tl_query *q)
{
	tlq_per_rank(q, lod_job, NULL);
}

tl_query *
tlq_open(tl_trace *tr, const tl_query_opts *o)
{
	tl_query *q = xcalloc(1, sizeof *q);
	q->st = xcalloc(1, sizeof *q->st);
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
		tlq_per_rank(q, prepare_job, NULL);
		for (size_t i = 0; i < n; i++)
			stages_add_lanes(tr->ranks[i], q->rules, q->inst[i], q->ninst[i]);
		tlq_lod_build(q);
	}
	pthread_mutex_init(&q->st->lock, NULL);
	pthread_mutex_init(&q->st->gaps_lock, NULL);
	return q;
}

/* ---- progressive loading -------------------------------------------------------------------- */

/* Every rank of the load gets its slot now, a placeholder with the rank's number and nothing
 * else, so that the views show each rank from the first frame and an index never changes
 * while loading. */
void
tlq_attach_load(tl_query *q, struct tl_load_bg *bg)
{
	q->load = bg;
	tl_trace *tr = q->tr;
	size_t n = load_bg_jobs(bg);
	if (n == 0 || tr->nranks != 0)
		return;
	tr->ranks = xreallocarray(tr->ranks, n, sizeof *tr->ranks);
	q->inst = xreallocarray(q->inst, n, sizeof *q->inst);
	q->ninst = xreallocarray(q->ninst, n, sizeof *q->ninst);
	q->slot = xcalloc(n, sizeof *q->slot);
	for (size_t i = 0; i < n; i++) {
		int rank;
		uint64_t rows;
		load_bg_job(bg, i, &rank, &rows);
		tr->ranks[i] = rank_new(rank);
		q->inst[i] = NULL;
		q->ninst[i] = 0;
	}
	tr->nranks = n;
}

static void
retire(const tl_query *q, size_t i)
{
	struct tlq_state *st = q->st;
	VEC_PUSH(st->retired, st->nretired, st->retcap, q->tr->ranks[i]);
	if (q->inst[i] != NULL)
		VEC_PUSH(st->retired_inst, st->nretired_inst, st->ricap, q->inst[i]);
	q->inst[i] = NULL;
	q->ninst[i] = 0;
}

/* Puts r (a first pass's, or the full rank prepared by tlq_prepare_rank) in slot i: on the
 * views' thread, under the session's lock. The stages are found here, not on the loader's
 * thread: a role directory may add an other:NAME stage to the rules the views read. */
static void
publish(const tl_query *q, size_t i, tl_rank *r, int state)
{
	tl_trace *tr = q->tr;
	retire(q, i);
	q->ninst[i] = stages_of_rank(q->rules, r, &q->inst[i]);
	if (q->o.lanes) {
		stages_add_lanes(r, q->rules, q->inst[i], q->ninst[i]);
		rank_lod(r);
	}
	tr->ranks[i] = r;
	q->slot[i] = (unsigned char)state;
	if (r->t_min < tr->t_min)
		tr->t_min = r->t_min;
	if (r->t_max > tr->t_max)
		tr->t_max = r->t_max;
}

/* The load's end: the slots of ranks that could not be loaded go, so that every query after
 * the load sees loaded ranks only (their indexes change: tlq_poll says so). */
static void
drop_gone(const tl_query *q)
{
	tl_trace *tr = q->tr;
	struct tlq_state *st = q->st;
	size_t w = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		int links = i < st->nlink_ix;
		if (q->slot[i] == TLQ_SLOT_GONE) {
			retire(q, i);
			if (links)
				load_link_index_free(st->link_ix[i]);
			continue;
		}
		tr->ranks[w] = tr->ranks[i];
		q->inst[w] = q->inst[i];
		q->ninst[w] = q->ninst[i];
		q->slot[w] = q->slot[i];
		if (links)
			st->link_ix[w] = st->link_ix[i];
		w++;
	}
	if (st->nlink_ix > w)
		st->nlink_ix = w;
	st->renumbered = w != tr->nranks;
	tr->nranks = w;
}

size_t
tlq_poll(const tl_query *q, int *renumbered)
{
	if (renumbered != NULL)
		*renumbered = 0;
	if (q->load == NULL || !load_bg_pending(q->load))
		return 0;
	size_t got = 0;
	pthread_mutex_lock(&q->st->lock);
	for (size_t i = 0; i < q->tr->nranks; i++) {
		tl_rank *r;
		switch (load_bg_take(q->load, i, &r)) {
		case TL_TAKE_PREVIEW:
			publish(q, i, r, TLQ_SLOT_PREVIEW);
			got++;
			break;
		case TL_TAKE_FULL:
			publish(q, i, r, TLQ_SLOT_FULL);
			got++;
			break;
		case TL_TAKE_GONE:
			q->slot[i] = TLQ_SLOT_GONE;
			got++;
			break;
		default:
			break;
		}
	}
	if (!load_bg_pending(q->load)) {
		drop_gone(q);
		if (renumbered != NULL)
			*renumbered = q->st->renumbered;
	}
	pthread_mutex_unlock(&q->st->lock);
	return got;
}

int
tlq_slot(const tl_query *q, size_t ri)
{
	if (q == NULL || q->slot == NULL || ri >= q->tr->nranks)
		return TLQ_SLOT_FULL;
	return q->slot[ri];
}

int
tlq_loading(const tl_query *q, size_t *done, size_t *total)
{
	size_t d = 0, t = 0;
	int loading = 0;
	if (q->load != NULL) {
		t = load_bg_jobs(q->load);
		d = load_bg_done(q->load);
		loading = load_bg_pending(q->load);
	}
	if (done)
		*done = d;
	if (total)
		*total = t;
	return loading;
}

int
tlq_load_rank(const tl_query *q, size_t i, int *rank, uint64_t *rows)
{
	if (q->load == NULL || i >= load_bg_jobs(q->load))
		return -1;
	switch (load_bg_job(q->load, i, rank, rows)) {
	case TL_LOAD_HELD:
		return TLQ_LOAD_HELD;
	case TL_LOAD_LOADING:
		return TLQ_LOAD_LOADING;
	case TL_LOAD_DONE:
		return TLQ_LOAD_DONE;
	default:
		return TLQ_LOAD_WAITING;
	}
}

int
tlq_load_first_settled(const tl_query *q)
{
	return q->load == NULL || load_bg_first_settled(q->load);
}

int
tlq_load_settled(const tl_query *q)
{
	return q->load == NULL || load_bg_settled(q->load);
}

void
tlq_close(tl_query *q)
{
	if (q == NULL)
		return;
	struct tlq_state *st = q->st;
	for (size_t p = 0; p < TLQ_NPARTS; p++)
		if (st->done[p] != NULL && st->done[p]->free != NULL)
			st->done[p]->free(st);
	for (size_t i = 0; i < q->tr->nranks; i++)
		free(q->inst[i]);
	free(q->inst);
	for (size_t i = 0; i < st->nretired; i++)
		rank_free(st->retired[i]);
	free(st->retired);
	for (size_t i = 0; i < st->nretired_inst; i++)
		free(st->retired_inst[i]);
	free(st->retired_inst);
	free(q->slot);
	free(q->ninst);
	stage_rules_free(q->rules);
	for (size_t i = 0; i < st->ngaps; i++)
		free(st->gaps[i].v);
	free(st->gaps);
	pthread_mutex_destroy(&st->gaps_lock);
	pthread_mutex_destroy(&st->lock);
	free(st);
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
