/* The load's driver: discovery, the memory check, one job per rank on the threads (load_trace;
 * load_bg.c the same in the background), each rank read from the model cache or by its loaders,
 * gathered (gather.c), stored in the cache and mapped back. */
#include "config.h"
#include "store/cache.h"
#include "analysis/lanes.h"
#include "loading/load_jobs.h"
#include "model/clock.h"
#include "profile/discover.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/phases.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#if defined(__GLIBC__)
#include <malloc.h>
/* clang says AddressSanitizer through __has_feature, gcc through __SANITIZE_ADDRESS__ */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TL_HAS_ASAN 1
#endif
#endif
#ifndef TL_HAS_ASAN
#define TL_HAS_ASAN 0
#endif
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *
bus_message(const char *path)
{
	char p[1024];
	return xasprintf("tl: %s: the file shrank while tl was reading it (truncated or rewritten "
	                 "by another program); stopped\n",
	                 text_sanitize(path, p, sizeof p, 1));
}

/* Envelope of the slices added to r since the track lengths were `before` (tracks keep their
 * order while loading; new tracks start empty). The RL stage analysis needs it: a discrete-mode
 * capture without stage ranges is one stage from its start to its end. */
static void
source_span(const tl_rank *r, const size_t *before, size_t nbefore, int64_t *t0, int64_t *t1)
{
	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		for (size_t k = i < nbefore ? before[i] : 0; k < t->n; k++) {
			if (t->v[k].start < *t0)
				*t0 = t->v[k].start;
			if (track_end(t, k) > *t1)
				*t1 = track_end(t, k);
		}
	}
}

/* Hands the heap's free pages back to the system. glibc keeps what a thread frees in that
 * thread's arena for its next allocations, and those pages still count as the process's
 * anonymous memory: a rank replaced by its mapped cache file would otherwise go on costing what
 * its model cost until another rank happened to reuse the pages. The viewer's only: it stays
 * open beside everything else on the host, and the pages handed back cost CPU time when they
 * are touched again (8 x 1M ranks written by tl summary: ~3 s of ~15), which tl summary and tl
 * index, done in seconds, need not pay. */
static void
heap_give_back(void)
{
	/* not under AddressSanitizer: its allocator replaces glibc's, whose malloc_trim then walks
	 * an arena that was never set up (a SEGV) */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !TL_HAS_ASAN
	malloc_trim(0);
#endif
}

static void
drop_inputs(const load_ctx *c, const load_job *j)
{
	for (size_t i = 0; i < j->count; i++)
		load_drop_input(c->tr->sources.v[j->first + i].path);
}

/* Where this thread's warnings go between the cache's capture: the job's list when the load
 * is progressive, else stderr only. */
void
load_job_capture(load_ctx *c, load_job *j)
{
	if (c->defer)
		msg_capture(msg_keep, &j->warns_list);
	else
		msg_capture(NULL, NULL);
}

