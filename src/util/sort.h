/* Sorting without qsort's limits: integers without a comparison callback (an LSD radix sort,
 * several times faster than qsort on the millions of task durations the operator statistics
 * sort), and index arrays by a comparison that takes a context (qsort has none, and a
 * file-scope context would race when ranks are computed in parallel). */
#ifndef TL_SORT_H
#define TL_SORT_H
#include <stddef.h>
#include <stdint.h>

/* Sorts v[0 .. n) ascending (any int64 values). */
void sort_i64(int64_t *v, size_t n);
/* The k-th smallest of v[0 .. n) (k < n, from 0): v reordered so that it is v[k], nothing
 * before it larger and nothing after it smaller. Quickselect (a three-way partition around the
 * median of three): no scratch, where sort_i64 takes 8 bytes a value. */
int64_t select_i64(int64_t *v, size_t n, size_t k);
/* The k1-th and the k2-th smallest of v[0 .. n) (k1 <= k2 < n) into *a and *b, v reordered.
 * Many values: a histogram of their top bits (4096 buckets from the least to the greatest)
 * finds both one's bucket in one pass whose branches do not depend on the values (a
 * quickselect's partitions mispredict every other value when they are random), each bucket's
 * values are moved to the front and selected among, the same way while many; few: select_i64.
 * No scratch. */
void select2_i64(int64_t *v, size_t n, size_t k1, size_t k2, int64_t *a, int64_t *b);
/* The same over 32-bit values (half the scratch where the values fit: a rank's launch delays). */
void select2_i32(int32_t *v, size_t n, size_t k1, size_t k2, int32_t *a, int32_t *b);
/* Sorts the pairs (key[i], val[i]), i < n, together: by key ascending, equal keys by val
 * ascending (the operator statistics keep each task's start beside its duration). */
void sort_i64_pairs(int64_t *key, int64_t *val, size_t n);
/* 1 when v[0 .. n) is ascending. */
int sorted_i64(const int64_t *v, size_t n);
/* 1 when base[0 .. n) (elements of size bytes) is in cmp's order (ties allowed). */
int sort_in_order(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
/* qsort, unless base[0 .. n) (elements of size bytes) is in cmp's order already: then it is
 * left as it is, as glibc's qsort (a merge sort, stable) would leave it, for n - 1
 * comparisons instead of n log n (the analyses often sort what they gathered in order). */
void sort_unless_sorted(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* Numbers the strings s[0 .. n) by their bytes in strcmp's order: ord[i] < ord[j] exactly when
 * strcmp(s[i], s[j]) < 0, equal when the strings are, so that a sort by them compares integers
 * (a sort's comparisons of names read their common prefixes again and again). Only the distinct
 * strings are sorted: each distinct pointer is read once (a pool's strings repeat), and equal
 * strings at other addresses are told by a 64-bit hash, checked. Returns 0, or -1 with ord not
 * set when two strings share a hash (then compare them). */
int sort_str_ordinals(const char *const *s, size_t n, uint32_t *ord);

/* Sorts order[0..n) by cmp(ctx, a, b) on its elements; ties keep their order (a merge sort). */
void sort_index(size_t *order, size_t n, int (*cmp)(const void *ctx, size_t a, size_t b),
                const void *ctx);

/* qsort(base, n, size, cmp) for a cmp that orders by key(element) first, of few distinct values
 * (a thread's, a track's): the elements are put in groups by key, keeping their order, and a
 * group is sorted only when it is not in order already (as it mostly is, read in time order),
 * by merging its ascending runs when it has at most 64, which gives what glibc's qsort, a
 * merge sort, gives. More than 64 keys or runs: qsort. */
void sort_grouped(void *base, size_t n, size_t size, int64_t (*key)(const void *),
                  int (*cmp)(const void *, const void *));
/* The same order, of src[0 .. n) into dst (not overlapping it), with no scratch array unless a
 * group is out of order (one group of at most 8 ascending runs: merged into dst at once). */
void sort_grouped_copy(void *dst, const void *src, size_t n, size_t size,
                       int64_t (*key)(const void *), int (*cmp)(const void *, const void *));

#endif
