/* What the loaders share to defend against files that change under them: the SIGBUS recovery
 * point of a loader thread reading a mapping (load.c's handler jumps there), and the check that
 * a source read again after loading is still the file that was loaded. Called by the loaders,
 * calling none of them. */
#include "config.h"
#include "load/load_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

_Thread_local sigjmp_buf *load_bus_env;

/* Here rather than in load.c, which sets it, so that profdb.c reads it without a cycle back
 * through load.c. */
_Atomic int load_cancel_flag;

int
load_cancelled(void)
{
	return load_cancel_flag;
}

int
load_source_unchanged(const tl_source *src, load_arg_fn fn, void *ctx)
{
	struct stat sb;
	char err[400];
	if (stat(src->path, &sb) != 0) {
		snprintf(err, sizeof err,
		         "the file is gone (%s: deleted or moved since tl loaded "
		         "it): %s",
		         strerror(errno), src->path);
		fn(ctx, "arguments", err);
		return -1;
	}
	if (!source_is_file(src, &sb)) {
		snprintf(err, sizeof err,
		         "not shown: the file changed since tl loaded it (replaced, "
		         "or still being written): %s",
		         src->path);
		fn(ctx, "arguments", err);
		return -1;
	}
	return 0;
}

static _Atomic uint64_t source_opens;

void
load_count_open(void)
{
	source_opens++;
}

uint64_t
load_source_opens(void)
{
	return source_opens;
}

static _Atomic uint64_t page_rows;

void
load_count_page_rows(uint64_t n)
{
	page_rows += n;
}

uint64_t
load_page_rows(void)
{
	return page_rows;
}
