/* Messages for the user on stderr. Thread-safe: loader threads report bad input through here. */
#ifndef TL_MSG_H
#define TL_MSG_H
#include <stdint.h>

/* "tl: PATH: problem" -- one line per bad input. path may be NULL. */
void msg_warn(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress line (only on a terminal, after the first half second). */
void msg_progress_start(int total);
void msg_progress_add(int done, uint64_t rows);
void msg_progress_end(void);
/* Count of msg_warn calls so far. */
unsigned msg_warn_count(void);
/* Silence warnings (tests that expect them print their own). */
void msg_set_quiet(int quiet);

#endif
