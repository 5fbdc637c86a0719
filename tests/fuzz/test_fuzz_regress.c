/* Replays through the fuzz targets' own functions (tests/fuzz/fuzz_*.c, built here by the
 * normal compiler) every input committed under tests/fuzz/regress/TARGET/ -- each one a crash
 * or hang the fuzzers once found -- and a few inputs written here. A crash fails the run;
 * under `make check-sanitizers` so does any memory error. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz.h"
#include "store/cache.h"
#include "util/xalloc.h"
#include "../unit/test.h"
#include "../unit/util/gzip_test.h"

typedef int (*fuzz_fn)(const uint8_t *, size_t);

static const struct {
	const char *name;
	fuzz_fn fn;
} targets[] = {
    {"rankspec", fuzz_rankspec},
    {"keymap", fuzz_keymap},
    {"theme", fuzz_theme},
    {"stages", fuzz_stages},
    {"json", fuzz_json},
    {"gzjson", fuzz_gzjson},
    {"db", fuzz_db},
    {"cache", fuzz_cache},
    {"query", fuzz_query},
    {"dbpage", fuzz_dbpage},
};
#define NTARGETS (sizeof targets / sizeof *targets)

static fuzz_fn
target(const char *name)
{
	for (size_t i = 0; i < NTARGETS; i++)
		if (strcmp(targets[i].name, name) == 0)
			return targets[i].fn;
	return NULL;
}

/* Runs one input in a child process: 0 when it returned normally. */
static int
run_input(const char *t, const uint8_t *data, size_t len)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		target(t)(data, len);
		_exit(0);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		printf("# %s: killed by signal %d\n", t, WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		printf("# %s: exit status %d\n", t, WEXITSTATUS(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void
run_text(const char *t, const char *what, const char *text)
{
	CHECK(run_input(t, (const uint8_t *)text, strlen(text)) == 0, "%s: %s", t, what);
}

/* The query target's input: the SQL, a NUL byte, the profile's JSON. */
static void
run_query(const char *what, const char *sql, const char *json)
{
	size_t a = strlen(sql), b = strlen(json);
	uint8_t *buf = xmalloc(a + b + 1);
	memcpy(buf, sql, a);
	buf[a] = 0;
	memcpy(buf + a + 1, json, b);
	CHECK(run_input("query", buf, a + 1 + b) == 0, "query: %s", what);
	free(buf);
}

static int
replay_dir(const char *dir, const char *t)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0)
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		FILE *f = fopen(p, "rb");
		if (f == NULL) {
			CHECK(0, "%s: cannot read %s", t, p);
			free(p);
			continue;
		}
		uint8_t *buf = xmalloc(1 << 20);
		size_t len = fread(buf, 1, 1 << 20, f);
		fclose(f);
		CHECK(run_input(t, buf, len) == 0, "%s: regress/%s/%s replays without a crash", t,
		      t, e->d_name);
		free(buf);
		free(p);
		n++;
	}
	closedir(d);
	return n;
}

/* Runs target t (db, dbpage) on a SQLite file built from sql (binary inputs are not committed:
 * the DB cases are written here). */
static void
run_sql(const char *t, const char *what, const char *sql)
{
	char path[] = "/tmp/tl-regress-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "db: %s: a temporary file", what);
	if (fd < 0)
		return;
	close(fd);
	sqlite3 *db;
	char *err = NULL;
	int ok = sqlite3_open(path, &db) == SQLITE_OK &&
	         sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK;
	if (!ok)
		printf("# db: %s: %s\n", what, err ? err : sqlite3_errmsg(db));
	sqlite3_free(err);
	sqlite3_close(db);
	struct stat st;
	FILE *f = ok ? fopen(path, "rb") : NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	if (f != NULL && fstat(fileno(f), &st) == 0) {
		buf = xmalloc((size_t)st.st_size + 1);
		len = fread(buf, 1, (size_t)st.st_size, f);
	}
	if (f != NULL)
		fclose(f);
	unlink(path);
	CHECK(buf != NULL && len > 0 && run_input(t, buf, len) == 0, "%s: %s", t, what);
	free(buf);
}

