/* The hosts' clocks of a loaded profile as the load aligned them (model/trace.h, tl_trace.hosts,
 * the numbers `tl info` prints), and why there is no table when there is none: one host, or
 * hosts whose clocks were kept as they are (--clock raw). */
#include "config.h"
#include "query/query.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void
tlq_clocks(const tl_query *q, tlq_clock_table *out)
{
	const tl_trace *tr = tlq_trace(q);
	memset(out, 0, sizeof *out);
	if (tr->nhosts > 0) {
		out->state = TLQ_CLOCKS_ALIGNED;
		out->hosts = tr->hosts;
		out->nhosts = tr->nhosts;
		return;
	}
	/* no table: the hosts the ranks name, the first of each (two distinct: not one host) */
	const char *first = NULL;
	for (size_t i = 0; i < tr->nranks; i++) {
		const char *h = tr->ranks[i]->host;
		if (h == NULL)
			continue;
		if (first == NULL) {
			first = h;
			out->nhosts = 1;
		} else if (strcmp(h, first) != 0) {
			out->nhosts = 2;
			break;
		}
	}
	out->state = out->nhosts > 1 ? TLQ_CLOCKS_RAW : TLQ_CLOCKS_ONE_HOST;
}

size_t
tlq_clock_first_rank(const tl_query *q, const tl_clock_host *h)
{
	return h->nranks > 0 ? trace_rank_index(tlq_trace(q), h->ranks[0]) : SIZE_MAX;
}

void
tlq_clock_ranks_text(const tl_clock_host *h, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < h->nranks && o + 24 < len;) {
		size_t j = i;
		while (j + 1 < h->nranks && h->ranks[j + 1] == h->ranks[j] + 1)
			j++;
		if (j > i)
			o += (size_t)snprintf(out + o, len - o, "%s%d-%d", i ? "," : "",
			                      h->ranks[i], h->ranks[j]);
		else
			o += (size_t)snprintf(out + o, len - o, "%s%d", i ? "," : "", h->ranks[i]);
		i = j + 1;
	}
}

const char *
tlq_clock_how_name(tl_clock_how how, tlq_how_form form)
{
	/* per way a clock was set: tl info's words, the panel's column, the JSON value */
	static const char *const names[][3] = {
	    [TL_CLOCK_REFERENCE] = {"reference", "reference", "reference"},
	    [TL_CLOCK_ESTIMATED] = {"estimated", "estimated", "estimated"},
	    [TL_CLOCK_MANUAL] = {"--clock-offset", "set by hand", "manual"},
	    [TL_CLOCK_KEPT] = {"kept: no shared collective", "no collective", "kept"},
	    [TL_CLOCK_AGREES] = {"agrees (within 10 us: kept)", "agrees: kept", "agrees"},
	};
	size_t h = (size_t)how < sizeof names / sizeof names[0] ? (size_t)how : TL_CLOCK_KEPT;
	return names[h][form];
}
