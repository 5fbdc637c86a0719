/* The pipeline-parallel flow view: one row per PP stage with its forward (F) and
 * backward (B) blocks labelled by micro-batch, the idle time between them shaded as bubbles, and
 * between neighbouring rows the P2P transfers as arrows where the receive completes (down for
 * activations, up for gradients). 1F1B and GPipe read the same way. Every number is
 * tlq_pipeline's, the one `tl summary` prints. */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_W 22 /* " pp 0  r0,1    35.4% " */

typedef struct pp_state {
	size_t step;     /* index into the pipeline's steps */
	size_t sel, top; /* selected PP stage, first shown */
} pp_state;

static const tl_pp_step *
current(tl_ui *ui, pp_state *s, const tl_pipeline **pp)
{
	*pp = tlq_pipeline(ui->q);
	if ((*pp)->nsteps == 0)
		return NULL;
	if (s->step >= (*pp)->nsteps)
		s->step = 0;
	return &(*pp)->steps[s->step];
}

/* "r0,1" or "r0-3" or "r0,2,+3" to fit a label */
static void
ranks_text(const tl_trace *tr, const tl_pp_stage *ps, char *buf, size_t len)
{
	size_t n = ps->nranks;
	if (n == 0) {
		snprintf(buf, len, "-");
		return;
	}
	int first = tr->ranks[ps->ranks[0]]->rank, last = tr->ranks[ps->ranks[n - 1]]->rank;
	int run = 1;
	for (size_t i = 1; i < n; i++)
		run &= tr->ranks[ps->ranks[i]]->rank == first + (int)i;
	if (n == 1)
		snprintf(buf, len, "r%d", first);
	else if (n == 2)
		snprintf(buf, len, "r%d,%d", first, last);
	else if (run)
		snprintf(buf, len, "r%d-%d", first, last);
	else
		snprintf(buf, len, "r%d,+%zu", first, n - 1);
}

/* The column of time t in a bar of bw columns over [t0, t0 + span]; `end` maps the end of the
 * span to bw (one past the last column) so the last block reaches the right edge. */
static int
col_of(int64_t t, int64_t t0, int64_t span, int bw, int end)
{
	if (t <= t0)
		return 0;
	int64_t c = (t - t0) * bw / span;
	int max = end ? bw : bw - 1;
	return c >= max ? max : (int)c;
}

/* Stage i's two rows at line yy: its label and bubble ratio, the bubbles and its blocks with
 * their labels, then the arrows of its transfers to and from the next stage. Returns how many
 * block labels had no column of their own. */
