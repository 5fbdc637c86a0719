/* The critical path (analysis/critpath.c through query/critpath.c): hand-built graphs whose path
 * is worked out by hand, and generated RL and PP profiles against the generator's ground truth:
 * the last rank to arrive at each collective, a stalled rank's stall, the longest rollout, the
 * pipeline's send -> receive chain; segments tile each step, blame sums to it, and a what-if on
 * a kernel on the path shortens the predicted step while one off it does not. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/critpath.h"
#include "analysis/launch.h"
#include "gen/gen.h"
#include "loading/loading.h"
#include "query/query.h"
#include "report/report.h"
#include "util/xalloc.h"
#include "../test.h"
#include "rl_test.h"

/* A hand-built rank: each row a slice of a lane of its own (its kind and group), the names
 * pooled, and a row's host launch (not INT64_MIN) a launch of the device work at its start. */
typedef struct row {
	int64_t start, end;
	const char *name, *group;
	int64_t host_launch;
	int kind;
} row;

typedef struct hand {
	tl_strpool *pool;
	tl_rank *r; /* a track of one slice a task */
	uint32_t *task;
	cp_lane *lanes;
	const row *v;
	size_t n;
} hand;

static int64_t
hand_launch(void *ctx, int64_t dev_start, uint64_t *at)
{
	(void)at;
	const hand *h = ctx; /* the first launch at or after dev_start */
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i].host_launch != INT64_MIN && h->v[i].start >= dev_start)
			return h->v[i].host_launch;
	return INT64_MIN;
}

static cp_rank
mk(hand *h, int rank, const row *v, size_t n)
{
	h->pool = strpool_new();
	h->r = rank_new(rank);
	h->task = xcalloc(n, sizeof *h->task);
	h->lanes = xcalloc(n, sizeof *h->lanes);
	h->v = v;
	h->n = n;
	int launches = 0;
	for (size_t i = 0; i < n; i++) {
		tl_track *t = rank_track(h->r, TL_LANE_OTHER, (int64_t)i, "task");
		track_push(t, v[i].start, v[i].end,
		           strpool_intern(h->pool, v[i].name, strlen(v[i].name)), 0);
		h->task[i] = (uint32_t)i << 1; /* lane i, its slice 0 */
		h->lanes[i] = (cp_lane){t, t->v, (uint8_t)v[i].kind, v[i].group};
		launches |= v[i].host_launch != INT64_MIN;
	}
	return (cp_rank){.rank = rank,
	                 .task = h->task,
	                 .shift = 1,
	                 .n = n,
	                 .lanes = h->lanes,
	                 .pool = h->pool,
	                 .launch = launches ? hand_launch : NULL,
	                 .ctx = h};
}

static void
hand_free(hand *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strpool_free(h[i].pool);
		rank_free(h[i].r);
		free(h[i].task);
		free(h[i].lanes);
	}
}

static int
tiles(const cp_step *s)
{
	/* each ends where the next starts (cp_seg_end): none empty, the first at the start */
	if (s->nseg == 0 || s->seg[0].start != s->start)
		return 0;
	for (size_t k = 0; k < s->nseg; k++)
		if (cp_seg_end(s, k) <= s->seg[k].start)
			return 0;
	return 1;
}

static int64_t
blame_sum(const cp_step *s)
{
	int64_t t = 0;
	for (size_t k = 0; k < s->nblame; k++)
		t += s->blame[k].ns;
	return t;
}

/* Segment k of s. */
static int
seg_is(const cp_step *s, size_t k, int rank, int64_t a, int64_t b, int kind, const char *name)
{
	const cp_seg *g = &s->seg[k];
	return cp_seg_rank(s, g) == rank && g->start == a && cp_seg_end(s, k) == b &&
	       (int)g->kind == kind && strcmp(cp_seg_name(s, g), name) == 0 &&
	       cp_seg_stage(s, g) == -1;
}

static int64_t
predict(const cp_rank *R, size_t n, const cp_p2p *p, size_t np, int64_t t1, const char *spec)
{
	char buf[64], err[128];
	snprintf(buf, sizeof buf, "%s", spec);
	cp_scale sc;
	if (critpath_parse_scale(buf, &sc, err, sizeof err) != 0) {
		CHECK(0, "parse %s: %s", spec, err);
		return -1;
	}
	cp_step s = {.step = 1};
	critpath_step(R, n, p, np, 0, t1, &sc, 1, &s);
	CHECK(tiles(&s) && blame_sum(&s) == s.end - s.start, "what-if %s: tiles and sums", spec);
	int64_t d = s.end - s.start;
	critpath_step_free(&s);
	return d;
}

