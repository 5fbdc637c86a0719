/* The Ascend unified DB loader: ascend_pytorch_profiler_{r}.db, msprof_*.db and
 * ascend_mindspore_profiler_{r}.db (one schema: msprof's tables, torch_npu adds its own).
 * Opens read-only, binds columns by name, treats every table as optional. */
#include "config.h"
#include "load/load_int.h"
#include "load/profdb.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */
#define MSTX_CONN_MIN 4000000000LL  /* mstx connectionIds: mark_id + 4000000001 */
#define PROGRESS_ROWS 65536
/* Dense id arrays are used while ids stay below this many entries per row read; else a hash. */
#define DENSE_SLACK (1u << 20)

enum gt_class { GT_NONE, GT_COMPUTE, GT_COMM, GT_COMM_SCHED, GT_MEMCPY };

typedef struct db_ctx {
	const tl_source *src;
	tl_rank *r;
	tl_profdb pdb; /* the hardened connection (profdb.c) */
	sqlite3 *db;   /* pdb.db */
	const char *path;
	tl_u64map strs; /* STRING_IDS id -> pool id */
	/* globalTaskId -> class and name: dense arrays when ids are dense, else hash maps */
	uint8_t *gt_class;
	uint32_t *gt_name;
	size_t gt_n;
	tl_u64map gt_hclass, gt_hname;
	int gt_hashed;
	/* steps of this source, sorted; global index = step_base + i */
	tl_step *steps;
	size_t nsteps, step_base;
	uint16_t *conn_step; /* CANN connectionId -> step (dense) */
	size_t conn_n;
	tl_u64map conn_hstep;
	int conn_hashed, have_conn_steps;
	tl_u64map mstx_conn; /* connectionId of host mstx ranges -> index into mstx */
	struct mstx_link *mstx;
	size_t nmstx, mstxcap;
	uint64_t rows, rows_reported;
	int failed; /* the DB itself is unusable (not SQLite, encrypted, crafted, ...): stop */
} db_ctx;

static int db_prepare(db_ctx *c, const char *sql, sqlite3_stmt **st);

static void
ctx_rows(db_ctx *c, uint64_t n)
{
	c->rows += n;
	if (c->rows - c->rows_reported >= PROGRESS_ROWS) {
		msg_progress_add(0, c->rows - c->rows_reported);
		c->rows_reported = c->rows;
	}
}

static int
has_table(db_ctx *c, const char *name)
{
	return profdb_has(&c->pdb, name);
}

/* Reports a failed statement once; returns -1. A hostile or unusable file (refused by the
 * authorizer, over the work budget or a limit, not SQLite at all) stops the whole rank. */
static int
db_fail(db_ctx *c, const char *what, int rc)
{
	char m[400];
	if (c->failed)
		return -1; /* already said */
	if (profdb_fatal(&c->pdb, rc)) {
		msg_warn(c->path, "%s: %s; skipped", what, profdb_errmsg(&c->pdb, rc, m, sizeof m));
		c->failed = 1;
	} else if ((rc & 0xff) == SQLITE_CORRUPT) {
		msg_warn(c->path, "database is damaged or truncated while reading %s (%s); keeping "
				  "what was read before",
		    what, sqlite3_errmsg(c->db));
	} else {
		msg_warn(c->path, "cannot read %s: %s", what, sqlite3_errmsg(c->db));
	}
	return -1;
}

/* Sets have[i] when the table has the column cols[i]; returns how many it has, -1 on failure. */
static int
table_columns(db_ctx *c, const char *table, const char *const *cols, int ncols, int *have)
{
	char sql[160];
	int n = 0;
	for (int i = 0; i < ncols; i++)
		have[i] = 0;
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	if (db_prepare(c, sql, &st) != SQLITE_OK)
		return db_fail(c, table, sqlite3_errcode(c->db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		for (int i = 0; name && i < ncols; i++)
			if (!have[i] && strcmp(name, cols[i]) == 0) {
				have[i] = 1;
				n++;
			}
	}
	sqlite3_finalize(st);
	return n;
}

/* Builds "SELECT c1,c2,...,rowid FROM table", with NULL for columns the table lacks (columns
 * drift between torch_npu and CANN versions). have[i] is set for present columns. */
static sqlite3_stmt *
prepare_cols(db_ctx *c, const char *table, const char *const *cols, int ncols, int *have,
    const char *tail)
{
	char sql[2048];
	size_t off = 0;
	sqlite3_stmt *st = NULL;
	if (table_columns(c, table, cols, ncols, have) < 0)
		return NULL;
	off += (size_t)snprintf(sql + off, sizeof sql - off, "SELECT ");
	for (int i = 0; i < ncols; i++)
		off += (size_t)snprintf(sql + off, sizeof sql - off, have[i] ? "\"%s\"," : "NULL,",
		    cols[i]);
	snprintf(sql + off, sizeof sql - off, "rowid FROM \"%s\"%s", table, tail ? tail : "");
	if (db_prepare(c, sql, &st) != SQLITE_OK) {
		db_fail(c, table, sqlite3_errcode(c->db));
		return NULL;
	}
	return st;
}

/* Every statement goes through here; TL_TRACE_SQL=1 prints them (the benchmark runs the very
 * same SELECTs in the sqlite3 shell). */
static int
db_prepare(db_ctx *c, const char *sql, sqlite3_stmt **st)
{
	static int trace = -1;
	if (trace < 0)
		trace = getenv("TL_TRACE_SQL") != NULL;
	if (trace)
		fprintf(stderr, "%s;\n", sql);
	return profdb_prepare(&c->pdb, sql, st);
}

static uint32_t
str_id(db_ctx *c, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return 0;
	int64_t sid = sqlite3_column_int64(st, col);
	uint32_t id;
	if (u64map_get(&c->strs, (uint64_t)sid, &id))
		return id;
	return 0; /* e.g. 4294967295: torch_npu's empty string, no STRING_IDS row */
}

static int64_t
scalar_i64(db_ctx *c, const char *table, const char *sql, int64_t def)
{
	sqlite3_stmt *st;
	int64_t v = def;
	if (db_prepare(c, sql, &st) != SQLITE_OK) {
		if (profdb_fatal(&c->pdb, sqlite3_errcode(c->db)))
			db_fail(c, table, sqlite3_errcode(c->db));
		return def;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && profdb_fatal(&c->pdb, rc))
		db_fail(c, table, rc);
	return v;
}

/* ---- tables ---------------------------------------------------------------------------- */

static int
read_strings(db_ctx *c)
{
	if (!has_table(c, "STRING_IDS"))
		return 0;
	sqlite3_stmt *st;
	int rc = db_prepare(c, "SELECT id, value FROM STRING_IDS", &st);
	if (rc != SQLITE_OK)
		return db_fail(c, "STRING_IDS", rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 1);
		int len = sqlite3_column_bytes(st, 1);
		uint32_t id = strpool_intern(c->r->pool, v ? v : "", v ? (size_t)len : 0);
		u64map_put(&c->strs, (uint64_t)sqlite3_column_int64(st, 0), id);
		ctx_rows(c, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(c, "STRING_IDS", rc);
	return 0;
}

static int
read_steps(db_ctx *c)
{
	if (!has_table(c, "STEP_TIME"))
		return 0;
	static const char *const cols[] = {"id", "startNs", "endNs"};
	int have[3];
	sqlite3_stmt *st = prepare_cols(c, "STEP_TIME", cols, 3, have, NULL);
	if (st == NULL)
		return -1;
	size_t cap = 0, bad = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    sqlite3_column_type(st, 2) == SQLITE_NULL) {
			bad++;
			continue;
		}
		tl_step s = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		    sqlite3_column_int64(st, 2)};
		if (s.end < s.start || !tl_time_ok(s.start) || !tl_time_ok(s.end)) {
			bad++;
			continue;
		}
		VEC_PUSH(c->steps, c->nsteps, cap, s);
	}
	sqlite3_finalize(st);
	if (bad)
		msg_warn(c->path, "STEP_TIME: %zu rows with a NULL time, an end before the start or a "
				  "time out of range skipped",
		    bad);
	if (rc != SQLITE_DONE)
		db_fail(c, "STEP_TIME", rc);
	if (rank_add_steps(c->r, c->steps, c->nsteps, &c->step_base) != 0) {
		msg_warn(c->path, "STEP_TIME: more than %d steps; steps ignored", TL_NO_STEP - 1);
		c->nsteps = 0;
	}
	return 0;
}

