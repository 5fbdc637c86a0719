/* The communication panel: per communication op and rank, where its time went -- elapse,
 * transit (moving data), wait (Notify_Wait), synchronization (the wait before the first
 * transfer: waiting for a late rank) and idle (the rest), with the two ratios. Sortable; Enter
 * shows the op on its rank's communication lane. Every number is tlq_comm's, the one
 * `tl summary --json` writes as `communication`. */
#include "config.h"
#include "ui/common.h"
#include "ui/table.h"
#include "util/sort.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
	COMM_SORT_START,
	COMM_SORT_ELAPSE,
	COMM_SORT_TRANSIT,
	COMM_SORT_WAIT,
	COMM_SORT_SYNC,
	COMM_SORT_IDLE,
	COMM_SORT__COUNT
};

typedef struct comm_state {
	tl_comm_result c;
	int sort;
	ui_table tab;
	ui_col cols[10]; /* the op column is as wide as the longest name */
	size_t *order;
	int built;
} comm_state;

static const char *const sort_names[COMM_SORT__COUNT] = {
    "rank and start", "elapse", "transit", "wait", "synchronization", "idle"};

static int64_t
key_of(const tl_comm_row *r, int key)
{
	switch (key) {
	case COMM_SORT_ELAPSE:
		return r->t.elapse;
	case COMM_SORT_TRANSIT:
		return r->t.transit;
	case COMM_SORT_WAIT:
		return r->t.wait;
	case COMM_SORT_SYNC:
		return r->t.sync;
	case COMM_SORT_IDLE:
		return r->t.idle;
	default:
		return 0;
	}
}

static int
cmp_row(const void *ctx, size_t i, size_t j)
{
	const comm_state *s = ctx;
	int64_t x = key_of(&s->c.ops[i], s->sort), y = key_of(&s->c.ops[j], s->sort);
	return (x < y) - (x > y); /* largest first; ties in the result's order: rank, then start */
}

static void
build(comm_state *s)
{
	s->order = xreallocarray(s->order, s->c.nops ? s->c.nops : 1, sizeof *s->order);
	for (size_t i = 0; i < s->c.nops; i++)
		s->order[i] = i;
	sort_index(s->order, s->c.nops, cmp_row, s);
	s->built = 1;
}

static char *
us_text(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f", (double)ns / 1e3);
	return buf;
}

/* The op name's column: its longest name up to 32 columns, so that at 80 columns the name and
 * the five times show and only the ratios and the group are cut. */
static int
op_width(const tl_comm_result *c)
{
	size_t m = 2;
	for (size_t i = 0; i < c->nops; i++)
		if (strlen(c->ops[i].op_name) > m)
			m = strlen(c->ops[i].op_name);
	return m > 32 ? 32 : (int)m;
}

static void
comm_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	comm_state *s = state;
	char k1[24], k2[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (s->c.nops == 0) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Communication  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
		screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL,
		              "Communication: no communication op with HCCL sub-tasks in this "
		              "profile (record them with profiler level 1 or higher).");
		return;
	}
	if (!s->built)
		build(s);
	screen_printf(
	    sc, x, y, w, SLOT_TITLE,
	    " Communication: time per op and rank   (%s sort, Enter: timeline, %s: close)",
	    keymap_key_hint(&ui->keys, ACT_SORT_NEXT, k1, sizeof k1),
	    keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
	screen_printf(
	    sc, x + 1, y + 1, w - 1, SLOT_DETAIL_KEY,
	    "sorted by %s   %zu ops   times in us; idle = elapse - transit - wait; sync: the wait "
	    "before the first transfer",
	    sort_names[s->sort], s->c.nops);
	s->tab.n = s->c.nops;
	ui_table_draw(ui, &s->tab, x, y, w, h);
}

