/* Walk 1 of a JSON trace: processes and threads by their metadata names, ProfilerStep ranges,
 * HCCL sub-task keys, Kineto's root fields and the launch flows; and the cJSON helpers that read
 * the objects taken as trees. */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "load/load_int.h"
#include "model/mstx.h"
#include "util/msg.h"
#include "util/satint.h"
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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- processes and threads ----------------------------------------------------------------- */

static uint32_t
tok_intern(jctx *c, jspan s)
{
	return strpool_intern(c->tok, (const char *)c->b + s.off, s.len);
}

static uint32_t
proc_of(jctx *c, uint32_t tok)
{
	uint32_t i;
	if (u64map_get(&c->proc_map, tok, &i))
		return i;
	jproc p = {.tok = tok, .dev = -1};
	VEC_PUSH(c->procs, c->nprocs, c->pcap, p);
	i = (uint32_t)(c->nprocs - 1);
	u64map_put(&c->proc_map, tok, i);
	return i;
}

/* Whether the n bytes at a and b are the same: tokens are short (a pid, a tid), shorter than
 * a call to memcmp. */
static inline int
same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (a[k] != b[k])
			return 0;
	return 1;
}

/* The same for a token of n <= THREAD_TOK bytes at a, readable THREAD_TOK_BUF bytes on, and a
 * copy at b (THREAD_TOK_BUF bytes): a word at a time, the bytes past n masked off. */
static inline int
same_tok(const unsigned char *a, const unsigned char *b, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (size_t k = 0; k < n; k += 8) {
		uint64_t x, y, r = n - k;
		memcpy(&x, a + k, 8);
		memcpy(&y, b + k, 8);
		if ((x ^ y) & (r >= 8 ? ~0ull : (1ull << (8 * r)) - 1))
			return 0;
	}
	return 1;
#else
	return same_bytes(a, b, n);
#endif
}

uint32_t
json_thread_of(jctx *c, const jevent *ev)
{
	jspan p = ev->f[F_PID], t = ev->f[F_TID];
	/* events of a few threads interleave: compare the raw tokens with theirs first (a word
	 * at a time where the file goes on for a word past them, as it does but at its end) */
	int words = p.off + THREAD_TOK_BUF <= c->n && t.off + THREAD_TOK_BUF <= c->n;
	for (unsigned k = 0; k < THREAD_CACHE; k++)
		if (c->recent[k].plen == p.len && c->recent[k].tlen == t.len && p.len > 0 &&
		    (words ? same_tok(c->b + p.off, c->recent[k].pid, p.len) &&
		                 same_tok(c->b + t.off, c->recent[k].tid, t.len)
		           : same_bytes(c->b + p.off, c->recent[k].pid, p.len) &&
		                 same_bytes(c->b + t.off, c->recent[k].tid, t.len)))
			return c->recent[k].thread;
	uint32_t pt = tok_intern(c, p), tt = tok_intern(c, t);
	uint64_t key = (uint64_t)pt << 32 | tt;
	uint32_t i;
	if (!u64map_get(&c->thread_map, key, &i)) {
		jthread th;
		memset(&th, 0, sizeof th);
		th.proc = proc_of(c, pt);
		th.tok = tt;
		VEC_PUSH(c->threads, c->nthreads, c->thcap, th);
		i = (uint32_t)(c->nthreads - 1);
		u64map_put(&c->thread_map, key, i);
	}
	if (p.len > 0 && p.len <= THREAD_TOK && t.len <= THREAD_TOK) {
		unsigned k = c->recent_next++ % THREAD_CACHE;
		memcpy(c->recent[k].pid, c->b + p.off, p.len);
		memcpy(c->recent[k].tid, c->b + t.off, t.len);
		c->recent[k].plen = (uint8_t)p.len;
		c->recent[k].tlen = (uint8_t)t.len;
		c->recent[k].thread = i;
	}
	return i;
}

/* Walk 1's handler: the thread of a recorded event, for walk 2 (thread: 1 + its index, 0 none):
 * a byte, or 255 and four. */
void
json_rec_thread(jctx *c, uint32_t thread)
{
	VEC_RESERVE(c->rec_thr, c->rec_thrcap, c->nrec_thr + 5);
	if (thread < 255) {
		c->rec_thr[c->nrec_thr++] = (uint8_t)thread;
	} else {
		c->rec_thr[c->nrec_thr++] = 255;
		memcpy(c->rec_thr + c->nrec_thr, &thread, 4);
		c->nrec_thr += 4;
	}
	c->rec_thr_events++;
}

const char *
json_tok_str(const jctx *c, uint32_t id)
{
	return strpool_get(c->tok, id);
}

/* The first integer in s after `word` (case-insensitive), e.g. 3 in "Stream 3" or "NPU 3". */
static int
int_after(const char *s, const char *word, int64_t *v)
{
	size_t wn = strlen(word);
	for (const char *p = s; *p; p++) {
		if (strncasecmp(p, word, wn) != 0)
			continue;
		const char *q = p + wn;
		while (*q == ' ' || *q == '_' || *q == '-')
			q++;
		if (*q < '0' || *q > '9')
			continue;
		int64_t x = 0;
		for (; *q >= '0' && *q <= '9' && x < (INT64_C(1) << 40); q++)
			x = x * 10 + (*q - '0');
		*v = x;
		return 1;
	}
	return 0;
}

static int
proc_kind(const jctx *c, const jproc *p)
{
	const char *n = json_tok_str(c, p->name), *tok = json_tok_str(c, p->tok);
	if (strcmp(n, "Ascend Hardware") == 0)
		return P_HW;
	if (strcmp(n, "HCCL") == 0 || strcmp(n, "Communication") == 0)
		return P_HCCL;
	if (strcmp(n, "Overlap Analysis") == 0)
		return P_OVERLAP;
	if (strcmp(n, "Python") == 0)
		return P_PYTHON;
	if (strcmp(n, "CANN") == 0 || strcmp(n, "Python GC") == 0)
		return P_HOST;
	if (*n == '\0' && strcmp(tok, "\"CPU functions\"") == 0)
		return P_LEGACY_CPU;
	if (*n == '\0' && strcmp(tok, "\"CUDA functions\"") == 0)
		return P_LEGACY_GPU;
	return P_GENERIC;
}

