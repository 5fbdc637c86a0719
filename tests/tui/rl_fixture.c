/* rl_fixture OUTDIR [--ranks N] [--steps N] [--tasks N] [--seed S] [--slow R] [--pp N]
 *                   [--microbatches M] [--gpipe] [--no-meta] [--no-p2p] [--no-ranges]
 *                   [--op-pairs] [--pp-device] [--stage-device]
 *                   [--decode ranges|vllm|none|dp] [--dp-bad] [--dp-only] [--json]
 * Generated profiles for the screen tests of the RL panels: GRPO runs with a slow rank, or
 * pipeline-parallel runs (1F1B or GPipe), whose blocks are forward/backward ranges (with
 * --pp-device, ranges that carry a stream: short early host calls, the blocks on the device)
 * or, with --op-pairs, only linked forward/backward torch operators; --stage-device makes the
 * GRPO stage ranges carry a stream too; --decode dp marks the decode steps as dp_analysis'
 * instrumentation does (step_process ranges and JSON marks), --dp-bad with malformed and
 * missing marks, --dp-only without stage ranges (an inference capture); --json also writes each
 * capture's trace_view.json. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: rl_fixture OUTDIR [--ranks N] [--steps N] [--tasks N] "
		                "[--seed S] [--slow R] [--pp N] [--microbatches M] [--gpipe] "
		                "[--no-meta] [--no-p2p] [--no-ranges] [--op-pairs] [--pp-device] "
		                "[--stage-device] [--decode ranges|vllm|none|dp] [--dp-bad] [--dp-only] [--json]\n");
		return 2;
	}
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
		else if (v == NULL)
			goto bad;
		else {
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
	return gen_profile(&o, argv[1], NULL) == 0 ? 0 : 1;
bad:
	fprintf(stderr, "rl_fixture: bad arguments\n");
	return 2;
}
