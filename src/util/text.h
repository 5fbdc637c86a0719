/* Text from profiles is untrusted: these make it safe to print on a terminal. */
#ifndef TL_TEXT_H
#define TL_TEXT_H
#include <stddef.h>
#include <stdio.h>

/* Copies s into out (always NUL-terminated): control characters become \xNN (or \n, \t, \r),
 * invalid UTF-8 becomes U+FFFD, or '?' when utf8 is 0 (and non-ASCII too then).
 * Returns out. */
char *text_sanitize(const char *s, char *out, size_t outlen, int utf8);
/* Writes s to f as a JSON string body (without the quotes), escaping as JSON requires (and
 * DEL and the C1 controls, which JSON allows raw but terminals act on), replacing invalid
 * UTF-8 with U+FFFD. */
void text_json_write(FILE *f, const char *s);
/* The same escaped body through put(ctx, bytes, n), in as few pieces as it can (a run of
 * characters that need no escape is one piece). */
void text_json_emit(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx);
/* Decodes one UTF-8 sequence at s (n bytes available). Returns its length (>=1) and sets *cp;
 * an invalid sequence returns 1 with *cp = 0xFFFD. */
int text_utf8_decode(const char *s, size_t n, unsigned *cp);
/* Encodes code point cp (below 0x110000) as UTF-8 into out; returns its length (1 to 4). */
int text_utf8_encode(unsigned cp, char out[4]);
/* A size as users write it in TL_CACHE_MAX or TL_MEM_AVAILABLE: "12G", "512 M", "100000"
 * (bytes; K, M, G, T binary, either case). 0 when it is not a size (nan, negative, empty);
 * UINT64_MAX when it is past 2^64. */
unsigned long long text_parse_size(const char *s);

#endif
