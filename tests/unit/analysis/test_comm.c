/* The communication analysis against answers tl did not compute: torch_npu's own analysis.db
 * (CommAnalyzerTime, CommAnalyzerBandwidth, CommAnalyzerMatrix) of the real level2 samples,
 * the generator's construction, and hand-built sub-task lists for the rule's corners. */
#include "config.h"

#include <cJSON.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/comm.h"
#include "gen/gen.h"
#include "model/comm.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

#define US 1000

/* The queries take a session: these tests open one per call over the trace they loaded. */
static void
comm_of(tl_trace *tr, tl_comm_result *c)
{
	tl_query *q = tlq_open(tr, NULL);
	tlq_comm(q, c);
	tlq_close(q);
}

static void
coll_of(tl_trace *tr, tl_coll_result *c)
{
	tl_query *q = tlq_open(tr, NULL);
	tlq_collectives(q, c);
	tlq_close(q);
}

static void
split_of(tl_trace *tr, size_t ri, const tl_step_overlap *so, size_t n, const tl_coll_result *cr,
         const tl_comm_result *cm, tl_step_split *out)
{
	tl_query *q = tlq_open(tr, NULL);
	tlq_step_split(q, ri, so, n, cr, cm, out);
	tlq_close(q);
}

static tl_comm_task
task(int64_t plane, uint8_t kind, int64_t start, int64_t end, int64_t src, int64_t dst,
     uint64_t size)
{
	tl_comm_task t = {.start = start,
	                  .end = end,
	                  .plane = plane,
	                  .kind = kind,
	                  .src = src,
	                  .dst = dst,
	                  .size = size};
	t.xport = dst < 0 || dst == src ? TL_XPORT_LOCAL : TL_XPORT_HCCS;
	return t;
}

/* The rule on hand-built ops: which plane, what counts as sync, ops without transfers. */
static void
test_rule(void)
{
	tl_comm_op op = {.start = 0, .end = 1000 * US};
	/* plane 0: local copies only; plane 1: wait 100, transfer 200, wait 50, transfer 300;
	 * plane 2 (also remote) must not be counted */
	tl_comm_task v[] = {
	    task(0, TL_CTASK_TRANSFER, 0, 10 * US, 0, 0, 64),
	    task(1, TL_CTASK_WAIT, 5 * US, 105 * US, 0, 1, 0),
	    task(1, TL_CTASK_OTHER, 106 * US, 107 * US, 0, 1, 0),
	    task(1, TL_CTASK_TRANSFER, 110 * US, 310 * US, 0, 1, 1000),
	    task(1, TL_CTASK_WAIT, 320 * US, 370 * US, 0, 1, 0),
	    task(1, TL_CTASK_TRANSFER, 380 * US, 680 * US, 0, 1, 1000),
	    task(2, TL_CTASK_WAIT, 5 * US, 600 * US, 0, 2, 0),
	    task(2, TL_CTASK_TRANSFER, 600 * US, 990 * US, 0, 2, 2000),
	};
	tl_comm_time t;
	comm_time(&op, v, sizeof v / sizeof *v, &t);
	CHECK_EQ_I64(t.plane, 1, "rule: the lowest plane with a transfer to another rank");
	CHECK_EQ_I64(t.elapse, 1000 * US, "rule: elapse is the op's duration");
	CHECK_EQ_I64(t.transit, 500 * US, "rule: transit sums the plane's transfers");
	CHECK_EQ_I64(t.wait, 150 * US, "rule: wait sums the plane's Notify_Waits");
	CHECK_EQ_I64(t.sync, 100 * US, "rule: sync is the wait before the first transfer");
	CHECK_EQ_I64(t.idle, 350 * US, "rule: idle = elapse - transit - wait");
	CHECK(fabs(t.sync_ratio - 100.0 / 600.0) < 1e-12, "rule: sync ratio sync/(transit+sync)");
	CHECK(fabs(t.wait_ratio - 150.0 / 650.0) < 1e-12, "rule: wait ratio wait/(transit+wait)");

	/* only local transfers: measured on the lowest plane that has any */
	comm_time(&op, v, 1, &t);
	CHECK(t.plane == 0 && t.transit == 10 * US && t.idle == 990 * US,
	      "rule: an op with local transfers only is measured on them");
	/* no transfer at all (a capture below Level1) */
	comm_time(&op, v + 1, 1, &t);
	CHECK(t.plane == -1 && t.transit == 0 && t.wait == 0 && t.idle == t.elapse,
	      "rule: an op without transfers is unmeasured (plane -1)");

	/* transfers and waits of 4.6e18 ns each (times stay within +-2^62, but their sums do
	 * not fit an int64: a fuzzer finding, signed overflow): the sums hold at the end */
	const int64_t big = INT64_C(4611686018427387000);
	tl_comm_op hop = {.start = -big, .end = big};
	tl_comm_task h[] = {
	    task(1, TL_CTASK_WAIT, -big, big, 0, 1, 0),
	    task(1, TL_CTASK_WAIT, -big, big, 0, 1, 0),
	    task(1, TL_CTASK_TRANSFER, -big, big, 0, 1, 8),
	    task(1, TL_CTASK_TRANSFER, -big, big, 0, 1, 8),
	};
	comm_time(&hop, h, sizeof h / sizeof *h, &t);
	CHECK(t.transit == INT64_MAX && t.wait == INT64_MAX && t.elapse == 2 * big &&
	          t.idle == INT64_MIN && t.wait_ratio > 0.49 && t.wait_ratio < 0.51,
	      "rule: sums past the int64 range saturate instead of wrapping (transit %" PRId64
	      ", wait %" PRId64 ", idle %" PRId64 ")",
	      t.transit, t.wait, t.idle);

	tl_comm_bw *bw = NULL;
	size_t nbw = 0, bcap = 0;
	CHECK_EQ_I64(comm_bandwidth(v, sizeof v / sizeof *v, &bw, &nbw, &bcap), 2,
	             "bandwidth: HCCS and the SDMA sum; local copies are left out");
	CHECK(nbw == 2 && bw[1].xport == TL_XPORT_SDMA && bw[1].size == 4000 &&
	          bw[1].time == 890 * US && bw[1].npk == 0 && bw[0].size == 4000 &&
	          bw[0].time == 890 * US && bw[0].npk == 2 && bw[0].pk[0].size == 1000 &&
	          bw[0].pk[0].count == 2 && bw[0].pk[0].time == 500 * US &&
	          bw[0].pk[1].size == 2000,
	      "bandwidth: all planes, packets by size");
	comm_bw_free(bw, nbw);
	free(bw);
	char ty[32];
	comm_matrix_type("hcom_allReduce_", ty, sizeof ty);
	CHECK_STR(ty, "allreduce", "matrix summary: the op type as msprof names its rows");
	tl_comm_link lk[4] = {{.gbps = 2}, {.gbps = 9}, {.gbps = 5}, {.gbps = 1}};
	const tl_comm_link *lp[4] = {&lk[0], &lk[1], &lk[2], &lk[3]};
	size_t pick[TL_MX__PICKS];
	comm_matrix_picks(lp, 4, pick);
	CHECK(pick[TL_MX_TOP1] == 1 && pick[TL_MX_MIDDLE] == 0 && pick[TL_MX_BOTTOM1] == 3 &&
	          pick[TL_MX_BOTTOM2] == 0 && pick[TL_MX_BOTTOM3] == 2,
	      "matrix summary: top1, middle, bottom1-3 by bandwidth");
	comm_matrix_picks(lp, 2, pick);
	CHECK(pick[TL_MX_TOP1] == 1 && pick[TL_MX_MIDDLE] == 0 && pick[TL_MX_BOTTOM1] == 0 &&
	          pick[TL_MX_BOTTOM2] == 1 && pick[TL_MX_BOTTOM3] == SIZE_MAX,
	      "matrix summary: too few ops leave bottom3 out");
	tl_comm_link *l = NULL;
	size_t nl = 0, lcap = 0;
	comm_links(v, sizeof v / sizeof *v, &l, &nl, &lcap);
	CHECK(nl == 3 && l[0].dst == 0 && l[0].xport == TL_XPORT_LOCAL && l[1].dst == 1 &&
	          l[1].size == 2000 && l[1].time == 500 * US && l[2].dst == 2,
	      "matrix: one cell per (src, dst), LOCAL for the rank itself");
	free(l);
}