static void
comm_row(tl_ui *ui, void *ctx, size_t row, int sel, ui_table_row *out)
{
	const comm_state *s = ctx;
	const tl_comm_row *o = &s->c.ops[s->order[row]];
	snprintf(out->cell[0], sizeof out->cell[0], "%s", UI_RANK(o->rank));
	out->slot[0] = sel ? SLOT_LABEL_CURRENT : SLOT_RANK;
	ui_clean(ui, o->op_name, out->cell[1], sizeof out->cell[1]);
	us_text(o->t.elapse, out->cell[2], sizeof out->cell[2]);
	us_text(o->t.transit, out->cell[3], sizeof out->cell[3]);
	us_text(o->t.wait, out->cell[4], sizeof out->cell[4]);
	us_text(o->t.sync, out->cell[5], sizeof out->cell[5]);
	us_text(o->t.idle, out->cell[6], sizeof out->cell[6]);
	snprintf(out->cell[7], sizeof out->cell[7], "%.1f", o->t.sync_ratio * 100);
	snprintf(out->cell[8], sizeof out->cell[8], "%.1f", o->t.wait_ratio * 100);
	ui_clean(ui, o->group, out->cell[9], sizeof out->cell[9]);
}

/* The op on its rank's communication lane, selected. */
static void
jump(tl_ui *ui, const tl_comm_row *o)
{
	size_t ri = SIZE_MAX;
	for (size_t i = 0; i < ui->tr->nranks; i++)
		if (ui->tr->ranks[i]->rank == o->rank)
			ri = i;
	ui_view_close(ui, &comm_panel_view);
	if (ri == SIZE_MAX)
		return;
	char e[24], wt[24], sy[24];
	ui_message(ui, 0, "Rank %d, %s: elapse %s us, wait %s us, of it synchronization %s us",
	           o->rank, o->op_name, us_text(o->t.elapse, e, sizeof e),
	           us_text(o->t.wait, wt, sizeof wt), us_text(o->t.sync, sy, sizeof sy));
	timeline_reveal_comm(ui, ri, o->start, o->start + o->t.elapse);
}

static int
comm_action(tl_ui *ui, void *state, int a)
{
	comm_state *s = state;
	size_t n = s->c.nops;
	s->tab.n = n;
	switch (ui_table_action(ui, &s->tab, a)) {
	case UI_LIST_ENTER:
		if (!s->built)
			build(s);
		jump(ui, &s->c.ops[s->order[s->tab.sel]]);
		return 1;
	case UI_LIST_OTHER:
		if (a != ACT_SORT_NEXT)
			return 0; /* not the panel's: the view stack's rule */
		{
			s->sort = (s->sort + 1) % COMM_SORT__COUNT;
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
comm_open(tl_ui *ui)
{
	comm_state *s = xcalloc(1, sizeof *s);
	tlq_comm(ui->q, &s->c); /* read once, when first shown */
	/* the op and its five times first: at 80 columns the ratios and the group are what does
	 * not fit, so they leave together */
	static const ui_col cols[] = {
	    {"rank", 4, UI_ALIGN_RIGHT, 0, 0, 0},   {"op", 0, UI_ALIGN_LEFT, 0, 0, 0},
	    {"elapse", 9, UI_ALIGN_RIGHT, 0, 0, 0}, {"transit", 9, UI_ALIGN_RIGHT, 0, 0, 0},
	    {"wait", 9, UI_ALIGN_RIGHT, 0, 0, 0},   {"sync", 9, UI_ALIGN_RIGHT, 0, 0, 0},
	    {"idle", 9, UI_ALIGN_RIGHT, 0, 0, 0},   {"sync%", 5, UI_ALIGN_RIGHT, 0, 1, 0},
	    {"wait%", 5, UI_ALIGN_RIGHT, 0, 1, 0},  {"group", 0, UI_ALIGN_LEFT, 2, 1, 0},
	};
	memcpy(s->cols, cols, sizeof cols);
	s->cols[1].width = op_width(&s->c);
	ui_table_init(&s->tab, s->cols, 10, 1, 3, comm_row, s);
	return s;
}

static void
comm_close(tl_ui *ui, void *st)
{
	(void)ui;
	comm_state *s = st;
	tlq_comm_free(&s->c);
	free(s->order);
	free(s);
}

const view_ops comm_panel_view = {
    .name = "comm",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_COMM_PANEL,
    .open = comm_open,
    .draw = comm_draw,
    .action = comm_action,
    .close = comm_close,
};