/* Kinds, keys and labels of every process and thread, once the metadata is known. */
void
json_threads_resolve(jctx *c)
{
	int count[P_LEGACY_GPU + 1] = {0};
	for (size_t i = 0; i < c->nprocs; i++) {
		jproc *p = &c->procs[i];
		p->kind = proc_kind(c, p);
		p->ordinal = count[p->kind]++;
	}
	for (size_t i = 0; i < c->nthreads; i++) {
		jthread *t = &c->threads[i];
		const jproc *p = &c->procs[t->proc];
		const char *tn = json_tok_str(c, t->name), *pn = json_tok_str(c, p->name);
		int64_t num = -1;
		char label[256], ms1_name[128], tidname[64];
		/* the Kineto of 2021 named a stream by its tid, "stream 7", without thread_name */
		const char *tid = json_tok_str(c, t->tok);
		size_t ttn = strlen(tid);
		if (!*tn && p->kind == P_GENERIC && ttn > 8 && ttn < sizeof tidname + 2 &&
		    tid[0] == '"' && tid[ttn - 1] == '"' &&
		    strncasecmp(tid + 1, "stream", 6) == 0 &&
		    memchr(tid + 1, '\\', ttn - 2) == NULL) {
			memcpy(tidname, tid + 1, ttn - 2);
			tidname[ttn - 2] = '\0';
			tn = tidname;
		}
		int64_t dev = p->dev >= 0 ? p->dev : p->ordinal;
		if (!int_after(tn, "stream", &num) && !int_after(tn, "plane", &num)) {
			/* no usable thread name: the tid itself, when it is a number */
			int64_t v;
			const char *tt = json_tok_str(c, t->tok);
			if (json_dec_parse(tt, strlen(tt), 0, &v) == DEC_OK && v >= 0)
				num = v;
		}
		if (num < 0 || num > UINT32_MAX / 2)
			num = (int64_t)i;
		int ms1_kind = -1;
		if (c->ms1_csv != NULL && p->kind == P_GENERIC) {
			/* MindSpore 1.x: no names; a tid is a stream (a number, or "Stream #N"),
			 * else MindSpore's own lanes (Steps, Scope Name, the merged ones) or the
			 * communication ops' */
			const char *tt = json_tok_str(c, t->tok);
			int64_t v;
			if (json_dec_parse(tt, strlen(tt), 0, &v) == DEC_OK && v >= 0 &&
			    v < UINT32_MAX / 2) {
				ms1_kind = v >= 7999 && v <= 8002 ? T_OVERLAP : T_DEVICE;
				num = v;
			} else if (int_after(tt, "stream #", &num) ||
			           int_after(tt, "stream", &num)) {
				ms1_kind = T_DEVICE;
			} else if (strstr(tt, "Steps") || strstr(tt, "Scope Name") ||
			           strstr(tt, "overlap") || strstr(tt, "free_time")) {
				ms1_kind = T_OVERLAP;
			} else {
				/* named lanes: the AI CPU's operators, the collectives', the host's
				 */
				size_t tl = strlen(tt);
				if (tl >= 2 && tt[0] == '"')
					snprintf(ms1_name, sizeof ms1_name, "%.*s", (int)(tl - 2),
					         tt + 1);
				else
					snprintf(ms1_name, sizeof ms1_name, "%s", tt);
				tn = ms1_name;
				num = (int64_t)i | INT64_C(1) << 30;
				if (strcasestr(tt, "ai cpu") || strcasestr(tt, "aicpu"))
					ms1_kind = T_DEVICE;
				else if (strcasestr(tt, "communication") ||
				         strcasestr(tt, "hccl") || strstr(tt, "AllReduce") ||
				         strstr(tt, "AllGather") || strstr(tt, "ReduceScatter") ||
				         strstr(tt, "Broadcast") || strstr(tt, "Send") ||
				         strstr(tt, "Receive"))
					ms1_kind = T_GROUP;
				else
					ms1_kind = T_HOST;
			}
		}
		switch (ms1_kind >= 0 ? -1 : p->kind) {
		case -1:
			t->kind = ms1_kind;
			break;
		case P_HW:
			t->kind = strncmp(tn, "Step Trace", 10) == 0 ? T_STEPTRACE : T_DEVICE;
			break;
		case P_LEGACY_GPU:
			t->kind = T_DEVICE;
			break;
		case P_HCCL:
			t->kind = strncmp(tn, "Plane", 5) == 0 ? T_PLANE : T_GROUP;
			break;
		case P_OVERLAP:
			t->kind = T_OVERLAP;
			break;
		case P_GENERIC:
			/* Kineto device streams: "stream 7 " in a process labelled "GPU n"; where
			 * the host process has the pid of a GPU (labelled both), only its streams
			 */
			t->kind = ((p->dev >= 0 && !p->cpu) || strncasecmp(tn, "stream", 6) == 0)
			              ? T_DEVICE
			              : T_HOST;
			break;
		default:
			t->kind = T_HOST;
		}
		switch (t->kind) {
		case T_DEVICE: /* like the DB loader: device << 32 | stream */
			t->key = dev << 32 | num;
			if (*tn)
				snprintf(label, sizeof label, "%s", tn);
			else
				snprintf(label, sizeof label, "Stream %" PRId64, num);
			break;
		case T_PLANE: /* after the streams' sub-task lanes */
			t->key = dev << 32 | (INT64_C(1) << 31) | num;
			snprintf(label, sizeof label, "%s", *tn ? tn : "Plane");
			break;
		case T_GROUP:
			t->key = dev << 32 | (int64_t)i;
			snprintf(label, sizeof label, "%s", *tn ? tn : "Communication");
			break;
		default:
			t->key = (int64_t)t->proc << 32 | (int64_t)i;
			if (p->kind == P_LEGACY_CPU && !*tn) /* every thread is "CPU functions" */
				snprintf(label, sizeof label, "CPU thread %s",
				         json_tok_str(c, t->tok));
			else if (*pn && *tn)
				snprintf(label, sizeof label, "%s %s", pn, tn);
			else if (*tn)
				snprintf(label, sizeof label, "%s", tn);
			else
				snprintf(label, sizeof label, "%s tid %s",
				         *pn ? pn : json_tok_str(c, p->tok),
				         json_tok_str(c, t->tok));
		}
		/* Kineto pads names ("stream 7 "): labels do not keep trailing blanks */
		size_t ln = strlen(label);
		while (ln > 0 && label[ln - 1] == ' ')
			label[--ln] = '\0';
		t->label = strpool_intern(c->r->pool, label, ln);
	}
}

tl_track *
json_thread_track(jctx *c, jthread *t, tl_lane_kind kind)
{
	if (t->tr[kind] == NULL) {
		t->tr[kind] = rank_track(c->r, kind, t->key, strpool_get(c->r->pool, t->label));
		/* the legacy exporter writes record_function ranges and operators alike, without a
		 * category: the stage and pipeline rules find the ranges by name */
		if (kind == TL_LANE_HOST && c->procs[t->proc].kind == P_LEGACY_CPU)
			t->tr[kind]->user_ranges = 1;
	}
	return t->tr[kind];
}

tl_track *
json_mstx_track(jctx *c, uint32_t dom)
{
	for (size_t i = 0; i < c->ndoms; i++)
		if (c->doms[i].dom == dom)
			return c->doms[i].t;
	dom_track d = {dom, rank_track(c->r, TL_LANE_MSTX, dom, strpool_get(c->r->pool, dom))};
	VEC_PUSH(c->doms, c->ndoms, c->domcap, d);
	return d.t;
}

