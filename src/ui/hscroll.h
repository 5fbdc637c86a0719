/* Shifting rows of the terminal sideways (see hscroll.c). */
#ifndef TL_HSCROLL_H
#define TL_HSCROLL_H

/* Whether the terminal can shift a row by k columns (k > 0: left, k < 0: right). */
int hscroll_possible(int k);
/* Shifts row y from column x0 to the right margin by k columns on the terminal and in curscr;
 * the columns that come into view are blank. Call between wnoutrefresh() and doupdate(). */
void hscroll_row(int y, int x0, int k);
/* After the rows: the terminal cursor back where ncurses believes it is. */
void hscroll_done(void);

#endif