/* Two collectives of 5.6e18 and 4.6e18 ns in one group, each with a transfer and a wait that
 * long, between ranks 0 and 1: their summed transfer, wait and matrix times pass int64 (the
 * DB twin of regress/json/two-long-collectives.json; the sums saturate now). */
static const char long_collectives[] =
    "CREATE TABLE META_DATA (name TEXT,value TEXT);"
    "INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');"
    "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
    "INSERT INTO STRING_IDS VALUES (1,'hcom_allReduce__1_1_1'),(2,'grp'),(3,'Memcpy'),"
    "(4,'Notify_Wait');"
    "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,"
    "globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId INTEGER,"
    "taskId INTEGER,modelId INTEGER);"
    "INSERT INTO TASK VALUES (-4611686018427387000,4611686018427387000,0,1,1,1,2,4294967295,1,1,0),"
    "(-4611686018427387000,4611686018427387000,0,1,2,1,2,4294967295,1,2,0),"
    "(-4611686018427387000,3611686018427387000,0,2,3,1,2,4294967295,1,3,0),"
    "(-4611686018427387000,3611686018427387000,0,2,4,1,2,4294967295,1,4,0);"
    "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType INTEGER,"
    "planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,srcRank INTEGER,"
    "dstRank INTEGER,transportType INTEGER,size INTEGER,dataType INTEGER,linkType INTEGER,"
    "opId INTEGER);"
    "INSERT INTO COMMUNICATION_TASK_INFO VALUES (1,1,3,0,2,0,0,0,1,0,8,0,0,1),"
    "(1,2,4,0,2,0,0,0,1,0,0,0,0,1),(1,3,3,0,2,0,0,0,1,0,8,0,0,2),(1,4,4,0,2,0,0,0,1,0,0,0,0,2);"
    "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,"
    "connectionId INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY);"
    "INSERT INTO COMMUNICATION_OP VALUES (1,-4611686018427387000,4611686018427387000,1,2,1),"
    "(1,-4611686018427387000,3611686018427387000,2,2,2);"
    "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER,deviceId INTEGER);"
    "INSERT INTO RANK_DEVICE_MAP VALUES (0,0);";

/* The body (after header and key) of a valid cache file of a made-up rank 0 with lanes deep
 * enough for three levels of detail, two steps and step tags: what fuzz_cache accepts whole. */
static uint8_t *
valid_cache_body(size_t *len)
{
	tl_source src;
	memset(&src, 0, sizeof src);
	src.kind = TL_SRC_TORCH_DB;
	src.path = (char *)"/nonexistent/tl-fuzz/ascend_pytorch_profiler_0.db";
	src.role_step = -1;
	tl_rank *r = rank_new(0);
	r->loaded = 1;
	const tl_source *sp = &src;
	r->sources = xmalloc(sizeof *r->sources);
	r->sources[0] = sp;
	r->nsources = 1;
	tl_step st[2] = {{1, 0, 50000}, {2, 50000, 100000}};
	size_t base;
	rank_add_steps(r, st, 2, &base);
	tl_track *t = rank_track(r, TL_LANE_COMPUTE, 0, "Stream 0");
	uint32_t nm = strpool_intern_cstr(r->pool, "kernel");
	for (int i = 0; i < 5000; i++)
		track_push_step(t, i * 20, i * 20 + 1 + i % 17, nm, (uint32_t)i, i < 2500 ? 0 : 1);
	rank_finish(r);
	size_t klen;
	uint8_t *key = cache_key(&src, 1, &klen);
	FILE *f = tmpfile();
	uint64_t bytes = 0;
	uint8_t *body = NULL;
	*len = 0;
	if (f != NULL && cache_write_fd(dup(fileno(f)), key, klen, r, NULL, 0, &bytes) == 0 &&
	    bytes > TL_CACHE_HEADER + klen) {
		*len = (size_t)bytes - TL_CACHE_HEADER - klen;
		body = xmalloc(*len);
		if (fseek(f, (long)(TL_CACHE_HEADER + klen), SEEK_SET) != 0 ||
		    fread(body, 1, *len, f) != *len)
			*len = 0;
	}
	if (f != NULL)
		fclose(f);
	free(key);
	rank_free(r);
	return body;
}

