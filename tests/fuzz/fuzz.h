/* Shared by the libFuzzer targets tests/fuzz/fuzz_*.c. Each target file defines one function
 * fuzz_NAME(data, size). Built for libFuzzer (`make fuzz-smoke`, clang -fsanitize=fuzzer) it
 * also defines LLVMFuzzerTestOneInput; built with -DTL_FUZZ_NO_MAIN (gcc, `make check`) the
 * same functions replay the committed inputs of tests/fuzz/regress/ (test_fuzz_regress.c). */
#ifndef TL_FUZZ_H
#define TL_FUZZ_H
#include <stddef.h>
#include <stdint.h>

#ifdef TL_FUZZ_NO_MAIN
#define FUZZ_ENTRY(name) int fuzz_##name(const uint8_t *data, size_t size)
#else
#define FUZZ_ENTRY(name)                                                                           \
	int fuzz_##name(const uint8_t *data, size_t size);                                         \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                              \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                               \
	{                                                                                          \
		return fuzz_##name(data, size);                                                    \
	}                                                                                          \
	int fuzz_##name(const uint8_t *data, size_t size)
#endif

int fuzz_rankspec(const uint8_t *, size_t);
int fuzz_keymap(const uint8_t *, size_t);
int fuzz_theme(const uint8_t *, size_t);
int fuzz_stages(const uint8_t *, size_t);
int fuzz_json(const uint8_t *, size_t);
int fuzz_gzjson(const uint8_t *, size_t);
int fuzz_db(const uint8_t *, size_t);
int fuzz_cache(const uint8_t *, size_t);
int fuzz_query(const uint8_t *, size_t);
int fuzz_dbpage(const uint8_t *, size_t);

/* Once per process: warnings off, no user configuration, JSON read into exact-size buffers
 * (so that AddressSanitizer sees every byte past the end). */
void fuzz_setup(void);
/* A NUL-terminated copy of the input (malloc'd). */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* Writes the input to this process's scratch file NAME.EXT under $TMPDIR (or /dev/shm when
 * writable) and returns its path (static storage). */
const char *fuzz_file(const uint8_t *data, size_t size, const char *ext);
/* Runs the analyses and reports over a loaded rank, as `tl summary` and the viewer would. */
struct tl_rank;
void fuzz_exercise_rank(struct tl_rank *r, const void *src);

#endif
