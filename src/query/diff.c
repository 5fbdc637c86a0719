#include "config.h"
#include "query/diff.h"
#include "query/query.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"
#include "util/satint.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

static int
cmp_i64(const void *p, const void *q)
{
	int64_t x = *(const int64_t *)p, y = *(const int64_t *)q;
	return (x > y) - (x < y);
}

static int
cmp_int(const void *p, const void *q)
{
	int x = *(const int *)p, y = *(const int *)q;
	return (x > y) - (x < y);
}

static int
cmp_str(const void *p, const void *q)
{
	return strcmp(*(const char *const *)p, *(const char *const *)q);
}

/* The rank number a measurement of trace rank index ri is filed under, or -1 to skip it. A
 * trace of one rank whose number is not known (a single Kineto trace, an msprof DB) is filed
 * under TL_DIFF_RANK_SINGLE, so that two such traces pair. */
static int
side_rank(const tl_trace *tr, const tl_diff_side_opts *o, size_t ri)
{
	int r = tr->ranks[ri]->rank;
	if (o->only_rank >= 0)
		return r == o->only_rank ? o->as_rank : -1;
	if (r < 0 && tr->nranks == 1)
		return TL_DIFF_RANK_SINGLE;
	return r;
}

/* step_key's answer for a step with nothing to pair with on the other side (before step_first,
 * or not profiled here); -1 is the key of "no step". */
#define STEP_UNPAIRED (-2)

/* The aligned key of a STEP_TIME id: -1 for none, STEP_UNPAIRED. */
static int64_t
step_key(const tl_diff_side *s, int64_t id)
{
	if (id < 0)
		return -1;
	if (s->step_first >= 0)
		return id >= s->step_first ? id - s->step_first : STEP_UNPAIRED;
	int64_t *p = bsearch(&id, s->steps, s->nsteps, sizeof *s->steps, cmp_i64);
	return p ? (int64_t)(p - s->steps) : STEP_UNPAIRED;
}

static void
add(tl_diff_side *s, tl_diff_kind kind, const char *name, int rank, int64_t step_id, int64_t ns,
    uint64_t count)
{
	int64_t key = step_key(s, step_id);
	if (key == STEP_UNPAIRED || rank < 0)
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	uint32_t id = strpool_intern_cstr(s->names, name);
	s->v[s->n++] = (tl_diff_meas){
	    .kind = kind, .name = NULL, .rank = rank, .step = key, .ns = ns, .count = count};
	/* the pool may move its strings while it grows: ids now, pointers at the end */
	s->v[s->n - 1].name = (const char *)(uintptr_t)id;
}

/* Each rank's step overlaps, asked once: they give the steps and the overlap rows. */
typedef struct rank_steps {
	tl_step_overlap *so;
	size_t n;
} rank_steps;

static void
gather_overlap(const tl_trace *tr, const tl_diff_side_opts *o, tl_diff_side *s,
               const rank_steps *rs)
{
	for (size_t i = 0; i < tr->nranks; i++) {
		int rank = side_rank(tr, o, i);
		if (rank < 0 || tr->ranks[i]->host_only)
			continue;
		const tl_step_overlap *so = rs[i].so;
		for (size_t k = 0; k < rs[i].n; k++) {
			const tl_overlap *v = &so[k].o;
			int64_t st = so[k].step_id;
			add(s, TL_DIFF_OVERLAP, "computing", rank, st, v->computing, 0);
			add(s, TL_DIFF_OVERLAP, "communication", rank, st, v->communication, 0);
			add(s, TL_DIFF_OVERLAP, "communication not overlapped", rank, st,
			    v->comm_not_overlapped, 0);
			add(s, TL_DIFF_OVERLAP, "free", rank, st, v->free, 0);
			add(s, TL_DIFF_OVERLAP, "preparing", rank, st, v->preparing, 0);
			if (st >= 0)
				add(s, TL_DIFF_OVERLAP, "step", rank, st,
				    so[k].step_end - so[k].step_start, 0);
		}
	}
}

typedef struct steps_job {
	const tl_trace *tr;
	const tl_diff_side_opts *o;
	rank_steps *rs;
} steps_job;

static void
steps_rank(void *arg, size_t i)
{
	const steps_job *j = arg;
	if (side_rank(j->tr, j->o, i) >= 0)
		j->rs[i].n = tlq_step_overlaps(j->tr->ranks[i], &j->rs[i].so);
}

