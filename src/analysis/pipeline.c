#include "config.h"
#include "analysis/pipeline.h"
#include "util/hash.h"
#include "util/satint.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct rank_block {
	tl_pp_block b;
	int64_t step;
	int64_t host_start; /* the step is the one the host call was made in */
} rank_block;

typedef struct p2p_op {
	uint64_t gh;
	const char *group; /* borrowed */
	size_t rank;
	int send; /* 1 send, 0 receive */
	int64_t start, end;
	int taken;
} p2p_op;

const char *
pipeline_source_name(tl_pp_source s)
{
	switch (s) {
	case TL_PP_FROM_META:
		return "distributed_args";
	case TL_PP_FROM_PARTNERS:
		return "send/receive partners";
	case TL_PP_FROM_OPTION:
		return "rank order (--pp)";
	case TL_PP_FROM_GUESS:
		return "one rank per stage (guessed; use --pp N)";
	}
	return "?";
}

int
pipeline_parse_microbatch(const char *msg)
{
	const char *p = msg;
	while ((p = strstr(p, "microbatch")) != NULL) {
		p += strlen("microbatch");
		while (*p == '_' || isalpha((unsigned char)*p)) /* microbatch_id, microbatches */
			p++;
		while (*p == '\'' || *p == '"' || *p == ' ' || *p == ':' || *p == '=')
			p++;
		if (isdigit((unsigned char)*p)) {
			long v = strtol(p, NULL, 10);
			return v >= 0 && v < 1000000 ? (int)v : -1;
		}
	}
	return -1;
}

static int
cmp_rank_block(const void *a, const void *b)
{
	const rank_block *x = a, *y = b;
	if (x->b.start != y->b.start)
		return x->b.start < y->b.start ? -1 : 1;
	return (x->b.end < y->b.end) - (x->b.end > y->b.end); /* longer first: parent first */
}

typedef struct bwd_key {
	int64_t bwd_start, fwd_start;
	size_t i;
} bwd_key;

static int
cmp_bwd(const void *a, const void *b)
{
	const bwd_key *x = a, *y = b;
	if (x->bwd_start != y->bwd_start)
		return x->bwd_start < y->bwd_start ? -1 : 1;
	return (x->fwd_start > y->fwd_start) - (x->fwd_start < y->fwd_start);
}

/* Blocks from forward/backward operator pairs, the way Insight's pp chart reads fwdbwd flows
 * (its fwdbwd connections): in order of forward start, the forward operators of one micro-batch run
 * layer by layer while their backward operators run in the reverse order, so backward starts
 * fall; where a backward start rises, the next micro-batch begins. The same in order of
 * backward start (forward starts rise at a boundary) catches what the first pass misses. Each
 * group gives an F block (its first forward start to its last forward end) and a B block; the
 * groups are numbered in order of forward start within each step. */
static size_t
op_blocks(const tl_rank *r, rank_block **out)
{
	size_t np = r->nfwdbwd;
	const tl_fwdbwd *p = r->fwdbwd; /* by forward start */
	size_t *g1 = xreallocarray(NULL, np, sizeof *g1), *g2 = xreallocarray(NULL, np, sizeof *g2);
	bwd_key *ord = xreallocarray(NULL, np, sizeof *ord);
	int64_t *step = xreallocarray(NULL, np, sizeof *step);
	for (size_t i = 0; i < np; i++) {
		uint16_t si = rank_step_at(r, p[i].fwd_start);
		step[i] = si != TL_NO_STEP ? r->steps[si].id : -1;
		g1[i] = i == 0 ? 0
		               : g1[i - 1] + (step[i] != step[i - 1] ||
		                              p[i].bwd_start > p[i - 1].bwd_start);
		ord[i] = (bwd_key){p[i].bwd_start, p[i].fwd_start, i};
	}
	qsort(ord, np, sizeof *ord, cmp_bwd);
	for (size_t k = 0; k < np; k++) {
		size_t i = ord[k].i, h = k ? ord[k - 1].i : 0;
		g2[i] =
		    k == 0 ? 0 : g2[h] + (step[i] != step[h] || p[i].fwd_start > p[h].fwd_start);
	}
	rank_block *v = NULL;
	size_t n = 0, cap = 0;
	int64_t cur = INT64_MIN;
	int mb = 0;
	for (size_t i = 0; i < np;) {
		size_t k = i + 1;
		while (k < np && g1[k] == g1[i] && g2[k] == g2[i])
			k++;
		if (step[i] != cur) {
			cur = step[i];
			mb = 0;
		}
		rank_block f = {{'F', mb, INT64_MAX, INT64_MIN}, step[i], p[i].fwd_start};
		rank_block b = {{'B', mb, INT64_MAX, INT64_MIN}, step[i], p[i].fwd_start};
		mb++;
		for (size_t j = i; j < k; j++) {
			f.b.start = p[j].fwd_start < f.b.start ? p[j].fwd_start : f.b.start;
			f.b.end = p[j].fwd_end > f.b.end ? p[j].fwd_end : f.b.end;
			b.b.start = p[j].bwd_start < b.b.start ? p[j].bwd_start : b.b.start;
			b.b.end = p[j].bwd_end > b.b.end ? p[j].bwd_end : b.b.end;
		}
		f.host_start = f.b.start; /* operators are host times */
		b.host_start = b.b.start;
		VEC_PUSH(v, n, cap, f);
		VEC_PUSH(v, n, cap, b);
		i = k;
	}
	free(g1);
	free(g2);
	free(ord);
	free(step);
	*out = v;
	return n;
}

