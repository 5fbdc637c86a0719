#include "config.h"
#include "query/links.h"
#include "query/host.h"
#include "query/session.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int
track_matches(const tl_track *t, const tl_link_end *e)
{
	if (!((e->kinds >> t->kind) & 1u) || t->source != e->source)
		return 0;
	if (e->key != INT64_MIN && t->key != e->key)
		return 0;
	if (e->cann >= 0 && t->kind == TL_LANE_HOST &&
	    ((t->key & TL_HOST_KEY_CANN) != 0) != (e->cann != 0))
		return 0;
	return 1;
}

int
tlq_link_find(const tl_rank *r, const tl_link_end *e, tlq_slice_pos *out)
{
	/* a slice starting at the end's time (its row or ordinal when the end names it; else
	 * the deepest, the innermost call); else, for an end bound to its enclosing slice, the
	 * innermost slice containing the time */
	int found = 0, depth = -1;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (!track_matches(t, e) || (found && t->depth <= depth))
			continue;
		for (size_t k = track_first_starting_at(t, e->start);
		     k < t->n && t->v[k].start == e->start; k++)
			if (e->arg == UINT32_MAX || track_arg(t, k) == e->arg) {
				*out = (tlq_slice_pos){i, k};
				found = 1;
				depth = t->depth;
				break;
			}
	}
	if (found || !e->within)
		return found;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (!track_matches(t, e) || (found && t->depth <= depth))
			continue;
		size_t k = tlq_slice_at(t, e->start);
		if (k == SIZE_MAX)
			continue;
		*out = (tlq_slice_pos){i, k};
		found = 1;
		depth = t->depth;
	}
	return found;
}

ptrdiff_t
tlq_links(const tl_query *q, size_t ri, const tl_track *t, size_t idx, tl_link_dir dir,
          tlq_slice_pos **out, size_t *named)
{
	*out = NULL;
	if (named)
		*named = 0;
	const tl_trace *tr = tlq_trace(q);
	if (ri >= tr->nranks)
		return 0;
	const tl_rank *r = tr->ranks[ri];
	tl_link_end *e;
	ptrdiff_t n = load_slice_links(r, t, idx, dir, &e, tlq_link_index(q, ri));
	if (n <= 0) {
		free(e);
		return n;
	}
	for (ptrdiff_t i = 0; i < n; i++)
		if ((e[i].kinds >> TL_LANE_HOST) & 1u) {
			tlq_host_lanes(q); /* the ends' lanes, read once (t keeps its address) */
			break;
		}
	tlq_slice_pos *v = xreallocarray(NULL, (size_t)n, sizeof *v);
	size_t m = 0;
	for (ptrdiff_t i = 0; i < n; i++)
		if (tlq_link_find(r, &e[i], &v[m]))
			m++;
	free(e);
	if (named)
		*named = (size_t)n;
	*out = v;
	return (ptrdiff_t)m;
}

static void
need_fwdbwd(const tl_query *q, size_t ri)
{
	pthread_mutex_lock(&q->st->lock);
	load_fwdbwd(q->tr->ranks[ri]); /* once per source; only the pipeline reads the pairs */
	pthread_mutex_unlock(&q->st->lock);
}

/* The host operator (not a CANN call) that runs [s, e] on r. */
static int
find_op(const tl_rank *r, int64_t s, int64_t e, tlq_slice_pos *out)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN))
			continue;
		for (size_t k = track_first_starting_at(t, s); k < t->n && t->v[k].start == s; k++)
			if (track_end(t, k) == e) {
				*out = (tlq_slice_pos){i, k};
				return 1;
			}
	}
	return 0;
}

int
tlq_fwdbwd_partner(const tl_query *q, size_t ri, const tl_track *t, size_t idx, tlq_slice_pos *out,
                   const char **why)
{
	const char *dummy;
	if (why == NULL)
		why = &dummy;
	*why = "not a host operator";
	const tl_trace *tr = tlq_trace(q);
	if (ri >= tr->nranks || idx >= t->n || t->kind != TL_LANE_HOST ||
	    (t->key & TL_HOST_KEY_CANN))
		return 0;
	need_fwdbwd(q, ri);
	const tl_rank *r = tr->ranks[ri];
	const tl_slice *s = &t->v[idx];
	*why = r->nfwdbwd ? "the operator is in no forward/backward pair"
	                  : "the profile has no forward/backward operator pairs";
	for (size_t i = 0; i < r->nfwdbwd; i++) {
		const tl_fwdbwd *p = &r->fwdbwd[i];
		int fwd = p->fwd_start == s->start && p->fwd_end == slice_end(t, s);
		int bwd = p->bwd_start == s->start && p->bwd_end == slice_end(t, s);
		if (!fwd && !bwd)
			continue;
		if (find_op(r, fwd ? p->bwd_start : p->fwd_start, fwd ? p->bwd_end : p->fwd_end,
		            out))
			return 1;
		*why = "its partner is not on the host lanes";
	}
	return 0;
}

int
tlq_slice_flow_lines(const tl_rank *r, const tl_track *t, size_t idx,
                     void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	if (idx >= t->n || t->source >= r->nsources)
		return 0;
	if (source_has(r->sources[t->source], TL_FMT_OWN_LINKS))
		return 0; /* tlq_slice_links reads a DB's own links */
	char buf[400], d[32];
	int n = 0;
	const tl_slice *s = &t->v[idx];
	for (int dir = 0; dir < 2; dir++) {
		tl_link_end *e;
		ptrdiff_t ne = load_slice_links(r, t, idx, (tl_link_dir)dir, &e, NULL);
		tlq_slice_pos p[2];
		size_t np = 0;
		for (ptrdiff_t i = 0; i < ne && (dir == TL_LINK_KERNELS || np < 2); i++) {
			tlq_slice_pos x;
			if (!tlq_link_find(r, &e[i], &x))
				continue;
			if (dir == TL_LINK_LAUNCHER)
				p[np] = x;
			else if (np == 0)
				p[0] = x;
			np++;
		}
		free(e);
		if (np == 0)
			continue;
		const tl_slice *a = &r->tracks[p[0].track]->v[p[0].idx];
		if (dir == TL_LINK_LAUNCHER && t->kind != TL_LANE_HOST) {
			const char *call = strpool_get(r->pool, a->name);
			if (np > 1)
				snprintf(
				    buf, sizeof buf, "%s (operator), %s (launch call)",
				    strpool_get(r->pool, r->tracks[p[1].track]->v[p[1].idx].name),
				    call);
			else
				snprintf(buf, sizeof buf, "%s", call);
			fn(ctx, "launched by", buf);
			fn(ctx, "launch delay", timefmt_dur(s->start - a->start, d, sizeof d));
			n += 2;
		} else if (dir == TL_LINK_LAUNCHER) {
			fn(ctx, "called by", strpool_get(r->pool, a->name));
			n++;
		} else {
			snprintf(buf, sizeof buf, "%zu, the first %s after the call's start", np,
			         timefmt_dur(a->start - s->start, d, sizeof d));
			fn(ctx, "kernels", buf);
			n++;
		}
	}
	return n;
}
