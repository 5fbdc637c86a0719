/* Communication ops and their HCCL sub-tasks from a trace_view.json, for the communication
 * analysis: msprof's HCCL process draws each group's ops on a "Group N Communication" thread and
 * their sub-tasks on "Plane N" threads, which the loader kept as communication and
 * communication-task lanes. A sub-task belongs to the op whose span holds its start; its args
 * (src rank, dst rank, size(Byte), transport type, link type) are read again from the file,
 * for the transfers only, in one pass per indexed block. */
#include "config.h"
#include "load/load_int.h"
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

void
trace_json_comm(const tl_rank *r, size_t si, tl_comm_data *d, size_t **owner, size_t *ocap)
{
	if (r->sources[si]->kind != TL_SRC_TRACE_VIEW && r->sources[si]->kind != TL_SRC_MSPROF_ITER)
		return; /* Kineto traces have no HCCL sub-tasks */
	uint16_t source = (uint16_t)si;
	size_t first = d->nops;
	for (size_t k = 0; k < r->ntracks; k++) {
		const tl_track *t = r->tracks[k];
		if (t->kind != TL_LANE_COMM || t->source != source)
			continue;
		uint32_t group = strpool_intern_cstr(d->pool, strpool_get(r->pool, t->label));
		for (size_t i = 0; i < t->n; i++) {
			const char *name = strpool_get(r->pool, t->v[i].name);
			tl_comm_op o = {.id = t->v[i].arg,
			                .start = t->v[i].start,
			                .end = t->v[i].end,
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
			                  .end = t->v[i].end,
			                  .plane = plane,
			                  .src = -1,
			                  .dst = -1,
			                  .xport = TL_XPORT_LOCAL};
			x.kind = task_kind(strpool_get(r->pool, t->v[i].name));
			if (x.kind == TL_CTASK_TRANSFER) {
				want q = {t->v[i].arg, d->ntasks};
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
