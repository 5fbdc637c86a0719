/* gzip input through zlib's inflate, bounded (gzin.h). One driver reads the members of a file
 * in turn into an output window its caller provides and refills: a growing buffer for a whole
 * file, a scratch window for the bytes at an offset. */
#include "config.h"
#include "util/gzin.h"
#include "util/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define IN_CHUNK ((size_t)1 << 16)

int
gzin_magic(const unsigned char *b, size_t n)
{
	return n >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8;
}

int
gzin_fd_is_gzip(int fd)
{
	unsigned char b[3];
	ssize_t k;
	do
		k = pread(fd, b, sizeof b, 0);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)sizeof b && gzin_magic(b, sizeof b);
}

uint64_t
gzin_size_hint(int fd)
{
	off_t end = lseek(fd, 0, SEEK_END);
	unsigned char b[4];
	if (end < 18 || pread(fd, b, 4, end - 4) != 4)
		return 0;
	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
}

uint64_t
gzin_limit(void)
{
	const char *env = getenv("TL_GZIP_MAX");
	if (env != NULL && *env) {
		unsigned long long v = text_parse_size(env);
		if (v > (uint64_t)SIZE_MAX / 2)
			v = (uint64_t)SIZE_MAX / 2; /* "no limit": what an allocation can be */
		if (v > 0)
			return v;
	}
	return TL_GZIP_MAX_DEFAULT;
}

/* Where the driver writes: buf[len..cap). When it is full the driver calls more(), which makes
 * room (returns 0), asks to stop (1) or fails (-1, with err set). */
typedef struct gz_sink gz_sink;
struct gz_sink {
	unsigned char *buf;
	size_t len, cap;
	int (*more)(gz_sink *, char *err, size_t errlen);
	void *ctx;
};

