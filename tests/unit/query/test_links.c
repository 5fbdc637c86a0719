/* Links between slices (tlq_links, tlq_fwdbwd_partner), against answers tl did not compute:
 * plain SQL over the real sample DBs (CANN_API, CONNECTION_IDS, PYTORCH_API, TASK), a plain
 * count of the flow events in the real trace_view.json and Kineto files (strstr over the text,
 * no JSON parser), and the same generated capture as a DB and as its trace_view.json. */
#include "config.h"

#include <ftw.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/host.h"
#include "query/links.h"
#include "util/msg.h"
#include "util/u64map.h"
#include "util/xalloc.h"
#include "../test.h"
#include "../../fuzz/flows_bad.h"
#include "../../fuzz/host_bad.h"

static int
is_task_lane(tl_lane_kind k)
{
	return k == TL_LANE_COMPUTE || k == TL_LANE_COMM_TASK || k == TL_LANE_MEMCPY ||
	       k == TL_LANE_OTHER;
}

static int
is_device_lane(tl_lane_kind k)
{
	return is_task_lane(k) || k == TL_LANE_COMM || k == TL_LANE_MSTX_DEV;
}

/* rowid -> value of a two-column SQL answer */
static void
sql_map(sqlite3 *db, const char *sql, tl_u64map *m)
{
	u64map_init(m);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		u64map_put(m, (uint64_t)sqlite3_column_int64(st, 0),
		           (uint32_t)sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
}

/* ---- real DBs ---------------------------------------------------------------------------- */

static void
check_db_rank(const tl_query *q, size_t ri, sqlite3 *db, const char *name)
{
	const tl_rank *r = tlq_trace(q)->ranks[ri];
	tl_u64map cann, op, nk;
	/* each task's launch call, and the innermost PyTorch row behind it */
	sql_map(db,
	        "SELECT t.rowid, a.rowid FROM TASK t JOIN CANN_API a ON a.connectionId = "
	        "t.connectionId",
	        &cann);
	sql_map(db,
	        "SELECT t.rowid, (SELECT p.rowid FROM CONNECTION_IDS c JOIN PYTORCH_API p ON "
	        "p.connectionId = c.id WHERE c.connectionId = t.connectionId ORDER BY p.type = "
	        "50001 DESC, CAST(p.startNs AS INTEGER) DESC, CAST(p.endNs AS INTEGER) ASC LIMIT "
	        "1) AS o FROM TASK t WHERE o IS NOT NULL",
	        &op);
	/* an operator's device work on the lanes: its tasks but FFTS+ containers (a row
	 * without context whose stream and task id have rows with one: hidden, as msprof does)
	 * and HCCL sub-tasks, whose collective's COMMUNICATION_OP row stands for them */
	sql_map(db,
	        "WITH k AS (SELECT c.id AS id FROM CONNECTION_IDS c JOIN TASK t ON "
	        "t.connectionId = c.connectionId WHERE t.globalTaskId NOT IN (SELECT "
	        "globalTaskId FROM COMMUNICATION_TASK_INFO) AND NOT (t.contextId = 4294967295 AND "
	        "EXISTS (SELECT 1 FROM TASK x WHERE x.deviceId = t.deviceId AND x.streamId = "
	        "t.streamId AND x.taskId = t.taskId AND x.contextId <> 4294967295)) UNION ALL "
	        "SELECT c.id FROM CONNECTION_IDS c JOIN COMMUNICATION_OP o ON o.connectionId = "
	        "c.connectionId) SELECT p.rowid, count(*) FROM PYTORCH_API p JOIN k ON k.id = "
	        "p.connectionId GROUP BY p.rowid",
	        &nk);
	size_t tasks = 0, bad_call = 0, bad_op = 0, with_call = 0, want_call = 0;
	size_t ops = 0, bad_k = 0, kernels = 0;
	/* the track list changes once the host lanes are read: walk a copy of the device
	 * tracks */
	size_t nt = r->ntracks;
	const tl_track **dev = xreallocarray(NULL, nt ? nt : 1, sizeof *dev);
	size_t nd = 0;
	for (size_t i = 0; i < nt; i++)
		if (is_task_lane(r->tracks[i]->kind))
			dev[nd++] = r->tracks[i];
	for (size_t i = 0; i < nd; i++) {
		const tl_track *t = dev[i];
		for (size_t k = 0; k < t->n; k += 7) { /* a DB open each: every 7th */
			tlq_slice_pos *v;
			ptrdiff_t n = tlq_links(q, ri, t, k, TL_LINK_LAUNCHER, &v, NULL);
			uint32_t want_a, want_p;
			int has_a = u64map_get(&cann, track_arg(t, k), &want_a);
			int has_p = u64map_get(&op, track_arg(t, k), &want_p);
			tasks++;
			want_call += has_a;
			if (n >= 1) {
				const tl_track *x = r->tracks[v[0].track];
				with_call++;
				if (!has_a || x->kind != TL_LANE_HOST ||
				    !(x->key & TL_HOST_KEY_CANN) ||
				    track_arg(x, v[0].idx) != want_a)
					bad_call++;
			} else if (has_a)
				bad_call++;
			if (n >= 2) {
				const tl_track *x = r->tracks[v[1].track];
				if (!has_p || (x->key & TL_HOST_KEY_CANN) ||
				    track_arg(x, v[1].idx) != want_p)
					bad_op++;
			} else if (has_p && has_a)
				bad_op++;
			free(v);
		}
	}
	free(dev);
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN))
			continue;
		for (size_t k = 0; k < t->n; k++) {
			uint32_t want;
			if (!u64map_get(&nk, track_arg(t, k), &want) || ops++ % 5 != 0)
				continue;
			tlq_slice_pos *v;
			size_t named;
			ptrdiff_t n = tlq_links(q, ri, t, k, TL_LINK_KERNELS, &v, &named);
			kernels += n > 0 ? (size_t)n : 0;
			int sorted = 1;
			for (ptrdiff_t j = 0; j < n; j++) {
				const tl_track *x = r->tracks[v[j].track];
				if (!is_device_lane(x->kind))
					sorted = 0;
				if (j > 0 && x->v[v[j].idx].start <
				                 r->tracks[v[j - 1].track]->v[v[j - 1].idx].start)
					sorted = 0;
			}
			if (n != (ptrdiff_t)want || named < want || !sorted) {
				bad_k++;
				printf("# op row %u: %td found, %zu named, %u in SQL\n",
				       track_arg(t, k), n, named, want);
			}
			free(v);
		}
	}
	CHECK(tasks > 50 && with_call == want_call && bad_call == 0,
	      "%s: %zu tasks: the launch call found is the CANN_API row of the task's "
	      "connectionId (%zu found, %zu in SQL, %zu differ)",
	      name, tasks, with_call, want_call, bad_call);
	CHECK(bad_op == 0,
	      "%s: then the operator is SQL's innermost PYTORCH_API row behind it (%zu differ)",
	      name, bad_op);
	CHECK(ops > 20 && kernels > 20 && bad_k == 0,
	      "%s: %zu operators' kernels equal the CONNECTION_IDS join, on device lanes, by start "
	      "(%zu kernels, %zu differ)",
	      name, ops / 5, kernels, bad_k);
	u64map_free(&cann);
	u64map_free(&op);
	u64map_free(&nk);
}

