/* The tables of tl query, each over the query the same numbers of `tl summary` come from:
 * steps (tlq_rank_steps), stages (tlq_stages), comm_ops and links (tlq_comm), ops (tlq_ops'
 * tasks), bubbles (tlq_bubbles), counters (tlq_rank_counters); the slices in sql_slices.c.
 * Column 0 of every table is the rank number, which the virtual-table module pushes down. */
#include "config.h"
#include "load/load.h"
#include "query/findings.h"
#include "query/memory.h"
#include "sql/sql_int.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

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

static void
comm_bytes(sql_cur *c, sqlite3_context *ctx)
{
	const tl_comm_row *o = c->row[0];
	uint64_t b = 0;
	for (size_t i = 0; i < o->nlink; i++)
		b += c->x->cm.links[o->link0 + i].size;
	sqlite3_result_int64(ctx, (sqlite3_int64)b);
}

#define OP(how, f) how(0, tl_comm_row, f)
static const sql_col comm_cols[] = {
    {"rank", "INTEGER", "the rank number", OP(SQL_INT_OF, rank)},
    {"step", "INTEGER", "the step (ProfilerStep id) of the op's launch, -1 for none",
     OP(SQL_I64_OF, step)},
    {"op_name", "TEXT", "the op as the profile names it: hcom_allReduce__210_0_1",
     OP(SQL_STR_OF, op_name)},
    {"op_type", "TEXT", "hcom_allReduce_, ... (from the name where the profile has none)",
     OP(SQL_STR_OF, op_type)},
    {"grp", "TEXT", "the communication group", OP(SQL_STR_OF, group)},
    {"start_ns", "INTEGER", "start, ns", OP(SQL_I64_OF, start)},
    {"end_ns", "INTEGER", "end, ns", SQL_SUM_OF(0, tl_comm_row, start, t.elapse)},
    {"elapse_ns", "INTEGER", "end_ns - start_ns", OP(SQL_I64_OF, t.elapse)},
    {"transit_ns", "INTEGER", "moving data (the sub-tasks that transfer)",
     OP(SQL_I64_OF, t.transit)},
    {"wait_ns", "INTEGER", "waiting for peers (Notify_Wait)", OP(SQL_I64_OF, t.wait)},
    {"sync_ns", "INTEGER", "the part of wait before the first transfer: waiting for a late rank",
     OP(SQL_I64_OF, t.sync)},
    {"idle_ns", "INTEGER", "elapse - transit - wait: launch and scheduling",
     OP(SQL_I64_OF, t.idle)},
    {"bytes", "INTEGER", "bytes its transfers moved", .fn = comm_bytes},
    {"tasks", "INTEGER", "its HCCL sub-tasks read", OP(SQL_SIZE_OF, ntasks)},
};

static int
comm_locate(sql_cur *c)
{
	c->row[0] = &c->x->cm.ops[c->x->comm0[c->ri] + c->k];
	return 1;
}

static size_t
link_count(sql_ctx *x, size_t ri)
{
	return x->link0[ri + 1] - x->link0[ri];
}

static void
link_transport(sql_cur *c, sqlite3_context *ctx)
{
	const tl_comm_link *l = c->row[1];
	if (l->xport < TL_XPORT__COUNT)
		sqlite3_result_text(ctx, tl_xport_name[l->xport], -1, SQLITE_STATIC);
}

