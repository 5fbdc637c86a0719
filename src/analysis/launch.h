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

#endif
