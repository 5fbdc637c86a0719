/* The operator sections of `tl summary --json`: "operators" (compute_op_sum: per rank, op type
 * and task type, with the rows by op name and input shapes) and "comm_operators" (hccl_sum: per
 * rank and op type). Documented in tl(1). */
#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "report/report_int.h"
#include "util/text.h"

#include <inttypes.h>
#include <stdlib.h>

/* Quartiles and means are exact to a quarter ns for quartiles; means get three decimals. */
static void
json_stat(tl_jsonw *w, const tl_opstat *s)
{
	jsonw_u64_m(w, "count", s->count);
	jsonw_i64_m(w, "total_ns", s->total);
	jsonw_double_m(w, "mean_ns", "%.3f", s->mean);
	jsonw_i64_m(w, "min_ns", s->min);
	jsonw_i64_m(w, "max_ns", s->max);
	jsonw_double_m(w, "q1_ns", "%.2f", s->q1);
	jsonw_double_m(w, "median_ns", "%.2f", s->median);
	jsonw_double_m(w, "q3_ns", "%.2f", s->q3);
}

void
report_ops_json(tl_jsonw *w, const tl_query *q)
{
	tl_ops_result o;
	tlq_ops(q, &o);
	jsonw_array_begin_m(w, "operators");
	for (size_t i = 0; i < o.ntypes; i++) {
		const tl_op_type_row *t = &o.types[i];
		jsonw_object_begin(w);
		report_jw_rank(w, "rank", t->rank);
		jsonw_str_m(w, "op_type", t->op_type ? t->op_type : "");
		jsonw_str_m(w, "task_type", t->task_type ? t->task_type : "");
		json_stat(w, &t->st);
		jsonw_array_begin_m(w, "by_name");
		for (size_t k = 0; k < t->nby; k++) {
			const tl_op_name_row *nr = &o.names[t->by0 + k];
			jsonw_object_begin(w);
			jsonw_str_m(w, "op_name", nr->op_name ? nr->op_name : "");
			jsonw_str_m(w, "input_shapes", nr->input_shapes ? nr->input_shapes : "");
			json_stat(w, &nr->st);
			jsonw_end(w);
		}
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_end(w);
	tlq_ops_free(&o);

	tl_comm_op_row *c;
	size_t n = tlq_comm_ops(q, &c);
	jsonw_array_begin_m(w, "comm_operators");
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(w);
		report_jw_rank(w, "rank", c[i].rank);
		jsonw_str_m(w, "op_type", c[i].op_type);
		json_stat(w, &c[i].st);
		jsonw_end(w);
	}
	jsonw_end(w);
	free(c);
}
