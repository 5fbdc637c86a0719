/* The timeline's lanes: the list of what is drawn, per rank a header row, then its tracks
 * (merged per kind, or one lane per stream), and moving between them. */
#include "config.h"
#include "ui/common.h"
#include "ui/compare.h"
#include "ui/timeline_int.h"
#include "query/memory.h"
#include "util/xalloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lanes --------------------------------------------------------------------------------- */

uint8_t
lane_kind_slot(tl_lane_kind k, int64_t key)
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

/* Whether the lane filter lets a lane of this label and kind through. */
static int
filter_pass(const tl_timeline *tl, tl_lane_kind kind, const char *label)
{
	if (tl->filter_re == NULL)
		return 1;
	const char *kn = lane_kind_name(kind);
	const char *s[2] = {label, kn ? kn : ""};
	for (int i = 0; i < 2; i++)
		if (pcre2_match(tl->filter_re, (PCRE2_SPTR)s[i], PCRE2_ZERO_TERMINATED, 0, 0,
		                tl->filter_md, NULL) >= 0)
			return 1;
	return 0;
}

static void
add_lane(tl_ui *ui, ui_lane_type type, size_t ri, tl_lane_kind kind, size_t first, size_t count,
         uint8_t indent, const char *label)
{
	tl_timeline *tl = TIMELINE(ui);
	if (type != UL_HEADER && !filter_pass(tl, kind, label))
		return;
	ui_lane l = {.type = type,
	             .rank = ri,
	             .kind = kind,
	             .first = first,
	             .count = count,
	             .indent = indent};
	const tl_rank *r = ui->tr->ranks[ri];
	l.slot = type == UL_HEADER ? SLOT_RANK : lane_kind_slot(kind, r->tracks[first]->key);
	ui_clean(ui, label, l.label, sizeof l.label);
	VEC_PUSH(tl->lanes, tl->nlanes, tl->lcap, l);
}

void
lane_push(tl_ui *ui, ui_lane *l, const char *label)
{
	tl_timeline *tl = TIMELINE(ui);
	if (!filter_pass(tl, l->kind, label))
		return;
	ui_clean(ui, label, l->label, sizeof l->label);
	VEC_PUSH(tl->lanes, tl->nlanes, tl->lcap, *l);
}

/* ---- tl view --compare: B's lanes under A's ------------------------------------------------ */

static void
add_b_lane(tl_ui *ui, size_t ri, size_t bi, tl_lane_kind kind, size_t first, size_t count,
           const char *label)
{
	const tl_rank *r = ui->cmp->trb->ranks[bi];
	ui_lane l = {.type = UL_COMPARE,
	             .rank = ri,
	             .brank = bi,
	             .kind = kind,
	             .first = first,
	             .count = count,
	             .indent = 1,
	             .slot = lane_kind_slot(kind, r->tracks[first]->key)};
	lane_push(ui, &l, label);
}

/* B's lanes and the delta lane of A's rank ri, after A's lanes of it. */
static void
compare_add_lanes(tl_ui *ui, size_t ri)
{
	ui_compare *c = ui->cmp;
	if (c == NULL)
		return;
	ui_lane d = {.type = UL_DELTA,
	             .rank = ri,
	             .kind = TL_LANE_STAGE,
	             .indent = 1,
	             .slot = SLOT_LABEL,
	             .brank = c->brank[ri]};
	lane_push(ui, &d, ui->utf8 ? "\u0394 B\u2212A stages" : "delta B-A stages");
	size_t bi = c->brank[ri];
	if (bi == SIZE_MAX)
		return;
	const tl_rank *r = c->trb->ranks[bi];
	int show_overlap = TIMELINE(ui)->show_overlap;
	char label[128];
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
				snprintf(label, sizeof label, "%s (%zu)", lane_kind_name(t->kind),
				         nstreams);
			else
				snprintf(label, sizeof label, "%s", lane_kind_name(t->kind));
			add_b_lane(ui, ri, bi, t->kind, i, k - i, label);
			break;
		}
		case TL_LANE_STAGE:
		case TL_LANE_STEP:
			for (size_t j = i; j < k; j++) {
				snprintf(label, sizeof label, "%s%s", lane_kind_name(t->kind),
				         r->tracks[j]->depth ? " +" : "");
				add_b_lane(ui, ri, bi, t->kind, j, 1, label);
			}
			break;
		case TL_LANE_MSTX:
		case TL_LANE_COMM:
			for (size_t j = i; j < k; j++) {
				const char *l = strpool_get(r->pool, r->tracks[j]->label);
				if (r->tracks[j]->depth)
					snprintf(label, sizeof label, "%s %s +%u",
					         t->kind == TL_LANE_MSTX ? "mstx" : "comm", l,
					         (unsigned)r->tracks[j]->depth);
				else
					snprintf(label, sizeof label, "%s %s",
					         t->kind == TL_LANE_MSTX ? "mstx" : "comm", l);
				add_b_lane(ui, ri, bi, t->kind, j, 1, label);
			}
			break;
		case TL_LANE_OVERLAP: {
			/* the names of A's overlap lanes */
			static const char *const ovl[] = {"Computing", "Communication",
			                                  "Comm(Not Ovl)", "Free"};
			int64_t key = r->tracks[i]->key;
			if (show_overlap)
				for (size_t j = i; j < k; j++) {
					key = r->tracks[j]->key;
					add_b_lane(ui, ri, bi, t->kind, j, 1,
					           key >= 0 && key < 4 ? ovl[key] : "?");
				}
			break;
		}
		default: /* per-stream task lanes and host lanes: A's lanes have them */
			break;
		}
		i = k;
	}
}

