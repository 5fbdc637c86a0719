#include "config.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <stdlib.h>

static size_t
mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

/* The mask is at least 63: a run's block of 8 stays whole. */
static size_t
slot_of(const tl_u64map *m, uint64_t k)
{
	if (m->runs)
		return (mix(k >> 3) << 3 | (size_t)(k & 7)) & m->mask;
	return mix(k) & m->mask;
}

void
u64map_init(tl_u64map *m)
{
	m->mask = 63;
	m->n = 0;
	m->keys = xcalloc(m->mask + 1, sizeof *m->keys);
	m->vals = xcalloc(m->mask + 1, sizeof *m->vals);
	m->used = xcalloc(m->mask + 1, 1);
	m->runs = 0;
}

void
u64map_init_runs(tl_u64map *m)
{
	u64map_init(m);
	m->runs = 1;
}

void
u64map_free(tl_u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->n = 0;
}

static void
grow(tl_u64map *m)
{
	tl_u64map o = *m;
	m->mask = o.mask * 2 + 1;
	m->n = 0;
	m->keys = xcalloc(m->mask + 1, sizeof *m->keys);
	m->vals = xcalloc(m->mask + 1, sizeof *m->vals);
	m->used = xcalloc(m->mask + 1, 1);
	for (size_t i = 0; i <= o.mask; i++)
		if (o.used[i])
			u64map_put(m, o.keys[i], o.vals[i]);
	u64map_free(&o);
}

void
u64map_put(tl_u64map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->mask + 1)
		grow(m);
	size_t i = slot_of(m, key);
	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & m->mask;
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->n++;
	}
	m->vals[i] = val;
}

int
u64map_get(const tl_u64map *m, uint64_t key, uint32_t *val)
{
	size_t i = slot_of(m, key);
	while (m->used[i]) {
		if (m->keys[i] == key) {
			if (val)
				*val = m->vals[i];
			return 1;
		}
		i = (i + 1) & m->mask;
	}
	return 0;
}
