/* What the RL analyses' three test programs share (test_rl.c: rules, maths, hand-built traces,
 * plain answers; test_rl_profile.c: generated RL profiles and decode steps; test_pipeline.c:
 * pipeline parallelism): a scratch directory, and a generated profile loaded and summarized.
 * Include once, after ../test.h. */
#ifndef TL_TEST_RL_TEST_H
#define TL_TEST_RL_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/xalloc.h"

static char tmp[64];

static inline void
rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "shell: %s", cmd);
	free(cmd);
}

/* The scratch directory /tmp/tl-test-NAME-XXXXXX; 0, or -1 after a failed check. */
static inline int
rl_test_begin(const char *name)
{
	snprintf(tmp, sizeof tmp, "/tmp/tl-test-%.20s-XXXXXX", name);
	if (mkdtemp(tmp) == NULL) {
		CHECK(0, "mkdtemp");
		return -1;
	}
	return 0;
}

/* Generates profile name under tmp from o and loads it (two checks). Returns 1 when loaded. */
static inline int
gen_load(const gen_opts *o, const char *name, gen_truth *t, tl_trace *tr)
{
	char *out = xasprintf("%s/%s", tmp, name);
	memset(t, 0, sizeof *t);
	int ok = gen_profile(o, out, t) == 0;
	CHECK(ok, "generate %s", name);
	tl_load_opts lo = {.quiet_progress = 1};
	ok = ok && load_trace(out, &lo, tr) == 0;
	CHECK(ok, "load %s", name);
	free(out);
	return ok;
}

/* `tl summary` of tr, text or JSON (malloc'd). */
static inline char *
summary(tl_trace *tr, int json)
{
	return test_summary(tr, NULL, json);
}

#endif