/* ---- cJSON helpers ------------------------------------------------------------------------- */

/* The whole event object, for metadata events. */
static cJSON *
event_parse(jctx *c, const jevent *ev)
{
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + ev->start, ev->end - ev->start);
	if (j == NULL || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		json_problem(c, PR_PARSE, ev->start);
		return NULL;
	}
	return j;
}

/* The event's "args" object, or NULL (absent, or not valid JSON: noted as pr). The other
 * members are read from their raw bytes: ts and dur must not go through a double. */
cJSON *
json_args_parse(jctx *c, const jevent *ev, int pr)
{
	jspan a = ev->f[F_ARGS];
	if (a.len == 0 || c->b[a.off] != '{')
		return NULL;
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + a.off, a.len);
	if (j == NULL || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		json_problem(c, pr, a.off);
		return NULL;
	}
	return j;
}

/* A string member's value, NUL-terminated, and its length (JSON escapes decoded by cJSON when
 * there are any), or the raw text of a non-string; "" when absent. Valid until the next call;
 * *tmp (freed by the caller with cJSON_Delete) holds a decoded string. */
const char *
json_span_string(jctx *c, jspan s, cJSON **tmp, size_t *len)
{
	size_t n;
	const char *t = json_span_text(c, s, &n);
	*tmp = NULL;
	if (json_span_is_string(c, s) && memchr(t, '\\', n) != NULL) {
		*tmp = cJSON_ParseWithLength((const char *)c->b + s.off, s.len);
		if (cJSON_IsString(*tmp) && (*tmp)->valuestring) {
			*len = strlen((*tmp)->valuestring);
			return (*tmp)->valuestring;
		}
		*len = 0;
		return "";
	}
	VEC_RESERVE(c->sbuf, c->sbufcap, n + 1);
	memcpy(c->sbuf, t, n);
	c->sbuf[n] = '\0';
	*len = n;
	return c->sbuf;
}

/* A name's hash for the caches below: its length and first and last eight bytes. */
static inline uint64_t
name_hash(const char *s, size_t n)
{
	uint64_t a = 0, z = 0;
	memcpy(&a, s, n < 8 ? n : 8);
	if (n > 8)
		memcpy(&z, s + n - 8, 8);
	uint64_t h = (a ^ z * 0x9E3779B97F4A7C15ull ^ n) * 0xBF58476D1CE4E5B9ull;
	h ^= h >> 31; /* names alike but for their middle and length keep apart */
	return h * 0x94D049BB133111EBull;
}

/* Its cache slot (the name interned), where walk 2 keeps what it learnt of the name. */
name_slot *
json_name_slot(jctx *c, const char *s, size_t n)
{
	name_slot *e = &c->names[name_hash(s, n) >> 56];
	if (e->len == n && e->id != 0 && memcmp(strpool_get(c->r->pool, e->id), s, n) == 0)
		return e;
	e->id = strpool_intern(c->r->pool, s, n);
	e->len = n;
	e->kernel = 0;
	return e;
}

/* The pool id of a slice name. Names repeat (kernels, API calls): a small cache keyed by the
 * length and the first and last bytes saves hashing each one again. */
uint32_t
json_name_id(jctx *c, const char *s, size_t n)
{
	return json_name_slot(c, s, n)->id;
}

/* Whether the n bytes at a are the key k: member names are short, and a memcmp call costs more
 * than two words read from each end (they overlap below 16 bytes). */
static inline int
key_eq(const unsigned char *a, const char *k, size_t n)
{
	if (n >= 8 && n <= 16) {
		uint64_t a0, a1, k0, k1;
		memcpy(&a0, a, 8);
		memcpy(&k0, k, 8);
		memcpy(&a1, a + n - 8, 8);
		memcpy(&k1, k + n - 8, 8);
		return ((a0 ^ k0) | (a1 ^ k1)) == 0;
	}
	if (n >= 4 && n < 8) {
		uint32_t a0, a1, k0, k1;
		memcpy(&a0, a, 4);
		memcpy(&k0, k, 4);
		memcpy(&a1, a + n - 4, 4);
		memcpy(&k1, k + n - 4, 4);
		return ((a0 ^ k0) | (a1 ^ k1)) == 0;
	}
	return memcmp(a, k, n) == 0;
}

/* The member name starting at b[ks] (its quote before): its end after the closing quote, its
 * length and which keys it is, from the memo's entry for its place when the name is that one,
 * else scanned (and the entry set to it). SIZE_MAX when the input ends first. */
static inline size_t
args_name(jargs_memo *mo, size_t p, const unsigned char *b, size_t end, size_t ks, const jkey *keys,
          int nkeys, size_t *kn, unsigned *want)
{
	if (p < ARGS_MEMO_MEMBERS) {
		size_t n = mo->m[p].len;
		/* the remembered name holds no quote or backslash: the string ends at its end */
		if (n > 0 && ks + n < end && b[ks + n] == '"' && key_eq(b + ks, mo->m[p].name, n)) {
			*kn = n;
			*want = mo->m[p].want;
			return ks + n + 1;
		}
	}
	int bad = -1;
	size_t bad_off, i = json_scan_string(b, end, ks, &bad, &bad_off);
	if (i == SIZE_MAX)
		return SIZE_MAX;
	size_t n = i - ks - 1;
	unsigned w = 0;
	for (int k = 0; k < nkeys; k++)
		if (keys[k].n == n && key_eq(b + ks, keys[k].s, n))
			w |= 1u << k;
	if (p < ARGS_MEMO_MEMBERS && n > 0 && n <= ARGS_MEMO_NAME &&
	    memchr(b + ks, '\\', n) == NULL) {
		memcpy(mo->m[p].name, b + ks, n);
		mo->m[p].len = (uint8_t)n;
		mo->m[p].want = (uint8_t)w;
	}
	*kn = n;
	*want = w;
	return i;
}

