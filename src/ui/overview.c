/* The overview panel: the tables of `tl summary` in the viewer — overlap per rank and step,
 * RL stages, slow-rank votes, the largest bubbles — one at a time, sortable by any column, and
 * Enter shows the row's rank and time range in the timeline. The rows are made from the query
 * functions the report prints (tlq_step_overlaps, tlq_stages, tlq_slow_ranks, tlq_bubbles):
 * the panel computes nothing of its own. */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { OV_OVERLAP, OV_STAGES, OV_SLOW, OV_BUBBLES, OV__COUNT };

#define OV_COLS 8

enum { COL_INT, COL_MS, COL_TEXT };

typedef struct ov_col {
	const char *name;
	int kind;  /* COL_* */
	int width; /* a text column's widest (longer text is cut); numbers take what they need */
	int desc;  /* sorted largest first */
	int bynum; /* a COL_TEXT column shown as text, sorted by its number (steps) */
	const char *abbr; /* the header on a narrow screen (NULL: the name) */
	int drop; /* on a screen too narrow for every column, dropped in this order (0: never) */
} ov_col;

typedef struct ov_row {
	size_t rank;    /* index into tr->ranks */
	int64_t t0, t1; /* what Enter shows; t1 <= t0: the rank only */
	int64_t num[OV_COLS];
	char text[OV_COLS][40];
	int have_bubble;
	tl_rl_bubble bubble;
} ov_row;

typedef struct ov_table {
	const char *title;
	const ov_col *cols;
	int ncols;
	ov_row *rows;
	size_t n;
	int built;
	int dw[OV_COLS]; /* the widest cell of each column */
	char empty[160]; /* the report's sentence when there are no rows */
} ov_table;

typedef struct ov_state {
	ov_table t[OV__COUNT];
	int cur;
	int sort[OV__COUNT]; /* column sorted by */
	size_t sel, top;
	size_t *order;
	size_t norder;
} ov_state;

/* The time splits of the overlap table as tl summary names them; at 80 columns the least asked
 * for (preparing, overlapped) go first, the exposed communication last. */
static const ov_col overlap_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "step", .kind = COL_TEXT, .width = 6, .bynum = 1},
    {.name = "computing", .kind = COL_MS, .desc = 1, .abbr = "compute", .drop = 5},
    {.name = "communication", .kind = COL_MS, .desc = 1, .abbr = "comm", .drop = 4},
    {.name = "overlapped", .kind = COL_MS, .desc = 1, .abbr = "overlap", .drop = 2},
    {.name = "comm.exposed", .kind = COL_MS, .desc = 1, .abbr = "exposed"},
    {.name = "free", .kind = COL_MS, .desc = 1, .drop = 3},
    {.name = "preparing", .kind = COL_MS, .desc = 1, .abbr = "prep", .drop = 1},
};
static const ov_col stage_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "step", .kind = COL_TEXT, .width = 6, .bynum = 1},
    {.name = "stage", .kind = COL_TEXT, .width = 16},
    {.name = "start", .kind = COL_MS, .drop = 3},
    {.name = "duration", .kind = COL_MS, .desc = 1},
    {.name = "busy", .kind = COL_MS, .desc = 1, .drop = 2},
    {.name = "lag", .kind = COL_MS, .desc = 1, .drop = 1},
};
static const ov_col slow_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "votes", .kind = COL_INT, .desc = 1},
};
static const ov_col bubble_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "start", .kind = COL_MS, .drop = 3},
    {.name = "duration", .kind = COL_MS, .desc = 1},
    {.name = "step", .kind = COL_TEXT, .width = 14, .bynum = 1},
    {.name = "stage", .kind = COL_TEXT, .width = 16, .drop = 2},
    {.name = "reason", .kind = COL_TEXT, .width = 18, .drop = 1},
};

/* ---- the rows, from the query layer ------------------------------------------------------ */