/* The outermost forward/backward ranges of r, by start, with their steps and micro-batches;
 * without any, the blocks of its forward/backward operator pairs (*from_ops set). A range that
 * carried a stream is a block where its device part ran (pp_chart takes TASK.startNs/endNs);
 * it belongs to the step its host call was made in (pp_chart: MSTX_EVENTS inside STEP_TIME). */
static size_t
rank_blocks(const tl_rank *r, const tl_stage_rules *R, int use_ops, rank_block **out, int *from_ops)
{
	rank_block *v = NULL;
	size_t n = 0, cap = 0;
	tl_u64map cache; /* name id -> kind (0: none) + 1 */
	u64map_init(&cache);
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (!track_user_ranges(t))
			continue;
		for (size_t k = 0; k < t->n; k++) {
			const tl_slice *s = &t->v[k];
			int64_t bs, be;
			track_range_times(t, k, &bs, &be);
			if (be <= bs)
				continue;
			uint32_t kd;
			if (!u64map_get(&cache, s->name, &kd)) {
				kd = (uint32_t)stage_rules_pp(R, strpool_get(r->pool, s->name),
				                              strpool_len(r->pool, s->name)) +
				     1;
				u64map_put(&cache, s->name, kd);
			}
			if (kd <= 1)
				continue;
			rank_block x = {{(char)(kd - 1),
			                 pipeline_parse_microbatch(strpool_get(r->pool, s->name)),
			                 bs, be},
			                -1,
			                s->start};
			VEC_PUSH(v, n, cap, x);
		}
	}
	u64map_free(&cache);
	*from_ops = 0;
	if (n == 0 && use_ops && r->nfwdbwd > 0) {
		n = op_blocks(r, &v);
		*from_ops = 1;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_rank_block);
	/* keep the outermost: a block inside the last kept one is part of it (pp_chart's
	 * filter_non_overlapping for DualPipeV) */
	size_t w = 0;
	for (size_t k = 0; k < n; k++) {
		if (w > 0 && v[k].b.start >= v[w - 1].b.start && v[k].b.end <= v[w - 1].b.end)
			continue;
		v[w++] = v[k];
	}
	n = w;
	/* steps, and micro-batches by order where the message does not say */
	int64_t cur = INT64_MIN;
	int nf = 0, nb = 0;
	for (size_t k = 0; k < n; k++) {
		uint16_t si = rank_step_at(r, v[k].host_start);
		v[k].step = si != TL_NO_STEP ? r->steps[si].id : -1;
		if (v[k].step != cur) {
			cur = v[k].step;
			nf = nb = 0;
		}
		int ord = v[k].b.kind == 'F' ? nf++ : nb++;
		if (v[k].b.microbatch < 0)
			v[k].b.microbatch = ord;
	}
	*out = v;
	return n;
}

static int
cmp_p2p(const void *a, const void *b)
{
	const p2p_op *x = a, *y = b;
	if (x->gh != y->gh)
		return x->gh < y->gh ? -1 : 1;
	int c = strcmp(x->group, y->group);
	if (c)
		return c;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->send != y->send)
		return x->send > y->send ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Every send and receive of the trace, sorted by group, rank, kind, start. */
