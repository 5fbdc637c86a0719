/* A CANN 7.0 report DB in the detail pane (load_slice_args): a kernel shows its
 * COMPUTE_TASK_INFO row found by correlationId, and a communication op, which the file has no
 * COMMUNICATION_OP row for (tl makes it the span of its sub-tasks), shows its first sub-task's
 * COMMUNICATION_TASK_INFO row; the API table's calls are a host lane. The expected values are the
 * generated file's rows, read with plain SQL. */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

typedef struct seen {
	char text[4096];
	size_t n;
} seen;

static void
on_arg(void *ctx, const char *key, const char *value)
{
	seen *s = ctx;
	int w = snprintf(s->text + s->n, sizeof s->text - s->n, "%s=%s;", key, value);
	if (w > 0 && s->n + (size_t)w < sizeof s->text)
		s->n += (size_t)w;
}

static const tl_track *
first_track(const tl_rank *r, tl_lane_kind kind)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind && r->tracks[i]->n > 0)
			return r->tracks[i];
	return NULL;
}

int
main(void)
{
	msg_set_quiet(1);
	char *dir = test_tmpdir("msprof-db");
	char *path = xasprintf("%s/report_0.db", dir);
	gen_msprof_opts go = {.seed = 4, .cann7 = 1};
	CHECK(gen_msprof_db(path, &go) == 0, "generate a CANN 7.0 report DB");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(path, &lo, &tr) == 0 && tr.nranks == 1, "load it");
	sqlite3 *db = test_sql_open(path);
	if (tr.nranks == 1 && db != NULL) {
		const tl_rank *r = tr.ranks[0];
		const tl_track *k = first_track(r, TL_LANE_COMPUTE);
		const tl_track *c = first_track(r, TL_LANE_COMM);
		CHECK(k != NULL && c != NULL, "a kernel lane and a communication op lane");
		if (k != NULL) {
			seen s = {0};
			load_slice_args(r, k, 0, on_arg, &s);
			char *sql =
			    xasprintf("SELECT n.value FROM TASK t JOIN COMPUTE_TASK_INFO c ON "
			              "c.correlationId = t.correlationId JOIN STRING_IDS n ON "
			              "n.id = c.name WHERE t.rowid = %u",
			              track_arg(k, 0));
			sqlite3_stmt *st;
			char want[256] = "?";
			if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
			    sqlite3_step(st) == SQLITE_ROW)
				snprintf(want, sizeof want, "%s", sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
			free(sql);
			CHECK(
			    strstr(s.text, want) != NULL &&
			        strstr(s.text, "correlationId=") != NULL,
			    "a kernel's arguments: its COMPUTE_TASK_INFO row by correlationId (%s) "
			    "in: %s",
			    want, s.text);
		}
		if (c != NULL) {
			seen s = {0};
			load_slice_args(r, c, 0, on_arg, &s);
			CHECK(
			    strstr(s.text, "opId=") != NULL &&
			        strstr(s.text, "hcom_allReduce") != NULL,
			    "an op made of sub-tasks: its first sub-task's COMMUNICATION_TASK_INFO "
			    "(opId, the op's name) in: %s",
			    s.text);
			int64_t first = test_sql_i64(
			    db,
			    "SELECT min(CAST(replace(substr(t.start, 1, 16), '.', '') AS INTEGER) "
			    "* 1000 + (SELECT baseTimeNs FROM TARGET_INFO_SESSION_TIME)) FROM TASK "
			    "t JOIN COMMUNICATION_TASK_INFO i ON i.correlationId = t.correlationId "
			    "WHERE i.opId = 0");
			CHECK(c->v[0].start == first,
			      "the first op starts at its first sub-task, to the ns of the text "
			      "(%lld, SQL %lld)",
			      (long long)c->v[0].start, (long long)first);
		}
	}
	if (tr.nranks == 1 && db != NULL) { /* API: the host calls, on a CANN lane */
		tl_rank *r = tr.ranks[0];
		load_host(r);
		const tl_track *h = first_track(r, TL_LANE_HOST);
		int64_t n = test_sql_i64(db, "SELECT count(*) FROM API");
		int64_t first =
		    test_sql_i64(db, "SELECT min(CAST(start AS INTEGER) + (SELECT baseTimeNs FROM "
		                     "TARGET_INFO_SESSION_TIME)) FROM API");
		CHECK(
		    h != NULL && (int64_t)h->n == n && h->v[0].start == first,
		    "API's calls on a host lane: %lld of them, the first at %lld (SQL: %lld, %lld)",
		    h ? (long long)h->n : -1LL, h ? (long long)h->v[0].start : -1LL, (long long)n,
		    (long long)first);
		if (h != NULL) {
			seen s = {0};
			load_slice_args(r, h, 0, on_arg, &s);
			CHECK(strstr(s.text, "level=") != NULL &&
			          strstr(s.text, "connectionId=") != NULL,
			      "an API call's arguments: its API row in: %s", s.text);
		}
	}
	if (db)
		sqlite3_close(db);
	trace_free(&tr);
	free(path);
	test_rmtree(dir);
	return test_done();
}
