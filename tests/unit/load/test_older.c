/* msprof's per-iteration export (CANN <= 7.0) as the viewer's detail pane reads it: the step
 * lane's detail is the Iteration event's args (FP Start, BP End, ...), and a slice of a lane that
 * the device's files share is read back from its own file, also from the model cache. The
 * expected values are the files' own, read here with cJSON. */
#include "config.h"
#include "../test.h"

#include "gen/gen.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "model/trace.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fields {
	char fp[64], bp[64], iter_id[64], iter_ns[64], ts[64], name[64];
	int n;
} fields;

static void
take(void *ctx, const char *key, const char *value)
{
	fields *f = ctx;
	f->n++;
	char *dst = strcmp(key, "FP Start") == 0             ? f->fp
	            : strcmp(key, "BP End") == 0             ? f->bp
	            : strcmp(key, "Iteration ID") == 0       ? f->iter_id
	            : strcmp(key, "Iteration Time(ns)") == 0 ? f->iter_ns
	            : strcmp(key, "ts") == 0                 ? f->ts
	            : strcmp(key, "name") == 0               ? f->name
	                                                     : NULL;
	if (dst)
		snprintf(dst, 64, "%s", value);
}

static cJSON *
read_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = xmalloc((size_t)n + 1);
	size_t got = fread(b, 1, (size_t)n, f);
	b[got] = '\0';
	fclose(f);
	cJSON *j = cJSON_Parse(b);
	free(b);
	return j;
}

/* The Iteration event of file path (its args), or NULL; *j the caller's. */
static const cJSON *
iteration_args(const char *path, cJSON **j)
{
	*j = read_json(path);
	const cJSON *e;
	cJSON_ArrayForEach(e, *j)
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(e, "cat");
		if (cJSON_IsString(c) && strcmp(c->valuestring, "Iteration Time") == 0)
			return cJSON_GetObjectItemCaseSensitive(e, "args");
	}
	return NULL;
}

static const tl_track *
find_track(const tl_rank *r, tl_lane_kind kind, const char *label)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == kind &&
		    (label == NULL ||
		     strcmp(strpool_get(r->pool, r->tracks[i]->label), label) == 0))
			return r->tracks[i];
	return NULL;
}

/* us string with three decimals -> ns */
static int64_t
us_ns(const char *s)
{
	int64_t a = 0, b = 0;
	const char *dot = strchr(s, '.');
	a = strtoll(s, NULL, 10);
	if (dot)
		b = strtoll(dot + 1, NULL, 10);
	return a * 1000 + b;
}

static void
check_rank0(const tl_trace *tr, const char *dev6, const char *what)
{
	const tl_rank *r = NULL;
	for (size_t i = 0; i < tr->nranks; i++)
		if (tr->ranks[i]->rank == 0)
			r = tr->ranks[i];
	CHECK(r != NULL && r->nsteps == 12, "%s: rank 0 has its 12 iterations", what);
	if (r == NULL)
		return;
	const tl_track *st = find_track(r, TL_LANE_STEP, NULL);
	CHECK(st != NULL && st->n == 12, "%s: a step lane of 12 iterations", what);
	size_t good = 0;
	for (size_t k = 0; st && k < st->n; k++) {
		const tl_step *s = &r->steps[track_arg(st, k)];
		int model = (int)(s->id / 1000000), iter = (int)(s->id % 1000000);
		char *p = xasprintf("%s/timeline/msprof_6_%d_%d.json", dev6, model, iter);
		cJSON *j;
		const cJSON *a = iteration_args(p, &j);
		fields f;
		memset(&f, 0, sizeof f);
		int n = load_slice_args(r, st, k, take, &f);
		const cJSON *fp = cJSON_GetObjectItemCaseSensitive(a, "FP Start");
		const cJSON *bp = cJSON_GetObjectItemCaseSensitive(a, "BP End");
		const cJSON *ns = cJSON_GetObjectItemCaseSensitive(a, "Iteration Time(ns)");
		char nsb[32] = "";
		if (cJSON_IsNumber(ns))
			snprintf(nsb, sizeof nsb, "%.0f", ns->valuedouble);
		char name[64];
		snprintf(name, sizeof name, "Model %d Iteration %d", model, iter);
		if (n > 0 && cJSON_IsString(fp) && strcmp(f.fp, fp->valuestring) == 0 &&
		    cJSON_IsString(bp) && strcmp(f.bp, bp->valuestring) == 0 &&
		    strcmp(f.iter_ns, nsb) == 0 && atoi(f.iter_id) == iter &&
		    track_dur(st, k) == strtoll(nsb, NULL, 10) &&
		    strcmp(strpool_get(r->pool, st->v[k].name), name) == 0)
			good++;
		else
			fprintf(stderr,
			        "# %s step %zu: fp '%s' bp '%s' ns '%s' (file %s) name %s\n", what,
			        k, f.fp, f.bp, f.iter_ns, nsb, strpool_get(r->pool, st->v[k].name));
		cJSON_Delete(j);
		free(p);
	}
	CHECK(good == 12,
	      "%s: each step's detail is its Iteration event (FP Start, BP End, Iteration "
	      "Time(ns)), named 'Model M Iteration N', as long as its Iteration Time (%zu of 12)",
	      what, good);

	/* a kernel of the last iteration on Stream 3, a lane the first file created */
	const tl_track *s3 = find_track(r, TL_LANE_COMPUTE, "Stream 3");
	CHECK(s3 != NULL && s3->n > 12, "%s: one Stream 3 lane for every iteration", what);
	if (s3 == NULL || s3->n == 0)
		return;
	size_t last = s3->n - 1, firsti = 0;
	fields f, g;
	memset(&f, 0, sizeof f);
	memset(&g, 0, sizeof g);
	load_slice_args(r, s3, last, take, &f);
	load_slice_args(r, s3, firsti, take, &g);
	CHECK(f.ts[0] && us_ns(f.ts) == s3->v[last].start && g.ts[0] &&
	          us_ns(g.ts) == s3->v[firsti].start,
	      "%s: the first and the last kernel's detail come from their own files (ts %s, %s)",
	      what, g.ts, f.ts);
}

int
main(void)
{
	char *dir = test_tmpdir("older");
	if (dir == NULL)
		return test_done();
	char *ms = xasprintf("%s/msprof", dir), *cdir = xasprintf("%s/cache", dir);
	CHECK(gen_msprof_iter_export(ms, 3) == 0, "the generator writes the export");
	char *dev6 = xasprintf("%s/PROF_000001_20230615120000100_ABCDEFGH0/device_6", ms);

	tl_trace tr;
	CHECK(load_trace(ms, &(tl_load_opts){.quiet_progress = 1}, &tr) == 0 && tr.nranks == 2,
	      "two ranks load");
	check_rank0(&tr, dev6, "loaded");
	trace_free(&tr);

	/* written to the model cache, then read from it: the iterations' events are kept */
	for (int pass = 0; pass < 2; pass++) {
		tl_cache c;
		cache_open(&c, cdir);
		uint64_t opens = load_source_opens();
		CHECK(load_trace(ms, &(tl_load_opts){.quiet_progress = 1, .cache = &c}, &tr) == 0,
		      "cache pass %d loads", pass);
		if (pass == 1)
			CHECK(load_source_opens() == opens, "the second load reads no file");
		check_rank0(&tr, dev6, pass ? "from the cache" : "into the cache");
		trace_free(&tr);
		cache_close(&c);
	}
	free(dev6);
	free(ms);
	free(cdir);
	test_rmtree(dir);
	return test_done();
}
