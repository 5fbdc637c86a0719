/* util: rank specs, time formatting and parsing, string pool, hash map, text sanitising. */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/heap.h"
#include "util/json_lex.h"
#include "util/msg.h"
#include "util/rankspec.h"
#include "util/satint.h"
#include "util/sort.h"
#include "util/strpool.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/u64map.h"
#include "util/xalloc.h"
#include "../test.h"

static void
test_rankspec(void)
{
	tl_rankset s;
	char err[256];
	CHECK(rankspec_parse("0-7", &s, err, sizeof err) == 0 && s.n == 8, "0-7 is eight ranks");
	CHECK(rankset_has(&s, 0) && rankset_has(&s, 7) && !rankset_has(&s, 8), "0-7 membership");
	rankset_free(&s);
	CHECK(rankspec_parse("0,2,4", &s, err, sizeof err) == 0 && s.n == 3 && !rankset_has(&s, 1),
	      "0,2,4");
	rankset_free(&s);
	CHECK(rankspec_parse("0-3,8-11", &s, err, sizeof err) == 0 && s.n == 8 &&
	          rankset_has(&s, 9) && !rankset_has(&s, 5),
	      "0-3,8-11");
	rankset_free(&s);
	CHECK(rankspec_parse("3,1,3,2", &s, err, sizeof err) == 0 && s.n == 3 && s.ranks[0] == 1,
	      "duplicates folded and sorted");
	rankset_free(&s);
	static const char *const bad[] = {"",    "a",   "1-",    "-1",       "1,,2",
	                                  "1 2", "5-3", "1-2-3", "99999999", "0-70000"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = '\0';
		int rc = rankspec_parse(bad[i], &s, err, sizeof err);
		CHECK(rc == -1 && err[0] != '\0', "bad spec '%s' refused: %s", bad[i], err);
	}
}

static void
test_timefmt(void)
{
	char b[64];
	CHECK_STR(timefmt_dur(980, b, sizeof b), "980 ns", "ns");
	CHECK_STR(timefmt_dur(12345, b, sizeof b), "12.3 us", "us");
	CHECK_STR(timefmt_dur(8843910, b, sizeof b), "8.844 ms", "ms");
	CHECK_STR(timefmt_dur(1250000000, b, sizeof b), "1.250 s", "s");
	CHECK_STR(timefmt_us3(8843910, b, sizeof b), "8843.910", "us with three decimals");
	CHECK_STR(timefmt_ms(8843910, 6, b, sizeof b), "8.843910", "ms with six decimals");
	CHECK_STR(timefmt_ms(-8843910, 3, b, sizeof b), "-8.843", "ms with three, negative");
	CHECK_STR(timefmt_ms(999999, 0, b, sizeof b), "0", "ms with none, truncated");
	CHECK_STR(timefmt_ms(INT64_MIN, 6, b, sizeof b), "-9223372036854.775808",
	          "ms: the least int64, exact");
	CHECK_STR(timefmt_ms(INT64_MAX, 6, b, sizeof b), "9223372036854.775807",
	          "ms: the greatest int64, exact");
	/* sums of times held at the int64 range's ends (satint.h) */
	CHECK(sat_add(INT64_MAX - 1, 5) == INT64_MAX && sat_add(INT64_MIN + 1, -5) == INT64_MIN &&
	          sat_add(INT64_MAX, INT64_MIN) == -1 && sat_add(40, 2) == 42,
	      "sat_add holds at the ends and adds inside");
	CHECK(sat_sub(INT64_MIN + 1, 5) == INT64_MIN && sat_sub(INT64_MAX - 1, -5) == INT64_MAX &&
	          sat_sub(0, INT64_MIN) == INT64_MAX && sat_sub(44, 2) == 42,
	      "sat_sub holds at the ends and subtracts inside");
	CHECK(sat_abs(INT64_MIN) == INT64_MAX && sat_abs(-7) == 7 && sat_abs(7) == 7 &&
	          sat_abs(INT64_MIN + 1) == INT64_MAX,
	      "sat_abs of INT64_MIN is INT64_MAX");
	CHECK_STR(timefmt_us3(-5, b, sizeof b), "-0.005", "negative us3");
	int64_t v;
	CHECK(timefmt_parse("12.5ms", 1, &v) == 0 && v == 12500000, "parse 12.5ms");
	CHECK(timefmt_parse("3s", 1, &v) == 0 && v == 3000000000, "parse 3s");
	CHECK(timefmt_parse("250us", 1, &v) == 0 && v == 250000, "parse 250us");
	CHECK(timefmt_parse("1736408883694756.090", 1000, &v) == 0 && v == 1736408883694756090,
	      "parse an epoch us string to the exact ns");
	CHECK(timefmt_parse("0.000000001s", 1, &v) == 0 && v == 1, "one ns in seconds");
	CHECK(timefmt_parse("12parsecs", 1, &v) == -1, "unknown unit refused");
	CHECK(timefmt_parse("", 1, &v) == -1, "empty refused");
	CHECK(timefmt_parse("99999999999999999999", 1, &v) == -1, "overflow refused");
}

