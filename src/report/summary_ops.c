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

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	text_json_write(f, s ? s : "");
	fputc('"', f);
}

/* Quartiles and means are exact to a quarter ns for quartiles; means get three decimals. */
static void
json_stat(FILE *f, const tl_opstat *s)
{
	fprintf(f,
	        "\"count\":%" PRIu64 ",\"total_ns\":%" PRId64
	        ",\"mean_ns\":%.3f,\"min_ns\":%" PRId64 ",\"max_ns\":%" PRId64
	        ",\"q1_ns\":%.2f,\"median_ns\":%.2f,\"q3_ns\":%.2f",
	        s->count, s->total, s->mean, s->min, s->max, s->q1, s->median, s->q3);
}

void
report_ops_json(FILE *f, const tl_query *q)
{
	tl_ops_result o;
	tlq_ops(q, &o);
	fprintf(f, ",\"operators\":[");
	for (size_t i = 0; i < o.ntypes; i++) {
		const tl_op_type_row *t = &o.types[i];
		fprintf(f, "%s{\"rank\":%s,\"op_type\":", i ? "," : "", RANK_JSON(t->rank));
		json_str(f, t->op_type);
		fprintf(f, ",\"task_type\":");
		json_str(f, t->task_type);
		fputc(',', f);
		json_stat(f, &t->st);
		fprintf(f, ",\"by_name\":[");
		for (size_t k = 0; k < t->nby; k++) {
			const tl_op_name_row *nr = &o.names[t->by0 + k];
			fprintf(f, "%s{\"op_name\":", k ? "," : "");
			json_str(f, nr->op_name);
			fprintf(f, ",\"input_shapes\":");
			json_str(f, nr->input_shapes);
			fputc(',', f);
			json_stat(f, &nr->st);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "]");
	tlq_ops_free(&o);

	tl_comm_op_row *c;
	size_t n = tlq_comm_ops(q, &c);
	fprintf(f, ",\"comm_operators\":[");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s{\"rank\":%s,\"op_type\":", i ? "," : "", RANK_JSON(c[i].rank));
		json_str(f, c[i].op_type);
		fputc(',', f);
		json_stat(f, &c[i].st);
		fputc('}', f);
	}
	fprintf(f, "]");
	free(c);
}