static size_t
pp_stage_rows(tl_ui *ui, const pp_state *s, const tl_pp_step *st, size_t i, size_t per, int x,
              int yy, int bw, int64_t span)
{
	tl_screen *sc = &ui->scr;
	int x0 = x + LABEL_W;
	uint32_t shade = ui->utf8 ? 0x2591 : '.'; /* ░ */
	size_t hidden = 0;
	const tl_pp_stage *ps = &st->stages[i];
	int sel = i == s->sel;
	char rk[32];
	ranks_text(ui->tr, ps, rk, sizeof rk);
	if (sel)
		screen_put(sc, x, yy, ui->utf8 ? 0x25b8 : '>', SLOT_LABEL_CURRENT, 0);
	screen_printf(sc, x + 1, yy, LABEL_W - 2, sel ? SLOT_LABEL_CURRENT : SLOT_RANK,
	              "pp %-2d%-8s", ps->pp_stage, rk);
	screen_printf(sc, x + 14, yy, LABEL_W - 15, SLOT_NORMAL, "%5.1f%%", ps->bubble_ratio * 100);
	/* bubbles first, blocks over them */
	for (int c = 0; c < bw; c++)
		screen_put(sc, x0 + c, yy, shade, SLOT_FREE, SCR_GLYPH);
	/* the blocks, then their labels: a label never overwrites the one before it; one
	 * that does not fit is elided with a marker ("F…", or "…" alone), and one with no
	 * column left is counted in the ruler, never dropped unsaid */
	for (size_t b = 0; b < ps->nblocks; b++) {
		const tl_pp_block *blk = &ps->blocks[b];
		int a = col_of(blk->start, st->start, span, bw, 0);
		int e = col_of(blk->end, st->start, span, bw, 1);
		if (e <= a)
			e = a + 1 < bw ? a + 1 : bw;
		if (e <= a)
			continue;
		uint8_t slot = blk->kind == 'F' ? SLOT_PP_FORWARD : SLOT_PP_BACKWARD;
		screen_fill(sc, x0 + a, yy, e - a, ' ', slot);
	}
	int free_col = 0;
	for (size_t b = 0; b < ps->nblocks; b++) {
		const tl_pp_block *blk = &ps->blocks[b];
		int a = col_of(blk->start, st->start, span, bw, 0);
		int e = col_of(blk->end, st->start, span, bw, 1);
		if (e <= a)
			e = a + 1 < bw ? a + 1 : bw;
		uint8_t slot = blk->kind == 'F' ? SLOT_PP_FORWARD : SLOT_PP_BACKWARD;
		char lab[16];
		snprintf(lab, sizeof lab, "%c%d", blk->kind, blk->microbatch);
		int ll = (int)strlen(lab);
		int la = a > free_col ? a : free_col, room = e - la;
		if (room >= ll) {
			int at = la + (room - ll) / 2;
			screen_text(sc, x0 + at, yy, ll, lab, slot);
			free_col = at + ll;
		} else if (room >= 1) {
			char el[16];
			snprintf(el, sizeof el, "%.*s%s", room - 1, lab, ui->utf8 ? "\u2026" : "~");
			screen_text(sc, x0 + la, yy, room, el, slot);
			free_col = e;
		} else {
			hidden++;
		}
	}
	if (ps->nblocks == 0)
		screen_text(sc, x0 + 1, yy, bw - 1, "(no blocks in this step)", SLOT_NORMAL);
	/* transfers to and from the next stage's shown rank: arrows where they complete */
	if (i + 1 >= st->nstages || i + 1 >= s->top + per)
		return hidden;
	const tl_pp_stage *nx = &st->stages[i + 1];
	for (size_t l = 0; l < st->nlinks; l++) {
		const tl_pp_link *lk = &st->links[l];
		int down = lk->from_rank == ps->shown && lk->to_rank == nx->shown;
		int up = lk->from_rank == nx->shown && lk->to_rank == ps->shown;
		if (!down && !up)
			continue;
		int c = col_of(lk->recv_end, st->start, span, bw, 0);
		uint32_t ch = down ? (ui->utf8 ? 0x2193 : 'v') : (ui->utf8 ? 0x2191 : '^');
		const scr_cell *old =
		    &sc->cell[(size_t)(yy + 1) * (size_t)sc->w + (size_t)(x0 + c)];
		if (old->slot == SLOT_COMM && old->ch != ch) /* both ways in one column */
			ch = ui->utf8 ? 0x2195 : '|';
		screen_put(sc, x0 + c, yy + 1, ch, SLOT_COMM, SCR_GLYPH);
	}
	return hidden;
}

