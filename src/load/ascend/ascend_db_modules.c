/* What module statistics read from a profile DB, on demand (the inputs of msprof-analyze's
 * module_statistic): the ranges of MSTX domain "Module" (eventType 2, start/end; the message
 * is the module's class name), each framework operator (PYTORCH_API) with the kernels it
 * launched -- its CONNECTION_IDS rows name the connectionIds of its launches, which the TASK
 * rows of COMPUTE_TASK_INFO and COMMUNICATION_SCHEDULE_TASK_INFO and the COMMUNICATION_OP rows
 * carry -- and autograd's forward -> backward links: a connectionId that two or more
 * PYTORCH_API rows share, the lowest CONNECTION_IDS id the forward operator, the highest the
 * backward one (the task queue's Enqueue / Dequeue pairs share ids too, and are not links).
 * The joins are done here, in memory: the hardened connection runs only plain SELECTs. A DB
 * without Module ranges is left after one look at STRING_IDS (and the query asks no DB whose
 * loaded lanes have none). */
#include "config.h"
#include "load/ascend/ascend_db_gather.h"
#include "load/load_int.h"
#include "load/ascend/profdb.h"
#include "util/msg.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MSTX_START_END 2 /* ENUM_MSTX_EVENT_TYPE: range_start / range_end */

typedef struct conn_row { /* CONNECTION_IDS */
	int64_t id, conn;
} conn_row;

typedef struct api_row { /* PYTORCH_API rows that have connections */
	int64_t id, start, end;
	uint32_t name;
} api_row;

typedef struct krow {             /* a kernel joined to the operator that launched it */
	int table;                /* the order msprof-analyze concatenates the tables in */
	size_t api;               /* index into the API rows */
	int64_t op_start, op_end; /* its operator's */
	uint32_t op_name;
	int64_t start, end;
	uint32_t name;
	size_t pos; /* order of the row after the per-table sort */
} krow;

typedef struct mctx {
	tl_profdb p;
	const char *path;
	tl_module_data *d;
	tl_u64map strs;    /* STRING_IDS id -> pool id */
	conn_row *by_conn; /* by connectionId, then id */
	size_t nconn;
	api_row *api; /* by CONNECTION_IDS id */
	size_t napi, apicap;
	krow *rows;
	size_t nrows, rowcap;
	int failed;
} mctx;

static void
fail(mctx *c, const char *table, int rc)
{
	char b[300];
	if (!c->failed)
		msg_warn(c->path, "%s: %s; no module statistics for it", table,
		         profdb_errmsg(&c->p, rc, b, sizeof b));
	c->failed = 1;
}

static uint32_t
sid(mctx *c, sqlite3_stmt *st, int col)
{
	uint32_t v;
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER ||
	    !u64map_get(&c->strs, (uint64_t)sqlite3_column_int64(st, col), &v))
		return 0; /* NULL or 4294967295: the empty string */
	return v;
}

/* A time column: an integer, or the decimal text PYTORCH_API keeps its times in, as the load
 * reads it (db_time_at). */
static int
time_col(sqlite3_stmt *st, int col, int64_t *t)
{
	db_cell x = db_time_at(st, col);
	*t = x.v;
	return x.type == SQLITE_INTEGER ? 0 : -1;
}

/* Both ends present, in range and in order. */
static int
times(sqlite3_stmt *st, int col, int64_t *s, int64_t *e)
{
	if (time_col(st, col, s) != 0 || time_col(st, col + 1, e) != 0)
		return -1;
	return tl_time_ok(*s) && tl_time_ok(*e) && *e >= *s ? 0 : -1;
}

