/* The page scanner (load/ascend/dbpage.c) against SQLite itself: DBs written here through the
 * sqlite3 API at several page sizes, with reserved bytes, every serial type, overflow chains,
 * REAL affinity, added columns, deleted rows and a b-tree of several interior levels, each
 * scanned by dbpage and compared cell by cell (type, value, text bytes, floats bitwise) with
 * `SELECT cols, rowid FROM t`; then the same files made hostile (cycles, pages past the end,
 * cells and varints off the page, looping overflow chains, wrong page types, random bytes),
 * each of which must end the scan with CORRUPT or IOERR and a reason, or be refused. */
#include "config.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/ascend/dbpage.h"
#include "util/xalloc.h"
#include "../test.h"

static char *dir;

/* ---- a file image in memory, read by the scanner ------------------------------------------ */

typedef struct img {
	unsigned char *p;
	size_t n;
	long reads_left; /* reads before one fails (-1: never) */
} img;

static long
img_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	img *m = ctx;
	if (m->reads_left == 0)
		return -1;
	if (m->reads_left > 0)
		m->reads_left--;
	if (off >= m->n)
		return 0;
	size_t k = m->n - off < n ? m->n - (size_t)off : n;
	memcpy(buf, m->p + off, k);
	return (long)k;
}

static img
img_load(const char *path)
{
	img m = {NULL, 0, -1};
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (f != NULL && fstat(fileno(f), &st) == 0) {
		m.p = xmalloc((size_t)st.st_size + 1);
		m.n = fread(m.p, 1, (size_t)st.st_size, f);
	}
	if (f != NULL)
		fclose(f);
	return m;
}

static img
img_copy(const img *m)
{
	img c = {xmalloc(m->n + 1), m->n, -1};
	memcpy(c.p, m->p, m->n);
	return c;
}

static uint32_t
be2(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
be4(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
put4(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t
img_pgsz(const img *m)
{
	uint32_t ps = be2(m->p + 16);
	return ps == 1 ? 65536 : ps;
}

/* The b-tree header of page pg of m. */
static unsigned char *
page_hdr(const img *m, uint32_t pg)
{
	return m->p + (size_t)(pg - 1) * img_pgsz(m) + (pg == 1 ? 100 : 0);
}

/* ---- DBs made through SQLite ---------------------------------------------------------------- */

static int
exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		printf("# %s: %s\n", sql, err ? err : "?");
	sqlite3_free(err);
	return rc == SQLITE_OK ? 0 : -1;
}

/* A new DB NAME.db in dir with the page size and reserved bytes given; its path in path. */
static sqlite3 *
db_new(const char *name, int pgsz, int reserve, char *path, size_t len)
{
	snprintf(path, len, "%s/%s.db", dir, name);
	unlink(path);
	sqlite3 *db = NULL;
	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return NULL;
	}
	char *ps = xasprintf(
	    "PRAGMA page_size = %d; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF", pgsz);
	exec(db, ps);
	free(ps);
	if (reserve > 0)
		sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
	return db;
}

static int64_t
sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static uint32_t
root_of(sqlite3 *db, const char *table)
{
	if (strcmp(table, "sqlite_schema") == 0)
		return 1;
	char *q = sqlite3_mprintf("SELECT rootpage FROM sqlite_schema WHERE name = %Q", table);
	int64_t r = sql_int(db, q);
	sqlite3_free(q);
	return (uint32_t)r;
}

/* ---- the comparison --------------------------------------------------------------------- */

typedef struct tcol {
	const char *sql; /* the column (or NULL) as SELECT reads it */
	int field, real;
} tcol;

static int
cell_equals(const dbpage_cell *c, sqlite3_stmt *st, int i, char *why, size_t len)
{
	int t = sqlite3_column_type(st, i);
	if (c->type != t) {
		snprintf(why, len, "type %d, SQLite's %d", c->type, t);
		return 0;
	}
	if (t == SQLITE_INTEGER && c->i != sqlite3_column_int64(st, i)) {
		snprintf(why, len, "%lld, SQLite's %lld", (long long)c->i,
		         (long long)sqlite3_column_int64(st, i));
		return 0;
	}
	if (t == SQLITE_FLOAT) {
		double d = sqlite3_column_double(st, i);
		if (memcmp(&d, &c->f, sizeof d) != 0) {
			snprintf(why, len, "%.17g, SQLite's %.17g", c->f, d);
			return 0;
		}
	}
	if (t == SQLITE_TEXT || t == SQLITE_BLOB) {
		const void *p = t == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, i)
		                                 : sqlite3_column_blob(st, i);
		uint32_t n = (uint32_t)sqlite3_column_bytes(st, i);
		if (n != c->n || (n > 0 && memcmp(p, c->p, n) != 0)) {
			snprintf(why, len, "%u bytes differing from SQLite's %u", c->n, n);
			return 0;
		}
	}
	return 1;
}

