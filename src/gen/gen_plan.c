/* The generator's plan: operator and kernel names, the kernel catalogue, deterministic
 * randomness, and the plan of every rank's steps, operators, tasks and collectives, with the
 * ground truth the tests compare tl against. */
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

/* ---- strings -------------------------------------------------------------------------------
 * STRING_IDS: the fixed strings get ids 0..S__COUNT-1 in this order, in every DB; the name of
 * collective number n (the same collective on every rank) gets id S__COUNT + n. */
const char *const gen_str_text[S__COUNT] = {GEN_STRINGS(GEN_STR_TEXT)};

/* ---- kernels ------------------------------------------------------------------------------- */

/* The shortest kernel: 4.5 us nominal, x0.9 kernel jitter, x0.8 run jitter = 3.24 us. */
const gen_kernel gen_kernels[K__COUNT] = {
    [K_MATMUL] = {S_KN_MATMUL, S_OT_MATMUL, S_AI_CORE, S_KERNEL_AICORE, 90 * US, 24, 0, S_ND2,
                  S_BF16_2, S_SH_MM_IN, S_ND, S_BF16, S_SH_MM_OUT},
    [K_ADD] = {S_KN_ADD, S_OT_ADD, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 6 * US, 48, 0, S_ND2, S_BF16_2,
               S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_MUL] = {S_KN_MUL, S_OT_MUL, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 5500, 48, 0, S_ND2, S_BF16_2,
               S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_RMSNORM] = {S_KN_RMSNORM, S_OT_RMSNORM, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 14 * US, 48, 0,
                   S_ND2, S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_ROPE] = {S_KN_ROPE, S_OT_ROPE, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 11 * US, 48, 0, S_ND2,
                S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_SWIGLU] = {S_KN_SWIGLU, S_OT_SWIGLU, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 21 * US, 48, 0, S_ND,
                  S_BF16, S_SH_ACT, S_ND, S_BF16, S_SH_ACT},
    [K_FA] = {S_KN_FA, S_OT_FA, S_MIX_AIC, S_KERNEL_MIX_AIC, 160 * US, 24, 48, S_ND3, S_BF16_3,
              S_SH_ATT_IN, S_ND, S_BF16, S_SH_ATT_OUT},
    [K_FAG] = {S_KN_FAG, S_OT_FAG, S_MIX_AIC, S_KERNEL_MIX_AIC, 310 * US, 24, 48, S_ND3, S_BF16_3,
               S_SH_ATT_IN, S_ND3, S_BF16_3, S_SH_ATT_IN},
    [K_IFA] = {S_KN_IFA, S_OT_IFA, S_MIX_AIC, S_KERNEL_MIX_AIC, 35 * US, 24, 48, S_ND3, S_BF16_3,
               S_SH_KV_IN, S_ND, S_BF16, S_SH_DEC},
    [K_CAST] = {S_KN_CAST, S_OT_CAST, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 4500, 48, 0, S_ND, S_BF16,
                S_SH_ACT, S_ND, S_FLOAT, S_SH_ACT},
    [K_LOGSM] = {S_KN_LOGSM, S_OT_LOGSM, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 40 * US, 48, 0, S_ND,
                 S_FLOAT, S_SH_LOGITS, S_ND, S_FLOAT, S_SH_LOGITS},
    [K_GATHER] = {S_KN_GATHER, S_OT_GATHER, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 16 * US, 48, 0, S_ND2,
                  S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_COPY] = {S_KN_COPY, S_OT_COPY, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 7 * US, 48, 0, S_ND2,
                S_BF16_2, S_SH_ACT2, S_ND, S_BF16, S_SH_ACT},
    [K_ADAMW] = {S_KN_ADAMW, S_OT_ADAMW, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 45 * US, 48, 0, S_ND4,
                 S_FLOAT4, S_SH_PARAM4, S_ND, S_FLOAT, S_SH_PARAM},
    [K_ARGMAX] = {S_KN_ARGMAX, S_OT_ARGMAX, S_AI_VECTOR_CORE, S_KERNEL_AIVEC, 9 * US, 48, 0, S_ND,
                  S_BF16, S_SH_DEC, S_ND, S_INT64, S_SH_TOKENS},
};
static const uint8_t mix_wload[] = {K_COPY, K_CAST, K_COPY, K_ADD, K_COPY};
static const uint8_t mix_fwd[] = {K_RMSNORM, K_MATMUL, K_ROPE,   K_FA,  K_MATMUL, K_ADD, K_RMSNORM,
                                  K_MATMUL,  K_SWIGLU, K_MATMUL, K_ADD, K_MUL,    K_CAST};
