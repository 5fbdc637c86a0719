/* Inside the DB loader (ascend_db*.c): the reading context and the connection and schema
 * helpers every part of it shares (ascend_db_conn.c). No one outside these files sees it. */
#ifndef TL_ASCEND_DB_INT_H
#define TL_ASCEND_DB_INT_H
#include "load/ascend/ascend_db_gather.h"
#include "load/load_int.h"
#include "load/ascend/dbpage.h"
#include "load/ascend/profdb.h"
#include "util/u64map.h"

#include <sqlite3.h>
#include <stdint.h>

#define PROGRESS_ROWS 65536
/* Dense id arrays are used while ids stay below this many entries per row read; else a hash. */
#define DENSE_SLACK (1u << 20)

struct mstx_link;
struct db_op;

typedef struct db_ctx {
	const tl_source *src;
	tl_rank *r;
	tl_profdb pdb; /* the hardened connection (profdb.c) */
	sqlite3 *db;   /* pdb.db */
	const char *path;
	tl_u64map strs; /* STRING_IDS id -> pool id */
	/* globalTaskId -> class and name: dense when ids are dense (an entry a task, its class
	 * in the top 3 bits: 4 bytes a task where a byte and a name took 5), else hash maps */
	uint32_t *gt_ent;
	size_t gt_n;
	tl_u64map gt_hclass, gt_hname;
	int gt_hashed;
	/* steps of this source, sorted; global index = step_base + i */
	tl_step *steps;
	size_t nsteps, step_base;
	uint16_t *conn_step; /* CANN connectionId -> step (dense) */
	size_t conn_n;
	tl_u64map conn_hstep;
	int conn_hashed, have_conn_steps;
	int conn_from_gather; /* the steps from the gather's calls (dbg_call_host), no table */
	tl_u64map mstx_conn;  /* connectionId of host mstx ranges -> index into mstx */
	struct mstx_link *mstx;
	size_t nmstx, mstxcap;
	uint64_t rows, rows_reported;
	size_t bad_refs; /* STRING_IDS references that were no INTEGER (db_str_id) */
	int failed;      /* the DB itself is unusable (not SQLite, encrypted, crafted, ...): stop */
	char why[160];   /* why a page scan (db_scan) failed, for db_fail's message */
	db_gather gather; /* the operators and launches asked for besides (ascend_db_gather.h) */
	/* CANN 7.0's report_{device}.db: TASK keeps its times in TEXT columns start/end,
	 * nanoseconds after TARGET_INFO_SESSION_TIME.baseTimeNs (time_base), and the task key
	 * of TASK and the *_TASK_INFO tables is correlationId; no COMMUNICATION_OP, so each
	 * communication op is its sub-tasks' span (COMMUNICATION_TASK_INFO.opId). */
	const char *gt_col;  /* globalTaskId, or correlationId */
	const char *t_start; /* TASK's time columns: startNs/endNs, or start/end */
	const char *t_end;
	int rel_times;     /* TASK's times are relative to time_base */
	int64_t time_base; /* ns since the epoch */
	int derive_ops;    /* communication ops from COMMUNICATION_TASK_INFO.opId */
	struct db_op *ops; /* those ops, in opId order of first sight */
	size_t nops, opcap;
	tl_u64map op_index;   /* opId -> index into ops */
	tl_u64map op_of_task; /* task key -> index into ops */
} db_ctx;

/* What the DB loader keeps of a source: whether its operator pairs were read. */
typedef struct db_state {
	int fwdbwd_read;
	int meta_read;   /* dist_args was read while loading */
	char *dist_args; /* META_DATA's distributed_args (the pipeline layout), NULL: none */
} db_state;
/* Source si's state, made on first use. */
db_state *db_state_of(tl_rank *r, size_t si);
#define DIST_ARGS "distributed_args" /* META_DATA: the job's parallel layout (JSON) */
/* META_DATA's value of name on the connection, or NULL (malloc'd). */
char *meta_value(tl_profdb *p, const char *name);
/* The loader table's meta, state_save and state_restore hooks (ascend_db_state.c). */
char *ascend_db_meta(const tl_rank *r, size_t si, const char *name);
void ascend_db_state_save(const tl_rank *r, size_t si, uint8_t **out, size_t *len);
int ascend_db_state_restore(tl_rank *r, size_t si, const uint8_t *p, size_t len);

/* Opens src for r through the hardened connection; `then` ends the one-line message of a DB
 * that cannot be opened. */
int db_open(db_ctx *c, const tl_source *src, tl_rank *r, const char *then);
/* Counts n rows read towards the progress line. */
void db_rows(db_ctx *c, uint64_t n);
int db_has_table(db_ctx *c, const char *name);
/* Reports a failed statement once; returns -1. A hostile or unusable file (refused by the
 * authorizer, over the work budget or a limit, not SQLite at all) stops the whole rank. */
