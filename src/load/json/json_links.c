/* Host <-> device links of a Chrome-trace JSON: the launch flows with both ends. torch_npu's
 * trace_view.json draws a HostToDevice flow from the CANN launch call to the device task and
 * an async_npu flow from the PyTorch operator to the same task; Kineto an ac2g flow from the
 * runtime launch call (cudaLaunchKernel ...) to the kernel, the call nested in the operator
 * that made it on the same thread. Kept after loading (the source's state, and the model
 * cache), ends as (track key, time): the slices are found on the lanes when asked. */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "model/clock.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define KINDS_DEVICE                                                                               \
	((1u << TL_LANE_COMPUTE) | (1u << TL_LANE_COMM) | (1u << TL_LANE_COMM_TASK) |              \
	 (1u << TL_LANE_MEMCPY) | (1u << TL_LANE_MSTX_DEV) | (1u << TL_LANE_OTHER))

/* Room for need links in c->links. The links are up to 30 MB of a load's fresh memory, grown
 * once or twice, each time to what the flows' ends or the correlations can give at most: in
 * huge pages but for their last 2 MiB, none of them partly used. */
static void
links_reserve(jctx *c, size_t need)
{
	if (need <= c->linkcap)
		return;
	if (need > SIZE_MAX / sizeof *c->links)
		xalloc_fail(SIZE_MAX);
	c->links = xhuge_resize(c->links, c->linkcap * sizeof *c->links, need * sizeof *c->links);
	c->linkcap = need;
}

void
json_links_build(jctx *c)
{
	links_reserve(c, c->nfend);
	for (size_t i = 0; i < c->nfend; i++) {
		const flow_end *fe = &c->fend[i];
		uint32_t fid = fe->x;
		int cat = c->fcat[fid];
		int64_t s = c->fstart[fid];
		uint32_t st = c->fsthr[fid];
		/* a flow with one end (Kineto writes ac2g ends whose start it dropped) links
		 * nothing */
		if (s == FLOW_NONE || st >= c->nthreads || fe->thread >= c->nthreads ||
		    s > INT64_MAX - c->base_ns || fe->ts > INT64_MAX - c->base_ns ||
		    !tl_time_ok(s + c->base_ns) || !tl_time_ok(fe->ts + c->base_ns))
			continue;
		json_link l = {s + c->base_ns, fe->ts + c->base_ns, c->threads[st].key,
		               c->threads[fe->thread].key, cat};
		c->links[c->nlinks++] = l;
		c->have_ac2g |= cat == FLOW_AC2G;
	}
}

/* ---- Kineto's correlation ids ------------------------------------------------------------- */

struct json_corr {
	int64_t corr, key, ts;
};

void
json_links_corr(jctx *c, const jevent *ev, const jthread *t, int64_t start, int dev)
{
	int64_t corr;
	if (!json_event_corr(c, ev, &corr))
		return;
	struct json_corr x = {corr, t->key, start};
	if (dev)
		VEC_PUSH(c->corr_d, c->ncorr_d, c->corr_dcap, x);
	else
		VEC_PUSH(c->corr_h, c->ncorr_h, c->corr_hcap, x);
}

