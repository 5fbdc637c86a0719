/* What the rest of tl asks of a source after loading, each through its loader's hooks (load.h):
 * a slice's arguments and links, the link index, the tables read on demand (communication,
 * operators, modules, host lanes, counters, launches, fwd/bwd pairs), all moved onto the rank's
 * clock. The one interface to the readers for the code above them; it calls no reader but
 * through loader_for. */
#include "config.h"
#include "load/load_int.h"
#include "model/clock.h"
#include "util/xalloc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
load_fwdbwd(tl_rank *r)
{
	size_t n0 = r->nfwdbwd;
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->fwdbwd != NULL)
			ld->fwdbwd(r, i); /* reads once per source */
	}
	for (size_t i = n0; i < r->nfwdbwd && r->clock.on; i++) { /* onto the rank's clock */
		tl_fwdbwd *f = &r->fwdbwd[i];
		f->fwd_start = clock_map(&r->clock, f->fwd_start);
		f->fwd_end = clock_map(&r->clock, f->fwd_end);
		f->bwd_start = clock_map(&r->clock, f->bwd_start);
		f->bwd_end = clock_map(&r->clock, f->bwd_end);
	}
	rank_sort_fwdbwd(r);
}

/* ---- what the rest asks of a source after loading ------------------------------------------ */

/* The source of slice idx of t: the track's own, except on a lane that the files of one
 * per-iteration msprof export share (Stream 3 of every iteration: one lane, created by the
 * first file): there the file whose slices span it, their iterations lying apart in time. */
static size_t
slice_source(const tl_rank *r, const tl_track *t, size_t idx)
{
	size_t si = t->source;
	if (si >= r->nsources || !source_has(r->sources[si], TL_FMT_PER_ITERATION) ||
	    r->src_t0 == NULL || r->nsources < 2)
		return si;
	int64_t s = t->v[idx].start, e = track_end(t, idx);
	if (r->clock.on) { /* the files' spans are on their host's own clock */
		s = clock_unmap(&r->clock, s);
		e = clock_unmap(&r->clock, e);
	}
	for (size_t k = 0; k < r->nsources; k++) {
		size_t c = k == 0 ? si : k - (k <= si); /* the track's own first */
		if (source_has(r->sources[c], TL_FMT_PER_ITERATION) && r->src_t0[c] <= s &&
		    e <= r->src_t1[c])
			return c;
	}
	return si;
}

int
load_slice_args(const tl_rank *r, const tl_track *t, size_t idx, load_arg_fn fn, void *ctx)
{
	if (idx >= t->n || t->source >= r->nsources)
		return 0;
	const tl_loader *ld = loader_for(r->sources[t->source]->kind);
	if (ld == NULL || ld->args == NULL)
		return 0;
	return ld->args(r, slice_source(r, t, idx), t, idx, fn, ctx);
}

struct tl_link_index {
	size_t n;
	void **part; /* per source: its loader's index, or NULL */
	void (**free_part)(void *);
};

tl_link_index *
load_link_index(const tl_rank *r)
{
	tl_link_index *x = xcalloc(1, sizeof *x);
	x->n = r->nsources;
	x->part = xcalloc(x->n ? x->n : 1, sizeof *x->part);
	x->free_part = xcalloc(x->n ? x->n : 1, sizeof *x->free_part);
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->link_index != NULL && ld->link_index_free != NULL) {
			x->part[i] = ld->link_index(r, i);
			x->free_part[i] = ld->link_index_free;
		}
	}
	return x;
}

void
load_link_index_free(tl_link_index *x)
{
	if (x == NULL)
		return;
	for (size_t i = 0; i < x->n; i++)
		if (x->part[i] != NULL)
			x->free_part[i](x->part[i]);
	free(x->part);
	free(x->free_part);
	free(x);
}

static const void *
ix_part(const tl_link_index *x, size_t si)
{
	return x != NULL && si < x->n ? x->part[si] : NULL;
}

ptrdiff_t
load_slice_links(const tl_rank *r, const tl_track *t, size_t idx, tl_link_dir dir,
                 tl_link_end **out, const tl_link_index *ix)
{
	*out = NULL;
	if (idx >= t->n || t->source >= r->nsources)
		return 0;
	const tl_loader *ld = loader_for(r->sources[t->source]->kind);
	if (ld == NULL || ld->links == NULL)
		return 0;
	size_t si = slice_source(r, t, idx);
	ptrdiff_t n = ld->links(r, si, t, idx, dir, out, ix_part(ix, si));
	for (ptrdiff_t i = 0; i < n && r->clock.on; i++) /* the file's times, on the rank's clock */
		(*out)[i].start = clock_map(&r->clock, (*out)[i].start);
	return n;
}

