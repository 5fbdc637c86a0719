/* The `host` section of `tl summary --json`: launch delays per rank and step. */
#include "config.h"
#include "query/host.h"
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>

void
report_host_json(FILE *f, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	fprintf(f, ",\"host\":[");
	int first = 1;
	tl_launch_step **all;
	size_t *nall;
	tlq_launch_steps_all(q, 0, &all, &nall);
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_launch_step *v = all[i];
		size_t n = nall[i];
		for (size_t k = 0; k < n; k++) {
			fprintf(f, "%s{\"rank\":%d,\"step\":", first ? "" : ",", r->rank);
			if (v[k].step_id < 0)
				fprintf(f, "null");
			else
				fprintf(f, "%" PRId64, v[k].step_id);
			fprintf(f,
			        ",\"launches\":%zu,\"launch_delay_p50_ns\":%" PRId64
			        ",\"launch_delay_p90_ns\":%" PRId64
			        ",\"launch_delay_max_ns\":%" PRId64 "}",
			        v[k].launches, v[k].p50, v[k].p90, v[k].max);
			first = 0;
		}
		free(v);
	}
	free(all);
	free(nall);
	fprintf(f, "]");
}
