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
#include "load/load.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static int64_t
vis(const tl_slice *s, int64_t c0, int64_t c1)
{
	int64_t a = s->start > c0 ? s->start : c0, e = s->end < c1 ? s->end : c1;
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
	while (i < t->n && t->v[i].end <= c0 &&
	       !(t->v[i].start == t->v[i].end && t->v[i].start >= c0))
		i++;
	*next = i;
	for (; i < t->n && t->v[i].start < c1; i++) {
		const tl_slice *s = &t->v[i];
		if (s->end > c0) {
			c.busy += vis(s, c0, c1);
			c.count++;
			if (vis(s, c0, c1) > best)
				best = vis(s, c0, c1), c.dominant = i;
		} else if (s->start == s->end && s->start >= c0 && mark == SIZE_MAX) {
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
		if (vis(&t->v[i], c0, c1) > bestv)
			bestv = vis(&t->v[i], c0, c1), best = i;
	if (vis(&t->v[b - 1], c0, c1) > bestv)
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

static void
check_profile(const char *what, const char *path)
{
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(path, &lo, &tr) != 0) {
		trace_free(&tr);
		CHECK(0, "%s: loads", what);
		return;
	}
	tl_query_opts qo = {.lanes = 1};
	tl_query *q = tlq_open(&tr, &qo);
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
}

int
main(void)
{
	msg_set_quiet(1);
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
	}
	test_rmtree(dir);
	return test_done();
}
