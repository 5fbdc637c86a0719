/* The generator's msprof DB writers: one device's timeline written as msprof itself exports it
 * (msprof_{ts}.db: no META_DATA, no framework tables), optionally with the OVERLAP_ANALYSIS
 * table MindStudio Insight adds to the DBs it opens, or as CANN 7.0's report_{device}.db (TEXT
 * times relative to TARGET_INFO_SESSION_TIME.baseTimeNs, correlationId keys, API, TARGET_INFO_*),
 * each following the real files' DDL exactly. */
#include "config.h"
#include "gen/gen.h"
#include "gen/gen_int.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An msprof export of one device: msprof's own tables, the first GEN_DDL_MSPROF_TABLES of the
 * torch_npu DB's DDL (gen_db.c), then this, then gen_db.c's indexes */
static const char *const ddl_msprof_enum =
    "CREATE TABLE IF NOT EXISTS ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT);";

/* Insight's variant of the table (ddl_observed_samples.sql), and the sequence table its
 * AUTOINCREMENT brings */
static const char *const ddl_insight_overlap =
    "CREATE TABLE OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId integer, "
    "startNs integer, endNs integer, type integer);";
/* msprof's own (2026): the table and its enum, as msprof's DDL and code write them */
static const char *const ddl_msprof_overlap[] = {
    "CREATE TABLE IF NOT EXISTS OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY,deviceId "
    "INTEGER,startNs NUMERIC,endNs NUMERIC,type INTEGER);",
    "CREATE TABLE IF NOT EXISTS ENUM_OVERLAY_ANALYSIS_TYPE (id INTEGER PRIMARY KEY,name "
    "TEXT);",
    "INSERT INTO ENUM_OVERLAY_ANALYSIS_TYPE VALUES (0,'COMPUTE'),(1,'COMMUNICATION'),"
    "(2,'COMM_NOT_OVERLAP_COMP'),(3,'FREE'),(65535,'RESERVE');",
};

/* CANN 7.0's report_{device}.db, as read from a real file (ddl_msprof_report_cann7.sql) */
static const char *const ddl_cann7[] = {
    "CREATE TABLE IF NOT EXISTS \"API\" (\n\"start\"  TEXT,\n\"end\"  TEXT,\n\"level\"  "
    "INTEGER,\n\"globalTid\"  INTEGER,\n\"connectionId\"  INTEGER,\n\"name\"  INTEGER,\n"
    "PRIMARY KEY (\"connectionId\" ASC)\n);",
    "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,correlationId INTEGER PRIMARY KEY,"
    "taskType INTEGER,planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,"
    "srcRank INTEGER,dstRank INTEGER,transportType INTEGER,size INTEGER,dataType INTEGER,"
    "linkType INTEGER,opId INTEGER);",
    "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,correlationId INTEGER PRIMARY KEY,block_dim "
    "INTEGER,mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,"
    "inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,"
    "outputShapes INTEGER);",
    "CREATE TABLE ENUM_API_LEVEL (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);",
    "CREATE TABLE TARGET_INFO_NPU (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE TARGET_INFO_SESSION_TIME (startTimeNs INTEGER,endTimeNs INTEGER,baseTimeNs "
    "INTEGER);",
    "CREATE TABLE TASK (start TEXT,end TEXT,deviceId INTEGER,connectionId INTEGER,correlationId "
    "INTEGER PRIMARY KEY,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId "
    "INTEGER,taskId INTEGER,modelId INTEGER);",
};

/* the strings, by STRING_IDS id */
enum {
	MS_AICORE = 1, /* TASK.taskType of a kernel */
	MS_EVENT_RECORD,
	MS_EVENT_WAIT,
	MS_MEMCPY,
	MS_NOTIFY_WAIT,
	MS_SDMA,
	MS_NOTIFY_RECORD,
	MS_AI_CORE, /* COMPUTE_TASK_INFO.taskType */
	MS_GROUP,
	MS_K0, /* kernel names MS_K0 .. MS_K0 + NK - 1 */
};
#define NK 4
#define MS_OP0 (MS_K0 + NK) /* op names from here, one per op */
static const char *const kernel_names[NK] = {"aclnnMatmul_MatMulV2", "aclnnAdd_AddAiCore",
                                             "aclnnMul_MulAiCore", "aclnnSoftmax_SoftmaxV2"};
