/* The session's side of the background populate (query/prefault.h): the ranks and the memory
 * there is, handed to the store's thread (store/prefault.c). */
#include "config.h"
#include "query/prefault.h"
#include "load/load.h"

tl_prefault *
tlq_prefault_start(const tl_query *q, const size_t *order, size_t n, tl_prefault_stats *st)
{
	const tl_trace *tr = tlq_trace(q);
	*st = (tl_prefault_stats){0};
	if (tlq_loading(q, NULL, NULL))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (order[i] >= tr->nranks)
			return NULL;
	return prefault_start((const tl_rank *const *)tr->ranks, order, n, load_mem_available(),
	                      st);
}
