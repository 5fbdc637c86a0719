/* The overview panel: the tables of `tl summary` in the viewer — overlap per rank and step,
 * RL stages, slow-rank votes, the largest bubbles — one at a time, sortable by any column, and
 * Enter shows the row's rank and time range in the timeline. The rows are made from the query
 * functions the report prints (tlq_step_overlaps, tlq_stages, tlq_slow_ranks, tlq_bubbles):
 * the panel computes nothing of its own. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "util/sort.h"
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
	const char *abbr; /* the header on a screen too narrow for the full ones (NULL: name) */
	int drop; /* on a screen too narrow for every column, dropped highest first (0: never) */
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
	int sort[OV__COUNT];              /* column sorted by */
	ui_col ucols[OV__COUNT][OV_COLS]; /* each table's columns as the table draws them */
	ui_table tab;
	const ov_table *shown; /* the table the rows are of, while drawing */
	size_t *order;
	size_t norder;
} ov_state;

/* Each column as wide as its header and its widest cell. The time splits of the overlap table
 * as tl summary names them; on a narrow screen the short headers, then the least asked-for
 * columns leave (preparing, overlapped first; the exposed communication never). */
static const ov_col overlap_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "step", .kind = COL_TEXT, .width = 6, .bynum = 1},
    {.name = "computing", .kind = COL_MS, .desc = 1, .abbr = "compute", .drop = 1},
    {.name = "communication", .kind = COL_MS, .desc = 1, .abbr = "comm", .drop = 2},
    {.name = "overlapped", .kind = COL_MS, .desc = 1, .abbr = "overlap", .drop = 4},
    {.name = "comm.exposed", .kind = COL_MS, .desc = 1, .abbr = "exposed"},
    {.name = "free", .kind = COL_MS, .desc = 1, .drop = 3},
    {.name = "preparing", .kind = COL_MS, .desc = 1, .abbr = "prep", .drop = 5},
};
static const ov_col stage_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "step", .kind = COL_TEXT, .width = 6, .bynum = 1},
    {.name = "stage", .kind = COL_TEXT, .width = 16},
    {.name = "start", .kind = COL_MS, .drop = 1},
    {.name = "duration", .kind = COL_MS, .desc = 1},
    {.name = "busy", .kind = COL_MS, .desc = 1, .drop = 2},
    {.name = "lag", .kind = COL_MS, .desc = 1, .drop = 3},
};
static const ov_col slow_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "votes", .kind = COL_INT, .desc = 1},
};
static const ov_col bubble_cols[] = {
    {.name = "rank", .kind = COL_INT},
    {.name = "start", .kind = COL_MS, .drop = 1},
    {.name = "duration", .kind = COL_MS, .desc = 1},
    {.name = "step", .kind = COL_TEXT, .width = 14, .bynum = 1},
    {.name = "stage", .kind = COL_TEXT, .width = 16, .drop = 2},
    {.name = "reason", .kind = COL_TEXT, .width = 18, .drop = 3},
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
			const ov_row *r = &t->rows[i];
			int n = t->cols[c].kind == COL_INT
			            ? snprintf(buf, sizeof buf, "%" PRId64, r->num[c])
			        : t->cols[c].kind == COL_MS
			            ? snprintf(buf, sizeof buf, "%.3f", (double)r->num[c] / 1e6)
			            : (int)strlen(r->text[c]);
			if (n > t->dw[c])
				t->dw[c] = n;
		}
	return t;
}

/* The columns of table i for a panel w wide: each as wide as its header and its widest cell
 * (text up to its width), the short headers when the full ones do not fit; the table helper
 * then drops the droppable ones, never the sorted one. */
static void
fit_columns(ov_state *s, int i, int w)
{
	const ov_table *t = &s->t[i];
	for (int abbr = 0; abbr < 2; abbr++) {
		int total = 2;
		for (int c = 0; c < t->ncols; c++) {
			const ov_col *oc = &t->cols[c];
			const char *nm = abbr && oc->abbr ? oc->abbr : oc->name;
			int d = t->dw[c];
			if (oc->kind == COL_TEXT && oc->width && d > oc->width)
				d = oc->width;
			int cw = (int)strlen(nm) > d ? (int)strlen(nm) : d;
			s->ucols[i][c] =
			    (ui_col){.name = nm,
			             .width = cw,
			             .align = oc->kind == COL_TEXT && !oc->bynum ? UI_ALIGN_LEFT
			                                                         : UI_ALIGN_RIGHT,
			             .drop = c == s->sort[i] ? 0 : oc->drop};
			total += cw + (c ? 1 : 0);
		}
		if (total <= w)
			return;
	}
}

