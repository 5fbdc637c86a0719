/* The generator's host-side and memory rows: CANN launches with their delays to the device
 * (gen_opts.launch_jitter), the PyTorch operators that made them (PYTORCH_API rows, which the PP
 * rows use too), mstx ranges given a stream and dp_analysis' decode-step marks, and the
 * allocator's MEMORY_RECORD samples (gen_opts.memory_records). It calls nothing of gen_pp.c: the
 * PP rows are built on these. */
#include "config.h"
#include "gen/gen_int.h"
#include "gen/gen.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- call stacks (gen_opts.with_stack) ---- */

/* Innermost first, as PYTORCH_CALLCHAINS' stackDepth 0 and the "Call stack" arg list them. */
static const char *const stacks[GEN_NSTACKS][5] = {
    {"/usr/lib/python3.9/site-packages/torch/nn/functional.py(2233): linear",
     "/work/model/layers.py(88): forward",
     "/usr/lib/python3.9/site-packages/torch/nn/modules/module.py(1527): _call_impl",
     "/work/train.py(142): train_step", "/work/train.py(201): <module>"},
    {"/usr/lib/python3.9/site-packages/torch/nn/functional.py(1469): relu",
     "/work/model/layers.py(91): forward", "/work/train.py(142): train_step",
     "/work/train.py(201): <module>"},
    {"/usr/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py(2050): "
     "all_reduce",
     "/work/train.py(160): sync_grads", "/work/train.py(201): <module>"},
};
#define STACK_STR 4000000 /* STRING_IDS of the frames: + stack * 8 + depth */

const char *
gen_stack_frame(int s, int depth)
{
	if (s < 0 || s >= GEN_NSTACKS || depth < 0 || depth >= 5)
		return NULL;
	return stacks[s][depth];
}

void
gen_w_stacks(gen_writer *w)
{
	gen_w_exec(w, "CREATE TABLE IF NOT EXISTS PYTORCH_CALLCHAINS (id INTEGER, stack INTEGER, "
	              "stackDepth INTEGER);");
	for (int s = 0; s < GEN_NSTACKS; s++)
		for (int d = 0; d < 5 && stacks[s][d] != NULL; d++) {
			gen_w_pair(w, w->q[Q_STR], STACK_STR + s * 8 + d, NULL, stacks[s][d]);
			char *sql = xasprintf("INSERT INTO PYTORCH_CALLCHAINS VALUES (%d,%d,%d);",
			                      s + 1, STACK_STR + s * 8 + d, d);
			gen_w_exec(w, sql);
			free(sql);
		}
}

/* ---- launch delays (gen_opts.launch_jitter, gen_truth.launches) ---- */

/* With launch_jitter, how much earlier than LEAD the launch of work starting at dev_start
 * starts: 0..JITTER_MAX from the seed, less where it would reach into the previous launch. */
static int64_t
launch_jitter(gen_writer *w, int64_t dev_start)
{
	if (!w->P->o.launch_jitter)
		return 0;
	int64_t j =
	    (int64_t)(gen_seed_of(w->P->o.seed, 0x1A0C, (uint64_t)w->rank, (uint64_t)w->next_conn) %
	              (JITTER_MAX / US + 1)) *
	    US;
	int64_t room = dev_start - LEAD - w->ahead - w->host_end;
	return j < room ? j : room > 0 ? room : 0;
}

void
gen_w_launch_truth(gen_writer *w, int64_t dev_start, int name)
{
	const gen_truth *T = &w->P->tr;
	int64_t step = -1;
	if (T->nsteps == 1)
		step = T->steps[0].step;
	for (size_t i = 0; T->nsteps > 1 && i < T->nsteps; i++)
		if (w->last_launch >= T->steps[i].start_ns && w->last_launch <= T->steps[i].end_ns)
			step = T->steps[i].step;
	gen_launch_truth x = {w->rank, step, dev_start - w->last_launch, w->last_launch, 0, 0, -1};
	if (w->P->o.host_ops) {
		x.op_start_ns = w->last_launch - HOST_OP_LEAD;
		if (w->P->o.with_stack) {
			x.stack = (int)((uint64_t)w->next_conn % GEN_NSTACKS);
			w->callchain = x.stack + 1;
		}
		gen_w_torch_op(w, x.op_start_ns, w->last_launch - HOST_OP_TAIL, w->gtid_main, name,
		               -1, 0, w->next_conn - 1);
		w->callchain = 0;
	}
	VEC_PUSH(w->lt, w->nlt, w->ltcap, x);
	int64_t conn = w->next_conn - 1;
	VEC_PUSH(w->lt_conn, w->nltc, w->ltccap, conn);
}

