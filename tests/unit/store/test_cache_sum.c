/* The model cache's body checksum (cache_checksum): any change within one word, every flipped
 * byte and bit of a body that spans several rounds of its lanes, changes it; so does moving
 * a word to another lane's place. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store/cache.h"
#include "../test.h"

#define LEN 1029 /* 128 full words and a 5-byte tail: every lane, several rounds, padding */

int
main(void)
{
	uint8_t b[LEN];
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < LEN; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		b[i] = (uint8_t)x;
	}
	uint64_t sum = cache_checksum(b, LEN);
	int missed = 0, tried = 0;
	for (size_t i = 0; i < LEN; i++)
		for (int flip = 1; flip <= 0x100; flip <<= 1) {
			uint8_t m = flip == 0x100 ? 0xff : (uint8_t)flip;
			b[i] ^= m;
			missed += cache_checksum(b, LEN) == sum;
			tried++;
			b[i] ^= m;
		}
	CHECK(missed == 0, "every flipped bit and byte changes the checksum (%d of %d missed)",
	      missed, tried);
	CHECK(cache_checksum(b, LEN) == sum, "the same bytes, the same checksum");
	/* words 3 and 12 go to different lanes: swapping them must change the sum */
	uint8_t w[8];
	memcpy(w, b + 24, 8);
	memmove(b + 24, b + 96, 8);
	memcpy(b + 96, w, 8);
	CHECK(cache_checksum(b, LEN) != sum, "two words swapped change the checksum");
	CHECK(cache_checksum(b, LEN - 8) != cache_checksum(b, LEN),
	      "a body a word shorter sums differently");
	return test_done();
}
