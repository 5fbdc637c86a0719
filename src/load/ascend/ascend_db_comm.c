/* Communication ops and their HCCL sub-tasks from a profile DB, read on demand for the
 * communication analysis: COMMUNICATION_OP, COMMUNICATION_TASK_INFO and the TASK rows of the
 * sub-tasks (their device times), with STRING_IDS and the ENUM_HCCL_* tables for names. Opened
 * through the hardened connection (profdb.c) like the loader itself. */
#include "config.h"
#include "load/ascend/ascend_db_gather.h"
#include "load/load_int.h"
#include "load/ascend/profdb.h"
#include "util/msg.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */

/* ENUM_HCCL_TRANSPORT_TYPE and ENUM_HCCL_LINK_TYPE ids as CANN 8 writes them, for a DB without
 * the enum tables (the names, when present, decide). */
#define TRANSPORT_RDMA_ID 1
#define LINK_HCCS_ID 1
#define LINK_PCIE_ID 2
#define LINK_ROCE_ID 3
#define LINK_SIO_ID 4
#define LINK_HCCS_SW_ID 5
#define LINK_STANDARD_ROCE_ID 6

typedef struct comm_rd {
	tl_profdb pdb;
	const char *path;
	int failed;
} comm_rd;

static int
col_present(comm_rd *c, const char *table, const char *col)
{
	char sql[160];
	sqlite3_stmt *st = NULL;
	int found = 0;
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	if (profdb_prepare(&c->pdb, sql, &st) != SQLITE_OK)
		return 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const char *n = (const char *)sqlite3_column_text(st, 1);
		found = n != NULL && strcmp(n, col) == 0;
	}
	sqlite3_finalize(st);
	return found;
}

static void
comm_fail(comm_rd *c, const char *what, int rc)
{
	char m[400];
	if (c->failed)
		return;
	c->failed = 1;
	msg_warn(c->path, "%s: %s; no communication analysis for it", what,
	         profdb_errmsg(&c->pdb, rc, m, sizeof m));
}

static uint32_t
col_str(tl_comm_data *d, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return s == NULL ? 0 : strpool_intern_cstr(d->pool, (const char *)s);
}

static int64_t
col_rank(sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return -1;
	int64_t v = sqlite3_column_int64(st, col);
	return v < 0 || v >= INVALID_U32 ? -1 : v;
}

/* A sub-task's kind from its HCCL task type name. */
static uint8_t
task_kind(const char *t)
{
	if (t == NULL)
		return TL_CTASK_OTHER;
	if (strcmp(t, "Notify_Wait") == 0)
		return TL_CTASK_WAIT;
	if (strcmp(t, "Memcpy") == 0 || strcmp(t, "Reduce_Inline") == 0 ||
	    strcmp(t, "Reduce_TBE") == 0 || strcmp(t, "RDMASend") == 0 ||
	    strcmp(t, "RDMA_SEND") == 0)
		return TL_CTASK_TRANSFER;
	return TL_CTASK_OTHER;
}

/* The link of a transfer between two ranks, from the transport and link type (names when the
 * DB has the enum tables, else CANN 8's ids). */
static uint8_t
task_xport(sqlite3_stmt *st, int ctrans, int clink, int ctrans_name, int clink_name)
{
	const char *tn = (const char *)sqlite3_column_text(st, ctrans_name);
	const char *ln = (const char *)sqlite3_column_text(st, clink_name);
	/* a NULL id is none (-1), not id 0 */
	int64_t ti = sqlite3_column_type(st, ctrans) == SQLITE_INTEGER
	                 ? sqlite3_column_int64(st, ctrans)
	                 : -1,
	        li = sqlite3_column_type(st, clink) == SQLITE_INTEGER
	                 ? sqlite3_column_int64(st, clink)
	                 : -1;
	if (tn != NULL ? strcmp(tn, "RDMA") == 0 : ti == TRANSPORT_RDMA_ID)
		return TL_XPORT_RDMA;
	if (ln != NULL) {
		if (strcmp(ln, "HCCS") == 0 || strcmp(ln, "HCCS_SW") == 0)
			return TL_XPORT_HCCS;
		if (strcmp(ln, "PCIE") == 0)
			return TL_XPORT_PCIE;
		if (strcmp(ln, "SIO") == 0)
			return TL_XPORT_SIO;
		if (strcmp(ln, "ROCE") == 0 || strcmp(ln, "STANDARD_ROCE") == 0)
			return TL_XPORT_RDMA;
		return TL_XPORT_SDMA;
	}
	if (li == LINK_HCCS_ID || li == LINK_HCCS_SW_ID)
		return TL_XPORT_HCCS;
	if (li == LINK_PCIE_ID)
		return TL_XPORT_PCIE;
	if (li == LINK_SIO_ID)
		return TL_XPORT_SIO;
	if (li == LINK_ROCE_ID || li == LINK_STANDARD_ROCE_ID)
		return TL_XPORT_RDMA;
	return TL_XPORT_SDMA;
}

