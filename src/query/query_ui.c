/* Queries of the timeline viewer: explicit column grids, slice navigation, bubbles, regex
 * search and lazily read slice arguments. */
#include "config.h"
#include "analysis/lanes.h"
#include "load/load.h"
#include "load/profdb.h"
#include "query/query.h"
#include "util/xalloc.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pcre2.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TL_INVALID_U32 4294967295LL /* "none" in Ascend DB integer columns */

/* ---- columns ------------------------------------------------------------------------------- */

void
tlq_busy_columns(tl_track *t, const int64_t *edges, int ncols, int64_t *out)
{
	for (int c = 0; c < ncols; c++)
		out[c] = t ? tlq_busy(t, edges[c], edges[c + 1]) : 0;
}

size_t
tlq_slice_at(const tl_track *t, int64_t x)
{
	size_t i = track_first_ending_after(t, x);
	if (i < t->n && t->v[i].start <= x)
		return i;
	/* zero-length slices end at their start: look for one exactly at x */
	size_t z = track_first_starting_at(t, x);
	if (z < t->n && t->v[z].start == x && t->v[z].end == x)
		return z;
	return SIZE_MAX;
}

size_t
tlq_slice_next(const tl_track *t, int64_t x, int dir)
{
	if (dir > 0) {
		size_t i = x == INT64_MAX ? t->n : track_first_starting_at(t, x + 1);
		return i < t->n ? i : SIZE_MAX;
	}
	size_t i = track_first_starting_at(t, x);
	return i > 0 ? i - 1 : SIZE_MAX;
}

const tl_slice *
tlq_enclosing(const tl_rank *r, tl_lane_kind kind, int64_t x)
{
	for (size_t i = 0; i < r->ntracks; i++) {
		const tl_track *t = r->tracks[i];
		if (t->kind != kind || t->depth != 0)
			continue;
		size_t k = tlq_slice_at(t, x);
		if (k != SIZE_MAX)
			return &t->v[k];
	}
	return NULL;
}

int
tlq_mstx_other_part(const tl_rank *r, const tl_track *t, size_t idx, tl_span *out)
{
	if (idx >= t->n)
		return 0;
	if (t->kind == TL_LANE_MSTX) {
		if (t->dev == NULL || t->dev[idx].end < t->dev[idx].start)
			return 0;
		*out = t->dev[idx];
		return 1;
	}
	if (t->kind != TL_LANE_MSTX_DEV)
		return 0;
	const tl_slice *d = &t->v[idx];
	for (size_t i = 0; i < r->ntracks; i++) { /* one look-up, for the detail pane */
		const tl_track *m = r->tracks[i];
		if (m->kind != TL_LANE_MSTX || m->dev == NULL)
			continue;
		for (size_t k = 0; k < m->n; k++)
			if (m->dev[k].start == d->start && m->dev[k].end == d->end) {
				*out = (tl_span){m->v[k].start, m->v[k].end};
				return 1;
			}
	}
	return 0;
}

/* ---- bubbles (found and attributed in query_rl.c; here only the Free lane's totals) ------ */

size_t
tlq_bubble_total(const tl_rank *r, int64_t *total)
{
	tl_track *f = lanes_overlap_track(r, TL_OVL_FREE);
	*total = f && f->n ? track_prefix(f)[f->n] : 0;
	return f ? f->n : 0;
}

/* ---- search -------------------------------------------------------------------------------- */

static int
has_upper(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && s[1]) { /* \S, \D, \W are classes, not letters */
			s++;
			continue;
		}
		if (isupper((unsigned char)*s))
			return 1;
	}
	return 0;
}

