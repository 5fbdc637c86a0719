/* The Chrome-trace JSON loader (src/load/trace_json.c) and the generator's JSON writer
 * (src/gen/gen_json.c): exact times, track identity, the real samples against torch_npu's own
 * step_trace_time.csv and msprof's Overlap Analysis, Kineto samples, the same profile as DB and
 * as trace_view.json, and bad input (one line naming the file and the byte offset each). */
#include "config.h"

#include <cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "load/load.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/strpool.h"
#include "util/xalloc.h"
#include "../test.h"

static char tmpdir[4096];
static char *summary_json(const char *path, const tl_query_opts *);

static const char *
samples_dir(void)
{
	static char buf[4096];
	const char *s = getenv("TL_SAMPLES");
	if (s)
		return s;
	const char *src = getenv("TL_SRCDIR");
	snprintf(buf, sizeof buf, "%s/../shared/samples", src ? src : ".");
	return buf;
}

static int
rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static char *
tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static char *
write_tmp(const char *name, const char *text, size_t n)
{
	char *p = tmp_path(name);
	FILE *f = fopen(p, "wb");
	if (f != NULL) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	return p;
}

/* ---- loading one file, capturing what it says on stderr ------------------------------------ */

typedef struct loaded {
	tl_rank *r;
	tl_source src;
	int rc;
	char err[4096]; /* stderr while loading */
	int nlines;
} loaded;

static void
load_file(loaded *l, const char *path, tl_source_kind kind, int rank)
{
	memset(l, 0, sizeof *l);
	l->src.rank = rank;
	l->src.kind = kind;
	l->src.path = (char *)path;
	l->r = rank_new(rank);
	l->r->sources = xcalloc(1, sizeof *l->r->sources);
	l->r->sources[l->r->nsources++] = &l->src;

	char *cap = tmp_path("stderr.txt");
	fflush(stderr);
	int saved = dup(2), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	l->rc = loader_for(kind)->load(&l->src, l->r, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(cap, "r");
	size_t n = f ? fread(l->err, 1, sizeof l->err - 1, f) : 0;
	if (f)
		fclose(f);
	l->err[n] = '\0';
	for (size_t i = 0; i < n; i++)
		l->nlines += l->err[i] == '\n';
	while (n > 0 && l->err[n - 1] == '\n') /* for messages */
		l->err[--n] = '\0';
	free(cap);
	rank_finish(l->r);
}

static void
loaded_free(loaded *l)
{
	rank_free(l->r);
}

static size_t
lane_slices(const tl_rank *r, tl_lane_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == k)
			n += r->tracks[i]->n;
	return n;
}

static const tl_slice *
first_slice(const tl_rank *r, tl_lane_kind k)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == k && r->tracks[i]->n > 0)
			return &r->tracks[i]->v[0];
	return NULL;
}

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
	const tl_slice *s = first_slice(l.r, TL_LANE_COMPUTE);
	CHECK(s != NULL, "the kernel is compute, though its process is named after it");
	if (s) {
		CHECK_EQ_I64(s->start, INT64_C(1736408883694756091),
		             "ts \"…756.091\" is exact in ns");
		CHECK_EQ_I64(s->end - s->start, 840077, "dur 840.07675 µs rounds to 840077 ns");
	}
	s = first_slice(l.r, TL_LANE_OTHER);
	CHECK(s != NULL && s->end - s->start == 1, "dur 0.0005 µs rounds half away from zero");
	CHECK_EQ_I64(lane_slices(l.r, TL_LANE_COMPUTE), 2, "a ts in exponent notation loads");
	if (l.r->ntracks > 0) {
		const tl_track *t = NULL;
		for (size_t i = 0; i < l.r->ntracks; i++)
			if (l.r->tracks[i]->kind == TL_LANE_COMPUTE)
				t = l.r->tracks[i];
		CHECK(t && t->n == 2 && t->v[1].start == INT64_C(1736408883695758100) &&
		          t->v[1].end == INT64_C(1736408883695758101),
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
	s = first_slice(l.r, TL_LANE_COMPUTE);
	CHECK(s && s->start == INT64_C(1735632360000000000) + INT64_C(4203669604595407) &&
	          s->end - s->start == 6880,
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
			       t->v[k].end == 150000) ||
			      (strcmp(nm, "inner") == 0 && t->v[k].start == 110500 &&
			       t->v[k].end == 120000);
		}
	}
	CHECK(nk == 2 && ok == 2, "B/E pairs become slices, nested pairs close innermost first");
	const tl_slice *m = first_slice(l.r, TL_LANE_MSTX);
	CHECK(m && m->start == 90000 && m->end == 200000 &&
	          strcmp(strpool_get(l.r->pool, m->name), "update_actor") == 0,
	      "a B/E user_annotation is a range like an X one");
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
	CHECK(t != NULL && t->n == 5 && t->step != NULL, "five tagged kernels");
	if (t != NULL && t->n == 5 && t->step != NULL) {
		CHECK_EQ_I64(t->step[0], 0, "k3: no flow, its device start is in step 1");
		CHECK_EQ_I64(t->step[1], 0, "k1: runs in step 2, launched in step 1 (id …983)");
		CHECK_EQ_I64(t->step[2], 1, "k2: launched in step 2 (id …984, f before s)");
		CHECK_EQ_I64(t->step[3], 1, "k4: id 00…983 is not …983");
		CHECK_EQ_I64(t->step[4], 0, "k5: a non-numeric id joins too");
	}
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
	const tl_slice *s = first_slice(l.r, TL_LANE_COMPUTE);
	CHECK(s && s->start == 102000 && s->end == 104000, "integer µs -> ns");
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

