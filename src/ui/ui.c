/* The viewer's main loop: one path for interactive and script use. Views draw into the cell
 * grid (screen.c), the grid is flushed to the terminal (term.c); input comes from the keyboard
 * and mouse, or from the script, and goes to the prompt (prompt.c), the view stack (views.c) or
 * the :-commands (commands.c). */
#include "config.h"
#include "query/findings.h"
#include "query/prefault.h"
#include "store/prefault.h"
#include "ui/compare.h"
#include "ui/commands.h"
#include "ui/common.h"
#include "ui/script.h"
#include "ui/term.h"
#include "ui/timeline.h"
#include "ui/ui.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <errno.h>
#include <langinfo.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- progressive loading ------------------------------------------------------------------- */

/* The message line while loading: how many ranks are in, and each rank being read. */
static void
draw_loading_line(tl_ui *ui, int y, size_t done, size_t total)
{
	tl_screen *s = &ui->scr;
	char line[512], q[48];
	keymap_keys_text(&ui->keys, ACT_QUIT, q, sizeof q);
	int n = snprintf(line, sizeof line, "loading… %zu/%zu ranks", done, total);
	for (size_t i = 0; i < total && n < (int)sizeof line - 64; i++) {
		int rank, st;
		uint64_t rows;
		st = tlq_load_rank(ui->q, i, &rank, &rows);
		if (st != TLQ_LOAD_LOADING && st != TLQ_LOAD_HELD)
			continue;
		char rt[32] = "opening";
		if (rows > 0)
			ui_rows_text(rows, rt, sizeof rt);
		if (st == TLQ_LOAD_HELD) /* the test hook holds it */
			n += snprintf(line + n, sizeof line - (size_t)n, " · rank %s waiting",
			              UI_RANK(rank));
		else
			n += snprintf(line + n, sizeof line - (size_t)n, " · rank %s %s",
			              UI_RANK(rank), rt);
	}
	snprintf(line + n, sizeof line - (size_t)n, "  (%s quits)", strtok(q, " ") ? q : "q");
	screen_text(s, 0, y, s->w, line, SLOT_MESSAGE);
}

/* Publishes the ranks finished since the last frame; with wait (script mode, before its next
 * step) first waits until every rank's small tables are in (they get a frame of their own, as
 * they would on a terminal), then until no rank is being read (the test hook's held ranks stay
 * out), so that what a script sees does not depend on the loader's timing. Returns how many
 * ranks came in, plus one when the load ended with this call (*loaded: when). */
static size_t
load_publish(tl_ui *ui, size_t total, int64_t *loaded)
{
	/* a slot whose rank was replaced has other tracks: a selection in it goes */
	const tl_rank *selr = ui->sel.have ? ui->tr->ranks[ui->sel.s.rank] : NULL;
	int renumbered;
	size_t got = tlq_poll(ui->q, &renumbered);
	if (selr != NULL && (renumbered || ui->tr->ranks[ui->sel.s.rank] != selr)) {
		ui->sel.have = 0;
		ui->sel.gen++;
	}
	if (got > 0 || renumbered)
		timeline_ranks_grew(ui, total, renumbered);
	if (tlq_loading(ui->q, NULL, NULL))
		return got;
	*loaded = timefmt_mono_ns();
	if (ui->tr->nranks == 0)
		ui->quit = 1; /* nothing to view: tl says why once the terminal is back */
	else if (!ui->msg[0])
		ui->loaded_note = 1; /* the footer says it, with the panels' keys */
	return got + 1;
}

static size_t
load_poll(tl_ui *ui, int wait, int64_t *loaded)
{
	size_t total;
	if (!tlq_loading(ui->q, NULL, &total))
		return 0;
	if (wait && !ui->small_shown) {
		while (!tlq_load_first_settled(ui->q))
			usleep(2000);
		ui->small_shown = 1;
		size_t got = load_publish(ui, total, loaded);
		if (got > 0)
			return got;
	}
	if (wait)
		while (!tlq_load_settled(ui->q))
			usleep(2000);
	return load_publish(ui, total, loaded);
}

