/* Marks over the lanes that stay until cleared: the span of an opened finding (the findings
 * panel's Enter, tl view --finding N) and a step's critical path (the critical action, :critical).
 * Both draw on the rank header rows, a glyph in a theme slot of their own (so they read without
 * colour), and the path also on the lanes of its device segments. While the path is the active
 * mark, n and N walk its segments in time order across ranks; a new search makes the matches
 * active again. The path is the query layer's (tlq_critical, as tl critical prints it): nothing
 * is computed here. */
#include "config.h"
#include "query/findings.h"
#include "ui/common.h"
#include "ui/timeline_int.h"
#include "util/rankspec.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct timeline_marks {
	/* the finding: its ranks (indexes into tr->ranks: fmark[ri] != 0) and span */
	unsigned char *fmark;
	size_t fn;
	int have_finding;
	int64_t f0, f1;
	/* the critical path: every step's (computed at the first ask), the marked one, the
	 * segment n/N last went to (SIZE_MAX: none yet) */
	int have_cp;
	tl_cp_result cp;
	size_t cstep; /* SIZE_MAX: no path marked */
	size_t cseg;
	int path_active; /* n/N walk the path, not the search */
} timeline_marks;

static timeline_marks *
marks(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->marks == NULL) {
		tl->marks = xcalloc(1, sizeof *tl->marks);
		tl->marks->cstep = SIZE_MAX;
	}
	return tl->marks;
}

void
timeline_mark_finding(tl_ui *ui, const tl_finding *f)
{
	timeline_marks *m = marks(ui);
	size_t n = ui->tr->nranks;
	free(m->fmark);
	m->fmark = xcalloc(n ? n : 1, 1);
	m->fn = n;
	m->have_finding = f->end_ns > f->start_ns;
	m->f0 = f->start_ns;
	m->f1 = f->end_ns;
	tl_rankset rs = {0};
	char err[128];
	if (f->ranks[0] && rankspec_parse(f->ranks, &rs, err, sizeof err) == 0) {
		for (size_t i = 0; i < n; i++)
			m->fmark[i] = (unsigned char)rankset_has(&rs, ui->tr->ranks[i]->rank);
		rankset_free(&rs);
	} else if (f->rank_ix < n) {
		m->fmark[f->rank_ix] = 1;
	} else { /* a finding of no one rank (between steps, a transport): every rank */
		memset(m->fmark, 1, n);
	}
}

/* The step of the path to mark: the one whose span holds the cursor, else the first. */
static size_t
path_step(tl_ui *ui)
{
	timeline_marks *m = marks(ui);
	int64_t cur = TIMELINE(ui)->vp.cursor;
	for (size_t i = 0; i < m->cp.n; i++)
		if (m->cp.steps[i].start <= cur && cur < m->cp.steps[i].end)
			return i;
	return 0;
}

static void
path_mark(tl_ui *ui)
{
	timeline_marks *m = marks(ui);
	if (!m->have_cp) {
		tlq_critical(ui->q, NULL, 0, &m->cp);
		m->have_cp = 1;
	}
	if (m->cp.n == 0) {
		ui_message(ui, 1, "No steps and no device work: no critical path");
		return;
	}
	size_t si = path_step(ui);
	if (m->cstep == si && m->path_active) {                        /* again: the blame */
		ui_view_open(ui, ui->views[VIEW_ID_blame_panel_view]); /* by id: no cycle */
		return;
	}
	m->cstep = si;
	m->cseg = SIZE_MAX;
	m->path_active = 1;
	const cp_step *s = &m->cp.steps[si];
	/* the step in view, from the header of the rank that holds most of the path */
	int top = -1;
	int64_t best = -1;
	for (size_t i = 0; i < s->nblame;) {
		int rank = s->blame[i].rank;
		int64_t tot = 0;
		for (; i < s->nblame && s->blame[i].rank == rank; i++)
			tot += s->blame[i].ns;
		if (tot > best)
			best = tot, top = rank;
	}
	size_t ri = trace_rank_index(ui->tr, top);
	if (ri != SIZE_MAX)
		timeline_reveal(ui, ri, s->start, s->end, NULL);
	else
		timeline_show_range(ui, s->start, s->end);
	TIMELINE(ui)->vp.cursor = s->start;
	char d[32], st[32], k[24];
	if (s->step >= 0)
		snprintf(st, sizeof st, "step %" PRId64, s->step);
	else
		snprintf(st, sizeof st, "the whole trace");
	keymap_key_hint(&ui->keys, ACT_CRITICAL, k, sizeof k);
	ui_message(
	    ui, 0,
	    "Critical path of %s: %s ms, %zu segments, %zu change%s of rank; n/N walk it, %s: "
	    "blame, Esc clears",
	    st, timefmt_ms(s->end - s->start, 3, d, sizeof d), s->nseg, s->jumps,
	    s->jumps == 1 ? "" : "s", k);
}