/* Scans table of the DB at path (read as the image m) with cols and compares every row with
 * SQLite's: one check named what. Returns the rows (-1 on a mismatch). */
static int64_t
compare(const char *what, const char *path, const img *m0, const char *table, const tcol *cols,
        int ncols)
{
	img mm = m0 ? *m0 : img_load(path);
	img *m = &mm;
	sqlite3 *db = test_sql_open(path);
	uint32_t root = db ? root_of(db, table) : 0;
	dbpage_col dc[DBPAGE_MAX_COLS];
	char *sel = xstrdup("SELECT ");
	for (int i = 0; i < ncols; i++) {
		dc[i].field = cols[i].field;
		dc[i].real = cols[i].real;
		char *s2 = xasprintf("%s%s, ", sel, cols[i].sql);
		free(sel);
		sel = s2;
	}
	char *q = xasprintf("%srowid FROM \"%s\"", sel, table);
	free(sel);
	char err[200] = "", why[400] = "";
	sqlite3_stmt *st = NULL;
	dbpage_scan *s = dbpage_open(img_read, m, m->n, root, dc, ncols, err, sizeof err);
	int64_t rows = 0;
	int ok = s != NULL && sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK;
	if (s == NULL)
		snprintf(why, sizeof why, "refused: %s", err);
	while (ok) {
		int rc = dbpage_next(s), sr = sqlite3_step(st);
		if (rc != DBPAGE_ROW || sr != SQLITE_ROW) {
			if (rc != DBPAGE_DONE || sr != SQLITE_DONE) {
				snprintf(why, sizeof why, "row %lld: dbpage %d (%s), SQLite %d",
				         (long long)rows, rc, dbpage_error(s), sr);
				ok = 0;
			}
			break;
		}
		if (dbpage_rowid(s) != sqlite3_column_int64(st, ncols)) {
			snprintf(why, sizeof why, "row %lld: rowid %lld, SQLite's %lld",
			         (long long)rows, (long long)dbpage_rowid(s),
			         (long long)sqlite3_column_int64(st, ncols));
			ok = 0;
		}
		for (int i = 0; ok && i < ncols; i++) {
			char w[200];
			if (!cell_equals(dbpage_cell_at(s, i), st, i, w, sizeof w)) {
				snprintf(why, sizeof why, "row %lld (rowid %lld) column %s: %s",
				         (long long)rows, (long long)dbpage_rowid(s), cols[i].sql,
				         w);
				ok = 0;
			}
		}
		rows++;
	}
	/* every page of the table's b-tree and overflow chains read exactly once */
	char *dq = sqlite3_mprintf("SELECT count(*) FROM dbstat WHERE name = %Q", table);
	int64_t pages = ok ? sql_int(db, dq) : -1;
	sqlite3_free(dq);
	if (ok && pages > 0 && (uint64_t)pages != dbpage_pages_read(s)) {
		snprintf(why, sizeof why, "%llu pages read, dbstat's %lld",
		         (unsigned long long)dbpage_pages_read(s), (long long)pages);
		ok = 0;
	}
	if (ok && dbpage_next(s) != DBPAGE_DONE) {
		snprintf(why, sizeof why, "a call after the end is not DONE");
		ok = 0;
	}
	CHECK(ok, "%s: %lld rows and %lld pages as SQLite reads them%s%s", what, (long long)rows,
	      (long long)pages, ok ? "" : ": ", why);
	dbpage_close(s);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(q);
	if (m0 == NULL)
		free(mm.p);
	return ok ? rows : -1;
}

/* ---- every serial type, overflow, REAL affinity, at several page sizes --------------------- */

/* A value of a random kind bound to parameter k: NULL, integers of every width and the edges,
 * reals (some integral), text and blobs from empty to several pages long. */
