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
/* A frozen view of p's strings as they are now, for a reader on another thread while p's owner
 * goes on adding to p (a string never moves: it lives in p's chunks, which the view borrows).
 * It answers strpool_get, strpool_len and strpool_count only (ids added to p after it: ""),
 * lives no longer than p, and is freed with strpool_free (which leaves p's strings be). */
tl_strpool *strpool_view(const tl_strpool *p);

#endif
