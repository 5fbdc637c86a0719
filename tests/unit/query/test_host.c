/* Host API lanes and launch delays of DB profiles, against answers tl did not compute: plain
 * SQL over the real samples' own tables (PYTORCH_API, CANN_API, TASK, COMPUTE_TASK_INFO,
 * COMMUNICATION_TASK_INFO) and the generator's truth (each launch's delay, known by
 * construction). */
#include "config.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/launch.h"
#include "gen/gen.h"
#include "load/load.h"
#include "loading/loading.h"
#include "query/host.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"
#include "../../fuzz/host_bad.h"

/* One launch per connectionId: its CANN call's start and its first compute or communication
 * task's start, written out in SQL the way the definition reads. */
#define SQL_DELAYS                                                                                 \
	"WITH d AS (SELECT min(t.startNs) - a.startNs AS x FROM TASK t JOIN CANN_API a ON "        \
	"a.connectionId = t.connectionId WHERE t.globalTaskId IN (SELECT globalTaskId FROM "       \
	"COMPUTE_TASK_INFO UNION SELECT globalTaskId FROM COMMUNICATION_TASK_INFO) GROUP BY "      \
	"t.connectionId) "

/* The gaps between blocks of merged compute and communication work (gs, ge) and the host start
 * l of the launch of the first compute or communication task at or after each gap's end. */
#define SQL_GAPS                                                                                   \
	"WITH busy(s, e) AS (SELECT t.startNs, t.endNs FROM TASK t JOIN COMPUTE_TASK_INFO c ON "   \
	"c.globalTaskId = t.globalTaskId UNION ALL SELECT startNs, endNs FROM COMMUNICATION_OP), " \
	"o AS (SELECT s, e, max(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 "    \
	"PRECEDING) AS pe FROM busy), g AS (SELECT s, e, sum(CASE WHEN pe IS NULL OR s > pe "      \
	"THEN 1 ELSE 0 END) OVER (ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS g FROM o), "          \
	"blk AS (SELECT g, min(s) AS s, max(e) AS e FROM g GROUP BY g), gap AS (SELECT b1.e AS "   \
	"gs, b2.s AS ge FROM blk b1 JOIN blk b2 ON b2.g = b1.g + 1), lau AS (SELECT a.startNs AS " \
	"h, min(t.startNs) AS d FROM CANN_API a JOIN TASK t ON t.connectionId = a.connectionId "   \
	"WHERE t.globalTaskId IN (SELECT globalTaskId FROM COMPUTE_TASK_INFO UNION SELECT "        \
	"globalTaskId FROM COMMUNICATION_TASK_INFO) GROUP BY a.connectionId), gl AS (SELECT gs, "  \
	"ge, (SELECT h FROM lau WHERE d >= ge ORDER BY d, h LIMIT 1) AS l FROM gap) "

/* The critical path's read of a rank's launches in 12 bytes each (load_launch_recs): SQL's
 * launches, count and delays, and load_launches' own, one by one in the same order. */
static void
check_sample_recs(const tl_rank *r, sqlite3 *db, const char *name)
{
	tl_launch_rec *rec = NULL;
	tl_launch *wide = NULL;
	size_t n = 0;
	int got = load_launch_recs(r, &rec, &n, &wide);
	CHECK(got == 0, "%s: the launches read in 12 bytes each", name);
	if (got != 0) {
		free(wide);
		return;
	}
	int64_t sum = 0, max = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		sum += rec[i].delay;
		max = rec[i].delay > max ? rec[i].delay : max;
	}
	CHECK_EQ_I64(n, test_sql_i64(db, SQL_DELAYS "SELECT count(*) FROM d"),
	             "the 12-byte launches: SQL's count");
	CHECK_EQ_I64(sum, test_sql_i64(db, SQL_DELAYS "SELECT sum(x) FROM d"),
	             "the 12-byte launches: SQL's sum of delays");
	CHECK_EQ_I64(max, test_sql_i64(db, SQL_DELAYS "SELECT max(x) FROM d"),
	             "the 12-byte launches: SQL's max delay");
	tl_launch *v;
	size_t nv = load_launches(r, &v), same = 0;
	for (size_t i = 0; i < n && nv == n; i++)
		same += v[i].host_start == launch_rec_host(&rec[i]) &&
		        v[i].dev_start == launch_rec_host(&rec[i]) + rec[i].delay;
	CHECK(nv == n && same == n, "%s: %zu of %zu launches as load_launches' (%zu)", name, same,
	      n, nv);
	free(v);
	free(rec);
}

