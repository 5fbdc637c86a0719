/* Horizontal scrolling for curses. A one-column pan moves every lane by one column; curses
 * would redraw each changed cell (ncurses has no horizontal scroll optimisation), several KB a
 * frame. Instead, when the terminal can delete and insert characters, each lane row is shifted
 * on the terminal itself (dch/ich at the left edge of the lanes, the rows reach the right
 * margin), curses is told by applying the same edit to curscr, and doupdate() then sends only
 * the columns that came into view. Kept apart because <term.h> defines many short macros. */
#include "config.h"
#include "ui/hscroll.h"

#include <curses.h>
#include <term.h>

/* ncurses' writer into the current screen's output buffer (exported by libtinfo since 5.0, not
 * declared in its headers). putp() would write to stdout, out of order with the buffer and to
 * the wrong file when the screen is not on stdout (script mode). */
extern int _nc_outch(int);

static void
emit(const char *s)
{
	if (s)
		tputs(s, 1, _nc_outch);
}

int
hscroll_possible(int k)
{
	if (cursor_address == NULL)
		return 0;
	if (k > 0)
		return parm_dch != NULL || (k == 1 && delete_character != NULL);
	if (k < 0)
		return parm_ich != NULL || (k == -1 && insert_character != NULL);
	return 0;
}

void
hscroll_row(int y, int x0, int k)
{
	/* doupdate() leaves the attributes normal, so the blanks that scroll in get the default
	 * background (bce). Everything goes through ncurses' own output buffer, in order. */
	emit(tiparm(cursor_address, y, x0));
	if (k > 0)
		emit(parm_dch != NULL ? tiparm(parm_dch, k) : delete_character);
	else
		emit(parm_ich != NULL ? tiparm(parm_ich, -k) : insert_character);
	/* the same edit on curses' idea of the screen */
	cchar_t blank;
	wchar_t sp[2] = {L' ', 0};
	setcchar(&blank, sp, A_NORMAL, 0, NULL);
	for (int i = 0; i < (k > 0 ? k : -k); i++) {
		wmove(curscr, y, x0);
		if (k > 0)
			wdelch(curscr);
		else
			wins_wch(curscr, &blank);
	}
}

void
hscroll_done(void)
{
	/* put the cursor back where ncurses believes it is: where the last doupdate() left it */
	int cy, cx;
	getyx(newscr, cy, cx);
	emit(tiparm(cursor_address, cy, cx));
}
