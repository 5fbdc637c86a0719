/* Operator statistics: compute operators per rank by (op type, task type) and, inside each, by
 * (op name, input shapes), as msprof-analyze's compute_op_sum; communication ops per rank by op
 * type, as its hccl_sum. */
#include "config.h"
#include "analysis/collectives.h"
#include "load/load.h"
#include "query/session.h"
#include "util/u64map.h"
#include "util/parallel.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ops_job {
	const tl_trace *tr;
	tl_op_data *data;
	int totals;
} ops_job;

/* The table gathered while loading r that answers (counts and totals only: one that kept no
 * durations will do), or NULL: it is read on demand. */
static const tl_op_data *
gathered(const tl_rank *r, int totals)
{
	return r->ops != NULL && (totals || !r->ops->totals) ? r->ops : NULL;
}

static void
ops_rank(void *arg, size_t i)
{
	ops_job *j = arg;
	if (gathered(j->tr->ranks[i], j->totals) == NULL) {
		load_ops(j->tr->ranks[i], &j->data[i]);
		op_data_finish(&j->data[i]); /* by duration, as the gathered tables are */
	}
}

static int
cmp_total_desc(const tl_opstat *a, const tl_opstat *b)
{
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return (a->count < b->count) - (a->count > b->count);
}

static int
cmp_type_row(const void *a, const void *b)
{
	const tl_op_type_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = cmp_total_desc(&x->st, &y->st);
	if (c != 0)
		return c;
	c = strcmp(x->op_type, y->op_type);
	return c != 0 ? c : strcmp(x->task_type, y->task_type);
}

static int
cmp_name_row(const void *a, const void *b)
{
	const tl_op_name_row *x = a, *y = b;
	int c = cmp_total_desc(&x->st, &y->st);
	if (c != 0)
		return c;
	c = strcmp(x->op_name, y->op_name);
	return c != 0 ? c : strcmp(x->input_shapes, y->input_shapes);
}

/* The durations of a group's tasks that start in [t0, t1), still ascending (a filter keeps the
 * order); the group's own array when the window holds them all. */
typedef struct op_view {
	const int64_t *dur;
	size_t n;
	int64_t *own; /* malloc'ed copy, or NULL */
} op_view;

static void
view_of(const tl_op_group *g, int scoped, int64_t t0, int64_t t1, op_view *v)
{
	memset(v, 0, sizeof *v);
	if (!scoped || g->start == NULL) { /* no starts: a load for the whole capture only */
		v->dur = g->dur;
		v->n = g->n;
		return;
	}
	size_t k = 0;
	for (size_t i = 0; i < g->n; i++)
		k += g->start[i] >= t0 && g->start[i] < t1;
	if (k == g->n) {
		v->dur = g->dur;
		v->n = g->n;
		return;
	}
	if (k == 0)
		return;
	v->own = xreallocarray(NULL, k, sizeof *v->own);
	for (size_t i = 0; i < g->n; i++)
		if (g->start[i] >= t0 && g->start[i] < t1)
			v->own[v->n++] = g->dur[i];
	v->dur = v->own;
}

/* Count and total of group g's tasks in view v, the rest of the statistics 0: what tl diff
 * compares (a table of counts and totals has them for the whole capture). */
static void
count_total(const tl_op_group *g, const op_view *v, tl_opstat *out)
{
	memset(out, 0, sizeof *out);
	out->count = v->n;
	if (v->dur == NULL) {
		out->total = v->n ? g->total : 0;
		return;
	}
	if (v->dur == g->dur && v->n == g->n && g->sum >= 0) {
		out->total = g->sum; /* (a cache file's: its durations are not read) */
		return;
	}
	for (size_t i = 0; i < v->n; i++)
		out->total = sat_add(out->total, v->dur[i]);
}

/* One rank's groups -> rows by (op type, task type), each with its rows by (name, shapes), of
 * the tasks that start in [t0, t1) when scoped. d is finished (each group's tasks by duration)
 * and only read. totals: count and total only, nothing concatenated or sorted. */