static void
collect_steps(const tl_trace *tr, const tl_diff_side_opts *o, tl_diff_side *s, rank_steps *rs)
{
	size_t cap = 0;
	steps_job j = {tr, o, rs};
	parallel_for(tr->nranks, 0, steps_rank, &j); /* each rank's overlaps, ranks in parallel */
	for (size_t i = 0; i < tr->nranks; i++) {
		if (side_rank(tr, o, i) < 0)
			continue;
		const tl_step_overlap *so = rs[i].so;
		for (size_t k = 0; k < rs[i].n; k++) {
			if (so[k].step_id < 0)
				continue;
			if (s->nsteps == cap) {
				cap = cap ? 2 * cap : 64;
				s->steps = xrealloc(s->steps, cap * sizeof *s->steps);
			}
			s->steps[s->nsteps++] = so[k].step_id;
		}
	}
	if (s->nsteps)
		qsort(s->steps, s->nsteps, sizeof *s->steps, cmp_i64);
	size_t w = 0;
	for (size_t k = 0; k < s->nsteps; k++)
		if (w == 0 || s->steps[w - 1] != s->steps[k])
			s->steps[w++] = s->steps[k];
	s->nsteps = w;
	for (size_t k = 0; k < w; k++)
		if (s->step_first >= 0 && s->steps[k] < s->step_first)
			s->steps_skipped++;
}

static void
gather_rl(const tl_query *rl, const tl_diff_side_opts *o, tl_diff_side *s)
{
	const tl_trace *tr = tlq_trace(rl);
	const tl_stage_row *rows;
	size_t n = tlq_stages(rl, &rows);
	for (size_t k = 0; k < n; k++) {
		const char *name = tlq_stage_name(rl, rows[k].stage);
		if (name == NULL)
			continue;
		s->have_stages = 1;
		add(s, TL_DIFF_STAGE, name, side_rank(tr, o, rows[k].rank), rows[k].step,
		    rows[k].end - rows[k].start, 1);
	}
	/* the longest idle gap of each rank: the first of its bubbles (longest first) */
	const tl_rl_bubble *b;
	size_t nb = tlq_bubbles(rl, &b);
	for (size_t k = 0; k < nb; k++)
		if (k == 0 || b[k].rank != b[k - 1].rank)
			add(s, TL_DIFF_BUBBLE, "longest bubble", side_rank(tr, o, b[k].rank), -1,
			    b[k].end - b[k].start, 1);
}

static int
rank_of_number(const tl_trace *tr, const tl_diff_side_opts *o, int number)
{
	for (size_t i = 0; i < tr->nranks; i++)
		if (tr->ranks[i]->rank == number)
			return side_rank(tr, o, i);
	return -1;
}

static void
gather_ops(const tl_query *q, const tl_diff_side_opts *o, tl_diff_side *s)
{
	const tl_trace *tr = tlq_trace(q);
	tl_ops_result r;
	tlq_op_totals(q, &r); /* counts and totals: what is compared */
	char buf[512];
	for (size_t k = 0; k < r.ntypes; k++) {
		const tl_op_type_row *t = &r.types[k];
		int rank = rank_of_number(tr, o, t->rank);
		snprintf(buf, sizeof buf, "type %s", t->op_type);
		add(s, TL_DIFF_OPERATOR, buf, rank, -1, t->st.total, t->st.count);
		for (size_t m = t->by0; m < t->by0 + t->nby; m++)
			add(s, TL_DIFF_OPERATOR, r.names[m].op_name, rank, -1, r.names[m].st.total,
			    r.names[m].st.count);
	}
	tlq_ops_free(&r);
}

static void
gather_comm(const tl_query *q, const tl_diff_side_opts *o, tl_diff_side *s)
{
	const tl_trace *tr = tlq_trace(q);
	tl_comm_result c;
	tlq_comm(q, &c);
	char buf[256];
	for (size_t k = 0; k < c.nops; k++) {
		const tl_comm_row *r = &c.ops[k];
		int rank = rank_of_number(tr, o, r->rank);
		const char *ty = r->op_type[0] ? r->op_type : r->op_name;
		snprintf(buf, sizeof buf, "%s elapse", ty);
		add(s, TL_DIFF_COMM, buf, rank, r->step, r->t.elapse, 1);
		snprintf(buf, sizeof buf, "%s wait", ty);
		add(s, TL_DIFF_COMM, buf, rank, r->step, r->t.wait, 1);
	}
	tlq_comm_free(&c);
}

