/* The hosts' clocks from the collectives they share (analysis/clocksync.h). */
#include "config.h"
#include "analysis/clocksync.h"
#include "analysis/collectives.h"
#include "analysis/pipeline.h"
#include "model/clock.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE INT64_MIN

static int64_t
median_of(int64_t *v, size_t n)
{
	sort_i64(v, n);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

size_t
clock_fit(int64_t *x, int64_t *d, size_t n, tl_clock *c, int64_t *residual)
{
	memset(c, 0, sizeof *c);
	*residual = 0;
	if (n == 0)
		return 0;
	int64_t *tmp = xreallocarray(NULL, n, sizeof *tmp);
	memcpy(tmp, d, n * sizeof *tmp);
	int64_t med = median_of(tmp, n);
	for (size_t i = 0; i < n; i++)
		tmp[i] = d[i] > med ? d[i] - med : med - d[i];
	int64_t mad = median_of(tmp, n);
	/* a collective that one host left late (a straggling tail, a retransmit) is no evidence
	 * of the clock: outside four robust sigmas of the median, and never less than 2 us */
	int64_t lim = (int64_t)(4 * 1.4826 * (double)mad);
	if (lim < 2000)
		lim = 2000;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t e = d[i] > med ? d[i] - med : med - d[i];
		if (e <= lim) {
			x[k] = x[i];
			d[k] = d[i];
			k++;
		}
	}
	c->on = 1;
	c->off = med;
	int64_t xmin = x[0], xmax = x[0];
	for (size_t i = 1; i < k; i++) {
		xmin = x[i] < xmin ? x[i] : xmin;
		xmax = x[i] > xmax ? x[i] : xmax;
	}
	if (k >= 8 && xmax - xmin >= CLOCK_DRIFT_SPAN_NS) {
		/* least squares over the kept samples, about their mean time */
		double mx = 0, md = 0;
		for (size_t i = 0; i < k; i++)
			mx += (double)(x[i] - xmin);
		mx /= (double)k;
		for (size_t i = 0; i < k; i++)
			md += (double)(d[i] - med);
		md /= (double)k;
		double sxx = 0, sxd = 0;
		for (size_t i = 0; i < k; i++) {
			double u = (double)(x[i] - xmin) - mx, v = (double)(d[i] - med) - md;
			sxx += u * u;
			sxd += u * v;
		}
		double b = sxx > 0 ? sxd / sxx : 0;
		if (fabs(b) < 1e-3) { /* beyond 1000 ppm it is not a clock */
			c->t0 = xmin + (int64_t)llround(mx);
			c->off = med + (int64_t)llround(md);
			c->drift = b;
		}
	}
	for (size_t i = 0; i < k; i++) {
		int64_t fit = c->off + (int64_t)llround(c->drift * (double)(x[i] - c->t0));
		tmp[i] = d[i] > fit ? d[i] - fit : fit - d[i];
	}
	*residual = median_of(tmp, k);
	free(tmp);
	return k;
}

/* ---- hosts ----------------------------------------------------------------------------------- */

static char *
host_label(const tl_trace *tr, const char *const *host, size_t i)
{
	if (host != NULL && host[i] != NULL && host[i][0] != '\0')
		return xstrdup(host[i]);
	char b[32];
	snprintf(b, sizeof b, "rank %d", tr->ranks[i]->rank);
	return xstrdup(b);
}

/* hix[i]: the host index of tr->ranks[i]; hosts in the order of their lowest rank (the ranks
 * are sorted by number). */
static size_t
group_hosts(const tl_trace *tr, const char *const *host, size_t *hix, tl_clock_host **out)
{
	tl_clock_host *h = NULL;
	size_t nh = 0, cap = 0;
	for (size_t i = 0; i < tr->nranks; i++) {
		char *name = host_label(tr, host, i);
		size_t k = 0;
		while (k < nh && strcmp(h[k].name, name) != 0)
			k++;
		if (k == nh) {
			tl_clock_host x = {.name = name};
			VEC_PUSH(h, nh, cap, x);
		} else {
			free(name);
		}
		h[k].ranks = xreallocarray(h[k].ranks, h[k].nranks + 1, sizeof *h[k].ranks);
		h[k].ranks[h[k].nranks++] = tr->ranks[i]->rank;
		hix[i] = k;
	}
	*out = h;
	return nh;
}

/* The collective instances' ends per host, then the P2P pairs': ends[c * nh + h], the median
 * of host h's ranks' ends in instance c (NONE: the host has no rank in it). */
