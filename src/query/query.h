/* The query layer: the one API that the TUI and `tl summary` both use. Neither calls an
 * analysis, a loader or SQL of its own (tests/check_layers.sh reads it from the objects); a
 * number on screen or in a report comes from here. They do read the trace the session holds,
 * const (tr->ranks[i], its tracks and slices: what they draw and name), never changing it.
 *
 * One session per loaded trace. main opens it once (tlq_open) after loading and hands it to the
 * command that runs, the viewer or the report; tlq_open prepares what every query reads (stage
 * rules and stage instances; for the viewer, .lanes: the overlap and stage lanes and the level
 * of detail of every track). After tlq_open nothing changes the trace (but tlq_poll, on the views'
 * thread, while loading progressively: below), and every query takes the session (or a track or
 * rank of its trace) const and may be called from any view or thread.
 *
 * Adding a query (what a new panel does):
 *  - a function over `const tl_query *` (or const tracks) in the file of its concept
 *    (window.c, search.c, args.c, bubbles.c, stages.c, steps.c, dp.c, comm.c, timesplit.c,
 *    ops.c, diff.c; a new concept gets a new file), declared here in its section;
 *  - data every caller needs is prepared in tlq_open (cheap, or asked for in tl_query_opts);
 *    an expensive table only some commands need is an optional part of the session, computed
 *    on first use: a row of TLQ_PARTS and its fields in struct tlq_state (session.h), its
 *    compute and free functions and TLQ_PART_DEFINE in the query's file; the query calls
 *    tlq_need(q, &tlq_part_NAME) and returns pointers into the fields, valid and unchanged
 *    until tlq_close (see tlq_stages, tlq_pipeline). A result the caller asks for once may
 *    instead be filled into the caller's struct and freed by the caller (tlq_comm);
 *  - it reads files only through the loader (load.h), never SQL or JSON of its own;
 *  - the numbers are tested against an answer tl did not compute.
 * Times are ns on the profile clock. */
#ifndef TL_QUERY_H
#define TL_QUERY_H
#include "analysis/bubbles.h" /* the types of the answers; callers use the tlq_ functions */
#include "analysis/collectives.h"
#include "analysis/comm.h"
#include "analysis/critpath.h"
#include "analysis/dp.h"
#include "analysis/imbalance.h"
#include "analysis/lanes.h"
#include "analysis/modules.h"
#include "analysis/opstats.h"
#include "analysis/overlap.h"
#include "analysis/pipeline.h"
#include "analysis/slowrank.h"
#include "analysis/stages.h"
#include "model/ops.h"
#include "model/trace.h"

/* ---- the session (session.c) ---------------------------------------------------------------- */

typedef struct tl_query tl_query;

typedef struct tl_query_opts {
	const char *rules_path;  /* stage rules file; NULL: $XDG_CONFIG_HOME/tl/stages if present */
	int pp;                  /* --pp N: PP stages in rank order when the profile does not say */
	size_t bubbles_per_rank; /* largest bubbles kept per rank; 0 = 10 (free_analysis top_num) */
	int lanes; /* the viewer: add the overlap lanes (lanes_build) and the stage lanes, and build
	            * the level of detail of every track (model/lod.h: tlq_busy and
	            * tlq_columns in O(log n)) */
	int release_pages; /* a batch command (tl summary): the pages of the ranks' mapped cache
	                    * files an analysis touched are given back after each rank's part
	                    * (tlq_per_rank), each critical path step and each analysis of the
	                    * report (tlq_release_pages), so that the peak RSS holds about one
	                    * analysis of one rank per thread, not every file */
} tl_query_opts;

/* Prepares the queries of tr (opts NULL: all zero). The session may add derived lanes to tr;
 * the trace must outlive it and not change while it is open. */
tl_query *tlq_open(tl_trace *, const tl_query_opts *);
void tlq_close(tl_query *);
/* The session's trace. */
const tl_trace *tlq_trace(const tl_query *);
/* With opts.release_pages, gives back every rank's mapped pages (trace_drop_pages): called
 * between the analyses of a report; nothing otherwise. */
void tlq_release_pages(const tl_query *);
/* The same for the rank of index ri only: a serial loop over the ranks done with one. */
void tlq_release_rank(const tl_query *, size_t ri);

/* The hosts' clocks (`tl info`'s table, `tl summary --json`'s "clock"): ALIGNED, the hosts the
 * load aligned (tl_trace.hosts, the reference first; borrowed from the trace), or no table and
 * why: ONE_HOST (every rank names one host, or none), RAW (the ranks name several hosts whose
 * clocks were not aligned: --clock raw; nhosts is then 2, "more than one"). */
