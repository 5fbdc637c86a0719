/* Whose cache files are read (cache_trust.c) and what a stored result may hold: the owners
 * --trust-cache names (users, uids, groups), the directories that may hold trusted files, the
 * user's own alternative name when another's file holds a name, and a stored result whose
 * text holds bytes tl never prints refused by the reader. */
#include "config.h"

#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/cache.h"
#include "store/cache_int.h"
#include "util/hash.h"
#include "util/msg.h"
#include "../test.h"

/* A result file of text out under a one-byte key, decoded: NULL when the reader takes it,
 * else why not. */
static const char *
decode_text(const char *dir, const char *out)
{
	tl_cache c;
	cache_open(&c, dir);
	const uint8_t key[1] = {7};
	tl_result res = {0, (char *)out, strlen(out), (char *)"", 0};
	const char *why = "not stored";
	static uint8_t buf[1 << 16];
	char file[4096];
	/* cache_result.c's name: the key's hash */
	snprintf(file, sizeof file, "%s/%016llx.tlr", dir,
	         (unsigned long long)util_hash_bytes((const char *)key, 1));
	FILE *f;
	if (cache_result_put(&c, key, 1, &res) && (f = fopen(file, "rb")) != NULL) {
		size_t len = fread(buf, 1, sizeof buf, f);
		fclose(f);
		unlink(file);
		tl_result got;
		why = cache_result_decode(buf, len, key, 1, &got);
		if (why == NULL && got.out == NULL)
			why = "a miss";
		if (why == NULL) {
			if (strcmp(got.out, out) != 0)
				why = "other text";
			cache_result_free(&got);
		}
	}
	cache_close(&c);
	return why;
}

/* The bytes of the result file of key (one byte) in dir into buf (at most cap); its length. */
static size_t
read_result(const char *dir, uint8_t key, uint8_t *buf, size_t cap)
{
	char file[4096];
	snprintf(file, sizeof file, "%s/%016llx.tlr", dir,
	         (unsigned long long)util_hash_bytes((const char *)&key, 1));
	FILE *f = fopen(file, "rb");
	size_t len = 0;
	if (f != NULL) {
		len = fread(buf, 1, cap, f);
		fclose(f);
	}
	return len;
}

/* cache_part_get's taker: copies the part into ctx (a 64-byte buffer, its first byte the
 * length), or refuses it when it starts with 'X'. */
static const char *
take_part(const uint8_t *p, size_t n, void *ctx)
{
	uint8_t *got = ctx;
	if (n > 0 && p[0] == 'X')
		return "the taker refuses it";
	got[0] = (uint8_t)n;
	memcpy(got + 1, p, n < 63 ? n : 63);
	return NULL;
}

/* cache_part_get's taker that cuts the file (ctx: its name) to nothing under its own
 * mapping, then reads the part's last byte: the decode must be stopped, not the process. */
static const char *
take_truncating(const uint8_t *p, size_t n, void *ctx)
{
	if (truncate(ctx, 0) != 0)
		return "could not truncate";
	volatile uint8_t last = p[n - 1];
	(void)last;
	return NULL;
}

/* Binary parts (the critical path's kind of result file): taken back as written, never
 * taken for a command's output nor the reverse, refused when cut, changed or of the old
 * version. */
