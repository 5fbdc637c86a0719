/* The generator's Kineto writer: a PyTorch profiler (Kineto) Chrome trace of one GPU rank, in
 * the categories of a given year, with the device work running behind its launches as an
 * asynchronous GPU does (gen_kineto.c says what it holds). Tests compute their answers from the
 * written file with the definitions of HolisticTraceAnalysis and the TensorBoard plugin. */
#ifndef TL_GEN_KINETO_H
#define TL_GEN_KINETO_H
#include <stdint.h>

/* GEN_KINETO_2021: the TensorBoard plugin era's categories (Operator, Runtime, Kernel, Memcpy,
 * Memset; ProfilerStep#N an Operator; device threads "stream 7" as tid strings).
 * GEN_KINETO_2024: today's (cpu_op, cuda_runtime, kernel, gpu_memcpy, gpu_memset;
 * ProfilerStep#N a user_annotation; numeric stream tids named by thread_name, ac2g flows). */
enum { GEN_KINETO_2021, GEN_KINETO_2024 };

typedef struct gen_kineto_opts {
	int version;    /* GEN_KINETO_* */
	int nsteps;     /* ProfilerStep ranges; default 3 */
	int launches;   /* launch calls per step; default 200 */
	int precapture; /* device events at the start whose launch call is not in the trace
	                 * (launched before the capture began); default 0 */
	int after;      /* kernels launched after the last step's range ends (outside every
	                 * ProfilerStep); default 0 */
	int comm;       /* NCCL all-reduce kernels on a second stream, beside the compute */
	int inference;  /* a single-GPU inference job: no communication, short kernels the
	                 * host keeps ahead of, and between steps the host thread waits in
	                 * Python (threading.py wait) while the device is idle; its process id is
	                 * 1 (a container's), as is the label of the machine's second GPU */
	int no_flows;   /* GEN_KINETO_2024 without its ac2g flows (as some real traces are): the
	                 * correlation alone joins a call and its work */
	int rank;       /* distributedInfo.rank; -1: none written */
	uint64_t seed;  /* kernel lengths */
} gen_kineto_opts;

void gen_kineto_default(gen_kineto_opts *);
/* Writes the trace to path. 0, or -1 with a message. */
int gen_kineto(const gen_kineto_opts *, const char *path);

#endif
