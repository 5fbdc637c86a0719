/* Communication ops and their HCCL sub-tasks from a trace_view.json, for the communication
 * analysis: msprof's HCCL process draws each group's ops on a "Group N Communication" thread and
 * their sub-tasks on "Plane N" threads, which the loader kept as communication and
 * communication-task lanes. A sub-task belongs to the op whose span holds its start; its args
 * (src rank, dst rank, size(Byte), transport type, link type) are read again from the file,
 * for the transfers only, in one pass per indexed block. */
#include "config.h"
#include "model/comm.h"
#include "load/load_int.h"
#include "load/json/trace_json_int.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID_U32 4294967295LL /* "none" in msprof's rank fields */

/* The op type of an op name: without trailing "_<digits>" parts (as COMMUNICATION_OP.opType
 * names it in a DB: "hcom_allReduce__586_0_1" -> "hcom_allReduce_"). */
static uint32_t
op_type(tl_strpool *pool, const char *name)
{
	size_t n = strlen(name);
	for (;;) {
		size_t k = n;
		while (k > 0 && isdigit((unsigned char)name[k - 1]))
			k--;
		if (k == n || k == 0 || name[k - 1] != '_')
			break;
		n = k - 1;
	}
	return strpool_intern(pool, name, n);
}

static uint8_t
task_kind(const char *t)
{
	if (strcmp(t, "Notify_Wait") == 0)
		return TL_CTASK_WAIT;
	if (strcmp(t, "Memcpy") == 0 || strcmp(t, "Reduce_Inline") == 0 ||
	    strcmp(t, "Reduce_TBE") == 0 || strcmp(t, "RDMASend") == 0 ||
	    strcmp(t, "RDMA_SEND") == 0)
		return TL_CTASK_TRANSFER;
	return TL_CTASK_OTHER;
}

typedef struct args_fill {
	tl_comm_data *d;
	const size_t *task; /* per requested event: its index in d->tasks */
	char (*link)[16];   /* per requested event: link type name */
	char (*xport)[16];  /* per requested event: transport type name */
} args_fill;

static int64_t
rank_of(const char *v)
{
	char *e;
	long long x = strtoll(v, &e, 10);
	return e == v || *e != '\0' || x < 0 || x >= INVALID_U32 ? -1 : (int64_t)x;
}

static void
on_arg(void *ctx, size_t i, const char *key, const char *value)
{
	args_fill *a = ctx;
	tl_comm_task *t = &a->d->tasks[a->task[i]];
	if (strcmp(key, "src rank") == 0)
		t->src = rank_of(value);
	else if (strcmp(key, "dst rank") == 0)
		t->dst = rank_of(value);
	else if (strcmp(key, "size(Byte)") == 0) {
		long long x = strtoll(value, NULL, 10);
		t->size = x > 0 ? (uint64_t)x : 0;
	} else if (strcmp(key, "link type") == 0)
		snprintf(a->link[i], sizeof a->link[i], "%s", value);
	else if (strcmp(key, "transport type") == 0)
		snprintf(a->xport[i], sizeof a->xport[i], "%s", value);
}

static uint8_t
xport_of(const tl_comm_task *t, const char *xport, const char *link)
{
	if (t->dst < 0 || t->dst == t->src)
		return TL_XPORT_LOCAL;
	if (strcmp(xport, "RDMA") == 0)
		return TL_XPORT_RDMA;
	if (strcmp(link, "HCCS") == 0 || strcmp(link, "HCCS_SW") == 0)
		return TL_XPORT_HCCS;
	if (strcmp(link, "PCIE") == 0)
		return TL_XPORT_PCIE;
	if (strcmp(link, "SIO") == 0)
		return TL_XPORT_SIO;
	if (strcmp(link, "ROCE") == 0 || strcmp(link, "STANDARD_ROCE") == 0)
		return TL_XPORT_RDMA;
	return TL_XPORT_SDMA;
}

typedef struct want {
	uint64_t ordinal;
	size_t task;
} want;

