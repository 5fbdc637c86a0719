/* The mapped-file walker: one pass over the event array, each event to the walk's handler, on
 * big inputs with the scan in a thread of its own ahead of the handling; pages already walked
 * are given back to the kernel; a file that shrinks under the walk (SIGBUS) stops it cleanly. */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "load/load_int.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/strpool.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- walking ------------------------------------------------------------------------------- */

static void
give_back(jctx *c, size_t upto)
{
	if (!c->mapped || upto < c->dropped + DROP_CHUNK)
		return;
	if (c->pipe != NULL) { /* not what the handler still reads */
		pthread_mutex_lock(&c->pipe->mu);
		if (c->pipe->consumed < upto)
			upto = c->pipe->consumed;
		pthread_mutex_unlock(&c->pipe->mu);
		if (upto < c->dropped + DROP_CHUNK)
			return;
	}
	size_t to = upto & ~(c->pagesz - 1);
	madvise((void *)(c->b + c->dropped), to - c->dropped, MADV_DONTNEED);
	c->dropped = to;
}

static void damage(jctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Damage that ends the walk: what was read before it is kept. */
static void
damage(jctx *c, const char *fmt, ...)
{
	if (c->pass == 1 && !c->quiet) {
		char what[256];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		msg_warn(c->path, "%s; keeping the %" PRIu64 " events before it", what, c->events);
	}
	c->damaged = 1;
}

/* ---- walk 1's record of the events walk 2 handles -------------------------------------------- */

/* Walk 2 handles "X", "B", "E" and "C" events without the scanner's complaints; walk 1 notes
 * each as a record of a few bytes, so that walk 2 rebuilds its jevent from the record instead
 * of scanning the text again: its ordinal as a step from the last record's, its start as the
 * bytes since the last record's end (the few between two events, or the events between not
 * recorded), which members are present (two bytes, REC_LONG when the event is 256 bytes or
 * longer), then the event's length and each present member's offset in the event and length:
 * a byte each in an event under 256 bytes (most are: Kineto's 150-250), varints in a longer
 * one. The phase's length is not kept: a recorded phase is one letter ("X"). Nor are an "X"
 * event's pid and tid: walk 1's handler gives each one its thread beside (json_rec_thread;
 * without them, walk 2 scans the event again). A record is at most this many bytes: */
#define REC_MAX (3 * 10 + 2 + 2 * 10 * F__N)
#define REC_LONG 0x8000u

static inline unsigned char *
put_uv(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static inline const unsigned char *
get_uv(const unsigned char *p, uint64_t *v)
{
	uint64_t x = 0;
	int sh = 0;
	if (*p < 0x80) {
		*v = *p;
		return p + 1;
	}
	while (*p & 0x80) {
		x |= (uint64_t)(*p++ & 0x7f) << sh;
		sh += 7;
	}
	*v = x | (uint64_t)*p++ << sh;
	return p;
}

static void
rec_put(jctx *c, const jevent *ev)
{
	if (ev->bad >= 0)
		return;
	char ph = json_event_phase(c, ev);
	if (ph != 'X' && ph != 'B' && ph != 'E' && ph != 'C')
		return;
	jrec_blk *k = c->rec_tail;
	if (k == NULL || k->n + REC_MAX > JREC_BLK - sizeof *k) {
		jrec_blk *nk = json_rec_new();
		if (k == NULL)
			c->rec_head = nk;
		else
			k->next = nk;
		c->rec_tail = k = nk;
	}
	unsigned char *p = k->b + k->n;
	size_t len = ev->end - ev->start;
	unsigned mask = len < 256 ? 0 : REC_LONG;
	for (int f = 0; f < F__N; f++)
		mask |= (unsigned)(ev->f[f].len > 0) << f;
	if (ph == 'X')
		mask &= ~(1u << F_PID | 1u << F_TID);
	p = put_uv(p, ev->ordinal - c->rec_ord);
	p = put_uv(p, ev->start - c->rec_end);
	*p++ = (unsigned char)mask;
	*p++ = (unsigned char)(mask >> 8);
	if (!(mask & REC_LONG)) { /* every offset and length under 256 */
		*p++ = (unsigned char)len;
		*p++ = (unsigned char)(ev->f[F_PH].off - ev->start);
		for (int f = F_PH + 1; f < F__N; f++)
			if (mask & 1u << f) {
				*p++ = (unsigned char)(ev->f[f].off - ev->start);
				*p++ = (unsigned char)ev->f[f].len;
			}
	} else {
		p = put_uv(p, len);
		p = put_uv(p, ev->f[F_PH].off - ev->start);
		for (int f = F_PH + 1; f < F__N; f++)
			if (mask & 1u << f) {
				p = put_uv(p, ev->f[f].off - ev->start);
				p = put_uv(p, ev->f[f].len);
			}
	}
	k->n = (size_t)(p - k->b);
	c->rec_ord = ev->ordinal;
	c->rec_end = ev->end;
	c->rec_events++;
}

/* Walk 2 over walk 1's records, each block freed once handled. */
static void
rec_replay(jctx *c)
{
	uint64_t ord = 0;
	size_t end = 0;
	jevent ev;
	ev.bad = -1;
	ev.bad_off = 0;
	/* walk 1's handler's threads beside, when it gave one entry a record */
	const uint8_t *th = c->rec_thr_events == c->rec_events ? c->rec_thr : NULL;
	while (c->rec_head != NULL) {
		jrec_blk *k = c->rec_head;
		const unsigned char *p = k->b, *e = k->b + k->n;
		while (p < e) {
			uint64_t v, len;
			p = get_uv(p, &v);
			ord += v;
			p = get_uv(p, &v);
			size_t start = end + (size_t)v;
			unsigned mask = p[0] | (unsigned)p[1] << 8;
			p += 2;
			if (!(mask & REC_LONG)) {
				len = p[0];
				ev.f[F_PH] = (jspan){start + p[1], 3};
				p += 2;
				for (int f = F_PH + 1; f < F__N; f++) {
					if (mask & 1u << f) {
						ev.f[f] = (jspan){start + p[0], p[1]};
						p += 2;
					} else {
						ev.f[f] = (jspan){0, 0};
					}
				}
			} else {
				p = get_uv(p, &len);
				p = get_uv(p, &v);
				ev.f[F_PH] = (jspan){start + (size_t)v, 3};
				for (int f = F_PH + 1; f < F__N; f++) {
					if (mask & 1u << f) {
						p = get_uv(p, &v);
						ev.f[f].off = start + (size_t)v;
						p = get_uv(p, &v);
						ev.f[f].len = (size_t)v;
					} else {
						ev.f[f] = (jspan){0, 0};
					}
				}
			}
			ev.start = start;
			ev.end = end = start + (size_t)len;
			ev.ordinal = ord;
			if (th == NULL && (json_scan_event(c->b, c->n, start, &ev) != 0 ||
			                   ev.bad >= 0 || ev.end != end)) /* with its pid and tid */
				continue;
			if (th != NULL) {
				uint32_t t = *th++;
				if (t == 255) {
					memcpy(&t, th, 4);
					th += 4;
				}
				c->replay_thread = t - 1; /* UINT32_MAX for none */
			}
			c->fn(c, &ev);
			give_back(c, ev.end);
		}
		c->rec_head = k->next;
		json_rec_free(k);
	}
	c->rec_tail = NULL;
	c->replay_thread = UINT32_MAX;
	free(c->rec_thr);
	c->rec_thr = NULL;
	c->nrec_thr = c->rec_thrcap = 0;
}

/* Hands an event to the handler: directly, or through the pipe to the handler's thread. */
static void
deliver(jctx *c, const jevent *ev)
{
	jpipe *p = c->pipe;
	if (p == NULL) {
		c->fn(c, ev);
		return;
	}
	p->buf[p->head % PIPE_DEPTH][p->fill++] = *ev;
	if (p->fill < PIPE_BATCH)
		return;
	pthread_mutex_lock(&p->mu);
	p->count[p->head % PIPE_DEPTH] = p->fill;
	p->head++;
	p->fill = 0;
	pthread_cond_signal(&p->can_get);
	while (p->head - p->tail == PIPE_DEPTH && !p->stop) /* the next batch is still in use */
		pthread_cond_wait(&p->can_put, &p->mu);
	int stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	if (stop && load_bus_env != NULL)
		siglongjmp(*load_bus_env, 2); /* to scan_thread */
}

/* Walks the event array at b[i] == '['. Returns the offset after it, or SIZE_MAX (damage,
 * reported in walk 1). */
size_t
json_walk_array(jctx *c, size_t i)
{
	const unsigned char *b = c->b;
	size_t n = c->n;
	jevent ev;
	i++;
	for (;;) {
		i = json_skip_ws(b, n, i);
		if (i >= n) {
			damage(c,
			       "the file ends at byte %zu before the event array is closed "
			       "(truncated?)",
			       i);
			return SIZE_MAX;
		}
		if (b[i] == ']')
			return i + 1;
		if (b[i] == '{') {
			if (json_scan_event(b, n, i, &ev) != 0) {
				damage(c,
				       "the file ends inside the event that starts at byte %zu "
				       "(truncated?)",
				       i);
				return SIZE_MAX;
			}
			ev.ordinal = c->events++;
			if (c->pass == 1) {
				if (ev.ordinal % EVIDX_STEP == 0)
					VEC_PUSH(c->evidx, c->nevidx, c->evidxcap, (uint64_t)i);
				rec_put(c, &ev);
			}
			deliver(c, &ev);
			i = ev.end;
			give_back(c, i);
		} else {
			/* not an event: note it and step over it */
			size_t s = i;
			int bad = -1;
			size_t bad_off = 0;
			if (b[i] == '[') {
				ev.bad = -1;
				i = json_skip_nested(b, n, i, 0, &ev.bad, &ev.bad_off);
			} else if (b[i] == '"') {
				i = json_scan_string(b, n, i + 1, &bad, &bad_off);
			} else {
				i = json_skip_scalar(b, n, i);
				if (i == s) {
					damage(c, "syntax error at byte %zu: expected an event", s);
					return SIZE_MAX;
				}
			}
			if (i == SIZE_MAX) {
				damage(c,
				       "the file ends inside the value that starts at byte %zu "
				       "(truncated?)",
				       s);
				return SIZE_MAX;
			}
			if (c->nonobj++ == 0)
				c->nonobj_off = s;
			c->events++;
		}
		i = json_skip_ws(b, n, i);
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		if (i < n && b[i] == ']')
			return i + 1;
		if (i >= n)
			damage(c,
			       "the file ends at byte %zu before the event array is closed "
			       "(truncated?)",
			       i);
		else
			damage(c, "syntax error at byte %zu: expected ',' or ']' after an event",
			       i);
		return SIZE_MAX;
	}
}

/* The scan of one walk (the scanner's thread when piped). */
static walk_status
walk_scan(jctx *c)
{
	const unsigned char *b = c->b;
	size_t n = c->n, i = 0;
	int pass = c->pass;
	c->events = 0;
	c->dropped = 0;
	c->nonobj = 0;
	if (n >= 3 && memcmp(b, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	i = json_skip_ws(b, n, i);
	if (i >= n) {
		if (pass == 1 && !c->quiet)
			msg_warn(c->path, "empty file: no JSON in it");
		return WALK_NOT_TRACE;
	}
	if (b[i] == '[') {
		json_walk_array(c, i);
		c->has_events = 1;
		return WALK_OK;
	}
	if (b[i] != '{') {
		if (pass == 1 && !c->quiet)
			msg_warn(c->path,
			         "byte %zu: the top level is neither a JSON array nor an "
			         "object: not a Chrome trace",
			         i);
		return WALK_NOT_TRACE;
	}
	/* Kineto: {"schemaVersion":…, "distributedInfo":{…}, "traceEvents":[…], …} */
	i++;
	for (;;) {
		i = json_skip_ws(b, n, i);
		if (i < n && b[i] == '}')
			break;
		if (i >= n || b[i] != '"') {
			if (i >= n)
				damage(c,
				       "the file ends at byte %zu inside the top-level object "
				       "(truncated?)",
				       i);
			else
				damage(c, "syntax error at byte %zu: expected a member name", i);
			break;
		}
		int bad = -1;
		size_t bad_off, ks = i + 1;
		i = json_scan_string(b, n, ks, &bad, &bad_off);
		if (i == SIZE_MAX) {
			damage(c, "the file ends inside the member name at byte %zu (truncated?)",
			       ks);
			break;
		}
		size_t kn = i - ks - 1;
		i = json_skip_ws(b, n, i);
		if (i >= n || b[i] != ':') {
			damage(c, "syntax error at byte %zu: expected ':'", i);
			break;
		}
		size_t v = json_skip_ws(b, n, i + 1), vend;
		if (v >= n) {
			damage(c,
			       "the file ends at byte %zu inside the top-level object (truncated?)",
			       v);
			break;
		}
		if (kn == 11 && memcmp(b + ks, "traceEvents", 11) == 0 && b[v] == '[') {
			c->has_events = 1;
			vend = json_walk_array(c, v);
			if (vend == SIZE_MAX)
				break;
		} else {
			jevent tmp;
			tmp.bad = -1;
			if (b[v] == '{' || b[v] == '[')
				vend = json_skip_nested(b, n, v, 0, &tmp.bad, &tmp.bad_off);
			else if (b[v] == '"')
				vend = json_scan_string(b, n, v + 1, &bad, &bad_off);
			else
				vend = json_skip_scalar(b, n, v);
			if (vend == SIZE_MAX) {
				damage(c,
				       "the file ends inside the member value at byte %zu "
				       "(truncated?)",
				       v);
				break;
			}
			if (pass == 1)
				json_root_member(c, (const char *)b + ks, kn, v, vend);
		}
		i = json_skip_ws(b, n, vend);
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		if (i < n && b[i] == '}')
			break;
		if (i >= n)
			damage(c,
			       "the file ends at byte %zu inside the top-level object "
			       "(truncated?)",
			       i);
		else
			damage(c, "syntax error at byte %zu: expected ',' or '}'", i);
		break;
	}
	if (!c->has_events) {
		if (pass == 1 && !c->quiet)
			msg_warn(c->path,
			         "a JSON object without a \"traceEvents\" array: not a Chrome "
			         "trace");
		return WALK_NOT_TRACE;
	}
	return WALK_OK;
}

static void *
scan_thread(void *arg)
{
	scan_job *j = arg;
	jpipe *p = j->c->pipe;
	sigjmp_buf env;
	if (sigsetjmp(env, 1) == 0) {
		load_bus_env = &env;
		j->rc = walk_scan(j->c);
	} else {
		j->rc = WALK_SHRANK;
	}
	load_bus_env = NULL;
	pthread_mutex_lock(&p->mu);
	if (p->fill > 0) {
		p->count[p->head % PIPE_DEPTH] = p->fill;
		p->head++;
	}
	p->done = 1;
	pthread_cond_signal(&p->can_get);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Whether a walk scans in a thread of its own: big inputs, when a core is free for it (two
 * threads on one busy core only add the hand-over). TL_JSON_PIPE=0 / 1 forces it off / on. */
static int
want_pipe(const jctx *c)
{
	const char *e = getenv("TL_JSON_PIPE");
	if (e != NULL && (*e == '0' || *e == '1'))
		return *e == '1';
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double load[1];
	if (c->n < PIPE_MIN || ncpu < 2)
		return 0;
	return getloadavg(load, 1) != 1 || load[0] < (double)ncpu - 1.0;
}

/* This thread's part of a walk: the whole scan, or the handling of the batches the scanner
 * thread hands over through p. A SIGBUS while it reads the file returns here (WALK_SHRANK),
 * and the scanner is told to stop. */
static walk_status
walk_guarded(jctx *c, jpipe *p)
{
	sigjmp_buf env, *saved = load_bus_env;
	if (sigsetjmp(env, 1) != 0) {
		load_bus_env = saved;
		if (p != NULL) {
			pthread_mutex_lock(&p->mu);
			p->stop = 1;
			pthread_cond_signal(&p->can_put);
			pthread_mutex_unlock(&p->mu);
		}
		return WALK_SHRANK;
	}
	load_bus_env = &env;
	walk_status rc = WALK_OK;
	if (p == NULL && c->pass == 2 && c->recorded) {
		rec_replay(c);
	} else if (p == NULL) {
		rc = walk_scan(c);
	} else {
		for (;;) {
			pthread_mutex_lock(&p->mu);
			while (p->head == p->tail && !p->done)
				pthread_cond_wait(&p->can_get, &p->mu);
			if (p->head == p->tail) {
				pthread_mutex_unlock(&p->mu);
				break;
			}
			size_t slot = p->tail % PIPE_DEPTH, k = p->count[slot];
			pthread_mutex_unlock(&p->mu);
			for (size_t e = 0; e < k; e++)
				c->fn(c, &p->buf[slot][e]);
			pthread_mutex_lock(&p->mu);
			p->consumed = p->buf[slot][k - 1].end;
			p->tail++;
			pthread_cond_signal(&p->can_put);
			pthread_mutex_unlock(&p->mu);
		}
	}
	load_bus_env = saved;
	return rc;
}

/* One walk over the whole input, each event to fn (always on the calling thread). On
 * WALK_SHRANK c->shrank is set and what was handled before is kept. */
walk_status
json_walk(jctx *c, int pass, event_fn fn)
{
	walk_status rc;
	c->pass = pass;
	c->fn = fn;
	memset(c->recent, 0, sizeof c->recent);
	jpipe p;
	pthread_t th;
	scan_job job = {c, WALK_NOT_TRACE};
	memset(&p, 0, sizeof p);
	if (pass == 2 && c->recorded) { /* walk 1's records: nothing to scan */
		c->dropped = 0;
		return walk_guarded(c, NULL) == WALK_SHRANK ? (c->shrank = 1, WALK_SHRANK)
		                                            : WALK_OK;
	}
	if (want_pipe(c)) {
		p.buf = xcalloc(PIPE_DEPTH, sizeof *p.buf);
		pthread_mutex_init(&p.mu, NULL);
		pthread_cond_init(&p.can_put, NULL);
		pthread_cond_init(&p.can_get, NULL);
		c->pipe = &p;
		if (pthread_create(&th, NULL, scan_thread, &job) != 0) {
			c->pipe = NULL; /* no thread: one does it all */
			pthread_cond_destroy(&p.can_get);
			pthread_cond_destroy(&p.can_put);
			pthread_mutex_destroy(&p.mu);
			free(p.buf);
		}
	}
	if (c->pipe == NULL) {
		rc = walk_guarded(c, NULL);
	} else {
		rc = walk_guarded(c, &p);
		pthread_join(th, NULL);
		if (rc == WALK_OK)
			rc = job.rc;
		c->pipe = NULL;
		pthread_cond_destroy(&p.can_get);
		pthread_cond_destroy(&p.can_put);
		pthread_mutex_destroy(&p.mu);
		free(p.buf);
	}
	if (pass == 1 && c->nonobj > 0 && !c->quiet) { /* counted by the scanner, in its thread */
		c->problems[PR_NOT_OBJECT] += c->nonobj;
		c->problem_off[PR_NOT_OBJECT] = c->nonobj_off;
	}
	if (rc == WALK_SHRANK)
		c->shrank = 1;
	c->recorded = pass == 1;
	return rc;
}
