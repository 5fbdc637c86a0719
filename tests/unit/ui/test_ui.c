/* Unit tests of the viewer's pure parts: keys and keymaps, themes, the cell grid, the derived
 * overlap lanes and bubbles, the column queries and the regex search. */
#include "config.h"
#include "analysis/lanes.h"
#include "query/query.h"
#include "ui/actions.h"
#include "ui/commands.h"
#include "ui/keymap.h"
#include "ui/screen.h"
#include "ui/theme.h"
#include "ui/view.h"
#include "util/xalloc.h"

#include <curses.h>
#include <locale.h>
#include <stdlib.h>

#include "../test.h"

static void
test_keys(void)
{
	static const char *const names[] = {
	    "a",       "+",       "<Up>",      "<PgDn>", "<C-x>", "<M-f>",     "<F1>",    "<Space>",
	    "<Enter>", "<S-Tab>", "<WheelUp>", "<Esc>",  "<M-<>", "<C-Space>", "\xc3\xa9"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		int k;
		char buf[48];
		int ok = key_parse(names[i], &k) == 0;
		CHECK(ok, "key '%s' parses", names[i]);
		if (ok)
			CHECK_STR(key_to_name(k, buf, sizeof buf), names[i], "key name round trip");
	}
	int k;
	CHECK(key_parse("<Nope>", &k) != 0, "unknown key name is refused");
	CHECK(key_parse("ab", &k) != 0, "two characters are not a key");
	CHECK(key_parse("<lt>", &k) == 0 && k == '<', "<lt> is <");
	CHECK(key_normalize('\n') == TLK_ENTER && key_normalize(TLK_FN(KEY_ENTER)) == TLK_ENTER,
	      "Enter variants fold");
}

static void
test_keymaps(void)
{
	/* every action has a unique name and help; every built-in keymap parses cleanly */
	int dup = 0;
	for (int i = 0; i < ACT__COUNT; i++)
		for (int j = i + 1; j < ACT__COUNT; j++)
			dup |= strcmp(action_table[i].name, action_table[j].name) == 0;
	CHECK(!dup, "action names are unique (%d actions)", ACT__COUNT);
	for (size_t i = 0; builtin_name(i, "keys"); i++) {
		tl_keymap km = {0};
		char err[256] = "";
		int rc = keymap_parse(&km, builtin_file(builtin_name(i, "keys"), "keys"),
		                      builtin_name(i, "keys"), err, sizeof err);
		CHECK(rc == 0, "built-in keymap %s parses (%s)", builtin_name(i, "keys"), err);
		keymap_free(&km);
	}
	tl_keymap km;
	char err[256];
	CHECK(keymap_load(&km, NULL, err, sizeof err) == 0, "default keymap loads");
	int unbound = 0;
	for (int a = 0; a < ACT__COUNT; a++) {
		int keys[4];
		if (keymap_keys(&km, a, keys, 4) == 0) {
			unbound++;
			printf("# unbound: %s\n", action_table[a].name);
		}
	}
	CHECK(unbound == 0, "every action has a key in the default keymap");
	CHECK(keymap_action(&km, 'q') == ACT_QUIT, "q quits");
	CHECK(keymap_action(&km, '/') == ACT_SEARCH, "/ searches");
	keymap_free(&km);
	CHECK(keymap_load(&km, "vim", err, sizeof err) == 0, "vim keymap loads over the default");
	CHECK(keymap_action(&km, 'w') == ACT_SLICE_NEXT, "vim: w is slice-next");
	CHECK(keymap_action(&km, 'q') == ACT_QUIT, "vim: q still quits");
	keymap_free(&km);
	CHECK(keymap_load(&km, "no-such-keymap", err, sizeof err) == -2, "missing keymap: -2");
	keymap_free(&km);
	memset(&km, 0, sizeof km);
	int rc = keymap_parse(&km, "bind x quit\nbind <Bad> quit\nfrob\nunbind x\n", "t", err,
	                      sizeof err);
	CHECK(rc == -1 && strstr(err, "t:2:") != NULL, "bad key reported with its line (%s)", err);
	CHECK(keymap_action(&km, 'x') == ACT_NONE, "unbind removes a binding");
	keymap_free(&km);
}

