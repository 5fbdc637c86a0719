/* One clock for the cluster: the ranks grouped by host, each host's clock estimated from the
 * collectives and every rank moved onto the reference host's clock (load/load.h, load_clock). */
#include "config.h"
#include "analysis/clocksync.h"
#include "load/load.h"
#include "load/profdb.h"
#include "profile/discover.h"
#include "model/clock.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
load_dir_host(const char *dir)
{
	if (dir == NULL)
		return NULL;
	const char *b = strrchr(dir, '/');
	b = b != NULL ? b + 1 : dir;
	size_t n = strlen(b);
	static const char sfx[] = "_ascend_pt";
	if (n <= sizeof sfx - 1 || strcmp(b + n - (sizeof sfx - 1), sfx) != 0)
		return NULL;
	n -= sizeof sfx - 1;
	/* torch_npu names it {worker_name}_{time}_ascend_pt, the worker {hostname}_{pid}: two
	 * numbers to strip */
	for (int part = 0; part < 2; part++) {
		size_t k = n;
		while (k > 0 && isdigit((unsigned char)b[k - 1]))
			k--;
		if (k == n || k == 0 || b[k - 1] != '_')
			return NULL;
		n = k - 1;
	}
	return n > 0 ? xstrndup(b, n) : NULL;
}

static _Atomic uint64_t clock_ns; /* load_clock's time, for `make bench` (TL_STATS) */

uint64_t
load_clock_ns(void)
{
	return clock_ns;
}

static void load_clock_run(tl_trace *tr, const tl_clock_fix *fix, size_t nfix);

typedef struct move_ctx {
	tl_trace *tr;
	const tl_clock **rc; /* per rank: its host's correction, NULL none */
} move_ctx;

static void
move_rank(void *arg, size_t i)
{
	move_ctx *m = arg;
	if (m->rc[i] != NULL)
		rank_clock_apply(m->tr->ranks[i], m->rc[i]);
}

void
load_clock(tl_trace *tr, const tl_clock_fix *fix, size_t nfix)
{
	int64_t t0 = timefmt_mono_ns();
	load_clock_run(tr, fix, nfix);
	clock_ns += (uint64_t)(timefmt_mono_ns() - t0);
}

static void
load_clock_run(tl_trace *tr, const tl_clock_fix *fix, size_t nfix)
{
	if (tr->nranks < 2)
		return;
	char **host = xcalloc(tr->nranks, sizeof *host);
	size_t known = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		if (r->host != NULL)
			host[i] = xstrdup(r->host);
		else if (r->nsources > 0)
			host[i] = load_dir_host(r->sources[0]->dir);
		known += host[i] != NULL;
	}
	/* nothing names a host: the profile says nothing of hosts apart, unless --clock-offset
	 * names one ("rank N": each rank then is a host of its own) */
	if (known == 0 && nfix == 0) {
		free(host);
		return;
	}
	tl_clock_host *h = NULL;
	size_t nh = clock_estimate(tr, (const char *const *)host, fix, nfix, &h);
	for (size_t i = 0; i < tr->nranks; i++)
		free(host[i]);
	free(host);
	char a[256], b[256];
	for (size_t f = 0; f < nfix; f++) {
		size_t k = 0;
		while (k < nh && strcmp(h[k].name, fix[f].host) != 0)
			k++;
		if (k == nh)
			msg_warn(NULL, "--clock-offset %s: no rank of the profile is on that host",
			         text_sanitize(fix[f].host, a, sizeof a, 1));
		else if (k == 0)
			msg_warn(
			    NULL,
			    "--clock-offset %s: that is the reference host (of the lowest rank); "
			    "its clock is the one the others are moved onto",
			    text_sanitize(fix[f].host, a, sizeof a, 1));
	}
	if (nh == 0)
		return;
	/* which correction each rank gets, then the ranks moved in parallel (a warm load copies
	 * each moved rank's mapped lanes into memory of its own: most of the cost) */
	const tl_clock **rc = xcalloc(tr->nranks, sizeof *rc);
	/* a host without evidence is worth a warning when another host's clock had to move:
	 * where every host that could be compared agrees, nothing says this one does not */
	int moved = 0;
	for (size_t k = 0; k < nh; k++)
		moved |= h[k].clock.on || h[k].how == TL_CLOCK_MANUAL;
	for (size_t k = 0; k < nh; k++) {
		if (h[k].how == TL_CLOCK_KEPT && moved)
			msg_warn(NULL,
			         "host %s shares no collective with the other hosts: its clock is "
			         "kept (--clock-offset %s=NS sets it)",
			         text_sanitize(h[k].name, a, sizeof a, 1),
			         text_sanitize(h[k].name, b, sizeof b, 1));
		if (!h[k].clock.on)
			continue;
		for (size_t i = 0; i < tr->nranks; i++)
			for (size_t m = 0; m < h[k].nranks; m++)
				if (tr->ranks[i]->rank == h[k].ranks[m] && rc[i] == NULL)
					rc[i] = &h[k].clock;
	}
	move_ctx mc = {tr, rc};
	parallel_for(tr->nranks, 0, move_rank, &mc);
	free(rc);
	tr->t_min = INT64_MAX;
	tr->t_max = INT64_MIN;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		if (r->t_min < tr->t_min)
			tr->t_min = r->t_min;
		if (r->t_max > tr->t_max)
			tr->t_max = r->t_max;
	}
	tr->hosts = h;
	tr->nhosts = nh;
}

int
load_sources_multi_host(const tl_sourcelist *sl)
{
	char *first = NULL;
	int multi = 0, unknown = 0;
	for (size_t i = 0; i < sl->n && !multi; i++) {
		const tl_source *s = &sl->v[i];
		char *h = NULL;
		if (source_has(s, TL_FMT_HOST_INFO)) {
			tl_profdb p;
			char err[400];
			if (profdb_open(&p, s->path, err, sizeof err) != 0)
				continue; /* it will not load: no rank to align */
			h = profdb_host(&p);
			profdb_close(&p);
		}
		if (h == NULL)
			h = load_dir_host(s->dir);
		if (h == NULL) { /* a host of its own, once some rank's host is known */
			unknown = 1;
			continue;
		}
		if (first == NULL)
			first = h;
		else {
			multi = strcmp(first, h) != 0;
			free(h);
		}
	}
	multi |= first != NULL && unknown;
	free(first);
	return multi;
}

int
load_path_multi_host(const char *path, const tl_rankset *ranks)
{
	tl_sourcelist sl = {0};
	if (discover(path, ranks, &sl) != 0)
		return 0;
	int multi = load_sources_multi_host(&sl);
	sourcelist_free(&sl);
	return multi;
}