static void
rank_rows(int rank, const tl_op_data *d, int scoped, int64_t t0, int64_t t1, int totals,
          tl_ops_result *out, size_t *tcap, size_t *ncap)
{
	tl_u64map types; /* (op type, task type) pool ids -> index among this rank's type rows */
	u64map_init(&types);
	size_t base = out->ntypes;
	op_view *gv = xcalloc(d->n ? d->n : 1, sizeof *gv);
	uint32_t *gt = xcalloc(d->n ? d->n : 1, sizeof *gt);
	/* durations of each type, concatenated */
	int64_t **dur = NULL;
	size_t *nd = NULL, *cd = NULL, ntype = 0;
	for (size_t i = 0; i < d->n; i++) {
		const tl_op_group *g = &d->g[i];
		view_of(g, scoped, t0, t1, &gv[i]);
		if (gv[i].n == 0)
			continue;
		uint64_t key = (uint64_t)g->op_type << 32 | g->task_type;
		uint32_t t;
		if (!u64map_get(&types, key, &t)) {
			t = (uint32_t)ntype++;
			u64map_put(&types, key, t);
			tl_op_type_row row = {.rank = rank,
			                      .op_type = strpool_get(d->pool, g->op_type),
			                      .task_type = strpool_get(d->pool, g->task_type)};
			VEC_PUSH(out->types, out->ntypes, *tcap, row);
			dur = xreallocarray(dur, ntype, sizeof *dur);
			nd = xreallocarray(nd, ntype, sizeof *nd);
			cd = xreallocarray(cd, ntype, sizeof *cd);
			dur[t] = NULL;
			nd[t] = cd[t] = 0;
		}
		gt[i] = t;
		if (totals) { /* the type's count and total are its groups' sums */
			tl_opstat gs;
			count_total(g, &gv[i], &gs);
			out->types[base + t].st.count += gs.count;
			out->types[base + t].st.total =
			    sat_add(out->types[base + t].st.total, gs.total);
			continue;
		}
		VEC_RESERVE(dur[t], cd[t], nd[t] + gv[i].n);
		memcpy(dur[t] + nd[t], gv[i].dur, gv[i].n * sizeof *gv[i].dur);
		nd[t] += gv[i].n;
	}
	for (size_t t = 0; t < ntype && !totals; t++)
		opstats_describe(dur[t], nd[t], &out->types[base + t].st);
	for (size_t t = 0; t < ntype; t++)
		free(dur[t]);
	free(dur);
	free(nd);
	free(cd);
	/* the rows by name, grouped under their type */
	for (size_t t = 0; t < ntype; t++) {
		tl_op_type_row *row = &out->types[base + t];
		row->by0 = out->nnames;
		for (size_t i = 0; i < d->n; i++) {
			const tl_op_group *g = &d->g[i];
			if (gv[i].n == 0 || gt[i] != t)
				continue;
			tl_op_name_row nr = {.op_name = strpool_get(d->pool, g->name),
			                     .input_shapes = strpool_get(d->pool, g->shapes)};
			if (totals)
				count_total(g, &gv[i], &nr.st);
			else
				opstats_describe_sorted(gv[i].dur, gv[i].n, &nr.st);
			VEC_PUSH(out->names, out->nnames, *ncap, nr);
		}
		row->nby = out->nnames - row->by0;
		if (row->nby > 1)
			qsort(out->names + row->by0, row->nby, sizeof *out->names, cmp_name_row);
	}
	for (size_t i = 0; i < d->n; i++)
		free(gv[i].own);
	free(gv);
	free(gt);
	u64map_free(&types);
}

