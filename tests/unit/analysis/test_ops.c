/* Operator statistics (compute_op_sum, hccl_sum) against plain SQL over the real samples and
 * the generator's own count of what it wrote. */
#include "config.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/opstats.h"
#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

/* The queries take a session: these tests open one per call over the trace they loaded. */
static void
ops_of(tl_trace *tr, tl_ops_result *o)
{
	tl_query *q = tlq_open(tr, NULL);
	tlq_ops(q, o);
	tlq_close(q);
}

static size_t
comm_ops_of(tl_trace *tr, tl_comm_op_row **out)
{
	tl_query *q = tlq_open(tr, NULL);
	size_t n = tlq_comm_ops(q, out);
	tlq_close(q);
	return n;
}

static void
test_describe(void)
{
	int64_t v[] = {4, 1, 3, 2};
	tl_opstat s;
	opstats_describe(v, 4, &s);
	CHECK(s.count == 4 && s.total == 10 && s.min == 1 && s.max == 4 && s.mean == 2.5,
	      "describe: count, sum, min, max, mean");
	CHECK(s.q1 == 1.75 && s.median == 2.5 && s.q3 == 3.25,
	      "describe: quartiles interpolate linearly (pandas): 1.75, 2.5, 3.25");
	int64_t one[] = {7};
	opstats_describe(one, 1, &s);
	CHECK(s.q1 == 7 && s.median == 7 && s.q3 == 7, "describe: one value is every quartile");
	int64_t five[] = {10, 20, 30, 40, 50};
	opstats_describe(five, 5, &s);
	CHECK(s.q1 == 20 && s.median == 30 && s.q3 == 40,
	      "describe: odd count hits order statistics");
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

static void
test_generated(void)
{
	char *dir = test_tmpdir("ops");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 3;
	o.nsteps = 2;
	o.tasks_per_rank = 8000;
	o.seed = 3;
	o.slow_rank = 1;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate 3 ranks");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(out, &lo, &tr) == 0, "load it");
	tl_ops_result r;
	ops_of(&tr, &r);
	size_t ok = 0;
	for (size_t i = 0; i < truth.nops; i++) {
		const gen_op_truth *t = &truth.ops[i];
		const tl_op_type_row *x = find_type(&r, t->rank, t->op_type, t->task_type);
		int good = x && x->st.count == t->count && x->st.total == t->total_ns;
		if (!good)
			printf("# rank %d %s/%s: %llu %lld, want %llu %lld\n", t->rank, t->op_type,
			       t->task_type, x ? (unsigned long long)x->st.count : 0ULL,
			       x ? (long long)x->st.total : 0LL, (unsigned long long)t->count,
			       (long long)t->total_ns);
		ok += good;
	}
	CHECK(truth.nops > 3 && ok == truth.nops && r.ntypes == truth.nops,
	      "generated: count and total per rank, op type and task type equal what was written "
	      "(%zu of %zu, %zu rows)",
	      ok, truth.nops, r.ntypes);
	int sums_ok = 1;
	for (size_t i = 0; i < r.ntypes; i++) {
		uint64_t c = 0;
		int64_t s = 0;
		for (size_t k = 0; k < r.types[i].nby; k++) {
			c += r.names[r.types[i].by0 + k].st.count;
			s += r.names[r.types[i].by0 + k].st.total;
		}
		sums_ok &= c == r.types[i].st.count && s == r.types[i].st.total;
	}
	CHECK(sums_ok, "generated: the rows by name add up to their type");
	tlq_ops_free(&r);
	trace_free(&tr);
	/* tl diff's counts and totals (tlq_op_totals), from the table read on demand, from the
	 * one gathered while loading, and from one gathered with counts and totals only (tl
	 * summary's text, tl diff: TL_TABLE_OP_TOTALS; tlq_ops then reads the durations on
	 * demand): the truth's numbers, and tlq_ops' rows in tlq_ops' order */
	static const char *const how[] = {"on demand", "gathered", "gathered as totals"};
	static const unsigned tables[] = {0, TL_TABLE_OPS, TL_TABLE_OPS | TL_TABLE_OP_TOTALS};
	for (int gathered = 0; gathered < 3; gathered++) {
		tl_load_opts lg = {.quiet_progress = 1, .tables = tables[gathered]};
		CHECK(load_trace(out, &lg, &tr) == 0, "load it (operators %s)", how[gathered]);
		if (gathered == 2) {
			const tl_op_data *d = tr.nranks > 0 ? tr.ranks[0]->ops : NULL;
			CHECK(d != NULL && d->totals && d->n > 0 && d->g[0].dur == NULL &&
			          d->g[0].n > 0 && d->g[0].total > 0,
			      "operators gathered as totals: counts and totals, no durations kept");
		}
		tl_query *q = tlq_open(&tr, NULL);
		tl_ops_result tt;
		tlq_op_totals(q, &tt);
		tlq_ops(q, &r);
		tlq_close(q);
		ok = 0;
		for (size_t i = 0; i < truth.nops; i++) {
			const gen_op_truth *t = &truth.ops[i];
			const tl_op_type_row *x = find_type(&tt, t->rank, t->op_type, t->task_type);
			ok += x && x->st.count == t->count && x->st.total == t->total_ns &&
			      x->st.max == 0;
		}
		int same = tt.ntypes == r.ntypes && tt.nnames == r.nnames;
		for (size_t i = 0; same && i < tt.ntypes; i++) {
			const tl_op_type_row *a = &tt.types[i], *b = &r.types[i];
			same = a->rank == b->rank && strcmp(a->op_type, b->op_type) == 0 &&
			       strcmp(a->task_type, b->task_type) == 0 && a->by0 == b->by0 &&
			       a->nby == b->nby && a->st.count == b->st.count &&
			       a->st.total == b->st.total;
		}
		for (size_t i = 0; same && i < tt.nnames; i++)
			same = strcmp(tt.names[i].op_name, r.names[i].op_name) == 0 &&
			       strcmp(tt.names[i].input_shapes, r.names[i].input_shapes) == 0 &&
			       tt.names[i].st.count == r.names[i].st.count &&
			       tt.names[i].st.total == r.names[i].st.total;
		CHECK(ok == truth.nops && same,
		      "generated, operators %s: tlq_op_totals has the truth's count and total per "
		      "type (%zu of %zu) and tlq_ops' rows in its order",
		      how[gathered], ok, truth.nops);
		tlq_ops_free(&tt);
		tlq_ops_free(&r);
		trace_free(&tr);
	}
	gen_truth_free(&truth);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup %s", dir);
	free(cmd);
	free(out);
	test_rmtree(dir);
}

static void
check_rank_sql(const tl_ops_result *r, const tl_comm_op_row *c, size_t nc, const char *samples,
               const char *level, int rank)
{
	char p[4300];
	snprintf(p, sizeof p,
	         "%s/ascend-db/%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	         "ascend_pytorch_profiler_%d.db",
	         samples, level, rank, rank);
	sqlite3 *db = test_sql_open(p);
	if (db == NULL) {
		CHECK(0, "open %s", p);
		return;
	}
	/* compute_op_sum's own query, grouped in SQL */
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "SELECT coalesce(o.value, ''), coalesce(k.value, ''), count(*), sum(t.endNs - "
	    "t.startNs), min(t.endNs - t.startNs), max(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO "
	    "c JOIN TASK t ON t.globalTaskId = c.globalTaskId LEFT JOIN STRING_IDS o ON o.id = "
	    "c.opType LEFT JOIN STRING_IDS k ON k.id = c.taskType GROUP BY 1, 2",
	    -1, &st, NULL);
	size_t rows = 0, ok = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		const tl_op_type_row *x =
		    find_type(r, rank, (const char *)sqlite3_column_text(st, 0),
		              (const char *)sqlite3_column_text(st, 1));
		ok += x && x->st.count == (uint64_t)sqlite3_column_int64(st, 2) &&
		      x->st.total == sqlite3_column_int64(st, 3) &&
		      x->st.min == sqlite3_column_int64(st, 4) &&
		      x->st.max == sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	size_t mine = 0;
	for (size_t i = 0; i < r->ntypes; i++)
		mine += r->types[i].rank == rank;
	CHECK(rows > 0 && ok == rows && mine == rows,
	      "%s rank %d: count, total, min, max per op type and task type equal SQL (%zu of %zu)",
	      level, rank, ok, rows);

	/* by name and input shapes: the number of groups and their counts */
	sqlite3_prepare_v2(
	    db,
	    "SELECT count(*), sum(n) FROM (SELECT count(*) AS n FROM COMPUTE_TASK_INFO c JOIN TASK "
	    "t ON t.globalTaskId = c.globalTaskId GROUP BY c.name, c.opType, c.taskType, "
	    "c.inputShapes)",
	    -1, &st, NULL);
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t groups = 0;
		uint64_t tasks = 0;
		for (size_t i = 0; i < r->ntypes; i++)
			if (r->types[i].rank == rank) {
				groups += r->types[i].nby;
				for (size_t k = 0; k < r->types[i].nby; k++)
					tasks += r->names[r->types[i].by0 + k].st.count;
			}
		CHECK(groups == (size_t)sqlite3_column_int64(st, 0) &&
		          tasks == (uint64_t)sqlite3_column_int64(st, 1),
		      "%s rank %d: %zu rows by name and input shapes, as SQL groups them", level,
		      rank, groups);
	}
	sqlite3_finalize(st);

	/* hccl_sum: COMMUNICATION_OP by op type */
	sqlite3_prepare_v2(
	    db,
	    "SELECT count(*), sum(endNs - startNs), min(endNs - startNs), max(endNs - startNs) "
	    "FROM COMMUNICATION_OP",
	    -1, &st, NULL);
	if (sqlite3_step(st) == SQLITE_ROW) {
		uint64_t n = 0;
		int64_t s = 0, mn = INT64_MAX, mx = INT64_MIN;
		for (size_t i = 0; i < nc; i++)
			if (c[i].rank == rank) {
				n += c[i].st.count;
				s += c[i].st.total;
				mn = c[i].st.min < mn ? c[i].st.min : mn;
				mx = c[i].st.max > mx ? c[i].st.max : mx;
			}
		CHECK(n == (uint64_t)sqlite3_column_int64(st, 0) &&
		          s == sqlite3_column_int64(st, 1) && mn == sqlite3_column_int64(st, 2) &&
		          mx == sqlite3_column_int64(st, 3),
		      "%s rank %d: communication ops count, total, min, max equal SQL", level,
		      rank);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static void
test_samples(void)
{
	const char *samples = test_samples_dir();
	char p[4200];
	static const char *const levels[] = {"level0", "level2"};
	for (int l = 0; l < 2; l++) {
		snprintf(p, sizeof p, "%s/ascend-db/%s", samples, levels[l]);
		struct stat sb;
		if (stat(p, &sb) != 0) {
			SKIP("samples absent: %s (operator statistics against SQL not checked)", p);
			continue;
		}
		tl_trace tr;
		tl_load_opts lo = {.quiet_progress = 1};
		CHECK(load_trace(p, &lo, &tr) == 0, "load %s", levels[l]);
		tl_ops_result r;
		ops_of(&tr, &r);
		tl_comm_op_row *c;
		size_t nc = comm_ops_of(&tr, &c);
		/* COMMUNICATION_OP.opType is hcom_allReduce_: the normalised allreduce */
		CHECK(nc == 2 && strcmp(c[0].op_type, "allreduce") == 0,
		      "%s: one communication op type per rank, allreduce (hcom_allReduce_)",
		      levels[l]);
		for (int rank = 0; rank < 2; rank++)
			check_rank_sql(&r, c, nc, samples, levels[l], rank);
		free(c);
		tlq_ops_free(&r);
		trace_free(&tr);
	}
}

int
main(void)
{
	msg_set_quiet(1);
	test_describe();
	test_generated();
	test_samples();
	return test_done();
}
