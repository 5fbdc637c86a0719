/* Comparing two runs in the viewer (tl view A --compare B): B's lanes under A's for each rank,
 * on A's clock, aligned on the start of the step at the cursor (or of a stage in it: :align);
 * a delta lane per rank with, per stage instance, how much longer or shorter B's stage took
 * (tl diff's numbers, from the query layer); and the ranked changes of tl diff for the diff
 * panel. The timeline's drawing and status line call in here; its lane list (timeline_lanes.c)
 * adds B's lanes from ui_compare, and the diff panel's Enter moves the timeline itself, so this
 * file calls nothing of the timeline's but its state. */
#ifndef TL_UI_COMPARE_H
#define TL_UI_COMPARE_H
#include <stddef.h>
#include <stdint.h>

#include "query/diff.h"
#include "ui/view.h"

/* One stage instance of A with tl diff's per-rank values of its (stage, step). */
typedef struct ui_delta_bar {
	int64_t t0, t1; /* A's instance, A's clock */
	int64_t a, b;   /* the stage's summed duration in the step on this rank, A and B (ns) */
	int has_a, has_b;
	const char *stage; /* borrowed from the diff side's names */
	int64_t step;      /* A's STEP_TIME id */
	int64_t step_b;    /* B's, -1 when B has none */
} ui_delta_bar;

typedef struct ui_compare {
	const tl_query *qb;
	const tl_trace *trb;
	char label_a[256], label_b[256]; /* as the user named them, cleaned for the screen */
	size_t *brank; /* per A rank index: B's rank of that number, or SIZE_MAX */
	tl_diff_side a, b;
	tl_diff_change *ch; /* tl diff's ranked changes */
	size_t nch;
	char verdict[512];
	ui_delta_bar **bars; /* per A rank index, by start */
	size_t *nbars, nranks;
	/* alignment: B's time + offset is A's time */
	int align_stage; /* 0: the step at the cursor; 1: stage `stage` of that step */
	char stage[64];
	int64_t offset;
	int64_t *edges; /* per frame: the timeline's column edges on B's clock */
	int nedges;
	tl_cell *cells, *cells2;
	size_t *dtrack; /* per column: the track of the dominant slice */
} ui_compare;

/* Gathers both sides as tl diff does and makes the delta bars. */
ui_compare *compare_open(const tl_query *qa, const tl_query *qb, const char *label_a,
                         const char *label_b);
void compare_free(ui_compare *);

/* Sets the offset for the step at the cursor; before drawing a frame. */
void compare_align_cursor(tl_ui *);
/* :align step | :align stage NAME. Returns 0, or -1 with the message line saying why. */
int compare_align(tl_ui *, const char *how);
/* Draws a UL_COMPARE or UL_DELTA lane at row y. */
void compare_draw_lane(tl_ui *, const void *lane, int y);
/* The status line's part: the delta at the cursor on the current rank ("" when none). */
void compare_status(tl_ui *, char *buf, size_t len);
/* "+3.912ms", "-1.2us": a duration with its sign. */
char *compare_signed_dur(int64_t d, char *buf, size_t len);

#endif
