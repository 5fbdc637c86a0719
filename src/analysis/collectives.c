#include "config.h"
#include "analysis/collectives.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
coll_type_p2p(const char *type)
{
	if (strcmp(type, "send") == 0)
		return 1;
	if (strcmp(type, "recv") == 0)
		return 2;
	if (strcmp(type, "sendrecv") == 0)
		return 3;
	static const char *const coll[] = {"allreduce", "allgather",  "reduce_scatter",
	                                   "broadcast", "all_to_all", "barrier",
	                                   "reduce",    "gather",     "scatter"};
	for (size_t i = 0; i < sizeof coll / sizeof *coll; i++)
		if (strcmp(type, coll[i]) == 0)
			return 0;
	return -1;
}

static int
has_ci(const char *s, const char *w)
{
	size_t m = strlen(w);
	int c = tolower((unsigned char)*w);
	for (; *s; s++) /* the first letter before the call (the critical path asks every op) */
		if (tolower((unsigned char)*s) == c && strncasecmp(s, w, m) == 0)
			return 1;
	return 0;
}

int
coll_p2p_kind(const char *name)
{
	int send = has_ci(name, "send"), recv = has_ci(name, "recv") || has_ci(name, "receive");
	if (send && recv)
		return 3; /* batchSendRecv: partners of both kinds, not a matched pair */
	return send ? 1 : recv ? 2 : 0;
}

static const char *
etype(const tl_coll_entry *e)
{
	return e->type != NULL ? e->type : "";
}

/* Point-to-point by the entry's type when the profile gave one, else by its name. */
static int
entry_p2p(const tl_coll_entry *e)
{
	int k = *etype(e) ? coll_type_p2p(etype(e)) : -1;
	return k >= 0 ? k : coll_p2p_kind(e->name);
}

/* Numbers the entries' groups and types in strcmp's order (ord), so that the sorts compare
 * integers for them (long, and mostly equal: a strcmp reads them whole); where two strings
 * share a hash, none is numbered (they compare strings). The names, each op's own, differ
 * early and are many: they stay compared as strings. */
static void
entries_order(tl_coll_entry *v, size_t n)
{
	const char **s = xreallocarray(NULL, n, sizeof *s);
	uint32_t *o = xreallocarray(NULL, n, sizeof *o);
	int ok = 1;
	for (size_t i = 0; i < n; i++)
		v[i].ordered = 0;
	for (int f = 0; f < 2 && ok; f++) {
		for (size_t i = 0; i < n; i++)
			s[i] = f == 0 ? v[i].group : etype(&v[i]);
		ok = sort_str_ordinals(s, n, o) == 0;
		for (size_t i = 0; i < n && ok; i++)
			v[i].ord[f] = o[i];
	}
	for (size_t i = 0; i < n; i++)
		v[i].ordered = ok;
	free(s);
	free(o);
}

/* By group, type and name, as strcmp orders them. */
static int
cmp_names(const tl_coll_entry *x, const tl_coll_entry *y)
{
	if (x->ordered && y->ordered) {
		for (int f = 0; f < 2; f++)
			if (x->ord[f] != y->ord[f])
				return x->ord[f] < y->ord[f] ? -1 : 1;
		return x->name == y->name ? 0 : strcmp(x->name, y->name);
	}
	int c = strcmp(x->group, y->group);
	if (c == 0)
		c = strcmp(etype(x), etype(y));
	if (c == 0)
		c = strcmp(x->name, y->name);
	return c;
}

static int
cmp_entry(const void *a, const void *b)
{
	const tl_coll_entry *x = a, *y = b;
	int c = cmp_names(x, y);
	if (c != 0)
		return c;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* An entry with its occurrence number among the rank's ops of the same group, name and step. */
typedef struct occ {
	const tl_coll_entry *e;
	size_t k;
} occ;

static int
cmp_occ(const void *a, const void *b)
{
	const occ *x = a, *y = b;
	int c = cmp_names(x->e, y->e);
	if (c != 0)
		return c;
	if (x->e->step != y->e->step)
		return x->e->step < y->e->step ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->e->rank > y->e->rank) - (x->e->rank < y->e->rank);
}

