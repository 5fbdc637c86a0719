/* Inside the DP panel (dp_panel.c the panel, dp_chart.c its concurrency chart, which calls
 * nothing of the panel): the panel's state, which the chart reads. */
#ifndef TL_UI_DP_PANEL_INT_H
#define TL_UI_DP_PANEL_INT_H
#include <stddef.h>
#include <stdint.h>

#include "ui/dp_panel.h"

typedef struct dp_state {
	size_t imb;      /* index into tlq_imbalances */
	int sort;        /* COL_*: the column rows are sorted by */
	int metric;      /* TL_DP_*: what the chart shows */
	size_t sel, top; /* selected row and first row shown */
	size_t *order;   /* rows in display order */
	size_t norder;
	/* a profile without stages: its engine steps as one rollout (tlq_dp_whole), or NULL */
	const tl_imbalance *whole;
} dp_state;

/* The chart's title per metric (TL_DP_*). */
extern const char *const dp_metric_titles[TL_DP__METRICS];

/* 0: the stage ran no engine step (NULL), 1: steps without stats, 2: some with stats. */
int dp_level(const tl_dp *d);

/* The concurrency chart under the table at (x, y), w wide, in colour slot `slot`. One line per
 * rank: eighth blocks (or ASCII levels) per column; the end steps as lines where a rank had
 * already stopped. */
void dp_chart_rows(tl_ui *ui, dp_state *s, const tl_dp *d, int x, int y, int w, uint8_t slot);
/* Every rank in one plot of braille dots (2 x 4 per cell) h rows high, the selected rank's
 * cells in the highlight; for more ranks than rows. */
void dp_chart_overlay(tl_ui *ui, dp_state *s, const tl_dp *d, int x, int y, int w, int h,
                      uint8_t slot);

#endif
