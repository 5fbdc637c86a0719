/* The viewer's rank x rank communication matrix (tlq_comm_matrix) against answers tl did not
 * compute: the "-total" rows of torch_npu's CommAnalyzerMatrix (analysis.db) of the level2
 * sample, summed over op types per group, step and pair, with the ops its summary rows name;
 * and the generator's construction (which rank each plane of a collective sends to, how many
 * bytes, for how long). */
#include "config.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static void
matrix_of(tl_trace *tr, tl_comm_result *c, tl_comm_matrix *m)
{
	tl_query *q = tlq_open(tr, NULL);
	tlq_comm(q, c);
	tlq_close(q);
	tlq_comm_matrix(c, m);
}

/* The plane of step, or SIZE_MAX (one group in these profiles: checked by the callers). */
static size_t
plane_of(const tl_comm_matrix *m, int64_t step)
{
	for (size_t i = 0; i < m->nplanes; i++)
		if (m->planes[i].step == step)
			return i;
	return SIZE_MAX;
}

/* The structure every matrix keeps: planes by (group, step), cells of a plane by (src, dst)
 * and found by tlq_comm_matrix_cell, every op of a cell one with a transfer of that pair in
 * that group and step, the ranks of a plane its cells' ends. */
static int
well_formed(const tl_comm_result *c, const tl_comm_matrix *m)
{
	size_t cells = 0;
	for (size_t p = 0; p < m->nplanes; p++) {
		const tl_mx_plane *pl = &m->planes[p];
		if (p > 0) {
			int g = strcmp(m->planes[p - 1].group, pl->group);
			if (g > 0 || (g == 0 && m->planes[p - 1].step >= pl->step))
				return 0;
		}
		if (pl->cell0 != cells || pl->ncell == 0)
			return 0;
		cells += pl->ncell;
		for (size_t i = 0; i < pl->ncell; i++) {
			const tl_mx_cell *x = &m->cells[pl->cell0 + i];
			if (tlq_comm_matrix_cell(m, p, x->src, x->dst) != x)
				return 0;
			if (i > 0 &&
			    (x[-1].src > x->src || (x[-1].src == x->src && x[-1].dst >= x->dst)))
				return 0;
			int ends = 0;
			for (size_t k = 0; k < pl->nranks; k++)
				ends += (m->ranks[pl->rank0 + k] == x->src) +
				        (m->ranks[pl->rank0 + k] == x->dst);
			if (ends < 2 - (x->src == x->dst))
				return 0;
			uint64_t size = 0;
			for (size_t k = 0; k < x->nop; k++) {
				const tl_comm_row *o = &c->ops[m->ops[x->op0 + k]];
				if (strcmp(o->group, pl->group) != 0 || o->step != pl->step)
					return 0;
				for (size_t l = o->link0; l < o->link0 + o->nlink; l++)
					if (c->links[l].src == x->src && c->links[l].dst == x->dst)
						size += c->links[l].size;
			}
			if (size != x->size)
				return 0;
		}
	}
	return cells == m->ncells;
}

