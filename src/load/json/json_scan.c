/* The JSON scanner of the trace loader: finds the byte bounds of one event object at a time in
 * the mapped file (through the JSON lexer, util/json_lex.c) and notes where its members are,
 * and parses decimal times exactly into integer ns. Pure: bytes in, bounds out. */
#include "config.h"
#include "load/json/trace_json_int.h"

#include <stdint.h>
#include <string.h>

/* ---- decimal times ------------------------------------------------------------------------- */

/* m * 10^e10, rounded by rdig (the first digit dropped, -1 none) when e10 is 0, else by the
 * first digit divided away; DEC_RANGE when it does not fit in int64. */
static int
dec_scale(uint64_t m, int64_t e10, int rdig, int neg, int64_t *out)
{
	uint64_t v;
	if (m == 0) {
		v = 0;
	} else if (e10 >= 0) {
		v = m;
		for (int64_t k = 0; k < e10; k++) {
			if (v > UINT64_MAX / 10)
				return DEC_RANGE;
			v *= 10;
		}
		if (e10 == 0 && rdig >= 5)
			v++;
	} else if (e10 < -20) {
		v = 0; /* far below a nanosecond */
	} else {
		uint64_t p = 1;
		for (int64_t k = 1; k < -e10; k++)
			p *= 10;
		/* v = m / 10^-e10, rounded by the first digit dropped */
		v = e10 == -20 ? 0 : m / p / 10;
		int r = e10 == -20 ? 0 : (int)(m / p % 10);
		if (r >= 5)
			v++;
	}
	if (v > (uint64_t)INT64_MAX)
		return DEC_RANGE;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return DEC_OK;
}

int
json_dec_parse_any(const char *s, size_t n, int scale, int64_t *out)
{
	/* the usual spelling first, [-]digits[.digits] of at most 19 digits: all of them are
	 * kept (below 10^19, m fits), none is dropped */
	{
		size_t k = n > 0 && s[0] == '-';
		uint64_t fm = 0;
		int nd = 0, nf = -1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* eight digits at a time while they fit (a time's 16 digits before its point) */
		while (k + 8 <= n && nd <= 19 - 8) {
			uint64_t v;
			memcpy(&v, s + k, 8);
			if (!json_digits8(v))
				break;
			fm = fm * 100000000u + json_value8(v);
			nd += 8;
			k += 8;
		}
#endif
		for (; k < n; k++) {
			unsigned d = (unsigned)(unsigned char)s[k] - '0';
			if (d < 10) {
				fm = fm * 10 + d;
				nd++;
				nf += nf >= 0;
			} else if (s[k] == '.' && nf < 0) {
				nf = 0;
			} else {
				break;
			}
		}
		if (k == n && nd > 0 && nd <= 19)
			return dec_scale(fm, (int64_t)scale - (nf > 0 ? nf : 0), -1, s[0] == '-',
			                 out);
	}
	size_t i = 0;
	int neg = 0, ndig = 0, nsig = 0, rdig = -1;
	uint64_t m = 0;
	int64_t e10 = scale;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndig++) {
		int d = s[i] - '0';
		if (nsig < 19) {
			m = m * 10 + (uint64_t)d;
			nsig += m != 0;
		} else {
			e10++; /* a dropped integer digit */
			if (rdig < 0)
				rdig = d;
		}
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndig++) {
			int d = s[i] - '0';
			if (nsig < 19) {
				m = m * 10 + (uint64_t)d;
				nsig += m != 0;
				e10--;
			} else if (rdig < 0) {
				rdig = d;
			}
		}
	}
	if (ndig == 0)
		return DEC_NAN;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0, edig = 0;
		int64_t ex = 0;
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edig++)
			if (ex < 100000)
				ex = ex * 10 + (s[i] - '0');
		if (edig == 0)
			return DEC_NAN;
		e10 += eneg ? -ex : ex;
	}
	if (i != n)
		return DEC_NAN;
	return dec_scale(m, e10, rdig, neg, out);
}

/* ---- the scanner --------------------------------------------------------------------------- */
const char *const json_problem_text[PR__N] = {
    [PR_UTF8] = "invalid UTF-8 in a string",
    [PR_DEPTH] = "an event nested deeper than 64 levels",
    [PR_NOT_OBJECT] = "an array element that is not an event object",
    [PR_NO_TS] = "an event without \"ts\"",
    [PR_TS_NAN] = "a \"ts\" that is not a number",
    [PR_TS_RANGE] = "a \"ts\" out of range",
    [PR_DUR] = "a \"dur\" that is missing, negative, not a number or out of range",
    [PR_PARSE] = "an event that is not valid JSON",
    [PR_ARGS] = "\"args\" that are not valid JSON (the event is kept without them)",
    [PR_UNPAIRED] = ("a \"B\" event without its \"E\" on the same thread, or an \"E\" without a "
                     "\"B\" (or before it)"),
    [PR_COUNTER] = "a counter event (\"C\") without a number in its \"args\"",
};

