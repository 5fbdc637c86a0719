/* FNV-1a, the one string hash of tl: string pools, and keys the analyses build from names
 * (communication groups, op names). Not for untrusted-key hash tables that must resist
 * collisions on purpose (none of tl's do: every table also compares the keys). */
#ifndef TL_HASH_H
#define TL_HASH_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t
util_hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static inline uint64_t
util_hash_str(const char *s)
{
	return util_hash_bytes(s, strlen(s));
}

#endif