static void
bind_random(sqlite3_stmt *st, int k, uint64_t *rnd, int big)
{
	static const int64_t edges[] = {0,
	                                1,
	                                -1,
	                                127,
	                                -128,
	                                128,
	                                -129,
	                                32767,
	                                -32768,
	                                32768,
	                                8388607,
	                                -8388608,
	                                8388608,
	                                2147483647,
	                                -2147483647 - 1,
	                                2147483648,
	                                INT64_C(140737488355327),
	                                INT64_C(-140737488355328),
	                                INT64_C(140737488355328),
	                                INT64_MAX,
	                                INT64_MIN};
	static char buf[200000];
	uint64_t r = test_xorshift(rnd);
	int bits = (int)(r >> 8 & 63);
	switch (r % 10) {
	case 0:
		sqlite3_bind_null(st, k);
		break;
	case 1:
		sqlite3_bind_int64(st, k, edges[(r >> 16) % (sizeof edges / sizeof *edges)]);
		break;
	case 2:
	case 3: {
		uint64_t v = test_xorshift(rnd) >> (63 - bits);
		sqlite3_bind_int64(st, k, r & 0x10000 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1));
		break;
	}
	case 4: {
		uint64_t u = test_xorshift(rnd);
		double d;
		memcpy(&d, &u, sizeof d);
		sqlite3_bind_double(st, k, isnan(d) ? 0.5 : d);
		break;
	}
	case 5:
		sqlite3_bind_double(st, k, (double)(int64_t)(r >> 40) - 8000000.0); /* integral */
		break;
	case 6:
	case 7: {
		size_t n = r >> 32 & 15;
		if ((r & 0x700000) == 0)
			n = (size_t)(r >> 20) % (big ? sizeof buf : 3000);
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)('a' + (i * 7 + (r & 31)) % 26);
		sqlite3_bind_text(st, k, buf, (int)n, SQLITE_TRANSIENT);
		break;
	}
	default: {
		size_t n = r >> 32 & 15;
		if ((r & 0x700000) == 0)
			n = (size_t)(r >> 20) % (big ? sizeof buf : 3000);
		for (size_t i = 0; i < n; i++)
			buf[i] = (char)(test_xorshift(rnd) >> 24);
		sqlite3_bind_blob(st, k, buf, (int)n, SQLITE_TRANSIENT);
		break;
	}
	}
}

static const tcol mixed_cols[] = {
    {"f", 5, 0}, {"a", 0, 0}, {"b", 1, 1}, {"NULL", -1, 0}, {"c", 2, 0},
    {"e", 4, 0}, {"d", 3, 0}, {"a", 0, 0}, {"g", 6, 1},     {"NULL", 9, 0},
};

/* A DB of table t (a, b REAL, c, d, e, f, g REAL) of rows random values. */
static int
mixed_db(const char *name, int pgsz, int reserve, int rows, int big, char *path, size_t len)
{
	sqlite3 *db = db_new(name, pgsz, reserve, path, len);
	if (db == NULL || exec(db, "CREATE TABLE t (a, b REAL, c, d INTEGER, e TEXT, f BLOB, "
	                           "g REAL); BEGIN") != 0) {
		sqlite3_close(db);
		return -1;
	}
	sqlite3_stmt *st = NULL;
	sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)", -1, &st, NULL);
	uint64_t rnd = 0x9e3779b97f4a7c15u ^ (uint64_t)pgsz;
	for (int r = 0; r < rows; r++) {
		for (int k = 1; k <= 7; k++)
			bind_random(st, k, &rnd, big && r % 50 == 0);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	/* every constant form once more, in one row each */
	exec(db, "INSERT INTO t VALUES (0, 1, 1, 0, '', x'', 2.0);"
	         "INSERT INTO t VALUES (-9223372036854775808, 9223372036854775807, 1.5, -0.0, "
	         "'x', x'00ff', -3)");
	int rc = exec(db, "COMMIT");
	sqlite3_close(db);
	return rc;
}

