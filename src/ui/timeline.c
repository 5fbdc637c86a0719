/* The timeline view: a time ruler, one group of lanes per rank, a status line. Every lane is
 * drawn column by column from the query layer (tlq_columns_edges: a few binary searches per
 * column), so a frame costs O(lanes x columns x log n) whatever the number of slices. */
#include "config.h"
#include "analysis/lanes.h"
#include "query/host.h"
#include "ui/rl.h"
#include "ui/ui.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define MIN_COLW 1            /* ns per column at the deepest zoom */
#define BUBBLE_LIST_MAX 10000 /* bubble-largest walks this many, largest first */
#define NAME_STEP 24          /* columns between the places a long slice's name may sit */

static const uint32_t eighths[9] = {' ',    0x2581, 0x2582, 0x2583, 0x2584,
                                    0x2585, 0x2586, 0x2587, 0x2588};
static const char ascii_density[5] = {' ', '.', ':', '+', '#'};

/* ---- lanes --------------------------------------------------------------------------------- */

static uint8_t
kind_slot(tl_lane_kind k, int64_t key)
{
	switch (k) {
	case TL_LANE_STAGE:
		return SLOT_STAGE;
	case TL_LANE_STEP:
		return SLOT_STEP;
	case TL_LANE_MSTX:
	case TL_LANE_MSTX_DEV:
		return SLOT_MSTX;
	case TL_LANE_COMPUTE:
		return SLOT_COMPUTE;
	case TL_LANE_COMM:
		return SLOT_COMM;
	case TL_LANE_COMM_TASK:
		return SLOT_COMM_TASK;
	case TL_LANE_MEMCPY:
		return SLOT_MEMCPY;
	case TL_LANE_OVERLAP:
		return key == TL_OVL_COMPUTING       ? SLOT_COMPUTE
		       : key == TL_OVL_COMMUNICATION ? SLOT_COMM
		       : key == TL_OVL_COMM_EXPOSED  ? SLOT_COMM_EXPOSED
		                                     : SLOT_FREE;
	case TL_LANE_HOST:
		return SLOT_HOST;
	default:
		return SLOT_OTHER;
	}
}

static void
add_lane(tl_ui *ui, ui_lane_type type, size_t ri, tl_lane_kind kind, size_t first, size_t count,
         uint8_t indent, const char *label)
{
	ui_lane l = {.type = type,
	             .rank = ri,
	             .kind = kind,
	             .first = first,
	             .count = count,
	             .indent = indent};
	const tl_rank *r = ui->tr->ranks[ri];
	l.slot = type == UL_HEADER ? SLOT_RANK : kind_slot(kind, r->tracks[first]->key);
	ui_clean(ui, label, l.label, sizeof l.label);
	VEC_PUSH(ui->lanes, ui->nlanes, ui->lcap, l);
}

static int
rank_has_device(const tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind >= TL_LANE_COMPUTE && r->tracks[i]->kind <= TL_LANE_OTHER)
			return 1;
	return 0;
}

static const char *
overlap_short(int64_t key)
{
	static const char *const n[] = {"Computing", "Communication", "Comm(Not Ovl)", "Free"};
	return key >= 0 && key < 4 ? n[key] : "?";
}

static void
track_label(const tl_rank *r, const tl_track *t, const char *prefix, char *buf, size_t len)
{
	const char *l = strpool_get(r->pool, t->label);
	if (t->depth > 0)
		snprintf(buf, len, "%s%s +%u", prefix, l, (unsigned)t->depth);
	else
		snprintf(buf, len, "%s%s", prefix, l);
}

void
timeline_rebuild_lanes(tl_ui *ui)
{
	/* keep the current lane across the rebuild */
	ui_lane old = {0};
	int have_old = ui->lane < ui->nlanes;
	if (have_old)
		old = ui->lanes[ui->lane];
	ui->nlanes = 0;
	const tl_trace *tr = ui->tr;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		char label[128];
		const char *arrow = ui->rs[ri].collapsed ? (ui->utf8 ? "\u25b8" : "+")
		                                         : (ui->utf8 ? "\u25be" : "-");
		snprintf(label, sizeof label, "%s rank %d%s%s%s", arrow, r->rank,
		         r->role ? " " : "", r->role ? r->role : "",
		         rank_has_device(r) ? "" : " (no device)");
		add_lane(ui, UL_HEADER, ri, TL_LANE__COUNT, 0, r->ntracks, 0, label);
		if (ui->rs[ri].collapsed)
			continue;
		int streams = ui->rs[ri].streams;
		for (size_t i = 0; i < r->ntracks;) {
			const tl_track *t = r->tracks[i];
			size_t k = i + 1;
			while (k < r->ntracks && r->tracks[k]->kind == t->kind)
				k++;
			switch (t->kind) {
			case TL_LANE_COMPUTE:
			case TL_LANE_MEMCPY: {
				size_t nstreams = 0;
				for (size_t j = i; j < k; j++)
					nstreams += r->tracks[j]->depth == 0;
				if (nstreams > 1)
					snprintf(label, sizeof label, "%s (%zu)",
					         lane_kind_name(t->kind), nstreams);
				else
					snprintf(label, sizeof label, "%s",
					         lane_kind_name(t->kind));
				add_lane(ui, UL_MERGED, ri, t->kind, i, k - i, 1, label);
				if (streams)
					for (size_t j = i; j < k; j++) {
						track_label(r, r->tracks[j], "", label,
						            sizeof label);
						add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 3, label);
					}
				break;
			}
			case TL_LANE_COMM_TASK:
			case TL_LANE_MSTX_DEV:
			case TL_LANE_OTHER:
				if (streams)
					for (size_t j = i; j < k; j++) {
						const char *pre =
						    t->kind == TL_LANE_COMM_TASK  ? "hccl "
						    : t->kind == TL_LANE_MSTX_DEV ? "mstx.dev "
						                                  : "other ";
						track_label(r, r->tracks[j], pre, label,
						            sizeof label);
						add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 1, label);
					}
				break;
			case TL_LANE_OVERLAP:
				if (ui->show_overlap)
					for (size_t j = i; j < k; j++)
						add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 1,
						         overlap_short(r->tracks[j]->key));
				break;
			case TL_LANE_HOST:
				if (!ui->show_host)
					break;
				/* fall through */
			default:
				for (size_t j = i; j < k; j++) {
					const char *pre = t->kind == TL_LANE_MSTX   ? "mstx "
					                  : t->kind == TL_LANE_COMM ? "comm "
					                  : t->kind == TL_LANE_HOST ? "host "
					                                            : "";
					if (t->kind == TL_LANE_STEP || t->kind == TL_LANE_STAGE)
						snprintf(label, sizeof label, "%s%s",
						         lane_kind_name(t->kind),
						         r->tracks[j]->depth ? " +" : "");
					else
						track_label(r, r->tracks[j], pre, label,
						            sizeof label);
					add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 1, label);
				}
				break;
			}
			i = k;
		}
	}
	ui->lane = 0;
	if (have_old) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < ui->nlanes; i++) {
			const ui_lane *l = &ui->lanes[i];
			if (l->rank != old.rank)
				continue;
			if (best == SIZE_MAX)
				best = i; /* the rank's header */
			if (l->type == old.type && l->kind == old.kind && l->first == old.first) {
				best = i;
				break;
			}
		}
		if (best != SIZE_MAX)
			ui->lane = best;
	}
	if (ui->top > ui->lane)
		ui->top = ui->lane;
	ui->rk_valid = 0;
}

/* ---- view geometry ------------------------------------------------------------------------- */

