/* The Chrome-trace JSON loader (src/load/json/: trace_json.c and json_*.c) on input written here:
 * exact times, track identity, B/E pairs, args, flows and steps, legacy arrays and user ranges,
 * Kineto device categories, and bad input (one line naming the file and the byte offset each).
 * The real samples and the generator's JSON are test_json_samples.c's. */
#include "config.h"

#include <cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/strpool.h"
#include "util/xalloc.h"
#include "../test.h"
#include "json_test.h"

/* ---- exact times ----------------------------------------------------------------------------- */

static void
test_exact_times(void)
{
	/* The metadata comes after the event that uses the pid (as in torch_npu's files). At
	 * 1.7e15 µs a double has a step of 0.25 µs: .091 µs would not survive it. */
	static const char tv[] =
	    "[{\"ph\": \"X\", \"name\": \"k\", \"pid\": 77, \"tid\": 3, \"ts\": "
	    "\"1736408883694756.091\", "
	    "\"dur\": 840.07675, \"args\": {\"Task Type\": \"AI_CORE\", \"Physic Stream Id\": 3, "
	    "\"Task Id\": 1, \"Subtask Id\": 4294967295}},\n"
	    " {\"ph\": \"X\", \"name\": \"e\", \"pid\": 77, \"tid\": 3, \"ts\": "
	    "\"1736408883694757.000\", "
	    "\"dur\": 0.0005, \"args\": {\"Task Type\": \"EVENT_WAIT_SQE\"}},\n"
	    " {\"ph\": \"X\", \"name\": \"x\", \"pid\": 77, \"tid\": 3, \"ts\": "
	    "1.7364088836957581e15, "
	    "\"dur\": 1e-3, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
	    " {\"name\": \"process_name\", \"pid\": 77, \"tid\": 0, \"args\": {\"name\": \"Ascend "
	    "Hardware\"}, "
	    "\"ph\": \"M\"},\n"
	    " {\"name\": \"thread_name\", \"pid\": 77, \"tid\": 3, \"args\": {\"name\": \"Stream "
	    "3\"}, "
	    "\"ph\": \"M\"}]\n";
	char *p = write_tmp("exact_trace_view.json", tv, sizeof tv - 1);
	loaded l;
	load_file(&l, p, TL_SRC_TRACE_VIEW, 0);
	CHECK(l.rc == 0 && l.nlines == 0, "a small trace_view.json loads without a warning (%s)",
	      l.err);
	tl_item s;
	int have = first_slice(l.r, TL_LANE_COMPUTE, &s);
	CHECK(have, "the kernel is compute, though its process is named after it");
	if (have) {
		CHECK_EQ_I64(s.start, INT64_C(1736408883694756091),
		             "ts \"…756.091\" is exact in ns");
		CHECK_EQ_I64(s.end - s.start, 840077, "dur 840.07675 µs rounds to 840077 ns");
	}
	have = first_slice(l.r, TL_LANE_OTHER, &s);
	CHECK(have && s.end - s.start == 1, "dur 0.0005 µs rounds half away from zero");
	CHECK_EQ_I64(lane_slices(l.r, TL_LANE_COMPUTE), 2, "a ts in exponent notation loads");
	if (l.r->ntracks > 0) {
		const tl_track *t = NULL;
		for (size_t i = 0; i < l.r->ntracks; i++)
			if (l.r->tracks[i]->kind == TL_LANE_COMPUTE)
				t = l.r->tracks[i];
		CHECK(t && t->n == 2 && t->v[1].start == INT64_C(1736408883695758100) &&
		          track_end(t, 1) == INT64_C(1736408883695758101),
		      "1.7364088836957581e15 µs is 1736408883695758100 ns exactly");
		CHECK_STR(t ? strpool_get(l.r->pool, t->label) : NULL, "Stream 3",
		          "the lane is named by thread_name");
	}
	int64_t oa[4];
	CHECK(trace_json_overlap_lengths(p, oa) == -1, "no Overlap Analysis process: -1");
	loaded_free(&l);
	free(p);

	/* Kineto: float µs relative to baseTimeNanoseconds, which comes after traceEvents */
	static const char kin[] =
	    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
	    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, "
	    "\"ts\": 4203669604595.407, \"dur\": 6.88, \"args\": {}},\n"
	    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclKernel_AllReduce\", \"pid\": 0, "
	    "\"tid\": 8, \"ts\": 4203669604590, \"dur\": 20, \"args\": {}},\n"
	    " {\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, "
	    "\"args\": {\"labels\": \"GPU 0\"}},\n"
	    " {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 7, "
	    "\"args\": {\"name\": \"stream 7 \"}}\n"
	    "], \"traceName\": \"x\", \"baseTimeNanoseconds\": 1735632360000000000}";
	p = write_tmp("kineto_rank-5.json", kin, sizeof kin - 1);
	load_file(&l, p, TL_SRC_KINETO, -1);
	CHECK(l.rc == 0 && l.nlines == 0, "a Kineto object loads (%s)", l.err);
	CHECK_EQ_I64(l.r->rank, 5, "rank from the file name (no distributedInfo)");
	have = first_slice(l.r, TL_LANE_COMPUTE, &s);
	CHECK(have && s.start == INT64_C(1735632360000000000) + INT64_C(4203669604595407) &&
	          s.end - s.start == 6880,
	      "ts relative to baseTimeNanoseconds, exact");
	CHECK_EQ_I64(lane_slices(l.r, TL_LANE_COMM), 1, "an NCCL kernel is communication");
	for (size_t i = 0; i < l.r->ntracks; i++)
		if (l.r->tracks[i]->kind == TL_LANE_COMPUTE)
			CHECK_STR(strpool_get(l.r->pool, l.r->tracks[i]->label), "stream 7",
			          "Kineto's padded thread name, trimmed");
	loaded_free(&l);
	free(p);
}

