#include "config.h"
#include "query/diff.h"
#include "report/report.h"
#include "report/report_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"
#include "util/timefmt.h"

/* Quantities shown in the text list of changes, and per-rank rows under each; --json has them
 * all. */
#define TEXT_CHANGES 30
#define TEXT_RANKS 3

/* ns as milliseconds with ns precision and a sign when asked. */
static void
put_ms(FILE *f, int64_t ns, int sign, int width)
{
	char buf[48];
	buf[0] = '+';
	timefmt_ms(ns, 6, buf + (sign && ns >= 0), sizeof buf - 1);
	fprintf(f, " %*s", width, buf);
}

static void
put_name(FILE *f, const char *s, int width)
{
	char buf[256];
	text_sanitize(s, buf, sizeof buf, 0);
	fprintf(f, " %-*s", width, buf);
}

static void
step_text(const tl_diff_side *a, const tl_diff_side *b, int64_t key, char *buf, size_t len)
{
	int64_t sa = tlq_diff_step_id(a, key), sb = tlq_diff_step_id(b, key);
	if (key < 0)
		snprintf(buf, len, "all");
	else if (sa == sb)
		snprintf(buf, len, "%" PRId64, sa);
	else if (sa >= 0 && sb >= 0)
		snprintf(buf, len, "%" PRId64 ":%" PRId64, sa, sb);
	else
		snprintf(buf, len, "#%" PRId64, key + 1);
}

/* Names in one list and not in the other (sorted lists of rank numbers or strings). */
static void
text_only(FILE *f, const char *label, const tl_diff_side *x, const tl_diff_side *y)
{
	int any = 0;
	for (size_t i = 0; i < x->nranks; i++) {
		int found = 0;
		for (size_t j = 0; j < y->nranks; j++)
			found |= y->ranks[j] == x->ranks[i];
		if (found)
			continue;
		if (x->ranks[i] == TL_DIFF_RANK_SINGLE)
			fprintf(f, "%s rank ?", any++ ? "," : label);
		else
			fprintf(f, "%s rank %d", any++ ? "," : label, x->ranks[i]);
	}
	for (size_t i = 0; i < x->nstages; i++) {
		int found = 0;
		for (size_t j = 0; j < y->nstages; j++)
			found |= strcmp(x->stages[i], y->stages[j]) == 0;
		if (!found && y->have_stages) {
			char n[128];
			fprintf(f, "%s stage %s", any++ ? "," : label,
			        text_sanitize(x->stages[i], n, sizeof n, 0));
		}
	}
	if (any)
		fprintf(f, "\n");
}

/* One change; a per-rank row under its all-ranks row is indented, without its kind. */
static void
text_row(FILE *f, const tl_diff_side *a, const tl_diff_side *b, const tl_diff_change *c)
{
	char st[48], rk[24], p[32];
	step_text(a, b, c->step, st, sizeof st);
	if (c->rank < 0 && c->top_rank == TL_DIFF_RANK_SINGLE)
		snprintf(rk, sizeof rk, "all(?)");
	else if (c->rank < 0 && c->top_rank >= 0)
		snprintf(rk, sizeof rk, "all(%d)", c->top_rank);
	else if (c->rank < 0)
		snprintf(rk, sizeof rk, "all");
	else if (c->rank == TL_DIFF_RANK_SINGLE)
		snprintf(rk, sizeof rk, "?");
	else
		snprintf(rk, sizeof rk, "%d", c->rank);
	if (c->rank < 0) {
		fprintf(f, "%-13s", tlq_diff_kind_name(c->kind));
		put_name(f, c->name, 36);
	} else {
		fprintf(f, "%-15s", "");
		put_name(f, c->name, 34);
	}
	fprintf(f, " %8s %8s", rk, st);
	put_ms(f, c->a, 0, 14);
	put_ms(f, c->b, 0, 14);
	put_ms(f, diff_delta(c), 1, 14);
	fprintf(f, " %8s", tlq_diff_pct_text(c, p, sizeof p));
	if (c->rank < 0 && tlq_diff_kind_is_total(c->kind)) { /* what ranked it */
		char ps[48];
		ps[0] = '+';
		timefmt_ms(c->step_delta, 3, ps + (c->step_delta >= 0), sizeof ps - 1);
		fprintf(f, "  (%s per step)", ps);
	}
	fputc('\n', f);
}

static void
text_head(FILE *f, const char *title)
{
	fprintf(f, "\n%s\n%-13s %-36s %8s %8s %14s %14s %14s %8s\n", title, "kind", "name", "rank",
	        "step", "A ms", "B ms", "delta ms", "delta %");
}

