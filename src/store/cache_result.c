/* Stored results (cache.h says what and why): a command's whole output over ranks whose model
 * the cache holds, kept beside the rank files and keyed by everything that decides it, and the
 * binary parts kept the same way (the critical path of a profile).
 *
 * A result file (RESULT_EXT) is
 *   "TLRESULT" | u32 version | u32 byte-order mark | u64 file size | u64 body checksum
 *   | u64 key length
 *   body: key bytes | u64 kind | RESULT_TEXT: u64 status | u64 stdout length | stdout
 *                                            | u64 stderr length | stderr
 *                              | RESULT_PART: u64 length | bytes
 * little-endian as written (a host of the other byte order refuses it by the mark); the
 * checksum is the model files' (cache_checksum: 8-byte words, 8 lanes). The whole key is stored
 * and compared: a hash collision of two keys' file names is a miss, never the other command's
 * output. The kind keeps the two apart: a text result is printed as it is, so its bytes must be
 * ones tl prints (printable); a part is never printed, only decoded by its reader, and a file
 * of one kind is never taken for the other. */
#include "config.h"
#include "store/cache_int.h"
#include "load/load.h"
#include "profile/discover.h"
#include "util/confpath.h"
#include "util/hash.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RESULT_MAGIC "TLRESULT" /* 8 bytes, no NUL */
#define RESULT_VERSION 2u       /* 1: FNV-1a byte by byte, no kind, the critical path as text */
#define RESULT_MAX (UINT64_C(1) << 30) /* bytes: a bigger file is not one tl wrote */

enum { RESULT_TEXT = 1, RESULT_PART = 2 }; /* a result file's kind */

typedef struct rbuf {
	uint8_t *p;
	size_t n, cap;
} rbuf;

static void
put(rbuf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->n + n)
			cap *= 2;
		b->p = xrealloc(b->p, cap);
		b->cap = cap;
	}
	if (n > 0)
		memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void
put64(rbuf *b, uint64_t v)
{
	put(b, &v, sizeof v);
}

static void
put_bytes(rbuf *b, const void *p, size_t n)
{
	put64(b, n);
	put(b, p, n);
}

uint8_t *
cache_result_key(const tl_sourcelist *sl, const char *const *words, size_t nwords, size_t *len)
{
	rbuf b = {0};
	put_bytes(&b, RESULT_MAGIC, 8);
	put64(&b, nwords);
	for (size_t i = 0; i < nwords; i++)
		put_bytes(&b, words[i] ? words[i] : "", words[i] ? strlen(words[i]) : 0);
	/* every rank's model key, grouped as the load groups its sources (a rank's sources are
	 * adjacent in the list; a source of unknown rank is a rank of its own): the files'
	 * identities, the tl build and the cache format */
	put64(&b, sl->n);
	for (size_t i = 0; i < sl->n;) {
		size_t k = i + 1;
		if (sl->v[i].rank >= 0)
			while (k < sl->n && sl->v[k].rank == sl->v[i].rank)
				k++;
		size_t klen;
		uint8_t *key = cache_key(&sl->v[i], k - i, &klen);
		put_bytes(&b, key, klen);
		free(key);
		i = k;
	}
	*len = b.n;
	return b.p;
}

/* Appends file's bytes to b ("(none)" when it cannot be read). */
static void
put_file(rbuf *b, const char *file)
{
	FILE *f = file != NULL ? fopen(file, "rb") : NULL;
	if (f == NULL) {
		put(b, "(none)", 6);
		return;
	}
	char buf[4096];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		put(b, buf, k);
	fclose(f);
}

char *
cache_result_env(const char *rules_path)
{
	/* the stage rules a session reads (query_opts.rules_path, else the config's file), and
	 * the environment that can change a report's bytes: the time zone, the locale and the
	 * HBM capacity the memory_peak finding compares with */
	static const char *const vars[] = {
	    "TZ",      "LANG",       "LC_ALL",   "LC_CTYPE",
	    "LC_TIME", "LC_NUMERIC", "LANGUAGE", "TL_HBM_CAPACITY_GIB"};
	rbuf b = {0};
	char *conf = rules_path == NULL ? config_path("stages") : NULL;
	put(&b, "rules\n", 6);
	put_file(&b, rules_path != NULL ? rules_path : conf);
	free(conf);
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		put(&b, "\n", 1);
		put(&b, vars[i], strlen(vars[i]));
		if (v != NULL) {
			put(&b, "=", 1);
			put(&b, v, strlen(v));
		}
	}
	put(&b, "", 1);
	return (char *)b.p;
}

