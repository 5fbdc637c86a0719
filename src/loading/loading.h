/* Loading: discovered sources -> the model. Ranks load in parallel, one job per rank (all
 * captures of a rank go into the same tl_rank, so they share its string pool and merge on its
 * timeline), each read from the model cache or by its loaders (load/load.h), what the command
 * asked for gathered beside it, then stored in the cache. Above the readers, the store and the
 * analyses: the driver calls all three. */
#ifndef TL_LOADING_H
#define TL_LOADING_H
#include "load/load.h"

/* Before a rank's first source: g asks for tables (r->ops made for the operators). After its
 * last (the rank finished): what g gathered becomes r's tables (ops, launch_steps), and the
 * tables the loaders read with a connection of their own (comm, counters) are read now, while
 * the rank's files are in the page cache. Nothing is kept when a source could not give its
 * part (g->failed): the queries then read on demand, as without. */
void load_gather_begin(tl_rank *r, tl_gather *g, unsigned tables);
void load_gather_end(tl_rank *r, tl_gather *g);
/* Frees r's gathered tables outside `keep` (TL_TABLE_*; counters stay: they are the rank's
 * own, read once). */
void load_drop_tables(tl_rank *r, unsigned keep);

/* One clock for the cluster (load_clock.c): groups tr's ranks by host (a DB's HOST_INFO, else
 * the capture directory's {host}_{pid}_{time}_ascend_pt, else a host of its own; when nothing
 * names any rank's host, one host: the profile does not say its ranks are apart), estimates
 * each host's clock against the host of the lowest rank from the collectives they share
 * (analysis/clocksync.h), moves every rank onto it (model/clock.h) and records the hosts in
 * tr->hosts; says in one warning each which host kept its clock and which --clock-offset named
 * no host. Nothing when the ranks share one host. load_trace calls it unless o->clock_raw.
 * cache (NULL: none): the model cache, which keeps the estimate under the ranks' keys, the
 * ranks loaded and fix, so that a warm load reads it instead of computing it. */
struct tl_cache;
void load_clock(tl_trace *tr, const tl_clock_fix *fix, size_t nfix, struct tl_cache *cache);
/* The time load_clock took so far in this process, ns (`make bench`). */
uint64_t load_clock_ns(void);
/* The CPU time (user and system, all threads) of the process meanwhile, ns. */
uint64_t load_clock_cpu_ns(void);
/* How many times it read the estimate the model cache kept instead of computing it. */
uint64_t load_clock_kept(void);
/* The host part of a capture directory's name ({host}_{pid}_{time}_ascend_pt), or NULL. */
char *load_dir_host(const char *dir);
/* The host part of a PyTorch profiler trace's name as torch's tensorboard_trace_handler writes
 * it ({host}_{pid}.{time}.pt.trace.json[.gz]), or NULL. */
char *load_file_host(const char *path);
/* Whether the sources come from more than one host, as load_clock will group them (a DB's
 * HOST_INFO read here: one open of each DB until a second host is seen); the same for the
 * sources discovery finds under path. For `tl info` and the viewer, before loading. */
int load_sources_multi_host(const tl_sourcelist *);
int load_path_multi_host(const char *path, const tl_rankset *ranks);

typedef struct tl_load_opts {
	const tl_rankset *ranks; /* NULL = all */
	int threads;             /* 0 = number of cores */
	int quiet_progress;
	int view; /* for the viewer, which needs more memory per slice */
	int lean; /* nothing will read the slices' row ids (tl_track.arg) but the communication
	             and step lanes' (the summary, triage and diff): the others are dropped as
	             each rank is read, unless a cache file is written (the viewer reads it) */
	struct tl_cache *cache; /* the model cache (store/cache.h), NULL: none; a spilling one
	                           (cache_open_spill) only writes ranks to unnamed files */
	unsigned tables;        /* TL_TABLE_* to gather while loading (all when the cache is
	                           written: a cache file then serves every command) */
	/* the hosts' clocks (load_clock): clock_raw keeps every rank's own; clock_fix (nfix)
	 * fixes hosts' offsets by hand */
	int clock_raw;
	const tl_clock_fix *clock_fix;
	size_t nclock_fix;
	/* a rank mapped back from the cache file just written gives back the pages of it its
	 * decoding touched (rank_drop_pages): a command that reads the ranks once they are loaded
	 * (query.h's release_pages) touches again what it reads, and kept they added up over the
	 * load, ~4.5 MB a rank of 1 M tasks */
	int release_pages;
	/* progressive (load_trace_start) */
	int defer_warnings; /* the loaders' warnings wait for load_bg_finish (a screen is up) */
	void (*prepare)(tl_rank *, void *ctx); /* on the loader's thread, for each rank loaded,
	                                          before it is handed out */
	void *prepare_ctx;
} tl_load_opts;

/* Discovers and loads PATH into tr. Returns 0 when at least one rank loaded, 2 when nothing
 * could be loaded (messages printed), 1 when the path itself is unusable. */
int load_trace(const char *path, const tl_load_opts *, tl_trace *tr);

/* Progressive loading, for the viewer: discovery and the memory check as load_trace (same
 * status), then the ranks load on threads of their own while the caller goes on; tr has its
 * sources and no ranks. The caller (one thread) takes each job's ranks with load_bg_take and
 * adds them to tr itself; load_bg_finish waits for the threads (cancel: stops
 * them first, abandoning what they read), frees what was not taken, prints the deferred
 * warnings and returns 2 when nothing could be loaded (and nothing was cancelled).
 * The test hook TL_TEST_LOAD_DELAY_MS=MS[:FROM] makes ranks FROM and later (0: all, in rank
 * order) wait MS ms before they start; load_bg_finish then prints how many were loaded. */
typedef struct tl_load_bg tl_load_bg;
enum { TL_LOAD_WAITING, TL_LOAD_HELD, TL_LOAD_LOADING, TL_LOAD_DONE };
int load_trace_start(const char *path, const tl_load_opts *, tl_trace *tr, tl_load_bg **out);
/* Ranks (jobs) in all; job i's rank number, rows read so far and state (TL_LOAD_*). */
size_t load_bg_jobs(const tl_load_bg *);
int load_bg_job(const tl_load_bg *, size_t i, int *rank, uint64_t *rows);
/* Jobs finished (loaded, failed or cancelled). */
size_t load_bg_done(const tl_load_bg *);
/* 1 when every job is finished or held by the test hook (script mode waits for it). */
int load_bg_settled(const tl_load_bg *);
/* 1 when every job's first pass (its small tables, or its whole rank from the cache) is done. */
int load_bg_first_settled(const tl_load_bg *);
/* What job i has for the caller that it has not had yet: TL_TAKE_PREVIEW, *out a rank with
 * only the small tables (steps, MSTX ranges, communication ops: the first pass every job makes
 * before any job's full read), TL_TAKE_FULL, *out the rank, TL_TAKE_GONE (it failed or was
 * cancelled: nothing more comes), or TL_TAKE_NONE. A preview may be skipped when the full rank
 * is in first; the ranks handed out are the caller's. */
enum { TL_TAKE_NONE, TL_TAKE_PREVIEW, TL_TAKE_FULL, TL_TAKE_GONE };
int load_bg_take(tl_load_bg *, size_t i, tl_rank **out);
/* 1 while a job's full rank (or its end) is still to come out of load_bg_take. */
int load_bg_pending(const tl_load_bg *);
int load_bg_finish(tl_load_bg *, int cancel);
#endif