int
json_args_members(jctx *c, const jevent *ev, const jkey *keys, int nkeys, jspan *out)
{
	const unsigned char *b = c->b;
	jspan a = ev->f[F_ARGS];
	size_t end = a.off + a.len, i = a.off, bad_off;
	int bad = -1;
	jevent tmp;
	tmp.bad = -1;
	jargs_memo *mo = &c->args_memo[((uintptr_t)keys / sizeof *keys) % ARGS_MEMOS];
	if (mo->keys != keys) {
		memset(mo, 0, sizeof *mo);
		mo->keys = keys;
	}
	for (int k = 0; k < nkeys; k++) /* a member not found: an empty span at the start */
		out[k].off = out[k].len = 0;
	if (a.len < 2 || b[i] != '{')
		return -1;
	for (size_t p = 0, kn;; p++) {
		unsigned want;
		i = json_skip_ws(b, end, i + (p == 0));
		if (i < end && b[i] == '}')
			return 0;
		if (i >= end || b[i] != '"')
			return -1;
		if ((i = args_name(mo, p, b, end, i + 1, keys, nkeys, &kn, &want)) == SIZE_MAX)
			return -1;
		i = json_skip_ws(b, end, i);
		if (i >= end || b[i] != ':')
			return -1;
		size_t vs = i = json_skip_ws(b, end, i + 1);
		if (i >= end)
			return -1;
		if (b[i] == '"')
			i = json_scan_string(b, end, i + 1, &bad, &bad_off);
		else if (b[i] == '{' || b[i] == '[')
			i = json_skip_nested(b, end, i, 2, &tmp.bad, &tmp.bad_off);
		else if ((i = json_skip_scalar(b, end, i)) == vs)
			return -1;
		if (i == SIZE_MAX)
			return -1;
		for (; want != 0; want &= want - 1)
			out[__builtin_ctz(want)] = (jspan){vs, i - vs};
		i = json_skip_ws(b, end, i);
		if (i < end && b[i] == ',')
			i++;
		else if (i >= end || b[i] != '}')
			return -1;
	}
}

/* The event's args.correlation (Kineto), as an integer: 1 when it has one. Walk 2 asks it
 * twice of a device event (its step, its link): the last answer is kept. */
int
json_event_corr(jctx *c, const jevent *ev, int64_t *corr)
{
	if (c->corr_at != ev->start + 1) {
		static const jkey keys[] = {JKEY("correlation")};
		jspan v[1];
		c->corr_ok =
		    json_args_members(c, ev, keys, 1, v) == 0 && json_span_int(c, v[0], &c->corr_v);
		c->corr_at = ev->start + 1;
	}
	*corr = c->corr_v;
	return c->corr_ok;
}

/* An integer member value (a JSON number or a string of digits), exactly. */
int
json_span_int(const jctx *c, jspan s, int64_t *v)
{
	if (s.len == 0) /* not found: its offset says nothing */
		return 0;
	size_t n;
	const char *t = json_span_text(c, s, &n);
	return json_dec_parse(t, n, 0, v) == DEC_OK;
}

/* A short string member value into buf (escapes decoded by cJSON), or NULL when it is not a
 * string or does not fit. */
const char *
json_span_str_buf(const jctx *c, jspan s, char *buf, size_t bufsz)
{
	size_t n;
	const char *t = json_span_text(c, s, &n);
	if (!json_span_is_string(c, s) || n >= bufsz)
		return NULL;
	if (memchr(t, '\\', n) == NULL) {
		memcpy(buf, t, n);
		buf[n] = '\0';
		return buf;
	}
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + s.off, s.len);
	const char *r = NULL;
	if (cJSON_IsString(j) && j->valuestring && strlen(j->valuestring) < bufsz) {
		strcpy(buf, j->valuestring);
		r = buf;
	}
	cJSON_Delete(j);
	return r;
}

const char *
json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* An integer member (a JSON number or a string of digits), exactly; 0 when absent. */
static int
json_int(const cJSON *o, const char *key, int64_t *v)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
	if (cJSON_IsString(it) && it->valuestring)
		return json_dec_parse(it->valuestring, strlen(it->valuestring), 0, v) == DEC_OK;
	if (cJSON_IsNumber(it) && it->valuedouble >= -9.0e15 && it->valuedouble <= 9.0e15) {
		*v = (int64_t)it->valuedouble; /* exact below 2^53: ids, stream and task numbers */
		return 1;
	}
	return 0;
}

int
json_str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* ---- walk 1: names, steps, sub-task keys, problems ------------------------------------------ */

/* A host name as the trace gives it, when it is one (not empty, at most 255 bytes) */
static void
json_set_host(jctx *c, const char *h)
{
	if (h != NULL && h[0] != '\0' && strlen(h) < 256)
		c->host = xstrdup(h);
}

void
json_root_member(jctx *c, const char *key, size_t kn, size_t v, size_t vend)
{
	if (kn == 15 && memcmp(key, "distributedInfo", 15) == 0) {
		cJSON *d = cJSON_ParseWithLength((const char *)c->b + v, vend - v);
		int64_t r;
		if (d != NULL && json_int(d, "rank", &r) && r >= 0 && r < 1000000)
			c->dist_rank = (int)r;
		if (d != NULL && c->host == NULL)
			json_set_host(c, json_str(d, "hostname"));
		cJSON_Delete(d);
	} else if (kn == 8 && memcmp(key, "hostname", 8) == 0) {
		/* the host that wrote the trace: its ranks share a clock (load_clock) */
		cJSON *d = cJSON_ParseWithLength((const char *)c->b + v, vend - v);
		if (cJSON_IsString(d)) {
			free(c->host);
			c->host = NULL;
			json_set_host(c, d->valuestring);
		}
		cJSON_Delete(d);
	} else if (kn == 19 && memcmp(key, "baseTimeNanoseconds", 19) == 0) {
		int64_t base;
		size_t n;
		jspan s = {v, vend - v};
		const char *t = json_span_text(c, s, &n);
		if (json_dec_parse(t, n, 0, &base) == DEC_OK)
			c->base_ns = base;
		else
			msg_warn(c->path,
			         "byte %zu: baseTimeNanoseconds is not an integer; times "
			         "taken as absolute",
			         v);
	}
}

static void
meta_event(jctx *c, const jevent *ev)
{
	cJSON *j = event_parse(c, ev);
	if (j == NULL)
		return;
	const char *what = json_str(j, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(j, "args");
	if (what == NULL || !cJSON_IsObject(args)) {
		cJSON_Delete(j);
		return;
	}
	if (strcmp(what, "process_name") == 0) {
		const char *nm = json_str(args, "name");
		uint32_t pi = proc_of(c, tok_intern(c, ev->f[F_PID])); /* may move c->procs */
		if (nm)
			c->procs[pi].name = strpool_intern_cstr(c->tok, nm);
	} else if (strcmp(what, "thread_name") == 0) {
		const char *nm = json_str(args, "name");
		uint32_t ti = json_thread_of(c, ev); /* may move c->threads */
		if (nm)
			c->threads[ti].name = strpool_intern_cstr(c->tok, nm);
	} else if (strcmp(what, "process_labels") == 0) {
		const char *l = json_str(args, "labels");
		int64_t d;
		uint32_t pi = proc_of(c, tok_intern(c, ev->f[F_PID]));
		if (l && (int_after(l, "NPU", &d) || int_after(l, "GPU", &d)) && d < 65536)
			c->procs[pi].dev = (int)d;
		else if (l && strcmp(l, "CPU") == 0)
			c->procs[pi].cpu = 1;
	}
	cJSON_Delete(j);
}

uint64_t
json_plane_key(int64_t stream, int64_t task, int64_t ctx)
{
	return (uint64_t)(stream & 0xffff) << 48 | (uint64_t)(task & 0xffff) << 32 |
	       (uint64_t)(ctx & 0xffffffff);
}

/* Whether s starts with the lower-case ASCII `low`, in any case (strncasecmp's answer for
 * these letters, without its call: every slice's name asks). */
static int
starts_ci(const char *s, const char *low)
{
	for (; *low; s++, low++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch >= 'A' && ch <= 'Z' ? ch | 0x20 : ch) != (unsigned char)*low)
			return 0;
	}
	return 1;
}

