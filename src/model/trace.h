/* The in-memory trace: ranks, their tracks (lanes) and slices. Owns all memory of a loaded
 * profile; trace_free() releases everything. Times are int64_t ns on the profile's own clock
 * (epoch ns for Ascend). */
#ifndef TL_TRACE_H
#define TL_TRACE_H
#include <stddef.h>
#include <stdint.h>

#include "model/source.h"
#include "util/strpool.h"

/* What a lane shows. The order here is the order of lanes inside a rank group on screen. */
typedef enum tl_lane_kind {
	TL_LANE_STAGE,     /* derived RL stages */
	TL_LANE_STEP,      /* ProfilerStep (STEP_TIME) */
	TL_LANE_MSTX,      /* MSTX / record_function ranges and marks, per domain, on depth rows */
	TL_LANE_COMPUTE,   /* device compute kernels, per stream */
	TL_LANE_COMM,      /* communication ops, per group */
	TL_LANE_COMM_TASK, /* communication sub-tasks (HCCL small ops), per stream */
	TL_LANE_MEMCPY,    /* memcpy tasks, per stream */
	TL_LANE_MSTX_DEV,  /* device-side MSTX marker tasks, per stream */
	TL_LANE_OTHER,     /* sync and other device tasks, per stream */
	TL_LANE_OVERLAP,   /* derived: Computing, Communication, Communication(Not Overlapped),
	                      Free (key 0..3); built on demand by the analysis layer */
	TL_LANE_HOST,      /* host API (PyTorch / CANN), per thread; off by default */
	TL_LANE__COUNT
} tl_lane_kind;

const char *lane_kind_name(tl_lane_kind);

/* One slice: 16 bytes. `name` is a string id in the rank's pool. `dur` is its duration in ns
 * when below 2^31 (TL_DUR_LONG clear), else TL_DUR_LONG | the index of its end in its track's
 * `lend`: read the end through slice_end / track_end below, never from dur. The slice's row id
 * in its source (SQLite rowid, or event ordinal for JSON, to fetch details lazily) is its
 * track's `arg[k]` (track_arg). */
typedef struct tl_slice {
	int64_t start; /* ns */
	uint32_t dur;
	uint32_t name;
} tl_slice;

#define TL_DUR_LONG UINT32_C(0x80000000)

#define TL_NO_STEP UINT16_MAX

/* An interval, ns. end < start: none. */
typedef struct tl_span {
	int64_t start, end;
} tl_span;

/* The times the model holds: within +-(2^62 - 1) ns of the epoch (146 years), so that the
 * difference of any two fits in an int64. Loaders skip, and report, slices outside. */
#define TL_TIME_MAX ((INT64_C(1) << 62) - 1)
#define TL_TIME_MIN (-TL_TIME_MAX)
static inline int
tl_time_ok(int64_t t)
{
	return t >= TL_TIME_MIN && t <= TL_TIME_MAX;
}

struct tl_lod;

/* A run of equal step tags: slices at.. (to the next run's at, or the track's step_cover). */
typedef struct tl_step_run {
	uint32_t at;
	uint16_t step;
	uint16_t pad; /* 0 (the cache file's bytes) */
} tl_step_run;

