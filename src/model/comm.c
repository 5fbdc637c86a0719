#include "config.h"
#include "model/comm.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
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

void
comm_data_drop_tasks(tl_comm_data *d)
{
	if (d->borrowed)
		return;
	free(d->tasks);
	d->tasks = NULL;
	d->ntasks = d->taskcap = 0;
	d->tasks_dropped = 1;
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

/* ---- the names of collectives ------------------------------------------------------------- */

void
coll_op_type(const char *name, char *out, size_t len)
{
	size_t n = strlen(name);
	for (;;) {
		size_t k = n;
		while (k > 0 && isdigit((unsigned char)name[k - 1]))
			k--;
		if (k == n || k == 0 || name[k - 1] != '_')
			break;
		n = k - 1; /* drop "_<digits>" */
	}
	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(out, name, n);
	out[n] = '\0';
}

const char *
coll_type_str(const char *name)
{
	/* lower case, without separators and digits, after a library's prefix */
	char k[160];
	size_t n = 0;
	const char *s = name;
	if (strncmp(s, "nccl:", 5) == 0 || strncmp(s, "gloo:", 5) == 0)
		s += 5;
	else if (strncmp(s, "c10d::", 6) == 0)
		s += 6;
	for (; *s && *s != '(' && n + 1 < sizeof k; s++)
		if (isalpha((unsigned char)*s))
			k[n++] = (char)tolower((unsigned char)*s);
	k[n] = '\0';
	static const struct {
		const char *key, *type;
	} words[] = {
	    /* the longer words first: "reducescatter" before "reduce" and "scatter" */
	    {"alltoall", "all_to_all"},
	    {"allreduce", "allreduce"},
	    {"allgather", "allgather"},
	    {"reducescatter", "reduce_scatter"},
	    {"broadcast", "broadcast"},
	    {"barrier", "barrier"},
	    {"batchsendrecv", "sendrecv"},
	    {"sendrecv", "sendrecv"},
	    {"send", "send"},
	    {"receive", "recv"},
	    {"recv", "recv"},
	    {"reduce", "reduce"},
	    {"gather", "gather"},
	    {"scatter", "scatter"},
	};
	const char *ty = "";
	size_t at = SIZE_MAX;
	/* the word that comes first ("ncclKernel_AllReduce_..._Sum" is an allreduce; the
	 * lists order ties) */
	for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
		const char *p = strstr(k, words[i].key);
		if (p != NULL && (size_t)(p - k) < at) {
			at = (size_t)(p - k);
			ty = words[i].type;
		}
	}
	return ty;
}

void
coll_type_norm(const char *name, char *out, size_t len)
{
	if (len > 0)
		snprintf(out, len, "%s", coll_type_str(name));
}
