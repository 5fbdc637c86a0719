/* The diff panel (tl view A --compare B; `%`, :diff): the ranked changes of tl diff A B, as
 * the query layer ranks them (tlq_diff_changes), with its verdict on top. A row is a quantity
 * over all ranks; its ranks fold under it (Right or Enter opens them, Left closes, Space
 * toggles). Enter on an open row or a rank's row shows the change in both runs: a stage's
 * stage and step (B aligned on the stage's start), an operator's largest kernel on that rank. */
#include "config.h"
#include "ui/common.h"
#include "ui/compare.h"
#include "ui/ops_panel.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { DC_KIND, DC_NAME, DC_RANK, DC_STEP, DC_A, DC_B, DC_DELTA, DC_PCT, DC__COUNT };

typedef struct diff_state {
	size_t *rows; /* indexes into cmp->ch of the rows shown */
	size_t n;
	size_t nchanged;     /* changed rows, as tl diff --json lists them */
	unsigned char *open; /* per cmp->ch index of an all-ranks row: its ranks shown */
	int built;
	ui_col cols[DC__COUNT]; /* the name's width follows the screen's */
	ui_table tab;
	tl_ui *ui;
} diff_state;

/* The columns as tl diff prints them; on a narrow screen the kind leaves first, then A and B:
 * the delta stays. */
static const ui_col diff_cols[DC__COUNT] = {
    {.name = "kind", .width = 13, .align = UI_ALIGN_LEFT, .drop = 2},
    {.name = "name", .width = 36, .align = UI_ALIGN_LEFT},
    {.name = "rank", .width = 8, .align = UI_ALIGN_RIGHT},
    {.name = "step", .width = 6, .align = UI_ALIGN_RIGHT},
    {.name = "A", .width = 11, .align = UI_ALIGN_RIGHT, .drop = 1},
    {.name = "B", .width = 11, .align = UI_ALIGN_RIGHT, .drop = 1},
    {.name = "delta", .width = 11, .align = UI_ALIGN_RIGHT},
    {.name = "delta%", .width = 7, .align = UI_ALIGN_RIGHT},
};

/* An all-ranks row's per-rank rows worth opening: changed, and not all the same as the mean. */
static size_t
ranks_to_open(const ui_compare *c, size_t i)
{
	size_t nr = 0, same = 0, changed = 0;
	for (size_t j = i + 1; j < c->nch && c->ch[j].rank >= 0; j++, nr++) {
		changed += tlq_diff_changed(&c->ch[j]);
		same +=
		    tlq_diff_changed(&c->ch[j]) && diff_delta(&c->ch[j]) == diff_delta(&c->ch[i]);
	}
	return nr > 1 && same == nr ? 0 : changed;
}

/* The rows shown: each changed quantity's all-ranks row, and the changed ranks of the open
 * ones; the selection stays on the row it was on. */
static void
build(tl_ui *ui, diff_state *s)
{
	if (s->built)
		return;
	s->built = 1;
	ui_compare *c = ui->cmp;
	if (c == NULL)
		return;
	size_t was = s->n && s->tab.sel < s->n ? s->rows[s->tab.sel] : SIZE_MAX;
	if (s->rows == NULL) {
		s->rows = xmalloc((c->nch + 1) * sizeof *s->rows);
		s->open = xcalloc(c->nch + 1, 1);
	}
	s->n = s->nchanged = 0;
	for (size_t i = 0; i < c->nch; i++) {
		const tl_diff_change *ch = &c->ch[i];
		s->nchanged += tlq_diff_changed(ch) != 0;
		if (ch->rank < 0 && (tlq_diff_changed(ch) || ch->ranks_changed > 0)) {
			s->rows[s->n++] = i;
			for (size_t j = i + 1; s->open[i] && j < c->nch && c->ch[j].rank >= 0; j++)
				if (tlq_diff_changed(&c->ch[j]))
					s->rows[s->n++] = j;
		}
	}
	for (size_t r = 0; r < s->n; r++)
		if (s->rows[r] == was)
			s->tab.sel = r;
	s->tab.n = s->n;
}