static const tl_comm_row *
find_op(const tl_comm_result *c, int rank, int64_t start)
{
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].rank == rank && c->ops[i].start == start)
			return &c->ops[i];
	return NULL;
}

/* The generator writes each collective's sub-tasks the way it planned the ranks' arrivals. */
static void
test_generated(void)
{
	char *dir = test_tmpdir("comm");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 2;
	o.tasks_per_rank = 20000;
	o.slow_rank = 2;
	o.seed = 11;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate 4 ranks x 2 steps");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(out, &lo, &tr) == 0, "load the generated profile");
	tl_comm_result c;
	unsigned w0 = msg_warn_count();
	comm_of(&tr, &c);
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "generated: no warnings");
	CHECK_EQ_I64(c.nops, truth.ncomm, "generated: one row per collective and rank");
	size_t bad = 0, found = 0;
	for (size_t i = 0; i < truth.ncomm; i++) {
		const gen_comm_truth *t = &truth.comm[i];
		const tl_comm_row *r = find_op(&c, t->rank, t->start_ns);
		if (r == NULL)
			continue;
		found++;
		if (r->step != t->step || r->t.elapse != t->end_ns - t->start_ns ||
		    r->t.transit != t->transit_ns || r->t.wait != t->wait_ns ||
		    r->t.sync != t->sync_ns || r->t.idle != 0) {
			if (bad++ < 5)
				printf("# rank %d op %u: step %lld/%lld transit %lld/%lld wait "
				       "%lld/%lld "
				       "sync %lld/%lld idle %lld\n",
				       t->rank, t->op, (long long)r->step, (long long)t->step,
				       (long long)r->t.transit, (long long)t->transit_ns,
				       (long long)r->t.wait, (long long)t->wait_ns,
				       (long long)r->t.sync, (long long)t->sync_ns,
				       (long long)r->t.idle);
		}
	}
	CHECK(found == truth.ncomm && truth.ncomm > 0,
	      "generated: every collective found (%zu of %zu)", found, truth.ncomm);
	CHECK(bad == 0,
	      "generated: step, elapse, transit, wait, sync and idle equal the "
	      "construction on all %zu (%zu differ)",
	      truth.ncomm, bad);
	tlq_comm_free(&c);

	/* arrival skew: every rank's arrival, its wait for the last, the last arriver */
	tl_coll_result cr;
	coll_of(&tr, &cr);
	CHECK_EQ_I64(cr.n * (size_t)o.nranks, truth.ncomm,
	             "collectives: one instance per collective, on every rank");
	size_t cbad = 0, cfound = 0, slow_last = 0;
	for (size_t i = 0; i < truth.ncomm; i++) {
		const gen_comm_truth *t = &truth.comm[i];
		for (size_t k = 0; k < cr.n; k++)
			for (size_t m = 0; m < cr.v[k].n; m++) {
				const tl_coll_arrival *a = &cr.v[k].ranks[m];
				if (a->rank != t->rank || a->arrive != t->start_ns)
					continue;
				cfound++;
				cbad += a->wait != t->last_arrival_ns - t->start_ns ||
				        cr.v[k].last_rank != t->last_rank ||
				        cr.v[k].step != t->step || cr.v[k].n != (size_t)o.nranks;
				slow_last += t->rank == 0 && cr.v[k].last_rank == o.slow_rank;
			}
	}
	CHECK(cfound == truth.ncomm && cbad == 0,
	      "collectives: arrival, wait for the last and last arriver equal the construction "
	      "(%zu found of %zu, %zu differ)",
	      cfound, truth.ncomm, cbad);
	CHECK(slow_last * 2 > cr.n, "collectives: the slow rank arrives last in most (%zu of %zu)",
	      slow_last, cr.n);
	for (size_t k = 1; k < cr.n; k++)
		if (strcmp(cr.v[k].group, cr.v[k - 1].group) == 0 &&
		    cr.v[k].index != cr.v[k - 1].index + 1) {
			CHECK(0, "collectives: index counts the group's instances");
			break;
		}

	/* cluster_time_summary's split: every rank of the group is loaded, so each collective
	 * gives transmit = the shortest op (all ranks end together: end - last arrival) and wait =
	 * the rest (last arrival - own arrival) */
	tl_comm_result cm;
	comm_of(&tr, &cm);
	size_t sbad = 0, srows = 0;
	for (size_t ri = 0; ri < tr.nranks; ri++) {
		tl_step_overlap *so;
		size_t n = tlq_step_overlaps(tr.ranks[ri], &so);
		tl_step_split *sp = xcalloc(n, sizeof *sp);
		split_of(&tr, ri, so, n, &cr, &cm, sp);
		for (size_t k = 0; k < n; k++) {
			int64_t tx = 0, wt = 0, len = -1;
			for (size_t i = 0; i < truth.ncomm; i++)
				if (truth.comm[i].rank == tr.ranks[ri]->rank &&
				    truth.comm[i].step == so[k].step_id) {
					tx += truth.comm[i].end_ns - truth.comm[i].last_arrival_ns;
					wt +=
					    truth.comm[i].last_arrival_ns - truth.comm[i].start_ns;
				}
			for (size_t i = 0; i < truth.nsteps; i++)
				if (truth.steps[i].step == so[k].step_id)
					len = truth.steps[i].end_ns - truth.steps[i].start_ns;
			srows++;
			sbad += sp[k].transmit_ns != tx || sp[k].wait_ns != wt ||
			        sp[k].step_ns != len || tx == 0;
		}
		free(sp);
		free(so);
	}
	CHECK(srows == (size_t)o.nranks * (size_t)o.nsteps && sbad == 0,
	      "step split: step length, transmit and wait stages equal the construction on every "
	      "rank and step (%zu rows, %zu differ)",
	      srows, sbad);
	tlq_comm_free(&cm);
	tlq_collectives_free(&cr);
	trace_free(&tr);
	gen_truth_free(&truth);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup %s", dir);
	free(cmd);
	free(out);
	test_rmtree(dir);
}