static void
test_generated(void)
{
	char *dir = test_tmpdir("matrix");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 2;
	o.tasks_per_rank = 6000;
	o.slow_rank = 2;
	o.seed = 21;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate 4 ranks x 2 steps");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(out, &lo, &tr) == 0, "load it");
	tl_comm_result c;
	tl_comm_matrix m;
	matrix_of(&tr, &c, &m);
	CHECK(well_formed(&c, &m), "generated: planes, cells and their ops are well formed");
	CHECK(m.nplanes == (size_t)o.nsteps, "generated: one plane per step of the one group (%zu)",
	      m.nplanes);
	/* the truth per (step, src, dst): bytes, time and the collectives sending that way */
	size_t R = (size_t)o.nranks, S = (size_t)o.nsteps + 1;
	uint64_t *size = xcalloc(S * R * R, sizeof *size);
	int64_t *time = xcalloc(S * R * R, sizeof *time);
	size_t *nop = xcalloc(S * R * R, sizeof *nop);
	for (size_t i = 0; i < truth.ncomm; i++) {
		const gen_comm_truth *t = &truth.comm[i];
		for (int p = 0; p < t->planes; p++) {
			size_t dst = ((size_t)t->rank + (size_t)p + 1) % R;
			size_t k = ((size_t)t->step * R + (size_t)t->rank) * R + dst;
			size[k] += (uint64_t)t->plane_bytes;
			time[k] += t->transit_ns - 1200 * p;
		}
		for (size_t dst = 0; dst < R; dst++) {
			int sends = 0;
			for (int p = 0; p < t->planes; p++)
				sends |= ((size_t)t->rank + (size_t)p + 1) % R == dst;
			nop[((size_t)t->step * R + (size_t)t->rank) * R + dst] += (size_t)sends;
		}
	}
	size_t want = 0, good = 0;
	for (size_t st = 0; st < S; st++)
		for (size_t s = 0; s < R; s++)
			for (size_t d = 0; d < R; d++) {
				size_t k = (st * R + s) * R + d;
				if (nop[k] == 0)
					continue;
				want++;
				size_t p = plane_of(&m, (int64_t)st);
				const tl_mx_cell *x =
				    p == SIZE_MAX
				        ? NULL
				        : tlq_comm_matrix_cell(&m, p, (int64_t)s, (int64_t)d);
				int ok = x && x->size == size[k] && x->time == time[k] &&
				         x->nop == nop[k] && (s != d || x->xport == TL_XPORT_LOCAL);
				if (!ok)
					printf("# step %zu %zu->%zu: tl %llu B %lld ns %zu ops, "
					       "want %llu %lld "
					       "%zu\n",
					       st, s, d, x ? (unsigned long long)x->size : 0ULL,
					       x ? (long long)x->time : 0LL, x ? x->nop : 0,
					       (unsigned long long)size[k], (long long)time[k],
					       nop[k]);
				good += ok;
			}
	CHECK(want > 0 && good == want && m.ncells == want,
	      "generated: every cell's bytes, time and op count are what the generator wrote (%zu "
	      "of %zu, %zu cells)",
	      good, want, m.ncells);
	free(size);
	free(time);
	free(nop);
	tlq_comm_matrix_free(&m);
	tlq_comm_free(&c);
	trace_free(&tr);
	gen_truth_free(&truth);
	free(out);
	test_rmtree(dir);
}

