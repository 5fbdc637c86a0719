/* The detail pane under the lanes: the selected slice (name, rank, lane, times, enclosing
 * stage and step, arguments read lazily from its source), or the selected bubble (a Free slice:
 * its step, stage, reason and evidence from tlq_bubble_at, the attribution `tl summary`
 * prints) and, with a marked range, per rank statistics of that range from the query layer
 * (tlq_overlap, the function `tl summary` uses). */
#include "config.h"
#include "ui/common.h"
#include "model/clock.h"
#include "query/host.h"
#include "query/links.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct detail_state {
	int scroll;
	unsigned gen; /* of the selection shown: a new one is shown from its top */
	char **args;  /* "key\tvalue" of the selected slice, read lazily: its links (what launched
	               * it, the Python stack) first, its raw fields from the file after */
	size_t nargs, nlinks;
	int args_valid;
	ui_slice_ref args_for;
	/* range statistics, computed once per marked range */
	tl_overlap *rstat;
	tl_host_idle *rhost; /* per rank: idle time, the part the host was still launching */
	int *rhost_ok;       /* per rank: the profile has launches */
	int64_t *rkind;      /* nranks x TL_LANE__COUNT busy ns */
	int64_t rstat_a, rstat_b;
	int rstat_valid;
	/* the bubble of the selected Free slice */
	int bub_valid;
	tl_rl_bubble bub;
	/* collective instances across ranks, computed when a communication op is first shown */
	tl_coll_result coll;
	int coll_valid;
} detail_state;

static int
detail_height(tl_ui *ui, void *st, int h)
{
	(void)ui;
	(void)st;
	int d = h * 2 / 5;
	if (d < 6)
		d = 6;
	if (d > h - 8)
		d = h - 8;
	return d < 3 ? 3 : d;
}

static void
args_free(detail_state *d)
{
	for (size_t i = 0; i < d->nargs; i++)
		free(d->args[i]);
	free(d->args);
	d->args = NULL;
	d->nargs = d->nlinks = 0;
	d->args_valid = 0;
}

/* A new selection or range is shown from the top. */
static void
sync_selection(tl_ui *ui, detail_state *d)
{
	if (d->gen != ui->sel.gen) {
		d->gen = ui->sel.gen;
		d->scroll = 0;
	}
}

typedef struct args_acc {
	char **v;
	size_t n, cap;
} args_acc;

static void
arg_add(void *ctx, const char *key, const char *value)
{
	args_acc *a = ctx;
	char *line = xasprintf("%s\t%s", key, value);
	VEC_PUSH(a->v, a->n, a->cap, line);
}

static void
load_args(tl_ui *ui, detail_state *d)
{
	const ui_slice_ref *sel = &ui->sel.s;
	if (d->args_valid && d->args_for.rank == sel->rank && d->args_for.track == sel->track &&
	    d->args_for.idx == sel->idx)
		return;
	args_free(d);
	const tl_rank *r = ui->tr->ranks[sel->rank];
	args_acc a = {0};
	tlq_slice_links_q(ui->q, sel->rank, r->tracks[sel->track], sel->idx, arg_add, &a);
	tlq_slice_flow_lines(r, r->tracks[sel->track], sel->idx, arg_add, &a);
	d->nlinks = a.n;
	tlq_slice_args(r, r->tracks[sel->track], sel->idx, arg_add, &a);
	d->args = a.v;
	d->nargs = a.n;
	d->args_valid = 1;
	d->args_for = *sel;
}

/* Step sp of r as its lane names it (ProfilerStep#N; an msprof export's "Iteration N"). */
static const char *
step_name(const tl_ui *ui, const tl_rank *r, uint16_t sp, char *buf, size_t n)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_STEP)
			continue;
		for (size_t k = 0; k < t->n; k++)
			if (track_arg(t, k) == sp)
				return ui_clean(ui, strpool_get(r->pool, t->v[k].name), buf, n);
	}
	snprintf(buf, n, "ProfilerStep#%" PRId64, r->steps[sp].id);
	return buf;
}

