/* timesplit_memory against a brute force: random ranks of compute, communication and memcpy
 * lanes (overlapping slices inside a lane, zero-length slices, step tags and lanes without them,
 * memcpy lanes with other task names) on a small integer time axis, where the exposed memcpy
 * time is counted one nanosecond at a time. */
#include "config.h"

#include <stdlib.h>

#include "analysis/timesplit.h"
#include "model/trace.h"
#include "../test.h"

#define MAXT 4000

typedef struct raw {
	int64_t s, e;
	int kind; /* 0 busy, 1 memcpy, 2 another memcpy-lane task */
	int tagged;
	uint16_t step;
} raw;

static uint64_t rng = 0x9e3779b97f4a7c15u;

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

/* One slice of a lane of time axis [0, T): short ones mostly, a long one now and then. */
static void
random_slice(int64_t T, int64_t *s, int64_t *e)
{
	*s = below(T);
	int64_t len = below(8) == 0 ? below(T / 2 + 1) : below(T / 40 + 2);
	*e = *s + len > T ? T : *s + len;
}

/* The brute force: memcpys named MEMCPY_ASYNC that start in [t0, t1], and their time no busy
 * slice of step covers. */
static void
brute(const raw *v, size_t n, int64_t T, uint16_t step, int64_t t0, int64_t t1, int64_t *mem,
      int64_t *exposed)
{
	static unsigned char cov[MAXT], busy[MAXT];
	memset(cov, 0, (size_t)T);
	memset(busy, 0, (size_t)T);
	*mem = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind == 1 && v[i].s >= t0 && v[i].s <= t1) {
			*mem += v[i].e - v[i].s;
			memset(cov + v[i].s, 1, (size_t)(v[i].e - v[i].s));
		}
		if (v[i].kind == 0 && (step == TL_NO_STEP || !v[i].tagged || v[i].step == step))
			memset(busy + v[i].s, 1, (size_t)(v[i].e - v[i].s));
	}
	*exposed = 0;
	for (int64_t x = 0; x < T; x++)
		*exposed += cov[x] && !busy[x];
}

static size_t
trial(int64_t T, int nbusy_lanes, int per_lane, int nmemcpy, int64_t *checked)
{
	raw *v = calloc((size_t)(nbusy_lanes * per_lane + 2 * nmemcpy + 1), sizeof *v);
	size_t n = 0, bad = 0;
	tl_rank *r = rank_new(0);
	uint32_t mc = strpool_intern_cstr(r->pool, "MEMCPY_ASYNC");
	uint32_t other = strpool_intern_cstr(r->pool, "MEMCPY_OTHER");
	uint32_t kern = strpool_intern_cstr(r->pool, "kernel");
	for (int l = 0; l < nbusy_lanes; l++) {
		tl_lane_kind kind = l % 3 == 2 ? TL_LANE_COMM : TL_LANE_COMPUTE;
		tl_track *t = rank_track(r, kind, l, "lane");
		int tagged = below(4) != 0;
		for (int i = 0; i < per_lane; i++) {
			raw *x = &v[n++];
			random_slice(T, &x->s, &x->e);
			x->tagged = tagged;
			/* steps mostly follow time, with strays (launch-time attribution) */
			x->step = (uint16_t)(below(5) == 0 ? below(3) : x->s * 3 / T);
			if (tagged)
				track_push_step(t, x->s, x->e, kern, 0, x->step);
			else
				track_push(t, x->s, x->e, kern, 0);
		}
	}
	for (int l = 0; l < 2; l++) {
		tl_track *t = rank_track(r, TL_LANE_MEMCPY, 100 + l, "memcpy");
		for (int i = 0; i < nmemcpy; i++) {
			raw *x = &v[n++];
			random_slice(T, &x->s, &x->e);
			if (below(4) == 0) {
				x->kind = 2;
				track_push(t, x->s, x->e, other, 0);
			} else {
				x->kind = 1;
				track_push(t, x->s, x->e, mc, 0);
			}
		}
	}
	rank_finish(r);
	static const uint16_t steps[] = {0, 1, 2, TL_NO_STEP};
	for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
		for (int w = 0; w < 3; w++) {
			int64_t t0 = w == 0 ? INT64_MIN : below(T),
			        t1 = w == 0 ? INT64_MAX : below(T);
			if (t0 > t1) {
				int64_t z = t0;
				t0 = t1;
				t1 = z;
			}
			int64_t mem, exp, want_mem, want_exp;
			timesplit_memory(r, steps[k], t0, t1, &mem, &exp);
			brute(v, n, T, steps[k], t0 < 0 ? 0 : t0, t1 > T ? T : t1, &want_mem,
			      &want_exp);
			if (mem != want_mem || exp != want_exp) {
				if (bad++ == 0)
					printf(
					    "# T=%lld step %u [%lld, %lld]: memory %lld want %lld, "
					    "exposed %lld want %lld\n",
					    (long long)T, steps[k], (long long)t0, (long long)t1,
					    (long long)mem, (long long)want_mem, (long long)exp,
					    (long long)want_exp);
			}
			(*checked)++;
		}
	}
	rank_free(r);
	free(v);
	return bad;
}

int
main(void)
{
	static const struct {
		int64_t T;
		int lanes, per_lane, memcpy;
		int trials;
		const char *what;
	} cases[] = {
	    {64, 2, 6, 4, 400, "a few slices on a short axis"},
	    {400, 4, 40, 10, 200, "several lanes, a few memcpys"},
	    {MAXT, 6, 400, 6, 60, "many busy slices, a few memcpys (long jumps between them)"},
	    {MAXT, 3, 200, 300, 40, "memcpys as many as the busy slices"},
	    {MAXT, 1, 30, 200, 40, "sparse busy slices under many memcpys"},
	    {200, 0, 0, 20, 40, "no busy lane: every memcpy is exposed"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		size_t bad = 0;
		int64_t checked = 0;
		for (int i = 0; i < cases[c].trials; i++)
			bad += trial(cases[c].T, cases[c].lanes, cases[c].per_lane, cases[c].memcpy,
			             &checked);
		CHECK(bad == 0,
		      "%s: memory and its exposed part as the brute force (%zu of %lld "
		      "differ)",
		      cases[c].what, bad, (long long)checked);
	}
	return test_done();
}
