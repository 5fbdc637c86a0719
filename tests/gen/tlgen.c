/* tlgen: the one front-end of the profile generator (src/gen/) that the tests and the
 * benchmarks run. It writes a generated profile into OUTDIR, never a committed binary file:
 *
 *   tlgen [PRESET] OUTDIR [options]
 *
 * The preset chooses the defaults and what is printed; every option works with every preset:
 *   bench    (the default) 8 ranks x 20000 tasks, ranks written in parallel; prints what it
 *            wrote, how long it took, and the ground truth per rank and step (torch_npu
 *            StepTraceTime definitions, in us). A slow rank beyond the job is its last rank.
 *   screens  2 ranks x 2000 tasks, one thread: the screen and golden tests' profile. Prints
 *            nothing. A slow rank beyond the job is none.
 *   rl       4 ranks x 3000 tasks, one thread: the RL panels' profiles (GRPO, PP). Prints
 *            nothing. A slow rank beyond the job is none.
 *   hostile  the profile whose every string is hostile to a terminal (tlgen_hostile.c); takes
 *            no options.
 *   older    the older Ascend layouts (src/gen/gen_older.c): OUTDIR/msprof, msprof's
 *            per-iteration export of CANN 6.x-7.0, and OUTDIR/mindspore, a MindSpore 1.x
 *            timeline; takes only --seed.
 *   kineto   OUTDIR is a file: one GPU rank's PyTorch profiler (Kineto) trace
 *            (src/gen/gen_kineto.c), with its own options (below).
 *   nccl     Kineto traces of an NCCL job, one per rank, naming their collectives every way
 *            torch and NCCL do (src/gen/gen_nccl.h; tlgen_nccl.c has its options).
 *
 * --truth FILE writes what the generator laid out (it does not run tl's analyses) as the JSON
 * fragments `tl summary --json` must contain, one a line: per rank its overlap steps, per stage
 * range its times and busy time, per rank and stage its imbalance entry, per PP stage its ranks
 * and bubble ratio, and every forward/backward block. The golden test
 * (tests/golden/test_summary.sh) checks the committed expected output against them. */
#include "config.h"
#include "tlgen.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gen/gen.h"

enum preset { P_BENCH, P_SCREENS, P_RL, P_HOSTILE, P_OLDER, P_MSPROF, P_NCCL };
static const char *const preset_names[] = {"bench", "screens", "rl",  "hostile",
                                           "older", "msprof",  "nccl"};