/* Chrome's duration events: a "B" and the "E" that closes it on the same thread are one slice
 * (nested pairs close innermost first); an "E" with nothing open and a "B" never closed are
 * said once, and the rest loads. */
static void
test_begin_end(void)
{
	static const char kin[] =
	    "{\"traceEvents\": [\n"
	    " {\"ph\": \"B\", \"cat\": \"kernel\", \"name\": \"outer\", \"pid\": 0, \"tid\": 7, "
	    "\"ts\": 100},\n"
	    " {\"ph\": \"B\", \"cat\": \"kernel\", \"name\": \"inner\", \"pid\": 0, \"tid\": 7, "
	    "\"ts\": 110.5},\n"
	    " {\"ph\": \"E\", \"pid\": 0, \"tid\": 7, \"ts\": 120},\n"
	    " {\"ph\": \"E\", \"pid\": 0, \"tid\": 7, \"ts\": 150},\n"
	    " {\"ph\": \"E\", \"pid\": 0, \"tid\": 7, \"ts\": 160},\n"
	    " {\"ph\": \"B\", \"cat\": \"user_annotation\", \"name\": \"update_actor\", "
	    "\"pid\": 1, \"tid\": 1, \"ts\": 90},\n"
	    " {\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": 200},\n"
	    " {\"ph\": \"B\", \"cat\": \"kernel\", \"name\": \"left_open\", \"pid\": 0, "
	    "\"tid\": 8, \"ts\": 300}\n"
	    "]}";
	char *p = write_tmp("be_rank-0.json", kin, sizeof kin - 1);
	loaded l;
	load_file(&l, p, TL_SRC_KINETO, -1);
	CHECK(l.rc == 0 && l.nlines == 1 && strstr(l.err, "without its \"E\"") &&
	          strstr(l.err, "2 such elements"),
	      "an unmatched E and an unclosed B: one line, counted (%s)", l.err);
	size_t nk = 0, ok = 0;
	for (size_t i = 0; i < l.r->ntracks; i++) {
		const tl_track *t = l.r->tracks[i];
		if (t->kind != TL_LANE_COMPUTE)
			continue;
		for (size_t k = 0; k < t->n; k++) {
			const char *nm = strpool_get(l.r->pool, t->v[k].name);
			nk++;
			ok += (strcmp(nm, "outer") == 0 && t->v[k].start == 100000 &&
			       track_end(t, k) == 150000) ||
			      (strcmp(nm, "inner") == 0 && t->v[k].start == 110500 &&
			       track_end(t, k) == 120000);
		}
	}
	CHECK(nk == 2 && ok == 2, "B/E pairs become slices, nested pairs close innermost first");
	tl_item m;
	CHECK(first_slice(l.r, TL_LANE_MSTX, &m) && m.start == 90000 && m.end == 200000 &&
	          strcmp(strpool_get(l.r->pool, m.name), "update_actor") == 0,
	      "a B/E user_annotation is a range like an X one");
	loaded_free(&l);
	free(p);
}

/* Walk 2 takes each "X" event's thread from walk 1 (one byte an event, five past 254 threads):
 * 300 threads, each with its named operators, between "B"/"E" pairs and counters whose thread
 * walk 2 finds itself, every slice on its own thread's lane. */
static void
test_many_threads(void)
{
	char *p = tmp_path("threads_rank-0.json");
	FILE *f = fopen(p, "w");
	fputs("{\"traceEvents\": [\n", f);
	int ev = 0;
	for (int r = 0; r < 3; r++)
		for (int tid = 1; tid <= 300; tid++) {
			int ts = 1000 * r + tid;
			fprintf(f,
			        "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", "
			        "\"pid\": 5, \"tid\": %d, \"ts\": %d, \"dur\": 0.5}",
			        ev++ ? ",\n" : "", tid, tid, ts);
			if (tid % 7 == 0)
				fprintf(
				    f,
				    ",\n{\"ph\": \"B\", \"cat\": \"cpu_op\", \"name\": "
				    "\"be%d\", \"pid\": 5, \"tid\": %d, \"ts\": %d.6},\n"
				    "{\"ph\": \"E\", \"pid\": 5, \"tid\": %d, \"ts\": %d.8},\n"
				    "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 5, \"tid\": 9, "
				    "\"ts\": %d, \"args\": {\"bytes\": %d}}",
				    tid, tid, ts, tid, ts, ts, ts);
		}
	fputs("\n]}\n", f);
	fclose(f);
	loaded l;
	load_file(&l, p, TL_SRC_KINETO, -1);
	CHECK(l.rc == 0 && l.nlines == 0, "300 threads load (%s)", l.err);
	size_t lanes = 0, slices = 0, own = 0;
	for (size_t i = 0; l.rc == 0 && i < l.r->ntracks; i++) {
		const tl_track *t = l.r->tracks[i];
		if (t->kind != TL_LANE_HOST)
			continue;
		lanes++;
		int tid = -1;
		for (size_t k = 0; k < t->n; k++) {
			const char *nm = strpool_get(l.r->pool, t->v[k].name);
			int x = atoi(nm + 2);
			if (k == 0)
				tid = x;
			slices++;
			own += x == tid && t->v[k].start / 1000 % 1000 == tid;
		}
	}
	CHECK(lanes >= 300 && slices == 900 + 3 * 42 && own == slices,
	      "every slice on its thread's lane (%zu lanes, %zu of %zu slices)", lanes, own,
	      slices);
	loaded_free(&l);
	free(p);
}

