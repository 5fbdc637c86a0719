#include "config.h"
#include "util/rankspec.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* A rank number: returns the end, or NULL with *big set when it is a number above TL_RANK_MAX
 * (out of range, not malformed). */
static const char *
parse_num(const char *p, long *out, int *big)
{
	*big = 0;
	if (!isdigit((unsigned char)*p))
		return NULL;
	long v = 0;
	while (isdigit((unsigned char)*p)) {
		if (v <= TL_RANK_MAX)
			v = v * 10 + (*p - '0');
		p++;
	}
	if (v > TL_RANK_MAX) {
		*big = 1;
		return NULL;
	}
	*out = v;
	return p;
}

static void
out_of_range(const char *spec, const char *at, char *err, size_t errlen)
{
	int n = 0;
	while (isdigit((unsigned char)at[n]))
		n++;
	snprintf(err, errlen, "bad rank spec '%s': rank %.*s is out of range (0-%d)", spec, n, at,
	         TL_RANK_MAX);
}

void
rankset_normalize(tl_rankset *rs)
{
	if (rs->n > 1)
		qsort(rs->ranks, rs->n, sizeof *rs->ranks, cmp_int);
	size_t w = 0;
	for (size_t i = 0; i < rs->n; i++)
		if (w == 0 || rs->ranks[w - 1] != rs->ranks[i])
			rs->ranks[w++] = rs->ranks[i];
	rs->n = w;
}

void
rankset_format(const tl_rankset *rs, char *buf, size_t len)
{
	size_t used = 0, more = 0;
	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < rs->n;) {
		size_t j = i + 1;
		while (j < rs->n && rs->ranks[j] == rs->ranks[j - 1] + 1)
			j++;
		char item[32];
		if (j - i == 1)
			snprintf(item, sizeof item, "%d", rs->ranks[i]);
		else
			snprintf(item, sizeof item, "%d-%d", rs->ranks[i], rs->ranks[j - 1]);
		if (more == 0 && used + strlen(item) + 24 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
			                         item);
		else
			more += j - i;
		i = j;
	}
	if (more)
		snprintf(buf + used, len - used, " and %zu more", more);
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
		int big;
		const char *q = parse_num(p, &a, &big);
		if (q == NULL && big) {
			out_of_range(spec, p, err, errlen);
			goto fail;
		}
		if (q == NULL) {
			snprintf(err, errlen,
			         "bad rank spec '%s' at position %d: expected a rank number (0-%d)",
			         spec, (int)(item - spec) + 1, TL_RANK_MAX);
			goto fail;
		}
		b = a;
		if (*q == '-') {
			const char *r = parse_num(q + 1, &b, &big);
			if (r == NULL && big) {
				out_of_range(spec, q + 1, err, errlen);
				goto fail;
			}
			if (r == NULL) {
				snprintf(err, errlen,
				         "bad rank spec '%s' at position %d: expected a number "
				         "after '-'",
				         spec, (int)(q - spec) + 2);
				goto fail;
			}
			if (b < a) {
				snprintf(err, errlen,
				         "bad rank spec '%s': range %ld-%ld runs backwards", spec,
				         a, b);
				goto fail;
			}
			q = r;
		}
		if (b - a > 65536) {
			snprintf(err, errlen, "bad rank spec '%s': range %ld-%ld is too large",
			         spec, a, b);
			goto fail;
		}
		for (long r = a; r <= b; r++)
			VEC_PUSH(out->ranks, out->n, cap, (int)r);
		if (*q == '\0')
			break;
		if (*q != ',') {
			snprintf(err, errlen,
			         "bad rank spec '%s' at position %d: unexpected '%c' (use e.g. 0-7 "
			         "or 0,2,4)",
			         spec, (int)(q - spec) + 1, *q);
			goto fail;
		}
		p = q + 1;
	}
	rankset_normalize(out);
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
