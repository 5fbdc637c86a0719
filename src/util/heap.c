/* A binary heap in the caller's array (heap.h). */
#include "config.h"
#include "util/heap.h"

#include <assert.h>
#include <string.h>

static void
swap(unsigned char *a, unsigned char *b, size_t size)
{
	unsigned char t[HEAP_MAX_ELEM];
	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

void
heap_up(void *base, size_t size, size_t i, heap_before_fn before, void *ctx)
{
	unsigned char *h = base;
	assert(size <= HEAP_MAX_ELEM);
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(h + i * size, h + p * size, ctx))
			return;
		swap(h + i * size, h + p * size, size);
		i = p;
	}
}

void
heap_down(void *base, size_t n, size_t size, size_t i, heap_before_fn before, void *ctx)
{
	unsigned char *h = base;
	assert(size <= HEAP_MAX_ELEM);
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && before(h + l * size, h + m * size, ctx))
			m = l;
		if (r < n && before(h + r * size, h + m * size, ctx))
			m = r;
		if (m == i)
			return;
		swap(h + i * size, h + m * size, size);
		i = m;
	}
}

void
heap_make(void *base, size_t n, size_t size, heap_before_fn before, void *ctx)
{
	for (size_t i = n / 2; i-- > 0;)
		heap_down(base, n, size, i, before, ctx);
}
