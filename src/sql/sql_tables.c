/* The tables of tl query, each over the query the same numbers of `tl summary` come from:
 * steps (tlq_rank_steps), stages (tlq_stages), comm_ops and links (tlq_comm), ops (tlq_ops'
 * tasks), bubbles (tlq_bubbles), counters (tlq_rank_counters); the slices in sql_slices.c.
 * Column 0 of every table is the rank number, which the virtual-table module pushes down. */
#include "config.h"
#include "load/load.h"
#include "query/memory.h"
#include "sql/sql_int.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static void
result_text(sqlite3_context *ctx, const char *s)
{
	if (s != NULL)
		sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
}

static const tl_rank *
cur_rank(const sql_cur *c)
{
	return tlq_trace(c->x->q)->ranks[c->ri];
}

/* Per rank index, the first row of each rank in rows sorted by rank (rank_of(i) gives row i's
 * rank index), then the end: n + 1 entries. */
static size_t *
rank_offsets(size_t nranks, size_t nrows, size_t (*rank_of)(const void *, size_t), const void *v)
{
	size_t *o = xcalloc(nranks + 1, sizeof *o);
	size_t i = 0;
	for (size_t ri = 0; ri < nranks; ri++) {
		o[ri] = i;
		while (i < nrows && rank_of(v, i) == ri)
			i++;
	}
	o[nranks] = nrows;
	return o;
}

/* ---- comm_ops, links, steps (the communication analysis) ------------------------------------ */

static size_t
comm_rank_of(const void *v, size_t i)
{
	const sql_ctx *x = v;
	/* ops are by rank number, in the trace's rank order: find the index of the rank number */
	const tl_trace *tr = tlq_trace(x->q);
	int rank = x->cm.ops[i].rank;
	size_t lo = 0, hi = tr->nranks;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tr->ranks[mid]->rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
comm_prepare(sql_ctx *x)
{
	if (x->have_comm)
		return;
	tlq_comm(x->q, &x->cm);
	tlq_collectives(x->q, &x->cr);
	size_t nr = tlq_trace(x->q)->nranks;
	x->comm0 = rank_offsets(nr, x->cm.nops, comm_rank_of, x);
	/* the links of rank ri: from its first op's first link to the next rank's */
	x->link0 = xcalloc(nr + 1, sizeof *x->link0);
	for (size_t ri = 0; ri <= nr; ri++)
		x->link0[ri] =
		    x->comm0[ri] < x->cm.nops ? x->cm.ops[x->comm0[ri]].link0 : x->cm.nlinks;
	x->have_comm = 1;
}

static size_t
comm_count(sql_ctx *x, size_t ri)
{
	return x->comm0[ri + 1] - x->comm0[ri];
}

static const sql_col comm_cols[] = {
    {"rank", "INTEGER", "the rank number"},
    {"step", "INTEGER", "the step (ProfilerStep id) of the op's launch, -1 for none"},
    {"op_name", "TEXT", "the op as the profile names it: hcom_allReduce__210_0_1"},
    {"op_type", "TEXT", "hcom_allReduce_, ... (from the name where the profile has none)"},
    {"grp", "TEXT", "the communication group"},
    {"start_ns", "INTEGER", "start, ns"},
    {"end_ns", "INTEGER", "end, ns"},
    {"elapse_ns", "INTEGER", "end_ns - start_ns"},
    {"transit_ns", "INTEGER", "moving data (the sub-tasks that transfer)"},
    {"wait_ns", "INTEGER", "waiting for peers (Notify_Wait)"},
    {"sync_ns", "INTEGER", "the part of wait before the first transfer: waiting for a late rank"},
    {"idle_ns", "INTEGER", "elapse - transit - wait: launch and scheduling"},
    {"bytes", "INTEGER", "bytes its transfers moved"},
    {"tasks", "INTEGER", "its HCCL sub-tasks read"},
};

static void
comm_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	const tl_comm_row *o = &c->x->cm.ops[c->x->comm0[c->ri] + c->k];
	switch (col) {
	case 0:
		sqlite3_result_int(ctx, o->rank);
		break;
	case 1:
		sqlite3_result_int64(ctx, o->step);
		break;
	case 2:
		result_text(ctx, o->op_name);
		break;
	case 3:
		result_text(ctx, o->op_type);
		break;
	case 4:
		result_text(ctx, o->group);
		break;
	case 5:
		sqlite3_result_int64(ctx, o->start);
		break;
	case 6:
		sqlite3_result_int64(ctx, o->start + o->t.elapse);
		break;
	case 7:
		sqlite3_result_int64(ctx, o->t.elapse);
		break;
	case 8:
		sqlite3_result_int64(ctx, o->t.transit);
		break;
	case 9:
		sqlite3_result_int64(ctx, o->t.wait);
		break;
	case 10:
		sqlite3_result_int64(ctx, o->t.sync);
		break;
	case 11:
		sqlite3_result_int64(ctx, o->t.idle);
		break;
	case 12: {
		uint64_t b = 0;
		for (size_t i = 0; i < o->nlink; i++)
			b += c->x->cm.links[o->link0 + i].size;
		sqlite3_result_int64(ctx, (sqlite3_int64)b);
		break;
	}
	case 13:
		sqlite3_result_int64(ctx, (sqlite3_int64)o->ntasks);
		break;
	}
}

