/* The generator's DB writer: the tables of an ascend_pytorch_profiler_{rank}.db as torch_npu
 * writes them, quirks included, from a rank's plan. */
#include "config.h"
#include "gen/gen_int.h"
#include "gen/gen.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a growing string -------------------------------------------------------------------- */

void
gen_sbuf_printf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		int m = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
		va_end(ap);
		if (m < 0)
			return;
		if ((size_t)m < room) {
			b->n += (size_t)m;
			return;
		}
		b->cap = b->cap * 2 + (size_t)m + 64;
		b->s = xrealloc(b->s, b->cap);
	}
}

/* ---- the writer ----------------------------------------------------------------------------- */
static const int q_ncol[NBATCHED] = {11, 17, 6};
static const char *const q_table[NBATCHED] = {"TASK", "COMPUTE_TASK_INFO", "CANN_API"};

/* Exact DDL: msprof's current CREATE TABLE statements (msprof creates these first, so its
 * DDL wins for the tables torch_npu shares) and torch_npu's for STEP_TIME,
 * PYTORCH_API and CONNECTION_IDS. */
const char *const gen_ddl_tables[] = {
    "CREATE TABLE IF NOT EXISTS STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);",
    "CREATE TABLE IF NOT EXISTS SESSION_TIME_INFO (startTimeNs INTEGER,endTimeNs INTEGER);",
    "CREATE TABLE IF NOT EXISTS NPU_INFO (id INTEGER,name TEXT);",
    "CREATE TABLE IF NOT EXISTS RANK_DEVICE_MAP (rankId INTEGER,deviceId INTEGER);",
    "CREATE TABLE IF NOT EXISTS HOST_INFO (hostUid TEXT,hostName TEXT);",
    "CREATE TABLE IF NOT EXISTS TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,"
    "connectionId INTEGER,globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,"
    "contextId INTEGER,streamId INTEGER,taskId INTEGER,modelId INTEGER);",
    "CREATE TABLE IF NOT EXISTS COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,"
    "blockNum INTEGER,mixBlockNum INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,"
    "inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,outputDataTypes INTEGER,"
    "outputShapes INTEGER,attrInfo INTEGER,opState INTEGER,hf32Eligible INTEGER,gridDim INTEGER,"
    "blockDim INTEGER);",
    "CREATE TABLE IF NOT EXISTS COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,"
    "taskType INTEGER,planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,"
    "srcRank INTEGER,dstRank INTEGER,transportType INTEGER,size INTEGER,dataType INTEGER,"
    "linkType INTEGER,opId INTEGER,isMaster INTEGER,bandwidth NUMERIC);",
    "CREATE TABLE IF NOT EXISTS COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,"
    "connectionId INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,"
    "retry INTEGER,dataType INTEGER,algType INTEGER,count NUMERIC,opType INTEGER,"
    "deviceId INTEGER,rankSize INTEGER);",
    "CREATE TABLE IF NOT EXISTS CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,"
    "globalTid INTEGER,connectionId INTEGER PRIMARY KEY,name INTEGER);",
    "CREATE TABLE IF NOT EXISTS META_DATA (name TEXT,value TEXT);",
    "CREATE TABLE IF NOT EXISTS MSTX_EVENTS (startNs INTEGER,endNs INTEGER,eventType INTEGER,"
    "rangeId INTEGER,category INTEGER,message INTEGER,globalTid INTEGER,endGlobalTid INTEGER,"
    "domainId INTEGER,connectionId INTEGER);",
    "CREATE TABLE IF NOT EXISTS ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_DATA_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_LINK_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_TRANSPORT_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_HCCL_RDMA_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS ENUM_MSTX_EVENT_TYPE (id INTEGER PRIMARY KEY,name TEXT);",
    "CREATE TABLE IF NOT EXISTS STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER)",
    "CREATE TABLE IF NOT EXISTS PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, "
    "connectionId INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, "
    "inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER, type INTEGER);",
    "CREATE TABLE IF NOT EXISTS CONNECTION_IDS (id INTEGER, connectionId INTEGER);",
};
const char *const gen_ddl_indexes[] = {
    "CREATE INDEX IF NOT EXISTS TaskIndex ON TASK (startNs,globalTaskId);",
    "CREATE INDEX IF NOT EXISTS CommunicationTaskIndex ON COMMUNICATION_TASK_INFO (globalTaskId);",
};

static const char *const q_sql[Q__COUNT] = {
    [Q_TASK] = "INSERT INTO TASK VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [Q_CTI] = "INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_API] = "INSERT INTO CANN_API VALUES (?,?,?,?,?,?)",
    [Q_OP] = "INSERT INTO COMMUNICATION_OP VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_CTASK] = "INSERT INTO COMMUNICATION_TASK_INFO VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [Q_MSTX] = "INSERT INTO MSTX_EVENTS VALUES (?,?,?,?,?,?,?,?,?,?)",
    [Q_STR] = "INSERT INTO STRING_IDS VALUES (?,?)",
    [Q_PAIR_TEXT] = "INSERT INTO META_DATA VALUES (?,?)",
    [Q_TORCH] = "INSERT INTO PYTORCH_API VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    [Q_CONN_IDS] = "INSERT INTO CONNECTION_IDS VALUES (?,?)",
};

/* ENUM_* rows as msprof's current code writes them; torch_npu adds the
 * 5000x API types. */
const gen_enum gen_enum_api[] = {{5000, "runtime"}, {5500, "communication"}, {10000, "node"},
                                 {15000, "model"},  {20000, "acl"},          {50001, "op"},
                                 {50002, "queue"},  {50003, "trace"},        {50004, "mstx"}};
