/* Chrome-trace JSON loader: Ascend trace_view.json / msprof_*.json (torch_npu and msprof text
 * export), PyTorch profiler (Kineto) traces and the legacy
 * PyTorch exporter array.
 *
 * Streaming, with memory bounded by the model: the file is mapped read-only and a small scanner
 * finds the byte bounds of one event object at a time (strings, escapes, nesting, UTF-8) and
 * notes where its members are; an event's content is then taken from those bounds alone, never
 * from one tree of the whole file: cJSON parses the objects read as trees (metadata, MsprofTx
 * args, distributedInfo) and every string with escapes, while the few scalar members of a
 * device task are read straight from the bytes of its "args" (millions of them: no tree each),
 * and all times and ids with an exact decimal parser. Pages already walked are given back to
 * the kernel as the scan moves on; on big inputs the scan runs in a thread of its own, ahead of
 * the one handling the events. Two walks over the mapping:
 *   1. names: process_name / thread_name metadata (tracks are identified by these, never by pid
 *      numbers; metadata may follow the events that use a pid), ProfilerStep#N ranges, HCCL
 *      sub-task keys, Kineto's root fields, and the launch flows (HostToDevice, ac2g): with two
 *      or more steps, the device slice a flow ends on belongs to the step in which it was
 *      launched, like the DB loader's CANN_API connectionId join;
 *   2. slices.
 * Bad input is reported once per kind of problem, after the walks.
 * Times: `ts` and `dur` are decimal microseconds (a string in Ascend files, an integer or a
 * float in Kineto ones) and are parsed as decimals straight into integer ns, never through a
 * double: 1.7e15 µs with three decimals needs more than the 53 bits a double has. */
#include "config.h"
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

#define MAX_DEPTH 64                  /* nesting inside one event; deeper `args` are refused */
#define DROP_CHUNK ((size_t)16 << 20) /* give walked pages back every this many bytes */
#define PROGRESS_ROWS 65536
#define THREAD_CACHE 4 /* threads recognised by their raw pid/tid tokens (events interleave) */
#define FLOW_NONE INT64_MIN /* no start seen for a flow */
/* Big inputs are scanned by a second thread while the first one handles the events it found,
 * handed over in batches (the scan is about half the work). */
#define PIPE_MIN ((size_t)32 << 20) /* bytes; smaller inputs are walked by one thread */
#define PIPE_BATCH 512
#define PIPE_DEPTH 4

/* ---- decimal times ------------------------------------------------------------------------- */

enum { DEC_OK, DEC_NAN, DEC_RANGE };

/* Parses the decimal number s[0..n) (JSON number syntax, leniently: '+', ".5", "5." pass) and
 * scales it by 10^scale, rounding half away from zero, into *out. Exact: at most 19
 * significant digits are kept and the first dropped one rounds. DEC_NAN when s is not a
 * number (NaN, Infinity, "", text), DEC_RANGE when the result does not fit in int64. */
static int
dec_parse(const char *s, size_t n, int scale, int64_t *out)
{
	size_t i = 0;
	int neg = 0, ndig = 0, nsig = 0, rdig = -1;
	uint64_t m = 0;
	int64_t e10 = scale;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndig++) {
		int d = s[i] - '0';
		if (nsig < 19) {
			m = m * 10 + (uint64_t)d;
			nsig += m != 0;
		} else {
			e10++; /* a dropped integer digit */
			if (rdig < 0)
				rdig = d;
		}
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, ndig++) {
			int d = s[i] - '0';
			if (nsig < 19) {
				m = m * 10 + (uint64_t)d;
				nsig += m != 0;
				e10--;
			} else if (rdig < 0) {
				rdig = d;
			}
		}
	}
	if (ndig == 0)
		return DEC_NAN;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0, edig = 0;
		int64_t ex = 0;
		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edig++)
			if (ex < 100000)
				ex = ex * 10 + (s[i] - '0');
		if (edig == 0)
			return DEC_NAN;
		e10 += eneg ? -ex : ex;
	}
	if (i != n)
		return DEC_NAN;
	uint64_t v;
	if (m == 0) {
		v = 0;
	} else if (e10 >= 0) {
		v = m;
		for (int64_t k = 0; k < e10; k++) {
			if (v > UINT64_MAX / 10)
				return DEC_RANGE;
			v *= 10;
		}
		if (e10 == 0 && rdig >= 5)
			v++;
	} else if (e10 < -20) {
		v = 0; /* far below a nanosecond */
	} else {
		uint64_t p = 1;
		for (int64_t k = 1; k < -e10; k++)
			p *= 10;
		/* v = m / 10^-e10, rounded by the first digit dropped */
		v = e10 == -20 ? 0 : m / p / 10;
		int r = e10 == -20 ? 0 : (int)(m / p % 10);
		if (r >= 5)
			v++;
	}
	if (v > (uint64_t)INT64_MAX)
		return DEC_RANGE;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return DEC_OK;
}

/* ---- the scanner --------------------------------------------------------------------------- */

/* What the JSON loader keeps of a source: the byte offset of every EVIDX_STEP-th event of its
 * event array (by ordinal, which its slices carry as arg), so that the detail pane finds one
 * event again by reading a little of the file, not all of it. */
#define EVIDX_STEP 1024
typedef struct json_state {
	uint64_t *off;
	size_t n;
} json_state;

static void
json_state_free(void *p)
{
	json_state *st = p;
	if (st != NULL)
		free(st->off);
	free(st);
}

typedef struct jspan {
	size_t off, len; /* bytes of the raw JSON value; len 0 = absent */
} jspan;

enum { F_PH, F_NAME, F_CAT, F_TS, F_DUR, F_PID, F_TID, F_ID, F_ARGS, F__N };

/* Problems with one event (or one array element): the event is skipped, the walk goes on. */
enum {
	PR_UTF8,
	PR_DEPTH,
	PR_NOT_OBJECT,
	PR_NO_TS,
	PR_TS_NAN,
	PR_TS_RANGE,
	PR_DUR,
	PR_PARSE,
	PR_ARGS,
	PR_UNPAIRED,
	PR__N
};
static const char *const problem_text[PR__N] = {
    [PR_UTF8] = "invalid UTF-8 in a string",
    [PR_DEPTH] = "an event nested deeper than 64 levels",
    [PR_NOT_OBJECT] = "an array element that is not an event object",
    [PR_NO_TS] = "an event without \"ts\"",
    [PR_TS_NAN] = "a \"ts\" that is not a number",
    [PR_TS_RANGE] = "a \"ts\" out of range",
    [PR_DUR] = "a \"dur\" that is missing, negative, not a number or out of range",
    [PR_PARSE] = "an event that is not valid JSON",
    [PR_ARGS] = "\"args\" that are not valid JSON (the event is kept without them)",
    [PR_UNPAIRED] = "a \"B\" event without its \"E\" on the same thread, or an \"E\" without a "
                    "\"B\" (or before it)",
};

typedef struct jevent {
	size_t start, end; /* the object's bytes */
	uint64_t ordinal;  /* index in the event array */
	jspan f[F__N];
	int bad; /* PR_UTF8 / PR_DEPTH / PR_PARSE, or -1 */
	size_t bad_off;
} jevent;

/* Bytes a string body runs over without a closer look: printable ASCII but '"' and '\\'. */
static unsigned char str_plain[256];
/* Bytes where skip_nested looks closer: '"', '{', '}', '[', ']'. */
static unsigned char nest_special[256];
/* Bytes that end a scalar: white space and the JSON punctuation. */
static unsigned char scalar_end[256];

static void
tables_init(void)
{
	for (int i = 0x20; i < 0x80; i++)
		str_plain[i] = i != '"' && i != '\\';
	nest_special['"'] = nest_special['{'] = nest_special['}'] = 1;
	nest_special['['] = nest_special[']'] = 1;
	for (const char *p = " \t\r\n,]}\"{[:"; *p; p++)
		scalar_end[(unsigned char)*p] = 1;
}

/* Length of the valid UTF-8 sequence at b[0..n) (RFC 3629: no overlongs, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t
utf8_len(const unsigned char *b, size_t n)
{
	unsigned c = b[0];
	size_t len;
	unsigned lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || b[1] < lo || b[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (b[k] < 0x80 || b[k] > 0xBF)
			return 0;
	return len;
}

/* Eight bytes at a time: nonzero when v holds a '"', a '\\' or a byte >= 0x80 (SWAR). */
static uint64_t
str_stop8(uint64_t v)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t q = v ^ (ones * '"'), bs = v ^ (ones * '\\');
	return (((q - ones) & ~q) | ((bs - ones) & ~bs) | v) & high;
}

/* b[i] is just after an opening quote. Returns the offset after the closing quote, or SIZE_MAX
 * when the input ends first. Invalid UTF-8 is noted in *bad / *bad_off (the first only). */
static size_t
scan_string(const unsigned char *b, size_t n, size_t i, int *bad, size_t *bad_off)
{
	for (;;) {
		while (i + 8 <= n) {
			uint64_t v;
			memcpy(&v, b + i, 8);
			uint64_t m = str_stop8(v);
			if (m) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
				/* the lowest flagged byte is exact: straight to it */
				i += (size_t)__builtin_ctzll(m) >> 3;
#endif
				break;
			}
			i += 8;
		}
		while (i < n && str_plain[b[i]])
			i++;
		if (i >= n)
			return SIZE_MAX;
		unsigned c = b[i];
		if (c == '"')
			return i + 1;
		if (c == '\\') {
			i += 2;
			continue;
		}
		if (c < 0x80) { /* a raw control character: not ours to judge */
			i++;
			continue;
		}
		size_t len = utf8_len(b + i, n - i);
		if (len == 0) {
			if (*bad < 0) {
				*bad = PR_UTF8;
				*bad_off = i;
			}
			len = 1;
		}
		i += len;
	}
}

static int
is_ws(unsigned c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static size_t
skip_ws(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && is_ws(b[i]))
		i++;
	return i;
}

/* End of a scalar (number, true, NaN, or junk) starting at i. */
static size_t
skip_scalar(const unsigned char *b, size_t n, size_t i)
{
	while (i < n && !scalar_end[b[i]])
		i++;
	return i;
}

/* Which top-level member a key names (F__N: none we read). */
static int
field_of(const unsigned char *k, size_t n)
{
	switch (n) {
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return F_PH;
		if (k[0] == 't' && k[1] == 's')
			return F_TS;
		if (k[0] == 'i' && k[1] == 'd')
			return F_ID;
		break;
	case 3:
		if (memcmp(k, "pid", 3) == 0)
			return F_PID;
		if (memcmp(k, "tid", 3) == 0)
			return F_TID;
		if (memcmp(k, "dur", 3) == 0)
			return F_DUR;
		if (memcmp(k, "cat", 3) == 0)
			return F_CAT;
		break;
	case 4:
		if (memcmp(k, "name", 4) == 0)
			return F_NAME;
		if (memcmp(k, "args", 4) == 0)
			return F_ARGS;
		break;
	}
	return F__N;
}

/* b[i] is '{' or '[' at nesting level depth0 + 1. Returns the offset after the matching close,
 * or SIZE_MAX when the input ends first. Only strings and brackets matter here: the values
 * themselves are cJSON's to check, for the events that are used. */
