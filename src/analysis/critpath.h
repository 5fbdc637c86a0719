/* The critical path of a step across ranks: the chain of dependent work that set the step's
 * length, walked back from the step's end along the latest-finishing predecessor and, at each
 * collective, through the rank that arrived last.
 *
 * The graph (one per step): every rank's device tasks are nodes; a task's predecessor on its
 * rank is the task that finished last before it started (stream order, and across the rank's
 * streams the one it could have waited for), the gap between them an edge of fixed length
 * (the device idle, or waiting for the host's launch). A collective (matched across ranks by
 * group, name and order, analysis/collectives.h) ends on each rank its transfer time after its
 * last member arrived; a P2P receive ends its transfer time after the later of itself and its
 * send; an event wait ends its latency after the rank's task it waited for. The step's end follows
 * the latest-ending task of all ranks by the time it did (the host's part of the step after the
 * device work); tasks with no predecessor start where they did.
 *
 * The same graph, with some task durations scaled, gives the what-if: the times are computed
 * again in the graph's order and the path walked again; the schedule itself (which task ran
 * after which) is not simulated. Pure functions over plain entries; the query layer fills them
 * from the model. */
#ifndef TL_CRITPATH_H
#define TL_CRITPATH_H
#include "model/trace.h"
#include "util/strpool.h"

#include <stddef.h>
#include <stdint.h>

/* What a segment of the path is. */
typedef enum cp_kind {
	CP_COMPUTE,     /* a compute kernel (or another device task) */
	CP_COMM,        /* a communication op's transfer, after its last member arrived */
	CP_MEMORY,      /* a memory copy */
	CP_HOST_LAUNCH, /* the device idle while the host had not yet launched the next task */
	CP_IDLE,        /* the device idle, the next task already launched (or nothing known) */
	CP_WAITING,     /* before the rank's first task or after its last inside the step: the
	                   step's host range, no device work */
	CP__COUNT
} cp_kind;
extern const char *const cp_kind_name[CP__COUNT];

/* What a task of a rank is: its kind, and a communication op's group. */
typedef struct cp_lane {
	const tl_track *t; /* the track whose slices v points into (its accessors read them) */
	const tl_slice *v; /* the track's slices (from some slice of it on) */
	uint8_t kind;      /* CP_COMPUTE, CP_COMM, CP_MEMORY, or CP_WAITING: a stream's wait for
	                      an event (EVENT_WAIT), which ends when the task that finished last
	                      before its end on the rank (the event's) has */
	const char *group; /* communication: the op's group ("" none); NULL otherwise */
} cp_lane;

/* One rank's device tasks inside the step: the model's slices, borrowed (a graph of a step of
 * millions of tasks holds 32 bits of each, no copy): task i is lanes[task[i] >> shift].v[task[i]
 * & (2^shift - 1)], of the lane's track t. A task starting before the step starts at the step's
 * start (t0); every task ends after it starts there. */
typedef struct cp_rank {
	int rank;             /* the rank's number */
	const uint32_t *task; /* by start (as cut at t0): each task's lane and slice there */
	unsigned shift;       /* 1 .. 31 */
	size_t n;
	const cp_lane *lanes;
	/* The task with the latest end, the first such in task order, + 1 (0: not given, the
	 * graph looks): the step's end is found without reading every task's end again. */
	size_t last1;
	const tl_strpool *pool; /* the slices' names */
	/* For a gap on the path before a task: the host start of the launch of the device work
	 * starting at dev_start, or INT64_MIN (NULL: none). Asked only for the gaps on the path,
	 * so that launches are read only for ranks it crosses. *at is the walk's own word for the
	 * rank, 0 at first, which the function may keep a cursor in (the walk asks back in time).
	 */
	int64_t (*launch)(void *ctx, int64_t dev_start, uint64_t *at);
	void *ctx;
} cp_rank;

/* Task i of a packed task array (cp_rank's task, lanes and shift; the step's own while it is
 * made, query/critpath.c): its lane, and its slice in that lane. */
static inline const cp_lane *
cp_task_lane(const cp_lane *lanes, const uint32_t *task, unsigned shift, size_t i)
{
	return &lanes[task[i] >> shift];
}

static inline const tl_slice *
cp_task_slice(const cp_lane *l, const uint32_t *task, unsigned shift, size_t i)
{
	return &l->v[task[i] & ((UINT32_C(1) << shift) - 1)];
}

/* A P2P pair of the step: rank indexes into the cp_rank array, the ops' starts. */
typedef struct cp_p2p {
	size_t send_rank, recv_rank;
	int64_t send_start, recv_start;
} cp_p2p;

/* A what-if: the durations of the compute, memory and communication tasks whose name matches
 * pattern (fnmatch; NULL any) on rank (-1 any) are scaled by permille / 1000. */
typedef struct cp_scale {
	const char *pattern;
	int rank;
	int permille;
} cp_scale;

/* 16 bytes: a path holds about one a task of the ranks it crosses, every step's kept to the
 * end. The segments of a step tile it: one ends where the next starts (cp_seg_end). The name
 * and the rank with its stage are indexes into the step's tables (cp_seg_name, cp_seg_rank,
 * cp_seg_stage). */