static size_t
link_count(sql_ctx *x, size_t ri)
{
	return x->link0[ri + 1] - x->link0[ri];
}

static const sql_col link_cols[] = {
    {"rank", "INTEGER", "the rank number whose op it is"},
    {"step", "INTEGER", "the op's step, -1 for none"},
    {"op_name", "TEXT", "the op"},
    {"grp", "TEXT", "the op's communication group"},
    {"src_rank", "INTEGER", "the source rank of the transfers"},
    {"dst_rank", "INTEGER", "the destination rank (= src_rank: on the rank itself)"},
    {"transport", "TEXT", "HCCS, PCIE, RDMA, SIO, SDMA or LOCAL"},
    {"bytes", "INTEGER", "bytes moved between the pair by the op"},
    {"time_ns", "INTEGER", "the transfers' summed time"},
    {"gbps", "REAL", "bytes / time_ns (GB/s), 0 when time_ns is 0"},
};

static void
link_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	const sql_ctx *x = c->x;
	size_t li = x->link0[c->ri] + c->k;
	/* its op: the last op of the rank whose first link is at or before li */
	size_t lo = x->comm0[c->ri], hi = x->comm0[c->ri + 1];
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->cm.ops[mid].link0 <= li)
			lo = mid;
		else
			hi = mid;
	}
	const tl_comm_row *o = &x->cm.ops[lo];
	const tl_comm_link *l = &x->cm.links[li];
	switch (col) {
	case 0:
		sqlite3_result_int(ctx, o->rank);
		break;
	case 1:
		sqlite3_result_int64(ctx, o->step);
		break;
	case 2:
		result_text(ctx, o->op_name);
		break;
	case 3:
		result_text(ctx, o->group);
		break;
	case 4:
		sqlite3_result_int64(ctx, l->src);
		break;
	case 5:
		sqlite3_result_int64(ctx, l->dst);
		break;
	case 6:
		result_text(ctx, l->xport < TL_XPORT__COUNT ? tl_xport_name[l->xport] : NULL);
		break;
	case 7:
		sqlite3_result_int64(ctx, (sqlite3_int64)l->size);
		break;
	case 8:
		sqlite3_result_int64(ctx, l->time);
		break;
	case 9:
		sqlite3_result_double(ctx, l->gbps);
		break;
	}
}

static void
steps_prepare(sql_ctx *x)
{
	if (x->have_steps)
		return;
	comm_prepare(x);
	x->rs = tlq_rank_steps(x->q, &x->cr, &x->cm);
	x->have_steps = 1;
}

static size_t
steps_count(sql_ctx *x, size_t ri)
{
	return x->rs[ri].n;
}

