/* The help screen: generated from the action table and the keymap in use, so it always tells
 * the keys that work; then the :-commands from their table and the colour slots of the theme. */
#include "config.h"
#include "ui/commands.h"
#include "ui/common.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words the screens use, one name per idea, and what each means; man tl's GLOSSARY says the
 * same (tests/tui/test_screens.sh holds them together). */
static const struct {
	const char *term, *text;
} glossary[] = {
    {"bubble", "Device idle time: a gap on a rank's device with neither compute nor communication "
               "(the Free lane; b, B, { and }; tl summary's bubbles and free)"},
    {"comm.exposed", "Communication that no computation hides: communication not overlapped "
                     "(the Comm(Not Ovl) lane, torch_npu's Communication(Not Overlapped); JSON "
                     "communication_not_overlapped_ns)"},
    {"step", "A profiler step (ProfilerStep#N, STEP_TIME); device work belongs to the step "
             "that launched it"},
    {"stage", "An RL stage inside a step (rollout, ref_logprob, actor_update, ...), found by "
              "the stage rules"},
    {"wait", "DP panel: how long a rank, done with its stage, waited for the last rank to "
             "finish it. Communication panel: Notify_Wait time inside the op"},
    {"behind", "DP panel: dp_analysis' bubble rate, how many fewer decode steps the rank ran "
               "than the busiest, in % of the busiest's (a count of steps, not time)"},
    {"idle", "DP panel: the share of the rank's stage its device was not busy. Communication "
             "panel: elapse - transit - wait"},
    {"arrived last", "A slow-rank vote: in a collective the rank came last, so its own op was "
                     "the outlying shortest (it waited for no one)"},
    {"others' wait", "Slow-rank panel: in the rank's worst collective, how long the typical "
                     "rank of the group waited for it (median op - its op)"},
    {"page", "Matrix: the group and step shown, of those there are (page 2/3), not an HCCL "
             "plane"},
    {"verdict", "The first frame's line above the status line: the top finding of the rules over "
                "the loaded lanes and the key that lists them all (!); it goes at the first key"},
};

typedef struct help_state {
	int scroll, lines;
	int rows; /* the lines the last frame had room for (0 before the first) */
} help_state;

/* How many bytes of text fit a line of w columns, cut at a space when it must be cut. */
static int
help_wrap(const char *t, int w)
{
	int len = (int)strlen(t);
	if (len <= w) /* the descriptions are ASCII */
		return len;
	int cut = w;
	while (cut > 0 && t[cut] != ' ')
		cut--;
	return t[cut] == ' ' ? cut : w;
}

static void
help_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	help_state *hs = st;
	tl_screen *s = &ui->scr;
	screen_clear(s, SLOT_NORMAL);
	int row = 0, line = 0;
	const int top = hs->scroll;
