#include "config.h"
#include "util/sort.h"
#include "util/hash.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define SMALL 48 /* below this, insertion sort */

int
sorted_i64(const int64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i] < v[i - 1])
			return 0;
	return 1;
}

/* 1 when v[0 .. n) (elements of size bytes) is in cmp's order. */
static int
in_order(const char *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp(v + (i - 1) * size, v + i * size) > 0)
			return 0;
	return 1;
}

int
sort_in_order(const void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	return in_order(base, n, size, cmp);
}

void
sort_unless_sorted(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (!in_order(base, n, size, cmp))
		qsort(base, n, size, cmp);
}

#define HIST_BITS 12 /* select2's buckets: 16 KB of counts, on the stack */
#define HIST_MIN 2048

static int
sel_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int
sel_cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

#define SEL_T int64_t
#define SEL(name) sel_##name##_i64
#include "util/sort_select.h"
#undef SEL_T
#undef SEL
#define SEL_T int32_t
#define SEL(name) sel_##name##_i32
#include "util/sort_select.h"
#undef SEL_T
#undef SEL

int64_t
select_i64(int64_t *v, size_t n, size_t k)
{
	return sel_select_i64(v, n, k);
}

void
select2_i64(int64_t *v, size_t n, size_t k1, size_t k2, int64_t *a, int64_t *b)
{
	sel_select2_i64(v, n, k1, k2, a, b);
}

void
select2_i32(int32_t *v, size_t n, size_t k1, size_t k2, int32_t *a, int32_t *b)
{
	sel_select2_i32(v, n, k1, k2, a, b);
}

/* Eight passes of one byte each over the values with their sign bit flipped (so that unsigned
 * order is signed order); a pass whose byte is the same in every value is skipped, which for
 * durations (small, non-negative) leaves three or four passes. */
void
sort_i64(int64_t *v, size_t n)
{
	if (n < SMALL) {
		sel_insertion_i64(v, n);
		return;
	}
	if (sorted_i64(v, n))
		return;
	size_t(*count)[256] = xcalloc(8, sizeof *count);
	const uint64_t flip = UINT64_C(1) << 63;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = (uint64_t)v[i] ^ flip;
		for (int b = 0; b < 8; b++)
			count[b][(x >> (8 * b)) & 0xff]++;
	}
	/* the values are flipped in place (an int64_t may be read as its uint64_t): one scratch
	 * array, not two, for the millions of durations a rank's operators sort */
	uint64_t *u = (uint64_t *)v, *a = u, *t = xreallocarray(NULL, n, sizeof *t);
	for (size_t i = 0; i < n; i++)
		a[i] ^= flip;
	for (int b = 0; b < 8; b++) {
		size_t *c = count[b];
		uint64_t first = (a[0] >> (8 * b)) & 0xff;
		if (c[first] == n)
			continue; /* every value has this byte */
		size_t sum = 0;
		for (int k = 0; k < 256; k++) {
			size_t x = c[k];
			c[k] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++)
			t[c[(a[i] >> (8 * b)) & 0xff]++] = a[i];
		uint64_t *s = a;
		a = t;
		t = s;
	}
	for (size_t i = 0; i < n; i++)
		u[i] = a[i] ^ flip;
	free(a == u ? t : a);
	free(count);
}

static int
pair_less(int64_t k1, int64_t v1, int64_t k2, int64_t v2)
{
	return k1 < k2 || (k1 == k2 && v1 < v2);
}

/* Sixteen byte passes, val's eight first (LSD: the later passes keep the earlier order among
 * equal bytes), skipping a byte that every pair has alike. */
void
sort_i64_pairs(int64_t *key, int64_t *val, size_t n)
{
	if (n < SMALL) {
		for (size_t i = 1; i < n; i++) {
			int64_t k = key[i], x = val[i];
			size_t j = i;
			for (; j > 0 && pair_less(k, x, key[j - 1], val[j - 1]); j--) {
				key[j] = key[j - 1];
				val[j] = val[j - 1];
			}
			key[j] = k;
			val[j] = x;
		}
		return;
	}
	int sorted = 1;
	for (size_t i = 1; i < n && sorted; i++)
		sorted = !pair_less(key[i], val[i], key[i - 1], val[i - 1]);
	if (sorted)
		return;
	const uint64_t flip = UINT64_C(1) << 63;
	uint64_t(*a)[2] = xreallocarray(NULL, n, sizeof *a),
	(*t)[2] = xreallocarray(NULL, n, sizeof *t);
	for (size_t i = 0; i < n; i++) {
		a[i][0] = (uint64_t)val[i] ^ flip;
		a[i][1] = (uint64_t)key[i] ^ flip;
	}
	size_t *c = xcalloc(256, sizeof *c);
	for (int p = 0; p < 16; p++) {
		int w = p / 8, sh = 8 * (p % 8);
		memset(c, 0, 256 * sizeof *c);
		for (size_t i = 0; i < n; i++)
			c[(a[i][w] >> sh) & 0xff]++;
		if (c[(a[0][w] >> sh) & 0xff] == n)
			continue; /* every pair has this byte */
		size_t sum = 0;
		for (int k = 0; k < 256; k++) {
			size_t x = c[k];
			c[k] = sum;
			sum += x;
		}
		for (size_t i = 0; i < n; i++) {
			size_t d = c[(a[i][w] >> sh) & 0xff]++;
			t[d][0] = a[i][0];
			t[d][1] = a[i][1];
		}
		uint64_t(*s)[2] = a;
		a = t;
		t = s;
	}
	for (size_t i = 0; i < n; i++) {
		val[i] = (int64_t)(a[i][0] ^ flip);
		key[i] = (int64_t)(a[i][1] ^ flip);
	}
	free(a);
	free(t);
	free(c);
}

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