typedef struct tl_track {
	tl_lane_kind kind;
	uint32_t label;  /* string id: "Stream 3", a group name, an MSTX domain */
	int64_t key;     /* stream id, group ordinal, ... (sort key inside the kind) */
	uint16_t depth;  /* level of nested ranges; 0 = outermost */
	uint16_t source; /* index into the rank's sources, for lazy details */
	tl_slice *v;     /* sorted by start, non-overlapping once the rank is finished */
	size_t n, cap;
	uint32_t *arg; /* per slice (cap of them): its row id in its source, UINT32_MAX none;
	                  NULL when no slice of the track has one (or the load keeps none) */
	int64_t *lend; /* the ends of the slices of 2^31 ns or longer (or ending before they
	                  start), each indexed by its slice's dur */
	size_t nlend, lendcap;
	/* The slices' step tags (step index by launch time, or TL_NO_STEP), read through
	 * track_step / tl_step_cursor. While the rank loads: step, one per slice (loaders push in
	 * any order). Once it is finished (rank_finish): the runs of equal tags in slice order,
	 * step NULL, as a lane's tags run long (slices are sorted by start and launch order follows
	 * it); step is kept only where the runs would take more. Slices from step_cover on are
	 * untagged. All NULL / 0 when the rank has fewer than two steps. */
	uint16_t *step;
	struct tl_step_run *step_runs; /* sorted by at, the first at 0 */
	size_t nstep_runs, step_cover;
	struct tl_lod *lod; /* level of detail (model/lod.h): busy time and longest slice of any
	                       run of slices; built by the query session (track_lod_build), or
	                       a stamped cache file's (checked when it was stamped) */
	struct tl_lod *lod_file; /* the one a cache file holds, not checked yet: track_lod_build
	                            checks it against the slices and adopts it, or builds one */
	tl_span *dev;            /* MSTX lanes, per slice: the device part of a range that carried a
	                            stream (its marker tasks, first start to last end), end < start when
	                            it has none; NULL when no slice of the track has one. The slice
	                            itself keeps the host call's times. */
	int user_ranges; /* a host lane of a trace without categories (torch's legacy exporter):
	                    its record_function ranges are not told apart from operators, so the
	                    stage and pipeline rules pick them out by name, as on MSTX lanes */
	int no_args;     /* its slices' row ids are not kept (tl_rank.args_keep) */
	int borrowed;    /* v, arg, lend, step, step_runs and dev are read-only memory the rank's
	                    backing owns (its mapped cache file): not freed; the first change
	                    copies them */
	int huge;        /* v, arg, step and dev, each once cap of them take 2 MiB or more, are
	                    xhuge_resize mappings (util/xalloc.h), not malloc'd: the lanes of a
	                    rank with huge_lanes (new ones only, never borrowed) */
} tl_track;

/* ---- the step tags ---- */

/* Whether t's slices carry step tags at all. */
static inline int
track_has_steps(const tl_track *t)
{
	return t->step != NULL || t->nstep_runs > 0;
}

/* The run of t holding slice k (k < t->step_cover, t has runs). */
size_t track_step_run_of(const tl_track *t, size_t k);

/* Slice k's step index, or TL_NO_STEP. A search: a walk over a lane uses tl_step_cursor. */
static inline uint16_t
track_step(const tl_track *t, size_t k)
{
	if (t->step != NULL)
		return t->step[k];
	if (k >= t->step_cover)
		return TL_NO_STEP;
	return t->step_runs[track_step_run_of(t, k)].step;
}

/* Follows a track's step runs for a walk by growing slice index: step_cursor_at costs a compare
 * per slice and a search only when the walk goes back. */
typedef struct tl_step_cursor {
	const tl_track *t;
	const uint16_t *tag; /* t->step: a tag per slice, no runs */
	size_t run;          /* the run holding lo.. hi */
	size_t lo, hi;       /* slices [lo, hi) have tag cur */
	uint16_t cur;
} tl_step_cursor;

static inline void
step_cursor_init(tl_step_cursor *c, const tl_track *t)
{
	*c = (tl_step_cursor){t, t->step, 0, 0, 0, TL_NO_STEP};
}

void step_cursor_seek(tl_step_cursor *c, size_t k);

static inline uint16_t
step_cursor_at(tl_step_cursor *c, size_t k)
{
	if (c->tag != NULL)
		return c->tag[k];
	if (k - c->lo >= c->hi - c->lo) /* outside [lo, hi) */
		step_cursor_seek(c, k);
	return c->cur;
}

/* The first slice of c's track at p or after that has tag step or starts at or after t1 (t->n
 * at most): runs of other tags are skipped whole, a search for t1 only inside the last. Inline
 * for the usual answer, p itself (the union of a step's lanes asks once a slice). */
size_t step_cursor_skip(tl_step_cursor *c, size_t p, uint16_t step, int64_t t1);

static inline size_t
step_cursor_next(tl_step_cursor *c, size_t p, uint16_t step, int64_t t1)
{
	if (p >= c->t->n || step_cursor_at(c, p) == step)
		return p;
	return step_cursor_skip(c, p, step, t1);
}

/* After step_cursor_next answered p: the end of the run of slices from p that are all of step
 * (p when slice p is not), so that a walk asks again only past it. */
static inline size_t
step_cursor_run_end(tl_step_cursor *c, size_t p, uint16_t step)
{
	if (p >= c->t->n || step_cursor_at(c, p) != step)
		return p;
	if (c->tag != NULL)
		return p + 1;
	return c->hi < c->t->n ? c->hi : c->t->n;
}

