/* One clock for the cluster: each host's profiler writes times on its own clock, so a rank's
 * times are moved onto the reference host's (tl_clock, the correction load_clock found for its
 * host) before any analysis compares them with another rank's. Everything the rank holds and
 * everything read from its files on demand is moved the same way; the files themselves keep
 * the raw times (clock_unmap gives them back, for the detail pane and for asking a file). */
#ifndef TL_CLOCK_H
#define TL_CLOCK_H
#include <stddef.h>
#include <stdint.h>

#include "model/comm.h"
#include "model/modules.h"
#include "model/ops.h"
#include "model/trace.h"

/* Raw time t of the rank's host -> the reference clock. Monotone (|drift| < 1), kept within
 * TL_TIME_*: sorted slices stay sorted and disjoint ones disjoint. */
int64_t clock_map(const tl_clock *, int64_t t);
/* The reference clock -> the raw time of the host (clock_map's inverse, to the ns). */
int64_t clock_unmap(const tl_clock *, int64_t t);

/* Moves every time r holds (lanes, copying borrowed ones first; steps, operator pairs, device
 * spans, counters, gathered tables, its envelope) by c and records c in r->clock. Once.
 * in_place: what r borrows is writable memory of its own (its private mapping of a cache file,
 * made writable by the caller): moved where it lies, which copies only the pages it writes. */
void rank_clock_apply(tl_rank *r, const tl_clock *c, int in_place);
/* The same for what is read from the rank's files on demand. */
void clock_map_comm(const tl_clock *, tl_comm_data *);
void clock_map_ops(const tl_clock *, tl_op_data *);
void clock_map_modules(const tl_clock *, tl_module_data *);
void clock_map_launches(const tl_clock *, tl_launch *v, size_t n);
void clock_map_track_from(const tl_clock *, tl_track *t, size_t from);
void clock_map_counter(const tl_clock *, tl_counter *c);

#endif
