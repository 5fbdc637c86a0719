/* tlq_gaps, the session's memo of each rank's longest idle gaps (the bubble table and the stall
 * rule share one walk of a rank's unions): every answer against bubble_gaps_of_rank on the same
 * rank, asked in an order that is answered from the memo (fewer than it holds, all of a rank
 * that has fewer), that walks again (more than it holds), and after the slot's rank changed (as
 * tlq_poll replaces it): the new rank's gaps, not the old one's. The bubble table (tlq_bubbles)
 * and the iterator over the memo against the same reference. */
#include "config.h"

#include <stdlib.h>

#include "analysis/bubbles.h"
#include "query/session.h"
#include "../test.h"

static uint64_t rng;

/* a compute and a communication lane of per_lane slices each on a grid of 10 ns over [0, T) */
static tl_rank *
random_rank(uint64_t seed, int64_t T, int per_lane)
{
	rng = seed;
	tl_rank *r = rank_new(0);
	uint32_t kern = strpool_intern_cstr(r->pool, "kernel");
	for (int l = 0; l < 2; l++) {
		tl_track *t = rank_track(r, l ? TL_LANE_COMM : TL_LANE_COMPUTE, l, "lane");
		for (int i = 0; i < per_lane; i++) {
			int64_t s = (int64_t)(test_xorshift(&rng) % (uint64_t)(T / 10)) * 10;
			track_push(t, s, s + (int64_t)(test_xorshift(&rng) % 3 + 1) * 10, kern, 0);
		}
	}
	rank_finish(r);
	return r;
}

/* tlq_gaps(q, 0, max) against bubble_gaps_of_rank(r, max); returns the count */
static size_t
same_gaps(const tl_query *q, const tl_rank *r, size_t max, const char *what)
{
	tl_gap *want, *got;
	size_t nw = bubble_gaps_of_rank(r, max, &want);
	size_t ng = tlq_gaps(q, 0, max, &got);
	int same = nw == ng;
	for (size_t i = 0; same && i < nw; i++)
		same = want[i].start == got[i].start && want[i].end == got[i].end;
	CHECK(same, "%s: max %zu, %zu gaps against %zu", what, max, ng, nw);
	bubble_gaps_iter it;
	tlq_gaps_iter_init(q, 0, max, &it);
	tl_gap g;
	size_t k = 0;
	int in_order = 1;
	while (bubble_gaps_iter_next(&it, &g)) {
		in_order = in_order && k < nw && g.start == want[k].start && g.end == want[k].end;
		k++;
	}
	bubble_gaps_iter_free(&it);
	CHECK(in_order && k == nw, "%s: max %zu, the iterator's %zu gaps", what, max, k);
	free(want);
	free(got);
	return nw;
}

int
main(void)
{
	tl_rank *r1 = random_rank(0x9e3779b97f4a7c15u, 200000, 3000);
	tl_trace tr;
	trace_init_rank(&tr, r1);
	tl_query *q = tlq_open(&tr, NULL);

	size_t n = same_gaps(q, r1, 10, "first ask");
	CHECK(n == 10, "the rank has more than 10 gaps (%zu)", n);
	CHECK(q->st->ngaps >= 1 && q->st->gaps[0].r == r1 && q->st->gaps[0].max == TLQ_GAPS_FIRST &&
	          q->st->gaps[0].n == TLQ_GAPS_FIRST,
	      "the walk kept %d gaps for the next asker", TLQ_GAPS_FIRST);
	same_gaps(q, r1, 3, "fewer than the memo holds");
	same_gaps(q, r1, TLQ_GAPS_FIRST, "as many as it holds");
	same_gaps(q, r1, 500, "more: a walk again");
	CHECK(q->st->gaps[0].max == 500, "the longer list kept (max %zu)", q->st->gaps[0].max);
	same_gaps(q, r1, 7, "after it");

	/* the bubble table: the memo's first bubbles_per_rank, attributed */
	const tl_rl_bubble *b;
	size_t nb = tlq_bubbles(q, &b);
	tl_rl_bubble *want;
	size_t nw = bubbles_of_rank(r1, 0, q->inst[0], q->ninst[0], q->o.bubbles_per_rank, &want);
	int same = nb == nw;
	for (size_t i = 0; same && i < nw; i++)
		same = b[i].start == want[i].start && b[i].end == want[i].end &&
		       b[i].step == want[i].step && b[i].reason == want[i].reason;
	CHECK(same, "tlq_bubbles: %zu bubbles against %zu", nb, nw);
	free(want);

	/* the slot's rank replaced (tlq_poll): the new rank's gaps; then one with fewer gaps than
	 * asked for, whose whole list answers any longer ask */
	tl_rank *r2 = random_rank(12345, 200000, 3000);
	tr.ranks[0] = r2;
	same_gaps(q, r2, 10, "the slot's rank changed");
	CHECK(q->st->gaps[0].r == r2, "the memo is the new rank's");
	tl_rank *r3 = random_rank(777, 2000, 150);
	tr.ranks[0] = r3;
	n = same_gaps(q, r3, 100, "a rank with few gaps");
	CHECK(n > 0 && n < TLQ_GAPS_FIRST, "it has fewer than %d (%zu)", TLQ_GAPS_FIRST, n);
	same_gaps(q, r3, 100000, "all of them, from the memo");
	CHECK(q->st->gaps[0].max == 100, "no walk for them (max %zu)", q->st->gaps[0].max);

	tr.ranks[0] = r1;
	tlq_close(q);
	trace_free(&tr);
	rank_free(r2);
	rank_free(r3);
	return test_done();
}
