/* The rest of msprof-analyze's cluster_time_summary split of a rank's step, next to the overlap
 * breakdown (overlap.h): memory (memcpy) time and the part of it nothing else covers, and the
 * split of communication into transmitting and waiting for the group's slowest rank. */
#ifndef TL_TIMESPLIT_H
#define TL_TIMESPLIT_H
#include <stdint.h>

#include "analysis/collectives.h"
#include "model/trace.h"

/* MEMCPY_ASYNC device tasks that start inside [t0, t1] (the step's host range; cluster_time_
 * summary bins a memcpy by its own start): *memory = the sum of their durations;
 * *not_overlapped = the length of their union not covered by the compute or communication of
 * `step` (TL_NO_STEP: all). Where the memory lanes carry the step of each copy's launch (a
 * Kineto trace: gpu_memcpy and gpu_memset, HolisticTraceAnalysis' memory category), *memory is
 * the union of the step's copies and sets instead, and t0, t1 are not read. */
void timesplit_memory(const tl_rank *, uint16_t step, int64_t t0, int64_t t1, int64_t *memory,
                      int64_t *not_overlapped);

/* Transmit and wait parts of one rank's op in a collective instance that every rank of its group
 * ran: transmit = the shortest op among the ranks (the fastest rank only transferred), wait =
 * the rank's own op minus it. Returns 0 and sets both, or -1 when the rank is not in it. */
int timesplit_collective(const tl_coll *, int rank, int64_t *transmit, int64_t *wait);

#endif
