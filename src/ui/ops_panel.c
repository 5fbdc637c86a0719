/* The operator statistics panel (msprof-analyze compute_op_sum): for one rank, its compute
 * operators per op type and task type -- count, total, mean, min, max device time -- and, to
 * say which kernels are slower on this rank, its total against the median of the ranks' totals
 * of the same op type and task type. Opened on the slowest rank (the one with the most slow-rank
 * votes, else the one with the most compute time); rank-next/rank-prev change the rank, Enter
 * lists the type's op names and input shapes. Its scope: the whole profile; the marked range
 * when the timeline has one (the tasks that start in it); or, opened from the DP panel, one
 * stage of one step (each rank's own instance of it). Every number is tlq_ops_scoped'; the
 * whole profile's are the `operators` of `tl summary --json`. */
#include "config.h"
#include "ui/common.h"
#include "ui/ops_panel.h"
#include "ui/table.h"
#include "util/sort.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OPS_SORT_TOTAL, OPS_SORT_COUNT, OPS_SORT_MEAN, OPS_SORT_MAX, OPS_SORT_VS, OPS_SORT__COUNT };

/* the type rows' columns; the name rows have no "vs med" and name the last one otherwise */
static const ui_col type_cols[] = {
    {"count", 7, UI_ALIGN_RIGHT, 0, 0, 0},
    {"total", 10, UI_ALIGN_RIGHT, 0, 0, 0},
    {"mean", 9, UI_ALIGN_RIGHT, 0, 0, 0},
    {"min", 9, UI_ALIGN_RIGHT, 0, 0, 0},
    {"max", 9, UI_ALIGN_RIGHT, 0, 0, 0},
    {"vs med", 7, UI_ALIGN_RIGHT, 0, 0, 0},
    {"op type (task type)", 0, UI_ALIGN_LEFT, 2, 0, 0},
};
enum { OPS_NCOLS = sizeof type_cols / sizeof *type_cols };

typedef struct ops_state {
	tl_ops_result o;
	int *ranks; /* the rank numbers with operators, ascending */
	size_t nranks, cur;
	double *vs; /* per type row: its total / the median over ranks of the same type's totals */
	int sort;
	ui_table tab;
	ui_col cols[OPS_NCOLS]; /* type_cols, renamed for the name rows */
	size_t *rows; /* the shown rows: type rows of the rank, or name rows of one type */
	size_t nrows;
	size_t type; /* SIZE_MAX: the types; else the type row whose names are shown */
	int built;
	/* the scope: every task, the tasks starting in the marked range, or in each rank's
	 * window of one stage instance (t0/t1 per trace rank, else NULL) */
	int scope, loaded;
	int64_t mark0, mark1;
	int64_t *t0, *t1;
	char scope_text[160];
	int pending;         /* ops_panel_show_scoped set the scope for the next show */
	size_t want_rank;    /* trace rank to show first, SIZE_MAX: the slowest */
	char want_type[128]; /* ops_panel_show_type: the op type to select once built; "": none */
} ops_state;

enum { SCOPE_ALL, SCOPE_MARK, SCOPE_STAGE };

static const char *const sort_names[OPS_SORT__COUNT] = {"total", "count", "mean", "max",
                                                        "vs median"};

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* For every type row, its total over the median of that (op type, task type)'s totals on all
 * ranks with operators (a rank without it counts 0). */
static void
compare_ranks(ops_state *s)
{
	const tl_ops_result *o = &s->o;
	s->vs = xreallocarray(NULL, o->ntypes ? o->ntypes : 1, sizeof *s->vs);
	int64_t *t = xreallocarray(NULL, s->nranks ? s->nranks : 1, sizeof *t);
	for (size_t i = 0; i < o->ntypes; i++) {
		const tl_op_type_row *a = &o->types[i];
		for (size_t r = 0; r < s->nranks; r++)
			t[r] = 0;
		for (size_t j = 0; j < o->ntypes; j++) {
			const tl_op_type_row *b = &o->types[j];
			if (strcmp(a->op_type, b->op_type) != 0 ||
			    strcmp(a->task_type, b->task_type) != 0)
				continue;
			int *p = bsearch(&b->rank, s->ranks, s->nranks, sizeof *s->ranks, cmp_int);
			if (p)
				t[p - s->ranks] = b->st.total;
		}
		qsort(t, s->nranks, sizeof *t, cmp_i64);
		double med = s->nranks % 2
		                 ? (double)t[s->nranks / 2]
		                 : ((double)t[s->nranks / 2 - 1] + (double)t[s->nranks / 2]) / 2;
		s->vs[i] = med > 0 ? (double)a->st.total / med : NAN;
	}
	free(t);
}

