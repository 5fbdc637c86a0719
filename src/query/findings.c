/* Findings (findings.h): the rules in one table, each computed from the answers of the other
 * queries. The order of the table is the order the rules run in: a later rule may leave out
 * time an earlier one counted (a straggler's lateness that a stall before the collective
 * explains; a stage's excess that is a stall inside it). */
#include "query/findings.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/bubbles.h"
#include "model/comm.h"
#include "query/host.h"
#include "query/memory.h"
#include "query/session.h"
#include "util/rankspec.h"
#include "util/satint.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

typedef struct fctx fctx;
/* A stage instance whose excess stage_imbalance counted: what of it is left to explain a late
 * arrival at a collective after its start (the straggler's), so it is not counted twice. */
typedef struct imb_inst {
	size_t ri;
	int64_t start, left;
} imb_inst;
typedef void (*find_fn)(fctx *);

typedef struct rule_row {
	tl_find_rule r;
	find_fn fn;
} rule_row;

/* what the rules share: the answers they read, gathered once */
struct fctx {
	const tl_query *q;
	const tl_trace *tr;
	const tl_find_opts *o;
	double th[TL_FIND__COUNT];
	tl_step_overlap **so; /* per rank: tlq_step_overlaps (the caller's rs's, or own_so) */
	size_t *nso;
	int own_so;
	tl_finding *v;
	size_t n, cap;
	tl_rl_bubble *stalls; /* the stall rule's, by rank then start */
	size_t nstalls, scap;
	tl_coll_result cr; /* the caller's (tl_find_opts) or asked here: own_* */
	tl_comm_result cm;
	int have_cm;
	const tl_rank_steps *rs; /* with cm: tlq_rank_steps */
	int own_cr, own_cm;
	tl_rank_steps *own_rs;
	imb_inst *imb; /* the stage instances stage_imbalance counted, by step */
	size_t nimb, icap;
};

/* ---- helpers ---- */

static char *
ms(int64_t ns, char *buf, size_t len)
{
	return timefmt_ms(ns, 2, buf, len);
}

/* The length of a row of tlq_step_overlaps: its host range, or without steps the envelope of
 * the work. */
static int64_t
so_len(const tl_step_overlap *s)
{
	if (s->step_end > s->step_start)
		return s->step_end - s->step_start;
	return s->o.last_busy > s->o.first_busy ? s->o.last_busy - s->o.first_busy : 0;
}

/* Step time of rank ri: of step id, or of all its steps (step -1). */
static int64_t
step_time(const fctx *c, size_t ri, int64_t step)
{
	int64_t t = 0;
	for (size_t k = 0; k < c->nso[ri]; k++)
		if (step < 0 || c->so[ri][k].step_id == step)
			t = sat_add(t, so_len(&c->so[ri][k]));
	return t;
}

/* The mean over all ranks of their step time of step (-1: all). */
static double
mean_step_time(const fctx *c, int64_t step)
{
	double t = 0;
	for (size_t ri = 0; ri < c->tr->nranks; ri++)
		t += (double)step_time(c, ri, step);
	return c->tr->nranks ? t / (double)c->tr->nranks : 0;
}

