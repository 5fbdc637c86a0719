/* The blame panel (the critical action again, :blame): the marked step's critical path by rank,
 * by kind and, for its compute, by operator, each column summing to the step's length. The
 * numbers are tlq_critical's (as `tl critical` prints them): this file only adds them up. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>

typedef struct blame_state {
	int top; /* the first row of the lists shown (scrolling) */
} blame_state;

static double
pct(int64_t ns, int64_t len)
{
	return len > 0 ? 100.0 * (double)ns / (double)len : 0.0;
}

/* One "  label  ms  %" row of a list w wide at (x, y). */
static void
row(tl_ui *ui, int x, int y, int w, const char *label, int64_t ns, int64_t len, uint8_t slot)
{
	char d[48];
	int lw = w - 20;
	screen_text(&ui->scr, x + 1, y, lw, label, slot);
	screen_printf(&ui->scr, x + 1 + lw, y, 19, slot, "%11s %6.1f%%",
	              timefmt_ms(ns, 3, d, sizeof d), pct(ns, len));
}

/* The list's rows from skip on, at most h of them; the total row last (always shown). Returns
 * the rows used. */
static int
by_rank(tl_ui *ui, const cp_step *s, int x, int y, int w, int h, int skip)
{
	int64_t len = s->end - s->start, sum = 0;
	int used = 0, idx = 0, hidden = 0;
	screen_text(&ui->scr, x + 1, y + used++, w - 1, "by rank", SLOT_DETAIL_KEY);
	for (size_t i = 0; i < s->nblame;) {
		int rank = s->blame[i].rank;
		int64_t tot = 0;
		for (; i < s->nblame && s->blame[i].rank == rank; i++)
			tot += s->blame[i].ns;
		sum += tot;
		if (idx++ < skip || used >= h - 2) {
			hidden++;
			continue;
		}
		char lab[32];
		snprintf(lab, sizeof lab, "rank %s", UI_RANK(rank));
		row(ui, x, y + used++, w, lab, tot, len, SLOT_NORMAL);
	}
	if (hidden) /* no silent cut: say what is not shown */
		screen_printf(&ui->scr, x + 1, y + used++, w - 1, SLOT_MESSAGE,
		              "(%d more rank%s: j/k scroll)", hidden, hidden == 1 ? "" : "s");
	row(ui, x, y + used++, w, "step", sum, len, SLOT_DETAIL_KEY);
	return used;
}

static int
by_kind(tl_ui *ui, const cp_step *s, int x, int y, int w)
{
	int64_t len = s->end - s->start, v[CP__COUNT] = {0}, sum = 0;
	for (size_t i = 0; i < s->nblame; i++)
		v[s->blame[i].kind] += s->blame[i].ns;
	int used = 0;
	screen_text(&ui->scr, x + 1, y + used++, w - 1, "by kind", SLOT_DETAIL_KEY);
	for (int k = 0; k < CP__COUNT; k++) {
		sum += v[k];
		if (v[k])
			row(ui, x, y + used++, w, tlq_cp_kind_name(k), v[k], len, SLOT_NORMAL);
	}
	row(ui, x, y + used++, w, "step", sum, len, SLOT_DETAIL_KEY);
	return used;
}

static void
by_op(tl_ui *ui, const cp_step *s, int x, int y, int w, int h)
{
	int64_t len = s->end - s->start, comp = 0, shown = 0;
	for (size_t i = 0; i < s->nblame; i++)
		if (s->blame[i].kind == CP_COMPUTE)
			comp += s->blame[i].ns;
	int used = 0;
	screen_text(&ui->scr, x + 1, y + used++, w - 1, "compute by operator", SLOT_DETAIL_KEY);
	size_t k = 0;
	for (; k < s->nops && used < h - 3; k++) {
		char nm[160];
		row(ui, x, y + used++, w, ui_clean(ui, s->ops[k].name, nm, sizeof nm), s->ops[k].ns,
		    len, SLOT_NORMAL);
		shown += s->ops[k].ns;
	}
	if (k < s->nops) {
		char lab[64];
		snprintf(lab, sizeof lab, "%zu other operators", s->nops - k);
		row(ui, x, y + used++, w, lab, comp - shown, len, SLOT_MESSAGE);
	}
	row(ui, x, y + used++, w, "compute", comp, len, SLOT_DETAIL_KEY);
	row(ui, x, y + used, w, "not compute", len - comp, len, SLOT_DETAIL_KEY);
}

static void
blame_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	blame_state *b = st;
	const cp_step *s = timeline_critical_step(ui);
	char k1[24], k2[24], d[32], title[256];
	keymap_key_hint(&ui->keys, ACT_CRITICAL, k1, sizeof k1);
	keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2);
	if (s == NULL) {
		ui_table_title(ui, x, y, w, " Blame of the critical path   (%s: close)", k2);
		screen_printf(
		    &ui->scr, x + 1, y + 2, w - 2, SLOT_NORMAL,
		    "No critical path marked: %s marks the path of the step at the cursor.", k1);
		return;
	}
	if (s->step >= 0)
		snprintf(title, sizeof title, "step %" PRId64, s->step);
	else
		snprintf(title, sizeof title, "the whole trace");
	ui_table_title(ui, x, y, w, " Blame of %s's critical path: %s ms   (%s: close)", title,
	               timefmt_ms(s->end - s->start, 3, d, sizeof d), k2);
	screen_printf(&ui->scr, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "%zu segments, %zu change%s of rank; each list sums to the step's %s ms",
	              s->nseg, s->jumps, s->jumps == 1 ? "" : "s",
	              timefmt_ms(s->end - s->start, 3, d, sizeof d));
	int lw = w >= 100 ? w / 2 - 2 : w >= 72 ? 36 : w, top = y + 3, rows = h - 3;
	if (lw == w) { /* narrow: one list under the other */
		int used = by_rank(ui, s, x, top, w, rows / 3, b->top);
		used += 1 + by_kind(ui, s, x, top + used + 1, w);
		by_op(ui, s, x, top + used + 1, w, rows - used - 1);
		return;
	}
	int used = by_rank(ui, s, x, top, lw, rows - CP__COUNT - 3, b->top);
	by_kind(ui, s, x, top + used + 1, lw);
	by_op(ui, s, x + lw + 2, top, w - lw - 2, rows);
}

static int
blame_action(tl_ui *ui, void *st, int a)
{
	blame_state *b = st;
	switch (a) {
	case ACT_CRITICAL:
		ui_view_back(ui, &blame_panel_view);
		return 1;
	case ACT_LANE_DOWN:
		b->top++;
		return 1;
	case ACT_LANE_UP:
		if (b->top > 0)
			b->top--;
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

static void *
blame_open(tl_ui *ui)
{
	(void)ui;
	return xcalloc(1, sizeof(blame_state));
}

static void
blame_close(tl_ui *ui, void *st)
{
	(void)ui;
	free(st);
}

const view_ops blame_panel_view = {
    .name = "blame",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_NONE,
    .open = blame_open,
    .draw = blame_draw,
    .action = blame_action,
    .close = blame_close,
};