/* The first slice after k whose tag differs from k's (t->n at most), and the first slice of the
 * run of equal tags holding k: for skipping a run. */
size_t track_step_run_end(const tl_track *t, size_t k);
size_t track_step_run_start(const tl_track *t, size_t k);

/* Reading a track's slices goes through these, not tl_slice's fields (but start and name),
 * and changing one through track_set_times / track_set_arg: the slice's layout is the model's
 * to keep compact (the end held as a duration, the row id only where it is kept). s is one of
 * t's slices. */
static inline int64_t
slice_end(const tl_track *t, const tl_slice *s)
{
	if (s->dur & TL_DUR_LONG)
		return t->lend[s->dur & ~TL_DUR_LONG];
	return s->start + (int64_t)s->dur;
}

static inline int64_t
track_end(const tl_track *t, size_t k)
{
	return slice_end(t, &t->v[k]);
}

static inline int64_t
slice_dur(const tl_track *t, const tl_slice *s)
{
	if (s->dur & TL_DUR_LONG)
		return t->lend[s->dur & ~TL_DUR_LONG] - s->start;
	return (int64_t)s->dur;
}

static inline int64_t
track_dur(const tl_track *t, size_t k)
{
	return slice_dur(t, &t->v[k]);
}

/* Slice k's row id in its source (to fetch its details), UINT32_MAX when it has none or the
 * track keeps none. */
static inline uint32_t
track_arg(const tl_track *t, size_t k)
{
	return t->arg != NULL ? t->arg[k] : UINT32_MAX;
}

/* A slice outside a track (a loader's or an analysis's working copy): all of it spelled out. */
typedef struct tl_item {
	int64_t start, end;
	uint32_t name, arg;
} tl_item;

/* A lane whose ranges the stage, decode and pipeline rules read: MSTX / record_function
 * ranges, and the host lanes of traces that do not say which ranges are the user's. */
static inline int
track_user_ranges(const tl_track *t)
{
	return t->kind == TL_LANE_MSTX || t->user_ranges;
}

/* The times an analysis takes for slice k of an MSTX lane: where the range has a device part,
 * that part (the work it marks ran then; its host part only lasted as long as the asynchronous
 * launch), else the host times. Returns 1 for device times. */
static inline int
track_range_times(const tl_track *t, size_t k, int64_t *start, int64_t *end)
{
	if (t->dev != NULL && t->dev[k].end >= t->dev[k].start) {
		*start = t->dev[k].start;
		*end = t->dev[k].end;
		return 1;
	}
	*start = t->v[k].start;
	*end = track_end(t, k);
	return 0;
}

typedef struct tl_step {
	int64_t id;         /* N of ProfilerStep#N */
	int64_t start, end; /* ns, host framework range */
} tl_step;

/* A forward operator and the backward operator autograd ran for it (torch's fwdbwd link:
 * PYTORCH_API rows sharing a CONNECTION_IDS connectionId, or a "fwdbwd" flow in JSON). Host
 * times, ns. The pipeline view builds its blocks from these when a rank has no forward/backward
 * ranges. */
typedef struct tl_fwdbwd {
	int64_t fwd_start, fwd_end, bwd_start, bwd_end;
} tl_fwdbwd;

/* Host API lanes of Ascend DBs (TL_LANE_HOST, read on demand by load_host): one lane per
 * thread for PyTorch operators (PYTORCH_API) and one for CANN API calls (CANN_API), keyed by
 * TL_HOST_KEY(source, globalTid, cann) so that both kinds of one thread and the same thread of
 * two captures keep their own lanes, PyTorch before CANN. globalTid = pid << 32 | tid, with pid
 * below 2^22 on Linux: bits 54..61 hold the source index (capped at 255), bit 62 says CANN. */
#define TL_HOST_KEY_CANN (INT64_C(1) << 62)
#define TL_HOST_KEY(src, gtid, cann)                                                               \
	((int64_t)(((uint64_t)((src) > 255 ? 255 : (src)) << 54) |                                 \
	           ((uint64_t)(gtid) & ((UINT64_C(1) << 54) - 1))) |                               \
	 ((cann) ? TL_HOST_KEY_CANN : 0))

/* A launch: the CANN API call that launched device work (its connectionId on TASK rows) and
 * the start of the first compute or communication task it launched. ns. */
typedef struct tl_launch {
	int64_t host_start; /* CANN_API.startNs */
	int64_t dev_start;  /* min TASK.startNs of its compute / communication tasks */
} tl_launch;

