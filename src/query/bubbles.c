/* Bubbles: every idle gap of a rank (a Free interval of its overlap lanes), attributed to the
 * stage, the step and a reason by bubble_attribute, for `tl summary` and the viewer alike. */
#include "config.h"
#include "analysis/lanes.h"
#include "query/session.h"
#include "util/heap.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- the Free lane's totals ----------------------------------------------------------------- */

size_t
tlq_bubble_total(const tl_rank *r, int64_t *total)
{
	const tl_track *f = lanes_overlap_track(r, TL_OVL_FREE);
	*total = f && f->n ? tlq_busy(f, INT64_MIN, INT64_MAX) : 0;
	return f ? f->n : 0;
}

const char *
tlq_bubble_reason_name(tl_bubble_reason r)
{
	return bubble_reason_name(r);
}

char *
tlq_bubble_step_text(const tl_rl_bubble *b, const char *none_text, char *buf, size_t len)
{
	return bubble_step_text(b, none_text, buf, len);
}

/* ---- a rank's idle gaps, found once --------------------------------------------------------- */

/* Under gaps_lock: the memo of slot ri, the array grown to hold it. */
static struct tlq_gaps *
gaps_slot(struct tlq_state *st, size_t ri)
{
	if (ri >= st->ngaps) {
		size_t n = ri + 1 > 2 * st->ngaps ? ri + 1 : 2 * st->ngaps;
		st->gaps = xreallocarray(st->gaps, n, sizeof *st->gaps);
		memset(st->gaps + st->ngaps, 0, (n - st->ngaps) * sizeof *st->gaps);
		st->ngaps = n;
	}
	return &st->gaps[ri];
}

/* Under gaps_lock: the first max of m's gaps into a list of the caller's, when m holds them */
static int
gaps_from(const struct tlq_gaps *m, const tl_rank *r, size_t max, tl_gap **out, size_t *n)
{
	if (m->r != r || (m->n == m->max && m->max < max))
		return 0;
	*n = m->n < max ? m->n : max;
	*out = xreallocarray(NULL, *n ? *n : 1, sizeof **out);
	if (*n > 0) /* a rank without gaps holds none: m->v NULL */
		memcpy(*out, m->v, *n * sizeof **out);
	return 1;
}

size_t
tlq_gaps(const tl_query *q, size_t ri, size_t max, tl_gap **out)
{
	struct tlq_state *st = q->st;
	const tl_rank *r = q->tr->ranks[ri];
	if (max == 0)
		max = 1;
	size_t n;
	pthread_mutex_lock(&st->gaps_lock);
	int have = gaps_from(gaps_slot(st, ri), r, max, out, &n);
	pthread_mutex_unlock(&st->gaps_lock);
	if (have)
		return n;
	/* the walk outside the lock (another rank's asker does not wait for it) */
	size_t ask = max > TLQ_GAPS_FIRST ? max : TLQ_GAPS_FIRST;
	tl_gap *v;
	size_t nv = bubble_gaps_of_rank(r, ask, &v);
	pthread_mutex_lock(&st->gaps_lock);
	struct tlq_gaps *m = gaps_slot(st, ri);
	if (m->r != r || m->max < ask) {
		free(m->v);
		*m = (struct tlq_gaps){r, v, nv, ask};
		v = NULL;
	}
	gaps_from(m, r, max, out, &n);
	pthread_mutex_unlock(&st->gaps_lock);
	free(v);
	return n;
}

void
tlq_gaps_iter_init(const tl_query *q, size_t ri, size_t max, bubble_gaps_iter *it)
{
	const tl_rank *r = q->tr->ranks[ri];
	if (bubble_gaps_iter_lazy(r)) {
		bubble_gaps_iter_init(it, r, max);
		return;
	}
	tl_gap *v;
	size_t n = tlq_gaps(q, ri, max, &v);
	bubble_gaps_iter_init_list(it, v, n, max);
}

/* ---- the largest bubbles of every rank ------------------------------------------------------ */

typedef struct bubble_job {
	tl_rl_bubble **v;
	size_t *n;
} bubble_job;

static void
rank_bubbles(const tl_query *q, size_t ri, void *arg)
{
	bubble_job *j = arg;
	tl_gap *g;
	j->n[ri] = tlq_gaps(q, ri, q->o.bubbles_per_rank, &g);
	bubbles_of_gaps(q->tr->ranks[ri], ri, q->inst[ri], q->ninst[ri], g, j->n[ri], &j->v[ri]);
	free(g);
}

static void
bubbles_part_compute(const tl_query *q)
{
	struct tlq_state *st = q->st;
	size_t n = q->tr->nranks;
	bubble_job j = {xcalloc(n ? n : 1, sizeof *j.v), xcalloc(n ? n : 1, sizeof *j.n)};
	tlq_per_rank(q, rank_bubbles, &j);
	size_t total = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		total += j.n[i];
	st->bubbles = xcalloc(total ? total : 1, sizeof *st->bubbles);
	for (size_t i = 0; i < n; i++) {
		memcpy(st->bubbles + k, j.v[i], j.n[i] * sizeof *st->bubbles);
		k += j.n[i];
		free(j.v[i]);
	}
	st->nbubbles = total;
	free(j.v);
	free(j.n);
}

static void
bubbles_part_free(struct tlq_state *st)
{
	free(st->bubbles);
}

TLQ_PART_DEFINE(BUBBLES, bubbles, bubbles_part_compute, bubbles_part_free);

size_t
tlq_bubbles(const tl_query *q, const tl_rl_bubble **out)
{
	tlq_need(q, &tlq_part_bubbles);
	*out = q->st->bubbles;
	return q->st->nbubbles;
}

