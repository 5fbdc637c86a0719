/* Helpers of the fuzz targets (fuzz.h). */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/lanes.h"
#include "loading/loading.h"
#include "query/host.h"
#include "query/links.h"
#include "query/memory.h"
#include "query/query.h"
#include "report/report.h"
#include "util/msg.h"
#include "util/xalloc.h"

void
fuzz_setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	msg_set_quiet(1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/tl-fuzz", 1);
	setenv("HOME", "/nonexistent/tl-fuzz", 1);
	setenv("TL_JSON_NO_MMAP", "1", 1);
}

char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

const char *
fuzz_file(const uint8_t *data, size_t size, const char *ext)
{
	static char path[512];
	const char *dir = getenv("TMPDIR");
	if (dir == NULL || *dir == '\0')
		dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(path, sizeof path, "%s/tl-fuzz-%ld.%s", dir, (long)getpid(), ext);
	FILE *f = fopen(path, "wb");
	if (f == NULL) {
		perror(path);
		abort();
	}
	if (size && fwrite(data, 1, size, f) != size) {
		perror(path);
		abort();
	}
	fclose(f);
	return path;
}

static void
arg_sink(void *ctx, const char *key, const char *value)
{
	size_t *n = ctx;
	*n += strlen(key) + strlen(value);
}

void
fuzz_exercise_rank(struct tl_rank *r, const void *src)
{
	(void)src;
	tl_trace tr;
	trace_init_rank(&tr, r);
	lanes_build_rank(r);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		tl_query *q = tlq_open(&tr, NULL);
		report_summary_text(null, q);
		report_summary_json(null, q);
		/* the operator panel's window (its middle third: each task's start from the file)
		 * and the matrix panel's cells */
		if (r->t_max > r->t_min) {
			int64_t w0 = r->t_min + (r->t_max - r->t_min) / 3,
			        w1 = r->t_max - (r->t_max - r->t_min) / 3;
			tl_ops_result o;
			tlq_ops_scoped(q, &w0, &w1, &o);
			tlq_ops_free(&o);
		}
		tl_comm_result c;
		tl_comm_matrix m;
		tlq_comm(q, &c);
		tlq_comm_matrix(&c, &m);
		for (size_t i = 0; i < m.ncells; i++)
			for (size_t p = 0; p < m.nplanes; p++)
				(void)tlq_comm_matrix_cell(&m, p, m.cells[i].src, m.cells[i].dst);
		tlq_comm_matrix_free(&m);
		tlq_comm_free(&c);
		tlq_close(q);
		fclose(null);
	}
	/* the detail pane's lookups: a few slices of every track */
	size_t n = 0;
	for (size_t i = 0; i < r->ntracks; i++)
		for (size_t k = 0; k < r->tracks[i]->n && k < 2; k++)
			tlq_slice_args(r, r->tracks[i], k, arg_sink, &n);
	/* the host lanes H reads on demand, and the launch links of the detail pane */
	load_host(r);
	for (size_t i = 0; i < r->ntracks; i++)
		for (size_t k = 0; k < r->tracks[i]->n && k < 2; k++) {
			tlq_slice_links(r, r->tracks[i], k, arg_sink, &n);
			tlq_slice_flow_lines(r, r->tracks[i], k, arg_sink, &n);
		}
	/* the link keys (u, v, y) and the host-bound idle time of the range statistics */
	tl_query *lq = tlq_open(&tr, NULL);
	if (lq != NULL) {
		for (size_t i = 0; i < r->ntracks; i++)
			for (size_t k = 0; k < r->tracks[i]->n && k < 2; k++) {
				for (int dir = 0; dir < 2; dir++) {
					tlq_slice_pos *lv;
					size_t named;
					ptrdiff_t nl = tlq_links(lq, 0, r->tracks[i], k,
					                         (tl_link_dir)dir, &lv, &named);
					for (ptrdiff_t j = 0; j < nl; j++)
						n += r->tracks[lv[j].track]->v[lv[j].idx].name;
					free(lv);
				}
				tlq_slice_pos fp;
				tlq_fwdbwd_partner(lq, 0, r->tracks[i], k, &fp, NULL);
				/* the detail pane's lines from the session's link index */
				tlq_slice_links_q(lq, 0, r->tracks[i], k, arg_sink, &n);
			}
		tl_host_idle hi;
		tlq_host_idle(lq, 0, r->t_min, r->t_max, &hi);
		tlq_close(lq);
	}
	/* the largest allocations live in the middle of the capture */
	tlq_alloc *al;
	if (tlq_live_allocations(r, r->t_min / 2 + r->t_max / 2, 8, &al) >= 0)
		free(al);
	/* the counter lanes (U): columns, the value at the middle, the peak, their texts, and
	 * what was live at the peak (A) */
	tl_query *cq = r->t_min <= r->t_max ? tlq_open(&tr, NULL) : NULL;
	if (cq != NULL) {
		tl_counter *const *cs;
		size_t nc = tlq_rank_counters(cq, 0, &cs);
		int64_t edges[17], mx[16];
		unsigned char hv[16];
		for (int k = 0; k <= 16; k++)
			edges[k] = r->t_min + (r->t_max - r->t_min) / 16 * k;
		for (size_t i = 0; i < nc; i++) {
			char b[200];
			int64_t lo, hi, v;
			tlq_counter_columns(cs[i], r->t_max, edges, 16, mx, hv);
			tlq_counter_label(r, cs[i], b, sizeof b);
			if (tlq_counter_at(cs[i], r->t_max, edges[8], &v))
				tlq_counter_value(r, cs[i], v, b, sizeof b);
			size_t p = tlq_counter_peak(cs[i], &lo, &hi);
			if (p == SIZE_MAX)
				continue;
			tlq_counter_value(r, cs[i], lo, b, sizeof b);
			tlq_counter_value(r, cs[i], hi, b, sizeof b);
			if (tlq_live_allocations(r, cs[i]->t[p], 8, &al) >= 0)
				free(al);
		}
		tlq_close(cq);
	}
	tl_overlap o;
	tlq_overlap(r, r->t_min, r->t_max, &o);
	/* the pipeline as --pp 2 asks for it: a DB's forward/backward operator pairs are read,
	 * and blocks built from them */
	/* the viewer's session: derived lanes and every track's level of detail, and a frame's
	 * columns of every track, zoomed out and in */
	tl_query_opts vo = {.lanes = 1};
	tl_query *vq = tlq_open(&tr, &vo);
	if (vq != NULL) {
		tl_cell cells[16];
		for (size_t i = 0; i < r->ntracks; i++) {
			tlq_columns(r->tracks[i], r->t_min, r->t_max, 16, cells);
			tlq_columns(r->tracks[i], r->t_min / 2 + r->t_max / 2,
			            r->t_min / 2 + r->t_max / 2 + 1000, 16, cells);
		}
		tlq_close(vq);
	}
	tl_query_opts ro = {.pp = 2};
	tl_query *rl = tlq_open(&tr, &ro);
	if (rl != NULL) {
		tlq_pipeline(rl);
		tlq_close(rl);
	}
	trace_free(&tr); /* frees r */
}