/* y: every operator pair the DB has (two operator rows with an autograd sequence number
 * sharing a CONNECTION_IDS connectionId, on two threads) leads from one to the other. */
static void
check_db_pairs(const tl_query *q, size_t ri, sqlite3 *db, const char *name)
{
	const tl_rank *r = tlq_trace(q)->ranks[ri];
	sqlite3_stmt *st;
	const char *sql =
	    "SELECT a.rowid, b.rowid FROM CONNECTION_IDS ca JOIN PYTORCH_API a ON a.connectionId = "
	    "ca.id JOIN CONNECTION_IDS cb ON cb.connectionId = ca.connectionId AND cb.id <> ca.id "
	    "JOIN PYTORCH_API b ON b.connectionId = cb.id WHERE a.type = 50001 AND b.type = 50001 "
	    "AND a.sequenceNumber >= 0 AND b.sequenceNumber >= 0 AND a.globalTid <> b.globalTid "
	    "AND CAST(a.startNs AS INTEGER) < CAST(b.startNs AS INTEGER) AND ca.connectionId IN "
	    "(SELECT c.connectionId FROM CONNECTION_IDS c JOIN PYTORCH_API p ON p.connectionId = "
	    "c.id WHERE p.type = 50001 AND p.sequenceNumber >= 0 GROUP BY c.connectionId HAVING "
	    "count(*) = 2)";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		CHECK(0, "%s: the pair query prepares", name);
		return;
	}
	tl_u64map fwd; /* forward rowid -> backward rowid */
	u64map_init(&fwd);
	size_t want = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		u64map_put(&fwd, (uint64_t)sqlite3_column_int64(st, 0),
		           (uint32_t)sqlite3_column_int64(st, 1));
		want++;
	}
	sqlite3_finalize(st);
	size_t got = 0, bad = 0, back = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN))
			continue;
		for (size_t k = 0; k < t->n; k++) {
			uint32_t b;
			if (!u64map_get(&fwd, track_arg(t, k), &b))
				continue;
			tlq_slice_pos p, p2;
			if (!tlq_fwdbwd_partner(q, ri, t, k, &p, NULL)) {
				bad++;
				continue;
			}
			got++;
			const tl_track *x = r->tracks[p.track];
			if (track_arg(x, p.idx) != b)
				bad++;
			if (tlq_fwdbwd_partner(q, ri, x, p.idx, &p2, NULL) && p2.track == i &&
			    p2.idx == k)
				back++;
		}
	}
	CHECK(want > 10 && got == want && bad == 0,
	      "%s: y leads each of SQL's %zu forward operators to its backward one (%zu found, "
	      "%zu differ)",
	      name, want, got, bad);
	CHECK_EQ_I64(back, got, "... and y again leads back");
	u64map_free(&fwd);
}

