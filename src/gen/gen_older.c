/* Older Ascend layouts for the tests: msprof's per-iteration export of CANN 6.x-7.0
 * (PROF_x/device_{N}/timeline/msprof_{N}_{model}_{iter}.json with the task_time_*, hccl_* and
 * step_trace_* files that repeat parts of it) and MindSpore 1.x's timeline
 * (ascend_timeline_display_{rank}.json with step_trace_raw_{rank}_detail_time.csv). Each file
 * carries its own answers: every msprof_* file its Overlap Analysis lanes and its Step Trace
 * iteration, computed here from the tasks written, which the tests compare tl's numbers with. */
#include "config.h"
#include "gen/gen.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define OLD_DEVICES 2
#define OLD_MAX_IV 64

typedef struct iv {
	int64_t s, e; /* ns */
} iv;

typedef struct rng {
	uint64_t x;
} rng;

static uint64_t
rng_next(rng *r)
{
	r->x ^= r->x << 13;
	r->x ^= r->x >> 7;
	r->x ^= r->x << 17;
	return r->x;
}

static int64_t
rng_in(rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

static int
mkdir_p(const char *p)
{
	if (mkdir(p, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "tlgen: %s: %s\n", p, strerror(errno));
		return -1;
	}
	return 0;
}

/* ns as msprof's µs string with three decimals */
static const char *
us(int64_t ns, char *buf)
{
	sprintf(buf, "\"%" PRId64 ".%03" PRId64 "\"", ns / 1000, ns % 1000);
	return buf;
}

static int
cmp_iv(const void *a, const void *b)
{
	const iv *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

/* Sorts v and merges overlapping intervals in place; returns the new count. */
static size_t
iv_merge(iv *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_iv);
	size_t m = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].s <= v[m].e) {
			if (v[i].e > v[m].e)
				v[m].e = v[i].e;
		} else {
			v[++m] = v[i];
		}
	}
	return m + 1;
}

/* a minus b (both merged) into out; returns the count. */
static size_t
iv_minus(const iv *a, size_t na, const iv *b, size_t nb, iv *out)
{
	size_t n = 0;
	for (size_t i = 0; i < na; i++) {
		int64_t s = a[i].s;
		for (size_t k = 0; k < nb && s < a[i].e; k++) {
			if (b[k].e <= s || b[k].s >= a[i].e)
				continue;
			if (b[k].s > s)
				out[n++] = (iv){s, b[k].s};
			s = b[k].e;
		}
		if (s < a[i].e)
			out[n++] = (iv){s, a[i].e};
	}
	return n;
}

/* One iteration's events, written into the files that hold them: f[0] msprof_*, f[1]
 * task_time_*, f[2] hccl_*, f[3] step_trace_* (NULL: not written). */
typedef struct iter_files {
	FILE *f[4];
	int first[4];
} iter_files;