#define EMIT(...)                                                                                  \
	do {                                                                                       \
		if (line >= top && row < h - 1) {                                                  \
			__VA_ARGS__;                                                               \
			row++;                                                                     \
		}                                                                                  \
		line++;                                                                            \
	} while (0)
	screen_fill(s, x, y, w, ' ', SLOT_TITLE);
	screen_printf(
	    s, x, y, w, SLOT_TITLE,
	    " tl help: keymap %s, theme %s  (q, Esc or ? closes; Up, Down, PgUp, PgDn scroll)",
	    ui->keys.name, ui->theme.name);
	y++;
	h--;
	/* the columns: keys and action names as wide as they need (keys cut at a narrow
	 * screen), the description the rest, wrapped onto more lines rather than cut */
	int kw = 0, nw = 0;
	for (int a = 0; a < ACT__COUNT; a++) {
		char keys[128];
		keymap_keys_text(&ui->keys, a, keys, sizeof keys);
		int k = screen_text_width(s, keys), n = (int)strlen(action_table[a].name);
		kw = k > kw ? k : kw;
		nw = n > nw ? n : nw;
	}
	int kmax = w >= 120 ? 18 : w >= 100 ? 16 : 12;
	kw = kw > kmax ? kmax : kw < 1 ? 1 : kw;
	int nx = x + 3 + kw + 1, dx = nx + nw + 1, dw = w - (dx - x) - 1;
	if (dw < 10)
		dw = 10;
	/* the panels first (triage: what a first look needs), then the others in the table's
	 * order, from moving on */
	int order[ACT__COUNT], no = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int a = 0; a < ACT__COUNT; a++)
			if ((strcmp(action_table[a].section, "Panels") == 0) == (pass == 0))
				order[no++] = a;
	const char *section = NULL;
	for (int i = 0; i < no; i++) {
		const int a = order[i];
		const tl_action_info *ai = &action_table[a];
		if (section == NULL || strcmp(section, ai->section) != 0) {
			section = ai->section;
			if (i)
				EMIT((void)0);
			EMIT(screen_text(s, x + 1, y + row, w - 1, section, SLOT_DETAIL_KEY));
		}
		char keys[128];
		keymap_keys_text(&ui->keys, a, keys, sizeof keys);
		const char *p = ai->help, *kp = keys[0] ? keys : "-";
		int first = 1;
		while (first || *p || *kp) {
			int n = help_wrap(p, dw), kn = help_wrap(kp, kw);
			EMIT(screen_printf(s, x + 3, y + row, kw, SLOT_RANK, "%.*s", kn, kp);
			     if (first) screen_text(s, nx, y + row, nw, ai->name, SLOT_LABEL);
			     screen_printf(s, dx, y + row, dw, SLOT_NORMAL, "%.*s", n, p));
			p += n;
			kp += kn;
			while (*p == ' ')
				p++;
			while (*kp == ' ')
				kp++;
			first = 0;
		}
	}
	EMIT((void)0);
	EMIT(screen_text(s, x + 1, y + row, w - 1, ":-commands (Up and Down recall history)",
	                 SLOT_DETAIL_KEY));
	for (int i = 0; i < CMD__COUNT; i++) {
		const tl_command_info *c = &command_table[i];
		char help[400], also[64];
		snprintf(help, sizeof help, "%s%s", c->help,
		         command_aliases(c, " (also ", ")", also, sizeof also));
		EMIT(screen_printf(s, x + 3, y + row, 22, SLOT_RANK, ":%s%s%s", c->name,
		                   *c->args ? " " : "", c->args);
		     screen_text(s, x + 26, y + row, w - 27, help, SLOT_NORMAL));
	}
	EMIT(screen_text(s, x + 3, y + row, 22, ":ACTION", SLOT_RANK);
	     screen_text(s, x + 26, y + row, w - 27, "Run any action by its name, e.g. :fit-all",
	                 SLOT_NORMAL));
	EMIT((void)0);
	EMIT(screen_text(s, x + 1, y + row, w - 1, "Words (one name per idea)", SLOT_DETAIL_KEY));
	for (size_t i = 0; i < sizeof glossary / sizeof *glossary; i++) {
		const char *p = glossary[i].text;
		int first = 1, gw = w - 20 > 10 ? w - 20 : 10;
		while (first || *p) {
			int n = help_wrap(p, gw);
			EMIT(if (first)
			         screen_text(s, x + 3, y + row, 15, glossary[i].term, SLOT_RANK);
			     screen_printf(s, x + 19, y + row, gw, SLOT_NORMAL, "%.*s", n, p));
			p += n;
			while (*p == ' ')
				p++;
			first = 0;
		}
	}
	EMIT((void)0);
	EMIT(screen_text(s, x + 1, y + row, w - 1, "Colours (theme slots)", SLOT_DETAIL_KEY));
	for (int sl = 1; sl < SLOT__COUNT; sl += 3)
		EMIT(for (int k = 0; k < 3 && sl + k < SLOT__COUNT; k++) {
			int cx = x + 3 + k * 26;
			screen_fill(s, cx, y + row, 3, ' ', (uint8_t)(sl + k));
			screen_text(s, cx + 4, y + row, 21, theme_slot_name(sl + k), SLOT_NORMAL);
		});
#undef EMIT
	hs->lines = line;
	hs->rows = h - 1;
}

static int
help_action(tl_ui *ui, void *st, int a)
{
	help_state *hs = st;
	int page = ui->scr.h > 4 ? ui->scr.h - 3 : 1;
	switch (a) {
	case ACT_LANE_DOWN:
		hs->scroll++;
		break;
	case ACT_LANE_UP:
		hs->scroll--;
		break;
	case ACT_PAGE_DOWN:
		hs->scroll += page;
		break;
	case ACT_PAGE_UP:
		hs->scroll -= page;
		break;
	case ACT_FIRST_LANE:
		hs->scroll = 0;
		break;
	case ACT_LAST_LANE:
		hs->scroll = hs->lines;
		break;
	case ACT_HELP:
	case ACT_QUIT:
	case ACT_CLEAR:
		hs->scroll = 0; /* it opens at the top */
		ui_view_close(ui, &help_view);
		return 1;
	case ACT_REDRAW:
	case ACT_COMMAND:
		return 0; /* handled by the main loop */
	default:
		break;
	}
	int max = hs->lines - (hs->rows > 0 ? hs->rows : ui->scr.h - 2);
	if (hs->scroll > max)
		hs->scroll = max;
	if (hs->scroll < 0)
		hs->scroll = 0;
	return 1;
}

static void *
help_open(tl_ui *ui)
{
	(void)ui;
	return xcalloc(1, sizeof(help_state));
}

static void
help_close(tl_ui *ui, void *st)
{
	(void)ui;
	free(st);
}

const view_ops help_view = {
    .name = "help",
    .layer = UI_LAYER_HELP,
    .open_action = ACT_HELP,
    .open = help_open,
    .draw = help_draw,
    .action = help_action,
    .close = help_close,
};
