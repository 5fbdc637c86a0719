/* The screen columns of every lane (tlq_columns_edges: busy time, count, dominant slice, exact
 * through the level of detail a viewer's session builds) against a plain scan over the slices,
 * on the real samples and on generated profiles, zoomed out and in. Also counts the columns the
 * old bounded sample (64 slices per column) got wrong, to show what the exact answer changes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/gen.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "model/lod.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static int64_t
vis(const tl_track *t, size_t i, int64_t c0, int64_t c1)
{
	int64_t s = t->v[i].start, se = track_end(t, i);
	int64_t a = s > c0 ? s : c0, e = se < c1 ? se : c1;
	return e - a;
}

/* The column by a scan over every slice of the track: the slices that overlap [c0, c1), or
 * when there is none the first zero-length slice inside it; the longest visible part, the
 * first of equals. */
static tl_cell
scan_column(const tl_track *t, int64_t c0, int64_t c1, size_t from, size_t *next)
{
	tl_cell c = {0, SIZE_MAX, 0};
	int64_t best = -1;
	size_t mark = SIZE_MAX;
	size_t i = from;
	while (i < t->n && track_end(t, i) <= c0 &&
	       !(t->v[i].start == track_end(t, i) && t->v[i].start >= c0))
		i++;
	*next = i;
	for (; i < t->n && t->v[i].start < c1; i++) {
		const tl_slice *s = &t->v[i];
		int64_t se = slice_end(t, s);
		if (se > c0) {
			c.busy += vis(t, i, c0, c1);
			c.count++;
			if (vis(t, i, c0, c1) > best)
				best = vis(t, i, c0, c1), c.dominant = i;
		} else if (s->start == se && s->start >= c0 && mark == SIZE_MAX) {
			mark = i;
		}
	}
	if (c.count == 0 && mark != SIZE_MAX)
		c.dominant = mark, c.count = 1;
	return c;
}

/* what the viewer drew before: the longest among the first, the last and up to 64 between */
static size_t
old_sample(const tl_track *t, int64_t c0, int64_t c1, size_t a, size_t b)
{
	size_t step = (b - a) > 64 ? (b - a) / 64 : 1, best = a;
	int64_t bestv = -1;
	for (size_t i = a; i < b; i += step)
		if (vis(t, i, c0, c1) > bestv)
			bestv = vis(t, i, c0, c1), best = i;
	if (vis(t, b - 1, c0, c1) > bestv)
		best = b - 1;
	return best;
}

static size_t old_wrong;

/* Every lane of tr at ncols columns over [t0, t1): returns the columns that differ. */
static size_t
check_frame(const tl_trace *tr, int64_t t0, int64_t t1, int ncols, size_t *ncolumns)
{
	int64_t *edges = xmalloc(((size_t)ncols + 1) * sizeof *edges);
	int64_t w = (t1 - t0) / ncols > 0 ? (t1 - t0) / ncols : 1;
	for (int c = 0; c <= ncols; c++)
		edges[c] = t0 + (int64_t)c * w;
	tl_cell *cells = xmalloc((size_t)ncols * sizeof *cells);
	size_t bad = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t k = 0; k < r->ntracks; k++) {
			const tl_track *t = r->tracks[k];
			tlq_columns_edges(t, edges, ncols, cells);
			size_t from = 0;
			for (int c = 0; c < ncols; c++) {
				size_t next;
				tl_cell s = scan_column(t, edges[c], edges[c + 1], from, &next);
				from = next;
				(*ncolumns)++;
				if (s.busy != cells[c].busy || s.count != cells[c].count ||
				    s.dominant != cells[c].dominant) {
					if (bad++ < 3)
						printf("# rank %d lane %zu column %d: busy "
						       "%lld/%lld count "
						       "%u/%u dominant %zu/%zu\n",
						       r->rank, k, c, (long long)cells[c].busy,
						       (long long)s.busy, cells[c].count, s.count,
						       cells[c].dominant, s.dominant);
				}
				size_t a, b;
				tlq_window(t, edges[c], edges[c + 1], &a, &b);
				if (b > a && s.count > 0 && s.dominant != SIZE_MAX &&
				    old_sample(t, edges[c], edges[c + 1], a, b) != s.dominant)
					old_wrong++;
			}
		}
	}
	free(cells);
	free(edges);
	return bad;
}

/* With cache (a cache directory): the columns of a warm open, whose lanes and levels of detail
 * are the mapped file's; *adopted gets how many tracks use the file's level of detail. */