/* trace_view.json names a rank's communication threads "Group N Communication", N counting
 * that rank's groups: the same N on two ranks need not be the same group. The op names carry
 * it: HCCL names an op "<type>_<group hash>_<index>_<n>" ("hcom_send__063_4_1"), the hash
 * being msprof's double hash of the group name modulo 1000. */
static int
label_is_ordinal(const char *label)
{
	size_t n = strlen(label);
	return strncmp(label, "Group ", 6) == 0 && n > 20 &&
	       strcmp(label + n - 14, " Communication") == 0;
}

static int
op_group_hash(const char *op)
{
	const char *f[3] = {NULL, NULL, NULL}; /* the last three '_' */
	for (const char *p = op; *p; p++)
		if (*p == '_') {
			f[0] = f[1];
			f[1] = f[2];
			f[2] = p;
		}
	if (f[0] == NULL || f[1] - f[0] != 4)
		return -1;
	int h = 0;
	for (const char *p = f[0] + 1; p < f[1]; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		h = h * 10 + (*p - '0');
	}
	return h;
}

static size_t
collect_p2p(const tl_trace *tr, p2p_op **out)
{
	p2p_op *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track *t = r->tracks[ti];
			if (t->kind != TL_LANE_COMM)
				continue;
			const char *group = strpool_get(r->pool, t->label);
			uint64_t gh = util_hash_str(group);
			int ordinal = label_is_ordinal(group);
			for (size_t k = 0; k < t->n; k++) {
				const char *op = strpool_get(r->pool, t->v[k].name);
				int s = strcasestr(op, "send") != NULL;
				int rv = strcasestr(op, "recv") != NULL ||
				         strcasestr(op, "receive") != NULL;
				if (s ==
				    rv) /* neither, or both (batchsendrecv: partners unknown) */
					continue;
				p2p_op x = {gh, group, ri, s, t->v[k].start, track_end(t, k), 0};
				if (ordinal) {
					int h = op_group_hash(op);
					if (h < 0)
						continue; /* its group is not known */
					x.gh = ((uint64_t)1 << 32) | (uint64_t)h;
					x.group = "";
				}
				VEC_PUSH(v, n, cap, x);
			}
		}
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_p2p);
	*out = v;
	return n;
}

static int
same_group(const p2p_op *a, const p2p_op *b)
{
	return a->gh == b->gh && strcmp(a->group, b->group) == 0;
}

/* PP stages from the chain of two-rank P2P groups: each group joins two neighbouring stages;
 * a pipeline is a path, whose end that sends first is stage 0 (it sends the first activations;
 * the last stage receives first). Returns 0 when every rank with blocks got a stage. */
static int
stages_from_partners(const tl_trace *tr, const p2p_op *ops, size_t nops, const int *has_blocks,
                     int *stage)
{
	size_t R = tr->nranks;
	size_t *nb = xcalloc(R ? R * 2 : 1, sizeof *nb); /* up to two neighbours per rank */
	int *deg = xcalloc(R ? R : 1, sizeof *deg);
	int64_t *first = xreallocarray(NULL, R ? R : 1, sizeof *first);
	int *first_send = xcalloc(R ? R : 1, sizeof *first_send);
	int ok = 1;
	for (size_t i = 0; i < R; i++) {
		first[i] = INT64_MAX;
		stage[i] = -1;
	}
	for (size_t i = 0; i < nops; i++)
		if (ops[i].start < first[ops[i].rank]) {
			first[ops[i].rank] = ops[i].start;
			first_send[ops[i].rank] = ops[i].send;
		}
	for (size_t g0 = 0; g0 < nops && ok;) {
		size_t g1 = g0 + 1;
		while (g1 < nops && same_group(&ops[g0], &ops[g1]))
			g1++;
		size_t a = ops[g0].rank, b = SIZE_MAX;
		for (size_t i = g0; i < g1; i++)
			if (ops[i].rank != a) {
				if (b == SIZE_MAX)
					b = ops[i].rank;
				else if (ops[i].rank != b)
					ok = 0; /* more than two ranks: partners unknown */
			}
		if (ok && b != SIZE_MAX) {
			int dup = 0;
			for (int k = 0; k < deg[a]; k++)
				dup |= nb[a * 2 + (size_t)k] == b;
			if (!dup) {
				if (deg[a] == 2 || deg[b] == 2)
					ok = 0; /* not a path */
				else {
					nb[a * 2 + (size_t)deg[a]++] = b;
					nb[b * 2 + (size_t)deg[b]++] = a;
				}
			}
		}
		g0 = g1;
	}
	/* walk each path from its end that sends first */
	size_t *path = xreallocarray(NULL, R ? R : 1, sizeof *path);
	for (size_t i = 0; ok && i < R; i++) {
		if (deg[i] != 1 || stage[i] >= 0)
			continue;
		size_t len = 0, prev = SIZE_MAX, cur = i;
		for (;;) {
			path[len++] = cur;
			if ((len > 1 && deg[cur] == 1) || len == R)
				break;
			size_t nx = nb[cur * 2] != prev ? nb[cur * 2] : nb[cur * 2 + 1];
			prev = cur;
			cur = nx;
		}
		int rev = !first_send[path[0]] && first_send[path[len - 1]];
		for (size_t k = 0; k < len; k++)
			stage[path[rev ? len - 1 - k : k]] = (int)k;
	}
	free(path);
	for (size_t i = 0; ok && i < R; i++)
		if (has_blocks[i] && stage[i] < 0)
			ok = 0; /* a rank with blocks but no partner (or a cycle) */
	free(nb);
	free(deg);
	free(first);
	free(first_send);
	return ok ? 0 : -1;
}

