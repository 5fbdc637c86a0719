/* The RL triage analyses against hand-computed numbers and against the generator's
 * ground truth, which the generator knows by construction (it lays the timeline out; it does
 * not run these analyses): stage rules, Dixon / 3-sigma, imbalance maths, stage rows, DP
 * imbalance, slow-rank votes, bubbles, pipeline blocks and bubble ratios for 1F1B and GPipe,
 * the PP stage from distributed_args / partners / --pp, discrete-mode role captures, and the
 * plain answers for profiles without RL ranges, without PP, or with one rank. */
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
#include "load/load.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static char tmp[64];

static void
rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "shell: %s", cmd);
	free(cmd);
}

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

/* ---- generated profiles ---------------------------------------------------------------- */

static int
gen_load(const gen_opts *o, const char *name, gen_truth *t, tl_trace *tr)
{
	char *out = xasprintf("%s/%s", tmp, name);
	memset(t, 0, sizeof *t);
	int ok = gen_profile(o, out, t) == 0;
	CHECK(ok, "generate %s", name);
	tl_load_opts lo = {.quiet_progress = 1};
	ok = ok && load_trace(out, &lo, tr) == 0;
	CHECK(ok, "load %s", name);
	free(out);
	return ok;
}

static char *
summary(tl_trace *tr, int json)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	tl_query *q = tlq_open(tr, NULL);
	if (json)
		report_summary_json(f, q);
	else
		report_summary_text(f, q);
	tlq_close(q);
	fclose(f);
	return s;
}

static int
same_bubble(const tl_rl_bubble *a, const tl_rl_bubble *b)
{
	return a->rank == b->rank && a->start == b->start && a->end == b->end &&
	       a->step == b->step && a->stage == b->stage && a->reason == b->reason &&
	       strcmp(a->detail, b->detail) == 0;
}

/* The viewer's bubbles (tlq_bubble_largest / _next / _at, with the overlap lanes built as
 * `tl view` builds them) are the summary's: the same gaps, stages, steps, reasons, evidence. */
static void
test_viewer_bubbles(tl_trace *tr)
{
	tl_query *rl = tlq_open(tr, NULL);
	const tl_rl_bubble *v;
	size_t n = tlq_bubbles(rl, &v);
	tl_rl_bubble *plain = xcalloc(n ? n : 1, sizeof *plain);
	memcpy(plain, v, n * sizeof *plain);
	tlq_close(rl);

	lanes_build(tr, 0);
	rl = tlq_open(tr, NULL);
	size_t n2 = tlq_bubbles(rl, &v), same = 0;
	for (size_t i = 0; i < n && n2 == n; i++)
		same += same_bubble(&plain[i], &v[i]);
	CHECK(n > 0 && n2 == n && same == n,
	      "the summary's bubbles read from the Free lane equal those from the unions (%zu)", n);

	/* B: the first bubble of each rank in the list of the largest is the rank's largest */
	size_t nl = tlq_bubble_largest(rl, 1000000, 0, NULL), ranks = 0, agree = 0;
	unsigned char *seen = xcalloc(tr->nranks, 1);
	int64_t prev = INT64_MAX;
	int ordered = 1;
	for (size_t i = 0; i < nl; i++) {
		tl_rl_bubble b;
		tlq_bubble_largest(rl, 1000000, i, &b);
		ordered &= b.end - b.start <= prev;
		prev = b.end - b.start;
		if (seen[b.rank])
			continue;
		seen[b.rank] = 1;
		ranks++;
		for (size_t k = 0; k < n; k++)
			if (plain[k].rank == b.rank) { /* by rank, longest first */
				agree += same_bubble(&b, &plain[k]);
				break;
			}
	}
	CHECK(ordered, "the largest bubbles over all ranks come longest first (%zu)", nl);
	CHECK(ranks == tr->nranks && agree == ranks,
	      "B's first bubble of every rank is the summary's largest of the rank (%zu of %zu)",
	      agree, ranks);

	/* } and {: each of the summary's bubbles, reached in time order, is named the same */
	size_t walked = 0;
	for (size_t k = 0; k < n; k++) {
		tl_rl_bubble b, c;
		size_t idx, cnt;
		if (tlq_bubble_next(rl, plain[k].rank, plain[k].start - 1, 1, &b, &idx, &cnt) ==
		        0 &&
		    tlq_bubble_next(rl, plain[k].rank, plain[k].end, -1, &c, &idx, &cnt) == 0)
			walked += same_bubble(&b, &plain[k]) && same_bubble(&c, &plain[k]);
	}
	CHECK(walked == n,
	      "bubble-next and bubble-prev land on the summary's bubbles, named the same (%zu of "
	      "%zu)",
	      walked, n);
	free(seen);
	free(plain);
	tlq_close(rl);
}

/* device: the stage ranges carry a stream (gen_opts.stage_device_ranges): their host parts end
 * with the stage's last launch, their device parts span the truth's stages, and every number
 * below must still be the truth's. */
