/* The communication analysis over a loaded trace: each rank's ops and sub-tasks are read from
 * its sources (load_comm, one thread per rank, bounded by the core count), then analysed op by
 * op (analysis/comm.c) and tagged with the step the model gave the op's lane slice. */
#include "config.h"
#include "load/load.h"
#include "query/session.h"
#include "util/satint.h"
#include "util/strpool.h"
#include "util/u64map.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct comm_job {
	const tl_trace *tr;
	tl_comm_data *data;
} comm_job;

/* r's communication data gathered while loading, NULL: none (or its tasks let go since) */
static const tl_comm_data *
gathered(const tl_rank *r)
{
	return r->comm != NULL && !r->comm->tasks_dropped ? r->comm : NULL;
}

static void
comm_rank(void *arg, size_t i)
{
	comm_job *j = arg;
	if (gathered(j->tr->ranks[i]) == NULL) /* else gathered while loading */
		load_comm(j->tr->ranks[i], &j->data[i]);
}

/* The step of each of r's communication ops, keyed by (source << 32 | opId): the step index
 * the loader gave the op's slice on the communication lane (the step of its launch). */
static void
op_steps(const tl_rank *r, tl_u64map *m)
{
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_COMM)
			continue;
		tl_step_cursor sc;
		step_cursor_init(&sc, t);
		for (size_t i = 0; i < t->n; i++) {
			uint16_t s = track_has_steps(t) ? step_cursor_at(&sc, i)
			             : r->nsteps == 1   ? 0
			                                : TL_NO_STEP;
			u64map_put(m, (uint64_t)t->source << 32 | track_arg(t, i), s);
		}
	}
}

/* coll_type_str of the names seen last, by address (the pool's strings: an op's name and type
 * repeat over a rank's ops, and the normalising walk is a tenth of a warm summary otherwise). */
typedef struct type_memo {
	const char *name[64], *type[64];
} type_memo;

static const char *
coll_type_of(type_memo *m, const char *name)
{
	size_t h = ((uintptr_t)name >> 3) % 64;
	if (m->name[h] != name) {
		m->name[h] = name;
		m->type[h] = coll_type_str(name);
	}
	return m->type[h];
}

void
tlq_comm(const tl_query *q, tl_comm_result *out)
{
	const tl_trace *tr = tlq_trace(q);
	memset(out, 0, sizeof *out);
	out->ndata = tr->nranks;
	out->data = xcalloc(tr->nranks ? tr->nranks : 1, sizeof *out->data);
	comm_job j = {.tr = tr, .data = out->data};
	parallel_for(tr->nranks, 0, comm_rank, &j); /* ranks read in parallel */

	size_t ocap = 0, bcap = 0, lcap = 0, nops = 0;
	type_memo memo = {{0}, {0}};
	for (size_t ri = 0; ri < tr->nranks; ri++)
		nops += gathered(tr->ranks[ri]) != NULL ? tr->ranks[ri]->comm->nops
		                                        : out->data[ri].nops;
	if (nops > 0) { /* one block: no doublings, each a copy into fresh pages */
		out->ops = xreallocarray(NULL, nops, sizeof *out->ops);
		ocap = nops;
	}
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		/* the rank's own (borrowed, not changed here) or the one just read */
		tl_comm_data *d = gathered(r) != NULL ? r->comm : &out->data[ri];
		tl_u64map steps;
		u64map_init(&steps);
		op_steps(r, &steps);
		for (size_t i = 0; i < d->nops; i++) {
			const tl_comm_op *o = &d->ops[i];
			/* an op without sub-tasks: tasks may be NULL, and NULL + 0 is undefined */
			const tl_comm_task *v = o->ntasks ? d->tasks + o->task0 : NULL;
			tl_comm_row row = {
			    .rank = r->rank, .start = o->start, .step = -1, .ntasks = o->ntasks};
			row.op_name = strpool_get(d->pool, o->name);
			row.op_type = strpool_get(d->pool, o->type);
			if (*row.op_type == '\0' || strcmp(row.op_type, "N/A") == 0) {
				/* a capture below Level1 says N/A: the type its name says */
				char ty[64];
				coll_op_type(row.op_name, ty, sizeof ty);
				/* a gathered table has it already (load.c) */
				uint32_t id = d == r->comm ? strpool_find(d->pool, ty, strlen(ty))
				                           : strpool_intern_cstr(d->pool, ty);
				row.op_type = id != UINT32_MAX ? strpool_get(d->pool, id) : "";
			}
			/* the collective by its normalised name; the profile's own type stays for
			 * the matrix summary's row names (msprof's) */
			row.op_raw = row.op_type;
			const char *ty = coll_type_of(&memo, row.op_raw);
			if (*ty == '\0')
				ty = coll_type_of(&memo, row.op_name);
			if (*ty != '\0')
				row.op_type = ty;
			row.group = strpool_get(d->pool, o->group);
			uint32_t s;
			if ((uint64_t)o->id <= UINT32_MAX &&
			    u64map_get(&steps, (uint64_t)o->source << 32 | (uint64_t)o->id, &s) &&
			    s < r->nsteps)
				row.step = r->steps[s].id;
			comm_time(o, v, o->ntasks, &row.t);
			row.bw0 = out->nbw;
			row.nbw = comm_bandwidth(v, o->ntasks, &out->bw, &out->nbw, &bcap);
			row.link0 = out->nlinks;
			row.nlink = comm_links(v, o->ntasks, &out->links, &out->nlinks, &lcap);
			VEC_PUSH(out->ops, out->nops, ocap, row);
		}
		u64map_free(&steps);
	}
}