typedef enum { TLQ_CLOCKS_ALIGNED, TLQ_CLOCKS_ONE_HOST, TLQ_CLOCKS_RAW } tlq_clocks_state;
typedef struct tlq_clock_table {
	tlq_clocks_state state;
	const tl_clock_host *hosts;
	size_t nhosts;
} tlq_clock_table;
void tlq_clocks(const tl_query *, tlq_clock_table *);
/* The index in the trace's ranks of host h's first rank; SIZE_MAX when it is not loaded. */
size_t tlq_clock_first_rank(const tl_query *, const tl_clock_host *h);
/* A host's ranks as "0-3,8" into out (len bytes; cut, never overrun, when long). */
void tlq_clock_ranks_text(const tl_clock_host *h, char *out, size_t len);
/* How a host's clock was set: for tl info ("--clock-offset", "agrees (within 10 us: kept)"),
 * for a panel column ("set by hand", "agrees: kept") or as tl summary --json's "how" value
 * ("manual", "agrees"). */
typedef enum tlq_how_form { TLQ_HOW_TEXT, TLQ_HOW_BRIEF, TLQ_HOW_KEY } tlq_how_form;
const char *tlq_clock_how_name(tl_clock_how how, tlq_how_form form);

/* Progressive loading (the viewer, tl view): main opens the session on a trace that has no
 * ranks yet (load_trace_start) and attaches the load, which gives every rank of the load its
 * slot in the trace's ranks at once: a placeholder (TLQ_SLOT_PENDING: the rank's number, no
 * tracks). tlq_poll, on the thread that owns the views, between two frames, fills the slots:
 * first with the rank's small tables (TLQ_SLOT_PREVIEW: steps, MSTX ranges, communication
 * ops, and the stages found from them), then with the full rank (TLQ_SLOT_FULL, prepared on
 * the loader's thread by tlq_prepare_rank). A slot's index never changes while loading; its
 * rank and tracks do (what the views held of a slot they must take again after tlq_poll
 * returned more than 0), but every pointer handed out stays valid until tlq_close. When the
 * load ends, the slots of ranks that could not be loaded go (*renumbered set: every index may
 * have changed). Tables over all ranks (the panels, the bubble lists, the host lanes, links)
 * must not be asked for while tlq_loading says 1. */
struct tl_load_bg;
void tlq_attach_load(tl_query *, struct tl_load_bg *);
/* The preparation of one rank of a .lanes session that does not need the others: the overlap
 * lanes and the level of detail (model/lod.h) of every track. Any thread, before the rank is
 * published; tlq_poll builds the level of detail of the stage lanes it adds. */
void tlq_prepare_rank(tl_rank *);
/* Fills the slots whose ranks came in since the last call; returns how many changed.
 * renumbered (may be NULL): set when the load's end removed slots. */
size_t tlq_poll(const tl_query *, int *renumbered);
/* What slot ri holds (TLQ_SLOT_*); TLQ_SLOT_FULL without a load. */
enum { TLQ_SLOT_PENDING, TLQ_SLOT_PREVIEW, TLQ_SLOT_FULL, TLQ_SLOT_GONE };
int tlq_slot(const tl_query *, size_t ri);
/* 1 while ranks are still to be published; *done / *total: ranks finished and in all (either
 * may be NULL). */
int tlq_loading(const tl_query *, size_t *done, size_t *total);
/* Rank i of the load (0 .. total-1, rank order): its rank number and rows read so far; returns
 * TLQ_LOAD_WAITING, _HELD (the test hook), _LOADING or _DONE; -1 with no load. */
enum { TLQ_LOAD_WAITING, TLQ_LOAD_HELD, TLQ_LOAD_LOADING, TLQ_LOAD_DONE };
int tlq_load_rank(const tl_query *, size_t i, int *rank, uint64_t *rows);
/* 1 when every rank is finished or held by the test hook (script mode waits for it, so that
 * its screens do not depend on the loader's timing). */
int tlq_load_settled(const tl_query *);
/* 1 when every rank's small tables (or the whole rank) are ready to be published: the first
 * passes are done (script mode shows them in a frame of their own). */
int tlq_load_first_settled(const tl_query *);
/* Stage names: canonical ("rollout", ...), then "other:NAME"; TL_STAGE_NONE gives NULL. */
const char *tlq_stage_name(const tl_query *, int stage);

/* ---- windows of time on a track or a rank (window.c) ----------------------------------------- */

/* Busy ns of a track inside [t0, t1): O(log n) through the level of detail a .lanes session builds,
 * linear in the slices of the window on a track without them. */
int64_t tlq_busy(const tl_track *, int64_t t0, int64_t t1);
/* Slices overlapping [t0, t1): indexes [*first, *last) into t->v. */
void tlq_window(const tl_track *, int64_t t0, int64_t t1, size_t *first, size_t *last);

