#include "config.h"
#include "util/parallel.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct par_ctx {
	void (*fn)(void *, size_t);
	void *arg;
	size_t n, next;
	pthread_mutex_t lock;
} par_ctx;

static void *
par_worker(void *p)
{
	par_ctx *c = p;
	for (;;) {
		pthread_mutex_lock(&c->lock);
		size_t i = c->next++;
		pthread_mutex_unlock(&c->lock);
		if (i >= c->n)
			return NULL;
		c->fn(c->arg, i);
	}
}

size_t
parallel_threads(int threads)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	return threads > 0 ? (size_t)threads : (size_t)(ncpu > 0 ? ncpu : 1);
}

void
parallel_for(size_t n, int threads, void (*fn)(void *arg, size_t i), void *arg)
{
	if (n == 0)
		return;
	size_t nth = parallel_threads(threads);
	if (nth > n)
		nth = n;
	par_ctx c = {.fn = fn, .arg = arg, .n = n};
	pthread_mutex_init(&c.lock, NULL);
	pthread_t *th = xcalloc(nth, sizeof *th);
	unsigned char *ok = xcalloc(nth, 1);
	for (size_t i = 1; i < nth; i++)
		ok[i] = pthread_create(&th[i], NULL, par_worker, &c) == 0;
	par_worker(&c);
	for (size_t i = 1; i < nth; i++)
		if (ok[i])
			pthread_join(th[i], NULL);
	free(th);
	free(ok);
	pthread_mutex_destroy(&c.lock);
}
