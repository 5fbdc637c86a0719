/* Device compute tasks grouped by operator, as a profile records them: the input of the
 * operator statistics (analysis/opstats.h). Read on demand (load_ops), or gathered while the
 * trace loads and kept in its rank (tl_rank.ops). */
#ifndef TL_OPS_DATA_H
#define TL_OPS_DATA_H
#include <stddef.h>
#include <stdint.h>

#include "util/strpool.h"
#include "util/u64map.h"

/* All tasks of one (op name, op type, task type, input shapes) on one rank. */
typedef struct tl_op_group {
	uint32_t name, op_type, task_type, shapes; /* ids in the data's pool */
	int64_t *dur;                              /* ns, one per task */
	int64_t *start; /* ns, each task's start (TASK startNs), beside its duration; NULL when
	                   the data keeps none (tl_op_data.nostart) */
	size_t n, cap;
	int64_t total; /* with tl_op_data.totals: the tasks' durations summed (sat_add), where
	                  dur is NULL */
	int64_t sum;   /* dur's durations summed (sat_add) as a model cache file stores them, so
	                  that a query of the totals need not read them; -1 when not known */
} tl_op_group;

typedef struct tl_op_data {
	tl_strpool *pool;
	tl_op_group *g;
	size_t n, cap;
	tl_u64map pair, type, key; /* (name, shapes) -> pair id; (op type, task type) -> type id;
	                              (pair, type) -> index into g */
	uint32_t npair, ntype;
	int borrowed; /* the groups' dur and start are another's memory (a mapped cache file): not
	                 freed here, copied before anything changes them */
	int nostart;  /* the tasks' starts are not kept (set before the first task): every
	                 group's start is NULL */
	int totals;   /* with nostart, the durations are not kept either (set before the first
	                 task): each group's count (n) and total only, dur NULL; what tl summary's
	                 text asks (TL_TABLE_OP_TOTALS) */
} tl_op_data;

void op_data_init(tl_op_data *);
void op_data_free(tl_op_data *);
/* Adds one task of duration dur starting at start to its group (created on first use). */
void op_data_add(tl_op_data *, uint32_t name, uint32_t op_type, uint32_t task_type, uint32_t shapes,
                 int64_t dur, int64_t start);
/* The index of the group of (name, op type, task type, shapes), created empty on first use;
 * op_data_push adds a task to group gi. */
uint32_t op_data_group(tl_op_data *, uint32_t name, uint32_t op_type, uint32_t task_type,
                       uint32_t shapes);
void op_data_push(tl_op_data *, uint32_t gi, int64_t dur, int64_t start);
/* Copies borrowed task arrays into memory of d's own before they change. */
void op_data_own(tl_op_data *);
/* After the last task: drops the groups without tasks (op_data_group made them for operators
 * that ran no task) and sorts each group's tasks by duration ascending, equal durations by
 * start (the starts move with their durations). */
void op_data_finish(tl_op_data *);

#endif
