/* Out of memory, said in words: before loading, the memory the requested ranks will need is
 * estimated cheaply (a DB's max(rowid) of its big tables, a JSON file's size) and compared
 * with what the system can give (MemAvailable, and the cgroup's limit in a container). When it
 * does not fit, tl says how much the ranks need and suggests --rank, instead of being killed
 * by the OOM killer half-way through without a word. */
#include "config.h"
#include "load/load.h"
#include "util/msg.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE_BYTES ((uint64_t)16 << 20) /* the program, SQLite's caches, the screen */

/* Each format estimates its own (tl_loader.estimate: a DB's max(rowid) of its big tables, a
 * JSON file's size). */
uint64_t
load_estimate_source(const tl_source *s, int view)
{
	const tl_loader *ld = loader_for(s->kind);
	return ld != NULL && ld->estimate != NULL ? ld->estimate(s, view) : 0;
}

/* The first number in a file ("max" and unreadable files: UINT64_MAX). */
static uint64_t
file_number(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return UINT64_MAX;
	char buf[64] = "";
	uint64_t v = UINT64_MAX;
	if (fgets(buf, sizeof buf, f) && isdigit((unsigned char)buf[0]))
		v = strtoull(buf, NULL, 10);
	fclose(f);
	return v;
}

uint64_t
load_mem_available(void)
{
	const char *env = getenv("TL_MEM_AVAILABLE");
	if (env && *env) {
		uint64_t v = text_parse_size(env);
		return v ? v : UINT64_MAX;
	}
	uint64_t avail = UINT64_MAX;
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[256];
		while (fgets(line, sizeof line, f)) {
			unsigned long long kb;
			if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
				avail = (uint64_t)kb * 1024;
				break;
			}
		}
		fclose(f);
	}
	/* a container's own limit: cgroup v2, then v1 */
	uint64_t lim = file_number("/sys/fs/cgroup/memory.max");
	uint64_t cur = file_number("/sys/fs/cgroup/memory.current");
	if (lim == UINT64_MAX) {
		lim = file_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
		cur = file_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
	}
	if (lim != UINT64_MAX && lim < ((uint64_t)1 << 60)) {
		uint64_t left = cur != UINT64_MAX && cur < lim ? lim - cur : 0;
		if (left < avail)
			avail = left;
	}
	return avail;
}

static char *
human(uint64_t b, char *buf, size_t len)
{
	if (b >= (uint64_t)1 << 30)
		snprintf(buf, len, "%.1f GiB", (double)b / (double)((uint64_t)1 << 30));
	else
		snprintf(buf, len, "%.0f MiB", (double)b / (double)((uint64_t)1 << 20));
	return buf;
}

/* "0-3,8" from sorted, unique ranks */
static void
ranks_text(const int *v, size_t n, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && o + 24 < len;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		if (j == i)
			o += (size_t)snprintf(buf + o, len - o, "%s%d", o ? "," : "", v[i]);
		else
			o +=
			    (size_t)snprintf(buf + o, len - o, "%s%d-%d", o ? "," : "", v[i], v[j]);
		i = j + 1;
	}
}

static int
cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x < y) - (x > y);
}

/* The at_once largest of need[0..n) added up (a copy is sorted: need keeps the ranks' order). */
static uint64_t
largest_sum(const uint64_t *need, size_t n, size_t at_once)
{
	uint64_t *v = xreallocarray(NULL, n ? n : 1, sizeof *v);
	memcpy(v, need, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_desc);
	uint64_t sum = 0;
	for (size_t i = 0; i < n && i < at_once; i++)
		sum += v[i];
	free(v);
	return sum;
}

int
load_memcheck(const char *path, const tl_sourcelist *sl, int view, size_t at_once)
{
	uint64_t avail = load_mem_available();
	if (avail == UINT64_MAX || sl->n == 0)
		return 0;
	/* per rank (sources are sorted by rank; unknown ranks, -1, count on their own) */
	uint64_t total = BASE_BYTES, largest = 0;
	int *ranks = xcalloc(sl->n, sizeof *ranks);
	uint64_t *need = xcalloc(sl->n, sizeof *need);
	size_t nr = 0;
	for (size_t i = 0; i < sl->n; i++) {
		uint64_t b = load_estimate_source(&sl->v[i], view);
		if (nr == 0 || sl->v[i].rank < 0 || sl->v[i].rank != ranks[nr - 1]) {
			ranks[nr] = sl->v[i].rank;
			need[nr++] = 0;
		}
		need[nr - 1] += b;
		total += b;
	}
	/* With the model cache written as the ranks are read, a rank's model leaves anonymous
	 * memory once its file is mapped in its place: the ranks loading together are what must
	 * fit. (A rank whose file is there already costs almost nothing; counting it as if it
	 * were read keeps the figure an upper bound.) */
	if (at_once > 0 && at_once < nr)
		total = BASE_BYTES + largest_sum(need, nr, at_once);
	int rc = 0;
	if (total > avail) {
		/* the first ranks that fit, as a suggestion */
		uint64_t acc = BASE_BYTES;
		size_t fit = 0;
		int *fitv = xcalloc(nr, sizeof *fitv);
		for (size_t i = 0; i < nr; i++) {
			if (need[i] > largest)
				largest = need[i];
			if (ranks[i] >= 0 && acc + need[i] <= avail) {
				acc += need[i];
				fitv[fit++] = ranks[i];
			}
		}
		char t[32], a[32], per[32], spec[256];
		ranks_text(fitv, fit, spec, sizeof spec);
		if (fit > 0)
			msg_error(
			    "%s: %s %zu rank%s need about %s of memory to %s (estimated from "
			    "their row counts and sizes), but only %s is available: load fewer "
			    "ranks at a time with --rank, e.g. --rank %s",
			    path, nr == 1 ? "its" : "the", nr, nr == 1 ? "" : "s",
			    human(total, t, sizeof t), view ? "view" : "load",
			    human(avail, a, sizeof a), spec);
		else
			msg_error(
			    "%s: the largest rank alone needs about %s of memory to %s (estimated "
			    "from its row counts and size), but only %s is available",
			    path, human(largest + BASE_BYTES, per, sizeof per),
			    view ? "view" : "load", human(avail, a, sizeof a));
		free(fitv);
		rc = -1;
	}
	free(ranks);
	free(need);
	return rc;
}