static const uint8_t mix_logp[] = {K_RMSNORM, K_MATMUL,  K_ROPE,   K_FA,     K_MATMUL,
                                   K_ADD,     K_RMSNORM, K_MATMUL, K_SWIGLU, K_MATMUL,
                                   K_ADD,     K_MUL,     K_CAST,   K_LOGSM,  K_GATHER};
static const uint8_t mix_decode[] = {K_RMSNORM, K_MATMUL,  K_ROPE,   K_IFA,    K_MATMUL,
                                     K_ADD,     K_RMSNORM, K_MATMUL, K_SWIGLU, K_MATMUL,
                                     K_ADD,     K_ARGMAX,  K_CAST};
static const uint8_t mix_update[] = {K_FA,  K_FAG,    K_MATMUL, K_MATMUL, K_MATMUL, K_RMSNORM,
                                     K_ADD, K_SWIGLU, K_MUL,    K_CAST,   K_ADAMW,  K_ADD};
static const uint8_t mix_overlap[] = {K_MATMUL, K_FAG};
static const struct {
	const uint8_t *k;
	unsigned n;
} mixes[MIX__COUNT] = {
    [MIX_WLOAD] = {mix_wload, sizeof mix_wload},
    [MIX_FWD] = {mix_fwd, sizeof mix_fwd},
    [MIX_LOGP] = {mix_logp, sizeof mix_logp},
    [MIX_DECODE] = {mix_decode, sizeof mix_decode},
    [MIX_UPDATE] = {mix_update, sizeof mix_update},
    [MIX_OVERLAP] = {mix_overlap, sizeof mix_overlap},
};

