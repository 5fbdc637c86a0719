/* The hosts' clocks as the load aligned them (model/trace.h, tl_trace.hosts): `tl info`'s and
 * the text summary's lines, and `tl summary --json`'s "clock" member. Nothing for a profile of
 * one host (or --clock raw), and the summary says nothing when no host's clock was moved or
 * set (their clocks agree): its output is what it was before. */
#include "config.h"
#include "report/report.h"
#include "util/jsonw.h"
#include "util/text.h"

#include <inttypes.h>
#include <string.h>

static double
drift_ppm(const tl_clock_host *h)
{
	return h->clock.drift * 1e6;
}

int
report_clock_moved(const tl_trace *tr)
{
	for (size_t i = 0; i < tr->nhosts; i++)
		if (tr->hosts[i].clock.on || tr->hosts[i].how == TL_CLOCK_MANUAL)
			return 1;
	return 0;
}

void
report_clock_text(FILE *f, const tl_trace *tr)
{
	if (tr->nhosts == 0)
		return;
	char ref[256];
	text_sanitize(tr->hosts[0].name, ref, sizeof ref, 1);
	fprintf(f,
	        "Clocks: %zu hosts, all times on %s's clock (from the collectives and P2P pairs "
	        "they share; --clock raw: each host's own)\n",
	        tr->nhosts, ref);
	fprintf(f, "%-24s %-16s %14s %10s %12s %8s  %s\n", "host", "ranks", "offset_ms",
	        "drift_ppm", "residual_us", "samples", "how");
	for (size_t i = 0; i < tr->nhosts; i++) {
		const tl_clock_host *h = &tr->hosts[i];
		char name[256], ranks[256];
		text_sanitize(h->name, name, sizeof name, 1);
		tlq_clock_ranks_text(h, ranks, sizeof ranks);
		int64_t off = h->clock.off, a = off < 0 ? -off : off;
		fprintf(f, "%-24s %-16s %s%6" PRId64 ".%06" PRId64 " %10.3f %12.3f %8zu  %s", name,
		        ranks, off < 0 ? "-" : " ", a / 1000000, a % 1000000, drift_ppm(h),
		        (double)h->residual_ns / 1e3, h->samples,
		        tlq_clock_how_name(h->how, TLQ_HOW_TEXT));
		/* what the P2P pairs say of it: moved inside their bounds, or broken */
		if (h->p2p_moved)
			fprintf(f, ", moved inside its %zu P2P bounds", h->p2p_pairs);
		if (h->p2p_broken > 0)
			fprintf(f, ", %zu of %zu P2P receives before their sends (up to %.3f us)",
			        h->p2p_broken, h->p2p_pairs, (double)h->p2p_worst_ns / 1e3);
		fputc('\n', f);
	}
}

void
report_clock_json(tl_jsonw *w, const tl_trace *tr)
{
	if (tr->nhosts == 0)
		return;
	jsonw_array_begin_m(w, "clock");
	for (size_t i = 0; i < tr->nhosts; i++) {
		const tl_clock_host *h = &tr->hosts[i];
		jsonw_object_begin(w);
		jsonw_str_m(w, "host", h->name);
		jsonw_array_begin_m(w, "ranks");
		for (size_t k = 0; k < h->nranks; k++)
			jsonw_i64(w, h->ranks[k]);
		jsonw_end(w);
		jsonw_i64_m(w, "offset_ns", h->clock.off);
		jsonw_double_m(w, "drift_ppm", "%.6f", drift_ppm(h));
		jsonw_i64_m(w, "residual_ns", h->residual_ns);
		jsonw_u64_m(w, "samples", h->samples);
		jsonw_u64_m(w, "p2p_pairs", h->p2p_pairs);
		jsonw_u64_m(w, "p2p_broken", h->p2p_broken);
		jsonw_i64_m(w, "p2p_worst_ns", h->p2p_worst_ns);
		jsonw_bool_m(w, "p2p_moved", h->p2p_moved);
		jsonw_bool_m(w, "reference", h->how == TL_CLOCK_REFERENCE);
		jsonw_str_m(w, "how", tlq_clock_how_name(h->how, TLQ_HOW_KEY));
		/* when offset_ns holds, on the host's own clock: a time t it wrote is
		 * t - offset_ns - drift_ppm / 1e6 * (t - t0_ns) on the reference's */
		jsonw_i64_m(w, "t0_ns", h->clock.t0);
		jsonw_end(w);
	}
	jsonw_end(w);
}