static void
test_rl_profile(int device)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 8;
	o.nsteps = 2;
	o.tasks_per_rank = 20000;
	o.slow_rank = 5;
	o.seed = 11;
	o.stage_device_ranges = device;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, device ? "rl8-device" : "rl8", &t, &tr))
		return;
	tl_query_opts ro = {.bubbles_per_rank = 1000};
	tl_query *rl = tlq_open(&tr, &ro);

	/* stages: every truth row, with start, end, busy, decode steps and lag */
	const tl_stage_row *sv;
	size_t ns = tlq_stages(rl, &sv);
	CHECK_EQ_I64(ns, t.nstages, "one stage row per rank, step and stage");
	size_t found = 0, bad = 0;
	for (size_t i = 0; i < t.nstages; i++) {
		const gen_stage_truth *g = &t.stages[i];
		int64_t earliest = INT64_MAX;
		for (size_t k = 0; k < t.nstages; k++)
			if (t.stages[k].stage == g->stage && t.stages[k].step == g->step &&
			    t.stages[k].end_ns < earliest)
				earliest = t.stages[k].end_ns;
		for (size_t k = 0; k < ns; k++) {
			const tl_stage_row *s = &sv[k];
			if (tr.ranks[s->rank]->rank != g->rank || s->step != g->step ||
			    strcmp(tlq_stage_name(rl, s->stage), gen_stage_canon[g->stage]) != 0)
				continue;
			found++;
			if (s->start != g->start_ns || s->end != g->end_ns ||
			    s->busy != g->busy_ns || s->lag != g->end_ns - earliest ||
			    (g->stage == 0 && s->decode_steps != g->decode_steps)) {
				bad++;
				CHECK(0,
				      "rank %d step %lld %s: start %lld/%lld end %lld/%lld busy "
				      "%lld/%lld "
				      "lag %lld/%lld decode %d/%d",
				      g->rank, (long long)g->step, gen_stage_canon[g->stage],
				      (long long)s->start, (long long)g->start_ns,
				      (long long)s->end, (long long)g->end_ns, (long long)s->busy,
				      (long long)g->busy_ns, (long long)s->lag,
				      (long long)(g->end_ns - earliest), s->decode_steps,
				      g->decode_steps);
			}
		}
	}
	CHECK(found == t.nstages && bad == 0,
	      "%sstage start, end, busy, lag and rollout decode steps equal the truth (%zu rows)",
	      device ? "device-marked ranges: " : "", found);
	size_t clock_ok = 0, host_short = 0;
	for (size_t k = 0; k < ns; k++) {
		clock_ok += sv[k].device == device && sv[k].host_start == sv[k].start &&
		            (device ? sv[k].host_end < sv[k].end : sv[k].host_end == sv[k].end);
		host_short += sv[k].host_end + 40 * 1000 < sv[k].end;
	}
	CHECK_EQ_I64(clock_ok, ns,
	             device ? "every stage row has device times, its host call ends earlier"
	                    : "every stage row has host times");
	if (device)
		CHECK(host_short >= ns * 3 / 4,
		      "the host parts end well before the device parts (%zu of %zu rows)",
		      host_short, ns);

	/* DP imbalance of rollout: durations, wait-for-slowest, decode steps, idle, slowest */
	for (int64_t step = 1; step <= o.nsteps; step++) {
		const tl_imbalance *im = tlq_imbalance(rl, TL_STAGE_ROLLOUT, step);
		CHECK(im != NULL && im->n == (size_t)o.nranks, "rollout step %lld: a row per rank",
		      (long long)step);
		if (im == NULL)
			continue;
		size_t ok = 0;
		double sum = 0, mx = 0;
		for (size_t i = 0; i < t.nstages; i++) {
			const gen_stage_truth *g = &t.stages[i];
			if (g->stage != 0 || g->step != step)
				continue;
			double d = (double)(g->end_ns - g->start_ns);
			sum += d;
			mx = d > mx ? d : mx;
			for (size_t k = 0; k < im->n; k++) {
				const tl_imb_rank *x = &im->ranks[k];
				if (tr.ranks[x->rank]->rank != g->rank)
					continue;
				double idle = 1.0 - (double)g->busy_ns / d;
				if (x->duration == g->end_ns - g->start_ns &&
				    x->wait == g->wait_ns && x->decode_steps == g->decode_steps &&
				    fabs(x->idle_fraction - idle) < 1e-12)
					ok++;
				else
					CHECK(0,
					      "rank %d: duration %lld/%lld wait %lld/%lld decode "
					      "%d/%d",
					      g->rank, (long long)x->duration,
					      (long long)(g->end_ns - g->start_ns),
					      (long long)x->wait, (long long)g->wait_ns,
					      x->decode_steps, g->decode_steps);
			}
		}
		CHECK_EQ_I64(ok, o.nranks,
		             "rollout: duration, wait-for-slowest, decode steps and idle "
		             "fraction equal the truth on every rank");
		CHECK_EQ_I64(tr.ranks[im->ranks[im->st.slowest].rank]->rank, o.slow_rank,
		             "rollout: the slowest rank is the generated slow rank");
		CHECK(fabs(im->st.max_over_mean - mx / (sum / o.nranks)) < 1e-9,
		      "rollout: max/mean from the truth durations (%.4f)", im->st.max_over_mean);
	}

	/* every stage and step: the longest-running rank is the truth's longest duration (the
	 * lower rank on a tie), the last to finish its latest end */
	const tl_imbalance *all;
	size_t nall = tlq_imbalances(rl, &all), long_ok = 0, last_ok = 0, differ = 0;
	for (size_t i = 0; i < nall; i++) {
		int64_t best = -1, latest = INT64_MIN;
		int want = -1;
		for (size_t k = 0; k < t.nstages; k++) {
			const gen_stage_truth *g = &t.stages[k];
			if (g->step != all[i].step || strcmp(gen_stage_canon[g->stage],
			                                     tlq_stage_name(rl, all[i].stage)) != 0)
				continue;
			int64_t d = g->end_ns - g->start_ns;
			if (d > best || (d == best && g->rank < want)) {
				best = d;
				want = g->rank;
			}
			if (g->end_ns > latest)
				latest = g->end_ns;
		}
		const tl_imb_rank *lr = &all[i].ranks[all[i].st.longest];
		const tl_imb_rank *sr = &all[i].ranks[all[i].st.slowest];
		long_ok += tr.ranks[lr->rank]->rank == want;
		last_ok += sr->end == latest;
		differ += all[i].st.longest != all[i].st.slowest;
	}
	CHECK(nall > 0 && long_ok == nall && last_ok == nall,
	      "every stage and step: longest running = the truth's longest duration (%zu of %zu), "
	      "last to finish = its latest end (%zu)",
	      long_ok, nall, last_ok);
	CHECK(differ > 0, "... and they differ somewhere (%zu stage-steps): both are worth naming",
	      differ);

	/* slow-rank votes: the chosen slow rank gets the most */
	const tl_slow_result *sr = tlq_slow_ranks(rl);
	CHECK_EQ_I64(sr->instances, t.collectives, "every collective instance examined");
	CHECK(sr->n >= 1 && tr.ranks[sr->v[0].rank]->rank == o.slow_rank,
	      "slow rank %d gets the most votes", o.slow_rank);
	CHECK(sr->n >= 1 && (sr->n == 1 || sr->v[0].votes > sr->v[1].votes) &&
	          sr->v[0].votes * 2 > t.collectives,
	      "... clearly: %u of %llu instances", sr->n ? sr->v[0].votes : 0,
	      (unsigned long long)t.collectives);

	/* bubbles: every deliberate one, with its length, stage and step, a launch gap inside
	 * its stage range */
	const tl_rl_bubble *bv;
	size_t nb = tlq_bubbles(rl, &bv);
	size_t hit = 0;
	for (size_t i = 0; i < t.nbubbles; i++) {
		const gen_bubble_truth *g = &t.bubbles[i];
		for (size_t k = 0; k < nb; k++) {
			const tl_rl_bubble *b = &bv[k];
			if (tr.ranks[b->rank]->rank != g->rank || b->start != g->start_ns)
				continue;
			if (b->end == g->end_ns && b->step == g->step &&
			    b->reason == TL_BUBBLE_LAUNCH_GAP &&
			    strcmp(tlq_stage_name(rl, b->stage) ? tlq_stage_name(rl, b->stage) : "",
			           gen_stage_canon[g->stage]) == 0)
				hit++;
			else
				CHECK(0,
				      "bubble rank %d at %lld: end %lld/%lld stage %s/%s reason %s",
				      g->rank, (long long)g->start_ns, (long long)b->end,
				      (long long)g->end_ns, tlq_stage_name(rl, b->stage),
				      gen_stage_canon[g->stage], bubble_reason_name(b->reason));
		}
	}
	CHECK_EQ_I64(hit, t.nbubbles,
	             "every generated bubble: length, stage, step, host launch gap");
	/* the largest bubble inside each stage instance is the generated one */
	size_t largest_ok = 0;
	for (size_t i = 0; i < t.nbubbles; i++) {
		const gen_bubble_truth *g = &t.bubbles[i];
		const gen_stage_truth *sg = NULL;
		for (size_t k = 0; k < t.nstages; k++)
			if (t.stages[k].rank == g->rank && t.stages[k].step == g->step &&
			    t.stages[k].stage == g->stage)
				sg = &t.stages[k];
		int64_t longest = 0;
		for (size_t k = 0; sg && k < nb; k++)
			if (tr.ranks[bv[k].rank]->rank == g->rank && bv[k].start >= sg->start_ns &&
			    bv[k].end <= sg->end_ns && bv[k].end - bv[k].start > longest)
				longest = bv[k].end - bv[k].start;
		largest_ok += longest == g->end_ns - g->start_ns;
	}
	CHECK_EQ_I64(largest_ok, t.nbubbles, "each stage's largest bubble is the generated one");
	/* between two steps nothing is scheduled and no stage encloses the gap */
	size_t between = 0;
	size_t between_named = 0, in_step_named = 0, in_step = 0;
	for (size_t k = 0; k < nb; k++) {
		/* the truth's steps: which one holds the whole gap, if any */
		int64_t holder = -1;
		for (size_t q = 0; q < t.nsteps; q++)
			if (t.steps[q].start_ns <= bv[k].start && bv[k].end <= t.steps[q].end_ns)
				holder = t.steps[q].step;
		if (holder < 0)
			between_named += bv[k].step == -1 && bv[k].between_steps;
		else {
			in_step++;
			in_step_named += bv[k].step == holder && !bv[k].between_steps;
		}
		if (bv[k].stage == TL_STAGE_NONE && bv[k].reason == TL_BUBBLE_NOTHING &&
		    bv[k].start < t.steps[0].end_ns && bv[k].end > t.steps[1].start_ns)
			between++;
	}
	CHECK_EQ_I64(between, o.nranks, "the gap between the steps: nothing scheduled, no stage");
	CHECK(between_named >= (size_t)o.nranks && in_step_named == in_step,
	      "a gap outside the truth's steps is 'between steps' (%zu), one inside a step has "
	      "its number (%zu of %zu)",
	      between_named, in_step_named, in_step);
	CHECK(tlq_pipeline(rl)->ranks_with_blocks == 0 && tlq_pipeline(rl)->nsteps == 0,
	      "a GRPO profile has no pipeline");
	tlq_close(rl);

	/* the stage lanes: one TL_LANE_STAGE track in front of each rank's lanes */
	tl_query_opts lanes = {.lanes = 1};
	rl = tlq_open(&tr, &lanes);
	tlq_close(rl);
	rl = tlq_open(&tr, &lanes); /* a second session adds no second stage lane */
	size_t lanes_ok = 0;
	for (size_t i = 0; i < tr.nranks; i++) {
		const tl_rank *r = tr.ranks[i];
		size_t nst = 0;
		for (size_t k = 0; k < r->ntracks; k++)
			nst += r->tracks[k]->kind == TL_LANE_STAGE;
		const tl_track *s0 = r->tracks[0];
		lanes_ok += nst == 1 && s0->kind == TL_LANE_STAGE &&
		            s0->n == (size_t)(o.nsteps * GEN_NSTAGES) &&
		            strcmp(strpool_get(r->pool, s0->v[0].name), "rollout") == 0;
	}
	CHECK_EQ_I64(lanes_ok, o.nranks, "each rank has one stage lane, first, named by stage");
	tlq_close(rl);

	/* summary JSON: the fixed names, in the same object as "ranks" */
	char *js = summary(&tr, 1);
	cJSON *j = js ? cJSON_Parse(js) : NULL;
	CHECK(j != NULL, "summary --json parses");
	static const char *const top[] = {"ranks",    "stages",     "imbalance",
	                                  "pipeline", "slow_ranks", "bubbles"};
	for (size_t i = 0; j && i < sizeof top / sizeof *top; i++)
		CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(j, top[i])), "JSON has \"%s\"",
		      top[i]);
	static const char *const stage_f[] = {"rank",   "stage",       "step",    "start_ns",
	                                      "end_ns", "duration_ns", "busy_ns", "lag_ns"};
	static const char *const imb_f[] = {"stage", "step",         "max_over_mean",
	                                    "cv",    "slowest_rank", "ranks"};
	static const char *const imbr_f[] = {"rank", "duration_ns", "wait_for_slowest_ns",
	                                     "decode_steps", "idle_fraction"};
	static const char *const bub_f[] = {"rank",  "start_ns", "end_ns", "duration_ns",
	                                    "stage", "step",     "reason"};
	struct {
		const cJSON *o;
		const char *const *f;
		size_t n;
		const char *what;
	} want[] = {
	    {j ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "stages"), 0) : NULL,
	     stage_f, 8, "stages[0]"},
	    {j ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "imbalance"), 0) : NULL,
	     imb_f, 6, "imbalance[0]"},
	    {NULL, imbr_f, 5, "imbalance[0].ranks[0]"},
	    {j ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "bubbles"), 0) : NULL,
	     bub_f, 7, "bubbles[0]"},
	};
	want[2].o =
	    want[1].o ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(want[1].o, "ranks"), 0)
	              : NULL;
	for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
		size_t have = 0;
		for (size_t i = 0; want[w].o && i < want[w].n; i++)
			have += cJSON_GetObjectItemCaseSensitive(want[w].o, want[w].f[i]) != NULL;
		CHECK_EQ_I64(have, want[w].n, want[w].what);
	}
	const cJSON *st0 = want[0].o;
	CHECK(st0 && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(st0, "stage")) &&
	          strcmp(cJSON_GetObjectItemCaseSensitive(st0, "stage")->valuestring, "rollout") ==
	              0,
	      "stages[0].stage is the canonical name \"rollout\"");
	const cJSON *sl = j ? cJSON_GetObjectItemCaseSensitive(j, "slow_ranks") : NULL;
	int sorted = 1, first = -1;
	for (int i = 0; sl && i < cJSON_GetArraySize(sl); i++) {
		const cJSON *a = cJSON_GetArrayItem(sl, i);
		int v = cJSON_GetObjectItemCaseSensitive(a, "votes")->valueint;
		if (i == 0)
			first = cJSON_GetObjectItemCaseSensitive(a, "rank")->valueint;
		if (i > 0 &&
		    v > cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(sl, i - 1), "votes")
		            ->valueint)
			sorted = 0;
	}
	CHECK(sorted && first == o.slow_rank, "slow_ranks sorted by votes, slow rank first");
	const cJSON *ij = j ? cJSON_GetObjectItemCaseSensitive(j, "imbalance") : NULL;
	size_t lr_ok = 0, nij = ij ? (size_t)cJSON_GetArraySize(ij) : 0;
	for (size_t i = 0; i < nij; i++) {
		/* the longest duration among the rows, from the JSON's own numbers */
		const cJSON *e = cJSON_GetArrayItem(ij, (int)i), *rk;
		double best = -1;
		int want_rank = -1;
		cJSON_ArrayForEach(rk, cJSON_GetObjectItemCaseSensitive(e, "ranks"))
		{
			double d = cJSON_GetObjectItemCaseSensitive(rk, "duration_ns")->valuedouble;
			if (d > best) {
				best = d;
				want_rank = cJSON_GetObjectItemCaseSensitive(rk, "rank")->valueint;
			}
		}
		const cJSON *lr = cJSON_GetObjectItemCaseSensitive(e, "longest_running_rank");
		lr_ok += cJSON_IsNumber(lr) && lr->valueint == want_rank;
	}
	CHECK(nij > 0 && lr_ok == nij,
	      "imbalance[].longest_running_rank is the rank with the longest duration_ns (%zu of "
	      "%zu)",
	      lr_ok, nij);
	const cJSON *bj = j ? cJSON_GetObjectItemCaseSensitive(j, "bubbles") : NULL, *bb;
	size_t bnull = 0, bnum = 0, bbad = 0;
	cJSON_ArrayForEach(bb, bj)
	{
		const cJSON *stp = cJSON_GetObjectItemCaseSensitive(bb, "step");
		const cJSON *btw = cJSON_GetObjectItemCaseSensitive(bb, "between_steps");
		if (cJSON_IsNull(stp) && cJSON_IsTrue(btw))
			bnull++;
		else if (cJSON_IsNumber(stp) && stp->valueint >= 1 && cJSON_IsFalse(btw))
			bnum++;
		else
			bbad++;
	}
	CHECK(bnull >= (size_t)o.nranks && bnum > 0 && bbad == 0,
	      "bubbles between steps: \"step\": null, \"between_steps\": true (%zu); inside a "
	      "step its number (%zu); nothing else (%zu)",
	      bnull, bnum, bbad);
	cJSON_Delete(j);
	free(js);
	char *txt = summary(&tr, 0);
	CHECK(txt && strstr(txt, "Overlap per rank and step") == txt,
	      "text summary starts as before");
	CHECK(txt && strstr(txt, "RL stages per rank and step") &&
	          strstr(txt, "DP load imbalance") && strstr(txt, "Slow ranks") &&
	          strstr(txt, "Largest bubbles") && strstr(txt, "Pipeline parallelism: none found"),
	      "text summary has every RL section");
	CHECK(txt && strstr(txt, " between steps  ") && strstr(txt, "last to finish rank "),
	      "text summary names gaps 'between steps' and the rank that finished last");
	free(txt);
	test_viewer_bubbles(&tr);
	trace_free(&tr);
	gen_truth_free(&t);
}