/* The detail pane's arguments of a JSON slice: its event is found again through the event
 * index (every 1024th event's offset) and read from the file, whatever its place in it. */
static void
arg_collect(void *ctx, const char *key, const char *value)
{
	char *out = ctx;
	size_t n = strlen(out);
	snprintf(out + n, 4096 - n, "%s=%s;", key, value);
}

static void
test_json_args(void)
{
	char *dir = tmp_path("args_trace");
	mkdir(dir, 0700);
	char *p = xasprintf("%s/kineto_rank-0.json", dir);
	FILE *f = fopen(p, "w");
	fputs("{\"traceEvents\": [\n", f);
	for (int i = 0; i < 3000; i++)
		fprintf(f,
		        "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, "
		        "\"tid\": 7, \"ts\": %d, \"dur\": 1, \"args\": {\"i\": %d, \"shape\": "
		        "\"[%d, 4]\", \"grid\": [1, 2]}}\n",
		        i ? "," : "", i, 10 * i, i, i);
	fputs("]}\n", f);
	fclose(f);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	int rc = load_trace(p, &lo, &tr);
	CHECK(rc == 0 && tr.nranks == 1, "3000 kernels load");
	const tl_track *t = NULL;
	for (size_t i = 0; rc == 0 && i < tr.ranks[0]->ntracks; i++)
		if (tr.ranks[0]->tracks[i]->kind == TL_LANE_COMPUTE)
			t = tr.ranks[0]->tracks[i];
	int ok = 0;
	static const int probe[] = {0, 1023, 1024, 2500, 2999};
	for (size_t k = 0; t && t->n == 3000 && k < sizeof probe / sizeof *probe; k++) {
		char got[4096] = "", want[256];
		int nf = tlq_slice_args(tr.ranks[0], t, (size_t)probe[k], arg_collect, got);
		snprintf(want, sizeof want,
		         "name=k%d;cat=kernel;ph=X;ts=%d;dur=1;pid=0;tid=7;i=%d;shape=[%d, "
		         "4];grid=[1,2];",
		         probe[k], 10 * probe[k], probe[k], probe[k]);
		if (nf == 10 && strcmp(got, want) == 0)
			ok++;
		else
			printf("# slice %d: %d fields: %s\n", probe[k], nf, got);
	}
	CHECK(ok == 5, "a JSON slice's event fields and args, read again from the file (5 of 5)");
	if (rc == 0)
		trace_free(&tr);
	free(p);
	free(dir);
}

/* Flow ids beyond 2^64 stay strings: two launches whose ids differ in the last digit put their
 * kernels into different steps (launch-time attribution, as the DB's connectionId join). */
static void
test_flows_and_steps(void)
{
	static const char tv[] =
	    "[{\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"pid\": 9, \"tid\": 9, "
	    "\"ts\": \"1000.000\", \"dur\": 100, \"cat\": \"cpu_op\"},\n"
	    " {\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"pid\": 9, \"tid\": 9, "
	    "\"ts\": \"1100.000\", \"dur\": 100, \"cat\": \"cpu_op\"},\n"
	    " {\"ph\": \"s\", \"name\": \"HostToDevice\", \"cat\": \"HostToDevice\", "
	    "\"id\": \"40004068119343529983\", \"pid\": 7, \"tid\": 1, \"ts\": \"1050.000\"},\n"
	    " {\"ph\": \"X\", \"name\": \"k1\", \"pid\": 77, \"tid\": 3, \"ts\": \"1150.000\", "
	    "\"dur\": 10, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
	    " {\"ph\": \"f\", \"name\": \"HostToDevice\", \"cat\": \"HostToDevice\", "
	    "\"id\": \"40004068119343529983\", \"pid\": 77, \"tid\": 3, \"ts\": \"1150.000\", "
	    "\"bp\": \"e\"},\n"
	    /* the f of k2 comes before its s */
	    " {\"ph\": \"f\", \"name\": \"HostToDevice\", \"cat\": \"HostToDevice\", "
	    "\"id\": \"40004068119343529984\", \"pid\": 77, \"tid\": 3, \"ts\": \"1180.000\", "
	    "\"bp\": \"e\"},\n"
	    " {\"ph\": \"X\", \"name\": \"k2\", \"pid\": 77, \"tid\": 3, \"ts\": \"1180.000\", "
	    "\"dur\": 10, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
	    " {\"ph\": \"s\", \"name\": \"HostToDevice\", \"cat\": \"HostToDevice\", "
	    "\"id\": \"40004068119343529984\", \"pid\": 7, \"tid\": 1, \"ts\": \"1120.000\"},\n"
	    " {\"ph\": \"X\", \"name\": \"k3\", \"pid\": 77, \"tid\": 3, \"ts\": \"1060.000\", "
	    "\"dur\": 10, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
	    /* the same digits with leading zeros are another id; ids need not be digits */
	    " {\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"0040004068119343529983\", "
	    "\"pid\": 7, \"tid\": 1, \"ts\": \"1130.000\"},\n"
	    " {\"ph\": \"X\", \"name\": \"k4\", \"pid\": 77, \"tid\": 3, \"ts\": \"1190.000\", "
	    "\"dur\": 1, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
	    " {\"ph\": \"f\", \"cat\": \"HostToDevice\", \"id\": \"0040004068119343529983\", "
	    "\"pid\": 77, \"tid\": 3, \"ts\": \"1190.000\", \"bp\": \"e\"},\n"
	    " {\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"launch-x\", "
	    "\"pid\": 7, \"tid\": 1, \"ts\": \"1040.000\"},\n"
	    " {\"ph\": \"X\", \"name\": \"k5\", \"pid\": 77, \"tid\": 3, \"ts\": \"1195.000\", "
	    "\"dur\": 1, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"
	    " {\"ph\": \"f\", \"cat\": \"HostToDevice\", \"id\": \"launch-x\", "
	    "\"pid\": 77, \"tid\": 3, \"ts\": \"1195.000\", \"bp\": \"e\"},\n"
	    " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 9, \"args\": {\"name\": "
	    "\"Python\"}},\n"
	    " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"args\": {\"name\": "
	    "\"CANN\"}},\n"
	    " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 77, "
	    "\"args\": {\"name\": \"Ascend Hardware\"}}]";
	char *p = write_tmp("flows_trace_view.json", tv, sizeof tv - 1);
	loaded l;
	load_file(&l, p, TL_SRC_TRACE_VIEW, 0);
	CHECK(l.rc == 0 && l.nlines == 0, "flows file loads (%s)", l.err);
	CHECK_EQ_I64(l.r->nsteps, 2, "two ProfilerStep ranges are two steps");
	const tl_track *t = NULL;
	for (size_t i = 0; i < l.r->ntracks; i++)
		if (l.r->tracks[i]->kind == TL_LANE_COMPUTE)
			t = l.r->tracks[i];
	CHECK(t != NULL && t->n == 5 && track_has_steps(t), "five tagged kernels");
	if (t != NULL && t->n == 5 && track_has_steps(t)) {
		CHECK_EQ_I64(track_step(t, 0), 0, "k3: no flow, its device start is in step 1");
		CHECK_EQ_I64(track_step(t, 1), 0,
		             "k1: runs in step 2, launched in step 1 (id …983)");
		CHECK_EQ_I64(track_step(t, 2), 1, "k2: launched in step 2 (id …984, f before s)");
		CHECK_EQ_I64(track_step(t, 3), 1, "k4: id 00…983 is not …983");
		CHECK_EQ_I64(track_step(t, 4), 0, "k5: a non-numeric id joins too");
	}
	loaded_free(&l);
	free(p);
}