static void
read_ops(comm_rd *c, tl_comm_data *d, uint16_t source, tl_u64map *by_id)
{
	int has_type = col_present(c, "COMMUNICATION_OP", "opType");
	char sql[512];
	snprintf(sql, sizeof sql,
	         "SELECT o.opId, n.value, o.startNs, o.endNs, g.value, %s FROM COMMUNICATION_OP o "
	         "LEFT JOIN STRING_IDS n ON n.id = o.opName LEFT JOIN STRING_IDS g ON g.id = "
	         "o.groupName%s",
	         has_type ? "t.value" : "NULL",
	         has_type ? " LEFT JOIN STRING_IDS t ON t.id = o.opType" : "");
	sqlite3_stmt *st;
	int rc = profdb_prepare(&c->pdb, sql, &st);
	if (rc != SQLITE_OK) {
		comm_fail(c, "COMMUNICATION_OP", sqlite3_errcode(c->pdb.db));
		return;
	}
	size_t bad = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tl_comm_op o = {0};
		/* the times as the timeline reads them (db_time_at); its line of
		 * COMMUNICATION_OP says the rows without usable ones */
		db_cell sc = db_time_at(st, 2), ec = db_time_at(st, 3);
		o.start = sc.v;
		o.end = ec.v;
		if (sc.type != SQLITE_INTEGER || ec.type != SQLITE_INTEGER ||
		    !tl_time_ok(o.start) || !tl_time_ok(o.end) || o.end < o.start)
			continue;
		o.id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    u64map_get(by_id, (uint64_t)o.id, NULL) || d->nops >= UINT32_MAX) {
			bad++;
			continue;
		}
		o.name = col_str(d, st, 1);
		o.group = col_str(d, st, 4);
		o.type = col_str(d, st, 5);
		o.source = source;
		u64map_put(by_id, (uint64_t)o.id, (uint32_t)d->nops);
		VEC_PUSH(d->ops, d->nops, d->opcap, o);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		comm_fail(c, "COMMUNICATION_OP", rc);
	if (bad)
		msg_warn(c->path,
		         "COMMUNICATION_OP: %zu rows without a usable opId (not an integer, or "
		         "repeated) left out of the communication analysis",
		         bad);
}

/* Whether TASK has an index led by startNs (torch_npu's TaskIndex (startNs, globalTaskId)), so
 * that a range of start times is a range search, not a scan. */
static int
task_start_index(comm_rd *c)
{
	sqlite3_stmt *st = NULL;
	int found = 0;
	if (profdb_prepare(
	        &c->pdb, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'TASK'",
	        &st) != SQLITE_OK)
		return 0;
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const char *q = (const char *)sqlite3_column_text(st, 0);
		const char *p = q ? strchr(q, '(') : NULL;
		if (p == NULL)
			continue;
		for (p++; *p == ' ' || *p == '"' || *p == '`' || *p == '['; p++)
			;
		found = strncmp(p, "startNs", 7) == 0 && strchr(" ,)\"`]", p[7]) != NULL;
	}
	sqlite3_finalize(st);
	return found;
}

typedef struct span {
	int64_t t0, t1;
} span;

static int
cmp_span(const void *a, const void *b)
{
	const span *x = a, *y = b;
	return (x->t0 > y->t0) - (x->t0 < y->t0);
}