static void
check_profile_cache(const char *what, const char *path, const char *cache, size_t *adopted)
{
	tl_cache c;
	if (cache != NULL)
		cache_open(&c, cache);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1, .cache = cache != NULL ? &c : NULL};
	if (load_trace(path, &lo, &tr) != 0) {
		trace_free(&tr);
		if (cache != NULL)
			cache_close(&c);
		CHECK(0, "%s: loads", what);
		return;
	}
	tl_query_opts qo = {.lanes = 1};
	tl_query *q = tlq_open(&tr, &qo);
	if (adopted != NULL)
		for (size_t i = 0; i < tr.nranks; i++)
			for (size_t k = 0; k < tr.ranks[i]->ntracks; k++)
				*adopted += tr.ranks[i]->tracks[k]->lod != NULL &&
				            tr.ranks[i]->tracks[k]->lod->borrowed;
	size_t cols = 0, bad = 0;
	old_wrong = 0;
	int64_t span = tr.t_max - tr.t_min;
	static const int widths[] = {80, 120, 1000};
	for (size_t i = 0; i < 3; i++)
		bad += check_frame(&tr, tr.t_min, tr.t_max + 1, widths[i], &cols);
	/* zoomed in: a 1/1000 and a 1/100000 of the span around its middle */
	for (int64_t z = 1000; z <= 100000; z *= 100) {
		int64_t mid = tr.t_min + span / 2, half = span / z / 2 + 1;
		bad += check_frame(&tr, mid - half, mid + half, 120, &cols);
	}
	CHECK(bad == 0,
	      "%s: all %zu columns of every lane match a scan of the slices (the old "
	      "sample picked another dominant slice in %zu)",
	      what, cols, old_wrong);
	tlq_close(q);
	trace_free(&tr);
	if (cache != NULL)
		cache_close(&c);
}

/* A frame's columns are searched left to right, each from where the one before stopped
 * (window.c's starting_at: a guess at the last column's rate, then probes
 * doubling away from it): the same cells as a window of its own per column (tlq_window,
 * tlq_busy, the mark at c0), on random lanes (marks, gaps, slices of one ns, with and without a
 * level of detail) and edges that also repeat, go back and fall on marks. */
