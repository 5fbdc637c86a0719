/* The generator's JSON writer's helpers (gen_json_int.h): writing events and metadata in the
 * spelling the real files use, reading the DB, interval unions for Overlap Analysis. */
#include "config.h"
#include "gen/gen.h"
#include "gen/gen_json_int.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>

/* ---- output ------------------------------------------------------------------------------- */

void
jw_jstr(jw *w, const char *s)
{
	const char *p = s;
	while (*p && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f && *p != '"' &&
	       *p != '\\')
		p++;
	fputc('"', w->f);
	if (*p == '\0')
		fputs(s, w->f);
	else
		text_json_write(w->f, s);
	fputc('"', w->f);
}

/* ns -> the µs text torch_npu writes: exactly three decimals. */
void
jw_us(jw *w, int64_t ns)
{
	if (ns < 0) {
		fputc('-', w->f);
		ns = -ns;
	}
	fprintf(w->f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

/* Opens an event: {"ph": .., "name": .., "pid": .., "tid": .., "ts": "..." */
void
jw_ev_open(jw *w, const char *ph, const char *name, int64_t pid, int64_t tid, int64_t ts)
{
	fputs(w->first ? "[" : ", ", w->f);
	w->first = 0;
	fprintf(w->f, "{\"ph\": \"%s\", \"name\": ", ph);
	jw_jstr(w, name);
	fprintf(w->f, ", \"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"", pid, tid);
	jw_us(w, ts);
	fputc('"', w->f);
}

void
jw_ev_dur(jw *w, int64_t ns)
{
	fputs(", \"dur\": ", w->f);
	jw_us(w, ns);
}

static void
jw_meta(jw *w, const char *what, int64_t pid, int64_t tid, const char *key, const char *sval,
        int64_t num)
{
	fputs(w->first ? "[" : ", ", w->f);
	w->first = 0;
	fprintf(w->f,
	        "{\"name\": \"%s\", \"pid\": %" PRId64 ", \"tid\": %" PRId64
	        ", \"args\": {\"%s\": ",
	        what, pid, tid, key);
	if (sval)
		jw_jstr(w, sval);
	else
		fprintf(w->f, "%" PRId64, num);
	fputs("}, \"ph\": \"M\"}", w->f);
}

void
jw_process_meta(jw *w, int64_t pid, const char *name, const char *label, int64_t sort)
{
	jw_meta(w, "process_name", pid, 0, "name", name, 0);
	jw_meta(w, "process_labels", pid, 0, "labels", label, 0);
	jw_meta(w, "process_sort_index", pid, 0, "sort_index", NULL, sort);
}

void
jw_thread_meta(jw *w, int64_t pid, int64_t tid, const char *name, int64_t sort)
{
	jw_meta(w, "thread_name", pid, tid, "name", name, 0);
	jw_meta(w, "thread_sort_index", pid, tid, "sort_index", NULL, sort);
}

/* A flow: "s" on the launch, "f" ("bp": "e") on the device item. */
void
jw_flow(jw *w, const char *cat, const char *id, int64_t pid, int64_t tid, int64_t ts, int end)
{
	fputs(", ", w->f);
	fprintf(w->f,
	        "{\"name\": \"%s%s\", \"ph\": \"%s\", \"cat\": \"%s\", \"id\": \"%s\", "
	        "\"pid\": %" PRId64 ", \"tid\": %" PRId64 ", \"ts\": \"",
	        cat, id, end ? "f" : "s", cat, id, pid, tid);
	jw_us(w, ts);
	fputs(end ? "\", \"bp\": \"e\"}" : "\"}", w->f);
}

int64_t
jw_layer_pid(const jw *w, int sort, int device)
{
	if (w->version == GEN_JSON_2024)
		switch (sort) {
		case SORT_HW:
			return 800;
		case SORT_CANN:
			return w->pid * 100 + 2;
		case SORT_MSPROFTX:
			return w->pid * 100 + 8;
		case SORT_HCCL:
			return w->pid * 10000 + 1000;
		case SORT_OVERLAP:
			return w->pid * 10000 + 1100;
		default:
			break;
		}
	return (w->pid << 10) | ((int64_t)sort << 5) | (device ? (w->dev & 31) : 0);
}

/* ---- reading ------------------------------------------------------------------------------ */

int64_t
jw_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_int64(st, i); /* sqlite3_int64 is long long: printed as int64_t */
}

sqlite3_stmt *
jw_prep(jw *w, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL; /* a table the DB does not have: that part is left out */
	return st;
}

const char *
jw_s_of(const jw *w, const tl_u64map *m, int64_t id)
{
	uint32_t v;
	if (u64map_get(m, (uint64_t)id, &v))
		return strpool_get(w->pool, v);
	return "";
}

const char *
jw_str(const jw *w, sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return "";
	return jw_s_of(w, &w->str, jw_col(st, i));
}

/* "alias.col", or "NULL" when the table lacks the column (columns drift between versions,
 * e.g. COMMUNICATION_TASK_INFO.bandwidth is a 2026 addition). */
char *
jw_colref(jw *w, const char *table, const char *alias, const char *colname)
{
	char *sql =
	    sqlite3_mprintf("SELECT 1 FROM pragma_table_info(%Q) WHERE name = %Q", table, colname);
	sqlite3_stmt *st = jw_prep(w, sql);
	int have = st && sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return have ? xasprintf("%s.\"%s\"", alias, colname) : xstrdup("NULL");
}

int64_t
jw_scalar(jw *w, const char *sql, int64_t def)
{
	sqlite3_stmt *st = jw_prep(w, sql);
	int64_t v = def;
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = jw_col(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* ---- intervals ---------------------------------------------------------------------------- */

static int
cmp_ival(const void *a, const void *b)
{
	const ival *x = a, *y = b;
	return (x->s > y->s) - (x->s < y->s);
}

/* Sorts and merges in place (touching intervals merge). */
void
jw_ivals_union(ivals *iv)
{
	size_t w = 0;
	if (iv->n == 0)
		return;
	qsort(iv->v, iv->n, sizeof *iv->v, cmp_ival);
	for (size_t i = 1; i < iv->n; i++) {
		if (iv->v[i].s <= iv->v[w].e) {
			if (iv->v[i].e > iv->v[w].e)
				iv->v[w].e = iv->v[i].e;
		} else {
			iv->v[++w] = iv->v[i];
		}
	}
	iv->n = w + 1;
}

/* a − b of two sorted unions, appended to out. */
void
jw_ivals_minus(const ivals *a, const ivals *b, ivals *out)
{
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t s = a->v[i].s, e = a->v[i].e;
		while (j < b->n && b->v[j].e <= s)
			j++;
		for (size_t k = j; k < b->n && b->v[k].s < e; k++) {
			if (b->v[k].s > s) {
				ival x = {s, b->v[k].s};
				VEC_PUSH(out->v, out->n, out->cap, x);
			}
			if (b->v[k].e > s)
				s = b->v[k].e;
		}
		if (s < e) {
			ival x = {s, e};
			VEC_PUSH(out->v, out->n, out->cap, x);
		}
	}
}
