#include "config.h"
#include "ui/rl.h"
#include "util/xalloc.h"

#include <stdlib.h>

ui_rl *
ui_rl_get(tl_ui *ui)
{
	if (ui->rl == NULL) {
		ui->rl = xcalloc(1, sizeof *ui->rl);
		ui->rl->rl = tlq_rl_open(ui->tr, NULL);
		ui->rl->imb = SIZE_MAX;
	}
	return ui->rl;
}

void
ui_rl_init(tl_ui *ui)
{
	ui_rl *s = ui_rl_get(ui);
	tlq_rl_add_lanes(s->rl, ui->tr);
}

void
ui_rl_open_panel(tl_ui *ui, int action)
{
	ui_rl_get(ui);
	ui->panel = action == ACT_PP_VIEW ? &pipeline_view : &imbalance_view;
	/* the view sets itself up on its own action */
	ui->panel->action(ui, action);
}

void
ui_rl_done(tl_ui *ui)
{
	if (ui->rl == NULL)
		return;
	tlq_rl_close(ui->rl->rl);
	free(ui->rl->order);
	free(ui->rl);
	ui->rl = NULL;
}