static int
label_width(int w)
{
	return w >= 140 ? 28 : w >= 100 ? 22 : w >= 90 ? 18 : 14;
}

void
timeline_layout(tl_ui *ui, int w, int h)
{
	int lw = label_width(w);
	int ncols = w - lw - 1;
	if (ncols < 1)
		ncols = 1;
	int64_t span = ui->colw * ui->ncols;
	int old = ui->ncols;
	ui->ncols = ncols;
	ui->lanes_x = lw + 1;
	ui->lanes_y = 1;
	int dh = ui->detail ? detail_height(ui, h) : 0;
	ui->lanes_h = h - 3 - dh;
	if (ui->lanes_h < 1)
		ui->lanes_h = 1;
	if (ncols + 1 > ui->scratch_cols) {
		ui->scratch_cols = ncols + 1;
		size_t n = (size_t)ui->scratch_cols;
		ui->edges = xreallocarray(ui->edges, n, sizeof *ui->edges);
		ui->rk_comp = xreallocarray(ui->rk_comp, n, sizeof(int64_t));
		ui->rk_comm = xreallocarray(ui->rk_comm, n, sizeof(int64_t));
		ui->rk_exp = xreallocarray(ui->rk_exp, n, sizeof(int64_t));
		ui->rk_free = xreallocarray(ui->rk_free, n, sizeof(int64_t));
		ui->cells = xreallocarray(ui->cells, n, sizeof *ui->cells);
		ui->cells2 = xreallocarray(ui->cells2, n, sizeof *ui->cells2);
		ui->domtrack = xreallocarray(ui->domtrack, n, sizeof *ui->domtrack);
	}
	/* a resize keeps the time span in view */
	if (old > 0 && old != ncols && span > 0) {
		int64_t mid = ui->t0 + span / 2;
		ui->colw = span / ncols > MIN_COLW ? span / ncols : MIN_COLW;
		ui->t0 = mid - ui->colw * ncols / 2;
	}
	ui->rk_valid = 0;
}

int64_t
timeline_col_time(const tl_ui *ui, int col)
{
	return ui->t0 + (int64_t)col * ui->colw;
}

/* The column of time t: -1 left of the view, ncols right of it. */
static int
time_col(const tl_ui *ui, int64_t t)
{
	int64_t d = t - ui->t0;
	int64_t c = d >= 0 ? d / ui->colw : -((-d + ui->colw - 1) / ui->colw);
	if (c < -1)
		c = -1;
	if (c > ui->ncols)
		c = ui->ncols;
	return (int)c;
}

static int64_t
max_colw(const tl_ui *ui)
{
	int64_t ext = ui->t_max - ui->t_min;
	if (ext < 1)
		ext = 1;
	int64_t m = ext * 4 / ui->ncols;
	return m < 1000 ? 1000 : m;
}

static void
clamp_view(tl_ui *ui)
{
	if (ui->colw < MIN_COLW)
		ui->colw = MIN_COLW;
	if (ui->colw > max_colw(ui))
		ui->colw = max_colw(ui);
	int64_t span = ui->colw * ui->ncols;
	/* keep at least half a screen of the profile in view */
	int64_t lo = ui->t_min - span / 2, hi = ui->t_max - span / 2;
	if (hi < lo)
		hi = lo;
	if (ui->t0 < lo)
		ui->t0 = lo;
	if (ui->t0 > hi)
		ui->t0 = hi;
}

/* Keeps the cursor inside the view by moving the view. */
static void
follow_cursor(tl_ui *ui)
{
	int64_t t1 = ui->t0 + ui->colw * ui->ncols;
	if (ui->cursor < ui->t0 || ui->cursor >= t1) {
		ui->t0 = ui->cursor - ui->colw * (ui->ncols / 2);
		clamp_view(ui);
	}
	t1 = ui->t0 + ui->colw * ui->ncols;
	if (ui->cursor < ui->t0)
		ui->cursor = ui->t0;
	if (ui->cursor >= t1)
		ui->cursor = t1 - 1;
}

void
timeline_fit(tl_ui *ui)
{
	int64_t ext = ui->t_max - ui->t_min;
	if (ext < 1)
		ext = 1;
	int n = ui->ncols > 2 ? ui->ncols - 2 : 1;
	ui->colw = (ext + n - 1) / n;
	if (ui->colw < MIN_COLW)
		ui->colw = MIN_COLW;
	ui->t0 = ui->t_min - ui->colw;
	if (ui->cursor < ui->t0 || ui->cursor >= ui->t0 + ui->colw * ui->ncols)
		ui->cursor = ui->t_min;
	ui->rk_valid = 0;
}

void
timeline_show_range(tl_ui *ui, int64_t a, int64_t b)
{
	if (b <= a)
		b = a + 1;
	int64_t span = b - a;
	int n = ui->ncols > 4 ? ui->ncols - 4 : ui->ncols;
	int64_t colw = (span + n - 1) / n;
	if (colw < MIN_COLW)
		colw = MIN_COLW;
	ui->colw = colw;
	ui->t0 = a + span / 2 - colw * (ui->ncols / 2);
	clamp_view(ui);
	if (ui->cursor < a || ui->cursor >= b)
		ui->cursor = a;
	follow_cursor(ui);
}

void
timeline_goto(tl_ui *ui, int64_t t)
{
	ui->cursor = t;
	follow_cursor(ui);
}

int
timeline_goto_rank(tl_ui *ui, size_t ri)
{
	for (size_t i = 0; i < ui->nlanes; i++)
		if (ui->lanes[i].type == UL_HEADER && ui->lanes[i].rank == ri) {
			ui->lane = i;
			ui->top = i;
			return 0;
		}
	return -1;
}

static void
zoom(tl_ui *ui, int in)
{
	int c = time_col(ui, ui->cursor);
	if (c < 0 || c >= ui->ncols)
		c = ui->ncols / 2;
	int64_t old = ui->colw, nw;
	if (in)
		nw = old * 2 / 3 < old ? old * 2 / 3 : old - 1;
	else
		nw = old * 3 / 2 > old ? old * 3 / 2 : old + 1;
	if (nw < MIN_COLW)
		nw = MIN_COLW;
	if (nw > max_colw(ui))
		nw = max_colw(ui);
	if (nw == old) {
		ui_message(ui, 0,
		           in ? "Zoomed in as far as it goes (1 ns per column)"
		              : "Zoomed out as far as it goes");
		return;
	}
	/* the cursor keeps its column */
	int64_t off = ui->cursor - (ui->t0 + (int64_t)c * old);
	ui->colw = nw;
	ui->t0 = ui->cursor - (int64_t)c * nw - off * nw / old;
	clamp_view(ui);
	follow_cursor(ui);
}

/* The view moves, the cursor keeps its time (and moves with the content) unless it would leave
 * the view. */
static void
pan(tl_ui *ui, int64_t cols)
{
	ui->t0 += cols * ui->colw;
	clamp_view(ui);
	int64_t t1 = ui->t0 + ui->colw * ui->ncols;
	if (ui->cursor < ui->t0)
		ui->cursor += (ui->t0 - ui->cursor + ui->colw - 1) / ui->colw * ui->colw;
	if (ui->cursor >= t1)
		ui->cursor -= (ui->cursor - t1) / ui->colw * ui->colw + ui->colw;
}

/* ---- lane navigation ----------------------------------------------------------------------- */

static void
lane_visible(tl_ui *ui)
{
	size_t h = (size_t)(ui->lanes_h > 0 ? ui->lanes_h : 1);
	if (ui->lane < ui->top)
		ui->top = ui->lane;
	if (ui->lane >= ui->top + h)
		ui->top = ui->lane - h + 1;
	if (ui->nlanes > h && ui->top > ui->nlanes - h)
		ui->top = ui->nlanes - h;
}

