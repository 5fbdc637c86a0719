/* The search results panel: what the last / search found — per rank the number of matching
 * slices, their total and mean duration (tlq_search_rank_stats), then every match in time order
 * (tlq_search_step). Enter shows the row in the timeline: a rank row its first match, a match
 * row that slice, selected. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SEARCH_LIST_MAX 100000 /* match rows listed; the per-rank rows count them all */

typedef struct sl_row {
	int is_rank; /* a per-rank row */
	size_t rank;
	size_t count;
	int64_t total;
	tl_match_pos m; /* a match row; for a rank row, its first match */
} sl_row;

typedef struct sl_state {
	char *pattern; /* the search the rows are of */
	size_t total;
	sl_row *rows;
	size_t n, nranks_rows;
	ui_table tab;
} sl_state;

/* the rank rows' columns; a match row is a line of its own under them */
static const ui_col sl_cols[] = {
    {"rank", 6, UI_ALIGN_RIGHT, 0, 0, 0},
    {"count", 8, UI_ALIGN_RIGHT, 0, 0, 0},
    {"total", 14, UI_ALIGN_RIGHT, 0, 0, 0},
    {"mean", 14, UI_ALIGN_RIGHT, 0, 0, 0},
    {"(then every match in time order: start, duration, lane)", 0, UI_ALIGN_LEFT, 3, 0, 0},
};

static void
build(tl_ui *ui, sl_state *s, const tl_search *se)
{
	free(s->rows);
	free(s->pattern);
	s->rows = NULL;
	s->n = 0;
	s->tab.sel = s->tab.top = 0;
	s->pattern = xstrdup(se->pattern);
	s->total = se->total;
	size_t cap = 0;
	for (size_t ri = 0; ri < ui->tr->nranks; ri++) {
		sl_row r = {.is_rank = 1, .rank = ri, .m = {.rank = SIZE_MAX}};
		tlq_search_rank_stats(se, ui->tr, ri, &r.count, &r.total);
		if (r.count)
			VEC_PUSH(s->rows, s->n, cap, r);
	}
	s->nranks_rows = s->n;
	tl_match_pos from = {.rank = SIZE_MAX, .start = INT64_MIN}, m;
	size_t listed = 0;
	while (listed < SEARCH_LIST_MAX && tlq_search_step(se, ui->tr, &from, 1, &m) == 0) {
		sl_row r = {.rank = m.rank, .m = m};
		VEC_PUSH(s->rows, s->n, cap, r);
		for (size_t i = 0; i < s->nranks_rows; i++) /* each rank's first match */
			if (s->rows[i].rank == m.rank && s->rows[i].m.rank == SIZE_MAX)
				s->rows[i].m = m;
		from = m;
		listed++;
	}
}

static const tl_search *
current(tl_ui *ui, sl_state *s)
{
	const tl_search *se = timeline_search_results(ui);
	if (se &&
	    (s->pattern == NULL || strcmp(s->pattern, se->pattern) != 0 || s->total != se->total))
		build(ui, s, se);
	return se;
}

static void
sl_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	sl_state *s = st;
	const tl_search *se = current(ui, s);
	char k1[24], k2[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (se == NULL) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Search results  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
		screen_printf(
		    sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
		    "No search yet: %s searches slice names, then this lists the matches.",
		    keymap_key_hint(&ui->keys, ACT_SEARCH, k1, sizeof k1));
		return;
	}
	char pat[128];
	screen_printf(sc, x, y, w, SLOT_TITLE,
	              " Search results for /%s/: %zu matches on %zu ranks   (Enter: timeline, %s: "
	              "close)",
	              ui_clean(ui, s->pattern, pat, sizeof pat), s->total, s->nranks_rows,
	              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
	s->tab.n = s->n;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
sl_row_cells(tl_ui *ui, void *ctx, size_t i, int sel, ui_table_row *out)
{
	const sl_state *s = ctx;
	const sl_row *row = &s->rows[i];
	const tl_rank *rk = ui->tr->ranks[row->rank];
	if (row->is_rank) {
		snprintf(out->cell[0], sizeof out->cell[0], "%s", UI_RANK(rk->rank));
		snprintf(out->cell[1], sizeof out->cell[1], "%zu", row->count);
		timefmt_dur(row->total, out->cell[2], sizeof out->cell[2]);
		timefmt_dur(row->total / (int64_t)row->count, out->cell[3], sizeof out->cell[3]);
		for (int c = 0; c < 4; c++)
			out->slot[c] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
		return;
	}
	const tl_track *t = rk->tracks[row->m.track];
	const tl_slice *sl = &t->v[row->m.slice];
	char at[48], d[32], nm[200], lab[96];
	ui_clean(ui, strpool_get(rk->pool, sl->name), nm, sizeof nm);
	ui_clean(ui, strpool_get(rk->pool, t->label), lab, sizeof lab);
	snprintf(out->line, sizeof out->line, "%6s %14s %12s  %-10s %s  %s", UI_RANK(rk->rank),
	         ui_time(ui, sl->start, at, sizeof at), timefmt_dur(slice_dur(t, sl), d, sizeof d),
	         lane_kind_name(t->kind), lab, nm);
}

static int
sl_action(tl_ui *ui, void *st, int a)
{
	sl_state *s = st;
	current(ui, s);
	s->tab.n = s->n;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER:
		if (s->rows[s->tab.sel].m.rank != SIZE_MAX) {
			tl_match_pos m = s->rows[s->tab.sel].m;
			ui_view_close(ui, &search_list_view);
			timeline_show_match(ui, &m);
		}
		return 1;
	case UI_LIST_OTHER:
		if (a != ACT_SEARCH)
			return 0;          /* not the panel's: the view stack's rule */
		prompt_start(ui, '/', ""); /* a new search, listed on the timeline */
		return 1;
	default:
		return 1;
	}
}

static void *
sl_open(tl_ui *ui)
{
	(void)ui;
	sl_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, sl_cols, (int)(sizeof sl_cols / sizeof *sl_cols), 2, 2, sl_row_cells,
	              s);
	return s;
}

static void
sl_close(tl_ui *ui, void *st)
{
	(void)ui;
	sl_state *s = st;
	free(s->rows);
	free(s->pattern);
	free(s);
}

const view_ops search_list_view = {
    .name = "search-list",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_SEARCH_LIST,
    .open = sl_open,
    .draw = sl_draw,
    .action = sl_action,
    .close = sl_close,
};
