#include "config.h"
#include "util/rankspec.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static const char *
parse_num(const char *p, long *out)
{
	if (!isdigit((unsigned char)*p))
		return NULL;
	long v = 0;
	while (isdigit((unsigned char)*p)) {
		v = v * 10 + (*p - '0');
		if (v > TL_RANK_MAX)
			return NULL;
		p++;
	}
	*out = v;
	return p;
}

int
rankspec_parse(const char *spec, tl_rankset *out, char *err, size_t errlen)
{
	out->all = 0;
	out->ranks = NULL;
	out->n = 0;
	size_t cap = 0;
	const char *p = spec;
	if (*p == '\0') {
		snprintf(err, errlen, "empty rank spec (expected e.g. 0-7 or 0,2,4)");
		return -1;
	}
	for (;;) {
		const char *item = p;
		long a, b;
		const char *q = parse_num(p, &a);
		if (q == NULL) {
			snprintf(err, errlen,
			    "bad rank spec '%s' at position %d: expected a rank number (0-%d)", spec,
			    (int)(item - spec) + 1, TL_RANK_MAX);
			goto fail;
		}
		b = a;
		if (*q == '-') {
			const char *r = parse_num(q + 1, &b);
			if (r == NULL) {
				snprintf(err, errlen,
				    "bad rank spec '%s' at position %d: expected a number after '-'", spec,
				    (int)(q - spec) + 2);
				goto fail;
			}
			if (b < a) {
				snprintf(err, errlen, "bad rank spec '%s': range %ld-%ld runs backwards",
				    spec, a, b);
				goto fail;
			}
			q = r;
		}
		if (b - a > 65536) {
			snprintf(err, errlen, "bad rank spec '%s': range %ld-%ld is too large", spec, a,
			    b);
			goto fail;
		}
		for (long r = a; r <= b; r++)
			VEC_PUSH(out->ranks, out->n, cap, (int)r);
		if (*q == '\0')
			break;
		if (*q != ',') {
			snprintf(err, errlen,
			    "bad rank spec '%s' at position %d: unexpected '%c' (use e.g. 0-7 or 0,2,4)",
			    spec, (int)(q - spec) + 1, *q);
			goto fail;
		}
		p = q + 1;
	}
	qsort(out->ranks, out->n, sizeof *out->ranks, cmp_int);
	size_t w = 0;
	for (size_t i = 0; i < out->n; i++)
		if (w == 0 || out->ranks[w - 1] != out->ranks[i])
			out->ranks[w++] = out->ranks[i];
	out->n = w;
	return 0;
fail:
	free(out->ranks);
	out->ranks = NULL;
	out->n = 0;
	return -1;
}

int
rankset_has(const tl_rankset *s, int rank)
{
	if (s == NULL || s->all)
		return 1;
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->ranks[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->ranks[lo] == rank;
}

void
rankset_free(tl_rankset *s)
{
	free(s->ranks);
	s->ranks = NULL;
	s->n = 0;
}