/* ---- decode steps: what marks them, and a dash where nothing does ------------------------- */

/* The rollout's decode steps per rank against the generator's truth, in the query and in the
 * summary JSON (a number, or null where the truth says nothing records them). */
static void
check_decode(int marks, const char *name)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 3;
	o.nsteps = 1;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 5;
	o.decode_marks = marks;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, name, &t, &tr))
		return;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_imbalance *im = tlq_imbalance(rl, TL_STAGE_ROLLOUT, 1);
	char *js = summary(&tr, 1);
	cJSON *j = js ? cJSON_Parse(js) : NULL, *e, *rk;
	const cJSON *jr = NULL, *ja = j ? cJSON_GetObjectItemCaseSensitive(j, "imbalance") : NULL;
	cJSON_ArrayForEach(e, ja)
	{
		const cJSON *sn = cJSON_GetObjectItemCaseSensitive(e, "stage");
		if (cJSON_IsString(sn) && strcmp(sn->valuestring, "rollout") == 0)
			jr = cJSON_GetObjectItemCaseSensitive(e, "ranks");
	}
	size_t ok = 0, jok = 0, known = 0;
	for (size_t i = 0; im && i < t.nstages; i++) {
		const gen_stage_truth *g = &t.stages[i];
		if (g->stage != 0)
			continue;
		known += g->decode_steps >= 0;
		for (size_t k = 0; k < im->n; k++)
			if (tr.ranks[im->ranks[k].rank]->rank == g->rank) {
				ok += im->ranks[k].decode_steps == g->decode_steps;
				if (im->ranks[k].decode_steps != g->decode_steps)
					CHECK(0, "%s rank %d: decode %d, truth %d", name, g->rank,
					      im->ranks[k].decode_steps, g->decode_steps);
			}
		cJSON_ArrayForEach(rk, jr)
		{
			if (cJSON_GetObjectItemCaseSensitive(rk, "rank")->valueint != g->rank)
				continue;
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(rk, "decode_steps");
			if (g->decode_steps < 0)
				jok += cJSON_IsNull(d) != 0;
			else
				jok += cJSON_IsNumber(d) && d->valueint == g->decode_steps;
		}
	}
	CHECK(im && ok == (size_t)o.nranks && jok == (size_t)o.nranks &&
	          known == (marks == GEN_DECODE_NONE ? 0 : (size_t)o.nranks),
	      "%s: rollout decode steps equal the truth on every rank, in the JSON too (%zu, %zu)",
	      name, ok, jok);
	char *txt = summary(&tr, 0);
	/* the rollout table's rows: "rank duration wait decode idle", after its title and
	 * header lines */
	size_t dash = 0, rows = 0;
	const char *p = txt ? strstr(txt, "stage rollout, step 1:") : NULL;
	for (int k = 0; p && k < o.nranks + 2; k++) {
		p = strchr(p, '\n');
		if (p++ == NULL)
			break;
		char dc[16] = "";
		if (k >= 1 && sscanf(p, "%*d %*s %*s %15s", dc) == 1) {
			rows++;
			dash += strcmp(dc, "-") == 0;
		}
	}
	CHECK(rows == (size_t)o.nranks && dash == (marks == GEN_DECODE_NONE ? rows : 0),
	      "%s: the text's decode column is a dash exactly where nothing counts (%zu of %zu)",
	      name, dash, rows);
	free(txt);
	cJSON_Delete(j);
	free(js);
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
}