/* One screen column of a lane: the dominant (longest visible) slice and how busy it is. */
typedef struct tl_cell {
	int64_t busy;    /* ns covered inside the column */
	size_t dominant; /* index into t->v, or SIZE_MAX when the column is empty */
	uint32_t count;  /* slices touching the column (saturates) */
} tl_cell;
void tlq_columns(const tl_track *, int64_t t0, int64_t t1, int ncols, tl_cell *out);

/* The derived overlap lane `key` (TL_OVL_COMPUTING ... TL_OVL_FREE) of a .lanes session's rank,
 * or NULL; its display name ("Computing", ...). */
const tl_track *tlq_overlap_lane(const tl_rank *, int key);
const char *tlq_overlap_lane_name(int key);

/* Overlap breakdown of everything inside [t0, t1) on one rank (range statistics). */
void tlq_overlap(const tl_rank *, int64_t t0, int64_t t1, tl_overlap *out);

/* Per-step overlap breakdown, as torch_npu's StepTraceTime defines it. Without STEP_TIME the
 * whole capture is one step with id -1 and preparing 0. */
typedef struct tl_step_overlap {
	int64_t step_id;
	int64_t step_start, step_end; /* host framework range; 0 when there are no steps */
	tl_overlap o;
} tl_step_overlap;
/* Returns the number of rows written to *out (caller frees). */
size_t tlq_step_overlaps(const tl_rank *, tl_step_overlap **out);

/* Sum of slice durations of a lane kind inside [t0, t1) over all its tracks. */
int64_t tlq_kind_busy(const tl_rank *, tl_lane_kind, int64_t t0, int64_t t1);

/* ---- steps across the ranks (steps.c) ------------------------------------------------------ */

/* The distinct step ids of all ranks, ascending. Returns the count; *ids is the caller's. */
size_t tlq_step_ids(const tl_query *, int64_t **ids);
/* Where step id runs: from its earliest start to its latest end over the ranks (host ranges).
 * Returns 0, or -1 when no rank has the step. */
int tlq_step_span(const tl_query *, int64_t id, int64_t *t0, int64_t *t1);
/* The id of the step of r whose range holds t: returns 0, or -1 outside every step. */
int tlq_step_at(const tl_rank *, int64_t t, int64_t *id);

/* Like tlq_columns with explicit edges: column c covers [edges[c], edges[c+1]). Equal-width
 * columns on a fixed grid make a one-column pan shift every column by exactly one. */
void tlq_columns_edges(const tl_track *, const int64_t *edges, int ncols, tl_cell *out);
/* The same, for drawing: a column of two or more slices gets its first as the dominant, not
 * the longest. On a lane whose slices do not overlap none of them covers such a column, so a
 * drawing that uses the dominant only where it covers the column (a solid cell, a name) or
 * where the column holds marks alone draws the same; finding the longest reads the level of
 * detail at every level, a page each on a mapped lane, about a quarter of a zoomed-out frame's
 * first drawing of a rank at 16 x 8 M slices. */
void tlq_columns_draw(const tl_track *, const int64_t *edges, int ncols, tl_cell *out);
/* The dominant slice of [c0, c1) among slices [a, b) (tlq_window's): the longest visible part,
 * the first of equals; SIZE_MAX when a >= b. Exact, O(log n) with the level of detail a .lanes
 * session builds (linear without). */
size_t tlq_dominant(const tl_track *, int64_t c0, int64_t c1, size_t a, size_t b);
/* Busy ns of the track in each column (edges as above). */
void tlq_busy_columns(const tl_track *, const int64_t *edges, int ncols, int64_t *out);
/* Index of the slice that contains t (start <= t < end, or a zero-length slice at t), or
 * SIZE_MAX. */
size_t tlq_slice_at(const tl_track *, int64_t t);
/* dir > 0: first slice starting after t; dir < 0: last slice starting before t; SIZE_MAX when
 * there is none. */
size_t tlq_slice_next(const tl_track *, int64_t t, int dir);
/* The outermost slice of a lane kind that contains t on r (the enclosing stage, step, ...), or
 * NULL. */
const tl_slice *tlq_enclosing(const tl_rank *, tl_lane_kind, int64_t t);
/* The other part of an MSTX range that carried a stream: for slice idx of an MSTX lane its
 * device part, for a slice of the device MSTX lane the host call it belongs to. Returns 1 and
 * sets *out, or 0 when there is none. */
int tlq_mstx_other_part(const tl_rank *, const tl_track *, size_t idx, tl_span *out);

/* ---- regex search over slice names (search.c) ------------------------------------------------ */

/* The pattern is compiled once; each rank's string pool is
 * matched once (one pcre2_match per distinct name), then every track gets the sorted list of
 * its matching slices, so stepping through matches in time order is a few binary searches. */