static void
lane_move(tl_ui *ui, long d)
{
	if (ui->nlanes == 0)
		return;
	long l = (long)ui->lane + d;
	if (l < 0)
		l = 0;
	if (l >= (long)ui->nlanes)
		l = (long)ui->nlanes - 1;
	ui->lane = (size_t)l;
	lane_visible(ui);
}

static void
rank_move(tl_ui *ui, int dir)
{
	size_t i = ui->lane;
	if (dir > 0) {
		for (i = ui->lane + 1; i < ui->nlanes && ui->lanes[i].type != UL_HEADER; i++)
			;
		if (i >= ui->nlanes)
			return;
	} else {
		/* to this rank's header first, then the previous one */
		size_t h = ui->lane;
		while (h > 0 && ui->lanes[h].type != UL_HEADER)
			h--;
		if (h == ui->lane && h > 0) {
			h--;
			while (h > 0 && ui->lanes[h].type != UL_HEADER)
				h--;
		}
		i = h;
	}
	ui->lane = i;
	/* a rank group reads best from its header down */
	ui->top = i;
	lane_visible(ui);
}

size_t
timeline_lane_at_row(const tl_ui *ui, int row)
{
	if (row < ui->lanes_y || row >= ui->lanes_y + ui->lanes_h)
		return SIZE_MAX;
	size_t l = ui->top + (size_t)(row - ui->lanes_y);
	return l < ui->nlanes ? l : SIZE_MAX;
}

/* The lane showing track ti of rank ri (making it shown when it is hidden). */
static size_t
lane_of_track(tl_ui *ui, size_t ri, size_t ti, int reveal)
{
	for (int pass = 0; pass < 2; pass++) {
		size_t merged = SIZE_MAX;
		for (size_t i = 0; i < ui->nlanes; i++) {
			const ui_lane *l = &ui->lanes[i];
			if (l->rank != ri || l->type == UL_HEADER)
				continue;
			if (ti >= l->first && ti < l->first + l->count) {
				if (l->type == UL_TRACK)
					return i;
				merged = i;
			}
		}
		if (merged != SIZE_MAX)
			return merged;
		if (!reveal || pass == 1)
			break;
		const tl_track *t = ui->tr->ranks[ri]->tracks[ti];
		ui->rs[ri].collapsed = 0;
		if (t->kind == TL_LANE_OVERLAP)
			ui->show_overlap = 1;
		else if (t->kind == TL_LANE_HOST)
			ui->show_host = 1;
		else
			ui->rs[ri].streams = 1;
		timeline_rebuild_lanes(ui);
	}
	for (size_t i = 0; i < ui->nlanes; i++)
		if (ui->lanes[i].rank == ri)
			return i;
	return SIZE_MAX;
}

void
timeline_select(tl_ui *ui, size_t ri, size_t ti, size_t idx, int zoom_to)
{
	const tl_slice *s = &ui->tr->ranks[ri]->tracks[ti]->v[idx];
	ui->have_sel = 1;
	ui->sel_rank = ri;
	ui->sel_track = ti;
	ui->sel_idx = idx;
	detail_invalidate(ui);
	size_t l = lane_of_track(ui, ri, ti, 1);
	if (l != SIZE_MAX) {
		ui->lane = l;
		lane_visible(ui);
	}
	if (zoom_to) {
		timeline_show_range(ui, s->start, s->end);
		return;
	}
	int64_t t1 = ui->t0 + ui->colw * ui->ncols;
	ui->cursor = s->start;
	if (s->start < ui->t0 || s->start >= t1) {
		/* bring it in, about a third from the left */
		ui->t0 = s->start - ui->colw * (ui->ncols / 3);
		clamp_view(ui);
	}
	follow_cursor(ui);
}

/* The slice under the cursor on the current lane: first the one containing the cursor, else
 * the dominant one of the cursor's column. */
