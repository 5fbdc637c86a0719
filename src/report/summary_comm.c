/* The communication sections of `tl summary`: per op and rank the time breakdown, bandwidth per
 * transport and traffic per rank pair, as aligned text (totals per rank, step and group) and as
 * the JSON members "communication", "bandwidth" and "comm_matrix" (documented in tl(1)). Every
 * number comes from the query layer (tlq_comm). */
#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "report/report_int.h"
#include "util/outbuf.h"
#include "util/satint.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- text ------------------------------------------------------------------------------------ */

static double
ratio(int64_t a, int64_t b)
{
	double s = (double)a + (double)b; /* in double: crafted sums pass int64 */
	return s > 0 ? (double)a / s : 0.0;
}

static int
cmp_rsg(const void *a, const void *b)
{
	const tl_comm_row *x = *(const tl_comm_row *const *)a, *y = *(const tl_comm_row *const *)b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	int g = strcmp(x->group, y->group);
	if (g != 0)
		return g;
	return (x > y) - (x < y);
}

static char *
step_str(char *buf, size_t len, int64_t step)
{
	if (step < 0)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%" PRId64, step);
	return buf;
}

/* Totals per rank, step and group: msprof-analyze's "Total Op Info" rows. */
static void
text_times(FILE *f, const tl_comm_result *c)
{
	const tl_comm_row **v = malloc(c->nops * sizeof *v);
	if (v == NULL)
		return;
	for (size_t i = 0; i < c->nops; i++)
		v[i] = &c->ops[i];
	qsort(v, c->nops, sizeof *v, cmp_rsg);
	fprintf(f, "\nCommunication per rank, step and group (ms; sync = the wait before the first "
	           "transfer,\nidle = elapse - transit - wait; sync%% = sync / (transit + sync), "
	           "wait%% = wait / (transit + wait))\n");
	fprintf(f, "%6s %8s %-22s %6s %14s %14s %14s %14s %14s %7s %7s\n", "rank", "step", "group",
	        "ops", "elapse", "transit", "wait", "sync", "idle", "sync%", "wait%");
	for (size_t i = 0; i < c->nops;) {
		size_t k = i;
		int64_t s[5] = {0};
		size_t measured = 0;
		while (k < c->nops && v[k]->rank == v[i]->rank && v[k]->step == v[i]->step &&
		       strcmp(v[k]->group, v[i]->group) == 0) {
			const tl_comm_time *t = &v[k]->t;
			s[0] = sat_add(s[0], t->elapse);
			if (t->plane >= 0) { /* ops without sub-tasks add their elapse only */
				measured++;
				s[1] = sat_add(s[1], t->transit);
				s[2] = sat_add(s[2], t->wait);
				s[3] = sat_add(s[3], t->sync);
				s[4] = sat_add(s[4], t->idle);
			}
			k++;
		}
		char st[24], g[64], b[5][32];
		text_sanitize(*v[i]->group ? v[i]->group : "-", g, sizeof g, 1);
		char rb[16];
		fprintf(f, "%6s %8s %-22s %6zu", report_rank(rb, v[i]->rank),
		        step_str(st, sizeof st, v[i]->step), g, k - i);
		fprintf(f, " %14s", timefmt_ms(s[0], 6, b[0], sizeof b[0]));
		if (measured == 0) { /* no sub-task recorded (a capture below Level1) */
			fprintf(f, " %14s %14s %14s %14s %7s %7s\n", "-", "-", "-", "-", "-", "-");
		} else {
			for (int x = 1; x < 5; x++)
				fprintf(f, " %14s", timefmt_ms(s[x], 6, b[x], sizeof b[x]));
			fprintf(f, " %7.2f %7.2f\n", 100 * ratio(s[3], s[1]),
			        100 * ratio(s[2], s[1]));
		}
		i = k;
	}
	free(v);
}

/* Bandwidth per rank and transport over all ops. */
static void
text_bandwidth(FILE *f, const tl_comm_result *c)
{
	if (c->nbw == 0)
		return;
	fprintf(f,
	        "\nCommunication bandwidth per rank and transport (over all ops; MB = 10^6 bytes, "
	        "GB/s = 10^9 bytes/s)\n");
	fprintf(f, "%6s %-9s %16s %14s %10s\n", "rank", "transport", "MB", "time ms", "GB/s");
	for (size_t i = 0; i < c->nops;) {
		uint64_t size[TL_XPORT__COUNT] = {0};
		int64_t time[TL_XPORT__COUNT] = {0};
		int any[TL_XPORT__COUNT] = {0};
		size_t k = i;
		for (; k < c->nops && c->ops[k].rank == c->ops[i].rank; k++)
			for (size_t b = c->ops[k].bw0; b < c->ops[k].bw0 + c->ops[k].nbw; b++) {
				size[c->bw[b].xport] += c->bw[b].size;
				time[c->bw[b].xport] = sat_add(time[c->bw[b].xport], c->bw[b].time);
				any[c->bw[b].xport] = 1;
			}
		for (int x = 0; x < TL_XPORT__COUNT; x++) {
			if (!any[x])
				continue;
			char t[32], rb[16];
			fprintf(f, "%6s %-9s %9" PRIu64 ".%06" PRIu64 " %14s %10.4f\n",
			        report_rank(rb, c->ops[i].rank), tl_xport_name[x],
			        size[x] / 1000000, size[x] % 1000000,
			        timefmt_ms(time[x], 6, t, sizeof t),
			        time[x] > 0 ? (double)size[x] / (double)time[x] : 0.0);
		}
		i = k;
	}
}

