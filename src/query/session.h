/* Inside the query layer: the session's fields, shared by the files of src/query/ and by no one
 * else (the public API is query.h). */
#ifndef TL_QUERY_SESSION_H
#define TL_QUERY_SESSION_H
#include <pthread.h>

#include "loading/loading.h"
#include "query/query.h"

/* The session's optional parts: the tables only some queries need, each built on first use
 * (tlq_need), then read-only until tlq_close frees it. One row a part: its name; the part itself
 * (struct tlq_part: the function that computes it and the one that frees it, NULL when it keeps
 * nothing of its own) is defined with TLQ_PART_DEFINE by the file of its concept, named in the
 * row's comment, and handed to the session by pointer (tlq_need(q, &tlq_part_NAME)), so that the
 * session calls nothing of the queries' files (tests/check_layers.sh: no cycle). A compute
 * function runs once per session, under the session's lock, which it holds: it fills its
 * fields of struct tlq_state and may need another part (tlq_need_locked, never tlq_need).
 * tlq_close calls the free function of every part that was computed.
 *
 * Adding a part: a row here, its fields in struct tlq_state, its functions and TLQ_PART_DEFINE
 * in the file of its concept, and the query there that calls tlq_need before it reads the
 * fields. */
#define TLQ_PARTS(X)                                                                               \
	X(STAGES, stages)       /* stages.c: the stage rows */                                     \
	X(IMBALANCE, imbalance) /* stages.c: DP imbalance per (stage, step) */                     \
	X(PIPELINE, pipeline)   /* stages.c: the pipeline */                                       \
	X(SLOW, slow)           /* stages.c: slow-rank votes */                                    \
	X(BUBBLES, bubbles)     /* bubbles.c: every rank's largest bubbles */                      \
	X(LARGEST, largest)     /* bubbles.c: the largest over all ranks */                        \
	X(HOST, host)           /* host.c: the host lanes, read into the ranks */                  \
	X(LAUNCHES, launches)   /* host.c: every rank's launches by device start */                \
	X(COUNTERS, counters)   /* memory.c: the counters, read into the ranks */                  \
	X(LINKS, links)         /* session.c: every rank's link index */                           \
	X(DP_STEPS, dp_steps)   /* dp.c: every rank's decode steps */                              \
	X(DP, dp)               /* dp.c: the rollout entries */                                    \
	X(DP_WHOLE, dp_whole)   /* dp.c: the whole capture's entry */

typedef enum tlq_part_id {
#define TLQ_PART_ENUM(NAME, name) TLQ_PART_##NAME,
	TLQ_PARTS(TLQ_PART_ENUM)
#undef TLQ_PART_ENUM
	    TLQ_NPARTS
} tlq_part_id;

struct tlq_state;

typedef struct tlq_part {
	tlq_part_id id;
	void (*compute)(const tl_query *);
	void (*free)(struct tlq_state *); /* NULL: nothing of its own */
} tlq_part;

#define TLQ_PART_EXTERN(NAME, name) extern const tlq_part tlq_part_##name;
TLQ_PARTS(TLQ_PART_EXTERN)
#undef TLQ_PART_EXTERN

/* Defines part tlq_part_name (its row: NAME). */
#define TLQ_PART_DEFINE(NAME, name, compute, free_fn)                                              \
	const tlq_part tlq_part_##name = {TLQ_PART_##NAME, compute, free_fn}

struct tl_dp_cache;

/* A rank's max longest idle gaps, longest first (bubble_gaps_of_rank's list): n < max when
 * they are all the rank has. */
struct tlq_gaps {
	const tl_rank *r; /* the rank they were found on, NULL: none yet */
	tl_gap *v;
	size_t n, max;
};

/* What a query changes in a session it holds const: the optional parts and the progressive
 * load's bookkeeping, all under `lock`. The session points to it, so that a const session
 * fills it without a cast; nothing else of the session changes after tlq_open (but the slots,
 * on tlq_poll: below). */
struct tlq_state {
	pthread_mutex_t lock;
	/* once-flags, read and set under the lock: the part computed (NULL: not yet), kept for
	 * tlq_close to free it */
	const tlq_part *done[TLQ_NPARTS];