static int
slice_at_cursor(tl_ui *ui, size_t *ti_out, size_t *idx_out)
{
	if (ui->lane >= ui->nlanes)
		return 0;
	const ui_lane *l = &ui->lanes[ui->lane];
	if (l->type == UL_HEADER)
		return 0;
	const tl_rank *r = ui->tr->ranks[l->rank];
	int64_t c0 = ui->t0 + (ui->cursor - ui->t0) / ui->colw * ui->colw, c1 = c0 + ui->colw;
	for (size_t ti = l->first; ti < l->first + l->count; ti++) {
		size_t k = tlq_slice_at(r->tracks[ti], ui->cursor);
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
	if (ui->lane >= ui->nlanes)
		return;
	const ui_lane *l = &ui->lanes[ui->lane];
	if (l->type == UL_HEADER) {
		ui_message(ui, 0, "Move to a lane first (Down)");
		return;
	}
	const tl_rank *r = ui->tr->ranks[l->rank];
	int64_t ref = ui->cursor;
	size_t sel_ti = SIZE_MAX;
	if (ui->have_sel && ui->sel_rank == l->rank && ui->sel_track >= l->first &&
	    ui->sel_track < l->first + l->count) {
		ref = r->tracks[ui->sel_track]->v[ui->sel_idx].start;
		sel_ti = ui->sel_track;
	}
	size_t bt = SIZE_MAX, bi = 0;
	int64_t bs = 0;
	for (size_t ti = l->first; ti < l->first + l->count; ti++) {
		const tl_track *t = r->tracks[ti];
		size_t k;
		if (ti == sel_ti) /* ties on start within the selected track: by index */
			k = dir > 0 ? (ui->sel_idx + 1 < t->n ? ui->sel_idx + 1 : SIZE_MAX)
			            : (ui->sel_idx > 0 ? ui->sel_idx - 1 : SIZE_MAX);
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
	size_t keep = ui->lane;
	timeline_select(ui, l->rank, bt, bi, 0);
	ui->lane = keep; /* stay on the merged lane when it was the current one */
	lane_visible(ui);
}

/* ---- bubbles ------------------------------------------------------------------------------- */

/* Bubbles are found and attributed by the query layer (tlq_rl_bubble_*: the stage enclosing the
 * whole gap, the step, the reason), the functions behind `tl summary`'s bubbles. */

/* Selects the bubble's Free slice and brings it into view. */
static void
bubble_show(tl_ui *ui, const tl_rl_bubble *b)
{
	const tl_rank *r = ui->tr->ranks[b->rank];
	tl_track *f = lanes_overlap_track(r, TL_OVL_FREE);
	int64_t s = b->start, e = b->end;
	ui->bubbles = 1;
	if (f) {
		size_t k = tlq_slice_at(f, s);
		for (size_t ti = 0; k != SIZE_MAX && ti < r->ntracks; ti++)
			if (r->tracks[ti] == f) {
				ui->have_sel = 1;
				ui->sel_rank = b->rank;
				ui->sel_track = ti;
				ui->sel_idx = k;
				detail_invalidate(ui);
				ui->bub = *b; /* the detail pane shows it without asking again */
				ui->bub_valid = 1;
				size_t l = lane_of_track(ui, b->rank, ti, 0);
				if (l != SIZE_MAX) {
					ui->lane = l;
					lane_visible(ui);
				}
			}
	}
	int64_t len = e - s;
	if (len > ui->colw * ui->ncols || len * 8 < ui->colw * ui->ncols)
		timeline_show_range(ui, s - len, e + len); /* the bubble in the middle third */
	ui->cursor = s;
	follow_cursor(ui);
}

/* "<what>: 1.563 ms idle on rank 0 at 84.531ms, step 1, no stage, nothing_scheduled": the
 * columns of `tl summary`'s bubble table */
static void
bubble_describe(tl_ui *ui, const char *what, const tl_rl_bubble *b)
{
	const tl_rank *r = ui->tr->ranks[b->rank];
	char d[32], at[48], stage[96], step[48];
	const char *sn = tlq_rl_stage_name(ui_rl_get(ui)->rl, b->stage);
	if (sn) {
		char c[64];
		snprintf(stage, sizeof stage, "stage %s", ui_clean(ui, sn, c, sizeof c));
	} else {
		snprintf(stage, sizeof stage, "no stage");
	}
	if (b->step >= 0)
		snprintf(step, sizeof step, "step %" PRId64, b->step);
	else
		snprintf(step, sizeof step, "no step");
	ui_message(ui, 0, "%s: %s idle on rank %d at %s, %s, %s, %s", what,
	           timefmt_dur(b->end - b->start, d, sizeof d), r->rank,
	           ui_time(ui, b->start, at, sizeof at), step, stage,
	           bubble_reason_name(b->reason));
}

static void
bubble_step(tl_ui *ui, int dir)
{
	if (ui->lane >= ui->nlanes)
		return;
	size_t ri = ui->lanes[ui->lane].rank, k = 0, n = 0;
	const tl_rank *r = ui->tr->ranks[ri];
	tl_rl_bubble b;
	if (tlq_rl_bubble_next(ui_rl_get(ui)->rl, ri, ui->cursor, dir, &b, &k, &n) != 0) {
		if (n == 0)
			ui_message(ui, 0,
			           "Rank %d has no bubbles (no idle gap between device work)",
			           r->rank);
		else
			ui_message(ui, 0,
			           dir > 0 ? "No bubble after the cursor on rank %d"
			                   : "No bubble before the cursor on rank %d",
			           r->rank);
		return;
	}
	char what[64];
	snprintf(what, sizeof what, "Bubble %zu/%zu", k + 1, n);
	bubble_show(ui, &b);
	bubble_describe(ui, what, &b);
}

static void
bubble_largest(tl_ui *ui, int dir)
{
	tl_rl *rl = ui_rl_get(ui)->rl;
	size_t nb = tlq_rl_bubble_largest(rl, BUBBLE_LIST_MAX, 0, NULL);
	if (nb == 0) {
		ui_message(ui, 0, "No bubbles: no idle gap between device work on any rank");
		return;
	}
	if (dir > 0) {
		if (ui->bpos >= nb) {
			ui_message(ui, 0, "That was the last of the %zu largest bubbles", nb);
			return;
		}
		ui->bpos++;
	} else {
		if (ui->bpos <= 1) {
			ui_message(ui, 0, "That is the largest bubble");
			return;
		}
		ui->bpos--;
	}
	tl_rl_bubble b;
	tlq_rl_bubble_largest(rl, BUBBLE_LIST_MAX, ui->bpos - 1, &b);
	char what[64];
	snprintf(what, sizeof what, "Bubble #%zu of %zu by size", ui->bpos, nb);
	bubble_show(ui, &b);
	bubble_describe(ui, what, &b);
}

/* ---- search -------------------------------------------------------------------------------- */

static void
match_go(tl_ui *ui, const tl_match_pos *m)
{
	ui->have_match = 1;
	ui->match = *m;
	timeline_select(ui, m->rank, m->track, m->slice, 0);
	size_t ord = tlq_search_ordinal(&ui->search, ui->tr, m);
	const tl_rank *r = ui->tr->ranks[m->rank];
	char nm[128];
	ui_clean(ui, strpool_get(r->pool, r->tracks[m->track]->v[m->slice].name), nm, sizeof nm);
	ui_message(ui, 0, "Match %zu of %zu: %s (rank %d)", ord + 1, ui->search.total, nm, r->rank);
}

int
timeline_search(tl_ui *ui, const char *pattern)
{
	char err[256];
	tl_search s;
	if (*pattern == '\0') {
		if (!ui->have_search) {
			ui_message(ui, 1, "No previous search");
			return -1;
		}
		pattern = ui->search.pattern;
	}
	if (tlq_search(ui->tr, NULL, pattern, &s, err, sizeof err) != 0) {
		ui_message(ui, 1, "Bad pattern: %s", err);
		return -1;
	}
	if (ui->have_search)
		tlq_search_free(&ui->search);
	ui->search = s;
	ui->have_search = 1;
	ui->have_match = 0;
	if (s.total == 0) {
		char p[128];
		ui_message(ui, 1, "No slice name matches /%s/", ui_clean(ui, pattern, p, sizeof p));
		return 0;
	}
	tl_match_pos from = {SIZE_MAX, 0, 0, ui->cursor}, m;
	if (tlq_search_step(&ui->search, ui->tr, &from, 1, &m) != 0) {
		from.start = INT64_MIN;
		tlq_search_step(&ui->search, ui->tr, &from, 1, &m);
	}
	match_go(ui, &m);
	return 0;
}

static void
search_step(tl_ui *ui, int dir)
{
	if (!ui->have_search) {
		ui_message(ui, 1, "No search yet: / searches slice names");
		return;
	}
	if (ui->search.total == 0) {
		ui_message(ui, 1, "No matches");
		return;
	}
	tl_match_pos from = ui->have_match ? ui->match : (tl_match_pos){SIZE_MAX, 0, 0, ui->cursor};
	tl_match_pos m;
	if (tlq_search_step(&ui->search, ui->tr, &from, dir, &m) != 0) {
		tl_match_pos wrap = {SIZE_MAX, 0, 0, dir > 0 ? INT64_MIN : INT64_MAX};
		if (tlq_search_step(&ui->search, ui->tr, &wrap, dir, &m) != 0)
			return;
		match_go(ui, &m);
		char tmp[sizeof ui->msg];
		snprintf(tmp, sizeof tmp, "%s", ui->msg);
		ui_message(ui, 0, "%s [wrapped]", tmp);
		return;
	}
	match_go(ui, &m);
}

/* ---- drawing ------------------------------------------------------------------------------- */

/* Per rank and frame: the overlap lanes per column (rank at a glance, exposed communication,
 * bubbles). */
static void
rank_columns(tl_ui *ui, size_t ri)
{
	if (ui->rk_valid && ui->rk_rank == ri)
		return;
	const tl_rank *r = ui->tr->ranks[ri];
	tlq_busy_columns(lanes_overlap_track(r, TL_OVL_COMPUTING), ui->edges, ui->ncols,
	                 ui->rk_comp);
	tlq_busy_columns(lanes_overlap_track(r, TL_OVL_COMMUNICATION), ui->edges, ui->ncols,
	                 ui->rk_comm);
	tlq_busy_columns(lanes_overlap_track(r, TL_OVL_COMM_EXPOSED), ui->edges, ui->ncols,
	                 ui->rk_exp);
	tlq_busy_columns(lanes_overlap_track(r, TL_OVL_FREE), ui->edges, ui->ncols, ui->rk_free);
	ui->rk_rank = ri;
	ui->rk_valid = 1;
}

static uint32_t
density_glyph(const tl_ui *ui, int64_t busy, int64_t w)
{
	if (ui->utf8) {
		int e = (int)((busy * 8 + w / 2) / w);
		if (e < 1)
			e = 1;
		if (e > 8)
			e = 8;
		return eighths[e];
	}
	int e = (int)((busy * 4 + w / 2) / w);
	if (e < 1)
		e = 1;
	if (e > 4)
		e = 4;
	return (uint32_t)ascii_density[e];
}

static int
is_device_kind(tl_lane_kind k)
{
	return k >= TL_LANE_COMPUTE && k <= TL_LANE_OVERLAP;
}

static void
draw_header_row(tl_ui *ui, const ui_lane *l, int y)
{
	rank_columns(ui, l->rank);
	int x0 = ui->lanes_x;
	for (int c = 0; c < ui->ncols; c++) {
		int64_t busy = ui->rk_comp[c] + ui->rk_exp[c];
		if (busy > 0) {
			uint8_t slot =
			    ui->rk_exp[c] > ui->rk_comp[c] ? SLOT_COMM_EXPOSED : SLOT_COMPUTE;
			screen_put(&ui->scr, x0 + c, y, density_glyph(ui, busy, ui->colw), slot,
			           SCR_GLYPH);
		} else if (ui->bubbles && ui->rk_free[c] > 0) {
			screen_put(&ui->scr, x0 + c, y, ui->utf8 ? 0x2591 : '.', SLOT_FREE,
			           SCR_GLYPH);
		}
	}
}

/* A solid cell: the dominant slice covers the whole column. */
static int
covers(const tl_slice *s, int64_t c0, int64_t c1)
{
	return s->start <= c0 && s->end >= c1;
}

static void
draw_track_row(tl_ui *ui, const ui_lane *l, int y)
{
	const tl_rank *r = ui->tr->ranks[l->rank];
	int n = ui->ncols, x0 = ui->lanes_x;
	tl_cell *cells = ui->cells;
	uint32_t *dt = ui->domtrack;
	/* per column: dominant slice (track, index), how busy, how many */
	for (size_t k = 0; k < l->count; k++) {
		tl_track *t = r->tracks[l->first + k];
		tl_cell *dst = k == 0 ? cells : ui->cells2;
		tlq_columns_edges(t, ui->edges, n, dst);
		if (k == 0) {
			for (int c = 0; c < n; c++)
				dt[c] = (uint32_t)l->first;
			continue;
		}
		for (int c = 0; c < n; c++) {
			tl_cell *a = &cells[c], *b = &ui->cells2[c];
			if (b->count == 0)
				continue;
			int64_t c0 = ui->edges[c], c1 = ui->edges[c + 1];
			int64_t vb = -1, va = -1;
			const tl_slice *sb = &t->v[b->dominant];
			vb = (sb->end < c1 ? sb->end : c1) - (sb->start > c0 ? sb->start : c0);
			if (a->count) {
				const tl_slice *sa = &r->tracks[dt[c]]->v[a->dominant];
				va = (sa->end < c1 ? sa->end : c1) -
				     (sa->start > c0 ? sa->start : c0);
			}
			if (vb > va) {
				a->dominant = b->dominant;
				dt[c] = (uint32_t)(l->first + k);
			}
			a->busy += b->busy;
			a->count =
			    a->count + b->count < a->count ? UINT32_MAX : a->count + b->count;
		}
	}
	int merged_compute = l->type == UL_MERGED && l->kind == TL_LANE_COMPUTE;
	int comm = l->kind == TL_LANE_COMM || l->kind == TL_LANE_COMM_TASK;
	int device = is_device_kind(l->kind);
	if (merged_compute || comm || (ui->bubbles && l->kind != TL_LANE_OVERLAP))
		rank_columns(ui, l->rank);
	for (int c = 0; c < n; c++) {
		int64_t c0 = ui->edges[c], c1 = ui->edges[c + 1];
		const tl_cell *cl = &cells[c];
		int x = x0 + c;
		if (cl->count == 0) {
			if (ui->bubbles && l->kind != TL_LANE_OVERLAP && ui->rk_free[c] > 0)
				screen_put(&ui->scr, x, y, ui->utf8 ? 0x2591 : '.', SLOT_FREE,
				           SCR_GLYPH);
			continue;
		}
		const tl_track *t = r->tracks[dt[c]];
		const tl_slice *s = &t->v[cl->dominant];
		int64_t busy = merged_compute ? ui->rk_comp[c] : cl->busy;
		if (busy > ui->colw)
			busy = ui->colw;
		uint8_t slot = l->slot;
		if (l->kind == TL_LANE_STAGE)
			slot = (uint8_t)theme_stage_slot(strpool_get(r->pool, s->name));
		else if (comm && ui->rk_comm[c] > 0 && ui->rk_exp[c] * 2 >= ui->rk_comm[c])
			slot = SLOT_COMM_EXPOSED;
		if (ui->bubbles && device && l->kind != TL_LANE_OVERLAP &&
		    ui->rk_free[c] * 2 >= (c1 - c0)) {
			/* mostly idle: the gap reads as a gap */
			screen_put(&ui->scr, x, y, ui->utf8 ? 0x2591 : '.', SLOT_FREE, SCR_GLYPH);
			continue;
		}
		if (covers(s, c0, c1))
			screen_put(&ui->scr, x, y, ' ', slot, 0);
		else if (s->end == s->start && cl->busy == 0)
			screen_put(&ui->scr, x, y, ui->utf8 ? 0x2502 : '|', slot, SCR_GLYPH);
		else
			screen_put(&ui->scr, x, y, density_glyph(ui, busy, c1 - c0), slot,
			           SCR_GLYPH);
	}
	/* names on runs of solid columns of one slice */
	for (int c = 0; c < n;) {
		const tl_cell *cl = &cells[c];
		int64_t c0 = ui->edges[c], c1 = ui->edges[c + 1];
		const scr_cell *sc = &ui->scr.cell[y * ui->scr.w + x0 + c];
		if (cl->count == 0 || sc->flags ||
		    !covers(&r->tracks[dt[c]]->v[cl->dominant], c0, c1)) {
			c++;
			continue;
		}
		int e = c + 1;
		while (e < n && cells[e].count && dt[e] == dt[c] &&
		       cells[e].dominant == cl->dominant &&
		       ui->scr.cell[y * ui->scr.w + x0 + e].flags == 0)
			e++;
		/* The name starts with the slice; when the slice began left of the view, it sits on
		 * a grid of NAME_STEP columns from the slice start, so that panning moves it with
		 * the slice (cheap to send) and it stays near the left edge. */
		const tl_slice *sl = &r->tracks[dt[c]]->v[cl->dominant];
		int64_t d = sl->start - ui->t0;
		int64_t scol = d >= 0 ? d / ui->colw : -((-d + ui->colw - 1) / ui->colw);
		int at = c;
		if (scol < c) {
			int64_t a = scol + (c - scol + NAME_STEP - 1) / NAME_STEP * NAME_STEP;
			if (a + 3 <= e)
				at = (int)a;
		}
		if (e - at >= 3) {
			char nm[256];
			ui_clean(ui, strpool_get(r->pool, sl->name), nm, sizeof nm);
			uint8_t slots[512];
			int k = e - at < 512 ? e - at : 512;
			for (int i = 0; i < k; i++) /* per-column slots (exposed comm) stay */
				slots[i] = ui->scr.cell[y * ui->scr.w + x0 + at + i].slot;
			screen_text(&ui->scr, x0 + at, y, e - at, nm, sc->slot);
			for (int i = 0; i < k; i++)
				ui->scr.cell[y * ui->scr.w + x0 + at + i].slot = slots[i];
		}
		c = e;
	}
	/* search matches */
	if (ui->have_search && ui->search.total)
		for (int c = 0; c < n; c++) {
			if (cells[c].count == 0)
				continue;
			int hit = 0;
			for (size_t k = 0; k < l->count && !hit; k++)
				hit = tlq_search_any(&ui->search, ui->tr, l->rank, l->first + k,
				                     ui->edges[c], ui->edges[c + 1]);
			if (hit) {
				scr_cell *sc = &ui->scr.cell[y * ui->scr.w + x0 + c];
				sc->slot = SLOT_MATCH;
			}
		}
}

static void
draw_selection(tl_ui *ui, const ui_lane *l, int y)
{
	if (!ui->have_sel || ui->sel_rank != l->rank || l->type == UL_HEADER ||
	    ui->sel_track < l->first || ui->sel_track >= l->first + l->count)
		return;
	const tl_slice *s = &ui->tr->ranks[l->rank]->tracks[ui->sel_track]->v[ui->sel_idx];
	int a = time_col(ui, s->start), b = time_col(ui, s->end > s->start ? s->end - 1 : s->end);
	if (b < 0 || a >= ui->ncols)
		return;
	if (a < 0)
		a = 0;
	if (b >= ui->ncols)
		b = ui->ncols - 1;
	for (int c = a; c <= b; c++) {
		scr_cell *sc = &ui->scr.cell[y * ui->scr.w + ui->lanes_x + c];
		if (sc->ch == ' ' && sc->flags)
			sc->ch = ui->utf8 ? 0x2588 : '#';
		sc->slot = SLOT_SELECTION;
		sc->flags = 0;
		if (a == b && sc->ch == ' ')
			sc->ch = ui->utf8 ? 0x2503 : '|';
	}
}

static void
draw_label(tl_ui *ui, const ui_lane *l, int y, int current)
{
	int lw = ui->lanes_x - 1;
	uint8_t slot = current ? SLOT_LABEL_CURRENT : l->type == UL_HEADER ? SLOT_RANK : SLOT_LABEL;
	screen_fill(&ui->scr, 0, y, lw, ' ', slot);
	screen_text(&ui->scr, l->indent, y, lw - l->indent, l->label, slot);
	screen_put(&ui->scr, lw, y, ui->utf8 ? 0x2502 : '|', SLOT_LABEL, 0);
}

/* "31.25ms"-style tick labels: the unit follows the size of the times in view, the decimals
 * follow the tick step. */
static void
tick_label(const tl_ui *ui, int64_t rel, int64_t step, int64_t mag, char *buf, size_t len)
{
	if (ui->abstime) {
		char full[64];
		timefmt_epoch(ui->origin + rel, full, sizeof full);
		/* "2025-01-09 15:31:07.933660740": hh:mm:ss plus the digits the step needs */
		int digits = step >= 1000000000  ? 0
		             : step >= 100000000 ? 1
		             : step >= 10000000  ? 2
		             : step >= 1000000   ? 3
		             : step >= 100000    ? 4
		             : step >= 10000     ? 5
		             : step >= 1000      ? 6
		             : step >= 100       ? 7
		             : step >= 10        ? 8
		                                 : 9;
		snprintf(buf, len, "%.*s", 8 + (digits ? digits + 1 : 0), full + 11);
		return;
	}
	static const struct {
		int64_t unit;
		const char *name;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
	size_t u = 0;
	while (u < 3 && (mag > step ? mag : step) < units[u].unit)
		u++;
	int64_t unit = units[u].unit;
	int dec = 0;
	for (int64_t q = unit; q > 1 && step % q != 0; q /= 10)
		dec++;
	const char *sign = rel < 0 ? "-" : "";
	int64_t a = rel < 0 ? -rel : rel;
	if (dec == 0) {
		snprintf(buf, len, "%s%" PRId64 "%s", sign, a / unit, units[u].name);
	} else {
		int64_t p10 = 1;
		for (int i = 0; i < dec; i++)
			p10 *= 10;
		int64_t frac = (a % unit) / (unit / p10);
		char fd[16];
		for (int i = dec - 1; i >= 0; i--, frac /= 10)
			fd[i] = (char)('0' + frac % 10);
		fd[dec] = '\0';
		snprintf(buf, len, "%s%" PRId64 ".%s%s", sign, a / unit, fd, units[u].name);
	}
	if (!ui->utf8)
		return;
	char *p = strstr(buf, "us");
	if (p && p[2] == '\0') {
		/* µs */
		p[0] = (char)0xC2;
		p[1] = (char)0xB5;
		p[2] = 's';
		p[3] = '\0';
	}
}

static void
draw_ruler(tl_ui *ui)
{
	int lw = ui->lanes_x - 1;
	screen_fill(&ui->scr, 0, 0, ui->scr.w, ' ', SLOT_RULER);
	char d[32];
	timefmt_dur(ui->colw, d, sizeof d);
	char *sp = strchr(d, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));
	screen_printf(&ui->scr, 0, 0, lw, SLOT_RULER, "%s/col%s", d, ui->abstime ? " clock" : "");
	screen_put(&ui->scr, lw, 0, ui->utf8 ? 0x2502 : '|', SLOT_RULER, 0);
	/* a tick every >= 12 columns (more for long labels) at 1, 2, 5 x 10^k ns */
	int64_t rel_a = ui->t0 - ui->origin, rel_b = rel_a + ui->colw * ui->ncols;
	int64_t mag = rel_a < 0 ? -rel_a : rel_a;
	if ((rel_b < 0 ? -rel_b : rel_b) > mag)
		mag = rel_b < 0 ? -rel_b : rel_b;
	char probe[48];
	tick_label(ui, rel_b, ui->colw * 12, mag, probe, sizeof probe);
	int spacing = (int)strlen(probe) + 3 > 12 ? (int)strlen(probe) + 3 : 12;
	int64_t want = ui->colw * spacing, step = 1;
	while (step < want) {
		if (step * 2 >= want) {
			step *= 2;
			break;
		}
		if (step * 5 >= want) {
			step *= 5;
			break;
		}
		step *= 10;
	}
	int64_t rel0 = ui->t0 - ui->origin;
	int64_t first = rel0 >= 0 ? (rel0 + step - 1) / step * step : -((-rel0) / step * step);
	int last_end = -1;
	for (int64_t rel = first;; rel += step) {
		int64_t t = ui->origin + rel;
		int c = time_col(ui, t);
		if (c >= ui->ncols)
			break;
		if (c < 0)
			continue;
		char lab[48];
		tick_label(ui, rel, step, mag, lab, sizeof lab);
		int x = ui->lanes_x + c;
		screen_put(&ui->scr, x, 0, ui->utf8 ? 0x2575 : '|', SLOT_RULER, 0);
		int wl = (int)strlen(lab);
		if (c + 1 > last_end && c + 1 + wl < ui->ncols) {
			screen_text(&ui->scr, x + 1, 0, wl, lab, SLOT_RULER);
			last_end = c + 1 + wl;
		}
	}
	/* the marked range and the cursor */
	if (ui->nmark >= 1) {
		int64_t a = ui->mark[0], b = ui->nmark == 2 ? ui->mark[1] : ui->cursor;
		if (b < a) {
			int64_t tmp = a;
			a = b;
			b = tmp;
		}
		int ca = time_col(ui, a), cb = time_col(ui, b);
		for (int c = ca < 0 ? 0 : ca; c <= cb && c < ui->ncols; c++)
			ui->scr.cell[ui->lanes_x + c].slot = SLOT_MARK;
	}
	int cc = time_col(ui, ui->cursor);
	if (cc >= 0 && cc < ui->ncols) {
		scr_cell *sc = &ui->scr.cell[ui->lanes_x + cc];
		if (sc->ch == ' ' || sc->ch == 0x2575 || sc->ch == '|')
			sc->ch = ui->utf8 ? 0x25BC : 'v';
		sc->slot = SLOT_CURSOR;
	}
}

static void
draw_too_small(tl_ui *ui)
{
	screen_clear(&ui->scr, SLOT_NORMAL);
	screen_printf(&ui->scr, 0, 0, ui->scr.w, SLOT_ERROR, "terminal too small (%dx%d)",
	              ui->scr.w, ui->scr.h);
	if (ui->scr.h > 1)
		screen_printf(&ui->scr, 0, 1, ui->scr.w, SLOT_MESSAGE, "need 40x10; q quits");
}

static void
timeline_draw(tl_ui *ui, int x, int y, int w, int h)
{
	(void)x;
	(void)y;
	if (w < 40 || h < 10) {
		draw_too_small(ui);
		return;
	}
	for (int c = 0; c <= ui->ncols; c++)
		ui->edges[c] = ui->t0 + (int64_t)c * ui->colw;
	ui->rk_valid = 0;
	draw_ruler(ui);
	lane_visible(ui);
	int cc = time_col(ui, ui->cursor);
	int ma = -1, mb = -1;
	if (ui->nmark == 2) {
		ma = time_col(ui, ui->mark[0]);
		mb = time_col(ui, ui->mark[1]);
	}
	for (int row = 0; row < ui->lanes_h; row++) {
		size_t li = ui->top + (size_t)row;
		int yy = ui->lanes_y + row;
		if (li >= ui->nlanes)
			break;
		const ui_lane *l = &ui->lanes[li];
		draw_label(ui, l, yy, li == ui->lane);
		if (l->type == UL_HEADER)
			draw_header_row(ui, l, yy);
		else
			draw_track_row(ui, l, yy);
		draw_selection(ui, l, yy);
		/* range edges */
		for (int e = 0; e < 2; e++) {
			int c = e ? mb : ma;
			if (c >= 0 && c < ui->ncols) {
				scr_cell *sc = &ui->scr.cell[yy * ui->scr.w + ui->lanes_x + c];
				if (sc->ch == ' ' && sc->slot == SLOT_NORMAL) {
					sc->ch = ui->utf8 ? 0x250A : ':';
					sc->slot = SLOT_MARK;
				}
			}
		}
		if (cc >= 0 && cc < ui->ncols) {
			scr_cell *sc = &ui->scr.cell[yy * ui->scr.w + ui->lanes_x + cc];
			if (sc->ch == ' ' && sc->slot == SLOT_NORMAL)
				sc->ch = ui->utf8 ? 0x2502 : '|';
			if (sc->slot != SLOT_SELECTION) { /* the selection stays visible */
				sc->slot = SLOT_CURSOR;
				sc->flags = 0;
			}
		}
	}
	if (ui->nlanes == 0)
		screen_text(&ui->scr, 1, 2, w - 2, "nothing to show", SLOT_MESSAGE);
}

/* ---- status line --------------------------------------------------------------------------- */

void
timeline_status(tl_ui *ui, int y)
{
	tl_screen *s = &ui->scr;
	screen_fill(s, 0, y, s->w, ' ', SLOT_STATUS);
	char a[48], b[48], d[32], cur[48], buf[1024];
	int64_t t1 = ui->t0 + ui->colw * ui->ncols;
	int off = snprintf(buf, sizeof buf, " %s \u2013 %s (%s)  cursor %s",
	                   ui_time(ui, ui->t0, a, sizeof a), ui_time(ui, t1, b, sizeof b),
	                   timefmt_dur(t1 - ui->t0, d, sizeof d),
	                   ui_time(ui, ui->cursor, cur, sizeof cur));
	if (!ui->utf8) {
		char *p = strstr(buf, "\u2013");
		if (p) {
			memmove(p + 1, p + 3, strlen(p + 3) + 1);
			*p = '-';
			off -= 2;
		}
	}
	if (ui->have_search) {
		if (ui->have_match)
			off += snprintf(buf + off, sizeof buf - (size_t)off, "  | match %zu/%zu",
			                tlq_search_ordinal(&ui->search, ui->tr, &ui->match) + 1,
			                ui->search.total);
		else
			off += snprintf(buf + off, sizeof buf - (size_t)off, "  | %zu matches",
			                ui->search.total);
	}
	if (ui->nmark == 2)
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | range %s",
		                timefmt_dur(ui->mark[1] - ui->mark[0], d, sizeof d));
	if (ui->lane < ui->nlanes) {
		const ui_lane *l = &ui->lanes[ui->lane];
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | rank %d %s",
		                ui->tr->ranks[l->rank]->rank, l->type == UL_HEADER ? "" : l->label);
	}
	if (ui->have_sel) {
		const tl_rank *r = ui->tr->ranks[ui->sel_rank];
		const tl_slice *sl = &r->tracks[ui->sel_track]->v[ui->sel_idx];
		char nm[96];
		ui_clean(ui, strpool_get(r->pool, sl->name), nm, sizeof nm);
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | sel %s %s", nm,
		                timefmt_dur(sl->end - sl->start, d, sizeof d));
	}
	const char *mode = ui->prompt       ? (ui->prompt_ch == '/' ? "SEARCH" : "COMMAND")
	                   : ui->help       ? "HELP"
	                   : ui->nmark == 1 ? "MARK"
	                   : ui->bubbles    ? "BUBBLES"
	                                    : "NORMAL";
	int mw = (int)strlen(mode) + 2;
	screen_text(s, 0, y, s->w - mw - 1, buf, SLOT_STATUS);
	screen_printf(s, s->w - mw, y, mw, SLOT_STATUS, " %s ", mode);
	(void)off;
}

