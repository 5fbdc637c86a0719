/* Module statistics (msprof-analyze module_statistic): the rule on hand-built data with known
 * rows, every module path of a generated model against the generator's truth to the ns, and
 * the real samples (which record no Module ranges). */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/modules.h"
#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/xalloc.h"
#include "../test.h"

static void
range(tl_module_data *d, const char *name, int64_t s, int64_t e)
{
	tl_mod_range r = {s, e, strpool_intern_cstr(d->pool, name)};
	VEC_PUSH(d->ranges, d->nranges, d->rcap, r);
}

/* An operator with kernels given as (name, start, end) triples. */
static void
op(tl_module_data *d, const char *name, int64_t s, int64_t e, int nk, const char *const *kn,
   const int64_t *kt)
{
	tl_mod_op o = {s, e, strpool_intern_cstr(d->pool, name), d->nk, (size_t)nk};
	for (int i = 0; i < nk; i++) {
		tl_mod_kernel k = {kt[2 * i], kt[2 * i + 1], strpool_intern_cstr(d->pool, kn[i])};
		VEC_PUSH(d->k, d->nk, d->kcap, k);
	}
	VEC_PUSH(d->ops, d->nops, d->ocap, o);
}

static void
add_link(tl_module_data *d, const char *fwd, int64_t fs, int64_t fe, int64_t bs, int64_t be)
{
	tl_mod_link l = {fs, fe, bs, be, strpool_intern_cstr(d->pool, fwd)};
	VEC_PUSH(d->links, d->nlinks, d->lcap, l);
}

static void
test_rule(void)
{
	tl_module_data d;
	module_data_init(&d);
	range(&d, "A", 0, 100);
	range(&d, "B", 10, 40);
	range(&d, "B", 50, 90); /* the second call of B runs other operators */
	static const char *const k1[] = {"k1"}, *const k23[] = {"k2", "k3"}, *const k4[] = {"k4"},
	                         *const k5[] = {"k5"}, *const kb[] = {"kb"};
	op(&d, "x", 12, 14, 1, k1, (int64_t[]){1000, 1010});
	op(&d, "y", 20, 22, 2, k23, (int64_t[]){1020, 1025, 1030, 1033});
	op(&d, "z", 60, 62, 1, k1, (int64_t[]){1100, 1107});
	op(&d, "w", 95, 97, 1, k4, (int64_t[]){1200, 1202});
	op(&d, "outside", 200, 210, 1, k5, (int64_t[]){1250, 1260});
	op(&d, "yb", 300, 310, 1, kb, (int64_t[]){1300, 1320});
	op(&d, "zb", 320, 330, 1, kb, (int64_t[]){1400, 1404});
	add_link(&d, "y", 20, 22, 300, 310);
	add_link(&d, "z", 60, 62, 320, 330);
	tl_module_stats s;
	modules_compute(&d, &s);
	static const struct {
		const char *parent, *module, *op, *kernels;
		int64_t total;
		int backward;
	} want[] = {
	    {"A", "B_0", "x", "k1", 10, 0},
	    {"A", "B_0", "y", "k2, k3", 8, 0},
	    {"A", "B_1", "z", "k1", 7, 0},
	    {"", "A", "w", "k4", 2, 0},
	    {"A", "[Backward]B_0", "yb", "kb", 20, 1},
	    {"A", "[Backward]B_1", "zb", "kb", 4, 1},
	};
	size_t nw = sizeof want / sizeof want[0], ok = 0;
	for (size_t i = 0; i < s.n && i < nw; i++) {
		const tl_module_row *r = &s.v[i];
		int good =
		    strcmp(r->parent, want[i].parent) == 0 &&
		    strcmp(r->module, want[i].module) == 0 && strcmp(r->op_name, want[i].op) == 0 &&
		    strcmp(r->kernel_list, want[i].kernels) == 0 && r->total_ns == want[i].total &&
		    r->count == 1 && r->backward == want[i].backward;
		if (!good)
			printf("# row %zu: %s | %s | %s | %s | %lld | %d\n", i, r->parent,
			       r->module, r->op_name, r->kernel_list, (long long)r->total_ns,
			       r->backward);
		ok += good;
	}
	CHECK(s.n == nw && ok == nw,
	      "rule: rows in execution order with parent, module (_0/_1 where neighbouring calls "
	      "differ, [Backward] synthesized from the links), operator, kernels and device time "
	      "(%zu of %zu, %zu rows); the operator outside every module is left out",
	      ok, nw, s.n);
	CHECK(s.n >= 5 && s.v[4].module_start == 300 && s.v[4].module_end == 310,
	      "rule: a backward module spans its run's backward operators");
	CHECK(s.n >= 2 && s.v[1].nkernels == 2 && strcmp(s.v[1].kernels[0], "k2") == 0 &&
	          strcmp(s.v[1].kernels[1], "k3") == 0,
	      "rule: the kernels one by one, in launch order");
	modules_stats_free(&s);
	module_data_free(&d);

	/* the same module twice with the same operators: one row, count 2, mean */
	module_data_init(&d);
	range(&d, "L", 0, 10);
	range(&d, "L", 20, 30);
	op(&d, "mm", 2, 4, 1, k1, (int64_t[]){100, 110});
	op(&d, "mm", 22, 24, 1, k1, (int64_t[]){200, 204});
	modules_compute(&d, &s);
	CHECK(s.n == 1 && s.v[0].count == 2 && s.v[0].total_ns == 14 && s.v[0].mean_ns == 7 &&
	          strcmp(s.v[0].module, "L") == 0 && s.v[0].op_start == 2,
	      "rule: calls with the same operators are one row: count 2, total 14, mean 7");
	modules_stats_free(&s);
	module_data_free(&d);

	/* a kernel name holding ", " stays one name */
	module_data_init(&d);
	range(&d, "L", 0, 10);
	static const char *const odd[] = {"a, b"};
	op(&d, "mm", 2, 4, 1, odd, (int64_t[]){100, 110});
	modules_compute(&d, &s);
	CHECK(s.n == 1 && s.v[0].nkernels == 1 && strcmp(s.v[0].kernels[0], "a, b") == 0,
	      "rule: a kernel name with \", \" in it is one kernel");
	modules_stats_free(&s);
	module_data_free(&d);

	/* nesting deeper than 20 modules is left out, as module_statistic's traversal stops */
	module_data_init(&d);
	for (int i = 0; i < 22; i++) {
		char nm[8];
		snprintf(nm, sizeof nm, "M%d", i);
		range(&d, nm, 10 * i, 10000 - 10 * i);
		op(&d, "op", 10 * i + 1, 10 * i + 2, 1, k1, (int64_t[]){i * 100, i * 100 + 1});
	}
	modules_compute(&d, &s);
	CHECK(s.n == 20 && strcmp(s.v[19].module, "M19") == 0 &&
	          strncmp(s.v[19].parent, "M0/M1/M2/", 9) == 0,
	      "rule: operators of modules nested deeper than 20 are left out (%zu rows)", s.n);
	modules_stats_free(&s);
	module_data_free(&d);

	/* no ranges: no rows */
	module_data_init(&d);
	op(&d, "mm", 2, 4, 1, k1, (int64_t[]){100, 110});
	modules_compute(&d, &s);
	CHECK(s.n == 0, "rule: without Module ranges there are no rows");
	modules_stats_free(&s);
	module_data_free(&d);
}