/* ---- deterministic randomness ------------------------------------------------------------- */
static uint64_t
mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull; /* splitmix64 */
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t
rng_next(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ull;
	uint64_t z = *s;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t
gen_seed_of(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return mix64(seed ^ mix64(a ^ mix64(b ^ mix64(c))));
}

int64_t
gen_coll_bytes(const gen_opts *o, uint32_t op)
{
	uint64_t h = gen_seed_of(o->seed, 0xC0DE, op, 1);
	if (o->clean)
		return (int64_t)1 << 27;
	return ((int64_t)1 << (20 + h % 6)) * 2;
}

void
gen_kdraw_init(kdraw *g, const gen_opts *o, uint64_t seed, int mix, int64_t f)
{
	g->argmax_ns = o->aicpu ? o->aicpu_ns : 0;
	g->rng = seed;
	g->mix = mixes[mix].k;
	g->nmix = mixes[mix].n;
	g->jit = 800 + (int64_t)(rng_next(&g->rng) % 401);
	g->f = f;
}

int64_t
gen_kdraw_next(kdraw *g, int *kind)
{
	uint64_t x = rng_next(&g->rng);
	int k = g->mix[x % g->nmix];
	int64_t ns = k == K_ARGMAX && g->argmax_ns > 0 ? g->argmax_ns : gen_kernels[k].ns;
	int64_t w = ns * (int64_t)(900 + (x >> 32) % 201) / 1000;
	*kind = k;
	return w * g->jit / 1000 * g->f / 1000;
}

/* Gap i follows kernel i of a run of nk. Every AUX_EVERY-th gap and the middle one are wide and
 * hold a memcpy/event task. Gaps 0 and 1 never are (FFTS_SLOT needs narrow gaps around it). */
int
gen_gap_is_aux(uint32_t i, uint32_t nk)
{
	return (i + 1) % AUX_EVERY == 0 || (nk >= 4 && i == nk / 2);
}

/* ---- the plan ------------------------------------------------------------------------------ */

static int64_t
bubble_base(const gen_plan *P, int k, int r, int stage)
{
	return BUB_BASE + (((int64_t)k * P->nranks + r) * GEN_NSTAGES + stage) * BUB_STEP;
}

/* with the stall of gen_opts.stall_rank, which no pad makes up for */
static int64_t
bubble_len(const gen_plan *P, int k, int r, int stage)
{
	int stall = k == 0 && stage == ST_ROLLOUT && r == P->o.stall_rank;
	return bubble_base(P, k, r, stage) + (stall ? P->o.stall_ns : 0);
}

/* Pad kernel beyond PAD_MIN: every rank spends bubble + pad = the stage's largest bubble, so
 * the bubbles do not change who arrives last at the next collective. */
static int64_t
pad_len(const gen_plan *P, int k, int r, int stage)
{
	return bubble_base(P, k, P->nranks - 1, stage) - bubble_base(P, k, r, stage);
}

/* Busy (kernel) and idle (gap) time of a run, as the writer will lay it out. */
static void
run_measure(const gen_opts *o, uint64_t seed, int mix, int64_t f, uint32_t nk, int flags,
            int64_t pad, int64_t *busy, int64_t *idle)
{
	kdraw g;
	int k;
	int64_t b = 0, gaps = 0;
	gen_kdraw_init(&g, o, seed, mix, f);
	for (uint32_t i = 0; i < nk; i++) {
		b += gen_kdraw_next(&g, &k);
		if (i + 1 < nk)
			gaps += gen_gap_is_aux(i, nk) ? AUXGAP : KGAP;
	}
	if (flags & BF_PAD) {
		gaps += KGAP;
		b += PAD_MIN + pad;
	}
	*busy = b;
	*idle = gaps;
}

static gen_blk *
rank_push(gen_rank *rk)
{
	VEC_RESERVE(rk->blk, rk->cap, rk->nblk + 1);
	gen_blk *b = &rk->blk[rk->nblk++];
	memset(b, 0, sizeof *b);
	return b;
}

int64_t
gen_host_late(const gen_opts *o, int rank, int stage)
{
	return rank == o->host_late_rank && !o->pp && o->host_late_ns > 0 &&
	               o->host_late_ns < LEAD &&
	               (stage < 0 || o->host_late_stage < 0 || stage == o->host_late_stage)
	           ? o->host_late_ns
	           : 0;
}

/* Accounts a busy block [start, end): the time since the previous busy block is idle (free) once
 * the step has seen its first busy block; idle_inside is idle time within the block. The block's
 * first work is launched LEAD before it starts (without launch_jitter), so of an idle gap longer
 * than LEAD the device spends gap - LEAD waiting for the host to start that launch; the gaps
 * inside a run (KGAP, AUXGAP) are shorter than LEAD. A late host (gen_host_late) launches a
 * run's first kernel late less before it. host_bound's truth (rk->hb) counts the gaps under
 * 1 ms, each for the stage of the work on both sides of it (its range holds the gap: a stage's
 * work lies inside its range), or for none when they differ. */
static void
rank_place(gen_rank *rk, int64_t start, int64_t end, int64_t idle_inside, int64_t late, int stage)
{
	if (rk->first_busy < 0)
		rk->first_busy = start;
	else {
		int64_t gap = start - rk->last_end;
		rk->idle += gap;
		if (gap > LEAD - late) {
			rk->idle_host += gap - (LEAD - late);
			if (gap < MS)
				rk->hb[rk->last_stage == stage ? stage + 1 : 0] +=
				    gap - (LEAD - late);
		}
	}
	rk->idle += idle_inside;
	rk->last_end = end;
	rk->last_stage = stage;
}

static void
rank_run(gen_rank *rk, int k, int stage, uint64_t seed, int mix, uint32_t nk, int stream, int flags,
         int64_t pad)
{
	int64_t busy, idle;
	run_measure(rk->o, seed, mix, gen_stage_f(rk->o, rk, stage), nk, flags, pad, &busy, &idle);
	gen_blk *b = rank_push(rk);
	b->kind = BLK_RUN;
	b->start = rk->t;
	b->end = rk->t + busy + idle;
	b->seed = seed;
	b->nk = nk;
	b->pad = pad;
	b->step = (uint16_t)k;
	b->stage = (uint8_t)stage;
	b->mix = (uint8_t)mix;
	b->stream = (uint8_t)stream;
	b->flags = (uint8_t)flags;
	rank_place(rk, b->start, b->end, idle, gen_host_late(rk->o, rk->rank, stage), stage);
	rk->comp += busy;
	rk->t = b->end;
}

/* The same run on every rank, at each rank's cursor. */
static void
plan_run(gen_plan *P, int k, int stage, uint64_t seed, int mix, uint32_t nk, int stream, int flags)
{
	for (int r = 0; r < P->nranks; r++)
		rank_run(&P->rk[r], k, stage, seed, mix, nk, stream, flags,
		         (flags & BF_PAD) ? pad_len(P, k, r, stage) : 0);
}

static void
plan_bubble(gen_plan *P, gen_rank *rk, int k, int stage)
{
	gen_bubble_truth bt = {.rank = rk->rank, .step = k + 1, .stage = stage};
	bt.start_ns = rk->t;
	bt.end_ns = rk->t + bubble_len(P, k, rk->rank, stage);
	VEC_PUSH(P->tr.bubbles, P->tr.nbubbles, P->bubble_cap, bt);
	rk->t = bt.end_ns;
}

/* A collective: every rank's op starts at its own cursor and ends when the last rank's transfer
 * ends. With `overlap`, OVL_NK kernels run on the compute stream inside the op. */
int64_t
gen_stage_f(const gen_opts *o, const gen_rank *rk, int stage)
{
	if (o->slow_stage >= 0 && stage == o->slow_stage && rk->rank < 64 &&
	    (o->slow_ranks_mask >> rk->rank) & 1)
		return rk->f * o->slow_factor / 1000;
	return rk->f;
}

static void
plan_coll(gen_plan *P, int k, int stage, int optype, int overlap)
{
	uint32_t op = P->nops++;
	uint32_t seq = P->seq[optype]++;
	uint64_t h = gen_seed_of(P->o.seed, 0xC011, op, 0);
	uint64_t ovseed = gen_seed_of(P->o.seed, 0x0F1A, op, 0);
	int64_t xfer = 60 * US + (int64_t)(h % (140 * US));
	int64_t amax = INT64_MIN, ovmax = 0;
	if ((int64_t)op == P->o.delay_coll && P->o.delay_ns > 0) {
		/* the pair option: the last rank to arrive comes delay_ns later (host idle) */
		int late = 0;
		for (int r = 1; r < P->nranks; r++)
			if (P->rk[r].t > P->rk[late].t)
				late = r;
		P->rk[late].t += P->o.delay_ns;
	}
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		int64_t idle;
		if (rk->t > amax)
			amax = rk->t;
		rk->ov_busy = rk->ov_span = 0;
		if (overlap) {
			run_measure(&P->o, ovseed, MIX_OVERLAP, gen_stage_f(&P->o, rk, stage),
			            OVL_NK, 0, 0, &rk->ov_busy, &idle);
			rk->ov_span = rk->ov_busy + idle;
			if (rk->ov_span > ovmax)
				ovmax = rk->ov_span;
		}
	}
	if (overlap)
		xfer += OVL_DELAY + ovmax + OVL_TAIL;
	int64_t end = amax + xfer;
	int last = 0;
	for (int r = 0; r < P->nranks; r++)
		if (P->rk[r].t == amax) {
			last = r; /* the first rank to have arrived last */
			break;
		}
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		/* what w_coll writes: plane 0 waits (Notify_Wait) from the rank's arrival until
		 * NOTIFY_NS after the last arrival, then transfers until the op ends */
		gen_comm_truth ct = {.rank = r,
		                     .step = k + 1,
		                     .op = op,
		                     .start_ns = rk->t,
		                     .end_ns = end,
		                     .last_arrival_ns = amax,
		                     .last_rank = last,
		                     .wait_ns = amax + NOTIFY_NS - rk->t,
		                     .transit_ns = end - (amax + NOTIFY_NS)};
		ct.sync_ns = ct.wait_ns;
		VEC_PUSH(P->tr.comm, P->tr.ncomm, P->comm_cap, ct);
		gen_blk *b = rank_push(rk);
		b->kind = BLK_COLL;
		b->start = rk->t;
		b->end = end;
		b->wait_end = amax;
		b->seed = ovseed;
		b->nk = overlap ? OVL_NK : 0;
		b->op = op;
		b->seq = seq;
		b->step = (uint16_t)k;
		b->stage = (uint8_t)stage;
		b->nsub = (uint8_t)(2 + (h >> 24) % 5); /* 2..6 sub-tasks */
		gen_comm_truth *tc = &P->tr.comm[P->tr.ncomm - 1];
		tc->planes = b->nsub - 1; /* the first sub-task is the Notify_Wait */
		tc->plane_bytes = gen_coll_bytes(&P->o, op) / tc->planes;
		b->optype = (uint8_t)optype;
		rank_place(rk, b->start, end, 0, 0, stage);
		rk->comm += end - b->start;
		rk->comp += rk->ov_busy;
		rk->ovl += rk->ov_busy; /* the overlap kernels lie wholly inside the op */
		rk->t = end;
	}
}