static void
test_level2(void)
{
	char p[4200];
	const char *samples = test_samples_dir();
	snprintf(p, sizeof p, "%s/ascend-db/level2", samples);
	struct stat sb;
	if (stat(p, &sb) != 0) {
		SKIP("samples absent: %s (the matrix against CommAnalyzerMatrix not checked)", p);
		return;
	}
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(p, &lo, &tr) == 0, "load level2");
	tl_comm_result c;
	tl_comm_matrix m;
	matrix_of(&tr, &c, &m);
	CHECK(well_formed(&c, &m), "level2: planes, cells and their ops are well formed");
	size_t rows = 0, good = 0, named = 0, mine = 0;
	for (int rank = 0; rank < 2; rank++) {
		snprintf(p, sizeof p,
		         "%s/ascend-db/level2/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db",
		         samples, rank);
		sqlite3 *db = test_sql_open(p);
		if (db == NULL) {
			CHECK(0, "open %s", p);
			continue;
		}
		sqlite3_stmt *st, *ops;
		/* the -total rows per group, step and pair, over the op types */
		sqlite3_prepare_v2(
		    db,
		    "SELECT group_name, step, src_rank, dst_rank, min(transport_type), "
		    "count(DISTINCT transport_type), sum(transit_size), sum(transit_time) FROM "
		    "CommAnalyzerMatrix WHERE hccl_op_name LIKE '%-total' GROUP BY 1, 2, 3, 4",
		    -1, &st, NULL);
		/* the ops its summary rows name for the pair (all of them when it has four ops or
		 * fewer: top1, middle and bottom1-3 then cover every one) */
		sqlite3_prepare_v2(
		    db,
		    "SELECT DISTINCT op_name FROM CommAnalyzerMatrix WHERE group_name = "
		    "?1 AND step = ?2 AND src_rank = ?3 AND dst_rank = ?4 AND "
		    "hccl_op_name NOT LIKE '%-total'",
		    -1, &ops, NULL);
		while (sqlite3_step(st) == SQLITE_ROW) {
			rows++;
			const char *step = (const char *)sqlite3_column_text(st, 1);
			int64_t stepid =
			    strncmp(step, "step", 4) == 0 ? strtoll(step + 4, NULL, 10) : -1;
			int64_t src = strtoll((const char *)sqlite3_column_text(st, 2), NULL, 10);
			int64_t dst = strtoll((const char *)sqlite3_column_text(st, 3), NULL, 10);
			size_t pl = plane_of(&m, stepid);
			const tl_mx_cell *x =
			    pl == SIZE_MAX ? NULL : tlq_comm_matrix_cell(&m, pl, src, dst);
			double mb = sqlite3_column_double(st, 6), ms = sqlite3_column_double(st, 7);
			int ok = x != NULL && sqlite3_column_int(st, 5) == 1 &&
			         strcmp(tl_xport_name[x->xport],
			                (const char *)sqlite3_column_text(st, 4)) == 0 &&
			         fabs((double)x->size - mb * 1e6) < 0.5 &&
			         fabs((double)x->time - ms * 1e6) <= 1000 &&
			         fabs(x->gbps - mb / ms) <= 1e-4 * (mb / ms);
			if (!ok)
				printf("# rank %d %s %lld->%lld: tl %s %llu B %lld ns %.4f, db %s "
				       "%.6f MB "
				       "%.9f ms\n",
				       rank, step, (long long)src, (long long)dst,
				       x ? tl_xport_name[x->xport] : "-",
				       x ? (unsigned long long)x->size : 0ULL,
				       x ? (long long)x->time : 0LL, x ? x->gbps : 0.0,
				       sqlite3_column_text(st, 4), mb, ms);
			good += ok;
			if (x == NULL)
				continue;
			/* its ops against the ones the summary rows name */
			for (int b = 0; b < 4; b++)
				sqlite3_bind_value(ops, b + 1, sqlite3_column_value(st, b));
			size_t n = 0, found = 0;
			while (sqlite3_step(ops) == SQLITE_ROW) {
				n++;
				const char *name = (const char *)sqlite3_column_text(ops, 0);
				for (size_t k = 0; k < x->nop; k++)
					found +=
					    strcmp(c.ops[m.ops[x->op0 + k]].op_name, name) == 0;
			}
			sqlite3_reset(ops);
			named += n > 0 && found == n && (x->nop > 4 || x->nop == n);
		}
		sqlite3_finalize(st);
		sqlite3_finalize(ops);
		sqlite3_close(db);
	}
	for (size_t i = 0; i < m.ncells; i++)
		mine += m.cells[i].src == 0 || m.cells[i].src == 1;
	CHECK(rows == 16 && good == rows && mine == rows,
	      "level2: every cell is the sum of CommAnalyzerMatrix's -total rows of its pair: "
	      "transport, bytes, time to 1 us, bandwidth (%zu of %zu rows, %zu cells)",
	      good, rows, mine);
	CHECK(named == rows,
	      "level2: each cell's ops are the ops its summary rows name (%zu of %zu)", named,
	      rows);
	tlq_comm_matrix_free(&m);
	tlq_comm_free(&c);
	trace_free(&tr);
}

int
main(void)
{
	msg_set_quiet(1);
	test_generated();
	test_level2();
	return test_done();
}