/* Many flows whose ids are two ascending series interleaved (as Ascend's HostToDevice ids and
 * its HCCL ops' small ones): each end, met in an order of its own (blocks of ten reversed),
 * finds its start, whether the id is among those kept in order or in the table. */
static void
test_flows_interleaved(void)
{
	enum { N = 2000 };
	char *p = tmp_path("flows_mixed_trace_view.json");
	FILE *f = fopen(p, "w");
	fputs("[{\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"pid\": 9, \"tid\": 9, "
	      "\"ts\": \"1000.000\", \"dur\": 100, \"cat\": \"cpu_op\"},\n"
	      " {\"ph\": \"X\", \"name\": \"ProfilerStep#2\", \"pid\": 9, \"tid\": 9, "
	      "\"ts\": \"1100.000\", \"dur\": 100, \"cat\": \"cpu_op\"}",
	      f);
	char id[N][32];
	for (int i = 0; i < N; i++) {
		if (i % 5 == 0)
			snprintf(id[i], sizeof id[i], "%d", 1000 + i);
		else
			snprintf(id[i], sizeof id[i], "%lld", 4294967296000LL + i * 4294967296LL);
		fprintf(f,
		        ",\n {\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"%s\", "
		        "\"pid\": 7, \"tid\": 1, \"ts\": \"%s\"}",
		        id[i], i % 3 == 0 ? "1050.000" : "1150.000");
	}
	for (int b = 0; b < N; b += 10)
		for (int i = b + 9; i >= b; i--)
			fprintf(
			    f,
			    ",\n {\"ph\": \"X\", \"name\": \"k%d\", \"pid\": 77, \"tid\": 3, "
			    "\"ts\": \"%d.%03d\", \"dur\": 0.01, \"args\": {\"Task Type\": "
			    "\"AI_CORE\"}},\n {\"ph\": \"f\", \"cat\": \"HostToDevice\", \"id\": "
			    "\"%s\", \"pid\": 77, \"tid\": 3, \"ts\": \"%d.%03d\", \"bp\": \"e\"}",
			    i, 1100 + i * 40 / 1000, i * 40 % 1000, id[i], 1100 + i * 40 / 1000,
			    i * 40 % 1000);
	fputs(",\n {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 9, \"args\": "
	      "{\"name\": \"Python\"}},\n"
	      " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"args\": {\"name\": "
	      "\"CANN\"}},\n"
	      " {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 77, "
	      "\"args\": {\"name\": \"Ascend Hardware\"}}]\n",
	      f);
	fclose(f);
	loaded l;
	load_file(&l, p, TL_SRC_TRACE_VIEW, 0);
	CHECK(l.rc == 0 && l.nlines == 0, "the interleaved flows load (%s)", l.err);
	const tl_track *t = NULL;
	for (size_t i = 0; l.rc == 0 && i < l.r->ntracks; i++)
		if (l.r->tracks[i]->kind == TL_LANE_COMPUTE)
			t = l.r->tracks[i];
	int ok = 0;
	for (int i = 0; t != NULL && t->n == N && track_has_steps(t) && i < N; i++)
		ok += track_step(t, (size_t)i) == (i % 3 == 0 ? 0 : 1);
	CHECK_EQ_I64(ok, N, "every kernel in the step of its launch");
	loaded_free(&l);
	free(p);
}

/* The legacy exporter array: string pids, integer µs, no metadata; ranges that only partly
 * overlap (a torch isend until its wait) all stay. */
