/* The model cache (cache.h says what and why): the directory, reading a rank from it and storing
 * one, the size bound and `tl cache`. The file format is written by cache_write.c and read by
 * cache_read.c. */
#include "config.h"
#include "store/cache_int.h"
#include "load/load.h"
#include "model/source.h"
#include "util/files.h"
#include "util/hash.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TMP_STALE_SECS 3600 /* a temporary file older than this is a crashed writer's */

/* ---- the directory -------------------------------------------------------------------------- */

/* The default directory: $XDG_CACHE_HOME/tl/models, else ~/.cache/tl/models (malloc'd). */
static char *
cache_default_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg != NULL && *xdg == '/')
		return xasprintf("%s/tl/models", xdg);
	const char *home = getenv("HOME");
	if (home == NULL || *home == '\0')
		return NULL;
	return xasprintf("%s/.cache/tl/models", home);
}

static void
warn_unwritable(tl_cache *c, const char *why)
{
	pthread_mutex_lock(&c->lock);
	if (why == NULL)
		why = c->ro_why;
	if (!c->warned)
		msg_warn(c->dir, "cannot write the model cache here (%s); going on without it",
		         why);
	c->warned = c->complained = 1;
	c->read_only = 1;
	pthread_mutex_unlock(&c->lock);
}

int
cache_open(tl_cache *c, const char *dir)
{
	memset(c, 0, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	c->dir = dir != NULL ? xstrdup(dir) : cache_default_dir();
	const char *env = getenv("TL_CACHE_MAX");
	c->max_bytes = env != NULL && *env ? text_parse_size(env) : TL_CACHE_MAX_DEFAULT;
	if (c->dir == NULL)
		return 0;
	/* a directory tl cannot write is still read (a shared cache others filled); the one
	 * warning comes when a rank would have been written */
	if (util_mkdir_p(c->dir, 0755) != 0 || access(c->dir, W_OK | X_OK) != 0) {
		c->read_only = 1;
		snprintf(c->ro_why, sizeof c->ro_why, "%s", strerror(errno));
	}
	/* a directory untrusted users may write without the sticky bit: they could rename and
	 * remove the user's files at will, so nothing in it is read or written */
	struct stat st;
	char why[256];
	if (stat(c->dir, &st) == 0 && S_ISDIR(st.st_mode) && cache_trust_dir(&st, why, sizeof why))
		c->distrust_dir = xstrdup(why);
	return 0;
}

/* The one line a directory not trusted gets, when it would first have been read or written. */
static int
dir_distrusted(tl_cache *c)
{
	if (c->distrust_dir == NULL)
		return 0;
	pthread_mutex_lock(&c->lock);
	if (!c->dir_said)
		msg_warn(c->dir, "not used as the model cache, not trusted: %s", c->distrust_dir);
	c->dir_said = c->complained = 1;
	pthread_mutex_unlock(&c->lock);
	return 1;
}

void
cache_note_ignored(tl_cache *c, const char *file, uid_t uid)
{
	pthread_mutex_lock(&c->lock);
	size_t i = 0;
	while (i < c->nignored && strcmp(c->ignored[i], file) != 0)
		i++;
	if (i == c->nignored) {
		if (c->nignored == c->icap) {
			c->icap = c->icap ? 2 * c->icap : 16;
			c->ignored = xreallocarray(c->ignored, c->icap, sizeof *c->ignored);
			c->ignored_uid = xreallocarray(c->ignored_uid, c->icap, sizeof(uid_t));
		}
		c->ignored[c->nignored] = xstrdup(file);
		c->ignored_uid[c->nignored++] = uid;
	}
	pthread_mutex_unlock(&c->lock);
}

/* The one line of the files skipped as not trusted: how many and whose. */
static void
say_ignored(tl_cache *c)
{
	if (c == NULL || c->nignored == 0)
		return;
	char whose[512] = "";
	size_t len = 0, nowners = 0;
	for (size_t i = 0; i < c->nignored; i++) {
		size_t k = 0;
		while (k < i && c->ignored_uid[k] != c->ignored_uid[i])
			k++;
		if (k < i) /* said */
			continue;
		char name[128];
		cache_owner_name(c->ignored_uid[i], name, sizeof name);
		if (len < sizeof whose)
			len += (size_t)snprintf(whose + len, sizeof whose - len, "%s%s",
			                        nowners++ ? ", " : "", name);
	}
	/* aside: the line tells of this cache, not of the profile, so a stored result must not
	 * replay it; and what is stored (from the user's own files, or the profile) is right */
	msg_warn_aside(c->dir,
	               "ignored %zu cache file%s owned by %s: not trusted; see --trust-cache",
	               c->nignored, c->nignored == 1 ? "" : "s", whose);
	for (size_t i = 0; i < c->nignored; i++)
		free(c->ignored[i]);
	c->nignored = 0;
}

void
cache_load_done(tl_cache *c)
{
	say_ignored(c);
	cache_evict(c);
}

char *
cache_alt_name(const char *file)
{
	const char *dot = strrchr(file, '.');
	size_t stem = dot != NULL ? (size_t)(dot - file) : strlen(file);
	return xasprintf("%.*s.u%lu%s", (int)stem, file, (unsigned long)geteuid(),
	                 dot != NULL ? dot : "");
}

/* tmp renamed to name unless another user's file holds the name (never replaced, never
 * removed). Returns 0 when placed, 1 when the name is another's, -1 (errno) on an error. */
static int
place_at(const char *tmp, const char *name)
{
	for (int tries = 0; tries < 3; tries++) {
		struct stat st;
		if (lstat(name, &st) == 0) {
			if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
				return 1;
			return rename(tmp, name) == 0 ? 0 : -1; /* the user's own: replaced */
		}
		if (errno != ENOENT)
			return -1;
		/* not there a moment ago: placed only if it still is not */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, name, RENAME_NOREPLACE) == 0)
			return 0;
		if (errno == EEXIST)
			continue; /* made meanwhile: whose? */
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
		/* a filesystem without it: a hard link fails as well when the name exists */
		if (link(tmp, name) == 0) {
			unlink(tmp);
			return 0;
		}
		if (errno == EEXIST)
			continue;
		return rename(tmp, name) == 0 ? 0 : -1; /* nor links: checked above */
	}
	return 1;
}