static int
cmp_link(const void *a, const void *b)
{
	const tl_pp_link *x = a, *y = b;
	if (x->send_start != y->send_start)
		return x->send_start < y->send_start ? -1 : 1;
	return (x->from_rank > y->from_rank) - (x->from_rank < y->from_rank);
}

/* Pairs sends with receives: in a two-rank group the k-th send of one rank with the k-th
 * receive of the other (P2P is ordered per pair); in a bigger group each send with the not yet
 * taken receive of another rank that overlaps it most. */
static size_t
pair_p2p(p2p_op *ops, size_t nops, tl_pp_link **out)
{
	tl_pp_link *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t g0 = 0; g0 < nops;) {
		size_t g1 = g0 + 1;
		while (g1 < nops && same_group(&ops[g0], &ops[g1]))
			g1++;
		size_t nr = 1;
		for (size_t i = g0 + 1; i < g1; i++)
			nr += ops[i].rank != ops[i - 1].rank;
		for (size_t i = g0; i < g1; i++) {
			if (!ops[i].send)
				continue;
			p2p_op *best = NULL;
			if (nr == 2) {
				/* index of this send among its rank's sends */
				size_t k = 0;
				for (size_t j = g0; j < i; j++)
					k += ops[j].rank == ops[i].rank && ops[j].send;
				for (size_t j = g0; j < g1 && best == NULL; j++)
					if (ops[j].rank != ops[i].rank && !ops[j].send && k-- == 0)
						best = &ops[j];
			} else {
				int64_t bo = 0;
				for (size_t j = g0; j < g1; j++) {
					if (ops[j].rank == ops[i].rank || ops[j].send ||
					    ops[j].taken)
						continue;
					int64_t a = ops[i].start > ops[j].start ? ops[i].start
					                                        : ops[j].start;
					int64_t b =
					    ops[i].end < ops[j].end ? ops[i].end : ops[j].end;
					if (b - a > bo) {
						bo = b - a;
						best = &ops[j];
					}
				}
			}
			if (best == NULL)
				continue;
			best->taken = 1;
			tl_pp_link l = {ops[i].rank, best->rank,  ops[i].start,
			                ops[i].end,  best->start, best->end};
			VEC_PUSH(v, n, cap, l);
		}
		g0 = g1;
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_link);
	*out = v;
	return n;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

size_t
pipeline_p2p_pairs(const tl_trace *tr, tl_pp_link **out)
{
	p2p_op *ops;
	size_t nops = collect_p2p(tr, &ops);
	size_t n = pair_p2p(ops, nops, out);
	free(ops);
	return n;
}