void
tlq_comm_once(const tl_query *q, tl_comm_result *out)
{
	tlq_comm(q, out);
	for (size_t ri = 0; ri < q->tr->nranks; ri++)
		if (q->tr->ranks[ri]->comm != NULL)
			comm_data_drop_tasks(q->tr->ranks[ri]->comm);
}

void
tlq_comm_free(tl_comm_result *c)
{
	comm_bw_free(c->bw, c->nbw);
	free(c->bw);
	free(c->links);
	free(c->ops);
	for (size_t i = 0; i < c->ndata; i++)
		if (c->data[i].pool != NULL) /* read here, not the rank's */
			comm_data_free(&c->data[i]);
	free(c->data);
	memset(c, 0, sizeof *c);
}

/* ---- collective instances and P2P pairs, from the model's communication lanes ------------- */

/* The normalised types of a rank's gathered communication ops ("allreduce" for
 * "hcom_allReduce_", and what a Kineto trace's args or launching call say of an
 * ncclDevKernel_Generic), interned in a pool of their own; ops indexed by (source, op id) as
 * op_steps keys them. */
typedef struct op_types {
	const tl_comm_data *d;
	tl_u64map ix;   /* (source << 32 | op id) -> op index */
	tl_strpool *ty; /* the normalised types */
	uint32_t *tyid; /* per op: its type in ty */
} op_types;

/* The normalised type of op (by its type, else by its name) in o->ty. memo: the type's pool id
 * -> its normalised type, UINT32_MAX when that is empty: a rank's thousands of ops have a few
 * types, and a normalisation is a dozen strstr (names are each op's own: never memoised). */
static uint32_t
op_type_id(op_types *o, tl_u64map *memo, const tl_comm_op *op)
{
	const tl_comm_data *d = o->d;
	uint32_t id;
	char t[64];
	if (!u64map_get(memo, op->type, &id)) {
		coll_type_norm(strpool_get(d->pool, op->type), t, sizeof t);
		id = *t != '\0' ? strpool_intern_cstr(o->ty, t) : UINT32_MAX;
		u64map_put(memo, op->type, id);
	}
	if (id != UINT32_MAX)
		return id;
	coll_type_norm(strpool_get(d->pool, op->name), t, sizeof t);
	return strpool_intern_cstr(o->ty, t);
}

static void
op_types_init(op_types *o, const tl_comm_data *d)
{
	memset(o, 0, sizeof *o);
	u64map_init(&o->ix);
	if (d == NULL)
		return;
	o->d = d;
	o->ty = strpool_new();
	o->tyid = xreallocarray(NULL, d->nops ? d->nops : 1, sizeof *o->tyid);
	tl_u64map memo;
	u64map_init(&memo);
	for (size_t i = 0; i < d->nops; i++) {
		const tl_comm_op *op = &d->ops[i];
		o->tyid[i] = op_type_id(o, &memo, op);
		if ((uint64_t)op->id <= UINT32_MAX)
			u64map_put(&o->ix, (uint64_t)op->source << 32 | (uint64_t)op->id, i);
	}
	u64map_free(&memo);
}

