/* The Chrome-trace JSON loader (Ascend trace_view.json, Kineto, the legacy PyTorch array) on one
 * file, then the analyses and reports over what it loaded. */
#include "config.h"
#include "fuzz.h"

#include <string.h>

#include "loading/loading.h"
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
	/* an array also as the older Ascend layouts read it: one iteration of an msprof export
	 * of a device with two models (Step Trace steps), and a MindSpore 1.x timeline (streams
	 * by tid; its step trace CSV is absent) */
	static const tl_source_kind older[] = {TL_SRC_MSPROF_ITER, TL_SRC_MS_TIMELINE};
	for (size_t k = 0; src.kind == TL_SRC_TRACE_VIEW && k < sizeof older / sizeof *older; k++) {
		tl_source o = src;
		o.kind = older[k];
		o.rank = 0;
		o.model_id = 2;
		o.iteration = 1;
		o.models = 2;
		tl_rank *q = rank_new(0);
		q->sources = xcalloc(1, sizeof *q->sources);
		q->sources[q->nsources++] = &o;
		q->loaded = loader_trace_json.load(&o, q, NULL) == 0;
		rank_finish(q);
		fuzz_exercise_rank(q, &o);
	}
	return 0;
}
