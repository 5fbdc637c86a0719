/* The Ascend unified DB loader: ascend_pytorch_profiler_{r}.db, msprof_*.db and
 * ascend_mindspore_profiler_{r}.db (one schema: msprof's tables, torch_npu adds its own).
 * Opens read-only, binds columns by name, treats every table as optional. */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TL_INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */
#define MSTX_CONN_MIN 4000000000LL  /* mstx connectionIds: mark_id + 4000000001 */

enum gt_class { GT_NONE, GT_COMPUTE, GT_COMM, GT_COMM_SCHED, GT_MEMCPY };

/* ---- tables ---------------------------------------------------------------------------- */
static int
read_steps(db_ctx *c)
{
	if (!db_has_table(c, "STEP_TIME"))
		return 0;
	static const char *const cols[] = {"id", "startNs", "endNs"};
	int have[3];
	db_scan st;
	if (db_scan_open(c, &st, "STEP_TIME", cols, 3, have) != 0)
		return -1;
	size_t cap = 0, bad = 0;
	int rc;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_cell id = db_scan_cell(&st, 0), sc = db_scan_time(&st, 1),
		        ec = db_scan_time(&st, 2);
		if (sc.type != SQLITE_INTEGER || ec.type != SQLITE_INTEGER ||
		    (id.type != SQLITE_INTEGER && id.type != SQLITE_NULL)) {
			bad++; /* NULL, or no integer (a step id shown as 0 would lie) */
			continue;
		}
		tl_step s = {id.v, sc.v, ec.v};
		if (s.end < s.start || !tl_time_ok(s.start) || !tl_time_ok(s.end)) {
			bad++;
			continue;
		}
		VEC_PUSH(c->steps, c->nsteps, cap, s);
	}
	db_scan_close(&st);
	if (bad)
		msg_warn(c->path,
		         "STEP_TIME: %zu rows with a NULL time, a cell that is not an integer, "
		         "an end before the start or a time out of range skipped",
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
	int steps = c->nsteps >= 2; /* else only the launches asked for read it */
	if ((!steps && !c->gather.launches) || !db_has_table(c, "CANN_API"))
		return 0;
	int64_t maxc = db_int_max(c, "CANN_API", "connectionId", -1);
	if (maxc < 0 || c->failed)
		return 0;
	/* a dense array while the ids are about as many as the rows (a crafted file with one
	 * huge id must not make tl allocate for every id below it) */
	int64_t rows = 0; /* a count walks every page: asked only where it decides */
	if (maxc > (int64_t)DENSE_SLACK && maxc < (int64_t)256 << 20)
		rows = db_scalar_i64(c, "CANN_API", "SELECT count(*) FROM CANN_API", 0);
	dbg_calls(&c->gather, maxc, rows);
	/* the calls' starts the gather keeps say the steps (step_of_work): no table of its own */
	c->conn_from_gather = c->gather.launches;
	c->conn_hashed = (uint64_t)maxc >= (uint64_t)256 << 20 ||
	                 (uint64_t)maxc > (uint64_t)rows * 4 + DENSE_SLACK;
	if (c->conn_hashed && !c->conn_from_gather)
		u64map_init(&c->conn_hstep);
	else if (!c->conn_from_gather) {
		c->conn_n = (size_t)maxc + 1;
		c->conn_step = xmalloc(c->conn_n * sizeof *c->conn_step);
		memset(c->conn_step, 0xff, c->conn_n * sizeof *c->conn_step);
	}
	static const char *const cols[] = {"connectionId", "startNs"};
	int have[2];
	db_scan st;
	if (db_scan_open(c, &st, "CANN_API", cols, 2, have) != 0)
		return -1;
	size_t bad = 0;
	int rc;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		db_cell cc = db_scan_cell(&st, 0), sc = db_scan_time(&st, 1);
		dbg_call(&c->gather, cc, sc);
		if (cc.type != SQLITE_INTEGER)
			continue;
		int64_t conn = cc.v;
		if (sc.type != SQLITE_INTEGER || !tl_time_ok(sc.v)) {
			bad++; /* its work takes the step of its own start */
			continue;
		}
		if (!steps || c->conn_from_gather)
			continue;
		uint16_t s = step_at(c, sc.v);
		if (conn < 0)
			continue;
		if (c->conn_hashed)
			u64map_put(&c->conn_hstep, (uint64_t)conn, s);
		else if ((uint64_t)conn < c->conn_n)
			c->conn_step[conn] = s;
	}
	db_scan_close(&st);
	c->have_conn_steps = steps;
	if (bad) /* the launch reader's line too (ascend_db_host.c): said once */
		msg_warn(c->path, "CANN_API: %zu calls without a usable startNs skipped", bad);
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
		if (c->conn_from_gather) {
			int64_t h = dbg_call_host(&c->gather, conn);
			uint16_t s = h != INT64_MIN ? step_at(c, h) : TL_NO_STEP;
			if (s != TL_NO_STEP)
				return s;
		} else if (c->conn_hashed) {
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

/* A dense entry: the class in the top bits, the name below (0: no class) */
#define GT_NAME_BITS 29
#define GT_NAME_MASK ((UINT32_C(1) << GT_NAME_BITS) - 1)

/* The dense table as hash maps (a name past GT_NAME_BITS: a pool of half a billion strings) */
static void
gt_hash(db_ctx *c)
{
	u64map_init(&c->gt_hclass);
	u64map_init(&c->gt_hname);
	for (size_t i = 0; i < c->gt_n; i++)
		if (c->gt_ent[i] >> GT_NAME_BITS != GT_NONE) {
			u64map_put(&c->gt_hclass, i, c->gt_ent[i] >> GT_NAME_BITS);
			u64map_put(&c->gt_hname, i, c->gt_ent[i] & GT_NAME_MASK);
		}
	free(c->gt_ent);
	c->gt_ent = NULL;
	c->gt_n = 0;
	c->gt_hashed = 1;
}

static void
gt_set(db_ctx *c, int64_t gt, uint8_t cls, uint32_t name)
{
	if (gt < 0)
		return;
	if (!c->gt_hashed && (uint64_t)gt < c->gt_n && name > GT_NAME_MASK)
		gt_hash(c);
	if (c->gt_hashed) {
		uint32_t old;
		if (u64map_get(&c->gt_hclass, (uint64_t)gt, &old) && old == GT_COMPUTE)
			return; /* compute wins (first rule) */
		u64map_put(&c->gt_hclass, (uint64_t)gt, cls);
		u64map_put(&c->gt_hname, (uint64_t)gt, name);
	} else if ((uint64_t)gt < c->gt_n) {
		if (c->gt_ent[gt] >> GT_NAME_BITS == GT_COMPUTE)
			return;
		c->gt_ent[gt] = (uint32_t)cls << GT_NAME_BITS | name;
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
	uint32_t x = c->gt_ent[gt];
	if (x >> GT_NAME_BITS != GT_NONE)
		*name = x & GT_NAME_MASK;
	return (uint8_t)(x >> GT_NAME_BITS);
}

static void
gt_prepare(db_ctx *c)
{
	int64_t maxg = -1, rows = 0;
	static const char *const info[] = {"COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO",
	                                   "COMMUNICATION_SCHEDULE_TASK_INFO", "MEMCPY_INFO"};
	/* two statements, not one: alone, max() of an indexed column (globalTaskId is
	 * COMPUTE_TASK_INFO's primary key and indexed in the others) is one index lookup and
	 * count(*) counts the table's pages without reading its rows; together they were a scan
	 * of every row. The counts only where they decide: ids up to DENSE_SLACK are dense
	 * whatever the rows (a count walks every page of the table: 12 ms of 1 M rows) */
	unsigned char failed[sizeof info / sizeof *info] = {0};
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < sizeof info / sizeof *info; i++) {
			if (!db_has_table(c, info[i]) || failed[i] ||
			    (k == 1 && maxg <= (int64_t)DENSE_SLACK))
				continue;
			char sql[128];
			if (k == 0)
				snprintf(sql, sizeof sql, "SELECT max(%s) FROM %s", c->gt_col,
				         info[i]);
			else
				snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", info[i]);
			sqlite3_stmt *st;
			if (db_prepare(c, sql, &st) != SQLITE_OK) {
				db_fail(c, info[i], sqlite3_errcode(c->db));
				failed[i] = 1;
				continue;
			}
			int rc = sqlite3_step(st);
			if (rc == SQLITE_ROW) {
				int64_t m = sqlite3_column_int64(st, 0);
				if (k == 0 && sqlite3_column_type(st, 0) !=
				                  SQLITE_INTEGER) /* NULL, or 'x' ranked first */
					m = sqlite3_column_type(st, 0) == SQLITE_NULL
					        ? -1
					        : db_int_max(c, info[i], c->gt_col, -1);
				if (k == 0 && m > maxg)
					maxg = m;
				if (k == 1)
					rows += m;
			}
			sqlite3_finalize(st);
			if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
				db_fail(c, info[i], rc);
				failed[i] = 1;
			}
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
	c->gt_ent = xcalloc(c->gt_n, sizeof *c->gt_ent);
}

static int
read_gt_table(db_ctx *c, const char *table, uint8_t cls)
{
	if (!db_has_table(c, table))
		return 0;
	/* compute/schedule kernels are named by `name`; HCCL sub-tasks by their task type
	 * (Memcpy, Notify_Wait, ...) falling back to the op name at Level0 ('N/A'). */
	const char *const cols[] = {c->gt_col, "name", "taskType", "opType", "inputShapes"};
	int have[5];
	int ops = cls == GT_COMPUTE && c->gather.ops != NULL; /* the operators' columns too */
	int work = cls == GT_COMPUTE || cls == GT_COMM;       /* launched work */
	db_scan st;
	if (db_scan_open(c, &st, table, cols, cls == GT_MEMCPY ? 1 : ops ? 5 : 3, have) != 0)
		return -1;
	uint32_t na = strpool_intern_cstr(c->r->pool, "N/A");
	uint32_t memcpy_name = strpool_intern_cstr(c->r->pool, "MEMCPY_ASYNC");
	int rc;
	size_t bad = 0;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		db_cell gc = db_scan_cell(&st, 0);
		if (gc.type != SQLITE_INTEGER) {
			bad += gc.type != SQLITE_NULL; /* no id: no task of it can be found */
			continue;
		}
		int64_t gt = gc.v;
		db_cell nc = cls != GT_MEMCPY ? db_scan_cell(&st, 1) : gc;
		if (ops) { /* name, op type, task type, shapes */
			db_cell str[4] = {nc, db_scan_cell(&st, 3), db_scan_cell(&st, 2),
			                  db_scan_cell(&st, 4)};
			dbg_compute(&c->gather, gt, str);
		}
		if (work)
			dbg_work(&c->gather, gt);
		uint32_t name;
		if (cls == GT_MEMCPY) {
			name = memcpy_name;
		} else if (cls == GT_COMM) {
			name = db_scan_str(&st, 2);
			if (name == 0 || name == na)
				name = db_str_id_cell(c, nc);
		} else {
			name = db_str_id_cell(c, nc);
		}
		gt_set(c, gt, cls, name);
	}
	db_scan_close(&st);
	if (bad)
		msg_warn(c->path, "%s: %zu rows with a %s that is not an integer skipped", table,
		         bad, c->gt_col);
	db_report_refs(c, table);
	if (rc != SQLITE_DONE)
		return db_fail(c, table, rc);
	return 0;
}

