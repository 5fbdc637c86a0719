/* Module statistics (msprof-analyze module_statistic); the rule is in modules.h. */
#include "config.h"
#include "analysis/modules.h"
#include "util/satint.h"
#include "util/sort.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKWARD_PAD 1 /* ns: a synthesized parent range is this much wider on each side */

enum { N_MODULE, N_OP };

typedef struct node {
	int64_t start, end;
	uint32_t name; /* id in the stats' pool */
	int kind;      /* N_MODULE, N_OP */
	int backward;
	size_t ref;     /* N_OP: index into d->ops or d->links */
	size_t parent;  /* index of the enclosing module node; 0 is the root */
	int depth;      /* modules: 0 for the root */
	uint32_t chain; /* modules: their ancestors' names, "/"-joined (pool id) */
} node;

typedef struct tree {
	node *v;
	size_t n, cap;
} tree;

static int
cmp_event(const void *ctx, size_t i, size_t j)
{
	const node *x = &((const node *)ctx)[i], *y = &((const node *)ctx)[j];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the wider first: it holds the other */
	return (i > j) - (i < j);                /* and a stable sort */
}

/* The chain of m's ancestors' names, "/"-joined, without "/" at either end. */
static uint32_t
chain_of(tree *t, tl_strpool *pool, size_t m)
{
	size_t up[MODULES_MAX_DEPTH + 2], n = 0;
	for (size_t a = t->v[m].parent; n < MODULES_MAX_DEPTH + 2; a = t->v[a].parent) {
		up[n++] = a;
		if (a == 0)
			break;
	}
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		len += strpool_len(pool, t->v[up[i]].name) + 1;
	char *s = xmalloc(len + 1), *p = s;
	for (size_t i = n; i-- > 0;) {
		size_t l = strpool_len(pool, t->v[up[i]].name);
		memcpy(p, strpool_get(pool, t->v[up[i]].name), l);
		p += l;
		if (i > 0)
			*p++ = '/';
	}
	*p = '\0';
	char *b = s;
	while (*b == '/')
		b++;
	while (p > b && p[-1] == '/')
		*--p = '\0';
	uint32_t id = strpool_intern_cstr(pool, b);
	free(s);
	return id;
}

/* Builds the containment tree of t->v[1..n) (v[0] is the root, spanning everything): by
 * start, the wider first; a stack of modules; each node's parent is the innermost module on
 * the stack that holds it. Returns the nodes in that order (caller frees). */
static size_t *
tree_build(tree *t, tl_strpool *pool)
{
	size_t n = t->n - 1;
	size_t *ord = xreallocarray(NULL, n ? n : 1, sizeof *ord);
	for (size_t i = 0; i < n; i++)
		ord[i] = i + 1;
	sort_index(ord, n, cmp_event, t->v);
	size_t *stack = xreallocarray(NULL, n + 1, sizeof *stack), top = 0;
	stack[0] = 0;
	t->v[0].depth = 0;
	t->v[0].parent = 0;
	for (size_t k = 0; k < n; k++) {
		node *e = &t->v[ord[k]];
		while (top > 0 &&
		       (t->v[stack[top]].start > e->start || t->v[stack[top]].end < e->end))
			top--;
		e->parent = stack[top];
		if (e->kind == N_MODULE) {
			e->depth = t->v[stack[top]].depth + 1;
			if (e->depth <= MODULES_MAX_DEPTH + 1)
				e->chain = chain_of(t, pool, ord[k]);
			stack[++top] = ord[k];
		}
	}
	free(stack);
	return ord;
}

static int
in_any_backward(const tree *t, size_t m)
{
	for (size_t a = m;; a = t->v[a].parent) {
		if (t->v[a].backward)
			return 1;
		if (a == 0)
			return 0;
	}
}

static void
tree_root(tree *t, int64_t lo, int64_t hi)
{
	t->n = 0;
	node root = {.start = lo, .end = hi, .kind = N_MODULE};
	VEC_PUSH(t->v, t->n, t->cap, root);
}

/* ---- 1. backward modules ------------------------------------------------------------------ */

typedef struct fmap { /* a forward operator in its module, joined to a link */
	uint32_t chain, module;
	int64_t mstart, mend, fstart;
	size_t link;
} fmap;

