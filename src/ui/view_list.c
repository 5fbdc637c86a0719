/* The registered views (TL_VIEWS, ui/view.h), as one table. The view stack (views.c) reads it
 * through tl_ui.views, which ui_main sets, so that views.c, which every view calls, refers to no
 * view: the views depend on the stack, and only the viewer's top (ui.c, and the tests) on the
 * table. */
#include "config.h"
#include "ui/view.h"

#define VIEW_PTR_(v) &v,
const view_ops *const ui_views[VIEW__COUNT] = {TL_VIEWS(VIEW_PTR_)};
#undef VIEW_PTR_

const view_ops *
ui_view_at(int i)
{
	return i >= 0 && i < VIEW__COUNT ? ui_views[i] : NULL;
}
