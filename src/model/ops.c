#include "config.h"
#include "model/ops.h"
#include "util/satint.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void
op_data_init(tl_op_data *d)
{
	memset(d, 0, sizeof *d);
	d->pool = strpool_new();
	u64map_init(&d->pair);
	u64map_init(&d->type);
	u64map_init(&d->key);
}

void
op_data_own(tl_op_data *d)
{
	if (!d->borrowed)
		return;
	for (size_t i = 0; i < d->n; i++) {
		tl_op_group *g = &d->g[i];
		const int64_t *dur = g->dur, *start = g->start;
		g->dur = g->start = NULL;
		if (g->n > 0) {
			g->dur = xreallocarray(NULL, g->n, sizeof *g->dur);
			memcpy(g->dur, dur, g->n * sizeof *g->dur);
		}
		if (g->n > 0 && start != NULL) {
			g->start = xreallocarray(NULL, g->n, sizeof *g->start);
			memcpy(g->start, start, g->n * sizeof *g->start);
		}
		g->cap = g->n;
	}
	d->borrowed = 0;
}

void
op_data_free(tl_op_data *d)
{
	if (d->pool == NULL)
		return; /* never initialised */
	for (size_t i = 0; i < d->n && !d->borrowed; i++) {
		free(d->g[i].dur);
		free(d->g[i].start);
	}
	free(d->g);
	strpool_free(d->pool);
	u64map_free(&d->pair);
	u64map_free(&d->type);
	u64map_free(&d->key);
	memset(d, 0, sizeof *d);
}

static uint32_t
dense_id(tl_u64map *m, uint64_t key, uint32_t *next)
{
	uint32_t v;
	if (!u64map_get(m, key, &v)) {
		v = (*next)++;
		u64map_put(m, key, v);
	}
	return v;
}

uint32_t
op_data_group(tl_op_data *d, uint32_t name, uint32_t op_type, uint32_t task_type, uint32_t shapes)
{
	uint32_t p = dense_id(&d->pair, (uint64_t)name << 32 | shapes, &d->npair);
	uint32_t t = dense_id(&d->type, (uint64_t)op_type << 32 | task_type, &d->ntype);
	uint64_t key = (uint64_t)p << 32 | t;
	uint32_t gi;
	if (!u64map_get(&d->key, key, &gi)) {
		tl_op_group g = {name, op_type, task_type, shapes, NULL, NULL, 0, 0, 0, -1};
		gi = (uint32_t)d->n;
		VEC_PUSH(d->g, d->n, d->cap, g);
		u64map_put(&d->key, key, gi);
	}
	return gi;
}

void
op_data_push(tl_op_data *d, uint32_t gi, int64_t dur, int64_t start)
{
	op_data_own(d);
	tl_op_group *g = &d->g[gi];
	if (d->totals) { /* durations are not negative: the sum is the same in any order */
		g->n++;
		g->total = sat_add(g->total, dur);
		return;
	}
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 8;
		g->dur = xreallocarray(g->dur, cap, sizeof *g->dur);
		if (!d->nostart)
			g->start = xreallocarray(g->start, cap, sizeof *g->start);
		g->cap = cap;
	}
	if (g->start != NULL)
		g->start[g->n] = start;
	g->dur[g->n++] = dur;
}

void
op_data_add(tl_op_data *d, uint32_t name, uint32_t op_type, uint32_t task_type, uint32_t shapes,
            int64_t dur, int64_t start)
{
	op_data_push(d, op_data_group(d, name, op_type, task_type, shapes), dur, start);
}

void
op_data_finish(tl_op_data *d)
{
	size_t w = 0;
	op_data_own(d);
	u64map_free(&d->key);
	u64map_init(&d->key);
	for (size_t i = 0; i < d->n; i++) {
		tl_op_group *g = &d->g[i];
		if (g->n == 0) {
			free(g->dur);
			free(g->start);
			continue;
		}
		/* give back the slack of the growth doubling (up to half of the arrays) before the
		 * sort takes its scratch: the table is final now, and while a rank is written to
		 * the model cache it is held beside the rank's overlap lanes */
		if (g->cap > g->n + g->n / 8) {
			g->dur = xreallocarray(g->dur, g->n, sizeof *g->dur);
			if (g->start != NULL)
				g->start = xreallocarray(g->start, g->n, sizeof *g->start);
			g->cap = g->n;
		}
		if (g->start != NULL)
			sort_i64_pairs(g->dur, g->start, g->n);
		else if (g->dur != NULL) /* the same durations in the same order: only ties'
		                            starts would differ */
			sort_i64(g->dur, g->n);
		uint32_t p, t;
		u64map_get(&d->pair, (uint64_t)g->name << 32 | g->shapes, &p);
		u64map_get(&d->type, (uint64_t)g->op_type << 32 | g->task_type, &t);
		u64map_put(&d->key, (uint64_t)p << 32 | t, (uint32_t)w);
		d->g[w++] = *g;
	}
	d->n = w;
}