static void
ops_rows(const tl_query *q, const int64_t *t0, const int64_t *t1, int totals, tl_ops_result *out)
{
	const tl_trace *tr = tlq_trace(q);
	memset(out, 0, sizeof *out);
	out->ndata = tr->nranks;
	out->data = xcalloc(tr->nranks ? tr->nranks : 1, sizeof *out->data);
	ops_job j = {.tr = tr, .data = out->data, .totals = totals};
	parallel_for(tr->nranks, 0, ops_rank, &j); /* ranks read in parallel */
	size_t tcap = 0, ncap = 0;
	int scoped = t0 != NULL && t1 != NULL;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		int64_t a = scoped ? t0[ri] : 0, b = scoped ? t1[ri] : 0;
		if (scoped && a >= b)
			continue; /* nothing of this rank in scope */
		const tl_op_data *d = gathered(r, totals);
		rank_rows(r->rank, d != NULL ? d : &out->data[ri], scoped, a, b, totals, out, &tcap,
		          &ncap);
	}
	/* by rank, then total: the name rows move with their type rows' indexes kept */
	if (out->ntypes > 1)
		qsort(out->types, out->ntypes, sizeof *out->types, cmp_type_row);
}

void
tlq_ops(const tl_query *q, tl_ops_result *out)
{
	ops_rows(q, NULL, NULL, 0, out);
}

void
tlq_ops_scoped(const tl_query *q, const int64_t *t0, const int64_t *t1, tl_ops_result *out)
{
	ops_rows(q, t0, t1, 0, out);
}

void
tlq_op_totals(const tl_query *q, tl_ops_result *out)
{
	ops_rows(q, NULL, NULL, 1, out);
}

void
tlq_ops_free(tl_ops_result *o)
{
	free(o->types);
	free(o->names);
	for (size_t i = 0; i < o->ndata; i++)
		op_data_free(&o->data[i]);
	free(o->data);
	memset(o, 0, sizeof *o);
}

/* ---- communication ops by type (hccl_sum), from the model's communication lanes ---------- */

typedef struct comm_key {
	int rank;
	char type[64];
	int64_t *dur;
	size_t n, cap;
} comm_key;

static int
cmp_comm_row(const void *a, const void *b)
{
	const tl_comm_op_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = cmp_total_desc(&x->st, &y->st);
	return c != 0 ? c : strcmp(x->op_type, y->op_type);
}

size_t
tlq_comm_ops(const tl_query *q, tl_comm_op_row **out)
{
	const tl_trace *tr = tlq_trace(q);
	tl_comm_op_row *v = NULL;
	size_t n = 0, cap = 0;
	tl_coll_entry *ent;
	void *keep;
	size_t ne = tlq_coll_entries(tr, &ent, &keep);
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		comm_key *k = NULL;
		size_t nk = 0, kcap = 0;
		for (size_t t = 0; t < ne; t++) {
			if (ent[t].ri != ri)
				continue;
			{
				/* the collective by its normalised name (the profile's type or the
				 * call behind an NCCL Generic kernel), else the name without its
				 * trailing _N parts */
				char ty[64];
				if (ent[t].type != NULL && *ent[t].type)
					snprintf(ty, sizeof ty, "%s", ent[t].type);
				else
					coll_type_norm(ent[t].name, ty, sizeof ty);
				if (*ty == '\0')
					coll_op_type(ent[t].name, ty, sizeof ty);
				size_t x = 0;
				while (x < nk && strcmp(k[x].type, ty) != 0)
					x++;
				if (x == nk) {
					comm_key z = {.rank = r->rank};
					memcpy(z.type, ty, sizeof ty);
					VEC_PUSH(k, nk, kcap, z);
				}
				VEC_PUSH(k[x].dur, k[x].n, k[x].cap, ent[t].end - ent[t].start);
			}
		}
		for (size_t x = 0; x < nk; x++) {
			tl_comm_op_row row = {.rank = r->rank};
			memcpy(row.op_type, k[x].type, sizeof row.op_type);
			opstats_describe(k[x].dur, k[x].n, &row.st);
			free(k[x].dur);
			VEC_PUSH(v, n, cap, row);
		}
		free(k);
	}
	tlq_coll_entries_free(tr, ent, keep);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_comm_row);
	*out = v;
	return n;
}
