/* Launch delays: how long after the host called the launching CANN API the device started the
 * work (TASK.startNs minus CANN_API.startNs of the same connectionId). Long delays with an idle
 * device are not "host bound"; short delays before idle device time are. */
#ifndef TL_LAUNCH_H
#define TL_LAUNCH_H
#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

/* Nearest-rank percentile p (0 < p <= 100) of sorted v[0..n), n > 0: v[ceil(p n / 100) - 1]. */
int64_t launch_percentile(const int64_t *v, size_t n, int p);

/* Per step of r, by the launch's host start (a rank with one step: every launch is in it, as
 * torch_npu's step statistics count a one-step capture), in step order, launches outside every
 * step last. Returns the number of rows; *out (caller frees) has them. */
size_t launch_steps(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step **out);

/* Device idle time in [t0, t1) of the work of `step` (TL_NO_STEP: all work): the gaps between
 * consecutive blocks of the union of compute kernels and communication ops, the envelope's
 * free time. For each gap [s, e) the work that ends it is launched by the launch whose device
 * start is the first at or after e (the earliest host start among equal ones); when that launch
 * started on the host at L > s, the device waited on the host for [s, min(L, e)): host bound.
 * Launches with no device work after a gap leave it unattributed. v: sorted by launch_sort_dev. */
typedef struct tl_host_idle {
	int64_t idle, idle_host; /* ns */
} tl_host_idle;
void launch_sort_dev(tl_launch *v, size_t n);
void launch_idle(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, const tl_launch *v,
                 size_t n, tl_host_idle *out);
/* The gaps launch_idle sums, one by one in time order: fn(ctx, s, e, host), host the part of
 * [s, e) the device waited on the host (0 when the launch had begun before the gap). */
typedef void (*launch_gap_fn)(void *ctx, int64_t s, int64_t e, int64_t host);
void launch_idle_gaps(const tl_rank *r, uint16_t step, int64_t t0, int64_t t1, const tl_launch *v,
                      size_t n, launch_gap_fn fn, void *ctx);
/* For each step of r with work (the window launch_steps_idle scans; a rank without steps: one,
 * id -1), step(ctx, id), then its gaps through fn. v: sorted by launch_sort_dev. */
typedef void (*launch_step_fn)(void *ctx, int64_t step_id);
void launch_step_gaps(const tl_rank *r, const tl_launch *v, size_t n, launch_step_fn step,
                      launch_gap_fn fn, void *ctx);

/* Fills have_idle, idle and idle_host of rows[0..nrows) (launch_steps' rows of r): each step's
 * idle time over the envelope of its own work. v is reordered (launch_sort_dev). */
void launch_steps_idle(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step *rows,
                       size_t nrows);

#endif