int
tlq_search(const tl_trace *tr, const unsigned char *shown, const char *pattern, tl_search *out,
           char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	int ec;
	PCRE2_SIZE eo;
	uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	if (!has_upper(pattern))
		opts |= PCRE2_CASELESS;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &ec, &eo, NULL);
	if (re == NULL) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(ec, msg, sizeof msg);
		snprintf(err, errlen, "%s at offset %zu", (const char *)msg, (size_t)eo);
		return -1;
	}
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	out->pattern = xstrdup(pattern);
	out->nranks = tr->nranks;
	out->base = xcalloc(tr->nranks + 1, sizeof *out->base);
	size_t nt = 0;
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		out->base[ri] = nt;
		nt += tr->ranks[ri]->ntracks;
	}
	out->base[tr->nranks] = nt;
	out->tm = xcalloc(nt ? nt : 1, sizeof *out->tm);
	for (size_t ri = 0; ri < tr->nranks; ri++) {
		if (shown && !shown[ri])
			continue;
		const tl_rank *r = tr->ranks[ri];
		uint32_t nstr = strpool_count(r->pool);
		unsigned char *hit = xcalloc(nstr ? nstr : 1, 1);
		int any = 0;
		for (uint32_t id = 1; id < nstr; id++) {
			const char *s = strpool_get(r->pool, id);
			int rc = pcre2_match(re, (PCRE2_SPTR)s, strpool_len(r->pool, id), 0, 0, md,
			                     NULL);
			if (rc >= 0)
				hit[id] = 1, any = 1;
		}
		for (size_t ti = 0; any && ti < r->ntracks; ti++) {
			const tl_track *t = r->tracks[ti];
			if (t->kind == TL_LANE_OVERLAP)
				continue;
			tl_track_matches *m = &out->tm[out->base[ri] + ti];
			size_t cap = 0;
			for (size_t i = 0; i < t->n; i++)
				if (t->v[i].name < nstr && hit[t->v[i].name])
					VEC_PUSH(m->idx, m->n, cap, (uint32_t)i);
			out->total += m->n;
		}
		free(hit);
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return 0;
}

void
tlq_search_free(tl_search *s)
{
	if (s->tm)
		for (size_t i = 0; i < s->base[s->nranks]; i++)
			free(s->tm[i].idx);
	free(s->tm);
	free(s->base);
	free(s->pattern);
	memset(s, 0, sizeof *s);
}

const tl_track_matches *
tlq_search_track(const tl_search *s, size_t ri, size_t ti)
{
	if (s->tm == NULL || ri >= s->nranks || s->base[ri] + ti >= s->base[ri + 1])
		return NULL;
	const tl_track_matches *m = &s->tm[s->base[ri] + ti];
	return m->n ? m : NULL;
}

int
tlq_search_any(const tl_search *s, const tl_trace *tr, size_t ri, size_t ti, int64_t t0, int64_t t1)
{
	const tl_track_matches *m = tlq_search_track(s, ri, ti);
	if (m == NULL)
		return 0;
	const tl_track *t = tr->ranks[ri]->tracks[ti];
	size_t lo = 0, hi = m->n; /* first match whose end > t0 (ends ascend) */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->v[m->idx[mid]].end <= t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && t->v[m->idx[lo]].start < t1)
		return 1;
	/* a zero-length match exactly at t0 */
	return lo > 0 && t->v[m->idx[lo - 1]].start == t0 && t->v[m->idx[lo - 1]].end == t0;
}

/* position order: start, then rank, track, slice */
static int
pos_cmp(const tl_match_pos *a, const tl_match_pos *b)
{
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return (a->slice > b->slice) - (a->slice < b->slice);
}

/* first index k in m with start(m[k]) >= x */
static size_t
m_lower(const tl_track *t, const tl_track_matches *m, int64_t x)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->v[m->idx[mid]].start < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int
tlq_search_step(const tl_search *s, const tl_trace *tr, const tl_match_pos *from, int dir,
                tl_match_pos *out)
{
	int found = 0;
	tl_match_pos best = {0};
	for (size_t ri = 0; ri < s->nranks && ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track_matches *m = tlq_search_track(s, ri, ti);
			if (m == NULL)
				continue;
			const tl_track *t = r->tracks[ti];
			/* candidates around from->start; ties on start are ordered by position */
			size_t k = m_lower(t, m, from->start);
			tl_match_pos c;
			if (dir > 0) {
				for (; k < m->n; k++) {
					c = (tl_match_pos){ri, ti, m->idx[k],
					                   t->v[m->idx[k]].start};
					if (from->rank == SIZE_MAX ? c.start >= from->start
					                           : pos_cmp(&c, from) > 0)
						break;
				}
				if (k >= m->n)
					continue;
				if (!found || pos_cmp(&c, &best) < 0)
					best = c, found = 1;
			} else {
				/* the last one before from: scan back over ties */
				size_t e = k;
				while (e < m->n && t->v[m->idx[e]].start == from->start)
					e++;
				while (e > 0) {
					c = (tl_match_pos){ri, ti, m->idx[e - 1],
					                   t->v[m->idx[e - 1]].start};
					if (from->rank == SIZE_MAX ? c.start < from->start
					                           : pos_cmp(&c, from) < 0)
						break;
					e--;
				}
				if (e == 0)
					continue;
				if (!found || pos_cmp(&c, &best) > 0)
					best = c, found = 1;
			}
		}
	}
	if (!found)
		return -1;
	*out = best;
	return 0;
}

