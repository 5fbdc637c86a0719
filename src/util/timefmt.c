#include "config.h"
#include "util/timefmt.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

char *
timefmt_dur(int64_t ns, char *buf, size_t len)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (a < 1000)
		snprintf(buf, len, "%s%" PRIu64 " ns", sign, a);
	else if (a < 1000000)
		snprintf(buf, len, "%s%.3g us", sign, (double)a / 1e3);
	else if (a < 1000000000)
		snprintf(buf, len, "%s%.3f ms", sign, (double)a / 1e6);
	else
		snprintf(buf, len, "%s%.3f s", sign, (double)a / 1e9);
	/* "%.3g" may print 1e+03 for 999.9995; keep it readable */
	char *e = strchr(buf, 'e');
	if (e != NULL)
		snprintf(buf, len, "%s%.0f us", sign, (double)a / 1e3);
	return buf;
}

char *
timefmt_us3(int64_t ns, char *buf, size_t len)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	snprintf(buf, len, "%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
	return buf;
}

char *
timefmt_ms(int64_t ns, int decimals, char *buf, size_t len)
{
	static const uint64_t div[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
	if (decimals < 0)
		decimals = 0;
	if (decimals > 6)
		decimals = 6;
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (decimals == 0)
		snprintf(buf, len, "%s%" PRIu64, sign, a / 1000000);
	else
		snprintf(buf, len, "%s%" PRIu64 ".%0*" PRIu64, sign, a / 1000000, decimals,
		         a % 1000000 / div[decimals]);
	return buf;
}

char *
timefmt_epoch(int64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	if (frac < 0) {
		frac += 1000000000;
		s -= 1;
	}
	struct tm tm;
	if (localtime_r(&s, &tm) == NULL) {
		snprintf(buf, len, "%" PRId64 " ns", ns);
		return buf;
	}
	char d[32];
	strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%09ld", d, frac);
	return buf;
}

int
timefmt_parse(const char *s, int64_t def_unit_ns, int64_t *out)
{
	while (isspace((unsigned char)*s))
		s++;
	int neg = 0;
	if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
	}
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	uint64_t ip = 0, fp = 0, fscale = 1;
	int digits = 0;
	while (isdigit((unsigned char)*s)) {
		if (ip > (UINT64_MAX - 9) / 10)
			return -1;
		ip = ip * 10 + (uint64_t)(*s++ - '0');
		digits++;
	}
	if (*s == '.') {
		s++;
		while (isdigit((unsigned char)*s)) {
			if (fscale < 1000000000000000000ull) {
				fp = fp * 10 + (uint64_t)(*s - '0');
				fscale *= 10;
			}
			s++;
			digits++;
		}
	}
	if (digits == 0)
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	int64_t unit = def_unit_ns;
	if (*s == '\0')
		;
	else if (strcmp(s, "ns") == 0)
		unit = 1;
	else if (strcmp(s, "us") == 0 || strcmp(s, "\xc2\xb5s") == 0)
		unit = 1000;
	else if (strcmp(s, "ms") == 0)
		unit = 1000000;
	else if (strcmp(s, "s") == 0)
		unit = 1000000000;
	else if (strcmp(s, "m") == 0 || strcmp(s, "min") == 0)
		unit = 60000000000ll;
	else
		return -1;
	if (ip > (uint64_t)INT64_MAX / (uint64_t)unit)
		return -1;
	/* fraction: fp/fscale * unit, rounded to the nearest ns */
	unsigned __int128 f = (unsigned __int128)fp * (uint64_t)unit;
	uint64_t frac = (uint64_t)((f + fscale / 2) / fscale);
	uint64_t v = ip * (uint64_t)unit + frac;
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int64_t
timefmt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
