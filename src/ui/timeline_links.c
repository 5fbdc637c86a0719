/* Jumping along the links between host calls and device work (link-launcher, link-kernels,
 * link-partner) and the markers on both ends of the selected slice's links. The links come from
 * the query session (tlq_links, tlq_fwdbwd_partner); tracks are remembered by address, since
 * reading the host lanes reorders a rank's tracks. */
#include "config.h"
#include "query/host.h"
#include "query/links.h"
#include "ui/common.h"
#include "ui/screen.h"
#include "ui/timeline_int.h"
#include "ui/ui.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct link_ref {
	size_t rank;
	const tl_track *t;
	size_t idx;
} link_ref;

struct timeline_links {
	/* the last launcher jump: from the CANN call there, the next press goes to the operator */
	int have_chain;
	link_ref cann, op;
	/* the last kernels jump: the tasks of `from`, and which one was shown */
	int have_kernels;
	link_ref from;
	link_ref *kern;
	size_t nkern, kpos;
	/* the link just followed: the slice the jump came from, marked with the selection
	 * while that stays selected (marks_gen) */
	unsigned marks_gen;
	int have_mark;
	link_ref mark;
};

static struct timeline_links *
links_state(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->links == NULL)
		tl->links = xcalloc(1, sizeof *tl->links);
	return tl->links;
}

void
timeline_links_free(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->links == NULL)
		return;
	free(tl->links->kern);
	free(tl->links);
	tl->links = NULL;
}

/* The index of track t in rank ri, or SIZE_MAX when it is gone. */
static size_t
track_index(const tl_ui *ui, size_t ri, const tl_track *t)
{
	const tl_rank *r = ui->tr->ranks[ri];
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i] == t)
			return i;
	return SIZE_MAX;
}

static int
ref_is_selected(const tl_ui *ui, const link_ref *x)
{
	if (!ui->sel.have || ui->sel.s.rank != x->rank)
		return 0;
	const tl_rank *r = ui->tr->ranks[x->rank];
	return ui->sel.s.track < r->ntracks && r->tracks[ui->sel.s.track] == x->t &&
	       ui->sel.s.idx == x->idx;
}

/* Makes the host lanes shown (read on first use); the selection keeps its slice though the
 * rank's tracks may be reordered. */
static void
show_host(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->show_host)
		return;
	const tl_track *st = NULL;
	if (ui->sel.have)
		st = ui->tr->ranks[ui->sel.s.rank]->tracks[ui->sel.s.track];
	tlq_host_lanes(ui->q);
	colmemo_clear(tl->memo);
	tl->show_host = 1;
	if (st != NULL) {
		size_t ti = track_index(ui, ui->sel.s.rank, st);
		if (ti != SIZE_MAX)
			ui->sel.s.track = ti;
	}
	timeline_rebuild_lanes(ui);
}

/* Selects x and shows it with the slice the jump came from, both in view when they fit. */
static void
go(tl_ui *ui, const link_ref *from, const link_ref *x)
{
	size_t ti = track_index(ui, x->rank, x->t);
	if (ti == SIZE_MAX)
		return;
	const tl_slice *a = &x->t->v[x->idx], *b = &from->t->v[from->idx];
	int64_t t0 = a->start < b->start ? a->start : b->start;
	int64_t ae = slice_end(x->t, a), be = slice_end(from->t, b);
	int64_t t1 = ae > be ? ae : be;
	ui_slice_ref sel = {x->rank, ti, x->idx};
	timeline_reveal(ui, x->rank, t0, t1 > t0 ? t1 : t0 + 1, &sel);
	struct timeline_links *L = links_state(ui);
	L->have_mark = 1;
	L->mark = *from;
	L->marks_gen = ui->sel.gen;
}

static const char *
slice_name(tl_ui *ui, const link_ref *x, char *buf, size_t len)
{
	const tl_rank *r = ui->tr->ranks[x->rank];
	return ui_clean(ui, strpool_get(r->pool, x->t->v[x->idx].name), buf, len);
}

static int
is_device(tl_lane_kind k)
{
	return k == TL_LANE_COMPUTE || k == TL_LANE_COMM || k == TL_LANE_COMM_TASK ||
	       k == TL_LANE_MEMCPY || k == TL_LANE_MSTX_DEV || k == TL_LANE_OTHER;
}

static int
is_cann(const tl_track *t)
{
	return t->kind == TL_LANE_HOST && (t->key & TL_HOST_KEY_CANN);
}

