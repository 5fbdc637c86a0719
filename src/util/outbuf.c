#include "config.h"
#include "util/outbuf.h"
#include "util/text.h"

#include <stdarg.h>

void
out_begin(tl_out *o, FILE *f)
{
	o->f = f;
	o->n = 0;
}

void
out_flush(tl_out *o)
{
	if (o->n > 0)
		fwrite(o->buf, 1, o->n, o->f);
	o->n = 0;
}

void
out_mem_slow(tl_out *o, const char *p, size_t n)
{
	out_flush(o);
	if (n >= sizeof o->buf) {
		fwrite(p, 1, n, o->f);
		return;
	}
	memcpy(o->buf, p, n);
	o->n = n;
}

void
out_u64(tl_out *o, uint64_t v)
{
	char t[24];
	size_t i = sizeof t;
	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	out_mem(o, t + i, sizeof t - i);
}

void
out_i64(tl_out *o, int64_t v)
{
	if (v < 0) {
		out_char(o, '-');
		out_u64(o, 0 - (uint64_t)v); /* INT64_MIN too */
	} else {
		out_u64(o, (uint64_t)v);
	}
}

void
out_printf(tl_out *o, const char *fmt, ...)
{
	char t[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof t, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof t) {
		out_mem(o, t, (size_t)n);
		return;
	}
	out_flush(o); /* longer than the scratch: straight to the FILE */
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

static void
put_out(void *o, const char *p, size_t n)
{
	out_mem(o, p, n);
}

void
out_json_str(tl_out *o, const char *s)
{
	/* a key or a name of printable ASCII (nearly every one): copied as it is, in one piece */
	size_t n = 0;
	for (unsigned char c;
	     (c = (unsigned char)s[n]) >= 0x20 && c < 0x7f && c != '"' && c != '\\';)
		n++;
	if (s[n] == '\0' && n + 2 <= sizeof o->buf - o->n) {
		char *d = o->buf + o->n;
		d[0] = '"';
		memcpy(d + 1, s, n);
		d[n + 1] = '"';
		o->n += n + 2;
		return;
	}
	out_char(o, '"');
	text_json_emit(s, put_out, o);
	out_char(o, '"');
}
