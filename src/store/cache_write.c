/* The model cache (cache.h says what and why). File layout, every field little-endian (the
 * byte order mark refuses a file from a host of the other order), every item padded to 8 bytes
 * so that arrays sit at aligned offsets of the mapping:
 *
 *   header, TL_CACHE_HEADER bytes:
 *     0  "TLMODEL\0"         8  u32 version        12 u32 byte order mark 0x01020304
 *     16 u64 file size       24 u64 body checksum  32 u64 key bytes
 *     40 u64 slices          48 i64 rank           56 u64 zero
 *   body: the key blob, then the rank (see put_rank: its strings, steps, loader states, lanes,
 *   the tables its load gathered, warnings), then END_MARK.
 *
 * Counts precede arrays; nothing in the file is a pointer, so the mapping needs no fix-ups. */
#include "config.h"
#include "store/cache_int.h"
#include "load/load.h"
#include "model/comm.h"
#include "model/lod.h"
#include "model/ops.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- checksum: a multiply-xorshift over 8-byte words, cheap enough to verify the whole body on
 * every open. The body's words go round-robin to eight independent lanes (each word's multiply
 * waits for the one before it in its own lane only), combined at the end with the word count.
 * Every step is a bijection of its lane for a fixed word, and of the word for a fixed lane, so
 * any change within one word (any flipped byte) always changes the sum. The lanes are kept in
 * general registers: GCC's vectoriser otherwise turns them into SSE2 code that emulates the
 * 64-bit multiply at half the speed (8 x 1M warm summary: 2.2 -> 4.2 GB/s, at memory speed). -- */

#define SUM_LANES 8

#if defined(__GNUC__) && !defined(__clang__)
#define SUM_SCALAR __attribute__((optimize("no-tree-vectorize")))
#else
#define SUM_SCALAR
#endif

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

typedef struct sum_lanes {
	uint64_t h[SUM_LANES];
	uint64_t n; /* words so far: the next goes to lane n % SUM_LANES */
} sum_lanes;

static void
lanes_init(sum_lanes *s)
{
	for (int i = 0; i < SUM_LANES; i++)
		s->h[i] = SUM_SEED + (uint64_t)i;
	s->n = 0;
}

/* n bytes, the last word zero-padded (as the file pads every item to 8 bytes) */
SUM_SCALAR static void
lanes_feed(sum_lanes *s, const uint8_t *p, size_t n)
{
	size_t i = 0;
	uint64_t w;
	for (; i + 8 <= n && (s->n % SUM_LANES) != 0; i += 8, s->n++) {
		memcpy(&w, p + i, 8);
		s->h[s->n % SUM_LANES] = sum_word(s->h[s->n % SUM_LANES], w);
	}
	if (i + 8 * SUM_LANES <= n) {
		uint64_t h0 = s->h[0], h1 = s->h[1], h2 = s->h[2], h3 = s->h[3];
		uint64_t h4 = s->h[4], h5 = s->h[5], h6 = s->h[6], h7 = s->h[7];
		for (; i + 8 * SUM_LANES <= n; i += 8 * SUM_LANES, s->n += SUM_LANES) {
			uint64_t w8[SUM_LANES];
			memcpy(w8, p + i, sizeof w8);
			h0 = sum_word(h0, w8[0]);
			h1 = sum_word(h1, w8[1]);
			h2 = sum_word(h2, w8[2]);
			h3 = sum_word(h3, w8[3]);
			h4 = sum_word(h4, w8[4]);
			h5 = sum_word(h5, w8[5]);
			h6 = sum_word(h6, w8[6]);
			h7 = sum_word(h7, w8[7]);
		}
		s->h[0] = h0, s->h[1] = h1, s->h[2] = h2, s->h[3] = h3;
		s->h[4] = h4, s->h[5] = h5, s->h[6] = h6, s->h[7] = h7;
	}
	for (; i + 8 <= n; i += 8, s->n++) {
		memcpy(&w, p + i, 8);
		s->h[s->n % SUM_LANES] = sum_word(s->h[s->n % SUM_LANES], w);
	}
	if (i < n) {
		w = 0;
		memcpy(&w, p + i, n - i);
		s->h[s->n % SUM_LANES] = sum_word(s->h[s->n % SUM_LANES], w);
		s->n++;
	}
}

