/* The timeline view's actions (moving, zooming, selecting, marking, folding, the jumps of
 * timeline_nav.c) and the mouse, and its view_ops: the top of the timeline's files, which call
 * the others and are called by none of them. */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline_int.h"
#include "query/host.h"
#include "util/timefmt.h"

#include <stdlib.h>

static void
zoom(tl_ui *ui, int in)
{
	if (!vp_zoom(&TIMELINE(ui)->vp, in))
		ui_message(ui, 0,
		           in ? "Zoomed in as far as it goes (1 ns per column)"
		              : "Zoomed out as far as it goes");
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
			int64_t e = slice_end(r->tracks[ti], s);
			int64_t v = (e < c1 ? e : c1) - (s->start > c0 ? s->start : c0);
			if (v > best) {
				best = v;
				*ti_out = ti;
				*idx_out = k;
			}
		}
	}
	return best >= 0;
}

/* The slice of the current lane nearest the cursor (by the gap to it) when none is under it. */
static int
slice_nearest(tl_ui *ui, size_t *ti_out, size_t *idx_out)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->lane >= tl->nlanes)
		return 0;
	const ui_lane *l = &tl->lanes[tl->lane];
	if (l->type == UL_HEADER || l->type >= UL_COMPARE || l->type == UL_COUNTER)
		return 0;
	const tl_rank *r = ui->tr->ranks[l->rank];
	int64_t c = tl->vp.cursor, best = INT64_MAX;
	for (size_t ti = l->first; ti < l->first + l->count; ti++) {
		const tl_track *t = r->tracks[ti];
		for (int dir = -1; dir <= 1; dir += 2) {
			size_t k = tlq_slice_next(t, c, dir);
			if (k == SIZE_MAX)
				continue;
			int64_t gap = dir > 0 ? t->v[k].start - c : c - track_end(t, k);
			if (gap < 0)
				gap = 0;
			if (gap < best) {
				best = gap;
				*ti_out = ti;
				*idx_out = k;
			}
		}
	}
	return best != INT64_MAX;
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
	if (l->type == UL_COUNTER) {
		ui_message(ui, 0, "A counter lane has no slices (* goes to its peak)");
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

/* Moving: the cursor, panning, zooming. */
static int
move_action(tl_ui *ui, int a)
{
	tl_timeline *tl = TIMELINE(ui);
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
			const tl_track *t = ui->tr->ranks[ui->sel.s.rank]->tracks[ui->sel.s.track];
			timeline_show_range(ui, t->v[ui->sel.s.idx].start,
			                    track_end(t, ui->sel.s.idx));
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
	default:
		return 0;
	}
	return 1;
}

/* The lanes: moving between them, folding, what they show. */
static int
lanes_action(tl_ui *ui, int a)
{
	tl_timeline *tl = TIMELINE(ui);
	switch (a) {
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
		if (tl->show_host) {
			tlq_host_lanes(ui->q); /* DB profiles read them now, once */
			colmemo_clear(tl->memo);
		}
		timeline_rebuild_lanes(ui);
		break;
	case ACT_COUNTERS:
		timeline_counters_toggle(ui);
		break;
	case ACT_COUNTER_PEAK:
		timeline_counter_peak(ui);
		break;
	case ACT_LABEL_WIDTH:
		timeline_labels_cycle(ui);
		break;
	case ACT_PIN_RANK:
		if (tl->lane < tl->nlanes)
			timeline_pin_rank(ui, tl->lanes[tl->lane].rank);
		break;
	default:
		return 0;
	}
	return 1;
}

/* Slices: stepping, selecting, the links between them. */
static int
slices_action(tl_ui *ui, int a)
{
	tl_timeline *tl = TIMELINE(ui);
	size_t ti, idx;
	switch (a) {
	case ACT_SLICE_NEXT:
		slice_step(ui, 1);
		break;
	case ACT_LINK_LAUNCHER:
	case ACT_LINK_KERNELS:
	case ACT_LINK_PARTNER:
		timeline_link_action(ui, a);
		break;
	case ACT_SLICE_PREV:
		slice_step(ui, -1);
		break;
	case ACT_SELECT:
		if (tl->lane < tl->nlanes && tl->lanes[tl->lane].type == UL_HEADER)
			return lanes_action(ui, ACT_TOGGLE_RANK);
		if (slice_at_cursor(ui, &ti, &idx)) {
			select_slice(ui, tl->lanes[tl->lane].rank, ti, idx);
			ui_view_open(ui, &detail_view);
		} else if (slice_nearest(ui, &ti, &idx)) {
			/* an empty cell: the nearest slice of the lane, the cursor on it */
			size_t ri = tl->lanes[tl->lane].rank, keep = tl->lane;
			int64_t was = tl->vp.cursor;
			const tl_track *t = ui->tr->ranks[ri]->tracks[ti];
			const tl_slice *s = &t->v[idx];
			char d[32];
			timeline_select(ui, ri, ti, idx, 0);
			tl->lane = keep;
			ui_view_open(ui, &detail_view);
			ui_message(
			    ui, 0, "Nothing under the cursor: the nearest slice, %s %s",
			    timefmt_dur(s->start > was ? s->start - was : was - slice_end(t, s), d,
			                sizeof d),
			    s->start > was ? "later" : "earlier");
		} else {
			ui_message(ui, 0, "No slice on this lane");
		}
		break;
	default:
		return 0;
	}
	return 1;
}

/* Ranges, search and bubbles. */
static int
ranges_action(tl_ui *ui, int a)
{
	tl_timeline *tl = TIMELINE(ui);
	switch (a) {
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

static int
timeline_action(tl_ui *ui, void *st, int a)
{
	(void)st;
	return move_action(ui, a) || lanes_action(ui, a) || slices_action(ui, a) ||
	       ranges_action(ui, a);
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

/* The timeline's state, freed with its lanes and links (here, above them: timeline.c calls
 * neither). */
void
timeline_close(tl_ui *ui, void *st)
{
	tl_timeline *tl = st;
	lanes_free(ui);
	timeline_links_free(ui);
	timeline_marks_free(ui);
	timeline_counters_free(ui);
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
	colmemo_free(tl->memo);
	if (tl->have_search)
		tlq_search_free(&tl->search);
	free(tl);
}

/* The marks' actions first (the critical path, n/N along it, Esc), then the timeline's own. */
static int
timeline_view_action(tl_ui *ui, void *st, int a)
{
	return timeline_marks_action(ui, a) || timeline_action(ui, st, a);
}

const view_ops timeline_view = {
    .name = "timeline",
    .layer = UI_LAYER_BASE,
    .open_action = ACT_NONE,
    .open = timeline_open,
    .draw = timeline_draw,
    .action = timeline_view_action,
    .resize = timeline_resize,
    .close = timeline_close,
};