/* One CANN_API row at host time start; returns its connectionId. */
int64_t
gen_w_launch_at(gen_writer *w, int type, int name, int64_t start)
{
	int64_t conn = w->next_conn++;
	int64_t end = start + 1500 + (conn % 8) * 100;
	if (start < w->host_end && !w->err) {
		msg_error("gen: internal error: rank %d: launch at %" PRId64
		          " overlaps the previous",
		          w->rank, start);
		w->err = 1;
	}
	w->host_end = end;
	w->last_launch = start;
	int zero = 0;
	if (conn - CONN_BASE == (int64_t)w->nconn)
		VEC_PUSH(w->conn_tasks, w->nconn, w->conncap, zero);
	int64_t v[6] = {start, end, type, w->gtid_dq, conn, name};
	gen_w_row(w, Q_API, v, 6);
	return conn;
}

/* One CANN_API row, LEAD (plus the host's lead, if it runs ahead) before the device task it
 * launches; returns its connectionId. */
int64_t
gen_w_launch(gen_writer *w, int type, int name, int64_t dev_start)
{
	int64_t late = w->late_once;
	w->late_once = 0;
	int64_t at = dev_start - LEAD - w->ahead - launch_jitter(w, dev_start) + late;
	/* a late host's next launches follow the late one as soon as it is done */
	if (at < w->host_end && gen_host_late(&w->P->o, w->rank, -1) > 0)
		at = w->host_end;
	return gen_w_launch_at(w, type, name, at);
}

int64_t
gen_w_task(gen_writer *w, int64_t start, int64_t end, int64_t conn, int type, int64_t ctx,
           int stream, int64_t taskid)
{
	int64_t g = w->next_gtask++;
	int64_t v[11] = {start, end, w->dev, conn,   g,          w->pid,
	                 type,  ctx, stream, taskid, INVALID_U32};
	gen_w_row(w, Q_TASK, v, 11);
	w->tasks++;
	if (conn >= CONN_BASE && conn - CONN_BASE < (int64_t)w->nconn)
		w->conn_tasks[conn - CONN_BASE]++;
	return g;
}

/* A COMPUTE_TASK_INFO row for the task gtask of duration d, counted in the operator truth. */
void
gen_w_cti(gen_writer *w, int64_t gtask, int k, int cti_type, int64_t d)
{
	const gen_kernel *kn = &gen_kernels[k];
	const char *ot = gen_str_text[kn->optype], *tt = gen_str_text[cti_type];
	size_t i = 0;
	while (i < w->nops && (w->ops[i].op_type != ot || w->ops[i].task_type != tt))
		i++; /* the strings are str_text's own: equal strings are the same pointer */
	if (i == w->nops) {
		gen_op_truth o = {.rank = w->rank, .op_type = ot, .task_type = tt};
		VEC_PUSH(w->ops, w->nops, w->opcap, o);
	}
	w->ops[i].count++;
	w->ops[i].total_ns += d;
	int64_t v[17] = {kn->name,   gtask,         kn->block_num, kn->mix_block_num, cti_type,
	                 kn->optype, kn->in_fmt,    kn->in_dt,     kn->in_shape,      kn->out_fmt,
	                 kn->out_dt, kn->out_shape, S_NA,          S_DYNAMIC,         S_NO,
	                 S_NA,       S_NA};
	gen_w_row(w, Q_CTI, v, 17);
}

void
gen_w_kernel(gen_writer *w, int k, int stream, int64_t start, int64_t d)
{
	int64_t conn = gen_w_launch(w, API_NODE, S_LAUNCH, start);
	/* gen_opts.aicpu: the sampling argmax runs on the AI CPU, as a fallback operator does */
	int cpu = w->P->o.aicpu && k == K_ARGMAX;
	int64_t g =
	    gen_w_task(w, start, start + d, conn, cpu ? S_KERNEL_AICPU : gen_kernels[k].task_type,
	               INVALID_U32, stream, gen_w_taskid(w, stream));
	gen_w_cti(w, g, k, cpu ? S_AI_CPU : gen_kernels[k].cti_type, d);
	gen_w_launch_truth(w, start, gen_kernels[k].name);
}

/* An FFTS+ kernel: a container row (contextId INVALID, not in COMPUTE_TASK_INFO) a little wider
 * than its two children (contextId 0, 1; same stream and taskId), which tile [start, start+d). */
