/* The Chrome-trace JSON loader on real files, and the generator's JSON writer
 * (src/gen/gen_json.c): the real samples against torch_npu's own step_trace_time.csv and
 * msprof's Overlap Analysis, Kineto samples, every Overlap Analysis process in the samples, and
 * the same profile as DB and as trace_view.json (both layouts). Synthetic input is
 * test_json.c's. */
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
	snprintf(base, sizeof base, "%s/ascend-text/level1", test_samples_dir());
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
	snprintf(base, sizeof base, "%s/kineto", test_samples_dir());
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
	/* the same in the findings' evidence: "collectives of group NAME, " -> "... group , " */
	p = s;
	while ((p = strstr(p, "collectives of group ")) != NULL) {
		char *v = p + 21, *q = strstr(v, ", ");
		if (q == NULL)
			break;
		memmove(v, q, strlen(q) + 1);
		p = v;
	}
	return s;
}

static void
same_summary_but(const char *db_root, const char *json_root, const char *what, const char *but)
{
	char *a = without_db_only(summary_json(db_root, NULL));
	char *b = without_db_only(summary_json(json_root, NULL));
	if (but != NULL && a != NULL && b != NULL) {
		drop_member(a, but);
		drop_member(b, but);
	}
	CHECK(a != NULL && b != NULL && strcmp(a, b) == 0,
	      "%s: tl summary --json identical from the DB and from trace_view.json", what);
	if (a && b && strcmp(a, b) != 0)
		printf("# DB:   %s# JSON: %s", a, b);
	free(a);
	free(b);
}

static void
same_summary(const char *db_root, const char *json_root, const char *what)
{
	same_summary_but(db_root, json_root, what, NULL);
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
		/* but the critical path: with the operator pairs, the DB's launches and the JSON's
		 * flows split two of its gaps differently (host_launch against idle, 100 us of
		 * 21 ms; tl critical did so before the summary had a path): open */
		same_summary_but(pp, ppj, what, "critical_path");
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
		char *src = xasprintf("%s/ascend-db/%s", test_samples_dir(), levels[i]);
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
	snprintf(base, sizeof base, "%s", test_samples_dir());
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
	if (json_test_begin("json-samples") != 0)
		return 1;
	test_ascend_text_sample();
	test_kineto_samples();
	test_db_vs_json();
	test_older_trace_view();
	test_all_overlap_analyses();
	return json_test_end();
}
