/* Drawing the timeline: the ruler, the lanes and the status line. Every lane is drawn column
 * by column from the query layer (tlq_columns_draw: a few searches per column, kept for the
 * next frame while the column edges stay: ui/colmemo.h), so a frame costs
 * O(lanes x columns x log n) whatever the number of slices. */
#include "config.h"
#include "ui/common.h"
#include "ui/compare.h"
#include "ui/timeline_int.h"
#include "util/satint.h"
#include "util/timefmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define NAME_STEP 24 /* columns between the places a long slice's name may sit */

/* ---- drawing ------------------------------------------------------------------------------- */

/* A rank's overlap lanes per column (rank at a glance, exposed communication, bubbles), those
 * a row needs (RK_*), from the frame's column memo (computed once per frame and kept while the
 * column edges stay): a lane's columns touch a page of it per column edge (a warm open's lanes
 * are a mapped file), so a frame without bubbles never reads the Free lane, and one without
 * communication lanes in view not the Communication lane. */
enum { RK_COMP = 1, RK_COMM = 2, RK_EXP = 4, RK_FREE = 8 };

static void
rank_columns(tl_ui *ui, size_t ri, unsigned need)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_rank *r = ui->tr->ranks[ri];
	if (need & RK_COMP)
		colmemo_busy(tl->memo, tlq_overlap_lane(r, TL_OVL_COMPUTING), tl->rk_comp);
	if (need & RK_COMM)
		colmemo_busy(tl->memo, tlq_overlap_lane(r, TL_OVL_COMMUNICATION), tl->rk_comm);
	if (need & RK_EXP)
		colmemo_busy(tl->memo, tlq_overlap_lane(r, TL_OVL_COMM_EXPOSED), tl->rk_exp);
	if (need & RK_FREE)
		colmemo_busy(tl->memo, tlq_overlap_lane(r, TL_OVL_FREE), tl->rk_free);
}

static int
is_device_kind(tl_lane_kind k)
{
	return k >= TL_LANE_COMPUTE && k <= TL_LANE_OVERLAP;
}

/* The header row of a rank still loading: how far its read is, in its lane area, so that the
 * slow ranks stand out ("queued", "opening", "1.18M rows"; "steps, MSTX, comm in" once its
 * small tables are). */
static int
draw_loading_header(tl_ui *ui, const ui_lane *l, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	int slot = tlq_slot(ui->q, l->rank);
	if (slot == TLQ_SLOT_FULL)
		return 0;
	int rank, st = -1;
	uint64_t rows = 0;
	if (slot != TLQ_SLOT_GONE)
		st = tlq_load_rank(ui->q, l->rank, &rank, &rows);
	char what[64], text[160];
	if (slot == TLQ_SLOT_GONE)
		snprintf(what, sizeof what, "not loaded (see the warnings on exit)");
	else if (st == TLQ_LOAD_HELD)
		snprintf(what, sizeof what, "waiting");
	else if (st == TLQ_LOAD_LOADING && rows == 0)
		snprintf(what, sizeof what, "opening");
	else if (st == TLQ_LOAD_LOADING)
		ui_rows_text(rows, what, sizeof what);
	else
		snprintf(what, sizeof what, "queued");
	if (slot == TLQ_SLOT_PREVIEW)
		snprintf(text, sizeof text, " steps, MSTX, comm in %s device lanes: %s ",
		         ui->utf8 ? "\u00b7" : "-", what);
	else
		snprintf(text, sizeof text, " %s%s ",
		         st == TLQ_LOAD_LOADING && rows > 0 ? "loading " : "", what);
	screen_text(&ui->scr, tl->lanes_x, y, tl->vp.ncols, text, SLOT_MESSAGE);
	return 1;
}

