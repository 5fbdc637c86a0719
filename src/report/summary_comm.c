/* The communication sections of `tl summary`: per op and rank the time breakdown, bandwidth per
 * transport and traffic per rank pair, as aligned text (totals per rank, step and group) and as
 * the JSON members "communication", "bandwidth" and "comm_matrix" (documented in tl(1)). Every
 * number comes from the query layer (tlq_comm). */
#include "config.h"
#include "query/query.h"
#include "report/report.h"
#include "util/text.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static char *
ms(char *buf, size_t len, int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;
	snprintf(buf, len, "%s%" PRId64 ".%06" PRId64, ns < 0 ? "-" : "", a / 1000000, a % 1000000);
	return buf;
}

static void
json_str(FILE *f, const char *s)
{
	fputc('"', f);
	text_json_write(f, s ? s : "");
	fputc('"', f);
}

/* A ratio or a bandwidth as a JSON number, never NaN or inf. */
static void
json_num(FILE *f, int decimals, double x)
{
	if (!(x == x) || x > 1e300 || x < -1e300)
		x = 0;
	fprintf(f, "%.*f", decimals, x);
}

/* ---- text ------------------------------------------------------------------------------------ */

static double
ratio(int64_t a, int64_t b)
{
	return a + b > 0 ? (double)a / (double)(a + b) : 0.0;
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
			s[0] += t->elapse;
			if (t->plane >= 0) { /* ops without sub-tasks add their elapse only */
				measured++;
				s[1] += t->transit;
				s[2] += t->wait;
				s[3] += t->sync;
				s[4] += t->idle;
			}
			k++;
		}
		char st[24], g[64], b[5][32];
		text_sanitize(*v[i]->group ? v[i]->group : "-", g, sizeof g, 1);
		fprintf(f, "%6d %8s %-22s %6zu", v[i]->rank, step_str(st, sizeof st, v[i]->step), g,
		        k - i);
		fprintf(f, " %14s", ms(b[0], sizeof b[0], s[0]));
		if (measured == 0) { /* no sub-task recorded (a capture below Level1) */
			fprintf(f, " %14s %14s %14s %14s %7s %7s\n", "-", "-", "-", "-", "-", "-");
		} else {
			for (int x = 1; x < 5; x++)
				fprintf(f, " %14s", ms(b[x], sizeof b[x], s[x]));
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
				time[c->bw[b].xport] += c->bw[b].time;
				any[c->bw[b].xport] = 1;
			}
		for (int x = 0; x < TL_XPORT__COUNT; x++) {
			if (!any[x])
				continue;
			char t[32];
			fprintf(f, "%6d %-9s %9" PRIu64 ".%06" PRIu64 " %14s %10.4f\n",
			        c->ops[i].rank, tl_xport_name[x], size[x] / 1000000,
			        size[x] % 1000000, ms(t, sizeof t, time[x]),
			        time[x] > 0 ? (double)size[x] / (double)time[x] : 0.0);
		}
		i = k;
	}
}

