/* Memory counters and the summary's "memory" and "npu_memory" sections, against answers tl did
 * not compute: plain SQL over the real samples' MEMORY_RECORD, NPU_MEM and STEP_TIME, the
 * generator's truth (an allocated peak placed inside a known stage and step), and a damaged
 * fixture (NULL sizes, samples out of time order). The JSON is tl's own output, parsed. */
#include "config.h"

#include <cJSON.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/memory.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static char *last_json; /* the text summary_json parsed last (cJSON's numbers are doubles) */

/* The integer `field` of the object in `section` whose "rank" is r and `key` is value, read
 * from the text: ns since the epoch need all 19 digits. */
static int64_t
raw_i64(const char *section, int r, const char *key, const char *value, const char *field)
{
	char pat[300];
	const char *p = last_json ? strstr(last_json, section) : NULL;
	snprintf(pat, sizeof pat, "{\"rank\":%d,\"%s\":\"%s\"", r, key, value);
	p = p ? strstr(p, pat) : NULL;
	if (p == NULL)
		return INT64_MIN;
	const char *end = strchr(p, '}');
	snprintf(pat, sizeof pat, "\"%s\":", field);
	const char *f = strstr(p, pat);
	if (f == NULL || (end && f > end))
		return INT64_MIN;
	return strtoll(f + strlen(pat), NULL, 10);
}

/* tl summary --json of tr, parsed */
static cJSON *
summary_json(tl_trace *tr)
{
	char *buf = test_summary(tr, NULL, 1);
	if (buf == NULL)
		return NULL;
	cJSON *j = cJSON_Parse(buf);
	free(last_json);
	last_json = buf;
	return j;
}

/* The row of array `section` with rank r and key = value, or NULL. */
static const cJSON *
find_row(const cJSON *j, const char *section, int r, const char *key, const char *value)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, section), *e;
	cJSON_ArrayForEach(e, a)
	{
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(e, "rank");
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, key);
		if (cJSON_IsNumber(rk) && rk->valueint == r && cJSON_IsString(k) &&
		    strcmp(k->valuestring, value) == 0)
			return e;
	}
	return NULL;
}

static int64_t
num(const cJSON *row, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : INT64_MIN;
}

static const char *
str(const cJSON *row, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- samples: plain SQL ---- */

/* The largest live allocations at a few times, against OP_MEMORY in SQL: allocated at or
 * before t, released after t or never. */
static void
check_live(const tl_rank *r, sqlite3 *db, const char *level)
{
	int64_t t0 = test_sql_i64(db, "SELECT min(allocationTime) FROM OP_MEMORY");
	int64_t t1 = test_sql_i64(db, "SELECT max(releaseTime) FROM OP_MEMORY");
	if (t0 == INT64_MIN || t1 == INT64_MIN) {
		CHECK(0, "%s rank %d: the sample has OP_MEMORY", level, r->rank);
		return;
	}
	size_t bad = 0, rows = 0;
	for (int k = 0; k <= 8; k++) {
		int64_t t = t0 + (t1 - t0) / 8 * k;
		tlq_alloc *v;
		ptrdiff_t n = tlq_live_allocations(r, t, 12, &v);
		sqlite3_stmt *st;
		char q[400];
		snprintf(
		    q, sizeof q,
		    "SELECT s.value, o.size FROM OP_MEMORY o LEFT JOIN STRING_IDS s ON s.id = "
		    "o.name WHERE o.allocationTime <= %" PRId64 " AND (o.releaseTime IS NULL OR "
		    "o.releaseTime > %" PRId64 ") AND o.size IS NOT NULL ORDER BY o.size DESC, "
		    "o.allocationTime LIMIT 12",
		    t, t);
		ptrdiff_t m = 0;
		if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW) {
				const char *op = (const char *)sqlite3_column_text(st, 0);
				/* sizes in order; the operator where the size is not tied */
				if (m >= n || v[m].size != sqlite3_column_int64(st, 1))
					bad++;
				else if ((m + 1 >= n || v[m + 1].size != v[m].size) &&
				         (m == 0 || v[m - 1].size != v[m].size) &&
				         strcmp(v[m].op, op ? op : "") != 0)
					bad++;
				m++;
			}
			sqlite3_finalize(st);
		}
		if (m != n)
			bad++;
		rows += (size_t)m;
		free(v);
	}
	CHECK(
	    rows > 20 && bad == 0,
	    "%s rank %d: the largest live allocations at 9 times equal OP_MEMORY in SQL (%zu rows, "
	    "%zu differ)",
	    level, r->rank, rows, bad);
}

