/* Opening a profile DB that may be hostile: see profdb.h. The defences, and why each is here:
 *
 * - `immutable=1`: SQLite takes no lock and never creates or replays a journal. A plain
 *   `mode=ro` open of a WAL-mode file creates -wal and -shm files beside it (measured), fails
 *   with "database is locked" while a writer holds a transaction, and refuses a file with a hot
 *   journal; immutable reads what the file holds in all three cases. A -journal or -wal beside
 *   the file means the profile is still being written (or its writer died): reported, and what
 *   the file holds is shown.
 * - no views, no triggers (SQLITE_DBCONFIG_ENABLE_VIEW/TRIGGER), defensive mode, trusted_schema
 *   off, no extension loading, no double-quoted string literals in tl's SQL.
 * - an authorizer: tl's statements may read the profile tables below and sqlite_master, run
 *   PRAGMA table_info / table_xinfo on them, and call max, min and count. Nothing else, and
 *   nothing at all on behalf of a view or trigger.
 * - generated columns are refused: their expressions run on every read and the authorizer
 *   never sees the functions they call (measured), so a crafted `TASK` could make each row
 *   build a megabyte string. Profilers never write them.
 * - limits: string/row length, SQL length, columns, expression depth, no attached DBs, ...
 * - a work budget per statement (progress handler): a full scan costs a bounded number of
 *   virtual-machine steps per byte of the file, so a statement that needs far more than its
 *   file's size can explain (a crafted or looping file) is stopped. */
#include "config.h"
#include "load/load_int.h"
#include "load/ascend/profdb.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The tables of Ascend profiler DBs (msprof's DB DDL, torch_npu's framework tables, CANN
 * 7.0's report_{device}.db (API, ENUM_API_LEVEL, TARGET_INFO_*), and tables seen in real
 * files). Sorted (strcmp) for bsearch; at most 128 (the bit set). */
static const char *const known_tables[] = {
    "ACC_PMU",
    "AICORE_FREQ",
    "API",
    "CANN_API",
    "CCU",
    "COMMUNICATION_OP",
    "COMMUNICATION_SCHEDULE_TASK_INFO",
    "COMMUNICATION_TASK_INFO",
    "COMPUTE_TASK_INFO",
    "CONNECTION_IDS",
    "CPU_USAGE",
    "DDR",
    "DPU_TASK",
    "ENUM_API_LEVEL",
    "ENUM_API_TYPE",
    "ENUM_HCCL_DATA_TYPE",
    "ENUM_HCCL_LINK_TYPE",
    "ENUM_HCCL_RDMA_TYPE",
    "ENUM_HCCL_TRANSPORT_TYPE",
    "ENUM_MEMCPY_OPERATION",
    "ENUM_MODULE",
    "ENUM_MSTX_EVENT_TYPE",
    "ENUM_OVERLAY_ANALYSIS_TYPE",
    "GC_RECORD",
    "HBM",
    "HCCS",
    "HOST_DISK_USAGE",
    "HOST_INFO",
    "HOST_MEM_USAGE",
    "HOST_NETWORK_USAGE",
    "LLC",
    "MEMCPY_INFO",
    "MEMORY_RECORD",
    "META_DATA",
    "MSTX_EVENTS",
    "NETDEV_STATS",
    "NIC",
    "NPU_INFO",
    "NPU_MEM",
    "NPU_MODULE_MEM",
    "NPU_OP_MEM",
    "OP_MEMORY",
    "OSRT_API",
    "OVERLAP_ANALYSIS",
    "PCIE",
    "PYTORCH_API",
    "PYTORCH_CALLCHAINS",
    "QOS",
    "RANK_DEVICE_MAP",
    "ROCE",
    "SAMPLE_PMU_SUMMARY",
    "SAMPLE_PMU_TIMELINE",
    "SESSION_TIME_INFO",
    "SIO",
    "SOC_BANDWIDTH_LEVEL",
    "STEP_TIME",
    "STRING_IDS",
    "TARGET_INFO_NPU",
    "TARGET_INFO_SESSION_TIME",
    "TASK",
    "TASK_PMU_INFO",
    "UB",
};
#define NKNOWN (sizeof known_tables / sizeof *known_tables)

