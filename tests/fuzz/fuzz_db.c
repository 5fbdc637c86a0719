/* The Ascend DB loader on one (mutated) SQLite file, then the analyses, the reports and the
 * viewer's argument lookups over what it loaded. */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "loading/loading.h"
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
	/* half the inputs (by length) gather every table while loading, so that both the
	 * gathering and the on-demand readers see every kind of file */
	tl_gather g;
	load_gather_begin(r, &g, size % 2 ? TL_TABLE_ALL : 0);
	r->loaded = loader_ascend_db.load(&src, r, &g) == 0;
	rank_finish(r);
	load_gather_end(r, &g);
	fuzz_exercise_rank(r, &src);
	return 0;
}
