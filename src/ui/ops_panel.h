/* The operator statistics panel (ops_panel.c): what other views ask of it. */
#ifndef TL_UI_OPS_PANEL_H
#define TL_UI_OPS_PANEL_H
#include <stddef.h>
#include <stdint.h>

#include "ui/view.h"

/* Shows the panel for the compute tasks that start in [t0[ri], t1[ri]) of each trace rank ri
 * (t0[ri] >= t1[ri]: none of it), named "in WHAT" on screen, on trace rank `rank` first. */
void ops_panel_show_scoped(tl_ui *, const int64_t *t0, const int64_t *t1, const char *what,
                           size_t rank);

/* Shows the panel for the whole profile on trace rank `rank`, the row of op_type selected. */
void ops_panel_show_type(tl_ui *, size_t rank, const char *op_type);

#endif