static size_t
skip_nested(const unsigned char *b, size_t n, size_t i, size_t depth0, jevent *ev)
{
	size_t depth = 0;
	for (;;) {
		while (i < n && !nest_special[b[i]])
			i++;
		if (i >= n)
			return SIZE_MAX;
		switch (b[i]) {
		case '"':
			i = scan_string(b, n, i + 1, &ev->bad, &ev->bad_off);
			if (i == SIZE_MAX)
				return SIZE_MAX;
			continue;
		case '{':
		case '[':
			if (depth0 + ++depth > MAX_DEPTH && ev->bad < 0) {
				ev->bad = PR_DEPTH;
				ev->bad_off = i;
			}
			i++;
			continue;
		default:
			i++;
			if (--depth == 0)
				return i;
		}
	}
}

/* b[i] is '{': an event. Finds its end and where its members ph, name, ... sit (ev->f), and
 * notes invalid UTF-8, excess nesting, or a broken member list (ev->bad). Returns 0 with
 * ev->end set, or -1 when the input ends first. */
static int
scan_event(const unsigned char *b, size_t n, size_t i, jevent *ev)
{
	size_t start = i;
	ev->start = i;
	ev->bad = -1;
	for (int f = 0; f < F__N; f++)
		ev->f[f] = (jspan){0, 0}; /* absent (span_text adds off even then) */
	i++;
	for (;;) {
		i = skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] == '}')
			break;
		if (b[i] != '"')
			goto broken;
		size_t ks = i + 1;
		i = scan_string(b, n, ks, &ev->bad, &ev->bad_off);
		if (i == SIZE_MAX)
			return -1;
		int f = field_of(b + ks, i - ks - 1);
		i = skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] != ':')
			goto broken;
		size_t vs = i = skip_ws(b, n, i + 1);
		if (i >= n)
			return -1;
		if (b[i] == '"')
			i = scan_string(b, n, i + 1, &ev->bad, &ev->bad_off);
		else if (b[i] == '{' || b[i] == '[')
			i = skip_nested(b, n, i, 1, ev);
		else if ((i = skip_scalar(b, n, i)) == vs)
			goto broken;
		if (i == SIZE_MAX)
			return -1;
		if (f < F__N)
			ev->f[f] = (jspan){vs, i - vs};
		i = skip_ws(b, n, i);
		if (i >= n)
			return -1;
		if (b[i] == ',')
			i++;
		else if (b[i] == '}')
			break;
		else
			goto broken;
	}
	ev->end = i + 1;
	return 0;
broken:
	/* not a member list: find the end by the brackets alone and skip the event */
	if (ev->bad < 0) {
		ev->bad = PR_PARSE;
		ev->bad_off = i;
	}
	i = skip_nested(b, n, start, 0, ev);
	if (i == SIZE_MAX)
		return -1;
	ev->end = i;
	return 0;
}

/* ---- the loader's state -------------------------------------------------------------------- */

/* What a process is, from its process_name ("Ascend Hardware", "HCCL", ...) or, for the legacy
 * exporter, its pid string. */
enum {
	P_GENERIC,   /* Kineto, MsprofTx, unnamed: classified per event by category / args */
	P_HW,        /* Ascend Hardware */
	P_HCCL,      /* HCCL (≤ 2025) / Communication (2026) */
	P_OVERLAP,   /* Overlap Analysis: msprof's own overlap, never used for the numbers */
	P_PYTHON,    /* Python: torch ops; ProfilerStep#N */
	P_HOST,      /* CANN, Python GC */
	P_LEGACY_CPU /* "CPU functions" */,
	P_LEGACY_GPU /* "CUDA functions" */,
};

/* What a thread is. */
enum { T_HOST, T_DEVICE, T_GROUP, T_PLANE, T_OVERLAP };

typedef struct jproc {
	uint32_t tok;  /* raw pid token (c->tok pool) */
	uint32_t name; /* process_name (c->tok pool), 0 when none */
	int dev;       /* from process_labels "NPU 3" / "GPU 3", else -1 */
	int kind;      /* P_* */
	int ordinal;   /* among processes of the same kind, in order of appearance */
} jproc;

typedef struct jthread {
	uint32_t proc;
	uint32_t tok;  /* raw tid token */
	uint32_t name; /* thread_name (c->tok pool), 0 when none */
	int kind;      /* T_* */
	int64_t key;   /* track key of every lane of this thread */
	uint32_t label;                  /* r->pool */
	tl_track *tr[TL_LANE__COUNT];    /* created on first use */
	size_t lau_lo, lau_hi, lau_cur;  /* its launches: c->fend[lau_lo .. lau_hi) */
	struct be_open *open;            /* walk 2: its "B" events waiting for their "E" */
	size_t nopen, opencap;
} jthread;

typedef struct be_open {
	jevent ev;
	int64_t ts;
} be_open;

typedef struct step_cand {
	uint32_t thread;
	int gpu; /* gpu_user_annotation: the device copy of the range */
	int64_t id, start, end;
} step_cand;

/* The end of a launch flow on a device thread. Once the steps are known, `x` turns from the
 * flow into the step of its launch and the array into the launch table, sorted by (thread, ts). */
typedef struct flow_end {
	int64_t ts;
	uint32_t thread, x;
} flow_end;

/* A fwdbwd flow's end (walk 1): "s" on a forward operator, "f" on the backward one. */
typedef struct fb_end {
	uint32_t flow, thread;
	int64_t ts; /* without base_ns */
	char ph;
} fb_end;

/* A forward/backward operator pair once both ends are known, and the ends walk 2 finds: the
 * longest operator on the thread starting at the flow's ts (the flow binds to it). */
typedef struct fb_pair {
	uint32_t thread[2]; /* forward, backward */
	int64_t ts[2];
	int64_t end[2]; /* INT64_MIN until found */
} fb_pair;

typedef struct fb_key { /* lookup of pair ends by (thread, ts) */
	uint32_t thread, pair_end; /* pair index * 2 + which end */
	int64_t ts;
} fb_key;

/* An MsTx flow (host MSTX range -> the device part of that range, §6.4) with both ends: their
 * threads and times (walk 1), then the slices they bind to (walk 2; n = none yet). */
typedef struct mx_pair {
	uint32_t thread[2]; /* host, device */
	int64_t ts[2];
	tl_track *t[2];
	size_t k[2];
} mx_pair;

typedef struct flow_key {
	uint64_t hi, lo; /* the id's digits before the last 19, and the last 19 */
	uint32_t meta;   /* category << 8 | number of digits; 0 for ids kept as text */
} flow_key;

#define NAME_CACHE 64
typedef struct name_slot {
	uint32_t id; /* r->pool; 0 = empty (the empty name is not cached) */
	size_t len;
} name_slot;

typedef struct dom_track {
	uint32_t dom;
	tl_track *t;
} dom_track;

typedef struct jctx jctx;
typedef void (*event_fn)(jctx *, const jevent *);

/* Scanner -> handler hand-over: PIPE_DEPTH batches of events, filled in turn. */
typedef struct jpipe {
	pthread_mutex_t mu;
	pthread_cond_t can_put, can_get;
	jevent (*buf)[PIPE_BATCH];
	size_t count[PIPE_DEPTH];
	size_t head, tail; /* batches handed over / handled */
	size_t fill;       /* events in the batch being filled, buf[head % PIPE_DEPTH] */
	size_t consumed;   /* the handler is done with the bytes below this offset */
	int done;
	int stop; /* the handler stopped (the file shrank): the scanner stops too */
} jpipe;

struct jctx {
	const char *path;
	const unsigned char *b;
	size_t n;
	int mapped;
	size_t dropped; /* pages below this offset were given back */
	size_t pagesz;
	int pass;
	tl_rank *r;
	tl_strpool *tok; /* raw pid/tid tokens, process and thread names (not the rank's pool) */
	jproc *procs;
	size_t nprocs, pcap;
	tl_u64map proc_map; /* pid token -> procs index */
	jthread *threads;
	size_t nthreads, thcap;
	tl_u64map thread_map; /* pid token << 32 | tid token -> threads index */
	struct {
		jspan pid, tid; /* raw tokens of a recent event; pid.len 0 = empty slot */
		uint32_t thread;
	} recent[THREAD_CACHE];
	unsigned recent_next;
	/* walk 1 */
	uint64_t problems[PR__N];
	size_t problem_off[PR__N];
	int damaged;
	uint64_t events; /* array elements walked */
	step_cand *cand;
	size_t ncand, candcap;
	tl_u64map planes; /* HCCL sub-task (stream, task, context) keys */
	int dev_comm;     /* Kineto: NCCL kernels on the device, so host collectives are not comm */
	int64_t base_ns;  /* Kineto baseTimeNanoseconds, else 0 */
	int dist_rank;    /* Kineto distributedInfo.rank, else -1 */
	int quiet;        /* count no problems (the Overlap Analysis cross-check) */
	int shrank;       /* the file shrank while read (SIGBUS): what was read is kept */
	uint64_t *evidx;  /* walk 2: byte offset of every EVIDX_STEP-th event */
	size_t nevidx, evidxcap;
	struct args_req *req; /* event_args: the event wanted */
	int has_events;
	/* steps of this source: global index = step_base + i */
	tl_step *steps;
	size_t nsteps, step_base;
	/* launch flows (walk 1): ts without base_ns */
	uint32_t *ftab;    /* digit-string flow ids (see flow_number): flow number + 1, 0 empty */
	size_t fmask, nfdigit;
	flow_key *fkey;    /* flow number -> its digits */
	size_t fkcap;
	tl_strpool *flows; /* other flow ids: "cat\x1fid" */
	tl_u64map flow_text; /* flows pool id -> flow number */
	int64_t *fstart;   /* flow number -> ts of its start, FLOW_NONE before it is seen */
	size_t nfstart, fcap;
	flow_end *fend;    /* flow ends in file order, then the launch table (walk 2) */
	size_t nfend, fendcap;
	/* fwdbwd flows: their ends (walk 1), then pairs and the lookup of their operators */
	fb_end *fbe;
	size_t nfbe, fbecap;
	fb_pair *fbp;
	size_t nfbp;
	fb_key *fbk; /* by (thread, ts) */
	size_t nfbk;
	/* MsTx flows: their ends (walk 1), then pairs and the lookup of their slices */
	fb_end *mxe;
	size_t nmxe, mxecap;
	mx_pair *mxp;
	size_t nmxp;
	fb_key *mxk; /* by (thread, ts) */
	size_t nmxk;
	/* walk 2 */
	dom_track *doms;
	size_t ndoms, domcap;
	uint32_t s_default, s_record_function;
	uint64_t slices, rows_reported;
	uint64_t device_slices; /* slices of device work (not host, MSTX or host collectives) */
	char *sbuf; /* span_string */
	size_t sbufcap;
	name_slot names[NAME_CACHE];
	/* Overlap Analysis cross-check (trace_json_overlap_lengths) */
	struct {
		int64_t *v; /* start, end pairs */
		size_t n, cap;
	} oa[4];
	/* the walk: the scanner's own state (its thread when piped) */
	event_fn fn;
	jpipe *pipe;
	uint64_t nonobj; /* array elements that are not objects, and where the first was */
	size_t nonobj_off;
};

