/* The ends of the host <-> device links of a DB slice, for the link keys (u, v): read from its
 * DB on demand. A device task's
 * TASK.connectionId is the CANN_API call that launched it; the PyTorch rows behind that call
 * are PYTORCH_API rows whose connectionId is a CONNECTION_IDS.id expanding to it (one id, many
 * connectionIds: an operator lists every launch it made). */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "model/clock.h"
#include "util/xalloc.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API_TYPE_OP 50001 /* ENUM_API_TYPE "op": a torch operator (50002 queue, 50003 trace) */

#define KINDS_TASK                                                                                 \
	((1u << TL_LANE_COMPUTE) | (1u << TL_LANE_COMM_TASK) | (1u << TL_LANE_MEMCPY) |            \
	 (1u << TL_LANE_MSTX_DEV) | (1u << TL_LANE_OTHER))

static void
quiet(void *ctx, const char *key, const char *value)
{
	(void)ctx;
	(void)key;
	(void)value;
}

/* A time column, as the load reads it (db_col_time: PYTORCH_API's times are TEXT). */
static int
col_ns(sqlite3_stmt *st, int col, int64_t *out)
{
	return db_col_time(st, col, out);
}

static uint32_t
col_row(sqlite3_stmt *st, int col)
{
	int64_t v = sqlite3_column_int64(st, col);
	return v < 0 || v >= UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int
is_task_lane(tl_lane_kind k)
{
	return ((1u << k) & KINDS_TASK) != 0;
}

/* The innermost PyTorch row behind the connectionId the statement's ?1 row carries (sql
 * selects startNs, endNs, type, rowid): operators before queue and trace rows, then the latest
 * start, then the shortest. 1 with *out filled, 0 none. */
static int
innermost_op(tl_profdb *pdb, const char *sql, uint32_t row, size_t si, tl_link_end *out)
{
	sqlite3_stmt *st;
	if (profdb_prepare(pdb, sql, &st) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, row);
	int have = 0, best_op = 0;
	int64_t best_s = 0, best_e = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t s, e;
		if (col_ns(st, 0, &s) != 0 || col_ns(st, 1, &e) != 0)
			continue;
		int op = sqlite3_column_int64(st, 2) == API_TYPE_OP;
		if (have && (op < best_op ||
		             (op == best_op && (s < best_s || (s == best_s && e >= best_e)))))
			continue;
		have = 1;
		best_op = op;
		best_s = s;
		best_e = e;
		*out = (tl_link_end){.kinds = 1u << TL_LANE_HOST,
		                     .source = (uint16_t)si,
		                     .cann = 0,
		                     .arg = col_row(st, 3),
		                     .key = INT64_MIN,
		                     .start = s};
	}
	sqlite3_finalize(st);
	return have;
}

/* Device work of the statement's ?1 row (sql selects rowid, startNs) on lanes of `kinds`. */
typedef struct host_row { /* the host slice asked about: ?2 .. ?4 of the statements */
	int64_t gtid, start, end;
} host_row;

static void
tasks_of(tl_profdb *pdb, const char *sql, uint32_t row, const host_row *h, size_t si,
         uint32_t kinds, tl_link_end **v, size_t *n, size_t *cap)
{
	sqlite3_stmt *st;
	if (profdb_prepare(pdb, sql, &st) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, row);
	if (sqlite3_bind_parameter_count(st) >= 4) {
		sqlite3_bind_int64(st, 2, h->gtid);
		sqlite3_bind_int64(st, 3, h->start);
		sqlite3_bind_int64(st, 4, h->end);
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t s;
		if (col_ns(st, 1, &s) != 0)
			continue;
		tl_link_end e = {.kinds = kinds,
		                 .source = (uint16_t)si,
		                 .cann = -1,
		                 .arg = col_row(st, 0),
		                 .key = INT64_MIN,
		                 .start = s};
		VEC_PUSH(*v, *n, *cap, e);
	}
	sqlite3_finalize(st);
}

static int
cmp_end(const void *a, const void *b)
{
	const tl_link_end *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->arg > y->arg) - (x->arg < y->arg);
}

/* ---- the same from the link index: the rows found by binary search, read by rowid ---- */

