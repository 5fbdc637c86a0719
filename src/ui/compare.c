/* tl view A --compare B: B's lanes on A's clock, the delta lane, the alignment (ui/compare.h).
 * Every number is tl diff's, asked of the query layer (tlq_diff_gather, tlq_diff_changes):
 * the viewer computes no difference of its own. */
#include "config.h"
#include "ui/compare.h"
#include "ui/common.h"
#include "ui/timeline_int.h"
#include "util/satint.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- making it ------------------------------------------------------------------------------ */

/* The per-rank stage rows of tl diff, by (rank, step, name), for finding a stage instance's. */
static int
cmp_stage_change(const void *p, const void *q)
{
	const tl_diff_change *x = *(const tl_diff_change *const *)p;
	const tl_diff_change *y = *(const tl_diff_change *const *)q;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
cmp_bar(const void *p, const void *q)
{
	const ui_delta_bar *x = p, *y = q;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

static void
make_bars(ui_compare *c, const tl_query *qa)
{
	const tl_trace *tr = tlq_trace(qa);
	c->nranks = tr->nranks;
	c->bars = xcalloc(tr->nranks + 1, sizeof *c->bars);
	c->nbars = xcalloc(tr->nranks + 1, sizeof *c->nbars);
	size_t *cap = xcalloc(tr->nranks + 1, sizeof *cap);
	const tl_diff_change **idx = xmalloc((c->nch + 1) * sizeof *idx);
	size_t nidx = 0;
	for (size_t i = 0; i < c->nch; i++)
		if (c->ch[i].kind == TL_DIFF_STAGE && c->ch[i].rank >= 0)
			idx[nidx++] = &c->ch[i];
	qsort(idx, nidx, sizeof *idx, cmp_stage_change);
	const tl_stage_row *rows;
	size_t n = tlq_stages(qa, &rows);
	for (size_t k = 0; k < n; k++) {
		const char *name = tlq_stage_name(qa, rows[k].stage);
		int64_t key = tlq_diff_step_key(&c->a, rows[k].step);
		if (name == NULL || key == -2)
			continue;
		tl_diff_change probe = {
		    .rank = tr->ranks[rows[k].rank]->rank, .step = key, .name = name};
		const tl_diff_change *pp = &probe, **hit;
		hit = bsearch(&pp, idx, nidx, sizeof *idx, cmp_stage_change);
		if (hit == NULL)
			continue;
		const tl_diff_change *ch = *hit;
		ui_delta_bar bar = {.t0 = rows[k].start,
		                    .t1 = rows[k].end,
		                    .a = ch->a,
		                    .b = ch->b,
		                    .has_a = ch->has_a,
		                    .has_b = ch->has_b,
		                    .stage = ch->name,
		                    .step = rows[k].step,
		                    .step_b = tlq_diff_step_id(&c->b, key)};
		size_t ri = rows[k].rank;
		VEC_PUSH(c->bars[ri], c->nbars[ri], cap[ri], bar);
	}
	for (size_t ri = 0; ri < tr->nranks; ri++)
		if (c->nbars[ri] > 1)
			qsort(c->bars[ri], c->nbars[ri], sizeof *c->bars[ri], cmp_bar);
	free(idx);
	free(cap);
}

ui_compare *
compare_open(const tl_query *qa, const tl_query *qb, const char *label_a, const char *label_b)
{
	ui_compare *c = xcalloc(1, sizeof *c);
	c->qb = qb;
	c->trb = tlq_trace(qb);
	text_sanitize(label_a ? label_a : "A", c->label_a, sizeof c->label_a, 0);
	text_sanitize(label_b ? label_b : "B", c->label_b, sizeof c->label_b, 0);
	/* the measurements and the pairing of tl diff A B: by rank number, by the n-th step */
	tl_diff_side_opts o = {.only_rank = -1, .as_rank = -1, .step_first = -1};
	tlq_diff_gather(qa, &o, &c->a);
	tlq_diff_gather(qb, &o, &c->b);
	tlq_diff_pair_single(&c->a, &c->b);
	c->nch = tlq_diff_changes(&c->a, &c->b, &c->ch);
	tlq_diff_verdict(c->ch, c->nch, c->verdict, sizeof c->verdict);
	const tl_trace *tra = tlq_trace(qa);
	c->brank = xmalloc((tra->nranks + 1) * sizeof *c->brank);
	for (size_t i = 0; i < tra->nranks; i++) {
		c->brank[i] = SIZE_MAX;
		for (size_t j = 0; j < c->trb->nranks; j++)
			if (c->trb->ranks[j]->rank == tra->ranks[i]->rank)
				c->brank[i] = j;
	}
	make_bars(c, qa);
	return c;
}

void
compare_free(ui_compare *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nranks; i++)
		free(c->bars[i]);
	free(c->bars);
	free(c->nbars);
	free(c->ch);
	tlq_diff_side_free(&c->a);
	tlq_diff_side_free(&c->b);
	free(c->brank);
	free(c->edges);
	free(c->cells);
	free(c->cells2);
	free(c->dtrack);
	free(c);
}

/* ---- alignment ------------------------------------------------------------------------------ */

/* The earliest start of stage `name` in step id over a session's ranks, or INT64_MAX. */
static int64_t
stage_start(const tl_query *q, const char *name, int64_t id)
{
	const tl_stage_row *rows;
	size_t n = tlq_stages(q, &rows);
	int64_t t = INT64_MAX;
	for (size_t k = 0; k < n; k++) {
		const char *sn = tlq_stage_name(q, rows[k].stage);
		if (rows[k].step == id && sn && strcmp(sn, name) == 0 && rows[k].start < t)
			t = rows[k].start;
	}
	return t;
}

/* A's step at t: the last whose span starts at or before t (the first when none does); -1
 * without steps. */
static int64_t
step_of(const tl_query *q, const tl_diff_side *s, int64_t t)
{
	int64_t id = -1;
	for (size_t i = 0; i < s->nsteps; i++) {
		int64_t t0, t1;
		if (tlq_step_span(q, s->steps[i], &t0, &t1) != 0)
			continue;
		if (id < 0 || t0 <= t)
			id = s->steps[i];
		if (t0 > t)
			break;
	}
	return id;
}

/* The offset that puts B's step (or stage) paired with A's step ida where A's is. Returns 0,
 * or -1 when B has no such step (or stage): the offset is then that of the profiles' starts. */
static int
offset_for(tl_ui *ui, int64_t ida, int stage, const char *name, int64_t *off)
{
	ui_compare *c = ui->cmp;
	*off = ui->tr->t_min - c->trb->t_min;
	int64_t key = tlq_diff_step_key(&c->a, ida), idb = tlq_diff_step_id(&c->b, key);
	int64_t a0, a1, b0, b1;
	if (ida < 0 || idb < 0 || tlq_step_span(ui->q, ida, &a0, &a1) != 0 ||
	    tlq_step_span(c->qb, idb, &b0, &b1) != 0)
		return -1;
	if (stage) {
		int64_t sa = stage_start(ui->q, name, ida), sb = stage_start(c->qb, name, idb);
		if (sa == INT64_MAX || sb == INT64_MAX)
			return -1;
		a0 = sa;
		b0 = sb;
	}
	*off = a0 - b0;
	return 0;
}

void
compare_align_cursor(tl_ui *ui)
{
	ui_compare *c = ui->cmp;
	if (c == NULL)
		return;
	int64_t ida = step_of(ui->q, &c->a, TIMELINE(ui)->vp.cursor);
	if (offset_for(ui, ida, c->align_stage, c->stage, &c->offset) != 0 && c->align_stage)
		offset_for(ui, ida, 0, NULL,
		           &c->offset); /* no such stage in this step: its start */
}

int
compare_align(tl_ui *ui, const char *how)
{
	ui_compare *c = ui->cmp;
	if (c == NULL) {
		ui_message(ui, 1, "align: nothing to compare (tl view A --compare B)");
		return -1;
	}
	while (*how == ' ')
		how++;
	if (strcmp(how, "step") == 0 || *how == '\0') {
		c->align_stage = 0;
		ui_message(ui, 0, "B aligned on the start of the step at the cursor");
		return 0;
	}
	if (strncmp(how, "stage ", 6) != 0) {
		ui_message(ui, 1, "align: step, or stage NAME");
		return -1;
	}
	const char *name = how + 6;
	while (*name == ' ')
		name++;
	int in_a = 0, in_b = 0;
	for (size_t i = 0; i < c->a.nstages; i++)
		in_a |= strcmp(c->a.stages[i], name) == 0;
	for (size_t i = 0; i < c->b.nstages; i++)
		in_b |= strcmp(c->b.stages[i], name) == 0;
	char nm[96];
	ui_clean(ui, name, nm, sizeof nm);
	if (!in_a || !in_b) {
		ui_message(ui, 1, "align: no stage '%s' in %s", nm,
		           !in_a && !in_b ? "either run"
		           : !in_a        ? "A"
		                          : "B");
		return -1;
	}
	c->align_stage = 1;
	snprintf(c->stage, sizeof c->stage, "%s", name);
	ui_message(ui, 0, "B aligned on the start of stage %s in the step at the cursor", nm);
	return 0;
}

/* ---- drawing -------------------------------------------------------------------------------- */

static void
scratch(ui_compare *c, int n)
{
	if (n + 1 <= c->nedges)
		return;
	c->nedges = n + 1;
	c->edges = xreallocarray(c->edges, (size_t)c->nedges, sizeof *c->edges);
	c->cells = xreallocarray(c->cells, (size_t)c->nedges, sizeof *c->cells);
	c->cells2 = xreallocarray(c->cells2, (size_t)c->nedges, sizeof *c->cells2);
	c->dtrack = xreallocarray(c->dtrack, (size_t)c->nedges, sizeof *c->dtrack);
}

/* Slice k of t covers the column [c0, c1). */
static int
covers(const tl_track *t, size_t k, int64_t c0, int64_t c1)
{
	return t->v[k].start <= c0 && track_end(t, k) >= c1;
}

/* B's tracks, as the timeline draws A's: per column the dominant slice, solid where it covers
 * the column, else how busy; names on solid runs. */
static void
draw_b(tl_ui *ui, const ui_lane *l, int y)
{
	ui_compare *c = ui->cmp;
	tl_timeline *tl = TIMELINE(ui);
	int n = tl->vp.ncols, x0 = tl->lanes_x;
	screen_put(&ui->scr, 0, y, ui->utf8 ? 0x258D : '|', SLOT_COMPARE_B, 0);
	scratch(c, n);
	for (int k = 0; k <= n; k++)
		c->edges[k] = tl->edges[k] - c->offset;
	const tl_rank *r = c->trb->ranks[l->brank];
	for (size_t k = 0; k < l->count; k++) {
		const tl_track *t = r->tracks[l->first + k];
		tl_cell *dst = k == 0 ? c->cells : c->cells2;
		tlq_columns_edges(t, c->edges, n, dst);
		for (int col = 0; col < n; col++) {
			if (k == 0) {
				c->dtrack[col] = l->first;
				continue;
			}
			tl_cell *a = &c->cells[col], *b = &c->cells2[col];
			if (b->count == 0)
				continue;
			if (a->count == 0 || b->busy > a->busy) {
				a->dominant = b->dominant;
				c->dtrack[col] = l->first + k;
			}
			a->busy = sat_add(a->busy, b->busy);
			a->count += b->count;
		}
	}
	for (int col = 0; col < n; col++) {
		const tl_cell *cl = &c->cells[col];
		if (cl->count == 0)
			continue;
		int64_t c0 = c->edges[col], c1 = c->edges[col + 1];
		const tl_track *dt = r->tracks[c->dtrack[col]];
		const tl_slice *s = &dt->v[cl->dominant];
		uint8_t slot = l->slot;
		if (l->kind == TL_LANE_STAGE)
			slot = (uint8_t)theme_stage_slot(strpool_get(r->pool, s->name));
		int64_t busy = cl->busy > c1 - c0 ? c1 - c0 : cl->busy;
		if (covers(dt, cl->dominant, c0, c1))
			screen_put(&ui->scr, x0 + col, y, ' ', slot, 0);
		else if (slice_end(dt, s) == s->start && cl->busy == 0)
			screen_put(&ui->scr, x0 + col, y, ui->utf8 ? 0x2502 : '|', slot, SCR_GLYPH);
		else
			screen_put(&ui->scr, x0 + col, y, timeline_density_glyph(ui, busy, c1 - c0),
			           slot, SCR_GLYPH);
	}
	/* names on runs of solid columns of one slice */
	for (int col = 0; col < n;) {
		const tl_cell *cl = &c->cells[col];
		if (cl->count == 0 || !covers(r->tracks[c->dtrack[col]], cl->dominant,
		                              c->edges[col], c->edges[col + 1])) {
			col++;
			continue;
		}
		int e = col + 1;
		while (e < n && c->cells[e].count && c->dtrack[e] == c->dtrack[col] &&
		       c->cells[e].dominant == cl->dominant &&
		       covers(r->tracks[c->dtrack[e]], c->cells[e].dominant, c->edges[e],
		              c->edges[e + 1]))
			e++;
		if (e - col >= 3) {
			char nm[256];
			const tl_slice *s = &r->tracks[c->dtrack[col]]->v[cl->dominant];
			ui_clean(ui, strpool_get(r->pool, s->name), nm, sizeof nm);
			uint8_t slot = ui->scr.cell[y * ui->scr.w + x0 + col].slot;
			screen_text(&ui->scr, x0 + col, y, e - col, nm, slot);
		}
		col = e;
	}
}

char *
compare_signed_dur(int64_t d, char *buf, size_t len)
{
	char t[24];
	timefmt_dur(sat_abs(d), t, sizeof t);
	snprintf(buf, len, "%s%s", d < 0 ? "-" : d > 0 ? "+" : "\u00b1", t);
	return buf;
}

/* Per stage instance of A: + where B's stage took longer, - where shorter (the letters carry
 * it without colour), with the amount where it fits. */
static void
draw_delta(tl_ui *ui, const ui_lane *l, int y)
{
	ui_compare *c = ui->cmp;
	tl_timeline *tl = TIMELINE(ui);
	int n = tl->vp.ncols, x0 = tl->lanes_x;
	if (l->brank == SIZE_MAX) {
		char m[96];
		snprintf(m, sizeof m, "rank %s is not in B", UI_RANK(ui->tr->ranks[l->rank]->rank));
		screen_text(&ui->scr, x0 + 1, y, n - 1, m, SLOT_LABEL);
		return;
	}
	if (c->nbars[l->rank] == 0) { /* compared by step and overlap only: the diff panel */
		screen_text(&ui->scr, x0 + 1, y, n - 1,
		            !c->a.have_stages && !c->b.have_stages ? "no RL stages in either run"
		            : !c->a.have_stages                    ? "no RL stages in A"
		            : !c->b.have_stages                    ? "no RL stages in B"
		                                : "no stage of this rank in both runs",
		            SLOT_LABEL);
		return;
	}
	/* the stage of the largest |B-A| on screen is always labelled, with its name, even when
	 * its bar is narrower than the label (the others where they fit) */
	size_t big = SIZE_MAX;
	int big_labelled = 0, big_ca = 0;
	int64_t big_d = 0;
	for (size_t i = 0; i < c->nbars[l->rank]; i++) {
		const ui_delta_bar *b = &c->bars[l->rank][i];
		int ca = vp_time_col(&tl->vp, b->t0),
		    cb = vp_time_col(&tl->vp, b->t1 > b->t0 ? b->t1 - 1 : b->t0);
		if (cb < 0 || ca >= n)
			continue;
		int64_t d = sat_sub(b->b, b->a), ad = d < 0 ? -d : d;
		if (d != 0 && (big == SIZE_MAX || ad > (big_d < 0 ? -big_d : big_d))) {
			big = i;
			big_d = d;
			big_ca = ca < 0 ? 0 : ca;
		}
	}
	for (size_t i = 0; i < c->nbars[l->rank]; i++) {
		const ui_delta_bar *b = &c->bars[l->rank][i];
		int ca = vp_time_col(&tl->vp, b->t0),
		    cb = vp_time_col(&tl->vp, b->t1 > b->t0 ? b->t1 - 1 : b->t0);
		if (cb < 0 || ca >= n)
			continue;
		if (ca < 0)
			ca = 0;
		if (cb >= n)
			cb = n - 1;
		int64_t d = sat_sub(b->b, b->a);
		uint32_t ch = d > 0 ? '+' : d < 0 ? '-' : '=';
		uint8_t slot = d > 0 ? SLOT_DIFF_LONGER : d < 0 ? SLOT_DIFF_SHORTER : SLOT_LABEL;
		for (int col = ca; col <= cb; col++)
			screen_put(&ui->scr, x0 + col, y, ch, slot, 0);
		if (d == 0)
			continue; /* no change: the = say so */
		char txt[64], pct[32];
		compare_signed_dur(d, txt, sizeof txt);
		if (b->has_a && b->a > 0 && d != 0) {
			double pc = 100.0 * (double)d / (double)b->a;
			snprintf(pct, sizeof pct, pc > -10 && pc < 10 ? " %+.1f%%" : " %+.0f%%",
			         pc);
			if ((int)(strlen(txt) + strlen(pct)) + 2 <= cb - ca + 1)
				strcat(txt, pct);
		}
		int w = (int)strlen(txt);
		if (w + 1 <= cb - ca + 1) { /* from the bar's start, one + or - after it at least */
			screen_text(&ui->scr, x0 + ca, y, w, txt, slot);
			big_labelled |= i == big;
		}
	}
	if (big != SIZE_MAX && !big_labelled) {
		const ui_delta_bar *b = &c->bars[l->rank][big];
		char nm[64], txt[64], lab[140];
		ui_clean(ui, b->stage, nm, sizeof nm);
		snprintf(lab, sizeof lab, "%s %s", nm, compare_signed_dur(big_d, txt, sizeof txt));
		int w = screen_text_width(&ui->scr, lab), at = big_ca;
		if (at + w > n) /* kept on screen: ends at the right edge */
			at = n - w > 0 ? n - w : 0;
		screen_text(&ui->scr, x0 + at, y, n - at, lab,
		            big_d > 0 ? SLOT_DIFF_LONGER : SLOT_DIFF_SHORTER);
	}
}

void
compare_draw_lane(tl_ui *ui, const void *lane, int y)
{
	const ui_lane *l = lane;
	if (l->type == UL_COMPARE)
		draw_b(ui, l, y);
	else
		draw_delta(ui, l, y);
}

void
compare_status(tl_ui *ui, char *buf, size_t len)
{
	ui_compare *c = ui->cmp;
	tl_timeline *tl = TIMELINE(ui);
	buf[0] = '\0';
	if (c == NULL || tl->lane >= tl->nlanes)
		return;
	size_t ri = tl->lanes[tl->lane].rank;
	int64_t t = tl->vp.cursor;
	for (size_t i = 0; i < c->nbars[ri]; i++) {
		const ui_delta_bar *b = &c->bars[ri][i];
		if (t < b->t0 || t >= b->t1)
			continue;
		char nm[64], d[32], pct[32] = "";
		ui_clean(ui, b->stage, nm, sizeof nm);
		if (b->has_a && b->a > 0)
			snprintf(pct, sizeof pct, " (%+.1f%%)",
			         100.0 * ((double)b->b - (double)b->a) / (double)b->a);
		snprintf(buf, len, "  | B\u2212A %s step %" PRId64 ": %s%s", nm, b->step,
		         compare_signed_dur(sat_sub(b->b, b->a), d, sizeof d), pct);
		return;
	}
}
