/* The queries the views share, opened with the viewer: today the RL context (tl_rl), which adds
 * every rank's stage lane before the lanes are laid out and answers the bubbles, the DP panel
 * and the PP view. The one place the viewer opens query state. */
#ifndef TL_UI_SESSION_H
#define TL_UI_SESSION_H
#include "ui/view.h"

/* At viewer start, before the timeline is opened: ui->rl and the stage lanes. */
void ui_session_open(tl_ui *);
void ui_session_close(tl_ui *);

#endif
