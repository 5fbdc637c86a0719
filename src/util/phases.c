#include "config.h"
#include "util/phases.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int on = -1;
static _Atomic int64_t wall_ns[TL_PHASE_N], cpu_ns[TL_PHASE_N], runs[TL_PHASE_N];
static _Atomic long peak_kb[TL_PHASE_N], rss_kb[TL_PHASE_N], anon_kb[TL_PHASE_N];

/* The resident memory now (kB), and *anon its anonymous part (the rest is files' pages, a
 * mapped cache file's, which the kernel may drop and read again); 0 when /proc is not there. */
static long
rss_now(long *anon)
{
	FILE *f = fopen("/proc/self/status", "r");
	long rss = 0;
	char line[256];
	*anon = 0;
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			rss = strtol(line + 6, NULL, 10);
		else if (strncmp(line, "RssAnon:", 8) == 0)
			*anon = strtol(line + 8, NULL, 10);
	}
	if (f != NULL)
		fclose(f);
	return rss;
}

int
phases_on(void)
{
	if (on < 0) {
		const char *e = getenv("TL_PHASES");
		on = e != NULL && *e != '\0' && strcmp(e, "0") != 0;
	}
	return on;
}

static int64_t
ns_of(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
phase_begin(tl_phase_mark *m, int process)
{
	if (!phases_on())
		return;
	m->wall = ns_of(CLOCK_MONOTONIC);
	m->cpu = ns_of(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID);
}

void
phase_end(const tl_phase_mark *m, tl_phase p, int process)
{
	if (!phases_on())
		return;
	atomic_fetch_add(&wall_ns[p], ns_of(CLOCK_MONOTONIC) - m->wall);
	atomic_fetch_add(&cpu_ns[p],
	                 ns_of(process ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_THREAD_CPUTIME_ID) -
	                     m->cpu);
	atomic_fetch_add(&runs[p], 1);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		atomic_store(&peak_kb[p], ru.ru_maxrss);
	long anon = 0;
	atomic_store(&rss_kb[p], rss_now(&anon));
	long was = atomic_load(&anon_kb[p]); /* the most of the phase's ends */
	while (anon > was && !atomic_compare_exchange_weak(&anon_kb[p], &was, anon))
		;
}

void
phases_print(FILE *out)
{
	static const char *const names[TL_PHASE_N] = {"open", "read",  "gather",   "cache",
	                                              "load", "clock", "analyses", "output"};
	if (!phases_on())
		return;
	for (int p = 0; p < TL_PHASE_N; p++)
		if (runs[p] > 0)
			fprintf(out,
			        "phase: %s wall_s=%.3f cpu_s=%.3f runs=%lld rss_kb=%ld anon_kb=%ld "
			        "peak_rss_kb=%ld\n",
			        names[p], (double)wall_ns[p] / 1e9, (double)cpu_ns[p] / 1e9,
			        (long long)runs[p], (long)rss_kb[p], (long)anon_kb[p],
			        (long)peak_kb[p]);
}
