/* The timeline view (the base of the view stack): a time ruler, one group of lanes per rank, a
 * status line. What other files may ask of it; its state is its own (ui/timeline_int.h, read
 * only by the timeline_*.c files). */
#ifndef TL_UI_TIMELINE_H
#define TL_UI_TIMELINE_H
#include <stddef.h>
#include <stdint.h>

#include "ui/view.h"

/* Shows a place: the lanes of trace rank `rank` (an index into tr->ranks) from its header, or
 * with sel the lane of that slice, selected; and the time range [t0, t1) centred. The one way
 * for a panel to send the user to the timeline. Returns -1 when no lane shows that rank. */
int timeline_reveal(tl_ui *, size_t rank, int64_t t0, int64_t t1, const ui_slice_ref *sel);
/* The communication op of trace rank `rank` that starts at start, selected on its lane; without
 * such a slice, the range [start, end) on the rank. As timeline_reveal. */
int timeline_reveal_comm(tl_ui *, size_t rank, int64_t start, int64_t end);
/* Puts the header lane of trace rank ri first on screen and under the cursor. Returns 0, or
 * -1 when no lane shows that rank. */
int timeline_goto_rank(tl_ui *, size_t ri);
/* Moves the cursor to t, the view with it. */
void timeline_goto(tl_ui *, int64_t t);
int64_t timeline_cursor(const tl_ui *);
/* Centres the view on [t0, t1) (zooming out to show it with margins when wider). */
void timeline_show_range(tl_ui *, int64_t t0, int64_t t1);
/* Marks [t0, t1) and shows its statistics in the detail pane. */
void timeline_mark_range(tl_ui *, int64_t t0, int64_t t1);
/* Marks finding f's span on the lane headers of its rank(s) until cleared (Esc). */
struct tl_finding;
void timeline_mark_finding(tl_ui *, const struct tl_finding *f);
/* The step whose critical path is marked (timeline_marks.c), or NULL. */
const cp_step *timeline_critical_step(tl_ui *);
/* Searches slice names and goes to the first match after the cursor; "" repeats the last
 * search. Returns 0, or -1 with a message. */
int timeline_search(tl_ui *, const char *pattern);
int timeline_bubbles_shown(const tl_ui *);
/* The trace rank of the current lane, or SIZE_MAX. */
size_t timeline_current_rank(const tl_ui *);
/* Sets bookmark NAME at the cursor on the current rank and keeps it in the state directory
 * (ui/bookmarks.c). Returns 0, or -1 with a message. */
int bookmarks_add(tl_ui *, const char *name);
/* Deletes bookmark name (bookmarks.c); 0, or -1 with the message line saying why. */
int bookmarks_delete(tl_ui *, const char *name);
/* The last search, or NULL; and going to one of its matches (selected, in view). */
const tl_search *timeline_search_results(const tl_ui *);
void timeline_show_match(tl_ui *, const tl_match_pos *);
/* Pins trace rank ri to the top of the lanes, or unpins it; returns 1 when now pinned. */
int timeline_pin_rank(tl_ui *, size_t ri);
/* Shows only the lanes whose name or kind matches pattern; NULL or "" shows all again.
 * Returns 0, or -1 with a message. */
int timeline_filter_lanes(tl_ui *, const char *pattern);
/* Selects a bubble (a Free interval of tlq_bubble_*), shows it and says what it is. */
void timeline_show_bubble(tl_ui *, const tl_rl_bubble *);
/* Zooms to step id (its span over the ranks), the cursor at its start. Returns 0, or -1 with a
 * message when no rank has it. */
int timeline_goto_step(tl_ui *, int64_t id);
/* The step of the current rank at the cursor: returns 0 and sets *id, or -1. */
int timeline_step_at_cursor(const tl_ui *, int64_t *id);

/* For the main loop: the lane area for a screen of w x h with a pane of pane_h rows below
 * the lanes; the status line; the whole profile in view. */
/* The label column: n columns (kept so that 20 columns of time remain), 0: fitted to the lane
 * names. Says so in the message line; returns the width chosen, 0 for fitted. */
int timeline_labels_set(tl_ui *, int n);
void timeline_layout(tl_ui *, int w, int h, int pane_h);
void timeline_status(tl_ui *, int y);
void timeline_fit(tl_ui *);
/* Ranks came in while loading (tlq_poll): the lanes and the profile's extent grow; a view that
 * showed the whole profile keeps showing it. total: ranks the load will have; renumbered: the
 * load's end took out the slots of ranks that failed (pins and the selection go). */
void timeline_ranks_grew(tl_ui *, size_t total, int renumbered);
/* Every rank of the trace once (indexes into its ranks, into order: nranks of them), those of
 * the lanes on screen first, top down: the order the background populate takes them in. */
size_t timeline_rank_order(const tl_ui *, size_t *order);

/* Where the lanes were drawn, for scrolling the terminal by whole columns. */
typedef struct timeline_geometry {
	int64_t t0, colw;
	int ncols, x, y, h; /* the lane area: columns from x, rows y to y + h */
} timeline_geometry;
void timeline_geometry_get(const tl_ui *, timeline_geometry *);

/* A mouse event at screen cell (x, y): the wheel puts the cursor under the pointer, a press
 * and drag pan, a click selects. Returns 0 for a drag that was not one (no press before). */
enum { TM_PRESS, TM_DRAG, TM_RELEASE, TM_WHEEL };
int timeline_mouse(tl_ui *, int kind, int x, int y);

#endif
