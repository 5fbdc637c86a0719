/* The DB loader's link hooks, read on demand for the detail pane: host <-> device links, call
 * stacks and live allocations. A device task's TASK.connectionId is the CANN_API call that
 * launched it; the PyTorch rows behind it are PYTORCH_API rows whose connectionId is a
 * CONNECTION_IDS.id expanding to it (one id, many connectionIds: an operator lists every launch
 * it made). Each query opens the source DB again through the hardened connection; a file that
 * changed since loading is not read (its rowids would name other rows). */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define API_TYPE_OP 50001 /* ENUM_API_TYPE "op": a torch operator (50002 queue, 50003 trace) */

/* Opens source si of r again, unless it is gone or changed since loading. 0 or -1. */
static int
links_open(const tl_rank *r, size_t si, tl_profdb *pdb)
{
	if (si >= r->nsources)
		return -1;
	const tl_source *src = r->sources[si];
	struct stat sb;
	if (stat(src->path, &sb) != 0 || !source_is_file(src, &sb))
		return -1;
	char err[400];
	return profdb_open(pdb, src->path, err, sizeof err);
}

static int
is_task_lane(tl_lane_kind k)
{
	return k == TL_LANE_COMPUTE || k == TL_LANE_COMM_TASK || k == TL_LANE_MEMCPY ||
	       k == TL_LANE_MSTX_DEV || k == TL_LANE_OTHER;
}

/* A time column, as the load reads it (db_col_time: PYTORCH_API's times are TEXT). */
static int
col_ns(sqlite3_stmt *st, int col, int64_t *out)
{
	return db_col_time(st, col, out);
}

static void
col_name(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	snprintf(buf, len, "%s", s ? s : "");
}

int
db_row_i64(tl_profdb *pdb, const char *table, const char *col, int64_t row, int64_t *out)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE rowid = ?", col, table);
	sqlite3_stmt *st;
	if (profdb_prepare(pdb, sql, &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, row);
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		*out = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The call stack of the launching operator (PYTORCH_API row op_row), innermost first. */
static void
launcher_frames(tl_profdb *pdb, tl_launcher *out)
{
	if (!out->have_op || !profdb_has(pdb, "PYTORCH_CALLCHAINS") ||
	    !profdb_has(pdb, "STRING_IDS"))
		return;
	sqlite3_stmt *st;
	if (profdb_prepare(pdb,
	                   "SELECT (SELECT value FROM STRING_IDS WHERE id = c.stack) FROM "
	                   "PYTORCH_CALLCHAINS c WHERE c.id = (SELECT callchainId FROM PYTORCH_API "
	                   "WHERE rowid = ?) ORDER BY c.stackDepth",
	                   &st) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, out->op_row);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (out->op_nframes < TL_LAUNCH_FRAMES)
			col_name(st, 0, out->op_frames[out->op_nframes], sizeof out->op_frames[0]);
		out->op_nframes++;
	}
	sqlite3_finalize(st);
}

/* The launcher from the link index: the same rows the statements below find, each read by
 * rowid. rc as ascend_db_launcher's. */
