/* Memory queries: counters (read on demand), their peaks and where in the run they fall. */
#ifndef TL_QUERY_MEMORY_H
#define TL_QUERY_MEMORY_H
#include <stddef.h>
#include <stdint.h>

#include "analysis/memory.h"
#include "load/load.h"
#include "model/trace.h"
#include "query/query.h"

/* Reads the counters of every rank that has not got them (DB memory and frequency tables),
 * ranks in parallel. The ranks' counter lists are a cache filled on first use. */
void tlq_counters(const tl_query *);

/* Rank index ri's allocator peaks per component and NPU memory peaks per type
 * (analysis/memory.h) from its counters, which are read first when they are not yet
 * (tlq_counters); *out is the caller's. */
size_t tlq_memory_peaks(const tl_query *, size_t ri, tl_mem_peak **out);
size_t tlq_npu_memory_peaks(const tl_query *, size_t ri, tl_npu_mem_peak **out);

/* The stage whose host range holds t on rank index ri (the innermost when stages nest), or
 * NULL. */
const char *tlq_stage_at(const tl_query *, size_t ri, int64_t t);

/* ---- counter lanes ----
 * A counter's value holds from its sample until the next sample; the last one holds until
 * `end` (the rank's end, r->t_max: a counter records its changes) or its own time when later. */

/* The counters of rank index ri (read first when they are not yet, tlq_counters), by kind then
 * group; *out points into the rank. */
size_t tlq_rank_counters(const tl_query *, size_t ri, tl_counter *const **out);
/* "PTA allocated", "app HBM", "module SLOG", "AI Core freq", or a trace's counter name. */
const char *tlq_counter_label(const tl_rank *, const tl_counter *, char *buf, size_t len);
/* v in the counter's unit: "1.16 GiB", "1800 MHz", "12.5 MB/s". */
const char *tlq_counter_value(const tl_rank *, const tl_counter *, int64_t v, char *buf,
                              size_t len);
/* Per column c of ncols ([edges[c], edges[c + 1])): the highest value the counter has in it
 * (the samples in the column, and the value held from before the column when no sample sits
 * on its first instant); have[c] 0 when it has none there. */
void tlq_counter_columns(const tl_counter *, int64_t end, const int64_t *edges, int ncols,
                         int64_t *max, unsigned char *have);
/* The value at time t (the last sample at or before t, while a later one follows or t is at or
 * before end): 1 with *v, 0 outside. */
int tlq_counter_at(const tl_counter *, int64_t end, int64_t t, int64_t *v);
/* The index of the peak sample (the highest value, the first that has it), SIZE_MAX when the
 * counter has none; and the lowest value (*lo) and the peak (*hi). */
size_t tlq_counter_peak(const tl_counter *, int64_t *lo, int64_t *hi);

/* An allocation of OP_MEMORY (torch_npu's per-tensor lifetimes, with profile_memory). */
typedef tl_alloc tlq_alloc;

/* The largest allocations of r live at time t (allocated at or before t, released after t or
 * never), largest first, at most max; *out is the caller's. -1 when a source could not be
 * read. */
ptrdiff_t tlq_live_allocations(const tl_rank *, int64_t t, size_t max, tlq_alloc **out);

#endif
