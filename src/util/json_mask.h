/* The JSON text as bit masks: each 64-byte block of a buffer classified at once (structural
 * bitmaps, the way simdjson's stage 1 does it): the quotes that open or close a string (the
 * backslash escapes resolved), the brackets outside strings, where a scalar stops (white space,
 * punctuation, a quote) and the bytes a fast walk cannot judge (>= 0x80, a backslash outside a
 * string). A window of the last JM_RING blocks is kept; the queries find the next set bit at or
 * after an offset, classifying the blocks ahead as they need them. Every offset at or past the end
 * of the buffer is set in every mask, so a query always ends, at n at the latest. Pure: bytes in,
 * masks out (SSE2 on x86_64, NEON on aarch64, 64-bit words elsewhere). */
#ifndef TL_UTIL_JSON_MASK_H
#define TL_UTIL_JSON_MASK_H
#include <stddef.h>
#include <stdint.h>

#define JM_RING 64 /* blocks of 64 bytes the window holds (4 KiB of text) */

/* One block's masks, bit k for byte k of the block. */
typedef struct jm_blk {
	uint64_t quote; /* '"' that opens or closes a string (not escaped) */
	uint64_t br;    /* { } [ ] outside strings */
	uint64_t stop;  /* where a scalar ends: white space, , : { } [ ], or a quote of `quote` */
	uint64_t odd;   /* bytes >= 0x80, and backslashes outside strings */
} jm_blk;

typedef struct jmask {
	const unsigned char *b;
	size_t n;
	size_t base;    /* the offset of block 0: where the classification (re)started */
	size_t done;    /* blocks classified since base */
	uint64_t esc;   /* 1: the next block's first byte is escaped */
	uint64_t instr; /* all ones: the next block starts inside a string */
	jm_blk ring[JM_RING];
} jmask;

/* The raw masks of the 64 bytes at p (bit k: p[k] is '"', '\\', a bracket, a byte where a
 * scalar stops but a quote, >= 0x80). The portable one on 64-bit words, and the one this
 * machine uses (the same answers; json_mask.c). */
typedef struct jm_raw {
	uint64_t q, bs, br, stop, high;
} jm_raw;
void jm_classify_swar(const unsigned char *p, jm_raw *r);
void jm_classify_raw(const unsigned char *p, jm_raw *r);

/* Starts the classification at b[at], which must be outside any string. */
void jm_reset(jmask *m, const unsigned char *b, size_t n, size_t at);
/* Classifies the next block into the window. */
void jm_next_block(jmask *m);

/* Block k (from base) of the window, classified now if it is not yet. k must not be more than
 * JM_RING blocks behind the last classified one. */
static inline const jm_blk *
jm_blk_at(jmask *m, size_t k)
{
	while (k >= m->done)
		jm_next_block(m);
	return &m->ring[k % JM_RING];
}

#define JM_NEXT(name, field)                                                                       \
	static inline size_t name(jmask *m, size_t p)                                              \
	{                                                                                          \
		size_t rel = p - m->base, k = rel >> 6;                                            \
		uint64_t w = jm_blk_at(m, k)->field & (~(uint64_t)0 << (rel & 63));                \
		while (w == 0)                                                                     \
			w = jm_blk_at(m, ++k)->field;                                              \
		return m->base + (k << 6) + (size_t)jm_ctz(w);                                     \
	}

static inline unsigned
jm_ctz(uint64_t w)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_ctzll(w);
#else
	unsigned k = 0;
	while (!(w & 1)) {
		w >>= 1;
		k++;
	}
	return k;
#endif
}

/* The first offset >= p (p >= base) of a string's quote, a bracket outside strings, a scalar's
 * stop; n or more when there is none before the end. */
JM_NEXT(jm_next_quote, quote)
JM_NEXT(jm_next_br, br)
JM_NEXT(jm_next_stop, stop)
#undef JM_NEXT

/* Whether b[s..e) holds an odd byte (see jm_blk); 1 too when s is out of the window. */
int jm_any_odd(jmask *m, size_t s, size_t e);

#endif
