/* The terminal user interface. ui.c owns the terminal and the main loop; views draw into a
 * tl_screen and handle actions through their view_ops (tig's view_ops, tmux's window modes):
 * timeline.c (the lanes), detail.c (the selected slice, range statistics), help.c. */
#ifndef TL_UI_H
#define TL_UI_H
#include <stdint.h>
#include <stdio.h>

#include "model/trace.h"
#include "query/query.h"
#include "ui/actions.h"
#include "ui/keymap.h"
#include "ui/screen.h"
#include "ui/theme.h"

typedef struct tl_ui_opts {
	const char *theme, *keymap; /* NULL: the defaults (and the user's default files) */
	const char *script;         /* script mode: keys and :-commands, one per line */
	int cols, rows;             /* --size: no terminal is needed; 0 = the terminal's size */
	const char *stats_file;     /* per-frame CPU time and bytes written (benchmarks) */
	int64_t start_mono_ns;      /* CLOCK_MONOTONIC at program start, for time to first frame */
} tl_ui_opts;

/* Runs the viewer on a loaded trace. Returns the exit status. */
int ui_main(tl_trace *, const tl_ui_opts *);
/* `tl keys`: the actions with the keys of a keymap, as text or as the roff of tl(1). */
int ui_keys(FILE *, const char *keymap, int roff);

/* ---- shared between the views ------------------------------------------------------------ */

typedef enum ui_lane_type {
	UL_HEADER, /* a rank's title row: the rank at a glance */
	UL_TRACK,  /* one track */
	UL_MERGED, /* several tracks of one kind drawn as one lane (all streams of compute) */
} ui_lane_type;

typedef struct ui_lane {
	ui_lane_type type;
	size_t rank; /* index into tr->ranks */
	tl_lane_kind kind;
	size_t first, count; /* tracks [first, first + count) of the rank */
	char label[64];      /* sanitized */
	uint8_t slot;        /* colour slot of its slices */
	uint8_t indent;
} ui_lane;

typedef struct ui_rank_state {
	unsigned char collapsed, streams;
} ui_rank_state;

typedef struct tl_ui tl_ui;

typedef struct view_ops {
	const char *name;
	/* Draws into the rectangle; the timeline owns the lanes and the ruler. */
	void (*draw)(tl_ui *, int x, int y, int w, int h);
	/* Handles an action; returns 1 when handled. */
	int (*action)(tl_ui *, int action);
	void (*resize)(tl_ui *);
	void (*done)(tl_ui *);
} view_ops;

extern const view_ops timeline_view, detail_view, help_view;
/* full-screen panels over the timeline: imbalance.c, pipeline.c; state in rl.c */
extern const view_ops imbalance_view, pipeline_view;

struct tl_ui {
	tl_trace *tr;
	tl_screen scr;
	tl_theme theme;
	tl_keymap keys;
	int utf8;

	/* the view: ncols columns of colw ns from t0, on a fixed grid so that a one-column pan
	 * moves every column by exactly one */
	int64_t t0, colw, cursor;
	int ncols, lanes_x, lanes_y, lanes_h;
	int64_t origin; /* start of the profile: times are shown relative to it */
	int64_t t_min, t_max;
	int abstime;

	/* lanes */
	ui_lane *lanes;
	size_t nlanes, lcap;
	size_t lane, top;
	ui_rank_state *rs;
	int show_overlap, show_host;

	/* selection: slice sel_idx of track sel_track of rank sel_rank */
	int have_sel;
	size_t sel_rank, sel_track, sel_idx;

	/* a marked range */
	int nmark;
	int64_t mark[2];

	/* search */
	int have_search;
	tl_search search;
	int have_match;
	tl_match_pos match;

	/* bubbles: found and attributed by the query layer (tlq_rl_bubble_*), as `tl summary`
	 * does */
	int bubbles;
	size_t bpos; /* position in the largest-bubbles list of the last jump + 1; 0 before */
	/* the attributed bubble of the selected Free slice, for the detail pane */
	int bub_valid;
	tl_rl_bubble bub;

	/* panes */
	int detail, detail_scroll;
	int help, help_scroll, help_lines;
	char **args; /* "key\tvalue" of the selected slice, read lazily */
	size_t nargs;
	int args_for_valid;
	size_t args_rank, args_track, args_idx;
	/* range statistics, computed once per marked range */
	tl_overlap *rstat;
	int64_t *rkind; /* nranks x TL_LANE__COUNT busy ns */
	int64_t rstat_a, rstat_b;
	int rstat_valid;

	/* :-prompt and messages */
	int prompt;
	char prompt_ch;
	char pbuf[512];
	size_t plen;
	char **hist;
	size_t nhist, hcap, hpos;
	char msg[512];
	int msg_err;
	int quit;

	/* mouse drag */
	int drag, drag_x, drag_moved;

	/* per-frame scratch, ncols + 1 wide */
	int64_t *edges;
	int64_t *rk_comp, *rk_comm, *rk_exp, *rk_free; /* overlap lanes of rk_rank per column */
	size_t rk_rank;
	int rk_valid;
	tl_cell *cells, *cells2;
	uint32_t *domtrack; /* merged lanes: track of the dominant slice per column */
	int scratch_cols;

	/* RL panels (rl.c): the open panel, if any, and the panels' state */
	const view_ops *panel;
	struct ui_rl *rl;
};

/* ui.c */
void ui_message(tl_ui *, int error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Runs a :-command line (without the ':'); returns 0 on success. */
int ui_command(tl_ui *, const char *line);
/* Starts the prompt with ch (':' or '/') and initial text. */
void ui_prompt_start(tl_ui *, char ch, const char *text);
/* "12.500 ms" relative to the origin, or wall-clock with abstime. */
char *ui_time(const tl_ui *, int64_t t, char *buf, size_t len);
/* Sanitized copy of an untrusted name for the screen. */
char *ui_clean(const tl_ui *, const char *s, char *buf, size_t len);

/* timeline.c */
void timeline_init(tl_ui *);
void timeline_layout(tl_ui *, int w, int h); /* sets ncols and the lane area */
void timeline_rebuild_lanes(tl_ui *);
void timeline_fit(tl_ui *);
/* Centres the view on t (zooming out to show [t0,t1) with margins when wider than the view). */
void timeline_show_range(tl_ui *, int64_t t0, int64_t t1);
void timeline_goto(tl_ui *, int64_t t);
/* Puts the header lane of trace rank ri (an index into the trace's ranks) first on screen and
 * under the cursor. Returns 0, or -1 when no lane shows that rank. */
int timeline_goto_rank(tl_ui *, size_t ri);
/* Selects slice idx of track ti of rank ri, makes its lane current and visible. */
void timeline_select(tl_ui *, size_t ri, size_t ti, size_t idx, int zoom);
int timeline_search(tl_ui *, const char *pattern);
void timeline_status(tl_ui *, int y);
int64_t timeline_col_time(const tl_ui *, int col);
/* The lane of a screen row, or SIZE_MAX. */
size_t timeline_lane_at_row(const tl_ui *, int row);
void timeline_free(tl_ui *);

/* detail.c */
void detail_invalidate(tl_ui *);
int detail_height(const tl_ui *, int h);

#endif
