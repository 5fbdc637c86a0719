/* Discovery's pure name classifiers: what a file or directory name says (a profiler output, a
 * rank, a time stamp), from the name alone. Unit-testable without a file system. */
#include "config.h"
#include "profile/discover_int.h"
#include "profile/discover.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- small string helpers --------------------------------------------------------------- */

static int
digits_all(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

int
disc_str_digits(const char *s)
{
	return digits_all(s, strlen(s));
}

/* The number in the digit span [s, s+n), or -1 when it is not one or exceeds TL_RANK_MAX. */
int
disc_digits_rank(const char *s, size_t n)
{
	if (!digits_all(s, n))
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		v = v * 10 + (s[i] - '0');
		if (v > TL_RANK_MAX)
			return -1;
	}
	return (int)v;
}

int
disc_str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int
disc_str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* name == prefix digits suffix with at least one digit: returns the number of digits and points
 * *digits at them, else 0. */
size_t
disc_name_digits(const char *name, const char *prefix, const char *suffix, const char **digits)
{
	size_t n = strlen(name), lp = strlen(prefix), ls = strlen(suffix);
	if (n <= lp + ls || !disc_str_starts(name, prefix) || !disc_str_ends(name, suffix))
		return 0;
	if (!digits_all(name + lp, n - lp - ls))
		return 0;
	*digits = name + lp;
	return n - lp - ls;
}

/* name == prefix ["_" digits] suffix, e.g. ascend_pytorch_profiler_3.db. Returns 1 on a match
 * with *rank = the number, or -1 when there is none (or it is not a plausible rank). */
int
disc_name_rank_match(const char *name, const char *prefix, const char *suffix, int *rank)
{
	size_t n = strlen(name), lp = strlen(prefix), ls = strlen(suffix);
	if (n < lp + ls || !disc_str_starts(name, prefix) || !disc_str_ends(name, suffix))
		return 0;
	const char *mid = name + lp;
	size_t lm = n - lp - ls;
	if (lm == 0) {
		*rank = -1;
		return 1;
	}
	if (mid[0] != '_' || !digits_all(mid + 1, lm - 1))
		return 0;
	*rank = disc_digits_rank(mid + 1, lm - 1);
	return 1;
}

/* Kineto file names: "rank-N", "rank_N" or "rankN" not preceded by a letter. */
int
disc_name_rank_pattern(const char *name)
{
	for (const char *p = name; *p != '\0'; p++) {
		if (strncasecmp(p, "rank", 4) != 0 || (p > name && isalpha((unsigned char)p[-1])))
			continue;
		const char *q = p + 4;
		if (*q == '-' || *q == '_')
			q++;
		size_t n = 0;
		while (isdigit((unsigned char)q[n]))
			n++;
		int r = n ? disc_digits_rank(q, n) : -1;
		if (r >= 0)
			return r;
	}
	return -1;
}

/* Compares two digit strings as numbers (no leading-zero games: longer is bigger). */
int
disc_digits_cmp(const char *a, size_t na, const char *b, size_t nb)
{
	if (na != nb)
		return na < nb ? -1 : 1;
	return memcmp(a, b, na);
}

/* ---- time stamps in directory names ------------------------------------------------------ */