/* ---- the real samples ------------------------------------------------------------------------ */

/* step_trace_time.csv: Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,
 * ...,Preparing (µs). Returns ns in our order: computing, communication, overlapped, not
 * overlapped, free, preparing. */
static int
read_csv(const char *path, int64_t *step, double v[6])
{
	char line[2][2048];
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	int ok = fgets(line[0], sizeof line[0], f) && fgets(line[1], sizeof line[1], f);
	fclose(f);
	if (!ok)
		return -1;
	static const char *const want[6] = {"Computing",  "Communication",
	                                    "Overlapped", "Communication(Not Overlapped)",
	                                    "Free",       "Preparing"};
	char *hs[32], *vs[32];
	int nh = 0, nv = 0;
	for (char *t = strtok(line[0], ",\r\n"); t && nh < 32; t = strtok(NULL, ",\r\n"))
		hs[nh++] = t;
	for (char *t = strtok(line[1], ",\r\n"); t && nv < 32; t = strtok(NULL, ",\r\n"))
		vs[nv++] = t;
	int found = 0;
	*step = nv > 0 ? strtoll(vs[0], NULL, 10) : -1;
	for (int k = 0; k < 6; k++)
		for (int i = 0; i < nh && i < nv; i++)
			if (strcmp(hs[i], want[k]) == 0) {
				v[k] = strtod(vs[i], NULL) * 1000.0;
				found++;
			}
	return found == 6 ? 0 : -1;
}

