/* The viewer's --no-cache spilling (cache_open_spill, cache_spill_rank): every rank of a load,
 * whole or progressive, is mapped from a file that no name reaches (its mapping in
 * /proc/self/maps says "(deleted)"), with the same slices as a load that keeps them in memory;
 * nothing is left in the directory or beside it; TL_SPILL=0 turns it off; an unusable
 * directory falls back to $TMPDIR, and with none the ranks stay in memory after one warning; a
 * tmpfs is refused. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif

#include "analysis/lanes.h"
#include "gen/gen.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "query/query.h"
#include "util/msg.h"
#include "../test.h"

#define TMPFS 0x01021994u

static int
is_tmpfs(const char *dir)
{
#if defined(__linux__)
	struct statfs fs;
	return statfs(dir, &fs) == 0 && (unsigned)fs.f_type == TMPFS;
#else
	(void)dir;
	return 0;
#endif
}

/* Entries of dir besides . and .. (-1: cannot be read). */
static long
entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return -1;
	long n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Mappings of files in dir whose name is gone ("(deleted)"); -1 without /proc. */
static long
deleted_maps(const char *dir)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (f == NULL)
		return -1;
	char line[4096], prefix[1100];
	snprintf(prefix, sizeof prefix, "%.1000s/", dir);
	long n = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		const char *p = strchr(line, '/');
		n += p != NULL && strncmp(p, prefix, strlen(prefix)) == 0 &&
		     strstr(p, " (deleted)") != NULL;
	}
	fclose(f);
	return n;
}

static size_t
spilled(const tl_trace *tr)
{
	size_t n = 0;
	for (size_t i = 0; i < tr->nranks; i++)
		n += tr->ranks[i]->spilled != 0;
	return n;
}

/* The track k of r, not counting the stage lanes (a viewer's session adds them). */
static const tl_track *
nth_track(const tl_rank *r, size_t k)
{
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind != TL_LANE_STAGE && k-- == 0)
			return r->tracks[i];
	return NULL;
}

/* The same ranks, tracks and slices. */
static int
same_model(const tl_trace *a, const tl_trace *b)
{
	if (a->nranks != b->nranks)
		return 0;
	for (size_t i = 0; i < a->nranks; i++) {
		const tl_rank *x = a->ranks[i], *y = b->ranks[i];
		if (x->rank != y->rank || x->t_min != y->t_min || x->t_max != y->t_max ||
		    x->nsteps != y->nsteps)
			return 0;
		for (size_t k = 0;; k++) {
			const tl_track *s = nth_track(x, k), *t = nth_track(y, k);
			if (s == NULL || t == NULL) {
				if (s != t)
					return 0;
				break;
			}
			if (s->n != t->n || s->kind != t->kind ||
			    (s->n > 0 && memcmp(s->v, t->v, s->n * sizeof *s->v) != 0))
				return 0;
		}
	}
	return 1;
}

static void
test_spilled(const char *prof, const char *cdir, const char *xdg, const tl_trace *mem)
{
	tl_cache c;
	CHECK(cache_open_spill(&c, cdir) == 1 && c.spill && !c.read_only &&
	          strcmp(c.dir, cdir) == 0,
	      "spilling into the directory asked for");
	unsigned w0 = msg_warn_count();
	tl_trace tr;
	CHECK(load_trace(prof, &(tl_load_opts){.quiet_progress = 1, .view = 1, .cache = &c}, &tr) ==
	          0,
	      "the spilled load");
	CHECK(spilled(&tr) == 3, "every rank spilled (%zu of %zu)", spilled(&tr), tr.nranks);
	CHECK(msg_warn_count() == w0, "no warning");
	CHECK(same_model(&tr, mem), "the same ranks, lanes and slices as kept in memory");
	long d = deleted_maps(cdir);
	if (d < 0)
		SKIP("no /proc/self/maps");
	else
		CHECK(d == 3, "each rank mapped from a file with no name (%ld (deleted) mappings)",
		      d);
	CHECK(entries(cdir) == 0, "nothing in the directory while they are mapped (%ld)",
	      entries(cdir));
	cache_close(&c);
	/* the viewer's session reads them as it reads any rank */
	tl_query *q = tlq_open(&tr, &(tl_query_opts){.lanes = 1});
	tlq_close(q);
	trace_free(&tr);
	CHECK(deleted_maps(cdir) <= 0, "unmapped with the trace");
	CHECK(entries(cdir) == 0, "and nothing left behind");
	struct stat st;
	CHECK(stat(xdg, &st) != 0, "no stamp directory, nothing under XDG_CACHE_HOME");

	/* the progressive load (the viewer's) spills each rank as it finishes */
	CHECK(cache_open_spill(&c, cdir) == 1, "spilling again");
	tl_load_bg *bg;
	tl_load_opts o = {.quiet_progress = 1, .view = 1, .defer_warnings = 1, .cache = &c};
	CHECK(load_trace_start(prof, &o, &tr, &bg) == 0, "the progressive load starts");
	q = tlq_open(&tr, &(tl_query_opts){.lanes = 1});
	tlq_attach_load(q, bg);
	while (tlq_loading(q, NULL, NULL)) {
		tlq_poll(q, NULL);
		usleep(1000);
	}
	CHECK(load_bg_finish(bg, 0) == 0, "it finishes");
	CHECK(spilled(&tr) == 3, "every rank spilled there too (%zu)", spilled(&tr));
	CHECK(same_model(&tr, mem), "with the same slices");
	tlq_close(q);
	trace_free(&tr);
	cache_close(&c);
	CHECK(entries(cdir) == 0, "nothing left behind");
}