static int
launcher_ix(tl_profdb *pdb, const db_link_ix *x, const char *table, uint32_t row, int str,
            tl_launcher *out)
{
	int64_t conn, cann;
	if (db_row_i64(pdb, table, "connectionId", row, &conn) != 0 || !db_ix_cann(x, conn, &cann))
		return 0;
	char sql[300];
	snprintf(sql, sizeof sql,
	         "SELECT a.startNs, a.endNs, %s, (SELECT startNs FROM %s WHERE rowid = ?2) FROM "
	         "CANN_API a WHERE a.rowid = ?1",
	         str ? "(SELECT value FROM STRING_IDS WHERE id = a.name)" : "NULL", table);
	sqlite3_stmt *st;
	if (profdb_prepare(pdb, sql, &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, cann);
	sqlite3_bind_int64(st, 2, row);
	int rc = 0;
	if (sqlite3_step(st) == SQLITE_ROW && col_ns(st, 0, &out->cann_start) == 0 &&
	    col_ns(st, 3, &out->task_start) == 0) {
		out->have_cann = 1;
		if (col_ns(st, 1, &out->cann_end) != 0)
			out->cann_end = out->cann_start;
		col_name(st, 2, out->cann_name, sizeof out->cann_name);
		out->delay = out->task_start - out->cann_start;
		rc = 1;
	}
	sqlite3_finalize(st);
	if (rc != 1)
		return rc;
	int64_t *rows;
	size_t n = db_ix_api_rows(x, conn, &rows);
	snprintf(sql, sizeof sql,
	         "SELECT p.startNs, p.endNs, %s, p.type FROM PYTORCH_API p WHERE p.rowid = ?",
	         str ? "(SELECT value FROM STRING_IDS WHERE id = p.name)" : "NULL");
	if (n > 0 && profdb_prepare(pdb, sql, &st) == SQLITE_OK) {
		int best_op = 0;
		for (size_t i = 0; i < n; i++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, rows[i]);
			if (sqlite3_step(st) != SQLITE_ROW)
				continue;
			int64_t s, en;
			out->nops++;
			if (col_ns(st, 0, &s) != 0 || col_ns(st, 1, &en) != 0)
				continue;
			int op = sqlite3_column_int64(st, 3) == API_TYPE_OP;
			if (out->have_op &&
			    (op < best_op ||
			     (op == best_op &&
			      (s < out->op_start || (s == out->op_start && en >= out->op_end)))))
				continue;
			out->have_op = 1;
			best_op = op;
			out->op_start = s;
			out->op_end = en;
			out->op_row = (uint32_t)rows[i];
			col_name(st, 2, out->op_name, sizeof out->op_name);
		}
		sqlite3_finalize(st);
	}
	free(rows);
	launcher_frames(pdb, out);
	return rc;
}

