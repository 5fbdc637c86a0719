/* The event scanner (load/json/json_scan.c, json_scan_event): where an event ends and where its
 * members ph, name, cat, ts, dur, pid, tid, id and args sit. Events are written here member by
 * member from near-miss names ("p", "phh", "pi", "nam", "names", a name with an escape...) and
 * values of every kind, with white space or none between the tokens; the expected spans are the
 * offsets the writer put each value at, not anything the scanner computed. Each event is
 * scanned from a buffer of exactly its length (a read past it is a sanitizer's error), and inside
 * a longer one. Beside it, walk 1's "context id" test (json_has_context_id) against a plain
 * search, and the lexer's strings and scalars (json_lex.h) against a byte-by-byte reading. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/json/trace_json_int.h"
#include "util/xalloc.h"
#include "../test.h"

static const struct {
	const char *text; /* the name's raw bytes between the quotes */
	int f;            /* the field it names, or F__N */
} names[] = {
    {"ph", F_PH},
    {"ts", F_TS},
    {"id", F_ID},
    {"pid", F_PID},
    {"tid", F_TID},
    {"dur", F_DUR},
    {"cat", F_CAT},
    {"name", F_NAME},
    {"args", F_ARGS},
    {"p", F__N},
    {"phh", F__N},
    {"t", F__N},
    {"tss", F__N},
    {"pi", F__N},
    {"pidd", F__N},
    {"nam", F__N},
    {"names", F__N},
    {"arg", F__N},
    {"argss", F__N},
    {"i", F__N},
    {"idd", F__N},
    {"du", F__N},
    {"ca", F__N},
    {"PH", F__N},
    {"ph\\\"", F__N},
    {"\\u0070h", F__N},
    {"", F__N},
    {"x", F__N},
    {"a_longer_name", F__N},
    {"na\\\\me", F__N},
    {"p\\\"d", F__N},
    {"ts\\\\", F__N},
};

static const char *const values[] = {
    "\"X\"",
    "\"B\"",
    "\"\"",
    "\"a\\\"b\"",
    "\"1736407067000000.000\"",
    "12",
    "-1.5e3",
    "true",
    "null",
    "{}",
    "[]",
    "{\"a\": [1, {\"b\": \"}\"}]}",
    "[\"]\", \"{\"]",
    "\"\\\\\"",
    "\"x\\\\\\\"y\"",
};

static const char *const spaces[] = {"", "", "", " ", "  ", "\n", "\t", "\r\n "};

#define NNAMES (sizeof names / sizeof names[0])
#define NVALUES (sizeof values / sizeof values[0])
#define NSPACES (sizeof spaces / sizeof spaces[0])

static unsigned long long rng = 0x9E3779B97F4A7C15ull;

static unsigned
next(unsigned m)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % m);
}

static size_t
put(char *b, size_t n, const char *s)
{
	size_t l = strlen(s);
	memcpy(b + n, s, l);
	return n + l;
}

/* Writes one event at b[0..), its expected spans to want; returns its length. */
static size_t
write_event(char *b, jspan *want)
{
	size_t n = 0;
	int members = (int)next(9);
	for (int f = 0; f < F__N; f++)
		want[f] = (jspan){0, 0};
	b[n++] = '{';
	for (int k = 0; k < members; k++) {
		unsigned nm = next(NNAMES), v = next(NVALUES);
		if (k > 0)
			b[n++] = ',';
		n = put(b, n, spaces[next(NSPACES)]);
		b[n++] = '"';
		n = put(b, n, names[nm].text);
		b[n++] = '"';
		n = put(b, n, spaces[next(NSPACES)]);
		b[n++] = ':';
		n = put(b, n, spaces[next(NSPACES)]);
		size_t vs = n;
		n = put(b, n, values[v]);
		if (names[nm].f < F__N)
			want[names[nm].f] = (jspan){vs, n - vs};
		n = put(b, n, spaces[next(NSPACES)]);
	}
	b[n++] = '}';
	return n;
}

static int
same_spans(const jevent *ev, const jspan *want, size_t at)
{
	for (int f = 0; f < F__N; f++) {
		size_t off = want[f].len > 0 ? want[f].off + at : 0;
		if (ev->f[f].len != want[f].len || (want[f].len > 0 && ev->f[f].off != off))
			return 0;
	}
	return 1;
}

