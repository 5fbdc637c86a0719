/* The DP load-imbalance panel: for one RL stage and step, one row per rank with a bar of where
 * its stage ran and how long it then waited for the rank that finished last, its decode steps (a
 * dash where nothing counts them) and device idle share; max/mean, coefficient of variation, the
 * rank that finished last and the longest-running one (when another) on top. Where the stage ran
 * engine steps, dp_analysis' columns too (last step, steps behind: dp_analysis' bubble rate,
 * throughput, tokens, mean running and waiting requests, peak KV-cache use) and under the table the
 * concurrency chart: one mark number per step for every rank, the steps where the first and the
 * last rank ran out of work marked. Sortable; Enter jumps to that rank and window in the timeline.
 * Every number is the query layer's (tlq_imbalance, tlq_dp), the one `tl summary` prints. */
#include "config.h"
#include "ui/common.h"
#include "ui/dp_panel_int.h"
#include "ui/ops_panel.h"
#include "ui/timeline.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns, in screen order; the bar of where the rank ran sits after duration. Narrow
 * screens drop the columns of lowest priority first. dp: dp_analysis' numbers, shown where the
 * stage ran engine steps. */
enum {
	COL_RANK,
	COL_DURATION,
	COL_WAIT,
	COL_DECODE,
	COL_LAST,
	COL_BUBBLE,
	COL_TPUT,
	COL_TOKENS,
	COL_RUNNING,
	COL_WAITING,
	COL_CACHE,
	COL_IDLE,
	COL__COUNT
};

typedef struct col_def {
	const char *head, *sort_name;
	int width, prio;
	int dp; /* 1: shown where the stage ran engine steps; 2: where their marks gave stats */
} col_def;

static const col_def cols[COL__COUNT] = {
    [COL_RANK] = {"rank", "rank", 6, 100, 0},
    [COL_DURATION] = {"duration", "duration", 12, 90, 0},
    [COL_WAIT] = {"wait", "wait", 12, 80, 0},
    [COL_DECODE] = {"decode", "decode steps", 6, 70, 0},
    [COL_LAST] = {"last", "last step", 5, 15, 1},
    [COL_BUBBLE] = {"behind", "steps behind (bubble rate)", 6, 60, 1},
    [COL_TPUT] = {"tok/s", "throughput", 9, 50, 2},
    [COL_TOKENS] = {"tokens", "out tokens", 7, 40, 2},
    [COL_RUNNING] = {"run", "mean running requests", 5, 20, 2},
    [COL_WAITING] = {"queued", "mean waiting requests", 6, 10, 2},
    [COL_CACHE] = {"kv", "peak KV-cache use", 4, 25, 2},
    [COL_IDLE] = {"idle", "idle", 6, 30, 0},
};

#define BAR_MIN 10 /* narrower than this, the bar goes */
static const tl_imbalance *
current(tl_ui *ui, dp_state *s, const tl_imbalance **all, size_t *n)
{
	*n = tlq_imbalances(ui->q, all);
	if (*n == 0 && s->whole != NULL) {
		*all = s->whole;
		*n = 1;
	}
	return s->imb < *n ? &(*all)[s->imb] : NULL;
}