static tl_rank *
load_rank(load_ctx *c, load_job *j)
{
	const tl_source *first = &c->tr->sources.v[j->first];
	tl_phase_mark pm;
	phase_begin(&pm, 0);
	tl_rank *r = cache_load_rank(c->cache, first, j->count, c->keep);
	if (r != NULL) {
		load_drop_tables(r, c->keep);
		phase_end(&pm, TL_PHASE_READ, 0);
		return r;
	}
	warn_list warns = {0};
	if (c->cache != NULL)
		msg_capture(msg_keep, &warns);
	r = rank_new(first->rank);
	r->sources = xreallocarray(NULL, j->count, sizeof *r->sources);
	r->src_t0 = xreallocarray(NULL, j->count, sizeof *r->src_t0);
	r->src_t1 = xreallocarray(NULL, j->count, sizeof *r->src_t1);
	tl_gather g;
	load_gather_begin(r, &g, c->tables);
	size_t *before = NULL, nbefore = 0, bcap = 0;
	/* a profile's own overlap analysis (a DB's OVERLAP_ANALYSIS) answers for its own capture
	 * only: a rank of several captures has its overlap from all of their work */
	if (j->count > 1)
		r->own_overlap = -1;
	if (c->lean) { /* row ids: the summary's lanes', and what the loaders read back */
		r->args_keep = 1u << TL_LANE_COMM | 1u << TL_LANE_STEP;
		for (size_t i = 0; i < j->count; i++) {
			const tl_loader *ld = loader_for(c->tr->sources.v[j->first + i].kind);
			r->args_keep |= ld != NULL ? ld->args_read : 0;
		}
	}
	for (size_t i = 0; i < j->count; i++) {
		const tl_source *src = &c->tr->sources.v[j->first + i];
		r->src_t0[r->nsources] = INT64_MAX;
		r->src_t1[r->nsources] = INT64_MIN;
		if (j->count > 1) { /* one source: its envelope is the rank's (below) */
			nbefore = 0;
			for (size_t k = 0; k < r->ntracks; k++)
				VEC_PUSH(before, nbefore, bcap, r->tracks[k]->n);
		}
		r->sources[r->nsources++] = src;
		if (src->role != NULL && r->role == NULL)
			r->role = xstrdup(src->role);
		const tl_loader *ld = loader_for(src->kind);
		if (ld == NULL) {
			msg_warn(src->path, "%s input is not supported yet; skipped",
			         source_kind_name(src->kind));
			continue;
		}
		char *line = bus_message(src->path);
		load_bus_say(line);
		if (ld->load(src, r, &g) == 0)
			r->loaded = 1;
		else
			g.failed = 1;
		load_bus_say(NULL);
		free(line);
		if (j->count > 1)
			source_span(r, before, nbefore, &r->src_t0[i], &r->src_t1[i]);
	}
	free(before);
	if (r->own_overlap < 0)
		r->own_overlap = 0;
	rank_finish(r);
	if (j->count == 1) {
		r->src_t0[0] = r->t_min;
		r->src_t1[0] = r->t_max;
	}
	phase_end(&pm, TL_PHASE_READ, 0);
	phase_begin(&pm, 0);
	load_gather_end(r, &g);
	if (c->lean)
		rank_drop_args(r, 1u << TL_LANE_COMM | 1u << TL_LANE_STEP);
	phase_end(&pm, TL_PHASE_GATHER, 0);
	if (c->cache != NULL) {
		phase_begin(&pm, 0);
		load_job_capture(c, j);
		/* a cancelled load read part of the rank: never a cache file. The file holds the
		 * overlap lanes too, so that a warm viewer maps them; and the rank written is
		 * mapped back: its lanes become file-backed pages, so that a cold open holds in
		 * anonymous memory only the ranks still loading */
		int wrote = 0;
		tl_rank *m = NULL;
		/* a rank in its file's making holds its model and its overlap lanes at once (at 1
		 * M tasks 65-70 MiB anonymous, where its read tops at 50-57): two of them at the
		 * same moment made the peak up to 12 MB higher, as the threads' timing fell. The
		 * viewer shows each rank as it is done: not held back */
		if (!c->view)
			pthread_mutex_lock(&c->store_lock);
		if (!load_cancel_flag) {
			if (cache_will_write(c->cache)) {
				/* the reader's scratch (launch tables, SQLite's pages) is free
				 * now but still resident: hand it back before the lanes, the
				 * largest part of the file, are made beside the rank */
				if (c->view)
					heap_give_back();
				lanes_build_rank(r);
			}
			/* --no-cache in the viewer: the same file, but one of this process's
			 * own that no name reaches, mapped back the same way */
			if (c->cache->spill) {
				/* a loader that reads its counters with the slices (a JSON
				 * trace's) leaves them unmarked, and a file holds counters only
				 * once load_counters has run (a cache file: its tables) */
				if (r->ncounters > 0)
					load_counters(r);
				m = cache_spill_rank(c->cache, first, j->count, r);
			} else {
				wrote = cache_store_rank(c->cache, first, j->count, r, warns.v,
				                         warns.n / 2);
			}
		}
		for (size_t i = 0; i < warns.n; i++) {
			if (c->defer) /* the same lines, for load_bg_finish */
				VEC_PUSH(j->warns_list.v, j->warns_list.n, j->warns_list.cap,
				         warns.v[i]);
			else
				free(warns.v[i]);
		}
		free(warns.v);
		if (wrote)
			m = cache_remap_rank(c->cache, first, j->count);
		if (m != NULL) {
			rank_free(r);
			r = m;
			drop_inputs(c, j);
			if (c->release_pages)
				rank_drop_pages(r);
		}
		if (!c->view)
			pthread_mutex_unlock(&c->store_lock);
		load_drop_tables(r, c->keep);
		if (m != NULL && c->view)
			heap_give_back();
		phase_end(&pm, TL_PHASE_CACHE, 0);
	}
	return r;
}