static void
test_mixed(void)
{
	static const struct {
		int pgsz, reserve, rows, big;
	} cases[] = {
	    {512, 0, 3000, 1},    {4096, 0, 3000, 1}, {65536, 0, 3000, 1},
	    {1024, 40, 2000, 1},  {512, 32, 2000, 1}, /* U = 480, the least there is */
	    {8192, 255, 1000, 0},
	};
	char path[512];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char name[64], what[128];
		snprintf(name, sizeof name, "mixed%zu", i);
		if (mixed_db(name, cases[i].pgsz, cases[i].reserve, cases[i].rows, cases[i].big,
		             path, sizeof path) != 0) {
			CHECK(0, "%s: made", name);
			continue;
		}
		snprintf(what, sizeof what, "every serial type, page size %d, %d reserved bytes",
		         cases[i].pgsz, cases[i].reserve);
		compare(what, path, NULL, "t", mixed_cols, 10);
		snprintf(what, sizeof what, "page size %d: only the missing columns",
		         cases[i].pgsz);
		static const tcol none[] = {{"NULL", -1, 0}, {"NULL", 40, 1}};
		compare(what, path, NULL, "t", none, 2);
		snprintf(what, sizeof what, "page size %d: no columns", cases[i].pgsz);
		compare(what, path, NULL, "t", none, 0);
	}
	/* the schema table: page 1, whose b-tree header follows the file header */
	static const tcol schema[] = {
	    {"type", 0, 0}, {"name", 1, 0}, {"tbl_name", 2, 0}, {"rootpage", 3, 0}, {"sql", 4, 0}};
	compare("sqlite_schema, on page 1", path, NULL, "sqlite_schema", schema, 5);
}

/* ---- shapes: deep trees, added columns, deleted rows, interleaved tables, empty tables ---- */

static const tcol task_cols[] = {{"a", 0, 0}, {"b", 1, 0}, {"c", 2, 0}, {"d", 3, 0}, {"e", 4, 0},
                                 {"f", 5, 0}, {"g", 6, 1}, {"h", 7, 0}, {"i", 8, 0}};

static int
task_rows(sqlite3 *db, const char *table, int from, int n)
{
	char *q = xasprintf("INSERT INTO %s VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", table);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, q, -1, &st, NULL);
	free(q);
	for (int r = from; rc == SQLITE_OK && r < from + n; r++) {
		int64_t t = INT64_C(1736407067001000000) + (int64_t)r * 1733;
		int64_t v[9] = {t, t + r % 977, 0, r, r / 3, 4294967295, r % 11, -r, r % 2};
		for (int k = 0; k < 9; k++)
			sqlite3_bind_int64(st, k + 1, v[k]);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = SQLITE_ERROR;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -1;
}

static const char task_ddl[] = "(a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER, "
                               "f INTEGER, g REAL, h INTEGER, i INTEGER)";

static void
test_deep(char *path, size_t len)
{
	sqlite3 *db = db_new("deep", 512, 0, path, len);
	char *ddl = xasprintf("CREATE TABLE t %s; BEGIN", task_ddl);
	int ok = db && exec(db, ddl) == 0 && task_rows(db, "t", 0, 200000) == 0 &&
	         exec(db, "COMMIT") == 0;
	free(ddl);
	/* the depth of the tree: dbstat's paths are /000/001/... */
	int64_t depth =
	    ok ? sql_int(db, "SELECT max(length(path)) / 4 FROM dbstat WHERE name='t'") : -1;
	sqlite3_close(db);
	CHECK(ok && depth >= 3, "200000 rows at 512-byte pages: a tree of %lld levels",
	      (long long)depth);
	compare("three levels of interior pages", path, NULL, "t", task_cols, 9);
}

