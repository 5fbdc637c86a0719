/* The timeline view's state: its geometry, the selection, opening and closing it, and what other
 * files ask of it (ui/timeline.h). Its actions and the mouse are in timeline_actions.c, the
 * jumps to bubbles, search matches and steps in timeline_nav.c, the lanes in timeline_lanes.c,
 * drawing in timeline_draw.c, the viewport maths in viewport.c. */
#include "config.h"
#include "ui/common.h"
#include "ui/compare.h"
#include "ui/timeline_int.h"
#include "util/xalloc.h"

#include <stdlib.h>

#define LABEL_WIDTH_MAX 48 /* columns the fitted lane names may take */
#define LABEL_WIDTH_MIN 8  /* the narrowest label column the user can ask for */
#define LABEL_WIDTH_STEP 8 /* label-width widens by this much */
#define LANES_MIN_COLS 20  /* columns of time left beside a label column the user widened */

/* ---- view geometry ------------------------------------------------------------------------- */

static int
label_width(int w)
{
	return w >= 140 ? 28 : w >= 100 ? 22 : w >= 90 ? 18 : 14;
}

/* The fitted label column of a screen w wide: wider to fit the longest lane name, up to a third
 * of the screen (LABEL_WIDTH_MAX at most). */
static int
label_fit(const tl_ui *ui, int w)
{
	const tl_timeline *tl = TIMELINE(ui);
	int lw = label_width(w);
	int want = 0;
	for (size_t i = 0; i < tl->nlanes; i++) {
		int lwi = tl->lanes[i].indent + screen_text_width(&ui->scr, tl->lanes[i].label) + 1;
		want = lwi > want ? lwi : want;
	}
	int cap = w / 3 < LABEL_WIDTH_MAX ? w / 3 : LABEL_WIDTH_MAX;
	if (want > cap)
		want = cap;
	return want > lw ? want : lw;
}

/* The label column the user asked for, kept within a screen w wide. */
static int
label_clamp(int n, int w)
{
	int max = w - 1 - LANES_MIN_COLS;
	if (n > max)
		n = max;
	return n < LABEL_WIDTH_MIN ? LABEL_WIDTH_MIN : n;
}

void
timeline_layout(tl_ui *ui, int w, int h, int pane_h)
{
	tl_timeline *tl = TIMELINE(ui);
	int lw = tl->label_cols ? label_clamp(tl->label_cols, w) : label_fit(ui, w);
	int ncols = w - lw - 1;
	if (ncols < 1)
		ncols = 1;
	tl->lanes_x = lw + 1;
	tl->lanes_y = 1;
	tl->pane_h = pane_h;
	tl->lanes_h = h - 3 - pane_h;
	if (tl->lanes_h < 1)
		tl->lanes_h = 1;
	if (ncols + 1 > tl->scratch_cols) {
		tl->scratch_cols = ncols + 1;
		size_t n = (size_t)tl->scratch_cols;
		tl->edges = xreallocarray(tl->edges, n, sizeof *tl->edges);
		tl->rk_comp = xreallocarray(tl->rk_comp, n, sizeof(int64_t));
		tl->rk_comm = xreallocarray(tl->rk_comm, n, sizeof(int64_t));
		tl->rk_exp = xreallocarray(tl->rk_exp, n, sizeof(int64_t));
		tl->rk_free = xreallocarray(tl->rk_free, n, sizeof(int64_t));
		tl->cells = xreallocarray(tl->cells, n, sizeof *tl->cells);
		tl->cells2 = xreallocarray(tl->cells2, n, sizeof *tl->cells2);
		tl->domtrack = xreallocarray(tl->domtrack, n, sizeof *tl->domtrack);
	}
	vp_set_ncols(&tl->vp, ncols); /* a resize keeps the time span in view */
	if (tl->refit) {              /* ranks came in: fitted to the new label column */
		vp_fit(&tl->vp);
		tl->refit = 0;
	}
}

void
timeline_fit(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	vp_fit(&tl->vp);
}

void
timeline_ranks_grew(tl_ui *ui, size_t total, int renumbered)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_trace *tr = ui->tr;
	if (renumbered) { /* slots of ranks that failed went: what named a rank by index goes */
		for (size_t i = 0; i < tr->nranks && i < tl->nrs; i++)
			tl->rs[i] = (ui_rank_state){.collapsed = tl->accordion && i > 0};
		tl->nrs = tr->nranks < tl->nrs ? tr->nranks : tl->nrs;
		tl->npinned = 0;
		tl->lane = 0;
		tl->top = 0;
		if (ui->sel.have) {
			ui->sel.have = 0;
			ui->sel.gen++;
		}
	}
	if (tl->nrs < tr->nranks) { /* ranks are appended: the states of the others stay */
		tl->rs = xreallocarray(tl->rs, tr->nranks, sizeof *tl->rs);
		for (size_t i = tl->nrs; i < tr->nranks; i++)
			tl->rs[i] = (ui_rank_state){.collapsed = tl->accordion && i > 0};
		tl->nrs = tr->nranks;
	}
	if (total > 8 && tl->nrs > 0 && !tl->accordion) { /* as timeline_open with them all */
		tl->accordion = 1;
		for (size_t i = 1; i < tl->nrs; i++)
			tl->rs[i].collapsed = 1;
	}
	tl_viewport *v = &tl->vp;
	int empty = v->t_min >= v->t_max;
	int whole = empty || (v->t0 <= v->t_min && v->t0 + v->colw * v->ncols >= v->t_max);
	if (tr->t_min <= tr->t_max) {
		v->t_min = tr->t_min;
		v->t_max = tr->t_max;
		ui->origin = v->t_min;
		if (empty)
			v->cursor = v->t_min;
	}
	tl->refit |= whole; /* at the next layout, when the label column is known */
	colmemo_clear(tl->memo);
	timeline_rebuild_lanes(ui);
}

