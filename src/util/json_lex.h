/* The JSON lexer: strings (escapes, UTF-8 checked as RFC 3629 has it), white space, scalars and
 * nested values, by byte offsets into a buffer that may end anywhere (a mapped file, or the
 * first bytes of one). Pure: bytes in, offsets out; it allocates nothing and keeps no state but
 * its byte tables (json_lex.c). The trace loader's event scanner and discovery's look at a JSON
 * file's start both read JSON through it. Inline (but for a string's rest past its first
 * window, json_lex.c): the scanner spends most of its time here. */
#ifndef TL_UTIL_JSON_LEX_H
#define TL_UTIL_JSON_LEX_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define JSON_MAX_DEPTH 64 /* nesting json_skip_nested accepts before it reports JSON_BAD_DEPTH */

/* What the lexer reports in *bad (the first problem only; the caller sets *bad to -1 first). */
enum { JSON_BAD_UTF8, JSON_BAD_DEPTH };

/* Fills the byte tables; call once before the others (more calls do nothing). Thread-safe. */
void json_tables_init(void);
/* The tables json_tables_init fills, for the inline functions below: the bytes a string body
 * runs over without a closer look (printable ASCII but '"' and '\\'), those where
 * json_skip_nested looks closer ('"' and the brackets), and those that end a scalar (white
 * space and the JSON punctuation). */
extern unsigned char json_str_plain[256], json_nest_special[256], json_scalar_end[256];

/* Length of the valid UTF-8 sequence at b[0..n) (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), or 0. */
static inline size_t
json_utf8_len(const unsigned char *b, size_t n)
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
static inline uint64_t
json_str_stop8(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t q = v ^ (ones * '"'), bs = v ^ (ones * '\\');
	return (((q - ones) & ~q) | ((bs - ones) & ~bs) | v) & high;
}

#ifdef __SSE2__
/* Sixteen bytes at p: bit k set when p[k] is a '"', a '\\' or a byte >= 0x80 (SSE2, x86_64's
 * baseline). */
static inline unsigned
json_str_stop16(const unsigned char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i s = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
	                         _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
	return (unsigned)_mm_movemask_epi8(_mm_or_si128(s, v)); /* v: its bytes >= 0x80 */
}
#endif

/* The rest of a string from b[i] on, past its first window (json_lex.c): sixteen bytes a step
 * with SSE2, eight otherwise. What json_scan_string returns. */
size_t json_scan_string_rest(const unsigned char *b, size_t n, size_t i, int *bad, size_t *bad_off);

/* b[i] is just after an opening quote. Returns the offset after the closing quote, or SIZE_MAX
 * when the input ends first. Invalid UTF-8 is noted in *bad / *bad_off (the first only). The
 * first window in line (sixteen bytes with SSE2, else eight), where most member names and short
 * values end: the lowest byte flagged is exact, and a quote there is the string's end. */
static inline size_t
json_scan_string(const unsigned char *b, size_t n, size_t i, int *bad, size_t *bad_off)
{
#ifdef __SSE2__
	if (i + 16 <= n) {
		unsigned m = json_str_stop16(b + i);
		if (m != 0) {
			i += (size_t)__builtin_ctz(m);
			if (b[i] == '"')
				return i + 1;
		} else {
			i += 16;
		}
	}
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (i + 8 <= n) {
		uint64_t v;
		memcpy(&v, b + i, 8);
		uint64_t m = json_str_stop8(v);
		if (m != 0) {
			i += (size_t)__builtin_ctzll(m) >> 3;
			if (b[i] == '"')
				return i + 1;
		} else {
			i += 8;
		}
	}
#endif
	return json_scan_string_rest(b, n, i, bad, bad_off);
}

static inline int
json_is_ws(unsigned c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline size_t
json_skip_ws(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && json_is_ws(b[i]))
		i++;
	return i;
}

/* Whether the 8 bytes of v (in memory order) are all ASCII digits. */
static inline int
json_digits8(uint64_t v)
{
	const uint64_t hi = 0xF0F0F0F0F0F0F0F0ull, zeros = 0x3030303030303030ull;
	return (v & hi) == zeros && ((v + 0x0606060606060606ull) & hi) == zeros;
}

/* End of a scalar (number, true, NaN, or junk) starting at i. Eight digits a step while they
 * are all digits (a time's sixteen before its point; the test looks at each byte, whatever the
 * byte order), then byte by byte to the stop. */
static inline size_t
json_skip_scalar(const unsigned char *b, size_t n, size_t i)
{
	while (i + 8 <= n) {
		uint64_t v;
		memcpy(&v, b + i, 8);
		if (!json_digits8(v))
			break;
		i += 8;
	}
	while (i < n && !json_scalar_end[b[i]])
		i++;
	return i;
}

/* b[i] is '{' or '[' at nesting level depth0 + 1. Returns the offset after the matching close,
 * or SIZE_MAX when the input ends first. Only strings and brackets matter here: the values
 * themselves are cJSON's to check, for the events that are used. */
static inline size_t
json_skip_nested(const unsigned char *b, size_t n, size_t i, size_t depth0, int *bad,
                 size_t *bad_off)
{
	size_t depth = 0;
	for (;;) {
		while (i < n && !json_nest_special[b[i]])
			i++;
		if (i >= n)
			return SIZE_MAX;
		switch (b[i]) {
		case '"':
			i = json_scan_string(b, n, i + 1, bad, bad_off);
			if (i == SIZE_MAX)
				return SIZE_MAX;
			continue;
		case '{':
		case '[':
			if (depth0 + ++depth > JSON_MAX_DEPTH && *bad < 0) {
				*bad = JSON_BAD_DEPTH;
				*bad_off = i;
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

#endif
