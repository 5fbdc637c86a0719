/* The :query panel: one SELECT of `tl query` over the session, its rows as a table. The
 * statement runs through the runner main handed down (tl_ui.sql: src/sql/ is beside the viewer,
 * not below it), with tl query's defences. Enter on a row that has a rank and a start_ns column
 * shows that place in the timeline: the rank's lanes, the row's [start_ns, end_ns) (or its
 * dur_ns) centred. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define QP_MAX_ROWS 100000 /* rows kept; the title says when there were more */
#define QP_COL_MAX 40      /* a column's width at most */

typedef struct qp_state {
	char *sql;
	tl_ui_rows r;
	char err[512];
	int *width, *right;
	int c_rank, c_start, c_end, c_dur; /* -1: no such column */
	char header[1024];
	ui_col col;
	ui_table tab;
} qp_state;

static int
is_number(const char *s)
{
	if (s == NULL || *s == '\0')
		return 0;
	if (*s == '-')
		s++;
	return *s && strspn(s, "0123456789.eE+-") == strlen(s);
}

static int
col_index(const qp_state *s, const char *name)
{
	for (int c = 0; c < s->r.ncols; c++)
		if (strcmp(s->r.names[c], name) == 0)
			return c;
	return -1;
}

/* One line of cells padded to their columns' widths. */
static void
format_line(tl_ui *ui, const qp_state *s, char *const *cells, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int c = 0; c < s->r.ncols && off + 1 < len; c++) {
		char clean[256];
		const char *v = cells[c] ? ui_clean(ui, cells[c], clean, sizeof clean) : "NULL";
		int w = s->width[c];
		int n = snprintf(out + off, len - off, s->right[c] ? "%s%*.*s" : "%s%-*.*s",
		                 c ? "  " : "", w, w, v);
		if (n < 0)
			break;
		off += (size_t)n < len - off ? (size_t)n : len - off - 1;
	}
}

static void
layout(tl_ui *ui, qp_state *s)
{
	free(s->width);
	free(s->right);
	int nc = s->r.ncols;
	s->width = xcalloc((size_t)nc + 1, sizeof *s->width);
	s->right = xcalloc((size_t)nc + 1, sizeof *s->right);
	for (int c = 0; c < nc; c++) {
		int w = (int)strlen(s->r.names[c]), num = s->r.nrows > 0;
		for (size_t i = 0; i < s->r.nrows && i < 2000; i++) {
			const char *v = s->r.cells[i * (size_t)nc + (size_t)c];
			int l = v ? (int)strlen(v) : 4;
			if (l > w)
				w = l;
			if (v && !is_number(v))
				num = 0;
		}
		s->width[c] = w > QP_COL_MAX ? QP_COL_MAX : w;
		s->right[c] = num;
	}
	format_line(ui, s, s->r.names, s->header, sizeof s->header);
	s->c_rank = col_index(s, "rank");
	s->c_start = col_index(s, "start_ns");
	s->c_end = col_index(s, "end_ns");
	s->c_dur = col_index(s, "dur_ns");
}

int
query_panel_run(tl_ui *ui, const char *sql)
{
	if (ui->sql == NULL) {
		ui_message(ui, 1, "query: not available here");
		return -1;
	}
	if (tlq_loading(ui->q, NULL, NULL)) {
		ui_message(ui, 1, "query: wait until every rank is loaded");
		return -1;
	}
	qp_state *s = ui_view_state(ui, &query_panel_view);
	free(s->sql);
	s->sql = xstrdup(sql);
	for (int c = 0; s->r.names && c < s->r.ncols; c++)
		free(s->r.names[c]);
	for (size_t i = 0; s->r.cells && i < s->r.nrows * (size_t)s->r.ncols; i++)
		free(s->r.cells[i]);
	free(s->r.names);
	free(s->r.cells);
	memset(&s->r, 0, sizeof s->r);
	s->tab.sel = s->tab.top = 0;
	if (ui->sql(ui->q, sql, QP_MAX_ROWS, &s->r, s->err, sizeof s->err) != 0) {
		ui_message(ui, 1, "%s", s->err);
		return -1;
	}
	layout(ui, s);
	ui_view_open(ui, &query_panel_view);
	return 0;
}