/* The Module domain's ranges; 0 when there are none (nothing else is read then). */
static size_t
read_ranges(mctx *c)
{
	sqlite3_stmt *st;
	int rc = profdb_prepare(&c->p, "SELECT id FROM STRING_IDS WHERE value = 'Module'", &st);
	if (rc != SQLITE_OK) {
		fail(c, "STRING_IDS", rc);
		return 0;
	}
	int64_t dom[8];
	size_t ndom = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (ndom < 8 && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
			dom[ndom++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail(c, "STRING_IDS", rc);
		return 0;
	}
	size_t bad = 0;
	for (size_t i = 0; i < ndom && !c->failed; i++) {
		char sql[200];
		snprintf(sql, sizeof sql,
		         "SELECT startNs, endNs, message FROM MSTX_EVENTS WHERE eventType = %d "
		         "AND domainId = %lld",
		         MSTX_START_END, (long long)dom[i]);
		if ((rc = profdb_prepare(&c->p, sql, &st)) != SQLITE_OK) {
			fail(c, "MSTX_EVENTS", rc);
			break;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t s, e;
			if (times(st, 0, &s, &e) != 0) {
				bad++;
				continue;
			}
			/* the message's string is interned later, with the others */
			tl_mod_range r = {s, e,
			                  (uint32_t)(sqlite3_column_type(st, 2) == SQLITE_INTEGER
			                                 ? sqlite3_column_int64(st, 2) & 0xffffffff
			                                 : UINT32_MAX)};
			VEC_PUSH(c->d->ranges, c->d->nranges, c->d->rcap, r);
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			fail(c, "MSTX_EVENTS", rc);
	}
	if (bad)
		msg_warn(c->path, "MSTX_EVENTS: %zu Module ranges without usable times skipped",
		         bad);
	return c->d->nranges;
}

static int
read_strings(mctx *c)
{
	sqlite3_stmt *st;
	int rc = profdb_prepare(&c->p, "SELECT id, value FROM STRING_IDS", &st);
	if (rc != SQLITE_OK) {
		fail(c, "STRING_IDS", rc);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 1);
		if (sqlite3_column_type(st, 0) == SQLITE_INTEGER && v != NULL)
			u64map_put(&c->strs, (uint64_t)sqlite3_column_int64(st, 0),
			           strpool_intern_cstr(c->d->pool, (const char *)v));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail(c, "STRING_IDS", rc);
		return -1;
	}
	return 0;
}

static int
cmp_conn(const void *a, const void *b)
{
	const conn_row *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int
cmp_api(const void *a, const void *b)
{
	const api_row *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int
read_connections(mctx *c)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc = profdb_prepare(&c->p, "SELECT id, connectionId FROM CONNECTION_IDS", &st);
	if (rc != SQLITE_OK) {
		fail(c, "CONNECTION_IDS", rc);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 1) != SQLITE_INTEGER)
			continue;
		conn_row r = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
		VEC_PUSH(c->by_conn, c->nconn, cap, r);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail(c, "CONNECTION_IDS", rc);
		return -1;
	}
	qsort(c->by_conn, c->nconn, sizeof *c->by_conn, cmp_conn);

	rc = profdb_prepare(&c->p,
	                    "SELECT connectionId, startNs, endNs, name FROM PYTORCH_API WHERE "
	                    "connectionId IS NOT NULL",
	                    &st);
	if (rc != SQLITE_OK) {
		fail(c, "PYTORCH_API", rc);
		return -1;
	}
	size_t bad = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t s, e;
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || times(st, 1, &s, &e) != 0) {
			bad++;
			continue;
		}
		api_row a = {sqlite3_column_int64(st, 0), s, e, sid(c, st, 3)};
		VEC_PUSH(c->api, c->napi, c->apicap, a);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fail(c, "PYTORCH_API", rc);
		return -1;
	}
	if (bad)
		msg_warn(c->path,
		         "PYTORCH_API: %zu operators without usable times left out of "
		         "the module statistics",
		         bad);
	qsort(c->api, c->napi, sizeof *c->api, cmp_api);
	return 0;
}

/* [*lo, *hi) of the API rows with CONNECTION_IDS id `id`. */
static void
api_range(const mctx *c, int64_t id, size_t *lo, size_t *hi)
{
	size_t a = 0, b = c->napi;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (c->api[m].id < id)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < c->napi && c->api[a].id == id)
		a++;
	*hi = a;
}