/* P2P pairs of a generated pipeline-parallel profile against the sends and receives it wrote. */
static void
test_p2p(void)
{
	char *dir = test_tmpdir("p2p");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.pp = 4;
	o.nranks = 4;
	o.nsteps = 1;
	o.tasks_per_rank = 3000;
	o.seed = 5;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate a 4-stage pipeline");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(out, &lo, &tr) == 0, "load the pipeline profile");
	tl_coll_result cr;
	coll_of(&tr, &cr);
	CHECK_EQ_I64(cr.np2p, truth.np2p, "p2p: one pair per transfer the generator wrote");
	size_t ok = 0;
	for (size_t i = 0; i < truth.np2p; i++) {
		const gen_p2p_truth *t = &truth.p2p[i];
		for (size_t k = 0; k < cr.np2p; k++) {
			const tl_p2p_pair *p = &cr.p2p[k];
			if (p->send_start != t->send_start_ns || p->src_rank != t->src_rank)
				continue;
			int64_t rw = t->send_start_ns > t->recv_start_ns
			                 ? t->send_start_ns - t->recv_start_ns
			                 : 0;
			ok += p->dst_rank == t->dst_rank && p->recv_start == t->recv_start_ns &&
			      p->recv_end == t->recv_end_ns && p->send_end == t->send_end_ns &&
			      p->recv_wait == rw && p->step == t->step;
		}
	}
	CHECK(ok == truth.np2p && ok > 0,
	      "p2p: pairs, times and waits equal the generator's (%zu of %zu)", ok, truth.np2p);
	CHECK_EQ_I64(cr.n, 0, "p2p: sends and receives are not collectives");
	tlq_collectives_free(&cr);
	trace_free(&tr);
	gen_truth_free(&truth);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup %s", dir);
	free(cmd);
	free(out);
	test_rmtree(dir);
}