/* ---- lines --------------------------------------------------------------------------------- */

typedef struct dline {
	char key[24];
	char val[480];
	uint8_t slot;
} dline;

typedef struct dlines {
	dline *v;
	size_t n, cap;
} dlines;

static void add(dlines *d, uint8_t slot, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
add(dlines *d, uint8_t slot, const char *key, const char *fmt, ...)
{
	dline l;
	snprintf(l.key, sizeof l.key, "%s", key);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l.val, sizeof l.val, fmt, ap);
	va_end(ap);
	l.slot = slot;
	VEC_PUSH(d->v, d->n, d->cap, l);
}

/* The "key\tvalue" lines [from, to) of the selected slice's args. */
static void
arg_lines(tl_ui *ui, detail_state *ds, dlines *d, size_t from, size_t to)
{
	for (size_t i = from; i < to && i < ds->nargs; i++) {
		char *tab = strchr(ds->args[i], '\t');
		char k[64], v[400], nm[64];
		snprintf(k, sizeof k, "%.*s", tab ? (int)(tab - ds->args[i]) : 0, ds->args[i]);
		ui_clean(ui, tab ? tab + 1 : ds->args[i], v, sizeof v);
		ui_clean(ui, k, nm, sizeof nm);
		add(d, SLOT_DETAIL, nm, "%s", v);
	}
}

static int
sel_is_bubble(const tl_ui *ui)
{
	const tl_track *t = ui->tr->ranks[ui->sel.s.rank]->tracks[ui->sel.s.track];
	return t->kind == TL_LANE_OVERLAP && t->key == TL_OVL_FREE;
}

/* A selected Free slice is a bubble: what `tl summary` says of it. */
static void
bubble_lines(tl_ui *ui, detail_state *ds, dlines *d)
{
	const tl_rank *r = ui->tr->ranks[ui->sel.s.rank];
	const tl_track *t = r->tracks[ui->sel.s.track];
	const tl_slice *s = &t->v[ui->sel.s.idx];
	int64_t end = slice_end(t, s);
	if (ui->sel.have_bubble) { /* the timeline found it: not asked again */
		ds->bub = ui->sel.bubble;
		ds->bub_valid = 1;
	}
	if (!ds->bub_valid || ds->bub.rank != ui->sel.s.rank || ds->bub.start != s->start ||
	    ds->bub.end != end) {
		tlq_bubble_at(ui->q, ui->sel.s.rank, s->start, end, &ds->bub);
		ds->bub_valid = 1;
	}
	const tl_rl_bubble *b = &ds->bub;
	char a[64], e[64], du[32], nm[400];
	add(d, SLOT_DETAIL, "bubble", "%s idle: neither compute nor communication on the device",
	    timefmt_dur(b->end - b->start, du, sizeof du));
	add(d, SLOT_DETAIL, "rank", "%d%s%s", r->rank, r->role ? "  role " : "",
	    r->role ? ui_clean(ui, r->role, nm, sizeof nm) : "");
	add(d, SLOT_DETAIL, "start", "%s  (%s)", ui_time(ui, b->start, a, sizeof a),
	    timefmt_epoch(b->start, e, sizeof e));
	add(d, SLOT_DETAIL, "end", "%s  (%s)", ui_time(ui, b->end, a, sizeof a),
	    timefmt_epoch(b->end, e, sizeof e));
	add(d, SLOT_DETAIL, "duration", "%s  (%s us)",
	    timefmt_dur(b->end - b->start, du, sizeof du),
	    timefmt_us3(b->end - b->start, a, sizeof a));
	add(d, SLOT_DETAIL, "step", "%s", tlq_bubble_step_text(b, "-", e, sizeof e));
	const char *sn = tlq_stage_name(ui->q, b->stage);
	if (sn)
		add(d, SLOT_DETAIL, "stage", "%s  (encloses the whole gap)",
		    ui_clean(ui, sn, nm, sizeof nm));
	else
		add(d, SLOT_DETAIL, "stage", "-  (no stage encloses the whole gap)");
	add(d, SLOT_DETAIL, "reason", "%s", tlq_bubble_reason_name(b->reason));
	add(d, SLOT_DETAIL, "evidence", "%s", ui_clean(ui, b->detail, nm, sizeof nm));
}