/* A launch in 12 bytes, as the critical path reads a crossed rank's (load_launch_recs): the
 * host start, in two halves so that the record aligns to 4 and takes no padding, and the
 * device start's offset from it (TL_LAUNCH_REC_NONE: no work launched yet). */
typedef struct tl_launch_rec {
	uint32_t host_lo, host_hi;
	int32_t delay;
} tl_launch_rec;
#define TL_LAUNCH_REC_NONE INT32_MAX

static inline int64_t
launch_rec_host(const tl_launch_rec *x)
{
	return (int64_t)((uint64_t)x->host_hi << 32 | x->host_lo);
}

static inline void
launch_rec_set_host(tl_launch_rec *x, int64_t h)
{
	x->host_lo = (uint32_t)(uint64_t)h;
	x->host_hi = (uint32_t)((uint64_t)h >> 32);
}

/* The launch delays of one step (analysis/launch.h). */
typedef struct tl_launch_step {
	int64_t step_id;       /* STEP_TIME id; -1: launched outside every step (or no steps) */
	size_t launches;       /* launches (CANN calls with compute or communication tasks) */
	int64_t p50, p90, max; /* ns, nearest-rank percentiles of the launch delays */
	/* Device idle time of the step (the gaps between its merged compute and communication
	 * work: the overlap analysis's free) and the part of it during which the host had not yet
	 * started the launch of the work that ended the gap (host bound). have_idle 0: no device
	 * work of the step (or launched outside every step). ns. */
	int have_idle;
	int64_t idle, idle_host;
} tl_launch_step;

/* What launch_step_gaps (analysis/launch.h) reports, kept: a step with work (host 0: start and
 * end 0), or one of its device idle gaps [start, end) with a host-bound part (host > 0, ns). */
typedef struct tl_launch_gap {
	int64_t step, start, end, host;
} tl_launch_gap;

/* Counters: one value over time per thing measured (allocator totals, NPU memory, frequency),
 * read on demand by load_counters. A value holds from its sample until the next one. */
typedef enum tl_counter_kind {
	TL_CTR_ALLOCATED, /* MEMORY_RECORD.totalAllocated per component, bytes */
	TL_CTR_RESERVED,  /* MEMORY_RECORD.totalReserved per component, bytes */
	TL_CTR_ACTIVE,    /* MEMORY_RECORD.totalActive per component, bytes */
	TL_CTR_NPU_HBM,   /* NPU_MEM.hbm per type (app, device), bytes */
	TL_CTR_NPU_DDR,   /* NPU_MEM.ddr per type, bytes */
	TL_CTR_MODULE,    /* NPU_MODULE_MEM.totalReserved per module (ENUM_MODULE), bytes */
	TL_CTR_FREQ,      /* AICORE_FREQ.freq, MHz (only its changes are recorded) */
	TL_CTR_OTHER,     /* a trace's other counter (ph "C"): group "name [unit]", value in
	                   * thousandths of the unit */
	TL_CTR__COUNT
} tl_counter_kind;

typedef struct tl_counter {
	tl_counter_kind kind;
	uint32_t group;  /* string id: the component, NPU_MEM type, module; "" for frequency */
	uint16_t source; /* index into the rank's sources */
	int64_t *t, *v;  /* time (ns) and value of each sample, by time once the rank has them */
	size_t n, cap;
} tl_counter;

/* What a loader keeps of one of its sources after loading (a JSON file's event index, whether
 * the forward/backward pairs were read ...): opaque outside the loader, which gives the
 * function that frees it. */
typedef struct tl_srcstate {
	void *p;
	void (*free)(void *);
} tl_srcstate;

/* A rank's clock correction (model/clock.h): a time t its host wrote is
 * t - off - round(drift * (t - t0)) on the reference host's clock. on 0: none (the identity). */
typedef struct tl_clock {
	int on;
	int64_t off, t0; /* ns */
	double drift;    /* fraction (50 ppm: 5e-5) */
} tl_clock;

/* A rank's optional tables: what the operator, launch and communication analyses read,
 * gathered while loading when the load was asked for them (tl_load_opts.tables; one pass over
 * the tables the load reads anyway) or read from the model cache; absent (NULL, 0) when not:
 * the queries then read them from the profile on demand. Owned by the rank. One row a table:
 * its name and the function that frees it and leaves it absent (trace.c). Table NAME's bit in
 * a mask is 1u << TL_RANK_TABLE_NAME (load.h's TL_TABLE_ bits are these).
 *
 * Adding a table: a row here (at the end: the bits are load.h's and the cache file's), its
 * fields in tl_rank, its free function; what gathers it (load.c) and the model cache's reader
 * and writer. */
