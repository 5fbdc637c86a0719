/* The timeline's counter lanes: per rank, its memory and frequency counters (allocator totals
 * per component, NPU memory, module memory, AI Core frequency, a trace's "C" events) as
 * sparklines of eighth blocks, each column the highest value in its time span, scaled from the
 * counter's lowest value to its highest; the column of the peak is marked. Off by default (U,
 * :counters); the status line gives the value at the cursor, and * goes to the peak. Every
 * number comes from the query layer (query/memory.h). The lanes themselves are listed with the
 * others (timeline_lanes.c), so that file and this one do not call each other. */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline_int.h"
#include "query/memory.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t eighths[9] = {' ',    0x2581, 0x2582, 0x2583, 0x2584,
                                    0x2585, 0x2586, 0x2587, 0x2588};
static const char ascii_levels[9] = {' ', '_', '.', ':', '-', '=', '+', '*', '#'};

void
timeline_counters_toggle(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	tl->show_counters ^= 1;
	if (tl->show_counters) {
		size_t any = 0;
		for (size_t ri = 0; ri < ui->tr->nranks; ri++) {
			tl_counter *const *cs;
			any += tlq_rank_counters(ui->q, ri, &cs);
		}
		if (any == 0)
			ui_message(ui, 0, "No memory or frequency counters in this profile");
	}
	timeline_rebuild_lanes(ui);
}

static const tl_counter *
lane_counter(const tl_ui *ui, const ui_lane *l)
{
	const tl_rank *r = ui->tr->ranks[l->rank];
	return l->ctr < r->ncounters ? r->counters[l->ctr] : NULL;
}

void
timeline_counter_draw(tl_ui *ui, const ui_lane *l, int y)
{
	tl_timeline *tl = TIMELINE(ui);
	const tl_counter *c = lane_counter(ui, l);
	if (c == NULL)
		return;
	int n = tl->vp.ncols;
	if (n > tl->ctr_cols) {
		tl->ctr_cols = n;
		tl->ctr_max = xreallocarray(tl->ctr_max, (size_t)n, sizeof *tl->ctr_max);
		tl->ctr_have = xreallocarray(tl->ctr_have, (size_t)n, 1);
	}
	tlq_counter_columns(c, ui->tr->ranks[l->rank]->t_max, tl->edges, n, tl->ctr_max,
	                    tl->ctr_have);
	int64_t peak_t = c->t[l->ctr_peak];
	/* the level of v: 1 at the lowest value, 8 at the highest (4 when it never changes) */
	uint64_t span = (uint64_t)l->ctr_hi - (uint64_t)l->ctr_lo;
	for (int k = 0; k < n; k++) {
		if (!tl->ctr_have[k])
			continue;
		int e = 4;
		if (span)
			e = 1 + (int)((double)((uint64_t)tl->ctr_max[k] - (uint64_t)l->ctr_lo) *
			              7.0 / (double)span);
		if (e > 8)
			e = 8;
		int peak = peak_t >= tl->edges[k] && peak_t < tl->edges[k + 1];
		screen_put(&ui->scr, tl->lanes_x + k, y,
		           ui->utf8 ? eighths[e] : (uint32_t)ascii_levels[e],
		           peak ? SLOT_COUNTER_PEAK : SLOT_COUNTER, SCR_GLYPH);
	}
}

int
timeline_counter_status(tl_ui *ui, const ui_lane *l, char *buf, size_t len)
{
	if (l->type != UL_COUNTER || len == 0)
		return 0;
	const tl_counter *c = lane_counter(ui, l);
	int64_t v;
	char vb[64];
	if (c == NULL ||
	    !tlq_counter_at(c, ui->tr->ranks[l->rank]->t_max, TIMELINE(ui)->vp.cursor, &v))
		return snprintf(buf, len, "  | no value");
	int w = snprintf(buf, len, "  | value %s",
	                 tlq_counter_value(ui->tr->ranks[l->rank], c, v, vb, sizeof vb));
	return w < (int)len ? w : (int)len - 1;
}

void
timeline_counter_peak(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	const ui_lane *l = tl->lane < tl->nlanes ? &tl->lanes[tl->lane] : NULL;
	if (l == NULL || l->type != UL_COUNTER) {
		ui_message(ui, 0,
		           tl->show_counters ? "Move to a counter lane first"
		                             : "Show the counter lanes first (counters), then move "
		                               "to one");
		return;
	}
	const tl_counter *c = lane_counter(ui, l);
	if (c == NULL)
		return;
	const tl_rank *r = ui->tr->ranks[l->rank];
	char name[128], vb[64], tb[48];
	timeline_goto(ui, c->t[l->ctr_peak]);
	ui_message(ui, 0, "Peak of %s on rank %d: %s at %s",
	           tlq_counter_label(r, c, name, sizeof name), r->rank,
	           tlq_counter_value(r, c, c->v[l->ctr_peak], vb, sizeof vb),
	           ui_time(ui, c->t[l->ctr_peak], tb, sizeof tb));
}

void
timeline_counters_free(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	free(tl->ctr_max);
	free(tl->ctr_have);
	tl->ctr_max = NULL;
	tl->ctr_have = NULL;
	tl->ctr_cols = 0;
}
