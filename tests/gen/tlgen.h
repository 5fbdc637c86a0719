/* The test generator's parts besides its command line (tlgen.c). */
#ifndef TL_TESTS_TLGEN_H
#define TL_TESTS_TLGEN_H
#include <stdint.h>

/* tlgen_bend.c: bends a written profile the way real jobs go wrong. Rank r's DB loses its
 * device data (TASK dropped, COMMUNICATION_OP emptied); or every time column of every table of
 * rank r's DB moves ns later (a rank whose clock starts later). 0, or -1 after a message. */
int tlgen_no_device(const char *dir, int r);
int tlgen_late(const char *dir, int r, int64_t ns);

/* tlgen_hostile.c: the profile whose every string is hostile to a terminal (tlgen.c's usage
 * says what it holds). 0, or -1 after a message. */
int tlgen_hostile(const char *outdir);

/* tlgen_kineto.c: `tlgen kineto FILE [options]`, one GPU rank's Kineto trace (tlgen.c's usage
 * lists the options). 0, or -1 after a message. */
int tlgen_kineto(const char *file, int argc, char **argv);

/* tlgen_nccl.c: `tlgen nccl OUTDIR [options]` (options argv[0..argc)). Exit status. */
int tlgen_nccl(const char *outdir, int argc, char **argv);

#endif
