/* One clock for the cluster: the ranks grouped by host, each host's clock estimated from the
 * collectives and every rank moved onto the reference host's clock (load/load.h, load_clock). */
#include "config.h"
#include "analysis/clocksync.h"
#include "store/cache.h"
#include "loading/loading.h"
#include "load/ascend/profdb.h"
#include "profile/discover.h"
#include "model/clock.h"
#include "util/msg.h"
#include "util/parallel.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

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

char *
load_file_host(const char *path)
{
	if (path == NULL)
		return NULL;
	const char *b = strrchr(path, '/');
	b = b != NULL ? b + 1 : path;
	size_t n = strlen(b);
	static const char gz[] = ".gz", sfx[] = ".pt.trace.json";
	if (n > sizeof gz - 1 && strcmp(b + n - (sizeof gz - 1), gz) == 0)
		n -= sizeof gz - 1;
	if (n <= sizeof sfx - 1 || strncmp(b + n - (sizeof sfx - 1), sfx, sizeof sfx - 1) != 0)
		return NULL;
	n -= sizeof sfx - 1;
	/* torch's tensorboard_trace_handler names it {worker_name}.{time}.pt.trace.json, the
	 * worker {hostname}_{pid}, the time in ms or ns since the epoch (10 digits at least: a
	 * worker name of the user's own, "rank-3.Jul_15.1074", names no host) */
	size_t k = n;
	while (k > 0 && isdigit((unsigned char)b[k - 1]))
		k--;
	if (n - k < 10 || k < 2 || b[k - 1] != '.')
		return NULL;
	n = k - 1;
	k = n;
	while (k > 0 && isdigit((unsigned char)b[k - 1]))
		k--;
	if (k == n || k < 2 || b[k - 1] != '_')
		return NULL;
	return xstrndup(b, k - 1);
}

static _Atomic uint64_t clock_ns; /* load_clock's time, for `make bench` (TL_STATS) */

uint64_t
load_clock_ns(void)
{
	return clock_ns;
}

static _Atomic uint64_t clock_kept; /* estimates read from the model cache (TL_STATS) */

uint64_t
load_clock_kept(void)
{
	return clock_kept;
}

static void load_clock_run(tl_trace *tr, const tl_clock_fix *fix, size_t nfix, tl_cache *cache);

/* ---- the estimate kept with the model ----------------------------------------------------------
 * The estimate is a function of the ranks' models (their files' identities, the tl build: each
 * rank's cache key), of which ranks were loaded and of the offsets fixed by hand: it is kept
 * under exactly those, as a stored result (cache_result_put) whose text is one line per host:
 *   tl-clock 2 NHOSTS
 *   NAME-IN-HEX HOW ON OFF T0 DRIFT-BITS RESIDUAL SAMPLES P2P-PAIRS P2P-BROKEN P2P-WORST
 *       P2P-MOVED NRANKS RANK...
 * (the drift's IEEE bits in hex: no locale, no rounding). A warm load reads it instead of
 * matching every collective again; anything else in its place is computed again. */

static uint8_t *
clock_key(const tl_trace *tr, const tl_clock_fix *fix, size_t nfix, size_t *len)
{
	size_t nw = 2 + nfix, o = 0, cap = 16 + tr->nranks * 12;
	char **w = xcalloc(nw, sizeof *w);
	w[0] = xstrdup("clock estimate 2");
	w[1] = xmalloc(cap);
	o += (size_t)snprintf(w[1], cap, "ranks");
	for (size_t i = 0; i < tr->nranks; i++)
		o += (size_t)snprintf(w[1] + o, cap - o, " %d", tr->ranks[i]->rank);
	for (size_t f = 0; f < nfix; f++)
		w[2 + f] = xasprintf("fix %" PRId64 " %s", fix[f].off, fix[f].host);
	uint8_t *key = cache_result_key(&tr->sources, (const char *const *)w, nw, len);
	for (size_t i = 0; i < nw; i++)
		free(w[i]);
	free(w);
	return key;
}

