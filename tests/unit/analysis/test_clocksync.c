/* One clock for the cluster: the correction's arithmetic (model/clock.h), the robust fit and
 * the per-host estimate (analysis/clocksync.h) on hand-built ranks whose answers are known by
 * construction, and the capture directory's host part (load_dir_host). */
#include "config.h"
#include "analysis/clocksync.h"
#include "loading/loading.h"
#include "model/clock.h"
#include "util/strpool.h"
#include "../test.h"

#include <math.h>

/* a rank whose collectives end at ends[i] (ns) on its own clock, named by sequence number */
static tl_rank *
rank_with(int rank, const int64_t *ends, size_t n, size_t skip_first)
{
	tl_rank *r = rank_new(rank);
	tl_track *t = rank_track(r, TL_LANE_COMM, 0, "10.0.0.1%eth0_60000_0_1");
	for (size_t i = skip_first; i < n; i++) {
		char name[64];
		snprintf(name, sizeof name, "hcom_allReduce__123_%zu_1", i + 1);
		track_push(t, ends[i] - 50000 - (int64_t)rank * 1000, ends[i],
		           strpool_intern(r->pool, name, strlen(name)), (uint32_t)i);
	}
	r->loaded = 1;
	rank_finish(r);
	return r;
}

/* a rank's P2P op on the lane of its pipeline group */
static void
p2p_op(tl_rank *r, int send, int64_t start, int64_t end)
{
	tl_track *t = rank_track(r, TL_LANE_COMM, 0, "pp-group-0-1");
	const char *name = send ? "HcclSend" : "HcclRecv";
	track_push(t, start, end, strpool_intern(r->pool, name, strlen(name)), 0);
}

static uint64_t seed = 88172645463325252ULL;
static int64_t
noise(int64_t amp) /* uniform in [-amp, amp] */
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (int64_t)(seed % (uint64_t)(2 * amp + 1)) - amp;
}

