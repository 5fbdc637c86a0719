/* The model cache (cache.h says what and why). File layout, every field little-endian (the
 * byte order mark refuses a file from a host of the other order), every item padded to 8 bytes
 * so that arrays sit at aligned offsets of the mapping:
 *
 *   header, TL_CACHE_HEADER bytes:
 *     0  "TLMODEL\0"         8  u32 version        12 u32 byte order mark 0x01020304
 *     16 u64 file size       24 u64 body checksum  32 u64 key bytes
 *     40 u64 slices          48 i64 rank           56 u64 zero
 *   body: the key blob, then the rank (see put_rank), then END_MARK.
 *
 * Counts precede arrays; nothing in the file is a pointer, so the mapping needs no fix-ups. */
#include "config.h"
#include "load/cache.h"
#include "load/load.h"
#include "util/hash.h"
#include "util/msg.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char magic[8] = "TLMODEL";
#define BYTE_ORDER_MARK 0x01020304u
#define END_MARK UINT64_C(0x444e454c444f4d54) /* "TMODLEND" */
#define FILE_EXT ".tlc"
#define TMP_PREFIX ".tmp-"
#define TMP_STALE_SECS 3600 /* a temporary file older than this is a crashed writer's */

/* ---- checksum: a multiply-xorshift over 8-byte words (about 5 GB/s), cheap enough to verify
 * the whole body on every open ---------------------------------------------------------------- */

static uint64_t
sum_word(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 29);
}

#define SUM_SEED UINT64_C(0x746c2d6d6f64656c)

static uint64_t
sum_update(uint64_t h, const uint8_t *p, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h = sum_word(h, w);
	}
	if (i < n) {
		uint64_t w = 0;
		memcpy(&w, p + i, n - i);
		h = sum_word(h, w);
	}
	return h;
}

uint64_t
cache_checksum(const void *buf, size_t len)
{
	return sum_update(SUM_SEED, buf, len);
}

/* ---- writing: a growable buffer for the key, a stream for the file -------------------------- */

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
	FILE *f; /* when set, bytes go here instead */
	uint64_t sum;
	uint64_t off;
	int err;
} wbuf;

static void
put_raw(wbuf *w, const void *p, size_t n)
{
	static const uint8_t zero[8];
	size_t pad = (8 - n % 8) % 8;
	if (w->f != NULL) {
		if (n > 0 && fwrite(p, 1, n, w->f) != n)
			w->err = 1;
		if (pad > 0 && fwrite(zero, 1, pad, w->f) != pad)
			w->err = 1;
		w->sum = sum_update(w->sum, p, n); /* the tail word is zero-padded, as on disk */
	} else {
		VEC_RESERVE(w->p, w->cap, w->n + n + pad);
		if (n > 0)
			memcpy(w->p + w->n, p, n);
		memset(w->p + w->n + n, 0, pad);
		w->n += n + pad;
	}
	w->off += n + pad;
}

static void
put_u64(wbuf *w, uint64_t v)
{
	put_raw(w, &v, 8);
}

static void
put_str(wbuf *w, const char *s, size_t n)
{
	put_u64(w, n);
	put_raw(w, s, n);
}

/* a counted array */
static void
put_arr(wbuf *w, const void *p, size_t n, size_t size)
{
	put_u64(w, n);
	put_raw(w, p, n * size);
}

/* ---- the key -------------------------------------------------------------------------------- */

