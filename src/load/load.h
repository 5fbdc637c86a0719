/* The readers: one tl_loader per input format (load/ascend/, load/json/), the only code that
 * reads a profile's files, and what the code above them asks of a source through the loaders'
 * hooks (hooks.c). Which ranks load when, the model cache and the gathering are above them
 * (loading/loading.h, store/cache.h). */
#ifndef TL_LOAD_H
#define TL_LOAD_H
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "model/comm.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/trace.h"
#include "model/source.h"
#include "util/rankspec.h"

/* One end of a host <-> device link, as its source names it: a slice to find on the rank's lanes
 * of the kinds in `kinds` (bit 1 << tl_lane_kind) from source `source`, starting at `start`;
 * `arg` (the slice's row id or event ordinal) and `key` (its track key) narrow it down unless
 * UINT32_MAX / INT64_MIN. cann: 1 only CANN host lanes, 0 only the others, -1 either. With
 * `within`, an end may lie inside its slice (a flow bound to its enclosing slice): the
 * innermost slice containing `start` then. */
typedef struct tl_link_end {
	uint32_t kinds;
	uint16_t source;
	int8_t cann;
	int8_t within;
	uint32_t arg;
	int64_t key;
	int64_t start;
} tl_link_end;

/* What a link query asks: the calls that launched a slice (a device task's CANN launch call
 * then its PyTorch operator, innermost first; a CANN call's PyTorch operator), or the device
 * work a host call launched (an operator's or a CANN call's tasks, by start). */
typedef enum tl_link_dir { TL_LINK_LAUNCHER, TL_LINK_KERNELS } tl_link_dir;

/* A rank's link index (load_link_index, below). */
typedef struct tl_link_index tl_link_index;

/* Tables a load gathers besides the model, for the analyses that would otherwise read them from
 * the profile again on demand (tl_rank: ops, launch_steps, comm). */
enum {
	TL_TABLE_OPS = 1,      /* compute operators with every task's duration (load_ops) */
	TL_TABLE_LAUNCHES = 2, /* launch delays per step (load_launches, launch_steps) */
	TL_TABLE_COMM = 4,     /* communication ops with their HCCL sub-tasks (load_comm) */
	TL_TABLE_COUNTERS = 8, /* memory and frequency counters (load_counters) */
	/* with TL_TABLE_OPS, each task's start beside its duration (a time window's operators:
	 * the viewer's and tl query's); without it the starts are not kept, a third of the
	 * table's memory (half of its bytes per task), unless the hosts' clocks may drift (a
	 * drift moves each duration by where its task starts) */
	TL_TABLE_OP_STARTS = 16,
	TL_TABLE_ALL = 31,
	/* with TL_TABLE_OPS and without TL_TABLE_OP_STARTS, each operator's task count and total
	 * duration only, not every task's duration (tl summary's text: its findings' aicpu_op);
	 * a load that writes the model cache, or whose clocks may drift, keeps the durations.
	 * Not in TL_TABLE_ALL: it takes from a table, not adds one */
	TL_TABLE_OP_TOTALS = 32
};

/* What one load of a rank gathers: the loaders fill it while they read their tables anyway. */
typedef struct tl_gather {
	unsigned tables;     /* TL_TABLE_* asked for */
	tl_launch *launches; /* TL_TABLE_LAUNCHES: every source's launches, unsorted */
	size_t nlaunches, lcap;
	int failed; /* a source could not give what was asked: the rank gathers nothing */
} tl_gather;

/* The fields of a slice's event or row, one call per field; values untrusted. */
typedef void (*load_arg_fn)(void *ctx, const char *key, const char *value);

/* The host calls that launched a device item (a DB's CANN_API row with the task's connectionId,
 * and the PyTorch rows linked to that connectionId), as the loader's links hook reads them. */