static uint64_t
lanes_final(const sum_lanes *s)
{
	uint64_t h = SUM_SEED;
	for (int i = 0; i < SUM_LANES; i++)
		h = sum_word(h, s->h[i]);
	return sum_word(h, s->n);
}

uint64_t
cache_checksum(const void *buf, size_t len)
{
	sum_lanes s;
	lanes_init(&s);
	lanes_feed(&s, buf, len);
	return lanes_final(&s);
}

/* ---- writing: a growable buffer for the key, a stream for the file -------------------------- */

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
	FILE *f; /* when set, bytes go here instead */
	sum_lanes sum;
	uint64_t off;
	int err;
	uint64_t *tally; /* when set, bytes by section (SEC_*; TL_CACHE_LAYOUT) */
} wbuf;

/* The sections TL_CACHE_LAYOUT=1 counts the bytes of, in the order it prints them. */
enum {
	SEC_SLICES,
	SEC_OVERLAP,
	SEC_STEP,
	SEC_DEV,
	SEC_LOD,
	SEC_OPS,
	SEC_LAUNCHES,
	SEC_COMM_OPS,
	SEC_COMM_TASKS,
	SEC_COUNTERS,
	SEC_ARG,
	SEC__COUNT
};
static const char *const sec_name[SEC__COUNT] = {"slices",     "overlap",  "step",     "dev",
                                                 "lod",        "ops",      "launches", "comm_ops",
                                                 "comm_tasks", "counters", "arg"};

/* Counts the bytes written since off (an earlier w->off) to section sec. */
static void
tally(wbuf *w, int sec, uint64_t off)
{
	if (w->tally != NULL)
		w->tally[sec] += w->off - off;
}

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
		lanes_feed(&w->sum, p, n); /* the tail word is zero-padded, as on disk */
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
static const char *const writer_sides[CACHE_WRITER_SIDES] = {"-wal", "-journal"};

int
cache_writer_side(const tl_source *s, size_t i)
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
		for (size_t k = 0; k < CACHE_WRITER_SIDES; k++)
			put_u64(&w, (uint64_t)cache_writer_side(s, k));
		char *rdir = s->dir ? realpath(s->dir, NULL) : NULL;
		put_side_files(&w, rdir ? rdir : s->dir);
		free(rdir);
	}
	*len = w.n;
	return w.p;
}

/* ---- the tables a load gathered (tl_rank: ops, launch_steps, comm, counters) ---------------- */

static void
put_pool(wbuf *w, const tl_strpool *p)
{
	uint32_t np = strpool_count(p);
	put_u64(w, np);
	for (uint32_t i = 1; i < np; i++)
		put_str(w, strpool_get(p, i), strpool_len(p, i));
}

