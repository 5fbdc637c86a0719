#include "config.h"
#include "report/report.h"
#include "util/text.h"
#include "util/timefmt.h"

#include <string.h>

/* CAPTURED is when the collection ended as the profile records it (SESSION_TIME_INFO,
 * profiler_info), else the stamp in the capture directory's name; a file's modification time
 * is only a guess (copies and archives change it), so it says so. */
#define FILE_TIME_MARK " (file time)"

void
report_info(FILE *f, const tl_sourcelist *sl)
{
	int cw = 23; /* the CAPTURED column: to the millisecond, wider for the mark */
	for (size_t i = 0; i < sl->n; i++)
		if (sl->v[i].capture_ns > 0 && sl->v[i].capture_from == TL_CAPTURE_FILE_TIME)
			cw = 23 + (int)strlen(FILE_TIME_MARK);
	fprintf(f, "%-5s  %-15s  %-*s  %-18s  %s\n", "RANK", "KIND", cw, "CAPTURED", "ROLE",
	        "PATH");
	for (size_t i = 0; i < sl->n; i++) {
		const tl_source *s = &sl->v[i];
		char rank[16], when[64], role[128], path[4096];
		if (s->rank >= 0)
			snprintf(rank, sizeof rank, "%d", s->rank);
		else
			snprintf(rank, sizeof rank, "?");
		if (s->capture_ns > 0) {
			timefmt_epoch(s->capture_ns, when, sizeof when);
			when[23] = '\0'; /* to the millisecond */
			if (s->capture_from == TL_CAPTURE_FILE_TIME)
				strcat(when, FILE_TIME_MARK);
		} else {
			snprintf(when, sizeof when, "-");
		}
		if (s->role) {
			char r[96];
			text_sanitize(s->role, r, sizeof r, 1);
			if (s->role_step >= 0)
				snprintf(role, sizeof role, "%d/%s", s->role_step, r);
			else
				snprintf(role, sizeof role, "%s", r);
		} else {
			snprintf(role, sizeof role, "-");
		}
		text_sanitize(s->path, path, sizeof path, 1);
		fprintf(f, "%-5s  %-15s  %-*s  %-18s  %s\n", rank, source_kind_name(s->kind), cw,
		        when, role, path);
	}
	fprintf(f, "%zu source%s\n", sl->n, sl->n == 1 ? "" : "s");
	size_t unknown = 0;
	for (size_t i = 0; i < sl->n; i++)
		unknown += sl->v[i].rank < 0;
	if (unknown > 0)
		fprintf(f,
		        "rank ?: not found for %zu source%s; tl reads it from "
		        "profiler_info_{rank}.json "
		        "beside the file or in its *_ascend_pt directory, a directory or file name "
		        "with rank{N} / rank_{N}, or Kineto's distributedInfo\n",
		        unknown, unknown == 1 ? "" : "s");
}