typedef struct tl_track_matches {
	uint32_t *idx; /* slice indexes, ascending (so by start and by end) */
	size_t n;
} tl_track_matches;
typedef struct tl_search {
	char *pattern;
	size_t nranks;
	size_t *base;         /* per rank: offset of its tracks in tm */
	tl_track_matches *tm; /* per (rank, track) */
	size_t total;
} tl_search;
/* Compiles pattern (smart case: caseless unless it has an upper-case letter) and matches it
 * over the ranks with shown[i] != 0 (NULL = all); derived overlap lanes are not searched.
 * Returns 0, or -1 with pcre2's message and the offset in err. */
int tlq_search(const tl_trace *, const unsigned char *shown, const char *pattern, tl_search *out,
               char *err, size_t errlen);
void tlq_search_free(tl_search *);
/* Whether a match of the track overlaps [t0, t1) (or is a mark at t0). */
int tlq_search_any(const tl_search *, const tl_trace *, size_t ri, size_t ti, int64_t t0,
                   int64_t t1);
/* A position in the time order of matches: (start, rank, track, slice). */
typedef struct tl_match_pos {
	size_t rank, track, slice;
	int64_t start;
} tl_match_pos;
/* The next (dir > 0) or previous match strictly after/before *from; returns 0 and sets *out, or
 * -1 when there is none. from->rank == SIZE_MAX means "at from->start, before any match". */
int tlq_search_step(const tl_search *, const tl_trace *, const tl_match_pos *from, int dir,
                    tl_match_pos *out);
/* Number of matches ordered before *pos (its 0-based rank in time order). */
size_t tlq_search_ordinal(const tl_search *, const tl_trace *, const tl_match_pos *pos);

/* Matches of rank ri: their number and summed duration (ns; the mean is total / count). */
void tlq_search_rank_stats(const tl_search *, const tl_trace *, size_t ri, size_t *count,
                           int64_t *total);

/* ---- slice arguments (args.c) --------------------------------------------------------------- */

/* Arguments of a slice, read lazily from its source (op type, shapes, group, sizes ...):
 * calls fn(ctx, key, value) per field, values untrusted (sanitize before display). Returns the
 * number of fields, 0 when the source has none, -1 when the source cannot be read. */
typedef void (*tlq_arg_fn)(void *ctx, const char *key, const char *value);
int tlq_slice_args(const tl_rank *, const tl_track *, size_t idx, tlq_arg_fn fn, void *ctx);

/* ---- RL triage: stages, DP imbalance, pipeline, slow ranks (stages.c) -----------------------
 * The TUI panels and `tl summary` print these numbers and no others. Each table is computed on
 * first use and kept; the pointers returned stay valid until tlq_close. */

/* Per rank x stage instance: where it ran, how busy the device was, how late it ended. */
typedef struct tl_stage_row {
	size_t rank; /* index into tr->ranks */
	int stage;
	int64_t step;       /* STEP_TIME id (or the role directory's step), -1 */
	int occurrence;     /* 0 for the first instance of this stage in this step on the rank */
	int64_t start, end; /* the range's device part where it carried a stream, else host */
	int64_t host_start, host_end; /* the host call */
	int device;                   /* start, end are device times */
	int64_t busy;      /* device busy (compute U communication) inside [start, end) */
	int64_t lag;       /* end - earliest end of (stage, step, occurrence) over the ranks */
	int decode_steps;  /* decode steps inside (stages_decode_count), -1 when unknown */
	const char *range; /* the range name, or the role directory (borrowed) */
	int from_role;     /* a whole discrete-mode capture */
	int level;         /* nesting on the stage lane */
} tl_stage_row;
/* Rows by rank, then start. Returns the count; *rows is owned by the session. */
size_t tlq_stages(const tl_query *, const tl_stage_row **rows);

/* DP load imbalance of each stage and step that ran on at least two ranks. */
typedef struct tl_imbalance {
	int stage;
	int64_t step;
	tl_imb_stats st;
	tl_imb_rank *ranks; /* by rank */
	size_t n;
} tl_imbalance;
/* By step, then stage. Returns the count; owned by the session. */
size_t tlq_imbalances(const tl_query *, const tl_imbalance **out);
/* The imbalance of one stage and step, or NULL. */
const tl_imbalance *tlq_imbalance(const tl_query *, int stage, int64_t step);

/* Rollout load balance as dp_analysis measures it (dp.c): for each stage and step of
 * tlq_imbalances whose ranks ran decode steps (the decode rules' ranges: vLLM's vllm_one_step,
 * dp_analysis' step_process "step"), per rank its steps, bubble rate and, where every step's
 * step_process mark carries them, its tokens, throughput and scheduler numbers. A profile
 * without stages is one entry over the whole capture, stage TL_STAGE_NONE and step -1. The
 * n-th step_process mark of a rank belongs to its n-th step_process range: a rank whose counts
 * differ, or whose marks do not parse, gets one warning line and no stats for those steps. */