static const char *const fixed_strings[] = {
    NULL,           "KERNEL_AICORE",
    "EVENT_RECORD", "EVENT_WAIT",
    "MEMCPY_ASYNC", "Notify Wait",
    "SDMA",         "Notify Record",
    "AI_CORE",      "10.0.0.1%eth0_60000_0_1700000000000000"};

typedef struct mtask {
	int64_t s, e; /* ns, relative to the timeline's origin */
	int type;     /* S_* */
	int stream;
	int kernel; /* 0..NK-1, or -1 */
	int op;     /* communication op index, or -1 */
} mtask;

typedef struct plan {
	mtask *t;
	size_t n, cap;
	int nops;
} plan;

static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void
push(plan *p, int64_t s, int64_t e, int type, int stream, int kernel, int op)
{
	mtask t = {s, e, type, stream, kernel, op};
	VEC_PUSH(p->t, p->n, p->cap, t);
}

/* One device: an EVENT_RECORD first and an EVENT_WAIT last, idle time next to both; kernels on
 * stream 2 with gaps; every fifth kernel a communication op on stream 3 (three sub-tasks) that
 * the next kernels partly overlap; a memcpy in some gaps. Times are whole microseconds (CANN
 * 7.0's TEXT times hold 15 digits). */
static void
make_plan(plan *p, const gen_msprof_opts *o)
{
	uint64_t s = o->seed * 7919 + 17;
	int64_t t = 0;
	push(p, t, t + 3000, MS_EVENT_RECORD, 1, -1, -1);
	t += 3000 + 250000; /* leading idle: Insight's Free, tl's nothing */
	int nk = o->kernels > 0 ? o->kernels : 40;
	for (int i = 0; i < nk; i++) {
		int64_t d = (int64_t)(20 + rnd(&s) % 180) * 1000;
		d = d * (o->compute_permille > 0 ? o->compute_permille : 1000) / 1000;
		d -= d % 1000;
		if (d < 1000)
			d = 1000;
		push(p, t, t + d, MS_AICORE, 2, (int)(rnd(&s) % NK), -1);
		int64_t end = t + d;
		if (i % 5 == 4) { /* a collective launched with the kernel: it outlasts it */
			int64_t c = t + d / 2000 * 1000;
			int op = p->nops++;
			int64_t a = (int64_t)(30 + rnd(&s) % 60) * 1000;
			int64_t b = (int64_t)(50 + rnd(&s) % 200) * 1000;
			push(p, c, c + a, MS_NOTIFY_WAIT, 3, -1, op);
			push(p, c + a, c + a + b, MS_SDMA, 3, -1, op);
			push(p, c + a + b, c + a + b + 2000, MS_NOTIFY_RECORD, 3, -1, op);
			if (c + a + b + 2000 > end)
				end = c + a +
				      (b + 2000) / 2000 *
				          1000; /* the next kernel overlaps its tail half */
		}
		int64_t gap = (int64_t)(rnd(&s) % 60) * 1000;
		if (i % 7 == 3) { /* a memcpy in a wider gap */
			push(p, end + 10000, end + 25000, MS_MEMCPY, 4, -1, -1);
			gap += 40000;
		}
		t = end + gap;
	}
	int64_t last = 0;
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].e > last)
			last = p->t[i].e;
	push(p, last + 180000, last + 182000, MS_EVENT_WAIT, 1, -1, -1); /* trailing idle */
}

typedef struct seg {
	int64_t s, e;
} seg;

static int
cmp_seg(const void *a, const void *b)
{
	const seg *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

/* The union of v (sorted here), in place; returns its count. */
static size_t
seg_union(seg *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_seg);
	size_t w = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].s <= v[w].e) {
			if (v[i].e > v[w].e)
				v[w].e = v[i].e;
		} else {
			v[++w] = v[i];
		}
	}
	return w + 1;
}

/* The ops' spans: first sub-task start to last sub-task end. */
static seg *
op_spans(const plan *p)
{
	seg *ops = xmalloc(((size_t)p->nops + 1) * sizeof *ops);
	for (int k = 0; k < p->nops; k++)
		ops[k] = (seg){INT64_MAX, INT64_MIN};
	for (size_t i = 0; i < p->n; i++) {
		const mtask *t = &p->t[i];
		if (t->op < 0)
			continue;
		if (t->s < ops[t->op].s)
			ops[t->op].s = t->s;
		if (t->e > ops[t->op].e)
			ops[t->op].e = t->e;
	}
	return ops;
}

