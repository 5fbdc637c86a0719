/* Compute operators from a profile DB, read on demand for the operator statistics (the data of
 * msprof-analyze's compute_op_sum): each COMPUTE_TASK_INFO row joined to its TASK row, grouped
 * by (op name, op type, task type, input shapes). Opened through the hardened connection. */
#include "config.h"
#include "load/ascend/ascend_db_gather.h"
#include "load/load_int.h"
#include "load/ascend/profdb.h"
#include "util/msg.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
has_col(tl_profdb *p, const char *table, const char *col)
{
	char sql[160];
	sqlite3_stmt *st = NULL;
	int found = 0;
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	if (profdb_prepare(p, sql, &st) != SQLITE_OK)
		return 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 1);
		found = n != NULL && strcmp(n, col) == 0;
	}
	sqlite3_finalize(st);
	return found;
}

/* STRING_IDS id -> pool id of the strings the operator columns use, read once per source. */
static int
read_strings(tl_profdb *p, tl_op_data *d, tl_u64map *m, const char *path)
{
	sqlite3_stmt *st;
	if (profdb_prepare(p, "SELECT id, value FROM STRING_IDS", &st) != SQLITE_OK)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 1);
		if (sqlite3_column_type(st, 0) == SQLITE_INTEGER && v != NULL)
			u64map_put(m, (uint64_t)sqlite3_column_int64(st, 0),
			           strpool_intern_cstr(d->pool, (const char *)v));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		char b[300];
		msg_warn(path, "STRING_IDS: %s; no operator statistics for it",
		         profdb_errmsg(p, rc, b, sizeof b));
		return -1;
	}
	return 0;
}

static uint32_t
col_sid(sqlite3_stmt *st, int col, const tl_u64map *m)
{
	uint32_t v;
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER ||
	    !u64map_get(m, (uint64_t)sqlite3_column_int64(st, col), &v))
		return 0; /* NULL or 4294967295: the empty string */
	return v;
}

void
ascend_db_ops(const tl_source *src, tl_op_data *d)
{
	tl_profdb p;
	char err[400];
	if (profdb_open(&p, src->path, err, sizeof err) != 0) {
		msg_warn(src->path, "%s; no operator statistics for it", err);
		return;
	}
	static const char *const cols[] = {"name", "opType", "taskType", "inputShapes"};
	if (!profdb_has(&p, "COMPUTE_TASK_INFO") || !profdb_has(&p, "TASK") ||
	    !profdb_has(&p, "STRING_IDS") || !has_col(&p, "COMPUTE_TASK_INFO", "globalTaskId")) {
		profdb_close(&p);
		return;
	}
	tl_u64map strs;
	u64map_init(&strs);
	if (read_strings(&p, d, &strs, src->path) == 0) {
		char sql[512];
		size_t off = (size_t)snprintf(sql, sizeof sql, "SELECT ");
		for (int i = 0; i < 4; i++)
			off += (size_t)snprintf(
			    sql + off, sizeof sql - off, "%s%s, ",
			    has_col(&p, "COMPUTE_TASK_INFO", cols[i]) ? "c." : "NULL AS ", cols[i]);
		/* an id that is no INTEGER is none, as the load takes it (two TEXT 'x' are
		 * not one task, nor are a REAL 10.0 and 10) */
		snprintf(
		    sql + off, sizeof sql - off,
		    "t.startNs, t.endNs FROM TASK t JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = "
		    "t.globalTaskId WHERE typeof(c.globalTaskId) = 'integer' AND "
		    "typeof(t.globalTaskId) = 'integer'");
		sqlite3_stmt *st;
		int rc = profdb_prepare(&p, sql, &st);
		if (rc == SQLITE_OK) {
			while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
				/* the times as the load reads them (db_time_at), so that the
				 * gathered table is this one; a row without usable ones is
				 * left out, and TASK's line of the load says it */
				db_cell sc = db_time_at(st, 4), ec = db_time_at(st, 5);
				int64_t s = sc.v, e = ec.v;
				if (sc.type != SQLITE_INTEGER || ec.type != SQLITE_INTEGER ||
				    !tl_time_ok(s) || !tl_time_ok(e) || e < s)
					continue;
				op_data_add(d, col_sid(st, 0, &strs), col_sid(st, 1, &strs),
				            col_sid(st, 2, &strs), col_sid(st, 3, &strs), e - s, s);
			}
			sqlite3_finalize(st);
		}
		if (rc != SQLITE_DONE) {
			char b[300];
			msg_warn(src->path, "COMPUTE_TASK_INFO: %s; operator statistics incomplete",
			         profdb_errmsg(&p, rc == SQLITE_OK ? sqlite3_errcode(p.db) : rc, b,
			                       sizeof b));
		}
	}
	u64map_free(&strs);
	profdb_close(&p);
}
