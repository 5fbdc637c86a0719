/* Pipeline parallelism in the generator (gen_opts.pp): the 1F1B schedule of every PP stage and
 * the rows that write it (forward/backward ranges, their kernels, the P2P sends and receives). */
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

/* ---- pipeline parallelism (gen_opts.pp) ----------------------------------------------------
 * Each PP stage runs its schedule (1F1B or GPipe) over the step's micro-batches. A block that
 * needs data from a neighbour (F(s,m) needs F(s-1,m); B(s,m) needs B(s+1,m)) waits for a
 * rendezvous: the sender posts hcom_send PP_SEND_OFF after its block, the receiver posts
 * hcom_receive PP_RECV_OFF after its previous block, both end a transfer time after the later of
 * the two, and the block starts PP_AFTER_RECV later. Blocks without a P2P dependency start
 * PP_GAP after the previous one. Sends are asynchronous: the sender does not wait for them. The
 * DP replicas of a stage run the same timeline. All offsets keep the launches of one rank at
 * least 5 us apart (a launch lasts at most 2.2 us). */

static int64_t
pp_dur(const gen_plan *P, int k, int s, int m, char kind)
{
	int64_t f = PP_F_BASE + s * PP_F_STAGE +
	            (int64_t)(gen_seed_of(P->o.seed, 0xB10C, (uint64_t)(k * 1000 + s),
	                                  (uint64_t)(m * 2 + (kind == 'B'))) %
	                      (uint64_t)PP_JITTER);
	return kind == 'F' ? f : 2 * f;
}

static void
pp_push(gen_plan *P, int s, pp_item it)
{
	for (int d = 0; d < P->pp_dp; d++) {
		gen_rank *rk = &P->rk[s * P->pp_dp + d];
		pp_item x = it;
		if (x.what != PPI_BLOCK) {
			x.peer = x.peer * P->pp_dp + d;
			x.group = x.group * P->pp_dp + d;
		}
		VEC_PUSH(rk->pp, rk->npp, rk->ppcap, x);
	}
}

/* When the item's first CANN launch happens: its device start (the first kernel's for a block)
 * minus LEAD. The writer emits a rank's items in this order (launches never overlap). */
static int64_t
pp_launch_at(const pp_item *x)
{
	return x->start + (x->what == PPI_BLOCK ? PP_KOFF : 0) - LEAD;
}

static int
cmp_pp_item(const void *a, const void *b)
{
	int64_t x = pp_launch_at(a), y = pp_launch_at(b);
	return (x > y) - (x < y);
}