void
pipeline_build(const tl_trace *tr, const tl_stage_rules *R, const int *meta_stage, int opt_pp,
               int use_ops, tl_pipeline *P)
{
	memset(P, 0, sizeof *P);
	size_t NR = tr->nranks;
	P->rank_stage = xreallocarray(NULL, NR ? NR : 1, sizeof *P->rank_stage);
	rank_block **rb = xcalloc(NR ? NR : 1, sizeof *rb);
	size_t *nrb = xcalloc(NR ? NR : 1, sizeof *nrb);
	int *has = xcalloc(NR ? NR : 1, sizeof *has);
	int *from_ops = xcalloc(NR ? NR : 1, sizeof *from_ops);
	P->rank_blocks = xcalloc(NR ? NR : 1, sizeof *P->rank_blocks);
	P->used_ops = use_ops;
	for (size_t i = 0; i < NR; i++) {
		P->rank_stage[i] = -1;
		nrb[i] = rank_blocks(tr->ranks[i], R, use_ops, &rb[i], &from_ops[i]);
		has[i] = nrb[i] > 0;
		P->ranks_with_blocks += has[i];
		P->ranks_from_ops += has[i] && from_ops[i];
		P->rank_blocks[i] = !has[i]       ? TL_PP_BLOCKS_NONE
		                    : from_ops[i] ? TL_PP_BLOCKS_OPS
		                                  : TL_PP_BLOCKS_RANGES;
	}
	p2p_op *ops;
	size_t nops = collect_p2p(tr, &ops);
	P->p2p_ops = nops;

	/* the PP stage of each rank */
	int meta_ok = meta_stage != NULL && P->ranks_with_blocks > 0;
	for (size_t i = 0; meta_ok && i < NR; i++)
		if (has[i] && meta_stage[i] < 0)
			meta_ok = 0;
	if (meta_ok) {
		P->source = TL_PP_FROM_META;
		memcpy(P->rank_stage, meta_stage, NR * sizeof *P->rank_stage);
	} else if (P->ranks_with_blocks > 0 &&
	           stages_from_partners(tr, ops, nops, has, P->rank_stage) == 0) {
		P->source = TL_PP_FROM_PARTNERS;
	} else if (opt_pp > 0 && NR > 0) {
		P->source = TL_PP_FROM_OPTION;
		size_t per = NR % (size_t)opt_pp == 0 ? NR / (size_t)opt_pp : 0;
		for (size_t i = 0; i < NR; i++) /* PP outermost, as Megatron orders ranks */
			P->rank_stage[i] = per ? (int)(i / per) : (int)(i * (size_t)opt_pp / NR);
	} else {
		/* Ranges named forward/backward say the job is pipeline-parallel; operator pairs
		 * do not (every training job has them), so those ranks get no guessed stage. */
		P->source = TL_PP_FROM_GUESS;
		int s = 0;
		for (size_t i = 0; i < NR; i++)
			P->rank_stage[i] = has[i] && !from_ops[i] ? s++ : -1;
	}
	for (size_t i = 0; i < NR; i++)
		if (has[i] && P->rank_stage[i] >= 0 && P->rank_stage[i] + 1 > P->npp)
			P->npp = P->rank_stage[i] + 1;

	if (P->npp >= 2) {
		/* the steps that have blocks */
		int64_t *steps = NULL;
		size_t ns = 0, scap = 0;
		for (size_t i = 0; i < NR; i++)
			for (size_t k = 0; k < nrb[i]; k++)
				if (k == 0 || rb[i][k].step != rb[i][k - 1].step)
					VEC_PUSH(steps, ns, scap, rb[i][k].step);
		if (ns > 1)
			qsort(steps, ns, sizeof *steps, cmp_i64);
		size_t w = 0;
		for (size_t k = 0; k < ns; k++)
			if (w == 0 || steps[k] != steps[w - 1])
				steps[w++] = steps[k];
		ns = w;
		P->steps = xcalloc(ns ? ns : 1, sizeof *P->steps);
		P->nsteps = ns;
		for (size_t k = 0; k < ns; k++) {
			tl_pp_step *st = &P->steps[k];
			st->step = steps[k];
			st->start = INT64_MAX;
			st->end = INT64_MIN;
			st->nstages = (size_t)P->npp;
			st->stages = xcalloc(st->nstages, sizeof *st->stages);
			for (int s = 0; s < P->npp; s++) {
				tl_pp_stage *ps = &st->stages[s];
				size_t rcap = 0, bcap = 0;
				ps->pp_stage = s;
				ps->shown = SIZE_MAX;
				for (size_t i = 0; i < NR; i++) {
					if (P->rank_stage[i] != s)
						continue;
					VEC_PUSH(ps->ranks, ps->nranks, rcap, i);
					for (size_t b = 0; ps->shown == SIZE_MAX && b < nrb[i]; b++)
						if (rb[i][b].step == st->step)
							ps->shown = i;
				}
				if (ps->shown == SIZE_MAX)
					continue;
				size_t i = ps->shown;
				int64_t reach = INT64_MIN;
				for (size_t b = 0; b < nrb[i]; b++) {
					if (rb[i][b].step != st->step)
						continue;
					tl_pp_block x = rb[i][b].b;
					VEC_PUSH(ps->blocks, ps->nblocks, bcap, x);
					if (x.start < st->start)
						st->start = x.start;
					if (x.end > st->end)
						st->end = x.end;
					/* blocks are the outermost ranges, by start: union by reach
					 */
					int64_t a = x.start > reach ? x.start : reach;
					if (x.end > a)
						ps->busy = sat_add(ps->busy, x.end - a);
					if (x.end > reach)
						reach = x.end;
				}
			}
			int64_t span = st->end > st->start ? st->end - st->start : 0;
			for (size_t s = 0; s < st->nstages; s++) {
				tl_pp_stage *ps = &st->stages[s];
				ps->bubble_ratio = span > 0 && ps->nblocks > 0
				                       ? (double)(span - ps->busy) / (double)span
				                       : 0;
			}
		}
		/* sends and receives, paired, each in the step its send started in */
		tl_pp_link *links;
		size_t nl = pair_p2p(ops, nops, &links);
		size_t *lcap = xcalloc(ns ? ns : 1, sizeof *lcap);
		for (size_t l = 0; l < nl; l++) {
			const tl_rank *r = tr->ranks[links[l].from_rank];
			uint16_t si = rank_step_at(r, links[l].send_start);
			int64_t id = si != TL_NO_STEP ? r->steps[si].id : -1;
			for (size_t k = 0; k < ns; k++)
				if (P->steps[k].step == id) {
					tl_pp_step *st = &P->steps[k];
					VEC_PUSH(st->links, st->nlinks, lcap[k], links[l]);
					break;
				}
		}
		free(lcap);
		free(links);
		free(steps);
	}
	for (size_t i = 0; i < NR; i++)
		free(rb[i]);
	free(rb);
	free(nrb);
	free(has);
	free(from_ops);
	free(ops);
}

