/* Module statistics, as msprof-analyze's module_statistic computes them from the ranges of the
 * MSTX domain "Module" (one per nn.Module call, the message its class name):
 *  1. Backward modules are synthesized. The forward operators that autograd links to a
 *     backward operator are placed in the innermost module range that holds them (a tree built
 *     by time containment); the links, in backward-start order, are cut into runs of the same
 *     module instance, and each run becomes a backward module [first backward start, last
 *     backward end] named like the forward one, inside a parent range 1 ns wider on each side
 *     named by the forward module's whole parent chain ("Model/Layer").
 *  2. Every operator that launched kernels goes to the innermost module (forward or backward)
 *     whose range holds it; operators outside every module are left out. Nesting deeper than
 *     20 modules is left out too.
 *  3. One row per module instance and operator: its parent chain ("/"-joined), the module
 *     ("[Backward]" before the name inside a backward module), the operator, its kernels
 *     (", "-joined) and their device time.
 *  4. Rows of the same (parent chain, module, operator, place of the operator in its module,
 *     kernel list, operator sequence of the module) are summed: total, mean and count. Where
 *     neighbouring rows of the same module name have different operator sequences, the
 *     module gets a suffix _0, _1, ... in the order the sequences first appeared.
 * Rows are in execution order (first operator start). Times ns. */
#ifndef TL_ANALYSIS_MODULES_H
#define TL_ANALYSIS_MODULES_H
#include <stddef.h>
#include <stdint.h>

#include "model/modules.h"

#define MODULES_MAX_DEPTH 20 /* module_statistic's traversal stops below this nesting */

typedef struct tl_module_row {
	const char *parent;         /* "Model/Layer", "" at the top (strings owned by the stats) */
	const char *module;         /* "Linear", "[Backward]Linear", "Block_1" */
	const char *op_name;        /* the framework operator */
	const char *kernel_list;    /* its kernels, ", "-joined */
	const char *const *kernels; /* the same one by one, nkernels of them */
	size_t nkernels;            /* kernels per operator */
	int64_t total_ns;           /* device time of its kernels, summed over count operators */
	double mean_ns;
	uint64_t count;
	int64_t op_start;                 /* the first operator's start (host) */
	int64_t module_start, module_end; /* its module's first instance (host; synthesized for
	                                     backward modules) */
	int backward;
} tl_module_row;

typedef struct tl_module_stats {
	tl_module_row *v;
	size_t n;
	const char **kernels; /* the rows' kernel names */
	tl_strpool *pool;     /* owns the strings */
} tl_module_stats;

/* The statistics of one rank's data. out is the caller's (modules_stats_free). */
void modules_compute(const tl_module_data *d, tl_module_stats *out);
void modules_stats_free(tl_module_stats *);

#endif
