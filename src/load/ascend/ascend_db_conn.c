/* The DB loader's connection and schema helpers: opening a source through the hardened
 * connection, statements, optional columns, failures reported once, STRING_IDS. */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/msg.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
db_rows(db_ctx *c, uint64_t n)
{
	c->rows += n;
	if (c->rows - c->rows_reported >= PROGRESS_ROWS) {
		msg_progress_add(0, c->rows - c->rows_reported);
		c->rows_reported = c->rows;
	}
}

int
db_has_table(db_ctx *c, const char *name)
{
	return profdb_has(&c->pdb, name);
}

/* Reports a failed statement once; returns -1. A hostile or unusable file (refused by the
 * authorizer, over the work budget or a limit, not SQLite at all) stops the whole rank. */
int
db_fail(db_ctx *c, const char *what, int rc)
{
	char m[400];
	if (c->failed)
		return -1; /* already said */
	if (profdb_fatal(&c->pdb, rc)) {
		msg_warn(c->path, "%s: %s; skipped", what, profdb_errmsg(&c->pdb, rc, m, sizeof m));
		c->failed = 1;
	} else if ((rc & 0xff) == SQLITE_CORRUPT) {
		msg_warn(c->path,
		         "database is damaged or truncated while reading %s (%s); keeping "
		         "what was read before",
		         what, c->why[0] ? c->why : sqlite3_errmsg(c->db));
	} else {
		msg_warn(c->path, "cannot read %s: %s", what,
		         c->why[0] ? c->why : sqlite3_errmsg(c->db));
	}
	c->why[0] = '\0';
	return -1;
}

/* Sets have[i] when the table has the column cols[i]; returns how many it has, -1 on failure. */
int
db_table_columns(db_ctx *c, const char *table, const char *const *cols, int ncols, int *have)
{
	char sql[160];
	int n = 0;
	for (int i = 0; i < ncols; i++)
		have[i] = 0;
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	if (db_prepare(c, sql, &st) != SQLITE_OK)
		return db_fail(c, table, sqlite3_errcode(c->db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		for (int i = 0; name && i < ncols; i++)
			if (!have[i] && strcmp(name, cols[i]) == 0) {
				have[i] = 1;
				n++;
			}
	}
	sqlite3_finalize(st);
	return n;
}

/* Builds "SELECT c1,c2,...,rowid FROM table", with NULL for columns the table lacks (columns
 * drift between torch_npu and CANN versions). have[i] is set for present columns. */
sqlite3_stmt *
db_prepare_cols(db_ctx *c, const char *table, const char *const *cols, int ncols, int *have,
                const char *tail)
{
	char sql[2048];
	size_t off = 0;
	sqlite3_stmt *st = NULL;
	if (db_table_columns(c, table, cols, ncols, have) < 0)
		return NULL;
	off += (size_t)snprintf(sql + off, sizeof sql - off, "SELECT ");
	for (int i = 0; i < ncols; i++)
		off += (size_t)snprintf(sql + off, sizeof sql - off, have[i] ? "\"%s\"," : "NULL,",
		                        cols[i]);
	snprintf(sql + off, sizeof sql - off, "rowid FROM \"%s\"%s", table, tail ? tail : "");
	if (db_prepare(c, sql, &st) != SQLITE_OK) {
		db_fail(c, table, sqlite3_errcode(c->db));
		return NULL;
	}
	return st;
}

/* TL_TRACE_SQL, read once: ranks load on threads of their own, and a lazily set static read
 * and written by each of them is a data race. */
static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static int trace_sql;

static void
trace_sql_init(void)
{
	trace_sql = getenv("TL_TRACE_SQL") != NULL;
}

int
db_tracing(void)
{
	pthread_once(&trace_once, trace_sql_init);
	return trace_sql;
}

/* Every statement goes through here; TL_TRACE_SQL=1 prints them (the benchmark runs the very
 * same SELECTs in the sqlite3 shell). */
int
db_prepare(db_ctx *c, const char *sql, sqlite3_stmt **st)
{
	pthread_once(&trace_once, trace_sql_init);
	if (trace_sql)
		fprintf(stderr, "%s;\n", sql);
	return profdb_prepare(&c->pdb, sql, st);
}

uint32_t
db_str_id(db_ctx *c, sqlite3_stmt *st, int col)
{
	return db_str_id_cell(c, db_cell_at(st, col));
}

uint32_t
db_str_id_cell(db_ctx *c, db_cell x)
{
	uint32_t id;
	if (x.type != SQLITE_INTEGER) {
		c->bad_refs += x.type != SQLITE_NULL;
		return 0;
	}
	if (u64map_get(&c->strs, (uint64_t)x.v, &id))
		return id;
	return 0; /* e.g. 4294967295: torch_npu's empty string, no STRING_IDS row */
}

void
db_report_refs(db_ctx *c, const char *table)
{
	if (c->bad_refs)
		msg_warn(c->path,
		         "%s: %zu string references (STRING_IDS ids) are not integers; shown "
		         "without a name",
		         table, c->bad_refs);
	c->bad_refs = 0;
}

int64_t
db_scalar_i64(db_ctx *c, const char *table, const char *sql, int64_t def)
{
	sqlite3_stmt *st;
	int64_t v = def;
	if (db_prepare(c, sql, &st) != SQLITE_OK) {
		if (profdb_fatal(&c->pdb, sqlite3_errcode(c->db)))
			db_fail(c, table, sqlite3_errcode(c->db));
		return def;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		v = sqlite3_column_int64(st, 0); /* no INTEGER (a TEXT 'x' the SQL let by): def */
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && profdb_fatal(&c->pdb, rc))
		db_fail(c, table, rc);
	return v;
}

/* The first column of the first row of sql: 1 with *v set when it is an INTEGER, 0 when it is
 * NULL, -1 when it is anything else (or the statement fails). */
static int
scalar_cell(db_ctx *c, const char *table, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	if (db_prepare(c, sql, &st) != SQLITE_OK) {
		if (profdb_fatal(&c->pdb, sqlite3_errcode(c->db)))
			db_fail(c, table, sqlite3_errcode(c->db));
		return -1;
	}
	int rc = sqlite3_step(st), r = -1;
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		*v = sqlite3_column_int64(st, 0);
		r = 1;
	} else if (rc == SQLITE_DONE || sqlite3_column_type(st, 0) == SQLITE_NULL) {
		r = 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && profdb_fatal(&c->pdb, rc))
		db_fail(c, table, rc);
	return r;
}

