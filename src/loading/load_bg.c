/* Progressive loading, for the viewer (load.h: load_trace_start, load_bg_*): the ranks load on
 * threads of their own while the screen is up. Every job first makes a quick pass over its
 * small tables (load_first_pass: what the first frame shows of a rank), then, once every first
 * pass has started, the full reads run as load_trace's do (load_one). */
#include "config.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "loading/load_jobs.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- the first pass ------------------------------------------------------------------------ */

static void
drop_warning(void *ctx, const char *path, const char *text)
{
	(void)ctx;
	(void)path;
	(void)text;
}

/* A rank with only the small tables of job j's sources (steps, MSTX ranges, communication
 * ops), or NULL when no loader of them has a first pass or it found nothing. Its warnings are
 * dropped: the full read of the same files gives each of them once. */
static tl_rank *
load_preview(load_ctx *c, load_job *j)
{
	const tl_source *first = &c->tr->sources.v[j->first];
	tl_rank *r = rank_new(first->rank);
	r->sources = xreallocarray(NULL, j->count, sizeof *r->sources);
	r->src_t0 = xreallocarray(NULL, j->count, sizeof *r->src_t0);
	r->src_t1 = xreallocarray(NULL, j->count, sizeof *r->src_t1);
	msg_hold(1);
	msg_capture(drop_warning, NULL);
	for (size_t i = 0; i < j->count && !load_cancel_flag; i++) {
		const tl_source *src = &c->tr->sources.v[j->first + i];
		r->src_t0[r->nsources] = INT64_MAX;
		r->src_t1[r->nsources] = INT64_MIN;
		r->sources[r->nsources++] = src;
		if (src->role != NULL && r->role == NULL)
			r->role = xstrdup(src->role);
		const tl_loader *ld = loader_for(src->kind);
		if (ld != NULL && ld->preview != NULL && ld->preview(src, r) == 0)
			r->loaded = 1;
	}
	msg_capture(NULL, NULL);
	msg_hold(0);
	if (!r->loaded || load_cancel_flag) {
		rank_free(r);
		return NULL;
	}
	rank_finish(r);
	return r;
}

/* Job i's first pass, before any job's full read: a rank the model cache holds comes whole
 * (the cache is faster than any first pass), else the small tables. */
static void
load_first_pass(load_ctx *c, size_t i)
{
	load_job *j = &c->jobs[i];
	int held = c->delay_ms > 0 && i >= c->delay_from; /* the hook holds the full read */
	if (!load_cancel_flag && c->cache != NULL && !held) {
		const tl_source *first = &c->tr->sources.v[j->first];
		msg_hold(c->defer);
		load_job_capture(c, j);
		tl_rank *r = cache_load_rank(c->cache, first, j->count, c->keep);
		msg_capture(NULL, NULL);
		msg_hold(0);
		if (r != NULL) {
			load_drop_tables(r, c->keep);
			if (r->loaded && c->prepare != NULL)
				c->prepare(r, c->prepare_ctx);
			j->rank = r;
			msg_progress_add(1, 0);
			j->state = JOB_DONE;
			j->first_done = 1;
			return;
		}
	}
	if (!load_cancel_flag)
		j->preview = load_preview(c, j);
	j->first_done = 1;
}

/* The progressive load's items: 0 .. njobs-1 the first passes, then the full reads; items go
 * out in order, so every first pass starts before any full read. */
static void
bg_item(void *arg, size_t i)
{
	load_ctx *c = arg;
	if (i < c->njobs) {
		load_first_pass(c, i);
		return;
	}
	load_job *j = &c->jobs[i - c->njobs];
	while (!j->first_done) /* its first pass runs on another thread (few jobs) */
		usleep(1000);
	if (j->state != JOB_DONE)
		load_one(c, i - c->njobs);
}

/* ---- the load ------------------------------------------------------------------------------ */

struct tl_load_bg {
	load_ctx c;
	char *path;
	int threads;
	pthread_t th;
	int started; /* th runs the jobs (else they ran in load_trace_start) */
	size_t nloaded;
};

static void *
bg_main(void *arg)
{
	tl_load_bg *bg = arg;
	parallel_for(2 * bg->c.njobs, bg->threads, bg_item, &bg->c);
	return NULL;
}

int
load_trace_start(const char *path, const tl_load_opts *o, tl_trace *tr, tl_load_bg **out)
{
	*out = NULL;
	tl_load_bg *bg = xcalloc(1, sizeof *bg);
	int rc = load_setup(path, o, tr, &bg->c);
	if (rc != 0) {
		free(bg->c.jobs);
		free(bg);
		return rc;
	}
	load_cancel_flag = 0;
	bg->path = xstrdup(path);
	bg->threads = o ? o->threads : 0;
	bg->c.defer = o ? o->defer_warnings : 0;
	bg->c.prepare = o ? o->prepare : NULL;
	bg->c.prepare_ctx = o ? o->prepare_ctx : NULL;
	/* the test hook: jobs FROM and later (in rank order) wait MS before they start */
	const char *d = getenv("TL_TEST_LOAD_DELAY_MS");
	if (d != NULL && *d) {
		char *end;
		bg->c.delay_ms = strtol(d, &end, 10);
		bg->c.delay_from = *end == ':' ? strtoul(end + 1, NULL, 10) : 0;
	}
	load_bus_arm(1);
	bg->started = pthread_create(&bg->th, NULL, bg_main, bg) == 0;
	if (!bg->started)
		bg_main(bg);
	*out = bg;
	return 0;
}