static void
test_ascend_text_sample(void)
{
	char base[4096];
	struct stat sb;
	snprintf(base, sizeof base, "%s/ascend-text/level1", samples_dir());
	if (stat(base, &sb) != 0) {
		SKIP("samples absent: %s", base);
		return;
	}
	static const char *const nm[6] = {"computing",  "communication",
	                                  "overlapped", "comm. not overlapped",
	                                  "free",       "preparing"};
	for (int rk = 0; rk < 2; rk++) {
		char *tv = xasprintf("%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
		                     base, rk);
		char *csv = xasprintf(
		    "%s/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", base, rk);
		loaded l;
		load_file(&l, tv, TL_SRC_TRACE_VIEW, rk);
		CHECK(l.rc == 0 && l.nlines == 0, "level1 rank %d trace_view.json loads (%s)", rk,
		      l.err);
		int64_t step;
		double want[6];
		if (read_csv(csv, &step, want) != 0) {
			CHECK(0, "read %s", csv);
			loaded_free(&l);
			free(tv);
			free(csv);
			continue;
		}
		tl_step_overlap *so = NULL;
		size_t n = tlq_step_overlaps(l.r, &so);
		CHECK(n == 1 && so[0].step_id == step, "rank %d: one step, %lld as in the csv", rk,
		      (long long)step);
		if (n >= 1) {
			const tl_overlap *o = &so[0].o;
			int64_t got[6] = {o->computing,           o->communication, o->overlapped,
			                  o->comm_not_overlapped, o->free,          o->preparing};
			for (int k = 0; k < 6; k++) {
				double d = (double)got[k] - want[k];
				CHECK(d >= -1000.0 && d <= 1000.0,
				      "rank %d %s: %.3f us, step_trace_time.csv %.3f us (diff "
				      "%+.0f ns, "
				      "bar 1000)",
				      rk, nm[k], (double)got[k] / 1000.0, want[k] / 1000.0, d);
			}
			/* msprof's own Overlap Analysis tracks: a cross-check, never an input */
			int64_t oa[4];
			CHECK(trace_json_overlap_lengths(tv, oa) == 0,
			      "rank %d has Overlap Analysis", rk);
			int64_t ours[4] = {o->computing, o->communication, o->comm_not_overlapped,
			                   o->free};
			static const char *const oan[4] = {"Computing", "Communication",
			                                   "Communication(Not Overlapped)", "Free"};
			for (int k = 0; k < 4; k++) {
				int64_t d = ours[k] - oa[k];
				CHECK(d >= -1000 && d <= 1000,
				      "rank %d %s: ours %.3f us, Overlap Analysis %.3f us (diff "
				      "%+" PRId64 " ns)",
				      rk, oan[k], (double)ours[k] / 1000.0, (double)oa[k] / 1000.0,
				      d);
			}
		}
		free(so);
		CHECK(lane_slices(l.r, TL_LANE_COMM_TASK) > 0 &&
		          lane_slices(l.r, TL_LANE_HOST) > 0 &&
		          lane_slices(l.r, TL_LANE_MEMCPY) > 0,
		      "rank %d: HCCL planes, host and memcpy lanes too", rk);
		/* 27 fwdbwd flows, each from a forward operator to its backward one */
		size_t rev = 0;
		for (size_t i = 1; i < l.r->nfwdbwd; i++)
			rev += l.r->fwdbwd[i].fwd_start > l.r->fwdbwd[i - 1].fwd_start &&
			       l.r->fwdbwd[i].bwd_start < l.r->fwdbwd[i - 1].bwd_start;
		CHECK(l.r->nfwdbwd == 27 && rev == 26,
		      "rank %d: 27 forward/backward operator pairs, backward in reverse order "
		      "(%zu, %zu)",
		      rk, l.r->nfwdbwd, rev);
		if (rk == 0 && l.r->nfwdbwd > 0) {
			/* aten::convolution at 1736408883702199.870 for 777.74 us, and its
			 * ConvolutionBackward0 at 1736408883736817.250 for 369.36 us */
			const tl_fwdbwd *p = &l.r->fwdbwd[0];
			CHECK(p->fwd_start == INT64_C(1736408883702199870) &&
			          p->fwd_end == INT64_C(1736408883702977610) &&
			          p->bwd_start == INT64_C(1736408883736817250) &&
			          p->bwd_end == INT64_C(1736408883737186610),
			      "rank 0: the first pair is the convolution and its backward, to the "
			      "ns");
		}
		loaded_free(&l);
		free(tv);
		free(csv);
	}
}

/* ---- every Overlap Analysis process against ours --------------------------------------------- */

/* The file's times carry nanoseconds: "ts" is a string of µs with three decimals (torch_npu) */
static int
ts_full_precision(const char *path)
{
	char buf[65536];
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	const char *p = strstr(buf, "\"ts\":");
	if (p == NULL)
		return 0;
	p += 5;
	while (*p == ' ')
		p++;
	return *p == '"';
}

static int oa_files; /* files with an Overlap Analysis process, compared */

/* tl's whole-capture computing, communication, not overlapped and free against the file's own
 * Overlap Analysis: within 1 us where the times carry nanoseconds, else 0.5%. */