/* ---- row times ------------------------------------------------------------------------------
 * Every slice table is checked the same way: a NULL, out-of-range or backwards time skips the
 * row, counted, and each kind is said once per table after the scan. */

typedef struct row_check {
	size_t nulls, backwards, range;
	size_t bad;           /* a time, or an id cell the reader needs, that is no integer */
	const char *bad_cols; /* the cells bad counts (NULL: the NULL ones) */
} row_check;

/* The start and end of the row in columns cs and ce; a NULL end is the start when
 * end_optional (MSTX marks). Returns 0 for a usable row. */
static int
cell_times(row_check *k, db_cell sc, db_cell ec, int end_optional, int64_t *s, int64_t *e)
{
	int end_null = ec.type == SQLITE_NULL;
	if (sc.type == SQLITE_NULL || (end_null && !end_optional)) {
		k->nulls++;
		return -1;
	}
	if (sc.type != SQLITE_INTEGER || (!end_null && ec.type != SQLITE_INTEGER)) {
		k->bad++; /* TEXT that is no decimal integer, REAL, BLOB: never 0 */
		return -1;
	}
	*s = sc.v;
	*e = end_null ? *s : ec.v;
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

static int
row_times(row_check *k, db_scan *st, int cs, int ce, int end_optional, int64_t *s, int64_t *e)
{
	return cell_times(k, db_scan_time(st, cs), db_scan_time(st, ce), end_optional, s, e);
}

static void
row_check_report(db_ctx *c, const char *table, const char *null_cols, const row_check *k)
{
	if (k->nulls)
		msg_warn(c->path, "%s: %zu rows with a NULL %s skipped", table, k->nulls,
		         null_cols);
	if (k->bad)
		msg_warn(c->path, "%s: %zu rows with a %s that is not an integer skipped", table,
		         k->bad, k->bad_cols ? k->bad_cols : null_cols);
	if (k->backwards)
		msg_warn(c->path, "%s: %zu rows end before they start; skipped", table,
		         k->backwards);
	if (k->range)
		msg_warn(c->path, "%s: %zu rows with a time out of range; skipped", table,
		         k->range);
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
	if (!db_has_table(c, "MSTX_EVENTS"))
		return 0;
	static const char *const cols[] = {"startNs", "endNs",    "eventType",
	                                   "message", "domainId", "connectionId"};
	int have[6];
	db_scan st;
	if (db_scan_open(c, &st, "MSTX_EVENTS", cols, 6, have) != 0)
		return -1;
	row_check k = {.bad_cols = "startNs or endNs"};
	int rc;
	tl_track *last = NULL;
	uint32_t last_dom = UINT32_MAX;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		int64_t s, e;
		if (row_times(&k, &st, 0, 1, 1, &s, &e) != 0)
			continue;
		uint32_t msg = db_scan_str(&st, 3);
		uint32_t dom = db_scan_str(&st, 4);
		if (last == NULL || dom != last_dom) {
			const char *dn = strpool_get(c->r->pool, dom);
			last = rank_track(c->r, TL_LANE_MSTX, dom, *dn ? dn : "default");
			last_dom = dom;
		}
		track_push(last, s, e, msg, (uint32_t)db_scan_cell(&st, 6).v);
		db_cell cc = db_scan_cell(&st, 5); /* no INTEGER: no device part to link */
		if (cc.type == SQLITE_INTEGER && c->nmstx < UINT32_MAX) {
			int64_t conn = cc.v;
			if (conn > MSTX_CONN_MIN && conn != TL_INVALID_U32) {
				mstx_link l = {.t = last,
				               .k = last->n - 1,
				               .msg = msg,
				               .s = INT64_MAX,
				               .e = INT64_MIN};
				u64map_put(&c->mstx_conn, (uint64_t)conn, (uint32_t)c->nmstx);
				VEC_PUSH(c->mstx, c->nmstx, c->mstxcap, l);
			}
		}
	}
	db_scan_close(&st);
	row_check_report(c, "MSTX_EVENTS", "startNs", &k);
	db_report_refs(c, "MSTX_EVENTS");
	if (rc != SQLITE_DONE)
		return db_fail(c, "MSTX_EVENTS", rc);
	return 0;
}