static int
cmp_link_key(const void *ctx, size_t a, size_t b)
{
	const tl_module_data *d = ctx;
	const tl_mod_link *x = &d->links[a], *y = &d->links[b];
	if (x->fwd_name != y->fwd_name)
		return x->fwd_name < y->fwd_name ? -1 : 1;
	if (x->fwd_start != y->fwd_start)
		return x->fwd_start < y->fwd_start ? -1 : 1;
	return x->fwd_end != y->fwd_end ? (x->fwd_end < y->fwd_end ? -1 : 1) : 0;
}

typedef struct bwd_ctx {
	const tl_module_data *d;
	const fmap *m;
} bwd_ctx;

static int
cmp_map_bwd(const void *ctx, size_t i, size_t j)
{
	const bwd_ctx *c = ctx;
	int64_t x = c->d->links[c->m[i].link].bwd_start, y = c->d->links[c->m[j].link].bwd_start;
	return x != y ? (x < y ? -1 : 1) : 0;
}

static int
cmp_map_fwd(const void *a, const void *b)
{
	const fmap *x = a, *y = b;
	if (x->mstart != y->mstart)
		return x->mstart < y->mstart ? -1 : 1;
	if (x->fstart != y->fstart)
		return x->fstart < y->fstart ? -1 : 1;
	return (x->link > y->link) - (x->link < y->link);
}

/* Adds the synthesized backward modules to mods (parents first, then the modules). */
static void
backward_modules(const tl_module_data *d, tl_strpool *pool, tree *mods, int64_t lo, int64_t hi)
{
	if (d->nlinks == 0 || mods->n <= 1)
		return;
	tree t = {0};
	tree_root(&t, lo, hi);
	for (size_t i = 1; i < mods->n; i++)
		VEC_PUSH(t.v, t.n, t.cap, mods->v[i]);
	for (size_t i = 0; i < d->nlinks; i++) {
		node f = {.start = d->links[i].fwd_start,
		          .end = d->links[i].fwd_end,
		          .kind = N_OP,
		          .ref = i};
		VEC_PUSH(t.v, t.n, t.cap, f);
	}
	free(tree_build(&t, pool));
	/* forward operators in their modules, by module start then operator start */
	fmap *m = NULL;
	size_t nm = 0, mcap = 0;
	for (size_t i = 1; i < t.n; i++) {
		const node *f = &t.v[i], *p = &t.v[f->parent];
		if (f->kind != N_OP || p->depth > MODULES_MAX_DEPTH)
			continue;
		if (p->name == 0 && p->chain == 0) /* outside every (named) module */
			continue;
		fmap x = {p->chain, p->name, p->start, p->end, d->links[f->ref].fwd_start, f->ref};
		VEC_PUSH(m, nm, mcap, x);
	}
	qsort(m, nm, sizeof *m, cmp_map_fwd);
	/* joined on (name, start, end) of the forward operator to every link with that key */
	size_t *byk = xreallocarray(NULL, d->nlinks, sizeof *byk);
	for (size_t i = 0; i < d->nlinks; i++)
		byk[i] = i;
	sort_index(byk, d->nlinks, cmp_link_key, d);
	fmap *j = NULL;
	size_t nj = 0, jcap = 0;
	for (size_t i = 0; i < nm; i++) {
		const tl_mod_link *l = &d->links[m[i].link];
		size_t a = 0, b = d->nlinks;
		while (a < b) { /* the first link with a key not below l's */
			size_t mid = a + (b - a) / 2;
			const tl_mod_link *x = &d->links[byk[mid]];
			int below = x->fwd_name != l->fwd_name     ? x->fwd_name < l->fwd_name
			            : x->fwd_start != l->fwd_start ? x->fwd_start < l->fwd_start
			                                           : x->fwd_end < l->fwd_end;
			if (below)
				a = mid + 1;
			else
				b = mid;
		}
		for (; a < d->nlinks; a++) {
			const tl_mod_link *x = &d->links[byk[a]];
			if (x->fwd_name != l->fwd_name || x->fwd_start != l->fwd_start ||
			    x->fwd_end != l->fwd_end)
				break;
			fmap y = m[i];
			y.link = byk[a];
			VEC_PUSH(j, nj, jcap, y);
		}
	}
	size_t *ord = xreallocarray(NULL, nj ? nj : 1, sizeof *ord);
	for (size_t i = 0; i < nj; i++)
		ord[i] = i;
	bwd_ctx bc = {d, j};
	sort_index(ord, nj, cmp_map_bwd, &bc);
	/* runs of the same module instance */
	node *par = NULL, *mod = NULL;
	size_t np = 0, pcap = 0, nmod = 0, modcap = 0;
	for (size_t i = 0; i < nj;) {
		const fmap *g = &j[ord[i]];
		int64_t s = INT64_MAX, e = INT64_MIN;
		size_t k = i;
		for (; k < nj; k++) {
			const fmap *h = &j[ord[k]];
			if (h->chain != g->chain || h->module != g->module ||
			    h->mstart != g->mstart || h->mend != g->mend)
				break;
			const tl_mod_link *l = &d->links[h->link];
			if (l->bwd_start < s)
				s = l->bwd_start;
			if (l->bwd_end > e)
				e = l->bwd_end;
		}
		if (g->chain != 0) {
			node p = {.start = s - BACKWARD_PAD,
			          .end = e + BACKWARD_PAD,
			          .name = g->chain,
			          .kind = N_MODULE,
			          .backward = 1};
			VEC_PUSH(par, np, pcap, p);
		}
		node x = {.start = s, .end = e, .name = g->module, .kind = N_MODULE, .backward = 1};
		VEC_PUSH(mod, nmod, modcap, x);
		i = k;
	}
	for (size_t i = 0; i < np; i++)
		VEC_PUSH(mods->v, mods->n, mods->cap, par[i]);
	for (size_t i = 0; i < nmod; i++)
		VEC_PUSH(mods->v, mods->n, mods->cap, mod[i]);
	free(par);
	free(mod);
	free(ord);
	free(j);
	free(byk);
	free(m);
	free(t.v);
}

