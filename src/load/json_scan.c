/* The JSON scanner of the trace loader: finds the byte bounds of one event object at a time in
 * the mapped file (strings, escapes, nesting, UTF-8) and notes where its members are, and
 * parses decimal times exactly into integer ns. Pure: bytes in, bounds out. */
#include "config.h"
#include "load/trace_json_int.h"
#include "load/load_int.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/strpool.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- decimal times ------------------------------------------------------------------------- */

/* Parses the decimal number s[0..n) (JSON number syntax, leniently: '+', ".5", "5." pass) and
 * scales it by 10^scale, rounding half away from zero, into *out. Exact: at most 19
 * significant digits are kept and the first dropped one rounds. DEC_NAN when s is not a
 * number (NaN, Infinity, "", text), DEC_RANGE when the result does not fit in int64. */
int
json_dec_parse(const char *s, size_t n, int scale, int64_t *out)
{
	size_t i = 0;
	int neg = 0, ndig = 0, nsig = 0, rdig = -1;
	uint64_t m = 0;
	int64_t e10 = scale;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndig++) {
		int d = s[i] - '0';
		if (nsig < 19) {
			m = m * 10 + (uint64_t)d;
			nsig += m != 0;
		} else {
			e10++; /* a dropped integer digit */
			if (rdig < 0)
				rdig = d;
		}
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndig++) {
			int d = s[i] - '0';
			if (nsig < 19) {
				m = m * 10 + (uint64_t)d;
				nsig += m != 0;
				e10--;
			} else if (rdig < 0) {
				rdig = d;
			}
		}
	}
	if (ndig == 0)
		return DEC_NAN;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0, edig = 0;
		int64_t ex = 0;
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edig++)
			if (ex < 100000)
				ex = ex * 10 + (s[i] - '0');
		if (edig == 0)
			return DEC_NAN;
		e10 += eneg ? -ex : ex;
	}
	if (i != n)
		return DEC_NAN;
	uint64_t v;
	if (m == 0) {
		v = 0;
	} else if (e10 >= 0) {
		v = m;
		for (int64_t k = 0; k < e10; k++) {
			if (v > UINT64_MAX / 10)
				return DEC_RANGE;
			v *= 10;
		}
		if (e10 == 0 && rdig >= 5)
			v++;
	} else if (e10 < -20) {
		v = 0; /* far below a nanosecond */
	} else {
		uint64_t p = 1;
		for (int64_t k = 1; k < -e10; k++)
			p *= 10;
		/* v = m / 10^-e10, rounded by the first digit dropped */
		v = e10 == -20 ? 0 : m / p / 10;
		int r = e10 == -20 ? 0 : (int)(m / p % 10);
		if (r >= 5)
			v++;
	}
	if (v > (uint64_t)INT64_MAX)
		return DEC_RANGE;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return DEC_OK;
}

/* ---- the scanner --------------------------------------------------------------------------- */
const char *const json_problem_text[PR__N] = {
    [PR_UTF8] = "invalid UTF-8 in a string",
    [PR_DEPTH] = "an event nested deeper than 64 levels",
    [PR_NOT_OBJECT] = "an array element that is not an event object",
    [PR_NO_TS] = "an event without \"ts\"",
    [PR_TS_NAN] = "a \"ts\" that is not a number",
    [PR_TS_RANGE] = "a \"ts\" out of range",
    [PR_DUR] = "a \"dur\" that is missing, negative, not a number or out of range",
    [PR_PARSE] = "an event that is not valid JSON",
    [PR_ARGS] = "\"args\" that are not valid JSON (the event is kept without them)",
    [PR_UNPAIRED] = "a \"B\" event without its \"E\" on the same thread, or an \"E\" without a "
                    "\"B\" (or before it)",
};

/* Bytes a string body runs over without a closer look: printable ASCII but '"' and '\\'. */
static unsigned char str_plain[256];
/* Bytes where skip_nested looks closer: '"', '{', '}', '[', ']'. */
static unsigned char nest_special[256];
/* Bytes that end a scalar: white space and the JSON punctuation. */
static unsigned char scalar_end[256];

void
json_tables_init(void)
{
	for (int i = 0x20; i < 0x80; i++)
		str_plain[i] = i != '"' && i != '\\';
	nest_special['"'] = nest_special['{'] = nest_special['}'] = 1;
	nest_special['['] = nest_special[']'] = 1;
	for (const char *p = " \t\r\n,]}\"{[:"; *p; p++)
		scalar_end[(unsigned char)*p] = 1;
}

/* Length of the valid UTF-8 sequence at b[0..n) (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t
utf8_len(const unsigned char *b, size_t n)
{
	unsigned c = b[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || b[1] < lo || b[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (b[k] < 0x80 || b[k] > 0xBF)
			return 0;
	return len;
}

/* Eight bytes at a time: nonzero when v holds a '"', a '\\' or a byte >= 0x80 (SWAR). */
static uint64_t
str_stop8(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t q = v ^ (ones * '"'), bs = v ^ (ones * '\\');
	return (((q - ones) & ~q) | ((bs - ones) & ~bs) | v) & high;
}

