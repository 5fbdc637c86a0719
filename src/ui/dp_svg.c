/* The concurrency chart of one rollout as a plain SVG file (no dependency, any browser or
 * report tool shows it): one line per DP rank of a mark's number per engine step, with the
 * steps where the first and the last rank ran out of work marked, as dp_analysis'
 * dp_event_plot.png draws out_tokens. */
#include "config.h"
#include "ui/dp_panel.h"

#include <inttypes.h>
#include <string.h>

#define SVG_W 960
#define SVG_H 540
#define SVG_LEFT 70
#define SVG_RIGHT 150 /* the legend */
#define SVG_TOP 50
#define SVG_BOTTOM 50
#define SVG_LEGEND_MAX 24 /* ranks named in the legend; the rest are counted */

/* matplotlib's tab10, the colours dp_event_plot cycles through */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define NPALETTE (sizeof palette / sizeof *palette)

static void
xml_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', f); /* not allowed in XML 1.0 */
		else
			fputc(c, f);
	}
}

static double
px_x(int step, int gmax)
{
	double pw = SVG_W - SVG_LEFT - SVG_RIGHT;
	return SVG_LEFT + (gmax > 0 ? (double)step / gmax * pw : pw / 2);
}

static double
px_y(double v, double vmax)
{
	double ph = SVG_H - SVG_TOP - SVG_BOTTOM;
	return SVG_TOP + ph - (vmax > 0 ? v / vmax * ph : 0);
}

static void
end_marker(FILE *f, int step, int gmax, const char *what)
{
	double x = px_x(step, gmax);
	fprintf(f,
	        "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#555\" "
	        "stroke-dasharray=\"6 4\"/>\n"
	        "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%s end step "
	        "%d</text>\n",
	        x, SVG_TOP, x, SVG_H - SVG_BOTTOM, x, SVG_TOP - 6, what, step);
}

int
dp_svg_write(FILE *f, const tl_trace *tr, const tl_dp *d, const char *stage, int metric,
             size_t highlight)
{
	int early, gmax;
	tlq_dp_end_steps(d->ranks, d->n, &early, &gmax);
	double vmax = tlq_dp_metric_max(d->ranks, d->n, metric);
	const char *mn = tlq_dp_metric_name(metric);
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
	        "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
	        "<text x=\"%d\" y=\"20\" font-size=\"15\">%s per engine step, stage ",
	        SVG_W, SVG_H, SVG_W, SVG_H, SVG_LEFT, mn);
	xml_text(f, stage ? stage : "(whole capture)");
	if (d->step >= 0)
		fprintf(f, ", step %" PRId64, d->step);
	fprintf(f, "</text>\n");
	/* axes, ticks at 0, half and the top; steps at quarters */
	int x0 = SVG_LEFT, x1 = SVG_W - SVG_RIGHT, y0 = SVG_H - SVG_BOTTOM, y1 = SVG_TOP;
	fprintf(f,
	        "<g stroke=\"black\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
	        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/></g>\n",
	        x0, y0, x1, y0, x0, y0, x0, y1);
	for (int i = 0; i <= 2; i++) {
		double v = vmax * i / 2;
		fprintf(
		    f,
		    "<text x=\"%d\" y=\"%.2f\" font-size=\"11\" text-anchor=\"end\">%.4g</text>\n",
		    x0 - 6, px_y(v, vmax) + 4, v);
	}
	for (int i = 0; i <= 4 && gmax >= 0; i++) {
		int s = gmax * i / 4;
		if (i > 0 && s == gmax * (i - 1) / 4)
			continue;
		fprintf(
		    f,
		    "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>\n",
		    px_x(s, gmax), y0 + 16, s);
	}
	fprintf(f,
	        "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">engine step (0 = "
	        "the rank's first in the rollout)</text>\n",
	        (x0 + x1) / 2, y0 + 36);
	if (early >= 0) {
		end_marker(f, early, gmax, "earliest");
		if (gmax != early)
			end_marker(f, gmax, gmax, "latest");
	}
	/* one line per rank; a step without stats breaks it; the highlighted rank last, on top */
	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->n; i++) {
			int hl = i == highlight;
			if (hl != (int)pass)
				continue;
			const tl_dp_rank *x = &d->ranks[i];
			int open = 0;
			fprintf(f, "<g fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s>",
			        palette[i % NPALETTE], hl ? "3" : "1.5",
			        highlight != SIZE_MAX && !hl ? " stroke-opacity=\"0.55\"" : "");
			for (size_t k = 0; k < x->nsteps; k++) {
				double v = tlq_dp_step_value(&x->steps[k], metric);
				if (v == TL_DP_NONE) {
					if (open)
						fprintf(f, "\"/>");
					open = 0;
					continue;
				}
				fprintf(f, "%s%.2f,%.2f", open ? " " : "<polyline points=\"",
				        px_x((int)k, gmax), px_y(v, vmax));
				open = 1;
			}
			if (open)
				fprintf(f, "\"/>");
			fprintf(f, "</g>\n");
		}
	for (size_t i = 0; i < d->n && i < SVG_LEGEND_MAX; i++) {
		int y = SVG_TOP + 10 + (int)i * 18;
		fprintf(f,
		        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
		        "stroke-width=\"%s\"/><text x=\"%d\" y=\"%d\" font-size=\"12\"%s>rank "
		        "%d</text>\n",
		        x1 + 20, y, x1 + 44, y, palette[i % NPALETTE], i == highlight ? "3" : "1.5",
		        x1 + 50, y + 4, i == highlight ? " font-weight=\"bold\"" : "",
		        tr->ranks[d->ranks[i].rank]->rank);
	}
	if (d->n > SVG_LEGEND_MAX)
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">and %zu more</text>\n",
		        x1 + 20, SVG_TOP + 14 + SVG_LEGEND_MAX * 18, d->n - SVG_LEGEND_MAX);
	fprintf(f, "</svg>\n");
	return ferror(f) ? -1 : 0;
}
