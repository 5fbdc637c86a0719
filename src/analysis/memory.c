#include "config.h"
#include "analysis/memory.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The peak of c: the highest value, at the first sample that has it. */
static void
counter_peak(const tl_counter *c, int64_t *v, int64_t *t)
{
	*v = c->v[0];
	*t = c->t[0];
	for (size_t i = 1; i < c->n; i++)
		if (c->v[i] > *v) {
			*v = c->v[i];
			*t = c->t[i];
		}
}

static int
cmp_mem_peak(const void *a, const void *b)
{
	return strcmp(((const tl_mem_peak *)a)->component, ((const tl_mem_peak *)b)->component);
}

size_t
memory_peaks(const tl_rank *r, tl_mem_peak **out)
{
	tl_mem_peak *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < r->ncounters; i++) {
		const tl_counter *c = r->counters[i];
		int k = c->kind == TL_CTR_ALLOCATED  ? 0
		        : c->kind == TL_CTR_RESERVED ? 1
		        : c->kind == TL_CTR_ACTIVE   ? 2
		                                     : -1;
		if (k < 0 || c->n == 0)
			continue;
		const char *name = strpool_get(r->pool, c->group);
		size_t j = 0;
		while (j < n && strcmp(v[j].component, name) != 0)
			j++;
		if (j == n) {
			tl_mem_peak x = {.component = name};
			VEC_PUSH(v, n, cap, x);
		}
		int64_t pv, pt;
		counter_peak(c, &pv, &pt);
		tl_mem_peak *p = &v[j];
		int64_t *dst = k == 0 ? &p->allocated : k == 1 ? &p->reserved : &p->active;
		if (!p->have[k] || pv > *dst || (k == 0 && pv == *dst && pt < p->allocated_ns)) {
			*dst = pv;
			if (k == 0)
				p->allocated_ns = pt;
		}
		p->have[k] = 1;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_mem_peak);
	*out = v;
	return n;
}

static int
cmp_npu_peak(const void *a, const void *b)
{
	return strcmp(((const tl_npu_mem_peak *)a)->type, ((const tl_npu_mem_peak *)b)->type);
}

size_t
npu_memory_peaks(const tl_rank *r, tl_npu_mem_peak **out)
{
	tl_npu_mem_peak *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < r->ncounters; i++) {
		const tl_counter *c = r->counters[i];
		if ((c->kind != TL_CTR_NPU_HBM && c->kind != TL_CTR_NPU_DDR) || c->n == 0)
			continue;
		const char *name = strpool_get(r->pool, c->group);
		size_t j = 0;
		while (j < n && strcmp(v[j].type, name) != 0)
			j++;
		if (j == n) {
			tl_npu_mem_peak x = {.type = name};
			VEC_PUSH(v, n, cap, x);
		}
		int64_t pv, pt;
		counter_peak(c, &pv, &pt);
		tl_npu_mem_peak *p = &v[j];
		if (c->kind == TL_CTR_NPU_HBM) {
			if (!p->have_hbm || pv > p->hbm)
				p->hbm = pv;
			p->have_hbm = 1;
		} else {
			if (!p->have_ddr || pv > p->ddr)
				p->ddr = pv;
			p->have_ddr = 1;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_npu_peak);
	*out = v;
	return n;
}
