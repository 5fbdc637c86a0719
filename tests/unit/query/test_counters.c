/* The counter lanes' numbers (query/memory.h: per column the highest value, the value at a
 * time, the peak) and the live allocations' allocator and Python frame, against answers tl did
 * not compute: plain SQL over the real samples' MEMORY_RECORD, NPU_MEM, NPU_MODULE_MEM,
 * AICORE_FREQ, OP_MEMORY and PYTORCH_CALLCHAINS; the real trace_view.json's counter events
 * parsed here with cJSON; and hand-written traces with counters out of order and broken
 * values. */
#include "config.h"

#include <cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/memory.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../../fuzz/counters_bad.h"
#include "../test.h"

#define NCOLS 97

/* Where a counter of kind k comes from: table, time and value columns, and the predicate that
 * picks its group (?1: the group's name). */
static int
counter_sql(tl_counter_kind k, const char **table, const char **tcol, const char **vcol,
            const char **group)
{
	static const char *const mr[3] = {"totalAllocated", "totalReserved", "totalActive"};
	switch (k) {
	case TL_CTR_ALLOCATED:
	case TL_CTR_RESERVED:
	case TL_CTR_ACTIVE:
		*table = "MEMORY_RECORD";
		*tcol = "timestamp";
		*vcol = mr[k - TL_CTR_ALLOCATED];
		*group = "component IN (SELECT id FROM STRING_IDS WHERE value = ?1)";
		return 0;
	case TL_CTR_NPU_HBM:
	case TL_CTR_NPU_DDR:
		*table = "NPU_MEM";
		*tcol = "timestampNs";
		*vcol = k == TL_CTR_NPU_HBM ? "hbm" : "ddr";
		*group = "type IN (SELECT id FROM STRING_IDS WHERE value = ?1)";
		return 0;
	case TL_CTR_MODULE:
		*table = "NPU_MODULE_MEM";
		*tcol = "timestampNs";
		*vcol = "totalReserved";
		*group = "moduleId IN (SELECT id FROM ENUM_MODULE WHERE name = ?1)";
		return 0;
	case TL_CTR_FREQ:
		*table = "AICORE_FREQ";
		*tcol = "timestampNs";
		*vcol = "freq";
		*group = "?1 = ''";
		return 0;
	default:
		return -1;
	}
}

/* The oracle's tables copied into the connection's TEMP schema (which shadows main's for the
 * unqualified names of the queries below) with an index on group and time: the same rows, so
 * the same answers, but each column's correlated sub-selects seek instead of scanning the
 * table, which made this test a minute natively and a quarter of an hour under qemu. */
static void
oracle_index(sqlite3 *db)
{
	static const char *const tables[][3] = {
	    {"MEMORY_RECORD", "component", "timestamp"},
	    {"NPU_MEM", "type", "timestampNs"},
	    {"NPU_MODULE_MEM", "moduleId", "timestampNs"},
	    {"AICORE_FREQ", "timestampNs", "freq"},
	};
	for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
		char sql[600];
		snprintf(sql, sizeof sql,
		         "CREATE TEMP TABLE %s AS SELECT * FROM main.%s; "
		         "CREATE INDEX temp.%s_oracle ON %s(%s, %s)",
		         tables[i][0], tables[i][0], tables[i][0], tables[i][0], tables[i][1],
		         tables[i][2]);
		char *err = NULL;
		if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
			CHECK(0, "oracle copy of %s: %s", tables[i][0], err ? err : "?");
		sqlite3_free(err);
	}
}

static sqlite3_stmt *
prep(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		CHECK(0, "prepare: %s: %s", sqlite3_errmsg(db), sql);
		return NULL;
	}
	return st;
}

/* One counter: every column of NCOLS over [a, b], the value at the column edges and the peak,
 * against SQL. A column's highest value: the samples in [c0, c1), and the sample before c0
 * when the first sample at or after c0 comes after c0 (it then holds at c0). */
