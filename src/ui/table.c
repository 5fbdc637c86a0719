/* The list panels' table: columns that fit the panel, the header, the rows in sight with the
 * selection marked, the movement keys and a stable sort with a context. */
#include "config.h"
#include "ui/table.h"
#include "ui/common.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ui_table_init(ui_table *t, const ui_col *cols, int ncols, int x0, int head, ui_table_row_fn row,
              void *ctx)
{
	*t = (ui_table){.cols = cols,
	                .ncols = ncols,
	                .x0 = x0,
	                .head = head,
	                .sort_col = -1,
	                .row = row,
	                .ctx = ctx};
}

void
ui_table_title(tl_ui *ui, int x, int y, int w, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	screen_fill(&ui->scr, x, y, w, ' ', SLOT_TITLE);
	screen_text(&ui->scr, x, y, w, buf, SLOT_TITLE);
}

static int
gap_of(const ui_table *t, int c, int first)
{
	if (first)
		return 0;
	return t->cols[c].gap > 0 ? t->cols[c].gap : 1;
}

/* Which columns the line shows: all, less the droppable ones, highest priority first (the
 * columns of one priority together), while they do not fit in w. Returns how many are shown, their
 * indexes in shown[]. */
static int
fit_columns(const ui_table *t, int w, int *shown)
{
	int keep[UI_TABLE_MAXCOLS];
	int nc = t->ncols < UI_TABLE_MAXCOLS ? t->ncols : UI_TABLE_MAXCOLS;
	for (int c = 0; c < nc; c++)
		keep[c] = 1;
	for (;;) {
		int need = t->x0, first = 1;
		for (int c = 0; c < nc; c++) {
			if (!keep[c])
				continue;
			need += gap_of(t, c, first) +
			        (t->cols[c].width ? t->cols[c].width : t->cols[c].min);
			first = 0;
		}
		int worst = -1;
		for (int c = 0; c < nc; c++)
			if (keep[c] && t->cols[c].drop > 0 &&
			    (worst < 0 || t->cols[c].drop > t->cols[worst].drop))
				worst = c;
		if (need <= w || worst < 0)
			break;
		int level = t->cols[worst].drop; /* columns of one priority leave together */
		for (int c = 0; c < nc; c++)
			if (t->cols[c].drop == level)
				keep[c] = 0;
	}
	int n = 0;
	for (int c = 0; c < nc; c++)
		if (keep[c])
			shown[n++] = c;
	return n;
}

/* Appends s to buf (of len, at *at) aligned in width display columns as align says (a cut
 * falls between characters). Width 0: s as it is. */
static void
put_cell(const tl_screen *sc, char *buf, size_t len, size_t *at, const char *s, int width,
         int align)
{
	int sw = screen_text_width(sc, s);
	size_t n = strlen(s);
	if (width > 0 && align == UI_ALIGN_LEFT && sw > width) {
		/* keep whole characters while they fit */
		size_t k = 0;
		int used = 0;
		while (k < n) {
			unsigned cp;
			int step = text_utf8_decode(s + k, n - k, &cp);
			char one[8];
			memcpy(one, s + k, (size_t)step);
			one[step] = '\0';
			int cw = screen_text_width(sc, one);
			if (used + cw > width)
				break;
			used += cw;
			k += (size_t)step;
		}
		n = k;
		sw = used;
	}
	int pad = width > sw ? width - sw : 0;
	if (align == UI_ALIGN_RIGHT) /* LEFT_WHOLE pads on the right like LEFT */
		for (; pad > 0 && *at + 1 < len; pad--)
			buf[(*at)++] = ' ';
	for (size_t k = 0; k < n && *at + 1 < len; k++)
		buf[(*at)++] = s[k];
	for (; pad > 0 && *at + 1 < len; pad--)
		buf[(*at)++] = ' ';
	buf[*at] = '\0';
}

