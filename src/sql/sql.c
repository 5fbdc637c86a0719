/* tl query: the user's SQL, untrusted, over the virtual tables of sql_tables.c. The only SQL
 * outside load/, and it never reaches a file: the connection is an in-memory database opened
 * read-only, whose only tables are the virtual ones over the loaded model. The defences:
 *
 * - the connection: ":memory:" read-only, defensive, no views, no triggers, no extension
 *   loading, untrusted schema, no double-quoted strings, temporary storage in memory (a sort
 *   writes no file); limits on the SQL's length, expression depth, compound selects, string
 *   length, attached databases (none) and the like.
 * - an authorizer that allows SELECT, reading the tl tables (nothing else: not sqlite_schema),
 *   recursive common table expressions and the built-in functions but load_extension; no
 *   ATTACH, PRAGMA, write, CREATE (of a temporary table or anything), transaction. The statement
 *   must be one, and read-only (sqlite3_stmt_readonly).
 * - a work budget (progress handler): a statement may take SQL_BUDGET_BASE steps of SQLite's
 *   virtual machine plus SQL_BUDGET_PER_ROW per row the model holds (slices, tasks, samples:
 *   a full scan takes about ten per row, a join of two scans more), then it is stopped with one
 *   line; a recursive query that never ends is stopped so. TL_QUERY_BUDGET (millions of steps)
 *   sets the budget for a run.
 * - a row limit (SQL_MAX_ROWS, TL_QUERY_MAX_ROWS) on the rows printed, and SQLite's heap held
 *   to SQL_HEAP_MAX while the statement runs.
 * - the statement is compiled before the profile is loaded (the tables' schemas do not need
 *   the data): a wrong statement costs nothing, and the load gathers what its tables read. */
#include "config.h"
#include "sql/sql.h"
#include "load/load.h"
#include "sql/sql_int.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SQL_PROGRESS_OPS 1000
#define SQL_BUDGET_BASE 200000000ll /* VM steps: one to three seconds */
#define SQL_BUDGET_PER_ROW 100ll
#define SQL_MAX_ROWS 1000000ll
#define SQL_HEAP_MAX (INT64_C(2) << 30)

/* Where this thread's errors go: stderr (msg_error), or while the viewer runs a statement
 * (sql_collect) the buffer it shows them from. */
static _Thread_local char *err_buf;
static _Thread_local size_t err_len;

static void __attribute__((format(printf, 1, 2))) sql_err(const char *fmt, ...)
{
	char line[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (err_buf != NULL) {
		if (err_buf[0] == '\0')
			snprintf(err_buf, err_len, "%s", line);
	} else {
		msg_error("%s", line);
	}
}

struct tl_sql {
	sqlite3 *db;
	sqlite3_stmt *st;
	sql_ctx x;
	unsigned used;    /* bit i: sql_tables[i] is read */
	char denied[160]; /* what the authorizer refused */
	long long ticks, max_ticks;
	int over_budget;
};

static const char *const refused_functions[] = {"load_extension", "fts3_tokenizer", "readfile",
                                                "writefile", "edit"};

#define DENY(...)                                                                                  \
	do {                                                                                       \
		if (s->denied[0] == '\0')                                                          \
			snprintf(s->denied, sizeof s->denied, __VA_ARGS__);                        \
		return SQLITE_DENY;                                                                \
	} while (0)
#define S(x) ((x) ? (x) : "?")

static int
on_authorize(void *arg, int action, const char *a1, const char *a2, const char *dbname,
             const char *inner)
{
	tl_sql *s = arg;
	(void)inner;
	if (s->x.declaring) /* a virtual table's own schema, tl's text (sql_vtab.c) */
		return SQLITE_OK;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_READ: {
		if (dbname != NULL && strcmp(dbname, "main") != 0)
			DENY("reading from the database %s is not allowed", S(dbname));
		for (size_t i = 0; a1 != NULL && i < sql_ntables; i++)
			if (strcmp(a1, sql_tables[i].name) == 0) {
				s->used |= 1u << i;
				return SQLITE_OK;
			}
		/* the in-memory database holds no table but its schema and tl's: any other name
		 * read is a common table expression's */
		if (a1 == NULL || strncmp(a1, "sqlite_", 7) != 0)
			return SQLITE_OK;
		DENY("the table %s is not one of tl's (tl query PATH .tables lists them)", S(a1));
	}
	case SQLITE_FUNCTION:
		for (size_t i = 0; i < sizeof refused_functions / sizeof *refused_functions; i++)
			if (a2 != NULL && strcmp(a2, refused_functions[i]) == 0)
				DENY("the function %s() is not allowed", a2);
		return SQLITE_OK;
	case SQLITE_ATTACH:
	case SQLITE_DETACH:
		DENY("ATTACH and DETACH are not allowed: tl query reads the loaded profile only");
	case SQLITE_PRAGMA:
		DENY("PRAGMA %s is not allowed", S(a1));
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
		if (a1 != NULL && strncmp(a1, "sqlite_", 7) == 0)
			DENY("creating or dropping tables, views, indexes or triggers is not "
			     "allowed");
		DENY("writing (to %s) is not allowed: the tables are read-only", S(a1));
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
		DENY("transactions are not allowed");
	default:
		DENY("only SELECT is allowed (SQLite's authorizer action %d)", action);
	}
}
#undef DENY
#undef S