/* A communication op that is a collective (the one of r starting at start): every rank's
 * arrival at it, the wait for the last one and who that was (tlq_collectives, the
 * `collectives` of `tl summary --json`). */
static void
arrival_lines(tl_ui *ui, detail_state *ds, dlines *d, const tl_rank *r, int64_t start)
{
	if (!ds->coll_valid) {
		tlq_collectives(ui->q, &ds->coll);
		ds->coll_valid = 1;
	}
	for (size_t i = 0; i < ds->coll.n; i++) {
		const tl_coll *c = &ds->coll.v[i];
		const tl_coll_arrival *me = NULL;
		int64_t first = INT64_MAX;
		for (size_t k = 0; k < c->n; k++) {
			if (c->ranks[k].rank == r->rank && c->ranks[k].arrive == start)
				me = &c->ranks[k];
			if (c->ranks[k].arrive < first)
				first = c->ranks[k].arrive;
		}
		if (me == NULL)
			continue;
		char a[32], b[32];
		add(d, SLOT_DETAIL_KEY, "collective",
		    "#%zu of its group, %zu ranks; last to arrive: "
		    "rank %s, %s after the first",
		    c->index, c->n, UI_RANK(c->last_rank), timefmt_dur(c->skew, a, sizeof a));
		for (size_t k = 0; k < c->n; k++) {
			char key[32];
			snprintf(key, sizeof key, "rank %s%s", UI_RANK(c->ranks[k].rank),
			         c->ranks[k].rank == c->last_rank ? " last" : "");
			add(d, c->ranks[k].rank == r->rank ? SLOT_DETAIL_KEY : SLOT_DETAIL, key,
			    "arrived +%s, waited %s for the last",
			    timefmt_dur(c->ranks[k].arrive - first, a, sizeof a),
			    timefmt_dur(c->ranks[k].wait, b, sizeof b));
		}
		return;
	}
}

