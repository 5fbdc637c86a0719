/* The slow-rank panel: msprof-analyze's slow_rank votes (the ones `tl summary` prints as
 * slow_ranks), one row per rank with votes: how many collective instances it arrived last in,
 * and its worst one -- the instance whose median duration exceeds its own (the shortest) by the
 * most, which is how long the typical rank of the group waited for it. Sortable; Enter jumps to
 * that collective on the rank's communication lane. Every number is tlq_slow_ranks'. */
#include "config.h"
#include "ui/common.h"
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
	size_t sel, top;
	slow_row *rows;
	size_t nrows;
	int built;
} slow_state;

static const char *const sort_names[SLOW_SORT__COUNT] = {"votes", "worst wait", "rank"};

static char *
ms_text(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
	return buf;
}

static const tl_slow_result *sort_sr; /* the comparator's rows (the viewer has one thread) */
static int sort_key;

static int
cmp_row(const void *a, const void *b)
{
	const slow_row *x = a, *y = b;
	const tl_slow_vote *vx = &sort_sr->v[x->vote], *vy = &sort_sr->v[y->vote];
	int c = 0;
	switch (sort_key) {
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
	sort_sr = sr;
	sort_key = s->sort;
	qsort(s->rows, s->nrows, sizeof *s->rows, cmp_row);
	sort_sr = NULL;
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
	    "sorted by %s   %zu instances, %zu group%s not aligned   a vote: an instance in which "
	    "the rank had the outlying shortest op (it arrived last)",
	    sort_names[s->sort], sr->instances, sr->groups_dropped,
	    sr->groups_dropped == 1 ? "" : "s");
	int cx = x + 1;
	screen_printf(sc, cx, y + 2, w - 1, SLOT_LABEL, "%6s %6s %14s %14s  %s", "rank", "votes",
	              "worst wait", "its op", "worst collective (group)");
	int rows = h - 3;
	if (rows < 1)
		return;
	if (s->sel >= s->nrows)
		s->sel = s->nrows - 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + (size_t)rows)
		s->top = s->sel - (size_t)rows + 1;
	for (int r = 0; r < rows && s->top + (size_t)r < s->nrows; r++) {
		size_t row = s->top + (size_t)r;
		const slow_row *v = &s->rows[row];
		const tl_slow_vote *vo = &sr->v[v->vote];
		int yy = y + 3 + r, sel = row == s->sel;
		if (sel)
			screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		screen_printf(sc, cx, yy, 6, sel ? SLOT_LABEL_CURRENT : SLOT_RANK, "%6d",
		              ui->tr->ranks[vo->rank]->rank);
		char wt[32], d[32], nb[160], gb[160];
		if (v->worst == SIZE_MAX) {
			screen_printf(sc, cx + 7, yy, w - 8, SLOT_NORMAL, "%6u", vo->votes);
			continue;
		}
		const tl_slow_op *o = &sr->ops[v->worst];
		screen_printf(sc, cx + 7, yy, w - 8, SLOT_NORMAL, "%6u %14s %14s  %s (%s)",
		              vo->votes, ms_text(v->wait, wt, sizeof wt),
		              ms_text(o->min, d, sizeof d), ui_clean(ui, o->op, nb, sizeof nb),
		              ui_clean(ui, o->group ? o->group : "", gb, sizeof gb));
	}
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
			timeline_reveal(ui, vo->rank, t->v[k].start, t->v[k].end, &sel);
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
	int page = ui->scr.h > 6 ? ui->scr.h - 5 : 1;
	if (ui_list_move(&s->sel, s->nrows, page, a))
		return 1;
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		ui_view_close(ui, &slow_panel_view);
		return 1;
	case ACT_HELP:
	case ACT_COMMAND:
	case ACT_REDRAW:
	case ACT_DP_PANEL:
	case ACT_PP_VIEW:
	case ACT_COMM_PANEL:
	case ACT_OPS_PANEL:
	case ACT_MODULES_PANEL:
		return 0; /* the view stack's */
	case ACT_SORT_NEXT:
		s->sort = (s->sort + 1) % SLOW_SORT__COUNT;
		s->built = 0;
		s->sel = s->top = 0;
		ui_message(ui, 0, "Sorted by %s", sort_names[s->sort]);
		return 1;
	case ACT_SELECT:
		if (!s->built)
			build(s, sr);
		if (s->sel < s->nrows)
			jump(ui, sr, &s->rows[s->sel]);
		return 1;
	default:
		return 1; /* the timeline behind the panel does not move */
	}
}

static void *
slow_open(tl_ui *ui)
{
	(void)ui;
	return xcalloc(1, sizeof(slow_state));
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
