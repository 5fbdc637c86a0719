/* One event of a JSON trace again, for the detail pane (its args, found through the source's
 * byte-offset index), and the args of many events at once (the HCCL lanes' hook,
 * trace_json_comm.c). */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "load/load_int.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void
emit_value(args_req *q, const char *key, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		q->fn(q->ctx, key, v->valuestring);
	} else {
		char *t = cJSON_PrintUnformatted(v);
		if (t == NULL)
			return;
		if (strlen(t) > 1024)
			strcpy(t + 1020, "...");
		q->fn(q->ctx, key, t);
		free(t);
	}
	q->fields++;
}

static void
args_event(jctx *c, const jevent *ev)
{
	args_req *q = c->req;
	if (ev->ordinal != q->want || q->fields >= 0)
		return;
	q->fields = 0;
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + ev->start, ev->end - ev->start);
	if (j == NULL) {
		q->fn(q->ctx, "arguments", "the event is not valid JSON");
		return;
	}
	static const char *const top[] = {"name", "cat", "ph", "ts", "dur", "pid", "tid", "id"};
	for (size_t k = 0; k < sizeof top / sizeof *top; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, top[k]);
		if (v != NULL)
			emit_value(q, top[k], v);
	}
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "args"), *m;
	/* a "Call stack" is shown frame by frame (the stack hook, json_stack.c), not as one line */
	if (cJSON_IsObject(a))
		cJSON_ArrayForEach(m,
		                   a) if (m->string != NULL && strcmp(m->string, "Call stack") != 0)
		    emit_value(q, m->string, m);
	cJSON_Delete(j);
}

/* The fields of the event with this ordinal (the slices' arg), found through the source's
 * event index: name, cat, ph, ts, dur, pid, tid, then each member of its args. Returns the
 * number of fields, -1 when the event cannot be read (fn then gets one "arguments" line saying
 * why). */
static int
event_args(const char *path, const json_state *ix, uint64_t ordinal, load_arg_fn fn, void *ctx)
{
	if (ix == NULL || ordinal / EVIDX_STEP >= ix->n) {
		fn(ctx, "arguments", "not indexed: the event cannot be found again");
		return -1;
	}
	uint64_t off = ix->off[ordinal / EVIDX_STEP];
	load_count_open();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fn(ctx, "arguments", strerror(errno));
		return -1;
	}
	json_in in;
	json_in_open(&in, fd);
	args_req q = {ordinal % EVIDX_STEP, fn, ctx, -1};
	/* "[" and the file from the indexed event on, in windows that grow until the event is
	 * in one (events are a few hundred bytes; a window ends mid-event quietly) */
	for (size_t win = (size_t)1 << 20; q.fields < 0 && win <= ((size_t)256 << 20); win *= 4) {
		unsigned char *buf = xmalloc(win + 1);
		buf[0] = '[';
		size_t got = json_in_pread(&in, off, buf + 1, win);
		jctx c;
		json_ctx_init(&c, path, NULL);
		c.b = buf;
		c.n = got + 1;
		c.pass = 3; /* no problems counted, no index */
		c.quiet = 1;
		c.fn = args_event;
		c.req = &q;
		json_walk_array(&c, 0);
		json_ctx_free(&c); /* frees buf */
		if (got < win)
			break; /* the end of the file: it is not there */
	}
	json_in_close(&in);
	if (q.fields < 0)
		fn(ctx, "arguments", "not found again: the file changed since tl loaded it?");
	return q.fields;
}

/* ---- many events again, in one pass per indexed block (the communication analysis) -------- */