static void
test_legacy_and_overlaps(void)
{
	static const char tv[] =
	    "[{\"name\": \"aten::add\", \"ph\": \"X\", \"ts\": 100, \"dur\": 5, \"tid\": 1, "
	    "\"pid\": \"CPU functions\", \"args\": {}},\n"
	    " {\"name\": \"isend\", \"ph\": \"X\", \"ts\": 110, \"dur\": 50, \"tid\": 1, "
	    "\"pid\": \"CPU functions\", \"args\": {}},\n"
	    " {\"name\": \"step\", \"ph\": \"X\", \"ts\": 105, \"dur\": 20, \"tid\": 1, "
	    "\"pid\": \"CPU functions\", \"args\": {}},\n"
	    " {\"name\": \"wait\", \"ph\": \"X\", \"ts\": 150, \"dur\": 20, \"tid\": 1, "
	    "\"pid\": \"CPU functions\", \"args\": {}},\n"
	    " {\"name\": \"kern\", \"ph\": \"X\", \"ts\": 102, \"dur\": 2, \"tid\": 0, "
	    "\"pid\": \"CUDA functions\", \"args\": {}}]";
	char *p = write_tmp("legacy_rank3.json", tv, sizeof tv - 1);
	loaded l;
	load_file(&l, p, TL_SRC_KINETO, -1);
	CHECK(l.rc == 0 && l.nlines == 0, "the legacy exporter array loads (%s)", l.err);
	CHECK_EQ_I64(l.r->rank, 3, "its rank from the file name");
	CHECK_EQ_I64(lane_slices(l.r, TL_LANE_HOST), 4, "partly overlapping host ranges all kept");
	size_t levels = 0;
	for (size_t i = 0; i < l.r->ntracks; i++)
		levels += l.r->tracks[i]->kind == TL_LANE_HOST;
	CHECK(levels >= 2, "...on depth levels (%zu)", levels);
	CHECK_EQ_I64(lane_slices(l.r, TL_LANE_COMPUTE), 1, "\"CUDA functions\" are device work");
	tl_item s;
	CHECK(first_slice(l.r, TL_LANE_COMPUTE, &s) && s.start == 102000 && s.end == 104000,
	      "integer µs -> ns");
	loaded_free(&l);
	free(p);
}

/* torch's legacy exporter, a CPU-only job of two ranks: record_function ranges without a
 * category, gloo / c10d collectives. Rank r runs 50 us * r later from generate_sequences on;
 * every expected number below follows from the events written here. */
