/* Communication analysis of one op from its HCCL sub-tasks: the time breakdown, the bandwidth
 * per transport and the traffic per (source, destination) rank pair, as CANN's communication
 * analysis reports them (analysis.db CommAnalyzerTime, CommAnalyzerBandwidth,
 * CommAnalyzerMatrix). Pure functions over model/comm.h. */
#ifndef TL_ANALYSIS_COMM_H
#define TL_ANALYSIS_COMM_H
#include <stddef.h>
#include <stdint.h>

#include "model/comm.h"

typedef struct tl_comm_time {
	int64_t elapse;    /* op end - op start */
	int64_t transit;   /* moving data */
	int64_t wait;      /* waiting for peers (Notify_Wait) */
	int64_t sync;      /* the part of wait before the first transfer: waiting for a late rank */
	int64_t idle;      /* elapse - transit - wait: launch and scheduling */
	double sync_ratio; /* sync / (transit + sync), 0 when both are 0 */
	double wait_ratio; /* wait / (transit + wait), 0 when both are 0 */
	int64_t plane;     /* the plane measured; -1 when the op has no transfer sub-task */
} tl_comm_time;

/* The time breakdown of op, whose sub-tasks are v[0 .. n) (sorted by start). */
void comm_time(const tl_comm_op *op, const tl_comm_task *v, size_t n, tl_comm_time *out);

typedef struct tl_comm_packet {
	uint64_t size;  /* bytes of each transfer */
	uint64_t count; /* transfers of this size */
	int64_t time;   /* their summed durations, ns */
} tl_comm_packet;

typedef struct tl_comm_bw {
	uint8_t xport;      /* tl_xport, never LOCAL; SDMA: the sum of the SDMA engine's links */
	uint64_t size;      /* bytes */
	int64_t time;       /* ns */
	double gbps;        /* size / time: bytes per ns = GB/s (10^9 bytes); 0 when time is 0 */
	tl_comm_packet *pk; /* by size, ascending; owned; none for the SDMA sum */
	size_t npk;
} tl_comm_bw;

/* The bandwidth of one op per transport to other ranks: rows appended to *out (grown with
 * VEC_PUSH semantics through *cap), in tl_xport order, the SDMA sum after the links it sums.
 * Returns the number of rows added. */
size_t comm_bandwidth(const tl_comm_task *v, size_t n, tl_comm_bw **out, size_t *len, size_t *cap);
void comm_bw_free(tl_comm_bw *, size_t n);

typedef struct tl_comm_link {
	int64_t src, dst; /* ranks; a transfer without destination is the source's own (LOCAL) */
	uint8_t xport;    /* of the pair's first transfer */
	uint64_t size;    /* bytes */
	int64_t time;     /* ns */
	double gbps;
} tl_comm_link;

/* The traffic of one op per (source, destination) pair, appended to *out by (src, dst).
 * Returns the number of rows added. */
size_t comm_links(const tl_comm_task *v, size_t n, tl_comm_link **out, size_t *len, size_t *cap);

/* msprof's summary rows of a rank-pair matrix: for one (group, step, op type, source,
 * destination), its ops ranked by bandwidth, highest first; the rows name the op at rank 0
 * ("-top1"), n / 2 ("-middle"), n - 1, n - 2, n - 3 ("-bottom1" .. "-bottom3"), and "-total" sums
 * them all. Checked against torch_npu's CommAnalyzerMatrix on every row. */
enum { TL_MX_TOP1, TL_MX_MIDDLE, TL_MX_BOTTOM1, TL_MX_BOTTOM2, TL_MX_BOTTOM3, TL_MX__PICKS };
extern const char *const tl_mx_pick_name[TL_MX__PICKS]; /* "top1", "middle", "bottom1" ... */
/* For links v[0 .. n) of one pair: pick[k] = the index into v of the k-th summary row's op, or
 * SIZE_MAX when there are too few ops for it. */
void comm_matrix_picks(const tl_comm_link *const *v, size_t n, size_t pick[TL_MX__PICKS]);
/* The summary rows' prefix for an op type: lower case, without "hcom" and underscores
 * ("hcom_allReduce_" -> "allreduce"). */
void comm_matrix_type(const char *op_type, char *out, size_t len);

#endif
