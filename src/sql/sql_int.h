/* Inside src/sql/: the tables' descriptions and the cursor the virtual-table module
 * (sql_vtab.c) walks them with. Each table's rows come from the query layer (sql_tables.c, the
 * slices in sql_slices.c), computed once per run on first use and kept in the sql_ctx. */
#ifndef TL_SQL_INT_H
#define TL_SQL_INT_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "query/query.h"

typedef struct sql_col {
	const char *name, *type, *doc;
} sql_col;

/* What a run has computed so far (every field filled on first use). */
typedef struct sql_ctx {
	const tl_query *q; /* NULL while the statement is only compiled */
	int declaring;     /* a table is declaring its schema (its own CREATE TABLE, parsed) */
	int have_comm;
	tl_comm_result cm;
	tl_coll_result cr;
	int have_steps;
	tl_rank_steps *rs;
	int have_ops;
	tl_ops_result ops;
	size_t **ops_g0; /* per rank index: each group's first task's row number, then the total */
	int have_counters;
	size_t *comm0, *link0, *stage0, *bubble0; /* per rank index: its first row, then the end */
	const tl_stage_row *stages;
	const tl_rl_bubble *bubbles;
	/* per rank index: the innermost stage over time (sql_slices.c), NULL until asked for */
	struct sql_stage_seg **seg;
	size_t *nseg;
	unsigned char *have_seg;
} sql_ctx;

typedef struct sql_cur {
	sqlite3_vtab_cursor base;
	const struct sql_table *t;
	sql_ctx *x;
	/* the constraints pushed down (xBestIndex): a rank number and a window of times; the
	 * rows outside may still come (SQLite checks every constraint again), never a row inside
	 * left out */
	int has_rank, rank;
	int64_t start_lo, start_hi, end_lo;
	int kind;              /* slices: the lane kind asked for (tl_lane_kind), -1 for any */
	size_t ri, ri_end;     /* the rank indexes still to walk */
	size_t k, n;           /* the row of the rank and its rows (the generic walk) */
	size_t ti, lo, hi;     /* slices: the track and its window */
	const tl_track *track; /* slices: r->tracks[ti] (found again if the host lanes came in) */
	size_t g;              /* ops: the group of row k */
	sqlite3_int64 rowid;
	int eof;
} sql_cur;

typedef struct sql_table {
	const char *name, *doc;
	const sql_col *cols;
	int ncols;
	unsigned need;   /* TL_TABLE_* its rows read */
	int time_window; /* start_ns and end_ns can be pushed down (columns 4 and 5) */
	/* computes what the rows need (once per run) */
	void (*prepare)(sql_ctx *);
	/* the generic walk: rank index ri has count(x, ri) rows */
	size_t (*count)(sql_ctx *, size_t ri);
	/* or its own: the first row of the cursor's ranks, the next (set c->eof at the end) */
	void (*first)(sql_cur *);
	void (*next)(sql_cur *);
	void (*column)(sql_cur *, sqlite3_context *, int col);
} sql_table;

extern const sql_table sql_tables[];
extern const size_t sql_ntables;
const sql_table *sql_table_find(const char *name);
void sql_ctx_free(sql_ctx *);

/* The slices table (sql_slices.c). */
#define SQL_SLICE_NCOLS 10
extern const sql_col sql_slice_cols[SQL_SLICE_NCOLS];
void sql_slices_prepare(sql_ctx *);
void sql_slices_first(sql_cur *);
void sql_slices_next(sql_cur *);
void sql_slices_column(sql_cur *, sqlite3_context *, int col);
void sql_slices_free(sql_ctx *);

/* The virtual-table module (sql_vtab.c): registers every table on db, over x. */
int sql_vtab_register(sqlite3 *db, sql_ctx *x);

/* Output (sql_out.c): the statement's rows to out; returns 0, or 1 after one line on stderr. */
int sql_out_rows(sqlite3_stmt *, FILE *out, int format, long long max_rows);

/* Runs a statement of sql_prepare over q with the run's defences but no row limit (tl export
 * writes every row of its window): body steps the statement and returns 0, or < 0 for SQLite's
 * error code (negated; sql.c says it), or > 0 after a line of its own. Returns 0 or 1. */
struct tl_sql;
int sql_run_rows(struct tl_sql *, const tl_query *q, int (*body)(sqlite3_stmt *, void *),
                 void *arg);

#endif