static void
check_db_samples(const char *level)
{
	char base[4200];
	tl_trace tr;
	if (test_load_sample_db(level, &tr, base, sizeof base) != 0)
		return;
	tl_query *q = tlq_open(&tr, NULL);
	for (size_t i = 0; i < tr.nranks; i++) {
		char path[4400], name[64];
		int rank = tr.ranks[i]->rank;
		snprintf(path, sizeof path,
		         "file:%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
		         "ascend_pytorch_profiler_%d.db?immutable=1",
		         base, rank, rank);
		snprintf(name, sizeof name, "%s rank %d", level, rank);
		sqlite3 *db = NULL;
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) !=
		    SQLITE_OK) {
			CHECK(0, "%s: open the sample with sqlite3", name);
			sqlite3_close(db);
			continue;
		}
		check_db_rank(q, i, db, name);
		check_db_pairs(q, i, db, name);
		/* the range statistics' host-bound time over the whole one-step capture is the
		 * step's (test_host holds that one to SQL) */
		tl_launch_step *ls;
		size_t nls = tlq_launch_steps(tr.ranks[i], &ls);
		tl_host_idle hi;
		CHECK(nls == 1 && tlq_host_idle(q, i, INT64_MIN, INT64_MAX, &hi) == 0 &&
		          hi.idle == ls[0].idle && hi.idle_host == ls[0].idle_host,
		      "%s: a range over the capture is as host bound as its one step (%" PRId64
		      " of %" PRId64 " ns idle)",
		      name, hi.idle_host, hi.idle);
		free(ls);
		sqlite3_close(db);
	}
	tlq_close(q);
	trace_free(&tr);
}

/* ---- real JSON traces: the flows counted in the text ---------------------------------- */

typedef struct flow_count {
	size_t ends_with_start; /* "f" events of cat whose id has an "s" */
	size_t starts;
} flow_count;

/* The value of "key": in the object [a, b) (a string's text or a number's), or "". */
static void
obj_field(const char *a, const char *b, const char *key, char *out, size_t len)
{
	out[0] = '\0';
	char pat[40];
	snprintf(pat, sizeof pat, "\"%s\":", key);
	const char *p = a;
	size_t pl = strlen(pat);
	while (p + pl <= b && memcmp(p, pat, pl) != 0)
		p++;
	if (p + pl > b)
		return;
	p += pl;
	while (p < b && *p == ' ')
		p++;
	if (p < b && *p == '"')
		p++;
	size_t n = 0;
	while (p < b && *p != '"' && *p != ',' && *p != '}' && n + 1 < len)
		out[n++] = *p++;
	out[n] = '\0';
}

/* Counts the flow events of category cat: every object holding "cat": "<cat>" (flow events
 * carry no nested object, so the braces around the match delimit it). */