static int
cmp_pp_block_truth(const void *a, const void *b)
{
	const gen_pp_block_truth *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

int
gen_plan_pp(gen_plan *P)
{
	int S = P->o.pp, M = P->pp_mb, n = 2 * M, rc = 0;
	char *kind = xcalloc((size_t)(S * n), 1);
	int *mb = xcalloc((size_t)(S * n), sizeof *mb);
	int *pos = xcalloc((size_t)S, sizeof *pos);
	int64_t *free_at = xcalloc((size_t)S, sizeof *free_at);
	int64_t *fend = xcalloc((size_t)(S * M), sizeof *fend),
	        *bend = xcalloc((size_t)(S * M), sizeof *bend);
	int64_t *busy = xcalloc((size_t)S, sizeof *busy);
	uint32_t *seq = xcalloc((size_t)S, sizeof *seq);
	int64_t step_start = P->t0;
	for (int s = 0; s < S; s++)
		gen_pp_order(P->o.pp_schedule, S, s, M, kind + s * n, mb + s * n);
	for (int k = 0; k < P->nsteps && rc == 0; k++) {
		int64_t first = INT64_MAX, last = INT64_MIN;
		for (int s = 0; s < S; s++) {
			pos[s] = 0;
			free_at[s] = step_start + STEP_PRE - PP_GAP;
			busy[s] = 0;
		}
		for (int i = 0; i < S * M; i++)
			fend[i] = bend[i] = -1;
		for (int left = S * n; left > 0 && rc == 0;) {
			int progress = 0;
			for (int s = 0; s < S; s++) {
				while (pos[s] < n) {
					char kd = kind[s * n + pos[s]];
					int m = mb[s * n + pos[s]];
					int src = kd == 'F'
					              ? s - 1
					              : s + 1; /* the stage it needs data from */
					int64_t dep = -1, start;
					if (src >= 0 && src < S) {
						dep = kd == 'F' ? fend[src * M + m]
						                : bend[src * M + m];
						if (dep < 0)
							break; /* not there yet */
					}
					if (dep >= 0 && !P->o.pp_no_p2p) {
						int64_t ss = dep + PP_SEND_OFF,
						        rs = free_at[s] + PP_RECV_OFF;
						int64_t x =
						    (ss > rs ? ss : rs) + PP_XFER +
						    (int64_t)(gen_seed_of(
						                  P->o.seed, 0x9292, (uint64_t)k,
						                  (uint64_t)(s * 2 * M + 2 * m +
						                             (kd == 'B'))) %
						              (20 * US));
						int g = s < src ? s : src;
						uint32_t q = seq[g]++;
						pp_push(P, src,
						        (pp_item){.start = ss,
						                  .end = x,
						                  .what = PPI_SEND,
						                  .peer = s,
						                  .group = g,
						                  .seq = q});
						pp_push(P, s,
						        (pp_item){.start = rs,
						                  .end = x,
						                  .what = PPI_RECV,
						                  .peer = src,
						                  .group = g,
						                  .seq = q});
						for (int d = 0; d < P->pp_dp; d++) {
							gen_p2p_truth pt = {
							    .step = k + 1,
							    .src_rank = src * P->pp_dp + d,
							    .dst_rank = s * P->pp_dp + d,
							    .send_start_ns = ss,
							    .send_end_ns = x,
							    .recv_start_ns = rs,
							    .recv_end_ns = x};
							VEC_PUSH(P->tr.p2p, P->tr.np2p, P->p2p_cap,
							         pt);
						}
						start = x + PP_AFTER_RECV;
					} else {
						start = free_at[s] + PP_GAP;
						if (dep >= 0 &&
						    dep + PP_GAP >
						        start) /* no P2P: data still flows */
							start = dep + PP_GAP;
					}
					int64_t end = start + pp_dur(P, k, s, m, kd);
					pp_push(P, s,
					        (pp_item){.start = start,
					                  .end = end,
					                  .what = PPI_BLOCK,
					                  .kind = kd,
					                  .mb = m,
					                  .step = k});
					for (int d = 0; d < P->pp_dp; d++) {
						gen_pp_block_truth bt = {.rank = s * P->pp_dp + d,
						                         .pp_stage = s,
						                         .step = k + 1,
						                         .kind = kd,
						                         .microbatch = m,
						                         .start_ns = start,
						                         .end_ns = end};
						VEC_PUSH(P->tr.pp_blocks, P->tr.npp_blocks,
						         P->ppb_cap, bt);
					}
					(kd == 'F' ? fend : bend)[s * M + m] = end;
					busy[s] += end - start;
					free_at[s] = end;
					if (start < first)
						first = start;
					if (end > last)
						last = end;
					pos[s]++;
					left--;
					progress = 1;
				}
			}
			if (!progress) {
				msg_error("gen: internal error: the PP schedule deadlocks");
				rc = -1;
			}
		}
		for (int s = 0; s < S; s++) {
			gen_pp_stage_truth st = {.step = k + 1,
			                         .pp_stage = s,
			                         .span_ns = last - first,
			                         .idle_ns = last - first - busy[s]};
			VEC_PUSH(P->tr.pp_stages, P->tr.npp_stages, P->pps_cap, st);
		}
		int64_t step_end = last + STEP_POST;
		gen_step_truth sp = {.step = k + 1, .start_ns = step_start, .end_ns = step_end};
		VEC_PUSH(P->tr.steps, P->tr.nsteps, P->step_cap, sp);
		step_start = step_end;
	}
	/* the truth lists blocks per rank in time order; the writer writes each rank's items in the
	 * order their launches happen */
	qsort(P->tr.pp_blocks, P->tr.npp_blocks, sizeof *P->tr.pp_blocks, cmp_pp_block_truth);
	for (int r = 0; r < P->nranks; r++)
		qsort(P->rk[r].pp, P->rk[r].npp, sizeof *P->rk[r].pp, cmp_pp_item);
	P->session_start = (P->t0 - MS) / US * US;
	P->session_end = (step_start + MS + US - 1) / US * US;
	free(kind);
	free(mb);
	free(pos);
	free(free_at);
	free(fend);
	free(bend);
	free(busy);
	free(seq);
	return rc;
}

/* ---- pipeline-parallel rows ------------------------------------------------------------------
 * Strings of PP profiles only, with ids far above the GRPO ones (whose ids stay as they are). */

char *
gen_pp_group_name(int g)
{
	return xasprintf(PP_GROUP_FMT, 60100 + g);
}

unsigned
gen_group_hash3(const char *name)
{
	uint32_t h0 = 0, h1 = 0; /* msprof-analyze's double_hash */
	for (const char *c = name; *c; c++) {
		h0 = h0 * 29 + (unsigned char)*c;
		h1 = h1 * 131 + (unsigned char)*c;
	}
	return (unsigned)((((uint64_t)h0 << 32) | h1) % 1000);
}

/* META_DATA['distributed_args'] as MindSpeed-LLM writes it. */
char *
gen_pp_distributed_args(const gen_plan *P, int rank)
{
	return xasprintf(
	    "{\"tensor_model_parallel_size\": 1, \"pipeline_model_parallel_size\": %d, "
	    "\"data_parallel_size\": %d, \"context_parallel_size\": 1, "
	    "\"expert_model_parallel_size\": 1, \"sequence_parallel\": false, "
	    "\"rank\": %d, \"world_size\": %d}",
	    P->o.pp > 0 ? P->o.pp : P->o.rl_pp,
	    P->o.pp > 0 ? P->pp_dp : P->nranks / (P->o.rl_pp > 0 ? P->o.rl_pp : 1), rank,
	    P->nranks);
}

/* The strings of ranges that carry a stream: the marker's task type and the queued ops that
 * carry the calls to the task-queue thread. */
void
gen_w_mstx_strings(gen_writer *w)
{
	gen_w_pair(w, w->q[Q_STR], PPS_MSTX_TYPE, NULL, "MsTx");
	gen_w_pair(w, w->q[Q_STR], PPS_MSTX_START_OP, NULL, "mstx_range_start_op");
	gen_w_pair(w, w->q[Q_STR], PPS_MSTX_END_OP, NULL, "mstx_range_end_op");
	gen_w_pair(w, w->q[Q_STR], PPS_MSTX_MARK_OP, NULL, "mstx_mark_op");
}

void
gen_w_pp_strings(gen_writer *w)
{
	const gen_plan *P = w->P;
	if (P->o.pp_op_pairs) { /* no pp_chart patch: no range messages either */
		gen_w_pair(w, w->q[Q_STR], PPS_LINEAR, NULL, "aten::linear");
		gen_w_pair(w, w->q[Q_STR], PPS_GELU, NULL, "aten::gelu");
		gen_w_pair(w, w->q[Q_STR], PPS_T, NULL, "aten::t");
		gen_w_pair(w, w->q[Q_STR], PPS_ADDMM_BWD, NULL, "AddmmBackward0");
		gen_w_pair(w, w->q[Q_STR], PPS_GELU_BWD, NULL, "GeluBackward0");
	} else if (P->o.pp_device_ranges) {
		/* str({'name': ..., 'current_microbatch': m}) per block; the marker's task type and
		 * the queued ops that carry the calls to the task-queue thread */
		for (int b = 0; b < 2; b++)
			for (int m = 0; m < P->pp_mb; m++) {
				char *msg = xasprintf("{'name': '%s', 'current_microbatch': %d}",
				                      b ? "backward_step" : "forward_step", m);
				gen_w_pair(w, w->q[Q_STR], PPS_MB + b * 1000 + m, NULL, msg);
				free(msg);
			}
		gen_w_mstx_strings(w);
	} else {
		gen_w_pair(w, w->q[Q_STR], PPS_FWD, NULL, "{'name': 'forward_step'}");
		gen_w_pair(w, w->q[Q_STR], PPS_BWD, NULL, "{'name': 'backward_step'}");
	}
	gen_w_pair(w, w->q[Q_STR], PPS_SEND_TYPE, NULL, "hcom_send_");
	gen_w_pair(w, w->q[Q_STR], PPS_RECV_TYPE, NULL, "hcom_receive_");
	for (int g = 0; g < (P->o.pp - 1) * P->pp_dp; g++) {
		char *name = gen_pp_group_name(g);
		gen_w_pair(w, w->q[Q_STR], PPS_GROUP + g, NULL, name);
		free(name);
	}
	if (!P->o.pp_no_meta) {
		char *da = gen_pp_distributed_args(P, w->rank);
		gen_w_pair(w, w->q[Q_PAIR_TEXT], 0, "distributed_args", da);
		free(da);
	}
}

/* The block's operators: slot p of PP_NOPS tiles [start, end) with a gap after it, except that
 * the first starts at the block start and the last ends at the block end, so the operators span
 * exactly the block (what a range would have said). */
static void
w_pp_ops(gen_writer *w, const pp_item *it)
{
	static const int fwd_name[PP_NOPS] = {PPS_LINEAR, PPS_GELU, PPS_LINEAR};
	static const int bwd_name[PP_NOPS] = {PPS_ADDMM_BWD, PPS_GELU_BWD, PPS_ADDMM_BWD};
	int fwd = it->kind == 'F';
	int64_t len = it->end - it->start;
	int64_t seq0 = PP_SEQ0 + ((int64_t)it->step * w->P->pp_mb + it->mb) * PP_NOPS;
	for (int p = 0; p < PP_NOPS; p++) {
		int layer = fwd ? p : PP_NOPS - 1 - p;
		int64_t s = it->start + len * p / PP_NOPS;
		int64_t e =
		    p == PP_NOPS - 1 ? it->end : it->start + len * (p + 1) / PP_NOPS - PP_OPGAP;
		int64_t seq = seq0 + layer;
		if (fwd)
			gen_w_torch_op(w, s, e, w->gtid_main, fwd_name[layer], seq, 0,
			               TORCH_FLOW_BASE + seq);
		else
			gen_w_torch_op(w, s, e, w->gtid_autograd, bwd_name[layer], seq, 1,
			               TORCH_FLOW_BASE + seq);
		/* a nested operator with no backward link: pairs are not "every operator" */
		if (fwd && p == 0)
			gen_w_torch_op(w, s + PP_OPGAP, s + 2 * PP_OPGAP, w->gtid_main, PPS_T, -1,
			               0, -1);
	}
}

static void
w_pp_device_range(gen_writer *w, const pp_item *it, int64_t first_launch)
{
	gen_w_mstx_device(w, first_launch - 2 * US,
	                  first_launch + (PP_NK - 1) * PP_LAUNCH_GAP + 3 * US, it->start, it->end,
	                  PPS_MB + (it->kind == 'B') * 1000 + it->mb, S_DEFAULT);
}

/* gen_opts.stage_device_ranges: when the host made a stage range's end call. The host does
 * not wait for the device inside a stage, so that is right after its last launch (each
 * launch of a block is at most LEAD before the block's end and lasts under 3 us); rollout's
 * decode steps do wait (their ranges end DEC_POST after their device work), so its range
 * ends just before the device part does. */
int64_t
gen_stage_host_end(const gen_plan *P, int rank, const gen_stage_truth *st)
{
	if (st->stage == ST_ROLLOUT)
		return st->end_ns - 2 * US;
	const gen_rank *rk = &P->rk[rank];
	int64_t he = st->start_ns + 3 * US;
	for (size_t i = 0; i < rk->nblk; i++) {
		const gen_blk *b = &rk->blk[i];
		if (b->step + 1 == st->step && b->stage == st->stage && b->end - LEAD + 3 * US > he)
			he = b->end - LEAD + 3 * US;
	}
	return he < st->end_ns ? he : st->end_ns;
}

/* A forward or backward step: PP_NK kernels filling the block, and the host range around them
 * (or the block's operators). */
void
gen_w_pp_block(gen_writer *w, const pp_item *it)
{
	int64_t t = it->start + PP_KOFF,
	        room = it->end - it->start - 2 * PP_KOFF - (PP_NK - 1) * KGAP;
	int dev = w->P->o.pp_device_ranges && !w->P->o.pp_op_pairs;
	int64_t first_launch = t - LEAD - w->ahead;
	for (int i = 0; i < PP_NK; i++) {
		int64_t d = room / PP_NK + (i == PP_NK - 1 ? room % PP_NK : 0);
		int k = it->kind == 'F' ? (i % 2 ? K_FA : K_MATMUL) : (i % 2 ? K_MATMUL : K_FAG);
		if (dev) { /* the host launches the whole block at once, well ahead */
			int64_t conn = gen_w_launch_at(w, API_NODE, S_LAUNCH,
			                               first_launch + i * PP_LAUNCH_GAP);
			int64_t g = gen_w_task(w, t, t + d, conn, gen_kernels[k].task_type,
			                       INVALID_U32, STREAM_A, gen_w_taskid(w, STREAM_A));
			gen_w_cti(w, g, k, gen_kernels[k].cti_type, d);
			gen_w_launch_truth(w, t, gen_kernels[k].name);
		} else {
			gen_w_kernel(w, k, STREAM_A, t, d);
		}
		t += d + KGAP;
	}
	if (dev) {
		w_pp_device_range(w, it, first_launch);
		return;
	}
	if (w->P->o.pp_op_pairs)
		w_pp_ops(w, it);
	else
		gen_w_mstx(w, it->start, it->end, it->kind == 'F' ? PPS_FWD : PPS_BWD);
}

/* hcom_send / hcom_receive: the op and its one transfer sub-task (a Memcpy between the two
 * ranks of the pair group; local ranks 0 = lower PP stage, 1 = upper). Sends and receives use
 * different streams: a pending send may overlap a receive. */
void
gen_w_pp_p2p(gen_writer *w, const pp_item *it)
{
	const gen_plan *P = w->P;
	int send = it->what == PPI_SEND;
	char *gname = gen_pp_group_name(it->group);
	char name[96];
	snprintf(name, sizeof name, "%s_%03u_%u_1", send ? "hcom_send_" : "hcom_receive_",
	         gen_group_hash3(gname), it->seq);
	free(gname);
	int64_t name_id = PPS_OP + w->next_ppname++;
	if (!w->err) {
		sqlite3_bind_text(w->q[Q_STR], 2, name, -1, SQLITE_TRANSIENT);
		int64_t v[1] = {name_id};
		gen_w_row(w, Q_STR, v, 1);
	}
	int64_t conn = gen_w_launch(w, API_NODE, S_LAUNCH, it->start);
	gen_w_launch_truth(w, it->start, (int)name_id);
	int64_t opid = w->next_opid++;
	int64_t count = 1 << 22; /* activations or gradients of one micro-batch, BF16 elements */
	int64_t ov[14] = {name_id,
	                  it->start,
	                  it->end,
	                  conn,
	                  PPS_GROUP + it->group,
	                  opid,
	                  0,
	                  0,
	                  HCCL_BF16,
	                  S_NA,
	                  count,
	                  send ? PPS_SEND_TYPE : PPS_RECV_TYPE,
	                  w->dev,
	                  2};
	gen_w_row(w, Q_OP, ov, 14);
	int stream = STREAM_COMM + (send ? 0 : 1);
	int64_t g = gen_w_task(w, it->start, it->end, conn, S_SDMA, INVALID_U32, stream,
	                       gen_w_taskid(w, stream));
	int lo = w->rank < it->peer ? 0 : 1; /* this rank's local rank in the pair */
	int64_t cv[15] = {name_id,
	                  g,
	                  S_HCCL_MEMCPY,
	                  0,
	                  PPS_GROUP + it->group,
	                  -1,
	                  RDMA_INVALID,
	                  send ? lo : 1 - lo,
	                  send ? 1 - lo : lo,
	                  TRANSPORT_SDMA,
	                  count * 2,
	                  HCCL_BF16,
	                  LINK_HCCS,
	                  opid,
	                  1};
	gen_w_ctask(w, cv,
	            (double)count * 2 * 1e9 /
	                (double)(it->end > it->start ? it->end - it->start : 1));
	(void)P;
}

void
gen_w_pp(gen_writer *w)
{
	for (size_t i = 0; i < w->rk->npp && !w->err; i++) {
		if (w->rk->pp[i].what == PPI_BLOCK)
			gen_w_pp_block(w, &w->rk->pp[i]);
		else
			gen_w_pp_p2p(w, &w->rk->pp[i]);
	}
}
