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
 *    shortest) to its kernels and HCCL ops, not to memcpy tasks; ids are JSON numbers;
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
#include "util/msg.h"
#include "util/strpool.h"
#include "util/text.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */

/* 2025 sort indexes of the msprof layers (pid = (pid << 10) | (sort << 5) | ...) */
#define SORT_CANN 7
#define SORT_MSPROFTX 8
#define SORT_HW 13
#define SORT_FREQ 14
#define SORT_HCCL 15
#define SORT_OVERLAP 23

typedef struct ival {
	int64_t s, e;
} ival;

typedef struct ivals {
	ival *v;
	size_t n, cap;
} ivals;

typedef struct cann_row {
	int64_t start, tid;
} cann_row;

typedef struct op_row { /* the innermost PyTorch row behind a launch */
	int64_t start, end, tid;
	int op; /* an operator (type 50001), not a queue or trace row */
} op_row;

typedef struct jw {
	const char *db_path, *path;
	sqlite3 *db;
	FILE *f;
	int first; /* no event written yet */
	int err;
	tl_strpool *pool;
	tl_u64map str;                /* STRING_IDS id -> pool id */
	tl_u64map api, dtype, link, transport, mstx_type; /* ENUM_* id -> pool id */
	int64_t pid, dev;
	cann_row *cann; /* CANN_API rows, by index */
	size_t ncann, canncap;
	tl_u64map cann_of; /* connectionId -> index into cann */
	op_row *ops;       /* PyTorch rows behind launches, by index */
	size_t nops, opcap;
	tl_u64map op_of; /* CANN connectionId -> index into ops */
	tl_u64map groups;  /* group string id -> thread index of its "Group … Communication" */
	int64_t *plane_base;
	size_t ngroups;
	ivals compute, comm; /* sorted unions, for Overlap Analysis */
	int version;         /* GEN_JSON_2025 or GEN_JSON_2024 */
	uint64_t kernels;    /* kernels written (the 2024 layout drops every third one's type) */
} jw;

/* ---- output ------------------------------------------------------------------------------- */

static void
jstr(jw *w, const char *s)
{
	const char *p = s;
	while (*p && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f && *p != '"' && *p != '\\')
		p++;
	fputc('"', w->f);
	if (*p == '\0')
		fputs(s, w->f);
	else
		text_json_write(w->f, s);
	fputc('"', w->f);
}

/* ns -> the µs text torch_npu writes: exactly three decimals. */
static void
jus(jw *w, int64_t ns)
{
	if (ns < 0) {
		fputc('-', w->f);
		ns = -ns;
	}
	fprintf(w->f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

/* Opens an event: {"ph": .., "name": .., "pid": .., "tid": .., "ts": "..." */
static void
ev_open(jw *w, const char *ph, const char *name, int64_t pid, int64_t tid, int64_t ts)
{
	fputs(w->first ? "[" : ", ", w->f);
	w->first = 0;
	fprintf(w->f, "{\"ph\": \"%s\", \"name\": ", ph);
	jstr(w, name);
	fprintf(w->f, ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"", pid, tid);
	jus(w, ts);
	fputc('"', w->f);
}

static void
ev_dur(jw *w, int64_t ns)
{
	fputs(", \"dur\": ", w->f);
	jus(w, ns);
}

static void
meta(jw *w, const char *what, int64_t pid, int64_t tid, const char *key, const char *sval,
    int64_t num)
{
	fputs(w->first ? "[" : ", ", w->f);
	w->first = 0;
	fprintf(w->f, "{\"name\": \"%s\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
		      ", \"args\": {\"%s\": ",
	    what, pid, tid, key);
	if (sval)
		jstr(w, sval);
	else
		fprintf(w->f, "%" PRId64, num);
	fputs("}, \"ph\": \"M\"}", w->f);
}

static void
process_meta(jw *w, int64_t pid, const char *name, const char *label, int64_t sort)
{
	meta(w, "process_name", pid, 0, "name", name, 0);
	meta(w, "process_labels", pid, 0, "labels", label, 0);
	meta(w, "process_sort_index", pid, 0, "sort_index", NULL, sort);
}

static void
thread_meta(jw *w, int64_t pid, int64_t tid, const char *name, int64_t sort)
{
	meta(w, "thread_name", pid, tid, "name", name, 0);
	meta(w, "thread_sort_index", pid, tid, "sort_index", NULL, sort);
}

/* A flow: "s" on the launch, "f" ("bp": "e") on the device item. */
static void
flow(jw *w, const char *cat, const char *id, int64_t pid, int64_t tid, int64_t ts, int end)
{
	fputs(", ", w->f);
	fprintf(w->f, "{\"name\": \"%s%s\", \"ph\": \"%s\", \"cat\": \"%s\", \"id\": \"%s\", "
		      "\"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"",
	    cat, id, end ? "f" : "s", cat, id, pid, tid);
	jus(w, ts);
	fputs(end ? "\", \"bp\": \"e\"}" : "\"}", w->f);
}

static int64_t
layer_pid(const jw *w, int sort, int device)
{
	if (w->version == GEN_JSON_2024)
		switch (sort) {
		case SORT_HW:
			return 800;
		case SORT_CANN:
			return w->pid * 100 + 2;
		case SORT_MSPROFTX:
			return w->pid * 100 + 8;
		case SORT_HCCL:
			return w->pid * 10000 + 1000;
		case SORT_OVERLAP:
			return w->pid * 10000 + 1100;
		default:
			break;
		}
	return (w->pid << 10) | ((int64_t)sort << 5) | (device ? (w->dev & 31) : 0);
}

/* ---- reading ------------------------------------------------------------------------------ */

static int64_t
col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i); /* sqlite3_int64 is long long: printed as int64_t */
}