/* The functions tl's own statements call. Add here when a query needs another. */
static const char *const allowed_functions[] = {"count", "max", "min", "typeof"};

/* Tables with data tl draws: a file without any of them is not a profile. */
static const char *const data_tables[] = {"TASK", "COMMUNICATION_OP", "MSTX_EVENTS", "STEP_TIME"};

/* The work budget: progress-handler calls every PROGRESS_OPS virtual-machine steps. A statement
 * may take BUDGET_BASE steps plus BUDGET_PER_BYTE per byte of the file. tl's heaviest statement,
 * the scan of TASK, measures at 0.008 (samples) to 0.075 (generated, 80 MB) steps per file byte,
 * about 12 steps per row; the most any file could need is about 1 per byte (13-byte rows, every
 * column NULL). The budget is 100 per byte: it stops what would never end, not what is slow. */
#define PROGRESS_OPS 1000
#define BUDGET_BASE 50000000ull
#define BUDGET_PER_BYTE 100ull

static int
known_index(const char *name)
{
	size_t lo = 0, hi = NKNOWN;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, known_tables[mid]);
		if (c == 0)
			return (int)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

int
profdb_has(const tl_profdb *p, const char *name)
{
	int i = known_index(name);
	return i >= 0 && (p->tables[i / 64] >> (i % 64) & 1);
}

static int
on_progress(void *arg)
{
	tl_profdb *p = arg;
	if (load_cancelled())
		return 1; /* the viewer quit while loading (load_bg_finish) */
	if (++p->ticks > p->max_ticks) {
		p->over_budget = 1;
		return 1; /* SQLITE_INTERRUPT */
	}
	return 0;
}

#define DENY(...)                                                                                  \
	do {                                                                                       \
		snprintf(p->denied, sizeof p->denied, __VA_ARGS__);                                \
		return SQLITE_DENY;                                                                \
	} while (0)
#define S(x) ((x) ? (x) : "?")

static int
on_authorize(void *arg, int action, const char *a1, const char *a2, const char *dbname,
             const char *inner)
{
	tl_profdb *p = arg;
	if (action == SQLITE_RECURSIVE)
		DENY("run a recursive query");
	if (inner != NULL) /* on behalf of a view, trigger or WITH clause: tl never asks */
		DENY("run SQL of the view, trigger or WITH clause %s", inner);
	switch (action) {
	case SQLITE_SELECT:
		return SQLITE_OK;
	case SQLITE_READ:
		/* (count(*) reads with no database and no column named) */
		if (dbname != NULL && strcmp(dbname, "main") != 0)
			DENY("read table %s of the database %s", S(a1), S(dbname));
		if (a1 != NULL && (strcmp(a1, "sqlite_master") == 0 ||
		                   strcmp(a1, "sqlite_schema") == 0 || known_index(a1) >= 0))
			return SQLITE_OK;
		DENY("read the table %s", S(a1));
	case SQLITE_PRAGMA:
		if (a1 != NULL &&
		    (strcmp(a1, "table_info") == 0 || strcmp(a1, "table_xinfo") == 0) &&
		    a2 != NULL && known_index(a2) >= 0)
			return SQLITE_OK;
		DENY("run PRAGMA %s(%s)", S(a1), S(a2));
	case SQLITE_FUNCTION:
		for (size_t i = 0; i < sizeof allowed_functions / sizeof *allowed_functions; i++)
			if (a2 != NULL && strcmp(a2, allowed_functions[i]) == 0)
				return SQLITE_OK;
		DENY("call the SQL function %s()", S(a2));
	default:
		DENY("do what SQLite's authorizer calls action %d", action);
	}
}
#undef DENY
#undef S