static void put(iter_files *w, unsigned mask, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#include <stdarg.h>
static void
put(iter_files *w, unsigned mask, const char *fmt, ...)
{
	for (int k = 0; k < 4; k++) {
		if (!(mask & (1u << k)) || w->f[k] == NULL)
			continue;
		va_list ap;
		va_start(ap, fmt);
		fputs(w->first[k] ? "[\n" : ",\n", w->f[k]);
		w->first[k] = 0;
		vfprintf(w->f[k], fmt, ap);
		va_end(ap);
	}
}

enum { F_MSPROF = 1, F_TASK = 2, F_HCCL = 4, F_STEP = 8 };
enum { PID_HW = 800, PID_HCCL = 900, PID_CANN = 700, PID_OA = 1100 };

/* The Overlap Analysis threads' names, by tid. */
static const char *const oa[4] = {"Computing", "Communication", "Communication(Not Overlapped)",
                                  "Free"};

/* The metadata of an iteration's files: processes and threads by name (the loader never trusts
 * pids). */
static void
put_metadata(iter_files *w, int model)
{
	put(w, F_MSPROF | F_TASK | F_STEP,
	    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	    "\"Ascend Hardware\"}}",
	    PID_HW);
	put(w, F_MSPROF | F_TASK,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":3,\"args\":{\"name\":"
	    "\"Stream 3\"}}",
	    PID_HW);
	put(w, F_MSPROF | F_TASK,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":5,\"args\":{\"name\":"
	    "\"Stream 5\"}}",
	    PID_HW);
	put(w, F_MSPROF | F_TASK,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":7,\"args\":{\"name\":"
	    "\"Stream 7\"}}",
	    PID_HW);
	put(w, F_MSPROF | F_STEP,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
	    "\"Step Trace(Model ID:%d)\"}}",
	    PID_HW, 100000 + model, model);
	put(w, F_MSPROF | F_HCCL,
	    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	    "\"HCCL\"}}",
	    PID_HCCL);
	put(w, F_MSPROF | F_HCCL,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	    "\"Communication Kernel\"}}",
	    PID_HCCL);
	put(w, F_MSPROF | F_HCCL,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":1,\"args\":{\"name\":"
	    "\"Plane 0\"}}",
	    PID_HCCL);
	put(w, F_MSPROF,
	    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	    "\"CANN\"}}",
	    PID_CANN);
	put(w, F_MSPROF,
	    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":4242,\"args\":{\"name\":"
	    "\"Thread 4242\"}}",
	    PID_CANN);
	put(w, F_MSPROF,
	    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
	    "\"Overlap Analysis\"}}",
	    PID_OA);
	for (int k = 0; k < 4; k++)
		put(w, F_MSPROF,
		    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{"
		    "\"name\":\"%s\"}}",
		    PID_OA, k, oa[k]);
}

/* The Overlap Analysis lanes, as msprof computes them from the compute and communication
 * intervals of the iteration (sorted and merged here in place). */
static void
put_overlap(iter_files *w, iv *comp, size_t nc, iv *comm, size_t nm)
{
	char b1[48];
	size_t mc = iv_merge(comp, nc), mm = iv_merge(comm, nm);
	iv noov[OLD_MAX_IV], all[OLD_MAX_IV + 4], gaps[OLD_MAX_IV + 4];
	size_t nn = iv_minus(comm, mm, comp, mc, noov), na = 0;
	for (size_t k = 0; k < mc; k++)
		all[na++] = comp[k];
	for (size_t k = 0; k < mm; k++)
		all[na++] = comm[k];
	na = iv_merge(all, na);
	size_t ng = 0;
	for (size_t k = 1; k < na; k++)
		gaps[ng++] = (iv){all[k - 1].e, all[k].s};
	const iv *lane[4] = {comp, comm, noov, gaps};
	size_t ln[4] = {mc, mm, nn, ng};
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < ln[k]; i++) {
			int64_t d = lane[k][i].e - lane[k][i].s;
			put(w, F_MSPROF,
			    "{\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%s,\"dur\":%" PRId64
			    ".%03" PRId64 ",\"ph\":\"X\"}",
			    oa[k], PID_OA, k, us(lane[k][i].s, b1), d / 1000, d % 1000);
		}
}

/* Writes iteration `iter` of model `model` on device dev, starting at *t (ns), which it
 * advances past the iteration. */
static int
write_iteration(const char *tdir, int dev, int model, int iter, int64_t *t, rng *r)
{
	static const char *const names[4] = {"msprof", "task_time", "hccl", "step_trace"};
	iter_files w;
	char path[4096], b1[48], b2[48], b3[48], b4[48];
	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s_%d_%d_%d.json", tdir, names[k], dev, model,
		         iter);
		w.f[k] = fopen(path, "w");
		w.first[k] = 1;
		if (w.f[k] == NULL) {
			fprintf(stderr, "tlgen: %s: %s\n", path, strerror(errno));
			for (int j = 0; j < k; j++)
				fclose(w.f[j]);
			return -1;
		}
	}
	put_metadata(&w, model);

	int64_t start = *t, fp = start + rng_in(r, 80000, 150000);
	iv comp[OLD_MAX_IV], comm[4];
	size_t nc = 0, nm = 0;
	/* forward and backward on stream 3; the all-reduce of the gradients overlaps the last
	 * kernels; an optimizer kernel on stream 5 after it */
	int64_t x = fp;
	int nk = (int)rng_in(r, 6, 12), task = 1;
	int64_t comm_at = 0;
	for (int k = 0; k < nk; k++) {
		int64_t d = rng_in(r, 200000, 900000) + rng_in(r, 0, 999);
		comp[nc++] = (iv){x, x + d};
		put(&w, F_MSPROF | F_TASK,
		    "{\"name\":\"%s\",\"pid\":%d,\"tid\":3,\"ts\":%s,\"dur\":%" PRId64 ".%03" PRId64
		    ",\"ph\":\"X\",\"args\":{\"Model Id\":%d,\"Task Type\":"
		    "\"AI_CORE\",\"Stream Id\":3,\"Task Id\":%d,\"Batch Id\":0,\"Subtask Id\":"
		    "4294967295}}",
		    k < nk / 2 ? "Conv2D" : "Conv2DBackpropFilter", PID_HW, us(x, b1), d / 1000,
		    d % 1000, model, task++);
		if (k == nk - 3)
			comm_at = x + d / 2;
		x += d + rng_in(r, 0, 40000);
	}
	int64_t bp = x;
	int64_t cd = rng_in(r, 800000, 2500000) + rng_in(r, 0, 999);
	comm[nm++] = (iv){comm_at, comm_at + cd};
	put(&w, F_MSPROF | F_HCCL,
	    "{\"name\":\"hcom_allReduce__%03d_%d_1\",\"pid\":%d,\"tid\":0,\"ts\":%s,\"dur\":"
	    "%" PRId64 ".%03" PRId64
	    ",\"ph\":\"X\",\"args\":{\"connection_id\":%d,\"model id\":%d}}",
	    iter, model, PID_HCCL, us(comm_at, b1), cd / 1000, cd % 1000, iter, model);
	/* its two sub-tasks: on a plane and, as msprof draws them too, on Ascend Hardware */
	for (int k = 0; k < 2; k++) {
		int64_t ss = comm_at + (k ? cd / 2 : 1000), sd = cd / 2 - 2000;
		put(&w, F_MSPROF | F_HCCL,
		    "{\"name\":\"%s\",\"pid\":%d,\"tid\":1,\"ts\":%s,\"dur\":%" PRId64 ".%03" PRId64
		    ",\"ph\":\"X\",\"args\":{\"notify_id\":\"%d\",\"stream id\":7,\"task id\":%d,"
		    "\"context id\":4294967295,\"task type\":\"%s\",\"src rank\":0,\"dst rank\":1,"
		    "\"transport type\":\"SDMA\",\"size(Byte)\":1048576,\"model id\":%d}}",
		    k ? "Memcpy" : "Notify_Wait", PID_HCCL, us(ss, b1), sd / 1000, sd % 1000, k,
		    900 + k, k ? "Memcpy" : "Notify Wait", model);
		put(&w, F_MSPROF | F_TASK,
		    "{\"name\":\"%s\",\"pid\":%d,\"tid\":7,\"ts\":%s,\"dur\":%" PRId64 ".%03" PRId64
		    ",\"ph\":\"X\",\"args\":{\"Model Id\":%d,\"Task Type\":\"Other\",\"Stream "
		    "Id\":7,"
		    "\"Task Id\":%d,\"Batch Id\":0,\"Subtask Id\":4294967295}}",
		    k ? "Memcpy" : "Notify_Wait", PID_HW, us(ss, b1), sd / 1000, sd % 1000, model,
		    900 + k);
	}
	int64_t opt = (x > comm_at + cd ? x : comm_at + cd) + rng_in(r, 20000, 60000);
	int64_t od = rng_in(r, 100000, 300000);
	comp[nc++] = (iv){opt, opt + od};
	put(&w, F_MSPROF | F_TASK,
	    "{\"name\":\"ApplyMomentum\",\"pid\":%d,\"tid\":5,\"ts\":%s,\"dur\":%" PRId64
	    ".%03" PRId64 ",\"ph\":\"X\",\"args\":{\"Model Id\":%d,\"Task Type\":\"AI_CORE\","
	    "\"Stream Id\":5,\"Task Id\":%d,\"Batch Id\":0,\"Subtask Id\":4294967295}}",
	    PID_HW, us(opt, b1), od / 1000, od % 1000, model, task++);
	int64_t end = opt + od + rng_in(r, 50000, 200000);
	/* the host: the graph's launch */
	int64_t hd = end - start - 20000;
	put(&w, F_MSPROF,
	    "{\"name\":\"AscendCL@aclmdlExecute\",\"pid\":%d,\"tid\":4242,\"ts\":%s,\"dur\":"
	    "%" PRId64 ".%03" PRId64
	    ",\"ph\":\"X\",\"args\":{\"Thread Id\":4242,\"Mode\":\"ACL_MODEL\","
	    "\"level\":\"acl\"}}",
	    PID_CANN, us(start + 10000, b1), hd / 1000, hd % 1000);

	put_overlap(&w, comp, nc, comm, nm);
	/* the iteration (its dur rounded to the µs, as msprof writes it) */
	int64_t len = end - start;
	put(&w, F_MSPROF | F_STEP,
	    "{\"name\":\"Iteration %d\",\"pid\":%d,\"tid\":%d,\"ts\":%s,\"dur\":%" PRId64
	    ",\"ph\":\"X\",\"cat\":\"Iteration Time\",\"args\":{\"Iteration ID\":%d,\"FP "
	    "Start\":%s,"
	    "\"BP End\":%s,\"Iteration End\":%s,\"Iteration Time(ns)\":%" PRId64 "}}",
	    iter, PID_HW, 100000 + model, us(start, b1), (len + 500) / 1000, iter, us(fp, b2),
	    us(bp, b3), us(end, b4), len);
	int rc = 0;
	for (int k = 0; k < 4; k++) {
		fputs(w.first[k] ? "[]\n" : "\n]\n", w.f[k]);
		if (fclose(w.f[k]) != 0)
			rc = -1;
	}
	*t = end + rng_in(r, 10000, 30000);
	return rc;
}