static void
check_sample_launches(const tl_rank *r, sqlite3 *db, const char *name)
{
	check_sample_recs(r, db, name);
	tl_launch_step *v;
	size_t n = tlq_launch_steps(r, &v);
	char m[200];
	/* the samples hold one step (ProfilerStep#50): every launch of the capture is in it */
	snprintf(m, sizeof m, "%s: one row of launch delays", name);
	CHECK_EQ_I64(n, 1, m);
	if (n == 1) {
		int64_t step = test_sql_i64(db, "SELECT id FROM STEP_TIME");
		snprintf(m, sizeof m, "%s: the row is STEP_TIME's step", name);
		CHECK_EQ_I64(v[0].step_id, step, m);
		snprintf(m, sizeof m, "%s: launches equal the SQL count", name);
		CHECK_EQ_I64(v[0].launches, test_sql_i64(db, SQL_DELAYS "SELECT count(*) FROM d"),
		             m);
		snprintf(m, sizeof m, "%s: max launch delay equals SQL", name);
		CHECK_EQ_I64(v[0].max, test_sql_i64(db, SQL_DELAYS "SELECT max(x) FROM d"), m);
		snprintf(m, sizeof m, "%s: p50 equals SQL's nearest rank", name);
		CHECK_EQ_I64(v[0].p50,
		             test_sql_i64(db, SQL_DELAYS
		                          "SELECT x FROM d ORDER BY x LIMIT 1 OFFSET (SELECT "
		                          "(count(*) * 50 + 99) / 100 - 1 FROM d)"),
		             m);
		snprintf(m, sizeof m, "%s: p90 equals SQL's nearest rank", name);
		CHECK_EQ_I64(v[0].p90,
		             test_sql_i64(db, SQL_DELAYS
		                          "SELECT x FROM d ORDER BY x LIMIT 1 OFFSET (SELECT "
		                          "(count(*) * 90 + 99) / 100 - 1 FROM d)"),
		             m);
		/* host bound: the device's idle gaps (between merged compute and communication
		 * blocks, window functions as free_analysis merges them), each up to the host
		 * start of the launch whose first task is the first to start at or after the
		 * gap's end */
		snprintf(m, sizeof m, "%s: device idle time equals SQL's gaps", name);
		CHECK_EQ_I64(v[0].idle, test_sql_i64(db, SQL_GAPS "SELECT sum(ge - gs) FROM gl"),
		             m);
		snprintf(m, sizeof m, "%s: idle time the host was still launching equals SQL's",
		         name);
		CHECK_EQ_I64(v[0].idle_host,
		             test_sql_i64(db, SQL_GAPS
		                          "SELECT sum(CASE WHEN l > gs THEN min(l, ge) - gs "
		                          "ELSE 0 END) FROM gl"),
		             m);
		tl_step_overlap *so;
		size_t nso = tlq_step_overlaps(r, &so);
		snprintf(m, sizeof m, "%s: idle time is the step's free time", name);
		CHECK(nso == 1 && v[0].have_idle && v[0].idle == so[0].o.free, "%s", m);
		free(so);
		CHECK(v[0].idle_host > 0 && v[0].idle_host < v[0].idle,
		      "%s: part of the idle time is host bound", name);
		CHECK(v[0].launches > 100 && v[0].p50 > 0 && v[0].p50 <= v[0].p90 &&
		          v[0].p90 <= v[0].max,
		      "%s: the sample has launches and ordered percentiles", name);
	}
	free(v);
}

/* Rows of table on thread gtid whose times load (PYTORCH_API stores them as TEXT). */
static int64_t
sql_host_rows(sqlite3 *db, const char *table, int64_t gtid)
{
	char sql[400];
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM %s WHERE globalTid = %" PRId64
	         " AND startNs IS NOT NULL AND endNs IS NOT NULL AND CAST(endNs AS INTEGER) >= "
	         "CAST(startNs AS INTEGER)",
	         table, gtid);
	return test_sql_i64(db, sql);
}