static void
test_strpool(void)
{
	tl_strpool *p = strpool_new();
	CHECK_EQ_I64(strpool_intern_cstr(p, ""), 0, "empty string is id 0");
	uint32_t a = strpool_intern_cstr(p, "MatMul");
	uint32_t b = strpool_intern_cstr(p, "Add");
	CHECK(a != b && strpool_intern_cstr(p, "MatMul") == a, "interning is idempotent");
	CHECK_STR(strpool_get(p, b), "Add", "get");
	char buf[32];
	for (int i = 0; i < 100000; i++) {
		snprintf(buf, sizeof buf, "kernel_%d", i);
		strpool_intern_cstr(p, buf);
	}
	CHECK_EQ_I64(strpool_count(p), 100003, "100k strings");
	CHECK_STR(strpool_get(p, a), "MatMul", "old pointers stay valid after growth");
	CHECK_EQ_I64(strpool_find(p, "kernel_99999", 12), 100002, "find");
	CHECK_EQ_I64(strpool_find(p, "nope", 4), UINT32_MAX, "find missing");
	strpool_free(p);
}

/* A view keeps the strings as they were while the pool goes on growing (its arrays moved). */
static void
test_strpool_view(void)
{
	tl_strpool *p = strpool_new();
	uint32_t a = strpool_intern_cstr(p, "HcclAllReduce");
	const char *was = strpool_get(p, a);
	tl_strpool *v = strpool_view(p);
	char buf[32];
	for (int i = 0; i < 50000; i++) { /* the id and hash arrays are reallocated */
		snprintf(buf, sizeof buf, "op_%d", i);
		strpool_intern_cstr(p, buf);
	}
	CHECK(strpool_get(v, a) == was && strpool_get(p, a) == was,
	      "the view and the pool give the same string, which did not move");
	CHECK_EQ_I64(strpool_count(v), 2, "the view counts what the pool held then");
	CHECK_STR(strpool_get(v, strpool_find(p, "op_7", 4)), "", "a later id: empty in the view");
	CHECK_EQ_I64(strpool_len(v, a), 13, "length");
	strpool_free(v);
	CHECK_STR(strpool_get(p, a), "HcclAllReduce", "freeing the view leaves the pool's strings");
	strpool_free(p);
}

static void
test_u64map(void)
{
	tl_u64map m;
	u64map_init(&m);
	for (uint64_t i = 0; i < 50000; i++)
		u64map_put(&m, i * 2654435761u + 4294967295u, (uint32_t)i);
	uint32_t v;
	int good = 1;
	for (uint64_t i = 0; i < 50000; i++)
		if (!u64map_get(&m, i * 2654435761u + 4294967295u, &v) || v != i)
			good = 0;
	CHECK(good, "50k keys round-trip");
	CHECK(!u64map_get(&m, 12345, &v), "absent key");
	u64map_free(&m);
	/* runs: keys counting up, keys 8 apart (one per block), keys that differ above bit 32 only,
	 * and a value put again */
	u64map_init_runs(&m);
	for (uint64_t i = 0; i < 30000; i++) {
		u64map_put(&m, 1000 + i, (uint32_t)i);
		u64map_put(&m, (uint64_t)1 << 40 | i * 8, (uint32_t)(i + 1));
		u64map_put(&m, i << 32 | 0xFFFFFFFFu, (uint32_t)(i + 2));
	}
	u64map_put(&m, 1000, 77);
	good = m.n == 90000;
	for (uint64_t i = 0; i < 30000; i++) {
		if (!u64map_get(&m, 1000 + i, &v) || v != (i ? i : 77))
			good = 0;
		if (!u64map_get(&m, (uint64_t)1 << 40 | i * 8, &v) || v != i + 1)
			good = 0;
		if (!u64map_get(&m, i << 32 | 0xFFFFFFFFu, &v) || v != i + 2)
			good = 0;
		if (u64map_get(&m, (uint64_t)1 << 40 | (i * 8 + 3), NULL))
			good = 0;
	}
	CHECK(good, "runs: 90k keys round-trip, absent keys between them absent");
	CHECK(!u64map_get(&m, 999, NULL), "runs: absent key");
	u64map_free(&m);
}

