/* The overlap breakdown against the generator's ground truth (built by construction, not by
 * running our analysis), across several ranks and steps, a slow rank and deliberate bubbles. */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static const tl_rank *
find_rank(const tl_trace *tr, int rank)
{
	for (size_t i = 0; i < tr->nranks; i++)
		if (tr->ranks[i]->rank == rank)
			return tr->ranks[i];
	return NULL;
}

static void
check_profile(int nranks, int nsteps, uint64_t tasks, int slow)
{
	char dir[] = "/tmp/tl-test-summary-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = nranks;
	o.nsteps = nsteps;
	o.tasks_per_rank = tasks;
	o.slow_rank = slow;
	o.seed = 7;
	gen_truth truth;
	memset(&truth, 0, sizeof truth);
	CHECK(gen_profile(&o, out, &truth) == 0, "generate %d ranks x %d steps", nranks, nsteps);
	CHECK_EQ_I64(truth.noverlap, (size_t)nranks * (size_t)nsteps,
	             "truth has a row per rank and step");

	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	unsigned w0 = msg_warn_count();
	CHECK(load_trace(out, &lo, &tr) == 0, "load the generated profile");
	CHECK_EQ_I64(msg_warn_count() - w0, 0, "no warnings on a generated profile");
	CHECK_EQ_I64(tr.nranks, nranks, "every rank loaded");

	size_t bad = 0, checked = 0;
	for (size_t i = 0; i < truth.noverlap; i++) {
		const gen_overlap_truth *t = &truth.overlap[i];
		const tl_rank *r = find_rank(&tr, t->rank);
		if (r == NULL) {
			bad++;
			continue;
		}
		tl_step_overlap *so;
		size_t n = tlq_step_overlaps(r, &so);
		for (size_t k = 0; k < n; k++) {
			if (so[k].step_id != t->step)
				continue;
			checked++;
			const tl_overlap *g = &so[k].o;
			int64_t got[6] = {g->computing,           g->communication, g->overlapped,
			                  g->comm_not_overlapped, g->free,          g->preparing};
			int64_t want[6] = {t->computing,           t->communication, t->overlapped,
			                   t->comm_not_overlapped, t->free,          t->preparing};
			static const char *const nm[] = {
			    "computing",  "communication",
			    "overlapped", "communication_not_overlapped",
			    "free",       "preparing"};
			for (int c = 0; c < 6; c++) {
				char m[160];
				snprintf(m, sizeof m, "rank %d step %lld: %s equals the truth",
				         t->rank, (long long)t->step, nm[c]);
				CHECK_EQ_I64(got[c], want[c], m);
			}
		}
		free(so);
	}
	CHECK(bad == 0 && checked == truth.noverlap, "every truth row was found (%zu of %zu)",
	      checked, truth.noverlap);
	trace_free(&tr);
	gen_truth_free(&truth);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup %s", dir);
	free(cmd);
	free(out);
}

int
main(void)
{
	check_profile(4, 2, 20000, 2);
	check_profile(1, 1, 3000, -1);
	return test_done();
}
