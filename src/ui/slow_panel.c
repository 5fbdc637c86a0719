/* The slow-rank panel: msprof-analyze's slow_rank votes (the ones `tl summary` prints as
 * slow_ranks), one row per rank with votes: how many collective instances it arrived last in,
 * and its worst one -- the instance whose median duration exceeds its own (the shortest) by the
 * most, which is how long the typical rank of the group waited for it. Sortable; Enter jumps to
 * that collective on the rank's communication lane. Every number is tlq_slow_ranks'. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "util/sort.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { SLOW_SORT_VOTES, SLOW_SORT_WAIT, SLOW_SORT_RANK, SLOW_SORT__COUNT };

typedef struct slow_row {
	size_t vote;  /* index into the result's votes */
	size_t worst; /* index into its flagged ops; SIZE_MAX: none */
	int64_t wait; /* the worst op's median - min */
} slow_row;

typedef struct slow_state {
	int sort;
	ui_table tab;
	slow_row *rows;
	size_t nrows;
	int built;
	const tl_slow_result *sr; /* the rows' result, while drawing */
} slow_state;

static const ui_col slow_cols[] = {
    {"rank", 6, UI_ALIGN_RIGHT, 0, 0, 0},
    {"votes", 6, UI_ALIGN_RIGHT, 0, 0, 0},
    {"others' wait", 14, UI_ALIGN_RIGHT, 0, 0, 0},
    {"its op", 14, UI_ALIGN_RIGHT, 0, 0, 0},
    {"worst collective (group)", 0, UI_ALIGN_LEFT, 2, 0, 0},
};

static const char *const sort_names[SLOW_SORT__COUNT] = {"votes", "others' wait", "rank"};

static char *
ms_text(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	return buf;
}

static int
cmp_row(const void *ctx, size_t a, size_t b)
{
	const slow_state *s = ctx;
	const slow_row *x = &s->rows[a], *y = &s->rows[b];
	const tl_slow_vote *vx = &s->sr->v[x->vote], *vy = &s->sr->v[y->vote];
	int c = 0;
	switch (s->sort) {
	case SLOW_SORT_VOTES:
		c = (vx->votes < vy->votes) - (vx->votes > vy->votes);
		break;
	case SLOW_SORT_WAIT:
		c = (x->wait < y->wait) - (x->wait > y->wait);
		break;
	default:
		break;
	}
	if (c == 0)
		c = (vx->rank > vy->rank) - (vx->rank < vy->rank);
	return c;
}

static void
build(slow_state *s, const tl_slow_result *sr)
{
	s->rows = xreallocarray(s->rows, sr->n ? sr->n : 1, sizeof *s->rows);
	s->nrows = sr->n;
	for (size_t i = 0; i < sr->n; i++) {
		slow_row *r = &s->rows[i];
		r->vote = i;
		r->worst = SIZE_MAX;
		r->wait = 0;
		for (size_t k = 0; k < sr->nops; k++) {
			const tl_slow_op *o = &sr->ops[k];
			if (o->rank != sr->v[i].rank)
				continue;
			if (r->worst == SIZE_MAX || o->median - o->min > r->wait) {
				r->worst = k;
				r->wait = o->median - o->min;
			}
		}
	}
	size_t *order = xreallocarray(NULL, s->nrows ? s->nrows : 1, sizeof *order);
	for (size_t i = 0; i < s->nrows; i++)
		order[i] = i;
	s->sr = sr;
	sort_index(order, s->nrows, cmp_row, s);
	slow_row *sorted = xreallocarray(NULL, s->nrows ? s->nrows : 1, sizeof *sorted);
	for (size_t i = 0; i < s->nrows; i++)
		sorted[i] = s->rows[order[i]];
	free(s->rows);
	free(order);
	s->rows = sorted;
	s->built = 1;
}