/* The test hook's wait: up to ms, less when the load is cancelled. */
void
load_hold(long ms)
{
	for (long t = 0; t < ms && !load_cancel_flag; t += 5)
		usleep(5000);
}

void
load_one(load_ctx *c, size_t i)
{
	load_job *j = &c->jobs[i];
	if (c->delay_ms > 0 && i >= c->delay_from) {
		j->state = JOB_HELD;
		load_hold(c->delay_ms);
	}
	if (load_cancel_flag) {
		j->cancelled = 1;
		j->state = JOB_DONE;
		return;
	}
	j->state = JOB_LOADING;
	msg_progress_rows_to(&j->rows);
	msg_hold(c->defer);
	load_job_capture(c, j);
	tl_rank *r = load_rank(c, j);
	if (r->loaded && c->prepare != NULL && !load_cancel_flag)
		c->prepare(r, c->prepare_ctx);
	msg_capture(NULL, NULL);
	msg_hold(0);
	msg_progress_rows_to(NULL);
	if (load_cancel_flag) {
		rank_free(r);
		r = NULL;
		j->cancelled = 1;
	}
	j->rank = r;
	msg_progress_add(1, 0);
	j->state = JOB_DONE;
}

static void
load_item(void *arg, size_t i)
{
	load_one(arg, i);
}

/* Jobs by rank, then source order (unknown ranks, -1, first): stable, and the list is nearly
 * sorted already (discovery sorts by rank), so an insertion sort. */
static void
sort_jobs(load_job *v, size_t n, const tl_sourcelist *sl)
{
	for (size_t i = 1; i < n; i++) {
		load_job t = v[i];
		size_t k = i;
		while (k > 0 && sl->v[v[k - 1].first].rank > sl->v[t.first].rank) {
			v[k] = v[k - 1];
			k--;
		}
		v[k] = t;
	}
}

/* For the memory check: how many ranks are read at once when each is replaced by its cache
 * file as soon as it is read (parallel_for's threads), or 0 when every rank's model stays. */
static size_t
ranks_at_once(const tl_cache *cache, const tl_load_opts *o)
{
	if (!cache_will_write(cache))
		return 0;
	int threads = o ? o->threads : 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	return threads > 0 ? (size_t)threads : (size_t)(ncpu > 0 ? ncpu : 1);
}

/* Several runs under one path are never merged: each is named, and the user asked for one.
 * Returns 0 for one run, -1 after the message. */
static int
load_one_run(const char *path, const tl_sourcelist *sl)
{
	int *run_of = xcalloc(sl->n ? sl->n : 1, sizeof *run_of);
	int n = discover_runs(sl, run_of);
	if (n > 1) {
		msg_error("%s holds %d runs, not one job: give tl the path of one of them", path,
		          n);
		for (int r = 0; r < n; r++) {
			char line[1024], safe[1024];
			discover_run_describe(sl, run_of, r, line, sizeof line);
			fprintf(stderr, "  %s\n", text_sanitize(line, safe, sizeof safe, 1));
		}
	}
	free(run_of);
	return n > 1 ? -1 : 0;
}

/* Discovery, the memory check and one job per rank, in rank order (the order the viewer
 * publishes them in). Returns 0, or load_trace's status after its message. */
