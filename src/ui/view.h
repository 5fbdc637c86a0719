/* Views and the view stack (tig's struct view and its display stack, tmux's window modes).
 *
 * A view is one file exporting a `const view_ops`: it draws into a rectangle of the cell grid
 * (ui->scr) and handles actions. Its state is its own: `open` makes it the first time the view
 * is shown, the view's functions receive it as `st`, `close` frees it when the viewer ends; no
 * other file sees inside it. What views share is in tl_ui below: the trace, the query session,
 * the selection, the message line, the screen, theme and keymap.
 *
 * The stack holds the views on screen, one per layer, bottom up: the timeline, the detail pane
 * (a pane: drawn under the timeline's lanes, the timeline keeps the keys it does not take), a
 * panel (the DP panel, the PP view), the help screen. The dispatch rule (views.c,
 * ui_view_action): an action goes from the top down until a view takes it (its `action` returns
 * 1); a view returns 0 for whatever is not its own, and names no other view's action. A
 * full-screen view (a panel, the help) hides those below it, so what it leaves goes to the
 * stack's own: q and Esc take it back to its parent (the panel of its layer it was opened over:
 * the operator panel opened from the DP panel returns there; none: the timeline), the prompt,
 * redraw, and the view whose `open_action` it is, from wherever it is pressed. Whether an
 * action works while ranks load is its UI_WHILE_LOADING flag in TL_ACTIONS (ui/actions.h).
 *
 * TL_VIEWS declares every view's ops, so a view that offers nothing else needs no header of its
 * own; the timeline, which the commands and panels ask for more, has ui/timeline.h.
 *
 * Adding a panel (a communication matrix, a search result list, ...; docs/architecture.md):
 *   1. src/ui/NAME.c: its state struct, `open` (xcalloc the state), `draw`, `action` (its own
 *      keys return 1, every other 0: no list of the others' keys), `close`, and
 *      `const view_ops NAME_view = {.name = "NAME", .layer = UI_LAYER_PANEL,
 *      .open_action = ACT_NAME, ...}`. To show a place in the timeline: ui_view_close, then
 *      timeline_reveal (ui/timeline.h). A list of rows draws with ui/table.h: a column
 *      description, a row callback, the selection, scrolling, page keys and a stable sort.
 *   2. One line in TL_VIEWS below; the file in Makefile.am.
 *   3. Its opening action in ui/actions.h (flags 0 unless it works while ranks load), and a key
 *      in keymaps/default.keys (`make man-keys`).
 *   tests/tui/test_panel_keys.sh then opens it from every panel and every panel from it.
 */
#ifndef TL_UI_VIEW_H
#define TL_UI_VIEW_H
#include <stdint.h>

#include "model/trace.h"
#include "query/query.h"
#include "ui/actions.h"
#include "ui/keymap.h"
#include "ui/prompt.h"
#include "ui/screen.h"
#include "ui/theme.h"
#include "ui/ui.h"

typedef struct tl_ui tl_ui;

enum {
	UI_LAYER_BASE,  /* the timeline, always at the bottom */
	UI_LAYER_PANE,  /* under the base view's lanes; the base view keeps the screen */
	UI_LAYER_PANEL, /* full screen over the timeline */
	UI_LAYER_HELP,  /* over everything */
	UI_LAYER__COUNT
};

typedef struct view_ops {
	const char *name;
	int layer;       /* UI_LAYER_*: a view replaces the one of its layer on the stack */
	int open_action; /* the action that shows it; ACT_NONE: none */
	/* Its state, made the first time the view is shown and kept until the viewer ends. */
	void *(*open)(tl_ui *);
	/* Draws into the rectangle. */
	void (*draw)(tl_ui *, void *st, int x, int y, int w, int h);
	/* Handles an action; returns 1 when handled. */
	int (*action)(tl_ui *, void *st, int action);
	/* Each time the view is put on the stack (after open): a view whose contents depend on
	 * where it was opened from (the operator panel's scope) looks here. NULL: nothing. */
	void (*show)(tl_ui *, void *st);
	/* The view's own keys, asked before the keymap when the view has the screen (the
	 * bookmarks panel's x deletes); returns 1 when it took the key. NULL: none. */
	int (*key)(tl_ui *, void *st, int key);
	/* Panes: the rows it takes of a screen h rows high. */
	int (*height)(tl_ui *, void *st, int h);
	/* The screen changed size. */
	void (*resize)(tl_ui *, void *st);
	/* Frees the state. */
	void (*close)(tl_ui *, void *st);
} view_ops;