/* Step of host time t in this source, as a global step index. */
static uint16_t
step_at(const db_ctx *c, int64_t t)
{
	size_t i = steps_index_at(c->steps, c->nsteps, t);
	return i == SIZE_MAX ? TL_NO_STEP : (uint16_t)(c->step_base + i);
}

/* Device work belongs to the step in which it was launched: the CANN API call with the task's
 * connectionId started inside STEP_TIME (as torch_npu's StepTraceTime assigns it). */
static int
read_launches(db_ctx *c)
{
	if (c->nsteps < 2 || !has_table(c, "CANN_API"))
		return 0;
	int64_t maxc = scalar_i64(c, "CANN_API", "SELECT max(connectionId) FROM CANN_API", -1);
	if (maxc < 0 || c->failed)
		return 0;
	/* a dense array while the ids are about as many as the rows (a crafted file with one
	 * huge id must not make tl allocate for every id below it) */
	int64_t rows = scalar_i64(c, "CANN_API", "SELECT count(*) FROM CANN_API", 0);
	c->conn_hashed = (uint64_t)maxc >= (uint64_t)256 << 20 ||
			 (uint64_t)maxc > (uint64_t)rows * 4 + DENSE_SLACK;
	if (c->conn_hashed)
		u64map_init(&c->conn_hstep);
	else {
		c->conn_n = (size_t)maxc + 1;
		c->conn_step = xmalloc(c->conn_n * sizeof *c->conn_step);
		memset(c->conn_step, 0xff, c->conn_n * sizeof *c->conn_step);
	}
	static const char *const cols[] = {"connectionId", "startNs"};
	int have[2];
	sqlite3_stmt *st = prepare_cols(c, "CANN_API", cols, 2, have, NULL);
	if (st == NULL)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		int64_t conn = sqlite3_column_int64(st, 0);
		uint16_t s = step_at(c, sqlite3_column_int64(st, 1));
		if (conn < 0)
			continue;
		if (c->conn_hashed)
			u64map_put(&c->conn_hstep, (uint64_t)conn, s);
		else if ((uint64_t)conn < c->conn_n)
			c->conn_step[conn] = s;
	}
	sqlite3_finalize(st);
	c->have_conn_steps = 1;
	if (rc != SQLITE_DONE)
		db_fail(c, "CANN_API", rc);
	return 0;
}

static uint16_t
step_of_work(const db_ctx *c, int64_t conn, int64_t dev_start)
{
	if (c->nsteps == 0)
		return TL_NO_STEP;
	if (c->nsteps == 1)
		return (uint16_t)c->step_base; /* one step: the whole capture belongs to it */
	if (c->have_conn_steps && conn >= 0) {
		if (c->conn_hashed) {
			uint32_t v;
			if (u64map_get(&c->conn_hstep, (uint64_t)conn, &v))
				return (uint16_t)v;
		} else if ((uint64_t)conn < c->conn_n && c->conn_step[conn] != TL_NO_STEP) {
			return c->conn_step[conn];
		}
	}
	return step_at(c, dev_start); /* no launch record: fall back to device time */
}

/* ---- globalTaskId classes: compute, communication, memcpy -------------------------------- */

static void
gt_set(db_ctx *c, int64_t gt, uint8_t cls, uint32_t name)
{
	if (gt < 0)
		return;
	if (c->gt_hashed) {
		uint32_t old;
		if (u64map_get(&c->gt_hclass, (uint64_t)gt, &old) && old == GT_COMPUTE)
			return; /* compute wins (first rule) */
		u64map_put(&c->gt_hclass, (uint64_t)gt, cls);
		u64map_put(&c->gt_hname, (uint64_t)gt, name);
	} else if ((uint64_t)gt < c->gt_n) {
		if (c->gt_class[gt] == GT_COMPUTE)
			return;
		c->gt_class[gt] = cls;
		c->gt_name[gt] = name;
	}
}

static uint8_t
gt_get(const db_ctx *c, int64_t gt, uint32_t *name)
{
	if (gt < 0)
		return GT_NONE;
	if (c->gt_hashed) {
		uint32_t cls;
		if (!u64map_get(&c->gt_hclass, (uint64_t)gt, &cls))
			return GT_NONE;
		u64map_get(&c->gt_hname, (uint64_t)gt, name);
		return (uint8_t)cls;
	}
	if ((uint64_t)gt >= c->gt_n)
		return GT_NONE;
	*name = c->gt_name[gt];
	return c->gt_class[gt];
}

static void
gt_prepare(db_ctx *c)
{
	int64_t maxg = -1, rows = 0;
	static const char *const info[] = {"COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO",
	    "COMMUNICATION_SCHEDULE_TASK_INFO", "MEMCPY_INFO"};
	for (size_t i = 0; i < sizeof info / sizeof *info; i++) {
		if (!has_table(c, info[i]))
			continue;
		char sql[128];
		snprintf(sql, sizeof sql, "SELECT max(globalTaskId), count(*) FROM %s", info[i]);
		sqlite3_stmt *st;
		if (db_prepare(c, sql, &st) != SQLITE_OK) {
			db_fail(c, info[i], sqlite3_errcode(c->db));
			continue;
		}
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			int64_t m = sqlite3_column_int64(st, 0);
			if (m > maxg)
				maxg = m;
			rows += sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			db_fail(c, info[i], rc);
	}
	if (maxg < 0) {
		c->gt_n = 0;
		return;
	}
	if ((uint64_t)maxg > (uint64_t)rows * 4 + DENSE_SLACK) {
		c->gt_hashed = 1;
		u64map_init(&c->gt_hclass);
		u64map_init(&c->gt_hname);
		return;
	}
	c->gt_n = (size_t)maxg + 1;
	c->gt_class = xcalloc(c->gt_n, 1);
	c->gt_name = xmalloc(c->gt_n * sizeof *c->gt_name);
}

