#include "config.h"
#include "analysis/diff.h"

#include <stdlib.h>
#include <string.h>

#include "util/satint.h"
#include "util/xalloc.h"

const char *
diff_kind_name(tl_diff_kind k)
{
	static const char *const names[TL_DIFF_NKINDS] = {"stage", "overlap", "operator",
	                                                  "communication", "bubble"};
	return (unsigned)k < TL_DIFF_NKINDS ? names[k] : "?";
}

int
diff_pct(const tl_diff_change *c, double *pct)
{
	if (c->a == 0)
		return 0;
	*pct = 100.0 * ((double)c->b - (double)c->a) / (double)c->a;
	return 1;
}

/* (kind, name, step) first, rank last: the ranks of one quantity are adjacent. */
static int
cmp_key(const tl_diff_meas *x, const tl_diff_meas *y)
{
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	int c = strcmp(x->name, y->name);
	if (c != 0)
		return c;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
cmp_meas(const void *p, const void *q)
{
	return cmp_key(p, q);
}

/* Sums the runs of equal keys in place; returns the new length. */
static size_t
fold(tl_diff_meas *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_meas);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (w > 0 && cmp_key(&v[w - 1], &v[i]) == 0) {
			v[w - 1].ns = sat_add(v[w - 1].ns, v[i].ns);
			v[w - 1].count += v[i].count;
		} else {
			v[w++] = v[i];
		}
	}
	return w;
}

static int
same_quantity(const tl_diff_meas *x, const tl_diff_meas *y)
{
	return x->kind == y->kind && x->step == y->step && strcmp(x->name, y->name) == 0;
}

size_t
diff_join(tl_diff_meas *a, size_t na, tl_diff_meas *b, size_t nb, tl_diff_change **out)
{
	na = fold(a, na);
	nb = fold(b, nb);
	size_t cap = 2 * (na + nb) + 1, n = 0;
	tl_diff_change *v = xcalloc(cap, sizeof *v);
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		/* the next quantity: the smaller head of the two lists */
		const tl_diff_meas *q;
		if (i < na && (j >= nb || cmp_key(&a[i], &b[j]) <= 0))
			q = &a[i];
		else
			q = &b[j];
		size_t i1 = i, j1 = j;
		while (i1 < na && same_quantity(&a[i1], q))
			i1++;
		while (j1 < nb && same_quantity(&b[j1], q))
			j1++;
		size_t all = n++;
		tl_diff_change *t = &v[all];
		t->kind = q->kind;
		t->name = q->name;
		t->rank = -1;
		t->step = q->step;
		t->top_rank = -1;
		int64_t sa = 0, sb = 0;
		size_t ia = i, jb = j;
		while (ia < i1 || jb < j1) {
			tl_diff_change *c = &v[n++];
			c->kind = q->kind;
			c->name = q->name;
			c->step = q->step;
			c->top_rank = -1;
			int ra = ia < i1 ? a[ia].rank : 0, rb = jb < j1 ? b[jb].rank : 0;
			int take_a = ia < i1 && (jb >= j1 || ra <= rb);
			int take_b = jb < j1 && (ia >= i1 || rb <= ra);
			if (take_a) {
				c->rank = ra;
				c->has_a = 1;
				c->a = c->max_a = a[ia].ns;
				c->count_a = a[ia].count;
				c->nranks_a = 1;
				sa = sat_add(sa, a[ia].ns);
				t->count_a += a[ia].count;
				if (t->nranks_a++ == 0 || a[ia].ns > t->max_a)
					t->max_a = a[ia].ns;
				ia++;
			}
			if (take_b) {
				c->rank = rb;
				c->has_b = 1;
				c->b = c->max_b = b[jb].ns;
				c->count_b = b[jb].count;
				c->nranks_b = 1;
				sb = sat_add(sb, b[jb].ns);
				t->count_b += b[jb].count;
				if (t->nranks_b++ == 0 || b[jb].ns > t->max_b)
					t->max_b = b[jb].ns;
				jb++;
			}
			int64_t d = diff_delta(c);
			if (d != 0 && (t->top_rank < 0 || sat_abs(d) > sat_abs(t->top_delta))) {
				t->top_rank = c->rank;
				t->top_delta = d;
			}
		}
		if (n == all + 2)
			v[all + 1].sole = 1;
		t->has_a = t->nranks_a > 0;
		t->has_b = t->nranks_b > 0;
		t->a = t->nranks_a ? sa / (int64_t)t->nranks_a : 0;
		t->b = t->nranks_b ? sb / (int64_t)t->nranks_b : 0;
		i = i1;
		j = j1;
	}
	*out = v;
	return n;
}

int
diff_kind_is_total(tl_diff_kind k)
{
	return k == TL_DIFF_OPERATOR;
}

static int64_t
per_step(int64_t ns, size_t steps)
{
	return ns / (int64_t)(steps ? steps : 1);
}

/* One quantity: its rows v[at .. at + n), the all-ranks row first (diff_join's order). */
typedef struct diff_group {
	size_t at, n;
	int64_t key, all; /* the largest |step_delta| of its rows; its all-ranks row's */
} diff_group;

static int
cmp_group(const void *p, const void *q)
{
	const diff_group *gx = p, *gy = q;
	if (gx->all != gy->all)
		return gx->all > gy->all ? -1 : 1;
	if (gx->key != gy->key)
		return gx->key > gy->key ? -1 : 1;
	return (gx->at > gy->at) - (gx->at < gy->at); /* join order: kind, name, step */
}

/* The per-rank rows of one quantity: largest |step_delta| first, then rank. */
static int
cmp_rank_row(const void *p, const void *q)
{
	const tl_diff_change *x = p, *y = q;
	int64_t mx = sat_abs(x->step_delta), my = sat_abs(y->step_delta);
	if (mx != my)
		return mx > my ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

void
diff_rank_changes(tl_diff_change *v, size_t n, size_t steps_a, size_t steps_b)
{
	diff_group *g = xmalloc((n + 1) * sizeof *g);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		tl_diff_change *c = &v[i];
		c->step_delta = diff_kind_is_total(c->kind)
		                    ? sat_sub(per_step(c->b, steps_b), per_step(c->a, steps_a))
		                    : diff_delta(c);
		if (c->rank < 0 || ng == 0)
			g[ng++] = (diff_group){.at = i, .all = sat_abs(c->step_delta)};
		diff_group *cur = &g[ng - 1];
		cur->n++;
		if (sat_abs(c->step_delta) > cur->key)
			cur->key = sat_abs(c->step_delta);
		if (c->rank >= 0 && !c->sole && (c->a != c->b || c->has_a != c->has_b))
			v[cur->at].ranks_changed++;
	}
	qsort(g, ng, sizeof *g, cmp_group);
	tl_diff_change *out = xmalloc((n + 1) * sizeof *out);
	size_t w = 0;
	for (size_t k = 0; k < ng; k++) {
		memcpy(out + w, v + g[k].at, g[k].n * sizeof *out);
		if (g[k].n > 2)
			qsort(out + w + 1, g[k].n - 1, sizeof *out, cmp_rank_row);
		w += g[k].n;
	}
	memcpy(v, out, n * sizeof *v);
	free(out);
	free(g);
}
