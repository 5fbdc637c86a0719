/* The DP panel's concurrency chart: the metric dp_analysis computes per engine step, for every
 * rank, as rows of marks or as overlaid lines, the steps where the first and the last rank ran
 * out of work marked. */
#include "config.h"
#include "ui/common.h"
#include "ui/dp_panel_int.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the concurrency chart ---------------------------------------------------------------- */

/* The first screen column of step s in a plot of pw columns over nsteps steps. */
static int
step_col(int s, int nsteps, int pw)
{
	if (nsteps <= pw) /* a step spans columns: its first */
		return (int)(((int64_t)s * pw + nsteps - 1) / nsteps);
	return (int)((int64_t)s * pw / nsteps); /* a column spans steps: the one holding it */
}

/* The steps [*s0, *s1) that column c of pw shows. */
static void
col_steps(int c, int nsteps, int pw, int *s0, int *s1)
{
	*s0 = (int)((int64_t)c * nsteps / pw);
	*s1 = (int)((int64_t)(c + 1) * nsteps / pw);
	if (*s1 <= *s0)
		*s1 = *s0 + 1;
}

/* The largest known value of steps [s0, s1) of a rank: 1 and *v, 0 when it ran none of them,
 * -1 when it ran them without stats. */
static int
col_value_of(const tl_dp_rank *d, int metric, int s0, int s1, double *v)
{
	if ((size_t)s0 >= d->nsteps)
		return 0;
	int any = -1;
	for (int s = s0; s < s1 && (size_t)s < d->nsteps; s++) {
		double x = tlq_dp_step_value(&d->steps[s], metric);
		if (x == TL_DP_NONE)
			continue;
		if (any < 0 || x > *v)
			*v = x;
		any = 1;
	}
	return any;
}

int
dp_level(const tl_dp *d)
{
	if (d == NULL)
		return 0;
	for (size_t i = 0; i < d->n; i++)
		for (size_t k = 0; k < d->ranks[i].nsteps; k++)
			if (d->ranks[i].steps[k].has_stats)
				return 2;
	return 1;
}

const char *const dp_metric_titles[TL_DP__METRICS] = {"out_tokens", "running requests",
                                                      "waiting requests", "KV-cache use"};

static void
chart_title(tl_ui *ui, dp_state *s, const tl_dp *d, int x, int y, int w, int early, int late)
{
	tl_screen *sc = &ui->scr;
	double vmax = tlq_dp_metric_max(d->ranks, d->n, s->metric);
	char k[24], mx[32];
	if (s->metric == TL_DP_CACHE)
		snprintf(mx, sizeof mx, "%.0f%%", vmax * 100);
	else
		snprintf(mx, sizeof mx, "%.4g", vmax);
	if (dp_level(d) < 2) {
		screen_printf(sc, x + 1, y, w - 1, SLOT_LABEL,
		              "engine steps (no stats in their marks)   end steps: earliest "
		              "%d, latest %d",
		              early, late);
		return;
	}
	screen_printf(sc, x + 1, y, w - 1, SLOT_LABEL,
	              "%s per step, max %s (%s: next)   end steps: earliest %d, latest %d",
	              dp_metric_titles[s->metric], mx,
	              keymap_key_hint(&ui->keys, ACT_CHART_NEXT, k, sizeof k), early, late);
}

/* The step axis under a plot at px of pw columns: 0, and the end steps ticked and numbered
 * beside their ticks where the numbers fit. */
static void
chart_axis(tl_ui *ui, int px, int y, int pw, int nsteps, int early, int late)
{
	tl_screen *sc = &ui->scr;
	uint32_t line = ui->utf8 ? 0x2500 : '-', tick = ui->utf8 ? 0x2534 : '^';
	screen_fill(sc, px, y, pw, line, SLOT_LABEL);
	screen_put(sc, px, y, '0', SLOT_LABEL, 0);
	int busy_to = 1, mc[2] = {step_col(early, nsteps, pw), step_col(late, nsteps, pw)};
	for (int m = 0; m < 2; m++)
		if (mc[m] >= 0 && mc[m] < pw)
			screen_put(sc, px + mc[m], y, tick, SLOT_MARK, 0);
	for (int m = 0; m < 2; m++) { /* left to right: each number after the last one drawn */
		if (m == 1 && mc[1] == mc[0])
			break;
		char t[16];
		int n = snprintf(t, sizeof t, "%d", m ? late : early);
		int at = mc[m] + 1 + n <= pw && (m == 1 || mc[m] + 1 + n < mc[1]) ? mc[m] + 1
		         : mc[m] - n >= busy_to + 1 && (m == 1 || mc[m] > mc[0])  ? mc[m] - n
		                                                                  : -1;
		if (at < busy_to + 1 || (m == 1 && at <= mc[0]) || at < 0)
			continue;
		screen_printf(sc, px + at, y, n, SLOT_LABEL, "%s", t);
		busy_to = at + n;
	}
}

/* One line per rank: eighth blocks (or ASCII levels) per column; the end steps as lines where
 * a rank had already stopped. */
