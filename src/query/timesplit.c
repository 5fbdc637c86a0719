/* cluster_time_summary's split of each rank's step beyond the overlap breakdown: step length,
 * memory, memory not overlapped, and communication split into transmitting and waiting. */
#include "config.h"
#include "analysis/timesplit.h"
#include "query/session.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Whether every rank of the group is loaded. The group's ranks: those that ran its ops here and
 * the peers its ops' transfers went to or came from (the sub-tasks name them; a profile of two
 * ranks of an eight-rank group thus says the group is incomplete). */
static int
group_complete(const tl_trace *tr, const tl_comm_result *cm, const char *group)
{
	if (cm == NULL)
		return 1;
	for (size_t i = 0; i < cm->nops; i++) {
		const tl_comm_row *o = &cm->ops[i];
		if (o->group != group && strcmp(o->group, group) != 0)
			continue;
		for (size_t k = o->link0; k < o->link0 + o->nlink; k++) {
			int64_t rk[2] = {cm->links[k].src, cm->links[k].dst};
			for (int s = 0; s < 2; s++) {
				if (rk[s] < 0)
					continue;
				int found = 0;
				for (size_t r = 0; r < tr->nranks && !found; r++)
					found = tr->ranks[r]->rank == rk[s];
				if (!found)
					return 0;
			}
		}
	}
	return 1;
}

typedef struct steps_job {
	tl_rank_steps *v;
	const tl_coll_result *cr;
	const tl_comm_result *cm;
} steps_job;

static void
steps_rank(const tl_query *q, size_t ri, void *arg)
{
	steps_job *j = arg;
	tl_rank_steps *x = &j->v[ri];
	x->n = tlq_step_overlaps(q->tr->ranks[ri], &x->so);
	x->sp = xcalloc(x->n ? x->n : 1, sizeof *x->sp);
	tlq_step_split(q, ri, x->so, x->n, j->cr, j->cm, x->sp);
}

tl_rank_steps *
tlq_rank_steps(const tl_query *q, const tl_coll_result *cr, const tl_comm_result *cm)
{
	size_t n = q->tr->nranks;
	steps_job j = {xcalloc(n ? n : 1, sizeof *j.v), cr, cm};
	tlq_per_rank(q, steps_rank, &j); /* each job writes its rank's row only */
	return j.v;
}

void
tlq_rank_steps_free(const tl_query *q, tl_rank_steps *v)
{
	for (size_t i = 0; v != NULL && i < q->tr->nranks; i++) {
		free(v[i].so);
		free(v[i].sp);
	}
	free(v);
}

void
tlq_step_split(const tl_query *q, size_t ri, const tl_step_overlap *so, size_t n,
               const tl_coll_result *cr, const tl_comm_result *cm, tl_step_split *out)
{
	const tl_trace *tr = tlq_trace(q);
	const tl_rank *r = tr->ranks[ri];
	memset(out, 0, n * sizeof *out);
	for (size_t k = 0; k < n; k++) {
		const tl_overlap *o = &so[k].o;
		if (r->nsteps > 0)
			out[k].step_ns = so[k].step_end - so[k].step_start;
		else
			out[k].step_ns = o->computing + o->comm_not_overlapped + o->free;
		if (r->nsteps > 0)
			timesplit_memory(r, (uint16_t)k, so[k].step_start, so[k].step_end,
			                 &out[k].memory_ns, &out[k].memory_not_overlapped_ns);
		else
			timesplit_memory(r, TL_NO_STEP, INT64_MIN, INT64_MAX, &out[k].memory_ns,
			                 &out[k].memory_not_overlapped_ns);
	}
	if (cr == NULL)
		return;
	/* each group decided once: collectives of a few groups take turns, and a decision reads
	 * every op's links */
	struct {
		const char *group;
		int ok;
	} *seen = NULL, x;
	size_t nseen = 0, cap = 0;
	for (size_t i = 0; i < cr->n; i++) {
		const tl_coll *c = &cr->v[i];
		int64_t tx, wt;
		if (timesplit_collective(c, r->rank, &tx, &wt) != 0)
			continue;
		size_t g = 0;
		while (g < nseen && seen[g].group != c->group &&
		       strcmp(seen[g].group, c->group) != 0)
			g++;
		if (g == nseen) {
			x.group = c->group;
			x.ok = group_complete(tr, cm, c->group);
			VEC_PUSH(seen, nseen, cap, x);
		}
		if (!seen[g].ok)
			continue;
		for (size_t k = 0; k < n; k++)
			if (so[k].step_id == c->step) {
				out[k].transmit_ns = sat_add(out[k].transmit_ns, tx);
				out[k].wait_ns = sat_add(out[k].wait_ns, wt);
				break;
			}
	}
	free(seen);
}
