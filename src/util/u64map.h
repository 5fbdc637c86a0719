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
} tl_u64map;

void u64map_init(tl_u64map *);
void u64map_free(tl_u64map *);
void u64map_put(tl_u64map *, uint64_t key, uint32_t val);
/* Returns 1 and sets *val when key is present. val may be NULL. */
int u64map_get(const tl_u64map *, uint64_t key, uint32_t *val);

#endif