static int
cmp_coll(const void *a, const void *b)
{
	const tl_coll *x = a, *y = b;
	int c = strcmp(x->group, y->group);
	if (c != 0)
		return c;
	int64_t fx = x->ranks[0].arrive, fy = y->ranks[0].arrive;
	for (size_t i = 1; i < x->n; i++)
		fx = x->ranks[i].arrive < fx ? x->ranks[i].arrive : fx;
	for (size_t i = 1; i < y->n; i++)
		fy = y->ranks[i].arrive < fy ? y->ranks[i].arrive : fy;
	if (fx != fy)
		return fx < fy ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t
coll_match(tl_coll_entry *v, size_t n, tl_coll **out)
{
	*out = NULL;
	if (n == 0)
		return 0;
	entries_order(v, n);
	sort_unless_sorted(v, n, sizeof *v, cmp_entry);
	occ *o = xreallocarray(NULL, n, sizeof *o);
	size_t no = 0;
	for (size_t i = 0; i < n; i++) {
		if (entry_p2p(&v[i]) != 0)
			continue;
		size_t k = 0;
		if (no > 0) {
			const tl_coll_entry *p = o[no - 1].e;
			if (p->rank == v[i].rank && p->step == v[i].step &&
			    cmp_names(p, &v[i]) == 0)
				k = o[no - 1].k + 1;
		}
		o[no++] = (occ){&v[i], k};
	}
	if (no > 1)
		sort_unless_sorted(o, no, sizeof *o, cmp_occ);
	tl_coll *c = NULL;
	size_t nc = 0, cap = 0;
	for (size_t i = 0; i < no;) {
		size_t j = i + 1;
		while (j < no && o[j].k == o[i].k && o[j].e->step == o[i].e->step &&
		       cmp_names(o[j].e, o[i].e) == 0)
			j++;
		tl_coll x = {.group = o[i].e->group, .name = o[i].e->name, .step = o[i].e->step};
		const char *named = coll_type_str(x.name); /* (coll_type_norm's, walked once) */
		snprintf(x.op_type, sizeof x.op_type, "%s", *etype(o[i].e) ? etype(o[i].e) : named);
		x.named = strcmp(named, x.op_type) == 0;
		if (x.op_type[0] == '\0')
			coll_op_type(x.name, x.op_type, sizeof x.op_type);
		x.n = j - i;
		x.ranks = xreallocarray(NULL, x.n, sizeof *x.ranks);
		int64_t last = INT64_MIN, first = INT64_MAX;
		x.min_elapse = INT64_MAX;
		for (size_t m = 0; m < x.n; m++) {
			const tl_coll_entry *e = o[i + m].e;
			x.ranks[m] = (tl_coll_arrival){e->rank, e->start, e->end, 0};
			if (e->start > last) { /* ranks ascend: the lowest rank wins a tie */
				last = e->start;
				x.last_rank = e->rank;
			}
			first = e->start < first ? e->start : first;
			if (e->end - e->start < x.min_elapse)
				x.min_elapse = e->end - e->start;
		}
		for (size_t m = 0; m < x.n; m++)
			x.ranks[m].wait = last - x.ranks[m].arrive;
		x.skew = last - first;
		VEC_PUSH(c, nc, cap, x);
		i = j;
	}
	free(o);
	if (nc > 1)
		sort_unless_sorted(c, nc, sizeof *c, cmp_coll);
	for (size_t i = 0; i < nc; i++)
		c[i].index =
		    i > 0 && strcmp(c[i].group, c[i - 1].group) == 0 ? c[i - 1].index + 1 : 0;
	*out = c;
	return nc;
}

void
coll_free(tl_coll *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].ranks);
	free(v);
}
