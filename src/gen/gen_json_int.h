/* Inside the generator's JSON writer (gen_json*.c): the writer's state and the helpers its
 * process writers share. gen_json.c says what the files look like and why. */
#ifndef TL_GEN_JSON_INT_H
#define TL_GEN_JSON_INT_H
#include "util/strpool.h"
#include "util/u64map.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#define INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */

/* 2025 sort indexes of the msprof layers (pid = (pid << 10) | (sort << 5) | ...) */
#define SORT_CANN 7
#define SORT_MSPROFTX 8
#define SORT_HW 13
#define SORT_FREQ 14
#define SORT_NPU_MEM 16
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
	tl_u64map str;                                    /* STRING_IDS id -> pool id */
	tl_u64map api, dtype, link, transport, mstx_type; /* ENUM_* id -> pool id */
	int64_t pid, dev;
	cann_row *cann; /* CANN_API rows, by index */
	size_t ncann, canncap;
	tl_u64map cann_of; /* connectionId -> index into cann */
	op_row *ops;       /* PyTorch rows behind launches, by index (jw_read_ops) */
	size_t nops, opcap;
	tl_u64map op_of;  /* CANN connectionId -> index into ops */
	tl_u64map groups; /* group string id -> thread index of its "Group … Communication" */
	int64_t *plane_base;
	size_t ngroups;
	ivals compute, comm; /* sorted unions, for Overlap Analysis */
	int version;         /* GEN_JSON_2025 or GEN_JSON_2024 */
	uint64_t kernels;    /* kernels written (the 2024 layout drops every third one's type) */
} jw;

/* gen_json_write.c: output */
void jw_jstr(jw *w, const char *s);
void jw_us(jw *w, int64_t ns);
/* Opens an event: {"ph": .., "name": .., "pid": .., "tid": .., "ts": "..." */
void jw_ev_open(jw *w, const char *ph, const char *name, int64_t pid, int64_t tid, int64_t ts);
void jw_ev_dur(jw *w, int64_t ns);
void jw_process_meta(jw *w, int64_t pid, const char *name, const char *label, int64_t sort);
void jw_thread_meta(jw *w, int64_t pid, int64_t tid, const char *name, int64_t sort);
/* A flow: "s" on the launch, "f" ("bp": "e") on the device item. */
void jw_flow(jw *w, const char *cat, const char *id, int64_t pid, int64_t tid, int64_t ts, int end);
int64_t jw_layer_pid(const jw *w, int sort, int device);
/* gen_json_write.c: reading */
int64_t jw_col(sqlite3_stmt *st, int i);
sqlite3_stmt *jw_prep(jw *w, const char *sql);
const char *jw_s_of(const jw *w, const tl_u64map *m, int64_t id);
const char *jw_str(const jw *w, sqlite3_stmt *st, int i);
char *jw_colref(jw *w, const char *table, const char *alias, const char *colname);
int64_t jw_scalar(jw *w, const char *sql, int64_t def);
/* gen_json_write.c: intervals. Sorts and merges in place (touching intervals merge). */
void jw_ivals_union(ivals *iv);
void jw_ivals_minus(const ivals *a, const ivals *b, ivals *out);

/* the processes: gen_json_host.c (Python, CANN, MsprofTx), gen_json_device.c (Ascend
 * Hardware, HCCL, Overlap Analysis, AI Core Freq) */
void jw_write_python(jw *w);
void jw_write_cann(jw *w);
/* The PyTorch row behind each launch (w->op_of), for the async_npu flows. */
void jw_read_ops(jw *w);
void jw_write_mstx(jw *w);
void jw_write_hardware(jw *w);
void jw_write_hccl(jw *w);
void jw_write_overlap(jw *w);
void jw_write_freq(jw *w);

#endif