static void
check_hand(void)
{
	/* rank 1 computes longer, arrives last at the collective; the step's end is rank 0's
	 * kernel after it */
	const row r0[] = {{0, 10, "A", NULL, INT64_MIN, CP_COMPUTE},
	                  {10, 40, "hcom_allReduce__1_1_1", "g", INT64_MIN, CP_COMM},
	                  {40, 50, "B", NULL, INT64_MIN, CP_COMPUTE}};
	const row r1[] = {{0, 30, "A", NULL, INT64_MIN, CP_COMPUTE},
	                  {30, 40, "hcom_allReduce__1_1_1", "g", INT64_MIN, CP_COMM},
	                  {40, 45, "B", NULL, INT64_MIN, CP_COMPUTE}};
	hand hr[2], hp[2], hg[1], hw[1];
	cp_rank R[] = {mk(&hr[0], 0, r0, 3), mk(&hr[1], 1, r1, 3)};
	cp_step s = {.step = 1};
	critpath_step(R, 2, NULL, 0, 0, 50, NULL, 0, &s);
	CHECK(s.nseg == 3 && s.collectives == 1 && s.jumps == 1,
	      "hand: 3 segments, 1 collective, "
	      "1 change of rank (%zu %zu %zu)",
	      s.nseg, s.collectives, s.jumps);
	CHECK(s.nseg == 3 && seg_is(&s, 0, 1, 0, 30, CP_COMPUTE, "A") &&
	          seg_is(&s, 1, 0, 30, 40, CP_COMM, "hcom_allReduce__1_1_1") &&
	          seg_is(&s, 2, 0, 40, 50, CP_COMPUTE, "B"),
	      "hand: through the last arrival (rank 1's A), the transfer, rank 0's B");
	CHECK(tiles(&s) && blame_sum(&s) == 50, "hand: tiles the step, blame sums to it");
	CHECK(s.nops == 2 && strcmp(s.ops[0].name, "A") == 0 && s.ops[0].ns == 30,
	      "hand: A is the longest compute on the path");
	/* each rank's latest ending task given (the query's last1): the same path */
	cp_rank Rl[] = {R[0], R[1]};
	Rl[0].last1 = 3; /* B, ends at 50 */
	Rl[1].last1 = 3; /* B, ends at 45 */
	cp_step sl = {.step = 1};
	critpath_step(Rl, 2, NULL, 0, 0, 50, NULL, 0, &sl);
	int same = sl.nseg == s.nseg && sl.end == s.end && sl.jumps == s.jumps;
	for (size_t k = 0; same && k < s.nseg; k++)
		same = seg_is(&sl, k, cp_seg_rank(&s, &s.seg[k]), s.seg[k].start, cp_seg_end(&s, k),
		              (int)s.seg[k].kind, cp_seg_name(&s, &s.seg[k]));
	CHECK(same, "hand: the latest ending tasks given, the same segments");
	critpath_step_free(&sl);
	Rl[0].last1 = 0; /* one rank's not given: every end read, as without */
	critpath_step(Rl, 2, NULL, 0, 0, 50, NULL, 0, &sl);
	CHECK(sl.nseg == s.nseg && sl.end == s.end, "hand: one not given, the same path");
	/* a lean step's memory for the next one's segments (room for 3, then for 1): the same */
	static const size_t rooms[] = {3, 1};
	for (size_t ri = 0; ri < 2; ri++) {
		size_t room = rooms[ri], got;
		cp_seg *mem = critpath_lean_take(&sl, 2, &got);
		CHECK(mem != NULL && got == s.nseg && sl.seg == NULL && sl.nlong == 2,
		      "hand: a lean step hands its segments' memory back (%zu)", got);
		critpath_step_free(&sl);
		mem = xreallocarray(mem, room, sizeof *mem);
		critpath_step_into(R, 2, NULL, 0, 0, 50, NULL, 0, mem, room, &sl);
		same = sl.nseg == s.nseg && sl.end == s.end;
		for (size_t k = 0; same && k < s.nseg; k++)
			same = seg_is(&sl, k, cp_seg_rank(&s, &s.seg[k]), s.seg[k].start,
			              cp_seg_end(&s, k), (int)s.seg[k].kind,
			              cp_seg_name(&s, &s.seg[k]));
		CHECK(same, "hand: the segments in memory of room for %zu, the same", room);
	}
	critpath_step_free(&sl);
	critpath_step_free(&s);
	/* A at half: rank 1 arrives at 15, the transfer ends at 25, B at 35 (worked by hand) */
	int64_t d1 = predict(R, 2, NULL, 0, 50, "A=-50%");
	CHECK(d1 == 35, "hand: A=-50%% predicts 35 (%lld)", (long long)d1);
	d1 = predict(R, 2, NULL, 0, 50, "rank:0:A=-50%");
	CHECK(d1 == 50, "hand: rank 0's A is off the path: no change (%lld)", (long long)d1);
	d1 = predict(R, 2, NULL, 0, 50, "rank:1=+10%");
	CHECK(d1 == 53, "hand: rank 1 10%% slower: 53 (%lld)", (long long)d1);
	d1 = predict(R, 2, NULL, 0, 50, "Z*=-90%");
	CHECK(d1 == 50, "hand: no such kernel: no change (%lld)", (long long)d1);

	/* P2P: the receive waits for the send, the path goes back to the sender */
	const row p0[] = {{0, 20, "X", NULL, INT64_MIN, CP_COMPUTE},
	                  {20, 25, "hcom_send_", "p", INT64_MIN, CP_COMM}};
	const row p1[] = {{5, 25, "hcom_receive_", "p", INT64_MIN, CP_COMM},
	                  {25, 35, "Y", NULL, INT64_MIN, CP_COMPUTE}};
	cp_rank P[] = {mk(&hp[0], 0, p0, 2), mk(&hp[1], 1, p1, 2)};
	cp_p2p pp = {0, 1, 20, 5};
	critpath_step(P, 2, &pp, 1, 0, 35, NULL, 0, &s);
	CHECK(s.nseg == 3 && seg_is(&s, 0, 0, 0, 20, CP_COMPUTE, "X") &&
	          seg_is(&s, 1, 1, 20, 25, CP_COMM, "hcom_receive_") &&
	          seg_is(&s, 2, 1, 25, 35, CP_COMPUTE, "Y") && s.jumps == 1,
	      "hand P2P: sender's X, the transfer, receiver's Y");
	critpath_step_free(&s);
	d1 = predict(P, 2, &pp, 1, 35, "X=-50%");
	CHECK(d1 == 25, "hand P2P: X=-50%% predicts 25 (%lld)", (long long)d1);

	/* an idle gap whose next task the host launched late: host launch, then idle */
	const row g0[] = {{0, 10, "A", NULL, INT64_MIN, CP_COMPUTE},
	                  {20, 30, "B", NULL, 14, CP_COMPUTE}};
	cp_rank G[] = {mk(&hg[0], 0, g0, 2)};
	critpath_step(G, 1, NULL, 0, 0, 30, NULL, 0, &s);
	CHECK(s.nseg == 4 && seg_is(&s, 1, 0, 10, 14, CP_HOST_LAUNCH, "") &&
	          seg_is(&s, 2, 0, 14, 20, CP_IDLE, ""),
	      "hand: the gap is 4 host launch, then 6 idle");
	critpath_step_free(&s);

	/* an event wait: the stream waited for the op, the path goes through the op whole */
	const row w0[] = {{0, 30, "hcom_allReduce_", "g", INT64_MIN, CP_COMM},
	                  {0, 5, "K", NULL, INT64_MIN, CP_COMPUTE},
	                  {5, 31, "EVENT_WAIT", NULL, INT64_MIN, CP_WAITING},
	                  {31, 40, "L", NULL, INT64_MIN, CP_COMPUTE}};
	cp_rank W[] = {mk(&hw[0], 0, w0, 4)};
	critpath_step(W, 1, NULL, 0, 0, 40, NULL, 0, &s);
	CHECK(s.nseg == 3 && seg_is(&s, 0, 0, 0, 30, CP_COMM, "hcom_allReduce_") &&
	          seg_is(&s, 1, 0, 30, 31, CP_WAITING, "EVENT_WAIT") &&
	          seg_is(&s, 2, 0, 31, 40, CP_COMPUTE, "L"),
	      "hand: an event wait goes back to the op it waited for");
	critpath_step_free(&s);
	d1 = predict(W, 1, NULL, 0, 40, "hcom*=-50%");
	CHECK(d1 == 25, "hand: the op it waited for at half: 25 (%lld)", (long long)d1);
	hand_free(hr, 2);
	hand_free(hp, 2);
	hand_free(hg, 1);
	hand_free(hw, 1);

	char b1[] = "rank:3:MatMul*=-20%", b2[] = "x=20", b3[] = "x=-200%", err[128];
	cp_scale sc;
	CHECK(critpath_parse_scale(b1, &sc, err, sizeof err) == 0 && sc.rank == 3 &&
	          strcmp(sc.pattern, "MatMul*") == 0 && sc.permille == 800,
	      "parse rank:3:MatMul*=-20%%");
	CHECK(critpath_parse_scale(b2, &sc, err, sizeof err) < 0 &&
	          critpath_parse_scale(b3, &sc, err, sizeof err) < 0,
	      "parse refuses x=20 and x=-200%%");
}