int
json_is_comm_name(const char *s)
{
	switch (s[0]) {
	case 'n':
		return strncmp(s, "nccl", 4) == 0;
	case 'g':
		return strncmp(s, "gloo:", 5) == 0;
	case 'c':
		return strncmp(s, "c10d::", 6) == 0;
	case 'h':
	case 'H':
		return starts_ci(s, "hccl");
	}
	return 0;
}

/* A device kernel that is a collective (HolisticTraceAnalysis' communication kernels, NCCL's
 * "ncclKernel_*" / "ncclDevKernel_*", and their RCCL and HCCL counterparts). */
int
json_is_comm_kernel(const char *s)
{
	return starts_ci(s, "nccl") || starts_ci(s, "rccl") || starts_ci(s, "hccl") ||
	       strstr(s, "ncclKernel") != NULL || strstr(s, "ncclDevKernel") != NULL;
}

/* The first of c->lcorr_key[0 .. n) not below k. */
static size_t
lcorr_lower(const jctx *c, uint64_t k)
{
	size_t lo = 0, hi = c->nlcorr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->lcorr_key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A launch call's correlation k, as call number c->nlcorr: 1 when no call before had it. While
 * they count up they are kept in order (the lookup a binary search, mostly a step from the
 * last); the first one out of order puts them all in the map. */
static int
lcorr_add(jctx *c, uint64_t k)
{
	if (!c->lcorr_mapped) {
		if (c->nlcorr == 0 || k > c->lcorr_key[c->nlcorr - 1]) {
			VEC_RESERVE(c->lcorr_key, c->lcorr_keycap, c->nlcorr + 1);
			c->lcorr_key[c->nlcorr] = k;
			return 1;
		}
		size_t i = lcorr_lower(c, k);
		if (i < c->nlcorr && c->lcorr_key[i] == k)
			return 0;
		for (i = 0; i < c->nlcorr; i++)
			u64map_put(&c->lcorr, c->lcorr_key[i], (uint32_t)i);
		free(c->lcorr_key);
		c->lcorr_key = NULL;
		c->lcorr_keycap = 0;
		c->lcorr_mapped = 1;
	}
	if (u64map_get(&c->lcorr, k, NULL))
		return 0;
	u64map_put(&c->lcorr, k, (uint32_t)c->nlcorr);
	return 1;
}

/* The index of a launch call's correlation among c->nlcorr (1), or 0 when no call has it. */
int
json_lcorr_find(jctx *c, uint64_t corr, uint32_t *i)
{
	if (c->lcorr_mapped)
		return u64map_get(&c->lcorr, corr, i);
	size_t h = c->lcorr_hint + 1, k; /* device work mostly comes in the calls' order */
	if (h < c->nlcorr && c->lcorr_key[h] == corr)
		k = h;
	else if ((k = lcorr_lower(c, corr)) == c->nlcorr || c->lcorr_key[k] != corr)
		return 0;
	c->lcorr_hint = k;
	*i = (uint32_t)k;
	return 1;
}

/* Whether args of n bytes at p hold the member name "context id": memmem's setup costs more
 * than these few dozen bytes, so the rare 'x' is looked for first. Short args (Kineto's, 30-95
 * bytes, all holding "external id", whose 'x' memchr found and memcmp then refused, and memchr
 * again after it) with SSE2 (x86_64's baseline) sixteen places at a time in line, each 'x'
 * checked by its neighbours before the whole name; longer ones (Ascend's, 110-350 bytes, most
 * without an 'x') by memchr, quicker there. */
static inline int
has_context_id(const unsigned char *p, size_t n)
{
	static const char id[] = "\"context id\"";
#ifdef __SSE2__
	/* windows of 16 places for the 'x' at 6 .. n - 6, the last one overlapping */
	if (n >= 27 && n < 96) {
		const __m128i x = _mm_set1_epi8('x');
		for (size_t j = 6;; j += 16) {
			int last = j >= n - 21;
			if (last)
				j = n - 21;
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
			    _mm_loadu_si128((const __m128i *)(const void *)(p + j)), x));
			for (; m != 0; m &= m - 1) {
				const unsigned char *q = p + j + (unsigned)__builtin_ctz(m);
				if (q[1] == 't' && q[-3] == 'n' && memcmp(q - 6, id, 12) == 0)
					return 1;
			}
			if (last)
				return 0;
		}
	}
#endif
	const unsigned char *e = p + n, *q = p + 6;
	while (q < e && (q = memchr(q, 'x', (size_t)(e - q))) != NULL) {
		if (q + 6 <= e && memcmp(q - 6, id, 12) == 0)
			return 1;
		q++;
	}
	return 0;
}

int
json_has_context_id(const unsigned char *p, size_t n)
{
	return has_context_id(p, n);
}

/* Walk 1: whether a device event's name is a collective's kernel (then the host's collectives
 * are not communication: c->dev_comm). Kernels repeat: the names seen not to be are kept, raw. */
static void
dev_comm_name(jctx *c, jspan name)
{
	size_t rn;
	const char *raw = json_span_text(c, name, &rn);
	kname_slot *e = NULL;
	if (rn <= KNAME_MAX) {
		e = &c->knames[name_hash(raw, rn) >> 58];
		if (e->s != NULL && e->len == rn && memcmp(e->s, raw, rn) == 0)
			return;
	}
	cJSON *tmp;
	size_t nl;
	const char *nm = json_span_string(c, name, &tmp, &nl);
	if (nm != NULL && json_is_comm_kernel(nm))
		c->dev_comm = 1;
	else if (e != NULL) {
		free(e->s);
		e->s = xmalloc(rn + 1);
		memcpy(e->s, raw, rn);
		e->len = rn;
	}
	cJSON_Delete(tmp);
}

