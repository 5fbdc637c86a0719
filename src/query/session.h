/* Inside the query layer: the session's fields, shared by the files of src/query/ and by no one
 * else (the public API is query.h). */
#ifndef TL_QUERY_SESSION_H
#define TL_QUERY_SESSION_H
#include <pthread.h>

#include "loading/loading.h"
#include "query/query.h"

struct tl_query {
	tl_trace *tr; /* the session's trace: changed by tlq_open only (lanes, levels of detail) */
	tl_query_opts o;
	tl_stage_rules *rules;
	/* stage instances per rank (stages_of_rank), built by tlq_open: read-only afterwards */
	tl_stage_inst **inst;
	size_t *ninst;

	/* Computed on first use, under `lock`, then read-only until tlq_close: a query that
	 * fills one of these takes the lock, calls the need_* function and returns a pointer into
	 * the table, which stays valid (and unchanged) for the life of the session. */
	pthread_mutex_t lock;
	int have_stages;
	tl_stage_row *rows;
	size_t nrows;
	int have_imb;
	tl_imbalance *imb;
	size_t nimb;
	int have_pp;
	tl_pipeline pp;
	int have_slow;
	tl_slow_result slow;
	int have_bubbles;
	tl_rl_bubble *bubbles;
	size_t nbubbles;
	/* read from the profile on first use (they add to the ranks: host lanes, counters) */
	int have_host, have_counters;
	/* per rank, its link index (links.c, tlq_link_index), NULL until first asked for */
	tl_link_index **link_ix;
	/* every rank's launches, by device start (host.c: the range statistics' host-bound time) */
	int have_launches;
	tl_launch **launches;
	size_t *nlaunches;
	/* the viewer's list of the longest bubbles over all ranks, attributed on demand */
	int have_largest;
	tl_rl_bubble *largest;
	unsigned char *largest_done; /* per entry: attributed yet */
	size_t nlargest;
	/* dp.c's decode steps and rollout entries, made on first use (NULL: not yet), and how
	 * tlq_close frees them (dp.c's, so that the session calls nothing of the queries) */
	struct tl_dp_cache *dp;
	void (*dp_free)(struct tl_dp_cache *);
	/* progressive loading: the load ranks come from (NULL: none). Every rank of the load has
	 * its slot in tr->ranks from the start (slot[i], TLQ_SLOT_*: a placeholder, the first
	 * pass's small tables, the full rank, or gone); a slot's rank and stage instances are
	 * replaced as better ones come in, and what was replaced is kept in `retired` until
	 * tlq_close, so that no pointer handed out dangles. */
	struct tl_load_bg *load;
	unsigned char *slot;
	int renumbered; /* the load's end took the gone slots out (the views start over) */
	tl_rank **retired;
	size_t nretired, retcap;
	tl_stage_inst **retired_inst;
	size_t nretired_inst, ricap;
};

/* The session a const query may fill a table of: only under q->lock (see above). */
static inline tl_query *
tlq_mut(const tl_query *q)
{
	return (tl_query *)q;
}

/* Runs fn for every rank, ranks in parallel (one thread per core at most). fn must touch only
 * its rank's results. */
void tlq_per_rank(tl_query *, void (*fn)(tl_query *, size_t rank, void *arg), void *arg);

/* Builds the level of detail (model/lod.h) of every track that has none, ranks in parallel. */
void tlq_lod_build(tl_query *);

/* comm.c: every rank's communication ops as collective entries, with the group and normalised
 * type of the rank's gathered communication table where it has one; free with
 * tlq_coll_entries_free. */
size_t tlq_coll_entries(const tl_trace *tr, tl_coll_entry **v, void **keep);
void tlq_coll_entries_free(const tl_trace *tr, tl_coll_entry *v, void *keep);

#endif