static int
write_small(const char *dir, const char *name, const char *text)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	if (f == NULL) {
		fprintf(stderr, "tlgen: %s: %s\n", p, strerror(errno));
		return -1;
	}
	fputs(text, f);
	return fclose(f);
}

int
gen_msprof_iter_export(const char *outdir, uint64_t seed)
{
	/* devices 6 and 7 are ranks 0 and 1: the ranks come from info.json, not the ids */
	static const int devs[OLD_DEVICES] = {6, 7};
	if (mkdir_p(outdir) != 0)
		return -1;
	for (int d = 0; d < OLD_DEVICES; d++) {
		rng r = {seed * 2654435761u + 12345u + (uint64_t)d * 977u};
		char prof[2048], dev[2200], tdir[2300], name[64], text[1024];
		snprintf(prof, sizeof prof, "%s/PROF_00000%d_20230615120000%03d_ABCDEFGH%d", outdir,
		         d + 1, 100 + d, d);
		snprintf(dev, sizeof dev, "%s/device_%d", prof, devs[d]);
		snprintf(tdir, sizeof tdir, "%s/timeline", dev);
		if (mkdir_p(prof) || mkdir_p(dev) || mkdir_p(tdir))
			return -1;
		snprintf(name, sizeof name, "info.json.%d", devs[d]);
		snprintf(text, sizeof text,
		         "{\"jobInfo\":\"NA\",\"rank_id\":%d,\"devices\":\"%d\",\"DeviceInfo\":[{"
		         "\"id\":%d,\"hwts_frequency\":\"50\",\"aic_frequency\":\"1000\","
		         "\"ai_core_num\":32}],\"pid\":\"31337\",\"platform_version\":\"1\"}\n",
		         d, devs[d], devs[d]);
		if (write_small(dev, name, text))
			return -1;
		static const char *const side[2] = {"start_info", "end_info"};
		for (int k = 0; k < 2; k++) {
			snprintf(name, sizeof name, "%s.%d", side[k], devs[d]);
			snprintf(text, sizeof text,
			         "{\"collectionDateBegin\":\"2023-06-15 12:00:00\","
			         "\"clockMonotonicRaw\":\"57000000000000\"}\n");
			if (write_small(dev, name, text))
				return -1;
			snprintf(name, sizeof name, "%s.%d.done", side[k], devs[d]);
			if (write_small(dev, name, "1\n"))
				return -1;
		}
		/* model 0 (an initialisation graph, 2 iterations), then model 2's 10 iterations:
		 * the device's monotonic clock, 5.7e10 µs, not epoch; both devices share it */
		int64_t t = INT64_C(57000000000000) + (int64_t)d * 7000;
		for (int i = 1; i <= 2; i++)
			if (write_iteration(tdir, devs[d], 0, i, &t, &r))
				return -1;
		for (int i = 1; i <= 10; i++)
			if (write_iteration(tdir, devs[d], 2, i, &t, &r))
				return -1;
	}
	return 0;
}

