/* The terminal and the main loop. One path for interactive and script use: views draw into
 * the cell grid (screen.c), the grid is flushed to curses, and curses writes to the terminal,
 * or, in script mode with --size, to an unlinked file whose growth is the bytes a terminal
 * would have received. Input comes from the keyboard and mouse, or from the script. */
#include "config.h"
#include "analysis/lanes.h"
#include "ui/hscroll.h"
#include "ui/rl.h"
#include "ui/script.h"
#include "ui/ui.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- terminal state (one terminal per process) --------------------------------------------- */

static volatile sig_atomic_t got_signal;
static volatile sig_atomic_t curses_active;

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

static void
styles_setup(const tl_theme *t)
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

static void
flush_screen(tl_ui *ui)
{
	tl_screen *s = &ui->scr;
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
	if (!term.full && term.have_last && !ui->help && !ui->panel && !term.last_help &&
	    ui->colw == term.last_colw && ui->lanes_x == term.last_x &&
	    ui->lanes_y == term.last_y && ui->lanes_h == term.last_h &&
	    (ui->t0 - term.last_t0) % ui->colw == 0) {
		int64_t d = (ui->t0 - term.last_t0) / ui->colw;
		if (d != 0 && d > -ui->ncols / 2 && d < ui->ncols / 2)
			k = (int)d;
	}
	if (k && hscroll_possible(k) && s->w - ui->lanes_x > 2 * (k > 0 ? k : -k)) {
		int x0 = ui->lanes_x, n = s->w - x0, moved = 0;
		/* the ruler and the lane rows; a row is shifted when that leaves less to send */
		for (int y = 0; y < ui->lanes_y + ui->lanes_h && y < s->h; y++) {
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
	term.last_t0 = ui->t0;
	term.last_colw = ui->colw;
	term.last_x = ui->lanes_x;
	term.last_y = ui->lanes_y;
	term.last_h = ui->lanes_h;
	term.last_help = ui->help || ui->panel != NULL;
	term.have_last = 1;
	term.full = 0;
	doupdate();
}

static long
bytes_out(void)
{
	if (!term.counting)
		return -1;
	struct stat st;
	if (fstat(fileno(term.out), &st) != 0)
		return -1;
	return (long)st.st_size;
}

/* ---- helpers for the views ----------------------------------------------------------------- */

void
ui_message(tl_ui *ui, int error, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ui->msg, sizeof ui->msg, fmt, ap);
	va_end(ap);
	ui->msg_err = error;
}

char *
ui_time(const tl_ui *ui, int64_t t, char *buf, size_t len)
{
	if (ui->abstime) {
		char full[64];
		timefmt_epoch(t, full, sizeof full);
		snprintf(buf, len, "%s", full + 11); /* hh:mm:ss.nnnnnnnnn */
		return buf;
	}
	char d[40];
	timefmt_dur(t - ui->origin, d, sizeof d);
	snprintf(buf, len, "%s", d);
	/* "12.5 ms" -> "12.5ms": the status line is short of room */
	char *sp = strchr(buf, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));
	return buf;
}

char *
ui_clean(const tl_ui *ui, const char *s, char *buf, size_t len)
{
	return text_sanitize(s ? s : "", buf, len, ui->utf8);
}

/* ---- the prompt ---------------------------------------------------------------------------- */

void
ui_prompt_start(tl_ui *ui, char ch, const char *text)
{
	ui->prompt = 1;
	ui->prompt_ch = ch;
	snprintf(ui->pbuf, sizeof ui->pbuf, "%s", text);
	ui->plen = strlen(ui->pbuf);
	ui->hpos = ui->nhist;
	ui->msg[0] = '\0';
}

static void
history_add(tl_ui *ui, char ch, const char *text)
{
	if (*text == '\0')
		return;
	char *e = xasprintf("%c%s", ch, text);
	if (ui->nhist && strcmp(ui->hist[ui->nhist - 1], e) == 0) {
		free(e);
		return;
	}
	if (ui->nhist == 200) { /* bounded */
		free(ui->hist[0]);
		memmove(ui->hist, ui->hist + 1, (ui->nhist - 1) * sizeof *ui->hist);
		ui->nhist--;
	}
	VEC_PUSH(ui->hist, ui->nhist, ui->hcap, e);
}