static int
read_gt_table(db_ctx *c, const char *table, uint8_t cls)
{
	if (!has_table(c, table))
		return 0;
	/* compute/schedule kernels are named by `name`; HCCL sub-tasks by their task type
	 * (Memcpy, Notify_Wait, ...) falling back to the op name at Level0 ('N/A'). */
	static const char *const cols[] = {"globalTaskId", "name", "taskType"};
	int have[3];
	sqlite3_stmt *st = prepare_cols(c, table, cols, cls == GT_MEMCPY ? 1 : 3, have, NULL);
	if (st == NULL)
		return -1;
	uint32_t na = strpool_intern_cstr(c->r->pool, "N/A");
	uint32_t memcpy_name = strpool_intern_cstr(c->r->pool, "MEMCPY_ASYNC");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		int64_t gt = sqlite3_column_int64(st, 0);
		uint32_t name;
		if (cls == GT_MEMCPY) {
			name = memcpy_name;
		} else if (cls == GT_COMM) {
			name = str_id(c, st, 2);
			if (name == 0 || name == na)
				name = str_id(c, st, 1);
		} else {
			name = str_id(c, st, 1);
		}
		gt_set(c, gt, cls, name);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(c, table, rc);
	return 0;
}

/* ---- row times ------------------------------------------------------------------------------
 * Every slice table is checked the same way: a NULL, out-of-range or backwards time skips the
 * row, counted, and each kind is said once per table after the scan. */

typedef struct row_check {
	size_t nulls, backwards, range;
} row_check;

/* The start and end of the row in columns cs and ce; a NULL end is the start when
 * end_optional (MSTX marks). Returns 0 for a usable row. */
static int
row_times(row_check *k, sqlite3_stmt *st, int cs, int ce, int end_optional, int64_t *s,
    int64_t *e)
{
	int end_null = sqlite3_column_type(st, ce) == SQLITE_NULL;
	if (sqlite3_column_type(st, cs) == SQLITE_NULL || (end_null && !end_optional)) {
		k->nulls++;
		return -1;
	}
	*s = sqlite3_column_int64(st, cs);
	*e = end_null ? *s : sqlite3_column_int64(st, ce);
	if (!tl_time_ok(*s) || !tl_time_ok(*e)) {
		k->range++;
		return -1;
	}
	if (*e < *s) {
		k->backwards++;
		return -1;
	}
	return 0;
}

static void
row_check_report(db_ctx *c, const char *table, const char *null_cols, const row_check *k)
{
	if (k->nulls)
		msg_warn(c->path, "%s: %zu rows with a NULL %s skipped", table, k->nulls, null_cols);
	if (k->backwards)
		msg_warn(c->path, "%s: %zu rows end before they start; skipped", table, k->backwards);
	if (k->range)
		msg_warn(c->path, "%s: %zu rows with a time out of range; skipped", table, k->range);
}

/* ---- MSTX ranges ------------------------------------------------------------------------
 * A range (or mark) given a stream has a host part, its MSTX_EVENTS row (the calls, on the
 * thread that made them), and a device part, the marker tasks CANN put on the stream: TASK rows
 * with the same connectionId (mark id + 4000000001). msprof pairs a range's begin and end
 * markers into one TASK row (startNs = begin marker, endNs = end marker; a mark's row has
 * endNs = startNs), and pp_chart takes a block's times from that row. Should a file hold the
 * two markers as rows of their own, the device range is still first marker start to last
 * marker end: the rows of one connectionId are merged so. The host row then gets the device
 * range (track_set_dev) for the analyses, and the device lane one slice per range. */

typedef struct mstx_link {
	tl_track *t; /* the host row's lane and index, until rank_finish sorts it */
	size_t k;
	uint32_t msg; /* pool id of the message */
	int64_t s, e; /* device part: first marker start, last marker end; s > e: none yet */
	int64_t dev, stream;
	uint32_t rowid; /* TASK rowid of the first marker (the detail pane's row) */
} mstx_link;

static int
read_mstx(db_ctx *c)
{
	if (!has_table(c, "MSTX_EVENTS"))
		return 0;
	static const char *const cols[] = {"startNs", "endNs", "eventType", "message", "domainId",
	    "connectionId"};
	int have[6];
	sqlite3_stmt *st = prepare_cols(c, "MSTX_EVENTS", cols, 6, have, NULL);
	if (st == NULL)
		return -1;
	row_check k = {0};
	int rc;
	tl_track *last = NULL;
	uint32_t last_dom = UINT32_MAX;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		int64_t s, e;
		if (row_times(&k, st, 0, 1, 1, &s, &e) != 0)
			continue;
		uint32_t msg = str_id(c, st, 3);
		uint32_t dom = str_id(c, st, 4);
		if (last == NULL || dom != last_dom) {
			const char *dn = strpool_get(c->r->pool, dom);
			last = rank_track(c->r, TL_LANE_MSTX, dom, *dn ? dn : "default");
			last_dom = dom;
		}
		track_push(last, s, e, msg, (uint32_t)sqlite3_column_int64(st, 6));
		if (sqlite3_column_type(st, 5) != SQLITE_NULL && c->nmstx < UINT32_MAX) {
			int64_t conn = sqlite3_column_int64(st, 5);
			if (conn > MSTX_CONN_MIN && conn != TL_INVALID_U32) {
				mstx_link l = {.t = last, .k = last->n - 1, .msg = msg,
				    .s = INT64_MAX, .e = INT64_MIN};
				u64map_put(&c->mstx_conn, (uint64_t)conn, (uint32_t)c->nmstx);
				VEC_PUSH(c->mstx, c->nmstx, c->mstxcap, l);
			}
		}
	}
	sqlite3_finalize(st);
	row_check_report(c, "MSTX_EVENTS", "startNs", &k);
	if (rc != SQLITE_DONE)
		return db_fail(c, "MSTX_EVENTS", rc);
	return 0;
}

/* ---- TASK ------------------------------------------------------------------------------- */

typedef struct stream_cache {
	int64_t key;
	tl_lane_kind kind;
	tl_track *t;
} stream_cache;

static tl_track *
task_track(db_ctx *c, stream_cache **cache, size_t *n, size_t *cap, tl_lane_kind kind,
    int64_t dev, int64_t stream)
{
	/* (unsigned: a deviceId of any size shifts without overflow) */
	int64_t key = (int64_t)(((uint64_t)dev << 32) | (uint32_t)stream);
	for (size_t i = 0; i < *n; i++)
		if ((*cache)[i].key == key && (*cache)[i].kind == kind)
			return (*cache)[i].t;
	char label[64];
	snprintf(label, sizeof label, "Stream %" PRId64, stream);
	stream_cache e = {key, kind, rank_track(c->r, kind, key, label)};
	VEC_PUSH(*cache, *n, *cap, e);
	return e.t;
}

typedef struct ffts_cand { /* possible FFTS+ container row */
	uint64_t key;
	tl_track *t;
	uint32_t rowid;
} ffts_cand;

static uint64_t
ffts_key(int64_t dev, int64_t stream, int64_t task)
{
	return ((uint64_t)dev << 48) ^ ((uint64_t)(stream & 0xffff) << 32) ^ (uint64_t)(task & 0xffffffff);
}