static flow_count
count_flows(const char *path, const char *cat)
{
	flow_count fc = {0, 0};
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return fc;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = xmalloc((size_t)len + 1);
	size_t got = fread(buf, 1, (size_t)len, f);
	buf[got] = '\0';
	fclose(f);
	char pat[64];
	snprintf(pat, sizeof pat, "\"cat\": \"%s\"", cat);
	char **sid = NULL, **fid = NULL;
	size_t ns = 0, nf = 0, cs = 0, cf = 0;
	for (char *p = strstr(buf, pat); p != NULL; p = strstr(p + 1, pat)) {
		char *a = p, *b = p;
		while (a > buf && *a != '{')
			a--;
		while (*b && *b != '}')
			b++;
		char ph[8], id[64];
		obj_field(a, b, "ph", ph, sizeof ph);
		obj_field(a, b, "id", id, sizeof id);
		if (strcmp(ph, "s") == 0) {
			char *x = xstrdup(id);
			VEC_PUSH(sid, ns, cs, x);
		} else if (strcmp(ph, "f") == 0) {
			char *x = xstrdup(id);
			VEC_PUSH(fid, nf, cf, x);
		}
	}
	fc.starts = ns;
	for (size_t i = 0; i < nf; i++) {
		for (size_t j = 0; j < ns; j++)
			if (strcmp(fid[i], sid[j]) == 0) {
				fc.ends_with_start++;
				break;
			}
		free(fid[i]);
	}
	for (size_t j = 0; j < ns; j++)
		free(sid[j]);
	free(sid);
	free(fid);
	free(buf);
	return fc;
}

/* Kineto without ac2g flows: the device events (kernel, gpu_memcpy, gpu_memset) whose
 * "correlation" a runtime call (cuda_runtime, cuda_driver) carries too, counted in the text:
 * each event runs from its '{"ph"' to the "}}" closing its args. */
static size_t
count_correlated(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return 0;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = xmalloc((size_t)len + 1);
	size_t got = fread(buf, 1, (size_t)len, f);
	buf[got] = '\0';
	fclose(f);
	tl_u64map host;
	u64map_init(&host);
	int64_t *dev = NULL;
	size_t nd = 0, cd = 0;
	for (char *p = strstr(buf, "{\"ph\""); p != NULL; p = strstr(p + 1, "{\"ph\"")) {
		char *e = strstr(p, "}}");
		if (e == NULL)
			break;
		char cat[32], corr[32];
		obj_field(p, e + 1, "cat", cat, sizeof cat);
		obj_field(p, e + 1, "correlation", corr, sizeof corr);
		if (corr[0] == '\0')
			continue;
		int64_t v = strtoll(corr, NULL, 10);
		if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0)
			u64map_put(&host, (uint64_t)v, 1);
		else if (strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memcpy") == 0 ||
		         strcmp(cat, "gpu_memset") == 0)
			VEC_PUSH(dev, nd, cd, v);
	}
	size_t n = 0;
	for (size_t i = 0; i < nd; i++)
		n += u64map_get(&host, (uint64_t)dev[i], NULL);
	u64map_free(&host);
	free(dev);
	free(buf);
	return n;
}

/* Device slices with a launcher and with an operator behind it. */
static void
count_linked(const tl_query *q, size_t ri, size_t *calls, size_t *ops)
{
	const tl_rank *r = tlq_trace(q)->ranks[ri];
	*calls = *ops = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (!is_device_lane(t->kind))
			continue;
		for (size_t k = 0; k < t->n; k++) {
			tlq_slice_pos *v;
			ptrdiff_t n = tlq_links(q, ri, t, k, TL_LINK_LAUNCHER, &v, NULL);
			*calls += n >= 1;
			*ops += n >= 2;
			free(v);
		}
	}
}

