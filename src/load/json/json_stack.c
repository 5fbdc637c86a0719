/* The Python call stack of a host slice of a Chrome-trace JSON, read on demand for the detail
 * pane (the loader's stack hook), innermost frame first, as the DB loader gives
 * PYTORCH_CALLCHAINS:
 *  - torch_npu's trace_view.json, captured with_stack, gives an operator a "Call stack" arg:
 *    its frames "file.py(line): function", innermost first, each ended by ";" (and "\r\n");
 *  - Kineto traces (and trace_view.json's Python thread) record the Python frames themselves
 *    as python_function events with "Python id" and "Python parent id" args, on the thread of
 *    the operators they called: the frames of an operator are the innermost python_function
 *    around it and its chain of parents. An operator that names its own "Python parent id"
 *    starts the chain there.
 * Both are read again from the file through the event index, as the arguments are. */
#include "config.h"
#include "load/json/trace_json_int.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void
quiet(void *ctx, const char *key, const char *value)
{
	(void)ctx;
	(void)key;
	(void)value;
}

/* What the stack needs of one event's args. */
typedef struct frame_args {
	char *call_stack;   /* "Call stack", or NULL */
	int64_t id, parent; /* "Python id", "Python parent id"; INT64_MIN when absent */
} frame_args;

static int
parse_i64(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno != 0)
		return -1;
	*out = v;
	return 0;
}

static void
frame_arg(void *ctx, size_t i, const char *key, const char *value)
{
	frame_args *f = &((frame_args *)ctx)[i];
	if (strcmp(key, "Call stack") == 0 && f->call_stack == NULL)
		f->call_stack = xstrdup(value);
	else if (strcmp(key, "Python id") == 0)
		parse_i64(value, &f->id);
	else if (strcmp(key, "Python parent id") == 0)
		parse_i64(value, &f->parent);
}

#define MAX_FRAMES 4096 /* Python's own recursion limit is 1000 */

/* The frames of a "Call stack" arg: split at ';', blanks (the "\r\n" torch_npu puts after each
 * ';') trimmed, empty pieces dropped; at most MAX_FRAMES. */
static size_t
split_stack(const char *s, char ***v, size_t *n, size_t *cap)
{
	size_t before = *n;
	while (*s != '\0' && *n - before < MAX_FRAMES) {
		const char *e = strchr(s, ';');
		if (e == NULL)
			e = s + strlen(s);
		const char *a = s, *b = e;
		while (a < b && (*a == ' ' || *a == '\t' || *a == '\r' || *a == '\n'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r' || b[-1] == '\n'))
			b--;
		if (b > a) {
			char *f = xmalloc((size_t)(b - a) + 1);
			memcpy(f, a, (size_t)(b - a));
			f[b - a] = '\0';
			VEC_PUSH(*v, *n, *cap, f);
		}
		s = *e == ';' ? e + 1 : e;
	}
	return *n - before;
}

/* A host slice around the one asked about: its ordinal and where it is. */
typedef struct around {
	uint64_t ord;
	const tl_track *t;
	size_t k;
} around;

static int
cmp_around(const void *a, const void *b)
{
	const around *x = a, *y = b;
	return (x->ord > y->ord) - (x->ord < y->ord);
}

ptrdiff_t
trace_json_stack(const tl_rank *r, size_t si, const tl_track *t, size_t idx, char ***out)
{
	*out = NULL;
	if (idx >= t->n || t->kind != TL_LANE_HOST || track_arg(t, idx) == UINT32_MAX ||
	    si >= r->nsources || rank_source_state(r, si) == NULL)
		return 0;
	if (load_source_unchanged(r->sources[si], quiet, NULL) != 0)
		return -1;
	int64_t s_start = t->v[idx].start, s_end = track_end(t, idx);
	uint32_t s_arg = track_arg(t, idx);
	/* the slice itself first, then every host slice of its thread (and source) around it */
	around *v = NULL;
	size_t n = 0, cap = 0;
	around self = {s_arg, t, idx};
	VEC_PUSH(v, n, cap, self);
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *x = r->tracks[i];
		if (x == t || x->kind != TL_LANE_HOST || x->key != t->key || x->source != si)
			continue;
		size_t k = track_first_ending_after(x, s_start - 1);
		/* slices of a track do not overlap: at most one holds the start; it must hold
		 * the whole slice */
		if (k < x->n && x->v[k].start <= s_start && track_end(x, k) >= s_end &&
		    track_arg(x, k) != UINT32_MAX) {
			around a = {track_arg(x, k), x, k};
			VEC_PUSH(v, n, cap, a);
		}
	}
	qsort(v, n, sizeof *v, cmp_around);
	size_t m = 0; /* ordinals once each, ascending, as the batch read wants them */
	for (size_t i = 0; i < n; i++)
		if (m == 0 || v[i].ord != v[m - 1].ord)
			v[m++] = v[i];
	n = m;
	uint64_t *ords = xreallocarray(NULL, n, sizeof *ords);
	frame_args *fa = xreallocarray(NULL, n, sizeof *fa);
	size_t me = 0;
	for (size_t i = 0; i < n; i++) {
		ords[i] = v[i].ord;
		fa[i] = (frame_args){NULL, INT64_MIN, INT64_MIN};
		if (v[i].ord == s_arg)
			me = i;
	}
	int rc = trace_json_events_args(r, si, ords, n, frame_arg, fa);
	char **fr = NULL;
	size_t nf = 0, fcap = 0;
	if (rc >= 0 && fa[me].call_stack != NULL) {
		split_stack(fa[me].call_stack, &fr, &nf, &fcap);
	} else if (rc >= 0) {
		/* the chain of Python frames: from the slice itself when it is one, from the
		 * parent it names, else from the innermost frame around it */
		int64_t cur = fa[me].id != INT64_MIN ? fa[me].id : fa[me].parent;
		if (cur == INT64_MIN) {
			/* the deepest frame around it; of two on one level, the later */
			size_t best = SIZE_MAX;
			for (size_t i = 0; i < n; i++)
				if (i != me && fa[i].id != INT64_MIN &&
				    (best == SIZE_MAX || v[i].t->depth > v[best].t->depth ||
				     (v[i].t->depth == v[best].t->depth &&
				      v[i].t->v[v[i].k].start > v[best].t->v[v[best].k].start)))
					best = i;
			if (best != SIZE_MAX)
				cur = fa[best].id;
		}
		/* each step finds the parent among the slices around: at most n frames, so a
		 * longer cycle of ids in a hostile file ends too */
		while (cur != INT64_MIN && nf < n) {
			size_t j = 0;
			while (j < n && fa[j].id != cur)
				j++;
			if (j == n)
				break;
			char *f = xstrdup(strpool_get(r->pool, v[j].t->v[v[j].k].name));
			VEC_PUSH(fr, nf, fcap, f);
			/* the outermost frame names itself as its parent */
			cur = fa[j].parent == cur ? INT64_MIN : fa[j].parent;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(fa[i].call_stack);
	free(fa);
	free(ords);
	free(v);
	if (rc < 0) {
		free(fr);
		return -1;
	}
	*out = fr;
	return (ptrdiff_t)nf;
}
