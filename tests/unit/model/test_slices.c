/* The 16-byte slice (model/trace.h): a duration below 2^31 ns in the slice, a longer one's end
 * (or an end before the start) in its track's table; the row ids beside the slices, absent
 * where none was given or the rank keeps none. Every end, duration and row id read back through
 * the accessors after pushing out of order, sorting, splitting into depth levels, changing
 * times both ways across 2^31 ns, dropping row ids, and through a model cache file, copied and
 * mapped. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/cache.h"
#include "util/xalloc.h"
#include "../test.h"

#define LONG_NS (INT64_C(1) << 31)

typedef struct want {
	int64_t start, end;
	uint32_t arg;
} want;

/* a slice named "sI" (or "rI") is w[I]: each slice of t is the one it names */
static int
same(const tl_rank *r, const tl_track *t, const want *w, size_t nw, const char *what)
{
	int ok = 1;
	for (size_t k = 0; k < t->n; k++) {
		const tl_slice *s = &t->v[k];
		size_t i = (size_t)atoi(strpool_get(r->pool, s->name) + 1);
		if (i >= nw || s->start != w[i].start || track_end(t, k) != w[i].end ||
		    slice_end(t, s) != w[i].end || track_dur(t, k) != w[i].end - w[i].start ||
		    track_arg(t, k) != w[i].arg) {
			ok = 0;
			fprintf(stderr, "# %s: slice %zu (name %u): %lld..%lld arg %u\n", what, k,
			        s->name, (long long)s->start, (long long)track_end(t, k),
			        track_arg(t, k));
		}
	}
	return ok;
}

static tl_rank *
made(const want *w, size_t nw, int with_args, const tl_source *src)
{
	tl_rank *r = rank_new(0);
	r->loaded = 1;
	if (src != NULL) { /* before the lanes, as a loader adds it */
		r->sources = xmalloc(sizeof *r->sources);
		r->sources[0] = src;
		r->nsources = 1;
		r->src_t0 = xmalloc(sizeof *r->src_t0);
		r->src_t1 = xmalloc(sizeof *r->src_t1);
		*r->src_t0 = w[0].start;
		*r->src_t1 = w[nw - 1].end;
	}
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	char nm[16];
	for (size_t i = nw; i-- > 0;) { /* backwards: the finish sorts them */
		snprintf(nm, sizeof nm, "s%zu", i);
		track_push(t, w[i].start, w[i].end, strpool_intern_cstr(r->pool, nm),
		           with_args ? w[i].arg : UINT32_MAX);
	}
	rank_finish(r);
	return r;
}

/* slices of every kind of length, disjoint, the long ones among them */
static const want lane[] = {
    {0, 5, 7},
    {10, 10, UINT32_MAX},                       /* a mark */
    {20, 20 + LONG_NS - 1, 9},                  /* the longest kept in the slice */
    {30 + LONG_NS, 30 + 2 * LONG_NS, 11},       /* the first kept in the table */
    {40 + 2 * LONG_NS, 40 + 12 * LONG_NS, 12},  /* 25 s */
    {50 + 12 * LONG_NS, 51 + 12 * LONG_NS, 13}, /* short again */
};
#define NLANE (sizeof lane / sizeof *lane)

static void
test_sorted_and_set(void)
{
	tl_rank *r = made(lane, NLANE, 1, NULL);
	tl_track *t = r->tracks[0];
	CHECK(r->ntracks == 1 && t->n == NLANE, "one lane of %zu slices", NLANE);
	CHECK(same(r, t, lane, NLANE, "sorted"), "ends and row ids read back after sorting");
	CHECK(t->nlend == 2, "two ends in the table (%zu)", t->nlend);
	CHECK_EQ_I64(r->t_max, 51 + 12 * LONG_NS, "the envelope's end");
	want w[NLANE];
	memcpy(w, lane, sizeof w);
	/* long -> short, short -> long, long -> long, and an end before its start */
	size_t k_long = 3, k_short = 5, k_25s = 4, k_first = 0;
	w[k_long].end = w[k_long].start + 100;
	track_set_times(t, k_long, w[k_long].start, w[k_long].end);
	w[k_short].end = w[k_short].start + 3 * LONG_NS;
	track_set_times(t, k_short, w[k_short].start, w[k_short].end);
	w[k_25s].start += 1;
	w[k_25s].end += 7;
	track_set_times(t, k_25s, w[k_25s].start, w[k_25s].end);
	w[k_first].end = w[k_first].start - 2;
	track_set_times(t, k_first, w[k_first].start, w[k_first].end);
	CHECK(same(r, t, w, NLANE, "set"), "times changed across 2^31 ns both ways read back");
	w[1].arg = 77;
	track_set_arg(t, 1, 77);
	CHECK(track_arg(t, 1) == 77 && track_arg(t, 2) == 9, "a row id set");
	rank_drop_args(r, 1u << TL_LANE_COMM);
	CHECK(t->arg == NULL && track_arg(t, 0) == UINT32_MAX,
	      "row ids dropped but the kept kinds'");
	rank_free(r);

	r = made(lane, NLANE, 0, NULL);
	CHECK(r->tracks[0]->arg == NULL, "no row id given: no array");
	rank_free(r);

	r = rank_new(0);
	r->args_keep = 1u << TL_LANE_COMM;
	t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	tl_track *c = rank_track(r, TL_LANE_COMM, 0, "group");
	track_push(t, 0, 10, 1, 5);
	track_push(c, 0, 10, 1, 6);
	track_set_arg(t, 0, 8);
	CHECK(t->arg == NULL && track_arg(t, 0) == UINT32_MAX && track_arg(c, 0) == 6,
	      "a lean rank keeps the row ids of the kinds it keeps only");
	rank_free(r);
}

