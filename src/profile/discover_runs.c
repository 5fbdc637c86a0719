/* Several runs under one path: which of the sources discovery found belong to one job, so that
 * two unrelated jobs kept side by side are named and one asked for, never merged into one
 * timeline. Two runs are told apart by
 *  - the profile's family: Ascend profiles (torch_npu and MindSpore DBs, msprof, trace_view.json)
 *    and PyTorch profiler (Kineto) traces are never one job;
 *  - rank sets that repeat in sibling trees: below the deepest directory all of a set's captures
 *    share, two plain directories (not capture directories themselves) that hold the same rank
 *    are two runs (level0/ and level2/, jobA/ and jobB/), then each is looked into again.
 * What still merges: verl's and MindSpeed-RL's role directories (<step>/<role>/…, the sources
 * carry a role; a <step>/ directory, a number, is never a run of its own), several capture
 * directories of one rank side by side, and the ranks of one job spread over per-host directories
 * (no rank repeats). */
#include "config.h"
#include "profile/discover.h"
#include "util/rankspec.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
family(tl_source_kind k)
{
	return (source_kind_caps(k) & TL_FMT_GPU) != 0;
}

/* The length of the deepest directory that every dir of idx[0..n) lies in (a prefix of each,
 * ending at a '/' boundary). */
static size_t
common_dir(const tl_sourcelist *sl, const size_t *idx, size_t n)
{
	const char *a = sl->v[idx[0]].dir;
	size_t len = strlen(a);
	for (size_t i = 1; i < n; i++) {
		const char *b = sl->v[idx[i]].dir;
		size_t k = 0;
		while (k < len && b[k] != '\0' && a[k] == b[k])
			k++;
		if (k == len && (b[k] == '/' || b[k] == '\0'))
			continue; /* a's first len bytes are a directory b lies in */
		if (!(k < len && b[k] == '\0' && a[k] == '/'))
			while (k > 0 && a[k] != '/')
				k--; /* back to the last whole component both share */
		len = k;
	}
	return len;
}

/* The first path component of dir below its first len bytes: [*s, *s + return). */
static size_t
child_of(const char *dir, size_t len, const char **s)
{
	const char *p = dir + len;
	while (*p == '/')
		p++;
	*s = p;
	const char *e = strchr(p, '/');
	return e ? (size_t)(e - p) : strlen(p);
}

typedef struct child {
	const char *name;
	size_t nlen;
	size_t *idx, n;
	int plain; /* a directory that holds captures, not a capture directory, and no roles */
} child;

static int
ranks_overlap(const tl_sourcelist *sl, const child *a, const child *b)
{
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++)
			if (sl->v[a->idx[i]].rank >= 0 &&
			    sl->v[a->idx[i]].rank == sl->v[b->idx[j]].rank)
				return 1;
	return 0;
}

static void
split(const tl_sourcelist *sl, size_t *idx, size_t n, int *run_of, int *nruns)
{
	size_t len = common_dir(sl, idx, n);
	child *c = xcalloc(n, sizeof *c);
	size_t nc = 0;
	for (size_t i = 0; i < n; i++) {
		const tl_source *s = &sl->v[idx[i]];
		const char *name;
		size_t nl = child_of(s->dir, len, &name);
		size_t k = 0;
		while (k < nc && !(c[k].nlen == nl && strncmp(c[k].name, name, nl) == 0))
			k++;
		if (k == nc) {
			c[nc] = (child){.name = name,
			                .nlen = nl,
			                .idx = xcalloc(n, sizeof(size_t)),
			                .plain = nl > 0};
			nc++;
		}
		c[k].idx[c[k].n++] = idx[i];
		/* the child is the capture directory itself, a role's, or a step directory (verl's
		 * <step>/, a number): not a run of its own */
		if (name[nl] == '\0' || s->role != NULL || strspn(name, "0123456789") == nl)
			c[k].plain = 0;
	}
	int repeat = 0;
	for (size_t a = 0; a < nc && !repeat; a++)
		for (size_t b = a + 1; b < nc && !repeat; b++)
			repeat = c[a].plain && c[b].plain && ranks_overlap(sl, &c[a], &c[b]);
	if (!repeat) {
		for (size_t i = 0; i < n; i++)
			run_of[idx[i]] = *nruns;
		(*nruns)++;
	} else {
		/* each plain directory is looked into on its own; the rest stays one run */
		size_t *rest = xcalloc(n, sizeof *rest), nrest = 0;
		for (size_t k = 0; k < nc; k++) {
			if (c[k].plain)
				split(sl, c[k].idx, c[k].n, run_of, nruns);
			else
				for (size_t i = 0; i < c[k].n; i++)
					rest[nrest++] = c[k].idx[i];
		}
		if (nrest > 0)
			split(sl, rest, nrest, run_of, nruns);
		free(rest);
	}
	for (size_t k = 0; k < nc; k++)
		free(c[k].idx);
	free(c);
}

