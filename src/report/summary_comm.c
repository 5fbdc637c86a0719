/* The communication sections of `tl summary`: per op and rank the time breakdown, bandwidth per
 * transport and traffic per rank pair, as aligned text (totals per rank, step and group) and as
 * the JSON members "communication", "bandwidth" and "comm_matrix" (documented in tl(1)). Every
 * number comes from the query layer (tlq_comm). */
#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "report/report_int.h"
#include "util/satint.h"
#include "util/text.h"
#include "util/timefmt.h"

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
 * The largest sections of `tl summary --json` (tens of MB on a large profile): the writer streams
 * them through util/outbuf. */

/* A number with its decimals, never NaN or inf (0 then). */
static void
json_num_m(tl_jsonw *w, const char *key, int decimals, double x)
{
	if (!(x == x) || x > 1e300 || x < -1e300)
		x = 0;
	jsonw_double_m(w, key, decimals == 4 ? "%.4f" : "%.6f", x);
}

static void
json_comm(tl_jsonw *w, const tl_comm_result *c)
{
	jsonw_array_begin_m(w, "communication");
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		const tl_comm_time *t = &o->t;
		jsonw_object_begin(w);
		report_jw_rank(w, "rank", o->rank);
		jsonw_str_m(w, "op_name", o->op_name);
		jsonw_str_m(w, "op_type", o->op_type);
		jsonw_str_m(w, "group", o->group);
		jsonw_i64_m(w, "step", o->step);
		jsonw_i64_m(w, "start_ns", o->start);
		jsonw_i64_m(w, "elapse_ns", t->elapse);
		if (t->plane < 0) {
			/* no transfer sub-task recorded (a capture below Level1): unknown, not 0 */
			static const char *const none[] = {"transit_ns",
			                                   "wait_ns",
			                                   "synchronization_ns",
			                                   "idle_ns",
			                                   "synchronization_ratio",
			                                   "wait_ratio"};
			for (size_t k = 0; k < sizeof none / sizeof none[0]; k++)
				jsonw_null_m(w, none[k]);
		} else {
			jsonw_i64_m(w, "transit_ns", t->transit);
			jsonw_i64_m(w, "wait_ns", t->wait);
			jsonw_i64_m(w, "synchronization_ns", t->sync);
			jsonw_i64_m(w, "idle_ns", t->idle);
			json_num_m(w, "synchronization_ratio", 4, t->sync_ratio);
			json_num_m(w, "wait_ratio", 4, t->wait_ratio);
		}
		jsonw_i64_m(w, "plane", t->plane);
		jsonw_u64_m(w, "sub_tasks", o->ntasks);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void
json_bandwidth(tl_jsonw *w, const tl_comm_result *c)
{
	jsonw_array_begin_m(w, "bandwidth");
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		for (size_t b = o->bw0; b < o->bw0 + o->nbw; b++) {
			const tl_comm_bw *x = &c->bw[b];
			jsonw_object_begin(w);
			report_jw_rank(w, "rank", o->rank);
			jsonw_str_m(w, "op_name", o->op_name);
			jsonw_str_m(w, "group", o->group);
			jsonw_i64_m(w, "step", o->step);
			jsonw_str_m(w, "transport", tl_xport_name[x->xport]);
			jsonw_u64_m(w, "size_bytes", x->size);
			jsonw_i64_m(w, "time_ns", x->time);
			json_num_m(w, "bandwidth_gbps", 6, x->gbps);
			jsonw_array_begin_m(w, "packets");
			for (size_t p = 0; p < x->npk; p++) {
				jsonw_object_begin(w);
				jsonw_u64_m(w, "size_bytes", x->pk[p].size);
				jsonw_u64_m(w, "count", x->pk[p].count);
				jsonw_i64_m(w, "time_ns", x->pk[p].time);
				jsonw_end(w);
			}
			jsonw_end(w);
			jsonw_end(w);
		}
	}
	jsonw_end(w);
}