/* The segment of s holding time t. */
static const cp_seg *
seg_at(const cp_step *s, int64_t t)
{
	for (size_t k = 0; k < s->nseg; k++)
		if (s->seg[k].start <= t && t < cp_seg_end(s, k))
			return &s->seg[k];
	return NULL;
}

/* Whether two steps are the same path: times, counts, segments, blame and operators. */
static int
same_step(const cp_step *a, const cp_step *b)
{
	int eq = a->step == b->step && a->start == b->start && a->end == b->end &&
	         a->nseg == b->nseg && a->nblame == b->nblame && a->nops == b->nops &&
	         a->collectives == b->collectives && a->jumps == b->jumps;
	for (size_t k = 0; eq && k < a->nseg; k++)
		eq = cp_seg_rank(a, &a->seg[k]) == cp_seg_rank(b, &b->seg[k]) &&
		     a->seg[k].start == b->seg[k].start && cp_seg_end(a, k) == cp_seg_end(b, k) &&
		     a->seg[k].kind == b->seg[k].kind &&
		     cp_seg_stage(a, &a->seg[k]) == cp_seg_stage(b, &b->seg[k]) &&
		     strcmp(cp_seg_name(a, &a->seg[k]), cp_seg_name(b, &b->seg[k])) == 0;
	for (size_t k = 0; eq && k < a->nblame; k++)
		eq = a->blame[k].rank == b->blame[k].rank && a->blame[k].kind == b->blame[k].kind &&
		     a->blame[k].ns == b->blame[k].ns;
	for (size_t k = 0; eq && k < a->nops; k++)
		eq = a->ops[k].ns == b->ops[k].ns && strcmp(a->ops[k].name, b->ops[k].name) == 0;
	return eq;
}

/* Whether a decoded path is well formed: what its readers rely on (segments tiling each step
 * with a kind in range, names inside the names, blame summing to the step). */
static int
well_formed(const tl_cp_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const cp_step *s = &r->steps[i];
		if (s->end < s->start || !tiles(s) || blame_sum(s) != s->end - s->start)
			return 0;
		for (size_t k = 0; k < s->nseg; k++)
			if (s->seg[k].kind >= CP__COUNT || s->seg[k].name >= s->nnames ||
			    s->seg[k].who >= s->nwho || cp_seg_stage(s, &s->seg[k]) < -1 ||
			    cp_seg_name(s, &s->seg[k]) == NULL ||
			    strlen(cp_seg_name(s, &s->seg[k])) > 1 << 20)
				return 0;
		for (size_t k = 0; k < s->nblame; k++)
			if (s->blame[k].kind >= CP__COUNT || s->blame[k].ns < 0)
				return 0;
	}
	return 1;
}

/* Decodes b[0..n): 1 when refused with a reason, 2 when taken well formed, 0 otherwise. */
static int
decode_outcome(const uint8_t *b, size_t n)
{
	tl_cp_result r;
	const char *why = tlq_critical_decode(b, n, &r);
	if (why != NULL)
		return r.steps == NULL && r.names == NULL && *why != '\0' ? 1 : 0;
	int ok = well_formed(&r) ? 2 : 0;
	tlq_critical_free(&r);
	return ok;
}

static void
put_u64_at(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, 8);
}

