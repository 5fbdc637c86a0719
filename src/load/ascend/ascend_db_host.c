/* The DB loader's host hooks, read on demand: PYTORCH_API and CANN_API lanes, and the launches
 * (a CANN call and its first device task) the launch-delay statistics use. */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/msg.h"
#include "util/off32.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- host API lanes and launches (on demand) ------------------------------------------------
 * PYTORCH_API (operators, task-queue Enqueue/Dequeue, Python trace) and CANN_API (acl, node,
 * runtime, hccl calls) become one host lane per thread and table; nesting comes from interval
 * containment when the rank splits the lane into depth levels (neither table stores a depth). */

static void
read_host_table(db_ctx *c, size_t src_index, const char *table, int cann)
{
	/* CANN 7.0's API: times TEXT start/end, ns after TARGET_INFO_SESSION_TIME.baseTimeNs */
	int rel = strcmp(table, "API") == 0;
	static const char *const ns_cols[] = {"startNs", "endNs", "globalTid", "name"};
	static const char *const rel_cols[] = {"start", "end", "globalTid", "name"};
	const char *const *cols = rel ? rel_cols : ns_cols;
	int64_t base = 0;
	if (rel && db_has_table(c, "TARGET_INFO_SESSION_TIME"))
		base = db_scalar_i64(c, "TARGET_INFO_SESSION_TIME",
		                     "SELECT baseTimeNs FROM TARGET_INFO_SESSION_TIME LIMIT 1", 0);
	if (!tl_time_ok(base))
		base = 0;
	int have[4];
	if (!db_has_table(c, table))
		return;
	db_scan st;
	if (db_scan_open(c, &st, table, cols, 4, have) != 0)
		return;
	if (!have[0] || !have[1] || !have[2]) {
		msg_warn(c->path, "%s: no %s, %s or globalTid column; no host lanes from it", table,
		         cols[0], cols[1]);
		db_scan_close(&st);
		return;
	}
	tl_track *last = NULL;
	int64_t last_key = 0;
	size_t bad = 0;
	int rc;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_rows(c, 1);
		int64_t s, e;
		/* PYTORCH_API declares its times TEXT; CANN_API INTEGER */
		db_cell sc = rel ? db_scan_time_from(&st, 0, base) : db_scan_time(&st, 0);
		db_cell ec = rel ? db_scan_time_from(&st, 1, base) : db_scan_time(&st, 1);
		s = sc.v;
		e = ec.v;
		if (sc.type != SQLITE_INTEGER || ec.type != SQLITE_INTEGER || !tl_time_ok(s) ||
		    !tl_time_ok(e) || e < s || db_scan_cell(&st, 2).type != SQLITE_INTEGER) {
			bad++;
			continue;
		}
		int64_t gtid = db_scan_cell(&st, 2).v;
		int64_t key = TL_HOST_KEY(src_index, gtid, cann);
		if (last == NULL || key != last_key) {
			char label[64];
			snprintf(label, sizeof label, "%s %" PRId64, cann ? "CANN" : "PyTorch",
			         (int64_t)((uint64_t)gtid & 0xffffffffu));
			last = rank_track(c->r, TL_LANE_HOST, key, label);
			last->source = (uint16_t)src_index;
			last_key = key;
		}
		int64_t rowid = db_scan_cell(&st, 4).v;
		track_push(last, s, e, db_scan_str(&st, 3),
		           rowid < 0 || rowid > UINT32_MAX ? UINT32_MAX : (uint32_t)rowid);
	}
	db_scan_close(&st);
	if (rc != SQLITE_DONE)
		db_fail(c, table, rc);
	if (bad)
		msg_warn(c->path, "%s: %zu rows without usable times or thread skipped", table,
		         bad);
	db_report_refs(c, table);
}