static void
check_sample_host(tl_rank *r, sqlite3 *db, const char *name)
{
	size_t before = r->ntracks;
	for (size_t i = 0; i < r->ntracks; i++)
		CHECK(r->tracks[i]->kind != TL_LANE_HOST,
		      "%s: no host lanes before they are asked for", name);
	load_host(r);
	CHECK(r->ntracks > before, "%s: host lanes added on demand", name);
	/* per lane (thread and table): slices over all depth levels equal the table's rows */
	int64_t total[2] = {0, 0};
	int sorted = 1;
	for (size_t i = 0; i < r->ntracks;) {
		const tl_track *t = r->tracks[i];
		size_t k = i;
		int64_t n = 0;
		for (;
		     k < r->ntracks && r->tracks[k]->kind == t->kind && r->tracks[k]->key == t->key;
		     k++) {
			const tl_track *u = r->tracks[k];
			n += (int64_t)u->n;
			for (size_t j = 1; j < u->n; j++)
				if (u->v[j].start < track_end(u, j - 1))
					sorted = 0;
		}
		if (t->kind == TL_LANE_HOST) {
			int cann = (t->key & TL_HOST_KEY_CANN) != 0;
			int64_t gtid = t->key & ((INT64_C(1) << 54) - 1);
			char m[200];
			snprintf(m, sizeof m, "%s: %s lane of thread %" PRId64 " holds every row",
			         name, cann ? "CANN_API" : "PYTORCH_API", gtid & 0xffffffff);
			CHECK_EQ_I64(n, sql_host_rows(db, cann ? "CANN_API" : "PYTORCH_API", gtid),
			             m);
			total[cann] += n;
		}
		i = k;
	}
	CHECK(sorted, "%s: every lane level is sorted and free of overlaps", name);
	char m[200];
	snprintf(m, sizeof m, "%s: PYTORCH_API rows all on host lanes", name);
	CHECK_EQ_I64(total[0], test_sql_i64(db, "SELECT count(*) FROM PYTORCH_API"), m);
	snprintf(m, sizeof m, "%s: CANN_API rows all on host lanes", name);
	CHECK_EQ_I64(total[1], test_sql_i64(db, "SELECT count(*) FROM CANN_API"), m);
	size_t n1 = r->ntracks;
	load_host(r);
	CHECK_EQ_I64(r->ntracks, n1, "reading host lanes twice adds nothing");
	/* the lanes keep no room to grow: 24 bytes a row (the nested operators' level 0 kept the
	 * room of every level, 4.6 times the rows on these samples) */
	size_t rows = 0, room = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_HOST) {
			rows += r->tracks[i]->n;
			room += r->tracks[i]->cap;
		}
	snprintf(m, sizeof m, "%s: the host lanes hold their %zu rows in as many slices", name,
	         rows);
	CHECK_EQ_I64(room, rows, m);
}

/* ---- links, against the CONNECTION_IDS join in SQL ---- */

typedef struct rowcount {
	int64_t row, n, extra;
} rowcount;

static int
cmp_rowcount(const void *a, const void *b)
{
	const rowcount *x = a, *y = b;
	return (x->row > y->row) - (x->row < y->row);
}

/* rows of `sql` (rowid, count, extra), sorted by rowid */
static rowcount *
sql_rowcounts(sqlite3 *db, const char *sql, size_t *n)
{
	sqlite3_stmt *st;
	rowcount *v = NULL;
	size_t cap = 0;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rowcount x = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		              sqlite3_column_int64(st, 2)};
		VEC_PUSH(v, *n, cap, x);
	}
	sqlite3_finalize(st);
	if (*n > 1)
		qsort(v, *n, sizeof *v, cmp_rowcount);
	return v;
}

static const rowcount *
find_row(const rowcount *v, size_t n, int64_t row)
{
	rowcount key = {row, 0, 0};
	return n ? bsearch(&key, v, n, sizeof *v, cmp_rowcount) : NULL;
}