static void
op_types_free(op_types *o)
{
	u64map_free(&o->ix);
	if (o->ty != NULL)
		strpool_free(o->ty);
	free(o->tyid);
}

static void
coll_entries(const tl_trace *tr, tl_coll_entry **v, size_t *n, op_types *ot)
{
	size_t cap = 0;
	*v = NULL;
	*n = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		op_types *o = &ot[ri];
		op_types_init(o, r->comm);
		for (size_t k = 0; k < r->ntracks; k++) {
			const tl_track *t = r->tracks[k];
			if (t->kind != TL_LANE_COMM)
				continue;
			const char *group = strpool_get(r->pool, t->label);
			tl_step_cursor sc;
			step_cursor_init(&sc, t);
			for (size_t i = 0; i < t->n; i++) {
				uint16_t s = track_has_steps(t) ? step_cursor_at(&sc, i)
				             : r->nsteps == 1   ? 0
				                                : TL_NO_STEP;
				tl_coll_entry e = {.rank = r->rank,
				                   .ri = ri,
				                   .group = group,
				                   .name = strpool_get(r->pool, t->v[i].name),
				                   .step = s < r->nsteps ? r->steps[s].id : -1,
				                   .start = t->v[i].start,
				                   .end = track_end(t, i)};
				uint32_t x;
				if (o->d != NULL &&
				    u64map_get(&o->ix, (uint64_t)t->source << 32 | track_arg(t, i),
				               &x) &&
				    x < o->d->nops) {
					/* the op's own type and group (a process group's name
					 * where the trace gives one: streams differ between
					 * ranks) */
					const tl_comm_op *op = &o->d->ops[x];
					e.type = strpool_get(o->ty, o->tyid[x]);
					const char *g = strpool_get(o->d->pool, op->group);
					if (*g)
						e.group = g;
				}
				VEC_PUSH(*v, *n, cap, e);
			}
		}
	}
}

size_t
tlq_coll_entries(const tl_trace *tr, tl_coll_entry **v, void **keep)
{
	size_t n;
	op_types *ot = xcalloc(tr->nranks ? tr->nranks : 1, sizeof *ot);
	coll_entries(tr, v, &n, ot);
	*keep = ot;
	return n;
}

void
tlq_coll_entries_free(const tl_trace *tr, tl_coll_entry *v, void *keep)
{
	op_types *ot = keep;
	for (size_t i = 0; i < tr->nranks; i++)
		op_types_free(&ot[i]);
	free(ot);
	free(v);
}

void
tlq_collectives(const tl_query *q, tl_coll_result *out)
{
	const tl_trace *tr = tlq_trace(q);
	memset(out, 0, sizeof *out);
	tl_coll_entry *v;
	void *keep;
	size_t n = tlq_coll_entries(tr, &v, &keep);
	out->n = coll_match(v, n, &out->v); /* copies the types it keeps */
	tlq_coll_entries_free(tr, v, keep);
	/* P2P: the pairs the pipeline view draws, with who waited for whom */
	tl_pp_link *l;
	size_t nl = pipeline_p2p_pairs(tr, &l);
	out->p2p = xcalloc(nl ? nl : 1, sizeof *out->p2p);
	out->np2p = nl;
	for (size_t i = 0; i < nl; i++) {
		const tl_rank *src = tr->ranks[l[i].from_rank];
		uint16_t si = rank_step_at(src, l[i].send_start);
		tl_p2p_pair *p = &out->p2p[i];
		*p = (tl_p2p_pair){.step = si != TL_NO_STEP ? src->steps[si].id : -1,
		                   .src_rank = src->rank,
		                   .dst_rank = tr->ranks[l[i].to_rank]->rank,
		                   .send_start = l[i].send_start,
		                   .send_end = l[i].send_end,
		                   .recv_start = l[i].recv_start,
		                   .recv_end = l[i].recv_end};
		p->send_wait = p->recv_start > p->send_start ? p->recv_start - p->send_start : 0;
		p->recv_wait = p->send_start > p->recv_start ? p->send_start - p->recv_start : 0;
	}
	free(l);
}

void
tlq_collectives_free(tl_coll_result *c)
{
	coll_free(c->v, c->n);
	free(c->p2p);
	memset(c, 0, sizeof *c);
}

