/* The hostile profile (tlgen hostile OUTDIR), for test_untrusted.sh: writes
 * OUTDIR/db/1/ROLE/gen-r{0,1}_…_ascend_pt/ (torch_npu DBs; ROLE, two verl discrete-mode role
 * directories, are themselves hostile) and OUTDIR/json/…/trace_view.json (rank 0 as JSON).
 * Every STRING_IDS value (kernel, op, group, MSTX message and domain names) gets one of: an OSC
 * title sequence, CSI colour sequences (7-bit and C1), raw C0 controls, invalid UTF-8, or
 * 100 KB of text. The payloads carry the markers PWNED and EVIL, so a test can search the
 * bytes a terminal would receive for a marker right after an escape. */
#include "config.h"
#include "tlgen.h"

#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/gen.h"
#include "util/xalloc.h"

/* The role directory: ESC ] 0 ; PWNED BEL (sets the terminal title), then a name. */
#define EVIL_ROLE "\x1b]0;PWNED\x07role"
#define EVIL_ROLE2                                                                                 \
	"\x1b[31mEVIL\xc2\x9b"                                                                     \
	"critic\xff"

static const char *const payloads[] = {
    "\x1b]0;PWNED\x07",    /* OSC: set the window title */
    "\x1b[2J\x1b[31mEVIL", /* CSI: clear the screen, red */
    "\xc2\x9b"
    "31mEVIL", /* CSI as the C1 character U+009B */
    "\x9b"
    "31mEVIL\xff\xfe", /* a raw C1 byte, then invalid UTF-8 */
    "a\nb\rc\bd\x7f\x07"
    "EVIL", /* C0 controls and DEL */
    "\xe2\x80\xae"
    "EVIL\xc3", /* RIGHT-TO-LEFT OVERRIDE, then a cut sequence */
};
#define NPAYLOADS (sizeof payloads / sizeof *payloads)
#define LONG_NAME 100000

static int
poison_db(const char *path)
{
	sqlite3 *db;
	if (sqlite3_open(path, &db) != SQLITE_OK) {
		fprintf(stderr, "tlgen: %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	sqlite3_stmt *sel, *upd;
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	if (sqlite3_prepare_v2(db, "SELECT id, value FROM STRING_IDS", -1, &sel, NULL) !=
	        SQLITE_OK ||
	    sqlite3_prepare_v2(db, "UPDATE STRING_IDS SET value = ? WHERE id = ?", -1, &upd,
	                       NULL) != SQLITE_OK) {
		fprintf(stderr, "tlgen: %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	/* the updates go to a list first: changing rows while selecting them is undefined */
	int64_t *ids = NULL;
	char **vals = NULL;
	size_t n = 0, cap = 0;
	while (sqlite3_step(sel) == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(sel, 1);
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			ids = xreallocarray(ids, cap, sizeof *ids);
			vals = xreallocarray(vals, cap, sizeof *vals);
		}
		ids[n] = sqlite3_column_int64(sel, 0);
		size_t k = n % (NPAYLOADS + 1);
		if (k == NPAYLOADS) { /* 100 KB: the name, then x's */
			char *s = xmalloc(LONG_NAME + 1);
			snprintf(s, LONG_NAME + 1, "%s", v ? v : "");
			size_t l = strlen(s);
			memset(s + l, 'x', LONG_NAME - l);
			s[LONG_NAME] = '\0';
			vals[n] = s;
		} else {
			vals[n] = xasprintf("%s%s", payloads[k], v ? v : "");
		}
		n++;
	}
	sqlite3_finalize(sel);
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_text(upd, 1, vals[i], -1, SQLITE_STATIC);
		sqlite3_bind_int64(upd, 2, ids[i]);
		sqlite3_step(upd);
		sqlite3_reset(upd);
		free(vals[i]);
	}
	sqlite3_finalize(upd);
	free(ids);
	free(vals);
	int rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	sqlite3_close(db);
	return rc;
}

/* Calls fn on every *.db below dir. */
static int
each_db(const char *dir, int (*fn)(const char *, void *), void *ctx)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && rc == 0) {
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		size_t l = strlen(e->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rc = each_db(p, fn, ctx);
		else if (l > 3 && strcmp(e->d_name + l - 3, ".db") == 0)
			rc = fn(p, ctx);
		free(p);
	}
	closedir(d);
	return rc;
}

static int
poison_one(const char *path, void *ctx)
{
	(void)ctx;
	return poison_db(path);
}

static int
json_of_rank0(const char *path, void *ctx)
{
	const char *out = ctx;
	if (strstr(path, "_0.db") == NULL)
		return 0;
	char *dir = xasprintf("%s/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT", out);
	char *cmd = xasprintf("mkdir -p '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	char *js = xasprintf("%s/trace_view.json", dir);
	if (rc == 0)
		rc = gen_json_from_db(path, js);
	free(js);
	free(dir);
	return rc == 0 ? 1 : -1; /* 1: stop walking */
}

int
tlgen_hostile(const char *outdir)
{
	mkdir(outdir, 0755);
	char *jsdir = xasprintf("%s/json", outdir);
	char *step = xasprintf("%s/db/1", outdir);
	char *cmd = xasprintf("mkdir -p '%s' '%s'", step, jsdir);
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	/* verl discrete mode: <step>/<role>/<capture>, two roles of two ranks each */
	static const char *const roles[] = {EVIL_ROLE, EVIL_ROLE2};
	for (int i = 0; i < 2; i++) {
		char *gen = xasprintf("%s/gen%d", outdir, i);
		gen_opts o;
		gen_opts_default(&o);
		o.nranks = 2;
		o.slow_rank = 1;
		o.tasks_per_rank = 400;
		o.threads = 1;
		o.no_stage_ranges = 1;
		o.seed = (uint64_t)i + 1;
		if (gen_profile(&o, gen, NULL) != 0 || each_db(gen, poison_one, NULL) != 0)
			return -1;
		cmd = xasprintf("mv '%s' '%s/%s'", gen, step, roles[i]);
		if (system(cmd) != 0) {
			fprintf(stderr, "tlgen: %s failed\n", cmd);
			return -1;
		}
		free(cmd);
		free(gen);
	}
	if (each_db(step, json_of_rank0, jsdir) < 0)
		return -1;
	printf("tlgen: %s\n", outdir);
	free(step);
	free(jsdir);
	return 0;
}
