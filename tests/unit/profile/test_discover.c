/* Unit tests of src/profile/discover.c: directory layouts built under a mkdtemp directory, and
 * the real samples in ../shared/samples when they are there. */
#include "config.h"
#include "profile/discover.h"
#include "util/msg.h"
#include "util/rankspec.h"

#include "../test.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmproot[1024];

/* tmproot/rel, in one of a few rotating buffers (enough for one call's arguments). */
static const char *tpath(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *
tpath(const char *fmt, ...)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];
	char rel[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	if (snprintf(b, 4096, "%s/%s", tmproot, rel) >= 4096)
		abort();
	return b;
}

static void
mkdir_p(const char *path)
{
	char buf[4096];
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	}
	mkdir(buf, 0755);
}

/* Writes tmproot/rel (making its directories); content NULL writes an empty file. */
static void
put(const char *rel, const char *content)
{
	char path[4096], dir[4096];
	if (snprintf(path, sizeof path, "%s/%s", tmproot, rel) >= (int)sizeof path)
		abort();
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir_p(dir);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(2);
	}
	if (content != NULL)
		fputs(content, f);
	fclose(f);
}

static void
link_to(const char *target, const char *rel)
{
	if (symlink(target, tpath("%s", rel)) != 0) {
		perror(rel);
		exit(2);
	}
}

/* discover() on path with an optional rank spec ("" = all). */
static int
run(const char *path, const char *spec, tl_sourcelist *out)
{
	memset(out, 0, sizeof *out);
	if (spec == NULL || *spec == '\0')
		return discover(path, NULL, out);
	tl_rankset rs;
	char err[256];
	if (rankspec_parse(spec, &rs, err, sizeof err) != 0) {
		fprintf(stderr, "bad spec %s: %s\n", spec, err);
		exit(2);
	}
	int rc = discover(path, &rs, out);
	rankset_free(&rs);
	return rc;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The source whose path ends with suffix, or NULL. */
static const tl_source *
find(const tl_sourcelist *l, const char *suffix)
{
	for (size_t i = 0; i < l->n; i++)
		if (ends_with(l->v[i].path, suffix))
			return &l->v[i];
	return NULL;
}

/* Epoch ns of a wall-clock time (local or UTC) with milliseconds. */
static int64_t
wall_ns(int y, int mo, int d, int h, int mi, int s, int ms, int utc)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	time_t t = utc ? timegm(&tm) : mktime(&tm);
	return (int64_t)t * 1000000000 + (int64_t)ms * 1000000;
}

/* Checks that l holds exactly the ranks in want (in order) with kind k. */
static void
check_ranks(const tl_sourcelist *l, const int *want, size_t n, tl_source_kind k, const char *what)
{
	CHECK_EQ_I64(l->n, n, what);
	for (size_t i = 0; i < n && i < l->n; i++) {
		char msg[256];
		snprintf(msg, sizeof msg, "%s: source %zu rank", what, i);
		CHECK_EQ_I64(l->v[i].rank, want[i], msg);
		snprintf(msg, sizeof msg, "%s: source %zu kind", what, i);
		CHECK_STR(source_kind_name(l->v[i].kind), source_kind_name(k), msg);
	}
}

static void
test_kind_names(void)
{
	CHECK_STR(source_kind_name(TL_SRC_TORCH_DB), "torch_npu DB", "kind name torch");
	CHECK_STR(source_kind_name(TL_SRC_MSPROF_DB), "msprof DB", "kind name msprof");
	CHECK_STR(source_kind_name(TL_SRC_MINDSPORE_DB), "MindSpore DB", "kind name mindspore");
	CHECK_STR(source_kind_name(TL_SRC_TRACE_VIEW), "trace_view.json", "kind name trace_view");
	CHECK_STR(source_kind_name(TL_SRC_KINETO), "Kineto JSON", "kind name kineto");
}

