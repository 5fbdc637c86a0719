/* The `memory` and `npu_memory` sections of `tl summary --json`: allocator and NPU memory
 * peaks per rank. */
#include "config.h"
#include "query/memory.h"
#include "report/report.h"
#include "report/report_int.h"

#include <inttypes.h>
#include <stdlib.h>

/* Allocator peaks per rank and component (the step and stage of the allocated peak), then the
 * NPU's per rank and memory type; null where the profile does not give a number. */
void
report_memory_json(tl_jsonw *w, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	tlq_counters(q);
	jsonw_array_begin_m(w, "memory");
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_mem_peak *v;
		size_t n = tlq_memory_peaks(q, i, &v);
		for (size_t k = 0; k < n; k++) {
			jsonw_object_begin(w);
			report_jw_rank(w, "rank", r->rank);
			jsonw_str_m(w, "component", v[k].component);
			jsonw_i64_or_null_m(w, "peak_allocated_bytes", v[k].allocated,
			                    v[k].have[0]);
			jsonw_i64_or_null_m(w, "peak_allocated_ns", v[k].allocated_ns,
			                    v[k].have[0]);
			jsonw_i64_or_null_m(w, "peak_reserved_bytes", v[k].reserved, v[k].have[1]);
			jsonw_i64_or_null_m(w, "peak_active_bytes", v[k].active, v[k].have[2]);
			size_t si = v[k].have[0]
			                ? steps_index_at(r->steps, r->nsteps, v[k].allocated_ns)
			                : SIZE_MAX;
			jsonw_i64_or_null_m(w, "step", si != SIZE_MAX ? r->steps[si].id : 0,
			                    si != SIZE_MAX);
			jsonw_str_m(w, "stage",
			            v[k].have[0] ? tlq_stage_at(q, i, v[k].allocated_ns) : NULL);
			jsonw_end(w);
		}
		free(v);
	}
	jsonw_end(w);
	jsonw_array_begin_m(w, "npu_memory");
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		tl_npu_mem_peak *v;
		size_t n = tlq_npu_memory_peaks(q, i, &v);
		for (size_t k = 0; k < n; k++) {
			jsonw_object_begin(w);
			report_jw_rank(w, "rank", r->rank);
			jsonw_str_m(w, "type", v[k].type);
			jsonw_i64_or_null_m(w, "peak_hbm_bytes", v[k].hbm, v[k].have_hbm);
			jsonw_i64_or_null_m(w, "peak_ddr_bytes", v[k].ddr, v[k].have_ddr);
			jsonw_end(w);
		}
		free(v);
	}
	jsonw_end(w);
}