void
json_names_event(jctx *c, const jevent *ev)
{
	if (ev->bad >= 0) {
		json_problem(c, ev->bad, ev->bad_off);
		return;
	}
	char ph = json_event_phase(c, ev);
	int64_t start, dur;
	switch (ph) {
	case 'M':
		meta_event(c, ev);
		return;
	case 'X':
		break;
	case 's':
	case 'f':
		json_flow_event(c, ev, ph);
		return;
	case 'B':
	case 'E':
	case 'C': /* recorded for walk 2, which finds their thread */
		json_rec_thread(c, 0);
		return;
	default:
		return;
	}
	uint32_t th = json_thread_of(c, ev);
	json_rec_thread(c, th + 1);
	/* MindSpore 1.x: its ts 0 is the first operator's start (args.type) */
	if (c->ms1_csv != NULL && ev->f[F_ARGS].len > 0 &&
	    memmem(c->b + ev->f[F_ARGS].off, ev->f[F_ARGS].len, "\"type\"", 6) != NULL &&
	    json_event_time(c, ev, 1, 0, &start, &dur) == 0 && start < c->ms1_first)
		c->ms1_first = start;
	/* the times of slices are judged (and counted) in walk 2 */
	if (span_starts(c, ev->f[F_NAME], "ProfilerStep#") &&
	    json_event_time(c, ev, 1, 0, &start, &dur) == 0) {
		size_t n;
		const char *t = json_span_text(c, ev->f[F_NAME], &n);
		int64_t id;
		if (json_dec_parse(t + 13, n - 13, 0, &id) == DEC_OK) {
			step_cand sc = {th,         span_eq(c, ev->f[F_CAT], "gpu_user_annotation"),
			                0,          id,
			                start,      start + dur,
			                ev->ordinal};
			VEC_PUSH(c->cand, c->ncand, c->candcap, sc);
		}
	}
	/* msprof's Step Trace (CANN <= 7.0): "Iteration N" with the iteration's times in its
	 * args; whether its thread is the Step Trace one is known once the names are */
	if (span_starts(c, ev->f[F_NAME], "Iteration ") &&
	    json_event_time(c, ev, 1, 0, &start, &dur) == 0) {
		static const jkey keys[] = {JKEY("Iteration ID"), JKEY("Iteration Time(ns)")};
		jspan v[2];
		int64_t id = -1, ns = -1;
		if (json_args_members(c, ev, keys, 2, v) == 0) {
			if (!json_span_int(c, v[0], &id))
				id = -1;
			if (!json_span_int(c, v[1], &ns))
				ns = -1;
		}
		if (id < 0) {
			size_t n;
			const char *t = json_span_text(c, ev->f[F_NAME], &n);
			if (json_dec_parse(t + 10, n - 10, 0, &id) != DEC_OK)
				id = -1;
		}
		/* the step lasts its Iteration Time (the event's dur rounds it to the µs) */
		if (id >= 0 && id < 1000000 && tl_time_ok(start) && dur >= 0 &&
		    tl_time_ok(start + dur) && (ns < 0 || ns <= TL_TIME_MAX - start)) {
			step_cand sc = {
			    th, 0, 1, id, start, ns >= 0 ? start + ns : start + dur, ev->ordinal};
			VEC_PUSH(c->cand, c->ncand, c->candcap, sc);
		}
	}
	/* a Kineto launch call: its correlation names the device work it launched */
	if (json_is_launch_cat(c, ev->f[F_CAT]) && ev->f[F_ARGS].len > 0 &&
	    json_event_time(c, ev, 0, 0, &start, &dur) == 0) {
		int64_t corr;
		if (json_event_corr(c, ev, &corr) && c->nlcorr < UINT32_MAX &&
		    lcorr_add(c, (uint64_t)corr)) {
			VEC_PUSH(c->lcorr_ts, c->nlcorr, c->lcorrcap, start);
		}
	}
	/* an HCCL sub-task (args "stream id", "task id", "context id"); its thread may be
	 * named only later, so the args decide here */
	jspan a = ev->f[F_ARGS];
	if (a.len > 0 && has_context_id(c->b + a.off, a.len)) {
		static const jkey keys[] = {JKEY("stream id"), JKEY("task id"), JKEY("context id")};
		jspan v[3];
		int64_t s, t, x;
		if (json_args_members(c, ev, keys, 3, v) == 0 && json_span_int(c, v[0], &s) &&
		    json_span_int(c, v[1], &t) && json_span_int(c, v[2], &x)) {
			u64map_put(&c->planes, json_plane_key(s, t, x), 1);
			c->plane_streams[(s & 0xffff) >> 6] |= UINT64_C(1) << (s & 63);
		}
	}
	if (!c->dev_comm &&
	    (json_is_device_cat(c, ev->f[F_CAT]) || span_eq(c, ev->f[F_PID], "\"CUDA functions\"")))
		dev_comm_name(c, ev->f[F_NAME]);
}

/* MindSpore 1.x's steps: step_trace_raw_{r}_detail_time.csv beside the timeline (step_num,
 * start_point, end_point, total, fp_point, ...), times in ticks of the device's 100 MHz counter
 * (10 ns). The timeline counts from its first operator, which is step 1's FP start: the steps
 * are placed so. Without the file (or a usable row) the timeline has no steps, said in one
 * line. */
static void
ms1_steps(jctx *c, size_t *cap)
{
	FILE *f = fopen(c->ms1_csv, "r");
	if (f == NULL) {
		c->ms1_no_csv = errno; /* said once the timeline is known to be read */
		return;
	}
	char line[4096];
	int64_t base = INT64_MIN;
	size_t rows = 0, bad = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "step_num", 8) == 0)
			continue;
		int64_t v[5];
		char *p = line, *e;
		int k;
		for (k = 0; k < 5; k++) {
			errno = 0;
			long long x = strtoll(p, &e, 10);
			if (e == p || errno != 0 || (*e != ',' && *e != '\n' && *e != '\0'))
				break;
			v[k] = (int64_t)x;
			p = *e == ',' ? e + 1 : e;
		}
		/* v: step_num, start_point, end_point, total, fp_point */
		if (k < 5 || v[0] < 0 || v[2] < v[1] || v[1] < 0 || v[4] < 0 ||
		    v[2] > INT64_MAX / 20 || v[4] > INT64_MAX / 20 || c->ms1_first == INT64_MAX) {
			bad++;
			continue;
		}
		if (base == INT64_MIN)
			base = v[4];
		tl_step s = {v[0], sat_add(c->ms1_first, (v[1] - base) * 10),
		             sat_add(c->ms1_first, (v[2] - base) * 10)};
		if (!tl_time_ok(s.start) || !tl_time_ok(s.end)) {
			bad++;
			continue;
		}
		VEC_PUSH(c->steps, c->nsteps, *cap, s);
		rows++;
	}
	fclose(f);
	if (bad > 0 || rows == 0)
		msg_warn(c->ms1_csv,
		         "%zu step row%s of %zu not understood (MindSpore 1.x step trace: "
		         "step_num, start_point, end_point, total, fp_point, ...)",
		         bad, bad == 1 ? "" : "s", bad + rows);
}

