/* Python call stacks of JSON traces (tlq_op_stack through the JSON loader's stack hook), against
 * the trace's own text parsed here whole with cJSON: an operator's "Call stack" arg split at its
 * ';', and the chain of python_function events through their "Python id" / "Python parent id"
 * args. The real torch_npu trace_view.json sample has both (with_stack); the generator's JSON
 * and DB of one profile with stacks against its truth. */
#include "config.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gen/gen.h"
#include "loading/loading.h"
#include "query/host.h"
#include "query/session.h"
#include "util/xalloc.h"
#include "../test.h"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	char *b = NULL;
	size_t n = 0, cap = 0, k;
	char chunk[65536];
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		VEC_RESERVE(b, cap, n + k + 1);
		memcpy(b + n, chunk, k);
		n += k;
	}
	fclose(f);
	if (b == NULL)
		b = xcalloc(1, 1);
	b[n] = '\0';
	*len = n;
	return b;
}

/* The events of a trace, by ordinal (the array, or an object's traceEvents). */
typedef struct events {
	cJSON *root;
	cJSON **v;
	size_t n;
} events;

static int
events_read(const char *path, events *e)
{
	size_t len;
	char *b = slurp(path, &len);
	memset(e, 0, sizeof *e);
	if (b == NULL)
		return -1;
	e->root = cJSON_ParseWithLength(b, len);
	free(b);
	const cJSON *arr = cJSON_IsArray(e->root)
	                       ? e->root
	                       : cJSON_GetObjectItemCaseSensitive(e->root, "traceEvents");
	if (!cJSON_IsArray(arr))
		return -1;
	e->n = (size_t)cJSON_GetArraySize(arr);
	e->v = xcalloc(e->n ? e->n : 1, sizeof *e->v);
	size_t i = 0;
	cJSON *x;
	cJSON_ArrayForEach(x, arr) e->v[i++] = x;
	return 0;
}

static void
events_free(events *e)
{
	cJSON_Delete(e->root);
	free(e->v);
}

static const char *
str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* "Python id" / "Python parent id" (a number), or -1. */
static long long
py_of(const cJSON *ev, const char *k)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(ev, "args");
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, k);
	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

static int
same_thread(const cJSON *a, const cJSON *b)
{
	const cJSON *pa = cJSON_GetObjectItemCaseSensitive(a, "pid"),
	            *pb = cJSON_GetObjectItemCaseSensitive(b, "pid"),
	            *ta = cJSON_GetObjectItemCaseSensitive(a, "tid"),
	            *tb = cJSON_GetObjectItemCaseSensitive(b, "tid");
	return pa && pb && ta && tb && pa->valuedouble == pb->valuedouble &&
	       ta->valuedouble == tb->valuedouble;
}

/* ts and dur in ns (a long double holds epoch ns exactly). */
static int
times(const cJSON *ev, long double *s, long double *d)
{
	const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts"),
	            *du = cJSON_GetObjectItemCaseSensitive(ev, "dur");
	if (!cJSON_IsString(ts) && !cJSON_IsNumber(ts))
		return -1;
	*s = roundl((cJSON_IsString(ts) ? strtold(ts->valuestring, NULL) : ts->valuedouble) *
	            1000.0L);
	*d = cJSON_IsNumber(du)   ? roundl((long double)du->valuedouble * 1000.0L)
	     : cJSON_IsString(du) ? roundl(strtold(du->valuestring, NULL) * 1000.0L)
	                          : 0;
	return 0;
}