static void
test_op_type(void)
{
	char b[64];
	coll_op_type("hcom_allReduce__865_0_1", b, sizeof b);
	CHECK_STR(b, "hcom_allReduce_", "op type: trailing _N parts dropped");
	coll_op_type("hcom_broadcast_", b, sizeof b);
	CHECK_STR(b, "hcom_broadcast_", "op type: a name without numbers stays");
	coll_op_type("12_3", b, sizeof b);
	CHECK_STR(b, "12", "op type: a name of numbers keeps its first");
	CHECK(coll_p2p_kind("hcom_send__1_2") == 1 && coll_p2p_kind("hcom_receive__1_2") == 2 &&
	          coll_p2p_kind("hcom_batchSendRecv_1") == 3 &&
	          coll_p2p_kind("hcom_allReduce_") == 0,
	      "p2p kinds by name");
}

/* ---- the real samples: torch_npu's analysis.db ------------------------------------------- */

static double maxdev_time; /* ns, over every compared time */

static int
near_ns(int64_t got, double want_ms, double tol_ns)
{
	double d = fabs((double)got - want_ms * 1e6);
	if (d > maxdev_time)
		maxdev_time = d;
	return d <= tol_ns;
}

static const tl_comm_row *
find_named(const tl_comm_result *c, int rank, const char *name)
{
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].rank == rank && strcmp(c->ops[i].op_name, name) == 0)
			return &c->ops[i];
	return NULL;
}

static sqlite3 *
open_oracle(const char *samples, int rank)
{
	char p[4300];
	snprintf(p, sizeof p,
	         "%s/ascend-db/level2/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db", samples,
	         rank);
	return test_sql_open(p);
}

static void
oracle_time(const tl_comm_result *c, sqlite3 *db, int rank)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "SELECT hccl_op_name, elapse_time, transit_time, wait_time, synchronization_time, "
	    "idle_time FROM CommAnalyzerTime",
	    -1, &st, NULL);
	size_t n = 0, ok = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const tl_comm_row *r = find_named(c, rank, name);
		n++;
		if (r == NULL) {
			CHECK(0, "level2 rank %d: op %s found", rank, name);
			continue;
		}
		int good = near_ns(r->t.elapse, sqlite3_column_double(st, 1), 1000) &&
		           near_ns(r->t.transit, sqlite3_column_double(st, 2), 1000) &&
		           near_ns(r->t.wait, sqlite3_column_double(st, 3), 1000) &&
		           near_ns(r->t.sync, sqlite3_column_double(st, 4), 1000) &&
		           near_ns(r->t.idle, sqlite3_column_double(st, 5), 1000);
		CHECK(good,
		      "level2 rank %d %s: elapse, transit, wait, sync, idle equal "
		      "CommAnalyzerTime to 1 us",
		      rank, name);
		ok += good;
	}
	sqlite3_finalize(st);
	size_t mine = 0;
	for (size_t i = 0; i < c->nops; i++)
		mine += c->ops[i].rank == rank;
	CHECK(n > 0 && mine == n, "level2 rank %d: as many ops as CommAnalyzerTime (%zu, %zu)",
	      rank, mine, n);
}

static const tl_comm_bw *
find_bw(const tl_comm_result *c, const tl_comm_row *r, const char *xport)
{
	for (size_t b = r->bw0; b < r->bw0 + r->nbw; b++)
		if (strcmp(tl_xport_name[c->bw[b].xport], xport) == 0)
			return &c->bw[b];
	return NULL;
}