/* ---- the matrix's summary rows (msprof's -top1 ... -total) -------------------------------- */

typedef struct mx_ent {
	const tl_comm_row *op;
	const tl_comm_link *l;
	char type[48];
} mx_ent;

static int
cmp_mx_ent(const void *a, const void *b)
{
	const mx_ent *x = a, *y = b;
	if (x->op->rank != y->op->rank)
		return x->op->rank < y->op->rank ? -1 : 1;
	int c = strcmp(x->op->group, y->op->group);
	if (c != 0)
		return c;
	if (x->op->step != y->op->step)
		return x->op->step < y->op->step ? -1 : 1;
	if ((c = strcmp(x->type, y->type)) != 0)
		return c;
	if (x->l->src != y->l->src)
		return x->l->src < y->l->src ? -1 : 1;
	if (x->l->dst != y->l->dst)
		return x->l->dst < y->l->dst ? -1 : 1;
	return (x->op->start > y->op->start) - (x->op->start < y->op->start);
}

static int
cmp_mx_row(const void *a, const void *b)
{
	const tl_mx_row *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	int c = strcmp(x->group, y->group);
	if (c != 0)
		return c;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if ((c = strcmp(x->name, y->name)) != 0)
		return c;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

size_t
tlq_comm_matrix_summary(const tl_comm_result *c, tl_mx_row **out)
{
	mx_ent *e = NULL;
	size_t ne = 0, ecap = 0;
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		char ty[64];
		if (*o->op_raw && strcmp(o->op_raw, "N/A") != 0)
			snprintf(ty, sizeof ty, "%s", o->op_raw);
		else
			coll_op_type(o->op_name, ty, sizeof ty);
		for (size_t k = o->link0; k < o->link0 + o->nlink; k++) {
			mx_ent x = {.op = o, .l = &c->links[k]};
			comm_matrix_type(ty, x.type, sizeof x.type);
			VEC_PUSH(e, ne, ecap, x);
		}
	}
	if (ne > 1)
		qsort(e, ne, sizeof *e, cmp_mx_ent);
	tl_mx_row *v = NULL;
	size_t n = 0, cap = 0;
	const tl_comm_link **run = NULL;
	size_t rcap = 0;
	for (size_t i = 0; i < ne;) {
		size_t j = i + 1;
		while (j < ne && e[j].op->rank == e[i].op->rank && e[j].op->step == e[i].op->step &&
		       e[j].l->src == e[i].l->src && e[j].l->dst == e[i].l->dst &&
		       strcmp(e[j].op->group, e[i].op->group) == 0 &&
		       strcmp(e[j].type, e[i].type) == 0)
			j++;
		size_t m = j - i;
		VEC_RESERVE(run, rcap, m);
		for (size_t k = 0; k < m; k++)
			run[k] = e[i + k].l;
		size_t pick[TL_MX__PICKS];
		comm_matrix_picks(run, m, pick);
		tl_mx_row base = {.rank = e[i].op->rank,
		                  .group = e[i].op->group,
		                  .step = e[i].op->step,
		                  .src = e[i].l->src,
		                  .dst = e[i].l->dst};
		for (int k = 0; k <= TL_MX__PICKS; k++) {
			tl_mx_row r = base;
			const char *what = k < TL_MX__PICKS ? tl_mx_pick_name[k] : "total";
			snprintf(r.name, sizeof r.name, "%s-%s", e[i].type, what);
			if (k < TL_MX__PICKS) {
				if (pick[k] == SIZE_MAX)
					continue;
				const mx_ent *p = &e[i + pick[k]];
				r.op_name = p->op->op_name;
				r.xport = p->l->src == p->l->dst ? TL_XPORT_LOCAL : p->l->xport;
				r.size = p->l->size;
				r.time = p->l->time;
			} else {
				r.op_name = "";
				r.xport =
				    e[i].l->src == e[i].l->dst ? TL_XPORT_LOCAL : e[i].l->xport;
				for (size_t q = i; q < j; q++) {
					r.size += e[q].l->size;
					r.time = sat_add(r.time, e[q].l->time);
				}
			}
			r.gbps = r.time > 0 ? (double)r.size / (double)r.time : 0.0;
			VEC_PUSH(v, n, cap, r);
		}
		i = j;
	}
	free(run);
	free(e);
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_mx_row);
	*out = v;
	return n;
}
