/* The query layer: the one API that the TUI and `tl summary` both use. Neither reaches into the
 * model's arrays or SQL on its own; a number on screen or in a report comes from here. */
#ifndef TL_QUERY_H
#define TL_QUERY_H
#include "analysis/overlap.h"
#include "model/trace.h"

/* Busy ns of a track inside [t0, t1): O(log n) through prefix sums. */
int64_t tlq_busy(tl_track *, int64_t t0, int64_t t1);

/* Slices overlapping [t0, t1): indexes [*first, *last) into t->v. */
void tlq_window(const tl_track *, int64_t t0, int64_t t1, size_t *first, size_t *last);

/* One screen column of a lane: the dominant (longest visible) slice and how busy it is. */
typedef struct tl_cell {
	int64_t busy;    /* ns covered inside the column */
	size_t dominant; /* index into t->v, or SIZE_MAX when the column is empty */
	uint32_t count;  /* slices touching the column (saturates) */
} tl_cell;
void tlq_columns(tl_track *, int64_t t0, int64_t t1, int ncols, tl_cell *out);

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

/* ---- queries of the timeline viewer (query_ui.c) ------------------------------------------ */

/* Like tlq_columns with explicit edges: column c covers [edges[c], edges[c+1]). Equal-width
 * columns on a fixed grid make a one-column pan shift every column by exactly one. */
void tlq_columns_edges(tl_track *, const int64_t *edges, int ncols, tl_cell *out);
/* Busy ns of the track in each column (edges as above). */
void tlq_busy_columns(tl_track *, const int64_t *edges, int ncols, int64_t *out);
/* Index of the slice that contains t (start <= t < end, or a zero-length slice at t), or
 * SIZE_MAX. */
size_t tlq_slice_at(const tl_track *, int64_t t);
/* dir > 0: first slice starting after t; dir < 0: last slice starting before t; SIZE_MAX when
 * there is none. */
size_t tlq_slice_next(const tl_track *, int64_t t, int dir);
/* The outermost slice of a lane kind that contains t on r (the enclosing stage, step, ...), or
 * NULL. */
const tl_slice *tlq_enclosing(const tl_rank *, tl_lane_kind, int64_t t);

/* Idle bubbles: the Free intervals of the overlap lanes (analysis/lanes.h; lanes_build first). */
typedef struct tl_bubble {
	size_t rank;        /* index into tr->ranks */
	int64_t start, end; /* ns */
	uint16_t step;      /* index into the rank's steps, or TL_NO_STEP */
	uint32_t stage;     /* name id (rank pool) of the enclosing stage slice, 0 when none */
} tl_bubble;
/* The max longest bubbles (max 0: all) of the ranks with shown[i] != 0 (shown NULL = all),
 * longest first (ties: earlier first). Ranks are scanned in parallel with a bounded heap each,
 * so the largest of millions of gaps come back in milliseconds. Returns the count; *out is the
 * caller's to free. */
size_t tlq_bubbles(const tl_trace *, const unsigned char *shown, size_t max, tl_bubble **out);
/* Count and total length of the bubbles of one rank (O(1) after the first call). */
size_t tlq_bubble_total(const tl_rank *, int64_t *total_ns);

/* Regex search over slice names. The pattern is compiled once; each rank's string pool is
 * matched once (one pcre2_match per distinct name), then every track gets the sorted list of
 * its matching slices, so stepping through matches in time order is a few binary searches. */
typedef struct tl_track_matches {
	uint32_t *idx; /* slice indexes, ascending (so by start and by end) */
	size_t n;
} tl_track_matches;
typedef struct tl_search {
	char *pattern;
	size_t nranks;
	size_t *base;          /* per rank: offset of its tracks in tm */
	tl_track_matches *tm;  /* per (rank, track) */
	size_t total;
} tl_search;
/* Compiles pattern (smart case: caseless unless it has an upper-case letter) and matches it
 * over the ranks with shown[i] != 0 (NULL = all); derived overlap lanes are not searched.
 * Returns 0, or -1 with pcre2's message and the offset in err. */
int tlq_search(const tl_trace *, const unsigned char *shown, const char *pattern,
    tl_search *out, char *err, size_t errlen);
void tlq_search_free(tl_search *);
/* Matches of track ti of rank ri (NULL when none). */
const tl_track_matches *tlq_search_track(const tl_search *, size_t ri, size_t ti);
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

/* Arguments of a slice, read lazily from its source (op type, shapes, group, sizes ...):
 * calls fn(ctx, key, value) per field, values untrusted (sanitize before display). Returns the
 * number of fields, 0 when the source has none, -1 when the source cannot be read. */
typedef void (*tlq_arg_fn)(void *ctx, const char *key, const char *value);
int tlq_slice_args(const tl_rank *, const tl_track *, size_t idx, tlq_arg_fn fn, void *ctx);

#endif