/* The device task a segment is, on its rank's lanes of its kind, or 0. */
static int
seg_slice(const tl_ui *ui, size_t ri, const cp_seg *g, int64_t end, ui_slice_ref *out)
{
	const tl_rank *r = ui->tr->ranks[ri];
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track *t = r->tracks[ti];
		int k = t->kind == TL_LANE_COMPUTE || t->kind == TL_LANE_OTHER ? CP_COMPUTE
		        : t->kind == TL_LANE_COMM                              ? CP_COMM
		        : t->kind == TL_LANE_MEMCPY                            ? CP_MEMORY
		                                                               : -1;
		if (k != g->kind)
			continue;
		size_t i = track_first_ending_after(t, g->start);
		if (i < t->n && t->v[i].start <= g->start && track_end(t, i) >= end) {
			*out = (ui_slice_ref){ri, ti, i};
			return 1;
		}
	}
	return 0;
}

static void
path_go(tl_ui *ui, int dir)
{
	timeline_marks *m = marks(ui);
	const cp_step *s = &m->cp.steps[m->cstep];
	if (s->nseg == 0) {
		ui_message(ui, 1, "The critical path has no segments");
		return;
	}
	/* from the segment last gone to while the cursor is still on it, else from the cursor
	 * (as search-next goes from it): n the first segment starting there or after, N the last
	 * one starting before it */
	int64_t cur = TIMELINE(ui)->vp.cursor;
	size_t k;
	if (m->cseg == SIZE_MAX && cur <= s->start) { /* just marked: n the first, N the last */
		k = dir > 0 ? 0 : s->nseg - 1;
	} else if (m->cseg != SIZE_MAX && s->seg[m->cseg].start == cur) {
		if (dir > 0 ? m->cseg + 1 >= s->nseg : m->cseg == 0) {
			ui_message(ui, 1, "The %s segment of the critical path (of %zu)",
			           dir > 0 ? "last" : "first", s->nseg);
			return;
		}
		k = dir > 0 ? m->cseg + 1 : m->cseg - 1;
	} else {
		size_t lo = 0, hi = s->nseg; /* the first segment starting at the cursor or after */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->seg[mid].start >= cur)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (dir > 0 ? lo >= s->nseg : lo == 0) {
			ui_message(ui, 1, "No segment of the critical path %s the cursor",
			           dir > 0 ? "after" : "before");
			return;
		}
		k = dir > 0 ? lo : lo - 1;
	}
	m->cseg = k;
	const cp_seg *g = &s->seg[k];
	int64_t ge = cp_seg_end(s, k);
	size_t ri = trace_rank_index(ui->tr, cp_seg_rank(s, g));
	ui_slice_ref sel;
	if (ri != SIZE_MAX)
		timeline_reveal(ui, ri, g->start, ge, seg_slice(ui, ri, g, ge, &sel) ? &sel : NULL);
	TIMELINE(ui)->vp.cursor = g->start;
	char d[32], at[48], nm[128];
	int gs = cp_seg_stage(s, g);
	const char *name = cp_seg_name(s, g);
	const char *stage = gs >= 0 ? tlq_stage_name(ui->q, gs) : NULL;
	ui_message(
	    ui, 0, "Path segment %zu of %zu: rank %s, %s%s%s, %s at %s (%.1f%% of the step)%s%s",
	    k + 1, s->nseg, UI_RANK(cp_seg_rank(s, g)), tlq_cp_kind_name(g->kind),
	    name && name[0] ? " " : "", name ? ui_clean(ui, name, nm, sizeof nm) : "",
	    timefmt_dur(ge - g->start, d, sizeof d), ui_time(ui, g->start, at, sizeof at),
	    s->end > s->start ? 100.0 * (double)(ge - g->start) / (double)(s->end - s->start) : 0.0,
	    stage ? ", stage " : "", stage ? stage : "");
}

int
timeline_marks_action(tl_ui *ui, int a)
{
	timeline_marks *m = TIMELINE(ui)->marks;
	switch (a) {
	case ACT_CRITICAL:
		path_mark(ui);
		return 1;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		if (m == NULL || m->cstep == SIZE_MAX || !m->path_active)
			return 0;
		path_go(ui, a == ACT_SEARCH_NEXT ? 1 : -1);
		return 1;
	case ACT_CLEAR: /* after the marked range, before the selection */
		if (m == NULL || ui->sel.nmark || (!m->have_finding && m->cstep == SIZE_MAX))
			return 0;
		m->have_finding = 0;
		m->cstep = SIZE_MAX;
		m->path_active = 0;
		ui->msg[0] = '\0';
		return 1;
	default:
		return 0;
	}
}