static int
read_tasks(db_ctx *c)
{
	if (!has_table(c, "TASK")) {
		msg_warn(c->path, "no TASK table: no device data in this profile");
		return 0;
	}
	static const char *const cols[] = {"startNs", "endNs", "deviceId", "streamId",
	    "globalTaskId", "taskType", "contextId", "taskId", "connectionId"};
	int have[9];
	sqlite3_stmt *st = prepare_cols(c, "TASK", cols, 9, have, NULL);
	if (st == NULL)
		return -1;
	uint32_t ty_mstx = strpool_find(c->r->pool, "MsTx", 4);
	uint32_t ty_memcpy = strpool_find(c->r->pool, "MEMCPY_ASYNC", 12);
	stream_cache *cache = NULL;
	size_t ncache = 0, ccap = 0;
	ffts_cand *cand = NULL;
	size_t ncand = 0, candcap = 0;
	tl_u64map children;
	u64map_init(&children);
	row_check bad = {0};
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		int64_t s, e;
		if (row_times(&bad, st, 0, 1, 0, &s, &e) != 0)
			continue;
		int64_t dev = sqlite3_column_int64(st, 2);
		int64_t stream = sqlite3_column_int64(st, 3);
		int64_t gt = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
		uint32_t ttype = str_id(c, st, 5);
		int64_t ctxid = have[6] ? sqlite3_column_int64(st, 6) : TL_INVALID_U32;
		int64_t conn = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 8);
		uint32_t rowid = (uint32_t)sqlite3_column_int64(st, 9);
		uint32_t name = ttype;
		tl_lane_kind kind;
		switch (gt_get(c, gt, &name)) {
		case GT_COMPUTE:
			kind = TL_LANE_COMPUTE;
			break;
		case GT_COMM:
		case GT_COMM_SCHED:
			kind = TL_LANE_COMM_TASK;
			break;
		case GT_MEMCPY:
			kind = TL_LANE_MEMCPY;
			name = ttype;
			break;
		default:
			name = ttype;
			uint32_t li;
			if (conn > MSTX_CONN_MIN && u64map_get(&c->mstx_conn, (uint64_t)conn, &li)) {
				/* a marker of a host range: merged, drawn below */
				mstx_link *l = &c->mstx[li];
				if (l->s > l->e) {
					l->dev = dev;
					l->stream = stream;
					l->rowid = rowid;
				}
				l->s = s < l->s ? s : l->s;
				l->e = e > l->e ? e : l->e;
				continue;
			}
			if (ttype == ty_mstx && ty_mstx != UINT32_MAX)
				kind = TL_LANE_MSTX_DEV;
			else if (ttype == ty_memcpy && ty_memcpy != UINT32_MAX)
				kind = TL_LANE_MEMCPY;
			else
				kind = TL_LANE_OTHER;
		}
		if (name == 0)
			name = ttype;
		tl_track *t = task_track(c, &cache, &ncache, &ccap, kind, dev, stream);
		if (kind == TL_LANE_COMPUTE || kind == TL_LANE_COMM_TASK)
			track_push_step(t, s, e, name, rowid, step_of_work(c, conn, s));
		else
			track_push(t, s, e, name, rowid);
		if (have[6] && have[7]) {
			int64_t task = sqlite3_column_int64(st, 7);
			if (ctxid != TL_INVALID_U32)
				u64map_put(&children, ffts_key(dev, stream, task), 1);
			else if (kind == TL_LANE_OTHER) {
				ffts_cand fc = {ffts_key(dev, stream, task), t, rowid};
				VEC_PUSH(cand, ncand, candcap, fc);
			}
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		db_fail(c, "TASK", rc);
	row_check_report(c, "TASK", "startNs/endNs", &bad);

	/* the device part of each range that has one: on its host row, and as one slice of the
	 * device lane named by the decoded message */
	for (size_t i = 0; i < c->nmstx; i++) {
		mstx_link *l = &c->mstx[i];
		if (l->s > l->e)
			continue;
		track_set_dev(l->t, l->k, l->s, l->e);
		char label[300];
		mstx_msg_label(strpool_get(c->r->pool, l->msg), strpool_len(c->r->pool, l->msg),
		               label, sizeof label);
		tl_track *t =
		    task_track(c, &cache, &ncache, &ccap, TL_LANE_MSTX_DEV, l->dev, l->stream);
		track_push(t, l->s, l->e, strpool_intern_cstr(c->r->pool, label), l->rowid);
	}

	/* Hide FFTS+ container rows: they would double-count their sub-tasks. */
	if (children.n > 0 && ncand > 0) {
		tl_u64map hide;
		u64map_init(&hide);
		size_t nhide = 0;
		for (size_t i = 0; i < ncand; i++)
			if (u64map_get(&children, cand[i].key, NULL)) {
				u64map_put(&hide, cand[i].rowid, 1);
				nhide++;
			}
		for (size_t i = 0; nhide && i < ncache; i++) {
			tl_track *t = cache[i].t;
			if (cache[i].kind != TL_LANE_OTHER)
				continue;
			size_t w = 0;
			for (size_t k = 0; k < t->n; k++)
				if (!u64map_get(&hide, t->v[k].arg, NULL))
					t->v[w++] = t->v[k];
			t->n = w;
		}
		u64map_free(&hide);
	}
	u64map_free(&children);
	free(cand);
	free(cache);
	return 0;
}

/* ---- COMMUNICATION_OP ------------------------------------------------------------------- */

static int
read_comm_ops(db_ctx *c)
{
	if (!has_table(c, "COMMUNICATION_OP"))
		return 0;
	static const char *const cols[] = {"opName", "startNs", "endNs", "connectionId",
	    "groupName"};
	int have[5];
	sqlite3_stmt *st = prepare_cols(c, "COMMUNICATION_OP", cols, 5, have, NULL);
	if (st == NULL)
		return -1;
	row_check k = {0};
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		int64_t s, e;
		if (row_times(&k, st, 1, 2, 0, &s, &e) != 0)
			continue;
		int64_t conn = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
		uint32_t group = str_id(c, st, 4);
		const char *gname = strpool_get(c->r->pool, group);
		tl_track *t = rank_track(c->r, TL_LANE_COMM, group, *gname ? gname : "(no group)");
		track_push_step(t, s, e, str_id(c, st, 0), (uint32_t)sqlite3_column_int64(st, 5),
		    step_of_work(c, conn, s));
	}
	sqlite3_finalize(st);
	row_check_report(c, "COMMUNICATION_OP", "startNs/endNs", &k);
	if (rc != SQLITE_DONE)
		return db_fail(c, "COMMUNICATION_OP", rc);
	return 0;
}

static void
read_rank_id(db_ctx *c)
{
	if (c->r->rank >= 0 || !has_table(c, "RANK_DEVICE_MAP"))
		return;
	int64_t r = scalar_i64(c, "RANK_DEVICE_MAP",
	    "SELECT rankId FROM RANK_DEVICE_MAP WHERE rankId >= 0 LIMIT 1", -1);
	if (r >= 0 && r < 1000000)
		c->r->rank = (int)r;
}