static void
random_events(void)
{
	int bad_exact = 0, bad_inside = 0, events = 20000;
	char text[4096];
	for (int e = 0; e < events; e++) {
		jspan want[F__N];
		size_t len = write_event(text, want);
		/* alone, in a buffer of its own length */
		unsigned char *b = xmalloc(len);
		memcpy(b, text, len);
		jevent ev;
		if (json_scan_event(b, len, 0, &ev) != 0 || ev.end != len || ev.bad >= 0 ||
		    !same_spans(&ev, want, 0)) {
			if (bad_exact++ == 0)
				fprintf(stderr, "# alone: %.*s\n", (int)len, text);
		}
		free(b);
		/* after other bytes and before more */
		size_t at = 1 + next(70);
		b = xmalloc(at + len + 16);
		memset(b, ' ', at);
		memcpy(b + at, text, len);
		memcpy(b + at + len, ", {\"ph\": \"X\"}]  ", 16);
		if (json_scan_event(b, at + len + 16, at, &ev) != 0 || ev.end != at + len ||
		    ev.bad >= 0 || !same_spans(&ev, want, at)) {
			if (bad_inside++ == 0)
				fprintf(stderr, "# inside at %zu: %.*s\n", at, (int)len, text);
		}
		free(b);
	}
	CHECK(bad_exact == 0,
	      "%d random events scanned alone: the members where they were put "
	      "(%d not)",
	      events, bad_exact);
	CHECK(bad_inside == 0, "%d random events scanned inside a longer text: the same (%d not)",
	      events, bad_inside);
}

/* The names the scanner knows on sight, cut short by the end of the input at every byte. */
static void
cut_short(void)
{
	const char *ev = "{\"ph\":\"X\",\"name\":\"a\",\"args\":{}}";
	size_t len = strlen(ev);
	int wrong = 0;
	for (size_t n = 1; n < len; n++) {
		unsigned char *b = xmalloc(n);
		memcpy(b, ev, n);
		jevent e;
		if (json_scan_event(b, n, 0, &e) != -1)
			wrong++;
		free(b);
	}
	CHECK(wrong == 0,
	      "an event cut short at any of its %zu bytes: the input ends first (%d "
	      "not)",
	      len - 1, wrong);
}

/* json_has_context_id (in line 16 bytes at a time for 27-95 bytes, memchr otherwise) against a
 * byte-by-byte search, on texts of 0-200 bytes made of pieces of the name, near misses and
 * single bytes, each in a buffer of exactly its length. */
static void
context_id(void)
{
	static const char *const pieces[] = {"\"context id\"",
	                                     "context id",
	                                     "\"contex",
	                                     "t id\"",
	                                     "\"external id\": 1",
	                                     "x",
	                                     "xt",
	                                     "ntext id",
	                                     "\"context id",
	                                     "context id\"",
	                                     "\"conte\"",
	                                     ", ",
	                                     "\"cbid\": 211"};
	static const char bytes[] = "xtn\" cidoe{}:,0";
	unsigned seed = 12345;
	int wrong = 0, found = 0, runs = 200000;
	for (int r = 0; r < runs; r++) {
		char buf[260];
		size_t n = 0, want;
		seed = seed * 1103515245u + 12345u;
		want = (seed >> 16) % 201;
		while (n < want) {
			seed = seed * 1103515245u + 12345u;
			unsigned v = seed >> 16;
			const char *s =
			    v % 4 == 0 ? pieces[(v / 4) % (sizeof pieces / sizeof *pieces)] : NULL;
			size_t k = s != NULL ? strlen(s) : 1;
			if (n + k > 240)
				break;
			if (s != NULL)
				memcpy(buf + n, s, k);
			else
				buf[n] = bytes[(v / 4) % (sizeof bytes - 1)];
			n += k;
		}
		unsigned char *t = xmalloc(n > 0 ? n : 1);
		memcpy(t, buf, n);
		int expect = 0;
		for (size_t i = 0; i + 12 <= n && !expect; i++)
			expect = memcmp(t + i, "\"context id\"", 12) == 0;
		wrong += json_has_context_id(t, n) != expect;
		found += expect;
		free(t);
	}
	CHECK(wrong == 0 && found > runs / 10 && found < runs - runs / 10,
	      "\"context id\" found in %d random texts as a plain search finds it (%d of %d not)",
	      found, wrong, runs);
}

