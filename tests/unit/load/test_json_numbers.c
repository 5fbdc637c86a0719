/* The numbers of a JSON trace: every "ts" and "dur" goes through json_dec_parse (µs in, ns
 * out). torch_npu writes "ts" as a string of µs with three decimals and "dur" as a float
 * (docs: spec §6); what else a writer or a damaged file may hold is decided here, case by case:
 *
 *   taken, exactly:  "1000.000", 1000, 1e3, "1e3", 1.0005e3 (rounded half away from zero to
 *                    the ns), "+1030" (unambiguous), -5 (a time before the profile's zero is a
 *                    time; the model's range decides), "2.5" as dur
 *   refused, counted: "NaN", NaN, Infinity, "x", " 1020" (spaces), "0x10", "", true, null,
 *                    [1], {} ("a ts that is not a number"); 1e400 and 20-digit µs ("out of
 *                    range"); a dur that is negative, not a number or 1e30 ("dur ...")
 *
 * The expected ns are written out by hand from the decimal text, not computed by tl. */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loading/loading.h"
#include "load/json/trace_json_int.h"
#include "util/msg.h"
#include "util/xalloc.h"
#include "../test.h"

static void
dec(const char *s, int want_rc, int64_t want)
{
	int64_t v = INT64_MIN;
	int rc = json_dec_parse(s, strlen(s), 3, &v);
	if (want_rc == DEC_OK)
		CHECK(rc == DEC_OK && v == want, "\"%s\" µs is %lld ns (rc %d, got %lld)", s,
		      (long long)want, rc, (long long)v);
	else
		CHECK(rc == want_rc, "\"%s\" is refused as %s (rc %d)", s,
		      want_rc == DEC_NAN ? "not a number" : "out of range", rc);
}

static void
test_parse(void)
{
	dec("1000.000", DEC_OK, 1000000);
	dec("1736407067001.123", DEC_OK, INT64_C(1736407067001123));
	dec("1e3", DEC_OK, 1000000);
	dec("1E+3", DEC_OK, 1000000);
	dec("1.0005e3", DEC_OK, 1000500);
	dec("1010.0005", DEC_OK, 1010001);   /* half a ns: away from zero */
	dec("-1010.0005", DEC_OK, -1010001); /* likewise below zero */
	dec("1010.00049", DEC_OK, 1010000);
	dec("0.0000001", DEC_OK, 0);
	dec("+1030", DEC_OK, 1030000);
	dec("-5", DEC_OK, -5000);
	dec("2.5", DEC_OK, 2500);
	dec("1e-400", DEC_OK, 0);
	/* 19 significant digits kept, the 20th rounds */
	dec("1736407067001234.5678", DEC_OK, INT64_C(1736407067001234568));
	dec("9223372036854775.807", DEC_OK, INT64_MAX);
	dec("9223372036854775.808", DEC_RANGE, 0);
	dec("99999999999999999999.000", DEC_RANGE, 0);
	dec("1e400", DEC_RANGE, 0);
	dec("1e30", DEC_RANGE, 0);
	/* the usual spelling's short cut (digits '.' three digits) at its edges */
	dec("0.000", DEC_OK, 0);
	dec("7.009", DEC_OK, 7009);
	dec("12345678.001", DEC_OK, INT64_C(12345678001));
	dec("123456789.012", DEC_OK, INT64_C(123456789012));
	dec("0000000000000001.500", DEC_OK, 1500);
	dec("9999999999999999.999", DEC_RANGE, 0);
	dec("-1000.001", DEC_OK, -1000001);
	dec("+1000.001", DEC_OK, 1000001);
	dec(".123", DEC_OK, 123);
	dec("1.2.345", DEC_NAN, 0);
	dec("1a00.000", DEC_NAN, 0);
	dec("1000.00a", DEC_NAN, 0);
	dec("1000.0015", DEC_OK, 1000002);
	static const char *const nan[] = {
	    "NaN", "nan", "Infinity", "-Infinity", "x",     " 1020", "1020 ", "0x10", "",
	    "-",   ".",   "1e",       "1e+",       "1.2.3", "true",  "null",  "--1",  "1_000"};
	for (size_t i = 0; i < sizeof nan / sizeof *nan; i++)
		dec(nan[i], DEC_NAN, 0);
}

