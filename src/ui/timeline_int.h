/* The timeline's own state, shared by the files of the timeline view only: timeline.c (state,
 * selection), timeline_actions.c (actions, mouse), timeline_nav.c (bubbles, search, steps),
 * timeline_lanes.c (the lane list and
 * moving between lanes), timeline_draw.c (ruler, lanes, status line). */
#ifndef TL_UI_TIMELINE_INT_H
#define TL_UI_TIMELINE_INT_H
#include <stddef.h>
#include <stdint.h>

#include "ui/colmemo.h"
#include "ui/timeline.h"
#include "ui/viewport.h"

typedef enum ui_lane_type {
	UL_HEADER, /* a rank's title row: the rank at a glance */
	UL_TRACK,  /* one track */
	UL_MERGED, /* several tracks of one kind drawn as one lane (all streams of compute) */
	/* --compare: lanes of the other run, not of ui->tr (ui/compare.c draws them) */
	UL_COMPARE, /* tracks [first, first + count) of B's rank brank, on A's clock */
	UL_DELTA,   /* per stage of the rank: B longer or shorter (tl diff's numbers) */
	UL_COUNTER, /* a counter of the rank (ui/timeline_counters.c): no tracks (count 0) */
} ui_lane_type;

typedef struct ui_lane {
	ui_lane_type type;
	size_t rank; /* index into tr->ranks */
	tl_lane_kind kind;
	size_t first, count; /* tracks [first, first + count) of the rank */
	size_t brank;        /* UL_COMPARE: index into B's ranks */
	char label[64];      /* sanitized */
	uint8_t slot;        /* colour slot of its slices */
	uint8_t indent;
	/* UL_COUNTER: the counter (an index into the rank's counters), its lowest and highest
	 * value and its peak sample */
	size_t ctr, ctr_peak;
	int64_t ctr_lo, ctr_hi;
} ui_lane;

typedef struct ui_rank_state {
	unsigned char collapsed, streams;
} ui_rank_state;

typedef struct tl_timeline {
	tl_viewport vp;
	int lanes_x, lanes_y, lanes_h; /* the lane area on screen */
	int pane_h;                    /* rows of the pane below the lanes */

	/* lanes */
	ui_lane *lanes;
	size_t nlanes, lcap;
	size_t lane, top; /* the current lane, the first shown */
	ui_rank_state *rs;
	size_t nrs; /* ranks rs holds (they grow while loading: timeline_ranks_grew) */
	int refit;  /* fit the whole profile at the next layout (ranks came in) */
	int show_overlap, show_host, show_counters;
	int label_cols; /* the label column's width the user chose (label-width, :labels); 0: fitted
	                 */
	int accordion;  /* many ranks: only the current one open, until the user folds by hand */
	/* ranks pinned to the top (indexes into tr->ranks, in the order pinned), and the lane
	 * filter: only lanes whose label or kind matches are shown (headers always are) */
	size_t *pinned;
	size_t npinned;
	char *filter;    /* the pattern, NULL: every lane */
	void *filter_re; /* its pcre2_code */
	void *filter_md; /* its pcre2_match_data */

	/* search */
	int have_search;
	tl_search search;
	int have_match;
	tl_match_pos match;

	/* bubbles: found and attributed by the query layer (tlq_bubble_*), as `tl summary`
	 * does */
	int bubbles;
	size_t bpos;    /* position in border of the last jump + 1; 0 before */
	size_t *border; /* the largest-bubbles list, those between steps last (NULL before B) */

	/* the link jumps' memory and the selection's link markers (timeline_links.c) */
	struct timeline_links *links;
	/* the finding's span and the critical path marked over the lanes (timeline_marks.c) */
	struct timeline_marks *marks;
	/* mouse drag */
	int drag, drag_x, drag_moved;

	/* per-frame scratch, ncols + 1 wide */
	int64_t *edges;
	int64_t *rk_comp, *rk_comm, *rk_exp, *rk_free; /* a rank's overlap lanes per column */
	tl_cell *cells, *cells2;
	col_memo *memo;          /* the lanes' columns of the last frame (ui/colmemo.h) */
	uint32_t *domtrack;      /* merged lanes: track of the dominant slice per column */
	int64_t *ctr_max;        /* counter lanes: the highest value per column */
	unsigned char *ctr_have; /* and whether the counter has one there */
	int ctr_cols;
	int scratch_cols;
} tl_timeline;

#define TIMELINE(ui) ((tl_timeline *)(ui)->state[VIEW_ID_timeline_view])