static void
parts(const char *dir)
{
	tl_cache c;
	cache_open(&c, dir);
	const uint8_t key[1] = {9};
	static const uint8_t part[] = {0x1b, '[', '3', '1', 'm', 0, 7, 0xff, 'p'}; /* not text */
	uint8_t got[64] = {0};
	CHECK(cache_part_put(&c, key, 1, part, sizeof part) &&
	          cache_part_get(&c, key, 1, take_part, got) && got[0] == sizeof part &&
	          memcmp(got + 1, part, sizeof part) == 0,
	      "a part is kept and given back byte for byte (control bytes and all)");
	static uint8_t buf[4096];
	size_t len = read_result(dir, 9, buf, sizeof buf);
	tl_result res;
	const char *why = cache_result_decode(buf, len, key, 1, &res);
	CHECK(why != NULL && strstr(why, "binary part") != NULL && res.out == NULL,
	      "a part is never read as a command's output (%s)", why ? why : "taken");
	const uint8_t *p;
	size_t n;
	why = cache_part_decode(buf, len, key, 1, &p, &n);
	CHECK(why == NULL && p != NULL && n == sizeof part, "... but as a part");
	const uint8_t other[1] = {10};
	why = cache_part_decode(buf, len, other, 1, &p, &n);
	CHECK(why == NULL && p == NULL, "another key's part: a miss, nothing said");
	size_t cuts = 0, cut_refused = 0;
	for (size_t cut = 0; cut < len; cut++, cuts++) {
		why = cache_part_decode(buf, cut, key, 1, &p, &n);
		cut_refused += why != NULL && p == NULL;
	}
	CHECK(cuts > 0 && cut_refused == cuts, "a part cut anywhere is refused (%zu of %zu)",
	      cut_refused, cuts);
	buf[len - 1] ^= 1;
	why = cache_part_decode(buf, len, key, 1, &p, &n);
	CHECK(why != NULL && strstr(why, "checksum") != NULL, "a changed byte: corrupt (%s)",
	      why ? why : "taken");
	buf[len - 1] ^= 1;
	uint32_t v1 = 1;
	memcpy(buf + 8, &v1, 4);
	why = cache_part_decode(buf, len, key, 1, &p, &n);
	CHECK(
	    why != NULL && strstr(why, "another version") != NULL,
	    "a file of version 1 (the path as text, FNV-1a) is another version's, not corrupt (%s)",
	    why ? why : "taken");
	static const uint8_t refused[] = {'X', 1};
	CHECK(cache_part_put(&c, key, 1, refused, sizeof refused) &&
	          !cache_part_get(&c, key, 1, take_part, got),
	      "a part its taker refuses is not taken");
	static uint8_t big[1 << 16]; /* pages of its own beyond the header's */
	memset(big, 'b', sizeof big);
	char file[4096];
	snprintf(file, sizeof file, "%s/%016llx.tlr", dir,
	         (unsigned long long)util_hash_bytes((const char *)key, 1));
	msg_set_quiet(0);
	fflush(stderr);
	CHECK(cache_part_put(&c, key, 1, big, sizeof big) &&
	          !cache_part_get(&c, key, 1, take_truncating, file),
	      "a part cut short while it is read is refused (SIGBUS caught), tl goes on");
	msg_set_quiet(1);
	tl_result text = {0, (char *)"rank 0\n", 7, (char *)"", 0};
	CHECK(cache_result_put(&c, key, 1, &text), "a text result under the same key");
	len = read_result(dir, 9, buf, sizeof buf);
	why = cache_part_decode(buf, len, key, 1, &p, &n);
	CHECK(why != NULL && strstr(why, "command's output") != NULL && p == NULL,
	      "a command's output is never taken as a part (%s)", why ? why : "taken");
	CHECK(!cache_part_get(&c, key, 1, take_part, got), "... nor by cache_part_get");
	why = cache_result_decode(buf, len, key, 1, &res);
	CHECK(why == NULL && res.out != NULL && strcmp(res.out, "rank 0\n") == 0,
	      "... and read as one");
	cache_result_free(&res);
	cache_close(&c);
}