static void
check_sample_links(const tl_rank *r, sqlite3 *db, const char *name)
{
	size_t nops, ntasks, nlaunch;
	rowcount *ops = sql_rowcounts(
	    db,
	    "SELECT p.rowid, count(*), 0 FROM PYTORCH_API p JOIN CONNECTION_IDS c ON c.id = "
	    "p.connectionId JOIN TASK t ON t.connectionId = c.connectionId GROUP BY p.rowid",
	    &nops);
	rowcount *tasks = sql_rowcounts(
	    db,
	    "SELECT t.rowid, count(*), 0 FROM TASK t JOIN CONNECTION_IDS c ON c.connectionId = "
	    "t.connectionId JOIN PYTORCH_API p ON p.connectionId = c.id GROUP BY t.rowid",
	    &ntasks);
	rowcount *launch =
	    sql_rowcounts(db,
	                  "SELECT t.rowid, 1, t.startNs - a.startNs FROM TASK t JOIN CANN_API a ON "
	                  "a.connectionId = t.connectionId",
	                  &nlaunch);
	size_t ncops, ncl;
	rowcount *cops = sql_rowcounts(
	    db,
	    "SELECT o.rowid, count(*), 0 FROM COMMUNICATION_OP o JOIN CONNECTION_IDS c ON "
	    "c.connectionId = o.connectionId JOIN PYTORCH_API p ON p.connectionId = c.id GROUP BY "
	    "o.rowid",
	    &ncops);
	rowcount *claunch = sql_rowcounts(
	    db,
	    "SELECT o.rowid, 1, o.startNs - a.startNs FROM COMMUNICATION_OP o JOIN CANN_API a ON "
	    "a.connectionId = o.connectionId",
	    &ncl);
	int64_t comm_checked = 0, comm_bad = 0;
	int64_t join_total = test_sql_i64(
	    db, "SELECT count(*) FROM PYTORCH_API p JOIN CONNECTION_IDS c ON c.id = p.connectionId "
	        "JOIN TASK t ON t.connectionId = c.connectionId");
	int64_t got_total = 0, op_bad = 0, op_checked = 0, task_bad = 0, task_checked = 0,
	        delay_bad = 0, sorted_bad = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		for (size_t k = 0; k < t->n; k++) {
			if (t->kind == TL_LANE_HOST && !(t->key & TL_HOST_KEY_CANN)) {
				/* every linked row, and every 8th of the others (a file open each)
				 */
				const rowcount *w = find_row(ops, nops, track_arg(t, k));
				if (w == NULL && k % 8 != 0)
					continue;
				tlq_kernel *kv;
				ptrdiff_t n = tlq_op_kernels(r, t, k, &kv);
				op_checked++;
				if (n != (w ? w->n : 0))
					op_bad++;
				for (ptrdiff_t j = 1; j < n; j++)
					if (kv[j].start < kv[j - 1].start)
						sorted_bad++;
				got_total += n > 0 ? n : 0;
				free(kv);
			} else if (t->kind == TL_LANE_COMM) {
				tlq_launcher l;
				int rc = tlq_task_launcher(r, t, k, &l);
				const rowcount *w = find_row(cops, ncops, track_arg(t, k));
				const rowcount *a = find_row(claunch, ncl, track_arg(t, k));
				comm_checked++;
				if ((rc == 1) != (a != NULL) ||
				    (rc == 1 &&
				     (l.nops != (size_t)(w ? w->n : 0) || l.delay != a->extra)))
					comm_bad++;
			} else if (t->kind == TL_LANE_COMPUTE || t->kind == TL_LANE_COMM_TASK ||
			           t->kind == TL_LANE_MEMCPY || t->kind == TL_LANE_OTHER) {
				tlq_launcher l;
				int rc = tlq_task_launcher(r, t, k, &l);
				const rowcount *w = find_row(tasks, ntasks, track_arg(t, k));
				const rowcount *a = find_row(launch, nlaunch, track_arg(t, k));
				task_checked++;
				if ((rc == 1) != (a != NULL) ||
				    (rc == 1 && l.nops != (size_t)(w ? w->n : 0)))
					task_bad++;
				if (rc == 1 &&
				    (l.delay != a->extra || l.task_start != t->v[k].start))
					delay_bad++;
			}
		}
	}
	char m[200];
	snprintf(m, sizeof m, "%s: kernels of %" PRId64 " PyTorch rows sum to the join", name,
	         op_checked);
	CHECK_EQ_I64(got_total, join_total, m);
	snprintf(m, sizeof m, "%s: every PyTorch row's kernel count equals SQL's", name);
	CHECK_EQ_I64(op_bad, 0, m);
	CHECK(join_total > 100, "%s: the sample links operators to kernels (%" PRId64 ")", name,
	      join_total);
	CHECK_EQ_I64(sorted_bad, 0, "kernels come by start");
	snprintf(m, sizeof m, "%s: the launcher of each of %" PRId64 " tasks equals SQL's", name,
	         task_checked);
	CHECK_EQ_I64(task_bad, 0, m);
	snprintf(m, sizeof m, "%s: each task's launch delay equals SQL's", name);
	CHECK_EQ_I64(delay_bad, 0, m);
	snprintf(m, sizeof m,
	         "%s: launcher and delay of each of %" PRId64 " communication ops equal SQL's",
	         name, comm_checked);
	CHECK(comm_checked > 0 && comm_bad == 0, "%s (%" PRId64 " differ)", m, comm_bad);
	free(cops);
	free(claunch);
	free(ops);
	free(tasks);
	free(launch);
}

/* Call stacks: the frames of an operator, innermost first, against PYTORCH_CALLCHAINS in SQL */
static void
check_sample_stacks(const tl_rank *r, sqlite3 *db, const char *name)
{
	size_t nst;
	rowcount *st =
	    sql_rowcounts(db,
	                  "SELECT p.rowid, count(*), 0 FROM PYTORCH_API p JOIN "
	                  "PYTORCH_CALLCHAINS c ON c.id = p.callchainId GROUP BY p.rowid",
	                  &nst);
	sqlite3_stmt *inner = NULL;
	sqlite3_prepare_v2(
	    db,
	    "SELECT s.value FROM PYTORCH_API p JOIN PYTORCH_CALLCHAINS c ON c.id = "
	    "p.callchainId JOIN STRING_IDS s ON s.id = c.stack WHERE p.rowid = ? AND "
	    "c.stackDepth = (SELECT min(stackDepth) FROM PYTORCH_CALLCHAINS WHERE id = "
	    "p.callchainId)",
	    -1, &inner, NULL);
	size_t checked = 0, bad = 0, seen = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN))
			continue;
		for (size_t k = 0; k < t->n; k++) {
			const rowcount *w = find_row(st, nst, track_arg(t, k));
			if (w == NULL && k % 16 != 0)
				continue;
			if (w != NULL && seen++ % 3 != 0) /* a DB open each: every third */
				continue;
			char **fr;
			ptrdiff_t n = tlq_op_stack(r, t, k, &fr);
			checked++;
			if (n != (w ? w->n : 0))
				bad++;
			if (n > 0 && inner != NULL) {
				sqlite3_reset(inner);
				sqlite3_bind_int64(inner, 1, track_arg(t, k));
				const char *want = sqlite3_step(inner) == SQLITE_ROW
				                       ? (const char *)sqlite3_column_text(inner, 0)
				                       : NULL;
				if (want == NULL || strcmp(fr[0], want) != 0)
					bad++;
			}
			for (ptrdiff_t j = 0; j < n; j++)
				free(fr[j]);
			free(fr);
		}
	}
	sqlite3_finalize(inner);
	CHECK(nst > 0, "%s: the sample has call stacks (%zu operators)", name, nst);
	CHECK(checked > 50 && bad == 0,
	      "%s: the frames of %zu operators, innermost first, equal PYTORCH_CALLCHAINS (%zu "
	      "differ)",
	      name, checked, bad);
	free(st);
}