/* Reads the rows of a prepared sub-task statement; returns the rows seen (-1 on failure). */
static int64_t
task_rows(comm_rd *c, sqlite3_stmt *st, tl_comm_data *d, const tl_u64map *by_id, size_t **owner,
          size_t *ocap, size_t *bad)
{
	int rc;
	int64_t seen = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		seen++;
		uint32_t op;
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    !u64map_get(by_id, (uint64_t)sqlite3_column_int64(st, 0), &op))
			continue; /* a sub-task of no op read */
		tl_comm_task t = {0};
		db_cell sc = db_time_at(st, 8), ec = db_time_at(st, 9);
		/* ids and the size: INTEGER or NULL (none); anything else is no number, and a
		 * rank or size taken as 0 or none would move bytes between the wrong ranks */
		int ids_ok = 1;
		for (int i = 2; i <= 7; i++) {
			int ty = sqlite3_column_type(st, i);
			ids_ok &= ty == SQLITE_INTEGER || ty == SQLITE_NULL;
		}
		t.start = sc.v;
		t.end = ec.v;
		if (sc.type != SQLITE_INTEGER || ec.type != SQLITE_INTEGER ||
		    !tl_time_ok(t.start) || !tl_time_ok(t.end) || t.end < t.start)
			continue; /* TASK's line of the load says it */
		if (!ids_ok) {
			(*bad)++;
			continue;
		}
		t.kind = task_kind((const char *)sqlite3_column_text(st, 1));
		t.plane =
		    sqlite3_column_type(st, 2) == SQLITE_INTEGER ? sqlite3_column_int64(st, 2) : -1;
		if (t.plane < 0 || t.plane >= INVALID_U32)
			t.plane = -1;
		t.src = col_rank(st, 3);
		t.dst = col_rank(st, 4);
		/* -1 (Level0 writes it for its N/A tasks) or NULL: no size known */
		int64_t size = sqlite3_column_int64(st, 6);
		t.size = size > 0 ? (uint64_t)size : 0;
		if (t.dst < 0 || t.dst == t.src)
			t.xport = TL_XPORT_LOCAL;
		else
			t.xport = task_xport(st, 5, 7, 10, 11);
		VEC_RESERVE(*owner, *ocap, d->ntasks + 1);
		(*owner)[d->ntasks] = op;
		VEC_PUSH(d->tasks, d->ntasks, d->taskcap, t);
	}
	if (rc != SQLITE_DONE) {
		comm_fail(c, "COMMUNICATION_TASK_INFO", rc);
		return -1;
	}
	return seen;
}

/* The sub-tasks of ops[first .. d->nops) with their TASK times. TASK holds every device task
 * (millions) and has no index on globalTaskId, so joining it whole is a scan of all of it. A
 * sub-task runs inside its op, so where the ops cover less than half of the capture and TASK
 * has its start-time index, only the tasks starting inside the (merged) op intervals are
 * joined; if that finds fewer sub-tasks than COMMUNICATION_TASK_INFO holds (a sub-task outside
 * its op), the whole table is read after all. */
