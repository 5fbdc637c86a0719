#include "config.h"
#include "query/session.h"
#include "util/parallel.h"
#include "query/host.h"
#include "query/links.h"
#include "load/load.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HOST: every rank's host lanes, read into the trace (so nothing to free here). */
static void
host_part_compute(const tl_query *q)
{
	for (size_t i = 0; i < q->tr->nranks; i++)
		load_host(q->tr->ranks[i]);
	if (q->o.lanes)
		tlq_lod_build(q); /* of the new lanes and of the tracks they grew */
}

TLQ_PART_DEFINE(HOST, host, host_part_compute, NULL);

void
tlq_host_lanes(const tl_query *q)
{
	tlq_need(q, &tlq_part_host);
}

void
tlq_host_lanes_rank(const tl_query *q, size_t ri)
{
	pthread_mutex_lock(&q->st->lock);
	if (!tlq_done_locked(q, &tlq_part_host) && ri < q->tr->nranks &&
	    !q->tr->ranks[ri]->host_read) {
		load_host(q->tr->ranks[ri]); /* once per rank: tlq_host_lanes skips it then */
		if (q->o.lanes)
			tlq_lod_build(q);
	}
	pthread_mutex_unlock(&q->st->lock);
}

size_t
tlq_launch_steps(const tl_rank *r, tl_launch_step **out)
{
	if (r->have_launch_steps) { /* gathered while loading */
		size_t n = r->nlaunch_steps;
		*out = NULL;
		if (n > 0) {
			*out = xreallocarray(NULL, n, sizeof **out);
			memcpy(*out, r->launch_steps, n * sizeof **out);
		}
		return n;
	}
	tl_launch *v;
	size_t n = load_launches(r, &v);
	size_t m = launch_steps(r, v, n, out);
	launch_steps_idle(r, v, n, *out, m);
	free(v);
	return m;
}

static void
launches_job(const tl_query *q, size_t i, void *arg)
{
	(void)arg;
	struct tlq_state *st = q->st;
	st->nlaunches[i] = load_launches(q->tr->ranks[i], &st->launches[i]);
	launch_sort_dev(st->launches[i], st->nlaunches[i]);
}

/* LAUNCHES: every rank's launches, read once per session (ranks in parallel), kept by device
 * start: a range's statistics ask again for every range. */
static void
launches_part_compute(const tl_query *q)
{
	struct tlq_state *st = q->st;
	size_t n = q->tr->nranks ? q->tr->nranks : 1;
	st->nranks_launches = q->tr->nranks;
	st->launches = xcalloc(n, sizeof *st->launches);
	st->nlaunches = xcalloc(n, sizeof *st->nlaunches);
	tlq_per_rank(q, launches_job, NULL);
}

static void
launches_part_free(struct tlq_state *st)
{
	for (size_t i = 0; st->launches != NULL && i < st->nranks_launches; i++)
		free(st->launches[i]);
	free(st->launches);
	free(st->nlaunches);
}

TLQ_PART_DEFINE(LAUNCHES, launches, launches_part_compute, launches_part_free);

int
tlq_host_idle(const tl_query *q, size_t ri, int64_t t0, int64_t t1, tl_host_idle *out)
{
	const struct tlq_state *st = q->st;
	out->idle = out->idle_host = 0;
	if (ri >= q->tr->nranks)
		return -1;
	tlq_need(q, &tlq_part_launches);
	if (st->nlaunches[ri] == 0)
		return -1;
	launch_idle(q->tr->ranks[ri], TL_NO_STEP, t0, t1, st->launches[ri], st->nlaunches[ri], out);
	return 0;
}

int
tlq_host_gaps(const tl_query *q, size_t ri, launch_step_fn step, launch_gap_fn fn, void *ctx)
{
	if (ri >= q->tr->nranks)
		return -1;
	const tl_rank *r = q->tr->ranks[ri];
	if (r->have_launch_steps) { /* gathered while loading */
		if (r->nlaunch_steps == 0)
			return -1;
		for (size_t i = 0; i < r->nlaunch_gaps; i++) {
			const tl_launch_gap *x = &r->launch_gaps[i];
			if (x->host == 0)
				step(ctx, x->step);
			else
				fn(ctx, x->start, x->end, x->host);
		}
		return 0;
	}
	tlq_need(q, &tlq_part_launches);
	const struct tlq_state *st = q->st;
	if (st->nlaunches[ri] == 0)
		return -1;
	launch_step_gaps(q->tr->ranks[ri], st->launches[ri], st->nlaunches[ri], step, fn, ctx);
	return 0;
}

typedef struct rank_job {
	const tl_trace *tr;
	void (*fn)(const tl_rank *, size_t, void *);
	void *ctx;
} rank_job;

static void
rank_item(void *arg, size_t i)
{
	rank_job *j = arg;
	j->fn(j->tr->ranks[i], i, j->ctx);
}

void
tlq_for_ranks(const tl_trace *tr, int threads, void (*fn)(const tl_rank *, size_t, void *),
              void *ctx)
{
	rank_job j = {tr, fn, ctx};
	parallel_for(tr->nranks, threads, rank_item, &j);
}

typedef struct launch_all {
	tl_launch_step **out;
	size_t *n;
} launch_all;