static void
w_ffts(gen_writer *w, int stream, int64_t start, int64_t d)
{
	int64_t c0 = d * 6 / 10;
	int64_t conn = gen_w_launch(w, API_NODE, S_LAUNCH, start - FFTS_PRE);
	int64_t tid = gen_w_taskid(w, stream);
	gen_w_task(w, start - FFTS_PRE, start + d + FFTS_POST, conn, S_KERNEL_MIX_AIC, INVALID_U32,
	           stream, tid);
	int64_t g0 = gen_w_task(w, start, start + c0, conn, S_MIX_AIC, 0, stream, tid);
	gen_w_cti(w, g0, K_FAG, S_MIX_AIC, c0);
	int64_t g1 = gen_w_task(w, start + c0, start + d, conn, S_MIX_AIV, 1, stream, tid);
	gen_w_cti(w, g1, K_FAG, S_MIX_AIV, d - c0);
	gen_w_launch_truth(w, start, gen_kernels[K_FAG].name); /* the container is neither compute
	                                                   nor communication */
}

/* A memcpy or event task inside an aux gap (never inside a bubble); the kinds take turns. */
static void
w_aux(gen_writer *w, int stream, int64_t start)
{
	static const struct {
		int api, type;
		int64_t ns;
	} aux[4] = {
	    {S_MEMCPY_API, S_MEMCPY_ASYNC, 8 * US},
	    {S_RECORD_API, S_EVENT_RECORD, 0},
	    {S_MEMCPY_API, S_MEMCPY_ASYNC, 6 * US},
	    {S_WAIT_API, S_EVENT_WAIT, 1200},
	};
	int i = (int)(w->naux++ % 4);
	int64_t conn = gen_w_launch(w, API_ACL, aux[i].api, start);
	gen_w_task(w, start, start + aux[i].ns, conn, aux[i].type, INVALID_U32, stream,
	           gen_w_taskid(w, stream));
}

void
gen_w_mstx(gen_writer *w, int64_t start, int64_t end, int message)
{
	int64_t v[10] = {start,   end,          MSTX_RANGE,   INVALID_U32, INVALID_U32,
	                 message, w->gtid_main, w->gtid_main, S_DEFAULT,   INVALID_U32};
	gen_w_row(w, Q_MSTX, v, 10);
}

/* The range around one decode step, as gen_opts.decode_marks says (GEN_DECODE_NONE: none). */
static void
w_decode_mark(gen_writer *w, const gen_blk *b, int64_t start, int64_t end)
{
	if (w->P->o.decode_marks == GEN_DECODE_DP) {
		gen_w_dp_step(w, b, start, end);
	} else if (w->P->o.decode_marks == GEN_DECODE_RANGES) {
		gen_w_mstx(w, start, end, S_DECODE);
	} else if (w->P->o.decode_marks == GEN_DECODE_VLLM) {
		/* range_start("vllm_one_step", domain="vllm_one_step"): no stream, host only */
		int64_t v[10] = {start,       end,          MSTX_RANGE,   INVALID_U32, INVALID_U32,
		                 S_VLLM_STEP, w->gtid_main, w->gtid_main, S_VLLM_STEP, INVALID_U32};
		gen_w_row(w, Q_MSTX, v, 10);
	}
}

void
gen_w_run(gen_writer *w, const gen_blk *b)
{
	kdraw g;
	int k;
	int64_t t = b->start;
	gen_kdraw_init(&g, &w->P->o, b->seed, b->mix, gen_stage_f(&w->P->o, w->rk, b->stage));
	w->late_once = gen_host_late(&w->P->o, w->rank, b->stage); /* the run's first launch */
	for (uint32_t i = 0; i < b->nk; i++) {
		int64_t d = gen_kdraw_next(&g, &k);
		if ((b->flags & BF_FFTS) && i == FFTS_SLOT)
			w_ffts(w, b->stream, t, d);
		else
			gen_w_kernel(w, k, b->stream, t, d);
		t += d;
		if (i + 1 < b->nk) {
			if (gen_gap_is_aux(i, b->nk)) {
				w_aux(w, b->stream, t + AUX_OFF);
				t += AUXGAP;
			} else {
				t += KGAP;
			}
		}
	}
	if (b->flags & BF_PAD) {
		t += KGAP;
		gen_w_kernel(w, K_COPY, b->stream, t, PAD_MIN + b->pad);
		t += PAD_MIN + b->pad;
	}
	if (t != b->end && !w->err) {
		msg_error("gen: internal error: rank %d: run ends at %" PRId64 ", planned %" PRId64,
		          w->rank, t, b->end);
		w->err = 1;
	}
	if ((b->flags & BF_DECODE) && !w->P->o.no_stage_ranges)
		w_decode_mark(w, b, b->start - LEAD - DEC_PRE, b->end + DEC_POST);
}