/* ---- row order ---------------------------------------------------------------------------- */

static int
cmp_row(const void *ctx, size_t a, size_t b)
{
	const ov_state *s = ctx;
	const ov_table *t = s->shown;
	int col = s->sort[s->cur];
	const ov_row *x = &t->rows[a], *y = &t->rows[b];
	const ov_col *c = &t->cols[col];
	int r;
	if (c->kind == COL_TEXT && !c->bynum)
		r = strcmp(x->text[col], y->text[col]);
	else
		r = (x->num[col] > y->num[col]) - (x->num[col] < y->num[col]);
	return c->desc ? -r : r; /* ties as the report lists them: the sort is stable */
}

static void
order_rows(ov_state *s, const ov_table *t)
{
	s->order = xreallocarray(s->order, t->n ? t->n : 1, sizeof *s->order);
	s->norder = t->n;
	for (size_t i = 0; i < t->n; i++)
		s->order[i] = i;
	s->shown = t;
	sort_index(s->order, t->n, cmp_row, s);
}

/* ---- drawing ------------------------------------------------------------------------------ */

static void
ov_row_cells(tl_ui *ui, void *ctx, size_t i, int sel, ui_table_row *out)
{
	(void)ui;
	const ov_state *s = ctx;
	const ov_table *t = s->shown;
	const ov_row *r = &t->rows[s->order[i]];
	for (int c = 0; c < t->ncols; c++) {
		char *buf = out->cell[c];
		size_t len = sizeof out->cell[c];
		switch (t->cols[c].kind) {
		case COL_INT:
			snprintf(buf, len, "%" PRId64, r->num[c]);
			break;
		case COL_MS:
			snprintf(buf, len, "%.3f", (double)r->num[c] / 1e6);
			break;
		default:
			snprintf(buf, len, "%s", r->text[c]);
			break;
		}
	}
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
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
	ui_table_title(ui, x, y, w, "%s", title);
	fit_columns(s, s->cur, w);
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY, "%zu rows, sorted by %s%s; ms",
	              t->n, t->cols[s->sort[s->cur]].name,
	              t->cols[s->sort[s->cur]].desc ? " (largest first)" : "");
	s->shown = t;
	s->tab.cols = s->ucols[s->cur];
	s->tab.ncols = t->ncols;
	s->tab.sort_col = s->sort[s->cur];
	s->tab.n = t->n;
	if (t->n == 0) {
		ui_table_header(ui, &s->tab, x, y, w);
		screen_printf(sc, x + 1, y + 4, w - 2, SLOT_NORMAL, "%s",
		              t->empty[0] ? t->empty : "Nothing to show.");
		return;
	}
	ui_table_draw(ui, &s->tab, x, y, w, h);
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
	s->tab.n = t->n;
	if (ui_table_move(ui, &s->tab, a))
		return 1;
	switch (a) {
	case ACT_STAGE_NEXT:
	case ACT_CURSOR_RIGHT:
	case ACT_STAGE_PREV:
	case ACT_CURSOR_LEFT:
		s->cur =
		    (s->cur + (a == ACT_STAGE_NEXT || a == ACT_CURSOR_RIGHT ? 1 : OV__COUNT - 1)) %
		    OV__COUNT;
		s->tab.sel = s->tab.top = 0;
		s->norder = SIZE_MAX;
		return 1;
	case ACT_SORT_NEXT:
		s->sort[s->cur] = (s->sort[s->cur] + 1) % t->ncols;
		s->norder = SIZE_MAX;
		s->tab.sel = s->tab.top = 0;
		ui_message(ui, 0, "Sorted by %s", t->cols[s->sort[s->cur]].name);
		return 1;
	case ACT_SELECT:
		if (s->tab.sel < t->n) {
			if (s->norder != t->n)
				order_rows(s, t);
			jump(ui, s, &t->rows[s->order[s->tab.sel]]);
		}
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
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
	s->tab = (ui_table){.x0 = 2, .head = 3, .split = 1, .row = ov_row_cells, .ctx = s};
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