static const sql_col steps_cols[] = {
    {"rank", "INTEGER", "the rank number"},
    {"step", "INTEGER", "the ProfilerStep id; -1: the whole capture of a profile without steps"},
    {"start_ns", "INTEGER", "the step's host range (STEP_TIME), 0 without steps"},
    {"end_ns", "INTEGER", "its end, 0 without steps"},
    {"computing_ns", "INTEGER", "union of the compute kernels (torch_npu's StepTraceTime)"},
    {"communication_ns", "INTEGER", "union of the communication ops"},
    {"overlapped_ns", "INTEGER", "computing and communication at once"},
    {"communication_not_overlapped_ns", "INTEGER", "communication_ns - overlapped_ns"},
    {"free_ns", "INTEGER", "device idle between the first and last busy instant"},
    {"preparing_ns", "INTEGER", "step start to the first busy instant"},
    {"step_ns", "INTEGER", "the step's length (without steps: the busy span)"},
    {"memory_ns", "INTEGER", "memcpy tasks starting in the step, summed"},
    {"memory_not_overlapped_ns", "INTEGER", "of their union, what no compute or comm covers"},
    {"transmit_ns", "INTEGER", "per collective whose ranks are all loaded, its shortest op"},
    {"wait_ns", "INTEGER", "the rank's own ops minus transmit_ns"},
    {"device_activity", "INTEGER", "0 for a CPU-only trace (no device work), else 1"},
};

static void
steps_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	const tl_rank_steps *rs = &c->x->rs[c->ri];
	const tl_step_overlap *so = &rs->so[c->k];
	const tl_step_split *sp = &rs->sp[c->k];
	int64_t v = 0;
	switch (col) {
	case 0:
		v = cur_rank(c)->rank;
		break;
	case 1:
		v = so->step_id;
		break;
	case 2:
		v = so->step_start;
		break;
	case 3:
		v = so->step_end;
		break;
	case 4:
		v = so->o.computing;
		break;
	case 5:
		v = so->o.communication;
		break;
	case 6:
		v = so->o.overlapped;
		break;
	case 7:
		v = so->o.comm_not_overlapped;
		break;
	case 8:
		v = so->o.free;
		break;
	case 9:
		v = so->o.preparing;
		break;
	case 10:
		v = sp->step_ns;
		break;
	case 11:
		v = sp->memory_ns;
		break;
	case 12:
		v = sp->memory_not_overlapped_ns;
		break;
	case 13:
		v = sp->transmit_ns;
		break;
	case 14:
		v = sp->wait_ns;
		break;
	case 15:
		v = !cur_rank(c)->host_only;
		break;
	}
	sqlite3_result_int64(ctx, v);
}

/* ---- stages, bubbles ------------------------------------------------------------------------ */

static size_t
stage_rank_of(const void *v, size_t i)
{
	return ((const tl_stage_row *)v)[i].rank;
}

static void
stages_prepare(sql_ctx *x)
{
	if (x->stage0 != NULL)
		return;
	size_t n = tlq_stages(x->q, &x->stages);
	x->stage0 = rank_offsets(tlq_trace(x->q)->nranks, n, stage_rank_of, x->stages);
}

static size_t
stages_count(sql_ctx *x, size_t ri)
{
	return x->stage0[ri + 1] - x->stage0[ri];
}

static const sql_col stages_cols[] = {
    {"rank", "INTEGER", "the rank number"},
    {"stage", "TEXT", "rollout, reference, actor_update, ... or other:NAME"},
    {"step", "INTEGER", "the step (ProfilerStep id, or the role directory's), -1 for none"},
    {"start_ns", "INTEGER", "the range's device part where it carried a stream, else host"},
    {"end_ns", "INTEGER", "its end"},
    {"duration_ns", "INTEGER", "end_ns - start_ns"},
    {"busy_ns", "INTEGER", "device busy (compute and communication) inside it"},
    {"lag_ns", "INTEGER", "end_ns - the earliest end of this stage instance over the ranks"},
    {"range", "TEXT", "the range's name, or the role directory"},
    {"occurrence", "INTEGER", "0 for the first instance of the stage in its step on the rank"},
    {"host_start_ns", "INTEGER", "the host call's start"},
    {"host_end_ns", "INTEGER", "the host call's end"},
    {"device_times", "INTEGER", "1 when start_ns and end_ns are device times"},
    {"from_role", "INTEGER", "1 for a whole discrete-mode capture (a role directory)"},
    {"decode_steps", "INTEGER", "decode steps inside, NULL when unknown"},
};

