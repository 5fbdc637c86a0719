/* Crafted and unusual SQLite files, built here with the sqlite3 C API: each is refused (or
 * read) with exactly one clear line naming what is wrong, nothing runs that tl did not ask
 * for, nothing hangs or eats memory, nothing is written beside the file, and the other ranks
 * of a profile still load. */
#include "config.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "load/ascend/profdb.h"
#include "profile/discover.h"
#include "query/findings.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static char tmpdir[256];
static int ncase;

static char *
tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* ---- capturing what tl prints on stderr ------------------------------------------------------ */

static int saved_fd = -1;
static char *cap_path;

static void
capture_begin(void)
{
	fflush(stderr);
	saved_fd = dup(2);
	int fd = open(cap_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
}

/* What was printed since capture_begin (malloc'd). */
static char *
capture_end(void)
{
	fflush(stderr);
	dup2(saved_fd, 2);
	close(saved_fd);
	FILE *f = fopen(cap_path, "r");
	char *buf = xcalloc(1, 65536);
	if (f) {
		size_t n = fread(buf, 1, 65535, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

static int
count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- building files ------------------------------------------------------------------------- */

static const char *const meta = "CREATE TABLE META_DATA (name TEXT,value TEXT);"
                                "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');";
static const char *const strings = "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
                                   "INSERT INTO STRING_IDS VALUES (1,'MatMul'),(2,'grp');";
static const char *const task =
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,"
    "deviceId INTEGER,connectionId INTEGER,globalTaskId INTEGER,"
    "streamId INTEGER,taskType INTEGER,contextId INTEGER,taskId INTEGER);";
static const char *const task_rows = "INSERT INTO TASK VALUES (100,200,0,1,10,1,1,4294967295,1),"
                                     "(300,400,0,2,11,1,1,4294967295,2);";
static const char *const compute = "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,"
                                   "globalTaskId INTEGER PRIMARY KEY,taskType INTEGER);"
                                   "INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,1),(1,11,1);";

static char *
make_db(const char *name, const char *sql)
{
	char *p = tmp_path(name);
	unlink(p);
	sqlite3 *db;
	if (sqlite3_open(p, &db) != SQLITE_OK) {
		CHECK(0, "create %s", p);
		sqlite3_close(db);
		return p;
	}
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		CHECK(0, "building %s: %s", name, err ? err : "?");
		sqlite3_free(err);
	}
	sqlite3_close(db);
	return p;
}

static char *
make_good(const char *name, const char *extra)
{
	char *sql =
	    xasprintf("%s%s%s%s%s%s", meta, strings, task, task_rows, compute, extra ? extra : "");
	char *p = make_db(name, sql);
	free(sql);
	return p;
}

typedef struct outcome {
	int loaded;
	int lines;  /* lines printed */
	char *text; /* what was printed */
	int64_t compute_ns;
} outcome;

/* The DB at path loaded as rank 0 by the loader itself (the rank kept even when it fails or
 * has no slices, as the fuzz target keeps it), through src (the caller's: it lives as long as
 * the rank); whether it loaded and what it printed into *o. */
static tl_rank *
load_rank(tl_source *src, const char *path, outcome *o)
{
	memset(src, 0, sizeof *src);
	src->rank = 0;
	src->kind = TL_SRC_TORCH_DB;
	src->path = (char *)path;
	tl_rank *r = rank_new(0);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = src;
	capture_begin();
	o->loaded = r->loaded = loader_ascend_db.load(src, r, NULL) == 0;
	o->text = capture_end();
	o->lines = count_lines(o->text);
	for (char *q = o->text; *q; q++) /* one line in the test's own message */
		if (*q == '\n')
			*q = ' ';
	rank_finish(r);
	return r;
}

static outcome
load(const char *path)
{
	outcome o = {0};
	tl_source src;
	tl_rank *r = load_rank(&src, path, &o);
	tl_overlap ov;
	tlq_overlap(r, INT64_MIN, INT64_MAX, &ov);
	o.compute_ns = ov.computing;
	rank_free(r);
	return o;
}

/* The file is refused with one line that names the file and contains `why`. */
static void
expect_refused(const char *name, const char *sql, const char *why, const char *what)
{
	char *p = make_db(name, sql);
	outcome o = load(p);
	ncase++;
	CHECK(!o.loaded, "%s: refused", what);
	CHECK(o.lines == 1 && strstr(o.text, p) && strstr(o.text, why),
	      "%s: one line naming the file and '%s' (got: %s)", what, why, o.text);
	free(o.text);
	free(p);
}

static int
exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static long
maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* ---- the cases ------------------------------------------------------------------------------ */

static void
test_schema_tricks(void)
{
	char *sql;
	sql = xasprintf("%s%s CREATE TABLE x (a); CREATE VIEW TASK AS SELECT 1 AS startNs, "
	                "2 AS endNs;",
	                meta, strings);
	expect_refused("view.db", sql, "TASK is a view", "a VIEW named TASK");
	free(sql);

	sql = xasprintf("%s%s%s CREATE VIEW COMMUNICATION_OP AS WITH RECURSIVE c(x) AS (SELECT 1 "
	                "UNION ALL SELECT x + 1 FROM c) SELECT x AS startNs, x AS endNs FROM c;",
	                meta, strings, task);
	expect_refused("recursive-view.db", sql, "COMMUNICATION_OP is a view",
	               "a recursive VIEW named COMMUNICATION_OP");
	free(sql);

	sql = xasprintf("%s%s%s%s CREATE TABLE x (a); CREATE TRIGGER STEP_TIME AFTER INSERT ON x "
	                "BEGIN SELECT 1; END;",
	                meta, strings, task, task_rows);
	expect_refused("trigger.db", sql, "STEP_TIME is a trigger",
	               "a trigger named like a profile table");
	free(sql);

	/* generated columns run their expression on every read, unseen by the authorizer */
	sql = xasprintf("%s%s CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, globalTaskId "
	                "INTEGER, streamId INTEGER AS (length(printf('%%.*c', 1000000, 'x'))));"
	                "%s INSERT INTO TASK (startNs, endNs, globalTaskId) VALUES (1, 2, 10);",
	                meta, strings, compute);
	expect_refused("generated.db", sql, "TASK.streamId is a generated column",
	               "a generated column calling printf");
	free(sql);

	sql = xasprintf("%s%s CREATE VIRTUAL TABLE TASK USING rtree(id, startNs, endNs);", meta,
	                strings);
	expect_refused("virtual.db", sql, "TASK is a virtual table", "a virtual table named TASK");
	free(sql);

	sql = xasprintf("%s CREATE TABLE x (a);", meta);
	expect_refused("no-data.db", sql, "none of TASK", "no profile table");
	free(sql);

	sql = xasprintf("%s%s", task, task_rows);
	expect_refused("no-meta-no-strings.db", sql, "neither META_DATA nor STRING_IDS",
	               "neither META_DATA nor STRING_IDS");
	free(sql);

	/* a table wider than any profile's: the schema itself is refused */
	char *cols = xstrdup("CREATE TABLE wide (c0");
	for (int i = 1; i < 300; i++) {
		char *n = xasprintf("%s, c%d", cols, i);
		free(cols);
		cols = n;
	}
	sql = xasprintf("%s%s%s%s);", meta, strings, task, cols);
	expect_refused("wide.db", sql, "too many columns", "a table of 300 columns");
	free(sql);
	free(cols);

	/* an expression 150 deep in a CHECK constraint (c + 1 + 1 ...: a left-deep tree) */
	char *e = xstrdup("c");
	for (int i = 0; i < 150; i++) {
		char *n = xasprintf("%s + 1", e);
		free(e);
		e = n;
	}
	sql = xasprintf("%s%s%s CREATE TABLE deep (c INTEGER CHECK (%s > 0));", meta, strings, task,
	                e);
	expect_refused("deep.db", sql, "too large", "an expression 150 deep");
	free(sql);
	free(e);

	/* a trigger on a profile table never fires on a read: the file loads */
	char *p = make_good("trigger-on-task.db", "CREATE TABLE log (a);"
	                                          "CREATE TRIGGER t AFTER INSERT ON TASK BEGIN "
	                                          "INSERT INTO log VALUES (1); END;");
	outcome o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns == 200,
	      "a trigger on TASK: loads, no message (%s)", o.text);
	free(o.text);
	free(p);

	/* a view not named like a profile table is never touched */
	p = make_good("other-view.db", "CREATE VIEW spin AS WITH RECURSIVE c(x) AS (SELECT 1 "
	                               "UNION ALL SELECT x + 1 FROM c) SELECT x FROM c;");
	o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns == 200,
	      "an endless view under another name: loads, never run (%s)", o.text);
	free(o.text);
	free(p);

	/* WITHOUT ROWID: tl's SELECTs need the rowid; one line, no crash */
	sql = xasprintf("%s%s CREATE TABLE TASK (startNs INTEGER PRIMARY KEY, endNs INTEGER) "
	                "WITHOUT ROWID; INSERT INTO TASK VALUES (1, 2);",
	                meta, strings);
	p = make_db("without-rowid.db", sql);
	o = load(p);
	CHECK(!o.loaded && o.lines >= 1 && strstr(o.text, "TASK"),
	      "a WITHOUT ROWID TASK: not loaded, named (%s)", o.text);
	free(o.text);
	free(p);
	free(sql);
}

static void
test_sizes(void)
{
	/* a 2 MB string: over the 1 MB limit, the rank is refused with one line */
	char *sql = xasprintf("%s%s%s%s%s UPDATE STRING_IDS SET value = printf('%%.*c', 2000000, "
	                      "'x') WHERE id = 1;",
	                      meta, strings, task, task_rows, compute);
	expect_refused("huge-string.db", sql, "longer than 1048576 bytes", "a 2 MB string");
	free(sql);

	/* 100 KB names are real enough: they load */
	char *p = make_good("long-name.db", "UPDATE STRING_IDS SET value = printf('%.*c', 100000, "
	                                    "'n') WHERE id = 1;");
	outcome o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns == 200, "a 100 KB name loads (%s)", o.text);
	free(o.text);
	free(p);

	/* one huge id must not make tl allocate for every id below it */
	long before = maxrss_kb();
	p = make_good(
	    "huge-ids.db",
	    "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	    "INSERT INTO STEP_TIME VALUES (1, 50, 250), (2, 250, 450);"
	    "CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, connectionId INTEGER);"
	    "INSERT INTO CANN_API VALUES (60, 70, 268435000), (260, 270, 2);"
	    "INSERT INTO COMPUTE_TASK_INFO VALUES (1, 4611686018427387904, 1);");
	o = load(p);
	long grew = maxrss_kb() - before;
	CHECK(o.loaded && o.compute_ns == 200 && grew < 64 * 1024,
	      "huge connectionId and globalTaskId: loads, memory grew %ld KB (< 64 MB)", grew);
	free(o.text);
	free(p);

	/* the memory estimate before loading: a crafted max(rowid) is capped by the file size */
	p = make_good("huge-rowid.db", "INSERT INTO TASK (rowid, startNs, endNs) VALUES "
	                               "(4611686018427387904, 500, 600);");
	tl_source src = {.rank = 0, .kind = TL_SRC_TORCH_DB, .path = p, .role_step = -1};
	uint64_t est = load_estimate_source(&src, 1);
	CHECK(est > 0 && est < ((uint64_t)1 << 20),
	      "the memory estimate of a file claiming rowid 2^62: %" PRIu64 " bytes (< 1 MiB)",
	      est);
	free(p);
	setenv("TL_MEM_AVAILABLE", "1.5G", 1);
	CHECK_EQ_I64(load_mem_available(), (int64_t)3 << 29, "TL_MEM_AVAILABLE=1.5G");
	setenv("TL_MEM_AVAILABLE", "123456", 1);
	CHECK_EQ_I64(load_mem_available(), 123456, "TL_MEM_AVAILABLE=123456 (bytes)");
	unsetenv("TL_MEM_AVAILABLE");
	uint64_t avail = load_mem_available();
	CHECK(avail > ((uint64_t)1 << 20),
	      "the memory available here is known and plausible (%" PRIu64 " bytes)", avail);

	/* times at the ends of int64 (a fuzzer finding: end - start overflowed in the analyses) */
	p = make_good(
	    "extreme-times.db",
	    "INSERT INTO TASK VALUES (-9151314442816847873, 1736407067020229701, 0, 3, 10, 1, 1, "
	    "4294967295, 5), (9223372036854775000, 9223372036854775807, 0, 4, 11, 1, 1, "
	    "4294967295, "
	    "6);"
	    "CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
	    "connectionId INTEGER, groupName INTEGER, opId INTEGER);"
	    "INSERT INTO COMMUNICATION_OP VALUES (1, -9223372036854775808, 0, 1, 2, 1), "
	    "(1, 150, 350, 2, 2, 2);");
	o = load(p);
	CHECK(o.loaded && o.lines == 2 && strstr(o.text, "TASK: 2 rows with a time out of range") &&
	          strstr(o.text, "COMMUNICATION_OP: 1 rows with a time out of range") &&
	          o.compute_ns == 200,
	      "times beyond +-2^62 ns: skipped, one line per table, the rest loads (%s)", o.text);
	free(o.text);
	free(p);

	/* compute and communication each near 2^62 long (a fuzzer finding: comp + comm
	 * overflowed in the overlap numbers, UB) */
	p = make_good(
	    "extreme-union.db",
	    "INSERT INTO TASK VALUES (-4611686018427387000, 0, 0, 5, 12, 1, 1, 4294967295, 7);"
	    "INSERT INTO COMPUTE_TASK_INFO VALUES (1, 12, 1);"
	    "CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, "
	    "connectionId INTEGER, groupName INTEGER, opId INTEGER);"
	    "INSERT INTO COMMUNICATION_OP VALUES (1, -1000000000000000000, 4611686018427387000, 1, "
	    "2, "
	    "1);");
	o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns > 4000000000000000000,
	      "compute and communication of 4.6e18 ns each: loads, numbers without overflow (%s)",
	      o.text);
	free(o.text);
	free(p);

	/* a huge deviceId (a fuzzer finding: the lane key shifted it out of an int64, UB) */
	p = make_good("huge-device.db", "UPDATE TASK SET deviceId = 1736414119776585040;");
	o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns == 200, "a deviceId of 1.7e18 loads (%s)",
	      o.text);
	free(o.text);
	free(p);

	/* STEP_TIME without a usable row (a fuzzer finding: qsort of a NULL array) */
	p = make_good("empty-steps.db",
	              "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	              "INSERT INTO STEP_TIME VALUES (1, 500, 100);");
	o = load(p);
	CHECK(o.loaded && o.lines == 1 && o.compute_ns == 200,
	      "STEP_TIME with only a backwards row: the rest loads, one line (%s)", o.text);
	free(o.text);
	free(p);

	/* the header claims two billion pages */
	p = make_good("page-count.db", NULL);
	int fd = open(p, O_RDWR);
	unsigned char h[100];
	if (fd >= 0 && pread(fd, h, 100, 0) == 100) {
		h[28] = 0x7f;
		h[29] = h[30] = h[31] = 0xff;
		memcpy(h + 92, h + 24,
		       4); /* "version-valid-for" = change counter: trust the count */
		if (pwrite(fd, h, 100, 0) != 100)
			CHECK(0, "patch %s", p);
	}
	if (fd >= 0)
		close(fd);
	o = load(p);
	CHECK(o.lines <= 1, "a header claiming 2^31 pages: at most one line, no hang (%s)", o.text);
	free(o.text);
	free(p);
}

