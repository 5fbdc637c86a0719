/* A tiny TAP producer: every check prints "ok N - msg" or "not ok N - msg", and test_done()
 * prints the plan "1..N" that automake's TAP driver (`make check`) expects at the end; a program
 * that dies before it is reported as an error. Include once per test program. */
#ifndef TL_TEST_H
#define TL_TEST_H
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int test_n, test_failed;

#define CHECK(cond, ...)                                                                      \
	do {                                                                                  \
		test_n++;                                                                     \
		if (cond) {                                                                   \
			printf("ok %d - ", test_n);                                           \
		} else {                                                                      \
			test_failed++;                                                        \
			printf("not ok %d - %s:%d: ", test_n, __FILE__, __LINE__);            \
		}                                                                             \
		printf(__VA_ARGS__);                                                          \
		printf("\n");                                                                 \
		fflush(stdout);                                                               \
	} while (0)

#define CHECK_EQ_I64(a, b, msg)                                                               \
	do {                                                                                  \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                 \
		CHECK(a_ == b_, "%s (got %" PRId64 ", want %" PRId64 ")", msg, a_, b_);       \
	} while (0)

#define CHECK_STR(a, b, msg)                                                                  \
	do {                                                                                  \
		const char *a_ = (a), *b_ = (b);                                              \
		CHECK(a_ != NULL && b_ != NULL && strcmp(a_, b_) == 0,                        \
		    "%s (got '%s', want '%s')", msg, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#define SKIP(...)                                                                             \
	do {                                                                                  \
		test_n++;                                                                     \
		printf("ok %d - # SKIP ", test_n);                                            \
		printf(__VA_ARGS__);                                                          \
		printf("\n");                                                                 \
	} while (0)

static inline int
test_done(void)
{
	printf("1..%d\n", test_n);
	fflush(stdout);
	return test_failed ? 1 : 0;
}

#endif
