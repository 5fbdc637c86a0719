/* The clocks panel (:clocks): the hosts' clocks as the load aligned them, one row per host (its
 * ranks, offset, drift, residual, the collectives and P2P pairs the estimate rests on, how it
 * was found), the reference first; or why there is none (one host, --clock raw). Enter goes to
 * the host's first rank. Every number is tlq_clocks' (`tl info`'s table). */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct clock_state {
	ui_table tab;
	tlq_clock_table c;
} clock_state;

static const ui_col clock_cols[] = {
    {"host", 12, UI_ALIGN_LEFT_WHOLE, 0, 0, 0}, {"ranks", 8, UI_ALIGN_LEFT_WHOLE, 0, 0, 0},
    {"offset ms", 12, UI_ALIGN_RIGHT, 0, 0, 0}, {"drift ppm", 10, UI_ALIGN_RIGHT, 0, 0, 0},
    {"resid us", 10, UI_ALIGN_RIGHT, 0, 0, 0},  {"samples", 7, UI_ALIGN_RIGHT, 0, 0, 0},
    {"how", 0, UI_ALIGN_LEFT, 2, 0, 9},
};

static void
clock_row_cells(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	const clock_state *s = ctx;
	const tl_clock_host *h = &s->c.hosts[row];
	ui_clean(ui, h->name, out->cell[0], sizeof out->cell[0]);
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
	tlq_clock_ranks_text(h, out->cell[1], sizeof out->cell[1]);
	snprintf(out->cell[2], sizeof out->cell[2], "%.6f", (double)h->clock.off / 1e6);
	snprintf(out->cell[3], sizeof out->cell[3], "%.3f", h->clock.drift * 1e6);
	snprintf(out->cell[4], sizeof out->cell[4], "%.3f", (double)h->residual_ns / 1e3);
	snprintf(out->cell[5], sizeof out->cell[5], "%zu", h->samples);
	snprintf(out->cell[6], sizeof out->cell[6], "%s",
	         tlq_clock_how_name(h->how, TLQ_HOW_BRIEF));
	if (h->how == TL_CLOCK_REFERENCE)
		out->slot[6] = SLOT_DETAIL_KEY;
}

static void
clock_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	clock_state *s = st;
	tl_screen *sc = &ui->scr;
	char k[24], ref[256];
	tlq_clocks(ui->q, &s->c);
	s->tab.n = s->c.state == TLQ_CLOCKS_ALIGNED ? s->c.nhosts : 0;
	keymap_key_hint(&ui->keys, ACT_QUIT, k, sizeof k);
	if (s->c.state != TLQ_CLOCKS_ALIGNED) {
		ui_table_title(ui, x, y, w, " Host clocks   (%s: close)", k);
		screen_printf(
		    sc, x + 1, y + 2, w - 2, SLOT_NORMAL, "%s",
		    s->c.state == TLQ_CLOCKS_ONE_HOST
		        ? "One host: no correction (its ranks share its clock)."
		        : "--clock raw: not aligned (each host's times on its own clock).");
		return;
	}
	ui_table_title(ui, x, y, w,
	               " Host clocks: all times on %s's clock   (Enter: go, %s: close)",
	               ui_clean(ui, s->c.hosts[0].name, ref, sizeof ref), k);
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "%zu hosts; offset: its clock's lead amid its samples (the collectives used)",
	              s->c.nhosts);
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static int
clock_action(tl_ui *ui, void *st, int a)
{
	clock_state *s = st;
	tlq_clocks(ui->q, &s->c);
	s->tab.n = s->c.state == TLQ_CLOCKS_ALIGNED ? s->c.nhosts : 0;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER: {
		if (s->tab.sel >= s->tab.n)
			return 1;
		size_t ri = tlq_clock_first_rank(ui->q, &s->c.hosts[s->tab.sel]);
		ui_view_close(ui, &clock_panel_view);
		if (ri == SIZE_MAX || timeline_goto_rank(ui, ri) < 0)
			ui_message(ui, 1, "no lane shows the host's first rank");
		return 1;
	}
	case UI_LIST_OTHER:
		return 0; /* not the panel's: the view stack's rule */
	default:
		return 1;
	}
}

static void *
clock_open(tl_ui *ui)
{
	(void)ui;
	clock_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, clock_cols, (int)(sizeof clock_cols / sizeof *clock_cols), 1, 3,
	              clock_row_cells, s);
	return s;
}

static void
clock_close(tl_ui *ui, void *st)
{
	(void)ui;
	free(st);
}

const view_ops clock_panel_view = {
    .name = "clocks",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_CLOCKS,
    .open = clock_open,
    .draw = clock_draw,
    .action = clock_action,
    .close = clock_close,
};
