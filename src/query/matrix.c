/* The rank x rank communication matrix of the viewer's heat map: per communication group and
 * step, per (source, destination) rank pair, the bytes, time and bandwidth of every op's
 * transfers between them, with the ops behind each cell. A cell sums what msprof's "-total"
 * summary rows of CommAnalyzerMatrix sum for that pair (over the op types of the group and
 * step), from the same links (tlq_comm). */
#include "config.h"
#include "query/query.h"
#include "util/satint.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct mx_ent {
	const tl_comm_row *op;
	size_t opi; /* index into c->ops */
	const tl_comm_link *l;
} mx_ent;

static int
cmp_ent(const void *a, const void *b)
{
	const mx_ent *x = a, *y = b;
	int c = strcmp(x->op->group, y->op->group);
	if (c != 0)
		return c;
	if (x->op->step != y->op->step)
		return x->op->step < y->op->step ? -1 : 1;
	if (x->l->src != y->l->src)
		return x->l->src < y->l->src ? -1 : 1;
	if (x->l->dst != y->l->dst)
		return x->l->dst < y->l->dst ? -1 : 1;
	return (x->opi > y->opi) - (x->opi < y->opi); /* the result's order: rank, then start */
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The plane's ranks: every source and destination of its cells, ascending, once. */
static void
plane_ranks(tl_comm_matrix *m, tl_mx_plane *p)
{
	int64_t *v = xreallocarray(NULL, 2 * p->ncell + 1, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < p->ncell; i++) {
		v[n++] = m->cells[p->cell0 + i].src;
		v[n++] = m->cells[p->cell0 + i].dst;
	}
	qsort(v, n, sizeof *v, cmp_i64);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	p->rank0 = m->nranks;
	p->nranks = k;
	for (size_t i = 0; i < k; i++)
		VEC_PUSH(m->ranks, m->nranks, m->rcap, v[i]);
	free(v);
}

void
tlq_comm_matrix(const tl_comm_result *c, tl_comm_matrix *out)
{
	memset(out, 0, sizeof *out);
	mx_ent *e = NULL;
	size_t ne = 0, ecap = 0;
	for (size_t i = 0; i < c->nops; i++)
		for (size_t k = c->ops[i].link0; k < c->ops[i].link0 + c->ops[i].nlink; k++) {
			mx_ent x = {&c->ops[i], i, &c->links[k]};
			VEC_PUSH(e, ne, ecap, x);
		}
	if (ne > 1)
		qsort(e, ne, sizeof *e, cmp_ent);
	size_t pcap = 0, ccap = 0, ocap = 0;
	tl_mx_plane *p = NULL;
	for (size_t i = 0; i < ne;) {
		const mx_ent *a = &e[i];
		if (p == NULL || strcmp(p->group, a->op->group) != 0 || p->step != a->op->step) {
			if (p != NULL)
				plane_ranks(out, p);
			tl_mx_plane np = {
			    .group = a->op->group, .step = a->op->step, .cell0 = out->ncells};
			VEC_PUSH(out->planes, out->nplanes, pcap, np);
			p = &out->planes[out->nplanes - 1];
		}
		tl_mx_cell cell = {.src = a->l->src,
		                   .dst = a->l->dst,
		                   .xport = a->l->src == a->l->dst ? TL_XPORT_LOCAL : a->l->xport,
		                   .op0 = out->nops};
		size_t j = i;
		for (; j < ne && e[j].op->step == a->op->step && e[j].l->src == a->l->src &&
		       e[j].l->dst == a->l->dst && strcmp(e[j].op->group, a->op->group) == 0;
		     j++) {
			cell.size += e[j].l->size;
			cell.time = sat_add(cell.time, e[j].l->time);
			if (out->nops == cell.op0 || out->ops[out->nops - 1] != e[j].opi)
				VEC_PUSH(out->ops, out->nops, ocap, e[j].opi);
		}
		cell.nop = out->nops - cell.op0;
		cell.gbps = cell.time > 0 ? (double)cell.size / (double)cell.time : 0.0;
		VEC_PUSH(out->cells, out->ncells, ccap, cell);
		p->ncell++;
		i = j;
	}
	if (p != NULL)
		plane_ranks(out, p);
	free(e);
}

const tl_mx_cell *
tlq_comm_matrix_cell(const tl_comm_matrix *m, size_t plane, int64_t src, int64_t dst)
{
	if (plane >= m->nplanes)
		return NULL;
	const tl_mx_plane *p = &m->planes[plane];
	size_t lo = p->cell0, hi = p->cell0 + p->ncell; /* cells by (src, dst) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const tl_mx_cell *x = &m->cells[mid];
		if (x->src < src || (x->src == src && x->dst < dst))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->cell0 + p->ncell && m->cells[lo].src == src && m->cells[lo].dst == dst
	           ? &m->cells[lo]
	           : NULL;
}

void
tlq_comm_matrix_free(tl_comm_matrix *m)
{
	free(m->planes);
	free(m->cells);
	free(m->ops);
	free(m->ranks);
	memset(m, 0, sizeof *m);
}