#define GROUPS 64 /* distinct keys sort_grouped handles itself, runs it merges; more: qsort */

/* The group of key k among keys[0 .. nk), or nk when it has none; *last: the last one found. */
static size_t
group_of(const int64_t *keys, size_t nk, int64_t k, size_t *last)
{
	if (*last < nk && keys[*last] == k)
		return *last;
	for (size_t g = 0; g < nk; g++)
		if (keys[g] == k)
			return *last = g;
	return nk;
}

/* A stable sort of a[0 .. n) that merges its ascending runs, when they are few (a table read in
 * the order of a few streams: each stream's part is in order), b[0 .. n) its scratch; else
 * qsort, in a. Returns where the sorted elements are: a or b. */
static char *
sort_runs(char *a, char *b, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	size_t at[GROUPS + 1], nr = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || cmp(a + (i - 1) * size, a + i * size) > 0) {
			if (nr == GROUPS) {
				qsort(a, n, size, cmp);
				return a;
			}
			at[nr++] = i;
		}
	at[nr] = n;
	char *src = a, *dst = b;
	while (nr > 1) {
		size_t k = 0;
		for (size_t r = 0; r < nr; r += 2) {
			size_t lo = at[r], m = at[r + 1], e = r + 2 <= nr ? at[r + 2] : m, i = lo,
			       j = m, o = lo;
			while (i < m && j < e) /* ties: the left run's first */
				if (cmp(src + j * size, src + i * size) < 0)
					memcpy(dst + o++ * size, src + j++ * size, size);
				else
					memcpy(dst + o++ * size, src + i++ * size, size);
			memcpy(dst + o * size, src + i * size, (m - i) * size);
			o += m - i;
			memcpy(dst + o * size, src + j * size, (e - j) * size);
			at[k++] = lo;
		}
		at[k] = n;
		nr = k;
		char *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* The distinct keys of v[0 .. n), ascending, and how many elements have each. Returns how many
 * there are, or SIZE_MAX when more than GROUPS. */
static size_t
group_count(const char *v, size_t n, size_t size, int64_t (*key)(const void *),
            int64_t keys[GROUPS], size_t cnt[GROUPS])
{
	size_t nk = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t k = key(v + i * size);
		size_t g = group_of(keys, nk, k, &last);
		if (g == nk) {
			if (nk == GROUPS)
				return SIZE_MAX;
			keys[nk] = k;
			cnt[nk++] = 0;
		}
		cnt[g]++;
	}
	for (size_t a = 1; a < nk; a++) /* the keys ascending, their counts with them */
		for (size_t b = a; b > 0 && keys[b - 1] > keys[b]; b--) {
			int64_t tk = keys[b];
			size_t tc = cnt[b];
			keys[b] = keys[b - 1];
			cnt[b] = cnt[b - 1];
			keys[b - 1] = tk;
			cnt[b - 1] = tc;
		}
	return nk;
}

/* src's elements into dst by group, each group in its input order, then each group not in order
 * sorted. scratch: n elements the merges may use, or NULL (one is allocated when a group needs
 * it, of which only that group's part is touched). */
static void
grouped_into(char *dst, const char *src, size_t n, size_t size, int64_t (*key)(const void *),
             int (*cmp)(const void *, const void *), const int64_t *keys, const size_t *cnt,
             size_t nk, char *scratch)
{
	size_t at[GROUPS], off = 0, last = 0;
	char *own = NULL;
	for (size_t g = 0; g < nk; g++) {
		at[g] = off;
		off += cnt[g];
	}
	for (size_t i = 0; i < n; i++) {
		size_t g = group_of(keys, nk, key(src + i * size), &last);
		memcpy(dst + at[g]++ * size, src + i * size, size);
	}
	for (size_t g = 0, lo = 0; g < nk; lo += cnt[g++]) {
		char *w = dst + lo * size;
		if (in_order(w, cnt[g], size, cmp))
			continue;
		if (scratch == NULL)
			scratch = own = xreallocarray(NULL, n, size);
		char *r = sort_runs(w, scratch + lo * size, cnt[g], size, cmp);
		if (r != w)
			memcpy(w, r, cnt[g] * size);
	}
	free(own);
}