static void
usage(FILE *f)
{
	fputs(
	    "usage: tlgen [bench|screens|rl|hostile] OUTDIR [options]\n"
	    "       tlgen older OUTDIR [--seed S]: OUTDIR/msprof (CANN <= 7 per-iteration export)\n"
	    "       and OUTDIR/mindspore (MindSpore 1.x timeline)\n"
	    "       tlgen kineto FILE [--version 2021|2024] [--steps N] [--launches N]\n"
	    "            [--precapture N] [--after N] [--comm] [--no-flows] [--inference]\n"
	    "            [--rank R] [--seed S]\n"
	    "       tlgen msprof OUTDIR [--seed S] [--kernels N] [--compute PERMILLE] [--device "
	    "D]\n"
	    "             [--overlap-table | --overlap-table-msprof] [--steps N] [--cann7]\n"
	    "  msprof: one device as msprof exports it, OUTDIR/msprof_20240101000000.db (no\n"
	    "        META_DATA; --overlap-table: with Insight's OVERLAP_ANALYSIS, -msprof: msprof\n"
	    "        2026's with ENUM_OVERLAY_ANALYSIS_TYPE), or with "
	    "--cann7\n"
	    "        CANN 7.0's OUTDIR/report_D.db; --compute scales the kernels' lengths\n"
	    "       tlgen nccl OUTDIR [--ranks N --steps N --kernels N --rounds N --slow R\n"
	    "                          --seed S --gzip --hosts N --host-clock H OFF_NS PPM]\n"
	    "        (Kineto traces of an NCCL job; with --hosts, named {host}_{pid}.{time}\n"
	    "        .pt.trace.json as torch names them, each on its host's clock)\n"
	    "  --ranks N --tasks N --steps N --seed S --threads N (0: one per core)\n"
	    "  --slow R        the rank that computes 30% slower, -1 for none\n"
	    "  --json          also write each capture's trace_view.json\n"
	    "  --truth FILE    the generator's ground truth as `tl summary --json` fragments\n"
	    "  --truth-comm FILE  each rank's part of each collective, one JSON object a line\n"
	    "                  (its arrival and end, when and which rank arrived last)\n"
	    "  GRPO: --no-ranges --stage-device --decode ranges|vllm|none|dp --dp-bad --dp-only\n"
	    "        --aicpu (the decode's ArgMaxV2 kernels on the AI CPU)\n"
	    "  PP:   --pp N --microbatches M --gpipe --no-meta --no-p2p --op-pairs --pp-device\n"
	    "  host: --host-ops (a PyTorch operator per launch) --with-stack (its call stack)\n"
	    "        --jitter (varying launch delays)\n"
	    "  memory: --memory (allocator totals, OP_MEMORY, NPU_MEM and AICORE_FREQ with a\n"
	    "        known peak inside a known stage)\n"
	    "  modules: --modules (nested Module-domain ranges, forward and backward, instead of\n"
	    "        the GRPO timeline)\n"
	    "  a pair for tl diff: --slow-stage S --slow-factor PERMILLE --slow-ranks MASK\n"
	    "        --delay-coll N --delay-ns NS --t0 NS\n"
	    "  bent: --no-device R (rank R without device data) --late R SECONDS (a later clock)\n"
	    "  hosts: --hosts N (the ranks in N blocks, one host each, in HOST_INFO)\n"
	    "        --host-clock H OFF_NS PPM (host H's clock OFF_NS ahead, drifting PPM;\n"
	    "        repeatable) --drop-first-coll R (rank R's capture misses its first\n"
	    "        collective)\n"
	    "  findings: --clean (no deliberate problem; with --slow -1) --stall-rank R\n"
	    "        --stall-ns NS (a stall in R's first rollout; the truth gives it)\n"
	    "        --between-ns NS (idle time between steps) --slow-link R (R's link to R+1 at\n"
	    "        a quarter of the bandwidth) --aicpu-ns NS (with --aicpu: the AI CPU\n"
	    "        argmax's length; the truth gives the AI CPU ops' device time per rank)\n"
	    "        --host-late R [--host-late-ns NS] [--host-late-stage S] (R's host begins\n"
	    "        each kernel run's first launch NS, default 40000, late, in stage S\n"
	    "        (0 rollout .. 4 update) or every stage: host-bound; the truth gives every\n"
	    "        rank's host-bound idle of gaps under 1 ms per step and stage)\n"
	    "  GRPO: --rl-pp N (actor_update trains through an N-stage pipeline, 1F1B)\n",
	    f);
}

