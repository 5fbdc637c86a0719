/* Host-side queries: host API lanes (read on demand), launch delays per step, and the links
 * from a device task to the host calls that launched it and back. */
#ifndef TL_QUERY_HOST_H
#define TL_QUERY_HOST_H
#include <stddef.h>
#include <stdint.h>

#include "analysis/launch.h"
#include "load/load.h"
#include "model/trace.h"
#include "query/query.h"

/* Reads the host API lanes of every rank that has not got them yet (DB profiles read them on
 * demand; JSON traces have them from loading), once per session, under its lock. It adds
 * tracks to the ranks: the viewer calls it from its own thread, between frames. */
void tlq_host_lanes(const tl_query *);
/* The same for one rank (index ri) only: a scan of one rank (tl query's rank = N) reads no other
 * rank's files. */
void tlq_host_lanes_rank(const tl_query *, size_t ri);

/* r's launches per step (launch_steps); *out is the caller's. */
size_t tlq_launch_steps(const tl_rank *r, tl_launch_step **out);

/* Rank ri's device idle time inside [t0, t1) and the part of it the host was still launching
 * (launch_idle over all of its work). -1 (zeros) when the rank's sources have no launches. The
 * launches of every rank are read on the first call, once per session. */
int tlq_host_idle(const tl_query *, size_t ri, int64_t t0, int64_t t1, tl_host_idle *out);
/* Rank ri's device idle gaps step by step (launch_step_gaps over the same launches). -1 (no
 * call) when the rank's sources have no launches. */
int tlq_host_gaps(const tl_query *, size_t ri, launch_step_fn step, launch_gap_fn fn, void *ctx);

#endif

/* ---- host <-> device links ----
 * Read from the source file on demand by its loader (load.h: the launcher, kernels and stack
 * hooks); a file that changed since loading is not read. In a DB, a device task's
 * TASK.connectionId is the CANN_API call that launched it; the PyTorch rows behind it are
 * PYTORCH_API rows whose connectionId is a CONNECTION_IDS.id expanding to it. */

typedef tl_launcher tlq_launcher;

/* The launch of the device work at slice idx of t (a TASK row: compute, communication
 * sub-task, memcpy, other; or a COMMUNICATION_OP row). 1: *out is filled; 0: not a DB task or
 * nothing launched it; -1: the file could not be read. */
int tlq_task_launcher(const tl_rank *, const tl_track *, size_t idx, tlq_launcher *out);

typedef tl_kernel tlq_kernel;

/* The device tasks the PyTorch row at slice idx of host lane t launched, by start; *out is the
 * caller's. -1 when the file could not be read, 0 for a slice that is no PyTorch row. */
ptrdiff_t tlq_op_kernels(const tl_rank *, const tl_track *, size_t idx, tlq_kernel **out);

/* The detail pane's link lines of a slice through fn (as tlq_slice_args): "launched by",
 * "launch delay" for a device task, "kernels" for a PyTorch operator. Returns lines added. */
int tlq_slice_links(const tl_rank *, const tl_track *, size_t idx,
                    void (*fn)(void *ctx, const char *key, const char *value), void *ctx);
/* The same for slice idx of track t of rank ri, answered from the session's link index of the
 * rank (tlq_link_index: built on the first call) rather than by scanning the profile's tables
 * for each slice. */
int tlq_slice_links_q(const tl_query *, size_t ri, const tl_track *, size_t idx,
                      void (*fn)(void *ctx, const char *key, const char *value), void *ctx);

/* fn(rank, index, ctx) for every rank of tr, ranks in parallel (threads 0: one per core). */
void tlq_for_ranks(const tl_trace *, int threads, void (*fn)(const tl_rank *, size_t, void *),
                   void *ctx);

/* tlq_launch_steps for every rank, ranks in parallel (threads 0: one per core): out[i] is rank
 * i's rows, n[i] their count; the caller frees each out[i], then out and n. */
void tlq_launch_steps_all(const tl_query *, int threads, tl_launch_step ***out, size_t **n);

/* A Python frame "dir/file.py(42): function" as "file.py:42" (as it is when it is not of that
 * form), in buf. */
const char *tlq_frame_place(const char *frame, char *buf, size_t len);

/* The Python call stack recorded with the PyTorch row at slice idx of host lane t
 * (PYTORCH_API.callchainId -> PYTORCH_CALLCHAINS, with_stack captures): frames innermost first,
 * "file.py(line): function"; *out is the caller's (each string and the array). -1 when the file
 * could not be read, 0 when the row has no stack. */
ptrdiff_t tlq_op_stack(const tl_rank *, const tl_track *, size_t idx, char ***out);
