/* The help screen: generated from the action table and the keymap in use, so it always tells
 * the keys that work; then the :-commands and the colour slots of the theme. */
#include "config.h"
#include "ui/ui.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static const char *const commands[][2] = {
    {"goto TIME", "go to a time since the start: 12.5ms, 3s, 250us; +2ms/-2ms from the cursor"},
    {"search PATTERN", "search slice names (also /PATTERN); smart case"},
    {"zoom T0 T1", "show the range [T0, T1)"},
    {"mark T0 T1", "mark the range [T0, T1) and show its statistics"},
    {"rank N", "go to rank N"},
    {"theme NAME", "switch theme (default, light, mono, or your own)"},
    {"keymap NAME", "switch keymap (default, vim, emacs, or your own)"},
    {"dump FILE", "write the screen as text"},
    {"dump-attrs FILE", "write one character per cell naming its colour slot"},
    {"ACTION", "run any action by its name, e.g. :fit-all"},
    {"quit", "quit (also :q)"},
};

static void
help_draw(tl_ui *ui, int x, int y, int w, int h)
{
	tl_screen *s = &ui->scr;
	screen_clear(s, SLOT_NORMAL);
	int row = 0, line = 0;
	const int top = ui->help_scroll;
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
	const char *section = NULL;
	for (int a = 0; a < ACT__COUNT; a++) {
		const tl_action_info *ai = &action_table[a];
		if (section == NULL || strcmp(section, ai->section) != 0) {
			section = ai->section;
			if (a)
				EMIT((void)0);
			EMIT(screen_text(s, x + 1, y + row, w - 1, section, SLOT_DETAIL_KEY));
		}
		char keys[128];
		keymap_keys_text(&ui->keys, a, keys, sizeof keys);
		EMIT(screen_text(s, x + 3, y + row, 18, keys[0] ? keys : "-", SLOT_RANK);
		     screen_text(s, x + 22, y + row, 20, ai->name, SLOT_LABEL);
		     screen_text(s, x + 43, y + row, w - 44, ai->help, SLOT_NORMAL));
	}
	EMIT((void)0);
	EMIT(screen_text(s, x + 1, y + row, w - 1, ":-commands (Up and Down recall history)",
	                 SLOT_DETAIL_KEY));
	for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
		EMIT(screen_printf(s, x + 3, y + row, 22, SLOT_RANK, ":%s", commands[i][0]);
		     screen_text(s, x + 26, y + row, w - 27, commands[i][1], SLOT_NORMAL));
	EMIT((void)0);
	EMIT(screen_text(s, x + 1, y + row, w - 1, "Colours (theme slots)", SLOT_DETAIL_KEY));
	for (int sl = 1; sl < SLOT__COUNT; sl += 3)
		EMIT(for (int k = 0; k < 3 && sl + k < SLOT__COUNT; k++) {
			int cx = x + 3 + k * 26;
			screen_fill(s, cx, y + row, 3, ' ', (uint8_t)(sl + k));
			screen_text(s, cx + 4, y + row, 21, theme_slot_name(sl + k), SLOT_NORMAL);
		});
#undef EMIT
	ui->help_lines = line;
}

static int
help_action(tl_ui *ui, int a)
{
	int page = ui->scr.h > 4 ? ui->scr.h - 3 : 1;
	switch (a) {
	case ACT_LANE_DOWN:
		ui->help_scroll++;
		break;
	case ACT_LANE_UP:
		ui->help_scroll--;
		break;
	case ACT_PAGE_DOWN:
		ui->help_scroll += page;
		break;
	case ACT_PAGE_UP:
		ui->help_scroll -= page;
		break;
	case ACT_FIRST_LANE:
		ui->help_scroll = 0;
		break;
	case ACT_LAST_LANE:
		ui->help_scroll = ui->help_lines;
		break;
	case ACT_HELP:
	case ACT_QUIT:
	case ACT_CLEAR:
		ui->help = 0;
		return 1;
	case ACT_REDRAW:
	case ACT_COMMAND:
		return 0; /* handled by the main loop */
	default:
		break;
	}
	int max = ui->help_lines - (ui->scr.h - 2);
	if (ui->help_scroll > max)
		ui->help_scroll = max;
	if (ui->help_scroll < 0)
		ui->help_scroll = 0;
	return 1;
}

const view_ops help_view = {
    .name = "help",
    .draw = help_draw,
    .action = help_action,
};