int
discover_runs(const tl_sourcelist *sl, int *run_of)
{
	int nruns = 0;
	size_t *idx = xcalloc(sl->n ? sl->n : 1, sizeof *idx);
	for (int f = 0; f < 2; f++) {
		size_t n = 0;
		for (size_t i = 0; i < sl->n; i++)
			if (family(sl->v[i].kind) == f)
				idx[n++] = i;
		if (n > 0)
			split(sl, idx, n, run_of, &nruns);
	}
	free(idx);
	return nruns;
}

void
discover_run_describe(const tl_sourcelist *sl, const int *run_of, int run, char *buf, size_t len)
{
	size_t idx_n = 0, first = 0;
	for (size_t i = 0; i < sl->n; i++)
		if (run_of[i] == run && idx_n++ == 0)
			first = i;
	size_t *idx = xcalloc(idx_n ? idx_n : 1, sizeof *idx), n = 0;
	tl_rankset rs = {0};
	size_t cap = 0, unknown = 0;
	int64_t t0 = 0, t1 = 0;
	for (size_t i = 0; i < sl->n; i++) {
		if (run_of[i] != run)
			continue;
		idx[n++] = i;
		const tl_source *s = &sl->v[i];
		if (s->rank >= 0)
			VEC_PUSH(rs.ranks, rs.n, cap, s->rank);
		else
			unknown++;
		if (s->capture_ns > 0 && (t0 == 0 || s->capture_ns < t0))
			t0 = s->capture_ns;
		if (s->capture_ns > t1)
			t1 = s->capture_ns;
	}
	size_t dl = n ? common_dir(sl, idx, n) : 0;
	char ranks[256] = "", when[128] = "unknown", a[48], b[48];
	if (rs.n > 0) {
		rankset_normalize(&rs);
		rankset_format(&rs, ranks, sizeof ranks);
	}
	if (t0 > 0) {
		timefmt_epoch(t0, a, sizeof a); /* to the second: enough to tell runs apart */
		timefmt_epoch(t1, b, sizeof b);
		a[strcspn(a, ".")] = b[strcspn(b, ".")] = '\0';
		if (strcmp(a, b) == 0)
			snprintf(when, sizeof when, "%s", a);
		else
			snprintf(when, sizeof when, "%s to %s", a, b);
	}
	char unk[48] = "";
	if (unknown > 0)
		snprintf(unk, sizeof unk, "%s%zu of unknown rank", rs.n ? ", " : "", unknown);
	snprintf(buf, len, "%.*s  (%s, %zu file%s; rank%s %s%s; captured %s)", (int)dl,
	         n ? sl->v[first].dir : "", source_kind_name(sl->v[first].kind), n,
	         n == 1 ? "" : "s", rs.n == 1 ? "" : "s", rs.n ? ranks : "", unk, when);
	free(rs.ranks);
	free(idx);
}