/* ProfilerStep#N ranges of host threads become the steps (the DB's STEP_TIME). */
void
json_steps_build(jctx *c)
{
	size_t cap = 0;
	for (size_t i = 0; i < c->ncand; i++) {
		step_cand *sc = &c->cand[i];
		const jthread *t = &c->threads[sc->thread];
		if (sc->gpu || t->kind != (sc->iter ? T_STEPTRACE : T_HOST))
			continue;
		if (sc->iter && c->models > 1) {
			/* two models on the device: their iterations stay apart */
			int64_t model;
			if (int_after(json_tok_str(c, t->name), "Model ID:", &model) &&
			    model < 9000)
				sc->id = MSPROF_MODEL_STEP(model, sc->id);
		}
		if ((c->base_ns > 0 && sc->end > INT64_MAX - c->base_ns) ||
		    (c->base_ns < 0 && sc->start < INT64_MIN - c->base_ns))
			continue;        /* walk 3 drops the event as out of range */
		sc->start += c->base_ns; /* see event_time */
		sc->end += c->base_ns;
		size_t k;
		for (k = 0; k < c->nsteps; k++)
			if (c->steps[k].id == sc->id)
				break;
		if (k < c->nsteps) { /* the same step on two threads: its envelope */
			if (sc->start < c->steps[k].start)
				c->steps[k].start = sc->start;
			if (sc->end > c->steps[k].end)
				c->steps[k].end = sc->end;
			continue;
		}
		tl_step s = {sc->id, sc->start, sc->end};
		VEC_PUSH(c->steps, c->nsteps, cap, s);
		if (sc->iter) {
			json_iter_ev ie = {sc->start, sc->ordinal};
			size_t icap = c->niters;
			VEC_PUSH(c->iters, c->niters, icap, ie);
		}
	}
	if (c->ms1_csv != NULL)
		ms1_steps(c, &cap);
	if (rank_add_steps(c->r, c->steps, c->nsteps, &c->step_base) != 0) {
		msg_warn(c->path, "more than %d ProfilerStep ranges; steps ignored",
		         TL_NO_STEP - 1);
		c->nsteps = 0;
		return;
	}
	if (c->niters == 0)
		return;
	/* msprof's iterations: named as msprof names them, with the model when the device
	 * has two or more */
	tl_track *st = rank_track(c->r, TL_LANE_STEP, 0, "Step");
	for (size_t k = 0; k < st->n; k++) {
		uint32_t a = track_arg(st, k);
		if (a < c->step_base || a >= c->step_base + c->nsteps)
			continue;
		int64_t id = c->r->steps[a].id;
		char nm[64];
		if (c->models > 1)
			snprintf(nm, sizeof nm, "Model %" PRId64 " Iteration %" PRId64,
			         id / 1000000, id % 1000000);
		else
			snprintf(nm, sizeof nm, "Iteration %" PRId64, id);
		st->v[k].name = strpool_intern_cstr(c->r->pool, nm);
	}
}

/* Step of host time t in this source, as a global step index (as the DB loader's step_at). */
uint16_t
json_step_at(const jctx *c, int64_t t)
{
	size_t i = steps_index_at(c->steps, c->nsteps, t);
	return i == SIZE_MAX ? TL_NO_STEP : (uint16_t)(c->step_base + i);
}

/* Flow ids are strings (Ascend's exceed 2^64). The common ones are decimal digit strings of at
 * most 38 digits: those are keyed exactly, without copying them, by (category, length, the
 * value of the last 19 digits, the value of the ones before); any other id by its text in a
 * string pool. Both give a dense flow number. */
static uint64_t
flow_hash(uint64_t hi, uint64_t lo, uint32_t meta)
{
	/* Ids count up (Kineto's in their lower 32 bits, Ascend's HostToDevice ids in their upper
	 * ones), and the ends come in the order of the starts: 8 neighbouring ids keep to 8
	 * neighbouring slots (the low 3 bits of either half pick the slot in a block of 8, the
	 * rest the block), so that a lookup mostly finds its slot in the cache line the one
	 * before brought in, where a hash of the whole id costs a cache miss each. At most 64
	 * ids share a block. */
	uint64_t h = (lo & ~0x0000000700000007ull) * 0x9E3779B97F4A7C15ull ^
	             hi * 0xC2B2AE3D27D4EB4Full ^ meta;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 32;
	return h << 3 | ((lo ^ lo >> 32) & 7);
}

static uint32_t
flow_new(jctx *c, uint64_t hi, uint64_t lo, uint32_t meta)
{
	/* 32 bytes a flow, up to 40 MB: in huge pages, a few hundred faults where 4 KiB pages
	 * were ten thousand */
	if (c->nfstart + 1 > c->fcap)
		c->fstart =
		    json_huge_reserve(c->fstart, &c->fcap, c->nfstart + 1, sizeof *c->fstart);
	c->fstart[c->nfstart] = FLOW_NONE;
	if (c->nfstart + 1 > c->fkcap)
		c->fkey = json_huge_reserve(c->fkey, &c->fkcap, c->nfstart + 1, sizeof *c->fkey);
	c->fkey[c->nfstart] = (flow_key){hi, lo, meta};
	VEC_RESERVE(c->fsthr, c->fscap, c->nfstart + 1);
	c->fsthr[c->nfstart] = UINT32_MAX;
	VEC_RESERVE(c->fcat, c->fccap, c->nfstart + 1);
	c->fcat[c->nfstart] = 0;
	return (uint32_t)c->nfstart++;
}

/* The flow table, nm + 1 slots, filled with the ids it holds. */
static void
flow_tab_build(jctx *c, size_t nm)
{
	/* zeroed by writing: a calloc'd mapping's pages would fault twice, mapped to the zero
	 * page by the probes' reads, then copied on their first write */
	uint32_t *nt = xreallocarray(NULL, nm + 1, sizeof *nt);
	memset(nt, 0, (nm + 1) * sizeof *nt);
	/* in flow order, not the table's: the keys are read in turn and neighbouring ids go to
	 * neighbouring slots, where the table's order read them at random */
	for (size_t f = 0; c->ftab && f < c->nfstart; f++) {
		const flow_key *o = &c->fkey[f];
		if (!(o->meta & FLOW_HASHED))
			continue; /* an ordered id, or one of text (flow_text) */
		size_t j = flow_hash(o->hi, o->lo, o->meta) & nm;
		while (nt[j] != 0)
			j = (j + 1) & nm;
		nt[j] = (uint32_t)f + 1;
	}
	free(c->ftab);
	c->ftab = nt;
	c->fmask = nm;
}

static inline int
flow_key_cmp(const flow_key *k, uint64_t hi, uint64_t lo, uint32_t meta)
{
	if (k->hi != hi)
		return k->hi < hi ? -1 : 1;
	if (k->lo != lo)
		return k->lo < lo ? -1 : 1;
	return (k->meta > meta) - (k->meta < meta);
}

/* The ids that come in ascending order (Kineto's ac2g ids and Ascend's HostToDevice ids count
 * up) need no table: a new one above them all goes at the end of c->ford, and an end finds its
 * start a step from the last one found, or by a binary search (the table's probes were a cache
 * miss or two each). Returns 1 with *fid, or 0 for a new id below the last (the table's). */