/* The order of blocks on stage s: GPipe runs every forward, then every backward; 1F1B
 * (PipeDream-flush, Megatron's non-interleaved schedule) runs P-s-1 warm-up forwards, then
 * alternates one forward and one backward, then drains the backwards. */
void
gen_pp_order(int sched, int P, int s, int M, char *kind, int *mb)
{
	int n = 0;
	if (sched == GEN_PP_GPIPE) {
		for (int m = 0; m < M; m++)
			kind[n] = 'F', mb[n++] = m;
		for (int m = 0; m < M; m++)
			kind[n] = 'B', mb[n++] = m;
		return;
	}
	int warm = P - s - 1 < M ? P - s - 1 : M;
	for (int m = 0; m < warm; m++)
		kind[n] = 'F', mb[n++] = m;
	for (int i = 0; i < M - warm; i++) {
		kind[n] = 'F', mb[n++] = warm + i;
		kind[n] = 'B', mb[n++] = i;
	}
	for (int m = M - warm; m < M; m++)
		kind[n] = 'B', mb[n++] = m;
}

/* gen_opts.rl_pp: actor_update's pipeline. Each pipeline (the ranks d, d + dp, ... of one DP
 * index d) runs the 1F1B schedule of GEN_RL_PP_MB micro-batches; a block is a run of kernels
 * on the rank's own speed, RL_PP_GAP after the rank's previous work, and a forward (backward)
 * block waits until RL_PP_XFER after its micro-batch's block on the stage before (after) it.
 * The block's range (the truth's pp_block) spans its launches and its device work; a rank's
 * ranges never overlap (RL_PP_GAP > LEAD + MSTX_PRE + RL_PP_POST). */