static double
share_of(int64_t ns, double denom)
{
	return denom > 0 ? (double)ns / denom : 0;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median of v[0 .. n) (sorted here): the mean of the two middle values for an even n. */
static int64_t
median_i64(int64_t *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_i64);
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double
median_dbl(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static tl_finding *
add(fctx *c, int kind)
{
	tl_finding f;
	memset(&f, 0, sizeof f);
	f.kind = kind;
	f.rank = -1;
	f.rank_ix = SIZE_MAX;
	f.step = -1;
	f.stage = TL_STAGE_NONE;
	f.src_rank = f.dst_rank = -1;
	f.pp_stage = -1;
	VEC_PUSH(c->v, c->n, c->cap, f);
	return &c->v[c->n - 1];
}

static void
set_rank(fctx *c, tl_finding *f, size_t ri)
{
	f->rank_ix = ri;
	f->rank = ri < c->tr->nranks ? c->tr->ranks[ri]->rank : -1;
}

/* several ranks, by trace index (mark[ri] != 0) */
static void
set_ranks(fctx *c, tl_finding *f, const unsigned char *mark)
{
	tl_rankset s = {0};
	size_t cnt = 0, first = SIZE_MAX, cap = 0;
	for (size_t ri = 0; ri < c->tr->nranks; ri++) {
		if (!mark[ri])
			continue;
		if (first == SIZE_MAX)
			first = ri;
		cnt++;
		VEC_PUSH(s.ranks, s.n, cap, c->tr->ranks[ri]->rank);
	}
	if (cnt == 1) {
		set_rank(c, f, first);
	} else if (cnt > 1) {
		rankset_normalize(&s);
		rankset_format(&s, f->ranks, sizeof f->ranks);
		f->rank_ix = first;
	}
	rankset_free(&s);
}

static const char *
stage_name(const fctx *c, int stage)
{
	const char *s = stage == TL_STAGE_NONE ? NULL : tlq_stage_name(c->q, stage);
	return s ? s : "";
}

/* the stalls of rank ri inside [t0, t1): their summed length clipped to it */
static int64_t
stall_time_in(const fctx *c, size_t ri, int64_t t0, int64_t t1, int64_t *last_end)
{
	int64_t t = 0;
	for (size_t i = 0; i < c->nstalls; i++) {
		const tl_rl_bubble *b = &c->stalls[i];
		if (b->rank != ri || b->end <= t0 || b->start >= t1)
			continue;
		int64_t s = b->start > t0 ? b->start : t0, e = b->end < t1 ? b->end : t1;
		t = sat_add(t, e - s);
		if (last_end)
			*last_end = e;
	}
	return t;
}

/* ---- the rules ---- */

/* A stall's consequence: when its rank arrives last at the next collective after it, the
 * evidence says so (the lateness is the stall's, not a straggler's). */
static void
stall_next_coll(fctx *c, tl_finding *f)
{
	const tl_coll *best = NULL;
	int64_t arr = INT64_MAX;
	for (size_t i = 0; i < c->cr.n; i++)
		for (size_t a = 0; a < c->cr.v[i].n; a++) {
			const tl_coll_arrival *x = &c->cr.v[i].ranks[a];
			if (x->rank == f->rank && x->arrive >= f->end_ns && x->arrive < arr) {
				arr = x->arrive;
				best = &c->cr.v[i];
			}
		}
	if (best == NULL || best->n < 2 || best->last_rank != f->rank)
		return;
	/* only the rank's last stall before that arrival says so */
	for (size_t i = 0; i < c->nstalls; i++) {
		const tl_rl_bubble *b = &c->stalls[i];
		if (b->rank == f->rank_ix && b->start > f->start_ns && b->end <= arr)
			return;
	}
	char a1[32], nm[96];
	size_t l = strlen(f->evidence);
	text_sanitize(best->name, nm, sizeof nm, 0);
	snprintf(f->evidence + l, sizeof f->evidence - l,
	         "; it made rank %d arrive last at the next collective, %s, %s ms after the first "
	         "rank",
	         f->rank, nm, ms(best->skew, a1, sizeof a1));
}

/* stall: one device idle gap >= threshold inside a step, no communication in progress (a Free
 * interval: neither compute nor communication; not a stream held by a collective's waits) */
static void
f_stall(fctx *c)
{
	int64_t min = (int64_t)(c->th[TL_FIND_STALL] * 1e6);
	for (size_t ri = 0; ri < c->tr->nranks; ri++) {
		const tl_rank *r = c->tr->ranks[ri];
		if (r->host_only)
			continue; /* no device: no device idle (a CPU-only trace) */
		/* the gaps at least min long, longest first: asked for 64 at a time more (a list of
		 * every gap of a rank without lanes is a sort of all of them) */
		tl_gap *gv = NULL;
		size_t ng = 0, gcap = 0;
		for (size_t max = TLQ_GAPS_FIRST;; max *= 8) {
			bubble_gaps_iter it;
			tlq_gaps_iter_init(c->q, ri, max, &it);
			tl_gap g;
			size_t got = 0;
			int short_one = 0;
			ng = 0;
			while (bubble_gaps_iter_next(&it, &g)) {
				got++;
				if (g.end - g.start < min) {
					short_one = 1;
					break;
				}
				VEC_PUSH(gv, ng, gcap, g);
			}
			bubble_gaps_iter_free(&it);
			if (short_one || got < max || max > SIZE_MAX / 8)
				break;
		}
		for (size_t gi = 0; gi < ng; gi++) {
			tl_gap g = gv[gi];
			tl_rl_bubble b;
			tlq_bubble_at(c->q, ri, g.start, g.end, &b);
			if (b.between_steps || b.reason == TL_BUBBLE_COLLECTIVE_WAIT)
				continue;
			VEC_PUSH(c->stalls, c->nstalls, c->scap, b);
			tl_finding *f = add(c, TL_FIND_STALL);
			set_rank(c, f, ri);
			f->recoverable_ns = g.end - g.start;
			f->step = b.step;
			f->nsteps = 1;
			f->stage = b.stage;
			f->start_ns = g.start;
			f->end_ns = g.end;
			f->share = share_of(f->recoverable_ns, (double)step_time(c, ri, b.step));
			char d[32], st[32], det[200];
			text_sanitize(b.detail, det, sizeof det, 0);
			snprintf(
			    f->evidence, sizeof f->evidence,
			    "rank %d's device was idle %s ms%s%s%s%s with no communication in "
			    "progress: %s (%s)",
			    r->rank, ms(f->recoverable_ns, d, sizeof d),
			    b.step >= 0 ? " in step " : "",
			    b.step >= 0 ? (snprintf(st, sizeof st, "%lld", (long long)b.step), st)
			                : "",
			    b.stage != TL_STAGE_NONE ? ", inside " : "", stage_name(c, b.stage),
			    b.reason == TL_BUBBLE_LAUNCH_GAP ? "the host launched nothing"
			                                     : "nothing was scheduled",
			    det);
		}
		free(gv);
		tlq_release_rank(c->q, ri);
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind == TL_FIND_STALL)
			stall_next_coll(c, &c->v[i]);
}

/* stage_imbalance: per stage and step, the longest rank's duration minus the median rank's,
 * summed over the steps where it is at least threshold x the median, per (stage, rank); a
 * stall inside the instance is the stall's finding and is taken out here */
typedef struct imb_acc {
	int stage;
	size_t ri;
	int64_t excess, stalled, dur, med, start, end, step;
	int nsteps;
} imb_acc;

static void
f_stage_imbalance(fctx *c)
{
	const tl_imbalance *im;
	size_t n = tlq_imbalances(c->q, &im);
	imb_acc *acc = NULL;
	size_t na = 0, ca = 0;
	for (size_t i = 0; i < n; i++) {
		const tl_imbalance *e = &im[i];
		if (e->stage == TL_STAGE_NONE || e->n < 2)
			continue;
		int64_t *d = xmalloc(e->n * sizeof *d);
		for (size_t k = 0; k < e->n; k++)
			d[k] = e->ranks[k].duration;
		int64_t med = median_i64(d, e->n);
		free(d);
		/* the rank every other waits for: the latest end (a rank that waits for the others
		 * in the stage's last collective runs longer but is not the slow one) */
		const tl_imb_rank *slow = &e->ranks[e->st.slowest];
		int64_t ex = slow->duration - med;
		if (med <= 0 || ex <= 0 ||
		    (double)ex < c->th[TL_FIND_STAGE_IMBALANCE] * (double)med)
			continue;
		int64_t stalled = stall_time_in(c, slow->rank, slow->start, slow->end, NULL);
		if (stalled > ex)
			stalled = ex;
		imb_inst ii = {slow->rank, slow->start, ex - stalled};
		VEC_PUSH(c->imb, c->nimb, c->icap, ii);
		size_t a = 0;
		while (a < na && !(acc[a].stage == e->stage && acc[a].ri == slow->rank))
			a++;
		if (a == na) {
			imb_acc z = {e->stage, slow->rank,  0,         0,       0,
			             0,        slow->start, slow->end, e->step, 0};
			VEC_PUSH(acc, na, ca, z);
		}
		imb_acc *x = &acc[a];
		x->excess = sat_add(x->excess, ex);
		x->stalled = sat_add(x->stalled, stalled);
		x->dur = sat_add(x->dur, slow->duration);
		x->med = sat_add(x->med, med);
		x->end = slow->end;
		if (x->nsteps++ > 0)
			x->step = -1;
	}
	for (size_t a = 0; a < na; a++) {
		imb_acc *x = &acc[a];
		int64_t rec = x->excess - x->stalled;
		if (rec <= 0)
			continue;
		tl_finding *f = add(c, TL_FIND_STAGE_IMBALANCE);
		set_rank(c, f, x->ri);
		f->recoverable_ns = rec;
		f->step = x->step;
		f->nsteps = x->nsteps;
		f->stage = x->stage;
		f->start_ns = x->start;
		f->end_ns = x->end;
		/* the steps it covers: one, or all of them when more than one */
		int64_t den = step_time(c, x->ri, x->step);
		f->share = share_of(rec, (double)den);
		char a1[32], a2[32], a3[32], a4[32], tail[160] = "";
		if (x->stalled > 0)
			snprintf(tail, sizeof tail,
			         "; %s ms of the excess is a stall inside it, counted "
			         "as that stall",
			         ms(x->stalled, a4, sizeof a4));
		snprintf(f->evidence, sizeof f->evidence,
		         "rank %d ran %s for %s ms over %d step%s, the median rank %s ms: +%s ms "
		         "(%.1f%% of the stage) that every other rank waits for%s",
		         f->rank, stage_name(c, x->stage), ms(x->dur, a1, sizeof a1), x->nsteps,
		         x->nsteps == 1 ? "" : "s", ms(x->med, a2, sizeof a2),
		         ms(x->excess, a3, sizeof a3),
		         x->med > 0 ? 100.0 * (double)x->excess / (double)x->med : 0.0, tail);
	}
	free(acc);
}

/* straggler: a rank last at >= threshold of a group's collectives; recoverable = over those,
 * its arrival - the median rank's arrival, less what a stall of it just before explains */
static void
f_straggler(fctx *c)
{
	const tl_coll *v = c->cr.v;
	size_t n = c->cr.n;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(v[j].group, v[i].group) == 0)
			j++;
		/* instances [i, j) of one group; count each rank's last arrivals */
		size_t ninst = 0;
		for (size_t k = i; k < j; k++)
			ninst += v[k].n >= 2;
		for (size_t k = i; k < j && ninst > 0; k++) {
			if (v[k].n < 2)
				continue;
			int cand = v[k].last_rank;
			int seen = 0;
			for (size_t p = i; p < k; p++)
				seen |= v[p].n >= 2 && v[p].last_rank == cand;
			if (seen)
				continue;
			size_t last = 0;
			for (size_t p = i; p < j; p++)
				last += v[p].n >= 2 && v[p].last_rank == cand;
			if ((double)last < c->th[TL_FIND_STRAGGLER] * (double)ninst)
				continue;
			size_t ri = trace_rank_index(c->tr, cand);
			int64_t late = 0, stalled = 0, imbal = 0, first = 0, lastt = 0;
			int64_t prev_arr = INT64_MIN;
			for (size_t p = i; p < j; p++) {
				const tl_coll *x = &v[p];
				if (x->n < 2 || x->last_rank != cand)
					continue;
				int64_t *arr = xmalloc(x->n * sizeof *arr), mine = 0;
				for (size_t a = 0; a < x->n; a++) {
					arr[a] = x->ranks[a].arrive;
					if (x->ranks[a].rank == cand)
						mine = x->ranks[a].arrive;
				}
				int64_t med = median_i64(arr, x->n);
				free(arr);
				int64_t l = mine - med;
				if (l <= 0)
					continue;
				/* the others leave a collective when its last member has arrived:
				 * where most of them had left before this rank arrived, the clocks
				 * disagree (or the instances are not one collective), and the
				 * difference is no wait anybody spent */
				size_t gone = 0;
				for (size_t a = 0; a < x->n; a++)
					gone += x->ranks[a].rank != cand && x->ranks[a].end < mine;
				if (2 * gone > x->n - 1)
					continue;
				/* a stall of the rank between its previous arrival and this one */
				int64_t st = ri == SIZE_MAX ? 0
				                            : stall_time_in(c, ri,
				                                            prev_arr == INT64_MIN
				                                                ? mine - l - 1
				                                                : prev_arr,
				                                            mine, NULL);
				prev_arr = mine;
				if (st > l)
					st = l;
				l -= st;
				/* a counted stage excess of the rank that began before the arrival
				 */
				for (size_t a = 0; a < c->nimb && l > 0; a++) {
					imb_inst *ii = &c->imb[a];
					if (ii->ri != ri || ii->start > mine || ii->left <= 0)
						continue;
					int64_t t = ii->left < l ? ii->left : l;
					ii->left -= t;
					l -= t;
					imbal = sat_add(imbal, t);
				}
				late = sat_add(late, l);
				stalled = sat_add(stalled, st);
				if (first == 0)
					first = mine - l;
				lastt = mine;
			}
			if (late <= 0)
				continue;
			tl_finding *f = add(c, TL_FIND_STRAGGLER);
			if (ri != SIZE_MAX)
				set_rank(c, f, ri);
			else
				f->rank = cand;
			f->recoverable_ns = late;
			f->start_ns = first;
			f->end_ns = lastt;
			f->share =
			    share_of(late, ri == SIZE_MAX ? 0 : (double)step_time(c, ri, -1));
			/* classify: its compute against the median rank's */
			char buf[160];
			const char *why = "host-bound (its kernels are not longer than the median "
			                  "rank's)";
			if (ri != SIZE_MAX && c->nso) {
				int64_t *cp = xmalloc(c->tr->nranks * sizeof *cp), own = 0;
				for (size_t a = 0; a < c->tr->nranks; a++) {
					int64_t s = 0;
					for (size_t k2 = 0; k2 < c->nso[a]; k2++)
						s = sat_add(s, c->so[a][k2].o.computing);
					cp[a] = s;
					if (a == ri)
						own = s;
				}
				int64_t med = median_i64(cp, c->tr->nranks);
				free(cp);
				char b1[32], b2[32];
				if (own > med + med / 50) {
					snprintf(buf, sizeof buf,
					         "compute-bound (its kernels ran %s ms, the median "
					         "rank's "
					         "%s ms)",
					         ms(own, b1, sizeof b1), ms(med, b2, sizeof b2));
					why = buf;
				} else if (stalled > 0) {
					why = "late from a stall";
				}
			}
			char a1[32], a2[32], a3[32], g[96], tail[192] = "";
			text_sanitize(v[i].group, g, sizeof g, 0);
			if (stalled > 0 && imbal > 0)
				snprintf(
				    tail, sizeof tail,
				    "; %s ms more is its stalls before them and %s ms its stage "
				    "imbalance, counted there",
				    ms(stalled, a2, sizeof a2), ms(imbal, a3, sizeof a3));
			else if (stalled > 0)
				snprintf(
				    tail, sizeof tail,
				    "; %s ms more is its stalls before them, counted as stalls",
				    ms(stalled, a2, sizeof a2));
			else if (imbal > 0)
				snprintf(tail, sizeof tail,
				         "; %s ms more is its stage imbalance, counted there",
				         ms(imbal, a3, sizeof a3));
			snprintf(
			    f->evidence, sizeof f->evidence,
			    "rank %d arrived last at %zu of %zu collectives of group %s, %s ms "
			    "after the median rank in all: %s%s",
			    cand, last, ninst, g[0] ? g : "(unnamed)", ms(late, a1, sizeof a1), why,
			    tail);
		}
		i = j;
	}
}