/* Each event is judged once: the scanner's findings and flows in walk 1, slices in walk 2. A
 * negative pr counts nothing. */
static void
problem(jctx *c, int pr, size_t off)
{
	if (pr < 0 || c->quiet)
		return;
	if (c->problems[pr]++ == 0 || off < c->problem_off[pr])
		c->problem_off[pr] = off;
}

/* The raw bytes of a field, without the quotes of a string. */
static const char *
span_text(const jctx *c, jspan s, size_t *len)
{
	const char *p = (const char *)c->b + s.off;
	*len = s.len;
	if (s.len >= 2 && p[0] == '"') {
		*len = s.len - 2;
		return p + 1;
	}
	return p;
}

static int
span_is_string(const jctx *c, jspan s)
{
	return s.len >= 2 && c->b[s.off] == '"';
}

/* Does the field hold exactly the string `want` (of wn bytes)? (Escaped spellings do not
 * count.) span_eq / span_starts take a string literal. */
static int
span_eq_n(const jctx *c, jspan s, const char *want, size_t wn)
{
	size_t n;
	const char *t = span_text(c, s, &n);
	return span_is_string(c, s) && n == wn && memcmp(t, want, n) == 0;
}

static int
span_starts_n(const jctx *c, jspan s, const char *want, size_t wn)
{
	size_t n;
	const char *t = span_text(c, s, &n);
	return span_is_string(c, s) && n >= wn && memcmp(t, want, wn) == 0;
}
#define span_eq(c, s, lit) span_eq_n(c, s, lit, sizeof lit - 1)
#define span_starts(c, s, lit) span_starts_n(c, s, lit, sizeof lit - 1)

static char
event_phase(const jctx *c, const jevent *ev)
{
	size_t n;
	const char *t = span_text(c, ev->f[F_PH], &n);
	return span_is_string(c, ev->f[F_PH]) && n == 1 ? t[0] : 0;
}

/* ts and dur of an event, in ns on the profile clock. Returns -1 when the event cannot be used
 * (a problem is noted when `count`). */
static int
event_time(jctx *c, const jevent *ev, int need_dur, int count, int64_t *start, int64_t *dur)
{
	jspan s = ev->f[F_TS];
	size_t n;
	const char *t;
	int64_t v;
	if (s.len == 0) {
		problem(c, count ? PR_NO_TS : -1, ev->start);
		return -1;
	}
	t = span_text(c, s, &n);
	switch (dec_parse(t, n, 3, &v)) {
	case DEC_NAN:
		problem(c, count ? PR_TS_NAN : -1, s.off);
		return -1;
	case DEC_RANGE:
		problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	/* walk 1 may meet baseTimeNanoseconds only after the events: its times get it later */
	int64_t base = c->pass == 1 ? 0 : c->base_ns;
	if ((base > 0 && v > INT64_MAX - base) || (base < 0 && v < INT64_MIN - base)) {
		problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	*start = v + base;
	if (!tl_time_ok(*start)) { /* the model's range: any two times' difference fits */
		problem(c, count ? PR_TS_RANGE : -1, s.off);
		return -1;
	}
	if (!need_dur)
		return 0;
	s = ev->f[F_DUR];
	t = span_text(c, s, &n);
	if (s.len == 0 || dec_parse(t, n, 3, &v) != DEC_OK || v < 0 || *start > TL_TIME_MAX - v) {
		problem(c, count ? PR_DUR : -1, s.len ? s.off : ev->start);
		return -1;
	}
	*dur = v;
	return 0;
}

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

static uint32_t
thread_of(jctx *c, const jevent *ev)
{
	jspan p = ev->f[F_PID], t = ev->f[F_TID];
	/* events of a few threads interleave: compare the raw tokens with theirs first */
	for (unsigned k = 0; k < THREAD_CACHE; k++) {
		jspan rp = c->recent[k].pid, rt = c->recent[k].tid;
		if (rp.len == p.len && rt.len == t.len && p.len > 0 &&
		    memcmp(c->b + p.off, c->b + rp.off, p.len) == 0 &&
		    memcmp(c->b + t.off, c->b + rt.off, t.len) == 0)
			return c->recent[k].thread;
	}
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
	unsigned k = c->recent_next++ % THREAD_CACHE;
	c->recent[k].pid = p;
	c->recent[k].tid = t;
	c->recent[k].thread = i;
	return i;
}

static const char *
tok_str(const jctx *c, uint32_t id)
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
	const char *n = tok_str(c, p->name), *tok = tok_str(c, p->tok);
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
static void
threads_resolve(jctx *c)
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
		const char *tn = tok_str(c, t->name), *pn = tok_str(c, p->name);
		int64_t num = -1;
		char label[256];
		int64_t dev = p->dev >= 0 ? p->dev : p->ordinal;
		if (!int_after(tn, "stream", &num) && !int_after(tn, "plane", &num)) {
			/* no usable thread name: the tid itself, when it is a number */
			int64_t v;
			const char *tt = tok_str(c, t->tok);
			if (dec_parse(tt, strlen(tt), 0, &v) == DEC_OK && v >= 0)
				num = v;
		}
		if (num < 0 || num > UINT32_MAX / 2)
			num = (int64_t)i;
		switch (p->kind) {
		case P_HW:
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
			/* Kineto device streams: "stream 7 " in a process labelled "GPU n" */
			t->kind = (p->dev >= 0 || strncasecmp(tn, "stream", 6) == 0) ? T_DEVICE : T_HOST;
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
				snprintf(label, sizeof label, "CPU thread %s", tok_str(c, t->tok));
			else if (*pn && *tn)
				snprintf(label, sizeof label, "%s %s", pn, tn);
			else if (*tn)
				snprintf(label, sizeof label, "%s", tn);
			else
				snprintf(label, sizeof label, "%s tid %s", *pn ? pn : tok_str(c, p->tok),
				    tok_str(c, t->tok));
		}
		/* Kineto pads names ("stream 7 "): labels do not keep trailing blanks */
		size_t ln = strlen(label);
		while (ln > 0 && label[ln - 1] == ' ')
			label[--ln] = '\0';
		t->label = strpool_intern(c->r->pool, label, ln);
	}
}

static tl_track *
thread_track(jctx *c, jthread *t, tl_lane_kind kind)
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

static tl_track *
mstx_track(jctx *c, uint32_t dom)
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
		problem(c, PR_PARSE, ev->start);
		return NULL;
	}
	return j;
}

/* The event's "args" object, or NULL (absent, or not valid JSON: noted as pr). The other
 * members are read from their raw bytes: ts and dur must not go through a double. */
static cJSON *
args_parse(jctx *c, const jevent *ev, int pr)
{
	jspan a = ev->f[F_ARGS];
	if (a.len == 0 || c->b[a.off] != '{')
		return NULL;
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + a.off, a.len);
	if (j == NULL || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		problem(c, pr, a.off);
		return NULL;
	}
	return j;
}

/* A string member's value, NUL-terminated, and its length (JSON escapes decoded by cJSON when
 * there are any), or the raw text of a non-string; "" when absent. Valid until the next call;
 * *tmp (freed by the caller with cJSON_Delete) holds a decoded string. */