static sqlite3_stmt *
prep(jw *w, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL; /* a table the DB does not have: that part is left out */
	return st;
}

static const char *
s_of(const jw *w, const tl_u64map *m, int64_t id)
{
	uint32_t v;
	if (u64map_get(m, (uint64_t)id, &v))
		return strpool_get(w->pool, v);
	return "";
}

static const char *
str(const jw *w, sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return "";
	return s_of(w, &w->str, col(st, i));
}

static void
read_map(jw *w, const char *sql, tl_u64map *m)
{
	sqlite3_stmt *st = prep(w, sql);
	u64map_init(m);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 1);
		u64map_put(m, (uint64_t)col(st, 0),
		    strpool_intern_cstr(w->pool, v ? v : ""));
	}
	sqlite3_finalize(st);
}

/* "alias.col", or "NULL" when the table lacks the column (columns drift between versions,
 * e.g. COMMUNICATION_TASK_INFO.bandwidth is a 2026 addition). */
static char *
colref(jw *w, const char *table, const char *alias, const char *colname)
{
	char *sql = sqlite3_mprintf("SELECT 1 FROM pragma_table_info(%Q) WHERE name = %Q", table,
	    colname);
	sqlite3_stmt *st = prep(w, sql);
	int have = st && sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return have ? xasprintf("%s.\"%s\"", alias, colname) : xstrdup("NULL");
}

