/* The :-commands: one handler per entry of TL_COMMANDS (ui/commands.h), the dispatcher, and the
 * command list of tl(1) and docs/viewer.md. */
#include "config.h"
#include "ui/compare.h"
#include "ui/commands.h"
#include "ui/common.h"
#include "ui/dp_panel.h"
#include "ui/term.h"
#include "ui/timeline.h"
#include "util/timefmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the handlers -------------------------------------------------------------------------- */

/* A time since the start of the profile, or from the cursor with a sign. */
static int
parse_time(tl_ui *ui, const char *s, int64_t *out)
{
	while (*s == ' ')
		s++;
	int rel = *s == '+' || *s == '-';
	int64_t v;
	if (timefmt_parse(s, 1000000 /* bare numbers are ms */, &v) != 0)
		return -1;
	*out = rel ? timeline_cursor(ui) + v : ui->origin + v;
	return 0;
}

/* "T0 T1": two increasing times. */
static int
parse_range(tl_ui *ui, const char *cmd, char *arg, int64_t *a, int64_t *b)
{
	char *sp = strchr(arg, ' ');
	if (sp == NULL) {
		ui_message(ui, 1, "%s: give two times, e.g. :%s 10ms 20ms", cmd, cmd);
		return -1;
	}
	*sp = '\0';
	if (parse_time(ui, arg, a) != 0 || parse_time(ui, sp + 1, b) != 0 || *b <= *a) {
		ui_message(ui, 1, "%s: give two increasing times, e.g. :%s 10ms 20ms", cmd, cmd);
		return -1;
	}
	return 0;
}

static int
cmd_goto(tl_ui *ui, char *arg)
{
	int64_t a;
	if (parse_time(ui, arg, &a) != 0) {
		ui_message(ui, 1, "goto: give a time such as 12.5ms, 3s, 250us or +2ms");
		return -1;
	}
	timeline_goto(ui, a);
	return 0;
}

static int
cmd_search(tl_ui *ui, char *arg)
{
	return timeline_search(ui, arg);
}

static int
cmd_zoom(tl_ui *ui, char *arg)
{
	int64_t a, b;
	if (parse_range(ui, "zoom", arg, &a, &b) != 0)
		return -1;
	timeline_show_range(ui, a, b);
	return 0;
}

static int
cmd_mark(tl_ui *ui, char *arg)
{
	int64_t a, b;
	if (*arg && strchr(arg, ' ') == NULL) /* one word: a bookmark at the cursor */
		return bookmarks_add(ui, arg);
	if (parse_range(ui, "mark", arg, &a, &b) != 0)
		return -1;
	timeline_mark_range(ui, a, b);
	return 0;
}

static int
cmd_unmark(tl_ui *ui, char *arg)
{
	if (*arg == '\0') {
		ui_message(ui, 1, "unmark: which bookmark? (' lists them)");
		return -1;
	}
	return bookmarks_delete(ui, arg);
}

static int
cmd_rank(tl_ui *ui, char *arg)
{
	char *end;
	long r = strtol(arg, &end, 10);
	for (size_t ri = 0; *arg && *end == '\0' && ri < ui->tr->nranks; ri++)
		if (ui->tr->ranks[ri]->rank == r && timeline_goto_rank(ui, ri) == 0)
			return 0;
	ui_message(ui, 1, "rank: no rank '%s' loaded", arg);
	return -1;
}

static int
cmd_pin(tl_ui *ui, char *arg)
{
	if (*arg == '\0') {
		ui_view_action(ui, ACT_PIN_RANK);
		return 0;
	}
	char *end;
	long r = strtol(arg, &end, 10);
	for (size_t ri = 0; *end == '\0' && ri < ui->tr->nranks; ri++)
		if (ui->tr->ranks[ri]->rank == r) {
			timeline_pin_rank(ui, ri);
			return 0;
		}
	ui_message(ui, 1, "pin: no rank '%s' loaded", arg);
	return -1;
}

static int
cmd_lanes(tl_ui *ui, char *arg)
{
	return timeline_filter_lanes(ui, arg);
}

static int
cmd_labels(tl_ui *ui, char *arg)
{
	char *end;
	long n = *arg ? strtol(arg, &end, 10) : 0;
	if (*arg && (*end != '\0' || n < 1 || n > 1000)) {
		ui_message(ui, 1, "labels: expected a number of columns, not '%s'", arg);
		return -1;
	}
	timeline_labels_set(ui, (int)n);
	return 0;
}