static char *
step_text(int64_t step, char *buf, size_t len)
{
	if (step < 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%" PRId64, step);
	return buf;
}

/* "stage rollout, step 1", or what the whole capture is called. */
static const char *
entry_name(tl_ui *ui, const tl_imbalance *im, char *buf, size_t len)
{
	if (im->stage == TL_STAGE_NONE) {
		snprintf(buf, len, "whole capture (no RL stage)");
		return buf;
	}
	char sb[160], st[24]; /* a role directory's name: untrusted */
	snprintf(buf, len, "stage %s, step %s",
	         ui_clean(ui, tlq_stage_name(ui->q, im->stage), sb, sizeof sb),
	         step_text(im->step, st, sizeof st));
	return buf;
}

/* dp_analysis' numbers of the entry, or NULL when its ranks ran no engine step. */
static const tl_dp *
current_dp(tl_ui *ui, const tl_imbalance *im)
{
	return im ? tlq_dp_of(ui->q, im->stage, im->step) : NULL;
}

static char *
ms_text(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	return buf;
}

/* The sort value of a row in a column (higher first; unknown lowest). */
static double
col_value(int col, const tl_imb_rank *x, const tl_dp_rank *d)
{
	switch (col) {
	case COL_DURATION:
		return (double)x->duration;
	case COL_WAIT:
		return (double)x->wait;
	case COL_DECODE:
		return x->decode_steps;
	case COL_IDLE:
		return x->idle_fraction;
	default:
		break;
	}
	if (d == NULL)
		return TL_DP_NONE;
	switch (col) {
	case COL_LAST:
		return d->max_step;
	case COL_BUBBLE:
		return d->bubble_rate_pct;
	case COL_TPUT:
		return d->throughput;
	case COL_TOKENS:
		return d->out_tokens;
	case COL_RUNNING:
		return d->mean_running;
	case COL_WAITING:
		return d->mean_waiting;
	case COL_CACHE:
		return d->peak_cache_usage;
	default:
		return 0;
	}
}

/* ---- row order ---------------------------------------------------------------------------- */

/* What the comparator reads: the rows, dp_analysis' (or NULL), the sort column. */
typedef struct row_order {
	const tl_imbalance *im;
	const tl_dp *dp;
	int key;
} row_order;

static int
cmp_row(const void *ctx, size_t i, size_t j)
{
	const row_order *o = ctx;
	const tl_imb_rank *x = &o->im->ranks[i], *y = &o->im->ranks[j];
	int c = 0;
	if (o->key != COL_RANK) {
		double u = col_value(o->key, x, o->dp ? &o->dp->ranks[i] : NULL);
		double v = col_value(o->key, y, o->dp ? &o->dp->ranks[j] : NULL);
		c = (u < v) - (u > v);
	}
	if (c == 0)
		c = (x->rank > y->rank) - (x->rank < y->rank);
	return c;
}

static void
order_rows(dp_state *s, const tl_imbalance *im, const tl_dp *dp)
{
	s->order = xreallocarray(s->order, im->n ? im->n : 1, sizeof *s->order);
	s->norder = im->n;
	for (size_t i = 0; i < im->n; i++)
		s->order[i] = i;
	row_order o = {.im = im, .dp = dp && dp->n == im->n ? dp : NULL, .key = s->sort};
	sort_index(s->order, im->n, cmp_row, &o);
}

/* ---- the table ---------------------------------------------------------------------------- */

/* Which columns fit in w, and the bar's width (0: none). */
static int
layout(int w, int level, int whole, int shown[COL__COUNT])
{
	for (int c = 0; c < COL__COUNT; c++)
		shown[c] = cols[c].dp <= level;
	shown[COL_IDLE] = !whole; /* engine-step spans: no device busy time is measured for them */
	for (;;) {
		int used = 1;
		for (int c = 0; c < COL__COUNT; c++)
			if (shown[c])
				used += cols[c].width + 1;
		int bar = w - used - 1;
		if (bar >= BAR_MIN)
			return bar;
		int low = -1;
		for (int c = 0; c < COL__COUNT; c++)
			if (shown[c] && cols[c].prio < 60 &&
			    (low < 0 || cols[c].prio < cols[low].prio))
				low = c;
		if (low < 0)
			return 0; /* the essential columns only, no bar */
		shown[low] = 0;
	}
}

static const char *
dash(const tl_ui *ui)
{
	return ui->utf8 ? "\u2013" : "-";
}

/* The text of a cell, right-aligned in its width. */
static void
cell_text(const tl_ui *ui, int col, const tl_imb_rank *x, const tl_dp_rank *d, char *buf,
          size_t len)
{
	int w = cols[col].width;
	char t[32];
	double v = col_value(col, x, d);
	switch (col) {
	case COL_DURATION:
		ms_text(x->duration, t, sizeof t);
		break;
	case COL_WAIT:
		ms_text(x->wait, t, sizeof t);
		break;
	case COL_DECODE: /* a dash, not a false 0, where nothing counts them */
		if (x->decode_steps >= 0)
			snprintf(t, sizeof t, "%d", x->decode_steps);
		else
			snprintf(t, sizeof t, "%s", dash(ui));
		break;
	case COL_IDLE:
		snprintf(t, sizeof t, "%.1f%%", x->idle_fraction * 100);
		break;
	case COL_LAST:
		if (d && d->max_step >= 0)
			snprintf(t, sizeof t, "%d", d->max_step);
		else
			snprintf(t, sizeof t, "%s", dash(ui));
		break;
	default:
		if (v == TL_DP_NONE)
			snprintf(t, sizeof t, "%s", dash(ui));
		else if (col == COL_BUBBLE)
			snprintf(t, sizeof t, "%.1f%%", v);
		else if (col == COL_CACHE) /* vLLM's gpu_cache_usage is a fraction */
			snprintf(t, sizeof t, "%.0f%%", v * 100);
		else if (col == COL_TOKENS)
			snprintf(t, sizeof t, "%.0f", v);
		else
			snprintf(t, sizeof t, "%.1f", v);
	}
	/* right-aligned by display width: the dash is one column, three bytes */
	int tw = (int)strlen(t) - (strcmp(t, "\u2013") == 0 ? 2 : 0);
	snprintf(buf, len, "%*s%s", w > tw ? w - tw : 0, "", t);
}
/* ---- drawing ------------------------------------------------------------------------------ */

/* The table's header at line y: the shown columns' names; over the bars (bw columns), what they
 * are, or the columns a narrow screen leaves out, named. */
static void
imb_header(tl_ui *ui, const tl_imbalance *im, const tl_dp *dp, const int *shown, int bw, int x,
           int y)
{
	tl_screen *sc = &ui->scr;
	int cx = x + 1;
	for (int c = 0; c < COL__COUNT; c++) {
		if (!shown[c])
			continue;
		screen_printf(sc, cx, y, cols[c].width, SLOT_LABEL, "%*s", cols[c].width,
		              cols[c].head);
		cx += cols[c].width + 1;
		if (c == COL_DURATION && bw > 0) {
			/* the columns a narrow screen leaves out are named first, never cut unsaid
			 */
			int every[COL__COUNT];
			layout(INT_MAX / 2, dp_level(dp), im->stage == TL_STAGE_NONE, every);
			char hid[160] = "";
			size_t hl = 0;
			int nh = 0;
			for (int k = 0; k < COL__COUNT; k++)
				nh += every[k] && !shown[k];
			if (nh > 0) {
				hl = (size_t)snprintf(hid, sizeof hid, "+%d hidden:", nh);
				for (int k = 0; k < COL__COUNT && hl < sizeof hid; k++)
					if (every[k] && !shown[k])
						hl += (size_t)snprintf(hid + hl, sizeof hid - hl,
						                       " %s", cols[k].head);
			}
			uint8_t hs = nh > 0 ? SLOT_DETAIL_KEY : SLOT_LABEL;
			screen_printf(sc, cx, y, bw, hs, "%-*s", bw, /* a cut shows "…" */
			              nh > 0 ? hid
			              : im->stage == TL_STAGE_NONE
			                  ? "where its engine steps ran (then waited for the last)"
			                  : "where it ran (then waited for the last to finish)");
			cx += bw + 1;
		}
	}
}

static void
imb_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	dp_state *s = state;
	const tl_imbalance *all, *im;
	size_t n;
	im = current(ui, s, &all, &n);
	char k1[24], k2[24], k3[24], k4[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (im == NULL) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " DP load imbalance  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k4, sizeof k4));
		if (ui->tr->nranks < 2) /* the sentences of `tl summary` */
			screen_printf(
			    sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			    "DP load imbalance: needs at least two ranks; this profile has %zu.",
			    ui->tr->nranks);
		else
			screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			              "DP load imbalance: no RL stage ran on two ranks or more.");
		return;
	}
	const tl_dp *dp = current_dp(ui, im);
	if (dp != NULL && dp->n != im->n)
		dp = NULL; /* (built from the same rows: never) */
	if (s->norder != im->n)
		order_rows(s, im, dp);
	char sb[160]; /* a role directory's name: untrusted */
	const char *stage = ui_clean(ui, tlq_stage_name(ui->q, im->stage), sb, sizeof sb);
	char en[200];
	screen_printf(
	    sc, x, y, w, SLOT_TITLE,
	    " DP load imbalance: %s   (%s stage, %s step, %s sort, Enter: timeline, %s: close)",
	    entry_name(ui, im, en, sizeof en),
	    keymap_key_hint(&ui->keys, ACT_STAGE_NEXT, k1, sizeof k1),
	    keymap_key_hint(&ui->keys, ACT_STEP_NEXT, k2, sizeof k2),
	    keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k3, sizeof k3),
	    keymap_key_hint(&ui->keys, ACT_QUIT, k4, sizeof k4));
	char sk[32], lr[48] = "";
	/* "slowest" would not say which: the rank every other one waits for is the one that
	 * finished last, not always the one that ran longest */
	if (im->st.longest != im->st.slowest)
		snprintf(lr, sizeof lr, "   longest running rank %s",
		         UI_RANK(ui->tr->ranks[im->ranks[im->st.longest].rank]->rank));
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "max/mean %.3f   cv %.3f   last to finish rank %d%s   skew %s   %zu ranks   "
	              "sorted by %s",
	              im->st.max_over_mean, im->st.cv,
	              ui->tr->ranks[im->ranks[im->st.slowest].rank]->rank, lr,
	              ms_text(im->st.skew, sk, sizeof sk), im->n, cols[s->sort].sort_name);
	int shown[COL__COUNT];
	int bw = layout(w, dp_level(dp), im->stage == TL_STAGE_NONE, shown);
	/* the rows left for the table and the chart: one line per rank when both fit, else the
	 * overlaid chart in half of them */
	int avail = h - 3, chart_h = 0, per_rank = 0;
	if (dp != NULL) {
		if ((int)im->n * 2 + 3 <= avail) {
			chart_h = (int)im->n + 2;
			per_rank = 1;
		} else if (avail >= 9) {
			chart_h = avail / 2;
		}
	}
	int rows = avail - (chart_h ? chart_h + 1 : 0);
	if (chart_h && rows > (int)im->n)
		rows = (int)im->n; /* the chart right under the table */
	imb_header(ui, im, dp, shown, bw, x, y + 2);
	int cx;
	if (rows < 1)
		return;
	ui_list_scroll(&s->sel, &s->top, im->n, rows);
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < im->n; i++) {
		if (im->ranks[i].start < lo)
			lo = im->ranks[i].start;
		if (im->ranks[i].end > hi)
			hi = im->ranks[i].end;
	}
	int64_t span = hi > lo ? hi - lo : 1;
	uint8_t slot = (uint8_t)theme_stage_slot(stage);
	uint32_t wait_ch = ui->utf8 ? 0x2500 : '-'; /* ─ */
	for (int r = 0; r < rows && s->top + (size_t)r < im->n; r++) {
		size_t row = s->top + (size_t)r;
		size_t i = s->order[row];
		const tl_imb_rank *v = &im->ranks[i];
		const tl_dp_rank *d = dp ? &dp->ranks[i] : NULL;
		int yy = y + 3 + r, sel = row == s->sel;
		if (sel)
			screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		cx = x + 1;
		for (int c = 0; c < COL__COUNT; c++) {
			if (!shown[c])
				continue;
			char t[48];
			if (c == COL_RANK)
				screen_printf(sc, cx, yy, 6, sel ? SLOT_LABEL_CURRENT : SLOT_RANK,
				              "%6d", ui->tr->ranks[v->rank]->rank);
			else {
				cell_text(ui, c, v, d, t, sizeof t);
				screen_printf(sc, cx, yy, cols[c].width, SLOT_NORMAL, "%s", t);
			}
			cx += cols[c].width + 1;
			if (c == COL_DURATION && bw > 0) {
				int a = (int)((v->start - lo) * bw / span),
				    b = (int)((v->end - lo) * bw / span);
				if (b <= a)
					b = a + 1;
				if (b > bw)
					b = bw;
				screen_fill(sc, cx + a, yy, b - a, ' ', slot);
				for (int k = b; k < bw; k++)
					screen_put(sc, cx + k, yy, wait_ch, SLOT_FREE, SCR_GLYPH);
				cx += bw + 1;
			}
		}
	}
	if (chart_h == 0)
		return;
	int cy = y + 3 + rows + 1;
	if (per_rank)
		dp_chart_rows(ui, s, dp, x, cy, w, slot);
	else
		dp_chart_overlay(ui, s, dp, x, cy, w, chart_h, slot);
}