static void
check_sample(const char *level)
{
	char base[4200];
	tl_trace tr;
	if (test_load_sample_db(level, &tr, base, sizeof base) != 0)
		return;
	cJSON *j = summary_json(&tr);
	CHECK(j != NULL, "%s: the summary is JSON", level);
	for (size_t i = 0; j != NULL && i < tr.nranks; i++) {
		int rank = tr.ranks[i]->rank;
		char path[4400];
		snprintf(path, sizeof path,
		         "%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
		         base, rank, rank);
		sqlite3 *db = test_sql_open(path);
		if (db == NULL) {
			CHECK(0, "open %s", path);
			continue;
		}
		sqlite3_stmt *st;
		int ncomp = 0;
		if (sqlite3_prepare_v2(db,
		                       "SELECT DISTINCT s.value, m.component FROM MEMORY_RECORD m "
		                       "JOIN STRING_IDS s ON s.id = m.component",
		                       -1, &st, NULL) == SQLITE_OK) {
			while (sqlite3_step(st) == SQLITE_ROW) {
				const char *name = (const char *)sqlite3_column_text(st, 0);
				int64_t id = sqlite3_column_int64(st, 1);
				char q[400], m[200];
				const cJSON *row = find_row(j, "memory", rank, "component", name);
				ncomp++;
				snprintf(m, sizeof m, "%s rank %d %s: a memory row", level, rank,
				         name);
				CHECK(row != NULL, "%s", m);
				if (row == NULL)
					continue;
				static const char *const col[3] = {"totalAllocated",
				                                   "totalReserved", "totalActive"};
				static const char *const key[3] = {"peak_allocated_bytes",
				                                   "peak_reserved_bytes",
				                                   "peak_active_bytes"};
				for (int c = 0; c < 3; c++) {
					snprintf(q, sizeof q,
					         "SELECT max(%s) FROM MEMORY_RECORD WHERE "
					         "component = %" PRId64,
					         col[c], id);
					snprintf(m, sizeof m, "%s rank %d %s: %s equals SQL's max",
					         level, rank, name, key[c]);
					CHECK_EQ_I64(num(row, key[c]), test_sql_i64(db, q), m);
				}
				snprintf(q, sizeof q,
				         "SELECT min(timestamp) FROM MEMORY_RECORD WHERE component "
				         "= %" PRId64
				         " AND totalAllocated = (SELECT max(totalAllocated) FROM "
				         "MEMORY_RECORD WHERE component = %" PRId64 ")",
				         id, id);
				snprintf(m, sizeof m, "%s rank %d %s: the first time at the peak",
				         level, rank, name);
				int64_t t = test_sql_i64(db, q);
				CHECK_EQ_I64(raw_i64("\"memory\"", rank, "component", name,
				                     "peak_allocated_ns"),
				             t, m);
				snprintf(q, sizeof q,
				         "SELECT id FROM STEP_TIME WHERE startNs <= %" PRId64
				         " AND endNs >= %" PRId64,
				         t, t);
				snprintf(m, sizeof m, "%s rank %d %s: the step holding the peak",
				         level, rank, name);
				CHECK_EQ_I64(num(row, "step"), test_sql_i64(db, q), m);
			}
			sqlite3_finalize(st);
		}
		CHECK(ncomp >= 2, "%s rank %d: the sample has allocator components (%d)", level,
		      rank, ncomp);
		const cJSON *e, *a = cJSON_GetObjectItemCaseSensitive(j, "memory");
		int nrows = 0;
		cJSON_ArrayForEach(e, a) nrows += num(e, "rank") == rank;
		CHECK_EQ_I64(nrows, ncomp, "one memory row per component");
		static const char *const types[2] = {"app", "device"};
		for (int k = 0; k < 2; k++) {
			const cJSON *row = find_row(j, "npu_memory", rank, "type", types[k]);
			char q[300], m[200];
			snprintf(m, sizeof m, "%s rank %d: an npu_memory row for %s", level, rank,
			         types[k]);
			CHECK(row != NULL, "%s", m);
			if (row == NULL)
				continue;
			snprintf(
			    q, sizeof q,
			    "SELECT max(hbm) FROM NPU_MEM n JOIN STRING_IDS s ON s.id = n.type "
			    "WHERE s.value = '%s'",
			    types[k]);
			snprintf(m, sizeof m, "%s rank %d %s: peak_hbm_bytes equals SQL's max",
			         level, rank, types[k]);
			CHECK_EQ_I64(num(row, "peak_hbm_bytes"), test_sql_i64(db, q), m);
			snprintf(
			    q, sizeof q,
			    "SELECT max(ddr) FROM NPU_MEM n JOIN STRING_IDS s ON s.id = n.type "
			    "WHERE s.value = '%s'",
			    types[k]);
			snprintf(m, sizeof m, "%s rank %d %s: peak_ddr_bytes equals SQL's max",
			         level, rank, types[k]);
			CHECK_EQ_I64(num(row, "peak_ddr_bytes"), test_sql_i64(db, q), m);
		}
		check_live(tr.ranks[i], db, level);
		sqlite3_close(db);
	}
	cJSON_Delete(j);
	trace_free(&tr);
}