void
tlq_diff_gather(const tl_query *q, const tl_diff_side_opts *o, tl_diff_side *s)
{
	const tl_trace *tr = tlq_trace(q);
	memset(s, 0, sizeof *s);
	s->names = strpool_new();
	s->step_first = o->step_first;
	rank_steps *rs = xcalloc(tr->nranks + 1, sizeof *rs);
	collect_steps(tr, o, s, rs);
	for (size_t i = 0; i < tr->nranks; i++) {
		int r = side_rank(tr, o, i);
		if (r < 0)
			continue;
		s->ranks = xrealloc(s->ranks, (s->nranks + 1) * sizeof *s->ranks);
		s->ranks[s->nranks++] = r;
	}
	if (s->nranks)
		qsort(s->ranks, s->nranks, sizeof *s->ranks, cmp_int);
	gather_overlap(tr, o, s, rs);
	for (size_t i = 0; i < tr->nranks; i++)
		free(rs[i].so);
	free(rs);
	gather_rl(q, o, s);
	gather_ops(q, o, s);
	gather_comm(q, o, s);
	for (size_t k = 0; k < s->n; k++)
		s->v[k].name = strpool_get(s->names, (uint32_t)(uintptr_t)s->v[k].name);
	/* the stage names present, each once */
	for (size_t k = 0; k < s->n; k++) {
		if (s->v[k].kind != TL_DIFF_STAGE)
			continue;
		size_t m = 0;
		while (m < s->nstages && strcmp(s->stages[m], s->v[k].name) != 0)
			m++;
		if (m == s->nstages) {
			s->stages = xrealloc(s->stages, (s->nstages + 1) * sizeof *s->stages);
			s->stages[s->nstages++] = s->v[k].name;
		}
	}
	if (s->nstages)
		qsort(s->stages, s->nstages, sizeof *s->stages, cmp_str);
}

void
tlq_diff_pair_single(tl_diff_side *a, tl_diff_side *b)
{
	if (a->nranks != 1 || b->nranks != 1 || a->ranks[0] == b->ranks[0])
		return;
	tl_diff_side *u = a->ranks[0] == TL_DIFF_RANK_SINGLE   ? a
	                  : b->ranks[0] == TL_DIFF_RANK_SINGLE ? b
	                                                       : NULL;
	if (u == NULL)
		return; /* two numbered ranks: --rank N --vs M pairs those */
	int to = u == a ? b->ranks[0] : a->ranks[0];
	for (size_t k = 0; k < u->n; k++)
		if (u->v[k].rank == TL_DIFF_RANK_SINGLE)
			u->v[k].rank = to;
	for (size_t k = 0; k < u->nf; k++)
		if (u->fv[k].rank == TL_DIFF_RANK_SINGLE)
			u->fv[k].rank = to;
	u->ranks[0] = to;
}

void
tlq_diff_side_free(tl_diff_side *s)
{
	free(s->v);
	free(s->ranks);
	free(s->steps);
	free(s->stages);
	free(s->fv);
	strpool_free(s->names);
	memset(s, 0, sizeof *s);
}

int64_t
tlq_diff_step_id(const tl_diff_side *s, int64_t key)
{
	if (key < 0)
		return -1;
	if (s->step_first >= 0)
		return s->step_first + key;
	return (size_t)key < s->nsteps ? s->steps[key] : -1;
}

/* ---- the ranked changes, as tl diff lists them and the viewer's diff panel shows them ---- */

size_t
tlq_diff_changes(const tl_diff_side *a, const tl_diff_side *b, tl_diff_change **out)
{
	tl_diff_meas *va = xmalloc((a->n + 1) * sizeof *va), *vb = xmalloc((b->n + 1) * sizeof *vb);
	memcpy(va, a->v, a->n * sizeof *va);
	memcpy(vb, b->v, b->n * sizeof *vb);
	size_t n = diff_join(va, a->n, vb, b->n, out);
	free(va);
	free(vb);
	diff_rank_changes(*out, n, a->nsteps, b->nsteps);
	return n;
}

