/* The generator's JSON writer, device side: Ascend Hardware, HCCL, Overlap Analysis and the AI
 * Core Freq counter. */
#include "config.h"
#include "gen/gen.h"
#include "gen/gen_json_int.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The HostToDevice flow into a device item that starts at ts on (pid, tid); with op, the
 * async_npu flow from its operator too (torch_npu draws none to memcpy tasks), whose id is the
 * item's start in ns, a JSON number (two items starting together share it, as in the files). */
static void
launch_flow_op(jw *w, const char *id, int64_t conn, int64_t pid, int64_t tid, int64_t ts, int op)
{
	uint32_t k;
	if (conn < 0 || !u64map_get(&w->cann_of, (uint64_t)conn, &k))
		return; /* no launch record */
	jw_flow(w, "HostToDevice", id, jw_layer_pid(w, SORT_CANN, 0), w->cann[k].tid,
	        w->cann[k].start, 0);
	jw_flow(w, "HostToDevice", id, pid, tid, ts, 1);
	if (!op || w->op_of.keys == NULL || !u64map_get(&w->op_of, (uint64_t)conn, &k))
		return;
	const op_row *o = &w->ops[k];
	for (int end = 0; end < 2; end++) {
		fprintf(
		    w->f,
		    ", {\"ph\": \"%s\", \"bp\": \"e\", \"name\": \"torch_to_npu\", \"id\": %" PRId64
		    ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"",
		    end ? "f" : "s", ts, end ? pid : w->pid, end ? tid : o->tid);
		jw_us(w, end ? ts : o->start);
		fputs("\", \"cat\": \"async_npu\"}", w->f);
	}
}

static void
launch_flow(jw *w, const char *id, int64_t conn, int64_t pid, int64_t tid, int64_t ts)
{
	launch_flow_op(w, id, conn, pid, tid, ts, 1);
}

/* The device-side spelling msprof writes as "Task Type" for a kernel whose TASK row has the
 * host-side one (KERNEL_AICORE vs AI_CORE; DSA kernels are STARS_COMMON rows that
 * COMPUTE_TASK_INFO types DSA_SQE). */
static const char *
device_type(const char *host)
{
	static const char *const map[][2] = {
	    {"KERNEL_AICORE", "AI_CORE"},  {"KERNEL_AIVEC", "AI_VECTOR_CORE"},
	    {"KERNEL_MIX_AIC", "MIX_AIC"}, {"KERNEL_MIX_AIV", "MIX_AIV"},
	    {"KERNEL_AICPU", "AI_CPU"},    {"STARS_COMMON", "DSA_SQE"}};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (strcmp(host, map[i][0]) == 0)
			return map[i][1];
	return host;
}

static uint64_t
ffts_key(int64_t stream, int64_t task, int64_t conn)
{
	return (uint64_t)(stream & 0xffff) << 48 | (uint64_t)(task & 0xffff) << 32 |
	       (uint64_t)(conn & 0xffffffff);
}