int
ascend_db_launcher(const tl_rank *r, size_t si, const tl_track *t, size_t idx, tl_launcher *out,
                   const void *ix)
{
	memset(out, 0, sizeof *out);
	if (idx >= t->n || (!is_task_lane(t->kind) && t->kind != TL_LANE_COMM) ||
	    track_arg(t, idx) == UINT32_MAX)
		return 0;
	/* a communication op's row carries the connectionId its sub-tasks share */
	const char *table = t->kind == TL_LANE_COMM ? "COMMUNICATION_OP" : "TASK";
	tl_profdb pdb;
	if (links_open(r, si, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, table) || !profdb_has(&pdb, "CANN_API")) {
		profdb_close(&pdb);
		return 0;
	}
	int str = profdb_has(&pdb, "STRING_IDS");
	if (ix != NULL) {
		int rc = launcher_ix(&pdb, ix, table, track_arg(t, idx), str, out);
		profdb_close(&pdb);
		return rc;
	}
	char sql[600];
	snprintf(sql, sizeof sql,
	         "SELECT a.startNs, a.endNs, %s, t.startNs FROM %s t JOIN CANN_API a ON "
	         "a.connectionId = t.connectionId WHERE t.rowid = ?",
	         str ? "(SELECT value FROM STRING_IDS WHERE id = a.name)" : "NULL", table);
	sqlite3_stmt *st;
	int rc = 0;
	if (profdb_prepare(&pdb, sql, &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	sqlite3_bind_int64(st, 1, track_arg(t, idx));
	if (sqlite3_step(st) == SQLITE_ROW && col_ns(st, 0, &out->cann_start) == 0 &&
	    col_ns(st, 3, &out->task_start) == 0) {
		out->have_cann = 1;
		if (col_ns(st, 1, &out->cann_end) != 0)
			out->cann_end = out->cann_start;
		col_name(st, 2, out->cann_name, sizeof out->cann_name);
		out->delay = out->task_start - out->cann_start;
		rc = 1;
	}
	sqlite3_finalize(st);
	if (rc == 1 && profdb_has(&pdb, "PYTORCH_API") && profdb_has(&pdb, "CONNECTION_IDS")) {
		snprintf(
		    sql, sizeof sql,
		    /* one id from the row, then each table searched once: joining
		     * CONNECTION_IDS and PYTORCH_API (neither indexed on the columns) makes
		     * SQLite build an index of PYTORCH_API for every lookup */
		    "SELECT p.startNs, p.endNs, %s, p.type, p.rowid FROM PYTORCH_API p WHERE "
		    "p.connectionId IN (SELECT c.id FROM CONNECTION_IDS c WHERE c.connectionId "
		    "= (SELECT connectionId FROM %s WHERE rowid = ?))",
		    str ? "(SELECT value FROM STRING_IDS WHERE id = p.name)" : "NULL", table);
		if (profdb_prepare(&pdb, sql, &st) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, track_arg(t, idx));
			int best_op = 0;
			while (sqlite3_step(st) == SQLITE_ROW) {
				int64_t s, e;
				out->nops++;
				if (col_ns(st, 0, &s) != 0 || col_ns(st, 1, &e) != 0)
					continue;
				int op = sqlite3_column_int64(st, 3) == API_TYPE_OP;
				/* the innermost: operators first, then the latest start, then the
				 * shortest */
				if (out->have_op &&
				    (op < best_op ||
				     (op == best_op && (s < out->op_start ||
				                        (s == out->op_start && e >= out->op_end)))))
					continue;
				out->have_op = 1;
				best_op = op;
				out->op_start = s;
				out->op_end = e;
				out->op_row = (uint32_t)sqlite3_column_int64(st, 4);
				col_name(st, 2, out->op_name, sizeof out->op_name);
			}
			sqlite3_finalize(st);
		}
		launcher_frames(&pdb, out);
	}
	profdb_close(&pdb);
	return rc;
}

ptrdiff_t
ascend_db_kernels(const tl_rank *r, size_t si, const tl_track *t, size_t idx, tl_kernel **out,
                  const void *ix)
{
	*out = NULL;
	if (idx >= t->n || t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN) ||
	    track_arg(t, idx) == UINT32_MAX)
		return 0;
	tl_profdb pdb;
	if (links_open(r, si, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, "TASK") || !profdb_has(&pdb, "PYTORCH_API") ||
	    !profdb_has(&pdb, "CONNECTION_IDS")) {
		profdb_close(&pdb);
		return 0;
	}
	sqlite3_stmt *st;
	if (ix != NULL) { /* the operator's connectionIds, their tasks, each read by rowid */
		const db_link_ix *x = ix;
		int64_t id, *conns = NULL, *rows = NULL;
		size_t nc = 0, nr = 0;
		if (db_row_i64(&pdb, "PYTORCH_API", "connectionId", track_arg(t, idx), &id) == 0)
			nc = db_ix_conns_of_id(x, id, &conns);
		if (nc > 0)
			nr = db_ix_rows_of_conns(&x->p[DB_IX_TASK], conns, nc, &rows);
		tl_kernel *v = NULL;
		size_t n = 0, cap = 0;
		if (nr > 0 &&
		    profdb_prepare(&pdb, "SELECT startNs, endNs FROM TASK WHERE rowid = ?", &st) ==
		        SQLITE_OK) {
			for (size_t i = 0; i < nr; i++) {
				sqlite3_reset(st);
				sqlite3_bind_int64(st, 1, rows[i]);
				tl_kernel k = {(uint32_t)rows[i], 0, 0};
				if (sqlite3_step(st) != SQLITE_ROW ||
				    col_ns(st, 0, &k.start) != 0 || col_ns(st, 1, &k.end) != 0)
					continue;
				VEC_PUSH(v, n, cap, k);
			}
			sqlite3_finalize(st);
		}
		free(conns);
		free(rows);
		profdb_close(&pdb);
		*out = v;
		return (ptrdiff_t)n;
	}
	if (profdb_prepare(
	        &pdb,
	        "SELECT t.rowid, t.startNs, t.endNs FROM TASK t WHERE t.connectionId IN (SELECT "
	        "c.connectionId FROM CONNECTION_IDS c WHERE c.id = (SELECT connectionId FROM "
	        "PYTORCH_API WHERE rowid = ?))",
	        &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	sqlite3_bind_int64(st, 1, track_arg(t, idx));
	tl_kernel *v = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		tl_kernel k = {(uint32_t)sqlite3_column_int64(st, 0), 0, 0};
		if (col_ns(st, 1, &k.start) != 0 || col_ns(st, 2, &k.end) != 0)
			continue;
		VEC_PUSH(v, n, cap, k);
	}
	sqlite3_finalize(st);
	profdb_close(&pdb);
	*out = v;
	return (ptrdiff_t)n;
}

ptrdiff_t
ascend_db_stack(const tl_rank *r, size_t si, const tl_track *t, size_t idx, char ***out)
{
	*out = NULL;
	if (idx >= t->n || t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN) ||
	    track_arg(t, idx) == UINT32_MAX)
		return 0;
	tl_profdb pdb;
	if (links_open(r, si, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, "PYTORCH_API") || !profdb_has(&pdb, "PYTORCH_CALLCHAINS") ||
	    !profdb_has(&pdb, "STRING_IDS")) {
		profdb_close(&pdb);
		return 0;
	}
	sqlite3_stmt *st;
	/* stackDepth 0 is the innermost frame */
	if (profdb_prepare(&pdb,
	                   "SELECT (SELECT value FROM STRING_IDS WHERE id = c.stack) FROM "
	                   "PYTORCH_API p JOIN PYTORCH_CALLCHAINS c ON c.id = p.callchainId WHERE "
	                   "p.rowid = ? ORDER BY c.stackDepth",
	                   &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	sqlite3_bind_int64(st, 1, track_arg(t, idx));
	char **v = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);
		char *x = xstrdup(f ? f : "?");
		VEC_PUSH(v, n, cap, x);
	}
	sqlite3_finalize(st);
	profdb_close(&pdb);
	*out = v;
	return (ptrdiff_t)n;
}

