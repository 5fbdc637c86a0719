/* The RL panels' shared state: one query context per viewer, opened with the viewer so
 * every rank gets its stage lane, and what the DP panel and the PP view show. */
#ifndef TL_UI_RL_H
#define TL_UI_RL_H
#include "query/query.h"
#include "ui/ui.h"

enum { RL_SORT_RANK, RL_SORT_DURATION, RL_SORT_WAIT, RL_SORT_DECODE, RL_SORT_IDLE, RL_SORT__COUNT };

typedef struct ui_rl {
	tl_rl *rl;
	/* DP panel */
	size_t imb;      /* index into tlq_imbalances, or SIZE_MAX before the first open */
	int sort;        /* RL_SORT_* */
	size_t sel, top; /* selected row and first row shown */
	size_t *order;   /* rows in display order */
	size_t norder;
	/* PP view */
	size_t pp_step;        /* index into the pipeline's steps */
	size_t pp_sel, pp_top; /* selected PP stage, first shown */
} ui_rl;

/* At viewer start: the context and the stage lanes (before the lanes are laid out). */
void ui_rl_init(tl_ui *);
/* The state, created when the viewer was built without ui_rl_init (tests). */
ui_rl *ui_rl_get(tl_ui *);
/* Opens the panel of an action (ACT_DP_PANEL, ACT_PP_VIEW). */
void ui_rl_open_panel(tl_ui *, int action);
void ui_rl_done(tl_ui *);

#endif