/* Every view, once: the registration list. */
#define TL_VIEWS(X)                                                                                \
	X(timeline_view)                                                                           \
	X(detail_view)                                                                             \
	X(dp_panel_view)                                                                           \
	X(pp_view)                                                                                 \
	X(overview_view)                                                                           \
	X(search_list_view)                                                                        \
	X(bookmarks_view)                                                                          \
	X(comm_panel_view)                                                                         \
	X(matrix_panel_view)                                                                       \
	X(slow_panel_view)                                                                         \
	X(findings_panel_view)                                                                     \
	X(blame_panel_view)                                                                        \
	X(ops_panel_view)                                                                          \
	X(modules_panel_view)                                                                      \
	X(live_panel_view)                                                                         \
	X(diff_panel_view)                                                                         \
	X(query_panel_view)                                                                        \
	X(clock_panel_view)                                                                        \
	X(help_view)

#define VIEW_EXTERN_(v) extern const view_ops v;
TL_VIEWS(VIEW_EXTERN_)
#undef VIEW_EXTERN_
/* tl view --finding N: the findings panel with finding ix (0-based) selected, then Enter on it:
 * its place on the timeline, its evidence on the message line. */
void findings_panel_show(tl_ui *, size_t ix);
/* The first frame's verdict: the top finding's title (sanitized) in title, "" with none, of the
 * rules over the loaded lanes only (no profile file read again; the panel runs every rule);
 * returns how many of those found something. Computed once. */
size_t findings_verdict(tl_ui *, char *title, size_t len);
#define VIEW_ENUM_(v) VIEW_ID_##v,
enum { TL_VIEWS(VIEW_ENUM_) VIEW__COUNT };
#undef VIEW_ENUM_

/* A slice: slice idx of track `track` of trace rank `rank` (an index into tr->ranks). */
typedef struct ui_slice_ref {
	size_t rank, track, idx;
} ui_slice_ref;

/* What the user points at, shared by the timeline (which sets it) and the detail pane (which
 * describes it). */
typedef struct ui_selection {
	int have;
	ui_slice_ref s;
	/* the selected Free slice's bubble, when the timeline already has it (bubble-next) */
	int have_bubble;
	tl_rl_bubble bubble;
	/* a marked range: nmark ends set */
	int nmark;
	int64_t mark[2];
	unsigned gen; /* bumped on every change of the selection or the range */
} ui_selection;

struct tl_ui {
	const tl_trace *tr; /* tlq_trace(q) */
	tl_ui_sql_fn sql;   /* :query's runner, from main (ui/ui.h); NULL: none */
	const tl_query *q;  /* the session main opened: every number the views show */
	/* tl view A --compare B: B's session, its lanes' alignment and tl diff's changes
	 * (ui/compare.h); NULL without --compare */
	struct ui_compare *cmp;
	tl_screen scr;
	tl_theme theme;
	tl_keymap keys;
	int utf8;

	/* how times are shown: relative to the start of the profile, or wall-clock */
	int64_t origin;
	int abstime;

	ui_selection sel;

	/* the :-prompt and the message line */
	ui_prompt prompt;
	char msg[512];
	int msg_err;
	int quit;
	int small_shown; /* script mode: the ranks' small tables had their frame (ui.c) */
	int loaded_note; /* the footer says "loaded: N ranks" until the next key (ui.c) */
	/* the verdict line above the status line (ui.c): UI_VERDICT_* */
	int verdict;
	int redraw; /* the terminal must be redrawn in full */

	/* the views: the registered ones (ui_views), their states (NULL before first shown) and
	 * the stack of those on screen */
	const view_ops *const *views;
	void *state[VIEW__COUNT];
	int stack[UI_LAYER__COUNT];
	int depth;
	/* each view's parent + 1 (0: none): the view of its layer it was opened over, where
	 * closing it with Esc or q returns (the operator panel opened from the DP panel) */
	int parent[VIEW__COUNT];
};

/* The verdict line: none (or gone at a key); waiting for the load to end; its row drawn while
 * the findings are found (ui.c finds them right after that frame, before any key); on screen. */
enum { UI_VERDICT_OFF, UI_VERDICT_PENDING, UI_VERDICT_FINDING, UI_VERDICT_SHOWN };

/* The view's state, opened when it was never shown. */
void *ui_view_state(tl_ui *, const view_ops *);
/* Shows the view: it takes its layer's place on the stack. */
void ui_view_open(tl_ui *, const view_ops *);
/* Takes the view (and what is above it) off the stack: to show a place in the timeline. */
void ui_view_close(tl_ui *, const view_ops *);
/* Closes the view and shows its parent again, as it was left (Esc, q). */
void ui_view_back(tl_ui *, const view_ops *);
/* The top view of the stack that is not a pane: the one that has the screen. */
const view_ops *ui_view_front(const tl_ui *);
/* Runs an action through the stack (the dispatch rule: views.c). */
void ui_view_action(tl_ui *, int action);
/* Every open state: after a resize; at the end (frees them). */
void ui_view_resize_all(tl_ui *);
void ui_view_close_all(tl_ui *);
/* The registered views, in TL_VIEWS order (view_list.c): tl_ui.views points here. */
extern const view_ops *const ui_views[VIEW__COUNT];
const view_ops *ui_view_at(int i);

#endif