static void
test_shapes(void)
{
	char path[512];
	sqlite3 *db = db_new("alter", 1024, 0, path, sizeof path);
	int ok = db && exec(db, "CREATE TABLE t (a, b); BEGIN") == 0;
	for (int i = 0; ok && i < 500; i++) {
		char *q = xasprintf("INSERT INTO t VALUES (%d, 'r%d')", i, i);
		ok = exec(db, q) == 0;
		free(q);
	}
	ok = ok && exec(db, "COMMIT; ALTER TABLE t ADD COLUMN c INTEGER; "
	                    "ALTER TABLE t ADD COLUMN d REAL; "
	                    "INSERT INTO t SELECT a + 1000, b, a, a FROM t") == 0;
	sqlite3_close(db);
	static const tcol alter_cols[] = {{"d", 3, 1}, {"c", 2, 0}, {"b", 1, 0}, {"a", 0, 0}};
	CHECK(ok, "a table with added columns made");
	compare("added columns: old rows have fewer fields (NULL)", path, NULL, "t", alter_cols, 4);

	db = db_new("deleted", 512, 0, path, sizeof path);
	char *ddl = xasprintf("CREATE TABLE t %s; CREATE TABLE u (x); BEGIN", task_ddl);
	ok = db && exec(db, ddl) == 0 && task_rows(db, "t", 0, 6000) == 0 &&
	     exec(db, "INSERT INTO u SELECT randomblob(3000) FROM t LIMIT 20; COMMIT") == 0 &&
	     exec(db, "DELETE FROM t WHERE d % 3 != 0 OR d BETWEEN 1000 AND 4000; "
	              "DELETE FROM u WHERE rowid % 2 = 0") == 0;
	free(ddl);
	int64_t freel = db ? sql_int(db, "PRAGMA freelist_count") : 0;
	sqlite3_close(db);
	CHECK(ok && freel > 0, "deleted rows: %lld pages on the freelist", (long long)freel);
	compare("deleted rows: sparse rowids", path, NULL, "t", task_cols, 9);
	static const tcol ucol[] = {{"x", 0, 0}};
	compare("deleted rows with overflow chains", path, NULL, "u", ucol, 1);

	/* two tables written in turns: their leaves interleave (chunks serve few pages) */
	db = db_new("interleaved", 4096, 0, path, sizeof path);
	ddl = xasprintf("CREATE TABLE t %s; CREATE TABLE v %s; CREATE TABLE e (x)", task_ddl,
	                task_ddl);
	ok = db && exec(db, ddl) == 0;
	free(ddl);
	for (int i = 0; ok && i < 400; i++)
		ok = task_rows(db, i % 3 ? "t" : "v", i * 100, 100) == 0;
	sqlite3_close(db);
	CHECK(ok, "two interleaved tables made");
	compare("interleaved leaves, table t", path, NULL, "t", task_cols, 9);
	compare("interleaved leaves, table v", path, NULL, "v", task_cols, 9);
	compare("an empty table", path, NULL, "e", ucol, 1);

	/* bytes past the page count the header gives: not read */
	img m = img_load(path);
	m.p = xrealloc(m.p, m.n + 3000);
	memset(m.p + m.n, 0xee, 3000);
	m.n += 3000;
	compare("3000 bytes of junk after the last page", path, &m, "t", task_cols, 9);
	free(m.p);
}

/* ---- refusals and hostile files ---------------------------------------------------------- */

/* Scans m's table at root to the end: the last result; checks that an error repeats and has a
 * reason. */
static int
scan_all(img *m, uint64_t file_bytes, uint32_t root, int *refused, char *msg, size_t len)
{
	static const dbpage_col cols[] = {{0, 0}, {1, 1}, {2, 0}, {5, 0}, {8, 0}, {-1, 0}};
	char err[200] = "";
	*refused = 0;
	dbpage_scan *s = dbpage_open(img_read, m, file_bytes, root, cols, 6, err, sizeof err);
	if (s == NULL) {
		*refused = 1;
		snprintf(msg, len, "%s", err);
		return 0;
	}
	int rc;
	long rows = 0;
	while ((rc = dbpage_next(s)) == DBPAGE_ROW) {
		for (int i = 0; i < 6; i++) {
			const dbpage_cell *c = dbpage_cell_at(s, i);
			if (c->type == DBPAGE_TEXT || c->type == DBPAGE_BLOB)
				for (uint32_t k = 0; k < c->n; k++)
					rows += c->p[k] == 0x01; /* every byte readable */
		}
		rows++;
	}
	snprintf(msg, len, "%s", dbpage_error(s));
	if (rc < 0 && (dbpage_next(s) != rc || strcmp(dbpage_error(s), msg) != 0 || !*msg))
		rc = 99; /* an error that does not repeat, or no reason */
	dbpage_close(s);
	return rc;
}

static void
hostile(const char *what, img *m, uint64_t file_bytes, uint32_t root, int want_refusal)
{
	char msg[200];
	int refused;
	int rc = scan_all(m, file_bytes, root, &refused, msg, sizeof msg);
	if (want_refusal)
		CHECK(refused && *msg, "%s: refused (%s)", what, msg);
	else
		CHECK(!refused && (rc == DBPAGE_CORRUPT || rc == DBPAGE_IOERR), "%s: %s (%s)", what,
		      refused                ? "refused"
		      : rc == DBPAGE_CORRUPT ? "CORRUPT"
		      : rc == DBPAGE_IOERR   ? "IOERR"
		                             : "no error",
		      msg);
}

