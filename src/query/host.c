#include "config.h"
#include "query/session.h"
#include "util/parallel.h"
#include "query/host.h"
#include "load/load.h"
#include "load/profdb.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
tlq_host_lanes(const tl_query *cq)
{
	tl_query *q = tlq_mut(cq);
	pthread_mutex_lock(&q->lock);
	if (!q->have_host) {
		for (size_t i = 0; i < q->tr->nranks; i++)
			load_host(q->tr->ranks[i]);
		if (q->o.lanes)
			tlq_prefix_sums(q); /* of the new lanes and of the tracks they grew */
		q->have_host = 1;
	}
	pthread_mutex_unlock(&q->lock);
}

size_t
tlq_launch_steps(const tl_rank *r, tl_launch_step **out)
{
	if (r->have_launch_steps) { /* gathered while loading */
		size_t n = r->nlaunch_steps;
		*out = NULL;
		if (n > 0) {
			*out = xreallocarray(NULL, n, sizeof **out);
			memcpy(*out, r->launch_steps, n * sizeof **out);
		}
		return n;
	}
	tl_launch *v;
	size_t n = load_launches(r, &v);
	size_t m = launch_steps(r, v, n, out);
	free(v);
	return m;
}

typedef struct rank_job {
	const tl_trace *tr;
	void (*fn)(const tl_rank *, size_t, void *);
	void *ctx;
} rank_job;

static void
rank_item(void *arg, size_t i)
{
	rank_job *j = arg;
	j->fn(j->tr->ranks[i], i, j->ctx);
}

void
tlq_for_ranks(const tl_trace *tr, int threads, void (*fn)(const tl_rank *, size_t, void *),
              void *ctx)
{
	rank_job j = {tr, fn, ctx};
	parallel_for(tr->nranks, threads, rank_item, &j);
}

typedef struct launch_all {
	tl_launch_step **out;
	size_t *n;
} launch_all;

static void
launch_one(const tl_rank *r, size_t i, void *ctx)
{
	launch_all *a = ctx;
	a->n[i] = tlq_launch_steps(r, &a->out[i]);
}

void
tlq_launch_steps_all(const tl_query *q, int threads, tl_launch_step ***out, size_t **n)
{
	const tl_trace *tr = tlq_trace(q);
	size_t nr = tr->nranks ? tr->nranks : 1;
	launch_all a = {xcalloc(nr, sizeof **out), xcalloc(nr, sizeof **n)};
	tlq_for_ranks(tr, threads, launch_one, &a);
	*out = a.out;
	*n = a.n;
}

/* ---- host <-> device links ---- */

#define API_TYPE_OP 50001 /* ENUM_API_TYPE "op": a torch operator (50002 queue, 50003 trace) */

static int
is_db(const tl_source *s)
{
	return s->kind == TL_SRC_TORCH_DB || s->kind == TL_SRC_MSPROF_DB ||
	       s->kind == TL_SRC_MINDSPORE_DB;
}

/* Opens t's source DB again, unless it is gone or changed since loading (its rowids would name
 * other rows). */
int
tlq_source_open(const tl_rank *r, size_t source, tl_profdb *pdb)
{
	if (source >= r->nsources || !is_db(r->sources[source]))
		return -1;
	const tl_source *src = r->sources[source];
	struct stat sb;
	if (stat(src->path, &sb) != 0)
		return -1;
	if ((src->ino != 0 || src->size != 0) &&
	    ((uint64_t)sb.st_dev != src->dev || (uint64_t)sb.st_ino != src->ino ||
	     (int64_t)sb.st_size != src->size ||
	     (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec != src->mtime_ns))
		return -1;
	char err[400];
	return profdb_open(pdb, src->path, err, sizeof err);
}

static int
src_open(const tl_rank *r, const tl_track *t, tl_profdb *pdb)
{
	return tlq_source_open(r, t->source, pdb);
}

static int
is_task_lane(tl_lane_kind k)
{
	return k == TL_LANE_COMPUTE || k == TL_LANE_COMM_TASK || k == TL_LANE_MEMCPY ||
	       k == TL_LANE_MSTX_DEV || k == TL_LANE_OTHER;
}

/* A time column: INTEGER, or TEXT holding a decimal integer (PYTORCH_API's times are TEXT). */
static int
col_ns(sqlite3_stmt *st, int col, int64_t *out)
{
	if (sqlite3_column_type(st, col) == SQLITE_INTEGER) {
		*out = sqlite3_column_int64(st, col);
		return 0;
	}
	if (sqlite3_column_type(st, col) != SQLITE_TEXT)
		return -1;
	const char *s = (const char *)sqlite3_column_text(st, col);
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0)
		return -1;
	*out = v;
	return 0;
}