void
report_comm_text(FILE *f, const tl_trace *tr)
{
	tl_comm_result c;
	tlq_comm(tr, &c);
	if (c.nops > 0) {
		text_times(f, &c);
		text_bandwidth(f, &c);
	}
	tlq_comm_free(&c);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void
json_comm(FILE *f, const tl_comm_result *c)
{
	fprintf(f, ",\"communication\":[");
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		const tl_comm_time *t = &o->t;
		fprintf(f, "%s{\"rank\":%d,\"op_name\":", i ? "," : "", o->rank);
		json_str(f, o->op_name);
		fprintf(f, ",\"op_type\":");
		json_str(f, o->op_type);
		fprintf(f, ",\"group\":");
		json_str(f, o->group);
		fprintf(f, ",\"step\":%" PRId64 ",\"start_ns\":%" PRId64 ",\"elapse_ns\":%" PRId64,
		        o->step, o->start, t->elapse);
		if (t->plane < 0) {
			/* no transfer sub-task recorded (a capture below Level1): unknown, not 0 */
			fprintf(
			    f,
			    ",\"transit_ns\":null,\"wait_ns\":null,\"synchronization_ns\":null,"
			    "\"idle_ns\":null,\"synchronization_ratio\":null,\"wait_ratio\":null");
		} else {
			fprintf(f,
			        ",\"transit_ns\":%" PRId64 ",\"wait_ns\":%" PRId64
			        ",\"synchronization_ns\":%" PRId64 ",\"idle_ns\":%" PRId64
			        ",\"synchronization_ratio\":",
			        t->transit, t->wait, t->sync, t->idle);
			json_num(f, 4, t->sync_ratio);
			fprintf(f, ",\"wait_ratio\":");
			json_num(f, 4, t->wait_ratio);
		}
		fprintf(f, ",\"plane\":%" PRId64 ",\"sub_tasks\":%zu}", t->plane, o->ntasks);
	}
	fprintf(f, "]");
}

static void
json_bandwidth(FILE *f, const tl_comm_result *c)
{
	fprintf(f, ",\"bandwidth\":[");
	int first = 1;
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		for (size_t b = o->bw0; b < o->bw0 + o->nbw; b++) {
			const tl_comm_bw *w = &c->bw[b];
			fprintf(f, "%s{\"rank\":%d,\"op_name\":", first ? "" : ",", o->rank);
			first = 0;
			json_str(f, o->op_name);
			fprintf(f, ",\"group\":");
			json_str(f, o->group);
			fprintf(f,
			        ",\"step\":%" PRId64 ",\"transport\":\"%s\",\"size_bytes\":%" PRIu64
			        ",\"time_ns\":%" PRId64 ",\"bandwidth_gbps\":",
			        o->step, tl_xport_name[w->xport], w->size, w->time);
			json_num(f, 6, w->gbps);
			fprintf(f, ",\"packets\":[");
			for (size_t p = 0; p < w->npk; p++)
				fprintf(f,
				        "%s{\"size_bytes\":%" PRIu64 ",\"count\":%" PRIu64
				        ",\"time_ns\":%" PRId64 "}",
				        p ? "," : "", w->pk[p].size, w->pk[p].count, w->pk[p].time);
			fprintf(f, "]}");
		}
	}
	fprintf(f, "]");
}

static void
json_matrix(FILE *f, const tl_comm_result *c)
{
	fprintf(f, ",\"comm_matrix\":[");
	int first = 1;
	for (size_t i = 0; i < c->nops; i++) {
		const tl_comm_row *o = &c->ops[i];
		for (size_t k = o->link0; k < o->link0 + o->nlink; k++) {
			const tl_comm_link *l = &c->links[k];
			fprintf(f, "%s{\"group\":", first ? "" : ",");
			first = 0;
			json_str(f, o->group);
			fprintf(f, ",\"step\":%" PRId64 ",\"rank\":%d,\"op_name\":", o->step,
			        o->rank);
			json_str(f, o->op_name);
			fprintf(f,
			        ",\"src_rank\":%" PRId64 ",\"dst_rank\":%" PRId64
			        ",\"transport\":\"%s\",\"size_bytes\":%" PRIu64
			        ",\"time_ns\":%" PRId64 ",\"bandwidth_gbps\":",
			        l->src, l->dst,
			        tl_xport_name[l->src == l->dst ? TL_XPORT_LOCAL : l->xport],
			        l->size, l->time);
			json_num(f, 6, l->gbps);
			fprintf(f, "}");
		}
	}
	fprintf(f, "]");
}

void
report_comm_json(FILE *f, const tl_trace *tr)
{
	tl_comm_result c;
	tlq_comm(tr, &c);
	json_comm(f, &c);
	json_bandwidth(f, &c);
	json_matrix(f, &c);
	tlq_comm_free(&c);
}