static char *
step_cell(int64_t step, char *buf, size_t len)
{
	if (step < 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%" PRId64, step);
	return buf;
}

static void
build_overlap(tl_ui *ui, ov_table *t)
{
	size_t cap = 0;
	for (size_t ri = 0; ri < ui->tr->nranks; ri++) {
		const tl_rank *r = ui->tr->ranks[ri];
		tl_step_overlap *so;
		size_t n = tlq_step_overlaps(r, &so);
		for (size_t k = 0; k < n; k++) {
			ov_row row = {.rank = ri};
			row.num[0] = r->rank;
			step_cell(so[k].step_id, row.text[1], sizeof row.text[1]);
			row.num[1] = so[k].step_id;
			row.num[2] = so[k].o.computing;
			row.num[3] = so[k].o.communication;
			row.num[4] = so[k].o.overlapped;
			row.num[5] = so[k].o.comm_not_overlapped;
			row.num[6] = so[k].o.free;
			row.num[7] = so[k].o.preparing;
			/* the step's work: its host range, widened to the device work it launched
			 */
			row.t0 = so[k].step_end > so[k].step_start ? so[k].step_start : r->t_min;
			row.t1 = so[k].step_end > so[k].step_start ? so[k].step_end : r->t_max;
			if (so[k].o.first_busy <= so[k].o.last_busy) {
				if (so[k].o.first_busy < row.t0)
					row.t0 = so[k].o.first_busy;
				if (so[k].o.last_busy > row.t1)
					row.t1 = so[k].o.last_busy;
			}
			VEC_PUSH(t->rows, t->n, cap, row);
		}
		free(so);
	}
}

static void
build_stages(tl_ui *ui, ov_table *t)
{
	const tl_stage_row *v;
	size_t n = tlq_stages(ui->q, &v), cap = 0;
	for (size_t i = 0; i < n; i++) {
		ov_row row = {.rank = v[i].rank, .t0 = v[i].start, .t1 = v[i].end};
		row.num[0] = ui->tr->ranks[v[i].rank]->rank;
		row.num[1] = v[i].step;
		step_cell(v[i].step, row.text[1], sizeof row.text[1]);
		ui_clean(ui, tlq_stage_name(ui->q, v[i].stage), row.text[2], sizeof row.text[2]);
		row.num[3] = v[i].start - ui->origin;
		row.num[4] = v[i].end - v[i].start;
		row.num[5] = v[i].busy;
		row.num[6] = v[i].lag;
		VEC_PUSH(t->rows, t->n, cap, row);
	}
	if (n == 0)
		snprintf(t->empty, sizeof t->empty,
		         "RL stages: none found (no MSTX range or role directory names one).");
}

static void
build_slow(tl_ui *ui, ov_table *t)
{
	const tl_slow_result *s = tlq_slow_ranks(ui->q);
	size_t cap = 0;
	for (size_t i = 0; i < s->n; i++) {
		ov_row row = {.rank = s->v[i].rank};
		row.num[0] = ui->tr->ranks[s->v[i].rank]->rank;
		row.num[1] = s->v[i].votes;
		VEC_PUSH(t->rows, t->n, cap, row);
	}
	/* the sentences of `tl summary` */
	if (ui->tr->nranks < 2)
		snprintf(t->empty, sizeof t->empty,
		         "Slow ranks: needs at least two ranks; this profile has %zu.",
		         ui->tr->nranks);
	else if (s->instances == 0)
		snprintf(t->empty, sizeof t->empty,
		         "Slow ranks: no collective communication ops to compare.");
	else if (s->n == 0)
		snprintf(t->empty, sizeof t->empty,
		         "Slow ranks: none (%zu collective instances examined, no rank was an "
		         "outlier).",
		         s->instances);
}

static void
build_bubbles(tl_ui *ui, ov_table *t)
{
	const tl_rl_bubble *v;
	size_t n = tlq_bubbles(ui->q, &v), cap = 0;
	for (size_t i = 0; i < n; i++) {
		ov_row row = {.rank = v[i].rank, .t0 = v[i].start, .t1 = v[i].end};
		row.num[0] = ui->tr->ranks[v[i].rank]->rank;
		row.num[1] = v[i].start - ui->origin;
		row.num[2] = v[i].end - v[i].start;
		tlq_bubble_step_text(&v[i], "-", row.text[3], sizeof row.text[3]);
		/* between steps sorts after every step: in-step bubbles are the ones to fix */
		row.num[3] = v[i].step >= 0 ? v[i].step : INT64_MAX;
		const char *sn = tlq_stage_name(ui->q, v[i].stage);
		ui_clean(ui, sn ? sn : "-", row.text[4], sizeof row.text[4]);
		snprintf(row.text[5], sizeof row.text[5], "%s",
		         tlq_bubble_reason_name(v[i].reason));
		row.have_bubble = 1;
		row.bubble = v[i];
		VEC_PUSH(t->rows, t->n, cap, row);
	}
	if (n == 0)
		snprintf(t->empty, sizeof t->empty, "Bubbles: no idle gaps.");
}

/* A cell as shown (text cells are sanitized already); its length. */
static int
cell_text(const ov_table *t, const ov_row *r, int c, char *buf, size_t len)
{
	switch (t->cols[c].kind) {
	case COL_INT:
		return snprintf(buf, len, "%" PRId64, r->num[c]);
	case COL_MS:
		return snprintf(buf, len, "%.3f", (double)r->num[c] / 1e6);
	default:
		return (int)strlen(r->text[c]);
	}
}

static ov_table *
table(tl_ui *ui, ov_state *s)
{
	ov_table *t = &s->t[s->cur];
	if (t->built)
		return t;
	t->built = 1;
	switch (s->cur) {
	case OV_OVERLAP:
		build_overlap(ui, t);
		break;
	case OV_STAGES:
		build_stages(ui, t);
		break;
	case OV_SLOW:
		build_slow(ui, t);
		break;
	default:
		build_bubbles(ui, t);
		break;
	}
	for (size_t i = 0; i < t->n; i++)
		for (int c = 0; c < t->ncols; c++) {
			char buf[64];
			int n = cell_text(t, &t->rows[i], c, buf, sizeof buf);
			if (n > t->dw[c])
				t->dw[c] = n;
		}
	return t;
}

/* ---- row order ---------------------------------------------------------------------------- */

static const ov_table *sort_t; /* the comparator's table (the viewer has one thread) */
static int sort_col;

static int
cmp_row(const void *a, const void *b)
{
	const ov_row *x = &sort_t->rows[*(const size_t *)a], *y = &sort_t->rows[*(const size_t *)b];
	const ov_col *c = &sort_t->cols[sort_col];
	int r;
	if (c->kind == COL_TEXT && !c->bynum)
		r = strcmp(x->text[sort_col], y->text[sort_col]);
	else
		r = (x->num[sort_col] > y->num[sort_col]) - (x->num[sort_col] < y->num[sort_col]);
	if (c->desc)
		r = -r;
	if (r == 0) /* then as the report lists them */
		r = (*(const size_t *)a > *(const size_t *)b) -
		    (*(const size_t *)a < *(const size_t *)b);
	return r;
}

static void
order_rows(ov_state *s, const ov_table *t)
{
	s->order = xreallocarray(s->order, t->n ? t->n : 1, sizeof *s->order);
	s->norder = t->n;
	for (size_t i = 0; i < t->n; i++)
		s->order[i] = i;
	sort_t = t;
	sort_col = s->sort[s->cur];
	qsort(s->order, t->n, sizeof *s->order, cmp_row);
	sort_t = NULL;
}

/* ---- drawing ------------------------------------------------------------------------------ */

/* The columns that fit w: each as wide as its header and its widest cell (cw[c], 0: dropped),
 * the short headers (abbr) when the full ones do not fit, then the columns dropped in their
 * drop order (the sorted one kept), then the text columns cut. Numbers are never cut. */
static void
layout(const ov_table *t, int sortc, int w, int *cw, int *abbr)
{
	int total;
	for (*abbr = 0; *abbr < 2; ++*abbr) {
		total = 2;
		for (int c = 0; c < t->ncols; c++) {
			const ov_col *col = &t->cols[c];
			const char *nm = *abbr && col->abbr ? col->abbr : col->name;
			int d = t->dw[c];
			if (col->kind == COL_TEXT && col->width && d > col->width)
				d = col->width;
			cw[c] = (int)strlen(nm) > d ? (int)strlen(nm) : d;
			total += cw[c] + (c ? 1 : 0);
		}
		if (total <= w)
			return;
	}
	*abbr = 1;
	for (int order = 1; total > w; order++) {
		int any = 0;
		for (int c = 0; c < t->ncols; c++)
			if (t->cols[c].drop >= order)
				any = 1;
		if (!any)
			break;
		for (int c = 0; c < t->ncols && total > w; c++)
			if (t->cols[c].drop == order && c != sortc && cw[c]) {
				total -= cw[c] + 1;
				cw[c] = 0;
			}
	}
	for (int c = t->ncols - 1; c >= 0 && total > w; c--)
		if (cw[c] > 4 && t->cols[c].kind == COL_TEXT && !t->cols[c].bynum) {
			int cut = total - w < cw[c] - 4 ? total - w : cw[c] - 4;
			cw[c] -= cut;
			total -= cut;
		}
}

static void
ov_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	ov_state *s = st;
	ov_table *t = table(ui, s);
	if (s->norder != t->n)
		order_rows(s, t);
	char k1[24], k2[24], k3[24], title[256];
	keymap_key_hint(&ui->keys, ACT_STAGE_NEXT, k1, sizeof k1);
	keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k2, sizeof k2);
	keymap_key_hint(&ui->keys, ACT_QUIT, k3, sizeof k3);
	int tw =
	    snprintf(title, sizeof title,
	             " Overview %d/%d: %s   (%s next table, %s sort, Enter: timeline, %s: close)",
	             s->cur + 1, OV__COUNT, t->title, k1, k2, k3);
	if (tw > w) /* the keys, shorter, rather than cut */
		snprintf(title, sizeof title, " Overview %d/%d: %s  (%s table, %s sort, %s close)",
		         s->cur + 1, OV__COUNT, t->title, k1, k2, k3);
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	screen_printf(sc, x, y, w, SLOT_TITLE, "%s", title);
	int cw[OV_COLS], abbr;
	layout(t, s->sort[s->cur], w, cw, &abbr);
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY, "%zu rows, sorted by %s%s; ms",
	              t->n, t->cols[s->sort[s->cur]].name,
	              t->cols[s->sort[s->cur]].desc ? " (largest first)" : "");
	int cx = x + 2;
	for (int c = 0; c < t->ncols && cx < x + w; c++) {
		if (cw[c] == 0)
			continue;
		const char *nm = abbr && t->cols[c].abbr ? t->cols[c].abbr : t->cols[c].name;
		uint8_t slot = c == s->sort[s->cur] ? SLOT_LABEL_CURRENT : SLOT_LABEL;
		if (t->cols[c].kind == COL_TEXT && !t->cols[c].bynum)
			screen_printf(sc, cx, y + 2, x + w - cx, slot, "%-*.*s", cw[c], cw[c], nm);
		else
			screen_printf(sc, cx, y + 2, x + w - cx, slot, "%*s", cw[c], nm);
		cx += cw[c] + 1;
	}
	if (t->n == 0) {
		screen_printf(sc, x + 1, y + 4, w - 2, SLOT_NORMAL, "%s",
		              t->empty[0] ? t->empty : "Nothing to show.");
		return;
	}
	int rows = h - 3;
	if (rows < 1)
		return;
	if (s->sel >= t->n)
		s->sel = t->n - 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + (size_t)rows)
		s->top = s->sel - (size_t)rows + 1;
	for (int r = 0; r < rows && s->top + (size_t)r < t->n; r++) {
		size_t i = s->top + (size_t)r;
		const ov_row *row = &t->rows[s->order[i]];
		int yy = y + 3 + r, sel = i == s->sel;
		if (sel)
			screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		cx = x + 2;
		for (int c = 0; c < t->ncols && cx < x + w; c++) {
			if (cw[c] == 0)
				continue;
			char buf[64];
			if (t->cols[c].kind == COL_TEXT)
				snprintf(buf, sizeof buf, "%s", row->text[c]);
			else
				cell_text(t, row, c, buf, sizeof buf);
			uint8_t slot =
			    c == 0 ? (sel ? SLOT_LABEL_CURRENT : SLOT_RANK) : SLOT_NORMAL;
			if (t->cols[c].kind == COL_TEXT && !t->cols[c].bynum)
				screen_printf(sc, cx, yy, x + w - cx, slot, "%-*.*s", cw[c], cw[c],
				              buf);
			else
				screen_printf(sc, cx, yy, x + w - cx, slot, "%*s", cw[c], buf);
			cx += cw[c] + 1;
		}
	}
}