static int
parse_i64(const char *opt, const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "tlgen: %s: bad value '%s' (expected %lld..%lld)\n", opt, s, lo,
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

static void
write_truth(FILE *f, const gen_truth *t)
{
	for (int r = 0; r < t->nranks; r++) {
		int first = 1;
		for (size_t i = 0; i < t->noverlap; i++) {
			const gen_overlap_truth *o = &t->overlap[i];
			if (o->rank != r)
				continue;
			if (first)
				fprintf(f, "{\"rank\":%d,\"steps\":[", r);
			fprintf(f,
			        "%s{\"step\":%lld,\"computing_ns\":%lld,\"communication_ns\":%lld,"
			        "\"overlapped_ns\":%lld,\"communication_not_overlapped_ns\":%lld,"
			        "\"free_ns\":%lld,\"preparing_ns\":%lld}",
			        first ? "" : ",", (long long)o->step, (long long)o->computing,
			        (long long)o->communication, (long long)o->overlapped,
			        (long long)o->comm_not_overlapped, (long long)o->free,
			        (long long)o->preparing);
			first = 0;
		}
		if (!first) /* the generator knows the overlap of GRPO profiles, not of PP ones */
			fprintf(f, "]}\n");
	}
	for (size_t i = 0; i < t->nstages; i++) {
		const gen_stage_truth *s = &t->stages[i];
		fprintf(
		    f,
		    "{\"rank\":%d,\"stage\":\"%s\",\"step\":%lld,\"start_ns\":%lld,\"end_ns\":%lld,"
		    "\"duration_ns\":%lld,\"busy_ns\":%lld,\n",
		    s->rank, gen_stage_canon[s->stage], (long long)s->step, (long long)s->start_ns,
		    (long long)s->end_ns, (long long)(s->end_ns - s->start_ns),
		    (long long)s->busy_ns);
		fprintf(f,
		        "{\"rank\":%d,\"duration_ns\":%lld,\"wait_for_slowest_ns\":%lld,"
		        "\"decode_steps\":%d,\n",
		        s->rank, (long long)(s->end_ns - s->start_ns), (long long)s->wait_ns,
		        s->decode_steps);
	}
	for (size_t i = 0; i < t->npp_stages; i++) {
		const gen_pp_stage_truth *s = &t->pp_stages[i];
		fprintf(f, "{\"pp_stage\":%d,\"ranks\":[", s->pp_stage);
		for (int d = 0; d < t->pp_dp; d++)
			fprintf(f, "%s%d", d ? "," : "", s->pp_stage * t->pp_dp + d);
		fprintf(f, "],\"bubble_ratio\":%.6f,\n",
		        s->span_ns > 0 ? (double)s->idle_ns / (double)s->span_ns : 0.0);
	}
	for (size_t i = 0; i < t->npp_blocks; i++) {
		const gen_pp_block_truth *b = &t->pp_blocks[i];
		fprintf(f,
		        "{\"kind\":\"%c\",\"microbatch\":%d,\"start_ns\":%lld,\"end_ns\":%lld}\n",
		        b->kind, b->microbatch, (long long)b->start_ns, (long long)b->end_ns);
	}
}

static void
print_bench(const gen_opts *o, const gen_truth *t, double secs)
{
	printf("ranks %d\nsteps %d\nslow_rank %d\nseed %" PRIu64 "\n", o->nranks, o->nsteps,
	       t->slow_rank, o->seed);
	printf("tasks %" PRIu64 "\n", t->tasks);
	printf("collectives_per_rank %" PRIu64 "\n", t->collectives);
	printf("bubbles %zu\n", t->nbubbles);
	printf("elapsed_s %.3f\n", secs);
	printf("tasks_per_s %.0f\n", secs > 0 ? (double)t->tasks / secs : 0.0);
	printf("# rank step computing_us communication_us overlapped_us comm_not_overlapped_us "
	       "free_us preparing_us\n");
	for (size_t i = 0; i < t->noverlap; i++) {
		const gen_overlap_truth *w = &t->overlap[i];
		printf("%d %" PRId64 " %.3f %.3f %.3f %.3f %.3f %.3f\n", w->rank, w->step,
		       (double)w->computing / 1e3, (double)w->communication / 1e3,
		       (double)w->overlapped / 1e3, (double)w->comm_not_overlapped / 1e3,
		       (double)w->free / 1e3, (double)w->preparing / 1e3);
	}
}

/* What the command line asks beyond gen_opts. */
typedef struct bends {
	const char *truth;
	const char *truth_comm; /* --truth-comm FILE */
	int no_device, late_rank;
	double late_s;
	int drop_first; /* --drop-first-coll R, -1 */
	struct {
		int host;
		int64_t off;
		double ppm;
	} clock[64]; /* --host-clock */
	int nclock;
} bends;

static int
flag(gen_opts *o, const char *a)
{
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
	    {"--json", offsetof(gen_opts, json)},
	    {"--clean", offsetof(gen_opts, clean)},
	    {"--no-ranges", offsetof(gen_opts, no_stage_ranges)},
	    {"--stage-device", offsetof(gen_opts, stage_device_ranges)},
	    {"--dp-bad", offsetof(gen_opts, dp_bad_marks)},
	    {"--dp-only", offsetof(gen_opts, dp_only)},
	    {"--no-meta", offsetof(gen_opts, pp_no_meta)},
	    {"--no-p2p", offsetof(gen_opts, pp_no_p2p)},
	    {"--op-pairs", offsetof(gen_opts, pp_op_pairs)},
	    {"--pp-device", offsetof(gen_opts, pp_device_ranges)},
	    {"--host-ops", offsetof(gen_opts, host_ops)},
	    {"--with-stack", offsetof(gen_opts, with_stack)},
	    {"--jitter", offsetof(gen_opts, launch_jitter)},
	    {"--modules", offsetof(gen_opts, modules)},
	    {"--memory", offsetof(gen_opts, memory_records)},
	    {"--aicpu", offsetof(gen_opts, aicpu)},
	};
	if (strcmp(a, "--gpipe") == 0) {
		o->pp_schedule = GEN_PP_GPIPE;
		return 1;
	}
	for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
		if (strcmp(a, flags[i].name) == 0) {
			*(int *)((char *)o + flags[i].off) = 1;
			return 1;
		}
	return 0;
}

