/* Reading one table of a SQLite file straight from its pages: a full scan of a rowid table's
 * b-tree in rowid order, decoding only the record fields asked for. The loader's big tables
 * (TASK, the task-info tables, CANN_API, ...) are tens of millions of rows; stepping them
 * through SQLite's virtual machine is most of a cold load's CPU, while the rows themselves are
 * a few varints each. What SQLite is still needed for (the schema, which columns a table has,
 * their affinity, whether a scan would read the table itself) stays with SQLite: the caller
 * (ascend_db_conn.c) asks it, and hands this scanner a root page and record field indexes.
 *
 * The file format is https://www.sqlite.org/fileformat2.html. The scanner reads the main file
 * only, as an immutable open does (profdb.c). It trusts nothing: every page number, cell
 * offset, varint, record header and overflow chain is checked against the file, the page
 * count bounds the pages a scan visits (no cycle runs forever), and any inconsistency ends the
 * scan with DBPAGE_CORRUPT and a one-line reason. The reads are the caller's (dbpage_read_fn):
 * the loader reads with pread, the fuzz target from memory. Depends on nothing of tl's but
 * util/. */
#ifndef TL_DBPAGE_H
#define TL_DBPAGE_H
#include <stddef.h>
#include <stdint.h>

/* Reads n bytes at off into buf; returns the bytes read (fewer at the end of the file), or -1. */
typedef long (*dbpage_read_fn)(void *ctx, void *buf, size_t n, uint64_t off);

/* A cell's type: the values of SQLite's own SQLITE_INTEGER .. SQLITE_NULL, so that callers
 * may compare them with sqlite3_value_type's. */
enum { DBPAGE_INTEGER = 1, DBPAGE_FLOAT = 2, DBPAGE_TEXT = 3, DBPAGE_BLOB = 4, DBPAGE_NULL = 5 };

/* dbpage_next's results */
enum { DBPAGE_ROW = 1, DBPAGE_DONE = 0, DBPAGE_CORRUPT = -1, DBPAGE_IOERR = -2 };

/* One field of the current row. p (TEXT, BLOB) is valid until the next dbpage_next or
 * dbpage_close, and is not NUL-terminated. */
typedef struct dbpage_cell {
	int type;
	uint32_t n; /* TEXT / BLOB bytes */
	int64_t i;  /* INTEGER */
	double f;   /* FLOAT */
	const unsigned char *p;
} dbpage_cell;

/* What the caller knows of one wanted column. */
typedef struct dbpage_col {
	int field; /* its index in the table's records (the table's column order), or -1: the
	              table lacks the column, the cell is NULL. An INTEGER PRIMARY KEY column is
	              the rowid: its record field is NULL, the value is dbpage_rowid's. */
	int real;  /* REAL affinity: an integer on disk reads as a FLOAT, as SQLite reads it */
} dbpage_col;

typedef struct dbpage_scan dbpage_scan;

/* Checks the file's header (magic, page size, reserved bytes, UTF-8 text, page count) and
 * starts a scan of the table whose b-tree root is root_page, reading ncols columns (at most
 * DBPAGE_MAX_COLS). file_bytes is the file's size. Returns NULL with a reason in err when the
 * file is not one this scanner reads (a UTF-16 file, a root that is not a table b-tree leaf or
 * interior page, ...): the caller then reads the table through SQLite. */
#define DBPAGE_MAX_COLS 32
dbpage_scan *dbpage_open(dbpage_read_fn read, void *ctx, uint64_t file_bytes, uint32_t root_page,
                         const dbpage_col *cols, int ncols, char *err, size_t errlen);
/* The next row in rowid order: DBPAGE_ROW, DBPAGE_DONE, or DBPAGE_CORRUPT / DBPAGE_IOERR with
 * dbpage_error saying why; after an error every call returns the same error. */
int dbpage_next(dbpage_scan *);
/* Column i (0 .. ncols-1) of the current row; a field past the record's end is NULL (the
 * caller reads through SQLite a table whose added columns carry a default). */
const dbpage_cell *dbpage_cell_at(const dbpage_scan *, int i);
int64_t dbpage_rowid(const dbpage_scan *);
const char *dbpage_error(const dbpage_scan *);
/* Pages read so far (interior, leaf and overflow), for the tests. */
uint64_t dbpage_pages_read(const dbpage_scan *);
void dbpage_close(dbpage_scan *);

#endif