/* ---- communication ops of a DB without COMMUNICATION_OP (CANN 7.0) ---------------------------
 * COMMUNICATION_OP's startNs/endNs are the span of the op's sub-tasks, first start to last end
 * (ascend-format: "device-side span of the op"); a report DB of CANN 7.0 has the sub-tasks
 * alone, each naming its op (COMMUNICATION_TASK_INFO.opId), the op's name (name) and its group
 * (groupName). The ops are made so from the TASK rows of their sub-tasks. */

typedef struct db_op {
	uint32_t name, group; /* pool ids */
	int64_t s, e;         /* s > e: no task of it read yet */
	uint32_t rowid;       /* TASK rowid of its first sub-task read */
} db_op;

static void
read_op_parts(db_ctx *c)
{
	static const char *const want[] = {"opId", "name", "groupName"};
	const char *const cols[] = {c->gt_col, want[0], want[1], want[2]};
	int have[4];
	db_scan st;
	if (db_scan_open(c, &st, "COMMUNICATION_TASK_INFO", cols, 4, have) != 0)
		return;
	int rc;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		db_cell gc = db_scan_cell(&st, 0), oc = db_scan_cell(&st, 1);
		if (gc.type != SQLITE_INTEGER || oc.type != SQLITE_INTEGER)
			continue; /* (read_gt_table counts the keys that are no integer) */
		uint32_t ix;
		if (!u64map_get(&c->op_index, (uint64_t)oc.v, &ix)) {
			if (c->nops >= UINT32_MAX - 1)
				continue;
			db_op o = {db_scan_str(&st, 2), db_scan_str(&st, 3), INT64_MAX, INT64_MIN,
			           0};
			ix = (uint32_t)c->nops;
			VEC_PUSH(c->ops, c->nops, c->opcap, o);
			u64map_put(&c->op_index, (uint64_t)oc.v, ix);
		}
		u64map_put(&c->op_of_task, (uint64_t)gc.v, ix);
	}
	db_scan_close(&st);
	db_report_refs(c, "COMMUNICATION_TASK_INFO");
	if (rc != SQLITE_DONE)
		db_fail(c, "COMMUNICATION_TASK_INFO", rc);
}