/* b[i] is just after an opening quote. Returns the offset after the closing quote, or SIZE_MAX
 * when the input ends first. Invalid UTF-8 is noted in *bad / *bad_off (the first only). */
size_t
json_scan_string(const unsigned char *b, size_t n, size_t i, int *bad, size_t *bad_off)
{
	for (;;) {
		while (i + 8 <= n) {
			uint64_t v;
			memcpy(&v, b + i, 8);
			uint64_t m = str_stop8(v);
			if (m) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				/* the lowest flagged byte is exact: straight to it */
				i += (size_t)__builtin_ctzll(m) >> 3;
#endif
				break;
			}
			i += 8;
		}
		while (i < n && str_plain[b[i]])
			i++;
		if (i >= n)
			return SIZE_MAX;
		unsigned c = b[i];
		if (c == '"')
			return i + 1;
		if (c == '\\') {
			i += 2;
			continue;
		}
		if (c < 0x80) { /* a raw control character: not ours to judge */
			i++;
			continue;
		}
		size_t len = utf8_len(b + i, n - i);
		if (len == 0) {
			if (*bad < 0) {
				*bad = PR_UTF8;
				*bad_off = i;
			}
			len = 1;
		}
		i += len;
	}
}

static int
is_ws(unsigned c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

size_t
json_skip_ws(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && is_ws(b[i]))
		i++;
	return i;
}

/* End of a scalar (number, true, NaN, or junk) starting at i. */
size_t
json_skip_scalar(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && !scalar_end[b[i]])
		i++;
	return i;
}

/* Which top-level member a key names (F__N: none we read). */
static int
field_of(const unsigned char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return F_PH;
		if (k[0] == 't' && k[1] == 's')
			return F_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return F_ID;
		break;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return F_PID;
		if (memcmp(k, "tid", 3) == 0)
			return F_TID;
		if (memcmp(k, "dur", 3) == 0)
			return F_DUR;
		if (memcmp(k, "cat", 3) == 0)
			return F_CAT;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return F_NAME;
		if (memcmp(k, "args", 4) == 0)
			return F_ARGS;
		break;
	}
	return F__N;
}

/* b[i] is '{' or '[' at nesting level depth0 + 1. Returns the offset after the matching close,
 * or SIZE_MAX when the input ends first. Only strings and brackets matter here: the values
 * themselves are cJSON's to check, for the events that are used. */
size_t
json_skip_nested(const unsigned char *b, size_t n, size_t i, size_t depth0, jevent *ev)
{
	size_t depth = 0;
	for (;;) {
		while (i < n && !nest_special[b[i]])
			i++;
		if (i >= n)
			return SIZE_MAX;
		switch (b[i]) {
		case '"':
			i = json_scan_string(b, n, i + 1, &ev->bad, &ev->bad_off);
			if (i == SIZE_MAX)
				return SIZE_MAX;
			continue;
		case '{':
		case '[':
			if (depth0 + ++depth > MAX_DEPTH && ev->bad < 0) {
				ev->bad = PR_DEPTH;
				ev->bad_off = i;
			}
			i++;
			continue;
		default:
			i++;
			if (--depth == 0)
				return i;
		}
	}
}

/* b[i] is '{': an event. Finds its end and where its members ph, name, ... sit (ev->f), and
 * notes invalid UTF-8, excess nesting, or a broken member list (ev->bad). Returns 0 with
 * ev->end set, or -1 when the input ends first. */
int
json_scan_event(const unsigned char *b, size_t n, size_t i, jevent *ev)
{
	size_t start = i;
	ev->start = i;
	ev->bad = -1;
	for (int f = 0; f < F__N; f++)
		ev->f[f] = (jspan){0, 0}; /* absent (span_text adds off even then) */
	i++;
	for (;;) {
		i = json_skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] == '}')
			break;
		if (b[i] != '"')
			goto broken;
		size_t ks = i + 1;
		i = json_scan_string(b, n, ks, &ev->bad, &ev->bad_off);
		if (i == SIZE_MAX)
			return -1;
		int f = field_of(b + ks, i - ks - 1);
		i = json_skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] != ':')
			goto broken;
		size_t vs = i = json_skip_ws(b, n, i + 1);
		if (i >= n)
			return -1;
		if (b[i] == '"')
			i = json_scan_string(b, n, i + 1, &ev->bad, &ev->bad_off);
		else if (b[i] == '{' || b[i] == '[')
			i = json_skip_nested(b, n, i, 1, ev);
		else if ((i = json_skip_scalar(b, n, i)) == vs)
			goto broken;
		if (i == SIZE_MAX)
			return -1;
		if (f < F__N)
			ev->f[f] = (jspan){vs, i - vs};
		i = json_skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] == ',')
			i++;
		else if (b[i] == '}')
			break;
		else
			goto broken;
	}
	ev->end = i + 1;
	return 0;
broken:
	/* not a member list: find the end by the brackets alone and skip the event */
	if (ev->bad < 0) {
		ev->bad = PR_PARSE;
		ev->bad_off = i;
	}
	i = json_skip_nested(b, n, start, 0, ev);
	if (i == SIZE_MAX)
		return -1;
	ev->end = i;
	return 0;
}