static void
overlap_check_file(const char *path)
{
	int64_t oa[4];
	if (trace_json_overlap_lengths(path, oa) != 0)
		return;
	oa_files++;
	loaded l;
	load_file(&l, path, TL_SRC_TRACE_VIEW, -1);
	tl_overlap ov;
	tlq_overlap(l.r, INT64_MIN, INT64_MAX, &ov);
	int64_t ours[4] = {ov.computing, ov.communication, ov.comm_not_overlapped, ov.free};
	static const char *const nm[4] = {"Computing", "Communication",
	                                  "Communication(Not Overlapped)", "Free"};
	int full = ts_full_precision(path);
	for (int k = 0; k < 4; k++) {
		int64_t d = ours[k] - oa[k], bar = full ? 1000 : oa[k] / 200;
		if (bar < 1000)
			bar = 1000;
		CHECK(d >= -bar && d <= bar,
		      "%s %s: tl %.3f us, its Overlap Analysis %.3f us (diff %+" PRId64
		      " ns, bar %" PRId64 ")",
		      path, nm[k], (double)ours[k] / 1000.0, (double)oa[k] / 1000.0, d, bar);
	}
	loaded_free(&l);
}

static int
overlap_visit(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	size_t n = strlen(p);
	if (flag == FTW_F && n > 5 && strcmp(p + n - 5, ".json") == 0)
		overlap_check_file(p);
	return 0;
}

/* Every JSON file under dir that carries an Overlap Analysis process. */
static int
overlap_check_tree(const char *dir)
{
	int before = oa_files;
	struct stat sb;
	if (stat(dir, &sb) == 0)
		nftw(dir, overlap_visit, 16, FTW_PHYS);
	return oa_files - before;
}

static void
test_kineto_samples(void)
{
	char base[4096];
	struct stat sb;
	snprintf(base, sizeof base, "%s/kineto", samples_dir());
	if (stat(base, &sb) != 0) {
		SKIP("samples absent: %s", base);
		return;
	}
	static const struct {
		const char *file;
		int rank;
		size_t steps;
		int compute, comm;
		size_t fwdbwd; /* pairs: the file's complete fwdbwd flows */
	} k[] = {
	    {"amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json", -1, 2, 1, 0, 4},
	    {"cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json", 34, 1, 0, 1, 0},
	    {"critical_path__simple_add__benchmark_result_493459_1694039959_trace.json", 0, 0, 1, 0,
	     0},
	    {"trace_filter__sampled_rank-0.json", 0, 2, 1, 1, 0},
	    {"trace_filter__sampled_rank-1.json", 1, 2, 1, 1, 0},
	};
	for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
		char *p = xasprintf("%s/%s", base, k[i].file);
		tl_trace tr;
		tl_load_opts lo = {.quiet_progress = 1};
		unsigned w0 = msg_warn_count();
		int rc = load_trace(p, &lo, &tr);
		CHECK(rc == 0 && tr.nranks == 1 && msg_warn_count() == w0, "%s loads, no warning",
		      k[i].file);
		if (rc == 0 && tr.nranks == 1) {
			const tl_rank *r = tr.ranks[0];
			CHECK_EQ_I64(r->rank, k[i].rank,
			             "...its rank (distributedInfo, else file name)");
			CHECK_EQ_I64(r->nsteps, k[i].steps, "...its ProfilerStep ranges");
			CHECK((lane_slices(r, TL_LANE_COMPUTE) > 0) == k[i].compute &&
			          (lane_slices(r, TL_LANE_COMM) > 0) == k[i].comm,
			      "...compute %zu, communication %zu slices",
			      lane_slices(r, TL_LANE_COMPUTE), lane_slices(r, TL_LANE_COMM));
			CHECK_EQ_I64(r->nfwdbwd, k[i].fwdbwd,
			             "...its forward/backward operator pairs");
		}
		trace_free(&tr);
		free(p);
	}
}

/* ---- the same profile as DB and as trace_view.json ------------------------------------------- */

static char *
summary_json(const char *path, const tl_query_opts *qo)
{
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	char *s = NULL;
	size_t n = 0;
	if (load_trace(path, &lo, &tr) != 0)
		return NULL;
	FILE *f = open_memstream(&s, &n);
	tl_query *q = tlq_open(&tr, qo);
	report_summary_json(f, q);
	tlq_close(q);
	fclose(f);
	trace_free(&tr);
	return s;
}

/* For every *_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{r}.db under src, writes
 * dst/<same capture>/ASCEND_PROFILER_OUTPUT/trace_view.json (and profiler_info and
 * profiler_metadata.json beside it, as a text export has them). */