/* slow_link: per (group, src, dst, transport), bytes / transfer time against the median link
 * of the same group and transport */
typedef struct link_acc {
	const char *group;
	int64_t src, dst;
	uint8_t xport;
	uint64_t size;
	int64_t time;
	double gbps;
} link_acc;

static void
f_slow_link(fctx *c)
{
	if (!c->have_cm)
		return;
	link_acc *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < c->cm.nops; i++) {
		const tl_comm_row *op = &c->cm.ops[i];
		for (size_t k = op->link0; k < op->link0 + op->nlink; k++) {
			const tl_comm_link *l = &c->cm.links[k];
			if (l->xport == TL_XPORT_LOCAL || l->src == l->dst || l->time <= 0)
				continue;
			size_t a = 0;
			while (a < n &&
			       !(v[a].src == l->src && v[a].dst == l->dst &&
			         v[a].xport == l->xport && strcmp(v[a].group, op->group) == 0))
				a++;
			if (a == n) {
				link_acc z = {op->group, l->src, l->dst, l->xport, 0, 0, 0};
				VEC_PUSH(v, n, cap, z);
			}
			v[a].size += l->size;
			v[a].time = sat_add(v[a].time, l->time);
		}
	}
	for (size_t a = 0; a < n; a++)
		v[a].gbps = v[a].time > 0 ? (double)v[a].size / (double)v[a].time : 0;
	double *bw = xmalloc((n + 1) * sizeof *bw);
	for (size_t a = 0; a < n; a++) {
		size_t m = 0;
		for (size_t b = 0; b < n; b++)
			if (v[b].xport == v[a].xport && strcmp(v[b].group, v[a].group) == 0)
				bw[m++] = v[b].gbps;
		if (m < 3)
			continue; /* no median to speak of */
		double med = median_dbl(bw, m);
		if (med <= 0 || v[a].gbps >= c->th[TL_FIND_SLOW_LINK] * med)
			continue;
		int64_t rec = v[a].time - (int64_t)((double)v[a].size / med);
		if (rec <= 0)
			continue;
		tl_finding *f = add(c, TL_FIND_SLOW_LINK);
		f->src_rank = (int)v[a].src;
		f->dst_rank = (int)v[a].dst;
		f->transport = tl_xport_name[v[a].xport];
		size_t ri = trace_rank_index(c->tr, (int)v[a].src);
		if (ri != SIZE_MAX)
			set_rank(c, f, ri);
		f->recoverable_ns = rec;
		f->share = share_of(rec, ri == SIZE_MAX ? 0 : (double)step_time(c, ri, -1));
		char a1[32], g[96];
		text_sanitize(v[a].group, g, sizeof g, 0);
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "link %lld -> %lld over %s (group %s) moved %llu bytes in %s ms: %.2f GB/s, "
		    "%.0f%% of the median %s link's %.2f GB/s",
		    (long long)v[a].src, (long long)v[a].dst, f->transport, g[0] ? g : "(unnamed)",
		    (unsigned long long)v[a].size, ms(v[a].time, a1, sizeof a1), v[a].gbps,
		    100.0 * v[a].gbps / med, f->transport, med);
	}
	free(bw);
	free(v);
}

/* The mean of a type row of tlq_op_totals, as tlq_ops's opstats_describe has it. */
static double
op_mean(const tl_op_type_row *t)
{
	return t->st.count ? (double)t->st.total / (double)t->st.count : 0;
}

/* aicpu_op: operator types on AI_CPU whose tasks average over the threshold each. Counts and
 * totals only: each type's durations are neither copied nor sorted (a rank's million
 * durations, twice over, while the summary's peak memory is reached) */
