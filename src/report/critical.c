/* `tl critical`: each step's critical path across ranks (query/critpath.c), its blame table and
 * longest segments, and what a what-if predicts; text and JSON. */
#include "config.h"
#include "report/report.h"
#include "report/report_int.h"
#include "util/jsonw.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TOP_SEGMENTS 10
#define TOP_OPS 10

static const char *
stage_of(const tl_query *q, int stage)
{
	const char *s = stage >= 0 ? tlq_stage_name(q, stage) : NULL;
	return s != NULL ? s : "";
}

/* One step's path as an object: its segments, blame and operators. */
static void
step_json(tl_jsonw *w, const tl_query *q, const cp_step *s)
{
	jsonw_object_begin(w);
	jsonw_i64_or_null_m(w, "step", s->step, s->step >= 0);
	jsonw_i64_m(w, "start_ns", s->start);
	jsonw_i64_m(w, "end_ns", s->end);
	jsonw_i64_m(w, "duration_ns", s->end - s->start);
	jsonw_u64_m(w, "collectives", s->collectives);
	jsonw_u64_m(w, "rank_changes", s->jumps);
	jsonw_array_begin_m(w, "segments");
	for (size_t k = 0; k < s->nseg; k++) {
		const cp_seg *g = &s->seg[k];
		jsonw_object_begin(w);
		report_jw_rank(w, "rank", cp_seg_rank(s, g));
		jsonw_i64_m(w, "start_ns", g->start);
		jsonw_i64_m(w, "end_ns", cp_seg_end(s, k));
		jsonw_str_m(w, "kind", tlq_cp_kind_name(g->kind));
		int st = cp_seg_stage(s, g);
		jsonw_str_m(w, "stage", st >= 0 ? stage_of(q, st) : NULL);
		jsonw_str_m(w, "name", cp_seg_name(s, g));
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_array_begin_m(w, "blame");
	for (size_t k = 0; k < s->nblame; k++) {
		jsonw_object_begin(w);
		report_jw_rank(w, "rank", s->blame[k].rank);
		jsonw_str_m(w, "kind", tlq_cp_kind_name(s->blame[k].kind));
		jsonw_i64_m(w, "ns", s->blame[k].ns);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_array_begin_m(w, "operators");
	for (size_t k = 0; k < s->nops && k < TOP_OPS; k++) {
		jsonw_object_begin(w);
		jsonw_str_m(w, "name", s->ops[k].name);
		jsonw_i64_m(w, "ns", s->ops[k].ns);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_end(w);
}

void
report_critical_json(FILE *f, const tl_query *q, const tl_cp_result *r, const char *whatif)
{
	tl_jsonw *w = jsonw_open(f);
	jsonw_object_begin(w);
	jsonw_array_begin_m(w, "critical_path");
	for (size_t i = 0; i < r->n; i++)
		step_json(w, q, &r->steps[i]);
	jsonw_end(w);
	jsonw_array_begin_m(w, "top_operators");
	for (size_t k = 0; k < r->nops && k < TOP_OPS; k++) {
		jsonw_object_begin(w);
		jsonw_str_m(w, "name", r->ops[k].name);
		jsonw_i64_m(w, "ns", r->ops[k].ns);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_array_begin_m(w, "top_ranks");
	for (size_t k = 0; k < r->nranks; k++) {
		jsonw_object_begin(w);
		report_jw_rank(w, "rank", r->ranks[k].rank);
		jsonw_i64_m(w, "ns", r->ranks[k].ns);
		jsonw_end(w);
	}
	jsonw_end(w);
	if (r->whatif != NULL) {
		jsonw_object_begin_m(w, "what_if");
		jsonw_str_m(w, "spec", whatif != NULL ? whatif : "");
		jsonw_array_begin_m(w, "steps");
		for (size_t i = 0; i < r->n; i++) {
			const cp_step *a = &r->steps[i], *b = &r->whatif[i];
			jsonw_object_begin(w);
			jsonw_i64_or_null_m(w, "step", a->step, a->step >= 0);
			jsonw_i64_m(w, "duration_ns", a->end - a->start);
			jsonw_i64_m(w, "predicted_ns", b->end - b->start);
			jsonw_key(w, "path");
			step_json(w, q, b);
			jsonw_end(w);
		}
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_close(w, "\n");
}

/* One step: its line, the blame table, its nsegs longest segments and (nops > 0) its nops
 * longest compute names. */
static void
step_text(FILE *f, const tl_query *q, const cp_step *s, size_t nsegs, size_t nops)
{
	char a[48], b[48];
	int64_t len = s->end - s->start;
	if (s->step < 0)
		fprintf(f, "critical path of the whole trace (no steps): %s ms",
		        timefmt_ms(len, 3, a, sizeof a));
	else
		fprintf(f, "critical path of step %" PRId64 ": %s ms", s->step,
		        timefmt_ms(len, 3, a, sizeof a));
	fprintf(f, ", %zu segments, %zu changes of rank, %zu collectives matched\n", s->nseg,
	        s->jumps, s->collectives);
	/* blame: one row per rank, one column per kind */
	fprintf(f, "  %-6s", "rank");
	for (int k = 0; k < CP__COUNT; k++)
		fprintf(f, " %13s", tlq_cp_kind_name(k));
	fprintf(f, " %13s %6s\n", "total", "%");
	for (size_t i = 0; i < s->nblame;) {
		int rank = s->blame[i].rank;
		int64_t v[CP__COUNT] = {0}, tot = 0;
		size_t j = i;
		for (; j < s->nblame && s->blame[j].rank == rank; j++) {
			v[s->blame[j].kind] = s->blame[j].ns;
			tot += s->blame[j].ns;
		}
		if (rank < 0)
			fprintf(f, "  %-6s", "-");
		else
			fprintf(f, "  %-6d", rank);
		for (int k = 0; k < CP__COUNT; k++)
			fprintf(f, " %13s", v[k] ? timefmt_ms(v[k], 3, a, sizeof a) : "-");
		fprintf(f, " %13s %5.1f%%\n", timefmt_ms(tot, 3, b, sizeof b),
		        len > 0 ? 100.0 * (double)tot / (double)len : 0.0);
		i = j;
	}
	if (s->nseg == 0 || nsegs == 0)
		return;
	/* the nsegs longest: a lean step kept them (tlq_critical_start) */
	cp_long *v = NULL;
	size_t nv;
	if (s->seg == NULL) {
		nv = nsegs < s->nlong ? nsegs : s->nlong;
	} else {
		v = xcalloc(nsegs, sizeof *v);
		nv = tlq_cp_longest(s, nsegs, v);
	}
	const cp_long *lv = v != NULL ? v : s->longest;
	fprintf(f, "  longest segments (ms from the start of the step):\n");
	for (size_t k = 0; k < nv; k++) {
		char nm[96], st[48]; /* a profile's names and stages: sanitized and cut */
		const cp_seg *g = &lv[k].g;
		text_sanitize(cp_seg_name(s, g), nm, sizeof nm, 1);
		text_sanitize(stage_of(q, cp_seg_stage(s, g)), st, sizeof st, 1);
		char line[256];
		int w = snprintf(line, sizeof line, "    rank %-4s %13s  at %12s  %-13s %-12s %s",
		                 RANK_TXT(cp_seg_rank(s, g)), timefmt_ms(lv[k].len, 3, a, sizeof a),
		                 timefmt_ms(g->start - s->start, 3, b, sizeof b),
		                 tlq_cp_kind_name(g->kind), st, nm);
		size_t e = w < 0 ? 0 : (size_t)w < sizeof line ? (size_t)w : sizeof line - 1;
		while (e > 0 && line[e - 1] == ' ') /* no trailing blanks without a name */
			e--;
		fprintf(f, "%.*s\n", (int)e, line);
	}
	free(v);
	if (s->nops > 0 && nops > 0) {
		fprintf(f, "  compute on the path by name:\n");
		for (size_t k = 0; k < s->nops && k < nops; k++) {
			char nm[96];
			fprintf(f, "    %13s  %s\n", timefmt_ms(s->ops[k].ns, 3, a, sizeof a),
			        text_sanitize(s->ops[k].name, nm, sizeof nm, 1));
		}
	}
}

void
report_critical_text(FILE *f, const tl_query *q, const tl_cp_result *r, const char *whatif)
{
	if (r->n == 0) {
		fprintf(f, "no steps and no device work: no critical path\n");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			fputc('\n', f);
		step_text(f, q, &r->steps[i], TOP_SEGMENTS, 5);
	}
	char a[48], b[48];
	if (r->n > 1 && r->nranks > 0) {
		fprintf(f, "\nover all %zu steps, path time by rank:", r->n);
		for (size_t k = 0; k < r->nranks && k < 8; k++)
			if (r->ranks[k].rank < 0)
				fprintf(f, " -: %s ms", timefmt_ms(r->ranks[k].ns, 3, a, sizeof a));
			else
				fprintf(f, " %d: %s ms", r->ranks[k].rank,
				        timefmt_ms(r->ranks[k].ns, 3, a, sizeof a));
		fputc('\n', f);
	}
	if (r->whatif == NULL)
		return;
	char spec[256];
	fprintf(f, "\nwhat-if %s (the same graph, durations scaled; not a new schedule):\n",
	        text_sanitize(whatif != NULL ? whatif : "", spec, sizeof spec, 1));
	for (size_t i = 0; i < r->n; i++) {
		int64_t x = r->steps[i].end - r->steps[i].start,
		        y = r->whatif[i].end - r->whatif[i].start;
		if (r->steps[i].step < 0)
			fprintf(f, "  whole trace: ");
		else
			fprintf(f, "  step %" PRId64 ": ", r->steps[i].step);
		fprintf(f, "%s ms -> %s ms (%+.1f%%)\n", timefmt_ms(x, 3, a, sizeof a),
		        timefmt_ms(y, 3, b, sizeof b),
		        x > 0 ? 100.0 * (double)(y - x) / (double)x : 0.0);
	}
}

void
report_critical_summary_json(tl_jsonw *w, const tl_query *q, const tl_cp_result *r)
{
	jsonw_array_begin_m(w, "critical_path");
	for (size_t i = 0; i < r->n; i++)
		step_json(w, q, &r->steps[i]);
	jsonw_end(w);
}

void
report_critical_summary_text(FILE *f, const tl_query *q, const tl_cp_result *r)
{
	if (r->n == 0)
		return;
	fprintf(f, "\nCritical path per step (the chain of work across ranks that set the "
	           "length of each step;\nblame: its time by rank and kind, ms; `tl critical` for "
	           "all of it)\n");
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			fputc('\n', f);
		step_text(f, q, &r->steps[i], REPORT_SUMMARY_SEGMENTS, 0);
	}
}
