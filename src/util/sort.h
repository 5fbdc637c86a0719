/* Sorting integers without a comparison callback: an LSD radix sort, several times faster than
 * qsort on the millions of task durations the operator statistics sort. */
#ifndef TL_SORT_H
#define TL_SORT_H
#include <stddef.h>
#include <stdint.h>

/* Sorts v[0 .. n) ascending (any int64 values). */
void sort_i64(int64_t *v, size_t n);
/* 1 when v[0 .. n) is ascending. */
int sorted_i64(const int64_t *v, size_t n);

#endif
