/* dp_analysis' numbers: the step_process mark parser on hostile messages, the bubble-rate and
 * throughput maths on hand-computed rows, a hand-made capture without stages (the whole capture
 * is one rollout), and generated GRPO profiles whose engine steps, tokens and times the
 * generator knows by construction -- with well-formed marks and with malformed and missing
 * ones. */
#include "config.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static char tmp[64];

static int
near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* ---- the mark's JSON ------------------------------------------------------------------------ */

static void
test_parse(void)
{
	static const struct {
		const char *msg;
		int ok;
	} cases[] = {
	    {"{\"running_reqs\": 3, \"waiting_reqs\": 1, \"gpu_cache_usage\": 0.25, "
	     "\"out_tokens\": 3}",
	     1},
	    {" {\"out_tokens\":0,\"gpu_cache_usage\":0,\"waiting_reqs\":0,\"running_reqs\":0,"
	     "\"extra\":[1,2]}\n",
	     1},
	    {"{\"running_reqs\": 3, \"waiting_reqs\": 1, \"gpu_cache_usage\": 0.25}", 0},
	    {"{\"running_reqs\": \"3\", \"waiting_reqs\": 1, \"gpu_cache_usage\": 0.25, "
	     "\"out_tokens\": 3}",
	     0},
	    {"{\"running_reqs\": -1, \"waiting_reqs\": 1, \"gpu_cache_usage\": 0.25, "
	     "\"out_tokens\": 3}",
	     0},
	    {"{\"running_reqs\": 1e999, \"waiting_reqs\": 1, \"gpu_cache_usage\": 0.25, "
	     "\"out_tokens\": 3}",
	     0},
	    {"{\"running_reqs\": 3, \"waiting_reqs\": 1, \"gpu_cache_usage\": 0.25, "
	     "\"out_tokens\": 3}{\"x\":1}",
	     0},
	    {"{\"running_reqs\": 3, \"waiting_re", 0},
	    {"[3, 1, 0.25, 3]", 0},
	    {"{'running_reqs': 3, 'waiting_reqs': 1, 'gpu_cache_usage': 0.25, 'out_tokens': 3}", 0},
	    {"", 0},
	    {"step", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tl_dp_step s = {0};
		int ok = dp_mark_parse(cases[i].msg, strlen(cases[i].msg), &s);
		CHECK(ok == cases[i].ok && s.has_stats == ok, "mark %zu %s: %s", i,
		      cases[i].ok ? "reads" : "is refused", cases[i].msg);
	}
	tl_dp_step s = {0};
	const char *m = "{\"running_reqs\": 7, \"waiting_reqs\": 2, \"gpu_cache_usage\": 0.5, "
	                "\"out_tokens\": 6}";
	dp_mark_parse(m, strlen(m), &s);
	CHECK(s.running == 7 && s.waiting == 2 && s.cache_usage == 0.5 && s.out_tokens == 6,
	      "the four numbers land in their fields");
}

/* ---- the maths on hand-computed rows ------------------------------------------------------ */

static void
test_compute(void)
{
	/* rank a: 5 steps (max step 4), rank b: 3 (max 2), rank c: none */
	tl_dp_step a[5], b[3];
	for (int i = 0; i < 5; i++)
		a[i] = (tl_dp_step){.start = 1000000000LL * i,
		                    .end = 1000000000LL * i + 500000000,
		                    .has_stats = 1,
		                    .running = 10 - i,
		                    .waiting = i == 0,
		                    .cache_usage = 0.1 * (5 - i),
		                    .out_tokens = 10 - i};
	for (int i = 0; i < 3; i++)
		b[i] = (tl_dp_step){.start = 2000000000LL * i,
		                    .end = 2000000000LL * i + 1000000000,
		                    .has_stats = i != 1};
	tl_dp_rank v[3] = {{.rank = 0, .steps = a, .nsteps = 5},
	                   {.rank = 1, .steps = b, .nsteps = 3},
	                   {.rank = 2}};
	dp_compute(v, 3);
	CHECK(v[0].max_step == 4 && v[1].max_step == 2 && v[2].max_step == -1,
	      "max steps 4, 2, -1");
	CHECK(near(v[0].bubble_rate_pct, 0) && near(v[1].bubble_rate_pct, 50) &&
	          near(v[2].bubble_rate_pct, 100),
	      "bubble rates (4-4)/4, (4-2)/4, (4-0)/4: 0, 50, 100 %% (got %g %g %g)",
	      v[0].bubble_rate_pct, v[1].bubble_rate_pct, v[2].bubble_rate_pct);
	/* 10+9+8+7+6 = 40 tokens over 0 .. 4.5 s */
	CHECK(v[0].has_stats && near(v[0].out_tokens, 40) && near(v[0].throughput, 40 / 4.5) &&
	          near(v[0].mean_running, 8) && near(v[0].mean_waiting, 0.2) &&
	          near(v[0].peak_cache_usage, 0.5),
	      "rank a: 40 tokens, %g tokens/s, running 8, waiting 0.2, peak 0.5 (got %g %g %g %g "
	      "%g)",
	      40 / 4.5, v[0].out_tokens, v[0].throughput, v[0].mean_running, v[0].mean_waiting,
	      v[0].peak_cache_usage);
	CHECK(!v[1].has_stats && v[1].out_tokens == TL_DP_NONE && v[1].throughput == TL_DP_NONE &&
	          v[1].peak_cache_usage == TL_DP_NONE,
	      "a step without stats leaves the rank's stats empty, not short");
	tl_dp_rank one[1] = {{.rank = 0, .steps = a, .nsteps = 1}};
	dp_compute(one, 1);
	CHECK(one[0].bubble_rate_pct == TL_DP_NONE, "global max step 0: no bubble rate (no /0)");
}

/* ---- a capture without stages ------------------------------------------------------------- */

static void
push_step(tl_rank *r, tl_track *t, int64_t s, int64_t e, const char *mark)
{
	track_push(t, s, e, strpool_intern_cstr(r->pool, "step"), 0);
	if (mark != NULL)
		track_push(t, e - 10, e - 10, strpool_intern_cstr(r->pool, mark), 0);
}

static void
test_whole_capture(void)
{
	tl_trace tr;
	trace_init(&tr);
	tr.ranks = xcalloc(2, sizeof *tr.ranks);
	tr.nranks = 2;
	const char *m0 = "{\"running_reqs\": 4, \"waiting_reqs\": 2, \"gpu_cache_usage\": 0.75, "
	                 "\"out_tokens\": 4}";
	const char *m1 = "{\"running_reqs\": 2, \"waiting_reqs\": 0, \"gpu_cache_usage\": 0.25, "
	                 "\"out_tokens\": 1}";
	for (int k = 0; k < 2; k++) {
		tl_rank *r = rank_new(k);
		tl_track *t = rank_track(r, TL_LANE_MSTX, 1, "step_process");
		push_step(r, t, 1000, 2000, m0);
		push_step(r, t, 3000, 4000, m1);
		if (k == 0) { /* rank 0 runs a third step; rank 1 has a mark too many */
			push_step(r, t, 5000, 6000, m1);
		} else {
			track_push(t, 7000, 7000, strpool_intern_cstr(r->pool, m1), 0);
		}
		rank_finish(r);
		tr.ranks[k] = r;
	}
	msg_set_quiet(1);
	unsigned w0 = msg_warn_count();
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_dp *v;
	size_t n = tlq_dp(rl, &v);
	CHECK(n == 1 && v[0].stage == TL_STAGE_NONE && v[0].step == -1 && v[0].n == 2,
	      "no stage: one entry over the whole capture");
	if (n == 1 && v[0].n == 2) {
		const tl_dp_rank *a = &v[0].ranks[0], *b = &v[0].ranks[1];
		CHECK(a->nsteps == 3 && a->max_step == 2 && near(a->bubble_rate_pct, 0) &&
		          b->nsteps == 2 && b->max_step == 1 && near(b->bubble_rate_pct, 50),
		      "steps 3 and 2, bubble rates 0 and 50 %%");
		/* 4 + 1 + 1 tokens over [1000, 6000] ns */
		CHECK(a->has_stats && near(a->out_tokens, 6) && near(a->throughput, 6 / 5e-6) &&
		          near(a->mean_running, 8.0 / 3) && near(a->mean_waiting, 2.0 / 3) &&
		          near(a->peak_cache_usage, 0.75),
		      "rank 0's marks pair with its steps in order");
		CHECK(!b->has_stats && b->nsteps == 2,
		      "rank 1: 2 ranges, 3 marks: steps, no stats");
	}
	CHECK_EQ_I64(msg_warn_count() - w0, 1, "one line for the rank whose counts differ");
	msg_set_quiet(0);
	tlq_close(rl);
	trace_free(&tr);
}

/* ---- generated profiles ------------------------------------------------------------------- */

static char *
summary_json(tl_trace *tr, int series)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	tl_query *q = tlq_open(tr, NULL);
	report_summary_json_opts(f, q, &(report_opts){.series = series});
	tlq_close(q);
	fclose(f);
	return s;
}

