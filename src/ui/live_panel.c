/* The live allocations panel: for the cursor time on the current rank, the largest OP_MEMORY
 * allocations live then (allocated at or before it, released after it or never), largest
 * first, with the op that allocated them, the allocator (PTA or GE), their lifetime and, where
 * the profile has call stacks, the innermost Python frame of that op. "What was live at the
 * peak": * in the panel moves the cursor to the rank's highest allocated total (the
 * allocator's counter) and lists that moment. Every number is tlq_live_allocations'. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "ui/timeline.h"
#include "query/memory.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_MAX 200 /* rows read: the largest allocations */

typedef struct live_state {
	ui_table tab;
	size_t rank; /* trace rank index of the rows */
	int64_t t;   /* their time */
	int have;    /* rows read for (rank, t) */
	tlq_alloc *v;
	ptrdiff_t n; /* -1: the profile could not be read */
	int64_t total;
} live_state;

static const ui_col live_cols[] = {
    {"size", 12, UI_ALIGN_RIGHT, 0, 0, 0},     {"op", 28, UI_ALIGN_LEFT, 2, 0, 0},
    {"alloc", 5, UI_ALIGN_LEFT, 0, 2, 0},      {"allocated", 12, UI_ALIGN_RIGHT, 0, 1, 0},
    {"released", 12, UI_ALIGN_RIGHT, 0, 1, 0}, {"Python frame", 0, UI_ALIGN_LEFT, 2, 0, 0},
};

static char *
bytes_text(int64_t b, char *buf, size_t len)
{
	if (b >= (int64_t)1 << 30)
		snprintf(buf, len, "%.2f GiB", (double)b / (double)((int64_t)1 << 30));
	else if (b >= (int64_t)1 << 20)
		snprintf(buf, len, "%.2f MiB", (double)b / (double)((int64_t)1 << 20));
	else if (b >= 1024)
		snprintf(buf, len, "%.2f KiB", (double)b / 1024.0);
	else
		snprintf(buf, len, "%" PRId64 " B", b);
	return buf;
}

static void
live_read(tl_ui *ui, live_state *s)
{
	size_t ri = timeline_current_rank(ui);
	if (ri == SIZE_MAX)
		ri = 0;
	int64_t t = timeline_cursor(ui);
	if (s->have && s->rank == ri && s->t == t)
		return;
	free(s->v);
	s->v = NULL;
	s->rank = ri;
	s->t = t;
	s->have = 1;
	s->n =
	    ri < ui->tr->nranks ? tlq_live_allocations(ui->tr->ranks[ri], t, LIVE_MAX, &s->v) : 0;
	s->total = 0;
	for (ptrdiff_t i = 0; i < s->n; i++)
		s->total += s->v[i].size;
	s->tab.sel = s->tab.top = 0;
}

static void
live_row_cells(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	const live_state *s = ctx;
	const tlq_alloc *a = &s->v[row];
	char tb[48];
	bytes_text(a->size, out->cell[0], sizeof out->cell[0]);
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_NORMAL;
	ui_clean(ui, a->op, out->cell[1], sizeof out->cell[1]);
	snprintf(out->cell[2], sizeof out->cell[2], "%s", a->component);
	snprintf(out->cell[3], sizeof out->cell[3], "%s", ui_time(ui, a->alloc_ns, tb, sizeof tb));
	if (a->release_ns == INT64_MAX)
		snprintf(out->cell[4], sizeof out->cell[4], "never");
	else
		snprintf(out->cell[4], sizeof out->cell[4], "%s",
		         ui_time(ui, a->release_ns, tb, sizeof tb));
	/* the frame's file from its package on: site-packages' path says nothing */
	const char *f = a->frame, *sp = strstr(f, "site-packages/");
	ui_clean(ui, sp ? sp + strlen("site-packages/") : f, out->cell[5], sizeof out->cell[5]);
}

