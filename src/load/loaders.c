/* The loader of each source kind, from the formats' one list (model/source.h, TL_FORMATS): the
 * one place that expands its loader column. */
#include "config.h"
#include "load/load.h"

#include <stddef.h>

static const tl_loader *const loaders[TL_SRC__COUNT] = {
#define ROW(kind, name, loader, caps) [TL_SRC_##kind] = &loader,
    TL_FORMATS(ROW)
#undef ROW
};

const tl_loader *
loader_for(tl_source_kind k)
{
	return (unsigned)k < TL_SRC__COUNT ? loaders[k] : NULL;
}