static void
stages_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	const tl_stage_row *s = &c->x->stages[c->x->stage0[c->ri] + c->k];
	switch (col) {
	case 0:
		sqlite3_result_int(ctx, cur_rank(c)->rank);
		return;
	case 1:
		result_text(ctx, tlq_stage_name(c->x->q, s->stage));
		return;
	case 2:
		sqlite3_result_int64(ctx, s->step);
		return;
	case 3:
		sqlite3_result_int64(ctx, s->start);
		return;
	case 4:
		sqlite3_result_int64(ctx, s->end);
		return;
	case 5:
		sqlite3_result_int64(ctx, s->end - s->start);
		return;
	case 6:
		sqlite3_result_int64(ctx, s->busy);
		return;
	case 7:
		sqlite3_result_int64(ctx, s->lag);
		return;
	case 8:
		result_text(ctx, s->range);
		return;
	case 9:
		sqlite3_result_int(ctx, s->occurrence);
		return;
	case 10:
		sqlite3_result_int64(ctx, s->host_start);
		return;
	case 11:
		sqlite3_result_int64(ctx, s->host_end);
		return;
	case 12:
		sqlite3_result_int(ctx, s->device);
		return;
	case 13:
		sqlite3_result_int(ctx, s->from_role);
		return;
	case 14:
		if (s->decode_steps >= 0)
			sqlite3_result_int(ctx, s->decode_steps);
		return;
	}
}

static size_t
bubble_rank_of(const void *v, size_t i)
{
	return ((const tl_rl_bubble *)v)[i].rank;
}

static void
bubbles_prepare(sql_ctx *x)
{
	if (x->bubble0 != NULL)
		return;
	size_t n = tlq_bubbles(x->q, &x->bubbles);
	x->bubble0 = rank_offsets(tlq_trace(x->q)->nranks, n, bubble_rank_of, x->bubbles);
}

static size_t
bubbles_count(sql_ctx *x, size_t ri)
{
	return x->bubble0[ri + 1] - x->bubble0[ri];
}

static const sql_col bubbles_cols[] = {
    {"rank", "INTEGER", "the rank number"},
    {"start_ns", "INTEGER", "start of the idle gap (no compute, no communication)"},
    {"end_ns", "INTEGER", "its end"},
    {"duration_ns", "INTEGER", "end_ns - start_ns"},
    {"stage", "TEXT", "the innermost stage enclosing the whole gap, NULL for none"},
    {"step", "INTEGER", "the step holding the whole gap; -1 without steps; NULL between steps"},
    {"reason", "TEXT", "why the device was idle, as tl summary says"},
    {"detail", "TEXT", "the evidence"},
};

static void
bubbles_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	const tl_rl_bubble *b = &c->x->bubbles[c->x->bubble0[c->ri] + c->k];
	switch (col) {
	case 0:
		sqlite3_result_int(ctx, cur_rank(c)->rank);
		return;
	case 1:
		sqlite3_result_int64(ctx, b->start);
		return;
	case 2:
		sqlite3_result_int64(ctx, b->end);
		return;
	case 3:
		sqlite3_result_int64(ctx, b->end - b->start);
		return;
	case 4:
		result_text(ctx, tlq_stage_name(c->x->q, b->stage));
		return;
	case 5:
		if (!b->between_steps)
			sqlite3_result_int64(ctx, b->step);
		return;
	case 6:
		result_text(ctx, tlq_bubble_reason_name(b->reason));
		return;
	case 7:
		result_text(ctx, b->detail);
		return;
	}
}

/* ---- ops: every compute task ------------------------------------------------------------------
 */

static const tl_op_data *
ops_of(const sql_ctx *x, size_t ri)
{
	const tl_rank *r = tlq_trace(x->q)->ranks[ri];
	return r->ops != NULL ? r->ops : &x->ops.data[ri];
}

