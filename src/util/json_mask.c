/* The JSON text as bit masks (json_mask.h): the classification of a 64-byte block, and the
 * window of the blocks classified. Stage 1 of simdjson's two (Langdale and Lemire, "Parsing
 * Gigabytes of JSON per Second", 2019): raw byte masks, then the escapes resolved by one
 * subtraction over the backslash runs, the inside of strings by a prefix XOR of the quotes. */
#include "config.h"
#include "util/json_mask.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define JM_SSE2 1
#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#define JM_NEON 1
#endif

/* ---- the raw masks ------------------------------------------------------------------------- */

#define ONES 0x0101010101010101ull
#define HIGH 0x8080808080808080ull

/* 0x80 in each byte of v equal to c, else 0 (exact: no carry crosses a byte). */
static inline uint64_t
eq8(uint64_t v, unsigned char c)
{
	uint64_t t = v ^ (ONES * c);
	return ~(((t & ~HIGH) + ~HIGH) | t) & HIGH;
}

/* The high bits of the 8 bytes of x (each 0x80 or 0) as 8 bits, byte 0 the lowest. */
static inline uint64_t
pack8(uint64_t x)
{
	return ((x >> 7) * 0x0102040810204080ull) >> 56;
}

static inline uint64_t
load_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
#else
	uint64_t v = 0;
	for (int k = 7; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
#endif
}

static inline void
classify_swar(const unsigned char *p, jm_raw *r)
{
	uint64_t q = 0, bs = 0, br = 0, stop = 0, high = 0;
	for (int w = 0; w < 8; w++) {
		uint64_t v = load_le64(p + 8 * w), lc = v | ONES * 0x20;
		uint64_t b = eq8(lc, '{') | eq8(lc, '}'); /* '[' and ']' too: 0x5B | 0x20 == '{' */
		uint64_t s = b | eq8(v, ',') | eq8(v, ':') | eq8(v, ' ') | eq8(v, '\n') |
		             eq8(v, '\r') | eq8(v, '\t');
		unsigned sh = 8 * (unsigned)w;
		q |= pack8(eq8(v, '"')) << sh;
		bs |= pack8(eq8(v, '\\')) << sh;
		br |= pack8(b) << sh;
		stop |= pack8(s) << sh;
		high |= pack8(v & HIGH) << sh;
	}
	r->q = q;
	r->bs = bs;
	r->br = br;
	r->stop = stop;
	r->high = high;
}

void
jm_classify_swar(const unsigned char *p, jm_raw *r)
{
	classify_swar(p, r);
}

#if JM_SSE2
static inline void
classify(const unsigned char *p, jm_raw *r)
{
	const __m128i cq = _mm_set1_epi8('"'), cbs = _mm_set1_epi8('\\'), c20 = _mm_set1_epi8(0x20);
	const __m128i co = _mm_set1_epi8('{'), cc = _mm_set1_epi8('}'), ccm = _mm_set1_epi8(',');
	const __m128i ccl = _mm_set1_epi8(':'), cnl = _mm_set1_epi8('\n');
	const __m128i ccr = _mm_set1_epi8('\r'), ctab = _mm_set1_epi8('\t');
	uint64_t q = 0, br = 0, stop = 0;
	__m128i v[4], rare = _mm_setzero_si128();
	for (int k = 0; k < 4; k++) {
		v[k] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
		__m128i lc = _mm_or_si128(v[k], c20);
		__m128i b = _mm_or_si128(_mm_cmpeq_epi8(lc, co), _mm_cmpeq_epi8(lc, cc));
		__m128i s = _mm_or_si128(_mm_cmpeq_epi8(v[k], ccm), _mm_cmpeq_epi8(v[k], ccl));
		__m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v[k], c20), _mm_cmpeq_epi8(v[k], cnl));
		ws = _mm_or_si128(
		    ws, _mm_or_si128(_mm_cmpeq_epi8(v[k], ccr), _mm_cmpeq_epi8(v[k], ctab)));
		s = _mm_or_si128(_mm_or_si128(s, b), ws);
		/* backslashes and bytes >= 0x80, seldom there: looked at closer below */
		rare = _mm_or_si128(rare, _mm_or_si128(v[k], _mm_cmpeq_epi8(v[k], cbs)));
		unsigned sh = 16 * (unsigned)k;
		q |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v[k], cq)) << sh;
		br |= (uint64_t)(unsigned)_mm_movemask_epi8(b) << sh;
		stop |= (uint64_t)(unsigned)_mm_movemask_epi8(s) << sh;
	}
	uint64_t bs = 0, high = 0;
	if (_mm_movemask_epi8(rare) != 0)
		for (int k = 0; k < 4; k++) {
			unsigned sh = 16 * (unsigned)k;
			bs |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v[k], cbs))
			      << sh;
			high |= (uint64_t)(unsigned)_mm_movemask_epi8(v[k]) << sh;
		}
	r->q = q;
	r->bs = bs;
	r->br = br;
	r->stop = stop;
	r->high = high;
}
#elif JM_NEON
/* The 16 lanes' top bits of 4 vectors as one 64-bit mask (lanes are 0 or 0xFF). */
static inline uint64_t
neon_mask64(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d)
{
	const uint8x16_t bit = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
	uint8x16_t s0 = vpaddq_u8(vandq_u8(a, bit), vandq_u8(b, bit));
	uint8x16_t s1 = vpaddq_u8(vandq_u8(c, bit), vandq_u8(d, bit));
	s0 = vpaddq_u8(s0, s1);
	s0 = vpaddq_u8(s0, s0);
	return vgetq_lane_u64(vreinterpretq_u64_u8(s0), 0);
}