/* Option a with value v; 0, or -1 after a message. */
static int
option(gen_opts *o, bends *b, const char *a, const char *v)
{
	long long x;
#define NUM(NAME, LO, HI, DEST)                                                                    \
	if (strcmp(a, NAME) == 0) {                                                                \
		if (parse_i64(a, v, LO, HI, &x) != 0)                                              \
			return -1;                                                                 \
		DEST = x;                                                                          \
		return 0;                                                                          \
	}
	NUM("--ranks", 1, 4096, o->nranks)
	NUM("--tasks", 1, 200000000, o->tasks_per_rank)
	NUM("--steps", 1, 10000, o->nsteps)
	NUM("--slow", -1, 4095, o->slow_rank)
	NUM("--seed", 0, INT64_MAX, o->seed)
	NUM("--threads", 0, 1024, o->threads)
	NUM("--pp", 2, 64, o->pp)
	NUM("--microbatches", 1, 4096, o->pp_microbatches)
	NUM("--slow-stage", -1, GEN_NSTAGES - 1, o->slow_stage)
	NUM("--slow-factor", 1, 100000, o->slow_factor)
	NUM("--slow-ranks", 0, INT64_MAX, o->slow_ranks_mask)
	NUM("--delay-coll", -1, INT64_MAX, o->delay_coll)
	NUM("--delay-ns", 0, 3600000000000LL, o->delay_ns)
	NUM("--t0", 0, INT64_MAX / 2, o->t0_ns)
	NUM("--no-device", 0, 4095, b->no_device)
	NUM("--hosts", 1, 4096, o->hosts)
	NUM("--drop-first-coll", 0, 4095, b->drop_first)
	NUM("--stall-rank", -1, 4095, o->stall_rank)
	NUM("--stall-ns", 0, 3600000000000LL, o->stall_ns)
	NUM("--between-ns", 0, 3600000000000LL, o->between_ns)
	NUM("--slow-link", -1, 4095, o->slow_link)
	NUM("--aicpu-ns", 1000, 1000000000, o->aicpu_ns)
	NUM("--host-late", -1, 4095, o->host_late_rank)
	NUM("--host-late-ns", 1, 49999, o->host_late_ns)
	NUM("--rl-pp", 0, 64, o->rl_pp)
	NUM("--host-late-stage", -1, GEN_NSTAGES - 1, o->host_late_stage)
#undef NUM
	if (strcmp(a, "--truth") == 0) {
		b->truth = v;
		return 0;
	}
	if (strcmp(a, "--truth-comm") == 0) {
		b->truth_comm = v;
		return 0;
	}
	if (strcmp(a, "--decode") == 0) {
		static const char *const names[] = {"ranges", "vllm", "none", "dp"};
		static const int values[] = {GEN_DECODE_RANGES, GEN_DECODE_VLLM, GEN_DECODE_NONE,
		                             GEN_DECODE_DP};
		for (size_t i = 0; i < 4; i++)
			if (strcmp(v, names[i]) == 0) {
				o->decode_marks = values[i];
				return 0;
			}
		fprintf(stderr, "tlgen: --decode: '%s' is not ranges, vllm, none or dp\n", v);
		return -1;
	}
	fprintf(stderr, "tlgen: unknown option %s\n", a);
	return -1;
}