static void
ops_prepare(sql_ctx *x)
{
	if (x->have_ops)
		return;
	tlq_op_totals(x->q, &x->ops); /* reads every rank's tasks (or takes the gathered ones) */
	size_t nr = tlq_trace(x->q)->nranks;
	x->ops_g0 = xcalloc(nr ? nr : 1, sizeof *x->ops_g0);
	for (size_t ri = 0; ri < nr; ri++) {
		const tl_op_data *d = ops_of(x, ri);
		size_t *g0 = xcalloc(d->n + 1, sizeof *g0);
		for (size_t g = 0; g < d->n; g++)
			g0[g + 1] = g0[g] + d->g[g].n;
		x->ops_g0[ri] = g0;
	}
	x->have_ops = 1;
}

static size_t
ops_count(sql_ctx *x, size_t ri)
{
	return x->ops_g0[ri][ops_of(x, ri)->n];
}

static const sql_col ops_cols[] = {
    {"rank", "INTEGER", "the rank number"},
    {"step", "INTEGER", "the step whose range holds the task's start, NULL for none"},
    {"name", "TEXT", "the operator's name"},
    {"op_type", "TEXT", "its type"},
    {"accelerator", "TEXT", "the task type: AI_CORE, AI_VECTOR_CORE, MIX_AIC, AI_CPU, ..."},
    {"start_ns", "INTEGER", "the task's start (TASK startNs)"},
    {"dur_ns", "INTEGER", "its duration"},
    {"shapes", "TEXT", "its input shapes, '' when the profile has none"},
};

static void
ops_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	const tl_op_data *d = ops_of(c->x, c->ri);
	const size_t *g0 = c->x->ops_g0[c->ri];
	/* rows are walked in order: the group of row k is the cursor's or a later one */
	if (c->g >= d->n || c->k < g0[c->g])
		c->g = 0;
	while (c->g + 1 < d->n && g0[c->g + 1] <= c->k)
		c->g++;
	const tl_op_group *g = &d->g[c->g];
	size_t i = c->k - g0[c->g];
	switch (col) {
	case 0:
		sqlite3_result_int(ctx, cur_rank(c)->rank);
		return;
	case 1: {
		int64_t id;
		if (tlq_step_at(cur_rank(c), g->start[i], &id) == 0)
			sqlite3_result_int64(ctx, id);
		return;
	}
	case 2:
		result_text(ctx, strpool_get(d->pool, g->name));
		return;
	case 3:
		result_text(ctx, strpool_get(d->pool, g->op_type));
		return;
	case 4:
		result_text(ctx, strpool_get(d->pool, g->task_type));
		return;
	case 5:
		sqlite3_result_int64(ctx, g->start[i]);
		return;
	case 6:
		sqlite3_result_int64(ctx, g->dur[i]);
		return;
	case 7:
		result_text(ctx, strpool_get(d->pool, g->shapes));
		return;
	}
}

/* ---- counters ----------------------------------------------------------------------------------
 */

static void
counters_prepare(sql_ctx *x)
{
	if (!x->have_counters) {
		tlq_counters(x->q);
		x->have_counters = 1;
	}
}

/* The generic walk gives row k of the rank; the counter and sample are found from it. */
static size_t
counters_count(sql_ctx *x, size_t ri)
{
	tl_counter *const *cv;
	size_t n = tlq_rank_counters(x->q, ri, &cv), total = 0;
	for (size_t i = 0; i < n; i++)
		total += cv[i]->n;
	return total;
}

static const sql_col counters_cols[] = {
    {"rank", "INTEGER", "the rank number"},
    {"name", "TEXT", "PTA allocated, app HBM, module SLOG, AI Core freq, or the trace's name"},
    {"t_ns", "INTEGER", "the sample's time; its value holds until the next sample"},
    {"value", "NUMERIC", "bytes for memory, MHz for frequency, the trace's unit otherwise"},
};