static void
test_meta(void)
{
	char *sql = xasprintf("CREATE TABLE META_DATA (name TEXT,value TEXT);"
	                      "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','9.0.0');%s%s%s%s",
	                      strings, task, task_rows, compute);
	char *p = make_db("future.db", sql);
	outcome o = load(p);
	CHECK(o.loaded && o.lines == 1 && strstr(o.text, "SCHEMA_VERSION 9.0.0"),
	      "SCHEMA_VERSION 9.0.0: loads, one line says so (%s)", o.text);
	free(o.text);
	free(p);
	free(sql);

	sql = xasprintf("%s%s%s%s", strings, task, task_rows, compute);
	p = make_db("no-meta.db", sql);
	o = load(p);
	CHECK(o.loaded && o.lines == 1 && strstr(o.text, "neither META_DATA nor msprof's"),
	      "no META_DATA and no msprof session table: loads, one line says so (%s)", o.text);
	free(o.text);
	free(p);
	free(sql);

	/* msprof's own export: no META_DATA, its session tables say who wrote it */
	sql = xasprintf("CREATE TABLE NPU_INFO (id INTEGER,name TEXT);"
	                "INSERT INTO NPU_INFO VALUES (0,'Ascend910B');%s%s%s%s",
	                strings, task, task_rows, compute);
	p = make_db("msprof.db", sql);
	o = load(p);
	CHECK(o.loaded && o.lines == 0,
	      "msprof's export (NPU_INFO, no META_DATA): loads quietly (%s)", o.text);
	free(o.text);
	free(p);
	free(sql);

	/* not SQLite at all, and an empty file */
	p = tmp_path("text.db");
	FILE *f = fopen(p, "w");
	fputs("this is not a database, just some text that is long enough to be read\n", f);
	fclose(f);
	o = load(p);
	CHECK(!o.loaded && o.lines == 1 && strstr(o.text, "not an SQLite database"),
	      "a text file: one line (%s)", o.text);
	free(o.text);
	free(p);
	p = tmp_path("empty.db");
	f = fopen(p, "w");
	fclose(f);
	o = load(p);
	CHECK(!o.loaded && o.lines == 1 && strstr(o.text, "not a profiler database"),
	      "an empty file: one line (%s)", o.text);
	free(o.text);
	free(p);
}

