#include "config.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void
xalloc_fail(size_t n)
{
	fprintf(stderr, "tl: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		xalloc_fail(n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		xalloc_fail(nmemb * size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		xalloc_fail(n);
	return q;
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size) {
		fprintf(stderr, "tl: allocation overflow (%zu x %zu)\n", nmemb, size);
		abort();
	}
	return xrealloc(p, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		xalloc_fail(0);
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

#define HUGE_ALIGN ((size_t)2 << 20)

static size_t
page_round(size_t bytes)
{
	static size_t pg;
	if (pg == 0) {
		long v = sysconf(_SC_PAGESIZE);
		pg = v > 0 ? (size_t)v : 4096;
	}
	if (bytes > SIZE_MAX - HUGE_ALIGN - pg)
		xalloc_fail(bytes);
	return (bytes + pg - 1) & ~(pg - 1);
}

/* bytes of address space at a 2 MiB boundary, reserved (PROT_NONE) */
static unsigned char *
huge_area(size_t bytes)
{
	unsigned char *m =
	    mmap(NULL, bytes + HUGE_ALIGN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		xalloc_fail(bytes);
	uintptr_t a = ((uintptr_t)m + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1);
	size_t head = (size_t)(a - (uintptr_t)m);
	if (head > 0)
		munmap(m, head);
	munmap((unsigned char *)a + bytes, HUGE_ALIGN - head);
	return (unsigned char *)a;
}

void *
xhuge_resize(void *p, size_t old, size_t bytes)
{
	old = page_round(old);
	bytes = page_round(bytes ? bytes : 1);
	if (p != NULL && bytes == old)
		return p;
	void *m;
	if (p != NULL && bytes < old) { /* the tail unmapped, in place */
		m = mremap(p, old, bytes, 0);
		if (m == MAP_FAILED)
			xalloc_fail(bytes);
		return m;
	}
	unsigned char *a = huge_area(bytes);
	if (p == NULL)
		m = mmap(a, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		         -1, 0);
	else
		m = mremap(p, old, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, a);
	if (m == MAP_FAILED)
		xalloc_fail(bytes);
#ifdef MADV_HUGEPAGE
	madvise(m, bytes, MADV_HUGEPAGE);
#endif
	return m;
}

void
xhuge_free(void *p, size_t bytes)
{
	if (p != NULL)
		munmap(p, page_round(bytes ? bytes : 1));
}