/* Whether no rank is a placeholder any more: each has at least its small tables on screen. */
static int
small_in(const tl_ui *ui)
{
	for (size_t i = 0; i < ui->tr->nranks; i++)
		if (tlq_slot(ui->q, i) == TLQ_SLOT_PENDING)
			return 0;
	return 1;
}

/* ---- input --------------------------------------------------------------------------------- */

static void
handle_key(tl_ui *ui, int key)
{
	key = key_normalize(key);
	if (ui->verdict >= UI_VERDICT_FINDING) /* it was read: the footer names ! from now on */
		ui->verdict = UI_VERDICT_OFF;
	if (ui->prompt.active) {
		char line[sizeof ui->prompt.buf];
		char ch = ui->prompt.ch;
		if (prompt_key(ui, key, line, sizeof line)) {
			if (ch == '/')
				timeline_search(ui, line);
			else
				ui_command(ui, line);
		}
		return;
	}
	const view_ops *front = ui_view_front(ui);
	if (front && front->key && front->key(ui, ui_view_state(ui, front), key)) {
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
	ui_view_action(ui, a);
}

/* The wheel zooms around the pointer (its keys: the keymap's <WheelUp> and <WheelDown>); a
 * click selects, a drag pans: the timeline's, when it has the screen. */
static void
mouse_event(tl_ui *ui, const term_mouse *m)
{
	if (ui->verdict == UI_VERDICT_SHOWN)
		ui->verdict = UI_VERDICT_OFF;
	if (m->wheel) {
		if (ui_view_front(ui) != &help_view)
			timeline_mouse(ui, TM_WHEEL, m->x, m->y);
		handle_key(ui, m->wheel > 0 ? TLK_WHEEL_UP : TLK_WHEEL_DOWN);
		return;
	}
	if (ui_view_front(ui) == &help_view || ui->prompt.active)
		return;
	if (m->press)
		timeline_mouse(ui, TM_PRESS, m->x, m->y);
	else if (m->motion && timeline_mouse(ui, TM_DRAG, m->x, m->y))
		return;
	else if (m->release)
		timeline_mouse(ui, TM_RELEASE, m->x, m->y);
}

/* ---- drawing a frame ----------------------------------------------------------------------- */

/* The message line when it has nothing to say: the triage panels by their keys first (what a
 * first look needs), then search and bubbles, help and quit, and the number of ranks. What does
 * not fit goes, the least needed first; help and quit always stay. When the panels do not all
 * fit (80 columns), their short names are tried first. An action the keymap leaves without a
 * key is not named (help and quit then show their :-command). */
static void
draw_footer(tl_ui *ui, int y)
{
	tl_screen *s = &ui->scr;
	static const struct {
		int action;
		const char *label, *brief; /* the name, and the short one for a narrow line */
		int keep;                  /* the higher, the longer it stays as the line narrows */
	} items[] = {
	    /* the findings first, but left out before the five panels */
	    {ACT_FINDINGS_PANEL, "findings", "findings", 3},
	    {ACT_DP_PANEL, "imbalance", "imbalance", 8},
	    {ACT_SLOW_PANEL, "slow rank", "slow", 7},
	    {ACT_BUBBLE_LARGEST, "worst bubble", "idle", 6},
	    {ACT_OVERVIEW, "overview", "overview", 5},
	    {ACT_PP_VIEW, "pipeline", "pipeline", 4},
	    {ACT_DIFF_PANEL, "changes", "changes", 5},
	    {ACT_SEARCH, "search", "search", 2},
	    {ACT_TOGGLE_BUBBLES, "bubbles", "bubbles", 1},
	    {ACT_HELP, "help", "help", 9},
	    {ACT_QUIT, "quit", "quit", 9},
	};
	enum { N = sizeof items / sizeof *items };
	char text[N + 1][64];
	int keep[N + 1], width[N + 1], n, total;
	for (int brief = 0; brief < 2; brief++) {
		n = total = 0;
		for (int i = 0; i < N; i++) {
			if (items[i].action == ACT_DIFF_PANEL && ui->cmp == NULL)
				continue;
			char k[48];
			keymap_key_hint(&ui->keys, items[i].action, k, sizeof k);
			if (k[0] == ':' && items[i].keep < 9)
				continue; /* unbound */
			snprintf(text[n], sizeof text[n], "%s %s", k,
			         brief ? items[i].brief : items[i].label);
			keep[n] = items[i].keep;
			width[n] = screen_text_width(s, text[n]);
			if (keep[n] >= 3)
				total += width[n] + (n ? 2 : 0);
			n++;
		}
		if (total <= s->w)
			break; /* the panels, help and quit fit */
	}
	total = 0;
	if (ui->loaded_note) { /* the load just ended: first, and kept before search */
		memmove(text[1], text[0], sizeof text[0] * (size_t)n);
		memmove(keep + 1, keep, sizeof *keep * (size_t)n);
		snprintf(text[0], sizeof text[0], "loaded: %zu ranks", ui->tr->nranks);
		keep[0] = 3;
		n++;
	} else {
		snprintf(text[n], sizeof text[n], "(%zu rank%s)", ui->tr->nranks,
		         ui->tr->nranks == 1 ? "" : "s");
		keep[n++] = 0;
	}
	for (int i = 0; i < n; i++) {
		width[i] = screen_text_width(s, text[i]);
		total += width[i] + (i ? 2 : 0);
	}
	/* drop the least needed (the last of equals first) until the line fits */
	while (total > s->w) {
		int drop = -1;
		for (int i = 0; i < n; i++)
			if (keep[i] < 9 && keep[i] >= 0 && (drop < 0 || keep[i] <= keep[drop]))
				drop = i;
		if (drop < 0)
			break;
		keep[drop] = -1;
		total -= width[drop] + 2;
	}
	int x = 0;
	for (int i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if (x)
			x += 2;
		x += screen_text(s, x, y, s->w - x, text[i], SLOT_MESSAGE);
	}
}

#define MSG_MAX_LINES 3 /* a long message wraps onto up to this many lines */

/* Where the message's lines start when it wraps at spaces into lines of w columns (a word
 * longer than a line is cut there); returns how many lines, at most MSG_MAX_LINES (the last
 * then ends with an ellipsis, screen_text's). */
static int
msg_wrap(const tl_screen *s, const char *text, int w, size_t start[MSG_MAX_LINES + 1])
{
	return ui_wrap_starts(s, text, w, MSG_MAX_LINES, start);
}

/* The rows the message line takes: more than one when a message is too long for one. */
static int
message_rows(tl_ui *ui)
{
	if (ui->prompt.active || !ui->msg[0] || ui->scr.h < 16)
		return 1;
	char clean[600];
	size_t start[MSG_MAX_LINES + 1];
	ui_clean(ui, ui->msg, clean, sizeof clean);
	return msg_wrap(&ui->scr, clean, ui->scr.w, start);
}

static void
draw_message_line(tl_ui *ui, int y)
{
	tl_screen *s = &ui->scr;
	screen_fill(s, 0, y, s->w, ' ', SLOT_MESSAGE);
	if (ui->prompt.active) {
		char clean[600];
		screen_put(s, 0, y, (uint32_t)ui->prompt.ch, SLOT_MESSAGE, 0);
		ui_clean(ui, ui->prompt.buf, clean, sizeof clean);
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
		size_t start[MSG_MAX_LINES + 1];
		int n = ui->scr.h < 16 ? 1 : msg_wrap(s, clean, s->w, start);
		uint8_t slot = ui->msg_err ? SLOT_ERROR : SLOT_MESSAGE;
		if (n <= 1) {
			screen_text(s, 0, y, s->w, clean, slot);
			return;
		}
		for (int i = 0; i < n; i++) { /* the message ends on the last row */
			int yy = y - (n - 1) + i;
			screen_fill(s, 0, yy, s->w, ' ', slot);
			char line[600];
			size_t len = (i + 1 < n ? start[i + 1] : strlen(clean)) - start[i];
			if (i + 1 < n)
				while (len > 0 && clean[start[i] + len - 1] == ' ')
					len--;
			snprintf(line, sizeof line, "%.*s", (int)len, clean + start[i]);
			screen_text(s, 0, yy, s->w, line, slot);
		}
		return;
	}
	size_t done, total;
	if (ui->q != NULL && tlq_loading(ui->q, &done, &total)) {
		draw_loading_line(ui, y, done, total);
		return;
	}
	draw_footer(ui, y);
}

/* The verdict line of the first frame (tig's status line: it goes at the first key): the top
 * finding (kind, where, the time it costs, its share) and the key that lists them all. Too
 * wide, the finding's title is cut with an ellipsis; the key is always shown. */
static void
draw_verdict(tl_ui *ui, int y)
{
	tl_screen *s = &ui->scr;
	char title[300], k[24], tail[64];
	screen_fill(s, 0, y, s->w, ' ', SLOT_MESSAGE);
	int x = screen_text(s, 0, y, s->w, "Verdict: ", SLOT_DETAIL_KEY);
	if (ui->verdict == UI_VERDICT_FINDING) { /* this frame first, the findings next */
		screen_printf(s, x, y, s->w - x, SLOT_MESSAGE,
		              "looking for problems in the lanes ...");
		return;
	}
	size_t n = findings_verdict(ui, title, sizeof title);
	keymap_key_hint(&ui->keys, ACT_FINDINGS_PANEL, k, sizeof k);
	if (n == 0)
		snprintf(title, sizeof title, "no problem found in the lanes");
	snprintf(tail, sizeof tail, "  %s all findings", k);
	int tw = screen_text_width(s, tail);
	x += screen_text(s, x, y, s->w - x - tw, title, SLOT_MESSAGE);
	screen_text(s, x, y, s->w - x, tail, SLOT_DETAIL_KEY);
}

/* The view that has the screen draws; under the timeline's lanes, the panes on the stack. */
static void
draw_frame(tl_ui *ui, term_lanes *lanes)
{
	tl_screen *s = &ui->scr;
	screen_clear(s, SLOT_NORMAL);
	int w = s->w, h = s->h;
	lanes->valid = 0;
	void *tls = ui_view_state(ui, &timeline_view);
	if (w < 40 || h < 10) {
		timeline_view.draw(ui, tls, 0, 0, w, h);
		return;
	}
	int pane_h = 0;
	for (int i = 0; i < ui->depth; i++) {
		const view_ops *v = ui_view_at(ui->stack[i]);
		if (v->layer == UI_LAYER_PANE)
			pane_h += v->height(ui, ui->state[ui->stack[i]], h);
	}
	int mrows = message_rows(ui); /* a long message wraps: the rows above give way */
	if (ui->verdict == UI_VERDICT_PENDING && !tlq_loading(ui->q, NULL, NULL))
		ui->verdict = UI_VERDICT_FINDING; /* the findings need every rank */
	/* the verdict's row comes from the lanes: the status and message lines stay put */
	int vrow = ui->verdict >= UI_VERDICT_FINDING && h >= 12;
	timeline_layout(ui, w, h, pane_h + mrows - 1 + vrow);
	const view_ops *front = ui_view_front(ui);
	if (front != &timeline_view) {
		front->draw(ui, ui_view_state(ui, front), 0, 0, w, h - mrows);
		draw_message_line(ui, h - 1);
		return;
	}
	timeline_view.draw(ui, tls, 0, 0, w, h - 1 - mrows - vrow);
	int y = h - 1 - mrows - vrow;
	for (int i = ui->depth - 1; i >= 0; i--) {
		const view_ops *v = ui_view_at(ui->stack[i]);
		if (v->layer != UI_LAYER_PANE)
			continue;
		void *st = ui->state[ui->stack[i]];
		int ph = v->height(ui, st, h);
		y -= ph;
		v->draw(ui, st, 0, y, w, ph);
	}
	if (vrow)
		draw_verdict(ui, h - 2 - mrows);
	timeline_status(ui, h - 1 - mrows);
	draw_message_line(ui, h - 1);
	timeline_geometry g;
	timeline_geometry_get(ui, &g);
	*lanes = (term_lanes){1, g.t0, g.colw, g.ncols, g.x, g.y, g.h};
}

/* ---- main ---------------------------------------------------------------------------------- */

/* The DP panel's decode steps (tlq_dp_prepare: O(MSTX ranges) of every rank), made after the
 * first frame rather than before it; their warnings (a rank's step_process marks that do not
 * match) wait for the screen to go, as the loader threads' do. */
static void
dp_prepare_held(tl_ui *ui, msg_list *w)
{
	msg_hold(1);
	msg_capture(msg_keep, w);
	tlq_dp_prepare(ui->q);
	msg_capture(NULL, NULL);
	msg_hold(0);
}

typedef struct frame_stat {
	int64_t cpu;
	long bytes;
	int action;
	long minflt; /* the viewer thread's minor faults */
} frame_stat;

/* After the first frame, once every rank is in: the mapped cache files' page tables are
 * filled in the background (query/prefault.h), the ranks on screen first, so that a later key
 * does not fault them in. Script mode waits for it before its next step, as for the load, so
 * that its frames do not depend on the timing (the test hook TL_TEST_PREFAULT_DELAY_MS holds
 * it instead). */
static tl_prefault *
prefault_begin(tl_ui *ui, int script, tl_prefault_stats *st)
{
	size_t *order = xcalloc(ui->tr->nranks ? ui->tr->nranks : 1, sizeof *order);
	size_t n = timeline_rank_order(ui, order);
	tl_prefault *pf = tlq_prefault_start(ui->q, order, n, st);
	free(order);
	if (script)
		prefault_wait(pf);
	return pf;
}

/* --stats: what the populate did by the time tl quit ("stopped": it was still going). */
static void
prefault_write_stats(FILE *f, const tl_prefault_stats *st)
{
	static const char *const mode[] = {"off", "lod", "full"};
	fprintf(f,
	        "prefault %s ranks %zu mapped %zu bytes_mapped %llu todo %llu done %llu ms %lld "
	        "%s%s\n",
	        mode[st->mode], st->ranks, st->mapped, (unsigned long long)st->bytes_mapped,
	        (unsigned long long)st->bytes_todo, (unsigned long long)st->bytes_done,
	        (long long)st->ms,
	        st->mode == TL_PREFAULT_OFF ? "-"
	        : st->done                  ? "finished"
	                                    : "stopped",
	        st->fallback ? " willneed" : "");
}

/* What a frame of --stats followed besides an action (ACT_*, ACT_NONE: nothing bound). */
enum { FRAME_COMMAND = ACT_NONE - 1, FRAME_TEXT = ACT_NONE - 2 };

/* One step of a script: a :-command, or keys as typed; returns the frame's action for the
 * stats (FRAME_COMMAND, FRAME_TEXT or the one key's). */
static int
script_step_run(tl_ui *ui, tl_script *script, const script_step *step)
{
	if (!step->is_cmd) {
		for (int i = 0; i < step->nkeys && !ui->quit; i++)
			handle_key(ui, step->keys[i]);
		return step->nkeys == 1 ? keymap_action(&ui->keys, key_normalize(step->keys[0]))
		                        : FRAME_TEXT;
	}
	/* a command is typed with keys: the verdict goes as at a key; a screen dump is no user's */
	if (ui->verdict == UI_VERDICT_SHOWN && strncmp(step->text, "dump", 4) != 0)
		ui->verdict = UI_VERDICT_OFF;
	if (ui_command(ui, step->text) != 0) {
		msg_error("%s:%d: %s", script->path, script->lineno, ui->msg);
		script->errors++;
	}
	return FRAME_COMMAND;
}

/* The theme and the keymap, as ui_main starts: returns 0, or 1 when one could not be read
 * (said); a bad line in one of them is a warning the first frame shows, in warn. */
static int
ui_setup(tl_ui *ui, const tl_ui_opts *o, char *warn, size_t wlen)
{
	const char *cs = nl_langinfo(CODESET);
	ui->utf8 = cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
	ui->scr.utf8 = ui->utf8;
	char err[600];
	int rc = theme_load(&ui->theme, o->theme, err, sizeof err);
	if (rc == TL_CONF_UNREADABLE) {
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
		return 1;
	}
	if (rc != 0)
		snprintf(warn, wlen, "%s", err);
	rc = keymap_load(&ui->keys, o->keymap, err, sizeof err);
	if (rc == TL_CONF_UNREADABLE) {
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
		keymap_free(&ui->keys);
		return 1;
	}
	if (rc != 0 && !warn[0])
		snprintf(warn, wlen, "%s", err);
	return 0;
}

/* What the viewer's loop keeps between frames: the per-frame statistics (--stats), when the
 * first frame, the small tables and the last rank came, the page prefaulter. */
typedef struct ui_run {
	frame_stat *fs;
	size_t nfs, fcap;
	int64_t first_frame, first_cpu, loaded, small;
	tl_prefault *pf;
	tl_prefault_stats pst;
	int dp_pending;
	msg_list held; /* dp_prepare_held's warnings */
} ui_run;

/* The test hook TL_TEST_VIEWS=FILE (script mode): after each step, a line naming the views on
 * the stack, bottom up, then '|' and the message line; first, each panel with the action that
 * opens it ("views: NAME=ACTION ...") and the actions' and commands' UI_WHILE_LOADING flags
 * ("actions: NAME=0|1 ...", "commands: ..."), which tests/tui/test_panel_keys.sh turns into
 * every panel's key from every panel and every action while ranks load. */
static void
test_views_line(const tl_ui *ui)
{
	static int said;
	const char *path = getenv("TL_TEST_VIEWS");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (f == NULL)
		return;
	if (!said++) {
		fputs("views:", f);
		for (int i = 0; i < VIEW__COUNT; i++)
			if (ui->views[i]->layer == UI_LAYER_PANEL && ui->views[i]->open_action >= 0)
				fprintf(f, " %s=%s", ui->views[i]->name,
				        action_table[ui->views[i]->open_action].name);
		fputs("\nactions:", f);
		for (int a = 0; a < ACT__COUNT; a++)
			fprintf(f, " %s=%d", action_table[a].name,
			        (action_table[a].flags & UI_WHILE_LOADING) != 0);
		fputs("\ncommands:", f);
		for (int c = 0; c < CMD__COUNT; c++)
			fprintf(f, " %s=%d", command_table[c].name,
			        (command_table[c].flags & UI_WHILE_LOADING) != 0);
		fputc('\n', f);
	}
	for (int i = 0; i < ui->depth; i++)
		fprintf(f, "%s%s", i ? " " : "", ui->views[ui->stack[i]]->name);
	fprintf(f, "|%s\n", ui->msg);
	fclose(f);
}

/* The loop: a frame, then the next key, script line or event, until quit. */
static void
ui_loop(tl_ui *ui, const tl_ui_opts *o, tl_script *script, ui_run *r)
{
	int last_action = ACT_NONE;
	int64_t c0 = term_cpu_ns();
	long b0 = term_bytes_out(), m0 = term_minflt();
	int pf_tried = 0;
	script_step step;
	while (!ui->quit) {
		load_poll(ui, 0, &r->loaded);
		term_lanes lanes;
		draw_frame(ui, &lanes);
		if (ui->redraw) {
			term_redraw();
			ui->redraw = 0;
		}
		term_flush(&ui->scr, &lanes);
		if (o->stats_file) {
			frame_stat f = {term_cpu_ns() - c0, b0 >= 0 ? term_bytes_out() - b0 : -1,
			                last_action, term_minflt() - m0};
			if (r->first_frame == 0) {
				r->first_frame = timefmt_mono_ns();
				r->first_cpu = term_cpu_ns();
			}
			if (r->small == 0 && small_in(ui))
				r->small = timefmt_mono_ns();
			VEC_PUSH(r->fs, r->nfs, r->fcap, f);
		}
		if (r->dp_pending) {
			r->dp_pending = 0;
			dp_prepare_held(ui, &r->held);
		}
		if (ui->verdict ==
		    UI_VERDICT_FINDING) { /* after its frame: the first is not held */
			char t[8];
			findings_verdict(ui, t, sizeof t);
			ui->verdict = UI_VERDICT_SHOWN;
			continue; /* drawn before any key is read */
		}
		if (term_signal())
			break;
		if (!pf_tried && !tlq_loading(ui->q, NULL, NULL)) {
			pf_tried = 1;
			r->pf = prefault_begin(ui, o->script != NULL, &r->pst);
		}
		/* the next input */
		if (o->script) {
			if (load_poll(ui, 1, &r->loaded) > 0)
				continue; /* the next step sees them */
			if (!script_next(script, &step))
				break;
			c0 = term_cpu_ns();
			b0 = term_bytes_out();
			m0 = term_minflt();
			last_action = script_step_run(ui, script, &step);
			test_views_line(ui);
		} else {
			int key;
			term_mouse m;
			int ev = term_read(&ui->scr, &key, &m);
			c0 = term_cpu_ns();
			b0 = term_bytes_out();
			m0 = term_minflt();
			last_action = ACT_NONE;
			if (ev == TERM_KEY) {
				last_action = keymap_action(&ui->keys, key_normalize(key));
				handle_key(ui, key);
			} else if (ev == TERM_MOUSE) {
				mouse_event(ui, &m);
			} else if (ev == TERM_RESIZE) {
				ui_view_resize_all(ui);
			} else if (term_signal() || term_lost()) {
				break;
			}
		}
	}
}

/* --stats: the per-frame CPU time and bytes, and when the first frame and the ranks came. */
static void
write_stats(const tl_ui *ui, const tl_ui_opts *o, const ui_run *r)
{
	FILE *f = fopen(o->stats_file, "w");
	if (f) {
		fprintf(f, "# frame cpu_ns bytes action minflt\n");
		prefault_write_stats(f, &r->pst);
		fprintf(f, "first_frame_ms %.3f\n",
		        o->start_mono_ns ? (double)(r->first_frame - o->start_mono_ns) / 1e6 : 0.0);
		/* the process's CPU time (every thread's) until then: on a shared host the
		 * wall time also measures the others */
		fprintf(f, "first_frame_cpu_ms %.3f\n", (double)r->first_cpu / 1e6);
		if (r->loaded) /* progressive: every rank's small tables were on screen */
			fprintf(f, "small_ms %.3f\n",
			        o->start_mono_ns && r->small
			            ? (double)(r->small - o->start_mono_ns) / 1e6
			            : 0.0);
		if (r->loaded) /* progressive: the last rank came in */
			fprintf(f, "loaded_ms %.3f\n",
			        o->start_mono_ns ? (double)(r->loaded - o->start_mono_ns) / 1e6
			                         : 0.0);
		size_t spilled = 0; /* --no-cache: ranks mapped from files of their own */
		for (size_t i = 0; i < ui->tr->nranks; i++)
			spilled += ui->tr->ranks[i]->spilled != 0;
		fprintf(f, "spilled_ranks %zu\n", spilled);
		for (size_t i = 0; i < r->nfs; i++)
			fprintf(f, "frame %zu %lld %ld %s %ld\n", i, (long long)r->fs[i].cpu,
			        r->fs[i].bytes,
			        r->fs[i].action >= 0 ? action_table[r->fs[i].action].name
			        : r->fs[i].action == FRAME_COMMAND ? ":command"
			        : r->fs[i].action == FRAME_TEXT    ? "text"
			                                           : "-",
			        r->fs[i].minflt);
		fclose(f);
	} else {
		fprintf(stderr, "tl: cannot write %s: %s\n", o->stats_file, strerror(errno));
	}
}

int
ui_main(const tl_query *q, const tl_ui_opts *o)
{
	tl_ui *ui = xcalloc(1, sizeof *ui);
	ui->q = q;
	ui->tr = tlq_trace(q);
	ui->views = ui_views;
	char warn[600] = "";
	if (ui_setup(ui, o, warn, sizeof warn) != 0) {
		free(ui);
		return 1;
	}
	tl_script script = {0};
	if (o->script && script_open(&script, o->script) != 0) {
		keymap_free(&ui->keys);
		free(ui);
		return 1;
	}
	ui_run r = {0};
	/* a trace loaded whole: the DP panel's decode steps after the first frame */
	r.dp_pending = !tlq_loading(q, NULL, NULL);
	if (o->compare)
		ui->cmp = compare_open(q, o->compare, o->path, o->compare_path);
	ui->sql = o->sql;
	ui_view_open(ui, &timeline_view);
	if (term_open(&ui->theme, o->cols, o->rows, &ui->scr) != 0) {
		term_close();
		script_close(&script);
		ui_view_close_all(ui);
		keymap_free(&ui->keys);
		free(ui);
		return 1;
	}
	timeline_layout(ui, ui->scr.w, ui->scr.h, 0);
	timeline_fit(ui);
	if (ui->cmp) { /* what the two runs are and where the changes are listed */
		char k[24];
		ui_message(
		    ui, 0, "B (%s) under each rank, aligned on the step at the cursor; %s: %s",
		    ui->cmp->label_b, keymap_key_hint(&ui->keys, ACT_DIFF_PANEL, k, sizeof k),
		    ui->cmp->verdict);
	}
	if (warn[0])
		ui_message(ui, 1, "%s", warn);
	if (o->finding > 0) /* as Enter on its row of the findings panel shows it */
		findings_panel_show(ui, o->finding - 1);
	else if (!ui->cmp) /* --compare's message names its own verdict, tl diff's */
		ui->verdict = UI_VERDICT_PENDING;

	ui_loop(ui, o, &script, &r);
	/* at once: the thread stops between two megabytes */
	prefault_stats(r.pf, &r.pst);
	prefault_stop(r.pf);
	int sig = term_signal(), lost = term_lost();
	term_close();
	msg_list_say(&r.held);
	if (lost && !sig)
		fprintf(stderr, "tl: the terminal went away (hang-up or I/O error); exiting\n");
	if (o->stats_file)
		write_stats(ui, o, &r);
	free(r.fs);
	int status = script.errors || lost ? 1 : 0;
	script_close(&script);
	ui_view_close_all(ui);
	compare_free(ui->cmp);
	prompt_free(&ui->prompt);
	keymap_free(&ui->keys);
	screen_free(&ui->scr);
	free(ui);
	if (sig) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	if (lost) {
		/* The terminal is gone (SIGHUP blocked or not come yet): nothing after this is of
		 * use to anyone, and the exit-time handlers can hang. A sanitized build's leak
		 * scan stops the process with ptrace; when the shell that ran tl has died of the
		 * hang-up, the kernel sends the now orphaned process group SIGCONT, which undoes
		 * that stop, and the scan waits for it for ever while tl spins (tmux
		 * kill-session). */
		fflush(NULL);
		_exit(status);
	}
	return status;
}

int
ui_keys(FILE *f, const char *keymap, int format)
{
	tl_keymap km;
	char err[512];
	int rc = keymap_load(&km, keymap, err, sizeof err);
	if (rc == TL_CONF_UNREADABLE) {
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
		keymap_free(&km);
		return 1;
	}
	if (rc != 0)
		msg_error("%s", err); /* a theme or keymap file: printed escaped */
	keymap_write_list(&km, f, format);
	commands_write_list(f, format);
	keymap_free(&km);
	return 0;
}