/* The binary part of a path, cut, extended, with a count, length, index or kind forged, and
 * with random bytes changed: refused with a reason, or (a change the format cannot tell, a
 * time or a name's byte) taken as a well-formed path; never read past its end (make
 * check-sanitizers runs this under AddressSanitizer). The part's layout: critpath.c. */
static void
part_hostile(const uint8_t *bin, size_t n)
{
	uint8_t *b = xmalloc(n + 1);
	size_t cuts = 0, refused = 0;
	for (size_t l = 0; l < n; l += l < 256 || n - l < 256 ? 1 : n / 509, cuts++) {
		uint8_t *cut = xmalloc(l ? l : 1); /* exactly l bytes: a read past them is caught */
		memcpy(cut, bin, l);
		refused += decode_outcome(cut, l) == 1;
		free(cut);
	}
	CHECK(refused == cuts, "part: each of %zu cuts is refused (%zu)", cuts, refused);
	memcpy(b, bin, n);
	b[n] = 0;
	CHECK(decode_outcome(b, n + 1) == 1, "part: a byte more is refused");
	uint64_t c[9];
	memcpy(c, bin + 8, sizeof c);
	/* each count of the header one more, one less, near 2^63 and 2^64: refused */
	static const uint64_t bump[4] = {1, UINT64_MAX, UINT64_C(1) << 63, UINT64_MAX / 2};
	size_t forged = 0, forged_refused = 0;
	for (size_t k = 0; k < 9; k++)
		for (size_t j = 0; j < 4; j++) {
			memcpy(b, bin, n);
			put_u64_at(b, 8 + 8 * k, c[k] + bump[j]);
			forged++;
			forged_refused += decode_outcome(b, n) == 1;
		}
	CHECK(forged_refused == forged, "part: each count forged is refused (%zu of %zu)",
	      forged_refused, forged);
	CHECK(memcmp(bin, "tlcp", 4) == 0 && c[3] > 1, "part: its segments (%" PRIu64 ")", c[3]);
	size_t seg0 = 80 + (size_t)c[1] + (size_t)c[2] * 64; /* the first segment */
	size_t who0 = n - (size_t)c[8] * 8;                  /* the first who entry */
	struct {
		size_t off;
		uint64_t v;
		int width;
		const char *what;
	} bad[] = {
	    {seg0, 0, 8, "an empty segment"},
	    {seg0, UINT64_MAX, 8, "a segment of 2^64 - 1 ns"},
	    {seg0, UINT64_C(1) << 62, 8, "a segment past its step"},
	    {seg0 + 8, c[0], 4, "a name index one past the names"},
	    {seg0 + 8, UINT32_MAX, 4, "a name index of 2^32 - 1"},
	    {seg0 + 12, c[8], 4, "a who index one past the who entries"},
	    {seg0 + 12, (1u << 29) - 1, 4, "a who index of 2^29 - 1"},
	    {seg0 + 12, (uint32_t)CP__COUNT << 29, 4, "a kind one past the kinds"},
	    {who0 + 4, (uint32_t)-2, 4, "a stage of -2"},
	    {8 + 8 * 8, CP_WHO_MAX + 1, 8, "2^29 who entries"},
	    {80 + (size_t)c[1], (uint64_t)-2, 8, "a step id of -2"},
	    {80 + (size_t)c[1] + 16, 0, 8, "a step ending before it starts"},
	    {80 + (size_t)c[1] + 24, 0, 8, "a step with fewer segments than the header"},
	    {80 + (size_t)c[1] - 1, 'x', 1, "the names' last NUL overwritten"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		memcpy(b, bin, n);
		memcpy(b + bad[k].off, &bad[k].v, (size_t)bad[k].width);
		CHECK(decode_outcome(b, n) == 1, "part: %s is refused", bad[k].what);
	}
	/* random bytes changed, one to eight at a time: refused, or a well-formed path */
	uint64_t rs = 0x9e3779b97f4a7c15u;
	size_t tries = 3000, fine = 0;
	for (size_t t = 0; t < tries; t++) {
		memcpy(b, bin, n);
		size_t nb = 1 + test_xorshift(&rs) % 8;
		for (size_t j = 0; j < nb; j++)
			b[test_xorshift(&rs) % n] = (uint8_t)test_xorshift(&rs);
		fine += decode_outcome(b, n) != 0;
	}
	CHECK(fine == tries, "part: %zu random changes refused or well formed (%zu)", tries, fine);
	free(b);
}

/* Whether a segment of rank (< 0: any) overlaps [t0, t1): every segment asked. */
static int
meets_plain(const cp_step *s, int rank, int64_t t0, int64_t t1)
{
	for (size_t k = 0; k < s->nseg; k++)
		if (s->seg[k].start < t1 && cp_seg_end(s, k) > t0 &&
		    (rank < 0 || cp_seg_rank(s, &s->seg[k]) == rank))
			return 1;
	return 0;
}

static int
cmp_len_start(const void *a, const void *b)
{
	const cp_long *x = a, *y = b;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return (x->g.start > y->g.start) - (x->g.start < y->g.start);
}

/* A lean path (tlq_critical_start(q, 1, 5), the text summary's) against r, the full one: the
 * same segment counts, its kept longest the full path's five longest (every segment sorted),
 * and critpath_meets the same answer lean and full for spans across each step and every rank
 * as asking every segment. */
static void
check_lean(const tl_query *q, const tl_cp_result *r)
{
	tl_cp_result l;
	tlq_critical_join(tlq_critical_start(q, 1, 5), &l, NULL, NULL);
	size_t same_n = l.n == r->n, longest_ok = 0, asked = 0, bad = 0, runs = 0;
	for (size_t i = 0; same_n && i < r->n; i++) {
		const cp_step *f = &r->steps[i], *s = &l.steps[i];
		cp_long *all = xcalloc(f->nseg ? f->nseg : 1, sizeof *all);
		for (size_t k = 0; k < f->nseg; k++)
			all[k] = (cp_long){f->seg[k], cp_seg_end(f, k) - f->seg[k].start};
		qsort(all, f->nseg, sizeof *all, cmp_len_start);
		size_t want = f->nseg < 5 ? f->nseg : 5, k = 0;
		for (; s->seg == NULL && s->nlong == want && k < want; k++)
			if (memcmp(&all[k].g, &s->longest[k].g, sizeof all[k].g) != 0 ||
			    all[k].len != s->longest[k].len)
				break;
		longest_ok += s->nseg == f->nseg && k == want && want > 0;
		free(all);
		runs += s->nruns;
		int64_t len = f->end - f->start;
		for (int64_t a = f->start - len / 8; a < f->end + len / 8; a += len / 97 + 1)
			for (int64_t w = 1; w < len / 2; w = w * 7 + 3)
				for (int rank = -1; rank < 5; rank++, asked++) {
					int want_on = meets_plain(f, rank, a, a + w);
					bad += critpath_meets(f, rank, a, a + w) != want_on;
					bad += critpath_meets(s, rank, a, a + w) != want_on;
				}
	}
	CHECK(same_n && longest_ok == r->n,
	      "lean path: %zu of %zu steps with the full path's segment count and five longest",
	      longest_ok, r->n);
	CHECK(bad == 0 && asked > 1000 && runs > r->n,
	      "critpath_meets: %zu of %zu spans as every segment says, lean (%zu runs) and full",
	      2 * asked - bad, 2 * asked, runs);
	tlq_critical_free(&l);
}

static void
check_rl(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.nsteps = 2;
	o.tasks_per_rank = 8000;
	o.seed = 11;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, "rl", &t, &tr))
		return;
	tl_query *q = tlq_open(&tr, NULL);
	tl_cp_result r;
	tlq_critical(q, NULL, 0, &r);
	CHECK(r.n == t.nsteps, "rl: a path per step (%zu)", r.n);
	check_lean(q, &r);
	size_t colls = 0, colls_ok = 0, tiled = 0, summed = 0, rollout_ok = 0, starts = 0;
	for (size_t i = 0; i < r.n && i < t.nsteps; i++) {
		const cp_step *s = &r.steps[i];
		tiled += tiles(s);
		summed += blame_sum(s) == s->end - s->start;
		starts += s->step == t.steps[i].step && s->start == t.steps[i].start_ns &&
		          s->end >= t.steps[i].end_ns;
		/* every collective on the path: its transfer from the last arrival, and the path
		 * came from the rank that arrived last */
		for (size_t k = 0; k < s->nseg; k++) {
			const cp_seg *g = &s->seg[k];
			if (g->kind != CP_COMM)
				continue;
			for (size_t c = 0; c < t.ncomm; c++) {
				const gen_comm_truth *x = &t.comm[c];
				if (x->rank != cp_seg_rank(s, g) || x->end_ns != cp_seg_end(s, k))
					continue;
				colls++;
				int64_t from = x->start_ns > x->last_arrival_ns
				                   ? x->start_ns
				                   : x->last_arrival_ns;
				colls_ok += g->start == from && k > 0 &&
				            cp_seg_rank(s, &s->seg[k - 1]) == x->last_rank;
				break;
			}
		}
		/* the longest rollout: the path is on the rank whose rollout ended last */
		int64_t last_end = INT64_MIN;
		int last_rank = -1;
		for (size_t k = 0; k < t.nstages; k++) {
			const gen_stage_truth *x = &t.stages[k];
			if (x->step == s->step && x->stage == 0 && x->end_ns > last_end) {
				last_end = x->end_ns;
				last_rank = x->rank;
			}
		}
		const cp_seg *g = seg_at(s, last_end - 1);
		rollout_ok += g != NULL && cp_seg_rank(s, g) == last_rank;
	}
	CHECK(tiled == r.n && summed == r.n, "rl: the segments tile every step, blame sums to it");
	CHECK(starts == r.n, "rl: each step starts at its STEP_TIME start and ends at or after "
	                     "its end");
	CHECK(colls > 0 && colls_ok == colls,
	      "rl: through the last arrival at every collective on the path (%zu of %zu)", colls_ok,
	      colls);
	CHECK(rollout_ok == r.n, "rl: through the longest rollout in every step");
	/* kept with the stored results: the bytes give the same result back, and every cut,
	 * changed or forged part is refused or gives a well-formed path (part_hostile) */
	size_t blen = 0;
	uint8_t *bin = tlq_critical_encode(&r, &blen);
	tl_cp_result back;
	const char *why = bin != NULL ? tlq_critical_decode(bin, blen, &back) : "not encoded";
	size_t same = 0, len2 = 0;
	for (size_t i = 0; why == NULL && i < r.n && r.n == back.n; i++)
		same += same_step(&r.steps[i], &back.steps[i]);
	uint8_t *bin2 = why == NULL ? tlq_critical_encode(&back, &len2) : NULL;
	CHECK(
	    why == NULL && same == r.n && back.nops == r.nops && back.nranks == r.nranks &&
	        bin2 != NULL && len2 == blen && memcmp(bin, bin2, blen) == 0,
	    "rl: the path in binary form (%zu bytes) and back: the same steps, the same bytes (%s)",
	    blen, why ? why : "taken");
	if (why == NULL)
		tlq_critical_free(&back);
	if (bin != NULL)
		part_hostile(bin, blen);
	free(bin);
	free(bin2);
	/* what-if: the longest compute kernel on the path, on every rank, then on a rank the
	 * path does not compute on */
	const cp_step *s0 = &r.steps[0];
	CHECK(s0->nops > 0, "rl: compute on the path");
	if (s0->nops > 0) {
		char spec[160], err[128];
		snprintf(spec, sizeof spec, "%s=-20%%", s0->ops[0].name);
		cp_scale sc;
		critpath_parse_scale(spec, &sc, err, sizeof err);
		tl_cp_result w;
		tlq_critical(q, &sc, 1, &w);
		int64_t len = s0->end - s0->start, pred = w.whatif[0].end - w.whatif[0].start;
		int64_t cut = s0->ops[0].ns / 5;
		/* the old path, scaled, is a path of the new graph: the step cannot get shorter
		 * than that, and with the slow rank 30% behind, nothing else becomes longer */
		CHECK(pred < len && pred >= len - cut - 10000 && pred <= len - cut + 10000,
		      "rl: %s on the path: %lld -> %lld ns (cut %lld)", spec, (long long)len,
		      (long long)pred, (long long)cut);
		CHECK(tiles(&w.whatif[0]), "rl: the what-if's path tiles its step");
		tlq_critical_free(&w);
		int off = -1; /* a rank with no compute on the path */
		for (int rk = 0; rk < o.nranks && off < 0; rk++) {
			int on = 0;
			for (size_t k = 0; k < s0->nblame; k++)
				on |= s0->blame[k].rank == rk && s0->blame[k].kind == CP_COMPUTE;
			if (!on)
				off = rk;
		}
		snprintf(spec, sizeof spec, "rank:%d:%s=-20%%", off, s0->ops[0].name);
		critpath_parse_scale(spec, &sc, err, sizeof err);
		tlq_critical(q, &sc, 1, &w);
		CHECK(off >= 0 && w.whatif[0].end - w.whatif[0].start == len,
		      "rl: %s, off the path: no change", spec);
		tlq_critical_free(&w);
	}
	tlq_critical_free(&r);
	tlq_close(q);
	trace_free(&tr);
	gen_truth_free(&t);

	/* a stall: the last rank to arrive at collective 4 comes 5 ms later */
	o.delay_coll = 4;
	o.delay_ns = 5 * 1000 * 1000;
	if (!gen_load(&o, "stall", &t, &tr))
		return;
	q = tlq_open(&tr, NULL);
	tlq_critical(q, NULL, 0, &r);
	const gen_comm_truth *x = NULL;
	for (size_t c = 0; c < t.ncomm; c++)
		if (t.comm[c].op == 4)
			x = &t.comm[c];
	int64_t stalled = 0;
	for (size_t i = 0; x != NULL && i < r.n; i++)
		for (size_t k = 0; k < r.steps[i].nseg; k++) {
			const cp_seg *g = &r.steps[i].seg[k];
			if (cp_seg_rank(&r.steps[i], g) == x->last_rank &&
			    (g->kind == CP_IDLE || g->kind == CP_HOST_LAUNCH) &&
			    cp_seg_end(&r.steps[i], k) <= x->last_arrival_ns &&
			    g->start >= x->last_arrival_ns - o.delay_ns - 2 * 1000 * 1000)
				stalled += cp_seg_end(&r.steps[i], k) - g->start;
		}
	CHECK(x != NULL && stalled >= o.delay_ns,
	      "stall: the path waits %lld ns on rank %d before collective 4 (stall %lld)",
	      (long long)stalled, x ? x->last_rank : -1, (long long)o.delay_ns);
	tlq_critical_free(&r);
	tlq_close(q);
	trace_free(&tr);
	gen_truth_free(&t);
}

