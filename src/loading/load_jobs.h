/* Inside load.c and load_bg.c: a load's jobs (one per rank) and what the progressive load
 * (load_bg.c) shares with load_trace (load.c). */
#ifndef TL_LOAD_JOBS_H
#define TL_LOAD_JOBS_H
#include <pthread.h>

#include "store/cache.h"
#include "loading/loading.h"
#include "util/msg.h"

/* A rank's load warnings, path/text pairs, for its cache file (msg_keep adds them). */
typedef msg_list warn_list;

/* What a job is doing, for the viewer's progress (load_bg_job). */
enum { JOB_WAITING, JOB_HELD, JOB_LOADING, JOB_DONE };

typedef struct load_job {
	size_t first, count; /* range in the source list */
	tl_rank *rank;       /* NULL when cancelled */
	_Atomic int state;   /* JOB_*: DONE is stored last, once rank and warns are set */
	_Atomic uint64_t rows;
	warn_list warns_list; /* progressive: its warnings, kept for load_bg_finish */
	int cancelled;        /* the load was cancelled before this job finished */
	/* progressive: the first pass (load_first_pass) and what load_bg_take handed out */
	_Atomic int first_done; /* set last, once preview (or the cached rank) is set */
	tl_rank *preview;       /* the small tables only, NULL when none */
	int taken;              /* TL_TAKE_* last handed out */
} load_job;

typedef struct load_ctx {
	tl_trace *tr;
	load_job *jobs;
	size_t njobs;
	tl_cache *cache;
	unsigned tables; /* TL_TABLE_* to gather: what the command asked for, and all of them
	                    when the cache is written (a file then serves every command) */
	unsigned keep;   /* TL_TABLE_* the command asked for: the others are dropped once a
	                    rank is in the cache */
	/* progressive (load_trace_start) */
	int view;  /* the viewer's load: freed heap pages go back to the system (heap_give_back) */
	int lean;  /* tl_load_opts.lean, and no cache file written */
	int defer; /* keep each job's warnings for load_bg_finish (the screen is the viewer's) */
	void (*prepare)(tl_rank *, void *);
	void *prepare_ctx;
	long delay_ms; /* the test hook TL_TEST_LOAD_DELAY_MS=MS[:FROM] */
	size_t delay_from;
	/* tl_load_opts.release_pages */
	int release_pages;
	/* held by a rank from its overlap lanes to its mapping back (load_rank), but in the
	 * viewer's load (view): one rank at a time holds its model, its lanes and its file */
	pthread_mutex_t store_lock;
} load_ctx;

/* Discovery, the memory check and one job per rank, in rank order (the order the viewer
 * shows them in). Returns 0, or load_trace's status after its message. */
int load_setup(const char *path, const tl_load_opts *o, tl_trace *tr, load_ctx *c);
/* Job i's full read (the test hook's hold first), on the calling thread. */
void load_one(load_ctx *c, size_t i);
/* Where this thread's warnings go: job j's list when the load is progressive, else stderr. */
void load_job_capture(load_ctx *c, load_job *j);
/* The test hook's wait: up to ms, less when the load is cancelled. */
void load_hold(long ms);

#endif
