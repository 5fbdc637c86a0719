/* Seed corpora for the fuzz targets, made at fuzz time (no binary DB is committed):
 *   fuzz_seeds OUTDIR [SAMPLES]
 * writes OUTDIR/db/ (small SQLite files: hand-written schemas, a generated profile and the
 * real samples cut down to a few rows per table, all with 512-byte pages) and OUTDIR/json/
 * (trace_view.json of the generated profile, the real JSON samples cut to their metadata and
 * first events). */
#include "config.h"

#include <cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "gen/gen_kineto.h"
#include "cells_bad.h"
#include "host_bad.h"
#include "flows_bad.h"
#include "counters_bad.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "util/msg.h"
#include "util/xalloc.h"

#define KEEP_ROWS 24   /* rows kept per table of a cut-down DB */
#define KEEP_EVENTS 48 /* events kept (besides metadata) of a cut-down JSON trace */

static int nseeds;

static int
exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", sql, err ? err : "?");
		sqlite3_free(err);
		return -1;
	}
	return 0;
}

/* The tables the loader reads; the rest is dropped from cut-down copies. */
static const char *const read_tables[] = {"META_DATA",
                                          "STRING_IDS",
                                          "STEP_TIME",
                                          "CANN_API",
                                          "COMPUTE_TASK_INFO",
                                          "COMMUNICATION_TASK_INFO",
                                          "COMMUNICATION_SCHEDULE_TASK_INFO",
                                          "MEMCPY_INFO",
                                          "MSTX_EVENTS",
                                          "TASK",
                                          "COMMUNICATION_OP",
                                          "RANK_DEVICE_MAP",
                                          "ENUM_API_TYPE",
                                          "PYTORCH_API",
                                          "CONNECTION_IDS",
                                          "MEMORY_RECORD",
                                          "NPU_MEM",
                                          "NPU_MODULE_MEM",
                                          "AICORE_FREQ",
                                          "ENUM_MODULE"};

static int
is_read_table(const char *n)
{
	for (size_t i = 0; i < sizeof read_tables / sizeof *read_tables; i++)
		if (strcmp(n, read_tables[i]) == 0)
			return 1;
	return 0;
}

/* Copies src to dst keeping KEEP_ROWS rows of each table the loader reads, 512-byte pages. */
static void
cut_db(const char *src, const char *dst)
{
	sqlite3 *in, *out;
	unlink(dst);
	if (sqlite3_open_v2(src, &in, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(in);
		return;
	}
	if (sqlite3_open(dst, &out) != SQLITE_OK) {
		sqlite3_close(in);
		sqlite3_close(out);
		return;
	}
	exec(out, "PRAGMA page_size = 512; PRAGMA journal_mode = OFF;");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(in, "SELECT name, sql FROM sqlite_master WHERE type = 'table'", -1,
	                       &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(st, 0);
			const char *sql = (const char *)sqlite3_column_text(st, 1);
			if (name && sql && is_read_table(name))
				exec(out, sql);
		}
		sqlite3_finalize(st);
	}
	char *att = sqlite3_mprintf("ATTACH %Q AS src", src);
	if (exec(out, att) == 0) {
		exec(out, "BEGIN");
		for (size_t i = 0; i < sizeof read_tables / sizeof *read_tables; i++) {
			char *sql =
			    sqlite3_mprintf("INSERT INTO main.\"%w\" SELECT * FROM src.\"%w\" "
			                    "LIMIT %d",
			                    read_tables[i], read_tables[i], KEEP_ROWS);
			sqlite3_exec(out, sql, NULL, NULL, NULL); /* absent tables fail: fine */
			sqlite3_free(sql);
		}
		exec(out, "COMMIT");
		exec(out, "DETACH src");
	}
	sqlite3_free(att);
	exec(out, "VACUUM");
	sqlite3_close(out);
	sqlite3_close(in);
	nseeds++;
}

