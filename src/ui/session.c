#include "config.h"
#include "ui/session.h"

void
ui_session_open(tl_ui *ui)
{
	ui->rl = tlq_rl_open(ui->tr, NULL);
	tlq_rl_add_lanes(ui->rl, ui->tr);
	tlq_dp_prepare(ui->rl); /* its warnings before the screen is taken */
}

void
ui_session_close(tl_ui *ui)
{
	if (ui->rl == NULL)
		return;
	tlq_rl_close(ui->rl);
	ui->rl = NULL;
}
