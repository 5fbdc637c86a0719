#include "config.h"
#include "report/report.h"
#include "util/text.h"
#include "util/timefmt.h"

#include <string.h>

void
report_info(FILE *f, const tl_sourcelist *sl)
{
	fprintf(f, "%-5s  %-15s  %-23s  %-18s  %s\n", "RANK", "KIND", "CAPTURED", "ROLE", "PATH");
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
		fprintf(f, "%-5s  %-15s  %-23s  %-18s  %s\n", rank, source_kind_name(s->kind), when,
		    role, path);
	}
	fprintf(f, "%zu source%s\n", sl->n, sl->n == 1 ? "" : "s");
	size_t unknown = 0;
	for (size_t i = 0; i < sl->n; i++)
		unknown += sl->v[i].rank < 0;
	if (unknown > 0)
		fprintf(f, "rank ?: not found for %zu source%s; tl reads it from profiler_info_{rank}.json "
			   "beside the file or in its *_ascend_pt directory, a directory or file name "
			   "with rank{N} / rank_{N}, or Kineto's distributedInfo\n",
		    unknown, unknown == 1 ? "" : "s");
}