static void
test_themes(void)
{
	int dup = 0;
	for (int i = 0; i < SLOT__COUNT; i++)
		for (int j = i + 1; j < SLOT__COUNT; j++)
			dup |= theme_slot_char(i) == theme_slot_char(j);
	CHECK(!dup, "dump-attrs characters are unique (%d slots)", SLOT__COUNT);
	for (size_t i = 0; builtin_name(i, "theme"); i++) {
		tl_theme t;
		char err[256] = "";
		int rc = theme_load(&t, builtin_name(i, "theme"), err, sizeof err);
		CHECK(rc == 0, "built-in theme %s loads (%s)", builtin_name(i, "theme"), err);
	}
	tl_theme t;
	char err[256];
	CHECK(theme_load(&t, "light", err, sizeof err) == 0 && t.slot[SLOT_COMPUTE].bg == 151 &&
	          t.slot[SLOT_COMPUTE].bg8 == COLOR_GREEN,
	      "light theme: 256-colour value and 8-colour fallback");
	CHECK(theme_load(&t, "nope", err, sizeof err) == -2, "missing theme: -2");
	memset(&t, 0, sizeof t);
	int rc = theme_parse(&t, "color compute 300 default\ncolor nosuch red blue\n", "x", err,
	                     sizeof err);
	CHECK(rc == -1 && strstr(err, "x:1:") != NULL, "bad colour reported (%s)", err);
	CHECK(theme_stage_slot("rollout") == SLOT_STAGE_ROLLOUT, "stage.rollout slot");
	CHECK(theme_stage_slot("something") == SLOT_STAGE, "unknown stage falls back to stage");
}

static void
test_screen(void)
{
	tl_screen s = {0};
	s.utf8 = 1;
	screen_resize(&s, 10, 2);
	int n = screen_text(&s, 0, 0, 10, "abcdefghijkl", SLOT_LABEL);
	CHECK(n == 10 && s.cell[9].ch == 0x2026, "long text ends with an ellipsis");
	n = screen_text(&s, 0, 1, 5, "\xe4\xb8\xad\xe6\x96\x87x",
	                SLOT_LABEL); /* 中文x: 5 columns */
	CHECK(n == 5 && s.cell[10].ch == 0x4E2D && s.cell[11].ch == SCR_WIDE_TAIL,
	      "double-width characters take two cells");
	screen_put(&s, 1, 1, 'z', SLOT_NORMAL, 0);
	CHECK(s.cell[10].ch == ' ', "overwriting half a wide character blanks the other half");
	s.utf8 = 0;
	screen_text(&s, 0, 0, 10, "\xc3\xa9t\xc3\xa9", SLOT_LABEL);
	CHECK(s.cell[0].ch == '?' && s.cell[1].ch == 't', "ASCII screens draw no UTF-8");
	screen_free(&s);
}

/* a rank with compute [0,10) [20,30) on two streams and comm [5,25) [40,50) */
static tl_rank *
synthetic_rank(void)
{
	tl_rank *r = rank_new(0);
	tl_track *c1 = rank_track(r, TL_LANE_COMPUTE, 1, "Stream 1");
	tl_track *c2 = rank_track(r, TL_LANE_COMPUTE, 2, "Stream 2");
	tl_track *m = rank_track(r, TL_LANE_COMM, 0, "group");
	uint32_t mm = strpool_intern_cstr(r->pool, "MatMul_1");
	uint32_t ar = strpool_intern_cstr(r->pool, "hcom_allReduce_");
	track_push(c1, 0, 10, mm, 1);
	track_push(c2, 20, 30, mm, 2);
	track_push(c2, 60, 70, strpool_intern_cstr(r->pool, "Add"), 3);
	track_push(m, 5, 25, ar, 4);
	track_push(m, 40, 50, ar, 5);
	rank_finish(r);
	return r;
}