typedef struct tl_launcher {
	int have_cann; /* the CANN_API row of the task's connectionId exists */
	int64_t cann_start, cann_end;
	char cann_name[128];
	int64_t task_start;
	int64_t delay; /* task_start - cann_start, ns */
	size_t nops;   /* PYTORCH_API rows linked to the connectionId */
	int have_op;   /* the innermost of them (operators before queue rows) */
	int64_t op_start, op_end;
	uint32_t op_row; /* its PYTORCH_API rowid */
	char op_name[128];
	/* the operator's Python call stack (with_stack captures), innermost frame first,
	 * "file.py(line): function"; at most TL_LAUNCH_FRAMES of its op_nframes frames */
	int op_nframes;
	char op_frames[8][192];
} tl_launcher;
#define TL_LAUNCH_FRAMES 8

/* A device task a host operator launched. */
typedef struct tl_kernel {
	uint32_t task_row; /* TASK rowid */
	int64_t start, end;
} tl_kernel;

/* An allocation of OP_MEMORY (torch_npu's per-tensor lifetimes, with profile_memory). */
typedef struct tl_alloc {
	char op[128];       /* the operator that allocated it */
	int64_t size;       /* bytes */
	int64_t alloc_ns;   /* allocationTime */
	int64_t release_ns; /* releaseTime; INT64_MAX: not released within the capture */
	char component[8];  /* "PTA" (the caching allocator: it has a stream) or "GE" */
	char frame[192];    /* the innermost Python frame of the operator that allocated it (the
	                     * PyTorch call holding allocationTime, with_stack), or "" */
} tl_alloc;

/* One input format. The loader is the only code that knows its format: what it keeps of a
 * source after loading is its state (rank_set_source_state, freed through the function it
 * gives), and everything else that needs the format asks through these hooks. */
