/* bench_gen OUTDIR [--ranks N] [--tasks N] [--steps N] [--slow R] [--seed S] [--threads N] [--json]
 *                  [--pp N [--op-pairs]] [--host-ops] [--jitter]
 *                  [--slow-stage S --slow-factor PERMILLE --slow-ranks MASK]
 *                  [--delay-coll N --delay-ns NS] [--t0 NS]
 *
 * Writes a generated profile (src/gen/gen.h) into OUTDIR and prints what it wrote and how long it
 * took, then the ground truth per rank and step (torch_npu StepTraceTime definitions, in us). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gen/gen.h"

static void
usage(void)
{
	fputs("usage: bench_gen OUTDIR [--ranks N] [--tasks N] [--steps N] [--slow R] [--seed S]\n"
	      "                        [--threads N] [--json] [--pp N [--op-pairs]] [--host-ops]\n"
	      "                        [--jitter]\n"
	      "  --tasks   device TASK rows per rank, about (default 20000)\n"
	      "  --slow    the rank that computes 30% slower, -1 for none (default 3)\n"
	      "  --threads ranks written in parallel, 0 = one per core (default 0)\n"
	      "  --json    also write trace_view.json\n"
	      "  --pp      a pipeline-parallel job of N stages (ranks = N x data-parallel)\n"
	      "  --op-pairs  PP blocks marked by forward/backward operator pairs, not ranges\n"
	      "  --host-ops  a PyTorch operator linked to every launch (PYTORCH_API)\n"
	      "  --jitter    launch delays that vary (0..40 us more)\n"
	      "  --slow-stage S --slow-factor PERMILLE --slow-ranks MASK\n"
	      "            the kernels of stage S (0 rollout .. 4 actor_update) PERMILLE/1000 as\n"
	      "            long on the ranks of bit MASK (the B of a pair for tl diff)\n"
	      "  --delay-coll N --delay-ns NS  collective N's last rank arrives NS later\n"
	      "  --t0 NS     epoch ns of the first step (shift a pair's clocks)\n",
	      stderr);
}

static int
parse_i64(const char *opt, const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "bench_gen: %s: bad value '%s' (expected %lld..%lld)\n", opt, s, lo,
		        hi);
		return -1;
	}
	*out = v;
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	gen_opts o;
	const char *outdir = NULL;
	gen_opts_default(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long long v;
		if (strcmp(a, "--json") == 0) {
			o.json = 1;
			continue;
		}
		if (strcmp(a, "--op-pairs") == 0) {
			o.pp_op_pairs = 1;
			continue;
		}
		if (strcmp(a, "--host-ops") == 0) {
			o.host_ops = 1;
			continue;
		}
		if (strcmp(a, "--jitter") == 0) {
			o.launch_jitter = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage();
			return 0;
		}
		if (a[0] == '-' && a[1] == '-') {
			if (i + 1 >= argc) {
				fprintf(stderr, "bench_gen: %s needs a value\n", a);
				return 2;
			}
			const char *val = argv[++i];
			if (strcmp(a, "--ranks") == 0) {
				if (parse_i64(a, val, 1, 4096, &v) != 0)
					return 2;
				o.nranks = (int)v;
			} else if (strcmp(a, "--tasks") == 0) {
				if (parse_i64(a, val, 1, 200000000, &v) != 0)
					return 2;
				o.tasks_per_rank = (uint64_t)v;
			} else if (strcmp(a, "--steps") == 0) {
				if (parse_i64(a, val, 1, 10000, &v) != 0)
					return 2;
				o.nsteps = (int)v;
			} else if (strcmp(a, "--slow") == 0) {
				if (parse_i64(a, val, -1, 4095, &v) != 0)
					return 2;
				o.slow_rank = (int)v;
			} else if (strcmp(a, "--seed") == 0) {
				if (parse_i64(a, val, 0, INT64_MAX, &v) != 0)
					return 2;
				o.seed = (uint64_t)v;
			} else if (strcmp(a, "--pp") == 0) {
				if (parse_i64(a, val, 2, 64, &v) != 0)
					return 2;
				o.pp = (int)v;
			} else if (strcmp(a, "--slow-stage") == 0) {
				if (parse_i64(a, val, -1, GEN_NSTAGES - 1, &v) != 0)
					return 2;
				o.slow_stage = (int)v;
			} else if (strcmp(a, "--slow-factor") == 0) {
				if (parse_i64(a, val, 1, 100000, &v) != 0)
					return 2;
				o.slow_factor = (int)v;
			} else if (strcmp(a, "--slow-ranks") == 0) {
				if (parse_i64(a, val, 0, INT64_MAX, &v) != 0)
					return 2;
				o.slow_ranks_mask = (uint64_t)v;
			} else if (strcmp(a, "--delay-coll") == 0) {
				if (parse_i64(a, val, -1, INT64_MAX, &v) != 0)
					return 2;
				o.delay_coll = v;
			} else if (strcmp(a, "--delay-ns") == 0) {
				if (parse_i64(a, val, 0, 3600000000000LL, &v) != 0)
					return 2;
				o.delay_ns = v;
			} else if (strcmp(a, "--t0") == 0) {
				if (parse_i64(a, val, 0, INT64_MAX / 2, &v) != 0)
					return 2;
				o.t0_ns = v;
			} else if (strcmp(a, "--threads") == 0) {
				if (parse_i64(a, val, 0, 1024, &v) != 0)
					return 2;
				o.threads = (int)v;
			} else {
				fprintf(stderr, "bench_gen: unknown option %s\n", a);
				usage();
				return 2;
			}
			continue;
		}
		if (outdir != NULL) {
			fprintf(stderr, "bench_gen: more than one OUTDIR given\n");
			usage();
			return 2;
		}
		outdir = a;
	}
	if (outdir == NULL) {
		usage();
		return 2;
	}
	if (o.slow_rank >= o.nranks) /* the default slow rank does not exist in a small job */
		o.slow_rank = o.nranks > 1 ? o.nranks - 1 : -1;

	/* Debian's libsqlite3 is built with SQLITE_OMIT_LOOKASIDE, so every small allocation takes
	 * the global memory-statistics mutex: with it, the rank threads do not run in parallel at
	 * all. Must come before sqlite3 is initialised. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);

	gen_truth t;
	double t0 = now_s();
	if (gen_profile(&o, outdir, &t) != 0)
		return 1;
	double secs = now_s() - t0;

	printf("ranks %d\nsteps %d\nslow_rank %d\nseed %" PRIu64 "\n", o.nranks, o.nsteps,
	       t.slow_rank, o.seed);
	printf("tasks %" PRIu64 "\n", t.tasks);
	printf("collectives_per_rank %" PRIu64 "\n", t.collectives);
	printf("bubbles %zu\n", t.nbubbles);
	printf("elapsed_s %.3f\n", secs);
	printf("tasks_per_s %.0f\n", secs > 0 ? (double)t.tasks / secs : 0.0);
	printf("# rank step computing_us communication_us overlapped_us comm_not_overlapped_us "
	       "free_us preparing_us\n");
	for (size_t i = 0; i < t.noverlap; i++) {
		const gen_overlap_truth *w = &t.overlap[i];
		printf("%d %" PRId64 " %.3f %.3f %.3f %.3f %.3f %.3f\n", w->rank, w->step,
		       (double)w->computing / 1e3, (double)w->communication / 1e3,
		       (double)w->overlapped / 1e3, (double)w->comm_not_overlapped / 1e3,
		       (double)w->free / 1e3, (double)w->preparing / 1e3);
	}
	gen_truth_free(&t);
	return 0;
}
