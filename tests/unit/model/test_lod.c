/* The level of detail (model/lod.h) against a scan of the slices: busy time and the longest
 * slice of every run of slices, on tracks of many sizes (around the block and level
 * boundaries), with ties and zero-length slices; and the checker that guards a cached copy. */
#include "config.h"
#include "model/lod.h"
#include "model/trace.h"
#include "util/xalloc.h"
#include "../test.h"

#include <string.h>
#include <sys/mman.h>

static uint64_t rng = 0x1234567887654321u;

static uint64_t
rnd(void)
{
	return test_xorshift(&rng);
}

/* A track of n slices in r, sorted, not overlapping; durations from a small set (many ties),
 * some zero */
static tl_track *
make(tl_rank *r, size_t n)
{
	tl_track *v = rank_track(r, TL_LANE_COMPUTE, (int64_t)n, "s");
	int64_t t = 1000;
	for (size_t i = 0; i < n; i++) {
		t += (int64_t)(rnd() % 3);
		int64_t d = (int64_t)(rnd() % 5) * 10;
		track_push(v, t, t + d, (uint32_t)i, 0);
		t += d;
	}
	return v;
}

static int
check_runs(const tl_track *v, const tl_lod *l, int runs)
{
	size_t n = v->n;
	int bad = 0;
	for (int r = 0; r < runs && !bad; r++) {
		size_t a = n ? rnd() % (n + 1) : 0, b = n ? rnd() % (n + 1) : 0;
		if (r == 0)
			a = 0, b = n;
		if (a > b) {
			size_t x = a;
			a = b;
			b = x;
		}
		int64_t busy = 0, bd = -1;
		size_t bi = SIZE_MAX;
		for (size_t i = a; i < b; i++) {
			int64_t d = track_end(v, i) - v->v[i].start;
			busy += d;
			if (d > bd)
				bd = d, bi = i;
		}
		int64_t d = 0;
		size_t got = lod_longest(l, v, a, b, &d);
		if (lod_busy(l, v, a, b) != busy || got != bi || (bi != SIZE_MAX && d != bd))
			bad = 1;
	}
	return bad;
}

int
main(void)
{
	static const size_t sizes[] = {0,   1,   2,    15,   16,   17,   255,  256,
	                               257, 300, 4095, 4096, 4097, 5000, 70000};
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		size_t n = sizes[s];
		tl_rank *r = rank_new(0);
		tl_track *v = make(r, n);
		tl_lod *l = lod_build(v);
		CHECK(check_runs(v, l, n > 10000 ? 3000 : 1000) == 0,
		      "%zu slices: busy and longest of random runs match a scan", n);
		CHECK(lod_check(v, l->busy, l->node) == 0, "%zu slices: the checker accepts it", n);
		if (n > LOD_B) {
			/* a cached copy with one slice lengthened, or one node changed, is refused
			 */
			int64_t s0 = v->v[n / 2].start, e0 = track_end(v, n / 2);
			track_set_times(v, n / 2, s0, e0 + 1);
			CHECK(lod_check(v, l->busy, l->node) != 0,
			      "%zu slices: the checker refuses a summary of other slices", n);
			track_set_times(v, n / 2, s0, e0);
			tl_lod_node *node = (tl_lod_node *)l->node;
			node[0].idx ^= 1;
			CHECK(lod_check(v, l->busy, l->node) != 0,
			      "%zu slices: the checker refuses a changed node", n);
			node[0].idx ^= 1;
			tl_lod *w = lod_wrap(n, l->busy, l->node);
			CHECK(check_runs(v, w, 200) == 0 && lod_bytes(w) < lod_bytes(l),
			      "%zu slices: a borrowed summary answers the same and owns no arrays",
			      n);
			lod_free(w);
		}
		{
			/* a cached copy sits on read-only pages (the mapped file): checking it
			 * writes nothing (it once zeroed busy[0] in place, a fault on a mapping) */
			size_t nb = lod_nbusy(n) * sizeof *l->busy,
			       nn = lod_nnodes(n) * sizeof *l->node;
			uint8_t *ro = mmap(NULL, nb + nn + 1, PROT_READ | PROT_WRITE,
			                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			int ok = ro != MAP_FAILED;
			if (ok) {
				memcpy(ro, l->busy, nb);
				if (nn > 0)
					memcpy(ro + nb, l->node, nn);
				ok = mprotect(ro, nb + nn + 1, PROT_READ) == 0 &&
				     lod_check(v, (const int64_t *)(void *)ro,
				               nn ? (const tl_lod_node *)(void *)(ro + nb)
				                  : NULL) == 0;
				munmap(ro, nb + nn + 1);
			}
			CHECK(ok, "%zu slices: a copy on read-only pages is checked in place", n);
		}
		CHECK(lod_bytes(l) <= sizeof *l + 2 * n + 64,
		      "%zu slices: %zu bytes (< 2 per slice)", n, lod_bytes(l));
		lod_free(l);
		rank_free(r);
	}
	/* all durations equal: the first of equals, wherever the run starts */
	{
		size_t n = 1000;
		tl_rank *r = rank_new(0);
		tl_track *v = rank_track(r, TL_LANE_COMPUTE, 0, "s");
		for (size_t i = 0; i < n; i++)
			track_push(v, (int64_t)i * 10, (int64_t)i * 10 + 5, 0, 0);
		tl_lod *l = lod_build(v);
		int ok = 1;
		for (size_t a = 0; a < n; a += 7)
			ok &= lod_longest(l, v, a, n, NULL) == a;
		CHECK(ok, "ties: the first slice of the run");
		lod_free(l);
		rank_free(r);
	}
	return test_done();
}
