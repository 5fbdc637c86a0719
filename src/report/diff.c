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

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	text_json_write(f, s);
	fputc('"', f);
}

static void
json_step(FILE *f, int64_t id)
{
	if (id < 0)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, id);
}

static void
json_change(FILE *f, const tl_diff_side *a, const tl_diff_side *b, const tl_diff_change *c,
            int full)
{
	fprintf(f, "{\"kind\":\"%s\",\"name\":", tlq_diff_kind_name(c->kind));
	json_str(f, c->name);
	fputs(",\"rank\":", f);
	if (c->rank < 0 || c->rank == TL_DIFF_RANK_SINGLE)
		fputs("null", f); /* over all ranks, or the only rank, its number unknown */
	else
		fprintf(f, "%d", c->rank);
	fputs(",\"step\":", f);
	json_step(f, tlq_diff_step_id(a, c->step));
	fputs(",\"step_b\":", f);
	json_step(f, tlq_diff_step_id(b, c->step));
	fputs(",\"a_ns\":", f);
	if (c->has_a)
		fprintf(f, "%" PRId64, c->a);
	else
		fputs("null", f);
	fputs(",\"b_ns\":", f);
	if (c->has_b)
		fprintf(f, "%" PRId64, c->b);
	else
		fputs("null", f);
	fprintf(f, ",\"delta_ns\":%" PRId64 ",\"delta_pct\":", diff_delta(c));
	double p;
	if (c->has_a && c->has_b && tlq_diff_pct(c, &p))
		fprintf(f, "%.3f", p);
	else
		fputs("null", f);
	fprintf(f, ",\"step_delta_ns\":%" PRId64, c->step_delta);
	if (c->rank < 0)
		fprintf(f, ",\"ranks_changed\":%zu", c->ranks_changed);
	if (full) {
		fprintf(f,
		        ",\"a_max_ns\":%" PRId64 ",\"b_max_ns\":%" PRId64 ",\"a_count\":%" PRIu64
		        ",\"b_count\":%" PRIu64 ",\"a_ranks\":%zu,\"b_ranks\":%zu,\"top_rank\":",
		        c->max_a, c->max_b, c->count_a, c->count_b, c->nranks_a, c->nranks_b);
		if (c->top_rank < 0 || c->top_rank == TL_DIFF_RANK_SINGLE)
			fputs("null", f);
		else
			fprintf(f, "%d", c->top_rank);
	}
	fputc('}', f);
}

static void
json_only(FILE *f, const tl_diff_side *x, const tl_diff_side *y)
{
	fputs("{\"ranks\":[", f);
	int any = 0;
	for (size_t i = 0; i < x->nranks; i++) {
		int found = 0;
		for (size_t j = 0; j < y->nranks; j++)
			found |= y->ranks[j] == x->ranks[i];
		if (!found && x->ranks[i] == TL_DIFF_RANK_SINGLE)
			fprintf(f, "%snull", any++ ? "," : "");
		else if (!found)
			fprintf(f, "%s%d", any++ ? "," : "", x->ranks[i]);
	}
	fputs("],\"stages\":[", f);
	any = 0;
	for (size_t i = 0; i < x->nstages; i++) {
		int found = 0;
		for (size_t j = 0; j < y->nstages; j++)
			found |= strcmp(x->stages[i], y->stages[j]) == 0;
		if (!found && y->have_stages) {
			fputs(any++ ? "," : "", f);
			json_str(f, x->stages[i]);
		}
	}
	fputs("]}", f);
}

/* Every row of one kind, over all ranks and per rank, ordered like changes. */
static void
json_kind(FILE *f, const char *member, const tl_diff_side *a, const tl_diff_side *b,
          tl_diff_change *v, size_t n, tl_diff_kind k)
{
	fprintf(f, ",\"%s\":[", member);
	int any = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == k) {
			fputs(any++ ? "," : "", f);
			json_change(f, a, b, &v[i], 1);
		}
	fputs("]", f);
}

void
report_diff_json(FILE *f, const tl_diff_side *a, const tl_diff_side *b)
{
	size_t n;
	tl_diff_change *v;
	n = tlq_diff_changes(a, b, &v);
	char vd[512];
	tlq_diff_verdict(v, n, vd, sizeof vd);
	fputs("{\"verdict\":", f);
	json_str(f, vd);
	fputs(",\"changes\":[", f);
	int any = 0;
	for (size_t i = 0; i < n; i++)
		if (tlq_diff_changed(&v[i])) {
			fputs(any++ ? "," : "", f);
			json_change(f, a, b, &v[i], 0);
		}
	fputs("]", f);
	json_kind(f, "stages", a, b, v, n, TL_DIFF_STAGE);
	json_kind(f, "operators", a, b, v, n, TL_DIFF_OPERATOR);
	json_kind(f, "overlap", a, b, v, n, TL_DIFF_OVERLAP);
	json_kind(f, "communication", a, b, v, n, TL_DIFF_COMM);
	json_kind(f, "bubbles", a, b, v, n, TL_DIFF_BUBBLE);
	report_diff_findings_json(f, a, b);
	fputs(",\"only_in_a\":", f);
	json_only(f, a, b);
	fputs(",\"only_in_b\":", f);
	json_only(f, b, a);
	fprintf(f, ",\"a_steps\":%zu,\"b_steps\":%zu}\n", a->nsteps, b->nsteps);
	free(v);
}