/* A COMMUNICATION_TASK_INFO row: 15 integer columns, then bandwidth (NUMERIC). */
void
gen_w_ctask(gen_writer *w, const int64_t *v, double bandwidth)
{
	sqlite3_stmt *st = w->q[Q_CTASK];
	if (w->err)
		return;
	for (int i = 0; i < 15; i++)
		sqlite3_bind_int64(st, i + 1, v[i]);
	sqlite3_bind_double(st, 16, bandwidth);
	if (sqlite3_step(st) != SQLITE_DONE)
		gen_w_fail(w, "insert");
	sqlite3_reset(st);
}

void
gen_w_coll(gen_writer *w, const gen_blk *b)
{
	const gen_plan *P = w->P;
	int R = P->nranks, r = w->rank;
	int allreduce = b->optype == OP_ALLREDUCE;
	char name[64];
	int64_t name_id = S__COUNT + (int64_t)b->op;
	snprintf(name, sizeof name, "%s_%03u_%u_1",
	         allreduce ? "hcom_allReduce_" : "hcom_allGather_", P->gen_group_hash3, b->seq);
	if (!w->err) {
		sqlite3_bind_text(w->q[Q_STR], 2, name, -1, SQLITE_TRANSIENT);
		int64_t v[1] = {name_id};
		gen_w_row(w, Q_STR, v, 1);
	}

	int64_t count = gen_coll_bytes(&P->o, b->op) / 2; /* BF16 elements */
	int64_t conn = gen_w_launch(w, API_NODE, S_LAUNCH, b->start);
	gen_w_launch_truth(w, b->start, (int)name_id); /* its first sub-task, the notify wait,
	                                             starts the op */
	int64_t opid = w->next_opid++;
	int64_t ov[14] = {name_id,   b->start,
	                  b->end,    conn,
	                  S_GROUP,   opid,
	                  0,         0,
	                  HCCL_BF16, allreduce ? S_MESH_RING : S_MESH,
	                  count,     allreduce ? S_ALLREDUCE : S_ALLGATHER,
	                  w->dev,    R};
	gen_w_row(w, Q_OP, ov, 14);

	/* sub-tasks, one stream each: the wait for the last rank, then one transfer per plane */
	int64_t nw_end = b->wait_end + NOTIFY_NS;
	int64_t g = gen_w_task(w, b->start, nw_end, conn, S_NOTIFY_WAIT_SQE, INVALID_U32,
	                       STREAM_COMM, gen_w_taskid(w, STREAM_COMM));
	int64_t cw[15] = {name_id,
	                  g,
	                  S_HCCL_NOTIFY_WAIT,
	                  0,
	                  S_GROUP,
	                  (int64_t)b->op << 8,
	                  RDMA_INVALID,
	                  (r + R - 1) % R,
	                  r,
	                  TRANSPORT_LOCAL,
	                  4,
	                  HCCL_INT32,
	                  LINK_ON_CHIP,
	                  opid,
	                  1};
	gen_w_ctask(w, cw, 0.0);
	int nplanes = b->nsub - 1;
	int64_t size = gen_coll_bytes(&P->o, b->op) / nplanes;
	for (int p = 0; p < nplanes; p++) {
		int stream = STREAM_COMM + 1 + p;
		int64_t ps = nw_end + p * 500, pe = b->end - p * 700;
		int htype = !allreduce || p % 2 == 0 ? S_HCCL_MEMCPY : S_HCCL_REDUCE_INLINE;
		int64_t psize = r == P->o.slow_link && p == 0 ? size / 4 : size;
		g = gen_w_task(w, ps, pe, conn, S_SDMA, INVALID_U32, stream,
		               gen_w_taskid(w, stream));
		int64_t cv[15] = {name_id,         g,
		                  htype,           p,
		                  S_GROUP,         -1,
		                  RDMA_INVALID,    r,
		                  (r + p + 1) % R, TRANSPORT_SDMA,
		                  psize,           HCCL_BF16,
		                  LINK_HCCS,       opid,
		                  p == 0};
		gen_w_ctask(w, cv, (double)psize * 1e9 / (double)(pe - ps)); /* bytes/s */
	}

	/* overlap kernels on the main compute stream, wholly inside the op */
	if (b->nk > 0) {
		kdraw kg;
		int k;
		int64_t t = b->start + OVL_DELAY;
		gen_kdraw_init(&kg, &w->P->o, b->seed, MIX_OVERLAP,
		               gen_stage_f(&w->P->o, w->rk, b->stage));
		for (uint32_t i = 0; i < b->nk; i++) {
			int64_t d = gen_kdraw_next(&kg, &k);
			gen_w_kernel(w, k, STREAM_A, t, d);
			t += d + (i + 1 < b->nk ? KGAP : 0);
		}
		if (t > b->end - OVL_TAIL && !w->err) {
			msg_error("gen: internal error: rank %d: overlap kernels leave their op",
			          r);
			w->err = 1;
		}
	}
}

