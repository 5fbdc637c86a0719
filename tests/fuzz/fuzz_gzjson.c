/* The gzip path of the JSON loader: a *.json.gz inflated through zlib (util/gzin.c), bounded,
 * then loaded as a Kineto trace, its events' args read again through the inflated stream.
 * An input that is gzip data is written as it is (corrupt headers, bad CRCs, truncated members,
 * members after members); any other input is a JSON text that is compressed here and cut where
 * its first byte says, so that the fuzzer reaches the JSON behind a valid stream and every
 * kind of truncation. The uncompressed bound is small (TL_GZIP_MAX=1M): a bomb fails fast. */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "loading/loading.h"
#include "util/gzin.h"
#include "util/xalloc.h"
#include "../unit/util/gzip_test.h"

FUZZ_ENTRY(gzjson)
{
	fuzz_setup();
	setenv("TL_GZIP_MAX", "1M", 1);
	unsigned char *gz = NULL;
	size_t n = size;
	const uint8_t *bytes = data;
	if (!gzin_magic(data, size) && size > 0) {
		/* byte 0: where to cut the stream (255: whole), the rest: the JSON */
		gz = gzip_of(data + 1, size - 1, 6, &n);
		if (gz == NULL)
			return 0;
		if (data[0] != 255)
			n = n * data[0] / 255;
		bytes = gz;
	}
	tl_source src;
	memset(&src, 0, sizeof src);
	src.rank = -1;
	src.kind = TL_SRC_KINETO;
	src.path = (char *)fuzz_file(bytes, n, "json.gz");
	src.role_step = -1;
	free(gz);
	tl_rank *r = rank_new(-1);
	r->sources = xcalloc(1, sizeof *r->sources);
	r->sources[r->nsources++] = &src;
	r->loaded = loader_trace_json.load(&src, r, NULL) == 0;
	rank_finish(r);
	fuzz_exercise_rank(r, &src);
	return 0;
}