static void
op_extend(db_ctx *c, int64_t key, int64_t s, int64_t e, uint32_t rowid)
{
	uint32_t ix;
	if (key < 0 || !u64map_get(&c->op_of_task, (uint64_t)key, &ix) || ix >= c->nops)
		return;
	db_op *o = &c->ops[ix];
	if (o->s > o->e)
		o->rowid = rowid;
	o->s = s < o->s ? s : o->s;
	o->e = e > o->e ? e : o->e;
}

static void
push_derived_ops(db_ctx *c)
{
	for (size_t i = 0; i < c->nops; i++) {
		const db_op *o = &c->ops[i];
		if (o->s > o->e)
			continue; /* no sub-task of it on the device */
		const char *gname = strpool_get(c->r->pool, o->group);
		tl_track *t =
		    rank_track(c->r, TL_LANE_COMM, o->group, *gname ? gname : "(no group)");
		track_push_step(t, o->s, o->e, o->name, o->rowid, step_of_work(c, -1, o->s));
	}
}

/* ---- TASK ------------------------------------------------------------------------------- */

typedef struct stream_cache {
	int64_t key;
	tl_lane_kind kind;
	tl_track *t;
} stream_cache;

static tl_track *
task_track(db_ctx *c, stream_cache **cache, size_t *n, size_t *cap, tl_lane_kind kind, int64_t dev,
           int64_t stream)
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
	return ((uint64_t)dev << 48) ^ ((uint64_t)(stream & 0xffff) << 32) ^
	       (uint64_t)(task & 0xffffffff);
}

/* One row of TASK, its cells checked. */
typedef struct task_row {
	int64_t s, e, dev, stream, gt, conn;
	uint32_t ttype, rowid;
} task_row;

/* The lane kind and name of a task, from its globalTaskId's class, else its type. Returns 1
 * when the row is the device marker of an MSTX host range instead (merged into the range,
 * drawn by mstx_device_parts), else 0. */
static int
task_lane(db_ctx *c, const task_row *x, uint32_t ty_mstx, uint32_t ty_memcpy, uint32_t *name,
          tl_lane_kind *kind)
{
	switch (gt_get(c, x->gt, name)) {
	case GT_COMPUTE:
		*kind = TL_LANE_COMPUTE;
		break;
	case GT_COMM:
		if (c->derive_ops)
			op_extend(c, x->gt, x->s, x->e, x->rowid);
		*kind = TL_LANE_COMM_TASK;
		break;
	case GT_COMM_SCHED:
		*kind = TL_LANE_COMM_TASK;
		break;
	case GT_MEMCPY:
		*kind = TL_LANE_MEMCPY;
		*name = x->ttype;
		break;
	default:
		*name = x->ttype;
		uint32_t li;
		if (x->conn > MSTX_CONN_MIN && u64map_get(&c->mstx_conn, (uint64_t)x->conn, &li)) {
			/* a marker of a host range: merged, drawn below */
			mstx_link *l = &c->mstx[li];
			if (l->s > l->e) {
				l->dev = x->dev;
				l->stream = x->stream;
				l->rowid = x->rowid;
			}
			l->s = x->s < l->s ? x->s : l->s;
			l->e = x->e > l->e ? x->e : l->e;
			return 1;
		}
		if (x->ttype == ty_mstx && ty_mstx != UINT32_MAX)
			*kind = TL_LANE_MSTX_DEV;
		else if (x->ttype == ty_memcpy && ty_memcpy != UINT32_MAX)
			*kind = TL_LANE_MEMCPY;
		else
			*kind = TL_LANE_OTHER;
	}
	return 0;
}

/* The device part of each range that has one: on its host row, and as one slice of the
 * device lane named by the decoded message. */
static void
mstx_device_parts(db_ctx *c, stream_cache **cache, size_t *ncache, size_t *ccap)
{
	for (size_t i = 0; i < c->nmstx; i++) {
		mstx_link *l = &c->mstx[i];
		if (l->s > l->e)
			continue;
		track_set_dev(l->t, l->k, l->s, l->e);
		char label[300];
		mstx_msg_label(strpool_get(c->r->pool, l->msg), strpool_len(c->r->pool, l->msg),
		               label, sizeof label);
		tl_track *t =
		    task_track(c, cache, ncache, ccap, TL_LANE_MSTX_DEV, l->dev, l->stream);
		track_push(t, l->s, l->e, strpool_intern_cstr(c->r->pool, label), l->rowid);
	}
}

/* Hide FFTS+ container rows (the candidates whose key has sub-tasks, children): they would
 * double-count their sub-tasks. */
static void
hide_ffts_containers(const tl_u64map *children, const ffts_cand *cand, size_t ncand,
                     const stream_cache *cache, size_t ncache)
{
	if (children->n == 0 || ncand == 0)
		return;
	tl_u64map hide;
	u64map_init(&hide);
	size_t nhide = 0;
	for (size_t i = 0; i < ncand; i++)
		if (u64map_get(children, cand[i].key, NULL)) {
			u64map_put(&hide, cand[i].rowid, 1);
			nhide++;
		}
	for (size_t i = 0; nhide && i < ncache; i++) {
		tl_track *t = cache[i].t;
		if (cache[i].kind != TL_LANE_OTHER)
			continue;
		size_t w = 0;
		for (size_t k = 0; k < t->n; k++) {
			if (u64map_get(&hide, track_arg(t, k), NULL))
				continue;
			if (w != k) { /* field by field: the slice's layout is the track's */
				track_set_times(t, w, t->v[k].start, track_end(t, k));
				track_set_arg(t, w, track_arg(t, k));
				t->v[w].name = t->v[k].name;
			}
			w++;
		}
		t->n = w;
	}
	u64map_free(&hide);
}