typedef struct tl_loader {
	const char *name;
	/* TL_TABLE_* this loader's load fills in the tl_gather while it reads; for the others
	 * that it has a hook for, load_gather_end calls the hook once the rank is finished. */
	unsigned gathers;
	/* Lane kinds (bits 1u << TL_LANE_*) whose slices' row ids its load reads back before it
	 * returns: a lean load (tl_load_opts.lean) keeps those while the rank is read. */
	unsigned args_read;
	/* Adds the data of src to r (r->sources already lists src last). Reports every problem
	 * with msg_warn(path, ...). Returns 0 when anything was loaded, -1 when nothing was.
	 * g (NULL: nothing) asks for tables besides: the compute operators go to r->ops (made by
	 * the caller), the launches to g; a loader that has no hook for a table adds nothing, one
	 * whose hook would read the table sets g->failed when it cannot gather it here. */
	int (*load)(const tl_source *src, tl_rank *r, tl_gather *g);
	/* Optional, the viewer's first quick pass (progressive loading): adds only src's small
	 * tables (steps, MSTX ranges, communication ops) to r, a rank of their own that the full
	 * load replaces. Its warnings are dropped (the full load gives them). 0, or -1 when it
	 * added nothing. */
	int (*preview)(const tl_source *src, tl_rank *r);
	/* Bytes src will take in memory once loaded (the viewer's when view), estimated cheaply
	 * before loading. */
	uint64_t (*estimate)(const tl_source *src, int view);
	/* Optional, on demand: adds the forward/backward operator pairs of source si of r to
	 * r->fwdbwd (the pipeline view's fallback, read only when it is needed: a scan of the
	 * operator tables), once. NULL for formats whose loader finds them while loading. */
	void (*fwdbwd)(tl_rank *r, size_t si);
	/* The arguments of slice idx of track t, which source si of r loaded: see
	 * load_slice_args. NULL: the format keeps none. */
	int (*args)(const tl_rank *r, size_t si, const tl_track *t, size_t idx, load_arg_fn fn,
	            void *ctx);
	/* Optional: the value of the profile's own metadata entry `name` (a DB's META_DATA) of
	 * source si of r, as text (caller frees), or NULL. */
	char *(*meta)(const tl_rank *r, size_t si, const char *name);
	/* Optional, on demand: the communication ops of source si of r with their HCCL sub-tasks,
	 * added to d; (*owner)[i] gets the op index of task i (see load_comm). */
	void (*comm)(const tl_rank *r, size_t si, tl_comm_data *d, size_t **owner, size_t *ocap);
	/* Optional, on demand: the compute operators of src with every task's duration, added to d
	 * (see load_ops). */
	void (*ops)(const tl_source *src, tl_op_data *d);
	/* Optional, on demand: the Module-domain ranges of src, the operators with their kernels
	 * and the forward -> backward operator links, added to d (see load_modules). */
	void (*modules)(const tl_source *src, tl_module_data *d);
	/* Optional, on demand: adds src's host API lanes (TL_LANE_HOST, TL_HOST_KEY keys) to r,
	 * tracks unsorted, their source set to src_index. NULL for formats whose loader reads
	 * host lanes while loading. */
	void (*host)(const tl_source *src, size_t src_index, tl_rank *r);
	/* Optional, on demand: appends src's launches to *v (n, cap: a VEC_PUSH vector). */
	void (*launches)(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n,
	                 size_t *cap);
	/* Optional, on demand: src's launches as launches gives them, *n of them: 0 with them in
	 * 12 bytes each (tl_launch_rec, *v the caller's); 1 with them in *l as launches gives them
	 * when one's device start is 2^31 ns or more from its host start (read once either way). */
	int (*launch_recs)(const tl_source *src, const tl_rank *r, tl_launch_rec **v, size_t *n,
	                   tl_launch **l);
	/* Optional, on demand: adds src's counters (memory, frequency) to r, each sorted by time,
	 * their source set to src_index. */
	void (*counters)(const tl_source *src, size_t src_index, tl_rank *r);
	/* Optional, on demand, the links of slice idx of track t (source si of r), read again
	 * from the file: launcher, the host calls that launched a device item (1: *out filled; 0:
	 * none; -1: the file is gone, changed since loading or unreadable); kernels, the device
	 * tasks a host operator launched (unsorted, *out the caller's; a count, or -1); stack, the
	 * Python call stack recorded with a host operator, innermost frame first ("file.py(line):
	 * function", each string and the array the caller's; a count, or -1). */
	int (*launcher)(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
	                tl_launcher *out, const void *ix);
	ptrdiff_t (*kernels)(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
	                     tl_kernel **out, const void *ix);
	ptrdiff_t (*stack)(const tl_rank *r, size_t si, const tl_track *t, size_t idx, char ***out);
	/* Optional, on demand: the largest allocations of source si of r live at time t
	 * (allocated at or before t, released after t or never), largest first, at most max,
	 * appended to *v (n, cap: a VEC_PUSH vector). 0, or -1 when the file cannot be read. */
	int (*allocations)(const tl_rank *r, size_t si, int64_t t, size_t max, tl_alloc **v,
	                   size_t *n, size_t *cap);
	/* Optional, for the model cache: the state of source si of r as bytes (*out the caller's,
	 * NULL and 0 when it has none), and the same bytes given back to a rank read from the
	 * cache. state_restore returns -1 when they are not a state this loader wrote. */
	void (*state_save)(const tl_rank *r, size_t si, uint8_t **out, size_t *len);
	int (*state_restore)(tl_rank *r, size_t si, const uint8_t *p, size_t len);
	/* Optional: the ends linked to slice idx of t (a slice of source si of r) in direction
	 * dir; *out the caller's. Returns the count, 0 for none, -1 when the source cannot be
	 * read (see load_slice_links). */
	ptrdiff_t (*links)(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
	                   tl_link_dir dir, tl_link_end **out, const void *ix);
	/* Optional: an index of source si of r that the launcher, kernels and links hooks answer
	 * from (their ix; NULL: they read the file as without), built once (NULL when it cannot
	 * be), and how it is freed. */
	void *(*link_index)(const tl_rank *r, size_t si);
	void (*link_index_free)(void *);
} tl_loader;

extern const tl_loader loader_ascend_db;
/* Chrome-trace JSON: Ascend trace_view.json, Kineto, the legacy PyTorch exporter (trace_json.c) */
extern const tl_loader loader_trace_json;
/* Union length (ns) of each track of a trace_view.json's "Overlap Analysis" process, msprof's
 * own result: [0] Computing, [1] Communication, [2] Communication(Not Overlapped), [3] Free.
 * For cross-checking only; tl's numbers come from the tasks and ops. -1 when there is none. */