void
timeline_show_range(tl_ui *ui, int64_t a, int64_t b)
{
	vp_show_range(&TIMELINE(ui)->vp, a, b);
}

void
timeline_goto(tl_ui *ui, int64_t t)
{
	tl_timeline *tl = TIMELINE(ui);
	tl->vp.cursor = t;
	vp_follow_cursor(&tl->vp);
}

int64_t
timeline_cursor(const tl_ui *ui)
{
	return TIMELINE(ui)->vp.cursor;
}

int
timeline_goto_rank(tl_ui *ui, size_t ri)
{
	tl_timeline *tl = TIMELINE(ui);
	rank_focus(ui, ri);
	for (size_t i = 0; i < tl->nlanes; i++)
		if (tl->lanes[i].type == UL_HEADER && tl->lanes[i].rank == ri) {
			tl->lane = i;
			rank_visible(ui);
			return 0;
		}
	return -1;
}

int
timeline_labels_set(tl_ui *ui, int n)
{
	tl_timeline *tl = TIMELINE(ui);
	int w = ui->scr.w;
	tl->label_cols = n > 0 ? label_clamp(n, w) : 0;
	timeline_layout(ui, w, ui->scr.h, tl->pane_h);
	if (tl->label_cols)
		ui_message(ui, 0, "Lane names: %d columns (:labels alone fits them again)",
		           tl->label_cols);
	else
		ui_message(ui, 0, "Lane names: fitted, %d columns", label_fit(ui, w));
	return tl->label_cols;
}

void
timeline_labels_cycle(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	int w = ui->scr.w, fit = label_fit(ui, w);
	int cur = tl->label_cols ? label_clamp(tl->label_cols, w) : fit;
	int next;
	if (tl->label_cols && cur < fit)
		next = 0; /* narrowed: back to fitted */
	else if (cur + LABEL_WIDTH_STEP <= label_clamp(w / 2, w))
		next = cur + LABEL_WIDTH_STEP;
	else
		next = LABEL_WIDTH_MIN < fit ? LABEL_WIDTH_MIN : 0;
	timeline_labels_set(ui, next);
}

void
select_slice(tl_ui *ui, size_t ri, size_t ti, size_t idx)
{
	ui->sel.have = 1;
	ui->sel.s = (ui_slice_ref){ri, ti, idx};
	ui->sel.have_bubble = 0;
	ui->sel.gen++;
}

void
timeline_select(tl_ui *ui, size_t ri, size_t ti, size_t idx, int zoom_to)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_track *t = ui->tr->ranks[ri]->tracks[ti];
	const tl_slice *s = &t->v[idx];
	select_slice(ui, ri, ti, idx);
	size_t l = lane_of_track(ui, ri, ti, 1);
	if (l != SIZE_MAX) {
		tl->lane = l;
		lane_visible(ui);
	}
	if (zoom_to) {
		timeline_show_range(ui, s->start, slice_end(t, s));
		return;
	}
	int64_t t1 = tl->vp.t0 + tl->vp.colw * tl->vp.ncols;
	tl->vp.cursor = s->start;
	if (s->start < tl->vp.t0 || s->start >= t1) {
		/* bring it in, about a third from the left */
		tl->vp.t0 = s->start - tl->vp.colw * (tl->vp.ncols / 3);
		vp_clamp(&tl->vp);
	}
	vp_follow_cursor(&tl->vp);
}

/* ---- what other files ask of the timeline -------------------------------------------------- */

size_t
timeline_current_rank(const tl_ui *ui)
{
	const tl_timeline *tl = TIMELINE(ui);
	return tl->lane < tl->nlanes ? tl->lanes[tl->lane].rank : SIZE_MAX;
}

const tl_search *
timeline_search_results(const tl_ui *ui)
{
	const tl_timeline *tl = TIMELINE(ui);
	return tl->have_search ? &tl->search : NULL;
}

