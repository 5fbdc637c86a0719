/* Derived overlap lanes (as MindStudio Insight's OVERLAP_ANALYSIS lane draws
 * them): per rank four TL_LANE_OVERLAP tracks built from the unions of compute and
 * communication work, keyed
 *   0 Computing                      = union of compute kernels
 *   1 Communication                  = union of communication ops
 *   2 Communication(Not Overlapped)  = communication minus computing
 *   3 Free                           = gaps of (computing ∪ communication) between the first and
 *                                      the last busy instant (StepTraceTime's free; leading and
 *                                      trailing idle time are not bubbles)
 * The Free intervals are the bubbles the viewer paints and jumps between. A rank whose profile
 * has its own overlap analysis (rank->own_overlap: a DB's OVERLAP_ANALYSIS) has those lanes
 * instead, loaded; its free is then its Free lane's time, which spans the device's tasks. */
#ifndef TL_LANES_H
#define TL_LANES_H
#include "analysis/overlap.h"
#include "model/trace.h"

enum {
	TL_OVL_COMPUTING = 0,
	TL_OVL_COMMUNICATION = 1,
	TL_OVL_COMM_EXPOSED = 2,
	TL_OVL_FREE = 3,
	TL_OVL__COUNT
};

/* Display names of the four lanes ("Computing", ...). */
const char *lanes_overlap_name(int key);

/* Adds the four overlap tracks to r unless it has them already (idempotent). The tracks are
 * owned by the rank like any other and keep the rank's track order. */
void lanes_build_rank(tl_rank *r);
/* 0 when r's overlap lanes are exactly what lanes_build_rank makes of its slices (or it has
 * none), -1 otherwise: the check of a cache file's stored lanes, in one pass over the compute
 * and communication slices without allocating. */
int lanes_check_rank(const tl_rank *r);
/* The same for every rank of the trace, ranks in parallel (threads = 0: one per core). */
void lanes_build(tl_trace *tr, int threads);
/* The overlap track `key` of r, or NULL when lanes_build_rank has not run (or it is empty). */
tl_track *lanes_overlap_track(const tl_rank *r, int key);

/* overlap_compute(r, TL_NO_STEP, t0, t1, prep_from, o) from the four lanes instead of a union
 * walk over every compute and communication slice: the same numbers (the lanes are those
 * unions), at the cost of the lanes' intervals inside the window (a lookup with a level of
 * detail). A step's figures too, when no slice of another step meets the window. Returns -1
 * when r has no overlap lanes (lanes_build_rank has not run), 0 when *o is set. */
int lanes_overlap(const tl_rank *r, int64_t t0, int64_t t1, int64_t prep_from, tl_overlap *o);

#endif
