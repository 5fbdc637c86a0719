/* What the gzip reader's tests share (test_gzin.c, the gzjson fuzz target and its replay): data
 * compressed in memory as one gzip member, as torch's use_gzip=True writes a trace. */
#ifndef TL_TEST_GZIP_H
#define TL_TEST_GZIP_H

#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* size bytes of data deflated at level (1..9) with the gzip wrapper, into a new buffer of *out
 * bytes; NULL when zlib fails. */
static inline unsigned char *
gzip_of(const void *data, size_t size, int level, size_t *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t cap = deflateBound(&z, (uLong)size) + 32;
	unsigned char *b = xmalloc(cap);
	z.next_in = (Bytef *)data;
	z.avail_in = (uInt)size;
	z.next_out = b;
	z.avail_out = (uInt)cap;
	int r = deflate(&z, Z_FINISH);
	*out = cap - z.avail_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(b);
		return NULL;
	}
	return b;
}

#endif
