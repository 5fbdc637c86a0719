/* The loader's full scans of a table's columns: read straight from the file's pages (dbpage.c)
 * when SQLite would read them from the table's own b-tree in rowid order anyway, else stepped
 * through SQLite. Either way the rows, their order and their cells are the same: SQLite is
 * still asked which columns the table has, their affinity and defaults, where its b-tree
 * starts and whether the SELECT would scan it; the pages only replace the virtual machine's
 * stepping (most of a cold load's CPU). TL_DBPAGE=0 reads every table through SQLite (the
 * tests compare the two; the bench shows what the pages gain). */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "load/ascend/dbpage.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Cancellation (the viewer quit while loading) is looked at every this many rows, as SQLite's
 * progress handler looks at it every PROGRESS_OPS steps. */
#define CANCEL_ROWS 65536

static pthread_once_t pages_once = PTHREAD_ONCE_INIT;
static int pages_off;

static void
pages_init(void)
{
	const char *e = getenv("TL_DBPAGE");
	pages_off = e != NULL && strcmp(e, "0") == 0;
}

static long
read_at(void *ctx, void *buf, size_t n, uint64_t off)
{
	int fd = *(int *)ctx;
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (long)got;
}

/* SQLite's column affinity from a declared type (https://www.sqlite.org/datatype3.html, 3.1):
 * whether it is REAL, the one affinity that changes what a stored value reads as (an integral
 * value stored as an integer reads back as a REAL). */
static int
real_affinity(const char *decl)
{
	char up[128];
	size_t n = 0;
	for (; decl != NULL && decl[n] && n < sizeof up - 1; n++)
		up[n] = (char)(decl[n] >= 'a' && decl[n] <= 'z' ? decl[n] - 32 : decl[n]);
	up[n] = '\0';
	if (decl != NULL && decl[n] != '\0')
		return -1; /* a declared type longer than any profiler writes: SQLite reads it */
	if (strstr(up, "INT") || strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT") ||
	    strstr(up, "BLOB") || n == 0)
		return 0;
	return strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB");
}

/* Whether the table has an index SQLite made itself (a UNIQUE or PRIMARY KEY constraint's; its
 * sql is NULL): an INTEGER PRIMARY KEY with one is no rowid alias (the "DESC" quirk). */
static int
auto_index(db_ctx *c, const char *table)
{
	sqlite3_stmt *st;
	if (profdb_prepare(&c->pdb,
	                   "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
	                   "tbl_name = ?1 AND sql IS NULL",
	                   &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	int r = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) != 0 : -1;
	sqlite3_finalize(st);
	return r;
}

/* The record field and affinity of each wanted column, from PRAGMA table_xinfo, and in *alias
 * the wanted column that is the table's rowid alias (INTEGER PRIMARY KEY: the record holds NULL
 * there, SQLite reads the rowid), -1 for none. -1 when a wanted column is one SQLite does not
 * read from the record as it is: another primary key, a column with a default (rows older than
 * an ALTER TABLE ADD COLUMN lack it), a generated or hidden column. */
static int
page_fields(db_ctx *c, const char *table, const char *const *cols, int ncols, const int *have,
            dbpage_col *pc, int *alias)
{
	char sql[160];
	sqlite3_stmt *st;
	snprintf(sql, sizeof sql, "PRAGMA table_xinfo(\"%s\")", table);
	if (profdb_prepare(&c->pdb, sql, &st) != SQLITE_OK)
		return -1;
	for (int i = 0; i < ncols; i++)
		pc[i] = (dbpage_col){-1, 0};
	int field = 0, ok = 1, npk = 0, pk_int = 0;
	*alias = -1;
	while (ok && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *decl = (const char *)sqlite3_column_text(st, 2);
		int pk = sqlite3_column_int(st, 5) != 0;
		if (sqlite3_column_int(st, 6) != 0)
			ok = 0; /* hidden or generated: the record's fields are not the columns */
		npk += pk;
		if (pk)
			pk_int = decl != NULL && strcasecmp(decl, "INTEGER") == 0;
		for (int i = 0; ok && name != NULL && i < ncols; i++) {
			if (!have[i] || strcmp(name, cols[i]) != 0)
				continue;
			int real = real_affinity(decl);
			if (sqlite3_column_type(st, 4) != SQLITE_NULL || real < 0)
				ok = 0;
			pc[i] = (dbpage_col){field, real > 0};
			if (pk)
				*alias = i;
		}
		field++;
	}
	sqlite3_finalize(st);
	for (int i = 0; ok && i < ncols; i++)
		if (have[i] && pc[i].field < 0)
			ok = 0;
	if (ok && *alias >= 0) {
		/* read as the rowid, as SQLite reads it, when it is the alias; else no page scan */
		ok = npk == 1 && pk_int && auto_index(c, table) == 0;
		pc[*alias].field = -1;
	}
	return ok ? 0 : -1;
}

/* Whether SQLite reads the SELECT from the table's own b-tree (not a covering index, whose
 * order would be the index's), and the table's root page. */
static int
page_root(db_ctx *c, const char *table, const char *select, uint32_t *root)
{
	sqlite3_stmt *st;
	int ok = 0;
	char sql[2100];
	snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN %s", select);
	if (profdb_prepare(&c->pdb, sql, &st) != SQLITE_OK)
		return -1;
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *d = (const char *)sqlite3_column_text(st, 3);
		rows++;
		ok = d != NULL && strncmp(d, "SCAN ", 5) == 0 && strstr(d, "INDEX") == NULL;
		if (!ok)
			break;
	}
	sqlite3_finalize(st);
	if (!ok || rows != 1)
		return -1;
	if (profdb_prepare(&c->pdb,
	                   "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?1",
	                   &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER;
	int64_t r = ok ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (!ok || r < 1 || r > UINT32_MAX)
		return -1;
	*root = (uint32_t)r;
	return 0;
}

/* Opens the page scan of s's table, or returns -1 (s reads through SQLite). */
static int
pages_open(db_scan *s, const char *const *cols, const int *have)
{
	db_ctx *c = s->c;
	dbpage_col pc[DBPAGE_MAX_COLS];
	uint32_t root;
	pthread_once(&pages_once, pages_init);
	if (pages_off || s->ncols > DBPAGE_MAX_COLS ||
	    page_fields(c, s->table, cols, s->ncols, have, pc, &s->alias) != 0 ||
	    page_root(c, s->table, sqlite3_sql(s->st), &root) != 0)
		return -1;
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return -1;
	/* the file SQLite opened: the same one tl found (a file replaced since is read by
	 * SQLite alone, and the load's own check says it changed) */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (c->src != NULL && !source_is_file(c->src, &sb))) {
		close(fd);
		return -1;
	}
	char err[160];
	s->fd = fd;
	s->pg =
	    dbpage_open(read_at, &s->fd, (uint64_t)sb.st_size, root, pc, s->ncols, err, sizeof err);
	if (s->pg == NULL) {
		close(fd);
		s->fd = -1;
		return -1;
	}
	return 0;
}

int
db_scan_open(db_ctx *c, db_scan *s, const char *table, const char *const *cols, int ncols,
             int *have)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->table = table;
	s->ncols = ncols;
	s->alias = -1;
	s->fd = -1;
	s->st = db_prepare_cols(c, table, cols, ncols, have, NULL);
	if (s->st == NULL)
		return -1;
	if (pages_open(s, cols, have) == 0) {
		sqlite3_finalize(s->st); /* prepared for its columns and the trace only */
		s->st = NULL;
		/* what SQLite's own reads cached (the counts before a scan walk a whole table:
		 * its 2 MB of pages) is not read again by the scan: given back while the rank's
		 * larger tables are made (8 x 1M tasks: 2 MB less for each rank in flight) */
		sqlite3_db_release_memory(c->db);
		if (db_tracing()) /* (a comment to the sqlite3 shell) */
			fprintf(stderr, "-- the statement above: read from %s's pages\n", table);
	}
	return 0;
}

