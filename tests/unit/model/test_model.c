/* The model: depth levels for nested and partly overlapping ranges, sorting, prefix sums and
 * the per-column queries the timeline draws from, overlap sweeps with exact answers. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/overlap.h"
#include "model/mstx.h"
#include "query/query.h"
#include "util/xalloc.h"
#include "../test.h"

static void
test_levels(void)
{
	tl_rank *r = rank_new(0);
	tl_track *t = rank_track(r, TL_LANE_MSTX, 1, "default");
	/* step [0,100) holding a [10,40) with child [15,20), then [50,90); an isend-like range
	 * [80,120) that only partly overlaps [50,90); a mark at 60; pushed out of order */
	track_push(t, 50, 90, 4, 0);
	track_push(t, 0, 100, 1, 0);
	track_push(t, 15, 20, 3, 0);
	track_push(t, 10, 40, 2, 0);
	track_push(t, 80, 120, 5, 0);
	track_push(t, 60, 60, 6, 0);
	rank_finish(r);
	size_t total = 0, nlev = 0;
	tl_track *lv[4] = {0};
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == TL_LANE_MSTX) {
			total += r->tracks[i]->n;
			if (r->tracks[i]->depth < 4)
				lv[r->tracks[i]->depth] = r->tracks[i];
			nlev++;
		}
	CHECK_EQ_I64(total, 6, "nothing dropped");
	CHECK_EQ_I64(nlev, 3, "three depth levels");
	CHECK(lv[0] && lv[0]->n == 1 && lv[0]->v[0].name == 1, "level 0: the step alone");
	CHECK(lv[1] && lv[1]->n == 2 && lv[1]->v[0].name == 2 && lv[1]->v[1].name == 4,
	      "level 1: the two children of the step");
	CHECK(lv[2] && lv[2]->n == 3 && lv[2]->v[0].name == 3 && lv[2]->v[1].name == 6 &&
	          lv[2]->v[2].name == 5,
	      "level 2: the grandchild, the mark inside [50,90), and the partly overlapping range");
	for (int d = 0; d < 3; d++) {
		int ok = 1;
		for (size_t k = 1; lv[d] && k < lv[d]->n; k++)
			if (lv[d]->v[k].start < track_end(lv[d], k - 1))
				ok = 0;
		CHECK(ok, "level %d is sorted and non-overlapping", d);
	}
	CHECK_EQ_I64(r->t_min, 0, "envelope start");
	CHECK_EQ_I64(r->t_max, 120, "envelope end");
	rank_free(r);
}

static void
test_busy_and_columns(void)
{
	tl_rank *r = rank_new(0);
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	/* ten slices of 10 ns every 20 ns: [0,10) [20,30) ... [180,190) */
	for (int i = 0; i < 10; i++)
		track_push(t, i * 20, i * 20 + 10, (uint32_t)i, 0);
	rank_finish(r);
	t = r->tracks[0];
	/* first by walking the slices, then through the level of detail a viewer's session builds
	 */
	for (int pass = 0; pass < 2; pass++) {
		CHECK_EQ_I64(tlq_busy(t, 0, 200), 100, "busy over everything");
		CHECK_EQ_I64(tlq_busy(t, 5, 25), 10, "busy clipped at both ends");
		CHECK_EQ_I64(tlq_busy(t, 12, 18), 0, "busy inside a gap");
		CHECK_EQ_I64(tlq_busy(t, 22, 24), 2, "busy inside one slice");
		CHECK_EQ_I64(tlq_busy(t, 185, 1000), 5, "busy past the end");
		track_lod_build(t);
	}
	tl_cell c[4];
	tlq_columns(t, 0, 200, 4, c);
	CHECK(c[0].busy == 30 && c[0].count == 3, "column 0: three slices, 30 ns busy");
	CHECK(c[3].busy == 20 && c[3].dominant != SIZE_MAX, "column 3 has a dominant slice");
	tlq_columns(t, 12, 18, 2, c);
	CHECK(c[0].dominant == SIZE_MAX && c[1].busy == 0, "empty columns are empty");
	rank_free(r);
}