static void
oracle_bandwidth(const tl_comm_result *c, sqlite3 *db, int rank)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "SELECT hccl_op_name, transport_type, transit_size, transit_time, bandwidth, "
	    "package_size, count, total_duration FROM CommAnalyzerBandwidth",
	    -1, &st, NULL);
	size_t rows = 0, good = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *xp = (const char *)sqlite3_column_text(st, 1);
		const tl_comm_row *r = find_named(c, rank, name);
		const tl_comm_bw *b = r ? find_bw(c, r, xp) : NULL;
		double size_mb = sqlite3_column_double(st, 2);
		if (size_mb == 0) { /* a transport the op did not use: tl has no row for it */
			good += b == NULL || b->size == 0;
			continue;
		}
		if (b == NULL) {
			printf("# %s %s: no bandwidth row\n", name, xp);
			continue;
		}
		double pkt_mb = sqlite3_column_double(st, 5);
		const tl_comm_packet *p = NULL;
		for (size_t k = 0; k < b->npk; k++)
			if (fabs((double)b->pk[k].size - pkt_mb * 1e6) < 0.5)
				p = &b->pk[k];
		/* a row without packets (package_size and count 0: the SDMA sum) */
		int nopkt = pkt_mb == 0 && sqlite3_column_int64(st, 6) == 0;
		int ok = fabs((double)b->size - size_mb * 1e6) < 0.5 &&
		         near_ns(b->time, sqlite3_column_double(st, 3), 1000) &&
		         fabs(b->gbps - sqlite3_column_double(st, 4)) < 1e-4 + 1e-6 * b->gbps &&
		         (nopkt ? b->npk == 0
		                : p && p->count == (uint64_t)sqlite3_column_int64(st, 6) &&
		                      near_ns(p->time, sqlite3_column_double(st, 7), 1000));
		if (!ok)
			printf("# %s %s: size %.0f/%.0f time %lld gbps %f/%f pkt %p\n", name, xp,
			       (double)b->size, size_mb * 1e6, (long long)b->time, b->gbps,
			       sqlite3_column_double(st, 4), (const void *)p);
		good += ok;
	}
	sqlite3_finalize(st);
	CHECK(rows > 0 && good == rows,
	      "level2 rank %d: every CommAnalyzerBandwidth row (size, time, GB/s, packet size, "
	      "count, time) equal (%zu of %zu)",
	      rank, good, rows);
}

static const tl_comm_link *
find_link(const tl_comm_result *c, const tl_comm_row *r, int64_t src, int64_t dst)
{
	for (size_t k = r->link0; k < r->link0 + r->nlink; k++)
		if (c->links[k].src == src && c->links[k].dst == dst)
			return &c->links[k];
	return NULL;
}

/* The matrix rows name the op they show (op_name), except the "-total" rows, which sum every
 * op of the type over the step. */
static void
oracle_matrix(const tl_comm_result *c, sqlite3 *db, int rank)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "SELECT hccl_op_name, src_rank, dst_rank, transport_type, transit_size, transit_time, "
	    "op_name FROM CommAnalyzerMatrix",
	    -1, &st, NULL);
	size_t rows = 0, good = 0, totals = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		const char *agg = (const char *)sqlite3_column_text(st, 0);
		int64_t src = strtoll((const char *)sqlite3_column_text(st, 1), NULL, 10);
		int64_t dst = strtoll((const char *)sqlite3_column_text(st, 2), NULL, 10);
		const char *xp = (const char *)sqlite3_column_text(st, 3);
		double size_mb = sqlite3_column_double(st, 4),
		       time_ms = sqlite3_column_double(st, 5);
		uint64_t size = 0;
		int64_t time = 0;
		const char *xport = NULL;
		if (strstr(agg, "total") != NULL) {
			totals++;
			for (size_t i = 0; i < c->nops; i++) {
				const tl_comm_link *l = c->ops[i].rank == rank
				                            ? find_link(c, &c->ops[i], src, dst)
				                            : NULL;
				if (l) {
					size += l->size;
					time += l->time;
					xport = tl_xport_name[l->src == l->dst ? TL_XPORT_LOCAL
					                                       : l->xport];
				}
			}
		} else {
			const tl_comm_row *r =
			    find_named(c, rank, (const char *)sqlite3_column_text(st, 6));
			const tl_comm_link *l = r ? find_link(c, r, src, dst) : NULL;
			if (l == NULL)
				continue;
			size = l->size;
			time = l->time;
			xport = tl_xport_name[l->src == l->dst ? TL_XPORT_LOCAL : l->xport];
		}
		good += xport && strcmp(xport, xp) == 0 &&
		        fabs((double)size - size_mb * 1e6) < 0.5 && near_ns(time, time_ms, 1000);
	}
	sqlite3_finalize(st);
	CHECK(rows > 0 && totals > 0 && good == rows,
	      "level2 rank %d: every CommAnalyzerMatrix row (per op, and the -total sums) equal "
	      "(%zu of %zu)",
	      rank, good, rows);
}

typedef struct edge {
	int64_t t;
	int kind, delta; /* kind 0 memcpy, 1 compute or communication */
} edge;

static int
cmp_edge(const void *a, const void *b)
{
	const edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
}

static void
add_edges(sqlite3 *db, const char *sql, int kind, edge **v, size_t *n, size_t *cap)
{
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		edge a = {sqlite3_column_int64(st, 0), kind, 1};
		edge b = {sqlite3_column_int64(st, 1), kind, -1};
		VEC_PUSH(*v, *n, *cap, a);
		VEC_PUSH(*v, *n, *cap, b);
	}
	sqlite3_finalize(st);
}

/* memory and memory not overlapped from plain SQL over the profile DB, with a counting sweep
 * (not tl's interval unions); transmit and wait stages are 0: two of the group's eight ranks */
