/* The generator's Kineto writer: one GPU rank's PyTorch profiler trace.
 *
 * What it holds (gen_kineto.h has the options):
 *  - a JSON object with schemaVersion and traceEvents (and distributedInfo when given a rank);
 *    times are µs with three decimals;
 *  - a host process (process_labels "CPU") whose main thread runs nsteps ProfilerStep#N
 *    ranges back to back, each with `launches` launch calls (cudaLaunchKernel,
 *    cudaMemcpyAsync, cudaMemsetAsync) 10 µs apart, each inside an operator, each naming its
 *    device work by args.correlation;
 *  - the machine's two GPUs (pids 0 and 1, process_labels "GPU n", which 2021 leaves out:
 *    its stream threads are tids "stream 7", without thread_name); GPU 0 runs the work on
 *    stream 7 (kernels, memory copies and sets) and, with comm, NCCL all-reduce kernels on
 *    stream 20. A stream runs its work in launch order, each item at the earliest 3 µs after
 *    its call and 1 µs after the one before: a training step's kernels (5-25 µs) fall behind
 *    their launches (10 µs apart), so each step's work runs well into the next step's host
 *    range, as an asynchronous GPU's does;
 *  - after: kernels launched after the last step's range, outside every ProfilerStep;
 *  - no_flows: no ac2g flows (2024 writes them otherwise, 2021 never);
 *  - precapture: device events at the capture's start whose correlation no call in the trace
 *    has (launched before the capture began), on stream 7 before the first step's work;
 *  - inference: short kernels (2-8 µs) the host stays ahead of, no communication, and inside
 *    each step, after its launches, the host thread waits 2 ms in Python (python_function
 *    "threading.py(324): wait") while the device is idle. The host process is pid 1, as in a
 *    container, which is also the pid Kineto gives the second GPU.
 * The categories are those of the version asked for (gen_kineto.h). */
#include "config.h"
#include "gen/gen_kineto.h"
#include "util/msg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US INT64_C(1000)

void
gen_kineto_default(gen_kineto_opts *o)
{
	memset(o, 0, sizeof *o);
	o->version = GEN_KINETO_2024;
	o->nsteps = 3;
	o->launches = 200;
	o->rank = -1;
	o->seed = 1;
}

typedef struct kw {
	FILE *f;
	int first;
	int v2021;
	uint64_t rng;
} kw;

static uint64_t
rnd(kw *w, uint64_t n)
{
	w->rng = w->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (w->rng >> 33) % n;
}

/* A time in µs with three decimals (times here are positive). */
static void
put_us(kw *w, const char *key, int64_t ns)
{
	fprintf(w->f, "\"%s\": %lld.%03lld", key, (long long)(ns / US), (long long)(ns % US));
}

static void
ev_open(kw *w)
{
	fputs(w->first ? "\n  {" : ",\n  {", w->f);
	w->first = 0;
}

static void
meta(kw *w, const char *what, long long pid, const char *tid, const char *key, const char *val)
{
	ev_open(w);
	fprintf(w->f,
	        "\"name\": \"%s\", \"ph\": \"M\", \"ts\": 0, \"pid\": %lld, \"tid\": %s, "
	        "\"args\": {\"%s\": \"%s\"}}",
	        what, pid, tid, key, val);
}

/* A complete event; args is the inside of the args object, or NULL. */
static void
slice(kw *w, const char *cat, const char *name, long long pid, const char *tid, int64_t ts,
      int64_t dur, const char *args)
{
	ev_open(w);
	fprintf(w->f,
	        "\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %lld, \"tid\": %s, ",
	        cat, name, pid, tid);
	put_us(w, "ts", ts);
	fputs(", ", w->f);
	put_us(w, "dur", dur);
	if (args)
		fprintf(w->f, ", \"args\": {%s}", args);
	fputc('}', w->f);
}

static void
flow(kw *w, char ph, long long pid, const char *tid, int64_t ts, long long id)
{
	ev_open(w);
	fprintf(w->f, "\"ph\": \"%c\", \"id\": %lld, \"pid\": %lld, \"tid\": %s, ", ph, id, pid,
	        tid);
	put_us(w, "ts", ts);
	fprintf(w->f, ", \"cat\": \"ac2g\", \"name\": \"ac2g\"%s}",
	        ph == 'f' ? ", \"bp\": \"e\"" : "");
}