/* ---- actions -------------------------------------------------------------------------------- */

/* The entry of the next (dir > 0) or previous stage in the same step, or of the same stage in
 * the next or previous step (by_step). */
static size_t
cycle(const tl_imbalance *v, size_t n, size_t cur, int dir, int by_step)
{
	size_t best = SIZE_MAX, wrap = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (i == cur)
			continue;
		int same = by_step ? v[i].stage == v[cur].stage : v[i].step == v[cur].step;
		if (!same)
			continue;
		int64_t a = by_step ? v[i].step : v[i].stage,
		        c = by_step ? v[cur].step : v[cur].stage;
		int64_t ba = best == SIZE_MAX ? 0 : (by_step ? v[best].step : v[best].stage);
		int64_t wa = wrap == SIZE_MAX ? 0 : (by_step ? v[wrap].step : v[wrap].stage);
		if (dir > 0) {
			if (a > c && (best == SIZE_MAX || a < ba))
				best = i;
			if (wrap == SIZE_MAX || a < wa)
				wrap = i;
		} else {
			if (a < c && (best == SIZE_MAX || a > ba))
				best = i;
			if (wrap == SIZE_MAX || a > wa)
				wrap = i;
		}
	}
	return best != SIZE_MAX ? best : wrap;
}

static void
jump(tl_ui *ui, const tl_imbalance *im, const tl_imb_rank *v)
{
	const tl_rank *r = ui->tr->ranks[v->rank];
	char d[32], wt[32];
	ui_view_close(ui, &dp_panel_view);
	char en[200], st[24];
	if (im->stage == TL_STAGE_NONE)
		snprintf(en, sizeof en, "the whole capture");
	else
		snprintf(en, sizeof en, "%s step %s", tlq_stage_name(ui->q, im->stage),
		         step_text(im->step, st, sizeof st));
	ui_message(ui, 0, "Rank %d, %s: %s, then waited %s for the last to finish", r->rank, en,
	           ms_text(v->duration, d, sizeof d), ms_text(v->wait, wt, sizeof wt));
	/* its stage slice on the stage lane, selected and zoomed to */
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		if (t->kind != TL_LANE_STAGE)
			continue;
		size_t k = track_first_starting_at(t, v->start);
		if (k < t->n && t->v[k].start == v->start) {
			ui_slice_ref sel = {v->rank, ti, k};
			timeline_reveal(ui, v->rank, v->start, v->end, &sel);
			return;
		}
	}
	timeline_reveal(ui, v->rank, v->start, v->end, NULL);
}