static void
json_matrix(tl_jsonw *w, const tl_comm_result *c)
{
	jsonw_array_begin_m(w, "comm_matrix");
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		for (size_t k = o->link0; k < o->link0 + o->nlink; k++) {
			const tl_comm_link *l = &c->links[k];
			jsonw_object_begin(w);
			jsonw_str_m(w, "group", o->group);
			jsonw_i64_m(w, "step", o->step);
			report_jw_rank(w, "rank", o->rank);
			jsonw_str_m(w, "op_name", o->op_name);
			report_jw_rank(w, "src_rank", l->src);
			report_jw_rank(w, "dst_rank", l->dst);
			jsonw_str_m(w, "transport",
			            tl_xport_name[l->src == l->dst ? TL_XPORT_LOCAL : l->xport]);
			jsonw_u64_m(w, "size_bytes", l->size);
			jsonw_i64_m(w, "time_ns", l->time);
			json_num_m(w, "bandwidth_gbps", 6, l->gbps);
			jsonw_end(w);
		}
	}
	jsonw_end(w);
}

static void
json_collectives(tl_jsonw *w, const tl_coll_result *c)
{
	jsonw_array_begin_m(w, "collectives");
	for (size_t i = 0; i < c->n; i++) {
		const tl_coll *x = &c->v[i];
		jsonw_object_begin(w);
		jsonw_str_m(w, "group", x->group);
		jsonw_str_m(w, "op_type", x->op_type);
		jsonw_str_m(w, "op_name", x->name);
		jsonw_i64_m(w, "step", x->step);
		jsonw_u64_m(w, "index", x->index);
		jsonw_array_begin_m(w, "ranks");
		for (size_t k = 0; k < x->n; k++) {
			jsonw_object_begin(w);
			report_jw_rank(w, "rank", x->ranks[k].rank);
			jsonw_i64_m(w, "arrive_ns", x->ranks[k].arrive);
			jsonw_i64_m(w, "wait_ns", x->ranks[k].wait);
			jsonw_i64_m(w, "end_ns", x->ranks[k].end);
			jsonw_end(w);
		}
		jsonw_end(w);
		report_jw_rank(w, "last_rank", x->last_rank);
		jsonw_i64_m(w, "skew_ns", x->skew);
		jsonw_end(w);
	}
	jsonw_end(w);
	jsonw_array_begin_m(w, "p2p");
	for (size_t i = 0; i < c->np2p; i++) {
		const tl_p2p_pair *p = &c->p2p[i];
		jsonw_object_begin(w);
		jsonw_i64_m(w, "step", p->step);
		report_jw_rank(w, "src_rank", p->src_rank);
		report_jw_rank(w, "dst_rank", p->dst_rank);
		jsonw_i64_m(w, "send_start_ns", p->send_start);
		jsonw_i64_m(w, "send_end_ns", p->send_end);
		jsonw_i64_m(w, "recv_start_ns", p->recv_start);
		jsonw_i64_m(w, "recv_end_ns", p->recv_end);
		jsonw_i64_m(w, "send_wait_ns", p->send_wait);
		jsonw_i64_m(w, "recv_wait_ns", p->recv_wait);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void
json_matrix_summary(tl_jsonw *w, const tl_comm_result *c)
{
	tl_mx_row *v;
	size_t n = tlq_comm_matrix_summary(c, &v);
	jsonw_array_begin_m(w, "comm_matrix_summary");
	for (size_t i = 0; i < n; i++) {
		jsonw_object_begin(w);
		jsonw_str_m(w, "group", v[i].group);
		jsonw_i64_m(w, "step", v[i].step);
		report_jw_rank(w, "rank", v[i].rank);
		jsonw_str_m(w, "name", v[i].name);
		jsonw_str_m(w, "op_name", v[i].op_name);
		report_jw_rank(w, "src_rank", v[i].src);
		report_jw_rank(w, "dst_rank", v[i].dst);
		jsonw_str_m(w, "transport", tl_xport_name[v[i].xport]);
		jsonw_u64_m(w, "size_bytes", v[i].size);
		jsonw_i64_m(w, "time_ns", v[i].time);
		json_num_m(w, "bandwidth_gbps", 6, v[i].gbps);
		jsonw_end(w);
	}
	jsonw_end(w);
	free(v);
}

void
report_comm_json(tl_jsonw *w, const tl_query *q, const tl_comm_result *c, const tl_coll_result *cr)
{
	(void)q;
	json_collectives(w, cr);
	json_comm(w, c);
	json_bandwidth(w, c);
	json_matrix(w, c);
	json_matrix_summary(w, c);
}