static const tl_loader *
track_loader(const tl_rank *r, const tl_track *t, size_t idx)
{
	if (idx >= t->n || t->source >= r->nsources)
		return NULL;
	return loader_for(r->sources[t->source]->kind);
}

int
load_task_launcher(const tl_rank *r, const tl_track *t, size_t idx, tl_launcher *out,
                   const tl_link_index *ix)
{
	memset(out, 0, sizeof *out);
	const tl_loader *ld = track_loader(r, t, idx);
	int rc = ld != NULL && ld->launcher != NULL
	             ? ld->launcher(r, t->source, t, idx, out, ix_part(ix, t->source))
	             : 0;
	if (rc == 1 && r->clock.on) { /* the file's times, on the rank's clock (the delay stays) */
		out->cann_start = clock_map(&r->clock, out->cann_start);
		out->cann_end = clock_map(&r->clock, out->cann_end);
		out->task_start = clock_map(&r->clock, out->task_start);
		out->op_start = clock_map(&r->clock, out->op_start);
		out->op_end = clock_map(&r->clock, out->op_end);
	}
	return rc;
}

ptrdiff_t
load_op_kernels(const tl_rank *r, const tl_track *t, size_t idx, tl_kernel **out,
                const tl_link_index *ix)
{
	*out = NULL;
	const tl_loader *ld = track_loader(r, t, idx);
	ptrdiff_t n = ld != NULL && ld->kernels != NULL
	                  ? ld->kernels(r, t->source, t, idx, out, ix_part(ix, t->source))
	                  : 0;
	for (ptrdiff_t i = 0; i < n && r->clock.on; i++) {
		(*out)[i].start = clock_map(&r->clock, (*out)[i].start);
		(*out)[i].end = clock_map(&r->clock, (*out)[i].end);
	}
	return n;
}

ptrdiff_t
load_op_stack(const tl_rank *r, const tl_track *t, size_t idx, char ***out)
{
	*out = NULL;
	const tl_loader *ld = track_loader(r, t, idx);
	return ld != NULL && ld->stack != NULL ? ld->stack(r, slice_source(r, t, idx), t, idx, out)
	                                       : 0;
}

ptrdiff_t
load_live_allocations(const tl_rank *r, int64_t t, size_t max, tl_alloc **out)
{
	tl_alloc *v = NULL;
	size_t n = 0, cap = 0;
	int failed = 0;
	t = clock_unmap(&r->clock, t); /* the file's clock */
	for (size_t i = 0; i < r->nsources && max > 0; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->allocations != NULL &&
		    ld->allocations(r, i, t, max, &v, &n, &cap) != 0)
			failed = 1;
	}
	for (size_t i = 0; i < n && r->clock.on; i++) {
		v[i].alloc_ns = clock_map(&r->clock, v[i].alloc_ns);
		if (v[i].release_ns != INT64_MAX)
			v[i].release_ns = clock_map(&r->clock, v[i].release_ns);
	}
	*out = v;
	return failed && n == 0 ? -1 : (ptrdiff_t)n;
}

char *
load_capture_metadata(const tl_source *src)
{
	char *path = xasprintf("%s/profiler_metadata.json", src->dir);
	FILE *f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	char chunk[4096];
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && n < (4u << 20)) {
		VEC_RESERVE(buf, cap, n + got + 1);
		memcpy(buf + n, chunk, got);
		n += got;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

void
load_comm(const tl_rank *r, tl_comm_data *d)
{
	comm_data_init(d);
	size_t *owner = NULL, ocap = 0;
	for (size_t i = 0; i < r->nsources && i < UINT16_MAX; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->comm != NULL)
			ld->comm(r, i, d, &owner, &ocap);
	}
	comm_data_finish(d, owner);
	free(owner);
	if (r->clock.on)
		clock_map_comm(&r->clock, d);
}

void
load_ops(const tl_rank *r, tl_op_data *d)
{
	op_data_init(d);
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->ops != NULL)
			ld->ops(r->sources[i], d);
	}
	if (r->clock.on)
		clock_map_ops(&r->clock, d);
}

void
load_modules(const tl_rank *r, tl_module_data *d)
{
	module_data_init(d);
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->modules != NULL)
			ld->modules(r->sources[i], d);
	}
	if (r->clock.on)
		clock_map_modules(&r->clock, d);
}