static int
cmp_skew(const void *a, const void *b)
{
	const tl_coll *x = *(const tl_coll *const *)a, *y = *(const tl_coll *const *)b;
	if (x->skew != y->skew)
		return x->skew > y->skew ? -1 : 1;
	return (x > y) - (x < y);
}

/* Who arrives last, and the collectives with the widest arrival spread. */
static void
text_collectives(FILE *f, const tl_trace *tr, const tl_coll_result *c)
{
	size_t multi = 0;
	for (size_t i = 0; i < c->n; i++)
		multi += c->v[i].n > 1;
	if (multi == 0)
		return;
	fprintf(f,
	        "\nCollectives: last arriver per rank (of %zu collectives run by two or more "
	        "ranks;\nwait = the time the other ranks spent waiting for it, summed)\n",
	        multi);
	fprintf(f, "%6s %8s %16s\n", "rank", "last", "waited for, ms");
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		int rank = tr->ranks[ri]->rank;
		size_t last = 0;
		int64_t wait = 0;
		for (size_t i = 0; i < c->n; i++) {
			const tl_coll *x = &c->v[i];
			if (x->n < 2 || x->last_rank != rank)
				continue;
			last++;
			for (size_t k = 0; k < x->n; k++)
				wait = sat_add(wait, x->ranks[k].wait);
		}
		char b[32], rb[16];
		fprintf(f, "%6s %8zu %16s\n", report_rank(rb, rank), last,
		        timefmt_ms(wait, 6, b, sizeof b));
	}
	const tl_coll **v = malloc(multi * sizeof *v);
	if (v == NULL)
		return;
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].n > 1)
			v[n++] = &c->v[i];
	qsort(v, n, sizeof *v, cmp_skew);
	size_t show = n < 10 ? n : 10;
	fprintf(f, "\nWidest arrival spreads (ms: last arrival - first arrival)\n");
	fprintf(f, "%8s %6s %14s %5s  %s\n", "step", "last", "skew", "ranks", "op");
	for (size_t i = 0; i < show; i++) {
		char st[24], b[32], nm[160], ty[80], rb[16];
		/* a name that does not say its collective (NCCL's ncclDevKernel_Generic) is
		 * followed by the type its args or launch gave */
		fprintf(f, "%8s %6s %14s %5zu  %s%s%s%s\n", step_str(st, sizeof st, v[i]->step),
		        report_rank(rb, v[i]->last_rank), timefmt_ms(v[i]->skew, 6, b, sizeof b),
		        v[i]->n, text_sanitize(v[i]->name, nm, sizeof nm, 1),
		        v[i]->named ? "" : " (",
		        v[i]->named ? "" : text_sanitize(v[i]->op_type, ty, sizeof ty, 1),
		        v[i]->named ? "" : ")");
	}
	free(v);
}

static void
text_p2p(FILE *f, const tl_coll_result *c)
{
	if (c->np2p == 0)
		return;
	int64_t sw = 0, rw = 0;
	for (size_t i = 0; i < c->np2p; i++) {
		sw = sat_add(sw, c->p2p[i].send_wait);
		rw = sat_add(rw, c->p2p[i].recv_wait);
	}
	char a[32], b[32];
	fprintf(f,
	        "\nP2P: %zu send/receive pairs; senders waited %s ms for receivers, receivers %s "
	        "ms for senders\n",
	        c->np2p, timefmt_ms(sw, 6, a, sizeof a), timefmt_ms(rw, 6, b, sizeof b));
}

void
report_comm_text(FILE *f, const tl_query *q, const tl_comm_result *c, const tl_coll_result *cr)
{
	const tl_trace *tr = tlq_trace(q);
	text_collectives(f, tr, cr);
	text_p2p(f, cr);
	if (c->nops > 0) {
		text_times(f, c);
		text_bandwidth(f, c);
	}
}

/* ---- JSON ------------------------------------------------------------------------------------
 * The largest sections of `tl summary --json` (tens of MB on a large profile): written through
 * util/outbuf, not fprintf, the same bytes. */