static void
slow_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	slow_state *s = state;
	const tl_slow_result *sr = tlq_slow_ranks(ui->q);
	char k1[24], k2[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (!s->built)
		build(s, sr);
	if (s->nrows == 0) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Slow ranks  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
		/* the sentences of `tl summary` */
		if (ui->tr->nranks < 2)
			screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			              "Slow ranks: needs at least two ranks; this profile has %zu.",
			              ui->tr->nranks);
		else if (sr->instances == 0)
			screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			              "Slow ranks: no collective communication ops to compare.");
		else
			screen_printf(
			    sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			    "Slow ranks: none (%zu collective instances examined, no rank "
			    "was an outlier).",
			    sr->instances);
		return;
	}
	screen_printf(sc, x, y, w, SLOT_TITLE,
	              " Slow ranks: votes of msprof-analyze slow_rank   (%s sort, Enter: worst "
	              "collective, %s: close)",
	              keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k1, sizeof k1),
	              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
	screen_printf(
	    sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	    "sorted by %s   %zu instances, %zu group%s not aligned   a vote: the rank arrived last "
	    "(outlying shortest op)",
	    sort_names[s->sort], sr->instances, sr->groups_dropped,
	    sr->groups_dropped == 1 ? "" : "s");
	s->sr = sr;
	s->tab.n = s->nrows;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
slow_row_cells(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	const slow_state *s = ctx;
	const tl_slow_result *sr = s->sr;
	const slow_row *v = &s->rows[row];
	const tl_slow_vote *vo = &sr->v[v->vote];
	snprintf(out->cell[0], sizeof out->cell[0], "%s", UI_RANK(ui->tr->ranks[vo->rank]->rank));
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
	snprintf(out->cell[1], sizeof out->cell[1], "%u", vo->votes);
	if (v->worst == SIZE_MAX)
		return;
	const tl_slow_op *o = &sr->ops[v->worst];
	char nb[160], gb[160];
	ms_text(v->wait, out->cell[2], sizeof out->cell[2]);
	ms_text(o->min, out->cell[3], sizeof out->cell[3]);
	snprintf(out->cell[4], sizeof out->cell[4], "%s (%s)", ui_clean(ui, o->op, nb, sizeof nb),
	         ui_clean(ui, o->group ? o->group : "", gb, sizeof gb));
}

/* The worst collective on the rank's communication lane, selected. */
static void
jump(tl_ui *ui, const tl_slow_result *sr, const slow_row *v)
{
	const tl_slow_vote *vo = &sr->v[v->vote];
	const tl_rank *r = ui->tr->ranks[vo->rank];
	ui_view_close(ui, &slow_panel_view);
	if (v->worst == SIZE_MAX) {
		timeline_goto_rank(ui, vo->rank);
		return;
	}
	const tl_slow_op *o = &sr->ops[v->worst];
	char wt[32], md[32];
	ui_message(ui, 0, "Rank %d arrived last at %s: its op %s against the median %s", r->rank,
	           o->op, ms_text(o->min, wt, sizeof wt), ms_text(o->median, md, sizeof md));
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		if (t->kind != TL_LANE_COMM)
			continue;
		size_t k = track_first_starting_at(t, o->start);
		if (k < t->n && t->v[k].start == o->start) {
			ui_slice_ref sel = {vo->rank, ti, k};
			timeline_reveal(ui, vo->rank, t->v[k].start, track_end(t, k), &sel);
			return;
		}
	}
	timeline_reveal(ui, vo->rank, o->start, o->start + o->min, NULL);
}

static int
slow_action(tl_ui *ui, void *state, int a)
{
	slow_state *s = state;
	const tl_slow_result *sr = tlq_slow_ranks(ui->q);
	if (a == ACT_SELECT && !s->built)
		build(s, sr); /* Enter reads the rows */
	s->tab.n = s->nrows;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER:
		jump(ui, sr, &s->rows[s->tab.sel]);
		return 1;
	case UI_LIST_OTHER:
		if (a != ACT_SORT_NEXT)
			return 0; /* not the panel's: the view stack's rule */
		{
			s->sort = (s->sort + 1) % SLOW_SORT__COUNT;
			s->built = 0;
			s->tab.sel = s->tab.top = 0;
			ui_message(ui, 0, "Sorted by %s", sort_names[s->sort]);
		}
		return 1;
	default:
		return 1;
	}
}

static void *
slow_open(tl_ui *ui)
{
	(void)ui;
	slow_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, slow_cols, (int)(sizeof slow_cols / sizeof *slow_cols), 1, 3,
	              slow_row_cells, s);
	return s;
}

static void
slow_close(tl_ui *ui, void *st)
{
	(void)ui;
	slow_state *s = st;
	free(s->rows);
	free(s);
}

const view_ops slow_panel_view = {
    .name = "slow",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_SLOW_PANEL,
    .open = slow_open,
    .draw = slow_draw,
    .action = slow_action,
    .close = slow_close,
};
