/* A frame's lane columns remembered for the next (colmemo.h). */
#include "config.h"
#include "ui/colmemo.h"
#include "util/u64map.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* More entries than any screen draws; past it the memo starts again (a long walk through
 * ranks at one zoom would otherwise keep every lane's columns). */
#define MEMO_MAX 2048

typedef struct memo_entry {
	/* the address of the track's slice array (compared, never read through: the slices are
	 * the track's to read) and its count when its columns were made */
	const void *slices;
	size_t n;
	void *data; /* ncols tl_cell or int64_t */
	size_t cap; /* bytes */
} memo_entry;

struct col_memo {
	int64_t *edges; /* the frame's, ncols + 1 */
	int ncols;
	tl_u64map ix; /* (track, kind) -> entry */
	memo_entry *e;
	size_t n, cap; /* entries in use; allocated (their buffers are reused) */
};

col_memo *
colmemo_new(void)
{
	col_memo *m = xcalloc(1, sizeof *m);
	u64map_init(&m->ix);
	return m;
}

void
colmemo_clear(col_memo *m)
{
	u64map_free(&m->ix);
	u64map_init(&m->ix);
	m->n = 0;
}

void
colmemo_free(col_memo *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->cap; i++)
		free(m->e[i].data);
	free(m->e);
	free(m->edges);
	u64map_free(&m->ix);
	free(m);
}

void
colmemo_frame(col_memo *m, const int64_t *edges, int ncols)
{
	size_t bytes = ((size_t)ncols + 1) * sizeof *edges;
	if (ncols == m->ncols && m->edges != NULL && memcmp(m->edges, edges, bytes) == 0)
		return;
	m->edges = xreallocarray(m->edges, (size_t)ncols + 1, sizeof *edges);
	memcpy(m->edges, edges, bytes);
	m->ncols = ncols;
	colmemo_clear(m);
}

/* The entry of (t, kind) with its columns, or NULL after making room for them in *fresh. */
static memo_entry *
lookup(col_memo *m, const tl_track *t, unsigned kind, size_t elem, memo_entry **fresh)
{
	uint64_t key = (uint64_t)(uintptr_t)t * 4 + kind; /* kind 0, 1 or 2 */
	uint32_t k;
	if (u64map_get(&m->ix, key, &k)) {
		memo_entry *x = &m->e[k];
		if (x->slices == (const void *)t->v && x->n == t->n)
			return x;
		*fresh = x; /* the track grew: its columns again, in its entry */
	} else {
		if (m->n == MEMO_MAX)
			colmemo_clear(m);
		if (m->n == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 64;
			m->e = xreallocarray(m->e, cap, sizeof *m->e);
			memset(m->e + m->cap, 0, (cap - m->cap) * sizeof *m->e);
			m->cap = cap;
		}
		u64map_put(&m->ix, key, (uint32_t)m->n);
		*fresh = &m->e[m->n++];
	}
	memo_entry *x = *fresh;
	size_t bytes = (size_t)m->ncols * elem;
	if (x->cap < bytes) {
		x->data = xreallocarray(x->data, (size_t)m->ncols, elem);
		x->cap = bytes;
	}
	x->slices = t->v;
	x->n = t->n;
	return NULL;
}

void
colmemo_cells(col_memo *m, const tl_track *t, int longest, tl_cell *out)
{
	memo_entry *fresh, *x = lookup(m, t, longest ? 2 : 0, sizeof *out, &fresh);
	if (x == NULL) {
		if (longest)
			tlq_columns_edges(t, m->edges, m->ncols, fresh->data);
		else
			tlq_columns_draw(t, m->edges, m->ncols, fresh->data);
		x = fresh;
	}
	memcpy(out, x->data, (size_t)m->ncols * sizeof *out);
}

void
colmemo_busy(col_memo *m, const tl_track *t, int64_t *out)
{
	if (t == NULL) {
		tlq_busy_columns(NULL, m->edges, m->ncols, out);
		return;
	}
	memo_entry *fresh, *x = lookup(m, t, 1, sizeof *out, &fresh);
	if (x == NULL) {
		tlq_busy_columns(t, m->edges, m->ncols, fresh->data);
		x = fresh;
	}
	memcpy(out, x->data, (size_t)m->ncols * sizeof *out);
}