/* The all-ranks row of row r (r itself when it is one). */
static size_t
head_of(const ui_compare *c, const diff_state *s, size_t r)
{
	size_t i = s->rows[r];
	while (i > 0 && c->ch[i].rank >= 0)
		i--;
	return i;
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
diff_row(tl_ui *ui, void *ctx, size_t i, int sel, ui_table_row *out)
{
	const diff_state *s = ctx;
	const ui_compare *c = ui->cmp;
	const tl_diff_change *ch = &c->ch[s->rows[i]];
	char nm[UI_TABLE_CELL - 8];
	ui_clean(ui, ch->name, nm, sizeof nm);
	if (ch->rank >= 0) { /* a rank's row, under its quantity's */
		snprintf(out->cell[DC_NAME], sizeof out->cell[DC_NAME], "    %s", nm);
	} else {
		const char *mark = ranks_to_open(c, s->rows[i]) == 0 ? "  "
		                   : s->open[s->rows[i]]             ? (ui->utf8 ? "\u25be " : "- ")
		                                         : (ui->utf8 ? "\u25b8 " : "+ ");
		snprintf(out->cell[DC_KIND], sizeof out->cell[DC_KIND], "%s",
		         tlq_diff_kind_name(ch->kind));
		snprintf(out->cell[DC_NAME], sizeof out->cell[DC_NAME], "%s%s", mark, nm);
	}
	if (ch->rank < 0 && ch->top_rank >= 0)
		snprintf(out->cell[DC_RANK], sizeof out->cell[DC_RANK], "all(%d)", ch->top_rank);
	else if (ch->rank < 0)
		snprintf(out->cell[DC_RANK], sizeof out->cell[DC_RANK], "all");
	else
		snprintf(out->cell[DC_RANK], sizeof out->cell[DC_RANK], "%d", ch->rank);
	step_text(c, ch->step, out->cell[DC_STEP], sizeof out->cell[DC_STEP]);
	snprintf(out->cell[DC_A], sizeof out->cell[DC_A], "%.3f", (double)ch->a / 1e6);
	snprintf(out->cell[DC_B], sizeof out->cell[DC_B], "%.3f", (double)ch->b / 1e6);
	int64_t d = diff_delta(ch);
	snprintf(out->cell[DC_DELTA], sizeof out->cell[DC_DELTA], "%+.3f", (double)d / 1e6);
	tlq_diff_pct_text(ch, out->cell[DC_PCT], sizeof out->cell[DC_PCT]);
	for (int k = 0; k < DC__COUNT; k++)
		out->slot[k] = sel ? SLOT_LABEL_CURRENT : SLOT_NORMAL;
	out->slot[DC_DELTA] = out->slot[DC_PCT] = d > 0   ? SLOT_DIFF_LONGER
	                                          : d < 0 ? SLOT_DIFF_SHORTER
	                                                  : out->slot[DC_PCT];
}

static void
diff_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	diff_state *s = st;
	build(ui, s);
	ui_compare *c = ui->cmp;
	char k[24];
	keymap_key_hint(&ui->keys, ACT_QUIT, k, sizeof k);
	if (c == NULL) {
		ui_table_title(ui, x, y, w, " Diff   (%s: close)", k);
		screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
		              "Nothing to compare: open two runs with tl view A --compare B.");
		return;
	}
	char vd[600];
	ui_clean(ui, c->verdict, vd, sizeof vd);
	ui_table_title(ui, x, y, w, " Diff: %s   (%s: ranks, Enter: both runs, %s: close)", vd,
	               ui->utf8 ? "\u2192" : "Right", k);
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "A %s, B %s: %zu changes, largest per step first; ms; rank all(N): the mean "
	              "over ranks, N changed most",
	              c->label_a, c->label_b, s->nchanged);
	/* the name takes what the other columns leave (up to 40); below 24 the kind leaves
	 * instead (the table drops it: the line is too wide) */
	int others = 2 + 9 + 7 + 3 * 12 + 8, nw = w - others - 14;
	if (nw < 24)
		nw = w - others;
	s->cols[DC_NAME].width = nw < 12 ? 12 : nw > 40 ? 40 : nw;
	s->tab.n = s->n;
	if (s->n == 0) {
		ui_table_header(ui, &s->tab, x, y, w);
		screen_printf(sc, x + 1, y + 4, w - 2, SLOT_NORMAL, "No changes.");
		return;
	}
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