/* A rank with a rollout range and ProfilerSteps, no decode ranges; or decode ranges by domain. */
static tl_rank *
decode_rank(int rank, int profiler_steps, const char *domain, const char *range, int64_t late)
{
	tl_rank *r = rank_new(rank);
	tl_track *m = rank_track(r, TL_LANE_MSTX, 0, "default");
	/* late: the rollout starts 2 x late after the others' and ends late after them */
	track_push(m, 1000 + 2 * late, 2000 + late,
	           strpool_intern_cstr(r->pool, "generate_sequences"), 0);
	track_push(m, 3000, 4000, strpool_intern_cstr(r->pool, "update_actor"), 1);
	if (domain) {
		tl_track *d = rank_track(r, TL_LANE_MSTX, 1, domain);
		uint32_t nm = strpool_intern_cstr(r->pool, range);
		for (int i = 0; i < 4; i++) /* three inside the rollout, one outside */
			track_push(d, 1100 + 300 * i, 1200 + 300 * i, nm, (uint32_t)i);
		track_push(d, 1300, 1300, nm, 9); /* a mark: never a step */
	}
	if (profiler_steps) {
		/* five ProfilerSteps wholly inside the rollout, one across its end, one in the
		 * update */
		static const int64_t st[][2] = {{1050, 1100}, {1150, 1200}, {1250, 1300},
		                                {1350, 1400}, {1450, 1500}, {1900, 2100},
		                                {3100, 3200}};
		r->steps = xcalloc(7, sizeof *r->steps);
		for (int i = 0; i < 7; i++)
			r->steps[i] = (tl_step){i + 1, st[i][0], st[i][1]};
		r->nsteps = r->scap = 7;
	}
	rank_finish(r);
	r->loaded = 1;
	return r;
}