static void
put_file_id(wbuf *w, const char *name, uint64_t ino, int64_t size, int64_t mtime_ns)
{
	put_str(w, name, strlen(name));
	put_u64(w, ino);
	put_u64(w, (uint64_t)size);
	put_u64(w, (uint64_t)mtime_ns);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The capture directory's files that discovery reads for a rank and its capture time. */
static int
is_side_file(const char *name)
{
	size_t n = strlen(name);
	if (strcmp(name, "profiler_metadata.json") == 0)
		return 1;
	return strncmp(name, "profiler_info", 13) == 0 && n > 18 &&
	       strcmp(name + n - 5, ".json") == 0;
}

static void
put_side_files(wbuf *w, const char *dir)
{
	DIR *d = dir != NULL ? opendir(dir) : NULL;
	char **names = NULL;
	size_t n = 0, cap = 0;
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL)
			if (is_side_file(e->d_name))
				VEC_PUSH(names, n, cap, xstrdup(e->d_name));
		closedir(d);
	}
	if (n > 1)
		qsort(names, n, sizeof *names, cmp_str);
	put_u64(w, n);
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", dir, names[i]);
		struct stat st;
		if (stat(p, &st) == 0)
			put_file_id(w, names[i], (uint64_t)st.st_ino, (int64_t)st.st_size,
			            (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
		else
			put_file_id(w, names[i], 0, -1, 0);
		free(p);
		free(names[i]);
	}
	free(names);
}

/* SQLite's files beside a DB that a writer still holds: while one is there the profile is
 * still being written, so such a rank is read afresh (its loader says so) and not cached. */
static const char *const writer_sides[] = {"-wal", "-journal"};

static int
writer_side(const tl_source *s, size_t i)
{
	char *p = xasprintf("%s%s", s->path, writer_sides[i]);
	struct stat st;
	int there = lstat(p, &st) == 0;
	free(p);
	return there;
}

/* The identity of the running program: a checksum of its own executable. The cache holds what
 * the loaders made, so a build whose loaders differ (a new commit, or an uncommitted change on
 * the same one: the version string and TL_CACHE_VERSION would not tell them apart) must not
 * read an older build's files and show its numbers. 0 when the executable cannot be read; the
 * version and format then decide alone. */
static uint64_t exe_sum;
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;

static void
exe_sum_init(void)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	static uint8_t buf[1 << 16]; /* once per process, under exe_once */
	uint64_t h = SUM_SEED;
	ssize_t got;
	while ((got = read(fd, buf, sizeof buf)) > 0)
		h = sum_update(h, buf, (size_t)got); /* whole 8-byte words but for the file's end */
	close(fd);
	if (got == 0)
		exe_sum = h;
}

uint8_t *
cache_key(const tl_source *src, size_t n, size_t *len)
{
	wbuf w = {0};
	const char *ver = PACKAGE_VERSION;
	put_str(&w, ver, strlen(ver));
	put_u64(&w, TL_CACHE_VERSION);
	pthread_once(&exe_once, exe_sum_init);
	put_u64(&w, exe_sum);
	put_u64(&w, n);
	for (size_t i = 0; i < n; i++) {
		const tl_source *s = &src[i];
		char *real = realpath(s->path, NULL);
		put_u64(&w, (uint64_t)s->kind);
		put_u64(&w, (uint64_t)(int64_t)s->rank);
		put_u64(&w, (uint64_t)(int64_t)s->role_step);
		put_str(&w, s->role ? s->role : "", s->role ? strlen(s->role) : 0);
		put_file_id(&w, real ? real : s->path, s->ino, s->size, s->mtime_ns);
		free(real);
		for (size_t k = 0; k < sizeof writer_sides / sizeof *writer_sides; k++)
			put_u64(&w, (uint64_t)writer_side(s, k));
		char *rdir = s->dir ? realpath(s->dir, NULL) : NULL;
		put_side_files(&w, rdir ? rdir : s->dir);
		free(rdir);
	}
	*len = w.n;
	return w.p;
}

/* ---- the rank ------------------------------------------------------------------------------- */

enum { RANK_LOADED = 1, RANK_HOST_ONLY = 2 };
enum { TRACK_STEP = 1, TRACK_DEV = 2 };
#define NO_STR UINT64_MAX