/* innermost_op over the PYTORCH_API rows linked to connectionId conn. */
static int
innermost_op_ix(tl_profdb *pdb, const db_link_ix *x, int64_t conn, size_t si, tl_link_end *out)
{
	int64_t *rows;
	size_t n = db_ix_api_rows(x, conn, &rows);
	sqlite3_stmt *st;
	int have = 0, best_op = 0;
	int64_t best_s = 0, best_e = 0;
	if (n > 0 &&
	    profdb_prepare(pdb, "SELECT startNs, endNs, type FROM PYTORCH_API WHERE rowid = ?",
	                   &st) == SQLITE_OK) {
		for (size_t i = 0; i < n; i++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, rows[i]);
			int64_t s, e;
			if (sqlite3_step(st) != SQLITE_ROW || col_ns(st, 0, &s) != 0 ||
			    col_ns(st, 1, &e) != 0)
				continue;
			int op = sqlite3_column_int64(st, 2) == API_TYPE_OP;
			if (have &&
			    (op < best_op ||
			     (op == best_op && (s < best_s || (s == best_s && e >= best_e)))))
				continue;
			have = 1;
			best_op = op;
			best_s = s;
			best_e = e;
			*out = (tl_link_end){.kinds = 1u << TL_LANE_HOST,
			                     .source = (uint16_t)si,
			                     .cann = 0,
			                     .arg = rows[i] < 0 || rows[i] >= UINT32_MAX
			                                ? UINT32_MAX
			                                : (uint32_t)rows[i],
			                     .key = INT64_MIN,
			                     .start = s};
		}
		sqlite3_finalize(st);
	}
	free(rows);
	return have;
}

/* The rows of `rows` (TASK or COMMUNICATION_OP: sql selects startNs[, globalTaskId] by rowid)
 * of connectionIds conns as ends on lanes of `kinds`; with not_sub, no HCCL sub-task. */
static void
rows_ix(tl_profdb *pdb, const db_ix_pairs *rows, const int64_t *conns, size_t nc, const char *sql,
        int not_sub, size_t si, uint32_t kinds, tl_link_end **v, size_t *n, size_t *cap)
{
	int64_t *rv;
	size_t nr = db_ix_rows_of_conns(rows, conns, nc, &rv);
	sqlite3_stmt *st, *sub = NULL;
	if (nr > 0 && not_sub &&
	    profdb_prepare(pdb,
	                   "SELECT 1 FROM COMMUNICATION_TASK_INFO WHERE globalTaskId = ? LIMIT 1",
	                   &sub) != SQLITE_OK)
		sub = NULL;
	if (nr > 0 && (!not_sub || sub != NULL) && profdb_prepare(pdb, sql, &st) == SQLITE_OK) {
		for (size_t i = 0; i < nr; i++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, rv[i]);
			int64_t s;
			if (sqlite3_step(st) != SQLITE_ROW || col_ns(st, 0, &s) != 0)
				continue;
			if (not_sub) { /* (NOT IN: a task without a globalTaskId is not kept) */
				if (sqlite3_column_type(st, 1) != SQLITE_INTEGER)
					continue;
				sqlite3_reset(sub);
				sqlite3_bind_int64(sub, 1, sqlite3_column_int64(st, 1));
				if (sqlite3_step(sub) == SQLITE_ROW)
					continue;
			}
			tl_link_end e = {.kinds = kinds,
			                 .source = (uint16_t)si,
			                 .cann = -1,
			                 .arg = rv[i] < 0 || rv[i] >= UINT32_MAX ? UINT32_MAX
			                                                         : (uint32_t)rv[i],
			                 .key = INT64_MIN,
			                 .start = s};
			VEC_PUSH(*v, *n, *cap, e);
		}
		sqlite3_finalize(st);
	}
	sqlite3_finalize(sub);
	free(rv);
}

/* ascend_db_link_ends from the index; the nested operators' fallback (w = 2) is left to the
 * statements (*n stays 0 then). */
