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
#include "load/json/trace_json_int.h"
#include "load/load_int.h"
#include "model/mstx.h"
#include "util/gzin.h"
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
		json_links_free(st);
		free(st->iters);
	}
	free(st);
}

/* ---- open and load ------------------------------------------------------------------------- */

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
	if (json_input_open(c) != 0)
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
	json_launch_corr_build(c);
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
	json_ctx_init(&c, src->path, r);
	int huge_before = r->huge_lanes;
	r->huge_lanes = 1; /* a few lanes of up to millions of slices each */
	if (src->kind == TL_SRC_MSPROF_ITER)
		c.models = src->models;
	char *csv = NULL;
	if (src->kind == TL_SRC_MS_TIMELINE) {
		/* MindSpore 1.x: step_trace_raw_{r}_detail_time.csv beside the timeline */
		const char *slash = strrchr(src->path, '/');
		int dl = slash ? (int)(slash - src->path) + 1 : 0;
		csv = xasprintf("%.*sstep_trace_raw_%d_detail_time.csv", dl, src->path,
		                src->rank >= 0 ? src->rank : 0);
		c.ms1_csv = csv;
	}
	int rc = -1;
	size_t nsteps_before = r->nsteps;
	if (names_pass(&c) != 0)
		goto done;
	if (r->rank < 0)
		r->rank = c.dist_rank >= 0 ? c.dist_rank : rank_from_name(src->path);
	if (r->host == NULL && c.host != NULL) { /* whose clock it keeps (load_clock) */
		r->host = c.host;
		c.host = NULL;
	}
	c.s_default = strpool_intern_cstr(r->pool, "default");
	c.s_record_function = strpool_intern_cstr(r->pool, "record_function");
	json_walk(&c, 2, json_slice_event);
	json_unpaired_report(&c);
	json_counters_finish(&c);
	json_links_correlate(&c);
	if ((c.nevidx > 0 || c.nlinks > 0 || c.niters > 0) &&
	    r->nsources > 0) { /* (the loader's source is r's last) */
		json_state *st = xcalloc(1, sizeof *st);
		st->off = c.evidx;
		st->n = c.nevidx;
		json_links_give(&c, st);
		st->iters = c.iters;
		st->niters = c.niters;
		json_links_index(st);
		rank_set_source_state(r, r->nsources - 1, st, json_state_free);
		c.evidx = NULL;
		c.iters = NULL;
		c.niters = 0;
	}
	if (c.shrank)
		msg_warn(src->path,
		         "the file shrank while tl was reading it (truncated or rewritten by "
		         "another program); keeping the %" PRIu64 " slices read before",
		         c.slices);
	if (c.orphans > 0 && r->nsteps > 0)
		msg_warn(src->path,
		         "%" PRIu64
		         " device event%s (%.3f ms) launched before the capture began (no "
		         "launch call with %s correlation in the trace): in no step",
		         c.orphans, c.orphans == 1 ? "" : "s", (double)c.orphan_ns / 1e6,
		         c.orphans == 1 ? "its" : "their");
	if (c.outside > 0)
		msg_warn(src->path,
		         "%" PRIu64 " device event%s (%.3f ms) launched outside every ProfilerStep "
		         "range: in no step",
		         c.outside, c.outside == 1 ? "" : "s", (double)c.outside_ns / 1e6);
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
	if (src->kind == TL_SRC_MS_TIMELINE && c.ms1_ops == 0) {
		/* never a rank of zeros: what tl cannot place is said */
		if (!c.damaged && !c.shrank)
			msg_warn(src->path,
			         "MindSpore 1.x timeline (ascend_timeline_display) without "
			         "device operators (no stream of typed ops); not read");
		rc = -1;
	} else if (rc != 0 && !c.damaged && !c.shrank) {
		msg_warn(src->path, "no slices found (empty trace?)");
	} else if (c.ms1_no_csv != 0) {
		msg_warn(src->path,
		         "MindSpore 1.x timeline without its step trace (%s: %s); read "
		         "without steps",
		         c.ms1_csv, strerror(c.ms1_no_csv));
	}
done:
	r->huge_lanes = huge_before;
	json_ctx_free(&c);
	free(csv);
	return rc;
}

/* ---- Overlap Analysis cross-check ----------------------------------------------------------- */

static void
overlap_event(jctx *c, const jevent *ev)
{
	int64_t start, dur;
	if (ev->bad >= 0 || json_event_phase(c, ev) != 'X')
		return;
	uint32_t ti = c->replay_thread != UINT32_MAX ? c->replay_thread
	                                             : json_thread_of(c, ev); /* may move threads */
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
	json_ctx_init(&c, path, r);
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
	json_ctx_free(&c);
	rank_free(r);
	return found ? 0 : -1;
}

static uint64_t
trace_json_estimate(const tl_source *src, int view)
{
	uint64_t bytes = src->size > 0 ? (uint64_t)src->size : 0, held = 0;
	size_t pl = strlen(src->path);
	int fd = pl > 3 && strcmp(src->path + pl - 3, ".gz") == 0
	             ? open(src->path, O_RDONLY | O_CLOEXEC)
	             : -1;
	if (fd >= 0) {
		if (gzin_fd_is_gzip(fd)) {
			/* inflated into memory while it loads: the trailer's size when it is
			 * believable, else ten times the file (JSON compresses about so) */
			uint64_t hint = gzin_size_hint(fd);
			bytes = hint > bytes ? hint : bytes * 10;
			held = bytes;
		}
		close(fd);
	}
	return held + (uint64_t)((double)bytes * (view ? JSON_BYTE_VIEW : JSON_BYTE_SUMMARY));
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
	if (st == NULL || (st->n == 0 && st->nlinks == 0 && st->niters == 0))
		return;
	uint64_t head[2] = {LINKS_MAGIC, st->n}, nl = st->nlinks, ni = st->niters;
	size_t offs = st->n * sizeof *st->off, links = st->nlinks * sizeof *st->links;
	size_t iters = st->niters * sizeof *st->iters;
	*len = sizeof head + offs + sizeof nl + links + (ni ? sizeof ni + iters : 0);
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
	p += links;
	if (ni) { /* the Iteration steps: their count and (start, ordinal) pairs */
		memcpy(p, &ni, sizeof ni);
		p += sizeof ni;
		memcpy(p, st->iters, iters);
	}
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
		if (nl > (rest - offs) / sizeof *st->links) {
			free(st);
			return -1;
		}
		size_t tail = rest - offs - (size_t)nl * sizeof *st->links;
		uint64_t ni = 0;
		if (tail != 0) { /* the Iteration steps */
			if (tail < sizeof ni) {
				free(st);
				return -1;
			}
			memcpy(&ni, p + len - tail, sizeof ni);
			if (ni == 0 || ni > (tail - sizeof ni) / sizeof *st->iters ||
			    tail - sizeof ni != (size_t)ni * sizeof *st->iters) {
				free(st);
				return -1;
			}
			st->niters = (size_t)ni;
			st->iters = xreallocarray(NULL, st->niters, sizeof *st->iters);
			memcpy(st->iters, p + len - tail + sizeof ni,
			       st->niters * sizeof *st->iters);
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
    .args_read = ~0u, /* the flows, stacks and communication are matched by event ordinal */
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