void
timeline_marks_search_started(tl_ui *ui)
{
	if (TIMELINE(ui)->marks)
		TIMELINE(ui)->marks->path_active = 0;
}

const cp_step *
timeline_critical_step(tl_ui *ui)
{
	timeline_marks *m = TIMELINE(ui)->marks;
	return m && m->cstep != SIZE_MAX ? &m->cp.steps[m->cstep] : NULL;
}

/* Columns [a, b] of the lanes for [t0, t1), or 0 when out of view. */
static int
span_cols(const tl_timeline *tl, int64_t t0, int64_t t1, int *a, int *b)
{
	*a = vp_time_col(&tl->vp, t0);
	*b = vp_time_col(&tl->vp, t1 > t0 ? t1 - 1 : t0);
	if (*b < 0 || *a >= tl->vp.ncols)
		return 0;
	if (*a < 0)
		*a = 0;
	if (*b >= tl->vp.ncols)
		*b = tl->vp.ncols - 1;
	return 1;
}

static void
paint(tl_ui *ui, int y, int a, int b, uint32_t glyph, uint8_t slot, int keep_glyph)
{
	tl_timeline *tl = TIMELINE(ui);
	for (int c = a; c <= b; c++) {
		scr_cell *sc = &ui->scr.cell[y * ui->scr.w + tl->lanes_x + c];
		if (!keep_glyph || sc->ch == ' ') {
			sc->ch = glyph;
			sc->flags = SCR_GLYPH;
		}
		sc->slot = slot;
	}
}

static int
lane_cp_kind(const ui_lane *l)
{
	if (l->type != UL_TRACK && l->type != UL_MERGED)
		return -1;
	return l->kind == TL_LANE_COMPUTE || l->kind == TL_LANE_OTHER ? CP_COMPUTE
	       : l->kind == TL_LANE_COMM                              ? CP_COMM
	       : l->kind == TL_LANE_MEMCPY                            ? CP_MEMORY
	                                                              : -1;
}

void
timeline_marks_draw(tl_ui *ui, const ui_lane *l, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	timeline_marks *m = tl->marks;
	if (m == NULL || l->rank >= ui->tr->nranks)
		return;
	int a, b, hdr = l->type == UL_HEADER;
	if (hdr && m->have_finding && l->rank < m->fn && m->fmark[l->rank] &&
	    span_cols(tl, m->f0, m->f1, &a, &b))
		paint(ui, y, a, b, ui->utf8 ? 0x2501 : '=', SLOT_FINDING, 0);
	if (m->cstep == SIZE_MAX)
		return;
	int kind = hdr ? -1 : lane_cp_kind(l);
	if (!hdr && kind < 0)
		return;
	const cp_step *s = &m->cp.steps[m->cstep];
	int rank = ui->tr->ranks[l->rank]->rank;
	for (size_t k = 0; k < s->nseg; k++) {
		const cp_seg *g = &s->seg[k];
		if (cp_seg_rank(s, g) != rank || (!hdr && (int)g->kind != kind) ||
		    !span_cols(tl, g->start, cp_seg_end(s, k), &a, &b))
			continue;
		/* the lane's own glyphs stay (the task is still seen); the header says the path */
		paint(ui, y, a, b, ui->utf8 ? 0x2550 : '#', SLOT_CRITICAL, !hdr);
	}
}

/* The finding's span and the path's step on the ruler, as the range is. */
void
timeline_marks_ruler(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	timeline_marks *m = tl->marks;
	int a, b;
	if (m == NULL)
		return;
	if (m->have_finding && span_cols(tl, m->f0, m->f1, &a, &b))
		for (int c = a; c <= b; c++)
			ui->scr.cell[tl->lanes_x + c].slot = SLOT_FINDING;
	if (m->cstep != SIZE_MAX && m->cseg != SIZE_MAX) {
		const cp_step *s = &m->cp.steps[m->cstep];
		if (span_cols(tl, s->seg[m->cseg].start, cp_seg_end(s, m->cseg), &a, &b))
			for (int c = a; c <= b; c++)
				ui->scr.cell[tl->lanes_x + c].slot = SLOT_CRITICAL;
	}
}

void
timeline_marks_free(tl_ui *ui)
{
	timeline_marks *m = TIMELINE(ui)->marks;
	if (m == NULL)
		return;
	if (m->have_cp)
		tlq_critical_free(&m->cp);
	free(m->fmark);
	free(m);
	TIMELINE(ui)->marks = NULL;
}