static void
link_ends_ix(tl_profdb *pdb, const db_link_ix *x, const tl_track *t, size_t idx, size_t si,
             tl_link_dir dir, tl_link_end **v, size_t *n, size_t *cap)
{
	uint32_t row = track_arg(t, idx);
	int task = is_task_lane(t->kind), comm = t->kind == TL_LANE_COMM;
	int host = t->kind == TL_LANE_HOST, cann = host && (t->key & TL_HOST_KEY_CANN);
	int links = profdb_has(pdb, "CONNECTION_IDS") && profdb_has(pdb, "PYTORCH_API");
	int64_t conn, id;
	if (dir == TL_LINK_LAUNCHER && (task || comm) && profdb_has(pdb, "CANN_API")) {
		const char *table = comm ? "COMMUNICATION_OP" : "TASK";
		int64_t s, call;
		if (!profdb_has(pdb, table) ||
		    db_row_i64(pdb, table, "connectionId", row, &conn) != 0 ||
		    !db_ix_cann(x, conn, &call))
			return;
		sqlite3_stmt *st;
		if (profdb_prepare(pdb, "SELECT startNs FROM CANN_API WHERE rowid = ?", &st) !=
		    SQLITE_OK)
			return;
		sqlite3_bind_int64(st, 1, call);
		if (sqlite3_step(st) == SQLITE_ROW && col_ns(st, 0, &s) == 0) {
			tl_link_end c = {.kinds = 1u << TL_LANE_HOST,
			                 .source = (uint16_t)si,
			                 .cann = 1,
			                 .arg = call >= UINT32_MAX ? UINT32_MAX : (uint32_t)call,
			                 .key = INT64_MIN,
			                 .start = s};
			VEC_PUSH(*v, *n, *cap, c);
		}
		sqlite3_finalize(st);
		tl_link_end op;
		if (*n == 1 && links && innermost_op_ix(pdb, x, conn, si, &op))
			VEC_PUSH(*v, *n, *cap, op);
	} else if (dir == TL_LINK_LAUNCHER && cann && links) {
		tl_link_end op;
		if (db_row_i64(pdb, "CANN_API", "connectionId", row, &conn) == 0 &&
		    innermost_op_ix(pdb, x, conn, si, &op))
			VEC_PUSH(*v, *n, *cap, op);
	} else if (dir == TL_LINK_KERNELS && profdb_has(pdb, "TASK")) {
		int64_t *conns = NULL;
		size_t nc = 0;
		if (cann && profdb_has(pdb, "CANN_API") &&
		    db_row_i64(pdb, "CANN_API", "connectionId", row, &conn) == 0) {
			conns = xmalloc(sizeof *conns);
			conns[nc++] = conn;
		} else if (!cann && links &&
		           db_row_i64(pdb, "PYTORCH_API", "connectionId", row, &id) == 0) {
			nc = db_ix_conns_of_id(x, id, &conns);
		}
		int coll = profdb_has(pdb, "COMMUNICATION_OP") &&
		           profdb_has(pdb, "COMMUNICATION_TASK_INFO");
		rows_ix(pdb, &x->p[DB_IX_TASK], conns, nc,
		        "SELECT startNs, globalTaskId FROM TASK WHERE rowid = ?", coll, si,
		        KINDS_TASK, v, n, cap);
		if (coll)
			rows_ix(pdb, &x->p[DB_IX_COMM_OP], conns, nc,
			        "SELECT startNs FROM COMMUNICATION_OP WHERE rowid = ?", 0, si,
			        1u << TL_LANE_COMM, v, n, cap);
		free(conns);
	}
}

