/* What the DP panel offers besides its view: its concurrency chart as an SVG file. */
#ifndef TL_UI_DP_PANEL_H
#define TL_UI_DP_PANEL_H
#include <stdio.h>

#include "ui/view.h"

/* Writes the chart the panel shows (or would show when opened: its stage, step, metric and
 * selected rank) to path as SVG. Returns 0, or -1 with the reason on the message line. */
int dp_panel_export_svg(tl_ui *, const char *path);

/* The concurrency chart of one rollout as plain SVG text (dp_svg.c): metric (TL_DP_*) per
 * engine step, one line per rank, row `highlight` of d drawn on top and thicker (SIZE_MAX:
 * none), the earliest and latest end steps marked. stage: its name (untrusted: escaped), NULL
 * for the whole capture. Returns 0, or -1 when writing failed. */
int dp_svg_write(FILE *, const tl_trace *, const tl_dp *d, const char *stage, int metric,
                 size_t highlight);

#endif