const char *
pipeline_absence(const tl_trace *tr, const tl_pipeline *P, char *buf, size_t n)
{
	if (tr->nranks < 2)
		snprintf(buf, n,
		         "Pipeline parallelism: needs at least two ranks; this profile has %zu.",
		         tr->nranks);
	else if (P->ranks_with_blocks == 0)
		snprintf(
		    buf, n,
		    "Pipeline parallelism: none found (no forward or backward step ranges%s; see "
		    "STAGE RULES in tl(1)).",
		    P->used_ops ? " or operator pairs" : "");
	else if (P->ranks_from_ops == P->ranks_with_blocks && P->source == TL_PP_FROM_GUESS)
		snprintf(
		    buf, n,
		    "Pipeline parallelism: forward/backward operator pairs on %zu rank%s, but "
		    "the PP stage of no rank is known (no distributed_args, and the send/receive "
		    "partners do not form a pipeline): give --pp N.",
		    P->ranks_with_blocks, P->ranks_with_blocks == 1 ? "" : "s");
	else
		snprintf(
		    buf, n,
		    "Pipeline parallelism: forward/backward %s on one PP stage only (%zu rank%s): "
		    "no pipeline to show.",
		    P->ranks_from_ops == P->ranks_with_blocks ? "operator pairs" : "ranges",
		    P->ranks_with_blocks, P->ranks_with_blocks == 1 ? "" : "s");
	return buf;
}

void
pipeline_free(tl_pipeline *P)
{
	for (size_t k = 0; k < P->nsteps; k++) {
		for (size_t s = 0; s < P->steps[k].nstages; s++) {
			free(P->steps[k].stages[s].ranks);
			free(P->steps[k].stages[s].blocks);
		}
		free(P->steps[k].stages);
		free(P->steps[k].links);
	}
	free(P->steps);
	free(P->rank_stage);
	free(P->rank_blocks);
	memset(P, 0, sizeof *P);
}