static void
test_text(void)
{
	char b[128];
	CHECK(text_parse_size("100000") == (unsigned long long)(100000), "size: plain bytes");
	CHECK(text_parse_size("4G") == (unsigned long long)(4ULL << 30), "size: G is binary");
	CHECK(text_parse_size("512 m") == (unsigned long long)(512ULL << 20),
	      "size: a space and lower case");
	CHECK(text_parse_size("1.5K") == (unsigned long long)(1536), "size: a fraction");
	CHECK(text_parse_size("2T") == (unsigned long long)(2ULL << 40), "size: T");
	CHECK(text_parse_size("-1G") == (unsigned long long)(0), "size: negative is no size");
	CHECK(text_parse_size("nan") == (unsigned long long)(0),
	      "size: nan is no size (the cast was undefined)");
	CHECK(text_parse_size("lots") == (unsigned long long)(0), "size: words are no size");
	CHECK(text_parse_size("1e30") == (unsigned long long)(~0ULL),
	      "size: past 2^64 is the most there is");
	CHECK(text_parse_size("inf") == (unsigned long long)(~0ULL), "size: inf too");
	CHECK_STR(text_sanitize("plain", b, sizeof b, 1), "plain", "plain text unchanged");
	CHECK_STR(text_sanitize("a\033[31mred", b, sizeof b, 1), "a\\x1b[31mred",
	          "escape sequences are escaped");
	CHECK_STR(text_sanitize("x\ny", b, sizeof b, 1), "x\\ny", "newline escaped");
	CHECK_STR(text_sanitize("bad\xff\xfe", b, sizeof b, 1), "bad\xef\xbf\xbd\xef\xbf\xbd",
	          "invalid UTF-8 replaced");
	CHECK_STR(text_sanitize("\xc2\x9b"
	                        "2J",
	                        b, sizeof b, 1),
	          "\\x9b2J", "C1 CSI escaped");
	CHECK_STR(text_sanitize("caf\xc3\xa9", b, sizeof b, 0), "caf?", "ASCII mode");
	CHECK_STR(text_sanitize("abcdefghij", b, 5, 1), "abcd", "cut to the buffer");
	CHECK_STR(text_sanitize("ab\xe2\x82\xac", b, 5, 1), "ab",
	          "cut before a character, not in it");
	/* JSON: what JSON requires, plus DEL and C1, which terminals act on */
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	text_json_write(f, "q\"\\\x1b[1m\x7f\xc2\x9b"
	                   "2J\xff\xe2\x82\xac");
	fclose(f);
	CHECK_STR(out, "q\\\"\\\\\\u001b[1m\\u007f\\u009b2J\xef\xbf\xbd\xe2\x82\xac",
	          "JSON strings: controls, DEL and C1 as \\u escapes, invalid UTF-8 replaced");
	free(out);
}

/* The JSON lexer on inputs whose offsets are counted by hand. */
static void
test_json_lex(void)
{
	json_tables_init();
	const unsigned char *s = (const unsigned char *)"\"a\\\"b\" , 1";
	int bad = -1;
	size_t off = 0, n = strlen((const char *)s);
	CHECK(json_scan_string(s, n, 1, &bad, &off) == 6 && bad == -1,
	      "a string with escaped quote and backslash ends after its closing quote");
	CHECK(json_skip_ws(s, n, 6) == 7 && json_skip_ws(s, n, n) == n, "white space skipped");
	CHECK(json_scan_string(s, 5, 1, &bad, &off) == SIZE_MAX, "a string cut by the buffer");
	const unsigned char *u = (const unsigned char *)"\"ok\xc3\xa9 \xc0\xaf\xed\xa0\x80\"";
	bad = -1;
	CHECK(json_scan_string(u, strlen((const char *)u), 1, &bad, &off) == 12 &&
	          bad == JSON_BAD_UTF8 && off == 6,
	      "an overlong sequence is the first invalid UTF-8 (the surrogate after it too)");
	const unsigned char *v = (const unsigned char *)"{\"k\": [1, {\"x\": \"]}\"}], \"z\": 2}";
	bad = -1;
	n = strlen((const char *)v);
	CHECK(json_skip_nested(v, n, 0, 0, &bad, &off) == n && bad == -1,
	      "brackets inside strings do not close the value");
	CHECK(json_skip_nested(v, n - 1, 0, 0, &bad, &off) == SIZE_MAX,
	      "a value cut by the buffer");
	CHECK(json_skip_nested(v, n, 6, 0, &bad, &off) == 22, "an inner array");
	char deep[2 * JSON_MAX_DEPTH + 3];
	for (int i = 0; i <= JSON_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[2 * JSON_MAX_DEPTH + 1 - i] = ']';
	}
	deep[2 * JSON_MAX_DEPTH + 2] = '\0';
	bad = -1;
	CHECK(json_skip_nested((const unsigned char *)deep, strlen(deep), 0, 0, &bad, &off) ==
	              strlen(deep) &&
	          bad == JSON_BAD_DEPTH && off == JSON_MAX_DEPTH,
	      "nesting one deeper than JSON_MAX_DEPTH is reported where it starts");
	const unsigned char *num = (const unsigned char *)"-1.5e3,";
	CHECK(json_skip_scalar(num, 7, 0) == 6 && json_skip_scalar(num, 6, 0) == 6,
	      "a scalar ends at punctuation or the buffer's end");
}