size_t
load_bg_jobs(const tl_load_bg *bg)
{
	return bg->c.njobs;
}

int
load_bg_job(const tl_load_bg *bg, size_t i, int *rank, uint64_t *rows)
{
	const load_job *j = &bg->c.jobs[i];
	*rank = bg->c.tr->sources.v[j->first].rank;
	*rows = j->rows;
	int st = j->state;
	if (st == JOB_WAITING && bg->c.delay_ms > 0 && i >= bg->c.delay_from)
		st = JOB_HELD; /* the hook will hold it once a thread is free for it */
	switch (st) {
	case JOB_HELD:
		return TL_LOAD_HELD;
	case JOB_LOADING:
		return TL_LOAD_LOADING;
	case JOB_DONE:
		return TL_LOAD_DONE;
	default:
		return TL_LOAD_WAITING;
	}
}

size_t
load_bg_done(const tl_load_bg *bg)
{
	size_t n = 0;
	for (size_t i = 0; i < bg->c.njobs; i++)
		n += bg->c.jobs[i].state == JOB_DONE;
	return n;
}

int
load_bg_first_settled(const tl_load_bg *bg)
{
	for (size_t i = 0; i < bg->c.njobs; i++)
		if (!bg->c.jobs[i].first_done)
			return 0;
	return 1;
}

int
load_bg_settled(const tl_load_bg *bg)
{
	for (size_t i = 0; i < bg->c.njobs; i++) {
		int st = bg->c.jobs[i].state;
		/* a job the hook will hold once a thread is free for it counts as held */
		int held = bg->c.delay_ms > 0 && i >= bg->c.delay_from && st != JOB_LOADING;
		if (!bg->c.jobs[i].first_done || (st != JOB_DONE && !held))
			return 0;
	}
	return 1;
}

int
load_bg_take(tl_load_bg *bg, size_t i, tl_rank **out)
{
	load_job *j = &bg->c.jobs[i];
	*out = NULL;
	if (j->taken == TL_TAKE_FULL || j->taken == TL_TAKE_GONE)
		return TL_TAKE_NONE;
	if (j->state == JOB_DONE) {
		rank_free(j->preview); /* not handed out: the full rank came first */
		j->preview = NULL;
		tl_rank *r = j->rank;
		j->rank = NULL; /* the caller's now */
		if (r != NULL && r->loaded) {
			bg->nloaded++;
			*out = r;
			return j->taken = TL_TAKE_FULL;
		}
		rank_free(r);
		return j->taken = TL_TAKE_GONE;
	}
	if (j->first_done && j->preview != NULL) {
		*out = j->preview;
		j->preview = NULL;
		return j->taken = TL_TAKE_PREVIEW;
	}
	return TL_TAKE_NONE;
}

int
load_bg_pending(const tl_load_bg *bg)
{
	for (size_t i = 0; i < bg->c.njobs; i++)
		if (bg->c.jobs[i].taken != TL_TAKE_FULL && bg->c.jobs[i].taken != TL_TAKE_GONE)
			return 1;
	return 0;
}

int
load_bg_finish(tl_load_bg *bg, int cancel)
{
	if (bg == NULL)
		return 0;
	if (cancel)
		load_cancel_flag = 1;
	if (bg->started)
		pthread_join(bg->th, NULL);
	load_bus_arm(0);
	size_t cancelled = 0;
	for (size_t i = 0; i < bg->c.njobs; i++) {
		load_job *j = &bg->c.jobs[i];
		cancelled += j->cancelled;
		if (j->rank != NULL && j->rank->loaded && !cancel)
			bg->nloaded++; /* not handed out: loaded all the same */
		rank_free(j->rank);
		rank_free(j->preview);
		/* the warnings of what was read (a cancelled read's are its own doing) */
		if (j->cancelled)
			msg_list_free(&j->warns_list);
		else
			msg_list_say(&j->warns_list);
	}
	if (getenv("TL_TEST_LOAD_DELAY_MS") != NULL)
		fprintf(stderr,
		        "tl: TL_TEST_LOAD_DELAY_MS: %zu of %zu ranks loaded, %zu cancelled\n",
		        bg->nloaded, bg->c.njobs, cancelled);
	cache_load_done(bg->c.cache);
	int rc = 0;
	if (bg->nloaded == 0 && cancelled == 0) {
		msg_error("%s: nothing could be loaded", bg->path);
		rc = 2;
	}
	load_cancel_flag = 0;
	free(bg->c.jobs);
	free(bg->path);
	free(bg);
	return rc;
}
