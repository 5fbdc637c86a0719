/* Headless output of the query layer: `tl info` and `tl summary` (text and JSON). */
#ifndef TL_REPORT_H
#define TL_REPORT_H
#include <stdio.h>

#include "model/source.h"
#include "query/query.h"
#include "util/jsonw.h"

void report_info(FILE *, const tl_sourcelist *);
/* The hosts' clocks (clock.c): one line per host (tl info, the text summary) and the JSON
 * member "clock":[...]; nothing when the trace's ranks came from one host. */
void report_clock_text(FILE *, const tl_trace *);
void report_clock_json(tl_jsonw *, const tl_trace *);
/* Whether any host's clock was moved or set by hand: the summary shows the clocks only then
 * (with the hosts kept for want of a shared collective). */
int report_clock_moved(const tl_trace *);
/* `tl summary --json` is one writer (util/jsonw.h) opened in summary.c: each *_json section
 * below that takes a tl_jsonw * writes its members into the document's top object, the writer
 * placing every separator. What the document adds on request: */
typedef struct report_opts {
	int series; /* --series: the per-step series of the dp entries */
	/* the critical path (tlq_critical, no what-if), borrowed: a stored one; NULL: the
	 * summary computes it */
	const tl_cp_result *cp;
	/* or the path still being computed beside the summary (tlq_critical_start): cp_wait
	 * (cp_ctx) waits for it and returns it, asked for when the findings need it */
	const tl_cp_result *(*cp_wait)(void *cp_ctx);
	void *cp_ctx;
} report_opts;
/* The summary of the session's trace, every number from its queries. */
void report_summary_text(FILE *, const tl_query *);
void report_summary_json(FILE *, const tl_query *);
/* The same with options (NULL: none). */
void report_summary_json_opts(FILE *, const tl_query *, const report_opts *);
void report_summary_text_opts(FILE *, const tl_query *, const report_opts *);
/* The RL sections after the overlap table (summary_rl.c): stages, DP imbalance, pipeline, slow
 * ranks, bubbles; JSON: the members "stages":[...] ... "bubbles":[...],"dp":[...] that
 * follow "ranks", into the object w has open. */
void report_rl_text(FILE *, const tl_query *);
void report_rl_json(tl_jsonw *, const tl_query *, const report_opts *);
/* The communication sections (summary_comm.c): text totals per rank, step and group and
 * bandwidth per transport; JSON: "collectives", "p2p", "communication", "bandwidth",
 * "comm_matrix" and "comm_matrix_summary". */
void report_comm_text(FILE *, const tl_query *, const tl_comm_result *, const tl_coll_result *);
void report_comm_json(tl_jsonw *, const tl_query *, const tl_comm_result *, const tl_coll_result *);
/* The operator sections (summary_ops.c), JSON only: "operators":[...],"comm_operators":[...]
 * (reads every rank's compute tasks: a scan of TASK per rank). */
void report_ops_json(tl_jsonw *, const tl_query *);
/* The module statistics (summary_modules.c): JSON "modules":[...] (one row per rank, module
 * and operator); text, per rank and module path, only when a rank has Module ranges. */
void report_modules_json(tl_jsonw *, const tl_query *);
void report_modules_text(FILE *, const tl_query *);
/* The member "host":[...] (summary_host.c): launch delays per rank and step. */
void report_host_json(tl_jsonw *, const tl_query *);
/* The host launch table of the text summary (nothing when no rank has launches). */
void report_host_text(FILE *, const tl_query *);
/* The members "memory":[...],"npu_memory":[...] (summary_memory.c): memory peaks. */
void report_memory_json(tl_jsonw *, const tl_query *);
/* `tl diff` (diff.c): the verdict, what is only in one side, the changes largest first and the
 * stages per step; JSON: {"verdict", "changes", "stages", "operators", "overlap", ...}. */
/* `tl critical` (critical.c): each step's critical path, blame and longest segments; whatif
 * is the what-if as the user wrote it (r->whatif set), printed beside its predictions. JSON:
 * {"critical_path":[...],"top_operators":[...],"top_ranks":[...][,"what_if":{...}]}. */
void report_critical_text(FILE *, const tl_query *, const tl_cp_result *, const char *whatif);
void report_critical_json(FILE *, const tl_query *, const tl_cp_result *, const char *whatif);
/* The summary's part of it: the text section (per step the blame table and the
 * REPORT_SUMMARY_SEGMENTS longest segments, all a lean step keeps; nothing without steps or
 * device work) and the JSON member "critical_path":[...] (tl critical's step objects). */
#define REPORT_SUMMARY_SEGMENTS 5
void report_critical_summary_text(FILE *, const tl_query *, const tl_cp_result *);
void report_critical_summary_json(tl_jsonw *, const tl_query *, const tl_cp_result *);
struct tl_diff_side;
void report_diff_text(FILE *, const struct tl_diff_side *a, const struct tl_diff_side *b,
                      const char *label_a, const char *label_b);
void report_diff_json(FILE *, const struct tl_diff_side *a, const struct tl_diff_side *b);

#endif