static void
history_move(tl_ui *ui, int dir)
{
	size_t p = ui->hpos;
	for (;;) {
		if (dir < 0) {
			if (p == 0)
				return;
			p--;
		} else {
			if (p >= ui->nhist)
				return;
			p++;
			if (p == ui->nhist) {
				ui->hpos = p;
				ui->pbuf[0] = '\0';
				ui->plen = 0;
				return;
			}
		}
		if (ui->hist[p][0] == ui->prompt_ch)
			break;
	}
	ui->hpos = p;
	snprintf(ui->pbuf, sizeof ui->pbuf, "%s", ui->hist[p] + 1);
	ui->plen = strlen(ui->pbuf);
}

static const char *const command_names[] = {"goto",       "search", "zoom",    "mark",
                                            "rank",       "theme",  "keymap",  "dump",
                                            "dump-attrs", "quit",   "bubbles", "resize"};

static void
complete(tl_ui *ui)
{
	if (ui->prompt_ch != ':' || strchr(ui->pbuf, ' '))
		return;
	const char *only = NULL;
	int n = 0;
	char list[400] = "";
	size_t off = 0;
	for (int i = 0; i < ACT__COUNT + (int)(sizeof command_names / sizeof *command_names); i++) {
		const char *c =
		    i < ACT__COUNT ? action_table[i].name : command_names[i - ACT__COUNT];
		if (strncmp(c, ui->pbuf, ui->plen) != 0)
			continue;
		only = c;
		n++;
		if (off < sizeof list - 1)
			off += (size_t)snprintf(list + off, sizeof list - off, "%s ", c);
	}
	if (n == 1) {
		snprintf(ui->pbuf, sizeof ui->pbuf, "%s ", only);
		ui->plen = strlen(ui->pbuf);
	} else if (n > 1) {
		ui_message(ui, 0, "%s", list);
	}
}

static void
prompt_key(tl_ui *ui, int key)
{
	switch (key) {
	case TLK_ENTER: {
		char line[sizeof ui->pbuf];
		snprintf(line, sizeof line, "%s", ui->pbuf);
		char ch = ui->prompt_ch;
		ui->prompt = 0;
		history_add(ui, ch, line);
		if (ch == '/')
			timeline_search(ui, line);
		else
			ui_command(ui, line);
		return;
	}
	case TLK_ESC:
	case 3: /* C-c */
	case 7: /* C-g */
		ui->prompt = 0;
		return;
	case TLK_BACKSPACE:
		if (ui->plen == 0) {
			ui->prompt = 0;
			return;
		}
		do
			ui->plen--;
		while (ui->plen > 0 && ((unsigned char)ui->pbuf[ui->plen] & 0xC0) == 0x80);
		ui->pbuf[ui->plen] = '\0';
		return;
	case 21: /* C-u */
		ui->plen = 0;
		ui->pbuf[0] = '\0';
		return;
	case TLK_TAB:
		complete(ui);
		return;
	case TLK_FN(KEY_UP):
		history_move(ui, -1);
		return;
	case TLK_FN(KEY_DOWN):
		history_move(ui, 1);
		return;
	default:
		break;
	}
	if (key < 0x20 || key >= 0x110000 || key == 0x7f)
		return;
	char u[4];
	int n = text_utf8_encode((unsigned)key, u);
	if (ui->plen + (size_t)n + 1 >= sizeof ui->pbuf)
		return;
	memcpy(ui->pbuf + ui->plen, u, (size_t)n);
	ui->plen += (size_t)n;
	ui->pbuf[ui->plen] = '\0';
}

/* ---- actions and commands ------------------------------------------------------------------ */