static void
check_split_sample(tl_trace *tr, const tl_comm_result *cm, const char *samples)
{
	tl_coll_result cr;
	coll_of(tr, &cr);
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		int rank = tr->ranks[ri]->rank;
		char p[4300];
		snprintf(p, sizeof p,
		         "%s/ascend-db/level2/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
		         "ascend_pytorch_profiler_%d.db",
		         samples, rank, rank);
		sqlite3 *db = test_sql_open(p);
		if (db == NULL) {
			CHECK(0, "open %s", p);
			continue;
		}
		edge *v = NULL;
		size_t n = 0, cap = 0;
		add_edges(
		    db,
		    "SELECT t.startNs, t.endNs FROM TASK t, STEP_TIME s WHERE t.taskType = (SELECT "
		    "id "
		    "FROM STRING_IDS WHERE value = 'MEMCPY_ASYNC') AND t.startNs BETWEEN s.startNs "
		    "AND s.endNs",
		    0, &v, &n, &cap);
		int64_t mem = 0;
		for (size_t i = 0; i < n; i++)
			mem += v[i].delta < 0 ? v[i].t : -v[i].t;
		add_edges(
		    db,
		    "SELECT startNs, endNs FROM TASK WHERE globalTaskId IN (SELECT globalTaskId "
		    "FROM COMPUTE_TASK_INFO) UNION ALL SELECT startNs, endNs FROM COMMUNICATION_OP",
		    1, &v, &n, &cap);
		qsort(v, n, sizeof *v, cmp_edge);
		int cnt[2] = {0, 0};
		int64_t exposed = 0;
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && cnt[0] > 0 && cnt[1] == 0)
				exposed += v[i].t - v[i - 1].t;
			cnt[v[i].kind] += v[i].delta;
		}
		free(v);
		sqlite3_close(db);
		tl_step_overlap *so;
		size_t ns = tlq_step_overlaps(tr->ranks[ri], &so);
		tl_step_split sp;
		if (ns == 1) {
			split_of(tr, ri, so, 1, &cr, cm, &sp);
			CHECK_EQ_I64(sp.memory_ns, mem,
			             "level2: memory_ns is the SQL sum of MEMCPY_ASYNC");
			CHECK_EQ_I64(
			    sp.memory_not_overlapped_ns, exposed,
			    "level2: memory_not_overlapped_ns equals a sweep over the SQL rows");
			CHECK(
			    mem > 0 && sp.transmit_ns == 0 && sp.wait_ns == 0,
			    "level2: no transmit/wait stage split for a group with ranks missing");
			CHECK_EQ_I64(sp.step_ns, so[0].step_end - so[0].step_start,
			             "level2: step_ns is the STEP_TIME length");
		} else {
			CHECK(0, "level2 rank %d: one step", rank);
		}
		free(so);
	}
	tlq_collectives_free(&cr);
}

/* msprof's summary rows (-top1, -middle, -bottom1..3, -total): every one of them, with the op
 * it names */
static void
oracle_matrix_summary(const tl_comm_result *c, sqlite3 *db, int rank)
{
	tl_mx_row *v;
	size_t n = tlq_comm_matrix_summary(c, &v), mine = 0;
	for (size_t i = 0; i < n; i++)
		mine += v[i].rank == rank;
	sqlite3_stmt *st;
	sqlite3_prepare_v2(
	    db,
	    "SELECT hccl_op_name, src_rank, dst_rank, transport_type, transit_size, transit_time, "
	    "coalesce(op_name, '') FROM CommAnalyzerMatrix",
	    -1, &st, NULL);
	size_t rows = 0, good = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		const char *name = (const char *)sqlite3_column_text(st, 0);
		int64_t src = strtoll((const char *)sqlite3_column_text(st, 1), NULL, 10);
		int64_t dst = strtoll((const char *)sqlite3_column_text(st, 2), NULL, 10);
		for (size_t i = 0; i < n; i++) {
			const tl_mx_row *r = &v[i];
			if (r->rank != rank || r->src != src || r->dst != dst ||
			    strcmp(r->name, name) != 0)
				continue;
			good += strcmp(tl_xport_name[r->xport],
			               (const char *)sqlite3_column_text(st, 3)) == 0 &&
			        strcmp(r->op_name, (const char *)sqlite3_column_text(st, 6)) == 0 &&
			        fabs((double)r->size - sqlite3_column_double(st, 4) * 1e6) < 0.5 &&
			        near_ns(r->time, sqlite3_column_double(st, 5), 1000);
		}
	}
	sqlite3_finalize(st);
	free(v);
	CHECK(rows > 0 && good == rows && mine == rows,
	      "level2 rank %d: the matrix summary rows (-top1 .. -total) are CommAnalyzerMatrix's, "
	      "with the ops they name (%zu of %zu, %zu made)",
	      rank, good, rows, mine);
}