/* The selection as a reference; 0 (with a message) when nothing is selected. */
static int
selected(tl_ui *ui, link_ref *out)
{
	if (!ui->sel.have) {
		ui_message(ui, 0, "Select a slice first (Enter)");
		return 0;
	}
	const tl_rank *r = ui->tr->ranks[ui->sel.s.rank];
	*out = (link_ref){ui->sel.s.rank, r->tracks[ui->sel.s.track], ui->sel.s.idx};
	return 1;
}

static void
unreadable(tl_ui *ui, const link_ref *x)
{
	const tl_rank *r = ui->tr->ranks[x->rank];
	ui_message(ui, 1, "Cannot read the links: %s is gone or changed since loading",
	           x->t->source < r->nsources ? r->sources[x->t->source]->path : "the source");
}

static void
jump_launcher(tl_ui *ui)
{
	struct timeline_links *L = links_state(ui);
	link_ref cur;
	if (!selected(ui, &cur))
		return;
	char nm[128], d[32];
	if (L->have_chain && ref_is_selected(ui, &L->cann)) {
		go(ui, &cur, &L->op);
		ui_message(ui, 0, "Operator %s launched it", slice_name(ui, &L->op, nm, sizeof nm));
		return;
	}
	if (!is_device(cur.t->kind) && cur.t->kind != TL_LANE_HOST) {
		ui_message(ui, 0, "Not device work or a host call: nothing launched it");
		return;
	}
	show_host(ui);
	tlq_slice_pos *v;
	size_t named;
	ptrdiff_t n = tlq_links(ui->q, cur.rank, cur.t, cur.idx, TL_LINK_LAUNCHER, &v, &named);
	if (n < 0) {
		unreadable(ui, &cur);
		free(v);
		return;
	}
	if (n == 0) {
		if (named)
			ui_message(ui, 0, "Its launcher is not on the host lanes");
		else if (cur.t->kind == TL_LANE_HOST)
			ui_message(ui, 0,
			           "No launch call or operator is linked to this host slice "
			           "(v: the device work it launched)");
		else
			ui_message(ui, 0,
			           "No launch is linked to this slice (no connectionId or "
			           "launch flow in the profile)");
		free(v);
		return;
	}
	const tl_rank *r = ui->tr->ranks[cur.rank];
	link_ref first = {cur.rank, r->tracks[v[0].track], v[0].idx};
	/* the launch call, then the operator behind it: the next press goes there */
	L->have_chain = n > 1;
	L->cann = first;
	L->op = n > 1 ? (link_ref){cur.rank, r->tracks[v[1].track], v[1].idx} : (link_ref){0};
	go(ui, &cur, &first);
	const tl_slice *a = &first.t->v[first.idx], *b = &cur.t->v[cur.idx];
	if (is_device(cur.t->kind))
		ui_message(ui, 0, "Launch call %s, %s before the task started%s",
		           slice_name(ui, &first, nm, sizeof nm),
		           timefmt_dur(b->start - a->start, d, sizeof d),
		           n > 1 ? " (u again: its operator)" : "");
	else
		ui_message(ui, 0, "Operator %s made this call",
		           slice_name(ui, &first, nm, sizeof nm));
	free(v);
}

static void
jump_kernels(tl_ui *ui)
{
	struct timeline_links *L = links_state(ui);
	link_ref cur;
	if (!selected(ui, &cur))
		return;
	char nm[128];
	if (L->have_kernels && L->nkern > 0 && ref_is_selected(ui, &L->kern[L->kpos])) {
		L->kpos = (L->kpos + 1) % L->nkern;
		go(ui, &L->from, &L->kern[L->kpos]);
		char kn[128];
		ui_message(ui, 0, "Kernel %zu of %zu of %s: %s", L->kpos + 1, L->nkern,
		           slice_name(ui, &L->from, nm, sizeof nm),
		           slice_name(ui, &L->kern[L->kpos], kn, sizeof kn));
		return;
	}
	if (cur.t->kind != TL_LANE_HOST) {
		ui_message(ui, 0, "Not a host call: select a PyTorch operator or CANN call for v");
		return;
	}
	tlq_slice_pos *v;
	size_t named;
	ptrdiff_t n = tlq_links(ui->q, cur.rank, cur.t, cur.idx, TL_LINK_KERNELS, &v, &named);
	if (n < 0) {
		unreadable(ui, &cur);
		free(v);
		return;
	}
	if (n == 0) {
		if (named)
			ui_message(ui, 0, "Its %zu device tasks are not on the lanes", named);
		else
			ui_message(ui, 0, "This %s launched no device task (no link to one)",
			           is_cann(cur.t) ? "CANN call" : "operator");
		free(v);
		return;
	}
	const tl_rank *r = ui->tr->ranks[cur.rank];
	free(L->kern);
	L->kern = xreallocarray(NULL, (size_t)n, sizeof *L->kern);
	for (ptrdiff_t i = 0; i < n; i++)
		L->kern[i] = (link_ref){cur.rank, r->tracks[v[i].track], v[i].idx};
	free(v);
	L->nkern = (size_t)n;
	L->kpos = 0;
	L->from = cur;
	L->have_kernels = 1;
	go(ui, &cur, &L->kern[0]);
	char d[32];
	ui_message(ui, 0, "Kernel 1 of %zu: %s, %s after the call started%s", L->nkern,
	           slice_name(ui, &L->kern[0], nm, sizeof nm),
	           timefmt_dur(L->kern[0].t->v[L->kern[0].idx].start - cur.t->v[cur.idx].start, d,
	                       sizeof d),
	           L->nkern > 1 ? " (v again: the next)" : "");
}