/* ---- Enter: the change in the timeline --------------------------------------------------- */

/* Enter: shows change ch in the timeline on its rank (for a row over all ranks, the rank that
 * changed most): a stage row's stage in its step, B aligned on the stage's start; another row's
 * step, B aligned on the step; a whole-capture row, the rank. */
static void
show_change(tl_ui *ui, const tl_diff_change *ch)
{
	ui_compare *c = ui->cmp;
	int number = ch->rank >= 0 ? ch->rank : ch->top_rank;
	size_t ri = SIZE_MAX;
	for (size_t i = 0; i < ui->tr->nranks; i++)
		if (ui->tr->ranks[i]->rank == number || (number < 0 && ri == SIZE_MAX))
			ri = i;
	if (ri == SIZE_MAX)
		ri = 0;
	int64_t ida = tlq_diff_step_id(&c->a, ch->step);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	if (ch->kind == TL_DIFF_STAGE) {
		const tl_stage_row *rows;
		size_t n = tlq_stages(ui->q, &rows);
		for (size_t k = 0; k < n; k++) {
			const char *sn = tlq_stage_name(ui->q, rows[k].stage);
			if (rows[k].rank == ri && rows[k].step == ida && sn &&
			    strcmp(sn, ch->name) == 0) {
				t0 = rows[k].start < t0 ? rows[k].start : t0;
				t1 = rows[k].end > t1 ? rows[k].end : t1;
			}
		}
		c->align_stage = 1;
		snprintf(c->stage, sizeof c->stage, "%s", ch->name);
	} else {
		c->align_stage = 0;
	}
	if (t0 >= t1 && ida >= 0 && tlq_step_span(ui->q, ida, &t0, &t1) != 0)
		t0 = INT64_MAX;
	if (t0 < t1) {
		timeline_reveal(ui, ri, t0, t1, NULL);
		timeline_goto(ui, t0);
	} else {
		timeline_goto_rank(ui, ri);
	}
	char nm[96], a[32], b[32], d[32], p[32], who[64];
	ui_clean(ui, ch->name, nm, sizeof nm);
	/* a row over all ranks gives the means, and is shown on the rank that changed most */
	if (ch->rank >= 0)
		snprintf(who, sizeof who, "rank %d", ui->tr->ranks[ri]->rank);
	else
		snprintf(who, sizeof who, "mean over ranks, shown on rank %d (changed most)",
		         ui->tr->ranks[ri]->rank);
	timefmt_dur(ch->a, a, sizeof a);
	timefmt_dur(ch->b, b, sizeof b);
	/* an operator (by name): its kernels, found by a search of the exact name, so that the
	 * first is selected and n / N / F walk and list them */
	if (ch->kind == TL_DIFF_OPERATOR && strncmp(ch->name, "type ", 5) != 0 &&
	    strstr(ch->name, "\\E") == NULL) {
		char pat[300];
		snprintf(pat, sizeof pat, "^\\Q%s\\E$", ch->name);
		if (timeline_search(ui, pat) == 0 && timeline_search_results(ui) != NULL &&
		    timeline_search_results(ui)->total > 0) {
			/* the longest of them on the row's rank (the first of the longest),
			 * selected on A's lane */
			const tl_rank *r = ui->tr->ranks[ri];
			size_t bt = SIZE_MAX, bi = 0;
			for (size_t ti = 0; ti < r->ntracks; ti++) {
				const tl_track *t = r->tracks[ti];
				for (size_t k = 0; k < t->n; k++) {
					if (strcmp(strpool_get(r->pool, t->v[k].name), ch->name) !=
					    0)
						continue;
					int64_t len = track_dur(t, k);
					const tl_track *ot = bt == SIZE_MAX ? NULL : r->tracks[bt];
					int64_t olen = ot == NULL ? 0 : track_dur(ot, bi);
					if (ot == NULL || len > olen ||
					    (len == olen && t->v[k].start < ot->v[bi].start)) {
						bt = ti;
						bi = k;
					}
				}
			}
			char longest[80] = "";
			if (bt != SIZE_MAX) {
				ui_slice_ref sel = {ri, bt, bi};
				const tl_track *kt = r->tracks[bt];
				timeline_reveal(ui, ri, kt->v[bi].start, track_end(kt, bi), &sel);
				char kd[32];
				timefmt_dur(track_dur(kt, bi), kd, sizeof kd);
				snprintf(longest, sizeof longest, "its longest (%s) selected, ",
				         kd);
			}
			ui_message(ui, 0,
			           "operator %s, %s, whole capture: A %s, B %s, %s (%s); %sits %zu "
			           "kernels: n/N walk them, F lists them",
			           nm, who, a, b, compare_signed_dur(diff_delta(ch), d, sizeof d),
			           tlq_diff_pct_text(ch, p, sizeof p), longest,
			           timeline_search_results(ui)->total);
			return;
		}
	}
	/* an op type: the operator panel of that rank, its row selected */
	if (ch->kind == TL_DIFF_OPERATOR && strncmp(ch->name, "type ", 5) == 0) {
		ops_panel_show_type(ui, ri, ch->name + 5);
		ui_message(ui, 0,
		           "operator %s, %s, whole capture: A %s, B %s, %s (%s); its row in "
		           "rank %d's operators",
		           nm, who, a, b, compare_signed_dur(diff_delta(ch), d, sizeof d),
		           tlq_diff_pct_text(ch, p, sizeof p), ui->tr->ranks[ri]->rank);
		return;
	}
	char st[32] = "whole capture";
	if (ida >= 0)
		snprintf(st, sizeof st, "step %" PRId64, ida);
	ui_message(ui, 0, "%s %s, %s, %s: A %s, B %s, %s (%s)%s", tlq_diff_kind_name(ch->kind), nm,
	           who, st, a, b, compare_signed_dur(diff_delta(ch), d, sizeof d),
	           tlq_diff_pct_text(ch, p, sizeof p),
	           ch->kind == TL_DIFF_STAGE ? "; B aligned on its start" : "");
}
static int
diff_action(tl_ui *ui, void *st, int a)
{
	diff_state *s = st;
	build(ui, s);
	s->tab.n = s->n;
	ui_compare *c = ui->cmp;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER:
		if (c) {
			size_t i = s->rows[s->tab.sel];
			/* a closed row with ranks to show opens; else the change in the timeline */
			if (c->ch[i].rank < 0 && !s->open[i] && ranks_to_open(c, i) > 0) {
				s->open[i] = 1;
				s->built = 0;
				build(ui, s);
				return 1;
			}
			ui_view_close(ui, &diff_panel_view);
			show_change(ui, &c->ch[i]);
		}
		return 1;
	case UI_LIST_OTHER:
		if (c == NULL || s->n == 0 ||
		    (a != ACT_CURSOR_RIGHT && a != ACT_CURSOR_LEFT && a != ACT_TOGGLE_RANK))
			return a == ACT_CURSOR_RIGHT || a == ACT_CURSOR_LEFT ||
			       a == ACT_TOGGLE_RANK;
		{
			size_t h = head_of(c, s, s->tab.sel);
			int was = s->open[h];
			s->open[h] = a == ACT_CURSOR_RIGHT  ? ranks_to_open(c, h) > 0
			             : a == ACT_CURSOR_LEFT ? 0
			                                    : !was && ranks_to_open(c, h) > 0;
			if (s->open[h] != was || s->rows[s->tab.sel] != h) {
				if (!s->open[h]) /* closing from a rank's row: onto its quantity */
					for (size_t r = 0; r < s->n; r++)
						if (s->rows[r] == h)
							s->tab.sel = r;
				s->built = 0;
				build(ui, s);
			}
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
	diff_state *s = xcalloc(1, sizeof *s);
	memcpy(s->cols, diff_cols, sizeof s->cols);
	ui_table_init(&s->tab, s->cols, DC__COUNT, 2, 3, diff_row, s);
	s->tab.split = 1;
	return s;
}

static void
diff_close(tl_ui *ui, void *st)
{
	(void)ui;
	diff_state *s = st;
	free(s->rows);
	free(s->open);
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
