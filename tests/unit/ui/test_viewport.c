/* Unit tests of the timeline's viewport maths (src/ui/viewport.c): the numbers below are worked
 * out from the definitions (ncols columns of colw ns from t0 on a fixed grid, the cursor kept in
 * view), not read back from the code. */
#include "config.h"
#include "ui/viewport.h"

#include <stdint.h>

#include "../test.h"

/* A 1 ms profile from t = 1,000,000 ns on 100 columns. */
static tl_viewport
profile(void)
{
	tl_viewport v = {.t_min = 1000000, .t_max = 2000000, .ncols = 100, .colw = 1};
	v.cursor = v.t_min;
	vp_fit(&v);
	return v;
}

static void
test_fit(void)
{
	tl_viewport v = profile();
	/* 1,000,000 ns over 98 columns: ceil(1e6 / 98) = 10205 ns, one column of margin left */
	CHECK_EQ_I64(v.colw, 10205, "fit: the profile spans all but two columns");
	CHECK_EQ_I64(v.t0, 1000000 - 10205, "fit: one column before the start");
	CHECK(v.t0 <= v.t_min && v.t0 + v.colw * v.ncols >= v.t_max,
	      "fit: the whole profile shows");
	CHECK_EQ_I64(v.cursor, 1000000, "fit: the cursor stays where it was in view");
	tl_viewport e = {.t_min = 5, .t_max = 5, .ncols = 100, .colw = 7, .cursor = 5};
	vp_fit(&e);
	CHECK(e.colw >= VP_MIN_COLW && e.t0 <= 5 && e.t0 + e.colw * 100 > 5,
	      "fit: an empty profile still has a column width and shows its instant");
}

static void
test_columns(void)
{
	tl_viewport v = {.t0 = 1000, .colw = 10, .ncols = 50};
	CHECK_EQ_I64(vp_col_time(&v, 0), 1000, "column 0 starts at t0");
	CHECK_EQ_I64(vp_col_time(&v, 7), 1070, "column 7 starts 7 widths on");
	int round_trip = 1;
	for (int c = 0; c < v.ncols; c++)
		round_trip &= vp_time_col(&v, vp_col_time(&v, c)) == c &&
		              vp_time_col(&v, vp_col_time(&v, c) + v.colw - 1) == c;
	CHECK(round_trip, "every time of a column maps back to it");
	CHECK_EQ_I64(vp_time_col(&v, 999), -1, "just left of the view: -1");
	CHECK_EQ_I64(vp_time_col(&v, -5000000), -1, "far left: -1");
	CHECK_EQ_I64(vp_time_col(&v, 1500), 50, "the end of the view: ncols");
	CHECK_EQ_I64(vp_time_col(&v, 9000000), 50, "far right: ncols");
}

static void
test_pan(void)
{
	tl_viewport v = profile();
	vp_zoom(&v, 1);
	vp_zoom(&v, 1);
	v.t0 = v.t_min + 100 * v.colw; /* in the middle, away from the clamps */
	v.cursor = v.t0 + 10 * v.colw + 3;
	int64_t t0 = v.t0, cur = v.cursor;
	vp_pan(&v, 1);
	CHECK_EQ_I64(v.t0 - t0, v.colw, "a one-column pan moves the view by one column exactly");
	CHECK_EQ_I64(v.cursor, cur, "the cursor keeps its time while it stays in view");
	vp_pan(&v, -1);
	CHECK_EQ_I64(v.t0, t0, "pan right then left returns to the same grid");
	vp_pan(&v, 20);
	CHECK(v.cursor >= v.t0 && v.cursor < v.t0 + v.colw * v.ncols,
	      "a pan that leaves the cursor behind brings it along");
	CHECK_EQ_I64((v.cursor - cur) % v.colw, 0, "the cursor moves by whole columns");
	vp_pan(&v, -1000000);
	CHECK_EQ_I64(v.t0, v.t_min - v.colw * v.ncols / 2,
	             "far left: at least half a screen of the profile stays in view");
	vp_pan(&v, 1000000);
	CHECK_EQ_I64(v.t0, v.t_max - v.colw * v.ncols / 2, "far right: the same at the end");
}