static void
check_samples(const char *level)
{
	char base[4200];
	tl_trace tr;
	if (test_load_sample_db(level, &tr, base, sizeof base) != 0)
		return;
	for (size_t i = 0; i < tr.nranks; i++) {
		tl_rank *r = tr.ranks[i];
		char path[4400], name[64];
		snprintf(path, sizeof path,
		         "%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
		         base, r->rank, r->rank);
		snprintf(name, sizeof name, "%s rank %d", level, r->rank);
		sqlite3 *db = test_sql_open(path);
		CHECK(db != NULL, "%s: open the sample with sqlite3", name);
		if (db == NULL)
			continue;
		check_sample_launches(r, db, name);
		check_sample_host(r, db, name);
		check_sample_links(r, db, name);
		check_sample_stacks(r, db, name);
		sqlite3_close(db);
	}
	trace_free(&tr);
}

/* ---- the generator's truth --------------------------------------------------------------- */

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int
cmp_launch_op(const void *a, const void *b)
{
	const gen_launch_truth *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->op_start_ns > y->op_start_ns) - (x->op_start_ns < y->op_start_ns);
}

/* With host_ops every launch has an operator before it, linked to it alone: the operator's
 * kernels are the launch's tasks, and each task names the launch's operator. */
static void
check_generated_links(const char *what, tl_trace *tr, gen_truth *truth)
{
	qsort(truth->launches, truth->nlaunches, sizeof *truth->launches, cmp_launch_op);
	size_t ops = 0, checked = 0, bad = 0, tasks_checked = 0, tasks_bad = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		tl_rank *r = tr->ranks[i];
		load_host(r);
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track *t = r->tracks[ti];
			if (t->kind == TL_LANE_HOST && !(t->key & TL_HOST_KEY_CANN)) {
				ops += t->n;
				for (size_t k = 0; k < t->n; k += 97) { /* a DB open each: some */
					gen_launch_truth key = {.rank = r->rank,
					                        .op_start_ns = t->v[k].start};
					const gen_launch_truth *g =
					    bsearch(&key, truth->launches, truth->nlaunches,
					            sizeof key, cmp_launch_op);
					tlq_kernel *kv;
					ptrdiff_t n = tlq_op_kernels(r, t, k, &kv);
					checked++;
					if (g == NULL || n != g->tasks)
						bad++;
					free(kv);
				}
			}
			if (t->kind == TL_LANE_COMPUTE)
				for (size_t k = 0; k < t->n; k += 211) {
					tlq_launcher l;
					tasks_checked++;
					gen_launch_truth key = {.rank = r->rank};
					if (tlq_task_launcher(r, t, k, &l) != 1 || !l.have_op) {
						tasks_bad++;
						continue;
					}
					key.op_start_ns = l.op_start;
					const gen_launch_truth *g =
					    bsearch(&key, truth->launches, truth->nlaunches,
					            sizeof key, cmp_launch_op);
					if (g == NULL || g->host_start_ns != l.cann_start ||
					    l.nops != 1)
						tasks_bad++;
				}
		}
	}
	CHECK_EQ_I64(ops, truth->nlaunches, "one PyTorch operator per launch of the truth");
	CHECK(checked > 10 && bad == 0,
	      "%s: %zu operators' kernels are their launch's tasks (%zu differ)", what, checked,
	      bad);
	CHECK(tasks_checked > 10 && tasks_bad == 0,
	      "%s: %zu tasks name their launch's operator and call (%zu differ)", what,
	      tasks_checked, tasks_bad);
}

