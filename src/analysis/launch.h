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
/* Both in one pass over each step's work: launch_steps_idle's rows filled, and for each step
 * with work step(ctx, id) then its gaps through fn, as launch_step_gaps gives them (step and fn
 * may be NULL). The load's gather: the unions of a step's work walked once, not twice. */
void launch_steps_idle_gaps(const tl_rank *r, tl_launch *v, size_t n, tl_launch_step *rows,
                            size_t nrows, launch_step_fn step, launch_gap_fn fn, void *ctx);

/* Launches by device start (launch_sort_dev) in 8 bytes each rather than 16, for a lookup by
 * device start: in blocks of up to 256 whose device starts are within 2^32 ns of the block's
 * first, each launch its device start's offset there and its host start's difference from its
 * device start (INT32_MIN: in the table of the wider ones, by index). */
typedef struct tl_launch_pack {
	struct tl_launch_block {
		int64_t dev0;   /* the device start of its first launch */
		uint32_t first; /* the index of its first launch */
		uint32_t wide;  /* the index in wide of its first wide launch (or of the next
		                   block's; in the padding: no byte more) */
	} * blk;
	size_t nblk;
	struct tl_launch_word {
		uint32_t dev; /* the device start's offset from its block's dev0 */
		int32_t host; /* the host start's difference from the device start */
	} * w;
	struct tl_launch_wide {
		size_t i; /* index of the launch */
		int64_t host_start;
	} * wide;
	size_t nwide, n;
} tl_launch_pack;
void launch_pack(tl_launch_pack *, const tl_launch *v, size_t n);
/* As launch_pack, v (malloc'ed) taken and its memory the pack's: each launch's 8 bytes are
 * written over those already read, so that the 16 bytes a launch and the 8 are not held at
 * once (1 M launches: 24 MB at the peak, now 16). */
void launch_pack_take(tl_launch_pack *, tl_launch *v, size_t n);
/* As launch_pack_take from launches in 12 bytes each (tl_launch_rec, unsorted, v malloc'ed):
 * put in launch_sort_dev's order in place (a heap sort when not in it already: no scratch),
 * then packed in place, word i over record i (8 i + 8 <= 12 (i + 1)): 12 bytes a launch at
 * the top. The same pack as launch_pack_take of the same launches as tl_launch. */
void launch_pack_take_recs(tl_launch_pack *, tl_launch_rec *v, size_t n);
/* The host start of the launch whose device start is the first at or after t (equal ones: the
 * earliest host start, launch_idle's rule), or INT64_MIN when none follows. */
int64_t launch_pack_next(const tl_launch_pack *, int64_t t);
/* As launch_pack_next, starting from the cursor *at (0 at first; the answer's place after):
 * one per caller, whose questions come near each other. */
int64_t launch_pack_next_at(const tl_launch_pack *, int64_t t, uint64_t *at);
void launch_pack_free(tl_launch_pack *);

#endif
