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
rank_list(FILE *f, const tl_trace *tr, const size_t *v, size_t n, int json)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "",
		        json ? RANK_JSON(tr->ranks[v[i]]->rank) : RANK_TXT(tr->ranks[v[i]]->rank));
	if (!json && n == 0)
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
				rank_list(m, tr, ps->ranks, ps->nranks, 0);
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

static void
json_str(FILE *f, const char *s)
{
	if (s == NULL) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	text_json_write(f, s);
	fputc('"', f);
}

/* A fraction as a JSON number: six decimals, never NaN or inf. */
static void
json_frac(FILE *f, double x)
{
	if (!(x == x) || x > 1e300 || x < -1e300)
		x = 0;
	fprintf(f, "%.6f", x);
}

/* A dp number: null where the marks do not give it. */
static void
json_dp_num(FILE *f, double x, int integer)
{
	if (x == TL_DP_NONE || !(x == x))
		fputs("null", f);
	else if (integer)
		fprintf(f, "%.0f", x);
	else
		fprintf(f, "%.6f", x);
}

/* dp_analysis' numbers per rollout and rank; the steps themselves with series. */
static void
json_dp(FILE *f, const tl_trace *tr, const tl_query *rl, int series)
{
	const tl_dp *v;
	size_t n = tlq_dp(rl, &v);
	fprintf(f, ",\"dp\":[");
	int first = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].n; k++) {
			const tl_dp_rank *x = &v[i].ranks[k];
			fprintf(f, "%s{\"stage\":", first ? "" : ",");
			first = 0;
			json_str(f, tlq_stage_name(rl, v[i].stage));
			fprintf(f,
			        ",\"step\":%" PRId64
			        ",\"rank\":%s,\"decode_steps\":%zu,\"max_step\":%d",
			        v[i].step, RANK_JSON(tr->ranks[x->rank]->rank), x->nsteps,
			        x->max_step);
			fprintf(f, ",\"bubble_rate_pct\":");
			json_dp_num(f, x->bubble_rate_pct, 0);
			fprintf(f, ",\"out_tokens\":");
			json_dp_num(f, x->out_tokens, 1);
			fprintf(f, ",\"throughput_tokens_per_s\":");
			json_dp_num(f, x->throughput, 0);
			fprintf(f, ",\"mean_running_reqs\":");
			json_dp_num(f, x->mean_running, 0);
			fprintf(f, ",\"mean_waiting_reqs\":");
			json_dp_num(f, x->mean_waiting, 0);
			fprintf(f, ",\"peak_gpu_cache_usage\":");
			json_dp_num(f, x->peak_cache_usage, 0);
			if (series) {
				fprintf(f, ",\"series\":[");
				for (size_t s = 0; s < x->nsteps; s++) {
					const tl_dp_step *p = &x->steps[s];
					fprintf(f,
					        "%s{\"step_index\":%zu,\"start_ns\":%" PRId64
					        ",\"end_ns\":%" PRId64,
					        s ? "," : "", s, p->start, p->end);
					if (p->has_stats)
						fprintf(f,
						        ",\"running_reqs\":%.17g,\"waiting_reqs\":%"
						        ".17g,"
						        "\"gpu_cache_usage\":%.17g,\"out_tokens\":%"
						        ".17g}",
						        p->running, p->waiting, p->cache_usage,
						        p->out_tokens);
					else
						fprintf(
						    f,
						    ",\"running_reqs\":null,\"waiting_reqs\":null,"
						    "\"gpu_cache_usage\":null,\"out_tokens\":"
						    "null}");
				}
				fprintf(f, "]");
			}
			fprintf(f, "}");
		}
	fprintf(f, "]");
}