typedef struct tl_dp {
	int stage;
	int64_t step;
	tl_dp_rank *ranks; /* by rank */
	size_t n;
} tl_dp;
/* By step, then stage. Returns the count; owned by the session. */
size_t tlq_dp(const tl_query *, const tl_dp **out);
/* The entry of one stage and step, or NULL. */
const tl_dp *tlq_dp_of(const tl_query *, int stage, int64_t step);
/* Pairs every rank's marks with its steps now (the warnings are printed then): the viewer
 * calls it before the screen is taken, so that no line lands on it. */
void tlq_dp_prepare(const tl_query *);
/* A profile without stages: its engine steps as one rollout over the whole capture, each rank's
 * row spanning its first step's start to its last step's end (host), as a DP imbalance entry
 * (stage TL_STAGE_NONE, step -1); NULL when there is no such entry. Owned by the session. */
const tl_imbalance *tlq_dp_whole(const tl_query *);
/* A step's number of a TL_DP_* metric (TL_DP_NONE when its mark gave none); the largest value
 * over the rows' steps; the steps where the first and the last rank ran out of work (see
 * analysis/dp.h). */
const char *tlq_dp_metric_name(int metric);
double tlq_dp_step_value(const tl_dp_step *, int metric);
double tlq_dp_metric_max(const tl_dp_rank *, size_t n, int metric);
void tlq_dp_end_steps(const tl_dp_rank *, size_t n, int *earliest, int *latest);

/* Pipeline-parallel blocks, bubbles and P2P links (nsteps == 0: no pipeline). */
const tl_pipeline *tlq_pipeline(const tl_query *);
/* Where the PP stages came from ("distributed_args", ...); why there is no pipeline, in words. */
const char *tlq_pipeline_source_name(tl_pp_source);
const char *tlq_pipeline_absence(const tl_query *, const tl_pipeline *, char *buf, size_t n);

/* Slow-rank votes (msprof-analyze slow_rank). */
const tl_slow_result *tlq_slow_ranks(const tl_query *);

/* ---- bubbles (bubbles.c) ----------------------------------------------------------------------
 */

/* Count and total length of the idle gaps (Free intervals of a .lanes session) of one rank:
 * O(1). Walk and name them with tlq_bubble_next / tlq_bubble_largest. */
size_t tlq_bubble_total(const tl_rank *, int64_t *total_ns);
/* A bubble's reason in words; its step as text (none_text when it has none). */
const char *tlq_bubble_reason_name(tl_bubble_reason);
char *tlq_bubble_step_text(const tl_rl_bubble *, const char *none_text, char *buf, size_t len);

/* The largest bubbles of every rank (opts.bubbles_per_rank), by rank, longest first. Owned by
 * the session. */
size_t tlq_bubbles(const tl_query *, const tl_rl_bubble **out);

/* The viewer's bubbles. Every idle gap of a rank (every Free interval) is a bubble, attributed
 * by the function that attributes tlq_bubbles (bubble_attribute: the stage enclosing the
 * whole gap, the step, the reason), so the timeline and `tl summary` say the same of a gap. */

/* The bubble [start, end) of rank ri (a Free interval), attributed. */
void tlq_bubble_at(const tl_query *, size_t ri, int64_t start, int64_t end, tl_rl_bubble *out);

/* The bubble of rank ri that starts first after t (dir > 0) or last before t (dir < 0),
 * attributed. Returns 0 and sets *out and *index (its position among the rank's bubbles in time
 * order), or -1 when there is none; *count is always set to how many the rank has. Reads the
 * rank's Free overlap lane (a .lanes session): O(log n). */
int tlq_bubble_next(const tl_query *, size_t ri, int64_t t, int dir, tl_rl_bubble *out,
                    size_t *index, size_t *count);

/* The longest bubbles over all ranks, longest first (ties: earlier, then the lower rank index),
 * at most max (the max of the first call: the list is found once, each rank's longest gaps in
 * parallel, and kept). Returns the length of the list and, when i is below it and out is not
 * NULL, sets *out to the i-th bubble, attributed when first asked for. */
size_t tlq_bubble_largest(const tl_query *, size_t max, size_t i, tl_rl_bubble *out);
/* Whether the i-th of them lies between steps, without attributing it (its step is found with
 * the list, in O(log steps)). */
int tlq_bubble_largest_between_steps(const tl_query *, size_t max, size_t i);

