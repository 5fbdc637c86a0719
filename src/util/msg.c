#include "config.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned warn_count;
static int quiet;
static _Thread_local msg_capture_fn capture_fn;
static _Thread_local void *capture_ctx;
static _Thread_local _Atomic uint64_t *rows_sink;
static _Thread_local int hold;
static FILE *tee; /* msg_tee: under msg_lock */
static struct {
	int active, shown, total, done;
	int loads; /* loads between msg_progress_start and _end: tl diff runs two at once */
	uint64_t rows;
	struct timespec t0, last;
} prog;

/* The lines msg_warn printed (hashes of path and text), so that a reader that reports rows
 * another reader of the same table reported already (the load, then an on-demand reader of the
 * same file) does not say it twice. Full: every line is printed. */
#define SAID_CAP 4096
static uint64_t said[SAID_CAP];
static size_t nsaid;

static uint64_t
said_hash(const char *path, const char *text)
{
	uint64_t h = 0xcbf29ce484222325u;
	for (const char *s = path ? path : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	h = (h ^ 0xff) * 0x100000001b3u; /* a byte no path holds between the two */
	for (const char *s = text; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h ? h : 1; /* 0: an empty slot */
}

/* Whether the line was said before; notes it. Under msg_lock. */
static int
said_before_locked(const char *path, const char *text)
{
	if (nsaid >= SAID_CAP / 2)
		return 0;
	uint64_t h = said_hash(path, text);
	size_t i = (size_t)h & (SAID_CAP - 1);
	for (; said[i] != 0; i = (i + 1) & (SAID_CAP - 1))
		if (said[i] == h)
			return 1;
	said[i] = h;
	nsaid++;
	return 0;
}

static double
secs_since(const struct timespec *a)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

static void
progress_clear_locked(void)
{
	if (prog.shown) {
		fputs("\r\033[K", stderr);
		prog.shown = 0;
	}
}

/* "tl: PATH: TEXT" (path may be NULL) to stderr, and to the tee unless aside. Under msg_lock. */
static void
say_aside_locked(const char *path, const char *text, int aside)
{
	for (FILE *f = stderr; f != NULL; f = f == stderr && !aside ? tee : NULL) {
		if (path != NULL)
			fprintf(f, "tl: %s: %s\n", path, text);
		else
			fprintf(f, "tl: %s\n", text);
	}
}

static void
say_locked(const char *path, const char *text)
{
	say_aside_locked(path, text, 0);
}

void
msg_tee(FILE *f)
{
	pthread_mutex_lock(&msg_lock);
	tee = f;
	pthread_mutex_unlock(&msg_lock);
}

void
msg_set_quiet(int q)
{
	quiet = q;
}

unsigned
msg_warn_count(void)
{
	pthread_mutex_lock(&msg_lock);
	unsigned n = warn_count;
	pthread_mutex_unlock(&msg_lock);
	return n;
}

void
msg_hold(int on)
{
	hold = on;
}

void
msg_capture(msg_capture_fn fn, void *ctx)
{
	capture_fn = fn;
	capture_ctx = ctx;
}

void
msg_keep(void *list, const char *path, const char *text)
{
	msg_list *w = list;
	VEC_PUSH(w->v, w->n, w->cap, path ? xstrdup(path) : NULL);
	VEC_PUSH(w->v, w->n, w->cap, xstrdup(text));
}

void
msg_list_free(msg_list *w)
{
	for (size_t k = 0; k < w->n; k++)
		free(w->v[k]);
	free(w->v);
	memset(w, 0, sizeof *w);
}

void
msg_list_say(msg_list *w)
{
	for (size_t k = 0; k + 1 < w->n; k += 2)
		msg_warn(w->v[k], "%s", w->v[k + 1]);
	msg_list_free(w);
}

/* msg_defer: the lines said meanwhile, in order, under msg_lock */
typedef struct deferred {
	char *path, *text;
	int aside;
} deferred;
static int deferring;
static deferred *dv;
static size_t ndv, dcap;

/* Counts and prints one line (unless quiet or said before). Under msg_lock. */
static void
say_warn_locked(const char *path, const char *buf, int aside)
{
	char safe[2048];
	warn_count++;
	if (!quiet && !said_before_locked(path, buf)) {
		progress_clear_locked();
		if (path != NULL) {
			char p[1024];
			text_sanitize(path, p, sizeof p, 1);
			say_aside_locked(p, text_sanitize(buf, safe, sizeof safe, 1), aside);
		} else {
			say_aside_locked(NULL, text_sanitize(buf, safe, sizeof safe, 1), aside);
		}
	}
}

/* msg_warn; aside: neither captured nor teed (msg_warn_aside). */
static void
warn_v(const char *path, int aside, const char *fmt, va_list ap)
{
	char buf[1024];
	vsnprintf(buf, sizeof buf, fmt, ap);
	if (capture_fn != NULL && !aside)
		capture_fn(capture_ctx, path, buf);
	if (hold && !aside)
		return; /* counted and printed when the holder replays it */
	pthread_mutex_lock(&msg_lock);
	if (deferring) {
		deferred d = {path ? xstrdup(path) : NULL, xstrdup(buf), aside};
		VEC_PUSH(dv, ndv, dcap, d);
	} else {
		say_warn_locked(path, buf, aside);
	}
	pthread_mutex_unlock(&msg_lock);
}

void
msg_defer_begin(void)
{
	pthread_mutex_lock(&msg_lock);
	deferring = 1;
	pthread_mutex_unlock(&msg_lock);
}

void
msg_defer_end(msg_list *first)
{
	pthread_mutex_lock(&msg_lock);
	deferring = 0;
	deferred *v = dv;
	size_t n = ndv;
	dv = NULL;
	ndv = dcap = 0;
	pthread_mutex_unlock(&msg_lock);
	if (first != NULL)
		msg_list_say(first);
	pthread_mutex_lock(&msg_lock);
	for (size_t i = 0; i < n; i++) {
		say_warn_locked(v[i].path, v[i].text, v[i].aside);
		free(v[i].path);
		free(v[i].text);
	}
	pthread_mutex_unlock(&msg_lock);
	free(v);
}

void
msg_warn(const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warn_v(path, 0, fmt, ap);
	va_end(ap);
}

void
msg_warn_aside(const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	warn_v(path, 1, fmt, ap);
	va_end(ap);
}

void
msg_error(const char *fmt, ...)
{
	char buf[1024], safe[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&msg_lock);
	progress_clear_locked();
	/* paths and names in messages come from the user's files: never raw on a terminal */
	say_locked(NULL, text_sanitize(buf, safe, sizeof safe, 1));
	pthread_mutex_unlock(&msg_lock);
}

void
msg_progress_start(int total)
{
	pthread_mutex_lock(&msg_lock);
	if (prog.loads++ > 0) { /* another load runs (tl diff's two sides): one line for both */
		prog.total += total;
		pthread_mutex_unlock(&msg_lock);
		return;
	}
	memset(&prog, 0, sizeof prog);
	prog.loads = 1;
	prog.active = isatty(STDERR_FILENO);
	prog.total = total;
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
	prog.last = prog.t0;
	pthread_mutex_unlock(&msg_lock);
}

void
msg_progress_rows_to(_Atomic uint64_t *counter)
{
	rows_sink = counter;
}

void
msg_progress_add(int done, uint64_t rows)
{
	if (rows_sink != NULL)
		*rows_sink += rows;
	pthread_mutex_lock(&msg_lock);
	prog.done += done;
	prog.rows += rows;
	if (prog.active && secs_since(&prog.t0) > 0.5 && secs_since(&prog.last) > 0.1) {
		clock_gettime(CLOCK_MONOTONIC, &prog.last);
		fprintf(stderr, "\r\033[Kloading: %d/%d ranks, %.1fM rows, %.1fs", prog.done,
		        prog.total, (double)prog.rows / 1e6, secs_since(&prog.t0));
		prog.shown = 1;
	}
	pthread_mutex_unlock(&msg_lock);
}

void
msg_progress_end(void)
{
	pthread_mutex_lock(&msg_lock);
	if (prog.loads > 0 && --prog.loads > 0) {
		pthread_mutex_unlock(&msg_lock);
		return;
	}
	progress_clear_locked();
	prog.active = 0;
	pthread_mutex_unlock(&msg_lock);
}
