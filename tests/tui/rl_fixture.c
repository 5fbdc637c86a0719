/* rl_fixture OUTDIR [--ranks N] [--steps N] [--tasks N] [--seed S] [--slow R] [--pp N]
 *                   [--microbatches M] [--gpipe] [--no-meta] [--no-p2p] [--no-ranges]
 *                   [--op-pairs] [--pp-device] [--stage-device]
 *                   [--decode ranges|vllm|none|dp] [--dp-bad] [--dp-only] [--json]
 *                   [--modules] [--truth FILE]
 * Generated profiles for the screen tests of the RL panels: GRPO runs with a slow rank, or
 * pipeline-parallel runs (1F1B or GPipe), whose blocks are forward/backward ranges (with
 * --pp-device, ranges that carry a stream: short early host calls, the blocks on the device)
 * or, with --op-pairs, only linked forward/backward torch operators; --stage-device makes the
 * GRPO stage ranges carry a stream too; --decode dp marks the decode steps as dp_analysis'
 * instrumentation does (step_process ranges and JSON marks), --dp-bad with malformed and
 * missing marks, --dp-only without stage ranges (an inference capture); --json also writes each
 * capture's trace_view.json; --modules writes a model whose module calls are Module-domain
 * ranges instead of the GRPO timeline.
 * --truth FILE writes what the generator laid out (it does not run tl's analyses) as the JSON
 * fragments `tl summary --json` must contain, one a line: per rank its overlap steps, per stage
 * range its times and busy time, per rank and stage its imbalance entry, per PP stage its
 * ranks and bubble ratio, and every forward/backward block. The golden test
 * (tests/golden/test_summary.sh) checks the committed expected output against them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

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

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
		        "usage: rl_fixture OUTDIR [--ranks N] [--steps N] [--tasks N] "
		        "[--seed S] [--slow R] [--pp N] [--microbatches M] [--gpipe] "
		        "[--no-meta] [--no-p2p] [--no-ranges] [--op-pairs] [--pp-device] "
		        "[--stage-device] [--decode ranges|vllm|none|dp] [--dp-bad] [--dp-only] "
		        "[--json] [--modules] [--truth FILE]\n");
		return 2;
	}
	const char *truth_path = NULL;
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.tasks_per_rank = 3000;
	o.threads = 1;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--gpipe") == 0)
			o.pp_schedule = GEN_PP_GPIPE;
		else if (strcmp(a, "--no-meta") == 0)
			o.pp_no_meta = 1;
		else if (strcmp(a, "--no-p2p") == 0)
			o.pp_no_p2p = 1;
		else if (strcmp(a, "--no-ranges") == 0)
			o.no_stage_ranges = 1;
		else if (strcmp(a, "--op-pairs") == 0)
			o.pp_op_pairs = 1;
		else if (strcmp(a, "--pp-device") == 0)
			o.pp_device_ranges = 1;
		else if (strcmp(a, "--stage-device") == 0)
			o.stage_device_ranges = 1;
		else if (strcmp(a, "--dp-bad") == 0)
			o.dp_bad_marks = 1;
		else if (strcmp(a, "--json") == 0)
			o.json = 1;
		else if (strcmp(a, "--dp-only") == 0)
			o.dp_only = 1;
		else if (strcmp(a, "--modules") == 0)
			o.modules = 1;
		else if (v == NULL)
			goto bad;
		else if (strcmp(a, "--truth") == 0) {
			truth_path = v;
			i++;
		} else {
			if (strcmp(a, "--ranks") == 0)
				o.nranks = atoi(v);
			else if (strcmp(a, "--steps") == 0)
				o.nsteps = atoi(v);
			else if (strcmp(a, "--tasks") == 0)
				o.tasks_per_rank = strtoull(v, NULL, 10);
			else if (strcmp(a, "--seed") == 0)
				o.seed = strtoull(v, NULL, 10);
			else if (strcmp(a, "--slow") == 0)
				o.slow_rank = atoi(v);
			else if (strcmp(a, "--pp") == 0)
				o.pp = atoi(v);
			else if (strcmp(a, "--microbatches") == 0)
				o.pp_microbatches = atoi(v);
			else if (strcmp(a, "--decode") == 0)
				o.decode_marks = strcmp(v, "vllm") == 0   ? GEN_DECODE_VLLM
				                 : strcmp(v, "none") == 0 ? GEN_DECODE_NONE
				                 : strcmp(v, "dp") == 0   ? GEN_DECODE_DP
				                                          : GEN_DECODE_RANGES;
			else
				goto bad;
			i++;
		}
	}
	if (o.slow_rank >= o.nranks)
		o.slow_rank = -1;
	gen_truth t = {0};
	if (gen_profile(&o, argv[1], truth_path ? &t : NULL) != 0)
		return 1;
	if (truth_path) {
		FILE *f = fopen(truth_path, "w");
		if (f == NULL) {
			perror(truth_path);
			gen_truth_free(&t);
			return 1;
		}
		write_truth(f, &t);
		gen_truth_free(&t);
		if (fclose(f) != 0) {
			perror(truth_path);
			return 1;
		}
	}
	return 0;
bad:
	fprintf(stderr, "rl_fixture: bad arguments\n");
	return 2;
}
