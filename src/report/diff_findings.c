/* tl diff's findings (report_int.h): the places whose recoverable time changed, largest change
 * first, from query/diff_findings.c. */
#include "config.h"
#include "query/diff.h"
#include "query/findings.h"
#include "report/report_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"
#include "util/timefmt.h"

/* Rows of the text section; --json has every place. */
#define TEXT_FINDINGS 10

static void
put_ms(FILE *f, int64_t ns, int sign, int width)
{
	char buf[48];
	buf[0] = '+';
	timefmt_ms(ns, 3, buf + (sign && ns >= 0), sizeof buf - 1);
	fprintf(f, " %*s", width, buf);
}

void
report_diff_findings_text(FILE *f, const tl_diff_side *a, const tl_diff_side *b)
{
	if (!a->have_findings || !b->have_findings)
		return;
	tl_diff_fchange *v;
	size_t n = tlq_diff_findings(a, b, &v), shown = 0;
	fprintf(f,
	        "\nFindings that changed, largest change first (tl triage's: ms it would save "
	        "per capture)\n%-22s %-40s %11s %11s %11s\n",
	        "kind", "place", "A ms", "B ms", "delta ms");
	const tl_find_rule *r = tlq_find_rules();
	for (size_t i = 0; i < n && shown < TEXT_FINDINGS; i++) {
		if (v[i].delta == 0)
			continue;
		const tl_diff_finding *x = v[i].a ? v[i].a : v[i].b;
		char place[256], safe[256];
		tlq_diff_finding_place(x, place, sizeof place);
		fprintf(f, "%-22s %-40s", r[x->kind].kind,
		        text_sanitize(place, safe, sizeof safe, 0));
		if (v[i].a)
			put_ms(f, v[i].a->ns, 0, 11);
		else
			fprintf(f, " %11s", "-");
		if (v[i].b)
			put_ms(f, v[i].b->ns, 0, 11);
		else
			fprintf(f, " %11s", "-");
		put_ms(f, v[i].delta, 1, 11);
		fprintf(f, "%s\n", !v[i].a ? "  new" : !v[i].b ? "  gone" : "");
		shown++;
	}
	size_t more = 0;
	for (size_t i = 0; i < n; i++)
		more += v[i].delta != 0;
	if (shown == 0)
		fprintf(f, "(none: %zu in both, unchanged)\n", n);
	else if (more > shown)
		fprintf(f, "(%zu more: --json lists them all)\n", more - shown);
	free(v);
}

/* A finding's time on one side, null when the side does not have it. */
static void
jns(tl_jsonw *w, const char *key, const tl_diff_finding *x)
{
	jsonw_i64_or_null_m(w, key, x ? x->ns : 0, x != NULL);
}

void
report_diff_findings_json(tl_jsonw *w, const tl_diff_side *a, const tl_diff_side *b)
{
	if (!a->have_findings || !b->have_findings)
		return;
	tl_diff_fchange *v;
	size_t n = tlq_diff_findings(a, b, &v);
	const tl_find_rule *r = tlq_find_rules();
	jsonw_array_begin_m(w, "findings");
	for (size_t i = 0; i < n; i++) {
		const tl_diff_finding *x = v[i].a ? v[i].a : v[i].b;
		char place[256];
		jsonw_object_begin(w);
		jsonw_str_m(w, "kind", r[x->kind].kind);
		jsonw_str_m(w, "place", tlq_diff_finding_place(x, place, sizeof place));
		jsonw_i64_or_null_m(w, "rank", x->rank,
		                    x->rank >= 0 && x->rank != TL_DIFF_RANK_SINGLE);
		jsonw_str_m(w, "ranks_a", v[i].a && v[i].a->ranks[0] ? v[i].a->ranks : NULL);
		jsonw_str_m(w, "ranks_b", v[i].b && v[i].b->ranks[0] ? v[i].b->ranks : NULL);
		jsonw_str_m(w, "stage", x->stage[0] ? x->stage : NULL);
		jsonw_str_m(w, "op", x->op[0] ? x->op : NULL);
		if (x->kind == TL_FIND_SLOW_LINK) {
			jsonw_i64_m(w, "src_rank", x->src_rank);
			jsonw_i64_m(w, "dst_rank", x->dst_rank);
		}
		if (x->pp_stage >= 0)
			jsonw_i64_m(w, "pp_stage", x->pp_stage);
		jsonw_str_m(w, "transport", x->transport);
		jns(w, "a_ns", v[i].a);
		jns(w, "b_ns", v[i].b);
		jsonw_i64_m(w, "delta_ns", v[i].delta);
		jsonw_i64_m(w, "a_count", v[i].a ? v[i].a->count : 0);
		jsonw_i64_m(w, "b_count", v[i].b ? v[i].b->count : 0);
		jsonw_end(w);
	}
	jsonw_end(w);
	free(v);
}