static void
col_name(sqlite3_stmt *st, int col, char *buf, size_t len)
{
	const char *s = (const char *)sqlite3_column_text(st, col);
	snprintf(buf, len, "%s", s ? s : "");
}

int
tlq_task_launcher(const tl_rank *r, const tl_track *t, size_t idx, tlq_launcher *out)
{
	memset(out, 0, sizeof *out);
	if (idx >= t->n || (!is_task_lane(t->kind) && t->kind != TL_LANE_COMM) ||
	    t->v[idx].arg == UINT32_MAX)
		return 0;
	/* a communication op's row carries the connectionId its sub-tasks share */
	const char *table = t->kind == TL_LANE_COMM ? "COMMUNICATION_OP" : "TASK";
	tl_profdb pdb;
	if (src_open(r, t, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, table) || !profdb_has(&pdb, "CANN_API")) {
		profdb_close(&pdb);
		return 0;
	}
	int str = profdb_has(&pdb, "STRING_IDS");
	char sql[600];
	snprintf(sql, sizeof sql,
	         "SELECT a.startNs, a.endNs, %s, t.startNs FROM %s t JOIN CANN_API a ON "
	         "a.connectionId = t.connectionId WHERE t.rowid = ?",
	         str ? "(SELECT value FROM STRING_IDS WHERE id = a.name)" : "NULL", table);
	sqlite3_stmt *st;
	int rc = 0;
	if (profdb_prepare(&pdb, sql, &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	sqlite3_bind_int64(st, 1, t->v[idx].arg);
	if (sqlite3_step(st) == SQLITE_ROW && col_ns(st, 0, &out->cann_start) == 0 &&
	    col_ns(st, 3, &out->task_start) == 0) {
		out->have_cann = 1;
		if (col_ns(st, 1, &out->cann_end) != 0)
			out->cann_end = out->cann_start;
		col_name(st, 2, out->cann_name, sizeof out->cann_name);
		out->delay = out->task_start - out->cann_start;
		rc = 1;
	}
	sqlite3_finalize(st);
	if (rc == 1 && profdb_has(&pdb, "PYTORCH_API") && profdb_has(&pdb, "CONNECTION_IDS")) {
		snprintf(sql, sizeof sql,
		         "SELECT p.startNs, p.endNs, %s, p.type, p.rowid FROM %s t JOIN "
		         "CONNECTION_IDS c ON c.connectionId = t.connectionId JOIN PYTORCH_API p "
		         "ON p.connectionId = c.id WHERE t.rowid = ?",
		         str ? "(SELECT value FROM STRING_IDS WHERE id = p.name)" : "NULL", table);
		if (profdb_prepare(&pdb, sql, &st) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, t->v[idx].arg);
			int best_op = 0;
			while (sqlite3_step(st) == SQLITE_ROW) {
				int64_t s, e;
				out->nops++;
				if (col_ns(st, 0, &s) != 0 || col_ns(st, 1, &e) != 0)
					continue;
				int op = sqlite3_column_int64(st, 3) == API_TYPE_OP;
				/* the innermost: operators first, then the latest start, then the
				 * shortest */
				if (out->have_op &&
				    (op < best_op ||
				     (op == best_op && (s < out->op_start ||
				                        (s == out->op_start && e >= out->op_end)))))
					continue;
				out->have_op = 1;
				best_op = op;
				out->op_start = s;
				out->op_end = e;
				out->op_row = (uint32_t)sqlite3_column_int64(st, 4);
				col_name(st, 2, out->op_name, sizeof out->op_name);
			}
			sqlite3_finalize(st);
		}
	}
	profdb_close(&pdb);
	return rc;
}

static int
cmp_kernel(const void *a, const void *b)
{
	const tlq_kernel *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->task_row > y->task_row) - (x->task_row < y->task_row);
}