int
tlq_diff_changed(const tl_diff_change *c)
{
	return !c->sole && (c->a != c->b || c->has_a != c->has_b);
}

/* x's change over all ranks is larger than best's (none: yes); ties: the first name, then step.
 * The headline compares whole deltas, not the ranking's changes per step. */
static int
larger_mean(const tl_diff_change *x, const tl_diff_change *best)
{
	if (best == NULL)
		return 1;
	int64_t mx = sat_abs(diff_delta(x)), mb = sat_abs(diff_delta(best));
	if (mx != mb)
		return mx > mb;
	int c = strcmp(x->name, best->name);
	return c != 0 ? c < 0 : x->step < best->step;
}

/* The headline: the stage (else the overlap category) that changed most over all ranks, summed
 * over its steps, and the operator that changed most in the same direction. */
void
tlq_diff_verdict(const tl_diff_change *v, size_t n, char *out, size_t len)
{
	const tl_diff_change *top = NULL;
	for (int pass = 0; pass < 2 && top == NULL; pass++) {
		tl_diff_kind k = pass == 0 ? TL_DIFF_STAGE : TL_DIFF_OVERLAP;
		for (size_t i = 0; i < n; i++)
			if (v[i].rank < 0 && v[i].kind == k && tlq_diff_changed(&v[i]) &&
			    (k != TL_DIFF_OVERLAP || strcmp(v[i].name, "step") != 0) &&
			    larger_mean(&v[i], top))
				top = &v[i];
	}
	if (top == NULL) {
		snprintf(out, len, "no changes");
		return;
	}
	int64_t sa = 0, sb = 0, nsteps = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].rank < 0 && v[i].kind == top->kind && strcmp(v[i].name, top->name) == 0) {
			sa = sat_add(sa, v[i].a);
			sb = sat_add(sb, v[i].b);
			nsteps++;
		}
	char name[128], pct[32], ms[48];
	text_sanitize(top->name, name, sizeof name, 0);
	int64_t d = sat_sub(sb, sa), per = d / (nsteps ? nsteps : 1);
	if (sa > 0)
		snprintf(pct, sizeof pct, "%+.0f%%",
		         100.0 * ((double)sb - (double)sa) / (double)sa);
	else
		snprintf(pct, sizeof pct, "new");
	ms[0] = '+';
	timefmt_ms(per, 1, ms + (per >= 0), sizeof ms - 4);
	strcat(ms, " ms");
	int w = snprintf(out, len, "%s %s (%s per %s)", name, pct, ms,
	                 top->step >= 0 ? "step" : "capture");
	if (w < 0 || (size_t)w >= len)
		return;
	const tl_diff_change *op = NULL;
	for (size_t i = 0; i < n; i++)
		if (v[i].rank < 0 && v[i].kind == TL_DIFF_OPERATOR && tlq_diff_changed(&v[i]) &&
		    strncmp(v[i].name, "type ", 5) != 0 && (diff_delta(&v[i]) > 0) == (d > 0) &&
		    larger_mean(&v[i], op))
			op = &v[i];
	if (op != NULL) {
		char oname[128], p[32];
		text_sanitize(op->name, oname, sizeof oname, 0);
		snprintf(out + w, len - (size_t)w, ", mostly %s %s", oname,
		         tlq_diff_pct_text(op, p, sizeof p));
	}
}

/* Percent of a change as text: "+42.1%", "new", "gone" or "-". */
const char *
tlq_diff_pct_text(const tl_diff_change *c, char *buf, size_t len)
{
	double p;
	if (!c->has_a)
		snprintf(buf, len, "new");
	else if (!c->has_b)
		snprintf(buf, len, "gone");
	else if (diff_pct(c, &p))
		snprintf(buf, len, "%+.1f%%", p);
	else
		snprintf(buf, len, "-");
	return buf;
}

int64_t
tlq_diff_step_key(const tl_diff_side *s, int64_t id)
{
	return step_key(s, id);
}

int
tlq_diff_pct(const tl_diff_change *c, double *pct)
{
	return diff_pct(c, pct);
}

const char *
tlq_diff_kind_name(tl_diff_kind k)
{
	return diff_kind_name(k);
}

int
tlq_diff_kind_is_total(tl_diff_kind k)
{
	return diff_kind_is_total(k);
}