#define LINK(how, f) how(1, tl_comm_link, f)
static const sql_col link_cols[] = {
    {"rank", "INTEGER", "the rank number whose op it is", OP(SQL_INT_OF, rank)},
    {"step", "INTEGER", "the op's step, -1 for none", OP(SQL_I64_OF, step)},
    {"op_name", "TEXT", "the op", OP(SQL_STR_OF, op_name)},
    {"grp", "TEXT", "the op's communication group", OP(SQL_STR_OF, group)},
    {"src_rank", "INTEGER", "the source rank of the transfers", LINK(SQL_I64_OF, src)},
    {"dst_rank", "INTEGER", "the destination rank (= src_rank: on the rank itself)",
     LINK(SQL_I64_OF, dst)},
    {"transport", "TEXT", "HCCS, PCIE, RDMA, SIO, SDMA or LOCAL", .fn = link_transport},
    {"bytes", "INTEGER", "bytes moved between the pair by the op", LINK(SQL_U64_OF, size)},
    {"time_ns", "INTEGER", "the transfers' summed time", LINK(SQL_I64_OF, time)},
    {"gbps", "REAL", "bytes / time_ns (GB/s), 0 when time_ns is 0", LINK(SQL_F64_OF, gbps)},
};

/* row[0]: the link's op, row[1]: the link */
static int
link_locate(sql_cur *c)
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
	c->row[0] = &x->cm.ops[lo];
	c->row[1] = &x->cm.links[li];
	return 1;
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

static void
steps_device(sql_cur *c, sqlite3_context *ctx)
{
	sqlite3_result_int64(ctx, !cur_rank(c)->host_only);
}

#define SO(f) SQL_I64_OF(0, tl_step_overlap, f)
#define SP(f) SQL_I64_OF(1, tl_step_split, f)
static const sql_col steps_cols[] = {
    {"rank", "INTEGER", "the rank number", .get = SQL_RANK},
    {"step", "INTEGER", "the ProfilerStep id; -1: the whole capture of a profile without steps",
     SO(step_id)},
    {"start_ns", "INTEGER", "the step's host range (STEP_TIME), 0 without steps", SO(step_start)},
    {"end_ns", "INTEGER", "its end, 0 without steps", SO(step_end)},
    {"computing_ns", "INTEGER", "union of the compute kernels (torch_npu's StepTraceTime)",
     SO(o.computing)},
    {"communication_ns", "INTEGER", "union of the communication ops", SO(o.communication)},
    {"overlapped_ns", "INTEGER", "computing and communication at once", SO(o.overlapped)},
    {"communication_not_overlapped_ns", "INTEGER", "communication_ns - overlapped_ns",
     SO(o.comm_not_overlapped)},
    {"free_ns", "INTEGER", "device idle between the first and last busy instant", SO(o.free)},
    {"preparing_ns", "INTEGER", "step start to the first busy instant", SO(o.preparing)},
    {"step_ns", "INTEGER", "the step's length (without steps: the busy span)", SP(step_ns)},
    {"memory_ns", "INTEGER", "memcpy tasks starting in the step, summed", SP(memory_ns)},
    {"memory_not_overlapped_ns", "INTEGER", "of their union, what no compute or comm covers",
     SP(memory_not_overlapped_ns)},
    {"transmit_ns", "INTEGER", "per collective whose ranks are all loaded, its shortest op",
     SP(transmit_ns)},
    {"wait_ns", "INTEGER", "the rank's own ops minus transmit_ns", SP(wait_ns)},
    {"device_activity", "INTEGER", "0 for a CPU-only trace (no device work), else 1",
     .fn = steps_device},
};

static int
steps_locate(sql_cur *c)
{
	const tl_rank_steps *rs = &c->x->rs[c->ri];
	c->row[0] = &rs->so[c->k];
	c->row[1] = &rs->sp[c->k];
	return 1;
}

/* ---- stages, bubbles ------------------------------------------------------------------------ */

static size_t
by_rank_of(const void *v, size_t i)
{
	const sql_by_rank *b = v;
	return *(const size_t *)(b->rows + i * b->size); /* the rank index, the row's first field */
}

/* b's rows: n of size bytes each, whose first field is the rank index, sorted by it */
static void
by_rank_fill(sql_ctx *x, sql_by_rank *b, const void *rows, size_t n, size_t size)
{
	b->rows = rows;
	b->size = size;
	b->first = rank_offsets(tlq_trace(x->q)->nranks, n, by_rank_of, b);
}