int
timeline_pin_rank(tl_ui *ui, size_t ri)
{
	tl_timeline *tl = TIMELINE(ui);
	int on = lanes_pin_toggle(ui, ri);
	for (size_t i = 0; i < tl->nlanes; i++)
		if (tl->lanes[i].type == UL_HEADER && tl->lanes[i].rank == ri) {
			tl->lane = i;
			break;
		}
	rank_visible(ui);
	char k[32];
	ui_message(ui, 0,
	           on ? "Rank %d pinned to the top (%s again unpins it)"
	              : "Rank %d unpinned: back in rank order",
	           ui->tr->ranks[ri]->rank, keymap_key_hint(&ui->keys, ACT_PIN_RANK, k, sizeof k));
	return on;
}

int
timeline_filter_lanes(tl_ui *ui, const char *pattern)
{
	char err[300];
	if (lanes_filter_set(ui, pattern, err, sizeof err) != 0) {
		ui_message(ui, 1, "lanes: %s", err);
		return -1;
	}
	size_t n = 0;
	tl_timeline *tl = TIMELINE(ui);
	for (size_t i = 0; i < tl->nlanes; i++)
		n += tl->lanes[i].type != UL_HEADER;
	if (pattern && *pattern)
		ui_message(ui, 0, "%zu lanes match /%s/ (:lanes alone shows every lane again)", n,
		           tl->filter);
	else
		ui_message(ui, 0, "Every lane shown again");
	return 0;
}

int
timeline_reveal(tl_ui *ui, size_t rank, int64_t t0, int64_t t1, const ui_slice_ref *sel)
{
	int rc = 0;
	if (sel)
		timeline_select(ui, sel->rank, sel->track, sel->idx, 0);
	else
		rc = timeline_goto_rank(ui, rank);
	timeline_show_range(ui, t0, t1);
	return rc;
}

int
timeline_reveal_comm(tl_ui *ui, size_t rank, int64_t start, int64_t end)
{
	const tl_rank *r = ui->tr->ranks[rank];
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		if (t->kind != TL_LANE_COMM)
			continue;
		size_t k = track_first_starting_at(t, start);
		if (k < t->n && t->v[k].start == start) {
			ui_slice_ref sel = {rank, ti, k};
			return timeline_reveal(ui, rank, t->v[k].start, track_end(t, k), &sel);
		}
	}
	return timeline_reveal(ui, rank, start, end, NULL);
}

void
timeline_mark_range(tl_ui *ui, int64_t t0, int64_t t1)
{
	ui->sel.mark[0] = t0;
	ui->sel.mark[1] = t1;
	ui->sel.nmark = 2;
	ui->sel.gen++;
	ui_view_open(ui, &detail_view);
}

int
timeline_bubbles_shown(const tl_ui *ui)
{
	return TIMELINE(ui)->bubbles;
}

void
timeline_geometry_get(const tl_ui *ui, timeline_geometry *g)
{
	const tl_timeline *tl = TIMELINE(ui);
	*g = (timeline_geometry){tl->vp.t0,   tl->vp.colw, tl->vp.ncols,
	                         tl->lanes_x, tl->lanes_y, tl->lanes_h};
}

void *
timeline_open(tl_ui *ui)
{
	tl_timeline *tl = xcalloc(1, sizeof *tl);
	tl->memo = colmemo_new();
	tl->vp.t_min = ui->tr->t_min;
	tl->vp.t_max = ui->tr->t_max;
	if (tl->vp.t_min > tl->vp.t_max)
		tl->vp.t_min = tl->vp.t_max = 0;
	/* --compare: room for the whole of a longer B, drawn from about A's start */
	if (ui->cmp && ui->cmp->trb->t_max > ui->cmp->trb->t_min &&
	    ui->cmp->trb->t_max - ui->cmp->trb->t_min > tl->vp.t_max - tl->vp.t_min)
		tl->vp.t_max = tl->vp.t_min + (ui->cmp->trb->t_max - ui->cmp->trb->t_min);
	ui->origin = tl->vp.t_min;
	tl->vp.cursor = tl->vp.t_min;
	tl->vp.colw = 1;
	tl->rs = xcalloc(ui->tr->nranks ? ui->tr->nranks : 1, sizeof *tl->rs);
	tl->nrs = ui->tr->nranks;
	tl->show_overlap = 1;
	/* many ranks: every rank a header row, the job at a glance, and the current one open;
	 * moving to another rank opens it and folds the one left */
	if (ui->tr->nranks > 8) {
		tl->accordion = 1;
		for (size_t i = 1; i < ui->tr->nranks; i++)
			tl->rs[i].collapsed = 1;
	}
	ui->state[VIEW_ID_timeline_view] = tl; /* the lanes are built through TIMELINE(ui) */
	timeline_rebuild_lanes(ui);
	return tl;
}

void
timeline_resize(tl_ui *ui, void *st)
{
	tl_timeline *tl = st;
	timeline_layout(ui, ui->scr.w, ui->scr.h, tl->pane_h);
	lane_visible(ui);
	vp_follow_cursor(&tl->vp);
}
