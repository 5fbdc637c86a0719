/* A time kept as an int32 offset from a base time the caller holds beside it (a CANN call's
 * first device start from the call's own start: 4 bytes a call, not 8), the rare time past the
 * offset's reach kept aside by its slot. The Ascend DB readers' call tables: the gather's while
 * a rank is loaded (ascend_db_gather.c: a call's start from its block's, its first task's from
 * the call's) and the critical path's read of a crossed rank's launches (ascend_db_host.c).
 * Inline: the gather calls it for every TASK row. */
#ifndef TL_UTIL_OFF32_H
#define TL_UTIL_OFF32_H
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/u64map.h"
#include "util/xalloc.h"

#define OFF32_NONE INT32_MAX /* no time yet */
#define OFF32_WIDE INT32_MIN /* the time is in the side table, by slot */

/* The times the offsets cannot hold: slot -> index into v. */
typedef struct off32_wide {
	tl_u64map slot;
	int64_t *v;
	size_t n, cap;
} off32_wide;

static inline void
off32_wide_init(off32_wide *w)
{
	w->v = NULL;
	w->n = w->cap = 0;
	u64map_init(&w->slot);
}

static inline void
off32_wide_free(off32_wide *w)
{
	u64map_free(&w->slot);
	free(w->v);
	w->v = NULL;
	w->n = w->cap = 0;
}

/* Slot k's time in *t when it is kept aside; 0 when it is not (a slot past 2^32 of them). */
static inline int
off32_wide_get(const off32_wide *w, size_t k, int64_t *t)
{
	uint32_t i;
	if (!u64map_get(&w->slot, k, &i))
		return 0;
	*t = w->v[i];
	return 1;
}

/* The time of slot k, whose offset is o from base; INT64_MAX when it has none. */
static inline int64_t
off32_get(int32_t o, int64_t base, const off32_wide *w, size_t k)
{
	int64_t t;
	if (o == OFF32_NONE)
		return INT64_MAX;
	if (o != OFF32_WIDE)
		return base + o;
	return off32_wide_get(w, k, &t) ? t : INT64_MAX;
}

/* Slot k's time becomes t (t - base must not overflow: model times): *o its offset, or
 * OFF32_WIDE and t aside. Past 2^32 wide slots a slot keeps what it had. */
static inline void
off32_set(int32_t *o, int64_t base, int64_t t, off32_wide *w, size_t k)
{
	int64_t d = t - base;
	uint32_t i;
	if (d > INT32_MIN && d < INT32_MAX) {
		*o = (int32_t)d;
	} else if (*o == OFF32_WIDE && u64map_get(&w->slot, k, &i)) {
		w->v[i] = t;
	} else if (w->n < UINT32_MAX) {
		*o = OFF32_WIDE;
		VEC_PUSH(w->v, w->n, w->cap, t);
		u64map_put(&w->slot, k, (uint32_t)(w->n - 1));
	}
}

#endif
