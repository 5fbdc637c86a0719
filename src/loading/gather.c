/* What one load of a rank gathers besides the model (load.h's tl_gather, filled by the
 * loaders while they read): the launch delays per step and the gaps host_bound attributes
 * (analysis/launch.h), the communication tables typed for the analyses, the counters; and what
 * a command does not keep dropped again. Above the readers and the analyses: it calls both. */
#include "config.h"
#include "analysis/launch.h"
#include "loading/loading.h"
#include "model/comm.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* The bits of load.h are the model's (model/trace.h: TL_RANK_TABLES). */
_Static_assert(TL_TABLE_OPS == 1u << TL_RANK_TABLE_OPS &&
                   TL_TABLE_LAUNCHES == 1u << TL_RANK_TABLE_LAUNCHES &&
                   TL_TABLE_COMM == 1u << TL_RANK_TABLE_COMM,
               "TL_TABLE_* bits are the rank's tables'");

void
load_drop_tables(tl_rank *r, unsigned keep)
{
	rank_drop_tables(r, keep);
}

typedef struct gap_keep {
	tl_rank *r;
	size_t cap;
} gap_keep;

static void
keep_step(void *ctx, int64_t step)
{
	gap_keep *k = ctx;
	tl_launch_gap x = {step, 0, 0, 0};
	VEC_PUSH(k->r->launch_gaps, k->r->nlaunch_gaps, k->cap, x);
}

static void
keep_gap(void *ctx, int64_t s, int64_t e, int64_t host)
{
	gap_keep *k = ctx;
	if (host <= 0 || k->r->nlaunch_gaps == 0)
		return;
	tl_launch_gap x = {k->r->launch_gaps[k->r->nlaunch_gaps - 1].step, s, e, host};
	VEC_PUSH(k->r->launch_gaps, k->r->nlaunch_gaps, k->cap, x);
}

void
load_gather_begin(tl_rank *r, tl_gather *g, unsigned tables)
{
	memset(g, 0, sizeof *g);
	g->tables = tables;
	if (tables & TL_TABLE_OPS) {
		r->ops = xmalloc(sizeof *r->ops);
		op_data_init(r->ops);
		r->ops->nostart = !(tables & TL_TABLE_OP_STARTS);
		r->ops->totals = r->ops->nostart && (tables & TL_TABLE_OP_TOTALS);
	}
}

void
load_gather_end(tl_rank *r, tl_gather *g)
{
	if (g->failed || !r->loaded) {
		rank_ops_free(r);
		free(g->launches);
		g->launches = NULL;
		return;
	}
	if (r->ops != NULL)
		op_data_finish(r->ops);
	if (g->tables & TL_TABLE_LAUNCHES) {
		/* sources whose loader does not gather launches while reading give them now, from
		 * the finished rank (a JSON trace's flows end on its sorted device lanes) */
		for (size_t i = 0; i < r->nsources; i++) {
			const tl_loader *ld = loader_for(r->sources[i]->kind);
			if (ld != NULL && ld->launches != NULL &&
			    !(ld->gathers & TL_TABLE_LAUNCHES))
				ld->launches(r->sources[i], r, &g->launches, &g->nlaunches,
				             &g->lcap);
		}
		r->nlaunch_steps = launch_steps(r, g->launches, g->nlaunches, &r->launch_steps);
		/* each step's idle time and the gaps host_bound attributes, in one pass */
		gap_keep k = {r, 0};
		launch_steps_idle_gaps(r, g->launches, g->nlaunches, r->launch_steps,
		                       r->nlaunch_steps, keep_step, keep_gap, &k);
		r->have_launch_steps = 1;
		/* not kept for the critical path (16 bytes a task): it reads the launches of the
		 * few ranks whose gaps it crosses; but where none came while the sources were read
		 * (a JSON trace's), reading them again is finding them again on the lanes: kept,
		 * by device start now (launch_steps_idle_gaps), unless the clock is on already */
		int again = !r->clock.on && g->launches != NULL;
		for (size_t i = 0; again && i < r->nsources; i++) {
			const tl_loader *ld = loader_for(r->sources[i]->kind);
			again = ld == NULL || !(ld->gathers & TL_TABLE_LAUNCHES);
		}
		if (again) {
			free(r->launch_dev);
			r->launch_dev = g->launches;
			r->nlaunch_dev = g->nlaunches;
			g->launches = NULL;
		}
	}
	free(g->launches);
	g->launches = NULL;
	if (g->tables & TL_TABLE_COMM) {
		tl_comm_data *d = xmalloc(sizeof *d);
		load_comm(r, d);
		/* the op type the communication analysis gives an op whose profile says none (the
		 * type its name says) is in the table's pool already: the queries share the table
		 * and add nothing to it */
		for (size_t i = 0; i < d->nops; i++) {
			const char *ty = strpool_get(d->pool, d->ops[i].type);
			if (*ty == '\0' || strcmp(ty, "N/A") == 0) {
				char t[64];
				coll_op_type(strpool_get(d->pool, d->ops[i].name), t, sizeof t);
				strpool_intern_cstr(d->pool, t);
			}
		}
		r->comm = d;
	}
	if (g->tables & TL_TABLE_COUNTERS)
		load_counters(r);
}
