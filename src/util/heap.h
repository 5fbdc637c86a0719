/* A binary heap kept in the caller's array: elements of any size (up to HEAP_MAX_ELEM bytes),
 * ordered by a "before" function that takes a context (the element at index 0 is before or
 * equal to every other). The caller owns the array and its count; the bubble code keeps three
 * such heaps: the longest gaps seen, a Free lane's runs by their longest slice, and the ranks'
 * next gaps in a k-way merge. */
#ifndef TL_HEAP_H
#define TL_HEAP_H
#include <stddef.h>

#define HEAP_MAX_ELEM 64

/* 1 when a must come out before b. */
typedef int (*heap_before_fn)(const void *a, const void *b, void *ctx);

/* Restores the order after element i of base[0 .. i] was set (a push: i = the old count). */
void heap_up(void *base, size_t size, size_t i, heap_before_fn before, void *ctx);
/* Restores the order of base[0 .. n) after element i was set to something not before its
 * parent (a pop moves the last element to 0 and calls this with i = 0). */
void heap_down(void *base, size_t n, size_t size, size_t i, heap_before_fn before, void *ctx);
/* Orders base[0 .. n) as a heap in O(n). */
void heap_make(void *base, size_t n, size_t size, heap_before_fn before, void *ctx);

#endif