static void
check_pp(void)
{
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 4;
	o.pp = 2;
	o.nsteps = 2;
	o.seed = 7;
	gen_truth t;
	tl_trace tr;
	if (!gen_load(&o, "pp", &t, &tr))
		return;
	tl_query *q = tlq_open(&tr, NULL);
	tl_cp_result r;
	tlq_critical(q, NULL, 0, &r);
	size_t p2p = 0, p2p_ok = 0, tiled = 0, both = 0;
	for (size_t i = 0; i < r.n; i++) {
		const cp_step *s = &r.steps[i];
		tiled += tiles(s) && blame_sum(s) == s->end - s->start;
		int seen[2] = {0, 0};
		for (size_t k = 0; k < s->nseg; k++) {
			const cp_seg *g = &s->seg[k];
			int gr = cp_seg_rank(s, g);
			if (gr >= 0 && gr / t.pp_dp < 2)
				seen[gr / t.pp_dp] = 1;
			if (g->kind != CP_COMM)
				continue;
			for (size_t c = 0; c < t.np2p; c++) {
				const gen_p2p_truth *x = &t.p2p[c];
				if (x->dst_rank != gr || x->recv_end_ns != cp_seg_end(s, k))
					continue;
				if (x->send_start_ns > x->recv_start_ns) {
					p2p++;
					p2p_ok += g->start == x->send_start_ns && k > 0 &&
					          cp_seg_rank(s, &s->seg[k - 1]) == x->src_rank;
				}
				break;
			}
		}
		both += seen[0] && seen[1];
	}
	CHECK(r.n == t.nsteps && tiled == r.n, "pp: the segments tile every step");
	CHECK(both == r.n, "pp: the path runs through both pipeline stages in every step");
	CHECK(p2p > 0 && p2p_ok == p2p,
	      "pp: each receive on the path that waited comes from its send (%zu of %zu)", p2p_ok,
	      p2p);
	tlq_critical_free(&r);
	tlq_close(q);
	trace_free(&tr);
	gen_truth_free(&t);
}