static void
check_json_file(const char *path, const char *launch_cat, int ops_by_flow, const char *name)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		SKIP("sample absent: %s", path);
		return;
	}
	flow_count fl = count_flows(path, launch_cat);
	if (launch_cat[0] == '\0')
		fl.ends_with_start = count_correlated(path);
	flow_count fo = ops_by_flow ? count_flows(path, "async_npu") : (flow_count){0, 0};
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(path, &lo, &tr) == 0, "%s: load", name);
	tl_query *q = tlq_open(&tr, NULL);
	size_t calls = 0, ops = 0;
	for (size_t i = 0; i < tr.nranks; i++) {
		size_t c, o;
		count_linked(q, i, &c, &o);
		calls += c;
		ops += o;
	}
	CHECK(fl.ends_with_start > 20 && calls == fl.ends_with_start,
	      "%s: device slices with a launch call = the %s in the text (%zu, %zu)", name,
	      launch_cat[0] ? launch_cat : "correlations shared with a runtime call", calls,
	      fl.ends_with_start);
	if (ops_by_flow)
		CHECK(ops == fo.ends_with_start,
		      "%s: device slices with an operator = the async_npu flow ends with a start "
		      "(%zu, %zu)",
		      name, ops, fo.ends_with_start);
	else
		CHECK(ops > 0 && ops <= calls,
		      "%s: the launch calls' operators are found around them (%zu of %zu)", name,
		      ops, calls);
	tlq_close(q);
	trace_free(&tr);
}

/* ---- the same generated capture as a DB and as its trace_view.json ---------------------- */

/* The launcher chain of slice k of t as (call start, operator start), INT64_MIN when absent */
static void
chain(const tl_query *q, size_t ri, const tl_track *t, size_t k, int64_t out[2])
{
	const tl_rank *r = tlq_trace(q)->ranks[ri];
	out[0] = out[1] = INT64_MIN;
	tlq_slice_pos *v;
	ptrdiff_t n = tlq_links(q, ri, t, k, TL_LINK_LAUNCHER, &v, NULL);
	for (ptrdiff_t i = 0; i < n && i < 2; i++)
		out[i] = r->tracks[v[i].track]->v[v[i].idx].start;
	free(v);
}

static void
check_db_vs_json(void)
{
	char dir[] = "/tmp/tl-test-links-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 1;
	o.nsteps = 2;
	o.tasks_per_rank = 1500;
	o.slow_rank = -1;
	o.seed = 21;
	o.host_ops = 1;
	o.launch_jitter = 1;
	char *prof = xasprintf("%s/db", dir);
	CHECK(gen_profile(&o, prof, NULL) == 0, "generate a DB profile with host operators");
	char *db = NULL;
	{
		char cmd[600];
		snprintf(cmd, sizeof cmd, "ls %s/*/ASCEND_PROFILER_OUTPUT/*.db", prof);
		FILE *p = popen(cmd, "r");
		char line[500];
		if (p && fgets(line, sizeof line, p)) {
			line[strcspn(line, "\n")] = '\0';
			db = xstrdup(line);
		}
		if (p)
			pclose(p);
	}
	char *jdir = xasprintf("%s/json", dir);
	char *js = xasprintf("%s/trace_view.json", jdir);
	mkdir(jdir, 0755);
	CHECK(db != NULL && gen_json_from_db(db, js) == 0, "write its trace_view.json");
	tl_trace a, b;
	tl_load_opts lo = {.quiet_progress = 1};
	int la = load_trace(db ? db : prof, &lo, &a), lb = load_trace(js, &lo, &b);
	CHECK(la == 0 && lb == 0 && a.nranks == 1 && b.nranks == 1, "load both");
	if (la != 0 || lb != 0 || a.nranks != 1 || b.nranks != 1)
		goto out;
	tl_query *qa = tlq_open(&a, NULL), *qb = tlq_open(&b, NULL);
	tlq_host_lanes(qa);
	const tl_rank *ra = a.ranks[0], *rb = b.ranks[0];
	size_t checked = 0, bad = 0, with_op = 0;
	for (size_t i = 0; i < ra->ntracks; i++) {
		const tl_track *t = ra->tracks[i];
		if (t->kind != TL_LANE_COMPUTE && t->kind != TL_LANE_COMM)
			continue;
		for (size_t k = 0; k < t->n; k += 5) {
			/* the same slice in the JSON trace: same kind, same start */
			const tl_track *u = NULL;
			size_t ui = 0;
			for (size_t j = 0; j < rb->ntracks && u == NULL; j++) {
				const tl_track *x = rb->tracks[j];
				if (x->kind != t->kind)
					continue;
				size_t m = track_first_starting_at(x, t->v[k].start);
				if (m < x->n && x->v[m].start == t->v[k].start) {
					u = x;
					ui = m;
				}
			}
			int64_t ca[2], cb[2];
			chain(qa, 0, t, k, ca);
			if (u != NULL)
				chain(qb, 0, u, ui, cb);
			checked++;
			with_op += ca[1] != INT64_MIN;
			if (u == NULL || ca[0] != cb[0] || ca[1] != cb[1])
				bad++;
		}
	}
	CHECK(checked > 50 && with_op > 50 && bad == 0,
	      "the DB and its trace_view.json name the same launch call and operator for each of "
	      "%zu device slices (%zu with an operator, %zu differ)",
	      checked, with_op, bad);
	/* and each operator the same kernels */
	size_t ops = 0, kbad = 0;
	for (size_t i = 0; i < ra->ntracks; i++) {
		const tl_track *t = ra->tracks[i];
		if (t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN))
			continue;
		for (size_t k = 0; k < t->n; k += 9) {
			tlq_slice_pos *va, *vb = NULL;
			ptrdiff_t na = tlq_links(qa, 0, t, k, TL_LINK_KERNELS, &va, NULL), nb = -1;
			for (size_t j = 0; j < rb->ntracks && nb < 0; j++) {
				const tl_track *x = rb->tracks[j];
				if (x->kind != TL_LANE_HOST)
					continue;
				size_t m = track_first_starting_at(x, t->v[k].start);
				if (m < x->n && x->v[m].start == t->v[k].start &&
				    track_end(x, m) == track_end(t, k))
					nb = tlq_links(qb, 0, x, m, TL_LINK_KERNELS, &vb, NULL);
			}
			ops++;
			if (na != nb) {
				kbad++;
				printf("# op %s: %td kernels in the DB, %td in JSON\n",
				       strpool_get(ra->pool, t->v[k].name), na, nb);
			}
			for (ptrdiff_t j = 0; j < na && na == nb; j++)
				if (ra->tracks[va[j].track]->v[va[j].idx].start !=
				    rb->tracks[vb[j].track]->v[vb[j].idx].start)
					kbad++;
			free(va);
			free(vb);
		}
	}
	CHECK(ops > 20 && kbad == 0,
	      "... and the same kernels for each of %zu operators (%zu differ)", ops, kbad);
	tlq_close(qa);
	tlq_close(qb);
	trace_free(&a);
	trace_free(&b);
