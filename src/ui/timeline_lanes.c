/* The timeline's lanes: the list of what is drawn, per rank a header row, then its tracks
 * (merged per kind, or one lane per stream), and moving between them. */
#include "config.h"
#include "ui/common.h"
#include "ui/timeline_int.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- lanes --------------------------------------------------------------------------------- */

static uint8_t
kind_slot(tl_lane_kind k, int64_t key)
{
	switch (k) {
	case TL_LANE_STAGE:
		return SLOT_STAGE;
	case TL_LANE_STEP:
		return SLOT_STEP;
	case TL_LANE_MSTX:
	case TL_LANE_MSTX_DEV:
		return SLOT_MSTX;
	case TL_LANE_COMPUTE:
		return SLOT_COMPUTE;
	case TL_LANE_COMM:
		return SLOT_COMM;
	case TL_LANE_COMM_TASK:
		return SLOT_COMM_TASK;
	case TL_LANE_MEMCPY:
		return SLOT_MEMCPY;
	case TL_LANE_OVERLAP:
		return key == TL_OVL_COMPUTING       ? SLOT_COMPUTE
		       : key == TL_OVL_COMMUNICATION ? SLOT_COMM
		       : key == TL_OVL_COMM_EXPOSED  ? SLOT_COMM_EXPOSED
		                                     : SLOT_FREE;
	case TL_LANE_HOST:
		return SLOT_HOST;
	default:
		return SLOT_OTHER;
	}
}

static void
add_lane(tl_ui *ui, ui_lane_type type, size_t ri, tl_lane_kind kind, size_t first, size_t count,
         uint8_t indent, const char *label)
{
	tl_timeline *tl = TIMELINE(ui);
	ui_lane l = {.type = type,
	             .rank = ri,
	             .kind = kind,
	             .first = first,
	             .count = count,
	             .indent = indent};
	const tl_rank *r = ui->tr->ranks[ri];
	l.slot = type == UL_HEADER ? SLOT_RANK : kind_slot(kind, r->tracks[first]->key);
	ui_clean(ui, label, l.label, sizeof l.label);
	VEC_PUSH(tl->lanes, tl->nlanes, tl->lcap, l);
}

static int
rank_has_device(const tl_rank *r)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind >= TL_LANE_COMPUTE && r->tracks[i]->kind <= TL_LANE_OTHER)
			return 1;
	return 0;
}

static const char *
overlap_short(int64_t key)
{
	static const char *const n[] = {"Computing", "Communication", "Comm(Not Ovl)", "Free"};
	return key >= 0 && key < 4 ? n[key] : "?";
}

static void
track_label(const tl_rank *r, const tl_track *t, const char *prefix, char *buf, size_t len)
{
	const char *l = strpool_get(r->pool, t->label);
	if (t->depth > 0)
		snprintf(buf, len, "%s%s +%u", prefix, l, (unsigned)t->depth);
	else
		snprintf(buf, len, "%s%s", prefix, l);
}

void
timeline_rebuild_lanes(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	/* keep the current lane across the rebuild */
	ui_lane old = {0};
	int have_old = tl->lane < tl->nlanes;
	if (have_old)
		old = tl->lanes[tl->lane];
	tl->nlanes = 0;
	const tl_trace *tr = ui->tr;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		char label[128];
		const char *arrow = tl->rs[ri].collapsed ? (ui->utf8 ? "\u25b8" : "+")
		                                         : (ui->utf8 ? "\u25be" : "-");
		snprintf(label, sizeof label, "%s rank %d%s%s%s", arrow, r->rank,
		         r->role ? " " : "", r->role ? r->role : "",
		         rank_has_device(r) ? "" : " (no device)");
		add_lane(ui, UL_HEADER, ri, TL_LANE__COUNT, 0, r->ntracks, 0, label);
		if (tl->rs[ri].collapsed)
			continue;
		int streams = tl->rs[ri].streams;
		for (size_t i = 0; i < r->ntracks;) {
			const tl_track *t = r->tracks[i];
			size_t k = i + 1;
			while (k < r->ntracks && r->tracks[k]->kind == t->kind)
				k++;
			switch (t->kind) {
			case TL_LANE_COMPUTE:
			case TL_LANE_MEMCPY: {
				size_t nstreams = 0;
				for (size_t j = i; j < k; j++)
					nstreams += r->tracks[j]->depth == 0;
				if (nstreams > 1)
					snprintf(label, sizeof label, "%s (%zu)",
					         lane_kind_name(t->kind), nstreams);
				else
					snprintf(label, sizeof label, "%s",
					         lane_kind_name(t->kind));
				add_lane(ui, UL_MERGED, ri, t->kind, i, k - i, 1, label);
				if (streams)
					for (size_t j = i; j < k; j++) {
						track_label(r, r->tracks[j], "", label,
						            sizeof label);
						add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 3, label);
					}
				break;
			}
			case TL_LANE_COMM_TASK:
			case TL_LANE_MSTX_DEV:
			case TL_LANE_OTHER:
				if (streams)
					for (size_t j = i; j < k; j++) {
						const char *pre =
						    t->kind == TL_LANE_COMM_TASK  ? "hccl "
						    : t->kind == TL_LANE_MSTX_DEV ? "mstx.dev "
						                                  : "other ";
						track_label(r, r->tracks[j], pre, label,
						            sizeof label);
						add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 1, label);
					}
				break;
			case TL_LANE_OVERLAP:
				if (tl->show_overlap)
					for (size_t j = i; j < k; j++)
						add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 1,
						         overlap_short(r->tracks[j]->key));
				break;
			case TL_LANE_HOST:
				if (!tl->show_host)
					break;
				/* fall through */
			default:
				for (size_t j = i; j < k; j++) {
					const char *pre = t->kind == TL_LANE_MSTX   ? "mstx "
					                  : t->kind == TL_LANE_COMM ? "comm "
					                  : t->kind == TL_LANE_HOST ? "host "
					                                            : "";
					if (t->kind == TL_LANE_STEP || t->kind == TL_LANE_STAGE)
						snprintf(label, sizeof label, "%s%s",
						         lane_kind_name(t->kind),
						         r->tracks[j]->depth ? " +" : "");
					else
						track_label(r, r->tracks[j], pre, label,
						            sizeof label);
					add_lane(ui, UL_TRACK, ri, t->kind, j, 1, 1, label);
				}
				break;
			}
			i = k;
		}
	}
	tl->lane = 0;
	if (have_old) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < tl->nlanes; i++) {
			const ui_lane *l = &tl->lanes[i];
			if (l->rank != old.rank)
				continue;
			if (best == SIZE_MAX)
				best = i; /* the rank's header */
			if (l->type == old.type && l->kind == old.kind && l->first == old.first) {
				best = i;
				break;
			}
		}
		if (best != SIZE_MAX)
			tl->lane = best;
	}
	if (tl->top > tl->lane)
		tl->top = tl->lane;
	tl->rk_valid = 0;
}