/* ---- open ------------------------------------------------------------------------------- */

/* ---- forward/backward operator pairs (on demand, for the pipeline view) ------------------
 * torch_npu links a forward operator and the backward operator autograd runs for it through one
 * CONNECTION_IDS.connectionId that both PYTORCH_API rows point at (MindStudio
 * Insight's "fwdbwd" connection category). The same table also links operators to the
 * kernels they launch and Enqueue to Dequeue, so a pair is exactly two operator rows (type
 * 50001) on two threads (backward runs on autograd's thread), the forward one first. */

typedef struct op_row {
	int64_t tid, start, end;
} op_row;

typedef struct op_link { /* a CONNECTION_IDS row of an operator: 16 bytes, there are many */
	int64_t conn;
	uint32_t op; /* index into the operators read */
} op_link;

static int
cmp_op_link(const void *a, const void *b)
{
	const op_link *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

/* A time column: INTEGER, or TEXT holding a decimal integer (PYTORCH_API declares its times
 * TEXT in every torch_npu version). */
static int
col_time(sqlite3_stmt *st, int col, int64_t *out)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		*out = sqlite3_column_int64(st, col);
		return tl_time_ok(*out) ? 0 : -1;
	case SQLITE_TEXT: {
		const char *t = (const char *)sqlite3_column_text(st, col);
		int64_t v = 0;
		int neg = *t == '-', digits = 0;
		for (t += neg; *t >= '0' && *t <= '9' && digits < 19; t++, digits++)
			v = v * 10 + (*t - '0');
		if (digits == 0 || *t != '\0')
			return -1;
		*out = neg ? -v : v;
		return tl_time_ok(*out) ? 0 : -1;
	}
	default:
		return -1;
	}
}

static void
read_fwdbwd(db_ctx *c)
{
	static const char *const pcols[] = {"startNs", "endNs", "globalTid", "connectionId", "type",
	    "sequenceNumber"};
	static const char *const ccols[] = {"id", "connectionId"};
	int have[6], chave[2];
	if (!has_table(c, "PYTORCH_API") || !has_table(c, "CONNECTION_IDS") ||
	    table_columns(c, "PYTORCH_API", pcols, 6, have) < 5 ||
	    table_columns(c, "CONNECTION_IDS", ccols, 2, chave) != 2)
		return;
	for (int i = 0; i < 5; i++)
		if (!have[i])
			return; /* only sequenceNumber may be missing */
	/* Only operators with an autograd sequence number have a backward (torch_npu pairs them
	 * by it): a filter that keeps the scan of CONNECTION_IDS, one row per launched kernel,
	 * from joining millions of operator-to-kernel links. The pairs are joined here, not by
	 * SQLite, which would build an index over all of CONNECTION_IDS first (4 times slower). */
	int seq = have[5];
	char where[160];
	snprintf(where, sizeof where, "type = 50001%s AND connectionId IS NOT NULL",
	    seq ? " AND sequenceNumber >= 0" : "");
	char sql[512];
	snprintf(sql, sizeof sql,
	    "SELECT connectionId, globalTid, startNs, endNs FROM PYTORCH_API WHERE %s", where);
	sqlite3_stmt *st;
	if (db_prepare(c, sql, &st) != SQLITE_OK) {
		db_fail(c, "PYTORCH_API", sqlite3_errcode(c->db));
		return;
	}
	op_row *ops = NULL;
	size_t nops = 0, ocap = 0, bad = 0;
	tl_u64map by_id; /* PYTORCH_API.connectionId (= CONNECTION_IDS.id) -> ops index */
	u64map_init(&by_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		op_row x;
		if (col_time(st, 2, &x.start) != 0 || col_time(st, 3, &x.end) != 0 ||
		    x.end < x.start) {
			bad++;
			continue;
		}
		uint64_t id = (uint64_t)sqlite3_column_int64(st, 0);
		if (u64map_get(&by_id, id, NULL) || nops >= UINT32_MAX)
			continue; /* an id is one operator's */
		x.tid = sqlite3_column_int64(st, 1);
		u64map_put(&by_id, id, (uint32_t)nops);
		VEC_PUSH(ops, nops, ocap, x);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		db_fail(c, "PYTORCH_API", rc);
	if (bad)
		msg_warn(c->path, "PYTORCH_API: %zu operator rows without usable times skipped", bad);
	op_link *v = NULL;
	size_t n = 0, cap = 0;
	snprintf(sql, sizeof sql,
	    "SELECT id, connectionId FROM CONNECTION_IDS WHERE id IN (SELECT connectionId FROM "
	    "PYTORCH_API WHERE %s)",
	    where);
	if (nops > 0 && !c->failed) {
		if (db_prepare(c, sql, &st) != SQLITE_OK) {
			db_fail(c, "CONNECTION_IDS", sqlite3_errcode(c->db));
		} else {
			while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
				ctx_rows(c, 1);
				uint32_t k;
				if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
				    !u64map_get(&by_id, (uint64_t)sqlite3_column_int64(st, 0), &k))
					continue;
				op_link x = {sqlite3_column_int64(st, 1), k};
				VEC_PUSH(v, n, cap, x);
			}
			sqlite3_finalize(st);
			if (rc != SQLITE_DONE)
				db_fail(c, "CONNECTION_IDS", rc);
		}
	}
	u64map_free(&by_id);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_op_link);
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && v[k].conn == v[i].conn)
			k++;
		if (k - i == 2) {
			const op_row *a = &ops[v[i].op], *b = &ops[v[i + 1].op];
			if (b->start < a->start) {
				const op_row *t = a;
				a = b;
				b = t;
			}
			if (a->tid != b->tid && a->start < b->start)
				rank_add_fwdbwd(c->r, a->start, a->end, b->start, b->end);
		}
		i = k;
	}
	free(v);
	free(ops);
}

/* Opens src for r through the hardened connection; `then` ends the one-line message of a DB
 * that cannot be opened. */
static int
ctx_open(db_ctx *c, const tl_source *src, tl_rank *r, const char *then)
{
	memset(c, 0, sizeof *c);
	c->src = src;
	c->r = r;
	c->path = src->path;
	char err[400];
	if (profdb_open(&c->pdb, src->path, err, sizeof err) != 0) {
		msg_warn(c->path, "%s; %s", err, then);
		return -1;
	}
	c->db = c->pdb.db;
	return 0;
}

/* What the DB loader keeps of a source: whether its operator pairs were read. */
typedef struct db_state {
	int fwdbwd_read;
} db_state;

/* ---- host API lanes and launches (on demand) ------------------------------------------------
 * PYTORCH_API (operators, task-queue Enqueue/Dequeue, Python trace) and CANN_API (acl, node,
 * runtime, hccl calls) become one host lane per thread and table; nesting comes from interval
 * containment when the rank splits the lane into depth levels (neither table stores a depth). */