static int
exec_all(sqlite3 *db, const char *path, const char *const *sql, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *e = NULL;
		if (sqlite3_exec(db, sql[i], NULL, NULL, &e) != SQLITE_OK) {
			msg_error("gen: %s: %s", path, e ? e : "?");
			sqlite3_free(e);
			return -1;
		}
	}
	return 0;
}

/* Insight's OVERLAP_ANALYSIS of the plan (analyses.md 2b), written as its rows: the merged
 * compute kernels (type 0), the merged ops (1), ops minus kernels (2), and Free (3): the gaps
 * between busy times, and from the first to the last task of a type other than a kernel's
 * (PROFILING_*, FFTS_PLUS, KERNEL_*) up to the first busy time and after the last. */
static int
write_overlap(sqlite3 *db, const char *path, const plan *p, int64_t t0, int dev)
{
	size_t nc = 0, nm = 0;
	seg *comp = xmalloc((p->n + 1) * sizeof *comp);
	seg *comm = op_spans(p);
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].kernel >= 0 && p->t[i].e != p->t[i].s)
			comp[nc++] = (seg){p->t[i].s, p->t[i].e};
	nc = seg_union(comp, nc);
	nm = seg_union(comm, (size_t)p->nops);
	int64_t env_s = INT64_MAX, env_e = INT64_MIN;
	for (size_t i = 0; i < p->n; i++)
		if (p->t[i].type != MS_AICORE) {
			env_s = p->t[i].s < env_s ? p->t[i].s : env_s;
			env_e = p->t[i].e > env_e ? p->t[i].e : env_e;
		}
	seg *busy = xmalloc((nc + nm + 1) * sizeof *busy);
	memcpy(busy, comp, nc * sizeof *comp);
	memcpy(busy + nc, comm, nm * sizeof *comm);
	size_t nb = seg_union(busy, nc + nm);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db,
	                            "INSERT INTO OVERLAP_ANALYSIS (deviceId, startNs, endNs, type) "
	                            "VALUES (?,?,?,?)",
	                            -1, &st, NULL);
#define ROW(S, E, TY)                                                                              \
	do {                                                                                       \
		sqlite3_bind_int(st, 1, dev);                                                      \
		sqlite3_bind_int64(st, 2, t0 + (S));                                               \
		sqlite3_bind_int64(st, 3, t0 + (E));                                               \
		sqlite3_bind_int(st, 4, TY);                                                       \
		if (sqlite3_step(st) != SQLITE_DONE)                                               \
			rc = SQLITE_ERROR;                                                         \
		sqlite3_reset(st);                                                                 \
	} while (0)
	for (size_t i = 0; rc == SQLITE_OK && i < nc; i++)
		ROW(comp[i].s, comp[i].e, 0);
	for (size_t i = 0; rc == SQLITE_OK && i < nm; i++)
		ROW(comm[i].s, comm[i].e, 1);
	/* communication minus computing */
	for (size_t i = 0, k = 0; rc == SQLITE_OK && i < nm; i++) {
		int64_t s = comm[i].s;
		while (k < nc && comp[k].e <= s)
			k++;
		for (size_t j = k; j < nc && comp[j].s < comm[i].e && rc == SQLITE_OK; j++) {
			if (comp[j].s > s)
				ROW(s, comp[j].s, 2);
			if (comp[j].e > s)
				s = comp[j].e;
		}
		if (s < comm[i].e && rc == SQLITE_OK)
			ROW(s, comm[i].e, 2);
	}
	if (nb > 0 && rc == SQLITE_OK) {
		if (env_s < busy[0].s)
			ROW(env_s, busy[0].s, 3);
		for (size_t i = 1; i < nb && rc == SQLITE_OK; i++)
			ROW(busy[i - 1].e, busy[i].s, 3);
		if (env_e > busy[nb - 1].e && rc == SQLITE_OK)
			ROW(busy[nb - 1].e, env_e, 3);
	}
#undef ROW
	if (rc != SQLITE_OK)
		msg_error("gen: %s: OVERLAP_ANALYSIS: %s", path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(comp);
	free(comm);
	free(busy);
	return rc == SQLITE_OK ? 0 : -1;
}

/* v (ns, a whole number of microseconds below 10^21) as CANN 7.0 wrote TASK's times: C's
 * "%.14e" of it, but from its digits (no floating point between the plan and the file). */