static void
f_aicpu_op(fctx *c)
{
	if (c->o->no_files)
		return;
	tl_ops_result r;
	tlq_op_totals(c->q, &r);
	for (size_t i = 0; i < r.ntypes; i++)
		r.types[i].st.mean = op_mean(&r.types[i]);
	int64_t min = (int64_t)(c->th[TL_FIND_AICPU_OP] * 1e3);
	double den = mean_step_time(c, -1);
	for (size_t i = 0; i < r.ntypes; i++) {
		const tl_op_type_row *t = &r.types[i];
		if (strcmp(t->task_type, "AI_CPU") != 0 || t->st.count == 0 ||
		    t->st.mean <= (double)min)
			continue;
		size_t a = 0; /* one finding per op type: the first row of it gathers them */
		for (; a < i; a++)
			if (strcmp(r.types[a].task_type, "AI_CPU") == 0 &&
			    strcmp(r.types[a].op_type, t->op_type) == 0 &&
			    r.types[a].st.mean > (double)min)
				break;
		if (a < i)
			continue;
		int64_t total = 0;
		uint64_t count = 0;
		unsigned char *mark = xcalloc(c->tr->nranks + 1, 1);
		for (size_t b = i; b < r.ntypes; b++) {
			const tl_op_type_row *u = &r.types[b];
			if (strcmp(u->task_type, "AI_CPU") != 0 ||
			    strcmp(u->op_type, t->op_type) != 0 || u->st.mean <= (double)min)
				continue;
			total = sat_add(total, u->st.total);
			count += u->st.count;
			size_t ri = trace_rank_index(c->tr, u->rank);
			if (ri != SIZE_MAX)
				mark[ri] = 1;
		}
		tl_finding *f = add(c, TL_FIND_AICPU_OP);
		set_ranks(c, f, mark);
		free(mark);
		f->recoverable_ns = c->tr->nranks ? total / (int64_t)c->tr->nranks : 0;
		f->share = share_of(f->recoverable_ns, den);
		text_sanitize(t->op_type, f->op, sizeof f->op, 0);
		char a1[32], a2[32], a3[32];
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "operator %s ran on the AI CPU %llu times, %s us each on average (over %s us), "
		    "%s ms of device time per rank",
		    f->op, (unsigned long long)count,
		    timefmt_us3(count ? total / (int64_t)count : 0, a1, sizeof a1),
		    timefmt_us3(min, a2, sizeof a2), ms(f->recoverable_ns, a3, sizeof a3));
	}
	tlq_ops_free(&r);
}

/* The synchronisation time of a rank's communication ops in a step (-1: all). */
static int64_t
comm_sync(const fctx *c, int rank, int64_t step)
{
	int64_t t = 0;
	for (size_t i = 0; c->have_cm && i < c->cm.nops; i++) {
		const tl_comm_row *op = &c->cm.ops[i];
		if (op->rank == rank && (step < 0 || op->step == step) && op->t.sync > 0)
			t = sat_add(t, op->t.sync);
	}
	return t;
}

/* exposed_communication: per rank and step, communication no compute overlaps, less the wait
 * for late ranks (the straggler's), where it is >= threshold of the step */
static void
f_exposed_comm(fctx *c)
{
	unsigned char *mark = xcalloc(c->tr->nranks + 1, 1);
	int64_t total = 0, worst = 0;
	size_t wri = SIZE_MAX;
	int64_t wstep = -1, ws = 0, we = 0, wwait = 0;
	for (size_t ri = 0; ri < c->tr->nranks; ri++) {
		/* a CPU-only trace: its host collectives overlap no device compute by nature */
		for (size_t k = 0; !c->tr->ranks[ri]->host_only && k < c->nso[ri]; k++) {
			const tl_step_overlap *s = &c->so[ri][k];
			int64_t wait =
			    c->rs && c->rs[ri].n == c->nso[ri] ? c->rs[ri].sp[k].wait_ns : 0;
			/* a group not all loaded has no split: its ops' own synchronisation (the
			 * wait before the first transfer, for a late rank) stands for it */
			int64_t sync = comm_sync(c, c->tr->ranks[ri]->rank, s->step_id);
			if (sync > wait)
				wait = sync;
			int64_t ex = s->o.comm_not_overlapped - wait;
			int64_t len = so_len(s);
			if (ex <= 0 || len <= 0 ||
			    (double)ex < c->th[TL_FIND_EXPOSED_COMM] * (double)len)
				continue;
			mark[ri] = 1;
			total = sat_add(total, ex);
			if (ex > worst) {
				worst = ex;
				wri = ri;
				wstep = s->step_id;
				ws = s->step_start ? s->step_start : s->o.first_busy;
				we = s->step_end ? s->step_end : s->o.last_busy;
				wwait = wait;
			}
		}
	}
	if (total > 0) {
		tl_finding *f = add(c, TL_FIND_EXPOSED_COMM);
		set_ranks(c, f, mark);
		f->rank_ix = wri;
		f->recoverable_ns = total / (int64_t)c->tr->nranks;
		f->share = share_of(f->recoverable_ns, mean_step_time(c, -1));
		f->start_ns = ws;
		f->end_ns = we;
		char a1[32], a2[32], a3[32];
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "communication that no compute overlaps, less the wait for late ranks, is "
		    "%s ms per rank over the capture; the most is rank %d's %s ms in step %lld "
		    "(after %s ms of waiting taken out)",
		    ms(f->recoverable_ns, a1, sizeof a1), c->tr->ranks[wri]->rank,
		    ms(worst, a2, sizeof a2), (long long)wstep, ms(wwait, a3, sizeof a3));
		/* what its ops did meanwhile (the communication analysis): moving data, waiting
		 * for peers, or open with nothing moving */
		int64_t tr = 0, wt = 0, id = 0;
		for (size_t i = 0; c->have_cm && i < c->cm.nops; i++) {
			const tl_comm_row *op = &c->cm.ops[i];
			if (op->rank != c->tr->ranks[wri]->rank || op->step != wstep ||
			    op->ntasks == 0)
				continue;
			tr = sat_add(tr, op->t.transit);
			wt = sat_add(wt, op->t.wait);
			id = sat_add(id, op->t.idle);
		}
		if (tr > 0 || wt > 0 || id > 0) { /* each saturated: never summed */
			size_t l = strlen(f->evidence);
			char b1[32], b2[32], b3[32];
			snprintf(
			    f->evidence + l, sizeof f->evidence - l,
			    "; its ops' sub-tasks: %s ms transferring, %s ms waiting for peers, %s "
			    "ms open with nothing moving",
			    ms(tr, b1, sizeof b1), ms(wt, b2, sizeof b2), ms(id, b3, sizeof b3));
		}
	}
	free(mark);
}

/* between_steps: host time between one step's end and the next one's start, per rank, mean
 * over the ranks, when >= threshold of the capture (first step start to last step end) */
static void
f_between_steps(fctx *c)
{
	int64_t total = 0, cap = 0, big = 0, bs = 0, be = 0;
	size_t bri = SIZE_MAX, nr = 0;
	for (size_t ri = 0; ri < c->tr->nranks; ri++) {
		const tl_rank *r = c->tr->ranks[ri];
		if (r->nsteps < 2)
			continue;
		nr++;
		cap = sat_add(cap, r->steps[r->nsteps - 1].end - r->steps[0].start);
		for (size_t k = 1; k < r->nsteps; k++) {
			int64_t g = r->steps[k].start - r->steps[k - 1].end;
			if (g <= 0)
				continue;
			total = sat_add(total, g);
			if (g > big) {
				big = g;
				bri = ri;
				bs = r->steps[k - 1].end;
				be = r->steps[k].start;
			}
		}
	}
	if (nr == 0 || total <= 0 || (double)total < c->th[TL_FIND_BETWEEN_STEPS] * (double)cap)
		return;
	tl_finding *f = add(c, TL_FIND_BETWEEN_STEPS);
	unsigned char *mark = xcalloc(c->tr->nranks + 1, 1);
	for (size_t ri = 0; ri < c->tr->nranks; ri++)
		mark[ri] = c->tr->ranks[ri]->nsteps >= 2;
	set_ranks(c, f, mark);
	free(mark);
	f->rank_ix = bri;
	f->recoverable_ns = total / (int64_t)nr;
	f->share = share_of(f->recoverable_ns, (double)cap / (double)nr);
	f->start_ns = bs;
	f->end_ns = be;
	char a1[32], a2[32];
	snprintf(
	    f->evidence, sizeof f->evidence,
	    "%s ms per rank passed between the end of one step and the start of the next "
	    "(%.1f%% of the capture: data loading, checkpoints, logging); the longest is %s ms "
	    "on rank %d",
	    ms(f->recoverable_ns, a1, sizeof a1), 100.0 * f->share, ms(big, a2, sizeof a2),
	    c->tr->ranks[bri]->rank);
}

