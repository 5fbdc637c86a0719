/* The one JSON writer: every JSON document tl prints goes through it (in the style of git's
 * json-writer). It owns the separators: a member or element after the first of its container
 * gets its comma from here, never from the caller, and every string (keys too) is escaped as
 * text_json_write escapes (util/text.h). Output streams through util/outbuf.h's buffer to the
 * FILE, never gathered whole: `tl summary --json` and an export write tens of MB.
 *
 * Layout is tl's: compact, except a container begun with the _lines variant puts each element on
 * a line of its own ("[\n{..},\n{..}\n]"; "[]" when empty). Numbers read as printf writes them:
 * integers in decimal, doubles through the caller's format (jsonw_double(w, "%.6f", x)).
 *
 *   tl_jsonw *w = jsonw_open(f);
 *   jsonw_object_begin(w);
 *   jsonw_str_m(w, "verdict", s);
 *   jsonw_array_begin_m(w, "changes");
 *   for (...) { jsonw_object_begin(w); jsonw_i64_m(w, "a_ns", a); jsonw_end(w); }
 *   jsonw_end(w);                  // the array
 *   jsonw_end(w);                  // the object
 *   jsonw_close(w, "\n");          // the text after the document; flushes and frees
 *
 * A document of several sections is one writer passed down: each section is a function that
 * takes the tl_jsonw * and writes its members into the object the caller has open (as every
 * section of `tl summary --json` does, report/summary.c); no section writes to the FILE itself.
 *
 * How to add a member: one jsonw_*_m call at the place in the document it belongs (the _m variants
 * take the key; the plain ones are values, for an array element or after jsonw_key). The whole
 * recipe, with its test, is docs/architecture.md's "A new JSON field". */
#ifndef TL_JSONW_H
#define TL_JSONW_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 32

typedef struct tl_jsonw tl_jsonw;

/* A writer to f (text reaches f as its buffer fills, the rest at jsonw_close). */
tl_jsonw *jsonw_open(FILE *f);
/* Writes tail (may be NULL) after the document, flushes, frees w. */
void jsonw_close(tl_jsonw *w, const char *tail);
/* Frees w, its buffered text dropped and its containers left open: a document given up on (the
 * caller removes the file). */
void jsonw_abandon(tl_jsonw *w);

/* Containers, as a value (the top, an array element, or after jsonw_key). */
void jsonw_object_begin(tl_jsonw *w);
void jsonw_array_begin(tl_jsonw *w);
void jsonw_object_begin_lines(tl_jsonw *w);
void jsonw_array_begin_lines(tl_jsonw *w);
/* Closes the innermost open container. */
void jsonw_end(tl_jsonw *w);

/* A member's key in the open object; its value comes next. */
void jsonw_key(tl_jsonw *w, const char *key);

/* Values. */
void jsonw_null(tl_jsonw *w);
void jsonw_bool(tl_jsonw *w, int v);
void jsonw_i64(tl_jsonw *w, int64_t v);
void jsonw_u64(tl_jsonw *w, uint64_t v);
/* printf's fmt applied to v (one double conversion, e.g. "%.6f"). */
void jsonw_double(tl_jsonw *w, const char *fmt, double v) __attribute__((format(printf, 2, 0)));
/* s escaped, in quotes; NULL writes null. */
void jsonw_str(tl_jsonw *w, const char *s);
/* A value the caller already wrote as JSON text (a number formatted its own way). */
void jsonw_raw(tl_jsonw *w, const char *json);
/* v, or null when has is 0 (a step that is unknown, a side that has no value). */
void jsonw_i64_or_null(tl_jsonw *w, int64_t v, int has);

/* Members: jsonw_key then the value. */
void jsonw_null_m(tl_jsonw *w, const char *key);
void jsonw_bool_m(tl_jsonw *w, const char *key, int v);
void jsonw_i64_m(tl_jsonw *w, const char *key, int64_t v);
void jsonw_u64_m(tl_jsonw *w, const char *key, uint64_t v);
void jsonw_double_m(tl_jsonw *w, const char *key, const char *fmt, double v)
    __attribute__((format(printf, 3, 0)));
void jsonw_str_m(tl_jsonw *w, const char *key, const char *s);
void jsonw_raw_m(tl_jsonw *w, const char *key, const char *json);
void jsonw_i64_or_null_m(tl_jsonw *w, const char *key, int64_t v, int has);
void jsonw_object_begin_m(tl_jsonw *w, const char *key);
void jsonw_array_begin_m(tl_jsonw *w, const char *key);
void jsonw_array_begin_lines_m(tl_jsonw *w, const char *key);

#endif
