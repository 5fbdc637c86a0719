/* Walk 2 of a JSON trace: events to slices on their lanes, the kernel launches that give a
 * device slice its step, and the MSTX ranges that carried a stream. */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "load/load_int.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/sort.h"
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

/* ---- launches ---------------------------------------------------------------------------- */

static int
cmp_fb_end(const void *a, const void *b)
{
	const fb_end *x = a, *y = b;
	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	return (x->ph > y->ph) - (x->ph < y->ph); /* 'f' before 's' */
}

static int
cmp_fb_key(const void *a, const void *b)
{
	const fb_key *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* After walk 1: the fwdbwd flows with exactly one start and one end on two threads become
 * pairs, and their ends the lookup walk 2 uses to find the operators. */
void
json_fwdbwd_build(jctx *c)
{
	if (c->nfbe > 1)
		qsort(c->fbe, c->nfbe, sizeof *c->fbe, cmp_fb_end);
	for (size_t i = 0; i < c->nfbe;) {
		size_t k = i + 1;
		while (k < c->nfbe && c->fbe[k].flow == c->fbe[i].flow)
			k++;
		const fb_end *f = &c->fbe[i], *st = &c->fbe[i + 1];
		if (k - i == 2 && f->ph == 'f' && st->ph == 's' && f->thread != st->thread &&
		    st->ts < f->ts && st->ts <= INT64_MAX - c->base_ns &&
		    f->ts <= INT64_MAX - c->base_ns) {
			fb_pair p = {{st->thread, f->thread},
			             {st->ts + c->base_ns, f->ts + c->base_ns},
			             {INT64_MIN, INT64_MIN}};
			size_t cap = c->nfbp;
			VEC_PUSH(c->fbp, c->nfbp, cap, p);
		}
		i = k;
	}
	free(c->fbe);
	c->fbe = NULL;
	c->nfbe = c->fbecap = 0;
	if (c->nfbp == 0)
		return;
	c->fbk = xreallocarray(NULL, c->nfbp * 2, sizeof *c->fbk);
	for (size_t i = 0; i < c->nfbp; i++)
		for (int e = 0; e < 2; e++)
			c->fbk[c->nfbk++] = (fb_key){
			    c->fbp[i].thread[e], (uint32_t)(i * 2 + (size_t)e), c->fbp[i].ts[e]};
	qsort(c->fbk, c->nfbk, sizeof *c->fbk, cmp_fb_key);
}

/* Walk 2: a host slice [start, end] on thread ti; the longest one starting at a pair end's ts
 * is that end's operator. */
static void
fwdbwd_match(jctx *c, uint32_t ti, int64_t start, int64_t end)
{
	size_t lo = 0, hi = c->nfbk;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const fb_key *k = &c->fbk[mid];
		if (k->thread < ti || (k->thread == ti && k->ts < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nfbk && c->fbk[lo].thread == ti && c->fbk[lo].ts == start; lo++) {
		int64_t *e = &c->fbp[c->fbk[lo].pair_end / 2].end[c->fbk[lo].pair_end % 2];
		if (end > *e)
			*e = end;
	}
}

/* After walk 2: the pairs whose two operators were found. */
void
json_fwdbwd_finish(jctx *c)
{
	for (size_t i = 0; i < c->nfbp; i++) {
		const fb_pair *p = &c->fbp[i];
		if (p->end[0] != INT64_MIN && p->end[1] != INT64_MIN)
			rank_add_fwdbwd(c->r, p->ts[0], p->end[0], p->ts[1], p->end[1]);
	}
}

/* ---- MSTX ranges that carried a stream ---------------------------------------------------
 * msprof writes the device part of such a range as a slice of its own on the Ascend Hardware
 * stream (named by the message, args "Physic Stream Id" and "Task Id", one slice from the
 * begin marker to the end marker) and joins it to the host range (MsprofTx process) with an
 * MsTx flow: "s" at the host range's start, "f" at the device slice's start. The host slice gets
 * the device times, as the DB loader gives them from TASK. */

/* After walk 1: flows with exactly one start and one end become pairs, their ends the lookup. */
void
json_mstx_links_build(jctx *c)
{
	if (c->nmxe > 1)
		qsort(c->mxe, c->nmxe, sizeof *c->mxe, cmp_fb_end);
	size_t cap = 0;
	for (size_t i = 0; i < c->nmxe;) {
		size_t k = i + 1;
		while (k < c->nmxe && c->mxe[k].flow == c->mxe[i].flow)
			k++;
		const fb_end *f = &c->mxe[i], *st = &c->mxe[i + 1];
		if (k - i == 2 && f->ph == 'f' && st->ph == 's' &&
		    st->ts <= INT64_MAX - c->base_ns && f->ts <= INT64_MAX - c->base_ns) {
			mx_pair p = {{st->thread, f->thread},
			             {st->ts + c->base_ns, f->ts + c->base_ns},
			             {NULL, NULL},
			             {0, 0}};
			VEC_PUSH(c->mxp, c->nmxp, cap, p);
		}
		i = k;
	}
	free(c->mxe);
	c->mxe = NULL;
	c->nmxe = c->mxecap = 0;
	if (c->nmxp == 0)
		return;
	c->mxk = xreallocarray(NULL, c->nmxp * 2, sizeof *c->mxk);
	for (size_t i = 0; i < c->nmxp; i++)
		for (int e = 0; e < 2; e++)
			c->mxk[c->nmxk++] = (fb_key){
			    c->mxp[i].thread[e], (uint32_t)(i * 2 + (size_t)e), c->mxp[i].ts[e]};
	qsort(c->mxk, c->nmxk, sizeof *c->mxk, cmp_fb_key);
}

/* Walk 2: slice k of tr, an MSTX range (dev = 0) or a device MSTX slice (dev = 1) that starts
 * at `start` on thread ti; a flow end there binds to it. */
static void
mstx_link_match(jctx *c, uint32_t ti, int64_t start, tl_track *tr, size_t k, int dev)
{
	size_t lo = 0, hi = c->nmxk;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const fb_key *x = &c->mxk[mid];
		if (x->thread < ti || (x->thread == ti && x->ts < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nmxk && c->mxk[lo].thread == ti && c->mxk[lo].ts == start; lo++) {
		if (c->mxk[lo].pair_end % 2 != (uint32_t)dev)
			continue;
		mx_pair *p = &c->mxp[c->mxk[lo].pair_end / 2];
		p->t[dev] = tr;
		p->k[dev] = k;
	}
}

/* After walk 2: each host range whose device part was found gets its times. */
void
json_mstx_links_finish(jctx *c)
{
	for (size_t i = 0; i < c->nmxp; i++) {
		const mx_pair *p = &c->mxp[i];
		if (p->t[0] == NULL || p->t[1] == NULL || p->k[0] >= p->t[0]->n ||
		    p->k[1] >= p->t[1]->n)
			continue;
		track_set_dev(p->t[0], p->k[0], p->t[1]->v[p->k[1]].start,
		              track_end(p->t[1], p->k[1]));
	}
}

static int
cmp_launch(const void *a, const void *b)
{
	const flow_end *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int64_t
launch_thread(const void *a)
{
	return ((const flow_end *)a)->thread;
}

/* Once the steps are known: the flow ends become the launch table, (thread, device start) ->
 * step of the launch. Only with two or more steps (with one, everything belongs to it, as in
 * the DB loader). The flow ids are freed. */
void
json_launches_build(jctx *c)
{
	size_t w = 0;
	for (size_t i = 0; c->nsteps >= 2 && i < c->nfend; i++) {
		flow_end fe = c->fend[i];
		if (c->fcat[fe.x] == FLOW_ASYNC_NPU)
			continue; /* from the operator, not the launch call: the H2D flow decides */
		int64_t s = c->fstart[fe.x];
		if (s == FLOW_NONE || fe.ts > INT64_MAX - c->base_ns || s > INT64_MAX - c->base_ns)
			continue; /* no start (Kineto drops some): the device time decides */
		uint16_t step = json_step_at(c, s + c->base_ns);
		if (step == TL_NO_STEP)
			continue; /* launched outside every step: the device time decides, as in the
			             DB */
		fe.ts += c->base_ns;
		fe.x = step;
		c->fend[w++] = fe;
	}
	c->nfend = w;
	if (w > 0) {
		sort_grouped(c->fend, w, sizeof *c->fend, launch_thread, cmp_launch);
		c->fend = xreallocarray(c->fend, w, sizeof *c->fend);
		c->fendcap = w;
	}
	for (size_t i = 0; i < w;) {
		jthread *t = &c->threads[c->fend[i].thread];
		size_t k = i;
		while (k < w && c->fend[k].thread == c->fend[i].thread)
			k++;
		t->lau_lo = t->lau_cur = i;
		t->lau_hi = k;
		i = k;
	}
	json_huge_free(c->fstart, c->fcap, sizeof *c->fstart);
	c->fstart = NULL;
	c->nfstart = c->fcap = 0;
	free(c->fsthr);
	c->fsthr = NULL;
	free(c->fcat);
	c->fcat = NULL;
	c->fscap = c->fccap = 0;
	free(c->ftab);
	c->ftab = NULL;
	c->fmask = c->nfdigit = 0;
	free(c->ford);
	c->ford = NULL;
	c->nford = c->fordcap = c->fhint = 0;
	json_huge_free(c->fkey, c->fkcap, sizeof *c->fkey);
	c->fkey = NULL;
	c->fkcap = 0;
	if (c->flows != NULL) {
		strpool_free(c->flows);
		u64map_free(&c->flow_text);
		c->flows = NULL;
	}
}

/* ---- walk 2: slices ------------------------------------------------------------------------- */

/* Step of device work that starts at `start` on thread t: the step of its launch, else the
 * step containing its start (as the DB loader's step_of_work). */
static uint16_t
step_of_work(const jctx *c, jthread *t, int64_t start)
{
	if (c->nsteps == 0)
		return TL_NO_STEP;
	if (c->nsteps == 1)
		return (uint16_t)c->step_base; /* one step: the whole capture belongs to it */
	/* a thread's device work mostly comes in start order: a cursor, else a binary search */
	if (t->lau_cur < t->lau_hi && c->fend[t->lau_cur].ts == start)
		return (uint16_t)c->fend[t->lau_cur++].x;
	size_t lo = t->lau_lo, hi = t->lau_hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->fend[mid].ts < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->lau_hi && c->fend[lo].ts == start) {
		t->lau_cur = lo + 1;
		return (uint16_t)c->fend[lo].x;
	}
	return json_step_at(c, start);
}

/* Walk 2: the step of a device event by its correlation. Returns 1 and sets *step (TL_NO_STEP
 * when the call lies outside every step, or is not in the trace: launched before the capture;
 * each counted for its warning), or 0 when the event names no correlation or the trace has no
 * calls. */
int
json_corr_step(jctx *c, const jevent *ev, int64_t dur, uint16_t *step)
{
	int64_t corr;
	uint32_t i;
	if (c->lcorr_step == NULL || !json_event_corr(c, ev, &corr))
		return 0;
	if (json_lcorr_find(c, (uint64_t)corr, &i)) {
		*step = c->lcorr_step[i];
		if (*step == TL_NO_STEP && c->nsteps > 0) { /* HTA's iteration -1 too */
			c->outside++;
			c->outside_ns =
			    c->outside_ns > INT64_MAX - dur ? INT64_MAX : c->outside_ns + dur;
		}
		return 1;
	}
	/* its launch call is not in the trace: it ran on work queued before the capture began, so
	 * it belongs to no step (HolisticTraceAnalysis' iteration -1) */
	c->orphans++;
	c->orphan_ns = c->orphan_ns > INT64_MAX - dur ? INT64_MAX : c->orphan_ns + dur;
	*step = TL_NO_STEP;
	return 1;
}

/* Task types of compute kernels in trace_view's "Task Type": COMPUTE_TASK_INFO's spellings (S3
 * trace_event_bean.py's compute set, plus DSA kernels, which COMPUTE_TASK_INFO lists) and the
 * TASK table's host-side ones for the same kernels (AI_CORE vs KERNEL_AICORE). FFTS+
 * containers, also typed KERNEL_*, are not in the files: msprof hides them. */
static int
is_compute_type(const char *t)
{
	static const char *const set[] = {"AI_CORE",        "AI_VECTOR_CORE", "MIX_AIC",
	                                  "MIX_AIV",        "AI_CPU",         "FFTS_PLUS",
	                                  "DSA_SQE",        "KERNEL_AICORE",  "KERNEL_AIVEC",
	                                  "KERNEL_MIX_AIC", "KERNEL_MIX_AIV", "KERNEL_AICPU"};
	for (size_t i = 0; i < sizeof set / sizeof *set; i++)
		if (strcmp(t, set[i]) == 0)
			return 1;
	return 0;
}

/* A device task name that is a task type, not a kernel: msprof names the tasks that run no
 * operator after their type ("EVENT_RECORD_SQE", "Notify Wait", "Write Value", "MEMCPY_ASYNC").
 * Kernel names are operator names: never with a space, never all capitals. */
static int
is_type_name(const char *s)
{
	int lower = 0;
	if (strchr(s, ' ') != NULL)
		return 1;
	for (const char *p = s; *p; p++)
		lower |= *p >= 'a' && *p <= 'z';
	return *s != '\0' && !lower;
}

/* HCCL's own device tasks where a file carries them on a stream (older files write no Plane
 * threads for them): the sub-task names the HCCL process uses on its Plane threads, and the op
 * prefixes. */
static int
is_hccl_task_name(const char *s)
{
	static const char *const set[] = {"Notify_Wait",   "Notify_Record", "Memcpy",
	                                  "Reduce_Inline", "Inline_Reduce", "RDMASend",
	                                  "RDMA_Send",     "Local_Notify"};
	for (size_t i = 0; i < sizeof set / sizeof *set; i++)
		if (strcmp(s, set[i]) == 0)
			return 1;
	return strncmp(s, "hcom_", 5) == 0 || strncasecmp(s, "hccl", 4) == 0;
}

/* A task on an Ascend Hardware stream. Returns the lane, or TL_LANE__COUNT to drop it: an HCCL
 * sub-task already drawn on its Plane lane.
 *
 * The "Task Type" a file gives a kernel depends on the torch_npu / msprof version that wrote it:
 *  - 2025 and later (streams in "Physic Stream Id"): COMPUTE_TASK_INFO's type for every kernel
 *    (AI_CORE, MIX_AIV, AI_CPU, ...); a task with a "Task Id" and no "Task Type" is a device
 *    MSTX marker.
 *  - 2024 (streams in "Stream Id"): only AI_CPU kernels carry their type; AI Core and vector
 *    kernels are "Other" or carry no "Task Type" at all, and msprof's own Overlap Analysis
 *    counts them as computing. Such a task is a compute kernel unless it is communication
 *    (an HCCL task or an MC2 kernel), a memory copy or a marker: what is not a kernel is named
 *    after its task type (is_type_name).
 * "Other" is read the 2024 way in any file: the profiler wrote it for a kernel whose type it did
 * not know. */
static tl_lane_kind
hw_lane(jctx *c, const jevent *ev, const char *name)
{
	static const jkey keys[] = {JKEY("Task Type"), JKEY("Physic Stream Id"), JKEY("Stream Id"),
	                            JKEY("Task Id"), JKEY("Subtask Id")};
	jspan v[5];
	char tybuf[64];
	if (json_args_members(c, ev, keys, 5, v) != 0 && ev->f[F_ARGS].len > 0)
		json_problem(c, PR_ARGS, ev->f[F_ARGS].off);
	const char *ty = json_span_str_buf(c, v[0], tybuf, sizeof tybuf);
	int64_t s, t, x;
	if (c->planes.n > 0 && (json_span_int(c, v[1], &s) || json_span_int(c, v[2], &s)) &&
	    (c->plane_streams[(s & 0xffff) >> 6] >> (s & 63) & 1) && json_span_int(c, v[3], &t) &&
	    json_span_int(c, v[4], &x) && u64map_get(&c->planes, json_plane_key(s, t, x), NULL))
		return TL_LANE__COUNT;
	/* MC2 / AIV communication kernels: msprof's overlap does not count them as compute */
	if (json_str_ends(name, "AicpuKernel") || json_str_ends(name, "AivKernel"))
		return TL_LANE_COMM_TASK;
	if (ty && is_compute_type(ty))
		return TL_LANE_COMPUTE;
	if ((ty && (strcmp(ty, "PCIE_DMA_SQE") == 0 || strcmp(ty, "SDMA_SQE") == 0)) ||
	    strcmp(name, "MEMCPY_ASYNC") == 0)
		return TL_LANE_MEMCPY;
	if (strncmp(name, "MsTx", 4) == 0)
		return TL_LANE_MSTX_DEV;
	int older = v[1].len == 0 && v[2].len > 0; /* 2024: "Stream Id" */
	if ((ty != NULL && strcmp(ty, "Other") == 0) || (ty == NULL && older)) {
		if (is_hccl_task_name(name))
			return TL_LANE_OTHER;
		if (is_type_name(name))
			return strstr(name, "MEMCPY") || strstr(name, "SDMA") ? TL_LANE_MEMCPY
			                                                      : TL_LANE_OTHER;
		return TL_LANE_COMPUTE;
	}
	if (ty == NULL && v[3].len > 0)
		return TL_LANE_MSTX_DEV;
	return TL_LANE_OTHER;
}

/* An event of a Kineto / MsprofTx / unnamed process, by its category. Returns TL_LANE__COUNT to
 * drop it; *mstx_dom is set for MSTX ranges. */
static tl_lane_kind
generic_lane(jctx *c, const jevent *ev, const jthread *t, const char *name, size_t namelen,
             uint32_t *mstx_dom)
{
	jspan cat = ev->f[F_CAT];
	int host_comm = !c->dev_comm && json_is_comm_name(name);
	if (cat.len == 0) {
		/* msprof's MsprofTx process: args event_type (and domain), legacy Payload_type */
		jspan a = ev->f[F_ARGS];
		tl_lane_kind k = t->kind == T_DEVICE ? TL_LANE_COMPUTE : TL_LANE_HOST;
		if (a.len > 0 && (memmem(c->b + a.off, a.len, "\"event_type\"", 12) != NULL ||
		                  memmem(c->b + a.off, a.len, "\"Payload_type\"", 14) != NULL)) {
			cJSON *j = json_args_parse(c, ev, PR_ARGS);
			if (j != NULL && (cJSON_GetObjectItemCaseSensitive(j, "event_type") ||
			                  cJSON_GetObjectItemCaseSensitive(j, "Payload_type"))) {
				const char *d = json_str(j, "domain");
				*mstx_dom =
				    d && *d ? strpool_intern_cstr(c->r->pool, d) : c->s_default;
				k = TL_LANE_MSTX;
			}
			cJSON_Delete(j);
		}
		return k;
	}
	/* device work as HolisticTraceAnalysis classifies it (its temporal breakdown's compute
	 * time is the union of the computation kernels): a collective's kernel is communication,
	 * a kernel named Memcpy / Memset and the memcpy / memset categories are memory, an MTIA
	 * event is a memory transfer when it is a dma_request and a kernel otherwise */
	/* (the Kineto of 2021, TensorBoard's plugin era, capitalised them: Kernel, Memcpy, Memset,
	 * Runtime, Operator, DataLoader) */
	if (span_eq(c, cat, "kernel") || span_eq(c, cat, "mtia_ccp_events") ||
	    span_eq(c, cat, "Kernel")) {
		/* by name alone, once a name (kernels repeat; the name is the slice's, interned
		 * here rather than just after) */
		name_slot *e = json_name_slot(c, name, namelen);
		if (e->kernel == 0) {
			tl_lane_kind k = TL_LANE_COMPUTE;
			if (json_is_comm_kernel(name))
				k = TL_LANE_COMM;
			else if (strstr(name, "Memcpy") != NULL || strstr(name, "Memset") != NULL ||
			         strstr(name, "dma_request") != NULL)
				k = TL_LANE_MEMCPY;
			e->kernel = (uint8_t)(1 + k);
		}
		return (tl_lane_kind)(e->kernel - 1);
	}
	if (span_eq(c, cat, "gpu_memcpy") || span_eq(c, cat, "gpu_memset") ||
	    span_eq(c, cat, "Memcpy") || span_eq(c, cat, "Memset"))
		return TL_LANE_MEMCPY;
	if (span_eq(c, cat, "gpu_user_annotation"))
		return TL_LANE_MSTX_DEV;
	if (span_eq(c, cat, "cuda_sync"))
		return TL_LANE_OTHER;
	if (span_eq(c, cat, "Trace"))
		return TL_LANE__COUNT; /* the whole capture as one span */
	if (span_eq(c, cat, "user_annotation")) {
		if (strncmp(name, "ProfilerStep#", 13) == 0)
			return TL_LANE__COUNT; /* already the step lane */
		if (host_comm)
			return TL_LANE_COMM;
		*mstx_dom = c->s_record_function;
		return TL_LANE_MSTX;
	}
	if (host_comm && (span_eq(c, cat, "cpu_op") || span_eq(c, cat, "Operator")))
		return TL_LANE_COMM;
	return t->kind == T_DEVICE ? TL_LANE_OTHER : TL_LANE_HOST;
}

static void slice_add(jctx *c, const jevent *ev, uint32_t ti, int64_t start, int64_t dur);

/* Walk 2: "X" events are slices; a "B" waits on its thread's stack for the "E" that closes it
 * (Chrome's duration events; the "E" may carry no name: the "B" gives it all). */
void
json_slice_event(jctx *c, const jevent *ev)
{
	int64_t start, dur;
	if (ev->bad >= 0)
		return;
	char ph = json_event_phase(c, ev);
	if (ph == 'X') {
		if (json_event_time(c, ev, 1, 1, &start, &dur) == 0)
			slice_add(c, ev,
			          c->replay_thread != UINT32_MAX ? c->replay_thread
			                                         : json_thread_of(c, ev),
			          start, dur);
		return;
	}
	if (ph == 'C') {
		json_counter_event(c, ev);
		return;
	}
	if ((ph != 'B' && ph != 'E') || json_event_time(c, ev, 0, 1, &start, &dur) != 0)
		return;
	uint32_t ti = json_thread_of(c, ev); /* may move c->threads */
	jthread *t = &c->threads[ti];
	if (ph == 'B') {
		be_open o = {*ev, start};
		VEC_PUSH(t->open, t->nopen, t->opencap, o);
		return;
	}
	if (t->nopen == 0 || start < t->open[t->nopen - 1].ts) {
		json_problem(c, PR_UNPAIRED, ev->start);
		return;
	}
	be_open o = t->open[--t->nopen];
	slice_add(c, &o.ev, ti, o.ts, start - o.ts);
}

/* After walk 2: "B" events nothing closed. */
void
json_unpaired_report(jctx *c)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		jthread *t = &c->threads[i];
		for (size_t k = 0; k < t->nopen; k++)
			json_problem(c, PR_UNPAIRED, t->open[k].ev.start);
		free(t->open);
		t->open = NULL;
		t->nopen = t->opencap = 0;
	}
}

/* A MindSpore 1.x operator that is a collective or a point-to-point transfer ("AllReduce-op3",
 * "Default/Send-op1"). */
static int
ms1_is_comm(const char *name)
{
	static const char *const ops[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
	                                  "AllToAll",  "Send",      "Receive",       "hcom_"};
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (strncmp(b, ops[i], strlen(ops[i])) == 0)
			return 1;
	return 0;
}

/* One slice of thread ti from event ev (its name, category, args) over [start, start + dur]. */
static void
slice_add(jctx *c, const jevent *ev, uint32_t ti, int64_t start, int64_t dur)
{
	jthread *t = &c->threads[ti];
	const jproc *p = &c->procs[t->proc];
	if (t->kind == T_OVERLAP)
		return; /* msprof's result, not an input (trace_json_overlap_lengths reads it) */
	if (t->kind == T_STEPTRACE)
		return; /* the iterations: steps (json_steps_build), not device tasks */
	cJSON *tmp;
	size_t namelen;
	const char *name = json_span_string(c, ev->f[F_NAME], &tmp, &namelen);
	tl_lane_kind kind;
	uint32_t dom = 0;
	switch (c->ms1_csv != NULL && p->kind == P_GENERIC ? -1 : t->kind) {
	case -1: /* MindSpore 1.x: operators carry their type; the collectives are named so */
		if (t->kind == T_GROUP || ms1_is_comm(name))
			kind = TL_LANE_COMM;
		else if (t->kind != T_DEVICE)
			kind = TL_LANE_HOST;
		else if ((ev->f[F_ARGS].len > 0 &&
		          memmem(c->b + ev->f[F_ARGS].off, ev->f[F_ARGS].len, "\"type\"", 6) !=
		              NULL) ||
		         t->key & INT64_C(1) << 30) /* typed, or the AI CPU's */
			kind = TL_LANE_COMPUTE;
		else
			kind = TL_LANE_OTHER;
		if (kind == TL_LANE_COMPUTE || kind == TL_LANE_COMM)
			c->ms1_ops++;
		break;
	case T_DEVICE:
		if (p->kind == P_HW) {
			kind = hw_lane(c, ev, name);
		} else if (p->kind == P_LEGACY_GPU) {
			kind = json_is_comm_name(name) ? TL_LANE_COMM : TL_LANE_COMPUTE;
		} else {
			kind = generic_lane(c, ev, t, name, namelen, &dom);
		}
		break;
	case T_GROUP:
		kind = TL_LANE_COMM;
		break;
	case T_PLANE:
		kind = TL_LANE_COMM_TASK;
		break;
	default:
		/* an MsprofTx process may carry any name, "Python" too: no category, mstx args */
		if (p->kind == P_GENERIC || (p->kind == P_PYTHON && ev->f[F_CAT].len == 0))
			kind = generic_lane(c, ev, t, name, namelen, &dom);
		else if (p->kind == P_LEGACY_CPU && !c->dev_comm && json_is_comm_name(name))
			kind = TL_LANE_COMM; /* gloo / c10d collectives of a CPU-only job */
		else
			kind = TL_LANE_HOST;
	}
	if (kind != TL_LANE__COUNT) {
		uint32_t nm;
		if (kind == TL_LANE_MSTX_DEV && namelen > 0 && name[0] == '{') {
			char label[300]; /* a range's device part: its decoded message */
			nm = strpool_intern_cstr(
			    c->r->pool, mstx_msg_label(name, namelen, label, sizeof label));
		} else {
			nm = json_name_id(c, name, namelen);
		}
		uint32_t arg = ev->ordinal > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->ordinal;
		tl_track *tr =
		    kind == TL_LANE_MSTX ? json_mstx_track(c, dom) : json_thread_track(c, t, kind);
		if (kind == TL_LANE_HOST && ev->f[F_CAT].len == 0 && p->kind == P_GENERIC)
			tr->user_ranges =
			    1; /* a trace without categories at all, as the legacy one */
		uint16_t step;
		int kineto_dev = p->kind == P_GENERIC && t->kind == T_DEVICE &&
		                 json_is_device_cat(c, ev->f[F_CAT]);
		if (kineto_dev &&
		    (kind == TL_LANE_COMPUTE || kind == TL_LANE_COMM || kind == TL_LANE_MEMCPY)) {
			/* Kineto device work: the step of its launch call (by correlation), and
			 * memory copies too, whose union is the step's memory time */
			if (!json_corr_step(c, ev, dur, &step))
				step = step_of_work(c, t, start);
			track_push_step(tr, start, start + dur, nm, arg, step);
		} else if (kind == TL_LANE_COMPUTE || kind == TL_LANE_COMM ||
		           kind == TL_LANE_COMM_TASK) {
			track_push_step(tr, start, start + dur, nm, arg, step_of_work(c, t, start));
		} else {
			track_push(tr, start, start + dur, nm, arg);
		}
		if ((kind == TL_LANE_MSTX || kind == TL_LANE_MSTX_DEV) && c->nmxk > 0)
			mstx_link_match(c, ti, start, tr, tr->n - 1, kind == TL_LANE_MSTX_DEV);
		if (kind == TL_LANE_HOST && c->nfbk > 0)
			fwdbwd_match(c, ti, start, start + dur);
		/* Kineto: a runtime call and the device events it launched share a correlation
		 * (the links, unless the trace's ac2g flows gave them: then nothing is kept) */
		if (p->kind == P_GENERIC && !c->have_ac2g && ev->f[F_ARGS].len > 0 &&
		    (json_is_launch_cat(c, ev->f[F_CAT]) || json_is_device_cat(c, ev->f[F_CAT])))
			json_links_corr(c, ev, t, start, t->kind == T_DEVICE);
		if (kind != TL_LANE_HOST && kind != TL_LANE_MSTX &&
		    !(kind == TL_LANE_COMM && t->kind == T_HOST))
			c->device_slices++;
		c->slices++;
		if (c->slices - c->rows_reported >= PROGRESS_ROWS) {
			msg_progress_add(0, c->slices - c->rows_reported);
			c->rows_reported = c->slices;
		}
	}
	cJSON_Delete(tmp);
}