static const char *
kind_prefix(tl_counter_kind k)
{
	switch (k) {
	case TL_CTR_FREQ:
		return ""; /* "AI Core freq" */
	case TL_CTR_OTHER:
		return "ctr ";
	default:
		return "mem ";
	}
}

/* U: the counter lanes of rank ri, after its tracks (the sparklines: timeline_counters.c). */
static void
counter_lanes(tl_ui *ui, size_t ri)
{
	tl_timeline *tl = TIMELINE(ui);
	if (!tl->show_counters)
		return;
	tl_counter *const *cs;
	size_t n = tlq_rank_counters(ui->q, ri, &cs);
	const tl_rank *r = ui->tr->ranks[ri];
	for (size_t i = 0; i < n; i++) {
		ui_lane l = {.type = UL_COUNTER,
		             .rank = ri,
		             .kind = TL_LANE__COUNT,
		             .slot = SLOT_COUNTER,
		             .indent = 1,
		             .ctr = i};
		l.ctr_peak = tlq_counter_peak(cs[i], &l.ctr_lo, &l.ctr_hi);
		/* a module whose memory never changes says nothing (a profile lists dozens) */
		if (l.ctr_peak == SIZE_MAX ||
		    (cs[i]->kind == TL_CTR_MODULE && l.ctr_lo == l.ctr_hi))
			continue;
		char name[128], label[160];
		snprintf(label, sizeof label, "%s%s", kind_prefix(cs[i]->kind),
		         tlq_counter_label(r, cs[i], name, sizeof name));
		lane_push(ui, &l, label);
	}
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

static int
rank_pinned(const tl_timeline *tl, size_t ri)
{
	for (size_t i = 0; i < tl->npinned; i++)
		if (tl->pinned[i] == ri)
			return 1;
	return 0;
}

int
lanes_pin_toggle(tl_ui *ui, size_t ri)
{
	tl_timeline *tl = TIMELINE(ui);
	for (size_t i = 0; i < tl->npinned; i++)
		if (tl->pinned[i] == ri) {
			memmove(&tl->pinned[i], &tl->pinned[i + 1],
			        (tl->npinned - i - 1) * sizeof *tl->pinned);
			tl->npinned--;
			timeline_rebuild_lanes(ui);
			rank_visible(ui);
			return 0;
		}
	tl->pinned = xreallocarray(tl->pinned, tl->npinned + 1, sizeof *tl->pinned);
	tl->pinned[tl->npinned++] = ri;
	timeline_rebuild_lanes(ui);
	rank_visible(ui);
	return 1;
}

int
lanes_filter_set(tl_ui *ui, const char *pattern, char *err, size_t errlen)
{
	tl_timeline *tl = TIMELINE(ui);
	pcre2_code *re = NULL;
	if (pattern && *pattern) {
		int ec, upper = 0;
		PCRE2_SIZE eo;
		for (const char *p = pattern; *p; p++)
			upper |= isupper((unsigned char)*p) != 0;
		re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
		                   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF |
		                       (upper ? 0 : PCRE2_CASELESS),
		                   &ec, &eo, NULL);
		if (re == NULL) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(ec, msg, sizeof msg);
			snprintf(err, errlen, "%s at offset %zu", (const char *)msg, (size_t)eo);
			return -1;
		}
	}
	pcre2_code_free(tl->filter_re);
	pcre2_match_data_free(tl->filter_md);
	free(tl->filter);
	tl->filter_re = re;
	tl->filter_md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
	tl->filter = re ? xstrdup(pattern) : NULL;
	timeline_rebuild_lanes(ui);
	rank_visible(ui);
	return 0;
}

