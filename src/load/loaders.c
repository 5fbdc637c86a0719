/* The loader of each source kind, from the formats' one list (model/source.h, TL_FORMATS): the
 * one place that expands its loader column. */
#include "config.h"
#include "load/load.h"

#include <stddef.h>

/* every row's loader, declared here: a new loader needs no line of load.h */
#define ROW(kind, name, loader, caps, glob, magic) extern const tl_loader loader;
TL_FORMATS(ROW)
#undef ROW

static const tl_loader *const loaders[TL_SRC__COUNT] = {
#define ROW(kind, name, loader, caps, glob, magic) [TL_SRC_##kind] = &loader,
    TL_FORMATS(ROW)
#undef ROW
};

const tl_loader *
loader_for(tl_source_kind k)
{
	return (unsigned)k < TL_SRC__COUNT ? loaders[k] : NULL;
}