/* One line of cells at line yy: the header (row NULL: the names) or a row. */
static void
draw_line(tl_ui *ui, const ui_table *t, const int *shown, int nshown, int x, int yy, int w,
          const ui_table_row *row)
{
	tl_screen *sc = &ui->scr;
	const char *text[UI_TABLE_MAXCOLS];
	uint8_t slot[UI_TABLE_MAXCOLS];
	for (int k = 0; k < nshown; k++) {
		int c = shown[k];
		if (row) {
			text[k] = row->cell[c];
			slot[k] = row->slot[c];
		} else {
			text[k] = t->cols[c].name;
			slot[k] = c == t->sort_col ? SLOT_LABEL_CURRENT : SLOT_LABEL;
		}
	}
	int cx = x + t->x0;
	if (t->split) {
		for (int k = 0; k < nshown && cx < x + w; k++) {
			int c = shown[k];
			char buf[UI_TABLE_CELL + 64];
			size_t at = 0;
			if (k > 0)
				cx += gap_of(t, c, 0);
			if (cx >= x + w)
				break;
			put_cell(sc, buf, sizeof buf, &at, text[k], t->cols[c].width,
			         t->cols[c].align);
			screen_text(sc, cx, yy, x + w - cx, buf, slot[k]);
			cx += t->cols[c].width;
		}
		return;
	}
	/* the cells after the last one with text say nothing */
	int last = nshown - 1;
	while (last >= 0 && text[last][0] == '\0')
		last--;
	for (int k = 0; k <= last;) {
		char buf[2048];
		size_t at = 0;
		int k0 = k;
		if (k > 0)
			cx += gap_of(t, shown[k], 0);
		for (; k <= last && slot[k] == slot[k0]; k++) {
			int c = shown[k];
			if (k > k0)
				for (int g = gap_of(t, c, 0); g > 0 && at + 1 < sizeof buf; g--)
					buf[at++] = ' ';
			put_cell(sc, buf, sizeof buf, &at, text[k], t->cols[c].width,
			         t->cols[c].align);
		}
		if (cx < x + w)
			screen_text(sc, cx, yy, x + w - cx, buf, slot[k0]);
		cx += screen_text_width(sc, buf);
	}
}

void
ui_table_header(tl_ui *ui, const ui_table *t, int x, int y, int w)
{
	int shown[UI_TABLE_MAXCOLS];
	int n = fit_columns(t, w, shown);
	draw_line(ui, t, shown, n, x, y + t->head - 1, w, NULL);
}

void
ui_table_draw(tl_ui *ui, ui_table *t, int x, int y, int w, int h)
{
	int shown[UI_TABLE_MAXCOLS];
	int nshown = fit_columns(t, w, shown);
	draw_line(ui, t, shown, nshown, x, y + t->head - 1, w, NULL);
	int rows = h - t->head;
	if (rows < 1 || t->n == 0)
		return;
	ui_list_scroll(&t->sel, &t->top, t->n, rows);
	ui_table_row *row = xmalloc(sizeof *row);
	for (int r = 0; r < rows && t->top + (size_t)r < t->n; r++) {
		size_t i = t->top + (size_t)r;
		int yy = y + t->head + r, sel = i == t->sel;
		for (int c = 0; c < UI_TABLE_MAXCOLS; c++) {
			row->cell[c][0] = '\0';
			row->slot[c] = SLOT_NORMAL;
		}
		row->line[0] = '\0';
		t->row(ui, t->ctx, i, sel, row);
		if (sel)
			screen_put(&ui->scr, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		if (row->line[0])
			screen_text(&ui->scr, x + t->x0, yy, w - t->x0, row->line, row->slot[0]);
		else
			draw_line(ui, t, shown, nshown, x, yy, w, row);
	}
	free(row);
}

int
ui_table_page(const tl_ui *ui, const ui_table *t)
{
	/* a panel has the screen less the message line */
	int page = ui->scr.h - 1 - t->head - 1;
	return page > 1 ? page : 1;
}

int
ui_table_move(tl_ui *ui, ui_table *t, int action)
{
	return ui_list_move(&t->sel, t->n, ui_table_page(ui, t), action);
}

ui_list_act
ui_table_action(tl_ui *ui, ui_table *t, int action)
{
	if (ui_table_move(ui, t, action))
		return UI_LIST_TAKEN;
	if (action == ACT_SELECT)
		return t->sel < t->n ? UI_LIST_ENTER : UI_LIST_TAKEN;
	return UI_LIST_OTHER;
}
