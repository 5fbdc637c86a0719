/* The selections of util/sort.c over one integer type, written once: sort.c includes this file
 * once per width with SEL_T (the type) and SEL(name) (the name made the width's own) defined,
 * and SEL(cmp) (qsort's comparison of two SEL_T); it defines the static SEL(insertion),
 * SEL(select), SEL(hist_gather) and SEL(select2) that sort.h's select_i64, select2_i64 and
 * select2_i32 are. No include guard: a template, included more than once. */

static void
SEL(insertion)(SEL_T *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		SEL_T x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static SEL_T
SEL(select)(SEL_T *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n; /* k in [lo, hi) */
	for (int round = 0; hi - lo > SMALL; round++) {
		if (round == 64) { /* a range that does not shrink: sorted (never met) */
			qsort(v + lo, hi - lo, sizeof *v, SEL(cmp));
			return v[k];
		}
		SEL_T a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1];
		SEL_T p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		size_t lt = lo, i = lo, gt = hi; /* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */
		while (i < gt) {
			SEL_T x = v[i];
			if (x < p) {
				v[i++] = v[lt];
				v[lt++] = x;
			} else if (x > p) {
				v[i] = v[--gt];
				v[gt] = x;
			} else {
				i++;
			}
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	SEL(insertion)(v + lo, hi - lo);
	return v[k];
}

/* Moves the values of v[0 .. n) whose bucket ((x - lo) >> sh) is b to its front; returns how
 * many. The branch is mostly not taken: predicted. */
static size_t
SEL(hist_gather)(SEL_T *v, size_t n, uint64_t lo, int sh, uint64_t b)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (((uint64_t)(int64_t)v[i] - lo) >> sh == b) {
			SEL_T x = v[i];
			v[i] = v[w];
			v[w++] = x;
		}
	return w;
}

static void
SEL(select2)(SEL_T *v, size_t n, size_t k1, size_t k2, SEL_T *a, SEL_T *b)
{
	if (n < HIST_MIN || n > UINT32_MAX) {
		*b = SEL(select)(v, n, k2);
		*a = k1 < k2 ? SEL(select)(v, k2, k1) : *b; /* v[0 .. k2) <= *b */
		return;
	}
	SEL_T mn = v[0], mx = v[0];
	for (size_t i = 1; i < n; i++) {
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	if (mn == mx) {
		*a = *b = mn;
		return;
	}
	uint64_t lo = (uint64_t)(int64_t)mn, range = (uint64_t)(int64_t)mx - lo;
	int sh = 0;
	while (range >> sh >> HIST_BITS != 0)
		sh++;
	uint32_t cnt[1u << HIST_BITS];
	memset(cnt, 0, sizeof cnt);
	for (size_t i = 0; i < n; i++)
		cnt[((uint64_t)(int64_t)v[i] - lo) >> sh]++;
	/* the buckets of the k1-th and the k2-th, and their ranks in them */
	size_t b1 = 0, below = 0;
	while (below + cnt[b1] <= k1)
		below += cnt[b1++];
	size_t r1 = k1 - below, b2 = b1;
	while (below + cnt[b2] <= k2)
		below += cnt[b2++];
	size_t r2 = k2 - below;
	if (sh == 0) { /* a bucket a value (the DB's delays: one value but a few) */
		*a = (SEL_T)(int64_t)(lo + b1);
		*b = (SEL_T)(int64_t)(lo + b2);
		return;
	}
	size_t m1 = SEL(hist_gather)(v, n, lo, sh, b1);
	if (b1 == b2) { /* a bucket's values span 1 / 4096 of the range: the next round less */
		SEL(select2)(v, m1, r1, r2, a, b);
		return;
	}
	size_t m2 = SEL(hist_gather)(v + m1, n - m1, lo, sh, b2);
	SEL(select2)(v, m1, r1, r1, a, a);
	SEL(select2)(v + m1, m2, r2, r2, b, b);
}
