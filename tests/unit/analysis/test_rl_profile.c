/* The RL triage analyses against the generator's ground truth, which it knows by construction
 * (it lays the timeline out; it does not run these analyses): stage rows, DP imbalance,
 * slow-rank votes, bubbles (the summary's and the viewer's), on RL profiles with host and with
 * device ranges; and decode steps: what marks them, and a dash where nothing does. */
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

/* ---- generated profiles ---------------------------------------------------------------- */

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
	CHECK(txt && strstr(txt, "Verdict") == txt && strstr(txt, "\n\nOverlap per rank and step"),
	      "text summary starts with the verdict, then the overlap table");
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

int
main(void)
{
	if (rl_test_begin("rl-profile") != 0)
		return test_done();
	test_rl_profile(0);
	test_rl_profile(1);
	test_decode();
	rm_rf(tmp);
	return test_done();
}
