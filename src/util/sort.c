#include "config.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void
sort_index(size_t *order, size_t n, int (*cmp)(const void *ctx, size_t a, size_t b),
           const void *ctx)
{
	if (n < 2)
		return;
	size_t *tmp = xreallocarray(NULL, n, sizeof *tmp);
	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] =
				    cmp(ctx, order[j], order[i]) < 0 ? order[j++] : order[i++];
			while (i < mid)
				tmp[k++] = order[i++];
			while (j < hi)
				tmp[k++] = order[j++];
		}
		memcpy(order, tmp, n * sizeof *order);
	}
	free(tmp);
}
