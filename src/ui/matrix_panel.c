/* The communication matrix panel: for one communication group and step, the ranks that sent
 * (rows) against the ranks they sent to (columns), each cell the bytes, time or bandwidth of
 * every op's transfers between the two, as a heat map: a colour slot per level (heat.1 ..
 * heat.5) and, for NO_COLOR and mono, a glyph per level at the start of the cell (a rising
 * block, or a digit 1-5 in ASCII). The arrows move between cells and the line under the matrix
 * gives the cell's values; stage-next/prev change the group, step-next/prev (and [ ]) the step,
 * chart-next what the heat shows. Enter lists the ops behind a cell; Enter there shows one on
 * its rank's communication lane. Every number is tlq_comm_matrix's: the sum of CANN's "-total"
 * rows of CommAnalyzerMatrix for the pair, and of `comm_matrix` in `tl summary --json`. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { MX_BYTES, MX_TIME, MX_BW, MX__METRICS };
static const char *const metric_names[MX__METRICS] = {"bytes (MB)", "time (us)",
                                                      "bandwidth (GB/s)"};

#define CELL_W 9  /* a glyph, a blank, six for the value, a blank */
#define LABEL_W 8 /* "src\dst" and the row ranks */

typedef struct mx_state {
	tl_comm_result c;
	tl_comm_matrix m;
	size_t plane;
	int metric;
	int64_t *rows, *cols; /* the plane's sending ranks and every rank of it */
	size_t nrows, ncols;
	size_t r, k;            /* the cursor: row and column */
	size_t row0, col0;      /* the first row and column on screen */
	int list;               /* showing the ops of the cell */
	const tl_mx_cell *cell; /* ... of this cell */
	ui_table tab;
	ui_col lcols[7];
} mx_state;

static double
value_of(const tl_mx_cell *c, int metric)
{
	switch (metric) {
	case MX_TIME:
		return (double)c->time / 1e3;
	case MX_BW:
		return c->gbps;
	default:
		return (double)c->size / 1e6;
	}
}

/* v in at most six columns: as many decimals as fit, up to three. */
static char *
fit6(double v, char *buf, size_t len)
{
	for (int d = 3; d >= 0; d--) {
		snprintf(buf, len, "%.*f", d, v);
		if (strlen(buf) <= 6)
			return buf;
	}
	snprintf(buf, len, "%.0e", v);
	return buf;
}

/* The plane's rows (the ranks that sent) and columns (every rank of it). */
static void
set_plane(mx_state *s, size_t plane)
{
	s->plane = plane;
	s->nrows = s->ncols = 0;
	s->r = s->k = s->row0 = s->col0 = 0;
	if (plane >= s->m.nplanes)
		return;
	const tl_mx_plane *p = &s->m.planes[plane];
	s->cols = xreallocarray(s->cols, p->nranks ? p->nranks : 1, sizeof *s->cols);
	s->rows = xreallocarray(s->rows, p->nranks ? p->nranks : 1, sizeof *s->rows);
	for (size_t i = 0; i < p->nranks; i++) {
		int64_t rk = s->m.ranks[p->rank0 + i];
		s->cols[s->ncols++] = rk;
		int sends = 0;
		for (size_t c = 0; c < p->ncell && !sends; c++)
			sends = s->m.cells[p->cell0 + c].src == rk;
		if (sends)
			s->rows[s->nrows++] = rk;
	}
	/* the cursor on the plane's first cell */
	const tl_mx_cell *first = &s->m.cells[p->cell0];
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i] == first->src)
			s->r = i;
	for (size_t i = 0; i < s->ncols; i++)
		if (s->cols[i] == first->dst)
			s->k = i;
}

static const tl_mx_cell *
cell_at(const mx_state *s, size_t r, size_t k)
{
	if (r >= s->nrows || k >= s->ncols)
		return NULL;
	return tlq_comm_matrix_cell(&s->m, s->plane, s->rows[r], s->cols[k]);
}

