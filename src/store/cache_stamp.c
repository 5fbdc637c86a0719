/* "Verified once" stamps of the model cache (cache_int.h says what they are for).
 *
 * A stamp is a small file in a directory only the user can write ($XDG_CACHE_HOME/tl/verified,
 * else ~/.cache/tl/verified; none without either), named by a hash of the cache file's real
 * path. It holds what the kernel says of the cache file (device, inode, size, mtime, ctime),
 * the checksum its header carries, the cache format version and the path. A stamp that
 * matches a cache file's fstat exactly says: tl checked these very bytes (or wrote them) and
 * nothing has written the file since, because any write, truncate, chmod or rename of the
 * file sets its ctime, and ctime cannot be set from user space.
 *
 * The stamps are not in the cache directory: that may be shared storage that others write, and
 * a stamp there would be a way to have tl skip its checks. A stamp directory that is not the
 * user's own, or that others may write, is not trusted; one that cannot be made or written
 * means no stamps, and every open checks the whole file as before (silently: the cache's own
 * warnings say what matters). */
#include "config.h"
#include "store/cache_int.h"
#include "util/files.h"
#include "util/hash.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STAMP_MAGIC "TLSTAMP" /* 8 bytes with its NUL */
#define STAMP_FORMAT 1u       /* of the stamp file itself */
#define STAMP_EXT ".stamp"
#define STAMP_TMP "tmp-"
#define STAMP_PATH_MAX 4096
/* A file whose ctime is this close to now may still be written within the same tick of the
 * kernel's file clock (a jiffy; a second on filesystems with coarse timestamps) without its
 * ctime changing: it is checked whole but not stamped until it is older. */
#define RACY_NS INT64_C(2000000000)

typedef struct stamp_rec {
	char magic[8];
	uint32_t format, version; /* STAMP_FORMAT, TL_CACHE_VERSION */
	uint64_t dev, ino, size;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	uint64_t sum;     /* the cache file's header checksum */
	uint64_t pathlen; /* the real path follows */
} stamp_rec;

/* The stamp directory, made if missing (malloc'd), or NULL: no HOME and no XDG_CACHE_HOME, it
 * cannot be made, or it is not one only this user can write (a directory others may write could
 * hold stamps they made). */
static char *
stamp_dir(int create)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *d;
	if (xdg != NULL && *xdg == '/')
		d = xasprintf("%s/tl/verified", xdg);
	else if (home != NULL && *home != '\0')
		d = xasprintf("%s/.cache/tl/verified", home);
	else
		return NULL;
	struct stat st;
	if ((create && util_mkdir_p(d, 0700) != 0) || lstat(d, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		free(d);
		return NULL;
	}
	return d;
}

static char *
stamp_name(const char *dir, const char *real)
{
	return xasprintf("%s/%016llx%s", dir,
	                 (unsigned long long)util_hash_bytes(real, strlen(real)), STAMP_EXT);
}

static stamp_rec
make_rec(const char *real, const struct stat *st, uint64_t sum)
{
	stamp_rec x;
	memset(&x, 0, sizeof x);
	memcpy(x.magic, STAMP_MAGIC, 8);
	x.format = STAMP_FORMAT;
	x.version = TL_CACHE_VERSION;
	x.dev = (uint64_t)st->st_dev;
	x.ino = (uint64_t)st->st_ino;
	x.size = (uint64_t)st->st_size;
	x.mtime_s = (int64_t)st->st_mtim.tv_sec;
	x.mtime_ns = (int64_t)st->st_mtim.tv_nsec;
	x.ctime_s = (int64_t)st->st_ctim.tv_sec;
	x.ctime_ns = (int64_t)st->st_ctim.tv_nsec;
	x.sum = sum;
	x.pathlen = strlen(real);
	return x;
}

/* Reads the stamp file at name into *x and its path into path[STAMP_PATH_MAX]; -1 when it is
 * not a stamp this user wrote. */