/* ---- 2, 3. operators in their modules ------------------------------------------------------ */

typedef struct frow { /* one operator in one module instance */
	uint32_t parent, module, op, klist, seq;
	int64_t mstart, mend, ostart, device;
	size_t nk, order, seq_id, group;
	size_t opi; /* index into d->ops */
	int backward;
} frow;

/* ---- 4. aggregation ------------------------------------------------------------------------- */

typedef struct row_ctx {
	const frow *r;
	const tl_strpool *pool;
} row_ctx;

static int
cmp_u32str(const tl_strpool *pool, uint32_t a, uint32_t b)
{
	return a == b ? 0 : strcmp(strpool_get(pool, a), strpool_get(pool, b));
}

static int
cmp_row_time(const void *a, const void *b)
{
	const frow *x = a, *y = b;
	if (x->mstart != y->mstart)
		return x->mstart < y->mstart ? -1 : 1;
	if (x->ostart != y->ostart)
		return x->ostart < y->ostart ? -1 : 1;
	return (x->group > y->group) - (x->group < y->group); /* group: the traversal order */
}

static int
cmp_instance(const void *ctx, size_t i, size_t j)
{
	const frow *x = &((const row_ctx *)ctx)->r[i], *y = &((const row_ctx *)ctx)->r[j];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->mstart != y->mstart)
		return x->mstart < y->mstart ? -1 : 1;
	return x->mend != y->mend ? (x->mend < y->mend ? -1 : 1) : 0;
}

static int
cmp_key(const void *ctx, size_t i, size_t j)
{
	const row_ctx *rc = ctx;
	const frow *x = &rc->r[i], *y = &rc->r[j];
	int c;
	if ((c = cmp_u32str(rc->pool, x->parent, y->parent)) != 0 ||
	    (c = cmp_u32str(rc->pool, x->module, y->module)) != 0 ||
	    (c = cmp_u32str(rc->pool, x->op, y->op)) != 0)
		return c;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if ((c = cmp_u32str(rc->pool, x->klist, y->klist)) != 0)
		return c;
	return x->seq_id != y->seq_id ? (x->seq_id < y->seq_id ? -1 : 1) : 0;
}

typedef struct agg {
	uint32_t parent, module, op, klist;
	size_t order, seq_id, nk, key; /* key: its place in the grouping's sorted keys */
	size_t opi;                    /* its first operator (index into d->ops) */
	int64_t mstart, mend, ostart, total;
	uint64_t count;
	int backward;
	int suffix; /* -1: none */
} agg;