/* ---- communication analysis (comm.c) ------------------------------------------------------
 * Per communication op and rank: the time breakdown, the bandwidth per transport and the
 * traffic per rank pair (analysis/comm.h), from each op's HCCL sub-tasks, read from the
 * profile on demand (profile DBs; trace_view.json's HCCL Plane lanes and their args). */
typedef struct tl_comm_row {
	int rank;            /* rank number */
	const char *op_name; /* as in the profile: "hcom_allReduce__210_0_1" (borrowed) */
	const char *op_type; /* the collective, normalised (coll_type_norm): "allreduce"; else
	                        the profile's type, "" when it has none */
	const char *op_raw;  /* the profile's own type: "hcom_allReduce_" */
	const char *group;   /* group name, "" when none */
	int64_t step;        /* STEP_TIME id of the op's launch, -1 */
	int64_t start;       /* ns */
	tl_comm_time t;
	size_t ntasks;       /* sub-tasks read for it */
	size_t bw0, nbw;     /* its rows in bw */
	size_t link0, nlink; /* its rows in links */
} tl_comm_row;
typedef struct tl_comm_result {
	tl_comm_row *ops; /* by rank, then start */
	size_t nops;
	tl_comm_bw *bw;
	size_t nbw;
	tl_comm_link *links;
	size_t nlinks;
	tl_comm_data *data; /* per rank; owns the strings */
	size_t ndata;
} tl_comm_result;
/* Reads and analyses every rank (in parallel); free with tlq_comm_free. */
void tlq_comm(const tl_query *, tl_comm_result *out);
void tlq_comm_free(tl_comm_result *);
/* tlq_comm for a report that analyses the communication once (tl summary): then every rank's
 * sub-tasks gathered while loading, which only tlq_comm reads, are let go (their ops stay for
 * the collectives): 5 MB at 8 x 1 M tasks, beside the critical path. A later tlq_comm reads
 * them again from the profile (load_comm). The session's trace is changed so. */
void tlq_comm_once(const tl_query *, tl_comm_result *out);
/* The summary rows msprof adds to the rank-pair matrix (analysis/comm.h comm_matrix_picks):
 * per rank, group, step, op type and pair, the ops at top1, middle, bottom1-3 by bandwidth and
 * the total. Strings are borrowed from c; *out malloc'ed. */
typedef struct tl_mx_row {
	int rank;
	const char *group;
	int64_t step;
	char name[64];       /* "allreduce-top1", ..., "allreduce-total" */
	const char *op_name; /* the op the row shows; "" for -total */
	int64_t src, dst;
	uint8_t xport;
	uint64_t size;
	int64_t time;
	double gbps;
} tl_mx_row;
size_t tlq_comm_matrix_summary(const tl_comm_result *c, tl_mx_row **out);

/* The rank x rank matrix of the viewer's heat map (matrix.c): per (group, step) a plane, per
 * (source, destination) rank pair of it a cell summing every op's transfers between them -- the
 * sum of msprof's "-total" summary rows of that pair over the op types -- with the ops behind
 * it. Strings are borrowed from c, op indexes point into c->ops. */
typedef struct tl_mx_cell {
	int64_t src, dst;
	uint8_t xport;   /* tl_xport of its first op's transfer; LOCAL when src == dst */
	uint64_t size;   /* bytes */
	int64_t time;    /* ns */
	double gbps;     /* size / time, 0 when time is 0 */
	size_t op0, nop; /* its ops: ops[op0 .. op0 + nop) of the matrix, by rank, then start */
} tl_mx_cell;
typedef struct tl_mx_plane {
	const char *group;
	int64_t step;         /* STEP_TIME id, -1 */
	size_t cell0, ncell;  /* its cells, by source, then destination */
	size_t rank0, nranks; /* its rows' and columns' ranks: ranks[rank0 ..], ascending */
} tl_mx_plane;
typedef struct tl_comm_matrix {
	tl_mx_plane *planes; /* by group, then step */
	size_t nplanes;
	tl_mx_cell *cells;
	size_t ncells;
	size_t *ops; /* indexes into the tl_comm_result's ops */
	size_t nops;
	int64_t *ranks;
	size_t nranks, rcap;
} tl_comm_matrix;
void tlq_comm_matrix(const tl_comm_result *c, tl_comm_matrix *out);
/* Plane `plane`'s cell of (src, dst), or NULL when no transfer went that way. */
const tl_mx_cell *tlq_comm_matrix_cell(const tl_comm_matrix *, size_t plane, int64_t src,
                                       int64_t dst);
void tlq_comm_matrix_free(tl_comm_matrix *);

/* Collective instances across the ranks of their group (arrival, wait for the last rank, the
 * last arriver) and point-to-point pairs (the pipeline view's pairing, pipeline_p2p_pairs), from
 * the communication lanes of the model (any format). Strings are borrowed from the trace. */