/* Each field of a struct as its own u64: no padding bytes, fixed width on every host. */
static void
put_tables(wbuf *w, const tl_rank *r)
{
	/* a file holds the operators with their starts, or none (a load kept no starts) */
	int ops = r->ops != NULL && !r->ops->nostart;
	put_u64(w, (ops ? TABLE_OPS : 0) | (r->have_launch_steps ? TABLE_LAUNCHES : 0) |
	               (r->comm ? TABLE_COMM : 0) | (r->counters_read ? TABLE_COUNTERS : 0));
	uint64_t off = w->off;
	if (ops) {
		const tl_op_data *d = r->ops;
		put_pool(w, d->pool);
		put_u64(w, d->n);
		for (size_t i = 0; i < d->n; i++) {
			const tl_op_group *g = &d->g[i];
			put_u64(w, g->name);
			put_u64(w, g->op_type);
			put_u64(w, g->task_type);
			put_u64(w, g->shapes);
			int64_t sum = 0;
			for (size_t t = 0; t < g->n; t++)
				sum = sat_add(sum, g->dur[t]);
			put_u64(w, (uint64_t)sum);
			put_arr(w, g->dur, g->n, sizeof *g->dur);
			put_arr(w, g->start, g->n, sizeof *g->start); /* beside each duration */
		}
	}
	tally(w, SEC_OPS, off);
	off = w->off;
	if (r->have_launch_steps) {
		put_u64(w, r->nlaunch_steps);
		for (size_t i = 0; i < r->nlaunch_steps; i++) {
			const tl_launch_step *x = &r->launch_steps[i];
			put_u64(w, (uint64_t)x->step_id);
			put_u64(w, x->launches);
			put_u64(w, (uint64_t)x->p50);
			put_u64(w, (uint64_t)x->p90);
			put_u64(w, (uint64_t)x->max);
			put_u64(w, (uint64_t)x->have_idle);
			put_u64(w, (uint64_t)x->idle);
			put_u64(w, (uint64_t)x->idle_host);
		}
		put_u64(w, r->nlaunch_gaps);
		for (size_t i = 0; i < r->nlaunch_gaps; i++) {
			const tl_launch_gap *x = &r->launch_gaps[i];
			put_u64(w, (uint64_t)x->step);
			put_u64(w, (uint64_t)x->start);
			put_u64(w, (uint64_t)x->end);
			put_u64(w, (uint64_t)x->host);
		}
	}
	tally(w, SEC_LAUNCHES, off);
	if (r->comm != NULL) {
		const tl_comm_data *d = r->comm;
		off = w->off;
		put_pool(w, d->pool);
		put_u64(w, d->nops);
		for (size_t i = 0; i < d->nops; i++) {
			const tl_comm_op *o = &d->ops[i];
			put_u64(w, (uint64_t)o->id);
			put_u64(w, (uint64_t)o->start);
			put_u64(w, (uint64_t)o->end);
			put_u64(w, o->name);
			put_u64(w, o->type);
			put_u64(w, o->group);
			put_u64(w, o->task0);
			put_u64(w, o->ntasks);
			put_u64(w, o->source);
		}
		tally(w, SEC_COMM_OPS, off);
		off = w->off;
		put_u64(w, d->ntasks);
		for (size_t i = 0; i < d->ntasks; i++) {
			const tl_comm_task *t = &d->tasks[i];
			put_u64(w, (uint64_t)t->start);
			put_u64(w, (uint64_t)t->end);
			put_u64(w, t->size);
			put_u64(w, (uint64_t)t->src);
			put_u64(w, (uint64_t)t->dst);
			put_u64(w, (uint64_t)t->plane);
			put_u64(w, (uint64_t)t->kind | (uint64_t)t->xport << 8);
		}
		tally(w, SEC_COMM_TASKS, off);
	}
	off = w->off;
	if (r->counters_read) {
		put_u64(w, r->ncounters);
		for (size_t i = 0; i < r->ncounters; i++) {
			const tl_counter *c = r->counters[i];
			put_u64(w, (uint64_t)c->kind);
			put_u64(w, c->group);
			put_u64(w, c->source);
			put_arr(w, c->t, c->n, sizeof *c->t);
			put_raw(w, c->v, c->n * sizeof *c->v);
		}
	}
	tally(w, SEC_COUNTERS, off);
}

/* ---- the rank ------------------------------------------------------------------------------- */

static void
put_rank(wbuf *w, const tl_rank *r, char *const *warn, size_t nwarn)
{
	put_u64(w, (uint64_t)(int64_t)r->rank);
	put_u64(w, (r->loaded ? RANK_LOADED : 0) | (r->host_only ? RANK_HOST_ONLY : 0) |
	               (r->own_overlap ? RANK_OWN_OVERLAP : 0));
	put_u64(w, r->rows);
	if (r->role != NULL)
		put_str(w, r->role, strlen(r->role));
	else
		put_u64(w, NO_STR);
	if (r->host != NULL) /* the host that wrote it: whose clock it keeps (load_clock) */
		put_str(w, r->host, strlen(r->host));
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
		put_u64(w, (t->step ? TRACK_STEP : 0) | (t->nstep_runs ? TRACK_STEP_RUNS : 0) |
		               (t->dev ? TRACK_DEV : 0) | TRACK_LOD | (t->arg ? TRACK_ARG : 0) |
		               (t->nlend ? TRACK_LEND : 0));
		uint64_t off = w->off;
		put_arr(w, t->v, t->n, sizeof *t->v);
		if (t->nlend)
			put_arr(w, t->lend, t->nlend, sizeof *t->lend);
		tally(w, t->kind == TL_LANE_OVERLAP ? SEC_OVERLAP : SEC_SLICES, off);
		off = w->off;
		if (t->arg)
			put_raw(w, t->arg, t->n * sizeof *t->arg);
		tally(w, SEC_ARG, off);
		off = w->off;
		if (t->step)
			put_raw(w, t->step, t->n * sizeof *t->step);
		else if (t->nstep_runs) {
			put_u64(w, t->nstep_runs);
			put_u64(w, t->step_cover);
			put_raw(w, t->step_runs, t->nstep_runs * sizeof *t->step_runs);
		}
		tally(w, SEC_STEP, off);
		off = w->off;
		if (t->dev)
			put_raw(w, t->dev, t->n * sizeof *t->dev);
		tally(w, SEC_DEV, off);
		off = w->off;
		/* the level of detail, made for the file one lane at a time (the viewer's session
		 * then checks it instead of building one in its own memory) */
		tl_lod *made = t->lod != NULL ? NULL : lod_build(t);
		const tl_lod *l = t->lod != NULL ? t->lod : made;
		put_raw(w, l->busy, lod_nbusy(t->n) * sizeof *l->busy);
		put_raw(w, l->node, lod_nnodes(t->n) * sizeof *l->node);
		tally(w, SEC_LOD, off);
		lod_free(made);
	}
	put_tables(w, r);
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