/* The first leaf under page pg (first children). */
static uint32_t
first_leaf(const img *m, uint32_t pg)
{
	while (*page_hdr(m, pg) == 0x05)
		pg = be4(m->p + (size_t)(pg - 1) * img_pgsz(m) + be2(page_hdr(m, pg) + 12));
	return pg;
}

static void
test_hostile_tree(const char *path, uint32_t root)
{
	img m = img_load(path);
	uint32_t ps = img_pgsz(&m), npages = (uint32_t)(m.n / ps);
	unsigned char *rh = page_hdr(&m, root);
	CHECK(*rh == 0x05, "the deep table's root %u is an interior page", root);
	size_t cell0 = (size_t)(root - 1) * ps + be2(rh + 12);
	uint32_t leaf = first_leaf(&m, root);
	uint32_t child = be4(m.p + cell0);
	CHECK(*page_hdr(&m, child) == 0x05, "its first child %u is an interior page", child);
	struct {
		const char *what;
		size_t at;    /* where to write */
		uint32_t val; /* 4 bytes, or 1 byte when small is set */
		int small;
	} patches[] = {
	    {"a child pointer to its own page (a cycle)", cell0, root, 0},
	    {"the right-most pointer to the root (a cycle)", (size_t)(rh - m.p) + 8, root, 0},
	    {"a child pointer of 0", cell0, 0, 0},
	    {"a child pointer past the end", cell0, npages + 1, 0},
	    {"a child pointer to page 1 (the schema)", cell0, 1, 0},
	    {"a leaf of an index b-tree's type", (size_t)(leaf - 1) * ps, 0x0a, 1},
	    {"a page of type 0", (size_t)(leaf - 1) * ps, 0, 1},
	    {"a leaf claiming 65535 cells", (size_t)(leaf - 1) * ps + 3, 0xff, 1},
	    {"a leaf's first cell pointer past the page", (size_t)(leaf - 1) * ps + 8, 0xff, 1},
	    {"an interior page claiming 65535 cells", (size_t)(child - 1) * ps + 3, 0xff, 1},
	};
	for (size_t i = 0; i < sizeof patches / sizeof *patches; i++) {
		img c = img_copy(&m);
		if (patches[i].small) {
			c.p[patches[i].at] = (unsigned char)patches[i].val;
			if (i >= 7)
				c.p[patches[i].at + 1] = 0xff;
		} else {
			put4(c.p + patches[i].at, patches[i].val);
		}
		hostile(patches[i].what, &c, c.n, root, 0);
		free(c.p);
	}
	/* a cell at the page's end whose varint runs off it */
	img c = img_copy(&m);
	unsigned char *lp = c.p + (size_t)(leaf - 1) * ps;
	lp[8] = (unsigned char)((ps - 2) >> 8);
	lp[9] = (unsigned char)(ps - 2);
	lp[ps - 2] = lp[ps - 1] = 0xff;
	hostile("a varint running off the page", &c, c.n, root, 0);
	/* the first cell's record header size past its payload */
	memcpy(c.p, m.p, m.n);
	unsigned char *cell = lp + be2(lp + 8);
	int k = 0;
	while (cell[k] & 0x80) /* payload size */
		k++;
	int pay = cell[0];
	k++;
	while (cell[k] & 0x80) /* rowid */
		k++;
	k++;
	cell[k] = (unsigned char)(pay + 1 < 0x80 ? pay + 1 : 0x7f);
	hostile("a record header size past the payload", &c, c.n, root, 0);
	/* a serial type of 10 (reserved) */
	memcpy(c.p, m.p, m.n);
	cell[k + 1] = 10;
	hostile("a reserved serial type", &c, c.n, root, 0);
	free(c.p);

	/* the file cut: mid-page (the page count follows the file), and a reader that gives
	 * less than the size it was told */
	hostile("the file cut mid-page", &m, m.n - ps * 3 / 2, root, 0);
	img cut = m;
	cut.n = m.n - ps * 3 / 2;
	hostile("a read shorter than the file's size", &cut, m.n, root, 0);
	for (long r = 0; r < 4; r++) {
		char what[64];
		snprintf(what, sizeof what, "read %ld fails", r + 1);
		m.reads_left = r;
		hostile(what, &m, m.n, root, r <= 1); /* the header, the root */
		m.reads_left = -1;
	}
	/* refusals */
	hostile("root page 0", &m, m.n, 0, 1);
	hostile("a root past the end", &m, m.n, npages + 1, 1);
	c = img_copy(&m);
	memcpy(c.p, "SQLite format 4", 15);
	hostile("no SQLite magic", &c, c.n, root, 1);
	memcpy(c.p, m.p, 100);
	c.p[16] = 3; /* 768 */
	hostile("a page size of 768", &c, c.n, root, 1);
	memcpy(c.p, m.p, 100);
	c.p[20] = 40; /* U = 472 */
	hostile("472 usable bytes", &c, c.n, root, 1);
	memcpy(c.p, m.p, 100);
	hostile("a file of 99 bytes", &c, 99, root, 1);
	c.p[(size_t)(root - 1) * ps] = 0x02; /* an index interior page */
	hostile("a root of an index's type", &c, c.n, root, 1);
	free(c.p);
	free(m.p);
}