typedef struct tl_p2p_pair {
	int64_t step; /* STEP_TIME id of the send's start, -1 */
	int src_rank, dst_rank;
	int64_t send_start, send_end, recv_start, recv_end;
	int64_t send_wait; /* recv_start - send_start when the receiver came later, else 0 */
	int64_t recv_wait; /* send_start - recv_start when the sender came later, else 0 */
} tl_p2p_pair;
typedef struct tl_coll_result {
	tl_coll *v; /* by group, then index */
	size_t n;
	tl_p2p_pair *p2p; /* by send start */
	size_t np2p;
} tl_coll_result;
void tlq_collectives(const tl_query *, tl_coll_result *out);
void tlq_collectives_free(tl_coll_result *);

/* Per rank and step, the rest of msprof-analyze's cluster_time_summary (timesplit.c). */
typedef struct tl_step_split {
	int64_t step_ns;   /* STEP_TIME length; without steps computing + not overlapped + free */
	int64_t memory_ns; /* MEMCPY_ASYNC tasks starting in the step, summed */
	int64_t memory_not_overlapped_ns; /* of their union, what no compute or comm covers */
	int64_t transmit_ns; /* over collectives every rank of whose group is loaded: the
	                        shortest op of the instance among its ranks */
	int64_t wait_ns;     /* ... the rank's own op minus that */
} tl_step_split;
/* out[k] for the row so[k] of tlq_step_overlaps of rank ri. cr NULL: no communication split;
 * cm (NULL: none) tells which ranks each group has. */
void tlq_step_split(const tl_query *, size_t ri, const tl_step_overlap *so, size_t n,
                    const tl_coll_result *cr, const tl_comm_result *cm, tl_step_split *out);
/* Both of every rank at once, ranks in parallel: v[ri] has rank ri's tlq_step_overlaps rows
 * and their tlq_step_split. Free with tlq_rank_steps_free. */
typedef struct tl_rank_steps {
	tl_step_overlap *so;
	tl_step_split *sp;
	size_t n;
} tl_rank_steps;
tl_rank_steps *tlq_rank_steps(const tl_query *, const tl_coll_result *cr, const tl_comm_result *cm);
void tlq_rank_steps_free(const tl_query *, tl_rank_steps *);

/* ---- the critical path (critpath.c) -------------------------------------------------------
 * Per step (STEP_TIME id; one step -1 over the whole trace when the profile has none) the
 * chain of work across ranks that set its length (analysis/critpath.h): segments tiling the
 * step, blame by rank and kind, compute time on the path by name. With what-ifs (sc[0..nsc)),
 * whatif[i] is step i's path with those durations scaled. Free with tlq_critical_free. */
typedef struct tl_cp_result {
	cp_step *steps;  /* by step id */
	cp_step *whatif; /* NULL without what-ifs */
	size_t n;
	cp_name_ns *ops; /* over all steps: compute time on the path by name, longest first */
	size_t nops;
	cp_blame *ranks; /* over all steps: path time by rank (kind CP__COUNT), longest first */
	size_t nranks;
	char *names;  /* a decoded result's names (the names point into it); NULL: the trace's */
	cp_seg *segs; /* a decoded result's segments, every step's in one mapping (the steps' seg
	                 point into it, nsegs of them); NULL: each step's its own */
	size_t nsegs;
	const char **namev; /* a decoded result's segment names and who entries, every step's
	                       (the steps' names and who are these); NULL: each step's its own */
	cp_who *who;
	size_t nwho;
} tl_cp_result;
void tlq_critical(const tl_query *, const cp_scale *sc, size_t nsc, tl_cp_result *out);
void tlq_critical_free(tl_cp_result *);
/* The same without what-ifs on a thread of its own (where there are two cores or more; else
 * here and now) while the caller goes on with other queries (tl summary: the findings and the
 * per-rank analyses beside the path, the path on the other core): the job reads a snapshot of
 * the session (the names of each rank frozen as they are), so the caller may ask for any
 * query but the host lanes and tlq_poll before tlq_critical_join; the warnings said meanwhile
 * are said at the join, the job's first (critpath.c). tlq_critical_join waits for the job,
 * fills out (free with tlq_critical_free), the job's own wall and CPU time (ns; either NULL),
 * and frees the job. lean: each step's segments let go as soon as it is made, but for its
 * nlong longest and its runs of one rank (critpath_lean: `tl summary`'s text and its findings'
 * whole need; the 2 M segments of 8 x 1M tasks are 33 MB), else kept. */
typedef struct tlq_cp_job tlq_cp_job;
tlq_cp_job *tlq_critical_start(const tl_query *, int lean, size_t nlong);
void tlq_critical_join(tlq_cp_job *, tl_cp_result *out, int64_t *wall_ns, int64_t *cpu_ns);
/* The CPU time the jobs have taken so far in this process, ns (TL_STATS: what the findings'
 * figure leaves out of the process' CPU time while they ran beside a job). */