#define RL_PP_GAP (LEAD + 20 * US)
#define RL_PP_XFER (100 * US)
#define RL_PP_POST (5 * US)
#define RL_PP_NK 4 /* kernels of a forward block; a backward block has twice as many */

static void
plan_rl_pp(gen_plan *P, int k)
{
	int S = P->o.rl_pp, M = GEN_RL_PP_MB, n = 2 * M, R = P->nranks, dp = R / S;
	char *kind = xcalloc((size_t)(S * n), 1);
	int *mb = xcalloc((size_t)(S * n), sizeof *mb), *pos = xcalloc((size_t)R, sizeof *pos);
	int64_t *fend = xmalloc((size_t)(R * M) * sizeof *fend),
	        *bend = xmalloc((size_t)(R * M) * sizeof *bend);
	for (int i = 0; i < R * M; i++)
		fend[i] = bend[i] = -1;
	for (int s = 0; s < S; s++)
		gen_pp_order(GEN_PP_1F1B, S, s, M, kind + s * n, mb + s * n);
	for (int moved = 1; moved;) {
		moved = 0;
		for (int r = 0; r < R; r++) {
			int s = r / dp;
			while (pos[r] < n) {
				char kd = kind[s * n + pos[r]];
				int m = mb[s * n + pos[r]];
				int64_t dep = -1;
				if (kd == 'F' && s > 0 && (dep = fend[(r - dp) * M + m]) < 0)
					break;
				if (kd == 'B' && s < S - 1 && (dep = bend[(r + dp) * M + m]) < 0)
					break;
				gen_rank *rk = &P->rk[r];
				rk->t += RL_PP_GAP;
				if (dep >= 0 && dep + RL_PP_XFER > rk->t)
					rk->t = dep + RL_PP_XFER;
				rank_run(rk, k, ST_UPDATE,
				         gen_seed_of(P->o.seed, 0xB10C + (uint64_t)k, (uint64_t)r,
				                     (uint64_t)pos[r]),
				         kd == 'F' ? MIX_FWD : MIX_UPDATE,
				         kd == 'F' ? RL_PP_NK : 2 * RL_PP_NK, STREAM_A, 0, 0);
				const gen_blk *b = &rk->blk[rk->nblk - 1];
				(kd == 'F' ? fend : bend)[r * M + m] = b->end;
				gen_pp_block_truth bt = {.rank = r,
				                         .pp_stage = s,
				                         .step = k + 1,
				                         .kind = kd,
				                         .microbatch = m,
				                         .start_ns = b->start - LEAD - MSTX_PRE,
				                         .end_ns = b->end + RL_PP_POST};
				VEC_PUSH(P->tr.pp_blocks, P->tr.npp_blocks, P->ppb_cap, bt);
				pos[r]++;
				moved = 1;
			}
		}
	}
	free(kind);
	free(mb);
	free(pos);
	free(fend);
	free(bend);
}

