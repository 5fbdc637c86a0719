#include "config.h"
#include "report/report.h"
#include "util/text.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <stdlib.h>

#include <string.h>

/* CAPTURED is when the collection ended as the profile records it (SESSION_TIME_INFO,
 * profiler_info), else the stamp in the capture directory's name; a file's modification time
 * is only a guess (copies and archives change it), so it says so. */
#define FILE_TIME_MARK " (file time)"

static int
cmp_pair(const void *a, const void *b)
{
	const int *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Sources [i, *end) are the files of one device of a per-iteration msprof export (one rank, one
 * capture, one timeline directory). Writes "N iterations: model M 1-10, model K 1-2" into buf. */
static void
iter_group(const tl_sourcelist *sl, size_t i, size_t *end, char *buf, size_t bufsz)
{
	const tl_source *a = &sl->v[i];
	size_t dl = strlen(a->path) - strlen(strrchr(a->path, '/') ? strrchr(a->path, '/') : "");
	size_t j = i + 1;
	while (j < sl->n && source_has(&sl->v[j], TL_FMT_PER_ITERATION) &&
	       sl->v[j].rank == a->rank && strncmp(sl->v[j].path, a->path, dl) == 0 &&
	       sl->v[j].path[dl] == '/' && strchr(sl->v[j].path + dl + 1, '/') == NULL)
		j++;
	*end = j;
	size_t n = j - i;
	int *v = xreallocarray(NULL, n, 2 * sizeof *v);
	for (size_t k = 0; k < n; k++) {
		v[2 * k] = sl->v[i + k].model_id;
		v[2 * k + 1] = sl->v[i + k].iteration;
	}
	qsort(v, n, 2 * sizeof *v, cmp_pair);
	size_t w = (size_t)snprintf(buf, bufsz, "%zu iteration%s:", n, n == 1 ? "" : "s");
	for (size_t k = 0; k < n && w < bufsz;) {
		int m = v[2 * k];
		w += (size_t)snprintf(buf + w, bufsz - w, "%s model %d ", k ? ";" : "", m);
		/* the model's iterations as runs: 1-10, or 1,3,5-7 */
		int first = 1;
		while (k < n && v[2 * k] == m && w < bufsz) {
			size_t r = k;
			while (r + 1 < n && v[2 * (r + 1)] == m &&
			       v[2 * (r + 1) + 1] == v[2 * r + 1] + 1)
				r++;
			if (r > k)
				w += (size_t)snprintf(buf + w, bufsz - w, "%s%d-%d",
				                      first ? "" : ",", v[2 * k + 1], v[2 * r + 1]);
			else
				w += (size_t)snprintf(buf + w, bufsz - w, "%s%d", first ? "" : ",",
				                      v[2 * k + 1]);
			first = 0;
			k = r + 1;
		}
	}
	free(v);
}

void
report_info(FILE *f, const tl_sourcelist *sl)
{
	int cw = 23; /* the CAPTURED column: to the millisecond, wider for the mark */
	for (size_t i = 0; i < sl->n; i++)
		if (sl->v[i].capture_ns > 0 && sl->v[i].capture_from == TL_CAPTURE_FILE_TIME)
			cw = 23 + (int)strlen(FILE_TIME_MARK);
	fprintf(f, "%-5s  %-15s  %-*s  %-18s  %s\n", "RANK", "KIND", cw, "CAPTURED", "ROLE",
	        "PATH");
	size_t lines = 0;
	for (size_t i = 0, next; i < sl->n; i = next) {
		const tl_source *s = &sl->v[i];
		char rank[16], when[64], role[128], path[4096], iters[512];
		next = i + 1;
		iters[0] = '\0';
		if (source_has(s, TL_FMT_PER_ITERATION)) /* one line per device: its iterations */
			iter_group(sl, i, &next, iters, sizeof iters);
		lines++;
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
		if (iters[0]) { /* the timeline directory, then what it holds */
			char dir[4096];
			snprintf(dir, sizeof dir, "%s", s->path);
			char *sl_ = strrchr(dir, '/');
			if (sl_ != NULL)
				*sl_ = '\0';
			text_sanitize(dir, path, sizeof path, 1);
			fprintf(f, "%-5s  %-15s  %-*s  %-18s  %s (%s)\n", rank,
			        source_kind_name(s->kind), cw, when, role, path, iters);
			continue;
		}
		text_sanitize(s->path, path, sizeof path, 1);
		fprintf(f, "%-5s  %-15s  %-*s  %-18s  %s\n", rank, source_kind_name(s->kind), cw,
		        when, role, path);
	}
	if (lines != sl->n)
		fprintf(f, "%zu source%s (%zu file%s)\n", lines, lines == 1 ? "" : "s", sl->n,
		        sl->n == 1 ? "" : "s");
	else
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