static void
check_counter(const tl_rank *r, const tl_counter *c, sqlite3 *db, const char *level, int64_t a,
              int64_t b, size_t *ncols_checked)
{
	const char *table, *tcol, *vcol, *group;
	if (counter_sql(c->kind, &table, &tcol, &vcol, &group) != 0)
		return;
	const char *g = strpool_get(r->pool, c->group);
	char sql[2000], where[400];
	snprintf(where, sizeof where, "%s AND %s IS NOT NULL AND %s IS NOT NULL", group, vcol,
	         tcol);
	snprintf(sql, sizeof sql,
	         "SELECT max(v) FROM (SELECT %s AS v FROM %s WHERE %s AND %s >= ?2 AND %s < ?3 "
	         "UNION ALL SELECT v FROM (SELECT %s AS v FROM %s WHERE %s AND %s < ?2 AND "
	         "coalesce((SELECT min(%s) FROM %s WHERE %s AND %s >= ?2), CASE WHEN ?2 <= ?4 THEN "
	         "?2 + 1 ELSE ?2 END) > ?2 ORDER BY %s DESC, rowid "
	         "DESC LIMIT 1))",
	         vcol, table, where, tcol, tcol, vcol, table, where, tcol, tcol, table, where, tcol,
	         tcol);
	sqlite3_stmt *st = prep(db, sql);
	if (st == NULL)
		return;
	int64_t edges[NCOLS + 1], mx[NCOLS];
	unsigned char have[NCOLS];
	int64_t w = (b - a) / NCOLS + 1;
	for (int k = 0; k <= NCOLS; k++)
		edges[k] = a + w * k;
	tlq_counter_columns(c, r->t_max, edges, NCOLS, mx, have);
	size_t bad = 0, nhave = 0;
	for (int k = 0; k < NCOLS; k++) {
		sqlite3_bind_text(st, 1, g, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, edges[k]);
		sqlite3_bind_int64(st, 3, edges[k + 1]);
		sqlite3_bind_int64(st, 4, r->t_max);
		int sq_have = 0;
		int64_t sq = 0;
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			sq_have = 1;
			sq = sqlite3_column_int64(st, 0);
		}
		sqlite3_reset(st);
		if (sq_have != have[k] || (sq_have && sq != mx[k]))
			bad++;
		nhave += have[k];
	}
	sqlite3_finalize(st);
	*ncols_checked += nhave;
	char name[128];
	tlq_counter_label(r, c, name, sizeof name);
	CHECK(bad == 0, "%s rank %d %s: %d columns' highest values equal SQL's (%zu with a value)",
	      level, r->rank, name, NCOLS, nhave);
	/* the value at a time: the last sample at or before it, while one follows */
	snprintf(sql, sizeof sql,
	         "SELECT %s FROM %s WHERE %s AND %s <= ?2 AND max((SELECT max(%s) FROM %s WHERE "
	         "%s), ?3) >= ?2 ORDER BY %s DESC, rowid DESC LIMIT 1",
	         vcol, table, where, tcol, tcol, table, where, tcol);
	st = prep(db, sql);
	bad = 0;
	for (int k = 0; st && k <= NCOLS; k++) {
		int64_t t = edges[k] + w / 3, v = 0;
		sqlite3_bind_text(st, 1, g, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st, 2, t);
		sqlite3_bind_int64(st, 3, r->t_max);
		int sq_have = sqlite3_step(st) == SQLITE_ROW;
		int tl_have = tlq_counter_at(c, r->t_max, t, &v);
		if (sq_have != tl_have || (sq_have && v != sqlite3_column_int64(st, 0)))
			bad++;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	CHECK(bad == 0, "%s rank %d %s: the value at %d times equals SQL's", level, r->rank, name,
	      NCOLS + 1);
	/* the peak: the highest value, first at the earliest time */
	snprintf(sql, sizeof sql,
	         "SELECT %s, %s FROM %s WHERE %s ORDER BY %s DESC, %s, rowid LIMIT 1", vcol, tcol,
	         table, where, vcol, tcol);
	st = prep(db, sql);
	int64_t lo, hi;
	size_t p = tlq_counter_peak(c, &lo, &hi);
	sqlite3_bind_text(st, 1, g, -1, SQLITE_TRANSIENT);
	CHECK(st && sqlite3_step(st) == SQLITE_ROW && p != SIZE_MAX &&
	          hi == sqlite3_column_int64(st, 0) && c->t[p] == sqlite3_column_int64(st, 1),
	      "%s rank %d %s: the peak and its time equal SQL's", level, r->rank, name);
	sqlite3_finalize(st);
}

/* The allocator and Python frame of the live allocations at the allocated peak, against SQL:
 * GE's rows have no stream; the frame is the innermost of the call chain of the latest
 * PyTorch call of the op's name holding the allocation time. */