static int
convert_tree_version(const char *src, const char *dst, int version)
{
	DIR *d = opendir(src);
	int n = 0;
	struct dirent *e;
	if (d == NULL)
		return -1;
	mkdir(dst, 0700);
	while ((e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		if (len < 10 || strcmp(e->d_name + len - 10, "_ascend_pt") != 0)
			continue;
		char *cap = xasprintf("%s/%s", src, e->d_name);
		char *out = xasprintf("%s/%s", dst, e->d_name);
		char *apo = xasprintf("%s/ASCEND_PROFILER_OUTPUT", out);
		mkdir(out, 0700);
		mkdir(apo, 0700);
		DIR *c = opendir(cap);
		struct dirent *ce;
		while (c && (ce = readdir(c)) != NULL)
			if (strncmp(ce->d_name, "profiler_info", 13) == 0 ||
			    strcmp(ce->d_name, "profiler_metadata.json") == 0) {
				char *a = xasprintf("%s/%s", cap, ce->d_name);
				char *b = xasprintf("%s/%s", out, ce->d_name);
				FILE *in = fopen(a, "r"), *o = fopen(b, "w");
				char buf[4096];
				size_t k;
				while (in && o && (k = fread(buf, 1, sizeof buf, in)) > 0)
					fwrite(buf, 1, k, o);
				if (in)
					fclose(in);
				if (o)
					fclose(o);
				free(a);
				free(b);
			}
		if (c)
			closedir(c);
		char *capo = xasprintf("%s/ASCEND_PROFILER_OUTPUT", cap);
		DIR *ao = opendir(capo);
		while (ao && (ce = readdir(ao)) != NULL) {
			size_t cl = strlen(ce->d_name);
			if (strncmp(ce->d_name, "ascend_pytorch_profiler", 23) != 0 || cl < 3 ||
			    strcmp(ce->d_name + cl - 3, ".db") != 0)
				continue;
			char *db = xasprintf("%s/%s", capo, ce->d_name);
			char *js = xasprintf("%s/trace_view.json", apo);
			if (gen_json_from_db_version(db, js, version) == 0)
				n++;
			free(db);
			free(js);
		}
		if (ao)
			closedir(ao);
		free(capo);
		free(cap);
		free(out);
		free(apo);
	}
	closedir(d);
	return n;
}

static int
convert_tree(const char *src, const char *dst)
{
	return convert_tree_version(src, dst, GEN_JSON_2025);
}

static int
same_file(const char *a, const char *b)
{
	FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
	int same = f != NULL && g != NULL, x, y;
	while (same) {
		x = getc(f);
		y = getc(g);
		if (x != y)
			same = 0;
		if (x == EOF || y == EOF)
			break;
	}
	if (f)
		fclose(f);
	if (g)
		fclose(g);
	return same;
}

/* s with every member `,"key":VALUE` removed (VALUE a number, or an array or object, skipped
 * by bracket depth; no string in tl's summary holds an unbalanced bracket outside quotes, and
 * quoted text is skipped). */
static void
drop_member(char *s, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, ",\"%s\":", key);
	char *p;
	while ((p = strstr(s, pat)) != NULL) {
		char *q = p + strlen(pat);
		int depth = 0, inq = 0;
		for (; *q; q++) {
			if (inq) {
				if (*q == '\\' && q[1])
					q++;
				else if (*q == '"')
					inq = 0;
				continue;
			}
			if (*q == '"')
				inq = 1;
			else if (*q == '[' || *q == '{')
				depth++;
			else if (*q == ']' || *q == '}') {
				if (depth == 0)
					break;
				if (--depth == 0) {
					q++;
					break;
				}
			} else if (*q == ',' && depth == 0)
				break;
		}
		memmove(p, q, strlen(q) + 1);
	}
}

/* The summary without what only a profile DB gives: the operator tables (op type, task type,
 * input shapes) and memory (trace_view.json's counter events are not read for it yet) and group
 * names (trace_view.json names a group's lane "Group N Communication"). The launch delays and
 * host-bound idle time ("host") come from its launch flows and must agree. */
static char *
without_db_only(char *s)
{
	static const char *const keys[] = {"operators", "memory", "npu_memory"};
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		drop_member(s, keys[i]);
	/* "group":"NAME" -> "group":"" */
	char *p = s;
	while ((p = strstr(p, "\"group\":\"")) != NULL) {
		char *v = p + 9, *q = v;
		while (*q && *q != '"')
			q += *q == '\\' && q[1] ? 2 : 1;
		memmove(v, q, strlen(q) + 1);
		p = v;
	}
	return s;
}