int
cache_place(const char *tmp, const char *file, char **placed)
{
	*placed = NULL;
	int r = place_at(tmp, file);
	if (r == 0) {
		*placed = xstrdup(file);
		return 0;
	}
	if (r < 0)
		return -1;
	char *alt = cache_alt_name(file);
	r = place_at(tmp, alt);
	if (r == 0) {
		*placed = alt;
		return 0;
	}
	free(alt);
	if (r > 0)
		errno = EEXIST;
	return -1;
}

void
cache_close(tl_cache *c)
{
	for (size_t i = 0; i < c->nrecs; i++)
		free(c->recs[i].file);
	free(c->recs);
	for (size_t i = 0; i < c->nignored; i++)
		free(c->ignored[i]);
	free(c->ignored);
	free(c->ignored_uid);
	free(c->distrust_dir);
	free(c->dir);
	pthread_mutex_destroy(&c->lock);
	memset(c, 0, sizeof *c);
}

static char *
cache_file(const tl_cache *c, const uint8_t *key, size_t klen)
{
	return xasprintf("%s/%016llx%s", c->dir,
	                 (unsigned long long)util_hash_bytes((const char *)key, klen), FILE_EXT);
}

static void
add_rec(tl_cache *c, int rank, tl_cache_status st, const char *file, uint64_t bytes,
        uint64_t slices)
{
	tl_cache_rec x = {rank, st, file ? xstrdup(file) : NULL, bytes, slices};
	pthread_mutex_lock(&c->lock);
	VEC_PUSH(c->recs, c->nrecs, c->rcap, x);
	pthread_mutex_unlock(&c->lock);
}

typedef struct cache_map {
	void *p;
	size_t len;
} cache_map;

static void
map_free(void *p)
{
	cache_map *m = p;
	munmap(m->p, m->len);
	free(m);
}

