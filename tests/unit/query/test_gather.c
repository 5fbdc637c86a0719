/* The tables a load gathers in its own pass (the compute operators, the launches, the
 * communication ops, the counters) against the same tables read on demand afterwards, each
 * reader's own answer: `tl summary --json`, which shows all of them, must be the same byte for
 * byte. On the real samples (DBs at Level0 and Level2, trace_view.json), generated profiles,
 * and fixtures damaged in the ways the operator and launch readers define (ids repeated in
 * COMPUTE_TASK_INFO, ids that are not INTEGERs, missing and backwards times, dangling
 * connectionIds, missing columns and tables). */
#include "config.h"

#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"
#include "../../fuzz/cells_bad.h"
#include "../../fuzz/host_bad.h"

/* `tl summary --json` of path loaded with tables gathered (malloc'd), NULL when it does not
 * load; *gathered: how many ranks hold gathered operators, launches, communication ops. */
static char *
summary_json(const char *path, unsigned tables, int *gathered)
{
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1, .tables = tables};
	if (load_trace(path, &lo, &tr) != 0) {
		trace_free(&tr);
		return NULL;
	}
	*gathered = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		*gathered += (tr.ranks[i]->ops != NULL) + tr.ranks[i]->have_launch_steps +
		             (tr.ranks[i]->comm != NULL) + tr.ranks[i]->counters_read;
	char *buf = test_summary(&tr, NULL, 1);
	trace_free(&tr);
	return buf;
}

/* want: how many tables each rank should have gathered (0: any number, for inputs where a
 * reader may give up) */
static void
check_same(const char *what, const char *path, int want)
{
	int g0 = 0, g1 = 0;
	char *a = summary_json(path, 0, &g0);
	char *b = summary_json(path, TL_TABLE_ALL, &g1);
	CHECK(a != NULL && b != NULL, "%s: loads", what);
	if (a != NULL && b != NULL) {
		CHECK(strcmp(a, b) == 0, "%s: summary JSON the same gathered and read on demand",
		      what);
		if (strcmp(a, b) != 0) {
			size_t i = 0;
			while (a[i] == b[i])
				i++;
			fprintf(stderr,
			        "# first difference at byte %zu:\n# on demand: %.200s\n# gathered: "
			        "%.200s\n",
			        i, a + (i > 60 ? i - 60 : 0), b + (i > 60 ? i - 60 : 0));
		}
		CHECK(g0 == 0, "%s: nothing gathered unasked (%d)", what, g0);
		if (want > 0)
			CHECK(g1 == want, "%s: every table gathered (%d of %d)", what, g1, want);
	}
	free(a);
	free(b);
}

/* A DB of sql in a fresh capture directory under dir (the path is dir). */
static void
write_db(const char *dir, const char *sql)
{
	char *d1 = xasprintf("%s/x_ascend_pt", dir);
	char *d2 = xasprintf("%s/ASCEND_PROFILER_OUTPUT", d1);
	char *path = xasprintf("%s/ascend_pytorch_profiler_0.db", d2);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	sqlite3 *db;
	char *err = NULL;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	          sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK,
	      "write a fixture (%s)", err ? err : "ok");
	sqlite3_free(err);
	sqlite3_close(db);
	free(path);
	free(d2);
	free(d1);
}

/* Operators whose COMPUTE_TASK_INFO repeats an id (the join gives a task to each of its rows),
 * names one with a negative id, one as TEXT and one that no task has; tasks with a NULL,
 * backwards or TEXT time, a TEXT globalTaskId; string ids that are TEXT, missing or NULL. Two
 * steps, so that the launches are read with the step lookup too. */
#define OPS_BAD_SQL                                                                                \
	"CREATE TABLE META_DATA (name TEXT,value TEXT);"                                           \
	"INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');"                                 \
	"CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"                             \
	"INSERT INTO STRING_IDS VALUES (1,'MatMul'),(2,'launch'),(3,'AI_CORE'),(4,'\"1,2\"'),"     \
	"(5,'Add'),(6,NULL),(7,'AI_VECTOR_CORE');"                                                 \
	"CREATE TABLE STEP_TIME (id INTEGER,startNs INTEGER,endNs INTEGER);"                       \
	"INSERT INTO STEP_TIME VALUES (1,0,300),(2,300,1000);"                                     \
	"CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"     \
	"connectionId INTEGER,name INTEGER);"                                                      \
	"INSERT INTO CANN_API VALUES (100,110,10000,7,1,2),(280,290,10000,7,2,2),"                 \
	"(310,320,10000,7,3,2),(330,NULL,10000,7,4,2),('x',5,10000,7,5,2),(340,1,1,7,6,2),"        \
	"(350,1,1,7,'6',2),(360,1,1,7,3,2);"                                                       \
	"CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId "          \
	"INTEGER,globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,"       \
	"streamId INTEGER,taskId INTEGER,modelId INTEGER);"                                        \
	"INSERT INTO TASK VALUES (150,160,0,1,10,1,1,4294967295,1,1,0),"                           \
	"(165,175,0,1,11,1,1,4294967295,1,2,0),(400,420,0,3,12,1,1,4294967295,1,3,0),"             \
	"(430,425,0,3,13,1,1,4294967295,1,4,0),(NULL,440,0,4,14,1,1,4294967295,1,5,0),"            \
	"(450,470,0,6,-3,1,1,4294967295,1,6,0),(480,490,0,2,'15',1,1,4294967295,1,7,0),"           \
	"(500,'x',0,2,16,1,1,4294967295,1,8,0),(510,530,0,2,17,1,1,4294967295,1,9,0),"             \
	"(540,560,0,NULL,10,1,1,4294967295,1,10,0),(570,575,0,99,18,1,1,4294967295,1,11,0);"       \
	"CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER,opType INTEGER,"        \
	"taskType INTEGER,inputShapes INTEGER);"                                                   \
	"INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,1,3,4),(1,10,1,3,4),(5,10,5,7,NULL),"          \
	"(5,11,5,7,99),(1,12,'1',3,4),(5,13,5,3,4),(5,14,5,3,4),(1,-3,1,3,4),(6,15,1,3,4),"        \
	"(1,'16',1,3,4),(5,17,6,3,6),(5,99,5,3,4),(5,18,5,3,4);"                                   \
	"CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType "        \
	"INTEGER,opId INTEGER);"                                                                   \
	"INSERT INTO COMMUNICATION_TASK_INFO VALUES (2,17,2,1);"

