/* What the JSON loader's two test programs share (test_json.c: synthetic input;
 * test_json_samples.c: the real samples and the same profile as DB and JSON): a scratch
 * directory, and one file loaded with what the loader said on stderr. Include once, after
 * ../test.h. */
#ifndef TL_TEST_JSON_TEST_H
#define TL_TEST_JSON_TEST_H
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/xalloc.h"

static char tmpdir[4096];

/* The scratch directory $TMPDIR/tl-test-NAME-XXXXXX; 0, or -1 after saying why. */
static inline int
json_test_begin(const char *name)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/tl-test-%s-XXXXXX", t && *t ? t : "/tmp", name);
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return -1;
	}
	return 0;
}

/* Removes the scratch directory; the program's exit status. */
static inline int
json_test_end(void)
{
	nftw(tmpdir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return test_done();
}

static inline char *
tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static inline char *
write_tmp(const char *name, const char *text, size_t n)
{
	char *p = tmp_path(name);
	FILE *f = fopen(p, "wb");
	if (f != NULL) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	return p;
}

/* ---- loading one file, capturing what it says on stderr ------------------------------------ */

typedef struct loaded {
	tl_rank *r;
	tl_source src;
	int rc;
	char err[4096]; /* stderr while loading */
	int nlines;
} loaded;

static inline void
load_file(loaded *l, const char *path, tl_source_kind kind, int rank)
{
	memset(l, 0, sizeof *l);
	l->src.rank = rank;
	l->src.kind = kind;
	l->src.path = (char *)path;
	l->r = rank_new(rank);
	l->r->sources = xcalloc(1, sizeof *l->r->sources);
	l->r->sources[l->r->nsources++] = &l->src;

	char *cap = tmp_path("stderr.txt");
	fflush(stderr);
	int saved = dup(2), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	l->rc = loader_for(kind)->load(&l->src, l->r, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	FILE *f = fopen(cap, "r");
	size_t n = f ? fread(l->err, 1, sizeof l->err - 1, f) : 0;
	if (f)
		fclose(f);
	l->err[n] = '\0';
	for (size_t i = 0; i < n; i++)
		l->nlines += l->err[i] == '\n';
	while (n > 0 && l->err[n - 1] == '\n') /* for messages */
		l->err[--n] = '\0';
	free(cap);
	rank_finish(l->r);
}

static inline void
loaded_free(loaded *l)
{
	rank_free(l->r);
}

static inline size_t
lane_slices(const tl_rank *r, tl_lane_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind == k)
			n += r->tracks[i]->n;
	return n;
}

/* The first slice of the first lane of kind k that has one, spelled out in *s: 1, or 0 (none). */
static inline int
first_slice(const tl_rank *r, tl_lane_kind k, tl_item *s)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind == k && t->n > 0) {
			*s = (tl_item){t->v[0].start, track_end(t, 0), t->v[0].name,
			               track_arg(t, 0)};
			return 1;
		}
	}
	return 0;
}

/* `tl summary --json` of the profile at path (malloc'd), NULL when it does not load. */
static inline char *
summary_json(const char *path, const tl_query_opts *qo)
{
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	if (load_trace(path, &lo, &tr) != 0)
		return NULL;
	char *s = test_summary(&tr, qo, 1);
	trace_free(&tr);
	return s;
}

#endif