/* The mapping is private and read-only, its pages the file's own (until load_clock makes it
 * writable and moves times in it: then it clears backing_drop), so the pages dropped are read
 * again, unchanged, from the page cache on the next touch. */
static void
map_drop(void *p)
{
	cache_map *m = p;
	madvise(m->p, m->len, MADV_DONTNEED);
}

void
cache_set_backing(tl_rank *r, void *map, size_t len)
{
	cache_map *m = xmalloc(sizeof *m);
	m->p = map;
	m->len = len;
	r->backing = m;
	r->backing_free = map_free;
	r->backing_drop = map_drop;
}

int
cache_rank_mapping(const tl_rank *r, const void **p, size_t *len)
{
	if (r == NULL || r->backing == NULL || r->backing_free != map_free)
		return -1;
	const cache_map *m = r->backing;
	*p = m->p;
	*len = m->len;
	return 0;
}

int
cache_will_write(const tl_cache *c)
{
	/* a spilled rank's file has no name: an untrusted directory cannot reach it */
	return c != NULL && c->dir != NULL && !c->read_only &&
	       (c->spill || c->distrust_dir == NULL);
}

static _Atomic uint64_t stamped_opens, checked_opens;

uint64_t
cache_stamped_opens(void)
{
	return stamped_opens;
}

uint64_t
cache_checked_opens(void)
{
	return checked_opens;
}

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* The checksum a mapped file's header carries (0 when it is shorter than its header). */
static uint64_t
header_sum(const void *map, size_t len)
{
	uint64_t sum = 0;
	if (len >= TL_CACHE_HEADER)
		memcpy(&sum, (const uint8_t *)map + 24, 8);
	return sum;
}

tl_rank *
cache_decode_guarded(const void *map, size_t len, const tl_source *src, size_t n, int replay,
                     int trusted, unsigned keep, char *err, size_t errlen)
{
	tl_rank *volatile r = NULL;
	sigjmp_buf env, *volatile saved = load_bus_env;
	if (sigsetjmp(env, 1) == 0) {
		load_bus_env = &env;
		r = cache_decode_stamped(map, len, src, n, replay, trusted, keep, err, errlen);
	} else {
		snprintf(err, errlen, "it shrank while tl was reading it");
	}
	load_bus_env = saved;
	return r;
}

/* Marks the file (fd, fstat st, header checksum sum) as used just now for the LRU bound, and
 * keeps its stamp (when it has one) matching: touching it sets its ctime. Only a file not
 * touched in the last minute is touched again. The file was checked or stamped with st; when
 * it is no longer st, something wrote it meanwhile and it gets neither touch nor stamp. */
static void
touch_used(int fd, const char *real, const struct stat *st, uint64_t sum, int stamped)
{
	struct timespec now;
	struct stat now_st;
	clock_gettime(CLOCK_REALTIME, &now);
	if ((int64_t)now.tv_sec - (int64_t)st->st_mtim.tv_sec < 60)
		return;
	if (fstat(fd, &now_st) != 0 || !same_file(st, &now_st))
		return;
	if (st->st_uid != geteuid() || futimens(fd, NULL) != 0) /* another's: never written */
		return;
	/* the touch is tl's own write; a write by another in the same instant (by the user or
	 * root: the file is 0644) is what any stamp of a file just written accepts */
	if (stamped && fstat(fd, &now_st) == 0)
		cache_stamp_put(real, &now_st, sum);
}

/* What reading one name came to (map_file). */
enum { MAP_HIT, MAP_ABSENT, MAP_UNTRUSTED, MAP_BAD };

/* The rank in the cache file file, or NULL: *how says why not (MAP_UNTRUSTED: its owner,
 * *owner, is not trusted; MAP_BAD: err says what is wrong with it). again: the file this
 * process just wrote (cache_remap_rank). */