uint64_t
cache_rank_slices(const tl_rank *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		if (r->tracks[i]->kind != TL_LANE_OVERLAP) /* derived, not loaded */
			n += r->tracks[i]->n;
	return n;
}

/* TL_CACHE_LAYOUT=1: where a file's bytes went, one line per file on stderr (make bench, and
 * docs/performance.md's breakdown). */
static void
print_layout(const tl_rank *r, const uint64_t *sec, uint64_t size)
{
	uint64_t slices = cache_rank_slices(r), rest = size;
	char line[512];
	int len = snprintf(line, sizeof line, "cache layout: rank=%d slices=%llu bytes=%llu",
	                   r->rank, (unsigned long long)slices, (unsigned long long)size);
	for (int i = 0; i < SEC__COUNT && len > 0 && (size_t)len < sizeof line; i++) {
		rest -= sec[i];
		len += snprintf(line + len, sizeof line - (size_t)len, " %s=%llu", sec_name[i],
		                (unsigned long long)sec[i]);
	}
	fprintf(stderr, "%s other=%llu\n", line, (unsigned long long)rest);
}

int
cache_write_fd(int fd, const uint8_t *key, size_t klen, const tl_rank *r, char *const *warn,
               size_t nwarn, uint64_t *bytes)
{
	return cache_write_fd_sync(fd, key, klen, r, warn, nwarn, bytes, 1);
}

int
cache_write_fd_sync(int fd, const uint8_t *key, size_t klen, const tl_rank *r, char *const *warn,
                    size_t nwarn, uint64_t *bytes, int sync)
{
	FILE *f = fdopen(fd, "wb");
	if (f == NULL) {
		close(fd);
		return -1;
	}
	uint8_t hdr[TL_CACHE_HEADER] = {0};
	uint64_t sec[SEC__COUNT] = {0};
	const char *layout = getenv("TL_CACHE_LAYOUT");
	wbuf w = {.f = f, .tally = layout != NULL && *layout == '1' ? sec : NULL};
	lanes_init(&w.sum);
	if (fwrite(hdr, 1, sizeof hdr, f) != sizeof hdr)
		w.err = 1;
	put_raw(&w, key, klen);
	put_rank(&w, r, warn, nwarn);
	uint32_t ver = TL_CACHE_VERSION, bom = BYTE_ORDER_MARK;
	uint64_t size = TL_CACHE_HEADER + w.off, slices = cache_rank_slices(r), kl = klen;
	int64_t rank = r->rank;
	memcpy(hdr, CACHE_MAGIC, 8);
	memcpy(hdr + 8, &ver, 4);
	memcpy(hdr + 12, &bom, 4);
	memcpy(hdr + 16, &size, 8);
	uint64_t sum = lanes_final(&w.sum);
	memcpy(hdr + 24, &sum, 8);
	memcpy(hdr + 32, &kl, 8);
	memcpy(hdr + 40, &slices, 8);
	memcpy(hdr + 48, &rank, 8);
	/* the header last, then the data on disk before the rename makes it visible */
	if (fflush(f) != 0 || w.err)
		w.err = 1;
	else if (pwrite(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr || (sync && fsync(fd) != 0))
		w.err = 1;
	int e = errno;
	if (fclose(f) != 0 && !w.err) {
		e = errno;
		w.err = 1;
	}
	errno = e;
	*bytes = size;
	if (w.tally != NULL)
		print_layout(r, sec, size);
	return w.err ? -1 : 0;
}