static char *
step_text(int64_t step, char *buf, size_t len)
{
	if (step < 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%" PRId64, step);
	return buf;
}

static void
draw_matrix(tl_ui *ui, mx_state *s, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	const tl_mx_plane *p = &s->m.planes[s->plane];
	char k1[24], k2[24], k3[24], k4[24], gb[160], st[24];
	char k5[24], k6[24];
	/* the group last: a name can be long, the keys must show */
	ui_table_title(ui, x, y, w,
	               " Communication matrix, step %s   (%s/%s group, %s/%s step, %s heat, Enter: "
	               "ops, %s: close)   group %s",
	               step_text(p->step, st, sizeof st),
	               keymap_key_hint(&ui->keys, ACT_STAGE_NEXT, k1, sizeof k1),
	               keymap_key_hint(&ui->keys, ACT_STAGE_PREV, k2, sizeof k2),
	               keymap_key_hint(&ui->keys, ACT_STEP_NEXT, k3, sizeof k3),
	               keymap_key_hint(&ui->keys, ACT_STEP_PREV, k4, sizeof k4),
	               keymap_key_hint(&ui->keys, ACT_CHART_NEXT, k5, sizeof k5),
	               keymap_key_hint(&ui->keys, ACT_QUIT, k6, sizeof k6),
	               ui_clean(ui, p->group, gb, sizeof gb));
	double max = 0;
	for (size_t i = 0; i < p->ncell; i++) {
		double v = value_of(&s->m.cells[p->cell0 + i], s->metric);
		max = v > max ? v : max;
	}
	static const char *const glyph_utf8[5] = {"\u2581", "\u2583", "\u2585", "\u2587", "\u2588"};
	static const char *const glyph_ascii[5] = {"1", "2", "3", "4", "5"};
	const char *const *glyph = ui->utf8 ? glyph_utf8 : glyph_ascii;
	char lg[120];
	snprintf(lg, sizeof lg, "%s%s%s%s%s", glyph[0], glyph[1], glyph[2], glyph[3], glyph[4]);
	/* the grid: what fits of it, the cursor kept in sight; columns that do not fit are
	 * never cut silently: a marker on each side counts the hidden ones (room kept for it) */
	int top = y + 3, status = y + h - 1;
	int vis_rows = status - 1 - (top + 1);
	int vis_cols = (w - LABEL_W - 1) / CELL_W;
	if ((size_t)vis_cols < s->ncols && w - LABEL_W - 1 - vis_cols * CELL_W < 5)
		vis_cols--;
	if (vis_rows < 1 || vis_cols < 1)
		return;
	ui_list_scroll(&s->r, &s->row0, s->nrows, vis_rows);
	ui_list_scroll(&s->k, &s->col0, s->ncols, vis_cols);
	size_t shown_end =
	    s->col0 + (size_t)vis_cols < s->ncols ? s->col0 + (size_t)vis_cols : s->ncols;
	size_t hid_l = s->col0, hid_r = s->ncols - shown_end;
	char cols[96] = "";
	if (hid_l + hid_r > 0)
		snprintf(cols, sizeof cols, "columns %zu-%zu of %zu (%s/%s)   ", s->col0 + 1,
		         shown_end, s->ncols,
		         keymap_key_hint(&ui->keys, ACT_CURSOR_LEFT, k2, sizeof k2),
		         keymap_key_hint(&ui->keys, ACT_CURSOR_RIGHT, k3, sizeof k3));
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "page %zu/%zu   %sheat: %s %s up to %s   rows: from rank, columns: to rank",
	              s->plane + 1, s->m.nplanes, cols, metric_names[s->metric], lg,
	              fit6(max, k1, sizeof k1));
	if (hid_l > 0)
		screen_printf(sc, x + 1, top, LABEL_W, SLOT_DETAIL_KEY, "%s%zu more",
		              ui->utf8 ? "\u25c2" : "<", hid_l);
	else
		screen_printf(sc, x + 1, top, LABEL_W, SLOT_LABEL, "src\\dst");
	for (size_t k = s->col0; k < shown_end; k++)
		screen_printf(sc, x + 1 + LABEL_W + (int)(k - s->col0) * CELL_W, top, CELL_W,
		              k == s->k ? SLOT_LABEL_CURRENT : SLOT_RANK, "%*" PRId64, CELL_W - 1,
		              s->cols[k]);
	if (hid_r > 0)
		screen_printf(sc, x + 1 + LABEL_W + vis_cols * CELL_W, top,
		              w - 1 - LABEL_W - vis_cols * CELL_W, SLOT_DETAIL_KEY, " %zu%s", hid_r,
		              ui->utf8 ? "\u25b8" : ">");
	for (size_t r = s->row0; r < s->nrows && (int)(r - s->row0) < vis_rows; r++) {
		int yy = top + 1 + (int)(r - s->row0);
		screen_printf(sc, x + 1, yy, LABEL_W - 1,
		              r == s->r ? SLOT_LABEL_CURRENT : SLOT_RANK, "%*" PRId64, LABEL_W - 2,
		              s->rows[r]);
		for (size_t k = s->col0; k < s->ncols && (int)(k - s->col0) < vis_cols; k++) {
			int xx = x + 1 + LABEL_W + (int)(k - s->col0) * CELL_W;
			const tl_mx_cell *c = cell_at(s, r, k);
			int cur = r == s->r && k == s->k;
			if (c == NULL) {
				screen_printf(sc, xx, yy, CELL_W - 1,
				              cur ? SLOT_CURSOR : SLOT_NORMAL, "%*s", CELL_W - 1,
				              ui->utf8 ? "\u00b7" : ".");
				continue;
			}
			double v = value_of(c, s->metric);
			int lv = max > 0 ? (int)(v / max * 5) : 0;
			lv = lv > 4 ? 4 : lv < 0 ? 0 : lv;
			char vb[32];
			screen_printf(sc, xx, yy, CELL_W - 1,
			              cur ? SLOT_CURSOR : (uint8_t)(SLOT_HEAT1 + lv), "%s %6s",
			              glyph[lv], fit6(v, vb, sizeof vb));
		}
	}
	const tl_mx_cell *c = cell_at(s, s->r, s->k);
	if (c == NULL) {
		screen_printf(sc, x + 1, status, w - 1, SLOT_DETAIL,
		              "rank %" PRId64 " -> rank %" PRId64
		              ": no transfer in this group and step",
		              s->rows[s->r], s->cols[s->k]);
		return;
	}
	char t[32];
	screen_printf(sc, x + 1, status, w - 1, SLOT_DETAIL_KEY,
	              "rank %" PRId64 " -> rank %" PRId64 ": %.6f MB in %s us, %.4f GB/s over %s, "
	              "%zu op%s (Enter lists them)",
	              c->src, c->dst, (double)c->size / 1e6,
	              fit6((double)c->time / 1e3, t, sizeof t), c->gbps, tl_xport_name[c->xport],
	              c->nop, c->nop == 1 ? "" : "s");
}