/* ---- MEMORY_RECORD (gen_opts.memory_records) ----
 * torch_npu records the allocator's totals at each allocation and free, per component (PTA: the
 * PyTorch caching allocator, GE: graph engine workspace). Here: a sample at the start, middle and
 * end of every stage range of the rank, growing through a stage and falling back after it, and
 * one highest allocated total at the middle of one stage per rank (the stage of index rank %
 * stages, in its last step): the peak is known, and so is the stage and step it falls in. */

/* ---- OP_MEMORY, NPU_MEM, AICORE_FREQ (with the memory records) ----
 * Per stage range of the rank: an aten::mm tensor (16 to 112 MiB) live over the range, a GE
 * workspace of 1 MiB (no stream, as GE's rows have none); in the peak's stage, an
 * aten::empty_strided of 512 MiB (+ 4 KiB per rank) live from 1 us before the allocated peak
 * to 1 us after it: the largest allocation live then. In the first range, an aten::zeros
 * never released. NPU_MEM follows PTA's reserved total (app HBM = reserved + 128 MiB, device
 * HBM 2 GiB more, DDR a little), sampled with it; AICORE_FREQ is 1800 MHz but 1200 at the
 * peak (throttling). */

static const char *const mem_strs[] = {
    "app", "device", "aten::mm", "aten::zeros", "aten::empty_strided", "trans_TransData"};
enum { MS_APP = 2, MS_DEVICE, MS_MM, MS_ZEROS, MS_EMPTY, MS_TRANS }; /* MEM_STR_BASE + */

static void
mem_row(gen_writer *w, sqlite3_stmt *st, const int64_t *v, const int *null, int n)
{
	for (int i = 0; i < n; i++)
		if (null && null[i])
			sqlite3_bind_null(st, i + 1);
		else
			sqlite3_bind_int64(st, i + 1, v[i]);
	if (sqlite3_step(st) != SQLITE_DONE)
		gen_w_fail(w, "insert memory rows");
	sqlite3_reset(st);
}