static size_t
instance_ends(const tl_trace *tr, const size_t *hix, size_t nh, int64_t **out, size_t *ncoll,
              tl_pp_link **links, size_t *nlinks)
{
	tl_coll_entry *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t k = 0; k < r->ntracks; k++) {
			const tl_track *t = r->tracks[k];
			if (t->kind != TL_LANE_COMM)
				continue;
			const char *group = strpool_get(r->pool, t->label);
			tl_step_cursor sc;
			step_cursor_init(&sc, t);
			for (size_t i = 0; i < t->n; i++) {
				uint16_t s = track_has_steps(t) ? step_cursor_at(&sc, i)
				             : r->nsteps == 1   ? 0
				                                : TL_NO_STEP;
				/* the rank index, not its number, so that its host is one lookup */
				tl_coll_entry e = {.rank = (int)ri,
				                   .group = group,
				                   .name = strpool_get(r->pool, t->v[i].name),
				                   .step = s < r->nsteps ? r->steps[s].id : -1,
				                   .start = t->v[i].start,
				                   .end = track_end(t, i)};
				VEC_PUSH(v, n, cap, e);
			}
		}
	}
	tl_coll *c = NULL;
	size_t nc = coll_match(v, n, &c);
	free(v);
	/* a send and the receive it pairs with finish the one transfer together too: what ties
	 * the stages of a pipeline, which share no collective when each runs on its own hosts */
	tl_pp_link *l = NULL;
	size_t nl = pipeline_p2p_pairs(tr, &l);
	int64_t *ends = xreallocarray(NULL, nc + nl ? (nc + nl) * nh : 1, sizeof *ends);
	int64_t *buf = xreallocarray(NULL, tr->nranks ? tr->nranks : 1, sizeof *buf);
	for (size_t i = 0; i < nc; i++) {
		for (size_t h = 0; h < nh; h++) {
			size_t m = 0;
			for (size_t k = 0; k < c[i].n; k++)
				if (hix[c[i].ranks[k].rank] == h)
					buf[m++] = c[i].ranks[k].end;
			ends[i * nh + h] = m ? median_of(buf, m) : NONE;
		}
	}
	free(buf);
	coll_free(c, nc);
	for (size_t i = 0; i < nl; i++) {
		int64_t *e = ends + (nc + i) * nh;
		for (size_t h = 0; h < nh; h++)
			e[h] = NONE;
		size_t hs = hix[l[i].from_rank], hr = hix[l[i].to_rank];
		if (hs == hr)
			e[hs] = l[i].send_end + (l[i].recv_end - l[i].send_end) / 2;
		else {
			e[hs] = l[i].send_end;
			e[hr] = l[i].recv_end;
		}
	}
	*links = l;
	*nlinks = nl;
	*ncoll = nc;
	*out = ends;
	return nc + nl;
}

/* ---- the P2P inequality ---------------------------------------------------------------------
 * A receive cannot end before its send began. For host k, whose correction at its time x is
 * corr(x) = x - clock_map(x), against a host g already aligned: when k sent, corr(send start)
 * >= send start - (g's receive end on the reference clock), a lower bound; when k received,
 * corr(receive end) <= receive end - (g's send start on the reference clock), an upper one. */
typedef struct p2p_bound {
	int64_t x, b;
	int upper;
} p2p_bound;

static size_t
p2p_bounds(const tl_pp_link *l, size_t nl, const size_t *hix, const int *done,
           const tl_clock_host *h, size_t k, p2p_bound **out)
{
	p2p_bound *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < nl; i++) {
		size_t hs = hix[l[i].from_rank], hr = hix[l[i].to_rank];
		if (hs == k && hr != k && done[hr]) {
			p2p_bound b = {l[i].send_start,
			               l[i].send_start - clock_map(&h[hr].clock, l[i].recv_end), 0};
			VEC_PUSH(v, n, cap, b);
		} else if (hr == k && hs != k && done[hs]) {
			p2p_bound b = {l[i].recv_end,
			               l[i].recv_end - clock_map(&h[hs].clock, l[i].send_start), 1};
			VEC_PUSH(v, n, cap, b);
		}
	}
	*out = v;
	return n;
}

/* How many bounds c breaks; *up, how far its offset is below the lower bounds at most, *down
 * how far above the upper ones (0: none broken that way). */
static size_t
p2p_broken(const tl_clock *c, const p2p_bound *v, size_t n, int64_t *up, int64_t *down)
{
	size_t k = 0;
	*up = *down = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t corr = v[i].x - clock_map(c, v[i].x);
		int64_t e = v[i].upper ? corr - v[i].b : v[i].b - corr;
		if (e <= 0)
			continue;
		k++;
		if (v[i].upper)
			*down = e > *down ? e : *down;
		else
			*up = e > *up ? e : *up;
	}
	return k;
}

/* Checks host k's correction against its P2P bounds; a correction that rests on fewer than
 * CLOCK_MIN_COLL collectives (the rest P2P ends, which assume a transfer's two ends finish
 * together) and breaks bounds on one side only is moved just inside them. */
static void
p2p_check(tl_clock_host *hk, const p2p_bound *v, size_t n, size_t ncoll)
{
	hk->p2p_pairs = n;
	int64_t up, down;
	size_t k = p2p_broken(&hk->clock, v, n, &up, &down);
	if (k > 0 && ncoll < CLOCK_MIN_COLL && hk->how != TL_CLOCK_MANUAL &&
	    (up == 0 || down == 0)) {
		hk->clock.off += up - down;
		hk->clock.on = 1;
		hk->how = TL_CLOCK_ESTIMATED;
		hk->p2p_moved = 1;
		k = p2p_broken(&hk->clock, v, n, &up, &down);
	}
	hk->p2p_broken = k;
	hk->p2p_worst_ns = up > down ? up : down;
}