/* What the authorizer and the budget do with statements tl never runs. */
static void
test_authorizer(void)
{
	char *p =
	    make_good("auth.db", "CREATE TABLE other (a); INSERT INTO other VALUES (1);"
	                         "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM "
	                         "c WHERE x < 20000) INSERT INTO TASK (startNs, endNs) SELECT "
	                         "x, x + 1 FROM c;");
	tl_profdb pdb;
	char err[256], m[400];
	if (profdb_open(&pdb, p, err, sizeof err) != 0) {
		CHECK(0, "profdb_open %s: %s", p, err);
		free(p);
		return;
	}
	static const struct {
		const char *sql, *why;
	} denied[] = {
	    {"SELECT randomblob(10)", "randomblob()"},
	    {"SELECT load_extension('/tmp/x')", "load_extension()"},
	    {"SELECT a FROM other", "read the table other"},
	    {"SELECT * FROM sqlite_temp_master", "sqlite_temp_master"},
	    {"PRAGMA writable_schema = 1", "PRAGMA writable_schema"},
	    {"PRAGMA journal_mode = WAL", "PRAGMA journal_mode"},
	    {"ATTACH '/tmp/tl-x.db' AS x", "action"},
	    {"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
	     "WITH clause c"},
	    {"SELECT printf('%s', startNs) FROM TASK", "printf()"},
	};
	for (size_t i = 0; i < sizeof denied / sizeof *denied; i++) {
		sqlite3_stmt *st = NULL;
		int rc = profdb_prepare(&pdb, denied[i].sql, &st);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(st);
			sqlite3_finalize(st);
		}
		profdb_errmsg(&pdb, rc, m, sizeof m);
		CHECK(rc != SQLITE_OK && rc != SQLITE_ROW && profdb_fatal(&pdb, rc) &&
		          strstr(m, "crafted") && strstr(m, denied[i].why),
		      "refused: %s (%s)", denied[i].sql, m);
	}
	static const char *const allowed[] = {"SELECT max(startNs), count(*) FROM TASK",
	                                      "PRAGMA table_info(\"TASK\")",
	                                      "SELECT name FROM sqlite_master"};
	for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++) {
		sqlite3_stmt *st = NULL;
		int rc = profdb_prepare(&pdb, allowed[i], &st);
		if (rc == SQLITE_OK) {
			rc = sqlite3_step(st);
			sqlite3_finalize(st);
		}
		CHECK(rc == SQLITE_ROW, "allowed: %s (%s)", allowed[i], sqlite3_errmsg(pdb.db));
	}
	/* the work budget: a statement over it is stopped and named */
	sqlite3_stmt *st = NULL;
	int rc = profdb_prepare(&pdb, "SELECT max(endNs) FROM TASK", &st);
	pdb.max_ticks = 0;
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
	}
	CHECK((rc & 0xff) == SQLITE_INTERRUPT && profdb_fatal(&pdb, rc) &&
	          strstr(profdb_errmsg(&pdb, rc, m, sizeof m), "far more work"),
	      "over the work budget: stopped (%s)", m);
	profdb_close(&pdb);
	free(p);
}