static int
cmp_corr(const void *a, const void *b)
{
	const struct json_corr *x = a, *y = b;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

void
json_links_correlate(jctx *c)
{
	if (!c->have_ac2g && c->ncorr_h > 0 && c->ncorr_d > 0) {
		qsort(c->corr_h, c->ncorr_h, sizeof *c->corr_h, cmp_corr);
		qsort(c->corr_d, c->ncorr_d, sizeof *c->corr_d, cmp_corr);
		size_t i = 0;
		links_reserve(c, c->nlinks + c->ncorr_d);
		/* a correlation is one launch: its call (the first, should a trace repeat it) and
		 * every device event it names */
		for (size_t k = 0; k < c->ncorr_d; k++) {
			const struct json_corr *d = &c->corr_d[k];
			while (i < c->ncorr_h && c->corr_h[i].corr < d->corr)
				i++;
			if (i == c->ncorr_h || c->corr_h[i].corr != d->corr)
				continue;
			const struct json_corr *h = &c->corr_h[i];
			json_link l = {h->ts, d->ts, h->key, d->key, FLOW_AC2G};
			c->links[c->nlinks++] = l;
		}
	}
	free(c->corr_h);
	free(c->corr_d);
	c->corr_h = c->corr_d = NULL;
	c->ncorr_h = c->ncorr_d = c->corr_hcap = c->corr_dcap = 0;
}

static int
cmp_by_host(const void *a, const void *b)
{
	const json_link *x = a, *y = b;
	if (x->s_key != y->s_key)
		return x->s_key < y->s_key ? -1 : 1;
	if (x->s_ts != y->s_ts)
		return x->s_ts < y->s_ts ? -1 : 1;
	return (x->f_ts > y->f_ts) - (x->f_ts < y->f_ts);
}

static int
cmp_by_dev(const void *a, const void *b)
{
	const json_link *x = a, *y = b;
	if (x->f_key != y->f_key)
		return x->f_key < y->f_key ? -1 : 1;
	if (x->f_ts != y->f_ts)
		return x->f_ts < y->f_ts ? -1 : 1;
	return (x->cat > y->cat) - (x->cat < y->cat);
}

static int64_t
host_key(const void *a)
{
	return ((const json_link *)a)->s_key;
}

static int64_t
dev_key(const void *a)
{
	return ((const json_link *)a)->f_key;
}

static void
links_arr_free(json_state *st, json_link *p)
{
	if (p != NULL && p == st->map) {
		xhuge_free(p, st->mapn * sizeof *p);
		st->map = NULL;
	} else {
		free(p);
	}
}

void
json_links_give(jctx *c, json_state *st)
{
	if (c->links != NULL) /* the room beyond them given back */
		c->links = xhuge_resize(c->links, c->linkcap * sizeof *c->links,
		                        c->nlinks * sizeof *c->links);
	st->links = st->map = c->links;
	st->nlinks = st->mapn = c->nlinks;
	c->links = NULL;
	c->nlinks = c->linkcap = 0;
}

void
json_links_free(json_state *st)
{
	if (st->by_dev != st->links) /* one array when both orders are one */
		links_arr_free(st, st->by_dev);
	links_arr_free(st, st->links);
	st->links = st->by_dev = NULL;
	st->nlinks = 0;
}

void
json_links_index(json_state *st)
{
	if (st->by_dev != st->links)
		links_arr_free(st, st->by_dev);
	st->by_dev = NULL;
	if (st->nlinks == 0)
		return;
	/* a few threads each way, their links mostly in time order already. Both ways at once
	 * (one launching thread, one stream: the bench's Kineto and trace_view.json): one array
	 * for both. Else by device end as they come (the flows' ends in file order), sorted in
	 * place, mostly for nothing; by launch a copy, a group's runs merged at once when few */
	size_t n = st->nlinks, sz = sizeof *st->links;
	if (sort_in_order(st->links, n, sz, cmp_by_host) &&
	    sort_in_order(st->links, n, sz, cmp_by_dev)) {
		st->by_dev = st->links;
		return;
	}
	json_link *host = xreallocarray(NULL, n, sz);
	sort_grouped_copy(host, st->links, n, sz, host_key, cmp_by_host);
	sort_grouped(st->links, n, sz, dev_key, cmp_by_dev);
	st->by_dev = st->links;
	st->links = host;
}

/* First link of v (sorted by key, then time) at or after (key, ts). */
static size_t
lower(const json_link *v, size_t n, int64_t key, int64_t ts, int dev)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t k = dev ? v[mid].f_key : v[mid].s_key, t = dev ? v[mid].f_ts : v[mid].s_ts;
		if (k < key || (k == key && t < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The innermost slice of a host lane of key `key` containing t, of depth below `below`
 * (UINT16_MAX: any): 1 with its track and index. */
static int
host_at(const tl_rank *r, size_t si, int64_t key, int64_t t, unsigned below, const tl_track **ot,
        size_t *oi)
{
	int found = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *x = r->tracks[i];
		if (x->kind != TL_LANE_HOST || x->key != key || x->source != si ||
		    x->depth >= below || (found && x->depth <= (*ot)->depth))
			continue;
		size_t k = track_first_ending_after(x, t);
		if (k < x->n && x->v[k].start <= t) {
			*ot = x;
			*oi = k;
			found = 1;
		}
	}
	return found;
}

/* The slice a flow end at t on host lane key binds to, as the query layer finds it: the deepest
 * slice starting at t, else the innermost one containing t. */
static int
bound_slice(const tl_rank *r, size_t si, int64_t key, int64_t t, const tl_track **ot, size_t *oi)
{
	int found = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *x = r->tracks[i];
		if (x->kind != TL_LANE_HOST || x->key != key || x->source != si ||
		    (found && x->depth <= (*ot)->depth))
			continue;
		size_t k = track_first_starting_at(x, t);
		if (k < x->n && x->v[k].start == t) {
			*ot = x;
			*oi = k;
			found = 1;
		}
	}
	return found || host_at(r, si, key, t, UINT16_MAX, ot, oi);
}

static tl_link_end
host_end(size_t si, int64_t key, int64_t start, uint32_t arg)
{
	return (tl_link_end){.kinds = 1u << TL_LANE_HOST,
	                     .source = (uint16_t)si,
	                     .cann = -1,
	                     .within = arg == UINT32_MAX,
	                     .arg = arg,
	                     .key = key,
	                     .start = start};
}

/* Kineto: the operator around a runtime call is the slice enclosing it on its thread. */
static int
enclosing_op(const tl_rank *r, size_t si, int64_t key, int64_t t, tl_link_end *out)
{
	const tl_track *ct, *ot;
	size_t ci, oi;
	if (!host_at(r, si, key, t, UINT16_MAX, &ct, &ci) ||
	    !host_at(r, si, key, t, ct->depth, &ot, &oi))
		return 0;
	*out = host_end(si, key, ot->v[oi].start, track_arg(ot, oi));
	return 1;
}

static int
cmp_end(const void *a, const void *b)
{
	const tl_link_end *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

ptrdiff_t
trace_json_links(const tl_rank *r, size_t si, const tl_track *t, size_t idx, tl_link_dir dir,
                 tl_link_end **out, const void *ix)
{
	(void)ix; /* the links are in memory, sorted both ways (json_links_index) */
	*out = NULL;
	const json_state *st = rank_source_state(r, si);
	if (st == NULL || st->nlinks == 0)
		return 0;
	/* the slice on its file's clock, as the links are (model/clock.h) */
	const tl_item raw = {clock_unmap(&r->clock, t->v[idx].start),
	                     clock_unmap(&r->clock, track_end(t, idx)), t->v[idx].name,
	                     track_arg(t, idx)};
	const tl_item *s = &raw;
	tl_link_end *v = NULL;
	size_t n = 0, cap = 0;
	int host = t->kind == TL_LANE_HOST, dev = ((KINDS_DEVICE >> t->kind) & 1u) != 0;
	if (dir == TL_LINK_LAUNCHER && dev) {
		/* the flows ending at the task's start: the launch call first, then the operator */
		const json_link *call = NULL, *op = NULL;
		for (size_t k = lower(st->by_dev, st->nlinks, t->key, s->start, 1);
		     k < st->nlinks && st->by_dev[k].f_key == t->key &&
		     st->by_dev[k].f_ts <= (s->end > s->start ? s->end - 1 : s->start);
		     k++) {
			const json_link *l = &st->by_dev[k];
			if (l->cat == FLOW_ASYNC_NPU) {
				if (op == NULL)
					op = l;
			} else if (call == NULL)
				call = l;
		}
		tl_link_end e;
		if (call != NULL) {
			e = host_end(si, call->s_key, call->s_ts, UINT32_MAX);
			VEC_PUSH(v, n, cap, e);
		}
		if (op != NULL) {
			e = host_end(si, op->s_key, op->s_ts, UINT32_MAX);
			VEC_PUSH(v, n, cap, e);
		} else if (call != NULL && call->cat == FLOW_AC2G &&
		           enclosing_op(r, si, call->s_key, call->s_ts, &e))
			VEC_PUSH(v, n, cap, e);
	} else if (dir == TL_LINK_LAUNCHER && host) {
		/* a launch call's operator: the async_npu flow to the same task (torch_npu), else
		 * the slice around the call (Kineto) */
		const json_link *l = NULL;
		for (size_t k = lower(st->links, st->nlinks, t->key, s->start, 0);
		     l == NULL && k < st->nlinks && st->links[k].s_key == t->key &&
		     st->links[k].s_ts <= s->end;
		     k++) {
			const tl_track *bt;
			size_t bi;
			/* a flow of this call, not of a call nested in it */
			if (st->links[k].cat != FLOW_ASYNC_NPU &&
			    bound_slice(r, si, t->key, st->links[k].s_ts, &bt, &bi) && bt == t &&
			    bi == idx)
				l = &st->links[k];
		}
		if (l != NULL) {
			tl_link_end e;
			size_t j = lower(st->by_dev, st->nlinks, l->f_key, l->f_ts, 1);
			for (; j < st->nlinks && st->by_dev[j].f_key == l->f_key &&
			       st->by_dev[j].f_ts == l->f_ts;
			     j++)
				if (st->by_dev[j].cat == FLOW_ASYNC_NPU) {
					e = host_end(si, st->by_dev[j].s_key, st->by_dev[j].s_ts,
					             UINT32_MAX);
					VEC_PUSH(v, n, cap, e);
					break;
				}
			if (n == 0 && l->cat == FLOW_AC2G &&
			    enclosing_op(r, si, t->key, l->s_ts, &e))
				VEC_PUSH(v, n, cap, e);
		}
	} else if (dir == TL_LINK_KERNELS && host) {
		/* the device ends of the flows that start inside the call or operator on its
		 * thread (an operator's own flows and those of the calls nested in it) */
		int op_flows = 0;
		size_t k0 = lower(st->links, st->nlinks, t->key, s->start, 0);
		for (size_t k = k0;
		     k < st->nlinks && st->links[k].s_key == t->key && st->links[k].s_ts <= s->end;
		     k++)
			op_flows |= st->links[k].cat == FLOW_ASYNC_NPU;
		for (size_t k = k0;
		     k < st->nlinks && st->links[k].s_key == t->key && st->links[k].s_ts <= s->end;
		     k++) {
			const json_link *l = &st->links[k];
			if (op_flows && l->cat != FLOW_ASYNC_NPU)
				continue; /* one flow per task */
			tl_link_end e = {.kinds = KINDS_DEVICE,
			                 .source = (uint16_t)si,
			                 .cann = -1,
			                 .within = 1,
			                 .arg = UINT32_MAX,
			                 .key = l->f_key,
			                 .start = l->f_ts};
			VEC_PUSH(v, n, cap, e);
		}
		if (n > 1)
			qsort(v, n, sizeof *v, cmp_end);
	}
	*out = v;
	return (ptrdiff_t)n;
}

/* ---- launches ------------------------------------------------------------------------------ */

/* The device slice of a compute or communication lane of key `key` at t (a flow's device end):
 * 1 with its track and index in *ot, *oi, or 0. lane[0 .. nlane) are the source's compute and
 * communication tracks, in the rank's order. The links come by launch, and a lane's launches in
 * its order, mostly: each lane's search starts where its last one ended (cur, one per track). */
static int
work_at(const tl_rank *r, const size_t *lane, size_t nlane, int64_t key, int64_t t, size_t *cur,
        const tl_track **ot, size_t *oi)
{
	for (size_t j = 0; j < nlane; j++) {
		size_t i = lane[j];
		const tl_track *x = r->tracks[i];
		if (x->key != key)
			continue;
		size_t k = cur[i] = track_first_ending_after_from(x, t, cur[i]);
		if (k < x->n && x->v[k].start <= t) {
			*ot = x;
			*oi = k;
			return 1;
		}
	}
	return 0;
}

void
trace_json_launches(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n, size_t *cap)
{
	size_t si = 0;
	while (si < r->nsources && r->sources[si] != src)
		si++;
	const json_state *st = si < r->nsources ? rank_source_state(r, si) : NULL;
	if (st == NULL)
		return;
	/* one launch per launch call (its flows start at the same host time on one thread), as a
	 * DB has one per CANN_API connectionId: the first of its compute or communication tasks
	 * is where the device started the work (memcpy and event tasks are neither) */
	size_t *cur = xcalloc(r->ntracks + 1, sizeof *cur),
	       *lane = xcalloc(r->ntracks + 1, sizeof *lane), nlane = 0;
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *x = r->tracks[i];
		if ((x->kind == TL_LANE_COMPUTE || x->kind == TL_LANE_COMM) && x->source == si)
			lane[nlane++] = i;
	}
	for (size_t i = 0; i < st->nlinks;) {
		const json_link *l = &st->links[i];
		size_t k = i;
		int64_t dev = INT64_MAX;
		for (; k < st->nlinks && st->links[k].s_key == l->s_key &&
		       st->links[k].s_ts == l->s_ts;
		     k++) {
			const json_link *x = &st->links[k];
			if (x->cat == FLOW_ASYNC_NPU)
				continue;
			const tl_track *wt;
			size_t wi;
			if (work_at(r, lane, nlane, x->f_key, x->f_ts, cur, &wt, &wi) &&
			    wt->v[wi].start < dev)
				dev = wt->v[wi].start;
		}
		if (dev != INT64_MAX) {
			tl_launch x = {l->s_ts, dev};
			VEC_PUSH(*v, *n, *cap, x);
		}
		i = k;
	}
	free(lane);
	free(cur);
}
