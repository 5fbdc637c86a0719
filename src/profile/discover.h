/* Profile discovery: which ranks, which files (docs/architecture.md, "profile"). */
#ifndef TL_DISCOVER_H
#define TL_DISCOVER_H
#include "model/source.h"
#include "util/rankspec.h"

/* Walks path (a directory, depth <= 10, symlink loops avoided, or a single file) and appends
 * every source whose rank is in `ranks` (NULL = all). Ranks asked for but absent are named in a
 * warning. Returns 0, or -1 when path cannot be read at all (message printed). A single file
 * that is not a profile is named in an error and lists nothing (0): callers treat it as they
 * treat a directory without profiles. */
int discover(const char *path, const tl_rankset *ranks, tl_sourcelist *out);

/* Which run each source belongs to (run_of[i], 0-based) when the path holds several jobs
 * (discover_runs.c says how they are told apart); returns the number of runs (0 for none). */
int discover_runs(const tl_sourcelist *, int *run_of);
/* One line naming a run: its directory, kind, files, ranks and capture time. */
void discover_run_describe(const tl_sourcelist *, const int *run_of, int run, char *buf,
                           size_t len);

/* The host a JSON trace names at its start (a root "hostname", or distributedInfo's), as its
 * loader will take it; NULL when none (malloc'd). */
char *discover_json_host(const char *path);

#endif