/* pipeline_bubble: a PP stage's bubble ratio beyond the schedule's ideal (p-1)/(m+p-1), when
 * the excess is >= threshold of the step's pipeline span */
static void
f_pipeline_bubble(fctx *c)
{
	const tl_pipeline *pp = tlq_pipeline(c->q);
	if (pp == NULL || pp->nsteps == 0 || pp->npp < 2)
		return;
	for (int ps = 0; ps < pp->npp; ps++) {
		int64_t rec = 0, stime = 0, s0 = 0, e0 = 0;
		double ratio = 0, ideal = 0;
		int nst = 0, m = 0;
		int64_t step = -1;
		size_t shown = SIZE_MAX;
		for (size_t k = 0; k < pp->nsteps; k++) {
			const tl_pp_step *st = &pp->steps[k];
			for (size_t j = 0; j < st->nstages; j++) {
				const tl_pp_stage *g = &st->stages[j];
				if (g->pp_stage != ps || g->nblocks == 0)
					continue;
				int mb = 0;
				for (size_t b = 0; b < g->nblocks; b++)
					mb += g->blocks[b].kind == 'F';
				int p = pp->npp;
				double id = mb > 0 ? (double)(p - 1) / (double)(mb + p - 1) : 0;
				int64_t sp = st->end - st->start;
				double ex = g->bubble_ratio - id;
				if (sp <= 0 || ex < c->th[TL_FIND_PIPELINE_BUBBLE])
					continue;
				rec = sat_add(rec, (int64_t)(ex * (double)sp));
				/* the share's denominator, as every finding's: the step time of
				 * the rank it names (the pipeline's span, the step not marked) */
				int64_t t = st->step >= 0 && g->shown < c->tr->nranks
				                ? step_time(c, g->shown, st->step)
				                : 0;
				stime = sat_add(stime, t > 0 ? t : sp);
				ratio = g->bubble_ratio;
				ideal = id;
				m = mb;
				if (nst++ == 0) {
					step = st->step;
					s0 = st->start;
					shown = g->shown;
				} else {
					step = -1;
				}
				e0 = st->end;
			}
		}
		if (rec <= 0)
			continue;
		tl_finding *f = add(c, TL_FIND_PIPELINE_BUBBLE);
		f->pp_stage = ps;
		if (shown != SIZE_MAX)
			set_rank(c, f, shown);
		f->recoverable_ns = rec;
		f->step = step;
		f->nsteps = nst;
		f->start_ns = s0;
		f->end_ns = e0;
		f->share = share_of(rec, (double)stime);
		char a1[32];
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "PP stage %d was idle %.1f%% of the pipeline's span (last step), the "
		    "schedule's "
		    "ideal with %d micro-batches on %d stages is %.1f%%: %s ms beyond it over %d "
		    "step%s",
		    ps, 100.0 * ratio, m, pp->npp, 100.0 * ideal, ms(rec, a1, sizeof a1), nst,
		    nst == 1 ? "" : "s");
	}
}

/* small_packets: per transport class (SDMA links; RDMA), more than threshold of the bytes in
 * transfers under 16 MB (SDMA) / 1 MB (RDMA); recoverable = their time - their bytes at the
 * bandwidth of the larger transfers of the same class */
static void
f_small_packets(fctx *c)
{
	if (!c->have_cm)
		return;
	for (int rdma = 0; rdma <= 1; rdma++) {
		uint64_t lim = rdma ? (1ull << 20) : (16ull << 20);
		uint64_t sb = 0, lb = 0, sc = 0;
		int64_t st = 0, lt = 0;
		for (size_t i = 0; i < c->cm.nbw; i++) {
			const tl_comm_bw *b = &c->cm.bw[i];
			if (b->xport == TL_XPORT_LOCAL || b->xport == TL_XPORT_SDMA ||
			    (b->xport == TL_XPORT_RDMA) != rdma)
				continue;
			for (size_t k = 0; k < b->npk; k++) {
				const tl_comm_packet *p = &b->pk[k];
				if (p->size < lim) {
					sb += p->size * p->count;
					sc += p->count;
					st = sat_add(st, p->time);
				} else {
					lb += p->size * p->count;
					lt = sat_add(lt, p->time);
				}
			}
		}
		if (sb + lb == 0 || (double)sb <= c->th[TL_FIND_SMALL_PACKETS] * (double)(sb + lb))
			continue;
		int64_t rec = 0;
		if (lb > 0 && lt > 0) {
			rec = st - (int64_t)((double)sb * (double)lt / (double)lb);
			if (rec < 0)
				rec = 0;
		}
		tl_finding *f = add(c, TL_FIND_SMALL_PACKETS);
		f->transport = rdma ? "RDMA" : "SDMA";
		f->recoverable_ns = c->tr->nranks ? rec / (int64_t)c->tr->nranks : 0;
		f->share = share_of(f->recoverable_ns, mean_step_time(c, -1));
		char a1[32];
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "%.0f%% of the %s volume (%llu of %llu bytes) moved in %llu transfers under "
		    "%s; %s",
		    100.0 * (double)sb / (double)(sb + lb), f->transport, (unsigned long long)sb,
		    (unsigned long long)(sb + lb), (unsigned long long)sc, rdma ? "1 MB" : "16 MB",
		    lb > 0 ? (snprintf(a1, sizeof a1, "%.2f GB/s", (double)lb / (double)lt), a1)
		           : "no larger transfer to compare their bandwidth with");
		if (lb > 0) {
			size_t l = strlen(f->evidence);
			char a2[32], a3[32];
			snprintf(f->evidence + l, sizeof f->evidence - l,
			         " for the larger ones against %.2f GB/s for these: %s ms per rank",
			         st > 0 ? (double)sb / (double)st : 0.0,
			         ms(f->recoverable_ns, a2, sizeof a2));
			(void)a3;
		}
	}
}

/* host_bound: per rank, step and stage, the device idle of gaps under the stall threshold before
 * the host had begun the launch of the work that ended the gap, beyond the median rank's for the
 * same step and stage. A gap is the stage's whose instance on the rank holds it whole (the
 * innermost), else no stage's (compared per step). A rank takes part in a step it has work in,
 * and in a stage of it it ran (with no such gap: zero). */
typedef struct hb_key {
	size_t ri;
	int64_t step;
	int stage;
	int64_t ns;
	int64_t w0, w1; /* where to look: the stage instance(s), or the step */
} hb_key;

typedef struct hb_rank {
	fctx *c;
	size_t ri;
	const tl_stage_row *rows; /* the rank's stage rows, by start */
	size_t nrows;
	int64_t min;
	hb_key *k;
	size_t nk, cap, cur; /* the current step's keys are among those from cur */
	int64_t step;
} hb_rank;

static hb_key *
hb_get(hb_rank *h, int stage)
{
	for (size_t i = h->cur; i < h->nk; i++)
		if (h->k[i].step == h->step && h->k[i].stage == stage)
			return &h->k[i];
	return NULL;
}

static void
hb_step(void *ctx, int64_t step)
{
	hb_rank *h = ctx;
	h->step = step;
	for (size_t i = 0; i < h->nk; i++)
		if (h->k[i].step == step) { /* a damaged profile's repeated step: the same keys */
			h->cur = i;
			return;
		}
	h->cur = h->nk;
	int64_t w0 = h->c->tr->ranks[h->ri]->t_min, w1 = h->c->tr->ranks[h->ri]->t_max;
	for (size_t k = 0; k < h->c->nso[h->ri]; k++) {
		const tl_step_overlap *so = &h->c->so[h->ri][k];
		if (so->step_id == step && so->step_end > so->step_start) {
			w0 = so->step_start;
			w1 = so->step_end;
		}
	}
	hb_key z = {h->ri, step, TL_STAGE_NONE, 0, w0, w1};
	VEC_PUSH(h->k, h->nk, h->cap, z);
	for (size_t i = 0; i < h->nrows; i++) {
		const tl_stage_row *x = &h->rows[i];
		if (x->step != step)
			continue;
		hb_key *e = hb_get(h, x->stage);
		if (e == NULL) {
			hb_key y = {h->ri, step, x->stage, 0, x->start, x->end};
			VEC_PUSH(h->k, h->nk, h->cap, y);
		} else {
			if (x->start < e->w0)
				e->w0 = x->start;
			if (x->end > e->w1)
				e->w1 = x->end;
		}
	}
}