static void
test_hostile_overflow(void)
{
	char path[512];
	sqlite3 *db = db_new("overflow", 512, 0, path, sizeof path);
	int ok =
	    db && exec(db, "CREATE TABLE t (a, b, c, d, e, f, g, h, i);"
	                   "INSERT INTO t VALUES (1, 2, randomblob(5000), 4, 5, 6, 7, 8, 9);"
	                   "INSERT INTO t VALUES (1, 2, randomblob(900), 4, 5, 6, 7, 8, 9)") == 0;
	int64_t ov = ok ? sql_int(db, "SELECT pageno FROM dbstat WHERE name = 't' AND "
	                              "pagetype = 'overflow' LIMIT 1 OFFSET 2")
	                : -1;
	uint32_t root = ok ? root_of(db, "t") : 0;
	sqlite3_close(db);
	CHECK(ok && ov > 0, "a chain of overflow pages (its third at %lld)", (long long)ov);
	if (ov <= 0)
		return;
	img m = img_load(path);
	uint32_t ps = img_pgsz(&m);
	img c = img_copy(&m);
	put4(c.p + (size_t)(ov - 1) * ps, (uint32_t)ov);
	hostile("an overflow page pointing at itself", &c, c.n, root, 0);
	memcpy(c.p, m.p, m.n);
	put4(c.p + (size_t)(ov - 1) * ps, 0);
	hostile("an overflow chain ending early", &c, c.n, root, 0);
	memcpy(c.p, m.p, m.n);
	put4(c.p + (size_t)(ov - 1) * ps, (uint32_t)(m.n / ps) + 7);
	hostile("an overflow page past the end", &c, c.n, root, 0);
	/* the leaf's first cell claiming a payload of 2^30 bytes and more */
	memcpy(c.p, m.p, m.n);
	uint32_t leaf = first_leaf(&c, root);
	unsigned char *cell = c.p + (size_t)(leaf - 1) * ps + be2(page_hdr(&c, leaf) + 8);
	memcpy(cell, "\x84\x80\x80\x80\x00", 5);
	hostile("a payload of 2^30 bytes", &c, c.n, root, 0);
	/* fuzz_dbpage's finding: a one-byte serial type of 57 bytes takes the fields past a
	 * 30-byte record, then two of nearly 2^63 bytes each wrap the sum back inside it; the
	 * latter two read as blobs of 2^32 - 7 bytes */
	static const unsigned char wrap[32] = {30,   1,    20,   0x7f, 0xff, 0xff, 0xff, 0xff,
	                                       0xff, 0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff,
	                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xb6};
	memcpy(c.p, m.p, m.n);
	memcpy(cell, wrap, sizeof wrap);
	hostile("field sizes whose sum wraps back inside the record", &c, c.n, root, 0);
	free(c.p);
	free(m.p);
}

/* Random bytes written over a small DB, scanned from every page as a root: no crash (the
 * sanitizer build finds the rest), and every scan ends. */