static void
read_host_table(db_ctx *c, size_t src_index, const char *table, int cann)
{
	static const char *const cols[] = {"startNs", "endNs", "globalTid", "name"};
	int have[4];
	if (!has_table(c, table))
		return;
	sqlite3_stmt *st = prepare_cols(c, table, cols, 4, have, NULL);
	if (st == NULL)
		return;
	if (!have[0] || !have[1] || !have[2]) {
		msg_warn(c->path,
		         "%s: no startNs, endNs or globalTid column; no host lanes from it", table);
		sqlite3_finalize(st);
		return;
	}
	tl_track *last = NULL;
	int64_t last_key = 0;
	size_t bad = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		int64_t s, e;
		/* PYTORCH_API declares its times TEXT; CANN_API INTEGER */
		if (col_time(st, 0, &s) != 0 || col_time(st, 1, &e) != 0 || e < s ||
		    sqlite3_column_type(st, 2) != SQLITE_INTEGER) {
			bad++;
			continue;
		}
		int64_t gtid = sqlite3_column_int64(st, 2);
		int64_t key = TL_HOST_KEY(src_index, gtid, cann);
		if (last == NULL || key != last_key) {
			char label[64];
			snprintf(label, sizeof label, "%s %" PRId64, cann ? "CANN" : "PyTorch",
			         (int64_t)((uint64_t)gtid & 0xffffffffu));
			last = rank_track(c->r, TL_LANE_HOST, key, label);
			last->source = (uint16_t)src_index;
			last_key = key;
		}
		int64_t rowid = sqlite3_column_int64(st, 4);
		track_push(last, s, e, str_id(c, st, 3),
		           rowid < 0 || rowid > UINT32_MAX ? UINT32_MAX : (uint32_t)rowid);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		db_fail(c, table, rc);
	if (bad)
		msg_warn(c->path, "%s: %zu rows without usable times or thread skipped", table,
		         bad);
}

static void
ascend_db_host(const tl_source *src, size_t src_index, tl_rank *r)
{
	db_ctx c;
	if (ctx_open(&c, src, r, "no host API lanes") != 0)
		return;
	u64map_init(&c.strs);
	read_strings(&c);
	if (!c.failed)
		read_host_table(&c, src_index, "PYTORCH_API", 0);
	if (!c.failed)
		read_host_table(&c, src_index, "CANN_API", 1);
	u64map_free(&c.strs);
	profdb_close(&c.pdb);
}

/* A launch per CANN_API connectionId whose TASK rows include compute (COMPUTE_TASK_INFO) or
 * communication (COMMUNICATION_TASK_INFO) tasks: the call's start and the first such task's
 * start. FFTS+ container rows, memcpy and event tasks are in neither table. Three scans joined
 * here in arrays indexed by id (a hash where ids are sparse): SQLite's GROUP BY over the join
 * takes three times as long and a temporary B-tree as large as TASK. */

typedef struct id_index { /* id -> slot: dense below n, else a hash */
	int hashed;
	size_t n;
	tl_u64map h;
} id_index;

static void
id_index_init(id_index *x, int64_t maxid, int64_t rows)
{
	memset(x, 0, sizeof *x);
	x->hashed = maxid >= (int64_t)256 << 20 || maxid > rows * 4 + (int64_t)DENSE_SLACK;
	if (x->hashed)
		u64map_init(&x->h);
	else
		x->n = maxid >= 0 ? (size_t)maxid + 1 : 0;
}

/* The slot of id (dense: id itself; hash: the next free slot when add), or SIZE_MAX. */
static size_t
id_index_slot(id_index *x, int64_t id, int add, size_t *next)
{
	if (id < 0)
		return SIZE_MAX;
	if (!x->hashed)
		return (uint64_t)id < x->n ? (size_t)id : SIZE_MAX;
	uint32_t v;
	if (u64map_get(&x->h, (uint64_t)id, &v))
		return v;
	if (!add || *next >= UINT32_MAX)
		return SIZE_MAX;
	u64map_put(&x->h, (uint64_t)id, (uint32_t)*next);
	return (*next)++;
}

static void
id_index_free(id_index *x)
{
	if (x->hashed)
		u64map_free(&x->h);
}

static int64_t
scalar_or(db_ctx *c, const char *table, const char *what, int64_t def)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT %s FROM %s", what, table);
	return scalar_i64(c, table, sql, def);
}

static void
ascend_db_launches(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n, size_t *cap)
{
	db_ctx c;
	if (ctx_open(&c, src, (tl_rank *)r, "no launch delays") != 0) /* only read */
		return;
	static const char *const work[] = {"COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO"};
	if (!has_table(&c, "CANN_API") || !has_table(&c, "TASK") ||
	    (!has_table(&c, work[0]) && !has_table(&c, work[1]))) {
		profdb_close(&c.pdb);
		return;
	}
	/* globalTaskIds of compute and communication tasks */
	int64_t maxg = -1, grows = 0;
	for (int i = 0; i < 2; i++)
		if (has_table(&c, work[i])) {
			int64_t m = scalar_or(&c, work[i], "max(globalTaskId)", -1);
			maxg = m > maxg ? m : maxg;
			grows += scalar_or(&c, work[i], "count(*)", 0);
		}
	id_index gx;
	id_index_init(&gx, maxg, grows);
	uint8_t *is_work = gx.hashed ? NULL : xcalloc(gx.n ? gx.n : 1, 1);
	size_t gnext = 0;
	sqlite3_stmt *st;
	int rc;
	for (int i = 0; i < 2 && !c.failed; i++) {
		if (!has_table(&c, work[i]))
			continue;
		char sql[96];
		snprintf(sql, sizeof sql, "SELECT globalTaskId FROM %s", work[i]);
		if (db_prepare(&c, sql, &st) != SQLITE_OK) {
			db_fail(&c, work[i], sqlite3_errcode(c.db));
			break;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
				continue;
			size_t k = id_index_slot(&gx, sqlite3_column_int64(st, 0), 1, &gnext);
			if (k != SIZE_MAX && is_work != NULL)
				is_work[k] = 1;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			db_fail(&c, work[i], rc);
	}
	/* the calls: start per connectionId */
	int64_t maxc = scalar_or(&c, "CANN_API", "max(connectionId)", -1);
	id_index cx;
	id_index_init(&cx, maxc, scalar_or(&c, "CANN_API", "count(*)", 0));
	int64_t *call = NULL, *first = NULL; /* per slot: call start, first work start */
	size_t ncall = 0, callcap = 0, cnext = 0;
	if (!cx.hashed && cx.n > 0) {
		ncall = cx.n;
		call = xreallocarray(NULL, ncall, sizeof *call);
		for (size_t i = 0; i < ncall; i++)
			call[i] = INT64_MIN;
	}
	size_t bad = 0;
	if (!c.failed &&
	    db_prepare(&c, "SELECT connectionId, startNs FROM CANN_API", &st) == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
				continue;
			if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
			    !tl_time_ok(sqlite3_column_int64(st, 1))) {
				bad++;
				continue;
			}
			size_t k = id_index_slot(&cx, sqlite3_column_int64(st, 0), 1, &cnext);
			if (k == SIZE_MAX)
				continue;
			int64_t none = INT64_MIN;
			while (cx.hashed && ncall <= k)
				VEC_PUSH(call, ncall, callcap, none);
			call[k] = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			db_fail(&c, "CANN_API", rc);
	} else if (!c.failed) {
		db_fail(&c, "CANN_API", sqlite3_errcode(c.db));
	}
	if (ncall > 0) {
		first = xreallocarray(NULL, ncall, sizeof *first);
		for (size_t i = 0; i < ncall; i++)
			first[i] = INT64_MAX;
	}
	/* the tasks: the first compute or communication task of each call */
	if (!c.failed && ncall > 0 &&
	    db_prepare(&c, "SELECT connectionId, startNs, globalTaskId FROM TASK", &st) ==
	        SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
			    sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
			    sqlite3_column_type(st, 2) != SQLITE_INTEGER)
				continue;
			size_t g = id_index_slot(&gx, sqlite3_column_int64(st, 2), 0, NULL);
			if (g == SIZE_MAX || (is_work != NULL && !is_work[g]))
				continue;
			size_t k = id_index_slot(&cx, sqlite3_column_int64(st, 0), 0, NULL);
			int64_t t = sqlite3_column_int64(st, 1);
			if (k < ncall && call[k] != INT64_MIN && tl_time_ok(t) && t < first[k])
				first[k] = t;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			db_fail(&c, "TASK", rc);
	} else if (!c.failed && ncall > 0) {
		db_fail(&c, "TASK", sqlite3_errcode(c.db));
	}
	for (size_t k = 0; k < ncall; k++)
		if (first[k] != INT64_MAX) {
			tl_launch x = {call[k], first[k]};
			VEC_PUSH(*v, *n, *cap, x);
		}
	if (bad)
		msg_warn(c.path, "CANN_API: %zu calls without a usable start skipped", bad);
	free(call);
	free(first);
	free(is_work);
	id_index_free(&gx);
	id_index_free(&cx);
	profdb_close(&c.pdb);
}