static int
on_progress(void *arg)
{
	tl_sql *s = arg;
	if (++s->ticks > s->max_ticks) {
		s->over_budget = 1;
		return 1; /* SQLITE_INTERRUPT */
	}
	return 0;
}

/* One line on stderr for a failed statement: the authorizer's reason when it refused. */
static void
say_error(const tl_sql *s, const char *what)
{
	if (s->over_budget)
		sql_err("query: stopped: the statement ran past its work budget (%lld million "
		        "steps); narrow it (WHERE rank = N, a time window, LIMIT)",
		        s->max_ticks * SQL_PROGRESS_OPS / 1000000);
	else if (s->denied[0] != '\0')
		sql_err("query: %s", s->denied);
	else
		sql_err("query: %s", what);
}

static long long
env_number(const char *name, long long dflt)
{
	const char *v = getenv(name);
	if (v == NULL || *v == '\0')
		return dflt;
	char *end;
	long long n = strtoll(v, &end, 10);
	return *end == '\0' && n > 0 ? n : dflt;
}

static int
configure(tl_sql *s)
{
	sqlite3 *db = s->db;
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, NULL);
	/* before the authorizer, which refuses every PRAGMA: sorts and temporary b-trees stay in
	 * memory (bounded by the heap limit), no file is written */
	if (sqlite3_exec(db, "PRAGMA temp_store = MEMORY", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 10000000);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 100000);
	sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 500);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 200);
	sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 50);
	sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 200000);
	sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 32);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000);
	sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 1);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
	sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
	if (sql_vtab_register(db, &s->x) != SQLITE_OK)
		return -1;
	sqlite3_set_authorizer(db, on_authorize, s);
	return 0;
}

/* Whether the rest of the SQL text holds no statement (spaces, semicolons, comments). */
static int
only_comments(sqlite3 *db, const char *tail)
{
	while (tail != NULL && *tail != '\0') {
		sqlite3_stmt *st = NULL;
		const char *next = NULL;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &next) != SQLITE_OK || st != NULL) {
			sqlite3_finalize(st);
			return 0;
		}
		if (next == tail)
			break;
		tail = next;
	}
	return 1;
}

tl_sql *
sql_prepare(const char *sql)
{
	tl_sql *s = xcalloc(1, sizeof *s);
	if (sqlite3_open_v2(":memory:", &s->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    configure(s) != 0) {
		sql_err("query: cannot open SQLite: %s",
		        s->db ? sqlite3_errmsg(s->db) : "no memory");
		sql_free(s);
		return NULL;
	}
	const char *tail = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &s->st, &tail);
	if (rc != SQLITE_OK) {
		say_error(s, sqlite3_errmsg(s->db));
		sql_free(s);
		return NULL;
	}
	if (s->st == NULL) {
		sql_err("query: no SQL statement given");
		sql_free(s);
		return NULL;
	}
	char denied[sizeof s->denied];
	memcpy(denied, s->denied, sizeof denied);
	if (!only_comments(s->db, tail)) {
		if (s->denied[0] != '\0' && denied[0] == '\0') /* the second one was refused */
			sql_err("query: %s", s->denied);
		else
			sql_err("query: one statement at a time (a second one follows the first)");
		sql_free(s);
		return NULL;
	}
	if (!sqlite3_stmt_readonly(s->st)) {
		sql_err("query: only SELECT is allowed: the statement would write");
		sql_free(s);
		return NULL;
	}
	return s;
}

unsigned
sql_tables_needed(const tl_sql *s)
{
	unsigned need = 0;
	for (size_t i = 0; i < sql_ntables; i++)
		if (s->used >> i & 1)
			need |= sql_tables[i].need;
	return need;
}

/* Runs body over the statement inside the run's defences (the work budget, SQLite's heap
 * limit). Returns body's result: 0, or < 0 for SQLite's error (said here), or > 0 (said by
 * body). */
static int
run_with_budget(tl_sql *s, const tl_query *q, int (*body)(sqlite3_stmt *, void *), void *arg)
{
	s->x.q = q;
	/* the work a statement may do grows with the rows it may walk */
	const tl_trace *tr = tlq_trace(q);
	long long rows = 0;
	for (size_t i = 0; i < tr->nranks; i++)
		for (size_t t = 0; t < tr->ranks[i]->ntracks; t++)
			rows += (long long)tr->ranks[i]->tracks[t]->n;
	long long budget = env_number("TL_QUERY_BUDGET", 0) * 1000000ll;
	if (budget <= 0)
		budget = SQL_BUDGET_BASE + SQL_BUDGET_PER_ROW * rows;
	s->max_ticks = budget / SQL_PROGRESS_OPS + 1;
	s->ticks = 0;
	s->over_budget = 0;
	sqlite3_progress_handler(s->db, SQL_PROGRESS_OPS, on_progress, s);
	sqlite3_int64 old_heap = sqlite3_hard_heap_limit64(SQL_HEAP_MAX);
	s->x.rows_read = 0;
	int rc = body(s->st, arg);
	sqlite3_hard_heap_limit64(old_heap);
	if (err_buf == NULL && getenv("TL_STATS") != NULL) /* tests and make bench */
		fprintf(stderr, "stats: query_rows_read=%llu\n", s->x.rows_read);
	sqlite3_progress_handler(s->db, 0, NULL, NULL);
	if (rc < 0)
		say_error(s, sqlite3_errmsg(s->db));
	return rc;
}

