/* A tiny TAP producer: every check prints "ok N - msg" or "not ok N - msg", and test_done()
 * prints the plan "1..N" that automake's TAP driver (`make check`) expects at the end; a program
 * that dies before it is reported as an error. Include once per test program. */
#ifndef TL_TEST_H
#define TL_TEST_H
#include <ftw.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_n, test_failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		test_n++;                                                                          \
		if (cond) {                                                                        \
			printf("ok %d - ", test_n);                                                \
		} else {                                                                           \
			test_failed++;                                                             \
			printf("not ok %d - %s:%d: ", test_n, __FILE__, __LINE__);                 \
		}                                                                                  \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		fflush(stdout);                                                                    \
	} while (0)

#define CHECK_EQ_I64(a, b, msg)                                                                    \
	do {                                                                                       \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                      \
		CHECK(a_ == b_, "%s (got %" PRId64 ", want %" PRId64 ")", msg, a_, b_);            \
	} while (0)

#define CHECK_STR(a, b, msg)                                                                       \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		CHECK(a_ != NULL && b_ != NULL && strcmp(a_, b_) == 0, "%s (got '%s', want '%s')", \
		      msg, a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                \
	} while (0)

#define SKIP(...)                                                                                  \
	do {                                                                                       \
		test_n++;                                                                          \
		printf("ok %d - # SKIP ", test_n);                                                 \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
	} while (0)

/* The next of a xorshift64 sequence in *state (not 0): reproducible random test data. */
static inline uint64_t
test_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static inline int
test_done(void)
{
	printf("1..%d\n", test_n);
	fflush(stdout);
	return test_failed ? 1 : 0;
}

/* ---- what the programs that read samples or generate profiles share ---------------------- */

/* The samples: $TL_SAMPLES, else ../shared/samples beside the source tree ($TL_SRCDIR). */
static inline const char *
test_samples_dir(void)
{
	static char buf[4096];
	const char *s = getenv("TL_SAMPLES");
	if (s && *s)
		return s;
	const char *src = getenv("TL_SRCDIR");
	snprintf(buf, sizeof buf, "%s/../shared/samples", src && *src ? src : ".");
	return buf;
}

/* A fresh directory /tmp/tl-test-NAME-XXXXXX (malloc'd; test_rmtree removes and frees it), or
 * NULL after a failed check. */
static inline char *
test_tmpdir(const char *name)
{
	size_t len = strlen(name) + sizeof "/tmp/tl-test--XXXXXX";
	char *dir = malloc(len);
	if (dir == NULL) {
		CHECK(0, "out of memory");
		return NULL;
	}
	snprintf(dir, len, "/tmp/tl-test-%s-XXXXXX", name);
	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		free(dir);
		return NULL;
	}
	return dir;
}

static inline int
test_rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* Removes dir and everything in it, and frees dir. */
static inline void
test_rmtree(char *dir)
{
	if (dir)
		nftw(dir, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

#ifdef TL_LOADING_H /* the programs that load profiles */
#include <sys/stat.h>
/* Loads the samples' ascend-db/LEVEL into tr (one check: "load LEVEL"), its path into base;
 * 0, or -1 after a SKIP line when the samples are absent (tr is then not loaded). */
static inline int
test_load_sample_db(const char *level, tl_trace *tr, char *base, size_t len)
{
	struct stat sb;
	snprintf(base, len, "%.4000s/ascend-db/%s", test_samples_dir(), level);
	if (stat(base, &sb) != 0) {
		SKIP("samples absent: %s", base);
		return -1;
	}
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(base, &lo, tr) == 0, "load %s", level);
	return 0;
}
#endif

#ifdef TL_GEN_H /* the programs that generate profiles */
/* A generated profile of nranks ranks of about tasks device tasks each, no slow rank, into
 * dir (one thread); 0, or -1 after a failed check. */
static inline int
test_gen_ranks(const char *dir, int nranks, uint64_t tasks)
{
	gen_opts g;
	gen_opts_default(&g);
	g.nranks = nranks;
	g.tasks_per_rank = tasks;
	g.threads = 1;
	g.slow_rank = -1;
	if (gen_profile(&g, dir, NULL) != 0) {
		CHECK(0, "generate %d ranks", nranks);
		return -1;
	}
	return 0;
}
#endif

#ifdef TL_REPORT_H /* the programs that print summaries */
/* `tl summary` of tr as the command prints it, JSON or text, through a session of its own with
 * options qo (NULL: the defaults); malloc'd, NULL when out of memory. */
static inline char *
test_summary(tl_trace *tr, const tl_query_opts *qo, int json)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	if (f == NULL)
		return NULL;
	tl_query *q = tlq_open(tr, qo);
	if (json)
		report_summary_json(f, q);
	else
		report_summary_text(f, q);
	tlq_close(q);
	fclose(f);
	return s;
}
#endif

#ifdef SQLITE_VERSION /* the programs that include sqlite3.h: plain SQL, the tests' oracle */
/* A DB opened read-only and immutable (nothing is written beside a sample), or NULL. */
static inline sqlite3 *
test_sql_open(const char *path)
{
	size_t len = strlen(path) + sizeof "file:?immutable=1";
	char *uri = malloc(len);
	sqlite3 *db = NULL;
	if (uri == NULL)
		return NULL;
	snprintf(uri, len, "file:%s?immutable=1", path);
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		db = NULL;
	}
	free(uri);
	return db;
}

/* The first column of the first row of sql, or INT64_MIN (an error, no row, NULL). */
static inline int64_t
test_sql_i64(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = INT64_MIN;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return v;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}
#endif

#endif
