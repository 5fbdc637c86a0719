/* Chrome-trace JSON loader: Ascend trace_view.json / msprof_*.json (torch_npu and msprof text
 * export), PyTorch profiler (Kineto) traces and the legacy
 * PyTorch exporter array.
 *
 * Streaming, with memory bounded by the model: the file is mapped read-only and a small scanner
 * finds the byte bounds of one event object at a time (strings, escapes, nesting, UTF-8) and
 * notes where its members are; an event's content is then taken from those bounds alone, never
 * from one tree of the whole file: cJSON parses the objects read as trees (metadata, MsprofTx
 * args, distributedInfo) and every string with escapes, while the few scalar members of a
 * device task are read straight from the bytes of its "args" (millions of them: no tree each),
 * and all times and ids with an exact decimal parser. Pages already walked are given back to
 * the kernel as the scan moves on; on big inputs the scan runs in a thread of its own, ahead of
 * the one handling the events. Two walks over the mapping:
 *   1. names: process_name / thread_name metadata (tracks are identified by these, never by pid
 *      numbers; metadata may follow the events that use a pid), ProfilerStep#N ranges, HCCL
 *      sub-task keys, Kineto's root fields, and the launch flows (HostToDevice, ac2g): with two
 *      or more steps, the device slice a flow ends on belongs to the step in which it was
 *      launched, like the DB loader's CANN_API connectionId join;
 *   2. slices.
 * Bad input is reported once per kind of problem, after the walks.
 * Times: `ts` and `dur` are decimal microseconds (a string in Ascend files, an integer or a
 * float in Kineto ones) and are parsed as decimals straight into integer ns, never through a
 * double: 1.7e15 µs with three decimals needs more than the 53 bits a double has. */
#include "config.h"
#include "load/trace_json_int.h"
#include "load/load_int.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/strpool.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the loader's state -------------------------------------------------------------------- */

static void
json_state_free(void *p)
{
	json_state *st = p;
	if (st != NULL) {
		free(st->off);
		free(st->links);
		free(st->by_dev);
	}
	free(st);
}

/* Each event is judged once: the scanner's findings and flows in walk 1, slices in walk 2. A
 * negative pr counts nothing. */
void
json_problem(jctx *c, int pr, size_t off)
{
	if (pr < 0 || c->quiet)
		return;
	if (c->problems[pr]++ == 0 || off < c->problem_off[pr])
		c->problem_off[pr] = off;
}

/* The raw bytes of a field, without the quotes of a string. */
const char *
json_span_text(const jctx *c, jspan s, size_t *len)
{
	const char *p = (const char *)c->b + s.off;
	*len = s.len;
	if (s.len >= 2 && p[0] == '"') {
		*len = s.len - 2;
		return p + 1;
	}
	return p;
}

int
json_span_is_string(const jctx *c, jspan s)
{
	return s.len >= 2 && c->b[s.off] == '"';
}

/* Does the field hold exactly the string `want` (of wn bytes)? (Escaped spellings do not
 * count.) span_eq / span_starts take a string literal. */
int
json_span_eq_n(const jctx *c, jspan s, const char *want, size_t wn)
{
	size_t n;
	const char *t = json_span_text(c, s, &n);
	return json_span_is_string(c, s) && n == wn && memcmp(t, want, n) == 0;
}

int
json_span_starts_n(const jctx *c, jspan s, const char *want, size_t wn)
{
	size_t n;
	const char *t = json_span_text(c, s, &n);
	return json_span_is_string(c, s) && n >= wn && memcmp(t, want, wn) == 0;
}

char
json_event_phase(const jctx *c, const jevent *ev)
{
	size_t n;
	const char *t = json_span_text(c, ev->f[F_PH], &n);
	return json_span_is_string(c, ev->f[F_PH]) && n == 1 ? t[0] : 0;
}

/* ts and dur of an event, in ns on the profile clock. Returns -1 when the event cannot be used
 * (a problem is noted when `count`). */