char *
load_source_meta(const tl_rank *r, size_t si, const char *name)
{
	const tl_loader *ld = si < r->nsources ? loader_for(r->sources[si]->kind) : NULL;
	return ld != NULL && ld->meta != NULL ? ld->meta(r, si, name) : NULL;
}

void
load_host(tl_rank *r)
{
	if (r->host_read)
		return;
	r->host_read = 1;
	size_t nbefore = r->ntracks;
	size_t *before = xreallocarray(NULL, nbefore ? nbefore : 1, sizeof *before);
	for (size_t i = 0; i < nbefore; i++)
		before[i] = r->tracks[i]->n;
	int any = 0;
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->host != NULL) {
			ld->host(r->sources[i], i, r);
			any = 1;
		}
	}
	for (size_t i = 0; any && r->clock.on && i < r->ntracks; i++) /* onto the rank's clock */
		clock_map_track_from(&r->clock, r->tracks[i], i < nbefore ? before[i] : 0);
	if (any)
		rank_finish_grown(r, before, nbefore);
	free(before);
	/* The host tables can be a profile's largest and their lanes are final now: no room for
	 * growth is kept. Doubling leaves up to half of a lane's array unused, and splitting a
	 * lane into nesting levels leaves level 0 with the room of all of them (torch_npu's
	 * nested operators: 4.6 times the slices on the samples). */
	for (size_t i = 0; i < r->ntracks; i++) {
		tl_track *t = r->tracks[i];
		if (t->kind == TL_LANE_HOST && t->cap > t->n && t->n > 0 && t->step == NULL &&
		    t->dev == NULL)
			track_fit(t);
	}
}

void
load_counters(tl_rank *r)
{
	if (r->counters_read)
		return;
	r->counters_read = 1;
	size_t n0 = r->ncounters; /* a JSON trace's came with its slices, on the rank's clock */
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->counters != NULL)
			ld->counters(r->sources[i], i, r);
	}
	for (size_t i = n0; i < r->ncounters && r->clock.on; i++)
		clock_map_counter(&r->clock, r->counters[i]);
	rank_sort_counters(r);
}

size_t
load_launches(const tl_rank *r, tl_launch **out)
{
	tl_launch *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < r->nsources; i++) {
		const tl_loader *ld = loader_for(r->sources[i]->kind);
		if (ld != NULL && ld->launches != NULL)
			ld->launches(r->sources[i], r, &v, &n, &cap);
	}
	if (r->clock.on)
		clock_map_launches(&r->clock, v, n);
	/* a rank in its mapped cache file (or spill file) had its inputs dropped from the page
	 * cache (loading/load.c): this detail read them again, so they go again */
	for (size_t i = 0; r->backing != NULL && i < r->nsources; i++)
		load_drop_input(r->sources[i]->path);
	*out = v;
	return n;
}

int
load_launch_recs(const tl_rank *r, tl_launch_rec **out, size_t *n, tl_launch **wide)
{
	if (r->nsources != 1 || r->clock.on)
		return -1;
	const tl_loader *ld = loader_for(r->sources[0]->kind);
	if (ld == NULL || ld->launch_recs == NULL)
		return -1;
	tl_launch_rec *v = NULL;
	tl_launch *l = NULL;
	size_t k = 0;
	int got = ld->launch_recs(r->sources[0], r, &v, &k, &l);
	if (r->backing != NULL) /* as load_launches */
		load_drop_input(r->sources[0]->path);
	if (got == 1)
		*wide = l;
	else
		*out = v;
	*n = k;
	return got;
}

/* A rank now in its mapped cache (or spill) file will not read its input files again but for
 * a detail a user asks for: their pages are dropped from the page cache (POSIX_FADV_DONTNEED;
 * the files are opened read-only and left as they are). A profile read whole otherwise leaves
 * its DBs in the page cache, and on a host whose memory they fill the kernel then drops the
 * mapped lanes' pages instead: on 16 ranks x 8 M tasks (20 GB of DBs, 24 GB of memory) the
 * viewer's frames after a cold load read them back from disk, 60-300 ms each, against 13 ms
 * with the DBs dropped. TL_DROP_INPUTS=0 keeps them (a host that will read them again). */
void
load_drop_input(const char *path)
{
	const char *env = getenv("TL_DROP_INPUTS");
	if (env != NULL && strcmp(env, "0") == 0)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
}
