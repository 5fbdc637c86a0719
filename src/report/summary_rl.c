/* The RL sections of `tl summary`: stages, DP imbalance, pipeline, slow ranks, bubbles -- as
 * aligned text and as the JSON members that follow "ranks" (names fixed: scripts read
 * them; documented in tl(1)). Every number comes from the query layer. */
#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "report/report_int.h"
#include "util/text.h"
#include "util/timefmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static char *
step_str(char *buf, size_t len, int64_t step)
{
	if (step < 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%" PRId64, step);
	return buf;
}

/* Untrusted names (ranges, roles, ops) sanitized for a terminal. */
static const char *
clean(const char *s, char *buf, size_t len)
{
	return text_sanitize(s ? s : "", buf, len, 1);
}

/* Columns of a UTF-8 string (sanitized text: one column per code point). */
static int
text_cols(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* s, then spaces up to w columns (printf's %-*s counts bytes, not columns). */
static void
put_col(FILE *f, const char *s, int w)
{
	fputs(s, f);
	for (int n = text_cols(s); n < w; n++)
		fputc(' ', f);
}

#define STAGE_W 14 /* the stage column: at least this wide, wider for longer stage names */

/* The width of the stage column over stage indexes st[0..n) (stride bytes apart). */
static int
stage_col_width(const tl_query *rl, const int *st, size_t n, size_t stride)
{
	int w = STAGE_W;
	for (size_t i = 0; i < n; i++) {
		int k = *(const int *)(const void *)((const char *)st + i * stride);
		const char *nm = tlq_stage_name(rl, k);
		char sn[160];
		int c = nm ? text_cols(clean(nm, sn, sizeof sn)) : 1;
		if (c > w)
			w = c;
	}
	return w;
}

static void
text_stages(FILE *f, const tl_trace *tr, const tl_query *rl)
{
	const tl_stage_row *v;
	size_t n = tlq_stages(rl, &v);
	fprintf(f, "\n");
	if (n == 0) {
		fprintf(f,
		        "RL stages: none found. No MSTX or record_function range matches a stage "
		        "rule\n(see STAGE RULES in tl(1)), and no capture sits in a verl or "
		        "MindSpeed-RL role directory.\n");
		return;
	}
	fprintf(f,
	        "RL stages per rank and step (ms from the profile start; busy = device busy "
	        "inside;\nlag = end - earliest end of the same stage and step over the ranks)\n");
	int sw = n ? stage_col_width(rl, &v[0].stage, n, sizeof *v) : STAGE_W;
	fprintf(f, "%6s %8s  ", "rank", "step");
	put_col(f, "stage", sw);
	fprintf(f, " %14s %14s %14s %14s %14s  %s\n", "start", "end", "duration", "busy", "lag",
	        "range");
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], c[32], d[32], e[32], st[24], nm[160], sn[160];
		fprintf(f, "%6s %8s  ", RANK_TXT(tr->ranks[v[i].rank]->rank),
		        step_str(st, sizeof st, v[i].step));
		put_col(f, clean(tlq_stage_name(rl, v[i].stage), sn, sizeof sn), sw);
		fprintf(f, " %14s %14s %14s %14s %14s  %s%s\n",
		        timefmt_ms(v[i].start - tr->t_min, 6, a, sizeof a),
		        timefmt_ms(v[i].end - tr->t_min, 6, b, sizeof b),
		        timefmt_ms(v[i].end - v[i].start, 6, c, sizeof c),
		        timefmt_ms(v[i].busy, 6, d, sizeof d), timefmt_ms(v[i].lag, 6, e, sizeof e),
		        clean(v[i].range, nm, sizeof nm),
		        v[i].from_role ? " (role directory)"
		        : v[i].device  ? " (device times)"
		                       : "");
	}
}

static void
text_imbalance(FILE *f, const tl_trace *tr, const tl_query *rl)
{
	const tl_imbalance *v;
	size_t n = tlq_imbalances(rl, &v);
	fprintf(f, "\n");
	if (tr->nranks < 2) {
		fprintf(f, "DP load imbalance: needs at least two ranks; this profile has %zu.\n",
		        tr->nranks);
		return;
	}
	if (n == 0) {
		fprintf(f, "DP load imbalance: no RL stage ran on two ranks or more.\n");
		return;
	}
	fprintf(
	    f, "DP load imbalance per stage and step (ms; wait = latest end of the stage - own "
	       "end;\ndecode = decode steps inside, - where no decode range or ProfilerStep counts "
	       "them;\nidle = device idle share of the duration)\n");
	for (size_t i = 0; i < n; i++) {
		const tl_imbalance *im = &v[i];
		char st[24], sk[32], sn[160], lr[48] = "";
		if (im->st.longest != im->st.slowest)
			snprintf(lr, sizeof lr, ", longest running rank %s",
			         RANK_TXT(tr->ranks[im->ranks[im->st.longest].rank]->rank));
		fprintf(f,
		        "stage %s, step %s: max/mean %.4f, cv %.4f, last to finish rank %s%s, skew "
		        "%s ms\n",
		        clean(tlq_stage_name(rl, im->stage), sn, sizeof sn),
		        step_str(st, sizeof st, im->step), im->st.max_over_mean, im->st.cv,
		        RANK_TXT(tr->ranks[im->ranks[im->st.slowest].rank]->rank), lr,
		        timefmt_ms(im->st.skew, 6, sk, sizeof sk));
		fprintf(f, "%8s %14s %14s %7s %7s\n", "rank", "duration", "wait", "decode", "idle");
		for (size_t k = 0; k < im->n; k++) {
			const tl_imb_rank *x = &im->ranks[k];
			char a[32], b[32], dc[16];
			if (x->decode_steps >= 0)
				snprintf(dc, sizeof dc, "%d", x->decode_steps);
			else
				snprintf(dc, sizeof dc, "-");
			fprintf(f, "%8s %14s %14s %7s %6.1f%%\n",
			        RANK_TXT(tr->ranks[x->rank]->rank),
			        timefmt_ms(x->duration, 6, a, sizeof a),
			        timefmt_ms(x->wait, 6, b, sizeof b), dc, x->idle_fraction * 100);
		}
	}
}

static void
rank_list(FILE *f, const tl_trace *tr, const size_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", RANK_TXT(tr->ranks[v[i]]->rank));
	if (n == 0)
		fprintf(f, "-");
}

static void
text_pipeline(FILE *f, const tl_trace *tr, const tl_query *rl)
{
	const tl_pipeline *p = tlq_pipeline(rl);
	fprintf(f, "\n");
	if (p->nsteps == 0) {
		char why[256];
		fprintf(f, "%s\n", tlq_pipeline_absence(rl, p, why, sizeof why));
		return;
	}
	fprintf(f,
	        "Pipeline parallelism: %d PP stages (from %s)%s; bubble = idle share of the "
	        "step's pipeline span\n",
	        p->npp, tlq_pipeline_source_name(p->source),
	        p->ranks_from_ops == 0 ? ""
	        : p->ranks_from_ops == p->ranks_with_blocks
	            ? ", blocks from forward/backward operator pairs"
	            : ", some ranks' blocks from forward/backward operator pairs");
	for (size_t k = 0; k < p->nsteps; k++) {
		const tl_pp_step *s = &p->steps[k];
		char st[24], sp[32];
		fprintf(f, "step %s: span %s ms, %zu P2P transfers paired\n",
		        step_str(st, sizeof st, s->step),
		        timefmt_ms(s->end - s->start, 6, sp, sizeof sp), s->nlinks);
		fprintf(f, "%4s  %-12s %7s  %s\n", "pp", "ranks", "bubble",
		        "blocks (F/B and micro-batch, in time order)");
		for (size_t i = 0; i < s->nstages; i++) {
			const tl_pp_stage *ps = &s->stages[i];
			char rk[64];
			FILE *m = fmemopen(rk, sizeof rk, "w");
			if (m) {
				rank_list(m, tr, ps->ranks, ps->nranks);
				fclose(m);
			} else {
				snprintf(rk, sizeof rk, "?");
			}
			fprintf(f, "%4d  %-12s %6.2f%% ", ps->pp_stage, rk, ps->bubble_ratio * 100);
			for (size_t b = 0; b < ps->nblocks; b++)
				fprintf(f, " %c%d", ps->blocks[b].kind, ps->blocks[b].microbatch);
			if (ps->nblocks == 0)
				fprintf(f, " (no blocks in this step)");
			fprintf(f, "\n");
		}
	}
}

static void
text_slow(FILE *f, const tl_trace *tr, const tl_query *rl)
{
	const tl_slow_result *s = tlq_slow_ranks(rl);
	fprintf(f, "\n");
	if (tr->nranks < 2) {
		fprintf(f, "Slow ranks: needs at least two ranks; this profile has %zu.\n",
		        tr->nranks);
		return;
	}
	if (s->instances == 0) {
		fprintf(f, "Slow ranks: no collective communication ops to compare.\n");
	} else if (s->n == 0) {
		fprintf(f,
		        "Slow ranks: none (%zu collective instances examined, no rank was an "
		        "outlier).\n",
		        s->instances);
	} else {
		fprintf(f,
		        "Slow ranks (msprof-analyze slow_rank votes: collective instances in which "
		        "the rank\narrived last, its op the outlying shortest; %zu instances "
		        "examined, %zu group%s not aligned)\n",
		        s->instances, s->groups_dropped, s->groups_dropped == 1 ? "" : "s");
		fprintf(f, "%6s %7s\n", "rank", "votes");
		for (size_t i = 0; i < s->n; i++)
			fprintf(f, "%6s %7u\n", RANK_TXT(tr->ranks[s->v[i].rank]->rank),
			        s->v[i].votes);
	}
	const tl_imbalance *v;
	size_t n = tlq_imbalances(rl, &v);
	if (n == 0)
		return;
	fprintf(f, "Stage skew (the rank that ends each stage last, and how long after the first "
	           "rank)\n");
	int sw = stage_col_width(rl, &v[0].stage, n, sizeof *v);
	fprintf(f, "%8s  ", "step");
	put_col(f, "stage", sw);
	fprintf(f, " %9s %14s\n", "last rank", "skew");
	for (size_t i = 0; i < n; i++) {
		char st[24], sk[32], sn[160];
		fprintf(f, "%8s  ", step_str(st, sizeof st, v[i].step));
		put_col(f, clean(tlq_stage_name(rl, v[i].stage), sn, sizeof sn), sw);
		fprintf(f, " %9s %14s\n",
		        RANK_TXT(tr->ranks[v[i].ranks[v[i].st.slowest].rank]->rank),
		        timefmt_ms(v[i].st.skew, 6, sk, sizeof sk));
	}
}

static void
text_bubbles(FILE *f, const tl_trace *tr, const tl_query *rl)
{
	const tl_rl_bubble *v;
	size_t n = tlq_bubbles(rl, &v);
	fprintf(f, "\n");
	if (n == 0) {
		fprintf(f, "Bubbles: none (no idle gap between device work on any rank).\n");
		return;
	}
	fprintf(f, "Largest bubbles per rank (device idle: neither compute nor communication; the "
	           "longest\nfirst; ms from the profile start)\n");
	int sw = stage_col_width(rl, &v[0].stage, n, sizeof *v);
	fprintf(f, "%6s %14s %14s %13s  ", "rank", "start", "duration", "step");
	put_col(f, "stage", sw);
	fprintf(f, " %-18s %s\n", "reason", "detail");
	for (size_t i = 0; i < n; i++) {
		char a[32], b[32], st[32], d[200], snb[160];
		const char *sn = tlq_stage_name(rl, v[i].stage);
		if (sn)
			sn = clean(sn, snb, sizeof snb);
		fprintf(f, "%6s %14s %14s %13s  ", RANK_TXT(tr->ranks[v[i].rank]->rank),
		        timefmt_ms(v[i].start - tr->t_min, 6, a, sizeof a),
		        timefmt_ms(v[i].end - v[i].start, 6, b, sizeof b),
		        tlq_bubble_step_text(&v[i], "all", st, sizeof st));
		put_col(f, sn ? sn : "-", sw);
		fprintf(f, " %-18s %s\n", tlq_bubble_reason_name(v[i].reason),
		        clean(v[i].detail, d, sizeof d));
	}
}

void
report_rl_text(FILE *f, const tl_query *rl)
{
	const tl_trace *tr = tlq_trace(rl);
	text_stages(f, tr, rl);
	text_imbalance(f, tr, rl);
	text_pipeline(f, tr, rl);
	text_slow(f, tr, rl);
	text_bubbles(f, tr, rl);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* A fraction as a JSON number: six decimals, never NaN or inf. */
static void
json_frac_m(tl_jsonw *w, const char *key, double x)
{
	if (!(x == x) || x > 1e300 || x < -1e300)
		x = 0;
	jsonw_double_m(w, key, "%.6f", x);
}

/* A dp number: null where the marks do not give it. */
static void
json_dp_num_m(tl_jsonw *w, const char *key, double x, int integer)
{
	if (x == TL_DP_NONE || !(x == x))
		jsonw_null_m(w, key);
	else
		jsonw_double_m(w, key, integer ? "%.0f" : "%.6f", x);
}

/* The rank of trace index i as a member (null when unknown). */
static void
json_rank_m(tl_jsonw *w, const char *key, const tl_trace *tr, size_t i)
{
	report_jw_rank(w, key, tr->ranks[i]->rank);
}

/* A decode engine step of a dp entry (--series). */
static void
json_dp_step(tl_jsonw *w, const tl_dp_step *p, size_t index)
{
	jsonw_object_begin(w);
	jsonw_u64_m(w, "step_index", index);
	jsonw_i64_m(w, "start_ns", p->start);
	jsonw_i64_m(w, "end_ns", p->end);
	if (p->has_stats) {
		jsonw_double_m(w, "running_reqs", "%.17g", p->running);
		jsonw_double_m(w, "waiting_reqs", "%.17g", p->waiting);
		jsonw_double_m(w, "gpu_cache_usage", "%.17g", p->cache_usage);
		jsonw_double_m(w, "out_tokens", "%.17g", p->out_tokens);
	} else {
		jsonw_null_m(w, "running_reqs");
		jsonw_null_m(w, "waiting_reqs");
		jsonw_null_m(w, "gpu_cache_usage");
		jsonw_null_m(w, "out_tokens");
	}
	jsonw_end(w);
}

/* dp_analysis' numbers per rollout and rank; the steps themselves with series. */
static void
json_dp(tl_jsonw *w, const tl_trace *tr, const tl_query *rl, int series)
{
	const tl_dp *v;
	size_t n = tlq_dp(rl, &v);
	jsonw_array_begin_m(w, "dp");
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].n; k++) {
			const tl_dp_rank *x = &v[i].ranks[k];
			jsonw_object_begin(w);
			jsonw_str_m(w, "stage", tlq_stage_name(rl, v[i].stage));
			jsonw_i64_m(w, "step", v[i].step);
			json_rank_m(w, "rank", tr, x->rank);
			jsonw_u64_m(w, "decode_steps", x->nsteps);
			jsonw_i64_m(w, "max_step", x->max_step);
			json_dp_num_m(w, "bubble_rate_pct", x->bubble_rate_pct, 0);
			json_dp_num_m(w, "out_tokens", x->out_tokens, 1);
			json_dp_num_m(w, "throughput_tokens_per_s", x->throughput, 0);
			json_dp_num_m(w, "mean_running_reqs", x->mean_running, 0);
			json_dp_num_m(w, "mean_waiting_reqs", x->mean_waiting, 0);
			json_dp_num_m(w, "peak_gpu_cache_usage", x->peak_cache_usage, 0);
			if (series) {
				jsonw_array_begin_m(w, "series");
				for (size_t s = 0; s < x->nsteps; s++)
					json_dp_step(w, &x->steps[s], s);
				jsonw_end(w);
			}
			jsonw_end(w);
		}
	jsonw_end(w);
}

