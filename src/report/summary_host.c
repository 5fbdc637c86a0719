/* The `host` section of `tl summary --json` and the host table of its text: launch delays per
 * rank and step, and how much of the device's idle time the host was still launching. */
#include "config.h"
#include "query/host.h"
#include "report/report.h"
#include "report/report_int.h"

#include <inttypes.h>
#include <stdlib.h>

void
report_host_json(tl_jsonw *w, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	jsonw_array_begin_m(w, "host");
	tl_launch_step **all;
	size_t *nall;
	tlq_launch_steps_all(q, 0, &all, &nall);
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_launch_step *v = all[i];
		for (size_t k = 0; k < nall[i]; k++) {
			jsonw_object_begin(w);
			report_jw_rank(w, "rank", r->rank);
			jsonw_i64_or_null_m(w, "step", v[k].step_id, v[k].step_id >= 0);
			jsonw_u64_m(w, "launches", v[k].launches);
			jsonw_i64_m(w, "launch_delay_p50_ns", v[k].p50);
			jsonw_i64_m(w, "launch_delay_p90_ns", v[k].p90);
			jsonw_i64_m(w, "launch_delay_max_ns", v[k].max);
			jsonw_i64_or_null_m(w, "idle_ns", v[k].idle, v[k].have_idle);
			jsonw_i64_or_null_m(w, "idle_host_launching_ns", v[k].idle_host,
			                    v[k].have_idle);
			/* idle_host / idle with 4 decimals, null without idle time */
			if (v[k].have_idle && v[k].idle > 0)
				jsonw_double_m(w, "host_bound_ratio", "%.4f",
				               (double)v[k].idle_host / (double)v[k].idle);
			else
				jsonw_null_m(w, "host_bound_ratio");
			jsonw_end(w);
		}
		free(v);
	}
	free(all);
	free(nall);
	jsonw_end(w);
}

void
report_host_text(FILE *f, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	tl_launch_step **all;
	size_t *nall;
	tlq_launch_steps_all(q, 0, &all, &nall);
	int any = 0;
	for (size_t i = 0; i < tr->nranks; i++)
		any |= nall[i] > 0;
	if (any) {
		fprintf(f,
		        "\nHost launches per rank and step (launch delay = device start - launch "
		        "call start, ms;\nhost-bound = device idle time before the host had "
		        "started the launch of the\nwork that ended the idle gap)\n");
		fprintf(f, "%6s %8s %9s %11s %11s %11s %11s %11s %7s\n", "rank", "step", "launches",
		        "delay.p50", "delay.p90", "delay.max", "idle", "host-bound", "share");
	}
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_launch_step *v = all[i];
		for (size_t k = 0; k < nall[i]; k++) {
			char step[24], a[5][24], pct[16];
			if (v[k].step_id < 0)
				snprintf(step, sizeof step, "%s",
				         tr->ranks[i]->nsteps ? "none" : "all");
			else
				snprintf(step, sizeof step, "%" PRId64, v[k].step_id);
			int64_t x[5] = {v[k].p50, v[k].p90, v[k].max, v[k].idle, v[k].idle_host};
			for (int c = 0; c < 5; c++) {
				int64_t m = x[c] < 0 ? -x[c] : x[c];
				snprintf(a[c], sizeof a[c], "%s%" PRId64 ".%06" PRId64,
				         x[c] < 0 ? "-" : "", m / 1000000, m % 1000000);
			}
			if (!v[k].have_idle) {
				snprintf(a[3], sizeof a[3], "-");
				snprintf(a[4], sizeof a[4], "-");
			}
			if (v[k].have_idle && v[k].idle > 0)
				snprintf(pct, sizeof pct, "%.1f%%",
				         100.0 * (double)v[k].idle_host / (double)v[k].idle);
			else
				snprintf(pct, sizeof pct, "-");
			fprintf(f, "%6s %8s %9zu %11s %11s %11s %11s %11s %7s\n",
			        RANK_TXT(tr->ranks[i]->rank), step, v[k].launches, a[0], a[1], a[2],
			        a[3], a[4], pct);
		}
		free(all[i]);
	}
	free(all);
	free(nall);
}