static tl_rank *
map_file(tl_cache *c, const char *file, const tl_source *src, size_t n, int again, unsigned keep,
         int *how, uid_t *owner, char *err, size_t errlen)
{
	tl_rank *r = NULL;
	/* the name's own owner, not a link's target's */
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	*how = MAP_ABSENT;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!cache_trust_uid(st.st_uid)) {
		/* whole and valid proves nothing of who made it: never read */
		close(fd);
		*how = MAP_UNTRUSTED;
		*owner = st.st_uid;
		return NULL;
	}
	size_t len = (size_t)st.st_size;
	void *map = MAP_FAILED;
	char *real = realpath(file, NULL); /* names its stamp; NULL: no stamp */
	uint64_t sum = 0;
	if (len >= TL_CACHE_HEADER && pread(fd, &sum, 8, 24) != 8)
		sum = 0;
	int trusted = cache_stamp_ok(real, &st, sum);
	/* a file checked whole is read from end to end, so its pages are faulted in at once; one
	 * a stamp vouches for is read only where it is used (a viewer's first frame touches a
	 * small part of it), and faulting it all in would be O(bytes) again, in the kernel */
	if (len > 0)
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | (trusted ? 0 : MAP_POPULATE), fd, 0);
	if (map != MAP_FAILED) {
		if (trusted && header_sum(map, len) != sum)
			trusted = 0;
		r = cache_decode_guarded(map, len, src, n, !again, trusted, keep, err, errlen);
		struct stat now;
		if (r != NULL && trusted && (fstat(fd, &now) != 0 || !same_file(&st, &now))) {
			/* written since its stamp was compared: checked whole after all (its
			 * warnings were given already) */
			rank_free(r);
			trusted = 0;
			r = cache_decode_guarded(map, len, src, n, 0, 0, keep, err, errlen);
		}
		if (again) {
		} else if (trusted) {
			stamped_opens++;
		} else {
			checked_opens++;
		}
		if (r != NULL) {
			/* the rank's lanes are the file's pages: file-backed memory the kernel may
			 * drop and read again, not anonymous memory. Files are only ever replaced
			 * by rename, never rewritten, so the mapping stays whole. */
			cache_set_backing(r, map, len);
		} else {
			munmap(map, len);
		}
	} else {
		snprintf(err, errlen, "%s", len == 0 ? "empty" : strerror(errno));
	}
	struct stat after;
	/* checked whole just now: stamped, unless it changed while it was read, or its ctime is
	 * so recent that a change could still keep it */
	if (r != NULL && !trusted && fstat(fd, &after) == 0 && same_file(&st, &after) &&
	    !cache_stamp_racy(&st)) {
		sum = header_sum(map, len); /* the one the check compared */
		cache_stamp_put(real, &st, sum);
		trusted = 1;
	}
	if (r != NULL && !again) {
		touch_used(fd, real, &st, sum, trusted);
		add_rec(c, r->rank, TL_CACHE_HIT, file, len, cache_rank_slices(r));
	}
	*how = r != NULL ? MAP_HIT : MAP_BAD;
	close(fd);
	free(real);
	return r;
}

/* The rank's cache file: its name, else the user's own alternative name (used when another
 * user's file holds the first: cache_place). A file of an untrusted owner is skipped (counted
 * for cache_load_done's line when neither name serves); a bad one is named in one line when
 * neither serves. again: the file this process just wrote (cache_remap_rank). */
static tl_rank *
map_rank(tl_cache *c, const tl_source *src, size_t n, int again, unsigned keep)
{
	if (c == NULL || c->dir == NULL || n == 0 || dir_distrusted(c))
		return NULL;
	size_t klen;
	uint8_t *key = cache_key(src, n, &klen);
	char *name[2];
	name[0] = cache_file(c, key, klen);
	name[1] = cache_alt_name(name[0]);
	free(key);
	tl_rank *r = NULL;
	int how[2] = {MAP_ABSENT, MAP_ABSENT};
	uid_t owner[2] = {0, 0};
	char err[2][160] = {"", ""};
	for (size_t i = 0; i < 2 && r == NULL; i++)
		r = map_file(c, name[i], src, n, again, keep, &how[i], &owner[i], err[i],
		             sizeof err[i]);
	for (size_t i = 0; i < 2 && r == NULL && !again; i++) {
		if (how[i] == MAP_UNTRUSTED) {
			cache_note_ignored(c, name[i], owner[i]);
		} else if (how[i] == MAP_BAD) {
			msg_warn(name[i], "cache file not used: %s; reading the profile again",
			         err[i]);
			pthread_mutex_lock(&c->lock);
			c->complained = 1;
			pthread_mutex_unlock(&c->lock);
		}
	}
	free(name[0]);
	free(name[1]);
	return r;
}

