/* The DP load-imbalance panel: for one RL stage and step, one row per rank with a bar
 * of where its stage ran and how long it then waited for the rank that finished last, its decode
 * steps (a dash where nothing counts them) and device idle share; max/mean, coefficient of
 * variation, the rank that finished last and the longest-running one (when another) on top.
 * Sortable; Enter jumps to that rank and window in the timeline. Every number is tlq_imbalance's,
 * the one `tl summary` prints. */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { RL_SORT_RANK, RL_SORT_DURATION, RL_SORT_WAIT, RL_SORT_DECODE, RL_SORT_IDLE, RL_SORT__COUNT };

typedef struct dp_state {
	size_t imb;      /* index into tlq_imbalances */
	int sort;        /* RL_SORT_* */
	size_t sel, top; /* selected row and first row shown */
	size_t *order;   /* rows in display order */
	size_t norder;
} dp_state;

static const char *const sort_names[RL_SORT__COUNT] = {"rank", "duration", "wait", "decode steps",
                                                       "idle"};

static const tl_imbalance *
current(tl_ui *ui, dp_state *s, const tl_imbalance **all, size_t *n)
{
	*n = tlq_imbalances(ui->rl, all);
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

static char *
ms_text(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	return buf;
}

/* ---- row order ---------------------------------------------------------------------------- */

static const tl_imbalance *sort_im; /* the comparator's rows (the viewer has one thread) */
static int sort_key;

static int
cmp_row(const void *a, const void *b)
{
	const tl_imb_rank *x = &sort_im->ranks[*(const size_t *)a];
	const tl_imb_rank *y = &sort_im->ranks[*(const size_t *)b];
	int c = 0;
	switch (sort_key) {
	case RL_SORT_DURATION:
		c = (x->duration < y->duration) - (x->duration > y->duration);
		break;
	case RL_SORT_WAIT:
		c = (x->wait < y->wait) - (x->wait > y->wait);
		break;
	case RL_SORT_DECODE:
		c = (x->decode_steps < y->decode_steps) - (x->decode_steps > y->decode_steps);
		break;
	case RL_SORT_IDLE:
		c = (x->idle_fraction < y->idle_fraction) - (x->idle_fraction > y->idle_fraction);
		break;
	default:
		break;
	}
	if (c == 0)
		c = (x->rank > y->rank) - (x->rank < y->rank);
	return c;
}

static void
order_rows(dp_state *s, const tl_imbalance *im)
{
	s->order = xreallocarray(s->order, im->n ? im->n : 1, sizeof *s->order);
	s->norder = im->n;
	for (size_t i = 0; i < im->n; i++)
		s->order[i] = i;
	sort_im = im;
	sort_key = s->sort;
	qsort(s->order, im->n, sizeof *s->order, cmp_row);
	sort_im = NULL;
}

/* ---- drawing ------------------------------------------------------------------------------ */

#define FIXED_COLS 48 /* everything but the bar: 21 columns before it, 27 after */

static void
imb_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	dp_state *s = state;
	const tl_imbalance *all, *im;
	size_t n;
	im = current(ui, s, &all, &n);
	char k1[24], k2[24], k3[24], k4[24], st[24];
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
	if (s->norder != im->n)
		order_rows(s, im);
	char sb[160]; /* a role directory's name: untrusted */
	const char *stage = ui_clean(ui, tlq_rl_stage_name(ui->rl, im->stage), sb, sizeof sb);
	screen_printf(
	    sc, x, y, w, SLOT_TITLE,
	    " DP load imbalance: stage %s, step %s   (%s stage, %s step, %s sort, Enter: timeline, "
	    "%s: close)",
	    stage, step_text(im->step, st, sizeof st),
	    keymap_key_hint(&ui->keys, ACT_STAGE_NEXT, k1, sizeof k1),
	    keymap_key_hint(&ui->keys, ACT_STEP_NEXT, k2, sizeof k2),
	    keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k3, sizeof k3),
	    keymap_key_hint(&ui->keys, ACT_QUIT, k4, sizeof k4));
	char sk[32], lr[48] = "";
	/* "slowest" would not say which: the rank every other one waits for is the one that
	 * finished last, not always the one that ran longest */
	if (im->st.longest != im->st.slowest)
		snprintf(lr, sizeof lr, "   longest running rank %d",
		         ui->tr->ranks[im->ranks[im->st.longest].rank]->rank);
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "max/mean %.3f   cv %.3f   last to finish rank %d%s   skew %s   %zu ranks   "
	              "sorted by %s",
	              im->st.max_over_mean, im->st.cv,
	              ui->tr->ranks[im->ranks[im->st.slowest].rank]->rank, lr,
	              ms_text(im->st.skew, sk, sizeof sk), im->n, sort_names[s->sort]);
	int bw = w - FIXED_COLS;
	if (bw < 0)
		bw = 0;
	/* header: rank duration [bar] wait decode idle */
	int cx = x + 1;
	screen_printf(sc, cx, y + 2, w - 1, SLOT_LABEL, "%6s %12s ", "rank", "duration");
	if (bw > 0)
		screen_printf(sc, cx + 20, y + 2, bw, SLOT_LABEL, "%-*s", bw,
		              "where it ran (then waited for the last to finish)");
	screen_printf(sc, cx + 20 + bw + 1, y + 2, w - (cx + 21 + bw), SLOT_LABEL, "%12s %6s %6s",
	              "wait", "decode", "idle");
	int rows = h - 3;
	if (rows < 1)
		return;
	if (s->sel >= im->n)
		s->sel = im->n - 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + (size_t)rows)
		s->top = s->sel - (size_t)rows + 1;
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
		const tl_imb_rank *v = &im->ranks[s->order[row]];
		int yy = y + 3 + r, sel = row == s->sel;
		char d[32], wt[32], dc[16];
		if (v->decode_steps >= 0) /* a dash, not a false 0, where nothing counts them */
			snprintf(dc, sizeof dc, "%6d", v->decode_steps);
		else
			snprintf(dc, sizeof dc, "     %s", ui->utf8 ? "\u2013" : "-");
		if (sel)
			screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		screen_printf(sc, cx, yy, 6, sel ? SLOT_LABEL_CURRENT : SLOT_RANK, "%6d",
		              ui->tr->ranks[v->rank]->rank);
		screen_printf(sc, cx + 7, yy, 12, SLOT_NORMAL, "%12s",
		              ms_text(v->duration, d, sizeof d));
		if (bw > 0) {
			int a = (int)((v->start - lo) * bw / span),
			    b = (int)((v->end - lo) * bw / span);
			if (b <= a)
				b = a + 1;
			if (b > bw)
				b = bw;
			screen_fill(sc, cx + 20 + a, yy, b - a, ' ', slot);
			for (int c = b; c < bw; c++)
				screen_put(sc, cx + 20 + c, yy, wait_ch, SLOT_FREE, SCR_GLYPH);
		}
		screen_printf(sc, cx + 20 + bw + 1, yy, w - (cx + 21 + bw), SLOT_NORMAL,
		              "%12s %s %5.1f%%", ms_text(v->wait, wt, sizeof wt), dc,
		              v->idle_fraction * 100);
	}
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
	char d[32], wt[32], st[24];
	ui_view_close(ui, &dp_panel_view);
	ui_message(ui, 0, "Rank %d, %s step %s: %s, then waited %s for the last to finish", r->rank,
	           tlq_rl_stage_name(ui->rl, im->stage), step_text(im->step, st, sizeof st),
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

static int
imb_action(tl_ui *ui, void *state, int a)
{
	dp_state *s = state;
	const tl_imbalance *all, *im;
	size_t n;
	im = current(ui, s, &all, &n);
	int page = ui->scr.h > 6 ? ui->scr.h - 5 : 1;
	size_t nx;
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		ui_view_close(ui, &dp_panel_view);
		return 1;
	case ACT_HELP:
	case ACT_COMMAND:
	case ACT_REDRAW:
	case ACT_DP_PANEL:
	case ACT_PP_VIEW:
	case ACT_COMM_PANEL:
	case ACT_SLOW_PANEL:
	case ACT_OPS_PANEL:
		return 0; /* the view stack's */
	case ACT_LANE_DOWN:
		if (im && s->sel + 1 < im->n)
			s->sel++;
		return 1;
	case ACT_LANE_UP:
		if (s->sel > 0)
			s->sel--;
		return 1;
	case ACT_PAGE_DOWN:
		if (im)
			s->sel = s->sel + (size_t)page < im->n ? s->sel + (size_t)page : im->n - 1;
		return 1;
	case ACT_PAGE_UP:
		s->sel = s->sel > (size_t)page ? s->sel - (size_t)page : 0;
		return 1;
	case ACT_FIRST_LANE:
		s->sel = 0;
		return 1;
	case ACT_LAST_LANE:
		if (im)
			s->sel = im->n - 1;
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
			if (by_step)
				ui_message(ui, 0,
				           "Stage %s ran on two ranks or more in one step only",
				           tlq_rl_stage_name(ui->rl, im->stage));
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
	case ACT_SORT_NEXT:
		s->sort = (s->sort + 1) % RL_SORT__COUNT;
		s->norder = 0;
		s->sel = s->top = 0;
		ui_message(ui, 0, "Sorted by %s", sort_names[s->sort]);
		return 1;
	case ACT_SELECT:
		if (im && s->sel < im->n) {
			if (s->norder != im->n)
				order_rows(s, im);
			jump(ui, im, &im->ranks[s->order[s->sel]]);
		}
		return 1;
	default:
		return 1; /* the timeline behind the panel does not move */
	}
}

static void *
imb_open(tl_ui *ui)
{
	dp_state *s = xcalloc(1, sizeof *s);
	const tl_imbalance *all;
	size_t n = tlq_imbalances(ui->rl, &all);
	for (size_t i = 0; i < n; i++) /* first shown: rollout of the first step */
		if (all[i].stage == TL_STAGE_ROLLOUT) {
			s->imb = i;
			break;
		}
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