static void
test_decode(void)
{
	check_decode(GEN_DECODE_RANGES, "decode-ranges");
	check_decode(GEN_DECODE_VLLM, "decode-vllm");
	check_decode(GEN_DECODE_NONE, "decode-none");

	tl_stage_rules *R = stage_rules_from_text(stages_default_text, "built-in");
	static const struct {
		int psteps;
		const char *domain, *range;
		int rollout, update;
		const char *what;
	} c[] = {
	    {1, NULL, NULL, 5, -1, "ProfilerSteps wholly inside a rollout count; not in an update"},
	    {0, NULL, NULL, -1, -1, "no decode range, no ProfilerStep: unknown, not 0"},
	    {1, "vllm_one_step", "vllm_one_step", 3, 0,
	     "vLLM's ranges in their domain count, before ProfilerSteps; 0 in the update is true"},
	    {0, "step_process", "step", 3, 0, "dp_analysis' step ranges, by their domain"},
	    {0, "default2", "step", -1, -1, "a range named step elsewhere is no decode step"},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		tl_rank *r = decode_rank(0, c[i].psteps, c[i].domain, c[i].range, 0);
		int has = stages_rank_has_decode(R, r);
		int a = stages_decode_count(R, r, has, TL_STAGE_ROLLOUT, 1000, 2000);
		int b = stages_decode_count(R, r, has, TL_STAGE_ACTOR_UPDATE, 3000, 4000);
		CHECK(a == c[i].rollout && b == c[i].update, "%s (rollout %d, update %d)",
		      c[i].what, a, b);
		rank_free(r);
	}
	stage_rules_free(R);

	/* in the DP panel's rows: known counts add up, unknown stays unknown */
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	tr.ranks[0] = decode_rank(0, 1, NULL, NULL, 0);
	tr.ranks[1] = decode_rank(1, 0, NULL, NULL, 40); /* [1080, 2040]: shorter, ends last */
	tr.nranks = 2;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_imbalance *v;
	size_t n = tlq_imbalances(rl, &v);
	int seen = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].stage != TL_STAGE_ROLLOUT || v[i].n != 2)
			continue;
		seen = 1;
		CHECK(v[i].ranks[0].decode_steps == 5 && v[i].ranks[1].decode_steps == -1,
		      "DP rows: 5 ProfilerSteps on rank 0, unknown on rank 1 (%d, %d)",
		      v[i].ranks[0].decode_steps, v[i].ranks[1].decode_steps);
		CHECK(v[i].st.slowest == 1 && v[i].st.longest == 0,
		      "rank 1 finished last (2040 > 2000), rank 0 ran longest (1000 > 960)");
	}
	CHECK(seen, "the rollout ran on both ranks");
	tlq_close(rl);
	char *txt = summary(&tr, 0), *js = summary(&tr, 1);
	CHECK(txt && strstr(txt, "stage rollout, step all: max/mean 1.0204, cv 0.0204, last to "
	                         "finish rank 1, longest running rank 0, skew 0.000040 ms"),
	      "the text names both ranks: max/mean 1000 / 980, cv 20 / 980");
	CHECK(txt && strstr(txt, "       1       0.000960       0.000000       -  100.0%"),
	      "the text shows rank 1's unknown decode steps as a dash");
	CHECK(js && strstr(js, "\"slowest_rank\":1,\"longest_running_rank\":0,") &&
	          strstr(js, "\"decode_steps\":5,") && strstr(js, "\"decode_steps\":null,"),
	      "the JSON: slowest_rank 1 (kept), longest_running_rank 0, decode_steps 5 and null");
	free(txt);
	free(js);
	trace_free(&tr);
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

/* ---- pipeline parallelism ---------------------------------------------------------------- */

/* device: the ranges carry a stream (gen_opts.pp_device_ranges): their host parts are a few
 * microseconds, 600 us ahead of the device; the truth's blocks are their device parts. */