/* The expected frames of event ev, innermost first, into fr (at most max); their count. */
static size_t
expected(const events *e, const cJSON *ev, char fr[][600], size_t max)
{
	size_t n = 0;
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
	const char *cs = str_of(args, "Call stack");
	if (cs != NULL) {
		/* torch_npu: "frame;\r\nframe;\r\n...frame" */
		char *copy = xstrdup(cs), *save = NULL;
		for (char *p = strtok_r(copy, ";", &save); p && n < max;
		     p = strtok_r(NULL, ";", &save)) {
			while (*p == '\r' || *p == '\n' || *p == ' ')
				p++;
			size_t l = strlen(p);
			while (l > 0 && (p[l - 1] == '\r' || p[l - 1] == '\n' || p[l - 1] == ' '))
				l--;
			if (l > 0)
				snprintf(fr[n++], 600, "%.*s", (int)l, p);
		}
		free(copy);
		return n;
	}
	const char *cat = str_of(ev, "cat");
	long long cur = cat && strcmp(cat, "python_function") == 0 ? py_of(ev, "Python id")
	                                                           : py_of(ev, "Python parent id");
	if (cur < 0 && !(cat && strcmp(cat, "python_function") == 0)) {
		/* the innermost python_function around it on its thread: the latest to start of
		 * those that hold it, of two the shorter */
		long double s, d, bs = 0, bd = 0;
		if (times(ev, &s, &d) == 0)
			for (size_t i = 0; i < e->n; i++) {
				const char *c = str_of(e->v[i], "cat");
				long double ps, pd;
				if (c && strcmp(c, "python_function") == 0 && e->v[i] != ev &&
				    same_thread(e->v[i], ev) && times(e->v[i], &ps, &pd) == 0 &&
				    ps <= s && ps + pd >= s + d &&
				    (cur < 0 || ps > bs || (ps == bs && pd < bd))) {
					cur = py_of(e->v[i], "Python id");
					bs = ps;
					bd = pd;
				}
			}
	}
	while (cur >= 0 && n < max) {
		const cJSON *p = NULL;
		for (size_t i = 0; i < e->n && p == NULL; i++) {
			const char *c = str_of(e->v[i], "cat");
			if (c && strcmp(c, "python_function") == 0 &&
			    py_of(e->v[i], "Python id") == cur && same_thread(e->v[i], ev))
				p = e->v[i];
		}
		if (p == NULL)
			break;
		snprintf(fr[n++], 600, "%s", str_of(p, "name") ? str_of(p, "name") : "");
		long long parent = py_of(p, "Python parent id");
		cur = parent == cur ? -1 : parent; /* the root is its own parent */
	}
	return n;
}

static void
check_sample(void)
{
	char base[4200];
	struct stat sb;
	snprintf(base, sizeof base, "%.4000s/ascend-text/level1", test_samples_dir());
	if (stat(base, &sb) != 0) {
		SKIP("samples absent: %s", base);
		return;
	}
	tl_trace tr;
	tl_load_opts lo = {.quiet_progress = 1};
	CHECK(load_trace(base, &lo, &tr) == 0, "load %s", base);
	static char want[64][600];
	for (size_t ri = 0; ri < tr.nranks; ri++) {
		const tl_rank *r = tr.ranks[ri];
		events e;
		CHECK(r->nsources == 1 && events_read(r->sources[0]->path, &e) == 0,
		      "rank %d: the trace parses whole with cJSON", r->rank);
		if (r->nsources != 1 || e.v == NULL)
			continue;
		size_t with_cs = 0, with_py = 0, none = 0, bad = 0, frames = 0, seen = 0;
		for (size_t i = 0; i < r->ntracks; i++) {
			const tl_track *t = r->tracks[i];
			if (t->kind != TL_LANE_HOST)
				continue;
			for (size_t k = 0; k < t->n; k++) {
				if (track_arg(t, k) >= e.n)
					continue;
				const cJSON *ev = e.v[track_arg(t, k)];
				const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
				int cs = str_of(args, "Call stack") != NULL;
				const char *cat = str_of(ev, "cat");
				int py = !cs && cat && strcmp(cat, "python_function") == 0;
				/* every operator with a stack; of the others, a sample (each is a
				 * read of the file) */
				if (!cs && seen++ % (py ? 5 : 11) != 0)
					continue;
				size_t nw = expected(&e, ev, want, 64);
				char **fr;
				ptrdiff_t n = tlq_op_stack(r, t, k, &fr);
				int same = n == (ptrdiff_t)nw;
				for (ptrdiff_t j = 0; j < n; j++) {
					if (same && strcmp(fr[j], want[j]) != 0)
						same = 0;
					free(fr[j]);
				}
				free(fr);
				if (!same && bad++ < 3)
					printf("# rank %d event %u: %td frames, want %zu\n",
					       r->rank, track_arg(t, k), n, nw);
				frames += nw;
				if (cs)
					with_cs++;
				else if (nw > 0)
					with_py++;
				else
					none++;
			}
		}
		CHECK(
		    with_cs > 100 && with_py > 50 && none > 10 && bad == 0,
		    "rank %d: the frames of %zu operators with a Call stack, %zu Python frames and "
		    "%zu slices without equal the text's (%zu frames; %zu differ)",
		    r->rank, with_cs, with_py, none, frames, bad);
		events_free(&e);
	}
	trace_free(&tr);
}