/* Ascend Hardware: every TASK row but the FFTS+ containers; the stream metadata after. */
void
jw_write_hardware(jw *w)
{
	int64_t pid = jw_layer_pid(w, SORT_HW, 1);
	tl_u64map children, streams;
	u64map_init(&children);
	u64map_init(&streams);
	/* FFTS+ containers: contextId invalid, not a kernel, with sub-task rows of
	 * the same stream, taskId and launch */
	sqlite3_stmt *st = jw_prep(w, "SELECT streamId, taskId, connectionId FROM TASK "
	                              "WHERE contextId != 4294967295");
	while (st && sqlite3_step(st) == SQLITE_ROW)
		u64map_put(&children, ffts_key(jw_col(st, 0), jw_col(st, 1), jw_col(st, 2)), 1);
	sqlite3_finalize(st);
	/* the message of a range's device part (its TASK rows share MSTX_EVENTS' connectionId),
	 * when the profile has MSTX_EVENTS */
	int mstx =
	    jw_scalar(w, "SELECT count(*) FROM sqlite_master WHERE name = 'MSTX_EVENTS'", 0) > 0;
	st = jw_prep(
	    w, mstx ? "SELECT t.startNs, t.endNs, t.streamId, t.taskId, t.contextId, "
	              "t.connectionId, t.modelId, t.taskType, c.name, c.taskType, "
	              "c.globalTaskId IS NOT NULL, (SELECT m.message FROM MSTX_EVENTS m WHERE "
	              "m.connectionId = t.connectionId AND t.connectionId > 4000000000 LIMIT 1) "
	              "FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = "
	              "t.globalTaskId ORDER BY t.rowid"
	            : "SELECT t.startNs, t.endNs, t.streamId, t.taskId, t.contextId, "
	              "t.connectionId, t.modelId, t.taskType, c.name, c.taskType, "
	              "c.globalTaskId IS NOT NULL, NULL FROM TASK t LEFT JOIN COMPUTE_TASK_INFO c "
	              "ON c.globalTaskId = t.globalTaskId ORDER BY t.rowid");
	if (st == NULL)
		msg_warn(w->db_path, "no TASK table: no Ascend Hardware process written");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = jw_col(st, 0), e = jw_col(st, 1);
		int64_t stream = jw_col(st, 2), task = jw_col(st, 3);
		int64_t ctx = jw_col(st, 4);
		int64_t conn = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : jw_col(st, 5);
		int kernel = sqlite3_column_int(st, 10);
		if (!kernel && ctx == INVALID_U32 &&
		    u64map_get(&children, ffts_key(stream, task, conn), NULL))
			continue;
		if (sqlite3_column_type(st, 11) != SQLITE_NULL) { /* an MSTX range's device part */
			char id[24];
			snprintf(id, sizeof id, "%" PRId64, conn);
			jw_ev_open(w, "X", jw_str(w, st, 11), pid, stream, s);
			jw_ev_dur(w, e - s);
			fprintf(w->f,
			        ", \"args\": {\"Physic Stream Id\": %" PRId64
			        ", \"Task Id\": %" PRId64 "}}",
			        stream, task);
			fprintf(w->f,
			        ", {\"name\": \"MsTx_%s\", \"ph\": \"f\", \"id\": \"%s\", "
			        "\"ts\": \"",
			        id, id);
			jw_us(w, s);
			fprintf(w->f,
			        "\", \"cat\": \"MsTx\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
			        ", \"bp\": \"e\"}",
			        pid, stream);
			u64map_put(&streams, (uint64_t)stream, 1);
			continue;
		}
		const char *ttype = jw_str(w, st, 7);
		const char *name = kernel ? jw_str(w, st, 8) : ttype;
		const char *type = kernel ? jw_str(w, st, 9) : ttype;
		if (*type == '\0' || strcmp(type, "N/A") == 0)
			type = device_type(ttype); /* Level0: COMPUTE_TASK_INFO has none */
		jw_ev_open(w, "X", name, pid, stream, s);
		jw_ev_dur(w, e - s);
		fprintf(w->f, ", \"args\": {\"Model Id\": %" PRId64, jw_col(st, 6));
		if (w->version == GEN_JSON_2024 && kernel && strcmp(type, "AI_CPU") != 0)
			type = w->kernels++ % 3 == 2 ? NULL : "Other";
		if (type != NULL) {
			fputs(", \"Task Type\": ", w->f);
			jw_jstr(w, type);
		}
		fprintf(w->f,
		        ", \"%s\": %" PRId64 ", \"Task Id\": %" PRId64
		        ", \"Batch Id\": 0, \"Subtask Id\": %" PRId64
		        ", \"connection_id\": %" PRId64 "}}",
		        w->version == GEN_JSON_2024 ? "Stream Id" : "Physic Stream Id", stream,
		        task, ctx, conn);
		if (kernel) {
			char id[48];
			snprintf(id, sizeof id, "%" PRIu64,
			         (uint64_t)conn << 32 | (uint64_t)(ctx & 0xffffffff));
			launch_flow(w, id, conn, pid, stream, s);
			ival x = {s, e};
			VEC_PUSH(w->compute.v, w->compute.n, w->compute.cap, x);
		} else if (strcmp(ttype, "MEMCPY_ASYNC") == 0) {
			char id[24];
			snprintf(id, sizeof id, "%" PRId64, conn);
			launch_flow_op(w, id, conn, pid, stream, s, 0);
		}
		u64map_put(&streams, (uint64_t)stream, 1);
	}
	sqlite3_finalize(st);
	jw_process_meta(w, pid, "Ascend Hardware", "NPU", SORT_HW);
	for (size_t i = 0; i <= streams.mask; i++)
		if (streams.used[i]) {
			char nm[32];
			snprintf(nm, sizeof nm, "Stream %" PRIu64, streams.keys[i]);
			jw_thread_meta(w, pid, (int64_t)streams.keys[i], nm,
			               (int64_t)streams.keys[i]);
		}
	u64map_free(&children);
	u64map_free(&streams);
}