/* ---- counters (on demand): allocator totals, NPU memory, module memory, AI Core frequency ----
 * Each table is a series of samples keyed by a group (a STRING_IDS component or type, a module
 * id); one counter per (value column, group). Memory is in bytes, time in ns, frequency in
 * MHz. */

typedef struct ctr_table {
	const char *table, *time_col, *group_col;
	int group_kind; /* 0: STRING_IDS id, 1: ENUM_MODULE id, 2: no group */
	const char *val_col[3];
	tl_counter_kind kind[3];
	int nval;
	int unordered; /* real writers write it out of time order: sorted without a word */
} ctr_table;

static const ctr_table ctr_tables[] = {
    {.table = "MEMORY_RECORD",
     .time_col = "timestamp",
     .group_col = "component",
     .group_kind = 0,
     .val_col = {"totalAllocated", "totalReserved", "totalActive"},
     .kind = {TL_CTR_ALLOCATED, TL_CTR_RESERVED, TL_CTR_ACTIVE},
     .nval = 3},
    {.table = "NPU_MEM",
     .time_col = "timestampNs",
     .group_col = "type",
     .group_kind = 0,
     .val_col = {"hbm", "ddr"},
     .kind = {TL_CTR_NPU_HBM, TL_CTR_NPU_DDR},
     .nval = 2},
    {.table = "NPU_MODULE_MEM",
     .time_col = "timestampNs",
     .group_col = "moduleId",
     .group_kind = 1,
     .val_col = {"totalReserved"},
     .kind = {TL_CTR_MODULE},
     .nval = 1},
    /* msprof writes the sample taken at the start of collection after the first change (seen
     * in real files) */
    {.table = "AICORE_FREQ",
     .time_col = "timestampNs",
     .group_kind = 2,
     .val_col = {"freq"},
     .kind = {TL_CTR_FREQ},
     .nval = 1,
     .unordered = 1},
};

/* An integer cell: INTEGER, or a REAL holding a whole number (NUMERIC columns). */
static int
col_int(sqlite3_stmt *st, int col, int64_t *out)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		*out = sqlite3_column_int64(st, col);
		return 0;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, col);
		if (!(d >= -9.2e18 && d <= 9.2e18) || d != (double)(int64_t)d)
			return -1;
		*out = (int64_t)d;
		return 0;
	}
	default:
		return -1;
	}
}

static void
read_counter_table(db_ctx *c, size_t src_index, const ctr_table *ct, const tl_u64map *modules)
{
	if (!has_table(c, ct->table))
		return;
	const char *cols[5] = {ct->time_col, ct->group_col ? ct->group_col : ct->time_col};
	for (int i = 0; i < ct->nval; i++)
		cols[2 + i] = ct->val_col[i];
	int have[5];
	sqlite3_stmt *st = prepare_cols(c, ct->table, cols, 2 + ct->nval, have, NULL);
	if (st == NULL)
		return;
	tl_counter *cache[3] = {NULL, NULL, NULL};
	int64_t last_group = INT64_MIN;
	size_t bad = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ctx_rows(c, 1);
		int64_t t;
		if (!have[0] || col_int(st, 0, &t) != 0 || !tl_time_ok(t)) {
			bad++;
			continue;
		}
		int64_t g = 0;
		if (ct->group_kind != 2)
			g = sqlite3_column_type(st, 1) == SQLITE_INTEGER
			        ? sqlite3_column_int64(st, 1)
			        : INT64_MIN + 1;
		if (g != last_group) {
			char name[64] = "";
			const char *gname = name;
			uint32_t m;
			if (ct->group_kind == 0)
				gname = strpool_get(c->r->pool, str_id(c, st, 1));
			else if (ct->group_kind == 1 && u64map_get(modules, (uint64_t)g, &m))
				gname = strpool_get(c->r->pool, m);
			else if (ct->group_kind == 1)
				snprintf(name, sizeof name, "module %" PRId64, g);
			if (*gname == '\0' && ct->group_kind != 2)
				gname = "(none)";
			for (int i = 0; i < ct->nval; i++)
				cache[i] =
				    rank_counter(c->r, ct->kind[i], gname, (uint16_t)src_index);
			last_group = g;
		}
		for (int i = 0; i < ct->nval; i++) {
			int64_t v;
			if (!have[2 + i] || col_int(st, 2 + i, &v) != 0) {
				bad++; /* a NULL size: that value only */
				continue;
			}
			counter_push(cache[i], t, v);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		db_fail(c, ct->table, rc);
	size_t back = 0;
	for (size_t i = 0; i < c->r->ncounters; i++)
		for (int k = 0; k < ct->nval; k++)
			if (c->r->counters[i]->kind == ct->kind[k] &&
			    c->r->counters[i]->source == (uint16_t)src_index)
				back += counter_sort(c->r->counters[i]);
	if (bad)
		msg_warn(c->path, "%s: %zu values without a usable time or number skipped",
		         ct->table, bad);
	if (back && !ct->unordered)
		msg_warn(c->path, "%s: %zu samples out of time order (put in order)", ct->table,
		         back);
}

static void
ascend_db_counters(const tl_source *src, size_t src_index, tl_rank *r)
{
	db_ctx c;
	if (ctx_open(&c, src, r, "no memory or frequency counters") != 0)
		return;
	u64map_init(&c.strs);
	read_strings(&c);
	tl_u64map modules; /* ENUM_MODULE id -> pool id */
	u64map_init(&modules);
	sqlite3_stmt *st;
	if (!c.failed && has_table(&c, "ENUM_MODULE") &&
	    db_prepare(&c, "SELECT id, name FROM ENUM_MODULE", &st) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *v = (const char *)sqlite3_column_text(st, 1);
			if (sqlite3_column_type(st, 0) == SQLITE_INTEGER && v != NULL)
				u64map_put(&modules, (uint64_t)sqlite3_column_int64(st, 0),
				           strpool_intern_cstr(r->pool, v));
		}
		sqlite3_finalize(st);
	}
	for (size_t i = 0; i < sizeof ctr_tables / sizeof *ctr_tables && !c.failed; i++)
		read_counter_table(&c, src_index, &ctr_tables[i], &modules);
	u64map_free(&modules);
	u64map_free(&c.strs);
	profdb_close(&c.pdb);
}

