/* The Chrome-trace JSON loader (Ascend trace_view.json, Kineto, the legacy PyTorch array) on one
 * file, then the analyses and reports over what it loaded. */
#include "config.h"
#include "fuzz.h"

#include <string.h>

#include "load/load.h"
#include "util/xalloc.h"

FUZZ_ENTRY(json)
{
	fuzz_setup();
	tl_source src;
	memset(&src, 0, sizeof src);
	src.rank = -1;
	src.kind = size > 0 && data[0] == '{' ? TL_SRC_KINETO : TL_SRC_TRACE_VIEW;
	src.path = (char *)fuzz_file(data, size, "json");
	src.role_step = -1;
	tl_rank *r = rank_new(-1);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = &src;
	r->loaded = loader_trace_json.load(&src, r, NULL) == 0;
	rank_finish(r);
	fuzz_exercise_rank(r, &src);
	int64_t ns[4];
	trace_json_overlap_lengths(src.path, ns);
	return 0;
}
