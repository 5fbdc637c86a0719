#include "config.h"
#include "ui/viewport.h"

int64_t
vp_col_time(const tl_viewport *v, int col)
{
	return v->t0 + (int64_t)col * v->colw;
}

int
vp_time_col(const tl_viewport *v, int64_t t)
{
	int64_t d = t - v->t0;
	int64_t c = d >= 0 ? d / v->colw : -((-d + v->colw - 1) / v->colw);
	if (c < -1)
		c = -1;
	if (c > v->ncols)
		c = v->ncols;
	return (int)c;
}

int64_t
vp_max_colw(const tl_viewport *v)
{
	int64_t ext = v->t_max - v->t_min;
	if (ext < 1)
		ext = 1;
	int64_t m = ext * 4 / v->ncols;
	return m < 1000 ? 1000 : m;
}

void
vp_clamp(tl_viewport *v)
{
	if (v->colw < VP_MIN_COLW)
		v->colw = VP_MIN_COLW;
	if (v->colw > vp_max_colw(v))
		v->colw = vp_max_colw(v);
	int64_t span = v->colw * v->ncols;
	/* keep at least half a screen of the profile in view */
	int64_t lo = v->t_min - span / 2, hi = v->t_max - span / 2;
	if (hi < lo)
		hi = lo;
	if (v->t0 < lo)
		v->t0 = lo;
	if (v->t0 > hi)
		v->t0 = hi;
}

void
vp_follow_cursor(tl_viewport *v)
{
	int64_t t1 = v->t0 + v->colw * v->ncols;
	if (v->cursor < v->t0 || v->cursor >= t1) {
		v->t0 = v->cursor - v->colw * (v->ncols / 2);
		vp_clamp(v);
	}
	t1 = v->t0 + v->colw * v->ncols;
	if (v->cursor < v->t0)
		v->cursor = v->t0;
	if (v->cursor >= t1)
		v->cursor = t1 - 1;
}

void
vp_fit(tl_viewport *v)
{
	int64_t ext = v->t_max - v->t_min;
	if (ext < 1)
		ext = 1;
	int n = v->ncols > 2 ? v->ncols - 2 : 1;
	v->colw = (ext + n - 1) / n;
	if (v->colw < VP_MIN_COLW)
		v->colw = VP_MIN_COLW;
	v->t0 = v->t_min - v->colw;
	if (v->cursor < v->t0 || v->cursor >= v->t0 + v->colw * v->ncols)
		v->cursor = v->t_min;
}

void
vp_show_range(tl_viewport *v, int64_t a, int64_t b)
{
	if (b <= a)
		b = a + 1;
	int64_t span = b - a;
	int n = v->ncols > 4 ? v->ncols - 4 : v->ncols;
	int64_t colw = (span + n - 1) / n;
	if (colw < VP_MIN_COLW)
		colw = VP_MIN_COLW;
	v->colw = colw;
	v->t0 = a + span / 2 - colw * (v->ncols / 2);
	vp_clamp(v);
	if (v->cursor < a || v->cursor >= b)
		v->cursor = a;
	vp_follow_cursor(v);
}

int
vp_zoom(tl_viewport *v, int in)
{
	int c = vp_time_col(v, v->cursor);
	if (c < 0 || c >= v->ncols)
		c = v->ncols / 2;
	int64_t old = v->colw, nw;
	if (in)
		nw = old * 2 / 3 < old ? old * 2 / 3 : old - 1;
	else
		nw = old * 3 / 2 > old ? old * 3 / 2 : old + 1;
	if (nw < VP_MIN_COLW)
		nw = VP_MIN_COLW;
	if (nw > vp_max_colw(v))
		nw = vp_max_colw(v);
	if (nw == old)
		return 0;
	/* the cursor keeps its column */
	int64_t off = v->cursor - (v->t0 + (int64_t)c * old);
	v->colw = nw;
	/* off is the cursor's place in its column, or, with the cursor off screen, up to the whole
	 * span: its product with a column width may pass int64 */
	v->t0 = v->cursor - (int64_t)c * nw - (int64_t)((__int128)off * nw / old);
	vp_clamp(v);
	vp_follow_cursor(v);
	return 1;
}

void
vp_pan(tl_viewport *v, int64_t cols)
{
	v->t0 += cols * v->colw;
	vp_clamp(v);
	int64_t t1 = v->t0 + v->colw * v->ncols;
	if (v->cursor < v->t0)
		v->cursor += (v->t0 - v->cursor + v->colw - 1) / v->colw * v->colw;
	if (v->cursor >= t1)
		v->cursor -= (v->cursor - t1) / v->colw * v->colw + v->colw;
}

void
vp_set_ncols(tl_viewport *v, int ncols)
{
	int64_t span = v->colw * v->ncols;
	int old = v->ncols;
	v->ncols = ncols;
	if (old > 0 && old != ncols && span > 0) {
		int64_t mid = v->t0 + span / 2;
		v->colw = span / ncols > VP_MIN_COLW ? span / ncols : VP_MIN_COLW;
		v->t0 = mid - v->colw * ncols / 2;
	}
}
