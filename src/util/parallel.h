/* One parallel-for for the whole program: ranks load, build their lanes, answer queries and
 * are generated in parallel through it. */
#ifndef TL_PARALLEL_H
#define TL_PARALLEL_H
#include <stddef.h>

/* Runs fn(arg, i) for every i in [0, n), handed out one at a time in order to up to `threads`
 * threads (0: one per online core; never more than n), the calling thread among them. A
 * thread that cannot be started leaves its share to the others. Returns when every item is
 * done. fn must touch only what belongs to item i. */
void parallel_for(size_t n, int threads, void (*fn)(void *arg, size_t i), void *arg);
/* The threads parallel_for(n, threads, ...) runs on for n large enough. */
size_t parallel_threads(int threads);

#endif