static void
json_stages(tl_jsonw *w, const tl_trace *tr, const tl_query *rl)
{
	const tl_stage_row *sv;
	size_t ns = tlq_stages(rl, &sv);
	jsonw_array_begin_m(w, "stages");
	for (size_t i = 0; i < ns; i++) {
		jsonw_object_begin(w);
		json_rank_m(w, "rank", tr, sv[i].rank);
		jsonw_str_m(w, "stage", tlq_stage_name(rl, sv[i].stage));
		jsonw_i64_m(w, "step", sv[i].step);
		jsonw_i64_m(w, "start_ns", sv[i].start);
		jsonw_i64_m(w, "end_ns", sv[i].end);
		jsonw_i64_m(w, "duration_ns", sv[i].end - sv[i].start);
		jsonw_i64_m(w, "busy_ns", sv[i].busy);
		jsonw_i64_m(w, "lag_ns", sv[i].lag);
		jsonw_str_m(w, "range", sv[i].range);
		jsonw_bool_m(w, "from_role", sv[i].from_role);
		jsonw_bool_m(w, "device_times", sv[i].device);
		jsonw_i64_m(w, "host_start_ns", sv[i].host_start);
		jsonw_i64_m(w, "host_end_ns", sv[i].host_end);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void
json_imbalance(tl_jsonw *w, const tl_trace *tr, const tl_query *rl)
{
	const tl_imbalance *iv;
	size_t ni = tlq_imbalances(rl, &iv);
	jsonw_array_begin_m(w, "imbalance");
	for (size_t i = 0; i < ni; i++) {
		const tl_imbalance *im = &iv[i];
		jsonw_object_begin(w);
		jsonw_str_m(w, "stage", tlq_stage_name(rl, im->stage));
		jsonw_i64_m(w, "step", im->step);
		json_frac_m(w, "max_over_mean", im->st.max_over_mean);
		json_frac_m(w, "cv", im->st.cv);
		/* slowest_rank: the rank that finished last (the name predates the distinction) */
		json_rank_m(w, "slowest_rank", tr, im->ranks[im->st.slowest].rank);
		json_rank_m(w, "longest_running_rank", tr, im->ranks[im->st.longest].rank);
		jsonw_i64_m(w, "skew_ns", im->st.skew);
		jsonw_array_begin_m(w, "ranks");
		for (size_t k = 0; k < im->n; k++) {
			const tl_imb_rank *x = &im->ranks[k];
			jsonw_object_begin(w);
			json_rank_m(w, "rank", tr, x->rank);
			jsonw_i64_m(w, "duration_ns", x->duration);
			jsonw_i64_m(w, "wait_for_slowest_ns", x->wait);
			jsonw_i64_or_null_m(w, "decode_steps", x->decode_steps,
			                    x->decode_steps >= 0);
			json_frac_m(w, "idle_fraction", x->idle_fraction);
			jsonw_end(w);
		}
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void
json_pp_stage(tl_jsonw *w, const tl_trace *tr, const tl_pipeline *p, const tl_pp_stage *ps)
{
	jsonw_object_begin(w);
	jsonw_i64_m(w, "pp_stage", ps->pp_stage);
	jsonw_array_begin_m(w, "ranks");
	for (size_t i = 0; i < ps->nranks; i++)
		report_jw_rank_v(w, tr->ranks[ps->ranks[i]]->rank);
	jsonw_end(w);
	json_frac_m(w, "bubble_ratio", ps->bubble_ratio);
	if (ps->shown != SIZE_MAX) {
		json_rank_m(w, "blocks_rank", tr, ps->shown);
		jsonw_str_m(w, "blocks_from",
		            p->rank_blocks[ps->shown] == TL_PP_BLOCKS_OPS ? "operator_pairs"
		                                                          : "ranges");
	}
	jsonw_array_begin_m(w, "blocks");
	for (size_t b = 0; b < ps->nblocks; b++) {
		char kind[2] = {ps->blocks[b].kind, '\0'};
		jsonw_object_begin(w);
		jsonw_str_m(w, "kind", kind);
		jsonw_i64_m(w, "microbatch", ps->blocks[b].microbatch);
		jsonw_i64_m(w, "start_ns", ps->blocks[b].start);
		jsonw_i64_m(w, "end_ns", ps->blocks[b].end);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_end(w);
}

static void
json_pipeline(tl_jsonw *w, const tl_trace *tr, const tl_query *rl)
{
	const tl_pipeline *p = tlq_pipeline(rl);
	jsonw_array_begin_m(w, "pipeline");
	for (size_t k = 0; k < p->nsteps; k++) {
		const tl_pp_step *s = &p->steps[k];
		jsonw_object_begin(w);
		jsonw_i64_m(w, "step", s->step);
		jsonw_str_m(w, "pp_source", tlq_pipeline_source_name(p->source));
		jsonw_i64_m(w, "start_ns", s->start);
		jsonw_i64_m(w, "end_ns", s->end);
		jsonw_array_begin_m(w, "stages");
		for (size_t i = 0; i < s->nstages; i++)
			json_pp_stage(w, tr, p, &s->stages[i]);
		jsonw_end(w);
		jsonw_array_begin_m(w, "links");
		for (size_t l = 0; l < s->nlinks; l++) {
			const tl_pp_link *x = &s->links[l];
			jsonw_object_begin(w);
			json_rank_m(w, "from_rank", tr, x->from_rank);
			json_rank_m(w, "to_rank", tr, x->to_rank);
			jsonw_i64_m(w, "send_start_ns", x->send_start);
			jsonw_i64_m(w, "send_end_ns", x->send_end);
			jsonw_i64_m(w, "recv_start_ns", x->recv_start);
			jsonw_i64_m(w, "recv_end_ns", x->recv_end);
			jsonw_end(w);
		}
		jsonw_end(w);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void
json_bubbles(tl_jsonw *w, const tl_trace *tr, const tl_query *rl)
{
	const tl_rl_bubble *bv;
	size_t nb = tlq_bubbles(rl, &bv);
	jsonw_array_begin_m(w, "bubbles");
	for (size_t i = 0; i < nb; i++) {
		jsonw_object_begin(w);
		json_rank_m(w, "rank", tr, bv[i].rank);
		jsonw_i64_m(w, "start_ns", bv[i].start);
		jsonw_i64_m(w, "end_ns", bv[i].end);
		jsonw_i64_m(w, "duration_ns", bv[i].end - bv[i].start);
		jsonw_str_m(w, "stage", tlq_stage_name(rl, bv[i].stage));
		/* between steps: no step (null), unlike -1 of a profile without steps */
		jsonw_i64_or_null_m(w, "step", bv[i].step, !bv[i].between_steps);
		jsonw_bool_m(w, "between_steps", bv[i].between_steps);
		jsonw_str_m(w, "reason", tlq_bubble_reason_name(bv[i].reason));
		jsonw_str_m(w, "detail", bv[i].detail);
		jsonw_end(w);
	}
	jsonw_end(w);
}

void
report_rl_json(tl_jsonw *w, const tl_query *rl, const report_opts *o)
{
	const tl_trace *tr = tlq_trace(rl);
	json_stages(w, tr, rl);
	json_imbalance(w, tr, rl);
	json_pipeline(w, tr, rl);
	const tl_slow_result *sr = tlq_slow_ranks(rl);
	jsonw_array_begin_m(w, "slow_ranks");
	for (size_t i = 0; i < sr->n; i++) {
		jsonw_object_begin(w);
		json_rank_m(w, "rank", tr, sr->v[i].rank);
		jsonw_u64_m(w, "votes", sr->v[i].votes);
		jsonw_end(w);
	}
	jsonw_end(w);
	json_bubbles(w, tr, rl);
	json_dp(w, tr, rl, o != NULL && o->series);
}