static size_t
by_rank_count(const sql_by_rank *b, size_t ri)
{
	return b->first[ri + 1] - b->first[ri];
}

static const void *
by_rank_row(const sql_cur *c, const sql_by_rank *b)
{
	return b->rows + (b->first[c->ri] + c->k) * b->size;
}

_Static_assert(offsetof(tl_stage_row, rank) == 0 && offsetof(tl_rl_bubble, rank) == 0,
               "by_rank_of reads the rank index first");

static void
stages_prepare(sql_ctx *x)
{
	const tl_stage_row *v;
	if (x->stages.first == NULL) {
		size_t n = tlq_stages(x->q, &v);
		by_rank_fill(x, &x->stages, v, n, sizeof *v);
	}
}

static size_t
stages_count(sql_ctx *x, size_t ri)
{
	return by_rank_count(&x->stages, ri);
}

#define ST(how, f) how(0, tl_stage_row, f)
static const sql_col stages_cols[] = {
    {"rank", "INTEGER", "the rank number", .get = SQL_RANK},
    {"stage", "TEXT", "rollout, reference, actor_update, ... or other:NAME",
     ST(SQL_STAGE_OF, stage)},
    {"step", "INTEGER", "the step (ProfilerStep id, or the role directory's), -1 for none",
     ST(SQL_I64_OF, step)},
    {"start_ns", "INTEGER", "the range's device part where it carried a stream, else host",
     ST(SQL_I64_OF, start)},
    {"end_ns", "INTEGER", "its end", ST(SQL_I64_OF, end)},
    {"duration_ns", "INTEGER", "end_ns - start_ns", SQL_DIFF_OF(0, tl_stage_row, end, start)},
    {"busy_ns", "INTEGER", "device busy (compute and communication) inside it",
     ST(SQL_I64_OF, busy)},
    {"lag_ns", "INTEGER", "end_ns - the earliest end of this stage instance over the ranks",
     ST(SQL_I64_OF, lag)},
    {"range", "TEXT", "the range's name, or the role directory", ST(SQL_STR_OF, range)},
    {"occurrence", "INTEGER", "0 for the first instance of the stage in its step on the rank",
     ST(SQL_INT_OF, occurrence)},
    {"host_start_ns", "INTEGER", "the host call's start", ST(SQL_I64_OF, host_start)},
    {"host_end_ns", "INTEGER", "the host call's end", ST(SQL_I64_OF, host_end)},
    {"device_times", "INTEGER", "1 when start_ns and end_ns are device times",
     ST(SQL_INT_OF, device)},
    {"from_role", "INTEGER", "1 for a whole discrete-mode capture (a role directory)",
     ST(SQL_INT_OF, from_role)},
    {"decode_steps", "INTEGER", "decode steps inside, NULL when unknown",
     ST(SQL_INT_OF, decode_steps), .flags = SQL_NULL_NEG},
};

static int
stages_locate(sql_cur *c)
{
	c->row[0] = by_rank_row(c, &c->x->stages);
	return 1;
}

static void
bubbles_prepare(sql_ctx *x)
{
	const tl_rl_bubble *v;
	if (x->bubbles.first == NULL) {
		size_t n = tlq_bubbles(x->q, &v);
		by_rank_fill(x, &x->bubbles, v, n, sizeof *v);
	}
}

static size_t
bubbles_count(sql_ctx *x, size_t ri)
{
	return by_rank_count(&x->bubbles, ri);
}

static void
bubble_step(sql_cur *c, sqlite3_context *ctx)
{
	const tl_rl_bubble *b = c->row[0];
	if (!b->between_steps)
		sqlite3_result_int64(ctx, b->step);
}

static void
bubble_reason(sql_cur *c, sqlite3_context *ctx)
{
	const char *s = tlq_bubble_reason_name(((const tl_rl_bubble *)c->row[0])->reason);
	if (s != NULL)
		sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
}