tl_rank *
cache_load_rank(tl_cache *c, const tl_source *src, size_t n, unsigned keep)
{
	if (c != NULL && c->spill) /* --no-cache: never read */
		return NULL;
	return map_rank(c, src, n, 0, keep);
}

tl_rank *
cache_remap_rank(tl_cache *c, const tl_source *src, size_t n)
{
	return map_rank(c, src, n, 1, TL_TABLE_ALL);
}

/* The data files still are what discovery saw: a file rewritten while it was read must not
 * be cached under its old identity. */
static int
inputs_unchanged(const tl_source *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		for (size_t k = 0; k < CACHE_WRITER_SIDES; k++)
			if (cache_writer_side(&src[i], k))
				return 0;
		/* a source discovery could not stat has no identity to compare: not kept */
		if ((src[i].ino == 0 && src[i].size == 0) || stat(src[i].path, &st) != 0 ||
		    !source_is_file(&src[i], &st))
			return 0;
	}
	return 1;
}

int
cache_store_rank(tl_cache *c, const tl_source *src, size_t n, const tl_rank *r, char *const *warn,
                 size_t nwarn)
{
	if (c == NULL || c->dir == NULL)
		return 0;
	if (dir_distrusted(c)) {
		add_rec(c, r->rank, TL_CACHE_UNWRITTEN, NULL, 0, cache_rank_slices(r));
		return 0;
	}
	if (c->read_only)
		warn_unwritable(c, NULL);
	/* what a file holds is the rank as its loaders left it with the tables its load gathered
	 * (the counters among them); host lanes, read on demand, are read again from the profile
	 * after a cache hit, so a rank that already has them is not written */
	if (c->read_only || !r->loaded || r->host_read || !inputs_unchanged(src, n)) {
		add_rec(c, r->rank, TL_CACHE_UNWRITTEN, NULL, 0, cache_rank_slices(r));
		return 0;
	}
	size_t klen;
	uint8_t *key = cache_key(src, n, &klen);
	char *file = cache_file(c, key, klen);
	static unsigned long seq;
	pthread_mutex_lock(&c->lock);
	unsigned long my = seq++;
	pthread_mutex_unlock(&c->lock);
	char *tmp = xasprintf("%s/" TMP_PREFIX "%ld-%lu%s", c->dir, (long)getpid(), my, FILE_EXT);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	/* read back after the rename, to stamp the inode written rather than whatever the name
	 * holds by then */
	int rfd = fd >= 0 ? open(tmp, O_RDONLY | O_CLOEXEC) : -1;
	const char *why = NULL;
	int saved = 0;
	uint64_t size = 0;
	char *placed = NULL;
	if (fd < 0) {
		saved = errno;
		why = "cannot create a file";
	} else if (cache_write_fd(fd, key, klen, r, warn, nwarn, &size) != 0) {
		saved = errno;
		why = "cannot write a file";
	} else if (cache_place(tmp, file, &placed) != 0) {
		saved = errno;
		why =
		    saved == EEXIST ? "other users' files hold its names" : "cannot rename a file";
	} else {
		add_rec(c, r->rank, TL_CACHE_WROTE, placed, size, cache_rank_slices(r));
		/* the bytes are the ones just written: stamped with the inode's state after the
		 * rename (which sets its ctime) */
		struct stat st;
		uint64_t sum;
		char *real = realpath(placed, NULL);
		if (rfd >= 0 && fstat(rfd, &st) == 0 && pread(rfd, &sum, 8, 24) == 8)
			cache_stamp_put(real, &st, sum);
		free(real);
	}
	if (rfd >= 0)
		close(rfd);
	if (why != NULL) {
		unlink(tmp);
		char *m = xasprintf("%s: %s", why, strerror(saved));
		warn_unwritable(c, m);
		free(m);
		add_rec(c, r->rank, TL_CACHE_UNWRITTEN, NULL, 0, cache_rank_slices(r));
	}
	free(placed);
	free(tmp);
	free(file);
	free(key);
	return why == NULL;
}