int db_fail(db_ctx *c, const char *what, int rc);
/* Sets have[i] when the table has the column cols[i]; returns how many it has, -1 on failure. */
int db_table_columns(db_ctx *c, const char *table, const char *const *cols, int ncols, int *have);
/* Builds "SELECT c1,c2,...,rowid FROM table", with NULL for columns the table lacks (columns
 * drift between torch_npu and CANN versions). have[i] is set for present columns. */
sqlite3_stmt *db_prepare_cols(db_ctx *c, const char *table, const char *const *cols, int ncols,
                              int *have, const char *tail);
/* Whether TL_TRACE_SQL=1 asks for the statements on stderr. */
int db_tracing(void);
/* Every statement goes through here; TL_TRACE_SQL=1 prints them. */
int db_prepare(db_ctx *c, const char *sql, sqlite3_stmt **st);
/* The pool id of the STRING_IDS id in column col (0 for NULL or an id without a row). A cell
 * that is no INTEGER names nothing: 0, counted in c->bad_refs. */
uint32_t db_str_id(db_ctx *c, sqlite3_stmt *st, int col);
/* The same of a cell already read. */
uint32_t db_str_id_cell(db_ctx *c, db_cell x);
/* Says once for table how many of its string references were no INTEGER, and resets the count. */
void db_report_refs(db_ctx *c, const char *table);
/* The first column of the first row of sql when it is an INTEGER, or def. */
int64_t db_scalar_i64(db_ctx *c, const char *table, const char *sql, int64_t def);
/* The largest INTEGER in column col of table, or def. SQLite's max() ranks TEXT and BLOB
 * above every number, so a damaged cell ('x') would be a plain max(col)'s answer: when that
 * answer is no INTEGER, the INTEGERs are scanned for theirs (max(col) alone is a lookup on
 * an INTEGER PRIMARY KEY or an index). */
int64_t db_int_max(db_ctx *c, const char *table, const char *col, int64_t def);
/* Reads STRING_IDS into c->strs (interned in the rank's pool). */
int db_read_strings(db_ctx *c);
/* A time cell counted from base (ns): as db_time_at, and a TEXT number in float notation
 * ('1.23282223630523e+17', as CANN 7.0 wrote TASK's times) is read exactly, in decimal, to
 * the nanosecond (a fraction of a nanosecond is dropped); the sum must stay in range. */
db_cell db_time_from(sqlite3_stmt *st, int col, int64_t base);
/* TEXT s as a decimal number ("-12", "1.5e+3", "1.23282223630523e+17") to a whole number,
 * exactly, dropping a fraction: 0, or -1 when s is no such number or out of range. */
int db_text_decimal(const char *s, int64_t *out);
/* A time column: INTEGER, or TEXT holding exactly a decimal integer (db_time_at). 0, or -1
 * when it is neither or out of range. */
int db_col_time(sqlite3_stmt *st, int col, int64_t *out);

/* TEXT t as exactly a decimal integer (db_time_at's rule): 0 with *out set, or -1. */
int db_text_int(const char *t, int64_t *out);
/* A time cell c counted from base, the sum kept in range (db_time_from). */
db_cell db_time_based(db_cell c, int64_t base);

/* A full scan of a table's columns, as db_prepare_cols' SELECT reads them (column ncols is the
 * rowid), read straight from the file's pages when SQLite would scan the table's b-tree
 * anyway, else stepped through SQLite (ascend_db_scan.c): the same rows in the same order. */
typedef struct db_scan {
	db_ctx *c;
	const char *table;
	int ncols;
	int alias;        /* the wanted column that is the rowid alias (page scans), or -1 */
	sqlite3_stmt *st; /* through SQLite, or */
	dbpage_scan *pg;  /* from the pages of fd */
	int fd;
	uint64_t rows;
	char *text; /* a TEXT cell, NUL-terminated */
	size_t textcap;
} db_scan;
/* 0, or -1 when the SELECT cannot be prepared (said, as db_prepare_cols says it). */
int db_scan_open(db_ctx *c, db_scan *s, const char *table, const char *const *cols, int ncols,
                 int *have);