static void
stage_begin(gen_plan *P, int stage, const int64_t *range_start)
{
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		rk->range_start[stage] = range_start[r];
		rk->t = rk->range_start[stage] + MSTX_PRE + LEAD;
		rk->busy0 = rk->comp + rk->comm - rk->ovl;
	}
}

/* The stage's device work lies wholly inside its range, and the work of one stage never
 * overlaps another's, so its busy time is the growth of comp + comm - ovl over the stage. */
static void
stage_end(gen_plan *P, int k, int stage, const int *decode_steps)
{
	int64_t latest = INT64_MIN;
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		rk->range_end[stage] = rk->t + MSTX_POST;
		if (rk->range_end[stage] > latest)
			latest = rk->range_end[stage];
	}
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		gen_stage_truth st = {.rank = r, .step = k + 1, .stage = stage};
		st.start_ns = rk->range_start[stage];
		st.end_ns = rk->range_end[stage];
		st.decode_steps = decode_steps ? decode_steps[r] : 0;
		if (P->o.no_stage_ranges || P->o.decode_marks == GEN_DECODE_NONE)
			st.decode_steps = -1; /* no range records them */
		st.busy_ns = rk->comp + rk->comm - rk->ovl - rk->busy0;
		st.wait_ns = latest - st.end_ns;
		VEC_PUSH(P->tr.stages, P->tr.nstages, P->stage_cap, st);
	}
}

void
gen_plan_sizes(gen_plan *P)
{
	/* Shares of one step's kernels, per cent: prefill 6, decode 30, the other stages
	 * 14/14/6/24; the memcpy/event and comm sub-tasks make up the rest. A segment is a run
	 * and a collective, ~200 kernels. */
	static const unsigned share[GEN_NSTAGES] = {0, 14, 14, 6, 24};
	uint64_t n = P->o.tasks_per_rank / (uint64_t)P->nsteps;
	gen_sizes *s = &P->sz;
	s->wload = 16;
	s->prefill = (uint32_t)(n * 6 / 100 > 8 ? n * 6 / 100 : 8);
	s->dec_kernels = 24;
	s->dec_base = (uint32_t)(n * 30 / 100 / s->dec_kernels);
	if (s->dec_base < 3)
		s->dec_base = 3;
	s->dec_spread = s->dec_base / 4 > 1 ? s->dec_base / 4 : 1;
	for (int st = 1; st < GEN_NSTAGES; st++) {
		uint64_t tasks = n * share[st] / 100;
		uint64_t nseg = tasks / 200 > 2 ? tasks / 200 : 2;
		uint64_t per = tasks / nseg > 14 ? tasks / nseg - 6 : 8;
		s->nseg[st] = (uint32_t)nseg;
		s->seg_kernels[st] = (uint32_t)per;
	}
}

