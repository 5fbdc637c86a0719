/* MSTX range messages. torch_npu stores the message a user passed to mstx.range_start as is;
 * pp_chart's patch passes str(dict), so the message is the repr of a Python dict
 * ("{'name': 'forward_step', 'current_microbatch': 3}"), and other code passes JSON
 * ('{"name": "forward_step"}'). Both say a name and maybe a micro-batch. */
#ifndef TL_MSTX_H
#define TL_MSTX_H
#include <stddef.h>

/* When msg[0..len) is such a dict with a string "name": its name into name[0..cap) (NUL-
 * terminated, cut to fit), *microbatch = its integer "current_microbatch" (or "microbatch"),
 * -1 when it has none, and returns 1. Anything else returns 0 and leaves both untouched. */
int mstx_msg_decode(const char *msg, size_t len, char *name, size_t cap, int *microbatch);

/* The label of a range on the device lane: the decoded name, with " (micro-batch N)" when the
 * message gives one; else the message itself. Returns out. */
const char *mstx_msg_label(const char *msg, size_t len, char *out, size_t cap);

#endif