/* ---- lane navigation ----------------------------------------------------------------------- */

void
lane_visible(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	size_t h = (size_t)(tl->lanes_h > 0 ? tl->lanes_h : 1);
	if (tl->lane < tl->top)
		tl->top = tl->lane;
	if (tl->lane >= tl->top + h)
		tl->top = tl->lane - h + 1;
	if (tl->nlanes > h && tl->top > tl->nlanes - h)
		tl->top = tl->nlanes - h;
}

void
lane_move(tl_ui *ui, long d)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->nlanes == 0)
		return;
	long l = (long)tl->lane + d;
	if (l < 0)
		l = 0;
	if (l >= (long)tl->nlanes)
		l = (long)tl->nlanes - 1;
	tl->lane = (size_t)l;
	lane_visible(ui);
}

void
rank_move(tl_ui *ui, int dir)
{
	tl_timeline *tl = TIMELINE(ui);
	size_t i = tl->lane;
	if (dir > 0) {
		for (i = tl->lane + 1; i < tl->nlanes && tl->lanes[i].type != UL_HEADER; i++)
			;
		if (i >= tl->nlanes)
			return;
	} else {
		/* to this rank's header first, then the previous one */
		size_t h = tl->lane;
		while (h > 0 && tl->lanes[h].type != UL_HEADER)
			h--;
		if (h == tl->lane && h > 0) {
			h--;
			while (h > 0 && tl->lanes[h].type != UL_HEADER)
				h--;
		}
		i = h;
	}
	tl->lane = i;
	/* a rank group reads best from its header down */
	tl->top = i;
	lane_visible(ui);
}

size_t
lane_at_row(const tl_ui *ui, int row)
{
	tl_timeline *tl = TIMELINE(ui);
	if (row < tl->lanes_y || row >= tl->lanes_y + tl->lanes_h)
		return SIZE_MAX;
	size_t l = tl->top + (size_t)(row - tl->lanes_y);
	return l < tl->nlanes ? l : SIZE_MAX;
}

size_t
lane_of_track(tl_ui *ui, size_t ri, size_t ti, int reveal)
{
	tl_timeline *tl = TIMELINE(ui);
	for (int pass = 0; pass < 2; pass++) {
		size_t merged = SIZE_MAX;
		for (size_t i = 0; i < tl->nlanes; i++) {
			const ui_lane *l = &tl->lanes[i];
			if (l->rank != ri || l->type == UL_HEADER)
				continue;
			if (ti >= l->first && ti < l->first + l->count) {
				if (l->type == UL_TRACK)
					return i;
				merged = i;
			}
		}
		if (merged != SIZE_MAX)
			return merged;
		if (!reveal || pass == 1)
			break;
		const tl_track *t = ui->tr->ranks[ri]->tracks[ti];
		tl->rs[ri].collapsed = 0;
		if (t->kind == TL_LANE_OVERLAP)
			tl->show_overlap = 1;
		else if (t->kind == TL_LANE_HOST)
			tl->show_host = 1;
		else
			tl->rs[ri].streams = 1;
		timeline_rebuild_lanes(ui);
	}
	for (size_t i = 0; i < tl->nlanes; i++)
		if (tl->lanes[i].rank == ri)
			return i;
	return SIZE_MAX;
}