static void
draw_header_row(tl_ui *ui, const ui_lane *l, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	if (draw_loading_header(ui, l, y))
		return;
	rank_columns(ui, l->rank, RK_COMP | RK_EXP | (tl->bubbles ? RK_FREE : 0));
	int x0 = tl->lanes_x;
	for (int c = 0; c < tl->vp.ncols; c++) {
		int64_t busy = tl->rk_comp[c] + tl->rk_exp[c];
		if (busy > 0) {
			uint8_t slot =
			    tl->rk_exp[c] > tl->rk_comp[c] ? SLOT_COMM_EXPOSED : SLOT_COMPUTE;
			screen_put(&ui->scr, x0 + c, y,
			           timeline_density_glyph(ui, busy, tl->vp.colw), slot, SCR_GLYPH);
		} else if (tl->bubbles && tl->rk_free[c] > 0) {
			screen_put(&ui->scr, x0 + c, y, ui->utf8 ? 0x2591 : '.', SLOT_FREE,
			           SCR_GLYPH);
		}
	}
}

/* A solid cell: the dominant slice (slice k of t) covers the whole column. */
static int
covers(const tl_track *t, size_t k, int64_t c0, int64_t c1)
{
	return t->v[k].start <= c0 && track_end(t, k) >= c1;
}