/* Which top-level member a key names (F__N: none we read). */
static int
field_of(const unsigned char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return F_PH;
		if (k[0] == 't' && k[1] == 's')
			return F_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return F_ID;
		break;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return F_PID;
		if (memcmp(k, "tid", 3) == 0)
			return F_TID;
		if (memcmp(k, "dur", 3) == 0)
			return F_DUR;
		if (memcmp(k, "cat", 3) == 0)
			return F_CAT;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return F_NAME;
		if (memcmp(k, "args", 4) == 0)
			return F_ARGS;
		break;
	}
	return F__N;
}

/* The member names an event mostly has, read straight off the 8 bytes at k: the field and the
 * offset after the closing quote, as json_scan_string and field_of would give for these plain
 * ASCII names; -1 for any other name (the general path). The name's length comes from where its
 * quote is, the name from a table by a multiplicative hash of its bytes (no two of these names
 * share a slot): no jump by the name's first letter, which the branch predictor missed often
 * (events of different kinds name their members in different orders). */
static inline int
key_fast(const unsigned char *k, size_t *len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	static const struct {
		uint64_t w;
		int f;
	} names[16] = {
	    [2] = {0x226469ull, F_ID},        /* id" */
	    [3] = {0x22646974ull, F_TID},     /* tid" */
	    [4] = {0x22746163ull, F_CAT},     /* cat" */
	    [6] = {0x227374ull, F_TS},        /* ts" */
	    [8] = {0x22646970ull, F_PID},     /* pid" */
	    [9] = {0x2273677261ull, F_ARGS},  /* args" */
	    [12] = {0x22656d616eull, F_NAME}, /* name" */
	    [13] = {0x22727564ull, F_DUR},    /* dur" */
	    [14] = {0x226870ull, F_PH},       /* ph" */
	};
	uint64_t w;
	memcpy(&w, k, 8);
	unsigned l = ((w >> 16) & 0xFF) == '"'   ? 3
	             : ((w >> 24) & 0xFF) == '"' ? 4
	             : ((w >> 32) & 0xFF) == '"' ? 5
	                                         : 8;
	uint64_t kw = w & (~(uint64_t)0 >> (64 - 8 * l));
	unsigned h = (unsigned)((kw * 0xef10d6909112a7abull) >> 60);
	*len = l;
	return names[h].w == kw && kw != 0 ? names[h].f : -1; /* 0: an empty slot */
#else
	size_t n = 0;
	while (n < 5 && k[n] != '"')
		n++;
	int f = n < 5 ? field_of(k, n) : F__N; /* none of these names holds a backslash */
	*len = n + 1;
	return f < F__N ? f : -1;
#endif
}

/* b[i] is '{': an event. Finds its end and where its members ph, name, ... sit (ev->f), and
 * notes invalid UTF-8, excess nesting, or a broken member list (ev->bad). Returns 0 with
 * ev->end set, or -1 when the input ends first. */
int
json_scan_event(const unsigned char *b, size_t n, size_t i, jevent *ev)
{
	size_t start = i;
	ev->start = i;
	ev->bad = -1;
	for (int f = 0; f < F__N; f++)
		ev->f[f] = (jspan){0, 0}; /* absent (span_text adds off even then) */
	i++;
	for (;;) {
		i = json_skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] == '}')
			break;
		if (b[i] != '"')
			goto broken;
		size_t ks = i + 1, kl;
		int f = ks + 8 <= n ? key_fast(b + ks, &kl) : -1;
		if (f >= 0) {
			i = ks + kl;
		} else {
			i = json_scan_string(b, n, ks, &ev->bad, &ev->bad_off);
			if (i == SIZE_MAX)
				return -1;
			f = field_of(b + ks, i - ks - 1);
		}
		i = json_skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] != ':')
			goto broken;
		size_t vs = i = json_skip_ws(b, n, i + 1);
		if (i >= n)
			return -1;
		if (b[i] == '"' && i + 3 <= n && b[i + 2] == '"' && json_str_plain[b[i + 1]])
			i += 3; /* one plain character: a phase */
		else if (b[i] == '"')
			i = json_scan_string(b, n, i + 1, &ev->bad, &ev->bad_off);
		else if (b[i] == '{' || b[i] == '[')
			i = json_skip_nested(b, n, i, 1, &ev->bad, &ev->bad_off);
		else if ((i = json_skip_scalar(b, n, i)) == vs)
			goto broken;
		if (i == SIZE_MAX)
			return -1;
		if (f < F__N)
			ev->f[f] = (jspan){vs, i - vs};
		i = json_skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] == ',')
			i++;
		else if (b[i] == '}')
			break;
		else
			goto broken;
	}
	ev->end = i + 1;
	return 0;
broken:
	/* not a member list: find the end by the brackets alone and skip the event */
	if (ev->bad < 0) {
		ev->bad = PR_PARSE;
		ev->bad_off = i;
	}
	i = json_skip_nested(b, n, start, 0, &ev->bad, &ev->bad_off);
	if (i == SIZE_MAX)
		return -1;
	ev->end = i;
	return 0;
}