static void
say(char *err, size_t errlen, const char *fmt, ...)
{
	if (err == NULL || errlen == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Inflates every member of fd into s, at most limit bytes in all. Returns 0 at the end of the
 * last member, 1 when more() asked to stop, -1 with err set. *total: the bytes written. */
static int
inflate_fd(int fd, uint64_t limit, gz_sink *s, uint64_t *total, char *err, size_t errlen)
{
	unsigned char *in = malloc(IN_CHUNK);
	z_stream z;
	memset(&z, 0, sizeof z);
	*total = 0;
	if (in == NULL || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		free(in);
		say(err, errlen, "out of memory for the gzip decoder");
		return -1;
	}
	off_t pos = 0;
	int eof = 0, rc = -1, member_done = 0;
	uint64_t members = 0;
	for (;;) {
		if (z.avail_in == 0 && !eof) {
			ssize_t k = pread(fd, in, IN_CHUNK, pos);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0) {
				say(err, errlen, "cannot read: %s", strerror(errno));
				break;
			}
			if (k == 0)
				eof = 1;
			pos += k;
			z.next_in = in;
			z.avail_in = (uInt)k;
		}
		if (member_done) {
			/* after a member: the end, another member, or zero padding */
			while (z.avail_in > 0 && *z.next_in == 0) {
				z.next_in++;
				z.avail_in--;
			}
			if (z.avail_in == 0) {
				if (eof) {
					rc = 0;
					break;
				}
				continue;
			}
			if (*z.next_in != 0x1f) {
				say(err, errlen,
				    "not gzip data after the compressed stream (at compressed byte "
				    "%" PRIu64 ")",
				    (uint64_t)(pos - (off_t)z.avail_in));
				break;
			}
			inflateReset(&z);
			member_done = 0;
		}
		if (s->len == s->cap) {
			int m = s->more(s, err, errlen);
			if (m != 0) {
				rc = m;
				break;
			}
			continue;
		}
		size_t room = s->cap - s->len;
		z.next_out = s->buf + s->len;
		z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		uInt before = z.avail_out;
		int r = inflate(&z, Z_NO_FLUSH);
		size_t got = before - z.avail_out;
		s->len += got;
		*total += got;
		if (*total > limit) {
			say(err, errlen,
			    "uncompressed size passes the limit of %" PRIu64
			    " bytes (a gzip bomb?); TL_GZIP_MAX sets the limit",
			    limit);
			break;
		}
		if (r == Z_STREAM_END) {
			member_done = 1;
			members++;
			continue;
		}
		if ((r == Z_OK || r == Z_BUF_ERROR) && z.avail_in == 0 && eof && z.avail_out > 0) {
			/* room to write and nothing left to read, and the member is not over */
			if (members == 0 && *total == 0 && pos == 0)
				say(err, errlen, "empty file, not gzip data");
			else
				say(err, errlen,
				    "truncated gzip stream (it ends after %" PRIu64
				    " uncompressed bytes)",
				    *total);
			break;
		}
		if (r == Z_OK || (r == Z_BUF_ERROR && (z.avail_in == 0 || z.avail_out == 0)))
			continue;
		if (r == Z_MEM_ERROR)
			say(err, errlen, "out of memory in the gzip decoder");
		else
			say(err, errlen,
			    "corrupt gzip data after %" PRIu64 " uncompressed bytes%s%s", *total,
			    z.msg ? ": " : "", z.msg ? z.msg : "");
		break;
	}
	inflateEnd(&z);
	free(in);
	return rc;
}

/* ---- the whole file ---------------------------------------------------------------------- */

typedef struct grow {
	uint64_t limit;
} grow;

static int
grow_more(gz_sink *s, char *err, size_t errlen)
{
	const grow *g = s->ctx;
	/* one byte past the limit, so that a stream longer than it is seen to be */
	uint64_t cap = (uint64_t)s->cap * 2, top = g->limit + 1;
	if (cap > top)
		cap = top;
	if (cap <= s->cap || cap > SIZE_MAX - 1) {
		say(err, errlen, "uncompressed size passes the limit of %" PRIu64 " bytes",
		    g->limit);
		return -1;
	}
	unsigned char *b = realloc(s->buf, (size_t)cap + 1);
	if (b == NULL) {
		say(err, errlen, "out of memory after %zu uncompressed bytes", s->len);
		return -1;
	}
	s->buf = b;
	s->cap = (size_t)cap;
	return 0;
}

int
gzin_read_all(int fd, uint64_t limit, unsigned char **out, size_t *n, char *err, size_t errlen)
{
	*out = NULL;
	*n = 0;
	if (limit > (uint64_t)SIZE_MAX / 2)
		limit = (uint64_t)SIZE_MAX / 2;
	grow g = {limit};
	/* the trailer's size when it is believable (a single member of under 4 GiB), so that
	 * the usual file is read into one allocation of its size */
	uint64_t hint = gzin_size_hint(fd);
	size_t cap = hint > 0 && hint <= limit ? (size_t)hint + 1 : (size_t)1 << 20;
	if (cap > limit + 1)
		cap = (size_t)limit + 1;
	gz_sink s = {malloc(cap + 1), 0, cap, grow_more, &g};
	if (s.buf == NULL) {
		say(err, errlen, "out of memory");
		return -1;
	}
	uint64_t total;
	if (inflate_fd(fd, limit, &s, &total, err, errlen) != 0) {
		free(s.buf);
		return -1;
	}
	s.buf[s.len] = '\0';
	if (s.cap > s.len + ((size_t)1 << 20)) { /* the hint was high: give the rest back */
		unsigned char *b = realloc(s.buf, s.len + 1);
		if (b != NULL)
			s.buf = b;
	}
	*out = s.buf;
	*n = s.len;
	return 0;
}

/* ---- bytes at an offset ------------------------------------------------------------------ */

typedef struct window {
	uint64_t off;  /* of the caller's first byte in the stream */
	uint64_t base; /* stream offset of the scratch buffer's first byte */
	unsigned char *dst;
	size_t want, got;
} window;

static int
window_more(gz_sink *s, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	window *w = s->ctx;
	uint64_t lo = w->base, hi = w->base + s->len;
	uint64_t from = w->off + w->got;
	if (from >= lo && from < hi) {
		size_t k = (size_t)(hi - from);
		if (k > w->want - w->got)
			k = w->want - w->got;
		memcpy(w->dst + w->got, s->buf + (from - lo), k);
		w->got += k;
	}
	w->base = hi;
	s->len = 0;
	return w->got == w->want ? 1 : 0;
}

ssize_t
gzin_pread(int fd, uint64_t off, unsigned char *buf, size_t len, uint64_t limit)
{
	if (len == 0)
		return 0;
	window w = {off, 0, buf, len, 0};
	gz_sink s = {malloc(IN_CHUNK * 4), 0, IN_CHUNK * 4, window_more, &w};
	if (s.buf == NULL)
		return -1;
	uint64_t total;
	int rc = inflate_fd(fd, limit, &s, &total, NULL, 0);
	if (rc != 1 && s.len > 0)
		window_more(&s, NULL, 0); /* what the last window holds */
	free(s.buf);
	if (rc < 0 && w.got == 0 && total == 0)
		return -1;
	return (ssize_t)w.got;
}
