/* The test generator's parts besides its command line (tlgen.c). */
#ifndef TL_TESTS_TLGEN_H
#define TL_TESTS_TLGEN_H
#include <stdint.h>

/* tlgen_bend.c: bends a written profile the way real jobs go wrong. Rank r's DB loses its
 * device data (TASK dropped, COMMUNICATION_OP emptied); or every time column of every table of
 * rank r's DB moves ns later (a rank whose clock starts later). 0, or -1 after a message. */
int tlgen_no_device(const char *dir, int r);
int tlgen_late(const char *dir, int r, int64_t ns);
/* Rank r's DB as written on a host whose clock runs off_ns ahead of the reference's and drifts
 * ppm parts per million from t0_ns on: every time t of every table becomes
 * t + off_ns + round((t - t0_ns) * ppm / 1e6). 0, or -1 after a message. */
int tlgen_clock(const char *dir, int r, int64_t off_ns, double ppm, int64_t t0_ns);
/* Rank r's DB without its first collective (a rank whose capture began after it: the
 * profiler's warm-up). 0, or -1 after a message. */
int tlgen_drop_first_coll(const char *dir, int r);

/* tlgen_hostile.c: the profile whose every string is hostile to a terminal (tlgen.c's usage
 * says what it holds). 0, or -1 after a message. */
int tlgen_hostile(const char *outdir);

/* tlgen_kineto.c: `tlgen kineto FILE [options]`, one GPU rank's Kineto trace (tlgen.c's usage
 * lists the options). 0, or -1 after a message. */
int tlgen_kineto(const char *file, int argc, char **argv);

/* tlgen_nccl.c: `tlgen nccl OUTDIR [options]` (options argv[0..argc)). Exit status. */
int tlgen_nccl(const char *outdir, int argc, char **argv);

#endif
