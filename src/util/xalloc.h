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

/* Arrays of megabytes filled once: an anonymous mapping of their own, aligned to 2 MiB and
 * asked to be transparent huge pages, so that the first touch of each 2 MiB is one fault and
 * one clearing, where 512 pages of 4 KiB fault one by one. xhuge_resize makes one (p NULL) or
 * resizes one of old bytes, its pages moved rather than copied (mremap: huge pages whole, none
 * faulted again); sizes are rounded up to the page size. Freed by xhuge_free, not free. */
void *xhuge_resize(void *p, size_t old, size_t bytes);
void xhuge_free(void *p, size_t bytes);

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