static void
counters_column(sql_cur *c, sqlite3_context *ctx, int col)
{
	tl_counter *const *cv;
	size_t n = tlq_rank_counters(c->x->q, c->ri, &cv);
	/* c->g: the counter, c->ti: the row its samples start at (walked in order) */
	if (c->g >= n || c->k < c->ti)
		c->g = c->ti = 0;
	while (c->g < n && c->k >= c->ti + cv[c->g]->n) {
		c->ti += cv[c->g]->n;
		c->g++;
	}
	if (c->g >= n)
		return;
	const tl_counter *ct = cv[c->g];
	size_t i = c->k - c->ti;
	char buf[160];
	switch (col) {
	case 0:
		sqlite3_result_int(ctx, cur_rank(c)->rank);
		return;
	case 1:
		sqlite3_result_text(ctx, tlq_counter_label(cur_rank(c), ct, buf, sizeof buf), -1,
		                    SQLITE_TRANSIENT);
		return;
	case 2:
		sqlite3_result_int64(ctx, ct->t[i]);
		return;
	case 3:
		if (ct->kind == TL_CTR_OTHER) /* thousandths of the trace's unit */
			sqlite3_result_double(ctx, (double)ct->v[i] / 1000.0);
		else
			sqlite3_result_int64(ctx, ct->v[i]);
		return;
	}
}

/* ---- the list ----------------------------------------------------------------------------------
 */

#define COLS(v) v, (int)(sizeof v / sizeof *v)
const sql_table sql_tables[] = {
    {"slices", "every slice of every lane (the overlap and stage lanes left out)", sql_slice_cols,
     SQL_SLICE_NCOLS, 0, 1, sql_slices_prepare, NULL, sql_slices_first, sql_slices_next,
     sql_slices_column},
    {"steps", "the overlap breakdown per rank and step: tl summary's numbers", COLS(steps_cols),
     TL_TABLE_COMM, 0, steps_prepare, steps_count, NULL, NULL, steps_column},
    {"stages", "the RL stage instances per rank", COLS(stages_cols), 0, 0, stages_prepare,
     stages_count, NULL, NULL, stages_column},
    {"comm_ops", "every communication op with its time breakdown", COLS(comm_cols), TL_TABLE_COMM,
     0, comm_prepare, comm_count, NULL, NULL, comm_column},
    {"links", "the traffic of each communication op per (source, destination) rank pair",
     COLS(link_cols), TL_TABLE_COMM, 0, comm_prepare, link_count, NULL, NULL, link_column},
    {"ops", "every compute task with its operator", COLS(ops_cols),
     TL_TABLE_OPS | TL_TABLE_OP_STARTS, 0, ops_prepare, ops_count, NULL, NULL, ops_column},
    {"bubbles", "the largest idle gaps of each rank, attributed (tl summary's, 10 per rank)",
     COLS(bubbles_cols), 0, 0, bubbles_prepare, bubbles_count, NULL, NULL, bubbles_column},
    {"counters", "every sample of the memory and frequency counters", COLS(counters_cols),
     TL_TABLE_COUNTERS, 0, counters_prepare, counters_count, NULL, NULL, counters_column},
};
const size_t sql_ntables = sizeof sql_tables / sizeof *sql_tables;

const sql_table *
sql_table_find(const char *name)
{
	for (size_t i = 0; i < sql_ntables; i++)
		if (strcmp(sql_tables[i].name, name) == 0)
			return &sql_tables[i];
	return NULL;
}

void
sql_ctx_free(sql_ctx *x)
{
	if (x->q == NULL)
		return;
	size_t nr = tlq_trace(x->q)->nranks;
	if (x->have_steps)
		tlq_rank_steps_free(x->q, x->rs);
	if (x->have_comm) {
		tlq_collectives_free(&x->cr);
		tlq_comm_free(&x->cm);
	}
	if (x->have_ops) {
		for (size_t ri = 0; ri < nr; ri++)
			free(x->ops_g0[ri]);
		free(x->ops_g0);
		tlq_ops_free(&x->ops);
	}
	free(x->comm0);
	free(x->link0);
	free(x->stage0);
	free(x->bubble0);
	sql_slices_free(x);
	memset(x, 0, sizeof *x);
}
