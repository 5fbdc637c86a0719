/* `tl triage` (triage.c): the ranked findings of query/findings.h, text and JSON. */
#ifndef TL_REPORT_TRIAGE_H
#define TL_REPORT_TRIAGE_H
#include <stdio.h>

#include "query/findings.h"
#include "util/jsonw.h"

/* Text: one numbered line per finding (its title), its evidence and where to look; path: the
 * profile, for the line saying how to open it in the viewer. top: at most that many (0: all). */
void report_triage_text(FILE *, const tl_query *, const tl_finding *v, size_t n, const char *path,
                        size_t top);
/* JSON: {"findings":[...]} */
void report_triage_json(FILE *, const tl_query *, const tl_finding *v, size_t n, size_t top);
/* One finding as a JSON object: the value w expects next (its separator placed by w). */
void report_finding_jw(tl_jsonw *w, const tl_query *, const tl_finding *f, size_t index);
/* The verdict: the top three findings, one line each ("nothing found" when none). */
void report_verdict_text(FILE *, const tl_query *, const tl_finding *v, size_t n);

#endif
