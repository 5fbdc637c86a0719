/* Inside the Chrome-trace JSON loader: the types, the walk context and the functions its files
 * share (trace_json.c: load and the hooks; json_args.c: an event's args again; json_ctx.c: the
 * input, the context and an event's fields; json_scan.c: the scanner; json_walk.c: the
 * mapped-file walker; json_names.c: walk 1; json_slices.c: walk 2). They call each other one
 * way only, in that order (tests/check_layers.sh fails on a cycle). Nothing outside them
 * includes it. */
#ifndef TL_TRACE_JSON_INT_H
#define TL_TRACE_JSON_INT_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cJSON.h>

#include "load/load_int.h"
#include "util/json_lex.h"
#include "util/strpool.h"
#include "util/u64map.h"

/* Walked pages are given back every this many bytes: 2 MiB, one page table's worth, cost no more
 * CPU than 16 (the kernel's work is per page) and hold 12 MB less of trace_view.json's peak. */
#define DROP_CHUNK ((size_t)2 << 20)
#define PROGRESS_ROWS 65536
#define THREAD_CACHE 4      /* threads recognised by their raw pid/tid tokens (events interleave) */
#define THREAD_TOK 22       /* of tokens at most this long */
#define THREAD_TOK_BUF 24   /* their copies' room: three words */
#define FLOW_NONE INT64_MIN /* no start seen for a flow */
#define FLOW_HASHED 0x80u   /* flow_key.meta: the id is in the table, not in the ordered ids */
/* Big inputs are scanned by a second thread while the first one handles the events it found,
 * handed over in batches (the scan is about half the work). */
#define PIPE_MIN ((size_t)32 << 20) /* bytes; smaller inputs are walked by one thread */
#define PIPE_BATCH 512
#define PIPE_DEPTH 4

enum { DEC_OK, DEC_NAN, DEC_RANGE };

typedef struct jspan {
	size_t off, len; /* bytes of the raw JSON value; len 0 = absent */
} jspan;

enum { F_PH, F_NAME, F_CAT, F_TS, F_DUR, F_PID, F_TID, F_ID, F_ARGS, F__N };

/* Problems with one event (or one array element): the event is skipped, the walk goes on. */
enum {
	PR_UTF8 = JSON_BAD_UTF8, /* the lexer's own reports come first */
	PR_DEPTH = JSON_BAD_DEPTH,
	PR_NOT_OBJECT,
	PR_NO_TS,
	PR_TS_NAN,
	PR_TS_RANGE,
	PR_DUR,
	PR_PARSE,
	PR_ARGS,
	PR_UNPAIRED,
	PR_COUNTER, /* a counter event ("C") without a number in its args */
	PR__N
};

typedef struct jevent {
	size_t start, end; /* the object's bytes */
	uint64_t ordinal;  /* index in the event array */
	jspan f[F__N];
	int bad; /* PR_UTF8 / PR_DEPTH / PR_PARSE, or -1 */
	size_t bad_off;
} jevent;

/* What the JSON loader keeps of a source: the byte offset of every EVIDX_STEP-th event of its
 * event array (by ordinal, which its slices carry as arg), so that the detail pane finds one
 * event again by reading a little of the file, not all of it. */
#define EVIDX_STEP 1024
/* An "Iteration N" step of a per-iteration msprof export: its start (ns) and its event's
 * ordinal, so that the step lane's detail shows the event's args. */
typedef struct json_iter_ev {
	int64_t start;
	uint64_t ordinal;
} json_iter_ev;
typedef struct json_link json_link;
typedef struct json_state {
	uint64_t *off;
	size_t n;
	/* the launch flows with both ends (json_links.c): by launch end, and the same by device
	 * end (the same array when they are in both orders) */
	json_link *links, *by_dev;
	size_t nlinks;
	json_link *map; /* the one of them that is an xhuge_resize mapping of mapn, or NULL */
	size_t mapn;
	json_iter_ev *iters; /* the Iteration steps this source gave, by start */
	size_t niters;
} json_state;

/* A launch flow with both ends, after loading: the host end (the call or operator that
 * launched, on the thread of track key s_key) and the device end (f_key), ns with base_ns. */
