#include "config.h"
#include "query/session.h"
#include "query/memory.h"
#include "load/load.h"
#include "query/host.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
counters_job(const tl_query *q, size_t ri, void *arg)
{
	(void)arg;
	load_counters(q->tr->ranks[ri]); /* fills a cache of the rank: its counters and names */
}

/* COUNTERS: every rank's counters, read into the ranks (so nothing to free here), ranks in
 * parallel. */
static void
counters_part_compute(const tl_query *q)
{
	tlq_per_rank(q, counters_job, NULL);
}

TLQ_PART_DEFINE(COUNTERS, counters, counters_part_compute, NULL);

void
tlq_counters(const tl_query *q)
{
	tlq_need(q, &tlq_part_counters);
}

size_t
tlq_memory_peaks(const tl_query *q, size_t ri, tl_mem_peak **out)
{
	tlq_counters(q);
	return memory_peaks(tlq_trace(q)->ranks[ri], out);
}

size_t
tlq_npu_memory_peaks(const tl_query *q, size_t ri, tl_npu_mem_peak **out)
{
	tlq_counters(q);
	return npu_memory_peaks(tlq_trace(q)->ranks[ri], out);
}

const char *
tlq_stage_at(const tl_query *rl, size_t ri, int64_t t)
{
	const tl_stage_row *rows;
	size_t n = tlq_stages(rl, &rows);
	const tl_stage_row *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const tl_stage_row *s = &rows[i];
		if (s->rank != ri || t < s->host_start || t > s->host_end)
			continue;
		if (best == NULL || s->level > best->level)
			best = s;
	}
	return best ? tlq_stage_name(rl, best->stage) : NULL;
}

static int
cmp_alloc(const void *a, const void *b)
{
	const tlq_alloc *x = a, *y = b;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return (x->alloc_ns > y->alloc_ns) - (x->alloc_ns < y->alloc_ns);
}

ptrdiff_t
tlq_live_allocations(const tl_rank *r, int64_t t, size_t max, tlq_alloc **out)
{
	ptrdiff_t n = load_live_allocations(r, t, max, out);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof **out, cmp_alloc);
	if (n > (ptrdiff_t)max)
		n = (ptrdiff_t)max;
	return n;
}

/* ---- counter lanes ---- */

size_t
tlq_rank_counters(const tl_query *q, size_t ri, tl_counter *const **out)
{
	tlq_counters(q);
	const tl_rank *r = tlq_trace(q)->ranks[ri];
	*out = r->counters;
	return r->ncounters;
}

const char *
tlq_counter_label(const tl_rank *r, const tl_counter *c, char *buf, size_t len)
{
	const char *g = strpool_get(r->pool, c->group);
	switch (c->kind) {
	case TL_CTR_ALLOCATED:
		snprintf(buf, len, "%s allocated", g);
		break;
	case TL_CTR_RESERVED:
		snprintf(buf, len, "%s reserved", g);
		break;
	case TL_CTR_ACTIVE:
		snprintf(buf, len, "%s active", g);
		break;
	case TL_CTR_NPU_HBM:
		snprintf(buf, len, "%s HBM", g);
		break;
	case TL_CTR_NPU_DDR:
		snprintf(buf, len, "%s DDR", g);
		break;
	case TL_CTR_MODULE:
		snprintf(buf, len, "module %s", g);
		break;
	case TL_CTR_FREQ:
		snprintf(buf, len, "AI Core freq%s%s", *g ? " " : "", g);
		break;
	default: {
		/* "name [unit]": the name */
		const char *u = strrchr(g, '[');
		int n = u && u > g ? (int)(u - g - 1) : (int)strlen(g);
		snprintf(buf, len, "%.*s", n, g);
		break;
	}
	}
	return buf;
}

/* v/div with one or two decimals, exact integer arithmetic (no doubles: values reach 2^62) */
static void
fixed(char *buf, size_t len, int64_t v, int64_t div, int dec, const char *unit)
{
	const char *sign = v < 0 ? "-" : "";
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	uint64_t p = dec == 2 ? 100 : dec == 1 ? 10 : 1;
	/* rounded to the last decimal */
	uint64_t q = (uint64_t)div;
	uint64_t whole = a / q, rem = a % q;
	uint64_t frac = (rem * p + q / 2) / q;
	if (frac >= p) {
		whole++;
		frac -= p;
	}
	if (dec)
		snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64 "%s%s", sign, whole, dec, frac,
		         *unit ? " " : "", unit);
	else
		snprintf(buf, len, "%s%" PRIu64 "%s%s", sign, whole, *unit ? " " : "", unit);
}

const char *
tlq_counter_value(const tl_rank *r, const tl_counter *c, int64_t v, char *buf, size_t len)
{
	if (c->kind == TL_CTR_FREQ) {
		snprintf(buf, len, "%" PRId64 " MHz", v);
	} else if (c->kind == TL_CTR_OTHER) {
		const char *g = strpool_get(r->pool, c->group);
		const char *u = strrchr(g, '[');
		char unit[32] = "";
		if (u) {
			snprintf(unit, sizeof unit, "%s", u + 1);
			char *e = strchr(unit, ']');
			if (e)
				*e = '\0';
		}
		fixed(buf, len, v, 1000, v % 1000 ? 2 : 0, unit);
	} else {
		static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
		uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
		int u = 0;
		int64_t div = 1;
		while (u < 4 && a >= (uint64_t)div * 1024) {
			div *= 1024;
			u++;
		}
		fixed(buf, len, v, div, u ? 2 : 0, units[u]);
	}
	return buf;
}

/* The first sample at or after t. */
static size_t
ctr_lower(const tl_counter *c, int64_t t)
{
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;
		if (c->t[m] < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

void
tlq_counter_columns(const tl_counter *c, int64_t end, const int64_t *edges, int ncols, int64_t *max,
                    unsigned char *have)
{
	size_t a = ctr_lower(c, edges[0]);
	for (int k = 0; k < ncols; k++) {
		int64_t c0 = edges[k], c1 = edges[k + 1];
		have[k] = 0;
		/* held from before: the sample before the column, when the next one comes after
		 * the column's first instant (or there is none and the column starts by the end) */
		if (a > 0 && (a < c->n ? c->t[a] > c0 : c0 <= end)) {
			max[k] = c->v[a - 1];
			have[k] = 1;
		}
		for (; a < c->n && c->t[a] < c1; a++)
			if (!have[k] || c->v[a] > max[k]) {
				max[k] = c->v[a];
				have[k] = 1;
			}
	}
}

int
tlq_counter_at(const tl_counter *c, int64_t end, int64_t t, int64_t *v)
{
	size_t a = ctr_lower(c, t + (t < INT64_MAX)); /* the first sample after t */
	if (a == 0 || (a == c->n && c->t[c->n - 1] != t && t > end))
		return 0;
	*v = c->v[a - 1];
	return 1;
}

size_t
tlq_counter_peak(const tl_counter *c, int64_t *lo, int64_t *hi)
{
	if (c->n == 0)
		return SIZE_MAX;
	size_t p = 0;
	*lo = *hi = c->v[0];
	for (size_t i = 1; i < c->n; i++) {
		if (c->v[i] > c->v[p])
			p = i;
		if (c->v[i] < *lo)
			*lo = c->v[i];
	}
	*hi = c->v[p];
	return p;
}