static int
read_stamp(const char *name, stamp_rec *x, char *path)
{
	int fd = open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 &&
	         read(fd, x, sizeof *x) == (ssize_t)sizeof *x &&
	         memcmp(x->magic, STAMP_MAGIC, 8) == 0 && x->format == STAMP_FORMAT &&
	         x->pathlen < STAMP_PATH_MAX &&
	         read(fd, path, (size_t)x->pathlen) == (ssize_t)x->pathlen;
	close(fd);
	if (ok)
		path[x->pathlen] = '\0';
	return ok ? 0 : -1;
}

int
cache_stamp_ok(const char *real, const struct stat *st, uint64_t sum)
{
	if (real == NULL || strlen(real) >= STAMP_PATH_MAX)
		return 0;
	char *dir = stamp_dir(0);
	if (dir == NULL)
		return 0;
	char *name = stamp_name(dir, real);
	stamp_rec x, want = make_rec(real, st, sum);
	char *path = xmalloc(STAMP_PATH_MAX);
	int ok = read_stamp(name, &x, path) == 0 && memcmp(&x, &want, sizeof x) == 0 &&
	         strcmp(path, real) == 0;
	free(path);
	free(name);
	free(dir);
	return ok;
}

int
cache_stamp_racy(const struct stat *st)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t c = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	int64_t n = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	return n - c < RACY_NS;
}

void
cache_stamp_put(const char *real, const struct stat *st, uint64_t sum)
{
	if (real == NULL || strlen(real) >= STAMP_PATH_MAX)
		return;
	char *dir = stamp_dir(1);
	if (dir == NULL)
		return;
	char *tmp = xasprintf("%s/" STAMP_TMP "XXXXXX", dir);
	int fd = mkstemp(tmp); /* 0600 */
	if (fd >= 0) {
		stamp_rec x = make_rec(real, st, sum);
		int ok = write(fd, &x, sizeof x) == (ssize_t)sizeof x &&
		         write(fd, real, (size_t)x.pathlen) == (ssize_t)x.pathlen;
		ok = close(fd) == 0 && ok;
		char *name = stamp_name(dir, real);
		if (!ok || rename(tmp, name) != 0)
			unlink(tmp);
		free(name);
	}
	free(tmp);
	free(dir);
}

void
cache_stamp_drop(const char *real)
{
	if (real == NULL)
		return;
	char *dir = stamp_dir(0);
	if (dir == NULL)
		return;
	char *name = stamp_name(dir, real);
	unlink(name);
	free(name);
	free(dir);
}

/* 1 when path names a cache file in the directory real_dir. */
static int
in_dir(const char *path, const char *real_dir)
{
	size_t n = strlen(real_dir);
	return strncmp(path, real_dir, n) == 0 && path[n] == '/' &&
	       strchr(path + n + 1, '/') == NULL;
}

long
cache_stamp_sweep(const char *cache_dir, int drop)
{
	char *real_dir = cache_dir != NULL ? realpath(cache_dir, NULL) : NULL;
	char *dir = stamp_dir(0);
	long count = 0;
	DIR *d = dir != NULL ? opendir(dir) : NULL;
	char *path = xmalloc(STAMP_PATH_MAX);
	struct dirent *de;
	while (d != NULL && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name), e = strlen(STAMP_EXT);
		int tmp = strncmp(de->d_name, STAMP_TMP, strlen(STAMP_TMP)) == 0;
		if (!tmp && (n <= e || strcmp(de->d_name + n - e, STAMP_EXT) != 0))
			continue;
		char *name = xasprintf("%s/%s", dir, de->d_name);
		stamp_rec x;
		if (tmp) {
			if (drop) /* a writer's leftover (or one racing us: it then stamps nothing)
			           */
				unlink(name);
		} else if (read_stamp(name, &x, path) == 0) {
			int mine = real_dir != NULL && in_dir(path, real_dir);
			int gone =
			    access(path, F_OK) != 0; /* dead weight: its cache file is gone */
			if (drop && (mine || gone))
				count += unlink(name) == 0 && mine;
			else if (!drop && mine && !gone)
				count++;
		}
		free(name);
	}
	if (d != NULL)
		closedir(d);
	free(path);
	free(dir);
	free(real_dir);
	return count;
}