/* The ops of the cell: the op's own transfers between the two ranks. */
static const tl_comm_link *
op_link(const mx_state *s, const tl_comm_row *o)
{
	for (size_t k = o->link0; k < o->link0 + o->nlink; k++)
		if (s->c.links[k].src == s->cell->src && s->c.links[k].dst == s->cell->dst)
			return &s->c.links[k];
	return NULL;
}

static void
list_row(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	mx_state *s = ctx;
	const tl_comm_row *o = &s->c.ops[s->m.ops[s->cell->op0 + row]];
	const tl_comm_link *l = op_link(s, o);
	snprintf(out->cell[0], sizeof out->cell[0], "%s", UI_RANK(o->rank));
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
	ui_time(ui, o->start, out->cell[1], sizeof out->cell[1]);
	if (l != NULL) {
		snprintf(out->cell[2], sizeof out->cell[2], "%.6f", (double)l->size / 1e6);
		snprintf(out->cell[3], sizeof out->cell[3], "%.3f", (double)l->time / 1e3);
		snprintf(out->cell[4], sizeof out->cell[4], "%.4f", l->gbps);
	}
	ui_clean(ui, o->op_name, out->cell[5], sizeof out->cell[5]);
}

static void
draw_list(tl_ui *ui, mx_state *s, int x, int y, int w, int h)
{
	const tl_mx_plane *p = &s->m.planes[s->plane];
	char k1[24], gb[160], st[24];
	ui_table_title(ui, x, y, w,
	               " Ops of rank %" PRId64 " -> rank %" PRId64 ", group %s, step %s   (Enter: "
	               "timeline, %s: back)",
	               s->cell->src, s->cell->dst, ui_clean(ui, p->group, gb, sizeof gb),
	               step_text(p->step, st, sizeof st),
	               keymap_key_hint(&ui->keys, ACT_QUIT, k1, sizeof k1));
	screen_printf(&ui->scr, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "%zu op%s   each op's own transfers between the two ranks: MB, us, GB/s",
	              s->cell->nop, s->cell->nop == 1 ? "" : "s");
	s->tab.n = s->cell->nop;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
mx_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	mx_state *s = state;
	screen_fill(&ui->scr, x, y, w, ' ', SLOT_TITLE);
	if (s->m.nplanes == 0) {
		char k1[24];
		screen_printf(&ui->scr, x, y, w, SLOT_TITLE, " Communication matrix  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k1, sizeof k1));
		screen_printf(&ui->scr, x + 1, y + 2, w - 2, SLOT_NORMAL,
		              "Communication matrix: no transfer between ranks in this profile.");
		screen_printf(
		    &ui->scr, x + 1, y + 3, w - 2, SLOT_NORMAL,
		    "It comes from the source and destination ranks of the HCCL sub-tasks: "
		    "record with profiler level 1 or higher.");
		return;
	}
	if (s->list && s->cell != NULL)
		draw_list(ui, s, x, y, w, h);
	else
		draw_matrix(ui, s, x, y, w, h);
}

/* The op on its rank's communication lane, selected (as the communication panel does). */
static void
jump(tl_ui *ui, const tl_comm_row *o)
{
	size_t ri = SIZE_MAX;
	for (size_t i = 0; i < ui->tr->nranks; i++)
		if (ui->tr->ranks[i]->rank == o->rank)
			ri = i;
	ui_view_close(ui, &matrix_panel_view);
	if (ri == SIZE_MAX)
		return;
	ui_message(ui, 0, "Rank %d, %s", o->rank, o->op_name);
	timeline_reveal_comm(ui, ri, o->start, o->start + o->t.elapse);
}

/* The next plane of the same group (by_step) or the first plane of the next group, dir 1 or
 * -1; SIZE_MAX when there is none. */
static size_t
next_plane(const mx_state *s, int dir, int by_step)
{
	const tl_mx_plane *cur = &s->m.planes[s->plane];
	size_t n = s->m.nplanes;
	for (size_t d = 1; d < n; d++) {
		size_t i = (s->plane + n + (dir > 0 ? d : n - d)) % n;
		int same = strcmp(s->m.planes[i].group, cur->group) == 0;
		if (by_step && same)
			return i;
		if (!by_step && !same) {
			/* that group's first plane */
			while (i > 0 && strcmp(s->m.planes[i - 1].group, s->m.planes[i].group) == 0)
				i--;
			return i;
		}
	}
	return SIZE_MAX;
}

static int
mx_action(tl_ui *ui, void *state, int a)
{
	mx_state *s = state;
	if (s->list) {
		s->tab.n = s->cell ? s->cell->nop : 0;
		if (ui_table_move(ui, &s->tab, a))
			return 1;
	}
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		if (s->list) {
			s->list = 0;
			return 1;
		}
		return 0; /* closed by the view stack: back to where it was opened */
	default:
		break;
	}
	if (s->m.nplanes == 0)
		return 0;
	if (s->list) {
		if (a != ACT_SELECT)
			return 0; /* not the list's: the view stack's rule */
		if (s->tab.sel < s->cell->nop)
			jump(ui, &s->c.ops[s->m.ops[s->cell->op0 + s->tab.sel]]);
		return 1;
	}
	switch (a) {
	case ACT_CURSOR_LEFT:
		s->k -= s->k > 0;
		return 1;
	case ACT_CURSOR_RIGHT:
		s->k += s->k + 1 < s->ncols;
		return 1;
	case ACT_LANE_UP:
		s->r -= s->r > 0;
		return 1;
	case ACT_LANE_DOWN:
		s->r += s->r + 1 < s->nrows;
		return 1;
	case ACT_STAGE_NEXT:
	case ACT_STAGE_PREV:
	case ACT_STEP_NEXT:
	case ACT_STEP_PREV:
	case ACT_PAGE_RIGHT:
	case ACT_PAGE_LEFT: {
		int by_step = a != ACT_STAGE_NEXT && a != ACT_STAGE_PREV;
		int dir = a == ACT_STAGE_NEXT || a == ACT_STEP_NEXT || a == ACT_PAGE_RIGHT ? 1 : -1;
		size_t nx = next_plane(s, dir, by_step);
		if (nx == SIZE_MAX) {
			ui_message(ui, 0, by_step ? "This group has one step" : "One group only");
			return 1;
		}
		set_plane(s, nx);
		return 1;
	}
	case ACT_CHART_NEXT:
		s->metric = (s->metric + 1) % MX__METRICS;
		ui_message(ui, 0, "Heat: %s", metric_names[s->metric]);
		return 1;
	case ACT_SELECT: {
		const tl_mx_cell *c = cell_at(s, s->r, s->k);
		if (c == NULL) {
			ui_message(ui, 0, "No transfer from rank %" PRId64 " to rank %" PRId64,
			           s->rows[s->r], s->cols[s->k]);
			return 1;
		}
		s->cell = c;
		s->list = 1;
		s->tab.sel = s->tab.top = 0;
		return 1;
	}
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

static void *
mx_open(tl_ui *ui)
{
	mx_state *s = xcalloc(1, sizeof *s);
	tlq_comm(ui->q, &s->c); /* read once, when first shown */
	tlq_comm_matrix(&s->c, &s->m);
	static const ui_col cols[] = {
	    {"rank", 4, UI_ALIGN_RIGHT, 0, 0, 0}, {"start", 12, UI_ALIGN_RIGHT, 0, 0, 0},
	    {"MB", 11, UI_ALIGN_RIGHT, 0, 0, 0},  {"us", 10, UI_ALIGN_RIGHT, 0, 0, 0},
	    {"GB/s", 9, UI_ALIGN_RIGHT, 0, 0, 0}, {"op", 0, UI_ALIGN_LEFT, 2, 0, 0},
	};
	memcpy(s->lcols, cols, sizeof cols);
	ui_table_init(&s->tab, s->lcols, 6, 1, 3, list_row, s);
	set_plane(s, 0);
	return s;
}

static void
mx_close(tl_ui *ui, void *st)
{
	(void)ui;
	mx_state *s = st;
	tlq_comm_matrix_free(&s->m);
	tlq_comm_free(&s->c);
	free(s->rows);
	free(s->cols);
	free(s);
}

const view_ops matrix_panel_view = {
    .name = "matrix",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_MATRIX_PANEL,
    .open = mx_open,
    .draw = mx_draw,
    .action = mx_action,
    .close = mx_close,
};