/* [*lo, *hi) of the CONNECTION_IDS rows of connectionId conn (by_conn). */
static void
conn_range(const mctx *c, int64_t conn, size_t *lo, size_t *hi)
{
	size_t a = 0, b = c->nconn;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (c->by_conn[m].conn < conn)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	while (a < c->nconn && c->by_conn[a].conn == conn)
		a++;
	*hi = a;
}

static int
cmp_krow_table(const void *a, const void *b)
{
	const krow *x = a, *y = b;
	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	if (x->op_start != y->op_start)
		return x->op_start < y->op_start ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->api > y->api) - (x->api < y->api);
}

/* The kernels of one table: sql gives name, start, end, connectionId. */
static void
read_kernels(mctx *c, int table, const char *what, const char *sql)
{
	sqlite3_stmt *st;
	int rc = profdb_prepare(&c->p, sql, &st);
	if (rc != SQLITE_OK) {
		fail(c, what, rc);
		return;
	}
	size_t first = c->nrows, bad = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t s, e;
		if (sqlite3_column_type(st, 3) != SQLITE_INTEGER)
			continue; /* launched by no operator */
		if (times(st, 1, &s, &e) != 0) {
			bad++;
			continue;
		}
		size_t lo, hi;
		conn_range(c, sqlite3_column_int64(st, 3), &lo, &hi);
		for (size_t i = lo; i < hi; i++) {
			size_t a0, a1;
			api_range(c, c->by_conn[i].id, &a0, &a1);
			for (size_t a = a0; a < a1; a++) {
				const api_row *op = &c->api[a];
				krow r = {.table = table,
				          .api = a,
				          .op_start = op->start,
				          .op_end = op->end,
				          .op_name = op->name,
				          .start = s,
				          .end = e,
				          .name = sid(c, st, 0)};
				VEC_PUSH(c->rows, c->nrows, c->rowcap, r);
			}
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		fail(c, what, rc);
	if (bad)
		msg_warn(c->path,
		         "%s: %zu kernels without usable times left out of the module "
		         "statistics",
		         what, bad);
	/* each table's rows by operator start, then kernel start (ORDER BY op_ts, kernel_ts) */
	qsort(c->rows + first, c->nrows - first, sizeof *c->rows, cmp_krow_table);
}

static int
cmp_krow_op(const void *a, const void *b)
{
	const krow *x = a, *y = b;
	/* an operator is (name, start, end): rows of the same one together, in row order */
	if (x->op_name != y->op_name)
		return x->op_name < y->op_name ? -1 : 1;
	if (x->op_start != y->op_start)
		return x->op_start < y->op_start ? -1 : 1;
	if (x->op_end != y->op_end)
		return x->op_end < y->op_end ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

typedef struct opk {
	tl_mod_op op; /* k0: its first row among the grouped rows */
	size_t first; /* its first row's place in the concatenated tables */
} opk;

static int
cmp_op_first(const void *a, const void *b)
{
	const opk *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

/* Operators with their kernels, each (name, start, end) once, in the order they first appear
 * in the concatenated tables, kernels in row order. */
static void
group_ops(mctx *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		c->rows[i].pos = i;
	qsort(c->rows, c->nrows, sizeof *c->rows, cmp_krow_op);
	opk *v = NULL;
	size_t nv = 0, vcap = 0;
	for (size_t i = 0; i < c->nrows;) {
		const api_row *a = &c->api[c->rows[i].api];
		size_t j = i;
		while (j < c->nrows && c->rows[j].op_name == a->name &&
		       c->rows[j].op_start == a->start && c->rows[j].op_end == a->end)
			j++;
		opk o = {{a->start, a->end, a->name, i, j - i}, c->rows[i].pos};
		VEC_PUSH(v, nv, vcap, o);
		i = j;
	}
	qsort(v, nv, sizeof *v, cmp_op_first);
	tl_module_data *d = c->d;
	VEC_RESERVE(d->k, d->kcap, d->nk + c->nrows);
	VEC_RESERVE(d->ops, d->ocap, d->nops + nv);
	for (size_t i = 0; i < nv; i++) {
		tl_mod_op op = v[i].op;
		for (size_t x = 0; x < op.nk; x++) {
			const krow *r = &c->rows[op.k0 + x];
			d->k[d->nk + x] = (tl_mod_kernel){r->start, r->end, r->name};
		}
		op.k0 = d->nk;
		d->nk += op.nk;
		d->ops[d->nops++] = op;
	}
	free(v);
}

/* autograd's links: connectionIds shared by two or more CONNECTION_IDS rows */
static void
read_links(mctx *c)
{
	tl_module_data *d = c->d;
	for (size_t i = 0; i < c->nconn;) {
		size_t j = i;
		while (j < c->nconn && c->by_conn[j].conn == c->by_conn[i].conn)
			j++;
		if (j - i > 1) {
			int64_t lo = c->by_conn[i].id, hi = c->by_conn[j - 1].id;
			size_t f0, f1, b0, b1;
			api_range(c, lo, &f0, &f1);
			api_range(c, hi, &b0, &b1);
			for (size_t f = f0; f < f1; f++) {
				const char *fn = strpool_get(d->pool, c->api[f].name);
				if (c->api[f].name == 0 || strncasecmp(fn, "Enqueue", 7) == 0 ||
				    strncasecmp(fn, "Dequeue", 7) == 0)
					continue;
				for (size_t b = b0; b < b1; b++) {
					tl_mod_link l = {c->api[f].start, c->api[f].end,
					                 c->api[b].start, c->api[b].end,
					                 c->api[f].name};
					VEC_PUSH(d->links, d->nlinks, d->lcap, l);
				}
			}
		}
		i = j;
	}
}

void
ascend_db_modules(const tl_source *src, tl_module_data *d)
{
	mctx c = {.path = src->path, .d = d};
	char err[400];
	if (profdb_open(&c.p, src->path, err, sizeof err) != 0) {
		msg_warn(src->path, "%s; no module statistics for it", err);
		return;
	}
	if (!profdb_has(&c.p, "MSTX_EVENTS") || !profdb_has(&c.p, "STRING_IDS")) {
		profdb_close(&c.p);
		return;
	}
	u64map_init(&c.strs);
	size_t r0 = d->nranges;
	if (read_ranges(&c) > r0 && read_strings(&c) == 0) {
		for (size_t i = r0; i < d->nranges; i++) {
			uint32_t v;
			d->ranges[i].name = d->ranges[i].name != UINT32_MAX &&
			                            u64map_get(&c.strs, d->ranges[i].name, &v)
			                        ? v
			                        : 0;
		}
		if (profdb_has(&c.p, "CONNECTION_IDS") && profdb_has(&c.p, "PYTORCH_API") &&
		    read_connections(&c) == 0) {
			if (profdb_has(&c.p, "TASK") && profdb_has(&c.p, "COMPUTE_TASK_INFO"))
				read_kernels(
				    &c, 0, "COMPUTE_TASK_INFO",
				    "SELECT c.name, t.startNs, t.endNs, t.connectionId FROM "
				    "COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = "
				    "c.globalTaskId");
			if (profdb_has(&c.p, "COMMUNICATION_OP"))
				read_kernels(&c, 1, "COMMUNICATION_OP",
				             "SELECT opType, startNs, endNs, connectionId FROM "
				             "COMMUNICATION_OP");
			if (profdb_has(&c.p, "TASK") &&
			    profdb_has(&c.p, "COMMUNICATION_SCHEDULE_TASK_INFO"))
				read_kernels(
				    &c, 2, "COMMUNICATION_SCHEDULE_TASK_INFO",
				    "SELECT c.name, t.startNs, t.endNs, t.connectionId FROM "
				    "COMMUNICATION_SCHEDULE_TASK_INFO c JOIN TASK t ON "
				    "t.globalTaskId = c.globalTaskId");
			group_ops(&c);
			read_links(&c);
		}
	}
	u64map_free(&c.strs);
	free(c.by_conn);
	free(c.api);
	free(c.rows);
	profdb_close(&c.p);
}