static int64_t
scalar(jw *w, const char *sql, int64_t def)
{
	sqlite3_stmt *st = prep(w, sql);
	int64_t v = def;
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = col(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- intervals ---------------------------------------------------------------------------- */

static int
cmp_ival(const void *a, const void *b)
{
	const ival *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

/* Sorts and merges in place (touching intervals merge). */
static void
ivals_union(ivals *iv)
{
	size_t w = 0;
	if (iv->n == 0)
		return;
	qsort(iv->v, iv->n, sizeof *iv->v, cmp_ival);
	for (size_t i = 1; i < iv->n; i++) {
		if (iv->v[i].s <= iv->v[w].e) {
			if (iv->v[i].e > iv->v[w].e)
				iv->v[w].e = iv->v[i].e;
		} else {
			iv->v[++w] = iv->v[i];
		}
	}
	iv->n = w + 1;
}

/* a − b of two sorted unions, appended to out. */
static void
ivals_minus(const ivals *a, const ivals *b, ivals *out)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;
		while (j < b->n && b->v[j].e <= s)
			j++;
		for (size_t k = j; k < b->n && b->v[k].s < e; k++) {
			if (b->v[k].s > s) {
				ival x = {s, b->v[k].s};
				VEC_PUSH(out->v, out->n, out->cap, x);
			}
			if (b->v[k].e > s)
				s = b->v[k].e;
		}
		if (s < e) {
			ival x = {s, e};
			VEC_PUSH(out->v, out->n, out->cap, x);
		}
	}
}

/* ---- the processes -------------------------------------------------------------------------- */

/* One end of a fwdbwd flow, spelled as torch_npu's text export writes it: a numeric id and
 * "bp": "e" on both ends (flow() writes the msprof spelling). */
static void
fwdbwd_flow(jw *w, int end, int64_t id, int64_t tid, int64_t ts)
{
	fputs(w->first ? "[" : ", ", w->f);
	w->first = 0;
	fprintf(w->f, "{\"ph\": \"%s\", \"bp\": \"e\", \"name\": \"fwdbwd\", \"id\": %" PRId64
		      ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"",
	    end ? "f" : "s", id, w->pid, tid);
	jus(w, ts);
	fputs("\", \"cat\": \"fwdbwd\"}", w->f);
}

/* The forward -> backward flows: CONNECTION_IDS groups of exactly two operators on two threads
 * (Insight's "fwdbwd" category; the same table links operators to their kernels and Enqueue to
 * Dequeue). torch_npu's exporter pairs them by autograd sequence number, the start being the
 * operator with "Fwd thread id" 0, and uses that number as the id. */
static void
write_fwdbwd(jw *w)
{
	sqlite3_stmt *st = prep(w,
	    "SELECT c.connectionId, p.sequenceNumber, p.globalTid, CAST(p.startNs AS INTEGER) "
	    "FROM CONNECTION_IDS c JOIN PYTORCH_API p ON p.connectionId = c.id "
	    "WHERE p.type = 50001 AND c.connectionId IN ("
	    "SELECT c2.connectionId FROM CONNECTION_IDS c2 JOIN PYTORCH_API p2 "
	    "ON p2.connectionId = c2.id WHERE p2.type = 50001 GROUP BY c2.connectionId "
	    "HAVING count(*) = 2 AND count(DISTINCT p2.globalTid) = 2) "
	    "ORDER BY c.connectionId, coalesce(p.fwdThreadId, 0) != 0, 4");
	int64_t conn = 0, seq = 0, tid = 0, ts = 0;
	int have = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t c = col(st, 0), t = col(st, 2) & 0xffffffff, s = col(st, 3);
		if (have && c == conn) {
			if (seq >= 0) { /* torch_npu leaves operators without a number out */
				fwdbwd_flow(w, 0, seq, tid, ts);
				fwdbwd_flow(w, 1, seq, t, s);
			}
			have = 0;
			continue;
		}
		conn = c;
		seq = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : col(st, 1);
		tid = t;
		ts = s;
		have = 1;
	}
	sqlite3_finalize(st);
}

/* Python: the ProfilerStep#N ranges (STEP_TIME), the torch ops (PYTORCH_API, when the DB has
 * them) and their fwdbwd flows; its metadata after its events, as torch_npu writes it. */
static void
write_python(jw *w)
{
	sqlite3_stmt *st;
	tl_u64map tids;
	u64map_init(&tids);
	u64map_put(&tids, (uint64_t)w->pid, 1);
	st = prep(w, "SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char nm[48];
		int64_t s = col(st, 1), e = col(st, 2);
		snprintf(nm, sizeof nm, "ProfilerStep#%" PRId64, col(st, 0));
		ev_open(w, "X", nm, w->pid, w->pid, s);
		ev_dur(w, e - s);
		fputs(", \"cat\": \"cpu_op\", \"args\": {\"Sequence number\": -1, \"Fwd thread id\": 0}}",
		    w->f);
	}
	sqlite3_finalize(st);
	/* PYTORCH_API times are TEXT in every torch_npu version */
	st = prep(w, "SELECT CAST(startNs AS INTEGER), CAST(endNs AS INTEGER), globalTid, name "
		     "FROM PYTORCH_API");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *nm = str(w, st, 3);
		int64_t tid = col(st, 2) & 0xffffffff;
		if (strncmp(nm, "ProfilerStep#", 13) == 0)
			continue; /* written from STEP_TIME above */
		ev_open(w, "X", nm, w->pid, tid, col(st, 0));
		ev_dur(w, col(st, 1) - col(st, 0));
		fputs(", \"cat\": \"cpu_op\", \"args\": {}}", w->f);
		u64map_put(&tids, (uint64_t)tid, 1);
	}
	sqlite3_finalize(st);
	write_fwdbwd(w);
	process_meta(w, w->pid, "Python", "CPU", w->pid);
	for (size_t i = 0; i <= tids.mask; i++)
		if (tids.used[i]) {
			char nm[48];
			snprintf(nm, sizeof nm, "Thread %" PRIu64, tids.keys[i]);
			thread_meta(w, w->pid, (int64_t)tids.keys[i], nm, (int64_t)tids.keys[i]);
		}
	u64map_free(&tids);
}