static void
out_num(tl_out *o, int decimals, double x)
{
	if (!(x == x) || x > 1e300 || x < -1e300)
		x = 0;
	out_printf(o, "%.*f", decimals, x);
}

static void
json_comm(tl_out *f, const tl_comm_result *c)
{
	out_lit(f, ",\"communication\":[");
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		const tl_comm_time *t = &o->t;
		if (i)
			out_char(f, ',');
		out_lit(f, "{\"rank\":");
		report_out_rank(f, o->rank);
		out_lit(f, ",\"op_name\":");
		out_json_str(f, o->op_name);
		out_lit(f, ",\"op_type\":");
		out_json_str(f, o->op_type);
		out_lit(f, ",\"group\":");
		out_json_str(f, o->group);
		out_lit(f, ",\"step\":");
		out_i64(f, o->step);
		out_lit(f, ",\"start_ns\":");
		out_i64(f, o->start);
		out_lit(f, ",\"elapse_ns\":");
		out_i64(f, t->elapse);
		if (t->plane < 0) {
			/* no transfer sub-task recorded (a capture below Level1): unknown, not 0 */
			out_lit(
			    f,
			    ",\"transit_ns\":null,\"wait_ns\":null,\"synchronization_ns\":null,"
			    "\"idle_ns\":null,\"synchronization_ratio\":null,\"wait_ratio\":null");
		} else {
			out_lit(f, ",\"transit_ns\":");
			out_i64(f, t->transit);
			out_lit(f, ",\"wait_ns\":");
			out_i64(f, t->wait);
			out_lit(f, ",\"synchronization_ns\":");
			out_i64(f, t->sync);
			out_lit(f, ",\"idle_ns\":");
			out_i64(f, t->idle);
			out_lit(f, ",\"synchronization_ratio\":");
			out_num(f, 4, t->sync_ratio);
			out_lit(f, ",\"wait_ratio\":");
			out_num(f, 4, t->wait_ratio);
		}
		out_lit(f, ",\"plane\":");
		out_i64(f, t->plane);
		out_lit(f, ",\"sub_tasks\":");
		out_u64(f, o->ntasks);
		out_char(f, '}');
	}
	out_char(f, ']');
}

static void
json_bandwidth(tl_out *f, const tl_comm_result *c)
{
	out_lit(f, ",\"bandwidth\":[");
	int first = 1;
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		for (size_t b = o->bw0; b < o->bw0 + o->nbw; b++) {
			const tl_comm_bw *w = &c->bw[b];
			if (!first)
				out_char(f, ',');
			first = 0;
			out_lit(f, "{\"rank\":");
			report_out_rank(f, o->rank);
			out_lit(f, ",\"op_name\":");
			out_json_str(f, o->op_name);
			out_lit(f, ",\"group\":");
			out_json_str(f, o->group);
			out_lit(f, ",\"step\":");
			out_i64(f, o->step);
			out_lit(f, ",\"transport\":\"");
			out_str(f, tl_xport_name[w->xport]);
			out_lit(f, "\",\"size_bytes\":");
			out_u64(f, w->size);
			out_lit(f, ",\"time_ns\":");
			out_i64(f, w->time);
			out_lit(f, ",\"bandwidth_gbps\":");
			out_num(f, 6, w->gbps);
			out_lit(f, ",\"packets\":[");
			for (size_t p = 0; p < w->npk; p++) {
				if (p)
					out_char(f, ',');
				out_lit(f, "{\"size_bytes\":");
				out_u64(f, w->pk[p].size);
				out_lit(f, ",\"count\":");
				out_u64(f, w->pk[p].count);
				out_lit(f, ",\"time_ns\":");
				out_i64(f, w->pk[p].time);
				out_char(f, '}');
			}
			out_lit(f, "]}");
		}
	}
	out_char(f, ']');
}

static void
json_matrix(tl_out *f, const tl_comm_result *c)
{
	out_lit(f, ",\"comm_matrix\":[");
	int first = 1;
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		for (size_t k = o->link0; k < o->link0 + o->nlink; k++) {
			const tl_comm_link *l = &c->links[k];
			if (!first)
				out_char(f, ',');
			first = 0;
			out_lit(f, "{\"group\":");
			out_json_str(f, o->group);
			out_lit(f, ",\"step\":");
			out_i64(f, o->step);
			out_lit(f, ",\"rank\":");
			report_out_rank(f, o->rank);
			out_lit(f, ",\"op_name\":");
			out_json_str(f, o->op_name);
			out_lit(f, ",\"src_rank\":");
			report_out_rank(f, l->src);
			out_lit(f, ",\"dst_rank\":");
			report_out_rank(f, l->dst);
			out_lit(f, ",\"transport\":\"");
			out_str(f, tl_xport_name[l->src == l->dst ? TL_XPORT_LOCAL : l->xport]);
			out_lit(f, "\",\"size_bytes\":");
			out_u64(f, l->size);
			out_lit(f, ",\"time_ns\":");
			out_i64(f, l->time);
			out_lit(f, ",\"bandwidth_gbps\":");
			out_num(f, 6, l->gbps);
			out_char(f, '}');
		}
	}
	out_char(f, ']');
}

