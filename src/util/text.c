#include "config.h"
#include "util/text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

unsigned long long
text_parse_size(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !(v >= 0)) /* nothing, negative, or nan */
		return 0;
	while (isspace((unsigned char)*end))
		end++;
	switch (toupper((unsigned char)*end)) {
	case 'T':
		v *= 1024;
		/* fall through */
	case 'G':
		v *= 1024;
		/* fall through */
	case 'M':
		v *= 1024;
		/* fall through */
	case 'K':
		v *= 1024;
		break;
	default:
		break;
	}
	/* the cast is defined below 2^64 only (inf included above) */
	return v >= 18446744073709551616.0 ? ~0ULL : (unsigned long long)v;
}

int
text_utf8_encode(unsigned cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

int
text_utf8_decode(const char *s, size_t n, unsigned *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	if (u[0] < 0x80) {
		*cp = u[0];
		return 1;
	}
	int len;
	unsigned c, min;
	if ((u[0] & 0xe0) == 0xc0) {
		len = 2;
		c = u[0] & 0x1f;
		min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		len = 3;
		c = u[0] & 0x0f;
		min = 0x800;
	} else if ((u[0] & 0xf8) == 0xf0) {
		len = 4;
		c = u[0] & 0x07;
		min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	if ((size_t)len > n) {
		*cp = 0xfffd;
		return 1;
	}
	for (int i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		c = (c << 6) | (u[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = c;
	return len;
}

static size_t
put_utf8(unsigned cp, char *o)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

char *
text_sanitize(const char *s, char *out, size_t outlen, int utf8)
{
	size_t n = strlen(s), o = 0;
	if (outlen == 0)
		return out;
	for (size_t i = 0; i < n;) {
		char tmp[8];
		size_t tl;
		unsigned cp;
		int l = text_utf8_decode(s + i, n - i, &cp);
		i += (size_t)l;
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			const char *hex = "0123456789abcdef";
			if (cp == '\n')
				memcpy(tmp, "\\n", tl = 2);
			else if (cp == '\t')
				memcpy(tmp, "\\t", tl = 2);
			else if (cp == '\r')
				memcpy(tmp, "\\r", tl = 2);
			else {
				tmp[0] = '\\';
				tmp[1] = 'x';
				tmp[2] = hex[(cp >> 4) & 15];
				tmp[3] = hex[cp & 15];
				tl = 4;
			}
		} else if (cp >= 0x80 && !utf8) {
			tmp[0] = '?';
			tl = 1;
		} else {
			tl = put_utf8(cp, tmp);
		}
		if (o + tl + 1 > outlen)
			break;
		memcpy(out + o, tmp, tl);
		o += tl;
	}
	out[o] = '\0';
	return out;
}

void
text_json_emit(const char *s, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		/* a run of printable ASCII that needs no escape, written in one piece */
		size_t k = i;
		while (k < n && (unsigned char)s[k] >= 0x20 && (unsigned char)s[k] < 0x7f &&
		       s[k] != '"' && s[k] != '\\')
			k++;
		if (k > i) {
			put(ctx, s + i, k - i);
			i = k;
			if (i == n)
				break;
		}
		unsigned cp;
		int l = text_utf8_decode(s + i, n - i, &cp);
		char u[16];
		if (cp == '"')
			put(ctx, "\\\"", 2);
		else if (cp == '\\')
			put(ctx, "\\\\", 2);
		else if (cp == '\n')
			put(ctx, "\\n", 2);
		else if (cp == '\t')
			put(ctx, "\\t", 2);
		else if (cp == '\r')
			put(ctx, "\\r", 2);
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			/* C1 too: JSON allows it raw, terminals obey it */
			put(ctx, u, (size_t)snprintf(u, sizeof u, "\\u%04x", cp));
		else if (cp == 0xfffd && l == 1)
			put(ctx, "\xef\xbf\xbd", 3);
		else
			put(ctx, s + i, (size_t)l);
		i += (size_t)l;
	}
}

static void
put_file(void *f, const char *p, size_t n)
{
	fwrite(p, 1, n, f);
}

void
text_json_write(FILE *f, const char *s)
{
	text_json_emit(s, put_file, f);
}
