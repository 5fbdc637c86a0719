/* The viewer's background populate of the mapped cache files (load/prefault.h says what and
 * why), over the session's ranks. */
#ifndef TL_QUERY_PREFAULT_H
#define TL_QUERY_PREFAULT_H
#include <stddef.h>

#include "load/prefault.h"
#include "query/query.h"

/* Starts it over the session's ranks (order: indexes into its trace's ranks, the visible ones
 * first; n of them), once the load has ended (tlq_loading says 0): the ranks must not change
 * until tlq_prefault_stop, which must come before tlq_close. *st: what it will do; NULL:
 * nothing (still loading, no rank mapped, or TL_PREFAULT=0). */
tl_prefault *tlq_prefault_start(const tl_query *, const size_t *order, size_t n,
                                tl_prefault_stats *st);
/* Waits until it is done (script mode). */
void tlq_prefault_wait(tl_prefault *);
/* Where it is (NULL: *st is left as it is). */
void tlq_prefault_stats(tl_prefault *, tl_prefault_stats *st);
/* Stops it at once and frees it (NULL allowed). */
void tlq_prefault_stop(tl_prefault *);

#endif
