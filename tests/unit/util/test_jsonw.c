/* util/jsonw: the separators it places, its escaping (that of text_json_write), the layouts tl
 * prints (compact, and one element a line), numbers as printf writes them; every document it
 * writes parses with cJSON to the values put in. */
#include "config.h"
#include "util/jsonw.h"
#include "util/text.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>

#include "../test.h"

/* Runs fill on a writer over a memory stream; returns the text (caller frees). */
static char *
doc(void (*fill)(tl_jsonw *), const char *tail)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	tl_jsonw *w = jsonw_open(f);
	fill(w);
	jsonw_close(w, tail);
	fclose(f);
	return p;
}

static void
fill_empty(tl_jsonw *w)
{
	jsonw_object_begin(w);
	jsonw_array_begin_m(w, "a");
	jsonw_end(w);
	jsonw_array_begin_lines_m(w, "b");
	jsonw_end(w);
	jsonw_object_begin_m(w, "c");
	jsonw_end(w);
	jsonw_end(w);
}

static void
fill_types(tl_jsonw *w)
{
	jsonw_object_begin(w);
	jsonw_i64_m(w, "i", INT64_MIN);
	jsonw_u64_m(w, "u", UINT64_MAX);
	jsonw_double_m(w, "share", "%.6f", 0.1234567);
	jsonw_double_m(w, "pct", "%.3f", -2.5);
	jsonw_null_m(w, "n");
	jsonw_bool_m(w, "t", 1);
	jsonw_bool_m(w, "f", 0);
	jsonw_str_m(w, "s", "a\"b\\c\nd\x01");
	jsonw_str_m(w, "none", NULL);
	jsonw_i64_or_null_m(w, "step", 7, 1);
	jsonw_i64_or_null_m(w, "step_b", 7, 0);
	jsonw_raw_m(w, "ts", "12.345");
	jsonw_str_m(w, "k\"ey", "v");
	jsonw_end(w);
}

static void
fill_lines(tl_jsonw *w)
{
	jsonw_object_begin(w);
	jsonw_array_begin_lines_m(w, "findings");
	for (int i = 0; i < 3; i++) {
		jsonw_object_begin(w);
		jsonw_i64_m(w, "index", i + 1);
		jsonw_array_begin_m(w, "r");
		jsonw_i64(w, i);
		jsonw_null(w);
		jsonw_str(w, "x");
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_end(w);
}

static void
fill_top_array(tl_jsonw *w)
{
	jsonw_array_begin_lines(w);
	jsonw_object_begin(w);
	jsonw_i64_m(w, "a", 1);
	jsonw_end(w);
	jsonw_end(w);
}

/* A document of sections, as tl summary --json is written: each section a function given the
 * writer, writing its members into the object the caller has open; one writes nothing (the clock
 * of a single host), one a member whose value another function writes. */
static void
section_ops(tl_jsonw *w)
{
	jsonw_array_begin_m(w, "ops");
	jsonw_i64(w, 1);
	jsonw_end(w);
	jsonw_str_m(w, "x", "y");
}

static void
section_none(tl_jsonw *w)
{
	(void)w;
}

static void
value_series(tl_jsonw *w)
{
	jsonw_array_begin(w);
	jsonw_double(w, "%.17g", 0.1);
	jsonw_double(w, "%.0f", 2.5);
	jsonw_end(w);
}

static void
fill_sections(tl_jsonw *w)
{
	jsonw_object_begin(w);
	section_none(w);
	jsonw_array_begin_m(w, "steps");
	jsonw_end(w);
	section_none(w);
	section_ops(w);
	section_none(w);
	jsonw_key(w, "series");
	value_series(w);
	jsonw_end(w);
}

int
main(void)
{
	char *s = doc(fill_empty, "\n");
	CHECK_STR(s, "{\"a\":[],\"b\":[],\"c\":{}}\n", "empty containers, no separators");
	free(s);

	s = doc(fill_types, NULL);
	CHECK_STR(s,
	          "{\"i\":-9223372036854775808,\"u\":18446744073709551615,\"share\":0.123457,"
	          "\"pct\":-2.500,\"n\":null,\"t\":true,\"f\":false,"
	          "\"s\":\"a\\\"b\\\\c\\nd\\u0001\",\"none\":null,\"step\":7,\"step_b\":null,"
	          "\"ts\":12.345,\"k\\\"ey\":\"v\"}",
	          "every value type, keys and strings escaped");
	cJSON *j = cJSON_Parse(s);
	CHECK(j != NULL, "the typed document parses");
	if (j != NULL) {
		CHECK_STR(cJSON_GetObjectItem(j, "s")->valuestring, "a\"b\\c\nd\x01",
		          "the string reads back");
		CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "step_b")), "null reads back");
		CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "t")), "true reads back");
		CHECK(cJSON_GetObjectItem(j, "pct")->valuedouble == -2.5, "the double reads back");
		CHECK(cJSON_GetObjectItem(j, "k\"ey") != NULL, "the escaped key reads back");
		cJSON_Delete(j);
	}
	free(s);

	s = doc(fill_lines, "\n");
	CHECK_STR(s,
	          "{\"findings\":[\n{\"index\":1,\"r\":[0,null,\"x\"]},\n"
	          "{\"index\":2,\"r\":[1,null,\"x\"]},\n{\"index\":3,\"r\":[2,null,\"x\"]}\n]}\n",
	          "one element a line, as tl triage --json prints");
	j = cJSON_Parse(s);
	CHECK(j != NULL && cJSON_GetArraySize(cJSON_GetObjectItem(j, "findings")) == 3,
	      "the lines document parses, three elements");
	cJSON_Delete(j);
	free(s);

	s = doc(fill_top_array, "\n");
	CHECK_STR(s, "[\n{\"a\":1}\n]\n", "a top-level array of lines, as tl query --json");
	free(s);

	s = doc(fill_sections, "\n");
	CHECK_STR(s, "{\"steps\":[],\"ops\":[1],\"x\":\"y\",\"series\":[0.10000000000000001,2]}\n",
	          "sections given the writer: their members' commas placed, an empty section none");
	j = cJSON_Parse(s);
	CHECK(j != NULL && cJSON_GetArraySize(cJSON_GetObjectItem(j, "series")) == 2 &&
	          cJSON_GetArrayItem(cJSON_GetObjectItem(j, "series"), 0)->valuedouble == 0.1,
	      "the sections' document parses, the %%.17g double reads back exactly");
	cJSON_Delete(j);
	free(s);

	/* a long string through the buffer's slow path: escaped as text_json_write does */
	size_t big = 200000;
	char *long_s = malloc(big + 1);
	for (size_t i = 0; i < big; i++)
		long_s[i] = "ab\"\n\xc3\xa9"[i % 6];
	long_s[big] = 0;
	char *p = NULL, *q = NULL;
	size_t pn = 0, qn = 0;
	FILE *f = open_memstream(&p, &pn);
	tl_jsonw *w = jsonw_open(f);
	jsonw_array_begin(w);
	jsonw_str(w, long_s);
	jsonw_str(w, long_s);
	jsonw_end(w);
	jsonw_close(w, NULL);
	fclose(f);
	FILE *g = open_memstream(&q, &qn);
	fputs("[\"", g);
	text_json_write(g, long_s);
	fputs("\",\"", g);
	text_json_write(g, long_s);
	fputs("\"]", g);
	fclose(g);
	CHECK(pn == qn && memcmp(p, q, pn) == 0, "a 200 kB string escaped as text_json_write does");
	free(p);
	free(q);
	free(long_s);
	return test_done();
}