/* Files beside the DB: none is ever created, and a writer's are noticed. */
static void
test_side_files(void)
{
	/* a WAL-mode file: SQLite's own read-only open creates -wal and -shm beside it */
	char *p = make_good("wal.db", "PRAGMA journal_mode = WAL;");
	char *wal = xasprintf("%s-wal", p), *shm = xasprintf("%s-shm", p),
	     *jn = xasprintf("%s-journal", p);
	CHECK(!exists(wal) && !exists(shm), "the WAL-mode file has no -wal or -shm yet");
	outcome o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns == 200, "a WAL-mode file loads (%s)",
	      o.text);
	CHECK(!exists(wal) && !exists(shm) && !exists(jn),
	      "no -wal, -shm or -journal appeared beside it");
	free(o.text);

	/* a rollback journal beside it: still being written */
	FILE *f = fopen(jn, "w");
	fputs("journal", f);
	fclose(f);
	char *q = make_good("journal.db", NULL);
	char *qj = xasprintf("%s-journal", q);
	if (rename(jn, qj) != 0)
		CHECK(0, "rename");
	o = load(q);
	CHECK(o.loaded && o.lines == 1 && strstr(o.text, "still being written"),
	      "a -journal beside it: loads, one line says it may be incomplete (%s)", o.text);
	free(o.text);
	free(qj);
	free(q);
	free(wal);
	free(shm);
	free(jn);
	free(p);

	/* file names that mean something in a URI */
	p = make_good("we?ird#na%me%20.db", NULL);
	o = load(p);
	CHECK(o.loaded && o.lines == 0 && o.compute_ns == 200,
	      "a file name with ?, # and %% loads (%s)", o.text);
	free(o.text);
	free(p);
}