/* HCCL: one "Group {g} Communication" thread per group with the ops, then a "Plane {p}" thread per
 * plane with the sub-tasks; metadata first, as msprof's assembler writes it. */
void
jw_write_hccl(jw *w)
{
	int64_t pid = jw_layer_pid(w, SORT_HCCL, 1);
	u64map_init(&w->groups);
	sqlite3_stmt *st =
	    jw_prep(w, "SELECT groupName, max(planeId) FROM ("
	               "SELECT groupName, 0 AS planeId FROM COMMUNICATION_OP UNION ALL "
	               "SELECT groupName, CASE WHEN planeId = 4294967295 THEN 0 ELSE "
	               "planeId END FROM COMMUNICATION_TASK_INFO) GROUP BY groupName "
	               "ORDER BY groupName");
	int64_t next = 0;
	int any = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t g = jw_col(st, 0), maxp = jw_col(st, 1);
		if (!any)
			jw_process_meta(w, pid, "HCCL", "NPU", SORT_HCCL);
		any = 1;
		char nm[64];
		snprintf(nm, sizeof nm, "Group %zu Communication", w->ngroups);
		jw_thread_meta(w, pid, next, nm, next);
		for (int64_t p = 0; p <= maxp && p < 4096; p++) {
			snprintf(nm, sizeof nm, "Plane %" PRId64, p);
			jw_thread_meta(w, pid, next + p + 1, nm, next + p + 1);
		}
		u64map_put(&w->groups, (uint64_t)g, (uint32_t)w->ngroups);
		w->plane_base = xreallocarray(w->plane_base, w->ngroups + 1, sizeof *w->plane_base);
		w->plane_base[w->ngroups++] = next;
		next += (maxp < 4096 ? maxp : 4095) + 2;
	}
	sqlite3_finalize(st);
	if (!any)
		return;

	static const char *const ocols[] = {"dataType", "algType", "count"};
	char *ol[3];
	for (int k = 0; k < 3; k++)
		ol[k] = jw_colref(w, "COMMUNICATION_OP", "o", ocols[k]);
	char *osql =
	    xasprintf("SELECT o.opName, o.startNs, o.endNs, o.connectionId, o.groupName, %s, "
	              "%s, %s FROM COMMUNICATION_OP o ORDER BY o.startNs",
	              ol[0], ol[1], ol[2]);
	st = jw_prep(w, osql);
	free(osql);
	for (int k = 0; k < 3; k++)
		free(ol[k]);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		uint32_t gi = 0;
		int64_t s = jw_col(st, 1), e = jw_col(st, 2);
		int64_t conn = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : jw_col(st, 3);
		u64map_get(&w->groups, (uint64_t)jw_col(st, 4), &gi);
		int64_t tid = w->plane_base[gi];
		jw_ev_open(w, "X", jw_str(w, st, 0), pid, tid, s);
		jw_ev_dur(w, e - s);
		fprintf(w->f,
		        ", \"args\": {\"connection_id\": %" PRId64 ", \"model id\": 4294967295, "
		        "\"data_type\": ",
		        conn);
		jw_jstr(w, jw_s_of(w, &w->dtype, jw_col(st, 5)));
		fputs(", \"alg_type\": ", w->f);
		jw_jstr(w, jw_str(w, st, 6));
		fprintf(w->f, ", \"count\": %" PRId64 "}}", jw_col(st, 7));
		char id[48];
		snprintf(id, sizeof id, "%" PRIu64, (uint64_t)conn << 32 | 0xffffffffu);
		launch_flow(w, id, conn, pid, tid, s);
		ival x = {s, e};
		VEC_PUSH(w->comm.v, w->comm.n, w->comm.cap, x);
	}
	sqlite3_finalize(st);

	static const char *const ccols[] = {"taskType", "planeId",  "groupName",     "notifyId",
	                                    "srcRank",  "dstRank",  "transportType", "size",
	                                    "dataType", "linkType", "bandwidth"};
	char *cl[11];
	for (int k = 0; k < 11; k++)
		cl[k] = jw_colref(w, "COMMUNICATION_TASK_INFO", "c", ccols[k]);
	char *sql =
	    xasprintf("SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, t.startNs, t.endNs, "
	              "t.streamId, t.taskId, t.contextId, t.modelId, c.name "
	              "FROM COMMUNICATION_TASK_INFO c JOIN TASK t "
	              "ON t.globalTaskId = c.globalTaskId ORDER BY t.startNs",
	              cl[0], cl[1], cl[2], cl[3], cl[4], cl[5], cl[6], cl[7], cl[8], cl[9], cl[10]);
	st = jw_prep(w, sql);
	free(sql);
	for (int k = 0; k < 11; k++)
		free(cl[k]);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		uint32_t gi = 0;
		int64_t plane = jw_col(st, 1);
		int64_t s = jw_col(st, 11), e = jw_col(st, 12);
		u64map_get(&w->groups, (uint64_t)jw_col(st, 2), &gi);
		if (plane == INVALID_U32 || plane < 0 || plane >= 4096)
			plane = 0;
		const char *ty = jw_str(w, st, 0);
		if (*ty == '\0' || strcmp(ty, "N/A") == 0)
			ty = jw_str(w, st, 17); /* Level0: no sub-task type, the op's name */
		jw_ev_open(w, "X", ty, pid, w->plane_base[gi] + plane + 1, s);
		jw_ev_dur(w, e - s);
		fprintf(w->f,
		        ", \"args\": {\"notify_id\": \"%" PRIu64 "\", \"duration estimated(us)\": ",
		        (uint64_t)jw_col(st, 3));
		jw_us(w, e - s);
		fprintf(w->f,
		        ", \"stream id\": %" PRId64 ", \"task id\": %" PRId64
		        ", \"context id\": %" PRId64 ", \"task type\": ",
		        jw_col(st, 13), jw_col(st, 14), jw_col(st, 15));
		jw_jstr(w, ty);
		fprintf(w->f,
		        ", \"src rank\": %" PRId64 ", \"dst rank\": %" PRId64
		        ", \"transport type\": ",
		        jw_col(st, 4), jw_col(st, 5));
		jw_jstr(w, jw_s_of(w, &w->transport, jw_col(st, 6)));
		fprintf(w->f, ", \"size(Byte)\": %" PRId64 ", \"data type\": ", jw_col(st, 7));
		jw_jstr(w, jw_s_of(w, &w->dtype, jw_col(st, 8)));
		fputs(", \"link type\": ", w->f);
		jw_jstr(w, jw_s_of(w, &w->link, jw_col(st, 9)));
		fprintf(w->f, ", \"bandwidth(GB/s)\": %.6f, \"model id\": %" PRId64 "}}",
		        sqlite3_column_double(st, 10), jw_col(st, 16));
	}
	sqlite3_finalize(st);
}