static int
cmp_want(const void *a, const void *b)
{
	const want *x = a, *y = b;
	return (x->ordinal > y->ordinal) - (x->ordinal < y->ordinal);
}

typedef struct op_span {
	int64_t start, end;
	size_t op; /* index into d->ops */
} op_span;

static int
cmp_span(const void *a, const void *b)
{
	const op_span *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* The op whose span holds t (the latest starting one), or SIZE_MAX. */
static size_t
op_at(const op_span *v, size_t n, int64_t t)
{
	size_t lo = 0, hi = n; /* first op starting after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k-- > 0 && k + 8 >= lo;) /* ops of a lane do not nest deeply */
		if (t <= v[k].end)
			return v[k].op;
	return SIZE_MAX;
}

/* ---- Kineto: each collective kernel as an op of its real type --------------------------------
 * NCCL 2.19+ names every collective kernel ncclDevKernel_Generic; the type is in the kernel's
 * args ("Collective name", with "Process Group Name") as torch 2.2+ writes them, else in the
 * call that launched it: the record_param_comms operator (its "Collective name") or the
 * nccl:* / c10d:: range around the launch (torch before 2.2: nccl:all_to_all around its
 * ncclKernel_SendRecv kernels), else in the kernel's own name (ncclKernel_AllReduce_...). */

typedef struct kin_op {
	const tl_track *t;
	size_t i;
	char type[32];
	char group[64];
	uint64_t rpc; /* the ordinal of the record_param_comms that launched it, or UINT64_MAX */
} kin_op;

typedef struct kin_args {
	kin_op *ops;
	const size_t *which; /* per requested ordinal: the op */
} kin_args;

static void
on_kernel_arg(void *ctx, size_t i, const char *key, const char *value)
{
	kin_args *a = ctx;
	kin_op *o = &a->ops[a->which[i]];
	if (strcmp(key, "Collective name") == 0 && o->type[0] == '\0')
		coll_type_norm(value, o->type, sizeof o->type);
	else if (strcmp(key, "Process Group Name") == 0 && *value)
		snprintf(o->group, sizeof o->group, "process group %s", value);
}

typedef struct kin_sort {
	uint64_t ord;
	size_t op;
} kin_sort;

static int
cmp_kin_sort(const void *a, const void *b)
{
	const kin_sort *x = a, *y = b;
	if (x->ord != y->ord)
		return x->ord < y->ord ? -1 : 1;
	return (x->op > y->op) - (x->op < y->op);
}

/* Reads the args of the events v[k].ord (any order, repeats allowed) into ops. */
static void
kin_read_args(const tl_rank *r, size_t si, kin_sort *v, size_t n, kin_op *ops)
{
	if (n == 0)
		return;
	qsort(v, n, sizeof *v, cmp_kin_sort);
	uint64_t *ord = xmalloc(n * sizeof *ord);
	size_t *which = xmalloc(n * sizeof *which);
	size_t m = 0;
	/* one request per ordinal; the ops sharing it get the answer after */
	for (size_t k = 0; k < n; k++)
		if (m == 0 || ord[m - 1] != v[k].ord) {
			ord[m] = v[k].ord;
			which[m++] = v[k].op;
		}
	kin_args a = {ops, which};
	trace_json_events_args(r, si, ord, m, on_kernel_arg, &a);
	for (size_t k = 0, j = 0; k < n; k++) {
		while (j + 1 < m && ord[j] < v[k].ord)
			j++;
		kin_op *from = &ops[which[j]], *to = &ops[v[k].op];
		if (to != from && to->type[0] == '\0')
			memcpy(to->type, from->type, sizeof to->type);
		if (to != from && to->group[0] == '\0')
			memcpy(to->group, from->group, sizeof to->group);
	}
	free(ord);
	free(which);
}

/* The launch call of device slice (t, i): the host lane key and time of its flow's start. */
static int
kin_launch(const json_state *st, const tl_track *t, size_t i, int64_t *key, int64_t *ts)
{
	if (st == NULL || st->by_dev == NULL)
		return 0;
	const tl_slice *s = &t->v[i];
	int64_t end = slice_end(t, s);
	size_t lo = 0, hi = st->nlinks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const json_link *l = &st->by_dev[mid];
		if (l->f_key < t->key || (l->f_key == t->key && l->f_ts < s->start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < st->nlinks && st->by_dev[lo].f_key == t->key &&
	       st->by_dev[lo].f_ts <= (end > s->start ? end - 1 : s->start);
	     lo++)
		if (st->by_dev[lo].cat != FLOW_ASYNC_NPU) {
			*key = st->by_dev[lo].s_key;
			*ts = st->by_dev[lo].s_ts;
			return 1;
		}
	return 0;
}

/* What the calls around a launch at (key, ts) say: a nccl:* / c10d:: range's name gives the
 * type; a record_param_comms operator gives its ordinal (its args say the type). */
static void
kin_launcher(const tl_rank *r, size_t si, int64_t key, int64_t ts, kin_op *o)
{
	int64_t best = INT64_MAX;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *x = r->tracks[k];
		if (x->source != si || !((x->kind == TL_LANE_HOST && x->key == key) ||
		                         x->kind == TL_LANE_MSTX || x->kind == TL_LANE_COMM))
			continue;
		size_t j = track_first_ending_after(x, ts);
		if (j >= x->n || x->v[j].start > ts)
			continue;
		const tl_slice *s = &x->v[j];
		const char *nm = strpool_get(r->pool, s->name);
		if (strcmp(nm, "record_param_comms") == 0) {
			if (track_arg(x, j) != UINT32_MAX)
				o->rpc = track_arg(x, j);
			continue;
		}
		if (strncmp(nm, "nccl:", 5) && strncmp(nm, "c10d::", 6) && strncmp(nm, "gloo:", 5))
			continue;
		char ty[32];
		coll_type_norm(nm, ty, sizeof ty);
		if (*ty && slice_dur(x, s) < best) { /* the innermost */
			best = slice_dur(x, s);
			memcpy(o->type, ty, sizeof o->type);
		}
	}
}

static void
kineto_comm(const tl_rank *r, size_t si, tl_comm_data *d)
{
	uint16_t source = (uint16_t)si;
	const json_state *st = rank_source_state(r, si);
	kin_op *ops = NULL;
	size_t n = 0, cap = 0;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_COMM || t->source != source)
			continue;
		for (size_t i = 0; i < t->n; i++) {
			kin_op o = {.t = t, .i = i, .rpc = UINT64_MAX};
			VEC_PUSH(ops, n, cap, o);
		}
	}
	if (n == 0)
		return;
	kin_sort *v = xmalloc(n * sizeof *v);
	size_t nv = 0;
	if (st != NULL) { /* the kernels' own args */
		for (size_t k = 0; k < n; k++)
			if (track_arg(ops[k].t, ops[k].i) != UINT32_MAX)
				v[nv++] = (kin_sort){track_arg(ops[k].t, ops[k].i), k};
		kin_read_args(r, si, v, nv, ops);
	}
	nv = 0;
	for (size_t k = 0; k < n; k++) { /* else the call that launched them */
		int64_t key, ts;
		if (ops[k].type[0] == '\0' && kin_launch(st, ops[k].t, ops[k].i, &key, &ts)) {
			kin_launcher(r, si, key, ts, &ops[k]);
			if (ops[k].type[0] == '\0' && ops[k].rpc != UINT64_MAX)
				v[nv++] = (kin_sort){ops[k].rpc, k};
		}
	}
	if (st != NULL)
		kin_read_args(r, si, v, nv, ops);
	free(v);
	for (size_t k = 0; k < n; k++) {
		const tl_track *t = ops[k].t;
		size_t i = ops[k].i;
		const char *name = strpool_get(r->pool, t->v[i].name);
		if (ops[k].type[0] == '\0') /* else its own name */
			coll_type_norm(name, ops[k].type, sizeof ops[k].type);
		tl_comm_op o = {.id = track_arg(t, i),
		                .start = t->v[i].start,
		                .end = track_end(t, i),
		                .source = source};
		o.name = strpool_intern_cstr(d->pool, name);
		o.type = strpool_intern_cstr(d->pool, ops[k].type);
		o.group = ops[k].group[0]
		              ? strpool_intern_cstr(d->pool, ops[k].group)
		              : strpool_intern_cstr(d->pool, strpool_get(r->pool, ops[k].t->label));
		VEC_PUSH(d->ops, d->nops, d->opcap, o);
	}
	free(ops);
}

