#include "config.h"
#include "query/session.h"
#include "query/memory.h"
#include "load/load.h"
#include "load/profdb.h"
#include "query/host.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
counters_one(const tl_rank *r, size_t i, void *ctx)
{
	(void)i;
	(void)ctx;
	load_counters((tl_rank *)r); /* fills a cache of the rank: its counters and their names */
}

void
tlq_counters(const tl_query *cq)
{
	tl_query *q = tlq_mut(cq);
	pthread_mutex_lock(&q->lock);
	if (!q->have_counters) {
		tlq_for_ranks(q->tr, 0, counters_one, NULL);
		q->have_counters = 1;
	}
	pthread_mutex_unlock(&q->lock);
}

const char *
tlq_stage_at(const tl_query *rl, size_t ri, int64_t t)
{
	const tl_stage_row *rows;
	size_t n = tlq_stages(rl, &rows);
	const tl_stage_row *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const tl_stage_row *s = &rows[i];
		if (s->rank != ri || t < s->host_start || t > s->host_end)
			continue;
		if (best == NULL || s->level > best->level)
			best = s;
	}
	return best ? tlq_stage_name(rl, best->stage) : NULL;
}

static int
cmp_alloc(const void *a, const void *b)
{
	const tlq_alloc *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->alloc_ns > y->alloc_ns) - (x->alloc_ns < y->alloc_ns);
}

ptrdiff_t
tlq_live_allocations(const tl_rank *r, int64_t t, size_t max, tlq_alloc **out)
{
	tlq_alloc *v = NULL;
	size_t n = 0, cap = 0;
	int failed = 0;
	*out = NULL;
	for (size_t s = 0; s < r->nsources && max > 0; s++) {
		tl_profdb pdb;
		if (tlq_source_open(r, s, &pdb) != 0) {
			failed = 1;
			continue;
		}
		if (!profdb_has(&pdb, "OP_MEMORY")) {
			profdb_close(&pdb);
			continue;
		}
		char sql[400];
		snprintf(
		    sql, sizeof sql,
		    "SELECT %s, size, allocationTime, releaseTime FROM OP_MEMORY WHERE "
		    "allocationTime <= ?1 AND (releaseTime IS NULL OR releaseTime > ?1) AND size "
		    "IS NOT NULL ORDER BY size DESC LIMIT ?2",
		    profdb_has(&pdb, "STRING_IDS")
		        ? "(SELECT value FROM STRING_IDS WHERE id = OP_MEMORY.name)"
		        : "NULL");
		sqlite3_stmt *st;
		if (profdb_prepare(&pdb, sql, &st) != SQLITE_OK) {
			profdb_close(&pdb);
			failed = 1;
			continue;
		}
		sqlite3_bind_int64(st, 1, t);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
		while (sqlite3_step(st) == SQLITE_ROW) {
			tlq_alloc a;
			const char *op = (const char *)sqlite3_column_text(st, 0);
			snprintf(a.op, sizeof a.op, "%s", op ? op : "");
			a.size = sqlite3_column_int64(st, 1);
			a.alloc_ns = sqlite3_column_int64(st, 2);
			a.release_ns = sqlite3_column_type(st, 3) == SQLITE_NULL
			                   ? INT64_MAX
			                   : sqlite3_column_int64(st, 3);
			VEC_PUSH(v, n, cap, a);
		}
		sqlite3_finalize(st);
		profdb_close(&pdb);
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_alloc);
	if (n > max)
		n = max;
	*out = v;
	return failed && n == 0 ? -1 : (ptrdiff_t)n;
}