void
report_diff_text(FILE *f, const tl_diff_side *a, const tl_diff_side *b, const char *la,
                 const char *lb)
{
	size_t n;
	tl_diff_change *v;
	n = tlq_diff_changes(a, b, &v);
	char vd[512], x[256], y[256];
	tlq_diff_verdict(v, n, vd, sizeof vd);
	fprintf(f, "%s\n", vd);
	fprintf(f, "A: %s (%zu ranks, %zu steps)\nB: %s (%zu ranks, %zu steps)\n",
	        text_sanitize(la, x, sizeof x, 0), a->nranks, a->nsteps,
	        text_sanitize(lb, y, sizeof y, 0), b->nranks, b->nsteps);
	if (a->step_first >= 0)
		fprintf(f,
		        "steps: A's %" PRId64 " paired with B's %" PRId64 " (%zu of A and %zu of "
		        "B before them not compared)\n",
		        a->step_first, b->step_first, a->steps_skipped, b->steps_skipped);
	else
		fprintf(f, "steps: the n-th profiled step of A paired with the n-th of B\n");
	if (a->nranks == 1 && b->nranks == 1 && a->ranks[0] == b->ranks[0] &&
	    a->ranks[0] == TL_DIFF_RANK_SINGLE)
		fprintf(f, "one trace each, without a rank number: compared with each other\n");
	text_only(f, "only in A:", a, b);
	text_only(f, "only in B:", b, a);
	if (!a->have_stages || !b->have_stages)
		fprintf(f, "no RL stages in %s: compared by step and overlap\n",
		        !a->have_stages && !b->have_stages ? "either profile"
		        : !a->have_stages                  ? "A"
		                                           : "B");
	report_diff_findings_text(f, a, b);
	text_head(f,
	          "Changes, largest per step first: each over all ranks (all(N): the mean, N "
	          "changed most),\nthen its ranks that changed most; an operator's whole-capture "
	          "total is ranked by its change per step");
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < TEXT_CHANGES; i++) {
		if (v[i].rank >= 0 || (!tlq_diff_changed(&v[i]) && v[i].ranks_changed == 0))
			continue;
		text_row(f, a, b, &v[i]);
		shown++;
		/* its ranks, unless each changed as much as the mean says */
		size_t k = 0, same = 0, nr = 0;
		for (size_t j = i + 1; j < n && v[j].rank >= 0; j++, nr++)
			same += tlq_diff_changed(&v[j]) && diff_delta(&v[j]) == diff_delta(&v[i]);
		if (nr > 1 && same == nr) {
			fprintf(f, "%15s the same on each of its %zu ranks\n", "", nr);
			continue;
		}
		for (size_t j = i + 1; j < n && v[j].rank >= 0; j++)
			if (tlq_diff_changed(&v[j]) && k++ < TEXT_RANKS)
				text_row(f, a, b, &v[j]);
		if (k > TEXT_RANKS)
			fprintf(f, "%15s +%zu more ranks (--json lists them)\n", "",
			        k - TEXT_RANKS);
	}
	if (shown == 0)
		fprintf(f, "(none)\n");
	fprintf(f, "\nStages per step over ranks (ms: mean A, mean B, max A, max B; the rank that "
	           "changed most)\n");
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind != TL_DIFF_STAGE || v[i].rank >= 0)
			continue;
		char st[48];
		step_text(a, b, v[i].step, st, sizeof st);
		put_name(f, v[i].name, 24);
		fprintf(f, " %8s", st);
		put_ms(f, v[i].a, 0, 14);
		put_ms(f, v[i].b, 0, 14);
		put_ms(f, v[i].max_a, 0, 14);
		put_ms(f, v[i].max_b, 0, 14);
		if (v[i].top_rank == TL_DIFF_RANK_SINGLE)
			fprintf(f, "  rank ?");
		else if (v[i].top_rank >= 0)
			fprintf(f, "  rank %d", v[i].top_rank);
		fprintf(f, "\n");
	}
	free(v);
}

/* A rank in JSON: null over all ranks, or for the only rank when its number is unknown. */
static void
json_rank(tl_jsonw *w, const char *key, int rank)
{
	jsonw_i64_or_null_m(w, key, rank, rank >= 0 && rank != TL_DIFF_RANK_SINGLE);
}