int
gen_ms_timeline(const char *outdir, uint64_t seed)
{
	if (mkdir_p(outdir) != 0)
		return -1;
	for (int rank = 0; rank < 2; rank++) {
		rng r = {seed * 40503u + 777u + (uint64_t)rank * 131u};
		char p[4096];
		snprintf(p, sizeof p, "%s/ascend_timeline_display_%d.json", outdir, rank);
		FILE *f = fopen(p, "w");
		snprintf(p, sizeof p, "%s/step_trace_raw_%d_detail_time.csv", outdir, rank);
		FILE *csv = fopen(p, "w");
		if (f == NULL || csv == NULL) {
			fprintf(stderr, "tlgen: %s: %s\n", p, strerror(errno));
			if (f)
				fclose(f);
			if (csv)
				fclose(csv);
			return -1;
		}
		/* the device's 100 MHz counter at the first op: MindSpore's zero of ts */
		int64_t base_ticks = INT64_C(123456789000) + rank * 50;
		fputs("step_num,start_point,end_point,total,fp_point,bp_point,iteration_interval,"
		      "fp_and_bp,tail\n",
		      csv);
		fputs("[", f);
		int first = 1;
		int64_t t = -20000; /* ns from the first op (step 1's FP start: ts 0) */
		for (int step = 1; step <= 4; step++) {
			int64_t s = t, x = step == 1 ? 0 : t + rng_in(&r, 10, 30) * 1000;
			int64_t fp = x;
			int nk = (int)rng_in(&r, 4, 8);
			for (int k = 0; k < nk; k++) {
				int64_t d = rng_in(&r, 100, 600) * 1000;
				const char *op = k % 2 ? "MatMul" : "Conv2D";
				fprintf(f,
				        "%s\n{\"name\":\"%s-op%d\",\"ph\":\"X\",\"tid\":%d,"
				        "\"pid\":%d,",
				        first ? "" : ",", op, k, k % 2 ? 5 : 3, rank);
				fprintf(f,
				        "\"ts\":%" PRId64 ".%03" PRId64 ",\"dur\":%" PRId64
				        ".%03" PRId64 ",",
				        x / 1000, x % 1000, d / 1000, d % 1000);
				fprintf(f,
				        "\"args\":{\"type\":\"%s\",\"fullname\":\"Default/network/"
				        "%s-op%d\"}}",
				        op, op, k);
				first = 0;
				x += d + rng_in(&r, 0, 20) * 1000;
			}
			int64_t bp = x, cd = rng_in(&r, 200, 500) * 1000;
			fprintf(
			    f,
			    ",\n{\"name\":\"AllReduce-op%d\",\"ph\":\"X\",\"tid\":\"AllReduce\","
			    "\"pid\":%d,\"ts\":%" PRId64 ".%03" PRId64 ",\"dur\":%" PRId64
			    ".%03" PRId64 "}",
			    step, rank, x / 1000, x % 1000, cd / 1000, cd % 1000);
			x += cd;
			int64_t e = x + rng_in(&r, 10, 30) * 1000;
			/* ticks of 10 ns */
			fprintf(csv,
			        "%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			        ",0,%" PRId64 ",%" PRId64 "\n",
			        step, base_ticks + s / 10, base_ticks + e / 10, (e - s) / 10,
			        base_ticks + fp / 10, base_ticks + bp / 10, (bp - fp) / 10,
			        (e - bp) / 10);
			t = e;
		}
		fputs("\n]\n", f);
		int rc = fclose(f) | fclose(csv);
		if (rc != 0)
			return -1;
	}
	return 0;
}