static int
read_tasks(db_ctx *c)
{
	if (!db_has_table(c, "TASK")) {
		msg_warn(c->path, "no TASK table: no device data in this profile");
		return 0;
	}
	const char *const cols[] = {c->t_start, c->t_end,    "deviceId", "streamId",    c->gt_col,
	                            "taskType", "contextId", "taskId",   "connectionId"};
	int have[9];
	db_scan st;
	if (db_scan_open(c, &st, "TASK", cols, 9, have) != 0)
		return -1;
	uint32_t ty_mstx = strpool_find(c->r->pool, "MsTx", 4);
	uint32_t ty_memcpy = strpool_find(c->r->pool, "MEMCPY_ASYNC", 12);
	stream_cache *cache = NULL;
	size_t ncache = 0, ccap = 0;
	ffts_cand *cand = NULL;
	size_t ncand = 0, candcap = 0;
	tl_u64map children;
	u64map_init(&children);
	char bad_cols[128];
	snprintf(bad_cols, sizeof bad_cols, "%s, %s, deviceId, streamId, %s or connectionId",
	         c->t_start, c->t_end, c->gt_col);
	row_check bad = {.bad_cols = bad_cols};
	int rc;
	int gather = c->gather.ops != NULL || c->gather.launches;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		db_cell sc =
		    c->rel_times ? db_scan_time_from(&st, 0, c->time_base) : db_scan_time(&st, 0);
		db_cell ec =
		    c->rel_times ? db_scan_time_from(&st, 1, c->time_base) : db_scan_time(&st, 1);
		db_cell gc = db_scan_cell(&st, 4), cc = db_scan_cell(&st, 8);
		if (gather)
			dbg_task(&c->gather, sc, ec, gc, cc);
		int64_t s, e;
		if (cell_times(&bad, sc, ec, 0, &s, &e) != 0)
			continue;
		/* the lane (device, stream) and the class (globalTaskId, connectionId) of the task:
		 * a NULL id (or a column the table lacks) is none, device and stream 0; a cell that
		 * is no integer would put it on a lane or in a class it may not be of */
		db_cell dc = db_scan_cell(&st, 2), stc = db_scan_cell(&st, 3);
		if ((dc.type != SQLITE_INTEGER && dc.type != SQLITE_NULL) ||
		    (stc.type != SQLITE_INTEGER && stc.type != SQLITE_NULL) ||
		    (gc.type != SQLITE_INTEGER && gc.type != SQLITE_NULL) ||
		    (cc.type != SQLITE_INTEGER && cc.type != SQLITE_NULL)) {
			bad.bad++;
			continue;
		}
		int64_t dev = dc.v;
		int64_t stream = stc.v;
		int64_t gt = gc.type == SQLITE_NULL ? -1 : gc.v;
		uint32_t ttype = db_scan_str(&st, 5);
		/* a contextId or taskId that is no integer: the row takes no part in hiding the
		 * FFTS+ containers (neither a sub-task nor a container) */
		db_cell xc = db_scan_cell(&st, 6), tc = db_scan_cell(&st, 7);
		int ffts =
		    have[6] && have[7] && xc.type == SQLITE_INTEGER && tc.type == SQLITE_INTEGER;
		int64_t ctxid = ffts ? xc.v : TL_INVALID_U32;
		int64_t conn = cc.type == SQLITE_NULL ? -1 : cc.v;
		uint32_t rowid = (uint32_t)db_scan_cell(&st, 9).v;
		uint32_t name = ttype;
		tl_lane_kind kind;
		task_row x = {s, e, dev, stream, gt, conn, ttype, rowid};
		if (task_lane(c, &x, ty_mstx, ty_memcpy, &name, &kind) != 0)
			continue; /* a marker of a host range: merged, drawn below */
		if (name == 0)
			name = ttype;
		tl_track *t = task_track(c, &cache, &ncache, &ccap, kind, dev, stream);
		if (kind == TL_LANE_COMPUTE || kind == TL_LANE_COMM_TASK)
			track_push_step(t, s, e, name, rowid, step_of_work(c, conn, s));
		else
			track_push(t, s, e, name, rowid);
		if (ffts) {
			int64_t task = tc.v;
			if (ctxid != TL_INVALID_U32)
				u64map_put(&children, ffts_key(dev, stream, task), 1);
			else if (kind == TL_LANE_OTHER) {
				ffts_cand fc = {ffts_key(dev, stream, task), t, rowid};
				VEC_PUSH(cand, ncand, candcap, fc);
			}
		}
	}
	db_scan_close(&st);
	if (rc != SQLITE_DONE)
		db_fail(c, "TASK", rc);
	char null_cols[64];
	snprintf(null_cols, sizeof null_cols, "%s/%s", c->t_start, c->t_end);
	row_check_report(c, "TASK", null_cols, &bad);
	db_report_refs(c, "TASK");

	mstx_device_parts(c, &cache, &ncache, &ccap);
	hide_ffts_containers(&children, cand, ncand, cache, ncache);
	u64map_free(&children);
	free(cand);
	free(cache);
	return 0;
}

/* ---- COMMUNICATION_OP ------------------------------------------------------------------- */

