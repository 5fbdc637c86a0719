/* bubble_gaps_iter (the viewer's largest bubbles, from the Free lane's level of detail) against
 * bubble_gaps_of_rank on the same rank without overlap lanes (the union walk): random ranks
 * whose gaps often have equal lengths (times on a coarse grid), so that the order of ties
 * (earlier first) is tested; every max from 1 to past the number of gaps; with the level of
 * detail, and on lanes without one (the list fallback). bubble_gaps_of_rank on the rank with
 * the lanes too (the Free lane's walk, through its level of detail when it has one) against
 * the union walk's first max. */
#include "config.h"

#include <stdlib.h>

#include "analysis/bubbles.h"
#include "analysis/lanes.h"
#include "model/lod.h"
#include "../test.h"

static uint64_t rng;

static int64_t
below(int64_t n)
{
	return (int64_t)(test_xorshift(&rng) % (uint64_t)n);
}

/* lanes compute/communication lanes of per_lane slices each on a grid of g ns over [0, T) */
static tl_rank *
random_rank(uint64_t seed, int64_t T, int64_t g, int lanes, int per_lane)
{
	rng = seed;
	tl_rank *r = rank_new(0);
	uint32_t kern = strpool_intern_cstr(r->pool, "kernel");
	for (int l = 0; l < lanes; l++) {
		tl_track *t = rank_track(r, l % 2 ? TL_LANE_COMM : TL_LANE_COMPUTE, l, "lane");
		for (int i = 0; i < per_lane; i++) {
			int64_t s = below(T / g) * g, e = s + (below(3) + 1) * g;
			track_push(t, s, e, kern, 0);
		}
	}
	rank_finish(r);
	return r;
}

int
main(void)
{
	static const struct {
		int64_t T, g;
		int lanes, per_lane, trials;
	} cases[] = {
	    {200, 10, 1, 6, 200},
	    {2000, 10, 2, 40, 100},
	    {20000, 10, 3, 300, 30},
	    {100000, 7, 2, 2000, 5}, /* more than LOD_B^2 Free slices: two levels */
	};
	size_t bad = 0, runs = 0, ties = 0, big = 0, lod_missed = 0, bad_top = 0;
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		for (int i = 0; i < cases[c].trials; i++) {
			uint64_t seed = 0x9e3779b97f4a7c15u ^ (c * 1000003u + (uint64_t)i * 7919u);
			tl_rank *plain = random_rank(seed, cases[c].T, cases[c].g, cases[c].lanes,
			                             cases[c].per_lane);
			tl_rank *w = random_rank(seed, cases[c].T, cases[c].g, cases[c].lanes,
			                         cases[c].per_lane);
			lanes_build_rank(w);
			int with_lod = i % 4 != 3;
			for (size_t k = 0; with_lod && k < w->ntracks; k++)
				if (w->tracks[k]->kind == TL_LANE_OVERLAP)
					track_lod_build(w->tracks[k]);
			tl_gap *all;
			size_t n = bubble_gaps_of_rank(plain, (size_t)-1 / 2, &all);
			const tl_track *f = lanes_overlap_track(w, TL_OVL_FREE);
			big += f && f->n > LOD_B * LOD_B;
			for (size_t k = 1; k < n; k++)
				ties +=
				    all[k].end - all[k].start == all[k - 1].end - all[k - 1].start;
			size_t maxes[] = {1, 2, n / 2 + 1, n, n + 3};
			for (size_t m = 0; m < sizeof maxes / sizeof *maxes; m++, runs++) {
				bubble_gaps_iter it;
				bubble_gaps_iter_init(&it, w, maxes[m]);
				lod_missed += with_lod && f != NULL && it.free == NULL;
				size_t k = 0;
				tl_gap x;
				int ok = 1;
				while (bubble_gaps_iter_next(&it, &x)) {
					if (k >= n || x.start != all[k].start ||
					    x.end != all[k].end)
						ok = 0;
					k++;
				}
				size_t want = maxes[m] < n ? maxes[m] : n;
				bad += !ok || k != want;
				bubble_gaps_iter_free(&it);
				tl_gap *top;
				size_t nt = bubble_gaps_of_rank(w, maxes[m], &top);
				ok = nt == want;
				for (size_t j = 0; ok && j < nt; j++)
					ok = top[j].start == all[j].start &&
					     top[j].end == all[j].end;
				bad_top += !ok;
				free(top);
			}
			free(all);
			rank_free(plain);
			rank_free(w);
		}
	CHECK(bad == 0,
	      "the gaps one at a time are bubble_gaps_of_rank's, in its order (%zu of %zu "
	      "runs differ)",
	      bad, runs);
	CHECK(bad_top == 0,
	      "bubble_gaps_of_rank from the Free lane (with and without its level of detail) "
	      "keeps the union walk's longest, in its order (%zu of %zu runs differ)",
	      bad_top, runs);
	CHECK(lod_missed == 0, "the iterator reads the level of detail when there is one");
	CHECK(ties > 1000, "gaps of equal length were compared (%zu)", ties);
	CHECK(big > 0, "a Free lane of more than %d slices was walked", LOD_B * LOD_B);
	/* a CPU-only rank: no device, no gaps */
	tl_rank *h = random_rank(1, 200, 10, 2, 6);
	lanes_build_rank(h);
	h->host_only = 1;
	bubble_gaps_iter it;
	tl_gap x;
	bubble_gaps_iter_init(&it, h, 10);
	CHECK(!bubble_gaps_iter_next(&it, &x), "a host-only rank has no gaps");
	bubble_gaps_iter_free(&it);
	rank_free(h);
	return test_done();
}
