#include "config.h"
#include "query/query.h"
#include "report/report.h"

#include <inttypes.h>
#include <stdlib.h>

#include "util/timefmt.h"

/* Overlap table: one row per rank and step, times in ms with ns precision (µs with three
 * decimals would be torch_npu's unit; ms reads better at step scale). */
void
report_summary_text(FILE *f, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	static const char *const hdr[] = {"computing",    "communication", "overlapped",
	                                  "comm.exposed", "free",          "preparing"};
	fprintf(f, "Overlap per rank and step (ms; comm.exposed = communication not overlapped)\n");
	fprintf(f, "%6s %8s", "rank", "step");
	for (int i = 0; i < 6; i++)
		fprintf(f, " %14s", hdr[i]);
	fprintf(f, "\n");
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_step_overlap *so;
		size_t n = tlq_step_overlaps(r, &so);
		if (r->host_only) {
			/* no device work: computing, overlap and free mean nothing, zeros would
			 * mislead; the host collectives are the communication */
			tl_overlap all;
			tlq_overlap(r, INT64_MIN, INT64_MAX, &all);
			fprintf(f,
			        "%6d %8s  no device activity (a CPU-only trace); host collectives "
			        "%" PRId64 ".%06" PRId64 " ms\n",
			        r->rank, "-", all.communication / 1000000,
			        all.communication % 1000000);
			n = 0;
		}
		for (size_t k = 0; k < n; k++) {
			char step[24];
			if (so[k].step_id < 0)
				snprintf(step, sizeof step, "all");
			else
				snprintf(step, sizeof step, "%" PRId64, so[k].step_id);
			int64_t v[6] = {so[k].o.computing,  so[k].o.communication,
			                so[k].o.overlapped, so[k].o.comm_not_overlapped,
			                so[k].o.free,       so[k].o.preparing};
			fprintf(f, "%6d %8s", r->rank, step);
			for (int c = 0; c < 6; c++) {
				int64_t a = v[c] < 0 ? -v[c] : v[c];
				fprintf(f, " %s%7" PRId64 ".%06" PRId64, v[c] < 0 ? "-" : " ",
				        a / 1000000, a % 1000000);
			}
			fprintf(f, "\n");
		}
		free(so);
	}
	report_rl_text(f, q);
}

void
report_summary_json(FILE *f, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	fprintf(f, "{\"ranks\":[");
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_step_overlap *so;
		size_t n = tlq_step_overlaps(r, &so);
		fprintf(f, "%s{\"rank\":%d,\"steps\":[", i ? "," : "", r->rank);
		for (size_t k = 0; k < n; k++) {
			const tl_overlap *o = &so[k].o;
			fprintf(f,
			        "%s{\"step\":%" PRId64 ",\"computing_ns\":%" PRId64
			        ",\"communication_ns\":%" PRId64 ",\"overlapped_ns\":%" PRId64
			        ",\"communication_not_overlapped_ns\":%" PRId64
			        ",\"free_ns\":%" PRId64 ",\"preparing_ns\":%" PRId64 "}",
			        k ? "," : "", so[k].step_id, o->computing, o->communication,
			        o->overlapped, o->comm_not_overlapped, o->free, o->preparing);
		}
		/* added after the fields that were there first: a new field, nothing moved */
		fprintf(f, "],\"device_activity\":%s}", r->host_only ? "false" : "true");
		free(so);
	}
	fprintf(f, "]");
	report_rl_json(f, q); /* stages, imbalance, pipeline, slow_ranks, bubbles */
	fprintf(f, "}\n");
}