/* Overlap Analysis, computed as msprof does (unions of compute and communication). */
void
jw_write_overlap(jw *w)
{
	static const char *const names[4] = {"Computing", "Communication",
	                                     "Communication(Not Overlapped)", "Free"};
	int64_t pid = jw_layer_pid(w, SORT_OVERLAP, 1);
	ivals lanes[4], busy = {0};
	memset(lanes, 0, sizeof lanes);
	jw_ivals_union(&w->compute);
	jw_ivals_union(&w->comm);
	if (w->compute.n == 0 && w->comm.n == 0)
		return;
	lanes[0] = w->compute;
	lanes[1] = w->comm;
	jw_ivals_minus(&w->comm, &w->compute, &lanes[2]);
	for (size_t i = 0; i < w->compute.n; i++)
		VEC_PUSH(busy.v, busy.n, busy.cap, w->compute.v[i]);
	for (size_t i = 0; i < w->comm.n; i++)
		VEC_PUSH(busy.v, busy.n, busy.cap, w->comm.v[i]);
	jw_ivals_union(&busy);
	ivals span = {0};
	ival all = {busy.v[0].s, busy.v[busy.n - 1].e};
	VEC_PUSH(span.v, span.n, span.cap, all);
	jw_ivals_minus(&span, &busy, &lanes[3]);
	jw_process_meta(w, pid, "Overlap Analysis", "NPU", SORT_OVERLAP);
	for (int k = 0; k < 4; k++)
		jw_thread_meta(w, pid, k, names[k], k);
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < lanes[k].n; i++) {
			jw_ev_open(w, "X", names[k], pid, k, lanes[k].v[i].s);
			jw_ev_dur(w, lanes[k].v[i].e - lanes[k].v[i].s);
			fputs("}", w->f);
		}
	free(lanes[2].v);
	free(lanes[3].v);
	free(busy.v);
	free(span.v);
}