static void
args_batch_event(jctx *c, const jevent *ev)
{
	args_batch *b = (args_batch *)c->req;
	while (b->next < b->nwant && b->want[b->next] < ev->ordinal)
		b->next++; /* not in the window: skipped */
	if (b->next >= b->nwant || b->want[b->next] != ev->ordinal)
		return;
	size_t i = b->base + b->next++;
	b->found++;
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + ev->start, ev->end - ev->start);
	const cJSON *a = j ? cJSON_GetObjectItemCaseSensitive(j, "args") : NULL, *m;
	if (cJSON_IsObject(a))
		cJSON_ArrayForEach(m, a)
		{
			if (m->string == NULL)
				continue;
			if (cJSON_IsString(m)) {
				b->fn(b->ctx, i, m->string, m->valuestring);
			} else if (cJSON_IsNumber(m)) {
				char t[64];
				/* whole numbers print as integers; inf, nan and magnitudes past
				 * 2^63 (where the cast is undefined) keep the %g form */
				double d = m->valuedouble;
				if (d >= -9.2e18 && d <= 9.2e18 && d == (double)(int64_t)d)
					snprintf(t, sizeof t, "%" PRId64, (int64_t)d);
				else
					snprintf(t, sizeof t, "%.17g", d);
				b->fn(b->ctx, i, m->string, t);
			}
		}
	cJSON_Delete(j);
}

int
trace_json_events_args(const tl_rank *r, size_t source, const uint64_t *ordinals, size_t n,
                       load_event_arg_fn fn, void *ctx)
{
	const json_state *ix = source < r->nsources ? rank_source_state(r, source) : NULL;
	if (ix == NULL)
		return -1;
	const char *path = r->sources[source]->path;
	load_count_open();
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	json_in in;
	json_in_open(&in, fd);
	size_t found = 0;
	uint64_t *rel = xmalloc((n ? n : 1) * sizeof *rel);
	for (size_t i = 0; i < n;) {
		uint64_t blk = ordinals[i] / EVIDX_STEP;
		size_t j = i;
		while (j < n && ordinals[j] / EVIDX_STEP == blk) {
			rel[j] = ordinals[j] % EVIDX_STEP;
			j++;
		}
		if (ix == NULL || blk >= ix->n) {
			i = j;
			continue;
		}
		uint64_t off = ix->off[blk];
		args_batch b = {.q = {0, NULL, NULL, -1},
		                .want = rel + i,
		                .nwant = j - i,
		                .base = i,
		                .fn = fn,
		                .ctx = ctx};
		/* as event_args: windows that grow until the last wanted event is in */
		for (size_t win = (size_t)1 << 20; b.found < b.nwant && win <= ((size_t)256 << 20);
		     win *= 4) {
			unsigned char *buf = xmalloc(win + 1);
			buf[0] = '[';
			size_t got = json_in_pread(&in, off, buf + 1, win);
			b.next = b.found = 0;
			jctx c;
			json_ctx_init(&c, path, NULL);
			c.b = buf;
			c.n = got + 1;
			c.pass = 3;
			c.quiet = 1;
			c.fn = args_batch_event;
			c.req = &b.q;
			json_walk_array(&c, 0);
			json_ctx_free(&c);
			if (got < win)
				break;
		}
		found += b.found;
		i = j;
	}
	free(rel);
	json_in_close(&in);
	return (int)(found > INT32_MAX ? INT32_MAX : found);
}

int
trace_json_args(const tl_rank *r, size_t si, const tl_track *t, size_t idx, load_arg_fn fn,
                void *ctx)
{
	/* a JSON slice's arg is its event's ordinal (the step lane's is a step index) */
	if (t->kind == TL_LANE_STEP) {
		/* msprof's Iteration steps: the event's args (Iteration ID, FP Start, BP End,
		 * Iteration End, Iteration Time), from whichever source gave the step */
		for (size_t k = 0; k < r->nsources; k++) {
			const json_state *st = rank_source_state(r, k);
			if (!source_has(r->sources[k], TL_FMT_PER_ITERATION) || st == NULL)
				continue;
			for (size_t i = 0; i < st->niters; i++) {
				if (st->iters[i].start != t->v[idx].start)
					continue;
				if (load_source_unchanged(r->sources[k], fn, ctx) != 0)
					return -1;
				return event_args(r->sources[k]->path, st, st->iters[i].ordinal, fn,
				                  ctx);
			}
		}
		return 0;
	}
	if (t->kind == TL_LANE_STAGE || t->kind == TL_LANE_OVERLAP ||
	    track_arg(t, idx) == UINT32_MAX)
		return 0;
	if (load_source_unchanged(r->sources[si], fn, ctx) != 0)
		return -1;
	return event_args(r->sources[si]->path, rank_source_state(r, si), track_arg(t, idx), fn,
	                  ctx);
}
