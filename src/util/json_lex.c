/* The JSON lexer's byte tables and a long string's rest (the lexer is otherwise inline in
 * json_lex.h: the trace loader's scanner spends most of its time in it). */
#include "config.h"
#include "util/json_lex.h"

#include <pthread.h>

unsigned char json_str_plain[256], json_nest_special[256], json_scalar_end[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void
tables_init(void)
{
	for (int i = 0x20; i < 0x80; i++)
		json_str_plain[i] = i != '"' && i != '\\';
	json_nest_special['"'] = json_nest_special['{'] = json_nest_special['}'] = 1;
	json_nest_special['['] = json_nest_special[']'] = 1;
	for (const char *p = " \t\r\n,]}\"{[:"; *p; p++)
		json_scalar_end[(unsigned char)*p] = 1;
}

void
json_tables_init(void)
{
	pthread_once(&tables_once, tables_init);
}

/* The offset of the first byte at or after b[i] that a string's body does not run over (a
 * '"', a '\\', a byte >= 0x80, or a control character where no wider step is taken), or n. */
static inline size_t
str_stop(const unsigned char *b, size_t n, size_t i)
{
#ifdef __SSE2__
	while (i + 16 <= n) {
		unsigned m = json_str_stop16(b + i);
		if (m != 0)
			return i + (size_t)__builtin_ctz(m);
		i += 16;
	}
#endif
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (i + 8 <= n) {
		uint64_t v;
		memcpy(&v, b + i, 8);
		uint64_t m = json_str_stop8(v);
		if (m != 0)
			return i + ((size_t)__builtin_ctzll(m) >> 3);
		i += 8;
	}
#endif
	while (i < n && json_str_plain[b[i]])
		i++;
	return i;
}

size_t
json_scan_string_rest(const unsigned char *b, size_t n, size_t i, int *bad, size_t *bad_off)
{
	for (;;) {
		i = str_stop(b, n, i);
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
