/* tl query: the user's SQL over the loaded profile. The tables are SQLite virtual tables
 * (eponymous, read-only) over the query session (query/query.h), never over the profile's own
 * files, so that a DB, a trace_view.json and a Kineto trace answer alike and with the numbers
 * `tl summary` prints. The SQL is untrusted: see sql.c for the defences. */
#ifndef TL_SQL_H
#define TL_SQL_H
#include <stdio.h>

#include "query/query.h"

enum { TL_SQL_TABLE, TL_SQL_CSV, TL_SQL_JSON };

typedef struct tl_sql tl_sql;

/* Compiles sql against the tables' schemas, before anything is loaded: a syntax error, an
 * unknown table or column or a refused statement gives one line on stderr and NULL. */
tl_sql *sql_prepare(const char *sql);
/* The TL_TABLE_* (load/load.h) the statement's tables read, so that the load gathers them in
 * its own pass. */
unsigned sql_tables_needed(const tl_sql *);
/* Runs the statement over q's trace and prints its rows to out in format (TL_SQL_*). Returns
 * 0, or 1 after one line on stderr (an SQL error at run time, the work budget or the row limit
 * exceeded). */
int sql_run(tl_sql *, const tl_query *q, FILE *out, int format);
void sql_free(tl_sql *);

/* A statement's rows as text (NULL for an SQL NULL), for the viewer's :query panel. */
typedef struct tl_sql_rows {
	int ncols;
	char **names;  /* ncols column names */
	size_t nrows;  /* at most the max_rows asked for */
	char **cells;  /* row r's column c at r * ncols + c */
	int truncated; /* there were more rows */
} tl_sql_rows;
/* Compiles and runs sql over q with the defences of sql_run, keeping up to max_rows rows.
 * Returns 0, or 1 with the one line that says why in err (nothing on stderr). */
int sql_collect(const tl_query *q, const char *sql, size_t max_rows, tl_sql_rows *out, char *err,
                size_t errlen);
void sql_rows_free(tl_sql_rows *);

/* `.tables` and `.schema [TABLE]`: the tables with their columns, each column with its type and
 * meaning. Returns 0, or 1 (one line on stderr) for an unknown table. */
int sql_list_tables(FILE *out);
int sql_schema(FILE *out, const char *table);

/* tl export: a window of the loaded profile written for other tools (sql_export.c), read from
 * the slices table, so that it holds what `tl query` shows. */
enum { TL_EXPORT_CHROME, TL_EXPORT_CSV };

typedef struct tl_export_opts {
	const char *input; /* PATH, never written in or beside */
	const char *out;   /* chrome: a directory, one rank{r}.trace.json per rank; csv: a file */
	int format;        /* TL_EXPORT_* */
	int has_step;      /* --step N */
	long long step;
	int has_window; /* --from T --to T: slices that meet [from, to) */
	long long from, to;
} tl_export_opts;

typedef struct tl_export tl_export;

/* Checks the output (refuses one that exists, or lies inside the input) and compiles the
 * statements, before anything is loaded; NULL after one line on stderr. */
tl_export *export_prepare(const tl_export_opts *);
/* The TL_TABLE_* the export reads, for the load. */
unsigned export_tables_needed(const tl_export *);
/* Writes the window of q's trace. Returns 0, or 1 after one line on stderr. */
int export_run(tl_export *, const tl_query *q);
void export_free(tl_export *);

#endif