void
sort_grouped(void *base, size_t n, size_t size, int64_t (*key)(const void *),
             int (*cmp)(const void *, const void *))
{
	char *v = base;
	int64_t keys[GROUPS];
	size_t cnt[GROUPS], nk;
	if (in_order(v, n, size, cmp))
		return;
	nk = group_count(v, n, size, key, keys, cnt);
	if (nk == SIZE_MAX) {
		qsort(base, n, size, cmp);
		return;
	}
	/* one scratch array: the groups put into it, the input (all read by then) the merges' */
	char *tmp = xreallocarray(NULL, n, size);
	grouped_into(tmp, v, n, size, key, cmp, keys, cnt, nk, v);
	memcpy(v, tmp, n * size);
	free(tmp);
}

#define KWAY 8 /* runs merge_runs_into merges at once */

/* src[0 .. n) of at most KWAY ascending runs, merged into dst at once: no scratch array, one
 * pass (the runs' merge two at a time ping-pongs between two arrays). Ties: the earlier run's
 * first, as sort_runs. Returns 0, doing nothing, for more runs. */
static int
merge_runs_into(char *dst, const char *src, size_t n, size_t size,
                int (*cmp)(const void *, const void *))
{
	size_t head[KWAY], end[KWAY], nr = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || cmp(src + (i - 1) * size, src + i * size) > 0) {
			if (nr == KWAY)
				return 0;
			if (nr > 0)
				end[nr - 1] = i;
			head[nr++] = i;
		}
	if (nr == 0)
		return 1;
	end[nr - 1] = n;
	for (size_t o = 0; nr > 0; o++) {
		size_t b = 0;
		for (size_t r = 1; r < nr; r++) /* the least head; ties: the earlier run's */
			if (cmp(src + head[r] * size, src + head[b] * size) < 0)
				b = r;
		memcpy(dst + o * size, src + head[b] * size, size);
		if (++head[b] == end[b]) { /* a run done: the later ones move up, in order */
			for (size_t r = b + 1; r < nr; r++) {
				head[r - 1] = head[r];
				end[r - 1] = end[r];
			}
			nr--;
		}
	}
	return 1;
}

void
sort_grouped_copy(void *dst, const void *src, size_t n, size_t size, int64_t (*key)(const void *),
                  int (*cmp)(const void *, const void *))
{
	int64_t keys[GROUPS];
	size_t cnt[GROUPS], nk = SIZE_MAX;
	int sorted = in_order(src, n, size, cmp);
	if (!sorted)
		nk = group_count(src, n, size, key, keys, cnt);
	if (nk == SIZE_MAX) { /* in order, or too many keys */
		if (n > 0)
			memcpy(dst, src, n * size);
		if (!sorted)
			qsort(dst, n, size, cmp);
		return;
	}
	if (nk == 1 && merge_runs_into(dst, src, n, size, cmp))
		return;
	grouped_into(dst, src, n, size, key, cmp, keys, cnt, nk, NULL);
}

static int
cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
sort_str_ordinals(const char *const *s, size_t n, uint32_t *ord)
{
	tl_u64map at, by_hash; /* a string's address, its hash -> its index among the distinct */
	u64map_init(&at);
	u64map_init(&by_hash);
	const char **d = NULL; /* the distinct strings */
	size_t nd = 0, cap = 0;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (u64map_get(&at, (uint64_t)(uintptr_t)s[i], &ord[i]))
			continue;
		uint64_t h = util_hash_str(s[i]);
		if (!u64map_get(&by_hash, h, &ord[i])) {
			ord[i] = (uint32_t)nd;
			u64map_put(&by_hash, h, ord[i]);
			VEC_PUSH(d, nd, cap, s[i]);
		} else if (strcmp(d[ord[i]], s[i]) != 0) {
			rc = -1; /* two strings, one hash */
		}
		u64map_put(&at, (uint64_t)(uintptr_t)s[i], ord[i]);
	}
	if (rc == 0 && nd > 0) {
		/* the distinct strings by their bytes; each one's rank by its index */
		const char **by = xreallocarray(NULL, nd, sizeof *by);
		memcpy(by, d, nd * sizeof *by);
		qsort(by, nd, sizeof *by, cmp_cstr);
		u64map_free(&at);
		u64map_init(&at);
		for (size_t k = 0; k < nd; k++)
			u64map_put(&at, (uint64_t)(uintptr_t)by[k], (uint32_t)k);
		uint32_t *rank = xreallocarray(NULL, nd, sizeof *rank);
		for (size_t k = 0; k < nd; k++)
			u64map_get(&at, (uint64_t)(uintptr_t)d[k], &rank[k]);
		for (size_t i = 0; i < n; i++)
			ord[i] = rank[ord[i]];
		free(rank);
		free(by);
	}
	free(d);
	u64map_free(&at);
	u64map_free(&by_hash);
	return rc;
}
