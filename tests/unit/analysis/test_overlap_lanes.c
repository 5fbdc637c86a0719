/* The overlap breakdown from the overlap lanes (lanes_overlap, and tlq_step_overlaps when a rank
 * has them) against the union walk over the slices (overlap_compute, and tlq_step_overlaps on
 * the same rank without lanes): random ranks with overlapping and zero-length slices, lanes with
 * and without step tags, steps that follow time and slices that stray into another step's
 * time. Windows random, with and without a level of detail on the lanes. */
#include "config.h"

#include <stdlib.h>

#include "analysis/lanes.h"
#include "analysis/overlap.h"
#include "model/lod.h"
#include "query/query.h"
#include "../test.h"

static uint64_t rng;

static uint64_t
next(void)
{
	return test_xorshift(&rng);
}

static int64_t
below(int64_t n)
{
	return (int64_t)(next() % (uint64_t)n);
}

#define NSTEPS 3

/* A rank of `lanes` compute and communication lanes on [0, T) from seed; strays: one slice in
 * `strays` takes a random step (0: none). *alone counts the steps no slice of another step
 * meets (the case the lanes answer). */
static tl_rank *
random_rank(uint64_t seed, int64_t T, int lanes, int per_lane, int strays, int *alone)
{
	rng = seed;
	tl_rank *r = rank_new(0);
	uint32_t kern = strpool_intern_cstr(r->pool, "kernel");
	tl_step st[NSTEPS];
	for (int k = 0; k < NSTEPS; k++)
		st[k] = (tl_step){k + 1, k * T / NSTEPS, (k + 1) * T / NSTEPS};
	size_t base;
	rank_add_steps(r, st, NSTEPS, &base);
	int64_t *s = calloc((size_t)(lanes * per_lane + 1), sizeof *s),
	        *e = calloc((size_t)(lanes * per_lane + 1), sizeof *e);
	uint16_t *sp = calloc((size_t)(lanes * per_lane + 1), sizeof *sp);
	int *tagged = calloc((size_t)(lanes * per_lane + 1), sizeof *tagged);
	size_t n = 0;
	for (int l = 0; l < lanes; l++) {
		tl_track *t = rank_track(r, l % 3 == 2 ? TL_LANE_COMM : TL_LANE_COMPUTE, l, "lane");
		int tag = below(5) != 0;
		for (int i = 0; i < per_lane; i++) {
			s[n] = below(T);
			int64_t len = below(10) == 0 ? 0 : below(T / 30 + 2);
			e[n] = s[n] + len > T ? T : s[n] + len;
			/* steps by time apart, in half of the ranks: no slice crosses into the next
			 */
			int64_t end_of_step = (s[n] * NSTEPS / T + 1) * T / NSTEPS;
			if (strays == 0 && (seed & 1) && e[n] > end_of_step)
				e[n] = end_of_step;
			sp[n] = (uint16_t)(strays && below(strays) == 0 ? below(NSTEPS)
			                                                : s[n] * NSTEPS / T);
			tagged[n] = tag;
			if (tag)
				track_push_step(t, s[n], e[n], kern, 0, sp[n]);
			else
				track_push(t, s[n], e[n], kern, 0);
			n++;
		}
	}
	rank_finish(r);
	for (int k = 0; k < NSTEPS; k++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t i = 0; i < n; i++)
			if (tagged[i] && sp[i] == k) {
				lo = s[i] < lo ? s[i] : lo;
				hi = e[i] > hi ? e[i] : hi;
			}
		int ok = lo <= hi;
		for (size_t i = 0; i < n && ok; i++)
			if (tagged[i] && sp[i] != k && e[i] > s[i] && s[i] < hi + 1 && e[i] > lo)
				ok = 0;
		*alone += ok;
	}
	free(s);
	free(e);
	free(sp);
	free(tagged);
	return r;
}

static int
same(const tl_overlap *a, const tl_overlap *b)
{
	return a->computing == b->computing && a->communication == b->communication &&
	       a->overlapped == b->overlapped && a->comm_not_overlapped == b->comm_not_overlapped &&
	       a->free == b->free && a->preparing == b->preparing &&
	       a->first_busy == b->first_busy && a->last_busy == b->last_busy;
}