int
main(void)
{
	/* ---- the correction: monotone, and unmap gives the raw time back ---- */
	tl_clock c = {.on = 1, .off = 3700000, .t0 = INT64_C(1736407067000000000), .drift = 30e-6};
	int ok = 1, mono = 1;
	int64_t prev = INT64_MIN;
	for (int64_t t = c.t0 - 2000000000; t < c.t0 + 2000000000; t += 999983) {
		int64_t m = clock_map(&c, t);
		ok &= clock_unmap(&c, m) == t || clock_map(&c, clock_unmap(&c, m)) == m;
		mono &= m >= prev;
		prev = m;
	}
	CHECK(ok, "clock_unmap(clock_map(t)) maps to the same time over +-2 s");
	CHECK(mono, "clock_map is monotone");
	for (int64_t t = c.t0; t < c.t0 + 100000; t++) /* every ns: never decreasing */
		if (clock_map(&c, t + 1) < clock_map(&c, t))
			mono = 0;
	CHECK(mono, "clock_map never decreases from one ns to the next");
	CHECK_EQ_I64(clock_map(&c, c.t0 + 1000000000), c.t0 + 1000000000 - 3700000 - 30000,
	             "a second after t0: offset and 30 us of drift taken off");
	tl_clock off = {0};
	CHECK_EQ_I64(clock_map(&off, 12345), 12345, "no correction: the identity");

	/* ---- the fit: a line over a second, noise of +-1 us, three outliers ---- */
	enum { N = 40 };
	int64_t x[N], d[N];
	int64_t base = INT64_C(1736407067000000000);
	for (int i = 0; i < N; i++) {
		x[i] = base + (int64_t)i * 25000000; /* 25 ms apart: about a second */
		d[i] = 3700000 + (int64_t)llround(30e-6 * (double)(x[i] - base)) + noise(1000);
	}
	d[5] += 500000;
	d[17] -= 300000;
	d[33] += 90000;
	tl_clock f;
	int64_t res;
	size_t k = clock_fit(x, d, N, &f, &res);
	CHECK_EQ_I64(k, N - 3, "the three outliers are dropped");
	int64_t at_base = f.off + (int64_t)llround(f.drift * (double)(base - f.t0));
	CHECK(llabs(at_base - 3700000) <= 2000, "offset at the first sample %" PRId64 " (3700000)",
	      at_base);
	CHECK(fabs(f.drift * 1e6 - 30) < 1.0, "drift %.3f ppm (30, +-1: three sigma of the noise)",
	      f.drift * 1e6);
	CHECK(res > 0 && res <= 1000, "residual %" PRId64 " ns, within the noise", res);
	/* a short capture: no drift, the median */
	for (int i = 0; i < 5; i++) {
		x[i] = base + i * 1000000;
		d[i] = -52000 + (i == 3 ? 7000 : 0);
	}
	k = clock_fit(x, d, 5, &f, &res);
	CHECK(k == 4 && f.off == -52000 && f.drift == 0,
	      "5 samples over 4 ms: the median offset, no drift, the far one dropped (%zu, %" PRId64
	      ")",
	      k, f.off);

	/* ---- the estimate: ranks 0, 1 on host a, 2 on b (2 ms ahead), 3 unknown and alone ---- */
	enum { NC = 12 };
	int64_t e[NC], eb[NC], lone[2] = {base + 5, base + 10};
	for (int i = 0; i < NC; i++) {
		e[i] = base + (int64_t)i * 3000000;
		eb[i] = e[i] + 2000000 + noise(800);
	}
	tl_trace tr;
	trace_init(&tr);
	tl_rank *rv[4] = {rank_with(0, e, NC, 0), rank_with(1, e, NC, 0),
	                  /* rank 2's capture began after the first collective */
	                  rank_with(2, eb, NC, 1), rank_with(3, lone, 0, 0)};
	tr.ranks = rv;
	tr.nranks = 4;
	const char *hosts[4] = {"node-a", "node-a", "node-b", NULL};
	tl_clock_host *h;
	size_t nh = clock_estimate(&tr, hosts, NULL, 0, &h);
	CHECK_EQ_I64(nh, 3, "three hosts: node-a, node-b, and rank 3's own");
	if (nh == 3) {
		CHECK(strcmp(h[0].name, "node-a") == 0 && h[0].how == TL_CLOCK_REFERENCE &&
		          h[0].nranks == 2,
		      "node-a (ranks 0, 1) is the reference");
		CHECK(h[1].how == TL_CLOCK_ESTIMATED && llabs(h[1].clock.off - 2000000) <= 1000 &&
		          h[1].samples == NC - 1,
		      "node-b: 2 ms ahead (%" PRId64 "), from the %zu collectives it shares (its "
		      "first missing: paired by sequence number)",
		      h[1].clock.off, h[1].samples);
		CHECK(strcmp(h[2].name, "rank 3") == 0 && h[2].how == TL_CLOCK_KEPT &&
		          !h[2].clock.on,
		      "rank 3, of no known host and no collective, keeps its clock");
	}
	/* by hand */
	tl_clock_fix fx = {"node-b", 1990000};
	tl_clock_host *h2;
	size_t nh2 = clock_estimate(&tr, hosts, &fx, 1, &h2);
	CHECK(nh2 == 3 && h2[1].how == TL_CLOCK_MANUAL && h2[1].clock.off == 1990000,
	      "--clock-offset node-b=1990000 is taken as given");
	/* one host: nothing */
	const char *one[4] = {"n", "n", "n", "n"};
	tl_clock_host *h3;
	CHECK_EQ_I64(clock_estimate(&tr, one, NULL, 0, &h3), 0, "one host: no clocks at all");
	tr.hosts = h;
	tr.nhosts = nh;
	for (size_t i = 0; i < nh2; i++) {
		free(h2[i].name);
		free(h2[i].ranks);
	}
	free(h2);
	tr.ranks = NULL;
	tr.nranks = 0;
	trace_free(&tr);
	for (int i = 0; i < 4; i++)
		rank_free(rv[i]);

	/* ---- the P2P inequality: two hosts sharing only sends and receives. Host b is 3 ms
	 * ahead. Six transfers a -> b, whose receives on b end 300 us after the send but for the
	 * first (a transfer's tail), and two b -> a ending together: the ends' fit says 3.3 ms,
	 * but the first transfer's receive ended 100 us after its send began, so b's correction
	 * is at most 3.1 ms: moved there (the sends' ends alone cannot tell) ---- */
	{
		const int64_t D = 3000000, US = 1000;
		tl_rank *pa = rank_new(0), *pb = rank_new(1);
		for (int i = 0; i < 8; i++) {
			int64_t T = base + (int64_t)i * 2000000;
			if (i < 6) {
				int64_t g = i == 0 ? 0 : 300 * US;
				p2p_op(pa, 1, T, T + 100 * US);
				p2p_op(pb, 0, T - 50 * US + D, T + 100 * US + g + D);
			} else {
				p2p_op(pb, 1, T + D, T + 100 * US + D);
				p2p_op(pa, 0, T - 50 * US, T + 100 * US);
			}
		}
		pa->loaded = pb->loaded = 1;
		rank_finish(pa);
		rank_finish(pb);
		tl_trace tp;
		trace_init(&tp);
		tl_rank *pv[2] = {pa, pb};
		tp.ranks = pv;
		tp.nranks = 2;
		const char *ph[2] = {"node-a", "node-b"};
		tl_clock_host *q;
		size_t nq = clock_estimate(&tp, ph, NULL, 0, &q);
		CHECK(nq == 2 && q[1].how == TL_CLOCK_ESTIMATED && q[1].clock.off == D + 100 * US &&
		          q[1].p2p_moved && q[1].p2p_pairs == 8 && q[1].p2p_broken == 0,
		      "P2P only: the ends' fit (3.3 ms) moved to the bound the receives set, "
		      "%" PRId64 " (3100000), %zu pairs, %zu broken after",
		      nq == 2 ? q[1].clock.off : -1, nq == 2 ? q[1].p2p_pairs : 0,
		      nq == 2 ? q[1].p2p_broken : 0);
		tl_clock_fix good = {"node-b", D}, bad = {"node-b", D + 500 * US};
		tl_clock_host *q2, *q3;
		size_t n2 = clock_estimate(&tp, ph, &good, 1, &q2);
		size_t n3 = clock_estimate(&tp, ph, &bad, 1, &q3);
		CHECK(n2 == 2 && q2[1].how == TL_CLOCK_MANUAL && q2[1].p2p_broken == 0,
		      "--clock-offset node-b=3000000 (the truth) breaks no pair");
		CHECK(n3 == 2 && q3[1].how == TL_CLOCK_MANUAL && q3[1].clock.off == D + 500 * US &&
		          q3[1].p2p_broken == 6 && q3[1].p2p_worst_ns == 400 * US &&
		          !q3[1].p2p_moved,
		      "--clock-offset node-b=3500000 is kept but flagged: 6 receives end before "
		      "their sends began, by up to %" PRId64 " ns (400000)",
		      n3 == 2 ? q3[1].p2p_worst_ns : -1);
		tl_clock_host *all[3] = {q, q2, q3};
		size_t nall[3] = {nq, n2, n3};
		for (int j = 0; j < 3; j++) {
			for (size_t i = 0; i < nall[j]; i++) {
				free(all[j][i].name);
				free(all[j][i].ranks);
			}
			free(all[j]);
		}
		rank_free(pa);
		rank_free(pb);
	}

	/* ---- a PyTorch profiler trace's name: {host}_{pid}.{time}.pt.trace.json ---- */
	char *s = load_file_host("/p/node-3_4021.1700000000123456789.pt.trace.json");
	CHECK_STR(s, "node-3", "{host}_{pid}.{time_ns}.pt.trace.json");
	free(s);
	s = load_file_host("/p/my_host_77.1736414082311.pt.trace.json.gz");
	CHECK_STR(s, "my_host", "a host with an underscore, the time in ms, gzipped");
	free(s);
	CHECK(load_file_host("/p/rank-34.Jul_15_10_52_41.1074.pt.trace.json") == NULL,
	      "a worker name of the user's own (a sample's): no host");
	CHECK(load_file_host("/p/rank0.pt.trace.json") == NULL, "rank0.pt.trace.json: no host");
	CHECK(load_file_host("/p/h_1.1700000000123.json") == NULL, "not a .pt.trace.json: none");

	/* ---- the capture directory's host part ---- */
	s = load_dir_host("/p/node-7_12345_20250109071747041_ascend_pt");
	CHECK_STR(s, "node-7", "{host}_{pid}_{time}_ascend_pt");
	free(s);
	s = load_dir_host("/p/my_host_name_99_1736414082311_ascend_pt");
	CHECK_STR(s, "my_host_name", "a host name with underscores");
	free(s);
	CHECK(load_dir_host("/p/rank0_ascend_pt") == NULL, "rank0_ascend_pt: no host");
	CHECK(load_dir_host("/p/PROF_000001_20250101") == NULL, "not a torch_npu capture: no host");
	CHECK(load_dir_host("/p/_1_2_ascend_pt") == NULL, "an empty host part: none");
	return test_done();
}
