/* The RL triage analyses against hand-computed numbers: stage rules, Dixon / 3-sigma, imbalance
 * maths, a hand-built trace's repeated and nested stages and bubble reasons, and the plain
 * answers for profiles without RL ranges, without PP, or with one rank, and for discrete-mode
 * role captures. The generator's RL profiles are test_rl_profile.c's, pipeline parallelism
 * test_pipeline.c's. */
#include "config.h"

#include <cJSON.h>
#include <glob.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/lanes.h"
#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"
#include "rl_test.h"

/* ---- stage rules ------------------------------------------------------------------------- */

static const char *
cls(const tl_stage_rules *R, const char *name)
{
	int k = stage_rules_classify(R, name, strlen(name));
	return k == TL_STAGE_IGNORED ? "(ignored)"
	       : k == TL_STAGE_NONE  ? "(none)"
	                             : stage_rules_name(R, k);
}

static void
test_rules(void)
{
	tl_stage_rules *R = stage_rules_from_text(stages_default_text, "built-in");
	CHECK_EQ_I64(stage_rules_errors(R), 0, "the built-in rules compile");
	static const char *const cases[][2] = {
	    /* verl worker ranges: order decides */
	    {"compute_ref_log_prob", "ref_logprob"},
	    {"compute_log_prob", "actor_logprob"},
	    {"generate_sequences", "rollout"},
	    {"update_actor", "actor_update"},
	    {"update_critic", "critic_update"},
	    {"compute_values", "values"},
	    {"compute_rm_score", "reward"},
	    /* verl trainer timers */
	    {"gen", "rollout"},
	    {"old_log_prob", "actor_logprob"},
	    {"ref", "ref_logprob"},
	    {"adv", "advantage"},
	    {"update_weights", "weight_sync"},
	    {"step", "(ignored)"},
	    {"save_checkpoint", "(ignored)"},
	    /* MindSpeed-RL qualnames */
	    {"ActorHybridWorkerBase.generate_sequences", "rollout"},
	    {"ActorHybridWorkerBase.compute_log_prob", "actor_logprob"},
	    {"ActorHybridWorkerBase.update", "actor_update"},
	    {"IntegratedWorker.compute_ref_log_prob", "ref_logprob"},
	    {"ReferenceWorkerBase.compute_ref_log_prob", "ref_logprob"},
	    {"Reference.compute_log_prob", "ref_logprob"},
	    {"CriticWorkerBase.compute_values", "values"},
	    {"CriticWorkerBase.update", "critic_update"},
	    {"Critic.update_critic", "critic_update"},
	    {"Reward.compute_rm_score", "reward"},
	    {"compute_advantage", "advantage"},
	    {"MegatronShardingManager.enter_infer_mode", "weight_sync"},
	    /* discrete-mode role directories */
	    {"rollout_generate", "rollout"},
	    {"actor_generate", "rollout"},
	    {"ref_compute_log_prob", "ref_logprob"},
	    {"reference_compute_log_prob", "ref_logprob"},
	    {"actor_compute_log_prob", "actor_logprob"},
	    {"critic_compute_values", "values"},
	    {"actor_update", "actor_update"},
	    /* record_function names */
	    {"Rollout", "rollout"},
	    {"advantages", "advantage"},
	    /* not stages */
	    {"hcom_allReduce__123_4_1", "(none)"},
	    {"decode_step", "(none)"},
	    {"{'name': 'forward_step'}", "(none)"},
	    {"BaseWorker.empty_cache", "(none)"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char m[160];
		snprintf(m, sizeof m, "built-in rule: %s is %s", cases[i][0], cases[i][1]);
		CHECK_STR(cls(R, cases[i][0]), cases[i][1], m);
	}
	static const char *const pp[][2] = {
	    {"{'name': 'forward_step'}", "F"},
	    {"{'name': 'backward_step'}", "B"},
	    {"forward_step", "F"},
	    {"backward_step", "B"},
	    {"{\"name\": \"backward_step\", \"current_microbatch\": 3}", "B"},
	    {"forward_step_with_model_graph", "F"},
	    {"generate_sequences", "-"},
	    {"forward", "-"},
	};
	for (size_t i = 0; i < sizeof pp / sizeof *pp; i++) {
		int k = stage_rules_pp(R, pp[i][0], strlen(pp[i][0]));
		char got[2] = {k ? (char)k : '-', 0};
		char m[160];
		snprintf(m, sizeof m, "pp rule: %s", pp[i][0]);
		CHECK_STR(got, pp[i][1], m);
	}
	CHECK(stage_rules_is_decode(R, "decode_step", 11), "decode_step is a decode step");
	CHECK(!stage_rules_is_decode(R, "generate_sequences", 18), "generate_sequences is not");
	CHECK_EQ_I64(
	    pipeline_parse_microbatch("{'name': 'forward_step', 'current_microbatch': 12}"), 12,
	    "micro-batch from the message");
	CHECK_EQ_I64(pipeline_parse_microbatch("{\"name\": \"backward_step\", \"microbatch\": 0}"),
	             0, "micro-batch 0 from a JSON message");
	CHECK_EQ_I64(pipeline_parse_microbatch("{'name': 'forward_step'}"), -1, "no micro-batch");
	stage_rules_free(R);

	/* a pattern that backtracks exponentially gives up instead of hanging */
	R = stage_rules_from_text("rollout ^(a+)+$\nreward ^b$\n", "evil");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	const char *evil =
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab";
	int k = stage_rules_classify(R, evil, strlen(evil));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	CHECK(k == TL_STAGE_NONE && secs < 2.0, "a catastrophic pattern gives up (%.3f s)", secs);
	CHECK_STR(cls(R, "b"), "reward", "... and the next rule still applies");
	stage_rules_free(R);

	/* a user file: tried first, with its own stages; a bad line is named and skipped */
	char *cfg = xasprintf("%s/cfg-user", tmp), *dir = xasprintf("%s/tl", cfg);
	char *file = xasprintf("%s/stages", dir);
	mkdir(cfg, 0700);
	mkdir(dir, 0700);
	FILE *f = fopen(file, "w");
	fprintf(f, "# mine\nother:filter ^filter_batch$\nrollout ^my_gen$\nactor_update "
	           "^compute_log_prob$\n"
	           "bogus ^x$\nrollout ([\n");
	fclose(f);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	msg_set_quiet(1);
	R = stage_rules_load(NULL);
	msg_set_quiet(0);
	CHECK_EQ_I64(stage_rules_errors(R), 2,
	             "two bad user lines (unknown stage, bad pattern) reported");
	CHECK_STR(cls(R, "my_gen"), "rollout", "user rule: my_gen is rollout");
	CHECK_STR(cls(R, "filter_batch"), "other:filter", "user stage other:filter");
	CHECK_STR(cls(R, "compute_log_prob"), "actor_update",
	          "a user rule overrides a built-in one");
	CHECK_STR(cls(R, "compute_ref_log_prob"), "ref_logprob",
	          "built-in rules still apply after");
	stage_rules_free(R);
	f = fopen(file, "w");
	fprintf(f, "clear\nreward ^score$\n");
	fclose(f);
	R = stage_rules_load(NULL);
	CHECK_STR(cls(R, "score"), "reward", "after clear: the user's rule");
	CHECK_STR(cls(R, "generate_sequences"), "(none)", "after clear: no built-in rule");
	CHECK(stage_rules_pp(R, "forward_step", 12) == 0,
	      "after clear: no built-in pp rule either");
	stage_rules_free(R);
	unlink(file);
	rmdir(dir);
	rmdir(cfg);
	free(file);
	free(dir);
	free(cfg);
	/* from here on: no user file */
	char *empty = xasprintf("%s/cfg-empty", tmp);
	mkdir(empty, 0700);
	setenv("XDG_CONFIG_HOME", empty, 1);
	free(empty);
}

/* ---- Dixon, 3 sigma, imbalance maths ----------------------------------------------------- */

static void
test_judge(void)
{
	size_t out[200];
	double a[8] = {100, 100.5, 101, 101.5, 102, 103, 104, 10};
	/* n = 8: r = (x2 - x1) / (x7 - x1) = 90 / 93 = 0.968 > 0.723 */
	CHECK(slowrank_judge(a, 8, out) == 1 && out[0] == 7, "Dixon n=8 flags the low outlier");
	double b[8] = {10, 11, 12, 13, 14, 15, 16, 17}; /* r = 1/6 */
	CHECK(slowrank_judge(b, 8, out) == 0, "Dixon n=8: an even spread has no outlier");
	double c[8] = {1, 1, 1, 5, 5, 5, 9, 9};
	CHECK(slowrank_judge(c, 8, out) == 0, "Dixon: three distinct values are never judged");
	CHECK(slowrank_judge(a, 2, out) == 0, "Dixon: two values are never judged");
	double d[4] = {19.3, 10, 19.9, 20}; /* n = 4: r = 9.3 / 10 = 0.93 > 0.920 */
	CHECK(slowrank_judge(d, 4, out) == 1 && out[0] == 1, "Dixon n=4 just above the table");
	double e[4] = {19.1, 10, 19.9, 20}; /* r = 0.91 < 0.920 */
	CHECK(slowrank_judge(e, 4, out) == 0, "Dixon n=4 just below the table");
	double g[12] = {50, 50.2, 50.4, 50.6, 50.8, 51, 51.2, 51.4, 51.6, 51.8, 40, 40.5};
	/* n = 12: r = (x3 - x1) / (x11 - x1) = 10 / 11.6 = 0.862 > 0.675; the first minimum */
	CHECK(slowrank_judge(g, 12, out) == 1 && out[0] == 10, "Dixon n=12 uses x3 and x(n-1)");
	double h[150];
	for (int i = 0; i < 150; i++)
		h[i] = 100 + (i % 5);
	h[42] = 50;
	CHECK(slowrank_judge(h, 150, out) == 1 && out[0] == 42, "n > 100: 3 sigma below the mean");
	for (int i = 0; i < 150; i++)
		h[i] = 100 + (i % 5);
	h[7] = 400; /* one high outlier: the argmin (first 100) is added */
	size_t nf = slowrank_judge(h, 150, out);
	CHECK(nf == 1 && out[0] == 0, "n > 100: max above 3 sigma flags the minimum (got %zu)", nf);

	tl_imb_rank v[3] = {{.rank = 0, .start = 90, .end = 100, .duration = 10, .busy = 5},
	                    {.rank = 1, .start = 90, .end = 110, .duration = 20, .busy = 20},
	                    {.rank = 2, .start = 100, .end = 130, .duration = 30, .busy = 0}};
	tl_imb_stats st;
	imbalance_compute(v, 3, &st);
	CHECK(fabs(st.max_over_mean - 1.5) < 1e-12, "max/mean = 30 / 20");
	CHECK(fabs(st.cv - sqrt(200.0 / 3) / 20) < 1e-12, "cv = population std / mean (%.6f)",
	      st.cv);
	CHECK(st.slowest == 2 && st.skew == 30, "slowest = latest end, skew = 130 - 100");
	CHECK(v[0].wait == 30 && v[1].wait == 20 && v[2].wait == 0, "wait-for-slowest");
	CHECK(fabs(v[0].idle_fraction - 0.5) < 1e-12 && v[1].idle_fraction == 0 &&
	          v[2].idle_fraction == 1,
	      "idle fraction = 1 - busy / duration");
	CHECK(st.longest == 2, "the longest-running rank is the one that finished last here");
	v[2].end = 110;
	imbalance_compute(v, 3, &st);
	CHECK(st.slowest == 2, "a tie on the end goes to the rank that started last");
	/* rank 0 starts first and runs longest, rank 1 starts late and finishes last */
	tl_imb_rank u[2] = {{.rank = 0, .start = 0, .end = 100, .duration = 100},
	                    {.rank = 1, .start = 60, .end = 120, .duration = 60}};
	imbalance_compute(u, 2, &st);
	CHECK(st.slowest == 1 && st.longest == 0,
	      "last to finish (rank 1) and longest running (rank 0) are told apart");
}

/* ---- a hand-built trace: repeated and nested stages, bubble reasons ------------------- */

static tl_rank *
hand_rank(int rank, int64_t lp_end, int64_t gen_end)
{
	tl_rank *r = rank_new(rank);
	uint32_t dom = strpool_intern_cstr(r->pool, "default");
	tl_track *m = rank_track(r, TL_LANE_MSTX, dom, "default");
	uint32_t lp = strpool_intern_cstr(r->pool, "compute_log_prob");
	track_push(m, 100, lp_end, lp, 0);
	track_push(m, 400, 400 + (lp_end - 100), lp, 1);
	track_push(m, 700, gen_end, strpool_intern_cstr(r->pool, "generate_sequences"), 2);
	track_push(m, 750, 800,
	           strpool_intern_cstr(r->pool, "MegatronShardingManager.enter_infer_mode"), 3);
	tl_track *c = rank_track(r, TL_LANE_COMPUTE, 1, "Stream 1");
	static const int64_t k[][2] = {{110, 200}, {200, 290},  {410, 590},
	                               {760, 790}, {900, 1000}, {1500, 1900}};
	uint32_t kn = strpool_intern_cstr(r->pool, "MatMul");
	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		track_push(c, k[i][0], k[i][1], kn, (uint32_t)i);
	tl_track *o = rank_track(r, TL_LANE_OTHER, 2, "Stream 2");
	track_push(o, 1010, 1490, strpool_intern_cstr(r->pool, "EVENT_WAIT"), 0);
	/* the collective the stream waits for: a wait is a collective's only beside one */
	tl_track *ct = rank_track(r, TL_LANE_COMM_TASK, 3, "Stream 3");
	track_push(ct, 1490, 1500, strpool_intern_cstr(r->pool, "Notify_Record"), 0);
	r->steps = xcalloc(1, sizeof *r->steps);
	r->steps[0] = (tl_step){7, 0, 100000};
	r->nsteps = r->scap = 1;
	rank_finish(r);
	r->loaded = 1;
	return r;
}

static void
test_handmade(void)
{
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	tr.ranks[0] = hand_rank(0, 300, 2000);
	tr.ranks[1] = hand_rank(1, 350, 2500);
	tr.nranks = 2;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_stage_row *v;
	size_t n = tlq_stages(rl, &v);
	CHECK_EQ_I64(n, 8, "four stage instances per rank");
	static const struct {
		size_t i;
		const char *stage;
		int occ, level;
		int64_t start, end, busy, lag;
	} want[] = {
	    {0, "actor_logprob", 0, 0, 100, 300, 180, 0},
	    {1, "actor_logprob", 1, 0, 400, 600, 180, 0},
	    {2, "rollout", 0, 0, 700, 2000, 530, 0},
	    {3, "weight_sync", 0, 1, 750, 800, 30, 0},
	    {4, "actor_logprob", 0, 0, 100, 350, 180, 50},
	    {5, "actor_logprob", 1, 0, 400, 650, 180, 50},
	    {6, "rollout", 0, 0, 700, 2500, 530, 500},
	};
	for (size_t w = 0; w < sizeof want / sizeof *want && n == 8; w++) {
		const tl_stage_row *x = &v[want[w].i];
		CHECK(strcmp(tlq_stage_name(rl, x->stage), want[w].stage) == 0 &&
		          x->occurrence == want[w].occ && x->level == want[w].level &&
		          x->start == want[w].start && x->end == want[w].end &&
		          x->busy == want[w].busy && x->lag == want[w].lag && x->step == 7,
		      "row %zu: %s #%d level %d [%lld, %lld] busy %lld lag %lld", want[w].i,
		      tlq_stage_name(rl, x->stage), x->occurrence, x->level, (long long)x->start,
		      (long long)x->end, (long long)x->busy, (long long)x->lag);
	}
	const tl_imbalance *im = tlq_imbalance(rl, TL_STAGE_ACTOR_LOGPROB, 7);
	CHECK(im && im->n == 2 && im->ranks[0].duration == 400 && im->ranks[1].duration == 500 &&
	          im->ranks[0].wait == 50 && im->ranks[1].wait == 0 && im->st.slowest == 1,
	      "repeated instances add up per rank; the wait is to the last one's end");
	const tl_rl_bubble *b;
	size_t nb = tlq_bubbles(rl, &b);
	static const struct {
		int64_t s, e;
		const char *stage;
		tl_bubble_reason why;
	} bw[] = {
	    {1000, 1500, "rollout", TL_BUBBLE_COLLECTIVE_WAIT},
	    {590, 760, NULL, TL_BUBBLE_NOTHING},
	    {290, 410, NULL, TL_BUBBLE_NOTHING},
	    {790, 900, "rollout", TL_BUBBLE_LAUNCH_GAP},
	};
	CHECK_EQ_I64(nb, 8, "four bubbles per rank");
	for (size_t w = 0; w < 4 && nb == 8; w++) {
		const char *sn = tlq_stage_name(rl, b[w].stage);
		CHECK(b[w].start == bw[w].s && b[w].end == bw[w].e && b[w].reason == bw[w].why &&
		          b[w].step == 7 &&
		          (bw[w].stage ? sn && strcmp(sn, bw[w].stage) == 0 : sn == NULL),
		      "bubble %zu: [%lld, %lld] %s %s (%s)", w, (long long)b[w].start,
		      (long long)b[w].end, sn ? sn : "-", bubble_reason_name(b[w].reason),
		      b[w].detail);
	}
	CHECK(nb == 8 && strstr(b[1].detail, "after compute_log_prob, before generate_sequences"),
	      "a gap between stages names them");
	tlq_close(rl);
	trace_free(&tr);
}

/* A wait with no communication anywhere near (a single-GPU inference trace whose host thread
 * waits in Python, its wait on a lane that is not compute): not a collective's wait; with a
 * collective right after the gap it is. */
static void
test_wait_without_comm(void)
{
	for (int with_comm = 0; with_comm < 2; with_comm++) {
		tl_trace tr;
		trace_init(&tr);
		tr.ranks = xcalloc(1, sizeof *tr.ranks);
		tl_rank *r = rank_new(0);
		tl_track *c = rank_track(r, TL_LANE_COMPUTE, 1, "stream 7");
		uint32_t kn = strpool_intern_cstr(r->pool, "gemm");
		track_push(c, 0, 100, kn, 0);
		track_push(c, 600, 700, kn, 1);
		tl_track *o = rank_track(r, TL_LANE_OTHER, 2, "thread 1");
		track_push(o, 100, 600, strpool_intern_cstr(r->pool, "threading.py(324): wait"), 0);
		if (with_comm) {
			tl_track *m = rank_track(r, TL_LANE_COMM, 3, "stream 20");
			track_push(m, 600, 650,
			           strpool_intern_cstr(r->pool, "ncclKernel_AllReduce"), 0);
		}
		rank_finish(r);
		r->loaded = 1;
		tr.ranks[0] = r;
		tr.nranks = 1;
		tl_query *q = tlq_open(&tr, NULL);
		const tl_rl_bubble *b;
		size_t nb = tlq_bubbles(q, &b);
		CHECK(nb == 1 && b[0].start == 100 && b[0].end == 600 &&
		          (b[0].reason == TL_BUBBLE_COLLECTIVE_WAIT) == with_comm,
		      "a wait %s communication beside the gap is %s (%zu bubbles, %s)",
		      with_comm ? "with" : "without", with_comm ? "collective_wait" : "not", nb,
		      nb ? bubble_reason_name(b[0].reason) : "-");
		tlq_close(q);
		trace_free(&tr);
	}
}

/* ---- plain answers: one rank, no RL ranges; discrete-mode role captures ------------------ */

static void
test_plain(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 1;
	o.nsteps = 1;
	o.tasks_per_rank = 3000;
	o.slow_rank = -1;
	gen_truth t;
	tl_trace tr;
	if (gen_load(&o, "one", &t, &tr)) {
		char *txt = summary(&tr, 0), *js = summary(&tr, 1);
		CHECK(
		    txt &&
		        strstr(txt,
		               "DP load imbalance: needs at least two ranks; this profile has 1."),
		    "one rank: imbalance says why it is empty");
		CHECK(txt && strstr(txt, "Slow ranks: needs at least two ranks"),
		      "one rank: slow ranks too");
		CHECK(txt && strstr(txt, "Pipeline parallelism: needs at least two ranks"),
		      "one rank: the pipeline too");
		CHECK(txt && strstr(txt, "RL stages per rank"),
		      "one rank: its stages are still listed");
		CHECK(js && strstr(js, "\"imbalance\":[]") && strstr(js, "\"slow_ranks\":[]") &&
		          strstr(js, "\"pipeline\":[]"),
		      "one rank: empty JSON arrays, not missing ones");
		free(txt);
		free(js);
		trace_free(&tr);
		gen_truth_free(&t);
	}
	o.nranks = 2;
	o.no_stage_ranges = 1;
	if (gen_load(&o, "noranges", &t, &tr)) {
		char *txt = summary(&tr, 0), *js = summary(&tr, 1);
		CHECK(txt && strstr(txt, "RL stages: none found"), "no RL ranges: said so");
		CHECK(txt &&
		          strstr(txt, "DP load imbalance: no RL stage ran on two ranks or more."),
		      "no RL ranges: the imbalance says so");
		CHECK(js && strstr(js, "\"stages\":[]") && strstr(js, "\"imbalance\":[]"),
		      "no RL ranges: empty JSON arrays");
		const tl_rl_bubble *bv;
		tl_query *rl = tlq_open(&tr, NULL);
		size_t nb = tlq_bubbles(rl, &bv), none = 0;
		for (size_t i = 0; i < nb; i++)
			none += bv[i].stage == TL_STAGE_NONE && bv[i].reason == TL_BUBBLE_NOTHING;
		CHECK(nb > 0 && none == nb,
		      "no ranges: bubbles have no stage and nothing scheduled");
		tlq_close(rl);
		free(txt);
		free(js);
		trace_free(&tr);
		gen_truth_free(&t);
	}

	/* verl discrete mode: <step>/<role>/ captures without ranges are one stage each */
	char *root = xasprintf("%s/discrete", tmp), *d1 = xasprintf("%s/1", root);
	mkdir(root, 0700);
	mkdir(d1, 0700);
	gen_truth ta, tb;
	o.nranks = 2;
	o.t0_ns = 1736407067000000000LL;
	char *pa = xasprintf("%s/rollout_generate", d1), *pb = xasprintf("%s/actor_update", d1);
	int ok = gen_profile(&o, pa, &ta) == 0;
	o.t0_ns += 10000000000LL; /* ten seconds later */
	ok = ok && gen_profile(&o, pb, &tb) == 0;
	CHECK(ok, "generate two discrete-mode captures per rank");
	tl_load_opts lo = {.quiet_progress = 1};
	if (ok && load_trace(root, &lo, &tr) == 0) {
		tl_query *rl = tlq_open(&tr, NULL);
		const tl_stage_row *sv;
		size_t ns = tlq_stages(rl, &sv), good = 0;
		for (size_t i = 0; i < ns; i++) {
			const gen_truth *g =
			    strcmp(tlq_stage_name(rl, sv[i].stage), "rollout") == 0        ? &ta
			    : strcmp(tlq_stage_name(rl, sv[i].stage), "actor_update") == 0 ? &tb
			                                                                   : NULL;
			good += g && sv[i].from_role && sv[i].step == 1 &&
			        sv[i].start == g->steps[0].start_ns &&
			        sv[i].end == g->steps[g->nsteps - 1].end_ns;
		}
		CHECK(ns == 4 && good == 4,
		      "each role capture is one stage over its envelope, named by its role (%zu of "
		      "%zu)",
		      good, ns);
		const tl_imbalance *im = tlq_imbalance(rl, TL_STAGE_ACTOR_UPDATE, 1);
		CHECK(im && im->n == 2, "role stages feed the DP imbalance");
		tlq_close(rl);
		trace_free(&tr);
	}
	gen_truth_free(&ta);
	gen_truth_free(&tb);
	free(pa);
	free(pb);
	free(d1);
	free(root);
}

int
main(void)
{
	if (rl_test_begin("rl") != 0)
		return test_done();
	test_rules();
	test_judge();
	test_handmade();
	test_wait_without_comm();
	test_plain();
	rm_rf(tmp);
	return test_done();
}
