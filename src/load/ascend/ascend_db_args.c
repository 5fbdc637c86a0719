/* The arguments of a DB slice for the detail pane: its row (TASK, COMMUNICATION_OP,
 * MSTX_EVENTS) and, for a task, the operator's row of COMPUTE_TASK_INFO,
 * COMMUNICATION_TASK_INFO or MEMCPY_INFO, with STRING_IDS ids resolved to their text. */
#include "config.h"
#include "load/load_int.h"
#include "load/ascend/profdb.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#define TL_INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */

/* Columns whose integers are STRING_IDS ids in torch_npu DBs */
static int
is_string_col(const char *c)
{
	static const char *const cols[] = {
	    "name",         "opName",         "opType",      "taskType",       "groupName",
	    "inputFormats", "inputDataTypes", "inputShapes", "outputFormats",  "outputDataTypes",
	    "outputShapes", "inputDtypes",    "attrInfo",    "opState",        "hf32Eligible",
	    "message",      "domainId",       "algType",     "dataType",       "category",
	    "linkType",     "transportType",  "rdmaType",    "memcpyOperation"};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		if (strcmp(c, cols[i]) == 0)
			return 1;
	return 0;
}

#define ARGS_SEEN_MAX 64 /* more columns than a task and its operator's table have */

typedef struct args_ctx {
	tl_profdb *pdb; /* the hardened connection: every statement through profdb_prepare */
	sqlite3 *db;
	sqlite3_stmt *str;
	load_arg_fn fn;
	void *ctx;
	int n;
	/* fields given so far: a column that the operator's table and TASK both have (taskType,
	 * globalTaskId) is given once; with another value, it is given again named by its table */
	char seen_key[ARGS_SEEN_MAX][96];
	char seen_val[ARGS_SEEN_MAX][512];
	int nseen;
} args_ctx;

/* Whether key was given already: 1 with the same value, 2 with another, 0 not yet (noted). */
static int
args_seen(args_ctx *a, const char *key, const char *val)
{
	for (int i = 0; i < a->nseen; i++)
		if (strcmp(a->seen_key[i], key) == 0)
			return strcmp(a->seen_val[i], val) == 0 ? 1 : 2;
	if (a->nseen < ARGS_SEEN_MAX) {
		snprintf(a->seen_key[a->nseen], sizeof a->seen_key[0], "%s", key);
		snprintf(a->seen_val[a->nseen], sizeof a->seen_val[0], "%s", val);
		a->nseen++;
	}
	return 0;
}

/* Emits every column of the row except the times; returns globalTaskId or -1. */
static int64_t
emit_row(args_ctx *a, sqlite3_stmt *st, const char *prefix, const char *table)
{
	int64_t gt = -1;
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		const char *cn = sqlite3_column_name(st, i);
		if (cn == NULL || strcmp(cn, "startNs") == 0 || strcmp(cn, "endNs") == 0)
			continue;
		int ty = sqlite3_column_type(st, i);
		if (ty == SQLITE_NULL)
			continue;
		char key[96], val[512];
		snprintf(key, sizeof key, "%s%s", prefix, cn);
		if (strcmp(cn, "globalTaskId") == 0 && ty == SQLITE_INTEGER)
			gt = sqlite3_column_int64(st, i); /* else no id: no info rows of task 0 */
		if (ty == SQLITE_INTEGER) {
			int64_t v = sqlite3_column_int64(st, i);
			if (v == TL_INVALID_U32)
				continue;
			if (is_string_col(cn) && a->str) {
				sqlite3_reset(a->str);
				sqlite3_bind_int64(a->str, 1, v);
				if (sqlite3_step(a->str) == SQLITE_ROW) {
					const char *s =
					    (const char *)sqlite3_column_text(a->str, 0);
					snprintf(val, sizeof val, "%s", s ? s : "");
					if (val[0] == '\0')
						continue;
				} else {
					snprintf(val, sizeof val, "%" PRId64, v);
				}
			} else {
				snprintf(val, sizeof val, "%" PRId64, v);
			}
		} else {
			const char *s = (const char *)sqlite3_column_text(st, i);
			snprintf(val, sizeof val, "%s", s ? s : "");
		}
		int seen = args_seen(a, key, val);
		if (seen == 1)
			continue;
		if (seen == 2 && table) {
			char tk[160];
			snprintf(tk, sizeof tk, "%s.%s", table, key);
			a->fn(a->ctx, tk, val);
		} else {
			a->fn(a->ctx, key, val);
		}
		a->n++;
	}
	return gt;
}