/* CANN: "<Level>@<api>" slices; the launches are kept for the flows. */
static void
write_cann(jw *w)
{
	static const struct {
		const char *level, *prefix;
	} levels[] = {{"acl", "AscendCL"}, {"node", "Node"}, {"runtime", "Runtime"},
	    {"model", "Model"}, {"hccl", "Hccl"}, {"communication", "Communication"}};
	int64_t pid = layer_pid(w, SORT_CANN, 0);
	tl_u64map tids;
	u64map_init(&tids);
	u64map_init(&w->cann_of);
	process_meta(w, pid, "CANN", "CPU", SORT_CANN);
	sqlite3_stmt *st = prep(w, "SELECT startNs, endNs, type, globalTid, connectionId, name "
				   "FROM CANN_API");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = col(st, 0), e = col(st, 1);
		int64_t tid = col(st, 3) & 0xffffffff;
		int64_t conn = col(st, 4);
		const char *level = s_of(w, &w->api, col(st, 2));
		const char *prefix = level;
		for (size_t k = 0; k < sizeof levels / sizeof *levels; k++)
			if (strcmp(level, levels[k].level) == 0)
				prefix = levels[k].prefix;
		const char *api = str(w, st, 5);
		char *nm = xasprintf("%s@%s", prefix, api);
		ev_open(w, "X", nm, pid, tid, s);
		free(nm);
		ev_dur(w, e - s);
		fprintf(w->f, ", \"args\": {\"Thread Id\": %" PRId64 ", \"Mode\": \"ACL_RTS\", "
			      "\"level\": ",
		    tid);
		jstr(w, level);
		fputs(", \"id\": ", w->f);
		jstr(w, api);
		fprintf(w->f, ", \"item_id\": \"0\", \"connection_id\": %" PRId64 "}}", conn);
		if (!u64map_get(&tids, (uint64_t)tid, NULL)) {
			u64map_put(&tids, (uint64_t)tid, 1);
			char tn[48];
			snprintf(tn, sizeof tn, "Thread %" PRId64, tid);
			thread_meta(w, pid, tid, tn, tid);
		}
		cann_row cr = {s, tid};
		VEC_PUSH(w->cann, w->ncann, w->canncap, cr);
		u64map_put(&w->cann_of, (uint64_t)conn, (uint32_t)(w->ncann - 1));
	}
	sqlite3_finalize(st);
	u64map_free(&tids);
}

/* The PyTorch row behind each launch (w->op_of), read once. */
static void
read_ops(jw *w)
{
	u64map_init(&w->op_of);
	sqlite3_stmt *st = prep(w, "SELECT c.connectionId, CAST(p.startNs AS INTEGER), "
				   "CAST(p.endNs AS INTEGER), p.type, p.globalTid FROM "
				   "CONNECTION_IDS c JOIN PYTORCH_API p ON p.connectionId = c.id");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		op_row o = {col(st, 1), col(st, 2), col(st, 4) & 0xffffffff, col(st, 3) == 50001};
		uint64_t conn = (uint64_t)col(st, 0);
		uint32_t k;
		if (!u64map_get(&w->op_of, conn, &k)) {
			VEC_PUSH(w->ops, w->nops, w->opcap, o);
			u64map_put(&w->op_of, conn, (uint32_t)(w->nops - 1));
			continue;
		}
		op_row *b = &w->ops[k];
		if (o.op > b->op ||
		    (o.op == b->op && (o.start > b->start || (o.start == b->start && o.end < b->end))))
			*b = o;
	}
	sqlite3_finalize(st);
}

/* The HostToDevice flow into a device item that starts at ts on (pid, tid); with op, the
 * async_npu flow from its operator too (torch_npu draws none to memcpy tasks). */