#define BU(how, f) how(0, tl_rl_bubble, f)
static const sql_col bubbles_cols[] = {
    {"rank", "INTEGER", "the rank number", .get = SQL_RANK},
    {"start_ns", "INTEGER", "start of the idle gap (no compute, no communication)",
     BU(SQL_I64_OF, start)},
    {"end_ns", "INTEGER", "its end", BU(SQL_I64_OF, end)},
    {"duration_ns", "INTEGER", "end_ns - start_ns", SQL_DIFF_OF(0, tl_rl_bubble, end, start)},
    {"stage", "TEXT", "the innermost stage enclosing the whole gap, NULL for none",
     BU(SQL_STAGE_OF, stage)},
    {"step", "INTEGER", "the step holding the whole gap; -1 without steps; NULL between steps",
     .fn = bubble_step},
    {"reason", "TEXT", "why the device was idle, as tl summary says", .fn = bubble_reason},
    {"detail", "TEXT", "the evidence", BU(SQL_CHARS_OF, detail)},
};

static int
bubbles_locate(sql_cur *c)
{
	c->row[0] = by_rank_row(c, &c->x->bubbles);
	return 1;
}

/* ---- ops: every compute task ------------------------------------------------------------------
 */

static const tl_op_data *
ops_of(const sql_ctx *x, size_t ri)
{
	const tl_rank *r = tlq_trace(x->q)->ranks[ri];
	return r->ops != NULL && !r->ops->totals ? r->ops : &x->ops.data[ri];
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

static void
ops_step(sql_cur *c, sqlite3_context *ctx)
{
	const tl_op_group *g = c->row[0];
	int64_t id;
	if (tlq_step_at(cur_rank(c), g->start[c->idx], &id) == 0)
		sqlite3_result_int64(ctx, id);
}

#define OG(how, f) how(0, tl_op_group, f)
static const sql_col ops_cols[] = {
    {"rank", "INTEGER", "the rank number", .get = SQL_RANK},
    {"step", "INTEGER", "the step whose range holds the task's start, NULL for none",
     .fn = ops_step},
    {"name", "TEXT", "the operator's name", OG(SQL_POOL_OF, name)},
    {"op_type", "TEXT", "its type", OG(SQL_POOL_OF, op_type)},
    {"accelerator", "TEXT", "the task type: AI_CORE, AI_VECTOR_CORE, MIX_AIC, AI_CPU, ...",
     OG(SQL_POOL_OF, task_type)},
    {"start_ns", "INTEGER", "the task's start (TASK startNs)", OG(SQL_ARRAY_OF, start)},
    {"dur_ns", "INTEGER", "its duration", OG(SQL_ARRAY_OF, dur)},
    {"shapes", "TEXT", "its input shapes, '' when the profile has none", OG(SQL_POOL_OF, shapes)},
};

static int ops_locate(sql_cur *);

/* the pushed-down step: a task's is the step whose host range holds its start */
static int
ops_step_may(sql_cur *c)
{
	ops_locate(c);
	int64_t t = ((const tl_op_group *)c->row[0])->start[c->idx];
	return t >= c->step_t0 && t <= c->step_t1;
}

/* row[0]: the task's group, idx: the task in it */
static int
ops_locate(sql_cur *c)
{
	const tl_op_data *d = ops_of(c->x, c->ri);
	const size_t *g0 = c->x->ops_g0[c->ri];
	/* rows are walked in order: the group of row k is the cursor's or a later one */
	if (c->g >= d->n || c->k < g0[c->g])
		c->g = 0;
	while (c->g + 1 < d->n && g0[c->g + 1] <= c->k)
		c->g++;
	c->row[0] = &d->g[c->g];
	c->pool = d->pool;
	c->idx = c->k - g0[c->g];
	return 1;
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

static void
counter_name(sql_cur *c, sqlite3_context *ctx)
{
	char buf[160];
	sqlite3_result_text(ctx, tlq_counter_label(cur_rank(c), c->row[0], buf, sizeof buf), -1,
	                    SQLITE_TRANSIENT);
}

static void
counter_value(sql_cur *c, sqlite3_context *ctx)
{
	const tl_counter *ct = c->row[0];
	if (ct->kind == TL_CTR_OTHER) /* thousandths of the trace's unit */
		sqlite3_result_double(ctx, (double)ct->v[c->idx] / 1000.0);
	else
		sqlite3_result_int64(ctx, ct->v[c->idx]);
}

static const sql_col counters_cols[] = {
    {"rank", "INTEGER", "the rank number", .get = SQL_RANK},
    {"name", "TEXT", "PTA allocated, app HBM, module SLOG, AI Core freq, or the trace's name",
     .fn = counter_name},
    {"t_ns", "INTEGER", "the sample's time; its value holds until the next sample",
     SQL_ARRAY_OF(0, tl_counter, t)},
    {"value", "NUMERIC", "bytes for memory, MHz for frequency, the trace's unit otherwise",
     .fn = counter_value},
};

/* row[0]: the counter, idx: the sample */
static int
counters_locate(sql_cur *c)
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
		return 0;
	c->row[0] = cv[c->g];
	c->idx = c->k - c->ti;
	return 1;
}

/* ---- findings: tl triage's, with its default thresholds ------------------------------------- */

static void
findings_prepare(sql_ctx *x)
{
	if (!x->have_findings) {
		x->nfind = tlq_findings(x->q, NULL, &x->find);
		x->have_findings = 1;
	}
}

static size_t
findings_count(sql_ctx *x, size_t ri)
{
	(void)ri;
	return x->nfind;
}

static void
finding_number(sql_cur *c, sqlite3_context *ctx)
{
	sqlite3_result_int64(ctx, (sqlite3_int64)c->k + 1);
}

static void
finding_kind(sql_cur *c, sqlite3_context *ctx)
{
	const tl_finding *f = c->row[0];
	if (f->kind >= 0 && f->kind < TL_FIND__COUNT)
		sqlite3_result_text(ctx, tlq_find_rules()[f->kind].kind, -1, SQLITE_STATIC);
}

/* a link's ranks: the slow_link findings' only (tl triage --json's rule) */
static void
finding_src(sql_cur *c, sqlite3_context *ctx)
{
	const tl_finding *f = c->row[0];
	if (f->kind == TL_FIND_SLOW_LINK)
		sqlite3_result_int(ctx, f->src_rank);
}

static void
finding_dst(sql_cur *c, sqlite3_context *ctx)
{
	const tl_finding *f = c->row[0];
	if (f->kind == TL_FIND_SLOW_LINK)
		sqlite3_result_int(ctx, f->dst_rank);
}

#define FI(how, f) how(0, tl_finding, f)
static const sql_col findings_cols[] = {
    {"finding", "INTEGER", "its number in tl triage's list (tl view PATH --finding N)",
     .fn = finding_number},
    {"kind", "TEXT",
     "the rule: stage_imbalance, stall, straggler, slow_link, ... (man tl: FINDINGS)",
     .fn = finding_kind},
    {"rank", "INTEGER", "the rank it names, NULL when several or none", FI(SQL_INT_OF, rank),
     .flags = SQL_NULL_NEG},
    {"ranks", "TEXT", "several ranks: \"0-2,5\"; NULL otherwise", FI(SQL_CHARS_OF, ranks),
     .flags = SQL_NULL_EMPTY},
    {"step", "INTEGER", "the step (ProfilerStep id), NULL for all steps", FI(SQL_I64_OF, step),
     .flags = SQL_NULL_NEG},
    {"steps", "INTEGER", "how many steps it covers", FI(SQL_INT_OF, nsteps)},
    {"stage", "TEXT", "the RL stage, NULL for none", FI(SQL_STAGE_OF, stage)},
    {"start_ns", "INTEGER", "the place to look: its start", FI(SQL_I64_OF, start_ns)},
    {"end_ns", "INTEGER", "its end", FI(SQL_I64_OF, end_ns)},
    {"recoverable_ns", "INTEGER", "the time fixing it would give back",
     FI(SQL_I64_OF, recoverable_ns)},
    {"share", "REAL", "recoverable_ns / the step time of the ranks it concerns",
     FI(SQL_F64_OF, share)},
    {"src_rank", "INTEGER", "slow_link: the link's source rank, else NULL", .fn = finding_src},
    {"dst_rank", "INTEGER", "slow_link: its destination rank, else NULL", .fn = finding_dst},
    {"pp_stage", "INTEGER", "pipeline_bubble: the pipeline stage, else NULL",
     FI(SQL_INT_OF, pp_stage), .flags = SQL_NULL_NEG},
    {"transport", "TEXT", "a link's or small packets' transport, else NULL",
     FI(SQL_STR_OF, transport)},
    {"op", "TEXT", "aicpu_op: the operator type, else NULL", FI(SQL_CHARS_OF, op),
     .flags = SQL_NULL_EMPTY},
    {"evidence", "TEXT", "one sentence with the numbers", FI(SQL_CHARS_OF, evidence)},
};

static int
findings_locate(sql_cur *c)
{
	c->row[0] = &c->x->find[c->k];
	return 1;
}

/* ---- the list ----------------------------------------------------------------------------------
 */

#define COLS(v) .cols = v, .ncols = (int)(sizeof v / sizeof *v)
const sql_table sql_tables[] = {
    {"slices", "every slice of every lane (the overlap and stage lanes left out)",
     .cols = sql_slice_cols, .ncols = SQL_SLICE_NCOLS, .time_window = 1, .step_col = 8,
     .prepare = sql_slices_prepare, .first = sql_slices_first, .next = sql_slices_next,
     .locate = sql_slices_locate},
    {"steps", "the overlap breakdown per rank and step: tl summary's numbers", COLS(steps_cols),
     .need = TL_TABLE_COMM, .prepare = steps_prepare, .count = steps_count, .locate = steps_locate},
    {"stages", "the RL stage instances per rank", COLS(stages_cols), .prepare = stages_prepare,
     .count = stages_count, .locate = stages_locate},
    {"comm_ops", "every communication op with its time breakdown", COLS(comm_cols),
     .need = TL_TABLE_COMM, .prepare = comm_prepare, .count = comm_count, .locate = comm_locate},
    {"links", "the traffic of each communication op per (source, destination) rank pair",
     COLS(link_cols), .need = TL_TABLE_COMM, .prepare = comm_prepare, .count = link_count,
     .locate = link_locate},
    {"ops", "every compute task with its operator", COLS(ops_cols),
     .need = TL_TABLE_OPS | TL_TABLE_OP_STARTS, .step_col = 1, .step_may = ops_step_may,
     .prepare = ops_prepare, .count = ops_count, .locate = ops_locate},
    {"bubbles", "the largest idle gaps of each rank, attributed (tl summary's, 10 per rank)",
     COLS(bubbles_cols), .prepare = bubbles_prepare, .count = bubbles_count,
     .locate = bubbles_locate},
    {"counters", "every sample of the memory and frequency counters", COLS(counters_cols),
     .need = TL_TABLE_COUNTERS, .prepare = counters_prepare, .count = counters_count,
     .locate = counters_locate},
    {"findings", "what is wrong, ranked by the time each costs: tl triage --json's findings",
     COLS(findings_cols), .need = TL_TABLE_ALL, .whole = 1, .prepare = findings_prepare,
     .count = findings_count, .locate = findings_locate},
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
	free(x->find);
	free(x->comm0);
	free(x->link0);
	free(x->stages.first);
	free(x->bubbles.first);
	sql_slices_free(x);
	memset(x, 0, sizeof *x);
}