static void
test_samples(void)
{
	const char *samples = test_samples_dir();
	char p[4200];
	snprintf(p, sizeof p, "%s/ascend-db/level2", samples);
	struct stat sb;
	if (stat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
		SKIP("samples absent: %s (communication against analysis.db not checked)", p);
		return;
	}
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(p, &lo, &tr) == 0, "load the level2 sample");
	tl_comm_result c;
	comm_of(&tr, &c);
	for (int rank = 0; rank < 2; rank++) {
		sqlite3 *db = open_oracle(samples, rank);
		if (db == NULL) {
			CHECK(0, "open analysis.db of rank %d", rank);
			continue;
		}
		oracle_time(&c, db, rank);
		oracle_bandwidth(&c, db, rank);
		oracle_matrix(&c, db, rank);
		oracle_matrix_summary(&c, db, rank);
		sqlite3_close(db);
	}
	check_split_sample(&tr, &c, samples);
	printf("# level2: largest deviation from analysis.db: %.3f ns\n", maxdev_time);
	CHECK(maxdev_time < 1000, "level2: every time within 1 us (max %.3f ns)", maxdev_time);
	tlq_comm_free(&c);
	trace_free(&tr);

	/* level0 records no sub-task detail (taskType N/A): ops are there, unmeasured */
	snprintf(p, sizeof p, "%s/ascend-db/level0", samples);
	if (load_trace(p, &lo, &tr) == 0) {
		comm_of(&tr, &c);
		size_t unmeasured = 0;
		for (size_t i = 0; i < c.nops; i++)
			unmeasured += c.ops[i].t.plane < 0;
		CHECK(c.nops == 8 && unmeasured == c.nops && c.nbw == 0,
		      "level0: 8 ops, none with a time breakdown or bandwidth (%zu, %zu)", c.nops,
		      unmeasured);
		tlq_comm_free(&c);
		trace_free(&tr);
	}
}

/* trace_view.json: the HCCL Group and Plane lanes against the same capture's communication.json
 * (msprof's own per-op time and bandwidth, ms and MB) */
static void
test_text_sample(void)
{
	const char *samples = test_samples_dir();
	char p[4300];
	snprintf(p, sizeof p, "%s/ascend-text/level1", samples);
	struct stat sb;
	if (stat(p, &sb) != 0) {
		SKIP("samples absent: %s (trace_view.json communication not checked)", p);
		return;
	}
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(p, &lo, &tr) == 0, "load the text-export sample");
	tl_comm_result c;
	comm_of(&tr, &c);
	double dev = 0;
	for (int rank = 0; rank < 2; rank++) {
		snprintf(p, sizeof p,
		         "%s/ascend-text/level1/rank%d_ascend_pt/ASCEND_PROFILER_OUTPUT/"
		         "communication.json",
		         samples, rank);
		FILE *f = fopen(p, "rb");
		char *text = NULL;
		size_t len = 0;
		if (f != NULL) {
			text = xmalloc(1 << 22);
			len = fread(text, 1, (1 << 22) - 1, f);
			text[len] = '\0';
			fclose(f);
		}
		cJSON *j = text ? cJSON_Parse(text) : NULL;
		free(text);
		if (j == NULL) {
			CHECK(0, "read %s", p);
			continue;
		}
		size_t ops = 0, good = 0, bw = 0, bwgood = 0;
		const cJSON *step, *op, *x;
		cJSON_ArrayForEach(step, j)
		{
			cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(step, "collective"))
			{
				char name[160];
				snprintf(name, sizeof name, "%s", op->string);
				char *at = strchr(name, '@');
				if (at == NULL)
					continue; /* "Total Op Info" */
				*at = '\0';
				ops++;
				const tl_comm_row *r = find_named(&c, rank, name);
				const cJSON *t =
				    cJSON_GetObjectItemCaseSensitive(op, "Communication Time Info");
				static const char *const k[] = {
				    "Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
				    "Synchronization Time(ms)", "Idle Time(ms)"};
				int ok = r != NULL;
				for (int i = 0; ok && i < 5; i++) {
					int64_t v[5] = {r->t.elapse, r->t.transit, r->t.wait,
					                r->t.sync, r->t.idle};
					double want = cJSON_GetNumberValue(
					    cJSON_GetObjectItemCaseSensitive(t, k[i]));
					double d = fabs((double)v[i] - want * 1e6);
					dev = d > dev ? d : dev;
					ok = d <= 1000;
				}
				good += ok;
				cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(
				                          op, "Communication Bandwidth Info"))
				{
					double mb =
					    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
					        x, "Transit Size(MB)"));
					double ms =
					    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
					        x, "Transit Time(ms)"));
					const tl_comm_bw *b = r ? find_bw(&c, r, x->string) : NULL;
					bw++;
					if (mb == 0) {
						bwgood += b == NULL;
						continue;
					}
					int bok = b && fabs((double)b->size - mb * 1e6) < 1 &&
					          fabs((double)b->time - ms * 1e6) <= 1000;
					const cJSON *pk;
					cJSON_ArrayForEach(pk, cJSON_GetObjectItemCaseSensitive(
					                           x, "Size Distribution"))
					{
						double sz = strtod(pk->string, NULL) * 1e6;
						const tl_comm_packet *q = NULL;
						for (size_t i = 0; bok && i < b->npk; i++)
							if (fabs((double)b->pk[i].size - sz) < 1)
								q = &b->pk[i];
						bok = bok && q &&
						      q->count == (uint64_t)cJSON_GetNumberValue(
						                      cJSON_GetArrayItem(pk, 0)) &&
						      fabs((double)q->time -
						           cJSON_GetNumberValue(
						               cJSON_GetArrayItem(pk, 1)) *
						               1e6) <= 1000;
					}
					bwgood += bok;
				}
			}
		}
		cJSON_Delete(j);
		CHECK(ops > 0 && good == ops,
		      "trace_view.json rank %d: every op's elapse, transit, wait, sync, idle equal "
		      "communication.json to 1 us (%zu of %zu)",
		      rank, good, ops);
		CHECK(bw > 0 && bwgood == bw,
		      "trace_view.json rank %d: every bandwidth row and packet size equal "
		      "communication.json (%zu of %zu)",
		      rank, bwgood, bw);
	}
	printf("# trace_view.json: largest deviation from communication.json: %.3f ns\n", dev);
	tlq_comm_free(&c);
	trace_free(&tr);
}

