/* Module statistics (msprof-analyze module_statistic) per rank: the Module-domain MSTX ranges,
 * the operators and kernels inside each, forward and synthesized backward. Only ranks whose
 * loaded MSTX lanes include the domain "Module" read anything from their files, so a profile
 * without module ranges costs a look at its lane labels. */
#include "config.h"
#include "load/load.h"
#include "query/query.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE_DOMAIN "Module" /* the MSTX domain module_statistic reads */

int
tlq_rank_has_modules(const tl_rank *r)
{
	for (size_t t = 0; t < r->ntracks; t++)
		if (r->tracks[t]->kind == TL_LANE_MSTX &&
		    strcmp(strpool_get(r->pool, r->tracks[t]->label), MODULE_DOMAIN) == 0)
			return 1;
	return 0;
}

int
tlq_has_modules(const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	for (size_t i = 0; i < tr->nranks; i++)
		if (tlq_rank_has_modules(tr->ranks[i]))
			return 1;
	return 0;
}

typedef struct mod_job {
	const tl_trace *tr;
	tl_module_stats *st;
} mod_job;

static void
mod_rank(void *arg, size_t i)
{
	mod_job *j = arg;
	const tl_rank *r = j->tr->ranks[i];
	if (!tlq_rank_has_modules(r)) {
		memset(&j->st[i], 0, sizeof j->st[i]);
		return;
	}
	tl_module_data d;
	load_modules(r, &d);
	modules_compute(&d, &j->st[i]);
	module_data_free(&d);
}

void
tlq_modules(const tl_query *q, tl_modules_result *out)
{
	const tl_trace *tr = tlq_trace(q);
	memset(out, 0, sizeof *out);
	out->nranks = tr->nranks;
	out->stats = xcalloc(tr->nranks ? tr->nranks : 1, sizeof *out->stats);
	for (size_t i = 0; i < tr->nranks; i++)
		out->with_ranges += tlq_rank_has_modules(tr->ranks[i]);
	if (out->with_ranges == 0)
		return;
	mod_job j = {tr, out->stats};
	parallel_for(tr->nranks, 0, mod_rank, &j); /* ranks read in parallel */
	for (size_t i = 0; i < tr->nranks; i++)
		out->nrows += out->stats[i].n;
}

void
tlq_modules_free(tl_modules_result *m)
{
	for (size_t i = 0; i < m->nranks; i++)
		if (m->stats[i].pool != NULL || m->stats[i].v != NULL)
			modules_stats_free(&m->stats[i]);
	free(m->stats);
	memset(m, 0, sizeof *m);
}

char *
tlq_module_path(const tl_module_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", r->parent, *r->parent ? "/" : "", r->module);
	return buf;
}