void
ascend_db_host(const tl_source *src, size_t src_index, tl_rank *r)
{
	db_ctx c;
	if (db_open(&c, src, r, "no host API lanes") != 0)
		return;
	u64map_init(&c.strs);
	db_read_strings(&c);
	if (!c.failed)
		read_host_table(&c, src_index, "PYTORCH_API", 0);
	if (!c.failed)
		read_host_table(&c, src_index, "CANN_API", 1);
	if (!c.failed && !db_has_table(&c, "CANN_API"))
		read_host_table(&c, src_index, "API", 1); /* CANN 7.0's report DB */
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

/* Whether the row count changes id_index_init's choice for ids up to maxid: not below
 * DENSE_SLACK (dense whatever the rows) nor from 256 M (hashed): a count walks every page of
 * the table (12 ms of 1 M rows). */
static int
count_decides(int64_t maxid)
{
	return maxid > (int64_t)DENSE_SLACK && maxid < (int64_t)256 << 20;
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
	return db_scalar_i64(c, table, sql, def);
}

/* A scan of columns the table must each have: a missing one fails as a SELECT naming it would
 * ("no such column"), said once. */
static int
scan_cols(db_ctx *c, db_scan *st, const char *table, const char *const *cols, int n)
{
	int have[3];
	if (db_scan_open(c, st, table, cols, n, have) != 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (!have[i]) {
			db_scan_close(st);
			snprintf(c->why, sizeof c->why, "no such column: %s", cols[i]);
			return db_fail(c, table, SQLITE_ERROR);
		}
	return 0;
}

/* A DB's launches as read: the calls that launched work, in connectionId order, 12 bytes each
 * (tl_launch_rec); a call whose first work starts 2^31 ns or more from it has delay REC_WIDE and
 * its device start in wide, in the same order. */
typedef struct calls {
	tl_launch_rec *v;
	size_t n;
	int64_t *wide;
	size_t nwide;
	size_t bad; /* CANN_API rows without a usable startNs */
} calls;
#define REC_WIDE OFF32_WIDE
_Static_assert(TL_LAUNCH_REC_NONE == OFF32_NONE, "a record's delay is an off32 offset");

/* The globalTaskIds of compute and communication tasks into gx (a bit an id in *is_work when
 * dense). */
static void
read_work_ids(db_ctx *c, id_index *gx, uint8_t **is_work)
{
	static const char *const work[] = {"COMPUTE_TASK_INFO", "COMMUNICATION_TASK_INFO"};
	int64_t maxg = -1, grows = 0;
	for (int i = 0; i < 2; i++)
		if (db_has_table(c, work[i])) {
			int64_t m = db_int_max(c, work[i], "globalTaskId", -1);
			maxg = m > maxg ? m : maxg;
		}
	for (int i = 0; i < 2 && count_decides(maxg); i++)
		if (db_has_table(c, work[i]))
			grows += scalar_or(c, work[i], "count(*)", 0);
	id_index_init(gx, maxg, grows);
	*is_work = gx->hashed ? NULL : xcalloc(gx->n / 8 + 1, 1);
	size_t gnext = 0;
	db_scan st;
	int rc;
	static const char *const gcol[] = {"globalTaskId"};
	for (int i = 0; i < 2 && !c->failed; i++) {
		if (!db_has_table(c, work[i]))
			continue;
		if (scan_cols(c, &st, work[i], gcol, 1) != 0)
			break;
		while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
			db_cell g = db_scan_cell(&st, 0);
			if (g.type != SQLITE_INTEGER)
				continue;
			size_t k = id_index_slot(gx, g.v, 1, &gnext);
			if (k != SIZE_MAX && *is_work != NULL)
				(*is_work)[k >> 3] |= (uint8_t)(1u << (k & 7));
		}
		db_scan_close(&st);
		if (rc != SQLITE_DONE)
			db_fail(c, work[i], rc);
	}
}

/* The first compute or communication task of each call (slots of cx) into its record. */
static void
read_first_tasks(db_ctx *c, id_index *gx, const uint8_t *is_work, id_index *cx, tl_launch_rec *call,
                 size_t ncall, off32_wide *ws)
{
	db_scan st;
	int rc;
	static const char *const tcols[] = {"connectionId", "startNs", "globalTaskId"};
	if (c->failed || ncall == 0 || scan_cols(c, &st, "TASK", tcols, 3) != 0)
		return;
	while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
		db_cell cc = db_scan_cell(&st, 0), gc = db_scan_cell(&st, 2);
		db_cell t1 = db_scan_time(&st, 1); /* as the load reads it */
		if (cc.type != SQLITE_INTEGER || t1.type != SQLITE_INTEGER ||
		    gc.type != SQLITE_INTEGER)
			continue;
		size_t g = id_index_slot(gx, gc.v, 0, NULL);
		if (g == SIZE_MAX || (is_work != NULL && !(is_work[g >> 3] >> (g & 7) & 1)))
			continue;
		size_t k = id_index_slot(cx, cc.v, 0, NULL);
		int64_t t = t1.v;
		if (k < ncall && launch_rec_host(&call[k]) != INT64_MIN && tl_time_ok(t) &&
		    t < off32_get(call[k].delay, launch_rec_host(&call[k]), ws, k))
			off32_set(&call[k].delay, launch_rec_host(&call[k]), t, ws, k);
	}
	db_scan_close(&st);
	if (rc != SQLITE_DONE)
		db_fail(c, "TASK", rc);
}

/* The calls of src that launched work into *out (see calls): per connectionId slot the call's
 * start and its first work task's start as an offset from it, 12 bytes a call at the read's
 * top rather than a tl_launch's 16, then those with work moved down in place. */
