/* The Ascend DB loader on one (mutated) SQLite file, then the analyses, the reports and the
 * viewer's argument lookups over what it loaded. */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/launch.h"
#include "load/load.h"
#include "util/xalloc.h"

FUZZ_ENTRY(db)
{
	fuzz_setup();
	tl_source src;
	memset(&src, 0, sizeof src);
	src.rank = -1;
	src.kind = TL_SRC_TORCH_DB;
	src.path = (char *)fuzz_file(data, size, "db");
	src.role_step = -1;
	tl_rank *r = rank_new(-1);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = &src;
	/* half the inputs (by length) gather the operators and launches while loading, so that
	 * both the gathering and the on-demand readers see every kind of file */
	tl_gather g = {.tables = size % 2 ? TL_TABLE_OPS | TL_TABLE_LAUNCHES : 0};
	if (g.tables) {
		r->ops = xmalloc(sizeof *r->ops);
		op_data_init(r->ops);
	}
	r->loaded = loader_ascend_db.load(&src, r, &g) == 0;
	rank_finish(r);
	if (g.tables && (g.failed || !r->loaded)) {
		op_data_free(r->ops);
		free(r->ops);
		r->ops = NULL;
	} else if (g.tables) {
		op_data_finish(r->ops);
		r->nlaunch_steps = launch_steps(r, g.launches, g.nlaunches, &r->launch_steps);
		r->have_launch_steps = 1;
	}
	free(g.launches);
	fuzz_exercise_rank(r, &src);
	return 0;
}
