/* The one JSON writer (jsonw.h): separators and escaping in one place, over util/outbuf. */
#include "util/jsonw.h"

#include <stdlib.h>

#include "util/outbuf.h"
#include "util/xalloc.h"

/* A misuse is the caller's bug (a key outside an object, a container left open): say which and
 * stop, rather than print JSON that does not parse. */
#define BUG(...) (fprintf(stderr, "tl: jsonw: " __VA_ARGS__), fputc('\n', stderr), abort())

struct tl_jsonw {
	tl_out out;
	int depth;                             /* open containers */
	int after_key;                         /* a key was written: its value has no comma */
	unsigned char any[JSONW_MAX_DEPTH];    /* the container has an element already */
	unsigned char lines[JSONW_MAX_DEPTH];  /* its elements each on a line of their own */
	unsigned char object[JSONW_MAX_DEPTH]; /* it is an object (closes with '}') */
};

tl_jsonw *
jsonw_open(FILE *f)
{
	tl_jsonw *w = xmalloc(sizeof *w);
	out_begin(&w->out, f);
	w->depth = 0;
	w->after_key = 0;
	return w;
}

void
jsonw_close(tl_jsonw *w, const char *tail)
{
	if (w == NULL)
		return;
	if (w->depth != 0)
		BUG("%d containers left open", w->depth);
	if (tail != NULL)
		out_str(&w->out, tail);
	out_flush(&w->out);
	free(w);
}

void
jsonw_abandon(tl_jsonw *w)
{
	free(w);
}

/* Before a value or a key: the comma (and the newline of a _lines container) it needs. */
static void
sep(tl_jsonw *w)
{
	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth == 0)
		return;
	int d = w->depth - 1;
	if (w->any[d])
		out_char(&w->out, ',');
	if (w->lines[d])
		out_char(&w->out, '\n');
	w->any[d] = 1;
}

static void
open_c(tl_jsonw *w, int object, int lines)
{
	sep(w);
	if (w->depth == JSONW_MAX_DEPTH)
		BUG("nesting deeper than %d", JSONW_MAX_DEPTH);
	out_char(&w->out, object ? '{' : '[');
	w->any[w->depth] = 0;
	w->lines[w->depth] = (unsigned char)lines;
	w->object[w->depth] = (unsigned char)object;
	w->depth++;
}

void
jsonw_object_begin(tl_jsonw *w)
{
	open_c(w, 1, 0);
}

void
jsonw_array_begin(tl_jsonw *w)
{
	open_c(w, 0, 0);
}

void
jsonw_object_begin_lines(tl_jsonw *w)
{
	open_c(w, 1, 1);
}

void
jsonw_array_begin_lines(tl_jsonw *w)
{
	open_c(w, 0, 1);
}

void
jsonw_end(tl_jsonw *w)
{
	if (w->depth == 0 || w->after_key)
		BUG("end without an open container or after a key");
	int d = --w->depth;
	if (w->lines[d] && w->any[d])
		out_char(&w->out, '\n');
	out_char(&w->out, w->object[d] ? '}' : ']');
}

void
jsonw_key(tl_jsonw *w, const char *key)
{
	if (w->depth == 0 || !w->object[w->depth - 1] || w->after_key)
		BUG("key \"%s\" outside an object", key);
	sep(w);
	out_json_str(&w->out, key);
	out_char(&w->out, ':');
	w->after_key = 1;
}

void
jsonw_null(tl_jsonw *w)
{
	sep(w);
	out_lit(&w->out, "null");
}

void
jsonw_bool(tl_jsonw *w, int v)
{
	sep(w);
	if (v)
		out_lit(&w->out, "true");
	else
		out_lit(&w->out, "false");
}

void
jsonw_i64(tl_jsonw *w, int64_t v)
{
	sep(w);
	out_i64(&w->out, v);
}

void
jsonw_u64(tl_jsonw *w, uint64_t v)
{
	sep(w);
	out_u64(&w->out, v);
}

void
jsonw_double(tl_jsonw *w, const char *fmt, double v)
{
	char buf[512];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, sizeof buf, fmt, v);
#pragma GCC diagnostic pop
	jsonw_raw(w, buf);
}

void
jsonw_str(tl_jsonw *w, const char *s)
{
	if (s == NULL) {
		jsonw_null(w);
		return;
	}
	sep(w);
	out_json_str(&w->out, s);
}

void
jsonw_raw(tl_jsonw *w, const char *json)
{
	sep(w);
	out_str(&w->out, json);
}

void
jsonw_i64_or_null(tl_jsonw *w, int64_t v, int has)
{
	if (has)
		jsonw_i64(w, v);
	else
		jsonw_null(w);
}

void
jsonw_null_m(tl_jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_null(w);
}

void
jsonw_bool_m(tl_jsonw *w, const char *key, int v)
{
	jsonw_key(w, key);
	jsonw_bool(w, v);
}

void
jsonw_i64_m(tl_jsonw *w, const char *key, int64_t v)
{
	jsonw_key(w, key);
	jsonw_i64(w, v);
}

void
jsonw_u64_m(tl_jsonw *w, const char *key, uint64_t v)
{
	jsonw_key(w, key);
	jsonw_u64(w, v);
}

void
jsonw_double_m(tl_jsonw *w, const char *key, const char *fmt, double v)
{
	jsonw_key(w, key);
	jsonw_double(w, fmt, v);
}

void
jsonw_str_m(tl_jsonw *w, const char *key, const char *s)
{
	jsonw_key(w, key);
	jsonw_str(w, s);
}

void
jsonw_raw_m(tl_jsonw *w, const char *key, const char *json)
{
	jsonw_key(w, key);
	jsonw_raw(w, json);
}

void
jsonw_i64_or_null_m(tl_jsonw *w, const char *key, int64_t v, int has)
{
	jsonw_key(w, key);
	jsonw_i64_or_null(w, v, has);
}

void
jsonw_object_begin_m(tl_jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_object_begin(w);
}

void
jsonw_array_begin_m(tl_jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_array_begin(w);
}

void
jsonw_array_begin_lines_m(tl_jsonw *w, const char *key)
{
	jsonw_key(w, key);
	jsonw_array_begin_lines(w);
}
