/* Operator statistics of a window (the marked range, one stage instance per rank): each task
 * counts when its TASK startNs lies in the rank's window. Checked against plain SQL over TASK
 * and COMPUTE_TASK_INFO with that WHERE, on the real samples (Level0, Level2) and a generated
 * profile, each loaded three ways -- the tables read on demand, gathered while loading, and
 * from a warm model cache -- which must give the same rows to the last quartile. */
#include "config.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

enum { WAY_DEMAND, WAY_GATHER, WAY_CACHE, NWAYS };
static const char *const way_name[NWAYS] = {"on demand", "gathered", "warm cache"};

/* Loads path one way; cachedir is used by WAY_CACHE (its files written by a first load). */
static int
load_way(const char *path, int way, const char *cachedir, tl_trace *tr)
{
	tl_load_opts lo = {.quiet_progress = 1};
	tl_cache c;
	if (way == WAY_GATHER)
		lo.tables = TL_TABLE_ALL;
	if (way == WAY_CACHE) {
		cache_open(&c, cachedir);
		lo.cache = &c;
		lo.tables = TL_TABLE_ALL;
		tl_trace first;
		if (load_trace(path, &lo, &first) != 0) { /* writes the files */
			cache_close(&c);
			return -1;
		}
		trace_free(&first);
		cache_close(&c);
		cache_open(&c, cachedir);
	}
	int rc = load_trace(path, &lo, tr);
	if (way == WAY_CACHE) {
		size_t hits = 0;
		for (size_t i = 0; i < c.nrecs; i++)
			hits += c.recs[i].status == TL_CACHE_HIT;
		CHECK(rc == 0 && hits == tr->nranks && hits > 0,
		      "the second load reads every rank from the cache (%zu of %zu)", hits,
		      tr->nranks);
		cache_close(&c);
	}
	return rc;
}

static const tl_op_type_row *
find_type(const tl_ops_result *o, int rank, const char *ot, const char *tt)
{
	for (size_t i = 0; i < o->ntypes; i++)
		if (o->types[i].rank == rank && strcmp(o->types[i].op_type, ot) == 0 &&
		    strcmp(o->types[i].task_type, tt) == 0)
			return &o->types[i];
	return NULL;
}

static int
same_stat(const tl_opstat *a, const tl_opstat *b)
{
	return a->count == b->count && a->total == b->total && a->min == b->min &&
	       a->max == b->max && a->mean == b->mean && a->q1 == b->q1 && a->median == b->median &&
	       a->q3 == b->q3;
}

/* The same rows in the same order, every statistic equal. */
static int
same_result(const tl_ops_result *a, const tl_ops_result *b)
{
	if (a->ntypes != b->ntypes || a->nnames != b->nnames)
		return 0;
	for (size_t i = 0; i < a->ntypes; i++) {
		const tl_op_type_row *x = &a->types[i], *y = &b->types[i];
		if (x->rank != y->rank || strcmp(x->op_type, y->op_type) != 0 ||
		    strcmp(x->task_type, y->task_type) != 0 || !same_stat(&x->st, &y->st) ||
		    x->nby != y->nby)
			return 0;
		for (size_t k = 0; k < x->nby; k++) {
			const tl_op_name_row *m = &a->names[x->by0 + k], *n = &b->names[y->by0 + k];
			if (strcmp(m->op_name, n->op_name) != 0 ||
			    strcmp(m->input_shapes, n->input_shapes) != 0 ||
			    !same_stat(&m->st, &n->st))
				return 0;
		}
	}
	return 1;
}

/* Rank ri's rows in o against SQL over its DB for tasks starting in [t0, t1): count, total,
 * min and max per op type and task type, and the number of (name, type, shapes) groups.
 * Returns the number of SQL rows (0 when the window holds no task). */
