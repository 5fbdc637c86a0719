/* Inside the DB loader: the compute operators (the data of load_ops) and the launches (of
 * load_launches) gathered while the loader reads COMPUTE_TASK_INFO, CANN_API and TASK anyway,
 * so that `tl summary --json` and `tl diff` do not scan TASK twice more. Each gathered table
 * is what its on-demand reader gives: the same rows, the same rules for unusable ones, the
 * same warnings. */
#ifndef TL_ASCEND_DB_GATHER_H
#define TL_ASCEND_DB_GATHER_H
#include <sqlite3.h>

#include "load/load.h"
#include "util/off32.h"
#include "util/u64map.h"

/* One cell of a row, as the loader reads it (each once per row): type SQLITE_INTEGER with its
 * value in v when the cell is usable as a number, SQLITE_NULL when it is NULL, else the type
 * of a cell that is no number (TEXT, REAL, BLOB), with v 0. Readers skip and count the rows
 * whose cells are not usable; they never take such a cell as 0.
 *
 * The rules (docs/architecture.md, "Damaged cells"): an id, size, count or STRING_IDS
 * reference is usable only as an INTEGER (SQLite's INTEGER affinity has already turned a text
 * or real that is an integer into one, so what stays TEXT or REAL in such a column is no
 * integer; and the SQL joins the on-demand readers use compare ids so). A time (db_time_at)
 * may also be TEXT holding exactly a decimal integer (PYTORCH_API declares its times TEXT):
 * an optional '-', then 1 to 19 digits, in range, nothing else (no spaces, no '+', no
 * fraction or exponent). */
typedef struct db_cell {
	int type;
	int64_t v;
} db_cell;

static inline db_cell
db_cell_at(sqlite3_stmt *st, int col)
{
	/* one column call, not two (sqlite3_column_type, then _int64): the loaders read
	 * tens of millions of cells, and each column call is a full API entry and exit */
	sqlite3_value *v = sqlite3_column_value(st, col);
	db_cell c = {sqlite3_value_type(v), 0};
	if (c.type == SQLITE_INTEGER)
		c.v = sqlite3_value_int64(v);
	return c;
}

/* A time cell: as db_cell_at, and a TEXT decimal integer is an INTEGER. The range of the
 * model (tl_time_ok) is not checked here. */
db_cell db_time_at(sqlite3_stmt *st, int col);

typedef struct db_gather {
	tl_rank *r;
	const tl_u64map *strs; /* the loader's STRING_IDS id -> rank pool id */
	tl_gather *g;
	tl_op_data *ops; /* r->ops while gathering the operators of this source, else NULL */
	int launches;    /* gathering the launches of this source */
	/* globalTaskId -> op group + 1 (its first COMPUTE_TASK_INFO row; 0: none): dense below
	 * ngt, else hashed; further rows of one id (a join gives one row each) chain in dup */
	uint32_t *gt_op;
	size_t ngt;
	tl_u64map gt_hop, gt_dup;
	struct db_dup {
		uint32_t group, next; /* next: index + 1 into dup, 0 ends */
	} * dup;
	size_t ndup, dupcap;
	uint32_t *str; /* rank pool id -> ops pool id + 1 (0: not yet) */
	size_t nstr;
	/* the group of each (name, op type, task type, shapes) STRING_IDS ids seen, so that a
	 * row costs one lookup: open addressing, key[4 i .. 4 i + 4) and group + 1 per slot */
	int64_t *tkey;
	uint32_t *tgrp;
	size_t tmask, tn;
	/* compute and communication globalTaskIds (the launched work): dense below ngt (a bit
	 * an id), else a set */
	uint8_t *work;
	tl_u64map hwork;
	/* connectionId -> slot: dense below ncall, else hashed; per slot the CANN_API call's
	 * start as an offset from its block's first (host from base[slot >> DBG_BLOCK_BITS])
	 * and its first work task's start as an offset from the call's (dev), each as
	 * util/off32.h keeps them (OFF32_NONE: none yet; beyond 32 bits: in whost / wide, by
	 * slot): 8 bytes a call while the rank is read, not a tl_launch's 16 (every
	 * call is read before the first task). dbg_finish makes the launches g takes in the
	 * slots' own memory and hands it over, so that the launches are never held twice */
	int conn_hashed;
	tl_u64map hconn;
	struct dbg_slot {
		int32_t host, dev;
	} * slot;
	int64_t *base; /* per block of DBG_BLOCK slots: its first call's start, INT64_MIN none */
	size_t ncall, callcap;
	off32_wide wide, whost;
} db_gather;

/* Starts gathering source path of r into g (NULL: nothing): ops when g asks for them, r->ops
 * is set and the DB has what the operator reader needs (has_ops); launches likewise
 * (has_launches). max_gt: the largest globalTaskId of the info tables, dense_gt: whether
 * ids up to it index arrays. */
void dbg_init(db_gather *, tl_rank *r, tl_gather *g, const tl_u64map *strs, int has_ops,
              int has_launches, int64_t max_gt, int dense_gt);
/* A COMPUTE_TASK_INFO row: its globalTaskId (an INTEGER) and its name, op type, task type and
 * input shapes cells (STRING_IDS ids; any other cell is the empty string). */
void dbg_compute(db_gather *, int64_t gt, const db_cell str[4]);
/* A compute or communication globalTaskId (an INTEGER). */
void dbg_work(db_gather *, int64_t gt);
/* Before the CANN_API rows: the largest connectionId and the row count. */
void dbg_calls(db_gather *, int64_t max_conn, int64_t rows);
/* A CANN_API row: its connectionId and startNs. */
void dbg_call(db_gather *, db_cell conn, db_cell start);
/* The start of the last call with connectionId conn that dbg_call kept, INT64_MIN: none (or
 * the launches are not gathered). */
int64_t dbg_call_host(const db_gather *, int64_t conn);
/* A TASK row: its startNs, endNs, globalTaskId and connectionId. */
void dbg_task(db_gather *, db_cell s, db_cell e, db_cell gt, db_cell conn);
/* After the source: the launches go to g, the warnings are said; failed: the load of the
 * source failed, so the rank gathers nothing (the queries read on demand, as without). */
void dbg_finish(db_gather *, const char *path, int failed);

#endif