#define TL_RANK_TABLES(X)                                                                          \
	X(OPS, rank_ops_free)           /* ops */                                                  \
	X(LAUNCHES, rank_launches_free) /* launch_steps, launch_gaps */                            \
	X(COMM, rank_comm_free)         /* comm */

typedef enum tl_rank_table {
#define TL_RANK_TABLE_ENUM(name, free_fn) TL_RANK_TABLE_##name,
	TL_RANK_TABLES(TL_RANK_TABLE_ENUM)
#undef TL_RANK_TABLE_ENUM
	    TL_RANK_NTABLES
} tl_rank_table;

/* A rank: the model (its tracks, steps and string pool, what the views and analyses read);
 * what is read into it on demand, once; the optional tables (TL_RANK_TABLES); and the loader's
 * and the model cache's bookkeeping. */
typedef struct tl_rank {
	/* -- the model -- */
	int rank;
	tl_strpool *pool; /* owns every string of this rank */
	tl_track **tracks;
	size_t ntracks, tcap;
	tl_step *steps; /* sorted by start */
	size_t nsteps, scap;
	const tl_source **sources; /* borrowed from the trace's source list */
	size_t nsources;
	int64_t t_min, t_max; /* envelope of all slices; t_min > t_max when empty */
	char *role;           /* verl/MindSpeed-RL role directory of the capture, if any */
	char *host;           /* the host that wrote it (a DB's HOST_INFO), NULL unknown */
	tl_clock clock;       /* the correction applied to its times (model/clock.h) */
	int host_only;        /* its sources hold host events only (a CPU-only trace): no device
	                         work, communication from host collectives; set by the loader */
	int own_overlap;      /* its overlap lanes (TL_LANE_OVERLAP) are the profile's own (a
	                         DB's OVERLAP_ANALYSIS), not built from its slices: the overlap
	                         figures come from them, Free included; -1 while a rank of
	                         several captures loads: not taken */

	/* -- read on demand by the loader, once: host lanes (load_host, into the tracks),
	 * forward/backward pairs (load_fwdbwd), counters (load_counters) -- */
	int host_read;     /* load_host has run (host API lanes are read on demand, once) */
	tl_fwdbwd *fwdbwd; /* by forward start once the rank is finished */
	size_t nfwdbwd, fbcap;
	tl_counter **counters; /* read on demand (load_counters), by kind then group */
	size_t ncounters, ctrcap;
	int counters_read; /* load_counters has run */

	/* -- the optional tables (TL_RANK_TABLES) -- */
	struct tl_op_data *ops;       /* OPS: each group's durations sorted ascending */
	tl_launch_step *launch_steps; /* LAUNCHES: launch delays per step (launch_steps) */
	size_t nlaunch_steps;
	tl_launch_gap *launch_gaps; /* with launch_steps: launch_step_gaps', in its order */
	size_t nlaunch_gaps;
	int have_launch_steps;
	/* with them, where no source gathers launches while it is read (a JSON trace's are found
	 * on its lanes, again each time they are read): the gather's, by device start, for the
	 * critical path to pack unless the clock is on by then (they are on the profile's) */
	tl_launch *launch_dev;
	size_t nlaunch_dev;
	struct tl_comm_data *comm; /* COMM: ops by start, each op's tasks by start */

	/* -- the loader's bookkeeping -- */
	int64_t *src_t0, *src_t1; /* per source: envelope of the slices it loaded (t0 > t1: none);
	                             set by load_trace, NULL for ranks built otherwise */
	uint64_t rows;            /* rows read while loading (for progress and benchmarks) */
	int loaded;               /* at least one source loaded */
	tl_srcstate
	    *src_state; /* per source (nsrc_state of them), each set by its loader, or NULL */
	size_t nsrc_state;

	/* -- the model cache's -- */
	/* What borrowed tracks point into (the mapped cache file), released by backing_free after
	 * the tracks; NULL when nothing is borrowed. */
	void *backing;
	void (*backing_free)(void *);
	/* Gives backing's pages back to the kernel (they read again from the file on the next
	 * touch), or NULL when they cannot be (a mapping the rank wrote into: load_clock). */
	void (*backing_drop)(void *);
	unsigned args_keep; /* lane kinds (bits 1u << kind) whose new lanes keep their slices'
	                       row ids: all (~0u) but in a lean load (tl_load_opts.lean) */
	int spilled; /* backing is a file of this process's own, unlinked (the viewer's --no-cache:
	                store/cache.h, cache_spill_rank) */
	int huge_lanes; /* its new lanes' big per-slice arrays in huge pages (tl_track.huge): a
	                   loader's whose few lanes grow to millions of slices (JSON traces) */
} tl_rank;

