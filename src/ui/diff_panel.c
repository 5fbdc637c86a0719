/* The diff panel (tl view A --compare B; `%`, :diff): the ranked changes of tl diff A B, as
 * the query layer ranks them (tlq_diff_changes), with its verdict on top; Enter shows the
 * change's stage and step in both runs (the timeline, B aligned on the stage's start). */
#include "config.h"
#include "ui/common.h"
#include "ui/compare.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct diff_state {
	size_t *rows; /* indexes into cmp->ch of the changes shown */
	size_t n;
	int built;
	size_t sel, top;
} diff_state;

static void
build(tl_ui *ui, diff_state *s)
{
	if (s->built)
		return;
	s->built = 1;
	ui_compare *c = ui->cmp;
	if (c == NULL)
		return;
	s->rows = xmalloc((c->nch + 1) * sizeof *s->rows);
	for (size_t i = 0; i < c->nch; i++)
		if (tlq_diff_changed(&c->ch[i]))
			s->rows[s->n++] = i;
}

/* ns as ms with 3 decimals, signed when asked */
static char *
ms(int64_t ns, int sign, char *buf, size_t len)
{
	snprintf(buf, len, sign ? "%+.3f" : "%.3f", (double)ns / 1e6);
	return buf;
}

static void
step_text(const ui_compare *c, int64_t key, char *buf, size_t len)
{
	int64_t sa = tlq_diff_step_id(&c->a, key), sb = tlq_diff_step_id(&c->b, key);
	if (key < 0)
		snprintf(buf, len, "all");
	else if (sa == sb)
		snprintf(buf, len, "%" PRId64, sa);
	else
		snprintf(buf, len, "%" PRId64 ":%" PRId64, sa, sb);
}

static void
diff_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	diff_state *s = st;
	build(ui, s);
	ui_compare *c = ui->cmp;
	char k[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (c == NULL) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Diff   (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k, sizeof k));
		screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
		              "Nothing to compare: open two runs with tl view A --compare B.");
		return;
	}
	char vd[600];
	ui_clean(ui, c->verdict, vd, sizeof vd);
	screen_printf(sc, x, y, w, SLOT_TITLE, " Diff: %s   (Enter: both runs, %s: close)", vd,
	              keymap_key_hint(&ui->keys, ACT_QUIT, k, sizeof k));
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "A %s, B %s: %zu changes, largest first; ms; rank all(N): the mean over "
	              "ranks, N changed most",
	              c->label_a, c->label_b, s->n);
	/* the name takes what the numbers leave */
	int nw = w - 2 - 14 - 9 - 7 - 3 * 12 - 8 - 1;
	if (nw < 12)
		nw = 12;
	if (nw > 40)
		nw = 40;
	screen_printf(sc, x + 2, y + 2, w - 2, SLOT_LABEL, "%-13s %-*s %8s %6s %11s %11s %11s %7s",
	              "kind", nw, "name", "rank", "step", "A", "B", "delta", "delta%");
	if (s->n == 0) {
		screen_printf(sc, x + 1, y + 4, w - 2, SLOT_NORMAL, "No changes.");
		return;
	}
	int rows = h - 3;
	if (rows < 1)
		return;
	if (s->sel >= s->n)
		s->sel = s->n - 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + (size_t)rows)
		s->top = s->sel - (size_t)rows + 1;
	for (int r = 0; r < rows && s->top + (size_t)r < s->n; r++) {
		size_t i = s->top + (size_t)r;
		const tl_diff_change *ch = &c->ch[s->rows[i]];
		int yy = y + 3 + r, sel = i == s->sel;
		char nm[256], rk[24], stp[48], a[32], b[32], d[32], p[32];
		ui_clean(ui, ch->name, nm, sizeof nm);
		if (ch->rank < 0 && ch->top_rank >= 0)
			snprintf(rk, sizeof rk, "all(%d)", ch->top_rank);
		else if (ch->rank < 0)
			snprintf(rk, sizeof rk, "all");
		else
			snprintf(rk, sizeof rk, "%d", ch->rank);
		step_text(c, ch->step, stp, sizeof stp);
		if (sel)
			screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		int64_t dl = diff_delta(ch);
		int cx = x + 2;
		screen_printf(sc, cx, yy, w - 2, sel ? SLOT_LABEL_CURRENT : SLOT_NORMAL,
		              "%-13s %-*.*s %8s %6s %11s %11s", diff_kind_name(ch->kind), nw, nw,
		              nm, rk, stp, ms(ch->a, 0, a, sizeof a), ms(ch->b, 0, b, sizeof b));
		cx += 13 + 1 + nw + 1 + 8 + 1 + 6 + 1 + 11 + 1 + 11;
		screen_printf(sc, cx, yy, x + w - cx,
		              dl > 0   ? SLOT_DIFF_LONGER
		              : dl < 0 ? SLOT_DIFF_SHORTER
		                       : SLOT_NORMAL,
		              " %11s %7s", ms(dl, 1, d, sizeof d),
		              tlq_diff_pct_text(ch, p, sizeof p));
	}
}

static int
diff_action(tl_ui *ui, void *st, int a)
{
	diff_state *s = st;
	build(ui, s);
	int page = ui->scr.h > 6 ? ui->scr.h - 5 : 1;
	if (ui_list_move(&s->sel, s->n, page, a))
		return 1;
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		ui_view_close(ui, &diff_panel_view);
		return 1;
	case ACT_HELP:
	case ACT_COMMAND:
	case ACT_REDRAW:
	case ACT_DP_PANEL:
	case ACT_PP_VIEW:
	case ACT_OVERVIEW:
	case ACT_COMM_PANEL:
	case ACT_SLOW_PANEL:
	case ACT_OPS_PANEL:
		return 0;
	case ACT_SELECT:
		if (ui->cmp && s->sel < s->n) {
			const tl_diff_change *ch = &ui->cmp->ch[s->rows[s->sel]];
			ui_view_close(ui, &diff_panel_view);
			compare_show(ui, ch);
		}
		return 1;
	default:
		return 1;
	}
}

static void *
diff_open(tl_ui *ui)
{
	(void)ui;
	return xcalloc(1, sizeof(diff_state));
}

static void
diff_close(tl_ui *ui, void *st)
{
	(void)ui;
	diff_state *s = st;
	free(s->rows);
	free(s);
}

const view_ops diff_panel_view = {
    .name = "diff",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_DIFF_PANEL,
    .open = diff_open,
    .draw = diff_draw,
    .action = diff_action,
    .close = diff_close,
};
