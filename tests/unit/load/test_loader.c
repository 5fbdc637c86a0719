/* The Ascend DB loader and the overlap numbers against torch_npu's own StepTraceTime (the
 * samples' analysis.db), plus bad inputs: each gets one clear line, nothing crashes. */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "loading/loading.h"
#include "load/ascend/ascend_db_int.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static tl_rank *
load_file(const char *path, int rank, tl_source *src)
{
	memset(src, 0, sizeof *src);
	src->rank = rank;
	src->kind = TL_SRC_TORCH_DB;
	src->path = (char *)path;
	tl_rank *r = rank_new(rank);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = src;
	r->loaded = loader_ascend_db.load(src, r, NULL) == 0;
	rank_finish(r);
	return r;
}

/* torch_npu's StepTraceTime (µs, three decimals) from the sample's analysis.db. */
static int
oracle(const char *analysis_db, double v[6])
{
	sqlite3 *db;
	if (sqlite3_open_v2(analysis_db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	sqlite3_stmt *st;
	int rc = -1;
	if (sqlite3_prepare_v2(
	        db,
	        "SELECT computing, communication, overlapped, communication_not_overlapped, free, "
	        "preparing FROM StepTraceTime",
	        -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW) {
			for (int i = 0; i < 6; i++)
				v[i] = sqlite3_column_double(st, i);
			rc = 0;
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return rc;
}

static void
test_samples(void)
{
	static const char *const levels[] = {"level0", "level2"};
	const char *dir = test_samples_dir();
	struct stat sb;
	if (stat(dir, &sb) != 0) {
		SKIP("samples absent: %s (StepTraceTime oracle not checked)", dir);
		return;
	}
	for (int l = 0; l < 2; l++)
		for (int rk = 0; rk < 2; rk++) {
			char *db =
			    xasprintf("%s/ascend-db/%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
			              "ascend_pytorch_profiler_%d.db",
			              dir, levels[l], rk, rk);
			char *an = xasprintf(
			    "%s/ascend-db/%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db",
			    dir, levels[l], rk);
			double want[6];
			if (oracle(an, want) != 0) {
				CHECK(0, "%s: read oracle", an);
				free(db);
				free(an);
				continue;
			}
			tl_source src;
			tl_rank *r = load_file(db, rk, &src);
			CHECK(r->loaded, "%s rank %d loads", levels[l], rk);
			tl_step_overlap *so;
			size_t n = tlq_step_overlaps(r, &so);
			CHECK_EQ_I64(n, 1, "one step");
			CHECK_EQ_I64(so[0].step_id, 50, "step id 50");
			int64_t got[6] = {so[0].o.computing,  so[0].o.communication,
			                  so[0].o.overlapped, so[0].o.comm_not_overlapped,
			                  so[0].o.free,       so[0].o.preparing};
			static const char *const names[] = {
			    "computing",  "communication",
			    "overlapped", "communication_not_overlapped",
			    "free",       "preparing"};
			for (int i = 0; i < 6; i++) {
				/* the oracle is µs with exactly three decimals: compare in ns */
				int64_t w =
				    (int64_t)(want[i] * 1000.0 + (want[i] >= 0 ? 0.5 : -0.5));
				char m[128];
				snprintf(m, sizeof m,
				         "%s %s rank %d: %s equals StepTraceTime to the ns",
				         levels[l], "step 50", rk, names[i]);
				CHECK_EQ_I64(got[i], w, m);
			}
			free(so);
			rank_free(r);
			free(db);
			free(an);
		}
}

/* The forward/backward operator pairs of a sample DB the way MindStudio Insight finds them
 * (connectionCats 'fwdbwd': CONNECTION_IDS groups of more than one PYTORCH_API row whose name
 * is not Enqueue/Dequeue), the forward one first. */
static size_t
insight_pairs(const char *path, tl_fwdbwd **out)
{
	sqlite3 *db;
	tl_fwdbwd *v = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	char *uri = xasprintf("file:%s?immutable=1", path);
	int rc = sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
	        db,
	        "WITH g AS (SELECT c.connectionId FROM CONNECTION_IDS c JOIN PYTORCH_API p ON "
	        "p.connectionId = c.id JOIN STRING_IDS s ON s.id = p.name WHERE s.value NOT LIKE "
	        "'Enqueue%' AND s.value NOT LIKE 'Dequeue%' GROUP BY c.connectionId HAVING "
	        "count(*) > 1) SELECT c.connectionId, CAST(p.startNs AS INTEGER), CAST(p.endNs AS "
	        "INTEGER) FROM g JOIN CONNECTION_IDS c ON c.connectionId = g.connectionId JOIN "
	        "PYTORCH_API p ON p.connectionId = c.id ORDER BY 1, 2",
	        -1, &st, NULL) == SQLITE_OK) {
		int64_t conn = -1;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t c = sqlite3_column_int64(st, 0), s = sqlite3_column_int64(st, 1),
			        e = sqlite3_column_int64(st, 2);
			if (c != conn) {
				tl_fwdbwd x = {s, e, s, e};
				VEC_PUSH(v, n, cap, x);
				conn = c;
			} else {
				v[n - 1].bwd_start = s;
				v[n - 1].bwd_end = e;
			}
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	*out = v;
	return n;
}

static int
cmp_fb(const void *a, const void *b)
{
	const tl_fwdbwd *x = a, *y = b;
	return (x->fwd_start > y->fwd_start) - (x->fwd_start < y->fwd_start);
}

/* The samples are a data-parallel job with one micro-batch: 27 operator pairs per rank (conv,
 * relu, pooling, linear, loss), read on demand. */
static void
test_sample_fwdbwd(void)
{
	const char *dir = test_samples_dir();
	struct stat sb;
	if (stat(dir, &sb) != 0) {
		SKIP("samples absent: %s (operator pairs not checked)", dir);
		return;
	}
	for (int rk = 0; rk < 2; rk++) {
		char *db = xasprintf("%s/ascend-db/level2/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
		                     "ascend_pytorch_profiler_%d.db",
		                     dir, rk, rk);
		tl_source src;
		tl_rank *r = load_file(db, rk, &src);
		CHECK(r->nfwdbwd == 0, "rank %d: operator pairs are not read with the slices", rk);
		load_fwdbwd(r);
		tl_fwdbwd *want;
		size_t n = insight_pairs(db, &want);
		if (n > 1)
			qsort(want, n, sizeof *want, cmp_fb);
		size_t same = 0;
		for (size_t i = 0; i < n && i < r->nfwdbwd; i++)
			same += memcmp(&want[i], &r->fwdbwd[i], sizeof *want) == 0;
		CHECK(
		    n == 27 && r->nfwdbwd == n && same == n,
		    "level2 rank %d: %zu operator pairs, as Insight finds them (%zu of %zu equal)",
		    rk, r->nfwdbwd, same, n);
		CHECK(r->nfwdbwd > 0 && r->fwdbwd[0].fwd_start < r->fwdbwd[0].bwd_start &&
		          r->fwdbwd[0].bwd_start > r->fwdbwd[r->nfwdbwd - 1].bwd_start,
		      "rank %d: backward runs in the reverse order of forward", rk);
		size_t before = r->nfwdbwd;
		load_fwdbwd(r);
		CHECK_EQ_I64(r->nfwdbwd, before, "reading them again adds nothing");
		free(want);
		rank_free(r);
		free(db);
	}
}

/* ---- bad inputs ---------------------------------------------------------------------------- */

static char tmpdir[256];

static char *
tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void
write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	fwrite(data, 1, n, f);
	fclose(f);
}

static void
make_db(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_open(path, &db);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
}

static const char *base_sql =
    "CREATE TABLE META_DATA (name TEXT,value TEXT);"
    "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');"
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "INSERT INTO STRING_IDS VALUES (1,'MatMul'),(2,'KERNEL_AICORE'),(3,'hcom_allReduce__1_1_1'),"
    "(4,'grp');"
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
    "globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,"
    "taskId INTEGER,modelId INTEGER);"
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,"
    "taskType INTEGER);"
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,"
    "connectionId INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY);";

static void
test_bad_inputs(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/tl-test-loader-XXXXXX");
	if (mkdtemp(tmpdir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	msg_set_quiet(1);
	tl_source src;
	tl_rank *r;
	unsigned w0;

	/* not SQLite at all */
	char *p = tmp_path("not_sqlite.db");
	static const char text[] = "hello, this is not a database at all, just some text\n"
	                           "padding padding padding padding padding padding padding\n";
	write_file(p, text, sizeof text - 1);
	w0 = msg_warn_count();
	r = load_file(p, 0, &src);
	CHECK(!r->loaded && msg_warn_count() == w0 + 1, "a text file: not loaded, one message");
	rank_free(r);
	free(p);

	/* a good small DB, then variants */
	p = tmp_path("good.db");
	char *sql = xasprintf("%s"
	                      "INSERT INTO TASK VALUES (100,200,0,1,10,1,2,4294967295,1,1,0),"
	                      "(300,400,0,2,11,1,2,4294967295,1,2,0);"
	                      "INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,2),(1,11,2);"
	                      "INSERT INTO COMMUNICATION_OP VALUES (3,150,350,5,4,1);",
	                      base_sql);
	make_db(p, sql);
	free(sql);
	w0 = msg_warn_count();
	r = load_file(p, 0, &src);
	CHECK(r->loaded && msg_warn_count() == w0, "good DB loads without messages");
	tl_overlap o;
	tlq_overlap(r, INT64_MIN, INT64_MAX, &o);
	CHECK_EQ_I64(o.computing, 200, "computing of the small DB");
	CHECK_EQ_I64(o.communication, 200, "communication of the small DB");
	CHECK_EQ_I64(o.overlapped, 100, "overlapped of the small DB");
	CHECK_EQ_I64(o.free, 0, "free of the small DB");
	rank_free(r);

	/* truncated: keep the header page only */
	FILE *f = fopen(p, "rb");
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	char *q = tmp_path("truncated.db");
	write_file(q, buf, n > 5000 ? 5000 : n);
	w0 = msg_warn_count();
	r = load_file(q, 0, &src);
	CHECK(msg_warn_count() > w0, "truncated DB: a message (and no crash)");
	rank_free(r);
	free(q);
	free(p);

	/* no TASK table */
	p = tmp_path("no_task.db");
	make_db(p, "CREATE TABLE META_DATA (name TEXT,value TEXT);"
	           "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	           "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	           "INSERT INTO STEP_TIME VALUES (1, 100, 200);");
	w0 = msg_warn_count();
	r = load_file(p, 0, &src);
	CHECK(r->loaded && msg_warn_count() == w0 + 1,
	      "DB without TASK: loads the rest, one message");
	rank_free(r);
	free(p);

	/* NULL in a time column and an end before its start */
	p = tmp_path("bad_rows.db");
	sql = xasprintf(
	    "%s"
	    "INSERT INTO TASK VALUES (100,200,0,1,10,1,2,4294967295,1,1,0),"
	    "(NULL,400,0,2,11,1,2,4294967295,1,2,0),(500,450,0,2,11,1,2,4294967295,1,3,0);"
	    "INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,2),(1,11,2);",
	    base_sql);
	make_db(p, sql);
	free(sql);
	w0 = msg_warn_count();
	r = load_file(p, 0, &src);
	CHECK(r->loaded && msg_warn_count() == w0 + 2,
	      "NULL time and end-before-start: one line each, the good row loads");
	tlq_overlap(r, INT64_MIN, INT64_MAX, &o);
	CHECK_EQ_I64(o.computing, 100, "only the good row counts");
	rank_free(r);
	free(p);

	/* a view named TASK is not trusted */
	p = tmp_path("view.db");
	make_db(p, "CREATE TABLE x (a); CREATE VIEW TASK AS SELECT 1 AS startNs, 2 AS endNs;");
	w0 = msg_warn_count();
	r = load_file(p, 0, &src);
	CHECK(!r->loaded && msg_warn_count() == w0 + 1,
	      "a VIEW named TASK: not a profile, one line");
	rank_free(r);
	free(p);

	/* the loader writes nothing beside the file */
	p = tmp_path("good.db");
	char *j = tmp_path("good.db-journal"), *wal = tmp_path("good.db-wal");
	struct stat sb;
	CHECK(stat(j, &sb) != 0 && stat(wal, &sb) != 0, "no journal or -wal beside the input");
	free(j);
	free(wal);
	free(p);
	msg_set_quiet(0);
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup");
	free(cmd);
}

/* TEXT times (PYTORCH_API declares its times TEXT): a decimal integer within int64 is a time,
 * anything else is not; 19 digits above INT64_MAX once overflowed the parser (UB, found by
 * fuzz_db). */
static void
test_text_times(void)
{
	static const struct {
		const char *text;
		int rc;
		int64_t want;
	} cases[] = {
	    {"1736407067001234567", 0, 1736407067001234567LL},
	    {"9223372036854775807", -1, 0}, /* a valid int64, but beyond any time tl accepts */
	    {"9450573394003981920", -1, 0}, /* above INT64_MAX */
	    {"99999999999999999999", -1, 0},
	    {"12x", -1, 0},
	    {"", -1, 0},
	    {"-5", 0, -5},
	};
	sqlite3 *db;
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, "open an in-memory DB");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sqlite3_stmt *st;
		sqlite3_prepare_v2(db, "SELECT ?", -1, &st, NULL);
		sqlite3_bind_text(st, 1, cases[i].text, -1, SQLITE_STATIC);
		int64_t v = 0;
		int rc = sqlite3_step(st) == SQLITE_ROW ? db_col_time(st, 0, &v) : -2;
		CHECK(rc == cases[i].rc && (rc != 0 || v == cases[i].want),
		      "TEXT time '%s': rc %d (want %d), value %lld", cases[i].text, rc, cases[i].rc,
		      (long long)v);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
}

int
main(void)
{
	test_text_times();
	test_samples();
	test_sample_fwdbwd();
	test_bad_inputs();
	return test_done();
}
