/* Every action of the viewer, in one table: it drives key dispatch, the `?` help screen, the
 * keymap parser (action names), `:`-commands of the same name and the key list in tl(1)
 * (`tl keys --man`). X(enum, name, section, help). */
#ifndef TL_ACTIONS_H
#define TL_ACTIONS_H

#define TL_ACTIONS(X)                                                                              \
	X(CURSOR_LEFT, "cursor-left", "Moving",                                                    \
	  "Move the cursor one column left (pans at the edge)")                                    \
	X(CURSOR_RIGHT, "cursor-right", "Moving",                                                  \
	  "Move the cursor one column right (pans at the edge)")                                   \
	X(PAN_LEFT, "pan-left", "Moving", "Pan the view left by one column")                       \
	X(PAN_RIGHT, "pan-right", "Moving", "Pan the view right by one column")                    \
	X(SCROLL_LEFT, "scroll-left", "Moving", "Pan the view left by an eighth of its width")     \
	X(SCROLL_RIGHT, "scroll-right", "Moving", "Pan the view right by an eighth of its width")  \
	X(PAGE_LEFT, "page-left", "Moving", "Pan the view left by its whole width")                \
	X(PAGE_RIGHT, "page-right", "Moving", "Pan the view right by its whole width")             \
	X(ZOOM_IN, "zoom-in", "Moving", "Zoom in around the cursor")                               \
	X(ZOOM_OUT, "zoom-out", "Moving", "Zoom out around the cursor")                            \
	X(FIT_ALL, "fit-all", "Moving", "Show the whole profile")                                  \
	X(ZOOM_SELECTION, "zoom-selection", "Moving", "Zoom to the selected slice")                \
	X(GO_START, "go-start", "Moving", "Move the cursor to the start of the profile")           \
	X(GO_END, "go-end", "Moving", "Move the cursor to the end of the profile")                 \
	X(GOTO, "goto", "Moving", "Go to a time: prompts for :goto TIME (12.5ms, +2ms, -500us)")   \
	X(LANE_UP, "lane-up", "Lanes", "Move to the lane above")                                   \
	X(LANE_DOWN, "lane-down", "Lanes", "Move to the lane below")                               \
	X(PAGE_UP, "page-up", "Lanes", "Move one screen of lanes up")                              \
	X(PAGE_DOWN, "page-down", "Lanes", "Move one screen of lanes down")                        \
	X(RANK_PREV, "rank-prev", "Lanes", "Move to the previous rank")                            \
	X(RANK_NEXT, "rank-next", "Lanes", "Move to the next rank")                                \
	X(FIRST_LANE, "first-lane", "Lanes", "Move to the first lane")                             \
	X(LAST_LANE, "last-lane", "Lanes", "Move to the last lane")                                \
	X(TOGGLE_RANK, "toggle-rank", "Lanes", "Collapse or expand the lanes of the current rank") \
	X(TOGGLE_ALL, "toggle-all", "Lanes", "Collapse or expand every rank")                      \
	X(TOGGLE_STREAMS, "toggle-streams", "Lanes",                                               \
	  "Show compute and memcpy per stream and the HCCL task lanes of the current rank")        \
	X(TOGGLE_OVERLAP, "toggle-overlap", "Lanes", "Show or hide the overlap lanes")             \
	X(TOGGLE_HOST, "toggle-host", "Lanes", "Show or hide host API lanes")                      \
	X(COUNTERS, "counters", "Lanes",                                                           \
	  "Show or hide the counter lanes: memory (allocator, NPU, modules) and AI Core "          \
	  "frequency")                                                                             \
	X(COUNTER_PEAK, "counter-peak", "Lanes",                                                   \
	  "Go to the peak of the counter lane under the cursor (then live: what was live)")        \
	X(LABEL_WIDTH, "label-width", "Lanes",                                                     \
	  "Widen the lane names' column (again: wider, then narrowest, then fitted); :labels N")   \
	X(PIN_RANK, "pin-rank", "Lanes",                                                           \
	  "Pin the current rank to the top (again: unpin); :lanes REGEX filters lanes")            \
	X(SLICE_NEXT, "slice-next", "Slices", "Select the next slice on the current lane")         \
	X(SLICE_PREV, "slice-prev", "Slices", "Select the previous slice on the current lane")     \
	X(SELECT, "select", "Slices", "Select the slice under the cursor and show its details")    \
	X(LINK_LAUNCHER, "link-launcher", "Slices",                                                \
	  "From a device task to the CANN call that launched it, again: its PyTorch operator")     \
	X(LINK_KERNELS, "link-kernels", "Slices",                                                  \
	  "From a PyTorch operator or CANN call to the first device task it launched, again: "     \
	  "the next")                                                                              \
	X(LINK_PARTNER, "link-partner", "Slices",                                                  \
	  "From a forward operator to its backward operator (autograd's pair), and back")          \
	X(TOGGLE_DETAIL, "toggle-detail", "Slices", "Show or hide the detail pane")                \
	X(DETAIL_UP, "detail-up", "Slices", "Scroll the detail pane up")                           \
	X(DETAIL_DOWN, "detail-down", "Slices", "Scroll the detail pane down")                     \
	X(MARK, "mark", "Ranges",                                                                  \
	  "Mark a range end at the cursor (twice: a range with statistics)")                       \
	X(MARK_STEP, "mark-step", "Ranges",                                                        \
	  "Mark the step under the cursor as the range: its statistics in one key")                \
	X(ZOOM_MARK, "zoom-mark", "Ranges", "Zoom to the marked range")                            \
	X(BOOKMARKS, "bookmarks", "Ranges",                                                        \
	  "List the bookmarks (:mark NAME sets one at the cursor); Enter goes back, x deletes")    \
	X(CLEAR, "clear", "Ranges",                                                                \
	  "Clear the mark, then a finding's or the critical path's marks, then the selection, "    \
	  "then the search")                                                                       \
	X(SEARCH, "search", "Search", "Search slice names with a regular expression (pcre2)")      \
	X(SEARCH_NEXT, "search-next", "Search",                                                    \
	  "Go to the next match in time order; while a critical path is marked (E), its next "     \
	  "segment, until the next search")                                                        \
	X(SEARCH_PREV, "search-prev", "Search",                                                    \
	  "Go to the previous match in time order; while a critical path is marked, its previous " \
	  "segment")                                                                               \
	X(SEARCH_LIST, "search-list", "Search",                                                    \
	  "List the matches: per rank count, total and mean duration, then each; Enter goes "      \
	  "there")                                                                                 \
	X(TOGGLE_BUBBLES, "toggle-bubbles", "Bubbles",                                             \
	  "Highlight idle bubbles (Free) on every lane")                                           \
	X(BUBBLE_NEXT, "bubble-next", "Bubbles", "Go to the next bubble of the current rank")      \
	X(BUBBLE_PREV, "bubble-prev", "Bubbles", "Go to the previous bubble of the current rank")  \
	X(BUBBLE_LARGEST, "bubble-largest", "Bubbles",                                             \
	  "Go to the next largest bubble (all ranks)")                                             \
	X(BUBBLE_LARGEST_PREV, "bubble-largest-prev", "Bubbles",                                   \
	  "Go back to the previous larger bubble")                                                 \
	X(DP_PANEL, "dp-panel", "Panels",                                                          \
	  "Show the DP load-imbalance panel: per rank, one RL stage and step")                     \
	X(PP_VIEW, "pp-view", "Panels",                                                            \
	  "Show the pipeline-parallel flow view: F/B blocks per PP stage")                         \
	X(OVERVIEW, "overview", "Panels",                                                          \
	  "Show the overview: the tables of tl summary, sortable; Enter goes to the row")          \
	X(COMM_PANEL, "comm", "Panels", "Show the communication panel: time per op and rank")      \
	X(SLOW_PANEL, "slow", "Panels",                                                            \
	  "Show the slow-rank votes: Enter jumps to a rank's worst collective")                    \
	X(FINDINGS_PANEL, "findings", "Panels",                                                    \
	  "Show the findings of tl triage, largest recoverable time first; Enter shows the place") \
	X(CRITICAL, "critical", "Panels",                                                          \
	  "Mark the critical path of the step at the cursor on the lanes (n/N walk its segments "  \
	  "across ranks); again: the step's blame by rank, kind and operator")                     \
	X(MATRIX_PANEL, "matrix", "Panels",                                                        \
	  "Show the rank x rank communication matrix per group and step as a heat map; Enter "     \
	  "lists a cell's ops")                                                                    \
	X(OPS_PANEL, "ops", "Panels",                                                              \
	  "Show the operator statistics per rank (the slowest first) by op type: of the marked "   \
	  "range when there is one; in the DP panel, of its stage and step")                       \
	X(MODULES_PANEL, "modules", "Panels",                                                      \
	  "Show the module tree (Module-domain mstx ranges): device time per module, forward and " \
	  "backward")                                                                              \
	X(LIVE_PANEL, "live", "Panels",                                                            \
	  "Show the largest allocations live at the cursor (OP_MEMORY), with their op and Python " \
	  "frame")                                                                                 \
	X(DIFF_PANEL, "diff", "Panels",                                                            \
	  "With --compare: tl diff's ranked changes; Right: a row's ranks, Enter: both runs")      \
	X(STAGE_NEXT, "stage-next", "Panels",                                                      \
	  "In the DP panel: the next RL stage; in the overview: the next table (also Right); in "  \
	  "the matrix: the next group")                                                            \
	X(STAGE_PREV, "stage-prev", "Panels",                                                      \
	  "In the DP panel: the previous RL stage; in the overview: the previous table (also "     \
	  "Left); in the matrix: the previous group")                                              \
	X(STEP_NEXT, "step-next", "Panels",                                                        \
	  "The next step: the timeline zooms to it, a panel shows it (also ] there)")              \
	X(STEP_PREV, "step-prev", "Panels",                                                        \
	  "The previous step: the timeline zooms to it, a panel shows it (also [ there)")          \
	X(SORT_NEXT, "sort-next", "Panels",                                                        \
	  "In a panel: the next sort order (DP panel: rank, duration, wait, decode steps, idle)")  \
	X(CHART_NEXT, "chart-next", "Panels",                                                      \
	  "In the DP panel: chart out_tokens, running or waiting requests, or KV-cache use; in "   \
	  "the matrix: heat by bytes, time or bandwidth")                                          \
	X(TOGGLE_ABSTIME, "toggle-abstime", "View", "Show absolute (wall-clock) times")            \
	X(COMMAND, "command", "View", "Enter a :-command")                                         \
	X(HELP, "help", "View", "Show this help")                                                  \
	X(REDRAW, "redraw", "View", "Redraw the screen")                                           \
	X(QUIT, "quit", "View", "Quit")

#define ACTION_ENUM_(e, n, s, h) ACT_##e,
enum { ACT_NONE = -1, TL_ACTIONS(ACTION_ENUM_) ACT__COUNT };
#undef ACTION_ENUM_

typedef struct tl_action_info {
	const char *name, *section, *help;
} tl_action_info;

extern const tl_action_info action_table[ACT__COUNT];
/* ACT_NONE when unknown. */
int action_by_name(const char *name);

#endif