static void
put_rank(wbuf *w, const tl_rank *r, char *const *warn, size_t nwarn)
{
	put_u64(w, (uint64_t)(int64_t)r->rank);
	put_u64(w, (r->loaded ? RANK_LOADED : 0) | (r->host_only ? RANK_HOST_ONLY : 0));
	put_u64(w, r->rows);
	if (r->role != NULL)
		put_str(w, r->role, strlen(r->role));
	else
		put_u64(w, NO_STR);
	uint32_t np = strpool_count(r->pool);
	put_u64(w, np);
	for (uint32_t i = 1; i < np; i++)
		put_str(w, strpool_get(r->pool, i), strpool_len(r->pool, i));
	put_arr(w, r->src_t0, r->src_t0 ? r->nsources : 0, sizeof *r->src_t0);
	put_arr(w, r->src_t1, r->src_t1 ? r->nsources : 0, sizeof *r->src_t1);
	put_arr(w, r->steps, r->nsteps, sizeof *r->steps);
	put_arr(w, r->fwdbwd, r->nfwdbwd, sizeof *r->fwdbwd);
	/* each source's loader state (a JSON event index, which on-demand reads are done), as
	 * its loader writes it */
	put_u64(w, r->nsources);
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		uint8_t *st = NULL;
		size_t stlen = 0;
		if (ld != NULL && ld->state_save != NULL)
			ld->state_save(r, i, &st, &stlen);
		put_arr(w, st, stlen, 1);
		free(st);
	}
	put_u64(w, r->ntracks);
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		put_u64(w, (uint64_t)t->kind);
		put_u64(w, t->label);
		put_u64(w, (uint64_t)t->key);
		put_u64(w, t->depth);
		put_u64(w, t->source);
		put_u64(w, (uint64_t)t->user_ranges);
		put_u64(w, (t->step ? TRACK_STEP : 0) | (t->dev ? TRACK_DEV : 0));
		put_arr(w, t->v, t->n, sizeof *t->v);
		if (t->step)
			put_raw(w, t->step, t->n * sizeof *t->step);
		if (t->dev)
			put_raw(w, t->dev, t->n * sizeof *t->dev);
	}
	put_u64(w, nwarn);
	for (size_t i = 0; i < nwarn; i++) {
		const char *path = warn[2 * i], *text = warn[2 * i + 1];
		if (path != NULL)
			put_str(w, path, strlen(path));
		else
			put_u64(w, NO_STR);
		put_str(w, text, strlen(text));
	}
	put_u64(w, END_MARK);
}

/* ---- reading: a cursor that checks every length against the end ---------------------------- */

typedef struct rd {
	const uint8_t *p;
	size_t n, off;
	const char *bad; /* the first problem */
} rd;

static uint64_t
get_u64(rd *r)
{
	uint64_t v = 0;
	if (r->bad != NULL)
		return 0;
	if (r->n - r->off < 8) {
		r->bad = "ends early";
		return 0;
	}
	memcpy(&v, r->p + r->off, 8);
	r->off += 8;
	return v;
}

/* count items of size bytes; NULL (and r->bad set) when they do not fit */
static const uint8_t *
get_bytes(rd *r, uint64_t count, size_t size)
{
	if (r->bad != NULL)
		return NULL;
	if (size != 0 && count > (r->n - r->off) / size) {
		r->bad = "a count runs past the end";
		return NULL;
	}
	size_t len = (size_t)count * size, pad = (8 - len % 8) % 8;
	if (pad > r->n - r->off - len) {
		r->bad = "a count runs past the end";
		return NULL;
	}
	const uint8_t *p = r->p + r->off;
	r->off += len + pad;
	return p;
}

/* a copy of a counted array, at most max items (xmalloc'd; NULL when empty) */
static void *
get_arr(rd *r, size_t size, size_t max, size_t *count)
{
	uint64_t n = get_u64(r);
	*count = 0;
	if (n > max && r->bad == NULL)
		r->bad = "a count is out of range";
	const uint8_t *p = get_bytes(r, n, size);
	if (p == NULL || n == 0)
		return NULL;
	void *v = xreallocarray(NULL, (size_t)n, size);
	memcpy(v, p, (size_t)n * size);
	*count = (size_t)n;
	return v;
}

