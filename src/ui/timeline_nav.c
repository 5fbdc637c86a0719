/* The timeline's jumps: to the bubbles the query layer found, to search matches, to steps
 * (the actions of timeline.c call them). */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline_int.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- bubbles ------------------------------------------------------------------------------- */

/* Bubbles are found and attributed by the query layer (tlq_bubble_*: the stage enclosing the
 * whole gap, the step, the reason), the functions behind `tl summary`'s bubbles. */

/* Selects the bubble's Free slice and brings it into view. */
static void
bubble_show(tl_ui *ui, const tl_rl_bubble *b)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_rank *r = ui->tr->ranks[b->rank];
	const tl_track *f = tlq_overlap_lane(r, TL_OVL_FREE);
	int64_t s = b->start, e = b->end;
	tl->bubbles = 1;
	if (f) {
		size_t k = tlq_slice_at(f, s);
		for (size_t ti = 0; k != SIZE_MAX && ti < r->ntracks; ti++)
			if (r->tracks[ti] == f) {
				select_slice(ui, b->rank, ti, k);
				ui->sel.bubble =
				    *b; /* the detail pane shows it without asking again */
				ui->sel.have_bubble = 1;
				size_t l = lane_of_track(ui, b->rank, ti, 0);
				if (l != SIZE_MAX) {
					tl->lane = l;
					lane_visible(ui);
				}
			}
	}
	int64_t len = e - s;
	if (len > tl->vp.colw * tl->vp.ncols || len * 8 < tl->vp.colw * tl->vp.ncols)
		timeline_show_range(ui, s - len, e + len); /* the bubble in the middle third */
	tl->vp.cursor = s;
	vp_follow_cursor(&tl->vp);
}

/* "<what>: 1.563 ms idle on rank 0 at 84.531ms, step 1, no stage, nothing_scheduled": the
 * columns of `tl summary`'s bubble table */
static void
bubble_describe(tl_ui *ui, const char *what, const tl_rl_bubble *b)
{
	const tl_rank *r = ui->tr->ranks[b->rank];
	char d[32], at[48], stage[96], step[48];
	const char *sn = tlq_stage_name(ui->q, b->stage);
	if (sn) {
		char c[64];
		snprintf(stage, sizeof stage, "stage %s", ui_clean(ui, sn, c, sizeof c));
	} else {
		snprintf(stage, sizeof stage, "no stage");
	}
	if (b->step >= 0)
		snprintf(step, sizeof step, "step %" PRId64, b->step);
	else /* "between steps" on a rank with steps, as `tl summary` says */
		snprintf(step, sizeof step, "%s", b->between_steps ? "between steps" : "no step");
	ui_message(ui, 0, "%s: %s idle on rank %d at %s, %s, %s, %s", what,
	           timefmt_dur(b->end - b->start, d, sizeof d), r->rank,
	           ui_time(ui, b->start, at, sizeof at), step, stage,
	           tlq_bubble_reason_name(b->reason));
}

void
timeline_show_bubble(tl_ui *ui, const tl_rl_bubble *b)
{
	bubble_show(ui, b);
	bubble_describe(ui, "Bubble", b);
}

void
bubble_step(tl_ui *ui, int dir)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->lane >= tl->nlanes)
		return;
	size_t ri = tl->lanes[tl->lane].rank, k = 0, n = 0;
	const tl_rank *r = ui->tr->ranks[ri];
	tl_rl_bubble b;
	if (tlq_bubble_next(ui->q, ri, tl->vp.cursor, dir, &b, &k, &n) != 0) {
		if (n == 0)
			ui_message(ui, 0,
			           "Rank %d has no bubbles (no idle gap between device work)",
			           r->rank);
		else
			ui_message(ui, 0,
			           dir > 0 ? "No bubble after the cursor on rank %d"
			                   : "No bubble before the cursor on rank %d",
			           r->rank);
		return;
	}
	char what[64];
	snprintf(what, sizeof what, "Bubble %zu/%zu", k + 1, n);
	bubble_show(ui, &b);
	bubble_describe(ui, what, &b);
}

