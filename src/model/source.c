#include "config.h"
#include "model/source.h"

#include <stdlib.h>
#include <string.h>

const char *
source_kind_name(tl_source_kind k)
{
	switch (k) {
	case TL_SRC_TORCH_DB:
		return "torch_npu DB";
	case TL_SRC_MSPROF_DB:
		return "msprof DB";
	case TL_SRC_MINDSPORE_DB:
		return "MindSpore DB";
	case TL_SRC_TRACE_VIEW:
		return "trace_view.json";
	case TL_SRC_KINETO:
		return "Kineto JSON";
	case TL_SRC_MSPROF_ITER:
		return "msprof export, per-iteration JSON (CANN \xe2\x89\xa4 7)";
	case TL_SRC_MS_TIMELINE:
		return "MindSpore 1.x timeline";
	case TL_SRC__COUNT:
		break;
	}
	return "unknown";
}

void
source_free(tl_source *s)
{
	free(s->path);
	free(s->dir);
	free(s->role);
}

void
sourcelist_free(tl_sourcelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		source_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static int
source_cmp(const void *a, const void *b)
{
	const tl_source *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->capture_ns != y->capture_ns)
		return x->capture_ns < y->capture_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

void
sourcelist_sort(tl_sourcelist *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof *l->v, source_cmp);
}