static void
test_zoom(void)
{
	tl_viewport v = profile();
	v.cursor = 1400000;
	int col = vp_time_col(&v, v.cursor);
	int64_t old = v.colw;
	CHECK(vp_zoom(&v, 1), "zoom in changes the view");
	CHECK_EQ_I64(v.colw, old * 2 / 3, "zoom in: columns 2/3 as wide");
	CHECK_EQ_I64(vp_time_col(&v, v.cursor), col, "zoom in: the cursor keeps its column");
	old = v.colw;
	vp_zoom(&v, 0);
	CHECK_EQ_I64(v.colw, old * 3 / 2, "zoom out: columns 3/2 as wide");
	CHECK_EQ_I64(vp_time_col(&v, v.cursor), col, "zoom out: the cursor keeps its column");
	int n = 0;
	while (vp_zoom(&v, 1) && n < 1000)
		n++;
	CHECK_EQ_I64(v.colw, VP_MIN_COLW, "zooming in stops at 1 ns per column");
	CHECK(!vp_zoom(&v, 1), "zoom in at the limit says nothing changed");
	while (vp_zoom(&v, 0) && n < 2000)
		n++;
	/* the widest column shows the profile in a quarter of the view: 1e6 * 4 / 100 */
	CHECK_EQ_I64(vp_max_colw(&v), 40000, "the widest column: the profile in a quarter view");
	CHECK_EQ_I64(v.colw, 40000, "zooming out stops at the widest column");
	CHECK(!vp_zoom(&v, 0), "zoom out at the limit says nothing changed");
	CHECK(v.cursor >= v.t0 && v.cursor < v.t0 + v.colw * v.ncols, "the cursor stays in view");
}

static void
test_show_range(void)
{
	tl_viewport v = profile();
	v.cursor = 1900000;
	vp_show_range(&v, 1200000, 1200960);
	/* 960 ns over 96 columns (two of margin each side): 10 ns a column */
	CHECK_EQ_I64(v.colw, 10, "show range: the range fills all but four columns");
	CHECK(v.t0 <= 1200000 && v.t0 + v.colw * v.ncols >= 1200960, "show range: it all shows");
	CHECK_EQ_I64(v.t0, 1200480 - 10 * 50, "show range: centred on its middle");
	CHECK_EQ_I64(v.cursor, 1200000, "show range: a cursor outside it moves to its start");
	vp_show_range(&v, 1200100, 1200100);
	CHECK(v.colw >= VP_MIN_COLW && vp_time_col(&v, 1200100) >= 0 &&
	          vp_time_col(&v, 1200100) < v.ncols,
	      "show range: an empty range still shows its instant");
}

static void
test_follow_and_resize(void)
{
	tl_viewport v = profile();
	vp_show_range(&v, 1100000, 1101000);
	v.cursor = 1700000;
	vp_follow_cursor(&v);
	CHECK(v.cursor >= v.t0 && v.cursor < v.t0 + v.colw * v.ncols,
	      "the view follows a cursor that left it");
	CHECK_EQ_I64(vp_time_col(&v, v.cursor), v.ncols / 2, "and centres it");
	int64_t span = v.colw * v.ncols, mid = v.t0 + span / 2;
	vp_set_ncols(&v, 50);
	CHECK_EQ_I64(v.ncols, 50, "resize: the new width");
	CHECK_EQ_I64(v.colw, span / 50, "resize: the same time span on fewer columns");
	CHECK(v.t0 + v.colw * v.ncols / 2 - mid < v.colw &&
	          mid - (v.t0 + v.colw * v.ncols / 2) < v.colw,
	      "resize: around the same middle");
}

int
main(void)
{
	test_fit();
	test_columns();
	test_pan();
	test_zoom();
	test_show_range();
	test_follow_and_resize();
	return test_done();
}
