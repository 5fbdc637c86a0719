/* The generator's JSON writer: a torch_npu unified DB -> the trace_view.json that torch_npu's text
 * export would have written for the same capture, so one
 * profile exists in both formats and the two loaders can be held to the same numbers.
 *
 * What the real files look like, and what is copied here (a January-2025 torch_npu text export
 * is the model):
 *  - a bare JSON array; `ts` a string of µs with exactly three decimals, `dur` a number of µs;
 *  - pids of the 2025 scheme: Python = the OS pid, the msprof layers (pid << 10) | (sort << 5) |
 *    device, with the 2025 sort indexes (CANN 7, Ascend Hardware 13, AI Core Freq 14, HCCL 15,
 *    Overlap Analysis 23; the MsprofTx index was not observed, 8 is our choice);
 *  - processes named by process_name metadata, threads by thread_name: Python "Thread {tid}",
 *    CANN "Thread {tid}", Ascend Hardware "Stream {id}", HCCL "Group {g} Communication" and
 *    "Plane {p}" (tid = group start + p + 1), Overlap Analysis tids 0..3, MsprofTx "Thread {tid}";
 *    the Python metadata follows the Python events and the Ascend Hardware metadata follows the
 *    tasks, as in the files (loaders must not rely on metadata coming first);
 *  - device tasks named by COMPUTE_TASK_INFO.name with its taskType as "Task Type" (else the
 *    TASK type), FFTS+ container rows left out (msprof hides them), HCCL sub-tasks both on their
 *    stream and on their plane;
 *  - HostToDevice flows from the CANN launch to kernels, memcpy tasks and HCCL ops; ids are
 *    strings (here connectionId << 32 | contextId, and the bare connectionId for memcpy);
 *  - async_npu flows ("torch_to_npu") from the PyTorch operator behind a launch (the innermost
 *    row CONNECTION_IDS links to it: operators before queue rows, the latest start, the
 *    shortest) to its kernels and HCCL ops, not to memcpy tasks; the id is the target's start in
 *    ns, a JSON number;
 *  - the device part of an MSTX range given a stream (its MsTx TASK row) as msprof's msproftx
 *    viewer writes it: on its Ascend Hardware stream, named by the range's message, args
 *    "Physic Stream Id" and "Task Id" only, joined to the host range by an MsTx flow whose id
 *    is the connectionId;
 *  - the Overlap Analysis process computed as msprof does: Computing = ∪ compute tasks,
 *    Communication = ∪ ops, Communication(Not Overlapped) = Communication − Computing,
 *    Free = [first, last busy] − (Computing ∪ Communication).
 *
 * GEN_JSON_2024 writes what the torch_npu / msprof of early 2024 wrote instead (as a real
 * January-2024 trace_view.json has it, the oldest of three pid schemes seen): pids Ascend
 * Hardware 800, CANN pid * 100 + 2, Overlap Analysis pid * 10000 + 1100 (HCCL pid * 10000 +
 * 1000 and MsprofTx pid * 100 + 8 are our choice, not observed); streams in "Stream Id" (no
 * "Physic Stream Id");
 * the kernels' "Task Type" only for AI_CPU kernels, "Other" for the AI Core and vector ones, or
 * no "Task Type" at all (every third one here); no AI Core Freq counter. The Overlap Analysis
 * process still comes from the DB (COMPUTE_TASK_INFO membership), never from those strings. */
#include "config.h"
#include "gen/gen.h"
#include "gen/gen_json_int.h"
#include "util/msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* STRING_IDS or an ENUM_* table: id -> pool id. */
static void
jw_read_map(jw *w, const char *sql, tl_u64map *m)
{
	sqlite3_stmt *st = jw_prep(w, sql);
	u64map_init(m);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 1);
		u64map_put(m, (uint64_t)jw_col(st, 0), strpool_intern_cstr(w->pool, v ? v : ""));
	}
	sqlite3_finalize(st);
}