void
report_rl_json(FILE *f, const tl_query *rl, const report_opts *o)
{
	const tl_trace *tr = tlq_trace(rl);

	const tl_stage_row *sv;
	size_t ns = tlq_stages(rl, &sv);
	fprintf(f, ",\"stages\":[");
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "%s{\"rank\":%s,\"stage\":", i ? "," : "",
		        RANK_JSON(tr->ranks[sv[i].rank]->rank));
		json_str(f, tlq_stage_name(rl, sv[i].stage));
		fprintf(f,
		        ",\"step\":%" PRId64 ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64
		        ",\"duration_ns\":%" PRId64 ",\"busy_ns\":%" PRId64 ",\"lag_ns\":%" PRId64
		        ",\"range\":",
		        sv[i].step, sv[i].start, sv[i].end, sv[i].end - sv[i].start, sv[i].busy,
		        sv[i].lag);
		json_str(f, sv[i].range);
		fprintf(f, ",\"from_role\":%s,\"device_times\":%s",
		        sv[i].from_role ? "true" : "false", sv[i].device ? "true" : "false");
		fprintf(f, ",\"host_start_ns\":%" PRId64 ",\"host_end_ns\":%" PRId64 "}",
		        sv[i].host_start, sv[i].host_end);
	}

	const tl_imbalance *iv;
	size_t ni = tlq_imbalances(rl, &iv);
	fprintf(f, "],\"imbalance\":[");
	for (size_t i = 0; i < ni; i++) {
		const tl_imbalance *im = &iv[i];
		fprintf(f, "%s{\"stage\":", i ? "," : "");
		json_str(f, tlq_stage_name(rl, im->stage));
		fprintf(f, ",\"step\":%" PRId64 ",\"max_over_mean\":", im->step);
		json_frac(f, im->st.max_over_mean);
		fprintf(f, ",\"cv\":");
		json_frac(f, im->st.cv);
		/* slowest_rank: the rank that finished last (the name predates the distinction) */
		fprintf(f,
		        ",\"slowest_rank\":%s,\"longest_running_rank\":%s,\"skew_ns\":%" PRId64
		        ",\"ranks\":[",
		        RANK_JSON(tr->ranks[im->ranks[im->st.slowest].rank]->rank),
		        RANK_JSON(tr->ranks[im->ranks[im->st.longest].rank]->rank), im->st.skew);
		for (size_t k = 0; k < im->n; k++) {
			const tl_imb_rank *x = &im->ranks[k];
			fprintf(f,
			        "%s{\"rank\":%s,\"duration_ns\":%" PRId64
			        ",\"wait_for_slowest_ns\":%" PRId64 ",\"decode_steps\":",
			        k ? "," : "", RANK_JSON(tr->ranks[x->rank]->rank), x->duration,
			        x->wait);
			if (x->decode_steps >= 0)
				fprintf(f, "%d", x->decode_steps);
			else
				fputs("null", f);
			fprintf(f, ",\"idle_fraction\":");
			json_frac(f, x->idle_fraction);
			fprintf(f, "}");
		}
		fprintf(f, "]}");
	}

	const tl_pipeline *p = tlq_pipeline(rl);
	fprintf(f, "],\"pipeline\":[");
	for (size_t k = 0; k < p->nsteps; k++) {
		const tl_pp_step *s = &p->steps[k];
		fprintf(f, "%s{\"step\":%" PRId64 ",\"pp_source\":", k ? "," : "", s->step);
		json_str(f, tlq_pipeline_source_name(p->source));
		fprintf(f, ",\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64 ",\"stages\":[",
		        s->start, s->end);
		for (size_t i = 0; i < s->nstages; i++) {
			const tl_pp_stage *ps = &s->stages[i];
			fprintf(f, "%s{\"pp_stage\":%d,\"ranks\":[", i ? "," : "", ps->pp_stage);
			rank_list(f, tr, ps->ranks, ps->nranks, 1);
			fprintf(f, "],\"bubble_ratio\":");
			json_frac(f, ps->bubble_ratio);
			if (ps->shown != SIZE_MAX)
				fprintf(f, ",\"blocks_rank\":%s,\"blocks_from\":\"%s\"",
				        RANK_JSON(tr->ranks[ps->shown]->rank),
				        p->rank_blocks[ps->shown] == TL_PP_BLOCKS_OPS
				            ? "operator_pairs"
				            : "ranges");
			fprintf(f, ",\"blocks\":[");
			for (size_t b = 0; b < ps->nblocks; b++)
				fprintf(f,
				        "%s{\"kind\":\"%c\",\"microbatch\":%d,\"start_ns\":%" PRId64
				        ",\"end_ns\":%" PRId64 "}",
				        b ? "," : "", ps->blocks[b].kind, ps->blocks[b].microbatch,
				        ps->blocks[b].start, ps->blocks[b].end);
			fprintf(f, "]}");
		}
		fprintf(f, "],\"links\":[");
		for (size_t l = 0; l < s->nlinks; l++) {
			const tl_pp_link *x = &s->links[l];
			fprintf(f,
			        "%s{\"from_rank\":%s,\"to_rank\":%s,\"send_start_ns\":%" PRId64
			        ",\"send_end_ns\":%" PRId64 ",\"recv_start_ns\":%" PRId64
			        ",\"recv_end_ns\":%" PRId64 "}",
			        l ? "," : "", RANK_JSON(tr->ranks[x->from_rank]->rank),
			        RANK_JSON(tr->ranks[x->to_rank]->rank), x->send_start, x->send_end,
			        x->recv_start, x->recv_end);
		}
		fprintf(f, "]}");
	}

	const tl_slow_result *sr = tlq_slow_ranks(rl);
	fprintf(f, "],\"slow_ranks\":[");
	for (size_t i = 0; i < sr->n; i++)
		fprintf(f, "%s{\"rank\":%s,\"votes\":%u}", i ? "," : "",
		        RANK_JSON(tr->ranks[sr->v[i].rank]->rank), sr->v[i].votes);

	const tl_rl_bubble *bv;
	size_t nb = tlq_bubbles(rl, &bv);
	fprintf(f, "],\"bubbles\":[");
	for (size_t i = 0; i < nb; i++) {
		fprintf(f,
		        "%s{\"rank\":%s,\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64
		        ",\"duration_ns\":%" PRId64 ",\"stage\":",
		        i ? "," : "", RANK_JSON(tr->ranks[bv[i].rank]->rank), bv[i].start,
		        bv[i].end, bv[i].end - bv[i].start);
		json_str(f, tlq_stage_name(rl, bv[i].stage));
		/* between steps: no step (null), unlike -1 of a profile without steps */
		if (bv[i].between_steps)
			fprintf(f, ",\"step\":null,\"between_steps\":true");
		else
			fprintf(f, ",\"step\":%" PRId64 ",\"between_steps\":false", bv[i].step);
		fprintf(f, ",\"reason\":\"%s\",\"detail\":", tlq_bubble_reason_name(bv[i].reason));
		json_str(f, bv[i].detail);
		fprintf(f, "}");
	}
	fprintf(f, "]");
	json_dp(f, tr, rl, o != NULL && o->series);
}