int64_t
db_int_max(db_ctx *c, const char *table, const char *col, int64_t def)
{
	char sql[256];
	int64_t v = def;
	snprintf(sql, sizeof sql, "SELECT max(\"%s\") FROM \"%s\"", col, table);
	if (scalar_cell(c, table, sql, &v) >= 0 || c->failed)
		return v;
	snprintf(sql, sizeof sql,
	         "SELECT max(CASE WHEN typeof(\"%s\") = 'integer' THEN \"%s\" END) FROM \"%s\"",
	         col, col, table);
	return scalar_cell(c, table, sql, &v) > 0 ? v : def;
}

int
db_read_strings(db_ctx *c)
{
	if (!db_has_table(c, "STRING_IDS"))
		return 0;
	sqlite3_stmt *st;
	int rc = db_prepare(c, "SELECT id, value FROM STRING_IDS", &st);
	if (rc != SQLITE_OK)
		return db_fail(c, "STRING_IDS", rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 1);
		int len = sqlite3_column_bytes(st, 1);
		uint32_t id = strpool_intern(c->r->pool, v ? v : "", v ? (size_t)len : 0);
		u64map_put(&c->strs, (uint64_t)sqlite3_column_int64(st, 0), id);
		db_rows(c, 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(c, "STRING_IDS", rc);
	return 0;
}

/* A TEXT time: exactly a decimal integer (see ascend_db_gather.h). */
int
db_text_int(const char *t, int64_t *out)
{
	int64_t v = 0;
	int neg = *t == '-', digits = 0;
	for (t += neg; *t >= '0' && *t <= '9'; t++, digits++) {
		if (v > (INT64_MAX - (*t - '0')) / 10)
			return -1; /* above INT64_MAX: no time (and no overflow) */
		v = v * 10 + (*t - '0');
	}
	if (digits == 0 || *t != '\0')
		return -1;
	*out = neg ? -v : v;
	return 0;
}

db_cell
db_time_at(sqlite3_stmt *st, int col)
{
	db_cell c = db_cell_at(st, col);
	if (c.type == SQLITE_TEXT) {
		const char *t = (const char *)sqlite3_column_text(st, col);
		/* a NUL inside the text ends it early: the length must match */
		if (t != NULL && strlen(t) == (size_t)sqlite3_column_bytes(st, col) &&
		    db_text_int(t, &c.v) == 0)
			c.type = SQLITE_INTEGER;
	}
	return c;
}

int
db_text_decimal(const char *s, int64_t *out)
{
	const char *t = s;
	int neg = *t == '-' || *t == '+' ? *t++ == '-' : 0;
	uint64_t m = 0; /* the significant digits, at most 19 of them */
	int digits = 0, sig = 0;
	int64_t scale = 0; /* value = m * 10^scale */
	for (int frac = 0;; t++) {
		if (*t == '.' && !frac) {
			frac = 1;
			continue;
		}
		if (*t < '0' || *t > '9')
			break;
		digits++;
		if (m == 0 && *t == '0') {
			scale -= frac; /* a leading zero: only where the point is */
			continue;
		}
		if (sig == 19) { /* more digits than an int64 holds: below a unit they are the
			            fraction dropped, above they are out of range */
			if (!frac)
				scale++;
			continue;
		}
		m = m * 10 + (uint64_t)(*t - '0');
		sig++;
		scale -= frac;
	}
	if (digits == 0)
		return -1;
	if (*t == 'e' || *t == 'E') {
		t++;
		int eneg = *t == '-' || *t == '+' ? *t++ == '-' : 0;
		int64_t e = 0, ed = 0;
		for (; *t >= '0' && *t <= '9'; t++, ed++)
			if (e < 1000)
				e = e * 10 + (*t - '0');
		if (ed == 0)
			return -1;
		scale += eneg ? -e : e;
	}
	if (*t != '\0')
		return -1;
	for (; scale < 0 && m != 0; scale++)
		m /= 10;
	for (; scale > 0 && m != 0; scale--) {
		if (m > UINT64_MAX / 10)
			return -1;
		m *= 10;
	}
	if (m > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)m : (int64_t)m;
	return 0;
}

db_cell
db_time_from(sqlite3_stmt *st, int col, int64_t base)
{
	db_cell c = db_cell_at(st, col);
	if (c.type == SQLITE_TEXT) {
		const char *t = (const char *)sqlite3_column_text(st, col);
		if (t != NULL && strlen(t) == (size_t)sqlite3_column_bytes(st, col) &&
		    db_text_decimal(t, &c.v) == 0)
			c.type = SQLITE_INTEGER;
	}
	return db_time_based(c, base);
}

db_cell
db_time_based(db_cell c, int64_t base)
{
	if (c.type == SQLITE_INTEGER) {
		/* out of range (tl_time_ok) rather than overflow: the caller says so */
		if (!tl_time_ok(c.v) || !tl_time_ok(base))
			c.v = c.v < 0 ? INT64_MIN : INT64_MAX;
		else
			c.v += base;
	}
	return c;
}

/* A time column: INTEGER, or TEXT holding a decimal integer (PYTORCH_API declares its times
 * TEXT in every torch_npu version). */
int
db_col_time(sqlite3_stmt *st, int col, int64_t *out)
{
	db_cell c = db_time_at(st, col);
	*out = c.v;
	return c.type == SQLITE_INTEGER && tl_time_ok(c.v) ? 0 : -1;
}

/* Opens src for r through the hardened connection; `then` ends the one-line message of a DB
 * that cannot be opened. */
int
db_open(db_ctx *c, const tl_source *src, tl_rank *r, const char *then)
{
	memset(c, 0, sizeof *c);
	c->src = src;
	c->r = r;
	c->path = src->path;
	char err[400];
	if (profdb_open(&c->pdb, src->path, err, sizeof err) != 0) {
		msg_warn(c->path, "%s; %s", err, then);
		return -1;
	}
	c->db = c->pdb.db;
	return 0;
}