static void
test_legacy_user_ranges(void)
{
	char *dir = tmp_path("legacy-pp");
	mkdir(dir, 0700);
	for (int r = 0; r < 2; r++) {
		char *p = xasprintf("%s/legacy_rank%d.json", dir, r);
		FILE *f = fopen(p, "w");
		int off = 50 * r;
		struct {
			const char *name;
			int tid, ts, dur;
		} ev[] = {{"generate_sequences", 1, 0, 1000 + off},
		          {"aten::mm", 1, 100, 100},
		          {"compute_log_prob", 1, 1100 + off, 400},
		          {"update_actor", 1, 1600 + off, 1400},
		          {"forward_step", 1, 1600 + off, 200},
		          {"backward_step", 1, 1800 + off, 400},
		          {"forward_step", 1, 2200 + off, 200},
		          {"backward_step", 1, 2400 + off, 400},
		          {"c10d::allreduce_", 2, 2850 + off, 100},
		          {"gloo:all_reduce", 2, 2860 + off, 80},
		          {"gloo:broadcast", 2, 3100 + off, 50}};
		for (size_t i = 0; f && i < sizeof ev / sizeof *ev; i++)
			fprintf(f,
			        "%s{\"name\": \"%s\", \"ph\": \"X\", \"ts\": %d, \"dur\": %d, "
			        "\"tid\": %d, \"pid\": \"CPU functions\", \"args\": {}}",
			        i ? ",\n " : "[", ev[i].name, 1000 + ev[i].ts, ev[i].dur,
			        ev[i].tid);
		if (f) {
			fputs("]\n", f);
			fclose(f);
		}
		if (r == 0) {
			loaded l;
			load_file(&l, p, TL_SRC_KINETO, 0);
			int t1 = 0, t2 = 0;
			for (size_t i = 0; i < l.r->ntracks; i++) {
				const char *lb = strpool_get(l.r->pool, l.r->tracks[i]->label);
				t1 |= strcmp(lb, "CPU thread 1") == 0;
				t2 |= strcmp(lb, "CPU thread 2") == 0;
			}
			CHECK(t1 && t2, "legacy: host lanes named by thread (CPU thread 1, 2)");
			CHECK(l.r->host_only, "legacy: no device activity");
			loaded_free(&l);
		}
		free(p);
	}
	tl_query_opts ro = {.pp = 2};
	char *js = summary_json(dir, &ro);
	cJSON *j = js ? cJSON_Parse(js) : NULL;
	const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(j, "ranks"), *x;
	int nr = 0;
	cJSON_ArrayForEach(x, ranks)
	{
		const cJSON *da = cJSON_GetObjectItemCaseSensitive(x, "device_activity");
		const cJSON *st =
		    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(x, "steps"), 0);
		const cJSON *cm = cJSON_GetObjectItemCaseSensitive(st, "communication_ns");
		CHECK(cJSON_IsFalse(da) && cJSON_IsNumber(cm) && cm->valuedouble == 150000.0,
		      "legacy rank %d: \"device_activity\": false, host collectives 150 us "
		      "(c10d::allreduce_ over gloo:all_reduce, and gloo:broadcast)",
		      nr);
		nr++;
	}
	CHECK_EQ_I64(nr, 2, "legacy: two ranks");
	static const struct {
		int rank;
		const char *stage;
		int64_t start, end; /* ns */
	} want[] = {{0, "rollout", 1000000, 2000000},       {0, "actor_logprob", 2100000, 2500000},
	            {0, "actor_update", 2600000, 4000000},  {1, "rollout", 1000000, 2050000},
	            {1, "actor_logprob", 2150000, 2550000}, {1, "actor_update", 2650000, 4050000}};
	const cJSON *stages = cJSON_GetObjectItemCaseSensitive(j, "stages");
	CHECK_EQ_I64(cJSON_GetArraySize(stages), 6, "legacy: six stage ranges found by name");
	for (size_t i = 0; i < 6; i++) {
		const cJSON *e = cJSON_GetArrayItem(stages, (int)i);
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(e, "rank"),
		            *sn = cJSON_GetObjectItemCaseSensitive(e, "stage"),
		            *s0 = cJSON_GetObjectItemCaseSensitive(e, "start_ns"),
		            *s1 = cJSON_GetObjectItemCaseSensitive(e, "end_ns");
		CHECK(cJSON_IsNumber(rk) && rk->valueint == want[i].rank && cJSON_IsString(sn) &&
		          strcmp(sn->valuestring, want[i].stage) == 0 && cJSON_IsNumber(s0) &&
		          (int64_t)s0->valuedouble == want[i].start && cJSON_IsNumber(s1) &&
		          (int64_t)s1->valuedouble == want[i].end,
		      "legacy: rank %d %s from %" PRId64 " to %" PRId64 " ns", want[i].rank,
		      want[i].stage, want[i].start, want[i].end);
	}
	/* --pp 2: each rank a PP stage of F0 B0 F1 B1; span 2.60..3.85 ms, 1.20 ms of blocks */
	const cJSON *pp = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "pipeline"), 0);
	const cJSON *pst = cJSON_GetObjectItemCaseSensitive(pp, "stages");
	CHECK_EQ_I64(cJSON_GetArraySize(pst), 2, "legacy --pp 2: two PP stages");
	for (int k = 0; k < 2; k++) {
		const cJSON *ps = cJSON_GetArrayItem(pst, k);
		const cJSON *br = cJSON_GetObjectItemCaseSensitive(ps, "bubble_ratio");
		const cJSON *bl = cJSON_GetObjectItemCaseSensitive(ps, "blocks");
		CHECK(cJSON_GetArraySize(bl) == 4 && cJSON_IsNumber(br) &&
		          br->valuedouble > 0.0399 && br->valuedouble < 0.0401,
		      "legacy --pp 2: PP stage %d has 4 blocks and a bubble ratio of 0.05 / 1.25",
		      k);
	}
	cJSON_Delete(j);
	free(js);
	/* the text summary says so, instead of a row of zeros */
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(dir, &lo, &tr) == 0) {
		char *txt = NULL;
		size_t tn = 0;
		FILE *f = open_memstream(&txt, &tn);
		tl_query *q = tlq_open(&tr, NULL);
		report_summary_text(f, q);
		tlq_close(q);
		fclose(f);
		CHECK(strstr(txt, "     0        -  no device activity (a CPU-only trace); host "
		                  "collectives 0.150000 ms") != NULL,
		      "legacy: the text summary says no device activity, 0.15 ms of collectives");
		free(txt);
		trace_free(&tr);
	} else {
		CHECK(0, "legacy: load %s", dir);
	}
	free(dir);
}

/* ---- bad input ------------------------------------------------------------------------------- */

/* Loads text as path, expects exactly one warning line that names the file and contains `want`
 * (e.g. "byte 123"), and `keep` compute slices. */
static void
bad_case(const char *name, const char *text, size_t n, const char *want, size_t keep,
         const char *what)
{
	char *p = write_tmp(name, text, n);
	loaded l;
	load_file(&l, p, TL_SRC_TRACE_VIEW, 0);
	CHECK(l.nlines == 1 && strstr(l.err, p) != NULL && strstr(l.err, want) != NULL,
	      "%s: one line naming the file and \"%s\" (got: %s)", what, want, l.err);
	CHECK_EQ_I64(lane_slices(l.r, TL_LANE_COMPUTE), keep, "...and the events before are kept");
	loaded_free(&l);
	free(p);
}

#define EV(ts)                                                                                     \
	"{\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, \"tid\": 2, \"ts\": " ts ", \"dur\": 1, "    \
	"\"args\": {\"Task Type\": \"AI_CORE\"}}"
#define META                                                                                       \
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, "                     \
	"\"args\": {\"name\": \"Ascend Hardware\"}}"