uint8_t *
cache_result_key_path(const char *path, const tl_rankset *ranks, const char *rules_path, int argc,
                      char *const *argv, size_t *len)
{
	tl_sourcelist sl = {0};
	uint8_t *key = NULL;
	if (discover(path, ranks, &sl) == 0 && sl.n > 0) {
		/* the command line as one word: each argument's length, ':' and its bytes */
		rbuf line = {0};
		char num[24];
		for (int i = 0; i < argc; i++) {
			put(&line, num, (size_t)snprintf(num, sizeof num, "%zu:", strlen(argv[i])));
			put(&line, argv[i], strlen(argv[i]));
		}
		put(&line, "", 1);
		char *env = cache_result_env(rules_path);
		const char *words[2] = {(const char *)line.p, env};
		key = cache_result_key(&sl, words, 2, len);
		free(env);
		free(line.p);
	}
	sourcelist_free(&sl);
	return key;
}

static char *
result_file(const tl_cache *c, const uint8_t *key, size_t klen)
{
	return xasprintf("%s/%016llx%s", c->dir,
	                 (unsigned long long)util_hash_bytes((const char *)key, klen), RESULT_EXT);
}

typedef struct rd {
	const uint8_t *p;
	size_t n, off;
	int bad;
} rd;

static uint64_t
get64(rd *r)
{
	uint64_t v = 0;
	if (r->bad || r->n - r->off < 8) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p + r->off, 8);
	r->off += 8;
	return v;
}

static const uint8_t *
get_bytes(rd *r, uint64_t *len)
{
	*len = get64(r);
	if (r->bad || *len > r->n - r->off) {
		r->bad = 1;
		*len = 0;
		return NULL;
	}
	const uint8_t *p = r->p + r->off;
	r->off += (size_t)*len;
	return p;
}

static char *
dup_bytes(const uint8_t *p, uint64_t n)
{
	char *s = xmalloc((size_t)n + 1);
	if (n > 0)
		memcpy(s, p, (size_t)n);
	s[n] = '\0';
	return s;
}

/* 1 when b[0..n) is text tl could have printed: UTF-8 without a control character but the
 * newline (every name and warning it prints goes through text_sanitize, which escapes the
 * others, DEL and the C1 controls, and replaces invalid UTF-8). */
static int
printable(const char *b, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char u = (unsigned char)b[i];
		if (u >= 0x20 && u < 0x7f) {
			i++;
			continue;
		}
		if (u == '\n') {
			i++;
			continue;
		}
		unsigned cp;
		int l = text_utf8_decode(b + i, n - i, &cp);
		if (cp < 0xa0 || (cp == 0xfffd && l == 1)) /* a control, or not UTF-8 */
			return 0;
		i += (size_t)l;
	}
	return 1;
}

/* The body of the result file b[0..len) under key, checked: NULL with *r after its kind word
 * (*kind), or NULL with r->p NULL (another key's file: a miss), or why it is no result file. */
static const char *
body_open(const uint8_t *b, size_t len, const uint8_t *key, size_t klen, rd *r, uint64_t *kind)
{
	uint64_t sum, kl;
	memset(r, 0, sizeof *r);
	const char *why =
	    cache_header_check(b, len, RESULT_HEADER, RESULT_MAGIC, RESULT_VERSION, &sum, &kl);
	if (why != NULL)
		return why;
	if (cache_checksum(b + RESULT_HEADER, len - RESULT_HEADER) != sum)
		return "its checksum does not match (corrupt)";
	if (kl != klen || kl > len - RESULT_HEADER || memcmp(b + RESULT_HEADER, key, klen) != 0)
		return NULL; /* another key under the same name: a miss, not a fault */
	*r = (rd){b + RESULT_HEADER, len - RESULT_HEADER, (size_t)kl, 0};
	*kind = get64(r);
	if (r->bad)
		return "its sizes are inconsistent";
	if (*kind != RESULT_TEXT && *kind != RESULT_PART)
		return "it is of a kind tl does not write";
	return NULL;
}

const char *
cache_result_decode(const uint8_t *b, size_t len, const uint8_t *key, size_t klen, tl_result *out)
{
	memset(out, 0, sizeof *out);
	rd r;
	uint64_t kind = 0;
	const char *why = body_open(b, len, key, klen, &r, &kind);
	if (why != NULL || r.p == NULL)
		return why;
	if (kind != RESULT_TEXT) /* never printed: its bytes are no command's output */
		return "it holds a binary part, not a command's output";
	uint64_t status = get64(&r), nout, nerr;
	const uint8_t *o = get_bytes(&r, &nout), *e = get_bytes(&r, &nerr);
	if (r.bad || r.off != r.n || status > 255)
		return "its sizes are inconsistent";
	/* the bytes go to a terminal as they are: any tl never prints (an escape sequence, a
	 * bell) mean the file is not tl's output */
	if (!printable((const char *)o, (size_t)nout) || !printable((const char *)e, (size_t)nerr))
		return "it holds bytes tl never prints (a control character or invalid UTF-8)";
	out->status = (int)status;
	out->out = dup_bytes(o, nout);
	out->nout = (size_t)nout;
	out->err = dup_bytes(e, nerr);
	out->nerr = (size_t)nerr;
	return NULL;
}