/* The same rows, their bandwidth and links, from two analyses. */
static int
comm_same(const tl_comm_result *a, const tl_comm_result *b)
{
	if (a->nops != b->nops || a->nbw != b->nbw || a->nlinks != b->nlinks)
		return 0;
	for (size_t i = 0; i < a->nops; i++) {
		const tl_comm_row *x = &a->ops[i], *y = &b->ops[i];
		if (x->rank != y->rank || x->step != y->step || x->start != y->start ||
		    x->ntasks != y->ntasks || memcmp(&x->t, &y->t, sizeof x->t) != 0 ||
		    strcmp(x->op_name, y->op_name) != 0 || strcmp(x->op_type, y->op_type) != 0 ||
		    strcmp(x->group, y->group) != 0 || x->bw0 != y->bw0 || x->nbw != y->nbw ||
		    x->link0 != y->link0 || x->nlink != y->nlink)
			return 0;
	}
	for (size_t i = 0; i < a->nbw; i++)
		if (a->bw[i].xport != b->bw[i].xport || a->bw[i].size != b->bw[i].size ||
		    a->bw[i].time != b->bw[i].time || a->bw[i].npk != b->bw[i].npk ||
		    (a->bw[i].npk > 0 &&
		     memcmp(a->bw[i].pk, b->bw[i].pk, a->bw[i].npk * sizeof *a->bw[i].pk) != 0))
			return 0;
	for (size_t i = 0; i < a->nlinks; i++)
		if (a->links[i].src != b->links[i].src || a->links[i].dst != b->links[i].dst ||
		    a->links[i].xport != b->links[i].xport ||
		    a->links[i].size != b->links[i].size || a->links[i].time != b->links[i].time)
			return 0;
	return 1;
}

/* tlq_comm_once (tl summary's): the communication gathered while loading, its sub-tasks let go
 * afterwards; a later tlq_comm reads them again and gives the same rows, and the collectives,
 * which read the gathered ops, stay as they were. */
static void
test_comm_once(void)
{
	char *dir = test_tmpdir("comm-once");
	if (dir == NULL)
		return;
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 2;
	o.nsteps = 2;
	o.tasks_per_rank = 4000;
	o.slow_rank = 1;
	o.seed = 5;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate 2 ranks x 2 steps");
	gen_truth_free(&truth);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1, .tables = TL_TABLE_COMM};
	if (load_trace(out, &lo, &tr) != 0) {
		CHECK(0, "load the generated profile, its communication gathered");
		free(out);
		test_rmtree(dir);
		return;
	}
	tl_query *q = tlq_open(&tr, NULL);
	tl_comm_result a, b;
	tl_coll_result ca, cb;
	tlq_collectives(q, &ca);
	size_t gathered = 0, dropped = 0;
	for (size_t i = 0; i < tr.nranks; i++)
		gathered += tr.ranks[i]->comm != NULL && tr.ranks[i]->comm->ntasks > 0;
	tlq_comm_once(q, &a);
	for (size_t i = 0; i < tr.nranks; i++)
		dropped += tr.ranks[i]->comm != NULL && tr.ranks[i]->comm->tasks_dropped &&
		           tr.ranks[i]->comm->tasks == NULL && tr.ranks[i]->comm->nops > 0;
	CHECK(gathered == tr.nranks && dropped == tr.nranks && a.nops > 0 && a.nlinks > 0,
	      "tlq_comm_once: every rank's gathered sub-tasks let go, its ops kept");
	tlq_comm(q, &b);
	CHECK(comm_same(&a, &b), "tlq_comm after tlq_comm_once: the same %zu rows, read again",
	      a.nops);
	tlq_collectives(q, &cb);
	int same = ca.n == cb.n;
	for (size_t i = 0; same && i < ca.n; i++)
		same = ca.v[i].n == cb.v[i].n && ca.v[i].step == cb.v[i].step &&
		       ca.v[i].skew == cb.v[i].skew &&
		       strcmp(ca.v[i].op_type, cb.v[i].op_type) == 0 &&
		       strcmp(ca.v[i].group, cb.v[i].group) == 0;
	CHECK(same && ca.n > 0, "the collectives the same before and after (%zu)", ca.n);
	tlq_collectives_free(&ca);
	tlq_collectives_free(&cb);
	tlq_comm_free(&a);
	tlq_comm_free(&b);
	tlq_close(q);
	trace_free(&tr);
	free(out);
	test_rmtree(dir);
}

int
main(void)
{
	msg_set_quiet(1);
	test_rule();
	test_op_type();
	test_generated();
	test_comm_once();
	test_p2p();
	test_samples();
	test_text_sample();
	return test_done();
}