int
db_scan_step(db_scan *s)
{
	if (s->st != NULL)
		return sqlite3_step(s->st);
	if (s->rows % CANCEL_ROWS == CANCEL_ROWS - 1 && load_cancelled()) {
		snprintf(s->c->why, sizeof s->c->why, "interrupted");
		return SQLITE_INTERRUPT;
	}
	switch (dbpage_next(s->pg)) {
	case DBPAGE_ROW:
		s->rows++;
		return SQLITE_ROW;
	case DBPAGE_DONE:
		return SQLITE_DONE;
	case DBPAGE_IOERR:
		snprintf(s->c->why, sizeof s->c->why, "%s", dbpage_error(s->pg));
		return SQLITE_IOERR;
	default:
		snprintf(s->c->why, sizeof s->c->why, "%s", dbpage_error(s->pg));
		return SQLITE_CORRUPT;
	}
}

/* A TEXT cell of the page scan, NUL-terminated; NULL when it holds a NUL (SQLite's text would
 * end there, and its length would not match: no number). */
static const char *
page_text(db_scan *s, int col)
{
	const dbpage_cell *x = dbpage_cell_at(s->pg, col);
	if (x->n > 0 && memchr(x->p, '\0', x->n) != NULL)
		return NULL;
	if (s->textcap < (size_t)x->n + 1) {
		s->textcap = (size_t)x->n + 1;
		s->text = xrealloc(s->text, s->textcap);
	}
	if (x->n > 0)
		memcpy(s->text, x->p, x->n);
	s->text[x->n] = '\0';
	return s->text;
}

db_cell
db_scan_time(db_scan *s, int col)
{
	if (s->st != NULL)
		return db_time_at(s->st, col);
	db_cell c = db_scan_cell(s, col);
	if (c.type == SQLITE_TEXT) {
		const char *t = page_text(s, col);
		if (t != NULL && db_text_int(t, &c.v) == 0)
			c.type = SQLITE_INTEGER;
	}
	return c;
}

db_cell
db_scan_time_from(db_scan *s, int col, int64_t base)
{
	if (s->st != NULL)
		return db_time_from(s->st, col, base);
	db_cell c = db_scan_cell(s, col);
	if (c.type == SQLITE_TEXT) {
		const char *t = page_text(s, col);
		if (t != NULL && db_text_decimal(t, &c.v) == 0)
			c.type = SQLITE_INTEGER;
	}
	return db_time_based(c, base);
}

void
db_scan_close(db_scan *s)
{
	if (s->st != NULL)
		sqlite3_finalize(s->st);
	if (s->pg != NULL) {
		load_count_page_rows(s->rows);
		dbpage_close(s->pg);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s->text);
	memset(s, 0, sizeof *s);
	s->fd = -1;
}