/* track_first_ending_after_from: the binary search's answer from every start point, on a lane
 * with gaps, zero-length slices and slices end to end. */
static void
test_ending_after_from(void)
{
	tl_rank *r = rank_new(0);
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	int64_t at = 0;
	for (int i = 0; i < 300; i++) {
		int64_t len = i % 7 == 0 ? 0 : i % 5 + 1, gap = i % 3 == 0 ? 0 : i % 11;
		track_push(t, at, at + len, 1, 0);
		at += len + gap;
	}
	rank_finish(r);
	t = r->tracks[0];
	size_t same = 0, asked = 0;
	for (int64_t x = -2; x <= at + 2; x += 3)
		for (size_t from = 0; from <= t->n + 1; from += 7) {
			asked++;
			same += track_first_ending_after_from(t, x, from) ==
			        track_first_ending_after(t, x);
		}
	CHECK_EQ_I64(same, asked, "from any start: the binary search's index");
	rank_free(r);
}

static void
test_overlap(void)
{
	/* compute on two streams: [0,10) [5,20) (union [0,20)), [40,50); comm [15,45) */
	tl_rank *r = rank_new(0);
	tl_track *a = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	tl_track *b = rank_track(r, TL_LANE_COMPUTE, 1, "Stream 1");
	tl_track *m = rank_track(r, TL_LANE_COMM, 7, "group");
	track_push(a, 0, 10, 1, 0);
	track_push(b, 5, 20, 1, 0);
	track_push(a, 40, 50, 1, 0);
	track_push(m, 15, 45, 2, 0);
	track_push(m, 70, 80, 2, 0);
	rank_finish(r);
	tl_overlap o;
	tlq_overlap(r, INT64_MIN, INT64_MAX, &o);
	CHECK_EQ_I64(o.computing, 30, "computing = |[0,20) ∪ [40,50)|");
	CHECK_EQ_I64(o.communication, 40, "communication");
	CHECK_EQ_I64(o.overlapped, 10, "overlapped = [15,20) + [40,45)");
	CHECK_EQ_I64(o.comm_not_overlapped, 30, "not overlapped");
	CHECK_EQ_I64(o.free, 20, "free = the gap [50,70)");
	tlq_overlap(r, 10, 42, &o);
	CHECK(o.computing == 12 && o.communication == 27 && o.overlapped == 7 && o.free == 0,
	      "range [10,42): computing 12, communication 27, overlapped 7");
	rank_free(r);
}

static void
test_steps(void)
{
	/* two steps; a task launched in step 1 but executed during step 2's host range */
	tl_rank *r = rank_new(0);
	tl_step s1 = {1, 0, 100}, s2 = {2, 100, 200};
	VEC_PUSH(r->steps, r->nsteps, r->scap, s2); /* out of order on purpose */
	VEC_PUSH(r->steps, r->nsteps, r->scap, s1);
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	track_push_step(t, 10, 50, 1, 0, 1);   /* step index 1 = step id 1 before sorting */
	track_push_step(t, 120, 150, 1, 0, 1); /* launched in step 1, runs at 120 */
	track_push_step(t, 160, 190, 1, 0, 0); /* step id 2 */
	rank_finish(r);
	CHECK(r->steps[0].id == 1 && r->steps[1].id == 2, "steps sorted by start");
	tl_step_overlap *so;
	size_t n = tlq_step_overlaps(r, &so);
	CHECK_EQ_I64(n, 2, "two steps");
	CHECK_EQ_I64(so[0].o.computing, 70, "step 1 owns the work it launched (40 + 30)");
	CHECK_EQ_I64(so[0].o.free, 70, "step 1 free = 140 - 70");
	CHECK_EQ_I64(so[0].o.preparing, 10, "step 1 preparing");
	CHECK_EQ_I64(so[1].o.computing, 30, "step 2 computing");
	CHECK_EQ_I64(so[1].o.preparing, 60, "step 2 preparing = 160 - 100");
	free(so);
	CHECK_EQ_I64(rank_step_at(r, 150), 1, "host time 150 is in step index 1");
	CHECK_EQ_I64(rank_step_at(r, 250), TL_NO_STEP, "after the last step");
	rank_free(r);
}

