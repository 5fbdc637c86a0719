/* tl diff against the generator's truth: a pair A, B where B is A with one stage's kernels
 * slowed on some ranks, one collective's last arrival delayed and the clock shifted by hours.
 * Every stage delta is the truth's (B's range length - A's) to the ns, operator type deltas are
 * the truth's TASK sums, communication wait deltas the truth's wait sums; the top change names
 * the slowed stage. Also: B with fewer ranks, A against itself, two ranks of one profile. */
#include "config.h"

#include <cJSON.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/diff.h"
#include "report/report.h"
#include "util/xalloc.h"
#include "../test.h"

/* One side's measurements from a session of its own, as tl diff opens one per trace. */
static void
gather(tl_trace *tr, const tl_diff_side_opts *o, tl_diff_side *out)
{
	tl_query *q = tlq_open(tr, NULL);
	tlq_diff_gather(q, o, out);
	tlq_close(q);
}

#define HOUR (3600LL * 1000000000LL)
#define T0 1736407067000000000LL

static void
base_opts(gen_opts *o, int nranks)
{
	gen_opts_default(o);
	o->nranks = nranks;
	o->nsteps = 2;
	o->tasks_per_rank = 6000;
	o->seed = 7;
	o->slow_rank = -1;
	o->threads = 2;
	o->t0_ns = T0;
}

static int
load(const char *path, tl_trace *tr)
{
	tl_load_opts lo = {.quiet_progress = 1};
	return load_trace(path, &lo, tr);
}

/* tl diff --json of two sides, parsed */
static cJSON *
diff_json(const tl_diff_side *a, const tl_diff_side *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	report_diff_json(f, a, b);
	fclose(f);
	cJSON *j = cJSON_Parse(buf);
	free(buf);
	return j;
}

static int64_t
num(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(x) ? (int64_t)x->valuedouble : INT64_MIN;
}

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(x) ? x->valuestring : NULL;
}

static int64_t
stage_len(const gen_truth *t, int rank, int64_t step, const char *stage)
{
	for (size_t i = 0; i < t->nstages; i++)
		if (t->stages[i].rank == rank && t->stages[i].step == step &&
		    strcmp(gen_stage_canon[t->stages[i].stage], stage) == 0)
			return t->stages[i].end_ns - t->stages[i].start_ns;
	return INT64_MIN;
}

static int64_t
op_total(const gen_truth *t, int rank, const char *type)
{
	int64_t s = 0;
	for (size_t i = 0; i < t->nops; i++)
		if (t->ops[i].rank == rank && strcmp(t->ops[i].op_type, type) == 0)
			s += t->ops[i].total_ns;
	return s;
}

static int64_t
wait_sum(const gen_truth *t, int rank, int64_t step)
{
	int64_t s = 0;
	for (size_t i = 0; i < t->ncomm; i++)
		if (t->comm[i].rank == rank && t->comm[i].step == step)
			s += t->comm[i].wait_ns;
	return s;
}