static void
hb_gap(void *ctx, int64_t s, int64_t e, int64_t host)
{
	hb_rank *h = ctx;
	if (host <= 0 || e - s >= h->min)
		return;
	/* the innermost stage instance holding [s, e): rows by start, those at or before s */
	size_t lo = 0, hi = h->nrows;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (h->rows[mid].start <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	const tl_stage_row *in = NULL;
	for (size_t i = lo; i-- > 0;) {
		const tl_stage_row *x = &h->rows[i];
		if (x->end >= e && (in == NULL || x->level > in->level))
			in = x;
	}
	hb_key *k = hb_get(h, in ? in->stage : TL_STAGE_NONE);
	if (k == NULL) /* a stage instance of another step */
		k = hb_get(h, TL_STAGE_NONE);
	if (k != NULL)
		k->ns = sat_add(k->ns, host);
}

static int
cmp_hb(const void *a, const void *b)
{
	const hb_key *x = a, *y = b;
	if (x->step != y->step)
		return (x->step > y->step) - (x->step < y->step);
	if (x->stage != y->stage)
		return (x->stage > y->stage) - (x->stage < y->stage);
	return (x->ri > y->ri) - (x->ri < y->ri);
}

static void
f_host_bound(fctx *c)
{
	if (c->o->no_files)
		return;
	size_t nr = c->tr->nranks;
	const tl_stage_row *rows;
	size_t nrows = tlq_stages(c->q, &rows);
	hb_key *all = NULL;
	size_t nall = 0, acap = 0;
	size_t r0 = 0;
	for (size_t ri = 0; ri < nr; ri++) {
		while (r0 < nrows && rows[r0].rank < ri)
			r0++;
		size_t r1 = r0;
		while (r1 < nrows && rows[r1].rank == ri)
			r1++;
		if (c->tr->ranks[ri]->host_only)
			continue;
		hb_rank h = {.c = c,
		             .ri = ri,
		             .rows = rows + r0,
		             .nrows = r1 - r0,
		             .min = (int64_t)(c->th[TL_FIND_STALL] * 1e6)};
		if (tlq_host_gaps(c->q, ri, hb_step, hb_gap, &h) == 0)
			for (size_t i = 0; i < h.nk; i++)
				VEC_PUSH(all, nall, acap, h.k[i]);
		free(h.k);
	}
	if (nall > 0)
		qsort(all, nall, sizeof *all, cmp_hb);
	/* per (rank, stage): the excess over the steps */
	hb_key *acc = NULL;
	int *nst = NULL;
	size_t na = 0, ca = 0, cn = 0;
	int64_t *hv = xmalloc((nall + 1) * sizeof *hv);
	for (size_t i = 0; i < nall;) {
		size_t j = i;
		while (j < nall && all[j].step == all[i].step && all[j].stage == all[i].stage)
			j++;
		for (size_t x = i; x < j; x++)
			hv[x - i] = all[x].ns;
		int64_t med = j - i >= 2 ? median_i64(hv, j - i) : INT64_MAX;
		for (size_t x = i; x < j; x++) {
			if (all[x].ns <= med)
				continue;
			size_t a = 0;
			while (a < na && !(acc[a].ri == all[x].ri && acc[a].stage == all[x].stage))
				a++;
			if (a == na) {
				hb_key z = all[x];
				z.ns = 0;
				VEC_PUSH(acc, na, ca, z);
				VEC_RESERVE(nst, cn, na);
				nst[a] = 0;
			} else if (acc[a].step != all[x].step) {
				acc[a].step = -1;
			}
			hb_key *y = &acc[a];
			y->ns = sat_add(y->ns, all[x].ns - med);
			if (all[x].w0 < y->w0)
				y->w0 = all[x].w0;
			if (all[x].w1 > y->w1)
				y->w1 = all[x].w1;
			nst[a]++;
		}
		i = j;
	}
	for (size_t a = 0; a < na; a++) {
		hb_key *y = &acc[a];
		int64_t den = step_time(c, y->ri, nst[a] > 1 ? -1 : y->step);
		if (y->ns <= 0 || (double)y->ns < c->th[TL_FIND_HOST_BOUND] * (double)den)
			continue;
		tl_finding *f = add(c, TL_FIND_HOST_BOUND);
		set_rank(c, f, y->ri);
		f->recoverable_ns = y->ns;
		f->share = share_of(y->ns, (double)den);
		f->step = nst[a] > 1 ? -1 : y->step;
		f->nsteps = nst[a];
		f->stage = y->stage;
		f->start_ns = y->w0;
		f->end_ns = y->w1;
		char a1[32];
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "rank %d's device waited %s ms more than the median rank's for the host to "
		    "start launching its next work%s%s over %d step%s (idle gaps under the "
		    "stall threshold)",
		    f->rank, ms(y->ns, a1, sizeof a1),
		    y->stage != TL_STAGE_NONE ? " in "
		    : nrows > 0               ? " outside every stage"
		                              : "",
		    stage_name(c, y->stage), nst[a], nst[a] == 1 ? "" : "s");
	}
	free(all);
	free(acc);
	free(nst);
	free(hv);
}

/* frequency_drop: the AI Core clock under nominal (the setting, else the rank's highest
 * sample) for more than threshold of a step; recoverable = that time x (1 - f / nominal) */
static void
f_frequency_drop(fctx *c)
{
	if (c->o->no_files)
		return;
	for (size_t ri = 0; ri < c->tr->nranks; ri++) {
		tl_counter *const *cv;
		size_t nc = tlq_rank_counters(c->q, ri, &cv);
		const tl_rank *r = c->tr->ranks[ri];
		for (size_t i = 0; i < nc; i++) {
			const tl_counter *k = cv[i];
			if (k->kind != TL_CTR_FREQ || k->n == 0)
				continue;
			int64_t nom = 0;
			for (size_t s = 0; s < k->n; s++)
				if (k->v[s] > nom)
					nom = k->v[s];
			if (nom <= 0)
				continue;
			int64_t rec = 0, under = 0, s0 = 0, e0 = 0, lo = nom;
			int nst = 0;
			for (size_t sk = 0; sk < c->nso[ri]; sk++) {
				const tl_step_overlap *so = &c->so[ri][sk];
				int64_t t0 =
				    so->step_end > so->step_start ? so->step_start : r->t_min;
				int64_t t1 =
				    so->step_end > so->step_start ? so->step_end : r->t_max;
				if (t1 <= t0) /* a rank without times (t_min > t_max) */
					continue;
				int64_t u = 0, lost = 0;
				for (size_t s = 0; s < k->n; s++) {
					int64_t a = k->t[s],
					        b = s + 1 < k->n ? k->t[s + 1] : r->t_max;
					if (a < t0)
						a = t0;
					if (b > t1)
						b = t1;
					if (b <= a || k->v[s] >= nom)
						continue;
					u += b - a;
					/* the share of the clock lost, at most all of it (a value
					 * below zero, from a damaged file, loses no more) */
					double f = 1.0 - (double)k->v[s] / (double)nom;
					lost += f >= 1.0 ? b - a : (int64_t)((double)(b - a) * f);
					if (k->v[s] < lo)
						lo = k->v[s];
				}
				if ((double)u <= c->th[TL_FIND_FREQUENCY_DROP] * (double)(t1 - t0))
					continue;
				rec = sat_add(rec, lost);
				under = sat_add(under, u);
				if (nst++ == 0)
					s0 = t0;
				e0 = t1;
			}
			if (rec <= 0)
				continue;
			tl_finding *f = add(c, TL_FIND_FREQUENCY_DROP);
			set_rank(c, f, ri);
			f->recoverable_ns = rec;
			f->nsteps = nst;
			f->start_ns = s0;
			f->end_ns = e0;
			f->share = share_of(rec, (double)step_time(c, ri, -1));
			char a1[32], a2[32];
			snprintf(f->evidence, sizeof f->evidence,
			         "rank %d's AI Core clock ran under %lld MHz (down to %lld MHz) "
			         "for %s ms "
			         "in %d step%s: %s ms of compute lost",
			         r->rank, (long long)nom, (long long)lo, ms(under, a1, sizeof a1),
			         nst, nst == 1 ? "" : "s", ms(rec, a2, sizeof a2));
		}
	}
}

