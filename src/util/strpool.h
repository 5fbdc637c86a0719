/* String interning: each distinct string gets a dense uint32 id. One pool per rank (loaded by
 * one thread, so no locking). Id 0 is always the empty string. */
#ifndef TL_STRPOOL_H
#define TL_STRPOOL_H
#include <stddef.h>
#include <stdint.h>

typedef struct tl_strpool tl_strpool;

tl_strpool *strpool_new(void);
void strpool_free(tl_strpool *);
uint32_t strpool_intern(tl_strpool *, const char *s, size_t len);
uint32_t strpool_intern_cstr(tl_strpool *, const char *s);
/* Returns the id of s or UINT32_MAX when s is not in the pool. */
uint32_t strpool_find(const tl_strpool *, const char *s, size_t len);
const char *strpool_get(const tl_strpool *, uint32_t id); /* borrowed; lives as long as the pool */
size_t strpool_len(const tl_strpool *, uint32_t id);
uint32_t strpool_count(const tl_strpool *);

#endif
