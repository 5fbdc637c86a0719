/* The list panels' table: a header from a column description, one row a line from a row
 * callback, the selected row marked and kept in sight, the line and page keys, and a stable
 * sort by the panel's own comparison. A panel keeps one ui_table in its state, fills in its
 * columns, row count and callback, and draws its own title and notes above the header.
 *
 * A column is a width, an alignment and the blank columns before it. Columns with a drop
 * priority leave the line, the highest priority first and the columns of one priority together,
 * while the line is wider than the panel, so a table made for 120 columns still reads at 80;
 * priority 0 is always shown. */
#ifndef TL_UI_TABLE_H
#define TL_UI_TABLE_H
#include <stddef.h>
#include <stdint.h>

#include "ui/view.h"

#define UI_TABLE_MAXCOLS 12
#define UI_TABLE_CELL 512

enum {
	UI_ALIGN_RIGHT,     /* padded on the left, never cut: a number is shown whole */
	UI_ALIGN_LEFT,      /* padded on the right, cut to the width */
	UI_ALIGN_LEFT_WHOLE /* padded on the right, never cut: a longer text moves the rest on */
};

typedef struct ui_col {
	const char *name; /* the header */
	int width;        /* columns; 0 (the last column only): the rest of the line */
	int align;        /* UI_ALIGN_* */
	int gap;          /* blank columns before it; 0 means 1 (the first column has none) */
	int drop;         /* 0: always shown; else dropped, highest first, when the line is short */
	int min;          /* with width 0: the columns it needs to be worth showing */
} ui_col;

/* One row as the callback fills it: a text and a colour slot per column (set to "" and
 * SLOT_NORMAL before the call), or, with line non-empty, one line of its own in slot[0] that
 * does not follow the columns (a sub-row of another shape). */
typedef struct ui_table_row {
	char cell[UI_TABLE_MAXCOLS][UI_TABLE_CELL];
	uint8_t slot[UI_TABLE_MAXCOLS];
	char line[1024];
} ui_table_row;

typedef void (*ui_table_row_fn)(tl_ui *, void *ctx, size_t row, int selected, ui_table_row *);

typedef struct ui_table {
	const ui_col *cols;
	int ncols;
	int x0;       /* the first column's offset from the panel's left edge (the mark is at 0) */
	int head;     /* lines above the first row; the header is the last of them */
	int split;    /* 1: each cell drawn alone, at its own place, blanks between untouched;
	               * 0: neighbouring cells of one slot drawn as one text (a wide cell pushes
	               * the rest right, the way one printf does) */
	int sort_col; /* the header drawn as current; -1: none */
	ui_table_row_fn row;
	void *ctx;
	size_t n;        /* rows */
	size_t sel, top; /* the selected row and the first one on screen */
} ui_table;

/* A table of ncols columns, joined cells, no sorted column, no rows yet. */
void ui_table_init(ui_table *, const ui_col *cols, int ncols, int x0, int head, ui_table_row_fn,
                   void *ctx);
/* The panel's title line: filled, then the text, in the title slot. */
void ui_table_title(tl_ui *, int x, int y, int w, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The header, at line y + head - 1. */
void ui_table_header(tl_ui *, const ui_table *, int x, int y, int w);
/* The header, then the rows that fit in h - head lines from the selection's page, the
 * selected one marked. */
void ui_table_draw(tl_ui *, ui_table *, int x, int y, int w, int h);
/* The line, page, first and last keys on the selection (a page is the rows shown less one).
 * Returns 1 when action was one of them. */
int ui_table_move(tl_ui *, ui_table *, int action);
/* The rows a page holds on this screen (the rows shown less one, at least 1). */
int ui_table_page(const tl_ui *, const ui_table *);

/* What a list panel's action handler does with an action, as ui_table_action sorts it. */
typedef enum ui_list_act {
	UI_LIST_TAKEN, /* moved the selection: the handler returns 1 */
	UI_LIST_ENTER, /* Enter on a row (tab->sel < tab->n): the panel shows it in the timeline */
	UI_LIST_OTHER  /* anything else: the panel's own (return 1), or not (return 0: the view
	                * stack's rule, ui/view.h, closes the panel on q and Esc, opens another...)
	                */
} ui_list_act;
/* The part every list panel's action handler shares: the selection keys and Enter. */
ui_list_act ui_table_action(tl_ui *, ui_table *, int action);

#endif
