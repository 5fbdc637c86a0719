/* A load that writes the model cache maps each rank back from its file; with release_pages
 * (the batch commands', tl_load_opts) the pages of the file its decoding touched are given back
 * at once, so that they do not add up over the ranks still loading: each mapping holds no
 * resident page when the load returns, where without it each holds the decoded ones; and the
 * ranks are the same. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/gen.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "util/msg.h"
#include "../test.h"

/* The resident kB of the mapping that starts at p (/proc/self/smaps), -1: not found. */
static long
rss_kb_at(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (f == NULL)
		return -1;
	char line[4096];
	int in = 0;
	long kb = -1;
	while (fgets(line, sizeof line, f) != NULL) {
		uintmax_t lo, hi;
		if (sscanf(line, "%jx-%jx ", &lo, &hi) == 2) { /* a mapping's first line */
			in = lo == (uintmax_t)(uintptr_t)p;
			continue;
		}
		if (in && strncmp(line, "Rss:", 4) == 0) {
			kb = strtol(line + 4, NULL, 10);
			break;
		}
	}
	fclose(f);
	return kb;
}

/* Loads prof writing a fresh cache in cdir; *min and *max: the least and the most resident kB
 * of a rank's mapping (-1: a rank not mapped). */
static int
load_written(const char *prof, const char *cdir, int release, tl_trace *tr, long *min, long *max)
{
	tl_cache c;
	cache_open(&c, cdir);
	tl_load_opts o = {
	    .quiet_progress = 1, .clock_raw = 1, .cache = &c, .release_pages = release};
	int rc = load_trace(prof, &o, tr);
	cache_close(&c);
	*min = -1;
	*max = -1;
	for (size_t i = 0; rc == 0 && i < tr->nranks; i++) {
		const void *p;
		size_t len;
		long kb = cache_rank_mapping(tr->ranks[i], &p, &len) == 0 ? rss_kb_at(p) : -1;
		if (i == 0 || kb < *min)
			*min = kb;
		if (kb > *max)
			*max = kb;
	}
	return rc;
}

/* The same ranks and slices. */
static int
same_slices(const tl_trace *a, const tl_trace *b)
{
	if (a->nranks != b->nranks)
		return 0;
	for (size_t i = 0; i < a->nranks; i++) {
		const tl_rank *x = a->ranks[i], *y = b->ranks[i];
		if (x->rank != y->rank || x->ntracks != y->ntracks || x->nsteps != y->nsteps)
			return 0;
		for (size_t k = 0; k < x->ntracks; k++) {
			const tl_track *s = x->tracks[k], *t = y->tracks[k];
			if (s->n != t->n || s->kind != t->kind ||
			    (s->n > 0 && memcmp(s->v, t->v, s->n * sizeof *s->v) != 0))
				return 0;
		}
	}
	return 1;
}

int
main(void)
{
	msg_set_quiet(1);
	char *dir = test_tmpdir("remap_pages");
	if (dir == NULL)
		return test_done();
	char prof[1100], kept[1100], given[1100], xdg[1100];
	snprintf(xdg, sizeof xdg, "%.1000s/xdg", dir);
	setenv("XDG_CACHE_HOME", xdg, 1); /* the stamps beside the test's files */
	snprintf(prof, sizeof prof, "%.1000s/p", dir);
	snprintf(kept, sizeof kept, "%.1000s/kept", dir);
	snprintf(given, sizeof given, "%.1000s/given", dir);
	if (test_gen_ranks(prof, 3, 3000) != 0) {
		test_rmtree(dir);
		return test_done();
	}
	mkdir(kept, 0755);
	mkdir(given, 0755);
	FILE *f = fopen("/proc/self/smaps", "r");
	if (f == NULL) {
		SKIP("no /proc/self/smaps");
		test_rmtree(dir);
		return test_done();
	}
	fclose(f);
	tl_trace a, b;
	long amin, amax, bmin, bmax;
	CHECK(load_written(prof, kept, 0, &a, &amin, &amax) == 0 && a.nranks == 3,
	      "the load that writes the cache, pages kept");
	CHECK(amin > 0, "each rank's mapping holds the pages its decoding touched (%ld-%ld kB)",
	      amin, amax);
	CHECK(load_written(prof, given, 1, &b, &bmin, &bmax) == 0 && b.nranks == 3,
	      "the load that writes the cache, pages given back");
	CHECK(bmin == 0 && bmax == 0, "no rank's mapping holds a page (%ld-%ld kB)", bmin, bmax);
	CHECK(same_slices(&a, &b), "the same ranks, lanes and slices");
	trace_free(&a);
	trace_free(&b);
	test_rmtree(dir);
	return test_done();
}
