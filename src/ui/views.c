/* The view stack: which views are on screen, and actions sent down through them. Every view
 * calls in here, so this file names no view: it finds them in the table ui->views
 * (view_list.c). */
#include "config.h"
#include "ui/commands.h"
#include "ui/common.h"

#include <string.h>

/* ui_loading_refuses (common.h) is here, not in ui.c, so that the view stack and the commands
 * call it without a cycle through ui.c. What works on the ranks that are in while the others
 * load is a flag of the action and command tables (UI_WHILE_LOADING): moving, zooming, the
 * lanes, the screen. The rest reads tables over every rank and waits for the last one. */
int
ui_loading_refuses(tl_ui *ui, int a, const char *cmd)
{
	size_t done, total;
	if (ui->q == NULL || !tlq_loading(ui->q, &done, &total)) /* (the unit tests' have none) */
		return 0;
	if (cmd == NULL && (a == ACT_NONE || (action_table[a].flags & UI_WHILE_LOADING)))
		return 0;
	int c = cmd ? command_find(cmd) : -1;
	if (c >= 0 && (command_table[c].flags & UI_WHILE_LOADING))
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

/* Puts view id on the stack, in its layer's place (the stack is ordered by layer, one view per
 * layer); returns the view it replaced, or -1. */
static int
stack_put(tl_ui *ui, int id)
{
	int layer = ui->views[id]->layer, i = 0;
	while (i < ui->depth && ui->views[ui->stack[i]]->layer < layer)
		i++;
	if (i < ui->depth && ui->views[ui->stack[i]]->layer == layer) {
		int was = ui->stack[i];
		ui->stack[i] = id;
		return was;
	}
	for (int k = ui->depth; k > i; k--)
		ui->stack[k] = ui->stack[k - 1];
	ui->stack[i] = id;
	ui->depth++;
	return -1;
}

/* Whether view id is `from` or one of its parents. */
static int
in_parents(const tl_ui *ui, int from, int id)
{
	for (int k = from; k >= 0; k = ui->parent[k] - 1)
		if (k == id)
			return 1;
	return 0;
}

void
ui_view_open(tl_ui *ui, const view_ops *v)
{
	int id = view_id(ui, v);
	void *st = ui_view_state(ui, v);
	if (v->show != NULL)
		v->show(ui, st);
	int was = stack_put(ui, id);
	/* opened over a view of its layer: back there when it closes; opened again from one it
	 * was the parent of: back to where it was opened from first */
	if (was < 0)
		ui->parent[id] = 0;
	else if (was != id && !in_parents(ui, was, id))
		ui->parent[id] = was + 1;
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

void
ui_view_back(tl_ui *ui, const view_ops *v)
{
	int id = view_id(ui, v), p = ui->parent[id] - 1;
	ui_view_close(ui, v);
	ui->parent[id] = 0;
	if (p >= 0) /* as it was left: its show is not called again */
		stack_put(ui, p);
}

const view_ops *
ui_view_front(const tl_ui *ui)
{
	for (int i = ui->depth - 1; i >= 0; i--)
		if (ui->views[ui->stack[i]]->layer != UI_LAYER_PANE)
			return ui->views[ui->stack[i]];
	return NULL;
}

/* The dispatch rule (tig's `default: return request`): an action goes from the top of the stack
 * down until a view takes it; a view's handler returns 0 for what is not its own. A full-screen
 * view (a panel, the help) hides those below it: what it does not take does not move the
 * timeline behind it but comes here, where the stack's own actions are: quit and clear (which
 * take a full-screen view back to where it was opened from), the prompt, redraw, and opening
 * the view whose open_action it is, from wherever it is pressed. */
void
ui_view_action(tl_ui *ui, int a)
{
	ui->msg[0] = '\0';
	ui->loaded_note = 0;
	if (ui_loading_refuses(ui, a, NULL))
		return;
	int front = -1; /* the full-screen view that did not take it */
	for (int i = ui->depth - 1; i >= 0 && front < 0; i--) {
		const view_ops *v = ui->views[ui->stack[i]];
		if (v->action && v->action(ui, ui->state[ui->stack[i]], a))
			return;
		if (v->layer >= UI_LAYER_PANEL)
			front = ui->stack[i];
	}
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		if (front >= 0)
			ui_view_back(ui, ui->views[front]);
		else if (a == ACT_QUIT)
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
	/* a key that does nothing on the timeline says why: the help text names where it works */
	if (front < 0 && a >= 0 && a < ACT__COUNT)
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
