/* tl diff's findings (diff.h): each side's, by place, and the change of each place's time. */
#include "config.h"
#include "query/diff.h"
#include "query/findings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/satint.h"
#include "util/xalloc.h"

/* The same place: a finding over several ranks (a mean over them: exposed communication, an
 * AI CPU operator) is the same place whichever ranks crossed the threshold in each run. */
static int
same_place(const tl_diff_finding *x, const tl_diff_finding *y)
{
	return x->kind == y->kind && x->rank == y->rank && strcmp(x->stage, y->stage) == 0 &&
	       strcmp(x->op, y->op) == 0 && x->src_rank == y->src_rank &&
	       x->dst_rank == y->dst_rank && x->pp_stage == y->pp_stage &&
	       strcmp(x->transport ? x->transport : "", y->transport ? y->transport : "") == 0;
}

void
tlq_diff_gather_findings(const tl_query *q, const tl_diff_side_opts *o, tl_diff_side *s)
{
	s->fv = NULL;
	s->nf = 0;
	s->have_findings = 0;
	if (o->only_rank >= 0)
		return; /* --vs: one rank against another, not two jobs */
	const tl_trace *tr = tlq_trace(q);
	tl_finding *v = NULL;
	size_t n = tlq_findings(q, NULL, &v), cap = 0;
	for (size_t i = 0; i < n; i++) {
		const tl_finding *f = &v[i];
		tl_diff_finding d;
		memset(&d, 0, sizeof d);
		d.kind = f->kind;
		d.rank = f->ranks[0] ? -1 : f->rank;
		/* a trace of one rank whose number is unknown pairs as diff.c's measurements do */
		if (d.rank < 0 && !f->ranks[0] && f->rank_ix != SIZE_MAX && tr->nranks == 1)
			d.rank = TL_DIFF_RANK_SINGLE;
		snprintf(d.ranks, sizeof d.ranks, "%s", f->ranks);
		const char *st = f->stage != TL_STAGE_NONE ? tlq_stage_name(q, f->stage) : NULL;
		snprintf(d.stage, sizeof d.stage, "%s", st ? st : "");
		snprintf(d.op, sizeof d.op, "%s", f->op);
		d.src_rank = f->src_rank;
		d.dst_rank = f->dst_rank;
		d.transport = f->transport;
		d.pp_stage = f->pp_stage;
		size_t k = 0;
		while (k < s->nf && !same_place(&s->fv[k], &d))
			k++;
		if (k == s->nf)
			VEC_PUSH(s->fv, s->nf, cap, d);
		s->fv[k].ns = sat_add(s->fv[k].ns, f->recoverable_ns);
		s->fv[k].count++;
	}
	free(v);
	s->have_findings = 1;
}

static int64_t
absd(int64_t x)
{
	return x < 0 ? (x == INT64_MIN ? INT64_MAX : -x) : x;
}

static const tl_diff_finding *
either(const tl_diff_fchange *c)
{
	return c->a ? c->a : c->b;
}

static int
cmp_fchange(const void *p, const void *q)
{
	const tl_diff_fchange *x = p, *y = q;
	int64_t dx = absd(x->delta), dy = absd(y->delta);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	int64_t mx = x->a && x->b ? (x->a->ns > x->b->ns ? x->a->ns : x->b->ns) : either(x)->ns;
	int64_t my = y->a && y->b ? (y->a->ns > y->b->ns ? y->a->ns : y->b->ns) : either(y)->ns;
	if (mx != my)
		return mx < my ? 1 : -1;
	const tl_diff_finding *fx = either(x), *fy = either(y);
	if (fx->kind != fy->kind)
		return fx->kind - fy->kind;
	char a[256], b[256];
	return strcmp(tlq_diff_finding_place(fx, a, sizeof a),
	              tlq_diff_finding_place(fy, b, sizeof b));
}

size_t
tlq_diff_findings(const tl_diff_side *a, const tl_diff_side *b, tl_diff_fchange **out)
{
	size_t n = 0;
	tl_diff_fchange *v = xmalloc((a->nf + b->nf + 1) * sizeof *v);
	for (size_t i = 0; i < a->nf; i++) {
		const tl_diff_finding *m = NULL;
		for (size_t k = 0; k < b->nf && m == NULL; k++)
			if (same_place(&a->fv[i], &b->fv[k]))
				m = &b->fv[k];
		v[n++] = (tl_diff_fchange){&a->fv[i], m, sat_sub(m ? m->ns : 0, a->fv[i].ns)};
	}
	for (size_t k = 0; k < b->nf; k++) {
		int seen = 0;
		for (size_t i = 0; i < a->nf && !seen; i++)
			seen = same_place(&a->fv[i], &b->fv[k]);
		if (!seen)
			v[n++] = (tl_diff_fchange){NULL, &b->fv[k], b->fv[k].ns};
	}
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_fchange);
	*out = v;
	return n;
}

char *
tlq_diff_finding_place(const tl_diff_finding *f, char *buf, size_t len)
{
	char who[96] = "";
	if (f->rank == TL_DIFF_RANK_SINGLE)
		snprintf(who, sizeof who, "rank ?");
	else if (f->rank >= 0)
		snprintf(who, sizeof who, "rank %d", f->rank);
	else if (f->ranks[0])
		snprintf(who, sizeof who, "ranks %s", f->ranks);
	if (f->kind == TL_FIND_SLOW_LINK)
		snprintf(buf, len, "link %d -> %d (%s)", f->src_rank, f->dst_rank,
		         f->transport ? f->transport : "");
	else if (f->kind == TL_FIND_PIPELINE_BUBBLE)
		snprintf(buf, len, "PP stage %d", f->pp_stage);
	else if (f->op[0])
		snprintf(buf, len, "%s%s%s", f->op, who[0] ? " on " : "", who);
	else if (f->transport && !who[0])
		snprintf(buf, len, "%s", f->transport);
	else
		snprintf(buf, len, "%s%s%s", who[0] ? who : "all ranks", f->stage[0] ? ", " : "",
		         f->stage);
	return buf;
}
