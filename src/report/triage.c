/* `tl triage`: the findings, largest recoverable time first. */
#include "report/triage.h"

#include <inttypes.h>
#include <string.h>

#include "util/text.h"
#include "util/timefmt.h"

static void
jstr(FILE *f, const char *s)
{
	fputc('"', f);
	text_json_write(f, s);
	fputc('"', f);
}

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

void
report_finding_json(FILE *f, const tl_query *q, const tl_finding *x, size_t index)
{
	const tl_find_rule *r = tlq_find_rules();
	fprintf(f, "{\"index\":%zu,\"kind\":", index);
	jstr(f, r[x->kind].kind);
	fprintf(f, ",\"recoverable_ns\":%" PRId64 ",\"share\":%.6f", x->recoverable_ns, x->share);
	if (x->rank >= 0)
		fprintf(f, ",\"rank\":%d", x->rank);
	else
		fprintf(f, ",\"rank\":null");
	fprintf(f, ",\"ranks\":");
	if (x->ranks[0])
		jstr(f, x->ranks);
	else
		fprintf(f, "null");
	if (x->step >= 0)
		fprintf(f, ",\"step\":%" PRId64, x->step);
	else
		fprintf(f, ",\"step\":null");
	fprintf(f, ",\"steps\":%d,\"stage\":", x->nsteps);
	const char *s = x->stage >= 0 ? tlq_stage_name(q, x->stage) : NULL;
	if (s)
		jstr(f, s);
	else
		fprintf(f, "null");
	fprintf(f, ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64, x->start_ns, x->end_ns);
	if (x->kind == TL_FIND_SLOW_LINK)
		fprintf(f, ",\"src_rank\":%d,\"dst_rank\":%d", x->src_rank, x->dst_rank);
	if (x->pp_stage >= 0)
		fprintf(f, ",\"pp_stage\":%d", x->pp_stage);
	if (x->transport) {
		fprintf(f, ",\"transport\":");
		jstr(f, x->transport);
	}
	if (x->op[0]) {
		fprintf(f, ",\"op\":");
		jstr(f, x->op);
	}
	fprintf(f, ",\"evidence\":");
	jstr(f, x->evidence);
	fprintf(f, ",\"on_critical_path\":%s}",
	        x->on_critical_path < 0 ? "null"
	        : x->on_critical_path   ? "true"
	                                : "false");
}

void
report_triage_json(FILE *f, const tl_query *q, const tl_finding *v, size_t n, size_t top)
{
	size_t m = top && top < n ? top : n;
	fprintf(f, "{\"findings\":[");
	for (size_t i = 0; i < m; i++) {
		fprintf(f, i ? ",\n" : "\n");
		report_finding_json(f, q, &v[i], i + 1);
	}
	fprintf(f, "%s]}\n", m ? "\n" : "");
}
