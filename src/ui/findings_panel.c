/* The findings panel (`!`, :findings): tl triage's findings, largest recoverable time first, one
 * row each (its title), the selected one's evidence under the list; Enter shows its place on
 * the timeline with the evidence on the message line. Every number is tlq_findings'. */
#include "config.h"
#include "query/findings.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct findings_state {
	ui_table tab;
	tl_finding *v;
	size_t n;
	int built;
	/* the verdict line's: the rules over the loaded lanes only (see findings_verdict) */
	tl_finding *lv;
	size_t ln;
	int lbuilt;
} findings_state;

static const ui_col findings_cols[] = {
    {"#", 4, UI_ALIGN_RIGHT, 0, 0, 0},
    {"ms", 10, UI_ALIGN_RIGHT, 0, 0, 0},
    {"share", 7, UI_ALIGN_RIGHT, 0, 0, 0},
    {"finding", 0, UI_ALIGN_LEFT, 2, 0, 0},
};

static void
build(tl_ui *ui, findings_state *s)
{
	free(s->v);
	s->v = NULL;
	s->n = tlq_findings(ui->q, NULL, &s->v);
	s->built = 1;
}

static void
findings_row_cells(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	const findings_state *s = ctx;
	const tl_finding *f = &s->v[row];
	char t[256];
	snprintf(out->cell[0], sizeof out->cell[0], "%zu", row + 1);
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
	snprintf(out->cell[1], sizeof out->cell[1], "%.3f", (double)f->recoverable_ns / 1e6);
	snprintf(out->cell[2], sizeof out->cell[2], "%.1f%%", 100.0 * f->share);
	ui_clean(ui, tlq_finding_title(ui->q, f, t, sizeof t), out->cell[3], sizeof out->cell[3]);
}

static void
findings_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	findings_state *s = state;
	char k1[24];
	if (!s->built)
		build(ui, s);
	ui_table_title(
	    ui, x, y, w,
	    " Findings: what costs the most time, largest first   (Enter: show, %s: close)",
	    keymap_key_hint(&ui->keys, ACT_QUIT, k1, sizeof k1));
	if (s->n == 0) {
		screen_printf(
		    sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
		    "No findings: none of the %d rules found a problem (man tl: FINDINGS).",
		    TL_FIND__COUNT);
		return;
	}
	screen_printf(
	    sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	    "%zu finding%s; ms = the time the job would save per capture if fixed, share = "
	    "of the step time",
	    s->n, s->n == 1 ? "" : "s");
	s->tab.n = s->n;
	/* the evidence of the selected one below the list, wrapped: the lines it needs, up to a
	 * third of the panel (at least 3) */
	char ev[600] = "";
	if (s->tab.sel < s->n)
		ui_clean(ui, s->v[s->tab.sel].evidence, ev, sizeof ev);
	size_t starts[17];
	int most = h / 3 < 3 ? 3 : h / 3 > 16 ? 16 : h / 3;
	int need = ev[0] ? ui_wrap_starts(sc, ev, w - 2, most, starts) : 0;
	int lh = h > 6 && need > 0 ? h - need : h;
	ui_table_draw(ui, &s->tab, x, y, w, lh);
	if (lh < h)
		ui_wrap_text(ui, x + 1, y + lh, w - 2, h - lh, SLOT_DETAIL_KEY, ev);
}

/* The finding's place on the timeline, its evidence on the message line. */
static void
jump(tl_ui *ui, const tl_finding *f)
{
	ui_view_close(ui, &findings_panel_view);
	char ev[600];
	ui_message(ui, 0, "%s", ui_clean(ui, f->evidence, ev, sizeof ev));
	timeline_mark_finding(ui, f);
	if (f->rank_ix >= ui->tr->nranks)
		return;
	if (f->end_ns > f->start_ns)
		timeline_reveal(ui, f->rank_ix, f->start_ns, f->end_ns, NULL);
	else
		timeline_goto_rank(ui, f->rank_ix);
}

void
findings_panel_show(tl_ui *ui, size_t ix)
{
	ui_view_open(ui, &findings_panel_view);
	findings_state *s = ui_view_state(ui, &findings_panel_view);
	if (!s->built)
		build(ui, s);
	s->tab.n = s->n;
	if (ix < s->n) {
		s->tab.sel = ix;
		jump(ui, &s->v[ix]);
	}
}

/* The verdict reads no profile file again: at the viewer's start, the rules that need the
 * operator, launch, counter or communication tables (a scan of every rank's TASK table) would
 * hold the keys for seconds on a large profile and bring its DBs back into the page cache that
 * the load dropped; they run when the panel opens. */
size_t
findings_verdict(tl_ui *ui, char *title, size_t len)
{
	findings_state *s = ui_view_state(ui, &findings_panel_view);
	if (!s->lbuilt) {
		tl_find_opts o = {.no_files = 1};
		s->ln = tlq_findings(ui->q, &o, &s->lv);
		s->lbuilt = 1;
	}
	title[0] = '\0';
	if (s->ln > 0) {
		char t[256];
		ui_clean(ui, tlq_finding_title(ui->q, &s->lv[0], t, sizeof t), title, len);
	}
	return s->ln;
}

static int
findings_action(tl_ui *ui, void *state, int a)
{
	findings_state *s = state;
	if (!s->built)
		build(ui, s);
	s->tab.n = s->n;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER:
		if (s->tab.sel < s->n)
			jump(ui, &s->v[s->tab.sel]);
		return 1;
	case UI_LIST_OTHER:
		return 0; /* not the panel's: the view stack's rule */
	default:
		return 1;
	}
}

static void *
findings_open(tl_ui *ui)
{
	(void)ui;
	findings_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, findings_cols, (int)(sizeof findings_cols / sizeof *findings_cols),
	              1, 3, findings_row_cells, s);
	return s;
}

static void
findings_close(tl_ui *ui, void *st)
{
	(void)ui;
	findings_state *s = st;
	free(s->v);
	free(s->lv);
	free(s);
}

const view_ops findings_panel_view = {
    .name = "findings",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_FINDINGS_PANEL,
    .open = findings_open,
    .draw = findings_draw,
    .action = findings_action,
    .close = findings_close,
};