enum { W_KERNEL, W_MEMCPY, W_MEMSET, W_NCCL };

/* One item of device work on GPU 0. */
static void
device_event(kw *w, int what, int stream, int64_t ts, int64_t dur, long long corr, int j)
{
	static const char *const kernels[] = {
	    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
	    "ampere_sgemm_128x64_tn", "void cunn_SoftMaxForward<4, float, float, float>",
	    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>"};
	const char *cat, *name;
	switch (what) {
	case W_MEMCPY:
		cat = w->v2021 ? "Memcpy" : "gpu_memcpy";
		name = "Memcpy HtoD (Pageable -> Device)";
		break;
	case W_MEMSET:
		cat = w->v2021 ? "Memset" : "gpu_memset";
		name = "Memset (Device)";
		break;
	case W_NCCL:
		cat = w->v2021 ? "Kernel" : "kernel";
		name = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, "
		       "ncclWork*)";
		break;
	default:
		cat = w->v2021 ? "Kernel" : "kernel";
		name = kernels[j % 4];
	}
	char tid[32], args[160];
	if (w->v2021)
		snprintf(tid, sizeof tid, "\"stream %d\"", stream);
	else
		snprintf(tid, sizeof tid, "%d", stream);
	snprintf(args, sizeof args,
	         "\"device\": 0, \"context\": 1, \"stream\": %d, \"correlation\": %lld, "
	         "\"external id\": %lld",
	         stream, corr, corr + 100000);
	slice(w, cat, name, 0, tid, ts, dur, args);
}

typedef struct launch {
	int what, stream, j;
	int64_t call, dur;
	long long corr;
} launch;

int
gen_kineto(const gen_kineto_opts *o, const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		msg_error("gen: cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	kw w = {f, 1, o->version == GEN_KINETO_2021, o->seed * 2654435761u + 1};
	long long pid = o->inference ? 1 : 4242;
	char htid[32];
	snprintf(htid, sizeof htid, w.v2021 ? "\"%lld\"" : "%lld", pid);
	fputs("{\n  \"schemaVersion\": 1,\n", f);
	if (o->rank >= 0)
		fprintf(f,
		        "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, "
		        "\"world_size\": %d},\n",
		        o->rank, o->rank + 1);
	fputs("  \"traceEvents\": [", f);

	meta(&w, "process_name", pid, "0", "name", "python3");
	meta(&w, "process_labels", pid, "0", "labels", "CPU");
	char thname[64];
	snprintf(thname, sizeof thname, "thread %lld (python3)", pid);
	meta(&w, "thread_name", pid, htid, "name", thname);
	for (int g = 0; g < 2; g++) {
		char lab[16];
		snprintf(lab, sizeof lab, "GPU %d", g);
		meta(&w, "process_name", g, "0", "name", "python3");
		if (!w.v2021) /* 2021: the device is known by its streams' tids alone */
			meta(&w, "process_labels", g, "0", "labels", lab);
	}
	if (!w.v2021) {
		meta(&w, "thread_name", 0, "7", "name", "stream 7 ");
		if (o->comm)
			meta(&w, "thread_name", 0, "20", "name", "stream 20 ");
	}

	const char *op_cat = w.v2021 ? "Operator" : "cpu_op";
	const char *rt_cat = w.v2021 ? "Runtime" : "cuda_runtime";
	int64_t t0 = INT64_C(1690000000000000) * US; /* µs since the epoch, as Kineto's */
	int64_t h = t0;
	int64_t free_at[2] = {t0, t0}; /* streams 7 and 20 */
	long long corr = 1000;
	/* launched before the capture: their calls are not in the trace */
	for (int k = 0; k < o->precapture; k++) {
		int64_t dur = 40 * US;
		device_event(&w, W_KERNEL, 7, free_at[0] + US, dur, 1 + k, k);
		free_at[0] += US + dur;
	}
	launch *lv = NULL;
	size_t nl = (size_t)(o->launches > 0 ? o->launches : 0);
	if (nl > 0 && (lv = calloc(nl, sizeof *lv)) == NULL) {
		fclose(f);
		msg_error("gen: out of memory");
		return -1;
	}
	for (int s = 0; s < o->nsteps; s++) {
		int64_t step_start = h + 10 * US;
		int64_t call = step_start + 20 * US;
		for (size_t j = 0; j < nl; j++, call += 10 * US) {
			launch *l = &lv[j];
			l->j = (int)j;
			l->call = call;
			l->corr = corr++;
			l->stream = 7;
			if (o->comm && !o->inference && j % 8 == 5) {
				l->what = W_NCCL;
				l->stream = 20;
				l->dur = (int64_t)(30 + rnd(&w, 51)) * US;
			} else if (j % 10 == 3) {
				l->what = W_MEMCPY;
				l->dur = (int64_t)(2 + rnd(&w, 9)) * US;
			} else if (j % 10 == 7) {
				l->what = W_MEMSET;
				l->dur = (int64_t)(1 + rnd(&w, 3)) * US;
			} else {
				l->what = W_KERNEL;
				l->dur = o->inference ? (int64_t)(2 + rnd(&w, 7)) * US
				                      : (int64_t)(5 + rnd(&w, 21)) * US;
			}
			static const char *const calls[] = {"cudaLaunchKernel", "cudaMemcpyAsync",
			                                    "cudaMemsetAsync", "cudaLaunchKernel"};
			static const char *const ops[] = {"aten::mm", "aten::copy_", "aten::zero_",
			                                  "c10d::allreduce_"};
			char args[96];
			slice(&w, op_cat, ops[l->what], pid, htid, call - 2 * US, 8 * US,
			      "\"Input Dims\": [], \"External id\": 1");
			snprintf(args, sizeof args,
			         "\"cbid\": 211, \"correlation\": %lld, \"external id\": %lld",
			         l->corr, l->corr + 100000);
			slice(&w, rt_cat, calls[l->what], pid, htid, call, 4 * US, args);
			if (!w.v2021 && !o->no_flows)
				flow(&w, 's', pid, htid, call, l->corr);
		}
		int64_t step_end = call + 20 * US;
		if (o->inference) { /* the host waits for the next request; the device is idle */
			slice(&w, "python_function", "threading.py(324): wait", pid, htid, step_end,
			      2000 * US, NULL);
			step_end += 2005 * US;
		}
		char sname[32]; /* (written after its launches: a trace's order is not time's) */
		snprintf(sname, sizeof sname, "ProfilerStep#%d", s + 11);
		slice(&w, w.v2021 ? "Operator" : "user_annotation", sname, pid, htid, step_start,
		      step_end - step_start, "\"External id\": 1");
		for (size_t j = 0; j < nl; j++) {
			launch *l = &lv[j];
			int64_t *fa = &free_at[l->stream == 20];
			int64_t ts = l->call + 3 * US > *fa + US ? l->call + 3 * US : *fa + US;
			device_event(&w, l->what, l->stream, ts, l->dur, l->corr, l->j);
			if (!w.v2021 && !o->no_flows)
				flow(&w, 'f', 0, l->stream == 20 ? "20" : "7", ts, l->corr);
			*fa = ts + l->dur;
		}
		h = step_end;
	}
	/* launched after the last step, outside every ProfilerStep range */
	for (int k = 0; k < o->after; k++) {
		int64_t call = h + (int64_t)(20 + 10 * k) * US, dur = 10 * US;
		long long cr = corr++;
		char args[96];
		snprintf(args, sizeof args,
		         "\"cbid\": 211, \"correlation\": %lld, \"external id\": %lld", cr,
		         cr + 100000);
		slice(&w, rt_cat, "cudaLaunchKernel", pid, htid, call, 4 * US, args);
		int64_t ts = call + 3 * US > free_at[0] + US ? call + 3 * US : free_at[0] + US;
		device_event(&w, W_KERNEL, 7, ts, dur, cr, k);
		free_at[0] = ts + dur;
	}
	free(lv);
	fputs("\n  ]\n}\n", f);
	if (ferror(f) || fclose(f) != 0) {
		msg_error("gen: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
