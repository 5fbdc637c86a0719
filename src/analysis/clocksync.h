/* The hosts' clocks against the reference host's, from the collectives they share. Every rank
 * of a collective leaves it at the same moment, up to the tail of the transfer: the ends of one
 * collective instance (matched by group, name with its sequence number, step and occurrence,
 * coll_match: never by position in the trace, so a rank whose capture began later pairs the
 * same calls) on two hosts differ by the hosts' clock difference; so do the ends of a send and
 * the receive it pairs with (pipeline_p2p_pairs). A robust fit over those
 * differences (median, outliers dropped, a line when the capture is long enough to see a
 * drift) gives each host its correction (model/clock.h). */
#ifndef TL_CLOCKSYNC_H
#define TL_CLOCKSYNC_H
#include <stddef.h>
#include <stdint.h>

#include "model/trace.h"

/* A correction that stays within this over the capture is below what the tails of the
 * collectives tell apart (a microsecond or a few on real captures of one host): the host keeps
 * its clock (TL_CLOCK_AGREES), as a job whose clocks agree should print what it did. */
#define CLOCK_AGREE_NS INT64_C(10000)

/* Groups tr's ranks by host (host[i]: the host of tr->ranks[i], NULL unknown: a host of its
 * own, named "rank N") and estimates each host's clock against the host of the lowest rank.
 * Returns the hosts in the order of their lowest rank (*out, the caller's: trace_free frees
 * it as tr->hosts), 0 and NULL when all ranks share one host, or when no host shares a
 * collective with another and none is fixed by hand (unrelated traces side by side: nothing to
 * tell). Applies nothing. */
size_t clock_estimate(const tl_trace *tr, const char *const *host, const tl_clock_fix *fix,
                      size_t nfix, tl_clock_host **out);

/* A host whose estimate rests on fewer collectives than this (the rest P2P pairs' ends) is
 * moved inside the bounds its P2P pairs set ("a receive cannot end before its send began")
 * when it breaks them; with more, a broken bound is only reported (tl_clock_host.p2p_*). */
#define CLOCK_MIN_COLL 3

/* The robust fit of differences d[i] at times x[i] (n of them, reordered): the offset, a
 * drift when the samples span at least CLOCK_DRIFT_SPAN_NS, the residual and the samples kept.
 * Returns the samples kept (0 when n is 0). */
#define CLOCK_DRIFT_SPAN_NS INT64_C(50000000)
size_t clock_fit(int64_t *x, int64_t *d, size_t n, tl_clock *c, int64_t *residual);

#endif