int
gen_decode_count(const gen_plan *P, int k, int r)
{
	const gen_sizes *s = &P->sz;
	if (P->o.clean)
		return (int)(s->dec_base + s->dec_spread / 2);
	if (r == P->o.slow_rank) /* the slow rank also decodes the longest sequences */
		return (int)(s->dec_base + s->dec_spread);
	return (int)(s->dec_base +
	             gen_seed_of(P->o.seed, 0xDEC0, (uint64_t)k, (uint64_t)r) % s->dec_spread);
}

static int
plan_step_check(gen_plan *P, int k, int64_t step_start)
{
	for (int r = 0; r < P->nranks; r++) {
		gen_rank *rk = &P->rk[r];
		gen_overlap_truth ot = {.rank = r, .step = k + 1};
		ot.computing = rk->comp;
		ot.communication = rk->comm;
		ot.overlapped = rk->ovl;
		ot.comm_not_overlapped = rk->comm - rk->ovl;
		ot.free = rk->idle;
		/* known only where every launch is LEAD before its work */
		ot.idle_host_launching =
		    P->o.launch_jitter || P->o.pp || P->o.pp_device_ranges ? -1 : rk->idle_host;
		ot.preparing = rk->first_busy - step_start;
		/* the definition, from the sums: span - |compute U comm| */
		int64_t span = rk->last_end - rk->first_busy;
		if (rk->idle != span - (rk->comp + rk->comm - rk->ovl)) {
			msg_error("gen: internal error: rank %d step %d: free %" PRId64
			          " != span - busy %" PRId64,
			          r, k + 1, rk->idle, span - (rk->comp + rk->comm - rk->ovl));
			return -1;
		}
		VEC_PUSH(P->tr.overlap, P->tr.noverlap, P->overlap_cap, ot);
		for (int st = -1; ot.idle_host_launching >= 0 && st < GEN_NSTAGES; st++) {
			gen_host_truth ht = {
			    .rank = r, .step = k + 1, .stage = st, .ns = rk->hb[st + 1]};
			VEC_PUSH(P->tr.host, P->tr.nhost, P->host_cap, ht);
		}
	}
	return 0;
}

/* Every rank's timeline, step by step, stage by stage. Ranks move in lockstep because the
 * collectives synchronise them. */
/* The numbers of engine step d of n on rank r in step k (0-based) as its mark reports them: the
 * requests drain as the rollout goes on (the last steps run the longest answers alone), a few
 * wait early on, and the KV cache empties with them. */
void
gen_dp_stats(int r, int k, int d, int n, gen_dp_step_truth *t)
{
	t->running = n - d;
	t->waiting = d < 3 ? 3 - d + (r + k) % 2 : 0;
	t->out_tokens = t->running - (d % 3 == 2); /* a request can finish without an output */
	t->cache_usage = (double)(n - d) / (double)(n + 4);
}

/* dp_bad_marks: whether the mark of step d on rank r reads as stats (rank 2's marks are all
 * paired wrong once its last one is missing). */
static int
dp_has_stats(const gen_plan *P, int r, int d)
{
	if (!P->o.dp_bad_marks)
		return 1;
	return !(r == 1 && d == 1) && r != 2;
}

static void
plan_dp_step(gen_plan *P, int r, int k, int d, int n, const gen_blk *b)
{
	gen_dp_step_truth t = {.rank = r,
	                       .step = k + 1,
	                       .index = d,
	                       .start_ns = b->start - LEAD - DEC_PRE,
	                       .end_ns = b->end + DEC_POST,
	                       .has_stats = dp_has_stats(P, r, d)};
	gen_dp_stats(r, k, d, n, &t);
	VEC_PUSH(P->tr.dp_steps, P->tr.ndp_steps, P->dp_cap, t);
}