static void
run_action(tl_ui *ui, int a)
{
	ui->msg[0] = '\0';
	if (ui->help && help_view.action(ui, a))
		return;
	if (!ui->help && ui->panel && ui->panel->action(ui, a)) /* the DP panel, the PP view */
		return;
	switch (a) {
	case ACT_QUIT:
		ui->quit = 1;
		return;
	case ACT_HELP:
		ui->help = 1;
		ui->help_scroll = 0;
		return;
	case ACT_COMMAND:
		ui_prompt_start(ui, ':', "");
		return;
	case ACT_REDRAW:
		term.full = 1;
		return;
	case ACT_DP_PANEL:
	case ACT_PP_VIEW:
		ui_rl_open_panel(ui, a);
		return;
	default:
		timeline_view.action(ui, a);
	}
}

static int
parse_time(tl_ui *ui, const char *s, int64_t *out)
{
	while (*s == ' ')
		s++;
	int rel = *s == '+' || *s == '-';
	int64_t v;
	if (timefmt_parse(s, 1000000 /* bare numbers are ms */, &v) != 0)
		return -1;
	*out = rel ? ui->cursor + v : ui->origin + v;
	return 0;
}

static int
dump_to(tl_ui *ui, const char *path, int attrs)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		ui_message(ui, 1, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	if (attrs)
		screen_dump_attrs(&ui->scr, f);
	else
		screen_dump_text(&ui->scr, f);
	if (fclose(f) != 0) {
		ui_message(ui, 1, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
apply_size(tl_ui *ui, int cols, int rows)
{
	resizeterm(rows, cols);
	screen_resize(&ui->scr, cols, rows);
	timeline_view.resize(ui);
	term.full = 1;
}

int
ui_command(tl_ui *ui, const char *line)
{
	char cmd[64], arg[512];
	while (*line == ' ')
		line++;
	size_t n = strcspn(line, " ");
	snprintf(cmd, sizeof cmd, "%.*s", (int)(n < sizeof cmd ? n : sizeof cmd - 1), line);
	const char *rest = line + n;
	while (*rest == ' ')
		rest++;
	snprintf(arg, sizeof arg, "%s", rest);
	size_t al = strlen(arg);
	while (al && arg[al - 1] == ' ')
		arg[--al] = '\0';
	int64_t a, b;
	char err[512];

	if (cmd[0] == '\0')
		return 0;
	if (strcmp(cmd, "q") == 0 || strcmp(cmd, "quit") == 0 || strcmp(cmd, "q!") == 0) {
		ui->quit = 1;
		return 0;
	}
	if (strcmp(cmd, "goto") == 0 || strcmp(cmd, "g") == 0) {
		if (parse_time(ui, arg, &a) != 0) {
			ui_message(ui, 1, "goto: give a time such as 12.5ms, 3s, 250us or +2ms");
			return -1;
		}
		timeline_goto(ui, a);
		return 0;
	}
	if (strcmp(cmd, "search") == 0)
		return timeline_search(ui, arg);
	if (cmd[0] == '/')
		return timeline_search(ui, line + 1);
	if (strcmp(cmd, "zoom") == 0 || strcmp(cmd, "mark") == 0) {
		char *sp = strchr(arg, ' ');
		if (sp == NULL) {
			ui_message(ui, 1, "%s: give two times, e.g. :%s 10ms 20ms", cmd, cmd);
			return -1;
		}
		*sp = '\0';
		if (parse_time(ui, arg, &a) != 0 || parse_time(ui, sp + 1, &b) != 0 || b <= a) {
			ui_message(ui, 1, "%s: give two increasing times, e.g. :%s 10ms 20ms", cmd,
			           cmd);
			return -1;
		}
		if (cmd[0] == 'z') {
			timeline_show_range(ui, a, b);
		} else {
			ui->mark[0] = a;
			ui->mark[1] = b;
			ui->nmark = 2;
			ui->detail = 1;
			ui->detail_scroll = 0;
		}
		return 0;
	}
	if (strcmp(cmd, "rank") == 0) {
		char *end;
		long r = strtol(arg, &end, 10);
		for (size_t ri = 0; *arg && *end == '\0' && ri < ui->tr->nranks; ri++)
			if (ui->tr->ranks[ri]->rank == r && timeline_goto_rank(ui, ri) == 0)
				return 0;
		ui_message(ui, 1, "rank: no rank '%s' loaded", arg);
		return -1;
	}
	if (strcmp(cmd, "theme") == 0) {
		tl_theme t;
		int rc = theme_load(&t, *arg ? arg : NULL, err, sizeof err);
		if (rc == -2) {
			ui_message(ui, 1, "%s", err);
			return -1;
		}
		ui->theme = t;
		styles_setup(&ui->theme);
		if (rc != 0)
			ui_message(ui, 1, "%s", err);
		return rc;
	}
	if (strcmp(cmd, "keymap") == 0) {
		tl_keymap k;
		int rc = keymap_load(&k, *arg ? arg : NULL, err, sizeof err);
		if (rc == -2) {
			keymap_free(&k);
			ui_message(ui, 1, "%s", err);
			return -1;
		}
		keymap_free(&ui->keys);
		ui->keys = k;
		if (rc != 0)
			ui_message(ui, 1, "%s", err);
		return rc;
	}
	if (strcmp(cmd, "dump") == 0 || strcmp(cmd, "dump-attrs") == 0) {
		if (*arg == '\0') {
			ui_message(ui, 1, "%s: give a file name", cmd);
			return -1;
		}
		return dump_to(ui, arg, cmd[4] == '-');
	}
	if (strcmp(cmd, "bubbles") == 0) {
		int want = strcmp(arg, "off") != 0;
		if (want != ui->bubbles)
			run_action(ui, ACT_TOGGLE_BUBBLES);
		return 0;
	}
	if (strcmp(cmd, "resize") == 0) {
		int c, r;
		if (sscanf(arg, "%dx%d", &c, &r) != 2 || c < 1 || r < 1 || c > 1000 || r > 1000) {
			ui_message(ui, 1, "resize: give COLSxROWS");
			return -1;
		}
		apply_size(ui, c, r);
		return 0;
	}
	int act = action_by_name(cmd);
	if (act != ACT_NONE) {
		run_action(ui, act);
		return 0;
	}
	char c[80];
	ui_message(ui, 1, "Unknown command '%s' (? lists actions and commands)",
	           ui_clean(ui, cmd, c, sizeof c));
	return -1;
}

static void
handle_key(tl_ui *ui, int key)
{
	key = key_normalize(key);
	if (ui->prompt) {
		prompt_key(ui, key);
		return;
	}
	int a = keymap_action(&ui->keys, key);
	if (a == ACT_NONE) {
		char kn[48], hk[64];
		keymap_keys_text(&ui->keys, ACT_HELP, hk, sizeof hk);
		ui_message(ui, 0, "%s is not bound (%s lists the keys)",
		           key_to_name(key, kn, sizeof kn), hk);
		return;
	}
	run_action(ui, a);
}

/* ---- drawing a frame ----------------------------------------------------------------------- */

static void
draw_message_line(tl_ui *ui, int y)
{
	tl_screen *s = &ui->scr;
	screen_fill(s, 0, y, s->w, ' ', SLOT_MESSAGE);
	if (ui->prompt) {
		char clean[600];
		screen_put(s, 0, y, (uint32_t)ui->prompt_ch, SLOT_MESSAGE, 0);
		ui_clean(ui, ui->pbuf, clean, sizeof clean);
		int w = screen_text_width(s, clean);
		/* show the end of a long line */
		const char *p = clean;
		while (w > s->w - 2 && *p) {
			unsigned cp;
			int k = text_utf8_decode(p, strlen(p), &cp);
			p += k;
			w = screen_text_width(s, p);
		}
		int used = screen_text(s, 1, y, s->w - 2, p, SLOT_MESSAGE);
		screen_put(s, 1 + used, y, ' ', SLOT_CURSOR, 0);
		return;
	}
	if (ui->msg[0]) {
		char clean[600];
		ui_clean(ui, ui->msg, clean, sizeof clean);
		screen_text(s, 0, y, s->w, clean, ui->msg_err ? SLOT_ERROR : SLOT_MESSAGE);
		return;
	}
	char h[48], sr[48], b[48], q[48];
	keymap_keys_text(&ui->keys, ACT_HELP, h, sizeof h);
	keymap_keys_text(&ui->keys, ACT_SEARCH, sr, sizeof sr);
	keymap_keys_text(&ui->keys, ACT_TOGGLE_BUBBLES, b, sizeof b);
	keymap_keys_text(&ui->keys, ACT_QUIT, q, sizeof q);
	screen_printf(s, 0, y, s->w, SLOT_MESSAGE,
	              "%s help  %s search  %s bubbles  %s quit  (%zu ranks)",
	              strtok(h, " ") ? h : "?", sr, b, strtok(q, " ") ? q : "q", ui->tr->nranks);
}

static void
draw_frame(tl_ui *ui)
{
	tl_screen *s = &ui->scr;
	screen_clear(s, SLOT_NORMAL);
	int w = s->w, h = s->h;
	if (w < 40 || h < 10) {
		timeline_view.draw(ui, 0, 0, w, h);
		return;
	}
	timeline_layout(ui, w, h);
	if (ui->help) {
		help_view.draw(ui, 0, 0, w, h - 1);
		draw_message_line(ui, h - 1);
		return;
	}
	if (ui->panel) {
		ui->panel->draw(ui, 0, 0, w, h - 1);
		draw_message_line(ui, h - 1);
		return;
	}
	timeline_view.draw(ui, 0, 0, w, h - 2);
	if (ui->detail) {
		int dh = detail_height(ui, h);
		detail_view.draw(ui, 0, h - 2 - dh, w, dh);
	}
	timeline_status(ui, h - 2);
	draw_message_line(ui, h - 1);
}

/* ---- input --------------------------------------------------------------------------------- */

static void
mouse_event(tl_ui *ui, const MEVENT *m)
{
	int in_lanes = m->x >= ui->lanes_x && m->x < ui->lanes_x + ui->ncols;
	int64_t t = timeline_col_time(ui, m->x - ui->lanes_x) + ui->colw / 2;
	if (m->bstate & (BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	                 | BUTTON5_PRESSED
#endif
	                 )) {
		if (in_lanes && !ui->help)
			ui->cursor = t;
		handle_key(ui, (m->bstate & BUTTON4_PRESSED) ? TLK_WHEEL_UP : TLK_WHEEL_DOWN);
		return;
	}
	if (ui->help || ui->prompt)
		return;
	if (m->bstate & BUTTON1_PRESSED) {
		ui->drag = 1;
		ui->drag_x = m->x;
		ui->drag_moved = 0;
		return;
	}
	if ((m->bstate & REPORT_MOUSE_POSITION) && ui->drag) {
		int dx = m->x - ui->drag_x;
		for (int i = 0; i < (dx < 0 ? -dx : dx); i++)
			timeline_view.action(ui, dx > 0 ? ACT_PAN_LEFT : ACT_PAN_RIGHT);
		if (dx)
			ui->drag_moved = 1;
		ui->drag_x = m->x;
		return;
	}
	if (m->bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED)) {
		int was_drag = ui->drag && ui->drag_moved;
		if (ui->drag && m->x != ui->drag_x) { /* a drag without motion reports */
			int dx = m->x - ui->drag_x;
			for (int i = 0; i < (dx < 0 ? -dx : dx); i++)
				timeline_view.action(ui, dx > 0 ? ACT_PAN_LEFT : ACT_PAN_RIGHT);
			was_drag = 1;
		}
		ui->drag = 0;
		if (was_drag)
			return;
		if (m->y == 0 && in_lanes) {
			ui->cursor = t;
			return;
		}
		size_t l = timeline_lane_at_row(ui, m->y);
		if (l == SIZE_MAX)
			return;
		ui->lane = l;
		if (in_lanes) {
			ui->cursor = t;
			if (ui->lanes[l].type != UL_HEADER)
				run_action(ui, ACT_SELECT);
		} else if (ui->lanes[l].type == UL_HEADER) {
			run_action(ui, ACT_TOGGLE_RANK);
		}
	}
}

static int64_t mono_ns(void);

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

/* One key from the terminal, or -1 on timeout / nothing (term.lost set when the terminal has
 * gone: a read then fails at once, forever, and SIGHUP may be ignored or blocked, as under
 * nohup). */
static int
read_key(tl_ui *ui)
{
	wint_t wc;
	int64_t t0 = mono_ns();
	int r = wget_wch(stdscr, &wc);
	if (r == ERR) {
		/* a timeout waits 250 ms; a dead terminal returns at once */
		term.fast_err = mono_ns() - t0 < 2000000 ? term.fast_err + 1 : 0;
		if (terminal_gone() || term.fast_err > 100)
			term.lost = 1;
		return -1;
	}
	term.fast_err = 0;
	if (r == KEY_CODE_YES) {
		if (wc == KEY_MOUSE) {
			MEVENT m;
			if (getmouse(&m) == OK)
				mouse_event(ui, &m);
			return -1;
		}
		if (wc == KEY_RESIZE) {
			int rows, cols;
			getmaxyx(stdscr, rows, cols);
			screen_resize(&ui->scr, cols, rows);
			timeline_view.resize(ui);
			term.full = 1;
			return -1;
		}
		return TLK_FN((int)wc);
	}
	if (wc == TLK_ESC) { /* Alt/Meta sends ESC and the key */
		wtimeout(stdscr, 30);
		wint_t w2;
		int r2 = wget_wch(stdscr, &w2);
		wtimeout(stdscr, 250);
		if (r2 == OK && w2 != TLK_ESC)
			return (int)w2 | TLK_META;
		return TLK_ESC;
	}
	return (int)wc;
}

/* ---- the terminal -------------------------------------------------------------------------- */

static int
terminal_open(tl_ui *ui, const tl_ui_opts *o)
{
	memset(&term, 0, sizeof term);
	if (o->cols > 0 && o->rows > 0) {
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
	}
	styles_setup(&ui->theme);
	int rows, cols;
	if (term.counting) {
		resizeterm(o->rows, o->cols);
		rows = o->rows;
		cols = o->cols;
	} else {
		getmaxyx(stdscr, rows, cols);
	}
	screen_resize(&ui->scr, cols, rows);
	return 0;
}

static void
terminal_close(void)
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

static int64_t
cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t
mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- main ---------------------------------------------------------------------------------- */

typedef struct frame_stat {
	int64_t cpu;
	long bytes;
	int action;
} frame_stat;

int
ui_main(tl_trace *tr, const tl_ui_opts *o)
{
	tl_ui *ui = xcalloc(1, sizeof *ui);
	ui->tr = tr;
	const char *cs = nl_langinfo(CODESET);
	ui->utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	ui->scr.utf8 = ui->utf8;
	char err[600], warn[600] = "";
	int rc = theme_load(&ui->theme, o->theme, err, sizeof err);
	if (rc == -2) {
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
		free(ui);
		return 1;
	}
	if (rc != 0)
		snprintf(warn, sizeof warn, "%s", err);
	rc = keymap_load(&ui->keys, o->keymap, err, sizeof err);
	if (rc == -2) {
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
		keymap_free(&ui->keys);
		free(ui);
		return 1;
	}
	if (rc != 0 && !warn[0])
		snprintf(warn, sizeof warn, "%s", err);
	tl_script script = {0};
	if (o->script && script_open(&script, o->script) != 0) {
		keymap_free(&ui->keys);
		free(ui);
		return 1;
	}
	lanes_build(tr, 0); /* the overlap lanes, on demand when the viewer opens */
	ui_rl_init(ui);     /* the RL stage lanes, and the DP / PP panels' context */
	timeline_init(ui);
	if (terminal_open(ui, o) != 0) {
		terminal_close();
		script_close(&script);
		ui_rl_done(ui);
		timeline_free(ui);
		keymap_free(&ui->keys);
		free(ui);
		return 1;
	}
	timeline_layout(ui, ui->scr.w, ui->scr.h);
	timeline_fit(ui);
	if (warn[0])
		ui_message(ui, 1, "%s", warn);

	frame_stat *fs = NULL;
	size_t nfs = 0, fcap = 0;
	int64_t first_frame = 0;
	int last_action = ACT_NONE;
	int64_t c0 = cpu_ns();
	long b0 = bytes_out();
	script_step step;
	while (!ui->quit) {
		draw_frame(ui);
		flush_screen(ui);
		if (o->stats_file) {
			frame_stat f = {cpu_ns() - c0, b0 >= 0 ? bytes_out() - b0 : -1,
			                last_action};
			if (first_frame == 0)
				first_frame = mono_ns();
			VEC_PUSH(fs, nfs, fcap, f);
		}
		if (got_signal)
			break;
		/* the next input */
		if (o->script) {
			if (!script_next(&script, &step))
				break;
			c0 = cpu_ns();
			b0 = bytes_out();
			if (step.is_cmd) {
				last_action = -2;
				if (ui_command(ui, step.text) != 0) {
					msg_error("%s:%d: %s", script.path, script.lineno,
					          ui->msg);
					script.errors++;
				}
			} else {
				last_action =
				    step.nkeys == 1
				        ? keymap_action(&ui->keys, key_normalize(step.keys[0]))
				        : -3;
				for (int i = 0; i < step.nkeys && !ui->quit; i++)
					handle_key(ui, step.keys[i]);
			}
		} else {
			int key = read_key(ui);
			c0 = cpu_ns();
			b0 = bytes_out();
			if (key >= 0) {
				last_action = keymap_action(&ui->keys, key_normalize(key));
				handle_key(ui, key);
			} else {
				last_action = ACT_NONE;
				if (got_signal || term.lost)
					break;
			}
		}
	}
	int sig = got_signal, lost = term.lost;
	terminal_close();
	if (lost && !sig)
		fprintf(stderr, "tl: the terminal went away (hang-up or I/O error); exiting\n");
	if (o->stats_file) {
		FILE *f = fopen(o->stats_file, "w");
		if (f) {
			fprintf(f, "# frame cpu_ns bytes action\n");
			fprintf(f, "first_frame_ms %.3f\n",
			        o->start_mono_ns ? (double)(first_frame - o->start_mono_ns) / 1e6
			                         : 0.0);
			for (size_t i = 0; i < nfs; i++)
				fprintf(f, "frame %zu %lld %ld %s\n", i, (long long)fs[i].cpu,
				        fs[i].bytes,
				        fs[i].action >= 0    ? action_table[fs[i].action].name
				        : fs[i].action == -2 ? ":command"
				        : fs[i].action == -3 ? "text"
				                             : "-");
			fclose(f);
		} else {
			fprintf(stderr, "tl: cannot write %s: %s\n", o->stats_file,
			        strerror(errno));
		}
	}
	free(fs);
	int status = script.errors || lost ? 1 : 0;
	script_close(&script);
	timeline_view.done(ui);
	detail_view.done(ui);
	ui_rl_done(ui);
	for (size_t i = 0; i < ui->nhist; i++)
		free(ui->hist[i]);
	free(ui->hist);
	keymap_free(&ui->keys);
	screen_free(&ui->scr);
	free(ui);
	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return status;
}

int
ui_keys(FILE *f, const char *keymap, int roff)
{
	tl_keymap km;
	char err[512];
	int rc = keymap_load(&km, keymap, err, sizeof err);
	if (rc == -2) {
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
		keymap_free(&km);
		return 1;
	}
	if (rc != 0)
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
	keymap_write_list(&km, f, roff);
	keymap_free(&km);
	return 0;
}