static int
cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

typedef struct keyed {
	int key, seq;
} keyed;

static int
cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	return (x->key > y->key) - (x->key < y->key);
}

/* sort_unless_sorted: input in order, repeats among it, stays as it is (what the stable merge
 * sort of glibc's qsort gives); input out of order, even only at its end, is sorted. */
static void
test_sort_unless_sorted(void)
{
	keyed v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (keyed){i / 3, i};
	sort_unless_sorted(v, 100, sizeof *v, cmp_keyed);
	int kept = 1;
	for (int i = 0; i < 100; i++)
		kept &= v[i].key == i / 3 && v[i].seq == i;
	CHECK(kept, "sort_unless_sorted: sorted input with repeats is kept, repeats in order");
	v[99].key = -1; /* out of order at the very end */
	sort_unless_sorted(v, 100, sizeof *v, cmp_keyed);
	int ok = v[0].key == -1 && v[0].seq == 99;
	for (int i = 1; i < 100; i++)
		ok &= cmp_keyed(&v[i - 1], &v[i]) <= 0 &&
		      (v[i - 1].key != v[i].key || v[i - 1].seq < v[i].seq);
	CHECK(ok, "sort_unless_sorted: one element out of order at the end: sorted, stably");
	sort_unless_sorted(v, 0, sizeof *v, cmp_keyed);
	sort_unless_sorted(v, 1, sizeof *v, cmp_keyed);
	CHECK(v[0].key == -1, "sort_unless_sorted: none and one element leave the array as it is");
}

/* sort_str_ordinals against strcmp on every pair: strings repeated at one address and at
 * several (copies), prefixes of each other, the empty string, bytes above 127. */
static void
test_str_ordinals(void)
{
	static const char *const words[] = {
	    "",      "a", "ab",    "abc", "b", "hcom_allReduce__865_0_1", "hcom_allReduce__866_0_1",
	    "\xe4x", "Z", "ab\x7f"};
	enum { NW = sizeof words / sizeof *words, N = 300 };
	char copies[NW][32];
	const char *s[N];
	uint32_t ord[N];
	uint64_t x = 12345;
	for (size_t w = 0; w < NW; w++)
		snprintf(copies[w], sizeof copies[w], "%s", words[w]);
	for (size_t i = 0; i < N; i++) {
		size_t w = (size_t)(test_xorshift(&x) % NW);
		s[i] =
		    test_xorshift(&x) % 2 ? words[w] : copies[w]; /* the same bytes, two places */
	}
	int rc = sort_str_ordinals(s, N, ord);
	size_t bad = 0;
	for (size_t i = 0; i < N; i++)
		for (size_t j = 0; j < N; j++) {
			int c = strcmp(s[i], s[j]), o = (ord[i] > ord[j]) - (ord[i] < ord[j]);
			bad += (c > 0) - (c < 0) != o;
		}
	CHECK(rc == 0 && bad == 0, "sort_str_ordinals: ordinals order as strcmp (%zu pairs differ)",
	      bad);
	uint32_t max = 0;
	for (size_t i = 0; i < N; i++)
		max = ord[i] > max ? ord[i] : max;
	CHECK(max == NW - 1, "sort_str_ordinals: one number per distinct string, from 0 (%u)", max);
	CHECK(sort_str_ordinals(s, 0, ord) == 0, "sort_str_ordinals: none");
}

