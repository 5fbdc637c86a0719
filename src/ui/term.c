/* The terminal: curses set up and restored on every path (a fatal signal restores it first),
 * colours, the grid flushed with only the changed cells (and whole-column pans as terminal
 * scrolls), keys and mouse events read, a terminal that went away noticed. */
#include "config.h"
#include "ui/hscroll.h"
#include "ui/keymap.h"
#include "ui/term.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- terminal state (one terminal per process) --------------------------------------------- */

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t curses_active;
/* SGR (1006) mouse reports turned on by tl itself, for terminals whose terminfo mouse is the
 * X10 encoding (tmux-256color, screen): X10 cannot say a column past 223 */
static volatile sig_atomic_t sgr_mouse_on;
static FILE *sgr_mouse_out;

#define SGR_MOUSE_ON "\033[?1006h"
#define SGR_MOUSE_OFF "\033[?1006l"

typedef struct term_state {
	SCREEN *screen;
	FILE *out, *in;
	int counting; /* out is a file whose size counts the bytes written */
	int colors;   /* 0 (monochrome), 8 or 256 */
	attr_t attr[SLOT__COUNT][2];
	short pair[SLOT__COUNT][2];
	short pfg[256], pbg[256];
	int npairs;
	scr_cell *shown;  /* what curses has, to send only changed cells */
	scr_cell *before; /* the previous frame */
	int sw, sh;
	int full;
	int lost;     /* the terminal went away: a hang-up, an I/O error */
	int fast_err; /* reads in a row that failed at once instead of waiting */
	/* the lane area of the last frame, for horizontal scrolling */
	int64_t last_t0, last_colw;
	int last_x, last_y, last_h, last_help, have_last;
} term_state;

static term_state term;

static void
terminal_restore(void)
{
	if (curses_active) {
		curses_active = 0;
		if (sgr_mouse_on && sgr_mouse_out) {
			fputs(SGR_MOUSE_OFF, sgr_mouse_out);
			fflush(sgr_mouse_out);
		}
		sgr_mouse_on = 0;
		endwin();
	}
}

static void
on_signal(int sig)
{
	got_signal = sig;
}

static void
on_crash(int sig)
{
	/* a fatal path restores the terminal first, then dies of the same signal */
	terminal_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: a blocking read returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
}

/* ---- colours ------------------------------------------------------------------------------- */

static attr_t
theme_attr(uint16_t a)
{
	attr_t r = A_NORMAL;
	if (a & THEME_BOLD)
		r |= A_BOLD;
	if (a & THEME_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_DIM)
		r |= A_DIM;
#ifdef A_ITALIC
	if (a & THEME_ITALIC)
		r |= A_ITALIC;
#endif
	if (a & THEME_BLINK)
		r |= A_BLINK;
	return r;
}

static short
pair_for(short fg, short bg)
{
	for (int i = 0; i < term.npairs; i++)
		if (term.pfg[i] == fg && term.pbg[i] == bg)
			return (short)(i + 1);
	if (term.npairs + 1 >= COLOR_PAIRS || term.npairs >= 255)
		return 0;
	term.pfg[term.npairs] = fg;
	term.pbg[term.npairs] = bg;
	term.npairs++;
	init_pair((short)term.npairs, fg, bg);
	return (short)term.npairs;
}

void
term_styles(const tl_theme *t)
{
	term.npairs = 0;
	const theme_style *nrm = &t->slot[SLOT_NORMAL];
	for (int s = 0; s < SLOT__COUNT; s++) {
		const theme_style *st = &t->slot[s];
		if (term.colors == 0) {
			term.attr[s][0] = theme_attr(st->mono);
			term.attr[s][1] = theme_attr((uint16_t)(st->mono & ~THEME_REVERSE));
			term.pair[s][0] = term.pair[s][1] = 0;
			continue;
		}
		int c256 = term.colors >= 256;
		short fg = c256 ? st->fg : st->fg8, bg = c256 ? st->bg : st->bg8;
		short nbg = c256 ? nrm->bg : nrm->bg8;
		term.attr[s][0] = theme_attr(st->attr);
		term.pair[s][0] = pair_for(fg, bg);
		/* glyphs (density blocks) are drawn in the slot's fill colour on the background */
		short gfg = bg != THEME_DEFAULT_COLOR && bg != nbg ? bg : fg;
		term.attr[s][1] = theme_attr((uint16_t)(st->attr & ~THEME_REVERSE));
		term.pair[s][1] = pair_for(gfg, nbg);
	}
	term.full = 1;
}

