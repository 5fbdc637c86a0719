/* What the loaders share to defend against files that change under them: the SIGBUS handler
 * and the recovery point of a thread reading a mapping (a loader's, or the result cache's
 * decode of a mapped part), and the check that a source read again after loading is still the
 * file that was loaded. Called by the loaders, calling none of them. */
#include "config.h"
#include "load/load_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Thread_local sigjmp_buf *load_bus_env;

/* A mapped file that shrinks under tl (another program truncates or rewrites it while it is
 * read) raises SIGBUS on the next page read. The handler runs on the faulting thread: where
 * the thread armed load_bus_env it returns there (the JSON loader stops that file and keeps
 * what it read; a cache decode refuses the file); elsewhere tl ends with the line the thread
 * named (load_bus_say) instead of "Bus error". */
static _Thread_local const char *bus_line; /* "tl: PATH: ...\n", sanitized; the caller's */
static _Thread_local size_t bus_len;
static int bus_tty; /* stderr is a terminal: clear the progress line first */

static void
on_sigbus(int sig)
{
	if (load_bus_env != NULL)
		siglongjmp(*load_bus_env, 1);
	if (bus_line != NULL) {
		if (bus_tty && write(STDERR_FILENO, "\r\033[K", 4) < 0)
			_exit(2);
		if (write(STDERR_FILENO, bus_line, bus_len) < 0)
			_exit(2);
		_exit(2);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void
load_bus_say(const char *line)
{
	bus_line = line;
	bus_len = line != NULL ? strlen(line) : 0;
}

/* The first arming installs on_sigbus, the last one out puts the old handler back: loads
 * overlap (tl diff loads its two profiles at once), and a decode may run beside them. */
void
load_bus_arm(int on)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static int armed;
	static struct sigaction old;
	pthread_mutex_lock(&lock);
	if (on && armed++ == 0) {
		struct sigaction bus;
		memset(&bus, 0, sizeof bus);
		bus.sa_handler = on_sigbus;
		sigemptyset(&bus.sa_mask);
		bus_tty = isatty(STDERR_FILENO);
		sigaction(SIGBUS, &bus, &old);
	} else if (!on && --armed == 0) {
		sigaction(SIGBUS, &old, NULL);
	}
	pthread_mutex_unlock(&lock);
}

/* Here rather than in load.c, which sets it, so that profdb.c reads it without a cycle back
 * through load.c. */
_Atomic int load_cancel_flag;

int
load_cancelled(void)
{
	return load_cancel_flag;
}

int
load_source_unchanged(const tl_source *src, load_arg_fn fn, void *ctx)
{
	struct stat sb;
	char err[400];
	if (stat(src->path, &sb) != 0) {
		snprintf(err, sizeof err,
		         "the file is gone (%s: deleted or moved since tl loaded "
		         "it): %s",
		         strerror(errno), src->path);
		fn(ctx, "arguments", err);
		return -1;
	}
	if (!source_is_file(src, &sb)) {
		snprintf(err, sizeof err,
		         "not shown: the file changed since tl loaded it (replaced, "
		         "or still being written): %s",
		         src->path);
		fn(ctx, "arguments", err);
		return -1;
	}
	return 0;
}

static _Atomic uint64_t source_opens;

void
load_count_open(void)
{
	source_opens++;
}

uint64_t
load_source_opens(void)
{
	return source_opens;
}

static _Atomic uint64_t page_rows;

void
load_count_page_rows(uint64_t n)
{
	page_rows += n;
}

uint64_t
load_page_rows(void)
{
	return page_rows;
}