static void
slice_lines(tl_ui *ui, detail_state *ds, dlines *d)
{
	if (sel_is_bubble(ui)) {
		bubble_lines(ui, ds, d);
		return;
	}
	const tl_rank *r = ui->tr->ranks[ui->sel.s.rank];
	const tl_track *t = r->tracks[ui->sel.s.track];
	const tl_slice *s = &t->v[ui->sel.s.idx];
	char nm[400], a[64], b[64], du[32], lab[128];
	/* from a kernel to its Python first: what launched it, where, its call stack; the raw
	 * fields of the file last */
	load_args(ui, ds);
	arg_lines(ui, ds, d, 0, ds->nlinks);
	add(d, SLOT_DETAIL, "slice", "%s",
	    ui_clean(ui, strpool_get(r->pool, s->name), nm, sizeof nm));
	add(d, SLOT_DETAIL, "rank", "%d%s%s", r->rank, r->role ? "  role " : "",
	    r->role ? ui_clean(ui, r->role, b, sizeof b) : "");
	ui_clean(ui, strpool_get(r->pool, t->label), lab, sizeof lab);
	if (t->kind == TL_LANE_OVERLAP)
		add(d, SLOT_DETAIL, "lane", "overlap %s", tlq_overlap_lane_name((int)t->key));
	else
		add(d, SLOT_DETAIL, "lane", "%s %s%s", lane_kind_name(t->kind), lab,
		    t->depth ? " (nested)" : "");
	add(d, SLOT_DETAIL, "start", "%s  (%s)", ui_time(ui, s->start, a, sizeof a),
	    timefmt_epoch(s->start, b, sizeof b));
	if (r->clock.on) { /* its host's clock was moved onto the reference host's */
		int64_t raw = clock_unmap(&r->clock, s->start);
		add(d, SLOT_DETAIL, "raw start", "%s  (its host's clock, %s from the reference)",
		    timefmt_epoch(raw, b, sizeof b), timefmt_dur(raw - s->start, du, sizeof du));
	}
	add(d, SLOT_DETAIL, "end", "%s", ui_time(ui, slice_end(t, s), a, sizeof a));
	add(d, SLOT_DETAIL, "duration", "%s  (%s us)", timefmt_dur(slice_dur(t, s), du, sizeof du),
	    timefmt_us3(slice_dur(t, s), a, sizeof a));
	tl_span other; /* a range given a stream: its host call and its device part */
	if (tlq_mstx_other_part(r, t, ui->sel.s.idx, &other))
		add(d, SLOT_DETAIL, t->kind == TL_LANE_MSTX ? "device" : "host call", "%s  (%s)",
		    ui_time(ui, other.start, a, sizeof a),
		    timefmt_dur(other.end - other.start, du, sizeof du));
	uint16_t sp = track_step(t, ui->sel.s.idx);
	if (sp == TL_NO_STEP)
		sp = rank_step_at(r, s->start);
	if (sp != TL_NO_STEP && sp < r->nsteps)
		add(d, SLOT_DETAIL, "step", "%s%s", step_name(ui, r, sp, nm, sizeof nm),
		    track_has_steps(t) ? " (launched in it)" : "");
	else
		add(d, SLOT_DETAIL, "step", "-");
	const tl_slice *st = tlq_enclosing(r, TL_LANE_STAGE, s->start);
	add(d, SLOT_DETAIL, "stage", "%s",
	    st ? ui_clean(ui, strpool_get(r->pool, st->name), nm, sizeof nm) : "-");
	if (t->kind != TL_LANE_MSTX) {
		const tl_slice *mx = tlq_enclosing(r, TL_LANE_MSTX, s->start);
		if (mx)
			add(d, SLOT_DETAIL, "mstx", "%s",
			    ui_clean(ui, strpool_get(r->pool, mx->name), nm, sizeof nm));
	}
	if (t->kind == TL_LANE_COMM)
		arrival_lines(ui, ds, d, r, s->start);
	arg_lines(ui, ds, d, ds->nlinks, ds->nargs);
}

static void
range_stats(tl_ui *ui, detail_state *d)
{
	if (d->rstat_valid && d->rstat_a == ui->sel.mark[0] && d->rstat_b == ui->sel.mark[1])
		return;
	size_t n = ui->tr->nranks;
	d->rstat = xreallocarray(d->rstat, n ? n : 1, sizeof *d->rstat);
	d->rhost = xreallocarray(d->rhost, n ? n : 1, sizeof *d->rhost);
	d->rhost_ok = xreallocarray(d->rhost_ok, n ? n : 1, sizeof *d->rhost_ok);
	d->rkind = xreallocarray(d->rkind, (n ? n : 1) * TL_LANE__COUNT, sizeof *d->rkind);
	for (size_t i = 0; i < n; i++) {
		const tl_rank *r = ui->tr->ranks[i];
		tlq_overlap(r, ui->sel.mark[0], ui->sel.mark[1], &d->rstat[i]);
		d->rhost_ok[i] =
		    tlq_host_idle(ui->q, i, ui->sel.mark[0], ui->sel.mark[1], &d->rhost[i]) == 0;
		for (int k = 0; k < TL_LANE__COUNT; k++)
			d->rkind[i * TL_LANE__COUNT + (size_t)k] =
			    k == TL_LANE_OVERLAP ? 0
			                         : tlq_kind_busy(r, (tl_lane_kind)k,
			                                         ui->sel.mark[0], ui->sel.mark[1]);
	}
	d->rstat_a = ui->sel.mark[0];
	d->rstat_b = ui->sel.mark[1];
	d->rstat_valid = 1;
}

/* ns as ms with 3 decimals, rounded as the overview (V) and tl summary round theirs, so that a
 * marked step's numbers here are the overview's for that step, digit for digit */