/* The truth's answer for one rank and rollout, computed from its steps alone. */
typedef struct want {
	int n, has;
	double tokens, run, wait, peak;
	int64_t first, last;
} want;

static want
truth_of(const gen_truth *t, int rank, int64_t step)
{
	want w = {.has = 1, .first = INT64_MAX, .last = INT64_MIN};
	for (size_t i = 0; i < t->ndp_steps; i++) {
		const gen_dp_step_truth *s = &t->dp_steps[i];
		if (s->rank != rank || s->step != step)
			continue;
		w.n++;
		w.has &= s->has_stats;
		w.tokens += s->out_tokens;
		w.run += s->running;
		w.wait += s->waiting;
		if (s->cache_usage > w.peak)
			w.peak = s->cache_usage;
		if (s->start_ns < w.first)
			w.first = s->start_ns;
		if (s->end_ns > w.last)
			w.last = s->end_ns;
	}
	return w;
}

static const cJSON *
json_entry(const cJSON *dp, int64_t step, int rank)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, dp)
	{
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(e, "step");
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(e, "rank");
		if (cJSON_IsNumber(st) && st->valuedouble == (double)step && cJSON_IsNumber(rk) &&
		    rk->valueint == rank)
			return e;
	}
	return NULL;
}

static double
jnum(const cJSON *e, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(e, k);
	return cJSON_IsNumber(x) ? x->valuedouble : cJSON_IsNull(x) ? TL_DP_NONE : NAN;
}