/* One host's clock as the load found it (load_clock): its ranks share the correction. */
typedef enum tl_clock_how {
	TL_CLOCK_REFERENCE, /* the reference host (of the lowest rank): kept */
	TL_CLOCK_ESTIMATED, /* from the collectives it shares with hosts already aligned */
	TL_CLOCK_MANUAL,    /* --clock-offset HOST=NS */
	TL_CLOCK_KEPT,      /* no shared collective: kept, with a warning */
	TL_CLOCK_AGREES,    /* estimated, but within CLOCK_AGREE_NS all along: kept (clock.on 0) */
} tl_clock_how;

typedef struct tl_clock_host {
	char *name; /* owned */
	int *ranks; /* rank numbers, ascending; owned */
	size_t nranks;
	tl_clock_how how;
	tl_clock clock;      /* what its ranks were given */
	int64_t residual_ns; /* median |difference - fit| over the samples, 0 without */
	size_t samples;      /* collectives the estimate rests on */
	/* "a receive cannot end before its send began", over the P2P pairs between this host
	 * and the hosts aligned before it (analysis/clocksync.h): how many bound its clock, how
	 * many its correction breaks and by how much at most (ns), and whether the correction
	 * was moved into those bounds (a fit on too few collectives that broke them) */
	size_t p2p_pairs, p2p_broken;
	int64_t p2p_worst_ns;
	int p2p_moved;
} tl_clock_host;

/* A host's offset fixed by hand (--clock-offset HOST=NS): its clock is NS ahead. */
typedef struct tl_clock_fix {
	const char *host;
	int64_t off;
} tl_clock_fix;

typedef struct tl_trace {
	tl_rank **ranks; /* sorted by rank number */
	size_t nranks;
	tl_sourcelist sources;
	int64_t t_min, t_max;
	/* the hosts and their clocks when the ranks came from more than one host and the clocks
	 * were aligned (load_clock); nhosts 0: one host, or --clock raw */
	tl_clock_host *hosts;
	size_t nhosts;
} tl_trace;

tl_rank *rank_new(int rank);
void rank_free(tl_rank *);
/* Gives back the pages of r's mapped cache file that queries have touched (a batch command
 * done with a rank for now: its RSS falls, the next touch faults them back from the page
 * cache). Nothing for a rank without a file-backed mapping; the data stays valid. */
void rank_drop_pages(const tl_rank *r);
/* The optional tables' free functions (TL_RANK_TABLES). */
void rank_ops_free(tl_rank *);
void rank_launches_free(tl_rank *);
void rank_comm_free(tl_rank *);
/* Frees the optional tables of r whose bit (1u << TL_RANK_TABLE_*) keep lacks. */
void rank_drop_tables(tl_rank *, unsigned keep);
/* Gives a borrowed track (see tl_track.borrowed) arrays of its own; nothing when it has them. */
void track_own(tl_track *);
/* Get-or-create the depth-0 track of (kind, key). label is used when the track is created. */
tl_track *rank_track(tl_rank *, tl_lane_kind kind, int64_t key, const char *label);
void track_push(tl_track *, int64_t start, int64_t end, uint32_t name, uint32_t arg);
/* The same, tagging the slice with a step index (allocates the per-slice step array on first
 * use; a track holding runs turns them back into it). */
void track_push_step(tl_track *, int64_t start, int64_t end, uint32_t name, uint32_t arg,
                     uint16_t step);
/* Gives slice k of t its device part (allocates the array on first use). */
void track_set_dev(tl_track *, size_t k, int64_t start, int64_t end);
/* Gives slice k of t new times (owning the track's arrays first); keeping the track sorted by
 * start is the caller's. */
