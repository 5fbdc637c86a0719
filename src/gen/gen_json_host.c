/* The generator's JSON writer, host side: the Python process (steps, torch ops, fwd/bwd flows),
 * CANN and MsprofTx. */
#include "config.h"
#include "gen/gen_json_int.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- the processes -------------------------------------------------------------------------- */

/* One end of a fwdbwd flow, spelled as torch_npu's text export writes it: a numeric id and
 * "bp": "e" on both ends (jw_flow() writes the msprof spelling). */
static void
fwdbwd_flow(jw *w, int end, int64_t id, int64_t tid, int64_t ts)
{
	fputs(w->first ? "[" : ", ", w->f);
	w->first = 0;
	fprintf(w->f,
	        "{\"ph\": \"%s\", \"bp\": \"e\", \"name\": \"fwdbwd\", \"id\": %" PRId64
	        ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"",
	        end ? "f" : "s", id, w->pid, tid);
	jw_us(w, ts);
	fputs("\", \"cat\": \"fwdbwd\"}", w->f);
}

/* The forward -> backward flows: CONNECTION_IDS groups of exactly two operators on two threads
 * (Insight's "fwdbwd" category; the same table links operators to their kernels and Enqueue to
 * Dequeue). torch_npu's exporter pairs them by autograd sequence number, the start being the
 * operator with "Fwd thread id" 0, and uses that number as the id. */
static void
jw_write_fwdbwd(jw *w)
{
	sqlite3_stmt *st = jw_prep(
	    w, "SELECT c.connectionId, p.sequenceNumber, p.globalTid, CAST(p.startNs AS INTEGER) "
	       "FROM CONNECTION_IDS c JOIN PYTORCH_API p ON p.connectionId = c.id "
	       "WHERE p.type = 50001 AND c.connectionId IN ("
	       "SELECT c2.connectionId FROM CONNECTION_IDS c2 JOIN PYTORCH_API p2 "
	       "ON p2.connectionId = c2.id WHERE p2.type = 50001 GROUP BY c2.connectionId "
	       "HAVING count(*) = 2 AND count(DISTINCT p2.globalTid) = 2) "
	       "ORDER BY c.connectionId, coalesce(p.fwdThreadId, 0) != 0, 4");
	int64_t conn = 0, seq = 0, tid = 0, ts = 0;
	int have = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t c = jw_col(st, 0), t = jw_col(st, 2) & 0xffffffff, s = jw_col(st, 3);
		if (have && c == conn) {
			if (seq >= 0) { /* torch_npu leaves operators without a number out */
				fwdbwd_flow(w, 0, seq, tid, ts);
				fwdbwd_flow(w, 1, seq, t, s);
			}
			have = 0;
			continue;
		}
		conn = c;
		seq = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : jw_col(st, 1);
		tid = t;
		ts = s;
		have = 1;
	}
	sqlite3_finalize(st);
}

/* An operator's "Call stack" arg as torch_npu's with_stack writes it: its frames, innermost
 * first, each but the last ended by ";\r\n". */
static void
call_stack(jw *w, sqlite3_stmt *cs, int64_t id)
{
	sqlite3_reset(cs);
	sqlite3_bind_int64(cs, 1, id);
	char *v = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(cs) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(cs, 0);
		size_t l = f ? strlen(f) : 0;
		VEC_RESERVE(v, cap, n + l + 4);
		if (n > 0) {
			memcpy(v + n, ";\r\n", 3);
			n += 3;
		}
		memcpy(v + n, f ? f : "", l);
		n += l;
		v[n] = '\0';
	}
	if (n > 0) {
		fputs("\"Call stack\": ", w->f);
		jw_jstr(w, v);
	}
	free(v);
}

/* Python: the ProfilerStep#N ranges (STEP_TIME), the torch ops (PYTORCH_API, when the DB has
 * them) and their fwdbwd flows; its metadata after its events, as torch_npu writes it. */
