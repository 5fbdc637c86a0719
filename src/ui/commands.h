/* Every :-command of the viewer, in one table (tmux's cmd_entry): it drives dispatch, the `?`
 * help screen, Tab completion at the ':' prompt and the command list of tl(1) and docs/viewer.md
 * (`tl keys --man`, `make man-keys`; tests/tui/test_units.sh fails when they drift).
 * X(name, alias, flags, arguments, handler, help); flags: UI_WHILE_LOADING (ui/actions.h), the
 * command works while ranks still load. Aliases are separated by spaces; every action of
 * ui/actions.h is a command too, by its name. */
#ifndef TL_UI_COMMANDS_H
#define TL_UI_COMMANDS_H
#include <stdio.h>

#include "ui/view.h"

#define TL_COMMANDS(X)                                                                             \
	X("goto", "g", UI_WHILE_LOADING, "TIME", cmd_goto,                                         \
	  "Go to a time since the start: 12.5ms, 3s, 250us, 40ns (a bare number is ms); +2ms "     \
	  "and -500us move from the cursor")                                                       \
	X("search", NULL, 0, "PATTERN", cmd_search,                                                \
	  "Search slice names of all ranks with a PCRE2 regular expression (as /); caseless "      \
	  "unless the pattern has an upper-case letter")                                           \
	X("zoom", NULL, UI_WHILE_LOADING, "T0 T1", cmd_zoom, "Show the range from T0 to T1")       \
	X("mark", NULL, 0, "T0 T1 | NAME", cmd_mark,                                               \
	  "Mark the range from T0 to T1 and show its statistics; with one word, set bookmark "     \
	  "NAME "                                                                                  \
	  "at the cursor (kept per profile in $XDG_STATE_HOME/tl/)")                               \
	X("unmark", NULL, 0, "NAME", cmd_unmark,                                                   \
	  "Delete bookmark NAME (in the bookmarks panel: x or Delete on it)")                      \
	X("rank", NULL, UI_WHILE_LOADING, "N", cmd_rank, "Go to rank N")                           \
	X("pin", NULL, UI_WHILE_LOADING, "[N]", cmd_pin,                                           \
	  "Pin rank N (or the current one) to the top of the lanes; again: unpin")                 \
	X("lanes", NULL, UI_WHILE_LOADING, "[REGEX]", cmd_lanes,                                   \
	  "Show only lanes whose name or kind matches (comm|stage); alone: every lane again")      \
	X("labels", NULL, UI_WHILE_LOADING, "[N]", cmd_labels,                                     \
	  "Make the lane names' column N columns wide; alone: fitted to the names again")          \
	X("step", NULL, 0, "N", cmd_step,                                                          \
	  "Zoom to step N (ProfilerStep#N) over all ranks; mark-step then gives its statistics")   \
	X("align", NULL, 0, "step | stage NAME", cmd_align,                                        \
	  "With --compare: align B on the start of the step at the cursor, or of stage NAME in "   \
	  "it")                                                                                    \
	X("summary", NULL, 0, "", cmd_summary,                                                     \
	  "Show the overview panel: the tables of tl summary (as the overview key)")               \
	X("bubbles", NULL, 0, "[on|off]", cmd_bubbles, "Switch bubble highlighting on (or off)")   \
	X("theme", NULL, UI_WHILE_LOADING, "[NAME]", cmd_theme,                                    \
	  "Switch the theme: default, light, mono or your own (tl-theme(5))")                      \
	X("keymap", NULL, UI_WHILE_LOADING, "[NAME]", cmd_keymap,                                  \
	  "Switch the keymap: default, vim, emacs or your own (tl-keymap(5))")                     \
	X("dump", NULL, UI_WHILE_LOADING, "FILE", cmd_dump, "Write the screen as text")            \
	X("dump-attrs", NULL, UI_WHILE_LOADING, "FILE", cmd_dump_attrs,                            \
	  "Write one character per cell naming its colour slot (tl-theme(5))")                     \
	X("export", NULL, 0, "FILE.svg", cmd_export,                                               \
	  "Write the DP panel's concurrency chart (its stage, step and number) as an SVG file")    \
	X("resize", NULL, UI_WHILE_LOADING, "COLSxROWS", cmd_resize,                               \
	  "Resize the screen (script mode)")                                                       \
	X("query", NULL, 0, "SQL", cmd_query,                                                      \
	  "Run one SELECT of tl query; Enter on a row with rank and start_ns shows it")            \
	X("quit", "q q!", UI_WHILE_LOADING, "", cmd_quit, "Quit")

typedef struct tl_command_info {
	const char *name, *alias;
	int flags; /* UI_WHILE_LOADING */
	const char *args, *help;
} tl_command_info;

#define COMMAND_COUNT_(n, a, fl, g, f, h) +1
enum { CMD__COUNT = 0 TL_COMMANDS(COMMAND_COUNT_) };
#undef COMMAND_COUNT_

/* command_table.c: the table as data, and what reads it alone */
extern const tl_command_info command_table[CMD__COUNT];
/* The index of the command named (or aliased) name, or -1. */
int command_find(const char *name);
/* The aliases as ":q, :q!" between pre and post, or "" when there are none. */
char *command_aliases(const tl_command_info *, const char *pre, const char *post, char *buf,
                      size_t len);
/* The command list: format 0 plain text, 1 roff (tl(1)), 2 Markdown (docs/viewer.md). */
void commands_write_list(FILE *, int format);

/* commands.c: runs a :-command line (without the ':'): a command of the table or an action by
 * name. Returns 0 on success; the message line says what went wrong. */
int ui_command(tl_ui *, const char *line);

#endif