/* sort_i64 against qsort: short and long arrays, negatives and the extremes, repeats, sorted
 * and reversed input, values that differ only in a high byte. */
static void
test_sort(void)
{
	uint64_t x = 88172645463325252u;
	static const size_t sizes[] = {0, 1, 2, 47, 48, 49, 1000, 2047, 2048, 5000, 100003};
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		for (int kind = 0; kind < 7; kind++) {
			size_t n = sizes[si];
			int64_t *a = malloc((n ? n : 1) * sizeof *a),
			        *b = malloc((n ? n : 1) * sizeof *b);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				switch (kind) {
				case 0: /* anything, the extremes among them */
					a[i] = i % 97 == 0   ? INT64_MIN
					       : i % 89 == 0 ? INT64_MAX
					                     : (int64_t)x;
					break;
				case 1: /* durations: small, non-negative, repeating */
					a[i] = (int64_t)(x % 5000);
					break;
				case 2: /* sorted */
					a[i] = (int64_t)i * 3 - 100;
					break;
				case 3: /* reversed */
					a[i] = (int64_t)(n - i) * 7;
					break;
				case 4: /* one value but a few (a DB's launch delays) */
					a[i] = x % 1000 == 0 ? (int64_t)(x % 501) : 500;
					break;
				case 5: /* clustered, a few far out (select2_i64's buckets again) */
					a[i] = x % 997 == 0 ? (int64_t)(x >> 20)
					                    : 1000 + (int64_t)(x % 300);
					break;
				default: /* one high byte apart */
					a[i] = (int64_t)((x & 1) << 56) - (int64_t)(x & 2);
				}
				b[i] = a[i];
			}
			int64_t *c = malloc((n ? n : 1) * sizeof *c);
			memcpy(c, a, n * sizeof *c);
			sort_i64(a, n);
			qsort(b, n, sizeof *b, cmp_i64);
			CHECK(memcmp(a, b, n * sizeof *a) == 0 && sorted_i64(a, n),
			      "sort_i64 of %zu values (kind %d) is qsort's order", n, kind);
			/* select_i64: the k-th of the sorted values, and v split around it */
			size_t ks[] = {0, n / 2, (n * 9) / 10, n ? n - 1 : 0,
			               (size_t)(x % (n ? n : 1))},
			       bad = 0;
			int64_t *d = malloc((n ? n : 1) * sizeof *d);
			for (size_t j = 0; n > 0 && j < sizeof ks / sizeof *ks; j++) {
				memcpy(d, c, n * sizeof *d);
				int64_t v = select_i64(d, n, ks[j]);
				bad += v != b[ks[j]] || d[ks[j]] != v;
				for (size_t i = 0; i < n; i++)
					bad += i < ks[j] ? d[i] > v : i > ks[j] ? d[i] < v : 0;
				qsort(d, n, sizeof *d, cmp_i64);
				bad += memcmp(d, b, n * sizeof *d) != 0; /* the same values */
			}
			if (n > 0) /* (none: nothing to select) */
				CHECK(bad == 0,
				      "select_i64 over %zu values (kind %d): sort_i64's k-th, v "
				      "split",
				      n, kind);
			/* select2_i64: each pair of them (k1 <= k2), and v the same values */
			bad = 0;
			for (size_t j = 0; n > 0 && j < sizeof ks / sizeof *ks; j++)
				for (size_t l = 0; l < sizeof ks / sizeof *ks; l++) {
					if (ks[j] > ks[l])
						continue;
					int64_t p, q;
					memcpy(d, c, n * sizeof *d);
					select2_i64(d, n, ks[j], ks[l], &p, &q);
					bad += p != b[ks[j]] || q != b[ks[l]];
					qsort(d, n, sizeof *d, cmp_i64);
					bad += memcmp(d, b, n * sizeof *d) != 0;
				}
			if (n > 0)
				CHECK(bad == 0,
				      "select2_i64 over %zu values (kind %d): sort_i64's k1-th and "
				      "k2-th",
				      n, kind);
			/* select2_i32: the same over the values' low 32 bits, against qsort */
			int32_t *e = malloc((n ? n : 1) * sizeof *e),
			        *f = malloc((n ? n : 1) * sizeof *f);
			for (size_t i = 0; i < n; i++)
				f[i] = (int32_t)(uint32_t)(uint64_t)c[i];
			qsort(f, n, sizeof *f, cmp_i32);
			bad = 0;
			for (size_t j = 0; n > 0 && j < sizeof ks / sizeof *ks; j++)
				for (size_t l = 0; l < sizeof ks / sizeof *ks; l++) {
					if (ks[j] > ks[l])
						continue;
					int32_t p, q;
					for (size_t i = 0; i < n; i++)
						e[i] = (int32_t)(uint32_t)(uint64_t)c[i];
					select2_i32(e, n, ks[j], ks[l], &p, &q);
					bad += p != f[ks[j]] || q != f[ks[l]];
					qsort(e, n, sizeof *e, cmp_i32);
					bad += memcmp(e, f, n * sizeof *e) != 0;
				}
			if (n > 0)
				CHECK(bad == 0,
				      "select2_i32 over %zu values (kind %d): qsort's k1-th and "
				      "k2-th",
				      n, kind);
			free(e);
			free(f);
			free(d);
			free(c);
			free(a);
			free(b);
		}
	}
}