const char *
cache_part_decode(const uint8_t *b, size_t len, const uint8_t *key, size_t klen,
                  const uint8_t **part, size_t *n)
{
	*part = NULL;
	*n = 0;
	rd r;
	uint64_t kind = 0;
	const char *why = body_open(b, len, key, klen, &r, &kind);
	if (why != NULL || r.p == NULL)
		return why;
	if (kind != RESULT_PART)
		return "it holds a command's output, not a binary part";
	uint64_t np;
	const uint8_t *p = get_bytes(&r, &np);
	if (r.bad || r.off != r.n)
		return "its sizes are inconsistent";
	*part = p;
	*n = (size_t)np;
	return NULL;
}

/* What a read file is taken for: a text result into out, else a part handed to take. */
typedef struct reader {
	const uint8_t *key;
	size_t klen;
	tl_result *out; /* NULL: a part */
	cache_part_take take;
	void *ctx;
} reader;

/* The file b[0..len) through rr: NULL with *hit 1 (taken) or 0 (a miss), or why not. */
static const char *
reader_decode(const reader *rr, const uint8_t *b, size_t len, int *hit)
{
	*hit = 0;
	if (rr->out != NULL) {
		const char *why = cache_result_decode(b, len, rr->key, rr->klen, rr->out);
		*hit = why == NULL && rr->out->out != NULL;
		return why;
	}
	const uint8_t *p;
	size_t n;
	const char *why = cache_part_decode(b, len, rr->key, rr->klen, &p, &n);
	if (why == NULL && p != NULL) {
		why = rr->take(p, n, rr->ctx);
		*hit = why == NULL;
	}
	return why;
}

/* A mapped part cut short by another process while it is decoded (files are replaced by
 * rename, never rewritten, but a process of a trusted owner could truncate one) raises SIGBUS
 * on its lost pages: the decode runs with the loaders' handler armed (load/guard.c), which
 * returns to its recovery point, and the part is refused ("it shrank"), what the decoder had
 * allocated by then lost. */
static const char *
decode_mapped(const reader *rr, const uint8_t *map, size_t len, int *hit)
{
	load_bus_arm(1);
	sigjmp_buf env, *volatile saved = load_bus_env;
	const char *volatile why = NULL;
	*hit = 0;
	if (sigsetjmp(env, 1) == 0) {
		load_bus_env = &env;
		why = reader_decode(rr, map, len, hit);
	} else {
		why = "it shrank while tl was reading it";
		*hit = 0;
	}
	load_bus_env = saved;
	load_bus_arm(0);
	return why;
}

/* What reading one result file came to: 1 taken by rr; 0 a miss (none, another key's); -1 a
 * bad file (*why); -2 its owner *owner is not trusted. */
static int
result_read(const char *file, const reader *rr, const char **why, uid_t *owner)
{
	*why = NULL;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	uint8_t *buf = NULL, *mapped = NULL;
	size_t maplen = 0;
	int rc = 0;
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = 0; /* none: a miss */
	} else if (!cache_trust_uid(st.st_uid)) {
		/* a checksum proves nothing of who wrote it, and its bytes go to a terminal */
		*owner = st.st_uid;
		rc = -2;
	} else if ((uint64_t)st.st_size > RESULT_MAX) {
		*why = "larger than any result tl writes";
		rc = -1;
	} else {
		size_t len = (size_t)st.st_size, got = 0;
		void *map = MAP_FAILED;
		/* a part (tens of MB) is mapped, its pages filled in at once, where a read would
		 * copy it into as many new pages; a command's output (small) is read */
		if (rr->out == NULL && len > 0)
			map = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (map != MAP_FAILED) {
			mapped = map;
			maplen = len;
			got = len;
		} else {
			buf = xmalloc(len ? len : 1);
			while (got < len) {
				ssize_t k = read(fd, buf + got, len - got);
				if (k <= 0)
					break;
				got += (size_t)k;
			}
		}
		int hit = 0;
		if (got != len)
			*why = "it shrank while tl was reading it";
		else
			*why = mapped != NULL ? decode_mapped(rr, mapped, len, &hit)
			                      : reader_decode(rr, buf, len, &hit);
		rc = *why != NULL ? -1 : hit;
		if (rc == 1 && st.st_uid == geteuid())
			futimens(fd, NULL); /* its last use, for the LRU bound */
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	if (mapped != NULL)
		munmap(mapped, maplen);
	return rc;
}

