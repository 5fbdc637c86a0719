/* The view stack: which views are on screen, and actions sent down through them. Every view
 * calls in here, so this file names no view: it finds them in the table ui->views
 * (view_list.c). */
#include "config.h"
#include "ui/common.h"

#include <string.h>

/* ui_loading_refuses (common.h) is here, not in ui.c, so that the view stack and the commands
 * call it without a cycle through ui.c. What works on the ranks that are in while the others
 * load: moving, zooming, the lanes, the screen. The rest reads tables over every rank and waits
 * for the last one. */
static const int loading_actions[] = {
    ACT_CURSOR_LEFT,    ACT_CURSOR_RIGHT, ACT_PAN_LEFT,    ACT_PAN_RIGHT,      ACT_SCROLL_LEFT,
    ACT_SCROLL_RIGHT,   ACT_PAGE_LEFT,    ACT_PAGE_RIGHT,  ACT_ZOOM_IN,        ACT_ZOOM_OUT,
    ACT_FIT_ALL,        ACT_GO_START,     ACT_GO_END,      ACT_GOTO,           ACT_LANE_UP,
    ACT_LANE_DOWN,      ACT_PAGE_UP,      ACT_PAGE_DOWN,   ACT_RANK_PREV,      ACT_RANK_NEXT,
    ACT_FIRST_LANE,     ACT_LAST_LANE,    ACT_TOGGLE_RANK, ACT_TOGGLE_ALL,     ACT_TOGGLE_STREAMS,
    ACT_TOGGLE_OVERLAP, ACT_LABEL_WIDTH,  ACT_PIN_RANK,    ACT_TOGGLE_ABSTIME, ACT_COMMAND,
    ACT_HELP,           ACT_REDRAW,       ACT_QUIT};

static const char *const loading_commands[] = {"goto",  "zoom",       "rank",   "pin",
                                               "lanes", "labels",     "theme",  "keymap",
                                               "dump",  "dump-attrs", "resize", "quit"};

int
ui_loading_refuses(tl_ui *ui, int a, const char *cmd)
{
	size_t done, total;
	if (ui->q == NULL || !tlq_loading(ui->q, &done, &total)) /* (the unit tests' have none) */
		return 0;
	for (size_t i = 0; cmd == NULL && i < sizeof loading_actions / sizeof *loading_actions; i++)
		if (a == ACT_NONE || a == loading_actions[i])
			return 0;
	for (size_t i = 0; cmd != NULL && i < sizeof loading_commands / sizeof *loading_commands;
	     i++)
		if (strcmp(cmd, loading_commands[i]) == 0)
			return 0;
	ui_message(ui, 1, "loading… %zu/%zu ranks: %s works once every rank is in", done, total,
	           cmd ? cmd : action_table[a].name);
	return 1;
}

static int
view_id(const tl_ui *ui, const view_ops *v)
{
	for (int i = 0; i < VIEW__COUNT; i++)
		if (ui->views[i] == v)
			return i;
	return -1; /* not registered in TL_VIEWS: a programming error */
}

void *
ui_view_state(tl_ui *ui, const view_ops *v)
{
	int id = view_id(ui, v);
	if (ui->state[id] == NULL && v->open)
		ui->state[id] = v->open(ui);
	return ui->state[id];
}

void
ui_view_open(tl_ui *ui, const view_ops *v)
{
	int id = view_id(ui, v);
	void *st = ui_view_state(ui, v);
	if (v->show != NULL)
		v->show(ui, st);
	/* the stack is ordered by layer, one view per layer */
	int i = 0;
	while (i < ui->depth && ui->views[ui->stack[i]]->layer < v->layer)
		i++;
	if (i < ui->depth && ui->views[ui->stack[i]]->layer == v->layer) {
		ui->stack[i] = id;
		return;
	}
	for (int k = ui->depth; k > i; k--)
		ui->stack[k] = ui->stack[k - 1];
	ui->stack[i] = id;
	ui->depth++;
}

void
ui_view_close(tl_ui *ui, const view_ops *v)
{
	int id = view_id(ui, v);
	for (int i = 0; i < ui->depth; i++)
		if (ui->stack[i] == id) {
			ui->depth = i;
			return;
		}
}

const view_ops *
ui_view_front(const tl_ui *ui)
{
	for (int i = ui->depth - 1; i >= 0; i--)
		if (ui->views[ui->stack[i]]->layer != UI_LAYER_PANE)
			return ui->views[ui->stack[i]];
	return NULL;
}

void
ui_view_action(tl_ui *ui, int a)
{
	ui->msg[0] = '\0';
	ui->loaded_note = 0;
	if (ui_loading_refuses(ui, a, NULL))
		return;
	for (int i = ui->depth - 1; i >= 0; i--) {
		const view_ops *v = ui->views[ui->stack[i]];
		if (v->action && v->action(ui, ui->state[ui->stack[i]], a))
			return;
	}
	switch (a) {
	case ACT_QUIT:
		ui->quit = 1;
		return;
	case ACT_COMMAND:
		prompt_start(ui, ':', "");
		return;
	case ACT_REDRAW:
		ui->redraw = 1;
		return;
	default:
		break;
	}
	for (int i = 0; i < VIEW__COUNT; i++)
		if (ui->views[i]->open_action == a) {
			ui_view_open(ui, ui->views[i]);
			return;
		}
	/* a key that does nothing here says why: the help text names where it works */
	if (a >= 0 && a < ACT__COUNT)
		ui_message(ui, 1, "%s does nothing here: %s", action_table[a].name,
		           action_table[a].help);
}

void
ui_view_resize_all(tl_ui *ui)
{
	for (int i = 0; i < VIEW__COUNT; i++)
		if (ui->state[i] && ui->views[i]->resize)
			ui->views[i]->resize(ui, ui->state[i]);
}

void
ui_view_close_all(tl_ui *ui)
{
	ui->depth = 0;
	for (int i = 0; i < VIEW__COUNT; i++)
		if (ui->state[i]) {
			if (ui->views[i]->close)
				ui->views[i]->close(ui, ui->state[i]);
			ui->state[i] = NULL;
		}
}
