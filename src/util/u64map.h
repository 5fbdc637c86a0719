/* Open-addressing hash map from uint64_t keys to uint32_t values (also used as a set). */
#ifndef TL_U64MAP_H
#define TL_U64MAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct tl_u64map {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t n, mask;
	int runs; /* u64map_init_runs */
} tl_u64map;

void u64map_init(tl_u64map *);
/* A map whose keys mostly come in runs of neighbours (ids, correlations counting up), looked up
 * in about the order they were put: 8 neighbouring keys keep to 8 neighbouring slots, so that
 * a run of lookups shares cache lines (a plain map scatters them: a cache miss each). */
void u64map_init_runs(tl_u64map *);
void u64map_free(tl_u64map *);
void u64map_put(tl_u64map *, uint64_t key, uint32_t val);
/* Returns 1 and sets *val when key is present. val may be NULL. */
int u64map_get(const tl_u64map *, uint64_t key, uint32_t *val);

#endif