/* The launches a crossed rank's gaps ask for, packed in 8 bytes each: the same answer as a
 * lower bound over the plain launches, through blocks cut at 256 and at 2^32 ns, equal device
 * starts across a block's edge, and host starts more than 2^31 ns from their device's. */
static void
check_launch_pack(void)
{
	size_t n = 5000;
	tl_launch *v = xcalloc(n, sizeof *v);
	uint64_t x = 12345;
	int64_t t = -(INT64_C(1) << 40);
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		unsigned r = (unsigned)(x >> 33);
		if ((i >= 1000 && i < 1400) || r % 7 == 0)
			t += 0; /* equal device starts: 400 in a row across a block's 256 */
		else if (r % 97 == 1)
			t += INT64_C(5) << 32; /* past a block's 2^32 ns */
		else
			t += (int64_t)(r % 5000);
		int64_t d = (int64_t)(r % 2000000) - 1000000;
		if (r % 53 == 0)
			d = -(INT64_C(3) << 31); /* a host start far before its device start */
		if (r % 59 == 0)
			d = INT32_MIN; /* the escape value itself, a wide one */
		v[i] = (tl_launch){t + d, t};
	}
	launch_sort_dev(v, n);
	tl_launch_pack p, tk; /* tk: in the launches' own memory (launch_pack_take) */
	launch_pack(&p, v, n);
	tl_launch *own = xreallocarray(NULL, n, sizeof *own);
	memcpy(own, v, n * sizeof *own);
	launch_pack_take(&tk, own, n);
	size_t bad = 0, asked = 0, tbad = 0, abad = 0;
	uint64_t at = 0; /* one cursor through every question: back, forth and far */
	for (size_t m = 0; m < 3 * n; m++)
		for (int64_t dt = -1; dt <= 1; dt++, asked++) {
			size_t i = m < n ? n - 1 - m : m < 2 * n ? m - n : (m * 7919) % n;
			int64_t q = v[i].dev_start + dt;
			size_t lo = 0, hi = n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (v[mid].dev_start < q)
					lo = mid + 1;
				else
					hi = mid;
			}
			int64_t want = lo < n ? v[lo].host_start : INT64_MIN;
			bad += launch_pack_next(&p, q) != want;
			tbad += launch_pack_next(&tk, q) != want;
			abad += launch_pack_next_at(&p, q, &at) != want;
		}
	bad += launch_pack_next(&p, INT64_MIN) != v[0].host_start;
	bad += launch_pack_next(&p, v[n - 1].dev_start + 1) != INT64_MIN;
	CHECK(bad == 0 && p.nblk > n / 256 + 1 && p.nwide > 0,
	      "launch_pack: %zu of %zu lookups as the plain launches' (%zu blocks, %zu wide)",
	      asked - bad, asked, p.nblk, p.nwide);
	CHECK(tbad == 0 && tk.nblk == p.nblk && tk.nwide == p.nwide,
	      "launch_pack_take: %zu of %zu lookups as the plain launches' (%zu blocks, %zu wide)",
	      asked - tbad, asked, tk.nblk, tk.nwide);
	abad += launch_pack_next_at(&p, v[n - 1].dev_start + 1, &at) != INT64_MIN;
	abad += launch_pack_next_at(&p, INT64_MIN, &at) != v[0].host_start;
	CHECK(abad == 0,
	      "launch_pack_next_at: %zu of %zu lookups by one cursor as the plain "
	      "launches'",
	      asked + 2 - abad, asked + 2);
	launch_pack_free(&tk);
	launch_pack_free(&p);
	tl_launch_pack e;
	launch_pack(&e, NULL, 0);
	CHECK(launch_pack_next(&e, 0) == INT64_MIN, "launch_pack: none, none follows");
	launch_pack_free(&e);
	launch_pack_take(&e, NULL, 0);
	CHECK(launch_pack_next(&e, 0) == INT64_MIN, "launch_pack_take: none, none follows");
	launch_pack_free(&e);
	free(v);
}