typedef struct out_args {
	FILE *out;
	int format;
	long long max_rows;
} out_args;

static int
out_body(sqlite3_stmt *st, void *arg)
{
	const out_args *a = arg;
	return sql_out_rows(st, a->out, a->format, a->max_rows);
}

int
sql_run(tl_sql *s, const tl_query *q, FILE *out, int format)
{
	out_args a = {out, format, env_number("TL_QUERY_MAX_ROWS", SQL_MAX_ROWS)};
	int rc = run_with_budget(s, q, out_body, &a) != 0;
	if (fflush(out) != 0 || ferror(out)) {
		sql_err("query: cannot write the output");
		rc = 1;
	}
	return rc;
}

int
sql_run_rows(tl_sql *s, const tl_query *q, int (*body)(sqlite3_stmt *, void *), void *arg)
{
	return run_with_budget(s, q, body, arg) != 0;
}

typedef struct collect_args {
	size_t max_rows;
	tl_sql_rows *out;
	int over;
} collect_args;

static char *
cell_copy(sqlite3_stmt *st, int i)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	if (sqlite3_column_type(st, i) == SQLITE_BLOB)
		return xstrdup("(blob)");
	return t ? xstrdup(t) : NULL;
}

static int
collect_body(sqlite3_stmt *st, void *arg)
{
	collect_args *a = arg;
	tl_sql_rows *o = a->out;
	int rc;
	size_t cap = 0;
	o->ncols = sqlite3_column_count(st);
	o->names = xcalloc((size_t)o->ncols + 1, sizeof *o->names);
	for (int i = 0; i < o->ncols; i++)
		o->names[i] = xstrdup(sqlite3_column_name(st, i));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (o->nrows >= a->max_rows) {
			a->over = 1;
			return 0;
		}
		VEC_RESERVE(o->cells, cap, (o->nrows + 1) * (size_t)o->ncols + 1);
		for (int i = 0; i < o->ncols; i++)
			o->cells[o->nrows * (size_t)o->ncols + (size_t)i] = cell_copy(st, i);
		o->nrows++;
	}
	return rc == SQLITE_DONE ? 0 : -rc;
}

int
sql_collect(const tl_query *q, const char *sql, size_t max_rows, tl_sql_rows *out, char *err,
            size_t errlen)
{
	memset(out, 0, sizeof *out);
	err[0] = '\0';
	err_buf = err;
	err_len = errlen;
	int rc = 1;
	tl_sql *s = sql_prepare(sql);
	if (s != NULL) {
		collect_args a = {max_rows, out, 0};
		rc = run_with_budget(s, q, collect_body, &a) != 0;
		out->truncated = a.over;
		sql_free(s);
	}
	err_buf = NULL;
	return rc;
}

void
sql_rows_free(tl_sql_rows *r)
{
	for (int i = 0; r->names && i < r->ncols; i++)
		free(r->names[i]);
	for (size_t i = 0; r->cells && i < r->nrows * (size_t)r->ncols; i++)
		free(r->cells[i]);
	free(r->names);
	free(r->cells);
	memset(r, 0, sizeof *r);
}

void
sql_free(tl_sql *s)
{
	if (s == NULL)
		return;
	sqlite3_finalize(s->st);
	sqlite3_close(s->db);
	sql_ctx_free(&s->x);
	free(s);
}

int
sql_list_tables(FILE *out)
{
	for (size_t i = 0; i < sql_ntables; i++) {
		const sql_table *t = &sql_tables[i];
		fprintf(out, "%-9s", t->name);
		for (int c = 0; c < t->ncols; c++)
			fprintf(out, "%s%s", c ? ", " : " (", t->cols[c].name);
		fprintf(out, ")\n          %s\n", t->doc);
	}
	return 0;
}

int
sql_schema(FILE *out, const char *name)
{
	if (name == NULL) { /* every table */
		for (size_t i = 0; i < sql_ntables; i++) {
			fputs(i ? "\n" : "", out);
			sql_schema(out, sql_tables[i].name);
		}
		return 0;
	}
	const sql_table *t = sql_table_find(name);
	if (t == NULL) {
		sql_err("query: no table %s (tl query PATH .tables lists them)", name);
		return 1;
	}
	fprintf(out, "%s: %s\n", t->name, t->doc);
	for (int c = 0; c < t->ncols; c++)
		fprintf(out, "  %-32s %-8s %s\n", t->cols[c].name, t->cols[c].type, t->cols[c].doc);
	return 0;
}
