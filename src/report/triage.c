/* `tl triage`: the findings, largest recoverable time first. */
#include "report/triage.h"

#include <inttypes.h>
#include <string.h>

#include "util/text.h"
#include "util/timefmt.h"

void
report_verdict_text(FILE *f, const tl_query *q, const tl_finding *v, size_t n)
{
	char t[256];
	if (n == 0) {
		fprintf(f, "Verdict: nothing found (tl triage lists the rules)\n");
		return;
	}
	fprintf(f, "Verdict (tl triage PATH lists all %zu finding%s):\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 3; i++)
		fprintf(f, "  %zu. %s\n", i + 1, tlq_finding_title(q, &v[i], t, sizeof t));
}

void
report_triage_text(FILE *f, const tl_query *q, const tl_finding *v, size_t n, const char *path,
                   size_t top)
{
	if (n == 0) {
		fprintf(f, "no findings: none of the %d rules found a problem\n", TL_FIND__COUNT);
		return;
	}
	char t[256], a[32], b[32], p[256];
	text_sanitize(path, p, sizeof p, 0);
	size_t m = top && top < n ? top : n;
	for (size_t i = 0; i < m; i++) {
		const tl_finding *x = &v[i];
		fprintf(f, "%zu. %s\n", i + 1, tlq_finding_title(q, x, t, sizeof t));
		fprintf(f, "   %s\n", x->evidence);
		if (x->end_ns > x->start_ns)
			fprintf(
			    f,
			    "   at %s .. %s ms from the profile start: tl view %s --finding %zu\n",
			    timefmt_ms(x->start_ns - tlq_trace(q)->t_min, 3, a, sizeof a),
			    timefmt_ms(x->end_ns - tlq_trace(q)->t_min, 3, b, sizeof b), p, i + 1);
	}
	if (m < n)
		fprintf(f, "(%zu more: --top %zu)\n", n - m, n);
}

/* One finding's members into the object w has open. */
static void
finding_members(tl_jsonw *w, const tl_query *q, const tl_finding *x, size_t index)
{
	const tl_find_rule *r = tlq_find_rules();
	jsonw_u64_m(w, "index", index);
	jsonw_str_m(w, "kind", r[x->kind].kind);
	jsonw_i64_m(w, "recoverable_ns", x->recoverable_ns);
	jsonw_double_m(w, "share", "%.6f", x->share);
	jsonw_i64_or_null_m(w, "rank", x->rank, x->rank >= 0);
	jsonw_str_m(w, "ranks", x->ranks[0] ? x->ranks : NULL);
	jsonw_i64_or_null_m(w, "step", x->step, x->step >= 0);
	jsonw_i64_m(w, "steps", x->nsteps);
	jsonw_str_m(w, "stage", x->stage >= 0 ? tlq_stage_name(q, x->stage) : NULL);
	jsonw_i64_m(w, "start_ns", x->start_ns);
	jsonw_i64_m(w, "end_ns", x->end_ns);
	if (x->kind == TL_FIND_SLOW_LINK) {
		jsonw_i64_m(w, "src_rank", x->src_rank);
		jsonw_i64_m(w, "dst_rank", x->dst_rank);
	}
	if (x->pp_stage >= 0)
		jsonw_i64_m(w, "pp_stage", x->pp_stage);
	if (x->transport)
		jsonw_str_m(w, "transport", x->transport);
	if (x->op[0])
		jsonw_str_m(w, "op", x->op);
	jsonw_str_m(w, "evidence", x->evidence);
	if (x->on_critical_path < 0)
		jsonw_null_m(w, "on_critical_path");
	else
		jsonw_bool_m(w, "on_critical_path", x->on_critical_path);
}

void
report_finding_jw(tl_jsonw *w, const tl_query *q, const tl_finding *x, size_t index)
{
	jsonw_object_begin(w);
	finding_members(w, q, x, index);
	jsonw_end(w);
}

void
report_triage_json(FILE *f, const tl_query *q, const tl_finding *v, size_t n, size_t top)
{
	size_t m = top && top < n ? top : n;
	tl_jsonw *w = jsonw_open(f);
	jsonw_object_begin(w);
	jsonw_array_begin_lines_m(w, "findings");
	for (size_t i = 0; i < m; i++)
		report_finding_jw(w, q, &v[i], i + 1);
	jsonw_end(w);
	jsonw_end(w);
	jsonw_close(w, "\n");
}