static void
sql_db(const char *dst, const char *sql)
{
	sqlite3 *db;
	unlink(dst);
	if (sqlite3_open(dst, &db) == SQLITE_OK) {
		exec(db, "PRAGMA page_size = 512; PRAGMA journal_mode = OFF;");
		exec(db, sql);
		nseeds++;
	}
	sqlite3_close(db);
}

static const char *const small_schema =
    "CREATE TABLE META_DATA (name TEXT,value TEXT);"
    "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');"
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "INSERT INTO STRING_IDS VALUES (1,'MatMul'),(2,'KERNEL_AICORE'),(3,'hcom_allReduce__1_1_1'),"
    "(4,'grp'),(5,'generate_sequences'),(6,'MsTx'),(7,'default');"
    "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
    "INSERT INTO STEP_TIME VALUES (1,50,450),(2,450,900);"
    "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"
    "connectionId INTEGER PRIMARY KEY,name INTEGER);"
    "INSERT INTO CANN_API VALUES (60,70,1,1,1,1),(460,470,1,1,2,1);"
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
    "globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,"
    "taskId INTEGER,modelId INTEGER);"
    "INSERT INTO TASK VALUES (100,200,0,1,10,1,2,4294967295,1,1,0),"
    "(300,400,0,2,11,1,2,4294967295,1,2,0),(500,600,0,2,12,1,2,0,2,3,0),"
    "(500,650,0,2,13,1,2,4294967295,2,3,0);"
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,"
    "taskType INTEGER);"
    "INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,2),(1,11,2),(1,12,2);"
    "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType INTEGER,"
    "planeId INTEGER);"
    "INSERT INTO COMMUNICATION_TASK_INFO VALUES (3,13,3,0);"
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,"
    "connectionId INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY);"
    "INSERT INTO COMMUNICATION_OP VALUES (3,150,350,2,4,1);"
    "CREATE TABLE MSTX_EVENTS (startNs INTEGER,endNs INTEGER,eventType INTEGER,rangeId INTEGER,"
    "category INTEGER,message INTEGER,globalTid INTEGER,endGlobalTid INTEGER,domainId INTEGER,"
    "connectionId INTEGER);"
    "INSERT INTO MSTX_EVENTS VALUES (80,420,2,1,0,5,1,1,7,4000000002),"
    "(90,95,0,2,0,6,1,1,7,4294967295);"
    "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER,deviceId INTEGER);"
    "INSERT INTO RANK_DEVICE_MAP VALUES (3,0);";

/* The first events of a Chrome trace (all metadata events, then KEEP_EVENTS others). */
static void
cut_json(const char *src, const char *dst)
{
	FILE *f = fopen(src, "rb");
	if (f == NULL)
		return;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n <= 0 || n > (256L << 20)) {
		fclose(f);
		return;
	}
	char *buf = xmalloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	fclose(f);
	buf[got] = '\0';
	cJSON *doc = cJSON_ParseWithLength(buf, got);
	free(buf);
	if (doc == NULL)
		return;
	cJSON *events =
	    cJSON_IsArray(doc) ? doc : cJSON_GetObjectItemCaseSensitive(doc, "traceEvents");
	if (events != NULL) {
		cJSON *keep = cJSON_CreateArray();
		int others = 0;
		cJSON *e;
		cJSON_ArrayForEach(e, events)
		{
			cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
			int meta = cJSON_IsString(ph) && strcmp(ph->valuestring, "M") == 0;
			if (meta || others++ < KEEP_EVENTS)
				cJSON_AddItemToArray(keep, cJSON_Duplicate(e, 1));
		}
		if (events == doc) {
			cJSON_Delete(doc);
			doc = keep;
		} else {
			cJSON_ReplaceItemInObjectCaseSensitive(doc, "traceEvents", keep);
		}
	}
	char *text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (text == NULL)
		return;
	FILE *o = fopen(dst, "wb");
	if (o) {
		fputs(text, o);
		fclose(o);
		nseeds++;
	}
	free(text);
}