/* ---- the bound, `tl cache` ------------------------------------------------------------------ */

typedef struct entry {
	char *path;
	uint64_t size;
	int64_t mtime_ns;
	int tmp;
	int result; /* a stored result, not a rank's model */
	int mine;   /* read or written by this process: not evicted */
	uid_t uid;  /* its owner: only the user's own files are ever removed */
} entry;

static int
has_ext(const char *name, size_t n, const char *ext)
{
	size_t e = strlen(ext);
	return n > e && strcmp(name + n - e, ext) == 0;
}

/* A rank's model or a stored result: both count toward the bound and go with --clear. */
static int
is_cache_name(const char *name, int *tmp, int *result)
{
	size_t n = strlen(name);
	*result = has_ext(name, n, RESULT_EXT);
	if (!has_ext(name, n, FILE_EXT) && !*result)
		return 0;
	*tmp = strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0;
	return 1;
}

static entry *
list_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	*count = 0;
	if (d == NULL)
		return NULL;
	entry *v = NULL;
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		int tmp, result;
		if (!is_cache_name(de->d_name, &tmp, &result))
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		entry x = {p,
		           (uint64_t)st.st_size,
		           (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
		           tmp,
		           result,
		           0,
		           st.st_uid};
		VEC_PUSH(v, *count, cap, x);
	}
	closedir(d);
	return v;
}

/* 1 when path is a file this process read or wrote (a record of cache_load_rank or
 * cache_store_rank); counts it in *written when it was written now. */
static int
used_now(tl_cache *c, const char *path, uint64_t *written)
{
	int found = 0;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->nrecs && !found; i++)
		if (c->recs[i].file != NULL && strcmp(c->recs[i].file, path) == 0) {
			found = 1;
			*written += c->recs[i].status == TL_CACHE_WROTE;
		}
	pthread_mutex_unlock(&c->lock);
	return found;
}

static int
cmp_age(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	return (x->mtime_ns > y->mtime_ns) - (x->mtime_ns < y->mtime_ns);
}

/* The stamp of path (a file of the directory dir, just removed: realpath no longer finds it). */
static void
drop_stamp(const char *dir, const char *path)
{
	char *rd = realpath(dir, NULL);
	const char *base = strrchr(path, '/');
	if (rd != NULL && base != NULL) {
		char *real = xasprintf("%s%s", rd, base);
		cache_stamp_drop(real);
		free(real);
	}
	free(rd);
}

void
cache_evict(tl_cache *c)
{
	if (c == NULL || c->dir == NULL || c->read_only || c->spill)
		return;
	size_t n;
	entry *v = list_dir(c->dir, &n);
	uint64_t total = 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t stale = ((int64_t)now.tv_sec - TMP_STALE_SECS) * 1000000000;
	uid_t me = geteuid();
	/* the bound is on the user's own files: others' are never removed (nor counted, which
	 * would only make the user's own go first) */
	for (size_t i = 0; i < n; i++)
		if (v[i].uid != me)
			continue;
		else if (v[i].tmp && v[i].mtime_ns < stale)
			unlink(v[i].path); /* left by a writer that died */
		else if (!v[i].tmp)
			total += v[i].size;
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_age);
	/* the files this load read or wrote are never evicted: they are mapped now, and the
	 * next open of the same profile wants them (removing them made a profile larger than the
	 * bound write its files on every open, only to lose them again) */
	uint64_t mine = 0, written = 0;
	for (size_t i = 0; i < n; i++) {
		v[i].mine =
		    !v[i].tmp && !v[i].result && v[i].uid == me && used_now(c, v[i].path, &written);
		mine += v[i].mine ? v[i].size : 0;
	}
	for (size_t i = 0; i < n && total > c->max_bytes; i++)
		if (!v[i].tmp && !v[i].mine && v[i].uid == me && unlink(v[i].path) == 0) {
			total -= v[i].size;
			/* a stale stamp would never match a new file under the name (a new inode,
			 * or a reused one with a later ctime), so this only keeps them few */
			drop_stamp(c->dir, v[i].path);
		}
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	if (mine > c->max_bytes && written > 0) { /* said when written, not on every open */
		msg_warn(c->dir,
		         "this profile's cache files take %.1f GiB, above the cache's bound of "
		         "%.1f GiB: kept, but the next profile opened evicts them (TL_CACHE_MAX "
		         "raises the bound)",
		         (double)mine / 1073741824.0, (double)c->max_bytes / 1073741824.0);
		c->complained = 1; /* a stored result would replay the line on every open */
	}
}