static void
draw_track_row(tl_ui *ui, const ui_lane *l, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_rank *r = ui->tr->ranks[l->rank];
	int n = tl->vp.ncols, x0 = tl->lanes_x;
	tl_cell *cells = tl->cells;
	uint32_t *dt = tl->domtrack;
	/* per column: dominant slice (track, index), how busy, how many */
	for (size_t k = 0; k < l->count; k++) {
		tl_track *t = r->tracks[l->first + k];
		tl_cell *dst = k == 0 ? cells : tl->cells2;
		/* the longest slice of a busy column only where its name picks the colour */
		colmemo_cells(tl->memo, t, l->kind == TL_LANE_STAGE, dst);
		if (k == 0) {
			for (int c = 0; c < n; c++)
				dt[c] = (uint32_t)l->first;
			continue;
		}
		for (int c = 0; c < n; c++) {
			tl_cell *a = &cells[c], *b = &tl->cells2[c];
			if (b->count == 0)
				continue;
			int64_t c0 = tl->edges[c], c1 = tl->edges[c + 1];
			int64_t vb = -1, va = -1;
			const tl_slice *sb = &t->v[b->dominant];
			int64_t eb = slice_end(t, sb);
			vb = (eb < c1 ? eb : c1) - (sb->start > c0 ? sb->start : c0);
			if (a->count) {
				const tl_track *ta = r->tracks[dt[c]];
				const tl_slice *sa = &ta->v[a->dominant];
				int64_t ea = slice_end(ta, sa);
				va = (ea < c1 ? ea : c1) - (sa->start > c0 ? sa->start : c0);
			}
			if (vb > va) {
				a->dominant = b->dominant;
				dt[c] = (uint32_t)(l->first + k);
			}
			a->busy = sat_add(a->busy, b->busy);
			a->count =
			    a->count + b->count < a->count ? UINT32_MAX : a->count + b->count;
		}
	}
	int merged_compute = l->type == UL_MERGED && l->kind == TL_LANE_COMPUTE;
	int comm = l->kind == TL_LANE_COMM || l->kind == TL_LANE_COMM_TASK;
	int device = is_device_kind(l->kind);
	rank_columns(ui, l->rank,
	             (merged_compute ? RK_COMP : 0) | (comm ? RK_COMM | RK_EXP : 0) |
	                 (tl->bubbles && l->kind != TL_LANE_OVERLAP ? RK_FREE : 0));
	for (int c = 0; c < n; c++) {
		int64_t c0 = tl->edges[c], c1 = tl->edges[c + 1];
		const tl_cell *cl = &cells[c];
		int x = x0 + c;
		if (cl->count == 0) {
			if (tl->bubbles && l->kind != TL_LANE_OVERLAP && tl->rk_free[c] > 0)
				screen_put(&ui->scr, x, y, ui->utf8 ? 0x2591 : '.', SLOT_FREE,
				           SCR_GLYPH);
			continue;
		}
		const tl_track *t = r->tracks[dt[c]];
		const tl_slice *s = &t->v[cl->dominant];
		int64_t busy = merged_compute ? tl->rk_comp[c] : cl->busy;
		if (busy > tl->vp.colw)
			busy = tl->vp.colw;
		uint8_t slot = l->slot;
		if (l->kind == TL_LANE_STAGE)
			slot = (uint8_t)theme_stage_slot(strpool_get(r->pool, s->name));
		else if (comm && tl->rk_comm[c] > 0 && tl->rk_exp[c] * 2 >= tl->rk_comm[c])
			slot = SLOT_COMM_EXPOSED;
		if (tl->bubbles && device && l->kind != TL_LANE_OVERLAP &&
		    tl->rk_free[c] * 2 >= (c1 - c0)) {
			/* mostly idle: the gap reads as a gap */
			screen_put(&ui->scr, x, y, ui->utf8 ? 0x2591 : '.', SLOT_FREE, SCR_GLYPH);
			continue;
		}
		if (covers(t, cl->dominant, c0, c1))
			screen_put(&ui->scr, x, y, ' ', slot, 0);
		else if (slice_end(t, s) == s->start && cl->busy == 0)
			screen_put(&ui->scr, x, y, ui->utf8 ? 0x2502 : '|', slot, SCR_GLYPH);
		else
			screen_put(&ui->scr, x, y, timeline_density_glyph(ui, busy, c1 - c0), slot,
			           SCR_GLYPH);
	}
	/* names on runs of solid columns of one slice */
	for (int c = 0; c < n;) {
		const tl_cell *cl = &cells[c];
		int64_t c0 = tl->edges[c], c1 = tl->edges[c + 1];
		const scr_cell *sc = &ui->scr.cell[y * ui->scr.w + x0 + c];
		if (cl->count == 0 || sc->flags ||
		    !covers(r->tracks[dt[c]], cl->dominant, c0, c1)) {
			c++;
			continue;
		}
		int e = c + 1;
		while (e < n && cells[e].count && dt[e] == dt[c] &&
		       cells[e].dominant == cl->dominant &&
		       ui->scr.cell[y * ui->scr.w + x0 + e].flags == 0)
			e++;
		/* The name starts with the slice; when the slice began left of the view, it sits on
		 * a grid of NAME_STEP columns from the slice start, so that panning moves it with
		 * the slice (cheap to send) and it stays near the left edge. */
		const tl_slice *sl = &r->tracks[dt[c]]->v[cl->dominant];
		int64_t d = sl->start - tl->vp.t0;
		int64_t scol = d >= 0 ? d / tl->vp.colw : -((-d + tl->vp.colw - 1) / tl->vp.colw);
		int at = c;
		if (scol < c) {
			int64_t a = scol + (c - scol + NAME_STEP - 1) / NAME_STEP * NAME_STEP;
			if (a + 3 <= e)
				at = (int)a;
		}
		if (e - at >= 3) {
			char nm[256];
			ui_clean(ui, strpool_get(r->pool, sl->name), nm, sizeof nm);
			uint8_t slots[512];
			int k = e - at < 512 ? e - at : 512;
			for (int i = 0; i < k; i++) /* per-column slots (exposed comm) stay */
				slots[i] = ui->scr.cell[y * ui->scr.w + x0 + at + i].slot;
			screen_text(&ui->scr, x0 + at, y, e - at, nm, sc->slot);
			for (int i = 0; i < k; i++)
				ui->scr.cell[y * ui->scr.w + x0 + at + i].slot = slots[i];
		}
		c = e;
	}
	/* search matches */
	if (tl->have_search && tl->search.total)
		for (int c = 0; c < n; c++) {
			if (cells[c].count == 0)
				continue;
			int hit = 0;
			for (size_t k = 0; k < l->count && !hit; k++)
				hit = tlq_search_any(&tl->search, ui->tr, l->rank, l->first + k,
				                     tl->edges[c], tl->edges[c + 1]);
			if (hit) {
				scr_cell *sc = &ui->scr.cell[y * ui->scr.w + x0 + c];
				sc->slot = SLOT_MATCH;
			}
		}
}