int
json_event_time(jctx *c, const jevent *ev, int need_dur, int count, int64_t *start, int64_t *dur)
{
	jspan s = ev->f[F_TS];
	size_t n;
	const char *t;
	int64_t v;
	if (s.len == 0) {
		json_problem(c, count ? PR_NO_TS : -1, ev->start);
		return -1;
	}
	t = json_span_text(c, s, &n);
	switch (json_dec_parse(t, n, 3, &v)) {
	case DEC_NAN:
		json_problem(c, count ? PR_TS_NAN : -1, s.off);
		return -1;
	case DEC_RANGE:
		json_problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	/* walk 1 may meet baseTimeNanoseconds only after the events: its times get it later */
	int64_t base = c->pass == 1 ? 0 : c->base_ns;
	if ((base > 0 && v > INT64_MAX - base) || (base < 0 && v < INT64_MIN - base)) {
		json_problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	*start = v + base;
	if (!tl_time_ok(*start)) { /* the model's range: any two times' difference fits */
		json_problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	if (!need_dur)
		return 0;
	s = ev->f[F_DUR];
	t = json_span_text(c, s, &n);
	if (s.len == 0 || json_dec_parse(t, n, 3, &v) != DEC_OK || v < 0 ||
	    *start > TL_TIME_MAX - v) {
		json_problem(c, count ? PR_DUR : -1, s.len ? s.off : ev->start);
		return -1;
	}
	*dur = v;
	return 0;
}

/* ---- open and load ------------------------------------------------------------------------- */

static int
input_open(jctx *c)
{
	load_count_open();
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		msg_warn(c->path, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		msg_warn(c->path, "not a regular file");
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
		msg_warn(c->path, "too large for this system's address space");
		close(fd);
		return -1;
	}
	c->n = (size_t)st.st_size;
	c->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	if (c->n == 0) {
		close(fd);
		c->b = (const unsigned char *)"";
		return 0;
	}
	/* TL_JSON_NO_MMAP: read into a buffer of the exact size, so that AddressSanitizer and
	 * valgrind see every byte the scanner and cJSON touch (tests) */
	const char *nomap = getenv("TL_JSON_NO_MMAP");
	void *m = nomap && *nomap && *nomap != '0'
	              ? MAP_FAILED
	              : mmap(NULL, c->n, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m != MAP_FAILED) {
		madvise(m, c->n, MADV_SEQUENTIAL);
		c->b = m;
		c->mapped = 1;
		close(fd);
		return 0;
	}
	unsigned char *buf = xmalloc(c->n);
	size_t got = 0;
	while (got < c->n) {
		ssize_t k = read(fd, buf + got,
		                 c->n - got > ((size_t)1 << 30) ? (size_t)1 << 30 : c->n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			msg_warn(c->path, "cannot read: %s",
			         k < 0 ? strerror(errno) : "file shrank");
			free(buf);
			close(fd);
			return -1;
		}
		got += (size_t)k;
	}
	close(fd);
	c->b = buf;
	return 0;
}

static void
ctx_init(jctx *c, const char *path, tl_rank *r)
{
	json_tables_init();
	memset(c, 0, sizeof *c);
	c->path = path;
	c->r = r;
	c->tok = strpool_new();
	c->dist_rank = -1;
	u64map_init(&c->proc_map);
	u64map_init(&c->thread_map);
	u64map_init(&c->planes);
}

static void
ctx_free(jctx *c)
{
	if (c->b != NULL && c->n > 0) {
		if (c->mapped)
			munmap((void *)c->b, c->n);
		else
			free((void *)c->b);
	}
	free(c->evidx);
	for (size_t i = 0; i < c->nthreads; i++)
		free(c->threads[i].open);
	free(c->threads);
	free(c->procs);
	u64map_free(&c->proc_map);
	u64map_free(&c->thread_map);
	u64map_free(&c->planes);
	strpool_free(c->tok);
	if (c->flows != NULL) {
		strpool_free(c->flows);
		u64map_free(&c->flow_text);
	}
	free(c->ftab);
	free(c->fkey);
	free(c->fstart);
	free(c->fsthr);
	free(c->fcat);
	free(c->links);
	free(c->corr_h);
	free(c->corr_d);
	free(c->fend);
	free(c->fbe);
	free(c->fbp);
	free(c->fbk);
	free(c->mxe);
	free(c->mxp);
	free(c->mxk);
	free(c->cand);
	free(c->steps);
	free(c->doms);
	free(c->sbuf);
	for (int k = 0; k < 4; k++)
		free(c->oa[k].v);
}

/* One line per kind of problem: where the first one is and how many there were. */
static void
problems_report(jctx *c)
{
	for (int k = 0; k < PR__N; k++)
		if (c->problems[k])
			msg_warn(c->path, "byte %zu: %s; %" PRIu64 " such element%s skipped",
			         c->problem_off[k], json_problem_text[k], c->problems[k],
			         c->problems[k] == 1 ? "" : "s");
}

/* The rank in a file name: rank-3, rank_3, rank3 (the last one), else -1. */
static int
rank_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	int rank = -1;
	base = base ? base + 1 : path;
	for (const char *p = base; (p = strstr(p, "rank")) != NULL; p += 4) {
		const char *q = p + 4;
		if (*q == '-' || *q == '_')
			q++;
		if (*q < '0' || *q > '9')
			continue;
		long v = 0;
		for (; *q >= '0' && *q <= '9' && v < 1000000; q++)
			v = v * 10 + (*q - '0');
		if (v < 1000000)
			rank = (int)v;
	}
	return rank;
}

/* Walk 1 and what follows from it. Returns -1 when the file is not a trace. */
static int
names_pass(jctx *c)
{
	if (input_open(c) != 0)
		return -1;
	if (json_walk(c, 1, json_names_event) != WALK_OK) {
		if (c->shrank && !c->quiet)
			msg_warn(c->path, "the file shrank while tl was reading it (truncated or "
			                  "rewritten by another program); skipped");
		problems_report(c);
		return -1;
	}
	json_threads_resolve(c);
	json_steps_build(c);
	json_links_build(c);
	json_launches_build(c);
	json_fwdbwd_build(c);
	json_mstx_links_build(c);
	return 0;
}

static int
trace_json_load(const tl_source *src, tl_rank *r, tl_gather *g)
{
	(void)g; /* no operator tables; its launches are gathered from the finished rank */
	jctx c;
	ctx_init(&c, src->path, r);
	int rc = -1;
	size_t nsteps_before = r->nsteps;
	if (names_pass(&c) != 0)
		goto done;
	if (r->rank < 0)
		r->rank = c.dist_rank >= 0 ? c.dist_rank : rank_from_name(src->path);
	c.s_default = strpool_intern_cstr(r->pool, "default");
	c.s_record_function = strpool_intern_cstr(r->pool, "record_function");
	json_walk(&c, 2, json_slice_event);
	json_unpaired_report(&c);
	json_counters_finish(&c);
	json_links_correlate(&c);
	if ((c.nevidx > 0 || c.nlinks > 0) && r->nsources > 0) { /* (the loader's source is
		                                                       r's last) */
		json_state *st = xcalloc(1, sizeof *st);
		st->off = c.evidx;
		st->n = c.nevidx;
		st->links = c.links;
		st->nlinks = c.nlinks;
		json_links_index(st);
		rank_set_source_state(r, r->nsources - 1, st, json_state_free);
		c.evidx = NULL;
		c.links = NULL;
		c.nlinks = 0;
	}
	if (c.shrank)
		msg_warn(src->path,
		         "the file shrank while tl was reading it (truncated or rewritten by "
		         "another program); keeping the %" PRIu64 " slices read before",
		         c.slices);
	json_fwdbwd_finish(&c);
	json_mstx_links_finish(&c);
	problems_report(&c);
	msg_progress_add(0, c.slices - c.rows_reported);
	r->rows += c.events;
	/* a CPU-only trace: the summary says so instead of printing zeros for computing */
	int dev_before = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		dev_before |=
		    r->tracks[i]->kind != TL_LANE_HOST && r->tracks[i]->kind != TL_LANE_MSTX &&
		    r->tracks[i]->kind != TL_LANE_COMM && r->tracks[i]->kind != TL_LANE_STEP;
	r->host_only = c.slices > 0 && c.device_slices == 0 && (r->host_only || !dev_before);
	rc = c.slices > 0 || r->nsteps > nsteps_before ? 0 : -1;
	if (rc != 0 && !c.damaged && !c.shrank)
		msg_warn(src->path, "no slices found (empty trace?)");
done:
	ctx_free(&c);
	return rc;
}

/* ---- Overlap Analysis cross-check ----------------------------------------------------------- */

static void
overlap_event(jctx *c, const jevent *ev)
{
	int64_t start, dur;
	if (ev->bad >= 0 || json_event_phase(c, ev) != 'X')
		return;
	uint32_t ti = json_thread_of(c, ev); /* may move c->threads */
	jthread *t = &c->threads[ti];
	if (t->kind != T_OVERLAP || json_event_time(c, ev, 1, 0, &start, &dur) != 0)
		return;
	static const char *const names[4] = {"Computing", "Communication",
	                                     "Communication(Not Overlapped)", "Free"};
	const char *tn = json_tok_str(c, t->name);
	for (int k = 0; k < 4; k++)
		if (strcmp(tn, names[k]) == 0) {
			VEC_RESERVE(c->oa[k].v, c->oa[k].cap, c->oa[k].n + 2);
			c->oa[k].v[c->oa[k].n++] = start;
			c->oa[k].v[c->oa[k].n++] = start + dur;
		}
}

static int
cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

int
trace_json_overlap_lengths(const char *path, int64_t ns[4])
{
	jctx c;
	tl_rank *r = rank_new(-1);
	int found = 0;
	ctx_init(&c, path, r);
	c.quiet = 1; /* the load reports the file's problems */
	for (int k = 0; k < 4; k++)
		ns[k] = 0;
	if (names_pass(&c) == 0) {
		json_walk(&c, 2, overlap_event);
		for (int k = 0; k < 4; k++) {
			size_t m = c.oa[k].n / 2;
			int64_t *v = c.oa[k].v, cs = 0, ce = INT64_MIN;
			found |= m > 0;
			if (m > 1)
				qsort(v, m, 2 * sizeof *v, cmp_pair);
			for (size_t i = 0; i < m; i++) {
				if (v[2 * i] > ce) {
					if (ce > cs)
						ns[k] += ce - cs;
					cs = v[2 * i];
					ce = v[2 * i + 1];
				} else if (v[2 * i + 1] > ce) {
					ce = v[2 * i + 1];
				}
			}
			if (m > 0 && ce > cs)
				ns[k] += ce - cs;
		}
	}
	ctx_free(&c);
	rank_free(r);
	return found ? 0 : -1;
}

/* ---- one event again, for the detail pane ---------------------------------------------------- */

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
	args_req q = {ordinal % EVIDX_STEP, fn, ctx, -1};
	/* "[" and the file from the indexed event on, in windows that grow until the event is
	 * in one (events are a few hundred bytes; a window ends mid-event quietly) */
	for (size_t win = (size_t)1 << 20; q.fields < 0 && win <= ((size_t)256 << 20); win *= 4) {
		unsigned char *buf = xmalloc(win + 1);
		buf[0] = '[';
		size_t got = 0;
		while (got < win) {
			ssize_t k = pread(fd, buf + 1 + got, win - got, (off_t)(off + got));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		jctx c;
		ctx_init(&c, path, NULL);
		c.b = buf;
		c.n = got + 1;
		c.pass = 3; /* no problems counted, no index */
		c.quiet = 1;
		c.fn = args_event;
		c.req = &q;
		json_walk_array(&c, 0);
		ctx_free(&c); /* frees buf */
		if (got < win)
			break; /* the end of the file: it is not there */
	}
	close(fd);
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
				if (m->valuedouble == (double)(int64_t)m->valuedouble)
					snprintf(t, sizeof t, "%" PRId64, (int64_t)m->valuedouble);
				else
					snprintf(t, sizeof t, "%.17g", m->valuedouble);
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
			size_t got = 0;
			while (got < win) {
				ssize_t k = pread(fd, buf + 1 + got, win - got, (off_t)(off + got));
				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0)
					break;
				got += (size_t)k;
			}
			b.next = b.found = 0;
			jctx c;
			ctx_init(&c, path, NULL);
			c.b = buf;
			c.n = got + 1;
			c.pass = 3;
			c.quiet = 1;
			c.fn = args_batch_event;
			c.req = &b.q;
			json_walk_array(&c, 0);
			ctx_free(&c);
			if (got < win)
				break;
		}
		found += b.found;
		i = j;
	}
	free(rel);
	close(fd);
	return (int)(found > INT32_MAX ? INT32_MAX : found);
}

