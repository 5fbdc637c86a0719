/* The generator's Kineto writer for collectives (gen_nccl.h). The layout follows real
 * libkineto output (HolisticTraceAnalysis' test traces are the model): an object with
 * schemaVersion, distributedInfo and traceEvents; times in us as numbers with three decimals;
 * the host process (pid 1000 + rank) with its main thread, the GPU as pid = rank with a thread
 * per stream ("stream 7 "); process_name / process_labels / thread_name metadata; "X" events of
 * categories cpu_op, user_annotation, cuda_runtime and kernel; ProfilerStep#N ranges. Every
 * number follows from the seed, and every rank computes every rank's arrival at a collective,
 * so that all ranks write the same end for it. */
#include "config.h"
#include "gen/gen_nccl.h"
#include "util/files.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

void
gen_nccl_opts_default(gen_nccl_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nranks = 4;
	o->nsteps = 2;
	o->kernels = 2;
	o->rounds = 1;
	o->slow_rank = 1;
	o->seed = 1;
}

/* The output, plain or compressed. */
typedef struct kw {
	FILE *f;
	gzFile gz;
	int first;
	int failed;
} kw;

static void __attribute__((format(printf, 2, 3))) kw_printf(kw *w, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf) {
		w->failed = 1;
		return;
	}
	if (w->gz != NULL) {
		if (n > 0 && gzwrite(w->gz, buf, (unsigned)n) != n)
			w->failed = 1;
	} else if (fwrite(buf, 1, (size_t)n, w->f) != (size_t)n) {
		w->failed = 1;
	}
}

/* One event: the separator, then the text. */
static void __attribute__((format(printf, 2, 3))) kw_event(kw *w, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof buf) {
		w->failed = 1;
		return;
	}
	kw_printf(w, "%s\n  %s", w->first ? "" : ",", buf);
	w->first = 0;
}

