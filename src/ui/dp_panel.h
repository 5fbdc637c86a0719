/* What the DP panel offers besides its view: its concurrency chart as an SVG file. */
#ifndef TL_UI_DP_PANEL_H
#define TL_UI_DP_PANEL_H
#include "ui/view.h"

/* Writes the chart the panel shows (or would show when opened: its stage, step, metric and
 * selected rank) to path as SVG. Returns 0, or -1 with the reason on the message line. */
int dp_panel_export_svg(tl_ui *, const char *path);

#endif