/* ---- flushing the grid --------------------------------------------------------------------- */

static int
cell_eq(const scr_cell *a, const scr_cell *b)
{
	return a->ch == b->ch && a->slot == b->slot &&
	       a->flags == b->flags; /* not memcmp: padding */
}

void
term_flush(const tl_screen *s, const term_lanes *l)
{
	if (term.sw != s->w || term.sh != s->h) {
		term.shown =
		    xreallocarray(term.shown, (size_t)s->w * (size_t)s->h, sizeof *term.shown);
		term.sw = s->w;
		term.sh = s->h;
		term.full = 1;
	}
	if (term.full)
		clearok(curscr, TRUE);
	term.before = xreallocarray(term.before, (size_t)s->w * (size_t)s->h, sizeof *term.before);
	memcpy(term.before, term.shown, (size_t)s->w * (size_t)s->h * sizeof *term.before);
	for (int y = 0; y < s->h; y++)
		for (int x = 0; x < s->w; x++) {
			size_t i = (size_t)y * (size_t)s->w + (size_t)x;
			scr_cell c = s->cell[i];
			if (!term.full && cell_eq(&c, &term.shown[i]))
				continue;
			term.shown[i] = c;
			if (c.ch == SCR_WIDE_TAIL)
				continue;
			int g = (c.flags & SCR_GLYPH) ? 1 : 0;
			wchar_t wc[2] = {(wchar_t)(c.ch ? c.ch : ' '), 0};
			cchar_t cc;
			setcchar(&cc, wc, term.attr[c.slot][g], term.pair[c.slot][g], NULL);
			mvwadd_wch(stdscr, y, x, &cc);
		}
	wnoutrefresh(stdscr);
	/* a pan by whole columns: shift the lane rows on the terminal, curses sends the rest */
	int k = 0;
	if (!term.full && term.have_last && l->valid && !term.last_help &&
	    l->colw == term.last_colw && l->x == term.last_x && l->y == term.last_y &&
	    l->h == term.last_h && (l->t0 - term.last_t0) % l->colw == 0) {
		int64_t d = (l->t0 - term.last_t0) / l->colw;
		if (d != 0 && d > -l->ncols / 2 && d < l->ncols / 2)
			k = (int)d;
	}
	if (k && hscroll_possible(k) && s->w - l->x > 2 * (k > 0 ? k : -k)) {
		int x0 = l->x, n = s->w - x0, moved = 0;
		/* the ruler and the lane rows; a row is shifted when that leaves less to send */
		for (int y = 0; y < l->y + l->h && y < s->h; y++) {
			const scr_cell *now = &s->cell[(size_t)y * (size_t)s->w + (size_t)x0];
			const scr_cell *was = &term.before[(size_t)y * (size_t)s->w + (size_t)x0];
			int wide = 0, cost_same = 0, cost_shift = 12, run_same = 0, run_shift = 0;
			for (int i = 0; i < n; i++) {
				wide |= now[i].ch == SCR_WIDE_TAIL || was[i].ch == SCR_WIDE_TAIL;
				/* a run of changed cells costs a cursor move and colours, then a
				 * few bytes per cell */
				int d = !cell_eq(&now[i], &was[i]);
				cost_same += d ? (run_same ? 3 : 24) : 0;
				run_same = d;
				int j = i + k;
				int ds = j < 0 || j >= n || !cell_eq(&now[i], &was[j]);
				cost_shift += ds ? (run_shift ? 3 : 24) : 0;
				run_shift = ds;
			}
			if (!wide && cost_shift < cost_same) {
				hscroll_row(y, x0, k);
				moved = 1;
			}
		}
		if (moved)
			hscroll_done();
	}
	term.last_t0 = l->t0;
	term.last_colw = l->colw;
	term.last_x = l->x;
	term.last_y = l->y;
	term.last_h = l->h;
	term.last_help = !l->valid; /* another view had the screen */
	term.have_last = 1;
	term.full = 0;
	doupdate();
}

long
term_bytes_out(void)
{
	if (!term.counting)
		return -1;
	struct stat st;
	if (fstat(fileno(term.out), &st) != 0)
		return -1;
	return (long)st.st_size;
}

/* ---- input --------------------------------------------------------------------------------- */