	/* STAGES */
	tl_stage_row *rows;
	size_t nrows;
	/* IMBALANCE */
	tl_imbalance *imb;
	size_t nimb;
	/* PIPELINE */
	tl_pipeline pp;
	/* SLOW */
	tl_slow_result slow;
	/* BUBBLES */
	tl_rl_bubble *bubbles;
	size_t nbubbles;
	/* LARGEST: the viewer's list of the longest bubbles over all ranks (the first asker's
	 * largest_max of them), attributed on demand */
	size_t largest_max;
	tl_rl_bubble *largest;
	unsigned char *largest_done; /* per entry: attributed yet */
	size_t nlargest;
	/* LAUNCHES: every rank's launches, by device start (the range statistics' host-bound
	 * time), for the nranks_launches ranks of the computing */
	tl_launch **launches;
	size_t *nlaunches, nranks_launches;
	/* LINKS: per rank, its link index (tlq_link_index), NULL until first asked for */
	tl_link_index **link_ix;
	size_t nlink_ix;
	/* DP_STEPS, DP, DP_WHOLE: dp.c's decode steps, rollout entries and whole-capture entry */
	struct tl_dp_cache *dp;

	/* GAPS (not a part: it changes): each rank's longest idle gaps, kept from the walk of the
	 * rank's unions that found them for the next asker (bubbles.c: the bubble table and the
	 * stall rule ask for the same gaps). By slot, each noting the rank it was found on: a slot
	 * whose rank changed (tlq_poll) or moved (the load's end) finds them again. Under
	 * gaps_lock, not lock: the bubble table's per-rank threads ask while its compute holds
	 * lock. */
	pthread_mutex_t gaps_lock;
	struct tlq_gaps *gaps;
	size_t ngaps;

	/* progressive loading: what tlq_poll replaced, kept until tlq_close so that no pointer
	 * handed out dangles, and whether the load's end took gone slots out */
	tl_rank **retired;
	size_t nretired, retcap;
	tl_stage_inst **retired_inst;
	size_t nretired_inst, ricap;
	int renumbered;
};

struct tl_query {
	tl_trace *tr; /* the session's trace: changed by tlq_open only (lanes, levels of detail) */
	tl_query_opts o;
	tl_stage_rules *rules;
	/* stage instances per rank (stages_of_rank), built by tlq_open: read-only afterwards */
	tl_stage_inst **inst;
	size_t *ninst;
	struct tlq_state *st; /* owned: what queries on the const session fill */
	/* progressive loading: the load ranks come from (NULL: none). Every rank of the load has
	 * its slot in tr->ranks from the start (slot[i], TLQ_SLOT_*: a placeholder, the first
	 * pass's small tables, the full rank, or gone); a slot's rank and stage instances are
	 * replaced as better ones come in (tlq_poll, under st->lock), what was replaced retired
	 * to st. */
	struct tl_load_bg *load;
	unsigned char *slot;
};

/* Computes part p unless it is: on return its fields are filled and stay unchanged until
 * tlq_close. tlq_need takes the session's lock; tlq_need_locked is for who holds it (a compute
 * function, or a query that reads or adds to a part under the lock). */
void tlq_need(const tl_query *, const tlq_part *p);
void tlq_need_locked(const tl_query *, const tlq_part *p);
/* Whether part p is computed; under the lock. */
int tlq_done_locked(const tl_query *, const tlq_part *p);

/* Runs fn for every rank, ranks in parallel (one thread per core at most). fn must touch only
 * its rank's results. */
void tlq_per_rank(const tl_query *, void (*fn)(const tl_query *, size_t rank, void *arg),
                  void *arg);

/* bubbles.c: the max longest idle gaps of rank ri, longest first, as bubble_gaps_of_rank finds
 * them, from the session's memo when it holds them (the bubble table and the stall rule share
 * one walk of the rank's unions); *out is the caller's. Any thread. */
size_t tlq_gaps(const tl_query *, size_t ri, size_t max, tl_gap **out);
/* The fewest gaps tlq_gaps finds in a walk: the stall rule's first ask, so that the bubble
 * table's (bubbles_per_rank, 10) is answered by the same walk, whichever comes first. */
#define TLQ_GAPS_FIRST 64
/* bubble_gaps_iter_init over tlq_gaps: the same gaps in the same order (a Free lane's level of
 * detail is read lazily as before). */
void tlq_gaps_iter_init(const tl_query *, size_t ri, size_t max, bubble_gaps_iter *it);

/* Builds the level of detail (model/lod.h) of every track that has none, ranks in parallel. */
void tlq_lod_build(const tl_query *);

/* comm.c: every rank's communication ops as collective entries, with the group and normalised
 * type of the rank's gathered communication table where it has one; free with
 * tlq_coll_entries_free. */
size_t tlq_coll_entries(const tl_trace *tr, tl_coll_entry **v, void **keep);
void tlq_coll_entries_free(const tl_trace *tr, tl_coll_entry *v, void *keep);

#endif