static void
launch_flow_op(jw *w, const char *id, int64_t conn, int64_t pid, int64_t tid, int64_t ts, int op)
{
	uint32_t k;
	if (conn < 0 || !u64map_get(&w->cann_of, (uint64_t)conn, &k))
		return; /* no launch record */
	flow(w, "HostToDevice", id, layer_pid(w, SORT_CANN, 0), w->cann[k].tid, w->cann[k].start, 0);
	flow(w, "HostToDevice", id, pid, tid, ts, 1);
	if (!op || w->op_of.keys == NULL || !u64map_get(&w->op_of, (uint64_t)conn, &k))
		return;
	const op_row *o = &w->ops[k];
	for (int end = 0; end < 2; end++) {
		fprintf(w->f, ", {\"ph\": \"%s\", \"bp\": \"e\", \"name\": \"torch_to_npu\", "
			      "\"id\": %s, \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"",
		    end ? "f" : "s", id, end ? pid : w->pid, end ? tid : o->tid);
		jus(w, end ? ts : o->start);
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
	static const char *const map[][2] = {{"KERNEL_AICORE", "AI_CORE"},
	    {"KERNEL_AIVEC", "AI_VECTOR_CORE"}, {"KERNEL_MIX_AIC", "MIX_AIC"},
	    {"KERNEL_MIX_AIV", "MIX_AIV"}, {"KERNEL_AICPU", "AI_CPU"}, {"STARS_COMMON", "DSA_SQE"}};
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
static void
write_hardware(jw *w)
{
	int64_t pid = layer_pid(w, SORT_HW, 1);
	tl_u64map children, streams;
	u64map_init(&children);
	u64map_init(&streams);
	/* FFTS+ containers: contextId invalid, not a kernel, with sub-task rows of
	 * the same stream, taskId and launch */
	sqlite3_stmt *st = prep(w, "SELECT streamId, taskId, connectionId FROM TASK "
				   "WHERE contextId != 4294967295");
	while (st && sqlite3_step(st) == SQLITE_ROW)
		u64map_put(&children, ffts_key(col(st, 0),
					  col(st, 1), col(st, 2)),
		    1);
	sqlite3_finalize(st);
	/* the message of a range's device part (its TASK rows share MSTX_EVENTS' connectionId),
	 * when the profile has MSTX_EVENTS */
	int mstx =
	    scalar(w, "SELECT count(*) FROM sqlite_master WHERE name = 'MSTX_EVENTS'", 0) > 0;
	st = prep(
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
		int64_t s = col(st, 0), e = col(st, 1);
		int64_t stream = col(st, 2), task = col(st, 3);
		int64_t ctx = col(st, 4);
		int64_t conn = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1
									  : col(st, 5);
		int kernel = sqlite3_column_int(st, 10);
		if (!kernel && ctx == INVALID_U32 &&
		    u64map_get(&children, ffts_key(stream, task, conn), NULL))
			continue;
		if (sqlite3_column_type(st, 11) != SQLITE_NULL) { /* an MSTX range's device part */
			char id[24];
			snprintf(id, sizeof id, "%" PRId64, conn);
			ev_open(w, "X", str(w, st, 11), pid, stream, s);
			ev_dur(w, e - s);
			fprintf(w->f,
			        ", \"args\": {\"Physic Stream Id\": %" PRId64
			        ", \"Task Id\": %" PRId64 "}}",
			        stream, task);
			fprintf(w->f,
			        ", {\"name\": \"MsTx_%s\", \"ph\": \"f\", \"id\": \"%s\", "
			        "\"ts\": \"",
			        id, id);
			jus(w, s);
			fprintf(w->f,
			        "\", \"cat\": \"MsTx\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
			        ", \"bp\": \"e\"}",
			        pid, stream);
			u64map_put(&streams, (uint64_t)stream, 1);
			continue;
		}
		const char *ttype = str(w, st, 7);
		const char *name = kernel ? str(w, st, 8) : ttype;
		const char *type = kernel ? str(w, st, 9) : ttype;
		if (*type == '\0' || strcmp(type, "N/A") == 0)
			type = device_type(ttype); /* Level0: COMPUTE_TASK_INFO has none */
		ev_open(w, "X", name, pid, stream, s);
		ev_dur(w, e - s);
		fprintf(w->f, ", \"args\": {\"Model Id\": %" PRId64, col(st, 6));
		if (w->version == GEN_JSON_2024 && kernel && strcmp(type, "AI_CPU") != 0)
			type = w->kernels++ % 3 == 2 ? NULL : "Other";
		if (type != NULL) {
			fputs(", \"Task Type\": ", w->f);
			jstr(w, type);
		}
		fprintf(w->f, ", \"%s\": %" PRId64 ", \"Task Id\": %" PRId64
			      ", \"Batch Id\": 0, \"Subtask Id\": %" PRId64 ", \"connection_id\": %" PRId64
			      "}}",
		    w->version == GEN_JSON_2024 ? "Stream Id" : "Physic Stream Id", stream, task, ctx,
		    conn);
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
	process_meta(w, pid, "Ascend Hardware", "NPU", SORT_HW);
	for (size_t i = 0; i <= streams.mask; i++)
		if (streams.used[i]) {
			char nm[32];
			snprintf(nm, sizeof nm, "Stream %" PRIu64, streams.keys[i]);
			thread_meta(w, pid, (int64_t)streams.keys[i], nm, (int64_t)streams.keys[i]);
		}
	u64map_free(&children);
	u64map_free(&streams);
}

/* HCCL: one "Group {g} Communication" thread per group with the ops, then a "Plane {p}" thread per
 * plane with the sub-tasks; metadata first, as msprof's assembler writes it. */
static void
write_hccl(jw *w)
{
	int64_t pid = layer_pid(w, SORT_HCCL, 1);
	u64map_init(&w->groups);
	sqlite3_stmt *st = prep(w, "SELECT groupName, max(planeId) FROM ("
				   "SELECT groupName, 0 AS planeId FROM COMMUNICATION_OP UNION ALL "
				   "SELECT groupName, CASE WHEN planeId = 4294967295 THEN 0 ELSE "
				   "planeId END FROM COMMUNICATION_TASK_INFO) GROUP BY groupName "
				   "ORDER BY groupName");
	int64_t next = 0;
	int any = 0;
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t g = col(st, 0), maxp = col(st, 1);
		if (!any)
			process_meta(w, pid, "HCCL", "NPU", SORT_HCCL);
		any = 1;
		char nm[64];
		snprintf(nm, sizeof nm, "Group %zu Communication", w->ngroups);
		thread_meta(w, pid, next, nm, next);
		for (int64_t p = 0; p <= maxp && p < 4096; p++) {
			snprintf(nm, sizeof nm, "Plane %" PRId64, p);
			thread_meta(w, pid, next + p + 1, nm, next + p + 1);
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
		ol[k] = colref(w, "COMMUNICATION_OP", "o", ocols[k]);
	char *osql = xasprintf("SELECT o.opName, o.startNs, o.endNs, o.connectionId, o.groupName, %s, "
			       "%s, %s FROM COMMUNICATION_OP o ORDER BY o.startNs",
	    ol[0], ol[1], ol[2]);
	st = prep(w, osql);
	free(osql);
	for (int k = 0; k < 3; k++)
		free(ol[k]);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		uint32_t gi = 0;
		int64_t s = col(st, 1), e = col(st, 2);
		int64_t conn = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1
									  : col(st, 3);
		u64map_get(&w->groups, (uint64_t)col(st, 4), &gi);
		int64_t tid = w->plane_base[gi];
		ev_open(w, "X", str(w, st, 0), pid, tid, s);
		ev_dur(w, e - s);
		fprintf(w->f, ", \"args\": {\"connection_id\": %" PRId64 ", \"model id\": 4294967295, "
			      "\"data_type\": ",
		    conn);
		jstr(w, s_of(w, &w->dtype, col(st, 5)));
		fputs(", \"alg_type\": ", w->f);
		jstr(w, str(w, st, 6));
		fprintf(w->f, ", \"count\": %" PRId64 "}}", col(st, 7));
		char id[48];
		snprintf(id, sizeof id, "%" PRIu64, (uint64_t)conn << 32 | 0xffffffffu);
		launch_flow(w, id, conn, pid, tid, s);
		ival x = {s, e};
		VEC_PUSH(w->comm.v, w->comm.n, w->comm.cap, x);
	}
	sqlite3_finalize(st);

	static const char *const ccols[] = {"taskType", "planeId", "groupName", "notifyId",
	    "srcRank", "dstRank", "transportType", "size", "dataType", "linkType", "bandwidth"};
	char *cl[11];
	for (int k = 0; k < 11; k++)
		cl[k] = colref(w, "COMMUNICATION_TASK_INFO", "c", ccols[k]);
	char *sql = xasprintf("SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, t.startNs, t.endNs, "
			      "t.streamId, t.taskId, t.contextId, t.modelId, c.name "
			      "FROM COMMUNICATION_TASK_INFO c JOIN TASK t "
			      "ON t.globalTaskId = c.globalTaskId ORDER BY t.startNs",
	    cl[0], cl[1], cl[2], cl[3], cl[4], cl[5], cl[6], cl[7], cl[8], cl[9], cl[10]);
	st = prep(w, sql);
	free(sql);
	for (int k = 0; k < 11; k++)
		free(cl[k]);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		uint32_t gi = 0;
		int64_t plane = col(st, 1);
		int64_t s = col(st, 11), e = col(st, 12);
		u64map_get(&w->groups, (uint64_t)col(st, 2), &gi);
		if (plane == INVALID_U32 || plane < 0 || plane >= 4096)
			plane = 0;
		const char *ty = str(w, st, 0);
		if (*ty == '\0' || strcmp(ty, "N/A") == 0)
			ty = str(w, st, 17); /* Level0: no sub-task type, the op's name */
		ev_open(w, "X", ty, pid, w->plane_base[gi] + plane + 1, s);
		ev_dur(w, e - s);
		fprintf(w->f, ", \"args\": {\"notify_id\": \"%" PRIu64 "\", \"duration estimated(us)\": ",
		    (uint64_t)col(st, 3));
		jus(w, e - s);
		fprintf(w->f, ", \"stream id\": %" PRId64 ", \"task id\": %" PRId64
			      ", \"context id\": %" PRId64 ", \"task type\": ",
		    col(st, 13), col(st, 14),
		    col(st, 15));
		jstr(w, ty);
		fprintf(w->f, ", \"src rank\": %" PRId64 ", \"dst rank\": %" PRId64
			      ", \"transport type\": ",
		    col(st, 4), col(st, 5));
		jstr(w, s_of(w, &w->transport, col(st, 6)));
		fprintf(w->f, ", \"size(Byte)\": %" PRId64 ", \"data type\": ",
		    col(st, 7));
		jstr(w, s_of(w, &w->dtype, col(st, 8)));
		fputs(", \"link type\": ", w->f);
		jstr(w, s_of(w, &w->link, col(st, 9)));
		fprintf(w->f, ", \"bandwidth(GB/s)\": %.6f, \"model id\": %" PRId64 "}}",
		    sqlite3_column_double(st, 10), col(st, 16));
	}
	sqlite3_finalize(st);
}

/* Overlap Analysis, computed as msprof does (unions of compute and communication). */
static void
write_overlap(jw *w)
{
	static const char *const names[4] = {"Computing", "Communication",
	    "Communication(Not Overlapped)", "Free"};
	int64_t pid = layer_pid(w, SORT_OVERLAP, 1);
	ivals lanes[4], busy = {0};
	memset(lanes, 0, sizeof lanes);
	ivals_union(&w->compute);
	ivals_union(&w->comm);
	if (w->compute.n == 0 && w->comm.n == 0)
		return;
	lanes[0] = w->compute;
	lanes[1] = w->comm;
	ivals_minus(&w->comm, &w->compute, &lanes[2]);
	for (size_t i = 0; i < w->compute.n; i++)
		VEC_PUSH(busy.v, busy.n, busy.cap, w->compute.v[i]);
	for (size_t i = 0; i < w->comm.n; i++)
		VEC_PUSH(busy.v, busy.n, busy.cap, w->comm.v[i]);
	ivals_union(&busy);
	ivals span = {0};
	ival all = {busy.v[0].s, busy.v[busy.n - 1].e};
	VEC_PUSH(span.v, span.n, span.cap, all);
	ivals_minus(&span, &busy, &lanes[3]);
	process_meta(w, pid, "Overlap Analysis", "NPU", SORT_OVERLAP);
	for (int k = 0; k < 4; k++)
		thread_meta(w, pid, k, names[k], k);
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < lanes[k].n; i++) {
			ev_open(w, "X", names[k], pid, k, lanes[k].v[i].s);
			ev_dur(w, lanes[k].v[i].e - lanes[k].v[i].s);
			fputs("}", w->f);
		}
	free(lanes[2].v);
	free(lanes[3].v);
	free(busy.v);
	free(span.v);
}

/* MsprofTx: the host MSTX ranges in a process named like the profiled program. */
static void
write_mstx(jw *w)
{
	int64_t pid = layer_pid(w, SORT_MSPROFTX, 0);
	tl_u64map tids;
	int any = 0;
	u64map_init(&tids);
	int task = scalar(w, "SELECT count(*) FROM sqlite_master WHERE name = 'TASK'", 0) > 0;
	sqlite3_stmt *st =
	    prep(w, task ? "SELECT startNs, endNs, eventType, message, globalTid, "
	                   "domainId, connectionId, connectionId IN (SELECT "
	                   "connectionId FROM TASK) FROM MSTX_EVENTS ORDER BY startNs"
	                 : "SELECT startNs, endNs, eventType, message, globalTid, "
	                   "domainId, connectionId, 0 FROM MSTX_EVENTS ORDER BY startNs");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		int64_t s = col(st, 0);
		int64_t e = sqlite3_column_type(st, 1) == SQLITE_NULL ? s : col(st, 1);
		int64_t tid = col(st, 4) & 0xffffffff;
		ev_open(w, "X", str(w, st, 3), pid, tid, s);
		ev_dur(w, e - s);
		fputs(", \"args\": {\"event_type\": ", w->f);
		jstr(w, s_of(w, &w->mstx_type, col(st, 2)));
		fputs(", \"domain\": ", w->f);
		jstr(w, str(w, st, 5));
		fputs("}}", w->f);
		int64_t conn = col(st, 6);
		if (conn > 4000000000 && sqlite3_column_int(st, 7)) { /* to its device part */
			char id[24];
			snprintf(id, sizeof id, "%" PRId64, conn);
			fprintf(w->f,
			        ", {\"name\": \"MsTx_%s\", \"ph\": \"s\", \"id\": \"%s\", "
			        "\"ts\": \"",
			        id, id);
			jus(w, s);
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
		process_meta(w, pid, "python3", "CPU", SORT_MSPROFTX);
		for (size_t i = 0; i <= tids.mask; i++)
			if (tids.used[i]) {
				char nm[48];
				snprintf(nm, sizeof nm, "Thread %" PRIu64, tids.keys[i]);
				thread_meta(w, pid, (int64_t)tids.keys[i], nm, (int64_t)tids.keys[i]);
			}
	}
	u64map_free(&tids);
}

/* A counter process, as the files carry many (the loaders skip them). */
static void
write_freq(jw *w)
{
	int64_t pid = layer_pid(w, SORT_FREQ, 1);
	int64_t t0 = scalar(w, "SELECT min(startNs) FROM TASK", -1);
	int64_t t1 = scalar(w, "SELECT max(endNs) FROM TASK", -1);
	if (t0 < 0)
		return;
	process_meta(w, pid, "AI Core Freq", "NPU", SORT_FREQ);
	for (int k = 0; k < 2; k++) {
		fputs(", {\"name\": \"AI Core Freq\", \"ts\": \"", w->f);
		jus(w, k ? t1 : t0);
		fprintf(w->f, "\", \"pid\": %" PRId64 ", \"tid\": 0, \"args\": {\"MHz\": 1800}, "
			      "\"ph\": \"C\"}",
		    pid);
	}
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
	read_map(&w, "SELECT id, value FROM STRING_IDS", &w.str);
	read_map(&w, "SELECT id, name FROM ENUM_API_TYPE", &w.api);
	read_map(&w, "SELECT id, name FROM ENUM_HCCL_DATA_TYPE", &w.dtype);
	read_map(&w, "SELECT id, name FROM ENUM_HCCL_LINK_TYPE", &w.link);
	read_map(&w, "SELECT id, name FROM ENUM_HCCL_TRANSPORT_TYPE", &w.transport);
	read_map(&w, "SELECT id, name FROM ENUM_MSTX_EVENT_TYPE", &w.mstx_type);
	w.dev = scalar(&w, "SELECT deviceId FROM TASK LIMIT 1",
	    scalar(&w, "SELECT deviceId FROM RANK_DEVICE_MAP LIMIT 1", 0));
	w.pid = scalar(&w, "SELECT globalPid FROM TASK LIMIT 1", -1);
	if (w.pid < 0)
		w.pid = scalar(&w, "SELECT globalTid >> 32 FROM CANN_API LIMIT 1", 1);
	w.pid &= (INT64_C(1) << 22) - 1; /* (pid << 10) must stay a plain JSON integer */

	write_python(&w);
	read_ops(&w);
	write_cann(&w);
	write_hardware(&w);
	write_hccl(&w);
	write_overlap(&w);
	write_mstx(&w);
	if (version != GEN_JSON_2024)
		write_freq(&w);
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