/* sort_grouped against a merge sort (ties keep their order): few keys, in order or nearly
 * (one group out of order, groups interleaved, a few ascending runs with repeated times),
 * repeated times, more keys than it groups (qsort: in order by key and time), and one key of
 * a few runs (merged at once) or more. */
typedef struct grp_el {
	int64_t key, ts, tag;
} grp_el;

static int64_t
grp_key(const void *a)
{
	return ((const grp_el *)a)->key;
}

static int
grp_cmp(const void *a, const void *b)
{
	const grp_el *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int
grp_cmp_ix(const void *ctx, size_t a, size_t b)
{
	const grp_el *v = ctx;
	return grp_cmp(&v[a], &v[b]);
}

static void
test_sort_grouped(void)
{
	uint64_t x = 88172645463325252u;
	static const size_t sizes[] = {0, 1, 2, 3, 100, 5000};
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		for (int kind = 0; kind < 7; kind++) {
			/* kinds 5 and 6: one key, 6 and 9 ascending runs with repeated times */
			size_t n = sizes[si], nk = kind == 3 ? 100 : kind >= 5 ? 1 : 5;
			size_t runlen = n / (kind == 5 ? 6 : 9) + 1;
			grp_el *a = malloc((n ? n : 1) * sizeof *a);
			size_t *ord = malloc((n ? n : 1) * sizeof *ord);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				a[i].key = (int64_t)(x % nk) - 2;
				a[i].ts = kind == 0   ? (int64_t)i / 3
				          : kind == 1 ? (a[i].key == 1 ? (int64_t)(x >> 8 & 15)
				                                       : (int64_t)i / 2)
				          : kind == 4 ? (int64_t)(i % 1000 < 500 ? i : i - 450) / 2
				          : kind >= 5 ? (int64_t)(i % runlen) / 2
				                      : (int64_t)(x >> 8 & 31);
				a[i].tag = (int64_t)i;
				ord[i] = i;
			}
			sort_index(ord, n, grp_cmp_ix, a);
			grp_el *want = malloc((n ? n : 1) * sizeof *want);
			for (size_t i = 0; i < n; i++)
				want[i] = a[ord[i]];
			grp_el *cp = malloc((n ? n : 1) * sizeof *cp);
			sort_grouped_copy(cp, a, n, sizeof *a, grp_key, grp_cmp);
			sort_grouped(a, n, sizeof *a, grp_key, grp_cmp);
			int ok = 1, same = 1;
			for (size_t i = 0; i < n; i++) {
				ok &= kind == 3 ? i == 0 || grp_cmp(&a[i - 1], &a[i]) <= 0
				                : memcmp(&a[i], &want[i], sizeof *a) == 0;
				same &= kind == 3 ? i == 0 || grp_cmp(&cp[i - 1], &cp[i]) <= 0
				                  : memcmp(&cp[i], &want[i], sizeof *a) == 0;
			}
			CHECK(ok, "sort_grouped of %zu elements (kind %d) is a merge sort's order",
			      n, kind);
			CHECK(same,
			      "sort_grouped_copy of %zu elements (kind %d) is a merge sort's order",
			      n, kind);
			free(cp);
			free(a);
			free(ord);
			free(want);
		}
	}
}

/* stderr into a temporary file until err_end, which returns what was written there (at most
 * 1023 bytes, into buf); -1 (checked) when no file could be made. */
typedef struct err_capture {
	char path[64];
	int fd, saved;
} err_capture;