void
trace_json_comm(const tl_rank *r, size_t si, tl_comm_data *d, size_t **owner, size_t *ocap)
{
	if (source_has(r->sources[si], TL_FMT_GPU)) {
		kineto_comm(r, si, d); /* no HCCL sub-tasks */
		return;
	}
	if (!source_has(r->sources[si], TL_FMT_HCCL_GROUPS))
		return;
	uint16_t source = (uint16_t)si;
	size_t first = d->nops;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_COMM || t->source != source)
			continue;
		uint32_t group = strpool_intern_cstr(d->pool, strpool_get(r->pool, t->label));
		for (size_t i = 0; i < t->n; i++) {
			const char *name = strpool_get(r->pool, t->v[i].name);
			tl_comm_op o = {.id = track_arg(t, i),
			                .start = t->v[i].start,
			                .end = track_end(t, i),
			                .group = group,
			                .source = source};
			o.name = strpool_intern_cstr(d->pool, name);
			o.type = op_type(d->pool, name);
			VEC_PUSH(d->ops, d->nops, d->opcap, o);
		}
	}
	size_t nops = d->nops - first;
	if (nops == 0)
		return;
	op_span *by_start = xmalloc(nops * sizeof *by_start);
	for (size_t i = 0; i < nops; i++)
		by_start[i] = (op_span){d->ops[first + i].start, d->ops[first + i].end, first + i};
	qsort(by_start, nops, sizeof *by_start, cmp_span);

	want *w = NULL;
	size_t nw = 0, wcap = 0;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		const char *label = strpool_get(r->pool, t->label);
		if (t->kind != TL_LANE_COMM_TASK || t->source != source ||
		    strncmp(label, "Plane", 5))
			continue;
		char *e;
		long plane = strtol(label + 5, &e, 10);
		if (e == label + 5 || plane < 0)
			continue;
		for (size_t i = 0; i < t->n; i++) {
			size_t op = op_at(by_start, nops, t->v[i].start);
			if (op == SIZE_MAX)
				continue;
			tl_comm_task x = {.start = t->v[i].start,
			                  .end = track_end(t, i),
			                  .plane = plane,
			                  .src = -1,
			                  .dst = -1,
			                  .xport = TL_XPORT_LOCAL};
			x.kind = task_kind(strpool_get(r->pool, t->v[i].name));
			if (x.kind == TL_CTASK_TRANSFER) {
				want q = {track_arg(t, i), d->ntasks};
				VEC_PUSH(w, nw, wcap, q);
			}
			VEC_RESERVE(*owner, *ocap, d->ntasks + 1);
			(*owner)[d->ntasks] = op;
			VEC_PUSH(d->tasks, d->ntasks, d->taskcap, x);
		}
	}
	free(by_start);
	if (nw > 0 && rank_source_state(r, source) != NULL) { /* the JSON index */
		qsort(w, nw, sizeof *w, cmp_want);
		uint64_t *ord = xmalloc(nw * sizeof *ord);
		size_t *task = xmalloc(nw * sizeof *task);
		args_fill a = {d, task, xcalloc(nw, sizeof *a.link), xcalloc(nw, sizeof *a.xport)};
		for (size_t i = 0; i < nw; i++) {
			ord[i] = w[i].ordinal;
			task[i] = w[i].task;
		}
		trace_json_events_args(r, source, ord, nw, on_arg, &a);
		for (size_t i = 0; i < nw; i++) {
			tl_comm_task *t = &d->tasks[task[i]];
			t->xport = xport_of(t, a.xport[i], a.link[i]);
		}
		free(a.link);
		free(a.xport);
		free(ord);
		free(task);
	}
	free(w);
}