static int
cmd_align(tl_ui *ui, char *arg)
{
	return compare_align(ui, arg);
}

static int
cmd_summary(tl_ui *ui, char *arg)
{
	(void)arg;
	ui_view_open(ui, &overview_view);
	return 0;
}

static int
cmd_step(tl_ui *ui, char *arg)
{
	char *end;
	long long id = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0') {
		ui_message(ui, 1, "step: expected a step number (ProfilerStep#N), got '%s'", arg);
		return -1;
	}
	return timeline_goto_step(ui, (int64_t)id);
}

static int
cmd_bubbles(tl_ui *ui, char *arg)
{
	int want = strcmp(arg, "off") != 0;
	if (want != timeline_bubbles_shown(ui))
		ui_view_action(ui, ACT_TOGGLE_BUBBLES);
	return 0;
}

static int
cmd_theme(tl_ui *ui, char *arg)
{
	tl_theme t;
	char err[512];
	int rc = theme_load(&t, *arg ? arg : NULL, err, sizeof err);
	if (rc == TL_CONF_UNREADABLE) {
		ui_message(ui, 1, "%s", err);
		return -1;
	}
	ui->theme = t;
	term_styles(&ui->theme);
	if (rc != 0)
		ui_message(ui, 1, "%s", err);
	return rc;
}

static int
cmd_keymap(tl_ui *ui, char *arg)
{
	tl_keymap k;
	char err[512];
	int rc = keymap_load(&k, *arg ? arg : NULL, err, sizeof err);
	if (rc == TL_CONF_UNREADABLE) {
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

static int
dump_to(tl_ui *ui, const char *cmd, const char *path, int attrs)
{
	if (*path == '\0') {
		ui_message(ui, 1, "%s: give a file name", cmd);
		return -1;
	}
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

static int
cmd_dump(tl_ui *ui, char *arg)
{
	return dump_to(ui, "dump", arg, 0);
}

static int
cmd_dump_attrs(tl_ui *ui, char *arg)
{
	return dump_to(ui, "dump-attrs", arg, 1);
}

static int
cmd_export(tl_ui *ui, char *arg)
{
	return dp_panel_export_svg(ui, arg);
}

static int
cmd_resize(tl_ui *ui, char *arg)
{
	int c, r;
	if (sscanf(arg, "%dx%d", &c, &r) != 2 || c < 1 || r < 1 || c > 1000 || r > 1000) {
		ui_message(ui, 1, "resize: give COLSxROWS");
		return -1;
	}
	term_resize(&ui->scr, c, r);
	ui_view_resize_all(ui);
	return 0;
}

static int
cmd_query(tl_ui *ui, char *arg)
{
	if (*arg == '\0') {
		ui_message(ui, 1, "query: give one SELECT, e.g. :query SELECT * FROM steps");
		return -1;
	}
	return query_panel_run(ui, arg);
}

static int
cmd_quit(tl_ui *ui, char *arg)
{
	(void)arg;
	ui->quit = 1;
	return 0;
}

/* ---- the table ----------------------------------------------------------------------------- */

typedef int (*command_fn)(tl_ui *, char *arg);
#define COMMAND_FN_(n, a, fl, g, f, h) f,
static const command_fn command_fns[CMD__COUNT] = {TL_COMMANDS(COMMAND_FN_)};
#undef COMMAND_FN_

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

	if (cmd[0] == '\0')
		return 0;
	if (cmd[0] == '/') /* :/PATTERN searches, as / does */
		return ui_loading_refuses(ui, ACT_SEARCH, NULL) ? 0 : timeline_search(ui, line + 1);
	int i = command_find(cmd);
	if (i >= 0)
		return ui_loading_refuses(ui, ACT_NONE, command_table[i].name)
		           ? 0
		           : command_fns[i](ui, arg);
	int act = action_by_name(cmd);
	if (act != ACT_NONE) {
		ui_view_action(ui, act);
		return 0;
	}
	char c[80];
	ui_message(ui, 1, "Unknown command '%s' (? lists actions and commands)",
	           ui_clean(ui, cmd, c, sizeof c));
	return -1;
}