static void
gen_w_memory_more(gen_writer *w, gen_rank *rk, size_t peak)
{
	gen_w_exec(
	    w, "CREATE TABLE IF NOT EXISTS OP_MEMORY (name INTEGER, size INTEGER, "
	       "allocationTime INTEGER, releaseTime INTEGER, activeReleaseTime INTEGER, duration "
	       "INTEGER, activeDuration INTEGER, allocationTotalAllocated INTEGER, "
	       "allocationTotalReserved INTEGER, allocationTotalActive INTEGER, "
	       "releaseTotalAllocated INTEGER, releaseTotalReserved INTEGER, releaseTotalActive "
	       "INTEGER, streamPtr INTEGER, deviceId INTEGER);"
	       "CREATE TABLE IF NOT EXISTS NPU_MEM (type INTEGER, ddr NUMERIC, hbm NUMERIC, "
	       "timestampNs INTEGER, deviceId INTEGER);"
	       "CREATE TABLE IF NOT EXISTS AICORE_FREQ (deviceId INTEGER, timestampNs NUMERIC, "
	       "freq INTEGER);");
	sqlite3_stmt *om = NULL, *nm = NULL, *fq = NULL;
	if (w->err ||
	    sqlite3_prepare_v2(w->db,
	                       "INSERT INTO OP_MEMORY (name, size, allocationTime, releaseTime, "
	                       "streamPtr, deviceId) VALUES (?,?,?,?,?,?)",
	                       -1, &om, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO NPU_MEM VALUES (?,?,?,?,?)", -1, &nm, NULL) !=
	        SQLITE_OK ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO AICORE_FREQ VALUES (?,?,?)", -1, &fq, NULL) !=
	        SQLITE_OK) {
		gen_w_fail(w, "prepare the memory tables");
		sqlite3_finalize(om);
		sqlite3_finalize(nm);
		return;
	}
	for (int s = MS_APP; s <= MS_TRANS && !w->err; s++) {
		sqlite3_bind_text(w->q[Q_STR], 2, mem_strs[s - MS_APP], -1, SQLITE_STATIC);
		int64_t v[1] = {MEM_STR_BASE + s};
		gen_w_row(w, Q_STR, v, 1);
	}
	const gen_truth *T = &w->P->tr;
	gen_memory_truth *m = &rk->memory[0];
	int64_t stream = 0x7f3a00000000 + w->rank;
	size_t si = 0;
	int first = 1;
	for (size_t i = 0; i < T->nstages && !w->err; i++) {
		const gen_stage_truth *g = &T->stages[i];
		if (g->rank != w->rank)
			continue;
		int64_t mid = g->start_ns + (g->end_ns - g->start_ns) / 2;
		int64_t mm = (int64_t)(si % 7 + 1) * (16 << 20);
		int64_t r1[6] = {MEM_STR_BASE + MS_MM, mm,     g->start_ns + US,
		                 g->end_ns - US,       stream, w->dev};
		mem_row(w, om, r1, NULL, 6);
		int64_t r2[6] = {MEM_STR_BASE + MS_TRANS, 1 << 20, g->start_ns + US,
		                 g->end_ns - US,          0,       w->dev};
		int null2[6] = {0, 0, 0, 0, 1, 0};
		mem_row(w, om, r2, null2, 6);
		if (first) {
			int64_t r3[6] = {MEM_STR_BASE + MS_ZEROS,
			                 8 << 20,
			                 g->start_ns + 2 * US,
			                 0,
			                 stream,
			                 w->dev};
			int null3[6] = {0, 0, 0, 1, 0, 0};
			mem_row(w, om, r3, null3, 6);
			/* the clock at the start */
			int64_t f0[3] = {w->dev, g->start_ns, 1800};
			mem_row(w, fq, f0, NULL, 3);
			first = 0;
		}
		if (i == peak) {
			int64_t big = ((int64_t)512 << 20) + (int64_t)w->rank * 4096;
			int64_t r4[6] = {
			    MEM_STR_BASE + MS_EMPTY, big, mid - US, mid + US, stream, w->dev};
			mem_row(w, om, r4, NULL, 6);
			m->live_size = big;
			m->live_op = "aten::empty_strided";
			int64_t f1[3] = {w->dev, mid, 1200}, f2[3] = {w->dev, g->end_ns, 1800};
			mem_row(w, fq, f1, NULL, 3);
			mem_row(w, fq, f2, NULL, 3);
			m->freq_min = 1200;
			m->freq_min_ns = mid;
		}
		/* NPU memory at the memory records' times: PTA's reserved total and more */
		int64_t at[3] = {g->start_ns + US, mid, g->end_ns - US};
		for (int j = 0; j < 3; j++) {
			int64_t alloc = MEM_BASE + (int64_t)(si % 7) * (64 << 20) +
			                (j == 1 ? (int64_t)512 << 20 : 0);
			if (i == peak && j == 1)
				alloc = MEM_PEAK + (int64_t)w->rank * 4096;
			int64_t hbm = alloc + ((int64_t)256 << 20) + ((int64_t)128 << 20);
			int64_t app[5] = {MEM_STR_BASE + MS_APP, 0, hbm, at[j], w->dev};
			int64_t dev[5] = {MEM_STR_BASE + MS_DEVICE, (64 << 20) + j * 4096,
			                  hbm + ((int64_t)2 << 30), at[j], w->dev};
			mem_row(w, nm, app, NULL, 5);
			mem_row(w, nm, dev, NULL, 5);
			if (hbm > m->npu_app_hbm) {
				m->npu_app_hbm = hbm;
				m->npu_app_hbm_ns = at[j];
			}
		}
		si++;
	}
	sqlite3_finalize(om);
	sqlite3_finalize(nm);
	sqlite3_finalize(fq);
}

void
gen_w_memory(gen_writer *w, gen_rank *rk)
{
	static const char *const comp[2] = {"PTA", "GE"};
	gen_w_exec(
	    w, "CREATE TABLE IF NOT EXISTS MEMORY_RECORD (component INTEGER, timestamp INTEGER, "
	       "totalAllocated INTEGER, totalReserved INTEGER, totalActive INTEGER, streamPtr "
	       "INTEGER, deviceId INTEGER);");
	sqlite3_stmt *st = NULL;
	if (w->err || sqlite3_prepare_v2(w->db, "INSERT INTO MEMORY_RECORD VALUES (?,?,?,?,?,?,?)",
	                                 -1, &st, NULL) != SQLITE_OK) {
		gen_w_fail(w, "prepare MEMORY_RECORD");
		return;
	}
	for (int c = 0; c < 2 && !w->err; c++) {
		sqlite3_bind_text(w->q[Q_STR], 2, comp[c], -1, SQLITE_STATIC);
		int64_t v[1] = {MEM_STR_BASE + c};
		gen_w_row(w, Q_STR, v, 1);
	}
	const gen_truth *T = &w->P->tr;
	/* the stages of this rank, in time order (the truth lists them so); the peak's stage */
	size_t nst = 0, peak = SIZE_MAX;
	for (size_t i = 0; i < T->nstages; i++)
		if (T->stages[i].rank == w->rank)
			nst++;
	size_t want = nst ? (size_t)w->rank % nst : 0, k = 0;
	for (size_t i = 0; i < T->nstages; i++)
		if (T->stages[i].rank == w->rank && k++ == want)
			peak = i;
	for (int c = 0; c < 2; c++)
		rk->memory[c] =
		    (gen_memory_truth){.rank = w->rank, .component = comp[c], .stage = -1};
	int64_t stream = 0x7f3a00000000 + w->rank;
	size_t si = 0;
	for (size_t i = 0; i < T->nstages && !w->err; i++) {
		const gen_stage_truth *g = &T->stages[i];
		if (g->rank != w->rank)
			continue;
		int64_t mid = g->start_ns + (g->end_ns - g->start_ns) / 2;
		int64_t at[3] = {g->start_ns + US, mid, g->end_ns - US};
		for (int j = 0; j < 3; j++)
			for (int c = 0; c < 2; c++) {
				int64_t scale = c == 0 ? 1 : 16; /* GE holds a sixteenth of PTA */
				int64_t alloc = MEM_BASE + (int64_t)(si % 7) * (64 << 20) +
				                (j == 1 ? (int64_t)512 << 20 : 0);
				if (i == peak && j == 1)
					alloc = MEM_PEAK + (int64_t)w->rank * 4096;
				alloc /= scale;
				int64_t reserved = alloc + ((int64_t)256 << 20) / scale;
				int64_t active = alloc - (alloc / 8);
				sqlite3_bind_int64(st, 1, MEM_STR_BASE + c);
				sqlite3_bind_int64(st, 2, at[j]);
				sqlite3_bind_int64(st, 3, alloc);
				sqlite3_bind_int64(st, 4, reserved);
				sqlite3_bind_int64(st, 5, active);
				sqlite3_bind_int64(st, 6, stream);
				sqlite3_bind_int64(st, 7, w->dev);
				if (sqlite3_step(st) != SQLITE_DONE)
					gen_w_fail(w, "insert MEMORY_RECORD");
				sqlite3_reset(st);
				gen_memory_truth *m = &rk->memory[c];
				if (alloc > m->peak_allocated) {
					m->peak_allocated = alloc;
					m->peak_allocated_ns = at[j];
					m->step = g->step;
					m->stage = g->stage;
				}
				if (reserved > m->peak_reserved)
					m->peak_reserved = reserved;
				if (active > m->peak_active)
					m->peak_active = active;
			}
		si++;
	}
	sqlite3_finalize(st);
	rk->nmemory = 2;
	gen_w_memory_more(w, rk, peak);
}

/* One PYTORCH_API row; times are TEXT in every torch_npu version, so they are bound
 * as text. link < 0: no CONNECTION_IDS rows (connectionId NULL). */
void
gen_w_torch_op(gen_writer *w, int64_t start, int64_t end, int64_t gtid, int name, int64_t seq,
               int64_t fwd_tid, int64_t link)
{
	sqlite3_stmt *st = w->q[Q_TORCH];
	char s[24], e[24];
	if (w->err)
		return;
	snprintf(s, sizeof s, "%" PRId64, start);
	snprintf(e, sizeof e, "%" PRId64, end);
	sqlite3_bind_text(st, 1, s, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, e, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, gtid);
	if (link >= 0) {
		int64_t id = w->next_oplink++;
		int64_t v[2] = {id, link};
		sqlite3_bind_int64(st, 4, id);
		gen_w_row(w, Q_CONN_IDS, v, 2);
	} else {
		sqlite3_bind_null(st, 4);
	}
	sqlite3_bind_int64(st, 5, name);
	sqlite3_bind_int64(st, 6, seq);
	sqlite3_bind_int64(st, 7, fwd_tid);
	for (int c = 8; c <= 10; c++) /* no record_shapes; with_stack: the operator's stack */
		sqlite3_bind_null(st, c);
	if (w->callchain > 0)
		sqlite3_bind_int64(st, 10, w->callchain);
	sqlite3_bind_int64(st, 11, TORCH_OP);
	if (sqlite3_step(st) != SQLITE_DONE)
		gen_w_fail(w, "insert");
	sqlite3_reset(st);
}

/* An mstx range given a stream: the queued torch ops of its start and end on the host, the
 * MSTX_EVENTS row, and a marker task on the device. */
void
gen_w_mstx_device(gen_writer *w, int64_t hs, int64_t he, int64_t ds, int64_t de, int msg,
                  int domain)
{
	int64_t conn = w->next_mark++ + MSTX_CONN_BASE;
	gen_w_torch_op(w, hs - 6 * US, hs - 5 * US, w->gtid_main, PPS_MSTX_START_OP, -1, 0, conn);
	gen_w_torch_op(w, he - 4 * US, he - 3 * US, w->gtid_main, PPS_MSTX_END_OP, -1, 0, conn);
	int64_t v[10] = {hs,  he,         MSTX_RANGE, INVALID_U32, INVALID_U32,
	                 msg, w->gtid_dq, w->gtid_dq, domain,      conn};
	gen_w_row(w, Q_MSTX, v, 10);
	gen_w_task(w, ds, de, conn, PPS_MSTX_TYPE, INVALID_U32, STREAM_A,
	           gen_w_taskid(w, STREAM_A));
}

/* dp_analysis' step range given a stream, [hs, he] on the host and the step's kernels [ds, de]
 * on the device, and the mark with the step's JSON before its end (also given the stream: a
 * MsTx marker task after the kernels). */
#define DPS_MSG 6000000 /* + per-DB counter: the marks' messages */
void
gen_w_dp_step(gen_writer *w, const gen_blk *b, int64_t hs, int64_t he)
{
	if (b->step != w->dp_step) {
		w->dp_step = b->step;
		w->dp_i = 0;
	}
	int d = w->dp_i++, n = gen_decode_count(w->P, b->step, w->rank);
	gen_w_mstx_device(w, hs, he, b->start, b->end, S_DP_STEP, S_DP_DOMAIN);
	if (w->P->o.dp_bad_marks && w->rank == 2 && b->step + 1 == w->P->o.nsteps && d == n - 1)
		return; /* the missing mark */
	gen_dp_step_truth t;
	gen_dp_stats(w->rank, b->step, d, n, &t);
	char msg[160];
	if (!w->P->o.dp_bad_marks || !(w->rank == 1 && d == 1))
		snprintf(msg, sizeof msg,
		         "{\"running_reqs\": %d, \"waiting_reqs\": %d, \"gpu_cache_usage\": %.17g, "
		         "\"out_tokens\": %d}",
		         t.running, t.waiting, t.cache_usage, t.out_tokens);
	else /* cut short, as a message over the profiler's length limit would be */
		snprintf(msg, sizeof msg, "{\"running_reqs\": %d, \"waiting_re", t.running);
	int64_t id = DPS_MSG + w->next_dpmsg++;
	gen_w_pair(w, w->q[Q_STR], id, NULL, msg);
	/* given a stream too: the queued mstx_mark_op, the dequeue thread's row (endNs = startNs),
	 * and a zero-length MsTx marker task where the step's kernels end */
	int64_t conn = w->next_mark++ + MSTX_CONN_BASE, ms = he - DP_MARK_OFF;
	gen_w_torch_op(w, ms - 6 * US, ms - 5 * US, w->gtid_main, PPS_MSTX_MARK_OP, -1, 0, conn);
	int64_t v[10] = {ms, ms,         MSTX_MARK_EX, INVALID_U32, INVALID_U32,
	                 id, w->gtid_dq, w->gtid_dq,   S_DP_DOMAIN, conn};
	gen_w_row(w, Q_MSTX, v, 10);
	gen_w_task(w, b->end, b->end, conn, PPS_MSTX_TYPE, INVALID_U32, STREAM_A,
	           gen_w_taskid(w, STREAM_A));
}
