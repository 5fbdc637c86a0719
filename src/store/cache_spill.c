/* Spilling the viewer's ranks with --no-cache (cache.h says what and why): where the files go,
 * and writing a rank to one and mapping it back. The files have no name: O_TMPFILE where the
 * file system has it, else a name made and unlinked before anything is written. */
#include "config.h"
#include "store/cache_int.h"
#include "load/load.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif

#define TMPFS_MAGIC_ 0x01021994u /* linux/magic.h: TMPFS_MAGIC */
#define RAMFS_MAGIC_ 0x858458f6u /* linux/magic.h: RAMFS_MAGIC */

/* A new file in dir that no name reaches (read and write, close-on-exec), or -1 (errno). */
static int
spill_create(const char *dir)
{
#ifdef O_TMPFILE
	/* O_EXCL: the file can never be linked into the directory afterwards */
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	char *tmp = xasprintf("%s/" TMP_PREFIX "spill-XXXXXX" FILE_EXT, dir);
	int fd2 = mkstemps(tmp, (int)strlen(FILE_EXT)); /* 0600 */
	if (fd2 >= 0) {
		int e = 0;
		if (unlink(tmp) != 0 || fcntl(fd2, F_SETFD, FD_CLOEXEC) != 0) {
			e = errno;
			close(fd2);
			unlink(tmp);
			fd2 = -1;
		}
		errno = e ? e : errno;
	}
	free(tmp);
	return fd2;
}

/* 1 when dir can take spill files: on a disk (a tmpfs or ramfs keeps its pages in memory:
 * spilling there relieves nothing) and writable. Else 0 with why. */
static int
spill_dir_ok(const char *dir, char *why, size_t whylen)
{
#if defined(__linux__)
	struct statfs fs;
	const char *any = getenv("TL_TEST_SPILL_ANY_FS"); /* tests on a tmpfs build tree */
	if (statfs(dir, &fs) == 0 && !(any != NULL && strcmp(any, "1") == 0) &&
	    ((unsigned)fs.f_type == TMPFS_MAGIC_ || (unsigned)fs.f_type == RAMFS_MAGIC_)) {
		snprintf(why, whylen, "a tmpfs: its files are memory");
		return 0;
	}
#endif
	int fd = spill_create(dir);
	if (fd < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

int
cache_open_spill(tl_cache *c, const char *dir)
{
	const char *env = getenv("TL_SPILL");
	if (env != NULL && strcmp(env, "0") == 0)
		return 0;
	cache_open(c, dir);
	c->spill = 1;
	char why[160] = "neither XDG_CACHE_HOME nor HOME is set";
	if (c->dir != NULL && c->read_only)
		snprintf(why, sizeof why, "%s", c->ro_why);
	else if (c->dir != NULL && spill_dir_ok(c->dir, why, sizeof why))
		return 1;
	const char *tmpdir = getenv("TMPDIR");
	int own = tmpdir != NULL && *tmpdir == '/'; /* the user's choice: the only other one */
	const char *alt[2] = {own ? tmpdir : "/var/tmp", own ? NULL : "/tmp"};
	char ignored[160];
	for (size_t i = 0; i < 2; i++)
		if (alt[i] != NULL && spill_dir_ok(alt[i], ignored, sizeof ignored)) {
			free(c->dir);
			c->dir = xstrdup(alt[i]);
			c->read_only = 0;
			return 1;
		}
	/* nowhere: the ranks stay in memory, and the first one says why */
	c->read_only = 1;
	snprintf(c->ro_why, sizeof c->ro_why, "%s; nor in %s", why,
	         own ? tmpdir : "/var/tmp or /tmp");
	return 1;
}

/* The one line a viewer gives about spilling, after which it spills no more. */
static void
spill_warn(tl_cache *c, const char *why)
{
	pthread_mutex_lock(&c->lock);
	if (!c->warned)
		msg_warn(c->dir, "cannot spill ranks to a file here (%s); they stay in memory",
		         why != NULL ? why : c->ro_why);
	c->warned = 1;
	c->read_only = 1;
	pthread_mutex_unlock(&c->lock);
}

tl_rank *
cache_spill_rank(tl_cache *c, const tl_source *src, size_t n, const tl_rank *r)
{
	if (c == NULL || !c->spill || n == 0 || !r->loaded || r->host_read)
		return NULL;
	if (c->dir == NULL || c->read_only) {
		spill_warn(c, NULL);
		return NULL;
	}
	int fd = spill_create(c->dir);
	int rfd = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1; /* the writer closes fd */
	char why[160] = "";
	tl_rank *m = NULL;
	if (rfd < 0) {
		snprintf(why, sizeof why, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
	} else {
		size_t klen;
		uint8_t *key = cache_key(src, n, &klen);
		uint64_t size = 0;
		/* no fsync: the file dies with the process, and its pages are the page cache's
		 * either way */
		if (cache_write_fd_sync(fd, key, klen, r, NULL, 0, &size, 0) != 0) {
			snprintf(why, sizeof why, "%s", strerror(errno));
		} else {
			void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, rfd, 0);
			if (map == MAP_FAILED) {
				snprintf(why, sizeof why, "%s", strerror(errno));
			} else {
				/* trusted: tl wrote it a moment ago, and no name reaches it */
				m = cache_decode_guarded(map, (size_t)size, src, n, 0, 1,
				                         TL_TABLE_ALL, why, sizeof why);
				if (m == NULL) {
					munmap(map, (size_t)size);
				} else {
					cache_set_backing(m, map, (size_t)size);
					m->spilled = 1;
				}
			}
		}
		free(key);
		close(rfd);
	}
	if (m == NULL)
		spill_warn(c, why);
	return m;
}
