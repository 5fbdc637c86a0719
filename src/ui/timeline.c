/* The timeline view: its state, its actions (moving, zooming, selecting, marking) and what other
 * files ask of it (ui/timeline.h). Jumping to bubbles, search matches and steps is in
 * timeline_nav.c, lanes in timeline_lanes.c, drawing in timeline_draw.c, the viewport maths in
 * viewport.c. */
#include "config.h"
#include "ui/common.h"
#include "ui/compare.h"
#include "ui/timeline_int.h"
#include "query/host.h"
#include "util/timefmt.h"
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
	tl->rk_valid = 0;
}

void
timeline_fit(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	vp_fit(&tl->vp);
	tl->rk_valid = 0;
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

/* label-width: wider by LABEL_WIDTH_STEP up to half the screen, then the narrowest, then fitted
 * again. */
static void
labels_cycle(tl_ui *ui)
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

static void
zoom(tl_ui *ui, int in)
{
	if (!vp_zoom(&TIMELINE(ui)->vp, in))
		ui_message(ui, 0,
		           in ? "Zoomed in as far as it goes (1 ns per column)"
		              : "Zoomed out as far as it goes");
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
	const tl_slice *s = &ui->tr->ranks[ri]->tracks[ti]->v[idx];
	select_slice(ui, ri, ti, idx);
	size_t l = lane_of_track(ui, ri, ti, 1);
	if (l != SIZE_MAX) {
		tl->lane = l;
		lane_visible(ui);
	}
	if (zoom_to) {
		timeline_show_range(ui, s->start, s->end);
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

/* The slice under the cursor on the current lane: first the one containing the cursor, else
 * the dominant one of the cursor's column. */
static int
slice_at_cursor(tl_ui *ui, size_t *ti_out, size_t *idx_out)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->lane >= tl->nlanes)
		return 0;
	const ui_lane *l = &tl->lanes[tl->lane];
	if (l->type == UL_HEADER || l->type >= UL_COMPARE) /* B's lanes: not A's slices */
		return 0;
	const tl_rank *r = ui->tr->ranks[l->rank];
	int64_t c0 = tl->vp.t0 + (tl->vp.cursor - tl->vp.t0) / tl->vp.colw * tl->vp.colw,
	        c1 = c0 + tl->vp.colw;
	for (size_t ti = l->first; ti < l->first + l->count; ti++) {
		size_t k = tlq_slice_at(r->tracks[ti], tl->vp.cursor);
		if (k != SIZE_MAX) {
			*ti_out = ti;
			*idx_out = k;
			return 1;
		}
	}
	int64_t best = -1;
	for (size_t ti = l->first; ti < l->first + l->count; ti++) {
		size_t a, b;
		tlq_window(r->tracks[ti], c0, c1, &a, &b);
		for (size_t k = a; k < b && k < a + 64; k++) {
			const tl_slice *s = &r->tracks[ti]->v[k];
			int64_t v = (s->end < c1 ? s->end : c1) - (s->start > c0 ? s->start : c0);
			if (v > best) {
				best = v;
				*ti_out = ti;
				*idx_out = k;
			}
		}
	}
	return best >= 0;
}

static void
slice_step(tl_ui *ui, int dir)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->lane >= tl->nlanes)
		return;
	const ui_lane *l = &tl->lanes[tl->lane];
	if (l->type == UL_HEADER) {
		ui_message(ui, 0, "Move to a lane first (Down)");
		return;
	}
	if (l->type >= UL_COMPARE) {
		ui_message(ui, 0, "Slices are selected on A's lanes; this lane is run B's");
		return;
	}
	const tl_rank *r = ui->tr->ranks[l->rank];
	int64_t ref = tl->vp.cursor;
	size_t sel_ti = SIZE_MAX;
	if (ui->sel.have && ui->sel.s.rank == l->rank && ui->sel.s.track >= l->first &&
	    ui->sel.s.track < l->first + l->count) {
		ref = r->tracks[ui->sel.s.track]->v[ui->sel.s.idx].start;
		sel_ti = ui->sel.s.track;
	}
	size_t bt = SIZE_MAX, bi = 0;
	int64_t bs = 0;
	for (size_t ti = l->first; ti < l->first + l->count; ti++) {
		const tl_track *t = r->tracks[ti];
		size_t k;
		if (ti == sel_ti) /* ties on start within the selected track: by index */
			k = dir > 0 ? (ui->sel.s.idx + 1 < t->n ? ui->sel.s.idx + 1 : SIZE_MAX)
			            : (ui->sel.s.idx > 0 ? ui->sel.s.idx - 1 : SIZE_MAX);
		else
			k = tlq_slice_next(t, ref, dir);
		if (k == SIZE_MAX)
			continue;
		int64_t s = t->v[k].start;
		if (bt == SIZE_MAX || (dir > 0 ? s < bs : s > bs)) {
			bt = ti;
			bi = k;
			bs = s;
		}
	}
	if (bt == SIZE_MAX) {
		ui_message(ui, 0,
		           dir > 0 ? "No slice after this one on the lane"
		                   : "No slice before this one on the lane");
		return;
	}
	size_t keep = tl->lane;
	timeline_select(ui, l->rank, bt, bi, 0);
	tl->lane = keep; /* stay on the merged lane when it was the current one */
	lane_visible(ui);
}

