/* Rollout load balance as msprof-analyze's dp_analysis measures it: per DP rank the engine
 * steps it ran, how many steps it sat idle while others still decoded (the bubble rate, a count
 * of steps), its token throughput and the per-step concurrency its marks report. dp_analysis
 * computes these over a whole capture; the query layer calls dp_compute once per rollout. */
#ifndef TL_DP_H
#define TL_DP_H
#include <stddef.h>
#include <stdint.h>

/* One engine step: a decode range and, when its mark said so, the scheduler's numbers at its
 * end (vLLM: num_running_reqs, num_waiting_reqs, gpu_cache_usage, and the request outputs of
 * the step). */
typedef struct tl_dp_step {
	int64_t start, end; /* ns, host: the range's host call, as dp_analysis takes them */
	int has_stats;      /* the mark was read; the four numbers below are valid */
	double running, waiting, cache_usage, out_tokens;
} tl_dp_step;

/* Reads the message of a step_process mark: a JSON object with the numbers "running_reqs",
 * "waiting_reqs", "gpu_cache_usage" and "out_tokens", each finite and >= 0 (other keys are
 * ignored). Returns 1 and fills the stats of *s, or 0 (nothing changed) for anything else. */
int dp_mark_parse(const char *msg, size_t len, tl_dp_step *s);

#define TL_DP_NONE (-1.0) /* a number the marks do not give (printed as null or a dash) */

/* One rank of one rollout. */
typedef struct tl_dp_rank {
	size_t rank;             /* index into the trace's ranks */
	const tl_dp_step *steps; /* its decode steps in the rollout, by start (borrowed) */
	size_t nsteps;
	int max_step;           /* index of its last step (0-based in the rollout), -1: none */
	double bubble_rate_pct; /* (global max step - max_step) / global max step x 100; TL_DP_NONE
	                           when the global max step is 0 */
	int has_stats;     /* every step has its stats; else the numbers below are TL_DP_NONE */
	double out_tokens; /* sum over the steps */
	double throughput; /* out_tokens / (last step end - first step start), tokens/s */
	double mean_running, mean_waiting, peak_cache_usage;
} tl_dp_rank;

/* Fills everything but rank, steps and nsteps of the n rows (one rollout). */
void dp_compute(tl_dp_rank *v, size_t n);

/* What the concurrency chart shows per step: dp_analysis' dp_event_plot draws out_tokens; the
 * other three numbers of the mark show why a rank drains early or late. */
enum { TL_DP_TOKENS, TL_DP_RUNNING, TL_DP_WAITING, TL_DP_CACHE, TL_DP__METRICS };
/* "out_tokens", "running_reqs", "waiting_reqs", "gpu_cache_usage" (the mark's keys). */
const char *dp_metric_name(int metric);
/* The step's number, or TL_DP_NONE when its mark gave none. */
double dp_step_value(const tl_dp_step *, int metric);
/* The largest value of the metric over the rows' steps (0 when none is known), and over all
 * rows the largest max_step, and the smallest max_step of a row with steps (-1: no row has
 * one): the steps where the first rank and the last rank ran out of work. */
double dp_metric_max(const tl_dp_rank *v, size_t n, int metric);
void dp_end_steps(const tl_dp_rank *v, size_t n, int *earliest, int *latest);

#endif
