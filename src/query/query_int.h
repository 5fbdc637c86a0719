/* What the query files share with each other and nothing else: the RL context's parts that
 * another file's analysis reads, and the caches it hangs on the context. */
#ifndef TL_QUERY_INT_H
#define TL_QUERY_INT_H
#include "query/query.h"

const tl_trace *rl_trace(const tl_rl *);
const tl_stage_rules *rl_rules(const tl_rl *);

/* query_dp.c's cache, made on first use, freed with the context. */
struct tl_dp_cache;
struct tl_dp_cache **rl_dp_slot(tl_rl *);
void dp_cache_free(struct tl_dp_cache *);

#endif