int
gen_json_from_db(const char *db_path, const char *json_path)
{
	return gen_json_from_db_version(db_path, json_path, GEN_JSON_2025);
}

int
gen_json_from_db_version(const char *db_path, const char *json_path, int version)
{
	jw w;
	memset(&w, 0, sizeof w);
	w.version = version;
	w.db_path = db_path;
	w.path = json_path;
	w.first = 1;
	/* immutable, as tl's loader opens DBs: never a -wal, -shm or lock beside the input (a
	 * real sample's directory is not ours to write in). Paths are the caller's own. */
	char *uri = sqlite3_mprintf("file:%s?immutable=1", db_path);
	int rc = sqlite3_open_v2(uri, &w.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	sqlite3_free(uri);
	if (rc != SQLITE_OK) {
		msg_error("gen: %s: %s", db_path, w.db ? sqlite3_errmsg(w.db) : sqlite3_errstr(rc));
		sqlite3_close(w.db);
		return -1;
	}
	w.f = fopen(json_path, "w");
	if (w.f == NULL) {
		msg_error("gen: cannot create %s: %s", json_path, strerror(errno));
		sqlite3_close(w.db);
		return -1;
	}
	setvbuf(w.f, NULL, _IOFBF, 1 << 20);
	w.pool = strpool_new();
	jw_read_map(&w, "SELECT id, value FROM STRING_IDS", &w.str);
	jw_read_map(&w, "SELECT id, name FROM ENUM_API_TYPE", &w.api);
	jw_read_map(&w, "SELECT id, name FROM ENUM_HCCL_DATA_TYPE", &w.dtype);
	jw_read_map(&w, "SELECT id, name FROM ENUM_HCCL_LINK_TYPE", &w.link);
	jw_read_map(&w, "SELECT id, name FROM ENUM_HCCL_TRANSPORT_TYPE", &w.transport);
	jw_read_map(&w, "SELECT id, name FROM ENUM_MSTX_EVENT_TYPE", &w.mstx_type);
	w.dev = jw_scalar(&w, "SELECT deviceId FROM TASK LIMIT 1",
	                  jw_scalar(&w, "SELECT deviceId FROM RANK_DEVICE_MAP LIMIT 1", 0));
	w.pid = jw_scalar(&w, "SELECT globalPid FROM TASK LIMIT 1", -1);
	if (w.pid < 0)
		w.pid = jw_scalar(&w, "SELECT globalTid >> 32 FROM CANN_API LIMIT 1", 1);
	w.pid &= (INT64_C(1) << 22) - 1; /* (pid << 10) must stay a plain JSON integer */

	jw_write_python(&w);
	jw_read_ops(&w);
	jw_write_cann(&w);
	jw_write_hardware(&w);
	jw_write_hccl(&w);
	jw_write_overlap(&w);
	jw_write_mstx(&w);
	if (version != GEN_JSON_2024)
		jw_write_freq(&w);
	fputs(w.first ? "[]\n" : "]\n", w.f);

	if (ferror(w.f) || fclose(w.f) != 0) {
		msg_error("gen: cannot write %s: %s", json_path, strerror(errno));
		rc = -1;
	} else {
		rc = w.err ? -1 : 0;
	}
	sqlite3_close(w.db);
	u64map_free(&w.str);
	u64map_free(&w.api);
	u64map_free(&w.dtype);
	u64map_free(&w.link);
	u64map_free(&w.transport);
	u64map_free(&w.mstx_type);
	if (w.cann_of.keys)
		u64map_free(&w.cann_of);
	if (w.op_of.keys)
		u64map_free(&w.op_of);
	free(w.ops);
	if (w.groups.keys)
		u64map_free(&w.groups);
	free(w.cann);
	free(w.plane_base);
	free(w.compute.v);
	free(w.comm.v);
	strpool_free(w.pool);
	return rc;
}