int
profdb_prepare(tl_profdb *p, const char *sql, sqlite3_stmt **st)
{
	p->ticks = 0;
	p->over_budget = 0;
	p->denied[0] = '\0';
	return sqlite3_prepare_v2(p->db, sql, -1, st, NULL);
}

int
profdb_fatal(const tl_profdb *p, int rc)
{
	rc &= 0xff;
	/* (a refused function is SQLITE_ERROR "not authorized to use function") */
	return rc == SQLITE_AUTH || (rc != SQLITE_OK && p->denied[0] != '\0') ||
	       rc == SQLITE_TOOBIG || rc == SQLITE_NOMEM || rc == SQLITE_NOTADB ||
	       (rc == SQLITE_INTERRUPT && p->over_budget);
}

const char *
profdb_errmsg(const tl_profdb *p, int rc, char *buf, size_t len)
{
	if ((rc & 0xff) != SQLITE_OK && p->denied[0] != '\0')
		rc = SQLITE_AUTH;
	switch (rc & 0xff) {
	case SQLITE_AUTH:
		snprintf(buf, len,
		         "the database makes tl %s, which it never does for a profile (a "
		         "crafted file?)",
		         p->denied[0] ? p->denied : "do something it does not allow");
		break;
	case SQLITE_INTERRUPT:
		if (p->over_budget) {
			snprintf(buf, len,
			         "reading it takes far more work than a file of its size can "
			         "explain (a crafted or damaged file?); stopped");
			break;
		}
		snprintf(buf, len, "interrupted");
		break;
	case SQLITE_TOOBIG:
		snprintf(buf, len,
		         "it holds a string or row longer than %d bytes, more than any "
		         "profile needs (a crafted file?)",
		         PROFDB_MAX_LENGTH);
		break;
	case SQLITE_NOMEM:
		snprintf(buf, len, "out of memory while reading it");
		break;
	case SQLITE_NOTADB:
		snprintf(buf, len, "not an SQLite database (or encrypted)");
		break;
	case SQLITE_CORRUPT:
		snprintf(buf, len, "the database is damaged or truncated (%s)",
		         sqlite3_errmsg(p->db));
		break;
	default:
		snprintf(buf, len, "%s", sqlite3_errmsg(p->db));
	}
	return buf;
}

static void
side_files(tl_profdb *p)
{
	struct stat st;
	size_t n = strlen(p->path) + 16;
	char *s = malloc(n);
	if (s == NULL)
		return;
	snprintf(s, n, "%s-journal", p->path);
	p->journal = stat(s, &st) == 0;
	snprintf(s, n, "%s-wal", p->path);
	p->wal = stat(s, &st) == 0 && st.st_size > 0;
	free(s);
}

static void
harden(tl_profdb *p)
{
	sqlite3 *db = p->db;
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
#endif
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
#endif
#ifdef SQLITE_DBCONFIG_DQS_DML
	sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, NULL);
#endif
	/* what real profiles need, with a wide margin: the widest table has 23 columns, tl's
	 * longest statement is a few hundred bytes, and none nests expressions */
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, PROFDB_MAX_LENGTH);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 10000);
	sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 200);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
	sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 2);
	sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 25000);
	sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
	sqlite3_limit(db, SQLITE_LIMIT_VARIABLE_NUMBER, 8);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
#ifdef SQLITE_LIMIT_WORKER_THREADS
	sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
#endif
	sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL);
	/* from here on only what the authorizer allows, within the work budget */
	sqlite3_set_authorizer(db, on_authorize, p);
	sqlite3_progress_handler(db, PROGRESS_OPS, on_progress, p);
	uint64_t budget = BUDGET_BASE + BUDGET_PER_BYTE * p->file_bytes;
	p->max_ticks = budget / PROGRESS_OPS;
}

