/* The profile generator: torch_npu's on-disk layout and msprof's current DDL
 * (the exact CREATE TABLE statements of real files), with a GRPO-like timeline
 * whose overlap numbers, stage ranges and idle gaps are known by construction.
 *
 * How the truth is known without measuring the rows afterwards:
 *  - plan_build() lays every rank's device timeline out as a list of blocks, in time order, with
 *    a cursor per rank. A block is either a run of kernels (back to back on one compute stream,
 *    with known gaps between them) or a collective. The same function (kdraw_next) gives a
 *    kernel's duration to the planner and to the writer, so the writer reproduces the plan.
 *  - Compute kernels never overlap each other; collectives never overlap each other; the only
 *    compute that runs during a collective is the "overlap" kernels an actor_update allreduce
 *    carries, which lie wholly inside the op. So per rank and step:
 *      computing     = sum of kernel durations
 *      communication = sum of (op end - op start)
 *      overlapped    = sum of the overlap kernels' durations
 *      free          = sum of the idle stretches between the first and the last busy block
 *    and free is checked against (span - (computing + communication - overlapped)).
 *  - Collectives synchronise ranks: each rank's op starts when that rank gets there and every
 *    rank's op ends at (latest arrival + transfer time). The slow rank computes every kernel 30%
 *    slower (others 0-3%) and decodes the most tokens, and every rank spends the same time in
 *    "bubble + pad kernel", so the slow rank always arrives last and has the shortest op.
 *  - Host rows (CANN_API launches, MSTX ranges, STEP_TIME) are placed around the device times
 *    with fixed offsets, so every launch is inside its step and its stage range.
 *  - Pipeline-parallel profiles (gen_opts.pp) mark each forward/backward block with an MSTX range,
 *    or, with gen_opts.pp_op_pairs, only with torch operators (PYTORCH_API) whose forward and
 *    backward rows share a CONNECTION_IDS link; the operators span exactly the block, so the
 *    block truth is the same either way. With gen_opts.pp_device_ranges the ranges carry a
 *    stream: the host runs PP_HOST_AHEAD ahead of the device, the range's MSTX_EVENTS row is the
 *    host call around the block's launches (microseconds), and its MsTx TASK row -- one per
 *    range, the begin and end markers paired as msprof pairs them -- spans the block. */
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

const char *const gen_stage_canon[GEN_NSTAGES] = {"rollout", "ref_logprob", "actor_logprob",
                                                  "reward", "actor_update"};
/* verl worker-method MSTX ranges (verl's worker methods), in the order they run here */
const char *const gen_stage_range[GEN_NSTAGES] = {"generate_sequences", "compute_ref_log_prob",
                                                  "compute_log_prob", "compute_rm_score",
                                                  "update_actor"};

/* ---- files ------------------------------------------------------------------------------- */
/* torch_npu's directory timestamp: YYYYmmddHHMMSSmmm (UTC here, so it does not depend on TZ). */
static void
stamp_format(int64_t ns, char *buf, size_t n)
{
	int64_t ms = ns / MS, sec = ms / 1000, days = sec / 86400, sod = sec % 86400;
	int64_t z = days + 719468, era = z / 146097, doe = z - era * 146097; /* civil_from_days */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
	int64_t y = yoe + era * 400 + (m <= 2);
	snprintf(buf, n, "%04d%02d%02d%02d%02d%02d%03d", (int)y, (int)m, (int)d, (int)(sod / 3600),
	         (int)(sod / 60 % 60), (int)(sod % 60), (int)(ms % 1000));
}