void
jw_write_python(jw *w)
{
	sqlite3_stmt *st;
	tl_u64map tids;
	u64map_init(&tids);
	u64map_put(&tids, (uint64_t)w->pid, 1);
	st = jw_prep(w, "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char nm[48];
		int64_t s = jw_col(st, 1), e = jw_col(st, 2);
		snprintf(nm, sizeof nm, "ProfilerStep#%" PRId64, jw_col(st, 0));
		jw_ev_open(w, "X", nm, w->pid, w->pid, s);
		jw_ev_dur(w, e - s);
		fputs(", \"cat\": \"cpu_op\", \"args\": {\"Sequence number\": -1, \"Fwd thread "
		      "id\": 0}}",
		      w->f);
	}
	sqlite3_finalize(st);
	/* PYTORCH_API times are TEXT in every torch_npu version */
	st = jw_prep(w, "SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER), globalTid, name, "
	                "callchainId FROM PYTORCH_API");
	/* with_stack: the frames of a callchain, innermost first */
	sqlite3_stmt *cs = NULL;
	if (sqlite3_prepare_v2(w->db,
	                       "SELECT s.value FROM PYTORCH_CALLCHAINS c JOIN STRING_IDS s ON s.id "
	                       "= c.stack WHERE c.id = ? ORDER BY c.stackDepth",
	                       -1, &cs, NULL) != SQLITE_OK) {
		sqlite3_finalize(cs);
		cs = NULL;
	}
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *nm = jw_str(w, st, 3);
		int64_t tid = jw_col(st, 2) & 0xffffffff;
		if (strncmp(nm, "ProfilerStep#", 13) == 0)
			continue; /* written from STEP_TIME above */
		jw_ev_open(w, "X", nm, w->pid, tid, jw_col(st, 0));
		jw_ev_dur(w, jw_col(st, 1) - jw_col(st, 0));
		fputs(", \"cat\": \"cpu_op\", \"args\": {", w->f);
		if (cs != NULL && sqlite3_column_type(st, 4) != SQLITE_NULL)
			call_stack(w, cs, jw_col(st, 4));
		fputs("}}", w->f);
		u64map_put(&tids, (uint64_t)tid, 1);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(cs);
	jw_write_fwdbwd(w);
	jw_process_meta(w, w->pid, "Python", "CPU", w->pid);
	for (size_t i = 0; i <= tids.mask; i++)
		if (tids.used[i]) {
			char nm[48];
			snprintf(nm, sizeof nm, "Thread %" PRIu64, tids.keys[i]);
			jw_thread_meta(w, w->pid, (int64_t)tids.keys[i], nm, (int64_t)tids.keys[i]);
		}
	u64map_free(&tids);
}

/* CANN: "<Level>@<api>" slices; the launches are kept for the flows. */
void
jw_write_cann(jw *w)
{
	static const struct {
		const char *level, *prefix;
	} levels[] = {{"acl", "AscendCL"}, {"node", "Node"}, {"runtime", "Runtime"},
	              {"model", "Model"},  {"hccl", "Hccl"}, {"communication", "Communication"}};
	int64_t pid = jw_layer_pid(w, SORT_CANN, 0);
	tl_u64map tids;
	u64map_init(&tids);
	u64map_init(&w->cann_of);
	jw_process_meta(w, pid, "CANN", "CPU", SORT_CANN);
	sqlite3_stmt *st = jw_prep(w, "SELECT startNs, endNs, type, globalTid, connectionId, name "
	                              "FROM CANN_API");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = jw_col(st, 0), e = jw_col(st, 1);
		int64_t tid = jw_col(st, 3) & 0xffffffff;
		int64_t conn = jw_col(st, 4);
		const char *level = jw_s_of(w, &w->api, jw_col(st, 2));
		const char *prefix = level;
		for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
			if (strcmp(level, levels[k].level) == 0)
				prefix = levels[k].prefix;
		const char *api = jw_str(w, st, 5);
		char *nm = xasprintf("%s@%s", prefix, api);
		jw_ev_open(w, "X", nm, pid, tid, s);
		free(nm);
		jw_ev_dur(w, e - s);
		fprintf(w->f,
		        ", \"args\": {\"Thread Id\": %" PRId64 ", \"Mode\": \"ACL_RTS\", "
		        "\"level\": ",
		        tid);
		jw_jstr(w, level);
		fputs(", \"id\": ", w->f);
		jw_jstr(w, api);
		fprintf(w->f, ", \"item_id\": \"0\", \"connection_id\": %" PRId64 "}}", conn);
		if (!u64map_get(&tids, (uint64_t)tid, NULL)) {
			u64map_put(&tids, (uint64_t)tid, 1);
			char tn[48];
			snprintf(tn, sizeof tn, "Thread %" PRId64, tid);
			jw_thread_meta(w, pid, tid, tn, tid);
		}
		cann_row cr = {s, tid};
		VEC_PUSH(w->cann, w->ncann, w->canncap, cr);
		u64map_put(&w->cann_of, (uint64_t)conn, (uint32_t)(w->ncann - 1));
	}
	sqlite3_finalize(st);
	u64map_free(&tids);
}