/* ---- actions -------------------------------------------------------------------------------- */

static void
jump(tl_ui *ui, ov_state *s, const ov_row *r)
{
	(void)s;
	ui_view_close(ui, &overview_view);
	if (r->have_bubble) {
		timeline_show_bubble(ui, &r->bubble);
		return;
	}
	if (r->t1 > r->t0) {
		timeline_reveal(ui, r->rank, r->t0, r->t1, NULL);
		char a[48], b[48];
		ui_message(ui, 0, "Rank %d: %s \u2013 %s", ui->tr->ranks[r->rank]->rank,
		           ui_time(ui, r->t0, a, sizeof a), ui_time(ui, r->t1, b, sizeof b));
	} else {
		timeline_goto_rank(ui, r->rank);
		ui_message(ui, 0, "Rank %d", ui->tr->ranks[r->rank]->rank);
	}
}

static int
ov_action(tl_ui *ui, void *st, int a)
{
	ov_state *s = st;
	ov_table *t = table(ui, s);
	int page = ui->scr.h > 6 ? ui->scr.h - 5 : 1;
	if (ui_list_move(&s->sel, t->n, page, a))
		return 1;
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		ui_view_close(ui, &overview_view);
		return 1;
	case ACT_HELP:
	case ACT_COMMAND:
	case ACT_REDRAW:
	case ACT_DP_PANEL:
	case ACT_PP_VIEW:
		return 0; /* the view stack's */
	case ACT_STAGE_NEXT:
	case ACT_CURSOR_RIGHT:
	case ACT_STAGE_PREV:
	case ACT_CURSOR_LEFT:
		s->cur =
		    (s->cur + (a == ACT_STAGE_NEXT || a == ACT_CURSOR_RIGHT ? 1 : OV__COUNT - 1)) %
		    OV__COUNT;
		s->sel = s->top = 0;
		s->norder = SIZE_MAX;
		return 1;
	case ACT_SORT_NEXT:
		s->sort[s->cur] = (s->sort[s->cur] + 1) % t->ncols;
		s->norder = SIZE_MAX;
		s->sel = s->top = 0;
		ui_message(ui, 0, "Sorted by %s", t->cols[s->sort[s->cur]].name);
		return 1;
	case ACT_SELECT:
		if (s->sel < t->n) {
			if (s->norder != t->n)
				order_rows(s, t);
			jump(ui, s, &t->rows[s->order[s->sel]]);
		}
		return 1;
	default:
		return 1; /* the timeline behind the panel does not move */
	}
}