static int
rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

#define EV(name, ts, dur)                                                                          \
	"{\"ph\":\"X\",\"name\":\"" name "\",\"pid\":1,\"tid\":2,\"ts\":" ts ",\"dur\":" dur       \
	",\"args\":{\"Task Type\":\"AI_CORE\"}},\n"

/* A trace_view.json with each form: the slices taken are exactly those, the others counted in
 * one line per kind of problem. */
static void
test_load(void)
{
	char dir[] = "/tmp/tl-test-jnum-XXXXXX";
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	char *sub = xasprintf("%s/r0", dir), *path = xasprintf("%s/trace_view.json", sub);
	mkdir(sub, 0755);
	static const char json[] =
	    "[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
	    "\"args\":{\"name\":\"Ascend Hardware\"}},\n" EV("a", "\"1000.000\"", "5")
	        EV("b", "\"1e3\"", "\"2.5\"") EV("c", "1010.0005", "1e0") EV("d", "\"+1030\"", "1")
	            EV("e", "-5", "1") EV("n1", "\"NaN\"", "1") EV("n2", "\"x\"", "1")
	                EV("n3", "\" 1020\"", "1") EV("n4", "true", "1") EV("n5", "null", "1")
	                    EV("n6", "[1]", "1") EV("r1", "1e400", "1")
	                        EV("r2", "\"99999999999999999999.000\"", "1") EV("d1", "1020", "-1")
	                            EV("d2", "1020", "\"abc\"") EV("d3", "1020", "1e30")
	                                EV("d4", "1020", "NaN") "{\"ph\":\"M\",\"name\":\"x\"}]";
	FILE *f = fopen(path, "w");
	CHECK(f != NULL && fwrite(json, 1, sizeof json - 1, f) == sizeof json - 1, "write %s",
	      path);
	if (f)
		fclose(f);

	char *cap = xasprintf("%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2), fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	int rc = load_trace(dir, &lo, &tr);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char err[4096] = "";
	f = fopen(cap, "r");
	if (f) {
		err[fread(err, 1, sizeof err - 1, f)] = '\0';
		fclose(f);
	}
	CHECK(rc == 0 && tr.nranks == 1, "the trace loads");
	/* the taken slices, by start: e, a, b (the same start as a, on another depth or merged
	 * away is the model's business: their set of (start, end) is what is checked), c, d */
	static const int64_t want[][2] = {{-5000, -4000},
	                                  {1000000, 1005000},
	                                  {1000000, 1002500},
	                                  {1010001, 1011001},
	                                  {1030000, 1031000}};
	size_t n = 0, found = 0;
	for (size_t t = 0; rc == 0 && t < tr.ranks[0]->ntracks; t++) {
		const tl_track *k = tr.ranks[0]->tracks[t];
		if (k->kind != TL_LANE_COMPUTE)
			continue;
		for (size_t i = 0; i < k->n; i++) {
			n++;
			for (size_t w = 0; w < sizeof want / sizeof *want; w++)
				found +=
				    k->v[i].start == want[w][0] && track_end(k, i) == want[w][1];
		}
	}
	CHECK(n == 5 && found == 5, "the five usable events, to the ns (%zu slices, %zu found)", n,
	      found);
	int lines = 0;
	for (char *p = err; *p; p++)
		lines += *p == '\n';
	CHECK(lines == 3, "three lines, one per kind of problem (%d)", lines);
	if (lines != 3)
		fprintf(stderr, "# %s", err);
	CHECK(strstr(err, "a \"ts\" that is not a number; 6 such elements skipped") != NULL,
	      "six ts that are not numbers, counted");
	CHECK(strstr(err, "a \"ts\" out of range; 2 such elements skipped") != NULL,
	      "two ts out of range, counted");
	CHECK(strstr(err, "or out of range; 4 such elements skipped") != NULL,
	      "four unusable dur, counted");
	if (rc == 0)
		trace_free(&tr);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(cap);
	free(path);
	free(sub);
}

int
main(void)
{
	test_parse();
	test_load();
	return test_done();
}