/* ---- the viewer's bubble walks -------------------------------------------------------------- */

void
tlq_bubble_at(const tl_query *q, size_t ri, int64_t start, int64_t end, tl_rl_bubble *out)
{
	memset(out, 0, sizeof *out);
	out->rank = ri;
	out->start = start;
	out->end = end;
	bubble_attribute(q->tr->ranks[ri], q->inst[ri], q->ninst[ri], out);
}

int
tlq_bubble_next(const tl_query *q, size_t ri, int64_t t, int dir, tl_rl_bubble *out, size_t *index,
                size_t *count)
{
	const tl_track *f =
	    ri < q->tr->nranks ? lanes_overlap_track(q->tr->ranks[ri], TL_OVL_FREE) : NULL;
	*count = f ? f->n : 0;
	size_t k = f && f->n ? tlq_slice_next(f, t, dir) : SIZE_MAX;
	if (k == SIZE_MAX)
		return -1;
	*index = k;
	tlq_bubble_at(q, ri, f->v[k].start, track_end(f, k), out);
	return 0;
}

typedef struct gaps_job {
	size_t max;
	bubble_gaps_iter *it;
	tl_gap *head; /* each rank's next gap */
	unsigned char *have;
} gaps_job;

static void
rank_gaps(const tl_query *q, size_t ri, void *arg)
{
	gaps_job *j = arg;
	tlq_gaps_iter_init(q, ri, j->max, &j->it[ri]);
	j->have[ri] = (unsigned char)bubble_gaps_iter_next(&j->it[ri], &j->head[ri]);
}

/* merge order of the heads of two ranks' lists: longer, then earlier, then the lower rank
 * (the heap holds rank indices) */
static int
head_before(const void *va, const void *vb, void *ctx)
{
	const gaps_job *j = ctx;
	size_t a = *(const size_t *)va, b = *(const size_t *)vb;
	const tl_gap *x = &j->head[a], *y = &j->head[b];
	int64_t lx = x->end - x->start, ly = y->end - y->start;
	if (lx != ly)
		return lx > ly;
	if (x->start != y->start)
		return x->start < y->start;
	return a < b;
}

/* The largest_max longest gaps of all ranks: a k-way merge of each rank's gaps, longest first,
 * taken one at a time (bubble_gaps_iter: from the Free lanes' level of detail in the viewer), so
 * that no more of a rank's gaps are found than the merge takes. */
static void
largest_part_compute(const tl_query *q)
{
	struct tlq_state *st = q->st;
	size_t max = st->largest_max;
	if (max == 0)
		max = 1;
	size_t n = q->tr->nranks, nn = n ? n : 1;
	gaps_job j = {max, xcalloc(nn, sizeof *j.it), xcalloc(nn, sizeof *j.head), xcalloc(nn, 1)};
	tlq_per_rank(q, rank_gaps, &j);
	size_t *h = xcalloc(nn, sizeof *h), nh = 0;
	for (size_t i = 0; i < n; i++)
		if (j.have[i])
			h[nh++] = i;
	heap_make(h, nh, sizeof *h, head_before, &j);
	st->largest = NULL;
	size_t k = 0, cap = 0;
	while (nh > 0 && k < max) {
		size_t ri = h[0];
		tl_rl_bubble b = {0};
		b.rank = ri;
		b.start = j.head[ri].start;
		b.end = j.head[ri].end;
		bubble_attribute_step(q->tr->ranks[ri], &b); /* the rest when asked for */
		VEC_PUSH(st->largest, k, cap, b);
		if (!bubble_gaps_iter_next(&j.it[ri], &j.head[ri]))
			h[0] = h[--nh];
		heap_down(h, nh, sizeof *h, 0, head_before, &j);
	}
	for (size_t i = 0; i < n; i++)
		bubble_gaps_iter_free(&j.it[i]);
	if (st->largest == NULL)
		st->largest = xcalloc(1, sizeof *st->largest);
	free(j.it);
	free(j.head);
	free(j.have);
	free(h);
	st->nlargest = k;
	st->largest_done = xcalloc(k ? k : 1, 1);
}

static void
largest_part_free(struct tlq_state *st)
{
	free(st->largest);
	free(st->largest_done);
}

TLQ_PART_DEFINE(LARGEST, largest, largest_part_compute, largest_part_free);

/* Under the lock: the list, of the first asker's max. */
static void
need_largest(const tl_query *q, size_t max)
{
	if (!tlq_done_locked(q, &tlq_part_largest))
		q->st->largest_max = max;
	tlq_need_locked(q, &tlq_part_largest);
}

size_t
tlq_bubble_largest(const tl_query *q, size_t max, size_t i, tl_rl_bubble *out)
{
	struct tlq_state *st = q->st;
	pthread_mutex_lock(&st->lock);
	need_largest(q, max);
	if (out != NULL && i < st->nlargest) { /* attributed once, under the lock */
		tl_rl_bubble *b = &st->largest[i];
		if (!st->largest_done[i]) {
			bubble_attribute(q->tr->ranks[b->rank], q->inst[b->rank], q->ninst[b->rank],
			                 b);
			st->largest_done[i] = 1;
		}
		*out = *b;
	}
	size_t n = st->nlargest;
	pthread_mutex_unlock(&st->lock);
	return n;
}

int
tlq_bubble_largest_between_steps(const tl_query *q, size_t max, size_t i)
{
	struct tlq_state *st = q->st;
	pthread_mutex_lock(&st->lock);
	need_largest(q, max);
	int between = i < st->nlargest && st->largest[i].between_steps;
	pthread_mutex_unlock(&st->lock);
	return between;
}
