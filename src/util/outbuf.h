/* Output that is mostly constant text and integers (`tl summary --json` writes tens of MB of
 * it), gathered in a buffer and written to its FILE in large pieces: no format string parsed and
 * no stream lock taken per field. Doubles still go through printf (out_printf), so every
 * number reads exactly as fprintf would have written it. */
#ifndef TL_OUTBUF_H
#define TL_OUTBUF_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct tl_out {
	FILE *f;
	size_t n;
	char buf[1 << 16];
} tl_out;

/* Starts writing to f; nothing reaches f before out_flush (or out_end). */
void out_begin(tl_out *o, FILE *f);
/* Writes what is buffered to the FILE: call it before writing to the FILE directly. */
void out_flush(tl_out *o);
#define out_end(o) out_flush(o)

void out_mem_slow(tl_out *o, const char *p, size_t n);

static inline void
out_mem(tl_out *o, const char *p, size_t n)
{
	if (n <= sizeof o->buf - o->n) {
		memcpy(o->buf + o->n, p, n);
		o->n += n;
	} else {
		out_mem_slow(o, p, n);
	}
}

/* A string literal, its length known at compile time. */
#define out_lit(o, s) out_mem((o), "" s, sizeof(s) - 1)

static inline void
out_str(tl_out *o, const char *s)
{
	out_mem(o, s, strlen(s));
}

static inline void
out_char(tl_out *o, char c)
{
	if (o->n == sizeof o->buf)
		out_flush(o);
	o->buf[o->n++] = c;
}

/* Integers in decimal, as "%" PRIu64 / PRId64 write them. */
void out_u64(tl_out *o, uint64_t v);
void out_i64(tl_out *o, int64_t v);
/* printf's formatting, for what is not an integer. */
void out_printf(tl_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string with its quotes, escaped as text_json_write does (util/text.h). */
void out_json_str(tl_out *o, const char *s);

#endif