int trace_json_overlap_lengths(const char *path, int64_t ns[4]);
const tl_loader *loader_for(tl_source_kind);

/* A mapped input that shrinks under tl raises SIGBUS when its lost pages are read. A loader
 * thread that reads a mapping points this at a recovery point (sigsetjmp(env, 1)) while it
 * does: during load_trace the signal then returns there with siglongjmp(env, 1), and the
 * loader says so and keeps what it read, while the other ranks load. NULL: tl ends with one
 * line naming the file. */
extern _Thread_local sigjmp_buf *load_bus_env;
/* The SIGBUS handler that returns there on (1) or off (0): counted, so that loads and decodes
 * of mapped files may overlap. */
void load_bus_arm(int on);
/* The line this thread's SIGBUS prints outside a recovery point before tl ends ("tl: PATH:
 * ...\n", sanitized, kept by the caller until it says NULL). */
void load_bus_say(const char *line);

/* The forward/backward operator pairs of r's sources whose loader reads them on demand; r's
 * list stays sorted. Reads once per rank; later calls do nothing. */
void load_fwdbwd(tl_rank *r);
/* The host API lanes of r's sources whose loader reads them on demand (the PyTorch and CANN
 * API tables can be a profile's largest: only the viewer's host lanes need them). Reads once
 * per rank; r stays finished. Not thread-safe against other users of r. */
void load_host(tl_rank *r);
/* The counters of r's sources (r->counters, sorted). Reads once per rank; ranks may be read in
 * parallel, one thread per rank. */
void load_counters(tl_rank *r);
/* r's launches (tl_launch, unsorted) from the sources whose loader has them; the caller frees
 * *out. Read on every call (nothing is kept in memory). */
size_t load_launches(const tl_rank *r, tl_launch **out);
/* As load_launches in 12 bytes a launch (tl_launch_rec; the caller frees *out): the critical
 * path's read of a crossed rank, whose 16 bytes a call met its step graph at the peak. Returns
 * 0 with *n of them in *out; 1 with *n in *wide as load_launches gives them (a delay of 2^31
 * ns or more: the same read); -1 with nothing read (out and wide untouched) when r's launches
 * are not to be had so (a rank of several sources, one whose clock is moved by
 * clock_map_launches, a loader without the hook): read them with load_launches. */
int load_launch_recs(const tl_rank *r, tl_launch_rec **out, size_t *n, tl_launch **wide);

/* Arguments of a slice, read again from its source file (op type, shapes, group, sizes ...; a
 * JSON event's name, cat, ph, ts, dur, pid, tid, then each member of its args): fn(ctx, key,
 * value) per field. Returns the number of fields, 0 when the source keeps none for the slice,
 * -1 when the source cannot be read (fn then gets one "arguments" line saying why: gone,
 * changed since loading, unreadable). */
int load_slice_args(const tl_rank *, const tl_track *, size_t idx, load_arg_fn fn, void *ctx);

/* The host <-> device links of slice idx of t (tl_link_dir), from its source: a DB's
 * CANN_API / CONNECTION_IDS / PYTORCH_API rows, a JSON trace's launch flows (HostToDevice,
 * torch_npu's async_npu, Kineto's ac2g). *out (the caller's) gets the ends in the order
 * tl_link_dir gives. Returns their count, 0 when the slice has none, -1 when the source cannot
 * be read (gone, or changed since loading). */
ptrdiff_t load_slice_links(const tl_rank *, const tl_track *, size_t idx, tl_link_dir dir,
                           tl_link_end **out, const tl_link_index *ix);
/* The links of slice idx of track t through its source's loader (tl_loader's launcher,
 * kernels and stack hooks; the same returns). A source whose format keeps no links gives 0. */
int load_task_launcher(const tl_rank *, const tl_track *, size_t idx, tl_launcher *out,
                       const tl_link_index *ix);
ptrdiff_t load_op_kernels(const tl_rank *, const tl_track *, size_t idx, tl_kernel **out,
                          const tl_link_index *ix);
