/* Bubble attribution (msprof-analyze's free_analysis, with the enclosing stage): the largest Free
 * intervals of a rank -- gaps in the union of compute kernels and communication ops between its
 * first and last busy instant, as the overlap lanes define Free -- each with the stage and step
 * that enclose it and why the device was idle. */
#ifndef TL_BUBBLES_H
#define TL_BUBBLES_H
#include <stddef.h>
#include <stdint.h>

#include "analysis/stages.h"
#include "model/trace.h"

typedef enum tl_bubble_reason {
	/* device tasks that wait (event / notify waits, HCCL sub-tasks outside any op) fill at
	 * least half the gap: the stream was held for a collective */
	TL_BUBBLE_COLLECTIVE_WAIT,
	/* a host range (MSTX / record_function), or the device part of a range given a stream,
	 * spans the whole gap: the framework was inside it but launched no device work */
	TL_BUBBLE_LAUNCH_GAP,
	/* neither: nothing was scheduled (between stages, waiting for the controller) */
	TL_BUBBLE_NOTHING,
} tl_bubble_reason;

/* "collective_wait", "host_launch_gap", "nothing_scheduled" (the JSON values) */
const char *bubble_reason_name(tl_bubble_reason);

typedef struct tl_rl_bubble {
	size_t rank;        /* index into the trace's ranks */
	int64_t start, end; /* ns */
	int64_t step;       /* STEP_TIME id containing the whole gap, -1 */
	int between_steps;  /* step is -1 on a rank that has steps: the gap lies between them
	                       (or before the first, after the last), not in a profile without
	                       steps */
	int stage;          /* the innermost stage instance enclosing the whole gap, or
	                       TL_STAGE_NONE (the detail then names the stages around it) */
	tl_bubble_reason reason;
	char detail[224]; /* the evidence, for people (range names sanitized by the reader) */
} tl_rl_bubble;

/* The step of a bubble as people read it: "12", "between steps", or none_text on a rank
 * without steps. Returns buf. */
char *bubble_step_text(const tl_rl_bubble *, const char *none_text, char *buf, size_t len);

/* An idle gap [start, end) of a rank: a Free interval, before it is attributed. */
typedef struct tl_gap {
	int64_t start, end;
} tl_gap;

/* The max (>= 1) longest idle gaps of r, longest first (ties: earlier first), not attributed.
 * They are read from the rank's Free overlap lane when lanes_build_rank has made the overlap
 * lanes (lanes.c computes Free from the same unions, so the intervals are the same), else
 * computed here from the unions of compute and communication. Returns the count; *out is the
 * caller's. */
size_t bubble_gaps_of_rank(const tl_rank *r, size_t max, tl_gap **out);

/* The same gaps, in the same order, one at a time (bubble_gaps.c): from the Free lane's level
 * of detail when the lane has one (each gap in O(LOD_B log n), no walk over the lane), else
 * from bubble_gaps_of_rank's list. */
typedef struct bubble_run {
	size_t a, b, idx; /* Free slices [a, b); idx: the longest of them */
	int64_t dur;
} bubble_run;
typedef struct bubble_gaps_iter {
	const tl_track *free; /* the Free lane, NULL: from list */
	bubble_run *h;        /* a heap of runs, the one with the longest slice first */
	size_t n, cap;
	tl_gap *list;
	size_t nlist, given, max;
} bubble_gaps_iter;
void bubble_gaps_iter_init(bubble_gaps_iter *, const tl_rank *r, size_t max);
/* Whether bubble_gaps_iter_init reads r's gaps lazily from its Free lane's level of detail
 * (else it asks bubble_gaps_of_rank for a list). */
int bubble_gaps_iter_lazy(const tl_rank *r);
/* The iterator over a list of n gaps from bubble_gaps_of_rank(r, max) (or a longer list of
 * that order): the list becomes the iterator's. */
void bubble_gaps_iter_init_list(bubble_gaps_iter *, tl_gap *list, size_t n, size_t max);
/* 1 with the next gap in *out, 0 when there is none (or max were given). */
int bubble_gaps_iter_next(bubble_gaps_iter *, tl_gap *out);
void bubble_gaps_iter_free(bubble_gaps_iter *);

/* Attributes the gap [b->start, b->end) of r (trace index b->rank): sets b->step, b->stage,
 * b->reason and b->detail. inst: the rank's stage instances (stages_of_rank). Every bubble that
 * `tl summary` or the viewer shows is attributed here and nowhere else. */
void bubble_attribute(const tl_rank *r, const tl_stage_inst *inst, size_t ninst, tl_rl_bubble *b);
/* Its first part, O(log steps): b->step and b->between_steps only. */
void bubble_attribute_step(const tl_rank *r, tl_rl_bubble *b);

/* The max (>= 1) longest bubbles of r (trace index ri), longest first (ties: earlier first),
 * attributed: bubble_gaps_of_rank, then bubble_attribute on each. inst: the rank's stage
 * instances (stages_of_rank). Returns the count; *out is the caller's. */
size_t bubbles_of_rank(const tl_rank *r, size_t ri, const tl_stage_inst *inst, size_t ninst,
                       size_t max, tl_rl_bubble **out);
/* Its second half: the n gaps g of r attributed, in their order. *out is the caller's. */
void bubbles_of_gaps(const tl_rank *r, size_t ri, const tl_stage_inst *inst, size_t ninst,
                     const tl_gap *g, size_t n, tl_rl_bubble **out);

#endif