static size_t
check_sql(const tl_trace *tr, size_t ri, const tl_ops_result *o, int64_t t0, int64_t t1,
          const char *what)
{
	const tl_rank *r = tr->ranks[ri];
	sqlite3 *db = test_sql_open(r->sources[0]->path);
	if (db == NULL) {
		CHECK(0, "%s: open %s", what, r->sources[0]->path);
		return 0;
	}
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "SELECT coalesce(o.value, ''), coalesce(k.value, ''), count(*), sum(t.endNs - "
	    "t.startNs), min(t.endNs - t.startNs), max(t.endNs - t.startNs), count(DISTINCT "
	    "coalesce(c.name, -1) || ',' || coalesce(c.inputShapes, -1)) FROM COMPUTE_TASK_INFO c "
	    "JOIN TASK t ON t.globalTaskId = c.globalTaskId LEFT JOIN STRING_IDS o ON o.id = "
	    "c.opType LEFT JOIN STRING_IDS k ON k.id = c.taskType WHERE t.startNs >= ?1 AND "
	    "t.startNs < ?2 GROUP BY 1, 2",
	    -1, &st, NULL);
	sqlite3_bind_int64(st, 1, t0);
	sqlite3_bind_int64(st, 2, t1);
	size_t rows = 0, ok = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		const tl_op_type_row *x =
		    find_type(o, r->rank, (const char *)sqlite3_column_text(st, 0),
		              (const char *)sqlite3_column_text(st, 1));
		int good = x && x->st.count == (uint64_t)sqlite3_column_int64(st, 2) &&
		           x->st.total == sqlite3_column_int64(st, 3) &&
		           x->st.min == sqlite3_column_int64(st, 4) &&
		           x->st.max == sqlite3_column_int64(st, 5) &&
		           x->nby == (size_t)sqlite3_column_int64(st, 6);
		if (!good)
			printf("# %s rank %d %s/%s: tl %llu %lld, SQL %lld %lld\n", what, r->rank,
			       sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
			       x ? (unsigned long long)x->st.count : 0ULL,
			       x ? (long long)x->st.total : 0LL, sqlite3_column_int64(st, 2),
			       sqlite3_column_int64(st, 3));
		ok += good;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	size_t mine = 0;
	for (size_t i = 0; i < o->ntypes; i++)
		mine += o->types[i].rank == r->rank;
	CHECK(ok == rows && mine == rows,
	      "%s rank %d: count, total, min, max and name groups per op type equal SQL for the "
	      "window (%zu of %zu rows)",
	      what, r->rank, ok, rows);
	return rows;
}

/* The windows of each rank: [a, b) of the first and last compute task's start (SQL), cut to
 * its middle part (a marked range: the same on every rank), each rank's first step (a stage
 * instance: one window per rank), and an empty one. */
static void
windows_of(const tl_trace *tr, int kind, int64_t *t0, int64_t *t1)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		sqlite3 *db = test_sql_open(tr->ranks[ri]->sources[0]->path);
		sqlite3_stmt *st;
		if (db != NULL &&
		    sqlite3_prepare_v2(db,
		                       "SELECT min(t.startNs), max(t.startNs) FROM TASK t JOIN "
		                       "COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId",
		                       -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW) {
				int64_t a = sqlite3_column_int64(st, 0),
				        b = sqlite3_column_int64(st, 1);
				lo = a < lo ? a : lo;
				hi = b > hi ? b : hi;
			}
			sqlite3_finalize(st);
		}
		sqlite3_close(db);
	}
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		if (kind == 0) { /* the middle of the profile, as `m` `m` marks it */
			t0[ri] = lo + (hi - lo) / 4;
			t1[ri] = lo + (hi - lo) / 4 * 3;
		} else if (kind == 1 && r->nsteps > 0) { /* the rank's first step */
			t0[ri] = r->steps[0].start;
			t1[ri] = r->steps[0].end;
		} else if (kind == 1) { /* no steps: the first half */
			t0[ri] = lo;
			t1[ri] = lo + (hi - lo) / 2;
		} else { /* before the first task: nothing */
			t0[ri] = lo - 1000;
			t1[ri] = lo;
		}
	}
}