static void
float_text(int64_t v, char *out, size_t len)
{
	char d[32];
	int n = snprintf(d, sizeof d, "%" PRId64, v);
	char m[16];
	for (int i = 0; i < 15; i++)
		m[i] = i < n ? d[i] : '0';
	snprintf(out, len, "%c.%.14se+%02d", m[0], m + 1, n - 1);
}

static int
write_strings(sqlite3 *db, const plan *p)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "INSERT INTO STRING_IDS VALUES (?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	int rc = 0;
	char buf[64];
	for (int id = 1; id < MS_OP0 + p->nops && rc == 0; id++) {
		const char *v =
		    id < MS_K0 ? fixed_strings[id]
		    : id < MS_OP0
		        ? kernel_names[id - MS_K0]
		        : (snprintf(buf, sizeof buf, "hcom_allReduce__001_%d_1", id - MS_OP0), buf);
		sqlite3_bind_int(st, 1, id);
		sqlite3_bind_text(st, 2, v, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int exec_fmt(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int
exec_fmt(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;
	sqlite3_free(sql);
	return rc == SQLITE_OK ? 0 : -1;
}

int
gen_msprof_db(const char *path, const gen_msprof_opts *o)
{
	plan p = {0};
	make_plan(&p, o);
	sqlite3 *db;
	remove(path);
	if (sqlite3_open(path, &db) != SQLITE_OK) {
		msg_error("gen: %s: %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		free(p.t);
		return -1;
	}
	int rc = 0, dev = o->device;
	const int64_t base = INT64_C(1577836800000000000); /* CANN 7.0's: 2020-01-01 UTC */
	/* the origin: epoch ns for msprof, ns after base for CANN 7.0 (15 digits of it hold
	 * microseconds) */
	int64_t t0 = o->cann7 ? INT64_C(123282223000000000) : INT64_C(1700000000000000000);
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (o->cann7)
		rc = exec_all(db, path, ddl_cann7, sizeof ddl_cann7 / sizeof *ddl_cann7);
	else {
		rc = exec_all(db, path, gen_ddl_tables, GEN_DDL_MSPROF_TABLES);
		if (rc == 0)
			rc = exec_all(db, path, &ddl_msprof_enum, 1);
		if (rc == 0)
			rc = exec_all(db, path, gen_ddl_indexes,
			              sizeof gen_ddl_indexes / sizeof *gen_ddl_indexes);
	}
	if (rc == 0)
		rc = write_strings(db, &p);
	int64_t last = 0;
	for (size_t i = 0; i < p.n; i++)
		last = p.t[i].e > last ? p.t[i].e : last;
	if (rc == 0 && o->cann7)
		rc = exec_fmt(db,
		              "INSERT INTO TARGET_INFO_NPU VALUES (%d,'Ascend910B');"
		              "INSERT INTO TARGET_INFO_SESSION_TIME VALUES (%" PRId64 ",%" PRId64
		              ",%" PRId64 ");"
		              "INSERT INTO ENUM_API_LEVEL VALUES (20000,'acl'),(15000,'model'),"
		              "(10000,'node'),(5000,'runtime');",
		              dev, base + t0, base + t0 + last, base);
	else if (rc == 0)
		rc = exec_fmt(db,
		              "INSERT INTO NPU_INFO VALUES (%d,'Ascend910B');"
		              "INSERT INTO RANK_DEVICE_MAP VALUES (-1,%d);"
		              "INSERT INTO HOST_INFO VALUES ('3538958389648580163','gen');"
		              "INSERT INTO SESSION_TIME_INFO VALUES (%" PRId64 ",%" PRId64 ");"
		              "INSERT INTO ENUM_API_TYPE VALUES (5000,'runtime'),(5500,'hccl'),"
		              "(10000,'node'),(15000,'model'),(20000,'acl');",
		              dev, dev, t0, t0 + last);
	seg *ops = op_spans(&p);
	for (size_t i = 0; i < p.n && rc == 0; i++) {
		const mtask *t = &p.t[i];
		int64_t id = (int64_t)i + 1; /* globalTaskId / correlationId */
		int64_t conn = t->op >= 0 ? 1000 + t->op : 2000 + (int64_t)i;
		if (o->cann7) {
			char s[40], e[40];
			float_text(t0 + t->s, s, sizeof s);
			float_text(t0 + t->e, e, sizeof e);
			rc = exec_fmt(db,
			              "INSERT INTO TASK VALUES ('%s','%s',%d,%" PRId64 ",%" PRId64
			              ",4242,%d,4294967295,%d,%lld,4294967295)",
			              s, e, dev, conn, id, t->type, t->stream, (long long)i);
		} else {
			rc = exec_fmt(db,
			              "INSERT INTO TASK VALUES (%" PRId64 ",%" PRId64 ",%d,%" PRId64
			              ",%" PRId64 ",4242,%d,4294967295,%d,%lld,4294967295)",
			              t0 + t->s, t0 + t->e, dev, conn, id, t->type, t->stream,
			              (long long)i);
		}
		if (rc == 0 && t->kernel >= 0)
			rc = exec_fmt(db,
			              o->cann7 ? "INSERT INTO COMPUTE_TASK_INFO VALUES (%d,%" PRId64
			                         ",24,0,%d,%d,0,0,0,0,0,0)"
			                       : "INSERT INTO COMPUTE_TASK_INFO VALUES (%d,%" PRId64
			                         ",24,0,%d,%d,0,0,0,0,0,0,0,0,0,0,0)",
			              MS_K0 + t->kernel, id, MS_AI_CORE, MS_K0 + t->kernel);
		if (rc == 0 && t->op >= 0)
			rc = exec_fmt(
			    db,
			    o->cann7 ? "INSERT INTO COMMUNICATION_TASK_INFO VALUES (%d,%" PRId64
			               ",%d,0,%d,0,0,0,1,0,1048576,4,1,%d)"
			             : "INSERT INTO COMMUNICATION_TASK_INFO VALUES (%d,%" PRId64
			               ",%d,0,%d,0,0,0,1,0,1048576,4,1,%d,1,0)",
			    MS_OP0 + t->op, id, t->type, MS_GROUP, t->op);
	}
	for (int k = 0; k < p.nops && rc == 0 && !o->cann7; k++)
		rc = exec_fmt(db,
		              "INSERT INTO COMMUNICATION_OP VALUES (%d,%" PRId64 ",%" PRId64
		              ",%d,%d,%d,0,0,4,0,262144,0,%d,8)",
		              MS_OP0 + k, t0 + ops[k].s, t0 + ops[k].e, 1000 + k, MS_GROUP, k, dev);
	/* CANN 7.0's API rows: launches, integers in TEXT, none matching a TASK connectionId */
	for (int k = 0; k < 8 && rc == 0 && o->cann7; k++)
		rc = exec_fmt(db,
		              "INSERT INTO API VALUES ('%" PRId64 "','%" PRId64 "',10000,%d,%d,%d)",
		              t0 - 50000 + k * 1000, t0 - 50000 + k * 1000 + 700, 4242, 900000 + k,
		              MS_K0 + k % NK);
	free(ops);
	if (rc == 0 && o->steps > 0 && !o->cann7) {
		/* torch_npu's STEP_TIME: step k from the start of kernel k * n / steps (the
		 * first from the first task) to the next step's start (the last to the end) */
		rc = exec_fmt(db, "CREATE TABLE IF NOT EXISTS STEP_TIME (id INTEGER, startNs "
		                  "INTEGER, endNs INTEGER)");
		size_t nk = 0;
		int64_t *ks = xmalloc((p.n + 1) * sizeof *ks);
		for (size_t i = 0; i < p.n; i++)
			if (p.t[i].kernel >= 0)
				ks[nk++] = p.t[i].s;
		for (int k = 0; k < o->steps && rc == 0; k++) {
			int64_t s = k == 0 ? 0 : ks[(size_t)k * nk / (size_t)o->steps];
			int64_t e =
			    k + 1 == o->steps ? last : ks[(size_t)(k + 1) * nk / (size_t)o->steps];
			rc = exec_fmt(db,
			              "INSERT INTO STEP_TIME VALUES (%d,%" PRId64 ",%" PRId64 ")",
			              k + 1, t0 + s, t0 + e);
		}
		free(ks);
	}
	if (rc == 0 && o->overlap_table && !o->cann7) {
		if (o->overlap_table == 2)
			rc = exec_all(db, path, ddl_msprof_overlap,
			              sizeof ddl_msprof_overlap / sizeof *ddl_msprof_overlap);
		else
			rc = exec_all(db, path, &ddl_insight_overlap, 1);
		if (rc == 0)
			rc = write_overlap(db, path, &p, t0, dev);
	}
	if (rc != 0)
		msg_error("gen: %s: %s", path, sqlite3_errmsg(db));
	sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_close(db) != SQLITE_OK)
		rc = -1;
	free(p.t);
	return rc;
}