static char *
clock_encode(const tl_clock_host *h, size_t nh, size_t *len)
{
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	if (f == NULL)
		return NULL;
	fprintf(f, "tl-clock 2 %zu\n", nh);
	for (size_t k = 0; k < nh; k++) {
		for (const unsigned char *c = (const unsigned char *)h[k].name; *c; c++)
			fprintf(f, "%02x", *c);
		uint64_t bits;
		memcpy(&bits, &h[k].clock.drift, sizeof bits);
		fprintf(f,
		        " %d %d %" PRId64 " %" PRId64 " %016" PRIx64 " %" PRId64
		        " %zu %zu %zu %" PRId64 " %d %zu",
		        (int)h[k].how, h[k].clock.on, h[k].clock.off, h[k].clock.t0, bits,
		        h[k].residual_ns, h[k].samples, h[k].p2p_pairs, h[k].p2p_broken,
		        h[k].p2p_worst_ns, h[k].p2p_moved, h[k].nranks);
		for (size_t i = 0; i < h[k].nranks; i++)
			fprintf(f, " %d", h[k].ranks[i]);
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	*len = n;
	return out;
}

static void
hosts_free(tl_clock_host *h, size_t nh)
{
	for (size_t k = 0; k < nh; k++) {
		free(h[k].name);
		free(h[k].ranks);
	}
	free(h);
}

static int
next_i64(const char **p, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(*p, &end, 10);
	if (end == *p || errno != 0 || (*end != ' ' && *end != '\n'))
		return -1;
	*v = x;
	*p = end + (*end == ' ');
	return 0;
}

/* The hosts of a kept estimate, checked against tr (every rank once, on one host; the fields
 * in range): 0 with *out (NULL and 0 hosts: nothing to align), -1 when it is not one. */
static int
clock_decode(const char *s, const tl_trace *tr, tl_clock_host **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	int64_t nh;
	if (strncmp(s, "tl-clock 2 ", 11) != 0)
		return -1;
	s += 11;
	if (next_i64(&s, &nh) != 0 || *s++ != '\n' || nh < 0 || (uint64_t)nh > tr->nranks)
		return -1;
	tl_clock_host *h = xcalloc(nh ? (size_t)nh : 1, sizeof *h);
	size_t seen = 0;
	int ok = 1;
	for (int64_t k = 0; k < nh && ok; k++) {
		const char *sp = strchr(s, ' ');
		size_t hl = sp != NULL ? (size_t)(sp - s) : 0;
		ok = sp != NULL && hl > 0 && hl % 2 == 0;
		if (!ok)
			break;
		h[k].name = xmalloc(hl / 2 + 1);
		for (size_t i = 0; i < hl / 2 && ok; i++) {
			unsigned x;
			ok = sscanf(s + 2 * i, "%2x", &x) == 1 && x != 0 &&
			     isxdigit((unsigned char)s[2 * i]) &&
			     isxdigit((unsigned char)s[2 * i + 1]);
			h[k].name[i] = (char)x;
		}
		h[k].name[hl / 2] = '\0';
		s = sp + 1;
		int64_t how, on, off, t0, res, smp, pp, pb, pw, pm, nr;
		if (!ok || next_i64(&s, &how) != 0 || next_i64(&s, &on) != 0 ||
		    next_i64(&s, &off) != 0 || next_i64(&s, &t0) != 0) {
			ok = 0;
			break;
		}
		char *end;
		errno = 0;
		unsigned long long bits = strtoull(s, &end, 16);
		if (end != s + 16 || *end != ' ' || errno != 0) {
			ok = 0;
			break;
		}
		s = end + 1;
		uint64_t b64 = bits;
		memcpy(&h[k].clock.drift, &b64, sizeof b64);
		if (next_i64(&s, &res) != 0 || next_i64(&s, &smp) != 0 || next_i64(&s, &pp) != 0 ||
		    next_i64(&s, &pb) != 0 || next_i64(&s, &pw) != 0 || next_i64(&s, &pm) != 0 ||
		    next_i64(&s, &nr) != 0 || pp < 0 || pb < 0 || pb > pp || pw < 0 ||
		    (pm != 0 && pm != 1) || how < TL_CLOCK_REFERENCE || how > TL_CLOCK_AGREES ||
		    (on != 0 && on != 1) || !isfinite(h[k].clock.drift) ||
		    fabs(h[k].clock.drift) >= 1e-3 || res < 0 || smp < 0 || nr < 1 ||
		    (uint64_t)nr > tr->nranks - seen) {
			ok = 0;
			break;
		}
		h[k].how = (tl_clock_how)how;
		h[k].clock.on = (int)on;
		h[k].clock.off = off;
		h[k].clock.t0 = t0;
		h[k].residual_ns = res;
		h[k].samples = (size_t)smp;
		h[k].p2p_pairs = (size_t)pp;
		h[k].p2p_broken = (size_t)pb;
		h[k].p2p_worst_ns = pw;
		h[k].p2p_moved = (int)pm;
		h[k].ranks = xreallocarray(NULL, (size_t)nr, sizeof *h[k].ranks);
		h[k].nranks = (size_t)nr;
		for (int64_t i = 0; i < nr && ok; i++) {
			int64_t r;
			ok = next_i64(&s, &r) == 0 && (i + 1 < nr ? s[-1] == ' ' : *s == '\n');
			h[k].ranks[i] = (int)r;
			/* a rank of the trace, on no other host */
			int found = 0;
			for (size_t j = 0; ok && j < tr->nranks; j++)
				found |= tr->ranks[j]->rank == r;
			for (int64_t q = 0; ok && q <= k; q++)
				for (size_t j = 0; j < (q == k ? (size_t)i : h[q].nranks); j++)
					ok &= h[q].ranks[j] != r;
			ok &= found && r == (int)r;
		}
		seen += (size_t)nr;
		if (ok && *s++ != '\n')
			ok = 0;
	}
	if (!ok || *s != '\0' || (nh > 0 && seen != tr->nranks)) {
		hosts_free(h, (size_t)nh);
		return -1;
	}
	if (nh == 0) {
		free(h);
		h = NULL;
	}
	*out = h;
	*nout = (size_t)nh;
	return 0;
}

typedef struct move_ctx {
	tl_trace *tr;
	const tl_clock **rc; /* per rank: its host's correction, NULL none */
} move_ctx;

static void
move_rank(void *arg, size_t i)
{
	move_ctx *m = arg;
	if (m->rc[i] == NULL)
		return;
	tl_rank *r = m->tr->ranks[i];
	/* a rank mapped from its cache file (privately) is moved in that mapping, made writable
	 * for it: the kernel copies the pages written, no more (in place of a copy of every lane
	 * into new memory first); read-only again after */
	const void *p;
	size_t len;
	int in_place = cache_rank_mapping(r, &p, &len) == 0 &&
	               mprotect((void *)(uintptr_t)p, len, PROT_READ | PROT_WRITE) == 0;
	rank_clock_apply(r, m->rc[i], in_place);
	if (in_place) {
		mprotect((void *)(uintptr_t)p, len, PROT_READ);
		r->backing_drop = NULL; /* the pages written are the only copy of the moved times */
	}
}

static _Atomic uint64_t clock_cpu_ns; /* and the CPU time of the process meanwhile */

uint64_t
load_clock_cpu_ns(void)
{
	return clock_cpu_ns;
}

static int64_t
cpu_ns(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

void
load_clock(tl_trace *tr, const tl_clock_fix *fix, size_t nfix, tl_cache *cache)
{
	int64_t t0 = timefmt_mono_ns(), c0 = cpu_ns();
	load_clock_run(tr, fix, nfix, cache);
	clock_ns += (uint64_t)(timefmt_mono_ns() - t0);
	clock_cpu_ns += (uint64_t)(cpu_ns() - c0);
}

static void
load_clock_run(tl_trace *tr, const tl_clock_fix *fix, size_t nfix, tl_cache *cache)
{
	if (tr->nranks < 2)
		return;
	char **host = xcalloc(tr->nranks, sizeof *host);
	size_t known = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		const tl_rank *r = tr->ranks[i];
		if (r->host != NULL)
			host[i] = xstrdup(r->host);
		else if (r->nsources > 0) {
			host[i] = load_dir_host(r->sources[0]->dir);
			if (host[i] == NULL)
				host[i] = load_file_host(r->sources[0]->path);
		}
		known += host[i] != NULL;
	}
	/* nothing names a host: the profile says nothing of hosts apart, unless --clock-offset
	 * names one ("rank N": each rank then is a host of its own) */
	if (known == 0 && nfix == 0) {
		free(host);
		return;
	}
	/* one host named for every rank: nothing to estimate (and nothing worth keeping) */
	int one = host[0] != NULL && host[0][0] != '\0';
	for (size_t i = 1; i < tr->nranks && one; i++)
		one = host[i] != NULL && strcmp(host[i], host[0]) == 0;
	size_t klen = 0;
	uint8_t *key = NULL;
	if (!one && cache != NULL && cache->dir != NULL && !cache->spill)
		key = clock_key(tr, fix, nfix, &klen);
	tl_clock_host *h = NULL;
	size_t nh = 0;
	tl_result kept = {0};
	int have = 0;
	if (key != NULL && cache_result_get(cache, key, klen, &kept)) {
		have =
		    kept.status == 0 && kept.nerr == 0 && clock_decode(kept.out, tr, &h, &nh) == 0;
		cache_result_free(&kept);
		clock_kept += (uint64_t)have;
	}
	if (!have) {
		nh = clock_estimate(tr, (const char *const *)host, fix, nfix, &h);
		size_t n = 0;
		char *text = key != NULL && cache_all_kept(cache) ? clock_encode(h, nh, &n) : NULL;
		if (text != NULL) {
			char none[1] = "";
			tl_result res = {
			    .status = 0, .out = text, .nout = n, .err = none, .nerr = 0};
			cache_result_put(cache, key, klen, &res);
			free(text);
		}
	}
	free(key);
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
		if (h[k].p2p_broken > 0)
			msg_warn(NULL,
			         "host %s: its clock %s has %zu of the %zu receives it shares with "
			         "the hosts aligned before it end before their sends began (by up "
			         "to %.3f us): doubtful (--clock-offset %s=NS sets it)",
			         text_sanitize(h[k].name, a, sizeof a, 1),
			         h[k].how == TL_CLOCK_MANUAL ? "offset set by hand" : "estimate",
			         h[k].p2p_broken, h[k].p2p_pairs, (double)h[k].p2p_worst_ns / 1e3,
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
		if (h == NULL && s->kind == TL_SRC_KINETO)
			h = discover_json_host(s->path);
		if (h == NULL)
			h = load_dir_host(s->dir);
		if (h == NULL)
			h = load_file_host(s->path);
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