static char *
ms3(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f", (double)ns / 1e6);
	return buf;
}

/* The range's statistics in valw columns: the overlap per rank (its comm column narrower when
 * the line would not fit), then the busy time per lane kind, in as many tables as the kinds
 * need to fit (none cut at 80 columns). */
static void
range_lines(tl_ui *ui, detail_state *ds, dlines *d, int valw)
{
	range_stats(ui, ds);
	char a[64], b[64], du[32];
	add(d, SLOT_DETAIL, "range", "%s \u2013 %s  (%s)",
	    ui_time(ui, ui->sel.mark[0], a, sizeof a), ui_time(ui, ui->sel.mark[1], b, sizeof b),
	    timefmt_dur(ui->sel.mark[1] - ui->sel.mark[0], du, sizeof du));
	/* host-bound: of the free time, how long the device waited for the host to start the
	 * launch of the work after each idle gap (a DB's CANN_API launches) */
	int w0 = valw < 65 ? 9 : 10, w1 = valw < 65 ? 8 : 10;
	add(d, SLOT_DETAIL_KEY, "ms", "%*s %*s %10s %10s %10s %10s", w0, "computing", w1, "comm",
	    "overlapped", "comm.exp", "free", "host-bound");
	for (size_t i = 0; i < ui->tr->nranks; i++) {
		const tl_overlap *o = &ds->rstat[i];
		char v[6][24], k[24];
		snprintf(k, sizeof k, "rank %s", UI_RANK(ui->tr->ranks[i]->rank));
		if (ds->rhost_ok[i])
			ms3(ds->rhost[i].idle_host, v[5], 24);
		else
			snprintf(v[5], 24, "-");
		add(d, SLOT_DETAIL, k, "%*s %*s %10s %10s %10s %10s", w0,
		    ms3(o->computing, v[0], 24), w1, ms3(o->communication, v[1], 24),
		    ms3(o->overlapped, v[2], 24), ms3(o->comm_not_overlapped, v[3], 24),
		    ms3(o->free, v[4], 24), v[5]);
	}
	static const tl_lane_kind kinds[] = {TL_LANE_STAGE,   TL_LANE_STEP, TL_LANE_MSTX,
	                                     TL_LANE_COMPUTE, TL_LANE_COMM, TL_LANE_COMM_TASK,
	                                     TL_LANE_MEMCPY,  TL_LANE_OTHER};
	enum { NK = sizeof kinds / sizeof *kinds };
	size_t shown[NK], ns = 0;
	for (size_t k = 0; k < NK; k++)
		for (size_t i = 0; i < ui->tr->nranks; i++)
			if (ds->rkind[i * TL_LANE__COUNT + kinds[k]] > 0) {
				shown[ns++] = k;
				break;
			}
	size_t per = valw >= 11 ? (size_t)(valw + 1) / 11 : 1; /* "%10s " a kind */
	for (size_t c0 = 0; c0 < ns; c0 += per) {
		size_t c1 = c0 + per < ns ? c0 + per : ns;
		char hdr[256] = "";
		size_t off = 0;
		for (size_t c = c0; c < c1; c++)
			off += (size_t)snprintf(hdr + off, sizeof hdr - off, "%10s ",
			                        lane_kind_name(kinds[shown[c]]));
		if (c0 == 0 && c1 == ns)
			add(d, SLOT_DETAIL_KEY, "busy ms", "%s  (sum over the lanes of a kind)",
			    hdr);
		else
			add(d, SLOT_DETAIL_KEY, "busy ms", "%s", hdr);
		for (size_t i = 0; i < ui->tr->nranks; i++) {
			char line[480] = "", k[24], v[24];
			size_t lo = 0;
			for (size_t c = c0; c < c1; c++)
				lo += (size_t)snprintf(
				    line + lo, sizeof line - lo, "%10s ",
				    ms3(ds->rkind[i * TL_LANE__COUNT + kinds[shown[c]]], v,
				        sizeof v));
			snprintf(k, sizeof k, "rank %s", UI_RANK(ui->tr->ranks[i]->rank));
			add(d, SLOT_DETAIL, k, "%s", line);
		}
	}
	if (ns > per)
		add(d, SLOT_DETAIL, "", "%s", "(busy ms: the sum over the lanes of a kind)");
}

