#include "config.h"
#include "model/mstx.h"

#include <stdio.h>
#include <string.h>

typedef struct cur {
	const char *p, *end;
} cur;

static void
skip_ws(cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

/* A string quoted with ' (Python repr) or " (JSON): its bytes, escapes resolved to the escaped
 * character, into out[0..cap) when out is given. Returns 0, or -1 when c is not at one. */
static int
read_str(cur *c, char *out, size_t cap, size_t *len)
{
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return -1;
	char q = *c->p++;
	size_t n = 0;
	while (c->p < c->end && *c->p != q) {
		if (*c->p == '\\' && c->p + 1 < c->end)
			c->p++;
		if (out != NULL && n + 1 < cap)
			out[n] = *c->p;
		n++;
		c->p++;
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	if (out != NULL && cap > 0)
		out[n < cap ? n : cap - 1] = '\0';
	*len = n;
	return 0;
}

/* Skips any other value (number, True, None, a list or dict) up to the ',' or '}' that ends
 * it, strings and nesting respected. */
static int
skip_value(cur *c)
{
	int depth = 0;
	while (c->p < c->end) {
		char ch = *c->p;
		if (ch == '\'' || ch == '"') {
			size_t n;
			if (read_str(c, NULL, 0, &n) != 0)
				return -1;
			continue;
		}
		if (depth == 0 && (ch == ',' || ch == '}'))
			return 0;
		if (ch == '{' || ch == '[' || ch == '(')
			depth++;
		else if (ch == '}' || ch == ']' || ch == ')')
			depth--;
		c->p++;
	}
	return -1;
}

int
mstx_msg_decode(const char *msg, size_t len, char *name, size_t cap, int *microbatch)
{
	cur c = {msg, msg + len};
	char key[32], nm[256] = "";
	int have_name = 0, mb = -1;
	skip_ws(&c);
	if (c.p >= c.end || *c.p++ != '{')
		return 0;
	for (;;) {
		size_t kn, vn;
		skip_ws(&c);
		if (c.p < c.end && *c.p == '}')
			break;
		if (read_str(&c, key, sizeof key, &kn) != 0)
			return 0;
		skip_ws(&c);
		if (c.p >= c.end || *c.p++ != ':')
			return 0;
		skip_ws(&c);
		int is_name = kn == 4 && strcmp(key, "name") == 0;
		int is_mb = (kn == 18 && strcmp(key, "current_microbatch") == 0) ||
		            (kn == 10 && strcmp(key, "microbatch") == 0);
		if (c.p < c.end && (*c.p == '\'' || *c.p == '"')) {
			if (read_str(&c, is_name ? nm : NULL, sizeof nm, &vn) != 0)
				return 0;
			have_name |= is_name;
		} else if (is_mb && c.p < c.end && *c.p >= '0' && *c.p <= '9') {
			long v = 0;
			while (c.p < c.end && *c.p >= '0' && *c.p <= '9' && v < 1000000)
				v = v * 10 + (*c.p++ - '0');
			mb = v < 1000000 ? (int)v : -1;
			if (skip_value(&c) != 0)
				return 0;
		} else if (skip_value(&c) != 0) {
			return 0;
		}
		skip_ws(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			continue;
		}
		if (c.p < c.end && *c.p == '}')
			break;
		return 0;
	}
	c.p++; /* the '}' */
	skip_ws(&c);
	if (c.p != c.end || !have_name)
		return 0;
	if (cap > 0)
		snprintf(name, cap, "%s", nm);
	*microbatch = mb;
	return 1;
}

const char *
mstx_msg_label(const char *msg, size_t len, char *out, size_t cap)
{
	char nm[256];
	int mb;
	if (mstx_msg_decode(msg, len, nm, sizeof nm, &mb)) {
		if (mb >= 0)
			snprintf(out, cap, "%s (micro-batch %d)", nm, mb);
		else
			snprintf(out, cap, "%s", nm);
	} else {
		snprintf(out, cap, "%.*s", (int)(len < 0x7fffffff ? len : 0x7fffffff), msg);
	}
	return out;
}