/* a second rank: compute [0,5) [20,30) [40,45) [47,50): gaps [5,20) [30,40) [45,47) */
static tl_rank *
synthetic_rank1(void)
{
	tl_rank *r = rank_new(1);
	tl_track *c = rank_track(r, TL_LANE_COMPUTE, 1, "Stream 1");
	uint32_t mm = strpool_intern_cstr(r->pool, "MatMul_1");
	track_push(c, 0, 5, mm, 1);
	track_push(c, 20, 30, mm, 2);
	track_push(c, 40, 45, mm, 3);
	track_push(c, 47, 50, mm, 4);
	rank_finish(r);
	return r;
}

/* The viewer's bubbles from the query layer: the largest over the ranks in order, the next and
 * previous of a rank in time order, attributed as `tl summary` attributes them. */
static void
test_bubbles(void)
{
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	tr.ranks[0] = synthetic_rank();
	tr.ranks[1] = synthetic_rank1();
	tr.nranks = 2;
	lanes_build(&tr, 2);
	tl_query *rl = tlq_open(&tr, NULL);
	static const struct {
		size_t rank;
		int64_t s, e;
	} want[] = {{1, 5, 20}, {0, 30, 40}, {1, 30, 40}, {0, 50, 60}, {1, 45, 47}};
	size_t nb = tlq_bubble_largest(rl, 100, 0, NULL), good = 0;
	CHECK_EQ_I64(nb, 5, "largest bubbles: every gap of both ranks");
	for (size_t i = 0; i < 5 && nb == 5; i++) {
		tl_rl_bubble b;
		tlq_bubble_largest(rl, 100, i, &b);
		good += b.rank == want[i].rank && b.start == want[i].s && b.end == want[i].e &&
		        b.stage == TL_STAGE_NONE && b.step == -1 && b.reason == TL_BUBBLE_NOTHING;
	}
	CHECK_EQ_I64(good, 5, "largest bubbles: longest first, ties by time, then by rank");
	tl_rl_bubble b;
	CHECK(tlq_bubble_largest(rl, 1, 4, &b) == 5 && b.start == 45,
	      "the list is found once: a later max does not change it");
	const tl_rl_bubble *sv;
	size_t ns = tlq_bubbles(rl, &sv), same = 0;
	for (size_t i = 0; i < ns; i++) {
		tlq_bubble_at(rl, sv[i].rank, sv[i].start, sv[i].end, &b);
		same += b.stage == sv[i].stage && b.step == sv[i].step &&
		        b.reason == sv[i].reason && strcmp(b.detail, sv[i].detail) == 0;
	}
	CHECK(ns == 5 && same == ns, "the viewer's bubbles are the summary's bubbles (%zu)", ns);
	tlq_close(rl);
	rl = tlq_open(&tr, NULL);
	CHECK(tlq_bubble_largest(rl, 2, 0, NULL) == 2, "at most max largest bubbles");
	size_t k = 9, n = 9;
	CHECK(tlq_bubble_next(rl, 0, 0, 1, &b, &k, &n) == 0 && b.start == 30 && b.end == 40 &&
	          k == 0 && n == 2,
	      "bubble-next: the first after the cursor, 1 of 2");
	CHECK(tlq_bubble_next(rl, 0, 30, 1, &b, &k, &n) == 0 && b.start == 50 && k == 1,
	      "bubble-next: strictly after");
	CHECK(tlq_bubble_next(rl, 0, 50, 1, &b, &k, &n) == -1 && n == 2,
	      "bubble-next: none after the last");
	CHECK(tlq_bubble_next(rl, 0, 50, -1, &b, &k, &n) == 0 && b.start == 30 && k == 0,
	      "bubble-prev: the last before");
	CHECK(tlq_bubble_next(rl, 1, 5, -1, &b, &k, &n) == -1 && n == 3,
	      "bubble-prev: none before the first");
	tlq_close(rl);
	/* without the overlap lanes the largest bubbles come from the unions: the same */
	trace_free(&tr);
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	tr.ranks[0] = synthetic_rank();
	tr.ranks[1] = synthetic_rank1();
	tr.nranks = 2;
	rl = tlq_open(&tr, NULL);
	good = 0;
	nb = tlq_bubble_largest(rl, 100, 0, NULL);
	for (size_t i = 0; i < 5 && nb == 5; i++) {
		tlq_bubble_largest(rl, 100, i, &b);
		good += b.rank == want[i].rank && b.start == want[i].s && b.end == want[i].e;
	}
	CHECK(nb == 5 && good == 5, "largest bubbles without the overlap lanes: the same");
	tlq_close(rl);
	trace_free(&tr);
}