int
ascend_db_allocations(const tl_rank *r, size_t si, int64_t t, size_t max, tl_alloc **v, size_t *n,
                      size_t *cap)
{
	tl_profdb pdb;
	if (links_open(r, si, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, "OP_MEMORY")) {
		profdb_close(&pdb);
		return 0;
	}
	int strs = profdb_has(&pdb, "STRING_IDS");
	char sql[640];
	snprintf(sql, sizeof sql,
	         /* INTEGER cells only: SQL ranks TEXT above every number, so a damaged
	          * size would lead the list and a damaged release time never come */
	         "SELECT %s, size, allocationTime, releaseTime, streamPtr FROM OP_MEMORY WHERE "
	         "typeof(allocationTime) = 'integer' AND typeof(size) = 'integer' AND "
	         "allocationTime <= ?1 AND (releaseTime IS NULL OR (typeof(releaseTime) = "
	         "'integer' AND releaseTime > ?1)) ORDER BY size DESC, allocationTime LIMIT ?2",
	         strs ? "(SELECT value FROM STRING_IDS WHERE id = OP_MEMORY.name)" : "NULL");
	sqlite3_stmt *st, *fr = NULL;
	if (profdb_prepare(&pdb, sql, &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	/* the Python frame: the innermost PyTorch call of the allocating operator's name that
	 * holds the allocation time, its call stack's innermost frame (stackDepth 0). By the
	 * name's text: STRING_IDS holds one text under several ids (host and device rows). */
	if (strs && profdb_has(&pdb, "PYTORCH_API") && profdb_has(&pdb, "PYTORCH_CALLCHAINS") &&
	    profdb_prepare(&pdb,
	                   "SELECT (SELECT value FROM STRING_IDS WHERE id = c.stack) FROM "
	                   "PYTORCH_CALLCHAINS c WHERE c.id = (SELECT callchainId FROM "
	                   "PYTORCH_API WHERE name IN (SELECT id FROM STRING_IDS WHERE value = ?1) "
	                   "AND startNs <= ?2 AND endNs >= ?2 AND "
	                   "callchainId IS NOT NULL ORDER BY startNs DESC LIMIT 1) ORDER BY "
	                   "c.stackDepth LIMIT 1",
	                   &fr) != SQLITE_OK)
		fr = NULL;
	sqlite3_bind_int64(st, 1, t);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		tl_alloc a;
		const char *op = (const char *)sqlite3_column_text(st, 0);
		snprintf(a.op, sizeof a.op, "%s", op ? op : "");
		a.size = sqlite3_column_int64(st, 1);
		a.alloc_ns = sqlite3_column_int64(st, 2);
		a.release_ns = sqlite3_column_type(st, 3) == SQLITE_NULL
		                   ? INT64_MAX
		                   : sqlite3_column_int64(st, 3);
		snprintf(a.component, sizeof a.component, "%s",
		         sqlite3_column_type(st, 4) == SQLITE_NULL ? "GE" : "PTA");
		a.frame[0] = '\0';
		if (fr != NULL && op != NULL) {
			sqlite3_bind_text(fr, 1, a.op, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(fr, 2, a.alloc_ns);
			if (sqlite3_step(fr) == SQLITE_ROW && sqlite3_column_text(fr, 0) != NULL)
				snprintf(a.frame, sizeof a.frame, "%s",
				         (const char *)sqlite3_column_text(fr, 0));
			sqlite3_reset(fr);
		}
		VEC_PUSH(*v, *n, *cap, a);
	}
	sqlite3_finalize(fr);
	sqlite3_finalize(st);
	profdb_close(&pdb);
	return 0;
}