/* a string, NUL-terminated copy; *none = 1 for NO_STR */
static char *
get_str(rd *r, int *none)
{
	uint64_t n = get_u64(r);
	if (none != NULL)
		*none = n == NO_STR && r->bad == NULL;
	if (n == NO_STR && none != NULL)
		return NULL;
	const uint8_t *p = get_bytes(r, n, 1);
	return p != NULL ? xstrndup((const char *)p, (size_t)n) : NULL;
}

static int
times_ok(int64_t a, int64_t b)
{
	return tl_time_ok(a) && tl_time_ok(b) && b >= a;
}

/* Reads a track and checks what the analyses rely on: names and labels in the pool, slices
 * sorted by start and not overlapping, times in range, step tags naming steps. */
static tl_track *
get_track(rd *r, const tl_rank *rk, uint32_t npool, size_t nsrc)
{
	tl_track *t = xcalloc(1, sizeof *t);
	uint64_t kind = get_u64(r), label = get_u64(r), key = get_u64(r), depth = get_u64(r);
	uint64_t source = get_u64(r), user = get_u64(r), flags = get_u64(r);
	if (r->bad == NULL && (kind >= TL_LANE__COUNT || label >= npool || depth > UINT16_MAX ||
	                       source >= (nsrc > 0 ? nsrc : 1) || user > 1 || flags > 3))
		r->bad = "a lane's fields are out of range";
	t->kind = (tl_lane_kind)kind;
	t->label = (uint32_t)label;
	t->key = (int64_t)key;
	t->depth = (uint16_t)depth;
	t->source = (uint16_t)source;
	t->user_ranges = (int)user;
	t->v = get_arr(r, sizeof *t->v, SIZE_MAX / sizeof *t->v, &t->n);
	t->cap = t->n;
	if (r->bad == NULL && t->n == 0)
		r->bad = "a lane is empty";
	if ((flags & TRACK_STEP) && r->bad == NULL) {
		const uint8_t *p = get_bytes(r, t->n, sizeof *t->step);
		if (p != NULL) {
			t->step = xreallocarray(NULL, t->n, sizeof *t->step);
			memcpy(t->step, p, t->n * sizeof *t->step);
		}
	}
	if ((flags & TRACK_DEV) && r->bad == NULL) {
		const uint8_t *p = get_bytes(r, t->n, sizeof *t->dev);
		if (p != NULL) {
			t->dev = xreallocarray(NULL, t->n, sizeof *t->dev);
			memcpy(t->dev, p, t->n * sizeof *t->dev);
		}
	}
	for (size_t k = 0; k < t->n && r->bad == NULL; k++) {
		const tl_slice *s = &t->v[k];
		if (!times_ok(s->start, s->end) || s->name >= npool ||
		    (k > 0 && s->start < t->v[k - 1].end))
			r->bad = "a lane's slices are out of order or range";
		else if (t->kind == TL_LANE_STEP && s->arg >= rk->nsteps)
			r->bad = "a step slice names no step";
		else if (t->step && t->step[k] != TL_NO_STEP && t->step[k] >= rk->nsteps)
			r->bad = "a slice's step is out of range";
		else if (t->dev && t->dev[k].end >= t->dev[k].start &&
		         !times_ok(t->dev[k].start, t->dev[k].end))
			r->bad = "a range's device times are out of range";
	}
	return t;
}

static const char *
check_header(const uint8_t *b, size_t len, uint64_t *keylen)
{
	uint32_t ver, bom;
	uint64_t size, sum, kl;
	if (len < TL_CACHE_HEADER)
		return "shorter than its header";
	if (memcmp(b, magic, 8) != 0)
		return "not a tl cache file";
	memcpy(&ver, b + 8, 4);
	memcpy(&bom, b + 12, 4);
	memcpy(&size, b + 16, 8);
	memcpy(&sum, b + 24, 8);
	memcpy(&kl, b + 32, 8);
	if (bom != BYTE_ORDER_MARK)
		return "written on a host of the other byte order";
	if (ver != TL_CACHE_VERSION)
		return "written by another version of tl";
	if (size != len)
		return "truncated or extended since it was written";
	if ((len - TL_CACHE_HEADER) % 8 != 0 || kl > len - TL_CACHE_HEADER)
		return "its sizes are inconsistent";
	if (cache_checksum(b + TL_CACHE_HEADER, len - TL_CACHE_HEADER) != sum)
		return "its checksum does not match (corrupt)";
	*keylen = kl;
	return NULL;
}