static void
draw_selection(tl_ui *ui, const ui_lane *l, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	if (!ui->sel.have || ui->sel.s.rank != l->rank || l->type == UL_HEADER ||
	    ui->sel.s.track < l->first || ui->sel.s.track >= l->first + l->count)
		return;
	const tl_track *t = ui->tr->ranks[l->rank]->tracks[ui->sel.s.track];
	const tl_slice *s = &t->v[ui->sel.s.idx];
	int64_t end = slice_end(t, s);
	int a = vp_time_col(&tl->vp, s->start),
	    b = vp_time_col(&tl->vp, end > s->start ? end - 1 : end);
	if (b < 0 || a >= tl->vp.ncols)
		return;
	if (a < 0)
		a = 0;
	if (b >= tl->vp.ncols)
		b = tl->vp.ncols - 1;
	for (int c = a; c <= b; c++) {
		scr_cell *sc = &ui->scr.cell[y * ui->scr.w + tl->lanes_x + c];
		if (sc->ch == ' ' && sc->flags)
			sc->ch = ui->utf8 ? 0x2588 : '#';
		sc->slot = SLOT_SELECTION;
		sc->flags = 0;
		if (a == b && sc->ch == ' ')
			sc->ch = ui->utf8 ? 0x2503 : '|';
	}
}

static void
draw_label(tl_ui *ui, const ui_lane *l, int y, int current)
{
	tl_timeline *tl = TIMELINE(ui);
	int lw = tl->lanes_x - 1;
	uint8_t slot = current ? SLOT_LABEL_CURRENT : l->type == UL_HEADER ? SLOT_RANK : SLOT_LABEL;
	screen_fill(&ui->scr, 0, y, lw, ' ', slot);
	int room = lw - l->indent;
	size_t len = strlen(l->label);
	int ascii = 1;
	for (size_t i = 0; i < len; i++)
		ascii &= (unsigned char)l->label[i] < 0x80;
	if (ascii && (int)len > room && room >= 8) {
		/* cut in the middle: the end tells lanes apart (a group's id, a thread, a depth) */
		int tail = room * 2 / 5, head = room - tail - 1;
		char cut[160];
		snprintf(cut, sizeof cut, "%.*s%s%s", head, l->label, ui->utf8 ? "\u2026" : "~",
		         l->label + len - (size_t)tail);
		screen_text(&ui->scr, l->indent, y, room, cut, slot);
	} else {
		screen_text(&ui->scr, l->indent, y, room, l->label, slot);
	}
	screen_put(&ui->scr, lw, y, ui->utf8 ? 0x2502 : '|', SLOT_LABEL, 0);
}

/* "31.25ms"-style tick labels: the unit follows the size of the times in view, the decimals
 * follow the tick step. */