static void
check_live_frames(const tl_rank *r, sqlite3 *db, const char *level, int64_t t)
{
	tlq_alloc *v;
	ptrdiff_t n = tlq_live_allocations(r, t, 40, &v);
	sqlite3_stmt *st = prep(
	    db,
	    "SELECT o.streamPtr IS NULL, (SELECT s2.value FROM PYTORCH_API p JOIN "
	    "PYTORCH_CALLCHAINS c ON c.id = p.callchainId JOIN STRING_IDS s2 ON s2.id = c.stack "
	    "JOIN STRING_IDS s3 ON s3.id = p.name WHERE s3.value = s.value AND "
	    "CAST(p.startNs AS INTEGER) <= o.allocationTime AND CAST(p.endNs AS INTEGER) >= "
	    "o.allocationTime ORDER BY CAST(p.startNs AS INTEGER) DESC, c.stackDepth LIMIT 1) "
	    "FROM OP_MEMORY o JOIN STRING_IDS s ON s.id = o.name WHERE o.allocationTime = ?1 "
	    "AND o.size = ?2 AND s.value = ?3");
	size_t bad = 0, frames = 0;
	for (ptrdiff_t i = 0; st && i < n; i++) {
		sqlite3_bind_int64(st, 1, v[i].alloc_ns);
		sqlite3_bind_int64(st, 2, v[i].size);
		sqlite3_bind_text(st, 3, v[i].op, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_ROW) {
			bad++;
		} else {
			const char *f = (const char *)sqlite3_column_text(st, 1);
			const char *comp = sqlite3_column_int(st, 0) ? "GE" : "PTA";
			if (strcmp(comp, v[i].component) != 0 ||
			    strcmp(f ? f : "", v[i].frame) != 0)
				bad++;
			frames += v[i].frame[0] != '\0';
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	CHECK(n > 5 && bad == 0 && frames > 0,
	      "%s rank %d: the allocator and Python frame of %td live allocations at the peak "
	      "equal SQL's (%zu frames, %zu differ)",
	      level, r->rank, n, frames, bad);
	free(v);
}

static void
check_sample(const char *level)
{
	char base[4200];
	struct stat sb;
	snprintf(base, sizeof base, "%.4000s/ascend-db/%s", test_samples_dir(), level);
	if (stat(base, &sb) != 0) {
		SKIP("samples absent: %s", base);
		return;
	}
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(base, &lo, &tr) == 0, "load %s", level);
	tl_query *q = tlq_open(&tr, NULL);
	for (size_t i = 0; i < tr.nranks; i++) {
		const tl_rank *r = tr.ranks[i];
		char path[4400];
		snprintf(path, sizeof path,
		         "%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db",
		         base, r->rank, r->rank);
		sqlite3 *db = test_sql_open(path);
		if (db == NULL) {
			CHECK(0, "open %s", path);
			continue;
		}
		oracle_index(db);
		tl_counter *const *cs;
		size_t n = tlq_rank_counters(q, i, &cs);
		int kinds[TL_CTR__COUNT] = {0};
		size_t cols = 0;
		for (size_t k = 0; k < n; k++) {
			const tl_counter *c = cs[k];
			kinds[c->kind]++;
			/* the whole profile, and the first tenth of its counters (dense columns) */
			check_counter(r, c, db, level, r->t_min, r->t_max, &cols);
			if (c->n > 1)
				check_counter(r, c, db, level, c->t[0],
				              c->t[0] + (c->t[c->n - 1] - c->t[0]) / 10, &cols);
		}
		CHECK(kinds[TL_CTR_ALLOCATED] >= 2 && kinds[TL_CTR_NPU_HBM] == 2 &&
		          kinds[TL_CTR_MODULE] > 0 && kinds[TL_CTR_FREQ] == 1 && cols > 1000,
		      "%s rank %d: allocator, NPU, module and frequency counters (%zu columns)",
		      level, r->rank, cols);
		/* the live allocations at the highest allocated total */
		int64_t best = INT64_MIN, bt = 0;
		for (size_t k = 0; k < n; k++) {
			int64_t lo2, hi;
			size_t p = cs[k]->kind == TL_CTR_ALLOCATED
			               ? tlq_counter_peak(cs[k], &lo2, &hi)
			               : SIZE_MAX;
			if (p != SIZE_MAX && hi > best) {
				best = hi;
				bt = cs[k]->t[p];
			}
		}
		check_live_frames(r, db, level, bt);
		sqlite3_close(db);
	}
	tlq_close(q);
	trace_free(&tr);
}

/* ---- JSON: the real trace_view.json's counters against its own events, read with cJSON ---- */

static void
check_json_sample(void)
{
	char base[4200], path[4400];
	struct stat sb;
	snprintf(base, sizeof base, "%.4000s/ascend-text/level1", test_samples_dir());
	snprintf(path, sizeof path, "%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
	         base);
	if (stat(path, &sb) != 0) {
		SKIP("samples absent: %s", path);
		return;
	}
	FILE *f = fopen(path, "r");
	char *buf = xmalloc((size_t)sb.st_size + 1);
	size_t got = f ? fread(buf, 1, (size_t)sb.st_size, f) : 0;
	buf[got] = '\0';
	if (f)
		fclose(f);
	cJSON *j = cJSON_Parse(buf);
	free(buf);
	/* the file's own answer: per counter name, its samples, the highest value */
	const char *names[] = {"APP/HBM", "Device/HBM", "APP/DDR", "AI Core Freq", "HBM 0/Read"};
	double peak[5] = {-1, -1, -1, -1, -1};
	int count[5] = {0};
	const cJSON *e;
	cJSON_ArrayForEach(e, j)
	{
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(e, "ph");
		const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		if (!cJSON_IsString(ph) || strcmp(ph->valuestring, "C") != 0 || !cJSON_IsString(nm))
			continue;
		for (int k = 0; k < 5; k++)
			if (strcmp(nm->valuestring, names[k]) == 0 && args && args->child &&
			    cJSON_IsNumber(args->child)) {
				count[k]++;
				if (args->child->valuedouble > peak[k])
					peak[k] = args->child->valuedouble;
			}
	}
	cJSON_Delete(j);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(base, &lo, &tr) == 0, "load the text sample");
	tl_query *q = tlq_open(&tr, NULL);
	const tl_rank *r = NULL;
	size_t ri = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		if (tr.ranks[i]->rank == 0) {
			r = tr.ranks[i];
			ri = i;
		}
	tl_counter *const *cs;
	size_t n = r ? tlq_rank_counters(q, ri, &cs) : 0;
	for (int k = 0; k < 5; k++) {
		const tl_counter *c = NULL;
		for (size_t i = 0; i < n; i++) {
			char lb[128];
			tlq_counter_label(r, cs[i], lb, sizeof lb);
			const char *want = k == 0   ? "app HBM"
			                   : k == 1 ? "device HBM"
			                   : k == 2 ? "app DDR"
			                   : k == 3 ? "AI Core freq"
			                            : "HBM 0/Read";
			if (strcmp(lb, want) == 0)
				c = cs[i];
		}
		int64_t lo2 = 0, hi = 0;
		size_t p = c ? tlq_counter_peak(c, &lo2, &hi) : SIZE_MAX;
		/* bytes from KB, MHz as is, thousandths of MB/s */
		double scale = k < 3 ? 1024.0 : k == 3 ? 1.0 : 1000.0;
		CHECK(c != NULL && (int)c->n == count[k] && p != SIZE_MAX &&
		          llround(peak[k] * scale) == hi,
		      "text sample rank 0 %s: %d samples, the peak %.3f x %.0f as the file has it "
		      "(got %zu samples, %lld)",
		      names[k], count[k], peak[k], scale, c ? c->n : 0, (long long)hi);
	}
	tlq_close(q);
	trace_free(&tr);
}