size_t
tlq_search_ordinal(const tl_search *s, const tl_trace *tr, const tl_match_pos *pos)
{
	size_t n = 0;
	for (size_t ri = 0; ri < s->nranks && ri < tr->nranks; ri++) {
		const tl_rank *r = tr->ranks[ri];
		for (size_t ti = 0; ti < r->ntracks; ti++) {
			const tl_track_matches *m = tlq_search_track(s, ri, ti);
			if (m == NULL)
				continue;
			const tl_track *t = r->tracks[ti];
			size_t k = m_lower(t, m, pos->start);
			while (k < m->n) {
				tl_match_pos c = {ri, ti, m->idx[k], t->v[m->idx[k]].start};
				if (c.start != pos->start || pos_cmp(&c, pos) >= 0)
					break;
				k++;
			}
			n += k;
		}
	}
	return n;
}

/* ---- slice arguments ----------------------------------------------------------------------- */

/* Columns whose integers are STRING_IDS ids in torch_npu DBs */
static int
is_string_col(const char *c)
{
	static const char *const cols[] = {
	    "name",         "opName",         "opType",      "taskType",       "groupName",
	    "inputFormats", "inputDataTypes", "inputShapes", "outputFormats",  "outputDataTypes",
	    "outputShapes", "inputDtypes",    "attrInfo",    "opState",        "hf32Eligible",
	    "message",      "domainId",       "algType",     "dataType",       "category",
	    "linkType",     "transportType",  "rdmaType",    "memcpyOperation"};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		if (strcmp(c, cols[i]) == 0)
			return 1;
	return 0;
}

typedef struct args_ctx {
	tl_profdb *pdb; /* the hardened connection: every statement through profdb_prepare */
	sqlite3 *db;
	sqlite3_stmt *str;
	tlq_arg_fn fn;
	void *ctx;
	int n;
} args_ctx;

/* Emits every column of the row except the times; returns globalTaskId or -1. */
static int64_t
emit_row(args_ctx *a, sqlite3_stmt *st, const char *prefix)
{
	int64_t gt = -1;
	for (int i = 0; i < sqlite3_column_count(st); i++) {
		const char *cn = sqlite3_column_name(st, i);
		if (cn == NULL || strcmp(cn, "startNs") == 0 || strcmp(cn, "endNs") == 0)
			continue;
		int ty = sqlite3_column_type(st, i);
		if (ty == SQLITE_NULL)
			continue;
		char key[96], val[512];
		snprintf(key, sizeof key, "%s%s", prefix, cn);
		if (strcmp(cn, "globalTaskId") == 0)
			gt = sqlite3_column_int64(st, i);
		if (ty == SQLITE_INTEGER) {
			int64_t v = sqlite3_column_int64(st, i);
			if (v == TL_INVALID_U32)
				continue;
			if (is_string_col(cn) && a->str) {
				sqlite3_reset(a->str);
				sqlite3_bind_int64(a->str, 1, v);
				if (sqlite3_step(a->str) == SQLITE_ROW) {
					const char *s =
					    (const char *)sqlite3_column_text(a->str, 0);
					snprintf(val, sizeof val, "%s", s ? s : "");
					if (val[0] == '\0')
						continue;
				} else {
					snprintf(val, sizeof val, "%" PRId64, v);
				}
			} else {
				snprintf(val, sizeof val, "%" PRId64, v);
			}
		} else {
			const char *s = (const char *)sqlite3_column_text(st, i);
			snprintf(val, sizeof val, "%s", s ? s : "");
		}
		a->fn(a->ctx, key, val);
		a->n++;
	}
	return gt;
}