/* The counter processes: AI Core Freq (AICORE_FREQ's rows, or 1800 MHz at the first and last
 * task) and, when the DB has NPU_MEM, NPU MEM: APP/HBM, APP/DDR, Device/HBM, Device/DDR in KB
 * as msprof writes them (bytes / 1024, every decimal: exact). */
static void
jw_counter(jw *w, const char *name, int64_t pid, int64_t t, const char *key, const char *val)
{
	fprintf(w->f, ", {\"name\": \"%s\", \"ts\": \"", name);
	jw_us(w, t);
	fprintf(w->f,
	        "\", \"pid\": %" PRId64 ", \"tid\": 0, \"args\": {\"%s\": %s}, \"ph\": \"C\"}", pid,
	        key, val);
}

static void
jw_write_npu_mem(jw *w)
{
	sqlite3_stmt *st = jw_prep(w, "SELECT (SELECT value FROM STRING_IDS WHERE id = type), hbm, "
	                              "ddr, timestampNs FROM NPU_MEM ORDER BY rowid");
	if (st == NULL)
		return;
	int64_t pid = jw_layer_pid(w, SORT_NPU_MEM, 1);
	int meta = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *pre = type && strcmp(type, "app") == 0      ? "APP"
		                  : type && strcmp(type, "device") == 0 ? "Device"
		                                                        : NULL;
		if (pre == NULL)
			continue;
		if (!meta) {
			jw_process_meta(w, pid, "NPU MEM", "NPU", SORT_NPU_MEM);
			meta = 1;
		}
		for (int k = 0; k < 2; k++) {
			int64_t b = jw_col(st, 1 + k);
			char name[32], kb[48];
			snprintf(name, sizeof name, "%s/%s", pre, k ? "DDR" : "HBM");
			/* 1/1024 = 0.0009765625: ten decimals hold it exactly */
			snprintf(kb, sizeof kb, "%" PRId64 ".%010" PRId64, b / 1024,
			         (b % 1024) * 9765625);
			jw_counter(w, name, pid, jw_col(st, 3), "KB", kb);
		}
	}
	sqlite3_finalize(st);
}

void
jw_write_freq(jw *w)
{
	int64_t pid = jw_layer_pid(w, SORT_FREQ, 1);
	sqlite3_stmt *st = jw_prep(w, "SELECT timestampNs, freq FROM AICORE_FREQ ORDER BY rowid");
	int rows = 0;
	while (st != NULL && sqlite3_step(st) == SQLITE_ROW) {
		if (rows++ == 0)
			jw_process_meta(w, pid, "AI Core Freq", "NPU", SORT_FREQ);
		char v[32];
		snprintf(v, sizeof v, "%" PRId64, jw_col(st, 1));
		jw_counter(w, "AI Core Freq", pid, jw_col(st, 0), "MHz", v);
	}
	sqlite3_finalize(st);
	jw_write_npu_mem(w);
	if (rows)
		return;
	int64_t t0 = jw_scalar(w, "SELECT min(startNs) FROM TASK", -1);
	int64_t t1 = jw_scalar(w, "SELECT max(endNs) FROM TASK", -1);
	if (t0 < 0)
		return;
	jw_process_meta(w, pid, "AI Core Freq", "NPU", SORT_FREQ);
	for (int k = 0; k < 2; k++)
		jw_counter(w, "AI Core Freq", pid, k ? t1 : t0, "MHz", "1800");
}
