/* gzip input: a compressed trace (torch's use_gzip=True writes *.pt.trace.json.gz) read through
 * zlib into memory, never unpacked to disk. Every read is bounded: the uncompressed bytes a
 * caller accepts are a limit it passes, and a stream that would exceed it (a gzip bomb), ends
 * early (truncated) or is corrupt fails with one line saying which. */
#ifndef TL_UTIL_GZIN_H
#define TL_UTIL_GZIN_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether the bytes start a gzip member (1f 8b 08). */
int gzin_magic(const unsigned char *b, size_t n);
/* Whether the file at fd starts a gzip member (read with pread at 0; the offset is kept). */
int gzin_fd_is_gzip(int fd);
/* The uncompressed size the last member's trailer records (ISIZE: modulo 2^32), 0 when the
 * file is too short. A hint for a first allocation and for memory estimates, never trusted. */
uint64_t gzin_size_hint(int fd);
/* The bound on the uncompressed bytes of one file: TL_GZIP_MAX (bytes, or with a K/M/G/T
 * suffix) when set, else TL_GZIP_MAX_DEFAULT. */
#define TL_GZIP_MAX_DEFAULT ((uint64_t)4 << 30)
uint64_t gzin_limit(void);

/* Decompresses the whole of fd (every member, from offset 0) into a malloc'd buffer of *n
 * bytes (one more, a NUL, is allocated past them). Returns 0, or -1 with why in err: the
 * uncompressed size passes limit, the stream is truncated or corrupt, or memory ran out. */
int gzin_read_all(int fd, uint64_t limit, unsigned char **out, size_t *n, char *err, size_t errlen);
/* Up to len uncompressed bytes from offset off of fd's stream into buf (decompressed from the
 * start, the bytes before off thrown away). Returns the count (short at the end of the stream
 * or of a damaged one), -1 when the stream cannot be read at all. */
ssize_t gzin_pread(int fd, uint64_t off, unsigned char *buf, size_t len, uint64_t limit);

#endif