int
main(void)
{
	char err[256] = "";
	uid_t me = geteuid();

	/* ---- owners ----------------------------------------------------------------------------
	 */
	CHECK(cache_trust_set("", err, sizeof err) == 0, "no owners: accepted");
	CHECK(cache_trust_uid(me), "the user's own files are trusted");
	CHECK(cache_trust_uid(0), "root's files are trusted");
	uid_t other = me == 65534 ? 65533 : 65534;
	CHECK(!cache_trust_uid(other), "another uid's files are not, by default");
	CHECK(cache_trust_set("12345,65534", err, sizeof err) == 0, "uids accepted");
	CHECK(cache_trust_uid(65534) && cache_trust_uid(12345) && !cache_trust_uid(12346),
	      "the uids given, and only they, are trusted");
	CHECK(cache_trust_set("no-such-user-tl-test", err, sizeof err) == -1 &&
	          strstr(err, "no user or group named 'no-such-user-tl-test'") != NULL,
	      "an unknown name is refused, named (%s)", err);
	CHECK(cache_trust_set("@no-such-group-tl-test", err, sizeof err) == -1 &&
	          strstr(err, "no group named") != NULL,
	      "an unknown @group is refused (%s)", err);
	struct passwd *pw = getpwnam("nobody");
	if (pw != NULL && pw->pw_uid != me) {
		uid_t nob = pw->pw_uid;
		gid_t ngid = pw->pw_gid;
		CHECK(cache_trust_set("nobody", err, sizeof err) == 0 && cache_trust_uid(nob),
		      "a user name is trusted");
		char spec[64];
		snprintf(spec, sizeof spec, "@%lu", (unsigned long)ngid);
		CHECK(cache_trust_set(spec, err, sizeof err) == 0 && cache_trust_uid(nob),
		      "@GID trusts the members of the group (its users' primary group)");
		struct group *gr = getgrgid(ngid);
		if (gr != NULL) {
			snprintf(spec, sizeof spec, "@%s", gr->gr_name);
			CHECK(cache_trust_set(spec, err, sizeof err) == 0 && cache_trust_uid(nob),
			      "@GROUP by name too");
		} else {
			SKIP("nobody's primary group has no name");
		}
		CHECK(cache_trust_set("", err, sizeof err) == 0 && !cache_trust_uid(nob),
		      "and trusting no one again forgets them");
	} else {
		SKIP("no user nobody (or running as it): names not tried");
		SKIP("no user nobody");
		SKIP("no user nobody");
		SKIP("no user nobody");
	}

	/* ---- directories ------------------------------------------------------------------------
	 */
	cache_trust_set("", err, sizeof err);
	struct stat st;
	memset(&st, 0, sizeof st);
	char why[256];
	st.st_mode = S_IFDIR | 0755;
	CHECK(cache_trust_dir(&st, why, sizeof why) == NULL, "0755: trusted");
	st.st_mode = S_IFDIR | 0777;
	CHECK(cache_trust_dir(&st, why, sizeof why) != NULL && strstr(why, "sticky") != NULL,
	      "0777 without the sticky bit: not trusted (%s)", why);
	st.st_mode = S_IFDIR | 01777;
	CHECK(cache_trust_dir(&st, why, sizeof why) == NULL, "1777 (as /tmp): trusted");
	st.st_mode = S_IFDIR | 0775;
	st.st_gid = 54321; /* a group no one is in, by any name */
	CHECK(cache_trust_dir(&st, why, sizeof why) != NULL && strstr(why, "group") != NULL,
	      "0775 of another group: not trusted (%s)", why);
	cache_trust_set("@54321", err, sizeof err);
	CHECK(cache_trust_dir(&st, why, sizeof why) == NULL, "... unless that group is trusted");
	cache_trust_set("", err, sizeof err);

	/* ---- names ------------------------------------------------------------------------------
	 */
	char *alt = cache_alt_name("/d/0123456789abcdef.tlc");
	char want[64];
	snprintf(want, sizeof want, "/d/0123456789abcdef.u%lu.tlc", (unsigned long)me);
	CHECK_STR(alt, want, "the user's own alternative name");
	free(alt);

	char *dir = test_tmpdir("trust");
	char *tmp = NULL, *file = NULL, *placed = NULL;
	if (asprintf(&tmp, "%s/.tmp-1.tlc", dir) < 0 || asprintf(&file, "%s/a.tlc", dir) < 0)
		return 1;
	FILE *f = fopen(tmp, "w");
	fputs("one", f);
	fclose(f);
	CHECK(cache_place(tmp, file, &placed) == 0 && strcmp(placed, file) == 0,
	      "a free name is used");
	free(placed);
	f = fopen(tmp, "w");
	fputs("two", f);
	fclose(f);
	CHECK(cache_place(tmp, file, &placed) == 0 && strcmp(placed, file) == 0,
	      "the user's own file under the name is replaced");
	free(placed);
	if (me == 0) {
		CHECK(chown(file, 65534, 65534) == 0, "the file given to another user");
		f = fopen(tmp, "w");
		fputs("three", f);
		fclose(f);
		alt = cache_alt_name(file);
		CHECK(cache_place(tmp, file, &placed) == 0 && strcmp(placed, alt) == 0,
		      "another user's file under the name: the alternative name instead");
		char got[8] = "";
		f = fopen(file, "r");
		if (f != NULL) {
			if (fgets(got, sizeof got, f) == NULL)
				got[0] = '\0';
			fclose(f);
		}
		CHECK_STR(got, "two", "... their file untouched");
		free(placed);
		CHECK(chown(alt, 65534, 65534) == 0, "both names another user's");
		f = fopen(tmp, "w");
		fclose(f);
		CHECK(cache_place(tmp, file, &placed) == -1, "... then nothing is placed");
		unlink(tmp);
		free(alt);
	} else {
		SKIP("not root: no file of another user to place beside");
		SKIP("not root");
		SKIP("not root");
		SKIP("not root");
	}
	free(tmp);
	free(file);

	/* ---- stored results ---------------------------------------------------------------------
	 */
	msg_set_quiet(1);
	CHECK(decode_text(dir, "rank 0: 12.5 ms\n") == NULL, "plain text is taken");
	CHECK(decode_text(dir, "rank 0: 12 \xc2\xb5s \xe2\x80\x94 ok\n") == NULL, "UTF-8 is taken");
	const char *bad[] = {"\x1b[31mred\n",
	                     "bell\a\n",
	                     "tab\there\n",
	                     "cr\r\n",
	                     "del\x7f\n",
	                     "c1 \xc2\x9b"
	                     "31m\n",
	                     "not utf-8 \xff\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *w = decode_text(dir, bad[i]);
		CHECK(w != NULL && strstr(w, "bytes tl never prints") != NULL,
		      "a result holding bytes tl never prints (#%zu) is refused (%s)", i,
		      w ? w : "taken");
	}
	parts(dir);
	test_rmtree(dir);
	return test_done();
}