typedef struct cp_seg {
	int64_t start;
	uint32_t name;     /* into the step's names */
	unsigned who : 29; /* into the step's who: the rank and the stage */
	unsigned kind : 3; /* cp_kind */
} cp_seg;
#define CP_WHO_MAX ((1u << 29) - 1) /* a step's who entries: fewer than this */
_Static_assert(CP__COUNT <= 8, "cp_seg.kind is 3 bits");

/* A segment's rank (number; -1 none) and stage (filled by the caller; -1 none). */
typedef struct cp_who {
	int rank;
	int stage;
} cp_who;

typedef struct cp_blame {
	int rank;
	uint8_t kind;
	int64_t ns;
} cp_blame;

typedef struct cp_name_ns {
	const char *name;
	int64_t ns;
} cp_name_ns;

/* One of a step's longest segments (critpath_longest), and its length. */
typedef struct cp_long {
	cp_seg g;
	int64_t len;
} cp_long;

/* Consecutive segments of one rank (cp_seg_rank), [start, end). */
typedef struct cp_run {
	int64_t start, end;
	int rank;
} cp_run;

typedef struct cp_step {
	int64_t step;       /* STEP_TIME id, -1 */
	int64_t start, end; /* ns: the step (the what-if's end when scaled) */
	cp_seg *seg;        /* tiling [start, end), by start; NULL once lean (critpath_lean) */
	size_t nseg;        /* (lean: still their count) */
	cp_long *longest;   /* lean: the nlong longest segments, critpath_longest's order */
	size_t nlong;
	cp_run *runs; /* lean: the runs of one rank, by start, tiling [start, end) */
	size_t nruns;
	const char **names; /* the segments' names (borrowed strings; "" for idle and waiting) */
	size_t nnames;
	cp_who *who; /* the segments' ranks and stages, distinct */
	size_t nwho;
	cp_blame *blame; /* by rank, then kind; nonzero only; sum = end - start */
	size_t nblame;
	cp_name_ns *ops; /* compute time on the path by name, longest first */
	size_t nops;
	size_t collectives; /* collective instances matched in the step */
	size_t jumps;       /* times the path moved to another rank */
} cp_step;

/* The path of one step [t0, t1) over ranks[0..nranks) with the step's P2P pairs, durations
 * scaled by sc[0..nsc) (none: the step as it ran). out is the caller's; free with
 * critpath_step_free. Segments' stage is -1 (one who entry a rank the path crosses). Beside the
 * caller's 4 bytes a task the graph takes 8 a communication op or event wait and 4 a task of the
 * ranks the path crosses; with a what-if 20 a task (every rank's predecessors, and the times). A
 * step has fewer than 2^31 tasks. */
void critpath_step(const cp_rank *ranks, size_t nranks, const cp_p2p *p2p, size_t np2p, int64_t t0,
                   int64_t t1, const cp_scale *sc, size_t nsc, cp_step *out);
/* As critpath_step, the segments written into mem (room for cap of them; malloc'ed, or NULL),
 * which becomes out's: a lean step's memory (critpath_lean_take) for the next step's path, its
 * pages faulted in once, not again at each step. */
void critpath_step_into(const cp_rank *ranks, size_t nranks, const cp_p2p *p2p, size_t np2p,
                        int64_t t0, int64_t t1, const cp_scale *sc, size_t nsc, cp_seg *mem,
                        size_t cap, cp_step *out);
void critpath_step_free(cp_step *);
/* The n longest segments of s (not lean) into out (room for n), longest first, equal lengths
 * by start; their count. */
size_t critpath_longest(const cp_step *s, size_t n, cp_long *out);
/* Lets s's segments go but for their count, its n longest (critpath_longest) and its runs of
 * one rank: what a report of the path's longest segments and critpath_meets read. */
void critpath_lean(cp_step *s, size_t n);
/* As critpath_lean, the segments' memory handed back (room for *room of them; NULL: none), not
 * freed. */
cp_seg *critpath_lean_take(cp_step *s, size_t n, size_t *room);
/* Whether a segment of s of rank (< 0: any) overlaps [t0, t1) (lean or not). */
int critpath_meets(const cp_step *s, int rank, int64_t t0, int64_t t1);

static inline const char *
cp_seg_name(const cp_step *s, const cp_seg *g)
{
	return s->names[g->name];
}

static inline int
cp_seg_rank(const cp_step *s, const cp_seg *g)
{
	return s->who[g->who].rank;
}

static inline int
cp_seg_stage(const cp_step *s, const cp_seg *g)
{
	return s->who[g->who].stage;
}

/* The end of segment k of s: the next one's start, the last one's the step's end. */
static inline int64_t
cp_seg_end(const cp_step *s, size_t k)
{
	return k + 1 < s->nseg ? s->seg[k + 1].start : s->end;
}

/* Parses one what-if "PATTERN=-20%", "rank:3=+10%" or "rank:3:PATTERN=-20%" into *out
 * (pattern points into s, which must outlive it). 0, or -1 with the reason in err. */
int critpath_parse_scale(char *s, cp_scale *out, char *err, size_t errlen);

#endif
