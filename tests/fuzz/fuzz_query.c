/* tl query: the user's SQL over a hostile profile. The input is SQL text, then a NUL byte, then a
 * Chrome-trace JSON profile (none: an empty one); the SQL runs over every virtual table's
 * cursors on what the JSON loader made of the profile, with a small work budget and row limit,
 * output to /dev/null. Without a NUL byte the SQL also runs over each table in turn; with one,
 * tl export writes the profile's Chrome trace and the JSON loader reads it back. */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loading/loading.h"
#include "query/query.h"
#include "sql/sql.h"
#include "util/xalloc.h"

static void
run(const char *sql, const tl_query *q, FILE *null)
{
	tl_sql *s = sql_prepare(sql);
	if (s == NULL)
		return;
	sql_run(s, q, null, TL_SQL_TABLE);
	sql_free(s);
}

/* tl export of the loaded profile to a directory of its own, then the export read back by the
 * loader that reads it in tl (every file removed after). */
static void
export_and_reread(const tl_query *q, const char *input)
{
	char dir[600], file[700];
	snprintf(dir, sizeof dir, "%s.export", input);
	tl_export_opts o = {.input = input, .out = dir, .format = TL_EXPORT_CHROME};
	tl_export *e = export_prepare(&o);
	if (e == NULL)
		return;
	export_run(e, q);
	export_free(e);
	snprintf(file, sizeof file, "%s/rank0.trace.json", dir);
	if (access(file, R_OK) == 0) {
		tl_source src;
		memset(&src, 0, sizeof src);
		src.kind = TL_SRC_TRACE_VIEW;
		src.path = file;
		src.role_step = -1;
		tl_rank *r = rank_new(0);
		r->sources = xcalloc(1, sizeof *r->sources);
		r->sources[r->nsources++] = &src;
		loader_trace_json.load(&src, r, NULL);
		rank_finish(r);
		rank_free(r);
		unlink(file);
	}
	rmdir(dir);
}

FUZZ_ENTRY(query)
{
	fuzz_setup();
	setenv("TL_QUERY_BUDGET", "20", 1); /* million steps: an endless query ends quickly */
	setenv("TL_QUERY_MAX_ROWS", "2000", 1);
	const uint8_t *nul = memchr(data, 0, size);
	size_t slen = nul ? (size_t)(nul - data) : size;
	char *sql = fuzz_cstr(data, slen);
	const uint8_t *json = nul ? nul + 1 : (const uint8_t *)"[]";
	size_t jlen = nul ? size - slen - 1 : 2;

	tl_source src;
	memset(&src, 0, sizeof src);
	src.rank = 0;
	src.kind = jlen > 0 && json[0] == '{' ? TL_SRC_KINETO : TL_SRC_TRACE_VIEW;
	src.path = (char *)fuzz_file(json, jlen, "json");
	src.role_step = -1;
	tl_rank *r = rank_new(0);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = &src;
	r->loaded = loader_trace_json.load(&src, r, NULL) == 0;
	rank_finish(r);
	tl_trace tr;
	trace_init_rank(&tr, r);
	FILE *null = fopen("/dev/null", "w");
	if (null != NULL) {
		tl_query *q = tlq_open(&tr, NULL);
		run(sql, q, null);
		if (nul ==
		    NULL) { /* every table's cursor, with and without the pushed-down bounds */
			static const char *const tables[] = {"slices",   "steps",    "stages",
			                                     "comm_ops", "links",    "ops",
			                                     "bubbles",  "counters", "findings"};
			for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
				char *q1 = xasprintf("SELECT * FROM %s WHERE rank = 0", tables[i]);
				char *q2 =
				    xasprintf("SELECT count(*) FROM %s WHERE rank + 0 = 0 AND "
				              "rank = 0",
				              tables[i]);
				run(q1, q, null);
				run(q2, q, null);
				free(q1);
				free(q2);
			}
			run("SELECT * FROM slices WHERE step = 1 UNION ALL SELECT rank, '', '', "
			    "name, start_ns, 0, dur_ns, 0, step, '' FROM ops WHERE step = 1",
			    q, null);
			run("SELECT * FROM slices WHERE start_ns >= 0 AND end_ns <= "
			    "9223372036854775807 "
			    "AND start_ns = end_ns",
			    q, null);
		}
		if (nul != NULL)
			export_and_reread(q, src.path);
		tlq_close(q);
		fclose(null);
	}
	free(sql);
	trace_free(&tr);
	return 0;
}