static void
test_torch(void)
{
	const char *c0 = "torch/host_1_20250101120000123_ascend_pt";
	char r[512];
#define PUT(fmt, arg, content)                                                                     \
	do {                                                                                       \
		snprintf(r, sizeof r, fmt, arg);                                                   \
		put(r, content);                                                                   \
	} while (0)
	PUT("%s/profiler_info_0.json", c0, "{\"rank_id\": 0}");
	PUT("%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", c0, NULL);
	PUT("%s/ASCEND_PROFILER_OUTPUT/analysis.db", c0, NULL);
	PUT("%s/ASCEND_PROFILER_OUTPUT/trace_view.json", c0, "[{\"ph\":\"X\"}]");
	PUT("%s/FRAMEWORK/torch.op_range", c0, NULL);
	PUT("%s/PROF_000001_20250101120000100_ABCDEFGH/msprof_20250101120001.db", c0, NULL);
	PUT("%s/PROF_000001_20250101120000100_ABCDEFGH/host/data/x.data", c0, NULL);
	put("torch/host_2_20250101120000456_ascend_pt/profiler_info_1.json", "{}");
	put("torch/host_2_20250101120000456_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	    "ascend_pytorch_profiler_1.db",
	    NULL);
	put("torch/host_3_20250101120001000_ascend_pt/profiler_info_4.json", "{}");
	put("torch/host_3_20250101120001000_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	    "ascend_pytorch_profiler.db",
	    NULL);
	/* rank_id as a string, text export only */
	put("torch/host_4_20250101120002000_ascend_pt/profiler_info.json", "{\"rank_id\": \"2\"}");
	put("torch/host_4_20250101120002000_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
	    "[{\"ph\":\"X\"}]");
	put("torch/notes.txt", "hello");

	tl_sourcelist l;
	unsigned w0 = msg_warn_count();
	CHECK_EQ_I64(run(tpath("torch"), "", &l), 0, "torch: discover returns 0");
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "torch: no warnings");
	CHECK_EQ_I64(l.n, 4, "torch: one source per capture (the DB, not trace_view or PROF)");
	if (l.n == 4) {
		int want[] = {0, 1, 2, 4};
		for (int i = 0; i < 4; i++)
			CHECK_EQ_I64(l.v[i].rank, want[i], "torch: sorted by rank");
		CHECK(ends_with(l.v[0].path, "ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db"),
		      "torch: rank 0 is the DB, not trace_view.json (%s)", l.v[0].path);
		CHECK_EQ_I64(l.v[0].kind, TL_SRC_TORCH_DB, "torch: rank 0 kind");
		CHECK_STR(l.v[0].rank_from, "file name", "torch: rank 0 from the DB name");
		CHECK_STR(l.v[0].dir, tpath("%s", c0), "torch: dir is the capture dir");
		CHECK_EQ_I64(l.v[0].capture_ns, wall_ns(2025, 1, 1, 12, 0, 0, 123, 0),
		             "torch: capture time from the _ascend_pt name (local, ms)");
		CHECK(l.v[0].role == NULL && l.v[0].role_step == -1, "torch: no role");
		CHECK_EQ_I64(l.v[2].kind, TL_SRC_TRACE_VIEW, "torch: rank 2 is trace_view.json");
		CHECK_STR(l.v[2].rank_from, "profiler_info rank_id", "torch: rank_id as a string");
		CHECK(ends_with(l.v[3].path, "ascend_pytorch_profiler.db"), "torch: unranked DB");
		CHECK_STR(l.v[3].rank_from, "profiler_info file name",
		          "torch: rank from profiler_info_4.json");
	}
	sourcelist_free(&l);
	CHECK(l.v == NULL && l.n == 0, "sourcelist_free empties the list");

	/* rank filter: one line for the missing ranks */
	w0 = msg_warn_count();
	run(tpath("torch"), "0,3,5-7", &l);
	CHECK_EQ_I64(l.n, 1, "filter 0,3,5-7: one source");
	CHECK(l.n == 1 && l.v[0].rank == 0, "filter 0,3,5-7: rank 0");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "filter 0,3,5-7: one warning line for 3, 5-7");
	sourcelist_free(&l);
	w0 = msg_warn_count();
	run(tpath("torch"), "1-2", &l);
	int want12[] = {1, 2};
	CHECK_EQ_I64(l.n, 2, "filter 1-2: two sources");
	for (size_t i = 0; i < l.n && i < 2; i++)
		CHECK_EQ_I64(l.v[i].rank, want12[i], "filter 1-2: ranks");
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "filter 1-2: nothing missing, no warning");
	sourcelist_free(&l);

	/* a single file */
	char one[4096];
	snprintf(one, sizeof one, "%s",
	         tpath("torch/host_2_20250101120000456_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	               "ascend_pytorch_profiler_1.db"));
	CHECK_EQ_I64(run(one, "", &l), 0, "single .db: returns 0");
	CHECK_EQ_I64(l.n, 1, "single .db: one source");
	if (l.n == 1) {
		CHECK_EQ_I64(l.v[0].rank, 1, "single .db: rank from its name");
		CHECK_STR(l.v[0].path, one, "single .db: path as given");
		CHECK(ends_with(l.v[0].dir, "/host_2_20250101120000456_ascend_pt"),
		      "single .db: dir is the capture dir (%s)", l.v[0].dir);
		CHECK_EQ_I64(l.v[0].capture_ns, wall_ns(2025, 1, 1, 12, 0, 0, 456, 0),
		             "single .db: capture time from the capture dir");
	}
	sourcelist_free(&l);
	run(tpath("torch/host_3_20250101120001000_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	          "ascend_pytorch_profiler.db"),
	    "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 4, "single unranked .db: rank from profiler_info_4.json");
	sourcelist_free(&l);
	/* pointed at ASCEND_PROFILER_OUTPUT itself */
	run(tpath("%s/ASCEND_PROFILER_OUTPUT/", c0), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 0 && l.v[0].kind == TL_SRC_TORCH_DB,
	      "ASCEND_PROFILER_OUTPUT as the path: its DB, rank 0");
	sourcelist_free(&l);
	/* pointed at one capture dir */
	run(tpath("%s", c0), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 0 && l.v[0].role == NULL, "capture dir as the path");
	sourcelist_free(&l);

	/* a symlink to a DB, named otherwise: the target's name gives the rank */
	link_to(one, "torch/link.db");
	run(tpath("torch/link.db"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 1 && l.v[0].kind == TL_SRC_TORCH_DB,
	      "single symlinked .db: rank and kind from the target's name");
	sourcelist_free(&l);
	unlink(tpath("torch/link.db"));

	/* two DBs in one output dir: still one source, and the user is told */
	put("two/h_1_20250101120000000_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db",
	    NULL);
	put("two/h_1_20250101120000000_ascend_pt/ASCEND_PROFILER_OUTPUT/"
	    "ascend_pytorch_profiler_3.db",
	    NULL);
	w0 = msg_warn_count();
	run(tpath("two"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 3 && ends_with(l.v[0].path, "_3.db"),
	      "two DBs in one capture: the ranked one");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "two DBs in one capture: one warning");
	sourcelist_free(&l);

	/* errors */
	CHECK_EQ_I64(run(tpath("torch/no-such-dir"), "", &l), -1, "missing path: -1");
	CHECK_EQ_I64(l.n, 0, "missing path: nothing listed");
	/* a file that is not a profile: named in an error, nothing listed, as for a directory
	 * without profiles (the command then exits 2 either way) */
	CHECK_EQ_I64(run(tpath("%s/profiler_info_0.json", c0), "", &l), 0,
	             "single non-trace JSON: 0");
	CHECK_EQ_I64(l.n, 0, "single non-trace JSON: nothing listed");
	CHECK_EQ_I64(run(tpath("torch/notes.txt"), "", &l), 0, "single .txt: 0");
	CHECK_EQ_I64(l.n, 0, "single .txt: nothing listed");
#undef PUT
}

static void
put_capture(const char *dir, int rank)
{
	char r[1024];
	snprintf(r, sizeof r, "%s/profiler_info_%d.json", dir, rank);
	put(r, "{}");
	snprintf(r, sizeof r, "%s/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_%d.db", dir, rank);
	put(r, NULL);
}

static void
test_verl(void)
{
	put_capture("verl/1/actor_update/host_123_20250101120000123_ascend_pt", 0);
	put_capture("verl/1/actor_update/host_124_20250101120000200_ascend_pt", 1);
	put_capture("verl/1/rollout_generate/host_123_20250101115900000_ascend_pt", 0);
	put_capture("verl/2/actor_update/host_123_20250101121000000_ascend_pt", 0);

	tl_sourcelist l;
	run(tpath("verl"), "", &l);
	CHECK_EQ_I64(l.n, 4, "verl: every capture kept");
	if (l.n == 4) {
		CHECK(l.v[0].rank == 0 && l.v[1].rank == 0 && l.v[2].rank == 0 && l.v[3].rank == 1,
		      "verl: rank 0 three times, then rank 1");
		CHECK_STR(l.v[0].role, "rollout_generate", "verl: earliest capture is the rollout");
		CHECK_EQ_I64(l.v[0].role_step, 1, "verl: rollout step 1");
		CHECK_STR(l.v[1].role, "actor_update", "verl: then actor_update");
		CHECK_EQ_I64(l.v[1].role_step, 1, "verl: actor_update step 1");
		CHECK_STR(l.v[2].role, "actor_update", "verl: step 2 actor_update");
		CHECK_EQ_I64(l.v[2].role_step, 2, "verl: step 2");
		CHECK(l.v[0].capture_ns < l.v[1].capture_ns &&
		          l.v[1].capture_ns < l.v[2].capture_ns,
		      "verl: one rank's captures sorted by time");
		CHECK_STR(l.v[3].role, "actor_update", "verl: rank 1 role");
	}
	sourcelist_free(&l);

	run(tpath("verl/1"), "", &l);
	CHECK_EQ_I64(l.n, 3, "verl step dir as root: 3 captures");
	CHECK(l.n == 3 && l.v[0].role != NULL && strcmp(l.v[0].role, "rollout_generate") == 0 &&
	          l.v[0].role_step == 1,
	      "verl step dir as root: role and step kept");
	sourcelist_free(&l);

	run(tpath("verl/1/actor_update"), "", &l);
	CHECK(l.n == 2 && l.v[0].role == NULL && l.v[1].role == NULL,
	      "verl role dir as root: the root is not a role");
	sourcelist_free(&l);

	/* <step>/<role>/ with role names we do not know: several ranks side by side */
	put_capture("msrl/3/policy_a/w_1_20250101120000000_ascend_pt", 0);
	put_capture("msrl/3/policy_a/w_2_20250101120000000_ascend_pt", 1);
	put_capture("msrl/3/policy_b/w_1_20250101120100000_ascend_pt", 0);
	put_capture("msrl/3/policy_b/w_2_20250101120100000_ascend_pt", 1);
	run(tpath("msrl"), "", &l);
	CHECK_EQ_I64(l.n, 4, "msrl: 4 captures");
	if (l.n == 4) {
		CHECK_STR(l.v[0].role, "policy_a",
		          "msrl: unknown role name under a step dir taken");
		CHECK_STR(l.v[1].role, "policy_b", "msrl: second role");
		CHECK_EQ_I64(l.v[0].role_step, 3, "msrl: step 3");
	}
	sourcelist_free(&l);

	/* sibling dirs of several ranks without a step above (like samples/ascend-db/level0,
	 * level2) are where runs are kept, not roles */
	put_capture("lv/level0/w_1_20250101120000000_ascend_pt", 0);
	put_capture("lv/level0/w_2_20250101120000000_ascend_pt", 1);
	put_capture("lv/level2/w_1_20250101120100000_ascend_pt", 0);
	put_capture("lv/level2/w_2_20250101120100000_ascend_pt", 1);
	run(tpath("lv"), "", &l);
	CHECK(l.n == 4 && l.v[0].role == NULL && l.v[1].role == NULL,
	      "sibling run dirs without a step dir are not roles");
	sourcelist_free(&l);

	/* one directory of many ranks under the root is only where the run is kept */
	put_capture("plain/run7/w_1_20250101120000000_ascend_pt", 0);
	put_capture("plain/run7/w_2_20250101120000000_ascend_pt", 1);
	run(tpath("plain"), "", &l);
	CHECK(l.n == 2 && l.v[0].role == NULL && l.v[1].role == NULL,
	      "plain/run7: not taken for a role");
	sourcelist_free(&l);
}

static void
test_msprof(void)
{
	const char *p = "msprof/PROF_000001_20250101120000123_ABCDEFGH";
	char r[512];
	snprintf(r, sizeof r, "%s/msprof_20250101120001.db", p);
	put(r, NULL);
	snprintf(r, sizeof r, "%s/msprof_20250101130001.db", p);
	put(r, NULL);
	snprintf(r, sizeof r, "%s/device_3/info.json.3", p);
	put(r, "{\"rank_id\": 5, \"hostUid\": \"123\"}");
	snprintf(r, sizeof r, "%s/host/data/aging.additional.type_info_dic", p);
	put(r, NULL);
	snprintf(r, sizeof r, "%s/mindstudio_profiler_output/msprof_20250101130001.json", p);
	put(r, "[{\"ph\":\"X\"}]");

	tl_sourcelist l;
	run(tpath("msprof"), "", &l);
	CHECK_EQ_I64(l.n, 1, "msprof: one source per PROF dir");
	if (l.n == 1) {
		CHECK(ends_with(l.v[0].path, "/msprof_20250101130001.db"), "msprof: newest DB (%s)",
		      l.v[0].path);
		CHECK_EQ_I64(l.v[0].kind, TL_SRC_MSPROF_DB, "msprof: kind");
		CHECK_EQ_I64(l.v[0].rank, 5, "msprof: rank from device_3/info.json.3");
		CHECK_STR(l.v[0].rank_from, "info.json rank_id", "msprof: rank_from");
		CHECK_EQ_I64(l.v[0].capture_ns, wall_ns(2025, 1, 1, 12, 0, 0, 123, 0),
		             "msprof: capture time from the PROF name");
		CHECK_STR(l.v[0].dir, tpath("%s", p), "msprof: dir is the PROF dir");
	}
	sourcelist_free(&l);

	/* single msprof DB file: the PROF dir around it still gives the rank */
	snprintf(r, sizeof r, "%s/msprof_20250101120001.db", p);
	run(tpath("%s", r), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 5 && l.v[0].kind == TL_SRC_MSPROF_DB,
	      "single msprof DB: rank 5 from info.json");
	sourcelist_free(&l);

	/* rank_id -1: unknown, left to the loader; dropped by a rank filter */
	put("msprof2/PROF_000002_20250101120000000_X/msprof_1.db", NULL);
	put("msprof2/PROF_000002_20250101120000000_X/device_0/info.json.0", "{\"rank_id\": -1}");
	run(tpath("msprof2"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == -1, "msprof rank_id -1: rank unknown");
	CHECK(l.n == 1 && strcmp(l.v[0].rank_from, "unknown") == 0, "msprof: rank_from unknown");
	sourcelist_free(&l);
	unsigned w0 = msg_warn_count();
	run(tpath("msprof2"), "0", &l);
	CHECK_EQ_I64(l.n, 0, "rank filter drops a source of unknown rank");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "rank filter: one warning naming rank 0");
	sourcelist_free(&l);

	/* text-only msprof export: the newest JSON, all its slices */
	put("msprof3/PROF_000003_20250101120000000_Y/mindstudio_profiler_output/"
	    "msprof_slice_0_20250101130000.json",
	    "[]");
	put("msprof3/PROF_000003_20250101120000000_Y/mindstudio_profiler_output/"
	    "msprof_slice_1_20250101130000.json",
	    "[]");
	put("msprof3/PROF_000003_20250101120000000_Y/mindstudio_profiler_output/"
	    "msprof_20240101130000.json",
	    "[]");
	put("msprof3/PROF_000003_20250101120000000_Y/device_1/info.json.1", "{\"rank_id\": \"3\"}");
	run(tpath("msprof3"), "", &l);
	CHECK_EQ_I64(l.n, 2, "msprof text export: both slices of the newest export");
	CHECK(l.n == 2 && l.v[0].kind == TL_SRC_TRACE_VIEW && l.v[0].rank == 3 &&
	          ends_with(l.v[0].path, "msprof_slice_0_20250101130000.json"),
	      "msprof text export: trace_view format, rank 3");
	sourcelist_free(&l);

	/* a torch_npu capture that was never parsed: the DB in its PROF dir, rank from
	 * profiler_info */
	put("unparsed/h_9_20250101120000000_ascend_pt/profiler_info_6.json", "{}");
	put("unparsed/h_9_20250101120000000_ascend_pt/FRAMEWORK/x", NULL);
	put("unparsed/h_9_20250101120000000_ascend_pt/PROF_000001_20250101120000010_Z/"
	    "msprof_20250101120005.db",
	    NULL);
	put("unparsed/h_9_20250101120000000_ascend_pt/PROF_000001_20250101120000010_Z/device_0/"
	    "info.json.0",
	    "{\"rank_id\": 9}");
	w0 = msg_warn_count();
	run(tpath("unparsed"), "", &l);
	CHECK(l.n == 1 && l.v[0].kind == TL_SRC_MSPROF_DB && l.v[0].rank == 6 &&
	          strcmp(l.v[0].rank_from, "profiler_info file name") == 0,
	      "unparsed capture: PROF DB, rank 6 from profiler_info_6.json");
	CHECK(l.n == 1 && ends_with(l.v[0].dir, "h_9_20250101120000000_ascend_pt"),
	      "unparsed capture: dir is the capture");
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "unparsed capture with a DB: no warning");
	sourcelist_free(&l);

	put("empty/h_1_20250101120000000_ascend_pt/profiler_info_0.json", "{}");
	put("empty/h_1_20250101120000000_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
	    NULL);
	w0 = msg_warn_count();
	run(tpath("empty"), "", &l);
	CHECK_EQ_I64(l.n, 0, "capture without a timeline: nothing");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "capture without a timeline: one warning");
	sourcelist_free(&l);
}

static void
test_mindspore(void)
{
	put("ms/host_1_20250101120000123_ascend_ms/profiler_info_3.json", "{}");
	put("ms/host_1_20250101120000123_ascend_ms/ASCEND_PROFILER_OUTPUT/"
	    "ascend_mindspore_profiler_3.db",
	    NULL);
	tl_sourcelist l;
	run(tpath("ms"), "", &l);
	CHECK(l.n == 1 && l.v[0].kind == TL_SRC_MINDSPORE_DB && l.v[0].rank == 3,
	      "mindspore: DB with rank 3");
	CHECK(l.n == 1 && l.v[0].capture_ns == wall_ns(2025, 1, 1, 12, 0, 0, 123, 1),
	      "mindspore: capture time is UTC");
	sourcelist_free(&l);
}

/* msprof's per-iteration export (CANN <= 7.0) and MindSpore 1.x timelines */
static void
test_older(void)
{
	const char *d3 = "old/PROF_000001_20230101000000000_X/device_3";
	char rel[256];
	snprintf(rel, sizeof rel, "%s/info.json.3", d3);
	put(rel, "{\"rank_id\": 5, \"devices\": \"3\"}");
	static const char *const files[] = {"msprof_3_1_1.json", "msprof_3_1_2.json",
	                                    "msprof_3_0_1.json", "task_time_3_1_1.json",
	                                    "hccl_3_1_1.json",   "step_trace_3_1_1.json",
	                                    "msprof_3_1.json"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(rel, sizeof rel, "%s/timeline/%s", d3, files[i]);
		put(rel, "[]");
	}
	put("old/PROF_000002_20230101000000000_Y/device_4/info.json.4", "{\"devices\": \"4\"}");
	put("old/PROF_000002_20230101000000000_Y/device_4/timeline/msprof_4_1_1.json", "[]");
	tl_sourcelist l;
	unsigned w0 = msg_warn_count();
	run(tpath("old"), "", &l);
	CHECK_EQ_I64(l.n, 4, "older export: the msprof_{dev}_{model}_{iter} files, nothing else");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "older export: one line for the duplicates");
	size_t r5 = 0, models2 = 0;
	for (size_t i = 0; i < l.n; i++) {
		const tl_source *s = &l.v[i];
		CHECK(s->kind == TL_SRC_MSPROF_ITER, "older export: source %zu is per-iteration",
		      i);
		r5 += s->rank == 5 && strcmp(s->rank_from, "info.json rank_id") == 0;
		models2 += s->rank == 5 && s->models == 2;
	}
	CHECK(r5 == 3 && models2 == 3, "older export: device_3 is rank 5 (info.json), two models");
	const tl_source *s = find(&l, "/msprof_3_1_2.json");
	CHECK(s && s->model_id == 1 && s->iteration == 2, "older export: model 1 iteration 2");
	s = find(&l, "/msprof_4_1_1.json");
	CHECK(s && s->rank == 4 && s->models == 1 && strstr(s->rank_from, "device id"),
	      "older export: without rank_id, device_4 is rank 4");
	sourcelist_free(&l);

	/* one device folder */
	run(tpath("%s", d3), "", &l);
	CHECK(l.n == 3 && l.v[0].rank == 5, "older export: a device folder alone is its rank");
	sourcelist_free(&l);

	put("ms1/ascend_timeline_display_2.json", "[]");
	put("ms1/ascend_timeline_summary_2.json", "{}");
	put("ms1/step_trace_raw_2_detail_time.csv", "step_num\n");
	run(tpath("ms1"), "", &l);
	CHECK(l.n == 1 && l.v[0].kind == TL_SRC_MS_TIMELINE && l.v[0].rank == 2,
	      "MindSpore 1.x: the timeline is rank 2 by its name, its summary no source");
	sourcelist_free(&l);
}

static void
test_kineto(void)
{
	put("kin/trace_rank-3.json", "{\"traceEvents\":[]}");
	put("kin/dist.json", "{\"distributedInfo\": {\"rank\": 7}, \"traceEvents\": []}");
	put("kin/dist_rank-1.json", "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": \"8\"},"
	                            " \"traceEvents\": [{\"ph\": \"X\", \"name\": \"a}]\"}]}");
	put("kin/w_rank_5.pt.trace.json", "{\"traceEvents\":[{\"ph\":\"X\"");
	put("kin/rank12.json", "  [ {\"name\": \"x\", \"ph\": \"X\"} ]");
	put("kin/frank9.json", "{\"traceEvents\":[]}");
	put("kin/config.json", "{\"a\": 1, \"b\": [1, 2]}");
	put("kin/list.json", "[{\"a\": 1}]");
	put("kin/profiler_metadata.json", "{\"traceEvents\":[]}");
	put("kin/trace.json.gz", NULL);
	/* traceEvents only after the first 64 KB: not recognised */
	char *big = malloc(70000 + 64);
	strcpy(big, "{\"pad\": \"");
	memset(big + 9, 'x', 70000);
	strcpy(big + 9 + 70000, "\", \"traceEvents\": []}");
	put("kin/late.json", big);
	free(big);

	tl_sourcelist l;
	unsigned w0 = msg_warn_count();
	run(tpath("kin"), "", &l);
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "kineto: no warnings");
	CHECK_EQ_I64(l.n, 6, "kineto: six traces, non-trace JSON skipped");
	const tl_source *s = find(&l, "/trace_rank-3.json");
	CHECK(s && s->rank == 3 && s->kind == TL_SRC_KINETO &&
	          strcmp(s->rank_from, "file name") == 0,
	      "kineto: trace_rank-3.json is rank 3 from the file name");
	s = find(&l, "/dist.json");
	CHECK(s && s->rank == 7 && strcmp(s->rank_from, "distributedInfo") == 0,
	      "kineto: distributedInfo.rank 7");
	s = find(&l, "/dist_rank-1.json");
	CHECK(s && s->rank == 8, "kineto: distributedInfo beats the file name");
	s = find(&l, "/w_rank_5.pt.trace.json");
	CHECK(s && s->rank == 5, "kineto: rank_5 in the name; cut-off file still a trace");
	s = find(&l, "/rank12.json");
	CHECK(s && s->rank == 12, "kineto: array of events with ph; rank12");
	s = find(&l, "/frank9.json");
	CHECK(s && s->rank == -1 && strcmp(s->rank_from, "unknown") == 0,
	      "kineto: 'frank9' is no rank");
	CHECK(find(&l, "/config.json") == NULL && find(&l, "/list.json") == NULL &&
	          find(&l, "/profiler_metadata.json") == NULL && find(&l, "/late.json") == NULL,
	      "kineto: other JSON not listed");
	sourcelist_free(&l);

	run(tpath("kin/dist.json"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 7, "single Kineto file: rank 7");
	sourcelist_free(&l);
	CHECK_EQ_I64(run(tpath("kin/config.json"), "", &l), 0, "single non-trace JSON: 0");
	CHECK_EQ_I64(l.n, 0, "single non-trace JSON: nothing listed");
}

/* trace_view.json files collected loose, under any name: kind trace_view.json, rank from
 * profiler_info beside, the directory name, or unknown */
static void
test_loose_trace_view(void)
{
	static const char ev[] = "[{\"ph\": \"X\", \"name\": \"k\", \"pid\": 800, \"tid\": 7, "
	                         "\"ts\": \"1700000000000100.000\", \"dur\": 5}]";
	static const char named[] = "[{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 800, "
	                            "\"tid\": 0, \"args\": {\"name\": \"Ascend Hardware\"}}]";
	put("tvl/a/info/profiler_info_4.json", "{}");
	put("tvl/a/info/npu_trace.json", ev);
	put("tvl/b/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", ev);
	put("tvl/c/job_rank_6_x/dump.json", named);
	put("tvl/d/plain/trace_view.json", ev);
	put("tvl/e/kin/k.json", "[{\"ph\": \"X\", \"name\": \"x\", \"ts\": 1, \"dur\": 1}]");
	tl_sourcelist l;
	run(tpath("tvl"), "", &l);
	CHECK_EQ_I64(l.n, 5, "loose trace_view: five sources");
	const tl_source *s = find(&l, "/npu_trace.json");
	CHECK(
	    s && s->kind == TL_SRC_TRACE_VIEW && s->rank == 4 &&
	        strcmp(s->rank_from, "profiler_info file name") == 0,
	    "a trace_view by another name: kind trace_view.json, rank 4 from profiler_info beside");
	s = find(&l, "/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
	CHECK(s && s->kind == TL_SRC_TRACE_VIEW && s->rank == 3 &&
	          strcmp(s->rank_from, "directory name") == 0,
	      "rank3_ascend_pt without profiler_info: rank 3 from the directory name");
	s = find(&l, "/dump.json");
	CHECK(s && s->kind == TL_SRC_TRACE_VIEW && s->rank == 6,
	      "Ascend process names: trace_view.json; rank 6 from job_rank_6_x");
	s = find(&l, "/plain/trace_view.json");
	CHECK(s && s->rank == -1 && strcmp(s->rank_from, "unknown") == 0,
	      "no evidence: rank unknown");
	s = find(&l, "/kin/k.json");
	CHECK(s && s->kind == TL_SRC_KINETO, "numeric ts, no Ascend names: still Kineto JSON");
	sourcelist_free(&l);
	run(tpath("tvl/b/rank3_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 3, "the file alone: rank 3 from its capture directory");
	sourcelist_free(&l);
	put("tvl2/host_1_ascend_pt/profiler_info_6.json", "{}");
	put("tvl2/host_1_ascend_pt/copies/trace_view.json", ev);
	run(tpath("tvl2/host_1_ascend_pt/copies"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 6 &&
	          strcmp(l.v[0].rank_from, "profiler_info file name") == 0,
	      "a trace_view.json in a folder under its *_ascend_pt: rank 6 from its profiler_info");
	sourcelist_free(&l);
	run(tpath("tvl/a/info/npu_trace.json"), "", &l);
	CHECK(l.n == 1 && l.v[0].kind == TL_SRC_TRACE_VIEW && l.v[0].rank == 4,
	      "the file alone: trace_view.json, rank 4");
	sourcelist_free(&l);
}

static void
test_links_and_depth(void)
{
	tl_sourcelist l;
	put("loop/a/b/trace_rank-1.json", "{\"traceEvents\":[]}");
	link_to("..", "loop/a/b/up");
	link_to(".", "loop/a/self");
	link_to("a", "loop/alias");
	run(tpath("loop"), "", &l);
	CHECK_EQ_I64(l.n, 1, "symlink loops end; a file reached twice is listed once");
	sourcelist_free(&l);

	/* a directory symlink to elsewhere is followed once */
	put("elsewhere/trace_rank-2.json", "{\"traceEvents\":[]}");
	put("via/placeholder.txt", NULL);
	link_to("../elsewhere", "via/link");
	run(tpath("via"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 2, "directory symlink followed");
	sourcelist_free(&l);

	/* depth: the dir at depth 10 is read, the one at 11 is not */
	char rel[512] = "deep";
	for (int i = 1; i <= 11; i++) {
		size_t n = strlen(rel);
		snprintf(rel + n, sizeof rel - n, "/%d", i);
		if (i >= 10) {
			char f[600];
			snprintf(f, sizeof f, "%s/trace_rank-%d.json", rel, i);
			put(f, "{\"traceEvents\":[]}");
		}
	}
	unsigned w0 = msg_warn_count();
	run(tpath("deep"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 10, "depth: 10 levels walked, the 11th not");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "depth: one warning about the cut");
	sourcelist_free(&l);

	/* unreadable things: one warning each, the rest still found */
	put("broken/trace_rank-0.json", "{\"traceEvents\":[]}");
	link_to("/nonexistent/trace.json", "broken/trace_rank-1.json");
	link_to("/nonexistent/x", "broken/notes");
	w0 = msg_warn_count();
	run(tpath("broken"), "", &l);
	CHECK(l.n == 1 && l.v[0].rank == 0, "dangling symlink: the rest found");
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "dangling trace symlink: one warning");
	sourcelist_free(&l);

	if (geteuid() == 0) {
		SKIP("unreadable directory: running as root");
		SKIP("unreadable directory: running as root");
	} else {
		put("locked/ok/trace_rank-0.json", "{\"traceEvents\":[]}");
		put("locked/closed/trace_rank-1.json", "{\"traceEvents\":[]}");
		chmod(tpath("locked/closed"), 0);
		w0 = msg_warn_count();
		run(tpath("locked"), "", &l);
		CHECK(l.n == 1 && l.v[0].rank == 0, "unreadable directory: the rest found");
		CHECK_EQ_I64(msg_warn_count() - w0, 1, "unreadable directory: one warning");
		sourcelist_free(&l);
		chmod(tpath("locked/closed"), 0755);
	}
}

static void
test_samples(void)
{
	const char *srcdir = getenv("TL_SRCDIR");
	const char *samples = getenv("TL_SAMPLES");
	char def[4096], p[4200];
	if (samples == NULL || *samples == '\0') {
		snprintf(def, sizeof def, "%s/../shared/samples", srcdir && *srcdir ? srcdir : ".");
		samples = def;
	}
	struct stat st;
	if (stat(samples, &st) != 0 || !S_ISDIR(st.st_mode)) {
		SKIP("samples absent: %s", samples);
		return;
	}
	tl_sourcelist l;
	int r01[] = {0, 1};

	snprintf(p, sizeof p, "%s/ascend-db/level0", samples);
	CHECK_EQ_I64(run(p, "", &l), 0, "samples ascend-db/level0: discover");
	check_ranks(&l, r01, 2, TL_SRC_TORCH_DB, "samples ascend-db/level0");
	CHECK(l.n == 2 && strcmp(l.v[0].rank_from, "file name") == 0,
	      "samples ascend-db/level0: rank from the DB name");
	sourcelist_free(&l);

	snprintf(p, sizeof p, "%s/ascend-db", samples);
	run(p, "1", &l);
	CHECK(l.n == 2 && l.v[0].rank == 1 && l.v[1].rank == 1,
	      "samples ascend-db --rank 1: level0 and level2 captures both kept");
	sourcelist_free(&l);

	snprintf(p, sizeof p, "%s/ascend-text/level1", samples);
	run(p, "", &l);
	check_ranks(&l, r01, 2, TL_SRC_TRACE_VIEW, "samples ascend-text/level1");
	CHECK(l.n == 2 && strcmp(l.v[1].rank_from, "profiler_info file name") == 0,
	      "samples ascend-text/level1: rank from profiler_info_{r}.json");
	sourcelist_free(&l);

	snprintf(p, sizeof p, "%s/kineto", samples);
	run(p, "", &l);
	const tl_source *s = find(&l, "/trace_filter__sampled_rank-0.json");
	CHECK(s && s->rank == 0 && s->kind == TL_SRC_KINETO, "samples kineto: sampled_rank-0 is 0");
	s = find(&l, "/trace_filter__sampled_rank-1.json");
	CHECK(s && s->rank == 1 && s->kind == TL_SRC_KINETO, "samples kineto: sampled_rank-1 is 1");
	s = find(&l, "/cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json");
	CHECK(s && s->rank == 34 && strcmp(s->rank_from, "distributedInfo") == 0,
	      "samples kineto: cpu_only is rank 34 (distributedInfo)");
	size_t nk = 0;
	for (size_t i = 0; i < l.n; i++)
		nk += l.v[i].kind == TL_SRC_KINETO;
	CHECK(nk == l.n && l.n >= 3, "samples kineto: all %zu files are Kineto traces", l.n);
	sourcelist_free(&l);
}

/* Capture time: profiler_info's end_info.collectionTimeEnd to the ns (more digits than a
 * double keeps), else the stamp in the directory name, else the file's time, each said. */
static void
test_capture_time(void)
{
	put("cap/a_1_20250101120000123_ascend_pt/profiler_info_0.json",
	    "{\"rank_id\": 0, \"end_info\": {\"collectionTimeEnd\": 1736407068203015517, "
	    "\"MonotonicTimeEnd\": 170348444595830}}");
	put("cap/a_1_20250101120000123_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
	    "[{\"ph\":\"X\"}]");
	put("cap/b_1_20250101120000456_ascend_pt/profiler_info_1.json",
	    "{\"end_info\": {\"collectionTimeEnd\": \"1736407068203015999\"}}");
	put("cap/b_1_20250101120000456_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
	    "[{\"ph\":\"X\"}]");
	/* not a wall-clock time: ignored, the name's stamp holds */
	put("cap/c_1_20250101120000789_ascend_pt/profiler_info_2.json",
	    "{\"end_info\": {\"collectionTimeEnd\": 12}}");
	put("cap/c_1_20250101120000789_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
	    "[{\"ph\":\"X\"}]");
	/* past int64_t (the cast was undefined): ignored too */
	put("cap/d_1_20250101120000321_ascend_pt/profiler_info_4.json",
	    "{\"end_info\": {\"collectionTimeEnd\": 1e999}}");
	put("cap/d_1_20250101120000321_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
	    "[{\"ph\":\"X\"}]");
	put("cap/loose/trace_view_3.json", "[{\"ph\":\"X\"}]");
	tl_sourcelist l;
	CHECK_EQ_I64(run(tpath("cap"), "", &l), 0, "capture times: discover returns 0");
	CHECK_EQ_I64(l.n, 5, "capture times: five sources");
	/* by their directories: the unranked loose file sorts first */
	const tl_source *sa = NULL, *sb = NULL, *sc = NULL, *sd = NULL, *sl = NULL;
	for (size_t i = 0; i < l.n; i++) {
		const char *d = l.v[i].dir;
		if (strstr(d, "/a_1_"))
			sa = &l.v[i];
		else if (strstr(d, "/b_1_"))
			sb = &l.v[i];
		else if (strstr(d, "/c_1_"))
			sc = &l.v[i];
		else if (strstr(d, "/d_1_"))
			sd = &l.v[i];
		else if (strstr(d, "/loose"))
			sl = &l.v[i];
	}
	CHECK(sa && sa->capture_ns == INT64_C(1736407068203015517) &&
	          sa->capture_from == TL_CAPTURE_PROFILER_INFO,
	      "collectionTimeEnd to the ns, over the name's stamp (%lld)",
	      sa ? (long long)sa->capture_ns : 0LL);
	CHECK(sb && sb->capture_ns == INT64_C(1736407068203015999) &&
	          sb->capture_from == TL_CAPTURE_PROFILER_INFO,
	      "collectionTimeEnd written as a string");
	CHECK(sc && sc->capture_ns == wall_ns(2025, 1, 1, 12, 0, 0, 789, 0) &&
	          sc->capture_from == TL_CAPTURE_NAME,
	      "a value that is no wall-clock time is ignored: the directory's stamp");
	CHECK(sd && sd->capture_ns == wall_ns(2025, 1, 1, 12, 0, 0, 321, 0) &&
	          sd->capture_from == TL_CAPTURE_NAME,
	      "a number past int64_t is ignored: the directory's stamp");
	struct stat st;
	CHECK(sl && stat(sl->path, &st) == 0 &&
	          sl->capture_ns == (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec &&
	          sl->capture_from == TL_CAPTURE_FILE_TIME,
	      "nothing else: the file's modification time, marked as such");
	sourcelist_free(&l);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(tmproot, sizeof tmproot, "%s/tl_discover_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmproot) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	msg_set_quiet(1);
	test_kind_names();
	test_torch();
	test_verl();
	test_msprof();
	test_mindspore();
	test_older();
	test_kineto();
	test_loose_trace_view();
	test_links_and_depth();
	test_samples();
	test_capture_time();
	nftw(tmproot, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return test_done();
}