static void
check_generated(const char *what, gen_opts *o)
{
	char *dir = test_tmpdir("host");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(o, out, &truth) == 0, "%s: generate", what);
	CHECK(truth.nlaunches > 0, "%s: the truth lists launches", what);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	unsigned w0 = msg_warn_count();
	CHECK(load_trace(out, &lo, &tr) == 0, "%s: load", what);
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "no warnings on a generated profile");
	size_t rows = 0, distinct = 0, idle_checked = 0, host_bound = 0;
	int64_t *d = xreallocarray(NULL, truth.nlaunches + 1, sizeof *d);
	for (size_t i = 0; i < tr.nranks; i++) {
		const tl_rank *r = tr.ranks[i];
		tl_launch_step *v;
		size_t n = tlq_launch_steps(r, &v);
		for (size_t k = 0; k < n; k++) {
			size_t m = 0;
			for (size_t j = 0; j < truth.nlaunches; j++)
				if (truth.launches[j].rank == r->rank &&
				    truth.launches[j].step == v[k].step_id)
					d[m++] = truth.launches[j].delay_ns;
			qsort(d, m, sizeof *d, cmp_i64);
			char msg[200];
			snprintf(msg, sizeof msg,
			         "%s rank %d step %" PRId64 ": launches equal the truth", what,
			         r->rank, v[k].step_id);
			CHECK_EQ_I64(v[k].launches, m, msg);
			if (m == 0)
				continue;
			rows += m;
			for (size_t j = 1; j < m; j++)
				distinct += d[j] != d[j - 1];
			/* the truth's own nearest rank: the smallest delay that at least p% of the
			 * launches do not exceed */
			int64_t want[3] = {0, 0, d[m - 1]};
			int pct[2] = {50, 90};
			for (int p = 0; p < 2; p++)
				for (size_t j = 0; j < m; j++)
					if ((j + 1) * 100 >= m * (size_t)pct[p]) {
						want[p] = d[j];
						break;
					}
			snprintf(msg, sizeof msg,
			         "%s rank %d step %" PRId64 ": p50, p90, max equal the truth", what,
			         r->rank, v[k].step_id);
			CHECK(v[k].p50 == want[0] && v[k].p90 == want[1] && v[k].max == want[2],
			      "%s (got %" PRId64 " %" PRId64 " %" PRId64 ", want %" PRId64
			      " %" PRId64 " %" PRId64 ")",
			      msg, v[k].p50, v[k].p90, v[k].max, want[0], want[1], want[2]);
			/* the device's idle time and its host-bound part, known by construction */
			for (size_t j = 0; j < truth.noverlap; j++) {
				const gen_overlap_truth *ot = &truth.overlap[j];
				if (ot->rank != r->rank || ot->step != v[k].step_id ||
				    ot->idle_host_launching < 0)
					continue;
				snprintf(msg, sizeof msg,
				         "%s rank %d step %" PRId64
				         ": idle and host-bound idle equal the truth",
				         what, r->rank, v[k].step_id);
				CHECK(v[k].have_idle && v[k].idle == ot->free &&
				          v[k].idle_host == ot->idle_host_launching,
				      "%s (got %" PRId64 " %" PRId64 ", want %" PRId64 " %" PRId64
				      ")",
				      msg, v[k].idle, v[k].idle_host, ot->free,
				      ot->idle_host_launching);
				idle_checked++;
				host_bound += ot->idle_host_launching > 0;
			}
		}
		free(v);
	}
	CHECK_EQ_I64(rows, truth.nlaunches, "every launch of the truth is counted once");
	if (!o->launch_jitter && !o->pp)
		CHECK(idle_checked > 0 && host_bound > 0,
		      "%s: %zu steps' idle time checked, %zu of them partly host bound", what,
		      idle_checked, host_bound);
	if (o->host_ops)
		check_generated_links(what, &tr, &truth);
	if (o->launch_jitter)
		CHECK(distinct > 20, "%s: the launch delays vary (%zu distinct values)", what,
		      distinct);
	free(d);
	trace_free(&tr);
	gen_truth_free(&truth);
	test_rmtree(dir);
	free(out);
}

/* ---- damaged host tables: one line per table, the good rows kept ---- */

static const tl_track *
find_track(const tl_rank *r, tl_lane_kind kind, int64_t key)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind && (key < 0 || r->tracks[i]->key == key) &&
		    r->tracks[i]->depth == 0)
			return r->tracks[i];
	return NULL;
}

/* A capture directory under a new test directory (returned; NULL: none) whose one DB is made
 * by sql (what: the fixture, in the check's words). */
static char *
write_fixture(const char *name, const char *sql, const char *what)
{
	char *dir = test_tmpdir(name);
	if (dir == NULL)
		return NULL;
	char *d1 = xasprintf("%s/fixture_ascend_pt", dir);
	char *d2 = xasprintf("%s/ASCEND_PROFILER_OUTPUT", d1);
	char *path = xasprintf("%s/ascend_pytorch_profiler_0.db", d2);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	sqlite3 *db;
	CHECK(sqlite3_open(path, &db) == SQLITE_OK &&
	          sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK,
	      "write %s", what);
	sqlite3_close(db);
	free(path);
	free(d2);
	free(d1);
	return dir;
}

