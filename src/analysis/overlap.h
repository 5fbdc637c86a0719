/* Overlap analysis: computing / communication / overlapped / not overlapped / free / preparing,
 * with torch_npu's StepTraceTime definitions (docs/summary.md, "What tl summary computes"):
 * computing = |union of compute kernels|, communication = |union of communication ops|,
 * overlapped = |compute ∩ comm|, free = (last busy end - first busy start) - |compute ∪ comm|,
 * preparing = first busy start - step start. */
#ifndef TL_OVERLAP_H
#define TL_OVERLAP_H
#include "model/trace.h"

typedef struct tl_overlap {
	int64_t computing, communication, overlapped, comm_not_overlapped, free, preparing;
	int64_t first_busy, last_busy; /* envelope of compute ∪ comm; first > last when idle */
} tl_overlap;

/* A sorted stream of disjoint intervals: the union of the slices of every track of one lane
 * kind, optionally only those tagged with one step, clipped to [t0, t1). */
typedef struct tl_union_iter {
	const tl_track **tracks;
	size_t *pos;
	tl_step_cursor *sc; /* per track: its step tags at pos */
	size_t *ok;         /* per track: its slices from pos to this pass the step filter */
	size_t ntracks;
	uint16_t step; /* TL_NO_STEP = every slice */
	int64_t t0, t1;
	int64_t cur_s, cur_e; /* pending merged interval */
	int have_cur, done;
	size_t run;      /* the track the last slice came from (SIZE_MAX: none) */
	int64_t run_lim; /* it goes on while its slices start before this */
} tl_union_iter;

void union_iter_init(tl_union_iter *, const tl_rank *, tl_lane_kind, uint16_t step, int64_t t0,
                     int64_t t1);
/* Next merged interval; returns 0 at the end. */
int union_iter_next(tl_union_iter *, int64_t *s, int64_t *e);
void union_iter_done(tl_union_iter *);

/* Overlap breakdown of the work of `step` (TL_NO_STEP: all work) inside [t0, t1). preparing is
 * measured from `prep_from` (the step start), or 0 when prep_from is INT64_MIN. */
void overlap_compute(const tl_rank *, uint16_t step, int64_t t0, int64_t t1, int64_t prep_from,
                     tl_overlap *out);

#endif