static void *
ov_open(tl_ui *ui)
{
	(void)ui;
	ov_state *s = xcalloc(1, sizeof *s);
	s->t[OV_OVERLAP] = (ov_table){.title = "overlap per rank and step",
	                              .cols = overlap_cols,
	                              .ncols = (int)(sizeof overlap_cols / sizeof *overlap_cols)};
	s->t[OV_STAGES] = (ov_table){.title = "RL stages per rank and step",
	                             .cols = stage_cols,
	                             .ncols = (int)(sizeof stage_cols / sizeof *stage_cols)};
	s->t[OV_SLOW] = (ov_table){.title = "slow-rank votes (msprof-analyze slow_rank)",
	                           .cols = slow_cols,
	                           .ncols = (int)(sizeof slow_cols / sizeof *slow_cols)};
	s->t[OV_BUBBLES] = (ov_table){.title = "largest bubbles of each rank",
	                              .cols = bubble_cols,
	                              .ncols = (int)(sizeof bubble_cols / sizeof *bubble_cols)};
	s->sort[OV_SLOW] = 1;    /* most votes first */
	s->sort[OV_BUBBLES] = 2; /* longest first */
	s->norder = SIZE_MAX;
	return s;
}

static void
ov_close(tl_ui *ui, void *st)
{
	(void)ui;
	ov_state *s = st;
	for (int i = 0; i < OV__COUNT; i++)
		free(s->t[i].rows);
	free(s->order);
	free(s);
}

const view_ops overview_view = {
    .name = "overview",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_OVERVIEW,
    .open = ov_open,
    .draw = ov_draw,
    .action = ov_action,
    .close = ov_close,
};