static int
err_begin(err_capture *e)
{
	snprintf(e->path, sizeof e->path, "/tmp/tl-test-msg-XXXXXX");
	e->fd = mkstemp(e->path);
	if (e->fd < 0) {
		CHECK(0, "mkstemp");
		return -1;
	}
	fflush(stderr);
	e->saved = dup(2);
	dup2(e->fd, 2);
	return 0;
}

static void
err_end(err_capture *e, char *buf, size_t size)
{
	fflush(stderr);
	dup2(e->saved, 2);
	close(e->saved);
	ssize_t len = pread(e->fd, buf, size - 1, 0);
	buf[len > 0 ? len : 0] = '\0';
	close(e->fd);
	unlink(e->path);
}

/* A warning said again (the load, then an on-demand reader of the same table) is printed once;
 * another path or text is a line of its own, and each call still counts. */
static void
test_msg_once(void)
{
	err_capture e;
	if (err_begin(&e) != 0)
		return;
	unsigned n0 = msg_warn_count();
	msg_warn("/p/a.db", "CANN_API: %d calls without a usable startNs skipped", 2);
	msg_warn("/p/a.db", "CANN_API: %d calls without a usable startNs skipped", 2);
	msg_warn("/p/b.db", "CANN_API: %d calls without a usable startNs skipped", 2);
	msg_warn("/p/a.db", "CANN_API: %d calls without a usable startNs skipped", 3);
	char buf[1024];
	err_end(&e, buf, sizeof buf);
	int lines = 0;
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	CHECK(lines == 3, "a line said again is printed once (%d lines: %s)", lines, buf);
	CHECK(strstr(buf, "tl: /p/b.db: CANN_API: 2 calls") != NULL &&
	          strstr(buf, "tl: /p/a.db: CANN_API: 3 calls") != NULL,
	      "another path or count is its own line");
	CHECK(msg_warn_count() - n0 == 4, "every call counts (%u)", msg_warn_count() - n0);
}

static int
cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return (x[0] > y[0]) - (x[0] < y[0]);
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* sort_i64_pairs against qsort of the pairs: durations with repeats beside epoch starts (the
 * operator tasks), negatives and extremes, sorted and reversed input. */
static void
test_sort_pairs(void)
{
	uint64_t x = 2463534242u;
	static const size_t sizes[] = {0, 1, 2, 47, 48, 49, 1000, 100003};
	for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
		for (int kind = 0; kind < 4; kind++) {
			size_t n = sizes[si];
			int64_t *k = malloc((n ? n : 1) * sizeof *k),
			        *v = malloc((n ? n : 1) * sizeof *v),
			        *b = malloc((n ? 2 * n : 1) * sizeof *b);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				switch (kind) {
				case 0: /* durations repeating, starts at an epoch, some equal */
					k[i] = (int64_t)(x % 7);
					v[i] = INT64_C(1700000000000000000) +
					       (int64_t)((x >> 20) % 50);
					break;
				case 1: /* anything, the extremes among them */
					k[i] = i % 31 == 0 ? INT64_MIN : (int64_t)x;
					v[i] = i % 29 == 0 ? INT64_MAX : -(int64_t)(x >> 3);
					break;
				case 2: /* sorted */
					k[i] = (int64_t)i / 3;
					v[i] = (int64_t)i;
					break;
				default: /* reversed */
					k[i] = (int64_t)(n - i);
					v[i] = -(int64_t)i;
				}
				b[2 * i] = k[i];
				b[2 * i + 1] = v[i];
			}
			sort_i64_pairs(k, v, n);
			qsort(b, n, 2 * sizeof *b, cmp_pair);
			int same = 1;
			for (size_t i = 0; i < n; i++)
				same &= k[i] == b[2 * i] && v[i] == b[2 * i + 1];
			CHECK(same, "sort_i64_pairs of %zu pairs (kind %d) is qsort's order", n,
			      kind);
			free(k);
			free(v);
			free(b);
		}
	}
}

/* util/heap: random pushes and pops of 24-byte elements (a key and its order of arrival, so
 * equal keys must come out by the tie rule) and a heap made at once, against a sort. */
typedef struct hel {
	int64_t key;
	uint64_t seq, pad;
} hel;

static int
hel_before(const void *va, const void *vb, void *ctx)
{
	const hel *a = va, *b = vb;
	int *calls = ctx;
	(*calls)++;
	return a->key != b->key ? a->key < b->key : a->seq < b->seq;
}