static void
check_pp_as(int sched, int no_meta, int no_p2p, int opt_pp, int op_pairs, int device,
            tl_pp_source want_src, const char *name)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 8;
	o.nsteps = 2;
	o.pp = 4;
	o.pp_microbatches = 8;
	o.pp_schedule = sched;
	o.pp_no_meta = no_meta;
	o.pp_no_p2p = no_p2p;
	o.pp_op_pairs = op_pairs;
	o.pp_device_ranges = device;
	o.seed = 5;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, name, &t, &tr))
		return;
	if (device) {
		/* the profile is what the case says: short host parts, early; device parts that
		 * are the blocks, named on the device lane by the decoded message */
		size_t host_ok = 0, dev_ok = 0, nranges = 0;
		for (size_t i = 0; i < tr.nranks; i++) {
			const tl_rank *r = tr.ranks[i];
			for (size_t k = 0; k < r->ntracks; k++) {
				const tl_track *x = r->tracks[k];
				for (size_t q = 0; x->kind == TL_LANE_MSTX && q < x->n; q++) {
					nranges++;
					host_ok += x->dev != NULL &&
					           x->v[q].end - x->v[q].start < 20 * 1000 &&
					           x->dev[q].start - x->v[q].start > 500 * 1000;
				}
				for (size_t q = 0; x->kind == TL_LANE_MSTX_DEV && q < x->n; q++) {
					int mb = -1;
					const char *nm = strpool_get(r->pool, x->v[q].name);
					sscanf(nm, "%*[a-z_] (micro-batch %d)", &mb);
					for (size_t g = 0; g < t.npp_blocks; g++)
						dev_ok +=
						    t.pp_blocks[g].rank == r->rank &&
						    t.pp_blocks[g].start_ns == x->v[q].start &&
						    t.pp_blocks[g].end_ns == x->v[q].end &&
						    t.pp_blocks[g].microbatch == mb &&
						    strncmp(nm,
						            t.pp_blocks[g].kind == 'F'
						                ? "forward_step ("
						                : "backward_step (",
						            14) == 0;
				}
			}
		}
		CHECK(nranges == t.npp_blocks && host_ok == nranges,
		      "%s: every range's host part is under 20 us and over 500 us ahead of its "
		      "device part (%zu of %zu)",
		      name, host_ok, nranges);
		CHECK(dev_ok == t.npp_blocks,
		      "%s: the device lane has one slice per block, named 'forward_step "
		      "(micro-batch N)' (%zu of %zu)",
		      name, dev_ok, t.npp_blocks);
	}
	tl_query_opts ro = {.pp = opt_pp, .bubbles_per_rank = 1000};
	tl_query *rl = tlq_open(&tr, &ro);
	if (device) {
		/* the idle gaps between a block's kernels lie inside its device part (and after its
		 * host part ended): the device was inside that range and had nothing to run */
		const tl_rl_bubble *bv;
		size_t nb = tlq_bubbles(rl, &bv), inside = 0, named = 0;
		for (size_t q = 0; q < t.npp_blocks; q++) {
			const gen_pp_block_truth *g = &t.pp_blocks[q];
			char want[64];
			snprintf(want, sizeof want, "inside %s_step (micro-batch %d),",
			         g->kind == 'F' ? "forward" : "backward", g->microbatch);
			size_t hit = 0;
			for (size_t k = 0; k < nb; k++)
				if (tr.ranks[bv[k].rank]->rank == g->rank &&
				    bv[k].start >= g->start_ns && bv[k].end <= g->end_ns) {
					hit++;
					named += bv[k].reason == TL_BUBBLE_LAUNCH_GAP &&
					         strstr(bv[k].detail, want) != NULL;
				}
			inside += hit > 0;
		}
		CHECK(inside == t.npp_blocks && named >= t.npp_blocks,
		      "%s: the gaps inside each block are launch gaps inside its range, named with "
		      "its micro-batch (%zu blocks, %zu gaps)",
		      name, inside, named);
	}
	const tl_pipeline *p = tlq_pipeline(rl);
	CHECK(p->source == want_src, "%s: PP stages from %s (got %s)", name,
	      pipeline_source_name(want_src), pipeline_source_name(p->source));
	CHECK(p->npp == 4 && p->nsteps == 2, "%s: 4 PP stages, 2 steps", name);
	size_t from = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		from += p->rank_blocks[i] == (op_pairs ? TL_PP_BLOCKS_OPS : TL_PP_BLOCKS_RANGES);
	CHECK(from == 8 && p->ranks_from_ops == (op_pairs ? 8u : 0u),
	      "%s: every rank's blocks come from its %s", name,
	      op_pairs ? "forward/backward operator pairs" : "forward/backward ranges");
	size_t map_ok = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		map_ok += p->rank_stage[i] == tr.ranks[i]->rank / 2;
	CHECK_EQ_I64(map_ok, 8, "every rank's PP stage is rank / dp");
	size_t blocks_ok = 0, nblocks = 0, ratio_ok = 0, ranks_ok = 0;
	for (size_t k = 0; k < p->nsteps; k++) {
		const tl_pp_step *s = &p->steps[k];
		for (size_t i = 0; i < s->nstages; i++) {
			const tl_pp_stage *ps = &s->stages[i];
			ranks_ok += ps->nranks == 2 && tr.ranks[ps->ranks[0]]->rank == 2 * (int)i &&
			            tr.ranks[ps->ranks[1]]->rank == 2 * (int)i + 1;
			int shown = ps->shown != SIZE_MAX ? tr.ranks[ps->shown]->rank : -1;
			size_t b = 0;
			for (size_t q = 0; q < t.npp_blocks; q++) {
				const gen_pp_block_truth *g = &t.pp_blocks[q];
				if (g->rank != shown || g->step != s->step)
					continue;
				nblocks++;
				if (b < ps->nblocks && ps->blocks[b].kind == g->kind &&
				    ps->blocks[b].microbatch == g->microbatch &&
				    ps->blocks[b].start == g->start_ns &&
				    ps->blocks[b].end == g->end_ns)
					blocks_ok++;
				b++;
			}
			for (size_t q = 0; q < t.npp_stages; q++) {
				const gen_pp_stage_truth *g = &t.pp_stages[q];
				if (g->step == s->step && g->pp_stage == ps->pp_stage &&
				    fabs(ps->bubble_ratio -
				         (double)g->idle_ns / (double)g->span_ns) < 1e-12 &&
				    s->end - s->start == g->span_ns)
					ratio_ok++;
			}
		}
	}
	CHECK_EQ_I64(ranks_ok, 8, "each PP stage lists its two ranks");
	CHECK(nblocks == 2 * 4 * 16 && blocks_ok == nblocks,
	      "%s: blocks, kinds, micro-batch numbers and times equal the schedule (%zu of %zu)",
	      name, blocks_ok, nblocks);
	CHECK_EQ_I64(ratio_ok, 8, "per-stage bubble ratios equal the schedule's");
	size_t links = 0, links_ok = 0;
	for (size_t k = 0; k < p->nsteps; k++)
		links += p->steps[k].nlinks;
	for (size_t q = 0; q < t.np2p; q++) {
		const gen_p2p_truth *g = &t.p2p[q];
		for (size_t k = 0; k < p->nsteps; k++)
			for (size_t l = 0; l < p->steps[k].nlinks; l++) {
				const tl_pp_link *x = &p->steps[k].links[l];
				links_ok += tr.ranks[x->from_rank]->rank == g->src_rank &&
				            tr.ranks[x->to_rank]->rank == g->dst_rank &&
				            x->send_start == g->send_start_ns &&
				            x->send_end == g->send_end_ns &&
				            x->recv_start == g->recv_start_ns &&
				            x->recv_end == g->recv_end_ns &&
				            p->steps[k].step == g->step;
			}
	}
	CHECK(links == t.np2p && links_ok == t.np2p,
	      "%s: every send paired with its receive (%zu/%zu)", name, links_ok, t.np2p);
	if (!no_p2p)
		CHECK(t.np2p == 2 * 2 * 3 * 2 * 8,
		      "the schedule moves 2 x 3 x 8 per replica and step");
	const tl_slow_result *sr = tlq_slow_ranks(rl);
	CHECK(sr->instances == 0 && sr->n == 0, "P2P ops are not collectives: no slow-rank votes");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
}

/* A file that keeps a range's begin and end markers as TASK rows of their own (each a
 * zero-length row at its marker's time, both with the range's connectionId), not paired into
 * one as msprof does: the device range is still first marker start to last marker end, and the
 * blocks are the same. */