static void
test_fallback(const char *prof, const char *base, const tl_trace *mem)
{
	char bad[1100], bad2[1100], good[1100];
	snprintf(bad, sizeof bad, "%.1000s/afile/sub", base); /* under a file: never a directory */
	snprintf(bad2, sizeof bad2, "%.1000s/afile", base);
	snprintf(good, sizeof good, "%.1000s/tmpdir", base);
	FILE *f = fopen(bad2, "w");
	if (f != NULL)
		fclose(f);
	mkdir(good, 0700);
	tl_cache c;

	setenv("TL_SPILL", "0", 1);
	CHECK(cache_open_spill(&c, good) == 0, "TL_SPILL=0: no spilling (the caller keeps none)");
	unsetenv("TL_SPILL");

	setenv("TMPDIR", good, 1);
	CHECK(cache_open_spill(&c, bad) == 1 && !c.read_only && strcmp(c.dir, good) == 0,
	      "a directory that cannot be made: $TMPDIR instead");
	cache_close(&c);

	setenv("TMPDIR", bad2, 1);
	CHECK(cache_open_spill(&c, bad) == 1 && c.read_only, "and with no $TMPDIR either: none");
	unsigned w0 = msg_warn_count();
	tl_trace tr;
	CHECK(load_trace(prof, &(tl_load_opts){.quiet_progress = 1, .view = 1, .cache = &c}, &tr) ==
	          0,
	      "the load goes on");
	CHECK(spilled(&tr) == 0, "no rank spilled (%zu)", spilled(&tr));
	CHECK(msg_warn_count() == w0 + 1, "one warning for the three ranks (%u)",
	      msg_warn_count() - w0);
	lanes_build(&tr, 1);
	CHECK(same_model(&tr, mem), "the ranks as kept in memory");
	trace_free(&tr);
	cache_close(&c);

	if (!is_tmpfs("/dev/shm")) {
		SKIP("/dev/shm is not a tmpfs here");
	} else {
		unsetenv("TL_TEST_SPILL_ANY_FS");
		CHECK(cache_open_spill(&c, "/dev/shm") == 1 && c.read_only &&
		          strstr(c.ro_why, "tmpfs") != NULL,
		      "a tmpfs is refused (%s)", c.ro_why);
		cache_close(&c);
	}
	unsetenv("TMPDIR");
}

int
main(void)
{
	msg_set_quiet(1);
	unsetenv("TL_SPILL");
	char *dir = test_tmpdir("spill");
	if (dir == NULL)
		return test_done();
	char prof[1100], cdir[1100], xdg[1100];
	snprintf(prof, sizeof prof, "%.1000s/p", dir);
	snprintf(cdir, sizeof cdir, "%.1000s/cache", dir);
	snprintf(xdg, sizeof xdg, "%.1000s/xdg", dir);
	setenv("XDG_CACHE_HOME", xdg, 1);
	/* a test directory on a tmpfs: spilled there all the same (the refusal is tested on
	 * /dev/shm) */
	if (is_tmpfs(dir))
		setenv("TL_TEST_SPILL_ANY_FS", "1", 1);
	if (test_gen_ranks(prof, 3, 3000) != 0) {
		test_rmtree(dir);
		return test_done();
	}
	mkdir(cdir, 0755);
	tl_trace mem;
	CHECK(load_trace(prof, &(tl_load_opts){.quiet_progress = 1, .view = 1}, &mem) == 0 &&
	          spilled(&mem) == 0,
	      "the load without a cache: nothing spilled");
	lanes_build(&mem, 1); /* a spilled rank has its overlap lanes, as a cache file does */
	test_spilled(prof, cdir, xdg, &mem);
	test_fallback(prof, dir, &mem);
	trace_free(&mem);
	test_rmtree(dir);
	return test_done();
}
