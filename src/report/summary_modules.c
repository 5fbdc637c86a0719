/* The module statistics in `tl summary`: the JSON section "modules" (msprof-analyze
 * module_statistic: per rank, module and operator) and, in the text summary, device time per
 * rank and module. Documented in tl(1). */
#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "report/report_int.h"
#include "util/satint.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void
json_str_m(tl_jsonw *w, const char *key, const char *s)
{
	jsonw_str_m(w, key, s ? s : "");
}

void
report_modules_json(tl_jsonw *w, const tl_query *q)
{
	const tl_trace *tr = tlq_trace(q);
	tl_modules_result m;
	tlq_modules(q, &m);
	jsonw_array_begin_m(w, "modules");
	for (size_t ri = 0; ri < m.nranks; ri++) {
		const tl_module_stats *st = &m.stats[ri];
		for (size_t i = 0; i < st->n; i++) {
			const tl_module_row *r = &st->v[i];
			char path[1024];
			jsonw_object_begin(w);
			report_jw_rank(w, "rank", tr->ranks[ri]->rank);
			json_str_m(w, "path", tlq_module_path(r, path, sizeof path));
			json_str_m(w, "parent", r->parent);
			json_str_m(w, "module", r->module);
			jsonw_str_m(w, "direction", r->backward ? "backward" : "forward");
			json_str_m(w, "op_name", r->op_name);
			jsonw_array_begin_m(w, "kernels");
			for (size_t k = 0; k < r->nkernels; k++)
				jsonw_str(w, r->kernels[k] ? r->kernels[k] : "");
			jsonw_end(w);
			jsonw_u64_m(w, "kernel_count", (uint64_t)r->nkernels * r->count);
			jsonw_i64_m(w, "device_ns", r->total_ns);
			jsonw_double_m(w, "mean_ns", "%.3f", r->mean_ns);
			jsonw_u64_m(w, "count", r->count);
			jsonw_i64_m(w, "start_ns", r->op_start);
			jsonw_i64_m(w, "module_start_ns", r->module_start);
			jsonw_i64_m(w, "module_end_ns", r->module_end);
			jsonw_end(w);
		}
	}
	jsonw_end(w);
	tlq_modules_free(&m);
}

/* Per rank and module path: device time of the module's own operators, kernels, operators. */
typedef struct path_sum {
	const char *path; /* in the pool */
	int64_t ns;
	uint64_t kernels, ops;
} path_sum;

void
report_modules_text(FILE *f, const tl_query *q)
{
	if (!tlq_has_modules(q))
		return; /* nothing read: a profile without module ranges pays nothing */
	const tl_trace *tr = tlq_trace(q);
	tl_modules_result m;
	tlq_modules(q, &m);
	fprintf(f, "\nModules per rank (msprof-analyze module_statistic: device time of the "
	           "kernels of each\nmodule's own operators, ms; [Backward]: synthesized from "
	           "autograd's operator links)\n");
	fprintf(f, "%6s %14s %8s %8s  %s\n", "rank", "device", "kernels", "ops", "module");
	if (m.nrows == 0)
		fprintf(f,
		        "%6s  the Module ranges hold no operator that launched kernels (module "
		        "statistics need the profile DB's operator tables)\n",
		        "-");
	for (size_t ri = 0; ri < m.nranks; ri++) {
		const tl_module_stats *st = &m.stats[ri];
		tl_strpool *paths = strpool_new(); /* path -> its entry, by the pool's dense ids */
		path_sum *v = xcalloc(st->n + 1, sizeof *v);
		size_t *at = xcalloc(st->n + 2, sizeof *at), n = 0;
		for (size_t i = 0; i < st->n; i++) {
			const tl_module_row *r = &st->v[i];
			char *p = xasprintf("%s%s%s", r->parent, *r->parent ? "/" : "", r->module);
			uint32_t id =
			    strpool_intern_cstr(paths, p); /* ids 1.. in order of first use */
			free(p);
			if (at[id] == 0) {
				v[n].path = strpool_get(paths, id);
				at[id] = ++n;
			}
			path_sum *x = &v[at[id] - 1];
			x->ns = sat_add(x->ns, r->total_ns);
			x->kernels += r->nkernels * r->count;
			x->ops += r->count;
		}
		for (size_t k = 0; k < n; k++) /* in execution order of their first operator */
			fprintf(f, "%6s %7" PRId64 ".%06" PRId64 " %8" PRIu64 " %8" PRIu64 "  %s\n",
			        RANK_TXT(tr->ranks[ri]->rank), v[k].ns / 1000000, v[k].ns % 1000000,
			        v[k].kernels, v[k].ops, v[k].path);
		free(at);
		free(v);
		strpool_free(paths);
	}
	tlq_modules_free(&m);
}
