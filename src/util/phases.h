/* Where a command's time goes, for `make bench` (TL_PHASES=1): each phase's wall and CPU time
 * summed over the threads that ran it, the resident memory when it last ended, the most of it
 * that was anonymous at any of its ends, and the peak so far, printed to stderr at the end. Off
 * (the default), a mark costs one load of a flag. */
#ifndef TL_PHASES_H
#define TL_PHASES_H
#include <stdint.h>
#include <stdio.h>

typedef enum tl_phase {
	TL_PHASE_OPEN,     /* discovery, the memory check, the model cache's look-up */
	TL_PHASE_READ,     /* each rank's inputs read into its model (per thread) */
	TL_PHASE_GATHER,   /* each rank's gathered tables finished (per thread) */
	TL_PHASE_CACHE,    /* each rank's cache file written and mapped back (per thread) */
	TL_PHASE_LOAD,     /* the parallel load as a whole: read, gather and cache of every rank */
	TL_PHASE_CLOCK,    /* the hosts' clocks */
	TL_PHASE_ANALYSES, /* the query session and the report, formatted into memory */
	TL_PHASE_OUTPUT,   /* the report written out */
	TL_PHASE_N
} tl_phase;

typedef struct tl_phase_mark {
	int64_t wall,
	    cpu; /* ns at the start: monotonic, and this thread's CPU (or the process's) */
} tl_phase_mark;

/* Whether TL_PHASES is set (and not "0"); read once. */
int phases_on(void);
/* Starts a mark: this thread's CPU time, or the whole process's when process is set (a phase
 * that runs its own threads, as the parallel load). */
void phase_begin(tl_phase_mark *, int process);
/* Adds the time since m began to phase p (thread-safe). */
void phase_end(const tl_phase_mark *m, tl_phase p, int process);
/* One line per phase that ran, to out. */
void phases_print(FILE *out);

#endif
