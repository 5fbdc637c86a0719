/* The `host` section of `tl summary --json` and the host table of its text: launch delays per
 * rank and step, and how much of the device's idle time the host was still launching. */
#include "config.h"
#include "query/host.h"
#include "report/report.h"
#include "report/report_int.h"

#include <inttypes.h>
#include <stdlib.h>

/* idle_host / idle with 4 decimals, "null" without idle time */
static const char *
ratio(int64_t part, int64_t whole, char *buf, size_t len)
{
	if (whole <= 0)
		snprintf(buf, len, "null");
	else
		snprintf(buf, len, "%.4f", (double)part / (double)whole);
	return buf;
}

void
report_host_json(FILE *f, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	fprintf(f, ",\"host\":[");
	int first = 1;
	char num[32];
	tl_launch_step **all;
	size_t *nall;
	tlq_launch_steps_all(q, 0, &all, &nall);
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_launch_step *v = all[i];
		size_t n = nall[i];
		for (size_t k = 0; k < n; k++) {
			fprintf(f, "%s{\"rank\":%s,\"step\":", first ? "" : ",",
			        RANK_JSON(r->rank));
			if (v[k].step_id < 0)
				fprintf(f, "null");
			else
				fprintf(f, "%" PRId64, v[k].step_id);
			fprintf(f,
			        ",\"launches\":%zu,\"launch_delay_p50_ns\":%" PRId64
			        ",\"launch_delay_p90_ns\":%" PRId64
			        ",\"launch_delay_max_ns\":%" PRId64,
			        v[k].launches, v[k].p50, v[k].p90, v[k].max);
			if (v[k].have_idle)
				fprintf(f,
				        ",\"idle_ns\":%" PRId64
				        ",\"idle_host_launching_ns\":%" PRId64
				        ",\"host_bound_ratio\":%s}",
				        v[k].idle, v[k].idle_host,
				        ratio(v[k].idle_host, v[k].idle, num, sizeof num));
			else
				fprintf(f, ",\"idle_ns\":null,\"idle_host_launching_ns\":null,"
				           "\"host_bound_ratio\":null}");
			first = 0;
		}
		free(v);
	}
	free(all);
	free(nall);
	fprintf(f, "]");
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
