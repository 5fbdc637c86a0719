/* Links between slices on the lanes: from a device task to the host calls that launched it,
 * from a host call to the device work it launched, and from a forward operator to the backward
 * operator autograd ran for it (and back). The loader names the other ends (load_slice_links,
 * r->fwdbwd); these find them on the rank's lanes. */
#ifndef TL_QUERY_LINKS_H
#define TL_QUERY_LINKS_H
#include <stddef.h>
#include <stdint.h>

#include "load/load.h"
#include "model/trace.h"
#include "query/query.h"

/* A slice of a rank: slice idx of r->tracks[track]. */
typedef struct tlq_slice_pos {
	size_t track, idx;
} tlq_slice_pos;

/* The slices linked to slice idx of track ti of rank ri in direction dir, in the order
 * tl_link_dir gives (the launch call, then the operator; or the tasks by start). Reads the
 * host lanes first when an end lies on them (tlq_host_lanes: r->tracks may be reordered then,
 * so the track is named by index before and the answer by index after). *out the caller's;
 * *named (may be NULL) gets how many ends the source named, found or not. Returns the count
 * found, -1 when the source could not be read. */
ptrdiff_t tlq_links(const tl_query *, size_t ri, const tl_track *t, size_t idx, tl_link_dir dir,
                    tlq_slice_pos **out, size_t *named);

/* The forward/backward partner of host slice idx of t on rank ri: the backward operator of a
 * forward one, the forward operator of a backward one (the rank's operator pairs, read on
 * first use). Returns 1 with *out, 0 when the slice is in no pair (or its partner is not on
 * the lanes: *why says which, when not NULL). */
int tlq_fwdbwd_partner(const tl_query *, size_t ri, const tl_track *t, size_t idx,
                       tlq_slice_pos *out, const char **why);

/* The detail pane's link lines of a slice of a JSON trace through fn (as tlq_slice_links
 * gives a DB's): "launched by" and "launch delay" for device work, "called by" for a launch
 * call, "kernels" for a host call or operator. Ends on lanes not loaded are not named. Returns
 * the lines added; 0 for DB slices. */
int tlq_slice_flow_lines(const tl_rank *, const tl_track *, size_t idx,
                         void (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* Rank ri's link index (load_link_index), built on the first call, kept by the session. */
const tl_link_index *tlq_link_index(const tl_query *, size_t ri);

/* Finds one end on r's lanes: 1 with *out, 0 when no slice matches. */
int tlq_link_find(const tl_rank *, const tl_link_end *, tlq_slice_pos *out);

#endif
