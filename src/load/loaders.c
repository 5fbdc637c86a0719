/* The loader of each source kind: the one place that maps a kind to its format's code. */
#include "config.h"
#include "load/load.h"

#include <stddef.h>

const tl_loader *
loader_for(tl_source_kind k)
{
	switch (k) {
	case TL_SRC_TORCH_DB:
	case TL_SRC_MSPROF_DB:
	case TL_SRC_MINDSPORE_DB:
		return &loader_ascend_db;
	case TL_SRC_TRACE_VIEW:
	case TL_SRC_KINETO:
	case TL_SRC_MSPROF_ITER:
	case TL_SRC_MS_TIMELINE:
		return &loader_trace_json;
	default:
		return NULL;
	}
}