static void
test_generated(void)
{
	char dir[] = "/tmp/tl-test-modules-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	char *out = xasprintf("%s/profile", dir);
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 3;
	o.nsteps = 2;
	o.modules = 1;
	o.seed = 5;
	o.slow_rank = -1;
	gen_truth truth;
	CHECK(gen_profile(&o, out, &truth) == 0, "generate a 3-rank module profile");
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(out, &lo, &tr) == 0, "load it");
	tl_query *q = tlq_open(&tr, NULL);
	CHECK(tlq_has_modules(q), "generated: the Module domain is seen on the loaded lanes");
	tl_modules_result m;
	tlq_modules(q, &m);
	size_t ok = 0, paths = 0;
	for (size_t i = 0; i < truth.nmodules; i++) {
		const gen_module_truth *t = &truth.modules[i];
		int64_t ns = 0;
		uint64_t k = 0, n = 0;
		for (size_t ri = 0; ri < m.nranks; ri++) {
			if (tr.ranks[ri]->rank != t->rank)
				continue;
			for (size_t j = 0; j < m.stats[ri].n; j++) {
				const tl_module_row *r = &m.stats[ri].v[j];
				char p[512];
				if (strcmp(tlq_module_path(r, p, sizeof p), t->path) != 0)
					continue;
				ns += r->total_ns;
				k += r->nkernels * r->count;
				n += r->count;
			}
		}
		int good = ns == t->device_ns && k == t->kernels && n == t->ops;
		if (!good)
			printf("# rank %d %s: %lld ns %llu kernels %llu ops, want %lld %llu %llu\n",
			       t->rank, t->path, (long long)ns, (unsigned long long)k,
			       (unsigned long long)n, (long long)t->device_ns,
			       (unsigned long long)t->kernels, (unsigned long long)t->ops);
		ok += good;
	}
	for (size_t ri = 0; ri < m.nranks; ri++) { /* no path the truth does not have */
		for (size_t j = 0; j < m.stats[ri].n; j++) {
			char p[512];
			tlq_module_path(&m.stats[ri].v[j], p, sizeof p);
			int first = 1;
			for (size_t x = 0; x < j; x++) {
				char p2[512];
				first &= strcmp(tlq_module_path(&m.stats[ri].v[x], p2, sizeof p2),
				                p) != 0;
			}
			paths += first;
		}
	}
	CHECK(truth.nmodules >= 3 * 14 && ok == truth.nmodules && paths == truth.nmodules,
	      "generated: every module path's device time (ns), kernels and operators equal what "
	      "was written, forward and [Backward] (%zu of %zu paths, %zu found)",
	      ok, truth.nmodules, paths);
	tlq_modules_free(&m);

	/* the text summary's table: one line per rank and module path, the truth's numbers */
	char *text = NULL;
	size_t tlen = 0;
	FILE *mf = open_memstream(&text, &tlen);
	report_modules_text(mf, q);
	fclose(mf);
	size_t lines = 0;
	ok = 0;
	for (size_t i = 0; i < truth.nmodules; i++) {
		const gen_module_truth *t = &truth.modules[i];
		char want[256];
		snprintf(want, sizeof want, "\n%6d %7lld.%06lld %8llu %8llu  %s\n", t->rank,
		         (long long)(t->device_ns / 1000000), (long long)(t->device_ns % 1000000),
		         (unsigned long long)t->kernels, (unsigned long long)t->ops, t->path);
		ok += strstr(text, want) != NULL;
	}
	for (char *c = text; c && *c; c++)
		lines += *c == '\n';
	CHECK(ok == truth.nmodules && lines == truth.nmodules + 4,
	      "generated: the text summary has one line per rank and module path with the truth's "
	      "device time, kernels and operators (%zu of %zu)",
	      ok, truth.nmodules);
	free(text);
	tlq_close(q);
	trace_free(&tr);
	gen_truth_free(&truth);

	/* a GRPO profile has no Module ranges: nothing is read */
	char *out2 = xasprintf("%s/grpo", dir);
	gen_opts_default(&o);
	o.nranks = 2;
	o.tasks_per_rank = 2000;
	o.slow_rank = -1;
	CHECK(gen_profile(&o, out2, NULL) == 0 && load_trace(out2, &lo, &tr) == 0,
	      "generate and load a GRPO profile");
	q = tlq_open(&tr, NULL);
	tlq_modules(q, &m);
	CHECK(!tlq_has_modules(q) && m.with_ranges == 0 && m.nrows == 0,
	      "generated GRPO: no Module ranges, no rows");
	tlq_modules_free(&m);
	tlq_close(q);
	trace_free(&tr);
	char *cmd = xasprintf("rm -rf '%s'", dir);
	if (system(cmd) != 0)
		CHECK(0, "cleanup %s", dir);
	free(cmd);
	free(out2);
	free(out);
}