static void
test_pair(const char *dir)
{
	gen_opts oa, ob;
	base_opts(&oa, 4);
	base_opts(&ob, 4);
	ob.slow_stage = 1; /* ref_logprob */
	ob.slow_factor = 1600;
	ob.slow_ranks_mask = (1u << 1) | (1u << 2);
	ob.delay_coll = 40; /* a collective of step 2 */
	ob.delay_ns = 2000000;
	ob.t0_ns = T0 + 5 * HOUR;
	char *pa = xasprintf("%s/a", dir), *pb = xasprintf("%s/b", dir);
	gen_truth ta, tb;
	CHECK(gen_profile(&oa, pa, &ta) == 0, "generate A");
	CHECK(gen_profile(&ob, pb, &tb) == 0, "generate B: ref_logprob x1.6 on ranks 1, 2, +5 h");
	CHECK(strcmp(gen_stage_canon[1], "ref_logprob") == 0, "stage 1 is ref_logprob");
	tl_trace tra, trb;
	CHECK(load(pa, &tra) == 0 && load(pb, &trb) == 0, "load both");
	tl_diff_side_opts so = {.only_rank = -1, .as_rank = -1, .step_first = -1};
	tl_diff_side a, b;
	gather(&tra, &so, &a);
	gather(&trb, &so, &b);
	cJSON *j = diff_json(&a, &b);
	CHECK(j != NULL, "the JSON parses");
	const char *vd = str(j, "verdict");
	CHECK(vd && strncmp(vd, "ref_logprob +", 13) == 0, "verdict names the slowed stage: %s",
	      vd ? vd : "(null)");
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(j, "changes"), *c;
	const cJSON *top_stage = NULL, *top_op = NULL, *head = NULL;
	/* ranked per step: an operator's whole-capture total over each run's steps (2 each);
	 * each quantity's all-ranks row, then its ranks', largest first */
	int64_t prev = INT64_MAX, prev_rank = INT64_MAX;
	int sorted = 1, folded = 1, per_step = 1, nop = 0;
	CHECK(num(j, "a_steps") == 2 && num(j, "b_steps") == 2, "two steps in each run");
	cJSON_ArrayForEach(c, ch)
	{
		int op = strcmp(str(c, "kind"), "operator") == 0;
		int64_t d =
		    op ? llabs(num(c, "b_ns") / 2 - num(c, "a_ns") / 2) : llabs(num(c, "delta_ns"));
		per_step &= llabs(num(c, "step_delta_ns")) == d;
		nop += op;
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "rank"))) {
			sorted &= d <= prev;
			prev = d;
			prev_rank = INT64_MAX;
			head = c;
		} else {
			folded &= head != NULL && strcmp(str(c, "kind"), str(head, "kind")) == 0 &&
			          strcmp(str(c, "name"), str(head, "name")) == 0 &&
			          num(c, "step") == num(head, "step") && d <= prev_rank;
			prev_rank = d;
		}
		if (!top_stage && strcmp(str(c, "kind"), "stage") == 0)
			top_stage = c;
		if (!top_op && op && strncmp(str(c, "name"), "type ", 5) == 0)
			top_op = c;
	}
	CHECK(sorted && nop > 0,
	      "quantities are ranked by their change per step over all ranks, largest first");
	CHECK(folded, "each quantity's per-rank rows follow its all-ranks row, largest first");
	CHECK(per_step, "step_delta_ns is delta_ns, or for an operator total its change per step");
	CHECK_STR(top_stage ? str(top_stage, "name") : NULL, "ref_logprob", "the top stage change");
	/* the op type whose total grew most over the ranks, by the truth */
	const char *want_op = NULL;
	int64_t best = 0;
	for (size_t i = 0; i < tb.nops; i++) {
		int64_t d = 0;
		for (int r = 0; r < 4; r++)
			d += op_total(&tb, r, tb.ops[i].op_type) -
			     op_total(&ta, r, tb.ops[i].op_type);
		if (d > best) {
			best = d;
			want_op = tb.ops[i].op_type;
		}
	}
	char want[128];
	snprintf(want, sizeof want, "type %s", want_op ? want_op : "?");
	CHECK_STR(top_op ? str(top_op, "name") : NULL, want, "the top operator type change");

	/* every stage row against the truth, per rank to the ns and the mean over ranks */
	size_t nrank_rows = 0, bad = 0, nall = 0, badall = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "stages"))
	{
		const char *name = str(c, "name");
		int64_t step = num(c, "step");
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(c, "rank");
		if (cJSON_IsNumber(rk)) {
			int r = rk->valueint;
			nrank_rows++;
			bad += num(c, "a_ns") != stage_len(&ta, r, step, name) ||
			       num(c, "b_ns") != stage_len(&tb, r, step, name) ||
			       num(c, "delta_ns") !=
			           stage_len(&tb, r, step, name) - stage_len(&ta, r, step, name);
		} else {
			int64_t sa = 0, sb = 0;
			for (int r = 0; r < 4; r++) {
				sa += stage_len(&ta, r, step, name);
				sb += stage_len(&tb, r, step, name);
			}
			nall++;
			badall += num(c, "a_ns") != sa / 4 || num(c, "b_ns") != sb / 4;
		}
	}
	CHECK(nrank_rows == 4 * 2 * GEN_NSTAGES && bad == 0,
	      "%zu per-rank stage rows, %zu differ from the truth", nrank_rows, bad);
	CHECK(nall == 2 * GEN_NSTAGES && badall == 0,
	      "%zu all-rank stage rows (means), %zu differ from the truth", nall, badall);

	/* operator types per rank against the truth's TASK sums */
	size_t nops = 0, badops = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "operators"))
	{
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(c, "rank");
		const char *name = str(c, "name");
		if (!cJSON_IsNumber(rk) || strncmp(name, "type ", 5) != 0)
			continue;
		nops++;
		badops += num(c, "delta_ns") != op_total(&tb, rk->valueint, name + 5) -
		                                    op_total(&ta, rk->valueint, name + 5);
	}
	CHECK(nops > 0 && badops == 0, "%zu operator type rows, %zu differ from the truth", nops,
	      badops);

	/* communication wait per rank and step, summed over op types, against the truth */
	int64_t got[4][3] = {{0}};
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "communication"))
	{
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(c, "rank");
		const char *name = str(c, "name");
		size_t n = strlen(name);
		int64_t step = num(c, "step");
		if (cJSON_IsNumber(rk) && n > 5 && strcmp(name + n - 5, " wait") == 0 &&
		    step >= 1 && step <= 2 && rk->valueint < 4)
			got[rk->valueint][step] += num(c, "delta_ns");
	}
	size_t badw = 0;
	int64_t grown = 0;
	for (int r = 0; r < 4; r++)
		for (int s = 1; s <= 2; s++) {
			int64_t want_d = wait_sum(&tb, r, s) - wait_sum(&ta, r, s);
			badw += got[r][s] != want_d;
			if (s == 2)
				grown += want_d;
		}
	CHECK(badw == 0, "communication wait deltas per rank and step equal the truth's");
	CHECK(grown > 0, "the delayed collective lengthened the waits of step 2");
	const cJSON *oa_ = cJSON_GetObjectItemCaseSensitive(j, "only_in_a");
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(oa_, "ranks")) == 0,
	      "no rank only in A");
	cJSON_Delete(j);

	/* A against itself: nothing changed */
	j = diff_json(&a, &a);
	CHECK(j && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "changes")) == 0,
	      "A against A: no changes");
	CHECK_STR(j ? str(j, "verdict") : NULL, "no changes", "A against A: the verdict");
	cJSON_Delete(j);

	/* two ranks of A: rank 1 against rank 1 is nothing; rank 3 of B against rank 1 of B */
	tl_diff_side r1, r2;
	tl_diff_side_opts s1 = {.only_rank = 1, .as_rank = 1, .step_first = -1};
	tl_diff_side_opts s2 = {.only_rank = 3, .as_rank = 1, .step_first = -1};
	gather(&trb, &s1, &r1);
	gather(&trb, &s2, &r2);
	j = diff_json(&r2, &r1); /* A = rank 3 (not slowed), B = rank 1 (slowed) */
	int64_t d = INT64_MIN;
	cJSON_ArrayForEach(
	    c, cJSON_GetObjectItemCaseSensitive(
	           j, "stages")) if (strcmp(str(c, "name"), "ref_logprob") == 0 &&
	                             num(c, "step") == 1 &&
	                             cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "rank"))) d =
	    num(c, "delta_ns");
	CHECK_EQ_I64(d, stage_len(&tb, 1, 1, "ref_logprob") - stage_len(&tb, 3, 1, "ref_logprob"),
	             "rank 1 vs rank 3 of B: ref_logprob step 1");
	cJSON_Delete(j);
	tlq_diff_side_free(&r1);
	tlq_diff_side_free(&r2);

	/* --steps 2:1 pairs A's step 2 with B's step 1 */
	tl_diff_side_opts sa2 = {.only_rank = -1, .as_rank = -1, .step_first = 2};
	tl_diff_side_opts sb1 = {.only_rank = -1, .as_rank = -1, .step_first = 1};
	tl_diff_side a2, b1;
	gather(&tra, &sa2, &a2);
	gather(&trb, &sb1, &b1);
	j = diff_json(&a2, &b1);
	size_t paired = 0, badp = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "stages"))
	{
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(c, "rank");
		if (!cJSON_IsNumber(rk) || num(c, "step") != 2)
			continue;
		paired++;
		badp += num(c, "step_b") != 1 ||
		        num(c, "b_ns") != stage_len(&tb, rk->valueint, 1, str(c, "name")) ||
		        num(c, "a_ns") != stage_len(&ta, rk->valueint, 2, str(c, "name"));
	}
	CHECK(paired == 4 * GEN_NSTAGES && badp == 0,
	      "--steps 2:1: %zu stage rows pair A's step 2 with B's step 1, %zu wrong", paired,
	      badp);
	cJSON_Delete(j);
	tlq_diff_side_free(&a2);
	tlq_diff_side_free(&b1);

	tlq_diff_side_free(&a);
	tlq_diff_side_free(&b);
	trace_free(&trb);

	/* B with fewer ranks: the missing ranks are named */
	gen_opts oc;
	base_opts(&oc, 3);
	char *pc = xasprintf("%s/c", dir);
	gen_truth tc;
	CHECK(gen_profile(&oc, pc, &tc) == 0, "generate a 3-rank B");
	tl_trace trc;
	CHECK(load(pc, &trc) == 0, "load it");
	gather(&tra, &so, &a);
	gather(&trc, &so, &b);
	j = diff_json(&a, &b);
	const cJSON *only = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(j, "only_in_a"), "ranks");
	CHECK(cJSON_GetArraySize(only) == 1 && cJSON_GetArrayItem(only, 0)->valueint == 3,
	      "rank 3 is named as only in A");
	size_t gone = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "stages"))
	{
		const cJSON *rk = cJSON_GetObjectItemCaseSensitive(c, "rank");
		if (cJSON_IsNumber(rk) && rk->valueint == 3)
			gone += cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "b_ns"));
	}
	CHECK(gone == 2 * GEN_NSTAGES, "rank 3's stages have no B value (%zu)", gone);
	cJSON_Delete(j);
	tlq_diff_side_free(&a);
	tlq_diff_side_free(&b);
	trace_free(&trc);

	/* B with an extra stage: A's profile has no range of the last stage */
	gen_opts od;
	base_opts(&od, 4);
	od.unmarked_stage = GEN_NSTAGES;
	char *pd = xasprintf("%s/d", dir);
	gen_truth td;
	CHECK(gen_profile(&od, pd, &td) == 0, "generate an A without %s ranges",
	      gen_stage_canon[GEN_NSTAGES - 1]);
	tl_trace trd;
	CHECK(load(pd, &trd) == 0, "load it");
	gather(&trd, &so, &a);
	gather(&tra, &so, &b);
	j = diff_json(&a, &b);
	only = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "only_in_b"),
	                                        "stages");
	CHECK(cJSON_GetArraySize(only) == 1 && strcmp(cJSON_GetArrayItem(only, 0)->valuestring,
	                                              gen_stage_canon[GEN_NSTAGES - 1]) == 0,
	      "the extra stage is named as only in B");
	size_t newrows = 0, moved = 0;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "stages"))
	{
		if (strcmp(str(c, "name"), gen_stage_canon[GEN_NSTAGES - 1]) == 0)
			newrows += cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "a_ns"));
		else
			moved += num(c, "delta_ns") != 0;
	}
	CHECK(newrows == 2 * 5 && moved == 0,
	      "its %zu rows have no A value; the other stages did not change (%zu did)", newrows,
	      moved);
	cJSON_Delete(j);
	tlq_diff_side_free(&a);
	tlq_diff_side_free(&b);
	trace_free(&trd);
	gen_truth_free(&td);
	free(pd);

	trace_free(&tra);
	gen_truth_free(&ta);
	gen_truth_free(&tb);
	gen_truth_free(&tc);
	free(pa);
	free(pb);
	free(pc);
}

int
main(void)
{
	char dir[] = "/tmp/tl-test-diff-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return test_done();
	}
	test_pair(dir);
	nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return test_done();
}