void
dp_chart_rows(tl_ui *ui, dp_state *s, const tl_dp *d, int x, int y, int w, uint8_t slot)
{
	tl_screen *sc = &ui->scr;
	int early, late;
	tlq_dp_end_steps(d->ranks, d->n, &early, &late);
	int nsteps = late + 1, px = x + 8, pw = w - 9;
	if (nsteps <= 0 || pw < 4)
		return;
	double vmax = tlq_dp_metric_max(d->ranks, d->n, s->metric);
	chart_title(ui, s, d, x, y, w, early, late);
	static const char ascii_levels[] = " .:-=+*#%";
	int stats = dp_level(d) == 2;
	size_t sel_row = s->sel < s->norder ? s->order[s->sel] : SIZE_MAX;
	int me = step_col(early, nsteps, pw), ml = step_col(late, nsteps, pw);
	for (size_t i = 0; i < d->n; i++) {
		int yy = y + 1 + (int)i, sel = i == sel_row;
		screen_printf(sc, x + 1, yy, 6, sel ? SLOT_LABEL_CURRENT : SLOT_RANK, "%6d",
		              ui->tr->ranks[d->ranks[i].rank]->rank);
		for (int c = 0; c < pw; c++) {
			int s0, s1;
			double v = 0;
			col_steps(c, nsteps, pw, &s0, &s1);
			int k = col_value_of(&d->ranks[i], s->metric, s0, s1, &v);
			if (k == 0) {
				if (c == me || c == ml)
					screen_put(sc, px + c, yy, ui->utf8 ? 0x2502 : '|',
					           SLOT_MARK, SCR_GLYPH);
				continue;
			}
			if (k < 0 && !stats) { /* no mark says anything: where it ran */
				screen_put(sc, px + c, yy, ui->utf8 ? 0x2501 : '=',
				           sel ? SLOT_LABEL_CURRENT : slot, SCR_GLYPH);
				continue;
			}
			if (k < 0) { /* it ran, its mark said nothing */
				screen_put(sc, px + c, yy, ui->utf8 ? 0x00b7 : '?', SLOT_FREE,
				           SCR_GLYPH);
				continue;
			}
			int lv = vmax > 0 ? (int)ceil(v / vmax * 8) : 0;
			lv = lv < 0 ? 0 : lv > 8 ? 8 : lv;
			uint32_t ch = ui->utf8 ? (lv == 0 ? 0x2581 : 0x2580 + (uint32_t)lv)
			                       : (uint32_t)ascii_levels[lv == 0 ? 1 : lv];
			screen_put(sc, px + c, yy, ch,
			           lv == 0 ? SLOT_FREE
			           : sel   ? SLOT_LABEL_CURRENT
			                   : slot,
			           SCR_GLYPH);
		}
	}
	chart_axis(ui, px, y + 1 + (int)d->n, pw, nsteps, early, late);
}

/* Every rank in one plot of braille dots (2 x 4 per cell), the selected rank's cells in the
 * highlight; for more ranks than rows. */
void
dp_chart_overlay(tl_ui *ui, dp_state *s, const tl_dp *d, int x, int y, int w, int h, uint8_t slot)
{
	tl_screen *sc = &ui->scr;
	int early, late;
	tlq_dp_end_steps(d->ranks, d->n, &early, &late);
	int nsteps = late + 1, px = x + 8, pw = w - 9, ph = h - 2;
	if (nsteps <= 0 || pw < 4 || ph < 1)
		return;
	double vmax = tlq_dp_metric_max(d->ranks, d->n, s->metric);
	chart_title(ui, s, d, x, y, w, early, late);
	size_t cells = (size_t)pw * (size_t)ph;
	uint8_t *dots = xcalloc(cells, 1), *hit = xcalloc(cells, 1);
	size_t sel_row = s->sel < s->norder ? s->order[s->sel] : SIZE_MAX;
	int xd_n = 2 * pw, yd_n = 4 * ph;
	static const uint8_t bit[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
	for (size_t i = 0; i < d->n; i++) {
		int prev = -1;
		for (int xd = 0; xd < xd_n; xd++) {
			int st = (int)((int64_t)xd * nsteps / xd_n);
			double v = (size_t)st < d->ranks[i].nsteps
			               ? tlq_dp_step_value(&d->ranks[i].steps[st], s->metric)
			               : TL_DP_NONE;
			if (v == TL_DP_NONE) {
				prev = -1;
				continue;
			}
			int yd = vmax > 0 ? (int)lround((1 - v / vmax) * (yd_n - 1)) : yd_n - 1;
			int a = prev < 0 ? yd : prev < yd ? prev : yd, b = prev > yd ? prev : yd;
			for (int q = a; q <= b; q++) {
				size_t cell = (size_t)(q / 4) * (size_t)pw + (size_t)(xd / 2);
				dots[cell] |= bit[xd % 2][q % 4];
				if (i == sel_row)
					hit[cell] = 1;
			}
			prev = yd;
		}
	}
	char t[16];
	if (s->metric == TL_DP_CACHE)
		snprintf(t, sizeof t, "%.0f%%", vmax * 100);
	else
		snprintf(t, sizeof t, "%.4g", vmax);
	screen_printf(sc, x + 1, y + 1, 6, SLOT_LABEL, "%6s", t);
	screen_printf(sc, x + 1, y + ph, 6, SLOT_LABEL, "%6s", "0");
	int me = step_col(early, nsteps, pw), ml = step_col(late, nsteps, pw);
	for (int r = 0; r < ph; r++)
		for (int c = 0; c < pw; c++) {
			size_t cell = (size_t)r * (size_t)pw + (size_t)c;
			if (dots[cell] == 0) {
				if (c == me || c == ml)
					screen_put(sc, px + c, y + 1 + r, ui->utf8 ? 0x2502 : '|',
					           SLOT_MARK, SCR_GLYPH);
				continue;
			}
			uint32_t ch = ui->utf8 ? 0x2800 + dots[cell] : hit[cell] ? '#' : '*';
			screen_put(sc, px + c, y + 1 + r, ch, hit[cell] ? SLOT_LABEL_CURRENT : slot,
			           SCR_GLYPH);
		}
	free(dots);
	free(hit);
	chart_axis(ui, px, y + 1 + ph, pw, nsteps, early, late);
}
