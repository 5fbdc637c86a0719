/* Inside the DB loader (ascend_db*.c): the reading context and the connection and schema
 * helpers every part of it shares (ascend_db_conn.c). No one outside these files sees it. */
#ifndef TL_ASCEND_DB_INT_H
#define TL_ASCEND_DB_INT_H
#include "load/ascend_db_gather.h"
#include "load/load_int.h"
#include "load/profdb.h"
#include "util/u64map.h"

#include <sqlite3.h>
#include <stdint.h>

#define PROGRESS_ROWS 65536
/* Dense id arrays are used while ids stay below this many entries per row read; else a hash. */
#define DENSE_SLACK (1u << 20)

struct mstx_link;

typedef struct db_ctx {
	const tl_source *src;
	tl_rank *r;
	tl_profdb pdb; /* the hardened connection (profdb.c) */
	sqlite3 *db;   /* pdb.db */
	const char *path;
	tl_u64map strs; /* STRING_IDS id -> pool id */
	/* globalTaskId -> class and name: dense arrays when ids are dense, else hash maps */
	uint8_t *gt_class;
	uint32_t *gt_name;
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
	tl_u64map mstx_conn; /* connectionId of host mstx ranges -> index into mstx */
	struct mstx_link *mstx;
	size_t nmstx, mstxcap;
	uint64_t rows, rows_reported;
	size_t bad_refs; /* STRING_IDS references that were no INTEGER (db_str_id) */
	int failed;      /* the DB itself is unusable (not SQLite, encrypted, crafted, ...): stop */
	db_gather gather; /* the operators and launches asked for besides (ascend_db_gather.h) */
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
/* Every statement goes through here; TL_TRACE_SQL=1 prints them. */
int db_prepare(db_ctx *c, const char *sql, sqlite3_stmt **st);
/* The pool id of the STRING_IDS id in column col (0 for NULL or an id without a row). A cell
 * that is no INTEGER names nothing: 0, counted in c->bad_refs. */
uint32_t db_str_id(db_ctx *c, sqlite3_stmt *st, int col);
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
/* A time column: INTEGER, or TEXT holding exactly a decimal integer (db_time_at). 0, or -1
 * when it is neither or out of range. */
int db_col_time(sqlite3_stmt *st, int col, int64_t *out);

/* The on-demand hooks of the loader table, one file each: operator pairs (ascend_db_fwdbwd.c),
 * host lanes and launches (ascend_db_host.c), counters (ascend_db_counters.c). */
void ascend_db_fwdbwd(tl_rank *r, size_t si);
void ascend_db_host(const tl_source *src, size_t src_index, tl_rank *r);
void ascend_db_launches(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n,
                        size_t *cap);
void ascend_db_counters(const tl_source *src, size_t src_index, tl_rank *r);
/* The link hooks (ascend_db_links.c): launcher, kernels, stack, allocations. */
int ascend_db_launcher(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
                       tl_launcher *out);
ptrdiff_t ascend_db_kernels(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
                            tl_kernel **out);
ptrdiff_t ascend_db_stack(const tl_rank *r, size_t si, const tl_track *t, size_t idx, char ***out);
int ascend_db_allocations(const tl_rank *r, size_t si, int64_t t, size_t max, tl_alloc **v,
                          size_t *n, size_t *cap);
/* The links hook (ascend_db_link_ends.c): the ends the link keys jump to. */
ptrdiff_t ascend_db_link_ends(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
                              tl_link_dir dir, tl_link_end **out);

#endif