/* A lane's step tags once finished: runs of equal tags, read the same as the tag per slice they
 * were pushed as (in any order), by the accessor, the cursor forwards and back, the run ends and
 * starts, step_cursor_next and step_cursor_run_end, each against a plain walk of the tags; kept per
 * slice where runs would take more; tags per slice again for slices pushed after. */
#define RUN_N 5000
static uint16_t
want_tag(size_t i) /* slice i by start: 8 steps of 600, untagged between, a few strays */
{
	if (i % 997 == 13)
		return (uint16_t)((i / 600 + 1) % 8);
	return i / 600 >= 8 || i % 600 >= 580 ? TL_NO_STEP : (uint16_t)(i / 600);
}

static void
check_tags(const tl_track *t, const uint16_t *want, const char *what)
{
	size_t bad = 0, badc = 0, bade = 0, bads = 0, badn = 0;
	tl_step_cursor c;
	step_cursor_init(&c, t);
	for (size_t k = 0; k < t->n; k++) {
		bad += track_step(t, k) != want[k];
		badc += step_cursor_at(&c, k) != want[k];
		size_t e = k + 1, b = k;
		while (e < t->n && want[e] == want[k])
			e++;
		while (b > 0 && want[b - 1] == want[k])
			b--;
		bade += track_step_run_end(t, k) != e;
		bads += track_step_run_start(t, k) != b;
	}
	for (size_t k = t->n; k-- > 0;) /* backwards: a search each */
		badc += step_cursor_at(&c, k) != want[k];
	for (size_t p = 0; p < t->n; p += 37) {
		uint16_t st = (uint16_t)(p % 9 == 8 ? 3 : p % 9);
		int64_t t1 = p % 2 ? INT64_MAX : t->v[p].start + 7000;
		size_t q = p;
		while (q < t->n && want[q] != st && t->v[q].start < t1)
			q++;
		step_cursor_init(&c, t);
		badn += step_cursor_next(&c, p, st, t1) != q;
		size_t e =
		    step_cursor_run_end(&c, q, st); /* [q, e) all of st, empty when q is not */
		badn += (e > q) != (q < t->n && want[q] == st) || e > t->n;
		for (size_t k = q; k < e && k < t->n; k++)
			badn += want[k] != st;
	}
	CHECK(bad + badc + bade + bads + badn == 0,
	      "%s: tags %zu, cursor %zu, run ends %zu, starts %zu, next %zu wrong", what, bad, badc,
	      bade, bads, badn);
}