static void
json_change(tl_jsonw *w, const tl_diff_side *a, const tl_diff_side *b, const tl_diff_change *c,
            int full)
{
	jsonw_object_begin(w);
	jsonw_str_m(w, "kind", tlq_diff_kind_name(c->kind));
	jsonw_str_m(w, "name", c->name);
	json_rank(w, "rank", c->rank);
	int64_t sa = tlq_diff_step_id(a, c->step), sb = tlq_diff_step_id(b, c->step);
	jsonw_i64_or_null_m(w, "step", sa, sa >= 0);
	jsonw_i64_or_null_m(w, "step_b", sb, sb >= 0);
	jsonw_i64_or_null_m(w, "a_ns", c->a, c->has_a);
	jsonw_i64_or_null_m(w, "b_ns", c->b, c->has_b);
	jsonw_i64_m(w, "delta_ns", diff_delta(c));
	double p;
	if (c->has_a && c->has_b && tlq_diff_pct(c, &p))
		jsonw_double_m(w, "delta_pct", "%.3f", p);
	else
		jsonw_null_m(w, "delta_pct");
	jsonw_i64_m(w, "step_delta_ns", c->step_delta);
	if (c->rank < 0)
		jsonw_u64_m(w, "ranks_changed", c->ranks_changed);
	if (full) {
		jsonw_i64_m(w, "a_max_ns", c->max_a);
		jsonw_i64_m(w, "b_max_ns", c->max_b);
		jsonw_u64_m(w, "a_count", c->count_a);
		jsonw_u64_m(w, "b_count", c->count_b);
		jsonw_u64_m(w, "a_ranks", c->nranks_a);
		jsonw_u64_m(w, "b_ranks", c->nranks_b);
		json_rank(w, "top_rank", c->top_rank);
	}
	jsonw_end(w);
}

/* What x has that y does not: ranks and stages. */
static void
json_only(tl_jsonw *w, const char *key, const tl_diff_side *x, const tl_diff_side *y)
{
	jsonw_object_begin_m(w, key);
	jsonw_array_begin_m(w, "ranks");
	for (size_t i = 0; i < x->nranks; i++) {
		int found = 0;
		for (size_t j = 0; j < y->nranks; j++)
			found |= y->ranks[j] == x->ranks[i];
		if (!found && x->ranks[i] == TL_DIFF_RANK_SINGLE)
			jsonw_null(w);
		else if (!found)
			jsonw_i64(w, x->ranks[i]);
	}
	jsonw_end(w);
	jsonw_array_begin_m(w, "stages");
	for (size_t i = 0; i < x->nstages; i++) {
		int found = 0;
		for (size_t j = 0; j < y->nstages; j++)
			found |= strcmp(x->stages[i], y->stages[j]) == 0;
		if (!found && y->have_stages)
			jsonw_str(w, x->stages[i]);
	}
	jsonw_end(w);
	jsonw_end(w);
}

/* Every row of one kind, over all ranks and per rank, ordered like changes. */
static void
json_kind(tl_jsonw *w, const char *member, const tl_diff_side *a, const tl_diff_side *b,
          tl_diff_change *v, size_t n, tl_diff_kind k)
{
	jsonw_array_begin_m(w, member);
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == k)
			json_change(w, a, b, &v[i], 1);
	jsonw_end(w);
}

void
report_diff_json(FILE *f, const tl_diff_side *a, const tl_diff_side *b)
{
	size_t n;
	tl_diff_change *v;
	n = tlq_diff_changes(a, b, &v);
	char vd[512];
	tlq_diff_verdict(v, n, vd, sizeof vd);
	tl_jsonw *w = jsonw_open(f);
	jsonw_object_begin(w);
	jsonw_str_m(w, "verdict", vd);
	jsonw_array_begin_m(w, "changes");
	for (size_t i = 0; i < n; i++)
		if (tlq_diff_changed(&v[i]))
			json_change(w, a, b, &v[i], 0);
	jsonw_end(w);
	json_kind(w, "stages", a, b, v, n, TL_DIFF_STAGE);
	json_kind(w, "operators", a, b, v, n, TL_DIFF_OPERATOR);
	json_kind(w, "overlap", a, b, v, n, TL_DIFF_OVERLAP);
	json_kind(w, "communication", a, b, v, n, TL_DIFF_COMM);
	json_kind(w, "bubbles", a, b, v, n, TL_DIFF_BUBBLE);
	report_diff_findings_json(w, a, b);
	json_only(w, "only_in_a", a, b);
	json_only(w, "only_in_b", b, a);
	jsonw_u64_m(w, "a_steps", a->nsteps);
	jsonw_u64_m(w, "b_steps", b->nsteps);
	jsonw_end(w);
	jsonw_close(w, "\n");
	free(v);
}