/* nested ranges, some long: split into depth levels with their ends and row ids */
static void
test_levels(void)
{
	const want v[] = {
	    {0, 10 * LONG_NS, 1},           /* the outer range, 21 s */
	    {5, 5 + 3 * LONG_NS, 2},        /* a long child */
	    {10, 20, 3},                    /* its short child */
	    {4 * LONG_NS, 5 * LONG_NS, 4},  /* a second long child */
	    {9 * LONG_NS, 11 * LONG_NS, 5}, /* partly overlapping the outer one */
	};
	size_t nv = sizeof v / sizeof *v;
	tl_rank *r = rank_new(0);
	tl_track *t = rank_track(r, TL_LANE_MSTX, 0, "default");
	char nm[16];
	for (size_t i = nv; i-- > 0;) {
		snprintf(nm, sizeof nm, "r%zu", i);
		track_push(t, v[i].start, v[i].end, strpool_intern_cstr(r->pool, nm), v[i].arg);
	}
	rank_finish(r);
	size_t total = 0;
	int ok = 1;
	for (size_t i = 0; i < r->ntracks; i++) {
		total += r->tracks[i]->n;
		ok &= same(r, r->tracks[i], v, nv, "levels");
	}
	CHECK(r->ntracks == 3 && total == nv && ok,
	      "three levels, every range with its end and row id (%zu lanes)", r->ntracks);
	rank_free(r);
}

/* through a cache file: decoded into copies and in place */
static void
test_cache(void)
{
	tl_source src;
	memset(&src, 0, sizeof src);
	src.kind = TL_SRC_TORCH_DB;
	src.path = (char *)"/nonexistent/tl-test/ascend_pytorch_profiler_0.db";
	src.role_step = -1;
	tl_rank *r = made(lane, NLANE, 1, &src);
	size_t klen;
	uint8_t *key = cache_key(&src, 1, &klen);
	FILE *f = tmpfile();
	uint64_t bytes = 0;
	CHECK(f != NULL && cache_write_fd(dup(fileno(f)), key, klen, r, NULL, 0, &bytes) == 0,
	      "the cache file written");
	uint8_t *b = xmalloc(bytes ? (size_t)bytes : 1);
	CHECK(f != NULL && fseek(f, 0, SEEK_SET) == 0 && fread(b, 1, (size_t)bytes, f) == bytes,
	      "and read back");
	char err[200] = "";
	for (int mapped = 0; mapped < 2; mapped++) {
		tl_rank *c =
		    mapped ? cache_decode_mapped(b, (size_t)bytes, &src, 1, 0, err, sizeof err)
		           : cache_decode(b, (size_t)bytes, &src, 1, err, sizeof err);
		CHECK(c != NULL, "decoded (%s): %s", mapped ? "in place" : "copied", err);
		if (c == NULL)
			continue;
		tl_track *t = NULL;
		for (size_t i = 0; i < c->ntracks; i++)
			if (c->tracks[i]->kind == TL_LANE_COMPUTE)
				t = c->tracks[i];
		CHECK(t != NULL && t->n == NLANE && same(c, t, lane, NLANE, "decoded"),
		      "every end and row id as written (%s)", mapped ? "in place" : "copied");
		if (t != NULL && mapped) { /* a change owns the arrays first */
			track_set_times(t, 0, 0, 3 * LONG_NS);
			CHECK(!t->borrowed && track_end(t, 0) == 3 * LONG_NS &&
			          track_end(t, 4) == lane[4].end,
			      "a mapped lane's slice made long");
		}
		if (mapped)
			c->backing = NULL; /* b is freed below */
		rank_free(c);
	}
	/* a long end's index past the table: refused */
	size_t at = SIZE_MAX;
	for (size_t o = 0; o + 16 <= (size_t)bytes; o += 8) {
		int64_t s;
		uint32_t d;
		memcpy(&s, b + o, 8);
		memcpy(&d, b + o + 8, 4);
		if (s == lane[4].start && (d & TL_DUR_LONG))
			at = o + 8;
	}
	CHECK(at != SIZE_MAX, "the 25 s slice found in the file");
	if (at != SIZE_MAX) {
		uint32_t d = TL_DUR_LONG | 2u; /* two in the table: 0 and 1 */
		memcpy(b + at, &d, 4);
		uint64_t sum = cache_checksum(b + TL_CACHE_HEADER, (size_t)bytes - TL_CACHE_HEADER);
		memcpy(b + 24, &sum, 8);
		tl_rank *c = cache_decode(b, (size_t)bytes, &src, 1, err, sizeof err);
		CHECK(c == NULL && strstr(err, "out of order or range") != NULL,
		      "an index past the long ends refused: %s", err);
		rank_free(c);
	}
	/* a start out of range: refused before its end is made (start + dur would overflow) */
	if (at != SIZE_MAX) {
		int64_t smax = INT64_MAX;
		uint32_t d = 50;
		memcpy(b + at - 8, &smax, 8);
		memcpy(b + at, &d, 4);
		uint64_t sum = cache_checksum(b + TL_CACHE_HEADER, (size_t)bytes - TL_CACHE_HEADER);
		memcpy(b + 24, &sum, 8);
		tl_rank *c = cache_decode(b, (size_t)bytes, &src, 1, err, sizeof err);
		CHECK(c == NULL && strstr(err, "out of order or range") != NULL,
		      "a slice starting at INT64_MAX refused: %s", err);
		rank_free(c);
	}
	free(b);
	free(key);
	if (f != NULL)
		fclose(f);
	rank_free(r);
}

int
main(void)
{
	test_sorted_and_set();
	test_levels();
	test_cache();
	return test_done();
}