static void
test_samples(void)
{
	const char *srcdir = getenv("TL_SRCDIR");
	const char *samples = getenv("TL_SAMPLES");
	char def[4096];
	if (samples == NULL || *samples == '\0') {
		snprintf(def, sizeof def, "%s/../shared/samples", srcdir && *srcdir ? srcdir : ".");
		samples = def;
	}
	static const char *const levels[] = {"level0", "level2"};
	int any = 0;
	for (int l = 0; l < 2; l++) {
		char p[4200];
		snprintf(p, sizeof p, "%s/ascend-db/%s", samples, levels[l]);
		struct stat sb;
		if (stat(p, &sb) != 0)
			continue;
		tl_trace tr;
		tl_load_opts lo = {.quiet_progress = 1};
		if (load_trace(p, &lo, &tr) != 0) {
			CHECK(0, "load %s", p);
			continue;
		}
		tl_query *q = tlq_open(&tr, NULL);
		tl_modules_result m;
		tlq_modules(q, &m);
		CHECK(!tlq_has_modules(q) && m.nrows == 0,
		      "%s: no Module-domain ranges, no module rows (its nn.Module frames are "
		      "with_modules' Python trace, not MSTX ranges)",
		      levels[l]);
		tlq_modules_free(&m);
		tlq_close(q);
		trace_free(&tr);
		any = 1;
	}
	if (!any)
		SKIP("samples absent: %s", samples);
	/* none of the real samples was captured with the Module domain of mstx */
	SKIP("no real sample records Module-domain MSTX ranges (their DBs have no MSTX_EVENTS "
	     "table): module statistics are checked against the generator only");
}

int
main(void)
{
	test_rule();
	test_generated();
	test_samples();
	return test_done();
}
