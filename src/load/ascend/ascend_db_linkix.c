/* The link index of a DB source: the connectionId columns of CANN_API, CONNECTION_IDS,
 * PYTORCH_API, TASK and COMMUNICATION_OP read once into sorted arrays, so that the link hooks
 * (ascend_db_links.c, ascend_db_link_ends.c) find the rows of a link by binary search and then
 * read them by rowid. Without it each lookup is a scan of the tables: none of those columns
 * is indexed in torch_npu's DBs, and PYTORCH_API and CONNECTION_IDS can hold millions of rows.
 * The query session builds one per rank the first time a link is asked for (load_link_index). */
#include "config.h"
#include "load/ascend/ascend_db_int.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static void
quiet(void *ctx, const char *key, const char *value)
{
	(void)ctx;
	(void)key;
	(void)value;
}

static int
cmp_pair(const void *a, const void *b)
{
	const db_ix_pair *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->val > y->val) - (x->val < y->val);
}

/* Every (key, val) of the two integer columns sql selects, sorted. 0, or -1 when the table
 * cannot be read. */
static int
read_pairs(tl_profdb *pdb, const char *table, const char *sql, db_ix_pairs *out)
{
	memset(out, 0, sizeof *out);
	if (!profdb_has(pdb, table))
		return 0;
	sqlite3_stmt *st;
	if (profdb_prepare(pdb, sql, &st) != SQLITE_OK)
		return -1;
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 1) != SQLITE_INTEGER)
			continue;
		db_ix_pair p = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
		VEC_PUSH(out->v, out->n, cap, p);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(out->v);
		memset(out, 0, sizeof *out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, cmp_pair);
	if (out->n < cap && out->n > 0)
		out->v = xreallocarray(out->v, out->n, sizeof *out->v);
	return 0;
}

/* Is col the table's INTEGER PRIMARY KEY (its rowid)? msprof declares CANN_API's connectionId
 * so: a lookup by it is then a lookup of the table's own key, and needs no copy. */
static int
int_pk(tl_profdb *pdb, const char *table, const char *col)
{
	char sql[120];
	snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", table);
	sqlite3_stmt *st;
	if (!profdb_has(pdb, table) || profdb_prepare(pdb, sql, &st) != SQLITE_OK)
		return 0;
	int pk = 0, npk = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		if (sqlite3_column_int(st, 5) > 0) {
			npk++;
			pk = name && type && strcmp(name, col) == 0 &&
			     strcasecmp(type, "INTEGER") == 0;
		}
	}
	sqlite3_finalize(st);
	return npk == 1 && pk;
}

int
db_ix_cann(const db_link_ix *x, int64_t conn, int64_t *row)
{
	if (x->cann_by_rowid) {
		*row = conn; /* the row's existence is asked when it is read */
		return 1;
	}
	size_t e, b = db_ix_find(&x->p[DB_IX_CANN], conn, &e);
	if (b == e)
		return 0;
	*row = x->p[DB_IX_CANN].v[b].val; /* the first, as a scan of the table meets it */
	return 1;
}

void
ascend_db_link_index_free(void *p)
{
	db_link_ix *x = p;
	if (x == NULL)
		return;
	for (int i = 0; i < DB_IX__N; i++)
		free(x->p[i].v);
	free(x);
}

void *
ascend_db_link_index(const tl_rank *r, size_t si)
{
	if (si >= r->nsources || load_source_unchanged(r->sources[si], quiet, NULL) != 0)
		return NULL;
	tl_profdb pdb;
	char err[400];
	if (profdb_open(&pdb, r->sources[si]->path, err, sizeof err) != 0)
		return NULL;
	static const struct {
		const char *table, *sql;
	} q[DB_IX__N] = {
	    [DB_IX_CANN] = {"CANN_API", "SELECT connectionId, rowid FROM CANN_API"},
	    [DB_IX_CID_CONN] = {"CONNECTION_IDS", "SELECT connectionId, id FROM CONNECTION_IDS"},
	    [DB_IX_CID_ID] = {"CONNECTION_IDS", "SELECT id, connectionId FROM CONNECTION_IDS"},
	    [DB_IX_API] = {"PYTORCH_API", "SELECT connectionId, rowid FROM PYTORCH_API"},
	    [DB_IX_TASK] = {"TASK", "SELECT connectionId, rowid FROM TASK"},
	    [DB_IX_COMM_OP] = {"COMMUNICATION_OP",
	                       "SELECT connectionId, rowid FROM COMMUNICATION_OP"},
	};
	db_link_ix *x = xcalloc(1, sizeof *x);
	x->cann_by_rowid = int_pk(&pdb, "CANN_API", "connectionId");
	int ok = 1;
	for (int i = 0; i < DB_IX__N && ok; i++)
		if (i != DB_IX_CANN || !x->cann_by_rowid)
			ok = read_pairs(&pdb, q[i].table, q[i].sql, &x->p[i]) == 0;
	profdb_close(&pdb);
	if (!ok) { /* the hooks read the tables as without an index */
		ascend_db_link_index_free(x);
		return NULL;
	}
	return x;
}

size_t
db_ix_find(const db_ix_pairs *p, int64_t key, size_t *end)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->v[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < p->n && p->v[e].key == key)
		e++;
	*end = e;
	return lo;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

size_t
db_ix_api_rows(const db_link_ix *x, int64_t conn, int64_t **out)
{
	int64_t *v = NULL;
	size_t n = 0, cap = 0, e;
	const db_ix_pairs *cid = &x->p[DB_IX_CID_CONN], *api = &x->p[DB_IX_API];
	/* (an id listed twice gives its rows twice: they are made unique below, as SQL's IN) */
	for (size_t i = db_ix_find(cid, conn, &e); i < e; i++) {
		size_t ae;
		for (size_t k = db_ix_find(api, cid->v[i].val, &ae); k < ae; k++)
			VEC_PUSH(v, n, cap, api->v[k].val);
	}
	if (n > 1) { /* by rowid, as a scan of the table meets them; each once */
		qsort(v, n, sizeof *v, cmp_i64);
		size_t m = 1;
		for (size_t i = 1; i < n; i++)
			if (v[i] != v[m - 1])
				v[m++] = v[i];
		n = m;
	}
	*out = v;
	return n;
}

size_t
db_ix_rows_of_conns(const db_ix_pairs *rows, const int64_t *conns, size_t nconn, int64_t **out)
{
	int64_t *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t c = 0; c < nconn; c++) {
		if (c > 0 && conns[c] == conns[c - 1])
			continue;
		size_t e;
		for (size_t k = db_ix_find(rows, conns[c], &e); k < e; k++)
			VEC_PUSH(v, n, cap, rows->v[k].val);
	}
	if (n > 1) {
		qsort(v, n, sizeof *v, cmp_i64);
		size_t m = 1;
		for (size_t i = 1; i < n; i++)
			if (v[i] != v[m - 1])
				v[m++] = v[i];
		n = m;
	}
	*out = v;
	return n;
}

size_t
db_ix_conns_of_id(const db_link_ix *x, int64_t id, int64_t **out)
{
	const db_ix_pairs *p = &x->p[DB_IX_CID_ID];
	size_t e, b = db_ix_find(p, id, &e);
	int64_t *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t k = b; k < e; k++)
		VEC_PUSH(v, n, cap, p->v[k].val); /* sorted: the pairs are by (id, connectionId) */
	*out = v;
	return n;
}