static const char *
span_string(jctx *c, jspan s, cJSON **tmp, size_t *len)
{
	size_t n;
	const char *t = span_text(c, s, &n);
	*tmp = NULL;
	if (span_is_string(c, s) && memchr(t, '\\', n) != NULL) {
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

/* The pool id of a slice name. Names repeat (kernels, API calls): a small cache keyed by the
 * length and the first and last bytes saves hashing each one again. */
static uint32_t
name_id(jctx *c, const char *s, size_t n)
{
	uint64_t a = 0, z = 0;
	memcpy(&a, s, n < 8 ? n : 8);
	if (n > 8)
		memcpy(&z, s + n - 8, 8);
	uint64_t h = (a ^ z * 0x9E3779B97F4A7C15ull ^ n) * 0xBF58476D1CE4E5B9ull;
	name_slot *e = &c->names[(h >> 58) & (NAME_CACHE - 1)];
	if (e->len == n && e->id != 0 && memcmp(strpool_get(c->r->pool, e->id), s, n) == 0)
		return e->id;
	e->id = strpool_intern(c->r->pool, s, n);
	e->len = n;
	return e->id;
}

/* One pass over the members of the event's "args" object, as the scanner delimited it: the
 * value of each wanted key (len 0 when absent). The hot path of device tasks reads its few
 * scalar members this way rather than building a cJSON tree per task. Returns -1 when args is
 * absent or its member list is broken. */
typedef struct jkey {
	const char *s;
	size_t n;
} jkey;
#define JKEY(lit) {lit, sizeof lit - 1}

static int
args_members(const jctx *c, const jevent *ev, const jkey *keys, int nkeys, jspan *out)
{
	const unsigned char *b = c->b;
	jspan a = ev->f[F_ARGS];
	size_t end = a.off + a.len, i = a.off, bad_off;
	int bad = -1;
	jevent tmp;
	tmp.bad = -1;
	for (int k = 0; k < nkeys; k++)
		out[k].len = 0;
	if (a.len < 2 || b[i] != '{')
		return -1;
	for (i++;;) {
		i = skip_ws(b, end, i);
		if (i < end && b[i] == '}')
			return 0;
		if (i >= end || b[i] != '"')
			return -1;
		size_t ks = i + 1;
		if ((i = scan_string(b, end, ks, &bad, &bad_off)) == SIZE_MAX)
			return -1;
		size_t kn = i - ks - 1;
		i = skip_ws(b, end, i);
		if (i >= end || b[i] != ':')
			return -1;
		size_t vs = i = skip_ws(b, end, i + 1);
		if (i >= end)
			return -1;
		if (b[i] == '"')
			i = scan_string(b, end, i + 1, &bad, &bad_off);
		else if (b[i] == '{' || b[i] == '[')
			i = skip_nested(b, end, i, 2, &tmp);
		else if ((i = skip_scalar(b, end, i)) == vs)
			return -1;
		if (i == SIZE_MAX)
			return -1;
		for (int k = 0; k < nkeys; k++)
			if (keys[k].n == kn && memcmp(keys[k].s, b + ks, kn) == 0)
				out[k] = (jspan){vs, i - vs};
		i = skip_ws(b, end, i);
		if (i < end && b[i] == ',')
			i++;
		else if (i >= end || b[i] != '}')
			return -1;
	}
}

/* An integer member value (a JSON number or a string of digits), exactly. */
static int
span_int(const jctx *c, jspan s, int64_t *v)
{
	size_t n;
	const char *t = span_text(c, s, &n);
	return s.len > 0 && dec_parse(t, n, 0, v) == DEC_OK;
}

/* A short string member value into buf (escapes decoded by cJSON), or NULL when it is not a
 * string or does not fit. */
static const char *
span_str_buf(const jctx *c, jspan s, char *buf, size_t bufsz)
{
	size_t n;
	const char *t = span_text(c, s, &n);
	if (!span_is_string(c, s) || n >= bufsz)
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

static const char *
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
		return dec_parse(it->valuestring, strlen(it->valuestring), 0, v) == DEC_OK;
	if (cJSON_IsNumber(it) && it->valuedouble >= -9.0e15 && it->valuedouble <= 9.0e15) {
		*v = (int64_t)it->valuedouble; /* exact below 2^53: ids, stream and task numbers */
		return 1;
	}
	return 0;
}

static int
str_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

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
static size_t
walk_array(jctx *c, size_t i)
{
	const unsigned char *b = c->b;
	size_t n = c->n;
	jevent ev;
	i++;
	for (;;) {
		i = skip_ws(b, n, i);
		if (i >= n) {
			damage(c, "the file ends at byte %zu before the event array is closed "
				  "(truncated?)",
			    i);
			return SIZE_MAX;
		}
		if (b[i] == ']')
			return i + 1;
		if (b[i] == '{') {
			if (scan_event(b, n, i, &ev) != 0) {
				damage(c, "the file ends inside the event that starts at byte %zu "
					  "(truncated?)",
				    i);
				return SIZE_MAX;
			}
			ev.ordinal = c->events++;
			if (c->pass == 2 && ev.ordinal % EVIDX_STEP == 0)
				VEC_PUSH(c->evidx, c->nevidx, c->evidxcap, (uint64_t)i);
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
				i = skip_nested(b, n, i, 0, &ev);
			} else if (b[i] == '"') {
				i = scan_string(b, n, i + 1, &bad, &bad_off);
			} else {
				i = skip_scalar(b, n, i);
				if (i == s) {
					damage(c, "syntax error at byte %zu: expected an event", s);
					return SIZE_MAX;
				}
			}
			if (i == SIZE_MAX) {
				damage(c, "the file ends inside the value that starts at byte %zu "
					  "(truncated?)",
				    s);
				return SIZE_MAX;
			}
			if (c->nonobj++ == 0)
				c->nonobj_off = s;
			c->events++;
		}
		i = skip_ws(b, n, i);
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		if (i < n && b[i] == ']')
			return i + 1;
		if (i >= n)
			damage(c, "the file ends at byte %zu before the event array is closed "
				  "(truncated?)",
			    i);
		else
			damage(c, "syntax error at byte %zu: expected ',' or ']' after an event", i);
		return SIZE_MAX;
	}
}

static void root_member(jctx *c, const char *key, size_t kn, size_t v, size_t vend);

/* What a walk over the input came to. */
typedef enum walk_status {
	WALK_OK = 0,
	WALK_NOT_TRACE = -1, /* the input is not a trace at all */
	WALK_SHRANK = -2,    /* the file shrank while read (SIGBUS), or the handler stopped */
} walk_status;

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
	i = skip_ws(b, n, i);
	if (i >= n) {
		if (pass == 1 && !c->quiet)
			msg_warn(c->path, "empty file: no JSON in it");
		return WALK_NOT_TRACE;
	}
	if (b[i] == '[') {
		walk_array(c, i);
		c->has_events = 1;
		return WALK_OK;
	}
	if (b[i] != '{') {
		if (pass == 1 && !c->quiet)
			msg_warn(c->path, "byte %zu: the top level is neither a JSON array nor an "
					  "object: not a Chrome trace",
			    i);
		return WALK_NOT_TRACE;
	}
	/* Kineto: {"schemaVersion":…, "distributedInfo":{…}, "traceEvents":[…], …} */
	i++;
	for (;;) {
		i = skip_ws(b, n, i);
		if (i < n && b[i] == '}')
			break;
		if (i >= n || b[i] != '"') {
			if (i >= n)
				damage(c, "the file ends at byte %zu inside the top-level object "
					  "(truncated?)",
				    i);
			else
				damage(c, "syntax error at byte %zu: expected a member name", i);
			break;
		}
		int bad = -1;
		size_t bad_off, ks = i + 1;
		i = scan_string(b, n, ks, &bad, &bad_off);
		if (i == SIZE_MAX) {
			damage(c, "the file ends inside the member name at byte %zu (truncated?)", ks);
			break;
		}
		size_t kn = i - ks - 1;
		i = skip_ws(b, n, i);
		if (i >= n || b[i] != ':') {
			damage(c, "syntax error at byte %zu: expected ':'", i);
			break;
		}
		size_t v = skip_ws(b, n, i + 1), vend;
		if (v >= n) {
			damage(c, "the file ends at byte %zu inside the top-level object (truncated?)",
			    v);
			break;
		}
		if (kn == 11 && memcmp(b + ks, "traceEvents", 11) == 0 && b[v] == '[') {
			c->has_events = 1;
			vend = walk_array(c, v);
			if (vend == SIZE_MAX)
				break;
		} else {
			jevent tmp;
			tmp.bad = -1;
			if (b[v] == '{' || b[v] == '[')
				vend = skip_nested(b, n, v, 0, &tmp);
			else if (b[v] == '"')
				vend = scan_string(b, n, v + 1, &bad, &bad_off);
			else
				vend = skip_scalar(b, n, v);
			if (vend == SIZE_MAX) {
				damage(c, "the file ends inside the member value at byte %zu "
					  "(truncated?)",
				    v);
				break;
			}
			if (pass == 1)
				root_member(c, (const char *)b + ks, kn, v, vend);
		}
		i = skip_ws(b, n, vend);
		if (i < n && b[i] == ',') {
			i++;
			continue;
		}
		if (i < n && b[i] == '}')
			break;
		if (i >= n)
			damage(c, "the file ends at byte %zu inside the top-level object "
				  "(truncated?)",
			    i);
		else
			damage(c, "syntax error at byte %zu: expected ',' or '}'", i);
		break;
	}
	if (!c->has_events) {
		if (pass == 1 && !c->quiet)
			msg_warn(c->path, "a JSON object without a \"traceEvents\" array: not a Chrome "
					  "trace");
		return WALK_NOT_TRACE;
	}
	return WALK_OK;
}

