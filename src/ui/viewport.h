/* The timeline's viewport maths, pure: ncols columns of colw ns from t0, on a fixed grid so that
 * a one-column pan moves every column by exactly one, and a cursor kept inside the view. No
 * screen, no trace: unit-tested on its own (tests/unit/test_viewport.c). */
#ifndef TL_UI_VIEWPORT_H
#define TL_UI_VIEWPORT_H
#include <stdint.h>

#define VP_MIN_COLW 1 /* ns per column at the deepest zoom */

typedef struct tl_viewport {
	int64_t t0, colw; /* ns, epoch; ns per column */
	int64_t cursor;   /* ns, epoch */
	int ncols;
	int64_t t_min, t_max; /* the profile's extent */
} tl_viewport;

/* The start of column col. */
int64_t vp_col_time(const tl_viewport *, int col);
/* The column of time t: -1 left of the view, ncols right of it. */
int vp_time_col(const tl_viewport *, int64_t t);
/* The widest column: the whole profile fits in a quarter of the view. */
int64_t vp_max_colw(const tl_viewport *);
/* Keeps colw within its bounds and at least half a screen of the profile in view. */
void vp_clamp(tl_viewport *);
/* Keeps the cursor inside the view by moving the view. */
void vp_follow_cursor(tl_viewport *);
/* The whole profile, with a column of margin each side. */
void vp_fit(tl_viewport *);
/* Centres [a, b) with two columns of margin each side; the cursor moves to a when outside it. */
void vp_show_range(tl_viewport *, int64_t a, int64_t b);
/* Zooms in (2/3) or out (3/2) around the cursor, which keeps its column. Returns 0 when the
 * zoom is at its limit and nothing changed. */
int vp_zoom(tl_viewport *, int in);
/* Moves the view by cols columns; the cursor keeps its time unless it would leave the view. */
void vp_pan(tl_viewport *, int64_t cols);
/* A new width: the time span in view stays, around its middle. */
void vp_set_ncols(tl_viewport *, int ncols);

#endif
