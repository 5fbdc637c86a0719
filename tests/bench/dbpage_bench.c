/* `make bench-dbpage`: a table's full scan through the page scanner (load/ascend/dbpage.c)
 * against sqlite3_step over `SELECT every column FROM TABLE`, each reading every cell once as
 * the loader does (its type, then the integer, the double or the bytes). Prints ns per row of
 * each (and of the page scan alone, no cell read), the median of 3 rounds, and whether the sums
 * of what both read agree. The page scan reads with pread, as the loader would. Usage:
 * dbpage_bench DB TABLE... */
#include "config.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/ascend/dbpage.h"
#include "util/timefmt.h"

static double
now(void)
{
	return (double)timefmt_mono_ns() / 1e9;
}

static long
fd_read(void *ctx, void *buf, size_t n, uint64_t off)
{
	return (long)pread(*(int *)ctx, buf, n, (off_t)off);
}

static uint64_t
mix(uint64_t sum, int type, int64_t i, double f, uint32_t n)
{
	uint64_t v = type == 1 ? (uint64_t)i : type == 2 ? (uint64_t)(int64_t)f : n;
	return sum * 31 + v + (uint64_t)type;
}

static uint64_t
scan_sqlite(sqlite3 *db, const char *sql, int ncols, uint64_t *rows)
{
	sqlite3_stmt *st = NULL;
	uint64_t sum = 0;
	*rows = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < ncols; i++) {
			int t = sqlite3_column_type(st, i);
			int64_t x = t == SQLITE_INTEGER ? sqlite3_column_int64(st, i) : 0;
			double f = t == SQLITE_FLOAT ? sqlite3_column_double(st, i) : 0;
			uint32_t n = 0;
			if (t == SQLITE_TEXT) {
				sqlite3_column_text(st, i);
				n = (uint32_t)sqlite3_column_bytes(st, i);
			} else if (t == SQLITE_BLOB) {
				sqlite3_column_blob(st, i);
				n = (uint32_t)sqlite3_column_bytes(st, i);
			}
			sum = mix(sum, t, x, f, n);
		}
		++*rows;
	}
	sqlite3_finalize(st);
	return sum;
}

/* The scan alone: rows decoded, no cell read after. */
static uint64_t
scan_only(int fd, uint64_t bytes, uint32_t root, const dbpage_col *cols, int ncols)
{
	char err[200];
	uint64_t rows = 0;
	dbpage_scan *s = dbpage_open(fd_read, &fd, bytes, root, cols, ncols, err, sizeof err);
	while (s != NULL && dbpage_next(s) == DBPAGE_ROW)
		rows++;
	dbpage_close(s);
	return rows;
}