/* ---- actions ------------------------------------------------------------------------------- */

static int
timeline_action(tl_ui *ui, void *st, int a)
{
	tl_timeline *tl = TIMELINE(ui);
	size_t ti, idx;
	switch (a) {
	case ACT_CURSOR_LEFT:
		tl->vp.cursor -= tl->vp.colw;
		if (tl->vp.cursor < tl->vp.t0)
			vp_pan(&tl->vp, -1);
		vp_follow_cursor(&tl->vp);
		break;
	case ACT_CURSOR_RIGHT:
		tl->vp.cursor += tl->vp.colw;
		if (tl->vp.cursor >= tl->vp.t0 + tl->vp.colw * tl->vp.ncols)
			vp_pan(&tl->vp, 1);
		vp_follow_cursor(&tl->vp);
		break;
	case ACT_PAN_LEFT:
		vp_pan(&tl->vp, -1);
		break;
	case ACT_PAN_RIGHT:
		vp_pan(&tl->vp, 1);
		break;
	case ACT_SCROLL_LEFT:
		vp_pan(&tl->vp, -(tl->vp.ncols / 8 > 0 ? tl->vp.ncols / 8 : 1));
		break;
	case ACT_SCROLL_RIGHT:
		vp_pan(&tl->vp, tl->vp.ncols / 8 > 0 ? tl->vp.ncols / 8 : 1);
		break;
	case ACT_PAGE_LEFT:
		vp_pan(&tl->vp, -tl->vp.ncols);
		break;
	case ACT_PAGE_RIGHT:
		vp_pan(&tl->vp, tl->vp.ncols);
		break;
	case ACT_ZOOM_IN:
		zoom(ui, 1);
		break;
	case ACT_ZOOM_OUT:
		zoom(ui, 0);
		break;
	case ACT_FIT_ALL:
		timeline_fit(ui);
		break;
	case ACT_ZOOM_SELECTION:
		if (!ui->sel.have) {
			ui_message(ui, 1,
			           "Nothing selected (Enter selects the slice under the cursor)");
			break;
		}
		{
			const tl_slice *s = &ui->tr->ranks[ui->sel.s.rank]
			                         ->tracks[ui->sel.s.track]
			                         ->v[ui->sel.s.idx];
			timeline_show_range(ui, s->start, s->end);
		}
		break;
	case ACT_GO_START:
		timeline_goto(ui, tl->vp.t_min);
		break;
	case ACT_GO_END:
		timeline_goto(ui, tl->vp.t_max > tl->vp.t_min ? tl->vp.t_max - 1 : tl->vp.t_min);
		break;
	case ACT_GOTO:
		prompt_start(ui, ':', "goto ");
		break;
	case ACT_LANE_UP:
		lane_move(ui, -1);
		break;
	case ACT_LANE_DOWN:
		lane_move(ui, 1);
		break;
	case ACT_PAGE_UP:
		lane_move(ui, -(long)(tl->lanes_h > 1 ? tl->lanes_h - 1 : 1));
		break;
	case ACT_PAGE_DOWN:
		lane_move(ui, tl->lanes_h > 1 ? tl->lanes_h - 1 : 1);
		break;
	case ACT_RANK_NEXT:
		rank_move(ui, 1);
		break;
	case ACT_RANK_PREV:
		rank_move(ui, -1);
		break;
	case ACT_FIRST_LANE:
		lane_move(ui, -(long)tl->nlanes);
		break;
	case ACT_LAST_LANE:
		lane_move(ui, (long)tl->nlanes);
		break;
	case ACT_TOGGLE_RANK:
		if (tl->lane < tl->nlanes) {
			size_t ri = tl->lanes[tl->lane].rank;
			tl->rs[ri].collapsed ^= 1;
			tl->accordion = 0; /* folded by hand: moving no longer folds */
			timeline_rebuild_lanes(ui);
			for (size_t i = 0; i < tl->nlanes; i++)
				if (tl->lanes[i].rank == ri) {
					tl->lane = i;
					break;
				}
			rank_visible(ui);
		}
		break;
	case ACT_TOGGLE_ALL: {
		int any_open = 0;
		for (size_t i = 0; i < ui->tr->nranks; i++)
			any_open |= !tl->rs[i].collapsed;
		for (size_t i = 0; i < ui->tr->nranks; i++)
			tl->rs[i].collapsed = (unsigned char)any_open;
		tl->accordion = 0;
		size_t ri = tl->lane < tl->nlanes ? tl->lanes[tl->lane].rank : 0;
		timeline_rebuild_lanes(ui);
		for (size_t i = 0; i < tl->nlanes; i++)
			if (tl->lanes[i].rank == ri) {
				tl->lane = i; /* the same rank stays current, from its header */
				break;
			}
		rank_visible(ui);
		break;
	}
	case ACT_TOGGLE_STREAMS:
		if (tl->lane < tl->nlanes) {
			size_t ri = tl->lanes[tl->lane].rank;
			tl->rs[ri].streams ^= 1;
			tl->rs[ri].collapsed = 0;
			timeline_rebuild_lanes(ui);
			ui_message(ui, 0,
			           tl->rs[ri].streams ? "Rank %d: one lane per stream"
			                              : "Rank %d: streams merged",
			           ui->tr->ranks[ri]->rank);
		}
		break;
	case ACT_TOGGLE_OVERLAP:
		tl->show_overlap ^= 1;
		timeline_rebuild_lanes(ui);
		break;
	case ACT_TOGGLE_HOST:
		tl->show_host ^= 1;
		if (tl->show_host)
			tlq_host_lanes(ui->q); /* DB profiles read them now, once */
		timeline_rebuild_lanes(ui);
		break;
	case ACT_LABEL_WIDTH:
		labels_cycle(ui);
		break;
	case ACT_PIN_RANK:
		if (tl->lane < tl->nlanes)
			timeline_pin_rank(ui, tl->lanes[tl->lane].rank);
		break;
	case ACT_SLICE_NEXT:
		slice_step(ui, 1);
		break;
	case ACT_SLICE_PREV:
		slice_step(ui, -1);
		break;
	case ACT_SELECT:
		if (tl->lane < tl->nlanes && tl->lanes[tl->lane].type == UL_HEADER)
			return timeline_action(ui, st, ACT_TOGGLE_RANK);
		if (slice_at_cursor(ui, &ti, &idx)) {
			select_slice(ui, tl->lanes[tl->lane].rank, ti, idx);
			ui_view_open(ui, &detail_view);
		} else {
			ui_message(ui, 0, "No slice under the cursor on this lane");
		}
		break;
	case ACT_MARK:
		if (ui->sel.nmark != 1) {
			ui->sel.nmark = 1;
			ui->sel.mark[0] = tl->vp.cursor;
			ui_message(ui, 0, "Range start marked; move the cursor and mark again");
		} else {
			int64_t a0 = ui->sel.mark[0], b0 = tl->vp.cursor;
			if (b0 < a0) {
				int64_t tmp = a0;
				a0 = b0;
				b0 = tmp;
			}
			if (b0 == a0)
				b0 = a0 + tl->vp.colw;
			timeline_mark_range(ui, a0, b0);
			char d[32];
			ui_message(ui, 0,
			           "Range of %s marked: statistics below; zoom-mark zooms to it",
			           timefmt_dur(b0 - a0, d, sizeof d));
		}
		break;
	case ACT_MARK_STEP:
		mark_step(ui);
		break;
	case ACT_STEP_NEXT:
		step_move(ui, 1);
		break;
	case ACT_STEP_PREV:
		step_move(ui, -1);
		break;
	case ACT_ZOOM_MARK:
		if (ui->sel.nmark != 2) {
			ui_message(ui, 1, "No range marked (mark twice)");
			break;
		}
		timeline_show_range(ui, ui->sel.mark[0], ui->sel.mark[1]);
		break;
	case ACT_CLEAR:
		if (ui->sel.nmark)
			ui->sel.nmark = 0;
		else if (ui->sel.have) {
			/* the pane the selection opened has nothing left to show */
			ui->sel.have = 0, tl->have_match = 0;
			ui_view_close(ui, &detail_view);
		} else if (tl->have_search)
			tlq_search_free(&tl->search), tl->have_search = 0, tl->have_match = 0;
		else
			ui_view_close(ui, &detail_view);
		ui->msg[0] = '\0';
		break;
	case ACT_SEARCH:
		prompt_start(ui, '/', "");
		break;
	case ACT_SEARCH_NEXT:
		search_step(ui, 1);
		break;
	case ACT_SEARCH_PREV:
		search_step(ui, -1);
		break;
	case ACT_TOGGLE_BUBBLES: {
		tl->bubbles ^= 1;
		if (tl->bubbles) {
			int64_t tot = 0, largest = 0;
			size_t n = 0;
			for (size_t i = 0; i < ui->tr->nranks; i++) {
				int64_t t;
				n += tlq_bubble_total(ui->tr->ranks[i], &t);
				tot += t;
			}
			tl_rl_bubble b;
			if (tlq_bubble_largest(ui->q, BUBBLE_LIST_MAX, 0, &b))
				largest = b.end - b.start;
			char d1[32], d2[32];
			if (n)
				ui_message(ui, 0, "Bubbles: %zu idle gaps, %s in all, largest %s",
				           n, timefmt_dur(tot, d1, sizeof d1),
				           timefmt_dur(largest, d2, sizeof d2));
			else
				ui_message(ui, 0, "Bubbles: none");
		} else {
			ui_message(ui, 0, "Bubble highlighting off");
		}
		break;
	}
	case ACT_BUBBLE_NEXT:
		bubble_step(ui, 1);
		break;
	case ACT_BUBBLE_PREV:
		bubble_step(ui, -1);
		break;
	case ACT_BUBBLE_LARGEST:
		bubble_largest(ui, 1);
		break;
	case ACT_BUBBLE_LARGEST_PREV:
		bubble_largest(ui, -1);
		break;
	case ACT_TOGGLE_ABSTIME:
		ui->abstime ^= 1;
		break;
	default:
		return 0;
	}
	return 1;
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

void
timeline_show_match(tl_ui *ui, const tl_match_pos *m)
{
	match_go(ui, m);
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

static void
drag_pan(tl_ui *ui, int dx)
{
	/* a drag stops where the profile ends: it does not pull empty time onto the screen (the
	 * keys may, to centre an end) */
	tl_viewport *v = &TIMELINE(ui)->vp;
	for (int i = 0; i < (dx < 0 ? -dx : dx); i++) {
		int64_t span = v->colw * v->ncols;
		if (dx > 0 ? v->t0 - v->colw < v->t_min : v->t0 + span + v->colw > v->t_max)
			break;
		vp_pan(v, dx > 0 ? -1 : 1);
	}
}

int
timeline_mouse(tl_ui *ui, int kind, int x, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	int in_lanes = x >= tl->lanes_x && x < tl->lanes_x + tl->vp.ncols;
	int64_t t = vp_col_time(&tl->vp, x - tl->lanes_x) + tl->vp.colw / 2;
	switch (kind) {
	case TM_WHEEL: /* the wheel zooms around the pointer */
		if (in_lanes)
			tl->vp.cursor = t;
		return 1;
	case TM_PRESS:
		tl->drag = 1;
		tl->drag_x = x;
		tl->drag_moved = 0;
		return 1;
	case TM_DRAG:
		if (!tl->drag)
			return 0;
		drag_pan(ui, x - tl->drag_x);
		if (x != tl->drag_x)
			tl->drag_moved = 1;
		tl->drag_x = x;
		return 1;
	default:
		break;
	}
	int was_drag = tl->drag && tl->drag_moved;
	if (tl->drag && x != tl->drag_x) { /* a drag without motion reports */
		drag_pan(ui, x - tl->drag_x);
		was_drag = 1;
	}
	tl->drag = 0;
	if (was_drag)
		return 1;
	if (y == 0 && in_lanes) {
		tl->vp.cursor = t;
		return 1;
	}
	size_t l = lane_at_row(ui, y);
	if (l == SIZE_MAX)
		return 1;
	tl->lane = l;
	if (in_lanes) {
		tl->vp.cursor = t;
		if (tl->lanes[l].type != UL_HEADER)
			ui_view_action(ui, ACT_SELECT);
	} else if (tl->lanes[l].type == UL_HEADER) {
		ui_view_action(ui, ACT_TOGGLE_RANK);
	}
	return 1;
}

static void *
timeline_open(tl_ui *ui)
{
	tl_timeline *tl = xcalloc(1, sizeof *tl);
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

static void
timeline_close(tl_ui *ui, void *st)
{
	tl_timeline *tl = st;
	lanes_free(ui);
	free(tl->lanes);
	free(tl->border);
	free(tl->rs);
	free(tl->edges);
	free(tl->rk_comp);
	free(tl->rk_comm);
	free(tl->rk_exp);
	free(tl->rk_free);
	free(tl->cells);
	free(tl->cells2);
	free(tl->domtrack);
	if (tl->have_search)
		tlq_search_free(&tl->search);
	free(tl);
}

static void
timeline_resize(tl_ui *ui, void *st)
{
	tl_timeline *tl = st;
	timeline_layout(ui, ui->scr.w, ui->scr.h, tl->pane_h);
	lane_visible(ui);
	vp_follow_cursor(&tl->vp);
}

const view_ops timeline_view = {
    .name = "timeline",
    .layer = UI_LAYER_BASE,
    .open_action = ACT_NONE,
    .open = timeline_open,
    .draw = timeline_draw,
    .action = timeline_action,
    .resize = timeline_resize,
    .close = timeline_close,
};