static double
key_of(const ops_state *s, size_t i)
{
	const tl_opstat *st = s->type == SIZE_MAX ? &s->o.types[i].st : &s->o.names[i].st;
	switch (s->sort) {
	case OPS_SORT_COUNT:
		return (double)st->count;
	case OPS_SORT_MEAN:
		return st->mean;
	case OPS_SORT_MAX:
		return (double)st->max;
	case OPS_SORT_VS:
		return s->type == SIZE_MAX && !isnan(s->vs[i]) ? s->vs[i] : -1;
	default:
		return (double)st->total;
	}
}

static int
cmp_row(const void *ctx, size_t i, size_t j)
{
	double x = key_of(ctx, i), y = key_of(ctx, j);
	return (x < y) - (x > y);
}

static void
build(ops_state *s)
{
	const tl_ops_result *o = &s->o;
	s->nrows = 0;
	s->rows = xreallocarray(s->rows, (o->ntypes > o->nnames ? o->ntypes : o->nnames) + 1,
	                        sizeof *s->rows);
	if (s->type == SIZE_MAX) {
		for (size_t i = 0; i < o->ntypes; i++)
			if (s->nranks && o->types[i].rank == s->ranks[s->cur])
				s->rows[s->nrows++] = i;
	} else {
		const tl_op_type_row *t = &o->types[s->type];
		for (size_t i = 0; i < t->nby; i++)
			s->rows[s->nrows++] = t->by0 + i;
	}
	sort_index(s->rows, s->nrows, cmp_row, s);
	s->tab.n = s->nrows;
	memcpy(s->cols, type_cols, sizeof type_cols);
	if (s->type != SIZE_MAX) {
		s->cols[5].name = "";
		s->cols[6].name = "op name [input shapes]";
	}
	s->built = 1;
}

static char *
us_text(double ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f", ns / 1e3);
	return buf;
}

static void
ops_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	ops_state *s = state;
	char k1[24], k2[24], k3[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (s->nranks == 0) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Operators  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k1, sizeof k1));
		if (s->scope != SCOPE_ALL)
			screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			              "Operators: no compute task starts %s.", s->scope_text);
		else
			screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
			              "Operators: no compute operator in this profile "
			              "(COMPUTE_TASK_INFO of a "
			              "profile DB; record with profiler level 1 or higher).");
		return;
	}
	if (!s->built)
		build(s);
	if (s->want_type[0] && s->type == SIZE_MAX) { /* ops_panel_show_type's row */
		for (size_t r = 0; r < s->nrows; r++)
			if (strcmp(s->o.types[s->rows[r]].op_type, s->want_type) == 0)
				s->tab.sel = r;
		s->want_type[0] = '\0';
	}
	int byname = s->type != SIZE_MAX;
	char tb[160], kb[64];
	if (byname)
		screen_printf(sc, x, y, w, SLOT_TITLE,
		              " Operators of rank %d: %s (%s) by name and input shapes   (%s sort, "
		              "%s: back)",
		              s->ranks[s->cur],
		              ui_clean(ui, s->o.types[s->type].op_type, tb, sizeof tb),
		              ui_clean(ui, s->o.types[s->type].task_type, kb, sizeof kb),
		              keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k1, sizeof k1),
		              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
	else
		screen_printf(
		    sc, x, y, w, SLOT_TITLE,
		    " Operators of rank %d by op type   (%s/%s rank, %s sort, Enter: by name, "
		    "%s: close)",
		    s->ranks[s->cur], keymap_key_hint(&ui->keys, ACT_RANK_NEXT, k1, sizeof k1),
		    keymap_key_hint(&ui->keys, ACT_RANK_PREV, k3, sizeof k3),
		    keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k2, sizeof k2),
		    keymap_key_hint(&ui->keys, ACT_QUIT, kb, sizeof kb));
	screen_printf(sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "%s   sorted by %s   %zu rows   total in ms, the rest in us%s", s->scope_text,
	              sort_names[s->sort], s->nrows,
	              byname ? "" : "; vs med: the total over the median rank's");
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
ops_row(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	ops_state *s = ctx;
	size_t i = s->rows[row];
	int byname = s->type != SIZE_MAX;
	const tl_opstat *st = byname ? &s->o.names[i].st : &s->o.types[i].st;
	char nb[400], sb[400];
	snprintf(out->cell[0], sizeof out->cell[0], "%" PRIu64, st->count);
	us_text((double)st->total / 1e3, out->cell[1], sizeof out->cell[1]);
	us_text(st->mean, out->cell[2], sizeof out->cell[2]);
	us_text((double)st->min, out->cell[3], sizeof out->cell[3]);
	us_text((double)st->max, out->cell[4], sizeof out->cell[4]);
	if (!byname && isnan(s->vs[i]))
		snprintf(out->cell[5], sizeof out->cell[5], "-");
	else if (!byname)
		snprintf(out->cell[5], sizeof out->cell[5], "%.2fx", s->vs[i]);
	if (byname)
		snprintf(out->cell[6], sizeof out->cell[6], "%s [%s]",
		         ui_clean(ui, s->o.names[i].op_name, nb, sizeof nb),
		         ui_clean(ui, s->o.names[i].input_shapes, sb, sizeof sb));
	else
		snprintf(out->cell[6], sizeof out->cell[6], "%s (%s)",
		         ui_clean(ui, s->o.types[i].op_type, nb, sizeof nb),
		         ui_clean(ui, s->o.types[i].task_type, sb, sizeof sb));
	for (int c = 0; c < OPS_NCOLS; c++)
		out->slot[c] = sel ? SLOT_LABEL_CURRENT : SLOT_NORMAL;
}

