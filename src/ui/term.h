/* The terminal (one per process): curses set up and restored, the theme's colours, the cell
 * grid flushed with only its changes, keys and mouse events read. In script mode with a size,
 * curses writes to an unlinked file whose growth is the bytes a terminal would have received. */
#ifndef TL_UI_TERM_H
#define TL_UI_TERM_H
#include <stdint.h>

#include "ui/screen.h"
#include "ui/theme.h"

/* Opens the terminal, or with cols and rows > 0 a screen of that size on no terminal. Sizes
 * scr. Returns 0, or -1 with a message printed. */
int term_open(const tl_theme *, int cols, int rows, tl_screen *scr);
void term_close(void);
/* Sets up the colours of a theme (and redraws everything). */
void term_styles(const tl_theme *);
/* Sends everything on the next flush. */
void term_redraw(void);
/* Script mode: a new screen size. */
void term_resize(tl_screen *, int cols, int rows);

/* The lane area of the frame, when it has one: a pan by whole columns shifts those rows on the
 * terminal instead of sending them again. */
typedef struct term_lanes {
	int valid;
	int64_t t0, colw;
	int ncols, x, y, h;
} term_lanes;
void term_flush(const tl_screen *, const term_lanes *);

typedef struct term_mouse {
	int x, y;
	int wheel; /* 1 up, -1 down, 0 none */
	int press, motion, release;
} term_mouse;

enum { TERM_NONE, TERM_KEY, TERM_MOUSE, TERM_RESIZE };
/* The next event: a key, a mouse event, a new size (scr resized), or nothing after a timeout
 * of 250 ms. */
int term_read(tl_screen *scr, int *key, term_mouse *m);

/* The bytes written so far in script mode, or -1. */
long term_bytes_out(void);
/* The signal that asked to quit, or 0; whether the terminal went away. */
int term_signal(void);
int term_lost(void);

int64_t term_cpu_ns(void);
/* Minor page faults of the calling thread so far (--stats: a frame's faults). */
long term_minflt(void);

#endif