/* ns -> "us.nnn" */
static const char *
us(char *b, int64_t ns)
{
	snprintf(b, 32, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
	return b;
}

static uint64_t
mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* A number in [lo, hi) from the seed and a key. */
static int64_t
pick(uint64_t seed, uint64_t key, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(mix(seed ^ mix(key)) % (uint64_t)(hi - lo));
}

/* How a collective of the plan is written. */
enum style {
	ST_ARGS,  /* ncclDevKernel_Generic with its args, record_param_comms and nccl:* around */
	ST_RPC,   /* ncclDevKernel_Generic without them: only record_param_comms says */
	ST_RANGE, /* torch < 2.2: ncclKernel_SendRecv in an nccl:* range, no record_param_comms */
	ST_NAME,  /* the kernel's name says it, no call around the launch */
	ST_P2P,   /* a send (even rank) / recv (odd rank) pair, Generic with args */
};

static const struct plan {
	enum style st;
	const char *coll;  /* "Collective name" as torch writes it */
	const char *range; /* the nccl:* range */
	const char *kernel;
	const char *pg;
	const char *dtype;
} plan[] = {
    {ST_ARGS, "allreduce", "nccl:all_reduce", "ncclDevKernel_Generic", "0", "Float"},
    {ST_ARGS, "_allgather_base", "nccl:_all_gather_base", "ncclDevKernel_Generic", "0", "BFloat16"},
    {ST_RPC, "_reduce_scatter_base", NULL, "ncclDevKernel_Generic", "0", "BFloat16"},
    {ST_RANGE, "all_to_all", "nccl:all_to_all", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", NULL,
     NULL},
    {ST_NAME, "allreduce", NULL, "ncclKernel_AllReduce_RING_LL_Sum_float", NULL, NULL},
    {ST_ARGS, "broadcast", "nccl:broadcast", "ncclDevKernel_Generic", "1", "Long"},
    {ST_ARGS, "all_to_allv", "nccl:all_to_all", "ncclDevKernel_Generic", "1", "Float"},
    {ST_P2P, "send", "nccl:send", "ncclDevKernel_Generic", "2", "Float"},
    {ST_ARGS, "barrier", "nccl:all_reduce_barrier", "ncclDevKernel_Generic", "0", "Float"},
};
#define NPLAN (sizeof plan / sizeof *plan)

typedef struct rank_ctx {
	kw *w;
	const gen_nccl_opts *o;
	int rank;
	int hpid;
	int64_t corr;
	int64_t ext;
	char a[32], b[32], c[32];
	int64_t off, t0; /* the host's clock: off ns ahead of host 0's, drifting ppm from t0 */
	double ppm;
} rank_ctx;

/* Time t of host 0's clock as the rank's host writes it. */
static int64_t
host_time(const rank_ctx *x, int64_t t)
{
	double d = x->ppm * 1e-6 * (double)(t - x->t0);
	return t + x->off + (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
}

/* x->a and x->b: the "ts" and "dur" of an event of host 0's times [t, t + d) */
static void
span(rank_ctx *x, int64_t t, int64_t d)
{
	int64_t s = host_time(x, t);
	us(x->a, s);
	us(x->b, host_time(x, t + d) - s);
}

/* A launch call and the kernel it launched. */
static void
launch(rank_ctx *x, int64_t h, int stream, const char *kernel, int64_t start, int64_t end,
       const char *kargs)
{
	int64_t corr = ++x->corr;
	span(x, h, 5000);
	kw_event(x->w,
	         "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":%d,"
	         "\"tid\":%d,\"ts\":%s,\"dur\":%s,\"args\":{\"External id\":%" PRId64
	         ",\"cbid\":211,\"correlation\":%" PRId64 "}}",
	         x->hpid, x->hpid, x->a, x->b, corr, corr);
	span(x, start, end - start);
	kw_event(x->w,
	         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
	         "\"ts\":%s,\"dur\":%s,\"args\":{\"External id\":%" PRId64
	         ",\"queued\":0,\"device\":%d,\"context\":1,\"stream\":%d,\"correlation\":%" PRId64
	         "%s%s}}",
	         kernel, x->rank, stream, x->a, x->b, corr, x->rank, stream, corr,
	         *kargs ? "," : "", kargs);
}

/* The arrival of rank r at collective key: the slow rank last. */
static int64_t
arrival(const gen_nccl_opts *o, uint64_t key, int r)
{
	return pick(o->seed, key * 131 + (uint64_t)r, 0, 120000) + (r == o->slow_rank ? 300000 : 0);
}

static int
write_rank(const char *path, const gen_nccl_opts *o, int rank)
{
	kw w = {0};
	w.first = 1;
	if (o->gzip)
		w.gz = gzopen(path, "wb6");
	else
		w.f = fopen(path, "w");
	if (w.gz == NULL && w.f == NULL) {
		msg_warn(path, "cannot write: %s", strerror(errno));
		return -1;
	}
	rank_ctx x = {.w = &w, .o = o, .rank = rank, .hpid = 1000 + rank};
	int n = o->nranks;
	int64_t t0 = INT64_C(1700000000000000000) / 1000 * 1000; /* us-aligned epoch ns */
	if (o->hosts > 0) {
		int h = (int)((int64_t)rank * o->hosts / n);
		x.off = o->clock_off[h];
		x.ppm = o->clock_ppm[h];
		x.t0 = t0;
	}
	kw_printf(&w,
	          "{\n\"schemaVersion\": 1,\n\"distributedInfo\": {\"backend\": \"nccl\", "
	          "\"rank\": %d, \"world_size\": %d},\n\"traceEvents\": [",
	          rank, n);
	kw_event(&w,
	         "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	         "\"python\"}}",
	         x.hpid);
	kw_event(&w,
	         "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,\"tid\":0,\"args\":{"
	         "\"labels\":\"CPU\"}}",
	         x.hpid);
	kw_event(&w,
	         "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	         "\"python\"}}",
	         rank);
	kw_event(&w,
	         "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,\"tid\":0,\"args\":{"
	         "\"labels\":\"GPU %d\"}}",
	         rank, rank);
	static const int streams[] = {7, 20};
	for (int k = 0; k < 2; k++)
		kw_event(&w,
		         "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{"
		         "\"name\":\"stream %d \"}}",
		         rank, streams[k], streams[k]);
	kw_event(&w,
	         "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
	         "\"thread %d (python3)\"}}",
	         x.hpid, x.hpid, x.hpid);

	/* the device timeline: each collective starts after the compute before it (the same
	 * on every rank), each rank arrives at it at its own time, and all end together */
	int64_t t = t0 + 1000000;
	uint64_t key = 0;
	for (int s = 0; s < o->nsteps; s++) {
		int64_t step_start = t;
		t += 200000;
		for (int rnd = 0; rnd < o->rounds; rnd++)
			for (size_t p = 0; p < NPLAN; p++) {
				const struct plan *pl = &plan[p];
				key++;
				if (pl->st == ST_P2P && n < 2)
					continue;
				/* compute kernels, launched just before they run */
				for (int k = 0; k < o->kernels; k++) {
					int64_t d =
					    pick(o->seed, key * 977 + (uint64_t)k, 100000, 400000);
					launch(&x, t - 20000, 7, "ampere_sgemm_128x64_nn", t, t + d,
					       "");
					t += d + 5000;
				}
				int64_t last = INT64_MIN;
				for (int r = 0; r < n; r++) {
					int64_t a = arrival(o, key, r);
					last = a > last ? a : last;
				}
				int64_t start = t + arrival(o, key, rank);
				int64_t end = t + last + pick(o->seed, key * 31, 50000, 250000);
				int64_t h = start - 60000; /* the host call, before the kernel */
				const char *coll = pl->coll;
				if (pl->st == ST_P2P && rank % 2 == 1)
					coll = "recv";
				if (pl->st == ST_P2P && rank % 2 == 0 && rank + 1 >= n)
					coll = NULL; /* the last even rank has no partner */
				if (coll != NULL) {
					int64_t nel = pick(o->seed, key * 7, 1, 1 << 24);
					char cargs[512];
					snprintf(
					    cargs, sizeof cargs,
					    "\"Collective name\":\"%s\",\"In msg nelems\":%" PRId64
					    ",\"Out msg nelems\":%" PRId64
					    ",\"Group size\":%d,\"dtype\":\"%s\",\"In split "
					    "size\":\"[]\",\"Out split size\":\"[]\",\"Process "
					    "Group Name\":\"%s\",\"Process Group "
					    "Description\":\"default_pg\"",
					    coll, nel, nel, pl->st == ST_P2P ? 2 : n,
					    pl->dtype ? pl->dtype : "Float", pl->pg ? pl->pg : "0");
					span(&x, h, 40000);
					if (pl->st == ST_ARGS || pl->st == ST_RPC ||
					    pl->st == ST_P2P)
						kw_event(
						    &w,
						    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":"
						    "\"record_param_comms\",\"pid\":%d,\"tid\":%d,"
						    "\"ts\":%s,\"dur\":%s,\"args\":{\"External "
						    "id\":%" PRId64 ",%s}}",
						    x.hpid, x.hpid, x.a, x.b, ++x.ext, cargs);
					span(&x, h + 5000, 30000);
					if (pl->range != NULL && pl->st != ST_RPC)
						kw_event(
						    &w,
						    "{\"ph\":\"X\",\"cat\":\"user_annotation\","
						    "\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%"
						    "s,\"dur\":%s,\"args\":{\"External "
						    "id\":%" PRId64 "}}",
						    pl->st == ST_P2P && rank % 2 ? "nccl:recv"
						                                 : pl->range,
						    x.hpid, x.hpid, x.a, x.b, ++x.ext);
					launch(&x, h + 10000, 20, pl->kernel, start, end,
					       pl->st == ST_ARGS || pl->st == ST_P2P ? cargs : "");
				}
				t = end + 10000;
			}
		t += 100000;
		span(&x, step_start - 100000, t - step_start + 100000);
		kw_event(
		    &w,
		    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\","
		    "\"pid\":%d,\"tid\":%d,\"ts\":%s,\"dur\":%s,\"args\":{\"External id\":%" PRId64
		    "}}",
		    s + 1, x.hpid, x.hpid, x.a, x.b, ++x.ext);
		t += 50000;
	}
	kw_printf(&w, "\n]\n}\n");
	int bad = w.failed;
	if (w.gz != NULL)
		bad |= gzclose(w.gz) != Z_OK;
	else
		bad |= fclose(w.f) != 0;
	if (bad)
		msg_warn(path, "cannot write");
	return bad ? -1 : 0;
}

int
gen_nccl(const char *outdir, const gen_nccl_opts *o)
{
	if (util_mkdir_p(outdir, 0755) != 0) {
		msg_warn(outdir, "cannot create: %s", strerror(errno));
		return -1;
	}
	for (int r = 0; r < o->nranks; r++) {
		/* with hosts, as tensorboard_trace_handler names it: {hostname}_{pid}.{time_ns} */
		char *p =
		    o->hosts > 0
		        ? xasprintf("%s/gen-node%d_%d.%" PRId64 ".pt.trace.json%s", outdir,
		                    (int)((int64_t)r * o->hosts / o->nranks), 1000 + r,
		                    INT64_C(1700000000123456789) + r, o->gzip ? ".gz" : "")
		        : xasprintf("%s/rank%d.pt.trace.json%s", outdir, r, o->gzip ? ".gz" : "");
		int rc = write_rank(p, o, r);
		free(p);
		if (rc != 0)
			return -1;
	}
	return 0;
}