/* One crafted rank among good ones: it fails with one line, the others load. */
static void
test_profile(void)
{
	char *dir = tmp_path("profile");
	gen_opts go;
	gen_opts_default(&go);
	go.nranks = 3;
	go.slow_rank = 1;
	go.tasks_per_rank = 300;
	go.threads = 1;
	if (gen_profile(&go, dir, NULL) != 0) {
		CHECK(0, "gen_profile %s", dir);
		free(dir);
		return;
	}
	tl_sourcelist sl = {0};
	discover(dir, NULL, &sl);
	const char *victim = NULL;
	for (size_t i = 0; i < sl.n; i++)
		if (sl.v[i].rank == 1)
			victim = sl.v[i].path;
	if (victim == NULL) {
		CHECK(0, "rank 1 of the generated profile");
		sourcelist_free(&sl);
		free(dir);
		return;
	}
	sqlite3 *db;
	sqlite3_open(victim, &db);
	sqlite3_exec(db,
	             "ALTER TABLE TASK RENAME TO TASK_REAL; CREATE VIEW TASK AS SELECT * FROM "
	             "TASK_REAL;",
	             NULL, NULL, NULL);
	sqlite3_close(db);
	sourcelist_free(&sl);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	capture_begin();
	int rc = load_trace(dir, &lo, &tr);
	char *text = capture_end();
	CHECK(rc == 0 && tr.nranks == 2 && tr.ranks[0]->rank == 0 && tr.ranks[1]->rank == 2,
	      "a crafted rank 1: ranks 0 and 2 load (%zu ranks)", tr.nranks);
	int lines = count_lines(text);
	for (char *q = text; *q; q++)
		if (*q == '\n')
			*q = ' ';
	CHECK(lines == 1 && strstr(text, "TASK is a view"),
	      "a crafted rank 1: one line names it (%s)", text);
	free(text);
	trace_free(&tr);
	free(dir);
}