enum { FLOW_H2D = 1, FLOW_AC2G, FLOW_FWDBWD, FLOW_MSTX, FLOW_ASYNC_NPU };
struct json_link {
	int64_t s_ts, f_ts;
	int64_t s_key, f_key;
	int64_t cat; /* FLOW_H2D (CANN call -> task), FLOW_AC2G (runtime call -> kernel),
	                FLOW_ASYNC_NPU (torch_npu: operator -> task) */
};

/* What a process is, from its process_name ("Ascend Hardware", "HCCL", ...) or, for the legacy
 * exporter, its pid string. */
enum {
	P_GENERIC, /* Kineto, MsprofTx, unnamed: classified per event by category / args */
	P_HW,      /* Ascend Hardware */
	P_HCCL,    /* HCCL (≤ 2025) / Communication (2026) */
	P_OVERLAP, /* Overlap Analysis: msprof's own overlap, never used for the numbers */
	P_PYTHON,  /* Python: torch ops; ProfilerStep#N */
	P_HOST,    /* CANN, Python GC */
	P_LEGACY_CPU /* "CPU functions" */,
	P_LEGACY_GPU /* "CUDA functions" */,
};

/* What a thread is. T_STEPTRACE: msprof's "Step Trace(Model ID:M)" thread of Ascend
 * Hardware (CANN <= 7.0 exports): its "Iteration N" events are the steps, not device tasks. */
enum { T_HOST, T_DEVICE, T_GROUP, T_PLANE, T_OVERLAP, T_STEPTRACE };

typedef struct jproc {
	uint32_t tok;  /* raw pid token (c->tok pool) */
	uint32_t name; /* process_name (c->tok pool), 0 when none */
	int dev;       /* from process_labels "NPU 3" / "GPU 3", else -1 */
	int cpu;       /* process_labels "CPU" too: Kineto labels every GPU of the machine by a pid
	                  equal to its number, which a container's Python process may also have */
	int kind;      /* P_* */
	int ordinal;   /* among processes of the same kind, in order of appearance */
} jproc;

typedef struct jthread {
	uint32_t proc;
	uint32_t tok;                   /* raw tid token */
	uint32_t name;                  /* thread_name (c->tok pool), 0 when none */
	int kind;                       /* T_* */
	int64_t key;                    /* track key of every lane of this thread */
	uint32_t label;                 /* r->pool */
	tl_track *tr[TL_LANE__COUNT];   /* created on first use */
	size_t lau_lo, lau_hi, lau_cur; /* its launches: c->fend[lau_lo .. lau_hi) */
	struct be_open *open;           /* walk 2: its "B" events waiting for their "E" */
	size_t nopen, opencap;
} jthread;

typedef struct be_open {
	jevent ev;
	int64_t ts;
} be_open;

