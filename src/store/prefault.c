/* The viewer's background populate of the mapped cache files (prefault.h). One thread at the
 * lowest priority (SCHED_IDLE: it runs only when no other thread of the machine wants the CPU)
 * walks a list of page ranges built on the caller's thread, a megabyte at a time, and stops
 * between two of them as soon as it is told to. It only asks the kernel (madvise), never reads
 * the pages itself: a cache file cut short under it (the files are replaced by rename, never
 * rewritten, but another process of the user could truncate one) makes madvise fail with
 * EFAULT, where a read would raise SIGBUS. */
#include "config.h"
#include "store/prefault.h"
#include "store/cache.h"
#include "model/lod.h"
#include "util/timefmt.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older kernels refuse it with EINVAL */
#endif

#define PF_CHUNK ((size_t)1 << 20) /* bytes per madvise call: the latency of a stop */

typedef struct pf_range {
	const char *p; /* page-aligned */
	size_t len;
} pf_range;

struct tl_prefault {
	pthread_t th;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	_Atomic int stop;
	pf_range *v;
	size_t n, cap;
	long delay_ms; /* the test hook: TL_TEST_PREFAULT_DELAY_MS, before each range */
	/* under mu */
	tl_prefault_stats st;
	int64_t t0;
};

/* Adds [p, p + len) of the mapping [m, m + mlen) widened to whole pages; nothing outside it. */
static void
add_range(tl_prefault *pf, const char *m, size_t mlen, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)m;
	if (a < b || len == 0 || len > mlen || a - b > mlen - len)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* the mapping covers the last page whole */
	size_t off = (size_t)(a - b) / page * page,
	       end = ((size_t)(a - b) + len + page - 1) / page * page;
	VEC_PUSH(pf->v, pf->n, pf->cap, ((pf_range){m + off, end - off}));
	pf->st.bytes_todo += end - off;
}

/* The level-of-detail arrays of r's tracks that lie in its mapping. */
static void
add_lod(tl_prefault *pf, const tl_rank *r, const char *m, size_t mlen)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		const tl_lod *l = t->lod != NULL ? t->lod : t->lod_file;
		if (l == NULL || l->n == 0)
			continue;
		add_range(pf, m, mlen, l->busy, lod_nbusy(l->n) * sizeof *l->busy);
		add_range(pf, m, mlen, l->node, lod_nnodes(l->n) * sizeof *l->node);
	}
}

/* Waits ms, or less when told to stop. */
static void
pf_sleep(tl_prefault *pf, long ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&pf->mu);
	while (!pf->stop && pthread_cond_timedwait(&pf->cv, &pf->mu, &until) != ETIMEDOUT) {
	}
	pthread_mutex_unlock(&pf->mu);
}

static void *
pf_main(void *arg)
{
	tl_prefault *pf = arg;
	struct sched_param sp = {0};
	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) != 0)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	int advice = MADV_POPULATE_READ;
	for (size_t i = 0; i < pf->n && !pf->stop; i++) {
		if (pf->delay_ms > 0)
			pf_sleep(pf, pf->delay_ms);
		for (size_t off = 0; off < pf->v[i].len && !pf->stop; off += PF_CHUNK) {
			size_t k = pf->v[i].len - off < PF_CHUNK ? pf->v[i].len - off : PF_CHUNK;
			void *p = (void *)(uintptr_t)(pf->v[i].p + off);
			if (madvise(p, k, advice) != 0 && errno == EINVAL &&
			    advice == MADV_POPULATE_READ) {
				advice = MADV_WILLNEED; /* Linux < 5.14: read ahead at least */
				madvise(p, k, advice);
			}
			/* EFAULT (a file cut short), ENOMEM: nothing more to do for this chunk */
			pthread_mutex_lock(&pf->mu);
			pf->st.bytes_done += k;
			pf->st.fallback = advice != MADV_POPULATE_READ;
			pthread_mutex_unlock(&pf->mu);
		}
	}
	pthread_mutex_lock(&pf->mu);
	pf->st.done = pf->st.bytes_done >= pf->st.bytes_todo;
	pf->st.stopped = !pf->st.done;
	pf->st.ms = (timefmt_mono_ns() - pf->t0) / 1000000;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

tl_prefault *
prefault_start(const tl_rank *const *ranks, const size_t *order, size_t n, uint64_t avail,
               tl_prefault_stats *st)
{
	tl_prefault *pf = xcalloc(1, sizeof *pf);
	pf->st.ranks = n;
	for (size_t i = 0; i < n; i++) {
		const void *m;
		size_t len;
		if (cache_rank_mapping(ranks[order[i]], &m, &len) == 0) {
			pf->st.mapped++;
			pf->st.bytes_mapped += len;
		}
	}
	const char *env = getenv("TL_PREFAULT");
	if (pf->st.mapped == 0 || (env != NULL && strcmp(env, "0") == 0)) {
		*st = pf->st; /* TL_PREFAULT_OFF */
		free(pf);
		return NULL;
	}
	/* the level of detail of every rank first: what a zoomed-out frame reads */
	for (size_t i = 0; i < n; i++) {
		const void *m;
		size_t len;
		if (cache_rank_mapping(ranks[order[i]], &m, &len) == 0)
			add_lod(pf, ranks[order[i]], m, len);
	}
	/* then the whole files, when the kernel will not have to drop pages to hold them */
	pf->st.mode = pf->st.bytes_mapped <= avail && !(env != NULL && strcmp(env, "lod") == 0)
	                  ? TL_PREFAULT_FULL
	                  : TL_PREFAULT_LOD;
	for (size_t i = 0; pf->st.mode == TL_PREFAULT_FULL && i < n; i++) {
		const void *m;
		size_t len;
		if (cache_rank_mapping(ranks[order[i]], &m, &len) == 0)
			add_range(pf, m, len, m, len);
	}
	const char *d = getenv("TL_TEST_PREFAULT_DELAY_MS");
	pf->delay_ms = d != NULL ? strtol(d, NULL, 10) : 0;
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	pf->t0 = timefmt_mono_ns();
	*st = pf->st;
	/* the viewer's signals (resize, terminal stop) stay with its own thread */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pf->started = pthread_create(&pf->th, NULL, pf_main, pf) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!pf->started) { /* nothing is lost: the pages fault in when used, as before */
		st->mode = TL_PREFAULT_OFF;
		prefault_stop(pf);
		return NULL;
	}
	return pf;
}

void
prefault_wait(tl_prefault *pf)
{
	if (pf == NULL || pf->delay_ms > 0) /* the test hook holds it: not waited for */
		return;
	pthread_mutex_lock(&pf->mu);
	while (pf->started && !pf->st.done && !pf->st.stopped)
		pthread_cond_wait(&pf->cv, &pf->mu);
	pthread_mutex_unlock(&pf->mu);
}

void
prefault_stats(tl_prefault *pf, tl_prefault_stats *out)
{
	if (pf == NULL)
		return;
	pthread_mutex_lock(&pf->mu);
	*out = pf->st;
	if (!out->done && !out->stopped)
		out->ms = (timefmt_mono_ns() - pf->t0) / 1000000;
	pthread_mutex_unlock(&pf->mu);
}

void
prefault_stop(tl_prefault *pf)
{
	if (pf == NULL)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	if (pf->started)
		pthread_join(pf->th, NULL);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	free(pf->v);
	free(pf);
}