/* "CREATE VIRTUAL TABLE ...", in any case and spacing */
static int
is_virtual(const char *sql)
{
	static const char *const words[] = {"create", "virtual"};
	const char *s = sql;
	for (int w = 0; w < 2; w++) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		size_t n = strlen(words[w]);
		if (strncasecmp(s, words[w], n) != 0)
			return 0;
		s += n;
	}
	return 1;
}

/* The checks before any table is trusted. Returns 0 or -1 with err. */
static int
verify(tl_profdb *p, char *err, size_t errlen)
{
	char m[256];
	sqlite3_stmt *st;
	int rc = profdb_prepare(p, "SELECT type, name, sql FROM sqlite_master", &st);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s", profdb_errmsg(p, sqlite3_errcode(p->db), m, sizeof m));
		return -1;
	}
	int bad = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		int k = name ? known_index(name) : -1;
		if (k < 0 || type == NULL)
			continue;
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		if (strcmp(type, "table") == 0 && sql != NULL && is_virtual(sql) && !bad) {
			/* reading it would run a module (fts5, rtree...) over data the file
			 * controls */
			snprintf(err, errlen,
			         "not a profiler database: %s is a virtual table (a "
			         "crafted file?)",
			         name);
			bad = 1;
		} else if (strcmp(type, "table") == 0) {
			p->tables[k / 64] |= (uint64_t)1 << (k % 64);
		} else if (strcmp(type, "index") != 0 && !bad) {
			/* a VIEW or trigger posing as a profile table */
			snprintf(err, errlen,
			         "not a profiler database: %s is a %s, not a table (a "
			         "crafted file?)",
			         name, type);
			bad = 1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", profdb_errmsg(p, rc, m, sizeof m));
		return -1;
	}
	if (bad)
		return -1;
	int data = 0;
	for (size_t i = 0; i < sizeof data_tables / sizeof *data_tables; i++)
		data |= profdb_has(p, data_tables[i]);
	if (!data) {
		snprintf(err, errlen,
		         "not a profiler database (none of TASK, COMMUNICATION_OP, "
		         "MSTX_EVENTS, STEP_TIME)");
		return -1;
	}
	p->has_meta = profdb_has(p, "META_DATA");
	if (!p->has_meta && !profdb_has(p, "STRING_IDS")) {
		snprintf(err, errlen, "not a profiler database (neither META_DATA nor STRING_IDS)");
		return -1;
	}
	/* generated columns (hidden 2: virtual, 3: stored) in the tables tl may read */
	if (sqlite3_libversion_number() >= 3026000)
		for (size_t i = 0; i < NKNOWN; i++) {
			if (!profdb_has(p, known_tables[i]))
				continue;
			char sql[96];
			snprintf(sql, sizeof sql, "PRAGMA table_xinfo(\"%s\")", known_tables[i]);
			if (profdb_prepare(p, sql, &st) != SQLITE_OK) {
				snprintf(err, errlen, "%s: %s", known_tables[i],
				         profdb_errmsg(p, sqlite3_errcode(p->db), m, sizeof m));
				return -1;
			}
			while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
				/* cid, name, type, notnull, dflt_value, pk, hidden */
				if (sqlite3_column_int(st, 6) >= 2) {
					const char *cn = (const char *)sqlite3_column_text(st, 1);
					snprintf(err, errlen,
					         "%s.%.60s is a generated column: profilers "
					         "never write those (a crafted file?)",
					         known_tables[i], cn ? cn : "?");
					sqlite3_finalize(st);
					return -1;
				}
			}
			sqlite3_finalize(st);
			if (rc != SQLITE_DONE) {
				snprintf(err, errlen, "%s: %s", known_tables[i],
				         profdb_errmsg(p, rc, m, sizeof m));
				return -1;
			}
		}
	if (p->has_meta &&
	    profdb_prepare(p, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'", &st) ==
	        SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) != NULL)
			snprintf(p->schema_version, sizeof p->schema_version, "%s",
			         (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	return 0;
}

static int open_db(tl_profdb *p, const char *path, char *err, size_t errlen);

int
profdb_open(tl_profdb *p, const char *path, char *err, size_t errlen)
{
	load_count_open();
	return open_db(p, path, err, errlen);
}

static int
open_db(tl_profdb *p, const char *path, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	p->path = path;
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "not a regular file");
		return -1;
	}
	p->file_bytes = (uint64_t)st.st_size;
	side_files(p);
	/* the path inside a URI: '%', '?' and '#' are escaped (they would decode or end the path
	 * part), and an absolute path gets an empty authority ("file:///...") */
	size_t n = strlen(path);
	char *esc = malloc(3 * n + 1);
	if (esc == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)path[i];
		if (ch == '%' || ch == '?' || ch == '#' || ch < 0x20 || ch >= 0x7f) {
			snprintf(esc + o, 4, "%%%02X", ch);
			o += 3;
		} else {
			esc[o++] = (char)ch;
		}
	}
	esc[o] = '\0';
	char *uri = sqlite3_mprintf("file:%s%s?immutable=1", path[0] == '/' ? "//" : "", esc);
	free(esc);
	if (uri == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = sqlite3_open_v2(
	    uri, &p->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	sqlite3_free(uri);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open: %s",
		         p->db ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
		sqlite3_close(p->db);
		p->db = NULL;
		return -1;
	}
	harden(p);
	if (verify(p, err, errlen) != 0) {
		profdb_close(p);
		return -1;
	}
	return 0;
}