static int64_t
query_row(args_ctx *a, const char *sql, int64_t id, const char *prefix)
{
	sqlite3_stmt *st;
	int64_t gt = -1;
	if (profdb_prepare(a->pdb, sql, &st) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		gt = emit_row(a, st, prefix);
	sqlite3_finalize(st);
	return gt;
}

int
tlq_slice_args(const tl_rank *r, const tl_track *t, size_t idx, tlq_arg_fn fn, void *ctx)
{
	if (idx >= t->n || t->source >= r->nsources)
		return 0;
	const tl_source *src = r->sources[t->source];
	int json = src->kind == TL_SRC_TRACE_VIEW || src->kind == TL_SRC_KINETO;
	if (!json && src->kind != TL_SRC_TORCH_DB && src->kind != TL_SRC_MSPROF_DB &&
	    src->kind != TL_SRC_MINDSPORE_DB)
		return 0;
	/* a JSON slice's arg is its event's ordinal (the step lane's is a step index) */
	if (json && (t->kind == TL_LANE_STEP || t->kind == TL_LANE_STAGE ||
	             t->kind == TL_LANE_OVERLAP || t->v[idx].arg == UINT32_MAX))
		return 0;
	const char *sql = NULL, *info = NULL;
	switch (json ? TL_LANE__COUNT : t->kind) {
	case TL_LANE__COUNT:
		break;
	case TL_LANE_COMPUTE:
		info = "SELECT * FROM COMPUTE_TASK_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_COMM_TASK:
		info = "SELECT * FROM COMMUNICATION_TASK_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_MEMCPY:
		info = "SELECT * FROM MEMCPY_INFO WHERE globalTaskId = ? LIMIT 1";
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_MSTX_DEV:
	case TL_LANE_OTHER:
		sql = "SELECT * FROM TASK WHERE rowid = ?";
		break;
	case TL_LANE_COMM:
		sql = "SELECT * FROM COMMUNICATION_OP WHERE rowid = ?";
		break;
	case TL_LANE_MSTX:
		sql = "SELECT * FROM MSTX_EVENTS WHERE rowid = ?";
		break;
	case TL_LANE_HOST: /* read on demand from one of two tables: the key says which */
		sql = (t->key & TL_HOST_KEY_CANN) ? "SELECT * FROM CANN_API WHERE rowid = ?"
		                                  : "SELECT * FROM PYTORCH_API WHERE rowid = ?";
		break;
	default:
		return 0;
	}
	args_ctx a = {.fn = fn, .ctx = ctx};
	/* the file is read again, long after loading: it may be gone, or not the file it was */
	struct stat sb;
	char err[400];
	if (stat(src->path, &sb) != 0) {
		snprintf(err, sizeof err, "the file is gone (%s: deleted or moved since tl loaded "
		                          "it): %s",
		         strerror(errno), src->path);
		fn(ctx, "arguments", err);
		return -1;
	}
	if ((src->ino != 0 || src->size != 0) &&
	    ((uint64_t)sb.st_dev != src->dev || (uint64_t)sb.st_ino != src->ino ||
	     (int64_t)sb.st_size != src->size ||
	     (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec != src->mtime_ns)) {
		snprintf(err, sizeof err, "not shown: the file changed since tl loaded it (replaced, "
		                          "or still being written): %s",
		         src->path);
		fn(ctx, "arguments", err);
		return -1;
	}
	if (json)
		return trace_json_event_args(
		    src->path, t->source < r->nevidx ? &r->src_evidx[t->source] : NULL,
		    t->v[idx].arg, fn, ctx);
	tl_profdb pdb;
	if (profdb_open(&pdb, src->path, err, sizeof err) != 0) {
		char m[600];
		snprintf(m, sizeof m, "%s: %s", err, src->path);
		fn(ctx, "arguments", m);
		return -1;
	}
	a.pdb = &pdb;
	a.db = pdb.db;
	if (profdb_prepare(&pdb, "SELECT value FROM STRING_IDS WHERE id = ?", &a.str) != SQLITE_OK)
		a.str = NULL;
	/* the operator's own fields first (op type, shapes, group...), then the task's */
	if (info) {
		sqlite3_stmt *st;
		if (profdb_prepare(&pdb, "SELECT globalTaskId FROM TASK WHERE rowid = ?", &st) ==
		    SQLITE_OK) {
			sqlite3_bind_int64(st, 1, t->v[idx].arg);
			if (sqlite3_step(st) == SQLITE_ROW &&
			    sqlite3_column_type(st, 0) != SQLITE_NULL)
				query_row(&a, info, sqlite3_column_int64(st, 0), "");
			sqlite3_finalize(st);
		}
	}
	query_row(&a, sql, t->v[idx].arg, "");
	sqlite3_finalize(a.str);
	profdb_close(&pdb);
	return a.n;
}