static void
test_lanes(void)
{
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(1, sizeof *tr.ranks);
	tr.ranks[0] = synthetic_rank();
	tr.nranks = 1;
	lanes_build(&tr, 2);
	tl_rank *r = tr.ranks[0];
	size_t nt = r->ntracks;
	lanes_build_rank(r);
	CHECK(r->ntracks == nt, "building the lanes twice adds nothing");
	tl_track *comp = lanes_overlap_track(r, TL_OVL_COMPUTING);
	tl_track *comm = lanes_overlap_track(r, TL_OVL_COMMUNICATION);
	tl_track *exp = lanes_overlap_track(r, TL_OVL_COMM_EXPOSED);
	tl_track *fr = lanes_overlap_track(r, TL_OVL_FREE);
	CHECK(comp && comp->n == 3, "Computing: 3 intervals");
	CHECK(comm && comm->n == 2, "Communication: 2 intervals");
	CHECK(exp && exp->n == 2 && exp->v[0].start == 10 && track_end(exp, 0) == 20 &&
	          exp->v[1].start == 40 && track_end(exp, 1) == 50,
	      "Comm(Not Overlapped) = comm minus compute");
	CHECK(fr && fr->n == 2 && fr->v[0].start == 30 && track_end(fr, 0) == 40 &&
	          fr->v[1].start == 50 && track_end(fr, 1) == 60,
	      "Free = the gaps between first and last busy");
	/* each lane is made to its exact length in one array, its slices named by the lane, with
	 * no row id (an interval is no row of a source: the detail pane reads no arguments) */
	tl_track *ovl[] = {comp, comm, exp, fr};
	for (size_t i = 0; i < 4; i++) {
		int named = ovl[i] != NULL && ovl[i]->cap == ovl[i]->n;
		for (size_t k = 0; named && k < ovl[i]->n; k++)
			named = ovl[i]->v[k].name == ovl[i]->label &&
			        track_arg(ovl[i], k) == UINT32_MAX;
		CHECK(named && ovl[i]->arg == NULL, "overlap lane %zu: exact size, slices named",
		      i);
	}
	tl_overlap o;
	tlq_overlap(r, 0, 70, &o);
	CHECK_EQ_I64(o.free, tlq_busy(fr, 0, 70), "Free lane agrees with tlq_overlap's free");
	CHECK_EQ_I64(o.comm_not_overlapped, tlq_busy(exp, 0, 70),
	             "Comm(Not Overlapped) lane agrees with tlq_overlap");
	for (size_t i = 1; i < r->ntracks; i++)
		CHECK(r->tracks[i - 1]->kind <= r->tracks[i]->kind,
		      "tracks stay in lane order (%zu)", i);

	int64_t tot;
	CHECK(tlq_bubble_total(r, &tot) == 2 && tot == 20, "bubble count and total");

	/* columns on an explicit grid */
	int64_t edges[8];
	for (int c = 0; c <= 7; c++)
		edges[c] = c * 10;
	tl_cell cells[7];
	tlq_columns_edges(comp, edges, 7, cells);
	CHECK(cells[0].busy == 10 && cells[1].busy == 0 && cells[2].busy == 10 &&
	          cells[6].busy == 10,
	      "tlq_columns_edges: busy per column");
	CHECK(cells[1].count == 0 && cells[1].dominant == SIZE_MAX, "empty column has no dominant");
	CHECK(tlq_slice_at(comp, 25) == 1 && tlq_slice_at(comp, 35) == SIZE_MAX, "tlq_slice_at");
	CHECK(tlq_slice_next(comp, 0, 1) == 1 && tlq_slice_next(comp, 20, -1) == 0 &&
	          tlq_slice_next(comp, 60, 1) == SIZE_MAX,
	      "tlq_slice_next in both directions");

	/* search */
	tl_search s;
	char err[256];
	CHECK(tlq_search(&tr, NULL, "matmul", &s, err, sizeof err) == 0 && s.total == 2,
	      "smart case: lower-case pattern is caseless (2 matches)");
	tl_match_pos from = {SIZE_MAX, 0, 0, INT64_MIN}, m1, m2, m3;
	CHECK(tlq_search_step(&s, &tr, &from, 1, &m1) == 0 && m1.start == 0, "first match at 0");
	CHECK(tlq_search_step(&s, &tr, &m1, 1, &m2) == 0 && m2.start == 20, "next match at 20");
	CHECK(tlq_search_step(&s, &tr, &m2, 1, &m3) != 0, "no match after the last");
	CHECK(tlq_search_step(&s, &tr, &m2, -1, &m3) == 0 && m3.start == 0, "previous match");
	CHECK(tlq_search_ordinal(&s, &tr, &m2) == 1, "ordinal of the second match");
	CHECK(tlq_search_any(&s, &tr, 0, m2.track, 25, 26) &&
	          !tlq_search_any(&s, &tr, 0, m2.track, 30, 60),
	      "tlq_search_any finds matches in a column");
	tlq_search_free(&s);
	CHECK(tlq_search(&tr, NULL, "MatMul", &s, err, sizeof err) == 0 && s.total == 2,
	      "upper case pattern matches case-sensitively");
	tlq_search_free(&s);
	CHECK(tlq_search(&tr, NULL, "matmul(", &s, err, sizeof err) != 0 &&
	          strstr(err, "offset 7") != NULL,
	      "invalid pattern: pcre2's message with the offset (%s)", err);
	trace_free(&tr);
}