/* The file under key through rr: 1 when taken. */
static int
result_get(tl_cache *c, const uint8_t *key, size_t klen, const reader *rr)
{
	if (c == NULL || c->dir == NULL || c->distrust_dir != NULL)
		return 0;
	/* its name, else the user's own alternative name (cache_place) */
	char *name[2];
	name[0] = result_file(c, key, klen);
	name[1] = cache_alt_name(name[0]);
	int rc[2] = {0, 0};
	const char *why[2] = {NULL, NULL};
	uid_t owner[2] = {0, 0};
	for (size_t i = 0; i < 2 && (i == 0 || rc[0] != 1); i++)
		rc[i] = result_read(name[i], rr, &why[i], &owner[i]);
	if (rc[0] != 1 && rc[1] != 1)
		for (size_t i = 0; i < 2; i++) {
			if (rc[i] == -1)
				msg_warn(name[i], "stored result not used: %s; computing it again",
				         why[i]);
			else if (rc[i] == -2)
				cache_note_ignored(c, name[i], owner[i]);
		}
	free(name[0]);
	free(name[1]);
	return rc[0] == 1 || rc[1] == 1;
}

int
cache_result_get(tl_cache *c, const uint8_t *key, size_t klen, tl_result *out)
{
	memset(out, 0, sizeof *out);
	reader rr = {key, klen, out, NULL, NULL};
	return result_get(c, key, klen, &rr);
}

int
cache_part_get(tl_cache *c, const uint8_t *key, size_t klen, cache_part_take take, void *ctx)
{
	reader rr = {key, klen, NULL, take, ctx};
	return result_get(c, key, klen, &rr);
}

/* Writes b (RESULT_HEADER bytes to fill, then the body: the key first) as the file of key (a
 * temporary file renamed into place). Returns 1 when stored. Frees b. */
static int
result_write(tl_cache *c, const uint8_t *key, size_t klen, rbuf *b)
{
	uint32_t ver = RESULT_VERSION, bom = BYTE_ORDER_MARK;
	uint64_t size = b->n, sum = cache_checksum(b->p + RESULT_HEADER, b->n - RESULT_HEADER),
	         kl = klen;
	memcpy(b->p, RESULT_MAGIC, 8);
	memcpy(b->p + 8, &ver, 4);
	memcpy(b->p + 12, &bom, 4);
	memcpy(b->p + 16, &size, 8);
	memcpy(b->p + 24, &sum, 8);
	memcpy(b->p + 32, &kl, 8);
	char *file = result_file(c, key, klen), *placed = NULL;
	char *tmp = xasprintf("%s/" TMP_PREFIX "%ld-r%s", c->dir, (long)getpid(), RESULT_EXT);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int ok = fd >= 0;
	for (size_t off = 0; ok && off < b->n;) {
		ssize_t k = write(fd, b->p + off, b->n - off);
		if (k <= 0)
			ok = 0;
		else
			off += (size_t)k;
	}
	if (ok && fsync(fd) != 0)
		ok = 0;
	if (fd >= 0 && close(fd) != 0)
		ok = 0;
	/* a rename replaces a file whole: a reader sees the old result or the new, never half;
	 * never another user's file */
	if (ok && cache_place(tmp, file, &placed) != 0)
		ok = 0;
	free(placed);
	if (!ok && fd >= 0)
		unlink(tmp);
	free(tmp);
	free(file);
	free(b->p);
	return ok;
}

int
cache_result_put(tl_cache *c, const uint8_t *key, size_t klen, const tl_result *res)
{
	if (!cache_will_write(c) || res->nout + res->nerr + klen > RESULT_MAX / 2)
		return 0;
	rbuf b = {0};
	uint8_t head[RESULT_HEADER] = {0};
	put(&b, head, sizeof head);
	put(&b, key, klen);
	put64(&b, RESULT_TEXT);
	put64(&b, (uint64_t)res->status);
	put_bytes(&b, res->out, res->nout);
	put_bytes(&b, res->err, res->nerr);
	return result_write(c, key, klen, &b);
}

int
cache_part_put(tl_cache *c, const uint8_t *key, size_t klen, const void *p, size_t n)
{
	if (!cache_will_write(c) || n + klen > RESULT_MAX / 2)
		return 0;
	rbuf b = {0};
	b.cap = RESULT_HEADER + klen + 16 + n; /* one allocation: a path is tens of MB */
	b.p = xmalloc(b.cap);
	uint8_t head[RESULT_HEADER] = {0};
	put(&b, head, sizeof head);
	put(&b, key, klen);
	put64(&b, RESULT_PART);
	put_bytes(&b, p, n);
	return result_write(c, key, klen, &b);
}

void
cache_result_free(tl_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

int
cache_all_kept(const tl_cache *c)
{
	if (c == NULL || c->dir == NULL || c->nrecs == 0 || c->complained)
		return 0;
	for (size_t i = 0; i < c->nrecs; i++)
		if (c->recs[i].status == TL_CACHE_UNWRITTEN)
			return 0;
	return 1;
}
