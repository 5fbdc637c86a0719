/* Background populate of the mapped cache files' page tables (prefault.c): a warm open maps
 * each rank's cache file without MAP_POPULATE (its first frame touches a small part of it), so
 * a later key that walks much data once (a jump to another rank, a bubble) would fault its
 * pages in one by one inside a frame. After the first frame the viewer starts this thread: at
 * the lowest priority it asks the kernel to fill the page tables (MADV_POPULATE_READ), rank by
 * rank in the order given (the visible ranks first), first every rank's level-of-detail arrays
 * (what a zoomed-out frame reads), then the whole files; only the level of detail when the
 * mapped files together are larger than the memory available (the kernel must stay free to
 * drop their pages). Ranks that are not mapped (--no-cache, a cache miss) are skipped.
 * TL_PREFAULT=0 turns it off, TL_PREFAULT=lod keeps it to the level of detail. */
#ifndef TL_LOAD_PREFAULT_H
#define TL_LOAD_PREFAULT_H
#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

typedef struct tl_prefault tl_prefault;

typedef enum tl_prefault_mode {
	TL_PREFAULT_OFF,  /* TL_PREFAULT=0, or no rank is mapped: no thread */
	TL_PREFAULT_LOD,  /* the level-of-detail arrays only (the files are larger than memory) */
	TL_PREFAULT_FULL, /* the level of detail, then the whole files */
} tl_prefault_mode;

typedef struct tl_prefault_stats {
	tl_prefault_mode mode;
	size_t ranks, mapped; /* ranks given, of them mapped */
	uint64_t bytes_mapped, bytes_todo, bytes_done;
	int done;     /* every range was asked for */
	int stopped;  /* prefault_stop came first */
	int fallback; /* MADV_POPULATE_READ refused (Linux < 5.14): MADV_WILLNEED instead */
	int64_t ms;   /* from the start to done (or to the stop) */
} tl_prefault_stats;

/* Starts populating ranks[order[0]], ranks[order[1]], ... (n of them); avail: the bytes the
 * system can give (load_mem_available). The ranks and their mappings must stay until
 * prefault_stop. *st gets what it will do; NULL: nothing (no rank mapped, or TL_PREFAULT=0). */
tl_prefault *prefault_start(const tl_rank *const *ranks, const size_t *order, size_t n,
                            uint64_t avail, tl_prefault_stats *st);
/* Waits until every range was asked for (script mode, before its next key). */
void prefault_wait(tl_prefault *);
/* Where it is (NULL: nothing is changed). */
void prefault_stats(tl_prefault *, tl_prefault_stats *);
/* Stops it at once (between two chunks of a megabyte) and frees it; NULL is allowed. */
void prefault_stop(tl_prefault *);

#endif