/* The same launches as tl_launch through launch_sort_dev and launch_pack_take, and as 12-byte
 * records through launch_pack_take_recs: the same pack, word for word, and the same answers
 * as a lower bound over the sorted launches. */
static size_t
recs_vs_old(const tl_launch *v, size_t n)
{
	tl_launch *old = xreallocarray(NULL, n, sizeof *old), *sorted;
	tl_launch_rec *rec = xreallocarray(NULL, n, sizeof *rec);
	memcpy(old, v, n * sizeof *old);
	for (size_t i = 0; i < n; i++) {
		launch_rec_set_host(&rec[i], v[i].host_start);
		rec[i].delay = (int32_t)(v[i].dev_start - v[i].host_start);
	}
	launch_sort_dev(old, n);
	sorted = xreallocarray(NULL, n, sizeof *sorted);
	memcpy(sorted, old, n * sizeof *sorted);
	tl_launch_pack a, b;
	launch_pack_take(&a, old, n);
	launch_pack_take_recs(&b, rec, n);
	size_t bad = a.n != b.n || a.nblk != b.nblk || a.nwide != b.nwide;
	for (size_t i = 0; bad == 0 && i < n; i++)
		bad += a.w[i].dev != b.w[i].dev || a.w[i].host != b.w[i].host;
	for (size_t i = 0; bad == 0 && i < a.nblk; i++) /* field by field: padding */
		bad += a.blk[i].dev0 != b.blk[i].dev0 || a.blk[i].first != b.blk[i].first;
	uint64_t at = 0;
	for (size_t m = 0; m < 2 * n; m++)
		for (int64_t dt = -1; dt <= 1; dt++) {
			size_t i = m < n ? n - 1 - m : (m * 7919) % n;
			int64_t q = sorted[i].dev_start + dt;
			size_t lo = 0, hi = n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (sorted[mid].dev_start < q)
					lo = mid + 1;
				else
					hi = mid;
			}
			int64_t want = lo < n ? sorted[lo].host_start : INT64_MIN;
			bad += launch_pack_next(&b, q) != want;
			bad += launch_pack_next_at(&b, q, &at) != want;
			bad += launch_pack_next(&a, q) != want;
		}
	launch_pack_free(&a);
	launch_pack_free(&b);
	free(sorted);
	return bad;
}