/* ---- JSON: broken counter events, one line, the good samples kept in time order ---- */

static void
check_json_bad(void)
{
	char *dir = test_tmpdir("counters-bad");
	if (dir == NULL)
		return;
	char *path = xasprintf("%s/trace_view.json", dir);
	FILE *f = fopen(path, "w");
	fputs(COUNTERS_BAD_JSON, f);
	fclose(f);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	unsigned w0 = msg_warn_count();
	CHECK(load_trace(path, &lo, &tr) == 0 && tr.nranks == 1, "load the broken counters");
	/* a line per kind of problem: no number, a bad ts, the order */
	CHECK(msg_warn_count() - w0 == 3,
	      "the broken counter events are reported in a line per problem, not one each (%u)",
	      msg_warn_count() - w0);
	if (tr.nranks == 1) {
		tl_query *q = tlq_open(&tr, NULL);
		tl_counter *const *cs;
		size_t n = tlq_rank_counters(q, 0, &cs);
		const tl_counter *hbm = NULL, *qos = NULL;
		for (size_t i = 0; i < n; i++) {
			if (cs[i]->kind == TL_CTR_NPU_HBM)
				hbm = cs[i];
			if (cs[i]->kind == TL_CTR_OTHER)
				qos = cs[i];
		}
		CHECK(hbm != NULL && hbm->n == 2 && hbm->t[0] == 110000 && hbm->v[0] == 2048 &&
		          hbm->t[1] == 130000 && hbm->v[1] == 3584,
		      "app HBM: the two good samples, in time order, KB as bytes");
		char vb[64];
		CHECK(qos != NULL && qos->n == 1 && qos->v[0] == 12250 &&
		          strcmp(tlq_counter_value(tr.ranks[0], qos, qos->v[0], vb, sizeof vb),
		                 "12.25") == 0,
		      "a counter given as a string of digits, in thousandths (%s)",
		      qos ? tlq_counter_value(tr.ranks[0], qos, qos->v[0], vb, sizeof vb) : "none");
		int64_t v = 0;
		int64_t end = tr.ranks[0]->t_max; /* aten::mm ends at 150 us */
		CHECK(end == 150000 && tlq_counter_at(hbm, end, 125000, &v) && v == 2048 &&
		          tlq_counter_at(hbm, end, 131000, &v) && v == 3584 &&
		          tlq_counter_at(hbm, end, 150000, &v) &&
		          !tlq_counter_at(hbm, end, 150001, &v) &&
		          !tlq_counter_at(hbm, end, 100, &v),
		      "the value holds until the next sample, the last one until the rank's end");
		tlq_close(q);
	}
	trace_free(&tr);
	test_rmtree(dir);
	free(path);
}