/* ---- actions ------------------------------------------------------------------------------- */

static int
timeline_action(tl_ui *ui, int a)
{
	size_t ti, idx;
	switch (a) {
	case ACT_CURSOR_LEFT:
		ui->cursor -= ui->colw;
		if (ui->cursor < ui->t0)
			pan(ui, -1);
		follow_cursor(ui);
		break;
	case ACT_CURSOR_RIGHT:
		ui->cursor += ui->colw;
		if (ui->cursor >= ui->t0 + ui->colw * ui->ncols)
			pan(ui, 1);
		follow_cursor(ui);
		break;
	case ACT_PAN_LEFT:
		pan(ui, -1);
		break;
	case ACT_PAN_RIGHT:
		pan(ui, 1);
		break;
	case ACT_SCROLL_LEFT:
		pan(ui, -(ui->ncols / 8 > 0 ? ui->ncols / 8 : 1));
		break;
	case ACT_SCROLL_RIGHT:
		pan(ui, ui->ncols / 8 > 0 ? ui->ncols / 8 : 1);
		break;
	case ACT_PAGE_LEFT:
		pan(ui, -ui->ncols);
		break;
	case ACT_PAGE_RIGHT:
		pan(ui, ui->ncols);
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
		if (!ui->have_sel) {
			ui_message(ui, 1,
			           "Nothing selected (Enter selects the slice under the cursor)");
			break;
		}
		{
			const tl_slice *s =
			    &ui->tr->ranks[ui->sel_rank]->tracks[ui->sel_track]->v[ui->sel_idx];
			timeline_show_range(ui, s->start, s->end);
		}
		break;
	case ACT_GO_START:
		timeline_goto(ui, ui->t_min);
		break;
	case ACT_GO_END:
		timeline_goto(ui, ui->t_max > ui->t_min ? ui->t_max - 1 : ui->t_min);
		break;
	case ACT_GOTO:
		ui_prompt_start(ui, ':', "goto ");
		break;
	case ACT_LANE_UP:
		lane_move(ui, -1);
		break;
	case ACT_LANE_DOWN:
		lane_move(ui, 1);
		break;
	case ACT_PAGE_UP:
		lane_move(ui, -(long)(ui->lanes_h > 1 ? ui->lanes_h - 1 : 1));
		break;
	case ACT_PAGE_DOWN:
		lane_move(ui, ui->lanes_h > 1 ? ui->lanes_h - 1 : 1);
		break;
	case ACT_RANK_NEXT:
		rank_move(ui, 1);
		break;
	case ACT_RANK_PREV:
		rank_move(ui, -1);
		break;
	case ACT_FIRST_LANE:
		lane_move(ui, -(long)ui->nlanes);
		break;
	case ACT_LAST_LANE:
		lane_move(ui, (long)ui->nlanes);
		break;
	case ACT_TOGGLE_RANK:
		if (ui->lane < ui->nlanes) {
			size_t ri = ui->lanes[ui->lane].rank;
			ui->rs[ri].collapsed ^= 1;
			timeline_rebuild_lanes(ui);
			for (size_t i = 0; i < ui->nlanes; i++)
				if (ui->lanes[i].rank == ri) {
					ui->lane = i;
					break;
				}
			lane_visible(ui);
		}
		break;
	case ACT_TOGGLE_ALL: {
		int any_open = 0;
		for (size_t i = 0; i < ui->tr->nranks; i++)
			any_open |= !ui->rs[i].collapsed;
		for (size_t i = 0; i < ui->tr->nranks; i++)
			ui->rs[i].collapsed = (unsigned char)any_open;
		timeline_rebuild_lanes(ui);
		lane_visible(ui);
		break;
	}
	case ACT_TOGGLE_STREAMS:
		if (ui->lane < ui->nlanes) {
			size_t ri = ui->lanes[ui->lane].rank;
			ui->rs[ri].streams ^= 1;
			ui->rs[ri].collapsed = 0;
			timeline_rebuild_lanes(ui);
			ui_message(ui, 0,
			           ui->rs[ri].streams ? "Rank %d: one lane per stream"
			                              : "Rank %d: streams merged",
			           ui->tr->ranks[ri]->rank);
		}
		break;
	case ACT_TOGGLE_OVERLAP:
		ui->show_overlap ^= 1;
		timeline_rebuild_lanes(ui);
		break;
	case ACT_TOGGLE_HOST:
		ui->show_host ^= 1;
		if (ui->show_host)
			tlq_host_lanes(ui->tr); /* DB profiles read them now, once */
		timeline_rebuild_lanes(ui);
		break;
	case ACT_SLICE_NEXT:
		slice_step(ui, 1);
		break;
	case ACT_SLICE_PREV:
		slice_step(ui, -1);
		break;
	case ACT_SELECT:
		if (ui->lane < ui->nlanes && ui->lanes[ui->lane].type == UL_HEADER)
			return timeline_action(ui, ACT_TOGGLE_RANK);
		if (slice_at_cursor(ui, &ti, &idx)) {
			size_t keep = ui->lane;
			ui->have_sel = 1;
			ui->sel_rank = ui->lanes[keep].rank;
			ui->sel_track = ti;
			ui->sel_idx = idx;
			ui->detail = 1;
			detail_invalidate(ui);
		} else {
			ui_message(ui, 0, "No slice under the cursor on this lane");
		}
		break;
	case ACT_MARK:
		if (ui->nmark != 1) {
			ui->nmark = 1;
			ui->mark[0] = ui->cursor;
			ui_message(ui, 0, "Range start marked; move the cursor and mark again");
		} else {
			int64_t a0 = ui->mark[0], b0 = ui->cursor;
			if (b0 < a0) {
				int64_t tmp = a0;
				a0 = b0;
				b0 = tmp;
			}
			if (b0 == a0)
				b0 = a0 + ui->colw;
			ui->mark[0] = a0;
			ui->mark[1] = b0;
			ui->nmark = 2;
			ui->detail = 1;
			ui->detail_scroll = 0;
			char d[32];
			ui_message(ui, 0,
			           "Range of %s marked: statistics below; zoom-mark zooms to it",
			           timefmt_dur(b0 - a0, d, sizeof d));
		}
		break;
	case ACT_ZOOM_MARK:
		if (ui->nmark != 2) {
			ui_message(ui, 1, "No range marked (mark twice)");
			break;
		}
		timeline_show_range(ui, ui->mark[0], ui->mark[1]);
		break;
	case ACT_CLEAR:
		if (ui->nmark)
			ui->nmark = 0;
		else if (ui->have_sel)
			ui->have_sel = 0, ui->have_match = 0;
		else if (ui->have_search)
			tlq_search_free(&ui->search), ui->have_search = 0, ui->have_match = 0;
		else if (ui->detail)
			ui->detail = 0;
		ui->msg[0] = '\0';
		break;
	case ACT_SEARCH:
		ui_prompt_start(ui, '/', "");
		break;
	case ACT_SEARCH_NEXT:
		search_step(ui, 1);
		break;
	case ACT_SEARCH_PREV:
		search_step(ui, -1);
		break;
	case ACT_TOGGLE_BUBBLES: {
		ui->bubbles ^= 1;
		if (ui->bubbles) {
			int64_t tot = 0, largest = 0;
			size_t n = 0;
			for (size_t i = 0; i < ui->tr->nranks; i++) {
				int64_t t;
				n += tlq_bubble_total(ui->tr->ranks[i], &t);
				tot += t;
			}
			tl_rl_bubble b;
			if (tlq_rl_bubble_largest(ui_rl_get(ui)->rl, BUBBLE_LIST_MAX, 0, &b))
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
	case ACT_TOGGLE_DETAIL:
		ui->detail ^= 1;
		break;
	case ACT_DETAIL_UP:
		if (ui->detail_scroll > 0)
			ui->detail_scroll--;
		break;
	case ACT_DETAIL_DOWN:
		ui->detail_scroll++;
		break;
	default:
		return 0;
	}
	return 1;
}

void
timeline_init(tl_ui *ui)
{
	ui->t_min = ui->tr->t_min;
	ui->t_max = ui->tr->t_max;
	if (ui->t_min > ui->t_max)
		ui->t_min = ui->t_max = 0;
	ui->origin = ui->t_min;
	ui->cursor = ui->t_min;
	ui->colw = 1;
	ui->rs = xcalloc(ui->tr->nranks ? ui->tr->nranks : 1, sizeof *ui->rs);
	ui->show_overlap = 1;
	/* many ranks: start collapsed past the first few so the screen shows the job at a glance */
	if (ui->tr->nranks > 8)
		for (size_t i = 1; i < ui->tr->nranks; i++)
			ui->rs[i].collapsed = 1;
	timeline_rebuild_lanes(ui);
}

static void
timeline_done(tl_ui *ui)
{
	timeline_free(ui);
}

void
timeline_free(tl_ui *ui)
{
	free(ui->lanes);
	free(ui->rs);
	free(ui->edges);
	free(ui->rk_comp);
	free(ui->rk_comm);
	free(ui->rk_exp);
	free(ui->rk_free);
	free(ui->cells);
	free(ui->cells2);
	free(ui->domtrack);
	if (ui->have_search)
		tlq_search_free(&ui->search);
	ui->lanes = NULL;
	ui->rs = NULL;
	ui->edges = NULL;
	ui->rk_comp = ui->rk_comm = ui->rk_exp = ui->rk_free = NULL;
	ui->cells = ui->cells2 = NULL;
	ui->domtrack = NULL;
	ui->bub_valid = 0;
	ui->have_search = 0;
}

static void
timeline_resize(tl_ui *ui)
{
	timeline_layout(ui, ui->scr.w, ui->scr.h);
	lane_visible(ui);
	follow_cursor(ui);
}

const view_ops timeline_view = {
    .name = "timeline",
    .draw = timeline_draw,
    .action = timeline_action,
    .resize = timeline_resize,
    .done = timeline_done,
};