static void
launch_one(const tl_rank *r, size_t i, void *ctx)
{
	launch_all *a = ctx;
	a->n[i] = tlq_launch_steps(r, &a->out[i]);
}

void
tlq_launch_steps_all(const tl_query *q, int threads, tl_launch_step ***out, size_t **n)
{
	const tl_trace *tr = tlq_trace(q);
	size_t nr = tr->nranks ? tr->nranks : 1;
	launch_all a = {xcalloc(nr, sizeof **out), xcalloc(nr, sizeof **n)};
	tlq_for_ranks(tr, threads, launch_one, &a);
	*out = a.out;
	*n = a.n;
}

/* ---- host <-> device links: read by the source's loader ---- */

int
tlq_task_launcher(const tl_rank *r, const tl_track *t, size_t idx, tlq_launcher *out)
{
	return load_task_launcher(r, t, idx, out, NULL);
}

static int
cmp_kernel(const void *a, const void *b)
{
	const tlq_kernel *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->task_row > y->task_row) - (x->task_row < y->task_row);
}

static ptrdiff_t
op_kernels(const tl_rank *r, const tl_track *t, size_t idx, tlq_kernel **out,
           const tl_link_index *ix)
{
	ptrdiff_t n = load_op_kernels(r, t, idx, out, ix);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof **out, cmp_kernel);
	return n;
}

ptrdiff_t
tlq_op_kernels(const tl_rank *r, const tl_track *t, size_t idx, tlq_kernel **out)
{
	return op_kernels(r, t, idx, out, NULL);
}

ptrdiff_t
tlq_op_stack(const tl_rank *r, const tl_track *t, size_t idx, char ***out)
{
	return load_op_stack(r, t, idx, out);
}

const char *
tlq_frame_place(const char *frame, char *buf, size_t len)
{
	/* "file.py(42): function" -> "file.py:42" */
	const char *close = strstr(frame, "): ");
	const char *open = NULL;
	for (const char *p = frame; close != NULL && p < close; p++)
		if (*p == '(')
			open = p;
	if (open == NULL || open == frame || close - open < 2 ||
	    strspn(open + 1, "0123456789") != (size_t)(close - open - 1)) {
		snprintf(buf, len, "%s", frame);
		return buf;
	}
	const char *base = frame; /* the file's name: its directory is in the stack's lines */
	for (const char *p = frame; p < open; p++)
		if (*p == '/')
			base = p + 1;
	snprintf(buf, len, "%.*s:%.*s", (int)(open - base), base, (int)(close - open - 1),
	         open + 1);
	return buf;
}

static int
slice_links(const tl_rank *r, const tl_track *t, size_t idx, const tl_link_index *ix,
            void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	char buf[400], d[32];
	int n = 0;
	tlq_launcher l;
	if (load_task_launcher(r, t, idx, &l, ix) == 1) {
		/* the operator and where in the Python it was called: "aten::mm (model.py:42)",
		 * then its call stack, the way from a kernel to the code */
		char where[200] = "";
		if (l.have_op && l.op_nframes > 0)
			snprintf(where, sizeof where, " (%s)",
			         tlq_frame_place(l.op_frames[0], buf, sizeof buf));
		if (l.have_op)
			snprintf(buf, sizeof buf, "%s%s, %s (CANN)", l.op_name, where, l.cann_name);
		else
			snprintf(buf, sizeof buf, "%s (CANN)", l.cann_name);
		fn(ctx, "launched by", buf);
		fn(ctx, "launch delay", timefmt_dur(l.delay, d, sizeof d));
		n += 2;
		int shown = l.op_nframes < TL_LAUNCH_FRAMES ? l.op_nframes : TL_LAUNCH_FRAMES;
		for (int i = 0; i < shown; i++, n++)
			fn(ctx, i == 0 ? "stack" : "", l.op_frames[i]);
		if (l.op_nframes > shown) {
			snprintf(buf, sizeof buf,
			         "... %d more (u u: the operator, its whole stack)",
			         l.op_nframes - shown);
			fn(ctx, "", buf);
			n++;
		}
	}
	tlq_kernel *k;
	ptrdiff_t nk = op_kernels(r, t, idx, &k, ix);
	if (nk > 0) {
		snprintf(buf, sizeof buf, "%td, the first %s after the operator's start", nk,
		         timefmt_dur(k[0].start - t->v[idx].start, d, sizeof d));
		fn(ctx, "kernels", buf);
		n++;
	}
	free(k);
	char **fr;
	ptrdiff_t nf = tlq_op_stack(r, t, idx, &fr);
	for (ptrdiff_t i = 0; i < nf; i++) {
		fn(ctx, i == 0 ? "stack" : "", fr[i]);
		free(fr[i]);
		n++;
	}
	free(fr);
	return n;
}

int
tlq_slice_links(const tl_rank *r, const tl_track *t, size_t idx,
                void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	return slice_links(r, t, idx, NULL, fn, ctx);
}

int
tlq_slice_links_q(const tl_query *q, size_t ri, const tl_track *t, size_t idx,
                  void (*fn)(void *ctx, const char *key, const char *value), void *ctx)
{
	const tl_trace *tr = tlq_trace(q);
	if (ri >= tr->nranks)
		return 0;
	return slice_links(tr->ranks[ri], t, idx, tlq_link_index(q, ri), fn, ctx);
}
