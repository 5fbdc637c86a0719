#include "config.h"
#include "analysis/comm.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The time breakdown, by a rule that reproduces CANN's CommAnalyzerTime (checked op by op
 * against torch_npu's analysis.db on real Ascend 910B captures, to 2 ns):
 *
 * HCCL runs an algorithm as several planes (planeId), each an ordered sequence of sub-tasks on
 * its own stream; the planes run in parallel, so summing over all of them would count the same
 * wall time several times. CANN measures one plane: the lowest planeId that has a transfer to
 * another rank (plane 0 of a ring or mesh is often the local copy between user and HCCL buffers,
 * which says nothing about the link). On that plane:
 *   transit = sum of the durations of its transfer sub-tasks (Memcpy, Reduce_Inline, ...),
 *   wait    = sum of the durations of its Notify_Wait sub-tasks,
 *   sync    = sum of the durations of its Notify_Wait sub-tasks that end no later than its
 *             first transfer starts: waiting before any data moved is waiting for a peer to
 *             arrive, the mark of a slow rank rather than a slow link,
 *   idle    = elapse - transit - wait, where elapse is the op's own duration.
 * An op whose transfers are all local is measured on the lowest plane with any transfer; an op
 * without transfer sub-tasks (a profile captured below Level1 records none) has transit, wait
 * and sync 0 and idle = elapse. */
void
comm_time(const tl_comm_op *op, const tl_comm_task *v, size_t n, tl_comm_time *out)
{
	memset(out, 0, sizeof *out);
	out->elapse = op->end - op->start;
	int64_t plane = -1, any = -1;
	int found = 0, found_any = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind != TL_CTASK_TRANSFER)
			continue;
		if (!found_any || v[i].plane < any)
			any = v[i].plane;
		found_any = 1;
		if (v[i].xport != TL_XPORT_LOCAL && (!found || v[i].plane < plane)) {
			plane = v[i].plane;
			found = 1;
		}
	}
	if (!found && found_any) {
		plane = any;
		found = 1;
	}
	out->plane = found ? plane : -1;
	if (found) {
		int64_t first = INT64_MAX;
		for (size_t i = 0; i < n; i++)
			if (v[i].plane == plane && v[i].kind == TL_CTASK_TRANSFER) {
				out->transit = sat_add(out->transit, v[i].end - v[i].start);
				if (v[i].start < first)
					first = v[i].start;
			}
		for (size_t i = 0; i < n; i++)
			if (v[i].plane == plane && v[i].kind == TL_CTASK_WAIT) {
				out->wait = sat_add(out->wait, v[i].end - v[i].start);
				if (v[i].end <= first)
					out->sync = sat_add(out->sync, v[i].end - v[i].start);
			}
	}
	out->idle = sat_sub(sat_sub(out->elapse, out->transit), out->wait);
	if (out->transit > 0 || out->sync > 0) /* the sums in double: crafted times pass int64 */
		out->sync_ratio = (double)out->sync / ((double)out->transit + (double)out->sync);
	if (out->transit > 0 || out->wait > 0)
		out->wait_ratio = (double)out->wait / ((double)out->transit + (double)out->wait);
}

static int
cmp_packet(const void *a, const void *b)
{
	const tl_comm_packet *x = a, *y = b;
	return (x->size > y->size) - (x->size < y->size);
}

/* Bandwidth per transport: every transfer sub-task to another rank, on every plane (the planes
 * carry different data), grouped by link; within a link, transfers of equal size form one
 * packet-size row (CommAnalyzerBandwidth's package_size, count, total_duration). As CANN does,
 * an SDMA row follows that sums every transfer of the SDMA engine (HCCS, PCIE, SIO and other
 * SDMA links) without packet rows, and transfers that stay on the rank are left out (they are
 * the LOCAL cells of the matrix). */
