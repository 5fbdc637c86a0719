#include "config.h"
#include "model/source.h"

#include <stdlib.h>
#include <string.h>

static const tl_format formats[TL_SRC__COUNT] = {
#define ROW(kind, name, loader, caps, glob, magic) [TL_SRC_##kind] = {name, caps, glob, magic},
    TL_FORMATS(ROW)
#undef ROW
};

const tl_format *
source_format(tl_source_kind k)
{
	return (unsigned)k < TL_SRC__COUNT ? &formats[k] : NULL;
}

const char *
source_kind_name(tl_source_kind k)
{
	return (unsigned)k < TL_SRC__COUNT ? formats[k].name : "unknown";
}

unsigned
source_kind_caps(tl_source_kind k)
{
	return (unsigned)k < TL_SRC__COUNT ? formats[k].caps : 0;
}

int
source_is_file(const tl_source *s, const struct stat *sb)
{
	if (s->ino == 0 && s->size == 0)
		return 1;
	return (uint64_t)sb->st_dev == s->dev && (uint64_t)sb->st_ino == s->ino &&
	       (int64_t)sb->st_size == s->size &&
	       (int64_t)sb->st_mtim.tv_sec * 1000000000 + sb->st_mtim.tv_nsec == s->mtime_ns;
}

int
source_has(const tl_source *s, unsigned caps)
{
	return (source_kind_caps(s->kind) & caps) == caps;
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