void
lanes_free(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	pcre2_code_free(tl->filter_re);
	pcre2_match_data_free(tl->filter_md);
	free(tl->filter);
	free(tl->pinned);
	tl->filter = NULL;
	tl->filter_re = tl->filter_md = NULL;
	tl->pinned = NULL;
	tl->npinned = 0;
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
	/* the pinned ranks first, in the order pinned, then the others in rank order */
	for (size_t pos = 0; pos < tl->npinned + tr->nranks; pos++) {
		size_t ri = pos < tl->npinned ? tl->pinned[pos] : pos - tl->npinned;
		if (pos >= tl->npinned && rank_pinned(tl, ri))
			continue;
		const tl_rank *r = tr->ranks[ri];
		char label[128];
		const char *arrow = tl->rs[ri].collapsed ? (ui->utf8 ? "\u25b8" : "+")
		                                         : (ui->utf8 ? "\u25be" : "-");
		/* a rank still loading says so in its header row (timeline_draw.c) */
		int whole = tlq_slot(ui->q, ri) == TLQ_SLOT_FULL;
		snprintf(label, sizeof label, "%s rank %s%s%s%s", arrow, UI_RANK(r->rank),
		         r->role ? " " : "", r->role ? r->role : "",
		         !whole || rank_has_device(r) ? "" : " (no device)");
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
		counter_lanes(ui, ri);     /* U: memory and frequency counters */
		compare_add_lanes(ui, ri); /* --compare: B's lanes under A's */
	}
	tl->lane = 0;
	if (have_old) {
		size_t best = SIZE_MAX;
		for (size_t i = 0; i < tl->nlanes; i++) {
			const ui_lane *l = &tl->lanes[i];
			if (l->type == UL_COMPARE || l->type == UL_DELTA)
				continue; /* the other run's tracks */
			if (l->rank != old.rank)
				continue;
			if (best == SIZE_MAX)
				best = i; /* the rank's header */
			if (l->type == old.type && l->kind == old.kind && l->first == old.first &&
			    l->ctr == old.ctr) {
				best = i;
				break;
			}
		}
		if (best != SIZE_MAX)
			tl->lane = best;
	}
	if (tl->top > tl->lane)
		tl->top = tl->lane;
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
	if (tl->nlanes <= h)
		tl->top = 0; /* everything fits: no rank above the screen, no empty rows below */
}

void
rank_visible(tl_ui *ui)
{
	tl_timeline *tl = TIMELINE(ui);
	if (tl->lane >= tl->nlanes)
		return;
	size_t h = (size_t)(tl->lanes_h > 0 ? tl->lanes_h : 1);
	size_t ri = tl->lanes[tl->lane].rank, first = tl->lane, end = tl->lane + 1;
	while (first > 0 && tl->lanes[first - 1].rank == ri)
		first--;
	while (end < tl->nlanes && tl->lanes[end].rank == ri)
		end++;
	/* least movement: scroll only as far as the group (or as much of it from its header as
	 * fits) needs; when every lane fits, nothing scrolls */
	size_t want_end = end - first > h ? first + h : end;
	if (first < tl->top)
		tl->top = first;
	else if (want_end > tl->top + h)
		tl->top = want_end - h;
	lane_visible(ui);
}

void
rank_focus(tl_ui *ui, size_t ri)
{
	tl_timeline *tl = TIMELINE(ui);
	if (!tl->accordion || ri >= ui->tr->nranks || !tl->rs[ri].collapsed)
		return;
	for (size_t i = 0; i < ui->tr->nranks; i++)
		tl->rs[i].collapsed = i != ri;
	timeline_rebuild_lanes(ui);
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
	/* many ranks open one at a time: the one moved to, the others as header rows */
	size_t ri = tl->lanes[i].rank;
	if (tl->accordion && tl->rs[ri].collapsed) {
		rank_focus(ui, ri);
		for (i = 0; i < tl->nlanes && tl->lanes[i].rank != ri; i++)
			;
	}
	tl->lane = i;
	rank_visible(ui);
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
			/* A's tracks: never run B's lanes of --compare, which share the numbers */
			if (l->rank != ri || l->type == UL_HEADER || l->type >= UL_COMPARE)
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
		rank_focus(ui, ri);
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

size_t
timeline_rank_order(const tl_ui *ui, size_t *order)
{
	const tl_timeline *tl = TIMELINE(ui);
	size_t n = ui->tr->nranks, k = 0;
	unsigned char *in = xcalloc(n ? n : 1, 1);
	/* the ranks of the lanes on screen, top down; then the others */
	for (size_t li = tl->top; li < tl->nlanes && li < tl->top + (size_t)tl->lanes_h; li++) {
		size_t ri = tl->lanes[li].rank;
		if (tl->lanes[li].type != UL_COMPARE && ri < n && !in[ri]) {
			in[ri] = 1;
			order[k++] = ri;
		}
	}
	for (size_t ri = 0; ri < n; ri++)
		if (!in[ri])
			order[k++] = ri;
	free(in);
	return k;
}