static void
check_profile(const char *what, const char *path)
{
	char *cachedir = test_tmpdir("opscache");
	if (cachedir == NULL)
		return;
	tl_trace tr[NWAYS];
	int loaded = 1;
	for (int w = 0; w < NWAYS; w++)
		if (load_way(path, w, cachedir, &tr[w]) != 0) {
			CHECK(0, "%s: load %s", what, way_name[w]);
			loaded = 0;
		}
	if (!loaded) {
		test_rmtree(cachedir);
		return;
	}
	CHECK(tr[WAY_DEMAND].ranks[0]->ops == NULL && tr[WAY_GATHER].ranks[0]->ops != NULL &&
	          tr[WAY_CACHE].ranks[0]->ops != NULL,
	      "%s: the operators read on demand, gathered, and from the cache", what);
	size_t nr = tr[0].nranks;
	int64_t *t0 = xcalloc(nr, sizeof *t0), *t1 = xcalloc(nr, sizeof *t1);
	static const char *const kinds[] = {"the middle", "the first step", "an empty window"};
	for (int kind = 0; kind < 3; kind++) {
		windows_of(&tr[0], kind, t0, t1);
		tl_ops_result o[NWAYS];
		for (int w = 0; w < NWAYS; w++) {
			tl_query *q = tlq_open(&tr[w], NULL);
			tlq_ops_scoped(q, t0, t1, &o[w]);
			tlq_close(q);
		}
		char label[200];
		snprintf(label, sizeof label, "%s, %s", what, kinds[kind]);
		size_t rows = 0;
		for (size_t ri = 0; ri < nr; ri++)
			rows += check_sql(&tr[0], ri, &o[WAY_DEMAND], t0[ri], t1[ri], label);
		CHECK(kind == 2 ? rows == 0 && o[0].ntypes == 0 : rows > 0,
		      "%s: %zu op types in the window", label, rows);
		CHECK(same_result(&o[WAY_DEMAND], &o[WAY_GATHER]) &&
		          same_result(&o[WAY_DEMAND], &o[WAY_CACHE]),
		      "%s: on demand, gathered and from the warm cache give the same rows", label);
		for (int w = 0; w < NWAYS; w++)
			tlq_ops_free(&o[w]);
	}
	/* a window holding every task is the whole profile's statistics */
	for (size_t ri = 0; ri < nr; ri++) {
		t0[ri] = TL_TIME_MIN;
		t1[ri] = TL_TIME_MAX;
	}
	tl_ops_result all, whole;
	tl_query *q = tlq_open(&tr[WAY_CACHE], NULL);
	tlq_ops_scoped(q, t0, t1, &all);
	tlq_ops(q, &whole);
	tlq_close(q);
	CHECK(all.ntypes > 0 && same_result(&all, &whole),
	      "%s: a window over everything is tlq_ops' whole profile", what);
	tlq_ops_free(&all);
	tlq_ops_free(&whole);
	free(t0);
	free(t1);
	for (int w = 0; w < NWAYS; w++)
		trace_free(&tr[w]);
	test_rmtree(cachedir);
}

static void
test_generated(void)
{
	char *dir = test_tmpdir("opsscope");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 3;
	o.tasks_per_rank = 6000;
	o.seed = 12;
	o.slow_rank = 1;
	CHECK(gen_profile(&o, out, NULL) == 0, "generate 2 ranks, 3 steps");
	check_profile("generated", out);
	free(out);
	test_rmtree(dir);
}

static void
test_samples(void)
{
	static const char *const levels[] = {"level0", "level2"};
	for (int l = 0; l < 2; l++) {
		char p[4200];
		snprintf(p, sizeof p, "%s/ascend-db/%s", test_samples_dir(), levels[l]);
		struct stat sb;
		if (stat(p, &sb) != 0) {
			SKIP("samples absent: %s (scoped operator statistics not checked)", p);
			continue;
		}
		check_profile(levels[l], p);
	}
}

int
main(void)
{
	msg_set_quiet(1);
	test_generated();
	test_samples();
	return test_done();
}