tl_rank *
cache_decode(const void *buf, size_t len, const tl_source *src, size_t n, char *err, size_t errlen)
{
	const uint8_t *b = buf;
	uint64_t keylen = 0;
	const char *why = check_header(b, len, &keylen);
	if (why != NULL) {
		snprintf(err, errlen, "%s", why);
		return NULL;
	}
	size_t klen;
	uint8_t *key = cache_key(src, n, &klen);
	int same = klen == keylen && memcmp(key, b + TL_CACHE_HEADER, klen) == 0;
	free(key);
	if (!same) {
		snprintf(err, errlen, "made from other input files");
		return NULL;
	}
	rd r = {.p = b + TL_CACHE_HEADER, .n = len - TL_CACHE_HEADER, .off = klen};
	int64_t rank = (int64_t)get_u64(&r);
	uint64_t flags = get_u64(&r);
	tl_rank *rk = rank_new((int)rank);
	if (r.bad == NULL && (rank != (int64_t)src[0].rank || flags > 3))
		r.bad = "its rank fields are inconsistent";
	rk->loaded = (flags & RANK_LOADED) != 0;
	rk->host_only = (flags & RANK_HOST_ONLY) != 0;
	rk->rows = get_u64(&r);
	int none = 0;
	rk->role = get_str(&r, &none);
	uint64_t np = get_u64(&r);
	if (r.bad == NULL && (np == 0 || np > UINT32_MAX))
		r.bad = "its string count is out of range";
	for (uint64_t i = 1; i < np && r.bad == NULL; i++) {
		uint64_t sl = get_u64(&r);
		const uint8_t *p = get_bytes(&r, sl, 1);
		/* ids are given in order: a duplicate would shift every later one */
		if (p != NULL && strpool_intern(rk->pool, (const char *)p, (size_t)sl) != i)
			r.bad = "its strings repeat";
	}
	uint32_t npool = (uint32_t)(r.bad == NULL ? np : 1);
	size_t n0, n1;
	rk->src_t0 = get_arr(&r, sizeof *rk->src_t0, n, &n0);
	rk->src_t1 = get_arr(&r, sizeof *rk->src_t1, n, &n1);
	if (r.bad == NULL && (n0 != n || n1 != n))
		r.bad = "its source count does not match";
	rk->sources = xreallocarray(NULL, n, sizeof *rk->sources);
	for (size_t i = 0; i < n; i++)
		rk->sources[i] = &src[i];
	rk->nsources = n;
	rk->steps = get_arr(&r, sizeof *rk->steps, TL_NO_STEP - 1, &rk->nsteps);
	rk->scap = rk->nsteps;
	for (size_t i = 0; i < rk->nsteps && r.bad == NULL; i++)
		if (!times_ok(rk->steps[i].start, rk->steps[i].end) ||
		    (i > 0 && rk->steps[i].start < rk->steps[i - 1].start))
			r.bad = "its steps are out of order or range";
	rk->fwdbwd = get_arr(&r, sizeof *rk->fwdbwd, SIZE_MAX, &rk->nfwdbwd);
	rk->fbcap = rk->nfwdbwd;
	for (size_t i = 0; i < rk->nfwdbwd && r.bad == NULL; i++) {
		const tl_fwdbwd *f = &rk->fwdbwd[i];
		if (!times_ok(f->fwd_start, f->fwd_end) || !times_ok(f->bwd_start, f->bwd_end) ||
		    (i > 0 && f->fwd_start < rk->fwdbwd[i - 1].fwd_start))
			r.bad = "its operator pairs are out of order or range";
	}
	uint64_t nst = get_u64(&r);
	if (r.bad == NULL && nst != n)
		r.bad = "its loader states do not match its sources";
	for (size_t i = 0; i < n && r.bad == NULL; i++) {
		uint64_t stlen = get_u64(&r);
		const uint8_t *p = get_bytes(&r, stlen, 1);
		if (p == NULL || stlen == 0)
			continue;
		const tl_loader *ld = loader_for(src[i].kind);
		if (ld == NULL || ld->state_restore == NULL ||
		    ld->state_restore(rk, i, p, (size_t)stlen) != 0)
			r.bad = "a source's loader state is not one its loader wrote";
	}
	uint64_t nt = get_u64(&r);
	if (r.bad == NULL && nt > (r.n - r.off) / 64) /* a lane takes at least 64 bytes */
		r.bad = "its lane count is out of range";
	if (r.bad == NULL && nt > 0) {
		rk->tracks = xcalloc((size_t)nt, sizeof *rk->tracks);
		rk->tcap = (size_t)nt;
	}
	for (uint64_t i = 0; i < nt && r.bad == NULL; i++) {
		tl_track *t = get_track(&r, rk, npool, n);
		rk->tracks[rk->ntracks++] = t;
		for (size_t k = 0; k < t->n && r.bad == NULL; k++) {
			if (t->v[k].start < rk->t_min)
				rk->t_min = t->v[k].start;
			if (t->v[k].end > rk->t_max)
				rk->t_max = t->v[k].end;
		}
	}
	uint64_t nw = get_u64(&r);
	char **warn = NULL;
	size_t nwarn = 0;
	if (r.bad == NULL && nw > (r.n - r.off) / 16)
		r.bad = "its warning count is out of range";
	if (r.bad == NULL && nw > 0)
		warn = xcalloc((size_t)nw * 2, sizeof *warn);
	for (uint64_t i = 0; i < nw && r.bad == NULL; i++) {
		warn[2 * i] = get_str(&r, &none);
		warn[2 * i + 1] = get_str(&r, NULL);
		nwarn = (size_t)i + 1;
	}
	if (get_u64(&r) != END_MARK || r.off != r.n) {
		if (r.bad == NULL)
			r.bad = "its end is not where its sizes say";
	}
	if (r.bad == NULL && !rk->loaded)
		r.bad = "it holds a rank that did not load";
	for (size_t i = 0; i < nwarn && r.bad == NULL; i++) {
		if (warn[2 * i] != NULL)
			msg_warn(warn[2 * i], "%s", warn[2 * i + 1]);
		else
			msg_warn(NULL, "%s", warn[2 * i + 1]);
	}
	for (size_t i = 0; i < 2 * nwarn; i++)
		free(warn[i]);
	free(warn);
	if (r.bad != NULL) {
		snprintf(err, errlen, "%s", r.bad);
		rank_free(rk);
		return NULL;
	}
	return rk;
}

