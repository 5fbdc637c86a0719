#include "config.h"
#include "model/comm.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

const char *const tl_xport_name[TL_XPORT__COUNT] = {"HCCS", "PCIE", "RDMA", "SIO", "SDMA", "LOCAL"};

void
comm_data_init(tl_comm_data *d)
{
	memset(d, 0, sizeof *d);
	d->pool = strpool_new();
}

void
comm_data_free(tl_comm_data *d)
{
	strpool_free(d->pool);
	free(d->ops);
	if (!d->borrowed)
		free(d->tasks);
	memset(d, 0, sizeof *d);
}

typedef struct owned_task {
	size_t owner;
	tl_comm_task t;
} owned_task;

static int
cmp_owned(const void *a, const void *b)
{
	const owned_task *x = a, *y = b;
	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	if (x->t.start != y->t.start)
		return x->t.start < y->t.start ? -1 : 1;
	return (x->t.end > y->t.end) - (x->t.end < y->t.end);
}

static int
cmp_op(const void *a, const void *b)
{
	const tl_comm_op *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

void
comm_data_finish(tl_comm_data *d, const size_t *owner)
{
	owned_task *v = d->ntasks ? xreallocarray(NULL, d->ntasks, sizeof *v) : NULL;
	for (size_t i = 0; i < d->ntasks; i++) {
		v[i].owner = owner[i];
		v[i].t = d->tasks[i];
	}
	if (d->ntasks > 1)
		qsort(v, d->ntasks, sizeof *v, cmp_owned);
	for (size_t i = 0; i < d->nops; i++)
		d->ops[i].task0 = d->ops[i].ntasks = 0;
	for (size_t i = 0; i < d->ntasks; i++) {
		d->tasks[i] = v[i].t;
		tl_comm_op *o = &d->ops[v[i].owner];
		if (o->ntasks++ == 0)
			o->task0 = i;
	}
	free(v);
	if (d->nops > 1)
		qsort(d->ops, d->nops, sizeof *d->ops, cmp_op);
}
