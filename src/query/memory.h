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

/* An allocation of OP_MEMORY (torch_npu's per-tensor lifetimes, with profile_memory). */
typedef tl_alloc tlq_alloc;

/* The largest allocations of r live at time t (allocated at or before t, released after t or
 * never), largest first, at most max; *out is the caller's. -1 when a source could not be
 * read. */
ptrdiff_t tlq_live_allocations(const tl_rank *, int64_t t, size_t max, tlq_alloc **out);

#endif