static int
trace_json_args(const tl_rank *r, size_t si, const tl_track *t, size_t idx, load_arg_fn fn,
                void *ctx)
{
	/* a JSON slice's arg is its event's ordinal (the step lane's is a step index) */
	if (t->kind == TL_LANE_STEP || t->kind == TL_LANE_STAGE || t->kind == TL_LANE_OVERLAP ||
	    t->v[idx].arg == UINT32_MAX)
		return 0;
	if (load_source_unchanged(r->sources[si], fn, ctx) != 0)
		return -1;
	return event_args(r->sources[si]->path, rank_source_state(r, si), t->v[idx].arg, fn, ctx);
}

static uint64_t
trace_json_estimate(const tl_source *src, int view)
{
	return (uint64_t)((double)(src->size > 0 ? src->size : 0) *
	                  (view ? JSON_BYTE_VIEW : JSON_BYTE_SUMMARY));
}

/* The model cache keeps a source's event index: its offsets as they are. */
/* The state in the model cache: the event index's offsets alone (what tl wrote before links
 * were kept), or LINKS_MAGIC, the offset count, the offsets, the link count, the links. */
#define LINKS_MAGIC UINT64_C(0x314B4E494C4A4C54) /* "TLJLINK1" */

static void
json_state_save(const tl_rank *r, size_t si, uint8_t **out, size_t *len)
{
	const json_state *st = rank_source_state(r, si);
	*out = NULL;
	*len = 0;
	if (st == NULL || (st->n == 0 && st->nlinks == 0))
		return;
	uint64_t head[2] = {LINKS_MAGIC, st->n}, nl = st->nlinks;
	size_t offs = st->n * sizeof *st->off, links = st->nlinks * sizeof *st->links;
	*len = sizeof head + offs + sizeof nl + links;
	*out = xmalloc(*len);
	uint8_t *p = *out;
	memcpy(p, head, sizeof head);
	p += sizeof head;
	if (offs)
		memcpy(p, st->off, offs);
	p += offs;
	memcpy(p, &nl, sizeof nl);
	p += sizeof nl;
	if (links)
		memcpy(p, st->links, links);
}