static void
check_bad_host(void)
{
	char *dir = write_fixture("host-bad", HOST_BAD_SQL, "the damaged host fixture");
	if (dir == NULL)
		return;
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(dir, &lo, &tr) == 0 && tr.nranks == 1, "load the damaged fixture");
	if (tr.nranks != 1) {
		test_rmtree(dir);
		return;
	}
	tl_rank *r = tr.ranks[0];
	tl_launch_step *v;
	size_t n = tlq_launch_steps(r, &v);
	/* launches 1, 2, 3 (delays 50, 50, 20); 99 has no CANN_API row, NULL none at all */
	CHECK(n == 1 && v[0].step_id == -1 && v[0].launches == 3 && v[0].p50 == 50 &&
	          v[0].p90 == 50 && v[0].max == 50,
	      "dangling and NULL connectionIds are no launches; a NULL end does not matter");
	free(v);
	unsigned w0 = msg_warn_count();
	load_host(r);
	CHECK_EQ_I64(msg_warn_count() - w0, 2, "one line per damaged host table");
	const tl_track *cann = find_track(r, TL_LANE_HOST, TL_HOST_KEY(0, 7, 1));
	const tl_track *py7 = find_track(r, TL_LANE_HOST, TL_HOST_KEY(0, 7, 0));
	const tl_track *py8 = find_track(r, TL_LANE_HOST, TL_HOST_KEY(0, 8, 0));
	CHECK(cann != NULL && cann->n == 2 && cann->v[0].start == 100 && cann->v[1].start == 300,
	      "CANN_API: the two usable rows, in time order");
	CHECK(py7 != NULL && py7->n == 1 && py7->v[0].start == 90 && track_end(py7, 0) == 350,
	      "PYTORCH_API: the operator with text times kept, the broken ones skipped");
	CHECK(py8 != NULL && py8->n == 1, "PYTORCH_API: a second thread, its own lane");
	const tl_track *task = find_track(r, TL_LANE_COMPUTE, -1);
	CHECK(task != NULL && task->n == 5, "five compute tasks");
	if (task != NULL && task->n == 5 && py7 != NULL) {
		tlq_launcher l;
		CHECK(tlq_task_launcher(r, task, 0, &l) == 1 && l.delay == 50 && l.nops == 1 &&
		          l.have_op && strcmp(l.op_name, "aten::mm") == 0 &&
		          strcmp(l.cann_name, "launch") == 0,
		      "task 1: launched by aten::mm through CONNECTION_IDS, 50 ns after the call");
		CHECK(tlq_task_launcher(r, task, 1, &l) == 1 && l.nops == 1 && !l.have_op,
		      "task 2: its operator's times are broken: counted, not named");
		CHECK(tlq_task_launcher(r, task, 3, &l) == 0, "task 4: a dangling connectionId");
		CHECK(tlq_task_launcher(r, task, 4, &l) == 0, "task 5: no connectionId");
		tlq_kernel *k;
		ptrdiff_t nk = tlq_op_kernels(r, py7, 0, &k);
		CHECK(nk == 3 && k[0].start == 150 && k[1].start == 320 && k[2].start == 400,
		      "aten::mm launched the tasks of connectionIds 1, 3 and 99, by start");
		free(k);
	}
	trace_free(&tr);
	test_rmtree(dir);
}

/* A launch 3 s after its call (past an int32 offset): the 12-byte read gives the launches in
 * 16 bytes from the same read, as load_launches reads them (ascend_db_launches, from the same
 * records). */
