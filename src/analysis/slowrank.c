#include "config.h"
#include "analysis/slowrank.h"
#include "util/hash.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* msprof-analyze dixon_table.py: one-sided Dixon critical values at 99.5%, n = 3..100 */
static const double dixon_995[101] = {
    [3] = 0.994,  [4] = 0.920,   [5] = 0.823,  [6] = 0.744,  [7] = 0.680,  [8] = 0.723,
    [9] = 0.676,  [10] = 0.638,  [11] = 0.707, [12] = 0.675, [13] = 0.649, [14] = 0.672,
    [15] = 0.649, [16] = 0.629,  [17] = 0.611, [18] = 0.595, [19] = 0.580, [20] = 0.568,
    [21] = 0.556, [22] = 0.545,  [23] = 0.536, [24] = 0.526, [25] = 0.519, [26] = 0.510,
    [27] = 0.503, [28] = 0.496,  [29] = 0.489, [30] = 0.484, [31] = 0.478, [32] = 0.473,
    [33] = 0.468, [34] = 0.463,  [35] = 0.458, [36] = 0.454, [37] = 0.450, [38] = 0.446,
    [39] = 0.442, [40] = 0.439,  [41] = 0.435, [42] = 0.432, [43] = 0.429, [44] = 0.425,
    [45] = 0.423, [46] = 0.420,  [47] = 0.417, [48] = 0.414, [49] = 0.412, [50] = 0.409,
    [51] = 0.407, [52] = 0.405,  [53] = 0.402, [54] = 0.400, [55] = 0.398, [56] = 0.396,
    [57] = 0.394, [58] = 0.392,  [59] = 0.391, [60] = 0.388, [61] = 0.387, [62] = 0.385,
    [63] = 0.383, [64] = 0.382,  [65] = 0.380, [66] = 0.379, [67] = 0.377, [68] = 0.376,
    [69] = 0.374, [70] = 0.372,  [71] = 0.371, [72] = 0.370, [73] = 0.368, [74] = 0.368,
    [75] = 0.366, [76] = 0.365,  [77] = 0.364, [78] = 0.363, [79] = 0.361, [80] = 0.360,
    [81] = 0.359, [82] = 0.358,  [83] = 0.356, [84] = 0.356, [85] = 0.355, [86] = 0.353,
    [87] = 0.352, [88] = 0.352,  [89] = 0.351, [90] = 0.350, [91] = 0.349, [92] = 0.348,
    [93] = 0.347, [94] = 0.346,  [95] = 0.345, [96] = 0.344, [97] = 0.344, [98] = 0.343,
    [99] = 0.341, [100] = 0.341,
};

#define DIXON_MAX 100 /* Constant.MAX_DIXON_NUM: above it, the 3-sigma rule */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* index of the first occurrence of the minimum (Python's list.index(min)) */
static size_t
argmin(const double *t, size_t n)
{
	size_t m = 0;
	for (size_t i = 1; i < n; i++)
		if (t[i] < t[m])
			m = i;
	return m;
}

static size_t
judge_dixon(const double *t, size_t n, size_t *out)
{
	if (n <= 2)
		return 0;
	double *x = xreallocarray(NULL, n, sizeof *x);
	memcpy(x, t, n * sizeof *x);
	qsort(x, n, sizeof *x, cmp_double);
	size_t distinct = 1;
	for (size_t i = 1; i < n; i++)
		distinct += x[i] != x[i - 1];
	size_t found = 0;
	if (distinct > 3) { /* else a denominator could be 0 */
		/* the gap above the minimum over the range, with the sample ends chosen by n */
		double num, den;
		if (n <= 7) {
			num = x[1] - x[0];
			den = x[n - 1] - x[0];
		} else if (n <= 10) {
			num = x[1] - x[0];
			den = x[n - 2] - x[0];
		} else if (n <= 13) {
			num = x[2] - x[0];
			den = x[n - 2] - x[0];
		} else {
			num = x[2] - x[0];
			den = x[n - 3] - x[0];
		}
		double r = den != 0 ? num / den : 0;
		if (r > dixon_995[n])
			out[found++] = argmin(t, n);
	}
	free(x);
	return found;
}

static size_t
judge_norm(const double *t, size_t n, size_t *out)
{
	double sum = 0, var = 0, mx = t[0];
	for (size_t i = 0; i < n; i++) {
		sum += t[i];
		if (t[i] > mx)
			mx = t[i];
	}
	double mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		var += (t[i] - mean) * (t[i] - mean);
	double sd = sqrt(var / (double)n); /* numpy std: population */
	size_t found = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i] < mean - 3 * sd)
			out[found++] = i;
	if (mx > mean + 3 * sd) {
		size_t m = argmin(t, n);
		int have = 0;
		for (size_t i = 0; i < found; i++)
			have |= out[i] == m;
		if (!have)
			out[found++] = m;
	}
	return found;
}

size_t
slowrank_judge(const double *t, size_t n, size_t *out)
{
	if (n == 0)
		return 0;
	return n <= DIXON_MAX ? judge_dixon(t, n, out) : judge_norm(t, n, out);
}