static void
test_pp_split_markers(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 1;
	o.pp = 4;
	o.pp_microbatches = 4;
	o.pp_device_ranges = 1;
	o.seed = 9;
	gen_truth t;
	char *out = xasprintf("%s/pp-split", tmp);
	memset(&t, 0, sizeof t);
	CHECK(gen_profile(&o, out, &t) == 0, "generate pp-split");
	char *pat = xasprintf("%s/*/ASCEND_PROFILER_OUTPUT/*.db", out);
	glob_t g;
	size_t split = 0;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			sqlite3 *db;
			if (sqlite3_open(g.gl_pathv[i], &db) != SQLITE_OK)
				continue;
			split +=
			    sqlite3_exec(
			        db,
			        "CREATE TEMP TABLE m AS SELECT rowid AS r FROM TASK WHERE taskType "
			        "= "
			        "(SELECT id FROM STRING_IDS WHERE value = 'MsTx');"
			        "INSERT INTO TASK SELECT endNs, endNs, deviceId, connectionId, "
			        "globalTaskId + 1000000, globalPid, taskType, contextId, streamId, "
			        "taskId + 1, modelId FROM TASK WHERE rowid IN (SELECT r FROM m);"
			        "UPDATE TASK SET endNs = startNs WHERE rowid IN (SELECT r FROM m);",
			        NULL, NULL, NULL) == SQLITE_OK;
			sqlite3_close(db);
		}
		globfree(&g);
	}
	CHECK_EQ_I64(split, 4, "every rank's marker rows split in two");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(out, &lo, &tr) != 0) {
		CHECK(0, "load pp-split");
		free(out);
		free(pat);
		gen_truth_free(&t);
		return;
	}
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_pipeline *p = tlq_pipeline(rl);
	size_t ok = 0, n = 0;
	for (size_t k = 0; k < p->nsteps; k++)
		for (size_t s = 0; s < p->steps[k].nstages; s++) {
			const tl_pp_stage *ps = &p->steps[k].stages[s];
			for (size_t b = 0; b < ps->nblocks; b++, n++)
				for (size_t q = 0; q < t.npp_blocks; q++)
					ok += t.pp_blocks[q].rank == tr.ranks[ps->shown]->rank &&
					      t.pp_blocks[q].start_ns == ps->blocks[b].start &&
					      t.pp_blocks[q].end_ns == ps->blocks[b].end &&
					      t.pp_blocks[q].microbatch == ps->blocks[b].microbatch;
		}
	CHECK(n == t.npp_blocks && ok == n,
	      "split markers: every block is first marker start to last marker end (%zu of %zu)",
	      ok, n);
	size_t dev = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		for (size_t k = 0; k < tr.ranks[i]->ntracks; k++)
			if (tr.ranks[i]->tracks[k]->kind == TL_LANE_MSTX_DEV)
				dev += tr.ranks[i]->tracks[k]->n;
	CHECK_EQ_I64(dev, t.npp_blocks, "split markers: one device-lane slice per range");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
	free(out);
	free(pat);
}

static void
check_pp(int sched, int no_meta, int no_p2p, int opt_pp, int op_pairs, tl_pp_source want_src,
         const char *name)
{
	check_pp_as(sched, no_meta, no_p2p, opt_pp, op_pairs, 0, want_src, name);
}

/* Operator pairs alone do not make a pipeline: every training job has them. With nothing that
 * says the job is pipeline-parallel (no distributed_args, no send/receive, no --pp), there is
 * no PP view and the DBs' operator tables are not even read. */
static void
test_pp_ops_unsaid(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 1;
	o.pp = 4;
	o.pp_no_meta = 1;
	o.pp_no_p2p = 1;
	o.pp_op_pairs = 1;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, "pp-ops-unsaid", &t, &tr))
		return;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_pipeline *p = tlq_pipeline(rl);
	size_t read = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		read += tr.ranks[i]->nfwdbwd > 0;
	CHECK(p->nsteps == 0 && p->ranks_with_blocks == 0 && read == 0,
	      "operator pairs without a sign of PP: no pipeline, operator tables unread");
	char why[256];
	CHECK_STR(pipeline_absence(&tr, p, why, sizeof why),
	          "Pipeline parallelism: none found (no forward or backward step ranges; see STAGE "
	          "RULES in tl(1)).",
	          "the plain message");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);

	/* the same with --pp 4: the pipeline is there */
	gen_truth t2;
	if (!gen_load(&o, "pp-ops-told", &t2, &tr))
		return;
	tl_query_opts ro = {.pp = 4};
	rl = tlq_open(&tr, &ro);
	p = tlq_pipeline(rl);
	CHECK(p->npp == 4 && p->nsteps == 1 && p->ranks_from_ops == 4,
	      "--pp 4: four PP stages from operator pairs");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t2);
}

/* Interleaved 1F1B (Megatron's virtual pipeline: two model chunks per stage, 2 stages, 4
 * micro-batches) marked only by operator pairs. In order of forward start the forward of chunk 1
 * of micro-batch 0 follows chunk 0 of micro-batch 1 while its backward runs earlier: the
 * forward-order pass alone would merge the two; the backward-order pass separates them. Each
 * block is three layers' operators; blocks are numbered by forward order within the step. */