int
main(void)
{
	const char *src = getenv("TL_SRCDIR");
	int total = 0;
	for (size_t i = 0; i < NTARGETS; i++) {
		char *dir = xasprintf("%s/tests/fuzz/regress/%s", src ? src : ".", targets[i].name);
		total += replay_dir(dir, targets[i].name);
		free(dir);
	}
	printf("# %d committed regression inputs replayed\n", total);

	/* inputs at the edges of each parser, replayed on every run */
	run_text("rankspec", "empty spec", "");
	run_text("rankspec", "largest range", "0-65536,999935-1000000");
	run_text("rankspec", "overflowing number", "99999999999999999999999");
	run_text("keymap", "nested meta names",
	         "bind <M-<M-x>> quit\nbind <M-> quit\nbind <> quit");
	run_text("keymap", "a key name of 70 bytes",
	         "bind <aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa> "
	         "quit");
	run_text("keymap", "a key at the top of Unicode",
	         "bind \xf4\x8f\xbf\xbf quit\nunbind \xf4\x8f\xbf\xbf");
	run_text(
	    "theme", "colours out of range",
	    "color ruler 256 -1\ncolor ruler color999 red\ncolor ruler 255/bright-white 0/15 bold");
	run_text("theme", "twelve tokens and more", "color a b c d e f g h i j k l m n o p");
	run_text("stages", "a bad pattern and a clear", "rollout (\nclear\nother: x\nignore ^$");
	run_text("stages", "a user stage name with controls", "other:\x1b[31mx .\nrollout .*");
	run_text("json", "an empty file", "");
	run_text("json", "a cut event", "[{\"ph\":\"X\",\"ts\":\"1.5\",\"dur\":2,\"name\":\"a");
	run_text(
	    "json", "deep args",
	    "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"a\",\"args\":"
	    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
	    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}]");
	/* gzjson: text is compressed by the target and cut where its first byte says; gzip
	 * data goes in as it is */
	run_text("gzjson", "an empty input", "");
	run_text("gzjson", "a trace compressed whole",
	         "\xff{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\","
	         "\"pid\":0,\"tid\":1,\"ts\":1,\"dur\":2}]}");
	run_text("gzjson", "a stream cut after its header", "\x03{\"traceEvents\":[]}");
	{
		/* a bomb: 8 MiB of spaces behind a trace's start, against the target's 1 MiB */
		size_t zn = (size_t)8 << 20, bn = 0;
		unsigned char *sp = xmalloc(zn);
		memset(sp, ' ', zn);
		memcpy(sp, "{\"traceEvents\":[", 16);
		unsigned char *bomb = gzip_of(sp, zn, 9, &bn);
		int ok = bomb != NULL;
		CHECK(ok && run_input("gzjson", bomb, bn) == 0,
		      "gzjson: an 8 MiB bomb in %lu bytes", (unsigned long)bn);
		CHECK(ok && run_input("gzjson", bomb, bn / 2) == 0, "gzjson: the bomb cut in half");
		free(sp);
		free(bomb);
	}
	run_text("db", "an empty file (a rank without tracks)", "");
	run_text("db", "a text file", "SQLite format 3");
	run_sql("db", "two collectives of 5.6e18 and 4.6e18 ns in one group", long_collectives);
	run_text("dbpage", "an empty file", "");
	run_text("dbpage", "a header and nothing more", "SQLite format 3");
	run_sql("dbpage", "a file of every serial type, an overflow chain and an added column",
	        "PRAGMA page_size = 512; CREATE TABLE t (a, b REAL, c, d, e, f, g, h);"
	        "INSERT INTO t VALUES (NULL, 1, -200, 70000, 2147483648, 140737488355328, "
	        "-9223372036854775808, 1.5);"
	        "INSERT INTO t VALUES (0, 2.0, 'text', x'00ff', randomblob(3000), '', x'', 1);"
	        "ALTER TABLE t ADD COLUMN i; INSERT INTO t SELECT a, b, c, d, e, f, g, h, 9 FROM t;"
	        "CREATE TABLE u (x); WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM "
	        "n WHERE k < 400) INSERT INTO u SELECT k * 1000003 FROM n");
	run_text("query", "every table of an empty profile", "SELECT 1");
	run_text(
	    "query", "a recursive query that never ends",
	    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c");
	run_text("query", "ATTACH", "ATTACH DATABASE '/tmp/tl-fuzz-query.db' AS x");
	run_query("slices of nested, unsorted and huge times with the bounds pushed down",
	          "SELECT rank, kind, name, step, stage, dur_ns FROM slices WHERE rank = 0 AND "
	          "start_ns >= -4611686018427387903 AND end_ns <= 4611686018427387903",
	          "[{\"ph\":\"X\",\"ts\":5,\"dur\":9,\"name\":\"a\",\"pid\":1,\"tid\":1},"
	          "{\"ph\":\"X\",\"ts\":1,\"dur\":99,\"name\":\"b\",\"pid\":1,\"tid\":1},"
	          "{\"ph\":\"X\",\"ts\":4e12,\"dur\":1e12,\"name\":\"\\u001b[31m\",\"pid\":1,"
	          "\"tid\":2,\"cat\":\"kernel\"},"
	          "{\"ph\":\"C\",\"ts\":3,\"name\":\"mem\",\"pid\":1,\"args\":{\"v\":1e300}}]");
	run_query("a text bound, a NULL rank and a rank past int",
	          "SELECT count(*) FROM slices WHERE "
	          "rank = NULL OR rank = 99999999999 OR start_ns > 'x' OR end_ns = 1.5",
	          "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"a\",\"pid\":1,\"tid\":1}]");
	run_query("step = pushed down over two steps of one id, overlapping, and the findings",
	          "SELECT (SELECT count(*) FROM slices WHERE step = 7) + (SELECT count(*) FROM ops "
	          "WHERE step = 7) + (SELECT count(*) FROM slices WHERE step = -1) + (SELECT "
	          "count(*) FROM findings)",
	          "[{\"ph\":\"X\",\"ts\":1,\"dur\":50,\"name\":\"ProfilerStep#7\",\"pid\":1,"
	          "\"tid\":1},"
	          "{\"ph\":\"X\",\"ts\":40,\"dur\":50,\"name\":\"ProfilerStep#7\",\"pid\":1,"
	          "\"tid\":1},"
	          "{\"ph\":\"X\",\"ts\":95,\"dur\":5,\"name\":\"ProfilerStep#8\",\"pid\":1,"
	          "\"tid\":1},"
	          "{\"ph\":\"X\",\"ts\":60,\"dur\":9,\"name\":\"k\",\"pid\":2,\"tid\":3,"
	          "\"cat\":\"kernel\"},"
	          "{\"ph\":\"X\",\"ts\":2,\"dur\":1,\"name\":\"k\",\"pid\":2,\"tid\":3,"
	          "\"cat\":\"kernel\"}]");
	run_text("cache", "an empty body", "");
	run_text("cache", "a file of its header only", "RTLMODEL");
	/* a body whose counts claim more than it holds: rank 0, flags, rows, no role, 2^60
	 * strings */
	static const uint8_t huge[] = {0,   0,   0,   0,   0, 0, 0, 0, 1, 0, 0,   0,   0,   0,
	                               0,   0,   0,   0,   0, 0, 0, 0, 0, 0, 255, 255, 255, 255,
	                               255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0,   16};
	CHECK(run_input("cache", huge, sizeof huge) == 0, "cache: a string count of 2^60");
	/* a whole valid file, decoded in place (even words) and, one word longer, copied */
	size_t blen;
	uint8_t *body = valid_cache_body(&blen);
	CHECK(blen > 5000 * sizeof(tl_slice), "cache: a valid body of %zu bytes", blen);
	if (blen > 0) {
		CHECK(run_input("cache", body, blen) == 0, "cache: a valid file");
		uint8_t *longer = xcalloc(1, blen + 8);
		memcpy(longer, body, blen);
		CHECK(run_input("cache", longer, blen + 8) == 0, "cache: a valid file and a word");
		free(longer);
	}
	free(body);
	return test_done();
}