/* The link index of r: each source's loader's (link_index), so that the link functions above
 * answer without scanning the profile's tables per lookup (ix NULL: they do). Built from the
 * files, once per rank (the query session keeps it); freed with load_link_index_free. */
tl_link_index *load_link_index(const tl_rank *r);
void load_link_index_free(tl_link_index *);
ptrdiff_t load_op_stack(const tl_rank *, const tl_track *, size_t idx, char ***out);
/* The allocations of r live at time t, at most max per source, unsorted (*out the caller's);
 * their count, or -1 when none was found and a source could not be read. */
ptrdiff_t load_live_allocations(const tl_rank *r, int64_t t, size_t max, tl_alloc **out);

/* The capture's profiler_metadata.json beside source src (at most 4 MiB), or NULL; then the
 * value of metadata entry `name` the source's format keeps itself (a DB's META_DATA), or NULL.
 * Callers free both. */
char *load_capture_metadata(const tl_source *src);
char *load_source_meta(const tl_rank *r, size_t si, const char *name);

/* The communication ops of r's sources with their HCCL sub-tasks (ascend_db_comm.c, and
 * trace_json_comm.c for trace_view.json), read on demand: d is initialised here and owned by
 * the caller (comm_data_free). Kineto sources add nothing; every unreadable table gets one line
 * naming the file. */
void load_comm(const tl_rank *r, tl_comm_data *d);

/* The compute operators of r's profile DBs grouped by (name, op type, task type, input shapes)
 * with every task's duration (ascend_db_ops.c), read on demand: d is initialised here and owned
 * by the caller (op_data_free). */
void load_ops(const tl_rank *r, tl_op_data *d);

/* What module statistics need of r's sources (ascend_db_modules.c): the ranges of MSTX domain
 * "Module", the operators that launched kernels with their kernels, and the forward ->
 * backward operator links, read on demand (nothing beyond the ranges when a source has none): d
 * is initialised here and owned by the caller (module_data_free). */
void load_modules(const tl_rank *r, tl_module_data *d);
/* Sets the capture time of every DB source that records its session (TL_CAPTURE_SESSION);
 * the others keep discovery's. Opens each DB once (read-only, immutable). */
void load_capture_times(tl_sourcelist *);

/* memcheck.c: memory before loading. Bytes a source will take in memory (estimated cheaply:
 * row counts, file size). */
uint64_t load_estimate_source(const tl_source *, int view);
/* Bytes the system can give: MemAvailable, less when a cgroup limits the process; the
 * environment variable TL_MEM_AVAILABLE (bytes, or with K, M, G, T) overrides; UINT64_MAX when
 * unknown. */
uint64_t load_mem_available(void);
/* 0 when the sources fit; else -1 after one message saying how much they need and which
 * --rank would fit. at_once: 0 when every rank's model stays in anonymous memory; else how many
 * ranks are loaded at the same time when each is written to the model cache and replaced by its
 * mapped file as soon as it is read (only those ranks' memory is anonymous at any moment: the
 * at_once largest are what must fit). */
int load_memcheck(const char *path, const tl_sourcelist *, int view, size_t at_once);

/* How many times this process opened a profile's data file (a DB, a JSON trace) since it
 * started: a warm open from the model cache opens none (TL_STATS shows it; tests check it). */
uint64_t load_source_opens(void);
/* How many rows the DB loader read straight from the files' pages, not through SQLite's
 * virtual machine (TL_STATS; the tests check that the page scans are taken). */
uint64_t load_page_rows(void);

/* Set by load_bg_finish (loading/load_bg.c) to stop a progressive load (guard.c; load_cancelled
 * reads it): jobs not started are skipped, a held one stops waiting, and a DB read stops at its
 * next progress tick (ascend/profdb.c). 1 once load_bg_finish(…, 1) asked the loaders to stop. */
extern _Atomic int load_cancel_flag;
int load_cancelled(void);

/* Drops path's pages from the page cache (a rank in its mapped cache file will not read its
 * inputs again but for a detail a user asks for; TL_DROP_INPUTS=0 keeps them). hooks.c. */
void load_drop_input(const char *path);

#endif