static void
read_calls(const tl_source *src, const tl_rank *r, calls *out)
{
	memset(out, 0, sizeof *out);
	db_ctx c;
	if (db_open(&c, src, (tl_rank *)r, "no launch delays") != 0) /* only read */
		return;
	if (!db_has_table(&c, "CANN_API") || !db_has_table(&c, "TASK") ||
	    (!db_has_table(&c, "COMPUTE_TASK_INFO") &&
	     !db_has_table(&c, "COMMUNICATION_TASK_INFO"))) {
		profdb_close(&c.pdb);
		return;
	}
	id_index gx;
	uint8_t *is_work;
	read_work_ids(&c, &gx, &is_work);
	int64_t maxc = db_int_max(&c, "CANN_API", "connectionId", -1);
	id_index cx;
	id_index_init(&cx, maxc,
	              count_decides(maxc) ? scalar_or(&c, "CANN_API", "count(*)", 0) : 0);
	tl_launch_rec none = {0, 0, TL_LAUNCH_REC_NONE};
	launch_rec_set_host(&none, INT64_MIN);
	tl_launch_rec *call = NULL;
	size_t ncall = 0, callcap = 0, cnext = 0;
	if (!cx.hashed && cx.n > 0) {
		ncall = callcap = cx.n;
		call = xreallocarray(NULL, ncall, sizeof *call);
		for (size_t i = 0; i < ncall; i++)
			call[i] = none;
	}
	db_scan st;
	int rc;
	static const char *const ccols[] = {"connectionId", "startNs"};
	if (!c.failed && scan_cols(&c, &st, "CANN_API", ccols, 2) == 0) {
		while ((rc = db_scan_step(&st)) == SQLITE_ROW) {
			db_cell cc = db_scan_cell(&st, 0), sc = db_scan_time(&st, 1);
			if (cc.type != SQLITE_INTEGER)
				continue;
			int64_t start = sc.v;
			if (sc.type != SQLITE_INTEGER || !tl_time_ok(start)) {
				out->bad++;
				continue;
			}
			size_t k = id_index_slot(&cx, cc.v, 1, &cnext);
			if (k == SIZE_MAX)
				continue;
			while (cx.hashed && ncall <= k)
				VEC_PUSH(call, ncall, callcap, none);
			launch_rec_set_host(&call[k], start);
		}
		db_scan_close(&st);
		if (rc != SQLITE_DONE)
			db_fail(&c, "CANN_API", rc);
	}
	off32_wide ws;
	off32_wide_init(&ws);
	read_first_tasks(&c, &gx, is_work, &cx, call, ncall, &ws);
	size_t w = 0, wcap = 0; /* the calls that launched work, in connectionId order */
	for (size_t k = 0; k < ncall; k++) {
		if (call[k].delay == TL_LAUNCH_REC_NONE)
			continue;
		int64_t t;
		if (call[k].delay == REC_WIDE && !off32_wide_get(&ws, k, &t))
			continue; /* more than 2^32 of them: none */
		if (call[k].delay == REC_WIDE)
			VEC_PUSH(out->wide, out->nwide, wcap, t);
		call[w++] = call[k];
	}
	if (w > 0) {
		out->v = xreallocarray(call, w, sizeof *call); /* shrunk to them */
	} else {
		free(call);
	}
	out->n = w;
	off32_wide_free(&ws);
	free(is_work);
	id_index_free(&gx);
	id_index_free(&cx);
	profdb_close(&c.pdb);
}

static void
warn_bad(const tl_source *src, size_t bad)
{
	if (bad) /* as the load says it */
		msg_warn(src->path, "CANN_API: %zu calls without a usable startNs skipped", bad);
}

/* cl's launches as tl_launch (NULL: none), made in the records' own memory: grown to 16 bytes
 * a launch and filled from the last down (launch k's 16 bytes lie past record j < k's 12), as
 * the gather's (ascend_db_gather.c): the launches are never held twice. */
static tl_launch *
calls_launches(calls *cl)
{
	size_t w = cl->n, iw = cl->nwide;
	tl_launch *l = NULL;
	if (w > 0)
		l = xreallocarray(cl->v, w, sizeof *l);
	else
		free(cl->v);
	for (size_t k = w; k-- > 0;) {
		tl_launch_rec x;
		memcpy(&x, (const char *)l + k * sizeof x, sizeof x);
		int64_t h = launch_rec_host(&x);
		tl_launch y = {h, x.delay == REC_WIDE ? cl->wide[--iw] : h + x.delay};
		memcpy(&l[k], &y, sizeof y);
	}
	free(cl->wide);
	memset(cl, 0, sizeof *cl);
	return l;
}

void
ascend_db_launches(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n, size_t *cap)
{
	calls cl;
	read_calls(src, r, &cl);
	warn_bad(src, cl.bad);
	size_t w = cl.n;
	tl_launch *l = calls_launches(&cl);
	if (w == 0)
		return;
	if (*v == NULL) {
		*v = l;
		*n = *cap = w;
		return;
	}
	for (size_t k = 0; k < w; k++)
		VEC_PUSH(*v, *n, *cap, l[k]);
	free(l);
}

int
ascend_db_launch_recs(const tl_source *src, const tl_rank *r, tl_launch_rec **v, size_t *n,
                      tl_launch **l)
{
	calls cl;
	read_calls(src, r, &cl);
	warn_bad(src, cl.bad);
	*n = cl.n;
	if (cl.nwide > 0) { /* a delay of 2^31 ns or more: as tl_launch, from the same read */
		*l = calls_launches(&cl);
		return 1;
	}
	*v = cl.v;
	return 0;
}