/* ---- votes ------------------------------------------------------------------------------ */

typedef struct op_rec {
	uint64_t gh, oh;        /* hashes of group and op name */
	const char *group, *op; /* borrowed */
	size_t rank, seq;       /* rank index; seq keeps the rank order stable */
	int64_t start, dur;
	uint32_t go; /* group numbered in strcmp's order (sort_str_ordinals), when judge_recs */
	int ordered; /* ... could number them */
} op_rec;

/* group (op = 0) or op, in strcmp's order */
static int
cmp_str2(const op_rec *x, const op_rec *y, int op)
{
	if (op)
		return x->op == y->op ? 0 : strcmp(x->op, y->op);
	if (x->ordered && y->ordered)
		return (x->go > y->go) - (x->go < y->go);
	return strcmp(x->group, y->group);
}

static int
cmp_rec(const void *a, const void *b)
{
	const op_rec *x = a, *y = b;
	if (x->gh != y->gh)
		return x->gh < y->gh ? -1 : 1;
	int c = cmp_str2(x, y, 0);
	if (c)
		return c;
	if (x->oh != y->oh)
		return x->oh < y->oh ? -1 : 1;
	c = cmp_str2(x, y, 1);
	if (c)
		return c;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
same_group(const op_rec *a, const op_rec *b)
{
	return a->gh == b->gh && cmp_str2(a, b, 0) == 0;
}

static int
same_op(const op_rec *a, const op_rec *b)
{
	return same_group(a, b) && a->oh == b->oh && cmp_str2(a, b, 1) == 0;
}

/* Numbers the records' groups in strcmp's order, so that their sort and runs compare integers
 * (the groups' names are long and mostly equal: a strcmp reads them whole; the ops' differ by
 * hash first); where two groups share a hash, none is numbered. */
static void
recs_order(op_rec *v, size_t n)
{
	const char **s = xreallocarray(NULL, n ? n : 1, sizeof *s);
	uint32_t *o = xreallocarray(NULL, n ? n : 1, sizeof *o);
	for (size_t i = 0; i < n; i++)
		s[i] = v[i].group;
	int ok = sort_str_ordinals(s, n, o) == 0;
	for (size_t i = 0; i < n; i++) {
		v[i].go = ok ? o[i] : 0;
		v[i].ordered = ok;
	}
	free(s);
	free(o);
}

static int
cmp_vote(const void *a, const void *b)
{
	const tl_slow_vote *x = a, *y = b;
	if (x->votes != y->votes)
		return x->votes > y->votes ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
cmp_slow_op(const void *a, const void *b)
{
	const tl_slow_op *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void judge_recs(const tl_trace *tr, op_rec *v, size_t n, tl_slow_result *res);

/* strcmp, without reading a string against itself (a rank's entries share its pools' strings) */
static int
cmp_same_rank(const char *a, const char *b)
{
	return a == b ? 0 : strcmp(a, b);
}

static int
cmp_entry_call(const void *a, const void *b)
{
	const tl_coll_entry *x = *(const tl_coll_entry *const *)a,
	                    *y = *(const tl_coll_entry *const *)b;
	if (x->ri != y->ri)
		return x->ri < y->ri ? -1 : 1;
	int c = cmp_same_rank(x->group, y->group);
	if (c == 0)
		c = cmp_same_rank(x->name, y->name);
	if (c == 0)
		c = cmp_same_rank(x->type ? x->type : "", y->type ? y->type : "");
	if (c != 0)
		return c;
	return (x->start > y->start) - (x->start < y->start);
}

void
slowrank_votes_entries(const tl_trace *tr, const tl_coll_entry *e, size_t n, tl_slow_result *res)
{
	memset(res, 0, sizeof *res);
	const tl_coll_entry **s = xreallocarray(NULL, n ? n : 1, sizeof *s);
	for (size_t i = 0; i < n; i++)
		s[i] = &e[i];
	if (n > 1)
		qsort(s, n, sizeof *s, cmp_entry_call);
	op_rec *v = NULL;
	size_t nv = 0, cap = 0, kcap = 0;
	for (size_t i = 0; i < n;) {
		/* the run of one name in one group on one rank */
		size_t j = i + 1;
		while (j < n && s[j]->ri == s[i]->ri &&
		       cmp_same_rank(s[j]->group, s[i]->group) == 0 &&
		       cmp_same_rank(s[j]->name, s[i]->name) == 0)
			j++;
		size_t k = 0;
		for (size_t m = i; m < j; m++) {
			const tl_coll_entry *x = s[m];
			const char *ty = x->type ? x->type : "";
			int p2p = *ty ? coll_type_p2p(ty) : -1;
			if (p2p > 0 || (p2p < 0 && (strstr(x->name, "send") != NULL ||
			                            strstr(x->name, "receive") != NULL)))
				continue;
			const char *op = x->name;
			if (j - i > 1) { /* not a call of its own: the k-th of its type */
				if (m > i && strcmp(ty, s[m - 1]->type ? s[m - 1]->type : "") != 0)
					k = 0;
				char *key = xasprintf("%s #%zu %s", *ty ? ty : "op", k++, x->name);
				VEC_PUSH(res->keys, res->nkeys, kcap, key);
				op = key;
			}
			op_rec r = {util_hash_str(x->group),
			            util_hash_str(op),
			            x->group,
			            op,
			            x->ri,
			            nv,
			            x->start,
			            x->end - x->start,
			            0,
			            0};
			VEC_PUSH(v, nv, cap, r);
		}
		i = j;
	}
	free(s);
	judge_recs(tr, v, nv, res);
}

void
slowrank_votes(const tl_trace *tr, tl_slow_result *res)
{
	memset(res, 0, sizeof *res);
	op_rec *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track *t = r->tracks[ti];
			if (t->kind != TL_LANE_COMM)
				continue;
			const char *group = strpool_get(r->pool, t->label);
			uint64_t gh = util_hash_str(group);
			for (size_t k = 0; k < t->n; k++) {
				const char *op = strpool_get(r->pool, t->v[k].name);
				/* P2P is not a collective (slow_rank.py drops "send" and "receive")
				 */
				if (strstr(op, "send") != NULL || strstr(op, "receive") != NULL)
					continue;
				op_rec x = {gh, util_hash_str(op), group,           op, ri,
				            n,  t->v[k].start,     track_dur(t, k), 0,  0};
				VEC_PUSH(v, n, cap, x);
			}
		}
	}
	judge_recs(tr, v, n, res);
}

/* Groups the records by group and op, judges each aligned op's durations; frees v. */
static void
judge_recs(const tl_trace *tr, op_rec *v, size_t n, tl_slow_result *res)
{
	recs_order(v, n);
	if (n > 1)
		sort_unless_sorted(v, n, sizeof *v, cmp_rec);
	unsigned *votes = xcalloc(tr->nranks ? tr->nranks : 1, sizeof *votes);
	double *tl = xreallocarray(NULL, n ? n : 1, sizeof *tl);
	size_t *flag = xreallocarray(NULL, n ? n : 1, sizeof *flag);
	int64_t *sorted = xreallocarray(NULL, n ? n : 1, sizeof *sorted);
	size_t opcap = 0;
	for (size_t g0 = 0; g0 < n;) {
		size_t g1 = g0 + 1;
		while (g1 < n && same_group(&v[g0], &v[g1]))
			g1++;
		/* a group is aligned when every op name in it occurs equally often */
		size_t want = 0;
		int aligned = 1;
		for (size_t o0 = g0; o0 < g1;) {
			size_t o1 = o0 + 1;
			while (o1 < g1 && same_op(&v[o0], &v[o1]))
				o1++;
			if (want == 0)
				want = o1 - o0;
			else if (o1 - o0 != want)
				aligned = 0;
			o0 = o1;
		}
		if (!aligned) {
			res->groups_dropped++;
			g0 = g1;
			continue;
		}
		for (size_t o0 = g0; o0 < g1;) {
			size_t o1 = o0 + 1;
			while (o1 < g1 && same_op(&v[o0], &v[o1]))
				o1++;
			size_t m = o1 - o0;
			for (size_t i = 0; i < m; i++)
				tl[i] = (double)v[o0 + i].dur;
			res->instances++;
			size_t nf = slowrank_judge(tl, m, flag);
			for (size_t i = 0; i < nf; i++)
				votes[v[o0 + flag[i]].rank]++;
			if (nf > 0) {
				for (size_t i = 0; i < m; i++)
					sorted[i] = v[o0 + i].dur;
				qsort(sorted, m, sizeof *sorted, cmp_i64);
				const op_rec *s = &v[o0 + flag[0]];
				tl_slow_op so = {s->op,
				                 s->group,
				                 s->rank,
				                 s->start,
				                 m,
				                 sorted[0],
				                 m % 2 ? sorted[m / 2]
				                       : (sorted[m / 2 - 1] + sorted[m / 2]) / 2,
				                 sorted[m - 1]};
				VEC_PUSH(res->ops, res->nops, opcap, so);
			}
			o0 = o1;
		}
		g0 = g1;
	}
	size_t vcap = 0;
	for (size_t i = 0; i < tr->nranks; i++)
		if (votes[i] > 0) {
			tl_slow_vote sv = {i, votes[i]};
			VEC_PUSH(res->v, res->n, vcap, sv);
		}
	if (res->n > 1)
		qsort(res->v, res->n, sizeof *res->v, cmp_vote);
	if (res->nops > 1)
		qsort(res->ops, res->nops, sizeof *res->ops, cmp_slow_op);
	free(votes);
	free(tl);
	free(flag);
	free(sorted);
	free(v);
}

void
slowrank_free(tl_slow_result *res)
{
	for (size_t i = 0; i < res->nkeys; i++)
		free(res->keys[i]);
	free(res->keys);
	free(res->v);
	free(res->ops);
	memset(res, 0, sizeof *res);
}
