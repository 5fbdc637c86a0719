/* The `memory` and `npu_memory` sections of `tl summary --json`: allocator and NPU memory
 * peaks per rank. */
#include "config.h"
#include "query/memory.h"
#include "report/report.h"
#include "report/report_int.h"

#include <inttypes.h>
#include <stdlib.h>

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void
json_opt(FILE *f, const char *key, int have, int64_t v)
{
	if (have)
		fprintf(f, ",\"%s\":%" PRId64, key, v);
	else
		fprintf(f, ",\"%s\":null", key);
}

void
report_memory_json(FILE *f, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	tlq_counters(q);
	fprintf(f, ",\"memory\":[");
	int first = 1;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_mem_peak *v;
		size_t n = tlq_memory_peaks(q, i, &v);
		for (size_t k = 0; k < n; k++) {
			fprintf(f, "%s{\"rank\":%s,\"component\":", first ? "" : ",",
			        RANK_JSON(r->rank));
			json_str(f, v[k].component);
			json_opt(f, "peak_allocated_bytes", v[k].have[0], v[k].allocated);
			json_opt(f, "peak_allocated_ns", v[k].have[0], v[k].allocated_ns);
			json_opt(f, "peak_reserved_bytes", v[k].have[1], v[k].reserved);
			json_opt(f, "peak_active_bytes", v[k].have[2], v[k].active);
			size_t si = v[k].have[0]
			                ? steps_index_at(r->steps, r->nsteps, v[k].allocated_ns)
			                : SIZE_MAX;
			json_opt(f, "step", si != SIZE_MAX, si != SIZE_MAX ? r->steps[si].id : 0);
			const char *stage = NULL;
			if (v[k].have[0]) {
				stage = tlq_stage_at(q, i, v[k].allocated_ns);
			}
			fprintf(f, ",\"stage\":");
			if (stage)
				json_str(f, stage);
			else
				fprintf(f, "null");
			fprintf(f, "}");
			first = 0;
		}
		free(v);
	}
	fprintf(f, "],\"npu_memory\":[");
	first = 1;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_npu_mem_peak *v;
		size_t n = tlq_npu_memory_peaks(q, i, &v);
		for (size_t k = 0; k < n; k++) {
			fprintf(f, "%s{\"rank\":%s,\"type\":", first ? "" : ",",
			        RANK_JSON(r->rank));
			json_str(f, v[k].type);
			json_opt(f, "peak_hbm_bytes", v[k].have_hbm, v[k].hbm);
			json_opt(f, "peak_ddr_bytes", v[k].have_ddr, v[k].ddr);
			fprintf(f, "}");
			first = 0;
		}
		free(v);
	}
	fprintf(f, "]");
}