/* SQLITE_ROW, SQLITE_DONE, or the error for db_fail. */
int db_scan_step(db_scan *s);
/* Cell col of the row, as db_cell_at reads it. */
static inline db_cell
db_scan_cell(const db_scan *s, int col)
{
	if (s->st != NULL)
		return db_cell_at(s->st, col);
	if (col == s->ncols || col == s->alias)
		return (db_cell){SQLITE_INTEGER, dbpage_rowid(s->pg)};
	const dbpage_cell *x = dbpage_cell_at(s->pg, col);
	return (db_cell){x->type, x->type == DBPAGE_INTEGER ? x->i : 0};
}
/* The pool id of the STRING_IDS reference in column col, as db_str_id gives it. */
static inline uint32_t
db_scan_str(db_scan *s, int col)
{
	return db_str_id_cell(s->c, db_scan_cell(s, col));
}
/* A time cell, as db_time_at and db_time_from read it. */
db_cell db_scan_time(db_scan *s, int col);
db_cell db_scan_time_from(db_scan *s, int col, int64_t base);
void db_scan_close(db_scan *s);

/* The on-demand hooks of the loader table, one file each: operator pairs (ascend_db_fwdbwd.c),
 * host lanes and launches (ascend_db_host.c), counters (ascend_db_counters.c). */
void ascend_db_fwdbwd(tl_rank *r, size_t si);
void ascend_db_host(const tl_source *src, size_t src_index, tl_rank *r);
void ascend_db_launches(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n,
                        size_t *cap);
int ascend_db_launch_recs(const tl_source *src, const tl_rank *r, tl_launch_rec **v, size_t *n,
                          tl_launch **l);
void ascend_db_counters(const tl_source *src, size_t src_index, tl_rank *r);
/* The link index of a source (ascend_db_linkix.c): (key, val) pairs sorted by key, then val. */
typedef struct db_ix_pair {
	int64_t key, val;
} db_ix_pair;
typedef struct db_ix_pairs {
	db_ix_pair *v;
	size_t n;
} db_ix_pairs;
enum {
	DB_IX_CANN,     /* CANN_API connectionId -> rowid */
	DB_IX_CID_CONN, /* CONNECTION_IDS connectionId -> id */
	DB_IX_CID_ID,   /* CONNECTION_IDS id -> connectionId */
	DB_IX_API,      /* PYTORCH_API connectionId (a CONNECTION_IDS id) -> rowid */
	DB_IX_TASK,     /* TASK connectionId -> rowid */
	DB_IX_COMM_OP,  /* COMMUNICATION_OP connectionId -> rowid */
	DB_IX__N
};
typedef struct db_link_ix {
	db_ix_pairs p[DB_IX__N];
	int cann_by_rowid; /* CANN_API's connectionId is its rowid: p[DB_IX_CANN] not read */
} db_link_ix;
/* The loader's link_index hooks: built from the source's DB (NULL when it cannot be read). */
void *ascend_db_link_index(const tl_rank *r, size_t si);
void ascend_db_link_index_free(void *);
/* The CANN_API row of connectionId conn (a rowid to read): 1, or 0 when there is none. */
int db_ix_cann(const db_link_ix *x, int64_t conn, int64_t *row);
/* The pairs of key: [return value, *end). */
size_t db_ix_find(const db_ix_pairs *p, int64_t key, size_t *end);
/* The PYTORCH_API rowids linked to connectionId conn (through CONNECTION_IDS), ascending, each
 * once; *out the caller's. */
size_t db_ix_api_rows(const db_link_ix *x, int64_t conn, int64_t **out);
/* The rowids of rows (DB_IX_TASK, DB_IX_COMM_OP) of any of the connectionIds conns (sorted),
 * ascending, each once; *out the caller's. */
size_t db_ix_rows_of_conns(const db_ix_pairs *rows, const int64_t *conns, size_t nconn,
                           int64_t **out);
/* The connectionIds of CONNECTION_IDS id, ascending; *out the caller's. */
size_t db_ix_conns_of_id(const db_link_ix *x, int64_t id, int64_t **out);

/* The link hooks (ascend_db_links.c): launcher, kernels, stack, allocations; ix the source's
 * link index or NULL. */
int ascend_db_launcher(const tl_rank *r, size_t si, const tl_track *t, size_t idx, tl_launcher *out,
                       const void *ix);
ptrdiff_t ascend_db_kernels(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
                            tl_kernel **out, const void *ix);
ptrdiff_t ascend_db_stack(const tl_rank *r, size_t si, const tl_track *t, size_t idx, char ***out);
int ascend_db_allocations(const tl_rank *r, size_t si, int64_t t, size_t max, tl_alloc **v,
                          size_t *n, size_t *cap);
/* The links hook (ascend_db_link_ends.c): the ends the link keys jump to. */
ptrdiff_t ascend_db_link_ends(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
                              tl_link_dir dir, tl_link_end **out, const void *ix);
/* A row's integer column by rowid (a lookup of the table's own key): 0, or -1 when the row or
 * the value is not there. */
int db_row_i64(tl_profdb *pdb, const char *table, const char *col, int64_t row, int64_t *out);

#endif