out:
	free(db);
	free(js);
	free(jdir);
	free(prof);
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- damaged inputs: what is linked, and no crash ---------------------------------------- */

/* The slice of r on a lane of kind (any key) starting at t, or 0. */
static int
slice_at(const tl_rank *r, tl_lane_kind kind, int64_t t, const tl_track **ot, size_t *oi)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *x = r->tracks[i];
		if (x->kind != kind)
			continue;
		size_t k = track_first_starting_at(x, t);
		if (k < x->n && x->v[k].start == t) {
			*ot = x;
			*oi = k;
			return 1;
		}
	}
	return 0;
}

static ptrdiff_t
links_of(const tl_query *q, const tl_track *t, size_t k, tl_link_dir dir, size_t *named)
{
	tlq_slice_pos *v;
	ptrdiff_t n = tlq_links(q, 0, t, k, dir, &v, named);
	free(v);
	return n;
}

static void
check_bad_inputs(void)
{
	char dir[] = "/tmp/tl-test-links-bad-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	/* a DB whose TASK and CONNECTION_IDS name launches CANN_API lacks */
	char *d1 = xasprintf("%s/bad_ascend_pt", dir),
	     *d2 = xasprintf("%s/ASCEND_PROFILER_OUTPUT", d1);
	char *db = xasprintf("%s/ascend_pytorch_profiler_0.db", d2);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	sqlite3 *h;
	CHECK(sqlite3_open(db, &h) == SQLITE_OK &&
	          sqlite3_exec(h, HOST_BAD_SQL, NULL, NULL, NULL) == SQLITE_OK,
	      "write the damaged host DB");
	sqlite3_close(h);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(dir, &lo, &tr) == 0 && tr.nranks == 1) {
		tl_query *q = tlq_open(&tr, NULL);
		tlq_host_lanes(q);
		const tl_rank *r = tr.ranks[0];
		const tl_track *t;
		size_t k, named;
		CHECK(slice_at(r, TL_LANE_COMPUTE, 150, &t, &k) &&
		          links_of(q, t, k, TL_LINK_LAUNCHER, NULL) == 2,
		      "a task whose launch and operator exist: both found");
		CHECK(slice_at(r, TL_LANE_COMPUTE, 400, &t, &k) &&
		          links_of(q, t, k, TL_LINK_LAUNCHER, &named) == 0 && named == 0,
		      "a task whose connectionId no CANN_API row has: no launcher, no crash");
		CHECK(slice_at(r, TL_LANE_COMPUTE, 250, &t, &k) &&
		          links_of(q, t, k, TL_LINK_LAUNCHER, &named) == 0 && named == 1,
		      "a task whose launch call has no usable time: named, not on the lanes");
		CHECK(
		    slice_at(r, TL_LANE_HOST, 90, &t, &k) &&
		        links_of(q, t, k, TL_LINK_KERNELS, NULL) == 3,
		    "the operator linked to three launches (one of them dangling) has their three "
		    "tasks");
		tlq_slice_pos p;
		const char *why = NULL;
		CHECK(!tlq_fwdbwd_partner(q, 0, t, k, &p, &why) && why != NULL,
		      "no operator pairs: y says why (%s)", why ? why : "");
		tl_host_idle hi;
		CHECK(tlq_host_idle(q, 0, INT64_MIN, INT64_MAX, &hi) == 0 && hi.idle >= 0 &&
		          hi.idle_host >= 0 && hi.idle_host <= hi.idle,
		      "host-bound idle time of the damaged DB is within its idle time");
		tlq_close(q);
		trace_free(&tr);
	} else
		CHECK(0, "load the damaged host DB");
	/* a trace_view.json with broken flows */
	char *js = xasprintf("%s/trace_view.json", dir);
	FILE *f = fopen(js, "w");
	if (f != NULL) {
		fputs(FLOWS_BAD_JSON, f);
		fclose(f);
	}
	unsigned w0 = msg_warn_count();
	if (load_trace(js, &lo, &tr) == 0 && tr.nranks == 1) {
		tl_query *q = tlq_open(&tr, NULL);
		const tl_rank *r = tr.ranks[0];
		const tl_track *t;
		size_t k, named;
		CHECK(slice_at(r, TL_LANE_COMPUTE, 200000, &t, &k) &&
		          links_of(q, t, k, TL_LINK_LAUNCHER, NULL) == 2,
		      "the task with both flows: its launch call and operator");
		CHECK(slice_at(r, TL_LANE_COMPUTE, 300000, &t, &k) &&
		          links_of(q, t, k, TL_LINK_LAUNCHER, &named) == 0 && named == 0,
		      "the task whose flow has no start (and one without an id): nothing");
		CHECK(slice_at(r, TL_LANE_HOST, 110000, &t, &k) &&
		          links_of(q, t, k, TL_LINK_KERNELS, &named) == 1 && named == 2,
		      "the launch call: its one kernel found, the flow ending where no slice is "
		      "named but not found");
		CHECK(slice_at(r, TL_LANE_HOST, 110000, &t, &k) &&
		          links_of(q, t, k, TL_LINK_LAUNCHER, NULL) == 1,
		      "... and the operator behind it");
		tlq_close(q);
		trace_free(&tr);
		CHECK(msg_warn_count() - w0 >= 1, "the unreadable flow time is reported (%u lines)",
		      msg_warn_count() - w0);
	} else
		CHECK(0, "load the trace with broken flows");
	free(js);
	free(db);
	free(d2);
	free(d1);
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int
main(void)
{
	msg_set_quiet(1);
	check_db_samples("level0");
	check_db_samples("level2");
	char p[4200];
	for (int r = 0; r < 2; r++) {
		char name[64];
		snprintf(p, sizeof p,
		         "%.4000s/ascend-text/level1/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
		         "trace_view.json",
		         test_samples_dir(), r);
		snprintf(name, sizeof name, "trace_view rank %d", r);
		check_json_file(p, "HostToDevice", 1, name);
	}
	snprintf(p, sizeof p,
	         "%.4000s/kineto/critical_path__simple_add__benchmark_result_493459_1694039959_"
	         "trace.json",
	         test_samples_dir());
	check_json_file(p, "ac2g", 0, "kineto critical_path");
	for (int r = 0; r < 2; r++) {
		char name[64];
		snprintf(p, sizeof p, "%.4000s/kineto/trace_filter__sampled_rank-%d.json",
		         test_samples_dir(), r);
		snprintf(name, sizeof name, "kineto trace_filter rank %d (no flows)", r);
		check_json_file(p, "", 0, name);
	}
	check_db_vs_json();
	check_bad_inputs();
	return test_done();
}
