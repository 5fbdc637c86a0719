/* util/outbuf against printf, and the JSON string escaping it shares with text_json_write
 * against the escaping written one character at a time (the reference below): the report's
 * JSON must read byte for byte as it did through fprintf. */
#include "config.h"
#include "util/outbuf.h"
#include "util/text.h"

#include <inttypes.h>
#include <stdlib.h>

#include "../test.h"

/* The reference: each code point on its own, as text_json_write wrote before its runs. */
static void
json_ref(FILE *f, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned cp;
		int l = text_utf8_decode(s + i, n - i, &cp);
		if (cp == '"')
			fputs("\\\"", f);
		else if (cp == '\\')
			fputs("\\\\", f);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp == '\r')
			fputs("\\r", f);
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			fprintf(f, "\\u%04x", cp);
		else if (cp == 0xfffd && l == 1)
			fputs("\xef\xbf\xbd", f);
		else
			fwrite(s + i, 1, (size_t)l, f);
		i += (size_t)l;
	}
}

static const char *const strs[] = {
    "",
    "hcom_allReduce__210_0_1",
    "a\"b\\c\nd\te\rf",
    "\x01\x1f\x7f end",
    "caf\xc3\xa9 \xe2\x80\xae rlo \xc2\x9b c1",
    "bad \xff\xfe utf8 \xe0\x80 short \xf0\x9f\x98",
    "\xef\xbf\xbd real replacement",
    "x",
    /* out_json_str copies printable ASCII in one piece: its edges, and a stop at the end */
    " !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~",
    "plain until the last byte\x7f",
    "plain until a quote\"",
};

int
main(void)
{
	/* the same values through fprintf and through the buffer, into two memory streams */
	char *pa = NULL, *pb = NULL;
	size_t la = 0, lb = 0;
	FILE *a = open_memstream(&pa, &la), *b = open_memstream(&pb, &lb);
	tl_out *o = malloc(sizeof *o);
	out_begin(o, b);
	static const int64_t iv[] = {
	    0, 1, -1, 9, 10, -10, 1736407067000000000, INT64_MAX, INT64_MIN, -999999999999};
	static const uint64_t uv[] = {0, 7, 1000000, UINT64_MAX, (uint64_t)INT64_MAX + 1};
	for (int rep = 0; rep < 3000; rep++) { /* several buffers' worth: the flushes in between */
		for (size_t i = 0; i < sizeof iv / sizeof *iv; i++) {
			fprintf(a, "%" PRId64 ",", iv[i]);
			out_i64(o, iv[i]);
			out_char(o, ',');
		}
		for (size_t i = 0; i < sizeof uv / sizeof *uv; i++) {
			fprintf(a, "{\"u\":%" PRIu64 "}", uv[i]);
			out_lit(o, "{\"u\":");
			out_u64(o, uv[i]);
			out_char(o, '}');
		}
		double d = rep * 0.123456789 - 7.5;
		fprintf(a, "%.6f %.4f", d, d / 3);
		out_printf(o, "%.6f %.4f", d, d / 3);
		for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
			fputc('"', a);
			json_ref(a, strs[i]);
			fputc('"', a);
			out_json_str(o, strs[i]);
		}
	}
	/* a piece longer than the buffer, and a printf longer than its scratch */
	size_t big = sizeof o->buf + 100;
	char *s = malloc(big + 1);
	memset(s, 'q', big);
	s[big] = '\0';
	fputs(s, a);
	out_str(o, s);
	fprintf(a, "%s!", s + big - 300);
	out_printf(o, "%s!", s + big - 300);
	/* a JSON string longer than the buffer: not the one-piece copy */
	fputc('"', a);
	json_ref(a, s);
	fputc('"', a);
	out_json_str(o, s);
	out_end(o);
	fclose(a);
	fclose(b);
	CHECK(la > 3 * sizeof o->buf, "the output spans several buffers (%zu bytes)", la);
	CHECK(la == lb && memcmp(pa, pb, la) == 0, "outbuf writes what fprintf writes (%zu, %zu)",
	      la, lb);
	free(pa);
	free(pb);

	/* text_json_write (runs) against the reference, string by string */
	for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) {
		a = open_memstream(&pa, &la);
		b = open_memstream(&pb, &lb);
		json_ref(a, strs[i]);
		text_json_write(b, strs[i]);
		fclose(a);
		fclose(b);
		CHECK(la == lb && memcmp(pa, pb, la) == 0, "text_json_write of string %zu: '%s'", i,
		      pb);
		free(pa);
		free(pb);
	}
	free(s);
	free(o);
	return test_done();
}