static void
json_collectives(tl_out *f, const tl_coll_result *c)
{
	out_lit(f, ",\"collectives\":[");
	for (size_t i = 0; i < c->n; i++) {
		const tl_coll *x = &c->v[i];
		if (i)
			out_char(f, ',');
		out_lit(f, "{\"group\":");
		out_json_str(f, x->group);
		out_lit(f, ",\"op_type\":");
		out_json_str(f, x->op_type);
		out_lit(f, ",\"op_name\":");
		out_json_str(f, x->name);
		out_lit(f, ",\"step\":");
		out_i64(f, x->step);
		out_lit(f, ",\"index\":");
		out_u64(f, x->index);
		out_lit(f, ",\"ranks\":[");
		for (size_t k = 0; k < x->n; k++) {
			if (k)
				out_char(f, ',');
			out_lit(f, "{\"rank\":");
			report_out_rank(f, x->ranks[k].rank);
			out_lit(f, ",\"arrive_ns\":");
			out_i64(f, x->ranks[k].arrive);
			out_lit(f, ",\"wait_ns\":");
			out_i64(f, x->ranks[k].wait);
			out_lit(f, ",\"end_ns\":");
			out_i64(f, x->ranks[k].end);
			out_char(f, '}');
		}
		out_lit(f, "],\"last_rank\":");
		report_out_rank(f, x->last_rank);
		out_lit(f, ",\"skew_ns\":");
		out_i64(f, x->skew);
		out_char(f, '}');
	}
	out_lit(f, "],\"p2p\":[");
	for (size_t i = 0; i < c->np2p; i++) {
		const tl_p2p_pair *p = &c->p2p[i];
		if (i)
			out_char(f, ',');
		out_lit(f, "{\"step\":");
		out_i64(f, p->step);
		out_lit(f, ",\"src_rank\":");
		report_out_rank(f, p->src_rank);
		out_lit(f, ",\"dst_rank\":");
		report_out_rank(f, p->dst_rank);
		out_lit(f, ",\"send_start_ns\":");
		out_i64(f, p->send_start);
		out_lit(f, ",\"send_end_ns\":");
		out_i64(f, p->send_end);
		out_lit(f, ",\"recv_start_ns\":");
		out_i64(f, p->recv_start);
		out_lit(f, ",\"recv_end_ns\":");
		out_i64(f, p->recv_end);
		out_lit(f, ",\"send_wait_ns\":");
		out_i64(f, p->send_wait);
		out_lit(f, ",\"recv_wait_ns\":");
		out_i64(f, p->recv_wait);
		out_char(f, '}');
	}
	out_char(f, ']');
}

static void
json_matrix_summary(tl_out *f, const tl_comm_result *c)
{
	tl_mx_row *v;
	size_t n = tlq_comm_matrix_summary(c, &v);
	out_lit(f, ",\"comm_matrix_summary\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			out_char(f, ',');
		out_lit(f, "{\"group\":");
		out_json_str(f, v[i].group);
		out_lit(f, ",\"step\":");
		out_i64(f, v[i].step);
		out_lit(f, ",\"rank\":");
		report_out_rank(f, v[i].rank);
		out_lit(f, ",\"name\":");
		out_json_str(f, v[i].name);
		out_lit(f, ",\"op_name\":");
		out_json_str(f, v[i].op_name);
		out_lit(f, ",\"src_rank\":");
		report_out_rank(f, v[i].src);
		out_lit(f, ",\"dst_rank\":");
		report_out_rank(f, v[i].dst);
		out_lit(f, ",\"transport\":\"");
		out_str(f, tl_xport_name[v[i].xport]);
		out_lit(f, "\",\"size_bytes\":");
		out_u64(f, v[i].size);
		out_lit(f, ",\"time_ns\":");
		out_i64(f, v[i].time);
		out_lit(f, ",\"bandwidth_gbps\":");
		out_num(f, 6, v[i].gbps);
		out_char(f, '}');
	}
	out_char(f, ']');
	free(v);
}

void
report_comm_json(FILE *f, const tl_query *q, const tl_comm_result *c, const tl_coll_result *cr)
{
	(void)q;
	tl_out *o = xmalloc(sizeof *o); /* 64 KiB: not on the stack */
	out_begin(o, f);
	json_collectives(o, cr);
	json_comm(o, c);
	json_bandwidth(o, c);
	json_matrix(o, c);
	json_matrix_summary(o, c);
	out_end(o);
	free(o);
}