static void
test_step_runs(void)
{
	tl_rank *r = rank_new(0);
	for (int64_t k = 0; k < 8; k++) {
		tl_step s = {k + 1, k * 6000, k * 6000 + 5999};
		VEC_PUSH(r->steps, r->nsteps, r->scap, s);
	}
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	tl_track *alt = rank_track(r, TL_LANE_COMPUTE, 1, "Stream 1");
	static uint16_t want[RUN_N + 2];
	for (size_t j = 0; j < RUN_N; j++) { /* pushed in a scrambled order */
		size_t i = (j * 2654435761u) % RUN_N;
		track_push_step(t, (int64_t)i * 10, (int64_t)i * 10 + 5, 1, 0, want_tag(i));
		track_push_step(alt, (int64_t)i * 10, (int64_t)i * 10 + 5, 1, 0, (uint16_t)(i % 2));
	}
	rank_finish(r);
	for (size_t i = 0; i < RUN_N; i++)
		want[i] = want_tag(i);
	t = r->tracks[0]->key == 0 ? r->tracks[0] : r->tracks[1];
	alt = r->tracks[0]->key == 0 ? r->tracks[1] : r->tracks[0];
	CHECK(t->step == NULL && t->nstep_runs > 8 && t->nstep_runs < 40 && t->step_cover == RUN_N,
	      "a finished lane's tags are runs");
	check_tags(t, want, "runs");
	CHECK(alt->step != NULL && alt->nstep_runs == 0, "alternating tags stay one per slice");
	static uint16_t walt[RUN_N];
	for (size_t i = 0; i < RUN_N; i++)
		walt[i] = (uint16_t)(i % 2);
	check_tags(alt, walt, "per slice");

	/* slices pushed after: untagged ones read TL_NO_STEP, a tagged one brings the tags back
	 * one per slice until the rank is finished again */
	size_t before[2] = {r->tracks[0]->n, r->tracks[1]->n};
	track_push(t, RUN_N * 10, RUN_N * 10 + 5, 1, 0);
	want[RUN_N] = TL_NO_STEP;
	check_tags(t, want, "an untagged slice after the runs");
	track_push_step(t, RUN_N * 10 + 10, RUN_N * 10 + 15, 1, 0, 2);
	want[RUN_N + 1] = 2;
	CHECK(t->step != NULL && t->nstep_runs == 0, "a tagged push: a tag per slice");
	check_tags(t, want, "pushed after");
	rank_finish_grown(r, before, 2);
	t = r->tracks[0]->key == 0 ? r->tracks[0] : r->tracks[1];
	CHECK(t->step == NULL && t->nstep_runs > 8, "runs again once finished");
	check_tags(t, want, "finished again");
	rank_free(r);
}

/* Range messages: pp_chart's str(dict) and JSON, with and without a micro-batch; anything
 * else is left as it is. */
static void
test_mstx_messages(void)
{
	static const struct {
		const char *msg, *name;
		int mb;
		const char *label;
	} v[] = {
	    {"{'name': 'forward_step'}", "forward_step", -1, "forward_step"},
	    {"{'name': 'backward_step', 'current_microbatch': 3}", "backward_step", 3,
	     "backward_step (micro-batch 3)"},
	    {"{\"name\": \"forward_step\", \"current_microbatch\": 12}", "forward_step", 12,
	     "forward_step (micro-batch 12)"},
	    {" { 'current_microbatch' : 0 , 'name' : 'WeightGradStore.pop' } ",
	     "WeightGradStore.pop", 0, "WeightGradStore.pop (micro-batch 0)"},
	    {"{'name': 'it\\'s', 'extra': [1, {'a': '}'}], 'ok': True}", "it's", -1, "it's"},
	    {"{\"name\": \"decode\", \"microbatch\": 2}", "decode", 2, "decode (micro-batch 2)"},
	    {"forward_step", NULL, -1, "forward_step"},
	    {"{'name': 'forward_step'", NULL, -1, "{'name': 'forward_step'"},
	    {"{'name': 'forward_step'} tail", NULL, -1, "{'name': 'forward_step'} tail"},
	    {"{\"streamId\": \"32\",\"count\": \"25701386\",\"opName\": \"HcclAllreduce\"}", NULL,
	     -1, "{\"streamId\": \"32\",\"count\": \"25701386\",\"opName\": \"HcclAllreduce\"}"},
	    {"{'name': 7}", NULL, -1, "{'name': 7}"},
	    {"", NULL, -1, ""},
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		char nm[64] = "untouched", lab[128];
		int mb = -7;
		int ok = mstx_msg_decode(v[i].msg, strlen(v[i].msg), nm, sizeof nm, &mb);
		if (v[i].name)
			CHECK(ok && strcmp(nm, v[i].name) == 0 && mb == v[i].mb,
			      "decode %s: name %s, micro-batch %d", v[i].msg, nm, mb);
		else
			CHECK(!ok && strcmp(nm, "untouched") == 0 && mb == -7,
			      "not a named dict, left alone: %s", v[i].msg);
		mstx_msg_label(v[i].msg, strlen(v[i].msg), lab, sizeof lab);
		CHECK_STR(lab, v[i].label, "device-lane label");
	}
}