int
main(void)
{
	static const struct {
		int64_t T;
		int lanes, per_lane, strays, trials;
		const char *what;
	} cases[] = {
	    {60, 2, 5, 0, 300, "a few slices, steps by time"},
	    {600, 4, 60, 0, 200, "several lanes, steps by time"},
	    {600, 4, 60, 40, 200, "several lanes, a few strays"},
	    {3000, 6, 300, 4, 60, "many slices, many strays"},
	    {3000, 5, 300, 0, 60, "many slices, steps by time"},
	};
	size_t checked = 0, check_fail = 0, mutated = 0, mutant_passed = 0;
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		size_t bad_win = 0, bad_step = 0, wins = 0, steps = 0;
		int alone = 0, dummy = 0;
		for (int i = 0; i < cases[c].trials; i++) {
			uint64_t seed = 0x243f6a8885a308d3u ^ (c * 1000003u + (uint64_t)i * 7919u);
			tl_rank *r = random_rank(seed, cases[c].T, cases[c].lanes,
			                         cases[c].per_lane, cases[c].strays, &alone);
			tl_rank *w = random_rank(seed, cases[c].T, cases[c].lanes,
			                         cases[c].per_lane, cases[c].strays, &dummy);
			lanes_build_rank(w);
			if (i % 2) /* half of them with a level of detail on the lanes */
				for (size_t k = 0; k < w->ntracks; k++)
					if (w->tracks[k]->kind == TL_LANE_OVERLAP)
						track_lod_build(w->tracks[k]);
			/* lanes_check_rank: the lanes just built pass; one changed interval,
			 * name, or a lane dropped, does not (the cache reader's check) */
			checked++;
			check_fail += lanes_check_rank(w) != 0;
			if (i % 3 == 0) {
				tl_rank *m =
				    random_rank(seed, cases[c].T, cases[c].lanes, cases[c].per_lane,
				                cases[c].strays, &dummy);
				lanes_build_rank(m);
				tl_track *t = lanes_overlap_track(m, (int)below(TL_OVL__COUNT));
				if (t != NULL) {
					size_t k = (size_t)below((int64_t)t->n);
					int64_t xs = t->v[k].start, xe = track_end(t, k);
					switch (i % 4) {
					case 0:
						track_set_times(t, k, xs,
						                xe - 1 > xs ? xe - 1 : xe + 1);
						break;
					case 1:
						t->v[k].name = 0;
						break;
					case 2:
						t->n--; /* the last interval dropped */
						break;
					default:
						t->kind =
						    TL_LANE_COMPUTE; /* no longer an overlap lane */
						break;
					}
					mutated++;
					mutant_passed += lanes_check_rank(m) == 0;
				}
				rank_free(m);
			}
			tl_step_overlap *a, *b;
			size_t na = tlq_step_overlaps(r, &a), nb = tlq_step_overlaps(w, &b);
			for (size_t k = 0; k < na; k++, steps++)
				bad_step += nb != na || !same(&a[k].o, &b[k].o);
			free(a);
			free(b);
			for (int q = 0; q < 20; q++, wins++) {
				int64_t t0 = below(cases[c].T + 20) - 10,
				        t1 = below(cases[c].T + 20) - 10;
				if (q == 0) {
					t0 = INT64_MIN;
					t1 = INT64_MAX;
				}
				int64_t prep = q % 3 == 0 ? INT64_MIN : t0;
				tl_overlap x, y;
				memset(&y, 0xa5, sizeof y);
				overlap_compute(r, TL_NO_STEP, t0, t1, prep, &x);
				if (lanes_overlap(w, t0, t1, prep, &y) != 0 || !same(&x, &y)) {
					if (bad_win++ == 0)
						printf("# window [%lld, %lld): computing %lld/%lld "
						       "comm "
						       "%lld/%lld free %lld/%lld\n",
						       (long long)t0, (long long)t1,
						       (long long)x.computing,
						       (long long)y.computing,
						       (long long)x.communication,
						       (long long)y.communication,
						       (long long)x.free, (long long)y.free);
				}
			}
			rank_free(r);
			rank_free(w);
		}
		CHECK(bad_win == 0,
		      "%s: lanes_overlap as the union walk (%zu of %zu windows differ)",
		      cases[c].what, bad_win, wins);
		CHECK(bad_step == 0 && (cases[c].strays != 0 || alone > 0),
		      "%s: each step's breakdown as without the lanes (%zu of %zu steps differ; %d "
		      "steps alone in their time)",
		      cases[c].what, bad_step, steps, alone);
	}
	CHECK(checked > 0 && check_fail == 0,
	      "lanes_check_rank passes the lanes lanes_build_rank made (%zu of %zu failed)",
	      check_fail, checked);
	CHECK(mutated > 50 && mutant_passed == 0,
	      "lanes_check_rank refuses lanes with one change (%zu of %zu passed)", mutant_passed,
	      mutated);
	/* a rank without lanes: the caller's fallback */
	int dummy = 0;
	tl_rank *r = random_rank(1, 100, 2, 5, 0, &dummy);
	CHECK(lanes_check_rank(r) == 0, "no lanes stored: nothing to check");
	tl_overlap o;
	CHECK(lanes_overlap(r, 0, 100, INT64_MIN, &o) == -1, "no lanes: -1, not a zero breakdown");
	rank_free(r);
	return test_done();
}
