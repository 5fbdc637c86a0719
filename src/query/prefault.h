/* The viewer's background populate of the mapped cache files (store/prefault.h says what and
 * why), over the session's ranks. */
#ifndef TL_QUERY_PREFAULT_H
#define TL_QUERY_PREFAULT_H
#include <stddef.h>

#include "store/prefault.h"
#include "query/query.h"

/* Starts it over the session's ranks (order: indexes into its trace's ranks, the visible ones
 * first; n of them), once the load has ended (tlq_loading says 0): the ranks must not change
 * until prefault_stop, which must come before tlq_close. *st: what it will do; NULL:
 * nothing (still loading, no rank mapped, or TL_PREFAULT=0). */
tl_prefault *tlq_prefault_start(const tl_query *, const size_t *order, size_t n,
                                tl_prefault_stats *st);
/* The rest is the populate's own (store/prefault.h): prefault_wait, prefault_stats and
 * prefault_stop, which the viewer calls directly. */
#endif