static void
qp_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	qp_state *s = st;
	char k[24], q[160];
	ui_table_title(ui, x, y, w, " :query %s   %zu row%s%s   (Enter: timeline, %s: close)",
	               ui_clean(ui, s->sql ? s->sql : "", q, sizeof q), s->r.nrows,
	               s->r.nrows == 1 ? "" : "s", s->r.truncated ? " (more not kept)" : "",
	               keymap_key_hint(&ui->keys, ACT_QUIT, k, sizeof k));
	s->col.name = s->header;
	s->tab.n = s->r.nrows;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
qp_row_cells(tl_ui *ui, void *ctx, size_t i, int sel, ui_table_row *out)
{
	const qp_state *s = ctx;
	(void)sel;
	format_line(ui, s, s->r.cells + i * (size_t)s->r.ncols, out->line, sizeof out->line);
}

/* The place of row i: its rank's index and [t0, t1); -1 when the row has none. */
static int
row_place(const tl_ui *ui, const qp_state *s, size_t i, size_t *ri, int64_t *t0, int64_t *t1)
{
	if (s->c_rank < 0 || s->c_start < 0 || i >= s->r.nrows)
		return -1;
	char *const *row = s->r.cells + i * (size_t)s->r.ncols;
	if (row[s->c_rank] == NULL || row[s->c_start] == NULL)
		return -1;
	long long rank = strtoll(row[s->c_rank], NULL, 10);
	*t0 = strtoll(row[s->c_start], NULL, 10);
	*t1 = *t0 + 1000;
	if (s->c_end >= 0 && row[s->c_end] != NULL && strtoll(row[s->c_end], NULL, 10) > *t0)
		*t1 = strtoll(row[s->c_end], NULL, 10);
	else if (s->c_dur >= 0 && row[s->c_dur] != NULL && strtoll(row[s->c_dur], NULL, 10) > 0)
		*t1 = *t0 + strtoll(row[s->c_dur], NULL, 10);
	for (size_t k = 0; k < ui->tr->nranks; k++)
		if (ui->tr->ranks[k]->rank == rank) {
			*ri = k;
			return 0;
		}
	return -1;
}

static int
qp_action(tl_ui *ui, void *st, int a)
{
	qp_state *s = st;
	s->tab.n = s->r.nrows;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER: {
		size_t ri;
		int64_t t0, t1;
		if (row_place(ui, s, s->tab.sel, &ri, &t0, &t1) != 0) {
			ui_message(ui, 1, "query: this row has no rank and start_ns to show");
			return 1;
		}
		ui_view_close(ui, &query_panel_view);
		if (timeline_reveal(ui, ri, t0, t1, NULL) != 0)
			ui_message(ui, 1, "query: no lane shows that rank");
		return 1;
	}
	case UI_LIST_OTHER:
		return 0; /* not the panel's: the view stack's rule */
	default:
		return 1;
	}
}

static void *
qp_open(tl_ui *ui)
{
	(void)ui;
	qp_state *s = xcalloc(1, sizeof *s);
	s->col = (ui_col){"", 0, UI_ALIGN_LEFT, 0, 0, 0};
	ui_table_init(&s->tab, &s->col, 1, 2, 2, qp_row_cells, s);
	return s;
}

static void
qp_close(tl_ui *ui, void *st)
{
	(void)ui;
	qp_state *s = st;
	for (int c = 0; s->r.names && c < s->r.ncols; c++)
		free(s->r.names[c]);
	for (size_t i = 0; s->r.cells && i < s->r.nrows * (size_t)s->r.ncols; i++)
		free(s->r.cells[i]);
	free(s->r.names);
	free(s->r.cells);
	free(s->width);
	free(s->right);
	free(s->sql);
	free(s);
}

const view_ops query_panel_view = {
    .name = "query",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_NONE,
    .open = qp_open,
    .draw = qp_draw,
    .action = qp_action,
    .close = qp_close,
};