int64_t tlq_critical_jobs_cpu_ns(void);
/* A result without what-ifs in binary form (fixed-width little-endian records, critpath.c;
 * malloc'd, *len bytes), to be kept with the stored results as a binary part (never printed;
 * NULL when out of memory or the steps' ranks and stages make more than CP_WHO_MAX pairs),
 * and back: NULL with *out filled (free with tlq_critical_free), or
 * why the bytes are not what tlq_critical_encode writes (out left empty). Every count, length,
 * index and time is checked against the bytes and the rest of the path: the bytes come from a
 * cache directory, and a cut, changed or forged part is refused, never read past. */
uint8_t *tlq_critical_encode(const tl_cp_result *, size_t *len);
const char *tlq_critical_decode(const uint8_t *b, size_t len, tl_cp_result *out);
const char *tlq_cp_kind_name(int kind);
/* The n longest segments of a step that is not lean (critpath_longest). */
size_t tlq_cp_longest(const cp_step *s, size_t n, cp_long *out);
/* critpath_parse_scale: "PATTERN=-20%", "rank:R=-20%", "rank:R:PATTERN=-20%". */
int tlq_cp_parse_scale(char *s, cp_scale *out, char *err, size_t errlen);

/* ---- operator statistics (ops.c) --------------------------------------------------------
 * Compute operators per rank by (op type, task type), and inside each by (op name, input
 * shapes), from each DB's COMPUTE_TASK_INFO and TASK, read on demand (a scan of TASK per rank:
 * `tl summary --json` asks for it, the text summary does not). Rows by rank, then total time,
 * longest first. Strings are owned by the result. */
typedef struct tl_op_name_row {
	const char *op_name, *input_shapes; /* "" when the profile has none */
	tl_opstat st;
} tl_op_name_row;
typedef struct tl_op_type_row {
	int rank;
	const char *op_type, *task_type; /* "AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "AI_CPU" ... */
	tl_opstat st;
	size_t by0, nby; /* its rows in names, by total time */
} tl_op_type_row;
typedef struct tl_ops_result {
	tl_op_type_row *types;
	size_t ntypes;
	tl_op_name_row *names;
	size_t nnames;
	tl_op_data *data; /* per rank; owns the strings */
	size_t ndata;
} tl_ops_result;
void tlq_ops(const tl_query *, tl_ops_result *out);
/* The same of the tasks whose start (TASK startNs) lies in [t0[ri], t1[ri]) on trace rank ri
 * (an index into tr->ranks; t0[ri] >= t1[ri]: none of that rank): the marked range, or one
 * stage instance per rank. t0 and t1 NULL: every task, as tlq_ops. */
void tlq_ops_scoped(const tl_query *, const int64_t *t0, const int64_t *t1, tl_ops_result *out);
/* The same rows in the same order with each statistic's count and total only (the rest 0):
 * nothing sorted, for tl diff, which compares totals. */
void tlq_op_totals(const tl_query *, tl_ops_result *out);
void tlq_ops_free(tl_ops_result *);

/* Communication ops per rank by op type (the name without its trailing _N parts), from the
 * model's communication lanes (any format). Rows by rank, then total time; *out malloc'ed. */
typedef struct tl_comm_op_row {
	int rank;
	char op_type[64];
	tl_opstat st;
} tl_comm_op_row;
size_t tlq_comm_ops(const tl_query *, tl_comm_op_row **out);

/* ---- module statistics (modules.c) ----------------------------------------------------------
 * msprof-analyze's module_statistic (analysis/modules.h): per rank, one row per module and
 * operator (forward, and backward modules synthesized from autograd's operator links) with its
 * kernels and their device time, from the ranges of MSTX domain "Module" and the operator and
 * kernel tables of each profile DB, read on demand. */
typedef struct tl_modules_result {
	tl_module_stats *stats; /* per rank (index into tr->ranks); n 0 where none */
	size_t nranks;
	size_t with_ranges; /* ranks whose MSTX lanes have the domain "Module" */
	size_t nrows;       /* over all ranks */
} tl_modules_result;
/* Whether rank r, or any rank, has Module-domain ranges (the loaded lanes; no file is read). */
int tlq_rank_has_modules(const tl_rank *r);
int tlq_has_modules(const tl_query *);
/* Reads and computes every rank with module ranges (in parallel); free with tlq_modules_free. */
void tlq_modules(const tl_query *, tl_modules_result *out);
void tlq_modules_free(tl_modules_result *);
/* A row's module path "parent/.../module" into buf; returns buf. */
char *tlq_module_path(const tl_module_row *r, char *buf, size_t len);

#endif
