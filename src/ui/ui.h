/* The terminal user interface, as main.c sees it: run the viewer, list its keys and commands.
 * The views and what they share are in ui/view.h. */
#ifndef TL_UI_H
#define TL_UI_H
#include <stdint.h>
#include <stdio.h>

#include "query/query.h"

/* A statement's rows as text, as the :query panel shows them (NULL cells: SQL NULL). */
typedef struct tl_ui_rows {
	int ncols;
	char **names;
	size_t nrows;
	char **cells; /* row r's column c at r * ncols + c */
	int truncated;
} tl_ui_rows;
/* Runs one SQL statement of `tl query` over the session, keeping up to max_rows rows. Returns
 * 0, or 1 with the reason in err. main hands it down: the viewer does not reach src/sql/. */
typedef int (*tl_ui_sql_fn)(const tl_query *, const char *sql, size_t max_rows, tl_ui_rows *out,
                            char *err, size_t errlen);

typedef struct tl_ui_opts {
	const char *theme, *keymap; /* NULL: the defaults (and the user's default files) */
	const char *script;         /* script mode: keys and :-commands, one per line */
	int cols, rows;             /* --size: no terminal is needed; 0 = the terminal's size */
	const char *stats_file;     /* per-frame CPU time and bytes written (benchmarks) */
	int64_t start_mono_ns;      /* CLOCK_MONOTONIC at program start, for time to first frame */
	const tl_query *compare;    /* --compare B: B's session (opened with .lanes), or NULL */
	const char *compare_path;   /* B as the user named it */
	const char *path;           /* A as the user named it */
	tl_ui_sql_fn sql;           /* :query; NULL: the command says it is not available */
	size_t finding; /* --finding N: opens on tl triage's finding N (1-based, in range); 0: no */
} tl_ui_opts;

/* Runs the viewer on a query session (opened with .lanes). Returns the exit status. */
int ui_main(const tl_query *, const tl_ui_opts *);
/* `tl keys`: the actions with the keys of a keymap, then the :-commands, as text, as the roff
 * of tl(1) (format 1) or as Markdown for docs/viewer.md (format 2). */
int ui_keys(FILE *, const char *keymap, int format);

#endif