static void
check_random_edges(void)
{
	uint64_t rng = 0x9e3779b97f4a7c15u;
	size_t cols = 0, bad = 0, busy_bad = 0, draw_bad = 0, cover_bad = 0, many = 0;
	for (int round = 0; round < 300; round++) {
		tl_rank *r = rank_new(0);
		tl_track *tp = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
		/* every tenth lane long enough that the searches gallop far from a guess */
		size_t n = test_xorshift(&rng) % (round % 10 == 9 ? 100000 : 3000);
		int64_t x = (int64_t)(test_xorshift(&rng) % 1000);
		for (size_t i = 0; i < n; i++) {
			/* bursts and long gaps: not evenly spread (window.c interpolates) */
			x += (int64_t)(test_xorshift(&rng) % 40) +
			     (test_xorshift(&rng) % 100 == 0
			          ? (int64_t)(test_xorshift(&rng) % 100000)
			          : 0);
			int64_t d =
			    (int64_t)(test_xorshift(&rng) % 5 == 0 ? 0 : test_xorshift(&rng) % 60);
			track_push(tp, x, x + d, 0, (uint32_t)i);
			x += d;
		}
		if (round % 2)
			track_lod_build(tp);
		const tl_track t = *tp;
		int ncols = 1 + (int)(test_xorshift(&rng) % 200);
		int64_t *edges = xmalloc(((size_t)ncols + 1) * sizeof *edges);
		int64_t e = (int64_t)(test_xorshift(&rng) % 1000) - 500;
		int64_t step = x / ncols + 2;
		for (int c = 0; c <= ncols; c++) {
			uint64_t k = test_xorshift(&rng) % 10;
			/* mostly forward, sometimes the same, sometimes back, sometimes on a
			 * slice's start or end (a mark's time) */
			e += k == 0   ? 0
			     : k == 1 ? -(int64_t)(test_xorshift(&rng) % 300)
			              : (int64_t)(test_xorshift(&rng) % (uint64_t)step);
			if (k >= 8 && n > 0) {
				size_t j = (size_t)(test_xorshift(&rng) % n);
				e = k == 8 ? tp->v[j].start : track_end(tp, j);
			}
			edges[c] = e;
		}
		tl_cell *cells = xmalloc((size_t)ncols * sizeof *cells);
		tl_cell *drawn = xmalloc((size_t)ncols * sizeof *drawn);
		int64_t *busy = xmalloc((size_t)ncols * sizeof *busy);
		tlq_columns_edges(&t, edges, ncols, cells);
		tlq_columns_draw(&t, edges, ncols, drawn);
		tlq_busy_columns(&t, edges, ncols, busy);
		for (int c = 0; c < ncols; c++, cols++) {
			int64_t c0 = edges[c], c1 = edges[c + 1] > c0 ? edges[c + 1] : c0 + 1;
			size_t a, b;
			tlq_window(&t, c0, c1, &a, &b);
			tl_cell w = {tlq_busy(&t, c0, c1), SIZE_MAX, 0};
			if (a == b) {
				size_t z = track_first_starting_at(&t, c0);
				if (z < t.n && t.v[z].start < c1)
					a = z, b = z + 1;
			}
			if (a < b) {
				w.count = (uint32_t)(b - a);
				w.dominant = tlq_dominant(&t, c0, c1, a, b);
			}
			bad += w.busy != cells[c].busy || w.count != cells[c].count ||
			       w.dominant != cells[c].dominant;
			/* the drawing's: the first slice of a column of two or more, which the
			 * longest does not cover either (the slices do not overlap) */
			draw_bad += drawn[c].busy != w.busy || drawn[c].count != w.count ||
			            drawn[c].dominant != (w.count >= 2 ? a : w.dominant);
			if (w.count >= 2) {
				many++;
				cover_bad +=
				    t.v[w.dominant].start <= c0 && track_end(&t, w.dominant) >= c1;
			}
			busy_bad += busy[c] != tlq_busy(&t, edges[c], edges[c + 1]);
		}
		free(busy);
		free(drawn);
		free(cells);
		free(edges);
		rank_free(r);
	}
	/* the extreme times a lane may hold (±2^62 ns): the interpolation's differences fit */
	{
		tl_rank *r = rank_new(0);
		tl_track *tp = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
		static const int64_t st[] = {-TL_TIME_MAX,    -1000,           0, 5, 5,
		                             TL_TIME_MAX / 2, TL_TIME_MAX - 10};
		for (size_t i = 0; i < sizeof st / sizeof *st; i++)
			track_push(tp, st[i], st[i] + (i == 3 ? 0 : 1), 0, (uint32_t)i);
		int64_t edges[] = {-TL_TIME_MAX,        -TL_TIME_MAX + 1, -5,         5, 6,
		                   TL_TIME_MAX / 2 + 1, TL_TIME_MAX - 10, TL_TIME_MAX};
		int ncols = (int)(sizeof edges / sizeof *edges) - 1;
		tl_cell cells[8];
		tlq_columns_edges(tp, edges, ncols, cells);
		for (int c = 0; c < ncols; c++, cols++) {
			size_t a, b;
			tlq_window(tp, edges[c], edges[c + 1], &a, &b);
			bad += cells[c].busy != tlq_busy(tp, edges[c], edges[c + 1]) ||
			       (b > a && cells[c].count != b - a);
		}
		rank_free(r);
	}
	CHECK(bad == 0, "random lanes and edges: all %zu columns as one window each (%zu differ)",
	      cols, bad);
	CHECK(busy_bad == 0, "... and the busy columns as tlq_busy (%zu differ)", busy_bad);
	CHECK(draw_bad == 0 && many > 1000,
	      "... the drawing's cells the same but for the first slice as dominant of a column of "
	      "two or more (%zu differ)",
	      draw_bad);
	CHECK(cover_bad == 0, "... where the longest does not cover the column (%zu of %zu do)",
	      cover_bad, many);
}

static void
check_profile(const char *what, const char *path)
{
	check_profile_cache(what, path, NULL, NULL);
}

int
main(void)
{
	msg_set_quiet(1);
	check_random_edges();
	const char *sd = test_samples_dir();
	static const char *samples[] = {"kineto", "ascend-db/level0", "ascend-db/level2",
	                                "ascend-text/level1"};
	for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
		char p[4200];
		snprintf(p, sizeof p, "%s/%s", sd, samples[i]);
		struct stat st;
		if (stat(p, &st) != 0) {
			SKIP("no samples at %s", p);
			continue;
		}
		check_profile(samples[i], p);
	}
	char *dir = test_tmpdir("columns");
	if (dir == NULL)
		return test_done();
	gen_opts go;
	gen_opts_default(&go);
	go.nranks = 2;
	go.tasks_per_rank = 30000;
	go.slow_rank = 1;
	go.json = 1;
	if (gen_profile(&go, dir, NULL) != 0) {
		CHECK(0, "generate a profile");
	} else {
		check_profile("generated (DB and JSON)", dir);
		/* written to a cache, then read warm: mapped lanes, the file's levels of detail */
		char *cd = xasprintf("%s/cache", dir);
		size_t adopted = 0;
		check_profile_cache("generated, writing the cache", dir, cd, NULL);
		check_profile_cache("generated, warm from the cache", dir, cd, &adopted);
		CHECK(adopted > 0, "warm: %zu lanes use the cache file's level of detail", adopted);
		free(cd);
	}
	test_rmtree(dir);
	return test_done();
}