int
gen_plan_build(gen_plan *P)
{
	const gen_sizes *s = &P->sz;
	int R = P->nranks;
	int64_t step_start = P->t0;
	int64_t *rs = xcalloc((size_t)R, sizeof *rs);
	int *dec = xcalloc((size_t)R, sizeof *dec);
	int rc = 0;
	uint64_t seed = P->o.seed;

	for (int k = 0; k < P->nsteps && rc == 0; k++) {
		for (int r = 0; r < R; r++) {
			gen_rank *rk = &P->rk[r];
			rk->first_busy = -1;
			rk->last_end = rk->comp = rk->comm = rk->ovl = rk->idle = rk->idle_host = 0;
			memset(rk->hb, 0, sizeof rk->hb);
			rk->last_stage = -1;
			rs[r] = step_start + STEP_PRE;
			dec[r] = gen_decode_count(P, k, r);
		}

		/* rollout: load weights, gather them, prefill, bubble, decode steps */
		stage_begin(P, ST_ROLLOUT, rs);
		plan_run(P, k, ST_ROLLOUT, gen_seed_of(seed, (uint64_t)k, ST_ROLLOUT, 0), MIX_WLOAD,
		         s->wload, STREAM_A, 0);
		plan_coll(P, k, ST_ROLLOUT, OP_ALLGATHER, 0);
		plan_run(P, k, ST_ROLLOUT, gen_seed_of(seed, (uint64_t)k, ST_ROLLOUT, 1), MIX_FWD,
		         s->prefill, STREAM_A, BF_PAD);
		for (int r = 0; r < R; r++) {
			gen_rank *rk = &P->rk[r];
			plan_bubble(P, rk, k, ST_ROLLOUT);
			for (int d = 0; d < dec[r]; d++) {
				if (d > 0)
					rk->t += DEC_GAP;
				rank_run(rk, k, ST_ROLLOUT,
				         gen_seed_of(seed, (uint64_t)k, 100 + (uint64_t)d, 7),
				         MIX_DECODE, s->dec_kernels, STREAM_A, BF_DECODE, 0);
				if (P->o.decode_marks == GEN_DECODE_DP && !P->o.no_stage_ranges)
					plan_dp_step(P, r, k, d, dec[r], &rk->blk[rk->nblk - 1]);
			}
		}
		stage_end(P, k, ST_ROLLOUT, dec);

		/* the other stages: segments of a run and a collective; the first segment's run is
		 * split by the stage's bubble */
		for (int st = ST_REF; st < GEN_NSTAGES; st++) {
			int mix = st == ST_UPDATE   ? MIX_UPDATE
			          : st == ST_REWARD ? MIX_FWD
			                            : MIX_LOGP;
			uint32_t nk = s->seg_kernels[st];
			for (int r = 0; r < R; r++)
				rs[r] = P->rk[r].range_end[st - 1] + HOST_GAP;
			stage_begin(P, st, rs);
			for (uint32_t g = 0; g < s->nseg[st]; g++) {
				int stream = st == ST_REWARD ||
				                     ((st == ST_REF || st == ST_ACTOR_LP) && g % 2)
				                 ? STREAM_B
				                 : STREAM_A;
				uint64_t sd =
				    gen_seed_of(seed, (uint64_t)k, (uint64_t)st, 2 * (uint64_t)g);
				if (g == 0) {
					uint32_t n1 = nk / 2;
					plan_run(P, k, st, sd, mix, n1, stream,
					         st == ST_UPDATE ? BF_FFTS : 0);
					for (int r = 0; r < R; r++)
						plan_bubble(P, &P->rk[r], k, st);
					plan_run(P, k, st, sd + 1, mix, nk - n1, stream, BF_PAD);
				} else {
					plan_run(P, k, st, sd, mix, nk, stream, 0);
				}
				plan_coll(P, k, st, OP_ALLREDUCE, st == ST_UPDATE);
				if (st == ST_UPDATE && g == 0 && P->o.rl_pp > 0)
					plan_rl_pp(P, k);
			}
			stage_end(P, k, st, NULL);
		}

		int64_t step_end = P->rk[0].range_end[GEN_NSTAGES - 1] + STEP_POST;
		rc = plan_step_check(P, k, step_start);
		gen_step_truth sp = {.step = k + 1, .start_ns = step_start, .end_ns = step_end};
		VEC_PUSH(P->tr.steps, P->tr.nsteps, P->step_cap, sp);
		step_start = step_end + (k + 1 < P->nsteps ? P->o.between_ns : 0);
	}
	P->session_start = (P->t0 - MS) / US * US;
	P->session_end = (step_start + MS + US - 1) / US * US;
	free(rs);
	free(dec);
	return rc;
}
