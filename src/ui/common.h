/* Helpers every view uses: the message line, times as the viewer shows them, names made safe
 * for the screen. They read tl_ui and call nothing of the views. */
#ifndef TL_UI_COMMON_H
#define TL_UI_COMMON_H
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/view.h"

void ui_message(tl_ui *, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* :query SQL: runs the statement and shows its rows in the query panel (query_panel.c).
 * Returns 0, or -1 after a message. */
int query_panel_run(tl_ui *, const char *sql);
/* While ranks are loading (tlq_loading), what needs every rank (panels, bubble lists, search,
 * statistics) waits: 1 after saying so in the message line when action a (ACT_*), or the
 * :-command named cmd when a is ACT_NONE, is one of those; else 0 (ui.c). */
int ui_loading_refuses(tl_ui *, int a, const char *cmd);
/* "1.18M rows": how far a rank's read is, while loading. */
void ui_rows_text(uint64_t n, char *buf, size_t len);
/* "12.500ms" relative to the origin, or wall-clock with abstime. */
char *ui_time(const tl_ui *, int64_t t, char *buf, size_t len);
/* Sanitized copy of an untrusted name for the screen. */
char *ui_clean(const tl_ui *, const char *s, char *buf, size_t len);
/* Where text's lines start when it wraps at spaces into lines of w columns (a word longer than
 * a line is cut there): start[0 .. lines) and start[lines] = strlen(text). Returns the lines,
 * at most maxlines; when the text needs more, the last one runs on (screen_text ends it in an
 * ellipsis). */
int ui_wrap_starts(const tl_screen *, const char *text, int w, int maxlines, size_t *start);
/* Draws text wrapped (ui_wrap_starts) from line y, at most maxlines; returns the lines drawn. */
int ui_wrap_text(tl_ui *, int x, int y, int w, int maxlines, uint8_t slot, const char *text);
/* Moves a panel's selected row *sel among n rows for the line, page, first and last actions
 * (page rows a page). Returns 1 when action was one of them, 0 otherwise (nothing moved). */
int ui_list_move(size_t *sel, size_t n, int page, int action);
/* Keeps the selected row *sel (clamped to the n rows) among the rows lines shown from *top. */
void ui_list_scroll(size_t *sel, size_t *top, size_t n, int rows);

/* The glyph of a column busy for busy ns of w: eighth blocks (UTF-8) or . : + # */
uint32_t timeline_density_glyph(const tl_ui *, int64_t busy, int64_t w);

/* A rank as the viewer prints it: its number, "?" when the profile does not say which rank it
 * is (as tl summary prints it), in a buffer of the statement's own. */
static inline const char *
ui_rank_str(char *buf, int rank)
{
	if (rank < 0)
		return "?";
	snprintf(buf, 16, "%d", rank);
	return buf;
}
#define UI_RANK(rank) ui_rank_str((char[16]){0}, (rank))

#endif