void
profdb_close(tl_profdb *p)
{
	if (p->db)
		sqlite3_close(p->db);
	p->db = NULL;
}

uint64_t
profdb_estimate_rows(const char *path)
{
	static const char *const big[] = {"TASK", "COMMUNICATION_OP", "MSTX_EVENTS"};
	tl_profdb p;
	char err[256];
	/* not counted as a read of the data (load_source_opens): the schema and three max(rowid)
	 * size the memory a load would take, before the cache is looked at */
	if (open_db(&p, path, err, sizeof err) != 0)
		return 0; /* the load says what is wrong with it */
	uint64_t rows = 0;
	/* a table cannot hold more rows than its share of the file allows (a crafted max(rowid)
	 * must not make tl refuse a small file): a TASK row takes more than 16 bytes */
	uint64_t cap = p.file_bytes / 16;
	for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
		if (!profdb_has(&p, big[i]))
			continue;
		char sql[64];
		snprintf(sql, sizeof sql, "SELECT max(rowid) FROM \"%s\"", big[i]);
		sqlite3_stmt *st;
		if (profdb_prepare(&p, sql, &st) != SQLITE_OK)
			continue;
		if (sqlite3_step(st) == SQLITE_ROW) {
			int64_t m = sqlite3_column_int64(st, 0);
			rows += m <= 0 ? 0 : (uint64_t)m < cap ? (uint64_t)m : cap;
		}
		sqlite3_finalize(st);
	}
	profdb_close(&p);
	return rows;
}

char *
profdb_host(tl_profdb *p)
{
	if (!profdb_has(p, "HOST_INFO"))
		return NULL;
	sqlite3_stmt *st = NULL;
	char *v = NULL;
	/* the name the profiler recorded, else its id of the host (hostUid) */
	if (profdb_prepare(p, "SELECT hostName, hostUid FROM HOST_INFO LIMIT 1", &st) ==
	        SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < 2 && v == NULL; c++) {
			const unsigned char *s =
			    sqlite3_column_type(st, c) == SQLITE_TEXT ||
			            sqlite3_column_type(st, c) == SQLITE_INTEGER
			        ? sqlite3_column_text(st, c)
			        : NULL;
			if (s != NULL && s[0] != '\0' && strlen((const char *)s) < 256)
				v = xstrdup((const char *)s);
		}
	}
	sqlite3_finalize(st);
	return v;
}