/* memory_peak: HBM peak >= threshold of the capacity, where the capacity is known (the
 * setting hbm_capacity_gib; the profiles do not record it) */
static double hbm_capacity_gib; /* set by tlq_findings from the options */

static void
f_memory_peak(fctx *c)
{
	if (c->o->no_files || hbm_capacity_gib <= 0)
		return;
	double capb = hbm_capacity_gib * 1073741824.0;
	for (size_t ri = 0; ri < c->tr->nranks; ri++) {
		tl_npu_mem_peak *p = NULL;
		size_t n = tlq_npu_memory_peaks(c->q, ri, &p);
		int64_t peak = 0;
		for (size_t i = 0; i < n; i++)
			if (p[i].have_hbm && p[i].hbm > peak)
				peak = p[i].hbm;
		free(p);
		if ((double)peak < c->th[TL_FIND_MEMORY_PEAK] * capb)
			continue;
		tl_finding *f = add(c, TL_FIND_MEMORY_PEAK);
		set_rank(c, f, ri);
		snprintf(
		    f->evidence, sizeof f->evidence,
		    "rank %d's HBM peaked at %.2f GiB, %.0f%% of its %.0f GiB: no time to gain, "
		    "but the next larger batch will not fit",
		    f->rank, (double)peak / 1073741824.0, 100.0 * (double)peak / capb,
		    hbm_capacity_gib);
	}
}

/* The table: the order is the order the rules run in (a stall before the imbalance and the
 * straggler that leave its time out). */
static const rule_row rules[TL_FIND__COUNT] = {
    [TL_FIND_STAGE_IMBALANCE] = {{"stage_imbalance",
                                  "per RL stage and step, the duration of the rank that ended "
                                  "last minus the median rank's (the mean of the two middle "
                                  "ranks for an even count), summed over the steps where it is "
                                  "at least the threshold times the median, less the stalls "
                                  "inside it; rank = the one that ended last",
                                  "stage_imbalance_min", 0.05, "fraction of the stage"},
                                 f_stage_imbalance},
    [TL_FIND_STALL] = {{"stall",
                        "one device idle gap at least the threshold long inside a step on one "
                        "rank, with no communication in progress (not a stream held by a "
                        "collective's waits); recoverable = the gap",
                        "stall_ms", 1.0, "ms"},
                       f_stall},
    [TL_FIND_STRAGGLER] = {{"straggler",
                            "a rank that arrives last at at least the threshold share of the "
                            "collectives of a group; recoverable = over the collectives where it "
                            "is last, its arrival minus the median rank's arrival, less its "
                            "stalls before them",
                            "straggler_share", 0.5, "fraction of the collectives"},
                           f_straggler},
    [TL_FIND_SLOW_LINK] = {{"slow_link",
                            "per link (group, source rank, destination rank, transport), "
                            "bandwidth = bytes / transfer time; under the threshold times the "
                            "median link of the same transport and group (three links or more) "
                            "is slow; recoverable = its transfer time - bytes / the median "
                            "bandwidth",
                            "slow_link_ratio", 0.7, "fraction of the median bandwidth"},
                           f_slow_link},
    [TL_FIND_AICPU_OP] = {{"aicpu_op",
                           "operator types on AI_CPU whose tasks take over the threshold each "
                           "on average; recoverable = their device time per rank (the mean over "
                           "the ranks)",
                           "aicpu_op_us", 20.0, "us"},
                          f_aicpu_op},
    [TL_FIND_EXPOSED_COMM] = {{"exposed_communication",
                               "per rank and step, communication that no compute overlaps, "
                               "less the wait for late ranks (the straggler's), where it is at "
                               "least the threshold of the step; recoverable = its mean over the "
                               "ranks",
                               "exposed_comm_min", 0.10, "fraction of the step"},
                              f_exposed_comm},
    [TL_FIND_BETWEEN_STEPS] = {{"between_steps",
                                "host time between one step's end and the next one's start "
                                "(data loading, checkpoints, logging), the mean over the ranks, "
                                "when at least the threshold of the capture",
                                "between_steps_min", 0.05, "fraction of the capture"},
                               f_between_steps},
    [TL_FIND_PIPELINE_BUBBLE] = {{"pipeline_bubble",
                                  "a PP stage's bubble ratio beyond the schedule's ideal "
                                  "(p-1)/(m+p-1) by at least the threshold; recoverable = the "
                                  "excess times the step's pipeline span, summed over the steps",
                                  "pipeline_bubble_excess", 0.02, "fraction of the span"},
                                 f_pipeline_bubble},
    [TL_FIND_SMALL_PACKETS] = {{"small_packets",
                                "more than the threshold of a transport's volume in transfers "
                                "under 16 MB (SDMA) or 1 MB (RDMA); recoverable = their time "
                                "minus their bytes at the larger transfers' bandwidth, per rank",
                                "small_packets_share", 0.20, "fraction of the volume"},
                               f_small_packets},
    [TL_FIND_HOST_BOUND] = {{"host_bound",
                             "per rank, step and RL stage, the device idle time of gaps under "
                             "the stall threshold before the host had begun the launch of the "
                             "work that ended the gap, beyond the median rank's for the same "
                             "step and stage (a gap is the stage's whose instance holds it, "
                             "else no stage's); summed over the steps per rank and stage, "
                             "reported when at least the threshold of its steps",
                             "host_bound_min", 0.01, "fraction of the steps"},
                            f_host_bound},
    [TL_FIND_FREQUENCY_DROP] = {{"frequency_drop",
                                 "the AI Core frequency under nominal (the rank's highest "
                                 "sample) for more than the threshold of a step; recoverable = "
                                 "that time times (1 - frequency / nominal)",
                                 "frequency_drop_min", 0.05, "fraction of the step"},
                                f_frequency_drop},
    [TL_FIND_MEMORY_PEAK] = {{"memory_peak",
                              "the HBM peak at least the threshold of the capacity, where the "
                              "capacity is known (TL_HBM_CAPACITY_GIB); no time recoverable",
                              "memory_peak_min", 0.90, "fraction of the capacity"},
                             f_memory_peak},
};

/* the order they run in */
static const int run_order[TL_FIND__COUNT] = {
    TL_FIND_STALL,         TL_FIND_STAGE_IMBALANCE, TL_FIND_STRAGGLER,      TL_FIND_SLOW_LINK,
    TL_FIND_AICPU_OP,      TL_FIND_EXPOSED_COMM,    TL_FIND_BETWEEN_STEPS,  TL_FIND_PIPELINE_BUBBLE,
    TL_FIND_SMALL_PACKETS, TL_FIND_HOST_BOUND,      TL_FIND_FREQUENCY_DROP, TL_FIND_MEMORY_PEAK,
};

const tl_find_rule *
tlq_find_rules(void)
{
	static tl_find_rule t[TL_FIND__COUNT];
	if (t[0].kind == NULL)
		for (int i = 0; i < TL_FIND__COUNT; i++)
			t[i] = rules[i].r;
	return t;
}

int
tlq_find_setting(const char *name)
{
	for (int i = 0; i < TL_FIND__COUNT; i++)
		if (strcmp(rules[i].r.setting, name) == 0)
			return i;
	return -1;
}