static void
ascend_db_fwdbwd(tl_rank *r, size_t si)
{
	db_state *st = rank_source_state(r, si);
	if (st == NULL) {
		st = xcalloc(1, sizeof *st);
		rank_set_source_state(r, si, st, free);
	}
	if (st->fwdbwd_read)
		return;
	st->fwdbwd_read = 1;
	db_ctx c;
	if (ctx_open(&c, r->sources[si], r, "no forward/backward operator pairs") != 0)
		return;
	read_fwdbwd(&c);
	profdb_close(&c.pdb);
}

/* META_DATA's value of `name` (opened as the loader opens the file), or NULL. */
static char *
ascend_db_meta(const tl_source *src, const char *name)
{
	const char *path = src->path;
	tl_profdb p;
	char err[400], *v = NULL;
	if (profdb_open(&p, path, err, sizeof err) != 0)
		return NULL; /* the load said what is wrong with it */
	sqlite3_stmt *st = NULL;
	if (p.has_meta &&
	    profdb_prepare(&p, "SELECT value FROM META_DATA WHERE name = ?", &st) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT)
			v = xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	profdb_close(&p);
	return v;
}

/* What the checks of profdb_open found that the user should know. */
static void
db_notes(db_ctx *c)
{
	if (c->pdb.wal)
		msg_warn(c->path, "a -wal file lies beside it: the profile is still being written (or "
				  "its writer stopped without closing it); showing what the database "
				  "file holds, which may be incomplete");
	else if (c->pdb.journal)
		msg_warn(c->path, "a -journal file lies beside it: the profile is still being written "
				  "(or its writer stopped mid-write); showing what the database file "
				  "holds, which may be incomplete");
	if (!c->pdb.has_meta)
		msg_warn(c->path, "no META_DATA table: not written by an Ascend profiler as far as tl "
				  "can tell; reading the tables it recognises");
	else if (c->pdb.schema_version[0] != '\0' && strtol(c->pdb.schema_version, NULL, 10) != 1)
		msg_warn(c->path, "META_DATA SCHEMA_VERSION %s is not one tl knows (1.x); reading the "
				  "tables it recognises",
		    c->pdb.schema_version);
}

static int
ascend_db_load(const tl_source *src, tl_rank *r)
{
	db_ctx c;
	if (ctx_open(&c, src, r, "skipped") != 0)
		return -1;
	db_notes(&c);
	u64map_init(&c.strs);
	u64map_init(&c.mstx_conn);
	size_t before = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		before += r->tracks[i]->n;
	/* a hostile or unusable file (c.failed) stops the rest */
	read_rank_id(&c);
	if (!c.failed)
		read_strings(&c);
	if (!c.failed)
		read_steps(&c);
	if (!c.failed)
		read_launches(&c);
	if (!c.failed)
		gt_prepare(&c);
	if (!c.failed)
		read_gt_table(&c, "COMPUTE_TASK_INFO", GT_COMPUTE);
	if (!c.failed)
		read_gt_table(&c, "COMMUNICATION_TASK_INFO", GT_COMM);
	if (!c.failed)
		read_gt_table(&c, "COMMUNICATION_SCHEDULE_TASK_INFO", GT_COMM_SCHED);
	if (!c.failed)
		read_gt_table(&c, "MEMCPY_INFO", GT_MEMCPY);
	if (!c.failed)
		read_mstx(&c);
	if (!c.failed)
		read_tasks(&c);
	if (!c.failed)
		read_comm_ops(&c);
	size_t after = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		after += r->tracks[i]->n;
	msg_progress_add(0, c.rows - c.rows_reported);
	r->rows += c.rows;

	u64map_free(&c.strs);
	if (c.gt_hashed) {
		u64map_free(&c.gt_hclass);
		u64map_free(&c.gt_hname);
	}
	free(c.gt_class);
	free(c.gt_name);
	free(c.steps);
	free(c.conn_step);
	if (c.conn_hashed)
		u64map_free(&c.conn_hstep);
	u64map_free(&c.mstx_conn);
	free(c.mstx);
	profdb_close(&c.pdb);
	if (!c.failed && after == before && c.nsteps == 0) {
		msg_warn(src->path, "no slices found (empty profile?)");
		return -1;
	}
	return c.failed ? -1 : 0;
}

/* Bytes of memory per row, measured with `tl summary` and a scripted `tl view` on generated
 * profiles (2 ranks x 500,000 tasks: 30 and 102 bytes per TASK row), with a margin. The
 * viewer holds more: prefix sums, the overlap and stage lanes, the bubble list. */
#define DB_ROW_SUMMARY 40
#define DB_ROW_VIEW 120

static uint64_t
ascend_db_estimate(const tl_source *src, int view)
{
	return profdb_estimate_rows(src->path) * (uint64_t)(view ? DB_ROW_VIEW : DB_ROW_SUMMARY);
}

/* The model cache keeps whether the operator pairs were read (they are in r->fwdbwd then): one
 * byte, and none while they were not, so that a rank from the cache reads them when asked. */
static void
ascend_db_state_save(const tl_rank *r, size_t si, uint8_t **out, size_t *len)
{
	const db_state *st = rank_source_state(r, si);
	*out = NULL;
	*len = 0;
	if (st == NULL || !st->fwdbwd_read)
		return;
	*out = xmalloc(1);
	(*out)[0] = 1;
	*len = 1;
}

static int
ascend_db_state_restore(tl_rank *r, size_t si, const uint8_t *p, size_t len)
{
	if (len != 1 || p[0] != 1)
		return -1;
	db_state *st = xcalloc(1, sizeof *st);
	st->fwdbwd_read = 1;
	rank_set_source_state(r, si, st, free);
	return 0;
}

const tl_loader loader_ascend_db = {
    .name = "ascend-db",
    .load = ascend_db_load,
    .estimate = ascend_db_estimate,
    .fwdbwd = ascend_db_fwdbwd,
    .args = ascend_db_args,
    .meta = ascend_db_meta,
    .comm = ascend_db_comm_hook,
    .ops = ascend_db_ops,
    .modules = ascend_db_modules,
    .host = ascend_db_host,
    .launches = ascend_db_launches,
    .counters = ascend_db_counters,
    .state_save = ascend_db_state_save,
    .state_restore = ascend_db_state_restore,
};