static inline void
classify(const unsigned char *p, jm_raw *r)
{
	uint8x16_t q[4], bs[4], br[4], st[4], hi[4];
	for (int k = 0; k < 4; k++) {
		uint8x16_t v = vld1q_u8(p + 16 * k), lc = vorrq_u8(v, vdupq_n_u8(0x20));
		uint8x16_t b =
		    vorrq_u8(vceqq_u8(lc, vdupq_n_u8('{')), vceqq_u8(lc, vdupq_n_u8('}')));
		uint8x16_t s = vorrq_u8(vceqq_u8(v, vdupq_n_u8(',')), vceqq_u8(v, vdupq_n_u8(':')));
		uint8x16_t ws =
		    vorrq_u8(vceqq_u8(v, vdupq_n_u8(' ')), vceqq_u8(v, vdupq_n_u8('\n')));
		ws = vorrq_u8(
		    ws, vorrq_u8(vceqq_u8(v, vdupq_n_u8('\r')), vceqq_u8(v, vdupq_n_u8('\t'))));
		q[k] = vceqq_u8(v, vdupq_n_u8('"'));
		bs[k] = vceqq_u8(v, vdupq_n_u8('\\'));
		br[k] = b;
		st[k] = vorrq_u8(vorrq_u8(s, b), ws);
		hi[k] = vcgeq_u8(v, vdupq_n_u8(0x80));
	}
	r->q = neon_mask64(q[0], q[1], q[2], q[3]);
	r->bs = neon_mask64(bs[0], bs[1], bs[2], bs[3]);
	r->br = neon_mask64(br[0], br[1], br[2], br[3]);
	r->stop = neon_mask64(st[0], st[1], st[2], st[3]);
	r->high = neon_mask64(hi[0], hi[1], hi[2], hi[3]);
}
#else
static inline void
classify(const unsigned char *p, jm_raw *r)
{
	classify_swar(p, r);
}
#endif

void
jm_classify_raw(const unsigned char *p, jm_raw *r)
{
	classify(p, r);
}

/* ---- the window ---------------------------------------------------------------------------- */

void
jm_reset(jmask *m, const unsigned char *b, size_t n, size_t at)
{
	m->b = b;
	m->n = n;
	m->base = at;
	m->done = 0;
	m->esc = 0;
	m->instr = 0;
}

/* Each bit to the XOR of it and all the bits below it: set from an opening quote up to (not
 * including) its closing one. */
static inline uint64_t
prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

void
jm_next_block(jmask *m)
{
	size_t at = m->base + (m->done << 6);
	unsigned char pad[64];
	const unsigned char *p = m->b + at;
	uint64_t tail = 0; /* the offsets at or past the end */
	jm_raw r;
	if (at >= m->n || m->n - at < 64) {
		size_t have = at >= m->n ? 0 : m->n - at;
		memset(pad, ' ', sizeof pad);
		if (have > 0)
			memcpy(pad, p, have);
		p = pad;
		tail = ~(uint64_t)0 << have; /* have < 64 */
	}
	classify(p, &r);
	uint64_t escaped = 0;
	if (r.bs != 0 || m->esc != 0) {
		/* a backslash escapes the next byte unless it is escaped itself: in each run of
		 * backslashes every other one, from the run's first; the subtraction finds the
		 * runs that start on an even bit or an odd one at once */
		const uint64_t odd = 0xAAAAAAAAAAAAAAAAull;
		uint64_t start = r.bs & ~m->esc;
		uint64_t code = (((start << 1) | odd) - start) ^ odd;
		escaped = code ^ (r.bs | m->esc);
		m->esc = (code & r.bs) >> 63;
	}
	uint64_t quote = r.q & ~escaped;
	uint64_t instr = prefix_xor(quote) ^ m->instr;
	m->instr = instr >> 63 ? ~(uint64_t)0 : 0;
	jm_blk *k = &m->ring[m->done % JM_RING];
	k->quote = quote | tail;
	k->br = (r.br & ~instr) | tail;
	k->stop = r.stop | quote | tail;
	k->odd = r.high | (r.bs & ~instr) | tail;
	m->done++;
}

int
jm_any_odd(jmask *m, size_t s, size_t e)
{
	if (e <= s)
		return 0;
	size_t ks = (s - m->base) >> 6, ke = (e - 1 - m->base) >> 6;
	jm_blk_at(m, ke);
	if (m->done - ks > JM_RING)
		return 1;
	for (size_t k = ks; k <= ke; k++) {
		uint64_t w = m->ring[k % JM_RING].odd;
		if (k == ks)
			w &= ~(uint64_t)0 << ((s - m->base) & 63);
		if (k == ke && ((e - m->base) & 63) != 0)
			w &= ~(~(uint64_t)0 << ((e - m->base) & 63));
		if (w != 0)
			return 1;
	}
	return 0;
}