static int
read_comm_ops(db_ctx *c)
{
	if (!db_has_table(c, "COMMUNICATION_OP"))
		return 0;
	static const char *const cols[] = {"opName", "startNs", "endNs", "connectionId",
	                                   "groupName"};
	int have[5];
	db_scan st;
	if (db_scan_open(c, &st, "COMMUNICATION_OP", cols, 5, have) != 0)
		return -1;
	row_check k = {.bad_cols = "startNs, endNs or connectionId"};
	int rc;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		int64_t s, e;
		if (row_times(&k, &st, 1, 2, 0, &s, &e) != 0)
			continue;
		db_cell cc = db_scan_cell(&st, 3);
		if (cc.type != SQLITE_INTEGER && cc.type != SQLITE_NULL) {
			k.bad++; /* its step would be a guess */
			continue;
		}
		int64_t conn = cc.type == SQLITE_NULL ? -1 : cc.v;
		uint32_t group = db_scan_str(&st, 4);
		const char *gname = strpool_get(c->r->pool, group);
		tl_track *t = rank_track(c->r, TL_LANE_COMM, group, *gname ? gname : "(no group)");
		track_push_step(t, s, e, db_scan_str(&st, 0), (uint32_t)db_scan_cell(&st, 5).v,
		                step_of_work(c, conn, s));
	}
	db_scan_close(&st);
	row_check_report(c, "COMMUNICATION_OP", "startNs/endNs", &k);
	db_report_refs(c, "COMMUNICATION_OP");
	if (rc != SQLITE_DONE)
		return db_fail(c, "COMMUNICATION_OP", rc);
	return 0;
}

/* ---- OVERLAP_ANALYSIS ---------------------------------------------------------------------
 * MindStudio Insight writes its overlap analysis into the DBs it opens (msprof of 2026 writes
 * the same table itself, its types named in ENUM_OVERLAY_ANALYSIS_TYPE): per device, intervals
 * of type 0 Computing, 1 Communication, 2 Communication(Not Overlapped) and 3 Free, Free spanning
 * from the device's first task to its last (not only between busy times). Where the DB has it, it
 * is the profile's own answer, as a trace_view.json's Overlap Analysis process is: the rank's
 * overlap lanes are its rows (each type's union), and the overlap figures come from them
 * (rank->own_overlap). */

typedef struct ivl {
	int64_t s, e;
} ivl;

static int
cmp_ivl(const void *a, const void *b)
{
	const ivl *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

static void
read_overlap_table(db_ctx *c)
{
	static const char *const names[4] = {"Computing", "Communication",
	                                     "Communication(Not Overlapped)", "Free"};
	if (!db_has_table(c, "OVERLAP_ANALYSIS"))
		return;
	if (c->r->own_overlap < 0) {
		msg_warn(c->path,
		         "OVERLAP_ANALYSIS not used: the rank has other captures too, and tl "
		         "computes the overlap of all of their work");
		return;
	}
	for (size_t i = 0; i < c->r->ntracks; i++)
		if (c->r->tracks[i]->kind == TL_LANE_OVERLAP)
			return; /* another source of the rank gave them */
	/* the device: the table's only one, else TASK's only one */
	int64_t lo = db_scalar_i64(c, "OVERLAP_ANALYSIS",
	                           "SELECT min(deviceId) FROM OVERLAP_ANALYSIS", INT64_MIN);
	int64_t hi = db_scalar_i64(c, "OVERLAP_ANALYSIS",
	                           "SELECT max(deviceId) FROM OVERLAP_ANALYSIS", INT64_MIN);
	if (lo == INT64_MIN || c->failed)
		return; /* no rows (or no integer device) */
	int64_t dev = lo;
	if (lo != hi) {
		int64_t tlo = db_scalar_i64(c, "TASK", "SELECT min(deviceId) FROM TASK", INT64_MIN);
		int64_t thi = db_scalar_i64(c, "TASK", "SELECT max(deviceId) FROM TASK", INT64_MAX);
		if (tlo != thi) {
			msg_warn(c->path,
			         "OVERLAP_ANALYSIS covers several devices and so does TASK: its "
			         "overlap not used, tl computes its own");
			return;
		}
		dev = tlo;
	}
	/* msprof's variant names its types in ENUM_OVERLAY_ANALYSIS_TYPE (enum values drift:
	 * read from the file); Insight's has none and uses 0-3 */
	int64_t ids[4] = {0, 1, 2, 3};
	if (db_has_table(c, "ENUM_OVERLAY_ANALYSIS_TYPE")) {
		static const char *const enames[4] = {"COMPUTE", "COMMUNICATION",
		                                      "COMM_NOT_OVERLAP_COMP", "FREE"};
		sqlite3_stmt *es;
		for (int t = 0; t < 4; t++)
			ids[t] = -1;
		if (db_prepare(c, "SELECT id, name FROM ENUM_OVERLAY_ANALYSIS_TYPE", &es) ==
		    SQLITE_OK) {
			while (sqlite3_step(es) == SQLITE_ROW) {
				const char *nm = (const char *)sqlite3_column_text(es, 1);
				for (int t = 0; t < 4 && nm != NULL; t++)
					if (sqlite3_column_type(es, 0) == SQLITE_INTEGER &&
					    strcmp(nm, enames[t]) == 0)
						ids[t] = sqlite3_column_int64(es, 0);
			}
			sqlite3_finalize(es);
		}
	}
	static const char *const cols[] = {"deviceId", "startNs", "endNs", "type"};
	int have[4];
	db_scan st;
	if (db_scan_open(c, &st, "OVERLAP_ANALYSIS", cols, 4, have) != 0)
		return;
	ivl *v[4] = {NULL};
	size_t n[4] = {0}, cap[4] = {0}, badtype = 0;
	row_check k = {.bad_cols = "startNs or endNs"};
	int rc;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		db_cell dc = db_scan_cell(&st, 0), tc = db_scan_cell(&st, 3);
		if (dc.type != SQLITE_INTEGER || dc.v != dev)
			continue;
		int64_t s, e;
		if (row_times(&k, &st, 1, 2, 0, &s, &e) != 0)
			continue;
		int ty = -1;
		for (int t = 0; t < 4 && tc.type == SQLITE_INTEGER; t++)
			if (tc.v == ids[t])
				ty = t;
		if (ty < 0) {
			badtype++;
			continue;
		}
		ivl x = {s, e};
		VEC_PUSH(v[ty], n[ty], cap[ty], x);
	}
	db_scan_close(&st);
	row_check_report(c, "OVERLAP_ANALYSIS", "startNs/endNs", &k);
	if (badtype)
		msg_warn(c->path,
		         "OVERLAP_ANALYSIS: %zu rows of a type other than Computing, "
		         "Communication, Communication(Not Overlapped) and Free skipped",
		         badtype);
	if (rc != SQLITE_DONE) {
		db_fail(c, "OVERLAP_ANALYSIS", rc);
	} else if (n[0] + n[1] + n[2] + n[3] > 0) {
		for (int t = 0; t < 4; t++) {
			if (n[t] == 0)
				continue;
			qsort(v[t], n[t], sizeof *v[t], cmp_ivl);
			tl_track *tr = rank_track(c->r, TL_LANE_OVERLAP, t, names[t]);
			uint32_t ord = 0;
			int64_t cs = v[t][0].s, ce = v[t][0].e;
			for (size_t i = 1; i <= n[t]; i++) {
				if (i < n[t] && v[t][i].s <= ce) {
					if (v[t][i].e > ce)
						ce = v[t][i].e;
					continue;
				}
				track_push(tr, cs, ce, tr->label, ord++);
				if (i < n[t]) {
					cs = v[t][i].s;
					ce = v[t][i].e;
				}
			}
		}
		c->r->own_overlap = 1;
	}
	for (int t = 0; t < 4; t++)
		free(v[t]);
}