/* ---- the directory -------------------------------------------------------------------------- */

char *
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

static uint64_t
parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0))
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'T':
		v *= 1024;
		/* fall through */
	case 'G':
		v *= 1024;
		/* fall through */
	case 'M':
		v *= 1024;
		/* fall through */
	case 'K':
		v *= 1024;
		break;
	default:
		break;
	}
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

static int
mkdir_p(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; *s && rc == 0; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				rc = -1;
			*s = '/';
		}
	if (rc == 0 && mkdir(p, 0755) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
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
	c->warned = 1;
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
	c->max_bytes = env != NULL && *env ? parse_size(env) : TL_CACHE_MAX_DEFAULT;
	if (c->dir == NULL)
		return 0;
	/* a directory tl cannot write is still read (a shared cache others filled); the one
	 * warning comes when a rank would have been written */
	if (mkdir_p(c->dir) != 0 || access(c->dir, W_OK | X_OK) != 0) {
		c->read_only = 1;
		snprintf(c->ro_why, sizeof c->ro_why, "%s", strerror(errno));
	}
	return 0;
}

void
cache_close(tl_cache *c)
{
	for (size_t i = 0; i < c->nrecs; i++)
		free(c->recs[i].file);
	free(c->recs);
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

static uint64_t
rank_slices(const tl_rank *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		n += r->tracks[i]->n;
	return n;
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

tl_rank *
cache_load_rank(tl_cache *c, const tl_source *src, size_t n)
{
	if (c == NULL || c->dir == NULL || n == 0)
		return NULL;
	size_t klen;
	uint8_t *key = cache_key(src, n, &klen);
	char *file = cache_file(c, key, klen);
	free(key);
	tl_rank *r = NULL;
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		free(file);
		return NULL;
	}
	char err[160] = "";
	size_t len = (size_t)st.st_size;
	void *volatile map = MAP_FAILED;
	if (len > 0)
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	/* a cache file truncated by another program while it is mapped raises SIGBUS */
	sigjmp_buf env, *volatile saved = load_bus_env;
	if (map != MAP_FAILED) {
		if (sigsetjmp(env, 1) == 0) {
			load_bus_env = &env;
			r = cache_decode(map, len, src, n, err, sizeof err);
		} else {
			snprintf(err, sizeof err, "it shrank while tl was reading it");
		}
		load_bus_env = saved;
		munmap(map, len);
	} else {
		snprintf(err, sizeof err, "%s", len == 0 ? "empty" : strerror(errno));
	}
	if (r != NULL) {
		futimens(fd,
		         NULL); /* its last use, for the LRU bound (fails harmlessly read-only) */
		add_rec(c, r->rank, TL_CACHE_HIT, file, len, rank_slices(r));
	} else {
		msg_warn(file, "cache file not used: %s; reading the profile again", err);
	}
	close(fd);
	free(file);
	return r;
}

/* The data files still are what discovery saw: a file rewritten while it was read must not
 * be cached under its old identity. */
static int
inputs_unchanged(const tl_source *src, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		for (size_t k = 0; k < sizeof writer_sides / sizeof *writer_sides; k++)
			if (writer_side(&src[i], k))
				return 0;
		if (stat(src[i].path, &st) != 0 || (uint64_t)st.st_ino != src[i].ino ||
		    (int64_t)st.st_size != src[i].size ||
		    (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != src[i].mtime_ns)
			return 0;
	}
	return 1;
}

int
cache_write_fd(int fd, const uint8_t *key, size_t klen, const tl_rank *r, char *const *warn,
               size_t nwarn, uint64_t *bytes)
{
	FILE *f = fdopen(fd, "wb");
	if (f == NULL) {
		close(fd);
		return -1;
	}
	uint8_t hdr[TL_CACHE_HEADER] = {0};
	wbuf w = {.f = f, .sum = SUM_SEED};
	if (fwrite(hdr, 1, sizeof hdr, f) != sizeof hdr)
		w.err = 1;
	put_raw(&w, key, klen);
	put_rank(&w, r, warn, nwarn);
	uint32_t ver = TL_CACHE_VERSION, bom = BYTE_ORDER_MARK;
	uint64_t size = TL_CACHE_HEADER + w.off, slices = rank_slices(r), kl = klen;
	int64_t rank = r->rank;
	memcpy(hdr, magic, 8);
	memcpy(hdr + 8, &ver, 4);
	memcpy(hdr + 12, &bom, 4);
	memcpy(hdr + 16, &size, 8);
	memcpy(hdr + 24, &w.sum, 8);
	memcpy(hdr + 32, &kl, 8);
	memcpy(hdr + 40, &slices, 8);
	memcpy(hdr + 48, &rank, 8);
	/* the header last, then the data on disk before the rename makes it visible */
	if (fflush(f) != 0 || w.err)
		w.err = 1;
	else if (pwrite(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr || fsync(fd) != 0)
		w.err = 1;
	int e = errno;
	if (fclose(f) != 0 && !w.err) {
		e = errno;
		w.err = 1;
	}
	errno = e;
	*bytes = size;
	return w.err ? -1 : 0;
}

void
cache_store_rank(tl_cache *c, const tl_source *src, size_t n, const tl_rank *r, char *const *warn,
                 size_t nwarn)
{
	if (c == NULL || c->dir == NULL)
		return;
	if (c->read_only)
		warn_unwritable(c, NULL);
	/* what a file holds is the rank as its loaders left it; parts read on demand (host lanes,
	 * counters) are read again from the profile after a cache hit, so a rank that already has
	 * them is not written */
	if (c->read_only || !r->loaded || r->host_read || r->counters_read ||
	    !inputs_unchanged(src, n)) {
		add_rec(c, r->rank, TL_CACHE_UNWRITTEN, NULL, 0, rank_slices(r));
		return;
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
	const char *why = NULL;
	int saved = 0;
	uint64_t size = 0;
	if (fd < 0) {
		saved = errno;
		why = "cannot create a file";
	} else if (cache_write_fd(fd, key, klen, r, warn, nwarn, &size) != 0) {
		saved = errno;
		why = "cannot write a file";
	} else if (rename(tmp, file) != 0) {
		saved = errno;
		why = "cannot rename a file";
	} else {
		add_rec(c, r->rank, TL_CACHE_WROTE, file, size, rank_slices(r));
	}
	if (why != NULL) {
		unlink(tmp);
		char *m = xasprintf("%s: %s", why, strerror(saved));
		warn_unwritable(c, m);
		free(m);
		add_rec(c, r->rank, TL_CACHE_UNWRITTEN, NULL, 0, rank_slices(r));
	}
	free(tmp);
	free(file);
	free(key);
}

/* ---- the bound, `tl cache` ------------------------------------------------------------------ */

typedef struct entry {
	char *path;
	uint64_t size;
	int64_t mtime_ns;
	int tmp;
} entry;

static int
is_cache_name(const char *name, int *tmp)
{
	size_t n = strlen(name), e = strlen(FILE_EXT);
	if (n <= e || strcmp(name + n - e, FILE_EXT) != 0)
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
		int tmp;
		if (!is_cache_name(de->d_name, &tmp))
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		entry x = {p, (uint64_t)st.st_size,
		           (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec, tmp};
		VEC_PUSH(v, *count, cap, x);
	}
	closedir(d);
	return v;
}

static int
cmp_age(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	return (x->mtime_ns > y->mtime_ns) - (x->mtime_ns < y->mtime_ns);
}

void
cache_evict(tl_cache *c)
{
	if (c == NULL || c->dir == NULL || c->read_only)
		return;
	size_t n;
	entry *v = list_dir(c->dir, &n);
	uint64_t total = 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t stale = ((int64_t)now.tv_sec - TMP_STALE_SECS) * 1000000000;
	for (size_t i = 0; i < n; i++)
		if (v[i].tmp && v[i].mtime_ns < stale)
			unlink(v[i].path); /* left by a writer that died */
		else if (!v[i].tmp)
			total += v[i].size;
	if (n > 1)
		qsort(v, n, sizeof *v, cmp_age);
	for (size_t i = 0; i < n && total > c->max_bytes; i++)
		if (!v[i].tmp && unlink(v[i].path) == 0)
			total -= v[i].size;
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void
cache_report(const tl_cache *c, FILE *f)
{
	if (c->dir == NULL) {
		fprintf(f, "cache: none (neither XDG_CACHE_HOME nor HOME is set)\n");
		return;
	}
	size_t n, files = 0;
	entry *v = list_dir(c->dir, &n);
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].tmp) {
			files++;
			total += v[i].size;
		}
		free(v[i].path);
	}
	free(v);
	fprintf(f, "cache: %s\n", c->dir);
	fprintf(f, "files: %zu\n", files);
	fprintf(f, "size: %llu bytes (%.1f MiB)\n", (unsigned long long)total,
	        (double)total / 1048576.0);
	fprintf(f, "bound: %llu bytes (%.1f MiB; TL_CACHE_MAX sets it)\n",
	        (unsigned long long)c->max_bytes, (double)c->max_bytes / 1048576.0);
}

long
cache_clear(const tl_cache *c)
{
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
		if (unlink(v[i].path) == 0)
			removed++;
		free(v[i].path);
	}
	free(v);
	return removed;
}