static void
read_tasks(comm_rd *c, tl_comm_data *d, size_t first, const tl_u64map *by_id, size_t **owner,
           size_t *ocap)
{
	static const char *const need[] = {"globalTaskId", "taskType", "planeId",
	                                   "srcRank",      "dstRank",  "transportType",
	                                   "size",         "linkType", "opId"};
	if (!profdb_has(&c->pdb, "COMMUNICATION_TASK_INFO") || !profdb_has(&c->pdb, "TASK"))
		return;
	for (size_t i = 0; i < sizeof need / sizeof *need; i++)
		if (!col_present(c, "COMMUNICATION_TASK_INFO", need[i])) {
			msg_warn(c->path,
			         "COMMUNICATION_TASK_INFO has no %s column: communication "
			         "ops without sub-task times",
			         need[i]);
			return;
		}
	int enum_t = profdb_has(&c->pdb, "ENUM_HCCL_TRANSPORT_TYPE");
	int enum_l = profdb_has(&c->pdb, "ENUM_HCCL_LINK_TYPE");
	char sql[1024];
	int n = snprintf(
	    sql, sizeof sql,
	    "SELECT c.opId, k.value, c.planeId, c.srcRank, c.dstRank, c.transportType, c.size, "
	    "c.linkType, t.startNs, t.endNs, %s, %s FROM TASK t JOIN COMMUNICATION_TASK_INFO c ON "
	    "c.globalTaskId = t.globalTaskId LEFT JOIN STRING_IDS k ON k.id = c.taskType%s%s",
	    enum_t ? "et.name" : "NULL", enum_l ? "el.name" : "NULL",
	    enum_t ? " LEFT JOIN ENUM_HCCL_TRANSPORT_TYPE et ON et.id = c.transportType" : "",
	    enum_l ? " LEFT JOIN ENUM_HCCL_LINK_TYPE el ON el.id = c.linkType" : "");
	size_t bad = 0;

	/* the op intervals, merged */
	span *sp = xreallocarray(NULL, d->nops - first, sizeof *sp);
	size_t ns = 0;
	for (size_t i = first; i < d->nops; i++)
		sp[ns++] = (span){d->ops[i].start, d->ops[i].end};
	qsort(sp, ns, sizeof *sp, cmp_span);
	size_t m = 0;
	uint64_t cover = 0; /* merged intervals do not overlap: at most hi - lo < 2^63 */
	for (size_t i = 0; i < ns; i++) {
		if (m > 0 && sp[i].t0 <= sp[m - 1].t1) {
			if (sp[i].t1 > sp[m - 1].t1)
				sp[m - 1].t1 = sp[i].t1;
		} else {
			sp[m++] = sp[i];
		}
	}
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t i = 0; i < m; i++) {
		cover += (uint64_t)(sp[i].t1 - sp[i].t0);
		lo = sp[i].t0 < lo ? sp[i].t0 : lo;
		hi = sp[i].t1 > hi ? sp[i].t1 : hi;
	}
	int done = 0;
	if (m > 0 && cover < (uint64_t)(hi - lo) / 2 && task_start_index(c)) {
		int64_t total = -1, seen = 0;
		sqlite3_stmt *st;
		if (profdb_prepare(&c->pdb, "SELECT count(*) FROM COMMUNICATION_TASK_INFO", &st) ==
		    SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				total = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
		snprintf(sql + n, sizeof sql - (size_t)n,
		         " WHERE t.startNs >= ? AND t.startNs <= ?");
		size_t ntasks0 = d->ntasks, bad0 = bad;
		if (total >= 0 && profdb_prepare(&c->pdb, sql, &st) == SQLITE_OK) {
			for (size_t i = 0; i < m && seen >= 0; i++) {
				sqlite3_bind_int64(st, 1, sp[i].t0);
				sqlite3_bind_int64(st, 2, sp[i].t1);
				int64_t k = task_rows(c, st, d, by_id, owner, ocap, &bad);
				seen = k < 0 ? -1 : seen + k;
				sqlite3_reset(st);
			}
			sqlite3_finalize(st);
			done = seen >= total || c->failed;
		}
		if (!done) { /* read it all instead: drop what the ranges found */
			d->ntasks = ntasks0;
			bad = bad0;
		}
		sql[n] = '\0';
	}
	free(sp);
	if (!done) {
		sqlite3_stmt *st;
		if (profdb_prepare(&c->pdb, sql, &st) != SQLITE_OK) {
			comm_fail(c, "COMMUNICATION_TASK_INFO", sqlite3_errcode(c->pdb.db));
			return;
		}
		task_rows(c, st, d, by_id, owner, ocap, &bad);
		sqlite3_finalize(st);
	}
	if (bad)
		msg_warn(c->path,
		         "COMMUNICATION_TASK_INFO: %zu sub-tasks whose planeId, ranks, transport, "
		         "size or link type are not integers left out of the communication "
		         "analysis",
		         bad);
}

/* Adds the communication ops of one DB source (index `source` among the rank's sources). */
static void
ascend_db_comm(const tl_source *src, uint16_t source, tl_comm_data *d, size_t **owner, size_t *ocap)
{
	comm_rd c = {.path = src->path};
	char err[400];
	if (profdb_open(&c.pdb, src->path, err, sizeof err) != 0) {
		msg_warn(src->path, "%s; no communication analysis for it", err);
		return;
	}
	if (profdb_has(&c.pdb, "COMMUNICATION_OP") && profdb_has(&c.pdb, "STRING_IDS")) {
		tl_u64map by_id; /* opId -> index into d->ops */
		u64map_init(&by_id);
		size_t before = d->nops;
		read_ops(&c, d, source, &by_id);
		if (!c.failed && d->nops > before)
			read_tasks(&c, d, before, &by_id, owner, ocap);
		u64map_free(&by_id);
	}
	profdb_close(&c.pdb);
}

void
ascend_db_comm_hook(const tl_rank *r, size_t si, tl_comm_data *d, size_t **owner, size_t *ocap)
{
	ascend_db_comm(r->sources[si], (uint16_t)si, d, owner, ocap);
}
