#include "config.h"
#include "util/strpool.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Strings live in large chunks so that pointers stay valid as the pool grows. */
#define CHUNK_SIZE (256 * 1024)

struct tl_strpool {
	char **chunks;
	size_t nchunks, chunkcap;
	size_t chunk_used; /* bytes used in the last chunk */
	const char **str;  /* id -> string */
	uint32_t *len;     /* id -> length */
	uint32_t n, cap;
	uint32_t *table; /* open addressing, holds id+1, 0 = empty */
	uint32_t tmask;
	size_t bytes;
};

static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t h = util_hash_bytes(s, n);
	return h ^ (h >> 29); /* the table takes the low bits */
}

static const char *
pool_store(tl_strpool *p, const char *s, size_t len)
{
	size_t need = len + 1;
	char *dst;
	if (need > CHUNK_SIZE / 4) {
		/* big strings get their own chunk, inserted before the current one */
		VEC_RESERVE(p->chunks, p->chunkcap, p->nchunks + 1);
		dst = xmalloc(need);
		if (p->nchunks > 0) {
			p->chunks[p->nchunks] = p->chunks[p->nchunks - 1];
			p->chunks[p->nchunks - 1] = dst;
		} else {
			p->chunks[0] = dst;
			p->chunk_used = CHUNK_SIZE; /* force a fresh chunk next time */
		}
		p->nchunks++;
	} else {
		if (p->nchunks == 0 || p->chunk_used + need > CHUNK_SIZE) {
			VEC_RESERVE(p->chunks, p->chunkcap, p->nchunks + 1);
			p->chunks[p->nchunks++] = xmalloc(CHUNK_SIZE);
			p->chunk_used = 0;
		}
		dst = p->chunks[p->nchunks - 1] + p->chunk_used;
		p->chunk_used += need;
	}
	memcpy(dst, s, len);
	dst[len] = '\0';
	p->bytes += need;
	return dst;
}

static void
pool_rehash(tl_strpool *p, uint32_t size)
{
	free(p->table);
	p->table = xcalloc(size, sizeof *p->table);
	p->tmask = size - 1;
	for (uint32_t id = 0; id < p->n; id++) {
		uint64_t h = hash_bytes(p->str[id], p->len[id]);
		uint32_t i = (uint32_t)h & p->tmask;
		while (p->table[i] != 0)
			i = (i + 1) & p->tmask;
		p->table[i] = id + 1;
	}
}

tl_strpool *
strpool_new(void)
{
	tl_strpool *p = xcalloc(1, sizeof *p);
	pool_rehash(p, 1024);
	strpool_intern(p, "", 0);
	return p;
}

void
strpool_free(tl_strpool *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	free(p->str);
	free(p->len);
	free(p->table);
	free(p);
}

uint32_t
strpool_find(const tl_strpool *p, const char *s, size_t len)
{
	uint32_t i = (uint32_t)hash_bytes(s, len) & p->tmask;
	while (p->table[i] != 0) {
		uint32_t id = p->table[i] - 1;
		if (p->len[id] == len && memcmp(p->str[id], s, len) == 0)
			return id;
		i = (i + 1) & p->tmask;
	}
	return UINT32_MAX;
}

uint32_t
strpool_intern(tl_strpool *p, const char *s, size_t len)
{
	uint32_t i = (uint32_t)hash_bytes(s, len) & p->tmask;
	while (p->table[i] != 0) {
		uint32_t id = p->table[i] - 1;
		if (p->len[id] == len && memcmp(p->str[id], s, len) == 0)
			return id;
		i = (i + 1) & p->tmask;
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 1024;
		p->str = xreallocarray(p->str, p->cap, sizeof *p->str);
		p->len = xreallocarray(p->len, p->cap, sizeof *p->len);
	}
	uint32_t id = p->n++;
	p->str[id] = pool_store(p, s, len);
	p->len[id] = (uint32_t)len;
	p->table[i] = id + 1;
	if ((uint64_t)p->n * 2 > (uint64_t)p->tmask + 1)
		pool_rehash(p, (p->tmask + 1) * 2);
	return id;
}

uint32_t
strpool_intern_cstr(tl_strpool *p, const char *s)
{
	return strpool_intern(p, s, strlen(s));
}

const char *
strpool_get(const tl_strpool *p, uint32_t id)
{
	return id < p->n ? p->str[id] : "";
}

size_t
strpool_len(const tl_strpool *p, uint32_t id)
{
	return id < p->n ? p->len[id] : 0;
}

tl_strpool *
strpool_view(const tl_strpool *p)
{
	tl_strpool *v = xcalloc(1, sizeof *v); /* no chunks of its own, no table */
	size_t n = p->n ? p->n : 1;
	v->str = xreallocarray(NULL, n, sizeof *v->str);
	v->len = xreallocarray(NULL, n, sizeof *v->len);
	if (p->n > 0) {
		memcpy(v->str, p->str, p->n * sizeof *v->str);
		memcpy(v->len, p->len, p->n * sizeof *v->len);
	}
	v->n = v->cap = p->n;
	return v;
}

uint32_t
strpool_count(const tl_strpool *p)
{
	return p->n;
}