int
disc_digits_num(const char *s, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* "YYYYmmddHHMMSS" or "YYYYmmddHHMMSSmmm" (local time, or UTC) to epoch ns; 0 when invalid. */
static int64_t
stamp_to_ns(const char *s, size_t n, int utc)
{
	if ((n != 14 && n != 17) || !digits_all(s, n))
		return 0;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = disc_digits_num(s, 4) - 1900;
	tm.tm_mon = disc_digits_num(s + 4, 2) - 1;
	tm.tm_mday = disc_digits_num(s + 6, 2);
	tm.tm_hour = disc_digits_num(s + 8, 2);
	tm.tm_min = disc_digits_num(s + 10, 2);
	tm.tm_sec = disc_digits_num(s + 12, 2);
	int ms = n == 17 ? disc_digits_num(s + 14, 3) : 0;
	if (tm.tm_year < 70 || tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 ||
	    tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return 0;
	tm.tm_isdst = -1;
	time_t t = utc ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return 0;
	return (int64_t)t * 1000000000 + (int64_t)ms * 1000000;
}

/* Capture time from a directory name, 0 when the name carries none:
 * {worker}_{pid}_{YYYYmmddHHMMSSmmm}_ascend_pt (local time), …_ascend_ms (UTC),
 * PROF_{n}_{YYYYmmddHHMMSSmmm}_{random} (local time). */
int64_t
disc_capture_stamp(const char *name)
{
	int utc;
	size_t end;
	if (disc_str_ends(name, "_ascend_pt") || disc_str_ends(name, "_ascend_ms")) {
		utc = disc_str_ends(name, "_ascend_ms");
		end = strlen(name) - strlen("_ascend_pt");
		size_t b = end;
		while (b > 0 && name[b - 1] != '_')
			b--;
		return stamp_to_ns(name + b, end - b, utc);
	}
	if (disc_str_starts(name, "PROF_")) {
		const char *p = strchr(name + 5, '_');
		if (p == NULL)
			return 0;
		p++;
		const char *q = strchr(p, '_');
		size_t n = q ? (size_t)(q - p) : strlen(p);
		return stamp_to_ns(p, n, 0);
	}
	return 0;
}

/* ---- file name classes --------------------------------------------------------------------- */

/* msprof_{ts}.json or msprof_slice_{k}_{ts}.json: returns the length of the ts digits. */
size_t
disc_msprof_json_ts(const char *name, const char **ts)
{
	size_t n = disc_name_digits(name, "msprof_", ".json", ts);
	if (n)
		return n;
	const char *k;
	if (!disc_str_starts(name, "msprof_slice_") || !disc_str_ends(name, ".json"))
		return 0;
	k = name + strlen("msprof_slice_");
	size_t nk = 0;
	while (isdigit((unsigned char)k[nk]))
		nk++;
	if (nk == 0 || k[nk] != '_')
		return 0;
	return disc_name_digits(k + nk, "_", ".json", ts);
}

/* prefix{dev}_{model}_{iter}.json (msprof's per-iteration export, CANN <= 7.0): 1 on a match. */
int
disc_msprof_iter_match(const char *name, const char *prefix, int *dev, int *model, int *iter)
{
	if (!disc_str_starts(name, prefix) || !disc_str_ends(name, ".json"))
		return 0;
	const char *p = name + strlen(prefix), *end = name + strlen(name) - 5;
	int v[3];
	for (int k = 0; k < 3; k++) {
		const char *q = k < 2 ? memchr(p, '_', (size_t)(end - p)) : end;
		if (q == NULL || q == p || q - p > 9 || !digits_all(p, (size_t)(q - p)))
			return 0;
		v[k] = disc_digits_num(p, (int)(q - p));
		p = q + 1;
	}
	*dev = v[0];
	*model = v[1];
	*iter = v[2];
	return 1;
}

/* msmonitor_{pid}_{ts}_{rank|-1}.db: 1 on a match, with the rank and the time stamp. */
int
disc_msmonitor_match(const char *name, int *rank, int64_t *stamp)
{
	if (!disc_str_starts(name, "msmonitor_") || !disc_str_ends(name, ".db"))
		return 0;
	const char *p = name + strlen("msmonitor_"), *end = name + strlen(name) - 3;
	const char *u1 = memchr(p, '_', (size_t)(end - p));
	if (u1 == NULL || !digits_all(p, (size_t)(u1 - p)))
		return 0;
	const char *ts = u1 + 1, *u2 = memchr(ts, '_', (size_t)(end - ts));
	if (u2 == NULL || !digits_all(ts, (size_t)(u2 - ts)))
		return 0;
	const char *r = u2 + 1;
	if (end - r == 2 && memcmp(r, "-1", 2) == 0)
		*rank = -1;
	else if (digits_all(r, (size_t)(end - r)))
		*rank = disc_digits_rank(r, (size_t)(end - r));
	else
		return 0;
	*stamp = stamp_to_ns(ts, (size_t)(u2 - ts), 0);
	return 1;
}

int
disc_probe_name(const char *glob, const char *name, int *rank)
{
	const char *r = strstr(glob, "{r}");
	if (r != NULL) {
		char prefix[128];
		size_t lp = (size_t)(r - glob);
		if (lp >= sizeof prefix)
			return 0;
		memcpy(prefix, glob, lp);
		prefix[lp] = '\0';
		return disc_name_rank_match(name, prefix, r + 3, rank);
	}
	if (fnmatch(glob, name, FNM_PERIOD) != 0)
		return 0;
	*rank = disc_name_rank_pattern(name);
	return 1;
}

name_kind
disc_name_classify(const char *name, int *rank)
{
	size_t len = strlen(name);
	if (len > 3 && strcmp(name + len - 3, ".gz") == 0) {
		/* a compressed trace (torch's use_gzip=True: *.pt.trace.json.gz): what the name
		 * without ".gz" is, when that is a JSON timeline; the loader inflates it */
		char plain[512];
		if (len - 3 >= sizeof plain)
			return NK_NONE;
		memcpy(plain, name, len - 3);
		plain[len - 3] = '\0';
		name_kind k = disc_name_classify(plain, rank);
		int r;
		for (int f = 0; f < TL_SRC__COUNT; f++) { /* a format of its own, never gzipped */
			const char *glob = source_format((tl_source_kind)f)->glob;
			if (glob != NULL && disc_probe_name(glob, plain, &r))
				return NK_NONE;
		}
		return k == NK_JSON || k == NK_TRACE_VIEW || k == NK_MSPROF_JSON ? k : NK_NONE;
	}
	const char *d;
	int64_t stamp;
	*rank = -1;
	if (disc_name_rank_match(name, "ascend_pytorch_profiler", ".db", rank))
		return NK_TORCH_DB;
	if (disc_name_rank_match(name, "ascend_mindspore_profiler", ".db", rank))
		return NK_MS_DB;
	if (disc_name_digits(name, "msprof_", ".db", &d) ||
	    disc_name_digits(name, "report_", ".db", &d)) /* CANN 7.0: report_{device}.db */
		return NK_MSPROF_DB;
	if (disc_msmonitor_match(name, rank, &stamp))
		return NK_MSMONITOR_DB;
	if (strcmp(name, "trace_view.json") == 0)
		return NK_TRACE_VIEW;
	if (disc_msprof_json_ts(name, &d))
		return NK_MSPROF_JSON;
	/* MindSpore 1.x's totals beside its timeline */
	if (disc_str_starts(name, "ascend_timeline_summary"))
		return NK_NONE;
	if (!disc_str_ends(name, ".json") || name[0] == '.')
		return NK_NONE;
	/* metadata written next to the traces, never a timeline */
	if (disc_str_starts(name, "profiler_info") || disc_str_starts(name, "profiler_metadata") ||
	    disc_str_starts(name, "communication"))
		return NK_NONE;
	return NK_JSON;
}
