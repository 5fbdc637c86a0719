/* Bends a generated profile the way real jobs go wrong (tlgen.h). */
#include "config.h"
#include "tlgen.h"

#include <glob.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *
rank_db(const char *dir, int r)
{
	char pat[4096];
	snprintf(pat, sizeof pat, "%s/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db", dir,
	         r);
	glob_t g;
	if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		fprintf(stderr, "tlgen: no DB of rank %d under %s\n", r, dir);
		return NULL;
	}
	char *p = strdup(g.gl_pathv[0]);
	globfree(&g);
	return p;
}

static int
exec_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "tlgen: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

int
tlgen_no_device(const char *dir, int r)
{
	char *p = rank_db(dir, r);
	if (p == NULL)
		return -1;
	sqlite3 *db;
	int rc = sqlite3_open(p, &db) == SQLITE_OK ? 0 : -1;
	if (rc == 0)
		rc = exec_sql(db, "DROP TABLE IF EXISTS TASK; DELETE FROM COMMUNICATION_OP;");
	sqlite3_close(db);
	free(p);
	return rc;
}

/* Every time column of every table of rank r's DB: t -> t + off + round((t - t0) ppm / 1e6);
 * with all, the allocation and collection times too (not only startNs, endNs, timestampNs). */
static int
move_times(const char *dir, int r, int64_t off, double ppm, int64_t t0, int all)
{
	char *p = rank_db(dir, r);
	if (p == NULL)
		return -1;
	sqlite3 *db;
	if (sqlite3_open(p, &db) != SQLITE_OK) {
		free(p);
		return -1;
	}
	sqlite3_stmt *st;
	char **tables = NULL;
	size_t nt = 0;
	sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type='table'", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		tables = realloc(tables, (nt + 1) * sizeof *tables);
		tables[nt++] = strdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	int rc = exec_sql(db, "BEGIN");
	for (size_t i = 0; i < nt; i++) {
		char sql[512];
		snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", tables[i]);
		sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(st, 1);
			static const char *const more[] = {"timestamp",   "startTimeNs",
			                                   "endTimeNs",   "allocationTime",
			                                   "releaseTime", "activeReleaseTime"};
			int time = !strcmp(c, "startNs") || !strcmp(c, "endNs") ||
			           !strcmp(c, "timestampNs");
			for (size_t k = 0; all && k < sizeof more / sizeof *more; k++)
				time |= !strcmp(c, more[k]);
			if (!time)
				continue;
			char up[1024];
			if (!all)
				snprintf(up, sizeof up,
				         "UPDATE \"%s\" SET \"%s\" = \"%s\" + %" PRId64, tables[i],
				         c, c, off);
			else /* epoch times only: not a 0 or -1 that means none */
				snprintf(up, sizeof up,
				         "UPDATE \"%s\" SET \"%s\" = \"%s\" + %" PRId64
				         " + CAST(ROUND((\"%s\" - %" PRId64 ") * %.17g / 1e6) AS "
				         "INTEGER) WHERE typeof(\"%s\") = 'integer' AND \"%s\" > "
				         "1000000000000000000",
				         tables[i], c, c, off, c, t0, ppm, c, c);
			if (exec_sql(db, up) != 0)
				rc = -1;
		}
		sqlite3_finalize(st);
		free(tables[i]);
	}
	free(tables);
	exec_sql(db, "COMMIT");
	sqlite3_close(db);
	free(p);
	return rc;
}

int
tlgen_late(const char *dir, int r, int64_t ns)
{
	return move_times(dir, r, ns, 0, 0, 0);
}

int
tlgen_clock(const char *dir, int r, int64_t off_ns, double ppm, int64_t t0_ns)
{
	return move_times(dir, r, off_ns, ppm, t0_ns, 1);
}

int
tlgen_drop_first_coll(const char *dir, int r)
{
	char *p = rank_db(dir, r);
	if (p == NULL)
		return -1;
	sqlite3 *db;
	int rc = sqlite3_open(p, &db) == SQLITE_OK ? 0 : -1;
	if (rc == 0)
		rc = exec_sql(db, "DELETE FROM COMMUNICATION_OP WHERE rowid = (SELECT rowid FROM "
		                  "COMMUNICATION_OP ORDER BY startNs LIMIT 1);");
	sqlite3_close(db);
	free(p);
	return rc;
}