static int
json_state_restore(tl_rank *r, size_t si, const uint8_t *p, size_t len)
{
	if (len == 0 || len % sizeof(uint64_t) != 0)
		return -1;
	json_state *st = xcalloc(1, sizeof *st);
	uint64_t head[2];
	if (len >= sizeof head)
		memcpy(head, p, sizeof head);
	if (len >= sizeof head + sizeof(uint64_t) && head[0] == LINKS_MAGIC) {
		size_t rest = len - sizeof head - sizeof(uint64_t);
		uint64_t nl;
		if (head[1] > rest / sizeof *st->off) {
			free(st);
			return -1;
		}
		size_t offs = (size_t)head[1] * sizeof *st->off;
		memcpy(&nl, p + sizeof head + offs, sizeof nl);
		if (nl > (rest - offs) / sizeof *st->links ||
		    (rest - offs) != (size_t)nl * sizeof *st->links) {
			free(st);
			return -1;
		}
		st->n = (size_t)head[1];
		st->off = st->n ? xmalloc(offs) : NULL;
		if (offs)
			memcpy(st->off, p + sizeof head, offs);
		st->nlinks = (size_t)nl;
		st->links = nl ? xreallocarray(NULL, st->nlinks, sizeof *st->links) : NULL;
		if (nl)
			memcpy(st->links, p + sizeof head + offs + sizeof nl,
			       st->nlinks * sizeof *st->links);
		json_links_index(st);
	} else {
		st->n = len / sizeof *st->off;
		st->off = xmalloc(len);
		memcpy(st->off, p, len);
	}
	rank_set_source_state(r, si, st, json_state_free);
	return 0;
}

const tl_loader loader_trace_json = {
    .name = "chrome-json",
    .load = trace_json_load,
    .estimate = trace_json_estimate,
    .args = trace_json_args,
    .comm = trace_json_comm,
    .state_save = json_state_save,
    .state_restore = json_state_restore,
    .links = trace_json_links,
    .stack = trace_json_stack,
    .launches = trace_json_launches,
};
