/* What the report files share besides report.h: how a rank is printed. A profile may not say
 * which rank it is (a Kineto trace without distributedInfo, a file name without a number): the
 * model keeps -1, the text prints "?" and the JSON null, never -1. */
#ifndef TL_REPORT_INT_H
#define TL_REPORT_INT_H
#include <stdio.h>

#include "util/jsonw.h"

/* The rank as text: its number, or "?" when unknown. buf holds 16 bytes. */
static inline const char *
report_rank(char *buf, int rank)
{
	if (rank < 0)
		return "?";
	snprintf(buf, 16, "%d", rank);
	return buf;
}

/* The same in a buffer of the statement's own: fprintf(f, "%6s", RANK_TXT(r)). */
#define RANK_TXT(rank) report_rank((char[16]){0}, (rank))

/* The rank as a member of the object w has open: its number, or null when unknown. */
static inline void
report_jw_rank(tl_jsonw *w, const char *key, int rank)
{
	jsonw_i64_or_null_m(w, key, rank, rank >= 0);
}

/* The rank as a value (an array's element): its number, or null when unknown. */
static inline void
report_jw_rank_v(tl_jsonw *w, int rank)
{
	jsonw_i64_or_null(w, rank, rank >= 0);
}

/* tl diff's findings (diff_findings.c): the places whose findings changed, largest change
 * first (text), every place with its A and B times, null where absent (the "findings":[...]
 * member); nothing when either side has none gathered (--vs). */
struct tl_diff_side;
void report_diff_findings_text(FILE *, const struct tl_diff_side *a, const struct tl_diff_side *b);
void report_diff_findings_json(tl_jsonw *, const struct tl_diff_side *a,
                               const struct tl_diff_side *b);

#endif