/* The same operators without the opType and inputShapes columns. */
#define OPS_NO_COLS_SQL                                                                            \
	"CREATE TABLE META_DATA (name TEXT,value TEXT);"                                           \
	"CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"                             \
	"INSERT INTO STRING_IDS VALUES (1,'MatMul'),(3,'AI_CORE');"                                \
	"CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId "          \
	"INTEGER,globalTaskId INTEGER,streamId INTEGER,taskType INTEGER);"                         \
	"INSERT INTO TASK VALUES (150,160,0,1,10,1,1),(165,175,0,1,11,1,1);"                       \
	"CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType INTEGER);"     \
	"INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,3),(1,11,3);"

static void
check_fixture(const char *what, const char *sql, int want)
{
	char dir[] = "/tmp/tl-test-gather-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	write_db(dir, sql);
	check_same(what, dir, want);
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
check_generated(const char *what, gen_opts *o, int want)
{
	char dir[] = "/tmp/tl-test-gather-gen-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	gen_truth truth;
	CHECK(gen_profile(o, dir, &truth) == 0, "%s: generate", what);
	gen_truth_free(&truth);
	check_same(what, dir, want);
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Two captures of every rank (verl's discrete mode: one per step and role), merged on one
 * timeline: the tables of both sources go to one rank. */
static void
check_two_captures(void)
{
	char dir[] = "/tmp/tl-test-gather-two-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	static const char *const sub[] = {"1", "1/actor", "2", "2/rollout"};
	for (int i = 0; i < 4; i++) {
		char *d = xasprintf("%s/%s", dir, sub[i]);
		mkdir(d, 0755);
		free(d);
	}
	for (int k = 0; k < 2; k++) {
		gen_opts o;
		gen_opts_default(&o);
		o.nranks = 2;
		o.nsteps = 2;
		o.tasks_per_rank = 1500;
		o.slow_rank = -1;
		o.seed = 20 + (uint64_t)k;
		o.launch_jitter = 1;
		o.t0_ns = INT64_C(1736407067000000000) + k * INT64_C(60000000000);
		char *d = xasprintf("%s/%s", dir, sub[2 * k + 1]);
		gen_truth truth;
		CHECK(gen_profile(&o, d, &truth) == 0, "two captures: generate %s", sub[2 * k + 1]);
		gen_truth_free(&truth);
		free(d);
	}
	check_same("two captures of every rank", dir, 8);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(dir, &lo, &tr) == 0 && tr.nranks == 2 && tr.ranks[0]->nsources == 2,
	      "two captures: each rank has both sources");
	trace_free(&tr);
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
check_sample(const char *sub, int want)
{
	char *p = xasprintf("%s/%s", test_samples_dir(), sub);
	struct stat sb;
	if (stat(p, &sb) != 0) {
		SKIP("no sample %s (../shared/samples)", sub);
	} else {
		char *what = xasprintf("sample %s", sub);
		check_same(what, p, want);
		free(what);
	}
	free(p);
}

int
main(void)
{
	msg_set_quiet(1);
	check_sample("ascend-db/level0", 8);
	check_sample("ascend-db/level2", 8);
	/* trace_view.json: no operator or launch tables, its communication from the HCCL lanes */
	check_sample("ascend-text/level1", 0);
	check_fixture("damaged operators and launches", OPS_BAD_SQL, 4);
	check_fixture("operators without opType and inputShapes", OPS_NO_COLS_SQL, 4);
	check_fixture("cells of every type in untyped columns", CELLS_BAD_SQL, 4);
	check_fixture("damaged host tables", HOST_BAD_SQL, 4);
	/* a call 5 s after the first of its block of connectionIds: its start past the 32-bit
	 * offset the gather keeps */
	check_fixture("a call 5 s after the others",
	              HOST_BAD_SQL
	              "INSERT INTO CANN_API VALUES (5000000000,5000000010,10000,7,6,2);"
	              "INSERT INTO TASK VALUES (5000000070,5000000080,0,6,15,1,1,"
	              "4294967295,1,6,0);"
	              "INSERT INTO COMPUTE_TASK_INFO VALUES (1,15);",
	              4);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 3;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 11;
	o.launch_jitter = 1;
	o.host_ops = 1;
	o.memory_records = 1;
	check_generated("GRPO, varying launch delays, memory records", &o, 8);
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 1;
	o.tasks_per_rank = 2000;
	o.slow_rank = -1;
	o.seed = 3;
	o.json = 1;
	check_generated("GRPO, one step, with trace_view.json", &o, 8);
	check_two_captures();
	return test_done();
}
