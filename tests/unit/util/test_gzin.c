/* util/gzin: gzip input, against what zlib's own deflate was given. A stream inflates to the
 * bytes that were compressed (one member, several, with zero padding), and the bytes at an
 * offset are those bytes; a truncated stream, a corrupt one, data after the stream and a bomb
 * past the limit each fail with a line saying which. */
#include "config.h"
#include "util/gzin.h"
#include "util/xalloc.h"
#include "../test.h"
#include "gzip_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static int
file_of(const char *dir, const char *name, const unsigned char *b, size_t n)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, b, n) == (ssize_t)n, "write %s", name);
	free(p);
	return fd;
}

/* Pseudo-random text that compresses about as JSON does. */
static unsigned char *
text_of(size_t n)
{
	unsigned char *t = xmalloc(n);
	uint64_t st = 42;
	static const char *const w[] = {"{\"ph\":\"X\",", "\"name\":\"ncclDevKernel_Generic\",",
	                                "\"ts\":", "123456789.125,", "\"args\":{}},\n"};
	for (size_t i = 0; i < n;) {
		const char *s = w[test_xorshift(&st) % 5];
		for (; *s && i < n; s++)
			t[i++] = (unsigned char)*s;
		if (i < n)
			t[i++] = (unsigned char)('0' + test_xorshift(&st) % 10);
	}
	return t;
}