static void
check_wide_delay(void)
{
	char *dir =
	    write_fixture("host-wide",
	                  HOST_BAD_SQL "INSERT INTO CANN_API VALUES (1000,1010,10000,7,6,2);"
	                               "INSERT INTO TASK VALUES (3000001000,3000001010,0,6,"
	                               "15,1,1,4294967295,1,6,0),(3000000900,3000000910,0,6,"
	                               "16,1,1,4294967295,1,7,0);"
	                               "INSERT INTO COMPUTE_TASK_INFO VALUES (1,15),(1,16);",
	                  "the fixture with a launch delay of 3 s");
	if (dir == NULL)
		return;
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(dir, &lo, &tr) == 0 && tr.nranks == 1) {
		tl_launch_rec *rec = NULL;
		tl_launch *wide = NULL;
		size_t n = 0, nw = 0;
		CHECK(load_launch_recs(tr.ranks[0], &rec, &nw, &wide) == 1 && rec == NULL,
		      "a delay past 2^31 ns: no 12-byte launches, 16-byte ones from the same read");
		tl_launch *v;
		n = load_launches(tr.ranks[0], &v);
		CHECK(n == 4 && v[0].host_start == 100 && v[0].dev_start == 150 &&
		          v[2].dev_start == 320 && v[3].host_start == 1000 &&
		          v[3].dev_start == INT64_C(3000000900),
		      "load_launches: the three launches and the wide one, its first task's start");
		CHECK(nw == n && wide != NULL && memcmp(wide, v, n * sizeof *v) == 0,
		      "the wide read gives load_launches' launches, in its order");
		free(wide);

		/* the delays past 32 bits: launch_steps selects them in 64 (its 32-bit scratch
		 * only where every delay fits) */
		int64_t d[4];
		for (size_t i = 0; i < 4 && n == 4; i++)
			d[i] = v[i].dev_start - v[i].host_start;
		if (n == 4)
			qsort(d, 4, sizeof *d, cmp_i64);
		tl_launch_step *ls;
		size_t nls = tlq_launch_steps(tr.ranks[0], &ls);
		CHECK(n == 4 && nls == 1 && ls[0].launches == 4 && ls[0].p50 == d[1] &&
		          ls[0].p90 == d[3] && ls[0].max == INT64_C(3000000900) - 1000,
		      "a delay of 3 s: the step's p50, p90 and max those of the sorted delays");
		free(ls);
		free(v);
		trace_free(&tr);
	} else {
		CHECK(0, "load the fixture with a launch delay of 3 s");
	}
	test_rmtree(dir);
}

/* A call 5 s after the first of its connectionIds' block (past the 32-bit offset the gather
 * keeps a call's start in): the gathered launches, whose delays tlq_launch_steps gives, are
 * those load_launches reads on demand. */
static void
check_wide_call(void)
{
	char *dir = write_fixture(
	    "host-wide-call",
	    HOST_BAD_SQL "INSERT INTO CANN_API VALUES (5000000000,5000000010,10000,7,6,2);"
	                 "INSERT INTO TASK VALUES (5000000070,5000000080,0,6,15,1,1,4294967295,1,"
	                 "6,0);"
	                 "INSERT INTO COMPUTE_TASK_INFO VALUES (1,15);",
	    "the fixture with a call 5 s after the others");
	if (dir == NULL)
		return;
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1, .tables = TL_TABLE_LAUNCHES}; /* gathered */
	if (load_trace(dir, &lo, &tr) == 0 && tr.nranks == 1) {
		tl_launch *v;
		size_t n = load_launches(tr.ranks[0], &v);
		int64_t d[8], max = INT64_MIN;
		for (size_t i = 0; i < n && i < 8; i++) {
			d[i] = v[i].dev_start - v[i].host_start;
			max = d[i] > max ? d[i] : max;
		}
		if (n <= 8)
			qsort(d, n, sizeof *d, cmp_i64);
		tl_launch_step *ls;
		size_t nls = tlq_launch_steps(tr.ranks[0], &ls);
		CHECK(n == 4 && v[3].host_start == INT64_C(5000000000) &&
		          v[3].dev_start == INT64_C(5000000070) && nls == 1 &&
		          ls[0].launches == n && ls[0].p50 == d[1] && ls[0].p90 == d[3] &&
		          ls[0].max == max && max == 70,
		      "a call 5 s after its block's first: the gathered launches' delays are "
		      "load_launches'");
		free(ls);
		free(v);
		trace_free(&tr);
	} else {
		CHECK(0, "load the fixture with a call 5 s after the others");
	}
	test_rmtree(dir);
}

static void
test_percentile(void)
{
	int64_t v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	CHECK_EQ_I64(launch_percentile(v, 10, 50), 5, "p50 of 1..10 is 5 (nearest rank)");
	CHECK_EQ_I64(launch_percentile(v, 10, 90), 9, "p90 of 1..10 is 9");
	CHECK_EQ_I64(launch_percentile(v, 1, 90), 1, "p90 of one value is that value");
	CHECK_EQ_I64(launch_percentile(v, 3, 50), 2, "p50 of 1..3 is 2");
	CHECK_EQ_I64(launch_percentile(v, 4, 50), 2, "p50 of 1..4 is 2 (the lower middle)");
}

int
main(void)
{
	msg_set_quiet(1);
	test_percentile();
	check_bad_host();
	check_wide_delay();
	check_wide_call();
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 3;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 11;
	o.launch_jitter = 1;
	o.host_ops = 1;
	check_generated("GRPO, varying launch delays, host operators", &o);
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 1;
	o.tasks_per_rank = 2000;
	o.slow_rank = -1;
	o.seed = 3;
	check_generated("GRPO, one step", &o);
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 3;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 7;
	o.host_ops = 1;
	check_generated("GRPO, three steps, launches a fixed time ahead", &o);
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 2;
	o.pp = 2;
	o.pp_microbatches = 4;
	o.pp_device_ranges = 1;
	o.seed = 5;
	check_generated("PP, host running ahead", &o);
	check_samples("level0");
	check_samples("level2");
	return test_done();
}