static int
write_file(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		msg_error("gen: cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	size_t put = fwrite(text, 1, n, f);
	if (fclose(f) != 0 || put != n) {
		msg_error("gen: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static const char env_json[] =
    "{\"ASCEND_GLOBAL_LOG_LEVEL\": \"\", \"HCCL_RDMA_TC\": \"\", \"HCCL_RDMA_SL\": \"\", "
    "\"ACLNN_CACHE_LIMIT\": \"\", \"HOST_CACHE_CAPACITY\": \"\", \"ASCEND_ENHANCE_ENABLE\": \"\", "
    "\"PYTORCH_NPU_ALLOC_CONF\": \"\", \"ASCEND_LAUNCH_BLOCKING\": \"\"}";

/* META_DATA['parallel_group_info'] as json.dumps writes it. */
static char *
group_info_json(const gen_plan *P, int rank)
{
	sbuf b = {0};
	if (P->o.pp > 0) { /* PP profiles: the rank's pair groups */
		int s = rank / P->pp_dp, d = rank % P->pp_dp, n = 0;
		gen_sbuf_printf(&b, "{");
		for (int g = s - 1; g <= s; g++) {
			if (g < 0 || g >= P->o.pp - 1)
				continue;
			char *name = gen_pp_group_name(g * P->pp_dp + d);
			gen_sbuf_printf(&b,
			                "%s\"%s\": {\"group_name\": \"pp\", \"group_rank\": %d, "
			                "\"global_ranks\": [%d, %d]}",
			                n++ ? ", " : "", name, g == s ? 0 : 1, g * P->pp_dp + d,
			                (g + 1) * P->pp_dp + d);
			free(name);
		}
		gen_sbuf_printf(&b, "}");
		return b.s;
	}
	gen_sbuf_printf(&b,
	                "{\"%s\": {\"group_name\": \"default_group\", \"group_rank\": %d, "
	                "\"global_ranks\": [",
	                GROUP_NAME, rank);
	for (int r = 0; r < P->nranks; r++)
		gen_sbuf_printf(&b, "%s%d", r ? ", " : "", r);
	gen_sbuf_printf(&b, "]}}");
	return b.s;
}

static int
write_profiler_info(const gen_plan *P, const char *dir, int rank, int64_t pid)
{
	const int64_t mono0 = 177399527862390LL; /* a fake CLOCK_MONOTONIC_RAW at t0 */
	sbuf b = {0};
	gen_sbuf_printf(&b,
	                "{\n"
	                "    \"config\": {\n"
	                "        \"common_config\": {\n"
	                "            \"activities\": [\n"
	                "                \"ProfilerActivity.CPU\",\n"
	                "                \"ProfilerActivity.NPU\"\n"
	                "            ],\n"
	                "            \"schedule\": {\n"
	                "                \"wait\": 0,\n"
	                "                \"active\": %d,\n"
	                "                \"warmup\": 0,\n"
	                "                \"repeat\": 1,\n"
	                "                \"skip_first\": 0\n"
	                "            },\n"
	                "            \"record_shapes\": false,\n"
	                "            \"profile_memory\": false,\n"
	                "            \"with_stack\": false,\n"
	                "            \"with_flops\": false,\n"
	                "            \"with_modules\": false\n"
	                "        },\n"
	                "        \"experimental_config\": {\n"
	                "            \"_profiler_level\": \"Level1\",\n"
	                "            \"_aic_metrics\": \"ACL_AICORE_NONE\",\n"
	                "            \"_l2_cache\": false,\n"
	                "            \"_msprof_tx\": true,\n"
	                "            \"_mstx\": true,\n"
	                "            \"_data_simplification\": true,\n"
	                "            \"record_op_args\": false,\n"
	                "            \"_export_type\": [\n"
	                "                \"db\"\n"
	                "            ],\n"
	                "            \"_op_attr\": false,\n"
	                "            \"_gc_detect_threshold\": null,\n"
	                "            \"_mstx_domain_include\": [],\n"
	                "            \"_mstx_domain_exclude\": [\n"
	                "                \"communication\"\n"
	                "            ],\n"
	                "            \"_sys_io\": false,\n"
	                "            \"_sys_interconnection\": false,\n"
	                "            \"_host_sys\": []\n"
	                "        }\n"
	                "    },\n"
	                "    \"start_info\": {\n"
	                "        \"syscnt_enable\": true,\n"
	                "        \"freq\": 100,\n"
	                "        \"start_cnt\": %" PRId64 ",\n"
	                "        \"start_monotonic\": %" PRId64 "\n"
	                "    },\n"
	                "    \"end_info\": {\n"
	                "        \"collectionTimeEnd\": %" PRId64 ",\n"
	                "        \"MonotonicTimeEnd\": %" PRId64 "\n"
	                "    },\n"
	                "    \"torch_npu_version\": \"2.6.0\",\n"
	                "    \"cann_version\": \"8.2.RC1\",\n"
	                "    \"rank_id\": %d\n"
	                "}",
	                P->nsteps, (int64_t)17761792231585LL + pid,
	                mono0 - (P->t0 - P->session_start), P->session_end,
	                mono0 + (P->session_end - P->t0), rank);
	char *path = xasprintf("%s/profiler_info_%d.json", dir, rank);
	int rc = write_file(path, b.s, b.n);
	free(path);
	free(b.s);
	if (rc != 0)
		return -1;

	char *gi = group_info_json(P, rank);
	sbuf m = {0};
	if ((P->o.pp > 0 && !P->o.pp_no_meta) || P->o.rl_pp > 0) {
		char *da = gen_pp_distributed_args(P, rank);
		gen_sbuf_printf(&m,
		                "{\"ENV_VARIABLES\": %s, \"parallel_group_info\": %s, "
		                "\"distributed_args\": %s}",
		                env_json, gi, da);
		free(da);
	} else {
		gen_sbuf_printf(&m, "{\"ENV_VARIABLES\": %s, \"parallel_group_info\": %s}",
		                env_json, gi);
	}
	path = xasprintf("%s/profiler_metadata.json", dir);
	rc = write_file(path, m.s, m.n);
	free(path);
	free(m.s);
	free(gi);
	return rc;
}

static int
make_dir(const char *path)
{
	if (mkdir(path, 0755) != 0) {
		msg_error("gen: cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* outdir is created; if it exists it must be an empty directory. */
static int
outdir_prepare(const char *outdir)
{
	if (mkdir(outdir, 0755) == 0)
		return 0;
	if (errno != EEXIST) {
		msg_error("gen: cannot create %s: %s", outdir, strerror(errno));
		return -1;
	}
	DIR *d = opendir(outdir);
	if (d == NULL) {
		msg_error("gen: %s: %s", outdir, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int empty = 1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	if (!empty) {
		msg_error("gen: %s exists and is not empty", outdir);
		return -1;
	}
	return 0;
}

static void
w_header_rows(gen_writer *w)
{
	const gen_plan *P = w->P;
	for (int i = 0; i < S__COUNT; i++)
		gen_w_pair(w, w->q[Q_STR], i, NULL, gen_str_text[i]);

	char *gi = group_info_json(P, w->rank);
	static const char *const meta[][2] = {{"SCHEMA_VERSION_MICRO", "0"},
	                                      {"SCHEMA_VERSION_MINOR", "2"},
	                                      {"SCHEMA_VERSION_MAJOR", "1"},
	                                      {"SCHEMA_VERSION", "1.2.0"},
	                                      {"ENV_VARIABLES", env_json}};
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++)
		gen_w_pair(w, w->q[Q_PAIR_TEXT], 0, meta[i][0], meta[i][1]);
	gen_w_pair(w, w->q[Q_PAIR_TEXT], 0, "parallel_group_info", gi);
	free(gi);
	if (P->o.host_ops && P->o.with_stack)
		gen_w_stacks(w);
	if (P->o.pp > 0) {
		gen_w_pp_strings(w);
	} else if (P->o.rl_pp > 0) { /* actor_update's pipeline: its blocks' ranges, its size */
		gen_w_pair(w, w->q[Q_STR], PPS_FWD, NULL, "{'name': 'forward_step'}");
		gen_w_pair(w, w->q[Q_STR], PPS_BWD, NULL, "{'name': 'backward_step'}");
		char *da = gen_pp_distributed_args(P, w->rank);
		gen_w_pair(w, w->q[Q_PAIR_TEXT], 0, "distributed_args", da);
		free(da);
	} else if ((P->o.stage_device_ranges || P->o.decode_marks == GEN_DECODE_DP) &&
	           !P->o.no_stage_ranges)
		gen_w_mstx_strings(w);

	int host = P->o.hosts > 0 ? (int)((int64_t)w->rank * P->o.hosts / P->nranks) : w->rank / 8;
	char *sql = xasprintf("INSERT INTO RANK_DEVICE_MAP VALUES (%d,%d);"
	                      "INSERT INTO NPU_INFO VALUES (%d,'Ascend910B');"
	                      "INSERT INTO HOST_INFO VALUES ('%" PRIu64 "','gen-node%d');"
	                      "INSERT INTO SESSION_TIME_INFO VALUES (%" PRId64 ",%" PRId64 ");",
	                      w->rank, w->dev, w->dev,
	                      gen_seed_of(P->o.seed, 0x4057, (uint64_t)host, 0) >> 1, host,
	                      P->session_start, P->session_end);
	gen_w_exec(w, sql);
	free(sql);
	gen_w_enum(w, "ENUM_API_TYPE", gen_enum_api, sizeof gen_enum_api / sizeof gen_enum_api[0]);
	gen_w_enum(w, "ENUM_MSTX_EVENT_TYPE", gen_enum_mstx,
	           sizeof gen_enum_mstx / sizeof gen_enum_mstx[0]);
	gen_w_enum(w, "ENUM_HCCL_DATA_TYPE", gen_enum_dtype,
	           sizeof gen_enum_dtype / sizeof gen_enum_dtype[0]);
	gen_w_enum(w, "ENUM_HCCL_LINK_TYPE", gen_enum_link,
	           sizeof gen_enum_link / sizeof gen_enum_link[0]);
	gen_w_enum(w, "ENUM_HCCL_TRANSPORT_TYPE", gen_enum_transport,
	           sizeof gen_enum_transport / sizeof gen_enum_transport[0]);
	gen_w_enum(w, "ENUM_HCCL_RDMA_TYPE", gen_enum_rdma,
	           sizeof gen_enum_rdma / sizeof gen_enum_rdma[0]);
	for (size_t i = 0; i < P->tr.nsteps; i++) {
		sql =
		    xasprintf("INSERT INTO STEP_TIME VALUES (%" PRId64 ",%" PRId64 ",%" PRId64 ");",
		              P->tr.steps[i].step, P->tr.steps[i].start_ns, P->tr.steps[i].end_ns);
		gen_w_exec(w, sql);
		free(sql);
	}
}

static int64_t
rank_pid(const gen_plan *P, int rank)
{
	return 100000 + (int64_t)(gen_seed_of(P->o.seed, 0x91D, (uint64_t)rank, 0) % 3000000);
}

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

static int
rank_write(gen_plan *P, int rank)
{
	gen_rank *rk = &P->rk[rank];
	gen_writer w = {.P = P, .rk = rk, .rank = rank, .dev = rank % 8};
	char stamp[32];
	int rc = -1;
	w.pid = rank_pid(P, rank);
	w.gtid_main = w.pid << 32 | w.pid;
	w.gtid_dq = w.pid << 32 | (w.pid + 41); /* torch_npu's task-queue worker thread */
	w.gtid_autograd = w.pid << 32 | (w.pid + 17);
	w.next_conn = CONN_BASE;
	w.next_oplink = 1;
	w.next_opid = 1;
	w.next_mark = 1;
	if (P->o.pp > 0 && P->o.pp_device_ranges && !P->o.pp_op_pairs)
		w.ahead = PP_HOST_AHEAD;
	for (int s = 0; s < NSTREAMS; s++)
		w.taskid[s] = 100 * (uint32_t)s;
	stamp_format(P->session_end + (int64_t)rank * 7 * MS, stamp, sizeof stamp);
	char *dir = xasprintf("%s/gen-r%d_%" PRId64 "_%s_ascend_pt", P->outdir, rank, w.pid, stamp);
	char *out = xasprintf("%s/ASCEND_PROFILER_OUTPUT", dir);
	w.path = xasprintf("%s/ascend_pytorch_profiler_%d.db", out, rank);
	if (make_dir(dir) != 0 || make_dir(out) != 0 ||
	    write_profiler_info(P, dir, rank, w.pid) != 0)
		goto done;

	/* libsqlite3 sets a static lazily while opening (helgrind sees two opens race on it);
	 * one open per rank, so serialising them costs nothing */
	pthread_mutex_lock(&open_lock);
	int orc = sqlite3_open_v2(
	    w.path, &w.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	pthread_mutex_unlock(&open_lock);
	if (orc != SQLITE_OK) {
		gen_w_fail(&w, "open");
		goto done;
	}
	gen_w_exec(&w,
	           "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
	           "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY; BEGIN;");
	for (size_t i = 0; i < sizeof gen_ddl_tables / sizeof gen_ddl_tables[0]; i++)
		gen_w_exec(&w, gen_ddl_tables[i]);
	gen_w_prepare(&w);
	w_header_rows(&w);

	for (size_t i = 0; i < rk->nblk && !w.err; i++) {
		if (rk->blk[i].kind == BLK_RUN)
			gen_w_run(&w, &rk->blk[i]);
		else
			gen_w_coll(&w, &rk->blk[i]);
	}
	gen_w_pp(&w);
	if (P->o.modules)
		gen_w_modules(&w);
	for (size_t i = 0; i < P->tr.nstages; i++) {
		const gen_stage_truth *st = &P->tr.stages[i];
		if (st->rank != rank || P->o.no_stage_ranges || P->o.dp_only ||
		    st->stage + 1 == P->o.unmarked_stage)
			continue;
		if (P->o.stage_device_ranges)
			gen_w_mstx_device(&w, st->start_ns, gen_stage_host_end(P, rank, st),
			                  st->start_ns, st->end_ns, S_R_ROLLOUT + st->stage,
			                  S_DEFAULT);
		else
			gen_w_mstx(&w, st->start_ns, st->end_ns, S_R_ROLLOUT + st->stage);
	}
	for (size_t i = 0; P->o.rl_pp > 0 && i < P->tr.npp_blocks; i++) {
		const gen_pp_block_truth *bt = &P->tr.pp_blocks[i];
		if (bt->rank == rank)
			gen_w_mstx(&w, bt->start_ns, bt->end_ns,
			           bt->kind == 'F' ? PPS_FWD : PPS_BWD);
	}
	if (P->o.memory_records)
		gen_w_memory(&w, rk);
	gen_w_flush(&w);
	for (size_t i = 0; i < sizeof gen_ddl_indexes / sizeof gen_ddl_indexes[0]; i++)
		gen_w_exec(&w, gen_ddl_indexes[i]);
	gen_w_exec(&w, "COMMIT;");
	rc = w.err ? -1 : 0;
done:
	for (int q = 0; q < Q__COUNT; q++)
		sqlite3_finalize(w.q[q]);
	for (int q = 0; q < NBATCHED; q++) {
		sqlite3_finalize(w.many[q]);
		free(w.pend[q]);
	}
	if (w.db != NULL && sqlite3_close(w.db) != SQLITE_OK && rc == 0) {
		msg_error("gen: %s: close: %s", w.path, sqlite3_errmsg(w.db));
		rc = -1;
	}
	if (rc == 0 && P->o.json) { /* the same capture as torch_npu's text export (gen_json.c) */
		char *tv = xasprintf("%s/trace_view.json", out);
		rc = gen_json_from_db(w.path, tv);
		free(tv);
	}
	rk->tasks = w.tasks;
	rk->ops = w.ops;
	rk->nops = w.nops;
	w.ops = NULL;
	for (size_t i = 0; i < w.nlt; i++) /* the launch's tasks are all written now */
		if (w.lt_conn[i] - CONN_BASE < (int64_t)w.nconn)
			w.lt[i].tasks = w.conn_tasks[w.lt_conn[i] - CONN_BASE];
	rk->launches = w.lt;
	rk->nlaunches = w.nlt;
	free(w.lt_conn);
	free(w.conn_tasks);
	free(w.path);
	free(out);
	free(dir);
	return rc;
}

static void
write_rank_job(void *arg, size_t r)
{
	gen_plan *P = arg;
	if (rank_write(P, (int)r) != 0)
		P->rk[r].failed = 1;
}

/* ---- entry points ------------------------------------------------------------------------- */
void
gen_opts_default(gen_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nranks = 8;
	o->nsteps = 2;
	o->tasks_per_rank = 20000;
	o->slow_rank = 3;
	o->seed = 1;
	o->t0_ns = 0;
	o->json = 0;
	o->threads = 0;
	o->slow_stage = -1;
	o->slow_factor = 1000;
	o->delay_coll = -1;
	o->stall_rank = -1;
	o->slow_link = -1;
	o->host_late_rank = -1;
	o->host_late_ns = 40 * 1000;
	o->host_late_stage = -1;
}

void
gen_truth_free(gen_truth *t)
{
	if (t == NULL)
		return;
	free(t->stages);
	free(t->overlap);
	free(t->host);
	free(t->bubbles);
	free(t->steps);
	free(t->pp_blocks);
	free(t->pp_stages);
	free(t->p2p);
	free(t->dp_steps);
	free(t->comm);
	free(t->ops);
	free(t->launches);
	free(t->memory);
	free(t->modules);
	memset(t, 0, sizeof *t);
}

static int
opts_check(const gen_opts *o)
{
	if (o->nranks < 1 || o->nranks > 4096) {
		msg_error("gen: %d ranks: expected 1 to 4096", o->nranks);
		return -1;
	}
	if (o->nsteps < 1 || o->nsteps > 10000) {
		msg_error("gen: %d steps: expected 1 to 10000", o->nsteps);
		return -1;
	}
	if (o->tasks_per_rank < 1 || o->tasks_per_rank > 200000000) {
		msg_error("gen: %" PRIu64 " tasks per rank: expected 1 to 200000000",
		          o->tasks_per_rank);
		return -1;
	}
	if (o->slow_rank < -1 || o->slow_rank >= o->nranks) {
		msg_error("gen: slow rank %d is not one of the %d ranks (-1 = none)", o->slow_rank,
		          o->nranks);
		return -1;
	}
	if (o->t0_ns < 0) {
		msg_error("gen: negative start time");
		return -1;
	}
	if (o->pp < 0 || o->pp > 64 || (o->pp > 0 && o->nranks % o->pp != 0)) {
		msg_error(
		    "gen: %d PP stages for %d ranks: expected 0 (no PP) or 1 to 64 dividing the "
		    "ranks",
		    o->pp, o->nranks);
		return -1;
	}
	if (o->rl_pp < 0 || o->rl_pp > 64 || (o->rl_pp > 0 && o->nranks % o->rl_pp != 0) ||
	    (o->rl_pp > 0 && (o->pp > 0 || o->modules))) {
		msg_error("gen: %d PP stages in actor_update for %d ranks: expected 0 (none) or 1 "
		          "to 64 dividing the ranks, on a GRPO profile",
		          o->rl_pp, o->nranks);
		return -1;
	}
	if (o->modules && o->pp > 0) {
		msg_error("gen: a module profile has no pipeline stages");
		return -1;
	}
	if (o->pp_microbatches < 0 || o->pp_microbatches > 1000 ||
	    (o->pp_schedule != GEN_PP_1F1B && o->pp_schedule != GEN_PP_GPIPE)) {
		msg_error(
		    "gen: PP schedule %d with %d micro-batches: expected 1F1B or GPipe, 1 to 1000",
		    o->pp_schedule, o->pp_microbatches);
		return -1;
	}
	return 0;
}

int
gen_profile(const gen_opts *opts, const char *outdir, gen_truth *truth)
{
	gen_plan P;
	int rc = 0;
	if (truth != NULL)
		memset(truth, 0, sizeof *truth);
	if (opts_check(opts) != 0)
		return -1;
	memset(&P, 0, sizeof P);
	P.o = *opts;
	P.outdir = outdir;
	P.nranks = opts->nranks;
	P.nsteps = opts->nsteps;
	P.t0 = opts->t0_ns ? opts->t0_ns : GEN_T0_DEFAULT;
	P.gen_group_hash3 = gen_group_hash3(GROUP_NAME);
	gen_plan_sizes(&P);
	P.rk = xcalloc((size_t)P.nranks, sizeof *P.rk);
	for (int r = 0; r < P.nranks; r++) {
		P.rk[r].rank = r;
		P.rk[r].f = r == opts->slow_rank ? 1300 : opts->clean ? 1000 : 1000 + 10 * (r % 4);
		P.rk[r].o = &P.o;
	}
	P.pp_dp = opts->pp > 0 ? opts->nranks / opts->pp : 0;
	P.pp_mb = opts->pp_microbatches > 0 ? opts->pp_microbatches : 8;
	if ((opts->pp > 0        ? gen_plan_pp(&P)
	     : opts->modules > 0 ? gen_plan_modules(&P)
	                         : gen_plan_build(&P)) != 0 ||
	    outdir_prepare(outdir) != 0) {
		rc = -1;
		goto done;
	}

	/* once, before the threads: sqlite's lazy initialisation is not meant to race */
	if (sqlite3_initialize() != SQLITE_OK) {
		msg_error("gen: cannot initialise sqlite3");
		rc = -1;
		goto done;
	}
	parallel_for((size_t)P.nranks, opts->threads, write_rank_job, &P);

	for (int r = 0; r < P.nranks; r++) {
		P.tr.tasks += P.rk[r].tasks;
		for (size_t i = 0; i < P.rk[r].nops; i++)
			VEC_PUSH(P.tr.ops, P.tr.nops, P.op_cap, P.rk[r].ops[i]);
		for (int m = 0; m < P.rk[r].nmemory; m++) {
			P.tr.memory =
			    xreallocarray(P.tr.memory, P.tr.nmemory + 1, sizeof *P.tr.memory);
			P.tr.memory[P.tr.nmemory++] = P.rk[r].memory[m];
		}
		size_t nm = P.rk[r].nmodules;
		if (nm > 0) {
			P.tr.modules =
			    xreallocarray(P.tr.modules, P.tr.nmodules + nm, sizeof *P.tr.modules);
			memcpy(P.tr.modules + P.tr.nmodules, P.rk[r].modules,
			       nm * sizeof *P.tr.modules);
			P.tr.nmodules += nm;
		}
		size_t nl = P.rk[r].nlaunches;
		if (nl > 0) {
			P.tr.launches = xreallocarray(P.tr.launches, P.tr.nlaunches + nl,
			                              sizeof *P.tr.launches);
			memcpy(P.tr.launches + P.tr.nlaunches, P.rk[r].launches,
			       nl * sizeof *P.tr.launches);
			P.tr.nlaunches += nl;
		}
		if (P.rk[r].failed)
			rc = -1;
	}
	P.tr.nranks = P.nranks;
	P.tr.slow_rank = opts->slow_rank;
	P.tr.collectives = P.nops;
	P.tr.pp = opts->pp;
	P.tr.pp_dp = P.pp_dp;
	P.tr.pp_microbatches = opts->pp > 0 ? P.pp_mb : 0;
	if (rc == 0 && truth != NULL) {
		*truth = P.tr;
		memset(&P.tr, 0, sizeof P.tr);
	}
done:
	gen_truth_free(&P.tr);
	for (int r = 0; r < P.nranks; r++) {
		free(P.rk[r].blk);
		free(P.rk[r].pp);
		free(P.rk[r].ops);
		free(P.rk[r].launches);
		free(P.rk[r].modules);
	}
	free(P.rk);
	return rc;
}