static void
check_launch_pack_recs(void)
{
	size_t n = 6000;
	tl_launch *v = xcalloc(n, sizeof *v);
	uint64_t x = 777;
	int64_t t = INT64_C(1) << 50;
	for (size_t i = 0; i < n; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		unsigned r = (unsigned)(x >> 33);
		if ((i >= 2000 && i < 2300) || r % 7 == 0)
			t += 0; /* equal device starts, across a block's edge */
		else if (r % 97 == 1)
			t += INT64_C(5) << 32; /* past a block's 2^32 ns */
		else
			t += (int64_t)(r % 5000);
		int64_t d = (int64_t)(r % 2000000) - 1000000; /* delays of either sign */
		if (r % 53 == 0)
			d = INT32_MAX - 1; /* the widest a record holds */
		if (r % 59 == 0)
			d = -INT32_MAX;
		if (r % 61 == 0 && i > 0 && t - v[i - 1].host_start < INT32_MAX)
			d = t - v[i - 1].host_start; /* the host start of the one before */
		v[i] = (tl_launch){t - d, t};
		if (r % 67 == 0 && i > 0)
			v[i] = v[i - 1]; /* the same launch twice */
		t = v[i].dev_start;
	}
	/* in connectionId order: by host start, the device's out of order */
	tl_launch *byhost = xreallocarray(NULL, n, sizeof *byhost);
	memcpy(byhost, v, n * sizeof *byhost);
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && byhost[j - 1].host_start > byhost[j].host_start; j--) {
			tl_launch s = byhost[j];
			byhost[j] = byhost[j - 1];
			byhost[j - 1] = s;
		}
	size_t bad_unsorted = recs_vs_old(byhost, n);
	launch_sort_dev(v, n);
	size_t bad_sorted = recs_vs_old(v, n);
	memcpy(byhost, v, n * sizeof *byhost); /* reversed: the heap sort's worst order */
	for (size_t i = 0; i < n; i++)
		v[i] = byhost[n - 1 - i];
	size_t bad_rev = recs_vs_old(v, n);
	size_t bad_one = recs_vs_old(v, 1);
	CHECK(bad_unsorted == 0 && bad_sorted == 0 && bad_rev == 0 && bad_one == 0,
	      "launch_pack_take_recs: the pack and answers of launch_pack_take (unsorted %zu, "
	      "sorted %zu, reversed %zu, one %zu wrong)",
	      bad_unsorted, bad_sorted, bad_rev, bad_one);
	tl_launch_pack e;
	launch_pack_take_recs(&e, NULL, 0);
	CHECK(launch_pack_next(&e, 0) == INT64_MIN, "launch_pack_take_recs: none, none follows");
	launch_pack_free(&e);
	free(byhost);
	free(v);
}

/* A segment's rank and stage are a pair of full ints in the step's who entries (the 24-bit
 * stage of the 24-byte segment is gone): the largest and the least a rank or stage can be,
 * and stage indexes past 2^23 and 2^24, give the same path back from its binary form; the kind
 * and the who index share a word without touching. */
static void
check_wide(void)
{
	cp_seg seg[4] = {{.start = 0, .name = 0, .who = 0, .kind = CP_COMPUTE},
	                 {.start = 10, .name = 1, .who = 1, .kind = CP_WAITING},
	                 {.start = 12, .name = 0, .who = 2, .kind = CP_IDLE},
	                 {.start = 13, .name = 1, .who = 3, .kind = CP_WAITING}};
	const char *names[2] = {"k", ""};
	cp_who who[4] = {
	    {INT32_MAX, (1 << 24) + 3}, {-1, INT32_MAX}, {INT32_MIN, 1 << 23}, {0, -1}};
	cp_blame blame[4] = {{INT32_MAX, CP_COMPUTE, 10},
	                     {INT32_MIN, CP_IDLE, 1},
	                     {-1, CP_WAITING, 2},
	                     {0, CP_WAITING, 2}};
	cp_name_ns ops[1] = {{"k", 10}};
	cp_blame ranks[1] = {{INT32_MAX, CP__COUNT, 10}};
	cp_step st = {.step = 7,
	              .start = 0,
	              .end = 15,
	              .seg = seg,
	              .nseg = 4,
	              .names = names,
	              .nnames = 2,
	              .who = who,
	              .nwho = 4,
	              .blame = blame,
	              .nblame = 4,
	              .ops = ops,
	              .nops = 1};
	tl_cp_result r = {.steps = &st, .n = 1, .ops = ops, .nops = 1, .ranks = ranks, .nranks = 1};
	size_t n = 0;
	uint8_t *b = tlq_critical_encode(&r, &n);
	tl_cp_result back;
	const char *why = b != NULL ? tlq_critical_decode(b, n, &back) : "not encoded";
	int same = why == NULL && back.n == 1 && same_step(&st, &back.steps[0]);
	for (size_t k = 0; same && k < 4; k++)
		same = cp_seg_rank(&back.steps[0], &back.steps[0].seg[k]) == who[k].rank &&
		       cp_seg_stage(&back.steps[0], &back.steps[0].seg[k]) == who[k].stage &&
		       back.steps[0].seg[k].kind == seg[k].kind;
	CHECK(same, "wide: ranks and stages of 2^31 - 1, -2^31, 2^24 + 3 come back (%s)",
	      why ? why : "taken");
	if (why == NULL)
		tlq_critical_free(&back);
	free(b);
}

int
main(void)
{
	check_hand();
	check_wide();
	check_launch_pack();
	check_launch_pack_recs();
	if (rl_test_begin("critpath") == 0) {
		check_rl();
		check_pp();
		rm_rf(tmp);
	}
	return test_done();
}