static int
hel_cmp(const void *va, const void *vb)
{
	const hel *a = va, *b = vb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* the least of ref[0 .. n), removed */
static hel
ref_pop(hel *ref, size_t *n)
{
	size_t m = 0;
	for (size_t i = 1; i < *n; i++)
		if (hel_cmp(&ref[i], &ref[m]) < 0)
			m = i;
	hel x = ref[m];
	ref[m] = ref[--*n];
	return x;
}

static void
test_heap(void)
{
	uint64_t rng = 12345;
	size_t bad = 0, popped = 0;
	int calls = 0;
	for (int round = 0; round < 200; round++) {
		size_t cap = 1 + test_xorshift(&rng) % 300, n = 0, nref = 0;
		hel *h = xmalloc(cap * sizeof *h), *ref = xmalloc(cap * sizeof *ref);
		uint64_t seq = 0;
		/* pushes and pops mixed, each pop against the least of a plain array */
		for (size_t op = 0; op < 3 * cap || n > 0; op++) {
			if (op < 3 * cap && n < cap && (n == 0 || test_xorshift(&rng) % 3 != 0)) {
				hel x = {(int64_t)(test_xorshift(&rng) % 20) - 10, seq++, 0};
				ref[nref++] = x;
				h[n] = x;
				heap_up(h, sizeof *h, n++, hel_before, &calls);
			} else {
				hel want = ref_pop(ref, &nref);
				bad += hel_cmp(&h[0], &want) != 0;
				h[0] = h[--n];
				heap_down(h, n, sizeof *h, 0, hel_before, &calls);
				popped++;
			}
		}
		/* heap_make over a reversed run, then pops */
		for (size_t i = 0; i < cap; i++) {
			h[i] = (hel){(int64_t)(test_xorshift(&rng) % 50), cap - i, 0};
			ref[i] = h[i];
		}
		n = nref = cap;
		heap_make(h, n, sizeof *h, hel_before, &calls);
		while (n > 0) {
			hel want = ref_pop(ref, &nref);
			bad += hel_cmp(&h[0], &want) != 0;
			h[0] = h[--n];
			heap_down(h, n, sizeof *h, 0, hel_before, &calls);
			popped++;
		}
		free(h);
		free(ref);
	}
	CHECK(bad == 0 && popped > 10000 && calls > 0,
	      "heap: pushes and pops mixed, and heaps made at once: every pop the least (%zu "
	      "pops, %zu differ)",
	      popped, bad);
}

static void *
defer_warner(void *arg)
{
	(void)arg;
	msg_warn(NULL, "deferred: said by another thread");
	return NULL;
}

/* msg_defer: what any thread says meanwhile comes out at the end, after the lines handed to
 * msg_defer_end (a held thread's, captured), and in the order it was said. */
static void
test_msg_defer(void)
{
	err_capture e;
	if (err_begin(&e) != 0)
		return;
	unsigned n0 = msg_warn_count();
	msg_list held = {0};
	msg_defer_begin();
	msg_warn(NULL, "deferred: said first, here");
	pthread_t th;
	int started = pthread_create(&th, NULL, defer_warner, NULL) == 0;
	if (started)
		pthread_join(th, NULL);
	msg_hold(1); /* as the critical path's job holds its own */
	msg_capture(msg_keep, &held);
	msg_warn(NULL, "held: said by the job");
	msg_capture(NULL, NULL);
	msg_hold(0);
	fflush(stderr);
	off_t before = lseek(e.fd, 0, SEEK_END);
	unsigned n1 = msg_warn_count();
	msg_defer_end(&held);
	char buf[1024];
	err_end(&e, buf, sizeof buf);
	CHECK(before == 0 && n1 == n0, "nothing said nor counted while deferring");
	CHECK(started, "a thread");
	CHECK_STR(buf,
	          "tl: held: said by the job\ntl: deferred: said first, here\n"
	          "tl: deferred: said by another thread\n",
	          "the held lines first, then the deferred ones in order");
	CHECK_EQ_I64(msg_warn_count() - n0, 3, "each counted when said");
}

int
main(void)
{
	test_msg_once();
	test_msg_defer();
	test_strpool_view();
	test_sort();
	test_sort_grouped();
	test_sort_unless_sorted();
	test_str_ordinals();
	test_sort_pairs();
	test_heap();
	test_rankspec();
	test_timefmt();
	test_strpool();
	test_u64map();
	test_text();
	test_json_lex();
	return test_done();
}