/* Calls fn(path, name) for each regular file below dir whose name ends with suffix. */
static void
each_file(const char *dir, const char *suffix, void (*fn)(const char *, void *), void *ctx)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0) {
			size_t n = strlen(e->d_name), s = strlen(suffix);
			if (S_ISDIR(st.st_mode))
				each_file(p, suffix, fn, ctx);
			else if (S_ISREG(st.st_mode) && n >= s &&
			         strcmp(e->d_name + n - s, suffix) == 0)
				fn(p, ctx);
		}
		free(p);
	}
	closedir(d);
}

typedef struct seed_ctx {
	const char *out;
	const char *prefix;
	int n;
	int json;
} seed_ctx;

static void
seed_one(const char *path, void *arg)
{
	seed_ctx *c = arg;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strstr(base, "analysis.db") || (c->json && strstr(base, "trace") == NULL))
		return; /* not a profile: torch_npu's own results, profiler_info.json, ... */
	char *dst = xasprintf("%s/%s-%d.%s", c->out, c->prefix, c->n++, c->json ? "json" : "db");
	if (c->json)
		cut_json(path, dst);
	else
		cut_db(path, dst);
	free(dst);
}

/* A generated profile (written under out/gen, removed after) gives its cut-down DBs as seeds
 * PREFIX-N.db, and its rank 0 DB converted to trace_view.json as PREFIX.json. */
static void
seed_generated(const gen_opts *o, const char *out, const char *prefix, const char *dbdir,
               const char *jsondir)
{
	char *gdir = xasprintf("%s/gen", out);
	char *rm = xasprintf("rm -rf '%s'", gdir);
	if (system(rm) != 0)
		fprintf(stderr, "fuzz_seeds: %s failed\n", rm);
	if (gen_profile(o, gdir, NULL) == 0) {
		seed_ctx c = {dbdir, prefix, 0, 0};
		each_file(gdir, ".db", seed_one, &c);
		/* the same profile as trace_view.json, from the cut-down DB */
		char *db = xasprintf("%s/%s-0.db", dbdir, prefix);
		char *js = xasprintf("%s/%s.json", jsondir, prefix);
		if (gen_json_from_db(db, js) == 0)
			nseeds++;
		free(db);
		free(js);
	}
	if (system(rm) != 0)
		fprintf(stderr, "fuzz_seeds: %s failed\n", rm);
	free(rm);
	free(gdir);
}

/* A cache file body (what fuzz_cache takes: the file after its header and key) of the rank
 * a seed DB loads into, as rank 0 of one source. */
