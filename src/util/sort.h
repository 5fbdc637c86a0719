/* Sorting an index array by a comparison that takes a context (qsort has none, and a
 * file-scope context would race when ranks are computed in parallel). */
#ifndef TL_SORT_H
#define TL_SORT_H
#include <stddef.h>

/* Sorts order[0..n) by cmp(ctx, a, b) on its elements; ties keep their order (a merge sort). */
void sort_index(size_t *order, size_t n, int (*cmp)(const void *ctx, size_t a, size_t b),
                const void *ctx);

#endif