static void
same_summary(const char *db_root, const char *json_root, const char *what)
{
	char *a = without_db_only(summary_json(db_root, NULL));
	char *b = without_db_only(summary_json(json_root, NULL));
	CHECK(a != NULL && b != NULL && strcmp(a, b) == 0,
	      "%s: tl summary --json identical from the DB and from trace_view.json", what);
	if (a && b && strcmp(a, b) != 0)
		printf("# DB:   %s# JSON: %s", a, b);
	free(a);
	free(b);
}

static void
test_db_vs_json(void)
{
	/* a generated profile: 3 ranks, 3 steps (launch-time step attribution matters) */
	char *gen = tmp_path("gen"), *gjson = tmp_path("gen-json");
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 3;
	o.nsteps = 3;
	o.tasks_per_rank = 4000;
	o.slow_rank = 1;
	o.seed = 11;
	o.threads = 1;
	o.json = 1;
	CHECK(gen_profile(&o, gen, NULL) == 0,
	      "generate 3 ranks x 3 steps, DB and trace_view.json");
	/* discovery prefers the DB of a capture: the JSON goes into a tree of its own */
	CHECK_EQ_I64(convert_tree(gen, gjson), 3, "convert each rank's DB to trace_view.json");
	same_summary(gen, gjson, "generated profile");

	/* pipeline-parallel, blocks marked only by forward/backward operator pairs: PYTORCH_API +
	 * CONNECTION_IDS in the DB, fwdbwd flows in the JSON; the same pipeline from both, with
	 * the PP stages from distributed_args and from the send/receive partners (in the JSON
	 * the group of a P2P op is known from the hash in its name only) */
	for (int no_meta = 0; no_meta < 2; no_meta++) {
		char *pp = tmp_path(no_meta ? "pp-ops-p" : "pp-ops-m");
		char *ppj = tmp_path(no_meta ? "pp-ops-p-json" : "pp-ops-m-json");
		const char *what = no_meta ? "PP from operator pairs, stages from partners"
		                           : "PP from operator pairs, stages from distributed_args";
		gen_opts q;
		gen_opts_default(&q);
		q.nranks = 8;
		q.nsteps = 1;
		q.pp = 4;
		q.pp_no_meta = no_meta;
		q.pp_op_pairs = 1;
		q.seed = 3;
		q.threads = 1;
		CHECK(gen_profile(&q, pp, NULL) == 0, "%s: generate", what);
		CHECK_EQ_I64(convert_tree(pp, ppj), 8, "convert each rank's DB to trace_view.json");
		same_summary(pp, ppj, what);
		char *js = summary_json(ppj, NULL);
		cJSON *j = js ? cJSON_Parse(js) : NULL;
		const cJSON *p0 =
		    j ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "pipeline"), 0)
		      : NULL;
		const cJSON *st = p0 ? cJSON_GetObjectItemCaseSensitive(p0, "stages") : NULL;
		const cJSON *src = p0 ? cJSON_GetObjectItemCaseSensitive(p0, "pp_source") : NULL;
		CHECK(cJSON_GetArraySize(st) == 4 &&
		          cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
		              cJSON_GetArrayItem(st, 3), "blocks")) == 16 &&
		          cJSON_IsString(src) &&
		          strcmp(src->valuestring,
		                 no_meta ? "send/receive partners" : "distributed_args") == 0,
		      "%s: 4 PP stages, 16 blocks on the last, from the JSON", what);
		const cJSON *bf =
		    cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(st, 0), "blocks_from");
		CHECK(cJSON_IsString(bf) && strcmp(bf->valuestring, "operator_pairs") == 0,
		      "%s: \"blocks_from\": \"operator_pairs\"", what);
		cJSON_Delete(j);
		free(js);
		free(pp);
		free(ppj);
	}

	/* ranges that carry a stream: in the JSON their device parts are Ascend Hardware slices
	 * joined to the host ranges by MsTx flows; the same PP blocks (the device parts), stage
	 * rows, DP panel and bubbles from both */
	for (int grpo = 0; grpo < 2; grpo++) {
		char *dv = tmp_path(grpo ? "stage-device" : "pp-device");
		char *dvj = tmp_path(grpo ? "stage-device-json" : "pp-device-json");
		const char *what =
		    grpo ? "GRPO stage ranges given a stream" : "PP ranges given a stream";
		gen_opts q;
		gen_opts_default(&q);
		q.nranks = grpo ? 3 : 8;
		q.nsteps = grpo ? 2 : 1;
		q.tasks_per_rank = 4000;
		q.slow_rank = grpo ? 1 : -1;
		q.pp = grpo ? 0 : 4;
		q.pp_device_ranges = !grpo;
		q.stage_device_ranges = grpo;
		q.seed = 7;
		q.threads = 1;
		CHECK(gen_profile(&q, dv, NULL) == 0, "%s: generate", what);
		CHECK_EQ_I64(convert_tree(dv, dvj), q.nranks,
		             "convert each rank's DB to trace_view.json");
		same_summary(dv, dvj, what);
		char *js = summary_json(dvj, NULL);
		CHECK(js != NULL && (grpo ? strstr(js, "\"device_times\":true") != NULL &&
		                                strstr(js, "\"device_times\":false") == NULL
		                          : strstr(js, "\"bubble_ratio\":0.9") == NULL),
		      "%s: the JSON's analyses use the device parts", what);
		free(js);
		free(dv);
		free(dvj);
	}

	/* msprof's Overlap Analysis as written by the converter = our whole-capture overlap */
	DIR *d = opendir(gjson);
	struct dirent *e;
	int checked = 0;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *tv =
		    xasprintf("%s/%s/ASCEND_PROFILER_OUTPUT/trace_view.json", gjson, e->d_name);
		char *gtv =
		    xasprintf("%s/%s/ASCEND_PROFILER_OUTPUT/trace_view.json", gen, e->d_name);
		CHECK(same_file(tv, gtv), "%s: gen_profile's trace_view.json is the converter's",
		      e->d_name);
		free(gtv);
		loaded l;
		load_file(&l, tv, TL_SRC_TRACE_VIEW, -1);
		int64_t oa[4];
		tl_overlap ov;
		tlq_overlap(l.r, INT64_MIN, INT64_MAX, &ov);
		if (trace_json_overlap_lengths(tv, oa) == 0 && oa[0] == ov.computing &&
		    oa[1] == ov.communication && oa[2] == ov.comm_not_overlapped &&
		    oa[3] == ov.free)
			checked++;
		else
			printf("# %s: OA %lld %lld %lld %lld, ours %lld %lld %lld %lld\n", tv,
			       (long long)oa[0], (long long)oa[1], (long long)oa[2],
			       (long long)oa[3], (long long)ov.computing,
			       (long long)ov.communication, (long long)ov.comm_not_overlapped,
			       (long long)ov.free);
		CHECK(l.nlines == 0 && lane_slices(l.r, TL_LANE_MSTX) > 0 &&
		          lane_slices(l.r, TL_LANE_COMM_TASK) > 0 &&
		          lane_slices(l.r, TL_LANE_MEMCPY) > 0,
		      "%s: MSTX, HCCL planes and memcpy lanes (%s)", e->d_name, l.err);
		loaded_free(&l);
		free(tv);
	}
	if (d)
		closedir(d);
	CHECK_EQ_I64(checked, 3, "the written Overlap Analysis equals our whole-capture overlap");
	free(gen);
	free(gjson);

	/* the real DB samples, converted */
	static const char *const levels[] = {"level0", "level2"};
	for (int i = 0; i < 2; i++) {
		struct stat sb;
		char *src = xasprintf("%s/ascend-db/%s", samples_dir(), levels[i]);
		if (stat(src, &sb) != 0) {
			SKIP("samples absent: %s", src);
			free(src);
			continue;
		}
		char *dst = tmp_path(levels[i]);
		CHECK_EQ_I64(convert_tree(src, dst), 2, "convert the real DBs");
		same_summary(src, dst, levels[i]);
		free(dst);
		free(src);
	}
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
static void
test_older_trace_view(void)
{
	char *gen = tmp_path("old-db"), *old = tmp_path("old-json"), *cur = tmp_path("cur-json");
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 2;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 5;
	o.threads = 1;
	CHECK(gen_profile(&o, gen, NULL) == 0, "generate 2 ranks x 2 steps");
	CHECK_EQ_I64(convert_tree_version(gen, old, GEN_JSON_2024), 2,
	             "write each rank's DB as a 2024 trace_view.json");
	CHECK_EQ_I64(convert_tree(gen, cur), 2, "and as a 2025 one");
	same_summary(gen, old, "2024 trace_view.json");
	CHECK_EQ_I64(overlap_check_tree(old), 2, "both 2024 files carry an Overlap Analysis");
	DIR *d = opendir(old);
	struct dirent *e;
	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *tv =
		    xasprintf("%s/%s/ASCEND_PROFILER_OUTPUT/trace_view.json", old, e->d_name);
		char *tv25 =
		    xasprintf("%s/%s/ASCEND_PROFILER_OUTPUT/trace_view.json", cur, e->d_name);
		FILE *f = fopen(tv, "rb");
		char *text = xcalloc(1, (size_t)64 << 20);
		size_t n = f ? fread(text, 1, ((size_t)64 << 20) - 1, f) : 0;
		if (f)
			fclose(f);
		text[n] = '\0';
		CHECK(strstr(text, "\"Task Type\": \"Other\"") != NULL &&
		          strstr(text, "\"Physic Stream Id\"") == NULL &&
		          strstr(text, "\"pid\": 800,") != NULL,
		      "%s: kernels typed Other, streams in Stream Id, Ascend Hardware pid 800",
		      e->d_name);
		free(text);
		loaded a, b;
		load_file(&a, tv, TL_SRC_TRACE_VIEW, -1);
		load_file(&b, tv25, TL_SRC_TRACE_VIEW, -1);
		CHECK(a.nlines == 0, "%s: loads without a complaint (%s)", e->d_name, a.err);
		int64_t oa[4];
		tl_overlap x, y;
		tlq_overlap(a.r, INT64_MIN, INT64_MAX, &x);
		tlq_overlap(b.r, INT64_MIN, INT64_MAX, &y);
		CHECK(trace_json_overlap_lengths(tv, oa) == 0 && oa[0] == x.computing &&
		          oa[1] == x.communication && oa[2] == x.comm_not_overlapped &&
		          oa[3] == x.free,
		      "%s: to the ns its Overlap Analysis (computing %.3f us, OA %.3f us)",
		      e->d_name, (double)x.computing / 1000.0, (double)oa[0] / 1000.0);
		CHECK(x.computing == y.computing && x.free == y.free &&
		          lane_slices(a.r, TL_LANE_COMPUTE) == lane_slices(b.r, TL_LANE_COMPUTE) &&
		          lane_slices(a.r, TL_LANE_OTHER) == lane_slices(b.r, TL_LANE_OTHER) &&
		          lane_slices(a.r, TL_LANE_MEMCPY) == lane_slices(b.r, TL_LANE_MEMCPY),
		      "%s: the same kernels, memcpy and other tasks as the 2025 file", e->d_name);
		loaded_free(&a);
		loaded_free(&b);
		free(tv);
		free(tv25);
	}
	if (d)
		closedir(d);
	free(gen);
	free(old);
	free(cur);
}

/* Every file with an Overlap Analysis process in the samples and in the repository's tests */
static void
test_all_overlap_analyses(void)
{
	char base[4096];
	struct stat sb;
	snprintf(base, sizeof base, "%s", samples_dir());
	if (stat(base, &sb) != 0) {
		SKIP("samples absent: %s", base);
	} else {
		int n = overlap_check_tree(base);
		CHECK(n >= 2, "%d sample files with an Overlap Analysis process compared", n);
	}
	const char *src = getenv("TL_SRCDIR");
	char *t = xasprintf("%s/tests", src ? src : ".");
	int n = overlap_check_tree(t);
	CHECK(n >= 1, "%d test fixtures with an Overlap Analysis process compared", n);
	free(t);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/tl-test-json-XXXXXX", t && *t ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_exact_times();
	test_flows_and_steps();
	test_legacy_and_overlaps();
	test_legacy_user_ranges();
	test_bad_input();
	test_ascend_text_sample();
	test_kineto_samples();
	test_begin_end();
	test_json_args();
	test_db_vs_json();
	test_older_trace_view();
	test_kineto_device_categories();
	test_all_overlap_analyses();
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return test_done();
}