static void
test_random_damage(const char *path)
{
	img m = img_load(path);
	uint64_t rnd = 12345;
	int errors = 0, rows = 0;
	uint32_t np = (uint32_t)(m.n / img_pgsz(&m));
	for (int it = 0; it < 3000; it++) {
		img c = img_copy(&m);
		int nb = 1 + (int)(test_xorshift(&rnd) % 8);
		for (int b = 0; b < nb; b++) {
			uint64_t r = test_xorshift(&rnd);
			size_t at = 100 + (size_t)(r % (c.n - 100));
			c.p[at] = (unsigned char)(r >> 40);
		}
		char msg[200];
		int refused;
		uint32_t root = 1 + (uint32_t)(test_xorshift(&rnd) % (np < 8 ? np : 8));
		int rc = scan_all(&c, c.n, root, &refused, msg, sizeof msg);
		errors += rc < 0 || refused;
		rows += !refused && rc == DBPAGE_DONE;
		if (rc == 99)
			CHECK(0,
			      "damage %d: an error without a reason, or one that does not repeat",
			      it);
		free(c.p);
	}
	CHECK(errors + rows == 3000,
	      "3000 damaged files: %d scans ended in an error or a refusal, "
	      "%d at the end",
	      errors, rows);
	free(m.p);
}

/* A DB of 4096-byte pages made by sql (*ok: it was), as a file image; path is its file. */
static img
db_image(const char *name, const char *sql, char *path, size_t len, int *ok)
{
	sqlite3 *db = db_new(name, 4096, 0, path, len);
	*ok = db && exec(db, sql) == 0;
	sqlite3_close(db);
	return img_load(path);
}

/* A stored NaN (SQLite never writes one, a file may hold one) reads as NULL, as SQLite reads
 * it; an INTEGER PRIMARY KEY column is the rowid, its record field NULL. */
static void
test_nan_and_rowid_alias(void)
{
	char path[512];
	int ok;
	img m = db_image("nan",
	                 "CREATE TABLE t (id INTEGER PRIMARY KEY, x REAL, y);"
	                 "INSERT INTO t VALUES (7, 1.25, 'a'), (9, 1.25, 2.5)",
	                 path, sizeof path, &ok);
	/* 1.25 is 3ff4000000000000: the first copy becomes a NaN, the second stays */
	static const unsigned char one25[8] = {0x3f, 0xf4, 0, 0, 0, 0, 0, 0};
	static const unsigned char nan[8] = {0x7f, 0xf8, 0, 0, 0, 0, 0, 1};
	unsigned char *at = NULL;
	for (size_t i = 0; m.p && at == NULL && i + 8 <= m.n; i++)
		if (memcmp(m.p + i, one25, 8) == 0)
			at = m.p + i;
	CHECK(ok && at != NULL, "a REAL of 1.25 in the file");
	if (at != NULL) {
		memcpy(at, nan, 8);
		FILE *f = fopen(path, "wb");
		ok = f != NULL && fwrite(m.p, 1, m.n, f) == m.n;
		if (f != NULL)
			fclose(f);
	}
	free(m.p);
	static const tcol cols[] = {{"x", 1, 1}, {"y", 2, 0}, {"NULL", 0, 0}};
	CHECK(ok, "the NaN written");
	compare("a stored NaN reads NULL; an INTEGER PRIMARY KEY's field is NULL", path, NULL, "t",
	        cols, 3);
	sqlite3 *db = test_sql_open(path);
	int64_t nulls = db ? sql_int(db, "SELECT count(*) FROM t WHERE x IS NULL") : -1;
	int64_t ids = db ? sql_int(db, "SELECT sum(id) FROM t WHERE id = rowid") : -1;
	sqlite3_close(db);
	CHECK(nulls == 1 && ids == 16, "SQLite reads the NaN as NULL (%lld) and id as the rowid",
	      (long long)nulls);
}

static void
test_utf16(void)
{
	char path[512];
	int ok;
	img m = db_image("utf16",
	                 "PRAGMA encoding = 'UTF-16le'; CREATE TABLE t (a TEXT);"
	                 "INSERT INTO t VALUES ('x')",
	                 path, sizeof path, &ok);
	CHECK(ok, "a UTF-16 DB made");
	hostile("a UTF-16 DB", &m, m.n, 2, 1);
	free(m.p);
}

int
main(void)
{
	dir = test_tmpdir("dbpage");
	if (dir == NULL)
		return test_done();
	test_mixed();
	test_shapes();
	test_utf16();
	test_nan_and_rowid_alias();
	test_hostile_overflow();
	char path[512];
	test_deep(path, sizeof path);
	sqlite3 *db = test_sql_open(path);
	uint32_t root = db ? root_of(db, "t") : 0;
	sqlite3_close(db);
	test_hostile_tree(path, root);
	char small[512];
	if (mixed_db("small", 512, 0, 60, 0, small, sizeof small) == 0)
		test_random_damage(small);
	test_rmtree(dir);
	return test_done();
}
