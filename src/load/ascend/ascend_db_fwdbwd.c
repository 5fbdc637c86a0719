/* The DB loader's forward/backward operator pairs, read on demand for the pipeline view. */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>

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

static void
read_fwdbwd(db_ctx *c)
{
	static const char *const pcols[] = {"startNs",      "endNs", "globalTid",
	                                    "connectionId", "type",  "sequenceNumber"};
	static const char *const ccols[] = {"id", "connectionId"};
	int have[6], chave[2];
	if (!db_has_table(c, "PYTORCH_API") || !db_has_table(c, "CONNECTION_IDS") ||
	    db_table_columns(c, "PYTORCH_API", pcols, 6, have) < 5 ||
	    db_table_columns(c, "CONNECTION_IDS", ccols, 2, chave) != 2)
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
		db_rows(c, 1);
		op_row x;
		/* the connectionId and thread: INTEGERs (a TEXT 'x' is no id 0) */
		if (db_col_time(st, 2, &x.start) != 0 || db_col_time(st, 3, &x.end) != 0 ||
		    x.end < x.start || sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 1) != SQLITE_INTEGER) {
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
		msg_warn(c->path,
		         "PYTORCH_API: %zu operator rows without usable times, connectionId or "
		         "thread skipped",
		         bad);
	op_link *v = NULL;
	size_t n = 0, cap = 0;
	snprintf(
	    sql, sizeof sql,
	    "SELECT id, connectionId FROM CONNECTION_IDS WHERE id IN (SELECT connectionId FROM "
	    "PYTORCH_API WHERE %s)",
	    where);
	if (nops > 0 && !c->failed) {
		if (db_prepare(c, sql, &st) != SQLITE_OK) {
			db_fail(c, "CONNECTION_IDS", sqlite3_errcode(c->db));
		} else {
			while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
				db_rows(c, 1);
				uint32_t k;
				if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
				    sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
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

void
ascend_db_fwdbwd(tl_rank *r, size_t si)
{
	db_state *st = db_state_of(r, si);
	if (st->fwdbwd_read)
		return;
	st->fwdbwd_read = 1;
	db_ctx c;
	if (db_open(&c, r->sources[si], r, "no forward/backward operator pairs") != 0)
		return;
	read_fwdbwd(&c);
	profdb_close(&c.pdb);
}