static void
seed_cache(const char *path, void *arg)
{
	const char *out = arg;
	tl_source src;
	memset(&src, 0, sizeof src);
	src.rank = 0;
	src.kind = TL_SRC_TORCH_DB;
	src.path = (char *)path;
	src.role_step = -1;
	tl_rank *r = rank_new(0);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = &src;
	r->src_t0 = xcalloc(1, sizeof *r->src_t0);
	r->src_t1 = xcalloc(1, sizeof *r->src_t1);
	/* with every table a load gathers for the cache, as a cache file holds them */
	tl_gather g;
	load_gather_begin(r, &g, TL_TABLE_ALL);
	r->loaded = loader_ascend_db.load(&src, r, &g) == 0;
	rank_finish(r);
	r->src_t0[0] = r->t_min;
	r->src_t1[0] = r->t_max;
	load_gather_end(r, &g);
	const char *base = strrchr(path, '/');
	char *tmp = xasprintf("%s/%s.tlc", out, base ? base + 1 : path);
	size_t klen;
	uint8_t *key = cache_key(&src, 1, &klen);
	uint64_t bytes;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (r->loaded && fd >= 0 && cache_write_fd(fd, key, klen, r, NULL, 0, &bytes) == 0) {
		FILE *f = fopen(tmp, "rb");
		uint8_t *buf = xmalloc(bytes);
		if (f != NULL && fread(buf, 1, bytes, f) == bytes) {
			char *dst = xasprintf("%s/%s", out, base ? base + 1 : path);
			FILE *o = fopen(dst, "wb");
			size_t skip = TL_CACHE_HEADER + klen;
			if (o != NULL && fwrite(buf + skip, 1, bytes - skip, o) == bytes - skip)
				nseeds++;
			if (o != NULL)
				fclose(o);
			free(dst);
		}
		if (f != NULL)
			fclose(f);
		free(buf);
	} else if (fd >= 0) {
		close(fd);
	}
	unlink(tmp);
	free(tmp);
	free(key);
	rank_free(r);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_seeds OUTDIR [SAMPLES]\n");
		return 1;
	}
	const char *out = argv[1];
	char *dbdir = xasprintf("%s/db", out), *jsondir = xasprintf("%s/json", out);
	mkdir(out, 0755);
	mkdir(dbdir, 0755);
	mkdir(jsondir, 0755);

	/* hand-written: every table the loader reads, then variants */
	char *p = xasprintf("%s/small.db", dbdir);
	sql_db(p, small_schema);
	free(p);
	p = xasprintf("%s/steps-only.db", dbdir);
	sql_db(p, "CREATE TABLE META_DATA (name TEXT,value TEXT);"
	          "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	          "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	          "INSERT INTO STEP_TIME VALUES (1,100,200),(2,150,120);");
	free(p);

	/* host tables gone wrong: a dangling connectionId (TASK and CONNECTION_IDS name launches
	 * CANN_API lacks), times NULL, text or reversed, rows out of time order */
	p = xasprintf("%s/host-bad.db", dbdir);
	sql_db(p, HOST_BAD_SQL);
	free(p);
	/* cells of every type where numbers are read: TEXT, REAL, BLOB times and ids */
	p = xasprintf("%s/cells-bad.db", dbdir);
	sql_db(p, CELLS_BAD_SQL);
	free(p);
	/* for the page scanner (fuzz_dbpage, which reads db/ too): a tree of interior pages,
	 * every serial type, overflow chains, an added column, freelist pages */
	char *pdir = xasprintf("%s/dbpage", out);
	mkdir(pdir, 0755);
	p = xasprintf("%s/shapes.db", pdir);
	sql_db(p,
	       "CREATE TABLE t (a, b REAL, c, d, e, f, g, h);"
	       "INSERT INTO t VALUES (NULL, 1, -200, 70000, 2147483648, 140737488355328, "
	       "-9223372036854775808, 1.5);"
	       "INSERT INTO t VALUES (0, 2.0, 'text', x'00ff', randomblob(2000), '', x'', 1);"
	       "ALTER TABLE t ADD COLUMN i; INSERT INTO t SELECT a, b, c, d, e, f, g, h, 9 FROM t;"
	       "CREATE TABLE u (x, y); WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 "
	       "FROM n WHERE k < 600) INSERT INTO u SELECT k * 1000003, -k FROM n;"
	       "DELETE FROM u WHERE x % 7 = 0;");
	free(p);
	free(pdir);
	/* launch flows gone wrong: one end only, no slice at an end, bad times and ids */
	p = xasprintf("%s/flows-bad.json", jsondir);
	FILE *fj = fopen(p, "w");
	if (fj != NULL) {
		fputs(FLOWS_BAD_JSON, fj);
		fclose(fj);
		nseeds++;
	}
	free(p);

	/* counter events gone wrong: out of time order, null, without args, a bad ts */
	p = xasprintf("%s/counters-bad.json", jsondir);
	fj = fopen(p, "w");
	if (fj != NULL) {
		fputs(COUNTERS_BAD_JSON, fj);
		fclose(fj);
		nseeds++;
	}
	free(p);

	/* counters gone wrong: NULL, text and REAL sizes, samples out of time order, an unknown
	 * module, a component without a name */
	p = xasprintf("%s/counters-bad.db", dbdir);
	sql_db(p,
	       "CREATE TABLE META_DATA (name TEXT,value TEXT);"
	       "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
	       "INSERT INTO STRING_IDS VALUES (536870912,'PTA'),(1,'app');"
	       "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
	       "INSERT INTO STEP_TIME VALUES (7,100,1000);"
	       "CREATE TABLE MEMORY_RECORD (component INTEGER, timestamp INTEGER, totalAllocated "
	       "INTEGER, totalReserved INTEGER, totalActive INTEGER, streamPtr INTEGER, deviceId "
	       "INTEGER);"
	       "INSERT INTO MEMORY_RECORD VALUES (536870912,500,300,400,NULL,1,0),"
	       "(536870912,200,900,NULL,100,1,0),(536870912,300,900,950,'x',1,0),"
	       "(536870912,NULL,5000,5000,5000,1,0),(NULL,400,77,77,77,1,0),"
	       "(536870912,9223372036854775807,1e300,-5,2.5,1,0);"
	       "CREATE TABLE NPU_MEM (type INTEGER,ddr NUMERIC,hbm NUMERIC,timestampNs INTEGER,"
	       "deviceId INTEGER);"
	       "INSERT INTO NPU_MEM VALUES (1,NULL,2048.0,150,0),(1,10,1024,120,0);"
	       "CREATE TABLE NPU_MODULE_MEM (moduleId INTEGER,timestampNs INTEGER,totalReserved "
	       "NUMERIC,deviceId INTEGER);"
	       "INSERT INTO NPU_MODULE_MEM VALUES (3,100,5,0),(999,90,6,0),(NULL,80,NULL,0);"
	       "CREATE TABLE ENUM_MODULE (id INTEGER PRIMARY KEY,name TEXT);"
	       "INSERT INTO ENUM_MODULE VALUES (3,'HCCL');"
	       "CREATE TABLE AICORE_FREQ (deviceId INTEGER,timestampNs NUMERIC,freq INTEGER);"
	       "INSERT INTO AICORE_FREQ VALUES (0,200,1800),(0,100,1650),(0,'t',NULL);"
	       /* allocations with NULL sizes and times, never released, text names */
	       "CREATE TABLE OP_MEMORY (name INTEGER, size INTEGER, allocationTime INTEGER, "
	       "releaseTime INTEGER, activeReleaseTime INTEGER, duration INTEGER, activeDuration "
	       "INTEGER, allocationTotalAllocated INTEGER, allocationTotalReserved INTEGER, "
	       "allocationTotalActive INTEGER, releaseTotalAllocated INTEGER, "
	       "releaseTotalReserved INTEGER, releaseTotalActive INTEGER, streamPtr INTEGER, "
	       "deviceId INTEGER);"
	       "INSERT INTO OP_MEMORY VALUES (536870912,NULL,200,300,NULL,NULL,NULL,NULL,NULL,"
	       "NULL,NULL,NULL,NULL,1,0),(1,4096,NULL,300,NULL,NULL,NULL,NULL,NULL,NULL,NULL,"
	       "NULL,NULL,NULL,0),('x',-8,150,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,"
	       "7,0),(99,9223372036854775807,100,'late',NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,"
	       "NULL,NULL,0);"
	       "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, "
	       "connectionId INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, "
	       "inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);"
	       "INSERT INTO PYTORCH_API VALUES ('90','400',1,NULL,1,NULL,NULL,NULL,NULL,5,NULL);"
	       "CREATE TABLE PYTORCH_CALLCHAINS (id INTEGER, stack INTEGER, stackDepth INTEGER);"
	       "INSERT INTO PYTORCH_CALLCHAINS VALUES (5,NULL,0),(5,1,1);");
	free(p);

	/* a generated GRPO profile, one rank, two steps */
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 1;
	o.tasks_per_rank = 120;
	o.slow_rank = -1;
	o.threads = 1;
	seed_generated(&o, out, "gen", dbdir, jsondir);
	/* ... with a PyTorch operator linked to every launch */
	o.host_ops = 1;
	seed_generated(&o, out, "gen-host", dbdir, jsondir);
	o.host_ops = 0;
	/* a pipeline-parallel one marked by forward/backward operator pairs (two stages) */
	o.nranks = 2;
	o.nsteps = 1;
	o.pp = 2;
	o.pp_microbatches = 2;
	o.pp_op_pairs = 1;
	seed_generated(&o, out, "gen-pp", dbdir, jsondir);
	/* ... and one whose ranges carry a stream: host calls, MsTx marker tasks and flows */
	o.pp_op_pairs = 0;
	o.pp_device_ranges = 1;
	seed_generated(&o, out, "gen-pp-dev", dbdir, jsondir);

	/* the older Ascend layouts: one iteration of msprof's per-iteration export (its Step
	 * Trace, Overlap Analysis, HCCL planes) and a MindSpore 1.x timeline */
	char *older = xasprintf("%s/older", out);
	if (gen_msprof_iter_export(older, 1) == 0 && gen_ms_timeline(older, 1) == 0) {
		static const char *const pick[2][2] = {
		    {"PROF_000001_20230615120000100_ABCDEFGH0/device_6/timeline/msprof_6_2_1.json",
		     "older-msprof-iter.json"},
		    {"ascend_timeline_display_0.json", "older-ms1-timeline.json"}};
		for (int k = 0; k < 2; k++) {
			char *from = xasprintf("%s/%s", older, pick[k][0]);
			char *to = xasprintf("%s/%s", jsondir, pick[k][1]);
			FILE *in = fopen(from, "rb"), *outf = in ? fopen(to, "wb") : NULL;
			char buf[8192];
			size_t got;
			while (outf && (got = fread(buf, 1, sizeof buf, in)) > 0)
				fwrite(buf, 1, got, outf);
			if (outf != NULL) {
				fclose(outf);
				nseeds++;
			}
			if (in != NULL)
				fclose(in);
			free(from);
			free(to);
		}
	}
	free(older);
	/* small Kineto traces: 2021's categories and today's, work launched before the capture
	 * and after the last step, NCCL kernels (correlations joining calls and device work) */
	gen_kineto_opts ko;
	gen_kineto_default(&ko);
	ko.nsteps = 2;
	ko.launches = 12;
	ko.precapture = 2;
	ko.after = 2;
	ko.comm = 1;
	for (int v = 0; v < 2; v++) {
		ko.version = v ? GEN_KINETO_2024 : GEN_KINETO_2021;
		char *kp = xasprintf("%s/kineto-%d.json", jsondir, v ? 2024 : 2021);
		if (gen_kineto(&ko, kp) == 0)
			nseeds++;
		free(kp);
	}

	/* the real samples, cut down */
	if (argc >= 3) {
		char *s = xasprintf("%s/ascend-db", argv[2]);
		seed_ctx c = {dbdir, "sample", 0, 0};
		each_file(s, ".db", seed_one, &c);
		free(s);
		seed_ctx j = {jsondir, "sample", 0, 1};
		each_file(argv[2], ".json", seed_one, &j);
	}
	/* the model cache's files of the DB seeds (their bodies) */
	char *cachedir = xasprintf("%s/cache", out);
	mkdir(cachedir, 0755);
	msg_set_quiet(1);
	each_file(dbdir, ".db", seed_cache, cachedir);
	free(cachedir);
	printf("fuzz_seeds: %d seeds in %s\n", nseeds, out);
	free(dbdir);
	free(jsondir);
	return 0;
}
