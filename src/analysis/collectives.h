/* Collective instances across ranks: the same call of a collective on every rank of its group,
 * matched from each rank's communication ops, with each rank's arrival (its op's start), its
 * wait for the last rank to arrive, and the last arriver: what makes a slow rank visible. Also
 * the point-to-point pairs (a send and the receive it pairs with) and their waits. Pure
 * functions over plain entries; the query layer fills them from the model. */
#ifndef TL_COLLECTIVES_H
#define TL_COLLECTIVES_H
#include <stddef.h>
#include <stdint.h>

#include "model/comm.h"

/* One communication op on one rank. Strings are borrowed and must outlive the result. */
typedef struct tl_coll_entry {
	int rank;
	size_t ri;          /* the rank's index in the trace */
	const char *group;  /* group name ("" when none) */
	const char *name;   /* op name as in the profile: "hcom_allReduce__865_0_1" */
	const char *type;   /* the normalised collective ("allreduce", coll_type_norm), NULL or ""
	                       when the profile does not say: then the name's */
	int64_t step;       /* STEP_TIME id, -1 */
	int64_t start, end; /* ns */
	uint32_t ord[2];    /* coll_match's: group and type numbered in strcmp's order over the
	                       entries (sort_str_ordinals), when ordered */
	int ordered;
} tl_coll_entry;

typedef struct tl_coll_arrival {
	int rank;
	int64_t arrive; /* the rank's op start, ns */
	int64_t end;    /* the rank's op end, ns */
	int64_t wait;   /* last arrival - arrive: how long the rank waited for the last one */
} tl_coll_arrival;

typedef struct tl_coll {
	const char *group, *name; /* borrowed from the entries */
	char op_type[64]; /* the normalised collective ("allreduce", coll_type_norm), else the
	                     name without its trailing _N parts */
	int named;        /* the name says the type ("hcom_allReduce_..."), not only the profile's
	                     args or the call that launched it ("ncclDevKernel_Generic") */
	int64_t step;
	size_t index;           /* order of the instance in its group, by first arrival */
	tl_coll_arrival *ranks; /* by rank; owned */
	size_t n;
	int last_rank;      /* the rank that arrived last (the lowest on a tie) */
	int64_t skew;       /* last arrival - first arrival */
	int64_t min_elapse; /* the shortest op among the ranks: the transfer itself */
} tl_coll;

/* Whether a normalised type is point-to-point: as coll_p2p_kind; -1 when type is none of the
 * normalised names. */
int coll_type_p2p(const char *type);
/* Whether an op name is a point-to-point send or receive (1 send, 2 receive, 0 neither). */
int coll_p2p_kind(const char *name);

/* Matches the entries (reordered in place) into instances: the k-th op of a name in a group
 * and step on each rank is the same call (ranks call a group's collectives in the same order).
 * Point-to-point ops are left out. Instances by group, then index. Returns the count; free
 * with coll_free. */
size_t coll_match(tl_coll_entry *v, size_t n, tl_coll **out);
void coll_free(tl_coll *v, size_t n);

#endif