int
main(void)
{
	char *dir = test_tmpdir("gzin");
	size_t n = (size_t)3 << 20; /* more than one window and one first guess */
	unsigned char *t = text_of(n), *out;
	size_t gn, got;
	char err[200];
	unsigned char *gz = gzip_of(t, n, 6, &gn);
	CHECK(gz != NULL, "deflate of %zu bytes", n);
	if (gz == NULL)
		return test_done();

	int fd = file_of(dir, "one.json.gz", gz, gn);
	CHECK(gzin_fd_is_gzip(fd), "the magic is seen");
	CHECK_EQ_I64((int64_t)gzin_size_hint(fd), (int64_t)n, "the trailer's size");
	CHECK(gzin_read_all(fd, (uint64_t)1 << 30, &out, &got, err, sizeof err) == 0,
	      "one member inflates");
	CHECK(got == n && memcmp(out, t, n) == 0 && out[n] == '\0',
	      "to the %zu bytes compressed, NUL after", n);
	free(out);
	/* bytes at offsets: the start, across window edges, past the end */
	static const uint64_t offs[] = {0, 1, 262143, 262144, 1000003, (3 << 20) - 10};
	for (size_t i = 0; i < sizeof offs / sizeof *offs; i++) {
		unsigned char w[100];
		ssize_t k = gzin_pread(fd, offs[i], w, sizeof w, (uint64_t)1 << 30);
		size_t want = n - offs[i] < sizeof w ? n - offs[i] : sizeof w;
		CHECK(k == (ssize_t)want && memcmp(w, t + offs[i], want) == 0,
		      "pread at %llu: %zd bytes, the same", (unsigned long long)offs[i], k);
	}
	unsigned char w1[10];
	CHECK(gzin_pread(fd, n + 5, w1, sizeof w1, (uint64_t)1 << 30) == 0, "pread past the end");
	CHECK(gzin_read_all(fd, n - 1, &out, &got, err, sizeof err) == -1 &&
	          strstr(err, "passes the limit") != NULL,
	      "one byte past the limit fails: %s", err);
	CHECK(gzin_read_all(fd, n, &out, &got, err, sizeof err) == 0 && got == n,
	      "exactly the limit reads");
	free(out);
	close(fd);

	/* truncated: the first half of the stream */
	fd = file_of(dir, "cut.json.gz", gz, gn / 2);
	CHECK(gzin_read_all(fd, (uint64_t)1 << 30, &out, &got, err, sizeof err) == -1 &&
	          strstr(err, "truncated") != NULL,
	      "a cut stream: %s", err);
	unsigned char w2[64];
	CHECK(gzin_pread(fd, 0, w2, sizeof w2, (uint64_t)1 << 30) == 64 && memcmp(w2, t, 64) == 0,
	      "its start still reads");
	close(fd);
	/* corrupt: a byte flipped in the deflate data */
	unsigned char *bad = xmalloc(gn);
	memcpy(bad, gz, gn);
	bad[gn / 3] ^= 0x55;
	fd = file_of(dir, "bad.json.gz", bad, gn);
	CHECK(gzin_read_all(fd, (uint64_t)1 << 30, &out, &got, err, sizeof err) == -1 &&
	          (strstr(err, "corrupt") != NULL || strstr(err, "truncated") != NULL),
	      "a flipped byte: %s", err);
	close(fd);
	/* two members, zero padding, then garbage */
	unsigned char *two = xmalloc(gn * 2 + 16);
	memcpy(two, gz, gn);
	memcpy(two + gn, gz, gn);
	memset(two + 2 * gn, 0, 8);
	fd = file_of(dir, "two.json.gz", two, 2 * gn + 8);
	CHECK(gzin_read_all(fd, (uint64_t)1 << 30, &out, &got, err, sizeof err) == 0 &&
	          got == 2 * n && memcmp(out, t, n) == 0 && memcmp(out + n, t, n) == 0,
	      "two members and zero padding: both, in order");
	free(out);
	close(fd);
	memcpy(two + 2 * gn, "garbage!", 8);
	fd = file_of(dir, "junk.json.gz", two, 2 * gn + 8);
	CHECK(gzin_read_all(fd, (uint64_t)1 << 30, &out, &got, err, sizeof err) == -1 &&
	          strstr(err, "not gzip data after") != NULL,
	      "data after the stream: %s", err);
	close(fd);
	/* a bomb: 64 MiB of zeros in about 64 KiB, against a 1 MiB limit */
	size_t zn = (size_t)64 << 20;
	unsigned char *zeros = xcalloc(1, zn);
	size_t bn;
	unsigned char *bomb = gzip_of(zeros, zn, 6, &bn);
	CHECK(bomb != NULL, "deflate of %zu bytes", zn);
	if (bomb == NULL)
		return test_done();
	fd = file_of(dir, "bomb.json.gz", bomb, bn);
	CHECK(bn < zn / 500, "the bomb is %zu bytes", bn);
	CHECK(gzin_read_all(fd, (uint64_t)1 << 20, &out, &got, err, sizeof err) == -1 &&
	          strstr(err, "passes the limit of 1048576 bytes") != NULL,
	      "a bomb stops at the limit: %s", err);
	close(fd);
	/* not gzip at all, and empty */
	fd = file_of(dir, "plain.json", t, 100);
	CHECK(!gzin_fd_is_gzip(fd), "plain JSON is not gzip");
	close(fd);
	fd = file_of(dir, "empty.gz", t, 0);
	CHECK(gzin_read_all(fd, 100, &out, &got, err, sizeof err) == -1 && strstr(err, "empty"),
	      "an empty file: %s", err);
	close(fd);
	/* the limit setting */
	unsetenv("TL_GZIP_MAX");
	CHECK(gzin_limit() == TL_GZIP_MAX_DEFAULT, "the default limit");
	setenv("TL_GZIP_MAX", "64M", 1);
	CHECK(gzin_limit() == (uint64_t)64 << 20, "TL_GZIP_MAX=64M");
	setenv("TL_GZIP_MAX", "99999999999999999999999", 1);
	CHECK(gzin_limit() == (uint64_t)SIZE_MAX / 2,
	      "a TL_GZIP_MAX past 2^64: as large as can be");
	fd = file_of(dir, "one-again.json.gz", gz, gn);
	CHECK(gzin_read_all(fd, gzin_limit(), &out, &got, err, sizeof err) == 0 && got == n,
	      "and a file reads under it");
	free(out);
	close(fd);
	setenv("TL_GZIP_MAX", "nonsense", 1);
	CHECK(gzin_limit() == TL_GZIP_MAX_DEFAULT, "a TL_GZIP_MAX that is no size: the default");
	free(zeros);
	free(bomb);
	free(two);
	free(bad);
	free(gz);
	free(t);
	test_rmtree(dir);
	return test_done();
}
