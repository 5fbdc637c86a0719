/* The screen as a grid of cells, each a character and the colour slot it is drawn in. Views
 * draw here; ui.c flushes the grid to curses (interactive and script mode alike) and the
 * script commands :dump and :dump-attrs read it. */
#ifndef TL_SCREEN_H
#define TL_SCREEN_H
#include <stdint.h>
#include <stdio.h>

#define SCR_WIDE_TAIL 0xFFFFFFFFu /* second column of a double-width character */

enum {
	SCR_GLYPH = 1, /* draw in the slot's colour on the normal background (density glyphs) */
};

typedef struct scr_cell {
	uint32_t ch; /* Unicode code point; ASCII only when the screen is not UTF-8 */
	uint8_t slot;
	uint8_t flags;
} scr_cell;

typedef struct tl_screen {
	int w, h;
	int utf8;       /* the terminal takes UTF-8 */
	scr_cell *cell; /* w*h, row-major */
} tl_screen;

void screen_resize(tl_screen *, int w, int h);
void screen_free(tl_screen *);
void screen_clear(tl_screen *, uint8_t slot);
/* Puts one character; out-of-range positions are ignored. */
void screen_put(tl_screen *, int x, int y, uint32_t ch, uint8_t slot, uint8_t flags);
void screen_fill(tl_screen *, int x, int y, int n, uint32_t ch, uint8_t slot);
/* Draws UTF-8 text (already sanitized: no control characters) into at most maxw columns,
 * cutting with an ellipsis when it does not fit. Returns the columns used. */
int screen_text(tl_screen *, int x, int y, int maxw, const char *s, uint8_t slot);
int screen_printf(tl_screen *, int x, int y, int maxw, uint8_t slot, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Display width of sanitized UTF-8 text. */
int screen_text_width(const tl_screen *, const char *s);
/* The screen as text, one line per row (trailing blanks kept), UTF-8. */
void screen_dump_text(const tl_screen *, FILE *);
/* One character per cell naming its colour slot (see theme.h), one line per row. */
void screen_dump_attrs(const tl_screen *, FILE *);

#endif
