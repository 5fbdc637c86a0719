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

struct sql_cur;

/* How a column's value is read from the row the table's locate() found: the cursor holds up to
 * two pointers to the row's structs (row[0], row[1]: a link and its op, a slice and its track),
 * a string pool and an element index; a column names its struct (src), the field's offset and
 * its type. A value no field holds is the table's own function (SQL_FN). */
typedef enum sql_get {
	SQL_FN,     /* fn(cursor, ctx) */
	SQL_RANK,   /* the cursor's rank number */
	SQL_INT,    /* an int */
	SQL_I64,    /* an int64_t */
	SQL_U64,    /* a uint64_t */
	SQL_SIZE,   /* a size_t */
	SQL_U16,    /* a uint16_t */
	SQL_F64,    /* a double */
	SQL_STR,    /* a const char *, NULL for none */
	SQL_CHARS,  /* a char array */
	SQL_POOL,   /* a uint32_t string id in the cursor's pool */
	SQL_I64_AT, /* an int64_t *: its element at the cursor's index */
	SQL_DIFF,   /* int64_t at off minus int64_t at off2 */
	SQL_SUM,    /* int64_t at off plus int64_t at off2 */
	SQL_STAGE,  /* an int stage index: its name, NULL for TL_STAGE_NONE */
} sql_get;

enum {
	SQL_NULL_NEG = 1,   /* a negative number reads as NULL (-1: none) */
	SQL_NULL_EMPTY = 2, /* an empty string reads as NULL */
};

typedef struct sql_col {
	const char *name, *type, *doc;
	unsigned char get, src, flags; /* sql_get, the row pointer it reads, SQL_NULL_* */
	size_t off, off2;
	void (*fn)(struct sql_cur *, sqlite3_context *);
} sql_col;

/* A field of struct T read as `how` from row pointer src: the build fails when the field's type
 * is not the C type the reader expects (the _Generic has no other case). */
#define SQL_TYPE_CHECK(T, f, ctype) (0 * sizeof(char[_Generic(((T *)0)->f, ctype : 1)]))
#define SQL_FIELD(how, ctype, s, T, f)                                                             \
	.get = how, .src = s, .off = offsetof(T, f) + SQL_TYPE_CHECK(T, f, ctype)
#define SQL_INT_OF(s, T, f) SQL_FIELD(SQL_INT, int, s, T, f)
#define SQL_I64_OF(s, T, f) SQL_FIELD(SQL_I64, int64_t, s, T, f)
#define SQL_U64_OF(s, T, f) SQL_FIELD(SQL_U64, uint64_t, s, T, f)
#define SQL_SIZE_OF(s, T, f) SQL_FIELD(SQL_SIZE, size_t, s, T, f)
#define SQL_U16_OF(s, T, f) SQL_FIELD(SQL_U16, uint16_t, s, T, f)
#define SQL_F64_OF(s, T, f) SQL_FIELD(SQL_F64, double, s, T, f)
#define SQL_STR_OF(s, T, f) SQL_FIELD(SQL_STR, const char *, s, T, f)
#define SQL_CHARS_OF(s, T, f) SQL_FIELD(SQL_CHARS, char *, s, T, f)
#define SQL_POOL_OF(s, T, f) SQL_FIELD(SQL_POOL, uint32_t, s, T, f)
#define SQL_ARRAY_OF(s, T, f) SQL_FIELD(SQL_I64_AT, int64_t *, s, T, f)
#define SQL_STAGE_OF(s, T, f) SQL_FIELD(SQL_STAGE, int, s, T, f)
/* a - b, a + b: two int64_t fields of one struct */
#define SQL_TWO(how, s, T, a, b)                                                                   \
	.get = how, .src = s, .off = offsetof(T, a) + SQL_TYPE_CHECK(T, a, int64_t),               \
	.off2 = offsetof(T, b) + SQL_TYPE_CHECK(T, b, int64_t)
#define SQL_DIFF_OF(s, T, a, b) SQL_TWO(SQL_DIFF, s, T, a, b)
#define SQL_SUM_OF(s, T, a, b) SQL_TWO(SQL_SUM, s, T, a, b)

/* An array of rows sorted by rank index (a size_t field of each row): per rank index its first
 * row, then the end (first == NULL until filled). */
typedef struct sql_by_rank {
	const char *rows;
	size_t size; /* of a row */
	size_t *first;
} sql_by_rank;

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
	unsigned long long rows_read; /* rows the tables handed to SQLite (TL_STATS) */
	int have_findings;
	struct tl_finding *find; /* tl triage's findings, ranked */
	size_t nfind;
	size_t *comm0, *link0; /* per rank index: its first row, then the end */
	sql_by_rank stages, bubbles;
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
	int kind;     /* slices: the lane kind asked for (tl_lane_kind), -1 for any */
	int has_step; /* a step id asked for (the table's step_col = step_id) */
	int64_t step_id;
	int step_found;           /* the cursor's rank has a step of that id, ... */
	int64_t step_t0, step_t1; /* ... whose host ranges span [t0, t1] (sql_step_window) */
	size_t step_ri;           /* the rank those are of, SIZE_MAX before the first */
	size_t ri, ri_end;        /* the rank indexes still to walk */
	size_t k, n;              /* the row of the rank and its rows (the generic walk) */
	size_t ti, lo, hi;        /* slices: the track and its window */
	const tl_track *track; /* slices: r->tracks[ti] (found again if the host lanes came in) */
	size_t g;              /* ops: the group of row k */
	/* the row the columns read (the table's locate): its structs, pool and element index */
	const void *row[2];
	const tl_strpool *pool;
	size_t idx;
	int located; /* row[] is the current row's (0 after each move) */
	sqlite3_int64 rowid;
	int eof;
} sql_cur;

typedef struct sql_table {
	const char *name, *doc;
	const sql_col *cols;
	int ncols;
	unsigned need;   /* TL_TABLE_* its rows read */
	int time_window; /* start_ns and end_ns can be pushed down (columns 4 and 5) */
	int whole;       /* not by rank: one walk over every row (column 0 is not the rank) */
	int step_col;    /* the column `step = N` is pushed down on, 0 for none */
	/* the generic walk: a row that cannot match the pushed-down step (NULL: every row may) */
	int (*step_may)(sql_cur *);
	/* computes what the rows need (once per run) */
	void (*prepare)(sql_ctx *);
	/* the generic walk: rank index ri has count(x, ri) rows */
	size_t (*count)(sql_ctx *, size_t ri);
	/* or its own: the first row of the cursor's ranks, the next (set c->eof at the end) */
	void (*first)(sql_cur *);
	void (*next)(sql_cur *);
	/* points the cursor at its row (row[], pool, idx) for the columns to read; 0: no row
	 * (every column NULL) */
	int (*locate)(sql_cur *);
} sql_table;

extern const sql_table sql_tables[];
extern const size_t sql_ntables;
const sql_table *sql_table_find(const char *name);
void sql_ctx_free(sql_ctx *);

/* The cursor's pushed-down step on its rank c->ri: sets step_found, step_t0 and step_t1 (once
 * per rank). A row whose step is the step of the host range holding a time t can match only when
 * step_found and t is in [t0, t1]. In sql_slices.c; the generic walk (ops) uses it too. */
void sql_step_window(sql_cur *);

/* The slices table (sql_slices.c). */
#define SQL_SLICE_NCOLS 10
extern const sql_col sql_slice_cols[SQL_SLICE_NCOLS];
void sql_slices_prepare(sql_ctx *);
void sql_slices_first(sql_cur *);
void sql_slices_next(sql_cur *);
int sql_slices_locate(sql_cur *);
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
