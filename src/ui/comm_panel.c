/* The communication panel: per communication op and rank, where its time went -- elapse,
 * transit (moving data), wait (Notify_Wait), synchronization (the wait before the first
 * transfer: waiting for a late rank) and idle (the rest), with the two ratios. Sortable; Enter
 * shows the op on its rank's communication lane. Every number is tlq_comm's, the one
 * `tl summary --json` writes as `communication`. */
#include "config.h"
#include "ui/common.h"
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
	size_t sel, top;
	size_t *order;
	int built;
} comm_state;

static const char *const sort_names[COMM_SORT__COUNT] = {
    "rank and start", "elapse", "transit", "wait", "synchronization", "idle"};

static const tl_comm_row *sort_ops; /* the comparator's rows (the viewer has one thread) */
static int sort_key;

static int64_t
key_of(const tl_comm_row *r)
{
	switch (sort_key) {
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
cmp_row(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int64_t x = key_of(&sort_ops[i]), y = key_of(&sort_ops[j]);
	int c = (x < y) - (x > y); /* largest first */
	if (c == 0)
		c = (i > j) - (i < j); /* the result's order: rank, then start */
	return c;
}

static void
build(comm_state *s)
{
	s->order = xreallocarray(s->order, s->c.nops ? s->c.nops : 1, sizeof *s->order);
	for (size_t i = 0; i < s->c.nops; i++)
		s->order[i] = i;
	sort_ops = s->c.ops;
	sort_key = s->sort;
	qsort(s->order, s->c.nops, sizeof *s->order, cmp_row);
	sort_ops = NULL;
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
	int cx = x + 1;
	int ow = op_width(&s->c);
	if (w - 5 - (ow + 51) >= 12)
		screen_printf(sc, cx, y + 2, w - 1, SLOT_LABEL,
		              "%4s %-*s %9s %9s %9s %9s %9s %5s %5s  %s", "rank", ow, "op",
		              "elapse", "transit", "wait", "sync", "idle", "sync%", "wait%",
		              "group");
	else
		screen_printf(sc, cx, y + 2, w - 1, SLOT_LABEL, "%4s %-*s %9s %9s %9s %9s %9s",
		              "rank", ow, "op", "elapse", "transit", "wait", "sync", "idle");
	int rows = h - 3;
	if (rows < 1)
		return;
	if (s->sel >= s->c.nops)
		s->sel = s->c.nops - 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + (size_t)rows)
		s->top = s->sel - (size_t)rows + 1;
	for (int r = 0; r < rows && s->top + (size_t)r < s->c.nops; r++) {
		size_t row = s->top + (size_t)r;
		const tl_comm_row *o = &s->c.ops[s->order[row]];
		int yy = y + 3 + r, sel = row == s->sel;
		char e[24], t[24], wt[24], sy[24], id[24], nb[160], gb[160];
		if (sel)
			screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
		screen_printf(sc, cx, yy, 4, sel ? SLOT_LABEL_CURRENT : SLOT_RANK, "%4d", o->rank);
		/* the op and its five times first: at 80 columns the ratios and the group are what
		 * does not fit, so they start only where there is room for them */
		int nw = ow + 51, rest = w - 5 - nw;
		screen_printf(sc, cx + 4, yy, nw, SLOT_NORMAL, " %-*.*s %9s %9s %9s %9s %9s", ow,
		              ow, ui_clean(ui, o->op_name, nb, sizeof nb),
		              us_text(o->t.elapse, e, sizeof e), us_text(o->t.transit, t, sizeof t),
		              us_text(o->t.wait, wt, sizeof wt), us_text(o->t.sync, sy, sizeof sy),
		              us_text(o->t.idle, id, sizeof id));
		if (rest >= 12)
			screen_printf(sc, cx + 4 + nw, yy, rest, SLOT_NORMAL, " %5.1f %5.1f  %s",
			              o->t.sync_ratio * 100, o->t.wait_ratio * 100,
			              ui_clean(ui, o->group, gb, sizeof gb));
	}
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
	const tl_rank *r = ui->tr->ranks[ri];
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		if (t->kind != TL_LANE_COMM)
			continue;
		size_t k = track_first_starting_at(t, o->start);
		if (k < t->n && t->v[k].start == o->start) {
			ui_slice_ref sel = {ri, ti, k};
			timeline_reveal(ui, ri, t->v[k].start, t->v[k].end, &sel);
			return;
		}
	}
	timeline_reveal(ui, ri, o->start, o->start + o->t.elapse, NULL);
}

static int
comm_action(tl_ui *ui, void *state, int a)
{
	comm_state *s = state;
	size_t n = s->c.nops;
	int page = ui->scr.h > 6 ? ui->scr.h - 5 : 1;
	if (ui_list_move(&s->sel, n, page, a))
		return 1;
	switch (a) {
	case ACT_QUIT:
	case ACT_CLEAR:
		ui_view_close(ui, &comm_panel_view);
		return 1;
	case ACT_HELP:
	case ACT_COMMAND:
	case ACT_REDRAW:
	case ACT_DP_PANEL:
	case ACT_PP_VIEW:
	case ACT_SLOW_PANEL:
	case ACT_OPS_PANEL:
	case ACT_MODULES_PANEL:
		return 0; /* the view stack's */
	case ACT_SORT_NEXT:
		s->sort = (s->sort + 1) % COMM_SORT__COUNT;
		s->built = 0;
		s->sel = s->top = 0;
		ui_message(ui, 0, "Sorted by %s", sort_names[s->sort]);
		return 1;
	case ACT_SELECT:
		if (!s->built)
			build(s);
		if (s->sel < n)
			jump(ui, &s->c.ops[s->order[s->sel]]);
		return 1;
	default:
		return 1; /* the timeline behind the panel does not move */
	}
}

static void *
comm_open(tl_ui *ui)
{
	comm_state *s = xcalloc(1, sizeof *s);
	tlq_comm(ui->q, &s->c); /* read once, when first shown */
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