/* A rank whose lanes keep their big arrays in huge pages (a JSON trace's): grown past 2 MiB
 * (malloc'd, then mapped, then moved as they double), split into levels, fitted to their
 * slices (shrunk in place, or back to malloc'd under 2 MiB), the tags into runs, the row ids
 * dropped: every slice, row id, step tag and device span as pushed. */
#define HUGE_N 150000
static void
test_huge_lanes(void)
{
	tl_rank *r = rank_new(0);
	tl_step s0 = {1, 0, 10 * HUGE_N / 2}, s1 = {2, 10 * HUGE_N / 2, 10 * HUGE_N};
	VEC_PUSH(r->steps, r->nsteps, r->scap, s0);
	VEC_PUSH(r->steps, r->nsteps, r->scap, s1);
	r->huge_lanes = 1;
	tl_track *t = rank_track(r, TL_LANE_HOST, 7, "thread 7");
	CHECK(t->huge, "a new lane of the rank is huge");
	for (size_t i = 0; i < HUGE_N; i++) { /* a parent and its child, each a level */
		int64_t s = (int64_t)i * 10;
		uint16_t st = (uint16_t)(i >= HUGE_N / 2);
		track_push_step(t, s, s + 8, 1, (uint32_t)(2 * i), st);
		track_push_step(t, s + 1, s + 5, 2, (uint32_t)(2 * i + 1), st);
		if (i % 1000 == 0)
			track_set_dev(t, t->n - 1, s + 100, s + 200);
	}
	CHECK(t->cap == 524288 && t->arg != NULL && t->step != NULL && t->dev != NULL,
	      "grown by doubling: cap %zu", t->cap);
	r->huge_lanes = 0;
	rank_finish(r);
	CHECK_EQ_I64(r->ntracks, 2, "two levels");
	size_t bad = 0;
	for (size_t L = 0; L < r->ntracks && r->ntracks == 2; L++) {
		tl_track *x = r->tracks[L];
		CHECK(x->depth == L && x->n == HUGE_N && x->cap == HUGE_N && x->huge,
		      "level %zu: %zu slices, cap %zu, huge %d", L, x->n, x->cap, x->huge);
		tl_step_cursor c;
		step_cursor_init(&c, x);
		for (size_t i = 0; i < x->n && x->n == HUGE_N; i++) {
			int64_t s = (int64_t)i * 10 + (int64_t)L;
			tl_span dv = x->dev ? x->dev[i] : (tl_span){0, -1};
			int has_dev = L == 1 && i % 1000 == 0;
			bad += x->v[i].start != s || track_end(x, i) != s + (L ? 4 : 8) ||
			       x->v[i].name != 1 + L || track_arg(x, i) != 2 * i + L ||
			       step_cursor_at(&c, i) != (i >= HUGE_N / 2) ||
			       (has_dev ? dv.start != s + 99 || dv.end != s + 199
			                : dv.end >= dv.start);
		}
	}
	CHECK_EQ_I64(bad, 0, "slices, row ids, steps and device spans as pushed");
	rank_drop_args(r, 0);
	CHECK(r->tracks[0]->arg == NULL, "row ids dropped");
	rank_free(r);
}

int
main(void)
{
	test_mstx_messages();
	test_levels();
	test_busy_and_columns();
	test_ending_after_from();
	test_overlap();
	test_steps();
	test_step_runs();
	test_huge_lanes();
	return test_done();
}