/* timeline_lanes.c */
void timeline_rebuild_lanes(tl_ui *);
/* The colour slot of a lane kind's slices (key: the track's, for the overlap lanes). */
uint8_t lane_kind_slot(tl_lane_kind, int64_t key);
/* Appends lane l named label, unless the lane filter hides it (ui/compare.c's lanes). */
void lane_push(tl_ui *, ui_lane *l, const char *label);
/* Scrolls the lanes so that the current one is on screen. */
void lane_visible(tl_ui *);
void lane_move(tl_ui *, long d);
/* Scrolls the lanes the least that shows the current lane's rank from its header. */
void rank_visible(tl_ui *);
/* Many ranks: opens rank ri and folds the others to their header row (accordion mode). */
void rank_focus(tl_ui *, size_t ri);
void rank_move(tl_ui *, int dir);
/* Pins rank ri to the top, or unpins it when pinned; returns 1 when it is now pinned. */
int lanes_pin_toggle(tl_ui *, size_t ri);
/* Shows only the lanes whose label or kind matches pattern (PCRE2, caseless unless it has an
 * upper-case letter); NULL or "" shows every lane again. Returns 0, or -1 with pcre2's message
 * in err (the filter is then unchanged). */
int lanes_filter_set(tl_ui *, const char *pattern, char *err, size_t errlen);
/* Frees the pins and the filter. */
void lanes_free(tl_ui *);
/* The lane of a screen row, or SIZE_MAX. */
size_t lane_at_row(const tl_ui *, int row);
/* The lane showing track ti of rank ri (with reveal, making it shown when it is hidden). */
size_t lane_of_track(tl_ui *, size_t ri, size_t ti, int reveal);

/* timeline_links.c: link-launcher, link-kernels, link-partner; the markers on the ends of the
 * selection's links (drawn over the lanes); freeing its state. */
void timeline_link_action(tl_ui *, int act);
void timeline_links_draw(tl_ui *);
void timeline_links_free(tl_ui *);

/* timeline_marks.c: the critical action, n/N along the path while it is the active mark, Esc
 * clearing the marks (returns 1 when it took the action); drawing them on a lane row (headers:
 * the finding's span and the path; device lanes: the path's segments of their kind) and on the
 * ruler; a search makes its matches n/N's again; freeing the state. */
int timeline_marks_action(tl_ui *, int act);
void timeline_marks_draw(tl_ui *, const ui_lane *, int y);
void timeline_marks_ruler(tl_ui *);
void timeline_marks_search_started(tl_ui *);
void timeline_marks_free(tl_ui *);

/* timeline_counters.c: the counter lanes (memory, frequency): U shows them, * jumps to the
 * peak of the one under the cursor. */
void timeline_counters_toggle(tl_ui *);
void timeline_counter_draw(tl_ui *, const ui_lane *, int y);
/* The counter's value at the cursor for the status line ("  = 1.16 GiB"): chars written. */
int timeline_counter_status(tl_ui *, const ui_lane *, char *buf, size_t len);
void timeline_counter_peak(tl_ui *);
void timeline_counters_free(tl_ui *);

/* timeline.c: the view's state (its view_ops, in timeline_actions.c, open and close it) */
void *timeline_open(tl_ui *);
void timeline_close(tl_ui *, void *st);
void timeline_resize(tl_ui *, void *st);
/* label-width: wider up to half the screen, then the narrowest, then fitted again */
void timeline_labels_cycle(tl_ui *);
#define BUBBLE_LIST_MAX 10000 /* bubble-largest walks this many, largest first */
/* The selection becomes slice idx of track ti of rank ri (the detail pane starts from its top). */
void select_slice(tl_ui *, size_t ri, size_t ti, size_t idx);
/* Selects slice idx of track ti of rank ri, makes its lane current and visible. */
void timeline_select(tl_ui *, size_t ri, size_t ti, size_t idx, int zoom_to);

/* timeline_nav.c: the actions that jump (dir > 0 forward, else back) */
void bubble_step(tl_ui *, int dir);
void bubble_largest(tl_ui *, int dir);
void match_go(tl_ui *, const tl_match_pos *m);
void search_step(tl_ui *, int dir);
/* The next or previous step from the one at the cursor, or from the cursor when it is in none. */
void step_move(tl_ui *, int dir);
/* Marks the step at the cursor (its span over the ranks) as the range. */
void mark_step(tl_ui *);

/* timeline_draw.c */
void timeline_draw(tl_ui *, void *st, int x, int y, int w, int h);

#endif