static int
flow_ordered(jctx *c, uint64_t hi, uint64_t lo, uint32_t meta, uint32_t *fid)
{
	const uint32_t *o = c->ford;
	size_t n = c->nford, h = c->fhint;
	if (n == 0 || flow_key_cmp(&c->fkey[o[n - 1]], hi, lo, meta) < 0) {
		*fid = flow_new(c, hi, lo, meta);
		VEC_PUSH(c->ford, c->nford, c->fordcap, *fid);
		c->fhint = n;
		return 1;
	}
	if (h + 1 < n && flow_key_cmp(&c->fkey[o[h + 1]], hi, lo, meta) == 0) {
		h++;
	} else if (flow_key_cmp(&c->fkey[o[h]], hi, lo, meta) != 0) {
		size_t a = 0, b = n;
		while (a < b) {
			size_t mid = a + (b - a) / 2;
			if (flow_key_cmp(&c->fkey[o[mid]], hi, lo, meta) < 0)
				a = mid + 1;
			else
				b = mid;
		}
		if (a == n || flow_key_cmp(&c->fkey[o[a]], hi, lo, meta) != 0)
			return 0;
		h = a;
	}
	c->fhint = h;
	*fid = o[h];
	return 1;
}

static uint32_t
flow_number(jctx *c, int cat, const char *id, size_t n)
{
	int digits = n > 0 && n <= 38;
	for (size_t k = 0; digits && k < n; k++)
		digits = id[k] >= '0' && id[k] <= '9';
	if (!digits) {
		char key[160];
		if (n + 2 > sizeof key)
			n = sizeof key - 2; /* ids that long are not ours to join exactly */
		key[0] = (char)('0' + cat);
		key[1] = '\x1f';
		memcpy(key + 2, id, n);
		if (c->flows == NULL) {
			c->flows = strpool_new();
			u64map_init(&c->flow_text);
		}
		uint32_t sid = strpool_intern(c->flows, key, n + 2), fid;
		if (!u64map_get(&c->flow_text, sid, &fid)) {
			fid = flow_new(c, 0, 0, 0);
			u64map_put(&c->flow_text, sid, fid);
		}
		return fid;
	}
	uint64_t hi = 0, lo = 0;
	size_t split = n > 19 ? n - 19 : 0;
	for (size_t k = 0; k < split; k++)
		hi = hi * 10 + (uint64_t)(id[k] - '0');
	for (size_t k = split; k < n; k++)
		lo = lo * 10 + (uint64_t)(id[k] - '0');
	uint32_t meta = (uint32_t)cat << 8 | (uint32_t)n, fid;
	if (flow_ordered(c, hi, lo, meta, &fid))
		return fid;
	meta |= FLOW_HASHED;
	if (c->ftab == NULL || (c->nfdigit + 1) * 2 > c->fmask + 1) /* grow and rehash */
		flow_tab_build(c, c->ftab ? c->fmask * 2 + 1 : 1023);
	for (size_t j = flow_hash(hi, lo, meta) & c->fmask;; j = (j + 1) & c->fmask) {
		uint32_t f = c->ftab[j];
		if (f == 0) {
			fid = flow_new(c, hi, lo, meta);
			c->ftab[j] = fid + 1;
			c->nfdigit++;
			return fid;
		}
		const flow_key *k = &c->fkey[f - 1];
		if (k->meta == meta && k->lo == lo && k->hi == hi)
			return f - 1;
	}
}

/* HostToDevice (CANN launch -> device task or HCCL op) and Kineto's ac2g (runtime launch
 * -> kernel), joined by (cat, id); fwdbwd (forward operator -> its backward operator, torch_npu
 * and Kineto alike) kept for fwdbwd_build; MsTx (host MSTX range -> its device part) kept for
 * mstx_links_build. */
void
json_flow_event(jctx *c, const jevent *ev, char ph)
{
	size_t in;
	int64_t ts, dur;
	int cat;
	if (span_eq(c, ev->f[F_CAT], "HostToDevice"))
		cat = FLOW_H2D;
	else if (span_eq(c, ev->f[F_CAT], "ac2g"))
		cat = FLOW_AC2G;
	else if (span_eq(c, ev->f[F_CAT], "fwdbwd"))
		cat = FLOW_FWDBWD;
	else if (span_eq(c, ev->f[F_CAT], "MsTx"))
		cat = FLOW_MSTX;
	else if (span_eq(c, ev->f[F_CAT], "async_npu"))
		cat = FLOW_ASYNC_NPU;
	else
		return;
	if (json_event_time(c, ev, 0, 1, &ts, &dur) != 0 || ev->f[F_ID].len == 0)
		return;
	const char *id = json_span_text(c, ev->f[F_ID], &in);
	uint32_t fid = flow_number(c, cat, id, in);
	if (cat == FLOW_FWDBWD || cat == FLOW_MSTX) {
		fb_end e = {fid, json_thread_of(c, ev), ts, ph};
		if (cat == FLOW_FWDBWD)
			VEC_PUSH(c->fbe, c->nfbe, c->fbecap, e);
		else
			VEC_PUSH(c->mxe, c->nmxe, c->mxecap, e);
		return;
	}
	c->fcat[fid] = (uint8_t)cat;
	if (ph == 's') {
		if (c->fstart[fid] == FLOW_NONE) {
			c->fstart[fid] = ts;
			c->fsthr[fid] = json_thread_of(c, ev);
		}
	} else {
		flow_end fe = {ts, json_thread_of(c, ev), fid};
		VEC_PUSH(c->fend, c->nfend, c->fendcap, fe);
	}
}

int
json_is_device_cat(const jctx *c, jspan cat)
{
	return span_eq(c, cat, "kernel") || span_eq(c, cat, "gpu_memcpy") ||
	       span_eq(c, cat, "gpu_memset") || span_eq(c, cat, "mtia_ccp_events") ||
	       span_eq(c, cat, "Kernel") || span_eq(c, cat, "Memcpy") || span_eq(c, cat, "Memset");
}

int
json_is_launch_cat(const jctx *c, jspan cat)
{
	return span_eq(c, cat, "cuda_runtime") || span_eq(c, cat, "cuda_driver") ||
	       span_eq(c, cat, "Runtime");
}

/* After the steps: each launch call's correlation gets the step holding the call. */
void
json_launch_corr_build(jctx *c)
{
	if (c->nlcorr == 0)
		return;
	c->lcorr_step = xreallocarray(NULL, c->nlcorr, sizeof *c->lcorr_step);
	for (size_t i = 0; i < c->nlcorr; i++) {
		int64_t t = c->lcorr_ts[i];
		int ok =
		    c->base_ns >= 0 ? t <= INT64_MAX - c->base_ns : t >= INT64_MIN - c->base_ns;
		c->lcorr_step[i] = ok ? json_step_at(c, t + c->base_ns) : TL_NO_STEP;
	}
	free(c->lcorr_ts);
	c->lcorr_ts = NULL;
	c->lcorrcap = 0;
}
