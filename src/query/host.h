/* Host-side queries: host API lanes (read on demand), launch delays per step, and the links
 * from a device task to the host calls that launched it and back. */
#ifndef TL_QUERY_HOST_H
#define TL_QUERY_HOST_H
#include <stddef.h>
#include <stdint.h>

#include "analysis/launch.h"
#include "model/trace.h"

/* Reads the host API lanes of every rank that has not got them yet (DB profiles read them on
 * demand; JSON traces have them from loading). */
void tlq_host_lanes(tl_trace *);

/* r's launches per step (launch_steps); *out is the caller's. */
size_t tlq_launch_steps(const tl_rank *r, tl_launch_step **out);

#endif
