/* Messages for the user on stderr. Thread-safe: loader threads report bad input through here. */
#ifndef TL_MSG_H
#define TL_MSG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "tl: PATH: problem" -- one line per bad input. path may be NULL. A line said before (the same
 * path and text) is not printed again. */
/* While on (per thread), this thread's warnings go to its capture function (msg_capture) only,
 * neither counted nor printed: the viewer's loader threads keep theirs and replay them. */
void msg_hold(int on);
void msg_warn(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning about tl's own state, not about the profile: printed like msg_warn, but never
 * captured (no cache file keeps it) nor teed (no stored result replays it). */
void msg_warn_aside(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Progress line (only on a terminal, after the first half second). */
void msg_progress_start(int total);
void msg_progress_add(int done, uint64_t rows);
void msg_progress_end(void);
/* The rows this thread reports through msg_progress_add from now on are also added to
 * *counter (NULL: no longer): the viewer shows each rank's rows while it loads. */
void msg_progress_rows_to(_Atomic uint64_t *counter);
/* Count of msg_warn calls so far. */
unsigned msg_warn_count(void);
/* Calls fn(ctx, path, text) for each msg_warn of the calling thread from now on (as well as
 * printing it), until called with NULL: the model cache keeps a rank's load warnings and says
 * them again when it opens the rank from the cache. */
typedef void (*msg_capture_fn)(void *ctx, const char *path, const char *text);
void msg_capture(msg_capture_fn fn, void *ctx);
/* Warnings kept to be said later: path/text pairs (path may be NULL). */
typedef struct msg_list {
	char **v;
	size_t n, cap;
} msg_list;
/* A capture function: msg_capture(msg_keep, &list) adds each warning to the msg_list. */
void msg_keep(void *list, const char *path, const char *text);
/* Says each kept warning (msg_warn) and empties the list. */
void msg_list_say(msg_list *);
/* Empties it without saying them. */
void msg_list_free(msg_list *);
/* From msg_defer_begin to msg_defer_end, what any thread says through msg_warn (or
 * msg_warn_aside) is kept, in order, but for a thread that holds its own (msg_hold, its
 * capture called as before): msg_defer_end says first's lines (NULL: none), then the kept ones.
 * Work moved to a thread of its own (tl summary's critical path) keeps its lines where they
 * were said before it ran beside the rest: first. */
void msg_defer_begin(void);
void msg_defer_end(msg_list *first);
/* Every line msg_warn and msg_error print from now on is also written to f (NULL: no longer):
 * a stored result (tl summary) keeps what the run said on stderr with what it printed. */
void msg_tee(FILE *f);
/* Silence warnings (tests that expect them print their own). */
void msg_set_quiet(int quiet);

#endif
