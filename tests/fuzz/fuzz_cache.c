/* The model cache's reader on one (mutated) cache file, then the analyses, the reports and
 * the viewer's lookups over the rank it accepted. An input is the body of a cache file after
 * its key: the target puts a valid header and key in front and repairs the checksum, so that
 * mutations reach the decoder's own checks rather than stopping at the checksum. An input
 * that starts with 'R' is taken whole, as a file, for the header checks; one that starts with
 * 'T' is a stored result's body (fuzz_result: a command's output, or a binary part, whose
 * bytes, a critical path's, go to tlq_critical_decode); one that starts with 'P' is a critical
 * path's binary part itself (fuzz_part). Inputs
 * are decoded in place, as a mapped file is (the lanes borrow the buffer), or copied, by the
 * parity of their length in words. */
#include "config.h"
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "query/query.h"
#include "store/cache.h"
#include "util/xalloc.h"

/* The critical path's decoder (query/critpath.c) on a part's bytes: refused with a reason and
 * nothing left allocated, or a path its readers can walk (segments tiling each step, names
 * inside the names, kinds in range, blame summing to the step). */
static int
fuzz_part(const uint8_t *data, size_t size)
{
	uint8_t *b = xmalloc(size ? size : 1); /* exactly size bytes: a read past them is caught */
	if (size > 0)
		memcpy(b, data, size);
	tl_cp_result r;
	const char *why = tlq_critical_decode(b, size, &r);
	if (why != NULL && (r.steps != NULL || r.names != NULL || *why == '\0'))
		abort();
	for (size_t i = 0; why == NULL && i < r.n; i++) {
		const cp_step *s = &r.steps[i];
		int64_t t = s->start, blamed = 0;
		for (size_t k = 0; k < s->nseg; k++) {
			if (s->seg[k].start != t || s->seg[k].kind >= CP__COUNT ||
			    s->seg[k].name >= s->nnames || s->seg[k].who >= s->nwho ||
			    cp_seg_stage(s, &s->seg[k]) < -1 ||
			    strlen(cp_seg_name(s, &s->seg[k])) > size)
				abort();
			t = cp_seg_end(s, k);
		}
		for (size_t k = 0; k < s->nblame; k++) {
			if (s->blame[k].kind >= CP__COUNT || s->blame[k].ns < 0 ||
			    s->blame[k].ns > INT64_MAX - blamed)
				abort();
			blamed += s->blame[k].ns;
		}
		if (t != s->end || (uint64_t)blamed != (uint64_t)s->end - (uint64_t)s->start)
			abort();
		for (size_t k = 0; k < s->nops; k++)
			if (strlen(s->ops[k].name) > size)
				abort();
	}
	if (why == NULL) {
		/* what the encoder makes of an accepted path is accepted again, as the same */
		size_t n2 = 0;
		uint8_t *b2 = tlq_critical_encode(&r, &n2);
		tl_cp_result r2;
		if (b2 == NULL || tlq_critical_decode(b2, n2, &r2) != NULL || r2.n != r.n)
			abort();
		tlq_critical_free(&r2);
		free(b2);
		tlq_critical_free(&r);
	}
	free(b);
	return 0;
}

/* A stored result's reader (cache_result.c): the input is the body after the key; a valid
 * header and key go in front and the checksum is repaired, as for a model. */
static int
fuzz_result(const uint8_t *data, size_t size)
{
	static const uint8_t key[] = "fuzz-result-key";
	size_t klen = sizeof key - 1, len = RESULT_HEADER + klen + size;
	uint8_t *buf = xcalloc(1, len);
	memcpy(buf + RESULT_HEADER, key, klen);
	if (size > 0)
		memcpy(buf + RESULT_HEADER + klen, data, size);
	uint32_t ver = 2, bom = 0x01020304u;
	uint64_t size64 = len, kl = klen,
	         sum = cache_checksum(buf + RESULT_HEADER, len - RESULT_HEADER);
	memcpy(buf, "TLRESULT", 8);
	memcpy(buf + 8, &ver, 4);
	memcpy(buf + 12, &bom, 4);
	memcpy(buf + 16, &size64, 8);
	memcpy(buf + 24, &sum, 8);
	memcpy(buf + 32, &kl, 8);
	tl_result res;
	const char *why = cache_result_decode(buf, len, key, klen, &res);
	/* what a hit prints: the bytes it says it holds, no more */
	if (why == NULL && res.out != NULL &&
	    (strlen(res.out) > res.nout || strlen(res.err) > res.nerr))
		abort();
	cache_result_free(&res);
	/* the same file as a part: never both a command's output and a part */
	const uint8_t *part;
	size_t np;
	const char *pwhy = cache_part_decode(buf, len, key, klen, &part, &np);
	if (why == NULL && pwhy == NULL)
		abort();
	if (pwhy == NULL && part != NULL)
		fuzz_part(part, np);
	free(buf);
	return 0;
}

FUZZ_ENTRY(cache)
{
	fuzz_setup();
	static tl_source src; /* the rank's one source: a DB that is not there */
	memset(&src, 0, sizeof src);
	src.rank = 0;
	src.kind = TL_SRC_TORCH_DB;
	src.path = (char *)"/nonexistent/tl-fuzz/ascend_pytorch_profiler_0.db";
	src.role_step = -1;
	uint8_t *buf;
	size_t len;
	if (size > 0 && data[0] == 'T')
		return fuzz_result(data + 1, size - 1);
	if (size > 0 && data[0] == 'P')
		return fuzz_part(data + 1, size - 1);
	if (size > 0 && data[0] == 'R') {
		len = size - 1;
		buf = xmalloc(len + 1);
		memcpy(buf, data + 1, len);
	} else {
		size_t klen;
		uint8_t *key = cache_key(&src, 1, &klen);
		len = TL_CACHE_HEADER + klen + size;
		buf = xcalloc(1, len);
		memcpy(buf + TL_CACHE_HEADER, key, klen);
		if (size > 0)
			memcpy(buf + TL_CACHE_HEADER + klen, data, size);
		uint32_t ver = TL_CACHE_VERSION, bom = 0x01020304u;
		uint64_t size64 = len, kl = klen;
		memcpy(buf, "TLMODEL", 8);
		memcpy(buf + 8, &ver, 4);
		memcpy(buf + 12, &bom, 4);
		memcpy(buf + 16, &size64, 8);
		memcpy(buf + 32, &kl, 8);
		uint64_t sum = cache_checksum(buf + TL_CACHE_HEADER, len - TL_CACHE_HEADER);
		memcpy(buf + 24, &sum, 8);
		free(key);
	}
	char err[160];
	/* as tl reads a mapped file: the rank's lanes point into buf until it is freed; every
	 * other input in the copying reader */
	if ((len / 8) & 1) {
		tl_rank *r = cache_decode(buf, len, &src, 1, err, sizeof err);
		free(buf);
		if (r != NULL)
			fuzz_exercise_rank(r, &src); /* frees r */
		return 0;
	}
	/* read-only pages, as the mapping is: a change to a borrowed lane faults */
	void *ro =
	    mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED) {
		free(buf);
		return 0;
	}
	memcpy(ro, buf, len);
	free(buf);
	mprotect(ro, len ? len : 1, PROT_READ);
	tl_rank *r = cache_decode_mapped(ro, len, &src, 1, 1, err, sizeof err);
	if (r != NULL)
		fuzz_exercise_rank(r, &src); /* frees r */
	munmap(ro, len ? len : 1);
	return 0;
}