static void
check_generated(int bad)
{
	const char *name = bad ? "dp-bad" : "dp";
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 2;
	o.tasks_per_rank = 3000;
	o.slow_rank = 1;
	o.seed = 11;
	o.threads = 1;
	o.decode_marks = GEN_DECODE_DP;
	o.dp_bad_marks = bad;
	char *out = xasprintf("%s/%s", tmp, name);
	gen_truth t;
	memset(&t, 0, sizeof t);
	tl_trace tr;
	int ok = gen_profile(&o, out, &t) == 0;
	tl_load_opts lo = {.quiet_progress = 1};
	ok = ok && load_trace(out, &lo, &tr) == 0;
	CHECK(ok, "%s: generate and load", name);
	free(out);
	if (!ok)
		return;
	msg_set_quiet(1);
	unsigned w0 = msg_warn_count();
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_dp *v;
	size_t n = tlq_dp(rl, &v);
	CHECK_EQ_I64(msg_warn_count() - w0, bad ? 2 : 0,
	             bad ? "dp-bad: one line for rank 1 (malformed), one for rank 2 (a mark short)"
	                 : "dp: no warning");
	CHECK_EQ_I64(n, o.nsteps, "one entry per rollout");
	char *js = summary_json(&tr, 1);
	cJSON *j = js ? cJSON_Parse(js) : NULL;
	const cJSON *dp = j ? cJSON_GetObjectItemCaseSensitive(j, "dp") : NULL;
	CHECK(cJSON_IsArray(dp) && cJSON_GetArraySize(dp) == o.nsteps * o.nranks,
	      "%s: summary JSON has a dp entry per rollout and rank", name);
	size_t good = 0, total = 0;
	for (size_t i = 0; i < n; i++) {
		const tl_dp *d = &v[i];
		CHECK(d->stage == TL_STAGE_ROLLOUT && d->n == (size_t)o.nranks, "%s: rollout %lld",
		      name, (long long)d->step);
		int gmax = 0;
		for (int r = 0; r < o.nranks; r++)
			if (truth_of(&t, r, d->step).n - 1 > gmax)
				gmax = truth_of(&t, r, d->step).n - 1;
		for (size_t k = 0; k < d->n; k++) {
			const tl_dp_rank *x = &d->ranks[k];
			int rank = tr.ranks[x->rank]->rank;
			want w = truth_of(&t, rank, d->step);
			double bubble = (double)(gmax - (w.n - 1)) / gmax * 100;
			double thr = w.tokens / ((double)(w.last - w.first) / 1e9);
			total++;
			int eq = (int)x->nsteps == w.n && x->max_step == w.n - 1 &&
			         near(x->bubble_rate_pct, bubble) && x->has_stats == w.has;
			if (w.has)
				eq = eq && near(x->out_tokens, w.tokens) &&
				     near(x->throughput, thr) &&
				     near(x->mean_running, w.run / w.n) &&
				     near(x->mean_waiting, w.wait / w.n) &&
				     near(x->peak_cache_usage, w.peak);
			else
				eq = eq && x->out_tokens == TL_DP_NONE &&
				     x->throughput == TL_DP_NONE && x->mean_running == TL_DP_NONE &&
				     x->peak_cache_usage == TL_DP_NONE;
			const cJSON *e = json_entry(dp, d->step, rank);
			const cJSON *ser = e ? cJSON_GetObjectItemCaseSensitive(e, "series") : NULL;
			int jeq = e != NULL && jnum(e, "decode_steps") == w.n &&
			          jnum(e, "max_step") == w.n - 1 &&
			          fabs(jnum(e, "bubble_rate_pct") - bubble) < 1e-6 &&
			          cJSON_GetArraySize(ser) == w.n;
			if (w.has)
				jeq = jeq && jnum(e, "out_tokens") == w.tokens &&
				      fabs(jnum(e, "throughput_tokens_per_s") - thr) < 1e-6 * thr &&
				      fabs(jnum(e, "peak_gpu_cache_usage") - w.peak) < 1e-6;
			else
				jeq = jeq && jnum(e, "out_tokens") == TL_DP_NONE &&
				      jnum(e, "throughput_tokens_per_s") == TL_DP_NONE &&
				      jnum(e, "mean_running_reqs") == TL_DP_NONE &&
				      jnum(e, "peak_gpu_cache_usage") == TL_DP_NONE;
			good += eq && jeq;
			if (!eq || !jeq)
				CHECK(0,
				      "%s step %lld rank %d: steps %zu (truth %d), bubble %g (%g), "
				      "tokens %g (%g), tok/s %g (%g), stats %d (%d), json %d",
				      name, (long long)d->step, rank, x->nsteps, w.n,
				      x->bubble_rate_pct, bubble, x->out_tokens, w.tokens,
				      x->throughput, thr, x->has_stats, w.has, jeq);
		}
	}
	CHECK(total == (size_t)(o.nsteps * o.nranks) && good == total,
	      "%s: %zu of %zu rank rollouts equal the generator's truth (tl and JSON)", name, good,
	      total);
	if (bad) { /* rank 1: the rollouts with a malformed mark; rank 2: all; 0 and 3 intact */
		const tl_dp *d = n ? &v[0] : NULL;
		CHECK(d && d->ranks[0].has_stats && !d->ranks[1].has_stats &&
		          !d->ranks[2].has_stats && d->ranks[3].has_stats &&
		          d->ranks[1].nsteps > 0 && d->ranks[2].nsteps > 0,
		      "dp-bad: ranks 1 and 2 keep their steps and lose their stats; 0 and 3 keep "
		      "both");
	}
	/* the decode-step column of the imbalance counts the same steps */
	const tl_imbalance *im = tlq_imbalance(rl, TL_STAGE_ROLLOUT, 1);
	const tl_dp *d1 = tlq_dp_of(rl, TL_STAGE_ROLLOUT, 1);
	int same = im && d1 && im->n == d1->n;
	for (size_t k = 0; same && k < im->n; k++)
		same = im->ranks[k].decode_steps == (int)d1->ranks[k].nsteps;
	CHECK(same, "%s: the DP panel's decode column and dp_analysis' steps agree", name);
	cJSON_Delete(j);
	free(js);
	char *plain = summary_json(&tr, 0);
	CHECK(plain && strstr(plain, "\"series\"") == NULL, "%s: no series without --series", name);
	free(plain);
	msg_set_quiet(0);
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
}

