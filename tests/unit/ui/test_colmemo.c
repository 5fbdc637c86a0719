/* The viewer's column memo (src/ui/colmemo.c): what it gives is what the query layer computes
 * for the frame's edges, the first time and from the memo, after the edges change (and change
 * back), after a track grows in place, after a clear, for many tracks past its bound, and for
 * the busy columns of a missing lane (all 0); the drawing's cells (tlq_columns_draw) and the
 * exact ones (tlq_columns_edges) kept apart. */
#include "config.h"
#include "ui/colmemo.h"
#include "model/trace.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"

#define NC 50

static void
edges_of(int64_t *e, int64_t t0, int64_t w)
{
	for (int c = 0; c <= NC; c++)
		e[c] = t0 + w * c;
}

/* 1 when the memo's cells and busy columns of t are the query layer's over e */
static int
same(col_memo *m, const tl_track *t, const int64_t *e)
{
	tl_cell a[NC], b[NC], a2[NC], b2[NC];
	int64_t x[NC], y[NC];
	memset(a, 0xab, sizeof a); /* padding: compared field by field */
	colmemo_cells(m, t, 1, a);
	tlq_columns_edges(t, e, NC, b);
	colmemo_cells(m, t, 0, a2);
	tlq_columns_draw(t, e, NC, b2);
	colmemo_busy(m, t, x);
	tlq_busy_columns(t, e, NC, y);
	for (int c = 0; c < NC; c++)
		if (a[c].busy != b[c].busy || a[c].dominant != b[c].dominant ||
		    a[c].count != b[c].count || x[c] != y[c] || a2[c].busy != b2[c].busy ||
		    a2[c].dominant != b2[c].dominant || a2[c].count != b2[c].count)
			return 0;
	return 1;
}

int
main(void)
{
	tl_rank *r = rank_new(0);
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	uint64_t rng = 99;
	int64_t x = 0;
	for (int i = 0; i < 5000; i++) {
		x += (int64_t)(test_xorshift(&rng) % 50);
		int64_t d = (int64_t)(test_xorshift(&rng) % 80);
		track_push(t, x, x + d, 0, (uint32_t)i);
		x += d;
	}
	col_memo *m = colmemo_new();
	int64_t e1[NC + 1], e2[NC + 1];
	edges_of(e1, 0, x / NC + 1);
	edges_of(e2, x / 3, x / (3 * NC) + 1);
	colmemo_frame(m, e1, NC);
	CHECK(same(m, t, e1), "a lane's first columns are the query layer's");
	CHECK(same(m, t, e1), "... and the same again from the memo");
	colmemo_frame(m, e2, NC);
	CHECK(same(m, t, e2), "other edges: the lane's columns over them");
	colmemo_frame(m, e1, NC);
	CHECK(same(m, t, e1), "the first edges again");
	/* the track grows (host lanes add slices): its columns are made again */
	for (int i = 0; i < 3000; i++) {
		x += 7;
		track_push(t, x, x + 5, 0, (uint32_t)(5000 + i));
		x += 5;
	}
	edges_of(e1, 0, x / NC + 1);
	colmemo_frame(m, e1, NC);
	CHECK(same(m, t, e1), "a grown lane's columns cover what it grew");
	size_t n0 = t->n;
	track_push(t, x + 1, x + 2, 0, 9000);
	CHECK(t->n == n0 + 1 && same(m, t, e1), "... also under the same edges");
	colmemo_clear(m);
	CHECK(same(m, t, e1), "after a clear");
	/* more lanes than the memo keeps */
	int bad = 0;
	tl_track **many = xcalloc(3000, sizeof *many);
	for (int k = 0; k < 3000; k++) {
		many[k] = rank_track(r, TL_LANE_COMPUTE, k + 1, "Stream k");
		for (int i = 0; i < 20; i++)
			track_push(many[k], (int64_t)(i * 100 + k), (int64_t)(i * 100 + k + 50), 0,
			           (uint32_t)i);
	}
	edges_of(e2, 0, 2000 / NC + 1);
	colmemo_frame(m, e2, NC);
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < 3000; k++)
			bad += !same(m, many[k], e2);
	CHECK(bad == 0, "3,000 lanes, twice (past the memo's bound): %d differ", bad);
	int64_t z[NC];
	memset(z, 1, sizeof z);
	colmemo_busy(m, NULL, z);
	int zero = 1;
	for (int c = 0; c < NC; c++)
		zero &= z[c] == 0;
	CHECK(zero, "a missing lane's busy columns are 0");
	free(many);
	colmemo_free(m);
	rank_free(r);
	return test_done();
}
