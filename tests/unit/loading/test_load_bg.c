/* Progressive loading (load_trace_start and the session's tlq_poll): every rank has its slot from
 * the start, its small tables come in before its device tasks, the slots end with exactly what
 * the full load gives them, a cancelled load frees what it read, and the test hook holds the
 * ranks it is told to. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "../test.h"

static int prepared;

static void
prepare(tl_rank *r, void *ctx)
{
	(void)ctx;
	__atomic_add_fetch(&prepared, 1, __ATOMIC_RELAXED);
	tlq_prepare_rank(r);
}

static size_t
slices_of(const tl_rank *r, tl_lane_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind)
			n += r->tracks[i]->n;
	return n;
}

/* Every rank published through the session, by polling as the viewer does. */
static void
test_whole(const char *dir)
{
	tl_trace full, prog;
	CHECK(load_trace(dir, &(tl_load_opts){.quiet_progress = 1, .view = 1}, &full) == 0,
	      "the full load");
	tl_query *qf = tlq_open(&full, &(tl_query_opts){.lanes = 1});

	tl_load_bg *bg;
	prepared = 0;
	tl_load_opts o = {.quiet_progress = 1, .view = 1, .defer_warnings = 1, .prepare = prepare};
	CHECK(load_trace_start(dir, &o, &prog, &bg) == 0 && bg != NULL, "the load starts");
	tl_query *q = tlq_open(&prog, &(tl_query_opts){.lanes = 1});
	tlq_attach_load(q, bg);
	CHECK(prog.nranks == 3, "a slot per rank before the first poll (%zu)", prog.nranks);
	int empty = 1;
	for (size_t i = 0; i < prog.nranks; i++)
		empty &= prog.ranks[i]->ntracks == 0 && prog.ranks[i]->rank == (int)i &&
		         tlq_slot(q, i) == TLQ_SLOT_PENDING;
	CHECK(empty, "each a placeholder with its rank number and no tracks");
	size_t total = 0, polls = 0;
	int order = 1, backwards = 0, last[3] = {0, 0, 0};
	while (tlq_loading(q, NULL, &total)) {
		tlq_poll(q, NULL);
		for (size_t i = 0; i < prog.nranks; i++) {
			order &= prog.ranks[i]->rank == (int)i;
			backwards |= tlq_slot(q, i) < last[i];
			last[i] = tlq_slot(q, i);
		}
		polls++;
		usleep(1000);
	}
	CHECK(total == 3, "3 ranks to load (%zu)", total);
	CHECK(order, "a slot's rank never moves");
	CHECK(!backwards, "a slot only goes forward: placeholder, small tables, full");
	CHECK(prepared == 3, "each rank prepared once on its loader thread (%d)", prepared);
	CHECK(prog.nranks == full.nranks, "as many ranks as the full load (%zu, %zu)", prog.nranks,
	      full.nranks);
	int same = prog.nranks == full.nranks;
	for (size_t i = 0; same && i < prog.nranks; i++) {
		const tl_rank *a = prog.ranks[i], *b = full.ranks[i];
		same = a->rank == b->rank && a->ntracks == b->ntracks && a->t_min == b->t_min &&
		       a->t_max == b->t_max &&
		       slices_of(a, TL_LANE_COMPUTE) == slices_of(b, TL_LANE_COMPUTE) &&
		       slices_of(a, TL_LANE_OVERLAP) == slices_of(b, TL_LANE_OVERLAP) &&
		       slices_of(a, TL_LANE_STAGE) == slices_of(b, TL_LANE_STAGE);
		for (size_t k = 0; same && k < a->ntracks; k++)
			same = a->tracks[k]->lod != NULL &&
			       tlq_busy(a->tracks[k], a->t_min, a->t_max + 1) ==
			           tlq_busy(b->tracks[k], b->t_min, b->t_max + 1);
	}
	CHECK(same, "every rank has the full load's tracks, slices, stages and busy time");
	CHECK(prog.t_min == full.t_min && prog.t_max == full.t_max, "the trace's extent too");
	const tl_stage_row *ra, *rb;
	size_t na = tlq_stages(q, &ra), nb = tlq_stages(qf, &rb);
	int rows_same = na == nb && na > 0;
	for (size_t i = 0; rows_same && i < na; i++)
		rows_same = ra[i].rank == rb[i].rank && ra[i].stage == rb[i].stage &&
		            ra[i].step == rb[i].step && ra[i].start == rb[i].start &&
		            ra[i].end == rb[i].end && ra[i].busy == rb[i].busy &&
		            ra[i].lag == rb[i].lag;
	CHECK(rows_same, "the same stage table once every rank is in (%zu rows)", na);
	CHECK(load_bg_finish(bg, 0) == 0, "finishing a whole load: 0");
	tlq_close(q);
	tlq_close(qf);
	trace_free(&prog);
	trace_free(&full);
}