static void
test_bad_input(void)
{
	char buf[512], want[64];

	/* cut in the middle of the third event */
	static const char whole[] =
	    "[" META ", " EV("\"1.000\"") ", " EV("\"2.000\"") ", " EV("\"3.000\"") "]";
	size_t off3 = (size_t)(strstr(whole, "\"3.000\"") - whole);
	while (whole[off3] != '{')
		off3--;
	snprintf(want, sizeof want, "byte %zu", off3);
	bad_case("cut.json", whole, off3 + 30, want, 2, "a file cut inside an event");
	snprintf(want, sizeof want, "byte %zu", sizeof whole - 2);
	bad_case("cut2.json", whole, sizeof whole - 2, want, 3,
	         "a file cut before the closing bracket");

	bad_case("scalar.json", " 42\n", 4, "byte 1", 0,
	         "a top level that is neither array nor object");
	bad_case("string.json", "\"[{}]\"", 6, "byte 0", 0, "a top level that is a string");
	bad_case("empty.json", "", 0, "empty", 0, "an empty file");

	snprintf(buf, sizeof buf,
	         "[%s, %s, {\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, \"dur\": 1}, %s]", META,
	         EV("\"1.000\""), EV("\"2.000\""));
	snprintf(
	    want, sizeof want, "byte %zu",
	    (size_t)(strstr(buf, "{\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, \"dur\"") - buf));
	bad_case("nots.json", buf, strlen(buf), want, 2, "an event without ts");

	snprintf(buf, sizeof buf, "[%s, %s, %s]", META, EV("\"abc\""), EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "\"abc\"") - buf));
	bad_case("tsstr.json", buf, strlen(buf), want, 1, "a ts that is not a number");

	snprintf(buf, sizeof buf, "[%s, %s, %s]", META, EV("NaN"), EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "NaN") - buf));
	bad_case("nan.json", buf, strlen(buf), want, 1, "a NaN ts");

	snprintf(buf, sizeof buf, "[%s, %s, %s]", META, EV("1e300"), EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "1e300") - buf));
	bad_case("huge.json", buf, strlen(buf), want, 1, "a huge ts");

	snprintf(buf, sizeof buf, "[%s, %s, %s]", META, EV("\"99999999999999999999.000\""),
	         EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "\"9999") - buf));
	bad_case("huge2.json", buf, strlen(buf), want, 1, "a ts beyond int64 ns");

	snprintf(buf, sizeof buf,
	         "[%s, {\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, \"tid\": 2, "
	         "\"ts\": \"1.0\", \"dur\": -5}, %s]",
	         META, EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "-5") - buf));
	bad_case("negdur.json", buf, strlen(buf), want, 1, "a negative dur");

	snprintf(buf, sizeof buf,
	         "[%s, {\"ph\": \"X\", \"name\": \"k\xff\xfe\", \"pid\": 1, "
	         "\"tid\": 2, \"ts\": \"1.0\", \"dur\": 1}, %s]",
	         META, EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "\xff") - buf));
	bad_case("utf8.json", buf, strlen(buf), want, 1, "invalid UTF-8 in a name");

	snprintf(buf, sizeof buf, "[%s, %s {\"x\": 1}, %s]", META, EV("\"1.000\""),
	         EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, " {\"x\"") - buf) + 1);
	bad_case("syntax.json", buf, strlen(buf), want, 1, "two events without a comma");

	snprintf(buf, sizeof buf, "[%s, %s, {\"ph\": \"X\" \"ts\": \"3.0\"}, %s]", META,
	         EV("\"1.000\""), EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, " \"ts\": \"3.0") - buf) + 1);
	bad_case("member.json", buf, strlen(buf), want, 2, "an event that is not valid JSON");

	snprintf(buf, sizeof buf, "[%s, %s, 17, %s]", META, EV("\"1.000\""), EV("\"2.000\""));
	snprintf(want, sizeof want, "byte %zu", (size_t)(strstr(buf, "17") - buf));
	bad_case("notobj.json", buf, strlen(buf), want, 2,
	         "an array element that is not an object");

	/* args nested 100000 deep: refused (never recursed into), the next event still loads */
	{
		size_t depth = 100000;
		size_t cap = 2 * depth + 1024, n = 0;
		char *t = xmalloc(cap);
		n += (size_t)snprintf(t + n, cap - n,
		                      "[%s, {\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, "
		                      "\"tid\": 2, \"ts\": \"1.0\", \"dur\": 1, \"args\": ",
		                      META);
		size_t args = n;
		for (size_t i = 0; i < depth; i++)
			t[n++] = '[';
		for (size_t i = 0; i < depth; i++)
			t[n++] = ']';
		n += (size_t)snprintf(t + n, cap - n, "}, %s]", EV("\"2.000\""));
		snprintf(want, sizeof want, "byte %zu", args + 63); /* level 65 */
		bad_case("deep.json", t, n, want, 1, "args nested 100000 levels deep");
		free(t);
	}

	/* a Kineto object cut inside traceEvents: what came before is kept */
	snprintf(buf, sizeof buf,
	         "{\"distributedInfo\": {\"rank\": 4}, \"traceEvents\": [%s, %s, %s", EV("1"),
	         EV("2"), "{\"ph\": \"X\", \"na");
	char *p = write_tmp("cut_kineto.json", buf, strlen(buf));
	loaded l;
	load_file(&l, p, TL_SRC_KINETO, -1);
	snprintf(want, sizeof want, "byte %zu", (size_t)(strrchr(buf, '{') - buf));
	CHECK(l.nlines == 1 && strstr(l.err, want) && strstr(l.err, p),
	      "a Kineto file cut inside traceEvents: one line with %s (%s)", want, l.err);
	CHECK(l.r->rank == 4 && lane_slices(l.r, TL_LANE_HOST) == 2,
	      "...its rank and the two events before are kept");
	loaded_free(&l);
	free(p);

	/* the other ranks still load: one good and one damaged file in a directory */
	char *dir = tmp_path("two");
	mkdir(dir, 0700);
	snprintf(buf, sizeof buf, "{\"distributedInfo\": {\"rank\": 0}, \"traceEvents\": [%s]}",
	         EV("1"));
	char *good = xasprintf("%s/rank0.json", dir), *bad = xasprintf("%s/rank1.json", dir);
	FILE *f = fopen(good, "w");
	fputs(buf, f);
	fclose(f);
	snprintf(buf, sizeof buf,
	         "{\"distributedInfo\": {\"rank\": 1}, \"traceEvents\": [%s, {\"ph", EV("1"));
	f = fopen(bad, "w");
	fputs(buf, f);
	fclose(f);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	msg_set_quiet(1);
	int rc = load_trace(dir, &lo, &tr);
	msg_set_quiet(0);
	CHECK(rc == 0 && tr.nranks == 2, "a damaged rank keeps what it had, the other loads (%zu)",
	      tr.nranks);
	trace_free(&tr);
	free(good);
	free(bad);
	free(dir);
}