/* The operator starting at `start` on rank r's host lanes (not a CANN call). */
static int
find_op(const tl_rank *r, int64_t start, const tl_track **ot, size_t *oi)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != TL_LANE_HOST || (t->key & TL_HOST_KEY_CANN))
			continue;
		size_t k = track_first_starting_at(t, start);
		if (k < t->n && t->v[k].start == start) {
			*ot = t;
			*oi = k;
			return 1;
		}
	}
	return 0;
}

/* Every operator's frames in r equal the truth's stack. */
static void
check_truth(const char *what, const tl_rank *r, const gen_truth *T)
{
	size_t checked = 0, bad = 0, frames = 0;
	for (size_t i = 0; i < T->nlaunches; i++) {
		const gen_launch_truth *l = &T->launches[i];
		if (l->rank != r->rank || l->stack < 0)
			continue;
		const tl_track *t;
		size_t k;
		char **fr = NULL;
		ptrdiff_t n = find_op(r, l->op_start_ns, &t, &k) ? tlq_op_stack(r, t, k, &fr) : -1;
		int d = 0;
		while (gen_stack_frame(l->stack, d) != NULL)
			d++;
		int same = n == d;
		for (ptrdiff_t j = 0; j < n; j++) {
			if (same && strcmp(fr[j], gen_stack_frame(l->stack, (int)j)) != 0)
				same = 0;
			free(fr[j]);
		}
		free(fr);
		checked++;
		frames += (size_t)d;
		bad += !same;
	}
	CHECK(checked > 100 && bad == 0,
	      "%s: the frames of %zu operators equal the generator's stacks, innermost first (%zu "
	      "frames; %zu differ)",
	      what, checked, frames, bad);
}

static char *
find_file(const char *dir, const char *name)
{
	char cmd[1200], line[1000];
	snprintf(cmd, sizeof cmd, "find '%s' -name '%s' | head -1", dir, name);
	FILE *p = popen(cmd, "r");
	char *out = NULL;
	if (p && fgets(line, sizeof line, p)) {
		line[strcspn(line, "\n")] = '\0';
		out = xstrdup(line);
	}
	if (p)
		pclose(p);
	return out;
}

static void
check_generated(void)
{
	char *dir = test_tmpdir("stacks");
	if (dir == NULL)
		return;
	gen_opts o;
	gen_opts_default(&o);
	o.nranks = 1;
	o.nsteps = 2;
	o.tasks_per_rank = 1500;
	o.slow_rank = -1;
	o.seed = 13;
	o.host_ops = 1;
	o.with_stack = 1;
	o.json = 1;
	gen_truth T = {0};
	char *prof = xasprintf("%s/p", dir);
	CHECK(gen_profile(&o, prof, &T) == 0, "generate a profile with call stacks, DB and JSON");
	char *db = find_file(prof, "ascend_pytorch_profiler_*.db");
	char *js = find_file(prof, "trace_view.json");
	tl_trace a, b;
	tl_load_opts lo = {.quiet_progress = 1};
	int la = db ? load_trace(db, &lo, &a) : -1, lb = js ? load_trace(js, &lo, &b) : -1;
	CHECK(la == 0 && lb == 0 && a.nranks == 1 && b.nranks == 1, "load its DB and its JSON");
	if (la == 0) {
		tl_query *q = tlq_open(&a, NULL);
		tlq_host_lanes(q);
		if (a.nranks == 1)
			check_truth("DB", a.ranks[0], &T);
		tlq_close(q);
		trace_free(&a);
	}
	if (lb == 0) {
		if (b.nranks == 1)
			check_truth("trace_view.json", b.ranks[0], &T);
		trace_free(&b);
	}
	gen_truth_free(&T);
	free(db);
	free(js);
	free(prof);
	test_rmtree(dir);
}

int
main(void)
{
	check_generated();
	check_sample();
	return test_done();
}
