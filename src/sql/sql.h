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

/* `.tables` and `.schema [TABLE]`: the tables with their columns, each column with its type and
 * meaning. Returns 0, or 1 (one line on stderr) for an unknown table. */
int sql_list_tables(FILE *out);
int sql_schema(FILE *out, const char *table);

#endif
