/* What every walk over a JSON trace stands on: the input, mapped read-only (or read whole), the
 * walks' context, set up and freed, and an event's fields read from their byte bounds (strings,
 * the phase, ts and dur as exact ns) with the problems they show noted. It calls nothing of the
 * walks (json_names.c, json_slices.c) or of the loader (trace_json.c). */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "load/load_int.h"
#include "util/gzin.h"
#include "util/msg.h"
#include "util/strpool.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each event is judged once: the scanner's findings and flows in walk 1, slices in walk 2. A
 * negative pr counts nothing. */
void
json_problem(jctx *c, int pr, size_t off)
{
	if (pr < 0 || c->quiet)
		return;
	if (c->problems[pr]++ == 0 || off < c->problem_off[pr])
		c->problem_off[pr] = off;
}

/* ts and dur of an event, in ns on the profile clock. Returns -1 when the event cannot be used
 * (a problem is noted when `count`). */
int
json_event_time(jctx *c, const jevent *ev, int need_dur, int count, int64_t *start, int64_t *dur)
{
	jspan s = ev->f[F_TS];
	size_t n;
	const char *t;
	int64_t v;
	if (s.len == 0) {
		json_problem(c, count ? PR_NO_TS : -1, ev->start);
		return -1;
	}
	t = json_span_text(c, s, &n);
	switch (json_dec_parse(t, n, 3, &v)) {
	case DEC_NAN:
		json_problem(c, count ? PR_TS_NAN : -1, s.off);
		return -1;
	case DEC_RANGE:
		json_problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	/* walk 1 may meet baseTimeNanoseconds only after the events: its times get it later */
	int64_t base = c->pass == 1 ? 0 : c->base_ns;
	if ((base > 0 && v > INT64_MAX - base) || (base < 0 && v < INT64_MIN - base)) {
		json_problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	*start = v + base;
	if (!tl_time_ok(*start)) { /* the model's range: any two times' difference fits */
		json_problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	if (!need_dur)
		return 0;
	s = ev->f[F_DUR];
	t = json_span_text(c, s, &n);
	if (s.len == 0 || json_dec_parse(t, n, 3, &v) != DEC_OK || v < 0 ||
	    *start > TL_TIME_MAX - v) {
		json_problem(c, count ? PR_DUR : -1, s.len ? s.off : ev->start);
		return -1;
	}
	*dur = v;
	return 0;
}

int
json_input_open(jctx *c)
{
	load_count_open();
	int fd = open(c->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		msg_warn(c->path, "cannot open: %s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		msg_warn(c->path, "not a regular file");
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
		msg_warn(c->path, "too large for this system's address space");
		close(fd);
		return -1;
	}
	c->n = (size_t)st.st_size;
	c->pagesz = (size_t)sysconf(_SC_PAGESIZE);
	if (gzin_fd_is_gzip(fd)) {
		/* a compressed trace: inflated into memory, bounded, then read as any other */
		unsigned char *buf;
		char err[200];
		if (gzin_read_all(fd, gzin_limit(), &buf, &c->n, err, sizeof err) != 0) {
			msg_warn(c->path, "%s; skipped", err);
			close(fd);
			c->n = 0;
			c->b = NULL;
			return -1;
		}
		close(fd);
		c->gz = 1;
		c->b = buf;
		if (c->n == 0) { /* json_ctx_free frees no empty input */
			free(buf);
			c->b = (const unsigned char *)"";
		}
		return 0;
	}
	if (c->n == 0) {
		close(fd);
		c->b = (const unsigned char *)"";
		return 0;
	}
	/* TL_JSON_NO_MMAP: read into a buffer of the exact size, so that AddressSanitizer and
	 * valgrind see every byte the scanner and cJSON touch (tests) */
	const char *nomap = getenv("TL_JSON_NO_MMAP");
	void *m = nomap && *nomap && *nomap != '0'
	              ? MAP_FAILED
	              : mmap(NULL, c->n, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m != MAP_FAILED) {
		madvise(m, c->n, MADV_SEQUENTIAL);
		c->b = m;
		c->mapped = 1;
		close(fd);
		return 0;
	}
	unsigned char *buf = xmalloc(c->n);
	size_t got = 0;
	while (got < c->n) {
		ssize_t k = read(fd, buf + got,
		                 c->n - got > ((size_t)1 << 30) ? (size_t)1 << 30 : c->n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			msg_warn(c->path, "cannot read: %s",
			         k < 0 ? strerror(errno) : "file shrank");
			free(buf);
			close(fd);
			return -1;
		}
		got += (size_t)k;
	}
	close(fd);
	c->b = buf;
	return 0;
}

void
json_in_open(json_in *in, int fd)
{
	memset(in, 0, sizeof *in);
	in->fd = fd;
	in->gz = fd >= 0 && gzin_fd_is_gzip(fd);
}

size_t
json_in_pread(json_in *in, uint64_t off, unsigned char *buf, size_t len)
{
	if (in->gz) {
		if (!in->inflated) {
			in->inflated = 1;
			if (gzin_read_all(in->fd, gzin_limit(), &in->all, &in->nall, NULL, 0) != 0)
				in->all = NULL;
		}
		if (in->all == NULL || off >= in->nall)
			return 0;
		size_t k = in->nall - (size_t)off < len ? in->nall - (size_t)off : len;
		memcpy(buf, in->all + off, k);
		return k;
	}
	size_t got = 0;
	while (got < len) {
		ssize_t k = pread(in->fd, buf + got, len - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	return got;
}

void
json_in_close(json_in *in)
{
	free(in->all);
	if (in->fd >= 0)
		close(in->fd);
	memset(in, 0, sizeof *in);
	in->fd = -1;
}

/* A record block: one 2 MiB huge page (util/xalloc.h's xhuge_resize), so that its first touch
 * is one fault and one clearing, and its freeing one unmap, where 512 pages of 4 KiB each
 * faulted and were freed one by one. */
jrec_blk *
json_rec_new(void)
{
	jrec_blk *k = xhuge_resize(NULL, 0, JREC_BLK);
	k->next = NULL;
	k->n = 0;
	return k;
}

void
json_rec_free(jrec_blk *k)
{
	xhuge_free(k, JREC_BLK);
}

void *
json_huge_reserve(void *p, size_t *cap, size_t need, size_t sz)
{
	if (need <= *cap)
		return p;
	size_t old = *cap * sz, bytes = old > 0 ? old : JREC_BLK;
	while (bytes / sz < need)
		bytes *= 2;
	p = xhuge_resize(p, old, bytes);
	*cap = bytes / sz;
	return p;
}

void
json_huge_free(void *p, size_t cap, size_t sz)
{
	xhuge_free(p, cap * sz);
}

void
json_ctx_init(jctx *c, const char *path, tl_rank *r)
{
	json_tables_init();
	memset(c, 0, sizeof *c);
	c->path = path;
	c->r = r;
	c->tok = strpool_new();
	c->dist_rank = -1;
	c->ms1_first = INT64_MAX;
	c->replay_thread = UINT32_MAX;
	u64map_init(&c->proc_map);
	u64map_init(&c->thread_map);
	u64map_init(&c->planes);
	u64map_init_runs(&c->lcorr);
}

void
json_ctx_free(jctx *c)
{
	if (c->b != NULL && c->n > 0) {
		if (c->mapped)
			munmap((void *)c->b, c->n);
		else
			free((void *)c->b);
	}
	free(c->evidx);
	free(c->rec_thr);
	while (c->rec_head != NULL) {
		jrec_blk *k = c->rec_head;
		c->rec_head = k->next;
		json_rec_free(k);
	}
	free(c->host);
	for (size_t i = 0; i < c->nthreads; i++)
		free(c->threads[i].open);
	free(c->threads);
	free(c->procs);
	u64map_free(&c->proc_map);
	u64map_free(&c->thread_map);
	u64map_free(&c->planes);
	u64map_free(&c->lcorr);
	free(c->lcorr_key);
	free(c->lcorr_ts);
	free(c->lcorr_step);
	strpool_free(c->tok);
	if (c->flows != NULL) {
		strpool_free(c->flows);
		u64map_free(&c->flow_text);
	}
	free(c->ftab);
	json_huge_free(c->fkey, c->fkcap, sizeof *c->fkey);
	free(c->ford);
	json_huge_free(c->fstart, c->fcap, sizeof *c->fstart);
	free(c->fsthr);
	free(c->fcat);
	xhuge_free(c->links, c->linkcap * sizeof *c->links);
	free(c->corr_h);
	free(c->corr_d);
	free(c->fend);
	free(c->fbe);
	free(c->fbp);
	free(c->fbk);
	free(c->mxe);
	free(c->mxp);
	free(c->mxk);
	free(c->cand);
	free(c->iters);
	free(c->steps);
	free(c->doms);
	free(c->sbuf);
	for (size_t i = 0; i < KNAME_CACHE; i++)
		free(c->knames[i].s);
	for (int k = 0; k < 4; k++)
		free(c->oa[k].v);
}