/* One owner's share of the directory, for `tl cache`. */
typedef struct owner_sum {
	uid_t uid;
	size_t files, results;
	uint64_t bytes;
} owner_sum;

static int
cmp_owner(const void *a, const void *b)
{
	const owner_sum *x = a, *y = b;
	return (x->uid > y->uid) - (x->uid < y->uid);
}

void
cache_report(const tl_cache *c, FILE *f)
{
	if (c->dir == NULL) {
		fprintf(f, "cache: none (neither XDG_CACHE_HOME nor HOME is set)\n");
		return;
	}
	size_t n, files = 0, results = 0, nown = 0, ocap = 0;
	entry *v = list_dir(c->dir, &n);
	owner_sum *own = NULL;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].tmp) {
			files += !v[i].result;
			results += v[i].result;
			total += v[i].size;
			size_t k = 0;
			while (k < nown && own[k].uid != v[i].uid)
				k++;
			if (k == nown) {
				owner_sum z = {v[i].uid, 0, 0, 0};
				VEC_PUSH(own, nown, ocap, z);
			}
			own[k].files += !v[i].result;
			own[k].results += v[i].result;
			own[k].bytes += v[i].size;
		}
		free(v[i].path);
	}
	free(v);
	fprintf(f, "cache: %s\n", c->dir);
	fprintf(f, "files: %zu\n", files);
	fprintf(f, "stored results: %zu\n", results);
	fprintf(f, "size: %llu bytes (%.1f MiB)\n", (unsigned long long)total,
	        (double)total / 1048576.0);
	fprintf(f, "bound: %llu bytes (%.1f MiB; TL_CACHE_MAX sets it)\n",
	        (unsigned long long)c->max_bytes, (double)c->max_bytes / 1048576.0);
	fprintf(f,
	        "verified: %ld files (checked whole once; a stamp skips the check until they "
	        "change)\n",
	        cache_stamp_sweep(c->dir, 0));
	if (c->distrust_dir != NULL)
		fprintf(f, "trust: none of its files are read: %s\n", c->distrust_dir);
	if (nown > 1)
		qsort(own, nown, sizeof *own, cmp_owner);
	for (size_t i = 0; i < nown; i++) {
		char name[128];
		cache_owner_name(own[i].uid, name, sizeof name);
		const char *verdict = own[i].uid == geteuid()       ? "trusted (you)"
		                      : own[i].uid == 0             ? "trusted (root)"
		                      : cache_trust_uid(own[i].uid) ? "trusted (--trust-cache)"
		                                                    : "not trusted, not read";
		fprintf(f, "owner: %s: %zu files, %zu stored results, %llu bytes: %s\n", name,
		        own[i].files, own[i].results, (unsigned long long)own[i].bytes,
		        c->distrust_dir != NULL ? "not read (the directory is not trusted)"
		                                : verdict);
	}
	free(own);
}

long
cache_clear(const tl_cache *c, long *results, long *others)
{
	*results = *others = 0;
	if (c->dir == NULL)
		return 0;
	DIR *d = opendir(c->dir);
	if (d == NULL)
		return errno == ENOENT ? 0 : -1;
	closedir(d);
	size_t n;
	entry *v = list_dir(c->dir, &n);
	long removed = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].uid != geteuid()) /* another user's: never removed */
			*others += !v[i].tmp;
		else if (unlink(v[i].path) == 0) {
			removed += !v[i].result;
			*results += v[i].result;
		}
		free(v[i].path);
	}
	free(v);
	cache_stamp_sweep(c->dir, 1);
	return removed;
}