static void
read_rank_id(db_ctx *c)
{
	if (c->r->rank >= 0 || !db_has_table(c, "RANK_DEVICE_MAP"))
		return;
	int64_t r =
	    db_scalar_i64(c, "RANK_DEVICE_MAP",
	                  "SELECT rankId FROM RANK_DEVICE_MAP WHERE typeof(rankId) = 'integer' AND "
	                  "rankId >= 0 LIMIT 1",
	                  -1);
	if (r >= 0 && r < 1000000)
		c->r->rank = (int)r;
}

/* What the checks of profdb_open found that the user should know. */
static void
db_notes(db_ctx *c)
{
	if (c->pdb.wal)
		msg_warn(c->path,
		         "a -wal file lies beside it: the profile is still being written (or "
		         "its writer stopped without closing it); showing what the database "
		         "file holds, which may be incomplete");
	else if (c->pdb.journal)
		msg_warn(c->path,
		         "a -journal file lies beside it: the profile is still being written "
		         "(or its writer stopped mid-write); showing what the database file "
		         "holds, which may be incomplete");
	/* msprof's own export DBs carry no META_DATA (torch_npu and MindSpore add it), CANN
	 * 7.0's report DBs neither: their session tables say who wrote them */
	static const char *const msprof_tables[] = {
	    "NPU_INFO",        "SESSION_TIME_INFO", "TARGET_INFO_NPU", "TARGET_INFO_SESSION_TIME",
	    "RANK_DEVICE_MAP", "HOST_INFO",         "ENUM_API_TYPE",   "ENUM_API_LEVEL"};
	int msprof = 0;
	for (size_t i = 0; i < sizeof msprof_tables / sizeof *msprof_tables; i++)
		msprof |= db_has_table(c, msprof_tables[i]);
	if (!c->pdb.has_meta && !msprof)
		msg_warn(c->path,
		         "neither META_DATA nor msprof's session tables (NPU_INFO, "
		         "SESSION_TIME_INFO, TARGET_INFO_*): reading the tables tl recognises");
	else if (c->pdb.schema_version[0] != '\0' && strtol(c->pdb.schema_version, NULL, 10) != 1)
		msg_warn(c->path,
		         "META_DATA SCHEMA_VERSION %s is not one tl knows (1.x); reading the "
		         "tables it recognises",
		         c->pdb.schema_version);
}

/* Whether table has column col. */
static int
has_column(db_ctx *c, const char *table, const char *col)
{
	int have = 0;
	return db_has_table(c, table) && db_table_columns(c, table, &col, 1, &have) > 0 && have;
}

/* Which generation of the schema the DB is: the task key, TASK's time columns and their clock
 * (ascend_db_int.h, CANN 7.0). */
static void
read_layout(db_ctx *c, int full)
{
	c->gt_col = "globalTaskId";
	c->t_start = "startNs";
	c->t_end = "endNs";
	if (!db_has_table(c, "TASK"))
		return;
	if (!has_column(c, "TASK", "globalTaskId") && has_column(c, "TASK", "correlationId"))
		c->gt_col = "correlationId";
	if (!has_column(c, "TASK", "startNs") && has_column(c, "TASK", "start")) {
		c->t_start = "start";
		c->t_end = "end";
		c->rel_times = 1;
		c->time_base = INT64_MIN;
		if (has_column(c, "TARGET_INFO_SESSION_TIME", "baseTimeNs"))
			c->time_base = db_scalar_i64(
			    c, "TARGET_INFO_SESSION_TIME",
			    "SELECT baseTimeNs FROM TARGET_INFO_SESSION_TIME LIMIT 1", INT64_MIN);
		if (!tl_time_ok(c->time_base)) {
			if (full)
				msg_warn(
				    c->path,
				    "TASK's times count from TARGET_INFO_SESSION_TIME.baseTimeNs, "
				    "which it lacks (or is no integer): shown as counted from 0");
			c->time_base = 0;
		}
	}
	c->derive_ops = !db_has_table(c, "COMMUNICATION_OP") &&
	                has_column(c, "COMMUNICATION_TASK_INFO", "opId") &&
	                has_column(c, "COMMUNICATION_TASK_INFO", c->gt_col);
}