/* ---- the generator's truth ---- */

static void
check_generated(void)
{
	char *dir = test_tmpdir("memory");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 3;
	o.nsteps = 2;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 17;
	o.memory_records = 1;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate with memory records");
	CHECK_EQ_I64(truth.nmemory, 6, "the truth has a peak per rank and component");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	unsigned w0 = msg_warn_count();
	CHECK(load_trace(out, &lo, &tr) == 0, "load");
	cJSON *j = summary_json(&tr);
	CHECK(j != NULL, "the summary is JSON");
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "no warnings on a generated profile");
	int stages_seen[GEN_NSTAGES] = {0};
	for (size_t i = 0; j != NULL && i < truth.nmemory; i++) {
		const gen_memory_truth *g = &truth.memory[i];
		const cJSON *row = find_row(j, "memory", g->rank, "component", g->component);
		char m[200];
		snprintf(m, sizeof m, "rank %d %s", g->rank, g->component);
		CHECK(row != NULL, "%s: a memory row", m);
		if (row == NULL)
			continue;
		CHECK(num(row, "peak_allocated_bytes") == g->peak_allocated &&
		          raw_i64("\"memory\"", g->rank, "component", g->component,
		                  "peak_allocated_ns") == g->peak_allocated_ns &&
		          num(row, "peak_reserved_bytes") == g->peak_reserved &&
		          num(row, "peak_active_bytes") == g->peak_active,
		      "%s: peaks and the peak's time equal the truth", m);
		CHECK_EQ_I64(num(row, "step"), g->step, "the peak's step is the truth's");
		const char *stage = str(row, "stage");
		CHECK(g->stage >= 0 && stage != NULL &&
		          strcmp(stage, gen_stage_canon[g->stage]) == 0,
		      "%s: the peak's stage is the truth's (got %s, want %s)", m,
		      stage ? stage : "null", g->stage >= 0 ? gen_stage_canon[g->stage] : "?");
		if (g->stage >= 0)
			stages_seen[g->stage] = 1;
	}
	int distinct = 0;
	for (int s = 0; s < GEN_NSTAGES; s++)
		distinct += stages_seen[s];
	CHECK(distinct >= 2, "the peaks fall in different stages on different ranks (%d)",
	      distinct);
	cJSON_Delete(j);
	trace_free(&tr);
	gen_truth_free(&truth);
	test_rmtree(dir);
	free(out);
}

/* ---- damaged counters: one line per problem, the good samples kept, in time order ---- */