static void
tick_label(const tl_ui *ui, int64_t rel, int64_t step, int64_t mag, char *buf, size_t len)
{
	if (ui->abstime) {
		char full[64];
		timefmt_epoch(ui->origin + rel, full, sizeof full);
		/* "2025-01-09 15:31:07.933660740": hh:mm:ss plus the digits the step needs */
		int digits = step >= 1000000000  ? 0
		             : step >= 100000000 ? 1
		             : step >= 10000000  ? 2
		             : step >= 1000000   ? 3
		             : step >= 100000    ? 4
		             : step >= 10000     ? 5
		             : step >= 1000      ? 6
		             : step >= 100       ? 7
		             : step >= 10        ? 8
		                                 : 9;
		snprintf(buf, len, "%.*s", 8 + (digits ? digits + 1 : 0), full + 11);
		return;
	}
	static const struct {
		int64_t unit;
		const char *name;
	} units[] = {{1000000000, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
	size_t u = 0;
	while (u < 3 && (mag > step ? mag : step) < units[u].unit)
		u++;
	int64_t unit = units[u].unit;
	int dec = 0;
	for (int64_t q = unit; q > 1 && step % q != 0; q /= 10)
		dec++;
	const char *sign = rel < 0 ? "-" : "";
	int64_t a = rel < 0 ? -rel : rel;
	if (dec == 0) {
		snprintf(buf, len, "%s%" PRId64 "%s", sign, a / unit, units[u].name);
	} else {
		int64_t p10 = 1;
		for (int i = 0; i < dec; i++)
			p10 *= 10;
		int64_t frac = (a % unit) / (unit / p10);
		char fd[16];
		for (int i = dec - 1; i >= 0; i--, frac /= 10)
			fd[i] = (char)('0' + frac % 10);
		fd[dec] = '\0';
		snprintf(buf, len, "%s%" PRId64 ".%s%s", sign, a / unit, fd, units[u].name);
	}
	if (!ui->utf8)
		return;
	char *p = strstr(buf, "us");
	if (p && p[2] == '\0') {
		/* µs */
		p[0] = (char)0xC2;
		p[1] = (char)0xB5;
		p[2] = 's';
		p[3] = '\0';
	}
}

static void
draw_ruler(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	int lw = tl->lanes_x - 1;
	screen_fill(&ui->scr, 0, 0, ui->scr.w, ' ', SLOT_RULER);
	char d[32];
	timefmt_dur(tl->vp.colw, d, sizeof d);
	char *sp = strchr(d, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));
	screen_printf(&ui->scr, 0, 0, lw, SLOT_RULER, "%s/col%s", d, ui->abstime ? " clock" : "");
	screen_put(&ui->scr, lw, 0, ui->utf8 ? 0x2502 : '|', SLOT_RULER, 0);
	/* a tick every >= 12 columns (more for long labels) at 1, 2, 5 x 10^k ns */
	int64_t rel_a = tl->vp.t0 - ui->origin, rel_b = rel_a + tl->vp.colw * tl->vp.ncols;
	int64_t mag = rel_a < 0 ? -rel_a : rel_a;
	if ((rel_b < 0 ? -rel_b : rel_b) > mag)
		mag = rel_b < 0 ? -rel_b : rel_b;
	char probe[48];
	tick_label(ui, rel_b, tl->vp.colw * 12, mag, probe, sizeof probe);
	int spacing = (int)strlen(probe) + 3 > 12 ? (int)strlen(probe) + 3 : 12;
	int64_t want = tl->vp.colw * spacing, step = 1;
	while (step < want) {
		if (step * 2 >= want) {
			step *= 2;
			break;
		}
		if (step * 5 >= want) {
			step *= 5;
			break;
		}
		step *= 10;
	}
	int64_t rel0 = tl->vp.t0 - ui->origin;
	int64_t first = rel0 >= 0 ? (rel0 + step - 1) / step * step : -((-rel0) / step * step);
	int last_end = -1;
	for (int64_t rel = first;; rel += step) {
		int64_t t = ui->origin + rel;
		int c = vp_time_col(&tl->vp, t);
		if (c >= tl->vp.ncols)
			break;
		if (c < 0)
			continue;
		char lab[48];
		tick_label(ui, rel, step, mag, lab, sizeof lab);
		int x = tl->lanes_x + c;
		screen_put(&ui->scr, x, 0, ui->utf8 ? 0x2575 : '|', SLOT_RULER, 0);
		int wl = (int)strlen(lab);
		if (c + 1 > last_end && c + 1 + wl < tl->vp.ncols) {
			screen_text(&ui->scr, x + 1, 0, wl, lab, SLOT_RULER);
			last_end = c + 1 + wl;
		}
	}
	timeline_marks_ruler(ui);
	/* the marked range and the cursor */
	if (ui->sel.nmark >= 1) {
		int64_t a = ui->sel.mark[0],
		        b = ui->sel.nmark == 2 ? ui->sel.mark[1] : tl->vp.cursor;
		if (b < a) {
			int64_t tmp = a;
			a = b;
			b = tmp;
		}
		int ca = vp_time_col(&tl->vp, a), cb = vp_time_col(&tl->vp, b);
		for (int c = ca < 0 ? 0 : ca; c <= cb && c < tl->vp.ncols; c++)
			ui->scr.cell[tl->lanes_x + c].slot = SLOT_MARK;
	}
	int cc = vp_time_col(&tl->vp, tl->vp.cursor);
	if (cc >= 0 && cc < tl->vp.ncols) {
		scr_cell *sc = &ui->scr.cell[tl->lanes_x + cc];
		if (sc->ch == ' ' || sc->ch == 0x2575 || sc->ch == '|')
			sc->ch = ui->utf8 ? 0x25BC : 'v';
		sc->slot = SLOT_CURSOR;
	}
}

static void
draw_too_small(tl_ui *ui)
{
	screen_clear(&ui->scr, SLOT_NORMAL);
	screen_printf(&ui->scr, 0, 0, ui->scr.w, SLOT_ERROR, "terminal too small (%dx%d)",
	              ui->scr.w, ui->scr.h);
	if (ui->scr.h > 1)
		screen_printf(&ui->scr, 0, 1, ui->scr.w, SLOT_MESSAGE, "need 40x10; q quits");
}

void
timeline_draw(tl_ui *ui, void *st, int x, int y, int w, int h)
{
	(void)st;
	tl_timeline *tl = TIMELINE(ui);
	(void)x;
	(void)y;
	if (w < 40 || h < 10) {
		draw_too_small(ui);
		return;
	}
	for (int c = 0; c <= tl->vp.ncols; c++)
		tl->edges[c] = tl->vp.t0 + (int64_t)c * tl->vp.colw;
	colmemo_frame(tl->memo, tl->edges, tl->vp.ncols);
	draw_ruler(ui);
	lane_visible(ui);
	compare_align_cursor(ui);
	int cc = vp_time_col(&tl->vp, tl->vp.cursor);
	int ma = -1, mb = -1;
	if (ui->sel.nmark == 2) {
		ma = vp_time_col(&tl->vp, ui->sel.mark[0]);
		mb = vp_time_col(&tl->vp, ui->sel.mark[1]);
	}
	for (int row = 0; row < tl->lanes_h; row++) {
		size_t li = tl->top + (size_t)row;
		int yy = tl->lanes_y + row;
		if (li >= tl->nlanes)
			break;
		const ui_lane *l = &tl->lanes[li];
		draw_label(ui, l, yy, li == tl->lane);
		if (l->type == UL_HEADER) {
			draw_header_row(ui, l, yy);
		} else if (l->type == UL_COUNTER) {
			timeline_counter_draw(ui, l, yy);
		} else if (l->type >= UL_COMPARE) {
			compare_draw_lane(ui, l, yy);
		} else {
			draw_track_row(ui, l, yy);
		}
		timeline_marks_draw(ui, l, yy);
		if (l->type != UL_HEADER && l->type != UL_COUNTER && l->type < UL_COMPARE)
			draw_selection(ui, l, yy);
		/* range edges */
		for (int e = 0; e < 2; e++) {
			int c = e ? mb : ma;
			if (c >= 0 && c < tl->vp.ncols) {
				scr_cell *sc = &ui->scr.cell[yy * ui->scr.w + tl->lanes_x + c];
				if (sc->ch == ' ' && sc->slot == SLOT_NORMAL) {
					sc->ch = ui->utf8 ? 0x250A : ':';
					sc->slot = SLOT_MARK;
				}
			}
		}
		if (cc >= 0 && cc < tl->vp.ncols) {
			scr_cell *sc = &ui->scr.cell[yy * ui->scr.w + tl->lanes_x + cc];
			if (sc->ch == ' ' && sc->slot == SLOT_NORMAL)
				sc->ch = ui->utf8 ? 0x2502 : '|';
			if (sc->slot != SLOT_SELECTION) { /* the selection stays visible */
				sc->slot = SLOT_CURSOR;
				sc->flags = 0;
			}
		}
	}
	timeline_links_draw(ui);
	if (tl->nlanes == 0)
		screen_text(&ui->scr, 1, 2, w - 2, "nothing to show", SLOT_MESSAGE);
}

/* ---- status line --------------------------------------------------------------------------- */

void
timeline_status(tl_ui *ui, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	tl_screen *s = &ui->scr;
	screen_fill(s, 0, y, s->w, ' ', SLOT_STATUS);
	char a[48], b[48], d[32], cur[48], buf[1024];
	int64_t t1 = tl->vp.t0 + tl->vp.colw * tl->vp.ncols;
	int off = snprintf(buf, sizeof buf, " %s \u2013 %s (%s)  cursor %s",
	                   ui_time(ui, tl->vp.t0, a, sizeof a), ui_time(ui, t1, b, sizeof b),
	                   timefmt_dur(t1 - tl->vp.t0, d, sizeof d),
	                   ui_time(ui, tl->vp.cursor, cur, sizeof cur));
	int64_t step;
	if (timeline_step_at_cursor(ui, &step) == 0)
		off += snprintf(buf + off, sizeof buf - (size_t)off, " step %" PRId64, step);
	if (tl->lane < tl->nlanes) /* a counter lane: its value at the cursor */
		off += timeline_counter_status(ui, &tl->lanes[tl->lane], buf + off,
		                               sizeof buf - (size_t)off);
	if (!ui->utf8) {
		char *p = strstr(buf, "\u2013");
		if (p) {
			memmove(p + 1, p + 3, strlen(p + 3) + 1);
			*p = '-';
			off -= 2;
		}
	}
	if (tl->have_search) {
		if (tl->have_match)
			off += snprintf(buf + off, sizeof buf - (size_t)off, "  | match %zu/%zu",
			                tlq_search_ordinal(&tl->search, ui->tr, &tl->match) + 1,
			                tl->search.total);
		else
			off += snprintf(buf + off, sizeof buf - (size_t)off, "  | %zu matches",
			                tl->search.total);
	}
	if (tl->npinned) {
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | pinned");
		for (size_t i = 0; i < tl->npinned && off < (int)sizeof buf - 16; i++)
			off += snprintf(buf + off, sizeof buf - (size_t)off, " %d",
			                ui->tr->ranks[tl->pinned[i]]->rank);
	}
	if (tl->filter) {
		char f[64];
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | lanes /%s/",
		                ui_clean(ui, tl->filter, f, sizeof f));
	}
	if (ui->sel.nmark == 2)
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | range %s",
		                timefmt_dur(ui->sel.mark[1] - ui->sel.mark[0], d, sizeof d));
	if (tl->lane < tl->nlanes) {
		const ui_lane *l = &tl->lanes[tl->lane];
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | rank %s %s%s",
		                UI_RANK(ui->tr->ranks[l->rank]->rank),
		                l->type == UL_COMPARE ? "B " : "",
		                l->type == UL_HEADER ? "" : l->label);
	}
	if (ui->cmp) {
		char cs[256];
		compare_status(ui, cs, sizeof cs);
		off += snprintf(buf + off, sizeof buf - (size_t)off, "%s", cs);
	}
	if (ui->sel.have) {
		const tl_rank *r = ui->tr->ranks[ui->sel.s.rank];
		const tl_track *t = r->tracks[ui->sel.s.track];
		char nm[96];
		ui_clean(ui, strpool_get(r->pool, t->v[ui->sel.s.idx].name), nm, sizeof nm);
		off += snprintf(buf + off, sizeof buf - (size_t)off, "  | sel %s %s", nm,
		                timefmt_dur(track_dur(t, ui->sel.s.idx), d, sizeof d));
	}
	const char *mode = ui->prompt.active ? (ui->prompt.ch == '/' ? "SEARCH" : "COMMAND")
	                   : ui_view_front(ui) == &help_view ? "HELP"
	                   : ui->sel.nmark == 1              ? "MARK"
	                   : tl->bubbles                     ? "BUBBLES"
	                                                     : "NORMAL";
	int mw = (int)strlen(mode) + 2;
	screen_text(s, 0, y, s->w - mw - 1, buf, SLOT_STATUS);
	screen_printf(s, s->w - mw, y, mw, SLOT_STATUS, " %s ", mode);
	(void)off;
}
