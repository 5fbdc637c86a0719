/* Opening a profile DB that may be hostile. Profiles are copied between machines and teams, so
 * every DB is treated the way SQLite's "Defense Against The Dark Arts" guidance says untrusted
 * files should be: opened immutable (read-only, no locks, no journal or -wal/-shm ever created
 * beside the file), defensive mode on, trusted_schema off, no extensions, no views or triggers,
 * tight limits, an authorizer that allows only what tl's own SELECTs need, and a work budget so
 * that no statement can run without end. The file is checked to be a profiler DB (its table
 * set and META_DATA) before any of its tables is trusted. The loader (ascend_db.c) and the
 * viewer's argument lookup (ascend_db_args.c) both open DBs through here. */
#ifndef TL_PROFDB_H
#define TL_PROFDB_H
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* The longest string or row tl reads (SQLITE_LIMIT_LENGTH): real profiles hold a few hundred
 * bytes per string (the longest in the samples: 279), a tensor-shape list a few KB. */
#define PROFDB_MAX_LENGTH (1 << 20)

typedef struct tl_profdb {
	sqlite3 *db;
	const char *path; /* borrowed */
	uint64_t file_bytes;
	/* the work budget of the current statement, in progress-handler calls */
	uint64_t ticks, max_ticks;
	int over_budget;
	/* what the authorizer refused last (for the message) */
	char denied[160];
	/* what the checks found */
	int journal, wal; /* a -journal / -wal file lies beside the DB: still being written */
	char schema_version[32]; /* META_DATA SCHEMA_VERSION, "" when absent */
	int has_meta;            /* META_DATA is a table */
	uint64_t tables[2];      /* bit i: known table i is present (profdb_has) */
} tl_profdb;

/* Opens path and checks that it is a profiler DB. Returns 0, or -1 with a one-line reason in
 * err (the caller names the file) and nothing left open. */
int profdb_open(tl_profdb *, const char *path, char *err, size_t errlen);
void profdb_close(tl_profdb *);
/* Prepares one of tl's own statements; each statement gets a fresh work budget. */
int profdb_prepare(tl_profdb *, const char *sql, sqlite3_stmt **);
/* Whether the DB holds the profile table `name` as a real table. */
int profdb_has(const tl_profdb *, const char *name);
/* A user message for a failed call's result code (refusals, the work budget, limits). */
const char *profdb_errmsg(const tl_profdb *, int rc, char *buf, size_t len);
/* Whether a result code means the file is hostile or unreadable as a whole (refused by the
 * authorizer, over the work budget, over a limit): the rank stops loading. */
int profdb_fatal(const tl_profdb *, int rc);

/* The host that wrote the DB (HOST_INFO hostName, else hostUid; under 256 bytes), or NULL;
 * the caller frees it. */
char *profdb_host(tl_profdb *);

/* Rows the DB's slice tables hold (TASK, COMMUNICATION_OP, MSTX_EVENTS), estimated cheaply
 * before loading: their max(rowid), capped by what the file size allows. 0 when the file cannot
 * be opened. */
uint64_t profdb_estimate_rows(const char *path);

#endif