/* An inference capture (no stage ranges): one rollout over the whole capture, every step of a
 * rank in it, as dp_analysis takes a capture. */
static void
check_whole_capture(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 2;
	o.tasks_per_rank = 3000;
	o.slow_rank = 2;
	o.seed = 3;
	o.threads = 1;
	o.decode_marks = GEN_DECODE_DP;
	o.dp_only = 1;
	char *out = xasprintf("%s/dp-only", tmp);
	gen_truth t;
	memset(&t, 0, sizeof t);
	tl_trace tr;
	int ok = gen_profile(&o, out, &t) == 0;
	tl_load_opts lo = {.quiet_progress = 1};
	ok = ok && load_trace(out, &lo, &tr) == 0;
	CHECK(ok, "dp-only: generate and load");
	free(out);
	if (!ok)
		return;
	tl_query *rl = tlq_open(&tr, NULL);
	const tl_dp *v;
	size_t n = tlq_dp(rl, &v);
	CHECK(n == 1 && v[0].stage == TL_STAGE_NONE && v[0].step == -1 && v[0].n == 4,
	      "dp-only: one entry, the whole capture");
	int gmax = 0;
	want w[4];
	for (int r = 0; r < 4; r++) {
		w[r] = (want){.has = 1, .first = INT64_MAX, .last = INT64_MIN};
		for (int64_t k = 1; k <= o.nsteps; k++) {
			want x = truth_of(&t, r, k);
			w[r].n += x.n;
			w[r].tokens += x.tokens;
			w[r].run += x.run;
			w[r].wait += x.wait;
			w[r].peak = x.peak > w[r].peak ? x.peak : w[r].peak;
			w[r].first = x.first < w[r].first ? x.first : w[r].first;
			w[r].last = x.last > w[r].last ? x.last : w[r].last;
		}
		if (w[r].n - 1 > gmax)
			gmax = w[r].n - 1;
	}
	size_t good = 0;
	for (size_t k = 0; n == 1 && k < v[0].n; k++) {
		const tl_dp_rank *x = &v[0].ranks[k];
		const want *y = &w[tr.ranks[x->rank]->rank];
		double thr = y->tokens / ((double)(y->last - y->first) / 1e9);
		int eq = (int)x->nsteps == y->n &&
		         near(x->bubble_rate_pct, (double)(gmax - (y->n - 1)) / gmax * 100) &&
		         near(x->out_tokens, y->tokens) && near(x->throughput, thr) &&
		         near(x->mean_running, y->run / y->n) &&
		         near(x->mean_waiting, y->wait / y->n) &&
		         near(x->peak_cache_usage, y->peak);
		good += eq;
		if (!eq)
			CHECK(0, "dp-only rank %d: steps %zu (%d), tokens %g (%g), tok/s %g (%g)",
			      tr.ranks[x->rank]->rank, x->nsteps, y->n, x->out_tokens, y->tokens,
			      x->throughput, thr);
	}
	CHECK_EQ_I64(good, 4,
	             "dp-only: every rank's steps, bubble rate, tokens, throughput, means "
	             "and peak over the whole capture equal the truth");
	tlq_close(rl);
	trace_free(&tr);
	gen_truth_free(&t);
}

int
main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/tl-test-dp-XXXXXX");
	if (mkdtemp(tmp) == NULL) {
		CHECK(0, "mkdtemp");
		return test_done();
	}
	test_parse();
	test_compute();
	test_whole_capture();
	check_generated(0);
	check_generated(1);
	check_whole_capture();
	char *cmd = xasprintf("rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		CHECK(0, "rm -rf %s", tmp);
	free(cmd);
	return test_done();
}