static void
pp_draw(tl_ui *ui, void *state, int x, int y, int w, int h)
{
	tl_screen *sc = &ui->scr;
	pp_state *s = state;
	const tl_pipeline *pp;
	const tl_pp_step *st = current(ui, s, &pp);
	char k1[24], k2[24], sp[32], stp[24];
	screen_fill(sc, x, y, w, ' ', SLOT_TITLE);
	if (st == NULL) {
		screen_printf(sc, x, y, w, SLOT_TITLE, " Pipeline-parallel flow  (%s: close)",
		              keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
		char why[256];
		screen_printf(sc, x + 1, y + 2, w - 2, SLOT_NORMAL, "%s",
		              tlq_pipeline_absence(ui->q, pp, why, sizeof why));
		return;
	}
	if (st->step < 0)
		snprintf(stp, sizeof stp, "all");
	else
		snprintf(stp, sizeof stp, "%" PRId64, st->step);
	snprintf(sp, sizeof sp, "%.3f ms", (double)(st->end - st->start) / 1e6);
	screen_printf(
	    sc, x, y, w, SLOT_TITLE,
	    " Pipeline: step %s (%zu of %zu), %d PP stages from %s, span %s   (%s step, Enter: "
	    "timeline, %s: close)",
	    stp, s->step + 1, pp->nsteps, pp->npp, tlq_pipeline_source_name(pp->source), sp,
	    keymap_key_hint(&ui->keys, ACT_STEP_NEXT, k1, sizeof k1),
	    keymap_key_hint(&ui->keys, ACT_QUIT, k2, sizeof k2));
	int bw = w - LABEL_W - 1;
	if (bw < 4)
		return;
	/* the selected stage's bubble in words under the title: its ratio and its idle time (the
	 * step's span less the union of its blocks, both tlq_pipeline's) */
	if (st->nstages) {
		const tl_pp_stage *cs = &st->stages[s->sel < st->nstages ? s->sel : 0];
		int64_t idle = (st->end - st->start) - cs->busy;
		char id[32];
		snprintf(id, sizeof id, "%.3f ms", (double)(idle > 0 ? idle : 0) / 1e6);
		screen_fill(sc, x, y + h - 1, w, ' ', SLOT_DETAIL_KEY);
		screen_printf(sc, x + 1, y + h - 1, w - 1, SLOT_DETAIL_KEY,
		              "pp %d: bubble ratio %.1f%%, %s idle of the step's %s; F forward, B "
		              "backward, the number its micro-batch",
		              cs->pp_stage, cs->bubble_ratio * 100, id, sp);
		h--;
	}
	const char *ruler_start = ui->utf8 ? "\u2502t=0" : "|t=0";
	int x0 = x + LABEL_W;
	screen_printf(sc, x + 1, y + 1, LABEL_W - 2, SLOT_LABEL, "%-4s %-8s %6s", "pp", "ranks",
	              "bubble");
	/* a ruler: the step's span in ms */
	screen_fill(sc, x0, y + 1, bw, ' ', SLOT_RULER);
	/* where the blocks come from, when not from ranges (the title has no room left) */
	screen_printf(sc, x0, y + 1, bw, SLOT_RULER, "%s%s", ruler_start,
	              pp->ranks_from_ops == 0 ? ""
	              : pp->ranks_from_ops == pp->ranks_with_blocks
	                  ? "   blocks from forward/backward operator pairs"
	                  : "   some blocks from forward/backward operator pairs");
	int rl = (int)strlen(sp);
	if (bw > rl + 6)
		screen_text(sc, x0 + bw - rl, y + 1, rl, sp, SLOT_RULER);
	int64_t span = st->end > st->start ? st->end - st->start : 1;
	int avail = h - 2; /* rows for stages: 2 per stage (blocks, then links), the last 1 */
	size_t per = (size_t)(avail + 1) / 2;
	if (per == 0)
		return;
	if (s->sel >= st->nstages)
		s->sel = st->nstages - 1;
	if (s->sel < s->top)
		s->top = s->sel;
	if (s->sel >= s->top + per)
		s->top = s->sel - per + 1;
	size_t hidden = 0; /* block labels with no column of their own */
	for (size_t i = s->top; i < st->nstages && i < s->top + per; i++)
		hidden +=
		    pp_stage_rows(ui, s, st, i, per, x, y + 2 + 2 * (int)(i - s->top), bw, span);
	if (hidden > 0) { /* after "t=0", before the span at the right */
		char note[64];
		int nl = snprintf(note, sizeof note, "  %zu label%s too narrow: zoom (T, Enter)",
		                  hidden, hidden == 1 ? "" : "s");
		int at = (int)strlen("|t=0"), room = bw - at - rl - 2;
		if (room > 0)
			screen_text(sc, x0 + at, y + 1, nl < room ? nl : room, note, SLOT_RULER);
	}
}

static void
pp_jump(tl_ui *ui, const tl_pp_step *st, const tl_pp_stage *ps)
{
	ui_view_close(ui, &pp_view);
	if (ps->shown == SIZE_MAX)
		return;
	timeline_reveal(ui, ps->shown, st->start, st->end, NULL);
	ui_message(ui, 0, "PP stage %d (rank %d): bubble ratio %.1f%% of the step's %.3f ms",
	           ps->pp_stage, ui->tr->ranks[ps->shown]->rank, ps->bubble_ratio * 100,
	           (double)(st->end - st->start) / 1e6);
}

static int
pp_action(tl_ui *ui, void *state, int a)
{
	pp_state *s = state;
	const tl_pipeline *pp;
	const tl_pp_step *st = current(ui, s, &pp);
	switch (a) {
	case ACT_LANE_DOWN:
		if (st && s->sel + 1 < st->nstages)
			s->sel++;
		return 1;
	case ACT_LANE_UP:
		if (s->sel > 0)
			s->sel--;
		return 1;
	case ACT_STEP_NEXT:
	case ACT_PAGE_RIGHT:
		if (pp->nsteps > 0)
			s->step = (s->step + 1) % pp->nsteps;
		return 1;
	case ACT_STEP_PREV:
	case ACT_PAGE_LEFT:
		if (pp->nsteps > 0)
			s->step = (s->step + pp->nsteps - 1) % pp->nsteps;
		return 1;
	case ACT_SELECT:
		if (st && s->sel < st->nstages)
			pp_jump(ui, st, &st->stages[s->sel]);
		return 1;
	default:
		return 0; /* not the panel's: the view stack's rule */
	}
}

static void *
pp_open(tl_ui *ui)
{
	(void)ui;
	return xcalloc(1, sizeof(pp_state));
}

static void
pp_close(tl_ui *ui, void *state)
{
	(void)ui;
	free(state);
}

const view_ops pp_view = {
    .name = "pp-view",
    .layer = UI_LAYER_PANEL,
    .open_action = ACT_PP_VIEW,
    .open = pp_open,
    .draw = pp_draw,
    .action = pp_action,
    .close = pp_close,
};
