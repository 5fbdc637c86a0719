/* Regex search over slice names: compiled once, each rank's string pool matched once, then
 * stepping through the matches in time order is a few binary searches. */
#include "config.h"
#include "query/query.h"
#include "util/satint.h"
#include "util/xalloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
has_upper(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1]) { /* \S, \D, \W are classes, not letters */
			s++;
			continue;
		}
		if (isupper((unsigned char)*s))
			return 1;
	}
	return 0;
}

int
tlq_search(const tl_trace *tr, const unsigned char *shown, const char *pattern, tl_search *out,
           char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	int ec;
	PCRE2_SIZE eo;
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	if (!has_upper(pattern))
		opts |= PCRE2_CASELESS;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &ec, &eo, NULL);
	if (re == NULL) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		snprintf(err, errlen, "%s at offset %zu", (const char *)msg, (size_t)eo);
		return -1;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	out->pattern = xstrdup(pattern);
	out->nranks = tr->nranks;
	out->base = xcalloc(tr->nranks + 1, sizeof *out->base);
	size_t nt = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		out->base[ri] = nt;
		nt += tr->ranks[ri]->ntracks;
	}
	out->base[tr->nranks] = nt;
	out->tm = xcalloc(nt ? nt : 1, sizeof *out->tm);
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		if (shown && !shown[ri])
			continue;
		const tl_rank *r = tr->ranks[ri];
		uint32_t nstr = strpool_count(r->pool);
		unsigned char *hit = xcalloc(nstr ? nstr : 1, 1);
		int any = 0;
		for (uint32_t id = 1; id < nstr; id++) {
			const char *s = strpool_get(r->pool, id);
			int rc = pcre2_match(re, (PCRE2_SPTR)s, strpool_len(r->pool, id), 0, 0, md,
			                     NULL);
			if (rc >= 0)
				hit[id] = 1, any = 1;
		}
		for (size_t ti = 0; any && ti < r->ntracks; ti++) {
			const tl_track *t = r->tracks[ti];
			if (t->kind == TL_LANE_OVERLAP)
				continue;
			tl_track_matches *m = &out->tm[out->base[ri] + ti];
			size_t cap = 0;
			for (size_t i = 0; i < t->n; i++)
				if (t->v[i].name < nstr && hit[t->v[i].name])
					VEC_PUSH(m->idx, m->n, cap, (uint32_t)i);
			out->total += m->n;
		}
		free(hit);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return 0;
}

void
tlq_search_free(tl_search *s)
{
	if (s->tm)
		for (size_t i = 0; i < s->base[s->nranks]; i++)
			free(s->tm[i].idx);
	free(s->tm);
	free(s->base);
	free(s->pattern);
	memset(s, 0, sizeof *s);
}

/* Matches of track ti of rank ri (NULL when none). */
static const tl_track_matches *
tlq_search_track(const tl_search *s, size_t ri, size_t ti)
{
	if (s->tm == NULL || ri >= s->nranks || s->base[ri] + ti >= s->base[ri + 1])
		return NULL;
	const tl_track_matches *m = &s->tm[s->base[ri] + ti];
	return m->n ? m : NULL;
}

int
tlq_search_any(const tl_search *s, const tl_trace *tr, size_t ri, size_t ti, int64_t t0, int64_t t1)
{
	const tl_track_matches *m = tlq_search_track(s, ri, ti);
	if (m == NULL)
		return 0;
	const tl_track *t = tr->ranks[ri]->tracks[ti];
	size_t lo = 0, hi = m->n; /* first match whose end > t0 (ends ascend) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (track_end(t, m->idx[mid]) <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && t->v[m->idx[lo]].start < t1)
		return 1;
	/* a zero-length match exactly at t0 */
	return lo > 0 && t->v[m->idx[lo - 1]].start == t0 && track_end(t, m->idx[lo - 1]) == t0;
}

/* position order: start, then rank, track, slice */
static int
pos_cmp(const tl_match_pos *a, const tl_match_pos *b)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return (a->slice > b->slice) - (a->slice < b->slice);
}

/* first index k in m with start(m[k]) >= x */
static size_t
m_lower(const tl_track *t, const tl_track_matches *m, int64_t x)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->v[m->idx[mid]].start < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
tlq_search_step(const tl_search *s, const tl_trace *tr, const tl_match_pos *from, int dir,
                tl_match_pos *out)
{
	int found = 0;
	tl_match_pos best = {0};
	for (size_t ri = 0; ri < s->nranks && ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track_matches *m = tlq_search_track(s, ri, ti);
			if (m == NULL)
				continue;
			const tl_track *t = r->tracks[ti];
			/* candidates around from->start; ties on start are ordered by position */
			size_t k = m_lower(t, m, from->start);
			tl_match_pos c;
			if (dir > 0) {
				for (; k < m->n; k++) {
					c = (tl_match_pos){ri, ti, m->idx[k],
					                   t->v[m->idx[k]].start};
					if (from->rank == SIZE_MAX ? c.start >= from->start
					                           : pos_cmp(&c, from) > 0)
						break;
				}
				if (k >= m->n)
					continue;
				if (!found || pos_cmp(&c, &best) < 0)
					best = c, found = 1;
			} else {
				/* the last one before from: scan back over ties */
				size_t e = k;
				while (e < m->n && t->v[m->idx[e]].start == from->start)
					e++;
				while (e > 0) {
					c = (tl_match_pos){ri, ti, m->idx[e - 1],
					                   t->v[m->idx[e - 1]].start};
					if (from->rank == SIZE_MAX ? c.start < from->start
					                           : pos_cmp(&c, from) < 0)
						break;
					e--;
				}
				if (e == 0)
					continue;
				if (!found || pos_cmp(&c, &best) > 0)
					best = c, found = 1;
			}
		}
	}
	if (!found)
		return -1;
	*out = best;
	return 0;
}

size_t
tlq_search_ordinal(const tl_search *s, const tl_trace *tr, const tl_match_pos *pos)
{
	size_t n = 0;
	for (size_t ri = 0; ri < s->nranks && ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track_matches *m = tlq_search_track(s, ri, ti);
			if (m == NULL)
				continue;
			const tl_track *t = r->tracks[ti];
			size_t k = m_lower(t, m, pos->start);
			while (k < m->n) {
				tl_match_pos c = {ri, ti, m->idx[k], t->v[m->idx[k]].start};
				if (c.start != pos->start || pos_cmp(&c, pos) >= 0)
					break;
				k++;
			}
			n += k;
		}
	}
	return n;
}

/* What a search found, per rank: how many slices match, their total and mean duration. */
void
tlq_search_rank_stats(const tl_search *s, const tl_trace *tr, size_t ri, size_t *count,
                      int64_t *total)
{
	*count = 0;
	*total = 0;
	if (ri >= s->nranks || ri >= tr->nranks)
		return;
	const tl_rank *r = tr->ranks[ri];
	for (size_t ti = 0; ti < r->ntracks; ti++) {
		const tl_track_matches *m = tlq_search_track(s, ri, ti);
		if (m == NULL)
			continue;
		const tl_track *t = r->tracks[ti];
		for (size_t k = 0; k < m->n; k++)
			*total = sat_add(*total, track_dur(t, m->idx[k]));
		*count += m->n;
	}
}