/* The operator panel for the entry: each rank's own window of the stage in the step (its
 * first start to its last end), on the selected rank. */
static void
ops_of_stage(tl_ui *ui, dp_state *s, const tl_imbalance *im)
{
	size_t n = ui->tr->nranks ? ui->tr->nranks : 1;
	int64_t *t0 = xcalloc(n, sizeof *t0), *t1 = xcalloc(n, sizeof *t1);
	for (size_t k = 0; k < im->n; k++)
		if (im->ranks[k].rank < ui->tr->nranks) {
			t0[im->ranks[k].rank] = im->ranks[k].start;
			t1[im->ranks[k].rank] = im->ranks[k].end;
		}
	if (s->norder != im->n)
		order_rows(s, im, current_dp(ui, im));
	size_t sel = s->sel < im->n ? im->ranks[s->order[s->sel]].rank : SIZE_MAX;
	char what[200];
	ops_panel_show_scoped(ui, t0, t1, entry_name(ui, im, what, sizeof what), sel);
	free(t0);
	free(t1);
}

static int
imb_action(tl_ui *ui, void *state, int a)
{
	dp_state *s = state;
	const tl_imbalance *all, *im;
	size_t n;
	im = current(ui, s, &all, &n);
	int page = ui->scr.h > 6 ? ui->scr.h - 5 : 1;
	size_t nx;
	if (ui_list_move(&s->sel, im ? im->n : 0, page, a))
		return 1;
	switch (a) {
	case ACT_OPS_PANEL:
		if (im == NULL || im->n == 0)
			return 0; /* the whole profile's */
		ops_of_stage(ui, s, im);
		return 1;
	case ACT_STAGE_NEXT:
	case ACT_STAGE_PREV:
	case ACT_CURSOR_RIGHT:
	case ACT_CURSOR_LEFT:
	case ACT_STEP_NEXT:
	case ACT_STEP_PREV:
	case ACT_PAGE_RIGHT:
	case ACT_PAGE_LEFT: {
		if (im == NULL)
			return 1;
		int by_step = a == ACT_STEP_NEXT || a == ACT_STEP_PREV || a == ACT_PAGE_RIGHT ||
		              a == ACT_PAGE_LEFT;
		int dir = a == ACT_STAGE_NEXT || a == ACT_CURSOR_RIGHT || a == ACT_STEP_NEXT ||
		                  a == ACT_PAGE_RIGHT
		              ? 1
		              : -1;
		nx = cycle(all, n, s->imb, dir, by_step);
		if (nx == SIZE_MAX) {
			char st[24];
			if (im->stage == TL_STAGE_NONE)
				ui_message(ui, 0, "No RL stage: the whole capture is one rollout");
			else if (by_step)
				ui_message(ui, 0,
				           "Stage %s ran on two ranks or more in one step only",
				           tlq_stage_name(ui->q, im->stage));
			else
				ui_message(ui, 0,
				           "Step %s has one stage that ran on two ranks or more",
				           step_text(im->step, st, sizeof st));
			return 1;
		}
		s->imb = nx;
		s->sel = s->top = 0;
		s->norder = 0;
		return 1;
	}
	case ACT_SORT_NEXT: {
		int level = dp_level(current_dp(ui, im));
		do /* dp_analysis' columns where the stage has them */
			s->sort = (s->sort + 1) % COL__COUNT;
		while (cols[s->sort].dp > level ||
		       (s->sort == COL_IDLE && im != NULL && im->stage == TL_STAGE_NONE));
		s->norder = 0;
		s->sel = s->top = 0;
		ui_message(ui, 0, "Sorted by %s", cols[s->sort].sort_name);
		return 1;
	}
	case ACT_CHART_NEXT:
		s->metric = (s->metric + 1) % TL_DP__METRICS;
		if (current_dp(ui, im) == NULL)
			ui_message(
			    ui, 0,
			    "No engine steps in this stage: the chart shows %s where there are",
			    dp_metric_titles[s->metric]);
		else
			ui_message(ui, 0, "Chart: %s per engine step", dp_metric_titles[s->metric]);
		return 1;
	case ACT_SELECT:
		if (im && s->sel < im->n) {
			if (s->norder != im->n)
				order_rows(s, im, current_dp(ui, im));
			jump(ui, im, &im->ranks[s->order[s->sel]]);
		}
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

static void *
imb_open(tl_ui *ui)
{
	dp_state *s = xcalloc(1, sizeof *s);
	const tl_imbalance *all;
	size_t n = tlq_imbalances(ui->q, &all);
	for (size_t i = 0; i < n; i++) /* first shown: rollout of the first step */
		if (all[i].stage == TL_STAGE_ROLLOUT) {
			s->imb = i;
			break;
		}
	if (n == 0)
		s->whole = tlq_dp_whole(ui->q);
	return s;
}

static void
imb_close(tl_ui *ui, void *st)
{
	(void)ui;
	dp_state *s = st;
	free(s->order);
	free(s);
}

const view_ops dp_panel_view = {
    .name = "dp-panel",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_DP_PANEL,
    .open = imb_open,
    .draw = imb_draw,
    .action = imb_action,
    .close = imb_close,
};

int
dp_panel_export_svg(tl_ui *ui, const char *path)
{
	if (*path == '\0') {
		ui_message(ui, 1, "export: give a file name, e.g. :export dp.svg");
		return -1;
	}
	dp_state *s = ui_view_state(ui, &dp_panel_view);
	const tl_imbalance *all, *im;
	size_t n;
	im = current(ui, s, &all, &n);
	const tl_dp *dp = current_dp(ui, im);
	if (dp == NULL) {
		const tl_dp *v;
		if (tlq_dp(ui->q, &v) == 1 && v[0].stage == TL_STAGE_NONE)
			dp = &v[0]; /* no stages: the whole capture */
	}
	if (dp == NULL) {
		ui_message(ui, 1,
		           "export: no engine steps (step_process or vllm_one_step ranges) in %s",
		           im ? "this stage and step" : "this profile");
		return -1;
	}
	if (im && s->norder != im->n)
		order_rows(s, im, dp);
	size_t hl = im && s->sel < s->norder && dp->n == im->n ? s->order[s->sel] : SIZE_MAX;
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		ui_message(ui, 1, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = dp_svg_write(f, ui->tr, dp, tlq_stage_name(ui->q, dp->stage), s->metric, hl);
	if (fclose(f) != 0 || rc != 0) {
		ui_message(ui, 1, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	char pb[160];
	ui_message(ui, 0, "Wrote the %s chart to %s", dp_metric_titles[s->metric],
	           ui_clean(ui, path, pb, sizeof pb));
	return 0;
}