void track_set_times(tl_track *, size_t k, int64_t start, int64_t end);
/* Gives back the room of t's arrays beyond its slices (cap = n). */
void track_fit(tl_track *);
/* Gives slice k of t the row id arg. */
void track_set_arg(tl_track *, size_t k, uint32_t arg);
/* Frees the row ids of r's lanes but those of the kinds in keep (bits 1u << kind), for a load
 * whose readers need no others: 4 bytes a slice. */
void rank_drop_args(tl_rank *r, unsigned keep);
/* A forward/backward operator pair; the caller checks that the times are within TL_TIME_*. */
void rank_add_fwdbwd(tl_rank *, int64_t fwd_start, int64_t fwd_end, int64_t bwd_start,
                     int64_t bwd_end);
/* Gives source src (an index into r->sources) its loader's state; r frees it with free_fn (the
 * state it had before, too). */
void rank_set_source_state(tl_rank *, size_t src, void *state, void (*free_fn)(void *));
/* The loader's state of source src, or NULL. */
void *rank_source_state(const tl_rank *, size_t src);
/* Sorts the pairs by forward start (rank_finish does; for pairs added later). */
void rank_sort_fwdbwd(tl_rank *);
/* Sorts every track, splits overlapping slices into depth levels (nothing is dropped), orders
 * the tracks for display and computes the envelope. Call once all sources of the rank are in. */
void rank_finish(tl_rank *);
/* After tracks grew once the rank was finished (host lanes read on demand): sorts and splits
 * the tracks that got slices (before[i]: slice count of track i before; tracks from nbefore on
 * are new), drops empty ones, widens the envelope and puts the tracks back in display order. */
void rank_finish_grown(tl_rank *, const size_t *before, size_t nbefore);
/* Get-or-create the counter (kind, group, source); group is interned in r's pool. */
tl_counter *rank_counter(tl_rank *, tl_counter_kind kind, const char *group, uint16_t source);
void counter_push(tl_counter *, int64_t t, int64_t v);
/* Sorts the samples by time (stable: equal times keep their order). Returns how many samples
 * were found earlier than the one before them. */
size_t counter_sort(tl_counter *);
/* Sorts r's counters by kind, group name and source (after loading them). */
void rank_sort_counters(tl_rank *);
/* Index of the step that contains host time t, or TL_NO_STEP. */
uint16_t rank_step_at(const tl_rank *, int64_t t);
/* The same in any array of steps sorted by start: an index, or SIZE_MAX. */
size_t steps_index_at(const tl_step *v, size_t n, int64_t t);
/* As steps_index_at, for times asked mostly in order: *near is the count of steps starting at
 * or before the time asked before (0 at first), searched again only when t is not in the same
 * place, and updated. */
size_t steps_index_near(const tl_step *v, size_t n, int64_t t, size_t *near);
/* A source's steps (sorted here by start) join r's steps and its step lane; *base is the
 * index of v[0] among r's steps. -1 (nothing added) when r would have more than
 * TL_NO_STEP - 1 steps. */
int rank_add_steps(tl_rank *, tl_step *v, size_t n, size_t *base);

/* The level of detail (model/lod.h), built on first call (not thread-safe against itself). */
void track_lod_build(tl_track *);
/* First slice index whose end > t (slices sorted and non-overlapping, so ends are sorted). */
size_t track_first_ending_after(const tl_track *, int64_t t);
/* The same index, searched outward from `from` (galloping, then a binary search): for callers
 * whose t moves little from one call to the next, passing the last answer. */
size_t track_first_ending_after_from(const tl_track *, int64_t t, size_t from);
/* First slice index whose start >= t. */
size_t track_first_starting_at(const tl_track *, int64_t t);

void trace_init(tl_trace *);
/* A trace of the one rank r, loaded and finished (the trace owns it from now on; its times
 * r's): a single file's model, as the fuzz targets and tests build it. */
void trace_init_rank(tl_trace *tr, tl_rank *r);
void trace_free(tl_trace *);
/* rank_drop_pages of every rank. */
void trace_drop_pages(const tl_trace *);
/* The index in tr->ranks of the first rank numbered rank, or SIZE_MAX. */
size_t trace_rank_index(const tl_trace *tr, int rank);
/* Bytes held by slices, step tags and levels of detail of all ranks, those of a mapped cache
 * file left out, and in *nslices the slices loaded (the derived overlap lanes left out); for
 * benchmarks. */
size_t trace_slice_bytes(const tl_trace *, size_t *nslices);

#endif