static void
check_bad(void)
{
	char *dir = test_tmpdir("memory-bad");
	if (dir == NULL)
		return;
	char *d1 = xasprintf("%s/bad_ascend_pt", dir);
	char *d2 = xasprintf("%s/ASCEND_PROFILER_OUTPUT", d1);
	char *path = xasprintf("%s/ascend_pytorch_profiler_0.db", d2);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	sqlite3 *db;
	CHECK(
	    sqlite3_open(path, &db) == SQLITE_OK &&
	        sqlite3_exec(
	            db,
	            "CREATE TABLE META_DATA (name TEXT,value TEXT);"
	            "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	            "INSERT INTO STRING_IDS VALUES (536870912,'PTA'),(1,'app');"
	            "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	            "INSERT INTO STEP_TIME VALUES (7,100,1000);"
	            "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, "
	            "totalAllocated INTEGER, totalReserved INTEGER, totalActive INTEGER, streamPtr "
	            "INTEGER, deviceId INTEGER);"
	            "INSERT INTO MEMORY_RECORD VALUES (536870912,500,300,400,NULL,1,0),"
	            "(536870912,200,900,NULL,100,1,0),(536870912,300,900,950,'x',1,0),"
	            "(536870912,NULL,5000,5000,5000,1,0),(NULL,400,77,77,77,1,0);"
	            "CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs "
	            "INTEGER,deviceId INTEGER);"
	            "INSERT INTO NPU_MEM VALUES (1,NULL,2048.0,150,0),(1,10,1024,120,0);",
	            NULL, NULL, NULL) == SQLITE_OK,
	    "write the damaged counter fixture");
	sqlite3_close(db);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(dir, &lo, &tr) == 0 && tr.nranks == 1, "load the damaged fixture");
	if (tr.nranks == 1) {
		unsigned w0 = msg_warn_count();
		tl_query *q = tlq_open(&tr, NULL);
		tlq_counters(q);
		tlq_close(q);
		/* MEMORY_RECORD: bad values and one out-of-order sample; NPU_MEM: a NULL and one
		 * sample out of order: four lines */
		CHECK_EQ_I64(msg_warn_count() - w0, 4, "one line per table and problem");
		const tl_rank *r = tr.ranks[0];
		size_t sorted = 1, n = 0;
		for (size_t i = 0; i < r->ncounters; i++) {
			const tl_counter *c = r->counters[i];
			n += c->n;
			for (size_t k = 1; k < c->n; k++)
				sorted &= c->t[k] >= c->t[k - 1];
		}
		CHECK(sorted, "every counter is in time order");
		/* kept: allocated 300@500, 900@200, 900@300, 77@400 (no component: "(none)");
		 * reserved 400, 950, 77; active 100, 77; hbm 2048, 1024; ddr 10 */
		CHECK_EQ_I64(n, 12, "the usable values are kept, the broken ones only skipped");
		cJSON *j = summary_json(&tr);
		const cJSON *row = j ? find_row(j, "memory", r->rank, "component", "PTA") : NULL;
		CHECK(row != NULL && num(row, "peak_allocated_bytes") == 900 &&
		          num(row, "peak_allocated_ns") == 200 &&
		          num(row, "peak_reserved_bytes") == 950 &&
		          num(row, "peak_active_bytes") == 100 && num(row, "step") == 7,
		      "PTA's peak: 900 first at 200 ns (rows were out of order), in step 7");
		row = j ? find_row(j, "npu_memory", r->rank, "type", "app") : NULL;
		CHECK(row != NULL && num(row, "peak_hbm_bytes") == 2048 &&
		          num(row, "peak_ddr_bytes") == 10,
		      "NPU_MEM: a whole REAL is a number, a NULL ddr only that value");
		cJSON_Delete(j);
	}
	trace_free(&tr);
	test_rmtree(dir);
	free(path);
	free(d2);
	free(d1);
}

int
main(void)
{
	msg_set_quiet(1);
	check_bad();
	check_generated();
	check_sample("level0");
	check_sample("level2");
	free(last_json);
	return test_done();
}