/* ---- Kineto device categories beyond CUDA -------------------------------------------------- */

typedef struct kev {
	const char *cat, *name;
	int64_t ts, dur; /* us */
} kev;

/* A Kineto trace of device events on one stream (GPU or MTIA device 0, stream 7). */
static char *
write_kineto(const char *name, const kev *ev, size_t n)
{
	char *p = tmp_path(name);
	FILE *f = fopen(p, "w");
	if (f == NULL)
		return p;
	fputs("{\"schemaVersion\": 1, \"deviceProperties\": [], \"traceEvents\": [\n"
	      "{\"name\": \"process_labels\", \"ph\": \"M\", \"pid\": 0, \"tid\": 0, "
	      "\"args\": {\"labels\": \"GPU 0\"}},\n"
	      "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 0, \"tid\": 7, "
	      "\"args\": {\"name\": \"stream 7 \"}}",
	      f);
	for (size_t i = 0; i < n; i++)
		fprintf(f,
		        ",\n{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 0, "
		        "\"tid\": 7, \"ts\": %lld, \"dur\": %lld, \"args\": {\"device\": 0, "
		        "\"stream\": 7}}",
		        ev[i].cat, ev[i].name, (long long)(1000000 + ev[i].ts),
		        (long long)ev[i].dur);
	fputs("\n]}\n", f);
	fclose(f);
	return p;
}

/* Each device category as HolisticTraceAnalysis classifies it; computing = HTA's compute_time,
 * the union of the computation kernels, worked out by hand for each case. */
static void
test_kineto_device_categories(void)
{
	static const kev cuda[] = {{"kernel", "volta_sgemm_128x64_nn", 0, 100},
	                           {"kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 50, 100},
	                           {"kernel", "Memcpy DtoD (Device -> Device)", 160, 10},
	                           {"gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 170, 10},
	                           {"gpu_memset", "Memset (Device)", 180, 5},
	                           {"cuda_sync", "Stream Sync", 185, 1},
	                           {"kernel", "vectorized_elementwise_kernel", 200, 50}};
	static const kev mtia[] = {{"mtia_ccp_events", "aten::mm", 0, 100},
	                           {"mtia_ccp_events", "dma_request", 100, 50},
	                           {"mtia_ccp_events", "fused_relu_add", 120, 80},
	                           {"mtia_ccp_events", "dma_request", 300, 40}};
	static const kev rccl[] = {{"kernel", "Cijk_Ailk_Bljk_HHS_BH_MT128x128", 0, 100},
	                           {"kernel", "ncclDevKernel_Generic", 80, 60},
	                           {"kernel", "rcclAllReduceKernel", 300, 10},
	                           {"kernel", "hcclAllReduce", 400, 10}};
	/* a device collective with a long name: the host's c10d range is then not communication
	 * (the device kernel is) */
	static const kev longname[] = {
	    {"kernel",
	     "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 0,
	     100},
	    {"cpu_op", "c10d::allreduce_", 200, 50},
	    {"kernel", "sm80_xmma_gemm", 300, 20}};
	static const struct {
		const char *file;
		const kev *ev;
		size_t n;
		int64_t computing, communication, memcpy_slices; /* us, us, count */
	} cases[] = {
	    {"nccl_long.json", longname, sizeof longname / sizeof *longname, 20, 100, 0},
	    {"cuda.json", cuda, sizeof cuda / sizeof *cuda, 150, 100, 3},
	    {"mtia.json", mtia, sizeof mtia / sizeof *mtia, 180, 0, 2},
	    {"rccl.json", rccl, sizeof rccl / sizeof *rccl, 100, 80, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *p = write_kineto(cases[i].file, cases[i].ev, cases[i].n);
		loaded l;
		load_file(&l, p, TL_SRC_KINETO, 0);
		tl_overlap ov;
		tlq_overlap(l.r, INT64_MIN, INT64_MAX, &ov);
		CHECK(l.rc == 0 && l.nlines == 0, "%s loads (%s)", cases[i].file, l.err);
		CHECK_EQ_I64(ov.computing, cases[i].computing * 1000,
		             "Kineto device categories: computing = union of computation kernels");
		CHECK_EQ_I64(
		    ov.communication, cases[i].communication * 1000,
		    "Kineto device categories: communication = union of collective kernels");
		CHECK_EQ_I64((int64_t)lane_slices(l.r, TL_LANE_MEMCPY), cases[i].memcpy_slices,
		             "Kineto device categories: memory transfers on the memcpy lanes");
		printf("# %s: computing %.3f us, communication %.3f us\n", cases[i].file,
		       (double)ov.computing / 1000.0, (double)ov.communication / 1000.0);
		loaded_free(&l);
		free(p);
	}
}

/* 2024 torch_npu files: AI Core kernels typed "Other" or untyped, streams in "Stream Id", the
 * older pids; their own Overlap Analysis (the generator's, from the DB) against ours */

int
main(void)
{
	if (json_test_begin("json") != 0)
		return 1;
	test_exact_times();
	test_flows_and_steps();
	test_flows_interleaved();
	test_legacy_and_overlaps();
	test_legacy_user_ranges();
	test_bad_input();
	test_begin_end();
	test_many_threads();
	test_json_args();
	test_kineto_device_categories();
	return json_test_end();
}
