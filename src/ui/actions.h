/* Every action of the viewer, in one table: it drives key dispatch, the `?` help screen, the
 * keymap parser (action names), `:`-commands of the same name and the key list in tl(1)
 * (`tl keys --man`). X(enum, name, flags, section, help).
 *
 * flags: UI_WHILE_LOADING, the action works on the ranks that are in while the others still load
 * (moving, zooming, the lanes, the screen); without it the action reads tables over every rank
 * and the viewer says it waits for the last one (tmux's cmd_entry.flags). */
#ifndef TL_ACTIONS_H
#define TL_ACTIONS_H

/* A flag of the action and command tables (ui/commands.h). */
#define UI_WHILE_LOADING 1

#define TL_ACTIONS(X)                                                                              \
	X(CURSOR_LEFT, "cursor-left", UI_WHILE_LOADING, "Moving",                                  \
	  "Move the cursor one column left (pans at the edge)")                                    \
	X(CURSOR_RIGHT, "cursor-right", UI_WHILE_LOADING, "Moving",                                \
	  "Move the cursor one column right (pans at the edge)")                                   \
	X(PAN_LEFT, "pan-left", UI_WHILE_LOADING, "Moving", "Pan the view left by one column")     \
	X(PAN_RIGHT, "pan-right", UI_WHILE_LOADING, "Moving", "Pan the view right by one column")  \
	X(SCROLL_LEFT, "scroll-left", UI_WHILE_LOADING, "Moving",                                  \
	  "Pan the view left by an eighth of its width")                                           \
	X(SCROLL_RIGHT, "scroll-right", UI_WHILE_LOADING, "Moving",                                \
	  "Pan the view right by an eighth of its width")                                          \
	X(PAGE_LEFT, "page-left", UI_WHILE_LOADING, "Moving",                                      \
	  "Pan the view left by its whole width")                                                  \
	X(PAGE_RIGHT, "page-right", UI_WHILE_LOADING, "Moving",                                    \
	  "Pan the view right by its whole width")                                                 \
	X(ZOOM_IN, "zoom-in", UI_WHILE_LOADING, "Moving", "Zoom in around the cursor")             \
	X(ZOOM_OUT, "zoom-out", UI_WHILE_LOADING, "Moving", "Zoom out around the cursor")          \
	X(FIT_ALL, "fit-all", UI_WHILE_LOADING, "Moving", "Show the whole profile")                \
	X(ZOOM_SELECTION, "zoom-selection", 0, "Moving", "Zoom to the selected slice")             \
	X(GO_START, "go-start", UI_WHILE_LOADING, "Moving",                                        \
	  "Move the cursor to the start of the profile")                                           \
	X(GO_END, "go-end", UI_WHILE_LOADING, "Moving",                                            \
	  "Move the cursor to the end of the profile")                                             \
	X(GOTO, "goto", UI_WHILE_LOADING, "Moving",                                                \
	  "Go to a time: prompts for :goto TIME (12.5ms, +2ms, -500us)")                           \
	X(LANE_UP, "lane-up", UI_WHILE_LOADING, "Lanes", "Move to the lane above")                 \
	X(LANE_DOWN, "lane-down", UI_WHILE_LOADING, "Lanes", "Move to the lane below")             \
	X(PAGE_UP, "page-up", UI_WHILE_LOADING, "Lanes", "Move one screen of lanes up")            \
	X(PAGE_DOWN, "page-down", UI_WHILE_LOADING, "Lanes", "Move one screen of lanes down")      \
	X(RANK_PREV, "rank-prev", UI_WHILE_LOADING, "Lanes", "Move to the previous rank")          \
	X(RANK_NEXT, "rank-next", UI_WHILE_LOADING, "Lanes", "Move to the next rank")              \
	X(FIRST_LANE, "first-lane", UI_WHILE_LOADING, "Lanes", "Move to the first lane")           \
	X(LAST_LANE, "last-lane", UI_WHILE_LOADING, "Lanes", "Move to the last lane")              \
	X(TOGGLE_RANK, "toggle-rank", UI_WHILE_LOADING, "Lanes",                                   \
	  "Collapse or expand the lanes of the current rank")                                      \
	X(TOGGLE_ALL, "toggle-all", UI_WHILE_LOADING, "Lanes", "Collapse or expand every rank")    \
	X(TOGGLE_STREAMS, "toggle-streams", UI_WHILE_LOADING, "Lanes",                             \
	  "Show compute and memcpy per stream and the HCCL task lanes of the current rank")        \
	X(TOGGLE_OVERLAP, "toggle-overlap", UI_WHILE_LOADING, "Lanes",                             \
	  "Show or hide the overlap lanes")                                                        \
	X(TOGGLE_HOST, "toggle-host", 0, "Lanes", "Show or hide host API lanes")                   \
	X(COUNTERS, "counters", 0, "Lanes",                                                        \
	  "Show or hide the counter lanes: memory (allocator, NPU, modules) and AI Core "          \
	  "frequency")                                                                             \
	X(COUNTER_PEAK, "counter-peak", 0, "Lanes",                                                \
	  "Go to the peak of the counter lane under the cursor (then live: what was live)")        \
	X(LABEL_WIDTH, "label-width", UI_WHILE_LOADING, "Lanes",                                   \
	  "Widen the lane names' column (again: wider, then narrowest, then fitted); :labels N")   \
	X(PIN_RANK, "pin-rank", UI_WHILE_LOADING, "Lanes",                                         \
	  "Pin the current rank to the top (again: unpin); :lanes REGEX filters lanes")            \
	X(SLICE_NEXT, "slice-next", 0, "Slices", "Select the next slice on the current lane")      \
	X(SLICE_PREV, "slice-prev", 0, "Slices", "Select the previous slice on the current lane")  \
	X(SELECT, "select", 0, "Slices", "Select the slice under the cursor and show its details") \
	X(LINK_LAUNCHER, "link-launcher", 0, "Slices",                                             \
	  "From a device task to the CANN call that launched it, again: its PyTorch operator")     \
	X(LINK_KERNELS, "link-kernels", 0, "Slices",                                               \
	  "From a PyTorch operator or CANN call to the first device task it launched, again: "     \
	  "the next")                                                                              \
	X(LINK_PARTNER, "link-partner", 0, "Slices",                                               \
	  "From a forward operator to its backward operator (autograd's pair), and back")          \
	X(TOGGLE_DETAIL, "toggle-detail", 0, "Slices", "Show or hide the detail pane")             \
	X(DETAIL_UP, "detail-up", 0, "Slices", "Scroll the detail pane up")                        \
	X(DETAIL_DOWN, "detail-down", 0, "Slices", "Scroll the detail pane down")                  \
	X(MARK, "mark", 0, "Ranges",                                                               \
	  "Mark a range end at the cursor (twice: a range with statistics)")                       \
	X(MARK_STEP, "mark-step", 0, "Ranges",                                                     \
	  "Mark the step under the cursor as the range: its statistics in one key")                \
	X(ZOOM_MARK, "zoom-mark", 0, "Ranges", "Zoom to the marked range")                         \
	X(BOOKMARKS, "bookmarks", 0, "Ranges",                                                     \
	  "List the bookmarks (:mark NAME sets one at the cursor); Enter goes back, x deletes")    \
	X(CLEAR, "clear", 0, "Ranges",                                                             \
	  "Clear the mark, then a finding's or the critical path's marks, then the selection, "    \
	  "then the search")                                                                       \
	X(SEARCH, "search", 0, "Search", "Search slice names with a regular expression (pcre2)")   \
	X(SEARCH_NEXT, "search-next", 0, "Search",                                                 \
	  "Go to the next match in time order; while a critical path is marked (E), its next "     \
	  "segment, until the next search")                                                        \
	X(SEARCH_PREV, "search-prev", 0, "Search",                                                 \
	  "Go to the previous match in time order; while a critical path is marked, its previous " \
	  "segment")                                                                               \
	X(SEARCH_LIST, "search-list", 0, "Search",                                                 \
	  "List the matches: per rank count, total and mean duration, then each; Enter goes "      \
	  "there")                                                                                 \
	X(TOGGLE_BUBBLES, "toggle-bubbles", 0, "Bubbles",                                          \
	  "Highlight idle bubbles (Free) on every lane")                                           \
	X(BUBBLE_NEXT, "bubble-next", 0, "Bubbles", "Go to the next bubble of the current rank")   \
	X(BUBBLE_PREV, "bubble-prev", 0, "Bubbles",                                                \
	  "Go to the previous bubble of the current rank")                                         \
	X(BUBBLE_LARGEST, "bubble-largest", 0, "Bubbles",                                          \
	  "Go to the next largest bubble (all ranks)")                                             \
	X(BUBBLE_LARGEST_PREV, "bubble-largest-prev", 0, "Bubbles",                                \
	  "Go back to the previous larger bubble")                                                 \
	X(DP_PANEL, "dp-panel", 0, "Panels",                                                       \
	  "Show the DP load-imbalance panel: per rank, one RL stage and step")                     \
	X(PP_VIEW, "pp-view", 0, "Panels",                                                         \
	  "Show the pipeline-parallel flow view: F/B blocks per PP stage")                         \
	X(OVERVIEW, "overview", 0, "Panels",                                                       \
	  "Show the overview: the tables of tl summary, sortable; Enter goes to the row")          \
	X(COMM_PANEL, "comm", 0, "Panels", "Show the communication panel: time per op and rank")   \
	X(SLOW_PANEL, "slow", 0, "Panels",                                                         \
	  "Show the slow-rank votes: Enter jumps to a rank's worst collective")                    \
	X(FINDINGS_PANEL, "findings", 0, "Panels",                                                 \
	  "Show the findings of tl triage, largest recoverable time first; Enter shows the place") \
	X(CRITICAL, "critical", 0, "Panels",                                                       \
	  "Mark the critical path of the step at the cursor on the lanes (n/N walk its segments "  \
	  "across ranks); again: the step's blame by rank, kind and operator")                     \
	X(MATRIX_PANEL, "matrix", 0, "Panels",                                                     \
	  "Show the rank x rank communication matrix per group and step as a heat map; Enter "     \
	  "lists a cell's ops")                                                                    \
	X(OPS_PANEL, "ops", 0, "Panels",                                                           \
	  "Show the operator statistics per rank (the slowest first) by op type: of the marked "   \
	  "range when there is one; in the DP panel, of its stage and step")                       \
	X(MODULES_PANEL, "modules", 0, "Panels",                                                   \
	  "Show the module tree (Module-domain mstx ranges): device time per module, forward and " \
	  "backward")                                                                              \
	X(LIVE_PANEL, "live", 0, "Panels",                                                         \
	  "Show the largest allocations live at the cursor (OP_MEMORY), with their op and Python " \
	  "frame")                                                                                 \
	X(DIFF_PANEL, "diff", 0, "Panels",                                                         \
	  "With --compare: tl diff's ranked changes; Right: a row's ranks, Enter: both runs")      \
	X(CLOCKS, "clocks", 0, "Panels",                                                           \
	  "Show the hosts' clocks as tl aligned them: offset, drift, residual per host; Enter "    \
	  "goes to the host's first rank")                                                         \
	X(STAGE_NEXT, "stage-next", 0, "Panels",                                                   \
	  "In the DP panel: the next RL stage; in the overview: the next table (also Right); in "  \
	  "the matrix: the next group")                                                            \
	X(STAGE_PREV, "stage-prev", 0, "Panels",                                                   \
	  "In the DP panel: the previous RL stage; in the overview: the previous table (also "     \
	  "Left); in the matrix: the previous group")                                              \
	X(STEP_NEXT, "step-next", 0, "Panels",                                                     \
	  "The next step: the timeline zooms to it, a panel shows it (also ] there)")              \
	X(STEP_PREV, "step-prev", 0, "Panels",                                                     \
	  "The previous step: the timeline zooms to it, a panel shows it (also [ there)")          \
	X(SORT_NEXT, "sort-next", 0, "Panels",                                                     \
	  "In a panel: the next sort order (DP panel: rank, duration, wait, decode steps, idle)")  \
	X(CHART_NEXT, "chart-next", 0, "Panels",                                                   \
	  "In the DP panel: chart out_tokens, running or waiting requests, or KV-cache use; in "   \
	  "the matrix: heat by bytes, time or bandwidth")                                          \
	X(TOGGLE_ABSTIME, "toggle-abstime", UI_WHILE_LOADING, "View",                              \
	  "Show absolute (wall-clock) times")                                                      \
	X(COMMAND, "command", UI_WHILE_LOADING, "View", "Enter a :-command")                       \
	X(HELP, "help", UI_WHILE_LOADING, "View", "Show this help")                                \
	X(REDRAW, "redraw", UI_WHILE_LOADING, "View", "Redraw the screen")                         \
	X(QUIT, "quit", UI_WHILE_LOADING, "View", "Quit")

#define ACTION_ENUM_(e, n, f, s, h) ACT_##e,
enum { ACT_NONE = -1, TL_ACTIONS(ACTION_ENUM_) ACT__COUNT };
#undef ACTION_ENUM_

typedef struct tl_action_info {
	const char *name;
	int flags; /* UI_WHILE_LOADING, ... */
	const char *section, *help;
} tl_action_info;

extern const tl_action_info action_table[ACT__COUNT];
/* ACT_NONE when unknown. */
int action_by_name(const char *name);

#endif