/* What the full read and the preview both begin with: the file opened (-1 when it cannot be)
 * and its rank id, strings and steps read; the full read (full) also says what the checks of
 * the file found and reads its metadata. A hostile or unusable file (c->failed) stops the
 * rest; db_end closes either way. */
static int
db_begin(db_ctx *c, const tl_source *src, tl_rank *r, int full)
{
	if (db_open(c, src, r, "skipped") != 0)
		return -1;
	if (full) {
		db_notes(c);
		db_state *ds = db_state_of(r, r->nsources - 1); /* src is the rank's last */
		if (!ds->meta_read) {
			ds->dist_args = meta_value(&c->pdb, DIST_ARGS);
			ds->meta_read = 1;
		}
		if (r->host == NULL) /* the ranks of one host share its clock (load_clock) */
			r->host = profdb_host(&c->pdb);
	}
	u64map_init(&c->strs);
	u64map_init(&c->mstx_conn);
	u64map_init(&c->op_index);
	u64map_init(&c->op_of_task);
	read_layout(c, full);
	read_rank_id(c);
	if (!c->failed)
		db_read_strings(c);
	if (!c->failed)
		read_steps(c);
	return 0;
}

static void
db_end(db_ctx *c)
{
	u64map_free(&c->strs);
	free(c->steps);
	u64map_free(&c->mstx_conn);
	free(c->mstx);
	u64map_free(&c->op_index);
	u64map_free(&c->op_of_task);
	free(c->ops);
	profdb_close(&c->pdb);
}

static int
ascend_db_load(const tl_source *src, tl_rank *r, tl_gather *g)
{
	size_t before = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		before += r->tracks[i]->n;
	db_ctx c;
	if (db_begin(&c, src, r, 1) != 0)
		return -1;
	if (!c.failed)
		gt_prepare(&c);
	if (!c.failed && g != NULL) {
		/* what the on-demand readers need (ascend_db_ops.c, ascend_db_launches) */
		int ops = db_has_table(&c, "COMPUTE_TASK_INFO") && db_has_table(&c, "TASK") &&
		          db_has_table(&c, "STRING_IDS") &&
		          has_column(&c, "COMPUTE_TASK_INFO", "globalTaskId");
		int launches = db_has_table(&c, "CANN_API") && db_has_table(&c, "TASK") &&
		               (db_has_table(&c, "COMPUTE_TASK_INFO") ||
		                db_has_table(&c, "COMMUNICATION_TASK_INFO"));
		dbg_init(&c.gather, r, g, &c.strs, ops, launches, (int64_t)c.gt_n - 1,
		         !c.gt_hashed);
	}
	if (!c.failed)
		read_launches(&c);
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
	if (!c.failed && c.derive_ops)
		read_op_parts(&c);
	if (!c.failed)
		read_tasks(&c);
	if (!c.failed)
		read_comm_ops(&c);
	if (!c.failed && c.derive_ops)
		push_derived_ops(&c);
	if (!c.failed)
		read_overlap_table(&c);
	size_t after = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		after += r->tracks[i]->n;
	msg_progress_add(0, c.rows - c.rows_reported);
	r->rows += c.rows;
	/* the tasks' tables first: the gather's launches are made next (launches_to) */
	if (c.gt_hashed) {
		u64map_free(&c.gt_hclass);
		u64map_free(&c.gt_hname);
	}
	free(c.gt_ent);
	free(c.conn_step);
	if (c.conn_hashed && !c.conn_from_gather)
		u64map_free(&c.conn_hstep);
	if (g != NULL)
		dbg_finish(&c.gather, src->path, c.failed);
	db_end(&c);
	if (!c.failed && after == before && c.nsteps == 0) {
		msg_warn(src->path, "no slices found (empty profile?)");
		return -1;
	}
	return c.failed ? -1 : 0;
}

/* The small tables only, for the viewer's first frame: what read_tasks needs (the globalTaskId
 * classes, the launches) is not read, so a communication op takes its step from its device
 * time (step_of_work's fallback) and MSTX ranges get no device part. */
static int
ascend_db_preview(const tl_source *src, tl_rank *r)
{
	db_ctx c;
	if (db_begin(&c, src, r, 0) != 0)
		return -1;
	if (!c.failed)
		read_mstx(&c);
	if (!c.failed)
		read_comm_ops(&c);
	int any = c.nsteps > 0;
	for (size_t i = 0; i < r->ntracks; i++)
		any |= r->tracks[i]->n > 0;
	db_end(&c);
	return !c.failed && any ? 0 : -1;
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

const tl_loader loader_ascend_db = {
    .name = "ascend-db",
    .gathers = TL_TABLE_OPS | TL_TABLE_LAUNCHES,
    .args_read = 1u << TL_LANE_OTHER, /* hide_ffts_containers */
    .load = ascend_db_load,
    .preview = ascend_db_preview,
    .estimate = ascend_db_estimate,
    .fwdbwd = ascend_db_fwdbwd,
    .args = ascend_db_args,
    .meta = ascend_db_meta,
    .comm = ascend_db_comm_hook,
    .ops = ascend_db_ops,
    .modules = ascend_db_modules,
    .host = ascend_db_host,
    .launches = ascend_db_launches,
    .launch_recs = ascend_db_launch_recs,
    .links = ascend_db_link_ends,
    .counters = ascend_db_counters,
    .link_index = ascend_db_link_index,
    .link_index_free = ascend_db_link_index_free,
    .launcher = ascend_db_launcher,
    .kernels = ascend_db_kernels,
    .stack = ascend_db_stack,
    .allocations = ascend_db_allocations,
    .state_save = ascend_db_state_save,
    .state_restore = ascend_db_state_restore,
};