static int64_t
query_row(args_ctx *a, const char *sql, int64_t id, const char *prefix)
{
	sqlite3_stmt *st;
	int64_t gt = -1;
	/* the table's name, for a column given twice: "SELECT * FROM TASK WHERE ..." */
	char table[64] = "";
	const char *from = strstr(sql, " FROM ");
	if (from)
		sscanf(from + 6, "%63[A-Za-z_]", table);
	if (profdb_prepare(a->pdb, sql, &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		gt = emit_row(a, st, prefix, table);
	sqlite3_finalize(st);
	return gt;
}

int
ascend_db_args(const tl_rank *r, size_t si, const tl_track *t, size_t idx, load_arg_fn fn,
               void *ctx)
{
	const tl_source *src = r->sources[si];
	const char *sql = NULL, *info = NULL;
	switch (t->kind) {
	case TL_LANE_COMPUTE:
		info = "SELECT * FROM COMPUTE_TASK_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_COMM_TASK:
		info = "SELECT * FROM COMMUNICATION_TASK_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_MEMCPY:
		info = "SELECT * FROM MEMCPY_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_MSTX_DEV:
	case TL_LANE_OTHER:
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_COMM:
		sql = "SELECT * FROM COMMUNICATION_OP WHERE rowid = ?";
		break;
	case TL_LANE_MSTX:
		sql = "SELECT * FROM MSTX_EVENTS WHERE rowid = ?";
		break;
	case TL_LANE_HOST: /* read on demand from one of two tables: the key says which */
		sql = (t->key & TL_HOST_KEY_CANN) ? "SELECT * FROM CANN_API WHERE rowid = ?"
		                                  : "SELECT * FROM PYTORCH_API WHERE rowid = ?";
		break;
	default:
		return 0;
	}
	if (load_source_unchanged(src, fn, ctx) != 0)
		return -1;
	args_ctx a = {.fn = fn, .ctx = ctx};
	char err[400];
	tl_profdb pdb;
	if (profdb_open(&pdb, src->path, err, sizeof err) != 0) {
		char m[600];
		snprintf(m, sizeof m, "%s: %s", err, src->path);
		fn(ctx, "arguments", m);
		return -1;
	}
	a.pdb = &pdb;
	a.db = pdb.db;
	/* CANN 7.0's report DB: no COMMUNICATION_OP (an op is its sub-tasks' span; its slice
	 * keeps its first sub-task's TASK row), and the task key is correlationId */
	if (t->kind == TL_LANE_HOST && (t->key & TL_HOST_KEY_CANN) && !profdb_has(&pdb, "CANN_API"))
		sql = "SELECT * FROM API WHERE rowid = ?";
	if (t->kind == TL_LANE_COMM && !profdb_has(&pdb, "COMMUNICATION_OP")) {
		info = "SELECT * FROM COMMUNICATION_TASK_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
	}
	const char *key_sql = "SELECT globalTaskId FROM TASK WHERE rowid = ?";
	char info_c7[128];
	sqlite3_stmt *probe;
	if (info && profdb_prepare(&pdb, key_sql, &probe) != SQLITE_OK) {
		key_sql = "SELECT correlationId FROM TASK WHERE rowid = ?";
		const char *w = strstr(info, " WHERE globalTaskId");
		snprintf(info_c7, sizeof info_c7, "%.*s WHERE correlationId = ? LIMIT 1",
		         w ? (int)(w - info) : 0, info);
		info = w ? info_c7 : NULL;
	} else if (info) {
		sqlite3_finalize(probe);
	}
	if (profdb_prepare(&pdb, "SELECT value FROM STRING_IDS WHERE id = ?", &a.str) != SQLITE_OK)
		a.str = NULL;
	/* the operator's own fields first (op type, shapes, group...), then the task's */
	if (info) {
		sqlite3_stmt *st;
		if (profdb_prepare(&pdb, key_sql, &st) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, track_arg(t, idx));
			if (sqlite3_step(st) == SQLITE_ROW &&
			    sqlite3_column_type(st, 0) == SQLITE_INTEGER) /* no id: task 0's */
				query_row(&a, info, sqlite3_column_int64(st, 0), "");
			sqlite3_finalize(st);
		}
	}
	query_row(&a, sql, track_arg(t, idx), "");
	sqlite3_finalize(a.str);
	profdb_close(&pdb);
	return a.n;
}
