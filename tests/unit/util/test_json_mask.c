/* The JSON text's bit masks (util/json_mask.h) against a byte-by-byte reading of the same text
 * written here: a backslash escapes the next byte unless escaped itself, a quote not escaped
 * opens or closes a string, and each mask's bit follows from that byte and that state. Random
 * texts over the bytes that matter (quotes, backslashes, brackets, white space, UTF-8 and
 * control bytes), runs of 1..130 backslashes before a quote at every place around a block's
 * edge, texts that end inside a string, classification started at any offset; and the portable
 * classifier on 64-bit words against the machine's one on every byte value. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_mask.h"
#include "util/xalloc.h"
#include "../test.h"

/* The masks' bits of b[at..n) by one byte at a time, into want[k] for byte at + k. */
typedef struct bits {
	unsigned char quote, br, stop, odd;
} bits;

static void
reference(const unsigned char *b, size_t n, size_t at, bits *want)
{
	int esc = 0, instr = 0;
	for (size_t i = at; i < n; i++) {
		unsigned c = b[i];
		int escaped = esc;
		esc = !escaped && c == '\\';
		int quote = c == '"' && !escaped;
		instr ^= quote; /* the opening quote in, the closing one out */
		int ws = c == ' ' || c == '\n' || c == '\r' || c == '\t';
		int br = c == '{' || c == '}' || c == '[' || c == ']';
		bits *w = &want[i - at];
		w->quote = (unsigned char)quote;
		w->br = (unsigned char)(br && !instr);
		w->stop = (unsigned char)(ws || br || c == ',' || c == ':' || quote);
		w->odd = (unsigned char)(c >= 0x80 || (c == '\\' && !instr));
	}
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static unsigned
next(unsigned m)
{
	return (unsigned)(test_xorshift(&rng) % m);
}

/* Whether m's masks of b[at..n) and the positions up to the next block's end past n agree with
 * the reference; the first difference to stderr. */
static int
agree(const unsigned char *b, size_t n, size_t at, const char *what)
{
	static jmask m;
	bits *want = xcalloc(n - at + 1, sizeof *want);
	reference(b, n, at, want);
	jm_reset(&m, b, n, at);
	size_t blocks = (n - at) / 64 + 1;
	for (size_t k = 0; k < blocks; k++) {
		const jm_blk *blk = jm_blk_at(&m, k);
		for (unsigned j = 0; j < 64; j++) {
			size_t i = at + 64 * k + j;
			bits w = i < n ? want[i - at] : (bits){1, 1, 1, 1}; /* past the end: all */
			bits got = {(unsigned char)(blk->quote >> j & 1),
			            (unsigned char)(blk->br >> j & 1),
			            (unsigned char)(blk->stop >> j & 1),
			            (unsigned char)(blk->odd >> j & 1)};
			if (memcmp(&w, &got, sizeof w) != 0) {
				fprintf(
				    stderr,
				    "# %s: byte %zu (0x%02x) of %zu from %zu: quote %d/%d br %d/%d "
				    "stop %d/%d odd %d/%d\n",
				    what, i, i < n ? b[i] : 0, n, at, got.quote, w.quote, got.br,
				    w.br, got.stop, w.stop, got.odd, w.odd);
				free(want);
				return 0;
			}
		}
	}
	free(want);
	return 1;
}

static void
random_texts(void)
{
	static const unsigned char alphabet[] = {'"', '"',  '\\', '\\', '\\', '{',  '}',  '[',
	                                         ']', ',',  ':',  ' ',  '\n', '\r', '\t', 'a',
	                                         '0', 0xC3, 0xA9, 0xFF, 0x01, 'x',  '"',  ' '};
	int bad = 0, texts = 3000;
	for (int t = 0; t < texts; t++) {
		size_t n = next(400);
		unsigned char *b = xmalloc(n + 1);
		for (size_t i = 0; i < n; i++)
			b[i] = alphabet[next(sizeof alphabet)];
		size_t at = n > 0 ? next((unsigned)n) : 0;
		/* from the start, and from an offset (both readings start there afresh) */
		bad += !agree(b, n, 0, "random");
		bad += !agree(b, n, at, "random, from an offset");
		free(b);
	}
	CHECK(bad == 0,
	      "%d random texts of quotes, backslashes, brackets, white space, UTF-8 and "
	      "control bytes: the masks as a byte-by-byte reading has them (%d not)",
	      texts, bad);
}

static void
backslash_runs(void)
{
	int bad = 0, cases = 0;
	unsigned char b[400];
	for (size_t run = 1; run <= 130; run++)
		for (size_t q = run; q < 200; q += 1 + (q > 140) * 7) { /* the quote at b[q] */
			memset(b, 'a', sizeof b);
			b[0] = '"';
			memset(b + q - run + 1, '\\', run - 1 > q ? q : run - 1);
			b[q] = '"';
			b[q + 1] = ',';
			b[q + 2] = '"';
			cases++;
			bad += !agree(b, q + 3 + next(60), 0, "backslash run");
		}
	CHECK(bad == 0,
	      "%d runs of backslashes before a quote, across a block's edge: the quote "
	      "escaped when the run is odd (%d not)",
	      cases, bad);
}

static void
utf8_and_open_strings(void)
{
	/* multi-byte characters over a block's edge, a text that ends inside a string */
	const char *texts[] = {
	    "{\"name\": \"\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\", \"x\": [1, 2, {\"\xc3\xa9\": "
	    "3}]}",
	    "[{\"a\": \"b\\\"}, {\\\\\", \"c\": \"d\"}]",
	    "{\"open\": \"this string never ends, {not: [a bracket]",
	    "{\"ph\": \"X\", \"a\": \"\\\\\\\\\\\"\", \"b\": \\\"junk\\\" }",
	};
	int bad = 0, cases = 0;
	for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
		size_t l = strlen(texts[t]);
		for (size_t pre = 0; pre < 64; pre++) { /* every place against the block's edge */
			unsigned char *b = xmalloc(pre + l);
			memset(b, ' ', pre);
			memcpy(b + pre, texts[t], l);
			for (size_t cut = pre; cut <= pre + l; cut += 7) {
				cases++;
				bad += !agree(b, cut, 0, texts[t]);
			}
			free(b);
		}
	}
	CHECK(bad == 0,
	      "%d texts with UTF-8, escaped quotes, backslashes outside strings, cut "
	      "anywhere and shifted against the blocks: the same masks (%d not)",
	      cases, bad);
}

static void
portable_classifier(void)
{
	int bad = 0;
	unsigned char b[64];
	for (int t = 0; t < 20000; t++) {
		for (int i = 0; i < 64; i++)
			b[i] = (unsigned char)(t < 4 ? (unsigned)(64 * t + i) : next(256));
		jm_raw a, w;
		jm_classify_raw(b, &a);
		jm_classify_swar(b, &w);
		bad += memcmp(&a, &w, sizeof a) != 0;
	}
	CHECK(bad == 0,
	      "the portable classifier on 64-bit words and this machine's give the same "
	      "raw masks for 20000 blocks, every byte value among them (%d not)",
	      bad);
}

int
main(void)
{
	random_texts();
	backslash_runs();
	utf8_and_open_strings();
	portable_classifier();
	return test_done();
}