/* MsprofTx: the host MSTX ranges in a process named like the profiled program. */
void
jw_write_mstx(jw *w)
{
	int64_t pid = jw_layer_pid(w, SORT_MSPROFTX, 0);
	tl_u64map tids;
	int any = 0;
	u64map_init(&tids);
	int task = jw_scalar(w, "SELECT count(*) FROM sqlite_master WHERE name = 'TASK'", 0) > 0;
	sqlite3_stmt *st =
	    jw_prep(w, task ? "SELECT startNs, endNs, eventType, message, globalTid, "
	                      "domainId, connectionId, connectionId IN (SELECT "
	                      "connectionId FROM TASK) FROM MSTX_EVENTS ORDER BY startNs"
	                    : "SELECT startNs, endNs, eventType, message, globalTid, "
	                      "domainId, connectionId, 0 FROM MSTX_EVENTS ORDER BY startNs");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = jw_col(st, 0);
		int64_t e = sqlite3_column_type(st, 1) == SQLITE_NULL ? s : jw_col(st, 1);
		int64_t tid = jw_col(st, 4) & 0xffffffff;
		jw_ev_open(w, "X", jw_str(w, st, 3), pid, tid, s);
		jw_ev_dur(w, e - s);
		fputs(", \"args\": {\"event_type\": ", w->f);
		jw_jstr(w, jw_s_of(w, &w->mstx_type, jw_col(st, 2)));
		fputs(", \"domain\": ", w->f);
		jw_jstr(w, jw_str(w, st, 5));
		fputs("}}", w->f);
		int64_t conn = jw_col(st, 6);
		if (conn > 4000000000 && sqlite3_column_int(st, 7)) { /* to its device part */
			char id[24];
			snprintf(id, sizeof id, "%" PRId64, conn);
			fprintf(w->f,
			        ", {\"name\": \"MsTx_%s\", \"ph\": \"s\", \"id\": \"%s\", "
			        "\"ts\": \"",
			        id, id);
			jw_us(w, s);
			fprintf(w->f,
			        "\", \"cat\": \"MsTx\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
			        "}",
			        pid, tid);
		}
		u64map_put(&tids, (uint64_t)tid, 1);
		any = 1;
	}
	sqlite3_finalize(st);
	if (any) {
		jw_process_meta(w, pid, "python3", "CPU", SORT_MSPROFTX);
		for (size_t i = 0; i <= tids.mask; i++)
			if (tids.used[i]) {
				char nm[48];
				snprintf(nm, sizeof nm, "Thread %" PRIu64, tids.keys[i]);
				jw_thread_meta(w, pid, (int64_t)tids.keys[i], nm,
				               (int64_t)tids.keys[i]);
			}
	}
	u64map_free(&tids);
}

void
jw_read_ops(jw *w)
{
	u64map_init(&w->op_of);
	sqlite3_stmt *st =
	    jw_prep(w, "SELECT c.connectionId, CAST(p.startNs AS INTEGER), "
	               "CAST(p.endNs AS INTEGER), p.type, p.globalTid FROM "
	               "CONNECTION_IDS c JOIN PYTORCH_API p ON p.connectionId = c.id");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		op_row o = {jw_col(st, 1), jw_col(st, 2), jw_col(st, 4) & 0xffffffff,
		            jw_col(st, 3) == 50001};
		uint64_t conn = (uint64_t)jw_col(st, 0);
		uint32_t k;
		if (!u64map_get(&w->op_of, conn, &k)) {
			VEC_PUSH(w->ops, w->nops, w->opcap, o);
			u64map_put(&w->op_of, conn, (uint32_t)(w->nops - 1));
			continue;
		}
		/* the innermost: operators before queue rows, the latest start, the shortest */
		op_row *b = &w->ops[k];
		if (o.op > b->op || (o.op == b->op && (o.start > b->start ||
		                                       (o.start == b->start && o.end < b->end))))
			*b = o;
	}
	sqlite3_finalize(st);
}
