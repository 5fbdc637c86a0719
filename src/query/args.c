/* Arguments of a slice for the detail pane: each format reads its own again from the file
 * (the loader's args hook), long after loading. */
#include "config.h"
#include "load/load.h"
#include "query/query.h"

int
tlq_slice_args(const tl_rank *r, const tl_track *t, size_t idx, tlq_arg_fn fn, void *ctx)
{
	return load_slice_args(r, t, idx, fn, ctx);
}