static int
ops_action(tl_ui *ui, void *state, int a)
{
	ops_state *s = state;
	if (ui_table_move(ui, &s->tab, a))
		return 1;
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		if (s->type != SIZE_MAX) { /* back to the types */
			s->type = SIZE_MAX;
			s->built = 0;
			s->tab.sel = s->tab.top = 0;
			return 1;
		}
		return 0; /* closed by the view stack: back to where it was opened */
	case ACT_RANK_NEXT:
	case ACT_RANK_PREV:
		if (s->nranks == 0 || s->type != SIZE_MAX)
			return 1;
		s->cur = a == ACT_RANK_NEXT ? (s->cur + 1) % s->nranks
		                            : (s->cur + s->nranks - 1) % s->nranks;
		s->built = 0;
		s->tab.sel = s->tab.top = 0;
		return 1;
	case ACT_SORT_NEXT:
		s->sort = (s->sort + 1) % OPS_SORT__COUNT;
		if (s->sort == OPS_SORT_VS && s->type != SIZE_MAX)
			s->sort = 0;
		s->built = 0;
		s->tab.sel = s->tab.top = 0;
		ui_message(ui, 0, "Sorted by %s", sort_names[s->sort]);
		return 1;
	case ACT_SELECT:
		if (s->type == SIZE_MAX && s->tab.sel < s->nrows) {
			s->type = s->rows[s->tab.sel];
			if (s->sort == OPS_SORT_VS)
				s->sort = 0;
			s->built = 0;
			s->tab.sel = s->tab.top = 0;
		}
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

/* (Re)reads the statistics of the scope and picks the rank shown first. */
static void
load(tl_ui *ui, ops_state *s)
{
	int keep = s->loaded && s->nranks ? s->ranks[s->cur] : INT32_MIN;
	tlq_ops_free(&s->o);
	free(s->vs);
	s->vs = NULL;
	tlq_ops_scoped(ui->q, s->scope == SCOPE_ALL ? NULL : s->t0,
	               s->scope == SCOPE_ALL ? NULL : s->t1, &s->o);
	s->loaded = 1;
	s->nranks = s->cur = 0;
	s->ranks = xreallocarray(s->ranks, s->o.ntypes ? s->o.ntypes : 1, sizeof *s->ranks);
	for (size_t i = 0; i < s->o.ntypes; i++)
		s->ranks[s->nranks++] = s->o.types[i].rank;
	qsort(s->ranks, s->nranks, sizeof *s->ranks, cmp_int);
	size_t n = 0;
	for (size_t i = 0; i < s->nranks; i++)
		if (n == 0 || s->ranks[n - 1] != s->ranks[i])
			s->ranks[n++] = s->ranks[i];
	s->nranks = n;
	compare_ranks(s);
	s->type = SIZE_MAX;
	s->built = 0;
	s->tab.sel = s->tab.top = 0;
	/* first shown: the rank asked for, the one shown before, else the slowest rank, by
	 * slow-rank votes, else by compute time */
	int want = keep;
	if (s->want_rank < ui->tr->nranks)
		want = ui->tr->ranks[s->want_rank]->rank;
	s->want_rank = SIZE_MAX;
	const tl_slow_result *sr = want == INT32_MIN ? tlq_slow_ranks(ui->q) : NULL;
	if (sr != NULL && sr->n > 0)
		want = ui->tr->ranks[sr->v[0].rank]->rank;
	else if (want == INT32_MIN) {
		int64_t best = -1;
		for (size_t r = 0; r < s->nranks; r++) {
			int64_t t = 0;
			for (size_t i = 0; i < s->o.ntypes; i++)
				if (s->o.types[i].rank == s->ranks[r])
					t += s->o.types[i].st.total;
			if (t > best) {
				best = t;
				want = s->ranks[r];
			}
		}
	}
	for (size_t r = 0; r < s->nranks; r++)
		if (s->ranks[r] == want)
			s->cur = r;
}

static void *
ops_open(tl_ui *ui)
{
	(void)ui;
	ops_state *s = xcalloc(1, sizeof *s);
	s->type = SIZE_MAX;
	s->want_rank = SIZE_MAX;
	memcpy(s->cols, type_cols, sizeof type_cols);
	ui_table_init(&s->tab, s->cols, OPS_NCOLS, 1, 3, ops_row, s);
	snprintf(s->scope_text, sizeof s->scope_text, "whole profile");
	return s; /* read when first shown */
}

/* Shown: the scope ops_panel_show_scoped set, else the marked range when there is one, else
 * the whole profile; read again when it changed. */
static void
ops_show(tl_ui *ui, void *st)
{
	ops_state *s = st;
	if (s->pending) {
		s->pending = 0;
		load(ui, s);
		return;
	}
	if (ui->sel.nmark == 2) {
		if (s->loaded && s->scope == SCOPE_MARK && s->mark0 == ui->sel.mark[0] &&
		    s->mark1 == ui->sel.mark[1])
			return;
		size_t n = ui->tr->nranks ? ui->tr->nranks : 1;
		s->t0 = xreallocarray(s->t0, n, sizeof *s->t0);
		s->t1 = xreallocarray(s->t1, n, sizeof *s->t1);
		for (size_t i = 0; i < ui->tr->nranks; i++) {
			s->t0[i] = ui->sel.mark[0];
			s->t1[i] = ui->sel.mark[1];
		}
		s->scope = SCOPE_MARK;
		s->mark0 = ui->sel.mark[0];
		s->mark1 = ui->sel.mark[1];
		char a[32], b[32], d[32];
		snprintf(s->scope_text, sizeof s->scope_text, "in the marked range %s - %s (%s)",
		         ui_time(ui, s->mark0, a, sizeof a), ui_time(ui, s->mark1, b, sizeof b),
		         timefmt_dur(s->mark1 - s->mark0, d, sizeof d));
		load(ui, s);
		return;
	}
	if (s->loaded && s->scope == SCOPE_ALL)
		return;
	s->scope = SCOPE_ALL;
	snprintf(s->scope_text, sizeof s->scope_text, "whole profile");
	load(ui, s);
}

void
ops_panel_show_scoped(tl_ui *ui, const int64_t *t0, const int64_t *t1, const char *what,
                      size_t rank)
{
	ops_state *s = ui_view_state(ui, &ops_panel_view);
	size_t n = ui->tr->nranks ? ui->tr->nranks : 1;
	s->t0 = xreallocarray(s->t0, n, sizeof *s->t0);
	s->t1 = xreallocarray(s->t1, n, sizeof *s->t1);
	memcpy(s->t0, t0, ui->tr->nranks * sizeof *t0);
	memcpy(s->t1, t1, ui->tr->nranks * sizeof *t1);
	s->scope = SCOPE_STAGE;
	snprintf(s->scope_text, sizeof s->scope_text, "in %s", what);
	s->want_rank = rank;
	s->pending = 1;
	ui_view_open(ui, &ops_panel_view);
}

void
ops_panel_show_type(tl_ui *ui, size_t rank, const char *op_type)
{
	ops_state *s = ui_view_state(ui, &ops_panel_view);
	s->scope = SCOPE_ALL;
	snprintf(s->scope_text, sizeof s->scope_text, "whole profile");
	snprintf(s->want_type, sizeof s->want_type, "%s", op_type);
	s->want_rank = rank;
	s->pending = 1;
	ui_view_open(ui, &ops_panel_view);
}

static void
ops_close(tl_ui *ui, void *st)
{
	(void)ui;
	ops_state *s = st;
	tlq_ops_free(&s->o);
	free(s->ranks);
	free(s->vs);
	free(s->rows);
	free(s->t0);
	free(s->t1);
	free(s);
}

const view_ops ops_panel_view = {
    .name = "ops",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_OPS_PANEL,
    .open = ops_open,
    .show = ops_show,
    .draw = ops_draw,
    .action = ops_action,
    .close = ops_close,
};