static int
cmp_finding(const void *a, const void *b)
{
	const tl_finding *x = a, *y = b;
	if (x->recoverable_ns != y->recoverable_ns)
		return x->recoverable_ns < y->recoverable_ns ? 1 : -1;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int64_t findings_ns, findings_cpu_ns; /* tlq_findings_ns */

/* The process' CPU time but a critical path's beside the findings (tlq_critical_start). */
static int64_t
cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec - tlq_critical_jobs_cpu_ns();
}

int64_t
tlq_findings_ns(int64_t *cpu)
{
	if (cpu != NULL)
		*cpu = __atomic_load_n(&findings_cpu_ns, __ATOMIC_RELAXED);
	return __atomic_load_n(&findings_ns, __ATOMIC_RELAXED);
}

static void on_path(tl_finding *f, const tl_cp_result *cp);

size_t
tlq_findings(const tl_query *q, const tl_find_opts *opts, tl_finding **out)
{
	static const tl_find_opts none;
	int64_t t0 = timefmt_mono_ns(), c0 = cpu_ns();
	fctx c;
	memset(&c, 0, sizeof c);
	c.q = q;
	c.tr = tlq_trace(q);
	c.o = opts ? opts : &none;
	for (int i = 0; i < TL_FIND__COUNT; i++)
		c.th[i] = c.o->threshold[i] > 0 ? c.o->threshold[i] : rules[i].r.threshold;
	hbm_capacity_gib = 0;
	const char *cap = getenv("TL_HBM_CAPACITY_GIB");
	if (cap != NULL)
		hbm_capacity_gib = atof(cap);
	size_t nr = c.tr->nranks;
	c.so = xcalloc(nr + 1, sizeof *c.so);
	c.nso = xcalloc(nr + 1, sizeof *c.nso);
	/* the caller's per-rank steps hold the same rows (tlq_rank_steps asks tlq_step_overlaps,
	 * at least one row a rank): not asked again over every slice */
	c.own_so = c.o->rs == NULL;
	for (size_t ri = 0; ri < nr && !c.own_so; ri++)
		c.own_so = c.o->rs[ri].n == 0;
	for (size_t ri = 0; ri < nr; ri++) {
		if (!c.own_so) {
			c.so[ri] = c.o->rs[ri].so;
			c.nso[ri] = c.o->rs[ri].n;
			continue;
		}
		c.nso[ri] = tlq_step_overlaps(c.tr->ranks[ri], &c.so[ri]);
		tlq_release_rank(q, ri); /* a batch summary (query.h) */
	}
	if (c.o->cr != NULL) {
		c.cr = *c.o->cr;
	} else {
		tlq_collectives(q, &c.cr);
		c.own_cr = 1;
	}
	if (c.o->cm != NULL) {
		c.cm = *c.o->cm;
		c.have_cm = 1;
	} else if (!c.o->no_files) {
		tlq_comm(q, &c.cm);
		c.have_cm = c.own_cm = 1;
	}
	if (c.o->rs != NULL)
		c.rs = c.o->rs;
	else /* without the communication tables (no_files): every group taken as loaded whole */
		c.rs = c.own_rs = tlq_rank_steps(q, &c.cr, c.have_cm ? &c.cm : NULL);
	for (int i = 0; i < TL_FIND__COUNT; i++) {
		rules[run_order[i]].fn(&c);
		tlq_release_pages(q); /* each detector's pages given back (query.h) */
	}
	/* the defaults (the viewer): the path computed here, so that every finding says it */
	tl_cp_result own;
	if (opts == NULL)
		tlq_critical(q, NULL, 0, &own);
	int64_t w0 = timefmt_mono_ns(); /* the wait for a path is the path's, not the engine's */
	const tl_cp_result *cp = opts == NULL           ? &own
	                         : c.o->cp_wait != NULL ? c.o->cp_wait(c.o->cp_ctx)
	                                                : c.o->cp;
	t0 += timefmt_mono_ns() - w0;
	for (size_t i = 0; i < c.n; i++)
		on_path(&c.v[i], cp);
	if (opts == NULL)
		tlq_critical_free(&own);
	if (c.n > 1)
		qsort(c.v, c.n, sizeof *c.v, cmp_finding);
	if (c.own_rs)
		tlq_rank_steps_free(q, c.own_rs);
	if (c.own_cm)
		tlq_comm_free(&c.cm);
	if (c.own_cr)
		tlq_collectives_free(&c.cr);
	for (size_t ri = 0; ri < nr && c.own_so; ri++)
		free(c.so[ri]);
	free(c.so);
	free(c.nso);
	free(c.stalls);
	free(c.imb);
	*out = c.v;
	__atomic_add_fetch(&findings_ns, timefmt_mono_ns() - t0, __ATOMIC_RELAXED);
	__atomic_add_fetch(&findings_cpu_ns, cpu_ns() - c0, __ATOMIC_RELAXED);
	return c.n;
}

void
tlq_findings_on_path(tl_finding *v, size_t n, const tl_cp_result *cp)
{
	for (size_t i = 0; i < n; i++)
		on_path(&v[i], cp);
}

/* Whether f's span meets the critical path cp: a segment of f's rank (f of several ranks or
 * none: of any) overlapping [start_ns, end_ns), in f's step (-1: any); said in its evidence. */
static void
on_path(tl_finding *f, const tl_cp_result *cp)
{
	f->on_critical_path = -1;
	if (cp == NULL || f->start_ns >= f->end_ns)
		return;
	int on = 0;
	for (size_t i = 0; i < cp->n && !on; i++) {
		const cp_step *s = &cp->steps[i];
		if ((f->step >= 0 && s->step >= 0 && s->step != f->step) || s->end <= f->start_ns ||
		    s->start >= f->end_ns)
			continue;
		on = critpath_meets(s, f->rank, f->start_ns, f->end_ns);
	}
	f->on_critical_path = on;
	size_t l = strlen(f->evidence);
	snprintf(f->evidence + l, sizeof f->evidence - l, "; %son the critical path",
	         on ? "" : "not ");
}

char *
tlq_finding_title(const tl_query *q, const tl_finding *f, char *buf, size_t len)
{
	char where[96] = "", a1[32], steps[48] = "";
	const char *stg = f->stage != TL_STAGE_NONE ? tlq_stage_name(q, f->stage) : NULL;
	if (f->kind == TL_FIND_PIPELINE_BUBBLE)
		snprintf(where, sizeof where, "PP stage %d (rank %d)", f->pp_stage, f->rank);
	else if (f->kind == TL_FIND_SLOW_LINK)
		snprintf(where, sizeof where, "link %d -> %d (%s)", f->src_rank, f->dst_rank,
		         f->transport ? f->transport : "");
	else if (f->op[0])
		snprintf(where, sizeof where, "%s", f->op);
	else if (f->rank_ix != SIZE_MAX && !f->ranks[0])
		snprintf(where, sizeof where, "rank %d", f->rank);
	else if (f->ranks[0])
		snprintf(where, sizeof where, "ranks %s", f->ranks);
	else if (f->transport)
		snprintf(where, sizeof where, "%s", f->transport);
	if (f->kind == TL_FIND_HOST_BOUND && stg) {
		size_t l = strlen(where);
		snprintf(where + l, sizeof where - l, " in %s", stg);
	}
	if (f->step >= 0)
		snprintf(steps, sizeof steps, " in step %lld", (long long)f->step);
	else if (f->nsteps > 1)
		snprintf(steps, sizeof steps, " over %d steps", f->nsteps);
	char kind[64];
	if (f->kind == TL_FIND_STAGE_IMBALANCE && stg)
		snprintf(kind, sizeof kind, "%s imbalance", stg);
	else
		snprintf(kind, sizeof kind, "%s", rules[f->kind].r.kind);
	snprintf(buf, len, "%s: %s, +%s ms%s (%.1f%%)", kind, where,
	         timefmt_ms(f->recoverable_ns, 2, a1, sizeof a1), steps, 100.0 * f->share);
	return buf;
}