ptrdiff_t
ascend_db_link_ends(const tl_rank *r, size_t si, const tl_track *t, size_t idx, tl_link_dir dir,
                    tl_link_end **out, const void *ix)
{
	*out = NULL;
	uint32_t row = track_arg(t, idx);
	int task = is_task_lane(t->kind), comm = t->kind == TL_LANE_COMM;
	int host = t->kind == TL_LANE_HOST, cann = host && (t->key & TL_HOST_KEY_CANN);
	if (row == UINT32_MAX || !(task || comm || host))
		return 0;
	if (dir == TL_LINK_KERNELS && !host)
		return 0;
	const tl_source *src = r->sources[si];
	if (load_source_unchanged(src, quiet, NULL) != 0)
		return -1;
	tl_profdb pdb;
	char err[400];
	if (profdb_open(&pdb, src->path, err, sizeof err) != 0)
		return -1;
	int links = profdb_has(&pdb, "CONNECTION_IDS") && profdb_has(&pdb, "PYTORCH_API");
	tl_link_end *v = NULL;
	size_t n = 0, cap = 0;
	if (ix != NULL) {
		link_ends_ix(&pdb, ix, t, idx, si, dir, &v, &n, &cap);
		/* an operator that launched nothing itself: the kernels of those nested in it on
		 * its thread, by the statements below (w = 2) */
		if (n > 0 || dir != TL_LINK_KERNELS || cann) {
			if (n > 1 && dir == TL_LINK_KERNELS)
				qsort(v, n, sizeof *v, cmp_end);
			profdb_close(&pdb);
			*out = v;
			return (ptrdiff_t)n;
		}
	}
	if (dir == TL_LINK_LAUNCHER && (task || comm) && profdb_has(&pdb, "CANN_API")) {
		const char *table = comm ? "COMMUNICATION_OP" : "TASK";
		char sql[400];
		/* one id from the row, then the tables searched once each: a join would make
		 * SQLite index PYTORCH_API (no index on connectionId) for every lookup */
		snprintf(sql, sizeof sql,
		         "SELECT a.rowid, a.startNs FROM CANN_API a WHERE a.connectionId = (SELECT "
		         "connectionId FROM %s WHERE rowid = ?1)",
		         table);
		sqlite3_stmt *st;
		if (profdb_has(&pdb, table) && profdb_prepare(&pdb, sql, &st) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, row);
			int64_t s;
			if (sqlite3_step(st) == SQLITE_ROW && col_ns(st, 1, &s) == 0) {
				tl_link_end e = {.kinds = 1u << TL_LANE_HOST,
				                 .source = (uint16_t)si,
				                 .cann = 1,
				                 .arg = col_row(st, 0),
				                 .key = INT64_MIN,
				                 .start = s};
				VEC_PUSH(v, n, cap, e);
			}
			sqlite3_finalize(st);
		}
		if (n == 1 && links) {
			snprintf(
			    sql, sizeof sql,
			    "SELECT p.startNs, p.endNs, p.type, p.rowid FROM PYTORCH_API p WHERE "
			    "p.connectionId IN (SELECT c.id FROM CONNECTION_IDS c WHERE "
			    "c.connectionId = (SELECT connectionId FROM %s WHERE rowid = ?1))",
			    table);
			tl_link_end e;
			if (innermost_op(&pdb, sql, row, si, &e))
				VEC_PUSH(v, n, cap, e);
		}
	} else if (dir == TL_LINK_LAUNCHER && cann && links) {
		tl_link_end e;
		if (innermost_op(
		        &pdb,
		        "SELECT p.startNs, p.endNs, p.type, p.rowid FROM PYTORCH_API p "
		        "WHERE p.connectionId IN (SELECT c.id FROM CONNECTION_IDS c WHERE "
		        "c.connectionId = (SELECT connectionId FROM CANN_API WHERE rowid = "
		        "?1))",
		        row, si, &e))
			VEC_PUSH(v, n, cap, e);
	} else if (dir == TL_LINK_KERNELS && profdb_has(&pdb, "TASK")) {
		/* the launch's tasks, and for a collective its COMMUNICATION_OP row rather than
		 * its HCCL sub-tasks (as trace_view.json links an operator to the op) */
		/* the globalTid as the host key keeps it (pid << 32 | tid, pid below 2^22) */
		host_row h = {t->key & ((INT64_C(1) << 54) - 1),
		              clock_unmap(&r->clock, t->v[idx].start),
		              clock_unmap(&r->clock, track_end(t, idx))}; /* the file's clock */
		int coll = profdb_has(&pdb, "COMMUNICATION_OP") &&
		           profdb_has(&pdb, "COMMUNICATION_TASK_INFO");
		const char *not_sub = coll ? " AND t.globalTaskId NOT IN (SELECT globalTaskId FROM "
		                             "COMMUNICATION_TASK_INFO)"
		                           : "";
		/* which connectionIds: the CANN call's own, or those of the operator (and, for
		 * an operator that launched nothing itself, of the operators nested in it on its
		 * thread: ?2 its globalTid, [?3, ?4] its times) */
		static const char *const conns[3] = {
		    "SELECT connectionId FROM CANN_API WHERE rowid = ?1",
		    "SELECT c.connectionId FROM CONNECTION_IDS c WHERE c.id = (SELECT connectionId "
		    "FROM PYTORCH_API WHERE rowid = ?1)",
		    "SELECT c.connectionId FROM CONNECTION_IDS c WHERE c.id IN (SELECT "
		    "p.connectionId "
		    "FROM PYTORCH_API p WHERE p.globalTid = ?2 AND CAST(p.startNs AS INTEGER) >= "
		    "?3 "
		    "AND CAST(p.endNs AS INTEGER) <= ?4 AND p.connectionId IS NOT NULL)"};
		for (int w = cann ? 0 : ix != NULL ? 2 : 1; w < (cann ? 1 : 3) && n == 0; w++) {
			if (cann ? !profdb_has(&pdb, "CANN_API") : !links)
				break;
			char sql[900];
			snprintf(
			    sql, sizeof sql,
			    "SELECT t.rowid, t.startNs FROM TASK t WHERE t.connectionId IN (%s)%s",
			    conns[w], not_sub);
			tasks_of(&pdb, sql, row, &h, si, KINDS_TASK, &v, &n, &cap);
			if (coll) {
				snprintf(sql, sizeof sql,
				         "SELECT o.rowid, o.startNs FROM COMMUNICATION_OP o WHERE "
				         "o.connectionId IN (%s)",
				         conns[w]);
				tasks_of(&pdb, sql, row, &h, si, 1u << TL_LANE_COMM, &v, &n, &cap);
			}
		}
		if (n > 1)
			qsort(v, n, sizeof *v, cmp_end);
	}
	profdb_close(&pdb);
	*out = v;
	return (ptrdiff_t)n;
}