int
load_setup(const char *path, const tl_load_opts *o, tl_trace *tr, load_ctx *c)
{
	trace_init(tr);
	memset(c, 0, sizeof *c);
	if (discover(path, o ? o->ranks : NULL, &tr->sources) != 0)
		return 1;
	if (tr->sources.n == 0) {
		msg_error(
		    "%s: no profile data found (looked for *_ascend_pt/ASCEND_PROFILER_OUTPUT, "
		    "PROF_*/msprof_*.db, trace_view.json and Chrome/Kineto traces)",
		    path);
		return 2;
	}
	if (load_one_run(path, &tr->sources) != 0)
		return 2;
	c->cache = o ? o->cache : NULL;
	c->view = o ? o->view : 0;
	c->release_pages = o ? o->release_pages : 0;
	c->store_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	c->lean = o && o->lean && !o->view && !cache_will_write(c->cache);
	if (load_memcheck(path, &tr->sources, o ? o->view : 0, ranks_at_once(c->cache, o)) != 0)
		return 2;
	/* one job per rank; sources of unknown rank (-1) each get their own job */
	c->tr = tr;
	c->keep = o ? o->tables : 0;
	c->tables = c->keep;
	/* a file others will read holds every table; a spilled one only what this load keeps */
	if (cache_will_write(c->cache) && !c->cache->spill)
		c->tables = TL_TABLE_ALL;
	/* the operators' starts: a drifting clock moves each duration by where it starts, and
	 * only ranks of several hosts are given one (load_clock) */
	if ((c->tables & TL_TABLE_OPS) && !(c->tables & TL_TABLE_OP_STARTS) &&
	    load_sources_multi_host(&tr->sources))
		c->tables = (c->tables | TL_TABLE_OP_STARTS) & ~(unsigned)TL_TABLE_OP_TOTALS;
	size_t cap = 0;
	for (size_t i = 0; i < tr->sources.n;) {
		size_t k = i + 1;
		if (tr->sources.v[i].rank >= 0)
			while (k < tr->sources.n && tr->sources.v[k].rank == tr->sources.v[i].rank)
				k++;
		load_job j = {.first = i, .count = k - i};
		VEC_PUSH(c->jobs, c->njobs, cap, j);
		i = k;
	}
	sort_jobs(c->jobs, c->njobs, &tr->sources);
	return 0;
}

static void
add_rank(tl_trace *tr, tl_rank *r, size_t *rcap)
{
	VEC_PUSH(tr->ranks, tr->nranks, *rcap, r);
	if (r->t_min < tr->t_min)
		tr->t_min = r->t_min;
	if (r->t_max > tr->t_max)
		tr->t_max = r->t_max;
}

int
load_trace(const char *path, const tl_load_opts *o, tl_trace *tr)
{
	load_ctx c;
	tl_phase_mark pm;
	phase_begin(&pm, 0);
	int rc = load_setup(path, o, tr, &c);
	phase_end(&pm, TL_PHASE_OPEN, 0);
	if (rc != 0)
		return rc;
	if (!(o && o->quiet_progress))
		msg_progress_start((int)c.njobs);
	load_bus_arm(1);
	phase_begin(&pm, 1);
	parallel_for(c.njobs, o ? o->threads : 0, load_item, &c);
	phase_end(&pm, TL_PHASE_LOAD, 1);
	load_bus_arm(0);
	msg_progress_end();

	size_t rcap = 0;
	for (size_t i = 0; i < c.njobs; i++) {
		tl_rank *r = c.jobs[i].rank;
		if (!r->loaded) {
			rank_free(r);
			continue;
		}
		add_rank(tr, r, &rcap);
	}
	free(c.jobs);
	cache_load_done(c.cache);
	if (tr->nranks == 0) {
		msg_error("%s: nothing could be loaded", path);
		return 2;
	}
	if (!(o != NULL && o->clock_raw)) { /* before any analysis compares two ranks' times */
		phase_begin(&pm, 0);
		load_clock(tr, o != NULL ? o->clock_fix : NULL, o != NULL ? o->nclock_fix : 0,
		           c.cache);
		phase_end(&pm, TL_PHASE_CLOCK, 0);
	}
	return 0;
}