static void
detail_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	detail_state *ds = st;
	tl_screen *s = &ui->scr;
	sync_selection(ui, ds);
	if (h < 2)
		return;
	dlines d = {0};
	const char *title = "Detail";
	if (ui->sel.have)
		slice_lines(ui, ds, &d);
	if (ui->sel.nmark == 2) {
		if (d.n)
			add(&d, SLOT_DETAIL, "", "%s", "");
		range_lines(ui, ds, &d, w - 14 - 3); /* the value column's width below */
		title = !ui->sel.have       ? "Range statistics"
		        : sel_is_bubble(ui) ? "Selected bubble and range statistics"
		                            : "Selected slice and range statistics";
	} else if (ui->sel.have) {
		title = sel_is_bubble(ui) ? "Selected bubble" : "Selected slice";
	}
	if (d.n == 0)
		add(&d, SLOT_DETAIL, "", "%s",
		    "Nothing selected: Enter selects the slice under the cursor; mark twice for "
		    "range "
		    "statistics");
	screen_fill(s, x, y, w, ' ', SLOT_TITLE);
	char keys[64], up[64];
	keymap_keys_text(&ui->keys, ACT_DETAIL_DOWN, keys, sizeof keys);
	keymap_keys_text(&ui->keys, ACT_DETAIL_UP, up, sizeof up);
	int maxscroll = (int)d.n - (h - 1);
	if (maxscroll < 0)
		maxscroll = 0;
	if (ds->scroll > maxscroll)
		ds->scroll = maxscroll;
	if (maxscroll)
		screen_printf(s, x, y, w, SLOT_TITLE, " %s  (%zu lines; %s %s scroll)", title, d.n,
		              up, keys);
	else
		screen_printf(s, x, y, w, SLOT_TITLE, " %s", title);
	int kw = 14;
	for (int row = 1; row < h; row++) {
		size_t i = (size_t)(ds->scroll + row - 1);
		if (i >= d.n)
			break;
		const dline *l = &d.v[i];
		screen_fill(s, x, y + row, w, ' ', SLOT_DETAIL);
		screen_text(s, x + 1, y + row, kw, l->key, SLOT_DETAIL_KEY);
		screen_text(s, x + 2 + kw, y + row, w - kw - 3, l->val, l->slot);
	}
	free(d.v);
}

static int
detail_action(tl_ui *ui, void *st, int a)
{
	detail_state *d = st;
	sync_selection(ui, d);
	switch (a) {
	case ACT_TOGGLE_DETAIL:
		ui_view_close(ui, &detail_view);
		return 1;
	case ACT_DETAIL_UP:
		if (d->scroll > 0)
			d->scroll--;
		return 1;
	case ACT_DETAIL_DOWN:
		d->scroll++;
		return 1;
	default:
		return 0; /* the timeline above keeps the other keys */
	}
}

static void *
detail_open(tl_ui *ui)
{
	detail_state *d = xcalloc(1, sizeof *d);
	d->gen = ui->sel.gen;
	return d;
}

static void
detail_close(tl_ui *ui, void *st)
{
	(void)ui;
	detail_state *d = st;
	args_free(d);
	free(d->rstat);
	free(d->rhost);
	free(d->rhost_ok);
	free(d->rkind);
	if (d->coll_valid)
		tlq_collectives_free(&d->coll);
	free(d);
}

const view_ops detail_view = {
    .name = "detail",
    .layer = UI_LAYER_PANE,
    .open_action = ACT_TOGGLE_DETAIL,
    .open = detail_open,
    .draw = detail_draw,
    .action = detail_action,
    .height = detail_height,
    .close = detail_close,
};
