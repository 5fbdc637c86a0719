/* Walk 2's counter events (ph "C"): msprof's counter processes in trace_view.json become the
 * rank's counters, as a DB's tables do (load/ascend_db_counters.c), so the viewer's counter
 * lanes and `tl summary`'s memory peaks read the same for both exports:
 *   "NPU MEM"       APP/HBM, APP/DDR, Device/HBM, Device/DDR {"KB": x}: NPU_MEM's hbm and ddr
 *                   of type app or device, in bytes (x * 1024); APP/Memory and Device/Memory
 *                   (their sum) are kept as other counters;
 *   "AI Core Freq"  {"MHz": x}: AICORE_FREQ;
 *   any other       (HBM 0/Read {"Read(MB/s)": x}, LLC, QoS, ...): an other counter named by its
 *                   event, its unit from the argument's name, in thousandths of the unit.
 * Values are read from their digits (json_dec_parse), never through a double. */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "util/msg.h"

#include <stdio.h>
#include <string.h>

/* The event's first numeric argument (not acc_id, an index), or the one named want: its key and
 * value times 10^scale, from the value's own digits. Returns 0, or -1 when it has none. */
static int
counter_arg(jctx *c, const jevent *ev, const char *want, int scale, char *key, size_t keylen,
            int64_t *v)
{
	char k[64] = "";
	if (want != NULL) {
		snprintf(k, sizeof k, "%s", want);
	} else {
		cJSON *args = json_args_parse(c, ev, -1);
		if (args == NULL)
			return -1;
		for (const cJSON *m = args->child; m != NULL; m = m->next)
			if (m->string != NULL && strcmp(m->string, "acc_id") != 0 &&
			    strlen(m->string) < sizeof k &&
			    (cJSON_IsNumber(m) || cJSON_IsString(m))) {
				snprintf(k, sizeof k, "%s", m->string);
				break;
			}
		cJSON_Delete(args);
		if (k[0] == '\0')
			return -1;
	}
	jkey jk = {k, strlen(k)};
	jspan sp;
	size_t n;
	if (json_args_members(c, ev, &jk, 1, &sp) != 0 || sp.len == 0)
		return -1;
	const char *t = json_span_text(c, sp, &n);
	if (json_dec_parse(t, n, scale, v) != DEC_OK)
		return -1;
	snprintf(key, keylen, "%s", k);
	return 0;
}

/* The unit in an argument's name: "Read(MB/s)" -> "MB/s", "value" -> "", "MHz" -> "MHz". */
static void
unit_of(const char *key, char *buf, size_t len)
{
	const char *a = strchr(key, '('), *b = a ? strchr(a, ')') : NULL;
	if (a && b)
		snprintf(buf, len, "%.*s", (int)(b - a - 1), a + 1);
	else if (strcmp(key, "value") == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%s", key);
}

void
json_counter_event(jctx *c, const jevent *ev)
{
	int64_t t, dur;
	if (json_event_time(c, ev, 0, 1, &t, &dur) != 0 || c->r->nsources == 0)
		return;
	uint16_t src = (uint16_t)(c->r->nsources - 1); /* the loader's source is r's last */
	uint32_t ti = json_thread_of(c, ev);
	const jproc *p = &c->procs[c->threads[ti].proc];
	const char *proc = p->name ? strpool_get(c->tok, p->name) : "";
	cJSON *tmp = NULL;
	size_t nlen;
	const char *name = json_span_string(c, ev->f[F_NAME], &tmp, &nlen);
	char nm[96], key[64];
	snprintf(nm, sizeof nm, "%.*s", (int)nlen, name);
	cJSON_Delete(tmp);
	int64_t v;
	if (strcmp(proc, "NPU MEM") == 0) {
		static const struct {
			const char *name, *group;
			tl_counter_kind kind;
		} npu[] = {{"APP/HBM", "app", TL_CTR_NPU_HBM},
		           {"APP/DDR", "app", TL_CTR_NPU_DDR},
		           {"Device/HBM", "device", TL_CTR_NPU_HBM},
		           {"Device/DDR", "device", TL_CTR_NPU_DDR}};
		for (size_t i = 0; i < sizeof npu / sizeof *npu; i++) {
			if (strcmp(nm, npu[i].name) != 0)
				continue;
			/* KB with up to 6 decimals; bytes = KB * 1024, rounded */
			if (counter_arg(c, ev, "KB", 6, key, sizeof key, &v) != 0) {
				json_problem(c, PR_COUNTER, ev->start);
				return;
			}
			int neg = v < 0;
			uint64_t a = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			if (a / 1000000 > (uint64_t)INT64_MAX / 2048) {
				json_problem(c, PR_COUNTER, ev->start);
				return;
			}
			int64_t b = (int64_t)((a / 1000000) * 1024 +
			                      ((a % 1000000) * 1024 + 500000) / 1000000);
			counter_push(rank_counter(c->r, npu[i].kind, npu[i].group, src), t,
			             neg ? -b : b);
			return;
		}
	}
	if (strcmp(proc, "AI Core Freq") == 0 && strcmp(nm, "AI Core Freq") == 0) {
		if (counter_arg(c, ev, "MHz", 0, key, sizeof key, &v) == 0)
			counter_push(rank_counter(c->r, TL_CTR_FREQ, "", src), t, v);
		else
			json_problem(c, PR_COUNTER, ev->start);
		return;
	}
	if (counter_arg(c, ev, NULL, 3, key, sizeof key, &v) != 0) {
		json_problem(c, PR_COUNTER, ev->start);
		return;
	}
	char unit[64], group[200];
	unit_of(key, unit, sizeof unit);
	snprintf(group, sizeof group, "%s [%s]", nm, unit);
	counter_push(rank_counter(c->r, TL_CTR_OTHER, group, src), t, v);
}

void
json_counters_finish(jctx *c)
{
	tl_rank *r = c->r;
	if (r->nsources == 0)
		return;
	uint16_t src = (uint16_t)(r->nsources - 1);
	size_t back = 0;
	for (size_t i = 0; i < r->ncounters; i++)
		if (r->counters[i]->source == src)
			back += counter_sort(r->counters[i]);
	if (back)
		msg_warn(c->path, "%zu counter samples out of time order (put in order)", back);
}