void
bubble_largest(tl_ui *ui, int dir)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_query *rl = ui->q;
	size_t nb = tlq_bubble_largest(rl, BUBBLE_LIST_MAX, 0, NULL);
	if (nb == 0) {
		ui_message(ui, 0, "No bubbles: no idle gap between device work on any rank");
		return;
	}
	if (tl->border == NULL) {
		/* the bubbles inside steps (or of a profile without steps) first, longest first:
		 * they are the ones a change to the step can remove; the gaps between steps (data
		 * loading, checkpoints) come after */
		tl->border = xmalloc(nb * sizeof *tl->border);
		size_t k = 0;
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = 0; i < nb; i++)
				if (tlq_bubble_largest_between_steps(rl, BUBBLE_LIST_MAX, i) ==
				    pass)
					tl->border[k++] = i;
	}
	if (dir > 0) {
		if (tl->bpos >= nb) {
			ui_message(ui, 0, "That was the last of the %zu largest bubbles", nb);
			return;
		}
		tl->bpos++;
	} else {
		if (tl->bpos <= 1) {
			ui_message(ui, 0, "That is the largest bubble");
			return;
		}
		tl->bpos--;
	}
	tl_rl_bubble b;
	tlq_bubble_largest(rl, BUBBLE_LIST_MAX, tl->border[tl->bpos - 1], &b);
	char what[64]; /* the message says "between steps" of those that are */
	snprintf(what, sizeof what, "Bubble #%zu of %zu by size", tl->bpos, nb);
	bubble_show(ui, &b);
	bubble_describe(ui, what, &b);
}

/* ---- search -------------------------------------------------------------------------------- */

void
match_go(tl_ui *ui, const tl_match_pos *m)
{
	tl_timeline *tl = TIMELINE(ui);
	tl->have_match = 1;
	tl->match = *m;
	timeline_select(ui, m->rank, m->track, m->slice, 0);
	size_t ord = tlq_search_ordinal(&tl->search, ui->tr, m);
	const tl_rank *r = ui->tr->ranks[m->rank];
	char nm[128];
	ui_clean(ui, strpool_get(r->pool, r->tracks[m->track]->v[m->slice].name), nm, sizeof nm);
	ui_message(ui, 0, "Match %zu of %zu: %s (rank %d)", ord + 1, tl->search.total, nm, r->rank);
}

int
timeline_search(tl_ui *ui, const char *pattern)
{
	tl_timeline *tl = TIMELINE(ui);
	char err[256];
	tl_search s;
	if (*pattern == '\0') {
		if (!tl->have_search) {
			ui_message(ui, 1, "No previous search");
			return -1;
		}
		pattern = tl->search.pattern;
	}
	if (tlq_search(ui->tr, NULL, pattern, &s, err, sizeof err) != 0) {
		ui_message(ui, 1, "Bad pattern: %s", err);
		return -1;
	}
	if (tl->have_search)
		tlq_search_free(&tl->search);
	tl->search = s;
	tl->have_search = 1;
	timeline_marks_search_started(ui);
	tl->have_match = 0;
	if (s.total == 0) {
		char p[128];
		ui_message(ui, 1, "No slice name matches /%s/", ui_clean(ui, pattern, p, sizeof p));
		return 0;
	}
	tl_match_pos from = {SIZE_MAX, 0, 0, tl->vp.cursor}, m;
	if (tlq_search_step(&tl->search, ui->tr, &from, 1, &m) != 0) {
		from.start = INT64_MIN;
		tlq_search_step(&tl->search, ui->tr, &from, 1, &m);
	}
	match_go(ui, &m);
	return 0;
}

