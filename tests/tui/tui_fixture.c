/* Writes a generated profile for the screen tests into a fresh directory, and optionally
 * bends it the way real jobs go wrong: a rank without device data, a rank whose clock starts
 * later. Never commits a binary DB: tests call this at test time.
 *
 *   tui_fixture OUTDIR [--ranks N] [--tasks N] [--steps N] [--seed S] [--slow R]
 *                      [--no-device R] [--late R SECONDS] [--json 1]
 * --json 1 also writes each rank's trace_view.json beside its DB. */
#include "config.h"
#include "gen/gen.h"

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
		fprintf(stderr, "tui_fixture: no DB of rank %d under %s\n", r, dir);
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
		fprintf(stderr, "tui_fixture: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

static int
no_device(const char *dir, int r)
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

/* shifts every time column of every table */
static int
late(const char *dir, int r, int64_t ns)
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
			if (strcmp(c, "startNs") && strcmp(c, "endNs") && strcmp(c, "timestampNs"))
				continue;
			char up[512];
			snprintf(up, sizeof up, "UPDATE \"%s\" SET \"%s\" = \"%s\" + %" PRId64,
			         tables[i], c, c, ns);
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
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
		        "usage: tui_fixture OUTDIR [--ranks N] [--tasks N] [--steps N] [--seed S] "
		        "[--slow R] [--no-device R] [--late R SECONDS] [--json 1]\n");
		return 2;
	}
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.tasks_per_rank = 2000;
	o.threads = 1;
	int nodev = -1, late_rank = -1;
	double late_s = 0;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (v == NULL)
			goto bad;
		if (strcmp(a, "--ranks") == 0)
			o.nranks = atoi(v);
		else if (strcmp(a, "--tasks") == 0)
			o.tasks_per_rank = strtoull(v, NULL, 10);
		else if (strcmp(a, "--steps") == 0)
			o.nsteps = atoi(v);
		else if (strcmp(a, "--seed") == 0)
			o.seed = strtoull(v, NULL, 10);
		else if (strcmp(a, "--slow") == 0)
			o.slow_rank = atoi(v);
		else if (strcmp(a, "--json") == 0)
			o.json = atoi(v);
		else if (strcmp(a, "--no-device") == 0)
			nodev = atoi(v);
		else if (strcmp(a, "--late") == 0) {
			late_rank = atoi(v);
			if (i + 2 >= argc)
				goto bad;
			late_s = atof(argv[i + 2]);
			i++;
		} else
			goto bad;
		i++;
	}
	if (o.slow_rank >= o.nranks)
		o.slow_rank = -1;
	if (gen_profile(&o, argv[1], NULL) != 0)
		return 1;
	if (nodev >= 0 && no_device(argv[1], nodev) != 0)
		return 1;
	if (late_rank >= 0 && late(argv[1], late_rank, (int64_t)(late_s * 1e9)) != 0)
		return 1;
	return 0;
bad:
	fprintf(stderr, "tui_fixture: bad arguments\n");
	return 2;
}