/* tlgen msprof OUTDIR [options] (gen_msprof_db) */
static int
msprof_main(const char *outdir, int argc, char **argv)
{
	gen_msprof_opts o = {.seed = 1};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		long long v;
		if (strcmp(a, "--cann7") == 0) {
			o.cann7 = 1;
		} else if (strcmp(a, "--overlap-table") == 0) {
			o.overlap_table = 1;
		} else if (strcmp(a, "--overlap-table-msprof") == 0) {
			o.overlap_table = 2;
		} else if (i + 1 < argc && strcmp(a, "--steps") == 0) {
			if (parse_i64(a, argv[++i], 0, 1000, &v) != 0)
				return 2;
			o.steps = (int)v;
		} else if (i + 1 < argc &&
		           (strcmp(a, "--seed") == 0 || strcmp(a, "--kernels") == 0 ||
		            strcmp(a, "--compute") == 0 || strcmp(a, "--device") == 0)) {
			if (parse_i64(a, argv[++i], 0, 1000000, &v) != 0)
				return 2;
			if (strcmp(a, "--seed") == 0)
				o.seed = (uint64_t)v;
			else if (strcmp(a, "--kernels") == 0)
				o.kernels = (int)v;
			else if (strcmp(a, "--compute") == 0)
				o.compute_permille = (int)v;
			else
				o.device = (int)v;
		} else {
			fprintf(stderr, "tlgen: msprof: unknown option or missing value: %s\n", a);
			return 2;
		}
	}
	if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
		perror(outdir);
		return 1;
	}
	char path[4096];
	if (o.cann7)
		snprintf(path, sizeof path, "%s/report_%d.db", outdir, o.device);
	else
		snprintf(path, sizeof path, "%s/msprof_20240101000000.db", outdir);
	return gen_msprof_db(path, &o) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	int i = 1;
	enum preset p = P_BENCH;
	if (i < argc && (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (i + 1 < argc && strcmp(argv[i], "kineto") == 0 && argv[i + 1][0] != '-')
		return tlgen_kineto(argv[i + 1], argc - i - 2, argv + i + 2) == 0 ? 0 : 1;
	for (int k = 0; k < 7 && i < argc; k++)
		if (strcmp(argv[i], preset_names[k]) == 0) {
			p = (enum preset)k;
			i++;
			break;
		}
	if (i >= argc || argv[i][0] == '-') {
		usage(stderr);
		return 2;
	}
	const char *outdir = argv[i++];
	if (p == P_HOSTILE) {
		if (i < argc) {
			fprintf(stderr, "tlgen: hostile takes no options\n");
			return 2;
		}
		return tlgen_hostile(outdir) == 0 ? 0 : 1;
	}
	if (p == P_OLDER) {
		uint64_t seed = 1;
		if (i + 1 < argc && strcmp(argv[i], "--seed") == 0)
			seed = strtoull(argv[i + 1], NULL, 10), i += 2;
		if (i < argc) {
			fprintf(stderr, "tlgen: older takes only --seed\n");
			return 2;
		}
		char a[4096], b[4096];
		snprintf(a, sizeof a, "%s/msprof", outdir);
		snprintf(b, sizeof b, "%s/mindspore", outdir);
		if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "tlgen: %s: %s\n", outdir, strerror(errno));
			return 1;
		}
		return gen_msprof_iter_export(a, seed) == 0 && gen_ms_timeline(b, seed) == 0 ? 0
		                                                                             : 1;
	}
	if (p == P_MSPROF)
		return msprof_main(outdir, argc - i, argv + i);
	if (p == P_NCCL)
		return tlgen_nccl(outdir, argc - i, argv + i);

	gen_opts o;
	gen_opts_default(&o);
	if (p == P_SCREENS) {
		o.nranks = 2;
		o.tasks_per_rank = 2000;
		o.threads = 1;
	} else if (p == P_RL) {
		o.nranks = 4;
		o.tasks_per_rank = 3000;
		o.threads = 1;
	}
	bends b = {.no_device = -1, .late_rank = -1, .drop_first = -1};
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (flag(&o, a))
			continue;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(stderr, "tlgen: more than one OUTDIR given (%s)\n", a);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "tlgen: %s needs a value\n", a);
			return 2;
		}
		if (strcmp(a, "--late") == 0) { /* --late R SECONDS */
			long long r;
			char *end;
			if (i + 2 >= argc || parse_i64(a, argv[i + 1], 0, 4095, &r) != 0)
				return 2;
			b.late_rank = (int)r;
			b.late_s = strtod(argv[i + 2], &end);
			if (end == argv[i + 2] || *end != '\0') {
				fprintf(stderr, "tlgen: --late: bad seconds '%s'\n", argv[i + 2]);
				return 2;
			}
			i += 2;
			continue;
		}
		if (strcmp(a, "--host-clock") == 0) { /* --host-clock H OFF_NS PPM */
			long long h, off;
			char *end;
			if (i + 3 >= argc || b.nclock == 64 ||
			    parse_i64(a, argv[i + 1], 0, 4095, &h) != 0 ||
			    parse_i64(a, argv[i + 2], -3600000000000LL, 3600000000000LL, &off) != 0)
				return 2;
			double ppm = strtod(argv[i + 3], &end);
			if (end == argv[i + 3] || *end != '\0' || ppm < -1000 || ppm > 1000) {
				fprintf(stderr, "tlgen: --host-clock: bad ppm '%s'\n", argv[i + 3]);
				return 2;
			}
			b.clock[b.nclock].host = (int)h;
			b.clock[b.nclock].off = off;
			b.clock[b.nclock].ppm = ppm;
			b.nclock++;
			i += 3;
			continue;
		}
		if (option(&o, &b, a, argv[i + 1]) != 0)
			return 2;
		i++;
	}
	if (o.slow_rank >= o.nranks) /* the default slow rank does not exist in a small job */
		o.slow_rank = p == P_BENCH && o.nranks > 1 ? o.nranks - 1 : -1;

	/* Debian's libsqlite3 is built with SQLITE_OMIT_LOOKASIDE, so every small allocation takes
	 * the global memory-statistics mutex: with it, the rank threads do not run in parallel at
	 * all. Must come before sqlite3 is initialised. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);

	gen_truth t = {0};
	int want_truth = p == P_BENCH || b.truth != NULL || b.truth_comm != NULL;
	double t0 = now_s();
	if (gen_profile(&o, outdir, want_truth ? &t : NULL) != 0)
		return 1;
	double secs = now_s() - t0;
	int rc = 0;
	if (b.no_device >= 0 && tlgen_no_device(outdir, b.no_device) != 0)
		rc = 1;
	if (b.late_rank >= 0 && tlgen_late(outdir, b.late_rank, (int64_t)(b.late_s * 1e9)) != 0)
		rc = 1;
	if (b.drop_first >= 0 && tlgen_drop_first_coll(outdir, b.drop_first) != 0)
		rc = 1;
	/* the hosts' clocks: the truth and every time before stay on host 0's */
	for (int c = 0; c < b.nclock; c++)
		for (int r = 0; r < o.nranks; r++) {
			int h = o.hosts > 0 ? (int)((int64_t)r * o.hosts / o.nranks) : r / 8;
			if (h == b.clock[c].host &&
			    tlgen_clock(outdir, r, b.clock[c].off, b.clock[c].ppm,
			                o.t0_ns ? o.t0_ns : 1736407067000000000LL) != 0)
				rc = 1;
		}
	if (p == P_BENCH)
		print_bench(&o, &t, secs);
	if (b.truth != NULL) {
		FILE *f = fopen(b.truth, "w");
		if (f == NULL) {
			perror(b.truth);
			rc = 1;
		} else {
			write_truth(f, &t);
			for (size_t bi = 0; bi < t.nbubbles && o.stall_ns > 0; bi++)
				if (t.bubbles[bi].rank == o.stall_rank && t.bubbles[bi].step == 1 &&
				    t.bubbles[bi].stage == 0)
					fprintf(f,
					        "{\"stall\":{\"rank\":%d,\"step\":1,\"start_ns\":"
					        "%" PRId64 ",\"end_ns\":%" PRId64 "}}\n",
					        o.stall_rank, t.bubbles[bi].start_ns,
					        t.bubbles[bi].end_ns);
			/* the findings' truths, only when asked for (test_summary.sh finds every
			 * line of the truth in the summary) */
			for (size_t oi = 0; o.aicpu && oi < t.nops; oi++)
				if (strcmp(t.ops[oi].task_type, "AI_CPU") == 0)
					fprintf(
					    f,
					    "{\"aicpu\":{\"rank\":%d,\"op_type\":\"%s\","
					    "\"count\":%" PRIu64 ",\"total_ns\":%" PRId64 "}}\n",
					    t.ops[oi].rank, t.ops[oi].op_type,
					    (uint64_t)t.ops[oi].count, (int64_t)t.ops[oi].total_ns);
			for (size_t hi = 0; o.host_late_rank >= 0 && hi < t.nhost; hi++) {
				const gen_host_truth *h = &t.host[hi];
				fprintf(
				    f,
				    "{\"host_idle\":{\"rank\":%d,\"step\":%lld,\"stage\":%s%s%s,"
				    "\"ns\":%lld}}\n",
				    h->rank, (long long)h->step, h->stage < 0 ? "" : "\"",
				    h->stage < 0 ? "null" : gen_stage_canon[h->stage],
				    h->stage < 0 ? "" : "\"", (long long)h->ns);
			}
			if (fclose(f) != 0) {
				perror(b.truth);
				rc = 1;
			}
		}
	}
	if (b.truth_comm != NULL) {
		FILE *f = fopen(b.truth_comm, "w");
		for (size_t ci = 0; f != NULL && ci < t.ncomm; ci++) {
			const gen_comm_truth *x = &t.comm[ci];
			fprintf(f,
			        "{\"rank\":%d,\"step\":%" PRId64 ",\"op\":%u,\"start_ns\":%" PRId64
			        ",\"end_ns\":%" PRId64 ",\"last_arrival_ns\":%" PRId64
			        ",\"last_rank\":%d}\n",
			        x->rank, x->step, (unsigned)x->op, x->start_ns, x->end_ns,
			        x->last_arrival_ns, x->last_rank);
		}
		if (f == NULL || fclose(f) != 0) {
			perror(b.truth_comm);
			rc = 1;
		}
	}
	if (want_truth)
		gen_truth_free(&t);
	return rc;
}