size_t
clock_estimate(const tl_trace *tr, const char *const *host, const tl_clock_fix *fix, size_t nfix,
               tl_clock_host **out)
{
	*out = NULL;
	if (tr->nranks == 0)
		return 0;
	size_t *hix = xreallocarray(NULL, tr->nranks, sizeof *hix);
	tl_clock_host *h;
	size_t nh = group_hosts(tr, host, hix, &h);
	if (nh <= 1) {
		for (size_t i = 0; i < nh; i++) {
			free(h[i].name);
			free(h[i].ranks);
		}
		free(h);
		free(hix);
		return 0;
	}
	int *done = xcalloc(nh, sizeof *done);
	h[0].how = TL_CLOCK_REFERENCE;
	done[0] = 1;
	for (size_t f = 0; f < nfix; f++)
		for (size_t k = 1; k < nh; k++)
			if (strcmp(h[k].name, fix[f].host) == 0) {
				h[k].how = TL_CLOCK_MANUAL;
				h[k].clock = (tl_clock){.on = fix[f].off != 0, .off = fix[f].off};
				done[k] = 1;
			}
	int64_t *ends;
	tl_pp_link *links;
	size_t nlinks, ncoll;
	size_t nc = instance_ends(tr, hix, nh, &ends, &ncoll, &links, &nlinks);
	int64_t *x = xreallocarray(NULL, nc ? nc : 1, sizeof *x);
	int64_t *d = xreallocarray(NULL, nc ? nc : 1, sizeof *d);
	/* host by host, the one with the most evidence against the hosts aligned so far first:
	 * a host that shares collectives only with another non-reference host (a pipeline
	 * stage's data-parallel group) is aligned through it */
	for (;;) {
		size_t best = SIZE_MAX, bestn = 0;
		for (size_t k = 0; k < nh; k++) {
			if (done[k])
				continue;
			size_t m = 0;
			for (size_t i = 0; i < nc; i++) {
				if (ends[i * nh + k] == NONE)
					continue;
				for (size_t g = 0; g < nh; g++)
					if (done[g] && ends[i * nh + g] != NONE) {
						m++;
						break;
					}
			}
			if (m > bestn) {
				best = k;
				bestn = m;
			}
		}
		if (best == SIZE_MAX)
			break;
		size_t m = 0, mcoll = 0;
		for (size_t i = 0; i < nc; i++) {
			int64_t e = ends[i * nh + best];
			if (e == NONE)
				continue;
			/* against the reference itself when it took part, else the first aligned */
			for (size_t g = 0; g < nh; g++)
				if (done[g] && ends[i * nh + g] != NONE) {
					x[m] = e;
					d[m] = e - clock_map(&h[g].clock, ends[i * nh + g]);
					m++;
					mcoll += i < ncoll;
					break;
				}
		}
		size_t k = clock_fit(x, d, m, &h[best].clock, &h[best].residual_ns);
		h[best].samples = k;
		h[best].how = TL_CLOCK_ESTIMATED;
		int64_t most = 0; /* the largest correction over the samples' times */
		for (size_t i = 0; i < k; i++) {
			int64_t c = x[i] - clock_map(&h[best].clock, x[i]);
			c = c < 0 ? -c : c;
			most = c > most ? c : most;
		}
		if (most <= CLOCK_AGREE_NS) {
			h[best].how = TL_CLOCK_AGREES;
			h[best].clock.on = 0;
		}
		p2p_bound *pb;
		size_t npb = p2p_bounds(links, nlinks, hix, done, h, best, &pb);
		p2p_check(&h[best], pb, npb, mcoll);
		free(pb);
		done[best] = 1;
	}
	/* an offset set by hand is held to the pairs too (it is not moved: it is flagged) */
	for (size_t k = 1; k < nh; k++) {
		if (h[k].how != TL_CLOCK_MANUAL)
			continue;
		p2p_bound *pb;
		size_t npb = p2p_bounds(links, nlinks, hix, done, h, k, &pb);
		p2p_check(&h[k], pb, npb, SIZE_MAX);
		free(pb);
	}
	int evidence = 0;
	for (size_t k = 0; k < nh; k++) {
		if (!done[k])
			h[k].how = TL_CLOCK_KEPT;
		evidence |= h[k].how != TL_CLOCK_KEPT && h[k].how != TL_CLOCK_REFERENCE;
	}
	if (!evidence) { /* nothing ties any two hosts: nothing to say either */
		for (size_t k = 0; k < nh; k++) {
			free(h[k].name);
			free(h[k].ranks);
		}
		free(h);
		h = NULL;
		nh = 0;
	}
	free(x);
	free(d);
	free(ends);
	free(links);
	free(done);
	free(hix);
	*out = h;
	return nh;
}