typedef struct scan_job {
	jctx *c;
	walk_status rc;
} scan_job;

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
	if (p == NULL) {
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
static walk_status
walk(jctx *c, int pass, event_fn fn)
{
	walk_status rc;
	c->pass = pass;
	c->fn = fn;
	memset(c->recent, 0, sizeof c->recent);
	jpipe p;
	pthread_t th;
	scan_job job = {c, WALK_NOT_TRACE};
	memset(&p, 0, sizeof p);
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
	return rc;
}

/* ---- walk 1: names, steps, sub-task keys, problems ------------------------------------------ */

static void
root_member(jctx *c, const char *key, size_t kn, size_t v, size_t vend)
{
	if (kn == 15 && memcmp(key, "distributedInfo", 15) == 0) {
		cJSON *d = cJSON_ParseWithLength((const char *)c->b + v, vend - v);
		int64_t r;
		if (d != NULL && json_int(d, "rank", &r) && r >= 0 && r < 1000000)
			c->dist_rank = (int)r;
		cJSON_Delete(d);
	} else if (kn == 19 && memcmp(key, "baseTimeNanoseconds", 19) == 0) {
		int64_t base;
		size_t n;
		jspan s = {v, vend - v};
		const char *t = span_text(c, s, &n);
		if (dec_parse(t, n, 0, &base) == DEC_OK)
			c->base_ns = base;
		else
			msg_warn(c->path, "byte %zu: baseTimeNanoseconds is not an integer; times "
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
		uint32_t ti = thread_of(c, ev); /* may move c->threads */
		if (nm)
			c->threads[ti].name = strpool_intern_cstr(c->tok, nm);
	} else if (strcmp(what, "process_labels") == 0) {
		const char *l = json_str(args, "labels");
		int64_t d;
		uint32_t pi = proc_of(c, tok_intern(c, ev->f[F_PID]));
		if (l && (int_after(l, "NPU", &d) || int_after(l, "GPU", &d)) && d < 65536)
			c->procs[pi].dev = (int)d;
	}
	cJSON_Delete(j);
}

static uint64_t
plane_key(int64_t stream, int64_t task, int64_t ctx)
{
	return (uint64_t)(stream & 0xffff) << 48 | (uint64_t)(task & 0xffff) << 32 |
	       (uint64_t)(ctx & 0xffffffff);
}

static int
is_comm_name(const char *s)
{
	return strncmp(s, "nccl", 4) == 0 || strncmp(s, "gloo:", 5) == 0 ||
	       strncmp(s, "c10d::", 6) == 0 || strncasecmp(s, "hccl", 4) == 0;
}

/* A device kernel that is a collective (HolisticTraceAnalysis' communication kernels, NCCL's
 * "ncclKernel_*" / "ncclDevKernel_*", and their RCCL and HCCL counterparts). */
static int
is_comm_kernel(const char *s)
{
	return strncasecmp(s, "nccl", 4) == 0 || strncasecmp(s, "rccl", 4) == 0 ||
	       strncasecmp(s, "hccl", 4) == 0 || strstr(s, "ncclKernel") != NULL ||
	       strstr(s, "ncclDevKernel") != NULL;
}

/* Kineto device event categories: CUDA / ROCm kernels ("kernel"), memory transfers
 * ("gpu_memcpy", "gpu_memset") and Meta MTIA's on-device events ("mtia_ccp_events"). */
static int
is_device_cat(const jctx *c, jspan cat);

static void flow_event(jctx *c, const jevent *ev, char ph);
static uint16_t step_at(const jctx *c, int64_t t);

static void
names_event(jctx *c, const jevent *ev)
{
	if (ev->bad >= 0) {
		problem(c, ev->bad, ev->bad_off);
		return;
	}
	char ph = event_phase(c, ev);
	int64_t start, dur;
	switch (ph) {
	case 'M':
		meta_event(c, ev);
		return;
	case 'X':
		break;
	case 's':
	case 'f':
		flow_event(c, ev, ph);
		return;
	default:
		return;
	}
	uint32_t th = thread_of(c, ev);
	/* the times of slices are judged (and counted) in walk 2 */
	if (span_starts(c, ev->f[F_NAME], "ProfilerStep#") &&
	    event_time(c, ev, 1, 0, &start, &dur) == 0) {
		size_t n;
		const char *t = span_text(c, ev->f[F_NAME], &n);
		int64_t id;
		if (dec_parse(t + 13, n - 13, 0, &id) == DEC_OK) {
			step_cand sc = {th, span_eq(c, ev->f[F_CAT], "gpu_user_annotation"), id, start,
			    start + dur};
			VEC_PUSH(c->cand, c->ncand, c->candcap, sc);
		}
	}
	/* an HCCL sub-task (args "stream id", "task id", "context id"); its thread may be
	 * named only later, so the args decide here */
	jspan a = ev->f[F_ARGS];
	if (a.len > 0 && memmem(c->b + a.off, a.len, "\"context id\"", 12) != NULL) {
		static const jkey keys[] = {JKEY("stream id"), JKEY("task id"), JKEY("context id")};
		jspan v[3];
		int64_t s, t, x;
		if (args_members(c, ev, keys, 3, v) == 0 && span_int(c, v[0], &s) &&
		    span_int(c, v[1], &t) && span_int(c, v[2], &x))
			u64map_put(&c->planes, plane_key(s, t, x), 1);
	}
	if (!c->dev_comm && (is_device_cat(c, ev->f[F_CAT]) ||
				span_eq(c, ev->f[F_PID], "\"CUDA functions\""))) {
		cJSON *tmp;
		size_t nl;
		const char *nm = span_string(c, ev->f[F_NAME], &tmp, &nl);
		if (nm != NULL && is_comm_kernel(nm))
			c->dev_comm = 1;
		cJSON_Delete(tmp);
	}
}

/* ProfilerStep#N ranges of host threads become the steps (the DB's STEP_TIME). */
static void
steps_build(jctx *c)
{
	size_t cap = 0;
	for (size_t i = 0; i < c->ncand; i++) {
		step_cand *sc = &c->cand[i];
		const jthread *t = &c->threads[sc->thread];
		if (sc->gpu || t->kind != T_HOST)
			continue;
		if ((c->base_ns > 0 && sc->end > INT64_MAX - c->base_ns) ||
		    (c->base_ns < 0 && sc->start < INT64_MIN - c->base_ns))
			continue; /* walk 3 drops the event as out of range */
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
	}
	if (rank_add_steps(c->r, c->steps, c->nsteps, &c->step_base) != 0) {
		msg_warn(c->path, "more than %d ProfilerStep ranges; steps ignored", TL_NO_STEP - 1);
		c->nsteps = 0;
	}
}

/* Step of host time t in this source, as a global step index (as the DB loader's step_at). */
static uint16_t
step_at(const jctx *c, int64_t t)
{
	size_t i = steps_index_at(c->steps, c->nsteps, t);
	return i == SIZE_MAX ? TL_NO_STEP : (uint16_t)(c->step_base + i);
}

/* ---- launches ---------------------------------------------------------------------------- */

/* Flow ids are strings (Ascend's exceed 2^64). The common ones are decimal digit strings of at
 * most 38 digits: those are keyed exactly, without copying them, by (category, length, the
 * value of the last 19 digits, the value of the ones before); any other id by its text in a
 * string pool. Both give a dense flow number. */
static uint64_t
flow_hash(uint64_t hi, uint64_t lo, uint32_t meta)
{
	uint64_t h = lo * 0x9E3779B97F4A7C15ull ^ hi * 0xC2B2AE3D27D4EB4Full ^ meta;
	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	return h ^ (h >> 32);
}

static uint32_t
flow_new(jctx *c, uint64_t hi, uint64_t lo, uint32_t meta)
{
	VEC_RESERVE(c->fstart, c->fcap, c->nfstart + 1);
	c->fstart[c->nfstart] = FLOW_NONE;
	VEC_RESERVE(c->fkey, c->fkcap, c->nfstart + 1);
	c->fkey[c->nfstart] = (flow_key){hi, lo, meta};
	return (uint32_t)c->nfstart++;
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
	uint32_t meta = (uint32_t)cat << 8 | (uint32_t)n;
	if (c->ftab == NULL || (c->nfdigit + 1) * 2 > c->fmask + 1) { /* grow and rehash */
		size_t nm = c->ftab ? c->fmask * 2 + 1 : 1023;
		uint32_t *nt = xcalloc(nm + 1, sizeof *nt);
		for (size_t k = 0; c->ftab && k <= c->fmask; k++) {
			if (c->ftab[k] == 0)
				continue;
			const flow_key *o = &c->fkey[c->ftab[k] - 1];
			size_t j = flow_hash(o->hi, o->lo, o->meta) & nm;
			while (nt[j] != 0)
				j = (j + 1) & nm;
			nt[j] = c->ftab[k];
		}
		free(c->ftab);
		c->ftab = nt;
		c->fmask = nm;
	}
	for (size_t j = flow_hash(hi, lo, meta) & c->fmask;; j = (j + 1) & c->fmask) {
		uint32_t f = c->ftab[j];
		if (f == 0) {
			uint32_t fid = flow_new(c, hi, lo, meta);
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
static void
flow_event(jctx *c, const jevent *ev, char ph)
{
	size_t in;
	int64_t ts, dur;
	int cat;
	if (span_eq(c, ev->f[F_CAT], "HostToDevice"))
		cat = 1;
	else if (span_eq(c, ev->f[F_CAT], "ac2g"))
		cat = 2;
	else if (span_eq(c, ev->f[F_CAT], "fwdbwd"))
		cat = 3;
	else if (span_eq(c, ev->f[F_CAT], "MsTx"))
		cat = 4;
	else
		return;
	if (event_time(c, ev, 0, 1, &ts, &dur) != 0 || ev->f[F_ID].len == 0)
		return;
	const char *id = span_text(c, ev->f[F_ID], &in);
	uint32_t fid = flow_number(c, cat, id, in);
	if (cat == 3 || cat == 4) {
		fb_end e = {fid, thread_of(c, ev), ts, ph};
		if (cat == 3)
			VEC_PUSH(c->fbe, c->nfbe, c->fbecap, e);
		else
			VEC_PUSH(c->mxe, c->nmxe, c->mxecap, e);
		return;
	}
	if (ph == 's') {
		if (c->fstart[fid] == FLOW_NONE)
			c->fstart[fid] = ts;
	} else {
		flow_end fe = {ts, thread_of(c, ev), fid};
		VEC_PUSH(c->fend, c->nfend, c->fendcap, fe);
	}
}

static int
cmp_fb_end(const void *a, const void *b)
{
	const fb_end *x = a, *y = b;
	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	return (x->ph > y->ph) - (x->ph < y->ph); /* 'f' before 's' */
}

static int
cmp_fb_key(const void *a, const void *b)
{
	const fb_key *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* After walk 1: the fwdbwd flows with exactly one start and one end on two threads become
 * pairs, and their ends the lookup walk 2 uses to find the operators. */
static void
fwdbwd_build(jctx *c)
{
	if (c->nfbe > 1)
		qsort(c->fbe, c->nfbe, sizeof *c->fbe, cmp_fb_end);
	for (size_t i = 0; i < c->nfbe;) {
		size_t k = i + 1;
		while (k < c->nfbe && c->fbe[k].flow == c->fbe[i].flow)
			k++;
		const fb_end *f = &c->fbe[i], *st = &c->fbe[i + 1];
		if (k - i == 2 && f->ph == 'f' && st->ph == 's' && f->thread != st->thread &&
		    st->ts < f->ts && st->ts <= INT64_MAX - c->base_ns &&
		    f->ts <= INT64_MAX - c->base_ns) {
			fb_pair p = {{st->thread, f->thread},
			             {st->ts + c->base_ns, f->ts + c->base_ns},
			             {INT64_MIN, INT64_MIN}};
			size_t cap = c->nfbp;
			VEC_PUSH(c->fbp, c->nfbp, cap, p);
		}
		i = k;
	}
	free(c->fbe);
	c->fbe = NULL;
	c->nfbe = c->fbecap = 0;
	if (c->nfbp == 0)
		return;
	c->fbk = xreallocarray(NULL, c->nfbp * 2, sizeof *c->fbk);
	for (size_t i = 0; i < c->nfbp; i++)
		for (int e = 0; e < 2; e++)
			c->fbk[c->nfbk++] =
			    (fb_key){c->fbp[i].thread[e], (uint32_t)(i * 2 + (size_t)e), c->fbp[i].ts[e]};
	qsort(c->fbk, c->nfbk, sizeof *c->fbk, cmp_fb_key);
}

/* Walk 2: a host slice [start, end] on thread ti; the longest one starting at a pair end's ts
 * is that end's operator. */
static void
fwdbwd_match(jctx *c, uint32_t ti, int64_t start, int64_t end)
{
	size_t lo = 0, hi = c->nfbk;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const fb_key *k = &c->fbk[mid];
		if (k->thread < ti || (k->thread == ti && k->ts < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nfbk && c->fbk[lo].thread == ti && c->fbk[lo].ts == start; lo++) {
		int64_t *e = &c->fbp[c->fbk[lo].pair_end / 2].end[c->fbk[lo].pair_end % 2];
		if (end > *e)
			*e = end;
	}
}

/* After walk 2: the pairs whose two operators were found. */
static void
fwdbwd_finish(jctx *c)
{
	for (size_t i = 0; i < c->nfbp; i++) {
		const fb_pair *p = &c->fbp[i];
		if (p->end[0] != INT64_MIN && p->end[1] != INT64_MIN)
			rank_add_fwdbwd(c->r, p->ts[0], p->end[0], p->ts[1], p->end[1]);
	}
}

/* ---- MSTX ranges that carried a stream ---------------------------------------------------
 * msprof writes the device part of such a range as a slice of its own on the Ascend Hardware
 * stream (named by the message, args "Physic Stream Id" and "Task Id", one slice from the
 * begin marker to the end marker) and joins it to the host range (MsprofTx process) with an
 * MsTx flow: "s" at the host range's start, "f" at the device slice's start. The host slice gets
 * the device times, as the DB loader gives them from TASK. */

/* After walk 1: flows with exactly one start and one end become pairs, their ends the lookup. */
static void
mstx_links_build(jctx *c)
{
	if (c->nmxe > 1)
		qsort(c->mxe, c->nmxe, sizeof *c->mxe, cmp_fb_end);
	size_t cap = 0;
	for (size_t i = 0; i < c->nmxe;) {
		size_t k = i + 1;
		while (k < c->nmxe && c->mxe[k].flow == c->mxe[i].flow)
			k++;
		const fb_end *f = &c->mxe[i], *st = &c->mxe[i + 1];
		if (k - i == 2 && f->ph == 'f' && st->ph == 's' &&
		    st->ts <= INT64_MAX - c->base_ns && f->ts <= INT64_MAX - c->base_ns) {
			mx_pair p = {{st->thread, f->thread},
			             {st->ts + c->base_ns, f->ts + c->base_ns},
			             {NULL, NULL},
			             {0, 0}};
			VEC_PUSH(c->mxp, c->nmxp, cap, p);
		}
		i = k;
	}
	free(c->mxe);
	c->mxe = NULL;
	c->nmxe = c->mxecap = 0;
	if (c->nmxp == 0)
		return;
	c->mxk = xreallocarray(NULL, c->nmxp * 2, sizeof *c->mxk);
	for (size_t i = 0; i < c->nmxp; i++)
		for (int e = 0; e < 2; e++)
			c->mxk[c->nmxk++] = (fb_key){
			    c->mxp[i].thread[e], (uint32_t)(i * 2 + (size_t)e), c->mxp[i].ts[e]};
	qsort(c->mxk, c->nmxk, sizeof *c->mxk, cmp_fb_key);
}

/* Walk 2: slice k of tr, an MSTX range (dev = 0) or a device MSTX slice (dev = 1) that starts
 * at `start` on thread ti; a flow end there binds to it. */
static void
mstx_link_match(jctx *c, uint32_t ti, int64_t start, tl_track *tr, size_t k, int dev)
{
	size_t lo = 0, hi = c->nmxk;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const fb_key *x = &c->mxk[mid];
		if (x->thread < ti || (x->thread == ti && x->ts < start))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nmxk && c->mxk[lo].thread == ti && c->mxk[lo].ts == start; lo++) {
		if (c->mxk[lo].pair_end % 2 != (uint32_t)dev)
			continue;
		mx_pair *p = &c->mxp[c->mxk[lo].pair_end / 2];
		p->t[dev] = tr;
		p->k[dev] = k;
	}
}

/* After walk 2: each host range whose device part was found gets its times. */
static void
mstx_links_finish(jctx *c)
{
	for (size_t i = 0; i < c->nmxp; i++) {
		const mx_pair *p = &c->mxp[i];
		if (p->t[0] == NULL || p->t[1] == NULL || p->k[0] >= p->t[0]->n ||
		    p->k[1] >= p->t[1]->n)
			continue;
		const tl_slice *d = &p->t[1]->v[p->k[1]];
		track_set_dev(p->t[0], p->k[0], d->start, d->end);
	}
}

static int
cmp_launch(const void *a, const void *b)
{
	const flow_end *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Once the steps are known: the flow ends become the launch table, (thread, device start) ->
 * step of the launch. Only with two or more steps (with one, everything belongs to it, as in
 * the DB loader). The flow ids are freed. */
static void
launches_build(jctx *c)
{
	size_t w = 0;
	for (size_t i = 0; c->nsteps >= 2 && i < c->nfend; i++) {
		flow_end fe = c->fend[i];
		int64_t s = c->fstart[fe.x];
		if (s == FLOW_NONE || fe.ts > INT64_MAX - c->base_ns || s > INT64_MAX - c->base_ns)
			continue; /* no start (Kineto drops some): the device time decides */
		uint16_t step = step_at(c, s + c->base_ns);
		if (step == TL_NO_STEP)
			continue; /* launched outside every step: the device time decides, as in the DB */
		fe.ts += c->base_ns;
		fe.x = step;
		c->fend[w++] = fe;
	}
	c->nfend = w;
	if (w > 0) {
		qsort(c->fend, w, sizeof *c->fend, cmp_launch);
		c->fend = xreallocarray(c->fend, w, sizeof *c->fend);
		c->fendcap = w;
	}
	for (size_t i = 0; i < w;) {
		jthread *t = &c->threads[c->fend[i].thread];
		size_t k = i;
		while (k < w && c->fend[k].thread == c->fend[i].thread)
			k++;
		t->lau_lo = t->lau_cur = i;
		t->lau_hi = k;
		i = k;
	}
	free(c->fstart);
	c->fstart = NULL;
	c->nfstart = c->fcap = 0;
	free(c->ftab);
	c->ftab = NULL;
	c->fmask = c->nfdigit = 0;
	free(c->fkey);
	c->fkey = NULL;
	c->fkcap = 0;
	if (c->flows != NULL) {
		strpool_free(c->flows);
		u64map_free(&c->flow_text);
		c->flows = NULL;
	}
}

/* ---- walk 2: slices ------------------------------------------------------------------------- */

/* Step of device work that starts at `start` on thread t: the step of its launch, else the
 * step containing its start (as the DB loader's step_of_work). */
static uint16_t
step_of_work(const jctx *c, jthread *t, int64_t start)
{
	if (c->nsteps == 0)
		return TL_NO_STEP;
	if (c->nsteps == 1)
		return (uint16_t)c->step_base; /* one step: the whole capture belongs to it */
	/* a thread's device work mostly comes in start order: a cursor, else a binary search */
	if (t->lau_cur < t->lau_hi && c->fend[t->lau_cur].ts == start)
		return (uint16_t)c->fend[t->lau_cur++].x;
	size_t lo = t->lau_lo, hi = t->lau_hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->fend[mid].ts < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->lau_hi && c->fend[lo].ts == start) {
		t->lau_cur = lo + 1;
		return (uint16_t)c->fend[lo].x;
	}
	return step_at(c, start);
}

/* Task types of compute kernels in trace_view's "Task Type": COMPUTE_TASK_INFO's spellings (S3
 * trace_event_bean.py's compute set, plus DSA kernels, which COMPUTE_TASK_INFO lists) and the
 * TASK table's host-side ones for the same kernels (AI_CORE vs KERNEL_AICORE). FFTS+
 * containers, also typed KERNEL_*, are not in the files: msprof hides them. */
static int
is_compute_type(const char *t)
{
	static const char *const set[] = {"AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV",
	    "AI_CPU", "FFTS_PLUS", "DSA_SQE", "KERNEL_AICORE", "KERNEL_AIVEC", "KERNEL_MIX_AIC",
	    "KERNEL_MIX_AIV", "KERNEL_AICPU"};
	for (size_t i = 0; i < sizeof set / sizeof *set; i++)
		if (strcmp(t, set[i]) == 0)
			return 1;
	return 0;
}

/* A device task name that is a task type, not a kernel: msprof names the tasks that run no
 * operator after their type ("EVENT_RECORD_SQE", "Notify Wait", "Write Value", "MEMCPY_ASYNC").
 * Kernel names are operator names: never with a space, never all capitals. */
static int
is_type_name(const char *s)
{
	int lower = 0;
	if (strchr(s, ' ') != NULL)
		return 1;
	for (const char *p = s; *p; p++)
		lower |= *p >= 'a' && *p <= 'z';
	return *s != '\0' && !lower;
}

/* HCCL's own device tasks where a file carries them on a stream (older files write no Plane
 * threads for them): the sub-task names the HCCL process uses on its Plane threads, and the op
 * prefixes. */
static int
is_hccl_task_name(const char *s)
{
	static const char *const set[] = {"Notify_Wait", "Notify_Record", "Memcpy",
	    "Reduce_Inline", "Inline_Reduce", "RDMASend", "RDMA_Send", "Local_Notify"};
	for (size_t i = 0; i < sizeof set / sizeof *set; i++)
		if (strcmp(s, set[i]) == 0)
			return 1;
	return strncmp(s, "hcom_", 5) == 0 || strncasecmp(s, "hccl", 4) == 0;
}

/* A task on an Ascend Hardware stream. Returns the lane, or TL_LANE__COUNT to drop it: an HCCL sub-task already drawn on its Plane lane.
 *
 * The "Task Type" a file gives a kernel depends on the torch_npu / msprof version that wrote it:
 *  - 2025 and later (streams in "Physic Stream Id"): COMPUTE_TASK_INFO's type for every kernel
 *    (AI_CORE, MIX_AIV, AI_CPU, ...); a task with a "Task Id" and no "Task Type" is a device
 *    MSTX marker.
 *  - 2024 (streams in "Stream Id"): only AI_CPU kernels carry their type; AI Core and vector
 *    kernels are "Other" or carry no "Task Type" at all, and msprof's own Overlap Analysis
 *    counts them as computing. Such a task is a compute kernel unless it is communication
 *    (an HCCL task or an MC2 kernel), a memory copy or a marker: what is not a kernel is named
 *    after its task type (is_type_name).
 * "Other" is read the 2024 way in any file: the profiler wrote it for a kernel whose type it did
 * not know. */
static tl_lane_kind
hw_lane(jctx *c, const jevent *ev, const char *name)
{
	static const jkey keys[] = {JKEY("Task Type"), JKEY("Physic Stream Id"), JKEY("Stream Id"),
	    JKEY("Task Id"), JKEY("Subtask Id")};
	jspan v[5];
	char tybuf[64];
	if (args_members(c, ev, keys, 5, v) != 0 && ev->f[F_ARGS].len > 0)
		problem(c, PR_ARGS, ev->f[F_ARGS].off);
	const char *ty = span_str_buf(c, v[0], tybuf, sizeof tybuf);
	int64_t s, t, x;
	if (c->planes.n > 0 && (span_int(c, v[1], &s) || span_int(c, v[2], &s)) &&
	    span_int(c, v[3], &t) && span_int(c, v[4], &x) &&
	    u64map_get(&c->planes, plane_key(s, t, x), NULL))
		return TL_LANE__COUNT;
	/* MC2 / AIV communication kernels: msprof's overlap does not count them as compute */
	if (str_ends(name, "AicpuKernel") || str_ends(name, "AivKernel"))
		return TL_LANE_COMM_TASK;
	if (ty && is_compute_type(ty))
		return TL_LANE_COMPUTE;
	if ((ty && (strcmp(ty, "PCIE_DMA_SQE") == 0 || strcmp(ty, "SDMA_SQE") == 0)) ||
	    strcmp(name, "MEMCPY_ASYNC") == 0)
		return TL_LANE_MEMCPY;
	if (strncmp(name, "MsTx", 4) == 0)
		return TL_LANE_MSTX_DEV;
	int older = v[1].len == 0 && v[2].len > 0; /* 2024: "Stream Id" */
	if ((ty != NULL && strcmp(ty, "Other") == 0) || (ty == NULL && older)) {
		if (is_hccl_task_name(name))
			return TL_LANE_OTHER;
		if (is_type_name(name))
			return strstr(name, "MEMCPY") || strstr(name, "SDMA") ? TL_LANE_MEMCPY
									  : TL_LANE_OTHER;
		return TL_LANE_COMPUTE;
	}
	if (ty == NULL && v[3].len > 0)
		return TL_LANE_MSTX_DEV;
	return TL_LANE_OTHER;
}

static int
is_device_cat(const jctx *c, jspan cat)
{
	return span_eq(c, cat, "kernel") || span_eq(c, cat, "gpu_memcpy") ||
	       span_eq(c, cat, "gpu_memset") || span_eq(c, cat, "mtia_ccp_events");
}

/* An event of a Kineto / MsprofTx / unnamed process, by its category. Returns TL_LANE__COUNT to
 * drop it; *mstx_dom is set for MSTX ranges. */
static tl_lane_kind
generic_lane(jctx *c, const jevent *ev, const jthread *t, const char *name, uint32_t *mstx_dom)
{
	jspan cat = ev->f[F_CAT];
	int host_comm = !c->dev_comm && is_comm_name(name);
	if (cat.len == 0) {
		/* msprof's MsprofTx process: args event_type (and domain), legacy Payload_type */
		jspan a = ev->f[F_ARGS];
		tl_lane_kind k = t->kind == T_DEVICE ? TL_LANE_COMPUTE : TL_LANE_HOST;
		if (a.len > 0 && (memmem(c->b + a.off, a.len, "\"event_type\"", 12) != NULL ||
				     memmem(c->b + a.off, a.len, "\"Payload_type\"", 14) != NULL)) {
			cJSON *j = args_parse(c, ev, PR_ARGS);
			if (j != NULL && (cJSON_GetObjectItemCaseSensitive(j, "event_type") ||
					     cJSON_GetObjectItemCaseSensitive(j, "Payload_type"))) {
				const char *d = json_str(j, "domain");
				*mstx_dom = d && *d ? strpool_intern_cstr(c->r->pool, d) : c->s_default;
				k = TL_LANE_MSTX;
			}
			cJSON_Delete(j);
		}
		return k;
	}
	/* device work as HolisticTraceAnalysis classifies it (its temporal breakdown's compute
	 * time is the union of the computation kernels): a collective's kernel is communication,
	 * a kernel named Memcpy / Memset and the memcpy / memset categories are memory, an MTIA
	 * event is a memory transfer when it is a dma_request and a kernel otherwise */
	if (span_eq(c, cat, "kernel") || span_eq(c, cat, "mtia_ccp_events")) {
		if (is_comm_kernel(name))
			return TL_LANE_COMM;
		if (strstr(name, "Memcpy") != NULL || strstr(name, "Memset") != NULL ||
		    strstr(name, "dma_request") != NULL)
			return TL_LANE_MEMCPY;
		return TL_LANE_COMPUTE;
	}
	if (span_eq(c, cat, "gpu_memcpy") || span_eq(c, cat, "gpu_memset"))
		return TL_LANE_MEMCPY;
	if (span_eq(c, cat, "gpu_user_annotation"))
		return TL_LANE_MSTX_DEV;
	if (span_eq(c, cat, "cuda_sync"))
		return TL_LANE_OTHER;
	if (span_eq(c, cat, "Trace"))
		return TL_LANE__COUNT; /* the whole capture as one span */
	if (span_eq(c, cat, "user_annotation")) {
		if (strncmp(name, "ProfilerStep#", 13) == 0)
			return TL_LANE__COUNT; /* already the step lane */
		if (host_comm)
			return TL_LANE_COMM;
		*mstx_dom = c->s_record_function;
		return TL_LANE_MSTX;
	}
	if (host_comm && span_eq(c, cat, "cpu_op"))
		return TL_LANE_COMM;
	return t->kind == T_DEVICE ? TL_LANE_OTHER : TL_LANE_HOST;
}

static void slice_add(jctx *c, const jevent *ev, uint32_t ti, int64_t start, int64_t dur);

/* Walk 2: "X" events are slices; a "B" waits on its thread's stack for the "E" that closes it
 * (Chrome's duration events; the "E" may carry no name: the "B" gives it all). */
static void
slice_event(jctx *c, const jevent *ev)
{
	int64_t start, dur;
	if (ev->bad >= 0)
		return;
	char ph = event_phase(c, ev);
	if (ph == 'X') {
		if (event_time(c, ev, 1, 1, &start, &dur) == 0)
			slice_add(c, ev, thread_of(c, ev), start, dur);
		return;
	}
	if ((ph != 'B' && ph != 'E') || event_time(c, ev, 0, 1, &start, &dur) != 0)
		return;
	uint32_t ti = thread_of(c, ev); /* may move c->threads */
	jthread *t = &c->threads[ti];
	if (ph == 'B') {
		be_open o = {*ev, start};
		VEC_PUSH(t->open, t->nopen, t->opencap, o);
		return;
	}
	if (t->nopen == 0 || start < t->open[t->nopen - 1].ts) {
		problem(c, PR_UNPAIRED, ev->start);
		return;
	}
	be_open o = t->open[--t->nopen];
	slice_add(c, &o.ev, ti, o.ts, start - o.ts);
}

/* After walk 2: "B" events nothing closed. */
static void
unpaired_report(jctx *c)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		jthread *t = &c->threads[i];
		for (size_t k = 0; k < t->nopen; k++)
			problem(c, PR_UNPAIRED, t->open[k].ev.start);
		free(t->open);
		t->open = NULL;
		t->nopen = t->opencap = 0;
	}
}

/* One slice of thread ti from event ev (its name, category, args) over [start, start + dur]. */
static void
slice_add(jctx *c, const jevent *ev, uint32_t ti, int64_t start, int64_t dur)
{
	jthread *t = &c->threads[ti];
	const jproc *p = &c->procs[t->proc];
	if (t->kind == T_OVERLAP)
		return; /* msprof's result, not an input (trace_json_overlap_lengths reads it) */
	cJSON *tmp;
	size_t namelen;
	const char *name = span_string(c, ev->f[F_NAME], &tmp, &namelen);
	tl_lane_kind kind;
	uint32_t dom = 0;
	switch (t->kind) {
	case T_DEVICE:
		if (p->kind == P_HW) {
			kind = hw_lane(c, ev, name);
		} else if (p->kind == P_LEGACY_GPU) {
			kind = is_comm_name(name) ? TL_LANE_COMM : TL_LANE_COMPUTE;
		} else {
			kind = generic_lane(c, ev, t, name, &dom);
		}
		break;
	case T_GROUP:
		kind = TL_LANE_COMM;
		break;
	case T_PLANE:
		kind = TL_LANE_COMM_TASK;
		break;
	default:
		/* an MsprofTx process may carry any name, "Python" too: no category, mstx args */
		if (p->kind == P_GENERIC || (p->kind == P_PYTHON && ev->f[F_CAT].len == 0))
			kind = generic_lane(c, ev, t, name, &dom);
		else if (p->kind == P_LEGACY_CPU && !c->dev_comm && is_comm_name(name))
			kind = TL_LANE_COMM; /* gloo / c10d collectives of a CPU-only job */
		else
			kind = TL_LANE_HOST;
	}
	if (kind != TL_LANE__COUNT) {
		uint32_t nm;
		if (kind == TL_LANE_MSTX_DEV && namelen > 0 && name[0] == '{') {
			char label[300]; /* a range's device part: its decoded message */
			nm = strpool_intern_cstr(
			    c->r->pool, mstx_msg_label(name, namelen, label, sizeof label));
		} else {
			nm = name_id(c, name, namelen);
		}
		uint32_t arg = ev->ordinal > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->ordinal;
		tl_track *tr = kind == TL_LANE_MSTX ? mstx_track(c, dom) : thread_track(c, t, kind);
		if (kind == TL_LANE_HOST && ev->f[F_CAT].len == 0 && p->kind == P_GENERIC)
			tr->user_ranges = 1; /* a trace without categories at all, as the legacy one */
		if (kind == TL_LANE_COMPUTE || kind == TL_LANE_COMM || kind == TL_LANE_COMM_TASK)
			track_push_step(tr, start, start + dur, nm, arg, step_of_work(c, t, start));
		else
			track_push(tr, start, start + dur, nm, arg);
		if ((kind == TL_LANE_MSTX || kind == TL_LANE_MSTX_DEV) && c->nmxk > 0)
			mstx_link_match(c, ti, start, tr, tr->n - 1, kind == TL_LANE_MSTX_DEV);
		if (kind == TL_LANE_HOST && c->nfbk > 0)
			fwdbwd_match(c, ti, start, start + dur);
		if (kind != TL_LANE_HOST && kind != TL_LANE_MSTX &&
		    !(kind == TL_LANE_COMM && t->kind == T_HOST))
			c->device_slices++;
		c->slices++;
		if (c->slices - c->rows_reported >= PROGRESS_ROWS) {
			msg_progress_add(0, c->slices - c->rows_reported);
			c->rows_reported = c->slices;
		}
	}
	cJSON_Delete(tmp);
}

/* ---- open and load ------------------------------------------------------------------------- */

static int
input_open(jctx *c)
{
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
		ssize_t k = read(fd, buf + got, c->n - got > ((size_t)1 << 30) ? (size_t)1 << 30
									  : c->n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			msg_warn(c->path, "cannot read: %s", k < 0 ? strerror(errno) : "file shrank");
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

static void
ctx_init(jctx *c, const char *path, tl_rank *r)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, tables_init);
	memset(c, 0, sizeof *c);
	c->path = path;
	c->r = r;
	c->tok = strpool_new();
	c->dist_rank = -1;
	u64map_init(&c->proc_map);
	u64map_init(&c->thread_map);
	u64map_init(&c->planes);
}

static void
ctx_free(jctx *c)
{
	if (c->b != NULL && c->n > 0) {
		if (c->mapped)
			munmap((void *)c->b, c->n);
		else
			free((void *)c->b);
	}
	free(c->evidx);
	for (size_t i = 0; i < c->nthreads; i++)
		free(c->threads[i].open);
	free(c->threads);
	free(c->procs);
	u64map_free(&c->proc_map);
	u64map_free(&c->thread_map);
	u64map_free(&c->planes);
	strpool_free(c->tok);
	if (c->flows != NULL) {
		strpool_free(c->flows);
		u64map_free(&c->flow_text);
	}
	free(c->ftab);
	free(c->fkey);
	free(c->fstart);
	free(c->fend);
	free(c->fbe);
	free(c->fbp);
	free(c->fbk);
	free(c->mxe);
	free(c->mxp);
	free(c->mxk);
	free(c->cand);
	free(c->steps);
	free(c->doms);
	free(c->sbuf);
	for (int k = 0; k < 4; k++)
		free(c->oa[k].v);
}

/* One line per kind of problem: where the first one is and how many there were. */
static void
problems_report(jctx *c)
{
	for (int k = 0; k < PR__N; k++)
		if (c->problems[k])
			msg_warn(c->path, "byte %zu: %s; %" PRIu64 " such element%s skipped",
			    c->problem_off[k], problem_text[k], c->problems[k],
			    c->problems[k] == 1 ? "" : "s");
}

/* The rank in a file name: rank-3, rank_3, rank3 (the last one), else -1. */
static int
rank_from_name(const char *path)
{
	const char *base = strrchr(path, '/');
	int rank = -1;
	base = base ? base + 1 : path;
	for (const char *p = base; (p = strstr(p, "rank")) != NULL; p += 4) {
		const char *q = p + 4;
		if (*q == '-' || *q == '_')
			q++;
		if (*q < '0' || *q > '9')
			continue;
		long v = 0;
		for (; *q >= '0' && *q <= '9' && v < 1000000; q++)
			v = v * 10 + (*q - '0');
		if (v < 1000000)
			rank = (int)v;
	}
	return rank;
}

/* Walk 1 and what follows from it. Returns -1 when the file is not a trace. */
static int
names_pass(jctx *c)
{
	if (input_open(c) != 0)
		return -1;
	if (walk(c, 1, names_event) != WALK_OK) {
		if (c->shrank && !c->quiet)
			msg_warn(c->path, "the file shrank while tl was reading it (truncated or "
					  "rewritten by another program); skipped");
		problems_report(c);
		return -1;
	}
	threads_resolve(c);
	steps_build(c);
	launches_build(c);
	fwdbwd_build(c);
	mstx_links_build(c);
	return 0;
}

static int
trace_json_load(const tl_source *src, tl_rank *r)
{
	jctx c;
	ctx_init(&c, src->path, r);
	int rc = -1;
	size_t nsteps_before = r->nsteps;
	if (names_pass(&c) != 0)
		goto done;
	if (r->rank < 0)
		r->rank = c.dist_rank >= 0 ? c.dist_rank : rank_from_name(src->path);
	c.s_default = strpool_intern_cstr(r->pool, "default");
	c.s_record_function = strpool_intern_cstr(r->pool, "record_function");
	walk(&c, 2, slice_event);
	unpaired_report(&c);
	if (c.nevidx > 0 && r->nsources > 0) { /* (the loader's source is r's last) */
		json_state *st = xcalloc(1, sizeof *st);
		st->off = c.evidx;
		st->n = c.nevidx;
		rank_set_source_state(r, r->nsources - 1, st, json_state_free);
		c.evidx = NULL;
	}
	if (c.shrank)
		msg_warn(src->path, "the file shrank while tl was reading it (truncated or rewritten by "
				    "another program); keeping the %" PRIu64 " slices read before",
		    c.slices);
	fwdbwd_finish(&c);
	mstx_links_finish(&c);
	problems_report(&c);
	msg_progress_add(0, c.slices - c.rows_reported);
	r->rows += c.events;
	/* a CPU-only trace: the summary says so instead of printing zeros for computing */
	int dev_before = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		dev_before |= r->tracks[i]->kind != TL_LANE_HOST && r->tracks[i]->kind != TL_LANE_MSTX &&
			      r->tracks[i]->kind != TL_LANE_COMM && r->tracks[i]->kind != TL_LANE_STEP;
	r->host_only = c.slices > 0 && c.device_slices == 0 && (r->host_only || !dev_before);
	rc = c.slices > 0 || r->nsteps > nsteps_before ? 0 : -1;
	if (rc != 0 && !c.damaged && !c.shrank)
		msg_warn(src->path, "no slices found (empty trace?)");
done:
	ctx_free(&c);
	return rc;
}

/* ---- Overlap Analysis cross-check ----------------------------------------------------------- */

static void
overlap_event(jctx *c, const jevent *ev)
{
	int64_t start, dur;
	if (ev->bad >= 0 || event_phase(c, ev) != 'X')
		return;
	uint32_t ti = thread_of(c, ev); /* may move c->threads */
	jthread *t = &c->threads[ti];
	if (t->kind != T_OVERLAP || event_time(c, ev, 1, 0, &start, &dur) != 0)
		return;
	static const char *const names[4] = {"Computing", "Communication",
	    "Communication(Not Overlapped)", "Free"};
	const char *tn = tok_str(c, t->name);
	for (int k = 0; k < 4; k++)
		if (strcmp(tn, names[k]) == 0) {
			VEC_RESERVE(c->oa[k].v, c->oa[k].cap, c->oa[k].n + 2);
			c->oa[k].v[c->oa[k].n++] = start;
			c->oa[k].v[c->oa[k].n++] = start + dur;
		}
}

static int
cmp_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

int
trace_json_overlap_lengths(const char *path, int64_t ns[4])
{
	jctx c;
	tl_rank *r = rank_new(-1);
	int found = 0;
	ctx_init(&c, path, r);
	c.quiet = 1; /* the load reports the file's problems */
	for (int k = 0; k < 4; k++)
		ns[k] = 0;
	if (names_pass(&c) == 0) {
		walk(&c, 2, overlap_event);
		for (int k = 0; k < 4; k++) {
			size_t m = c.oa[k].n / 2;
			int64_t *v = c.oa[k].v, cs = 0, ce = INT64_MIN;
			found |= m > 0;
			if (m > 1)
				qsort(v, m, 2 * sizeof *v, cmp_pair);
			for (size_t i = 0; i < m; i++) {
				if (v[2 * i] > ce) {
					if (ce > cs)
						ns[k] += ce - cs;
					cs = v[2 * i];
					ce = v[2 * i + 1];
				} else if (v[2 * i + 1] > ce) {
					ce = v[2 * i + 1];
				}
			}
			if (m > 0 && ce > cs)
				ns[k] += ce - cs;
		}
	}
	ctx_free(&c);
	rank_free(r);
	return found ? 0 : -1;
}

/* ---- one event again, for the detail pane ---------------------------------------------------- */

typedef struct args_req {
	uint64_t want; /* ordinal within the window */
	load_arg_fn fn;
	void *ctx;
	int fields; /* -1 until found */
} args_req;

static void
emit_value(args_req *q, const char *key, const cJSON *v)
{
	if (cJSON_IsString(v)) {
		q->fn(q->ctx, key, v->valuestring);
	} else {
		char *t = cJSON_PrintUnformatted(v);
		if (t == NULL)
			return;
		if (strlen(t) > 1024)
			strcpy(t + 1020, "...");
		q->fn(q->ctx, key, t);
		free(t);
	}
	q->fields++;
}

static void
args_event(jctx *c, const jevent *ev)
{
	args_req *q = c->req;
	if (ev->ordinal != q->want || q->fields >= 0)
		return;
	q->fields = 0;
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + ev->start, ev->end - ev->start);
	if (j == NULL) {
		q->fn(q->ctx, "arguments", "the event is not valid JSON");
		return;
	}
	static const char *const top[] = {"name", "cat", "ph", "ts", "dur", "pid", "tid", "id"};
	for (size_t k = 0; k < sizeof top / sizeof *top; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, top[k]);
		if (v != NULL)
			emit_value(q, top[k], v);
	}
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "args"), *m;
	if (cJSON_IsObject(a))
		cJSON_ArrayForEach(m, a)
			if (m->string != NULL)
				emit_value(q, m->string, m);
	cJSON_Delete(j);
}

/* The fields of the event with this ordinal (the slices' arg), found through the source's
 * event index: name, cat, ph, ts, dur, pid, tid, then each member of its args. Returns the
 * number of fields, -1 when the event cannot be read (fn then gets one "arguments" line saying
 * why). */
static int
event_args(const char *path, const json_state *ix, uint64_t ordinal, load_arg_fn fn, void *ctx)
{
	if (ix == NULL || ordinal / EVIDX_STEP >= ix->n) {
		fn(ctx, "arguments", "not indexed: the event cannot be found again");
		return -1;
	}
	uint64_t off = ix->off[ordinal / EVIDX_STEP];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fn(ctx, "arguments", strerror(errno));
		return -1;
	}
	args_req q = {ordinal % EVIDX_STEP, fn, ctx, -1};
	/* "[" and the file from the indexed event on, in windows that grow until the event is
	 * in one (events are a few hundred bytes; a window ends mid-event quietly) */
	for (size_t win = (size_t)1 << 20; q.fields < 0 && win <= ((size_t)256 << 20); win *= 4) {
		unsigned char *buf = xmalloc(win + 1);
		buf[0] = '[';
		size_t got = 0;
		while (got < win) {
			ssize_t k = pread(fd, buf + 1 + got, win - got, (off_t)(off + got));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		jctx c;
		ctx_init(&c, path, NULL);
		c.b = buf;
		c.n = got + 1;
		c.pass = 3; /* no problems counted, no index */
		c.quiet = 1;
		c.fn = args_event;
		c.req = &q;
		walk_array(&c, 0);
		ctx_free(&c); /* frees buf */
		if (got < win)
			break; /* the end of the file: it is not there */
	}
	close(fd);
	if (q.fields < 0)
		fn(ctx, "arguments", "not found again: the file changed since tl loaded it?");
	return q.fields;
}

/* ---- many events again, in one pass per indexed block (the communication analysis) -------- */

typedef struct args_batch {
	args_req q; /* first: the walk's c->req points here */
	const uint64_t *want; /* ordinals (ascending) of this block, relative to its start */
	size_t nwant, next, found;
	size_t base; /* index of want[0] in the caller's list */
	load_event_arg_fn fn;
	void *ctx;
} args_batch;

static void
args_batch_event(jctx *c, const jevent *ev)
{
	args_batch *b = (args_batch *)c->req;
	while (b->next < b->nwant && b->want[b->next] < ev->ordinal)
		b->next++; /* not in the window: skipped */
	if (b->next >= b->nwant || b->want[b->next] != ev->ordinal)
		return;
	size_t i = b->base + b->next++;
	b->found++;
	cJSON *j = cJSON_ParseWithLength((const char *)c->b + ev->start, ev->end - ev->start);
	const cJSON *a = j ? cJSON_GetObjectItemCaseSensitive(j, "args") : NULL, *m;
	if (cJSON_IsObject(a))
		cJSON_ArrayForEach(m, a)
		{
			if (m->string == NULL)
				continue;
			if (cJSON_IsString(m)) {
				b->fn(b->ctx, i, m->string, m->valuestring);
			} else if (cJSON_IsNumber(m)) {
				char t[64];
				if (m->valuedouble == (double)(int64_t)m->valuedouble)
					snprintf(t, sizeof t, "%" PRId64, (int64_t)m->valuedouble);
				else
					snprintf(t, sizeof t, "%.17g", m->valuedouble);
				b->fn(b->ctx, i, m->string, t);
			}
		}
	cJSON_Delete(j);
}

int
trace_json_events_args(const tl_rank *r, size_t source, const uint64_t *ordinals, size_t n,
                       load_event_arg_fn fn, void *ctx)
{
	const json_state *ix = source < r->nsources ? rank_source_state(r, source) : NULL;
	if (ix == NULL)
		return -1;
	const char *path = r->sources[source]->path;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t found = 0;
	uint64_t *rel = xmalloc((n ? n : 1) * sizeof *rel);
	for (size_t i = 0; i < n;) {
		uint64_t blk = ordinals[i] / EVIDX_STEP;
		size_t j = i;
		while (j < n && ordinals[j] / EVIDX_STEP == blk) {
			rel[j] = ordinals[j] % EVIDX_STEP;
			j++;
		}
		if (ix == NULL || blk >= ix->n) {
			i = j;
			continue;
		}
		uint64_t off = ix->off[blk];
		args_batch b = {.q = {0, NULL, NULL, -1}, .want = rel + i, .nwant = j - i,
		    .base = i, .fn = fn, .ctx = ctx};
		/* as event_args: windows that grow until the last wanted event is in */
		for (size_t win = (size_t)1 << 20; b.found < b.nwant && win <= ((size_t)256 << 20);
		     win *= 4) {
			unsigned char *buf = xmalloc(win + 1);
			buf[0] = '[';
			size_t got = 0;
			while (got < win) {
				ssize_t k = pread(fd, buf + 1 + got, win - got, (off_t)(off + got));
				if (k < 0 && errno == EINTR)
					continue;
				if (k <= 0)
					break;
				got += (size_t)k;
			}
			b.next = b.found = 0;
			jctx c;
			ctx_init(&c, path, NULL);
			c.b = buf;
			c.n = got + 1;
			c.pass = 3;
			c.quiet = 1;
			c.fn = args_batch_event;
			c.req = &b.q;
			walk_array(&c, 0);
			ctx_free(&c);
			if (got < win)
				break;
		}
		found += b.found;
		i = j;
	}
	free(rel);
	close(fd);
	return (int)(found > INT32_MAX ? INT32_MAX : found);
}

static int
trace_json_args(const tl_rank *r, size_t si, const tl_track *t, size_t idx, load_arg_fn fn,
                void *ctx)
{
	/* a JSON slice's arg is its event's ordinal (the step lane's is a step index) */
	if (t->kind == TL_LANE_STEP || t->kind == TL_LANE_STAGE || t->kind == TL_LANE_OVERLAP ||
	    t->v[idx].arg == UINT32_MAX)
		return 0;
	if (load_source_unchanged(r->sources[si], fn, ctx) != 0)
		return -1;
	return event_args(r->sources[si]->path, rank_source_state(r, si), t->v[idx].arg, fn, ctx);
}

/* Bytes of memory per file byte, measured with `tl summary` and a scripted `tl view` on
 * generated profiles (2 ranks x 500,000 tasks: trace_view.json 0.11 and 0.13 bytes per file
 * byte), with a margin. The viewer holds more: prefix sums, the overlap and stage lanes. */
#define JSON_BYTE_SUMMARY 0.14
#define JSON_BYTE_VIEW 0.16

static uint64_t
trace_json_estimate(const tl_source *src, int view)
{
	return (uint64_t)((double)(src->size > 0 ? src->size : 0) *
	                  (view ? JSON_BYTE_VIEW : JSON_BYTE_SUMMARY));
}

const tl_loader loader_trace_json = {
    .name = "chrome-json",
    .load = trace_json_load,
    .estimate = trace_json_estimate,
    .args = trace_json_args,
    .comm = trace_json_comm,
};