/* The :-command table: every name and alias names one command; the lists written from it name
 * every command. */
static void
test_commands(void)
{
	char names[CMD__COUNT * 4][32];
	size_t n = 0;
	for (int i = 0; i < CMD__COUNT; i++) {
		const tl_command_info *c = &command_table[i];
		CHECK(c->name && *c->name && c->help && *c->help && c->args,
		      "command %s has a name, arguments and help", c->name);
		snprintf(names[n++], sizeof names[0], "%s", c->name);
		for (const char *p = c->alias; p && *p && n < sizeof names / sizeof *names;) {
			size_t k = strcspn(p, " ");
			snprintf(names[n++], sizeof names[0], "%.*s", (int)k, p);
			p += k + (p[k] == ' ');
		}
	}
	int dup = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			dup |= strcmp(names[i], names[j]) == 0;
	CHECK(!dup, "command names and aliases are unique (%zu of them)", n);
	for (int f = 0; f < 3; f++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		commands_write_list(m, f);
		fclose(m);
		int all = 1;
		for (int i = 0; i < CMD__COUNT; i++) {
			char want[64];
			size_t w = (size_t)snprintf(want, sizeof want, ":");
			for (const char *c = command_table[i].name; *c && w + 3 < sizeof want; c++)
				w += (size_t)snprintf(want + w, sizeof want - w, "%s",
				                      f == 1 && *c == '-' ? "\\-"
				                                          : (char[2]){*c, 0});
			all &= strstr(buf, want) != NULL;
		}
		CHECK(all, "the command list (format %d) names every command", f);
		free(buf);
	}
	char also[64];
	for (int i = 0; i < CMD__COUNT; i++)
		if (strcmp(command_table[i].name, "quit") == 0)
			CHECK_STR(
			    command_aliases(&command_table[i], "(also ", ")", also, sizeof also),
			    "(also :q, :q!)", "aliases are listed as :-commands");
}

