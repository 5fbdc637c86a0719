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

static void
jstr(FILE *f, const char *s)
{
	fputc('"', f);
	text_json_write(f, s);
	fputc('"', f);
}

static void
jns(FILE *f, const tl_diff_finding *x)
{
	if (x)
		fprintf(f, "%" PRId64, x->ns);
	else
		fputs("null", f);
}

void
report_diff_findings_json(FILE *f, const tl_diff_side *a, const tl_diff_side *b)
{
	if (!a->have_findings || !b->have_findings)
		return;
	tl_diff_fchange *v;
	size_t n = tlq_diff_findings(a, b, &v);
	const tl_find_rule *r = tlq_find_rules();
	fputs(",\"findings\":[", f);
	for (size_t i = 0; i < n; i++) {
		const tl_diff_finding *x = v[i].a ? v[i].a : v[i].b;
		char place[256];
		fprintf(f, "%s{\"kind\":", i ? "," : "");
		jstr(f, r[x->kind].kind);
		fputs(",\"place\":", f);
		jstr(f, tlq_diff_finding_place(x, place, sizeof place));
		fputs(",\"rank\":", f);
		if (x->rank < 0 || x->rank == TL_DIFF_RANK_SINGLE)
			fputs("null", f);
		else
			fprintf(f, "%d", x->rank);
		fputs(",\"ranks_a\":", f);
		if (v[i].a && v[i].a->ranks[0])
			jstr(f, v[i].a->ranks);
		else
			fputs("null", f);
		fputs(",\"ranks_b\":", f);
		if (v[i].b && v[i].b->ranks[0])
			jstr(f, v[i].b->ranks);
		else
			fputs("null", f);
		fputs(",\"stage\":", f);
		if (x->stage[0])
			jstr(f, x->stage);
		else
			fputs("null", f);
		fputs(",\"op\":", f);
		if (x->op[0])
			jstr(f, x->op);
		else
			fputs("null", f);
		if (x->kind == TL_FIND_SLOW_LINK)
			fprintf(f, ",\"src_rank\":%d,\"dst_rank\":%d", x->src_rank, x->dst_rank);
		if (x->pp_stage >= 0)
			fprintf(f, ",\"pp_stage\":%d", x->pp_stage);
		fputs(",\"transport\":", f);
		if (x->transport)
			jstr(f, x->transport);
		else
			fputs("null", f);
		fputs(",\"a_ns\":", f);
		jns(f, v[i].a);
		fputs(",\"b_ns\":", f);
		jns(f, v[i].b);
		fprintf(f, ",\"delta_ns\":%" PRId64 ",\"a_count\":%d,\"b_count\":%d}", v[i].delta,
		        v[i].a ? v[i].a->count : 0, v[i].b ? v[i].b->count : 0);
	}
	fputs("]", f);
	free(v);
}