/* ---- the generator: its truth, and the DB and its trace_view.json giving the same counters */

static const tl_counter *
find_ctr(const tl_rank *r, tl_counter *const *cs, size_t n, tl_counter_kind k, const char *g)
{
	for (size_t i = 0; i < n; i++)
		if (cs[i]->kind == k && strcmp(strpool_get(r->pool, cs[i]->group), g) == 0)
			return cs[i];
	return NULL;
}

static void
check_generated(void)
{
	char *dir = test_tmpdir("counters-gen");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 2;
	o.tasks_per_rank = 2000;
	o.seed = 23;
	o.slow_rank = 1;
	o.memory_records = 1;
	o.json = 1;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate with memory records and JSON");
	for (int rank = 0; rank < 2; rank++) {
		const gen_memory_truth *g = NULL;
		for (size_t i = 0; i < truth.nmemory; i++)
			if (truth.memory[i].rank == rank &&
			    strcmp(truth.memory[i].component, "PTA") == 0)
				g = &truth.memory[i];
		char pat[64];
		snprintf(pat, sizeof pat, "-r%d_", rank);
		/* the capture's directory: the one whose name has -rN_ */
		char *db = NULL, *js = NULL;
		char *cmd = xasprintf("ls -d %s/*%s*/ASCEND_PROFILER_OUTPUT", out, pat);
		FILE *ls = popen(cmd, "r");
		free(cmd);
		char line[4096];
		if (ls && fgets(line, sizeof line, ls)) {
			line[strcspn(line, "\n")] = '\0';
			db = xasprintf("%s/ascend_pytorch_profiler_%d.db", line, rank);
			js = xasprintf("%s/trace_view.json", line);
		}
		if (ls)
			pclose(ls);
		tl_trace td, tj;
		tl_load_opts lo = {.quiet_progress = 1};
		int okd = db && load_trace(db, &lo, &td) == 0 && td.nranks == 1;
		int okj = js && load_trace(js, &lo, &tj) == 0 && tj.nranks == 1;
		CHECK(g != NULL && okd && okj, "rank %d: truth, its DB and its JSON load", rank);
		if (g == NULL || !okd || !okj) {
			free(db);
			free(js);
			continue;
		}
		tl_query *qd = tlq_open(&td, NULL), *qj = tlq_open(&tj, NULL);
		tl_counter *const *cd, *const *cj;
		size_t nd = tlq_rank_counters(qd, 0, &cd), nj = tlq_rank_counters(qj, 0, &cj);
		const tl_rank *rd = td.ranks[0], *rj = tj.ranks[0];
		/* the DB and the JSON: NPU memory and frequency sample for sample */
		int same = 0, kinds = 0;
		static const struct {
			tl_counter_kind k;
			const char *g;
		} both[] = {{TL_CTR_NPU_HBM, "app"},
		            {TL_CTR_NPU_HBM, "device"},
		            {TL_CTR_NPU_DDR, "app"},
		            {TL_CTR_NPU_DDR, "device"},
		            {TL_CTR_FREQ, ""}};
		for (size_t b = 0; b < sizeof both / sizeof *both; b++) {
			const tl_counter *a = find_ctr(rd, cd, nd, both[b].k, both[b].g);
			const tl_counter *c = find_ctr(rj, cj, nj, both[b].k, both[b].g);
			kinds++;
			if (a && c && a->n == c->n && a->n > 2 &&
			    memcmp(a->t, c->t, a->n * sizeof *a->t) == 0 &&
			    memcmp(a->v, c->v, a->n * sizeof *a->v) == 0)
				same++;
		}
		CHECK(same == kinds,
		      "rank %d: NPU memory and AI Core frequency: the DB and trace_view.json give "
		      "the "
		      "same samples (%d of %d counters)",
		      rank, same, kinds);
		/* the truth: the allocated peak, what was live then, NPU memory's peak, the dip */
		const tl_counter *al = find_ctr(rd, cd, nd, TL_CTR_ALLOCATED, "PTA");
		int64_t lo2 = 0, hi = 0;
		size_t p = al ? tlq_counter_peak(al, &lo2, &hi) : SIZE_MAX;
		CHECK(p != SIZE_MAX && hi == g->peak_allocated && al->t[p] == g->peak_allocated_ns,
		      "rank %d: the PTA allocated lane's peak is the truth's (%lld at %lld)", rank,
		      (long long)g->peak_allocated, (long long)g->peak_allocated_ns);
		tlq_alloc *v = NULL;
		ptrdiff_t nv = p != SIZE_MAX ? tlq_live_allocations(rd, al->t[p], 10, &v) : 0;
		CHECK(nv >= 3 && v[0].size == g->live_size && strcmp(v[0].op, g->live_op) == 0 &&
		          strcmp(v[0].component, "PTA") == 0 && v[1].size < v[0].size,
		      "rank %d: the largest allocation live at the peak is the truth's (%s, %lld "
		      "bytes)",
		      rank, g->live_op, (long long)g->live_size);
		free(v);
		const tl_counter *hb = find_ctr(rj, cj, nj, TL_CTR_NPU_HBM, "app");
		p = hb ? tlq_counter_peak(hb, &lo2, &hi) : SIZE_MAX;
		CHECK(p != SIZE_MAX && hi == g->npu_app_hbm && hb->t[p] == g->npu_app_hbm_ns,
		      "rank %d: the JSON's app HBM peak is the truth's", rank);
		const tl_counter *fq = find_ctr(rj, cj, nj, TL_CTR_FREQ, "");
		int64_t at = 0;
		CHECK(fq && tlq_counter_peak(fq, &lo2, &hi) != SIZE_MAX && lo2 == g->freq_min &&
		          tlq_counter_at(fq, rj->t_max, g->freq_min_ns, &at) && at == g->freq_min &&
		          tlq_counter_at(fq, rj->t_max, g->freq_min_ns - 1, &at) && at == 1800 &&
		          tlq_counter_at(fq, rj->t_max, rj->t_max, &at) && at == 1800,
		      "rank %d: AI Core frequency dips to the truth's %lld MHz at its time", rank,
		      (long long)g->freq_min);
		tlq_close(qd);
		tlq_close(qj);
		trace_free(&td);
		trace_free(&tj);
		free(db);
		free(js);
	}
	gen_truth_free(&truth);
	test_rmtree(dir);
	free(out);
}

int
main(void)
{
	check_generated();
	msg_set_quiet(1);
	check_json_bad();
	check_json_sample();
	check_sample("level0");
	check_sample("level2");
	return test_done();
}