const gen_enum gen_enum_mstx[] = {
    {0, "marker"}, {1, "push/pop"}, {2, "start/end"}, {3, "marker_ex"}};
const gen_enum gen_enum_dtype[] = {
    {0, "INT8"},     {1, "INT16"},    {2, "INT32"},      {3, "FP16"},    {4, "FP32"},
    {5, "INT64"},    {6, "UINT64"},   {7, "UINT8"},      {8, "UINT16"},  {9, "UINT32"},
    {10, "FP64"},    {11, "BFP16"},   {12, "INT128"},    {14, "HIF8"},   {15, "FP8E4M3"},
    {16, "FP8E5M2"}, {17, "FP8E8M0"}, {255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}};
const gen_enum gen_enum_link[] = {{0, "ON_CHIP"},       {1, "HCCS"},    {2, "PCIE"},
                                  {3, "ROCE"},          {4, "SIO"},     {5, "HCCS_SW"},
                                  {6, "STANDARD_ROCE"}, {7, "UB"},      {8, "UBoE"},
                                  {255, "RESERVED"},    {65534, "N/A"}, {65535, "INVALID_TYPE"}};
const gen_enum gen_enum_transport[] = {
    {0, "SDMA"}, {1, "RDMA"},       {2, "LOCAL"},   {3, "UB"},
    {4, "ROCE"}, {255, "RESERVED"}, {65534, "N/A"}, {65535, "INVALID_TYPE"}};
const gen_enum gen_enum_rdma[] = {{0, "RDMA_SEND_NOTIFY"},
                                  {1, "RDMA_SEND_PAYLOAD"},
                                  {255, "RESERVED"},
                                  {65534, "N/A"},
                                  {65535, "INVALID_TYPE"}};

void
gen_w_fail(gen_writer *w, const char *what)
{
	if (!w->err)
		msg_error("gen: %s: %s: %s", w->path, what, w->db ? sqlite3_errmsg(w->db) : "");
	w->err = 1;
}

void
gen_w_exec(gen_writer *w, const char *sql)
{
	char *e = NULL;
	if (w->err)
		return;
	if (sqlite3_exec(w->db, sql, NULL, NULL, &e) != SQLITE_OK) {
		if (!w->err)
			msg_error("gen: %s: %s: %s", w->path, sql, e ? e : "?");
		w->err = 1;
	}
	sqlite3_free(e);
}

static void
w_step(gen_writer *w, sqlite3_stmt *st, const int64_t *v, int n)
{
	if (w->err)
		return;
	for (int i = 0; i < n; i++)
		sqlite3_bind_int64(st, i + 1, v[i]);
	if (sqlite3_step(st) != SQLITE_DONE)
		gen_w_fail(w, "insert");
	sqlite3_reset(st);
}

void
gen_w_row(gen_writer *w, int q, const int64_t *v, int n)
{
	if (q >= NBATCHED) {
		w_step(w, w->q[q], v, n);
		return;
	}
	memcpy(w->pend[q] + (size_t)w->npend[q] * (size_t)n, v, (size_t)n * sizeof *v);
	if (++w->npend[q] == BATCH) {
		w_step(w, w->many[q], w->pend[q], BATCH * n);
		w->npend[q] = 0;
	}
}

/* Writes the rows that did not fill a batch, one by one. */
void
gen_w_flush(gen_writer *w)
{
	for (int q = 0; q < NBATCHED; q++) {
		for (int i = 0; i < w->npend[q]; i++)
			w_step(w, w->q[q], w->pend[q] + (size_t)i * (size_t)q_ncol[q], q_ncol[q]);
		w->npend[q] = 0;
	}
}

void
gen_w_prepare(gen_writer *w)
{
	for (int q = 0; q < Q__COUNT && !w->err; q++)
		if (sqlite3_prepare_v2(w->db, q_sql[q], -1, &w->q[q], NULL) != SQLITE_OK)
			gen_w_fail(w, q_sql[q]);
	for (int q = 0; q < NBATCHED && !w->err; q++) {
		sbuf b = {0};
		gen_sbuf_printf(&b, "INSERT INTO %s VALUES ", q_table[q]);
		for (int r = 0; r < BATCH; r++) {
			gen_sbuf_printf(&b, "%s(", r ? "," : "");
			for (int c = 0; c < q_ncol[q]; c++)
				gen_sbuf_printf(&b, "%s?", c ? "," : "");
			gen_sbuf_printf(&b, ")");
		}
		if (sqlite3_prepare_v2(w->db, b.s, -1, &w->many[q], NULL) != SQLITE_OK)
			gen_w_fail(w, "prepare a batch insert");
		free(b.s);
		w->pend[q] = xmalloc((size_t)BATCH * (size_t)q_ncol[q] * sizeof(int64_t));
	}
}

void
gen_w_pair(gen_writer *w, sqlite3_stmt *st, int64_t id, const char *key, const char *value)
{
	if (w->err)
		return;
	if (key)
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		gen_w_fail(w, "insert");
	sqlite3_reset(st);
}

void
gen_w_enum(gen_writer *w, const char *table, const gen_enum *e, size_t n)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	if (w->err)
		return;
	snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (?,?)", table);
	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) {
		gen_w_fail(w, sql);
		return;
	}
	for (size_t i = 0; i < n; i++)
		gen_w_pair(w, st, e[i].id, NULL, e[i].name);
	sqlite3_finalize(st);
}

int64_t
gen_w_taskid(gen_writer *w, int stream)
{
	uint32_t id = w->taskid[stream];
	w->taskid[stream] = (id + 1) & 0xffff; /* a 16-bit per-stream counter that wraps */
	return id;
}