ptrdiff_t
tlq_op_kernels(const tl_rank *r, const tl_track *t, size_t idx, tlq_kernel **out)
{
	*out = NULL;
	if (idx >= t->n || t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN) ||
	    t->v[idx].arg == UINT32_MAX)
		return 0;
	tl_profdb pdb;
	if (src_open(r, t, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, "TASK") || !profdb_has(&pdb, "PYTORCH_API") ||
	    !profdb_has(&pdb, "CONNECTION_IDS")) {
		profdb_close(&pdb);
		return 0;
	}
	sqlite3_stmt *st;
	if (profdb_prepare(
	        &pdb,
	        "SELECT t.rowid, t.startNs, t.endNs FROM PYTORCH_API p JOIN CONNECTION_IDS c ON "
	        "c.id = p.connectionId JOIN TASK t ON t.connectionId = c.connectionId WHERE "
	        "p.rowid = ?",
	        &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	sqlite3_bind_int64(st, 1, t->v[idx].arg);
	tlq_kernel *v = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		tlq_kernel k = {(uint32_t)sqlite3_column_int64(st, 0), 0, 0};
		if (col_ns(st, 1, &k.start) != 0 || col_ns(st, 2, &k.end) != 0)
			continue;
		VEC_PUSH(v, n, cap, k);
	}
	sqlite3_finalize(st);
	profdb_close(&pdb);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_kernel);
	*out = v;
	return (ptrdiff_t)n;
}

ptrdiff_t
tlq_op_stack(const tl_rank *r, const tl_track *t, size_t idx, char ***out)
{
	*out = NULL;
	if (idx >= t->n || t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN) ||
	    t->v[idx].arg == UINT32_MAX)
		return 0;
	tl_profdb pdb;
	if (src_open(r, t, &pdb) != 0)
		return -1;
	if (!profdb_has(&pdb, "PYTORCH_API") || !profdb_has(&pdb, "PYTORCH_CALLCHAINS") ||
	    !profdb_has(&pdb, "STRING_IDS")) {
		profdb_close(&pdb);
		return 0;
	}
	sqlite3_stmt *st;
	/* stackDepth 0 is the innermost frame */
	if (profdb_prepare(&pdb,
	                   "SELECT (SELECT value FROM STRING_IDS WHERE id = c.stack) FROM "
	                   "PYTORCH_API p JOIN PYTORCH_CALLCHAINS c ON c.id = p.callchainId WHERE "
	                   "p.rowid = ? ORDER BY c.stackDepth",
	                   &st) != SQLITE_OK) {
		profdb_close(&pdb);
		return -1;
	}
	sqlite3_bind_int64(st, 1, t->v[idx].arg);
	char **v = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);
		char *x = xstrdup(f ? f : "?");
		VEC_PUSH(v, n, cap, x);
	}
	sqlite3_finalize(st);
	profdb_close(&pdb);
	*out = v;
	return (ptrdiff_t)n;
}

int
tlq_slice_links(const tl_rank *r, const tl_track *t, size_t idx,
                void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	char buf[400], d[32];
	int n = 0;
	tlq_launcher l;
	if (tlq_task_launcher(r, t, idx, &l) == 1) {
		if (l.have_op)
			snprintf(buf, sizeof buf, "%s (PyTorch), %s (CANN)", l.op_name,
			         l.cann_name);
		else
			snprintf(buf, sizeof buf, "%s (CANN)", l.cann_name);
		fn(ctx, "launched by", buf);
		fn(ctx, "launch delay", timefmt_dur(l.delay, d, sizeof d));
		n += 2;
	}
	tlq_kernel *k;
	ptrdiff_t nk = tlq_op_kernels(r, t, idx, &k);
	if (nk > 0) {
		snprintf(buf, sizeof buf, "%td, the first %s after the operator's start", nk,
		         timefmt_dur(k[0].start - t->v[idx].start, d, sizeof d));
		fn(ctx, "kernels", buf);
		n++;
	}
	free(k);
	char **fr;
	ptrdiff_t nf = tlq_op_stack(r, t, idx, &fr);
	for (ptrdiff_t i = 0; i < nf; i++) {
		fn(ctx, i == 0 ? "stack" : "", fr[i]);
		free(fr[i]);
		n++;
	}
	free(fr);
	return n;
}
