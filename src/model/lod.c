/* Level of detail of a track (lod.h says what and why). */
#include "config.h"
#include "model/lod.h"
#include "model/trace.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

size_t
lod_nbusy(size_t n)
{
	return (n + LOD_B - 1) / LOD_B + 1;
}

/* The level sizes of n slices; returns the number of levels. */
static int
lod_levels(size_t n, size_t *off, size_t *size)
{
	int k = 0;
	size_t total = 0, m = n;
	while (m > LOD_B && k < LOD_MAXLEVEL) {
		m = (m + LOD_B - 1) / LOD_B;
		off[k] = total;
		size[k] = m;
		total += m;
		k++;
	}
	return k;
}

size_t
lod_nnodes(size_t n)
{
	size_t off[LOD_MAXLEVEL], size[LOD_MAXLEVEL];
	int k = lod_levels(n, off, size);
	return k ? off[k - 1] + size[k - 1] : 0;
}

static int
better(int64_t d, size_t i, int64_t bd, size_t bi)
{
	return d > bd || (d == bd && i < bi);
}

/* Node j of level k+1 made from what it covers (slices, or nodes of level k). Both are in
 * index order, so keeping the first strictly longer one keeps the first of equals. */
static tl_lod_node
make_node(const tl_track *t, const tl_lod_node *below, size_t nbelow, size_t j)
{
	tl_lod_node x = {-1, 0, 0};
	size_t a = j * LOD_B, b = a + LOD_B;
	if (below == NULL) {
		if (b > t->n)
			b = t->n;
		for (size_t i = a; i < b; i++) {
			int64_t d = track_dur(t, i);
			if (d > x.dur)
				x.dur = d, x.idx = (uint32_t)i;
		}
	} else {
		if (b > nbelow)
			b = nbelow;
		for (size_t i = a; i < b; i++)
			if (below[i].dur > x.dur)
				x = below[i];
	}
	return x;
}

/* Level 1 and the block sums in one pass over the slices. Returns -1 at the first difference
 * from what `node` and `busy` hold when check is set. */
static int
leaf_pass(const tl_track *t, int64_t *busy, tl_lod_node *node, int check)
{
	const tl_slice *v = t->v;
	size_t n = t->n;
	int64_t acc = 0;
	if (check && busy[0] != 0)
		return -1;
	if (!check) /* a checked copy may sit on read-only pages: never written */
		busy[0] = 0;
	for (size_t j = 0, a = 0; a < n; j++, a += LOD_B) {
		size_t b = a + LOD_B < n ? a + LOD_B : n;
		int64_t bd = -1;
		size_t bi = a;
		for (size_t i = a; i < b; i++) {
			int64_t d = slice_dur(t, &v[i]);
			acc += d;
			if (d > bd)
				bd = d, bi = i;
		}
		if (check) {
			if (busy[j + 1] != acc ||
			    (node != NULL &&
			     (node[j].dur != bd || node[j].idx != bi || node[j].zero)))
				return -1;
		} else {
			busy[j + 1] = acc;
			if (node != NULL)
				node[j] = (tl_lod_node){bd, (uint32_t)bi, 0};
		}
	}
	return 0;
}

static void
lod_fill(tl_lod *l)
{
	l->nlevel = lod_levels(l->n, l->off, l->size);
}

tl_lod *
lod_build(const tl_track *t)
{
	size_t n = t->n;
	tl_lod *l = xcalloc(1, sizeof *l);
	l->n = n;
	lod_fill(l);
	int64_t *busy = xreallocarray(NULL, lod_nbusy(n), sizeof *busy);
	size_t nn = lod_nnodes(n);
	tl_lod_node *node = nn ? xreallocarray(NULL, nn, sizeof *node) : NULL;
	leaf_pass(t, busy, l->nlevel ? node : NULL, 0);
	for (int k = 1; k < l->nlevel; k++)
		for (size_t j = 0; j < l->size[k]; j++)
			node[l->off[k] + j] = make_node(t, node + l->off[k - 1], l->size[k - 1], j);
	l->busy = busy;
	l->node = node;
	return l;
}