/* ipk: the INTEGER PRIMARY KEY column (-1: none), whose record field is NULL: the rowid */
static uint64_t
scan_pages(int fd, uint64_t bytes, uint32_t root, const dbpage_col *cols, int ncols, int ipk,
           uint64_t *rows)
{
	char err[200];
	uint64_t sum = 0;
	*rows = 0;
	dbpage_scan *s = dbpage_open(fd_read, &fd, bytes, root, cols, ncols, err, sizeof err);
	if (s == NULL) {
		fprintf(stderr, "dbpage_bench: refused: %s\n", err);
		return 0;
	}
	int rc;
	while ((rc = dbpage_next(s)) == DBPAGE_ROW) {
		for (int i = 0; i < ncols; i++) {
			const dbpage_cell *c = dbpage_cell_at(s, i);
			if (i == ipk) {
				sum = mix(sum, DBPAGE_INTEGER, dbpage_rowid(s), 0, 0);
				continue;
			}
			sum = mix(sum, c->type, c->type == DBPAGE_INTEGER ? c->i : 0,
			          c->type == DBPAGE_FLOAT ? c->f : 0,
			          c->type == DBPAGE_TEXT || c->type == DBPAGE_BLOB ? c->n : 0);
		}
		++*rows;
	}
	if (rc != DBPAGE_DONE)
		fprintf(stderr, "dbpage_bench: %s\n", dbpage_error(s));
	dbpage_close(s);
	return sum;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One table: its root, its columns and their affinity from SQLite, then 3 rounds of both. */
static void
bench_table(sqlite3 *db, int fd, uint64_t bytes, const char *table)
{
	char *q = sqlite3_mprintf("SELECT rootpage FROM sqlite_schema WHERE name = %Q", table);
	sqlite3_stmt *st = NULL;
	uint32_t root = 0;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		root = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_free(q);
	dbpage_col cols[DBPAGE_MAX_COLS];
	int ncols = 0, ipk = -1, npk = 0;
	char *sel = sqlite3_mprintf("SELECT ");
	q = sqlite3_mprintf("PRAGMA table_info(%Q)", table);
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) == SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW && ncols < DBPAGE_MAX_COLS) {
			const char *name = (const char *)sqlite3_column_text(st, 1);
			const char *type = (const char *)sqlite3_column_text(st, 2);
			int real = type != NULL && strcasestr(type, "INT") == NULL &&
			           (strcasestr(type, "REAL") || strcasestr(type, "FLOA") ||
			            strcasestr(type, "DOUB"));
			cols[ncols].field = ncols;
			cols[ncols].real = real;
			if (sqlite3_column_int(st, 5) > 0) {
				npk++;
				if (type != NULL && strcasecmp(type, "INTEGER") == 0)
					ipk = ncols;
			}
			char *s2 = sqlite3_mprintf("%s%s\"%w\"", sel, ncols ? ", " : "", name);
			sqlite3_free(sel);
			sel = s2;
			ncols++;
		}
	sqlite3_finalize(st);
	sqlite3_free(q);
	if (npk != 1)
		ipk = -1; /* a composite key is no rowid */
	char *sql = sqlite3_mprintf("%s FROM \"%w\"", sel, table);
	sqlite3_free(sel);
	if (root == 0 || ncols == 0) {
		printf("%s: not in the file\n", table);
		sqlite3_free(sql);
		return;
	}
	double ts[3], tp[3], to[3];
	uint64_t rs = 0, rp = 0, ss = 0, sp = 0;
	for (int r = 0; r < 3; r++) {
		double t0 = now();
		ss = scan_sqlite(db, sql, ncols, &rs);
		double t1 = now();
		sp = scan_pages(fd, bytes, root, cols, ncols, ipk, &rp);
		double t2 = now();
		scan_only(fd, bytes, root, cols, ncols);
		ts[r] = t1 - t0;
		tp[r] = t2 - t1;
		to[r] = now() - t2;
	}
	qsort(ts, 3, sizeof *ts, cmp_double);
	qsort(tp, 3, sizeof *tp, cmp_double);
	qsort(to, 3, sizeof *to, cmp_double);
	printf("%s: %llu rows of %d columns: sqlite3_step %.1f ns/row, dbpage %.1f ns/row "
	       "(%.2fx; the scan alone %.1f); sums %s\n",
	       table, (unsigned long long)rs, ncols, rs ? ts[1] * 1e9 / (double)rs : 0,
	       rp ? tp[1] * 1e9 / (double)rp : 0, tp[1] > 0 ? ts[1] / tp[1] : 0,
	       rp ? to[1] * 1e9 / (double)rp : 0, ss == sp && rs == rp ? "agree" : "DIFFER");
	sqlite3_free(sql);
}

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: dbpage_bench DB TABLE...\n");
		return 2;
	}
	char *uri = sqlite3_mprintf("file:%s?immutable=1", argv[1]);
	sqlite3 *db = NULL;
	int fd = open(argv[1], O_RDONLY);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) != 0 ||
	    sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		fprintf(stderr, "dbpage_bench: cannot open %s\n", argv[1]);
		return 1;
	}
	sqlite3_free(uri);
	for (int a = 2; a < argc; a++)
		bench_table(db, fd, (uint64_t)sb.st_size, argv[a]);
	sqlite3_close(db);
	close(fd);
	return 0;
}