/* The frequency_drop findings of the rank one DB loads as the fuzz target loads it
 * (load_rank): how many name rank 0. */
static int
freq_drops(const char *path)
{
	tl_source src;
	outcome o = {0};
	tl_rank *r = load_rank(&src, path, &o);
	free(o.text);
	tl_trace tr;
	trace_init_rank(&tr, r);
	tl_query *q = tlq_open(&tr, NULL);
	tl_finding *fv = NULL;
	size_t nf = tlq_findings(q, NULL, &fv);
	int drops = 0;
	for (size_t i = 0; i < nf; i++)
		drops += fv[i].kind == TL_FIND_FREQUENCY_DROP && fv[i].rank == 0;
	free(fv);
	tlq_close(q);
	trace_free(&tr); /* frees r, whose source is ours */
	return drops;
}

/* A rank whose DB holds AI Core frequency samples but no timed rows (no tasks, no steps) has
 * no times (t_min > t_max): frequency_drop, which takes a step's window from the rank's times
 * when it has no steps, must pass it by rather than subtract INT64_MAX from INT64_MIN (fuzz_db
 * found that overflow under UBSan; make check-sanitizers runs this case under the same
 * halting UBSan). The same samples beside two tasks are a drop (the rule ran). */
static void
test_freq_without_times(void)
{
	static const char *const freq =
	    "CREATE TABLE AICORE_FREQ (deviceId INTEGER,timestampNs NUMERIC,freq INTEGER);"
	    "INSERT INTO AICORE_FREQ VALUES (0,100,1800),(0,150,800),(0,250,1800);";
	char *sql0 = xasprintf("%s%s%s%s%s%s", meta, strings, task, task_rows, compute, freq);
	char *sql1 = xasprintf("%s%s%s%s", meta, strings, task, freq);
	char *p0 = make_db("freq-tasks.db", sql0), *p1 = make_db("freq-no-times.db", sql1);
	ncase++;
	/* 800 of 1800 MHz for 100 of the 300 ns the tasks span: a third, over the rule's 5% */
	int d0 = freq_drops(p0);
	CHECK(d0 == 1, "frequency samples beside tasks: a frequency_drop (%d)", d0);
	int d1 = freq_drops(p1);
	CHECK(d1 == 0, "frequency samples without times: no frequency_drop, no overflow (%d)", d1);
	free(sql0);
	free(sql1);
	free(p0);
	free(p1);
}

int
main(void)
{
	snprintf(tmpdir, sizeof tmpdir, "%s/tl-test-hostile-XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		CHECK(0, "mkdtemp");
		return test_done();
	}
	cap_path = tmp_path("stderr.txt");
	test_schema_tricks();
	test_sizes();
	test_meta();
	test_authorizer();
	test_side_files();
	test_profile();
	test_freq_without_times();
	printf("# %d crafted files refused\n", ncase);
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup %s", tmpdir);
	free(cmd);
	free(cap_path);
	return test_done();
}
