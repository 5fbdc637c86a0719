/* Profile discovery: which ranks, which files (docs/architecture.md, "profile"). */
#ifndef TL_DISCOVER_H
#define TL_DISCOVER_H
#include "model/source.h"
#include "util/rankspec.h"

/* Walks path (a directory, depth <= 10, symlink loops avoided, or a single file) and appends
 * every source whose rank is in `ranks` (NULL = all). Ranks asked for but absent are named in a
 * warning. Returns 0, or -1 when path cannot be read at all (message printed). */
int discover(const char *path, const tl_rankset *ranks, tl_sourcelist *out);

#endif