typedef struct step_cand {
	uint32_t thread;
	int gpu;  /* gpu_user_annotation: the device copy of the range */
	int iter; /* an "Iteration N" event (msprof's Step Trace thread), not a ProfilerStep */
	int64_t id, start, end;
	uint64_t ordinal; /* the event's, for its args (FP Start, BP End) in the detail */
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

typedef struct fb_key {            /* lookup of pair ends by (thread, ts) */
	uint32_t thread, pair_end; /* pair index * 2 + which end */
	int64_t ts;
} fb_key;

/* An MsTx flow (host MSTX range -> the device part msprof drew on Ascend Hardware) with both ends:
 * their threads and times (walk 1), then the slices they bind to (walk 2; n = none yet). */
typedef struct mx_pair {
	uint32_t thread[2]; /* host, device */
	int64_t ts[2];
	tl_track *t[2];
	size_t k[2];
} mx_pair;

typedef struct flow_key {
	uint64_t hi, lo; /* the id's digits before the last 19, and the last 19 */
	uint32_t meta;   /* category << 8 | number of digits, | FLOW_HASHED for an id in ftab; 0
	                    for ids kept as text */
} flow_key;

#define NAME_CACHE 256 /* name_hash's top 8 bits */
typedef struct name_slot {
	uint32_t id;    /* r->pool; 0 = empty (the empty name is not cached) */
	uint8_t kernel; /* a Kineto kernel of this name: 1 + its lane (generic_lane), 0 unknown */
	size_t len;
} name_slot;

/* Walk 1: device event names seen not to be collectives' kernels (json_is_comm_kernel), raw as
 * the file has them (walk 1 interns no names: the pool's order is walk 2's). */
#define KNAME_CACHE 64 /* name_hash's top 6 bits */
#define KNAME_MAX 512
typedef struct kname_slot {
	char *s; /* owned, NULL = empty */
	size_t len;
} kname_slot;

typedef struct dom_track {
	uint32_t dom;
	tl_track *t;
} dom_track;

typedef struct jctx jctx;
/* A block of walk 1's event records (json_walk.c), back to back; one huge page where the
 * kernel gives one (json_rec_new). */
#define JREC_BLK ((size_t)1 << 21) /* bytes of a block, header included */
typedef struct jrec_blk {
	struct jrec_blk *next;
	size_t n; /* bytes used of b */
	unsigned char b[];
} jrec_blk;
jrec_blk *json_rec_new(void); /* json_ctx.c */
void json_rec_free(jrec_blk *k);
/* An array of the load's own grown in an anonymous mapping of whole 2 MiB huge pages (moved by
 * mremap to another 2 MiB boundary as it grows); *cap counts elements of size sz. Freed by
 * json_huge_free, not free (json_ctx.c). */
void *json_huge_reserve(void *p, size_t *cap, size_t need, size_t sz);
void json_huge_free(void *p, size_t cap, size_t sz);
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

/* One pass over the members of the event's "args" object, as the scanner delimited it: the
 * value of each wanted key (len 0 when absent). The hot path of device tasks reads its few
 * scalar members this way rather than building a cJSON tree per task. Returns -1 when args is
 * absent or its member list is broken. */
typedef struct jkey {
	const char *s;
	size_t n;
} jkey;
#define JKEY(lit)                                                                                  \
	{                                                                                          \
		lit, sizeof lit - 1                                                                \
	}
/* What json_args_members remembers of the args of one caller's last event (one list of keys):
 * the names of its first members, in order, and which keys each is. The events of a kind name
 * their args alike, so a member's name is most often the one at its place last time, known
 * by a compare where a scan of the string would be. Names longer than ARGS_MEMO_NAME, or with
 * a backslash, are not kept. */
#define ARGS_MEMO_MEMBERS 8
#define ARGS_MEMO_NAME 24
typedef struct jargs_memo {
	const jkey *keys; /* whose (NULL: none yet) */
	struct {
		char name[ARGS_MEMO_NAME];
		uint8_t len;  /* 0: none */
		uint8_t want; /* bit k: keys[k] */
	} m[ARGS_MEMO_MEMBERS];
} jargs_memo;
#define ARGS_MEMOS 4 /* by the keys' address: hot callers alternate (task lanes, correlations) */

struct jctx {
	const char *path;
	const unsigned char *b;
	size_t n;
	int mapped;
	int gz;         /* b holds the file inflated (a .json.gz), malloc'd */
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
		/* raw tokens of a recent event, copied (the event they came from may be far back
		 * in the file, its pages given back); plen 0 = empty slot */
		unsigned char pid[THREAD_TOK_BUF], tid[THREAD_TOK_BUF];
		uint8_t plen, tlen;
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
	char *host;       /* the trace's "hostname" (or distributedInfo's), else NULL; owned */
	int quiet;        /* count no problems (the Overlap Analysis cross-check) */
	int shrank;       /* the file shrank while read (SIGBUS): what was read is kept */
	uint64_t *evidx;  /* walk 1: byte offset of every EVIDX_STEP-th event */
	size_t nevidx, evidxcap;
	struct args_req *req; /* event_args: the event wanted */
	int has_events;
	/* steps of this source: global index = step_base + i */
	tl_step *steps;
	size_t nsteps, step_base;
	int models; /* a per-iteration msprof export: model ids of its device (tl_source.models) */
	/* MindSpore 1.x timeline: its step trace CSV (beside it), and the first operator's start
	 * (ns; INT64_MAX none), which the CSV's step 1 FP start is placed on */
	const char *ms1_csv;
	int64_t ms1_first;
	int ms1_no_csv;      /* errno of its opening, 0 when it opened */
	uint64_t ms1_ops;    /* its operators read (compute and communication) */
	json_iter_ev *iters; /* its Iteration steps (json_steps_build) */
	size_t niters;
	/* launch flows (walk 1): ts without base_ns */
	uint32_t *ftab; /* digit-string flow ids (see flow_number): flow number + 1, 0 empty */
	size_t fmask, nfdigit;
	flow_key *fkey; /* flow number -> its digits */
	size_t fkcap;
	uint32_t *ford; /* the digit ids that came in ascending order: their flow numbers, in
	                   order (ftab holds the others) */
	size_t nford, fordcap, fhint; /* fhint: where in ford the last lookup found its flow */
	tl_strpool *flows;            /* other flow ids: "cat\x1fid" */
	tl_u64map flow_text;          /* flows pool id -> flow number */
	int64_t *fstart; /* flow number -> ts of its start, FLOW_NONE before it is seen */
	size_t nfstart, fcap;
	uint32_t *fsthr; /* flow number -> the thread of its start */
	uint8_t *fcat;   /* flow number -> FLOW_* */
	size_t fscap, fccap;
	json_link *links; /* the launch flows with both ends (json_links_build): an xhuge_resize
	                     mapping of linkcap, sized from the flows' ends */
	size_t nlinks, linkcap;
	int have_ac2g; /* some of them are ac2g flows: walk 2 reads no correlations for links */
	/* walk 2, Kineto: the "correlation" of each runtime call and of each device event, which
	 * link them where the trace has no ac2g flows (json_links_correlate) */
	struct json_corr *corr_h, *corr_d;
	size_t ncorr_h, ncorr_d, corr_hcap, corr_dcap;
	/* Kineto: the launch calls' correlations (walk 1: correlation -> index into lcorr_ts, the
	 * call's ts without base_ns; then lcorr_step, the step holding it), so that walk 2 gives
	 * device work the step of its launch, as HolisticTraceAnalysis and the TensorBoard plugin
	 * do; device work naming a correlation no call has was launched before the capture */
	tl_u64map lcorr;
	uint64_t *lcorr_key; /* while the calls' correlations count up (as Kineto writes them):
	                        they in order, and no map; the first out of order fills lcorr */
	size_t lcorr_keycap, lcorr_hint;
	int lcorr_mapped;
	int64_t *lcorr_ts;
	uint16_t *lcorr_step;
	size_t nlcorr, lcorrcap;
	jargs_memo args_memo[ARGS_MEMOS];
	/* bit s: some key of planes has stream s (its low 16 bits, as the key holds it), so that a
	 * compute task's stream rules it out before its task and context are read */
	uint64_t plane_streams[65536 / 64];
	size_t corr_at; /* json_event_corr's last event (its start + 1; 0: none) and answer */
	int corr_ok;
	int64_t corr_v;
	uint64_t orphans;   /* device events launched before the capture */
	int64_t orphan_ns;  /* and their time, summed */
	uint64_t outside;   /* device events launched outside every ProfilerStep */
	int64_t outside_ns; /* and their time, summed */
	flow_end *fend;     /* flow ends in file order, then the launch table (walk 2) */
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
	char *sbuf;             /* span_string */
	size_t sbufcap;
	name_slot names[NAME_CACHE];
	kname_slot knames[KNAME_CACHE];
	/* Overlap Analysis cross-check (trace_json_overlap_lengths) */
	struct {
		int64_t *v; /* start, end pairs */
		size_t n, cap;
	} oa[4];
	/* the walk: the scanner's own state (its thread when piped) */
	event_fn fn;
	/* walk 1's record of the events walk 2 handles (json_walk.c), so that walk 2 reads
	 * them without scanning the text again; freed as walk 2 goes */
	jrec_blk *rec_head, *rec_tail;
	uint64_t rec_ord; /* the last recorded event's ordinal and end */
	size_t rec_end;
	int recorded; /* walk 1 recorded: walk 2 replays */
	/* beside the records, walk 1's handler's thread of each recorded event, in their order
	 * (1 + its index, 0 for none: not an "X"), so that walk 2 need not find it again; and
	 * walk 2's answer for the event it handles (UINT32_MAX: none) */
	uint8_t *rec_thr;
	size_t nrec_thr, rec_thrcap;
	uint64_t rec_thr_events, rec_events; /* entries of rec_thr; records (json_walk.c) */
	uint32_t replay_thread;
	jpipe *pipe;
	uint64_t nonobj; /* array elements that are not objects, and where the first was */
	size_t nonobj_off;
};
#define span_eq(c, s, lit) json_span_eq_n(c, s, lit, sizeof lit - 1)
#define span_starts(c, s, lit) json_span_starts_n(c, s, lit, sizeof lit - 1)

/* What a walk over the input came to. */
typedef enum walk_status {
	WALK_OK = 0,
	WALK_NOT_TRACE = -1, /* the input is not a trace at all */
	WALK_SHRANK = -2,    /* the file shrank while read (SIGBUS), or the handler stopped */
} walk_status;

typedef struct scan_job {
	jctx *c;
	walk_status rc;
} scan_job;

typedef struct args_req {
	uint64_t want; /* ordinal within the window */
	load_arg_fn fn;
	void *ctx;
	int fields; /* -1 until found */
} args_req;

typedef struct args_batch {
	args_req q;           /* first: the walk's c->req points here */
	const uint64_t *want; /* ordinals (ascending) of this block, relative to its start */
	size_t nwant, next, found;
	size_t base; /* index of want[0] in the caller's list */
	load_event_arg_fn fn;
	void *ctx;
} args_batch;

/* Bytes of memory per file byte above the program's own (memcheck.c's BASE_BYTES), the peak RSS
 * of `tl summary --no-cache` and of a scripted `tl view --no-cache` on the bench's generated
 * files: summary 0.164 (trace_view.json, 651 MB) and 0.197 (Kineto, 616 MB: walk 1's records,
 * the flows and the links), view 0.300 and 0.261 (the viewer's mapped rank files counted), each
 * with a margin. */
#define JSON_BYTE_SUMMARY 0.21
#define JSON_BYTE_VIEW 0.32

/* json_scan.c */
/* json_dec_parse but for the spelling json_dec_us3 takes (which it may take too). */
int json_dec_parse_any(const char *s, size_t n, int scale, int64_t *out);

/* The value of 8 ASCII digits (json_digits8's, util/json_lex.h), in memory order. */
static inline uint64_t
json_value8(uint64_t v)
{
	v -= 0x3030303030303030ull;
	v = v * 10 + (v >> 8); /* two digits in every other byte */
	return ((v & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
	        ((v >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >>
	       32;
}

/* A time's usual spelling at scale 3 (us to ns), digits '.' three digits of at most 19 digits
 * in all: its digits are the ns, nothing to scale or round. Returns DEC_OK or DEC_RANGE as
 * the general path would, or -1 for any other spelling. */
static inline int
json_dec_us3(const char *s, size_t n, int64_t *out)
{
	if (n < 5 || n > 20 || s[n - 4] != '.')
		return -1;
	unsigned d1 = (unsigned)(unsigned char)s[n - 3] - '0',
	         d2 = (unsigned)(unsigned char)s[n - 2] - '0',
	         d3 = (unsigned)(unsigned char)s[n - 1] - '0';
	if (d1 > 9 || d2 > 9 || d3 > 9)
		return -1;
	size_t k = 0, e = n - 4;
	uint64_t m = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; k + 8 <= e; k += 8) {
		uint64_t v;
		memcpy(&v, s + k, 8);
		if (!json_digits8(v))
			return -1;
		m = m * 100000000u + json_value8(v);
	}
#endif
	for (; k < e; k++) {
		unsigned d = (unsigned)(unsigned char)s[k] - '0';
		if (d > 9)
			return -1;
		m = m * 10 + d;
	}
	m = m * 1000 + d1 * 100 + d2 * 10 + d3; /* below 10^19: no wrap */
	if (m > (uint64_t)INT64_MAX)
		return DEC_RANGE;
	*out = (int64_t)m;
	return DEC_OK;
}

/* Parses the decimal number s[0..n) (JSON number syntax, leniently: '+', ".5", "5." pass) and
 * scales it by 10^scale, rounding half away from zero, into *out. Exact: at most 19
 * significant digits are kept and the first dropped one rounds. DEC_NAN when s is not a
 * number (NaN, Infinity, "", text), DEC_RANGE when the result does not fit in int64. In line
 * for a time's usual spelling (each event's ts and dur, both walks), the rest in json_scan.c. */
static inline int
json_dec_parse(const char *s, size_t n, int scale, int64_t *out)
{
	int r;
	if (scale == 3 && (r = json_dec_us3(s, n, out)) >= 0)
		return r;
	return json_dec_parse_any(s, n, scale, out);
}

extern const char *const json_problem_text[PR__N];
/* b[i] is '{': an event. Finds its end and where its members ph, name, ... sit (ev->f), and
 * notes invalid UTF-8, excess nesting, or a broken member list (ev->bad). Returns 0 with
 * ev->end set, or -1 when the input ends first. */
int json_scan_event(const unsigned char *b, size_t n, size_t i, jevent *ev);

/* json_ctx.c */
/* Opens c->path: mapped read-only (or read whole with TL_JSON_NO_MMAP; a gzip file inflated
 * into memory, at most gzin_limit() bytes). Returns -1 after one line saying why it cannot. */
int json_input_open(jctx *c);
/* A trace opened again to read events at their offsets (json_args.c): plain, read where asked;
 * gzip, inflated whole on the first read (bounded by gzin_limit()) and read from memory, so that
 * many reads cost one inflate. */
typedef struct json_in {
	int fd;
	int gz;
	int inflated;       /* tried: all / nall hold the stream (all NULL: it could not) */
	unsigned char *all; /* the inflated stream */
	size_t nall;
} json_in;
void json_in_open(json_in *in, int fd);
/* Up to len bytes from offset off (of the inflated stream for gzip). Returns the count read. */
size_t json_in_pread(json_in *in, uint64_t off, unsigned char *buf, size_t len);
/* Frees what it holds and closes the file. */
void json_in_close(json_in *in);
/* A walk's context for the file at path (r: the rank it loads into, or NULL); json_ctx_free
 * releases it and the input. */
void json_ctx_init(jctx *c, const char *path, tl_rank *r);
void json_ctx_free(jctx *c);
/* Each event is judged once: the scanner's findings and flows in walk 1, slices in walk 2. A
 * negative pr counts nothing. */
void json_problem(jctx *c, int pr, size_t off);
/* The raw bytes of a field, without the quotes of a string. (Inline, as the next ones: each
 * event asks them several times, and a literal's memcmp becomes a compare or two.) */
static inline const char *
json_span_text(const jctx *c, jspan s, size_t *len)
{
	const char *p = (const char *)c->b + s.off;
	*len = s.len;
	if (s.len >= 2 && p[0] == '"') {
		*len = s.len - 2;
		return p + 1;
	}
	return p;
}

static inline int
json_span_is_string(const jctx *c, jspan s)
{
	return s.len >= 2 && c->b[s.off] == '"';
}

/* Does the field hold exactly the string `want` (of wn bytes)? (Escaped spellings do not
 * count.) span_eq / span_starts take a string literal. */
static inline int
json_span_eq_n(const jctx *c, jspan s, const char *want, size_t wn)
{
	return s.len == wn + 2 && c->b[s.off] == '"' && memcmp(c->b + s.off + 1, want, wn) == 0;
}

static inline int
json_span_starts_n(const jctx *c, jspan s, const char *want, size_t wn)
{
	return s.len >= wn + 2 && c->b[s.off] == '"' && memcmp(c->b + s.off + 1, want, wn) == 0;
}

static inline char
json_event_phase(const jctx *c, const jevent *ev)
{
	jspan s = ev->f[F_PH];
	return s.len == 3 && c->b[s.off] == '"' ? (char)c->b[s.off + 1] : 0;
}
/* ts and dur of an event, in ns on the profile clock. Returns -1 when the event cannot be used
 * (a problem is noted when `count`). */
int json_event_time(jctx *c, const jevent *ev, int need_dur, int count, int64_t *start,
                    int64_t *dur);

/* json_names.c */
uint32_t json_thread_of(jctx *c, const jevent *ev);
/* Walk 1's handler: the thread of a recorded event, for walk 2 (thread: 1 + its index, 0 none). */
void json_rec_thread(jctx *c, uint32_t thread);
const char *json_tok_str(const jctx *c, uint32_t id);
/* Kinds, keys and labels of every process and thread, once the metadata is known. */
void json_threads_resolve(jctx *c);
tl_track *json_thread_track(jctx *c, jthread *t, tl_lane_kind kind);
tl_track *json_mstx_track(jctx *c, uint32_t dom);
/* The event's "args" object, or NULL (absent, or not valid JSON: noted as pr). The other
 * members are read from their raw bytes: ts and dur must not go through a double. */
cJSON *json_args_parse(jctx *c, const jevent *ev, int pr);
/* A string member's value, NUL-terminated, and its length (JSON escapes decoded by cJSON when
 * there are any), or the raw text of a non-string; "" when absent. Valid until the next call;
 * *tmp (freed by the caller with cJSON_Delete) holds a decoded string. */
const char *json_span_string(jctx *c, jspan s, cJSON **tmp, size_t *len);
/* The pool id of a slice name. Names repeat (kernels, API calls): a small cache keyed by the
 * length and the first and last bytes saves hashing each one again. */
uint32_t json_name_id(jctx *c, const char *s, size_t n);
/* Its cache slot (the name interned), where walk 2 keeps what it learnt of the name. */
name_slot *json_name_slot(jctx *c, const char *s, size_t n);
/* At most 8 keys. */
int json_args_members(jctx *c, const jevent *ev, const jkey *keys, int nkeys, jspan *out);
/* whether the n bytes at p hold "\"context id\"" (walk 1's test for an HCCL sub-task) */
int json_has_context_id(const unsigned char *p, size_t n);
/* The event's args.correlation (Kineto), as an integer: 1 when it has one. Walk 2 asks it
 * twice of a device event (its step, its link): the last answer is kept. */
int json_event_corr(jctx *c, const jevent *ev, int64_t *corr);
/* An integer member value (a JSON number or a string of digits), exactly. */
int json_span_int(const jctx *c, jspan s, int64_t *v);
/* A short string member value into buf (escapes decoded by cJSON), or NULL when it is not a
 * string or does not fit. */
const char *json_span_str_buf(const jctx *c, jspan s, char *buf, size_t bufsz);
const char *json_str(const cJSON *o, const char *key);
int json_str_ends(const char *s, const char *suffix);

/* json_walk.c */
/* Walks the event array at b[i] == '['. Returns the offset after it, or SIZE_MAX (damage,
 * reported in walk 1). */
size_t json_walk_array(jctx *c, size_t i);
/* One walk over the whole input, each event to fn (always on the calling thread). On
 * WALK_SHRANK c->shrank is set and what was handled before is kept. */
walk_status json_walk(jctx *c, int pass, event_fn fn);

/* json_names.c */
void json_root_member(jctx *c, const char *key, size_t kn, size_t v, size_t vend);
uint64_t json_plane_key(int64_t stream, int64_t task, int64_t ctx);
int json_is_comm_name(const char *s);
/* A device kernel that is a collective (HolisticTraceAnalysis' communication kernels, NCCL's
 * "ncclKernel_*" / "ncclDevKernel_*", and their RCCL and HCCL counterparts). */
int json_is_comm_kernel(const char *s);
void json_names_event(jctx *c, const jevent *ev);
/* ProfilerStep#N ranges of host threads become the steps (the DB's STEP_TIME). */
void json_steps_build(jctx *c);
/* Step of host time t in this source, as a global step index (as the DB loader's step_at). */
uint16_t json_step_at(const jctx *c, int64_t t);
/* HostToDevice (CANN launch -> device task or HCCL op) and Kineto's ac2g (runtime launch
 * -> kernel), joined by (cat, id); fwdbwd (forward operator -> its backward operator, torch_npu
 * and Kineto alike) kept for fwdbwd_build; MsTx (host MSTX range -> its device part) kept for
 * mstx_links_build. */
void json_flow_event(jctx *c, const jevent *ev, char ph);
/* A device event's category: kernel, gpu_memcpy, gpu_memset, mtia_ccp_events, and the Kineto
 * of 2021's Kernel, Memcpy, Memset. */
int json_is_device_cat(const jctx *c, jspan cat);
/* A launch call's category: cuda_runtime, cuda_driver, and 2021's Runtime. */
int json_is_launch_cat(const jctx *c, jspan cat);
/* After the steps: each launch call's correlation gets the step holding the call. */
void json_launch_corr_build(jctx *c);
/* Walk 2: the step of a device event by its correlation. Returns 1 and sets *step (TL_NO_STEP
 * when the call lies outside every step, or is not in the trace: launched before the capture;
 * each counted for its warning), or 0 when the event names no correlation or the trace has no
 * calls. */
int json_corr_step(jctx *c, const jevent *ev, int64_t dur, uint16_t *step);
/* The index of a launch call's correlation among c->nlcorr (1), or 0 when no call has it. */
int json_lcorr_find(jctx *c, uint64_t corr, uint32_t *i);

/* json_args.c: the loader's args hook (the detail pane) */
int trace_json_args(const tl_rank *r, size_t si, const tl_track *t, size_t idx, load_arg_fn fn,
                    void *ctx);

/* json_slices.c */
/* After walk 1: the fwdbwd flows with exactly one start and one end on two threads become
 * pairs, and their ends the lookup walk 2 uses to find the operators. */
void json_fwdbwd_build(jctx *c);
/* After walk 2: the pairs whose two operators were found. */
void json_fwdbwd_finish(jctx *c);
/* After walk 1: flows with exactly one start and one end become pairs, their ends the lookup. */
void json_mstx_links_build(jctx *c);
/* After walk 2: each host range whose device part was found gets its times. */
void json_mstx_links_finish(jctx *c);
/* Once the steps are known: the flow ends become the launch table, (thread, device start) ->
 * step of the launch. Only with two or more steps (with one, everything belongs to it, as in
 * the DB loader). The flow ids are freed. */
void json_launches_build(jctx *c);
/* json_links.c: after walk 1, the launch flows with both ends become c->links (before
 * json_launches_build frees the flows); the loader's links hook; the state's links in the
 * model cache. */
void json_links_build(jctx *c);
ptrdiff_t trace_json_links(const tl_rank *r, size_t si, const tl_track *t, size_t idx,
                           tl_link_dir dir, tl_link_end **out, const void *ix);
/* Walk 2: a Kineto slice of thread t at start; records its correlation when it is a runtime
 * call (host) or device work. */
void json_links_corr(jctx *c, const jevent *ev, const jthread *t, int64_t start, int dev);
/* After walk 2: the runtime calls and the device events with the same correlation become
 * links, unless the trace's ac2g flows gave them already. */
void json_links_correlate(jctx *c);
/* The loader's launches hook: one launch per launch call with flows to compute or
 * communication work (its host start, its first such slice's start). */
void trace_json_launches(const tl_source *src, const tl_rank *r, tl_launch **v, size_t *n,
                         size_t *cap);
/* Sorts st's links both ways (st->links by launch end, st->by_dev by device end). */
void json_links_index(json_state *st);
/* Gives c's links to st (its map, shrunk to them); frees st's links. */
void json_links_give(jctx *c, json_state *st);
void json_links_free(json_state *st);
/* json_stack.c: the loader's stack hook, the Python frames of a host slice, innermost first:
 * its "Call stack" arg (torch_npu with_stack), else the chain of python_function events
 * ("Python id", "Python parent id") around it on its thread. */
ptrdiff_t trace_json_stack(const tl_rank *r, size_t si, const tl_track *t, size_t idx, char ***out);
/* Walk 2: "X" events are slices; a "B" waits on its thread's stack for the "E" that closes it
 * (Chrome's duration events; the "E" may carry no name: the "B" gives it all). */
void json_slice_event(jctx *c, const jevent *ev);
/* json_counters.c: walk 2's counter events ("C"), and putting every counter of the source in
 * time order after it. */
void json_counter_event(jctx *c, const jevent *ev);
void json_counters_finish(jctx *c);
/* After walk 2: "B" events nothing closed. */
void json_unpaired_report(jctx *c);

#endif
