/* The generator's Kineto writer for collectives: one PyTorch-profiler (Kineto) trace per rank of
 * an NCCL job, as torch writes them, with every way a trace names its collectives:
 *  - NCCL 2.19+'s one kernel ncclDevKernel_Generic, its type in the kernel's args ("Collective
 *    name", "Process Group Name", "Group size", "dtype", "In msg nelems", "Out msg nelems") as
 *    torch 2.2+ copies them from the record_param_comms operator that launched it;
 *  - the same kernel without those args, the type only in its record_param_comms operator;
 *  - torch before 2.2: ncclKernel_SendRecv kernels launched inside an nccl:all_to_all range;
 *  - a kernel whose own name says it (ncclKernel_AllReduce_RING_LL_Sum_float);
 *  - send / recv pairs between neighbouring ranks (point-to-point, no collective).
 * Launch calls (cudaLaunchKernel) share a correlation id with their kernels. Every rank arrives at
 * a collective at its own time (the slow rank last) and they all end together. With gzip, each
 * file is written compressed (rank{r}.pt.trace.json.gz, as torch's use_gzip=True). */
#ifndef TL_GEN_NCCL_H
#define TL_GEN_NCCL_H
#include <stdint.h>

#define GEN_NCCL_MAX_HOSTS 64

typedef struct gen_nccl_opts {
	int nranks;    /* default 4 */
	int nsteps;    /* ProfilerStep ranges; default 2 */
	int kernels;   /* compute kernels before each collective; default 2 */
	int rounds;    /* times the collective plan repeats per step; default 1 */
	int slow_rank; /* the rank that arrives last by 300 us; -1 none; default 1 */
	uint64_t seed; /* default 1 */
	int gzip;      /* write *.pt.trace.json.gz */
	/* hosts: 0, every trace rank{r}.pt.trace.json (no host named); N, the ranks in N blocks,
	 * one host each (gen-node{h}), each trace named as torch's tensorboard_trace_handler names
	 * it, {hostname}_{pid}.{time_ns}.pt.trace.json, and written on its host's clock: host h's
	 * clock is clock_off[h] ns ahead of host 0's and drifts clock_ppm[h] (ppm) from t0 */
	int hosts;
	int64_t clock_off[GEN_NCCL_MAX_HOSTS];
	double clock_ppm[GEN_NCCL_MAX_HOSTS];
} gen_nccl_opts;

void gen_nccl_opts_default(gen_nccl_opts *);
/* Writes OUTDIR/rank{r}.pt.trace.json[.gz] (with hosts: {host}_{pid}.{time}.pt.trace.json[.gz])
 * for every rank. 0, or -1 after a message. */
int gen_nccl(const char *outdir, const gen_nccl_opts *);

#endif