static int
cmp_agg_start(const void *a, const void *b)
{
	const agg *x = a, *y = b;
	if (x->ostart != y->ostart)
		return x->ostart < y->ostart ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static int
cmp_agg_final(const void *a, const void *b)
{
	const agg *x = a, *y = b;
	if (x->ostart != y->ostart)
		return x->ostart < y->ostart ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static int
cmp_agg_name(const void *ctx, size_t i, size_t j)
{
	const agg *x = &((const agg *)ctx)[i], *y = &((const agg *)ctx)[j];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->module != y->module ? (x->module < y->module ? -1 : 1) : 0;
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The same module name next to itself with different operator sequences: _0, _1, ... by
 * sequence id, within each run of neighbouring rows (aggs in op_start order). */
static void
distinguish(agg *g, size_t n)
{
	size_t *o = xreallocarray(NULL, n ? n : 1, sizeof *o);
	for (size_t i = 0; i < n; i++)
		o[i] = i;
	sort_index(o, n, cmp_agg_name, g);
	size_t *ids = xreallocarray(NULL, n ? n : 1, sizeof *ids);
	for (size_t i = 0; i < n;) {
		size_t k = i + 1; /* a run: same name, consecutive places */
		while (k < n && g[o[k]].parent == g[o[i]].parent &&
		       g[o[k]].module == g[o[i]].module && o[k] == o[k - 1] + 1)
			k++;
		size_t nid = 0;
		for (size_t x = i; x < k; x++)
			ids[nid++] = g[o[x]].seq_id;
		qsort(ids, nid, sizeof *ids, cmp_size);
		size_t u = 0;
		for (size_t x = 0; x < nid; x++)
			if (u == 0 || ids[u - 1] != ids[x])
				ids[u++] = ids[x];
		if (u > 1)
			for (size_t x = i; x < k; x++) {
				size_t *p = bsearch(&g[o[x]].seq_id, ids, u, sizeof *ids, cmp_size);
				g[o[x]].suffix = (int)(p - ids);
			}
		i = k;
	}
	free(ids);
	free(o);
}

/* The data's strings in the stats' pool: ids comparable, empty string 0. */
static uint32_t *
map_strings(const tl_module_data *d, tl_strpool *pool)
{
	uint32_t nstr = strpool_count(d->pool);
	uint32_t *map = xreallocarray(NULL, nstr ? nstr : 1, sizeof *map);
	for (uint32_t i = 0; i < nstr; i++)
		map[i] = strpool_intern(pool, strpool_get(d->pool, i), strpool_len(d->pool, i));
	return map;
}

/* The whole tree in t: the module ranges (with the backward modules synthesized from the
 * links), then the operators with kernels, under a root spanning all of them. Returns the
 * traversal order (tree_build). */
static size_t *
build_tree(const tl_module_data *d, const uint32_t *map, tl_strpool *pool, tree *t)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	tree mods = {0};
	tree_root(&mods, 0, 0);
	/* the ranges in the order read; equal ranges keep it (the tree sorts by start) */
	for (size_t i = 0; i < d->nranges; i++) {
		node x = {.start = d->ranges[i].start,
		          .end = d->ranges[i].end,
		          .name = map[d->ranges[i].name],
		          .kind = N_MODULE};
		VEC_PUSH(mods.v, mods.n, mods.cap, x);
		lo = x.start < lo ? x.start : lo;
		hi = x.end > hi ? x.end : hi;
	}
	for (size_t i = 0; i < d->nlinks; i++) {
		lo = d->links[i].fwd_start < lo ? d->links[i].fwd_start : lo;
		hi = d->links[i].fwd_end > hi ? d->links[i].fwd_end : hi;
	}
	/* links keyed by the stats' pool ids */
	tl_module_data dl = *d;
	dl.links = xreallocarray(NULL, d->nlinks ? d->nlinks : 1, sizeof *dl.links);
	for (size_t i = 0; i < d->nlinks; i++) {
		dl.links[i] = d->links[i];
		dl.links[i].fwd_name = map[d->links[i].fwd_name];
	}
	backward_modules(&dl, pool, &mods, lo, hi);
	free(dl.links);

	/* the whole tree: modules, then the operators with kernels */
	for (size_t i = 0; i < d->nops; i++) {
		const tl_mod_op *op = &d->ops[i];
		lo = op->start < lo ? op->start : lo;
		hi = op->end > hi ? op->end : hi;
		for (size_t k = 0; k < op->nk; k++) {
			lo = d->k[op->k0 + k].start < lo ? d->k[op->k0 + k].start : lo;
			hi = d->k[op->k0 + k].end > hi ? d->k[op->k0 + k].end : hi;
		}
	}
	tree_root(t, lo, hi);
	for (size_t i = 1; i < mods.n; i++)
		VEC_PUSH(t->v, t->n, t->cap, mods.v[i]);
	for (size_t i = 0; i < d->nops; i++) {
		node x = {.start = d->ops[i].start,
		          .end = d->ops[i].end,
		          .name = map[d->ops[i].name],
		          .kind = N_OP,
		          .ref = i};
		VEC_PUSH(t->v, t->n, t->cap, x);
	}
	free(mods.v);
	return tree_build(t, pool);
}

/* One row per operator in its module, in traversal order, sorted by module start and
 * operator start; *nrow gets their number. */
static frow *
op_rows(const tl_module_data *d, const tree *t, const size_t *ord, tl_strpool *pool, size_t *nrow)
{
	frow *r = NULL;
	size_t nr = 0, rcap = 0;
	char *kb = NULL;
	size_t kbcap = 0;
	for (size_t k = 0; k + 1 < t->n; k++) {
		const node *e = &t->v[ord[k]], *m = &t->v[e->parent];
		if (e->kind != N_OP || m->depth > MODULES_MAX_DEPTH)
			continue;
		if (m->name == 0 && m->chain == 0)
			continue;
		const tl_mod_op *op = &d->ops[e->ref];
		frow x = {.parent = m->chain,
		          .op = e->name,
		          .mstart = m->start,
		          .mend = m->end,
		          .ostart = e->start,
		          .nk = op->nk,
		          .group = nr,
		          .opi = e->ref};
		x.backward = in_any_backward(t, e->parent);
		if (x.backward) {
			char *s = xasprintf("[Backward]%s", strpool_get(pool, m->name));
			x.module = strpool_intern_cstr(pool, s);
			free(s);
		} else {
			x.module = m->name;
		}
		size_t len = 0;
		for (size_t i = 0; i < op->nk; i++) {
			const tl_mod_kernel *kn = &d->k[op->k0 + i];
			const char *nm = strpool_get(d->pool, kn->name);
			size_t l = strlen(nm);
			VEC_RESERVE(kb, kbcap, len + l + 3);
			if (i > 0) {
				memcpy(kb + len, ", ", 2);
				len += 2;
			}
			memcpy(kb + len, nm, l);
			len += l;
			x.device = sat_add(x.device, kn->end - kn->start);
		}
		x.klist = strpool_intern(pool, kb ? kb : "", len);
		VEC_PUSH(r, nr, rcap, x);
	}
	free(kb);
	qsort(r, nr, sizeof *r, cmp_row_time); /* by module start, operator start */
	*nrow = nr;
	return r;
}

/* Module instances: each operator's place in it, and its operator sequence, whose ids count
 * in order of first appearance (pandas factorize). o is an index over the rows, left in
 * instance order. */
static void
number_instances(frow *r, size_t nr, size_t *o, tl_strpool *pool)
{
	row_ctx rc = {r, pool};
	for (size_t i = 0; i < nr; i++)
		o[i] = i;
	sort_index(o, nr, cmp_instance, &rc);
	char *sb = NULL;
	size_t sbcap = 0;
	for (size_t i = 0; i < nr;) {
		size_t k = i + 1;
		while (k < nr && r[o[k]].parent == r[o[i]].parent &&
		       r[o[k]].module == r[o[i]].module && r[o[k]].mstart == r[o[i]].mstart &&
		       r[o[k]].mend == r[o[i]].mend)
			k++;
		size_t len = 0;
		for (size_t x = i; x < k; x++) {
			r[o[x]].order = x - i;
			const char *nm = strpool_get(pool, r[o[x]].op);
			size_t l = strlen(nm);
			VEC_RESERVE(sb, sbcap, len + l + 2);
			if (x > i)
				sb[len++] = '/';
			memcpy(sb + len, nm, l);
			len += l;
		}
		uint32_t seq = strpool_intern(pool, sb ? sb : "", len);
		for (size_t x = i; x < k; x++)
			r[o[x]].seq = seq;
		i = k;
	}
	free(sb);
	/* sequence ids in order of first appearance (pandas factorize) */
	uint32_t nseq = strpool_count(pool);
	size_t *first = xreallocarray(NULL, nseq, sizeof *first);
	for (uint32_t i = 0; i < nseq; i++)
		first[i] = SIZE_MAX;
	size_t next = 0;
	for (size_t i = 0; i < nr; i++) {
		if (first[r[i].seq] == SIZE_MAX)
			first[r[i].seq] = next++;
		r[i].seq_id = first[r[i].seq];
	}
	free(first);
}

/* Groups of (parent, module, op, order, kernel list, sequence id), keys sorted: their totals
 * and counts, and the place of their first row. *ngroup gets their number. */
static agg *
group_rows(const frow *r, size_t nr, size_t *o, row_ctx *rc, size_t *ngroup)
{
	sort_index(o, nr, cmp_key, rc);
	agg *g = NULL;
	size_t ng = 0, gcap = 0;
	for (size_t i = 0; i < nr;) {
		const frow *a = &r[o[i]];
		agg x = {.parent = a->parent,
		         .module = a->module,
		         .op = a->op,
		         .klist = a->klist,
		         .order = a->order,
		         .seq_id = a->seq_id,
		         .nk = a->nk,
		         .key = ng,
		         .opi = a->opi,
		         .mstart = a->mstart,
		         .mend = a->mend,
		         .ostart = a->ostart,
		         .backward = a->backward,
		         .suffix = -1};
		size_t k = i, firstrow = o[i];
		for (; k < nr; k++) {
			const frow *b = &r[o[k]];
			if (b->parent != a->parent || b->module != a->module || b->op != a->op ||
			    b->order != a->order || b->klist != a->klist || b->seq_id != a->seq_id)
				break;
			if (o[k] < firstrow) {
				firstrow = o[k];
				x.mstart = b->mstart;
				x.mend = b->mend;
				x.opi = b->opi;
			}
			x.ostart = b->ostart < x.ostart ? b->ostart : x.ostart;
			x.total = sat_add(x.total, b->device);
			x.count++;
		}
		VEC_PUSH(g, ng, gcap, x);
		i = k;
	}
	*ngroup = ng;
	return g;
}

/* The groups as the stats' rows, with each row's kernel names one by one. */
static void
write_rows(tl_module_stats *out, const agg *g, size_t ng, const tl_module_data *d,
           const uint32_t *map)
{
	tl_strpool *pool = out->pool;
	out->v = xcalloc(ng ? ng : 1, sizeof *out->v);
	out->n = ng;
	size_t nkv = 0;
	for (size_t i = 0; i < ng; i++)
		nkv += g[i].nk;
	out->kernels = xcalloc(nkv ? nkv : 1, sizeof *out->kernels);
	nkv = 0;
	for (size_t i = 0; i < ng; i++) {
		tl_module_row *w = &out->v[i];
		const char *mn = strpool_get(pool, g[i].module);
		if (g[i].suffix >= 0) {
			char *s = xasprintf("%s_%d", mn, g[i].suffix);
			mn = strpool_get(pool, strpool_intern_cstr(pool, s));
			free(s);
		}
		w->parent = strpool_get(pool, g[i].parent);
		w->module = mn;
		w->op_name = strpool_get(pool, g[i].op);
		w->kernel_list = strpool_get(pool, g[i].klist);
		w->nkernels = g[i].nk;
		w->kernels = out->kernels + nkv; /* the names one by one: a name may hold ", " */
		const tl_mod_op *op = &d->ops[g[i].opi];
		for (size_t k = 0; k < op->nk; k++)
			out->kernels[nkv++] = strpool_get(pool, map[d->k[op->k0 + k].name]);
		w->total_ns = g[i].total;
		w->count = g[i].count;
		w->mean_ns = g[i].count ? (double)g[i].total / (double)g[i].count : 0;
		w->op_start = g[i].ostart;
		w->module_start = g[i].mstart;
		w->module_end = g[i].mend;
		w->backward = g[i].backward;
	}
}

void
modules_compute(const tl_module_data *d, tl_module_stats *out)
{
	memset(out, 0, sizeof *out);
	out->pool = strpool_new();
	if (d->nranges == 0)
		return;
	tl_strpool *pool = out->pool;
	uint32_t *map = map_strings(d, pool);
	tree t = {0};
	size_t *ord = build_tree(d, map, pool, &t);
	size_t nr;
	frow *r = op_rows(d, &t, ord, pool, &nr);
	free(ord);
	free(t.v);
	size_t *o = xreallocarray(NULL, nr ? nr : 1, sizeof *o);
	number_instances(r, nr, o, pool);
	row_ctx rc = {r, pool};
	size_t ng;
	agg *g = group_rows(r, nr, o, &rc, &ng);
	free(o);
	free(r);
	qsort(g, ng, sizeof *g, cmp_agg_start);
	distinguish(g, ng);
	qsort(g, ng, sizeof *g, cmp_agg_final);
	write_rows(out, g, ng, d, map);
	free(g);
	free(map);
}

void
modules_stats_free(tl_module_stats *s)
{
	free(s->v);
	free(s->kernels);
	if (s->pool != NULL)
		strpool_free(s->pool);
	memset(s, 0, sizeof *s);
}