/* Whether the terminal went away (the SSH connection closed, the other side of the pty shut):
 * its descriptors report a hang-up or an error. */
static int
terminal_gone(void)
{
	struct pollfd p[2] = {{.fd = fileno(term.in), .events = POLLIN},
	                      {.fd = fileno(term.out), .events = POLLOUT}};
	if (poll(p, 2, 0) < 0)
		return 0;
	for (int i = 0; i < 2; i++)
		if (p[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			return 1;
	return 0;
}

/* After ESC [: an SGR mouse report "< b ; x ; y M" (press, motion) or "m" (release), x and y
 * from 1. Returns 1 and fills *tm; 0 when the next key is not '<' (given back, so ESC [ stays
 * Alt-[) or the report is cut short. */
static int
sgr_mouse_read(term_mouse *tm)
{
	wint_t c;
	if (wget_wch(stdscr, &c) != OK)
		return 0;
	if (c != '<') {
		unget_wch((wchar_t)c);
		return 0;
	}
	long v[3] = {0, 0, 0};
	int field = 0, final = 0;
	for (int n = 0; n < 24; n++) {
		if (wget_wch(stdscr, &c) != OK)
			return 0;
		if (c >= '0' && c <= '9' && v[field] < 100000)
			v[field] = v[field] * 10 + (long)(c - '0');
		else if (c == ';' && field < 2)
			field++;
		else if ((c == 'M' || c == 'm') && field == 2) {
			final = (int)c;
			break;
		} else
			return 0;
	}
	if (!final || v[1] < 1 || v[2] < 1)
		return 0;
	long b = v[0];
	*tm = (term_mouse){.x = (int)v[1] - 1, .y = (int)v[2] - 1};
	if (b & 64) /* the wheel: 64 up, 65 down */
		tm->wheel = (b & 1) ? -1 : 1;
	else if (final == 'm')
		tm->release = (b & 3) == 0;
	else if (b & 32) /* motion, with the button held (32) or none (35) */
		tm->motion = 1;
	else
		tm->press = (b & 3) == 0;
	return 1;
}

/* One key from the terminal, or -1 on timeout / nothing (term.lost set when the terminal has
 * gone: a read then fails at once, forever, and SIGHUP may be ignored or blocked, as under
 * nohup). */
static int
read_key(tl_screen *scr, term_mouse *tm, int *ev)
{
	wint_t wc;
	int64_t t0 = timefmt_mono_ns();
	int r = wget_wch(stdscr, &wc);
	*ev = TERM_NONE;
	if (r == ERR) {
		/* a timeout waits 250 ms; a dead terminal returns at once */
		term.fast_err = timefmt_mono_ns() - t0 < 2000000 ? term.fast_err + 1 : 0;
		if (terminal_gone() || term.fast_err > 100)
			term.lost = 1;
		return -1;
	}
	term.fast_err = 0;
	if (r == KEY_CODE_YES) {
		if (wc == KEY_MOUSE) {
			MEVENT m;
			if (getmouse(&m) == OK) {
				*tm = (term_mouse){
				    .x = m.x,
				    .y = m.y,
				    .wheel = (m.bstate & BUTTON4_PRESSED) ? 1
#ifdef BUTTON5_PRESSED
				             : (m.bstate & BUTTON5_PRESSED) ? -1
#endif
				                                            : 0,
				    .press = (m.bstate & BUTTON1_PRESSED) != 0,
				    .motion = (m.bstate & REPORT_MOUSE_POSITION) != 0,
				    .release =
				        (m.bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED)) != 0,
				};
				*ev = TERM_MOUSE;
			}
			return -1;
		}
		if (wc == KEY_RESIZE) {
			int rows, cols;
			getmaxyx(stdscr, rows, cols);
			screen_resize(scr, cols, rows);
			term.full = 1;
			*ev = TERM_RESIZE;
			return -1;
		}
		*ev = TERM_KEY;
		return TLK_FN((int)wc);
	}
	if (wc == TLK_ESC) { /* Alt/Meta sends ESC and the key */
		wtimeout(stdscr, 30);
		wint_t w2;
		int r2 = wget_wch(stdscr, &w2);
		if (r2 == OK && w2 == '[' && sgr_mouse_on && sgr_mouse_read(tm)) {
			wtimeout(stdscr, 250);
			*ev = TERM_MOUSE;
			return -1;
		}
		wtimeout(stdscr, 250);
		*ev = TERM_KEY;
		if (r2 == OK && w2 != TLK_ESC)
			return (int)w2 | TLK_META;
		return TLK_ESC;
	}
	*ev = TERM_KEY;
	return (int)wc;
}

int
term_read(tl_screen *scr, int *key, term_mouse *m)
{
	int ev;
	*key = read_key(scr, m, &ev);
	return ev;
}

/* ---- the terminal -------------------------------------------------------------------------- */

int
term_open(const tl_theme *theme, int want_cols, int want_rows, tl_screen *scr)
{
	memset(&term, 0, sizeof term);
	if (want_cols > 0 && want_rows > 0) {
		/* TL_SCRIPT_OUT keeps what a terminal would have received (debugging) */
		const char *keep = getenv("TL_SCRIPT_OUT");
		term.out = keep && *keep ? fopen(keep, "w+") : tmpfile();
		term.in = fopen("/dev/null", "r");
		if (term.out == NULL || term.in == NULL) {
			fprintf(stderr, "tl: cannot open a scratch file for script mode: %s\n",
			        strerror(errno));
			return -1;
		}
		term.counting = 1;
		const char *names[] = {getenv("TL_SCRIPT_TERM"),
		                       getenv("TERM"),
		                       "xterm-256color",
		                       "xterm",
		                       "vt100",
		                       "ansi"};
		for (size_t i = 0; i < sizeof names / sizeof *names && term.screen == NULL; i++)
			if (names[i] && *names[i] && strcmp(names[i], "dumb") != 0)
				term.screen = newterm(names[i], term.out, term.in);
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			fprintf(stderr,
			        "tl: view needs a terminal (or --script FILE --size COLSxROWS)\n");
			return -1;
		}
		term.out = stdout;
		term.in = stdin;
		term.screen = newterm(NULL, stdout, stdin);
	}
	if (term.screen == NULL) {
		fprintf(stderr, "tl: cannot set up the terminal (TERM=%s)\n",
		        getenv("TERM") ? getenv("TERM") : "");
		return -1;
	}
	set_term(term.screen);
	curses_active = 1;
	signals_install();
	raw();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	wtimeout(stdscr, 250);
	curs_set(0);
	set_escdelay(25);
	const char *nc = getenv("NO_COLOR");
	term.colors = 0;
	if (has_colors() && !(nc && *nc)) {
		start_color();
		if (use_default_colors() != OK)
			assume_default_colors(COLOR_WHITE, COLOR_BLACK);
		term.colors = COLORS >= 256 ? 256 : 8;
	}
	if (!term.counting) {
		mouseinterval(0);
		mousemask(ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION, NULL);
		/* where curses itself asks for X10 reports, ask for SGR ones too and read them in
		 * read_key (SGR: any column, and a release that names its button) */
		const char *km = tigetstr("kmous");
		if (km == NULL || km == (char *)-1 || strcmp(km, "\033[<") != 0) {
			sgr_mouse_out = term.out;
			fputs(SGR_MOUSE_ON, term.out);
			fflush(term.out);
			sgr_mouse_on = 1;
		}
	}
	term_styles(theme);
	int rows, cols;
	if (term.counting) {
		resizeterm(want_rows, want_cols);
		rows = want_rows;
		cols = want_cols;
	} else {
		getmaxyx(stdscr, rows, cols);
	}
	screen_resize(scr, cols, rows);
	return 0;
}

void
term_close(void)
{
	terminal_restore();
	if (term.screen) {
		delscreen(term.screen);
		term.screen = NULL;
	}
	if (term.counting) {
		fclose(term.out);
		fclose(term.in);
	}
	free(term.shown);
	free(term.before);
	term.shown = term.before = NULL;
}

int64_t
term_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

long
term_minflt(void)
{
	struct rusage ru;
#ifdef RUSAGE_THREAD
	if (getrusage(RUSAGE_THREAD, &ru) == 0) /* the viewer's own thread, not the populate's */
		return ru.ru_minflt;
#endif
	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

void
term_redraw(void)
{
	term.full = 1;
}

void
term_resize(tl_screen *scr, int cols, int rows)
{
	resizeterm(rows, cols);
	screen_resize(scr, cols, rows);
	term.full = 1;
}

int
term_signal(void)
{
	return got_signal;
}

int
term_lost(void)
{
	return term.lost;
}