/* Rank 0 in, ranks 1 and 2 held by the hook; quitting cancels them. */
static void
test_cancel(const char *dir, const tl_trace *full)
{
	setenv("TL_TEST_LOAD_DELAY_MS", "600000:1", 1);
	tl_trace tr;
	tl_load_bg *bg;
	tl_load_opts o = {.quiet_progress = 1, .view = 1, .defer_warnings = 1, .prepare = prepare};
	CHECK(load_trace_start(dir, &o, &tr, &bg) == 0, "the held load starts");
	tl_query *q = tlq_open(&tr, &(tl_query_opts){.lanes = 1});
	tlq_attach_load(q, bg);
	while (!tlq_load_settled(q))
		usleep(1000);
	CHECK(tlq_poll(q, NULL) == 3 && tr.nranks == 3, "three slots filled");
	CHECK(tlq_slot(q, 0) == TLQ_SLOT_FULL && tr.ranks[0]->rank == 0, "rank 0 in whole");
	int small = 1;
	for (size_t i = 1; i < 3; i++) {
		const tl_rank *p = tr.ranks[i], *f = full->ranks[i];
		small &= tlq_slot(q, i) == TLQ_SLOT_PREVIEW && p->rank == (int)i;
		small &= slices_of(p, TL_LANE_COMPUTE) == 0 && slices_of(p, TL_LANE_OVERLAP) == 0;
		small &= slices_of(p, TL_LANE_MSTX) > 0 &&
		         slices_of(p, TL_LANE_MSTX) == slices_of(f, TL_LANE_MSTX);
		small &= slices_of(p, TL_LANE_COMM) > 0 &&
		         slices_of(p, TL_LANE_COMM) == slices_of(f, TL_LANE_COMM);
		small &= p->nsteps > 0 && p->nsteps == f->nsteps;
		small &= slices_of(p, TL_LANE_STAGE) == slices_of(f, TL_LANE_STAGE);
	}
	CHECK(small, "ranks 1 and 2 (held): their steps, MSTX ranges, comm ops and stages, as the "
	             "full load has them, and no device lanes yet");
	size_t done, total;
	CHECK(tlq_loading(q, &done, &total) && done == 1 && total == 3, "1 of 3 done, loading");
	int rank;
	uint64_t rows;
	CHECK(tlq_load_rank(q, 0, &rank, &rows) == TLQ_LOAD_DONE && rank == 0, "rank 0 is done");
	int st = tlq_load_rank(q, 1, &rank, &rows);
	CHECK((st == TLQ_LOAD_HELD || st == TLQ_LOAD_WAITING) && rank == 1 && rows == 0,
	      "rank 1 is held, nothing read");
	CHECK(tlq_load_rank(q, 3, &rank, &rows) == -1, "no rank 3");
	CHECK(load_bg_finish(bg, 1) == 0, "cancelling: 0, at once (ranks 1 and 2 stop waiting)");
	CHECK(!load_cancelled(), "the flag is down again for the next load");
	tlq_close(q);
	trace_free(&tr);
	unsetenv("TL_TEST_LOAD_DELAY_MS");
}

int
main(void)
{
	msg_set_quiet(1);
	char *dir = test_tmpdir("load-bg");
	if (dir == NULL)
		return test_done();
	if (test_gen_ranks(dir, 3, 3000) != 0) {
		test_rmtree(dir);
		return test_done();
	}
	test_whole(dir);
	tl_trace full;
	CHECK(load_trace(dir, &(tl_load_opts){.quiet_progress = 1, .view = 1}, &full) == 0,
	      "the full load");
	tl_query *qf = tlq_open(&full, &(tl_query_opts){.lanes = 1});
	test_cancel(dir, &full);
	tlq_close(qf);
	trace_free(&full);
	test_rmtree(dir);
	return test_done();
}