static void
test_pp_ops_interleaved(void)
{
	/* stage 0's order: 4 warm-up forwards, 1F1B, 4 cool-down backwards; (chunk, micro-batch) */
	static const struct {
		char kind;
		int chunk, mb;
	} sched[16] = {{'F', 0, 0}, {'F', 0, 1}, {'F', 1, 0}, {'F', 1, 1}, {'F', 0, 2}, {'B', 1, 0},
	               {'F', 0, 3}, {'B', 1, 1}, {'F', 1, 2}, {'B', 0, 0}, {'F', 1, 3}, {'B', 0, 1},
	               {'B', 1, 2}, {'B', 1, 3}, {'B', 0, 2}, {'B', 0, 3}};
	const int64_t T0 = INT64_C(1700000000000000000), BLK = 10000, OP = 3000;
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	for (int rk = 0; rk < 2; rk++) {
		tl_rank *r = rank_new(rk);
		tl_step st = {1, T0, T0 + 16 * BLK};
		size_t base;
		rank_add_steps(r, &st, 1, &base);
		int64_t fs[2][4][3], fe[2][4][3];
		for (int b = 0; b < 16; b++) {
			int64_t t0 = T0 + b * BLK;
			for (int j = 0; j < 3; j++) { /* forward: layers 0,1,2; backward: 2,1,0 */
				int layer = sched[b].kind == 'F' ? j : 2 - j;
				int64_t s = t0 + j * OP, e = s + OP - 1000;
				if (sched[b].kind == 'F') {
					fs[sched[b].chunk][sched[b].mb][layer] = s;
					fe[sched[b].chunk][sched[b].mb][layer] = e;
				} else {
					rank_add_fwdbwd(r, fs[sched[b].chunk][sched[b].mb][layer],
					                fe[sched[b].chunk][sched[b].mb][layer], s,
					                e);
				}
			}
		}
		rank_finish(r);
		tr.ranks[tr.nranks++] = r;
	}
	tr.t_min = T0;
	tr.t_max = T0 + 16 * BLK;
	tl_stage_rules *R = stage_rules_load(NULL);
	tl_pipeline P;
	pipeline_build(&tr, R, NULL, 2, 1, &P);
	char seq[128] = "";
	int extents = 0;
	if (P.nsteps == 1 && P.steps[0].nstages == 2) {
		const tl_pp_stage *ps = &P.steps[0].stages[0];
		for (size_t b = 0; b < ps->nblocks; b++) {
			size_t l = strlen(seq);
			snprintf(seq + l, sizeof seq - l, "%s%c%d", b ? " " : "",
			         ps->blocks[b].kind, ps->blocks[b].microbatch);
			extents += ps->blocks[b].start == T0 + (int64_t)b * BLK &&
			           ps->blocks[b].end == T0 + (int64_t)b * BLK + 2 * OP + OP - 1000;
		}
	}
	CHECK_STR(seq, "F0 F1 F2 F3 F4 B2 F5 B3 F6 B0 F7 B1 B6 B7 B4 B5",
	          "interleaved 1F1B: one block per chunk and micro-batch, F and B numbered alike");
	CHECK_EQ_I64(extents, 16, "each block spans its three operators exactly");
	pipeline_free(&P);
	stage_rules_free(R);
	trace_free(&tr);
}

static void
test_pp(void)
{
	check_pp(GEN_PP_1F1B, 0, 0, 0, 0, TL_PP_FROM_META, "pp-1f1b");
	check_pp(GEN_PP_GPIPE, 0, 0, 0, 0, TL_PP_FROM_META, "pp-gpipe");
	check_pp(GEN_PP_1F1B, 1, 0, 0, 0, TL_PP_FROM_PARTNERS, "pp-partners");
	check_pp(GEN_PP_GPIPE, 1, 1, 4, 0, TL_PP_FROM_OPTION, "pp-option");
	/* no forward/backward ranges: the blocks come from the operator pairs autograd links */
	check_pp(GEN_PP_1F1B, 0, 0, 0, 1, TL_PP_FROM_META, "pp-ops-1f1b");
	check_pp(GEN_PP_GPIPE, 0, 0, 0, 1, TL_PP_FROM_META, "pp-ops-gpipe");
	check_pp(GEN_PP_1F1B, 1, 0, 0, 1, TL_PP_FROM_PARTNERS, "pp-ops-partners");
	check_pp(GEN_PP_GPIPE, 1, 1, 4, 1, TL_PP_FROM_OPTION, "pp-ops-option");
	check_pp_as(GEN_PP_1F1B, 0, 0, 0, 0, 1, TL_PP_FROM_META, "pp-device-1f1b");
	check_pp_as(GEN_PP_GPIPE, 0, 0, 0, 0, 1, TL_PP_FROM_META, "pp-device-gpipe");
	check_pp_as(GEN_PP_1F1B, 1, 0, 0, 0, 1, TL_PP_FROM_PARTNERS, "pp-device-partners");
	test_pp_split_markers();
	test_pp_ops_unsaid();
	test_pp_ops_interleaved();

	/* 1F1B shape on stage 0: 3 warm-up forwards, alternation, 3 cool-down backwards */
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 1;
	o.pp = 4;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, "pp-shape", &t, &tr))
		return;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_pipeline *p = tlq_pipeline(rl);
	char seq[128] = "";
	if (p->nsteps == 1)
		for (size_t b = 0; b < p->steps[0].stages[0].nblocks; b++) {
			size_t l = strlen(seq);
			snprintf(seq + l, sizeof seq - l, "%c%d ",
			         p->steps[0].stages[0].blocks[b].kind,
			         p->steps[0].stages[0].blocks[b].microbatch);
		}
	CHECK_STR(seq, "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7 ", "1F1B order on stage 0");
	double r0 = p->nsteps ? p->steps[0].stages[0].bubble_ratio : 0;
	CHECK(r0 > 0.2 && r0 < 0.5, "stage 0 bubble ratio near (p-1)/(m+p-1) = 0.27 (%.3f)", r0);
	char *js = summary(&tr, 1);
	cJSON *j = js ? cJSON_Parse(js) : NULL;
	const cJSON *pp = j ? cJSON_GetObjectItemCaseSensitive(j, "pipeline") : NULL;
	const cJSON *st =
	    pp ? cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pp, 0), "stages") : NULL;
	const cJSON *s0 = st ? cJSON_GetArrayItem(st, 0) : NULL;
	const cJSON *b0 =
	    s0 ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s0, "blocks"), 0) : NULL;
	CHECK(s0 && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(s0, "ranks")) &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s0, "pp_stage")) &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s0, "bubble_ratio")),
	      "pipeline[0].stages[0] has pp_stage, ranks, bubble_ratio");
	const cJSON *bf = s0 ? cJSON_GetObjectItemCaseSensitive(s0, "blocks_from") : NULL;
	CHECK(cJSON_IsString(bf) && strcmp(bf->valuestring, "ranges") == 0,
	      "blocks from forward/backward ranges: \"blocks_from\": \"ranges\"");
	CHECK(b0 && strcmp(cJSON_GetObjectItemCaseSensitive(b0, "kind")->valuestring, "F") == 0 &&
	          cJSON_GetObjectItemCaseSensitive(b0, "microbatch")->valueint == 0 &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(b0, "start_ns")) &&
	          cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(b0, "end_ns")),
	      "blocks[0] is {\"kind\":\"F\",\"microbatch\":0,\"start_ns\",\"end_ns\"}");
	cJSON_Delete(j);
	free(js);
	char *txt = summary(&tr, 0);
	CHECK(txt && strstr(txt, "Pipeline parallelism: 4 PP stages (from distributed_args)") &&
	          strstr(txt, " F0 F1 F2 F3 B0 F4 B1"),
	      "text summary shows the pipeline");
	CHECK(txt && strstr(txt, "RL stages: none found"),
	      "a PP profile has no RL stages: said so");
	free(txt);
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
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
	snprintf(tmp, sizeof tmp, "/tmp/tl-test-rl-XXXXXX");
	if (mkdtemp(tmp) == NULL) {
		CHECK(0, "mkdtemp");
		return test_done();
	}
	test_rules();
	test_judge();
	test_handmade();
	test_rl_profile(0);
	test_rl_profile(1);
	test_decode();
	test_pp();
	test_plain();
	rm_rf(tmp);
	return test_done();
}
