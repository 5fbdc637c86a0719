/* Allocation that cannot fail for the caller: abort with a message on overflow or exhaustion. */
#ifndef TL_XALLOC_H
#define TL_XALLOC_H
#include <stddef.h>

/* Says that n bytes could not be had and aborts: for allocators of their own (mmap). */
void xalloc_fail(size_t n) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow a (ptr, cap) pair so that at least `need` elements fit. */
#define VEC_RESERVE(ptr, cap, need)                                                                \
	do {                                                                                       \
		if ((size_t)(need) > (cap)) {                                                      \
			size_t nc_ = (cap) ? (cap) : 16;                                           \
			while (nc_ < (size_t)(need))                                               \
				nc_ *= 2;                                                          \
			(ptr) = xreallocarray((ptr), nc_, sizeof *(ptr));                          \
			(cap) = nc_;                                                               \
		}                                                                                  \
	} while (0)
#define VEC_PUSH(ptr, n, cap, val)                                                                 \
	do {                                                                                       \
		VEC_RESERVE(ptr, cap, (n) + 1);                                                    \
		(ptr)[(n)++] = (val);                                                              \
	} while (0)

#endif
