/* Headless output of the query layer: `tl info` and `tl summary` (text and JSON). */
#ifndef TL_REPORT_H
#define TL_REPORT_H
#include <stdio.h>

#include "profile/discover.h"
#include "query/query.h"

void report_info(FILE *, const tl_sourcelist *);
/* The summary of the session's trace, every number from its queries. */
void report_summary_text(FILE *, const tl_query *);
void report_summary_json(FILE *, const tl_query *);
/* The RL sections after the overlap table (summary_rl.c): stages, DP imbalance, pipeline, slow
 * ranks, bubbles; JSON: the members ,"stages":[...] ... ,"bubbles":[...] that follow "ranks". */
void report_rl_text(FILE *, const tl_query *);
void report_rl_json(FILE *, const tl_query *);

#endif