void
search_step(tl_ui *ui, int dir)
{
	tl_timeline *tl = TIMELINE(ui);
	if (!tl->have_search) {
		ui_message(ui, 1, "No search yet: / searches slice names");
		return;
	}
	if (tl->search.total == 0) {
		ui_message(ui, 1, "No matches");
		return;
	}
	tl_match_pos from =
	    tl->have_match ? tl->match : (tl_match_pos){SIZE_MAX, 0, 0, tl->vp.cursor};
	tl_match_pos m;
	if (tlq_search_step(&tl->search, ui->tr, &from, dir, &m) != 0) {
		tl_match_pos wrap = {SIZE_MAX, 0, 0, dir > 0 ? INT64_MIN : INT64_MAX};
		if (tlq_search_step(&tl->search, ui->tr, &wrap, dir, &m) != 0)
			return;
		match_go(ui, &m);
		char tmp[sizeof ui->msg];
		snprintf(tmp, sizeof tmp, "%s", ui->msg);
		ui_message(ui, 0, "%s [wrapped]", tmp);
		return;
	}
	match_go(ui, &m);
}

/* ---- steps --------------------------------------------------------------------------------- */

/* The step of the current lane's rank at the cursor: returns 0 and sets *id, or -1. */
static int
cursor_step(const tl_ui *ui, int64_t *id)
{
	const tl_timeline *tl = TIMELINE(ui);
	if (tl->lane >= tl->nlanes)
		return -1;
	return tlq_step_at(ui->tr->ranks[tl->lanes[tl->lane].rank], tl->vp.cursor, id);
}

int
timeline_step_at_cursor(const tl_ui *ui, int64_t *id)
{
	return cursor_step(ui, id);
}

int
timeline_goto_step(tl_ui *ui, int64_t id)
{
	int64_t t0, t1;
	if (tlq_step_span(ui->q, id, &t0, &t1) != 0) {
		ui_message(ui, 1, "No step %" PRId64 " in this profile", id);
		return -1;
	}
	tl_timeline *tl = TIMELINE(ui);
	timeline_show_range(ui, t0, t1);
	tl->vp.cursor = t0;
	vp_follow_cursor(&tl->vp);
	char a[48], b[48], d[32], k[32];
	ui_message(ui, 0, "Step %" PRId64 ": %s \u2013 %s (%s); %s marks it for statistics", id,
	           ui_time(ui, t0, a, sizeof a), ui_time(ui, t1, b, sizeof b),
	           timefmt_dur(t1 - t0, d, sizeof d),
	           keymap_key_hint(&ui->keys, ACT_MARK_STEP, k, sizeof k));
	return 0;
}

/* The next (dir > 0) or previous step from the one at the cursor, or from the cursor when it
 * is in none. */
void
step_move(tl_ui *ui, int dir)
{
	int64_t *ids, cur, t0, t1, cursor = TIMELINE(ui)->vp.cursor;
	size_t n = tlq_step_ids(ui->q, &ids);
	int have = cursor_step(ui, &cur) == 0;
	size_t pick = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		size_t i = dir > 0 ? k : n - 1 - k;
		if (have ? (dir > 0 ? ids[i] > cur : ids[i] < cur)
		         : tlq_step_span(ui->q, ids[i], &t0, &t1) == 0 &&
		               (dir > 0 ? t0 >= cursor : t1 <= cursor)) {
			pick = i;
			break;
		}
	}
	if (n == 0)
		ui_message(ui, 1, "This profile has no steps (no ProfilerStep ranges)");
	else if (pick == SIZE_MAX)
		ui_message(ui, 1, dir > 0 ? "No step after this one" : "No step before this one");
	else
		timeline_goto_step(ui, ids[pick]);
	free(ids);
}

/* Marks the step at the cursor (its span over the ranks) as the range. */
void
mark_step(tl_ui *ui)
{
	int64_t id, t0, t1;
	if (cursor_step(ui, &id) != 0) {
		ui_message(ui, 1, "The cursor is in no step of this rank (:step N goes to one)");
		return;
	}
	if (tlq_step_span(ui->q, id, &t0, &t1) != 0)
		return;
	timeline_mark_range(ui, t0, t1);
	char d[32];
	ui_message(ui, 0, "Step %" PRId64 " marked (%s): its statistics below", id,
	           timefmt_dur(t1 - t0, d, sizeof d));
}

void
timeline_show_match(tl_ui *ui, const tl_match_pos *m)
{
	match_go(ui, m);
}