static void
jump_partner(tl_ui *ui)
{
	link_ref cur;
	if (!selected(ui, &cur))
		return;
	tlq_slice_pos p;
	const char *why;
	if (!tlq_fwdbwd_partner(ui->q, cur.rank, cur.t, cur.idx, &p, &why)) {
		ui_message(ui, 0, "No forward/backward partner: %s", why);
		return;
	}
	const tl_rank *r = ui->tr->ranks[cur.rank];
	link_ref x = {cur.rank, r->tracks[p.track], p.idx};
	int to_bwd = x.t->v[x.idx].start > cur.t->v[cur.idx].start;
	char nm[128];
	go(ui, &cur, &x);
	ui_message(ui, 0, "%s operator %s (y again: back)", to_bwd ? "Backward" : "Forward",
	           slice_name(ui, &x, nm, sizeof nm));
}

void
timeline_link_action(tl_ui *ui, int act)
{
	if (act == ACT_LINK_LAUNCHER)
		jump_launcher(ui);
	else if (act == ACT_LINK_KERNELS)
		jump_kernels(ui);
	else if (act == ACT_LINK_PARTNER)
		jump_partner(ui);
}

/* ---- markers ---- */

/* The screen row of track t of rank ri's lane, or -1 when it is not on screen. */
static int
row_of(tl_ui *ui, size_t ri, const tl_track *t)
{
	tl_timeline *tl = TIMELINE(ui);
	size_t ti = track_index(ui, ri, t);
	if (ti == SIZE_MAX)
		return -1;
	for (int row = 0; row < tl->lanes_h; row++) {
		size_t li = tl->top + (size_t)row;
		if (li >= tl->nlanes)
			break;
		const ui_lane *l = &tl->lanes[li];
		if (l->type != UL_HEADER && l->rank == ri && ti >= l->first &&
		    ti < l->first + l->count)
			return tl->lanes_y + row;
	}
	return -1;
}

static int
put_mark(tl_ui *ui, const link_ref *x)
{
	tl_timeline *tl = TIMELINE(ui);
	int y = row_of(ui, x->rank, x->t);
	int c = vp_time_col(&tl->vp, x->t->v[x->idx].start);
	if (y < 0 || c < 0 || c >= tl->vp.ncols)
		return 0;
	scr_cell *sc = &ui->scr.cell[y * ui->scr.w + tl->lanes_x + c];
	sc->ch = ui->utf8 ? 0x25C6 : '*'; /* a diamond at the start of each end */
	sc->slot = SLOT_LINK;
	sc->flags = 0;
	return 1;
}

void
timeline_links_draw(tl_ui *ui)
{
	/* the ends of the link just followed, while its target stays selected: found by the
	 * jump, so drawing looks nothing up */
	struct timeline_links *L = links_state(ui);
	if (!L->have_mark || L->marks_gen != ui->sel.gen || !ui->sel.have)
		return;
	const tl_rank *r = ui->tr->ranks[ui->sel.s.rank];
	link_ref self = {ui->sel.s.rank, r->tracks[ui->sel.s.track], ui->sel.s.idx};
	tl_timeline *tl = TIMELINE(ui);
	int y = row_of(ui, self.rank, self.t), y2 = row_of(ui, L->mark.rank, L->mark.t);
	int c = vp_time_col(&tl->vp, self.t->v[self.idx].start);
	int c2 = vp_time_col(&tl->vp, L->mark.t->v[L->mark.idx].start);
	if (y < 0 || y2 < 0 || c < 0 || c >= tl->vp.ncols || c2 < 0 || c2 >= tl->vp.ncols)
		return; /* both ends on screen, or neither marked */
	put_mark(ui, &L->mark);
	put_mark(ui, &self);
}