size_t
comm_bandwidth(const tl_comm_task *v, size_t n, tl_comm_bw **out, size_t *len, size_t *cap)
{
	size_t added = 0;
	tl_comm_bw sdma = {.xport = TL_XPORT_SDMA};
	int any_sdma = 0;
	for (int x = 0; x < TL_XPORT__COUNT; x++) {
		if (x == TL_XPORT_LOCAL)
			continue;
		if (x == TL_XPORT_SDMA) {
			/* the SDMA engine's other links join the sum only */
			for (size_t i = 0; i < n; i++)
				if (v[i].kind == TL_CTASK_TRANSFER && v[i].xport == x) {
					sdma.size += v[i].size;
					sdma.time = sat_add(sdma.time, v[i].end - v[i].start);
					any_sdma = 1;
				}
			if (any_sdma) {
				sdma.gbps =
				    sdma.time > 0 ? (double)sdma.size / (double)sdma.time : 0.0;
				VEC_PUSH(*out, *len, *cap, sdma);
				added++;
			}
			continue;
		}
		tl_comm_bw b = {.xport = (uint8_t)x};
		size_t pkcap = 0;
		int any = 0;
		for (size_t i = 0; i < n; i++) {
			if (v[i].kind != TL_CTASK_TRANSFER || v[i].xport != x)
				continue;
			any = 1;
			int64_t d = v[i].end - v[i].start;
			b.size += v[i].size;
			b.time = sat_add(b.time, d);
			size_t k = 0;
			while (k < b.npk && b.pk[k].size != v[i].size)
				k++;
			if (k == b.npk) {
				tl_comm_packet p = {v[i].size, 0, 0};
				VEC_PUSH(b.pk, b.npk, pkcap, p);
			}
			b.pk[k].count++;
			b.pk[k].time = sat_add(b.pk[k].time, d);
		}
		if (!any)
			continue;
		if (x != TL_XPORT_RDMA) {
			sdma.size += b.size;
			sdma.time = sat_add(sdma.time, b.time);
			any_sdma = 1;
		}
		if (b.npk > 1)
			qsort(b.pk, b.npk, sizeof *b.pk, cmp_packet);
		if (b.npk < pkcap) { /* a summary keeps every op's: 16 sizes of room is 384 B */
			tl_comm_packet *e = xreallocarray(NULL, b.npk, sizeof *e);
			memcpy(e, b.pk, b.npk * sizeof *e);
			free(b.pk);
			b.pk = e;
		}
		b.gbps = b.time > 0 ? (double)b.size / (double)b.time : 0.0;
		VEC_PUSH(*out, *len, *cap, b);
		added++;
	}
	return added;
}

void
comm_bw_free(tl_comm_bw *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].pk);
}

static int
cmp_link(const void *a, const void *b)
{
	const tl_comm_link *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Traffic per rank pair: every transfer sub-task on every plane, by (source, destination); a
 * transfer with no destination (a reduction into the rank's own buffer) counts as the source's
 * own, LOCAL. The pair's transport is that of its first transfer in time. */
size_t
comm_links(const tl_comm_task *v, size_t n, tl_comm_link **out, size_t *len, size_t *cap)
{
	size_t base = *len;
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind != TL_CTASK_TRANSFER)
			continue;
		int64_t dst = v[i].dst < 0 ? v[i].src : v[i].dst;
		size_t k = base;
		while (k < *len && ((*out)[k].src != v[i].src || (*out)[k].dst != dst))
			k++;
		if (k == *len) {
			tl_comm_link l = {v[i].src, dst, v[i].xport, 0, 0, 0.0};
			VEC_PUSH(*out, *len, *cap, l);
		}
		(*out)[k].size += v[i].size;
		(*out)[k].time = sat_add((*out)[k].time, v[i].end - v[i].start);
	}
	for (size_t k = base; k < *len; k++)
		(*out)[k].gbps =
		    (*out)[k].time > 0 ? (double)(*out)[k].size / (double)(*out)[k].time : 0.0;
	if (*len - base > 1)
		qsort(*out + base, *len - base, sizeof **out, cmp_link);
	return *len - base;
}

const char *const tl_mx_pick_name[TL_MX__PICKS] = {"top1", "middle", "bottom1", "bottom2",
                                                   "bottom3"};

typedef struct ranked {
	double gbps;
	size_t i;
} ranked;

static int
cmp_ranked(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	if (x->gbps != y->gbps)
		return x->gbps > y->gbps ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i); /* ties: the earlier op first */
}

void
comm_matrix_picks(const tl_comm_link *const *v, size_t n, size_t pick[TL_MX__PICKS])
{
	for (int k = 0; k < TL_MX__PICKS; k++)
		pick[k] = SIZE_MAX;
	if (n == 0)
		return;
	ranked *r = xreallocarray(NULL, n, sizeof *r);
	for (size_t i = 0; i < n; i++)
		r[i] = (ranked){v[i]->gbps, i};
	qsort(r, n, sizeof *r, cmp_ranked);
	pick[TL_MX_TOP1] = r[0].i;
	pick[TL_MX_MIDDLE] = r[n / 2].i;
	for (size_t k = 0; k < 3 && k < n; k++)
		pick[TL_MX_BOTTOM1 + k] = r[n - 1 - k].i;
	free(r);
}

void
comm_matrix_type(const char *op_type, char *out, size_t len)
{
	size_t o = 0;
	const char *s = op_type;
	if (strncmp(s, "hcom", 4) == 0)
		s += 4;
	for (; *s && o + 1 < len; s++)
		if (*s != '_')
			out[o++] = (char)tolower((unsigned char)*s);
	if (len > 0)
		out[o] = '\0';
}
