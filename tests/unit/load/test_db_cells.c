/* The one rule the DB readers take cells by (load/ascend/ascend_db_gather.h): an id only as an
 * INTEGER, a time also as TEXT holding exactly a decimal integer, anything else no number (never
 * 0);
 * and db_int_max, the largest INTEGER of a column even where SQL's max() answers with a TEXT
 * cell ('x' ranks above every number). The expected values are the cells as written. */
#include "config.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load/ascend/ascend_db_int.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static sqlite3 *db;

/* The cell that the SQL literal lit gives in a column without a declared type (SQLite keeps
 * what was written) as db_time_at (time) or db_cell_at takes it. */
static db_cell
cell(const char *lit, int time)
{
	char *ins = xasprintf("DELETE FROM c; INSERT INTO c VALUES (%s, %s)", lit, lit);
	db_cell x = {-1, -1};
	sqlite3_stmt *st = NULL;
	if (sqlite3_exec(db, ins, NULL, NULL, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT v FROM c", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		x = time ? db_time_at(st, 0) : db_cell_at(st, 0);
	sqlite3_finalize(st);
	free(ins);
	return x;
}

static void
time_ok(const char *lit, int64_t want)
{
	db_cell x = cell(lit, 1);
	CHECK(x.type == SQLITE_INTEGER && x.v == want, "time %s is %lld (type %d, %lld)", lit,
	      (long long)want, x.type, (long long)x.v);
}

static void
time_bad(const char *lit)
{
	db_cell x = cell(lit, 1);
	CHECK(x.type != SQLITE_INTEGER && x.type != SQLITE_NULL && x.v == 0,
	      "time %s is no number (type %d, v %lld)", lit, x.type, (long long)x.v);
}

static void
test_rules(void)
{
	CHECK(sqlite3_exec(db, "CREATE TABLE c (k, v)", NULL, NULL, NULL) == SQLITE_OK,
	      "a table without declared types");
	time_ok("1736407067001000000", INT64_C(1736407067001000000));
	time_ok("'1736407067001000000'", INT64_C(1736407067001000000)); /* PYTORCH_API's TEXT */
	time_ok("'-5'", -5);
	time_ok("'-0'", 0);
	time_ok("'0009'", 9);
	time_ok("'9223372036854775807'", INT64_MAX); /* the model's range is the reader's check */
	time_bad("'x'");
	time_bad("''");
	time_bad("'-'");
	time_bad("' 12'");
	time_bad("'12 '");
	time_bad("'+12'");
	time_bad("'1e3'");
	time_bad("'1.0'");
	time_bad("'0x10'");
	time_bad("'12abc'");
	time_bad("'9223372036854775808'");
	time_bad("'99999999999999999999'");
	time_bad("CAST(X'310032' AS TEXT)"); /* "1\02": a NUL inside the text */
	time_bad("1.5");
	time_bad("1500000000.0"); /* a REAL, even a whole one: no writer stores times so */
	time_bad("X'3132'");
	db_cell x = cell("NULL", 1);
	CHECK(x.type == SQLITE_NULL && x.v == 0, "a NULL time is NULL");
	/* ids: INTEGER only */
	x = cell("'12'", 0);
	CHECK(x.type == SQLITE_TEXT && x.v == 0, "an id '12' (TEXT) is no id");
	x = cell("12.0", 0);
	CHECK(x.type == SQLITE_FLOAT && x.v == 0, "an id 12.0 (REAL) is no id");
	x = cell("X'0c'", 0);
	CHECK(x.type == SQLITE_BLOB && x.v == 0, "a BLOB id is no id");
	x = cell("4294967295", 0);
	CHECK(x.type == SQLITE_INTEGER && x.v == 4294967295, "an INTEGER id is itself");
}

/* db_int_max on a profile DB through the loader's own connection. */
static void
test_int_max(void)
{
	char dir[] = "/tmp/tl-test-cells-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	char *path = xasprintf("%s/ascend_pytorch_profiler_0.db", dir);
	sqlite3 *w;
	CHECK(sqlite3_open(path, &w) == SQLITE_OK &&
	          sqlite3_exec(
	              w,
	              "CREATE TABLE META_DATA (name TEXT,value TEXT);"
	              "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	              "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER);"
	              "CREATE TABLE COMPUTE_TASK_INFO (globalTaskId INTEGER PRIMARY KEY);"
	              "INSERT INTO COMPUTE_TASK_INFO VALUES (3),(70),(5);"
	              "CREATE TABLE COMMUNICATION_TASK_INFO (globalTaskId INTEGER);"
	              "INSERT INTO COMMUNICATION_TASK_INFO VALUES "
	              "(3),('x'),(70),(X'ff'),(1e19),(NULL),(5);"
	              "CREATE TABLE MEMCPY_INFO (globalTaskId INTEGER);"
	              "INSERT INTO MEMCPY_INFO VALUES ('x'),(NULL);"
	              "CREATE TABLE COMMUNICATION_SCHEDULE_TASK_INFO (globalTaskId INTEGER);",
	              NULL, NULL, NULL) == SQLITE_OK,
	      "write the DB");
	sqlite3_close(w);
	tl_source src = {.path = path, .rank = 0, .kind = TL_SRC_TORCH_DB};
	tl_rank *r = rank_new(0);
	db_ctx c;
	if (db_open(&c, &src, r, "skipped") == 0) {
		CHECK_EQ_I64(db_int_max(&c, "COMPUTE_TASK_INFO", "globalTaskId", -1), 70,
		             "an INTEGER PRIMARY KEY's max");
		/* 'x' and the BLOB rank above 70 in SQL, 1e19 stays a REAL */
		CHECK_EQ_I64(db_int_max(&c, "COMMUNICATION_TASK_INFO", "globalTaskId", -1), 70,
		             "the largest INTEGER past 'x'");
		CHECK_EQ_I64(db_int_max(&c, "MEMCPY_INFO", "globalTaskId", -1), -1,
		             "no INTEGER: the default");
		CHECK_EQ_I64(db_int_max(&c, "COMMUNICATION_SCHEDULE_TASK_INFO", "globalTaskId", -1),
		             -1, "no row: the default");
		CHECK(!c.failed, "nothing failed");
		profdb_close(&c.pdb);
	} else {
		CHECK(0, "open %s", path);
	}
	rank_free(r);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* CANN 7.0's TASK times: float notation read exactly in decimal (no double between: the
 * expected values are the digits of the text), a fraction of a unit dropped, and what is no
 * such number or out of range refused. */
static void
test_decimal(void)
{
	static const struct {
		const char *s;
		int ok;
		int64_t v;
	} c[] = {
	    {"1.23282223630523e+17", 1, INT64_C(123282223630523000)},
	    {"1.23282223000253e+17", 1, INT64_C(123282223000253000)},
	    {"9.99999999999999e+17", 1, INT64_C(999999999999999000)},
	    {"1736407067001000123", 1, INT64_C(1736407067001000123)},
	    {"-5", 1, -5},
	    {"+7", 1, 7},
	    {"12.75", 1, 12},
	    {"0.000123e+10", 1, 1230000},
	    {"1.5E3", 1, 1500},
	    {"1e-3", 1, 0},
	    {"9.3e18", 0, 0},
	    {"1e400", 0, 0},
	    {"", 0, 0},
	    {".", 0, 0},
	    {"1e", 0, 0},
	    {"1.2.3", 0, 0},
	    {"12x", 0, 0},
	    {"nan", 0, 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		int64_t v = 0;
		int rc = db_text_decimal(c[i].s, &v);
		CHECK(c[i].ok ? rc == 0 && v == c[i].v : rc != 0,
		      "decimal '%s': %s %lld (rc %d, %lld)", c[i].s,
		      c[i].ok ? "is" : "is no number", (long long)c[i].v, rc, (long long)v);
	}
}

int
main(void)
{
	test_decimal();
	msg_set_quiet(1);
	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, "an in-memory DB");
	test_rules();
	sqlite3_close(db);
	test_int_max();
	return test_done();
}