/* json_scan_string read byte by byte, as the lexer did before its eight- and sixteen-byte
 * steps: what each of those must come to. */
static size_t
string_bytewise(const unsigned char *b, size_t n, size_t i, int *bad, size_t *bad_off)
{
	for (;;) {
		if (i >= n)
			return SIZE_MAX;
		unsigned c = b[i];
		if (c == '"')
			return i + 1;
		if (c == '\\') {
			i += 2;
			continue;
		}
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len = json_utf8_len(b + i, n - i);
		if (len == 0) {
			if (*bad < 0) {
				*bad = JSON_BAD_UTF8;
				*bad_off = i;
			}
			len = 1;
		}
		i += len;
	}
}

/* One string body in a buffer of exactly its length (after an opening quote at b[at - 1]):
 * json_scan_string's end and complaint against the byte-by-byte reading's. */
static int
string_same(const unsigned char *body, size_t len, size_t at)
{
	unsigned char *b = xmalloc(at + len + 1);
	memset(b, '"', at);
	memcpy(b + at, body, len);
	int bad1 = -1, bad2 = -1;
	size_t off1 = 0, off2 = 0;
	size_t e1 = json_scan_string(b, at + len, at, &bad1, &off1);
	size_t e2 = string_bytewise(b, at + len, at, &bad2, &off2);
	free(b);
	return e1 == e2 && bad1 == bad2 && (bad1 < 0 || off1 == off2);
}

/* Strings of every length 0-200 with one byte the fast steps stop at (a quote, a backslash
 * with what it escapes, UTF-8 valid and not, a control character) at every place, from each
 * of the 16 alignments; then random mixes of them. */
static void
strings_every_place(void)
{
	static const char *const stops[] = {
	    "\"",   "\\\"", "\\\\", "\\", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
	    "\xFF", "\xC3", "\x01", "\t"};
	unsigned char body[260];
	int wrong = 0, runs = 0;
	for (size_t len = 0; len <= 200; len++)
		for (size_t p = 0; p <= len; p++)
			for (size_t k = 0; k < sizeof stops / sizeof *stops; k++) {
				size_t sl = strlen(stops[k]), bl = len;
				memset(body, 'a' + (int)(p % 26), len);
				if (p < len) {
					if (p + sl > len)
						bl = p + sl;
					memcpy(body + p, stops[k], sl);
				}
				wrong += !string_same(body, bl, 1 + (len + p + k) % 16);
				runs++;
			}
	static const char *const pieces[] = {"a",    "bc",       "\"",   "\\\"", "\\\\", "\xC3\xA9",
	                                     "\xFF", "\xE2\x82", "\x01", "xyzw", "\\"};
	for (int r = 0; r < 100000; r++) {
		size_t bl = 0, want = next(201);
		while (bl < want) {
			const char *s = pieces[next(sizeof pieces / sizeof *pieces)];
			size_t sl = strlen(s);
			memcpy(body + bl, s, sl);
			bl += sl;
		}
		wrong += !string_same(body, bl, 1 + next(16));
		runs++;
	}
	CHECK(wrong == 0,
	      "%d strings read as byte by byte: the same end and the same complaint (%d not)", runs,
	      wrong);
}

/* json_skip_scalar (eight digits a step) against the byte-by-byte reading: digit runs of 0-40
 * with a dot, a letter or a stop byte at every place, each in a buffer of exactly its length. */
static void
scalars_every_place(void)
{
	static const char others[] = ".e-+x,} ]:\"{\n";
	int wrong = 0, runs = 0;
	for (size_t len = 0; len <= 40; len++)
		for (size_t p = 0; p <= len; p++)
			for (size_t k = 0; k < sizeof others - 1; k++) {
				unsigned char *b = xmalloc(len + 1);
				memset(b, '0' + (int)(len % 10), len);
				if (p < len)
					b[p] = (unsigned char)others[k];
				size_t want = 0;
				while (want < len && !json_scalar_end[b[want]])
					want++;
				wrong += json_skip_scalar(b, len, 0) != want;
				free(b);
				runs++;
			}
	CHECK(wrong == 0, "%d scalars end where a byte-by-byte reading ends them (%d not)", runs,
	      wrong);
}

int
main(void)
{
	json_tables_init();
	random_events();
	cut_short();
	context_id();
	strings_every_place();
	scalars_every_place();
	return test_done();
}