static void
live_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	live_state *s = state;
	live_read(ui, s);
	char k1[24], k2[24], tb[48], bb[32];
	int rank = s->rank < ui->tr->nranks ? ui->tr->ranks[s->rank]->rank : -1;
	ui_table_title(ui, x, y, w,
	               " Live allocations: rank %d at %s   (%s: at the allocated peak, Enter: go "
	               "there, %s: close)",
	               rank, ui_time(ui, s->t, tb, sizeof tb),
	               keymap_key_hint(&ui->keys, ACT_COUNTER_PEAK, k1, sizeof k1),
	               keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
	if (s->n < 0) {
		screen_printf(&ui->scr, x + 1, y + 2, w - 2, SLOT_ERROR,
		              "The profile of rank %d could not be read again (changed or gone).",
		              rank);
		return;
	}
	if (s->n == 0) {
		char m[200];
		snprintf(
		    m, sizeof m,
		    "No OP_MEMORY allocation of rank %d is live at this time (the profile needs "
		    "profile_memory).",
		    rank);
		ui_wrap_text(ui, x + 1, y + 2, w - 2, h > 3 ? h - 2 : 1, SLOT_NORMAL, m);
		return;
	}
	screen_printf(&ui->scr, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	              "%s%td largest live, %s in them   largest first; a Python frame where the "
	              "profile has call stacks (with_stack)",
	              s->n == LIVE_MAX ? "the " : "", s->n, bytes_text(s->total, bb, sizeof bb));
	s->tab.n = (size_t)s->n;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

/* The time of the rank's highest allocated total (the allocator counter with the highest
 * peak): 1 with *t. */
static int
allocated_peak(tl_ui *ui, size_t ri, int64_t *t, int64_t *v)
{
	tl_counter *const *cs;
	size_t n = tlq_rank_counters(ui->q, ri, &cs);
	int have = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t lo, hi;
		size_t p =
		    cs[i]->kind == TL_CTR_ALLOCATED ? tlq_counter_peak(cs[i], &lo, &hi) : SIZE_MAX;
		if (p != SIZE_MAX && (!have || hi > *v)) {
			*v = hi;
			*t = cs[i]->t[p];
			have = 1;
		}
	}
	return have;
}

static int
live_action(tl_ui *ui, void *state, int a)
{
	live_state *s = state;
	s->tab.n = s->n > 0 ? (size_t)s->n : 0;
	if (ui_table_move(ui, &s->tab, a))
		return 1;
	switch (a) {
	case ACT_COUNTER_PEAK: {
		int64_t t = 0, v = 0;
		char tb[48], bb[32];
		if (!allocated_peak(ui, s->rank, &t, &v)) {
			ui_message(ui, 0, "Rank %d has no allocator totals (MEMORY_RECORD)",
			           ui->tr->ranks[s->rank]->rank);
			return 1;
		}
		timeline_goto(ui, t);
		ui_message(ui, 0, "Allocated peak of rank %d: %s at %s",
		           ui->tr->ranks[s->rank]->rank, bytes_text(v, bb, sizeof bb),
		           ui_time(ui, t, tb, sizeof tb));
		return 1;
	}
	case ACT_SELECT:
		if (s->n > 0 && s->tab.sel < (size_t)s->n) {
			const tlq_alloc *al = &s->v[s->tab.sel];
			int64_t e = al->release_ns == INT64_MAX ? ui->tr->ranks[s->rank]->t_max
			                                        : al->release_ns;
			ui_view_close(ui, &live_panel_view);
			timeline_reveal(ui, s->rank, al->alloc_ns,
			                e > al->alloc_ns ? e : al->alloc_ns + 1, NULL);
		}
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

static void *
live_open(tl_ui *ui)
{
	(void)ui;
	live_state *s = xcalloc(1, sizeof *s);
	ui_table_init(&s->tab, live_cols, (int)(sizeof live_cols / sizeof *live_cols), 1, 3,
	              live_row_cells, s);
	return s;
}

static void
live_close(tl_ui *ui, void *st)
{
	(void)ui;
	live_state *s = st;
	free(s->v);
	free(s);
}

const view_ops live_panel_view = {
    .name = "live",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_LIVE_PANEL,
    .open = live_open,
    .draw = live_draw,
    .action = live_action,
    .close = live_close,
};