/* The view stack: one view per layer, ordered by layer; closing a view closes what is above
 * it; the front view is the top one that is not a pane. */
static void
test_view_stack(void)
{
	tl_ui ui;
	memset(&ui, 0, sizeof ui);
	ui.views = ui_views;
	ui_view_open(&ui, &help_view);
	ui_view_open(&ui, &detail_view);
	CHECK(ui.depth == 2 && ui_view_at(ui.stack[0]) == &detail_view &&
	          ui_view_at(ui.stack[1]) == &help_view,
	      "a pane goes under the help screen opened before it");
	CHECK(ui_view_front(&ui) == &help_view, "the help screen has the screen");
	ui_view_open(&ui, &pp_view);
	CHECK(ui.depth == 3 && ui_view_at(ui.stack[1]) == &pp_view, "a panel goes between them");
	ui_view_open(&ui, &pp_view);
	CHECK(ui.depth == 3, "opening an open view keeps one of it");
	ui_view_action(&ui, ACT_QUIT);
	CHECK(ui.depth == 2 && ui_view_front(&ui) == &pp_view && !ui.quit,
	      "quit closes the help screen first, not the viewer");
	ui_view_close(&ui, &detail_view);
	CHECK(ui.depth == 0, "closing a view closes what is above it");
	CHECK(ui_view_front(&ui) == NULL, "an empty stack has no front view");
	ui_view_action(&ui, ACT_HELP);
	CHECK(ui.depth == 1 && ui_view_front(&ui) == &help_view,
	      "an action no view takes opens the view it belongs to");
	ui_view_action(&ui, ACT_QUIT);
	ui_view_action(&ui, ACT_QUIT);
	CHECK(ui.depth == 0 && ui.quit, "quit with nothing above quits");

	/* a panel opened over another returns to it (its parent), as it was left */
	ui.quit = 0;
	ui_view_open(&ui, &pp_view);
	ui_view_open(&ui, &search_list_view);
	CHECK(ui.depth == 1 && ui_view_front(&ui) == &search_list_view,
	      "a panel replaces the panel it was opened over");
	ui_view_back(&ui, &search_list_view);
	CHECK(ui.depth == 1 && ui_view_front(&ui) == &pp_view,
	      "closing it returns to the panel it was opened from");
	ui_view_back(&ui, &pp_view);
	CHECK(ui.depth == 0, "and that one, opened over nothing, to what is below (the timeline)");
	/* opening again a panel the chain came from goes back to it: no cycle */
	ui_view_open(&ui, &pp_view);
	ui_view_open(&ui, &search_list_view);
	ui_view_open(&ui, &findings_panel_view);
	ui_view_open(&ui, &pp_view);
	ui_view_back(&ui, &pp_view);
	CHECK(ui.depth == 0, "A, B, C, then A again: A's parent is still none, not C");
	/* a panel left for the timeline has no parent when opened from there again */
	ui_view_open(&ui, &pp_view);
	ui_view_open(&ui, &search_list_view);
	ui_view_close(&ui, &search_list_view);
	ui_view_open(&ui, &search_list_view);
	ui_view_back(&ui, &search_list_view);
	CHECK(ui.depth == 0, "closed to the timeline, then opened from it: back to the timeline");
	ui_view_close_all(&ui);
	CHECK(ui.state[VIEW_ID_help_view] == NULL, "the states are freed at the end");
}

int
main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	test_keys();
	test_keymaps();
	test_themes();
	test_screen();
	test_lanes();
	test_bubbles();
	test_commands();
	test_view_stack();
	return test_done();
}