tl_lod *
lod_wrap(size_t n, const int64_t *busy, const tl_lod_node *node)
{
	tl_lod *l = xcalloc(1, sizeof *l);
	l->n = n;
	lod_fill(l);
	l->busy = busy;
	l->node = node;
	l->borrowed = 1;
	return l;
}

int
lod_check(const tl_track *t, const int64_t *busy, const tl_lod_node *node)
{
	size_t off[LOD_MAXLEVEL], size[LOD_MAXLEVEL];
	int nl = lod_levels(t->n, off, size);
	if (leaf_pass(t, (int64_t *)(uintptr_t)busy, nl ? (tl_lod_node *)(uintptr_t)node : NULL,
	              1) != 0)
		return -1;
	for (int k = 1; k < nl; k++)
		for (size_t j = 0; j < size[k]; j++) {
			tl_lod_node x = make_node(t, node + off[k - 1], size[k - 1], j);
			const tl_lod_node *y = &node[off[k] + j];
			if (x.dur != y->dur || x.idx != y->idx || y->zero != 0)
				return -1;
		}
	return 0;
}

void
lod_free(tl_lod *l)
{
	if (l == NULL)
		return;
	if (!l->borrowed) {
		free((void *)l->busy);
		free((void *)l->node);
	}
	free(l);
}

size_t
lod_bytes(const tl_lod *l)
{
	if (l == NULL)
		return 0;
	size_t b = sizeof *l;
	if (!l->borrowed)
		b += lod_nbusy(l->n) * sizeof *l->busy + lod_nnodes(l->n) * sizeof *l->node;
	return b;
}

/* busy ns of slices [0, i) */
static int64_t
busy_before(const tl_lod *l, const tl_track *t, size_t i)
{
	size_t j = i / LOD_B;
	int64_t s = l->busy[j];
	for (size_t k = j * LOD_B; k < i; k++)
		s += track_dur(t, k);
	return s;
}

int64_t
lod_busy(const tl_lod *l, const tl_track *t, size_t a, size_t b)
{
	if (a >= b)
		return 0;
	if (b - a <= LOD_B) { /* cheaper to add them up */
		int64_t s = 0;
		for (size_t k = a; k < b; k++)
			s += track_dur(t, k);
		return s;
	}
	return busy_before(l, t, b) - busy_before(l, t, a);
}

size_t
lod_longest(const tl_lod *l, const tl_track *t, size_t a, size_t b, int64_t *dur)
{
	int64_t bd = -1;
	size_t bi = SIZE_MAX;
	size_t lo = a, hi = b;
	/* level 0: the slices themselves */
	int k = 0;
	for (;;) {
		int top = k == l->nlevel;
		for (; lo < hi && (top || lo % LOD_B != 0); lo++) {
			int64_t d;
			size_t i;
			if (k == 0) {
				d = track_dur(t, lo);
				i = lo;
			} else {
				const tl_lod_node *x = &l->node[l->off[k - 1] + lo];
				d = x->dur;
				i = x->idx;
			}
			if (better(d, i, bd, bi))
				bd = d, bi = i;
		}
		for (; hi > lo && hi % LOD_B != 0; hi--) {
			int64_t d;
			size_t i;
			if (k == 0) {
				d = track_dur(t, hi - 1);
				i = hi - 1;
			} else {
				const tl_lod_node *x = &l->node[l->off[k - 1] + hi - 1];
				d = x->dur;
				i = x->idx;
			}
			if (better(d, i, bd, bi))
				bd = d, bi = i;
		}
		if (lo >= hi)
			break;
		lo /= LOD_B;
		hi /= LOD_B;
		k++;
	}
	if (dur != NULL)
		*dur = bd;
	return bi;
}
